#pragma once
// The escape of one JSON Pointer (RFC 6901) reference token, shared by Document paths
// (document.cpp) and the error paths of the toml and xml decoders.

#include <string>
#include <string_view>

namespace polycodec::detail {

/// Appends `token` with '~' written as "~0" and '/' as "~1" (the caller writes the '/' before).
inline void append_pointer_token(std::string& out, std::string_view token) {
    for (char c : token) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
}

}  // namespace polycodec::detail
