#pragma once
// Loads postcard schemas for the CLI (--schema FILE) and the server (--schema-dir DIR).

#include <string>
#include <string_view>

#include "polycodec/media_type.hpp"
#include "polycodec/result.hpp"

namespace polycodec::cli {

/// Reads the schema file `path` (NAME.avsc: avro, otherwise postcard) and stores it in `opt`
/// for both decode and encode.
result<void> load_schema_file(const std::string& path, transcode_options& opt);

/// Reads the avro schema file `path` as the reader's schema of decoding (--reader-schema).
result<void> load_reader_schema_file(const std::string& path, transcode_options& opt);

/// True for a NAME.avsc path.
bool is_avro_schema_path(std::string_view path);

}  // namespace polycodec::cli
