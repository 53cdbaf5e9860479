#pragma once
// Outcomes to HTTP status codes and RFC 9457 problem+json bodies, in one place (STYLE 4.3),
// plus the TCP status of the same outcomes.

#include <string>
#include <string_view>
#include <vector>

#include "polycodec/error.hpp"
#include "polycodec/proto/frame.hpp"
#include "transcode.hpp"

namespace polycodec::server::http {

inline constexpr std::string_view problem_content_type = "application/problem+json";

/// The HTTP status of a failed outcome: 400 malformed input or options, 406 output format,
/// 415 input format (also postcard without a schema), 422 not representable.
int status_of(const outcome& o) noexcept;

/// The TCP status of a failed outcome.
proto::status tcp_status_of(const outcome& o) noexcept;

/// The reason phrase of `status` ("Not Acceptable").
std::string_view reason(int status) noexcept;

/// A problem+json body. `code` is a stable name (an errc name or e.g. "not_found") used in
/// `type` (urn:polycodec:problem:CODE) and as the `code` member. With `e`, the body carries
/// format, offset, line, column and path where they apply. `acceptable` lists media types
/// (406).
std::string problem_body(int status, std::string_view code, std::string_view detail,
                         const error* e = nullptr,
                         const std::vector<std::string_view>* acceptable = nullptr);

}  // namespace polycodec::server::http
