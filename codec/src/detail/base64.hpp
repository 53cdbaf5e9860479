#pragma once
// Base64 (RFC 4648 section 4, with padding) and base64url (section 5, no padding).

#include <cstdint>
#include <string>
#include <string_view>

#include "polycodec/buffer.hpp"

namespace polycodec::detail {

inline void base64_encode(output_buffer& out, std::string_view in, bool url = false) {
    const char* alphabet = url
        ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const auto* p = reinterpret_cast<const unsigned char*>(in.data());
    std::size_t n = in.size();
    char* o = out.prepare((n + 2) / 3 * 4);
    std::size_t w = 0;
    std::size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        std::uint32_t v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
        o[w++] = alphabet[v >> 18];
        o[w++] = alphabet[(v >> 12) & 63];
        o[w++] = alphabet[(v >> 6) & 63];
        o[w++] = alphabet[v & 63];
    }
    if (i < n) {
        std::uint32_t v = p[i] << 16;
        if (i + 1 < n) {
            v |= p[i + 1] << 8;
        }
        o[w++] = alphabet[v >> 18];
        o[w++] = alphabet[(v >> 12) & 63];
        if (i + 1 < n) {
            o[w++] = alphabet[(v >> 6) & 63];
        } else if (!url) {
            o[w++] = '=';
        }
        if (!url) {
            o[w++] = '=';
        }
    }
    out.commit(w);
}

/// Decodes standard or url alphabet, padding optional, no whitespace. False on bad input.
inline bool base64_decode(std::string_view in, std::string& out) {
    auto val = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+' || c == '-') return 62;
        if (c == '/' || c == '_') return 63;
        return -1;
    };
    while (!in.empty() && in.back() == '=') {
        in.remove_suffix(1);
    }
    if (in.size() % 4 == 1) {
        return false;
    }
    out.clear();
    out.reserve(in.size() * 3 / 4);
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : in) {
        int v = val(c);
        if (v < 0) {
            return false;
        }
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
    }
    return true;
}

}  // namespace polycodec::detail
