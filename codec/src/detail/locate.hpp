#pragma once
// Line and column of a byte offset, computed only when an error is reported.

#include <cstdint>
#include <string_view>

namespace polycodec::detail {

struct position {
    std::uint32_t line = 1;    ///< 1-based
    std::uint32_t column = 1;  ///< 1-based, in code points
};

/// Lines end at LF, CRLF or a lone CR; columns count UTF-8 code points (continuation bytes
/// do not start a column).
inline position locate(std::string_view in, std::uint64_t offset) noexcept {
    position p;
    if (offset > in.size()) {
        offset = in.size();
    }
    for (std::uint64_t i = 0; i < offset; ++i) {
        unsigned char c = static_cast<unsigned char>(in[i]);
        if (c == '\n') {
            ++p.line;
            p.column = 1;
        } else if (c == '\r') {
            if (i + 1 < in.size() && in[i + 1] == '\n') {
                continue;  // the LF of the CRLF ends the line
            }
            ++p.line;
            p.column = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++p.column;
        }
    }
    return p;
}

}  // namespace polycodec::detail
