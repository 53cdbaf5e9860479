#pragma once
// The text of a double where a format writes numbers as text: the shortest round-trip decimal,
// or for NaN and the infinities the format's names (TOML's "nan", "inf", "-inf"), by default
// JavaScript's "NaN", "Infinity" and "-Infinity" (bencode's float strings, XML character data,
// the inferred scalars of detail/infer.hpp); and the reverse for those three names
// (detail/infer.hpp's typing, protojson's float fields).

#include <cmath>
#include <limits>
#include <string_view>

#include "detail/number.hpp"
#include "polycodec/buffer.hpp"

namespace polycodec::detail {

/// How a format spells NaN and the infinities.
struct nonfinite_names {
    std::string_view nan;
    std::string_view inf;
    std::string_view neg_inf;
};
/// JavaScript's spellings (and ProtoJSON's, and the inferred scalars').
inline constexpr nonfinite_names js_nonfinite{"NaN", "Infinity", "-Infinity"};

/// Appends the text of `d`: write_double's decimal text when it is finite, else its name.
inline void write_double_text(output_buffer& out, double d,
                              const nonfinite_names& names = js_nonfinite) {
    if (std::isfinite(d)) {
        write_double(out, d);
        return;
    }
    out.append(std::isnan(d) ? names.nan : d > 0 ? names.inf : names.neg_inf);
}

/// The double named by "NaN", "Infinity" or "-Infinity" in `d`; false (d untouched) for any
/// other text.
inline bool nonfinite_of(std::string_view s, double& d) noexcept {
    if (s == "NaN") {
        d = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    if (s == "Infinity" || s == "-Infinity") {
        d = s[0] == '-' ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
        return true;
    }
    return false;
}

}  // namespace polycodec::detail
