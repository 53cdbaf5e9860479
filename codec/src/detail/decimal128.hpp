#pragma once
// IEEE 754-2008 decimal128 in the binary integer decimal (BID) encoding, as BSON stores it
// (16 bytes, little-endian), to and from the exact text of the BSON Decimal128 specification
// (github.com/mongodb/specifications, bson-decimal128). The text keeps the coefficient and the
// exponent, so "1.0" and "1.00" stay apart and text -> bytes -> text is the identity.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace polycodec::detail::decimal128 {

__extension__ typedef unsigned __int128 u128;

constexpr int exponent_bias = 6176;
constexpr int exponent_min = -6176;  ///< of the coefficient's last digit
constexpr int exponent_max = 6111;
constexpr int max_digits = 34;

inline u128 max_coefficient() {
    u128 v = 1;
    for (int i = 0; i < max_digits; ++i) {
        v *= 10;
    }
    return v - 1;
}

inline std::uint64_t load_le64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) {
        v = (v << 8) | p[i];
    }
    return v;
}

inline void store_le64(unsigned char* p, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        p[i] = static_cast<unsigned char>(v >> (8 * i));
    }
}

/// Appends the text of the 16 little-endian bytes at `p` to `out`: "NaN", "Infinity",
/// "-Infinity", "1.23", "-0.00", "1.2E+3", "1E-7". Non-canonical coefficients (above
/// 10^34 - 1) read as zero, as the specification says; NaN payloads and the signalling bit are
/// not kept.
inline void to_string(const unsigned char* p, std::string& out) {
    std::uint64_t lo = load_le64(p);
    std::uint64_t hi = load_le64(p + 8);
    bool negative = (hi >> 63) != 0;
    int biased;
    u128 coef;
    if (((hi >> 61) & 3) == 3) {
        unsigned comb = static_cast<unsigned>((hi >> 58) & 0x1f);
        if (comb == 0x1f) {
            out += "NaN";
            return;
        }
        if (comb == 0x1e) {
            out += negative ? "-Infinity" : "Infinity";
            return;
        }
        // The implied 100 prefix makes the coefficient at least 2^113 > 10^34 - 1.
        biased = static_cast<int>((hi >> 47) & 0x3fff);
        coef = 0;
    } else {
        biased = static_cast<int>((hi >> 49) & 0x3fff);
        coef = (static_cast<u128>(hi & 0x1ffffffffffffULL) << 64) | lo;
        if (coef > max_coefficient()) {
            coef = 0;
        }
    }
    int exponent = biased - exponent_bias;
    char digits[40];
    int n = 0;
    if (coef == 0) {
        digits[n++] = '0';
    } else {
        char rev[40];
        int r = 0;
        while (coef != 0) {
            rev[r++] = static_cast<char>('0' + static_cast<int>(coef % 10));
            coef /= 10;
        }
        while (r > 0) {
            digits[n++] = rev[--r];
        }
    }
    if (negative) {
        out += '-';
    }
    int adjusted = exponent + (n - 1);
    if (exponent <= 0 && adjusted >= -6) {
        if (exponent == 0) {
            out.append(digits, static_cast<std::size_t>(n));
            return;
        }
        int frac = -exponent;
        if (n > frac) {
            out.append(digits, static_cast<std::size_t>(n - frac));
            out += '.';
            out.append(digits + (n - frac), static_cast<std::size_t>(frac));
        } else {
            out += "0.";
            out.append(static_cast<std::size_t>(frac - n), '0');
            out.append(digits, static_cast<std::size_t>(n));
        }
        return;
    }
    out += digits[0];
    if (n > 1) {
        out += '.';
        out.append(digits + 1, static_cast<std::size_t>(n - 1));
    }
    out += 'E';
    out += adjusted > 0 ? '+' : '-';
    out += std::to_string(adjusted < 0 ? -adjusted : adjusted);
}

inline bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c + 32);
        }
        if (c != b[i]) {
            return false;
        }
    }
    return true;
}

/// Parses decimal text ("-1.5E+3", "0.001", "Infinity", "NaN") into 16 little-endian bytes.
/// Returns false for bad syntax or a value decimal128 cannot hold exactly (more than 34
/// significant digits, or an exponent out of range that trailing zeros cannot absorb).
inline bool from_string(std::string_view s, unsigned char* out) {
    bool negative = false;
    std::string_view t = s;
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
        negative = t[0] == '-';
        t.remove_prefix(1);
    }
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
    if (iequal(t, "inf") || iequal(t, "infinity")) {
        hi = 0x7800000000000000ULL | (negative ? 0x8000000000000000ULL : 0);
        store_le64(out, lo);
        store_le64(out + 8, hi);
        return true;
    }
    if (iequal(t, "nan")) {
        hi = 0x7c00000000000000ULL;
        store_le64(out, lo);
        store_le64(out + 8, hi);
        return true;
    }
    char digits[40];
    int n = 0;          // significant digits kept (leading zeros skipped)
    long exponent = 0;  // of the last digit
    bool any_digit = false;
    bool dot = false;
    std::size_t i = 0;
    int dropped_nonsig = 0;  // significant digits beyond 34 that were zeros, pending
    for (; i < t.size(); ++i) {
        char c = t[i];
        if (c == '.') {
            if (dot) {
                return false;
            }
            dot = true;
            continue;
        }
        if (c < '0' || c > '9') {
            break;
        }
        any_digit = true;
        if (dot) {
            --exponent;
        }
        if (n == 0 && c == '0') {
            continue;
        }
        if (n < max_digits + 1) {
            digits[n++] = c;
        } else if (c == '0') {
            ++dropped_nonsig;  // a trailing zero past 34 digits: absorbed by the exponent
        } else {
            return false;
        }
    }
    if (!any_digit) {
        return false;
    }
    if (i < t.size()) {
        if (t[i] != 'e' && t[i] != 'E') {
            return false;
        }
        ++i;
        bool eneg = false;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
            eneg = t[i] == '-';
            ++i;
        }
        if (i >= t.size()) {
            return false;
        }
        long e = 0;
        for (; i < t.size(); ++i) {
            if (t[i] < '0' || t[i] > '9' || e > 100000000) {
                return false;
            }
            e = e * 10 + (t[i] - '0');
        }
        exponent += eneg ? -e : e;
    }
    exponent += dropped_nonsig;
    // Exactness: drop trailing zeros past 34 digits, then bring the exponent into range.
    while (n > max_digits && digits[n - 1] == '0') {
        --n;
        ++exponent;
    }
    if (n > max_digits) {
        return false;
    }
    if (n == 0) {
        // Zero: any exponent names the same value; clamp it.
        if (exponent > exponent_max) {
            exponent = exponent_max;
        }
        if (exponent < exponent_min) {
            exponent = exponent_min;
        }
    } else {
        while (exponent > exponent_max && n < max_digits) {
            digits[n++] = '0';
            --exponent;
        }
        while (exponent < exponent_min && digits[n - 1] == '0') {
            --n;
            ++exponent;
        }
        if (exponent > exponent_max || exponent < exponent_min) {
            return false;
        }
    }
    u128 coef = 0;
    for (int k = 0; k < n; ++k) {
        coef = coef * 10 + static_cast<unsigned>(digits[k] - '0');
    }
    auto biased = static_cast<std::uint64_t>(exponent + exponent_bias);
    hi = (negative ? 0x8000000000000000ULL : 0) | (biased << 49) |
         static_cast<std::uint64_t>(coef >> 64);
    lo = static_cast<std::uint64_t>(coef);
    store_le64(out, lo);
    store_le64(out + 8, hi);
    return true;
}

}  // namespace polycodec::detail::decimal128
