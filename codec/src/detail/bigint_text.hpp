#pragma once
// Exact conversion between an unsigned integer's decimal text and its big-endian magnitude
// bytes (CBOR tags 2 and 3). Quadratic, meant for the rare bignum, not for bulk numbers.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace polycodec::detail {

/// Little-endian base-2^32 limbs of a non-negative integer; empty means zero.
using bigint_limbs = std::vector<std::uint32_t>;

inline void bigint_trim(bigint_limbs& a) {
    while (!a.empty() && a.back() == 0) {
        a.pop_back();
    }
}

/// Limbs of decimal digits `s` (only '0'-'9', at least one).
inline bigint_limbs bigint_from_decimal(std::string_view s) {
    bigint_limbs a;
    for (char c : s) {
        std::uint64_t carry = static_cast<std::uint64_t>(c - '0');
        for (auto& limb : a) {
            std::uint64_t v = static_cast<std::uint64_t>(limb) * 10 + carry;
            limb = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
        if (carry != 0) {
            a.push_back(static_cast<std::uint32_t>(carry));
        }
    }
    bigint_trim(a);
    return a;
}

/// Limbs of big-endian magnitude bytes.
inline bigint_limbs bigint_from_bytes(std::string_view be) {
    bigint_limbs a((be.size() + 3) / 4, 0);
    for (std::size_t i = 0; i < be.size(); ++i) {
        std::size_t bit = (be.size() - 1 - i) * 8;
        a[bit / 32] |= static_cast<std::uint32_t>(static_cast<unsigned char>(be[i])) << (bit % 32);
    }
    bigint_trim(a);
    return a;
}

/// Adds `d` (0 or 1 in practice) in place.
inline void bigint_add_small(bigint_limbs& a, std::uint32_t d) {
    std::uint64_t carry = d;
    for (auto& limb : a) {
        if (carry == 0) {
            return;
        }
        std::uint64_t v = static_cast<std::uint64_t>(limb) + carry;
        limb = static_cast<std::uint32_t>(v);
        carry = v >> 32;
    }
    if (carry != 0) {
        a.push_back(static_cast<std::uint32_t>(carry));
    }
}

/// Subtracts one in place; `a` must not be zero.
inline void bigint_sub_one(bigint_limbs& a) {
    for (auto& limb : a) {
        if (limb-- != 0) {
            break;
        }
    }
    bigint_trim(a);
}

/// Minimal big-endian bytes ("" for zero).
inline std::string bigint_to_bytes(const bigint_limbs& a) {
    std::string out;
    for (std::size_t i = a.size(); i-- > 0;) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            char c = static_cast<char>((a[i] >> shift) & 0xff);
            if (out.empty() && c == 0) {
                continue;
            }
            out.push_back(c);
        }
    }
    return out;
}

/// Decimal digits ("0" for zero).
inline std::string bigint_to_decimal(bigint_limbs a) {
    std::string out;
    while (!a.empty()) {
        std::uint64_t rem = 0;
        for (std::size_t i = a.size(); i-- > 0;) {
            std::uint64_t v = (rem << 32) | a[i];
            a[i] = static_cast<std::uint32_t>(v / 1000000000u);
            rem = v % 1000000000u;
        }
        bigint_trim(a);
        for (int k = 0; k < 9; ++k) {
            out.push_back(static_cast<char>('0' + rem % 10));
            rem /= 10;
            if (a.empty() && rem == 0) {
                break;
            }
        }
    }
    if (out.empty()) {
        out.push_back('0');
    }
    std::reverse(out.begin(), out.end());
    return out;
}

/// The value when it fits in 64 bits.
inline bool bigint_to_u64(const bigint_limbs& a, std::uint64_t& v) {
    if (a.size() > 2) {
        return false;
    }
    v = 0;
    for (std::size_t i = a.size(); i-- > 0;) {
        v = (v << 32) | a[i];
    }
    return true;
}

}  // namespace polycodec::detail
