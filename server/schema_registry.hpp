#pragma once
// The schemas a server knows by name (schema=NAME, reader_schema=NAME), loaded once at
// startup from --schema-dir: NAME.json is a postcard schema, NAME.avsc an Avro schema.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::server {

/// The schema files of one NAME: NAME.json (postcard), NAME.avsc (avro).
struct registry_entry {
    std::shared_ptr<const postcard::schema> postcard;
    /* protobuf: added by the protobuf branch */
    std::shared_ptr<const avro::schema> avro;
};

/// Name -> schema; immutable after startup, shared by all threads.
using schema_registry = std::map<std::string, registry_entry, std::less<>>;

/// Loads every DIR/NAME.json (postcard) and DIR/NAME.avsc (avro) ("" = none). A schema that
/// does not parse fails startup with its file name, line and the reason.
result<schema_registry> load_schema_registry(const std::string& dir);

/// One row of GET /schemas.
struct schema_listing {
    std::string name;
    std::string_view kind;           ///< "postcard", "avro"
    std::vector<std::string> types;  ///< the named types the schema defines
};

/// The registry as GET /schemas lists it, by name.
std::vector<schema_listing> list_schemas(const schema_registry& reg);

}  // namespace polycodec::server
