#pragma once
// The two front ends, HTTP/1.1 (http/server.cpp, Boost.Beast) and the binary TCP protocol
// (tcp/server.cpp, DESIGN section 5, Asio). Each accepts on one context, spreads connections
// over all I/O contexts (server/listener.cpp) and runs one session per connection.
// Beast and Asio stay out of this header.

#include <memory>
#include <vector>

#include "service.hpp"

namespace boost::asio {
class io_context;
}

namespace polycodec::server {

class listener;

/// Each front end's listener (see listener.hpp): `contexts` are the I/O contexts, one per
/// thread; the first one also accepts. Call listen(), then start(); on shutdown
/// stop_accepting(), then drain().
using io_contexts = std::vector<boost::asio::io_context*>;

namespace http {
std::shared_ptr<listener> make_listener(service& svc, io_contexts contexts);
}

namespace tcp {
std::shared_ptr<listener> make_listener(service& svc, io_contexts contexts);
}

}  // namespace polycodec::server
