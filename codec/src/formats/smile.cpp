// Smile (https://github.com/FasterXML/smile-format-specification, version 1.0.4), Jackson's
// binary JSON: every token of value and key mode, shared name and value back-references,
// 7-bit and raw binary, BigInteger and BigDecimal. Where the specification is loose, the
// choices follow Jackson's SmileParser and SmileGenerator (see docs/formats/smile.md).
#include <array>
#include <cstring>
#include <forward_list>
#include <string>

#include "detail/bigint_text.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/decimal.hpp"
#include "detail/try.hpp"
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
    result<void> container_limit(std::size_t start) {
        return fail(limit_error(b_, start));
    }

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

    static std::int64_t unzigzag(std::uint64_t v) noexcept {
        return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
    }

    // n fixed 7-bit bytes of a float, right-aligned.
    result<std::uint64_t> read_7bit_fixed(int n, const char* what) {
        if (left() < static_cast<std::size_t>(n)) {
            return fail(eof(what));
        }
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) {
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
            case 3: {
                std::size_t n = (t & 0x1f) + (t < 0x60 ? 1u : 33u);
                auto s = read_counted(start, n, "string");
                if (!s) {
                    return fail(s.error());
                }
                values_.add(*s);
                b_.add_string(*s);
                return {};
            }
            case 4:  // tiny and short Unicode: 2-33, 34-65 bytes
            case 5: {
                std::size_t n = (t & 0x1f) + (t < 0xa0 ? 2u : 34u);
                auto s = read_counted(start, n, "string");
                if (!s) {
                    return fail(s.error());
                }
                values_.add(*s);
                b_.add_string(*s);
                return {};
            }
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
            case 0x24: {
                auto v = read_vint(5, 32, "int32");
                if (!v) {
                    return fail(v.error());
                }
                b_.add_int(unzigzag(*v), int_width::bits32);
                return {};
            }
            case 0x25: {
                auto v = read_vint(10, 64, "int64");
                if (!v) {
                    return fail(v.error());
                }
                b_.add_int(unzigzag(*v), int_width::bits64);
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
            case 0xef: {
                if (left() < 1) {
                    return fail(eof("the second byte of a shared value reference"));
                }
                std::size_t index = (static_cast<std::size_t>(t & 3) << 8) | byte(pos_++);
                if (index < 31) {
                    return fail(make_error(errc::malformed, start,
                                           "long shared value reference " + std::to_string(index) +
                                               " below 31 (a short reference must be used)"));
                }
                return shared_ref(values_, start, index, "shared value");
            }
            case 0xf8:
                return read_array(start);
            case 0xfa:
                return read_object(start);
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

    result<void> read_array(std::size_t start) {
        if (!b_.begin_array()) {
            return container_limit(start);
        }
        for (;;) {
            if (pos_ >= in_.size()) {
                return fail(eof("a value or the end of an array (0xf9)"));
            }
            if (byte(pos_) == 0xf9) {
                ++pos_;
                break;
            }
            POLYCODEC_TRY(read_value());
        }
        if (!b_.ok()) {
            return container_limit(start);
        }
        b_.end_array();
        return {};
    }

    result<void> read_object(std::size_t start) {
        if (!b_.begin_map()) {
            return container_limit(start);
        }
        for (;;) {
            if (pos_ >= in_.size()) {
                return fail(eof("a key or the end of an object (0xfb)"));
            }
            const std::size_t kstart = pos_;
            const unsigned char t = byte(pos_++);
            if (t == 0xfb) {
                break;
            }
            POLYCODEC_TRY(read_key(t, kstart));
            POLYCODEC_TRY(read_value());
        }
        if (!b_.ok()) {
            return container_limit(start);
        }
        b_.end_map();
        return {};
    }

    result<void> read_key(unsigned char t, std::size_t start) {
        if (t == 0x20) {
            b_.add_string("");
            return {};
        }
        if (t >= 0x30 && t <= 0x33) {
            if (left() < 1) {
                return fail(eof("the second byte of a shared key reference"));
            }
            std::size_t index = (static_cast<std::size_t>(t & 3) << 8) | byte(pos_++);
            if (index < 64) {
                return fail(make_error(errc::malformed, start,
                                       "long shared key reference " + std::to_string(index) +
                                           " below 64 (a short reference must be used)"));
            }
            return shared_ref(names_, start, index, "shared key");
        }
        if (t == 0x34) {
            auto s = read_terminated("key");
            if (!s) {
                return fail(s.error());
            }
            names_.add(*s);
            b_.add_string(*s);
            return {};
        }
        if (t >= 0x40 && t <= 0x7f) {
            return shared_ref(names_, start, t & 0x3fu, "shared key");
        }
        if (t >= 0x80 && t <= 0xf7) {
            // Short ASCII names of 1-64 bytes, short Unicode names of 2-57 bytes.
            std::size_t n = t < 0xc0 ? (t & 0x3fu) + 1 : (t & 0x3fu) + 2;
            auto s = read_counted(start, n, "key");
            if (!s) {
                return fail(s.error());
            }
            names_.add(*s);
            b_.add_string(*s);
            return {};
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

result<void> decode_smile(std::string_view in, builder& b, const decode_options&) {
    // The back-reference tables (32 KiB) live in the reader, on the stack: no allocation.
    smile_reader r(in, b);
    return r.run();
}

// ---- writer ----

class smile_writer {
public:
    smile_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    result<void> run(value root) {
        // Header: version 0, shared key names on (Jackson's default); shared string values
        // and raw binary off.
        out_.append(":)\n", 3);
        out_.push_back(static_cast<char>(header_flag_shared_names));
        return write(root);
    }

private:
    result<void> write(value v) {
        switch (v.kind()) {
            case kind::null:
                out_.push_back(0x21);
                return {};
            case kind::boolean_false:
                out_.push_back(0x22);
                return {};
            case kind::boolean_true:
                out_.push_back(0x23);
                return {};
            case kind::int64:
                write_int(v.get_int());
                return {};
            case kind::uint64:
            case kind::bignum:
                out_.push_back(0x26);
                return write_big_integer(v);
            case kind::float64: {
                double d = v.get_double();
                std::uint64_t bits;
                std::memcpy(&bits, &d, 8);
                out_.push_back(0x29);
                char* p = out_.prepare(10);
                for (int i = 0; i < 10; ++i) {
                    p[i] = static_cast<char>((bits >> (7 * (9 - i))) & 0x7f);
                }
                out_.commit(10);
                return {};
            }
            case kind::string:
            case kind::timestamp:
                write_string(v.get_string());
                return {};
            case kind::bytes: {
                std::string_view s = v.get_string();
                out_.push_back(static_cast<char>(0xe8));
                write_vint(s.size());
                write_7bit(s);
                return {};
            }
            case kind::tagged:
                if (is_decimal_fraction(v)) {
                    return write_big_decimal(v);
                }
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return fail(unrepresentable(
                        v, "tag " + std::to_string(v.tag()) + " is not representable in smile"));
                }
                return write(v.tagged_value());
            case kind::array:
                out_.push_back(static_cast<char>(0xf8));
                for (value c : v.items()) {
                    POLYCODEC_TRY(write(c));
                }
                out_.push_back(static_cast<char>(0xf9));
                return {};
            case kind::map:
                out_.push_back(static_cast<char>(0xfa));
                for (auto [k, val] : v.entries()) {
                    POLYCODEC_TRY(write_key(k));
                    POLYCODEC_TRY(write(val));
                }
                out_.push_back(static_cast<char>(0xfb));
                return {};
        }
        return {};
    }

    // Unsigned VInt: 7-bit groups big-endian, the last with bit 7 set and 6 bits.
    void write_vint(std::uint64_t v) {
        char buf[11];
        int n = 0;
        buf[10 - n++] = static_cast<char>(0x80 | (v & 0x3f));
        v >>= 6;
        while (v != 0) {
            buf[10 - n++] = static_cast<char>(v & 0x7f);
            v >>= 7;
        }
        out_.append(buf + 11 - n, static_cast<std::size_t>(n));
    }

    static std::uint64_t zigzag(std::int64_t v) noexcept {
        return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
    }

    void write_int(std::int64_t v) {
        if (v >= -16 && v <= 15) {
            out_.push_back(static_cast<char>(0xc0 | zigzag(v)));
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            out_.push_back(0x24);
            write_vint(zigzag(v));
        } else {
            out_.push_back(0x25);
            write_vint(zigzag(v));
        }
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
        if (!neg) {
            std::string b = bigint_to_bytes(a);
            if (b.empty() || (static_cast<unsigned char>(b[0]) & 0x80) != 0) {
                b.insert(b.begin(), '\0');
            }
            return b;
        }
        bigint_sub_one(a);  // -m is the complement of m - 1
        std::string b = bigint_to_bytes(a);
        for (char& c : b) {
            c = static_cast<char>(~static_cast<unsigned char>(c));
        }
        if (b.empty() || (static_cast<unsigned char>(b[0]) & 0x80) == 0) {
            b.insert(b.begin(), static_cast<char>(0xff));
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
            write_string(decimal_fraction_text(v));
            return {};
        }
        std::string text = integer_text(m);
        out_.push_back(0x2a);
        write_vint(zigzag(-exp));
        write_big_bytes(text);
        return {};
    }

    static bool is_ascii(std::string_view s) noexcept {
        for (char c : s) {
            if ((static_cast<unsigned char>(c) & 0x80) != 0) {
                return false;
            }
        }
        return true;
    }

    // The smallest form, as Jackson writes it: tiny/short ASCII or Unicode up to 64 bytes,
    // else long text ended by 0xfc.
    void write_string(std::string_view s) {
        std::size_t n = s.size();
        if (n == 0) {
            out_.push_back(0x20);
            return;
        }
        bool ascii = is_ascii(s);
        if (n <= 64) {
            unsigned char t;
            if (ascii) {
                t = static_cast<unsigned char>(n <= 32 ? 0x40 + n - 1 : 0x60 + n - 33);
            } else {
                t = static_cast<unsigned char>(n <= 33 ? 0x80 + n - 2 : 0xa0 + n - 34);
            }
            out_.push_back(static_cast<char>(t));
            out_.append(s);
            return;
        }
        out_.push_back(static_cast<char>(ascii ? 0xe0 : 0xe4));
        out_.append(s);
        out_.push_back(static_cast<char>(end_of_string));
    }

    result<void> write_key(value k) {
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
                write_name(k.get_string());
                return {};
            case kind::int64:
            case kind::uint64:
            case kind::bignum: {
                // Integer keys become their decimal text (DESIGN section 3: not lossy). The
                // text is kept for back-references while the document is written.
                key_text_.emplace_front(integer_text(k));
                write_name(key_text_.front());
                return {};
            }
            default: {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "smile"));
                key_text_.emplace_front(std::move(text));
                write_name(key_text_.front());
                return {};
            }
        }
    }

    // ---- shared key names: an open-addressing table of the last <= 1024 names ----

    static std::size_t hash(std::string_view s) noexcept {
        std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
        for (char c : s) {
            h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        }
        return static_cast<std::size_t>(h ^ (h >> 29));
    }

    void write_name(std::string_view s) {
        if (s.empty()) {
            out_.push_back(0x20);
            return;
        }
        std::size_t slot = hash(s) & (slot_count - 1);
        while (slots_[slot] != 0) {
            std::size_t index = slots_[slot] - 1u;
            if (names_[index] == s) {
                if (index < 64) {
                    out_.push_back(static_cast<char>(0x40 | index));
                } else {
                    out_.push_back(static_cast<char>(0x30 | (index >> 8)));
                    out_.push_back(static_cast<char>(index & 0xff));
                }
                return;
            }
            slot = (slot + 1) & (slot_count - 1);
        }
        std::size_t n = s.size();
        bool ascii = is_ascii(s);
        if (ascii && n <= 64) {
            out_.push_back(static_cast<char>(0x80 + n - 1));
            out_.append(s);
        } else if (!ascii && n <= 56) {
            out_.push_back(static_cast<char>(0xc0 + n - 2));
            out_.append(s);
        } else {
            out_.push_back(0x34);
            out_.append(s);
            out_.push_back(static_cast<char>(end_of_string));
        }
        // Every non-empty name is remembered, long ones too (Jackson's SmileGenerator).
        if (name_count_ == max_shared) {
            slots_.fill(0);
            name_count_ = 0;
            slot = hash(s) & (slot_count - 1);
        }
        names_[name_count_] = s;
        slots_[slot] = static_cast<std::uint16_t>(++name_count_);
    }

    static constexpr std::size_t slot_count = 2048;

    output_buffer& out_;
    const encode_options& opt_;
    std::array<std::string_view, max_shared> names_{};
    std::array<std::uint16_t, slot_count> slots_{};
    std::size_t name_count_ = 0;
    // Texts of non-string keys, kept (stable addresses) while names may refer to them; a
    // forward_list allocates nothing until used.
    std::forward_list<std::string> key_text_;
};

result<void> encode_smile(const document& doc, output_buffer& out, const encode_options& opt) {
    smile_writer w(out, opt);
    return w.run(doc.root());
}

}  // namespace

const codec_functions smile_codec{decode_smile, encode_smile};

}  // namespace polycodec::detail
