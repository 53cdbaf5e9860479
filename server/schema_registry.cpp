#include "schema_registry.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "polycodec/formats/postcard.hpp"

namespace polycodec::server {

result<schema_registry> load_schema_registry(const std::string& dir) {
    schema_registry reg;
    if (dir.empty()) {
        return reg;
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return fail(make_error(errc::invalid_option,
                               "--schema-dir " + dir + " is not a directory"));
    }
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".json") {
            continue;
        }
        std::ifstream f(entry.path(), std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        auto s = postcard::parse_schema(text);
        if (!s) {
            return fail(make_error(errc::invalid_option, "schema " + entry.path().string() +
                                                             ": " + s.error().message));
        }
        reg.emplace(entry.path().stem().string(), *s);
    }
    if (ec) {
        return fail(make_error(errc::invalid_option,
                               "cannot read --schema-dir " + dir + ": " + ec.message()));
    }
    return reg;
}

}  // namespace polycodec::server
