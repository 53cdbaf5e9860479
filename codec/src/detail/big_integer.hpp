#pragma once
// Integers of any size as little-endian 32-bit limbs of their magnitude: the conversions
// between decimal text (the data model's bignum), two's complement bytes (pickle LONG1/LONG4)
// and 128-bit varints (postcard u128/i128). Shared by pickle.cpp and postcard.cpp.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/document.hpp"

namespace polycodec::detail {

/// A signed integer: `neg` and the magnitude's limbs, least significant first, no high zeros.
struct big_integer {
    bool neg = false;
    std::vector<std::uint32_t> mag;

    void trim() {
        while (!mag.empty() && mag.back() == 0) {
            mag.pop_back();
        }
        if (mag.empty()) {
            neg = false;
        }
    }
    bool is_zero() const { return mag.empty(); }
    std::size_t bit_length() const {
        if (mag.empty()) {
            return 0;
        }
        std::size_t bits = (mag.size() - 1) * 32;
        std::uint32_t top = mag.back();
        while (top != 0) {
            ++bits;
            top >>= 1;
        }
        return bits;
    }
    /// Multiplies by `m` and adds `a`.
    void mul_add(std::uint32_t m, std::uint32_t a) {
        std::uint64_t carry = a;
        for (auto& limb : mag) {
            std::uint64_t v = std::uint64_t{limb} * m + carry;
            limb = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
        if (carry != 0) {
            mag.push_back(static_cast<std::uint32_t>(carry));
        }
    }
    /// Divides by `d`, returns the remainder.
    std::uint32_t div_small(std::uint32_t d) {
        std::uint64_t rem = 0;
        for (std::size_t i = mag.size(); i-- > 0;) {
            std::uint64_t cur = (rem << 32) | mag[i];
            mag[i] = static_cast<std::uint32_t>(cur / d);
            rem = cur % d;
        }
        while (!mag.empty() && mag.back() == 0) {
            mag.pop_back();
        }
        return static_cast<std::uint32_t>(rem);
    }
    /// The low 64 bits of the magnitude.
    std::uint64_t low64() const {
        std::uint64_t v = 0;
        if (!mag.empty()) {
            v = mag[0];
        }
        if (mag.size() > 1) {
            v |= std::uint64_t{mag[1]} << 32;
        }
        return v;
    }
};

/// Parses optional '-' or '+' and decimal digits. False on anything else or no digits.
inline bool parse_decimal(std::string_view text, big_integer& out) {
    out.neg = false;
    out.mag.clear();
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
        out.neg = text[i] == '-';
        ++i;
    }
    if (i == text.size()) {
        return false;
    }
    std::uint32_t chunk = 0;
    std::uint32_t scale = 1;
    for (; i < text.size(); ++i) {
        char c = text[i];
        if (c < '0' || c > '9') {
            return false;
        }
        chunk = chunk * 10 + static_cast<std::uint32_t>(c - '0');
        scale *= 10;
        if (scale == 1000000000) {
            out.mul_add(scale, chunk);
            chunk = 0;
            scale = 1;
        }
    }
    if (scale != 1) {
        out.mul_add(scale, chunk);
    }
    out.trim();
    return true;
}

/// Decimal text of `v` (destroys v's magnitude).
inline std::string to_decimal(big_integer v) {
    v.trim();
    if (v.is_zero()) {
        return "0";
    }
    std::string digits;
    while (!v.mag.empty()) {
        std::uint32_t r = v.div_small(1000000000);
        for (int k = 0; k < 9; ++k) {
            digits.push_back(static_cast<char>('0' + r % 10));
            r /= 10;
            if (v.mag.empty() && r == 0) {
                break;
            }
        }
    }
    while (digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
    }
    if (v.neg) {
        digits.push_back('-');
    }
    return std::string(digits.rbegin(), digits.rend());
}

/// Appends `v` as int64, uint64 or (outside 64 bits) bignum text.
inline void add_big_integer(builder& b, const big_integer& v) {
    std::size_t bits = v.bit_length();
    if (!v.neg && bits <= 64) {
        b.add_uint(v.low64());
        return;
    }
    if (v.neg && bits <= 64) {
        std::uint64_t m = v.low64();
        if (m <= std::uint64_t{1} << 63) {
            b.add_int(static_cast<std::int64_t>(0 - m));
            return;
        }
    }
    b.add_bignum(to_decimal(v));
}

/// Two's complement little-endian bytes -> integer (pickle LONG1/LONG4). Empty means 0.
inline big_integer from_twos_complement_le(std::string_view bytes) {
    big_integer v;
    if (bytes.empty()) {
        return v;
    }
    bool neg = (static_cast<unsigned char>(bytes.back()) & 0x80) != 0;
    v.mag.assign((bytes.size() + 3) / 4, 0);
    // Negative: magnitude = ~x + 1, computed byte by byte with a carry.
    unsigned carry = 1;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        unsigned byte = static_cast<unsigned char>(bytes[i]);
        if (neg) {
            unsigned s = (~byte & 0xffu) + carry;
            byte = s & 0xffu;
            carry = s >> 8;
        }
        v.mag[i / 4] |= static_cast<std::uint32_t>(byte) << (8 * (i % 4));
    }
    v.neg = neg;
    v.trim();
    return v;
}

/// Integer -> the shortest two's complement little-endian bytes, as CPython's encode_long
/// (0 is no bytes at all).
inline std::string to_twos_complement_le(const big_integer& v) {
    std::string out;
    if (v.is_zero()) {
        return out;
    }
    std::size_t nbytes = v.mag.size() * 4;
    out.resize(nbytes);
    unsigned carry = 1;
    for (std::size_t i = 0; i < nbytes; ++i) {
        unsigned byte = (v.mag[i / 4] >> (8 * (i % 4))) & 0xffu;
        if (v.neg) {
            unsigned s = (~byte & 0xffu) + carry;
            byte = s & 0xffu;
            carry = s >> 8;
        }
        out[i] = static_cast<char>(byte);
    }
    // Sign byte, then drop redundant high bytes.
    bool top_set = (static_cast<unsigned char>(out.back()) & 0x80) != 0;
    if (!v.neg && top_set) {
        out.push_back('\0');
    } else if (v.neg && !top_set) {
        out.push_back('\xff');
    }
    while (out.size() > 1) {
        unsigned last = static_cast<unsigned char>(out[out.size() - 1]);
        unsigned prev = static_cast<unsigned char>(out[out.size() - 2]);
        if ((last == 0x00 && (prev & 0x80) == 0) || (last == 0xff && (prev & 0x80) != 0)) {
            out.pop_back();
        } else {
            break;
        }
    }
    return out;
}

}  // namespace polycodec::detail
