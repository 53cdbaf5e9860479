#include "schema_loader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "polycodec/formats/avro.hpp"
#include "polycodec/formats/postcard.hpp"

namespace polycodec::cli {

bool is_avro_schema_path(std::string_view path) {
    return path.size() >= 5 && path.substr(path.size() - 5) == ".avsc";
}

result<void> load_reader_schema_file(const std::string& path, transcode_options& opt) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        return fail(make_error(errc::invalid_option,
                               "cannot read schema " + path + ": " + std::strerror(errno)));
    }
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto a = avro::parse_schema(text);
    if (!a) {
        error e = a.error();
        e.message = path + ":" + std::to_string(e.line) + ": " + e.message;
        return fail(std::move(e));
    }
    opt.decode.avro_reader_schema = *a;
    opt.decode.reader_schema_name = path;
    return {};
}

result<void> load_schema_file(const std::string& path, transcode_options& opt) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        return fail(make_error(errc::invalid_option,
                               "cannot read schema " + path + ": " + std::strerror(errno)));
    }
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (is_avro_schema_path(path)) {
        auto a = avro::parse_schema(text);
        if (!a) {
            error e = a.error();
            e.message = path + ":" + std::to_string(e.line) + ": " + e.message;
            return fail(std::move(e));
        }
        opt.decode.avro_schema = opt.encode.avro_schema = *a;
        opt.decode.schema_name = opt.encode.schema_name = path;
        return {};
    }
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
