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
#include <cstring>
#include <string>
#include <vector>

#include "detail/child_list.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/map_root.hpp"
#include "detail/name_slots.hpp"
#include "detail/text.hpp"
#include "detail/thread_scratch.hpp"
#include "detail/utf8.hpp"
#include "detail/json_text.hpp"
#include "detail/infer.hpp"
#include "detail/step.hpp"
#include "detail/try.hpp"
#include "detail/utf8_input.hpp"
#include "detail/word_scan.hpp"
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

using name_slots::name_hash;

struct ini_scratch {
    std::vector<ini_node> nodes;
    std::vector<std::uint32_t> slots;  // open addressing: node id, 0 = empty (root never listed)
    std::size_t used = 0;
};

// The bytes that end a line (universal newlines).
constexpr text::byte_set line_ends("\r\n");

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

    step run() {
        POLYCODEC_TRY(detail::require_utf8(in_));
        std::size_t pos = detail::bom_size(in_);
        nodes_.push_back({});
        nodes_[0].section = true;
        while (pos < in_.size()) {
            // Universal newlines, as Python's configparser reads: LF, CRLF or a lone CR.
            const std::size_t end = text::scan_to(in_, pos, line_ends);
            POLYCODEC_TRY(line(pos, end));
            pos = end + (in_.substr(end, 2) == "\r\n" ? 2 : 1);
        }
        return emit(0);
    }

private:
    step line(std::size_t p, std::size_t end) {
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

    step header(std::size_t p, std::size_t end) {
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
        std::uint32_t id = name_slots::find(scratch_.slots, h, [&](std::uint32_t k) {
            const ini_node& n = nodes_[k];
            return n.hash == h && n.parent == parent && in_.substr(n.name_off, n.name_len) == name;
        });
        if (id == 0) {
            return false;
        }
        out = id;
        return true;
    }

    std::uint32_t add(std::uint32_t parent, std::size_t off, std::size_t len) {
        auto id = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back({});
        ini_node& n = nodes_[id];
        n.name_off = off;
        n.name_len = len;
        n.parent = parent;
        n.hash = name_hash(parent, in_.substr(off, len));
        detail::append_child<&ini_node::first_child, &ini_node::last_child,
                             &ini_node::next_sibling>(nodes_[parent], nodes_, id, no_node);
        name_slots::make_room(scratch_.slots, scratch_.used, id,
                              [&](std::uint32_t k) { return nodes_[k].hash; });
        name_slots::place(scratch_.slots, nodes_[id].hash, id);
        ++scratch_.used;
        return id;
    }

    step emit(std::uint32_t n) {
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
    return r.run().to_result();
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

// Whether `s` holds any of the bytes A, B, C, D (8 bytes a step; name one twice for fewer).
template <char A, char B, char C, char D>
[[gnu::always_inline]] inline bool has_any(std::string_view s) noexcept {
    using namespace word_scan;
    return fold(s.data(), s.size(), [](std::uint64_t x) {
               return equal_bytes(x, A) | equal_bytes(x, B) | equal_bytes(x, C) |
                      equal_bytes(x, D);
           }) != 0;
}

// Walks the Document's tape by index (no value cursors on the common path) and returns bool,
// the error kept in err_ (a result<void> per call costs more than the writing on small
// documents).
class ini_writer {
public:
    ini_writer(output_buffer& out, const encode_options& opt, const document& doc)
        : out_(out), opt_(opt), doc_(&doc), t_(doc.tape().data()), bytes_(doc.bytes().data()) {}
    ~ini_writer() {
        release_if_large(scratch_.path);
        release_if_large(scratch_.key);
        release_if_large(scratch_.text);
        release_if_large(scratch_.rest);
    }
    ini_writer(const ini_writer&) = delete;
    ini_writer& operator=(const ini_writer&) = delete;

    std::string& rest() { return scratch_.rest; }

    error err_;  // the error when a call returned false

    // Writes the scalars of the map at tape index `mi` (whose section header, if any, is
    // written), then each nested map as section `path.key`.
    bool write_map(std::size_t mi) {
        const std::uint64_t count = t_[mi + 1];
        std::size_t i = mi + 2;
        std::size_t first_map = 0;  // the key of the first entry whose value is a map
        std::uint64_t maps = 0;     // entries whose value is a map
        for (std::uint64_t e = 0; e < count; ++e) {
            const std::size_t vi = end_of(i);
            const std::size_t next = end_of(vi);
            if (kind_at(vi) == kind::map) {
                if (maps++ == 0) {
                    first_map = i;
                }
                i = next;
                continue;
            }
            if (maps != 0 && !allow_lossy(opt_, value(doc_, vi), "key_reordered",
                                          "key written before the sections of its map")) {
                return set_error(unrepresentable(value(doc_, vi),
                                                 "a key after a nested map is not representable "
                                                 "in ini (keys come before sections)"));
            }
            if (!key_text(i, false) || !write_pair(vi)) {
                return false;
            }
            i = next;
        }
        if (maps == 0) {
            return true;
        }
        const std::size_t base = path_.size();
        for (i = first_map; maps != 0;) {
            const std::size_t vi = end_of(i);
            const std::size_t next = end_of(vi);
            if (kind_at(vi) != kind::map) {
                i = next;
                continue;
            }
            --maps;
            if (!key_text(i, true)) {
                return false;
            }
            path_.resize(base);
            if (base != 0) {
                path_.push_back('.');
            }
            path_.append(name_);
            if (has_scalar(vi)) {
                const bool blank = out_.size() != 0;
                char* const w0 = out_.prepare(path_.size() + 4);
                char* w = w0;
                if (blank) {
                    *w++ = '\n';
                }
                *w++ = '[';
                word_scan::copy_short(w, path_.data(), path_.size());
                w += path_.size();
                *w++ = ']';
                *w++ = '\n';
                out_.commit(static_cast<std::size_t>(w - w0));
            }
            if (!write_map(vi)) {
                return false;
            }
            i = next;
        }
        path_.resize(base);
        return true;
    }

private:
    [[gnu::cold]] [[gnu::noinline]] bool set_error(error e) {
        err_ = std::move(e);
        return false;
    }

    kind kind_at(std::size_t i) const noexcept {
        return static_cast<kind>(t_[i] >> document::kind_shift);
    }
    std::string_view text_at(std::size_t i) const noexcept {
        return {bytes_ + (t_[i] & document::payload_mask), static_cast<std::size_t>(t_[i + 1])};
    }
    // The tape index just past the element at `i` (value::end_index without the cursor).
    std::size_t end_of(std::size_t i) const noexcept {
        for (;;) {
            const std::uint64_t w = t_[i];
            const auto k = static_cast<kind>(w >> document::kind_shift);
            if (k == kind::string) [[likely]] {
                return i + 2;
            }
            if (k <= kind::boolean_true) {
                return i + 1;
            }
            if (k >= kind::array) {
                return static_cast<std::size_t>(w & document::payload_mask);
            }
            if (k != kind::tagged) {
                return i + 2;
            }
            i += 2;  // the inner element follows the tag
        }
    }
    // The map at `mi` is empty or has an entry whose value is not a map: it gets a header.
    bool has_scalar(std::size_t mi) const noexcept {
        const std::uint64_t count = t_[mi + 1];
        std::size_t i = mi + 2;
        for (std::uint64_t e = 0; e < count; ++e) {
            const std::size_t vi = end_of(i);
            if (kind_at(vi) != kind::map) {
                return true;
            }
            i = end_of(vi);
        }
        return count == 0;
    }

    // The key at tape index `ki` as text in name_: a view into the Document (or key_ where it
    // had to be made).
    [[gnu::always_inline]] bool key_text(std::size_t ki, bool section) {
        const kind kk = kind_at(ki);
        if (kk == kind::string || kk == kind::timestamp || kk == kind::bignum) [[likely]] {
            name_ = text_at(ki);
        } else if (!key_text_other(ki)) {
            return false;
        }
        const std::string_view name = name_;
        // A section name may hold ']': the header ends at the line's last ']' (as
        // configparser's SECTCRE).
        bool ok = !name.empty() && !space(name.front()) && !space(name.back()) &&
                  !(section ? has_any<'\n', '\r', '.', '.'>(name)
                            : has_any<'\n', '\r', '=', ':'>(name));
        if (!section && ok && (name[0] == '[' || name[0] == ';' || name[0] == '#')) {
            ok = false;
        }
        return ok || replace_key(ki, section);
    }
    // key_text of a key that is not text: its decimal or fallback text in key_.
    [[gnu::noinline]] bool key_text_other(std::size_t ki) {
        const value k(doc_, ki);
        const kind kk = k.kind();
        std::string_view name;
        if (k.is_bool() || kk == kind::float64 || kk == kind::bytes ||
            !textinfer::scalar_view(k, key_, name)) {
            auto text = key_fallback(opt_, k, "ini");
            if (!text) {
                return set_error(std::move(text.error()));
            }
            key_ = std::move(*text);
            name = key_;
        }
        name_ = name;
        return true;
    }

    // A key or section name that cannot be written as it is (in name_): with lossy=allow its
    // bad characters become '_', else the encode fails.
    [[gnu::noinline]] bool replace_key(std::size_t ki, bool section) {
        const value k(doc_, ki);
        if (name_.data() != key_.data()) {
            key_.assign(name_);
        }
        if (!allow_lossy(opt_, k, "key_changed", "key characters replaced by '_'")) {
            return set_error(unrepresentable(k, std::string(section ? "section name '" : "key '") +
                                                    key_ + "' is not representable in ini"));
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
        return true;
    }

    // Whether string value `text` (no line break) is written in quotes: what an inferring
    // reader would type, or would trim or unquote, is.
    static bool needs_quotes(std::string_view text) {
        if (text.empty()) {
            return true;
        }
        const char c0 = text.front();
        if (space(c0) || space(text.back()) || c0 == '"' || c0 == '\'') {
            return true;
        }
        // classify() types only "true", "false", "NaN", "Infinity" and text starting with
        // '-' or a digit; '-'? digits is an integer unless it has a leading zero.
        const std::size_t n = text.size();
        if (c0 == '-' || (c0 >= '0' && c0 <= '9')) {
            const std::size_t d = c0 == '-' ? 1 : 0;
            std::size_t p = d;
            while (p < n && text[p] >= '0' && text[p] <= '9') {
                ++p;
            }
            if (p == n) {
                return p - d == 1 || (p - d > 1 && text[d] != '0');
            }
        } else if (!((c0 == 't' && n == 4) || (c0 == 'f' && n == 5) || (c0 == 'N' && n == 3) ||
                     (c0 == 'I' && n == 8))) {
            return false;
        }
        return textinfer::classify(text) != textinfer::kind::string;
    }

    // `name_ = value` and its line break for the value at tape index `vi` (not a map).
    bool write_pair(std::size_t vi) {
        const kind k = kind_at(vi);
        if (k == kind::string || k == kind::timestamp) {
            const std::string_view text = text_at(vi);
            if (!has_any<'\n', '\r', '\n', '\r'>(text)) [[likely]] {
                const bool quote = needs_quotes(text);
                char* const w0 = out_.prepare(name_.size() + text.size() + 6);
                char* w = w0;
                word_scan::copy_short(w, name_.data(), name_.size());
                w += name_.size();
                std::memcpy(w, " = ", 3);
                w += 3;
                if (quote) {
                    *w++ = '"';
                }
                word_scan::copy_short(w, text.data(), text.size());
                w += text.size();
                if (quote) {
                    *w++ = '"';
                }
                *w++ = '\n';
                out_.commit(static_cast<std::size_t>(w - w0));
                return true;
            }
        } else if (k == kind::int64) {
            char* const w0 = out_.prepare(name_.size() + 28);
            char* w = w0;
            word_scan::copy_short(w, name_.data(), name_.size());
            w += name_.size();
            std::memcpy(w, " = ", 3);
            w += 3;
            const std::uint64_t u = t_[vi + 1];
            if (static_cast<std::int64_t>(u) < 0) {
                *w++ = '-';
                w = write_uint_digits(w, 0 - u);
            } else {
                w = write_uint_digits(w, u);
            }
            *w++ = '\n';
            out_.commit(static_cast<std::size_t>(w - w0));
            return true;
        }
        out_.append(name_);
        out_.append(" =");
        std::size_t at = out_.size();
        out_.push_back(' ');
        if (!write_value(value(doc_, vi))) {
            return false;
        }
        if (out_.size() == at + 1) {
            out_.truncate(at);  // an empty value (null): no trailing space
        }
        out_.push_back('\n');
        return true;
    }

    [[gnu::noinline]] bool write_value(value v) {
        while (v.kind() == kind::tagged) {
            if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                return set_error(unrepresentable(
                    v, "tag " + std::to_string(v.tag()) + " is not representable in ini"));
            }
            v = v.tagged_value();
        }
        switch (v.kind()) {
            case kind::null:
                return true;  // an empty value: null with --infer
            case kind::array:
            case kind::map: {
                if (!allow_lossy(opt_, v, "array_to_json", "array written as JSON text")) {
                    return set_error(unrepresentable(v, "an array is not representable in ini"));
                }
                output_buffer json;
                if (auto r = json_write_value(v, json, opt_); !r) {
                    return set_error(std::move(r.error()));
                }
                text_.assign(json.str());
                break;
            }
            case kind::string:
            case kind::timestamp: {
                std::string_view text = v.get_string();
                if (has_any<'\n', '\r', '\n', '\r'>(text)) {
                    text_.assign(text);
                    if (!allow_lossy(opt_, v, "line_break_to_space",
                                     "line breaks written as spaces")) {
                        return set_error(unrepresentable(v, "a line break in a value is not "
                                                            "representable in ini"));
                    }
                    for (char& c : text_) {
                        if (c == '\r' || c == '\n') {
                            c = ' ';
                        }
                    }
                    text = text_;
                }
                if (needs_quotes(text)) {
                    out_.push_back('"');
                    out_.append(text);
                    out_.push_back('"');
                    return true;
                }
                out_.append(text);
                return true;
            }
            default:
                textinfer::scalar_text(v, text_);
        }
        out_.append(text_);
        return true;
    }

    static ini_write_scratch& thread_scratch() {
        return detail::thread_scratch<ini_write_scratch, &ini_write_scratch::path,
                                      &ini_write_scratch::key, &ini_write_scratch::text,
                                      &ini_write_scratch::rest>();
    }

    output_buffer& out_;
    const encode_options& opt_;
    const document* doc_;
    const std::uint64_t* t_;  // doc_'s tape
    const char* bytes_;       // doc_'s string bytes
    ini_write_scratch& scratch_ = thread_scratch();
    std::string& path_ = scratch_.path;
    std::string& key_ = scratch_.key;
    std::string& text_ = scratch_.text;
    std::string_view name_;  // the key_text() just made
};

result<void> encode_ini(const document& doc, output_buffer& out, const encode_options& opt) {
    value root = doc.root();
    POLYCODEC_TRY(detail::require_map_root(root, "ini"));
    std::size_t start = out.size();
    ini_writer w(out, opt, doc);
    if (!w.write_map(root.index())) {
        return fail(std::move(w.err_));
    }
    // A first key starting with U+FEFF would be read back as a byte order mark (found by
    // fuzz_decode_ini): a blank line first keeps it a key.
    const char* b = out.data() + start;
    if (out.size() - start >= 3 && b[0] == '\xEF' && b[1] == '\xBB' && b[2] == '\xBF') {
        std::string& rest = w.rest();
        rest.assign(out.view().substr(start));
        out.truncate(start);
        out.push_back('\n');
        out.append(rest);
    }
    return {};
}

}  // namespace

const codec_functions ini_codec{decode_ini, encode_ini};

}  // namespace polycodec::detail
