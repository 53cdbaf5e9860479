#pragma once
// The encode function of a codec (formats.hpp's encode_fn) whose writer is constructed from the
// output and the options and writes the whole document from its root: smile, pickle, ubjson.
// Formats share code only through detail/ (docs/ARCHITECTURE.md).

#include <type_traits>

#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// Writer(out, opt), then (w.*Write)(doc.root()): its result<void>, or for a writer that keeps
/// its error (detail/kept_error.hpp) and returns a bool, w.outcome() of that bool.
template <class Writer, auto Write>
result<void> encode_with(const document& doc, output_buffer& out, const encode_options& opt) {
    Writer w(out, opt);
    if constexpr (std::is_same_v<decltype((w.*Write)(doc.root())), bool>) {
        return w.outcome((w.*Write)(doc.root()));
    } else {
        return (w.*Write)(doc.root());
    }
}

}  // namespace polycodec::detail
