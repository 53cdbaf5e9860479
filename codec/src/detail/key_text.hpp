#pragma once
// The text of a map key that is a string or an integer, as the text encoders write it when
// their keys must be strings: toml, csv (header names), bson (element names).

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

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

/// The text of key `k` in `text`: a string's, timestamp's or bignum's own bytes, or an int64's
/// or uint64's decimal text (kept in `scratch`). False for any other key.
inline bool key_text_view(value k, std::string& scratch, std::string_view& text) {
    const kind c = k.kind();
    if (c == kind::string || c == kind::timestamp || c == kind::bignum) {
        text = k.get_string();
        return true;
    }
    scratch.clear();
    if (!append_key_text(scratch, k)) {
        return false;
    }
    text = scratch;
    return true;
}

}  // namespace polycodec::detail
