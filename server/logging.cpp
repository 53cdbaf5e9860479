#include "logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <cstdio>
#include <memory>

namespace polycodec::server {

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}

namespace {

bool json_mode = false;
std::shared_ptr<spdlog::logger> app_logger;
std::shared_ptr<spdlog::logger> http_logger;
std::shared_ptr<spdlog::logger> tcp_logger;
std::shared_ptr<spdlog::logger> lifecycle_logger;  // "app", never filtered below info

// Text values are written bare unless they contain a space, a quote or '='.
void append_text_value(std::string& out, std::string_view s) {
    bool plain = !s.empty();
    for (unsigned char c : s) {
        if (c <= 0x20 || c == '"' || c == '=' || c >= 0x7f) {
            plain = false;
            break;
        }
    }
    if (plain) {
        out += s;
    } else {
        append_json_string(out, s);
    }
}

void append_field(std::string& out, std::string_view key, std::string_view value, bool number) {
    if (json_mode) {
        out += ",\"";
        out += key;
        out += "\":";
        if (number) {
            out += value;
        } else {
            append_json_string(out, value);
        }
    } else {
        out += ' ';
        out += key;
        out += '=';
        append_text_value(out, value);
    }
}

std::string ms(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::shared_ptr<spdlog::logger> make_logger(const std::string& name, const spdlog::sink_ptr& sink) {
    auto l = std::make_shared<spdlog::logger>(name, sink);
    spdlog::register_logger(l);
    return l;
}

void write(spdlog::logger& l, spdlog::level::level_enum lvl, const std::string& body) {
    l.log(lvl, "{}", body);
}

}  // namespace

result<void> setup_logging(const std::string& level, const std::string& format) {
    auto lvl = spdlog::level::from_str(level);
    if (lvl == spdlog::level::off && level != "off") {
        return fail(make_error(errc::invalid_option, "unknown log level \"" + level + "\""));
    }
    json_mode = format == "json";
    spdlog::drop_all();
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    // Message bodies are built by the functions below; the pattern adds time, level, logger.
    if (json_mode) {
        sink->set_formatter(std::make_unique<spdlog::pattern_formatter>(
            R"({"time":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l","logger":"%n"%v})",
            spdlog::pattern_time_type::utc));
    } else {
        sink->set_formatter(std::make_unique<spdlog::pattern_formatter>(
            "%Y-%m-%dT%H:%M:%S.%eZ %l %n%v", spdlog::pattern_time_type::utc));
    }
    app_logger = make_logger("app", sink);
    http_logger = make_logger("http", sink);
    tcp_logger = make_logger("tcp", sink);
    for (auto* l : {&app_logger, &http_logger, &tcp_logger}) {
        (*l)->set_level(lvl);
        (*l)->flush_on(spdlog::level::trace);
    }
    // Not registered: it shares the name "app" for the reader of the log.
    lifecycle_logger = std::make_shared<spdlog::logger>("app", sink);
    lifecycle_logger->set_level(lvl == spdlog::level::off ? lvl : spdlog::level::info);
    lifecycle_logger->flush_on(spdlog::level::trace);
    return {};
}

bool access_log_enabled() noexcept {
    return http_logger && http_logger->should_log(spdlog::level::info);
}

void log_access(const access_entry& e) {
    auto& logger = e.transport == "tcp" ? tcp_logger : http_logger;
    if (!logger || !logger->should_log(spdlog::level::info)) {
        return;
    }
    std::string body;
    body.reserve(256);
    append_field(body, "event", "access", false);
    append_field(body, "transport", e.transport, false);
    append_field(body, "method", e.method, false);
    append_field(body, "path", e.path, false);
    append_field(body, "from", e.from, false);
    append_field(body, "to", e.to, false);
    append_field(body, "status", std::to_string(e.status), true);
    append_field(body, "bytes_in", std::to_string(e.bytes_in), true);
    append_field(body, "bytes_out", std::to_string(e.bytes_out), true);
    append_field(body, "decode_ms", ms(e.decode_ms), true);
    append_field(body, "encode_ms", ms(e.encode_ms), true);
    append_field(body, "total_ms", ms(e.total_ms), true);
    append_field(body, "request_id", e.request_id, false);
    if (!e.peer.empty()) {
        append_field(body, "peer", e.peer, false);
    }
    write(*logger, spdlog::level::info, body);
}

void log_event(log_level level, std::string_view event, std::initializer_list<log_field> fields) {
    auto& logger = level == log_level::lifecycle ? lifecycle_logger : app_logger;
    if (!logger) {
        return;
    }
    spdlog::level::level_enum lvl = level == log_level::debug   ? spdlog::level::debug
                                    : level == log_level::warn  ? spdlog::level::warn
                                    : level == log_level::error ? spdlog::level::err
                                                                : spdlog::level::info;
    if (!logger->should_log(lvl)) {
        return;
    }
    std::string body;
    append_field(body, "event", event, false);
    for (const log_field& f : fields) {
        append_field(body, f.key, f.value, f.number);
    }
    write(*logger, lvl, body);
}

void flush_logs() {
    for (auto* l : {&app_logger, &http_logger, &tcp_logger, &lifecycle_logger}) {
        if (*l) {
            (*l)->flush();
        }
    }
}

}  // namespace polycodec::server
