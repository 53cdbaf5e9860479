#pragma once
/// Errors are values: every decode and encode returns a result carrying one of these.

#include <cstdint>
#include <string>
#include <string_view>

#include "polycodec/format.hpp"

namespace polycodec {

/// Why a decode or encode failed. Names are stable: they appear in problem+json bodies.
enum class errc : std::uint8_t {
    ok = 0,
    unexpected_eof,      ///< input ends inside a value, e.g. `[1, 2`
    unexpected_char,     ///< e.g. `[1 2]`: expected ',' or ']'
    invalid_number,      ///< e.g. `01`, `1e`, or a number out of range
    invalid_string,      ///< bad escape, unterminated string, control character
    invalid_utf8,        ///< e.g. the byte 0xff inside a string
    depth_exceeded,      ///< nesting deeper than decode_options::max_depth
    size_exceeded,       ///< a length beyond the input, or the document over its budget
    duplicate_key,       ///< a key twice where the format forbids it (TOML, canonical bencode)
    trailing_content,    ///< e.g. `[1] 2`
    malformed,           ///< a binary structure that breaks the format's rules (bad marker)
    unrepresentable,     ///< a valid value with no form in the target format (null in TOML)
    schema_required,     ///< postcard without a schema
    forbidden,           ///< pickle opcode that would import or call code
    unsupported_format,  ///< unknown format name or media type
    not_implemented,     ///< a format in the table whose codec does not exist yet
    invalid_option,      ///< e.g. `delimiter=ab`
};

/// The stable name of `code`, e.g. "unexpected_eof".
std::string_view to_string(errc code) noexcept;

/// A decode or encode failure with everything a user needs to find it.
struct error {
    errc code = errc::ok;
    format_id format{};
    bool has_offset = false;    ///< offset is meaningful (decode errors)
    std::uint64_t offset = 0;   ///< byte offset into the input
    std::uint32_t line = 0;     ///< 1-based; 0 when not a text format or unknown
    std::uint32_t column = 0;   ///< 1-based, in code points; 0 when unknown
    std::string path;           ///< JSON Pointer of the value concerned ("" = root)
    bool has_path = false;      ///< path is meaningful
    std::string message;        ///< "expected ',' or ']', saw '}'"
};

/// A decoder's error at byte `offset`.
error make_error(errc code, std::uint64_t offset, std::string message);
/// An error without a position (options, unknown formats).
error make_error(errc code, std::string message);

/// One line for humans: "json: line 1, column 6 (byte 5), at /a/0: expected ...". Control
/// characters in the path and message are written as \u00XX, so the line stays one line.
std::string describe(const error& e);

}  // namespace polycodec
