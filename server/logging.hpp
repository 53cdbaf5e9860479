#pragma once
// spdlog set-up and the service's log events; spdlog stays inside logging.cpp. Events are one
// line each: `key=value` pairs (text) or one JSON object (json).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "polycodec/result.hpp"

namespace polycodec::server {

/// Installs the loggers `app`, `http`, `tcp` writing to standard error. `level` is an spdlog
/// level name, `format` is "text" or "json".
result<void> setup_logging(const std::string& level, const std::string& format);

/// One access line per request (logger `http` or `tcp`, level info).
struct access_entry {
    std::string_view transport;
    std::string_view method;  ///< HTTP method; "FRAME" on TCP
    std::string_view path;    ///< HTTP path without the query; "-" on TCP
    std::string_view from;    ///< format name or "-"
    std::string_view to;
    int status = 0;
    std::size_t bytes_in = 0;
    std::size_t bytes_out = 0;
    double decode_ms = 0;
    double encode_ms = 0;
    double total_ms = 0;
    std::string_view request_id;
    std::string_view peer;
};

/// True when access lines are logged at all (so callers can skip building them).
bool access_log_enabled() noexcept;
void log_access(const access_entry& e);

/// A field of a free-form event: value is written as a string (quoted in JSON) unless
/// `number` is set.
struct log_field {
    std::string_view key;
    std::string value;
    bool number = false;
};

/// `lifecycle` events (started, draining, stopped) are written at info level whatever the
/// configured level, unless logging is off, so that the bound ports are always shown.
enum class log_level : std::uint8_t { debug, info, warn, error, lifecycle };

/// Appends `s` as a JSON string literal: quotes, backslashes and control characters escaped,
/// other bytes as they are (JSON log lines and problem+json bodies).
void append_json_string(std::string& out, std::string_view s);

/// One event on the `app` logger: "event=NAME k=v ...".
void log_event(log_level level, std::string_view event, std::initializer_list<log_field> fields);

/// Flushes every logger (before exit).
void flush_logs();

}  // namespace polycodec::server
