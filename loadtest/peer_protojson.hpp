#pragma once
// `peers`' protojson rows: libprotobuf's own ProtoJSON (util::JsonStringToMessage and
// MessageToJsonString on a DynamicMessage of the same descriptor set). Kept apart from
// peers.cpp so that only this file includes libprotobuf's headers.

#include <cstddef>
#include <functional>
#include <string>

namespace polycodec::loadtest {

using peer_runner = std::function<void(const std::string& format, const std::string& op,
                                       const std::string& library, std::size_t bytes,
                                       const std::function<void()>& fn)>;

/// Times libprotobuf decoding `json` (ProtoJSON of message `type` of the FileDescriptorSet
/// `descriptor_set`) and encoding the parsed message back, as rows "protojson decode/encode".
/// False (and no rows) when the set or the JSON does not parse.
bool protojson_libprotobuf_rows(const std::string& descriptor_set, const std::string& type,
                                const std::string& json, const peer_runner& run);

}  // namespace polycodec::loadtest
