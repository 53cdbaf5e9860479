#pragma once
// The first checks of the text readers on their input: all of it UTF-8, and the byte order
// mark they skip (csv, dotenv, ini, properties).

#include <cstddef>
#include <string_view>

#include "detail/utf8.hpp"
#include "polycodec/error.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// Nothing when all of `in` is UTF-8, else invalid_utf8 at the offset of the first bad byte.
inline result<void> require_utf8(std::string_view in) {
    std::size_t valid = utf8_valid_prefix(in);
    if (valid != in.size()) {
        return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
    }
    return {};
}

/// 3 when `in` starts with the UTF-8 byte order mark, else 0.
inline std::size_t bom_size(std::string_view in) noexcept {
    return in.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

}  // namespace polycodec::detail
