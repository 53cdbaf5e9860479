#include "tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "logging.hpp"
#include "tls_stream.hpp"

namespace polycodec::server {
namespace {

namespace ssl = boost::asio::ssl;

// TLS 1.2 suites: forward secret (ECDHE) AEAD only, as Mozilla's "intermediate" profile
// without the DHE ones (no DH parameters to manage). TLS 1.3 keeps OpenSSL's default suites
// (AES-256-GCM, ChaCha20-Poly1305, AES-128-GCM), all of them AEAD and forward secret.
constexpr const char* tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

error bad(std::string msg) { return make_error(errc::invalid_option, std::move(msg)); }

// OpenSSL's reason for the failure ("no start line", "key values mismatch"): the most recent
// readable one in its error queue, which is cleared.
std::string openssl_reason(const boost::system::error_code& ec) {
    std::string why;
    while (unsigned long e = ERR_get_error()) {
        const char* r = ERR_reason_error_string(e);
        if (r != nullptr) {
            why = r;
        }
    }
    if (why.empty()) {
        why = ec.message();
    }
    return why;
}

// A file that cannot even be opened gets the system's reason, with its name.
result<void> readable(std::string_view flag, const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        return fail(bad("--" + std::string(flag) + " " + path + ": " + std::strerror(errno)));
    }
    std::fclose(f);
    return {};
}

result<std::shared_ptr<ssl::context>> build_context(const config& cfg);

// Never throws (a reload runs in the signal handler): Asio's throwing calls become errors.
result<std::shared_ptr<ssl::context>> build(const config& cfg) {
    try {
        return build_context(cfg);
    } catch (const std::exception& e) {
        ERR_clear_error();
        return fail(bad(std::string("TLS context: ") + e.what()));
    }
}

result<std::shared_ptr<ssl::context>> build_context(const config& cfg) {
    for (auto [flag, path] : {std::pair<std::string_view, const std::string*>{"tls-cert", &cfg.tls_cert},
                              {"tls-key", &cfg.tls_key},
                              {"tls-client-ca", &cfg.tls_client_ca}}) {
        if (!path->empty()) {
            if (auto r = readable(flag, *path); !r) {
                return fail(r.error());
            }
        }
    }
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    SSL_CTX* native = ctx->native_handle();
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                     ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                     ssl::context::no_compression | ssl::context::single_dh_use);
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    // No renegotiation (a client could make the server redo handshakes at will).
    SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_cipher_list(native, tls12_ciphers);
    // Resumed sessions (tickets and the cache) skip the key exchange; with client
    // certificates OpenSSL requires a session id context for them.
    static const unsigned char sid[] = "polycodec";
    SSL_CTX_set_session_id_context(native, sid, sizeof sid - 1);
    ERR_clear_error();

    boost::system::error_code ec;
    ctx->use_certificate_chain_file(cfg.tls_cert, ec);
    if (ec) {
        return fail(bad("--tls-cert " + cfg.tls_cert +
                        ": not a PEM certificate chain: " + openssl_reason(ec)));
    }
    ctx->use_private_key_file(cfg.tls_key, ssl::context::pem, ec);
    if (ec) {
        std::string why = openssl_reason(ec);
        if (why == "key values mismatch") {
            return fail(bad("--tls-key " + cfg.tls_key + ": does not match the certificate in " +
                            cfg.tls_cert));
        }
        return fail(bad("--tls-key " + cfg.tls_key + ": not a PEM private key: " + why));
    }
    if (SSL_CTX_check_private_key(native) != 1) {
        ERR_clear_error();
        return fail(bad("--tls-key " + cfg.tls_key + ": does not match the certificate in " +
                        cfg.tls_cert));
    }
    if (!cfg.tls_client_ca.empty()) {
        ctx->load_verify_file(cfg.tls_client_ca, ec);
        if (ec) {
            return fail(bad("--tls-client-ca " + cfg.tls_client_ca +
                            ": not a PEM CA certificate: " + openssl_reason(ec)));
        }
        // The CA names sent in the CertificateRequest, so a client picks the right cert.
        STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(cfg.tls_client_ca.c_str());
        if (names != nullptr) {
            SSL_CTX_set_client_CA_list(native, names);
        }
        ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    ERR_clear_error();
    return ctx;
}

}  // namespace

result<std::shared_ptr<tls_contexts>> make_tls_contexts(const config& cfg) {
    if (cfg.tls_cert.empty() && cfg.tls_key.empty()) {
        return std::shared_ptr<tls_contexts>{};
    }
    auto ctx = build(cfg);
    if (!ctx) {
        return fail(ctx.error());
    }
    return std::make_shared<tls_contexts>(std::move(*ctx));
}

result<void> reload_tls_contexts(tls_contexts& tls, const config& cfg) {
    auto ctx = build(cfg);
    if (!ctx) {
        return fail(ctx.error());
    }
    tls.replace(std::move(*ctx));
    return {};
}

std::string describe_tls(const config& cfg) {
    if (cfg.tls_cert.empty()) {
        return "off";
    }
    return cfg.tls_client_ca.empty() ? "TLSv1.2+" : "TLSv1.2+, client certificate required";
}

void log_handshake_failure(std::string_view transport, const std::string& peer, bool expired,
                           const config& cfg, const std::string& error) {
    log_event(log_level::info, "tls_handshake_failed",
              {{"transport", std::string(transport)},
               {"peer", peer},
               {"error", expired ? "no handshake within " +
                                       std::to_string(cfg.header_timeout.count()) +
                                       " ms (--header-timeout)"
                                 : error}});
}

}  // namespace polycodec::server
