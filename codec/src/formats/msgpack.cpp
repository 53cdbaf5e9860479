// MessagePack (https://github.com/msgpack/msgpack/blob/master/spec.md): every family and
// width on read, the smallest form of each value on write, ext type -1 <-> timestamp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "detail/epoch_time.hpp"
#include "detail/float_width.hpp"
#include "detail/kept_error.hpp"
#include "detail/lossy.hpp"
#include "detail/tape_walk.hpp"
#include "detail/binary.hpp"
#include "detail/fast_decode.hpp"
#include "detail/tape_writer.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// The timestamp extension (ext -1) of n bytes at data, for the reader and the fast path:
// 32-bit seconds; 30-bit nanoseconds + 34-bit seconds; 32-bit nanoseconds + signed 64-bit
// seconds. False for any other size (nsec is not checked here).
[[gnu::always_inline]] inline bool timestamp_fields(const unsigned char* data, std::uint64_t n,
                                                    std::int64_t& sec,
                                                    std::uint64_t& nsec) noexcept {
    if (n == 4) {
        sec = static_cast<std::int64_t>(load_be(data, 4));
    } else if (n == 8) {
        std::uint64_t v = load_be(data, 8);
        nsec = v >> 34;
        sec = static_cast<std::int64_t>(v & ((std::uint64_t{1} << 34) - 1));
    } else if (n == 12) {
        nsec = load_be(data, 4);
        sec = static_cast<std::int64_t>(load_be(data + 4, 8));
    } else {
        return false;
    }
    return true;
}

// ---- reader ----

class msgpack_reader : kept_error {
public:
    // keep_width: int_width=keep, each integer records its encoded width (int_width hint).
    msgpack_reader(std::string_view in, builder& b, bool keep_width = false)
        : in_(in), b_(b), keep_width_(keep_width) {}

    result<void> run() {
        const bool ok = read_value();
        return read_outcome(ok, pos_, in_.size(), "expected end of input");
    }

private:
    std::size_t left() const noexcept { return in_.size() - pos_; }
    const unsigned char* at(std::size_t p) const noexcept {
        return reinterpret_cast<const unsigned char*>(in_.data()) + p;
    }
    std::uint64_t be(std::size_t p, int n) const noexcept {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) {
            v = (v << 8) | at(p)[i];
        }
        return v;
    }

    error eof(std::size_t need, const char* what) const {
        return make_error(errc::unexpected_eof, in_.size(),
                          "expected " + std::to_string(need) + " bytes of " + what +
                              ", saw end of input");
    }
    error too_long(std::size_t start, std::uint64_t n, const char* what) const {
        return make_error(errc::size_exceeded, start,
                          std::string(what) + " of " + std::to_string(n) +
                              " runs past the end of input (" + std::to_string(left()) +
                              " bytes left)");
    }
    bool container_limit(std::size_t start) {
        return set_error(limit_error(b_, start));
    }

    // Reads an n-byte big-endian argument after the marker at `start`.
    bool arg(int n, std::uint64_t& v) {
        if (left() < static_cast<std::size_t>(n)) {
            return false;
        }
        v = be(pos_, n);
        pos_ += static_cast<std::size_t>(n);
        return true;
    }

    bool read_str(std::size_t start, std::uint64_t n) {
        if (n > left()) {
            return set_error(too_long(start, n, "str"));
        }
        std::string_view s = in_.substr(pos_, n);
        std::size_t valid = utf8_valid_prefix(s);
        if (valid != s.size()) {
            return set_error(make_error(errc::invalid_utf8, pos_ + valid, "invalid UTF-8 in str"));
        }
        b_.add_string(s);
        pos_ += n;
        return true;
    }

    bool read_bin(std::size_t start, std::uint64_t n) {
        if (n > left()) {
            return set_error(too_long(start, n, "bin"));
        }
        b_.add_bytes(in_.substr(pos_, n));
        pos_ += n;
        return true;
    }

    // The ext payload starts at pos_ with its type byte.
    bool read_ext(std::size_t start, std::uint64_t n) {
        if (left() < 1) {
            return set_error(eof(1, "ext type"));
        }
        if (n > left() - 1) {
            return set_error(too_long(start, n, "ext"));
        }
        auto type = static_cast<std::int8_t>(*at(pos_));
        ++pos_;
        std::string_view data = in_.substr(pos_, n);
        if (type == -1) {
            std::int64_t sec = 0;
            std::uint64_t nsec = 0;
            if (!timestamp_fields(at(pos_), n, sec, nsec)) {
                return set_error(make_error(
                    errc::malformed, start,
                    "expected a timestamp (ext -1) of 4, 8 or 12 bytes, saw " + std::to_string(n)));
            }
            if (nsec > 999999999) {
                return set_error(make_error(
                    errc::malformed, start,
                    "timestamp nanoseconds " + std::to_string(nsec) + " above 999999999"));
            }
            char text[32];
            std::size_t len = format_epoch(sec, static_cast<std::uint32_t>(nsec), text);
            pos_ += n;
            if (len != 0) {
                b_.add_timestamp({text, len}, timestamp_kind::offset_date_time);
                return true;
            }
            // Outside the years RFC 3339 can write: keep the extension as it came.
        } else {
            pos_ += n;
        }
        if (!b_.begin_tagged(static_cast<std::uint64_t>(static_cast<std::int64_t>(type)),
                             tag_space::msgpack_ext)) {
            return container_limit(start);
        }
        b_.add_bytes(data);
        return true;
    }

    bool read_array(std::size_t start, std::uint64_t n) {
        // Every element takes at least one byte: check before building anything.
        if (n > left()) {
            return set_error(too_long(start, n, "array"));
        }
        if (!b_.begin_array()) {
            return container_limit(start);
        }
        for (std::uint64_t i = 0; i < n; ++i) {
            if (!read_value()) {
                return false;
            }
        }
        b_.end_array();
        return true;
    }

    bool read_map(std::size_t start, std::uint64_t n) {
        if (n > left() / 2) {
            return set_error(too_long(start, n, "map"));
        }
        if (!b_.begin_map()) {
            return container_limit(start);
        }
        for (std::uint64_t i = 0; i < n; ++i) {
            if (!read_value()) {
                return false;
            }
            if (!read_value()) {
                return false;
            }
        }
        b_.end_map();
        return true;
    }

    int_width width_hint(int_width width) const noexcept {
        return keep_width_ ? width : int_width::unknown;
    }

    bool read_value() {
        if (pos_ >= in_.size()) {
            return set_error(
                make_error(errc::unexpected_eof, pos_, "expected a value, saw end of input"));
        }
        const std::size_t start = pos_;
        const unsigned char m = *at(pos_++);
        std::uint64_t n = 0;
        if (m <= 0x7f) {
            b_.add_int(m, width_hint(int_width::bits8));
            return true;
        }
        if (m >= 0xe0) {
            b_.add_int(static_cast<std::int8_t>(m), width_hint(int_width::bits8));
            return true;
        }
        if (m >= 0xa0 && m <= 0xbf) {
            return read_str(start, m & 0x1f);
        }
        if (m <= 0x9f) {
            // Any value may be a map key (DESIGN section 2), containers included.
            return m <= 0x8f ? read_map(start, m & 0x0f) : read_array(start, m & 0x0f);
        }
        // 0xc0 .. 0xdf: the markers with an argument.
        static constexpr int arg_size[32] = {
            0, 0, 0, 0, 1, 2, 4, 1, 2, 4, 4, 8, 1, 2, 4, 8,  // c0 .. cf
            1, 2, 4, 8, 1, 1, 1, 1, 1, 1, 2, 4, 2, 4, 2, 4,  // d0 .. df
        };
        static constexpr const char* arg_name[32] = {
            "",        "",        "",        "",        "bin 8",    "bin 16",  "bin 32",
            "ext 8",   "ext 16",  "ext 32",  "float 32", "float 64", "uint 8",  "uint 16",
            "uint 32", "uint 64", "int 8",   "int 16",   "int 32",  "int 64",  "fixext 1",
            "fixext 2", "fixext 4", "fixext 8", "fixext 16", "str 8", "str 16", "str 32",
            "array 16", "array 32", "map 16", "map 32",
        };
        if (m == 0xc0) {
            b_.add_null();
            return true;
        }
        if (m == 0xc1) {
            return set_error(
                make_error(errc::malformed, start, "the byte 0xc1 is never used in msgpack"));
        }
        if (m == 0xc2 || m == 0xc3) {
            b_.add_bool(m == 0xc3);
            return true;
        }
        const int size = arg_size[m - 0xc0];
        if (m >= 0xd4 && m <= 0xd8) {
            // fixext: the argument is the type byte, read by read_ext.
            return read_ext(start, std::uint64_t{1} << (m - 0xd4));
        }
        if (!arg(size, n)) {
            return set_error(eof(static_cast<std::size_t>(size), arg_name[m - 0xc0]));
        }
        switch (m) {
            case 0xc4: case 0xc5: case 0xc6:
                return read_bin(start, n);
            case 0xc7: case 0xc8: case 0xc9:
                return read_ext(start, n);
            case 0xca:
                // Exact widening; a NaN keeps its bits (canonical=true narrows it back).
                b_.add_double(widen_float32(static_cast<std::uint32_t>(n)));
                return true;
            case 0xcb: {
                double d;
                std::memcpy(&d, &n, 8);
                b_.add_double(d);
                return true;
            }
            case 0xcc: case 0xcd: case 0xce: case 0xcf:
                b_.add_uint(n, width_hint(m == 0xcc   ? int_width::bits8
                                 : m == 0xcd ? int_width::bits16
                                 : m == 0xce ? int_width::bits32
                                             : int_width::bits64));
                return true;
            case 0xd0:
                b_.add_int(static_cast<std::int8_t>(n), width_hint(int_width::bits8));
                return true;
            case 0xd1:
                b_.add_int(static_cast<std::int16_t>(n), width_hint(int_width::bits16));
                return true;
            case 0xd2:
                b_.add_int(static_cast<std::int32_t>(n), width_hint(int_width::bits32));
                return true;
            case 0xd3:
                b_.add_int(static_cast<std::int64_t>(n), width_hint(int_width::bits64));
                return true;
            case 0xd9: case 0xda: case 0xdb:
                return read_str(start, n);
            default:
                return m >= 0xde ? read_map(start, n) : read_array(start, n);
        }
    }

    std::string_view in_;
    builder& b_;
    bool keep_width_ = false;
    std::size_t pos_ = 0;
};

// ---- fast path ----
//
// One iterative loop that writes the tape and the payload bytes directly (detail::tape_writer)
// instead of going through the builder per element: msgpack gives every
// container's count up front, so no per-element bookkeeping is needed. It handles valid input
// within the limits only: on any error, limit or doubt it returns false, and decode_msgpack
// resets the builder and runs msgpack_reader above, which decides (and words) every error
// exactly as before. On success the tape is the one msgpack_reader would have built.

using detail::tape_word;

constexpr std::size_t fast_max_frames = 64;  // deeper input takes msgpack_reader

// The buffers grow in steps of 256 words / 2 KiB (or what one element needs).
using fast_writer = detail::tape_writer<256, 2048, false>;

bool decode_msgpack_fast(std::string_view in, builder& b) {
    const auto [p, size, max_depth, max_bytes] = fast_input_of(in, b, fast_max_frames);
    // Both buffers are resized ahead of the writes (tape: at least 4 words free before each
    // element; payload: checked per str, bin and ext) and cut to size at the end.
    fast_writer tw(b);

    // frames[0] stands for the top level: a container of one value that is never closed.
    fast_frame frames[fast_max_frames + 1];
    frames[0] = {0, 1};
    fast_frame* top = frames;
    std::size_t pos = 0;
    std::uint64_t n = 0;

    for (;;) {
        if (pos >= size) {
            return false;
        }
        std::uint64_t* w = tw.words(4);
        const unsigned m = p[pos++];
        bool is_map = false;
        if (m >= 0xa0 && m <= 0xbf) {
            n = m & 0x1f;
            goto str;
        }
        if (m <= 0x7f) {
            w[0] = tape_word(kind::int64, 0, 0);
            w[1] = m;
            tw.advance(2);
            goto done;
        }
        if (m <= 0x9f) {
            n = m & 0x0f;
            is_map = m <= 0x8f;
            goto container;
        }
        if (m >= 0xe0) {
            w[0] = tape_word(kind::int64, 0, 0);
            w[1] = static_cast<std::uint64_t>(
                static_cast<std::int64_t>(static_cast<std::int8_t>(m)));
            tw.advance(2);
            goto done;
        }
        switch (m) {  // 0xc0 .. 0xdf
            case 0xc0:
                w[0] = tape_word(kind::null, 0, 0);
                tw.advance(1);
                break;
            case 0xc2:
                w[0] = tape_word(kind::boolean_false, 0, 0);
                tw.advance(1);
                break;
            case 0xc3:
                w[0] = tape_word(kind::boolean_true, 0, 0);
                tw.advance(1);
                break;
            case 0xca: {
                if (size - pos < 4) {
                    return false;
                }
                auto bits = static_cast<std::uint32_t>(load_be(p + pos, 4));
                pos += 4;
                const double d = widen_float32(bits);  // exact, a NaN's bits kept
                w[0] = tape_word(kind::float64, 0, 0);
                std::memcpy(&w[1], &d, 8);
                tw.advance(2);
                break;
            }
            case 0xcb:
                if (size - pos < 8) {
                    return false;
                }
                w[0] = tape_word(kind::float64, 0, 0);
                w[1] = load_be(p + pos, 8);
                pos += 8;
                tw.advance(2);
                break;
            // One case per width, so that each big-endian load is a constant-width one.
            case 0xcc:
                if (!take_be<1>(p, size, pos, n)) {
                    return false;
                }
                goto uint_value;
            case 0xcd:
                if (!take_be<2>(p, size, pos, n)) {
                    return false;
                }
                goto uint_value;
            case 0xce:
                if (!take_be<4>(p, size, pos, n)) {
                    return false;
                }
                goto uint_value;
            case 0xcf:
                if (!take_be<8>(p, size, pos, n)) {
                    return false;
                }
                w[0] = n <= static_cast<std::uint64_t>(INT64_MAX) ? tape_word(kind::int64, 0, 0)
                                                                : tape_word(kind::uint64, 0, 0);
                w[1] = n;
                tw.advance(2);
                break;
            case 0xd0:
                if (!take_be<1>(p, size, pos, n)) {
                    return false;
                }
                n = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(n)));
                goto uint_value;
            case 0xd1:
                if (!take_be<2>(p, size, pos, n)) {
                    return false;
                }
                n = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int16_t>(n)));
                goto uint_value;
            case 0xd2:
                if (!take_be<4>(p, size, pos, n)) {
                    return false;
                }
                n = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(n)));
                goto uint_value;
            case 0xd3:
                if (!take_be<8>(p, size, pos, n)) {
                    return false;
                }
                goto uint_value;
            case 0xd9: case 0xda: case 0xdb: {
                const int k = 1 << (m - 0xd9);
                if (size - pos < static_cast<std::size_t>(k)) {
                    return false;
                }
                n = load_be(p + pos, k);
                pos += static_cast<std::size_t>(k);
                goto str;
            }
            case 0xc4: case 0xc5: case 0xc6: {
                const int k = 1 << (m - 0xc4);
                if (size - pos < static_cast<std::size_t>(k)) {
                    return false;
                }
                n = load_be(p + pos, k);
                pos += static_cast<std::size_t>(k);
                if (n > size - pos) {
                    return false;
                }
                std::memcpy(tw.bytes(n), p + pos, n);
                tw.payload(w, kind::bytes, 0, n);
                pos += n;
                break;
            }
            case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
                n = std::uint64_t{1} << (m - 0xd4);
                goto ext;
            case 0xc7: case 0xc8: case 0xc9: {
                const int k = 1 << (m - 0xc7);
                if (size - pos < static_cast<std::size_t>(k)) {
                    return false;
                }
                n = load_be(p + pos, k);
                pos += static_cast<std::size_t>(k);
                goto ext;
            }
            case 0xdc: case 0xdd: {
                const int k = m == 0xdc ? 2 : 4;
                if (size - pos < static_cast<std::size_t>(k)) {
                    return false;
                }
                n = load_be(p + pos, k);
                pos += static_cast<std::size_t>(k);
                goto container;
            }
            case 0xde: case 0xdf: {
                const int k = m == 0xde ? 2 : 4;
                if (size - pos < static_cast<std::size_t>(k)) {
                    return false;
                }
                n = load_be(p + pos, k);
                pos += static_cast<std::size_t>(k);
                is_map = true;
                goto container;
            }
            default:  // 0xc1
                return false;
        }
        goto done;

    uint_value:  // n: an int64 value (uint 8/16/32 are below 2^63, int 8..64 sign-extended)
        w[0] = tape_word(kind::int64, 0, 0);
        w[1] = n;
        tw.advance(2);
        goto done;

    str:
        if (!fast_text_at(tw, w, p, size, pos, n)) {
            return false;
        }
        goto done;

    container: {
        const fast_open_result r =
            fast_open<1, 2>(top, frames, max_depth, max_bytes, tw, w, is_map, n, size - pos);
        if (r == fast_open_result::fail) {
            return false;
        }
        if (r == fast_open_result::opened) {
            continue;
        }
        goto done;
    }

    ext: {
        if (pos >= size || n > size - pos - 1) {
            return false;
        }
        const auto type = static_cast<std::int8_t>(p[pos]);
        ++pos;
        const unsigned char* data = p + pos;
        if (type == -1) {
            std::int64_t sec = 0;
            std::uint64_t nsec = 0;
            if (!timestamp_fields(data, n, sec, nsec)) {
                return false;
            }
            if (nsec > 999999999) {
                return false;
            }
            char text[32];
            std::size_t len = format_epoch(sec, static_cast<std::uint32_t>(nsec), text);
            pos += n;
            if (len != 0) {
                std::memcpy(tw.bytes(len), text, len);
                tw.payload(w, kind::timestamp,
                           static_cast<std::uint64_t>(timestamp_kind::offset_date_time), len);
                goto done;
            }
        } else {
            pos += n;
        }
        // Any other ext: a tagged value (the builder checks the depth for it) over bytes.
        if (static_cast<std::size_t>(top - frames) >= max_depth) {
            return false;
        }
        w[0] = tape_word(kind::tagged, static_cast<std::uint64_t>(tag_space::msgpack_ext), 0);
        w[1] = static_cast<std::uint64_t>(static_cast<std::int64_t>(type));
        tw.advance(2);
        std::memcpy(tw.bytes(n), data, n);
        tw.payload(w + 2, kind::bytes, 0, n);
        goto done;
    }

    done:
        // A value is complete: count it in its container, closing the containers it ends.
        if (fast_value_done(top, frames, tw)) {
            goto finished;
        }
    }

finished:
    return fast_finish(tw, pos, size, max_bytes);
}

result<void> decode_msgpack(std::string_view in, builder& b, const decode_options& opt) {
    return fast_or_read(
        b, !opt.keep_int_width, [&] { return decode_msgpack_fast(in, b); },
        [&] { return msgpack_reader(in, b, opt.keep_int_width).run(); });
}

// ---- writer ----

class msgpack_writer : public kept_error {
public:
    msgpack_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    // The document is written in one linear pass over the tape (detail/tape_walk.hpp)
    // instead of a recursive walk with cursors: the common elements through the hooks below,
    // the rare ones through write_rare() and the out_ methods.
    bool write(value root) { return walk_tape<64>(*this, out_, root); }

    // The hooks of walk_tape: at least 64 bytes free at o.
    static constexpr unsigned char null_byte = 0xc0;
    static constexpr unsigned char false_byte = 0xc2;
    static constexpr unsigned char true_byte = 0xc3;
    static constexpr std::uint64_t short_max = 31;  // a fixstr
    static constexpr unsigned char short_fix = 0xa0;
    bool int64(char*& o, std::uint64_t w, std::uint64_t v) const noexcept {
        const auto width = static_cast<int_width>(w >> document::aux_shift & 0xff);
        o = keep_width_ && static_cast<int>(width) > 1
                ? int_at_width(o, static_cast<std::int64_t>(v), width)
                : int_at(o, static_cast<std::int64_t>(v));
        return true;
    }
    static bool uint64(char*& o, std::uint64_t v) noexcept {
        o = uint_at(o, v);
        return true;
    }
    // Doubles stay float64 (a reader gets back the type it was given), but canonical=true
    // writes the shortest exact float, as CBOR's preferred serialization does: float 32 when
    // it holds the double exactly.
    bool float64(char*& o, std::uint64_t bits) const noexcept {
        std::uint32_t narrow;
        double d;
        std::memcpy(&d, &bits, 8);
        o = opt_.canonical && narrow_to_float32(d, narrow) ? put_at(o, 0xca, narrow, 4)
                                                           : put_at(o, 0xcb, bits, 8);
        return true;
    }
    static bool header(char*& o, kind k, std::uint64_t n) noexcept {
        return k == kind::map ? count_at(o, n, 0x80, 0xde) : count_at(o, n, 0x90, 0xdc);
    }
    bool rare(const document& doc, std::size_t& i) {
        return write_rare(doc, i, doc.bytes().data());
    }

private:
    static std::string describe_tag(value v) {
        switch (v.get_tag_space()) {
            case tag_space::cbor:
                return "CBOR tag " + std::to_string(v.tag());
            case tag_space::msgpack_ext:
                return "ext " + std::to_string(static_cast<std::int64_t>(v.tag())) +
                       " with a non-bytes value";
            case tag_space::bson:
                return "BSON type " + std::to_string(v.tag());
            default:
                return "tag " + std::to_string(v.tag());
        }
    }

    // One element the loop in write() does not write itself; advances i past what it wrote
    // (for a dropped tag: past the tag only, its inner value comes next).
    bool write_rare(const document& doc, std::size_t& i, const char* payload) {
        const std::uint64_t* const t = doc.tape().data();
        const std::uint64_t w = t[i];
        value v(&doc, i);
        switch (static_cast<kind>(w >> document::kind_shift)) {
            case kind::string:
                if (!write_str(v, {payload + (w & document::payload_mask),
                                   static_cast<std::size_t>(t[i + 1])})) {
                    return false;
                }
                i += 2;
                return true;
            case kind::bytes:
                if (!write_bin(v, {payload + (w & document::payload_mask),
                                   static_cast<std::size_t>(t[i + 1])})) {
                    return false;
                }
                i += 2;
                return true;
            case kind::bignum:
                if (!allow_lossy(opt_, v, "bignum_to_string", "bignum written as its decimal text")) {
                    return set_error(unrepresentable(v, "bignum " + std::string(v.get_string()) +
                                                            " is not representable in msgpack"));
                }
                if (!write_str(v, v.get_string())) {
                    return false;
                }
                i += 2;
                return true;
            case kind::timestamp:
                if (!write_timestamp(v)) {
                    return false;
                }
                i += 2;
                return true;
            case kind::tagged: {
                value inner = v.tagged_value();
                if (v.get_tag_space() == tag_space::msgpack_ext && inner.kind() == kind::bytes) {
                    auto type = static_cast<std::int64_t>(v.tag());
                    if (type >= -128 && type <= 127) {
                        if (!write_ext(v, static_cast<std::int8_t>(type), inner.get_string())) {
                            return false;
                        }
                        i = inner.end_index();
                        return true;
                    }
                }
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return set_error(
                        unrepresentable(v, describe_tag(v) + " is not representable in msgpack"));
                }
                i += 2;  // the inner value follows: written next, as itself
                return true;
            }
            case kind::array:
                if (!length(v, t[i + 1], 0x90, 15, 0xdc, 0xdd, "array")) {
                    return false;
                }
                i += 2;
                return true;
            case kind::map:
                if (!length(v, t[i + 1], 0x80, 15, 0xde, 0xdf, "map")) {
                    return false;
                }
                i += 2;
                return true;
            default:
                i += 1;
                return true;
        }
    }

    // Raw writers for write()'s loop: at least 9 bytes free at o; return the new end.
    // An array's or map's header: fix | n, or marker16 / marker16 + 1 and a 2- or 4-byte count;
    // false when n needs more (write_rare reports it).
    static bool count_at(char*& o, std::uint64_t n, unsigned fix, unsigned char marker16) {
        if (n <= 15) {
            *o++ = static_cast<char>(fix | n);
        } else if (n <= 0xffff) {
            o = put_at(o, marker16, n, 2);
        } else if (n <= 0xffffffff) {
            o = put_at(o, marker16 + 1, n, 4);
        } else {
            return false;
        }
        return true;
    }
    static char* put_at(char* o, unsigned char marker, std::uint64_t v, int n) {
        return put_be_at(o, marker, v, n);
    }
    static char* uint_at(char* o, std::uint64_t v) {
        if (v <= 0x7f) {
            *o = static_cast<char>(v);
            return o + 1;
        }
        if (v <= 0xff) {
            return put_at(o, 0xcc, v, 1);
        }
        if (v <= 0xffff) {
            return put_at(o, 0xcd, v, 2);
        }
        if (v <= 0xffffffff) {
            return put_at(o, 0xce, v, 4);
        }
        return put_at(o, 0xcf, v, 8);
    }
    // int_width=keep: `v` at the width of its hint (16, 32 or 64 bits: uint for v >= 0, int
    // below) when it fits there, else as int_at (the smallest width that holds it).
    static char* int_at_width(char* o, std::int64_t v, int_width width) {
        if (v >= 0) {
            const auto u = static_cast<std::uint64_t>(v);
            if (width == int_width::bits64) {
                return put_at(o, 0xcf, u, 8);
            }
            if (width == int_width::bits32 && u <= 0xffffffff) {
                return put_at(o, 0xce, u, 4);
            }
            if (width == int_width::bits16 && u <= 0xffff) {
                return put_at(o, 0xcd, u, 2);
            }
        } else {
            const auto u = static_cast<std::uint64_t>(v);
            if (width == int_width::bits64) {
                return put_at(o, 0xd3, u, 8);
            }
            if (width == int_width::bits32 && v >= INT32_MIN) {
                return put_at(o, 0xd2, u, 4);
            }
            if (width == int_width::bits16 && v >= -32768) {
                return put_at(o, 0xd1, u, 2);
            }
        }
        return int_at(o, v);
    }
    static char* int_at(char* o, std::int64_t v) {
        if (v >= 0) {
            return uint_at(o, static_cast<std::uint64_t>(v));
        }
        if (v >= -32) {
            *o = static_cast<char>(v);
            return o + 1;
        }
        if (v >= -128) {
            return put_at(o, 0xd0, static_cast<std::uint64_t>(v), 1);
        }
        if (v >= -32768) {
            return put_at(o, 0xd1, static_cast<std::uint64_t>(v), 2);
        }
        if (v >= INT32_MIN) {
            return put_at(o, 0xd2, static_cast<std::uint64_t>(v), 4);
        }
        return put_at(o, 0xd3, static_cast<std::uint64_t>(v), 8);
    }

    // The marker, then the low n (1, 2, 4 or 8) bytes of v, big-endian.
    void put(unsigned char marker, std::uint64_t v, int n) {
        char* p = out_.prepare(9);
        out_.commit(static_cast<std::size_t>(put_be_at(p, marker, v, n) - p));
    }

    bool too_big(value v, const char* what, std::uint64_t n) {
        return set_error(unrepresentable(v, std::string(what) + " of " + std::to_string(n) +
                                                " exceeds msgpack's limit of 2^32-1"));
    }

    bool length(value v, std::uint64_t n, unsigned char fix, std::uint64_t fix_max,
                unsigned char m16, unsigned char m32, const char* what) {
        if (n <= fix_max) {
            out_.push_back(static_cast<char>(fix | n));
        } else if (n <= 0xffff) {
            put(m16, n, 2);
        } else if (n <= 0xffffffff) {
            put(m32, n, 4);
        } else {
            return too_big(v, what, n);
        }
        return true;
    }

    bool write_str(value v, std::string_view s) {
        std::uint64_t n = s.size();
        if (n <= 31) {
            out_.push_back(static_cast<char>(0xa0 | n));
        } else if (n <= 0xff) {
            put(0xd9, n, 1);
        } else if (n <= 0xffff) {
            put(0xda, n, 2);
        } else if (n <= 0xffffffff) {
            put(0xdb, n, 4);
        } else {
            return too_big(v, "str", n);
        }
        out_.append(s);
        return true;
    }

    bool write_bin(value v, std::string_view s) {
        std::uint64_t n = s.size();
        if (n <= 0xff) {
            put(0xc4, n, 1);
        } else if (n <= 0xffff) {
            put(0xc5, n, 2);
        } else if (n <= 0xffffffff) {
            put(0xc6, n, 4);
        } else {
            return too_big(v, "bin", n);
        }
        out_.append(s);
        return true;
    }

    bool write_ext(value v, std::int8_t type, std::string_view data) {
        std::uint64_t n = data.size();
        switch (n) {
            case 1: out_.push_back(static_cast<char>(0xd4)); break;
            case 2: out_.push_back(static_cast<char>(0xd5)); break;
            case 4: out_.push_back(static_cast<char>(0xd6)); break;
            case 8: out_.push_back(static_cast<char>(0xd7)); break;
            case 16: out_.push_back(static_cast<char>(0xd8)); break;
            default:
                if (n <= 0xff) {
                    put(0xc7, n, 1);
                } else if (n <= 0xffff) {
                    put(0xc8, n, 2);
                } else if (n <= 0xffffffff) {
                    put(0xc9, n, 4);
                } else {
                    return too_big(v, "ext", n);
                }
        }
        out_.push_back(static_cast<char>(type));
        out_.append(data);
        return true;
    }

    // An instant whose text is exactly the one the decoder would write back becomes ext -1 in
    // its smallest form; any other timestamp text stays text (DESIGN section 3: not lossy).
    bool write_timestamp(value v) {
        std::string_view text = v.get_string();
        epoch_instant t;
        char canon[32];
        if (v.get_timestamp_kind() == timestamp_kind::offset_date_time &&
            parse_rfc3339(text, t) && t.exact && !t.leap_second &&
            std::string_view(canon, format_epoch(t.seconds, t.nanos, canon)) == text) {
            if (t.nanos == 0 && t.seconds >= 0 && t.seconds <= 0xffffffffLL) {
                out_.push_back(static_cast<char>(0xd6));
                out_.push_back(static_cast<char>(0xff));
                append_be(static_cast<std::uint64_t>(t.seconds), 4);
            } else if (t.seconds >= 0 && t.seconds < (std::int64_t{1} << 34)) {
                std::uint64_t v64 = (std::uint64_t{t.nanos} << 34) |
                                    static_cast<std::uint64_t>(t.seconds);
                out_.push_back(static_cast<char>(0xd7));
                out_.push_back(static_cast<char>(0xff));
                append_be(v64, 8);
            } else {
                out_.push_back(static_cast<char>(0xc7));
                out_.push_back(12);
                out_.push_back(static_cast<char>(0xff));
                append_be(t.nanos, 4);
                append_be(static_cast<std::uint64_t>(t.seconds), 8);
            }
            return true;
        }
        return write_str(v, text);
    }

    void append_be(std::uint64_t v, int n) {
        char* p = out_.prepare(8);
        for (int i = 0; i < n; ++i) {
            p[i] = static_cast<char>(v >> (8 * (n - 1 - i)));
        }
        out_.commit(static_cast<std::size_t>(n));
    }

    output_buffer& out_;
    const encode_options& opt_;
    // int_width=keep (not with canonical=true, which writes the shortest forms).
    const bool keep_width_ = opt_.keep_int_width && !opt_.canonical;
};

result<void> encode_msgpack(const document& doc, output_buffer& out, const encode_options& opt) {
    msgpack_writer w(out, opt);
    return w.outcome(w.write(doc.root()));
}

}  // namespace

const codec_functions msgpack_codec{decode_msgpack, encode_msgpack};

}  // namespace polycodec::detail
