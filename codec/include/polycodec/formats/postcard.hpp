#pragma once
/// postcard schemas (DESIGN section 1): the JSON form of postcard-schema's OwnedNamedType, the
/// subset documented in proto/POSTCARD-SCHEMA.md. A parsed schema is immutable and shared by
/// every request that names it (decode_options::schema, encode_options::schema).
///
/// Example:
///   auto s = polycodec::postcard::parse_schema(
///       R"({"name":"Point","ty":{"Struct":[{"name":"x","ty":{"name":"i32","ty":"I32"}},
///                                          {"name":"y","ty":{"name":"i32","ty":"I32"}}]}})");
///   polycodec::decode_options opt;
///   if (s) {
///       opt.schema = *s;  // decode(format_id::postcard, "\x02\x04", doc, opt): {"x":1,"y":2}
///   }

#include <memory>
#include <string_view>

#include "polycodec/result.hpp"

namespace polycodec::postcard {

/// A parsed postcard schema (opaque; defined inside the codec).
struct schema;

/// Parses the JSON text of an OwnedNamedType. Fails with errc::invalid_option and a message
/// naming the JSON Pointer of the offending part of the schema (or the JSON error itself).
result<std::shared_ptr<const schema>> parse_schema(std::string_view json_text);

}  // namespace polycodec::postcard
