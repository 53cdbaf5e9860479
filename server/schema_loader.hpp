#pragma once
// Loads postcard schemas for the CLI (--schema FILE) and the server (--schema-dir DIR).

#include <string>

#include "polycodec/media_type.hpp"
#include "polycodec/result.hpp"

namespace polycodec::cli {

/// Reads the schema file `path` and stores it in `opt` for both decode and encode.
result<void> load_schema_file(const std::string& path, transcode_options& opt);

}  // namespace polycodec::cli
