#pragma once
// The seam through which other text formats reuse the JSON reader and writer of json.cpp
// (ndjson reads one JSON value per line; ini and dotenv write JSON text as lossy fallbacks).
// The definitions are in formats/json.cpp.

#include <cstddef>
#include <string_view>

#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// Reads one JSON value from `in` starting at byte `begin`, with only JSON white space after
/// it up to the end of `in`, into `b` (which may be inside an open container). Error offsets
/// are offsets into `in`, so a caller passing a prefix of its whole input gets absolute ones.
result<void> json_read_value(std::string_view in, std::size_t begin, builder& b);

/// Writes `v` as JSON text (compact unless opt.pretty), with the JSON encoder's rules for
/// non-finite floats, tags and keys (failing or recording lossy fallbacks through `opt`).
result<void> json_write_value(value v, output_buffer& out, const encode_options& opt);

}  // namespace polycodec::detail
