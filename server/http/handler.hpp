#pragma once
// The HTTP routes of DESIGN section 4 on plain structs, without Beast: the session adapts
// Beast's messages to these, so routing, negotiation and errors are testable without sockets.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "polycodec/media_type.hpp"
#include "service.hpp"

namespace polycodec::server::http {

struct request {
    std::string_view method;
    std::string_view target;  ///< path and query
    std::string_view content_type;
    bool has_content_type = false;
    std::string_view accept;
    std::string_view request_id;  ///< as sent, may be empty
    std::string_view if_none_match;  ///< If-None-Match, may be empty
    std::string_view body;
};

struct response {
    int status = 200;
    std::string content_type;  ///< empty: no body type
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  ///< extra headers
    bool close = false;  ///< close the connection after this answer
    // For logs and metrics.
    std::uint8_t from = 0;  ///< format number, 0 = none
    std::uint8_t to = 0;
    double decode_ms = 0;
    double encode_ms = 0;
    std::string request_id;
};

/// Which handler a request goes to (also before the body is read, for Expect: 100-continue).
enum class route : std::uint8_t {
    not_found,
    transcode,
    validate,
    formats,
    metrics,
    healthz,
    readyz,
    openapi,
    schemas,
};

/// One row of the route table: the router, the Allow header, the 404 hint and /openapi.json
/// all read it.
struct route_info {
    route id;
    std::string_view path;     ///< "/transcode"
    std::string_view methods;  ///< the Allow header: "POST, PUT" or "GET"
    std::string_view summary;  ///< one line for documentation
};

/// Every route, in documentation order.
std::span<const route_info> routes() noexcept;

/// The route of `path` (no query) and whether `method` is allowed on it.
route find_route(std::string_view path) noexcept;
/// The methods a route allows ("POST, PUT" or "GET"), for the Allow header.
std::string_view allowed_methods(route r) noexcept;
/// Whether `method` is allowed on `r`.
bool method_allowed(route r, std::string_view method) noexcept;

/// The path part of a target ("/transcode?to=json" -> "/transcode").
std::string_view path_of(std::string_view target) noexcept;

/// An X-Request-Id: `given` when it is 1-128 visible ASCII characters, else a fresh one.
std::string request_id_for(std::string_view given);

/// Resolves the formats and options of a /transcode or /validate request from its target,
/// Content-Type and Accept (not its body): false with the problem answer in `res` when they do
/// not resolve. Sets res.from/res.to and `Vary`.
bool resolve_transcode(service& svc, const request& req, response& res, transcode_options& opt,
                       bool validate_only);

/// The Content-Type of an answer in `f` ("text/csv; charset=utf-8; header=present").
std::string content_type_of(const format_info& f, const transcode_options& opt);
/// True when the request's input and output formats (from= or Content-Type; to= or Accept,
/// else the input's) both have a record framing, so that `stream=true` could convert it
/// (DESIGN sections 12-13). Only the head is looked at; false when a format is not known.
bool streamable_request(const request& req);

/// Answers `req`. Sets every header of DESIGN section 4 except Date/Server/Content-Length.
void handle(service& svc, const request& req, response& res);

/// An error answer without a route (408, 413, 503 ...): problem+json, Server-Timing, id.
void error_response(int status, std::string_view code, std::string_view detail,
                    std::string_view request_id, response& res);

/// The capability flags of `c` by the names /formats shows them ("text", "null", ...).
std::array<std::pair<std::string_view, bool>, 9> capability_fields(const format_caps& c);

/// Polycodec-Lossy header value: `kind;path="/a/0", ...` (RFC 8941 list; non-ASCII escaped).
std::string lossy_header(const lossy_report& report);

}  // namespace polycodec::server::http
