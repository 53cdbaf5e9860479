#pragma once
// One TCP request frame to one response frame (DESIGN section 5), without I/O.

#include <cstdint>
#include <string>
#include <string_view>

#include "polycodec/proto/frame.hpp"
#include "service.hpp"

namespace polycodec::server::tcp {

struct frame_result {
    proto::status code = proto::status::ok;
    std::uint8_t from = 0;  ///< format numbers, 0 when unknown
    std::uint8_t to = 0;
    double decode_ms = 0;
    double encode_ms = 0;
    std::size_t bytes_out = 0;  ///< response payload size
};

/// Answers the request `h` whose payload (options, then document) is `payload`: appends the
/// response frame to `out` and records metrics of the codec work (not of the request).
frame_result handle_frame(service& svc, const proto::request_header& h, std::string_view payload,
                          std::string& out);

/// Appends an error frame with a UTF-8 message.
void error_frame(proto::status code, std::uint32_t request_id, std::string_view message,
                 std::string& out);

}  // namespace polycodec::server::tcp
