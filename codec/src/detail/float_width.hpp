#pragma once
// Float widths of the binary formats: a double narrowed to IEEE 754 binary32 only when that
// keeps it exactly (the preferred serialization of RFC 8949 section 4.1: CBOR, and MessagePack
// with canonical=true), and binary32 widened back without touching a NaN's bits.

#include <cmath>
#include <cstdint>
#include <cstring>

namespace polycodec::detail {

/// The binary32 bits of `d` when binary32 holds it exactly: every double that a float
/// converts back to (0.5 -> 0x3f000000, ±0, ±Inf, subnormal floats). A NaN narrows when
/// its payload has no bits below the 23 a float keeps, so that zero-padding the float's
/// significand on the right gives back the same double (RFC 8949 section 4.1); sign, quiet
/// bit and payload are kept bit for bit (0x7ff8000000000000 -> 0x7fc00000, a signalling
/// 0x7ff4000000000000 -> 0x7fa00000), never through the FPU, which would quiet it.
inline bool narrow_to_float32(double d, std::uint32_t& out) noexcept {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    if (std::isnan(d)) {
        if ((b & ((std::uint64_t{1} << 29) - 1)) != 0) {
            return false;
        }
        out = static_cast<std::uint32_t>((b >> 32) & 0x80000000u) | 0x7f800000u |
              static_cast<std::uint32_t>((b >> 29) & 0x7fffffu);
        return true;
    }
    if (std::fabs(d) > 3.4028234663852886e38 && !std::isinf(d)) {
        return false;  // beyond FLT_MAX: no float holds it (and the cast would round to Inf)
    }
    const float f = static_cast<float>(d);
    if (static_cast<double>(f) != d) {
        return false;
    }
    std::memcpy(&out, &f, 4);
    return true;
}

/// The double that binary32 `bits` holds, exactly: the inverse of narrow_to_float32 (a NaN
/// keeps sign, quiet bit and payload, the payload padded with zeros on the right).
inline double widen_float32(std::uint32_t bits) noexcept {
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0) {
        const std::uint64_t b = (static_cast<std::uint64_t>(bits & 0x80000000u) << 32) |
                                0x7ff0000000000000u |
                                (static_cast<std::uint64_t>(bits & 0x7fffffu) << 29);
        double d;
        std::memcpy(&d, &b, 8);
        return d;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return static_cast<double>(f);
}

}  // namespace polycodec::detail
