#pragma once
// GET /openapi.json (DESIGN section 16): the OpenAPI 3.1 document of the HTTP API, generated
// from the tables the server runs on (routes(), formats(), option_table(),
// sequence_media_types()), so it cannot describe a route, option or media type the server does
// not have.

#include <string>
#include <string_view>

#include "http/handler.hpp"

namespace polycodec::server::http {

/// The document as pretty-printed JSON, built on the first call (serve calls it at start-up)
/// and kept for the life of the process.
const std::string& openapi_document();

/// The strong ETag of openapi_document(), quoted: "\"5f0c...\"".
std::string_view openapi_etag();

/// Whether an If-None-Match value (a list of entity tags, weak or strong, or "*") matches `etag`.
bool etag_matches(std::string_view if_none_match, std::string_view etag) noexcept;

/// Answers GET /openapi.json: 200 with ETag and Cache-Control, or 304 when If-None-Match
/// matches.
void handle_openapi(const request& req, response& res);

}  // namespace polycodec::server::http
