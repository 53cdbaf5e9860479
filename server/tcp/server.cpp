#include "front_ends.hpp"

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <string>

#include "listener.hpp"
#include "logging.hpp"
#include "polycodec/proto/frame.hpp"
#include "session_base.hpp"
#include "tcp/handler.hpp"
#include "tls.hpp"
#include "tls_stream.hpp"
#include "transcode.hpp"

namespace polycodec::server::tcp {
namespace {

namespace net = boost::asio;
using socket_type = net::ip::tcp::socket;
using error_code = boost::system::error_code;
using clock_type = std::chrono::steady_clock;

constexpr std::size_t read_chunk = 64 * 1024;
// Input and output buffers above this are given back once their frames are answered.
constexpr std::size_t keep_buffer = std::size_t{4} << 20;

class session : public session_base<session> {
public:
    session(service& svc, socket_type socket, bool over_limit)
        : session_base(svc, std::move(socket), transport::tcp, over_limit) {
        error_code ignored;
        socket_.socket().set_option(net::ip::tcp::no_delay(true), ignored);
    }

    void start() {
        if (!socket_.is_tls()) {
            return read();
        }
        // A handshake that stalls (or a client that sends plain frames) is closed after
        // --header-timeout, or at once when it is not TLS at all; nothing is answered.
        arm(svc_.cfg.header_timeout);
        socket_.async_handshake([self = shared_from_this()](error_code ec) {
            self->disarm();
            if (self->draining_) {
                return self->close_now();  // the drain cancelled it
            }
            if (self->handshake_failed(ec)) {
                return self->close_now();
            }
            self->read();
        });
    }

private:
    friend class session_base<session>;

    // Idle between frames: the drain closes it now, a busy one after its answers.
    bool idle() const { return idle_; }

    // The service-wide flag too: this session's on_drain may not have run yet when a frame
    // that arrived after the drain began is answered.
    bool draining() const { return draining_ || svc_.draining.load(std::memory_order_relaxed); }

    void read() {
        if (draining() && in_.empty() && skip_ == 0) {
            return close_now();
        }
        // Idle between frames; the body timeout bounds a frame that has started.
        idle_ = in_.empty() && skip_ == 0;
        arm(idle_ && !over_limit_ ? svc_.cfg.idle_timeout : svc_.cfg.body_timeout);
        std::size_t old = in_.size();
        in_.resize(old + read_chunk);
        socket_.async_read_some(net::buffer(in_.data() + old, read_chunk),
                                [self = shared_from_this(), old](error_code ec, std::size_t n) {
                                    self->idle_ = false;
                                    self->in_.resize(old + n);
                                    self->disarm();
                                    self->on_read(ec);
                                });
    }

    void on_read(error_code ec) {
        if (deadline_.expired() || ec) {
            if (!in_.empty() && !draining_) {
                // A frame started but did not finish: say so, then close.
                std::uint32_t id = 0;
                if (in_.size() >= proto::header_size) {
                    proto::request_header h;
                    proto::parse_request_header(reinterpret_cast<const unsigned char*>(in_.data()),
                                                h);
                    id = h.request_id;
                }
                error_frame(proto::status::bad_frame, id,
                            deadline_.expired() ? "timed out inside a frame" : "truncated frame", out_);
                in_.clear();
                return write(true);
            }
            return close_now();
        }
        bool close_after = false;
        std::size_t pos = 0;
        while (true) {
            std::string_view rest(in_.data() + pos, in_.size() - pos);
            if (skip_ != 0) {
                // The payload of a refused frame: dropped as it arrives, never kept.
                std::size_t n = std::min(skip_, rest.size());
                pos += n;
                skip_ -= n;
                if (skip_ != 0) {
                    break;
                }
                continue;
            }
            if (rest.size() < proto::header_size) {
                break;
            }
            auto started = clock_type::now();
            proto::request_header h;
            proto::parse_error err =
                proto::parse_request_header(reinterpret_cast<const unsigned char*>(rest.data()), h);
            if (err != proto::parse_error::none) {
                error_frame(proto::status::bad_frame, h.request_id, proto::to_string(err), out_);
                record(h, proto::status::bad_frame, 0, 0, 0, 0, started, 0);
                close_after = true;
                break;
            }
            if (over_limit_) {
                svc_.stats.rejected(transport::tcp, reject_reason::connections);
                error_frame(
                    proto::status::busy, h.request_id,
                    "too many connections (limit " + std::to_string(svc_.cfg.max_connections) + ")",
                    out_);
                record(h, proto::status::busy, 0, 0, 0, 0, started, 0);
                close_after = true;
                break;
            }
            if (h.payload_length > svc_.cfg.max_body) {
                // Refused before the payload is buffered; the stream cannot be resynchronised.
                svc_.stats.rejected(transport::tcp, reject_reason::too_large);
                error_frame(proto::status::too_large, h.request_id,
                            "payload of " + std::to_string(h.payload_length) +
                                " bytes is over the limit of " + std::to_string(svc_.cfg.max_body),
                            out_);
                record(h, proto::status::too_large, 0, 0, 0, 0, started, 0);
                close_after = true;
                break;
            }
            std::size_t total = proto::header_size + h.payload_length;
            // Admission (DESIGN section 13): reserve before the payload is read. A refused
            // frame is answered in its turn and its payload dropped; the connection stays.
            if (!frame_res_) {
                std::size_t need = request_reservation(h.payload_length);
                if (!svc_.budget.could_fit(need)) {
                    refuse(h, proto::status::too_large, reject_reason::too_large,
                           "payload of " + std::to_string(h.payload_length) + " bytes needs " +
                               std::to_string(need) +
                               " bytes of memory, more than the server's whole budget of " +
                               std::to_string(svc_.budget.limit()),
                           started);
                    pos += proto::header_size;
                    continue;
                }
                frame_res_ = svc_.budget.try_reserve(need);
                if (!frame_res_) {
                    refuse(h, proto::status::busy, reject_reason::budget,
                           "the server's memory budget is in use: this frame needs " +
                               std::to_string(need) + " of its " +
                               std::to_string(svc_.budget.limit()) + " bytes; retry later",
                           started);
                    pos += proto::header_size;
                    continue;
                }
                if (rest.size() < total) {
                    // Room for the whole frame at once: no doubling growth past it.
                    in_.reserve(pos + total + read_chunk);
                }
            }
            if (rest.size() < total) {
                break;
            }
            svc_.stats.inflight(transport::tcp, 1);
            std::size_t before = out_.size();
            frame_result fr;
            try {
                fr = handle_frame(svc_, h, rest.substr(proto::header_size, h.payload_length), out_);
            } catch (const std::exception& e) {
                log_event(log_level::error, "handler_exception", {{"error", e.what()}});
                out_.resize(before);
                error_frame(proto::status::bad_frame, h.request_id, "internal error", out_);
                fr.code = proto::status::bad_frame;
                close_after = true;
            }
            svc_.stats.inflight(transport::tcp, -1);
            this_worker().trim();
            // What stays reserved until written: this frame's answer.
            frame_res_.shrink_to(out_.size() - before);
            write_res_.absorb(std::move(frame_res_));
            record(h, fr.code, fr.from, fr.to, fr.decode_ms, fr.encode_ms, started,
                   out_.size() - before - proto::header_size);
            pos += total;
            if (close_after) {
                break;
            }
        }
        in_.erase(0, pos);
        if (close_after) {
            in_.clear();
            frame_res_.release();
        }
        if (!frame_res_ && in_.capacity() > keep_buffer && in_.size() <= read_chunk) {
            std::string(in_).swap(in_);
        }
        if (!out_.empty()) {
            return write(close_after);
        }
        read();
    }

    // A frame refused by admission: its error frame in its turn, its payload skipped.
    void refuse(const proto::request_header& h, proto::status code, reject_reason reason,
                const std::string& message, clock_type::time_point started) {
        svc_.stats.rejected(transport::tcp, reason);
        error_frame(code, h.request_id, message, out_);
        record(h, code, 0, 0, 0, 0, started, message.size());
        skip_ = h.payload_length;
    }

    void record(const proto::request_header& h, proto::status code, std::uint8_t from,
                std::uint8_t to, double decode_ms, double encode_ms, clock_type::time_point t0,
                std::size_t bytes_out) {
        double total = std::chrono::duration<double>(clock_type::now() - t0).count();
        svc_.stats.request(transport::tcp, from, to, static_cast<int>(code), total,
                           h.payload_length, bytes_out);
        if (access_log_enabled()) {
            access_entry e;
            e.transport = "tcp";
            e.method = "FRAME";
            e.path = "-";
            const format_info* f = find_format_by_number(from);
            const format_info* t = find_format_by_number(to);
            e.from = f ? f->name : "-";
            e.to = t ? t->name : "-";
            e.status = static_cast<int>(code);
            e.bytes_in = h.payload_length;
            e.bytes_out = bytes_out;
            e.decode_ms = decode_ms;
            e.encode_ms = encode_ms;
            e.total_ms = total * 1000;
            std::string id = std::to_string(h.request_id);
            e.request_id = id;
            e.peer = peer_;
            log_access(e);
        }
    }

    void write(bool close_after) {
        arm(svc_.cfg.body_timeout);
        net::async_write(socket_, net::buffer(out_),
                         [self = shared_from_this(), close_after](error_code ec, std::size_t) {
                             self->disarm();
                             self->out_.clear();
                             if (self->out_.capacity() > keep_buffer) {
                                 std::string().swap(self->out_);
                             }
                             self->write_res_.release();
                             if (ec) {
                                 return self->close_now();
                             }
                             if (close_after || self->draining()) {
                                 return self->linger_close();
                             }
                             self->read();
                         });
    }

    void close_now() { close_socket(); }

    // Half-close and discard input for up to a second so the client reads our last frame
    // before the connection goes away.
    void linger_close() {
        scratch_.resize(4096);
        linger_close_after(std::chrono::milliseconds(1000), net::buffer(scratch_));
    }

    std::string in_;
    std::string out_;
    std::string scratch_;
    bool idle_ = false;                     ///< a read between frames is pending
    std::size_t skip_ = 0;                  ///< payload bytes of a refused frame still to drop
    memory_budget::reservation frame_res_;  ///< of the frame at the front of in_
    memory_budget::reservation write_res_;  ///< of the answers in out_ until written
};

}  // namespace

std::shared_ptr<listener> make_listener(service& svc,
                                        std::vector<boost::asio::io_context*> contexts) {
    return session::make_session_listener(svc, std::move(contexts), "tcp");
}

}  // namespace polycodec::server::tcp
