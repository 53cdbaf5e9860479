#include "schema_registry.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "polycodec/formats/avro.hpp"
#include "polycodec/formats/postcard.hpp"

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

constexpr schema_kind schema_kinds[] = {
    {".json", "postcard",
     [](std::string_view text, registry_entry& e) -> result<void> {
         auto s = postcard::parse_schema(text);
         if (!s) {
             return fail(s.error());
         }
         e.postcard = *s;
         return {};
     },
     [](const registry_entry&) { return std::vector<std::string>{}; },
     [](const registry_entry& e) { return e.postcard != nullptr; }},
    {".avsc", "avro",
     [](std::string_view text, registry_entry& e) -> result<void> {
         auto s = avro::parse_schema(text);
         if (!s) {
             return fail(s.error());
         }
         e.avro = *s;
         return {};
     },
     [](const registry_entry& e) { return avro::type_names(*e.avro); },
     [](const registry_entry& e) { return e.avro != nullptr; }},
};

}  // namespace

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
        for (const schema_kind& k : schema_kinds) {
            if (entry.path().extension() != k.extension) {
                continue;
            }
            std::ifstream f(entry.path(), std::ios::binary);
            std::string text((std::istreambuf_iterator<char>(f)),
                             std::istreambuf_iterator<char>());
            // NAME.json and NAME.avsc fill the two members of one entry: schema=NAME then
            // means the postcard schema for postcard and the avro one for avro.
            std::string name = entry.path().stem().string();
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
