#pragma once
/// Avro schemas (DESIGN section 14): the JSON schema declarations of the Avro 1.11
/// specification (.avsc), parsed by the codec's own reader. A parsed schema is immutable and
/// shared by every request that names it (decode_options::avro_schema, encode_options).
///
/// Example:
///   auto s = polycodec::avro::parse_schema(
///       R"({"type":"record","name":"P","fields":[{"name":"x","type":"int"}]})");
///   polycodec::decode_options opt;
///   if (s) {
///       opt.avro_schema = *s;  // avro;container=false "\x02": {"x": 1}
///   }

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/result.hpp"

namespace polycodec::avro {

/// A parsed Avro schema (opaque; defined inside the codec).
struct schema;

/// Parses the JSON text of an Avro schema. Fails with errc::invalid_option and a message
/// naming the JSON Pointer of the offending part; `error::line` and `column` locate it in
/// `json_text`.
result<std::shared_ptr<const schema>> parse_schema(std::string_view json_text);

/// The full names of the named types (records, enums, fixed) the schema defines, in order.
std::vector<std::string> type_names(const schema& s);

/// The schema's Parsing Canonical Form (specification "Parsing Canonical Form for Schemas").
std::string_view canonical_form(const schema& s);

/// The CRC-64-AVRO (Rabin) fingerprint of the canonical form, as single-object encoding uses.
std::uint64_t fingerprint(const schema& s);

}  // namespace polycodec::avro
