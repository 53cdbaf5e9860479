#pragma once
// .proto files parsed with libprotobuf's compiler (DESIGN section 14) into the wire bytes of a
// FileDescriptorSet, the form the codec reads. libprotobuf's headers stay in proto_compiler.cpp.

#include <string>

#include "polycodec/result.hpp"

namespace polycodec::server {

/// Parses `path` and everything it imports (from its own folder and the system's
/// google/protobuf/*.proto) into a FileDescriptorSet with every dependency, as
/// `protoc --include_imports --descriptor_set_out` writes it. A syntax or type error fails with
/// errc::invalid_option and "FILE:LINE:COLUMN: message".
result<std::string> compile_proto_file(const std::string& path);

}  // namespace polycodec::server
