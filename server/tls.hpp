#pragma once
// TLS for both front ends (HTTPS on the HTTP port, TLS on the TCP port): the server contexts
// built from --tls-cert / --tls-key / --tls-client-ca and swapped on SIGHUP. This header is
// light (no Asio, no OpenSSL) so that service.hpp and serve.cpp can hold the contexts; the
// stream type the sessions read and write lives in tls_stream.hpp.

#include <memory>
#include <string>
#include <string_view>

#include "config.hpp"
#include "polycodec/result.hpp"

namespace polycodec::server {

/// The current server TLS context and its replacement on reload (defined in tls_stream.hpp).
/// A session takes the current context when it is accepted and keeps it for its lifetime, so
/// a reload changes only the handshakes that start after it.
class tls_contexts;

/// Builds the contexts from cfg.tls_cert, cfg.tls_key and cfg.tls_client_ca. nullptr (and no
/// error) when TLS is not configured. The error names the flag and the file that failed.
result<std::shared_ptr<tls_contexts>> make_tls_contexts(const config& cfg);

/// Reads the files again and, if they load, makes them the context of new handshakes; on
/// error the current context stays. Thread-safe.
result<void> reload_tls_contexts(tls_contexts& tls, const config& cfg);

/// "TLSv1.2+, client certificates required" and the like, for the start-up log line.
std::string describe_tls(const config& cfg);

/// The `tls_handshake_failed` log line of both front ends ("http" or "tcp"): the handshake
/// did not finish within --header-timeout (`expired`), or failed with `error`.
void log_handshake_failure(std::string_view transport, const std::string& peer, bool expired,
                           const config& cfg, const std::string& error);

}  // namespace polycodec::server
