#pragma once
// Number text: the shared float text (shortest round-trip digits) and integer digits.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "detail/shortest_double.hpp"
#include "polycodec/buffer.hpp"

namespace polycodec::detail {

/// Writes `d` (finite) as the float text of the text formats: shortest_double_chars
/// (detail/shortest_double.hpp: the shortest round-trip digits in JavaScript's layout, no '+'
/// in the exponent), with ".0" appended when the text would otherwise read as an integer
/// ("1.0", "-0.0", "100000000000000000000.0"; "1e21" and "1e-7" stay as they are).
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
