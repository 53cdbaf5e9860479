#include "front_ends.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "http/beast_names.hpp"
#include "http/content_coding.hpp"
#include "http/handler.hpp"
#include "http/problem.hpp"
#include "http/stream.hpp"
#include "listener.hpp"
#include "logging.hpp"
#include "polycodec/stream.hpp"
#include "session_base.hpp"
#include "tls.hpp"
#include "tls_stream.hpp"
#include "transcode.hpp"

namespace polycodec::server::http {
namespace {

constexpr std::uint32_t header_limit = 16 * 1024;
// A chunked body (no Content-Length) first reserves as for this many bytes, then grows its
// reservation as it arrives, a quarter ahead (at least chunked_step) to keep the atomics rare.
constexpr std::size_t chunked_initial = 64 * 1024;
constexpr std::size_t chunked_step = 1024 * 1024;

// Where refused bodies go: read and dropped, never kept. One per thread; its content is junk.
thread_local std::array<char, 64 * 1024> discard_buffer;
constexpr std::string_view continue_line = "HTTP/1.1 100 Continue\r\n\r\n";

// Decoded bodies (Content-Encoding) go into buffers reused by the I/O thread: a fresh buffer
// per request costs its page faults every time (measured: about 700 minor faults and 3 ms of a
// 1 MB gzip body's 5 ms under load, docs/BENCHMARKS.md). A few are kept, each up to 4 MiB,
// like the worker's own buffers.
constexpr std::size_t kept_decode_buffers = 2;
constexpr std::size_t kept_decode_capacity = 4 << 20;
thread_local std::vector<std::string> decode_buffers;

std::string take_decode_buffer() {
    if (decode_buffers.empty()) {
        return {};
    }
    std::string b = std::move(decode_buffers.back());
    decode_buffers.pop_back();
    return b;
}

// Gives `b`'s storage back to the thread (or frees it); `b` is left empty.
void give_decode_buffer(std::string& b) {
    b.clear();
    if (b.capacity() <= kept_decode_capacity && decode_buffers.size() < kept_decode_buffers) {
        decode_buffers.push_back(std::move(b));
    }
    std::string().swap(b);
}

std::string server_header() { return "polycodec"; }

class session : public session_base<session> {
public:
    session(service& svc, tcp::socket socket, bool over_limit)
        : session_base(svc, std::move(socket), transport::http, over_limit) {}

    void start() {
        if (!socket_.is_tls()) {
            return wait_for_request();
        }
        // The handshake is part of the request head: a client that stalls in it (or speaks
        // plain HTTP to the TLS port) is closed after --header-timeout, and answered nothing.
        phase_ = phase::header;
        arm(svc_.cfg.header_timeout);
        socket_.async_handshake([self = shared_from_this()](error_code ec) {
            self->disarm();
            if (self->handshake_failed(ec)) {
                return self->close_now();
            }
            self->wait_for_request();
        });
    }

private:
    friend class session_base<session>;
    enum class phase : std::uint8_t { idle, header, body, processing, writing, closing };

    bool idle() const { return phase_ == phase::idle; }

    // ---- reading ----
    void wait_for_request() {
        // The service-wide flag too: this session's on_drain may not have run yet.
        if (draining_ || svc_.draining.load(std::memory_order_relaxed)) {
            return close_now();
        }
        if (buffer_.size() != 0) {
            return read_header();  // a pipelined request is already here
        }
        // Wait for the first byte with the idle timeout; the header timeout starts then.
        phase_ = phase::idle;
        // A connection over the limit only gets the short head timeout to say something.
        arm(over_limit_ ? svc_.cfg.header_timeout : svc_.cfg.idle_timeout);
        socket_.async_wait_readable(buffer_, [self = shared_from_this()](error_code ec) {
            self->disarm();
            if (ec || self->deadline_.expired() || self->draining_) {
                return self->close_now();
            }
            self->read_header();
        });
    }

    void read_header() {
        phase_ = phase::header;
        parser_.emplace();
        parser_->header_limit(header_limit);
        // No body limit while the head is read: a stream has none, and a whole body's
        // Content-Length is checked in on_header (read_body sets the limit for chunked ones).
        parser_->body_limit(std::numeric_limits<std::uint64_t>::max());  // not boost::none: 1.74 compares it as the smallest limit
        arm(svc_.cfg.header_timeout);
        bhttp::async_read_header(
            socket_, buffer_, *parser_,
            [self = shared_from_this()](error_code ec, std::size_t) { self->on_header(ec); });
    }

    void on_header(error_code ec) {
        disarm();
        started_ = clock_type::now();
        if (deadline_.expired()) {
            return fail_and_close(408, "request_timeout",
                                  "the request head did not arrive within " +
                                      std::to_string(svc_.cfg.header_timeout.count()) + " ms");
        }
        if (ec == bhttp::error::end_of_stream || ec == net::error::eof ||
            ec == net::error::connection_reset || ec == net::error::operation_aborted) {
            return close_now();
        }
        if (ec == bhttp::error::body_limit) {
            return refuse(413, "content_too_large", too_large_detail(), reject_reason::too_large);
        }
        if (ec == bhttp::error::header_limit) {
            return fail_and_close(
                400, "header_too_large",
                "the request head is over " + std::to_string(header_limit) + " bytes");
        }
        if (ec) {
            return fail_and_close(400, "bad_request", "malformed HTTP request: " + ec.message());
        }
        auto& req = parser_->get();
        request_id_ = request_id_for(req["X-Request-Id"]);
        if (over_limit_) {
            return refuse(
                503, "over_capacity",
                "too many connections (limit " + std::to_string(svc_.cfg.max_connections) + ")",
                reject_reason::connections);
        }
        // Content-Encoding (DESIGN section 16) of a body: an unknown coding is refused before
        // the body is read. A request without a body has nothing to decode.
        codings_.clear();
        decoder_.reset();
        coded_extra_ = 0;
        coded_in_ = 0;
        coding_s_ = 0;
        auto clen = parser_->content_length();
        bool has_body = parser_->chunked() || (clen && *clen > 0);
        if (auto ce = req.find(bhttp::field::content_encoding); ce != req.end() && has_body) {
            auto c = parse_content_encoding(
                std::string_view(ce->value().data(), ce->value().size()));
            if (!c) {
                return refuse_coding(c.error().message);
            }
            codings_ = std::move(*c);
            coded_extra_ = decoder_memory(codings_);
        }
        if (wants_stream(req) && try_stream(req)) {
            return;
        }
        if (auto len = parser_->content_length(); len && *len > svc_.cfg.max_body) {
            return refuse(413, "content_too_large", too_large_detail(), reject_reason::too_large);
        }
        // Admission (DESIGN section 13): reserve before the body is read (or 100 Continue sent).
        if (!codings_.empty()) {
            decoder_.emplace(codings_);
            decoded_ = take_decode_buffer();
        }
        if (!admit()) {
            return;
        }
        bool expects_continue = beast::iequals(req[bhttp::field::expect], "100-continue");
        if (expects_continue) {
            // Refuse before the body is sent when the route cannot take it.
            std::string_view target(req.target().data(), req.target().size());
            route r = find_route(path_of(target));
            std::string_view method(req.method_string().data(), req.method_string().size());
            if (r == route::not_found || !method_allowed(r, method)) {
                return process();  // answers 404/405 and closes (the body is never read)
            }
            phase_ = phase::writing;
            arm(svc_.cfg.body_timeout);
            net::async_write(socket_, net::buffer(continue_line.data(), continue_line.size()),
                             [self = shared_from_this()](error_code wec, std::size_t) {
                                 self->disarm();
                                 if (wec) {
                                     return self->close_now();
                                 }
                                 self->read_body();
                             });
            return;
        }
        read_body();
    }

    // ---- admission ----
    // The reservation of a request with a body: request_reservation(Content-Length), or for a
    // chunked body that of chunked_initial bytes, grown as the body arrives. A request without
    // a body reserves nothing (health checks and scrapes always pass). False: refused, and the
    // answer is on its way.
    bool admit() {
        auto len = parser_->content_length();
        // A coded body's decoded size is unknown: it reserves as a chunked one, plus the
        // decoders' state, and grows as it is decoded.
        bool chunked = parser_->chunked() || decoder_.has_value();
        if (!chunked && (!len || *len == 0)) {
            return true;
        }
        std::size_t body = chunked ? chunked_initial : static_cast<std::size_t>(*len);
        std::size_t need = request_reservation(body) + coded_extra_;
        if (!chunked && !svc_.budget.could_fit(need)) {
            refuse_too_large(need);
            return false;
        }
        reservation_ = svc_.budget.try_reserve(need);
        if (!reservation_) {
            refuse_busy(need);
            return false;
        }
        return true;
    }

    // A chunked body of `have` bytes so far: grow the reservation to cover it. False: refused.
    bool cover_chunked(std::size_t have) {
        std::size_t need = request_reservation(have) + coded_extra_;
        if (need <= reservation_.size()) {
            return true;
        }
        if (!svc_.budget.could_fit(need)) {
            refuse_too_large(need);
            return false;
        }
        std::size_t ahead =
            request_reservation(have + std::max(have / 4, chunked_step)) + coded_extra_;
        ahead = std::min(ahead, svc_.budget.limit());
        if (ahead > reservation_.size() &&
            svc_.budget.grow(reservation_, ahead - reservation_.size())) {
            return true;
        }
        if (svc_.budget.grow(reservation_, need - reservation_.size())) {
            return true;
        }
        refuse_busy(need);
        return false;
    }

    void refuse_busy(std::size_t need) {
        refuse(503, "over_budget",
               "the server's memory budget is in use: this request needs " + std::to_string(need) +
                   " of its " + std::to_string(svc_.budget.limit()) + " bytes; retry later",
               reject_reason::budget);
    }

    void refuse_too_large(std::size_t need) {
        std::string detail = "the request would need " + std::to_string(need) +
                             " bytes of memory, more than the server's whole budget of " +
                             std::to_string(svc_.budget.limit()) + " bytes";
        request r = head_request();
        if (streamable_request(r)) {
            detail += "; send it with stream=true to convert it record by record";
        } else {
            detail += "; split it into smaller documents";
        }
        refuse(413, "content_too_large", detail, reject_reason::too_large);
    }

    // The head as the handler sees it (no body).
    request head_request() const {
        const auto& req = parser_->get();
        request r;
        r.method = std::string_view(req.method_string().data(), req.method_string().size());
        r.target = std::string_view(req.target().data(), req.target().size());
        auto ct = req.find(bhttp::field::content_type);
        if (ct != req.end()) {
            r.has_content_type = true;
            r.content_type = std::string_view(ct->value().data(), ct->value().size());
        }
        auto accept = req[bhttp::field::accept];
        r.accept = std::string_view(accept.data(), accept.size());
        return r;
    }

    void read_body() {
        if (parser_->is_done()) {
            return decoder_ ? finish_decoding() : process();
        }
        parser_->body_limit(svc_.cfg.max_body);
        phase_ = phase::body;
        arm(svc_.cfg.body_timeout);
        if (decoder_) {
            return read_coded();
        }
        if (parser_->chunked()) {
            return read_chunked();
        }
        bhttp::async_read(
            socket_, buffer_, *parser_,
            [self = shared_from_this()](error_code ec, std::size_t) { self->on_body(ec); });
    }

    // A chunked body is read piece by piece so that its reservation grows before it does.
    void read_chunked() {
        bhttp::async_read_some(socket_, buffer_, *parser_,
                               [self = shared_from_this()](error_code ec, std::size_t) {
                                   if (ec || self->deadline_.expired()) {
                                       return self->on_body(ec);
                                   }
                                   if (!self->cover_chunked(self->parser_->get().body().size())) {
                                       return;  // refused: the answer is being written
                                   }
                                   if (self->parser_->is_done()) {
                                       return self->on_body(ec);
                                   }
                                   self->read_chunked();
                               });
    }

    // ---- Content-Encoding (http/content_coding.hpp) ----

    // A coded body is decoded as it arrives: the compressed bytes of each read are decoded
    // and dropped, and --max-body and the reservation apply to the decoded bytes.
    void read_coded() {
        bhttp::async_read_some(socket_, buffer_, *parser_,
                               [self = shared_from_this()](error_code ec, std::size_t) {
                                   if (ec || self->deadline_.expired()) {
                                       return self->on_body(ec);
                                   }
                                   if (self->parser_->is_done()) {
                                       self->disarm();
                                       return self->finish_decoding();
                                   }
                                   if (!self->decode_available()) {
                                       return;  // refused: the answer is being written
                                   }
                                   self->read_coded();
                               });
    }

    // Decodes what the parser holds. False: refused (413, 503 or 400), the answer is on its way.
    bool decode_available() {
        std::string& raw = parser_->get().body();
        std::string_view in(raw);
        const std::size_t limit = svc_.cfg.max_body;
        for (;;) {
            std::size_t have = decoded_.size();
            // Geometric windows, never past one byte over the limit (which tells it is over).
            std::size_t room = std::min(std::max<std::size_t>(have, 64 * 1024), limit + 1 - have);
            decoded_.resize(have + room);
            auto t0 = clock_type::now();
            auto r = decoder_->decode(in, decoded_.data() + have, room);
            coding_s_ += std::chrono::duration<double>(clock_type::now() - t0).count();
            if (!r) {
                decoded_.resize(have);
                bad_coding(r.error());
                return false;
            }
            decoded_.resize(have + *r);
            if (decoded_.size() > limit) {
                std::string names;
                for (coding c : codings_) {
                    names += (names.empty() ? "" : ", ") + std::string(to_string(c));
                }
                refuse(413, "content_too_large",
                       "the decoded body is over the limit of " + std::to_string(limit) +
                           " bytes (--max-body applies to the body after Content-Encoding " +
                           names + ", here after " + std::to_string(decoder_->consumed()) +
                           " compressed bytes)",
                       reject_reason::too_large);
                return false;
            }
            if (!cover_chunked(decoded_.size())) {
                return false;
            }
            if (*r < room) {
                break;  // the decoder wants more input
            }
        }
        coded_in_ += raw.size();
        raw.clear();
        return true;
    }

    void finish_decoding() {
        if (!decode_available()) {
            return;
        }
        if (auto f = decoder_->finish(); !f) {
            return bad_coding(f.error());
        }
        for (coding c : codings_) {
            svc_.stats.content_coding(false, to_string(c), coded_in_, decoded_.size());
        }
        process();
    }

    // Corrupt compressed data: 400 naming the coding and the compressed offset.
    void bad_coding(const error& e) {
        reservation_.release();
        linger_ = svc_.cfg.body_timeout;  // the rest of the body may still be on its way
        if (request_id_.empty()) {
            request_id_ = request_id_for({});
        }
        response out;
        error_response(400, "bad_content_encoding", e.message, request_id_, out);
        out.body = problem_body(400, "bad_content_encoding", e.message, &e);
        std::string outer(to_string(codings_.empty() ? coding::identity : codings_.back()));
        out.body.insert(out.body.size() - 2, ",\"content_encoding\":\"" + outer + "\"");
        give_decode_buffer(decoded_);
        finish_refused(std::move(out));
    }

    // 415 for an unknown Content-Encoding, with the codings we decode (RFC 9110 12.5.3).
    void refuse_coding(const std::string& detail) {
        linger_ = svc_.cfg.body_timeout;
        response out;
        error_response(415, "unsupported_content_encoding", detail, request_id_, out);
        out.headers.emplace_back("Accept-Encoding", std::string(accepted_request_codings));
        finish_refused(std::move(out));
    }

    void finish_refused(response out) {
        auto& req = parser_->get();
        std::string method(req.method_string().data(), req.method_string().size());
        std::string target(req.target().data(), req.target().size());
        finish(std::move(out), false, method, target, 0);
    }

    void on_body(error_code ec) {
        disarm();
        if (deadline_.expired()) {
            return fail_and_close(408, "request_timeout",
                                  "the request body did not arrive within " +
                                      std::to_string(svc_.cfg.body_timeout.count()) + " ms");
        }
        if (ec == bhttp::error::body_limit) {
            return refuse(413, "content_too_large", too_large_detail(), reject_reason::too_large);
        }
        if (ec == bhttp::error::end_of_stream || ec == net::error::eof ||
            ec == net::error::connection_reset || ec == net::error::operation_aborted) {
            return close_now();
        }
        if (ec) {
            return fail_and_close(400, "bad_request", "malformed HTTP request: " + ec.message());
        }
        process();
    }

    // ---- stream mode (http/stream.cpp) ----

    // Only a target or Content-Type that mentions stream is looked at further.
    static bool wants_stream(const bhttp::request<bhttp::string_body>& req) {
        std::string_view target(req.target().data(), req.target().size());
        auto ct = req[bhttp::field::content_type];
        return target.find("stream") != std::string_view::npos ||
               std::string_view(ct.data(), ct.size()).find("stream") != std::string_view::npos;
    }

    // Starts a stream exchange when the request asks for stream=true; false: answer it whole.
    bool try_stream(bhttp::request<bhttp::string_body>& req) {
        std::string_view target(req.target().data(), req.target().size());
        std::string_view method(req.method_string().data(), req.method_string().size());
        route r = find_route(path_of(target));
        if ((r != route::transcode && r != route::validate) || !method_allowed(r, method)) {
            return false;
        }
        request hr = head_request();
        stream_request sr;
        sr.validate_only = r == route::validate;
        response res;
        if (!resolve_transcode(svc_, hr, res, sr.opt, sr.validate_only)) {
            if (!sr.opt.stream) {
                return false;  // answered whole, with the same error, once the body is read
            }
            refuse_stream(std::move(res), method, target);
            return true;
        }
        if (!sr.opt.stream) {
            return false;
        }
        for (const format_info* f : {sr.opt.from, sr.validate_only ? nullptr : sr.opt.to}) {
            if (f != nullptr && !is_streamable(f->id)) {
                response nr;
                nr.status = 422;
                nr.content_type = "application/problem+json";
                nr.from = res.from;
                nr.to = res.to;
                std::string detail = std::string(f->name) +
                                     " is not streamable (stream=true reads and writes ndjson, "
                                     "json, csv, yaml, cbor, msgpack and bson)";
                error e = make_error(errc::unrepresentable, detail);
                nr.body = problem_body(422, "not_streamable", detail, &e);
                nr.headers = std::move(res.headers);
                refuse_stream(std::move(nr), method, target);
                return true;
            }
        }
        // Each record's document is bounded by the longest record, as a whole body by its size.
        sr.opt.decode.limits.max_bytes = document_budget(svc_.cfg.max_record);
        // Admission (DESIGN section 13): a stream reserves its fixed window, before any body
        // byte is read or 100 Continue sent.
        std::size_t need = stream_reservation(svc_.cfg.max_record) + coded_extra_;
        if (svc_.cfg.compress && !sr.validate_only) {
            // The answer's encoder (stream.cpp negotiates the same coding).
            auto ae = req.find(bhttp::field::accept_encoding);
            std::string_view aev;
            if (ae != req.end()) {
                aev = std::string_view(ae->value().data(), ae->value().size());
            }
            need += encoder_memory(negotiate_encoding(aev, ae != req.end(), true).chosen);
        }
        if (!svc_.budget.could_fit(need)) {
            refuse(413, "content_too_large",
                   "a stream needs a window of " + std::to_string(need) +
                       " bytes of memory (8 x --max-record + 1.25 MiB), more than the server's "
                       "whole budget of " + std::to_string(svc_.budget.limit()) + " bytes",
                   reject_reason::too_large);
            return true;
        }
        reservation_ = svc_.budget.try_reserve(need);
        if (!reservation_) {
            refuse_busy(need);
            return true;
        }
        sr.codings = codings_;
        if (auto ae = req.find(bhttp::field::accept_encoding); ae != req.end()) {
            sr.accept_encoding = std::string(ae->value().data(), ae->value().size());
            sr.has_accept_encoding = true;
        }
        sr.expect_continue = beast::iequals(req[bhttp::field::expect], "100-continue");
        sr.keep_alive = req.keep_alive() && !draining_;
        sr.method = std::string(method);
        sr.target = std::string(target);
        sr.request_id = request_id_;
        sr.peer = peer_;
        phase_ = phase::processing;
        run_stream(svc_, socket_, buffer_, *parser_, std::move(sr),
                   [self = shared_from_this()](after_stream how) {
                       self->request_id_.clear();
                       self->started_ = {};
                       self->parser_.reset();
                       self->reservation_.release();
                       switch (how) {
                           case after_stream::keep_alive:
                               return self->wait_for_request();
                           case after_stream::linger:
                               return self->linger_close();
                           case after_stream::close:
                               return self->close_now();
                       }
                   });
        return true;
    }

    // A stream request refused before its body is read: answered, then the body discarded.
    void refuse_stream(response res, std::string_view method, std::string_view target) {
        res.request_id = request_id_;
        res.headers.emplace_back("Server-Timing", "decode;dur=0.000, encode;dur=0.000");
        res.headers.emplace_back("X-Request-Id", request_id_);
        std::string m(method);
        std::string t(target);
        finish(std::move(res), false, m, t, 0);
    }

    std::string too_large_detail() const {
        return "the body is over the limit of " + std::to_string(svc_.cfg.max_body) + " bytes";
    }

    // ---- answering ----
    void process() {
        phase_ = phase::processing;
        auto& req = parser_->get();
        svc_.stats.inflight(transport::http, 1);
        request r = head_request();
        auto rid = req["X-Request-Id"];
        r.request_id = std::string_view(rid.data(), rid.size());
        auto inm = req[bhttp::field::if_none_match];
        r.if_none_match = std::string_view(inm.data(), inm.size());
        r.body = decoder_ ? std::string_view(decoded_) : std::string_view(req.body());
        response out;
        try {
            handle(svc_, r, out);
        } catch (const std::exception& e) {
            // Not expected (codecs return errors as values): answer 500 and log it.
            log_event(log_level::error, "handler_exception", {{"error", e.what()}});
            out = response{};
            error_response(500, "internal_error", "internal error", request_id_for(r.request_id),
                           out);
            out.close = true;
        }
        if (decoder_) {
            // The time spent undoing Content-Encoding, next to decode and encode.
            char buf[48];
            std::snprintf(buf, sizeof buf, ", content-decode;dur=%.3f", coding_s_ * 1000);
            for (auto& [k, v] : out.headers) {
                if (k == "Server-Timing") {
                    v += buf;
                }
            }
        }
        bool keep = req.keep_alive() && !out.close && !draining_ &&
                    !svc_.draining.load(std::memory_order_relaxed) && parser_->is_done();
        // Expect: 100-continue refused early: the body was never read, so close.
        if (!parser_->is_done()) {
            keep = false;
        }
        // The Document and output buffer are copied out: give back their excess capacity, and
        // keep reserved only what the answer holds until it is written.
        this_worker().trim();
        reservation_.shrink_to(out.body.size());
        finish(std::move(out), keep, r.method, r.target, r.body.size());
        std::string().swap(req.body());
        give_decode_buffer(decoded_);
        decoder_.reset();
        svc_.stats.inflight(transport::http, -1);
    }

    // A request refused before (or while) its body was read: the answer goes out now, and
    // what the client still sends is read and dropped until it closes (lingering close), so
    // that a client sending its whole body before reading gets the answer.
    void refuse(int status, std::string_view code, const std::string& detail,
                reject_reason reason) {
        svc_.stats.rejected(transport::http, reason);
        reservation_.release();
        if (parser_) {
            std::string().swap(parser_->get().body());
        }
        give_decode_buffer(decoded_);
        // A connection over --max-connections keeps the short linger: it must not hold a
        // descriptor for long. Others may still be sending the body they announced.
        if (reason != reject_reason::connections) {
            linger_ = svc_.cfg.body_timeout;
        }
        fail_and_close(status, code, detail, status == 503 ? "1" : nullptr);
    }

    void fail_and_close(int status, std::string_view code, const std::string& detail,
                        const char* retry_after = nullptr) {
        if (request_id_.empty()) {
            request_id_ = request_id_for({});
        }
        if (started_ == clock_type::time_point{}) {
            started_ = clock_type::now();
        }
        response out;
        error_response(status, code, detail, request_id_, out);
        if (retry_after != nullptr) {
            out.headers.emplace_back("Retry-After", retry_after);
        }
        std::string_view method = "-";
        std::string_view target = "-";
        if (parser_ && parser_->is_header_done()) {
            auto& req = parser_->get();
            method = std::string_view(req.method_string().data(), req.method_string().size());
            target = std::string_view(req.target().data(), req.target().size());
        }
        finish(std::move(out), false, method, target, 0);
    }

    void finish(response out, bool keep_alive, std::string_view method, std::string_view target,
                std::size_t bytes_in) {
        // Accept-Encoding (DESIGN section 16): compress the answer, add Vary.
        if (parser_ && parser_->is_header_done()) {
            auto& req = parser_->get();
            auto ae = req.find(bhttp::field::accept_encoding);
            std::string_view aev;
            if (ae != req.end()) {
                aev = std::string_view(ae->value().data(), ae->value().size());
            }
            encode_answer(svc_.cfg, aev, ae != req.end(), out, svc_.stats,
                          [this](std::size_t n) { return afford(n); });
        }
        res_ = {};
        res_.version(11);
        res_.result(static_cast<unsigned>(out.status));
        res_.set(bhttp::field::server, server_header());
        if (!out.content_type.empty()) {
            res_.set(bhttp::field::content_type, out.content_type);
        }
        for (auto& [k, v] : out.headers) {
            res_.insert(k, v);
        }
        res_.keep_alive(keep_alive);
        std::size_t bytes_out = out.body.size();
        res_.body() = std::move(out.body);
        res_.prepare_payload();
        if (out.status == 204) {
            res_.erase(bhttp::field::content_length);
        }
        double total = std::chrono::duration<double>(clock_type::now() - started_).count();
        svc_.stats.request(transport::http, out.from, out.to, out.status, total, bytes_in,
                           bytes_out);
        if (access_log_enabled()) {
            access_entry e;
            e.transport = "http";
            e.method = method;
            e.path = path_of(target);
            const format_info* f = find_format_by_number(out.from);
            const format_info* t = find_format_by_number(out.to);
            e.from = f ? f->name : "-";
            e.to = t ? t->name : "-";
            e.status = out.status;
            e.bytes_in = bytes_in;
            e.bytes_out = bytes_out;
            e.decode_ms = out.decode_ms;
            e.encode_ms = out.encode_ms;
            e.total_ms = total * 1000;
            e.request_id = out.request_id;
            e.peer = peer_;
            log_access(e);
        }
        request_id_.clear();
        started_ = {};
        write(keep_alive);
    }

    // Holds `n` bytes of the budget for compressing the answer (the reservation is released
    // once the answer is written). False: they do not fit now.
    bool afford(std::size_t n) {
        if (!reservation_) {
            reservation_ = svc_.budget.try_reserve(n);
            return static_cast<bool>(reservation_);
        }
        return n <= reservation_.size() || svc_.budget.grow(reservation_, n - reservation_.size());
    }

    void write(bool keep_alive) {
        phase_ = phase::writing;
        arm(svc_.cfg.body_timeout);
        bhttp::async_write(socket_, res_,
                           [self = shared_from_this(), keep_alive](error_code ec, std::size_t) {
                               self->disarm();
                               // The answer is out: its memory and reservation go.
                               self->res_ = {};
                               self->reservation_.release();
                               if (ec) {
                                   return self->close_now();
                               }
                               if (!keep_alive) {
                                   return self->linger_close();
                               }
                               self->wait_for_request();
                           });
    }

    // ---- closing ----
    void close_now() {
        phase_ = phase::closing;
        close_socket();
    }

    // Half-close and discard what the client still sends for up to a second (the 413 case:
    // session_base::linger_close_after). A refused request (linger_ set) lingers up to
    // --body-timeout, until the client closes, since its whole body may still be on the way.
    void linger_close() {
        phase_ = phase::closing;
        linger_close_after(linger_, net::buffer(discard_buffer));
    }

    beast::flat_buffer buffer_;
    std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
    // Content-Encoding of the request: its codings, their decoder, the decoded body, the
    // decoders' memory (reserved on top of the body) and the compressed bytes read.
    std::vector<coding> codings_;
    std::optional<content_decoder> decoder_;
    std::string decoded_;
    std::size_t coded_extra_ = 0;
    std::size_t coded_in_ = 0;
    double coding_s_ = 0;  ///< seconds spent decoding the content coding
    bhttp::response<bhttp::string_body> res_;
    memory_budget::reservation reservation_;
    std::chrono::milliseconds linger_{1000};
    phase phase_ = phase::idle;
    std::string request_id_;
    clock_type::time_point started_{};
};

}  // namespace

std::shared_ptr<listener> make_listener(service& svc,
                                        std::vector<boost::asio::io_context*> contexts) {
    return session::make_session_listener(svc, std::move(contexts), "http");
}

}  // namespace polycodec::server::http
