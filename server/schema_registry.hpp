#pragma once
// The schemas a server knows by name (schema=NAME), loaded once at startup from --schema-dir.
// Kept apart from schema_loader (the postcard issue) so both merge cleanly.

#include <map>
#include <memory>
#include <string>

#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::server {

/// What one name stands for: a schema of each kind that DIR holds under that name.
struct registry_entry {
    std::shared_ptr<const postcard::schema> postcard;
    std::shared_ptr<const protobuf::schema> protobuf;
    /* avro: added by the avro branch */
};

/// Name -> parsed schemas; immutable after startup, shared by all threads.
using schema_registry = std::map<std::string, registry_entry, std::less<>>;

/// Loads DIR/NAME.json as the postcard schema NAME, DIR/NAME.binpb, .desc or .pb as the
/// protobuf FileDescriptorSet NAME and DIR/NAME.proto (parsed with libprotobuf's compiler) as
/// the protobuf schema NAME ("" = none). A schema that does not parse fails startup with its
/// file name, and the line for a .proto.
result<schema_registry> load_schema_registry(const std::string& dir);

/// Reads one protobuf schema file: a .proto, or a FileDescriptorSet (.binpb, .desc, .pb).
result<std::shared_ptr<const protobuf::schema>> load_protobuf_schema(const std::string& path);

/// True for the extensions of protobuf schema files.
bool is_protobuf_schema_file(const std::string& path);

}  // namespace polycodec::server
