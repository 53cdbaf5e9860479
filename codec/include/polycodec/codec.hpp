#pragma once
/// The library's entry points: decode bytes of a format into a document, encode a document
/// into bytes of a format. Both return an error value on failure, never throw for bad input.
///
/// Example:
///   polycodec::document doc;
///   if (auto r = polycodec::decode(polycodec::format_id::json, R"({"a":[1,2]})", doc); !r) {
///       std::cerr << polycodec::describe(r.error()) << '\n';
///   }
///   polycodec::output_buffer out;
///   auto w = polycodec::encode(polycodec::format_id::cbor, doc, out);

#include <string_view>

#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/format.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec {

/// Decodes all of `input` into `out` (cleared first). On failure the error carries the format,
/// the byte offset, line and column for text formats, and the JSON Pointer path of the value
/// being read.
result<void> decode(format_id format, std::string_view input, document& out,
                    const decode_options& opt = {});

/// Appends the encoding of `doc` to `out`. A value the format cannot hold fails with
/// errc::unrepresentable and its path, unless opt.lossy allows a documented fallback.
result<void> encode(format_id format, const document& doc, output_buffer& out,
                    const encode_options& opt = {});

/// True when the format has a decoder and an encoder.
bool is_implemented(format_id format) noexcept;

}  // namespace polycodec
