// INI as Python's configparser reads it, with dotted section names nesting. An INI file
// decodes to a map:
//   title = x            keys before any section sit at the top level
//   [owner]              a section is a map;  [a.b] is {"a": {"b": {...}}}
//   name = Tom           `key = value` or `key: value`, both sides trimmed
//   ; comment            full-line comments start with ';' or '#' (no inline comments)
//   q = "  x "           one pair of matching quotes around a value is removed
// Duplicate keys and sections are errors (configparser's strict mode). With infer=true unquoted
// values are typed by detail/infer.hpp and an empty value is null. The writer quotes every
// string an inferring reader would read as something else, so --infer reads back every scalar.
// docs/formats/ini.md has every rule.
#include <cstdint>
#include <string>
#include <vector>

#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/utf8.hpp"
#include "detail/json_text.hpp"
#include "detail/infer.hpp"
#include "detail/try.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

bool space(char c) { return c == ' ' || c == '\t'; }

constexpr std::uint32_t no_node = UINT32_MAX;

// Children form an intrusive list (first_child/last_child/next_sibling), so a node owns no
// allocation: the decoder reuses one per-thread vector of nodes and one lookup table.
struct ini_node {
    bool section = false;   // a map (section or implicit parent of a dotted section)
    bool declared = false;  // its [header] was seen
    bool quoted = false;
    std::uint32_t parent = 0;
    std::uint32_t hash = 0;
    std::uint32_t first_child = no_node, last_child = no_node, next_sibling = no_node;
    std::size_t name_off = 0, name_len = 0;
    std::size_t val_off = 0, val_len = 0;
};

// What one node costs against the size budget. It was sizeof(ini_node) + 64 when a node held
// a std::vector of children (64 bytes on LP64); kept so the size_exceeded threshold is the same.
constexpr std::size_t node_budget_cost = 64 + 64;

// Scratch buffers above this many bytes are released after a call.
constexpr std::size_t scratch_keep_bytes = std::size_t{16} << 20;

std::uint32_t name_hash(std::uint32_t parent, std::string_view name) {
    std::uint64_t h = 0xcbf29ce484222325ull ^ (parent * 0x9E3779B97F4A7C15ull);
    for (char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    }
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

struct ini_scratch {
    std::vector<ini_node> nodes;
    std::vector<std::uint32_t> slots;  // open addressing: node id, 0 = empty (root never listed)
    std::size_t used = 0;
};

class ini_reader {
public:
    ini_reader(std::string_view in, builder& b, bool infer) : in_(in), b_(b), infer_(infer) {}
    ~ini_reader() {
        if (nodes_.capacity() * sizeof(ini_node) > scratch_keep_bytes) {
            std::vector<ini_node>().swap(nodes_);
        }
        if (scratch_.slots.capacity() * sizeof(std::uint32_t) > scratch_keep_bytes) {
            std::vector<std::uint32_t>().swap(scratch_.slots);
        }
    }
    ini_reader(const ini_reader&) = delete;
    ini_reader& operator=(const ini_reader&) = delete;

    result<void> run() {
        std::size_t valid = utf8_valid_prefix(in_);
        if (valid != in_.size()) {
            return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
        }
        std::size_t pos = in_.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
        nodes_.push_back({});
        nodes_[0].section = true;
        while (pos < in_.size()) {
            // Universal newlines, as Python's configparser reads: LF, CRLF or a lone CR.
            std::size_t nl = in_.find_first_of("\r\n", pos);
            std::size_t end = nl == std::string_view::npos ? in_.size() : nl;
            POLYCODEC_TRY(line(pos, end));
            pos = end + (in_.substr(end, 2) == "\r\n" ? 2 : 1);
        }
        return emit(0);
    }

private:
    result<void> line(std::size_t p, std::size_t end) {
        while (p < end && space(in_[p])) {
            ++p;
        }
        while (end > p && space(in_[end - 1])) {
            --end;
        }
        if (p == end || in_[p] == ';' || in_[p] == '#') {
            return {};
        }
        // The tree costs more per line than the tape: it counts against the size budget.
        if (nodes_.size() * node_budget_cost > b_.limits().max_bytes) {
            return fail(make_error(errc::size_exceeded, p, "document larger than its size budget"));
        }
        if (in_[p] == '[') {
            return header(p, end);
        }
        std::size_t d = p;
        while (d < end && in_[d] != '=' && in_[d] != ':') {
            ++d;
        }
        if (d == end) {
            return fail(make_error(errc::unexpected_char, end,
                                   "expected '=' or ':' after the key, saw end of line"));
        }
        std::size_t ke = d;
        while (ke > p && space(in_[ke - 1])) {
            --ke;
        }
        if (ke == p) {
            return fail(make_error(errc::unexpected_char, p, "expected a key before '" +
                                                                 std::string(1, in_[d]) + "'"));
        }
        std::size_t vs = d + 1;
        while (vs < end && space(in_[vs])) {
            ++vs;
        }
        bool quoted = end - vs >= 2 && (in_[vs] == '"' || in_[vs] == '\'') &&
                      in_[end - 1] == in_[vs];
        std::uint32_t c = 0;
        if (find(current_, p, ke - p, c)) {
            return fail(make_error(errc::duplicate_key, p,
                                   "duplicate key '" + std::string(in_.substr(p, ke - p)) + "'"));
        }
        c = add(current_, p, ke - p);
        ini_node& n = nodes_[c];
        n.quoted = quoted;
        n.val_off = quoted ? vs + 1 : vs;
        n.val_len = quoted ? end - vs - 2 : end - vs;
        return {};
    }

    result<void> header(std::size_t p, std::size_t end) {
        std::size_t close = in_.substr(0, end).rfind(']');
        if (close == std::string_view::npos || close < p + 1) {
            return fail(make_error(errc::unexpected_char, end,
                                   "expected ']' to close the section name, saw end of line"));
        }
        if (close + 1 != end) {
            return fail(make_error(errc::trailing_content, close + 1,
                                   "expected end of line after the section header"));
        }
        std::size_t s = p + 1;
        std::uint32_t cur = 0;
        for (;;) {
            std::size_t dot = s;
            while (dot < close && in_[dot] != '.') {
                ++dot;
            }
            std::size_t a = s, z = dot;
            while (a < z && space(in_[a])) {
                ++a;
            }
            while (z > a && space(in_[z - 1])) {
                --z;
            }
            if (a == z) {
                return fail(make_error(errc::unexpected_char, a,
                                       "expected a section name, saw " +
                                           std::string(a < close ? "'.'" : "']'")));
            }
            std::uint32_t c = 0;
            if (find(cur, a, z - a, c)) {
                if (!nodes_[c].section) {
                    return fail(make_error(errc::duplicate_key, a,
                                           "'" + std::string(in_.substr(a, z - a)) +
                                               "' is both a key and a section"));
                }
            } else {
                c = add(cur, a, z - a);
                nodes_[c].section = true;
            }
            cur = c;
            if (dot == close) {
                break;
            }
            s = dot + 1;
        }
        if (nodes_[cur].declared) {
            return fail(make_error(errc::duplicate_key, p,
                                   "duplicate section [" +
                                       std::string(in_.substr(p + 1, close - p - 1)) + "]"));
        }
        nodes_[cur].declared = true;
        current_ = cur;
        return {};
    }

    bool find(std::uint32_t parent, std::size_t off, std::size_t len, std::uint32_t& out) {
        std::string_view name = in_.substr(off, len);
        std::uint32_t h = name_hash(parent, name);
        std::vector<std::uint32_t>& slots = scratch_.slots;
        std::size_t mask = slots.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            std::uint32_t id = slots[i];
            if (id == 0) {
                return false;
            }
            const ini_node& n = nodes_[id];
            if (n.hash == h && n.parent == parent &&
                in_.substr(n.name_off, n.name_len) == name) {
                out = id;
                return true;
            }
        }
    }

    void insert_slot(std::uint32_t id) {
        std::vector<std::uint32_t>& slots = scratch_.slots;
        std::size_t mask = slots.size() - 1;
        std::size_t i = nodes_[id].hash & mask;
        while (slots[i] != 0) {
            i = (i + 1) & mask;
        }
        slots[i] = id;
    }

    std::uint32_t add(std::uint32_t parent, std::size_t off, std::size_t len) {
        auto id = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back({});
        ini_node& n = nodes_[id];
        n.name_off = off;
        n.name_len = len;
        n.parent = parent;
        n.hash = name_hash(parent, in_.substr(off, len));
        ini_node& p = nodes_[parent];
        if (p.last_child == no_node) {
            p.first_child = id;
        } else {
            nodes_[p.last_child].next_sibling = id;
        }
        p.last_child = id;
        if ((scratch_.used + 1) * 2 > scratch_.slots.size()) {
            scratch_.slots.assign(scratch_.slots.size() * 2, 0);
            for (std::uint32_t k = 1; k < id; ++k) {
                insert_slot(k);
            }
        }
        insert_slot(id);
        ++scratch_.used;
        return id;
    }

    result<void> emit(std::uint32_t n) {
        const ini_node& node = nodes_[n];
        if (!node.section) {
            std::string_view v = in_.substr(node.val_off, node.val_len);
            if (!infer_ || node.quoted) {
                b_.add_string(v);
            } else if (v.empty()) {
                b_.add_null();
            } else {
                textinfer::add(b_, v);
            }
            return {};
        }
        if (!b_.begin_map()) {
            return fail(make_error(b_.status(), node.name_off,
                                   b_.status() == errc::depth_exceeded
                                       ? "nesting deeper than " +
                                             std::to_string(b_.limits().max_depth)
                                       : std::string("document larger than its size budget")));
        }
        // A section's keys first, then its subsections, each in order of first appearance:
        // the order the encoder writes (`[a.b]` then `[a]` `y=2` is {"a": {"y": "2", "b": ...}};
        // fuzz_decode_ini found a key after a subsection, which the encoder cannot write back).
        for (bool sections : {false, true}) {
            for (std::uint32_t c = node.first_child; c != no_node; c = nodes_[c].next_sibling) {
                if (nodes_[c].section != sections) {
                    continue;
                }
                b_.add_string(in_.substr(nodes_[c].name_off, nodes_[c].name_len));
                POLYCODEC_TRY(emit(c));
            }
        }
        b_.end_map();
        return {};
    }

    std::string_view in_;
    builder& b_;
    bool infer_;
    static ini_scratch& thread_scratch() {
        thread_local ini_scratch s;
        s.nodes.clear();
        s.slots.assign(16, 0);
        s.used = 0;
        return s;
    }
    ini_scratch& scratch_ = thread_scratch();
    std::vector<ini_node>& nodes_ = scratch_.nodes;
    std::uint32_t current_ = 0;
};

result<void> decode_ini(std::string_view in, builder& b, const decode_options& opt) {
    ini_reader r(in, b, opt.infer);
    return r.run();
}

// ---- writer ----

// The writer's strings, reused per thread across calls (cleared on entry).
struct ini_write_scratch {
    std::string path, key, text, rest;
};

void release_if_large(std::string& s) {
    if (s.capacity() > scratch_keep_bytes) {
        std::string().swap(s);
    }
}

// The bytes a name cannot hold: 1 in a key ('\n', '\r', '=', ':'), 2 in a section name
// ('\n', '\r', '.').
constexpr struct ini_name_table {
    unsigned char v[256];
    constexpr ini_name_table() : v() {
        v[static_cast<unsigned char>('\n')] = 3;
        v[static_cast<unsigned char>('\r')] = 3;
        v[static_cast<unsigned char>('=')] = 1;
        v[static_cast<unsigned char>(':')] = 1;
        v[static_cast<unsigned char>('.')] = 2;
    }
} ini_name_bytes;

class ini_writer {
public:
    ini_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}
    ~ini_writer() {
        release_if_large(scratch_.path);
        release_if_large(scratch_.key);
        release_if_large(scratch_.text);
        release_if_large(scratch_.rest);
    }
    ini_writer(const ini_writer&) = delete;
    ini_writer& operator=(const ini_writer&) = delete;

    std::string& rest() { return scratch_.rest; }

    // Writes the scalars of map `m` (whose section header, if any, is written), then each
    // nested map as section `path.key`.
    result<void> write_map(value m) {
        bool seen_map = false;
        for (auto [k, v] : m.entries()) {
            if (v.kind() == kind::map) {
                seen_map = true;
                continue;
            }
            if (seen_map && !allow_lossy(opt_, v, "key_reordered",
                                         "key written before the sections of its map")) {
                return fail(unrepresentable(v, "a key after a nested map is not representable "
                                               "in ini (keys come before sections)"));
            }
            POLYCODEC_TRY(key_text(k, false));
            out_.append(name_);
            out_.append(" =");
            std::size_t at = out_.size();
            out_.push_back(' ');
            POLYCODEC_TRY(write_value(v));
            if (out_.size() == at + 1) {
                out_.truncate(at);  // an empty value (null): no trailing space
            }
            out_.push_back('\n');
        }
        std::size_t base = path_.size();
        for (auto [k, v] : m.entries()) {
            if (v.kind() != kind::map) {
                continue;
            }
            POLYCODEC_TRY(key_text(k, true));
            path_.resize(base);
            if (base != 0) {
                path_.push_back('.');
            }
            path_.append(name_);
            bool has_scalar = v.size() == 0;
            for (auto [k2, v2] : v.entries()) {
                if (v2.kind() != kind::map) {
                    has_scalar = true;
                    break;
                }
            }
            if (has_scalar) {
                if (out_.size() != 0) {
                    out_.push_back('\n');
                }
                out_.push_back('[');
                out_.append(path_);
                out_.append("]\n");
            }
            POLYCODEC_TRY(write_map(v));
        }
        path_.resize(base);
        return {};
    }

private:
    // The key's text in name_: a view into the Document (or key_ where it had to be made).
    result<void> key_text(value k, bool section) {
        std::string_view name;
        if (k.is_bool() || k.kind() == kind::float64 || k.kind() == kind::bytes ||
            !textinfer::scalar_view(k, key_, name)) {
            POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "ini"));
            key_ = std::move(text);
            name = key_;
        }
        name_ = name;
        bool ok = !name.empty() && !space(name.front()) && !space(name.back());
        // A section name may hold ']': the header ends at the line's last ']' (as
        // configparser's SECTCRE).
        const unsigned char bad = section ? 2 : 1;
        unsigned char seen = 0;
        for (char c : name) {
            seen |= ini_name_bytes.v[static_cast<unsigned char>(c)];
        }
        ok = ok && (seen & bad) == 0;
        if (!section && ok && (name[0] == '[' || name[0] == ';' || name[0] == '#')) {
            ok = false;
        }
        if (!ok) {
            if (name.data() != key_.data()) {
                key_.assign(name);
            }
            if (!allow_lossy(opt_, k, "key_changed", "key characters replaced by '_'")) {
                return fail(unrepresentable(
                    k, std::string(section ? "section name '" : "key '") + key_ +
                           "' is not representable in ini"));
            }
            for (char& c : key_) {
                if (c == '\n' || c == '\r' || c == '.' || c == ']' || c == '=' || c == ':') {
                    c = '_';
                }
            }
            if (key_.empty() || key_[0] == '[' || key_[0] == ';' || key_[0] == '#' ||
                space(key_[0])) {
                key_.insert(0, "_");
            }
            name_ = key_;
        }
        return {};
    }

    result<void> write_value(value v) {
        while (v.kind() == kind::tagged) {
            if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                return fail(unrepresentable(
                    v, "tag " + std::to_string(v.tag()) + " is not representable in ini"));
            }
            v = v.tagged_value();
        }
        switch (v.kind()) {
            case kind::null:
                return {};  // an empty value: null with --infer
            case kind::array:
            case kind::map: {
                if (!allow_lossy(opt_, v, "array_to_json", "array written as JSON text")) {
                    return fail(unrepresentable(v, "an array is not representable in ini"));
                }
                output_buffer json;
                POLYCODEC_TRY(json_write_value(v, json, opt_));
                text_.assign(json.str());
                break;
            }
            case kind::string:
            case kind::timestamp: {
                std::string_view text = v.get_string();
                bool line_break = false;
                for (char c : text) {
                    line_break |= c == '\r' || c == '\n';
                }
                if (line_break) {
                    text_.assign(text);
                    if (!allow_lossy(opt_, v, "line_break_to_space",
                                     "line breaks written as spaces")) {
                        return fail(unrepresentable(v, "a line break in a value is not "
                                                       "representable in ini"));
                    }
                    for (char& c : text_) {
                        if (c == '\r' || c == '\n') {
                            c = ' ';
                        }
                    }
                    text = text_;
                }
                bool quote = text.empty() || space(text.front()) || space(text.back()) ||
                             text.front() == '"' || text.front() == '\'' ||
                             textinfer::classify(text) != textinfer::kind::string;
                if (quote) {
                    out_.push_back('"');
                    out_.append(text);
                    out_.push_back('"');
                    return {};
                }
                out_.append(text);
                return {};
            }
            default:
                textinfer::scalar_text(v, text_);
        }
        out_.append(text_);
        return {};
    }

    static ini_write_scratch& thread_scratch() {
        thread_local ini_write_scratch s;
        s.path.clear();
        s.key.clear();
        s.text.clear();
        s.rest.clear();
        return s;
    }

    output_buffer& out_;
    const encode_options& opt_;
    ini_write_scratch& scratch_ = thread_scratch();
    std::string& path_ = scratch_.path;
    std::string& key_ = scratch_.key;
    std::string& text_ = scratch_.text;
    std::string_view name_;  // the key_text() just made
};

result<void> encode_ini(const document& doc, output_buffer& out, const encode_options& opt) {
    value root = doc.root();
    if (root.kind() != kind::map) {
        return fail(unrepresentable(root, "a root that is not a map is not representable in ini"));
    }
    std::size_t start = out.size();
    ini_writer w(out, opt);
    auto r = w.write_map(root);
    // A first key starting with U+FEFF would be read back as a byte order mark (found by
    // fuzz_decode_ini): a blank line first keeps it a key.
    if (r && out.view().substr(start, 3) == "\xEF\xBB\xBF") {
        std::string& rest = w.rest();
        rest.assign(out.view().substr(start));
        out.truncate(start);
        out.push_back('\n');
        out.append(rest);
    }
    return r;
}

}  // namespace

const codec_functions ini_codec{decode_ini, encode_ini};

}  // namespace polycodec::detail
