#pragma once
// Number text: shortest round-trip floats (std::to_chars) and exact integer parsing.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "polycodec/buffer.hpp"

namespace polycodec::detail {

/// Writes `d` (finite) in the shortest form that reads back to the same double, with ".0"
/// appended when the text would otherwise read as an integer ("1.0", "-0.0", "1e+300" stays).
inline void write_double(output_buffer& out, double d) {
    char* p = out.prepare(32);
    auto r = std::to_chars(p, p + 32, d);
    std::size_t n = static_cast<std::size_t>(r.ptr - p);
    bool integral = true;
    for (std::size_t i = 0; i < n; ++i) {
        char c = p[i];
        if (c == '.' || c == 'e' || c == 'E' || c == 'n' || c == 'i') {
            integral = false;
            break;
        }
    }
    if (integral) {
        p[n++] = '.';
        p[n++] = '0';
    }
    out.commit(n);
}

inline void write_int(output_buffer& out, std::int64_t v) {
    char* p = out.prepare(24);
    auto r = std::to_chars(p, p + 24, v);
    out.commit(static_cast<std::size_t>(r.ptr - p));
}

inline void write_uint(output_buffer& out, std::uint64_t v) {
    char* p = out.prepare(24);
    auto r = std::to_chars(p, p + 24, v);
    out.commit(static_cast<std::size_t>(r.ptr - p));
}

}  // namespace polycodec::detail
