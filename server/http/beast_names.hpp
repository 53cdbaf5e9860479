#pragma once
// The short names the HTTP session code (server.cpp and stream.cpp) spells Beast and Asio
// with. A Beast header in effect: include it only from those two files.

#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>

namespace boost::beast::http {}

namespace polycodec::server::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;
using clock_type = std::chrono::steady_clock;

}  // namespace polycodec::server::http
