// `polycodec serve`: configuration, logging, metrics, one io_context per thread, the HTTP and
// TCP front ends, and the graceful drain on SIGTERM/SIGINT (DESIGN sections 4-7).
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli.hpp"
#include "config.hpp"
#include "front_ends.hpp"
#include "http/openapi.hpp"
#include "listener.hpp"
#include "logging.hpp"
#include "metrics.hpp"
#include "schema_registry.hpp"
#include "service.hpp"
#include "tls.hpp"
#include "version.hpp"

namespace polycodec::cli {

namespace net = boost::asio;
using namespace polycodec::server;

namespace {

// Memory given back is given back to the system (DESIGN section 13): glibc would otherwise
// raise its mmap threshold after the first large free (up to 32 MiB) and keep later large
// buffers - request bodies, Documents, answers - in its heaps after they are freed, so the
// RSS would stay at the high-water mark of the budget's reservations and outgrow it through
// fragmentation. A fixed threshold keeps large buffers mmapped and returned on free.
void tune_allocator() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 4 << 20);
#endif
}

}  // namespace

int run_serve(int argc, char** argv) {
    auto parsed = parse_config(argc, argv, [](const char* name) { return std::getenv(name); });
    if (!parsed) {
        std::fprintf(stderr, "polycodec serve: %s\n%s", parsed.error().message.c_str(),
                     serve_usage());
        return exit_usage;
    }
    config cfg = std::move(*parsed);
    if (cfg.help) {
        std::fputs(serve_usage(), stdout);
        return exit_ok;
    }
    if (auto r = setup_logging(cfg.log_level, cfg.log_format); !r) {
        std::fprintf(stderr, "polycodec serve: %s\n", r.error().message.c_str());
        return exit_usage;
    }
    auto schemas = load_schema_registry(cfg.schema_dir);
    if (!schemas) {
        log_event(log_level::error, "schema_dir_failed", {{"error", schemas.error().message}});
        return exit_usage;
    }

    // A certificate or key that does not load stops the start, naming the file.
    auto tls = make_tls_contexts(cfg);
    if (!tls) {
        log_event(log_level::error, "tls_failed", {{"error", tls.error().message}});
        std::fprintf(stderr, "polycodec serve: %s\n", tls.error().message.c_str());
        flush_logs();
        return exit_usage;
    }

    tune_allocator();
    (void)http::openapi_document();  // built once from the tables, before any request
    metrics stats(POLYCODEC_VERSION, POLYCODEC_COMMIT);
    service svc(cfg, stats, std::move(*schemas), POLYCODEC_VERSION, POLYCODEC_COMMIT);
    svc.tls = std::move(*tls);

    // One io_context per thread: a connection's work stays on the thread that accepted it.
    std::vector<std::unique_ptr<net::io_context>> contexts;
    std::vector<net::io_context*> raw;
    using guard_type = net::executor_work_guard<net::io_context::executor_type>;
    std::vector<std::optional<guard_type>> guards;
    for (unsigned i = 0; i < cfg.threads; ++i) {
        contexts.push_back(std::make_unique<net::io_context>(1));
        raw.push_back(contexts.back().get());
        guards.emplace_back(net::make_work_guard(*contexts.back()));
    }

    std::shared_ptr<listener> http_server = http::make_listener(svc, raw);
    std::shared_ptr<listener> tcp_server = tcp::make_listener(svc, raw);
    int http_port = -1;
    int tcp_port = -1;
    try {
        if (cfg.http_port >= 0) {
            http_port = http_server->listen(cfg.host, static_cast<unsigned short>(cfg.http_port));
        }
        if (cfg.tcp_port >= 0) {
            tcp_port = tcp_server->listen(cfg.host, static_cast<unsigned short>(cfg.tcp_port));
        }
    } catch (const std::exception& e) {
        log_event(log_level::error, "listen_failed", {{"host", cfg.host}, {"error", e.what()}});
        flush_logs();
        return 1;
    }

    // Signals are handled on the main thread's own context.
    net::io_context main_ctx(1);
    net::signal_set signals(main_ctx, SIGTERM, SIGINT);
    // With TLS, SIGHUP reloads the certificate, key and client CA: handshakes that start
    // afterwards use them, open connections keep theirs. A file that no longer loads is
    // logged and the previous context stays.
    std::optional<net::signal_set> hup;
    std::function<void()> wait_hup;
    if (svc.tls) {
        hup.emplace(main_ctx, SIGHUP);
        wait_hup = [&] {
            hup->async_wait([&](const boost::system::error_code& ec, int) {
                if (ec) {
                    return;
                }
                if (auto r = reload_tls_contexts(*svc.tls, svc.cfg); !r) {
                    log_event(log_level::error, "tls_reload_failed",
                              {{"error", r.error().message}});
                } else {
                    log_event(log_level::lifecycle, "tls_reloaded",
                              {{"cert", svc.cfg.tls_cert}, {"key", svc.cfg.tls_key}});
                }
                wait_hup();
            });
        };
        wait_hup();
    }

    std::mutex mu;
    std::condition_variable cv;
    unsigned running = cfg.threads;
    std::vector<std::thread> threads;
    for (auto& ctx : contexts) {
        threads.emplace_back([&ctx, &mu, &cv, &running] {
            for (;;) {
                try {
                    ctx->run();
                    break;
                } catch (const std::exception& e) {
                    // A handler threw (e.g. out of memory): log it and keep serving.
                    log_event(log_level::error, "handler_exception", {{"error", e.what()}});
                }
            }
            std::lock_guard<std::mutex> lock(mu);
            --running;
            cv.notify_all();
        });
    }
    if (http_port >= 0) {
        http_server->start();
    }
    if (tcp_port >= 0) {
        tcp_server->start();
    }
    log_event(log_level::lifecycle, "started",
              {{"version", POLYCODEC_VERSION},
               {"commit", POLYCODEC_COMMIT},
               {"host", cfg.host},
               {"http_port", std::to_string(http_port), true},
               {"tcp_port", std::to_string(tcp_port), true},
               {"threads", std::to_string(cfg.threads), true},
               {"max_body", std::to_string(cfg.max_body), true},
               {"memory_budget", std::to_string(svc.budget.limit()), true},
               {"max_connections", std::to_string(cfg.max_connections), true},
               {"header_timeout_ms", std::to_string(cfg.header_timeout.count()), true},
               {"body_timeout_ms", std::to_string(cfg.body_timeout.count()), true},
               {"grace_ms", std::to_string(cfg.grace.count()), true},
               {"schemas", std::to_string(svc.schemas.size()), true},
               {"tls", describe_tls(cfg)}});

    int signal_number = 0;
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (!ec) {
            signal_number = sig;
        }
        if (hup) {
            hup->cancel();  // lets main_ctx.run() return
        }
    });
    main_ctx.run();

    // Drain: readiness fails, listeners close, idle connections close, busy ones finish.
    // "draining" is logged once both listeners are closed, so a client (or test) that sees it
    // can rely on new connections being refused on both ports.
    svc.draining.store(true);
    svc.stats.set_draining(true);
    http_server->stop_accepting();
    tcp_server->stop_accepting();
    log_event(log_level::lifecycle, "draining",
              {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"},
               {"grace_ms", std::to_string(cfg.grace.count()), true}});
    http_server->drain();
    tcp_server->drain();
    for (auto& g : guards) {
        g.reset();
    }
    // A second signal ends the grace period early.
    std::atomic<bool> second{false};
    main_ctx.restart();
    signals.async_wait([&](const boost::system::error_code& ec, int) {
        if (!ec) {
            second = true;
            cv.notify_all();
        }
    });
    std::thread signal_thread([&main_ctx] { main_ctx.run(); });
    bool clean;
    {
        std::unique_lock<std::mutex> lock(mu);
        clean = cv.wait_for(lock, cfg.grace, [&] { return running == 0 || second.load(); }) &&
                running == 0;
    }
    if (!clean) {
        log_event(log_level::warn, "grace_expired",
                  {{"open_connections", std::to_string(svc.open_connections.load()), true}});
        for (auto& ctx : contexts) {
            ctx->stop();
        }
    }
    for (auto& t : threads) {
        t.join();
    }
    signals.cancel();
    main_ctx.stop();
    signal_thread.join();
    log_event(log_level::lifecycle, "stopped", {{"clean", clean ? "true" : "false"}});
    flush_logs();
    return exit_ok;
}

}  // namespace polycodec::cli
