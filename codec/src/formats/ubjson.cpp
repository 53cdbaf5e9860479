// UBJSON Draft 12 (https://ubjson.org): every marker on read, including the optimized
// container forms with '$' type and '#' count; the smallest integer marker on write.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "detail/binary.hpp"
#include "detail/decimal.hpp"
#include "detail/describe.hpp"
#include "detail/dropped_tag.hpp"
#include "detail/encode_with.hpp"
#include "detail/fast_decode.hpp"
#include "detail/fixed_scalar.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/tape_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// ---- reader ----

std::string marker_name(unsigned char m) {
    if (m >= 0x21 && m <= 0x7e) {
        return std::string("'") + static_cast<char>(m) + "'";
    }
    static const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[m >> 4] + digits[m & 15];
}

// The most elements of an optimized array of a type without payload ($Z, $T, $F): 2^20.
constexpr std::uint64_t max_no_payload_items = std::uint64_t{1} << 20;

// Payload bytes of a value of type `m` after its marker, at least: what a '#' count of such
// values needs from the input. -1 for a marker that is no value type.
int min_payload(unsigned char m) {
    switch (m) {
        case 'Z':
        case 'T':
        case 'F':
            return 0;
        case 'i':
        case 'U':
        case 'C':
            return 1;
        case 'I':
            return 2;
        case 'l':
        case 'd':
            return 4;
        case 'L':
        case 'D':
            return 8;
        case 'S':
        case 'H':
            return 2;  // a length (marker and at least one byte)
        case '[':
        case '{':
            return 1;  // at least the closing marker or a '#' count
        default:
            return -1;
    }
}

class ubjson_reader {
public:
    ubjson_reader(std::string_view in, builder& b) : in_(in), b_(b) {}

    result<void> run() {
        POLYCODEC_TRY(read_value());
        skip_noop();
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

    void skip_noop() {
        while (pos_ < in_.size() && in_[pos_] == 'N') {
            ++pos_;
        }
    }

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

    // Big-endian n-byte integer at pos_ (Draft 12 is big-endian throughout).
    std::uint64_t be(int n) {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) {
            v = (v << 8) | byte(pos_ + static_cast<std::size_t>(i));
        }
        pos_ += static_cast<std::size_t>(n);
        return v;
    }

    // The integer of marker m (i U I l L) at pos_; false with the error set otherwise.
    result<std::int64_t> read_int(unsigned char m, const char* what) {
        int n = m == 'i' || m == 'U' ? 1 : m == 'I' ? 2 : m == 'l' ? 4 : 8;
        if (left() < static_cast<std::size_t>(n)) {
            return fail(eof(what));
        }
        std::uint64_t v = be(n);
        switch (m) {
            case 'i':
                return static_cast<std::int8_t>(v);
            case 'U':
                return static_cast<std::int64_t>(v);
            case 'I':
                return static_cast<std::int16_t>(v);
            case 'l':
                return static_cast<std::int32_t>(v);
            default:
                return static_cast<std::int64_t>(v);
        }
    }

    // A length or count: an integer marker and its value, never negative.
    result<std::uint64_t> read_length(const char* what) {
        if (pos_ >= in_.size()) {
            return fail(eof(what));
        }
        const std::size_t start = pos_;
        unsigned char m = byte(pos_);
        if (m != 'i' && m != 'U' && m != 'I' && m != 'l' && m != 'L') {
            return fail(make_error(
                errc::malformed, start,
                std::string("expected an integer marker for ") + what + ", saw " + marker_name(m)));
        }
        ++pos_;
        auto v = read_int(m, what);
        if (!v) {
            return fail(v.error());
        }
        if (*v < 0) {
            return fail(make_error(errc::malformed, start,
                                   std::string("negative ") + what + " " + std::to_string(*v)));
        }
        return static_cast<std::uint64_t>(*v);
    }

    // A length-prefixed UTF-8 string (S payload and object keys).
    result<std::string_view> read_text(std::size_t start, const char* what) {
        auto n = read_length(what);
        if (!n) {
            return fail(n.error());
        }
        if (*n > left()) {
            return fail(too_long(start, *n, what));
        }
        std::string_view s = in_.substr(pos_, static_cast<std::size_t>(*n));
        std::size_t valid = utf8_valid_prefix(s);
        if (valid != s.size()) {
            return fail(make_error(errc::invalid_utf8, pos_ + valid,
                                   std::string("invalid UTF-8 in ") + what));
        }
        pos_ += s.size();
        return s;
    }

    result<void> read_value() {
        skip_noop();
        if (pos_ >= in_.size()) {
            return fail(
                make_error(errc::unexpected_eof, pos_, "expected a value, saw end of input"));
        }
        const std::size_t start = pos_++;
        return read_typed(byte(start), start);
    }

    // The value of marker m (already consumed, at `start`); its payload starts at pos_.
    result<void> read_typed(unsigned char m, std::size_t start) {
        switch (m) {
            case 'Z':
                b_.add_null();
                return {};
            case 'T':
            case 'F':
                b_.add_bool(m == 'T');
                return {};
            case 'i':
            case 'U':
            case 'I':
            case 'l':
            case 'L': {
                auto v = read_int(m, "an integer");
                if (!v) {
                    return fail(v.error());
                }
                // The marker's width is kept as a hint (docs/formats/ubjson.md).
                b_.add_int(*v, m == 'i' || m == 'U' ? int_width::bits8
                               : m == 'I'           ? int_width::bits16
                               : m == 'l'           ? int_width::bits32
                                                    : int_width::bits64);
                return {};
            }
            case 'd': {
                if (left() < 4) {
                    return fail(eof("4 bytes of float32"));
                }
                auto bits = static_cast<std::uint32_t>(be(4));
                float f;
                std::memcpy(&f, &bits, 4);
                b_.add_double(static_cast<double>(f));  // exact widening
                return {};
            }
            case 'D': {
                if (left() < 8) {
                    return fail(eof("8 bytes of float64"));
                }
                std::uint64_t bits = be(8);
                double d;
                std::memcpy(&d, &bits, 8);
                b_.add_double(d);
                return {};
            }
            case 'C': {
                if (left() < 1) {
                    return fail(eof("a char"));
                }
                unsigned char c = byte(pos_);
                if (c > 0x7f) {
                    return fail(make_error(errc::invalid_utf8, pos_,
                                           "expected an ASCII char, saw " + marker_name(c)));
                }
                b_.add_string(in_.substr(pos_++, 1));
                return {};
            }
            case 'S': {
                auto s = read_text(start, "string length");
                if (!s) {
                    return fail(s.error());
                }
                b_.add_string(*s);
                return {};
            }
            case 'H': {
                auto n = read_length("high-precision number length");
                if (!n) {
                    return fail(n.error());
                }
                if (*n > left()) {
                    return fail(too_long(start, *n, "high-precision number"));
                }
                std::string_view text = in_.substr(pos_, static_cast<std::size_t>(*n));
                decimal_status st = add_decimal_text(b_, text);
                if (st.what == decimal_status::limit) {
                    return container_limit(start);
                }
                if (st.what == decimal_status::bad_text) {
                    return fail(
                        make_error(errc::invalid_number, pos_ + st.at,
                                   "expected a JSON number in a high-precision number, saw " +
                                       (st.at < text.size()
                                            ? marker_name(static_cast<unsigned char>(text[st.at]))
                                            : std::string("its end"))));
                }
                pos_ += text.size();
                return {};
            }
            case '[':
                return read_container(start, false);
            case '{':
                return read_container(start, true);
            default:
                return fail(make_error(errc::malformed, start,
                                       "expected a value marker, saw " + marker_name(m)));
        }
    }

    // After '[' or '{': the optional '$' type and '#' count, then the elements.
    result<void> read_container(std::size_t start, bool is_map) {
        unsigned char type = 0;
        bool counted = false;
        std::uint64_t count = 0;
        if (pos_ < in_.size() && in_[pos_] == '$') {
            ++pos_;
            if (pos_ >= in_.size()) {
                return fail(eof("a type marker after '$'"));
            }
            type = byte(pos_);
            if (min_payload(type) < 0) {
                return fail(
                    make_error(errc::malformed, pos_,
                               "expected a value type after '$', saw " + marker_name(type)));
            }
            ++pos_;
            if (pos_ >= in_.size()) {
                return fail(eof("'#' after a '$' type"));
            }
            if (in_[pos_] != '#') {
                return fail(
                    make_error(errc::malformed, pos_,
                               "expected '#' after a '$' type, saw " + marker_name(byte(pos_))));
            }
        }
        if (pos_ < in_.size() && in_[pos_] == '#') {
            ++pos_;
            auto n = read_length("a count");
            if (!n) {
                return fail(n.error());
            }
            counted = true;
            count = *n;
        }
        if (counted) {
            // Check the count against what the input can hold before building anything.
            int elem = type != 0 ? min_payload(type) : 1;
            std::uint64_t per = static_cast<std::uint64_t>(elem) + (is_map ? 2 : 0);
            if (per == 0) {
                // $Z, $T, $F arrays take no input per element: bound them by the budget and
                // by max_no_payload_items (a few bytes of input must not stand for millions
                // of values).
                if (count > b_.limits().max_bytes / 8) {
                    return fail(make_error(
                        errc::size_exceeded, start,
                        "count " + std::to_string(count) + " exceeds the document size budget"));
                }
                if (count > max_no_payload_items) {
                    return fail(make_error(
                        errc::size_exceeded, start,
                        "count " + std::to_string(count) + " exceeds the limit of " +
                            std::to_string(max_no_payload_items) + " elements without payload"));
                }
            } else if (count > left() / per) {
                return fail(too_long(start, count, is_map ? "object count" : "array count"));
            }
        }
        if (!is_map && type == 'U') {
            // An optimized array of uint8 is how UBJSON writers store binary (nlohmann's
            // to_ubjson does): read as bytes.
            b_.add_bytes(in_.substr(pos_, static_cast<std::size_t>(count)));
            pos_ += static_cast<std::size_t>(count);
            return {};
        }
        if (!(is_map ? b_.begin_map() : b_.begin_array())) {
            return container_limit(start);
        }
        const unsigned char close = is_map ? '}' : ']';
        for (std::uint64_t i = 0; !counted || i < count; ++i) {
            if (!counted) {
                skip_noop();
                if (pos_ >= in_.size()) {
                    return fail(eof(is_map ? "a key or '}'" : "a value or ']'"));
                }
                if (byte(pos_) == close) {
                    ++pos_;
                    break;
                }
            }
            if (is_map) {
                auto k = read_text(pos_, "key length");
                if (!k) {
                    return fail(k.error());
                }
                b_.add_string(*k);
            }
            if (type != 0) {
                POLYCODEC_TRY(read_typed(type, pos_));
            } else if (auto r = read_value(); !r) {
                return r;
            }
        }
        if (!b_.ok()) {
            return container_limit(start);
        }
        if (is_map) {
            b_.end_map();
        } else {
            b_.end_array();
        }
        return {};
    }

    std::string_view in_;
    builder& b_;
    std::size_t pos_ = 0;
};

// ---- fast path ----
//
// One iterative loop that writes the tape and the payload bytes directly (detail::tape_writer),
// as msgpack's and cbor's do, for what our encoder writes: counted containers ('[#n', '{#n'),
// Z T F, the integer markers, d, D and S. On a no-op, a '$' type, an uncounted container,
// C, H, an error, a limit or any doubt it returns false, and decode_ubjson resets the builder
// and runs ubjson_reader above, which decides (and words) every error exactly as before. On
// success the tape is the one ubjson_reader would have built (FastPathAgreement.Ubjson).

constexpr std::size_t fast_max_frames = 64;  // deeper input takes ubjson_reader

using fast_writer = tape_writer<256, 2048, false>;

// One integer of type Int (its sizeof(Int) big-endian bytes at pos) into v, with width W.
template <class Int, int_width W>
[[gnu::always_inline]] inline bool fast_int_of(const unsigned char* p, std::size_t size,
                                               std::size_t& pos, std::int64_t& v,
                                               int_width& width) noexcept {
    std::uint64_t u;
    if (!take_be<sizeof(Int)>(p, size, pos, u)) {
        return false;
    }
    v = static_cast<std::int64_t>(static_cast<Int>(u));
    width = W;
    return true;
}

// An integer of marker m at pos (i U I l L) into v, with its width; false when m is none or
// the input ends first.
inline bool fast_int(const unsigned char* p, std::size_t size, std::size_t& pos, unsigned m,
                     std::int64_t& v, int_width& width) noexcept {
    switch (m) {
        case 'i':
            return fast_int_of<std::int8_t, int_width::bits8>(p, size, pos, v, width);
        case 'U':
            return fast_int_of<std::uint8_t, int_width::bits8>(p, size, pos, v, width);
        case 'I':
            return fast_int_of<std::int16_t, int_width::bits16>(p, size, pos, v, width);
        case 'l':
            return fast_int_of<std::int32_t, int_width::bits32>(p, size, pos, v, width);
        case 'L':
            return fast_int_of<std::int64_t, int_width::bits64>(p, size, pos, v, width);
        default:
            return false;
    }
}

// A length (an integer marker and a value that is not negative) at pos into n.
inline bool fast_length(const unsigned char* p, std::size_t size, std::size_t& pos,
                        std::uint64_t& n) noexcept {
    if (pos >= size) {
        return false;
    }
    const unsigned m = p[pos++];
    std::int64_t v;
    int_width width;
    if (!fast_int(p, size, pos, m, v, width) || v < 0) {
        return false;
    }
    n = static_cast<std::uint64_t>(v);
    return true;
}

bool decode_ubjson_fast(std::string_view in, builder& b) {
    const auto [p, size, max_depth, max_bytes] = fast_input_of(in, b, fast_max_frames);
    fast_writer tw(b);

    // frames[0] stands for the top level: a container of one value that is never closed.
    fast_frame frames[fast_max_frames + 1];
    frames[0] = {0, 1, false};
    fast_frame* top = frames;
    std::size_t pos = 0;

    for (;;) {
        std::uint64_t* w = tw.words(4);
        std::uint64_t n;
        if (top->map && top->left % 2 == 0) {
            // A key: its length without a marker, then its UTF-8 bytes.
            if (!fast_length(p, size, pos, n)) {
                return false;
            }
            goto text;
        }
        if (pos >= size) {
            return false;
        }
        switch (const unsigned m = p[pos++]) {
            case 'Z':
                w[0] = tape_word(kind::null, 0, 0);
                tw.advance(1);
                break;
            case 'T':
                w[0] = tape_word(kind::boolean_true, 0, 0);
                tw.advance(1);
                break;
            case 'F':
                w[0] = tape_word(kind::boolean_false, 0, 0);
                tw.advance(1);
                break;
            case 'i':
            case 'U':
            case 'I':
            case 'l':
            case 'L': {
                std::int64_t v;
                int_width width;
                if (!fast_int(p, size, pos, m, v, width)) {
                    return false;
                }
                w[0] = tape_word(kind::int64, static_cast<std::uint64_t>(width), 0);
                w[1] = static_cast<std::uint64_t>(v);
                tw.advance(2);
                break;
            }
            case 'd': {
                if (!take_be<4>(p, size, pos, n)) {
                    return false;
                }
                float f;
                const auto bits = static_cast<std::uint32_t>(n);
                std::memcpy(&f, &bits, 4);
                const double d = static_cast<double>(f);  // exact widening, as the reader
                w[0] = tape_word(kind::float64, 0, 0);
                std::memcpy(&w[1], &d, 8);
                tw.advance(2);
                break;
            }
            case 'D':
                if (!take_be<8>(p, size, pos, n)) {
                    return false;
                }
                w[0] = tape_word(kind::float64, 0, 0);
                w[1] = n;
                tw.advance(2);
                break;
            case 'S':
                if (!fast_length(p, size, pos, n)) {
                    return false;
                }
                goto text;
            case '[':
            case '{': {
                const bool is_map = m == '{';
                if (pos >= size || p[pos] != '#') {
                    return false;  // a '$' type or an uncounted container: the reader
                }
                ++pos;
                if (!fast_length(p, size, pos, n)) {
                    return false;
                }
                const fast_open_result r = fast_open<1, 3>(top, frames, max_depth, max_bytes, tw, w,
                                                           is_map, n, size - pos);
                if (r == fast_open_result::fail) {
                    return false;
                }
                if (r == fast_open_result::opened) {
                    continue;
                }
                goto done;
            }
            default:  // N, C, H, and what is no value
                return false;
        }
        goto done;

    text:
        if (!fast_text_at(tw, w, p, size, pos, n)) {
            return false;
        }

    done:
        // A value is complete: count it in its container, closing the containers it ends.
        if (fast_value_done(top, frames, tw)) {
            return fast_finish(tw, pos, size, max_bytes);  // the top-level value is complete
        }
    }
}

result<void> decode_ubjson(std::string_view in, builder& b, const decode_options&) {
    return fast_or_read(
        b, true, [&] { return decode_ubjson_fast(in, b); },
        [&] { return ubjson_reader(in, b).run(); });
}

// ---- writer ----

class ubjson_writer {
public:
    ubjson_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    // The tape lists the elements in the order UBJSON writes them, so the common elements are
    // written in one linear pass over the tape through a local pointer into the buffer's free
    // space (o .. oend, at least `slack` bytes before each element), as msgpack's writer does;
    // a stack of open maps tells keys (no marker) from values. The rest (long strings, bytes,
    // uint64, bignums, tags, keys that are no string) go through write() / write_key() below,
    // subtree and all.
    result<void> write_root(value root) {
        const document& doc = *root.doc();
        const auto [t, payload, payload_size] = tape_view_of(doc);
        std::size_t i = root.index();
        const std::size_t end = root.end_index();
        struct frame {
            std::size_t end;  // tape index just past the container
            bool map;
            bool key_next;    // in a map: the next element is a key
        };
        constexpr std::size_t max_frames = 64;
        frame frames[max_frames + 1];
        frame* top = frames;
        *top = {end, false, false};
        out_cursor<64> c(out_);  // at least 64 bytes free before each element
        char*& o = c.o;
        while (i < end) {
            while (i == top->end) {
                --top;
            }
            c.room();
            const std::uint64_t w = t[i];
            const bool is_key = top->key_next;
            if (top->map) {
                top->key_next = !top->key_next;
            }
            const auto k = static_cast<kind>(w >> document::kind_shift);
            if (is_key) {
                const std::uint64_t off = w & document::payload_mask;
                const std::uint64_t n = t[i + 1];
                if (k == kind::string && n <= 32 && off + 32 <= payload_size) {
                    o = short_text_at(o, payload + off, n);
                    i += 2;
                    continue;
                }
                c.release();
                const value v(&doc, i);
                POLYCODEC_TRY(write_key(v));
                i = v.end_index();
                c.acquire();
                continue;
            }
            if (fixed_scalar_at<scalars>(o, k, t, i)) {
                continue;
            }
            switch (k) {
                case kind::string:
                case kind::timestamp: {
                    const std::uint64_t off = w & document::payload_mask;
                    const std::uint64_t n = t[i + 1];
                    if (n <= 32 && off + 32 <= payload_size) {
                        *o++ = 'S';
                        o = short_text_at(o, payload + off, n);
                        i += 2;
                        continue;
                    }
                    break;
                }
                case kind::array:
                case kind::map: {
                    if (static_cast<std::size_t>(top - frames) >= max_frames) {
                        break;  // deeper: write() below, recursively
                    }
                    const bool map = k == kind::map;
                    o[0] = map ? '{' : '[';
                    o[1] = '#';
                    o = int_at(o + 2, static_cast<std::int64_t>(t[i + 1]));
                    *++top = {static_cast<std::size_t>(w & document::payload_mask), map, map};
                    i += 2;
                    continue;
                }
                default:
                    break;
            }
            c.release();
            const value v(&doc, i);
            POLYCODEC_TRY(write(v));
            i = v.end_index();
            c.acquire();
        }
        c.release();
        return {};
    }

    result<void> write(value v) {
        switch (v.kind()) {
            case kind::null:
            case kind::boolean_false:
            case kind::boolean_true:  // the one-byte literals of the tape walk's scalars
                out_.push_back(static_cast<char>(v.kind() == kind::null ? scalars::null_byte
                                                 : v.get_bool()         ? scalars::true_byte
                                                                        : scalars::false_byte));
                return {};
            case kind::int64:
                write_int(v.get_int());
                return {};
            case kind::uint64: {
                // Above INT64_MAX: no integer marker holds it, a high-precision number does.
                char buf[24];
                auto r = std::to_chars(buf, buf + sizeof buf, v.get_uint());
                write_text('H', {buf, static_cast<std::size_t>(r.ptr - buf)});
                return {};
            }
            case kind::float64: {
                double d = v.get_double();
                std::uint64_t bits;
                std::memcpy(&bits, &d, 8);
                put('D', bits, 8);
                return {};
            }
            case kind::string:
            case kind::timestamp:
                write_text('S', v.get_string());
                return {};
            case kind::bignum:
                write_text('H', v.get_string());
                return {};
            case kind::bytes: {
                // [$U#n: the optimized uint8 array, as nlohmann's to_ubjson writes binary.
                std::string_view s = v.get_string();
                out_.append("[$U#", 4);
                write_int(static_cast<std::int64_t>(s.size()));
                out_.append(s);
                return {};
            }
            case kind::tagged:
                if (is_decimal_fraction(v)) {
                    write_text('H', decimal_fraction_text(v));
                    return {};
                }
                POLYCODEC_TRY(drop_tag(opt_, v, "ubjson"));
                return write(v.tagged_value());
            case kind::array:
                out_.append("[#", 2);
                write_int(static_cast<std::int64_t>(v.size()));
                for (value c : v.items()) {
                    POLYCODEC_TRY(write(c));
                }
                return {};
            case kind::map:
                out_.append("{#", 2);
                write_int(static_cast<std::int64_t>(v.size()));
                for (auto [k, val] : v.entries()) {
                    POLYCODEC_TRY(write_key(k));
                    POLYCODEC_TRY(write(val));
                }
                return {};
        }
        return {};
    }

private:
    void put(char marker, std::uint64_t v, int n) {
        char* p = out_.prepare(9);
        p[0] = marker;
        for (int i = 0; i < n; ++i) {
            p[1 + i] = static_cast<char>(v >> (8 * (n - 1 - i)));
        }
        out_.commit(static_cast<std::size_t>(n) + 1);
    }

    // write_int's marker and bytes at o (9 bytes writable); returns the new end.
    static char* int_at(char* o, std::int64_t v) noexcept {
        const auto u = static_cast<std::uint64_t>(v);
        if (v >= INT8_MIN && v <= INT8_MAX) {
            o[0] = 'i';
            o[1] = static_cast<char>(u);
            return o + 2;
        }
        if (v >= 0 && v <= UINT8_MAX) {
            o[0] = 'U';
            o[1] = static_cast<char>(u);
            return o + 2;
        }
        if (v >= INT16_MIN && v <= INT16_MAX) {
            return put_be_at(o, 'I', u, 2);
        }
        if (v >= INT32_MIN && v <= INT32_MAX) {
            return put_be_at(o, 'l', u, 4);
        }
        return put_be_at(o, 'L', u, 8);
    }
    // The length and the bytes of a string of n <= 32 bytes at s (32 of them readable): all 32
    // are copied, the ones past n are overwritten by what follows.
    [[gnu::always_inline]] static char* short_text_at(char* o, const char* s,
                                                      std::uint64_t n) noexcept {
        o = int_at(o, static_cast<std::int64_t>(n));
        std::memcpy(o, s, 32);
        return o + n;
    }
    // The one-byte literals, integers and doubles for detail::fixed_scalar_at.
    struct scalars {
        static constexpr unsigned char null_byte = 'Z';
        static constexpr unsigned char false_byte = 'F';
        static constexpr unsigned char true_byte = 'T';
        static char* int64_at(char* o, std::int64_t v) noexcept { return int_at(o, v); }
        static char* float64_at(char* o, std::uint64_t bits) noexcept {
            return put_be_at(o, 'D', bits, 8);
        }
    };

    // The smallest marker, in nlohmann's order: i, U, I, l, L.
    void write_int(std::int64_t v) {
        if (v >= INT8_MIN && v <= INT8_MAX) {
            put('i', static_cast<std::uint64_t>(v), 1);
        } else if (v >= 0 && v <= UINT8_MAX) {
            put('U', static_cast<std::uint64_t>(v), 1);
        } else if (v >= INT16_MIN && v <= INT16_MAX) {
            put('I', static_cast<std::uint64_t>(v), 2);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            put('l', static_cast<std::uint64_t>(v), 4);
        } else {
            put('L', static_cast<std::uint64_t>(v), 8);
        }
    }

    // A marker, the length, the bytes (S, H); keys omit the marker.
    void write_text(char marker, std::string_view s) {
        if (marker != 0) {
            out_.push_back(marker);
        }
        write_int(static_cast<std::int64_t>(s.size()));
        out_.append(s);
    }

    result<void> write_key(value k) {
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
                write_text(0, k.get_string());
                return {};
            case kind::int64:
            case kind::uint64:
            case kind::bignum:
                // Integer keys become their decimal text (DESIGN section 3: not lossy).
                write_text(0, integer_text(k));
                return {};
            default: {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "ubjson"));
                write_text(0, text);
                return {};
            }
        }
    }

    output_buffer& out_;
    const encode_options& opt_;
};

}  // namespace

const codec_functions ubjson_codec{decode_ubjson,
                                   encode_with<ubjson_writer, &ubjson_writer::write_root>};

}  // namespace polycodec::detail
