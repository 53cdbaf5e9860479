#pragma once
// What a text reader saw at a byte offset, for "expected X, saw Y" messages.

#include <cstdio>
#include <string>
#include <string_view>

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

}  // namespace polycodec::detail
