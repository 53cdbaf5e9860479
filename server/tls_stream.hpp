#pragma once
// The byte stream a session reads and writes: a plain TCP socket, or TLS over it (Boost.Asio
// SSL over OpenSSL). Both front ends (http/server.cpp, http/stream.cpp, tcp/server.cpp) use
// transport_stream, so the sessions are the same code with or without TLS. Asio SSL and
// OpenSSL headers: include this only from those files and tls.cpp.

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "tls.hpp"

namespace polycodec::server {

class tls_contexts {
public:
    explicit tls_contexts(std::shared_ptr<boost::asio::ssl::context> ctx) : ctx_(std::move(ctx)) {}

    /// The context of a handshake that starts now.
    std::shared_ptr<boost::asio::ssl::context> current() const {
        std::lock_guard<std::mutex> lock(mu_);
        return ctx_;
    }
    void replace(std::shared_ptr<boost::asio::ssl::context> ctx) {
        std::lock_guard<std::mutex> lock(mu_);
        ctx_ = std::move(ctx);
    }

private:
    mutable std::mutex mu_;
    std::shared_ptr<boost::asio::ssl::context> ctx_;
};

/// An AsyncReadStream and AsyncWriteStream (Beast and Asio composed operations accept it):
/// the socket itself, or TLS over it. The TLS stream is Beast's ssl_stream, which joins a
/// write's buffers (an answer's head and body) into one TLS record instead of one record and
/// one send per buffer; its socket has TCP_NODELAY, since an answer over 16 KiB is several
/// records and Nagle would hold the last one for the client's delayed ACK (40 ms). The
/// branch per operation costs nothing next to the system call.
class transport_stream {
public:
    using socket_type = boost::asio::ip::tcp::socket;
    using executor_type = socket_type::executor_type;

    /// TLS over `socket` with `ctx` (kept alive as long as the stream); plain TCP when `ctx`
    /// is null.
    transport_stream(socket_type socket, std::shared_ptr<boost::asio::ssl::context> ctx)
        : plain_(socket.get_executor()), ctx_(std::move(ctx)) {
        if (ctx_) {
            boost::system::error_code ignored;
            socket.set_option(boost::asio::ip::tcp::no_delay(true), ignored);
            tls_.emplace(std::move(socket), *ctx_);
        } else {
            plain_ = std::move(socket);
        }
    }
    /// The context of a session accepted now: the current one, or null without TLS.
    static std::shared_ptr<boost::asio::ssl::context> context_of(
        const std::shared_ptr<tls_contexts>& tls) {
        return tls ? tls->current() : nullptr;
    }

    transport_stream(const transport_stream&) = delete;
    transport_stream& operator=(const transport_stream&) = delete;

    executor_type get_executor() { return socket().get_executor(); }
    bool is_tls() const noexcept { return tls_.has_value(); }

    /// The TCP socket (timeouts cancel it, close_now shuts it down; a cancel also ends the
    /// TLS operation that waits on it).
    socket_type& socket() noexcept { return tls_ ? tls_->next_layer() : plain_; }

    template <class MutableBuffers, class Handler>
    void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
        with_layer(
            [&](auto& layer) { layer.async_read_some(buffers, std::forward<Handler>(handler)); });
    }

    template <class ConstBuffers, class Handler>
    void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
        with_layer(
            [&](auto& layer) { layer.async_write_some(buffers, std::forward<Handler>(handler)); });
    }

    /// The server side of the TLS handshake; `handler(error_code)`. Only when is_tls().
    template <class Handler>
    void async_handshake(Handler&& handler) {
        tls_->async_handshake(boost::asio::ssl::stream_base::server,
                              std::forward<Handler>(handler));
    }

    /// Sends close_notify and waits for the peer's (bound by the caller's deadline); TLS only.
    template <class Handler>
    void async_tls_shutdown(Handler&& handler) {
        tls_->async_shutdown(std::forward<Handler>(handler));
    }

    /// Waits until the peer has sent something; `handler(error_code)`. Over plain TCP this is
    /// a wait on the socket (nothing is read); over TLS the bytes may already sit decrypted in
    /// the TLS engine, so the wait is a read into `buffer` (up to one TLS record).
    template <class Handler>
    void async_wait_readable(boost::beast::flat_buffer& buffer, Handler&& handler) {
        if (!tls_) {
            plain_.async_wait(socket_type::wait_read, std::forward<Handler>(handler));
            return;
        }
        // A small window: an idle connection should not hold a record-sized buffer, and
        // the head's parser reads the rest.
        tls_->async_read_some(buffer.prepare(2048),
                              [&buffer, h = std::forward<Handler>(handler)](
                                  boost::system::error_code ec, std::size_t n) mutable {
                                  buffer.commit(n);
                                  h(ec);
                              });
    }

private:
    /// Calls `f` with the layer that reads and writes: the TLS stream, or the socket.
    template <class F>
    void with_layer(F&& f) {
        if (tls_) {
            f(*tls_);
        } else {
            f(plain_);
        }
    }

    socket_type plain_;  ///< the socket without TLS; unused (closed) with TLS
    std::shared_ptr<boost::asio::ssl::context> ctx_;
    std::optional<boost::beast::ssl_stream<socket_type>> tls_;
};

}  // namespace polycodec::server
