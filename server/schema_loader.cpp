#include "schema_loader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "polycodec/formats/postcard.hpp"
#include "schema_registry.hpp"

namespace polycodec::cli {

result<void> load_schema_file(const std::string& path, transcode_options& opt) {
    if (server::is_protobuf_schema_file(path)) {
        auto s = server::load_protobuf_schema(path);
        if (!s) {
            return fail(std::move(s.error()));
        }
        opt.decode.protobuf_schema = opt.encode.protobuf_schema = *s;
        opt.decode.schema_name = opt.encode.schema_name = path;
        return {};
    }
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        return fail(make_error(errc::invalid_option,
                               "cannot read schema " + path + ": " + std::strerror(errno)));
    }
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto s = postcard::parse_schema(text);
    if (!s) {
        error e = s.error();
        e.message = path + ": " + e.message;
        return fail(std::move(e));
    }
    opt.decode.schema = *s;
    opt.encode.schema = *s;
    opt.decode.schema_name = path;
    opt.encode.schema_name = path;
    return {};
}

}  // namespace polycodec::cli
