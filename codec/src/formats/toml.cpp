// TOML 1.0. Decoding is our own parser (below); toml++ is the test oracle (tests/) and the
// `peers` row, no longer linked here. The encoder is our own too. See docs/formats/toml.md.
//
// The reader runs in two passes. Pass one scans the input bytes once and records every
// table, array and value as a node of a flat array (children linked in the order of first
// appearance), with one hash index of (parent node, key) -> child for the redefinition rules,
// so that tables declared out of order ([a.b] ... [c] ... [a]) land in the right place with no
// second tree. Pass two walks the nodes from the root and writes the tape in document order.
// Nodes, index and unescaped text live in per-thread scratch reused across inputs, so a
// steady stream of decodes allocates nothing.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "detail/base64.hpp"
#include "detail/describe.hpp"
#include "detail/lossy.hpp"
#include "detail/nonfinite_text.hpp"
#include "detail/number.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr std::size_t max_toml_depth = 250;

// ---- reader ----

// What a node is. Tables differ by how they came to be, which decides what may extend them.
enum class nt : std::uint8_t {
    root,
    implicit_table,  // created as a prefix of a [header]: one later [header] may define it
    header_table,    // defined by a [header] or an element of [[header]]
    dotted_table,    // created by a dotted key (a.b = 1); more dotted keys may extend it
    inline_table,    // { ... }: sealed
    table_array,     // [[header]]: elements are header_table nodes
    array,           // [ ... ]: sealed
    pending,         // a key whose value is being parsed
    string,
    integer,
    floating,
    boolean,
    timestamp,
};

bool is_table(nt t) noexcept { return t <= nt::inline_table; }

constexpr std::uint32_t none = 0xffffffffu;
constexpr std::uint64_t in_arena = std::uint64_t{1} << 63;  // text in scratch, not the input

struct tnode {
    std::uint64_t key = 0;  // offset of the key text (| in_arena)
    std::uint64_t val = 0;  // integer or double bits; offset of string text (| in_arena)
    std::uint32_t klen = 0;
    std::uint32_t vlen = 0;
    std::uint32_t parent = none;
    std::uint32_t first = none;
    std::uint32_t last = none;
    std::uint32_t next = none;
    std::uint32_t hash = 0;
    std::uint16_t depth = 0;  // nesting of the node's value, the root table being 1
    nt type = nt::pending;
    std::uint8_t aux = 0;  // timestamp_kind
};

static_assert(sizeof(tnode) == 48, "the size budget check counts on small nodes");

struct index_slot {
    std::uint32_t gen;
    std::uint32_t node;
};

struct key_part {
    std::uint64_t text;  // offset | in_arena
    std::uint32_t len;
    std::uint64_t pos;  // source offset, for errors
};

struct toml_read_scratch {
    std::vector<tnode> nodes;
    std::vector<index_slot> slots;
    std::uint32_t gen = 0;
    std::size_t used = 0;  // live index entries
    std::string arena;     // unescaped strings and keys, normalized date-times
    std::vector<key_part> key;
    std::string num;  // a float's digits without underscores
};

toml_read_scratch& thread_read_scratch() {
    thread_local toml_read_scratch s;
    return s;
}

inline std::uint64_t load_tail(const char* p, std::size_t n) noexcept {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    return w;
}

// A per-process seed, so that an input cannot be crafted once for keys that all collide in
// the index (every process places them differently).
std::uint64_t hash_seed() noexcept {
    static const std::uint64_t seed = [] {
        std::uint64_t local = 0;
        auto a = reinterpret_cast<std::uintptr_t>(&local);  // ASLR
        auto t =
            static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
        std::uint64_t x = (a ^ (t << 17) ^ t) * 0x9E3779B97F4A7C15ULL;
        return x ^ (x >> 31);
    }();
    return seed;
}

// A fast hash of (parent, key bytes).
inline std::uint32_t key_hash(std::uint32_t parent, std::string_view k) noexcept {
    std::uint64_t h =
        ((std::uint64_t{parent} + 1) * 0x9E3779B97F4A7C15ULL ^ k.size()) + hash_seed();
    const char* p = k.data();
    std::size_t n = k.size();
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n != 0) {
        h = (h ^ load_tail(p, n)) * 0x94d049bb133111ebULL;
    }
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return static_cast<std::uint32_t>(h);
}

inline bool is_bare(unsigned char c) noexcept {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}
inline bool is_digit(unsigned char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_hex(unsigned char c) noexcept {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline int hex_value(unsigned char c) noexcept {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

class toml_parser {
public:
    toml_parser(std::string_view in, builder& b)
        : in_(in),
          p_(in.data()),
          n_(in.size()),
          b_(b),
          s_(thread_read_scratch()),
          nodes_(s_.nodes),
          arena_(s_.arena) {
        nodes_.clear();
        arena_.clear();
        if (++s_.gen == 0) {
            for (auto& sl : s_.slots) {
                sl.gen = 0;
            }
            s_.gen = 1;
        }
        s_.used = 0;
        if (s_.slots.empty()) {
            s_.slots.resize(256, index_slot{0, 0});
        }
        std::size_t lim = b.limits().max_depth;
        max_depth_ = lim < max_toml_depth ? lim : max_toml_depth;
        tnode root;
        root.type = nt::root;
        root.depth = 1;
        nodes_.push_back(root);
    }

    ~toml_parser() {
        // One huge input must not pin its peak memory in this thread.
        constexpr std::size_t keep = std::size_t{8} << 20;
        if (nodes_.capacity() * sizeof(tnode) > keep) {
            std::vector<tnode>().swap(nodes_);
        }
        if (s_.slots.size() * sizeof(index_slot) > keep) {
            std::vector<index_slot>().swap(s_.slots);
        }
        if (arena_.capacity() > keep) {
            std::string().swap(arena_);
        }
    }

    // The error of a failed parse (run() returned false).
    error& failure() noexcept { return err_; }

    bool run() {
        if (!(parse_document())) {
            return false;
        }
        return emit(0);
    }

private:
    // ---- errors ----

    bool err(error e) {
        err_ = std::move(e);
        return false;
    }
    std::uint32_t err_none(error e) {
        err_ = std::move(e);
        return none;
    }

    // The JSON Pointer of node `id` (array elements by their position).
    std::string pointer(std::uint32_t id) const {
        std::vector<std::uint32_t> chain;
        for (std::uint32_t i = id; i != 0 && i != none; i = nodes_[i].parent) {
            chain.push_back(i);
        }
        std::string out;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const tnode& nd = nodes_[*it];
            const tnode& par = nodes_[nd.parent];
            out += '/';
            if (par.type == nt::array || par.type == nt::table_array) {
                std::size_t k = 0;
                for (std::uint32_t c = par.first; c != *it && c != none; c = nodes_[c].next) {
                    ++k;
                }
                out += std::to_string(k);
            } else {
                for (char c : text(nd.key, nd.klen)) {
                    if (c == '~') {
                        out += "~0";
                    } else if (c == '/') {
                        out += "~1";
                    } else {
                        out += c;
                    }
                }
            }
        }
        return out;
    }

    error at(errc code, std::size_t pos, std::string msg) const {
        error e = make_error(code, pos, std::move(msg));
        e.path = pointer(ctx_);
        e.has_path = true;
        return e;
    }
    error expected(std::size_t pos, const char* what) const {
        error e = unexpected_at(in_, pos, what);
        e.path = pointer(ctx_);
        e.has_path = true;
        return e;
    }

    // ---- text ----

    std::string_view text(std::uint64_t off, std::uint32_t len) const noexcept {
        if (off & in_arena) {
            return {arena_.data() + (off & ~in_arena), len};
        }
        return {p_ + off, len};
    }

    // ---- nodes and the key index ----

    std::uint32_t find_child(std::uint32_t parent, std::string_view k, std::uint32_t h) const {
        const auto& slots = s_.slots;
        std::size_t mask = slots.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const index_slot& sl = slots[i];
            if (sl.gen != s_.gen) {
                return none;
            }
            const tnode& c = nodes_[sl.node];
            if (c.hash == h && c.parent == parent && c.klen == k.size() &&
                text(c.key, c.klen) == k) {
                return sl.node;
            }
        }
    }

    void index_insert(std::uint32_t id) {
        auto& slots = s_.slots;
        std::size_t mask = slots.size() - 1;
        for (std::size_t i = nodes_[id].hash & mask;; i = (i + 1) & mask) {
            if (slots[i].gen != s_.gen) {
                slots[i] = {s_.gen, id};
                return;
            }
        }
    }

    void index_add(std::uint32_t id) {
        if ((s_.used + 1) * 2 > s_.slots.size()) {
            std::size_t cap = s_.slots.size() * 2;
            s_.slots.assign(cap, index_slot{0, 0});
            for (std::uint32_t i = 1; i < nodes_.size(); ++i) {
                if (i != id && nodes_[i].parent != none && keyed(nodes_[i].parent)) {
                    index_insert(i);
                }
            }
        }
        ++s_.used;
        index_insert(id);
    }

    bool keyed(std::uint32_t parent) const noexcept { return is_table(nodes_[parent].type); }

    // Appends a child to `parent` (keyed when the parent is a table).
    std::uint32_t add_child(std::uint32_t parent, nt type, const key_part* k, std::uint32_t h,
                            std::size_t pos) {
        tnode nd;
        nd.type = type;
        nd.parent = parent;
        nd.depth = nodes_[parent].depth;
        if (type <= nt::array) {
            ++nd.depth;
            if (nd.depth > max_depth_) {
                return err_none(at(errc::depth_exceeded, pos,
                                   "nesting deeper than " + std::to_string(max_depth_)));
            }
        }
        if (k != nullptr) {
            nd.key = k->text;
            nd.klen = k->len;
            nd.hash = h;
        }
        // Every node becomes at least two tape words (16 bytes) and the arena's text becomes
        // payload bytes, so past the budget here the tape is sure to be refused: refuse now.
        // The scratch itself (sizeof(tnode) per node) stays under 3x the budget.
        if (nodes_.size() >= none - 1 ||
            ((nodes_.size() & 4095) == 0 &&
             nodes_.size() * 16 + arena_.size() > b_.limits().max_bytes)) {
            return err_none(at(errc::size_exceeded, pos, "document larger than its size budget"));
        }
        auto id = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back(nd);
        tnode& par = nodes_[parent];
        if (par.last == none) {
            par.first = id;
        } else {
            nodes_[par.last].next = id;
        }
        par.last = id;
        if (k != nullptr) {
            index_add(id);
        }
        return id;
    }

    // An element of array `parent` (no key, not indexed): add_child's fast path.
    std::uint32_t add_element(std::uint32_t parent) {
        std::size_t n = nodes_.size();
        if ((n & 4095) == 0 || n >= none - 1) {
            return add_child(parent, nt::pending, nullptr, 0, pos_);
        }
        auto id = static_cast<std::uint32_t>(n);
        tnode& nd = nodes_.emplace_back();
        nd.parent = parent;
        nd.depth = nodes_[parent].depth;
        tnode& par = nodes_[parent];
        if (par.last == none) {
            par.first = id;
        } else {
            nodes_[par.last].next = id;
        }
        par.last = id;
        return id;
    }

    // ---- scanning ----

    unsigned char at_byte(std::size_t i) const noexcept {
        return i < n_ ? static_cast<unsigned char>(p_[i]) : 0;
    }

    void skip_ws() noexcept {
        while (pos_ < n_ && (p_[pos_] == ' ' || p_[pos_] == '\t')) {
            ++pos_;
        }
    }

    // A comment from '#' to the end of the line (the newline not consumed).
    bool skip_comment() {
        ++pos_;
        while (pos_ < n_) {
            auto c = static_cast<unsigned char>(p_[pos_]);
            if (c >= 0x20 && c != 0x7f) {
                ++pos_;
                continue;
            }
            if (c == '\t') {
                ++pos_;
                continue;
            }
            if (c == '\n' || (c == '\r' && at_byte(pos_ + 1) == '\n')) {
                return true;
            }
            return err(at(errc::unexpected_char, pos_,
                          "control character " + describe_byte_at(in_, pos_) + " in a comment"));
        }
        return true;
    }

    // Whitespace, comments and newlines (inside arrays).
    bool skip_ws_nl() {
        // Most calls stand before a value or a ',' (at most one space first).
        if (pos_ < n_ && p_[pos_] == ' ') {
            ++pos_;
        }
        if (pos_<n_&& static_cast<unsigned char>(p_[pos_])> ' ' && p_[pos_] != '#') {
            return true;
        }
        return skip_ws_nl_slow();
    }

    bool skip_ws_nl_slow() {
        for (;;) {
            skip_ws();
            if (pos_ >= n_) {
                return true;
            }
            char c = p_[pos_];
            if (c == '\n') {
                ++pos_;
            } else if (c == '\r' && at_byte(pos_ + 1) == '\n') {
                pos_ += 2;
            } else if (c == '#') {
                if (!(skip_comment())) {
                    return false;
                }
            } else {
                return true;
            }
        }
    }

    // After a key/value pair or a header: whitespace, a comment, then a newline or the end.
    bool end_of_line(const char* after) {
        skip_ws();
        if (pos_ < n_ && p_[pos_] == '#') {
            if (!(skip_comment())) {
                return false;
            }
        }
        if (pos_ >= n_) {
            return true;
        }
        if (p_[pos_] == '\n') {
            ++pos_;
            return true;
        }
        if (p_[pos_] == '\r' && at_byte(pos_ + 1) == '\n') {
            pos_ += 2;
            return true;
        }
        return err(expected(pos_, after));
    }

    // ---- the document ----

    bool parse_document() {
        if (n_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) {
            pos_ = 3;
        }
        std::uint32_t table = 0;
        for (;;) {
            skip_ws();
            if (pos_ >= n_) {
                return true;
            }
            char c = p_[pos_];
            if (c == '\n') {
                ++pos_;
                continue;
            }
            if (c == '\r' && at_byte(pos_ + 1) == '\n') {
                pos_ += 2;
                continue;
            }
            if (c == '#') {
                if (!(skip_comment())) {
                    return false;
                }
                continue;
            }
            ctx_ = table;
            if (c == '[') {
                auto t = header();
                if (t == none) {
                    return false;
                }
                table = t;
                ctx_ = table;
                if (!(end_of_line("a newline or a comment after a table header"))) {
                    return false;
                }
                continue;
            }
            if (!(keyval(table))) {
                return false;
            }
            if (!(end_of_line("a newline or a comment after a value"))) {
                return false;
            }
        }
    }

    // A key: bare, "basic" or 'literal' parts joined by dots, into s_.key.
    bool parse_key() {
        auto& key = s_.key;
        key.clear();
        for (;;) {
            skip_ws();
            std::size_t start = pos_;
            unsigned char c = at_byte(pos_);
            if (pos_ < n_ && is_bare(c)) {
                while (pos_ < n_ && is_bare(static_cast<unsigned char>(p_[pos_]))) {
                    ++pos_;
                }
                key.push_back({start, static_cast<std::uint32_t>(pos_ - start), start});
            } else if (pos_ < n_ && (c == '"' || c == '\'')) {
                if (at_byte(pos_ + 1) == c && at_byte(pos_ + 2) == c) {
                    return err(
                        at(errc::unexpected_char, pos_, "expected a key, saw a multi-line string"));
                }
                std::uint64_t off;
                std::uint32_t len;
                if (!(c == '"' ? basic_string(off, len) : literal_string(off, len))) {
                    return false;
                }
                key.push_back({off, len, start});
            } else {
                return err(expected(pos_, "a key"));
            }
            skip_ws();
            if (at_byte(pos_) != '.' || pos_ >= n_) {
                return true;
            }
            ++pos_;
        }
    }

    // The child of `t` named by key part `kp`, or a new child of `type` when it has none yet
    // (then `added` is set); `none` when adding it failed (the error is set). Used by keyval
    // and header for each part of a key.
    std::uint32_t find_or_add(std::uint32_t t, const key_part& kp, nt type, bool& added) {
        std::string_view k = text(kp.text, kp.len);
        std::uint32_t h = key_hash(t, k);
        std::uint32_t c = find_child(t, k, h);
        added = c == none;
        return added ? add_child(t, type, &kp, h, kp.pos) : c;
    }

    // key = value in `table` (the current table or an inline table).
    bool keyval(std::uint32_t table) {
        if (!(parse_key())) {
            return false;
        }
        auto& key = s_.key;
        std::uint32_t t = table;
        // Dotted prefixes: create or extend tables made by dotted keys only.
        for (std::size_t i = 0; i + 1 < key.size(); ++i) {
            bool added = false;
            std::uint32_t c = find_or_add(t, key[i], nt::dotted_table, added);
            if (c == none) {
                return false;
            }
            if (nodes_[c].type == nt::implicit_table) {
                // A table so far only named by headers ([a.b.c] makes a.b): dotted keys may
                // fill it, after which no header may define it (as tomllib and toml++).
                nodes_[c].type = nt::dotted_table;
            } else if (nodes_[c].type != nt::dotted_table) {
                ctx_ = c;
                return err(at(errc::duplicate_key, key[i].pos,
                              "dotted key extends " + describe_node(c) + " defined before"));
            }
            t = c;
        }
        const key_part& last = key.back();
        bool added = false;
        std::uint32_t r = find_or_add(t, last, nt::pending, added);
        if (!added) {
            ctx_ = r;
            return err(at(errc::duplicate_key, last.pos,
                          "key \"" + std::string(text(last.text, last.len)) + "\" defined twice"));
        }
        if (r == none) {
            return false;
        }
        std::uint32_t saved = ctx_;
        ctx_ = r;
        skip_ws();
        if (at_byte(pos_) != '=' || pos_ >= n_) {
            return err(expected(pos_, "'=' after a key"));
        }
        ++pos_;
        skip_ws();
        if (!(value(r))) {
            return false;
        }
        ctx_ = saved;
        return true;
    }

    std::string describe_node(std::uint32_t id) const {
        switch (nodes_[id].type) {
            case nt::implicit_table:
            case nt::header_table:
                return "a table";
            case nt::dotted_table:
                return "a table defined by dotted keys";
            case nt::inline_table:
                return "an inline table";
            case nt::table_array:
                return "an array of tables";
            case nt::array:
                return "an array";
            default:
                return "a value";
        }
    }

    // [a.b.c] or [[a.b.c]]; returns the table that the following key/value pairs fill.
    std::uint32_t header() {
        bool aot = at_byte(pos_ + 1) == '[';
        std::size_t open = pos_;
        pos_ += aot ? 2 : 1;
        if (!parse_key()) {
            return none;
        }
        auto& key = s_.key;
        if (at_byte(pos_) != ']' || pos_ >= n_ || (aot && at_byte(pos_ + 1) != ']')) {
            return err_none(expected(
                pos_, aot ? "']]' closing a table array header" : "']' closing a table header"));
        }
        pos_ += aot ? 2 : 1;
        std::uint32_t t = 0;
        for (std::size_t i = 0; i + 1 < key.size(); ++i) {
            bool added = false;
            std::uint32_t c = find_or_add(t, key[i], nt::implicit_table, added);
            if (c == none) {
                return none;
            }
            if (!added) {
                nt ty = nodes_[c].type;
                if (ty == nt::table_array) {
                    c = nodes_[c].last;
                } else if (ty != nt::implicit_table && ty != nt::header_table &&
                           ty != nt::dotted_table) {
                    ctx_ = c;
                    return err_none(
                        at(errc::duplicate_key, key[i].pos,
                           "table header goes through " + describe_node(c) + " defined before"));
                }
            }
            t = c;
        }
        const key_part& last = key.back();
        bool added = false;
        std::uint32_t c = find_or_add(t, last, aot ? nt::table_array : nt::header_table, added);
        if (c == none) {
            return none;
        }
        if (aot) {
            if (!added && nodes_[c].type != nt::table_array) {
                ctx_ = c;
                return err_none(at(
                    errc::duplicate_key, last.pos,
                    std::string(in_.substr(open, pos_ - open)) + " redefines " + describe_node(c)));
            }
            auto e = add_child(c, nt::header_table, nullptr, 0, last.pos);
            if (e == none) {
                return none;
            }
            return e;
        }
        if (added) {
            return c;
        }
        if (nodes_[c].type == nt::implicit_table) {
            nodes_[c].type = nt::header_table;
            return c;
        }
        ctx_ = c;
        return err_none(
            at(errc::duplicate_key, last.pos,
               std::string(in_.substr(open, pos_ - open)) + " redefines " + describe_node(c)));
    }

    // ---- values ----

    bool value(std::uint32_t id) {
        if (pos_ >= n_) {
            return err(expected(pos_, "a value"));
        }
        switch (p_[pos_]) {
            case '"':
            case '\'': {
                char q = p_[pos_];
                std::uint64_t off;
                std::uint32_t len;
                if (at_byte(pos_ + 1) == static_cast<unsigned char>(q) &&
                    at_byte(pos_ + 2) == static_cast<unsigned char>(q)) {
                    if (!(q == '"' ? ml_basic_string(off, len) : ml_literal_string(off, len))) {
                        return false;
                    }
                } else {
                    if (!(q == '"' ? basic_string(off, len) : literal_string(off, len))) {
                        return false;
                    }
                }
                tnode& nd = nodes_[id];
                nd.type = nt::string;
                nd.val = off;
                nd.vlen = len;
                return true;
            }
            case 't':
                return keyword(id, "true", 4, nt::boolean, 1);
            case 'f':
                return keyword(id, "false", 5, nt::boolean, 0);
            case '[':
                return array(id);
            case '{':
                return inline_table(id);
            default:
                return number_or_date(id);
        }
    }

    bool keyword(std::uint32_t id, const char* word, std::size_t len, nt type, std::uint64_t v) {
        if (n_ - pos_ < len || std::memcmp(p_ + pos_, word, len) != 0 ||
            (pos_ + len < n_ && is_bare(static_cast<unsigned char>(p_[pos_ + len])))) {
            return err(expected(pos_, "a value"));
        }
        pos_ += len;
        nodes_[id].type = type;
        nodes_[id].val = v;
        return true;
    }

    bool array(std::uint32_t id) {
        nodes_[id].type = nt::array;
        nodes_[id].depth = static_cast<std::uint16_t>(nodes_[nodes_[id].parent].depth + 1);
        if (nodes_[id].depth > max_depth_) {
            return err(at(errc::depth_exceeded, pos_,
                          "nesting deeper than " + std::to_string(max_depth_)));
        }
        ++pos_;
        for (;;) {
            if (!(skip_ws_nl())) {
                return false;
            }
            if (at_byte(pos_) == ']' && pos_ < n_) {
                ++pos_;
                return true;
            }
            std::uint32_t r = add_element(id);
            if (r == none) {
                return false;
            }
            ctx_ = r;
            if (!(value(r))) {
                return false;
            }
            ctx_ = id;
            if (!(skip_ws_nl())) {
                return false;
            }
            if (pos_ < n_ && p_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (pos_ < n_ && p_[pos_] == ']') {
                ++pos_;
                return true;
            }
            return err(expected(pos_, "',' or ']' in an array"));
        }
    }

    bool inline_table(std::uint32_t id) {
        nodes_[id].type = nt::inline_table;
        nodes_[id].depth = static_cast<std::uint16_t>(nodes_[nodes_[id].parent].depth + 1);
        if (nodes_[id].depth > max_depth_) {
            return err(at(errc::depth_exceeded, pos_,
                          "nesting deeper than " + std::to_string(max_depth_)));
        }
        ++pos_;
        skip_ws();
        if (at_byte(pos_) == '}' && pos_ < n_) {
            ++pos_;
            return true;
        }
        for (;;) {
            ctx_ = id;
            if (!(keyval(id))) {
                return false;
            }
            ctx_ = id;
            skip_ws();
            if (pos_ < n_ && p_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (pos_ < n_ && p_[pos_] == '}') {
                ++pos_;
                return true;
            }
            return err(expected(pos_, "',' or '}' in an inline table"));
        }
    }

    // ---- strings ----

    // The bytes [from, to) of the input appended to the arena.
    void arena_copy(std::size_t from, std::size_t to) { arena_.append(p_ + from, to - from); }

    bool bad_control(std::size_t i) {
        return err(at(errc::invalid_string, i,
                      "control character " + describe_byte_at(in_, i) + " in a string"));
    }

    // An escape at p_[pos_] == '\\', appended to the arena.
    bool escape() {
        std::size_t start = pos_;
        unsigned char e = at_byte(pos_ + 1);
        if (pos_ + 1 >= n_) {
            return err(at(errc::unexpected_eof, pos_ + 1, "expected an escape, saw end of input"));
        }
        char out;
        switch (e) {
            case 'b':
                out = '\b';
                break;
            case 't':
                out = '\t';
                break;
            case 'n':
                out = '\n';
                break;
            case 'f':
                out = '\f';
                break;
            case 'r':
                out = '\r';
                break;
            case '"':
                out = '"';
                break;
            case '\\':
                out = '\\';
                break;
            case 'u':
            case 'U': {
                std::size_t digits = e == 'u' ? 4 : 8;
                std::uint32_t cp = 0;
                for (std::size_t i = 0; i < digits; ++i) {
                    unsigned char h = at_byte(pos_ + 2 + i);
                    if (pos_ + 2 + i >= n_ || !is_hex(h)) {
                        return err(at(errc::invalid_string, pos_ + 2 + i,
                                      std::string("expected ") + std::to_string(digits) +
                                          " hex digits after \\" + static_cast<char>(e) + ", saw " +
                                          describe_byte_at(in_, pos_ + 2 + i)));
                    }
                    cp = cp << 4 | static_cast<std::uint32_t>(hex_value(h));
                }
                if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                    return err(
                        at(errc::invalid_string, start, "escape is not a Unicode scalar value"));
                }
                char buf[4];
                arena_.append(buf, utf8_encode(cp, buf));
                pos_ += 2 + digits;
                return true;
            }
            default:
                return err(at(errc::invalid_string, pos_ + 1,
                              "expected an escape (b t n f r \" \\ u U), saw " +
                                  describe_byte_at(in_, pos_ + 1)));
        }
        arena_.push_back(out);
        pos_ += 2;
        return true;
    }

    // "basic": text in the input when it has no escape, else unescaped into the arena.
    bool basic_string(std::uint64_t& off, std::uint32_t& len) {
        std::size_t start = ++pos_;
        // Fast scan to the first special byte.
        while (pos_ < n_) {
            auto c = static_cast<unsigned char>(p_[pos_]);
            if (c == '"') {
                off = start;
                len = static_cast<std::uint32_t>(pos_ - start);
                ++pos_;
                return true;
            }
            if (c == '\\' || c < 0x20 || c == 0x7f) {
                break;
            }
            ++pos_;
        }
        std::size_t a0 = arena_.size();
        arena_copy(start, pos_);
        while (pos_ < n_) {
            auto c = static_cast<unsigned char>(p_[pos_]);
            if (c == '"') {
                off = a0 | in_arena;
                len = static_cast<std::uint32_t>(arena_.size() - a0);
                ++pos_;
                return true;
            }
            if (c == '\\') {
                if (!(escape())) {
                    return false;
                }
                continue;
            }
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                if (c == '\n' || c == '\r') {
                    return err(at(errc::invalid_string, pos_,
                                  "expected '\"' closing the string, saw a newline"));
                }
                return bad_control(pos_);
            }
            std::size_t run = pos_;
            while (pos_ < n_) {
                auto d = static_cast<unsigned char>(p_[pos_]);
                if (d == '"' || d == '\\' || (d < 0x20 && d != '\t') || d == 0x7f) {
                    break;
                }
                ++pos_;
            }
            arena_copy(run, pos_);
        }
        return err(
            at(errc::unexpected_eof, pos_, "expected '\"' closing the string, saw end of input"));
    }

    bool literal_string(std::uint64_t& off, std::uint32_t& len) {
        std::size_t start = ++pos_;
        while (pos_ < n_) {
            auto c = static_cast<unsigned char>(p_[pos_]);
            if (c == '\'') {
                off = start;
                len = static_cast<std::uint32_t>(pos_ - start);
                ++pos_;
                return true;
            }
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                if (c == '\n' || c == '\r') {
                    return err(at(errc::invalid_string, pos_,
                                  "expected ''' closing the string, saw a newline"));
                }
                return bad_control(pos_);
            }
            ++pos_;
        }
        return err(
            at(errc::unexpected_eof, pos_, "expected ''' closing the string, saw end of input"));
    }

    // """multi-line""": a newline right after the opening quotes is dropped; a backslash at
    // the end of a line drops the newline and the whitespace after it; CRLF reads as LF; up to
    // two quotes may stand before the closing three.
    bool ml_basic_string(std::uint64_t& off, std::uint32_t& len) {
        return ml_string(off, len, '"');
    }
    bool ml_literal_string(std::uint64_t& off, std::uint32_t& len) {
        return ml_string(off, len, '\'');
    }

    bool ml_string(std::uint64_t& off, std::uint32_t& len, char q) {
        const bool basic = q == '"';
        std::size_t open = pos_;
        pos_ += 3;
        if (at_byte(pos_) == '\n') {
            ++pos_;
        } else if (at_byte(pos_) == '\r' && at_byte(pos_ + 1) == '\n') {
            pos_ += 2;
        }
        std::size_t start = pos_;
        bool copying = false;  // content is in the arena from a0 (else input [start, pos_))
        std::size_t a0 = arena_.size();
        std::size_t run = pos_;  // first byte not yet copied, while copying
        auto begin_copy = [&] {
            if (!copying) {
                copying = true;
                run = start;
            }
            arena_copy(run, pos_);
        };
        while (pos_ < n_) {
            auto c = static_cast<unsigned char>(p_[pos_]);
            if (c == static_cast<unsigned char>(q)) {
                if (at_byte(pos_ + 1) == c && at_byte(pos_ + 2) == c) {
                    std::size_t qs = 3;
                    while (qs < 6 && at_byte(pos_ + qs) == c && pos_ + qs < n_) {
                        ++qs;
                    }
                    if (qs > 5) {
                        return err(at(errc::invalid_string, pos_ + 5,
                                      "expected the end of the string, saw a sixth quote"));
                    }
                    std::size_t content_end = pos_ + (qs - 3);
                    if (copying) {
                        arena_copy(run, content_end);
                        off = a0 | in_arena;
                        len = static_cast<std::uint32_t>(arena_.size() - a0);
                    } else {
                        off = start;
                        len = static_cast<std::uint32_t>(content_end - start);
                    }
                    pos_ += qs;
                    return true;
                }
                ++pos_;
                continue;
            }
            if (c == '\\' && basic) {
                begin_copy();
                // A line-ending backslash: whitespace, a newline, then every whitespace and
                // newline up to the next other character.
                std::size_t j = pos_ + 1;
                while (j < n_ && (p_[j] == ' ' || p_[j] == '\t')) {
                    ++j;
                }
                if (j < n_ && (p_[j] == '\n' || (p_[j] == '\r' && at_byte(j + 1) == '\n'))) {
                    while (j < n_ && (p_[j] == ' ' || p_[j] == '\t' || p_[j] == '\n' ||
                                      (p_[j] == '\r' && at_byte(j + 1) == '\n'))) {
                        ++j;
                    }
                    pos_ = j;
                } else {
                    if (!(escape())) {
                        return false;
                    }
                }
                run = pos_;
                continue;
            }
            if (c == '\r') {
                if (at_byte(pos_ + 1) != '\n') {
                    return bad_control(pos_);
                }
                begin_copy();
                arena_.push_back('\n');
                pos_ += 2;
                run = pos_;
                continue;
            }
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
                return bad_control(pos_);
            }
            ++pos_;
        }
        return err(at(errc::unexpected_eof, pos_,
                      std::string("expected ") + (basic ? "'\"\"\"'" : "\"'''\"") +
                          " closing the string opened at byte " + std::to_string(open) +
                          ", saw end of input"));
    }

    // ---- numbers and date-times ----

    bool digits_at(std::size_t i, std::size_t count) const noexcept {
        if (i + count > n_) {
            return false;
        }
        for (std::size_t k = 0; k < count; ++k) {
            if (!is_digit(static_cast<unsigned char>(p_[i + k]))) {
                return false;
            }
        }
        return true;
    }
    unsigned two(std::size_t i) const noexcept {
        return static_cast<unsigned>((p_[i] - '0') * 10 + (p_[i + 1] - '0'));
    }

    bool number_or_date(std::uint32_t id) {
        if (at_byte(pos_ + 4) == '-' && digits_at(pos_, 4)) {
            return date_time(id);
        }
        if (at_byte(pos_ + 2) == ':' && digits_at(pos_, 2)) {
            std::size_t a0 = arena_.size();
            if (!(time_part(pos_))) {
                return false;
            }
            set_timestamp(id, a0, timestamp_kind::local_time);
            return true;
        }
        return number(id);
    }

    void set_timestamp(std::uint32_t id, std::size_t a0, timestamp_kind k) {
        tnode& nd = nodes_[id];
        nd.type = nt::timestamp;
        nd.aux = static_cast<std::uint8_t>(k);
        nd.val = a0 | in_arena;
        nd.vlen = static_cast<std::uint32_t>(arena_.size() - a0);
    }

    error bad_datetime(std::size_t pos, const std::string& why) const {
        return at(errc::invalid_number, pos, "invalid date-time: " + why);
    }

    // HH:MM:SS[.fraction] at i, appended to the arena (trailing zeros of the fraction
    // dropped); pos_ ends after it.
    bool time_part(std::size_t i) {
        if (!digits_at(i, 2) || at_byte(i + 2) != ':' || !digits_at(i + 3, 2) ||
            at_byte(i + 5) != ':' || !digits_at(i + 6, 2)) {
            return err(bad_datetime(i, "expected HH:MM:SS, saw " + describe_byte_at(in_, i)));
        }
        if (two(i) > 23 || two(i + 3) > 59 || two(i + 6) > 59) {
            return err(bad_datetime(i, "hour, minute or second out of range"));
        }
        arena_.append(p_ + i, 8);
        std::size_t j = i + 8;
        if (at_byte(j) == '.' && j < n_) {
            std::size_t d = j + 1;
            while (d < n_ && is_digit(static_cast<unsigned char>(p_[d]))) {
                ++d;
            }
            if (d == j + 1) {
                return err(
                    bad_datetime(d, "expected a digit after '.', saw " + describe_byte_at(in_, d)));
            }
            std::size_t e = d;
            while (e > j + 1 && p_[e - 1] == '0') {
                --e;
            }
            if (e > j + 1) {
                arena_.append(p_ + j, e - j);
            }
            j = d;
        }
        pos_ = j;
        return true;
    }

    static bool leap(unsigned y) noexcept { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

    bool date_time(std::uint32_t id) {
        std::size_t i = pos_;
        if (!digits_at(i + 5, 2) || at_byte(i + 7) != '-' || !digits_at(i + 8, 2)) {
            return err(bad_datetime(i, "expected YYYY-MM-DD"));
        }
        unsigned y = two(i) * 100 + two(i + 2);
        unsigned m = two(i + 5);
        unsigned d = two(i + 8);
        static constexpr unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (m < 1 || m > 12 || d < 1 || d > (m == 2 && leap(y) ? 29 : mdays[m - 1])) {
            return err(bad_datetime(i, "month or day out of range"));
        }
        std::size_t a0 = arena_.size();
        arena_.append(p_ + i, 10);
        std::size_t j = i + 10;
        unsigned char sep = at_byte(j);
        bool has_time = j < n_ && (sep == 'T' || sep == 't' ||
                                   (sep == ' ' && digits_at(j + 1, 2) && at_byte(j + 3) == ':'));
        if (!has_time) {
            pos_ = j;
            set_timestamp(id, a0, timestamp_kind::local_date);
            return true;
        }
        arena_.push_back('T');
        if (!(time_part(j + 1))) {
            return false;
        }
        j = pos_;
        unsigned char z = at_byte(j);
        if (j < n_ && (z == 'Z' || z == 'z')) {
            arena_.push_back('Z');
            pos_ = j + 1;
            set_timestamp(id, a0, timestamp_kind::offset_date_time);
            return true;
        }
        if (j < n_ && (z == '+' || z == '-')) {
            if (!digits_at(j + 1, 2) || at_byte(j + 3) != ':' || !digits_at(j + 4, 2)) {
                return err(bad_datetime(j, "expected an offset +HH:MM"));
            }
            if (two(j + 1) > 23 || two(j + 4) > 59) {
                return err(bad_datetime(j, "offset out of range"));
            }
            if (two(j + 1) == 0 && two(j + 4) == 0) {
                arena_.push_back('Z');
            } else {
                arena_.append(p_ + j, 6);
            }
            pos_ = j + 6;
            set_timestamp(id, a0, timestamp_kind::offset_date_time);
            return true;
        }
        set_timestamp(id, a0, timestamp_kind::local_date_time);
        return true;
    }

    error bad_number(std::size_t start, const char* why) const {
        return at(errc::invalid_number, start, std::string("invalid number: ") + why);
    }

    bool number(std::uint32_t id) {
        std::size_t start = pos_;
        std::size_t i = pos_;
        bool neg = false;
        unsigned char c = at_byte(i);
        if (i < n_ && (c == '+' || c == '-')) {
            neg = c == '-';
            ++i;
            c = at_byte(i);
        }
        if (i >= n_) {
            return err(expected(i, "a value"));
        }
        if (c == 'i' || c == 'n') {
            bool inf = c == 'i';
            if (n_ - i < 3 || std::memcmp(p_ + i, inf ? "inf" : "nan", 3) != 0 ||
                (i + 3 < n_ && is_bare(static_cast<unsigned char>(p_[i + 3])))) {
                return err(expected(start, "a value"));
            }
            double v = inf ? HUGE_VAL : std::nan("");
            v = neg ? -v : v;
            set_double(id, v);
            pos_ = i + 3;
            return true;
        }
        if (!is_digit(c)) {
            return err(expected(start, "a value"));
        }
        // Prefixed integers: no sign.
        if (c == '0' && (at_byte(i + 1) == 'x' || at_byte(i + 1) == 'o' || at_byte(i + 1) == 'b')) {
            if (i != start) {
                return err(bad_number(start, "a sign before 0x, 0o or 0b"));
            }
            return prefixed(id, start);
        }
        // Decimal integer part: no leading zero, '_' only between digits.
        std::uint64_t mag = 0;
        bool overflow = false;
        std::size_t int_start = i;

        while (i < n_) {
            c = static_cast<unsigned char>(p_[i]);
            if (is_digit(c)) {
                overflow |= __builtin_mul_overflow(mag, 10u, &mag);
                overflow |= __builtin_add_overflow(mag, static_cast<unsigned>(c - '0'), &mag);
                ++i;
            } else if (c == '_') {
                if (i + 1 >= n_ || !is_digit(static_cast<unsigned char>(p_[i + 1]))) {
                    return err(bad_number(i, "'_' must stand between digits"));
                }
                ++i;
            } else {
                break;
            }
        }
        if (p_[int_start] == '0' && i - int_start > 1) {
            return err(bad_number(start, "leading zeros are not allowed"));
        }
        c = at_byte(i);
        if (i < n_ && (c == '.' || c == 'e' || c == 'E')) {
            return floating(id, start, i);
        }
        if (i < n_ && is_bare(c)) {
            return err(bad_number(i, "unexpected character in a number"));
        }
        std::uint64_t limit = neg ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
        if (overflow || mag > limit) {
            return err(bad_number(start, "integer outside the 64-bit signed range"));
        }
        tnode& nd = nodes_[id];
        nd.type = nt::integer;
        nd.val = neg ? ~mag + 1 : mag;
        pos_ = i;
        return true;
    }

    void set_double(std::uint32_t id, double v) {
        tnode& nd = nodes_[id];
        nd.type = nt::floating;
        std::memcpy(&nd.val, &v, 8);
    }

    bool prefixed(std::uint32_t id, std::size_t start) {
        char kind = p_[start + 1];
        unsigned shift = kind == 'x' ? 4 : kind == 'o' ? 3 : 1;
        std::size_t i = start + 2;
        std::uint64_t v = 0;
        bool any = false;
        bool overflow = false;
        for (;;) {
            unsigned char c = at_byte(i);
            int d = -1;
            if (i < n_) {
                if (kind == 'x' && is_hex(c)) {
                    d = hex_value(c);
                } else if (kind == 'o' && c >= '0' && c <= '7') {
                    d = c - '0';
                } else if (kind == 'b' && (c == '0' || c == '1')) {
                    d = c - '0';
                }
            }
            if (d >= 0) {
                if (v >> (63 - shift) != 0) {
                    overflow = true;
                }
                v = v << shift | static_cast<std::uint64_t>(d);
                any = true;
                ++i;
                continue;
            }
            if (i < n_ && c == '_' && any) {
                unsigned char nx = at_byte(i + 1);
                bool ok = kind == 'x'   ? is_hex(nx)
                          : kind == 'o' ? (nx >= '0' && nx <= '7')
                                        : (nx == '0' || nx == '1');
                if (!ok || i + 1 >= n_) {
                    return err(bad_number(i, "'_' must stand between digits"));
                }
                ++i;
                continue;
            }
            break;
        }
        if (!any) {
            return err(bad_number(start, "no digits after the base prefix"));
        }
        if (i < n_ && (is_bare(static_cast<unsigned char>(p_[i])) || p_[i] == '.')) {
            return err(bad_number(i, "unexpected character in a number"));
        }
        if (overflow || v > static_cast<std::uint64_t>(INT64_MAX)) {
            return err(bad_number(start, "integer outside the 64-bit signed range"));
        }
        tnode& nd = nodes_[id];
        nd.type = nt::integer;
        nd.val = v;
        pos_ = i;
        return true;
    }

    // The fraction and exponent from i (the integer part already checked).
    bool floating(std::uint32_t id, std::size_t start, std::size_t i) {
        auto digit_run = [&](std::size_t& j) -> bool {
            if (!is_digit(at_byte(j)) || j >= n_) {
                return err(bad_number(j, "expected a digit"));
            }
            while (j < n_) {
                unsigned char c = static_cast<unsigned char>(p_[j]);
                if (is_digit(c)) {
                    ++j;
                } else if (c == '_' && j + 1 < n_ && is_digit(at_byte(j + 1))) {
                    ++j;
                } else if (c == '_') {
                    return err(bad_number(j, "'_' must stand between digits"));
                } else {
                    break;
                }
            }
            return true;
        };
        if (p_[i] == '.') {
            ++i;
            if (!(digit_run(i))) {
                return false;
            }
        }
        if (i < n_ && (p_[i] == 'e' || p_[i] == 'E')) {
            ++i;
            if (i < n_ && (p_[i] == '+' || p_[i] == '-')) {
                ++i;
            }
            if (!(digit_run(i))) {
                return false;
            }
        }
        if (i < n_ && (is_bare(static_cast<unsigned char>(p_[i])) || p_[i] == '.')) {
            return err(bad_number(i, "unexpected character in a number"));
        }
        std::string& num = s_.num;
        num.clear();
        const char* b = p_ + start;
        const char* e = p_ + i;
        if (*b == '+') {
            ++b;
        }
        for (const char* q = b; q < e; ++q) {
            if (*q != '_') {
                num.push_back(*q);
            }
        }
        double v = 0;
        auto r = std::from_chars(num.data(), num.data() + num.size(), v);
        if (r.ec == std::errc::result_out_of_range) {
            // Underflow reads as zero (or the nearest subnormal); a finite literal too large
            // for a double is refused, as toml++ does (inf is spelled inf).
            v = std::strtod(num.c_str(), nullptr);
            if (std::isinf(v)) {
                return err(bad_number(start, "float outside the range of a double"));
            }
        } else if (r.ec != std::errc() || r.ptr != num.data() + num.size()) {
            return err(bad_number(start, "not a float"));
        }
        set_double(id, v);
        pos_ = i;
        return true;
    }

    // ---- pass two: the tape ----

    bool emit(std::uint32_t id) {
        const tnode& nd = nodes_[id];
        switch (nd.type) {
            case nt::root:
            case nt::implicit_table:
            case nt::header_table:
            case nt::dotted_table:
            case nt::inline_table:
                if (!b_.begin_map()) {
                    return err(limit_error(b_, n_));
                }
                for (std::uint32_t c = nd.first; c != none; c = nodes_[c].next) {
                    b_.add_string(text(nodes_[c].key, nodes_[c].klen));
                    if (!(emit(c))) {
                        return false;
                    }
                }
                b_.end_map();
                return true;
            case nt::table_array:
            case nt::array:
                if (!b_.begin_array()) {
                    return err(limit_error(b_, n_));
                }
                for (std::uint32_t c = nd.first; c != none; c = nodes_[c].next) {
                    if (!(emit(c))) {
                        return false;
                    }
                }
                b_.end_array();
                return true;
            case nt::string:
                b_.add_string(text(nd.val, nd.vlen));
                return true;
            case nt::integer:
                b_.add_int(static_cast<std::int64_t>(nd.val));
                return true;
            case nt::floating: {
                double d;
                std::memcpy(&d, &nd.val, 8);
                b_.add_double(d);
                return true;
            }
            case nt::boolean:
                b_.add_bool(nd.val != 0);
                return true;
            case nt::timestamp:
                b_.add_timestamp(text(nd.val, nd.vlen), static_cast<timestamp_kind>(nd.aux));
                return true;
            case nt::pending:
                break;
        }
        return true;
    }

    std::string_view in_;
    const char* p_;
    std::size_t n_;
    std::size_t pos_ = 0;
    builder& b_;
    toml_read_scratch& s_;
    std::vector<tnode>& nodes_;
    std::string& arena_;
    std::uint32_t ctx_ = 0;  // the node an error is reported at
    std::size_t max_depth_ = max_toml_depth;
    error err_;
};

std::pair<std::size_t, std::size_t> deepest(const document& doc);

result<void> decode_toml(std::string_view in, builder& b, const decode_options&) {
    std::size_t valid = utf8_valid_prefix(in);
    if (valid != in.size()) {
        return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
    }
    if (in.size() >= (std::uint64_t{1} << 62)) {
        return fail(make_error(errc::size_exceeded, 0, "input too large"));
    }
    toml_parser p(in, b);
    if (!p.run()) {
        return fail(std::move(p.failure()));
    }
    return {};
}

// ---- writer ----

constexpr char hex_digits[] = "0123456789ABCDEF";

// A basic string: TOML 1.0 forbids control characters other than tab in it, so they (and
// DEL) are escaped; \uXXXX for those without a short escape.
void write_basic_string(output_buffer& out, std::string_view s) {
    out.push_back('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f) {
            continue;
        }
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"':
                out.append("\\\"");
                break;
            case '\\':
                out.append("\\\\");
                break;
            case '\b':
                out.append("\\b");
                break;
            case '\t':
                out.append("\\t");
                break;
            case '\n':
                out.append("\\n");
                break;
            case '\f':
                out.append("\\f");
                break;
            case '\r':
                out.append("\\r");
                break;
            default: {
                char buf[6] = {'\\', 'u', '0', '0', hex_digits[c >> 4], hex_digits[c & 15]};
                out.append(buf, 6);
            }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

bool bare_key(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    for (char c : s) {
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-')) {
            return false;
        }
    }
    return true;
}

void write_key_text(output_buffer& out, std::string_view s) {
    if (bare_key(s)) {
        out.append(s);
    } else {
        write_basic_string(out, s);
    }
}

// TOML floats: inf, -inf, nan; finite values in the shortest round-trip form with ".0" on
// integral values ("1e+300" is a valid TOML float as it is).
void write_float(output_buffer& out, double d) {
    write_double_text(out, d, {"nan", "inf", "-inf"});
}

enum class slot { drop, simple, table, table_array };

// Per-thread scratch for the encoder, one frame per nesting level of tables (and inline
// tables), reused so that steady-state encoding allocates nothing (as bson.cpp/pickle.cpp).
struct table_frame {
    std::vector<std::string> keys;  // only grows: the first n are the current map's keys
    std::vector<entry> ents;
    std::vector<std::size_t> order;
    std::vector<std::size_t> idx;
    std::vector<unsigned char> skip;
    std::vector<slot> slots;
    std::string path;  // the dotted path of a sub-table being written
};

struct toml_scratch {
    std::vector<std::unique_ptr<table_frame>> frames;  // stable addresses while growing
    output_buffer key;                                 // one key's written text
};

toml_scratch& thread_toml_scratch() {
    thread_local toml_scratch s;
    return s;
}

class toml_writer {
public:
    toml_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    result<void> write_root(value root) {
        if (root.kind() == kind::map) {
            std::string path;
            return table_body(root, path);
        }
        if (!allow_lossy(opt_, root, "root_wrapped",
                         "non-table root written as the key \"root\"")) {
            return fail(unrepresentable(root, "a non-table root is not representable in toml"));
        }
        // As if the root were {"root": value}.
        std::string path = "root";
        auto s = classify(root);
        if (!s) {
            return fail(s.error());
        }
        if (*s == slot::table_array) {
            return table_array(root, path);
        }
        if (*s == slot::table) {
            out_.append("[root]\n");
            return table_body(root, path);
        }
        if (*s == slot::simple) {
            out_.append("root = ");
            POLYCODEC_TRY(inline_value(root));
            out_.push_back('\n');
        }
        return {};
    }

private:
    // The scratch frame of the current nesting level; released when the guard goes.
    struct frame_guard {
        toml_writer& w;
        table_frame& f;
        explicit frame_guard(toml_writer& wr) : w(wr), f(wr.enter()) {}
        ~frame_guard() { --w.depth_; }
        frame_guard(const frame_guard&) = delete;
        frame_guard& operator=(const frame_guard&) = delete;
    };
    table_frame& enter() {
        auto& frames = scratch_.frames;
        if (depth_ == frames.size()) {
            frames.push_back(std::make_unique<table_frame>());
        }
        return *frames[depth_++];
    }

    // How the value of a table entry is written: as `key = value`, as a [table], as an
    // array of tables [[table]], or not at all (null under lossy).
    result<slot> classify(value v) {
        switch (v.kind()) {
            case kind::null:
                if (!allow_lossy(opt_, v, "null_dropped", "null dropped")) {
                    return fail(unrepresentable(v, "null is not representable in toml"));
                }
                return slot::drop;
            case kind::map:
                return slot::table;
            case kind::array: {
                if (v.size() == 0) {
                    return slot::simple;
                }
                for (value e : v.items()) {
                    if (e.kind() != kind::map) {
                        return slot::simple;
                    }
                }
                return slot::table_array;
            }
            default:
                return slot::simple;
        }
    }

    template <class Int>
    static void assign_decimal(std::string& text, Int i) {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, i);
        text.assign(buf, static_cast<std::size_t>(r.ptr - buf));
    }

    // The text of a map key: strings as they are, integers as decimal text, timestamps as
    // their RFC 3339 text; anything else only under lossy (its debug text).
    result<void> key_text(value k, std::string& text) {
        text.clear();
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
            case kind::bignum:
                text.assign(k.get_string());
                return {};
            case kind::int64:
                assign_decimal(text, k.get_int());
                return {};
            case kind::uint64:
                assign_decimal(text, k.get_uint());
                return {};
            default: {
                std::string dbg = to_debug_string(k);
                if (!allow_lossy(opt_, k, "key_to_string", "key written as its text")) {
                    return fail(
                        unrepresentable(k, "map key " + dbg + " is not representable in toml"));
                }
                text = std::move(dbg);
                return {};
            }
        }
    }

    // Key texts of map `m` (the first m.size() of f.keys), its entries, and which entries to
    // skip: duplicate keys (after the first) are unrepresentable, dropped under lossy.
    result<void> prepare_keys(value m, table_frame& f) {
        const std::size_t n = m.size();
        if (f.keys.size() < n) {
            f.keys.resize(n);
        }
        f.skip.assign(n, 0);
        f.ents.clear();
        std::size_t i = 0;
        for (entry e : m.entries()) {
            f.ents.push_back(e);
            POLYCODEC_TRY(key_text(e.key, f.keys[i]));
            ++i;
        }
        if (n < 2) {
            return {};
        }
        const auto& keys = f.keys;
        f.idx.resize(n);
        for (std::size_t j = 0; j < n; ++j) {
            f.idx[j] = j;
        }
        // A stable order by key text (ties by position): std::sort, unlike std::stable_sort,
        // needs no temporary buffer.
        std::sort(f.idx.begin(), f.idx.end(), [&](std::size_t a, std::size_t b) {
            int c = keys[a].compare(keys[b]);
            return c < 0 || (c == 0 && a < b);
        });
        for (std::size_t j = 1; j < n; ++j) {
            if (keys[f.idx[j]] == keys[f.idx[j - 1]]) {
                std::size_t d = f.idx[j];
                value key = f.ents[d].key;
                if (!allow_lossy(opt_, key, "duplicate_key_dropped", "duplicate key dropped")) {
                    return fail(unrepresentable(
                        key, "duplicate key \"" + keys[d] + "\" is not representable in toml"));
                }
                f.skip[d] = 1;
            }
        }
        return {};
    }

    void append_path(std::string& path, std::string_view key) {
        output_buffer& tmp = scratch_.key;
        tmp.clear();
        write_key_text(tmp, key);
        if (!path.empty()) {
            path += '.';
        }
        path += tmp.view();
    }

    // The entries of the map in f in writing order (f.order): the source order, or sorted
    // by key text under canonical=true.
    void writing_order(table_frame& f, std::size_t n) const {
        f.order.resize(n);
        for (std::size_t j = 0; j < n; ++j) {
            f.order[j] = j;
        }
        if (opt_.canonical) {
            const auto& keys = f.keys;
            std::sort(f.order.begin(), f.order.end(), [&](std::size_t a, std::size_t b) {
                int c = keys[a].compare(keys[b]);
                return c < 0 || (c == 0 && a < b);
            });
        }
    }

    // The entries of a table: simple keys first, then sub-tables and arrays of tables.
    result<void> table_body(value m, const std::string& path) {
        frame_guard g(*this);
        table_frame& f = g.f;
        POLYCODEC_TRY(prepare_keys(m, f));
        const std::size_t count = f.ents.size();
        writing_order(f, count);
        f.slots.assign(count, slot::drop);
        std::size_t last_simple = 0;  // position in `order` just past the last simple entry
        for (std::size_t n = 0; n < count; ++n) {
            std::size_t i = f.order[n];
            if (f.skip[i]) {
                continue;
            }
            auto s = classify(f.ents[i].val);
            if (!s) {
                return fail(s.error());
            }
            f.slots[i] = *s;
            if (*s == slot::simple) {
                last_simple = n + 1;
            }
        }
        // TOML puts a table's simple keys before its sub-tables. To keep the order of the
        // map, a table or array of tables that comes before a simple key is written inline;
        // only those after the last simple key get [headers].
        for (std::size_t n = 0; n < last_simple; ++n) {
            std::size_t i = f.order[n];
            if (f.slots[i] == slot::table || f.slots[i] == slot::table_array) {
                f.slots[i] = slot::simple;
            }
        }
        for (std::size_t i : f.order) {
            value v = f.ents[i].val;
            if (f.slots[i] == slot::simple) {
                write_key_text(out_, f.keys[i]);
                out_.append(" = ");
                POLYCODEC_TRY(inline_value(v));
                out_.push_back('\n');
            }
        }
        for (std::size_t i : f.order) {
            slot s = f.slots[i];
            value v = f.ents[i].val;
            if (s == slot::table || s == slot::table_array) {
                std::string& sub = f.path;
                sub.assign(path);
                append_path(sub, f.keys[i]);
                if (s == slot::table) {
                    if (out_.size() != 0) {
                        out_.push_back('\n');
                    }
                    out_.push_back('[');
                    out_.append(sub);
                    out_.append("]\n");
                    POLYCODEC_TRY(table_body(v, sub));
                } else if (auto r = table_array(v, sub); !r) {
                    return r;
                }
            }
        }
        return {};
    }

    result<void> table_array(value a, const std::string& path) {
        for (value e : a.items()) {
            if (out_.size() != 0) {
                out_.push_back('\n');
            }
            out_.append("[[");
            out_.append(path);
            out_.append("]]\n");
            POLYCODEC_TRY(table_body(e, path));
        }
        return {};
    }

    result<void> inline_value(value v) {
        switch (v.kind()) {
            case kind::null:
                // Only reached inside arrays and inline tables (entries are dropped earlier).
                return fail(unrepresentable(v, "null is not representable in toml"));
            case kind::boolean_false:
                out_.append("false");
                return {};
            case kind::boolean_true:
                out_.append("true");
                return {};
            case kind::int64:
                write_int(out_, v.get_int());
                return {};
            case kind::uint64:
            case kind::bignum: {
                std::string digits = v.kind() == kind::uint64 ? std::to_string(v.get_uint())
                                                              : std::string(v.get_string());
                if (!allow_lossy(opt_, v, "integer_to_string",
                                 "integer outside 64 bits written as a string")) {
                    return fail(unrepresentable(
                        v, "integer " + digits + " is outside the 64-bit range of toml"));
                }
                write_basic_string(out_, digits);
                return {};
            }
            case kind::float64:
                write_float(out_, v.get_double());
                return {};
            case kind::string:
                write_basic_string(out_, v.get_string());
                return {};
            case kind::timestamp:
                out_.append(v.get_string());
                return {};
            case kind::bytes:
                // DESIGN section 3: bytes become base64 text (RFC 8949 section 6.1 style).
                out_.push_back('"');
                base64_encode(out_, v.get_string(), true);
                out_.push_back('"');
                return {};
            case kind::tagged:
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return fail(unrepresentable(
                        v, "tag " + std::to_string(v.tag()) + " is not representable in toml"));
                }
                return inline_value(v.tagged_value());
            case kind::array: {
                out_.push_back('[');
                bool first = true;
                for (value e : v.items()) {
                    if (e.is_null()) {
                        if (!allow_lossy(opt_, e, "null_dropped", "null dropped")) {
                            return fail(unrepresentable(e, "null is not representable in toml"));
                        }
                        continue;
                    }
                    if (!first) {
                        out_.append(", ");
                    }
                    first = false;
                    POLYCODEC_TRY(inline_value(e));
                }
                out_.push_back(']');
                return {};
            }
            case kind::map: {
                frame_guard g(*this);
                table_frame& f = g.f;
                POLYCODEC_TRY(prepare_keys(v, f));
                const std::size_t count = f.ents.size();
                writing_order(f, count);
                out_.push_back('{');
                bool first = true;
                for (std::size_t n : f.order) {
                    value e = f.ents[n].val;
                    if (f.skip[n]) {
                        continue;
                    }
                    if (e.is_null()) {
                        if (!allow_lossy(opt_, e, "null_dropped", "null dropped")) {
                            return fail(unrepresentable(e, "null is not representable in toml"));
                        }
                        continue;
                    }
                    out_.append(first ? " " : ", ");
                    first = false;
                    write_key_text(out_, f.keys[n]);
                    out_.append(" = ");
                    POLYCODEC_TRY(inline_value(e));
                }
                out_.append(first ? "}" : " }");
                return {};
            }
        }
        return {};
    }

    output_buffer& out_;
    const encode_options& opt_;
    toml_scratch& scratch_ = thread_toml_scratch();
    std::size_t depth_ = 0;
};

// The deepest element nesting of the tape and one element at that depth.
std::pair<std::size_t, std::size_t> deepest(const document& doc) {
    thread_local std::vector<std::size_t> ends;
    ends.clear();
    std::size_t best = 0;
    std::size_t where = 0;
    const auto& t = doc.tape();
    for (std::size_t i = 0; i < t.size();) {
        while (!ends.empty() && i >= ends.back()) {
            ends.pop_back();
        }
        value v(&doc, i);
        if (v.is_container()) {
            ends.push_back(v.end_index());
            if (ends.size() > best) {
                best = ends.size();
                where = i;
            }
            i += 2;
        } else {
            i = v.kind() == kind::tagged ? i + 2 : v.end_index();
        }
    }
    return {best, where};
}

result<void> encode_toml(const document& doc, output_buffer& out, const encode_options& opt) {
    // toml++ (and other readers) refuse values nested deeper than 256 levels: deeper
    // documents are refused here rather than written unreadable (found by fuzz_decode_toml).
    if (doc.tape().size() > 2 * max_toml_depth) {
        auto [depth, at] = deepest(doc);
        if (depth > max_toml_depth) {
            return fail(unrepresentable(value(&doc, at),
                                        "nesting deeper than " + std::to_string(max_toml_depth) +
                                            " levels is not representable in toml"));
        }
    }
    toml_writer w(out, opt);
    return w.write_root(doc.root());
}

}  // namespace

const codec_functions toml_codec{decode_toml, encode_toml};

}  // namespace polycodec::detail
