#pragma once
// The TCP front end (DESIGN section 5, Asio): accepts on one context, spreads
// connections over all I/O contexts (server/listener.cpp), one session per connection.
// Asio stays out of this header.

#include <memory>
#include <vector>

#include "service.hpp"

namespace boost::asio {
class io_context;
}

namespace polycodec::server {
class listener;
}

namespace polycodec::server::tcp {

/// The TCP front end's listener (see listener.hpp): `contexts` are the I/O contexts, one
/// per thread; the first one also accepts. Call listen(), then start(); on shutdown
/// stop_accepting(), then drain().
std::shared_ptr<listener> make_listener(service& svc,
                                        std::vector<boost::asio::io_context*> contexts);

}  // namespace polycodec::server::tcp
