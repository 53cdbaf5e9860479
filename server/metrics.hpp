#pragma once
// The metrics of DESIGN section 6 on prometheus-cpp's core library. This header does not include
// prometheus-cpp; label values come only from the format table and status codes.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "polycodec/format.hpp"

namespace polycodec::server {

enum class transport : std::uint8_t { http = 0, tcp = 1 };
std::string_view to_string(transport t) noexcept;

/// Why a request was refused before its body was read (DESIGN section 13): its reservation
/// does not fit the memory budget now, it is larger than the budget or --max-body, or the
/// connection is over --max-connections.
enum class reject_reason : std::uint8_t { budget = 0, too_large = 1, connections = 2 };
std::string_view to_string(reject_reason r) noexcept;

class metrics {
public:
    metrics(std::string_view version, std::string_view commit);
    ~metrics();
    metrics(const metrics&) = delete;
    metrics& operator=(const metrics&) = delete;

    /// One finished request. `from`/`to` are 0 when unknown; `code` is the HTTP status, or the
    /// TCP status number.
    void request(transport t, std::uint8_t from, std::uint8_t to, int code, double seconds,
                 std::size_t bytes_in, std::size_t bytes_out);
    void decoded(format_id f, std::size_t bytes, double seconds);
    void encoded(format_id f, std::size_t bytes, double seconds);
    void lossy(format_id from, format_id to, std::string_view kind);
    /// Stream mode (DESIGN section 12): `n` more records converted from `from` to `to`.
    void stream_records(format_id from, format_id to, std::uint64_t n);
    /// A stream that failed after its answer began (polycodec_stream_errors_total).
    void stream_failed(format_id from, format_id to);
    /// An HTTP body with a content coding (DESIGN section 16): `response` false for a decoded
    /// request body, true for a compressed answer (whole, or a stream); `coding` is one of
    /// identity, gzip, deflate, br, zstd (other names are not counted). `coded` and `identity`
    /// are its sizes before and after the coding. polycodec_http_content_coding_total and
    /// polycodec_http_content_coding_bytes_total{direction,coding,side}.
    void content_coding(bool response, std::string_view coding, std::size_t coded,
                        std::size_t identity);
    void inflight(transport t, int delta);
    void connections(transport t, int delta);
    /// polycodec_admission_rejected_total{transport,reason}.
    void rejected(transport t, reject_reason r);
    /// polycodec_memory_budget_bytes and polycodec_memory_reserved_bytes.
    void set_memory_budget(std::size_t bytes);
    void set_memory_reserved(std::size_t bytes);
    /// polycodec_draining (not in DESIGN section 6; the "drain stuck" alert reads it).
    void set_draining(bool on);

    /// The Prometheus text exposition of every metric.
    std::string serialize() const;

    /// The label value of a TCP status number ("ok", "malformed" ...).
    static std::string_view tcp_code_label(int code) noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace polycodec::server
