#pragma once
// State shared by the HTTP and TCP front ends of one running service: configuration, metrics,
// schemas and the drain flag. No Asio or Beast here.

#include <atomic>
#include <cstddef>
#include <string>

#include "config.hpp"
#include "metrics.hpp"
#include "schema_registry.hpp"

namespace polycodec::server {

struct service {
    config cfg;
    metrics& stats;
    schema_registry schemas;
    std::string version;
    std::string commit;
    std::atomic<bool> draining{false};
    /// Connections open on both transports, for the --max-connections limit.
    std::atomic<std::size_t> open_connections{0};

    service(config c, metrics& m, schema_registry s, std::string v, std::string cm)
        : cfg(std::move(c)),
          stats(m),
          schemas(std::move(s)),
          version(std::move(v)),
          commit(std::move(cm)) {}
};

}  // namespace polycodec::server
