#pragma once
// The exponent part of a number's text ("e-12"), as edn's decimal literals and yaml's float
// scalars check it.

#include <cstddef>
#include <string_view>

namespace polycodec::detail {

/// At `p` an optional exponent: 'e' or 'E', an optional sign, one or more digits. Moves `p`
/// past it; false when an 'e' has no digits after it (true, `p` kept, when there is no 'e').
inline bool skip_exponent(std::string_view t, std::size_t& p) noexcept {
    if (p >= t.size() || (t[p] != 'e' && t[p] != 'E')) {
        return true;
    }
    ++p;
    if (p < t.size() && (t[p] == '+' || t[p] == '-')) {
        ++p;
    }
    std::size_t digits = p;
    while (p < t.size() && t[p] >= '0' && t[p] <= '9') {
        ++p;
    }
    return p != digits;
}

}  // namespace polycodec::detail
