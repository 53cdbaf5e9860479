#pragma once
// The TCP front end (DESIGN section 5, Asio): accepts on one context, spreads
// connections over all I/O contexts, one session per connection. Asio stays in server.cpp.

#include <memory>
#include <string>
#include <vector>

#include "service.hpp"

namespace boost::asio {
class io_context;
}

namespace polycodec::server::tcp {

class server {
public:
    /// `contexts` are the I/O contexts, one per thread; the first one also accepts.
    server(service& svc, std::vector<boost::asio::io_context*> contexts);
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    /// Binds and listens; returns the bound port (useful with port 0). Throws on failure.
    unsigned short listen(const std::string& host, unsigned short port);
    /// Starts accepting (call once, before the contexts run or from any thread).
    void start();
    /// Closes the listening socket and returns once it is closed (thread-safe; new
    /// connections are refused from then on; waits at most 5 s for the accepting thread).
    void stop_accepting();
    /// Closes idle connections now and the others after their current answer (thread-safe).
    void drain();

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace polycodec::server::tcp
