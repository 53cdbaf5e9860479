#pragma once
// urlform's two readers apart (defined in formats/urlform.cpp), for the agreement test in
// tests/codec/urlform_test.cpp; urlform_codec.decode runs the fast path, then the tree reader
// where the fast path gives way. Not shared code: no other format includes this.

#include <string_view>

#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// The one-pass reader alone: true with the document in `b` (empty, at depth 0 before), false
/// where it gives way to the tree reader (then `b` is reset; a non-empty `b` is declined).
bool decode_urlform_fast(std::string_view in, builder& b, const decode_options& opt);
/// The tree reader alone (the general path, every input).
result<void> decode_urlform_tree(std::string_view in, builder& b, const decode_options& opt);

}  // namespace polycodec::detail
