// Stream mode (DESIGN section 12): record_reader and record_writer over the per-format framers
// of codec/src/stream/. See polycodec/stream.hpp.
#include "polycodec/stream.hpp"

namespace polycodec {

bool is_streamable(format_id f) noexcept {
    switch (f) {
        case format_id::ndjson:
        case format_id::json:
        case format_id::csv:
        case format_id::yaml:
        case format_id::cbor:
        case format_id::msgpack:
        case format_id::bson:
            return true;
        default:
            return false;
    }
}

}  // namespace polycodec
