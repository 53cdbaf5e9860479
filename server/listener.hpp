#pragma once
// The accept loop shared by the HTTP and TCP front ends (DESIGN section 7): one listening
// socket on the first I/O context, accepted sockets spread round-robin over all contexts,
// each counted against --max-connections, a back-off after accept errors, and a close that
// the drain can wait for. Asio header: include it only from the front ends' server.cpp.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "service.hpp"

namespace polycodec::server {

/// The timeout of a connection's pending I/O: arm() cancels the socket's operations when the
/// time passes, unless disarm() or another arm() came first (a generation number ignores the
/// expiry of an earlier wait). `keep` (the owner's shared_ptr) keeps the owner, and so this
/// object, alive while the wait is pending. One wait at a time, on the socket's executor.
class io_deadline {
public:
    explicit io_deadline(boost::asio::ip::tcp::socket& socket)
        : socket_(socket), timer_(socket.get_executor()) {}

    template <class Keep>
    void arm(std::chrono::milliseconds d, Keep keep) {
        expired_ = false;
        timer_.expires_after(d);
        timer_.async_wait([this, keep = std::move(keep), gen = ++gen_](boost::system::error_code ec) {
            if (ec || gen != gen_) {
                return;
            }
            expired_ = true;
            boost::system::error_code ignored;
            socket_.cancel(ignored);
        });
    }
    void disarm() {
        ++gen_;
        timer_.cancel();
    }
    /// The last armed wait ran out (and cancelled the socket's operations).
    bool expired() const noexcept { return expired_; }

private:
    boost::asio::ip::tcp::socket& socket_;
    boost::asio::steady_timer timer_;
    std::uint64_t gen_ = 0;
    bool expired_ = false;
};


class listener : public std::enable_shared_from_this<listener> {
public:
    /// Called on the accepted socket's own context thread. `over_limit`: this connection is
    /// over --max-connections (the session answers 503 / status 5 and closes). The session
    /// must give its slot back with `svc.open_connections.fetch_sub(1)` when it ends.
    using start_session = std::function<void(boost::asio::ip::tcp::socket, bool over_limit)>;
    /// Called once on each context's thread by drain(): close that thread's idle sessions now
    /// and the others after their current answer.
    using drain_sessions = std::function<void()>;

    /// `transport` names the front end in log lines ("http" or "tcp").
    listener(service& svc, std::vector<boost::asio::io_context*> contexts, const char* transport,
             start_session start, drain_sessions drain);

    /// Binds and listens; returns the bound port (useful with port 0). Throws on failure.
    unsigned short listen(const std::string& host, unsigned short port);
    /// Starts accepting (call once, from any thread).
    void start();
    /// Closes the listening socket and returns once it is closed (thread-safe; waits at most
    /// 5 s for the first context's thread, in case it is inside a long handler).
    void stop_accepting();
    /// Runs the drain callback on each context's thread (thread-safe; returns at once).
    void drain();

private:
    void accept();

    service& svc_;
    std::vector<boost::asio::io_context*> contexts_;
    const char* transport_;
    start_session start_;
    drain_sessions drain_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer retry_;
    std::size_t next_ = 0;
};

}  // namespace polycodec::server
