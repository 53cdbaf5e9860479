// `polycodec-loadtest http|tcp`: closed-loop load against a running polycodec server. For
// each format X it sends "encode" requests (JSON -> X) and "decode" requests (X -> JSON) on
// keep-alive connections, checks every answer byte for byte against the local codec's
// output, and prints the bench CSV columns plus latency percentiles per row.
#include "load.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "polycodec/formats/postcard.hpp"
#include "polycodec/polycodec.hpp"
#include "polycodec/proto/frame.hpp"

namespace polycodec::loadtest {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

struct load_options {
    bool http = true;
    std::string host = "127.0.0.1";
    std::string port = "8080";
    int concurrency = 64;
    double duration_s = 10;
    std::uint64_t max_requests = 0;  ///< 0: bounded by time only
    int pipeline = 8;                ///< TCP frames in flight per connection
    std::vector<std::string> formats;
    std::string data;
    bool allow_remote = false;
    /// postcard: the schema the server knows by this name (its --schema-dir), read locally
    /// from schema_file to compute the expected answers. Defaults to the data file's stem
    /// when fixtures/schemas/<stem>.json exists.
    std::string schema_name;
    std::string schema_file;
    /// TLS (HTTPS / TLS on the TCP port): verified against cacert (else the system's CAs)
    /// and the target's host name, or not at all with insecure.
    bool tls = false;
    std::string cacert;
    bool insecure = false;
    /// A new connection (and TLS handshake) for every request: the rate is connections/s.
    bool new_connections = false;
    asio::ssl::context* tls_ctx = nullptr;
};

// Log-bucketed latency histogram: 16 buckets per power of two from 1 us to ~1000 s.
class histogram {
public:
    void add(double seconds) {
        double us = std::max(seconds * 1e6, 1.0);
        auto b = static_cast<std::size_t>(std::log2(us) * per_octave);
        counts_[std::min(b, counts_.size() - 1)]++;
        max_ = std::max(max_, seconds);
        ++n_;
    }
    double quantile(double q) const {
        if (n_ == 0) {
            return 0;
        }
        auto target = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n_)));
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < counts_.size(); ++i) {
            seen += counts_[i];
            if (seen >= target) {
                // Upper edge of the bucket, in seconds.
                return std::min(std::exp2(static_cast<double>(i + 1) / per_octave) / 1e6, max_);
            }
        }
        return max_;
    }
    double max() const { return max_; }

private:
    static constexpr double per_octave = 16;
    std::array<std::uint64_t, 16 * 30> counts_{};
    double max_ = 0;
    std::uint64_t n_ = 0;
};

// One row: a direction of one format.
struct job {
    std::string format_name;
    const format_info* from;
    const format_info* to;
    std::string body;      ///< request body
    std::string expected;  ///< the exact answer
    std::string query;     ///< extra query/options, e.g. schema=records
};

struct row_stats {
    std::uint64_t ok = 0;
    std::uint64_t errors = 0;
    std::string first_error;
    histogram latency;
    double seconds = 0;
};

// ---- connections ----

class connection : public std::enable_shared_from_this<connection> {
public:
    connection(asio::io_context& io, const job& j, row_stats& st, const load_options& opt,
               const tcp::resolver::results_type& endpoints, clock_type::time_point until,
               std::uint64_t& budget)
        : socket_(io), job_(j), stats_(st), opt_(opt), endpoints_(endpoints), until_(until),
          budget_(budget) {}

    void start() {
        auto self = shared_from_this();
        asio::async_connect(socket_, endpoints_, [self](auto ec, const auto&) {
            if (ec) {
                self->fail("connect: " + ec.message());
                return;
            }
            socket_set_nodelay(self->socket_);
            if (!self->opt_.tls) {
                return self->begin();
            }
            self->tls_.emplace(self->socket_, *self->opt_.tls_ctx);
            if (!self->opt_.insecure) {
                self->tls_->set_verify_mode(asio::ssl::verify_peer);
                self->tls_->set_verify_callback(asio::ssl::host_name_verification(self->opt_.host));
            }
            // SNI, unless the target is an address (RFC 6066 names only).
            boost::system::error_code aec;
            asio::ip::make_address(self->opt_.host, aec);
            if (aec) {
                SSL_set_tlsext_host_name(self->tls_->native_handle(), self->opt_.host.c_str());
            }
            self->tls_->async_handshake(asio::ssl::stream_base::client, [self](auto hec) {
                if (hec) {
                    self->fail("TLS handshake: " + hec.message());
                    return;
                }
                self->begin();
            });
        });
    }

private:
    void begin() { opt_.http ? send_http() : fill_tcp_pipeline(); }

    // --new-connections: after each answer, close and connect (and shake hands) again.
    void reconnect() {
        boost::system::error_code ec;
        socket_.close(ec);
        tls_.reset();
        in_.clear();
        if (!may_send()) {
            return;
        }
        if (opt_.max_requests != 0) {
            ++budget_;  // given back: send_http() takes it again
        }
        start();
    }

    template <class Buffers, class Handler>
    void write_all(const Buffers& b, Handler&& h) {
        if (tls_) {
            asio::async_write(*tls_, b, std::forward<Handler>(h));
        } else {
            asio::async_write(socket_, b, std::forward<Handler>(h));
        }
    }
    template <class Buffers, class Handler>
    void read_some(const Buffers& b, Handler&& h) {
        if (tls_) {
            tls_->async_read_some(b, std::forward<Handler>(h));
        } else {
            socket_.async_read_some(b, std::forward<Handler>(h));
        }
    }

    static void socket_set_nodelay(tcp::socket& s) {
        boost::system::error_code ec;
        s.set_option(tcp::no_delay(true), ec);
    }

    bool may_send() {
        if (clock_type::now() >= until_) {
            return false;
        }
        if (opt_.max_requests != 0) {
            if (budget_ == 0) {
                return false;
            }
            --budget_;
        }
        return true;
    }

    void fail(const std::string& what) {
        ++stats_.errors;
        if (stats_.first_error.empty()) {
            stats_.first_error = what;
        }
        boost::system::error_code ec;
        socket_.close(ec);
    }

    void check(std::string_view body, clock_type::time_point sent) {
        stats_.latency.add(std::chrono::duration<double>(clock_type::now() - sent).count());
        if (body == job_.expected) {
            ++stats_.ok;
        } else {
            ++stats_.errors;
            if (stats_.first_error.empty()) {
                stats_.first_error = "unexpected answer: " + std::string(body.substr(0, 200));
            }
        }
    }

    // ---- HTTP/1.1, one request in flight per connection ----

    void send_http() {
        if (!may_send()) {
            boost::system::error_code ec;
            socket_.shutdown(tcp::socket::shutdown_both, ec);
            return;
        }
        if (request_.empty()) {
            request_ = "POST /transcode" + (job_.query.empty() ? "" : "?" + job_.query) +
                       " HTTP/1.1\r\nHost: " + opt_.host + "\r\nContent-Type: " +
                       std::string(job_.from->media_types[0]) +
                       "\r\nAccept: " + std::string(job_.to->media_types[0]) +
                       "\r\nContent-Length: " + std::to_string(job_.body.size()) + "\r\n\r\n" +
                       job_.body;
        }
        sent_ = clock_type::now();
        auto self = shared_from_this();
        write_all(asio::buffer(request_), [self](auto ec, std::size_t) {
            if (ec) {
                self->fail("write: " + ec.message());
                return;
            }
            self->read_http();
        });
    }

    void read_http() {
        // Parse what is buffered: status line, headers, Content-Length body.
        auto head_end = in_.find("\r\n\r\n");
        if (head_end != std::string::npos) {
            std::string_view head(in_.data(), head_end);
            std::size_t length = 0;
            bool has_length = false;
            std::size_t pos = 0;
            while (pos < head.size()) {
                auto eol = head.find("\r\n", pos);
                std::string_view line = head.substr(pos, eol - pos);
                if (line.size() > 15 && (line[0] == 'C' || line[0] == 'c')) {
                    std::string lower(line.substr(0, 15));
                    for (char& c : lower) {
                        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                    }
                    if (lower == "content-length:") {
                        length = std::strtoull(std::string(line.substr(15)).c_str(), nullptr, 10);
                        has_length = true;
                    }
                }
                if (eol == std::string::npos) {
                    break;
                }
                pos = eol + 2;
            }
            if (!has_length) {
                fail("answer without Content-Length");
                return;
            }
            if (in_.size() >= head_end + 4 + length) {
                bool ok_status = head.substr(0, 12) == "HTTP/1.1 200";
                std::string_view body(in_.data() + head_end + 4, length);
                if (ok_status) {
                    check(body, sent_);
                } else {
                    stats_.latency.add(
                        std::chrono::duration<double>(clock_type::now() - sent_).count());
                    ++stats_.errors;
                    if (stats_.first_error.empty()) {
                        stats_.first_error = std::string(head.substr(0, head.find("\r\n"))) +
                                             ": " + std::string(body.substr(0, 200));
                    }
                }
                in_.erase(0, head_end + 4 + length);
                if (opt_.new_connections) {
                    return reconnect();
                }
                send_http();
                return;
            }
        }
        auto self = shared_from_this();
        read_some(asio::buffer(chunk_), [self](auto ec, std::size_t n) {
            if (ec) {
                self->fail("read: " + ec.message());
                return;
            }
            self->in_.append(self->chunk_.data(), n);
            self->read_http();
        });
    }

    // ---- TCP frames, pipelined ----

    void fill_tcp_pipeline() {
        if (frame_.empty()) {
            proto::request_header h;
            h.input_format = static_cast<std::uint8_t>(job_.from->id);
            h.output_format = static_cast<std::uint8_t>(job_.to->id);
            h.options_length = static_cast<std::uint16_t>(job_.query.size());
            frame_ = proto::encode_request(h, job_.query, job_.body);
        }
        std::string batch;
        while (static_cast<int>(in_flight_.size()) < opt_.pipeline && may_send()) {
            // Request ids count up per connection; the answer must carry the same id.
            std::uint32_t id = next_id_++;
            unsigned char* p = reinterpret_cast<unsigned char*>(frame_.data());
            p[4] = static_cast<unsigned char>(id >> 24);
            p[5] = static_cast<unsigned char>(id >> 16);
            p[6] = static_cast<unsigned char>(id >> 8);
            p[7] = static_cast<unsigned char>(id);
            batch += frame_;
            in_flight_.push_back({id, clock_type::now()});
        }
        if (batch.empty()) {
            if (in_flight_.empty()) {
                boost::system::error_code ec;
                socket_.shutdown(tcp::socket::shutdown_both, ec);
            }
            return;
        }
        auto out = std::make_shared<std::string>(std::move(batch));
        auto self = shared_from_this();
        writing_ = true;
        write_all(asio::buffer(*out), [self, out](auto ec, std::size_t) {
            self->writing_ = false;
            if (ec) {
                self->fail("write: " + ec.message());
                return;
            }
            if (!self->reading_) {
                self->read_tcp();
            }
        });
    }

    void read_tcp() {
        while (in_.size() >= proto::header_size && !in_flight_.empty()) {
            proto::response_header h;
            if (proto::parse_response_header(reinterpret_cast<const unsigned char*>(in_.data()),
                                             h) != proto::parse_error::none) {
                fail("bad response frame");
                return;
            }
            if (in_.size() < proto::header_size + h.payload_length) {
                break;
            }
            auto [id, sent] = in_flight_.front();
            in_flight_.pop_front();
            std::string_view payload(in_.data() + proto::header_size, h.payload_length);
            if (h.request_id != id) {
                fail("answer out of order: id " + std::to_string(h.request_id) + ", expected " +
                     std::to_string(id));
                return;
            }
            if (h.code == proto::status::ok) {
                check(payload, sent);
            } else {
                stats_.latency.add(std::chrono::duration<double>(clock_type::now() - sent).count());
                ++stats_.errors;
                if (stats_.first_error.empty()) {
                    stats_.first_error = "status " + std::string(proto::to_string(h.code)) + ": " +
                                         std::string(payload.substr(0, 200));
                }
            }
            in_.erase(0, proto::header_size + h.payload_length);
        }
        if (!writing_) {
            fill_tcp_pipeline();
        }
        if (in_flight_.empty()) {
            reading_ = false;
            return;
        }
        reading_ = true;
        auto self = shared_from_this();
        read_some(asio::buffer(chunk_), [self](auto ec, std::size_t n) {
            if (ec) {
                self->reading_ = false;
                self->fail("read: " + ec.message());
                return;
            }
            self->in_.append(self->chunk_.data(), n);
            self->read_tcp();
        });
    }

    tcp::socket socket_;
    std::optional<asio::ssl::stream<tcp::socket&>> tls_;
    const job& job_;
    row_stats& stats_;
    const load_options& opt_;
    const tcp::resolver::results_type& endpoints_;
    clock_type::time_point until_;
    std::uint64_t& budget_;
    std::string request_;
    std::string frame_;
    std::string in_;
    std::array<char, 65536> chunk_{};
    clock_type::time_point sent_{};
    std::deque<std::pair<std::uint32_t, clock_type::time_point>> in_flight_;
    std::uint32_t next_id_ = 1;
    bool writing_ = false;
    bool reading_ = false;
};

bool is_loopback(const tcp::endpoint& ep) {
    auto a = ep.address();
    if (a.is_v4()) {
        return (a.to_v4().to_uint() >> 24) == 127;
    }
    return a.is_loopback() || (a.to_v6().is_v4_mapped() &&
                               (a.to_v6().to_bytes()[12] == 127));
}

// Builds the encode and decode jobs of every requested format from the JSON data.
std::vector<job> make_jobs(const load_options& opt, const document& plain,
                           const document& wrapped) {
    std::vector<job> jobs;
    const format_info& json = *find_format(format_id::json);
    for (const format_info& f : formats()) {
        if (!opt.formats.empty() &&
            std::find(opt.formats.begin(), opt.formats.end(), std::string(f.name)) ==
                opt.formats.end()) {
            continue;
        }
        if (!is_implemented(f.id)) {
            std::printf("# %s: skipped (not implemented in this build)\n",
                        std::string(f.name).c_str());
            continue;
        }
        const document& in = f.caps.map_root_only ? wrapped : plain;
        output_buffer as_json;
        output_buffer as_x;
        encode_options xo;
        std::string query;
        if (f.caps.needs_schema && !opt.schema_file.empty()) {
            std::string text = read_file(opt.schema_file);
            auto parsed = postcard::parse_schema(text);
            if (!parsed) {
                std::printf("# %s: skipped (schema %s: %s)\n", std::string(f.name).c_str(),
                            opt.schema_file.c_str(), parsed.error().message.c_str());
                continue;
            }
            xo.schema = *parsed;
            query = "schema=" + opt.schema_name;
        }
        if (!f.caps.boolean) {
            // Text-only formats (CSV, urlform, INI, dotenv) read back typed and nested with
            // infer/unflatten when a plain read does not give the data back, as the bench does.
            output_buffer probe;
            document back;
            decode_options dopt;
            if (encode(f.id, in, probe, xo) &&
                (!decode(f.id, probe.view(), back, dopt) || !equal(in, back))) {
                dopt.unflatten = true;
                bool nested_only = decode(f.id, probe.view(), back, dopt) && equal(in, back);
                query = nested_only ? "unflatten=true" : "infer=true&unflatten=true";
            }
        }
        if (!encode(format_id::json, in, as_json) || !encode(f.id, in, as_x, xo)) {
            std::printf("# %s: skipped (the data has no lossless form in it)\n",
                        std::string(f.name).c_str());
            continue;
        }
        jobs.push_back(
            {std::string(f.name) + " encode", &json, &f, as_json.str(), as_x.str(), query});
        if (f.caps.needs_schema && query.empty()) {
            std::printf("# %s decode: skipped (needs a server schema)\n",
                        std::string(f.name).c_str());
            continue;
        }
        jobs.push_back(
            {std::string(f.name) + " decode", &f, &json, as_x.str(), as_json.str(), query});
    }
    return jobs;
}

int usage_error(const std::string& msg) {
    std::fprintf(stderr, "polycodec-loadtest: %s\n", msg.c_str());
    return 2;
}

// The options that set one string field, and the flags.
const std::pair<std::string_view, std::string load_options::*> load_texts[] = {
    {"--data", &load_options::data},
    {"--schema", &load_options::schema_name},
    {"--schema-file", &load_options::schema_file},
    {"--cacert", &load_options::cacert}};
const std::pair<std::string_view, bool load_options::*> load_flags[] = {
    {"--allow-remote", &load_options::allow_remote},
    {"--tls", &load_options::tls},
    {"--insecure", &load_options::insecure},
    {"--new-connections", &load_options::new_connections}};

}  // namespace

int run_load(bool http, int argc, char** argv) {
    load_options opt;
    opt.http = http;
    opt.port = http ? "8080" : "9090";
    std::string target;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
        if (a == "--target") {
            target = value();
        } else if (a == "--concurrency") {
            opt.concurrency = std::max(1, std::atoi(value().c_str()));
        } else if (a == "--duration") {
            opt.duration_s = parse_duration(value());
        } else if (a == "--requests") {
            opt.max_requests = std::strtoull(value().c_str(), nullptr, 10);
        } else if (a == "--pipeline") {
            opt.pipeline = std::max(1, std::atoi(value().c_str()));
        } else if (a == "--formats") {
            std::string list = value();
            if (list != "all") {
                std::size_t p = 0;
                for (;;) {
                    auto c = list.find(',', p);
                    opt.formats.push_back(list.substr(p, c - p));
                    if (c == std::string::npos) {
                        break;
                    }
                    p = c + 1;
                }
            }
        } else if (!set_listed_option(opt, a, value, load_texts, load_flags)) {
            return usage_error("unknown argument " + a);
        }
    }
    if (std::string bad = check_target_and_duration(target, opt.host, opt.port, opt.duration_s);
        !bad.empty()) {
        return usage_error(bad);
    }
    if ((!opt.cacert.empty() || opt.insecure) && !opt.tls) {
        return usage_error("--cacert and --insecure go with --tls");
    }
    if (opt.new_connections && !http) {
        return usage_error("--new-connections is for http");
    }
    asio::ssl::context tls_ctx(asio::ssl::context::tls_client);
    if (opt.tls) {
        boost::system::error_code tec;
        SSL_CTX_set_min_proto_version(tls_ctx.native_handle(), TLS1_2_VERSION);
        if (!opt.cacert.empty()) {
            tls_ctx.load_verify_file(opt.cacert, tec);
        } else {
            tls_ctx.set_default_verify_paths(tec);
        }
        if (tec) {
            return usage_error("--cacert " + opt.cacert + ": " + tec.message());
        }
        opt.tls_ctx = &tls_ctx;
    }

    asio::io_context io;
    tcp::resolver resolver(io);
    boost::system::error_code ec;
    auto endpoints = resolver.resolve(opt.host, opt.port, ec);
    if (ec) {
        return usage_error("cannot resolve " + target + ": " + ec.message());
    }
    for (const auto& e : endpoints) {
        if (!opt.allow_remote && !is_loopback(e.endpoint())) {
            return usage_error(target + " is not a loopback address (127.0.0.0/8 or ::1); "
                               "pass --allow-remote to load another host");
        }
    }

    std::string path = opt.data.empty() ? fixtures_dir() + "/records.json"
                                        : opt.data;
    bool ok = false;
    std::string json = read_file(path, ok);
    if (!ok) {
        return usage_error("cannot read " + path);
    }
    if (opt.schema_name.empty()) {
        // records.json -> schema "records", read from fixtures/schemas/records.json.
        std::string stem = path.substr(path.find_last_of('/') + 1);
        stem = stem.substr(0, stem.find('.'));
        std::string file = fixtures_dir() + "/schemas/" + stem + ".json";
        if (std::ifstream(file).good()) {
            opt.schema_name = stem;
            opt.schema_file = file;
        }
    } else if (opt.schema_file.empty()) {
        opt.schema_file =
            fixtures_dir() + "/schemas/" + opt.schema_name + ".json";
    }
    document plain;
    if (auto r = decode(format_id::json, json, plain); !r) {
        return usage_error(path + ": " + describe(r.error()));
    }
    document wrapped;
    wrap_records(plain, wrapped);
    std::printf("# polycodec-loadtest %s --target %s --concurrency %d --duration %.1fs%s%s%s\n",
                http ? "http" : "tcp", target.c_str(), opt.concurrency, opt.duration_s,
                http ? "" : (" --pipeline " + std::to_string(opt.pipeline)).c_str(),
                opt.tls ? (opt.insecure ? " --tls --insecure" : " --tls") : "",
                opt.new_connections ? " --new-connections" : "");
    std::printf("# data: %s (%zu bytes of JSON)\n", path.c_str(), json.size());
    std::vector<job> jobs = make_jobs(opt, plain, wrapped);
    if (jobs.empty()) {
        return usage_error("nothing to send");
    }
    double per_row = opt.duration_s / static_cast<double>(jobs.size());
    std::uint64_t per_row_requests =
        opt.max_requests == 0 ? 0 : std::max<std::uint64_t>(1, opt.max_requests / jobs.size());

    std::printf("format,size_bytes,encode_ops,encode_MBps,decode_ops,decode_MBps,"
                "latency_p50_ms,latency_p90_ms,latency_p99_ms,latency_max_ms,errors\n");
    std::fflush(stdout);
    int failures = 0;
    std::uint64_t total_ok = 0;
    std::uint64_t total_errors = 0;
    // Rows in pairs: encode then decode of the same format share one CSV line.
    for (std::size_t j = 0; j < jobs.size();) {
        std::string name = jobs[j].format_name.substr(0, jobs[j].format_name.find(' '));
        row_stats enc;
        row_stats dec;
        std::size_t x_size = jobs[j].expected.size();
        for (int dir = 0; dir < 2 && j < jobs.size(); ++dir) {
            const job& jb = jobs[j];
            if (jb.format_name != name + (dir == 0 ? " encode" : " decode")) {
                break;
            }
            row_stats& st = dir == 0 ? enc : dec;
            std::uint64_t budget = per_row_requests;
            auto start = clock_type::now();
            auto until = start + std::chrono::duration_cast<clock_type::duration>(
                                     std::chrono::duration<double>(per_row));
            io.restart();
            for (int c = 0; c < opt.concurrency; ++c) {
                std::make_shared<connection>(io, jb, st, opt, endpoints, until, budget)->start();
            }
            // Progress line while the row runs.
            asio::steady_timer progress(io);
            std::function<void()> tick = [&] {
                progress.expires_after(std::chrono::milliseconds(500));
                progress.async_wait([&](auto e) {
                    if (e) {
                        return;
                    }
                    std::fprintf(stderr, "\r%-18s %8llu ok %6llu errors", jb.format_name.c_str(),
                                 static_cast<unsigned long long>(st.ok),
                                 static_cast<unsigned long long>(st.errors));
                    if (clock_type::now() < until) {
                        tick();
                    }
                });
            };
            tick();
            io.run();
            st.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
            ++j;
        }
        std::fprintf(stderr, "\r%60s\r", "");
        auto rate = [](const row_stats& s) {
            return s.seconds > 0 ? static_cast<double>(s.ok) / s.seconds : 0.0;
        };
        // MB/s counted on the format's own encoded size, as the bench table; latency columns
        // are the larger of the encode and decode rows' figures.
        std::printf("%s,%zu,%.0f,%.2f,%.0f,%.2f,%.3f,%.3f,%.3f,%.3f,%llu\n", name.c_str(), x_size,
                    rate(enc), rate(enc) * static_cast<double>(x_size) / 1e6, rate(dec),
                    rate(dec) * static_cast<double>(x_size) / 1e6,
                    std::max(enc.latency.quantile(0.5), dec.latency.quantile(0.5)) * 1e3,
                    std::max(enc.latency.quantile(0.9), dec.latency.quantile(0.9)) * 1e3,
                    std::max(enc.latency.quantile(0.99), dec.latency.quantile(0.99)) * 1e3,
                    std::max(enc.latency.max(), dec.latency.max()) * 1e3,
                    static_cast<unsigned long long>(enc.errors + dec.errors));
        for (const row_stats* s : {&enc, &dec}) {
            total_ok += s->ok;
            total_errors += s->errors;
            if (!s->first_error.empty()) {
                std::printf("# %s: first error: %s\n", name.c_str(), s->first_error.c_str());
            }
            if (s->errors != 0 || (s->ok == 0 && s->seconds > 0)) {
                ++failures;
            }
        }
        std::fflush(stdout);
    }
    // Answers received, for comparing with the server's polycodec_requests_total.
    std::printf("# totals: answers=%llu ok=%llu errors=%llu\n",
                static_cast<unsigned long long>(total_ok + total_errors),
                static_cast<unsigned long long>(total_ok),
                static_cast<unsigned long long>(total_errors));
    return failures == 0 ? 0 : 1;
}

}  // namespace polycodec::loadtest
