#include "schema_registry.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "polycodec/formats/avro.hpp"
#include "polycodec/formats/postcard.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "proto_compiler.hpp"

namespace polycodec::server {
namespace {

// One kind of schema file: its extension, its kind name, how it loads and what it lists.
struct schema_kind {
    std::string_view extension;
    std::string_view kind;
    result<void> (*load)(std::string_view text, registry_entry& e);
    std::vector<std::string> (*types)(const registry_entry& e);
    bool (*holds)(const registry_entry& e);
};

// Parses a schema file's text with `Parse` into the entry's member `Slot`.
template <auto Slot, auto Parse>
result<void> load_into(std::string_view text, registry_entry& e) {
    auto s = Parse(text);
    if (!s) {
        return fail(s.error());
    }
    e.*Slot = *s;
    return {};
}

constexpr schema_kind schema_kinds[] = {
    {".json", "postcard",
     load_into<&registry_entry::postcard, &postcard::parse_schema>,
     [](const registry_entry&) { return std::vector<std::string>{}; },
     [](const registry_entry& e) { return e.postcard != nullptr; }},
    {".avsc", "avro",
     load_into<&registry_entry::avro, &avro::parse_schema>,
     [](const registry_entry& e) { return avro::type_names(*e.avro); },
     [](const registry_entry& e) { return e.avro != nullptr; }},
    // protobuf files load by path (a .proto goes through libprotobuf's compiler): listed here,
    // loaded by load_protobuf_schema.
    {"", "protobuf", nullptr,
     [](const registry_entry& e) { return protobuf::message_names(*e.protobuf); },
     [](const registry_entry& e) { return e.protobuf != nullptr; }},
};

}  // namespace

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
        if (is_protobuf_schema_file(path)) {  // .proto, .binpb, .desc, .pb: read by path
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
            continue;
        }
        for (const schema_kind& k : schema_kinds) {
            if (k.load == nullptr || entry.path().extension() != k.extension) {
                continue;
            }
            std::ifstream f(entry.path(), std::ios::binary);
            std::string text((std::istreambuf_iterator<char>(f)),
                             std::istreambuf_iterator<char>());
            // NAME.json and NAME.avsc fill the two members of one entry: schema=NAME then
            // means the postcard schema for postcard and the avro one for avro.
            registry_entry& e = reg[name];
            if (auto r = k.load(text, e); !r) {
                std::string where = entry.path().string();
                if (r.error().line != 0) {
                    where += ":" + std::to_string(r.error().line);
                }
                return fail(make_error(errc::invalid_option,
                                       "schema " + where + ": " + r.error().message));
            }
        }
    }
    if (ec) {
        return fail(make_error(errc::invalid_option,
                               "cannot read --schema-dir " + dir + ": " + ec.message()));
    }
    return reg;
}

std::vector<schema_listing> list_schemas(const schema_registry& reg) {
    std::vector<schema_listing> out;
    for (const auto& [name, e] : reg) {
        for (const schema_kind& k : schema_kinds) {
            if (k.holds(e)) {
                out.push_back({name, k.kind, k.types(e)});
            }
        }
    }
    return out;
}

}  // namespace polycodec::server
