#pragma once
// A tag the encoder's format cannot write (ubjson, bencode, pickle, postcard, csv, toml,
// urlform, properties, plist): under lossy=allow it is dropped, recorded as "tag_dropped", and
// its inner value is written in its place; otherwise the encoder fails with "tag N is not
// representable in <format>".
// Formats share code only through detail/ (docs/ARCHITECTURE.md).
#include <string>

#include "detail/lossy.hpp"
#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// Ok when the tag `v` may be dropped (the caller then writes v.tagged_value()), else the
/// unrepresentable error naming `format`.
inline result<void> drop_tag(const encode_options& opt, value v, const char* format) {
    if (!allow_lossy(opt, v, "tag_dropped", "tag dropped, inner value kept")) {
        return fail(unrepresentable(v, "tag " + std::to_string(v.tag()) +
                                           " is not representable in " + format));
    }
    return {};
}

}  // namespace polycodec::detail
