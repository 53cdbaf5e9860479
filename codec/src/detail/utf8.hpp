#pragma once
// UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) and encoding.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace polycodec::detail {

/// Length of the valid UTF-8 prefix of `s`: s.size() when all of it is valid.
inline std::size_t utf8_valid_prefix(std::string_view s) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t n = s.size();
    std::size_t i = 0;
    // Long ASCII runs first, 32 bytes a step (properties' long lines); once, before the loop,
    // so short strings (protobuf's, most formats') pay one compare for it.
    while (i + 32 <= n) {
        std::uint64_t w[4];
        std::memcpy(w, p + i, 32);
        if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ULL) != 0) {
            break;
        }
        i += 32;
    }
    while (i < n) {
        // Fast path: eight ASCII bytes at a time.
        if (i + 8 <= n) {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            if ((w & 0x8080808080808080ULL) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        // Two-byte sequences (Latin, Greek, Cyrillic, ...): C2..DF and one continuation byte
        // are always a valid scalar value, no range checks needed.
        if (c >= 0xC2 && c <= 0xDF) {
            if (i + 1 < n && (p[i + 1] & 0xC0) == 0x80) {
                i += 2;
                continue;
            }
            return i;
        }
        std::size_t len;
        std::uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (i + len > n) {
            return i;
        }
        for (std::size_t k = 1; k < len; ++k) {
            unsigned char cc = p[i + k];
            if ((cc & 0xC0) != 0x80) {
                return i;
            }
            cp = (cp << 6) | (cc & 0x3F);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
            return i;
        }
        i += len;
    }
    return n;
}

inline bool utf8_valid(std::string_view s) noexcept { return utf8_valid_prefix(s) == s.size(); }

/// Writes the UTF-8 form of `cp` (must be a scalar value) to `out`; returns the byte count.
inline std::size_t utf8_encode(std::uint32_t cp, char* out) noexcept {
    if (cp < 0x80) {
        out[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xC0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
}

}  // namespace polycodec::detail
