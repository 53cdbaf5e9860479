#pragma once
// The postcard schemas a server knows by name (schema=NAME), loaded once at startup from
// --schema-dir. Kept apart from schema_loader (the postcard issue) so both merge cleanly.

#include <map>
#include <memory>
#include <string>

#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::server {

/// Name -> parsed schema; immutable after startup, shared by all threads.
using schema_registry = std::map<std::string, std::shared_ptr<const postcard::schema>, std::less<>>;

/// Loads every DIR/NAME.json as the postcard schema NAME ("" = none). A schema that does not
/// parse fails startup with its file name and the reason.
result<schema_registry> load_schema_registry(const std::string& dir);

}  // namespace polycodec::server
