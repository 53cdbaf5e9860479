// The OpenAPI 3.1 document of the HTTP API. Every path comes from routes(), every query and
// media-type parameter from option_table(), every media type from formats() and
// sequence_media_types(), the /formats schema from capability_fields(); what is written here by
// hand is prose and the statuses each route answers. The document is built once with the
// codec's own builder and JSON encoder, so it is well-formed JSON by construction.
#include "http/openapi.hpp"

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <vector>

#include "http/content_coding.hpp"
#include "http/problem.hpp"
#include "polycodec/codec.hpp"
#include "polycodec/document.hpp"
#include "polycodec/error.hpp"
#include "polycodec/format.hpp"
#include "polycodec/media_type.hpp"
#include "version.hpp"

namespace polycodec::server::http {
namespace {

// ---- a small writer over the Document builder ----

class writer {
public:
    explicit writer(document& doc) : b_(doc) {}

    void begin() { b_.begin_map(); }
    void begin_array() { b_.begin_array(); }
    void end() { b_.end_map(); }  // end_map and end_array close the same way
    void key(std::string_view k) { b_.add_string(k); }
    void str(std::string_view v) { b_.add_string(v); }
    void num(std::int64_t v) { b_.add_int(v); }
    void boolean(bool v) { b_.add_bool(v); }

    void kv(std::string_view k, std::string_view v) {
        key(k);
        str(v);
    }
    void kv(std::string_view k, const char* v) { kv(k, std::string_view(v)); }
    /// A schema property: {"type": T, ["minimum": N,] "description": D} under `name`.
    void property(std::string_view name, std::string_view type, std::string_view description,
                  std::optional<std::int64_t> minimum = std::nullopt) {
        key(name);
        begin();
        kv("type", type);
        if (minimum) {
            key("minimum");
            num(*minimum);
        }
        kv("description", description);
        end();
    }
    void kv(std::string_view k, const std::string& v) { kv(k, std::string_view(v)); }
    void kv(std::string_view k, std::int64_t v) {
        key(k);
        num(v);
    }
    void kv(std::string_view k, int v) { kv(k, static_cast<std::int64_t>(v)); }
    void kv(std::string_view k, bool v) {
        key(k);
        boolean(v);
    }
    // "k": {"$ref": "#/components/<where>/<name>"}
    void ref(std::string_view k, std::string_view where, std::string_view name) {
        key(k);
        begin();
        kv("$ref", "#/components/" + std::string(where) + "/" + std::string(name));
        end();
    }
    // "k": {"type": T}
    void typed(std::string_view k, std::string_view type) {
        key(k);
        begin();
        kv("type", type);
        end();
    }
    // "k": {"schema": {"$ref": "#/components/schemas/<schema>"}}, e.g. a media type's entry
    void schema_ref(std::string_view k, std::string_view schema) {
        key(k);
        begin();
        ref("schema", "schemas", schema);
        end();
    }
    // {"$ref": "#/components/parameters/<name>"}, an item of "parameters"
    void parameter_ref(std::string_view name) {
        begin();
        kv("$ref", "#/components/parameters/" + std::string(name));
        end();
    }
    // "headers": {"N": {"$ref": "#/components/headers/N"} ...}
    void header_refs(std::initializer_list<std::string_view> names) {
        key("headers");
        begin();
        for (std::string_view n : names) {
            ref(n, "headers", n);
        }
        end();
    }
    template <class Range>
    void strings(std::string_view k, const Range& items) {
        key(k);
        begin_array();
        for (const auto& s : items) {
            str(s);
        }
        end();
    }

    errc status() const { return b_.status(); }

private:
    builder b_;
};

// ---- what the tables give ----

std::vector<const format_info*> usable_formats() {
    std::vector<const format_info*> out;
    for (const format_info& f : formats()) {
        if (is_implemented(f.id)) {
            out.push_back(&f);
        }
    }
    return out;
}

std::vector<std::string_view> format_names(bool implemented_only) {
    std::vector<std::string_view> out;
    for (const format_info& f : formats()) {
        if (!implemented_only || is_implemented(f.id)) {
            out.push_back(f.name);
        }
    }
    return out;
}

std::string join(const std::vector<std::string_view>& items, std::string_view sep) {
    std::string out;
    for (auto s : items) {
        out += out.empty() ? "" : sep;
        out += s;
    }
    return out;
}

// The schema component of a document body in format `f`: JSON values are JSON, other text
// formats are text, binary formats are bytes.
std::string_view body_schema(const format_info& f) {
    if (f.id == format_id::json) {
        return "json_document";
    }
    return f.caps.text ? "text_document" : "binary_document";
}

// A "content" map with every media type of every usable format (and, with `sequences`, the
// record sequences of stream mode).
void document_content(writer& w, bool sequences) {
    w.key("content");
    w.begin();
    for (const format_info* f : usable_formats()) {
        for (std::string_view t : f->media_types) {
            w.schema_ref(t, body_schema(*f));
        }
    }
    if (sequences) {
        for (const sequence_media_type& sm : sequence_media_types()) {
            const format_info* f = find_format(sm.format);
            w.schema_ref(sm.type, f != nullptr ? body_schema(*f) : "binary_document");
        }
    }
    w.end();
}

// The names of option_table() a media-type parameter may carry (from and to are the query's).
std::vector<std::string_view> media_type_parameters() {
    std::vector<std::string_view> out;
    for (const option_info& o : option_table()) {
        if (o.kind != option_kind::format) {
            out.push_back(o.name);
        }
    }
    return out;
}

std::string option_description(const option_info& o) {
    std::string d(o.summary);
    if (!o.formats.empty()) {
        std::vector<std::string_view> names;
        for (format_id id : o.formats) {
            names.push_back(to_string(id));
        }
        d += " (" + join(names, ", ") + ")";
    }
    d += ".";
    if (o.kind == option_kind::boolean) {
        d += " Also 1/0, yes/no, on/off; an empty value is true.";
    }
    if (o.kind == option_kind::format) {
        d += " Format names: " + join(format_names(true), ", ") + ".";
    } else {
        // An example in a media type this option concerns, with a value other than the default.
        const format_info* f =
            o.formats.empty() ? find_format(format_id::json) : find_format(o.formats.front());
        std::string_view value = o.kind == option_kind::boolean     ? "true"
                                 : o.kind == option_kind::character ? "|"
                                 : o.kind == option_kind::name
                                     // a number's example is a number (avro schema_id=1)
                                     ? (!o.default_value.empty() &&
                                                o.default_value.find_first_not_of("0123456789") ==
                                                    std::string_view::npos
                                            ? std::string_view("1")
                                            : std::string_view("NAME"))
                                     : o.default_value;
        for (std::string_view v :
             o.kind == option_kind::choice ? o.values : std::span<const std::string_view>{}) {
            if (v != o.default_value) {
                value = v;
                break;
            }
        }
        d += " Also a parameter of Content-Type or Accept, e.g. `" +
             std::string(f != nullptr ? f->media_types.front() : "application/json") + "; " +
             std::string(o.name) + "=" + std::string(value) + "`; the query wins.";
    }
    return d;
}

void option_schema(writer& w, const option_info& o) {
    w.key("schema");
    w.begin();
    switch (o.kind) {
        case option_kind::boolean:
            w.kv("type", "boolean");
            w.kv("default", o.default_value == "true");
            break;
        case option_kind::choice:
            w.kv("type", "string");
            w.strings("enum", o.values);
            if (!o.default_value.empty()) {
                w.kv("default", o.default_value);
            }
            break;
        case option_kind::character:
            w.kv("type", "string");
            w.kv("minLength", 1);
            w.kv("maxLength", 3);
            if (!o.default_value.empty()) {
                w.kv("default", o.default_value);
            }
            w.strings("examples", std::initializer_list<std::string_view>{";", "tab", "|"});
            break;
        case option_kind::name:
            w.kv("type", "string");
            w.kv("minLength", 1);
            break;
        case option_kind::format:
            w.kv("type", "string");
            w.strings("examples", format_names(true));
            break;
    }
    w.end();
}

// References to the option parameters of components.parameters.
void option_parameters(writer& w) {
    for (const option_info& o : option_table()) {
        w.parameter_ref(o.name);
    }
}

void option_parameter_components(writer& w) {
    for (const option_info& o : option_table()) {
        w.key(o.name);
        w.begin();
        w.kv("name", o.name);
        w.kv("in", "query");
        w.kv("required", false);
        w.kv("description", option_description(o));
        option_schema(w, o);
        if (!o.formats.empty()) {
            std::vector<std::string_view> names;
            for (format_id id : o.formats) {
                names.push_back(to_string(id));
            }
            w.strings("x-polycodec-formats", names);
        }
        w.end();
    }
}

// ---- responses ----

struct status_row {
    int status;
    std::string_view description;
};

// Answered by the session for any route (server/http/server.cpp) before the handler runs.
constexpr status_row session_statuses[] = {
    {400, "malformed HTTP request (bad_request) or a head over the limit (header_too_large)"},
    {408, "the request head or body did not arrive in time (request_timeout)"},
    {500, "an unexpected failure, logged and counted (internal_error)"},
    {503,
     "over --max-connections (over_capacity) or --memory-budget (over_budget); see "
     "Retry-After"},
};

// "content": the problem+json media type.
void problem_content(writer& w) {
    w.key("content");
    w.begin();
    w.schema_ref(problem_content_type, "problem");
    w.end();
}

void problem_response(writer& w, int status, std::string_view description, bool allow = false) {
    w.key(std::to_string(status));
    w.begin();
    w.kv("description", description);
    w.key("headers");
    w.begin();
    w.ref("X-Request-Id", "headers", "X-Request-Id");
    w.ref("Server-Timing", "headers", "Server-Timing");
    if (status == 503) {
        w.ref("Retry-After", "headers", "Retry-After");
    }
    if (allow) {
        w.ref("Allow", "headers", "Allow");
    }
    w.end();
    problem_content(w);
    w.end();
}

// Route statuses first, then the session's ones not already given.
void problem_responses(writer& w, std::initializer_list<status_row> route_statuses) {
    std::vector<int> done;
    for (const status_row& s : route_statuses) {
        problem_response(w, s.status, s.description);
        done.push_back(s.status);
    }
    for (const status_row& s : session_statuses) {
        bool seen = false;
        for (int d : done) {
            seen = seen || d == s.status;
        }
        if (!seen) {
            problem_response(w, s.status, s.description);
        }
    }
}

// A 200 answer of media type `type`, its schema {"type": schema_type}.
void ok_response(writer& w, std::string_view description, std::string_view type,
                 std::string_view example,
                 std::initializer_list<std::string_view> headers = {"X-Request-Id"},
                 std::string_view schema_type = "string") {
    w.key("200");
    w.begin();
    w.kv("description", description);
    w.header_refs(headers);
    w.key("content");
    w.begin();
    w.key(type);
    w.begin();
    w.typed("schema", schema_type);
    if (!example.empty()) {
        w.kv("example", example);
    }
    w.end();
    w.end();
    w.end();
}

constexpr status_row body_statuses[] = {
    {413,
     "the body is over --max-body, or a stream record over --max-record "
     "(content_too_large)"},
    {415,
     "missing or unknown Content-Type or from= (unsupported_format, not_implemented), "
     "postcard without a schema (schema_required), or an unknown Content-Encoding (the "
     "answer's Accept-Encoding lists the codings accepted)"},
};

// ---- operations ----

// "parameters" of an operation without a body: only X-Request-Id.
void request_id_parameter(writer& w) {
    w.key("parameters");
    w.begin_array();
    w.parameter_ref("X-Request-Id");
    w.end();
}

std::string operation_id(const route_info& r, std::string_view method, bool first) {
    std::string id;
    for (char c : r.path.substr(1)) {
        if (c == '.') {
            break;
        }
        id += c;
    }
    if (!first) {
        id += '_';
        for (char c : method) {
            id += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
    }
    return id;
}

void codec_operation(writer& w, bool validate) {
    w.key("parameters");
    w.begin_array();
    for (const char* name : {"X-Request-Id", "Content-Encoding", "Accept-Encoding"}) {
        w.parameter_ref(name);
    }
    option_parameters(w);
    w.end();

    w.ref("requestBody", "requestBodies", "document");

    w.key("responses");
    w.begin();
    if (validate) {
        w.key("204");
        w.begin();
        w.kv("description", "the body decodes");
        w.header_refs({"X-Request-Id", "Server-Timing"});
        w.end();
        problem_responses(w, {{400,
                               "malformed input: code is the error (unexpected_char, "
                               "invalid_number ...), with offset, line, column and path; "
                               "or a bad option (invalid_option)"},
                              body_statuses[0],
                              body_statuses[1]});
    } else {
        w.ref("200", "responses", "converted");
        problem_responses(
            w, {{400,
                 "malformed input: code is the error (unexpected_char, invalid_number ...), "
                 "with offset, line, column and path; or a bad option (invalid_option)"},
                {406,
                 "no acceptable output format (not_acceptable, unsupported_format, "
                 "not_implemented; the body lists the acceptable media types), or "
                 "postcard output without schema=NAME (schema_required), or an "
                 "Accept-Encoding that refuses identity and every coding of ours"},
                body_statuses[0],
                body_statuses[1],
                {422,
                 "the document has no form in the output format (unrepresentable); "
                 "lossy=allow takes the documented fallbacks instead"}});
    }
    w.ref("default", "responses", "problem");
    w.end();
}

void formats_operation(writer& w) {
    request_id_parameter(w);
    w.key("responses");
    w.begin();
    w.key("200");
    w.begin();
    w.kv("description",
         "the format table, in the best format of Accept (JSON without one); parameters of "
         "the Accept range (pretty=true) apply");
    w.header_refs({"Vary", "X-Request-Id"});
    w.key("content");
    w.begin();
    for (const format_info* f : usable_formats()) {
        for (std::string_view t : f->media_types) {
            w.schema_ref(t, f->id == format_id::json ? "format_table" : body_schema(*f));
        }
    }
    w.end();
    w.end();
    problem_responses(w, {{406, "no acceptable format in Accept (not_acceptable)"}});
    w.ref("default", "responses", "problem");
    w.end();
}

void simple_operation(writer& w, route id) {
    request_id_parameter(w);
    w.key("responses");
    w.begin();
    switch (id) {
        case route::metrics:
            ok_response(w, "Prometheus text exposition format 0.0.4", "text/plain", "");
            problem_responses(w, {});
            break;
        case route::healthz:
            ok_response(w, "the process is alive", "text/plain", "ok\n");
            problem_responses(w, {});
            break;
        case route::schemas:
            ok_response(
                w,
                "the schemas of --schema-dir, [{name, kind, types}]: kind postcard, "
                "protobuf or avro",
                "application/json",
                "[{\"name\":\"bench\",\"kind\":\"protobuf\",\"types\":[\"bench.Record\"]}]");
            problem_responses(w, {});
            break;
        case route::readyz:
            ok_response(w, "ready for traffic", "text/plain", "ready\n");
            problem_responses(w, {{503,
                                   "draining after SIGTERM (draining), or over "
                                   "--max-connections (over_capacity)"}});
            break;
        case route::openapi:
            ok_response(w, "this document", "application/json", "",
                        {"ETag", "Cache-Control", "X-Request-Id"}, "object");
            w.key("304");
            w.begin();
            w.kv("description", "If-None-Match names the current ETag");
            w.header_refs({"ETag"});
            w.end();
            problem_responses(w, {});
            break;
        default:
            problem_responses(w, {});
            break;
    }
    w.ref("default", "responses", "problem");
    w.end();
}

void paths(writer& w) {
    w.key("paths");
    w.begin();
    for (const route_info& r : routes()) {
        w.key(r.path);
        w.begin();
        std::string_view list = r.methods;
        bool first = true;
        while (!list.empty()) {
            auto comma = list.find(',');
            std::string_view method = list.substr(0, comma);
            list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
            while (!list.empty() && list.front() == ' ') {
                list.remove_prefix(1);
            }
            std::string lower;
            for (char c : method) {
                lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            }
            w.key(lower);
            w.begin();
            w.kv("operationId", operation_id(r, method, first));
            w.kv("summary", r.summary);
            if (method == "PUT") {
                w.kv("description", "The same as POST (curl -T uploads with PUT).");
            }
            switch (r.id) {
                case route::transcode:
                    codec_operation(w, false);
                    break;
                case route::validate:
                    codec_operation(w, true);
                    break;
                case route::formats:
                    formats_operation(w);
                    break;
                default:
                    simple_operation(w, r.id);
                    break;
            }
            w.end();
            first = false;
        }
        w.end();
    }
    w.end();
}

// ---- components ----

void header_component(writer& w, std::string_view name, std::string_view description,
                      std::string_view example) {
    w.key(name);
    w.begin();
    w.kv("description", description);
    w.typed("schema", "string");
    if (!example.empty()) {
        w.kv("example", example);
    }
    w.end();
}

// "k": {"type": "string", "enum": [every format's name]}
void format_name_schema(writer& w, std::string_view k) {
    w.key(k);
    w.begin();
    w.kv("type", "string");
    w.strings("enum", format_names(false));
    w.end();
}

void problem_schema(writer& w) {
    w.key("problem");
    w.begin();
    w.kv("type", "object");
    w.kv("description",
         "RFC 9457 problem details (server/http/problem.cpp). Where the input is at fault, "
         "format, offset, line, column and path say where.");
    w.strings("required",
              std::initializer_list<std::string_view>{"type", "title", "status", "detail", "code"});
    w.kv("additionalProperties", false);
    w.key("properties");
    w.begin();
    w.key("type");
    w.begin();
    w.kv("type", "string");
    w.kv("format", "uri");
    w.kv("description", "urn:polycodec:problem:CODE");
    w.end();
    w.property("title", "string", "the reason phrase of the status");
    w.key("status");
    w.begin();
    w.kv("type", "integer");
    w.kv("minimum", 400);
    w.kv("maximum", 599);
    w.end();
    w.typed("detail", "string");
    w.key("code");
    w.begin();
    w.kv("type", "string");
    w.kv("description",
         "a stable name: an error code of the codec, or one of the server's (not_found, "
         "method_not_allowed, not_acceptable, content_too_large, request_timeout, bad_request, "
         "header_too_large, over_capacity, over_budget, draining, internal_error)");
    std::vector<std::string_view> codes;
    for (int c = 1; c < 256; ++c) {
        std::string_view name = to_string(static_cast<errc>(c));
        if (name == "unknown") {
            break;
        }
        codes.push_back(name);
    }
    w.strings("examples", codes);
    w.end();
    format_name_schema(w, "format");
    w.property("offset", "integer", "byte offset into the input", 0);
    w.property("line", "integer", "1-based, text formats", 1);
    w.property("column", "integer", "1-based, in code points, text formats", 1);
    w.property("path", "string", "JSON Pointer (RFC 6901) of the value concerned");
    w.key("acceptable");
    w.begin();
    w.kv("type", "array");
    w.typed("items", "string");
    w.kv("description", "406: the media types the server can answer");
    w.end();
    w.end();
    w.end();
}

void format_table_schema(writer& w) {
    w.key("format_table");
    w.begin();
    w.kv("type", "array");
    w.key("items");
    w.begin();
    w.kv("type", "object");
    w.strings("required",
              std::initializer_list<std::string_view>{"id", "name", "media_types", "extensions",
                                                      "implemented", "capabilities"});
    w.kv("additionalProperties", false);
    w.key("properties");
    w.begin();
    w.key("id");
    w.begin();
    w.kv("type", "integer");
    w.kv("minimum", 1);
    w.kv("maximum", static_cast<std::int64_t>(format_count));
    w.kv("description", "the format's number on the TCP protocol");
    w.end();
    format_name_schema(w, "name");
    for (std::string_view list :
         {std::string_view("media_types"), std::string_view("extensions")}) {
        w.key(list);
        w.begin();
        w.kv("type", "array");
        w.typed("items", "string");
        w.end();
    }
    w.typed("implemented", "boolean");
    w.key("capabilities");
    w.begin();
    w.kv("type", "object");
    std::vector<std::string_view> caps;
    w.key("properties");
    w.begin();
    for (const auto& [name, value] : capability_fields(format_caps{})) {
        (void)value;
        caps.push_back(name);
        w.typed(name, "boolean");
    }
    w.end();
    w.strings("required", caps);
    w.kv("additionalProperties", false);
    w.end();
    w.end();
    w.end();
    w.end();
}

// A request header of components.parameters; `schema` adds to its {"type": "string"} schema.
template <class Schema>
void header_parameter(writer& w, std::string_view name, const std::string& description,
                      Schema schema) {
    w.key(name);
    w.begin();
    w.kv("name", name);
    w.kv("in", "header");
    w.kv("required", false);
    w.kv("description", description);
    w.key("schema");
    w.begin();
    w.kv("type", "string");
    schema();
    w.end();
    w.end();
}

void components(writer& w) {
    w.key("components");
    w.begin();

    w.key("schemas");
    w.begin();
    problem_schema(w);
    format_table_schema(w);
    w.key("json_document");
    w.begin();
    w.kv("description", "any JSON value");
    w.end();
    w.property("text_document", "string", "a document in a text format, UTF-8");
    w.key("binary_document");
    w.begin();
    w.kv("type", "string");
    w.kv("format", "binary");
    w.kv("description", "a document in a binary format");
    w.end();
    w.end();

    w.key("parameters");
    w.begin();
    option_parameter_components(w);
    header_parameter(w, "X-Request-Id",
                     "echoed when it is 1-128 visible ASCII characters, else a fresh one is "
                     "made; it also appears in the access log",
                     [&w] { w.kv("maxLength", 128); });
    // The content codings, from content_coding.hpp's table (DESIGN section 16).
    std::string codings;
    for (std::size_t i = 1; i < coding_count; ++i) {
        codings += codings.empty() ? "" : ", ";
        codings += to_string(static_cast<coding>(i));
    }
    header_parameter(w, "Content-Encoding",
                     "the codings applied to the body, decoded as it arrives (" +
                         std::string(accepted_request_codings) + "; x-gzip is gzip; at most " +
                         std::to_string(max_stacked_codings) +
                         " stacked). The limits and the memory budget apply to the decoded "
                         "size; an unknown coding is a 415, corrupt data a 400 naming the "
                         "coding and offset",
                     [&w] { w.kv("example", "gzip"); });
    header_parameter(w, "Accept-Encoding",
                     "codings the answer may use, with q-values (" + codings +
                         "; on equal q zstd > br > gzip > deflate); answers of at least "
                         "--compress-min-size bytes are compressed; identity;q=0 with no "
                         "acceptable coding is a 406",
                     [&w] { w.kv("example", "zstd, gzip;q=0.8"); });
    w.end();

    w.key("headers");
    w.begin();
    header_component(w, "X-Request-Id", "the request's id (echoed or generated)",
                     "3f2a9c0d11e84b7a");
    header_component(w, "Server-Timing", "decode and encode time in milliseconds",
                     "decode;dur=0.042, encode;dur=0.017");
    header_component(w, "Vary",
                     "the answer depends on Accept and, while compression is on, Accept-Encoding",
                     "Accept, Accept-Encoding");
    header_component(w, "Content-Encoding",
                     "the coding of a compressed answer, chosen from Accept-Encoding", "zstd");
    header_component(w, "Polycodec-Lossy",
                     "lossy=allow only: the fallbacks taken, an RFC 8941 list of kind;path",
                     "nan_to_null;path=\"/a/0\"");
    header_component(w, "Allow", "the methods of the route (405)", "POST, PUT");
    header_component(w, "Retry-After", "seconds to wait before retrying (503)", "1");
    header_component(w, "ETag",
                     "the strong entity tag of this document (weak when the answer is compressed)",
                     "");
    header_component(w, "Cache-Control", "how long a client may keep this document",
                     "public, max-age=300");
    w.end();

    w.key("requestBodies");
    w.begin();
    w.key("document");
    w.begin();
    w.kv("required", true);
    w.kv("description",
         "The document, in the format of Content-Type (or from=, which wins). Any "
         "`+json` media type reads as JSON. Parameters of the media type are options: "
         "`text/csv; header=absent`, `application/x-postcard; schema=records`.");
    document_content(w, true);
    w.strings("x-polycodec-media-type-parameters", media_type_parameters());
    w.end();
    w.end();

    w.key("responses");
    w.begin();
    w.key("converted");
    w.begin();
    w.kv("description",
         "the converted document, in the best format of Accept (or to=; no Accept or */* "
         "answers the input's format). With stream=true the answer is chunked; an error "
         "after the first chunk ends it without its last chunk.");
    w.header_refs({"Vary", "Content-Encoding", "Polycodec-Lossy", "X-Request-Id", "Server-Timing"});
    document_content(w, true);
    w.end();
    w.key("problem");
    w.begin();
    w.kv("description",
         "any other error, e.g. 404 for a path not listed here (not_found) and 405 for a method "
         "a path does not list (method_not_allowed, with Allow)");
    w.header_refs({"X-Request-Id", "Allow"});
    problem_content(w);
    w.end();
    w.end();

    w.end();
}

std::string build_document() {
    document doc;
    writer w(doc);
    w.begin();
    w.kv("openapi", "3.1.0");
    w.key("info");
    w.begin();
    w.kv("title", "polycodec");
    w.kv("version", POLYCODEC_VERSION);
    w.kv("summary", "Transcodes documents between " + std::to_string(usable_formats().size()) +
                        " serialization formats");
    w.kv("description",
         "POST a document to /transcode with its media type in Content-Type and the wanted one "
         "in Accept. Formats: " +
             join(format_names(true), ", ") +
             ". Errors are application/problem+json (RFC 9457). Generated from the server's "
             "route, format and option tables.");
    w.end();
    w.key("servers");
    w.begin_array();
    w.begin();
    w.kv("url", "/");
    w.kv("description", "the server that serves this document");
    w.end();
    w.end();
    paths(w);
    components(w);
    w.end();

    output_buffer out;
    encode_options eo;
    eo.pretty = true;
    auto r = encode(format_id::json, doc, out, eo);
    if (!r || w.status() != errc::ok) {
        // Only a bug in this file gets here; the route answers 500 rather than half a document.
        return {};
    }
    std::string text(out.data(), out.size());
    if (text.empty() || text.back() != '\n') {
        text += '\n';
    }
    return text;
}

std::string etag_of(std::string_view text) {
    // FNV-1a 64: enough to tell two builds' documents apart.
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        h = (h ^ c) * 0x100000001b3ULL;
    }
    char buf[24];
    std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(h));
    return buf;
}

struct cached {
    std::string text = build_document();
    std::string etag = etag_of(text);
};

const cached& cache() {
    static const cached c;  // thread-safe initialization (C++11 magic statics)
    return c;
}

}  // namespace

const std::string& openapi_document() { return cache().text; }

std::string_view openapi_etag() { return cache().etag; }

bool etag_matches(std::string_view if_none_match, std::string_view etag) noexcept {
    // RFC 9110 section 13.1.2: "*" or a list of entity tags, compared weakly.
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
            s.remove_prefix(1);
        }
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
            s.remove_suffix(1);
        }
        return s;
    };
    while (!if_none_match.empty()) {
        auto comma = if_none_match.find(',');
        std::string_view tag = trim(if_none_match.substr(0, comma));
        if_none_match =
            comma == std::string_view::npos ? std::string_view{} : if_none_match.substr(comma + 1);
        if (tag == "*") {
            return true;
        }
        if (tag.substr(0, 2) == "W/") {
            tag.remove_prefix(2);
        }
        if (!tag.empty() && tag == etag) {
            return true;
        }
    }
    return false;
}

void handle_openapi(const request& req, response& res) {
    const cached& c = cache();
    if (c.text.empty()) {
        res.status = 500;
        res.content_type = std::string(problem_content_type);
        res.body = problem_body(500, "internal_error", "the OpenAPI document could not be built");
        return;
    }
    res.headers.emplace_back("ETag", c.etag);
    res.headers.emplace_back("Cache-Control", "public, max-age=300");
    if (etag_matches(req.if_none_match, c.etag)) {
        res.status = 304;
        return;
    }
    res.status = 200;
    res.content_type = "application/json";
    res.body = c.text;
}

}  // namespace polycodec::server::http
