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

/// Loads every schema of `dir` ("" = none). For now returns an empty registry.
// TODO(#4): load DIR/NAME.json through schema_loader once postcard schemas parse.
result<schema_registry> load_schema_registry(const std::string& dir);

}  // namespace polycodec::server
