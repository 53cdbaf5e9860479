// CBOR (RFC 8949). Reads every major type and width, indefinite lengths included; writes the
// preferred serialization (section 4.1), and with canonical=true the deterministic encoding of
// section 4.2.1 (map keys sorted by the bytes of their encodings).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "detail/bigint_text.hpp"
#include "detail/binary.hpp"
#include "detail/fast_decode.hpp"
#include "detail/epoch_time.hpp"
#include "detail/float_width.hpp"
#include "detail/kept_error.hpp"
#include "detail/lossy.hpp"
#include "detail/tape_walk.hpp"
#include "detail/tape_writer.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr std::uint64_t tag_datetime_text = 0;
constexpr std::uint64_t tag_epoch = 1;
constexpr std::uint64_t tag_pos_bignum = 2;
constexpr std::uint64_t tag_neg_bignum = 3;
constexpr std::uint64_t tag_full_date = 1004;  // RFC 8943: "YYYY-MM-DD" text

// ---- half-precision floats ----

double half_to_double(std::uint16_t h) noexcept {
    const int exp = (h >> 10) & 0x1f;
    const int mant = h & 0x3ff;
    double d;
    if (exp == 0) {
        d = std::ldexp(mant, -24);
    } else if (exp == 31) {
        if (mant == 0) {
            d = INFINITY;
        } else {
            // Keep the payload: the 10 mantissa bits become the top of the double's 52.
            std::uint64_t bits = 0x7ff0000000000000ULL | (static_cast<std::uint64_t>(mant) << 42);
            std::memcpy(&d, &bits, 8);
        }
    } else {
        d = std::ldexp(mant + 1024, exp - 25);
    }
    return (h & 0x8000) != 0 ? -d : d;
}

// The half-precision bits of `d` when it converts exactly (not NaN).
bool double_to_half(double d, std::uint16_t& h) noexcept {
    float f = static_cast<float>(d);
    if (static_cast<double>(f) != d) {
        return false;
    }
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
    const int exp = static_cast<int>((bits >> 23) & 0xff);
    const std::uint32_t mant = bits & 0x7fffff;
    if (exp == 0xff) {  // infinity (NaN is handled by the caller)
        h = sign | 0x7c00;
        return true;
    }
    if (exp == 0) {  // zero, or a float subnormal: far below half's range
        if (mant != 0) {
            return false;
        }
        h = sign;
        return true;
    }
    const int e = exp - 127;
    if (e >= -14 && e <= 15) {
        if ((mant & 0x1fff) != 0) {
            return false;
        }
        h = static_cast<std::uint16_t>(sign | ((e + 15) << 10) | (mant >> 13));
        return true;
    }
    if (e >= -24 && e < -14) {
        const std::uint32_t full = mant | 0x800000;
        const int shift = -e - 1;  // 14 .. 23
        if ((full & ((1u << shift) - 1)) != 0) {
            return false;
        }
        h = static_cast<std::uint16_t>(sign | (full >> shift));
        return true;
    }
    return false;
}

// The additional information (25, 26, 27) of the shortest float that holds `d` exactly.
int shortest_float_ai(double d) noexcept {
    std::uint16_t h;
    if (std::isnan(d) || double_to_half(d, h)) {
        return 25;
    }
    return static_cast<double>(static_cast<float>(d)) == d ? 26 : 27;
}

// The value of a float head (additional information 25, 26 or 27) with argument `arg`.
double float_of(int ai, std::uint64_t arg) noexcept {
    if (ai == 25) {
        return half_to_double(static_cast<std::uint16_t>(arg));
    }
    if (ai == 26) {
        float f;
        auto bits = static_cast<std::uint32_t>(arg);
        std::memcpy(&f, &bits, 4);
        return static_cast<double>(f);
    }
    double d;
    std::memcpy(&d, &arg, 8);
    return d;
}

// ---- reader ----

class cbor_reader : kept_error {
public:
    // strict: accept only the deterministic encoding of RFC 8949 section 4.2.1
    // (canonical=true).
    cbor_reader(std::string_view in, builder& b, bool strict, bool keep_width = false)
        : in_(in), b_(b), strict_(strict), keep_width_(keep_width) {}

    result<void> run() {
        const bool ok = read_item(false);
        return read_outcome(ok, pos_, in_.size(), "expected end of input");
    }

private:
    // A data item's initial byte and argument.
    struct head {
        std::size_t start;   // offset of the initial byte
        int major;
        int ai;              // additional information (31 = indefinite)
        std::uint64_t arg;   // the argument (unused when ai == 31)
        std::size_t next;    // offset just past the head
    };

    static const char* major_name(int major) {
        static constexpr const char* names[8] = {"an unsigned integer", "a negative integer",
                                                 "a byte string",       "a text string",
                                                 "an array",            "a map",
                                                 "a tag",               "a simple value or float"};
        return names[major];
    }

    const unsigned char* at(std::size_t p) const noexcept {
        return reinterpret_cast<const unsigned char*>(in_.data()) + p;
    }

    // Parses the head at `p` without consuming anything. The common one-byte head inline,
    // the rest (and every error) out of line.
    [[gnu::always_inline]] bool parse_head(std::size_t p, head& h) const {
        if (p < in_.size()) {
            const unsigned char ib = *at(p);
            if ((ib & 0x1f) < 24) {
                h.start = p;
                h.major = ib >> 5;
                h.ai = ib & 0x1f;
                h.arg = static_cast<std::uint64_t>(h.ai);
                h.next = p + 1;
                return true;
            }
        }
        return parse_head_slow(p, h);
    }

    [[gnu::noinline]] bool parse_head_slow(std::size_t p, head& h) const {
        if (p >= in_.size()) {
            return set_error(
                make_error(errc::unexpected_eof, p, "expected a data item, saw end of input"));
        }
        const unsigned char ib = *at(p);
        h.start = p;
        h.major = ib >> 5;
        h.ai = ib & 0x1f;
        h.arg = 0;
        if (h.ai < 24) {
            h.arg = static_cast<std::uint64_t>(h.ai);
            h.next = p + 1;
            return true;
        }
        if (h.ai >= 28 && h.ai <= 30) {
            return set_error(make_error(errc::malformed, p,
                                        "reserved additional information " + std::to_string(h.ai) +
                                            " in initial byte 0x" + hex_byte(ib)));
        }
        if (h.ai == 31) {
            if (h.major == 0 || h.major == 1 || h.major == 6) {
                return set_error(make_error(
                    errc::malformed, p,
                    std::string("indefinite length is not allowed for ") + major_name(h.major)));
            }
            if (strict_ && h.major != 7) {
                return set_error(make_error(
                    errc::malformed, p, "indefinite length is not allowed in deterministic CBOR"));
            }
            h.next = p + 1;
            return true;
        }
        const std::size_t n = std::size_t{1} << (h.ai - 24);
        if (in_.size() - (p + 1) < n) {
            return set_error(make_error(errc::unexpected_eof, in_.size(),
                                        "expected " + std::to_string(n) +
                                            " argument bytes after 0x" + hex_byte(ib) +
                                            ", saw end of input"));
        }
        for (std::size_t i = 0; i < n; ++i) {
            h.arg = (h.arg << 8) | at(p + 1)[i];
        }
        h.next = p + 1 + n;
        if (strict_ && h.major != 7 &&
            h.arg < (h.ai == 24 ? 24 : std::uint64_t{1} << (8 * (n / 2)) ) ) {
            return set_error(
                make_error(errc::malformed, p,
                           "argument " + std::to_string(h.arg) + " in " + std::to_string(n) +
                               " bytes is not the shortest form (deterministic CBOR)"));
        }
        return true;
    }

    static std::string hex_byte(unsigned char c) {
        static const char* digits = "0123456789abcdef";
        return {digits[c >> 4], digits[c & 15]};
    }

    bool container_limit(std::size_t start) {
        return set_error(limit_error(b_, start));
    }

    error too_long(const head& h, const char* what) const {
        return make_error(errc::size_exceeded, h.start,
                          std::string(what) + " of " + std::to_string(h.arg) +
                              " runs past the end of input (" +
                              std::to_string(in_.size() - h.next) + " bytes left)");
    }

    // The payload of a definite-length string head, length checked against the input.
    bool string_payload(const head& h, std::string_view& s) const {
        if (h.arg > in_.size() - h.next) {
            return set_error(too_long(h, h.major == 2 ? "byte string" : "text string"));
        }
        s = in_.substr(h.next, static_cast<std::size_t>(h.arg));
        if (h.major == 3) {
            std::size_t valid = utf8_valid_prefix(s);
            if (valid != s.size()) {
                return set_error(
                    make_error(errc::invalid_utf8, h.next + valid, "invalid UTF-8 in text string"));
            }
        }
        return true;
    }

    // RFC 8949 section 3.2.3: an indefinite-length string is a run of definite-length chunks
    // of the same major type, closed by 0xff. Two passes: check and measure, then copy.
    bool read_indefinite_string(const head& h) {
        std::size_t p = h.next;
        std::size_t total = 0;
        for (;;) {
            if (p >= in_.size()) {
                return set_error(
                    make_error(errc::unexpected_eof, p,
                               "expected a string chunk or break (0xff), saw end of input"));
            }
            if (*at(p) == 0xff) {
                break;
            }
            head c;
            if (!parse_head(p, c)) {
                return false;
            }
            if (c.major != h.major) {
                return set_error(make_error(errc::malformed, p,
                                            std::string("expected a chunk of ") +
                                                major_name(h.major) + ", saw " +
                                                major_name(c.major)));
            }
            if (c.ai == 31) {
                return set_error(make_error(errc::malformed, p,
                                            "expected a definite-length chunk, saw a nested "
                                            "indefinite-length string"));
            }
            std::string_view s;
            if (!string_payload(c, s)) {
                return false;
            }
            total += s.size();
            p = c.next + s.size();
        }
        char* out = b_.begin_string(total);
        char* w = out;
        std::size_t q = h.next;
        while (*at(q) != 0xff) {
            head c;
            (void)parse_head(q, c);
            std::memcpy(w, in_.data() + c.next, static_cast<std::size_t>(c.arg));
            w += c.arg;
            q = c.next + static_cast<std::size_t>(c.arg);
        }
        b_.end_string(w, h.major == 2 ? kind::bytes : kind::string);
        pos_ = p + 1;
        return true;
    }

    // -1 - n for n > INT64_MAX, as decimal text.
    void add_negative_bignum(std::uint64_t n) {
        bigint_limbs a{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n >> 32)};
        bigint_trim(a);
        bigint_add_small(a, 1);
        b_.add_bignum("-" + bigint_to_decimal(std::move(a)));
    }

    // int_width=keep: the width of an integer's head argument (0-24: 8 bits, 25: 16, 26: 32,
    // 27: 64); unknown otherwise.
    int_width width_of(const head& h) const noexcept {
        if (!keep_width_) {
            return int_width::unknown;
        }
        return h.ai <= 24 ? int_width::bits8
               : h.ai == 25 ? int_width::bits16
               : h.ai == 26 ? int_width::bits32
                            : int_width::bits64;
    }

    bool read_item(bool key) {
        head h;
        if (!parse_head(pos_, h)) {
            return false;
        }
        pos_ = h.next;
        switch (h.major) {
            case 0:
                b_.add_uint(h.arg, width_of(h));
                return true;
            case 1:
                if (h.arg <= static_cast<std::uint64_t>(INT64_MAX)) {
                    b_.add_int(-1 - static_cast<std::int64_t>(h.arg), width_of(h));
                } else {
                    add_negative_bignum(h.arg);
                }
                return true;
            case 2:
            case 3: {
                if (h.ai == 31) {
                    return read_indefinite_string(h);
                }
                std::string_view s;
                if (!string_payload(h, s)) {
                    return false;
                }
                if (h.major == 2) {
                    b_.add_bytes(s);
                } else {
                    b_.add_string(s);
                }
                pos_ += s.size();
                return true;
            }
            case 4:
            case 5:
                // Any value may be a map key (RFC 8949 section 5.6, DESIGN section 2).
                return h.major == 4 ? read_array(h) : read_map(h);
            case 6:
                return read_tag(h, key);
            default:
                return read_simple(h);
        }
    }

    bool read_array(const head& h) {
        if (h.ai != 31 && h.arg > in_.size() - pos_) {
            // Every element takes at least one byte: fail before building anything.
            return set_error(too_long(h, "array"));
        }
        if (!b_.begin_array()) {
            return container_limit(h.start);
        }
        if (!read_children(h, [&](std::uint64_t) { return read_item(false); })) {
            return false;
        }
        b_.end_array();
        return true;
    }

    bool read_map(const head& h) {
        if (h.ai != 31 && h.arg > (in_.size() - pos_) / 2) {
            return set_error(too_long(h, "map"));
        }
        if (!b_.begin_map()) {
            return container_limit(h.start);
        }
        std::string_view prev;
        const bool pairs = read_children(h, [&](std::uint64_t i) {
            const std::size_t key_start = pos_;
            if (!read_item(true)) {
                return false;
            }
            if (h.ai == 31) {
                if (pos_ < in_.size() && *at(pos_) == 0xff) {
                    return set_error(make_error(errc::malformed, pos_,
                                                "expected a map value, saw break (0xff)"));
                }
            } else if (strict_) {
                // RFC 8949 section 4.2.1: keys in the bytewise order of their encodings.
                std::string_view key = in_.substr(key_start, pos_ - key_start);
                if (i != 0 && !(prev < key)) {
                    return set_error(make_error(
                        prev == key ? errc::duplicate_key : errc::malformed, key_start,
                        prev == key ? std::string("duplicate map key")
                                    : std::string("map keys out of deterministic order")));
                }
                prev = key;
            }
            return read_item(false);
        });
        if (!pairs) {
            return false;
        }
        b_.end_map();
        return true;
    }

    // The children of an array or map with head h: up to the break (0xff) for an indefinite
    // length, else h.arg of them. child(i) reads the i-th (of a map, the i-th pair).
    template <class Child>
    bool read_children(const head& h, Child child) {
        if (h.ai == 31) {
            for (std::uint64_t i = 0;; ++i) {
                if (pos_ < in_.size() && *at(pos_) == 0xff) {
                    ++pos_;
                    return true;
                }
                if (!child(i)) {
                    return false;
                }
            }
        }
        for (std::uint64_t i = 0; i < h.arg; ++i) {
            if (!child(i)) {
                return false;
            }
        }
        return true;
    }

    // Peeks at a definite-length string of major type `major` at pos_ (no errors: on any
    // mismatch the generic path reads the item and reports what is wrong).
    bool peek_string(int major, std::string_view& s, std::size_t& after) {
        return peek_string_at(pos_, major, s, after);
    }

    // The string (major 2 or 3) at `at`, for a tag that interprets it. An indefinite-length
    // string is joined into chunks_ (fuzz_decode_cbor: tag 2 over one stayed a tag, and came
    // back as a bignum once written with a definite length).
    bool peek_string_at(std::size_t at, int major, std::string_view& s, std::size_t& after) {
        head c;
        if (parse_head(at, c) && c.major == major && c.ai == 31) {
            chunks_.clear();
            std::size_t p = c.next;
            for (;;) {
                if (p >= in_.size()) {
                    return false;
                }
                if (*this->at(p) == 0xff) {
                    break;
                }
                head k;
                if (!parse_head(p, k) || k.major != major || k.ai == 31 ||
                    k.arg > in_.size() - k.next) {
                    return false;
                }
                std::string_view piece = in_.substr(k.next, static_cast<std::size_t>(k.arg));
                if (major == 3 && !utf8_valid(piece)) {
                    return false;
                }
                chunks_.append(piece);
                p = k.next + piece.size();
            }
            s = chunks_;
            after = p + 1;
            return true;
        }
        if (!parse_head(at, c) || c.major != major || c.ai == 31 ||
            c.arg > in_.size() - c.next) {
            return false;
        }
        s = in_.substr(c.next, static_cast<std::size_t>(c.arg));
        if (major == 3 && !utf8_valid(s)) {
            return false;
        }
        after = c.next + s.size();
        return true;
    }

    bool try_epoch(std::size_t& after) {
        head c;
        if (!parse_head(pos_, c)) {
            return false;
        }
        char text[32];
        std::size_t len = 0;
        if (c.major == 0 && c.arg <= static_cast<std::uint64_t>(INT64_MAX)) {
            len = format_epoch(static_cast<std::int64_t>(c.arg), 0, text);
        } else if (c.major == 1 && c.arg <= static_cast<std::uint64_t>(INT64_MAX)) {
            len = format_epoch(-1 - static_cast<std::int64_t>(c.arg), 0, text);
        } else if (c.major == 7 && c.ai >= 25 && c.ai <= 27) {
            double d = float_value(c);
            if (!std::isfinite(d) || std::fabs(d) > 4e11) {
                return false;
            }
            double s = std::floor(d);
            double frac = d - s;  // exact
            // frac * 10^9 is an integer exactly when frac has at most 9 binary fraction digits.
            double t = frac * 512;
            if (t != std::floor(t)) {
                return false;
            }
            auto nanos = static_cast<std::uint32_t>(static_cast<std::uint64_t>(t) * 1953125);
            len = format_epoch(static_cast<std::int64_t>(s), nanos, text);
        } else if (c.major == 6 && (c.arg == tag_pos_bignum || c.arg == tag_neg_bignum) && !strict_) {
            // A bignum that fits 64 bits decodes as a plain integer, which the encoder writes
            // as such: so tag 1 over it must be the same instant as tag 1 over that integer.
            std::string_view mag;
            std::size_t end = 0;
            std::uint64_t v = 0;
            if (!peek_string_at(c.next, 2, mag, end) ||
                !bigint_to_u64(bigint_from_bytes(mag), v) ||
                v > static_cast<std::uint64_t>(INT64_MAX)) {
                return false;
            }
            auto secs = c.arg == tag_neg_bignum ? -1 - static_cast<std::int64_t>(v)
                                                : static_cast<std::int64_t>(v);
            len = format_epoch(secs, 0, text);
            if (len != 0) {
                b_.add_timestamp({text, len}, timestamp_kind::offset_date_time);
                after = end;
                return true;
            }
            return false;
        }
        if (len == 0) {
            return false;
        }
        b_.add_timestamp({text, len}, timestamp_kind::offset_date_time);
        after = c.next;
        return true;
    }

    bool read_tag(const head& h, bool key) {
        std::string_view s;
        std::size_t after = 0;
        switch (h.arg) {
            case tag_datetime_text: {
                epoch_instant t;
                if (peek_string(3, s, after) && parse_rfc3339(s, t)) {
                    b_.add_timestamp(s, timestamp_kind::offset_date_time);
                    pos_ = after;
                    return true;
                }
                break;
            }
            case tag_epoch:
                if (try_epoch(after)) {
                    pos_ = after;
                    return true;
                }
                break;
            case tag_full_date: {
                epoch_instant t;
                if (peek_string(3, s, after) && s.size() == 10 &&
                    parse_rfc3339(std::string(s) + "T00:00:00Z", t)) {
                    b_.add_timestamp(s, timestamp_kind::local_date);
                    pos_ = after;
                    return true;
                }
                break;
            }
            case tag_pos_bignum:
            case tag_neg_bignum:
                if (peek_string(2, s, after)) {
                    bigint_limbs a = bigint_from_bytes(s);
                    std::uint64_t v;
                    bool neg = h.arg == tag_neg_bignum;
                    if (strict_ && (bigint_to_u64(a, v) || s[0] == 0)) {
                        return set_error(make_error(errc::malformed, h.start,
                                                    "a bignum with leading zeros or within 64 bits "
                                                    "is not deterministic CBOR"));
                    }
                    if (bigint_to_u64(a, v)) {
                        // Fits in 64 bits: an ordinary integer.
                        if (!neg) {
                            b_.add_uint(v);
                        } else if (v <= static_cast<std::uint64_t>(INT64_MAX)) {
                            b_.add_int(-1 - static_cast<std::int64_t>(v));
                        } else {
                            add_negative_bignum(v);
                        }
                    } else {
                        if (neg) {
                            bigint_add_small(a, 1);
                        }
                        b_.add_bignum((neg ? "-" : "") + bigint_to_decimal(std::move(a)));
                    }
                    pos_ = after;
                    return true;
                }
                break;
            default:
                break;
        }
        if (!b_.begin_tagged(h.arg, tag_space::cbor)) {
            return container_limit(h.start);
        }
        return read_item(key);
    }

    static double float_value(const head& h) { return float_of(h.ai, h.arg); }

    bool read_simple(const head& h) {
        switch (h.ai) {
            case 20:
                b_.add_bool(false);
                return true;
            case 21:
                b_.add_bool(true);
                return true;
            case 22:
                b_.add_null();
                return true;
            case 25:
            case 26:
            case 27: {
                const double d = float_value(h);
                if (strict_ && shortest_float_ai(d) != h.ai) {
                    return set_error(
                        make_error(errc::malformed, h.start,
                                   "float not in its shortest form (deterministic CBOR)"));
                }
                if (strict_ && std::isnan(d) && h.arg != 0x7e00) {
                    return set_error(
                        make_error(errc::malformed, h.start,
                                   "NaN must be written as f97e00 (deterministic CBOR)"));
                }
                b_.add_double(d);
                return true;
            }
            case 31:
                return set_error(make_error(errc::malformed, h.start,
                                            "break (0xff) outside an indefinite-length item"));
            case 24:
                // RFC 8949 section 3.3: 0xf8 followed by a byte below 0x20 is not well-formed.
                if (h.arg < 32) {
                    return set_error(
                        make_error(errc::malformed, h.start,
                                   "simple value " + std::to_string(h.arg) +
                                       " must be written in one byte, not after 0xf8"));
                }
                break;
            default:
                break;
        }
        // undefined (23) and unassigned simple values: tagged(other, N, null).
        if (!b_.begin_tagged(h.arg, tag_space::other)) {
            return container_limit(h.start);
        }
        b_.add_null();
        return true;
    }

    std::string chunks_;  // an indefinite-length string joined for a tag (peek_string_at)
    std::string_view in_;
    builder& b_;
    bool strict_;
    bool keep_width_;
    std::size_t pos_ = 0;
};


// ---- fast path ----
//
// One iterative loop that writes the tape and the payload bytes directly (detail::tape_writer),
// as msgpack's does: definite lengths give every container's count up front. It takes the
// common items only (integers within 64 bits, definite strings, arrays and maps, false, true,
// null, floats); on a tag, an indefinite length, a simple value, an error, a limit or any doubt
// it returns false, and decode_cbor resets the builder and runs cbor_reader above, which
// decides (and words) every error exactly as before. On success the tape is the one
// cbor_reader would have built (FastPathAgreement.Cbor).

constexpr std::size_t fast_max_frames = 64;  // deeper input takes cbor_reader

using fast_writer = tape_writer<256, 2048, false>;

bool decode_cbor_fast(std::string_view in, builder& b) {
    const auto [p, size, max_depth, max_bytes] = fast_input_of(in, b, fast_max_frames);
    fast_writer tw(b);

    // frames[0] stands for the top level: a container of one value that is never closed.
    fast_frame frames[fast_max_frames + 1];
    frames[0] = {0, 1};
    fast_frame* top = frames;
    std::size_t pos = 0;

    for (;;) {
        if (pos >= size) {
            return false;
        }
        std::uint64_t* w = tw.words(4);
        const unsigned ib = p[pos++];
        const unsigned major = ib >> 5;
        const unsigned ai = ib & 0x1f;
        std::uint64_t n;
        if (ai < 24) {
            n = ai;
        } else if (!take_be_coded<24>(ai, p, size, pos, n)) {
            return false;  // reserved, an indefinite length, or the input ends
        }
        switch (major) {
            case 0:
                w[0] = n <= static_cast<std::uint64_t>(INT64_MAX) ? tape_word(kind::int64, 0, 0)
                                                                : tape_word(kind::uint64, 0, 0);
                w[1] = n;
                tw.advance(2);
                break;
            case 1:
                if (n > static_cast<std::uint64_t>(INT64_MAX)) {
                    return false;  // a bignum
                }
                w[0] = tape_word(kind::int64, 0, 0);
                w[1] = ~n;  // -1 - n
                tw.advance(2);
                break;
            case 2:
                if (n > size - pos) {
                    return false;
                }
                std::memcpy(tw.bytes(n), p + pos, n);
                tw.payload(w, kind::bytes, 0, n);
                pos += n;
                break;
            case 3:
                if (!fast_text_at(tw, w, p, size, pos, n)) {
                    return false;
                }
                break;
            case 4:
            case 5: {
                const fast_open_result r = fast_open<1, 2>(top, frames, max_depth, max_bytes, tw, w,
                                                           major == 5, n, size - pos);
                if (r == fast_open_result::fail) {
                    return false;
                }
                if (r == fast_open_result::opened) {
                    continue;
                }
                break;
            }
            case 6:
                return false;  // tags: the reader
            default:
                switch (ai) {
                    case 20:
                        w[0] = tape_word(kind::boolean_false, 0, 0);
                        tw.advance(1);
                        break;
                    case 21:
                        w[0] = tape_word(kind::boolean_true, 0, 0);
                        tw.advance(1);
                        break;
                    case 22:
                        w[0] = tape_word(kind::null, 0, 0);
                        tw.advance(1);
                        break;
                    case 25:
                    case 26:
                    case 27: {
                        const double d = float_of(static_cast<int>(ai), n);
                        w[0] = tape_word(kind::float64, 0, 0);
                        std::memcpy(&w[1], &d, 8);
                        tw.advance(2);
                        break;
                    }
                    default:  // undefined, other simple values
                        return false;
                }
                break;
        }
        // A value is complete: count it in its container, closing the containers it ends.
        if (fast_value_done(top, frames, tw)) {
            goto finished;
        }
    }

finished:
    return fast_finish(tw, pos, size, max_bytes);
}

result<void> decode_cbor(std::string_view in, builder& b, const decode_options& opt) {
    return fast_or_read(
        b, !opt.canonical && !opt.keep_int_width, [&] { return decode_cbor_fast(in, b); },
        [&] { return cbor_reader(in, b, opt.canonical, opt.keep_int_width).run(); });
}

// ---- writer ----

class cbor_writer : public kept_error {
public:
    cbor_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    // The common elements are written in one linear pass over the tape (detail/tape_walk.hpp,
    // as msgpack's writer does) through the hooks below. The rest (long strings, bytes,
    // bignums, timestamps, tags, int_width=keep integers, canonical maps) go through write()
    // below, subtree and all.
    bool write_root(value root) { return walk_tape<64>(*this, out_, root); }

    // The hooks of walk_tape: at least 64 bytes free at o.
    static constexpr unsigned char null_byte = 0xf6;
    static constexpr unsigned char false_byte = 0xf4;
    static constexpr unsigned char true_byte = 0xf5;
    static constexpr std::uint64_t short_max = 23;  // a text head with its length
    static constexpr unsigned char short_fix = 0x60;
    bool int64(char*& o, std::uint64_t w, std::uint64_t v) const noexcept {
        if (keep_width_ && (w >> document::aux_shift & 0xff) != 0) {
            return false;
        }
        o = static_cast<std::int64_t>(v) >= 0 ? head_at(o, 0x00, v) : head_at(o, 0x20, ~v);
        return true;  // (~v is -1 - v)
    }
    static bool uint64(char*& o, std::uint64_t v) noexcept {
        o = head_at(o, 0x00, v);
        return true;
    }
    static bool float64(char*& o, std::uint64_t bits) noexcept {
        double d;
        std::memcpy(&d, &bits, 8);
        o = float_at(o, d);
        return true;
    }
    bool header(char*& o, kind k, std::uint64_t n) const noexcept {
        if (k == kind::map && opt_.canonical && n >= 2) {
            return false;  // sorted by write_map
        }
        o = head_at(o, k == kind::map ? 0xa0 : 0x80, n);
        return true;
    }
    bool rare(const document& doc, std::size_t& i) {
        const value v(&doc, i);
        if (!write(v)) {
            return false;
        }
        i = v.end_index();
        return true;
    }

    bool write(value v) {
        switch (v.kind()) {
            case kind::null:
                out_.push_back(static_cast<char>(0xf6));
                return true;
            case kind::boolean_false:
                out_.push_back(static_cast<char>(0xf4));
                return true;
            case kind::boolean_true:
                out_.push_back(static_cast<char>(0xf5));
                return true;
            case kind::int64: {
                std::int64_t i = v.get_int();
                const int_width width = keep_width_ ? v.int_width() : int_width::unknown;
                if (i >= 0) {
                    put_int_head(0, static_cast<std::uint64_t>(i), width);
                } else {
                    put_int_head(1, ~static_cast<std::uint64_t>(i), width);  // -1 - i
                }
                return true;
            }
            case kind::uint64:
                put_head(0, v.get_uint());
                return true;
            case kind::float64:
                write_float(v.get_double());
                return true;
            case kind::string:
                put_head(3, v.get_string().size());
                out_.append(v.get_string());
                return true;
            case kind::bytes:
                put_head(2, v.get_string().size());
                out_.append(v.get_string());
                return true;
            case kind::bignum:
                return write_bignum(v);
            case kind::timestamp: {
                std::string_view s = v.get_string();
                if (v.get_timestamp_kind() == timestamp_kind::offset_date_time) {
                    put_head(6, tag_datetime_text);
                } else if (v.get_timestamp_kind() == timestamp_kind::local_date) {
                    put_head(6, tag_full_date);
                }
                // Local date-times and times have no CBOR tag: their RFC 3339 text.
                put_head(3, s.size());
                out_.append(s);
                return true;
            }
            case kind::tagged:
                return write_tagged(v);
            case kind::array:
                put_head(4, v.size());
                for (value c : v.items()) {
                    if (!write(c)) {
                        return false;
                    }
                }
                return true;
            case kind::map:
                return write_map(v);
        }
        return true;
    }

private:
    // Raw writers for write_root()'s loop: at least 9 bytes free at o; return the new end.
    // `mt` is the major type in the top three bits.
    static char* head_at(char* o, unsigned char mt, std::uint64_t arg) noexcept {
        if (arg < 24) {
            *o = static_cast<char>(mt | arg);
            return o + 1;
        }
        if (arg <= 0xff) {
            o[0] = static_cast<char>(mt | 24);
            o[1] = static_cast<char>(arg);
            return o + 2;
        }
        if (arg <= 0xffff) {
            return put_be_at(o, mt | 25, arg, 2);
        }
        if (arg <= 0xffffffff) {
            return put_be_at(o, mt | 26, arg, 4);
        }
        return put_be_at(o, mt | 27, arg, 8);
    }
    // write_float's choice (the shortest of half, single and double; NaN as f97e00).
    static char* float_at(char* o, double d) noexcept {
        if (std::isnan(d)) {
            return put_be_at(o, 0xf9, 0x7e00, 2);
        }
        if (std::uint16_t h; double_to_half(d, h)) {
            return put_be_at(o, 0xf9, h, 2);
        }
        if (std::uint32_t narrow; narrow_to_float32(d, narrow)) {
            return put_be_at(o, 0xfa, narrow, 4);
        }
        std::uint64_t bits;
        std::memcpy(&bits, &d, 8);
        return put_be_at(o, 0xfb, bits, 8);
    }

    void put_head(int major, std::uint64_t arg) {
        char* p = out_.prepare(9);
        const auto mt = static_cast<unsigned char>(major << 5);
        std::size_t n;
        if (arg < 24) {
            p[0] = static_cast<char>(mt | arg);
            n = 0;
        } else if (arg <= 0xff) {
            p[0] = static_cast<char>(mt | 24);
            n = 1;
        } else if (arg <= 0xffff) {
            p[0] = static_cast<char>(mt | 25);
            n = 2;
        } else if (arg <= 0xffffffff) {
            p[0] = static_cast<char>(mt | 26);
            n = 4;
        } else {
            p[0] = static_cast<char>(mt | 27);
            n = 8;
        }
        for (std::size_t i = 0; i < n; ++i) {
            p[1 + i] = static_cast<char>(arg >> (8 * (n - 1 - i)));
        }
        out_.commit(n + 1);
    }

    // int_width=keep: an integer's head at its hinted width (16, 32 or 64 bits) when the
    // argument fits there, else the shortest head (also for 8-bit and unknown hints).
    void put_int_head(int major, std::uint64_t arg, int_width width) {
        const std::size_t n = width == int_width::bits64                         ? 8
                              : width == int_width::bits32 && arg <= 0xffffffff ? 4
                              : width == int_width::bits16 && arg <= 0xffff     ? 2
                                                                                : 0;
        if (n == 0) {
            put_head(major, arg);
            return;
        }
        put_raw(static_cast<unsigned char>(major << 5 | (n == 8 ? 27 : n == 4 ? 26 : 25)), arg,
                n);
    }

    void put_raw(unsigned char ib, std::uint64_t bits, std::size_t n) {
        char* p = out_.prepare(9);
        p[0] = static_cast<char>(ib);
        for (std::size_t i = 0; i < n; ++i) {
            p[1 + i] = static_cast<char>(bits >> (8 * (n - 1 - i)));
        }
        out_.commit(n + 1);
    }

    // RFC 8949 section 4.2.2: the shortest of half, single and double that keeps the value;
    // every NaN as the half-precision quiet NaN 0xf97e00.
    void write_float(double d) {
        if (std::isnan(d)) {
            put_raw(0xf9, 0x7e00, 2);
            return;
        }
        std::uint16_t h;
        if (double_to_half(d, h)) {
            put_raw(0xf9, h, 2);
            return;
        }
        if (std::uint32_t narrow; narrow_to_float32(d, narrow)) {
            put_raw(0xfa, narrow, 4);
            return;
        }
        std::uint64_t bits;
        std::memcpy(&bits, &d, 8);
        put_raw(0xfb, bits, 8);
    }

    // An integer outside 64 bits: major type 0/1 when it fits there (preferred
    // serialization, RFC 8949 section 3.4.3), tag 2/3 with the big-endian magnitude otherwise.
    bool write_bignum(value v) {
        std::string_view s = v.get_string();
        bool neg = !s.empty() && s[0] == '-';
        std::string_view digits = neg ? s.substr(1) : s;
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
            return set_error(
                unrepresentable(v, "bignum text \"" + std::string(s) + "\" is not an integer"));
        }
        bigint_limbs a = bigint_from_decimal(digits);
        if (neg) {
            if (a.empty()) {
                put_head(0, 0);  // "-0"
                return true;
            }
            bigint_sub_one(a);
        }
        std::uint64_t small;
        if (bigint_to_u64(a, small)) {
            put_head(neg ? 1 : 0, small);
            return true;
        }
        std::string mag = bigint_to_bytes(a);
        put_head(6, neg ? tag_neg_bignum : tag_pos_bignum);
        put_head(2, mag.size());
        out_.append(mag);
        return true;
    }

    bool write_tagged(value v) {
        value inner = v.tagged_value();
        switch (v.get_tag_space()) {
            case tag_space::cbor:
                put_head(6, v.tag());
                return write(inner);
            case tag_space::other:
                // Simple values as the decoder produces them: tagged(other, N, null).
                if (inner.kind() == kind::null &&
                    (v.tag() < 20 || v.tag() == 23 || (v.tag() >= 32 && v.tag() <= 255))) {
                    if (v.tag() < 24) {
                        out_.push_back(static_cast<char>(0xe0 | v.tag()));
                    } else {
                        put_raw(0xf8, v.tag(), 1);
                    }
                    return true;
                }
                break;
            default:
                break;
        }
        if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
            std::string what = v.get_tag_space() == tag_space::msgpack_ext
                                   ? "msgpack ext " + std::to_string(static_cast<std::int64_t>(v.tag()))
                               : v.get_tag_space() == tag_space::bson
                                   ? "BSON type " + std::to_string(v.tag())
                                   : "tag " + std::to_string(v.tag());
            return set_error(unrepresentable(v, what + " is not representable in cbor"));
        }
        return write(inner);
    }

    bool write_map(value v) {
        put_head(5, v.size());
        if (!opt_.canonical || v.size() < 2) {
            for (auto [k, val] : v.entries()) {
                if (!write(k)) {
                    return false;
                }
                if (!write(val)) {
                    return false;
                }
            }
            return true;
        }
        // RFC 8949 section 4.2.1: keys sorted by the bytewise lexicographic order of their
        // deterministic encodings. Write the entries, then reorder their byte spans.
        struct span {
            std::size_t key, val, end;
        };
        std::vector<span> spans;
        spans.reserve(static_cast<std::size_t>(v.size()));
        const std::size_t first = out_.size();
        for (auto [k, val] : v.entries()) {
            span s{out_.size(), 0, 0};
            if (!write(k)) {
                return false;
            }
            s.val = out_.size();
            if (!write(val)) {
                return false;
            }
            s.end = out_.size();
            spans.push_back(s);
        }
        std::string body(out_.data() + first, out_.size() - first);
        auto key_of = [&](const span& s) {
            return std::string_view(body.data() + (s.key - first), s.val - s.key);
        };
        std::stable_sort(spans.begin(), spans.end(), [&](const span& a, const span& b) {
            return key_of(a) < key_of(b);  // unsigned bytewise (char_traits<char>::compare)
        });
        std::size_t w = first;
        for (const span& s : spans) {
            out_.overwrite(w, body.data() + (s.key - first), s.end - s.key);
            w += s.end - s.key;
        }
        return true;
    }

    output_buffer& out_;
    const encode_options& opt_;
    // int_width=keep (not with canonical=true, whose deterministic encoding is the shortest).
    const bool keep_width_ = opt_.keep_int_width && !opt_.canonical;
};

result<void> encode_cbor(const document& doc, output_buffer& out, const encode_options& opt) {
    cbor_writer w(out, opt);
    return w.outcome(w.write_root(doc.root()));
}

}  // namespace

const codec_functions cbor_codec{decode_cbor, encode_cbor};

}  // namespace polycodec::detail
