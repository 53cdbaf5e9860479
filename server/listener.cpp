#include "listener.hpp"

#include <boost/asio/post.hpp>
#include <chrono>
#include <future>

#include "logging.hpp"

namespace polycodec::server {

namespace net = boost::asio;
using error_code = boost::system::error_code;

listener::listener(service& svc, std::vector<net::io_context*> contexts, const char* transport,
                   start_session start, drain_sessions drain)
    : svc_(svc),
      contexts_(std::move(contexts)),
      transport_(transport),
      start_(std::move(start)),
      drain_(std::move(drain)),
      acceptor_(*contexts_.front()),
      retry_(*contexts_.front()) {}

unsigned short listener::listen(const std::string& host, unsigned short port) {
    net::ip::tcp::endpoint ep(net::ip::make_address(host), port);
    acceptor_.open(ep.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(net::socket_base::max_listen_connections);
    return acceptor_.local_endpoint().port();
}

void listener::start() {
    net::post(*contexts_.front(), [self = shared_from_this()] { self->accept(); });
}

void listener::accept() {
    net::io_context& target = *contexts_[next_++ % contexts_.size()];
    acceptor_.async_accept(target, [self = shared_from_this()](error_code ec,
                                                               net::ip::tcp::socket socket) {
        if (ec == net::error::operation_aborted || !self->acceptor_.is_open()) {
            return;
        }
        if (ec) {
            // Out of descriptors and the like: back off instead of spinning.
            log_event(log_level::warn, "accept_failed",
                      {{"transport", self->transport_}, {"error", ec.message()}});
            self->retry_.expires_after(std::chrono::milliseconds(50));
            self->retry_.async_wait([self](error_code wec) {
                if (!wec) {
                    self->accept();
                }
            });
            return;
        }
        std::size_t n = self->svc_.open_connections.fetch_add(1, std::memory_order_relaxed);
        bool over = n >= self->svc_.cfg.max_connections;
        // The socket belongs to its own context: start the session on that thread.
        auto exec = socket.get_executor();
        net::post(exec, [self, s = std::move(socket), over]() mutable {
            self->start_(std::move(s), over);
        });
        self->accept();
    });
}

void listener::stop_accepting() {
    // The acceptor belongs to the first context's thread, so the close runs there; waiting for
    // it means that once this returns, a connect() is refused.
    auto closed = std::make_shared<std::promise<void>>();
    std::future<void> done = closed->get_future();
    net::post(*contexts_.front(), [self = shared_from_this(), closed] {
        error_code ec;
        self->acceptor_.close(ec);
        self->retry_.cancel();
        closed->set_value();
    });
    done.wait_for(std::chrono::seconds(5));
}

void listener::drain() {
    for (net::io_context* c : contexts_) {
        net::post(*c, drain_);
    }
}

}  // namespace polycodec::server
