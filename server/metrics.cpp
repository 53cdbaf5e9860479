#include "metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>

#include "polycodec/proto/frame.hpp"

namespace polycodec::server {
namespace {

// 1 us .. 10 s in 1-2.5-5 steps (literals, so the `le` labels print exactly).
prometheus::Histogram::BucketBoundaries duration_buckets() {
    return {1e-6, 2.5e-6, 5e-6,   1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3,
            5e-3, 1e-2,   2.5e-2, 5e-2, 0.1,    0.25, 0.5,  1,      2.5,  5,    10};
}

// 64 B .. 64 MiB in powers of 4.
prometheus::Histogram::BucketBoundaries size_buckets() {
    prometheus::Histogram::BucketBoundaries b;
    for (double s = 64; s <= 64.0 * 1024 * 1024; s *= 4) {
        b.push_back(s);
    }
    return b;
}

constexpr std::size_t transports = 2;
// The label values of polycodec_http_content_coding_* (http/content_coding.hpp's order).
constexpr std::string_view coding_names[] = {"identity", "gzip", "deflate", "br", "zstd"};
constexpr std::size_t codings = std::size(coding_names);
// The label values of polycodec_admission_rejected_total, in reject_reason's order.
constexpr std::string_view reject_reason_names[] = {"budget", "too_large", "connections"};
constexpr std::size_t reject_reasons = std::size(reject_reason_names);
static_assert(reject_reasons == static_cast<std::size_t>(reject_reason::connections) + 1);

std::string format_label(std::uint8_t id) {
    const format_info* f = find_format_by_number(id);
    return f != nullptr ? std::string(f->name) : std::string("none");
}

}  // namespace

std::string_view to_string(transport t) noexcept { return t == transport::http ? "http" : "tcp"; }

std::string_view to_string(reject_reason r) noexcept {
    auto i = static_cast<std::size_t>(r);
    return i < reject_reasons ? reject_reason_names[i] : "unknown";
}

std::string_view metrics::tcp_code_label(int code) noexcept {
    if (code < 0 || code > 6) {
        return "unknown";
    }
    return proto::to_string(static_cast<proto::status>(code));
}

struct metrics::impl {
    std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
    prometheus::Family<prometheus::Counter>& requests =
        prometheus::BuildCounter()
            .Name("polycodec_requests_total")
            .Help("Requests answered, by transport, input and output format and status code")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& decode_bytes =
        prometheus::BuildCounter()
            .Name("polycodec_decode_bytes_total")
            .Help("Bytes decoded, by input format")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& encode_bytes =
        prometheus::BuildCounter()
            .Name("polycodec_encode_bytes_total")
            .Help("Bytes encoded, by output format")
            .Register(*registry);
    prometheus::Family<prometheus::Histogram>& decode_duration =
        prometheus::BuildHistogram()
            .Name("polycodec_decode_duration_seconds")
            .Help("Time to decode one document")
            .Register(*registry);
    prometheus::Family<prometheus::Histogram>& encode_duration =
        prometheus::BuildHistogram()
            .Name("polycodec_encode_duration_seconds")
            .Help("Time to encode one document")
            .Register(*registry);
    prometheus::Family<prometheus::Histogram>& request_duration =
        prometheus::BuildHistogram()
            .Name("polycodec_request_duration_seconds")
            .Help("Time from a complete request to its answer being queued")
            .Register(*registry);
    prometheus::Family<prometheus::Histogram>& request_size =
        prometheus::BuildHistogram()
            .Name("polycodec_request_size_bytes")
            .Help("Request body (HTTP) or payload (TCP) sizes")
            .Register(*registry);
    prometheus::Family<prometheus::Histogram>& response_size =
        prometheus::BuildHistogram()
            .Name("polycodec_response_size_bytes")
            .Help("Response body (HTTP) or payload (TCP) sizes")
            .Register(*registry);
    prometheus::Family<prometheus::Gauge>& inflight_family =
        prometheus::BuildGauge()
            .Name("polycodec_inflight_requests")
            .Help("Requests being processed")
            .Register(*registry);
    prometheus::Family<prometheus::Gauge>& connections_family =
        prometheus::BuildGauge()
            .Name("polycodec_open_connections")
            .Help("Open client connections")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& lossy_family =
        prometheus::BuildCounter()
            .Name("polycodec_lossy_conversions_total")
            .Help("Fallbacks taken under lossy=allow, by kind")
            .Register(*registry);
    prometheus::Family<prometheus::Gauge>& draining_family =
        prometheus::BuildGauge()
            .Name("polycodec_draining")
            .Help("1 while the server drains after SIGTERM/SIGINT, else 0")
            .Register(*registry);
    prometheus::Gauge* draining = &draining_family.Add({});
    prometheus::Family<prometheus::Counter>& stream_records_family =
        prometheus::BuildCounter()
            .Name("polycodec_stream_records_total")
            .Help("Records converted in stream mode, by input and output format")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& stream_errors_family =
        prometheus::BuildCounter()
            .Name("polycodec_stream_errors_total")
            .Help("Streams that failed after their answer began (the answer was cut short), "
                  "by input and output format")
            .Register(*registry);
    prometheus::Family<prometheus::Gauge>& budget_family =
        prometheus::BuildGauge()
            .Name("polycodec_memory_budget_bytes")
            .Help("The memory budget of the requests in flight (--memory-budget)")
            .Register(*registry);
    prometheus::Gauge* budget = &budget_family.Add({});
    prometheus::Family<prometheus::Gauge>& reserved_family =
        prometheus::BuildGauge()
            .Name("polycodec_memory_reserved_bytes")
            .Help("Bytes of the memory budget reserved by the requests in flight")
            .Register(*registry);
    prometheus::Gauge* reserved = &reserved_family.Add({});
    prometheus::Family<prometheus::Counter>& rejected_family =
        prometheus::BuildCounter()
            .Name("polycodec_admission_rejected_total")
            .Help(
                "Requests refused before their body was read, by transport and reason "
                "(budget: does not fit now, too_large: never fits, connections: over "
                "--max-connections)")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& coding_family =
        prometheus::BuildCounter()
            .Name("polycodec_http_content_coding_total")
            .Help("HTTP bodies with a content coding, by direction (request: decoded, "
                  "response: compressed) and coding")
            .Register(*registry);
    prometheus::Family<prometheus::Counter>& coding_bytes_family =
        prometheus::BuildCounter()
            .Name("polycodec_http_content_coding_bytes_total")
            .Help("Bytes of HTTP bodies with a content coding, by direction, coding and side "
                  "(coded: as sent on the wire, identity: decoded)")
            .Register(*registry);
    prometheus::Family<prometheus::Gauge>& build_info =
        prometheus::BuildGauge()
            .Name("polycodec_build_info")
            .Help("Always 1; the labels say which build runs")
            .Register(*registry);

    // Pre-created children: one per format and per transport, so the hot path only touches
    // atomics (counters) and a per-histogram lock.
    std::array<prometheus::Counter*, format_count + 1> dec_bytes{};
    std::array<prometheus::Counter*, format_count + 1> enc_bytes{};
    std::array<prometheus::Histogram*, format_count + 1> dec_time{};
    std::array<prometheus::Histogram*, format_count + 1> enc_time{};
    std::array<prometheus::Histogram*, transports> req_time{};
    std::array<prometheus::Histogram*, transports> req_size{};
    std::array<prometheus::Histogram*, transports> resp_size{};
    std::array<prometheus::Gauge*, transports> inflight{};
    std::array<prometheus::Gauge*, transports> conns{};
    std::array<std::array<prometheus::Counter*, reject_reasons>, transports> rejections{};
    // [direction][coding], [direction][coding][side]
    std::array<std::array<prometheus::Counter*, codings>, 2> coded_count{};
    std::array<std::array<std::array<prometheus::Counter*, 2>, codings>, 2> coded_bytes{};

    // Request counters and lossy counters are created on first use (bounded label sets).
    std::mutex mu;
    std::unordered_map<std::uint64_t, prometheus::Counter*> request_counters;
    std::unordered_map<std::string, prometheus::Counter*> lossy_counters;
    std::unordered_map<std::uint64_t, prometheus::Counter*> stream_counters;

    // The counter of `family` for the pair (from, to), created on first use; `slot` tells the
    // families apart in the shared map.
    prometheus::Counter* pair_counter(prometheus::Family<prometheus::Counter>& family, int slot,
                                      format_id from, format_id to) {
        std::uint64_t key = (std::uint64_t(slot) << 16) | (std::uint64_t(from) << 8) |
                            std::uint64_t(to);
        std::lock_guard<std::mutex> lock(mu);
        auto it = stream_counters.find(key);
        if (it == stream_counters.end()) {
            auto* c = &family.Add({{"from", std::string(to_string(from))},
                                   {"to", std::string(to_string(to))}});
            it = stream_counters.emplace(key, c).first;
        }
        return it->second;
    }

    impl(std::string_view version, std::string_view commit) {
        auto db = duration_buckets();
        auto sb = size_buckets();
        for (const format_info& f : formats()) {
            auto i = static_cast<std::size_t>(f.id);
            std::string name(f.name);
            dec_bytes[i] = &decode_bytes.Add({{"format", name}});
            enc_bytes[i] = &encode_bytes.Add({{"format", name}});
            dec_time[i] = &decode_duration.Add({{"format", name}}, db);
            enc_time[i] = &encode_duration.Add({{"format", name}}, db);
        }
        for (std::size_t t = 0; t < transports; ++t) {
            std::string name(to_string(static_cast<transport>(t)));
            req_time[t] = &request_duration.Add({{"transport", name}}, db);
            req_size[t] = &request_size.Add({{"transport", name}}, sb);
            resp_size[t] = &response_size.Add({{"transport", name}}, sb);
            inflight[t] = &inflight_family.Add({{"transport", name}});
            conns[t] = &connections_family.Add({{"transport", name}});
            for (std::size_t r = 0; r < reject_reasons; ++r) {
                rejections[t][r] = &rejected_family.Add(
                    {{"transport", name},
                     {"reason", std::string(to_string(static_cast<reject_reason>(r)))}});
            }
        }
        for (std::size_t d = 0; d < 2; ++d) {
            std::string dir = d == 0 ? "request" : "response";
            for (std::size_t c = 0; c < codings; ++c) {
                std::string name(coding_names[c]);
                coded_count[d][c] = &coding_family.Add({{"direction", dir}, {"coding", name}});
                coded_bytes[d][c][0] = &coding_bytes_family.Add(
                    {{"direction", dir}, {"coding", name}, {"side", "coded"}});
                coded_bytes[d][c][1] = &coding_bytes_family.Add(
                    {{"direction", dir}, {"coding", name}, {"side", "identity"}});
            }
        }
        build_info.Add({{"version", std::string(version)}, {"commit", std::string(commit)}}).Set(1);
    }
};

metrics::metrics(std::string_view version, std::string_view commit)
    : impl_(std::make_unique<impl>(version, commit)) {}

metrics::~metrics() = default;

void metrics::request(transport t, std::uint8_t from, std::uint8_t to, int code, double seconds,
                      std::size_t bytes_in, std::size_t bytes_out) {
    auto ti = static_cast<std::size_t>(t);
    std::uint64_t key = (std::uint64_t{ti} << 40) | (std::uint64_t{from} << 32) |
                        (std::uint64_t{to} << 24) | static_cast<std::uint32_t>(code & 0xffffff);
    // Each thread caches the counters it has used, so the steady state takes no lock.
    struct cache {
        const impl* owner = nullptr;
        std::unordered_map<std::uint64_t, prometheus::Counter*> counters;
    };
    thread_local cache local;
    if (local.owner != impl_.get()) {
        local.owner = impl_.get();
        local.counters.clear();
    }
    prometheus::Counter* c;
    if (auto hit = local.counters.find(key); hit != local.counters.end()) {
        c = hit->second;
    } else {
        std::lock_guard<std::mutex> lock(impl_->mu);
        auto it = impl_->request_counters.find(key);
        if (it == impl_->request_counters.end()) {
            std::string code_label =
                t == transport::http ? std::to_string(code) : std::string(tcp_code_label(code));
            c = &impl_->requests.Add({{"transport", std::string(to_string(t))},
                                      {"from", format_label(from)},
                                      {"to", format_label(to)},
                                      {"code", code_label}});
            impl_->request_counters.emplace(key, c);
        } else {
            c = it->second;
        }
        local.counters.emplace(key, c);
    }
    c->Increment();
    impl_->req_time[ti]->Observe(seconds);
    impl_->req_size[ti]->Observe(static_cast<double>(bytes_in));
    impl_->resp_size[ti]->Observe(static_cast<double>(bytes_out));
}

void metrics::decoded(format_id f, std::size_t bytes, double seconds) {
    auto i = static_cast<std::size_t>(f);
    if (i == 0 || i > format_count) {
        return;
    }
    impl_->dec_bytes[i]->Increment(static_cast<double>(bytes));
    impl_->dec_time[i]->Observe(seconds);
}

void metrics::encoded(format_id f, std::size_t bytes, double seconds) {
    auto i = static_cast<std::size_t>(f);
    if (i == 0 || i > format_count) {
        return;
    }
    impl_->enc_bytes[i]->Increment(static_cast<double>(bytes));
    impl_->enc_time[i]->Observe(seconds);
}

void metrics::lossy(format_id from, format_id to, std::string_view kind) {
    std::string key =
        std::string(to_string(from)) + '\n' + std::string(to_string(to)) + '\n' + std::string(kind);
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->lossy_counters.find(key);
    if (it == impl_->lossy_counters.end()) {
        // `kind` is one of the encoders' fixed names, never user input.
        auto* c = &impl_->lossy_family.Add({{"from", std::string(to_string(from))},
                                            {"to", std::string(to_string(to))},
                                            {"kind", std::string(kind)}});
        it = impl_->lossy_counters.emplace(std::move(key), c).first;
    }
    it->second->Increment();
}

void metrics::stream_records(format_id from, format_id to, std::uint64_t n) {
    impl_->pair_counter(impl_->stream_records_family, 0, from, to)
        ->Increment(static_cast<double>(n));
}

void metrics::stream_failed(format_id from, format_id to) {
    impl_->pair_counter(impl_->stream_errors_family, 1, from, to)->Increment();
}

void metrics::content_coding(bool response, std::string_view coding, std::size_t coded,
                             std::size_t identity) {
    for (std::size_t c = 0; c < codings; ++c) {
        if (coding_names[c] == coding) {
            std::size_t d = response ? 1 : 0;
            impl_->coded_count[d][c]->Increment();
            impl_->coded_bytes[d][c][0]->Increment(static_cast<double>(coded));
            impl_->coded_bytes[d][c][1]->Increment(static_cast<double>(identity));
            return;
        }
    }
}

void metrics::inflight(transport t, int delta) {
    impl_->inflight[static_cast<std::size_t>(t)]->Increment(delta);
}

void metrics::connections(transport t, int delta) {
    impl_->conns[static_cast<std::size_t>(t)]->Increment(delta);
}

void metrics::rejected(transport t, reject_reason r) {
    impl_->rejections[static_cast<std::size_t>(t)][static_cast<std::size_t>(r)]->Increment();
}

void metrics::set_memory_budget(std::size_t bytes) {
    impl_->budget->Set(static_cast<double>(bytes));
}

void metrics::set_memory_reserved(std::size_t bytes) {
    impl_->reserved->Set(static_cast<double>(bytes));
}

void metrics::set_draining(bool on) { impl_->draining->Set(on ? 1 : 0); }

std::string metrics::serialize() const {
    prometheus::TextSerializer s;
    return s.Serialize(impl_->registry->Collect());
}

}  // namespace polycodec::server
