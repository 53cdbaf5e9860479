#pragma once
// The text of a map key that is a string or an integer, for the encoders whose keys must be
// text (DESIGN section 3: an integer key becomes its decimal text, which is not lossy): bson.
// Other keys take detail/map_key.hpp's refusal or fallback.

#include <string>
#include <string_view>

#include "polycodec/document.hpp"

namespace polycodec::detail {

/// The decimal text of an integer key: int64, uint64, or a bignum (its digits).
inline std::string integer_key_text(value k) {
    return k.kind() == kind::int64    ? std::to_string(k.get_int())
           : k.kind() == kind::uint64 ? std::to_string(k.get_uint())
                                      : std::string(k.get_string());
}

/// The text of key `k` in `text`: a string's, timestamp's or bignum's own bytes, or an int64's
/// or uint64's decimal text (kept in `scratch`). False for any other key.
inline bool scalar_key_text(value k, std::string& scratch, std::string_view& text) {
    const kind c = k.kind();
    if (c == kind::string || c == kind::timestamp || c == kind::bignum) {
        text = k.get_string();
    } else if (c == kind::int64 || c == kind::uint64) {
        scratch = integer_key_text(k);
        text = scratch;
    } else {
        return false;
    }
    return true;
}

}  // namespace polycodec::detail
