#pragma once
// The shared skeleton of the text decoders (json5, ...; issue 15): a builder-shaped sink that
// writes the tape directly (detail::tape_writer), byte scanning 16 bytes at a time (SSE2, or
// 8 at a time with SWAR elsewhere), per-format byte-class tables, and the fast-path driver.
//
// A reader is a class template over its sink. It runs first with tape_sink on an empty
// builder (one pass, no per-element bookkeeping); whatever that run does not finish (any
// error, the depth limit, the size budget) resets the builder and runs the same reader again
// with the builder itself, which words every error (code, offset, path) exactly as before.
// So the fast path changes no answer: it either gives the builder's document or gives way.

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "detail/describe.hpp"
#include "detail/tape_writer.hpp"
#include "detail/text.hpp"
#include "polycodec/document.hpp"
#include "polycodec/error.hpp"
#include "polycodec/result.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace polycodec::detail {

// ---- byte classes ----

/// A 256-entry table of class bits, built at compile time from a predicate per byte.
struct byte_table {
    std::array<std::uint8_t, 256> bits{};
    constexpr std::uint8_t operator[](unsigned char c) const noexcept { return bits[c]; }
    constexpr bool has(unsigned char c, std::uint8_t b) const noexcept { return (bits[c] & b) != 0; }
};

template <class F>
constexpr byte_table make_byte_table(F f) {
    byte_table t;
    for (int c = 0; c < 256; ++c) {
        t.bits[static_cast<std::size_t>(c)] = f(static_cast<unsigned char>(c));
    }
    return t;
}

// ---- scanning ----

/// The first position in [p, end) holding one of the bytes `a`, `b` or a byte below 0x20
/// (control characters, line breaks); `end` when there is none. 16 bytes a step with SSE2.
inline const char* scan_to_special(const char* p, const char* end, char a, char b) noexcept {
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8(a);
    const __m128i vb = _mm_set1_epi8(b);
    const __m128i v1f = _mm_set1_epi8(0x1F);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // unsigned x <= 0x1F  <=>  min(x, 0x1F) == x
        __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(x, v1f), x);
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), ctl);
        int mask = _mm_movemask_epi8(m);
        if (mask != 0) {
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        }
        p += 16;
    }
#else
    constexpr std::uint64_t ones = 0x0101010101010101ull;
    constexpr std::uint64_t highs = 0x8080808080808080ull;
    const std::uint64_t ra = ones * static_cast<unsigned char>(a);
    const std::uint64_t rb = ones * static_cast<unsigned char>(b);
    while (end - p >= 8) {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        std::uint64_t xa = x ^ ra;
        std::uint64_t xb = x ^ rb;
        std::uint64_t hit = ((xa - ones) & ~xa) | ((xb - ones) & ~xb) | ((x - ones * 0x20) & ~x);
        if ((hit & highs) != 0) {
            break;  // the exact byte is found below
        }
        p += 8;
    }
#endif
    while (p < end) {
        auto c = static_cast<unsigned char>(*p);
        if (c == static_cast<unsigned char>(a) || c == static_cast<unsigned char>(b) || c < 0x20) {
            return p;
        }
        ++p;
    }
    return end;
}

/// The first position in [p, end) holding one of the bytes a, b, c, d or a byte below 0x20;
/// `end` when there is none (the writers' escape scan: quotes, backslash, a lead byte).
inline const char* scan_to_special4(const char* p, const char* end, char a, char b, char c,
                                    char d) noexcept {
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8(a);
    const __m128i vb = _mm_set1_epi8(b);
    const __m128i vc = _mm_set1_epi8(c);
    const __m128i vd = _mm_set1_epi8(d);
    const __m128i v1f = _mm_set1_epi8(0x1F);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        __m128i m = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, vc), _mm_cmpeq_epi8(x, vd)),
                         _mm_cmpeq_epi8(_mm_min_epu8(x, v1f), x)));
        int mask = _mm_movemask_epi8(m);
        if (mask != 0) {
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        }
        p += 16;
    }
#endif
    for (; p < end; ++p) {
        const char x = *p;
        if (x == a || x == b || x == c || x == d || static_cast<unsigned char>(x) < 0x20) {
            return p;
        }
    }
    return end;
}

/// scan_to_special4 whose last (under 16) bytes are looked up in `t`: the first byte with
/// bit `bit` there (the same set of bytes: a, b, c, d and below 0x20).
inline const char* scan_to_special4(const char* p, const char* end, char a, char b, char c,
                                    char d, const byte_table& t, std::uint8_t bit) noexcept {
#if defined(__SSE2__)
    if (end - p >= 16) {
        const char* q = scan_to_special4(p, p + ((end - p) & ~std::ptrdiff_t{15}), a, b, c, d);
        if (q != p + ((end - p) & ~std::ptrdiff_t{15})) {
            return q;
        }
        p = q;
    }
#endif
    while (p < end && !t.has(static_cast<unsigned char>(*p), bit)) {
        ++p;
    }
    return p;
}

/// The first position in [p, end) whose byte is not in class `bit` of `t`.
inline const char* skip_class(const char* p, const char* end, const byte_table& t,
                              std::uint8_t bit) noexcept {
    while (p < end && t.has(static_cast<unsigned char>(*p), bit)) {
        ++p;
    }
    return p;
}

/// Plain decimal digits [p, end) (at most 19, no sign) as a number; false when there are more.
inline bool small_decimal(const char* p, const char* end, std::uint64_t& v) noexcept {
    if (end - p > 19) {
        return false;
    }
    std::uint64_t r = 0;
    for (; p < end; ++p) {
        r = r * 10 + static_cast<unsigned>(*p - '0');
    }
    v = r;
    return true;
}

/// A decimal integer at p: '-' (and '+' when `plus`), then 1 to 18 digits without a leading
/// zero. Its end, with the value in `v`; nullptr when the text there is not one (more digits,
/// no digit, a leading zero): the caller's full number reader decides.
inline const char* small_integer(const char* p, const char* e, bool plus,
                                 std::int64_t& v) noexcept {
    const bool neg = p < e && *p == '-';
    p += neg || (plus && p < e && *p == '+') ? 1 : 0;
    const char* d = p;
    std::uint64_t u = 0;
    while (p < e && static_cast<unsigned>(*p - '0') < 10 && p - d < 19) {
        u = u * 10 + static_cast<unsigned>(*p - '0');
        ++p;
    }
    const std::ptrdiff_t n = p - d;
    if (n < 1 || n > 18 || (*d == '0' && n > 1)) {
        return nullptr;
    }
    v = neg ? -static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u);
    return p;
}

/// A plain decimal float at p: an optional '-', digits, then '.' and digits and/or an exponent
/// ('e' or 'E', an optional sign, digits), read by from_chars. Its end, with the value in `v`;
/// nullptr when the text there is not one (no digit on either side of the point, no fraction
/// or exponent, out of the double range): the caller's full number reader decides.
inline const char* small_float(const char* p, const char* e, double& v) noexcept {
    const char* s = p;
    const char* q = p + (p < e && *p == '-' ? 1 : 0);
    const char* d = q;
    while (q < e && static_cast<unsigned>(*q - '0') < 10) {
        ++q;
    }
    if (q == d || q == e) {
        return nullptr;
    }
    bool point = false;
    if (*q == '.') {
        const char* f = ++q;
        while (q < e && static_cast<unsigned>(*q - '0') < 10) {
            ++q;
        }
        if (q == f) {
            return nullptr;
        }
        point = true;
    }
    if (q < e && (*q == 'e' || *q == 'E')) {
        ++q;
        q += q < e && (*q == '+' || *q == '-') ? 1 : 0;
        const char* x = q;
        while (q < e && static_cast<unsigned>(*q - '0') < 10) {
            ++q;
        }
        if (q == x) {
            return nullptr;
        }
    } else if (!point) {
        return nullptr;
    }
    auto r = std::from_chars(s, q, v);
    return r.ec == std::errc() && r.ptr == q ? q : nullptr;
}

/// from_chars on decimal float text, where a text beyond the double range is infinity unless its
/// exponent is negative, then zero (Rust's parse: ron; sexpr). The caller checks ec and ptr.
inline std::from_chars_result read_double_saturating(std::string_view t, double& d) noexcept {
    auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec == std::errc::result_out_of_range) {
        const std::size_t e = t.find_first_of("eE");
        d = e == std::string_view::npos || e + 1 >= t.size() || t[e + 1] != '-' ? HUGE_VAL : 0.0;
        r.ec = std::errc();
    }
    return r;
}

// ---- integers in a radix (ron, sexpr) ----

/// An integer literal's digits read in a radix: the magnitude while it fits 64 bits.
struct radix_value {
    std::uint64_t magnitude = 0;
    bool fits = true;        ///< false: beyond 64 bits (magnitude is then meaningless)
    std::size_t digits = 0;  ///< digits read, '_' not counted
};

/// `digits` (0-9, a-f, A-F, each below `radix`; '_' skipped) as a radix_value.
inline radix_value read_radix(std::string_view digits, unsigned radix) noexcept {
    radix_value r;
    for (char c : digits) {
        if (c == '_') {
            continue;
        }
        ++r.digits;
        const auto v = static_cast<std::uint64_t>(text::hex_value(c));
        if (r.fits && r.magnitude > (UINT64_MAX - v) / radix) {
            r.fits = false;
        }
        if (r.fits) {
            r.magnitude = r.magnitude * radix + v;
        }
    }
    return r;
}

/// True when the value (negated when `neg`) is an int64 or a uint64.
inline bool fits_64(const radix_value& r, bool neg) noexcept {
    return r.fits && (!neg || r.magnitude <= std::uint64_t{1} << 63);
}

/// Adds a value fits_64 accepted to either sink.
template <class Sink>
void add_radix_value(Sink& b, const radix_value& r, bool neg) {
    if (!neg) {
        b.add_uint(r.magnitude);
    } else {
        b.add_int(r.magnitude == std::uint64_t{1} << 63 ? INT64_MIN
                                                        : -static_cast<std::int64_t>(r.magnitude));
    }
}

/// dec = dec * radix + digit, on decimal text.
inline void decimal_mul_add(std::string& dec, unsigned radix, unsigned digit) {
    unsigned carry = digit;
    for (std::size_t i = dec.size(); i-- > 0;) {
        const unsigned v = static_cast<unsigned>(dec[i] - '0') * radix + carry;
        dec[i] = static_cast<char>('0' + v % 10);
        carry = v / 10;
    }
    while (carry != 0) {
        dec.insert(dec.begin(), static_cast<char>('0' + carry % 10));
        carry /= 10;
    }
}

/// The longest non-decimal literal radix_to_decimal converts (digit by digit, quadratic).
constexpr std::size_t radix_digits_max = 4096;

/// The exact decimal text (no leading zeros) of a literal beyond 64 bits into `out`; false for
/// a non-decimal one of more than radix_digits_max digits.
inline bool radix_to_decimal(std::string_view digits, unsigned radix, const radix_value& r,
                             std::string& out) {
    out.clear();
    if (radix == 10) {
        for (char c : digits) {
            if (c != '_' && !(out.empty() && c == '0')) {
                out.push_back(c);
            }
        }
        return true;
    }
    if (r.digits > radix_digits_max) {
        return false;
    }
    out = "0";
    for (char c : digits) {
        if (c != '_') {
            decimal_mul_add(out, radix, static_cast<unsigned>(text::hex_value(c)));
        }
    }
    return true;
}

// ---- the tape sink ----

/// The deepest nesting tape_sink takes; a builder with a deeper limit reads through the
/// builder alone (the tests use that to compare both paths).
constexpr std::size_t tape_sink_max_depth = 1024;

/// The builder's element methods, writing the tape directly. Its methods report failure
/// only through begin_array/begin_map (depth limit, size budget) and over_budget(); the
/// reader's error then sends the input to the builder path (decode_text_fast).
class tape_sink {
public:
    using writer = tape_writer<32, 256, true>;

    explicit tape_sink(builder& b) : tw_(b), limits_(b.limits()) {}

    void add_null() { word1(kind::null); }
    void add_bool(bool v) { word1(v ? kind::boolean_true : kind::boolean_false); }
    void add_int(std::int64_t v) { word2(kind::int64, static_cast<std::uint64_t>(v)); }
    void add_uint(std::uint64_t v) {
        word2(v <= static_cast<std::uint64_t>(INT64_MAX) ? kind::int64 : kind::uint64, v);
    }
    void add_double(double d) {
        std::uint64_t bits;
        std::memcpy(&bits, &d, 8);
        word2(kind::float64, bits);
    }
    void add_string(std::string_view s) { payload(kind::string, 0, s); }
    void add_bytes(std::string_view s) { payload(kind::bytes, 0, s); }
    void add_bignum(std::string_view s) { payload(kind::bignum, 0, s); }
    void add_timestamp(std::string_view s, timestamp_kind k) {
        payload(kind::timestamp, static_cast<std::uint64_t>(k), s);
    }
    char* begin_string(std::size_t max_len) { return tw_.bytes(max_len); }
    void end_string(char* written_end, kind k = kind::string) {
        const auto n = static_cast<std::size_t>(written_end - tw_.bytes(0));
        count();
        std::uint64_t* w = tw_.words(2);
        tw_.payload(w, k, 0, n);
        if (n > 4096) {
            check_budget();
        }
        after();
    }
    /// add_int, begin_string and end_string forced inline, for a reader whose emission loop
    /// would otherwise call them per value (xml's). Not the default, as tape_writer's
    /// hot_words(): the other readers keep the calls.
    [[gnu::always_inline]] void hot_int(std::int64_t v) {
        count();
        std::uint64_t* w = tw_.hot_words(2);
        writer::scalar(w, kind::int64, static_cast<std::uint64_t>(v));
        tw_.advance(2);
        after();
    }
    [[gnu::always_inline]] char* hot_begin_string(std::size_t max_len) {
        return tw_.hot_bytes(max_len);
    }
    [[gnu::always_inline]] void hot_end_string(char* written_end) {
        const auto n = static_cast<std::size_t>(written_end - tw_.hot_bytes(0));
        count();
        std::uint64_t* w = tw_.hot_words(2);
        tw_.payload(w, kind::string, 0, n);
        if (n > 4096) {
            check_budget();
        }
        after();
    }
    /// A tagged value: the next element is its inner value (no end index, as the builder).
    bool begin_tagged(std::uint64_t tag, tag_space space = tag_space::cbor) {
        if (depth_ >= limits_.max_depth || depth_ >= tape_sink_max_depth) {
            return false;
        }
        count();
        const std::size_t start = tw_.size();
        std::uint64_t* w = tw_.words(2);
        w[0] = tape_word(kind::tagged, static_cast<std::uint64_t>(space), 0);
        w[1] = tag;
        tw_.advance(2);
        stack_[depth_++] = {start, 0, true};
        ++tags_;
        return true;
    }
    bool begin_array() { return begin(kind::array); }
    bool begin_map() { return begin(kind::map); }
    void end_array() { end(); }
    void end_map() { end(); }

    std::size_t depth() const noexcept { return depth_; }
    bool ok() const noexcept { return ok_; }
    const build_limits& limits() const noexcept { return limits_; }

    /// The document is complete: false when the size budget was passed on the way.
    bool finish() {
        if (!ok_ || depth_ != 0) {
            return false;
        }
        tw_.finish();
        return true;
    }

private:
    struct frame {
        std::size_t start;
        std::size_t count;
        bool tag;  // a tagged value waiting for (or done with) its inner element
    };

    // After a complete element: the tags it completes are done.
    [[gnu::always_inline]] void after() noexcept {
        if (tags_ == 0) {
            return;
        }
        while (depth_ != 0 && stack_[depth_ - 1].tag && stack_[depth_ - 1].count > 0) {
            --depth_;
            --tags_;
        }
    }

    [[gnu::always_inline]] void count() noexcept {
        if (depth_ != 0) {
            ++stack_[depth_ - 1].count;
        }
    }
    [[gnu::always_inline]] void word1(kind k) {
        count();
        std::uint64_t* w = tw_.words(1);
        w[0] = tape_word(k, 0, 0);
        tw_.advance(1);
        after();
    }
    [[gnu::always_inline]] void word2(kind k, std::uint64_t v) {
        count();
        std::uint64_t* w = tw_.words(2);
        writer::scalar(w, k, v);
        tw_.advance(2);
        after();
    }
    [[gnu::always_inline]] void payload(kind k, std::uint64_t aux, std::string_view s) {
        count();
        char* d = tw_.bytes(s.size());
        if (!s.empty()) {
            std::memcpy(d, s.data(), s.size());
        }
        std::uint64_t* w = tw_.words(2);
        tw_.payload(w, k, aux, s.size());
        if (s.size() > 4096) {
            check_budget();
        }
        after();
    }
    void check_budget() noexcept {
        if (tw_.over_budget(limits_.max_bytes)) {
            ok_ = false;
        }
    }
    bool begin(kind k) {
        if (depth_ >= limits_.max_depth || depth_ >= tape_sink_max_depth) {
            return false;
        }
        check_budget();
        if (!ok_) {
            return false;
        }
        count();
        const std::size_t start = tw_.size();
        std::uint64_t* w = tw_.words(2);
        tw_.open(w, k, 0);
        stack_[depth_++] = {start, 0, false};
        return true;
    }
    void end() noexcept {
        if (depth_ == 0) {
            return;
        }
        const frame f = stack_[--depth_];
        const bool is_map = (tw_.at(f.start) >> document::kind_shift) ==
                            static_cast<std::uint64_t>(kind::map);
        tw_.close(f.start, is_map ? f.count / 2 : f.count);
        after();
    }

    writer tw_;
    build_limits limits_;
    std::size_t depth_ = 0;
    std::size_t tags_ = 0;  // open tags on the stack
    bool ok_ = true;
    frame stack_[tape_sink_max_depth];
};

/// The error a reader reports for a container its sink refused (the fast path discards it).
inline error limit_error(const tape_sink&, std::size_t at) {
    return make_error(errc::depth_exceeded, at, "limit");
}

/// Adds a decimal integer (optional '-', digits, no leading zeros) as int64, uint64 or bignum,
/// as text::add_decimal_integer does, to either sink; up to 18 digits without from_chars.
template <class Sink>
void add_decimal_integer(Sink& b, std::string_view digits) {
    const char* first = digits.data();
    const char* last = first + digits.size();
    const bool neg = !digits.empty() && digits[0] == '-';
    std::uint64_t v = 0;
    const std::ptrdiff_t n = last - first - (neg ? 1 : 0);
    if (n >= 1 && n <= 18 && small_decimal(first + (neg ? 1 : 0), last, v)) {
        if (neg) {
            b.add_int(-static_cast<std::int64_t>(v));
        } else {
            b.add_uint(v);
        }
        return;
    }
    if (neg) {
        std::int64_t sv = 0;
        auto r = std::from_chars(first, last, sv);
        if (r.ec == std::errc() && r.ptr == last) {
            b.add_int(sv);
            return;
        }
    } else {
        auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
            b.add_uint(v);
            return;
        }
    }
    b.add_bignum(digits);
}

/// What the recursive-descent readers over a sink share (ron, sexpr): the input and the
/// position, what the input holds at a byte for messages, "expected X, saw Y", the error of a
/// container the sink refused, and the end-of-input check.
template <class Sink>
class text_cursor {
public:
    text_cursor(std::string_view in, Sink& b) : in_(in), b_(b) {}

protected:
    std::string describe_at(std::size_t p) const { return describe_byte_at(in_, p); }
    error unexpected(const char* expected) const { return unexpected_at(in_, pos_, expected); }
    result<void> container_limit() { return fail(limit_error(b_, pos_)); }
    char peek(std::size_t p) const { return p < in_.size() ? in_[p] : '\0'; }
    /// Nothing is left (the caller skipped the trailing whitespace): else trailing_content.
    result<void> at_end() const {
        if (pos_ != in_.size()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input, saw " + describe_at(pos_)));
        }
        return {};
    }

    std::string_view in_;
    Sink& b_;
    std::size_t pos_ = 0;
};

/// True when the tape path may take the input: an empty builder at depth 0 whose depth limit
/// the sink's stack holds.
inline bool tape_sink_applies(builder& b) {
    return b.depth() == 0 && b.ok() && b.doc().empty() && b.doc().bytes().empty() &&
           b.limits().max_depth <= tape_sink_max_depth;
}

/// Runs `Reader<tape_sink>` and, when it does not finish, `Reader<builder>` on a reset
/// builder. Reader<S>(in, sink).run() returns result<void>.
template <template <class> class Reader, class... Extra>
result<void> decode_text_fast(std::string_view in, builder& b, Extra&... extra) {
    if (tape_sink_applies(b)) {
        bool done = false;
        {
            tape_sink sink(b);
            Reader<tape_sink> r(in, sink, extra...);
            done = r.run() && sink.finish();
        }
        if (done) {
            return {};
        }
        b.reset();
    }
    Reader<builder> r(in, b, extra...);
    auto done = r.run();  // result<void> or detail::step
    if (!done) {
        return fail(std::move(done).error());
    }
    return {};
}

}  // namespace polycodec::detail
