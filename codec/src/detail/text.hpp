#pragma once
// Small text helpers shared by the JSON5, HJSON and CSV readers and writers and by infer.hpp:
// code point decoding of input that is already valid UTF-8, hex digits, error wording, integer
// text classification.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "polycodec/document.hpp"

namespace polycodec::detail::text {

/// The code point at `p` of valid UTF-8 `s` and its length in bytes.
inline std::uint32_t decode_cp(std::string_view s, std::size_t p, std::size_t& len) noexcept {
    auto c = static_cast<unsigned char>(s[p]);
    if (c < 0x80) {
        len = 1;
        return c;
    }
    auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(s[p + k]) & 0x3F; };
    if (c < 0xE0) {
        len = 2;
        return ((c & 0x1Fu) << 6) | at(1);
    }
    if (c < 0xF0) {
        len = 3;
        return ((c & 0x0Fu) << 12) | (at(1) << 6) | at(2);
    }
    len = 4;
    return ((c & 0x07u) << 18) | (at(1) << 12) | (at(2) << 6) | at(3);
}

inline int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/// `n` hex digits at `p` as a number, or -1.
inline long hex_n(std::string_view s, std::size_t p, int n) noexcept {
    if (p + static_cast<std::size_t>(n) > s.size()) {
        return -1;
    }
    long v = 0;
    for (int i = 0; i < n; ++i) {
        int h = hex_value(s[p + static_cast<std::size_t>(i)]);
        if (h < 0) {
            return -1;
        }
        v = v * 16 + h;
    }
    return v;
}

/// "'x'", "U+00A0", "end of input": what the reader saw at `p`, for messages.
inline std::string describe_at(std::string_view s, std::size_t p) {
    if (p >= s.size()) {
        return "end of input";
    }
    auto c = static_cast<unsigned char>(s[p]);
    char buf[32];
    if (c >= 0x21 && c < 0x7f) {
        std::snprintf(buf, sizeof buf, "'%c'", c);
    } else if (c < 0x80) {
        std::snprintf(buf, sizeof buf, "U+%04X", c);
    } else {
        std::size_t len = 0;
        std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(decode_cp(s, p, len)));
    }
    return buf;
}

/// Adds a decimal integer (optional '-', digits, no leading zeros) as int64, uint64 or bignum,
/// to the builder or a builder-shaped sink (detail::tape_sink).
template <class Builder>
inline void add_decimal_integer(Builder& b, std::string_view digits) {
    const char* first = digits.data();
    const char* last = first + digits.size();
    if (!digits.empty() && digits[0] == '-') {
        std::int64_t v = 0;
        auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
            b.add_int(v);
            return;
        }
        if (digits == "-0") {
            b.add_int(0);
            return;
        }
    } else {
        std::uint64_t v = 0;
        auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
            b.add_uint(v);
            return;
        }
    }
    b.add_bignum(digits);
}

/// For a decimal text std::from_chars found out of range: true when it overflows (its
/// magnitude is beyond the doubles: "1e400", or 400 digits before the point with no exponent),
/// false when it underflows ("1e-400"). strtod decides, as parse_double reads such texts.
inline bool decimal_overflows(std::string_view t) {
    std::string copy(t);
    return std::isinf(std::strtod(copy.c_str(), nullptr));
}

/// Reads a decimal floating-point text (no leading '+'); false when it is not one. Values
/// beyond the double range become infinities, tiny ones round as strtod does.
inline bool parse_double(std::string_view t, double& out) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), out);
    if (r.ec == std::errc() && r.ptr == t.data() + t.size()) {
        return true;
    }
    if (r.ec == std::errc::result_out_of_range && r.ptr == t.data() + t.size()) {
        std::string copy(t);
        out = std::strtod(copy.c_str(), nullptr);
        return true;
    }
    return false;
}

/// Big-endian hex digits (no prefix) as decimal text, for hex literals beyond 64 bits.
inline std::string hex_to_decimal(std::string_view hex) {
    std::string dec = "0";  // little-endian decimal digits
    for (char h : hex) {
        int carry = hex_value(h);
        for (char& d : dec) {
            int v = (d - '0') * 16 + carry;
            d = static_cast<char>('0' + v % 10);
            carry = v / 10;
        }
        while (carry > 0) {
            dec.push_back(static_cast<char>('0' + carry % 10));
            carry /= 10;
        }
    }
    while (dec.size() > 1 && dec.back() == '0') {
        dec.pop_back();
    }
    return std::string(dec.rbegin(), dec.rend());
}

}  // namespace polycodec::detail::text

namespace polycodec::detail::text {

/// ECMAScript WhiteSpace and LineTerminator (what String.prototype.trim and \s remove).
constexpr bool is_js_space(std::uint32_t cp) noexcept {
    return cp == 0x09 || cp == 0x0A || cp == 0x0B || cp == 0x0C || cp == 0x0D || cp == 0x20 ||
           cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

/// `s` without leading and trailing ECMAScript white space (String.prototype.trim).
inline std::string_view js_trim(std::string_view s) noexcept {
    std::size_t b = 0;
    while (b < s.size()) {
        std::size_t len;
        if (!is_js_space(decode_cp(s, b, len))) {
            break;
        }
        b += len;
    }
    std::size_t e = s.size();
    while (e > b) {
        std::size_t k = e - 1;
        while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) {
            --k;
        }
        std::size_t len;
        if (!is_js_space(decode_cp(s, k, len))) {
            break;
        }
        e = k;
    }
    return s.substr(b, e - b);
}

/// A set of bytes for scan_to, as a 256-entry table built at compile time.
struct byte_set {
    bool has[256] = {};
    constexpr explicit byte_set(std::string_view bytes) {
        for (char c : bytes) {
            has[static_cast<unsigned char>(c)] = true;
        }
    }
};

/// The first position at or after `p` whose byte is in `set`, or s.size(): a scanner's skip over
/// the bytes that need no attention (one table load and compare a byte).
inline std::size_t scan_to(std::string_view s, std::size_t p, const byte_set& set) noexcept {
    const auto* d = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    while (p < n && !set.has[d[p]]) {
        ++p;
    }
    return p;
}

}  // namespace polycodec::detail::text
