#pragma once
// The root check of the key=value encoders (ini, dotenv, properties, urlform): their text can
// only hold a map at the top.

#include <string>

#include "detail/lossy.hpp"
#include "polycodec/document.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// Nothing when `root` is a map, else its unrepresentable error naming `format`.
inline result<void> require_map_root(value root, const char* format) {
    if (root.kind() == kind::map) {
        return {};
    }
    return fail(unrepresentable(
        root, std::string("a root that is not a map is not representable in ") + format));
}

}  // namespace polycodec::detail
