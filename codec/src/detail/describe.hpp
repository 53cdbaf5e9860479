#pragma once
// What a text reader saw at a byte offset, for "expected X, saw Y" messages.

#include <cstdio>
#include <string>
#include <string_view>

#include "polycodec/document.hpp"
#include "polycodec/error.hpp"

namespace polycodec::detail {

/// "'x'" for a printable ASCII byte, "byte 0xNN" for any other, "end of input" past the end.
inline std::string describe_byte_at(std::string_view in, std::size_t p) {
    if (p >= in.size()) {
        return "end of input";
    }
    auto c = static_cast<unsigned char>(in[p]);
    if (c >= 0x20 && c < 0x7f) {
        return std::string("'") + static_cast<char>(c) + "'";
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
}

/// "expected X, saw Y" at `p`: unexpected_eof past the end, unexpected_char before it.
inline error unexpected_at(std::string_view in, std::size_t p, const char* expected) {
    return make_error(p >= in.size() ? errc::unexpected_eof : errc::unexpected_char, p,
                      std::string("expected ") + expected + ", saw " + describe_byte_at(in, p));
}

/// The error for a container the builder refused at `at`: its depth limit or its size budget.
inline error limit_error(const builder& b, std::size_t at) {
    errc code = b.status() == errc::ok ? errc::depth_exceeded : b.status();
    return make_error(code, at,
                      code == errc::depth_exceeded
                          ? "nesting deeper than " + std::to_string(b.limits().max_depth)
                          : std::string("document larger than its size budget"));
}

/// The phrase of each kind, indexed by its value (kinds start at 1: entry 0 is the fallback).
inline constexpr const char* kind_phrases[] = {
    "a value",  "null",  "a bool",     "a bool",      "an integer",     "an integer", "a float",
    "a string", "bytes", "an integer", "a timestamp", "a tagged value", "an array",   "a map"};
static_assert(std::size(kind_phrases) == static_cast<std::size_t>(kind::map) + 1);

/// "a bool", "an integer", "a map" ...: a value's kind in an error message.
inline const char* kind_phrase(kind k) noexcept {
    auto i = static_cast<std::size_t>(k);
    return i < std::size(kind_phrases) ? kind_phrases[i] : "a value";
}

}  // namespace polycodec::detail
