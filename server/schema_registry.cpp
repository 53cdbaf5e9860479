#include "schema_registry.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "polycodec/formats/postcard.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "proto_compiler.hpp"

namespace polycodec::server {

bool is_protobuf_schema_file(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    return ext == ".proto" || ext == ".binpb" || ext == ".desc" || ext == ".pb";
}

result<std::shared_ptr<const protobuf::schema>> load_protobuf_schema(const std::string& path) {
    std::string bytes;
    if (std::filesystem::path(path).extension() == ".proto") {
        auto compiled = compile_proto_file(path);
        if (!compiled) {
            return fail(std::move(compiled.error()));
        }
        bytes = std::move(*compiled);
    } else {
        std::ifstream f(path, std::ios::binary);
        if (!f) {
            return fail(make_error(errc::invalid_option, "cannot read schema " + path));
        }
        bytes.assign((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    }
    auto s = protobuf::parse_descriptor_set(bytes);
    if (!s) {
        return fail(make_error(errc::invalid_option, path + ": " + s.error().message));
    }
    return *s;
}

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
        if (!entry.is_regular_file()) {
            continue;
        }
        std::string path = entry.path().string();
        std::string name = entry.path().stem().string();
        if (entry.path().extension() == ".json") {
            std::ifstream f(entry.path(), std::ios::binary);
            std::string text((std::istreambuf_iterator<char>(f)),
                             std::istreambuf_iterator<char>());
            auto s = postcard::parse_schema(text);
            if (!s) {
                return fail(make_error(errc::invalid_option,
                                       "schema " + path + ": " + s.error().message));
            }
            reg[name].postcard = *s;
        } else if (is_protobuf_schema_file(path)) {
            auto s = load_protobuf_schema(path);
            if (!s) {
                return fail(make_error(errc::invalid_option, "schema " + s.error().message));
            }
            registry_entry& e = reg[name];
            if (e.protobuf) {
                return fail(make_error(errc::invalid_option,
                                       "schema " + path + ": a protobuf schema named \"" + name +
                                           "\" was already loaded from another file"));
            }
            e.protobuf = *s;
        }
    }
    if (ec) {
        return fail(make_error(errc::invalid_option,
                               "cannot read --schema-dir " + dir + ": " + ec.message()));
    }
    return reg;
}

}  // namespace polycodec::server
