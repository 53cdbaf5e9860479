// Avro schema declarations (specification "Schema Declaration", "Parsing Canonical Form for
// Schemas", "Schema Fingerprints"). The JSON is read by the codec's own JSON decoder; the
// errors name the JSON Pointer of the offending part and, found again in the text, its line.
#include <cstdio>
#include <set>
#include <string>

#include "schema.hpp"
#include "detail/describe.hpp"
#include "detail/json_skip.hpp"
#include "detail/locate.hpp"
#include "detail/schema_json.hpp"
#include "detail/try.hpp"
#include "polycodec/codec.hpp"

namespace polycodec::avro {
namespace {

constexpr std::uint32_t max_schema_depth = 128;
constexpr std::size_t max_schema_nodes = 1 << 16;

// ---- JSON Pointer -> offset in the text, for the line of an error ----

std::size_t skip_ws(std::string_view t, std::size_t p) {
    while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r')) {
        ++p;
    }
    return p;
}
using detail::json_skip::skip_string;
using detail::json_skip::skip_value;
std::string unescape_key(std::string_view raw) {
    std::string s;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\\' && i + 1 < raw.size()) {
            s.push_back(raw[++i]);
        } else {
            s.push_back(raw[i]);
        }
    }
    return s;
}

// Where the value at `pointer` ("/fields/2/type") starts; the nearest found ancestor when a
// step cannot be followed.
std::size_t offset_of(std::string_view t, std::string_view pointer) {
    std::size_t p = skip_ws(t, 0);
    while (!pointer.empty() && pointer[0] == '/') {
        pointer.remove_prefix(1);
        auto slash = pointer.find('/');
        std::string step(pointer.substr(0, slash));
        pointer = slash == std::string_view::npos ? std::string_view{} : pointer.substr(slash);
        std::string key;
        for (std::size_t i = 0; i < step.size(); ++i) {
            if (step[i] == '~' && i + 1 < step.size()) {
                key.push_back(step[++i] == '1' ? '/' : '~');
            } else {
                key.push_back(step[i]);
            }
        }
        if (p >= t.size()) {
            return p;
        }
        std::size_t start = p;
        if (t[p] == '{') {
            p = skip_ws(t, p + 1);
            bool found = false;
            while (p < t.size() && t[p] == '"') {
                std::size_t ks = p;
                p = skip_string(t, p);
                std::string k = unescape_key(t.substr(ks + 1, p - ks - 2));
                p = skip_ws(t, p);
                if (p < t.size() && t[p] == ':') {
                    ++p;
                }
                p = skip_ws(t, p);
                if (k == key) {
                    found = true;
                    break;
                }
                p = skip_ws(t, skip_value(t, p));
                if (p < t.size() && t[p] == ',') {
                    p = skip_ws(t, p + 1);
                }
            }
            if (!found) {
                return start;
            }
        } else if (t[p] == '[') {
            std::size_t idx = 0;
            for (char c : key) {
                idx = idx * 10 + static_cast<std::size_t>(c - '0');
            }
            p = skip_ws(t, p + 1);
            for (std::size_t i = 0; i < idx && p < t.size() && t[p] != ']'; ++i) {
                p = skip_ws(t, skip_value(t, p));
                if (p < t.size() && t[p] == ',') {
                    p = skip_ws(t, p + 1);
                }
            }
            if (p >= t.size() || t[p] == ']') {
                return start;
            }
        } else {
            return start;
        }
    }
    return p;
}

bool is_primitive(std::string_view n, type_kind& k) {
    static constexpr std::pair<std::string_view, type_kind> prims[] = {
        {"null", type_kind::null_},     {"boolean", type_kind::boolean},
        {"int", type_kind::int_},       {"long", type_kind::long_},
        {"float", type_kind::float_},   {"double", type_kind::double_},
        {"bytes", type_kind::bytes},    {"string", type_kind::string},
    };
    for (const auto& [name, kind] : prims) {
        if (name == n) {
            k = kind;
            return true;
        }
    }
    return false;
}

bool valid_name(std::string_view n) {
    if (n.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < n.size(); ++i) {
        char c = n[i];
        bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9')) {
            return false;
        }
    }
    return true;
}
bool valid_fullname(std::string_view n) {
    while (true) {
        auto dot = n.find('.');
        if (!valid_name(n.substr(0, dot))) {
            return false;
        }
        if (dot == std::string_view::npos) {
            return true;
        }
        n.remove_prefix(dot + 1);
    }
}

class schema_parser {
public:
    explicit schema_parser(schema& s) : s_(s) {}

    result<std::uint32_t> parse(value v, const std::string& path, const std::string& ns,
                                std::uint32_t depth) {
        if (depth > max_schema_depth) {
            return bad(path, "schema nested deeper than " + std::to_string(max_schema_depth));
        }
        switch (v.kind()) {
            case kind::string:
                return reference(v.get_string(), path, ns);
            case kind::array:
                return union_of(v, path, ns, depth);
            case kind::map:
                return object(v, path, ns, depth);
            default:
                return bad(path, "expected a type name, a schema object or a union array");
        }
    }

    tl::unexpected<error> bad(const std::string& path, std::string what) const {
        error e = make_error(errc::invalid_option,
                             "avro schema at " + (path.empty() ? std::string("/") : path) + ": " +
                                 what);
        e.path = path;
        return fail(std::move(e));
    }

private:
    result<std::uint32_t> new_node(type_kind k) {
        if (s_.nodes.size() >= max_schema_nodes) {
            return fail(make_error(errc::invalid_option, "avro schema has too many types"));
        }
        s_.nodes.emplace_back();
        s_.nodes.back().kind = k;
        return static_cast<std::uint32_t>(s_.nodes.size() - 1);
    }
    result<std::uint32_t> primitive(type_kind k) {
        // One node per primitive kind without attributes.
        auto i = static_cast<std::size_t>(k);
        if (prim_[i] == no_node) {
            auto n = new_node(k);
            if (!n) {
                return n;
            }
            prim_[i] = *n;
        }
        return prim_[i];
    }

    static std::string qualify(std::string_view name, const std::string& ns) {
        if (name.find('.') != std::string_view::npos || ns.empty()) {
            return std::string(name);
        }
        return ns + "." + std::string(name);
    }

    result<std::uint32_t> reference(std::string_view name, const std::string& path,
                                    const std::string& ns) {
        type_kind k;
        if (is_primitive(name, k)) {
            return primitive(k);
        }
        auto it = s_.named.find(qualify(name, ns));
        if (it == s_.named.end()) {
            it = s_.named.find(name);
        }
        if (it == s_.named.end()) {
            return bad(path, "unknown type \"" + std::string(name) + "\"");
        }
        return it->second;
    }

    result<std::uint32_t> union_of(value v, const std::string& path, const std::string& ns,
                                   std::uint32_t depth) {
        auto n = new_node(type_kind::union_);
        if (!n) {
            return n;
        }
        std::size_t i = 0;
        std::set<std::string> seen;
        for (value b : v.items()) {
            std::string p = path + "/" + std::to_string(i++);
            auto t = parse(b, p, ns, depth + 1);
            if (!t) {
                return t;
            }
            const node& bn = s_.nodes[*t];
            if (bn.kind == type_kind::union_) {
                return bad(p, "a union may not immediately contain another union");
            }
            std::string key = bn.name.empty() ? std::to_string(static_cast<int>(bn.kind)) : bn.name;
            if (!seen.insert(key).second) {
                return bad(p, "a union may not contain two schemas of the same type or name");
            }
            s_.nodes[*n].branches.push_back(*t);
        }
        return n;  // an empty union is a schema no datum matches
    }

    result<std::string> string_member(value v, std::string_view key, const std::string& path,
                                      bool required) {
        value m = v.find(key);
        if (m.doc() == nullptr) {
            if (required) {
                return bad(path, "expected a \"" + std::string(key) + "\" member");
            }
            return std::string();
        }
        if (m.kind() != kind::string) {
            return bad(path + "/" + std::string(key), "expected a string");
        }
        return std::string(m.get_string());
    }

    result<std::vector<std::string>> aliases(value v, const std::string& path,
                                             const std::string& ns, bool qualify_names) {
        std::vector<std::string> out;
        value a = v.find("aliases");
        if (a.doc() == nullptr) {
            return out;
        }
        if (a.kind() != kind::array) {
            return bad(path + "/aliases", "expected an array of names");
        }
        for (value x : a.items()) {
            if (x.kind() != kind::string) {
                return bad(path + "/aliases", "expected an array of names");
            }
            out.push_back(qualify_names ? qualify(x.get_string(), ns) : std::string(x.get_string()));
        }
        return out;
    }

    // Registers a record, enum or fixed under its full name; returns its namespace.
    result<std::string> define(value v, std::uint32_t n, const std::string& path,
                               const std::string& ns) {
        auto name = string_member(v, "name", path, true);
        if (!name) {
            return fail(name.error());
        }
        auto space = string_member(v, "namespace", path, false);
        if (!space) {
            return fail(space.error());
        }
        std::string full;
        if (name->find('.') != std::string::npos) {
            full = *name;
        } else if (v.find("namespace").doc() != nullptr) {
            full = space->empty() ? *name : *space + "." + *name;
        } else {
            full = qualify(*name, ns);
        }
        if (!valid_fullname(full)) {
            return bad(path + "/name", "\"" + full + "\" is not a valid Avro name");
        }
        type_kind k;
        if (is_primitive(full, k)) {
            return bad(path + "/name", "a primitive type name cannot be redefined");
        }
        if (!s_.named.emplace(full, n).second) {
            return bad(path + "/name", "type \"" + full + "\" is defined twice");
        }
        s_.named_order.push_back(full);
        s_.nodes[n].name = full;
        auto dot = full.rfind('.');
        std::string inner_ns = dot == std::string::npos ? std::string() : full.substr(0, dot);
        auto al = aliases(v, path, inner_ns, true);
        if (!al) {
            return fail(al.error());
        }
        s_.nodes[n].aliases = std::move(*al);
        if (value d = v.find("doc"); d.doc() != nullptr && d.kind() == kind::string) {
            s_.nodes[n].doc = std::string(d.get_string());
        }
        return inner_ns;
    }

    // A new record, enum or fixed node (its index in n), registered under its full name
    // (define); returns its namespace.
    result<std::string> named_node(type_kind k, value v, const std::string& path,
                                   const std::string& ns, std::uint32_t& n) {
        POLYCODEC_TRY_ASSIGN(r, new_node(k));
        n = r;
        return define(v, n, path, ns);
    }

    // The member `key` of v, which must be an array (of `key`: fields, symbols).
    result<value> array_member(value v, std::string_view key, const std::string& path) const {
        value a = v.find(key);
        if (a.doc() == nullptr || a.kind() != kind::array) {
            return bad(path + "/" + std::string(key), "expected an array of " + std::string(key));
        }
        return a;
    }

    result<std::uint32_t> object(value v, const std::string& path, const std::string& ns,
                                 std::uint32_t depth) {
        value t = v.find("type");
        if (t.doc() == nullptr) {
            return bad(path, "expected a \"type\" member");
        }
        if (t.kind() != kind::string) {
            // {"type": {"type": ...}} and {"type": [...]}: the inner schema itself.
            return parse(t, path + "/type", ns, depth + 1);
        }
        std::string_view tn = t.get_string();
        type_kind k;
        std::uint32_t n;
        if (is_primitive(tn, k)) {
            value lt = v.find("logicalType");
            if (lt.doc() == nullptr) {
                return primitive(k);
            }
            auto r = new_node(k);
            if (!r) {
                return r;
            }
            n = *r;
        } else if (tn == "record" || tn == "error") {
            POLYCODEC_TRY_ASSIGN(inner, named_node(type_kind::record, v, path, ns, n));
            POLYCODEC_TRY_ASSIGN(fs, array_member(v, "fields", path));
            std::size_t i = 0;
            std::set<std::string, std::less<>> names;
            for (value f : fs.items()) {
                std::string fp = path + "/fields/" + std::to_string(i++);
                if (f.kind() != kind::map) {
                    return bad(fp, "expected a field object");
                }
                auto fname = string_member(f, "name", fp, true);
                if (!fname) {
                    return fail(fname.error());
                }
                if (!valid_name(*fname)) {
                    return bad(fp + "/name", "\"" + *fname + "\" is not a valid Avro name");
                }
                if (!names.insert(*fname).second) {
                    return bad(fp + "/name", "field \"" + *fname + "\" appears twice");
                }
                value ft = f.find("type");
                if (ft.doc() == nullptr) {
                    return bad(fp, "expected a \"type\" member");
                }
                auto ftype = parse(ft, fp + "/type", inner, depth + 1);
                if (!ftype) {
                    return ftype;
                }
                field fd;
                fd.name = std::move(*fname);
                fd.type = *ftype;
                auto fal = aliases(f, fp, inner, false);
                if (!fal) {
                    return fail(fal.error());
                }
                fd.aliases = std::move(*fal);
                if (value o = f.find("order"); o.doc() != nullptr && o.kind() == kind::string) {
                    std::string_view ov = o.get_string();
                    if (ov != "ascending" && ov != "descending" && ov != "ignore") {
                        return bad(fp + "/order", "expected ascending, descending or ignore");
                    }
                    if (ov != "ascending") {
                        fd.order = std::string(ov);
                    }
                }
                if (value d = f.find("default"); d.doc() != nullptr) {
                    fd.has_default = true;
                    builder b(fd.default_value);
                    b.reset();
                    b.add_copy(d);
                    output_buffer out;
                    if (!encode(format_id::json, fd.default_value, out)) {
                        return bad(fp + "/default", "the default is not representable");
                    }
                    fd.default_json = out.str();
                }
                s_.nodes[n].fields.push_back(std::move(fd));
            }
            return n;
        } else if (tn == "enum") {
            POLYCODEC_TRY(named_node(type_kind::enum_, v, path, ns, n));
            POLYCODEC_TRY_ASSIGN(sy, array_member(v, "symbols", path));
            std::set<std::string, std::less<>> seen;
            std::size_t i = 0;
            for (value x : sy.items()) {
                std::string sp = path + "/symbols/" + std::to_string(i++);
                if (x.kind() != kind::string || !valid_name(x.get_string())) {
                    return bad(sp, "expected a symbol (a valid Avro name)");
                }
                if (!seen.emplace(x.get_string()).second) {
                    return bad(sp, "symbol \"" + std::string(x.get_string()) + "\" appears twice");
                }
                s_.nodes[n].symbols.emplace_back(x.get_string());
            }
            if (value d = v.find("default"); d.doc() != nullptr) {
                bool found = false;
                if (d.kind() == kind::string) {
                    for (std::size_t j = 0; j < s_.nodes[n].symbols.size(); ++j) {
                        if (s_.nodes[n].symbols[j] == d.get_string()) {
                            s_.nodes[n].has_enum_default = true;
                            s_.nodes[n].enum_default = static_cast<std::uint32_t>(j);
                            found = true;
                        }
                    }
                }
                if (!found) {
                    return bad(path + "/default", "the enum default must be one of its symbols");
                }
            }
        } else if (tn == "array" || tn == "map") {
            auto r = new_node(tn == "array" ? type_kind::array : type_kind::map);
            if (!r) {
                return r;
            }
            n = *r;
            std::string_view key = tn == "array" ? "items" : "values";
            value it = v.find(key);
            if (it.doc() == nullptr) {
                return bad(path, "expected an \"" + std::string(key) + "\" member");
            }
            auto items = parse(it, path + "/" + std::string(key), ns, depth + 1);
            if (!items) {
                return items;
            }
            s_.nodes[n].items = *items;
        } else if (tn == "fixed") {
            POLYCODEC_TRY(named_node(type_kind::fixed, v, path, ns, n));
            value sz = v.find("size");
            if (sz.doc() == nullptr || sz.kind() != kind::int64 || sz.get_int() < 0 ||
                sz.get_int() > (std::int64_t{1} << 31)) {
                return bad(path + "/size", "expected the size as a non-negative integer");
            }
            s_.nodes[n].size = static_cast<std::uint64_t>(sz.get_int());
        } else {
            return reference(tn, path + "/type", ns);
        }
        return logical_type(v, n, path);
    }

    // Specification "Logical Types": an unknown or invalid logical type is ignored (the
    // underlying type is used), but kept for the schema's JSON.
    result<std::uint32_t> logical_type(value v, std::uint32_t n, const std::string& path) {
        value lt = v.find("logicalType");
        if (lt.doc() == nullptr || lt.kind() != kind::string) {
            return n;
        }
        node& nd = s_.nodes[n];
        std::string_view l = lt.get_string();
        nd.logical_name = std::string(l);
        type_kind k = nd.kind;
        static constexpr struct {
            std::string_view name;
            type_kind kind;
            logical lt;
        } simple[] = {
            {"uuid", type_kind::string, logical::uuid},
            {"date", type_kind::int_, logical::date},
            {"time-millis", type_kind::int_, logical::time_millis},
            {"time-micros", type_kind::long_, logical::time_micros},
            {"timestamp-millis", type_kind::long_, logical::timestamp_millis},
            {"timestamp-micros", type_kind::long_, logical::timestamp_micros},
            {"timestamp-nanos", type_kind::long_, logical::timestamp_nanos},
            {"local-timestamp-millis", type_kind::long_, logical::local_timestamp_millis},
            {"local-timestamp-micros", type_kind::long_, logical::local_timestamp_micros},
            {"local-timestamp-nanos", type_kind::long_, logical::local_timestamp_nanos},
        };
        for (const auto& e : simple) {
            if (e.name == l && e.kind == k) {
                nd.lt = e.lt;
            }
        }
        if (l == "uuid" && k == type_kind::fixed && nd.size == 16) {
            nd.lt = logical::uuid;
        }
        if (l == "duration" && k == type_kind::fixed && nd.size == 12) {
            nd.lt = logical::duration;
        }
        if (l == "decimal" && (k == type_kind::bytes || k == type_kind::fixed)) {
            value p = v.find("precision");
            value sc = v.find("scale");
            std::int64_t prec = p.doc() != nullptr && p.kind() == kind::int64 ? p.get_int() : 0;
            std::int64_t scale = 0;
            bool ok = prec > 0 && prec <= 100000;
            if (sc.doc() != nullptr) {
                ok = ok && sc.kind() == kind::int64 && sc.get_int() >= 0 && sc.get_int() <= prec;
                scale = ok ? sc.get_int() : 0;
            }
            if (ok && k == type_kind::fixed) {
                // floor(log10(2^(8n-1) - 1)) digits fit n bytes.
                double digits = (8.0 * static_cast<double>(nd.size) - 1) * 0.30102999566398;
                ok = nd.size > 0 && static_cast<double>(prec) <= digits;
            }
            if (ok) {
                nd.lt = logical::decimal;
                nd.precision = static_cast<std::uint32_t>(prec);
                nd.scale = static_cast<std::uint32_t>(scale);
            }
        }
        (void)path;
        return n;
    }

    schema& s_;
    std::uint32_t prim_[8] = {no_node, no_node, no_node, no_node,
                              no_node, no_node, no_node, no_node};
};

// ---- canonical form and the full JSON ----

void json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out.push_back(c);
        }
    }
    out.push_back('"');
}

// `head` (the member's name and the opening bracket), then the strings `items` as a JSON array.
void json_string_array(std::string& out, std::string_view head,
                       const std::vector<std::string>& items) {
    out += head;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i != 0) {
            out.push_back(',');
        }
        json_string(out, items[i]);
    }
    out += "]";
}

constexpr std::string_view kind_names[] = {"null",  "boolean", "int",    "long",  "float",
                                           "double", "bytes",  "string", "record", "enum",
                                           "array",  "map",    "union",  "fixed"};

void write_json(const schema& s, std::uint32_t n, bool full, std::set<std::uint32_t>& seen,
                std::string& out) {
    const node& nd = s.nodes[n];
    auto kn = kind_names[static_cast<std::size_t>(nd.kind)];
    bool named = nd.kind == type_kind::record || nd.kind == type_kind::enum_ ||
                 nd.kind == type_kind::fixed;
    if (named && !seen.insert(n).second) {
        json_string(out, nd.name);
        return;
    }
    bool has_logical = full && !nd.logical_name.empty();
    switch (nd.kind) {
        case type_kind::union_: {
            out.push_back('[');
            for (std::size_t i = 0; i < nd.branches.size(); ++i) {
                if (i != 0) {
                    out.push_back(',');
                }
                write_json(s, nd.branches[i], full, seen, out);
            }
            out.push_back(']');
            return;
        }
        case type_kind::record:
        case type_kind::enum_:
        case type_kind::fixed:
        case type_kind::array:
        case type_kind::map:
            break;
        default:
            if (!has_logical) {
                json_string(out, kn);
                return;
            }
    }
    out += "{";
    if (named) {
        out += "\"name\":";
        json_string(out, nd.name);
        out += ",";
    }
    out += "\"type\":";
    json_string(out, kn);
    if (nd.kind == type_kind::record) {
        out += ",\"fields\":[";
        for (std::size_t i = 0; i < nd.fields.size(); ++i) {
            const field& f = nd.fields[i];
            out += i == 0 ? "{\"name\":" : ",{\"name\":";
            json_string(out, f.name);
            out += ",\"type\":";
            write_json(s, f.type, full, seen, out);
            if (full && f.has_default) {
                out += ",\"default\":";
                out += f.default_json;
            }
            if (full && !f.aliases.empty()) {
                json_string_array(out, ",\"aliases\":[", f.aliases);
            }
            if (full && !f.order.empty()) {
                out += ",\"order\":";
                json_string(out, f.order);
            }
            out += "}";
        }
        out += "]";
    } else if (nd.kind == type_kind::enum_) {
        json_string_array(out, ",\"symbols\":[", nd.symbols);
        if (full && nd.has_enum_default) {
            out += ",\"default\":";
            json_string(out, nd.symbols[nd.enum_default]);
        }
    } else if (nd.kind == type_kind::array) {
        out += ",\"items\":";
        write_json(s, nd.items, full, seen, out);
    } else if (nd.kind == type_kind::map) {
        out += ",\"values\":";
        write_json(s, nd.items, full, seen, out);
    } else if (nd.kind == type_kind::fixed) {
        out += ",\"size\":" + std::to_string(nd.size);
    }
    if (full && named && !nd.aliases.empty()) {
        json_string_array(out, ",\"aliases\":[", nd.aliases);
    }
    if (has_logical) {
        out += ",\"logicalType\":";
        json_string(out, nd.logical_name);
        if (nd.lt == logical::decimal) {
            out += ",\"precision\":" + std::to_string(nd.precision) +
                   ",\"scale\":" + std::to_string(nd.scale);
        }
    }
    out += "}";
}

// Lower bounds of each type's datum size, for counts checked before allocation. A recursive
// reference counts 0 (still a lower bound).
std::uint64_t min_size(schema& s, std::uint32_t n, std::vector<char>& state) {
    if (state[n] == 2) {
        return s.nodes[n].min_size;
    }
    if (state[n] == 1) {
        return 0;
    }
    state[n] = 1;
    node& nd = s.nodes[n];
    std::uint64_t m = 0;
    switch (nd.kind) {
        case type_kind::null_:
            m = 0;
            break;
        case type_kind::float_:
            m = 4;
            break;
        case type_kind::double_:
            m = 8;
            break;
        case type_kind::fixed:
            m = nd.size;
            break;
        case type_kind::record:
            for (const field& f : nd.fields) {
                m += min_size(s, f.type, state);
            }
            break;
        case type_kind::union_: {
            std::uint64_t least = nd.branches.empty() ? 0 : ~std::uint64_t{0};
            for (std::uint32_t b : nd.branches) {
                least = std::min(least, min_size(s, b, state));
            }
            m = 1 + least;
            break;
        }
        case type_kind::array:
        case type_kind::map:
            min_size(s, nd.items, state);
            m = 1;
            break;
        default:
            m = 1;
    }
    nd.min_size = m;
    state[n] = 2;
    return m;
}

}  // namespace

std::uint64_t crc64_avro(std::string_view text) noexcept {
    static const auto table = [] {
        constexpr std::uint64_t empty = 0xc15d213aa4d7a795ull;
        std::array<std::uint64_t, 256> t{};
        for (std::uint64_t i = 0; i < 256; ++i) {
            std::uint64_t fp = i;
            for (int j = 0; j < 8; ++j) {
                fp = (fp >> 1) ^ (empty & (0 - (fp & 1)));
            }
            t[i] = fp;
        }
        return t;
    }();
    std::uint64_t fp = 0xc15d213aa4d7a795ull;
    for (char c : text) {
        fp = (fp >> 8) ^ table[(fp ^ static_cast<unsigned char>(c)) & 0xff];
    }
    return fp;
}

std::string schema_json(const schema& s, std::uint32_t n) {
    std::set<std::uint32_t> seen;
    std::string out;
    write_json(s, n, true, seen, out);
    return out;
}

std::string canonical_json(const schema& s, std::uint32_t n) {
    std::set<std::uint32_t> seen;
    std::string out;
    write_json(s, n, false, seen, out);
    return out;
}

std::uint32_t find_type(const schema& s, std::string_view type_name) {
    if (type_name.empty()) {
        return s.root;
    }
    if (auto it = s.named.find(type_name); it != s.named.end()) {
        return it->second;
    }
    std::uint32_t found = no_node;
    for (const auto& [full, n] : s.named) {
        auto dot = full.rfind('.');
        if (dot != std::string::npos && std::string_view(full).substr(dot + 1) == type_name) {
            if (found != no_node) {
                return no_node;  // ambiguous
            }
            found = n;
        }
    }
    return found;
}

result<std::shared_ptr<const schema>> parse_schema(std::string_view json_text) {
    document doc;
    POLYCODEC_TRY(detail::decode_schema_json(json_text, doc, "avro"));
    auto s = std::make_shared<schema>();
    schema_parser p(*s);
    auto root = p.parse(doc.root(), "", "", 0);
    if (!root) {
        error e = root.error();
        auto at = offset_of(json_text, e.path);
        auto pos = detail::locate(json_text, at);
        e.offset = at;
        e.has_offset = true;
        e.line = pos.line;
        e.column = pos.column;
        e.message = "line " + std::to_string(pos.line) + ": " + e.message;
        return fail(std::move(e));
    }
    s->root = *root;
    std::vector<char> state(s->nodes.size(), 0);
    for (std::uint32_t i = 0; i < s->nodes.size(); ++i) {
        min_size(*s, i, state);
    }
    s->canonical = canonical_json(*s, s->root);
    s->fingerprint = crc64_avro(s->canonical);
    s->text = schema_json(*s, s->root);
    return std::shared_ptr<const schema>(std::move(s));
}

std::vector<std::string> type_names(const schema& s) { return s.named_order; }

std::string_view canonical_form(const schema& s) { return s.canonical; }

std::uint64_t fingerprint(const schema& s) { return s.fingerprint; }

}  // namespace polycodec::avro
