// Smile (https://github.com/FasterXML/smile-format-specification, version 1.0.4), Jackson's
// binary JSON: every token of value and key mode, shared name and value back-references,
// 7-bit and raw binary, BigInteger and BigDecimal. Where the specification is loose, the
// choices follow Jackson's SmileParser and SmileGenerator (see docs/formats/smile.md).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <forward_list>
#include <string>
#include <vector>

#include "detail/bigint_text.hpp"
#include "detail/binary.hpp"
#include "detail/decimal.hpp"
#include "detail/describe.hpp"
#include "detail/encode_with.hpp"
#include "detail/fast_decode.hpp"
#include "detail/fixed_scalar.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/tape_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "detail/word_scan.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr unsigned char header_flag_shared_names = 0x01;
constexpr unsigned char header_flag_shared_values = 0x02;
constexpr unsigned char header_flag_raw_binary = 0x04;
constexpr unsigned char end_of_string = 0xfc;
// Back-reference tables hold at most 1024 entries, then start again from empty (spec 4).
constexpr std::size_t max_shared = 1024;
// BigInteger and BigDecimal magnitudes are turned into decimal text in quadratic time: refuse
// more than this many bytes (about 9800 decimal digits).
constexpr std::uint64_t max_big_bytes = 4096;

std::string byte_name(unsigned char m) {
    static const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[m >> 4] + digits[m & 15];
}

// ---- reader ----

inline std::int64_t unzigzag(std::uint64_t v) noexcept {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Strings seen so far for back-references; slices of the input, so nothing is copied.
struct shared_table {
    std::array<std::string_view, max_shared> items;
    std::size_t count = 0;
    bool enabled = false;

    void add(std::string_view s) {
        if (!enabled) {
            return;
        }
        if (count == max_shared) {
            count = 0;
        }
        items[count++] = s;
    }
};

class smile_reader {
public:
    smile_reader(std::string_view in, builder& b) : in_(in), b_(b) {}

    result<void> run() {
        names_.enabled = true;  // the defaults without a header (spec: "High-level format")
        if (!in_.empty() && in_[0] == ':') {
            if (in_.size() < 4) {
                return fail(make_error(errc::unexpected_eof, in_.size(),
                                       "expected the 4-byte smile header, saw end of input"));
            }
            if (in_[1] != ')' || in_[2] != '\n') {
                return fail(make_error(errc::malformed, 0, "expected the smile header ':)\\n'"));
            }
            unsigned char flags = byte(3);
            if ((flags >> 4) != 0) {
                return fail(make_error(errc::malformed, 3,
                                       "unsupported smile version " + std::to_string(flags >> 4)));
            }
            names_.enabled = (flags & header_flag_shared_names) != 0;
            values_.enabled = (flags & header_flag_shared_values) != 0;
            raw_binary_ = (flags & header_flag_raw_binary) != 0;
            pos_ = 4;
        }
        POLYCODEC_TRY(read_value());
        if (pos_ < in_.size() && byte(pos_) == 0xff) {
            ++pos_;  // the optional end-of-content marker
        }
        if (pos_ != in_.size()) {
            return fail(make_error(
                errc::trailing_content, pos_,
                "expected end of input, saw " + std::to_string(in_.size() - pos_) + " more bytes"));
        }
        return {};
    }

private:
    std::size_t left() const noexcept { return in_.size() - pos_; }
    unsigned char byte(std::size_t p) const noexcept { return static_cast<unsigned char>(in_[p]); }

    error eof(const char* what) const {
        return make_error(errc::unexpected_eof, in_.size(),
                          std::string("expected ") + what + ", saw end of input");
    }
    error too_long(std::size_t start, std::uint64_t n, const char* what) const {
        return make_error(errc::size_exceeded, start,
                          std::string(what) + " of " + std::to_string(n) +
                              " runs past the end of input (" + std::to_string(left()) +
                              " bytes left)");
    }
    result<void> container_limit(std::size_t start) { return fail(limit_error(b_, start)); }

    // A VInt (appendix A): 7-bit groups, big-endian, the last byte with bit 7 set and 6 data
    // bits. At most `max_bytes` bytes and `max_bits` bits of value.
    result<std::uint64_t> read_vint(int max_bytes, int max_bits, const char* what) {
        const std::size_t start = pos_;
        std::uint64_t v = 0;
        for (int i = 0;; ++i) {
            if (pos_ >= in_.size()) {
                return fail(eof(what));
            }
            if (i == max_bytes) {
                return fail(make_error(
                    errc::malformed, start,
                    std::string(what) + " longer than " + std::to_string(max_bytes) + " bytes"));
            }
            unsigned char c = byte(pos_++);
            int bits = (c & 0x80) != 0 ? 6 : 7;
            if ((v >> (64 - bits)) != 0) {
                return fail(
                    make_error(errc::invalid_number, start, std::string(what) + " out of range"));
            }
            if ((c & 0x80) != 0) {
                if ((c & 0x40) != 0) {
                    return fail(make_error(
                        errc::malformed, pos_ - 1,
                        "expected the last byte of a VInt (0x80-0xbf), saw " + byte_name(c)));
                }
                v = (v << 6) | (c & 0x3f);
                break;
            }
            v = (v << 7) | c;
        }
        if (max_bits < 64 && (v >> max_bits) != 0) {
            return fail(
                make_error(errc::invalid_number, start, std::string(what) + " out of range"));
        }
        return v;
    }

    // n fixed 7-bit bytes of a float, right-aligned.
    result<std::uint64_t> read_7bit_fixed(int n, const char* what) {
        if (left() < static_cast<std::size_t>(n)) {
            return fail(eof(what));
        }
        return read_7bit_bytes(static_cast<std::size_t>(n), what);
    }

    // k 7-bit bytes (k bytes are left) as one number, 7 bits each, the first the highest.
    result<std::uint64_t> read_7bit_bytes(std::size_t k, const char* what) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < k; ++i) {
            unsigned char c = byte(pos_);
            if (c > 0x7f) {
                return fail(make_error(
                    errc::malformed, pos_,
                    std::string("expected a 7-bit byte of ") + what + ", saw " + byte_name(c)));
            }
            v = (v << 7) | c;
            ++pos_;
        }
        return v;
    }

    static std::uint64_t encoded_7bit_size(std::uint64_t n) noexcept {
        return n / 7 * 8 + (n % 7 != 0 ? n % 7 + 1 : 0);
    }

    // The 7-bit encoding of n raw bytes (spec "safe" binary): each run of 7 bytes is 8 bytes
    // of 7 bits, big-endian; a last run of k < 7 bytes is k + 1 bytes, the last holding the
    // remaining k bits right-aligned (as Jackson reads and writes it). Checks the encoded size
    // against the input first (call check_7bit), then writes n bytes to `out`.
    result<void> check_7bit(std::size_t start, std::uint64_t n, const char* what) {
        if (n > left() || encoded_7bit_size(n) > left()) {
            return fail(too_long(start, n, what));
        }
        return {};
    }

    result<void> read_7bit(std::size_t n, const char* what, char* out) {
        std::size_t o = 0;
        while (o < n) {
            std::size_t k = n - o < 7 ? n - o : 7;
            POLYCODEC_TRY_ASSIGN(v, read_7bit_bytes(k, what));
            unsigned char last = byte(pos_);
            if ((last >> k) != 0) {
                return fail(make_error(errc::malformed, pos_,
                                       "expected " + std::to_string(k) + " bits in the last " +
                                           "7-bit byte of " + what + ", saw " + byte_name(last)));
            }
            v = (v << k) | last;
            ++pos_;
            for (std::size_t i = 0; i < k; ++i) {
                out[o + i] = static_cast<char>(v >> (8 * (k - 1 - i)));
            }
            o += k;
        }
        return {};
    }

    // A big integer: VInt byte count, then 7-bit encoded two's complement big-endian bytes
    // (Java's BigInteger.toByteArray, which Jackson writes).
    result<void> read_big_integer(std::size_t start, bool* neg_out, std::string* digits_out) {
        auto n = read_vint(10, 64, "big integer length");
        if (!n) {
            return fail(n.error());
        }
        if (*n == 0) {
            return fail(make_error(errc::malformed, start, "big integer of 0 bytes"));
        }
        if (*n > max_big_bytes) {
            return fail(make_error(errc::size_exceeded, start,
                                   "big integer of " + std::to_string(*n) +
                                       " bytes exceeds the limit of " +
                                       std::to_string(max_big_bytes)));
        }
        POLYCODEC_TRY(check_7bit(start, *n, "big integer"));
        std::string bytes(static_cast<std::size_t>(*n), '\0');
        POLYCODEC_TRY(read_7bit(bytes.size(), "big integer", bytes.data()));
        bool neg = (static_cast<unsigned char>(bytes[0]) & 0x80) != 0;
        if (neg) {
            for (char& c : bytes) {
                c = static_cast<char>(~static_cast<unsigned char>(c));
            }
        }
        bigint_limbs a = bigint_from_bytes(bytes);
        if (neg) {
            bigint_add_small(a, 1);
        }
        *neg_out = neg;
        *digits_out = bigint_to_decimal(std::move(a));
        return {};
    }

    result<std::string_view> read_counted(std::size_t start, std::size_t n, const char* what) {
        if (n > left()) {
            return fail(too_long(start, n, what));
        }
        std::string_view s = in_.substr(pos_, n);
        std::size_t valid = utf8_valid_prefix(s);
        if (valid != s.size()) {
            return fail(make_error(errc::invalid_utf8, pos_ + valid,
                                   std::string("invalid UTF-8 in ") + what));
        }
        pos_ += n;
        return s;
    }

    // Bytes up to the end-of-string marker 0xfc, which UTF-8 never contains.
    result<std::string_view> read_terminated(const char* what) {
        const void* end = std::memchr(in_.data() + pos_, end_of_string, left());
        if (end == nullptr) {
            return fail(eof("the end-of-string marker 0xfc"));
        }
        std::size_t n = static_cast<std::size_t>(static_cast<const char*>(end) - in_.data()) - pos_;
        auto s = read_counted(pos_, n, what);
        ++pos_;
        return s;
    }

    // A string just read (or its error): added to the document and remembered in `table` (the
    // shared key names or string values) for later back-references.
    result<void> add_shared(shared_table& table, result<std::string_view> s) {
        if (!s) {
            return fail(s.error());
        }
        table.add(*s);
        b_.add_string(*s);
        return {};
    }

    result<void> shared_ref(shared_table& t, std::size_t start, std::size_t index,
                            const char* what) {
        if (!t.enabled) {
            return fail(
                make_error(errc::malformed, start,
                           std::string(what) + " back-reference, but the header disables them"));
        }
        if (index >= t.count) {
            return fail(make_error(errc::malformed, start,
                                   std::string(what) + " back-reference " + std::to_string(index) +
                                       " to one of " + std::to_string(t.count) + " seen"));
        }
        b_.add_string(t.items[index]);
        return {};
    }

    // A long `what` ("shared value" or "shared key") reference, its token t at start: the
    // two low bits of t and the next byte, at least `min` (smaller ones have the short form).
    result<void> long_shared_ref(shared_table& table, unsigned char t, std::size_t start,
                                 std::size_t min, const char* what) {
        if (left() < 1) {
            return fail(eof((std::string("the second byte of a ") + what + " reference").c_str()));
        }
        std::size_t index = (static_cast<std::size_t>(t & 3) << 8) | byte(pos_++);
        if (index < min) {
            return fail(make_error(errc::malformed, start,
                                   "long " + std::string(what) + " reference " +
                                       std::to_string(index) + " below " + std::to_string(min) +
                                       " (a short reference must be used)"));
        }
        return shared_ref(table, start, index, what);
    }

    result<void> read_value() {
        if (pos_ >= in_.size()) {
            return fail(
                make_error(errc::unexpected_eof, pos_, "expected a value, saw end of input"));
        }
        const std::size_t start = pos_;
        const unsigned char t = byte(pos_++);
        switch (t >> 5) {
            case 0:  // 0x01-0x1f: short shared value string reference
                if (t == 0) {
                    break;
                }
                return shared_ref(values_, start, t - 1u, "shared value");
            case 1:
                return read_literal_or_number(t, start);
            case 2:  // tiny and short ASCII: 1-32, 33-64 bytes
            case 3:
                return add_shared(
                    values_, read_counted(start, (t & 0x1f) + (t < 0x60 ? 1u : 33u), "string"));
            case 4:  // tiny and short Unicode: 2-33, 34-65 bytes
            case 5:
                return add_shared(
                    values_, read_counted(start, (t & 0x1f) + (t < 0xa0 ? 2u : 34u), "string"));
            case 6:  // 0xc0-0xdf: small integer, zigzag in 5 bits
                b_.add_int(unzigzag(t & 0x1f), int_width::bits32);  // Jackson's int
                return {};
            default:
                return read_misc(t, start);
        }
        return fail(
            make_error(errc::malformed, start, "expected a value token, saw " + byte_name(t)));
    }

    result<void> read_literal_or_number(unsigned char t, std::size_t start) {
        switch (t) {
            case 0x20:
                b_.add_string("");
                return {};
            case 0x21:
                b_.add_null();
                return {};
            case 0x22:
            case 0x23:
                b_.add_bool(t == 0x23);
                return {};
            case 0x24:    // int32
            case 0x25: {  // int64
                const bool wide = t == 0x25;
                auto v = wide ? read_vint(10, 64, "int64") : read_vint(5, 32, "int32");
                if (!v) {
                    return fail(v.error());
                }
                b_.add_int(unzigzag(*v), wide ? int_width::bits64 : int_width::bits32);
                return {};
            }
            case 0x26: {
                bool neg = false;
                std::string digits;
                POLYCODEC_TRY(read_big_integer(start, &neg, &digits));
                add_integer_digits(b_, neg, digits);
                return {};
            }
            case 0x28: {
                // 32 bits in 5 bytes. Jackson fills the 3 padding bits of a negative float
                // with ones (an arithmetic shift), so they are ignored.
                auto v = read_7bit_fixed(5, "float32");
                if (!v) {
                    return fail(v.error());
                }
                auto bits = static_cast<std::uint32_t>(*v);
                float f;
                std::memcpy(&f, &bits, 4);
                b_.add_double(static_cast<double>(f));
                return {};
            }
            case 0x29: {
                auto v = read_7bit_fixed(10, "float64");
                if (!v) {
                    return fail(v.error());
                }
                double d;
                std::uint64_t bits = *v;
                std::memcpy(&d, &bits, 8);
                b_.add_double(d);
                return {};
            }
            case 0x2a: {
                // BigDecimal: zigzag scale, then the unscaled value as a big integer; the value
                // is unscaled * 10^-scale: the decimal fraction [-scale, unscaled].
                auto scale = read_vint(5, 32, "BigDecimal scale");
                if (!scale) {
                    return fail(scale.error());
                }
                bool neg = false;
                std::string digits;
                POLYCODEC_TRY(read_big_integer(start, &neg, &digits));
                if (!b_.begin_tagged(decimal_fraction_tag, tag_space::cbor) || !b_.begin_array()) {
                    return container_limit(start);
                }
                b_.add_int(-unzigzag(*scale));
                add_integer_digits(b_, neg, digits);
                b_.end_array();
                return {};
            }
            default:
                return fail(make_error(errc::malformed, start,
                                       "expected a value token, saw the reserved " + byte_name(t)));
        }
    }

    result<void> read_misc(unsigned char t, std::size_t start) {
        switch (t) {
            case 0xe0:
            case 0xe4: {
                // Long text: not back-referencable (spec).
                auto s = read_terminated("string");
                if (!s) {
                    return fail(s.error());
                }
                b_.add_string(*s);
                return {};
            }
            case 0xe8: {
                auto n = read_vint(10, 64, "binary length");
                if (!n) {
                    return fail(n.error());
                }
                POLYCODEC_TRY(check_7bit(start, *n, "binary"));
                // Decoded straight into the document's payload buffer.
                auto len = static_cast<std::size_t>(*n);
                char* p = b_.begin_string(len);
                POLYCODEC_TRY(read_7bit(len, "binary", p));
                b_.end_string(p + len, kind::bytes);
                return {};
            }
            case 0xec:
            case 0xed:
            case 0xee:
            case 0xef:
                return long_shared_ref(values_, t, start, 31, "shared value");
            case 0xf8:
                return read_container(start, false);
            case 0xfa:
                return read_container(start, true);
            case 0xfd: {
                if (!raw_binary_) {
                    return fail(make_error(errc::malformed, start,
                                           "raw binary, but the header does not enable it"));
                }
                auto n = read_vint(10, 64, "raw binary length");
                if (!n) {
                    return fail(n.error());
                }
                if (*n > left()) {
                    return fail(too_long(start, *n, "raw binary"));
                }
                b_.add_bytes(in_.substr(pos_, static_cast<std::size_t>(*n)));
                pos_ += static_cast<std::size_t>(*n);
                return {};
            }
            case 0xff:
                return fail(make_error(errc::unexpected_eof, start,
                                       "expected a value, saw the end-of-content marker 0xff"));
            default:
                return fail(make_error(errc::malformed, start,
                                       "expected a value token, saw " + byte_name(t)));
        }
    }

    // An array (0xf8, values up to 0xf9) or an object (0xfa, key and value pairs up to 0xfb).
    result<void> read_container(std::size_t start, bool map) {
        if (!(map ? b_.begin_map() : b_.begin_array())) {
            return container_limit(start);
        }
        for (;;) {
            if (pos_ >= in_.size()) {
                return fail(eof(map ? "a key or the end of an object (0xfb)"
                                    : "a value or the end of an array (0xf9)"));
            }
            const std::size_t kstart = pos_;
            const unsigned char t = byte(pos_);
            if (t == (map ? 0xfb : 0xf9)) {
                ++pos_;
                break;
            }
            if (map) {
                ++pos_;
                POLYCODEC_TRY(read_key(t, kstart));
            }
            POLYCODEC_TRY(read_value());
        }
        if (!b_.ok()) {
            return container_limit(start);
        }
        if (map) {
            b_.end_map();
        } else {
            b_.end_array();
        }
        return {};
    }

    result<void> read_key(unsigned char t, std::size_t start) {
        if (t == 0x20) {
            b_.add_string("");
            return {};
        }
        if (t >= 0x30 && t <= 0x33) {
            return long_shared_ref(names_, t, start, 64, "shared key");
        }
        if (t == 0x34) {
            return add_shared(names_, read_terminated("key"));
        }
        if (t >= 0x40 && t <= 0x7f) {
            return shared_ref(names_, start, t & 0x3fu, "shared key");
        }
        if (t >= 0x80 && t <= 0xf7) {
            // Short ASCII names of 1-64 bytes, short Unicode names of 2-57 bytes.
            std::size_t n = t < 0xc0 ? (t & 0x3fu) + 1 : (t & 0x3fu) + 2;
            return add_shared(names_, read_counted(start, n, "key"));
        }
        return fail(
            make_error(errc::malformed, start,
                       "expected a key or the end of an object (0xfb), saw " + byte_name(t)));
    }

    std::string_view in_;
    builder& b_;
    std::size_t pos_ = 0;
    shared_table names_;
    shared_table values_;
    bool raw_binary_ = false;
};

// ---- fast path ----
//
// One loop that writes the tape and the payload bytes directly (detail::tape_writer) instead
// of going through the builder per element: every token of plain JSON-like data (literals,
// small, int32 and int64 integers, floats, strings of every length, key and value
// back-references, arrays and objects). It takes valid input within the limits only: on
// anything else (an error, a limit, nesting past 64, big numbers, binary) it returns false,
// and decode_smile resets the builder and runs smile_reader above, which decides and words
// every error exactly as before. On success the tape is the one smile_reader builds.

constexpr std::size_t fast_max_frames = 64;  // deeper input takes smile_reader
using fast_writer = tape_writer<256, 2048, false>;

// An open container of the fast path; frames[0] is the top level (one value, never closed).
struct smile_frame {
    std::size_t start = 0;    // tape index of the header
    std::uint64_t count = 0;  // values of an array, entries of an object, read so far
    bool map = false;
    bool key_next = false;  // an object whose next token is a key or its end
};

// smile_reader::read_vint for valid input: false where it reports an error.
template <int MaxBytes, int MaxBits>
[[gnu::always_inline]] inline bool fast_vint(const unsigned char* p, std::size_t size,
                                             std::size_t& pos, std::uint64_t& out) noexcept {
    std::uint64_t v = 0;
    for (int i = 0;; ++i) {
        if (pos >= size || i == MaxBytes) {
            return false;
        }
        const unsigned c = p[pos++];
        if ((c & 0x80) != 0) {
            if ((c & 0x40) != 0 || (v >> 58) != 0) {
                return false;
            }
            v = (v << 6) | (c & 0x3f);
            break;
        }
        if ((v >> 57) != 0) {
            return false;
        }
        v = (v << 7) | c;
    }
    if (MaxBits < 64 && (v >> (MaxBits % 64)) != 0) {
        return false;
    }
    out = v;
    return true;
}

// An int32 (0x24: up to 5 bytes, 32 bits) or int64 (0x25: up to 10, 64 bits) token's zigzag
// VInt as its two tape words at w (with the width); false where the reader reports an error.
template <int MaxBytes, int MaxBits>
[[gnu::always_inline]] inline bool fast_zigzag(fast_writer& tw, std::uint64_t* w,
                                               const unsigned char* p, std::size_t size,
                                               std::size_t& pos) noexcept {
    std::uint64_t v = 0;
    if (!fast_vint<MaxBytes, MaxBits>(p, size, pos, v)) {
        return false;
    }
    const int_width width = MaxBits == 32 ? int_width::bits32 : int_width::bits64;
    w[0] = tape_word(kind::int64, static_cast<std::uint64_t>(width), 0);
    w[1] = static_cast<std::uint64_t>(unzigzag(v));
    tw.advance(2);
    return true;
}

// n 7-bit bytes of a float, right-aligned (smile_reader::read_7bit_fixed).
template <int N>
[[gnu::always_inline]] inline bool fast_7bit_fixed(const unsigned char* p, std::size_t size,
                                                   std::size_t& pos, std::uint64_t& out) noexcept {
    if (size - pos < static_cast<std::size_t>(N)) {
        return false;
    }
    std::uint64_t v = 0;
    for (int i = 0; i < N; ++i) {
        const unsigned c = p[pos + i];
        if (c > 0x7f) {
            return false;
        }
        v = (v << 7) | c;
    }
    pos += N;
    out = v;
    return true;
}

// The shared-string tables of the fast path: slices of the input (shared_table's rules).
struct fast_shared {
    std::string_view items[max_shared];
    std::size_t count = 0;
    bool enabled = false;
    void add(const unsigned char* s, std::size_t n) noexcept {
        if (!enabled) {
            return;
        }
        if (count == max_shared) {
            count = 0;
        }
        items[count++] = {reinterpret_cast<const char*>(s), n};
    }
    /// The entry of a long reference (token t, then the byte at pos), at least `min`
    /// (smile_reader::long_shared_ref); null where that reports an error.
    const std::string_view* long_ref(unsigned t, const unsigned char* p, std::size_t size,
                                     std::size_t& pos, std::size_t min) const noexcept {
        if (pos >= size) {
            return nullptr;
        }
        const std::size_t index = (static_cast<std::size_t>(t & 3) << 8) | p[pos++];
        return index < min || !enabled || index >= count ? nullptr : &items[index];
    }
};

// Text up to the end-of-string marker 0xfc (long strings and names), checked as UTF-8 and
// copied to the payload; n is its length.
inline bool long_text(fast_writer& tw, std::uint64_t* w, const unsigned char* p, std::size_t size,
                      std::size_t& pos, std::size_t& n) {
    const void* end = std::memchr(p + pos, end_of_string, size - pos);
    if (end == nullptr) {
        return false;
    }
    n = static_cast<std::size_t>(static_cast<const unsigned char*>(end) - (p + pos));
    const std::string_view s(reinterpret_cast<const char*>(p + pos), n);
    if (utf8_valid_prefix(s) != n) {
        return false;
    }
    std::memcpy(tw.bytes(n), s.data(), n);
    tw.payload(w, kind::string, 0, n);
    pos += n + 1;
    return true;
}

bool decode_smile_fast(std::string_view in, builder& b) {
    const auto [p, size, max_depth, max_bytes] = fast_input_of(in, b, fast_max_frames);
    std::size_t pos = 0;
    fast_shared names;
    fast_shared values;
    names.enabled = true;
    if (size != 0 && p[0] == ':') {
        if (size < 4 || p[1] != ')' || p[2] != '\n' || (p[3] >> 4) != 0) {
            return false;
        }
        names.enabled = (p[3] & header_flag_shared_names) != 0;
        values.enabled = (p[3] & header_flag_shared_values) != 0;
        pos = 4;
    }
    fast_writer tw(b);
    smile_frame frames[fast_max_frames + 1];
    smile_frame* top = frames;
    std::uint64_t v = 0;
    std::size_t n = 0;
    const std::string_view* ref = nullptr;

    for (;;) {
        if (pos >= size) {
            return false;
        }
        std::uint64_t* w = tw.words(4);
        const unsigned t = p[pos++];
        if (top->key_next) {
            if (t >= 0x80 && t <= 0xf7) {  // short ASCII (1-64) and Unicode (2-57) names
                n = t < 0xc0 ? (t & 0x3fu) + 1 : (t & 0x3fu) + 2;
                if (!fast_text(tw, w, p + pos, size - pos, n)) {
                    return false;
                }
                names.add(p + pos, n);
                pos += n;
            } else if (t >= 0x40 && t <= 0x7f) {
                const std::size_t index = t & 0x3fu;
                if (!names.enabled || index >= names.count) {
                    return false;
                }
                ref = &names.items[index];
                goto copy_ref;
            } else if (t == 0xfb) {
                tw.close(top->start, top->count);
                --top;
                goto done;
            } else if (t == 0x20) {
                tw.payload(w, kind::string, 0, 0);
            } else if (t >= 0x30 && t <= 0x33) {
                ref = names.long_ref(t, p, size, pos, 64);
                if (ref == nullptr) {
                    return false;
                }
                goto copy_ref;
            } else if (t == 0x34) {
                const unsigned char* s = p + pos;
                if (!long_text(tw, w, p, size, pos, n)) {
                    return false;
                }
                names.add(s, n);
            } else {
                return false;
            }
            top->key_next = false;
            continue;
        }
        switch (t >> 5) {
            case 0:  // 0x01-0x1f: short shared value reference
                if (t == 0 || !values.enabled || t - 1u >= values.count) {
                    return false;
                }
                ref = &values.items[t - 1u];
                goto copy_ref;
            case 2:  // tiny and short ASCII: 1-32, 33-64 bytes
            case 3:
                n = (t & 0x1f) + (t < 0x60 ? 1u : 33u);
                goto text;
            case 4:  // tiny and short Unicode: 2-33, 34-65 bytes
            case 5:
                n = (t & 0x1f) + (t < 0xa0 ? 2u : 34u);
                goto text;
            case 6:  // small integer, zigzag in 5 bits: Jackson's int
                w[0] = tape_word(kind::int64, static_cast<std::uint64_t>(int_width::bits32), 0);
                w[1] = static_cast<std::uint64_t>(unzigzag(t & 0x1f));
                tw.advance(2);
                goto done;
            default:
                break;
        }
        switch (t) {
            case 0x20:
                tw.payload(w, kind::string, 0, 0);
                break;
            case 0x21:                                                // null
            case 0x22:                                                // false
            case 0x23:                                                // true
                w[0] = tape_word(static_cast<kind>(t - 0x20), 0, 0);  // kind::null .. boolean_true
                tw.advance(1);
                break;
            case 0x24:
                if (!fast_zigzag<5, 32>(tw, w, p, size, pos)) {
                    return false;
                }
                break;
            case 0x25:
                if (!fast_zigzag<10, 64>(tw, w, p, size, pos)) {
                    return false;
                }
                break;
            case 0x28: {
                if (!fast_7bit_fixed<5>(p, size, pos, v)) {
                    return false;
                }
                const auto bits = static_cast<std::uint32_t>(v);
                float f;
                std::memcpy(&f, &bits, 4);
                fast_writer::scalar(w, kind::float64,
                                    std::bit_cast<std::uint64_t>(static_cast<double>(f)));
                tw.advance(2);
                break;
            }
            case 0x29:
                if (!fast_7bit_fixed<10>(p, size, pos, v)) {
                    return false;
                }
                fast_writer::scalar(w, kind::float64, v);
                tw.advance(2);
                break;
            case 0xe0:
            case 0xe4:  // long text: not back-referencable
                if (!long_text(tw, w, p, size, pos, n)) {
                    return false;
                }
                break;
            case 0xec:
            case 0xed:
            case 0xee:
            case 0xef:
                ref = values.long_ref(t, p, size, pos, 31);
                if (ref == nullptr) {
                    return false;
                }
                goto copy_ref;
            case 0xf8:
            case 0xfa:
                if (static_cast<std::size_t>(top - frames) >= max_depth ||
                    tw.over_budget(max_bytes)) {
                    return false;
                }
                *++top = {tw.size(), 0, t == 0xfa, t == 0xfa};
                tw.open(w, t == 0xfa ? kind::map : kind::array, 0);
                continue;
            case 0xf9:
                if (top == frames || top->map) {
                    return false;
                }
                tw.close(top->start, top->count);
                --top;
                break;
            default:  // big numbers, binary, reserved tokens, errors: smile_reader
                return false;
        }
        goto done;

    text:
        if (!fast_text(tw, w, p + pos, size - pos, n)) {
            return false;
        }
        values.add(p + pos, n);
        pos += n;
        goto done;

    copy_ref:  // a back-reference: a copy of the string (long names too, so within the budget)
        std::memcpy(tw.bytes(ref->size()), ref->data(), ref->size());
        tw.payload(w, kind::string, 0, ref->size());
        if (tw.over_budget(max_bytes)) {
            return false;
        }
        if (top->key_next) {
            top->key_next = false;
            continue;
        }

    done:
        if (top == frames) {
            break;
        }
        ++top->count;
        top->key_next = top->map;
    }
    if (pos < size && p[pos] == 0xff) {
        ++pos;  // the optional end-of-content marker
    }
    return fast_finish(tw, pos, size, max_bytes);
}

result<void> decode_smile(std::string_view in, builder& b, const decode_options&) {
    // The back-reference tables (32 KiB) live in the reader, on the stack: no allocation.
    return fast_or_read(
        b, true, [&] { return decode_smile_fast(in, b); },
        [&] { return smile_reader(in, b).run(); });
}

// ---- writer ----

// The writers below put an element at o and return its end; `o` must have room for it (the
// tape walk keeps at least `slack` bytes free before each element and reserves more for
// longer strings).
constexpr std::size_t slack = 80;  // a short string of 64 bytes and its token, an int64, a float64

// Unsigned VInt: 7-bit groups big-endian, the last with bit 7 set and 6 bits (at most 10 bytes).
inline char* vint_at(char* o, std::uint64_t v) noexcept {
    if (v < (1u << 13)) {  // 1 or 2 bytes: the common small integers and lengths
        if (v < 64) {
            *o = static_cast<char>(0x80 | v);
            return o + 1;
        }
        o[0] = static_cast<char>(v >> 6);
        o[1] = static_cast<char>(0x80 | (v & 0x3f));
        return o + 2;
    }
    std::size_t n = 1;
    for (std::uint64_t r = v >> 6; r != 0; r >>= 7) {
        ++n;
    }
    char* e = o + n;
    e[-1] = static_cast<char>(0x80 | (v & 0x3f));
    v >>= 6;
    for (char* q = e - 2; q >= o; --q) {
        *q = static_cast<char>(v & 0x7f);
        v >>= 7;
    }
    return e;
}

inline std::uint64_t zigzag(std::int64_t v) noexcept {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

inline char* int_at(char* o, std::int64_t v) noexcept {
    const std::uint64_t z = zigzag(v);
    if (z < 32) {  // -16 to 15
        *o = static_cast<char>(0xc0 | z);
        return o + 1;
    }
    if (z < (1u << 13)) {  // a 32-bit integer of a one- or two-byte VInt, the common ones
        o[0] = 0x24;
        return vint_at(o + 1, z);
    }
    *o = v >= INT32_MIN && v <= INT32_MAX ? 0x24 : 0x25;
    return vint_at(o + 1, z);
}

// The low 35 bits of x as five 7-bit groups, most significant first, in the first five bytes
// of the 8 stored at o (little-endian hosts).
inline void groups7x5_at(char* o, std::uint64_t x) noexcept {
    const std::uint64_t spread = (x & 0x7f) | ((x & (0x7fULL << 7)) << 1) |
                                 ((x & (0x7fULL << 14)) << 2) | ((x & (0x7fULL << 21)) << 3) |
                                 ((x & (0x7fULL << 28)) << 4);
    const std::uint64_t r = __builtin_bswap64(spread) >> 24;
    std::memcpy(o, &r, 8);
}

// The one-byte literals, integers and doubles for detail::fixed_scalar_at.
struct smile_scalars {
    static constexpr unsigned char null_byte = 0x21;
    static constexpr unsigned char false_byte = 0x22;
    static constexpr unsigned char true_byte = 0x23;
    static char* int64_at(char* o, std::int64_t v) noexcept { return int_at(o, v); }
    // 0x29 and the 64 bits in ten 7-bit groups, most significant first.
    static char* float64_at(char* o, std::uint64_t bits) noexcept {
        o[0] = 0x29;
        if constexpr (std::endian::native == std::endian::little) {
            groups7x5_at(o + 1, bits >> 35);  // 8 bytes written; the last 3 are overwritten
            groups7x5_at(o + 6, bits & ((std::uint64_t{1} << 35) - 1));
        } else {
            for (int j = 0; j < 10; ++j) {
                o[1 + j] = static_cast<char>((bits >> (7 * (9 - j))) & 0x7f);
            }
        }
        return o + 11;
    }
};

inline bool is_ascii(std::string_view s) noexcept {
    const auto word = [](std::uint64_t x) { return x; };
    return (word_scan::fold(s.data(), s.size(), word) & word_scan::high) == 0;
}

// The smallest form, as Jackson writes it: tiny/short ASCII or Unicode up to 64 bytes, else
// long text ended by 0xfc. Room for s.size() + 2 bytes.
inline char* string_at(char* o, std::string_view s) noexcept {
    const std::size_t n = s.size();
    if (n == 0) {
        *o = 0x20;
        return o + 1;
    }
    const bool ascii = is_ascii(s);
    if (n <= 64) {
        if (ascii) {
            *o = static_cast<char>(n <= 32 ? 0x40 + n - 1 : 0x60 + n - 33);
        } else {
            *o = static_cast<char>(n <= 33 ? 0x80 + n - 2 : 0xa0 + n - 34);
        }
        std::memcpy(o + 1, s.data(), n);
        return o + 1 + n;
    }
    *o = static_cast<char>(ascii ? 0xe0 : 0xe4);
    std::memcpy(o + 1, s.data(), n);
    o[1 + n] = static_cast<char>(end_of_string);
    return o + 2 + n;
}

class smile_writer {
public:
    smile_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    // Header: version 0, shared key names on (Jackson's default); shared string values and
    // raw binary off. Then one walk over the tape front to back: the tape lists the elements
    // in the order Smile writes them, so a container needs only its end index (to write its
    // end marker) and, for an object, whether a key comes next. The common elements are
    // written through the cursor; the rare ones (big numbers, binary, decimals, tags, keys
    // that are not strings) commit it and write through out_.
    result<void> run(value root) {
        const document& doc = *root.doc();
        const auto [t, payload, payload_size] = tape_view_of(doc);
        std::size_t i = root.index();
        const std::size_t end = root.end_index();
        std::vector<frame>& storage = thread_frames();
        frame* frames = storage.data();  // the open containers: frames[0 .. sp)
        std::size_t sp = 0;
        // The innermost open container (the root's place at first), kept in locals; the
        // frames hold those of the containers around it.
        std::size_t cur_end = end;
        bool cur_map = false;
        bool key_next = false;  // in an object, keys and values alternate
        out_cursor<slack> c(out_);
        char*& o = c.o;
        std::memcpy(o, ":)\n", 3);
        o[3] = static_cast<char>(header_flag_shared_names);
        o += 4;
        for (;;) {
            while (i == cur_end) {
                if (sp == 0) {
                    c.release();
                    return {};
                }
                c.room();
                *o++ = static_cast<char>(cur_map ? 0xfb : 0xf9);
                --sp;
                cur_end = frames[sp].end;
                cur_map = frames[sp].map;
                key_next = frames[sp].key_next;
            }
            c.room();
            const bool key = key_next;
            key_next = cur_map && !key;
            std::uint64_t w = t[i];
            auto k = static_cast<kind>(w >> document::kind_shift);
            if (key) {
                if (k == kind::string || k == kind::timestamp) [[likely]] {
                    const std::string_view s(payload + (w & document::payload_mask), t[i + 1]);
                    if (s.size() > slack - 3) {  // room() left slack bytes free
                        c.reserve(s.size() + 3);
                    }
                    o = name_at(o, s);
                    i += 2;
                    continue;
                }
                POLYCODEC_TRY_ASSIGN(next_key, through_out(c, doc, i, true));
                i = next_key;
                continue;
            }
            // A dropped tag writes its inner value in its place (or refuses).
            while (k == kind::tagged) {
                value v(&doc, i);
                if (is_decimal_fraction(v)) {
                    break;
                }
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    c.release();
                    return fail(unrepresentable(
                        v, "tag " + std::to_string(v.tag()) + " is not representable in smile"));
                }
                i += 2;
                w = t[i];
                k = static_cast<kind>(w >> document::kind_shift);
            }
            if (k == kind::int64 && !cur_map) {
                // A run of integers in an array (a numeric array): written without the key and
                // kind dispatch of the walk, seven (at most 11 bytes each) to a room check.
                static_assert(7 * 11 <= slack);
                for (int left = 7;; --left) {
                    if (left == 0) {
                        c.room();
                        left = 7;
                    }
                    o = int_at(o, static_cast<std::int64_t>(t[i + 1]));
                    i += 2;
                    if (i == cur_end ||
                        (t[i] >> document::kind_shift) != static_cast<std::uint64_t>(kind::int64)) {
                        break;
                    }
                }
                continue;
            }
            if (fixed_scalar_at<smile_scalars>(o, k, t, i)) {
                continue;
            }
            switch (k) {
                case kind::string:
                case kind::timestamp: {
                    const std::uint64_t off = w & document::payload_mask;
                    const std::uint64_t n = t[i + 1];
                    if (n - 1 < 32 && off + 32 <= payload_size) {
                        // 1-32 bytes: one 32-byte copy that also says whether they are ASCII
                        // (the bytes past n are overwritten by what follows); Unicode text
                        // has at least 2 bytes.
                        const bool ascii = copy32_ascii(
                            o + 1, reinterpret_cast<const unsigned char*>(payload + off), n);
                        *o = static_cast<char>(ascii ? 0x40 + n - 1 : 0x80 + n - 2);
                        o += 1 + n;
                        i += 2;
                        continue;
                    }
                    const std::string_view s(payload + off, n);
                    c.reserve(s.size() + 2);
                    o = string_at(o, s);
                    i += 2;
                    continue;
                }
                case kind::array:
                case kind::map:
                    *o++ = static_cast<char>(k == kind::map ? 0xfa : 0xf8);
                    if (sp == storage.size()) {
                        storage.resize(2 * sp);
                        frames = storage.data();
                    }
                    frames[sp++] = {cur_end, cur_map, key_next};
                    cur_end = w & document::payload_mask;
                    cur_map = k == kind::map;
                    key_next = cur_map;
                    i += 2;
                    continue;
                default:
                    break;
            }
            POLYCODEC_TRY_ASSIGN(next, through_out(c, doc, i, false));
            i = next;
        }
    }

private:
    // The element at tape index i written through out_ (the rare ones: big numbers, binary,
    // decimals, keys that are not strings), the cursor committed around it: the index past it.
    [[gnu::noinline]] result<std::size_t> through_out(out_cursor<slack>& c, const document& doc,
                                                      std::size_t i, bool key) {
        value v(&doc, i);
        c.release();
        POLYCODEC_TRY(key ? write_key(v) : write_rare(v));
        c.acquire();
        return v.end_index();
    }

    struct frame {
        std::size_t end;  // the container's end index
        bool map;
        bool key_next;  // (the state of an enclosing container while an inner one is open)
    };
    static std::vector<frame>& thread_frames() {
        thread_local std::vector<frame> frames(64);
        return frames;
    }

    // uint64, bignum, bytes, a decimal fraction: written through out_.
    result<void> write_rare(value v) {
        switch (v.kind()) {
            case kind::uint64:
            case kind::bignum:
                out_.push_back(0x26);
                return write_big_integer(v);
            case kind::bytes: {
                std::string_view s = v.get_string();
                out_.push_back(static_cast<char>(0xe8));
                write_vint(s.size());
                write_7bit(s);
                return {};
            }
            default:
                return write_big_decimal(v);
        }
    }

    void write_vint(std::uint64_t v) {
        char* p = out_.prepare(10);
        out_.commit(static_cast<std::size_t>(vint_at(p, v) - p));
    }

    // The 7-bit "safe" encoding (see smile_reader::read_7bit).
    void write_7bit(std::string_view s) {
        std::size_t i = 0;
        char* p = out_.prepare(s.size() / 7 * 8 + 8);
        std::size_t o = 0;
        while (i < s.size()) {
            std::size_t k = s.size() - i < 7 ? s.size() - i : 7;
            std::uint64_t v = 0;
            for (std::size_t j = 0; j < k; ++j) {
                v = (v << 8) | static_cast<unsigned char>(s[i + j]);
            }
            for (std::size_t j = 0; j < k; ++j) {
                p[o++] = static_cast<char>((v >> (8 * k - 7 * (j + 1))) & 0x7f);
            }
            p[o++] = static_cast<char>(v & ((1u << k) - 1));
            i += k;
        }
        out_.commit(o);
    }

    // Java BigInteger.toByteArray: minimal two's complement, big-endian.
    static std::string twos_complement(bool neg, std::string_view digits) {
        bigint_limbs a = bigint_from_decimal(digits);
        if (neg) {
            bigint_sub_one(a);  // -m is the complement of m - 1
        }
        std::string b = bigint_to_bytes(a);
        if (neg) {
            for (char& c : b) {
                c = static_cast<char>(~static_cast<unsigned char>(c));
            }
        }
        // A sign byte first when the top bit of the first does not give the sign.
        if (b.empty() || ((static_cast<unsigned char>(b[0]) & 0x80) != 0) != neg) {
            b.insert(b.begin(), neg ? static_cast<char>(0xff) : '\0');
        }
        return b;
    }

    void write_big_bytes(std::string_view text) {
        bool neg = !text.empty() && text[0] == '-';
        std::string b = twos_complement(neg, neg ? text.substr(1) : text);
        write_vint(b.size());
        write_7bit(b);
    }

    result<void> write_big_integer(value v) {
        std::string text = integer_text(v);
        std::string_view digits = text;
        if (!digits.empty() && digits[0] == '-') {
            digits.remove_prefix(1);
        }
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
            return fail(unrepresentable(v, "bignum text \"" + text + "\" is not an integer"));
        }
        write_big_bytes(text);
        return {};
    }

    result<void> write_big_decimal(value v) {
        value a = v.tagged_value();
        auto it = a.items().begin();
        std::int64_t exp = (*it).get_int();
        value m = *++it;
        if (exp > -static_cast<std::int64_t>(INT32_MIN) ||
            exp < -static_cast<std::int64_t>(INT32_MAX)) {
            if (!allow_lossy(opt_, v, "decimal_to_string", "decimal written as its text")) {
                return fail(unrepresentable(v, "decimal exponent " + std::to_string(exp) +
                                                   " is outside the int32 scale of smile"));
            }
            std::string text = decimal_fraction_text(v);
            char* p = out_.prepare(text.size() + 2);
            out_.commit(static_cast<std::size_t>(string_at(p, text) - p));
            return {};
        }
        std::string text = integer_text(m);
        out_.push_back(0x2a);
        write_vint(zigzag(-exp));
        write_big_bytes(text);
        return {};
    }

    // A key that is not a string (the rare path, through out_).
    result<void> write_key(value k) {
        switch (k.kind()) {
            case kind::int64:
            case kind::uint64:
            case kind::bignum:
                // Integer keys become their decimal text (DESIGN section 3: not lossy). The
                // text is kept for back-references while the document is written.
                key_text_.emplace_front(integer_text(k));
                break;
            default: {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "smile"));
                key_text_.emplace_front(std::move(text));
                break;
            }
        }
        const std::string& s = key_text_.front();
        char* p = out_.prepare(s.size() + 3);
        out_.commit(static_cast<std::size_t>(name_at(p, s) - p));
        return {};
    }

    // ---- shared key names: an open-addressing table of the last <= 1024 names ----

    // a[0..n) == b[0..n) for n from sizeof(Word) to twice that: the first and the last Word
    // of each (overlapping).
    template <class Word>
    [[gnu::always_inline]] static bool same_ends(const char* a, const char* b,
                                                 std::size_t n) noexcept {
        Word a0, a1, b0, b1;
        std::memcpy(&a0, a, sizeof(Word));
        std::memcpy(&b0, b, sizeof(Word));
        std::memcpy(&a1, a + n - sizeof(Word), sizeof(Word));
        std::memcpy(&b1, b + n - sizeof(Word), sizeof(Word));
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }

    // a[0..n) == b[0..n), short names without a call (overlapping loads inside both).
    static bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
        if (n >= 8 && n <= 16) {
            return same_ends<std::uint64_t>(a, b, n);
        }
        if (n >= 4 && n < 8) {
            return same_ends<std::uint32_t>(a, b, n);
        }
        if (n < 4) {  // 1 to 3 bytes: the first, middle and last are all of them
            return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
        }
        return std::memcmp(a, b, n) == 0;
    }

    // Of the length and the first and last 4 bytes (the table compares whole names, so the
    // hash only spreads them).
    static std::size_t hash(std::string_view s) noexcept {
        const std::size_t n = s.size();
        std::uint64_t h;
        if (n >= 4) {
            std::uint32_t a, b;
            std::memcpy(&a, s.data(), 4);
            std::memcpy(&b, s.data() + n - 4, 4);
            h = a | (std::uint64_t{b} << 32);
        } else {
            h = static_cast<unsigned char>(s[0]) |
                (std::uint64_t{static_cast<unsigned char>(s[n / 2])} << 8) |
                (std::uint64_t{static_cast<unsigned char>(s[n - 1])} << 16);
        }
        h = (h ^ (n * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
        return static_cast<std::size_t>(h >> 40);
    }

    // A key name or its back-reference; room for s.size() + 3 bytes. The back-reference (the
    // common case) inline in the tape walk, a new name out of line.
    [[gnu::always_inline]] char* name_at(char* o, std::string_view s) {
        if (s.empty()) {
            *o = 0x20;
            return o + 1;
        }
        std::size_t slot = hash(s) & (slot_count - 1);
        while (slots_[slot] != 0) {
            std::size_t index = slots_[slot] - 1u;
            if (names_[index].n == s.size() && same_bytes(names_[index].p, s.data(), s.size())) {
                if (index < 64) {
                    *o = static_cast<char>(0x40 | index);
                    return o + 1;
                }
                o[0] = static_cast<char>(0x30 | (index >> 8));
                o[1] = static_cast<char>(index & 0xff);
                return o + 2;
            }
            slot = (slot + 1) & (slot_count - 1);
        }
        return new_name_at(o, s, slot);
    }

    // A name not in the table (its free slot `slot`): written out and remembered.
    [[gnu::noinline]] char* new_name_at(char* o, std::string_view s, std::size_t slot) {
        const std::size_t n = s.size();
        const bool ascii = is_ascii(s);
        if (ascii && n <= 64) {
            *o = static_cast<char>(0x80 + n - 1);
            std::memcpy(o + 1, s.data(), n);
            o += 1 + n;
        } else if (!ascii && n <= 56) {
            *o = static_cast<char>(0xc0 + n - 2);
            std::memcpy(o + 1, s.data(), n);
            o += 1 + n;
        } else {
            *o = 0x34;
            std::memcpy(o + 1, s.data(), n);
            o[1 + n] = static_cast<char>(end_of_string);
            o += 2 + n;
        }
        // Every non-empty name is remembered, long ones too (Jackson's SmileGenerator).
        if (name_count_ == max_shared) {
            slots_.fill(0);
            name_count_ = 0;
            slot = hash(s) & (slot_count - 1);
        }
        names_[name_count_] = {s.data(), s.size()};
        slots_[slot] = static_cast<std::uint16_t>(++name_count_);
        return o;
    }

    static constexpr std::size_t slot_count = 2048;

    output_buffer& out_;
    const encode_options& opt_;
    // The names by index; only those below name_count_ are read (not initialised: 16 KiB).
    struct name_ref {
        const char* p;
        std::size_t n;
    };
    name_ref names_[max_shared];
    std::array<std::uint16_t, slot_count> slots_{};
    std::size_t name_count_ = 0;
    // Texts of non-string keys, kept (stable addresses) while names may refer to them; a
    // forward_list allocates nothing until used.
    std::forward_list<std::string> key_text_;
};

}  // namespace

const codec_functions smile_codec{decode_smile, encode_with<smile_writer, &smile_writer::run>};

}  // namespace polycodec::detail
