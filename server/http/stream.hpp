#pragma once
// Stream mode over HTTP (DESIGN section 12): the request body is read incrementally, records
// are converted one at a time, and the answer goes out chunked as records are encoded; reading
// pauses while encoded output waits to be sent. Includes Beast: only http/server.cpp and
// http/stream.cpp include this header.

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <functional>
#include <string>

#include "http/content_coding.hpp"
#include "http/handler.hpp"

namespace polycodec::server::http {

/// How the connection goes on after a stream exchange.
enum class after_stream : std::uint8_t {
    keep_alive,  ///< the answer is complete and the body was read: serve the next request
    linger,      ///< answered, but the body was not read to its end: half-close, discard, close
    close,       ///< the answer was cut short or the client is gone: close now
};

struct stream_request {
    transcode_options opt;
    bool validate_only = false;  ///< /validate: decode every record, answer 204
    bool expect_continue = false;
    bool keep_alive = true;  ///< what the request asked for
    std::string method;
    std::string target;
    std::string request_id;
    std::string peer;
    /// Content-Encoding of the body (decoded as it arrives), Accept-Encoding of the request
    /// (the answer's chunks are compressed and flushed one by one).
    std::vector<coding> codings;
    std::string accept_encoding;
    bool has_accept_encoding = false;
};

/// Runs one stream exchange on `socket`. `head` holds the parsed request head (no body byte
/// consumed yet) and is moved from; `buffer` holds what was read past the head and is used for
/// the rest of the body, so pipelined bytes after it stay there. `done` is called once, on the
/// socket's executor.
void run_stream(service& svc, boost::asio::ip::tcp::socket& socket,
                boost::beast::flat_buffer& buffer,
                boost::beast::http::request_parser<boost::beast::http::string_body>& head,
                stream_request req, std::function<void(after_stream)> done);

}  // namespace polycodec::server::http
