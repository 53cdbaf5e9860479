#pragma once
// State shared by the HTTP and TCP front ends of one running service: configuration, metrics,
// schemas, the memory budget and the drain flag. No Asio or Beast here.

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "budget.hpp"
#include "config.hpp"
#include "metrics.hpp"
#include "schema_registry.hpp"
#include "tls.hpp"

namespace polycodec::server {

struct service {
    config cfg;  ///< cfg.memory_budget is resolved (never 0)
    metrics& stats;
    /// What the requests in flight reserve (DESIGN section 13).
    memory_budget budget;
    schema_registry schemas;
    std::string version;
    std::string commit;
    std::atomic<bool> draining{false};
    /// Connections open on both transports, for the --max-connections limit.
    std::atomic<std::size_t> open_connections{0};
    /// The TLS contexts of both front ends (tls.hpp); null without --tls-cert.
    std::shared_ptr<tls_contexts> tls;

    service(config c, metrics& m, schema_registry s, std::string v, std::string cm)
        : cfg(resolved(std::move(c))),
          stats(m),
          budget(cfg.memory_budget),
          schemas(std::move(s)),
          version(std::move(v)),
          commit(std::move(cm)) {
        stats.set_memory_budget(budget.limit());
    }

private:
    static config resolved(config c) {
        if (c.memory_budget == 0) {
            c.memory_budget = default_memory_budget();
        }
        return c;
    }
};

}  // namespace polycodec::server
