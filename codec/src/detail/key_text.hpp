#pragma once
// The text of a map key that is a string or an integer, as the text encoders write it when
// their keys must be strings: toml, csv (header names).

#include <charconv>
#include <cstddef>
#include <string>

#include "polycodec/document.hpp"

namespace polycodec::detail {

/// Appends the text of key `k` when it is a string, timestamp, bignum or 64-bit integer
/// (decimal) and returns true; returns false, appending nothing, for any other key.
inline bool append_key_text(std::string& out, value k) {
    char buf[24];
    std::to_chars_result r;
    switch (k.kind()) {
        case kind::string:
        case kind::timestamp:
        case kind::bignum:
            out.append(k.get_string());
            return true;
        case kind::int64:
            r = std::to_chars(buf, buf + sizeof buf, k.get_int());
            break;
        case kind::uint64:
            r = std::to_chars(buf, buf + sizeof buf, k.get_uint());
            break;
        default:
            return false;
    }
    out.append(buf, static_cast<std::size_t>(r.ptr - buf));
    return true;
}

}  // namespace polycodec::detail
