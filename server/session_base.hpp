#pragma once
// What the HTTP and TCP sessions share (http/server.cpp, tcp/server.cpp): the connection's
// stream and deadline, its count and peer address, the per-thread set of live sessions that
// the drain walks, the log line of a failed TLS handshake and the two ways to close. Asio
// header: include it only from those two files.

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "listener.hpp"
#include "metrics.hpp"
#include "service.hpp"
#include "tls.hpp"
#include "tls_stream.hpp"

namespace polycodec::server {

/// The base of a front end's session `Derived`, which defines start() (its first read, or the
/// TLS handshake first), close_now() (close_socket() and its own state) and idle() (true while
/// it waits for the next request: the drain closes it at once).
template <class Derived>
class session_base : public std::enable_shared_from_this<Derived> {
public:
    session_base(const session_base&) = delete;
    session_base& operator=(const session_base&) = delete;

    /// Drain: an idle connection closes now, a busy one after its answer.
    void on_drain() {
        draining_ = true;
        if (static_cast<Derived*>(this)->idle()) {
            boost::system::error_code ec;
            socket_.socket().cancel(ec);
        }
    }

    /// The listener of this front end (`name` in log lines): a started Derived(svc, socket,
    /// over_limit) per accepted socket; the drain reaches each context's live sessions.
    static std::shared_ptr<listener> make_session_listener(
        service& svc, std::vector<boost::asio::io_context*> contexts, const char* name) {
        return std::make_shared<listener>(
            svc, std::move(contexts), name,
            [&svc](boost::asio::ip::tcp::socket s, bool over_limit) {
                std::make_shared<Derived>(svc, std::move(s), over_limit)->start();
            },
            [] {
                // Each context's thread sees its own sessions.
                for (session_base* s : live()) {
                    s->on_drain();
                }
            });
    }

protected:
    session_base(service& svc, boost::asio::ip::tcp::socket socket, transport t, bool over_limit)
        : svc_(svc),
          socket_(std::move(socket), transport_stream::context_of(svc.tls)),
          deadline_(socket_.socket()),
          transport_(t),
          over_limit_(over_limit) {
        live().insert(this);
        svc_.stats.connections(transport_, 1);
        boost::system::error_code ec;
        auto ep = socket_.socket().remote_endpoint(ec);
        if (!ec) {
            peer_ = ep.address().to_string() + ":" + std::to_string(ep.port());
        }
    }

    ~session_base() {
        live().erase(this);
        svc_.stats.connections(transport_, -1);
        svc_.open_connections.fetch_sub(1, std::memory_order_relaxed);
    }

    // ---- timers (io_deadline, listener.hpp) ----
    void arm(std::chrono::milliseconds d) { deadline_.arm(d, this->shared_from_this()); }
    void disarm() { deadline_.disarm(); }

    /// After the TLS handshake: false when it succeeded; else (an error, or a stall past the
    /// deadline) the failure is logged and true.
    bool handshake_failed(const boost::system::error_code& ec) {
        if (!ec && !deadline_.expired()) {
            return false;
        }
        log_handshake_failure(to_string(transport_), peer_, deadline_.expired(), svc_.cfg,
                              ec.message());
        return true;
    }

    /// Shuts the socket down both ways and closes it, its deadline disarmed.
    void close_socket() {
        disarm();
        boost::system::error_code ec;
        socket_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
        socket_.socket().close(ec);
    }

    /// Half-close, then read what the client still sends into `scratch` and drop it, for up
    /// to `d` or until the client closes; then close_now(). So closing with unread data does
    /// not reset the connection before the client has read our last answer. Over TLS the
    /// half-close is close_notify, and the client's is awaited as long.
    void linger_close_after(std::chrono::milliseconds d, boost::asio::mutable_buffer scratch) {
        arm(d);
        if (socket_.is_tls()) {
            socket_.async_tls_shutdown([self = this->shared_from_this()](
                                           boost::system::error_code) { self->close_now(); });
            return;
        }
        boost::system::error_code ec;
        socket_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
        discard(scratch);
    }

    service& svc_;
    transport_stream socket_;
    io_deadline deadline_;
    transport transport_;
    bool over_limit_ = false;
    bool draining_ = false;
    std::string peer_;

private:
    // Sessions of the calling I/O thread, for drain. Each session lives on one thread only.
    static std::unordered_set<session_base*>& live() {
        thread_local std::unordered_set<session_base*> sessions;
        return sessions;
    }

    void discard(boost::asio::mutable_buffer scratch) {
        socket_.async_read_some(scratch, [self = this->shared_from_this(), scratch](
                                             boost::system::error_code ec, std::size_t) {
            if (ec || self->deadline_.expired()) {
                return self->close_now();
            }
            self->discard(scratch);
        });
    }
};

}  // namespace polycodec::server
