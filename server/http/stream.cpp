// Stream mode over HTTP (DESIGN section 12). One exchange: read some body bytes, feed the
// record_reader, convert every complete record into the output buffer, send it as a chunk once
// it is large (or the input waits), and only then read again: reading pauses while output
// waits (backpressure), so a stream holds one input window, one record and one output window
// whatever its size.
//
// Errors before the first answer byte are problem+json answers as usual (a record over
// --max-record is 413). After it, the answer ends without its last chunk, and the error is
// logged (event=stream_failed with the record index and byte offset) and counted
// (polycodec_stream_errors_total).
#include "http/stream.hpp"

#include <array>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <chrono>
#include <limits>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "http/beast_names.hpp"
#include "http/problem.hpp"
#include "listener.hpp"
#include "logging.hpp"
#include "polycodec/stream.hpp"
#include "tls_stream.hpp"

namespace polycodec::server::http {
namespace {

constexpr std::size_t read_window = 64 * 1024;   // body bytes per read
constexpr std::size_t flush_at = 64 * 1024;      // output bytes per chunk (docs/SERVICE.md)
constexpr std::size_t lossy_kept = 32;           // events kept for the trailer
constexpr std::string_view continue_line = "HTTP/1.1 100 Continue\r\n\r\n";

double since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::string ms_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", s * 1000);
    return buf;
}

// A record over --max-record: 413 (the reader's own message names the flag).
bool over_max_record(const error& e) {
    return e.code == errc::size_exceeded &&
           e.message.find("(--max-record)") != std::string::npos;
}

class exchange : public std::enable_shared_from_this<exchange> {
public:
    exchange(service& svc, transport_stream& socket, beast::flat_buffer& buffer,
             bhttp::request_parser<bhttp::string_body>& head, stream_request req,
             std::function<void(after_stream)> done)
        : svc_(svc),
          socket_(socket),
          buffer_(buffer),
          parser_(std::move(head)),
          req_(std::move(req)),
          done_(std::move(done)),
          deadline_(socket.socket()),
          from_(req_.opt.from->id),
          to_(req_.validate_only ? req_.opt.from->id : req_.opt.to->id),
          reader_(from_, req_.opt.decode, svc.cfg.max_record),
          writer_(to_, writer_options()),
          in_(read_window) {
        parser_.body_limit(std::numeric_limits<std::uint64_t>::max());  // records have limits, the stream none
        if (!req_.codings.empty()) {
            dec_.emplace(req_.codings);
            dec_buf_.resize(read_window);
        }
        if (!req_.validate_only && svc_.cfg.compress) {
            // A stream's size is not known up front: --compress-min-size does not apply.
            encoding_choice ch =
                negotiate_encoding(req_.accept_encoding, req_.has_accept_encoding, true);
            if (ch.chosen != coding::identity) {
                enc_.emplace(ch.chosen);
            }
        }
        started_ = clock_type::now();
        svc_.stats.inflight(transport::http, 1);
    }

    ~exchange() { svc_.stats.inflight(transport::http, -1); }

    void start() {
        if (req_.expect_continue) {
            arm(svc_.cfg.body_timeout);
            net::async_write(socket_, net::buffer(continue_line.data(), continue_line.size()),
                             [self = shared_from_this()](error_code ec, std::size_t) {
                                 self->disarm();
                                 if (ec) {
                                     return self->abort("client_gone", ec.message());
                                 }
                                 self->read_more();
                             });
            return;
        }
        read_more();
    }

private:
    encode_options writer_options() {
        encode_options o = req_.opt.encode;
        o.report = &lossy_;
        return o;
    }

    // ---- timers (io_deadline, listener.hpp) ----
    void arm(std::chrono::milliseconds d) { deadline_.arm(d, shared_from_this()); }
    void disarm() { deadline_.disarm(); }

    // ---- input ----
    void read_more() {
        // A coded body: decode what was read one window at a time (the reader sees at most
        // read_window decoded bytes per step, whatever the compression ratio).
        if (decoder_has_more()) {
            if (!decode_window()) {
                return;  // answered
            }
            return process();
        }
        if (parser_.is_done()) {
            if (dec_ && !dec_finished_) {
                dec_finished_ = true;
                if (auto f = dec_->finish(); !f) {
                    return fail_coding(f.error());
                }
            }
            reader_.finish();
            return process();
        }
        // Let the socket read a whole window at once (flat_buffer would otherwise grow in
        // small steps: ~4 KiB reads, each with its timer and system calls).
        buffer_.reserve(read_window);
        auto& body = parser_.get().body();
        body.data = in_.data();
        body.size = in_.size();
        body.more = true;
        // Waiting for the client: the body timeout bounds each wait, not the whole stream.
        arm(svc_.cfg.body_timeout);
        bhttp::async_read_some(socket_, buffer_, parser_,
                               [self = shared_from_this()](error_code ec, std::size_t) {
                                   self->on_read(ec);
                               });
    }

    void on_read(error_code ec) {
        disarm();
        if (ec == bhttp::error::need_buffer) {
            ec = {};
        }
        std::size_t got = in_.size() - parser_.get().body().size;
        if (deadline_.expired()) {
            return fail_io(408, "request_timeout",
                           "no body bytes arrived within " +
                               std::to_string(svc_.cfg.body_timeout.count()) + " ms");
        }
        if (ec == bhttp::error::end_of_stream || ec == net::error::eof ||
            ec == net::error::connection_reset || ec == net::error::operation_aborted ||
            ec == bhttp::error::partial_message) {
            return abort("client_disconnected", "the client closed the connection mid-body");
        }
        if (ec) {
            return fail_io(400, "bad_request", "malformed HTTP request: " + ec.message());
        }
        bytes_in_ += got;
        if (dec_) {
            pending_ = std::string_view(in_.data(), got);
            dec_more_ = true;  // a finished body may still have output in the decoder
            return read_more();
        }
        if (got != 0) {
            reader_.feed({in_.data(), got});
        }
        if (parser_.is_done()) {
            reader_.finish();
        }
        process();
    }

    // A coded body: whether the decoder may still give output without another read.
    bool decoder_has_more() const { return dec_ && (dec_more_ || !pending_.empty()); }

    // Decodes the next window of the body into the reader. False: corrupt, answered.
    bool decode_window() {
        auto r = dec_->decode(pending_, dec_buf_.data(), dec_buf_.size());
        if (!r) {
            fail_coding(r.error());
            return false;
        }
        dec_more_ = *r == dec_buf_.size();
        decoded_in_ += *r;
        if (*r != 0) {
            reader_.feed({dec_buf_.data(), *r});
        }
        return true;
    }

    // ---- converting ----
    void process() {
        // Two clock reads a record: decoding runs from t0 to t1, encoding from t1 to the next t0.
        auto t0 = clock_type::now();
        for (;;) {
            auto s = reader_.next(rec_);
            auto t1 = clock_type::now();
            decode_s_ += std::chrono::duration<double>(t1 - t0).count();
            if (!s) {
                return fail_record(s.error(), stage::decode);
            }
            if (*s == record_reader::step::need_input) {
                // The next decoded window in this loop, not by recursion: a small compressed
                // body may hold millions of windows.
                if (decoder_has_more()) {
                    if (!decode_window()) {
                        return;
                    }
                    t0 = clock_type::now();
                    continue;
                }
                // Output goes out in chunks of flush_at bytes (or at the end): an error in the
                // first chunk's worth of records is still a problem+json answer.
                return read_more();
            }
            if (*s == record_reader::step::end) {
                return finish();
            }
            if (req_.validate_only) {
                t0 = t1;
                continue;
            }
            if (!began_) {
                began_ = true;
                if (auto b = writer_.begin(out_, reader_.declared_count()); !b) {
                    return fail_record(b.error(), stage::encode);
                }
            }
            auto w = writer_.write(rec_, out_);
            t0 = clock_type::now();
            encode_s_ += std::chrono::duration<double>(t0 - t1).count();
            if (!w) {
                return fail_record(w.error(), stage::encode);
            }
            take_lossy();
            if (out_.size() >= flush_at) {
                return send(false, [](exchange& x) { x.process(); });
            }
        }
    }

    // Counts this record's fallbacks; keeps the first few for the trailer.
    void take_lossy() {
        for (std::size_t i = lossy_seen_; i < lossy_.size(); ++i) {
            svc_.stats.lossy(from_, to_, lossy_[i].kind);
        }
        if (lossy_.size() > lossy_kept) {
            lossy_.resize(lossy_kept);
            lossy_truncated_ = true;
        }
        lossy_seen_ = lossy_.size();
    }

    void finish() {
        if (req_.validate_only) {
            return answer_plain(204);
        }
        if (!began_) {
            began_ = true;
            if (auto b = writer_.begin(out_, reader_.declared_count()); !b) {
                return fail_record(b.error(), stage::encode);
            }
        }
        if (auto e = writer_.end(out_); !e) {
            return fail_record(e.error(), stage::encode);
        }
        send(true, [](exchange& x) { x.complete(200, x.keep_alive() ? after_stream::keep_alive
                                                                      : after_stream::linger); });
    }

    bool keep_alive() const {
        return req_.keep_alive && parser_.is_done() &&
               !svc_.draining.load(std::memory_order_relaxed);
    }

    // ---- output ----
    std::string head() const {
        std::string h = "HTTP/1.1 200 OK\r\nServer: polycodec\r\nContent-Type: ";
        if (req_.opt.encode.seq && to_ == format_id::json) {
            h += "application/json-seq";
        } else if (req_.opt.encode.seq && to_ == format_id::cbor) {
            h += "application/cbor-seq";
        } else {
            h += content_type_of(*find_format(to_), req_.opt);
        }
        h += "\r\nTransfer-Encoding: chunked\r\n";
        h += svc_.cfg.compress ? "Vary: Accept, Accept-Encoding\r\n" : "Vary: Accept\r\n";
        if (enc_) {
            h += "Content-Encoding: ";
            h += to_string(enc_->kind());
            h += "\r\n";
        }
        h += "X-Request-Id: ";
        h += req_.request_id;
        if (writer_.concatenated()) {
            h += "\r\nPolycodec-Stream: concatenated";
        }
        h += "\r\nTrailer: Server-Timing";
        if (req_.opt.encode.lossy) {
            h += ", Polycodec-Lossy";
        }
        if (!req_.keep_alive) {
            h += "\r\nConnection: close";
        }
        h += "\r\n\r\n";
        return h;
    }

    // Sends what out_ holds as one chunk (and, with `last`, the last chunk and the trailers),
    // the head first if it has not gone out; then runs `then`.
    void send(bool last, void (*then)(exchange&)) {
        prefix_.clear();
        suffix_.clear();
        if (!head_sent_) {
            prefix_ = head();
            head_sent_ = true;
        }
        std::string_view body(out_.data(), out_.size());
        if (enc_) {
            // Each chunk is flushed: the client can decode every record sent so far.
            zout_.clear();
            if (!body.empty()) {
                enc_->write(body, zout_, true);
            }
            if (last) {
                enc_->finish(zout_);
            }
            identity_out_ += body.size();
            body = zout_;
        }
        if (!body.empty()) {
            char size_line[24];
            int n = std::snprintf(size_line, sizeof size_line, "%zx\r\n", body.size());
            prefix_.append(size_line, static_cast<std::size_t>(n));
            suffix_ = "\r\n";
        }
        if (last) {
            suffix_ += "0\r\nServer-Timing: decode;dur=" + ms_text(decode_s_) +
                       ", encode;dur=" + ms_text(encode_s_) + "\r\n";
            if (req_.opt.encode.lossy && !lossy_.empty()) {
                std::string v = lossy_header(lossy_);
                if (lossy_truncated_ && v.find("truncated") == std::string::npos) {
                    v += ", truncated";
                }
                suffix_ += "Polycodec-Lossy: " + v + "\r\n";
            }
            suffix_ += "\r\n";
        }
        bytes_out_ += body.size();
        std::array<net::const_buffer, 3> bufs{net::buffer(prefix_),
                                              net::buffer(body.data(), body.size()),
                                              net::buffer(suffix_)};
        // A client that stops reading: the write waits at most the body timeout.
        arm(svc_.cfg.body_timeout);
        net::async_write(socket_, bufs,
                         [self = shared_from_this(), then](error_code ec, std::size_t) {
                             self->disarm();
                             if (ec || self->deadline_.expired()) {
                                 return self->abort(self->deadline_.expired() ? "client_not_reading"
                                                                     : "client_gone",
                                                    self->deadline_.expired()
                                                        ? "the client read nothing for " +
                                                              std::to_string(
                                                                  self->svc_.cfg.body_timeout
                                                                      .count()) +
                                                              " ms"
                                                        : ec.message());
                             }
                             self->out_.clear();
                             then(*self);
                         });
    }

    // ---- ending ----
    void fail_record(error e, stage at) {
        if (!head_sent_) {
            outcome o;
            o.ok = false;
            o.failed = at;
            o.err = std::move(e);
            int status = over_max_record(o.err) ? 413 : status_of(o);
            response res;
            res.status = status;
            res.content_type = std::string(problem_content_type);
            res.body = problem_body(status, over_max_record(o.err) ? "content_too_large"
                                                                   : to_string(o.err.code),
                                    describe(o.err), &o.err);
            return answer(std::move(res));
        }
        log_event(log_level::warn, "stream_failed",
                  {{"request_id", req_.request_id},
                   {"from", std::string(to_string(from_))},
                   {"to", std::string(to_string(to_))},
                   {"record", std::to_string(reader_.records()), true},
                   {"offset", std::to_string(e.offset), true},
                   {"error", describe(e)}});
        svc_.stats.stream_failed(from_, to_);
        complete(200, after_stream::close);
    }

    // Corrupt compressed data in the body: 400 naming the coding and the compressed offset
    // before the answer began, else the stream is cut short.
    void fail_coding(const error& e) {
        if (head_sent_) {
            return abort("bad_content_encoding", e.message);
        }
        response res;
        res.status = 400;
        res.content_type = std::string(problem_content_type);
        res.body = problem_body(400, "bad_content_encoding", e.message, &e);
        std::string outer(to_string(req_.codings.back()));
        res.body.insert(res.body.size() - 2, ",\"content_encoding\":\"" + outer + "\"");
        answer(std::move(res));
    }

    void fail_io(int status, std::string_view code, const std::string& detail) {
        if (head_sent_) {
            return abort(std::string(code), detail);
        }
        response res;
        error_response(status, code, detail, req_.request_id, res);
        answer(std::move(res));
    }

    void abort(const std::string& why, const std::string& detail) {
        log_event(log_level::warn, "stream_aborted",
                  {{"request_id", req_.request_id},
                   {"reason", why},
                   {"record", std::to_string(reader_.records()), true},
                   {"offset", std::to_string(reader_.offset()), true},
                   {"detail", detail}});
        if (head_sent_) {
            svc_.stats.stream_failed(from_, to_);
        }
        complete(head_sent_ ? 200 : 499, after_stream::close);
    }

    // A whole answer before any stream byte went out (an error, or 204 for /validate).
    void answer_plain(int status) {
        response res;
        res.status = status;
        answer(std::move(res));
    }

    void answer(response res) {
        std::string& w = prefix_;
        w = "HTTP/1.1 " + std::to_string(res.status) + " " + std::string(reason(res.status)) +
            "\r\nServer: polycodec\r\n";
        if (!res.content_type.empty()) {
            w += "Content-Type: " + res.content_type + "\r\n";
        }
        bool has_id = false;
        for (auto& [k, v] : res.headers) {
            w += k + ": " + v + "\r\n";
            has_id = has_id || k == "X-Request-Id";
        }
        if (!has_id) {
            w += "X-Request-Id: " + req_.request_id + "\r\n";
        }
        w += "Server-Timing: decode;dur=" + ms_text(decode_s_) + ", encode;dur=" +
             ms_text(encode_s_) + "\r\n";
        if (res.status != 204) {
            w += "Content-Length: " + std::to_string(res.body.size()) + "\r\n";
        }
        bool keep = res.status < 400 && keep_alive();
        if (!keep) {
            w += "Connection: close\r\n";
        }
        w += "\r\n";
        w += res.body;
        head_sent_ = true;
        bytes_out_ = res.body.size();
        int status = res.status;
        arm(svc_.cfg.body_timeout);
        net::async_write(socket_, net::buffer(prefix_),
                         [self = shared_from_this(), status, keep](error_code ec, std::size_t) {
                             self->disarm();
                             if (ec) {
                                 return self->complete(status, after_stream::close);
                             }
                             self->complete(status, keep ? after_stream::keep_alive
                                                         : after_stream::linger);
                         });
    }

    void complete(int status, after_stream how) {
        if (completed_) {
            return;
        }
        completed_ = true;
        if (reader_.records() != 0 && !req_.validate_only) {
            svc_.stats.stream_records(from_, to_, writer_.records());
        }
        svc_.stats.decoded(from_, bytes_in_, decode_s_);
        if (!req_.validate_only) {
            svc_.stats.encoded(to_, bytes_out_, encode_s_);
        }
        if (dec_) {
            for (coding c : req_.codings) {
                svc_.stats.content_coding(false, to_string(c), bytes_in_, decoded_in_);
            }
        }
        if (enc_ && identity_out_ != 0) {
            svc_.stats.content_coding(true, to_string(enc_->kind()), bytes_out_, identity_out_);
        }
        double total = since(started_);
        std::uint8_t to_num = req_.validate_only ? 0 : static_cast<std::uint8_t>(to_);
        svc_.stats.request(transport::http, static_cast<std::uint8_t>(from_), to_num, status,
                           total, bytes_in_, bytes_out_);
        if (access_log_enabled()) {
            access_entry e;
            e.transport = "http";
            e.method = req_.method;
            e.path = path_of(req_.target);
            e.from = find_format(from_)->name;
            e.to = req_.validate_only ? std::string_view("-") : find_format(to_)->name;
            e.status = status;
            e.bytes_in = bytes_in_;
            e.bytes_out = bytes_out_;
            e.decode_ms = decode_s_ * 1000;
            e.encode_ms = encode_s_ * 1000;
            e.total_ms = total * 1000;
            e.request_id = req_.request_id;
            e.peer = req_.peer;
            log_access(e);
        }
        auto done = std::move(done_);
        done(how);
    }

    service& svc_;
    transport_stream& socket_;
    beast::flat_buffer& buffer_;
    bhttp::request_parser<bhttp::buffer_body> parser_;
    stream_request req_;
    std::function<void(after_stream)> done_;
    io_deadline deadline_;
    format_id from_;
    format_id to_;
    lossy_report lossy_;
    record_reader reader_;
    record_writer writer_;
    std::vector<char> in_;
    document rec_;
    output_buffer out_;
    std::string prefix_;
    std::string suffix_;
    // Content codings: the body's decoder, its undecoded input (in in_) and output window;
    // the answer's encoder and its compressed chunk.
    std::optional<content_decoder> dec_;
    std::string_view pending_;
    std::vector<char> dec_buf_;
    bool dec_more_ = false;
    bool dec_finished_ = false;
    std::size_t decoded_in_ = 0;
    std::optional<content_encoder> enc_;
    std::string zout_;
    std::size_t identity_out_ = 0;
    bool began_ = false;
    bool head_sent_ = false;
    bool completed_ = false;
    bool lossy_truncated_ = false;
    std::size_t lossy_seen_ = 0;
    std::size_t bytes_in_ = 0;
    std::size_t bytes_out_ = 0;
    double decode_s_ = 0;
    double encode_s_ = 0;
    clock_type::time_point started_;
};

}  // namespace

void run_stream(service& svc, transport_stream& socket, beast::flat_buffer& buffer,
                bhttp::request_parser<bhttp::string_body>& head, stream_request req,
                std::function<void(after_stream)> done) {
    std::make_shared<exchange>(svc, socket, buffer, head, std::move(req), std::move(done))
        ->start();
}

}  // namespace polycodec::server::http
