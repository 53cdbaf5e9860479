#include "http/handler.hpp"

#include <cstdio>
#include <random>

#include "http/openapi.hpp"
#include "http/problem.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "polycodec/media_type.hpp"
#include "polycodec/stream.hpp"
#include "transcode.hpp"

namespace polycodec::server::http {
namespace {

std::string ms_text(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ms);
    return buf;
}

void set_timing(response& res) {
    res.headers.emplace_back("Server-Timing", "decode;dur=" + ms_text(res.decode_ms) +
                                                  ", encode;dur=" + ms_text(res.encode_ms));
}

bool usable(const format_info& f) { return is_implemented(f.id); }

std::vector<std::string_view> acceptable_types() {
    std::vector<std::string_view> out;
    for (const format_info& f : formats()) {
        if (is_implemented(f.id)) {
            out.insert(out.end(), f.media_types.begin(), f.media_types.end());
        }
    }
    return out;
}

void problem(response& res, int status, std::string_view code, std::string_view detail,
             const error* e = nullptr, bool list_acceptable = false) {
    res.status = status;
    res.content_type = std::string(problem_content_type);
    std::vector<std::string_view> types;
    if (list_acceptable) {
        types = acceptable_types();
    }
    res.body = problem_body(status, code, detail, e, list_acceptable ? &types : nullptr);
}

void codec_problem(response& res, const outcome& o) {
    int status = status_of(o);
    problem(res, status, to_string(o.err.code), describe(o.err), &o.err, status == 406);
}

}  // namespace

std::string content_type_of(const format_info& f, const transcode_options& opt) {
    std::string t(f.media_types.front());
    if (f.id == format_id::csv && opt.encode.csv_tab) {
        t = "text/tab-separated-values";
    }
    if (f.id == format_id::plist && opt.encode.plist_binary) {
        t = "application/x-bplist";
    }
    if (f.id == format_id::avro && (!opt.encode.avro_container || opt.encode.avro_json ||
                                    opt.encode.framing != avro_framing::none)) {
        t = opt.encode.avro_json ? "application/json" : "avro/binary";
    }
    if (f.caps.text) {
        t += "; charset=utf-8";
    }
    if (f.id == format_id::csv && !opt.encode.csv_header) {
        t += "; header=absent";
    } else if (f.id == format_id::csv) {
        t += "; header=present";
    }
    return t;
}

namespace {

template <class... A>
bool problem_false(A&&... a) {
    problem(std::forward<A>(a)...);
    return false;
}
bool codec_problem_false(response& res, const outcome& o) {
    codec_problem(res, o);
    return false;
}

// Splits the query and applies every option; from/to are resolved by the caller.
struct query_parts {
    std::string from;
    std::string to;
    bool has_from = false;
    bool has_to = false;
};

result<void> apply_query_options(std::string_view query, transcode_options& opt, query_parts& q) {
    return apply_query(query, opt, [&q](std::string_view key, std::string_view val) {
        if (key == "from") {
            q.from = val;
            q.has_from = true;
        } else if (key == "to") {
            q.to = val;
            q.has_to = true;
        } else {
            return false;
        }
        return true;
    });
}

}  // namespace

bool resolve_transcode(service& svc, const request& req, response& res, transcode_options& opt,
                       bool validate_only) {
    std::string_view target = req.target;
    auto qpos = target.find('?');
    std::string_view query =
        qpos == std::string_view::npos ? std::string_view{} : target.substr(qpos + 1);
    if (!validate_only) {
        res.headers.emplace_back("Vary", "Accept");  // every answer of /transcode, errors too
    }
    // 1. The input format: from= wins over Content-Type; parameters of either apply.
    query_parts q;
    {
        // Parse the query first into a scratch set so from=/to= are known, then apply
        // Content-Type parameters, then the query again so it wins over the headers.
        transcode_options scratch;
        if (auto r = apply_query_options(query, scratch, q); !r) {
            outcome o;
            o.ok = false;
            o.failed = stage::options;
            o.err = r.error();
            return codec_problem_false(res, o);
        }
    }
    const format_info* from = nullptr;
    if (q.has_from) {
        auto f = resolve_format_spec(q.from, opt);
        if (!f) {
            int status = f.error().code == errc::unsupported_format ? 415 : 400;
            return problem_false(res, status, to_string(f.error().code), f.error().message);
        }
        from = *f;
    } else if (req.has_content_type) {
        auto f = resolve_format_spec(req.content_type, opt);
        if (!f) {
            int status = f.error().code == errc::unsupported_format ? 415 : 400;
            return problem_false(res, status, to_string(f.error().code),
                           "Content-Type: " + f.error().message);
        }
        from = *f;
    } else {
        return problem_false(res, 415, "unsupported_format",
                       "no Content-Type: send one (e.g. application/json) or from=NAME");
    }
    res.from = static_cast<std::uint8_t>(from->id);
    if (!is_implemented(from->id)) {
        return problem_false(res, 415, "not_implemented",
                       std::string(from->name) + " is not implemented yet");
    }
    opt.from = from;
    // Parameters of the output's media type must not change how the input is read.
    const decode_options input_options = opt.decode;
    // 2. The output format: to= wins over Accept.
    if (!validate_only) {
        const format_info* to = nullptr;
        if (q.has_to) {
            auto f = resolve_format_spec(q.to, opt);
            if (!f) {
                if (f.error().code == errc::unsupported_format) {
                    return problem_false(res, 406, "unsupported_format", f.error().message, nullptr,
                                   true);
                }
                return problem_false(res, 400, to_string(f.error().code), f.error().message);
            }
            to = *f;
            if (!is_implemented(to->id)) {
                return problem_false(res, 406, "not_implemented",
                               std::string(to->name) + " is not implemented yet", nullptr, true);
            }
        } else {
            negotiation n = negotiate(req.accept, *from, usable);
            if (n.format == nullptr) {
                return problem_false(
                    res, 406, "not_acceptable",
                    "none of the types in Accept (" + std::string(req.accept) + ") is available",
                    nullptr, true);
            }
            to = n.format;
            for (const auto& [k, v] : n.params) {
                (void)apply_option(k, v, opt);  // unknown Accept parameters are ignored
            }
        }
        opt.to = to;
        res.to = static_cast<std::uint8_t>(to->id);
        opt.decode = input_options;
    }
    // 3. Query options last: they override media-type parameters.
    if (auto r = apply_query_options(query, opt, q); !r) {
        problem(res, 400, to_string(r.error().code), r.error().message);
        return false;
    }
    if (auto r = prepare_options(svc, opt, req.body.size()); !r) {
        problem(res, 400, to_string(r.error().code), r.error().message);
        return false;
    }
    return true;
}

namespace {

void handle_codec(service& svc, const request& req, response& res, bool validate_only) {
    transcode_options opt;
    if (!resolve_transcode(svc, req, res, opt, validate_only)) {
        return;
    }
    if (opt.stream && !validate_only) {
        // Streams are answered by the session (http/stream.cpp) before the body is read; a
        // request that gets here came without a stream-capable session (tests).
        return problem(res, 400, "invalid_option", "stream=true needs the HTTP front end");
    }
    worker_state& w = this_worker();
    outcome o = run_transcode(svc, w, req.body, opt, validate_only);
    res.decode_ms = o.decode_s * 1000;
    res.encode_ms = o.encode_s * 1000;
    if (!o.ok) {
        return codec_problem(res, o);
    }
    if (validate_only) {
        res.status = 204;
        return;
    }
    res.status = 200;
    res.content_type = content_type_of(*opt.to, opt);
    res.body.assign(w.out.data(), w.out.size());
    if (!w.lossy.empty()) {
        res.headers.emplace_back("Polycodec-Lossy", lossy_header(w.lossy));
    }
}

void add_strings(builder& b, std::span<const std::string_view> items) {
    b.begin_array();
    for (auto s : items) {
        b.add_string(s);
    }
    b.end_array();
}

// GET /schemas: [{"name": ..., "kind": "avro", "types": [...]}] as JSON.
void handle_schemas(service& svc, response& res) {
    worker_state& w = this_worker();
    builder b(w.doc);
    b.reset();
    b.begin_array();
    for (const schema_listing& s : list_schemas(svc.schemas)) {
        b.begin_map();
        b.add_string("name");
        b.add_string(s.name);
        b.add_string("kind");
        b.add_string(s.kind);
        b.add_string("types");
        b.begin_array();
        for (const std::string& t : s.types) {
            b.add_string(t);
        }
        b.end_array();
        b.end_map();
    }
    b.end_array();
    w.out.clear();
    encode_options eo;
    auto r = encode(format_id::json, w.doc, w.out, eo);
    if (!r) {
        return problem(res, 500, "internal", r.error().message);
    }
    res.status = 200;
    res.content_type = "application/json";
    res.body.assign(w.out.data(), w.out.size());
}

void handle_formats(service& svc, const request& req, response& res) {
    (void)svc;
    res.headers.emplace_back("Vary", "Accept");
    const format_info* json = find_format(format_id::json);
    negotiation n = negotiate(req.accept, *json, usable);
    if (n.format == nullptr) {
        return problem(res, 406, "not_acceptable",
                       "none of the types in Accept (" + std::string(req.accept) + ") is available",
                       nullptr, true);
    }
    transcode_options opt;
    for (const auto& [k, v] : n.params) {
        (void)apply_option(k, v, opt);
    }
    worker_state& w = this_worker();
    builder b(w.doc);
    b.begin_array();
    for (const format_info& f : formats()) {
        b.begin_map();
        b.add_string("id");
        b.add_int(static_cast<int>(f.id));
        b.add_string("name");
        b.add_string(f.name);
        b.add_string("media_types");
        add_strings(b, f.media_types);
        b.add_string("extensions");
        add_strings(b, f.extensions);
        b.add_string("implemented");
        b.add_bool(is_implemented(f.id));
        b.add_string("capabilities");
        b.begin_map();
        for (auto& [k, v] : capability_fields(f.caps)) {
            b.add_string(k);
            b.add_bool(v);
        }
        b.end_map();
        b.end_map();
    }
    b.end_array();
    w.out.clear();
    // The table has no value a format could refuse except in tabular/map-root formats; let
    // those fall back rather than fail.
    opt.encode.lossy = true;
    lossy_report ignored;
    opt.encode.report = &ignored;
    auto r = encode(n.format->id, w.doc, w.out, opt.encode);
    if (!r) {
        outcome o;
        o.ok = false;
        o.failed = stage::encode;
        o.err = r.error();
        return codec_problem(res, o);
    }
    res.status = 200;
    res.to = static_cast<std::uint8_t>(n.format->id);
    res.content_type = content_type_of(*n.format, opt);
    res.body.assign(w.out.data(), w.out.size());
}

}  // namespace

std::array<std::pair<std::string_view, bool>, 9> capability_fields(const format_caps& c) {
    return {{
        {"text", c.text},
        {"null", c.null},
        {"boolean", c.boolean},
        {"floats", c.floats},
        {"bytes", c.bytes},
        {"any_keys", c.any_keys},
        {"map_root_only", c.map_root_only},
        {"tabular", c.tabular},
        {"needs_schema", c.needs_schema},
    }};
}

namespace {

// PUT as well as POST: `curl -T file` uploads with PUT (and streams the file from disk).
constexpr route_info route_rows[] = {
    {route::transcode, "/transcode", "POST, PUT",
     "convert the body from the format of Content-Type (or from=) to the best format of Accept "
     "(or to=)"},
    {route::validate, "/validate", "POST, PUT", "decode the body only: 204, or the error"},
    {route::formats, "/formats", "GET", "the format table with capabilities, negotiated"},
    {route::metrics, "/metrics", "GET", "Prometheus text exposition"},
    {route::healthz, "/healthz", "GET", "liveness"},
    {route::readyz, "/readyz", "GET", "readiness: 503 while draining"},
    {route::openapi, "/openapi.json", "GET", "this OpenAPI 3.1 document"},
    {route::schemas, "/schemas", "GET",
     "the schemas of --schema-dir: name, kind (postcard, protobuf, avro) and the types they define"},
};

}  // namespace

std::span<const route_info> routes() noexcept { return route_rows; }

route find_route(std::string_view path) noexcept {
    for (const route_info& r : route_rows) {
        if (r.path == path) {
            return r.id;
        }
    }
    return route::not_found;
}

std::string_view allowed_methods(route r) noexcept {
    for (const route_info& row : route_rows) {
        if (row.id == r) {
            return row.methods;
        }
    }
    return "GET";
}

bool method_allowed(route r, std::string_view method) noexcept {
    // `methods` is a list such as "POST, PUT".
    std::string_view list = allowed_methods(r);
    while (!list.empty()) {
        auto comma = list.find(',');
        if (list.substr(0, comma) == method) {
            return true;
        }
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        while (!list.empty() && list.front() == ' ') {
            list.remove_prefix(1);
        }
    }
    return false;
}

std::string_view path_of(std::string_view target) noexcept {
    return target.substr(0, target.find('?'));
}

std::string request_id_for(std::string_view given) {
    bool ok = !given.empty() && given.size() <= 128;
    for (unsigned char c : given) {
        ok = ok && c > 0x20 && c < 0x7f;
    }
    if (ok) {
        return std::string(given);
    }
    thread_local std::mt19937_64 rng{std::random_device{}()};
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
    return buf;
}

std::string lossy_header(const lossy_report& report) {
    std::string out;
    std::size_t n = 0;
    for (const lossy_event& ev : report) {
        if (n++ == 32) {
            out += ", truncated";
            break;
        }
        if (!out.empty()) {
            out += ", ";
        }
        out += ev.kind;
        out += ";path=\"";
        for (unsigned char c : ev.path) {
            if (c < 0x20 || c > 0x7e || c == '%') {
                char buf[4];
                std::snprintf(buf, sizeof buf, "%%%02X", c);
                out += buf;
            } else if (c == '"' || c == '\\') {
                out += '\\';
                out += static_cast<char>(c);
            } else {
                out += static_cast<char>(c);
            }
        }
        out += '"';
    }
    return out;
}

bool streamable_request(const request& req) {
    std::string_view target = req.target;
    auto qpos = target.find('?');
    std::string_view query =
        qpos == std::string_view::npos ? std::string_view{} : target.substr(qpos + 1);
    query_parts q;
    transcode_options scratch;
    if (!apply_query_options(query, scratch, q)) {
        return false;
    }
    transcode_options opt;
    const format_info* from = nullptr;
    if (q.has_from || req.has_content_type) {
        auto f = resolve_format_spec(q.has_from ? std::string_view(q.from) : req.content_type, opt);
        if (f) {
            from = *f;
        }
    }
    if (from == nullptr) {
        return false;
    }
    const format_info* to = nullptr;
    if (q.has_to) {
        auto f = resolve_format_spec(q.to, opt);
        if (f) {
            to = *f;
        }
    } else {
        to = negotiate(req.accept, *from, usable).format;
    }
    return to != nullptr && is_streamable(from->id) && is_streamable(to->id);
}

void error_response(int status, std::string_view code, std::string_view detail,
                    std::string_view request_id, response& res) {
    res.request_id = std::string(request_id);
    problem(res, status, code, detail);
    set_timing(res);
    res.headers.emplace_back("X-Request-Id", res.request_id);
}

void handle(service& svc, const request& req, response& res) {
    res.request_id = request_id_for(req.request_id);
    std::string_view path = path_of(req.target);
    route r = find_route(path);
    if (r == route::not_found) {
        std::string hint;
        for (const route_info& row : route_rows) {
            hint += hint.empty() ? "" : ", ";
            hint += row.path;
        }
        problem(res, 404, "not_found", "no route " + std::string(path) + " (try " + hint + ")");
    } else if (!method_allowed(r, req.method)) {
        problem(res, 405, "method_not_allowed",
                std::string(req.method) + " is not allowed on " + std::string(path) + ", use " +
                    std::string(allowed_methods(r)));
        res.headers.emplace_back("Allow", std::string(allowed_methods(r)));
    } else {
        switch (r) {
            case route::transcode:
                handle_codec(svc, req, res, false);
                break;
            case route::validate:
                handle_codec(svc, req, res, true);
                break;
            case route::formats:
                handle_formats(svc, req, res);
                break;
            case route::schemas:
                handle_schemas(svc, res);
                break;
            case route::metrics:
                svc.stats.set_memory_reserved(svc.budget.reserved());
                res.status = 200;
                res.content_type = "text/plain; version=0.0.4; charset=utf-8";
                res.body = svc.stats.serialize();
                break;
            case route::healthz:
                res.status = 200;
                res.content_type = "text/plain; charset=utf-8";
                res.body = "ok\n";
                break;
            case route::readyz:
                if (svc.draining.load(std::memory_order_relaxed)) {
                    problem(res, 503, "draining", "the server is draining");
                } else {
                    res.status = 200;
                    res.content_type = "text/plain; charset=utf-8";
                    res.body = "ready\n";
                }
                break;
            case route::openapi:
                handle_openapi(req, res);
                break;
            case route::not_found:
                break;
        }
    }
    set_timing(res);
    res.headers.emplace_back("X-Request-Id", res.request_id);
}

}  // namespace polycodec::server::http
