#pragma once
// HTTP content codings (DESIGN section 16): request bodies with Content-Encoding gzip, deflate,
// br or zstd are decoded incrementally, and answers are compressed per Accept-Encoding. This
// works on bytes only (compressed in, decoded out, and the reverse), without Beast or sockets,
// so it composes with any transport (plain TCP or TLS). ISA-L (igzip), brotli and zstd stay
// inside content_coding.cpp.
//
//   auto codings = parse_content_encoding(req["Content-Encoding"]);   // 415 when unknown
//   content_decoder d(*codings);
//   std::string_view in = compressed_piece;
//   while (!in.empty() || d.has_output()) {
//       auto n = d.decode(in, buf, sizeof buf);   // error: 400 naming the coding and offset
//       ...                                       // the caller enforces its limit on *n
//   }
//   d.finish();                                   // error: the compressed data was truncated

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/result.hpp"

namespace polycodec::server {
struct config;
class metrics;
}  // namespace polycodec::server

namespace polycodec::server::http {

/// The codings we know; the order is the metrics' label order.
enum class coding : std::uint8_t { identity = 0, gzip = 1, deflate = 2, br = 3, zstd = 4 };
inline constexpr std::size_t coding_count = 5;

/// "identity", "gzip", "deflate", "br", "zstd".
std::string_view to_string(coding c) noexcept;

/// The request codings we decode, for the Accept-Encoding header of a 415.
inline constexpr std::string_view accepted_request_codings = "gzip, deflate, br, zstd";

/// At most this many codings stacked in one Content-Encoding ("gzip, br" is two).
inline constexpr std::size_t max_stacked_codings = 2;

/// The codings of a Content-Encoding value, in the order they were applied ("gzip, br": gzip
/// first, then br; decoding goes in reverse). "identity" entries are dropped; "x-gzip" is
/// gzip. Names are case-insensitive. Error (errc::unsupported_format, for a 415): an unknown
/// coding (named in the message), an empty entry, or more than max_stacked_codings.
result<std::vector<coding>> parse_content_encoding(std::string_view value);

/// Decodes a body compressed with one or more codings, piece by piece, into output windows the
/// caller provides: memory stays that of the decoders' state (see memory()) whatever the
/// decoded size, so the caller applies its limits to the decoded bytes as they come.
/// deflate accepts both the zlib-wrapped form (RFC 9110) and raw deflate (RFC 1951), as
/// browsers do; gzip accepts concatenated members; zstd frames are limited to an 8 MiB window
/// (RFC 8878 section 3.1.1.1.2's HTTP guidance), brotli to its standard 16 MiB one.
class content_decoder {
public:
    explicit content_decoder(std::span<const coding> applied);
    ~content_decoder();
    content_decoder(const content_decoder&) = delete;
    content_decoder& operator=(const content_decoder&) = delete;

    /// Consumes bytes from the front of `in` (advancing it) and writes up to `cap` decoded
    /// bytes to `out`; returns how many it wrote. 0 with `in` empty: give it more input. When
    /// it returns `cap`, call it again (more output may be pending) even with `in` empty.
    /// Error (errc::malformed, with has_offset): the compressed data is corrupt; the message
    /// names the coding, and `offset` is the byte offset into the compressed body (into the
    /// outer coding's output for an inner coding, as the message says).
    result<std::size_t> decode(std::string_view& in, char* out, std::size_t cap);

    /// The input ended: error (errc::unexpected_eof, offset = compressed bytes) when a coding's
    /// stream is incomplete.
    result<void> finish();

    /// Bytes of the compressed body consumed so far.
    std::uint64_t consumed() const noexcept { return consumed_; }

    /// An upper bound of the memory the decoders hold (their windows and buffers), for the
    /// memory budget.
    std::size_t memory() const noexcept;

    struct stage;  ///< one coding's decoder (content_coding.cpp)

private:
    result<std::size_t> pull(std::size_t i, std::string_view& in, char* out, std::size_t cap);
    std::vector<std::unique_ptr<stage>> stages_;  ///< stages_[0] reads the body
    std::uint64_t consumed_ = 0;
};

/// The memory content_decoder(applied).memory() will report, before it exists.
std::size_t decoder_memory(std::span<const coding> applied) noexcept;

/// Compresses an answer piece by piece: write() appends compressed bytes to `out`; with
/// `flush`, everything written so far can be decoded by the client from what was appended (a
/// stream chunk); finish() ends the coded stream.
class content_encoder {
public:
    explicit content_encoder(coding c);
    ~content_encoder();
    content_encoder(const content_encoder&) = delete;
    content_encoder& operator=(const content_encoder&) = delete;

    void write(std::string_view in, std::string& out, bool flush);
    void finish(std::string& out);
    coding kind() const noexcept { return kind_; }

private:
    struct state;
    coding kind_;
    std::unique_ptr<state> st_;
};

/// `body` compressed with `c` as one whole coded stream.
std::string compress(coding c, std::string_view body);

/// The outcome of Accept-Encoding negotiation.
struct encoding_choice {
    coding chosen = coding::identity;
    bool identity_refused = false;  ///< identity;q=0 (or *;q=0 without identity)
    bool acceptable = true;         ///< false: identity refused and no coding of ours accepted
};

/// Chooses the coding of an answer from an Accept-Encoding value (RFC 9110 section 12.5.3):
/// the highest q wins, q=0 refuses, `*` stands for every coding not named, identity is
/// acceptable unless refused; on equal q, zstd > br > gzip > deflate, and any coding over
/// identity. An absent header (`present` false) means identity. `compress_allowed` false (the
/// body is below --compress-min-size, or compression is off) chooses identity unless
/// identity is refused.
encoding_choice negotiate_encoding(std::string_view accept_encoding, bool present,
                                   bool compress_allowed);

struct response;

/// An upper bound of the memory an encoder of `c` holds (its window, tables and buffers), for
/// the memory budget.
std::size_t encoder_memory(coding c) noexcept;

/// Compresses a whole answer per Accept-Encoding (negotiate_encoding): bodies of at least
/// cfg.compress_min_size bytes, unless cfg.compress is off. Sets Content-Encoding, and adds
/// Accept-Encoding to Vary (or Vary: Accept-Encoding) on every answer with a body while
/// compression is on. An Accept-Encoding that refuses identity and every coding of ours
/// turns the answer into a 406 problem. Counts compressed answers in `stats`. `afford(n)`, when
/// given, is asked for the n bytes compressing takes (the body twice and the encoder): false
/// sends the answer uncompressed.
void encode_answer(const config& cfg, std::string_view accept_encoding, bool present, response& res,
                   metrics& stats, const std::function<bool(std::size_t)>& afford = {});

}  // namespace polycodec::server::http
