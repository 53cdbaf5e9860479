#pragma once
// The configuration of `polycodec serve` (DESIGN section 7): flags, each also read from an
// environment variable POLYCODEC_<FLAG> (flag wins). Pure parsing, no I/O.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "polycodec/result.hpp"

namespace polycodec::server {

struct config {
    std::string host = "0.0.0.0";
    int http_port = 8080;  ///< 0 = ephemeral, -1 = disabled
    int tcp_port = 9090;   ///< 0 = ephemeral, -1 = disabled
    unsigned threads = 0;  ///< 0 = hardware threads
    std::size_t max_body = std::size_t{64} << 20;
    std::size_t max_connections = 10000;
    /// Stream mode (DESIGN section 12): the longest record; the stream has no size limit.
    std::size_t max_record = std::size_t{16} << 20;
    /// Memory the requests in flight may reserve (DESIGN section 13); 0 = the default, half of
    /// the cgroup's memory limit or of physical memory (resolved by the service).
    std::size_t memory_budget = 0;
    /// Answers of at least this many bytes are compressed per Accept-Encoding (DESIGN section
    /// 16); `compress` false (--compress-min-size off) never compresses. Request bodies are
    /// decoded either way.
    std::size_t compress_min_size = 1024;
    bool compress = true;
    std::chrono::milliseconds header_timeout{10000};  ///< whole request head (408 beyond)
    std::chrono::milliseconds body_timeout{30000};    ///< whole body (408 beyond)
    std::chrono::milliseconds idle_timeout{60000};    ///< keep-alive idle, closed silently
    std::chrono::milliseconds grace{10000};           ///< drain period on SIGTERM/SIGINT
    std::string schema_dir;
    std::string log_level = "info";
    std::string log_format = "text";
    bool help = false;
};

/// Reads an environment variable; returns nullptr when unset (tests pass their own).
using env_lookup = std::function<const char*(const char*)>;

/// Parses `serve` flags and POLYCODEC_* variables. Errors are errc::invalid_option.
result<config> parse_config(int argc, char** argv, const env_lookup& env);

/// "64MiB", "1KiB", "10MB", "512" (bytes).
result<std::size_t> parse_size(std::string_view text);
/// "10s", "500ms", "2m", "3" (seconds).
result<std::chrono::milliseconds> parse_duration(std::string_view text);

/// The usage text of `serve`.
const char* serve_usage();

}  // namespace polycodec::server
