#pragma once
// Helpers shared by the test suites.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "polycodec/polycodec.hpp"

namespace polycodec::test {

/// "a2 61 61 01" or "a2616101" -> bytes. Whitespace and dashes are ignored.
inline std::string hex(std::string_view text) {
    std::string out;
    int hi = -1;
    for (char c : text) {
        int v;
        if (c >= '0' && c <= '9') {
            v = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            v = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            v = c - 'A' + 10;
        } else {
            continue;
        }
        if (hi < 0) {
            hi = v;
        } else {
            out.push_back(static_cast<char>(hi * 16 + v));
            hi = -1;
        }
    }
    return out;
}

/// bytes -> "a2 61 61 01", for failure messages.
inline std::string to_hex(std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        if (!out.empty()) {
            out += ' ';
        }
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

/// A BSON document around the element bytes `elements`: int32 length, elements, 0x00.
inline std::string bson_document(std::string_view elements) {
    std::string out(4, '\0');
    out += elements;
    out.push_back('\0');
    auto n = static_cast<std::uint32_t>(out.size());
    for (int i = 0; i < 4; ++i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
    }
    return out;
}

/// The conformance corpus (../shared/corpus), or "" when absent.
inline std::filesystem::path corpus_dir() {
    const char* env = std::getenv("POLYCODEC_CORPUS_DIR");
    std::filesystem::path p = env != nullptr && *env != 0 ? env : POLYCODEC_CORPUS_DIR;
    return std::filesystem::is_directory(p) ? p : std::filesystem::path();
}

/// Skips the current test with a message when the corpus folder `sub` is absent.
#define POLYCODEC_REQUIRE_CORPUS(sub, var)                                                 \
    std::filesystem::path var = ::polycodec::test::corpus_dir();                          \
    if (var.empty() || !std::filesystem::exists(var / (sub))) {                           \
        GTEST_SKIP() << "conformance corpus " << (sub) << " not found under "             \
                     << POLYCODEC_CORPUS_DIR << " (set POLYCODEC_CORPUS_DIR)";            \
    }                                                                                     \
    var /= (sub)

inline std::filesystem::path fixtures_dir() { return POLYCODEC_FIXTURES_DIR; }

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// Decodes or fails the test with the error's description.
inline document must_decode(format_id f, std::string_view in, const decode_options& opt = {}) {
    document d;
    auto r = decode(f, in, d, opt);
    EXPECT_TRUE(r) << (r ? "" : describe(r.error()));
    return d;
}

/// Encodes or fails the test with the error's description.
inline std::string must_encode(format_id f, const document& d, const encode_options& opt = {}) {
    output_buffer out;
    auto r = encode(f, d, out, opt);
    EXPECT_TRUE(r) << (r ? "" : describe(r.error()));
    return out.str();
}

/// The decode error of `in`; fails the test when `in` decodes.
inline error decode_error(format_id f, std::string_view in, const decode_options& opt = {}) {
    document d;
    auto r = decode(f, in, d, opt);
    EXPECT_FALSE(r) << "decoded to " << (r ? to_debug_string(d.root()) : "");
    return r ? error{} : r.error();
}

/// Debug text of a document, "<empty>" for none.
inline std::string dbg(const document& d) {
    return d.empty() ? std::string("<empty>") : to_debug_string(d.root());
}

}  // namespace polycodec::test
