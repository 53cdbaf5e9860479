#pragma once
// The one scalar writer of the text encoders (issue 15 item 1): null, booleans, integers,
// bignums and doubles (shortest round-trip text, detail::write_double) spelled by a
// per-format table. What the table leaves empty (a null the format writes by context, a
// non-finite double it refuses or writes only under lossy=allow) and every other kind
// (strings, bytes, timestamps, tags, containers) stays with the format's writer.

#include <cmath>
#include <string_view>

#include "detail/number.hpp"
#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"

namespace polycodec::detail {

struct scalar_spelling {
    std::string_view null_text;  ///< empty: the format's writer writes null
    std::string_view false_text;
    std::string_view true_text;
    std::string_view nan;      ///< empty: the format's writer handles NaN
    std::string_view pos_inf;  ///< empty: ... +Inf
    std::string_view neg_inf;  ///< empty: ... -Inf
    std::string_view big_suffix = {};  ///< after a uint64 above INT64_MAX and a bignum (EDN's N)
};

/// Writes `v` when the table spells it and returns true; otherwise writes nothing and returns
/// false (the caller writes it).
inline bool write_scalar(output_buffer& out, value v, const scalar_spelling& sp) {
    std::string_view text;
    switch (v.kind()) {
        case kind::null:
            text = sp.null_text;
            break;
        case kind::boolean_false:
            text = sp.false_text;
            break;
        case kind::boolean_true:
            text = sp.true_text;
            break;
        case kind::int64:
            write_int(out, v.get_int());
            return true;
        case kind::uint64:
            write_uint(out, v.get_uint());
            out.append(sp.big_suffix);
            return true;
        case kind::bignum:
            out.append(v.get_string());
            out.append(sp.big_suffix);
            return true;
        case kind::float64: {
            const double d = v.get_double();
            if (std::isfinite(d)) {
                write_double(out, d);
                return true;
            }
            text = std::isnan(d) ? sp.nan : d > 0 ? sp.pos_inf : sp.neg_inf;
            break;
        }
        default:
            return false;
    }
    if (text.empty()) {
        return false;
    }
    out.append(text);
    return true;
}

}  // namespace polycodec::detail
