#pragma once
// The HTTP/1.1 front end (Boost.Beast, asynchronous): accepts on one context, spreads
// connections over all I/O contexts (server/listener.cpp), one session per connection.
// Beast and Asio stay out of this header.

#include <memory>
#include <vector>

#include "service.hpp"

namespace boost::asio {
class io_context;
}

namespace polycodec::server {
class listener;
}

namespace polycodec::server::http {

/// The HTTP front end's listener (see listener.hpp): `contexts` are the I/O contexts, one
/// per thread; the first one also accepts. Call listen(), then start(); on shutdown
/// stop_accepting(), then drain().
std::shared_ptr<listener> make_listener(service& svc,
                                        std::vector<boost::asio::io_context*> contexts);

}  // namespace polycodec::server::http
