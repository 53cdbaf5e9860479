#pragma once
// The seam through which other text formats reuse the JSON reader and writer of json.cpp
// (ndjson reads one JSON value per line; ini and dotenv write JSON text as lossy fallbacks).
// The definitions are in formats/json.cpp.

#include <cstddef>
#include <cstdint>
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

/// NDJSON's fast path: reads `in` as one JSON value per line into `b` (empty, at depth 0) as
/// one root array, with simdjson's DOM parser in streaming mode. False when it does not take
/// the input (an error, a value over two lines, a bignum, the limits, input over 16 MiB), the
/// builder then being empty again: the caller reads it with json_read_value line by line.
bool json_read_lines(std::string_view in, builder& b);

/// Writes `v` as JSON text (compact unless opt.pretty), with the JSON encoder's rules for
/// non-finite floats, tags and keys (failing or recording lossy fallbacks through `opt`).
result<void> json_write_value(value v, output_buffer& out, const encode_options& opt);

/// The fallback text of a map key that is an array or a map (detail/map_key.hpp): its compact
/// JSON text with JSON's lossy=allow fallbacks inside, except that a container key inside it
/// is written as its own text, unquoted, as to_debug_string writes keys (`{{"a":1}:2}`).
/// Quoting it would escape the inner key's quotes and backslashes again at every level of
/// nesting, doubling the text per level; unquoted, the text is linear in the key's size.
void json_write_key_text(value k, output_buffer& out);

/// NDJSON's encoder: writes each element of the array `v` as compact JSON text followed by
/// "\n" (nothing for an empty array), the bytes of json_write_value and "\n" per element, in
/// one pass. `opt` must not ask for pretty or canonical Extended JSON output.
result<void> json_write_lines(value v, output_buffer& out, const encode_options& opt);

/// Writes `s` as a JSON string (quoted; '"', '\\' and controls escaped, as the JSON writer
/// does), for writers that print JSON text of their own (protojson).
void json_write_string(output_buffer& out, std::string_view s);

/// Test hooks of the decoder's large-input path (json.cpp, "large inputs"): inputs longer than
/// `threshold` bytes take it, and it cuts a top-level array into chunks of about `chunk`
/// bytes. 0 restores a default (16 MiB, 1 MiB). Process-wide; set it while no other thread
/// decodes JSON.
void json_set_large_input(std::size_t threshold, std::size_t chunk) noexcept;

/// What the large-input path did on this thread since it started, and the capacity the
/// thread's simdjson DOM parser keeps now (released after an input above 16 MiB).
struct json_large_input_stats {
    std::uint64_t decodes = 0;         ///< top-level arrays decoded chunk by chunk
    std::uint64_t chunks = 0;          ///< chunks parsed and translated
    std::uint64_t missed_guesses = 0;  ///< guessed cuts that did not parse (cut again exactly)
    std::uint64_t fallbacks = 0;       ///< arrays handed to the own reader
    std::size_t parser_capacity = 0;   ///< bytes the thread's DOM parser is sized for now
};
json_large_input_stats json_large_input_counters() noexcept;

}  // namespace polycodec::detail
