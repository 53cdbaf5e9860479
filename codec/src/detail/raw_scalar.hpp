#pragma once
// The fixed scalars of the fast text writers' tape walks, written at a raw char cursor that has
// room for them: put_raw_scalar writes null, false and true as their words, an int64 or a
// uint64 as its decimal digits and a finite float64 by the format's float text and moves the
// walk's index past them (json, yaml); put_int64_digits and json_float_chars are its int64 and
// float texts, for the writers whose own switch spells some scalars their own way (hjson, xml,
// csv). Everything else (strings, containers, non-finite floats) stays in the format's walk.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "detail/number.hpp"
#include "polycodec/document.hpp"

namespace polycodec::detail {

/// The float text of json, hjson, xml and csv at w (finite d): shortest_double_chars with
/// ".0" on integral values, as write_double writes it; returns its length.
[[gnu::always_inline]] inline std::size_t json_float_chars(char* w, double d) noexcept {
    bool integral;
    char* e = w + shortest_double_chars(w, d, &integral);
    if (integral) {
        std::memcpy(e, ".0", 2);
        e += 2;
    }
    return static_cast<std::size_t>(e - w);
}

/// The int64 of tape word u (its bits) as decimal text at w; returns the end.
[[gnu::always_inline]] inline char* put_int64_digits(char* w, std::uint64_t u) noexcept {
    if (static_cast<std::int64_t>(u) < 0) {
        *w++ = '-';
        w = write_uint_digits(w, 0 - u);
    } else {
        w = write_uint_digits(w, u);
    }
    return w;
}

/// Writes the element of kind k at tape index i at w (at least 48 bytes of room) when it is
/// null, a boolean, an int64, a uint64 or a finite float64 (its text by FloatChars, which
/// returns the length), moves w and i past it and returns true; otherwise (a non-finite
/// float64 included) writes nothing and returns false.
template <std::size_t (*FloatChars)(char*, double) noexcept>
[[gnu::always_inline]] inline bool put_raw_scalar(char*& w, kind k, const std::uint64_t* t,
                                                  std::size_t& i) noexcept {
    switch (k) {
        case kind::null:
        case kind::boolean_false:
        case kind::boolean_true: {
            // the word of kind 1, 2 or 3 as one 8-byte copy; "false" is the one of 5 letters
            static constexpr char words[4][8] = {{}, "null", "false", "true"};
            std::memcpy(w, words[static_cast<std::size_t>(k)], 8);
            w += k == kind::boolean_false ? 5 : 4;
            i += 1;
            return true;
        }
        case kind::int64:
            w = put_int64_digits(w, t[i + 1]);
            i += 2;
            return true;
        case kind::uint64:
            w = write_uint_digits(w, t[i + 1]);
            i += 2;
            return true;
        case kind::float64: {
            double d;
            std::memcpy(&d, &t[i + 1], 8);
            if (!std::isfinite(d)) [[unlikely]] {
                return false;
            }
            w += FloatChars(w, d);
            i += 2;
            return true;
        }
        default:
            return false;
    }
}

}  // namespace polycodec::detail
