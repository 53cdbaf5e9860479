#pragma once
/// The TCP frame codec of DESIGN section 5 (specified in proto/PROTOCOL.md): pure encoding and
/// parsing of the 16-byte big-endian frame header, shared by the server and the load-test
/// client. No I/O here.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace polycodec::proto {

inline constexpr std::size_t header_size = 16;
inline constexpr char magic0 = 'P';
inline constexpr char magic1 = 'C';
inline constexpr std::uint8_t version = 1;
/// The protocol's hard ceiling on a payload; a server also applies its own smaller limit.
inline constexpr std::uint32_t max_payload = 0x7fffffffu;

/// Request flags (byte 3 of a request).
inline constexpr std::uint8_t flag_pretty = 0x01;
inline constexpr std::uint8_t flag_lossy = 0x02;
inline constexpr std::uint8_t flag_canonical = 0x04;
inline constexpr std::uint8_t known_flags = flag_pretty | flag_lossy | flag_canonical;

/// Response status (byte 3 of a response).
enum class status : std::uint8_t {
    ok = 0,
    malformed = 1,           ///< the input does not decode, or an option is invalid
    unsupported_format = 2,  ///< unknown or unimplemented format, postcard without a schema
    unrepresentable = 3,     ///< a value has no form in the output format
    too_large = 4,           ///< the payload is over the server's body limit
    busy = 5,                ///< over the connection limit or draining
    bad_frame = 6,           ///< bad magic, version or lengths: the connection is closed
};

/// The stable name of `s`: "ok", "malformed" ...
std::string_view to_string(status s) noexcept;

/// A request header.
struct request_header {
    std::uint8_t flags = 0;
    std::uint32_t request_id = 0;
    std::uint8_t input_format = 0;
    std::uint8_t output_format = 0;
    std::uint16_t options_length = 0;
    std::uint32_t payload_length = 0;  ///< options included
};

/// A response header.
struct response_header {
    status code = status::ok;
    std::uint32_t request_id = 0;
    std::uint8_t output_format = 0;
    std::uint32_t payload_length = 0;
};

/// Why a header does not parse.
enum class parse_error : std::uint8_t {
    none = 0,
    bad_magic,
    bad_version,
    bad_lengths,  ///< options longer than the payload
    too_long,     ///< payload length over the limit given to the parser
};

std::string_view to_string(parse_error e) noexcept;

/// Writes a request header to `out` (16 bytes).
void encode_request_header(const request_header& h, unsigned char* out) noexcept;
/// Writes a response header to `out` (16 bytes).
void encode_response_header(const response_header& h, unsigned char* out) noexcept;

/// Parses a request header from 16 bytes. `limit` bounds payload_length (too_long beyond it).
/// The header fields are filled even on error (as far as they could be read), so that a
/// bad-frame answer can carry the request id.
parse_error parse_request_header(const unsigned char* in, request_header& h,
                                 std::uint32_t limit = max_payload) noexcept;
/// Parses a response header from 16 bytes.
parse_error parse_response_header(const unsigned char* in, response_header& h) noexcept;

/// A whole request frame: header, options, document.
std::string encode_request(const request_header& h, std::string_view options,
                           std::string_view document);
/// A whole response frame; payload_length is taken from `payload`.
std::string encode_response(status code, std::uint32_t request_id, std::uint8_t output_format,
                            std::string_view payload);

/// Incremental splitting of a byte stream into complete request frames.
/// Returns the number of bytes the first complete frame occupies in `in` (header + payload),
/// 0 when more bytes are needed, and sets `err` when the header is invalid.
std::size_t next_request_frame(std::string_view in, request_header& h, parse_error& err,
                               std::uint32_t limit = max_payload) noexcept;

}  // namespace polycodec::proto
