#include "config.hpp"

#include <charconv>
#include <limits>
#include <string>
#include <thread>

namespace polycodec::server {
namespace {

error bad(std::string msg) { return make_error(errc::invalid_option, std::move(msg)); }

result<std::uint64_t> parse_uint(std::string_view name, std::string_view v) {
    std::uint64_t n = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) {
        return fail(bad(std::string(name) + ": expected a number, saw \"" + std::string(v) + "\""));
    }
    return n;
}

result<int> parse_port(std::string_view name, std::string_view v) {
    if (v == "-1" || v == "off") {
        return -1;
    }
    auto n = parse_uint(name, v);
    if (!n) {
        return fail(n.error());
    }
    if (*n > 65535) {
        return fail(bad(std::string(name) + ": port out of range"));
    }
    return static_cast<int>(*n);
}

std::string env_name(std::string_view flag) {
    std::string s = "POLYCODEC_";
    for (char c : flag) {
        s += c == '-' ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    return s;
}

constexpr std::string_view flags[] = {
    "host",          "http-port",       "tcp-port",       "threads",      "max-body",
    "memory-budget", "max-connections", "header-timeout", "body-timeout", "idle-timeout",
    "grace",         "schema-dir",      "log-level",      "log-format",    "max-record",
    "tls-cert",      "tls-key",         "tls-client-ca",
    "compress-min-size",
};

result<void> set(config& c, std::string_view name, std::string_view v) {
    auto as_duration = [&](std::chrono::milliseconds& target) -> result<void> {
        auto d = parse_duration(v);
        if (!d) {
            return fail(bad("--" + std::string(name) + ": " + d.error().message));
        }
        target = *d;
        return {};
    };
    // A size (1k, 64MiB, ...) from lo to hi bytes; `range` says the bounds in the error.
    auto as_size = [&](std::size_t& target, std::size_t lo, std::size_t hi,
                       std::string_view range) -> result<void> {
        auto n = parse_size(v);
        if (!n) {
            return fail(bad("--" + std::string(name) + ": " + n.error().message));
        }
        if (*n < lo || *n > hi) {
            return fail(bad("--" + std::string(name) + ": must be " + std::string(range)));
        }
        target = *n;
        return {};
    };
    auto as_port = [&](int& target) -> result<void> {
        auto p = parse_port("--" + std::string(name), v);
        if (!p) {
            return fail(p.error());
        }
        target = *p;
        return {};
    };
    if (name == "host") {
        c.host = std::string(v);
    } else if (name == "http-port") {
        return as_port(c.http_port);
    } else if (name == "tcp-port") {
        return as_port(c.tcp_port);
    } else if (name == "threads") {
        auto n = parse_uint("--threads", v);
        if (!n) {
            return fail(n.error());
        }
        if (*n > 1024) {
            return fail(bad("--threads: at most 1024"));
        }
        c.threads = static_cast<unsigned>(*n);
    } else if (name == "max-body") {
        return as_size(c.max_body, 1, 0x7fffffffu, "between 1 byte and 2GiB");
    } else if (name == "max-record") {
        return as_size(c.max_record, 1, 0x7fffffffu, "between 1 byte and 2GiB");
    } else if (name == "compress-min-size") {
        if (v == "off") {
            c.compress = false;
            return {};
        }
        auto n = parse_size(v);
        if (!n) {
            return fail(bad("--compress-min-size: " + n.error().message + " (or off)"));
        }
        c.compress = true;
        c.compress_min_size = *n;
    } else if (name == "memory-budget") {
        return as_size(c.memory_budget, std::size_t{1} << 20,
                       std::numeric_limits<std::size_t>::max(), "at least 1MiB");
    } else if (name == "max-connections") {
        auto n = parse_uint("--max-connections", v);
        if (!n) {
            return fail(n.error());
        }
        c.max_connections = static_cast<std::size_t>(*n);
    } else if (name == "header-timeout") {
        return as_duration(c.header_timeout);
    } else if (name == "body-timeout") {
        return as_duration(c.body_timeout);
    } else if (name == "idle-timeout") {
        return as_duration(c.idle_timeout);
    } else if (name == "grace") {
        return as_duration(c.grace);
    } else if (name == "schema-dir") {
        c.schema_dir = std::string(v);
    } else if (name == "tls-cert") {
        c.tls_cert = std::string(v);
    } else if (name == "tls-key") {
        c.tls_key = std::string(v);
    } else if (name == "tls-client-ca") {
        c.tls_client_ca = std::string(v);
    } else if (name == "log-level") {
        static constexpr std::string_view levels[] = {"trace", "debug",    "info", "warn",
                                                      "error", "critical", "off"};
        bool ok = false;
        for (auto l : levels) {
            ok = ok || l == v;
        }
        if (!ok) {
            return fail(bad("--log-level: expected trace, debug, info, warn, error or off"));
        }
        c.log_level = std::string(v);
    } else if (name == "log-format") {
        if (v != "text" && v != "json") {
            return fail(bad("--log-format: expected text or json"));
        }
        c.log_format = std::string(v);
    } else {
        return fail(bad("unknown flag --" + std::string(name)));
    }
    return {};
}

}  // namespace

result<std::size_t> parse_size(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        ++i;
    }
    if (i == 0) {
        return fail(bad("expected a size such as 64MiB, saw \"" + std::string(text) + "\""));
    }
    std::uint64_t n = 0;
    std::from_chars(text.data(), text.data() + i, n);
    std::string_view unit = text.substr(i);
    std::uint64_t mul = 1;
    if (unit.empty() || unit == "B") {
        mul = 1;
    } else if (unit == "KiB" || unit == "K" || unit == "k") {
        mul = 1024;
    } else if (unit == "MiB" || unit == "M") {
        mul = 1024 * 1024;
    } else if (unit == "GiB" || unit == "G") {
        mul = 1024ull * 1024 * 1024;
    } else if (unit == "kB" || unit == "KB") {
        mul = 1000;
    } else if (unit == "MB") {
        mul = 1000 * 1000;
    } else if (unit == "GB") {
        mul = 1000ull * 1000 * 1000;
    } else {
        return fail(bad("unknown size unit \"" + std::string(unit) + "\" (use B, KiB, MiB, GiB)"));
    }
    if (n > (std::uint64_t{1} << 40) / mul) {
        return fail(bad("size too large"));
    }
    return static_cast<std::size_t>(n * mul);
}

result<std::chrono::milliseconds> parse_duration(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) {
        ++i;
    }
    double n = 0;
    auto r = std::from_chars(text.data(), text.data() + i, n);
    if (i == 0 || r.ec != std::errc() || r.ptr != text.data() + i) {
        return fail(
            bad("expected a duration such as 10s or 500ms, saw \"" + std::string(text) + "\""));
    }
    std::string_view unit = text.substr(i);
    double ms;
    if (unit.empty() || unit == "s") {
        ms = n * 1000;
    } else if (unit == "ms") {
        ms = n;
    } else if (unit == "m") {
        ms = n * 60000;
    } else {
        return fail(bad("unknown duration unit \"" + std::string(unit) + "\" (use ms, s, m)"));
    }
    if (ms > 86400000.0 * 365) {
        return fail(bad("duration too long"));
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

const char* serve_usage() {
    return "usage: polycodec serve [flags]   (each flag also from POLYCODEC_<FLAG>, e.g.\n"
           "       POLYCODEC_HTTP_PORT; a flag wins over its variable)\n"
           "  --host ADDR             bind address (0.0.0.0)\n"
           "  --http-port N           HTTP port (8080; 0 = ephemeral, -1 = off)\n"
           "  --tcp-port N            TCP protocol port (9090; 0 = ephemeral, -1 = off)\n"
           "  --threads N             I/O threads, one io_context each (hardware threads)\n"
           "  --max-body SIZE         largest request body (64MiB); 413 / status 4 beyond\n"
           "  --max-record SIZE       largest record in stream mode (16MiB); 413 / exit 2 beyond\n"
           "  --compress-min-size SIZE  compress answers of at least SIZE bytes per\n"
           "                          Accept-Encoding (1KiB); off = never (request bodies with\n"
           "                          Content-Encoding gzip/deflate/br/zstd are decoded anyway)\n"
           "  --memory-budget SIZE    memory the requests in flight may reserve (half of the\n"
           "                          cgroup's memory limit, else of physical memory); a request\n"
           "                          that does not fit now is 503 + Retry-After / status 5, one\n"
           "                          larger than the budget 413 / status 4\n"
           "  --max-connections N     open connections (10000); 503 / status 5 beyond\n"
           "  --header-timeout D      time to receive a request head (10s); 408 beyond\n"
           "  --body-timeout D        time to receive a request body (30s); 408 beyond; in\n"
           "                          stream mode the longest wait for more body bytes\n"
           "  --idle-timeout D        keep-alive idle time before closing (60s)\n"
           "  --grace D               drain period on SIGTERM/SIGINT (10s)\n"
           "  --schema-dir DIR        schemas: NAME.json postcard, NAME.avsc avro\n"
           "  --log-level LEVEL       trace|debug|info|warn|error|off (info)\n"
           "  --log-format FMT        text|json (text)\n"
           "  --tls-cert FILE         PEM certificate chain: HTTPS on the HTTP port and TLS on\n"
           "                          the TCP port (TLS 1.2+; needs --tls-key; SIGHUP reloads)\n"
           "  --tls-key FILE          PEM private key of --tls-cert\n"
           "  --tls-client-ca FILE    PEM CA bundle: require client certificates signed by it\n"
           "                          (mutual TLS; needs --tls-cert)\n";
}

result<config> parse_config(int argc, char** argv, const env_lookup& env) {
    config c;
    // Environment first, flags override.
    for (std::string_view f : flags) {
        if (const char* v = env ? env(env_name(f).c_str()) : nullptr; v != nullptr && *v) {
            if (auto r = set(c, f, v); !r) {
                return fail(bad(env_name(f) + ": " + r.error().message));
            }
        }
    }
    for (int i = 0; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help" || a == "-h") {
            c.help = true;
            continue;
        }
        if (a.size() < 3 || a.substr(0, 2) != "--") {
            return fail(bad("unexpected argument \"" + std::string(a) + "\""));
        }
        std::string_view name = a.substr(2);
        std::string_view value;
        if (auto eq = name.find('='); eq != std::string_view::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        } else {
            if (i + 1 >= argc) {
                return fail(bad("--" + std::string(name) + " needs a value"));
            }
            value = argv[++i];
        }
        if (auto r = set(c, name, value); !r) {
            return fail(r.error());
        }
    }
    if (c.tls_cert.empty() != c.tls_key.empty()) {
        return fail(bad(c.tls_cert.empty() ? "--tls-key needs --tls-cert"
                                           : "--tls-cert needs --tls-key"));
    }
    if (!c.tls_client_ca.empty() && c.tls_cert.empty()) {
        return fail(bad("--tls-client-ca needs --tls-cert and --tls-key"));
    }
    if (c.threads == 0) {
        c.threads = std::thread::hardware_concurrency();
        if (c.threads == 0) {
            c.threads = 1;
        }
    }
    return c;
}

}  // namespace polycodec::server
