#pragma once
// Map keys a format cannot hold (DESIGN section 2: any value may be a map key; section 3: the
// encoder refuses what it cannot write, or under lossy=allow records the fallback). The one
// refusal and fallback of every encoder whose keys must be strings or scalars:
//   - refused: errc::unrepresentable (HTTP 422) with the key's JSON Pointer path and the
//     message "map key <text> is not representable in <format>";
//   - lossy=allow: the key is written as text, reported as "key_to_string". The text of an
//     array or map key (or of a tag over one) is its compact JSON text (`[1,2]`, `{"a":1}`,
//     the JSON encoder's rules with lossy=allow inside: NaN as null, bytes as base64 text, ...,
//     and a container key inside it as its own text, unquoted: `{{"a":1}:2}`, so the text stays
//     linear in the key's size however deep keys nest in keys; json_write_key_text);
//     the text of a scalar key is to_debug_string's (`true`, `1.5`, `null`, as before).

#include <string>
#include <string_view>

#include "detail/json_text.hpp"
#include "detail/lossy.hpp"
#include "detail/try.hpp"
#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// True when `k` is an array or a map, or a tag over one.
inline bool is_container_key(value k) noexcept {
    while (k.kind() == kind::tagged) {
        k = k.tagged_value();
    }
    return k.is_container();
}

/// The fallback text of a key (see above).
inline std::string key_fallback_text(value k) {
    if (!is_container_key(k)) {
        return to_debug_string(k);
    }
    output_buffer out;
    json_write_key_text(k, out);
    return std::string(out.view());
}

/// The refusal, or under lossy=allow the fallback text of key `k` for `format` ("json").
inline result<std::string> key_fallback(const encode_options& opt, value k,
                                        std::string_view format) {
    std::string text = key_fallback_text(k);
    if (!allow_lossy(opt, k, "key_to_string", "key written as its text")) {
        return fail(unrepresentable(
            k, "map key " + text + " is not representable in " + std::string(format)));
    }
    return text;
}

}  // namespace polycodec::detail
