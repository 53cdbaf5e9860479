#pragma once
// Stepping over JSON text that a JSON reader has already accepted (no checks), to find the
// byte offset of a value for an error message. Used by protojson and the Avro schema reader.

#include <cstddef>
#include <string_view>

namespace polycodec::detail::json_skip {

/// Past JSON white space at p.
inline std::size_t skip_ws(std::string_view t, std::size_t p) {
    while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r')) {
        ++p;
    }
    return p;
}

/// Past the string whose opening quote is at p.
inline std::size_t skip_string(std::string_view t, std::size_t p) {
    ++p;  // the opening quote
    while (p < t.size() && t[p] != '"') {
        p += t[p] == '\\' ? 2 : 1;
    }
    return p + 1;
}

/// Past the value at p (after any white space before it).
inline std::size_t skip_value(std::string_view t, std::size_t p) {
    p = skip_ws(t, p);
    if (p >= t.size()) {
        return p;
    }
    if (t[p] == '"') {
        return skip_string(t, p);
    }
    if (t[p] == '{' || t[p] == '[') {
        int depth = 0;
        while (p < t.size()) {
            char c = t[p];
            if (c == '"') {
                p = skip_string(t, p);
                continue;
            }
            if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    return p + 1;
                }
            }
            ++p;
        }
        return p;
    }
    while (p < t.size() && t[p] != ',' && t[p] != '}' && t[p] != ']' && t[p] != ' ' &&
           t[p] != '\n' && t[p] != '\r' && t[p] != '\t') {
        ++p;
    }
    return p;
}

}  // namespace polycodec::detail::json_skip
