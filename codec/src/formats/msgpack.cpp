// MessagePack (https://github.com/msgpack/msgpack/blob/master/spec.md): every family and
// width on read, the smallest form of each value on write, ext type -1 <-> timestamp.
#include <cmath>
#include <cstring>
#include <string>

#include "detail/epoch_time.hpp"
#include "detail/lossy.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// ---- reader ----

class msgpack_reader {
public:
    msgpack_reader(std::string_view in, builder& b) : in_(in), b_(b) {}

    result<void> run() {
        if (!read_value(false)) {
            return fail(std::move(err_));
        }
        if (pos_ != in_.size()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input, saw " +
                                       std::to_string(in_.size() - pos_) + " more bytes"));
        }
        return {};
    }

private:
    // The internal functions return false on an error, kept in err_: a bool return is much
    // cheaper on the hot path than result<void> (callgrind, docs/BENCHMARKS.md).
    [[gnu::cold]] [[gnu::noinline]] bool set_error(error e) {
        err_ = std::move(e);
        return false;
    }
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
        return set_error(
            make_error(b_.status(), start,
                       b_.status() == errc::depth_exceeded
                           ? "nesting deeper than " + std::to_string(b_.limits().max_depth)
                           : std::string("document larger than its size budget")));
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
            // Timestamp extension: 32-bit seconds; 30-bit nanoseconds + 34-bit seconds;
            // 32-bit nanoseconds + signed 64-bit seconds.
            std::int64_t sec = 0;
            std::uint64_t nsec = 0;
            if (n == 4) {
                sec = static_cast<std::int64_t>(be(pos_, 4));
            } else if (n == 8) {
                std::uint64_t v = be(pos_, 8);
                nsec = v >> 34;
                sec = static_cast<std::int64_t>(v & ((std::uint64_t{1} << 34) - 1));
            } else if (n == 12) {
                nsec = be(pos_, 4);
                sec = static_cast<std::int64_t>(be(pos_ + 4, 8));
            } else {
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
            if (!read_value(false)) {
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
            if (!read_value(true)) {
                return false;
            }
            if (!read_value(false)) {
                return false;
            }
        }
        b_.end_map();
        return true;
    }

    bool read_value(bool key) {
        if (pos_ >= in_.size()) {
            return set_error(
                make_error(errc::unexpected_eof, pos_, "expected a value, saw end of input"));
        }
        const std::size_t start = pos_;
        const unsigned char m = *at(pos_++);
        std::uint64_t n = 0;
        if (m <= 0x7f) {
            b_.add_int(m);
            return true;
        }
        if (m >= 0xe0) {
            b_.add_int(static_cast<std::int8_t>(m));
            return true;
        }
        if (m >= 0xa0 && m <= 0xbf) {
            return read_str(start, m & 0x1f);
        }
        if (m <= 0x9f) {
            if (key) {
                return set_error(make_error(errc::unrepresentable, start,
                                            std::string("a map key must be a scalar, saw ") +
                                                (m <= 0x8f ? "a map" : "an array")));
            }
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
            case 0xca: {
                float f;
                auto bits = static_cast<std::uint32_t>(n);
                std::memcpy(&f, &bits, 4);
                b_.add_double(static_cast<double>(f));  // exact widening
                return true;
            }
            case 0xcb: {
                double d;
                std::memcpy(&d, &n, 8);
                b_.add_double(d);
                return true;
            }
            case 0xcc: case 0xcd: case 0xce: case 0xcf:
                b_.add_uint(n);
                return true;
            case 0xd0:
                b_.add_int(static_cast<std::int8_t>(n));
                return true;
            case 0xd1:
                b_.add_int(static_cast<std::int16_t>(n));
                return true;
            case 0xd2:
                b_.add_int(static_cast<std::int32_t>(n));
                return true;
            case 0xd3:
                b_.add_int(static_cast<std::int64_t>(n));
                return true;
            case 0xd9: case 0xda: case 0xdb:
                return read_str(start, n);
            default:
                if (key) {
                    return set_error(make_error(errc::unrepresentable, start,
                                                std::string("a map key must be a scalar, saw ") +
                                                    (m >= 0xde ? "a map" : "an array")));
                }
                return m >= 0xde ? read_map(start, n) : read_array(start, n);
        }
    }

    std::string_view in_;
    builder& b_;
    std::size_t pos_ = 0;
    error err_;
};

result<void> decode_msgpack(std::string_view in, builder& b, const decode_options&) {
    msgpack_reader r(in, b);
    return r.run();
}

// ---- writer ----

class msgpack_writer {
public:
    msgpack_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    bool write(value v) {
        switch (v.kind()) {
            case kind::null:
                out_.push_back(static_cast<char>(0xc0));
                return true;
            case kind::boolean_false:
                out_.push_back(static_cast<char>(0xc2));
                return true;
            case kind::boolean_true:
                out_.push_back(static_cast<char>(0xc3));
                return true;
            case kind::int64:
                write_int(v.get_int());
                return true;
            case kind::uint64:
                write_uint(v.get_uint());
                return true;
            case kind::float64: {
                // Doubles stay float64: a reader gets back the type it was given.
                std::uint64_t bits;
                double d = v.get_double();
                std::memcpy(&bits, &d, 8);
                put(0xcb, bits, 8);
                return true;
            }
            case kind::string:
                return write_str(v, v.get_string());
            case kind::bytes:
                return write_bin(v, v.get_string());
            case kind::bignum:
                if (!allow_lossy(opt_, v, "bignum_to_string", "bignum written as its decimal text")) {
                    return set_error(unrepresentable(v, "bignum " + std::string(v.get_string()) +
                                                            " is not representable in msgpack"));
                }
                return write_str(v, v.get_string());
            case kind::timestamp:
                return write_timestamp(v);
            case kind::tagged: {
                value inner = v.tagged_value();
                if (v.get_tag_space() == tag_space::msgpack_ext && inner.kind() == kind::bytes) {
                    auto type = static_cast<std::int64_t>(v.tag());
                    if (type >= -128 && type <= 127) {
                        return write_ext(v, static_cast<std::int8_t>(type), inner.get_string());
                    }
                }
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return set_error(
                        unrepresentable(v, describe_tag(v) + " is not representable in msgpack"));
                }
                return write(inner);
            }
            case kind::array: {
                std::uint64_t n = v.size();
                if (!length(v, n, 0x90, 15, 0xdc, 0xdd, "array")) {
                    return false;
                }
                for (value c : v.items()) {
                    if (!write(c)) {
                        return false;
                    }
                }
                return true;
            }
            case kind::map: {
                std::uint64_t n = v.size();
                if (!length(v, n, 0x80, 15, 0xde, 0xdf, "map")) {
                    return false;
                }
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
        }
        return true;
    }

    error err_;  // the error when write() returned false

private:
    // The internal functions return false on an error, kept in err_: a bool return is much
    // cheaper on the hot path than result<void> (callgrind, docs/BENCHMARKS.md).
    [[gnu::cold]] [[gnu::noinline]] bool set_error(error e) {
        err_ = std::move(e);
        return false;
    }
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

    void put(unsigned char marker, std::uint64_t v, int n) {
        char* p = out_.prepare(9);
        p[0] = static_cast<char>(marker);
        for (int i = 0; i < n; ++i) {
            p[1 + i] = static_cast<char>(v >> (8 * (n - 1 - i)));
        }
        out_.commit(static_cast<std::size_t>(n) + 1);
    }

    void write_uint(std::uint64_t v) {
        if (v <= 0x7f) {
            out_.push_back(static_cast<char>(v));
        } else if (v <= 0xff) {
            put(0xcc, v, 1);
        } else if (v <= 0xffff) {
            put(0xcd, v, 2);
        } else if (v <= 0xffffffff) {
            put(0xce, v, 4);
        } else {
            put(0xcf, v, 8);
        }
    }

    void write_int(std::int64_t v) {
        if (v >= 0) {
            write_uint(static_cast<std::uint64_t>(v));
        } else if (v >= -32) {
            out_.push_back(static_cast<char>(v));
        } else if (v >= -128) {
            put(0xd0, static_cast<std::uint64_t>(v), 1);
        } else if (v >= -32768) {
            put(0xd1, static_cast<std::uint64_t>(v), 2);
        } else if (v >= INT32_MIN) {
            put(0xd2, static_cast<std::uint64_t>(v), 4);
        } else {
            put(0xd3, static_cast<std::uint64_t>(v), 8);
        }
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
};

result<void> encode_msgpack(const document& doc, output_buffer& out, const encode_options& opt) {
    msgpack_writer w(out, opt);
    if (!w.write(doc.root())) {
        return fail(std::move(w.err_));
    }
    return {};
}

}  // namespace

const codec_functions msgpack_codec{decode_msgpack, encode_msgpack};

}  // namespace polycodec::detail
