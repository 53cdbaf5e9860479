#pragma once
// Number text: shortest round-trip floats (std::to_chars) and exact integer parsing.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "detail/shortest_double.hpp"
#include "polycodec/buffer.hpp"

namespace polycodec::detail {

/// The text std::to_chars(first, last, d) writes, for the common doubles with at most 8
/// decimals and a magnitude times 10^decimals below 2^49 (prices, coordinates, measurements),
/// written directly: to_chars costs about 640 instructions per double, most of a JSON or YAML
/// encode (docs/BENCHMARKS.md). Returns the length, or 0 when `d` is not such a value or to_chars
/// would choose the scientific form; the caller then calls to_chars itself.
///
/// Why the text is the same: if m / 10^k == d for the smallest such k (the division of two
/// exact doubles is correctly rounded, as strtod of "m e-k" is), m * 10^-k reads back as d, and
/// a representation with fewer significant digits would have fewer decimals, hence a smaller
/// k; to_chars prints the shortest digits in fixed notation unless scientific is shorter (a
/// tie goes to fixed, [charconv.to.chars]).
inline std::size_t short_decimal_chars(char* p, double d) noexcept {
    static constexpr double pow10[9] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    static constexpr std::uint64_t ipow10[9] = {1,      10,      100,      1000,     10000,
                                                100000, 1000000, 10000000, 100000000};
    const bool neg = std::signbit(d);
    const double a = neg ? -d : d;
    if (!(a > 0 && a < 9007199254740992.0)) {  // also rejects NaN, infinities and zeros
        return 0;
    }
    int k = 0;
    std::uint64_t m = 0;
    for (;; ++k) {
        if (k > 8) {
            return 0;
        }
        // Below 2^49, ulp(a) * 10^k <= 1/8: at most one multiple of 10^-k reads back as a,
        // and rounding `scaled` to the nearest integer finds it.
        const double scaled = a * pow10[k];
        if (scaled >= 562949953421312.0) {
            return 0;
        }
        m = static_cast<std::uint64_t>(scaled + 0.5);
        if (static_cast<double>(m) / pow10[k] == a) {
            break;
        }
    }
    auto digits10 = [](std::uint64_t v) {  // v < 2^49
        static constexpr std::uint64_t bound[15] = {
            10u,           100u,           1000u,           10000u,           100000u,
            1000000u,      10000000u,      100000000u,      1000000000u,      10000000000u,
            100000000000u, 1000000000000u, 10000000000000u, 100000000000000u, 1000000000000000u};
        int n = 1;
        while (n <= 15 && v >= bound[n - 1]) {
            ++n;
        }
        return n;
    };
    const int mdigits = digits10(m);
    int sig = mdigits;  // significant digits: m without trailing zeros (only k == 0 has any)
    if (k == 0) {
        std::uint64_t stripped = m;
        while (stripped % 10 == 0) {
            stripped /= 10;
            --sig;
        }
    }
    const int exp10 = mdigits - 1 - k;
    const int exp_abs = exp10 < 0 ? -exp10 : exp10;
    const int sci_len = sig + (sig > 1 ? 1 : 0) + 2 + (exp_abs >= 100 ? 3 : 2);
    const std::uint64_t ip = m / ipow10[k];
    const int fixed_len = digits10(ip) + (k > 0 ? 1 + k : 0);
    if (fixed_len > sci_len) {
        return 0;
    }
    char* w = p;
    if (neg) {
        *w++ = '-';
    }
    w = std::to_chars(w, w + 20, ip).ptr;
    if (k > 0) {
        *w++ = '.';
        std::uint64_t frac = m % ipow10[k];
        for (int i = k - 1; i >= 0; --i) {
            w[i] = static_cast<char>('0' + frac % 10);
            frac /= 10;
        }
        w += k;
    }
    return static_cast<std::size_t>(w - p);
}

/// Writes `d` (finite) in the shortest form that reads back to the same double, with ".0"
/// appended when the text would otherwise read as an integer ("1.0", "-0.0", "1e+300" stays).
/// The digits are std::to_chars's (shortest round trip, plain format), computed in-tree by
/// shortest_double_chars (detail/shortest_double.hpp), byte-identical to to_chars.
inline void write_double(output_buffer& out, double d) {
    char* p = out.prepare(48);
    if (std::isfinite(d)) [[likely]] {
        bool integral;
        std::size_t n = shortest_double_chars(p, d, &integral);
        if (integral) {
            p[n++] = '.';
            p[n++] = '0';
        }
        out.commit(n);
        return;
    }
    auto r = std::to_chars(p, p + 32, d);  // "inf", "-inf", "nan", "-nan"
    out.commit(static_cast<std::size_t>(r.ptr - p));
}

/// The decimal digits of `v` at `p` (at most 20); returns the end. Same text as std::to_chars.
inline char* write_uint_digits(char* p, std::uint64_t v) noexcept {
    return shortest_impl::put_uint(p, v);
}

inline void write_int(output_buffer& out, std::int64_t v) {
    char* p = out.prepare(24);
    char* w = p;
    std::uint64_t u = static_cast<std::uint64_t>(v);
    if (v < 0) {
        *w++ = '-';
        u = 0 - u;
    }
    w = write_uint_digits(w, u);
    out.commit(static_cast<std::size_t>(w - p));
}

inline void write_uint(output_buffer& out, std::uint64_t v) {
    char* p = out.prepare(24);
    out.commit(static_cast<std::size_t>(write_uint_digits(p, v) - p));
}

}  // namespace polycodec::detail
