#pragma once
/// Protocol Buffers schemas (DESIGN section 14): a FileDescriptorSet's wire bytes (what
/// `protoc --include_imports --descriptor_set_out` writes) read into our own descriptor model,
/// without libprotobuf. A parsed schema is immutable and shared by every request that names it
/// (decode_options::protobuf_schema, encode_options::protobuf_schema); `type=` picks the message
/// (decode_options::type_name).
///
/// Example:
///   auto s = polycodec::protobuf::parse_descriptor_set(bytes_of("bench.binpb"));
///   polycodec::decode_options opt;
///   if (s) {
///       opt.protobuf_schema = *s;
///       opt.type_name = "bench.Record";  // decode(format_id::protobuf, wire, doc, opt)
///   }

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/result.hpp"

namespace polycodec::protobuf {

/// A parsed FileDescriptorSet (opaque; defined inside the codec).
struct schema;

/// Reads the wire bytes of a google.protobuf.FileDescriptorSet. Fails with
/// errc::invalid_option naming what is wrong (a truncated set, a type name that names no
/// message or enum of the set).
result<std::shared_ptr<const schema>> parse_descriptor_set(std::string_view bytes);

/// The full names of the messages a schema defines ("pkg.Outer", "pkg.Outer.Inner"), map
/// entries left out, in the set's order: what `GET /schemas` lists.
std::vector<std::string> message_names(const schema& s);

}  // namespace polycodec::protobuf
