#pragma once
// The one float text of every text format (docs/formats/json.md "Float text"): the shortest
// digits that read back to the same double, laid out as JavaScript's Number.prototype.toString
// lays them out, but with no '+' in the exponent (1e21, 1e-7, 123456789012345680000). Formats
// add their own syntax around it (".0" on integral values, YAML 1.1's "1.0e+21") and spell
// NaN and the infinities themselves. Computed in-tree: about 5x fewer instructions than
// libstdc++'s to_chars (docs/BENCHMARKS.md).
//
// Digits: Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020), the same
// shortest digits as Ryu, which libstdc++ uses: the shortest decimal in the rounding interval
// of the double, the one closest to it when several have that length, the even one on a tie.
//
// Checked against std::to_chars's scientific digits laid out by the rules below (the
// JsonEncode.DoublesMatchReferenceLayout test in tests/codec/json_test.cpp), and against
// node's JSON.stringify and Python's repr in tests/differential/test_float_text.py.

#include <charconv>
#include <cstdint>
#include <cstring>

#include "detail/pow10_table.hpp"

namespace polycodec::detail {

namespace shortest_impl {

__extension__ typedef unsigned __int128 uint128;

struct decimal {
    std::uint64_t m;  // significand, may have trailing zeros
    int e;            // decimal exponent: value = m * 10^e
};

// floor(g * cp / 2^128) with its lowest bit set when the discarded part is not (nearly) zero.
inline std::uint64_t round_to_odd(const std::uint64_t (&g)[2], std::uint64_t cp) noexcept {
    const uint128 x = static_cast<uint128>(g[1]) * cp;
    const uint128 y = static_cast<uint128>(g[0]) * cp;
    const std::uint64_t x1 = static_cast<std::uint64_t>(x >> 64);
    const std::uint64_t y0 = static_cast<std::uint64_t>(y);
    const std::uint64_t y1 = static_cast<std::uint64_t>(y >> 64);
    const std::uint64_t z = y0 + x1;
    const std::uint64_t z1 = y1 + (z < y0 ? 1 : 0);
    return z1 | (z > 1 ? 1 : 0);
}

// The shortest decimal of a finite, non-zero double's magnitude (bits without the sign).
inline decimal to_decimal(std::uint64_t bits) noexcept {
    const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    const int biased = static_cast<int>(bits >> 52);
    std::uint64_t c;
    int q;
    if (biased != 0) {
        c = fraction | (std::uint64_t{1} << 52);
        q = biased - 1075;
        // An integer below 2^53: its digits are exact and shortest (the interval holds no
        // other integer).
        if (q <= 0 && q > -53 && (c & ((std::uint64_t{1} << -q) - 1)) == 0) {
            return {c >> -q, 0};
        }
    } else {
        c = fraction;
        q = -1074;
    }
    const bool even = (c & 1) == 0;
    const bool lower_closer = fraction == 0 && biased > 1;
    const std::uint64_t cbl = 4 * c - 2 + (lower_closer ? 1 : 0);
    const std::uint64_t cb = 4 * c;
    const std::uint64_t cbr = 4 * c + 2;
    // floor(log10(2^q)), or floor(log10(3/4 * 2^q)) when the lower boundary is closer
    // (arithmetic shift: floor division).
    const int k = (q * 1262611 - (lower_closer ? 524031 : 0)) >> 22;
    const int h = q + ((-k * 1741647) >> 19) + 1;  // q + floor(log2(10^-k)) + 1, in [1, 4]
    const auto& g = pow10_table[-k - pow10_table_min];
    const std::uint64_t vbl = round_to_odd(g, cbl << h);
    const std::uint64_t vb = round_to_odd(g, cb << h);
    const std::uint64_t vbr = round_to_odd(g, cbr << h);
    const std::uint64_t lower = vbl + (even ? 0 : 1);
    const std::uint64_t upper = vbr - (even ? 0 : 1);
    const std::uint64_t s = vb / 4;
    if (s >= 10) {
        const std::uint64_t sp = s / 10;
        const bool up_inside = lower <= 40 * sp;
        const bool wp_inside = 40 * sp + 40 <= upper;
        if (up_inside != wp_inside) {
            return {sp + (wp_inside ? 1 : 0), k + 1};
        }
    }
    const bool u_inside = lower <= 4 * s;
    const bool w_inside = 4 * s + 4 <= upper;
    if (u_inside != w_inside) {
        return {s + (w_inside ? 1 : 0), k};
    }
    const std::uint64_t mid = 4 * s + 2;
    const bool round_up = vb > mid || (vb == mid && (s & 1) != 0);
    return {s + (round_up ? 1 : 0), k};
}

inline constexpr char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Exactly 4 digits (v < 10^4), exactly 8 digits (v < 10^8).
inline void put4(char* p, std::uint32_t v) noexcept {
    std::memcpy(p, digit_pairs + 2 * (v / 100), 2);
    std::memcpy(p + 2, digit_pairs + 2 * (v % 100), 2);
}
inline void put8(char* p, std::uint32_t v) noexcept {
    put4(p, v / 10000);
    put4(p + 4, v % 10000);
}
// 1 to 4 digits without leading zeros (v < 10^4); returns the end.
inline char* put_upto4(char* p, std::uint32_t v) noexcept {
    if (v < 10) {
        *p = static_cast<char>('0' + v);
        return p + 1;
    }
    if (v < 100) {
        std::memcpy(p, digit_pairs + 2 * v, 2);
        return p + 2;
    }
    if (v < 1000) {
        *p = static_cast<char>('0' + v / 100);
        std::memcpy(p + 1, digit_pairs + 2 * (v % 100), 2);
        return p + 3;
    }
    put4(p, v);
    return p + 4;
}
// 1 to 8 digits without leading zeros (v < 10^8); returns the end.
inline char* put_upto8(char* p, std::uint32_t v) noexcept {
    if (v < 10000) {
        return put_upto4(p, v);
    }
    p = put_upto4(p, v / 10000);
    put4(p, v % 10000);
    return p + 4;
}
// The decimal digits of any uint64 (1 to 20, as std::to_chars); returns the end.
inline char* put_uint(char* p, std::uint64_t v) noexcept {
    if (v < 100000000u) {
        return put_upto8(p, static_cast<std::uint32_t>(v));
    }
    if (v < 10000000000000000u) {
        p = put_upto8(p, static_cast<std::uint32_t>(v / 100000000u));
        put8(p, static_cast<std::uint32_t>(v % 100000000u));
        return p + 8;
    }
    p = put_upto4(p, static_cast<std::uint32_t>(v / 10000000000000000u));  // <= 1844
    v %= 10000000000000000u;
    put8(p, static_cast<std::uint32_t>(v / 100000000u));
    put8(p + 8, static_cast<std::uint32_t>(v % 100000000u));
    return p + 16;
}

}  // namespace shortest_impl

/// Writes the shortest text that reads back as `d` (finite) and returns its length (at most
/// 25). The digits are the shortest that round-trip, the closest to `d` when several have that
/// length (ECMAScript Number::toString, Python repr, std::to_chars and Ryu agree on them). The
/// layout is JavaScript's Number.prototype.toString (ECMA-262 section 6.1.6.1.20), with no
/// '+' in the exponent: with k digits and decimal exponent n (value = 0.d1d2...dk * 10^n)
///   k <= n <= 21    digits then n - k zeros             123456789012345680000, 1e21 -> below
///   0 < n <= 21     digits with the point after n        1.5, 12.25
///   -6 < n <= 0     "0." then -n zeros then digits       0.000001
///   otherwise       d[.ddd]e[-]X, X without zeros ahead  1e21, 1e-7, 1.7976931348623157e308
/// A negative value (and -0.0) starts with '-'; zero is "0". `p` must have room for 48 bytes:
/// the bytes after the text may be overwritten. `*integral` is set when the text has neither
/// '.' nor an exponent (the first line above, and zero).
inline std::size_t shortest_double_chars(char* p, double d, bool* integral = nullptr) noexcept {
    using namespace shortest_impl;
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    char* w = p;
    if ((bits >> 63) != 0) {
        *w++ = '-';
        bits &= ~(std::uint64_t{1} << 63);
    }
    if (integral != nullptr) {
        *integral = false;
    }
    if (bits == 0) {
        *w++ = '0';
        if (integral != nullptr) {
            *integral = true;
        }
        return static_cast<std::size_t>(w - p);
    }
    decimal dec = to_decimal(bits);
    // Trailing zeros (Schubfach's digits have up to 16 of them, e.g. 17.5 -> 1750000000000000
    // * 10^-14): binary search, each test a multiplication (exact division check).
    // Divides out 10^k when it divides m; true when it did.
    auto strip = [&dec](std::uint64_t ten_to_k, int k) {
        if (dec.m % ten_to_k != 0) {
            return false;
        }
        dec.m /= ten_to_k;
        dec.e += k;
        return true;
    };
    if (strip(100000000, 8)) {
        strip(100000000, 8);
    }
    strip(10000, 4);
    strip(100, 2);
    strip(10, 1);
    char tmp[32];  // the digits (at most 17), then room for the fixed-size copies below
    const int k = static_cast<int>(put_uint(tmp, dec.m) - tmp);
    const int x = dec.e + k - 1;  // scientific exponent (n - 1)
    if (x < 21) {
        if (dec.e >= 0) {  // ddd000: an integer below 10^21, at most 21 characters
            if (integral != nullptr) {
                *integral = true;
            }
            std::memcpy(w, tmp, 20);
            std::memset(w + k, '0', static_cast<std::size_t>(dec.e));
            return static_cast<std::size_t>(w + k + dec.e - p);
        }
        if (x >= 0) {  // ddd.ddd: at most 17 digits, the point after x + 1 of them
            std::memcpy(w, tmp, 16);
            w[x + 1] = '.';
            std::memcpy(w + x + 2, tmp + x + 1, 16);
            return static_cast<std::size_t>(w + k + 1 - p);
        }
        if (x >= -6) {  // 0.000ddd: at most 5 zeros after the point
            std::memcpy(w, "0.000000", 8);
            w += 1 - x;
            std::memcpy(w, tmp, 24);
            return static_cast<std::size_t>(w + k - p);
        }
    }
    // d.ddde[-]X
    w[0] = tmp[0];
    if (k > 1) {
        w[1] = '.';
        std::memcpy(w + 2, tmp + 1, 16);
        w += k + 1;
    } else {
        w += 1;
    }
    *w++ = 'e';
    int x_abs = x;
    if (x < 0) {
        *w++ = '-';
        x_abs = -x;
    }
    if (x_abs >= 100) {
        *w++ = static_cast<char>('0' + x_abs / 100);
        std::memcpy(w, digit_pairs + 2 * (x_abs % 100), 2);
        w += 2;
    } else if (x_abs >= 10) {
        std::memcpy(w, digit_pairs + 2 * x_abs, 2);
        w += 2;
    } else {
        *w++ = static_cast<char>('0' + x_abs);
    }
    return static_cast<std::size_t>(w - p);
}

}  // namespace polycodec::detail
