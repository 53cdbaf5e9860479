#include "polycodec/media_type.hpp"

#include <algorithm>
#include <charconv>

#include "detail/ascii.hpp"

namespace polycodec {
namespace {

using detail::iequals;
using detail::to_lower;
using detail::trim;

bool is_tchar(char c) {
    return detail::is_alpha(c) || detail::is_digit(c) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
    std::string r(s);
    for (char& c : r) {
        c = to_lower(c);
    }
    return r;
}

bool is_token(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar);
}

// Parses "; a=b; c="d e"" after a media range into `params`. False on bad syntax.
bool parse_params(std::string_view rest, std::vector<std::pair<std::string, std::string>>& params) {
    while (true) {
        rest = trim(rest);
        if (rest.empty()) {
            return true;
        }
        if (rest.front() != ';') {
            return false;
        }
        rest.remove_prefix(1);
        rest = trim(rest);
        if (rest.empty()) {
            return true;  // a trailing ';' is tolerated
        }
        auto eq = rest.find('=');
        if (eq == std::string_view::npos) {
            return false;
        }
        std::string_view name = trim(rest.substr(0, eq));
        if (!is_token(name)) {
            return false;
        }
        rest = trim(rest.substr(eq + 1));
        std::string val;
        if (!rest.empty() && rest.front() == '"') {
            std::size_t i = 1;
            bool closed = false;
            for (; i < rest.size(); ++i) {
                if (rest[i] == '\\' && i + 1 < rest.size()) {
                    val += rest[++i];
                } else if (rest[i] == '"') {
                    closed = true;
                    break;
                } else {
                    val += rest[i];
                }
            }
            if (!closed) {
                return false;
            }
            rest.remove_prefix(i + 1);
        } else {
            auto end = rest.find(';');
            std::string_view raw = trim(rest.substr(0, end));
            val = std::string(raw);
            rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
        }
        params.emplace_back(lower(name), std::move(val));
    }
}

result<bool> parse_bool(std::string_view name, std::string_view v) {
    if (v.empty() || iequals(v, "true") || v == "1" || iequals(v, "yes") || iequals(v, "on")) {
        return true;
    }
    if (iequals(v, "false") || v == "0" || iequals(v, "no") || iequals(v, "off")) {
        return false;
    }
    return fail(make_error(errc::invalid_option, std::string(name) + "=" + std::string(v) +
                                                     ": expected true or false"));
}

}  // namespace

std::optional<std::string_view> media_type::param(std::string_view name) const {
    for (const auto& [k, v] : params) {
        if (iequals(k, name)) {
            return std::string_view(v);
        }
    }
    return std::nullopt;
}

result<media_type> parse_media_type(std::string_view text) {
    text = trim(text);
    auto semi = text.find(';');
    std::string_view essence = trim(text.substr(0, semi));
    auto slash = essence.find('/');
    if (slash == std::string_view::npos) {
        return fail(make_error(errc::invalid_option,
                               "media type \"" + std::string(text) + "\" has no '/'"));
    }
    std::string_view type = essence.substr(0, slash);
    std::string_view subtype = essence.substr(slash + 1);
    if (!is_token(type) || !is_token(subtype)) {
        return fail(make_error(errc::invalid_option,
                               "media type \"" + std::string(text) + "\" is malformed"));
    }
    media_type m;
    m.type = lower(type);
    m.subtype = lower(subtype);
    if (semi != std::string_view::npos && !parse_params(text.substr(semi), m.params)) {
        return fail(make_error(errc::invalid_option, "media type \"" + std::string(text) +
                                                         "\" has malformed parameters"));
    }
    return m;
}

bool percent_decode(std::string_view in, std::string& out) {
    out.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '+') {
            out += ' ';
        } else if (c == '%') {
            if (i + 2 >= in.size()) {
                return false;
            }
            int v = 0;
            auto r = std::from_chars(in.data() + i + 1, in.data() + i + 3, v, 16);
            if (r.ec != std::errc() || r.ptr != in.data() + i + 3) {
                return false;
            }
            out += static_cast<char>(v);
            i += 2;
        } else {
            out += c;
        }
    }
    return true;
}

result<void> apply_option(std::string_view name, std::string_view value, transcode_options& opt) {
    std::string n = lower(name);
    auto flag = [&](bool& target) -> result<void> {
        auto b = parse_bool(name, value);
        if (!b) {
            return fail(b.error());
        }
        target = *b;
        return {};
    };
    opt.given.push_back(n);
    if (n == "pretty") {
        return flag(opt.encode.pretty);
    }
    if (n == "lossy") {
        if (iequals(value, "allow")) {
            opt.encode.lossy = true;
            return {};
        }
        if (iequals(value, "deny")) {
            opt.encode.lossy = false;
            return {};
        }
        return flag(opt.encode.lossy);
    }
    if (n == "canonical") {
        auto r = flag(opt.encode.canonical);
        opt.decode.canonical = opt.encode.canonical;
        return r;
    }
    if (n == "multi") {
        auto r = flag(opt.decode.multi);
        opt.encode.multi = opt.decode.multi;
        return r;
    }
    if (n == "stream") {
        return flag(opt.stream);
    }
    if (n == "seq") {
        auto r = flag(opt.decode.seq);
        opt.encode.seq = opt.decode.seq;
        return r;
    }
    if (n == "extjson") {
        if (iequals(value, "canonical")) {
            opt.decode.extjson = opt.encode.extjson = extjson_mode::canonical;
        } else if (iequals(value, "relaxed")) {
            opt.decode.extjson = opt.encode.extjson = extjson_mode::relaxed;
        } else {
            return fail(make_error(errc::invalid_option, "extjson=" + std::string(value) +
                                                             ": expected canonical or relaxed"));
        }
        return {};
    }
    if (n == "int_width") {
        if (iequals(value, "keep")) {
            opt.decode.keep_int_width = opt.encode.keep_int_width = true;
        } else if (iequals(value, "shortest")) {
            opt.decode.keep_int_width = opt.encode.keep_int_width = false;
        } else {
            return fail(make_error(errc::invalid_option, "int_width=" + std::string(value) +
                                                             ": expected keep or shortest"));
        }
        return {};
    }
    if (n == "infer") {
        return flag(opt.decode.infer);
    }
    if (n == "unflatten") {
        return flag(opt.decode.unflatten);
    }
    if (n == "header") {
        if (iequals(value, "present")) {
            opt.decode.csv_header = opt.encode.csv_header = true;
        } else if (iequals(value, "absent")) {
            opt.decode.csv_header = opt.encode.csv_header = false;
        } else {
            return fail(make_error(errc::invalid_option, "header=" + std::string(value) +
                                                             ": expected present or absent"));
        }
        return {};
    }
    if (n == "delimiter") {
        char d;
        if (value.size() == 1) {
            d = value[0];
        } else if (iequals(value, "tab") || value == "\\t") {
            d = '\t';
        } else {
            return fail(make_error(errc::invalid_option,
                                   "delimiter=" + std::string(value) +
                                       ": expected one character (or \"tab\")"));
        }
        if (d == '"' || d == '\r' || d == '\n') {
            return fail(make_error(errc::invalid_option,
                                   "delimiter cannot be a quote or a line break"));
        }
        opt.decode.csv_delimiter = opt.encode.csv_delimiter = d;
        return {};
    }
    if (n == "schema") {
        opt.decode.schema_name = opt.encode.schema_name = std::string(value);
        return {};
    }
    if (n == "from" || n == "to") {
        const format_info* f = find_format_by_name(value);
        if (f == nullptr) {
            auto mt = resolve_format_spec(value, opt);
            if (!mt) {
                return fail(mt.error());
            }
            f = *mt;
        }
        (n == "from" ? opt.from : opt.to) = f;
        return {};
    }
    if (n == "charset") {
        if (!iequals(value, "utf-8") && !iequals(value, "utf8")) {
            return fail(make_error(errc::invalid_option,
                                   "charset=" + std::string(value) + ": only utf-8 is supported"));
        }
        return {};
    }
    opt.given.pop_back();
    return fail(make_error(errc::invalid_option, "unknown option \"" + std::string(name) + "\""));
}

result<void> apply_query(std::string_view query, transcode_options& opt) {
    std::string key;
    std::string val;
    while (!query.empty()) {
        auto amp = query.find('&');
        std::string_view part = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        if (part.empty()) {
            continue;
        }
        auto eq = part.find('=');
        if (!percent_decode(part.substr(0, eq), key) ||
            !percent_decode(eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1),
                            val)) {
            return fail(make_error(errc::invalid_option,
                                   "bad percent-encoding in \"" + std::string(part) + "\""));
        }
        if (auto r = apply_option(key, val, opt); !r) {
            return r;
        }
    }
    return {};
}

result<const format_info*> resolve_format_spec(std::string_view spec, transcode_options& opt) {
    spec = trim(spec);
    auto semi = spec.find(';');
    std::string_view head = trim(spec.substr(0, semi));
    const format_info* f = nullptr;
    std::vector<std::pair<std::string, std::string>> params;
    if (head.find('/') != std::string_view::npos) {
        auto m = parse_media_type(spec);
        if (!m) {
            return fail(m.error());
        }
        f = find_format_by_media_type(m->essence());
        params = std::move(m->params);
        // Record sequences of stream mode (DESIGN section 12): RFC 7464 and RFC 8742.
        if (f == nullptr && (m->essence() == "application/json-seq" ||
                             m->essence() == "application/cbor-seq")) {
            f = find_format(m->essence() == "application/json-seq" ? format_id::json
                                                                   : format_id::cbor);
            opt.decode.seq = opt.encode.seq = true;
        }
        if (f != nullptr && m->essence() == "text/tab-separated-values") {
            opt.decode.csv_tab = opt.encode.csv_tab = true;
        }
    } else {
        f = find_format_by_name(head);
        if (f == nullptr) {
            f = find_format_by_extension(head);
        }
        if (semi != std::string_view::npos && !parse_params(spec.substr(semi), params)) {
            return fail(make_error(errc::invalid_option,
                                   "malformed parameters in \"" + std::string(spec) + "\""));
        }
        if (f != nullptr && (iequals(head, "tsv") || iequals(head, ".tsv"))) {
            opt.decode.csv_tab = opt.encode.csv_tab = true;
        }
    }
    if (f == nullptr) {
        return fail(make_error(errc::unsupported_format,
                               "unknown format \"" + std::string(head) + "\""));
    }
    for (const auto& [k, v] : params) {
        if (auto r = apply_option(k, v, opt); !r) {
            return fail(r.error());
        }
    }
    return f;
}

std::vector<accept_range> parse_accept(std::string_view header) {
    std::vector<accept_range> out;
    while (!header.empty()) {
        // Split on commas outside quotes.
        std::size_t i = 0;
        bool quoted = false;
        for (; i < header.size(); ++i) {
            if (header[i] == '"') {
                quoted = !quoted;
            } else if (header[i] == ',' && !quoted) {
                break;
            }
        }
        std::string_view item = trim(header.substr(0, i));
        header = i < header.size() ? header.substr(i + 1) : std::string_view{};
        if (item.empty()) {
            continue;
        }
        auto semi = item.find(';');
        std::string_view essence = trim(item.substr(0, semi));
        auto slash = essence.find('/');
        if (slash == std::string_view::npos) {
            continue;
        }
        std::string_view t = essence.substr(0, slash);
        std::string_view s = essence.substr(slash + 1);
        if (!is_token(t) || !is_token(s) || (t == "*" && s != "*")) {
            continue;
        }
        accept_range r;
        r.type = lower(t);
        r.subtype = lower(s);
        std::vector<std::pair<std::string, std::string>> params;
        if (semi != std::string_view::npos && !parse_params(item.substr(semi), params)) {
            continue;
        }
        bool bad = false;
        for (auto& [k, v] : params) {
            if (k == "q") {
                double q = 0;
                auto res = std::from_chars(v.data(), v.data() + v.size(), q);
                if (res.ec != std::errc() || res.ptr != v.data() + v.size() || q < 0 || q > 1) {
                    bad = true;
                }
                r.q = q;
                break;  // parameters after q are accept-extensions
            }
            r.params.emplace_back(k, v);
        }
        if (!bad) {
            out.push_back(std::move(r));
        }
    }
    return out;
}

negotiation negotiate(std::string_view accept, const format_info& fallback,
                      bool (*usable)(const format_info&)) {
    negotiation result;
    auto ok = [&](const format_info& f) { return usable == nullptr || usable(f); };
    if (trim(accept).empty()) {
        if (ok(fallback)) {
            result.format = &fallback;
        }
        return result;
    }
    std::vector<accept_range> ranges = parse_accept(accept);
    // For each format: the q of the most specific range matching any of its media types.
    double best_q = 0;
    int best_spec = -1;
    const format_info* best = nullptr;
    std::vector<std::pair<std::string, std::string>> best_params;
    for (const format_info& f : formats()) {
        if (!ok(f)) {
            continue;
        }
        int f_spec = -1;
        double f_q = 0;
        std::vector<std::pair<std::string, std::string>> f_params;
        for (std::string_view mt : f.media_types) {
            auto slash = mt.find('/');
            std::string_view t = mt.substr(0, slash);
            std::string_view s = mt.substr(slash + 1);
            for (const accept_range& r : ranges) {
                int spec;
                if (r.type == "*") {
                    spec = 0;
                } else if (r.type != t) {
                    continue;
                } else if (r.subtype == "*") {
                    spec = 1;
                } else if (r.subtype == s ||
                           (f.id == format_id::json && r.subtype.size() > 5 &&
                            r.subtype.compare(r.subtype.size() - 5, 5, "+json") == 0)) {
                    spec = r.params.empty() ? 2 : 3;
                } else {
                    continue;
                }
                if (spec > f_spec) {
                    f_spec = spec;
                    f_q = r.q;
                    f_params = r.params;
                }
            }
        }
        if (f_spec < 0 || f_q <= 0) {
            continue;
        }
        // Wildcards prefer the input's format: "*/*" alone answers in the format that came in.
        bool is_fallback = &f == &fallback;
        if (f_q > best_q || (f_q == best_q && f_spec > best_spec) ||
            (f_q == best_q && f_spec == best_spec && is_fallback)) {
            best_q = f_q;
            best_spec = f_spec;
            best = &f;
            best_params = std::move(f_params);
        }
    }
    result.format = best;
    result.params = std::move(best_params);
    return result;
}

}  // namespace polycodec
