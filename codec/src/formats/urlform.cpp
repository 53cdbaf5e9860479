// application/x-www-form-urlencoded (WHATWG URL standard section 5) with the bracket nesting
// of Rails, PHP and npm qs. A form decodes to a map:
//   a=1&b=x%20y        {"a": "1", "b": "x y"}        '+' is a space; %XX must be valid
//   a=1&a=2            {"a": ["1", "2"]}             a repeated key collects an array
//   a[b][c]=1          {"a": {"b": {"c": "1"}}}
//   a[]=1&a[]=2        {"a": ["1", "2"]}
//   a[1]=y&a[0]=x      {"a": ["x", "y"]}             indices order the array, gaps close up
// Keys are percent-decoded before their brackets are read (as qs does). With infer=true values
// are typed by detail/infer.hpp. The writer takes a map and writes qs.stringify's form with
// encodeValuesOnly (brackets literal, indices for arrays) and RFC 3986 percent-encoding (space
// as %20). docs/formats/urlform.md has every rule.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "detail/child_list.hpp"
#include "detail/dropped_tag.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/map_root.hpp"
#include "detail/thread_scratch.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/infer.hpp"
#include "detail/try.hpp"
#include "detail/urlform_readers.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// ---- reader ----

// A pair name segment that is an array index: digits, no leading zero, at most 19.
bool canonical_index(std::string_view s, std::uint64_t& out) {
    if (s.empty() || s.size() > 19 || (s.size() > 1 && s[0] == '0')) {
        return false;
    }
    out = 0;
    for (char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
        out = out * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
}

// The form as a tree, built first because a key may come back anywhere in the input. Text
// (names and values) lives in one arena string. Nodes, their child lists (intrusive: first,
// last, next sibling), the (parent, key) lookup (open addressing over node ids) and emit()'s
// work lists live in per-thread scratch reused across calls, so a steady-state decode does
// not allocate (#6).
constexpr std::uint32_t no_node = UINT32_MAX;

struct form_node {
    std::size_t text_off = 0, text_len = 0;  // a leaf's value
    std::size_t name_off = 0, name_len = 0;  // key under the parent when a name
    std::uint64_t index = 0;                 // key under the parent when an index
    std::uint64_t next_index = 0;            // where `[]` appends
    std::uint32_t parent = no_node;
    std::uint32_t first_child = no_node, last_child = no_node, next_sibling = no_node;
    std::uint32_t child_count = 0;
    bool container = false;
    bool leaf = false;      // holds a value (the old is_leaf_ flag)
    bool is_index = false;  // keyed by index under the parent
};

struct form_scratch {
    std::string arena;
    std::vector<form_node> nodes;
    // Open addressing: generation << 32 | node id; a slot of another generation (call) is
    // empty, so the table needs no clearing between calls.
    std::vector<std::uint64_t> table;
    std::size_t table_used = 0;
    std::uint32_t generation = 0;
    std::vector<std::pair<std::size_t, std::size_t>> segs;
    // emit()'s work lists, used as stacks: each level works above the size it found.
    std::vector<std::uint32_t> ids;
    std::vector<std::pair<std::uint64_t, std::size_t>> order;
    std::vector<std::size_t> groups;
};

// What a node of the tree counts against the size budget (form_reader::over_budget).
constexpr std::size_t tree_bytes_per_node = 56 + 32 + 64;

// A buffer above this is released after the call, so one huge body does not pin its memory.
constexpr std::size_t scratch_keep_bytes = std::size_t{16} << 20;

template <class V>
void release_if_huge(V& v) {
    if (v.capacity() * sizeof(typename V::value_type) > scratch_keep_bytes) {
        V().swap(v);
    }
}

// What both readers hold: the input, the builder, infer=true, the per-thread scratch.
template <class Scratch>
class reader_base {
protected:
    reader_base(std::string_view in, builder& b, bool infer, Scratch& s)
        : in_(in), b_(b), infer_(infer), s_(s) {}
    reader_base(const reader_base&) = delete;
    reader_base& operator=(const reader_base&) = delete;

    std::string_view in_;
    builder& b_;
    bool infer_;
    Scratch& s_;
};

class form_reader : reader_base<form_scratch> {
public:
    form_reader(std::string_view in, builder& b, bool infer)
        : reader_base(in, b, infer, thread_scratch()) {}
    ~form_reader() {
        release_if_huge(s_.arena);
        release_if_huge(s_.nodes);
        release_if_huge(s_.table);
        release_if_huge(s_.segs);
        release_if_huge(s_.ids);
        release_if_huge(s_.order);
        release_if_huge(s_.groups);
    }

    result<void> run() {
        // One line break at the very end is not part of the form (files and here-strings end
        // with one; an encoder never writes a raw line break, it writes %0A).
        if (!in_.empty() && in_.back() == '\n') {
            in_.remove_suffix(in_.size() >= 2 && in_[in_.size() - 2] == '\r' ? 2 : 1);
        }
        nodes_.push_back({});
        nodes_[0].container = true;
        std::size_t pos = 0;
        while (pos <= in_.size()) {
            std::size_t amp = in_.find('&', pos);
            std::size_t end = amp == std::string_view::npos ? in_.size() : amp;
            if (end > pos) {
                POLYCODEC_TRY(pair(pos, end));
            }
            pos = end + 1;
        }
        return emit(0, 0);
    }

private:
    static form_scratch& thread_scratch() {
        thread_local form_scratch s;
        s.arena.clear();
        s.nodes.clear();
        s.table_used = 0;
        if (++s.generation == 0) {  // wrapped: slots of generation 0 would look live
            std::fill(s.table.begin(), s.table.end(), 0);
            s.generation = 1;
        }
        s.segs.clear();
        s.ids.clear();
        s.order.clear();
        s.groups.clear();
        return s;
    }

    // Percent-decodes in_[from, to) onto the arena; returns the decoded length.
    result<std::size_t> decode_text(std::size_t from, std::size_t to) {
        std::size_t start = arena_.size();
        for (std::size_t p = from; p < to; ++p) {
            char c = in_[p];
            if (c == '+') {
                arena_.push_back(' ');
            } else if (c == '%') {
                int hi = p + 1 < to ? hex_digit(in_[p + 1]) : -1;
                int lo = p + 2 < to ? hex_digit(in_[p + 2]) : -1;
                if (hi < 0 || lo < 0) {
                    return fail(make_error(errc::invalid_string, p,
                                           "expected two hex digits after '%'"));
                }
                arena_.push_back(static_cast<char>(hi * 16 + lo));
                p += 2;
            } else {
                arena_.push_back(c);
            }
        }
        std::string_view text(arena_.data() + start, arena_.size() - start);
        std::size_t valid = utf8_valid_prefix(text);
        if (valid != text.size()) {
            // The source offset of decoded byte `valid`.
            std::size_t p = from;
            for (std::size_t k = 0; k < valid; ++k) {
                p += in_[p] == '%' ? 3 : 1;
            }
            return fail(make_error(errc::invalid_utf8, p, "invalid UTF-8 after percent-decoding"));
        }
        return arena_.size() - start;
    }

    std::string_view arena(std::size_t off, std::size_t len) const {
        return std::string_view(arena_).substr(off, len);
    }


    // ---- (parent, key) -> child lookup: open addressing, linear probing, load <= 1/2 ----

    static std::uint64_t mix(std::uint64_t h) {
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 33;
        return h;
    }

    static std::uint64_t key_hash(std::uint32_t parent, bool is_index, std::uint64_t index,
                                  std::string_view name) {
        std::uint64_t h = (std::uint64_t{parent} << 1 | (is_index ? 1u : 0u)) *
                          0x9e3779b97f4a7c15ULL;
        if (is_index) {
            return mix(h ^ index);
        }
        h ^= name.size();
        std::size_t i = 0;
        for (; i + 8 <= name.size(); i += 8) {
            std::uint64_t w;
            std::memcpy(&w, name.data() + i, 8);
            h = (h ^ w) * 0x100000001b3ULL;
            h ^= h >> 29;
        }
        std::uint64_t tail = 0;
        std::memcpy(&tail, name.data() + i, name.size() - i);
        return mix(h ^ tail);
    }

    std::uint64_t node_hash(const form_node& n) const {
        return key_hash(n.parent, n.is_index, n.index, arena(n.name_off, n.name_len));
    }

    std::uint32_t find(std::uint32_t parent, bool is_index, std::uint64_t index,
                       std::string_view name) const {
        if (table_.empty()) {
            return no_node;
        }
        std::size_t mask = table_.size() - 1;
        for (std::size_t i = key_hash(parent, is_index, index, name) & mask;; i = (i + 1) & mask) {
            if ((table_[i] >> 32) != s_.generation) {
                return no_node;
            }
            auto id = static_cast<std::uint32_t>(table_[i]);
            const form_node& n = nodes_[id];
            if (n.parent == parent && n.is_index == is_index &&
                (is_index ? n.index == index : arena(n.name_off, n.name_len) == name)) {
                return id;
            }
        }
    }

    void place(std::uint32_t id, std::uint64_t h) {
        std::size_t mask = table_.size() - 1;
        std::size_t i = h & mask;
        while ((table_[i] >> 32) == s_.generation) {
            i = (i + 1) & mask;
        }
        table_[i] = std::uint64_t{s_.generation} << 32 | id;
    }

    void insert(std::uint32_t id) {
        if ((s_.table_used + 1) * 2 > table_.size()) {
            std::size_t size = table_.empty() ? 64 : table_.size() * 2;
            // The ids already placed: collect them, then re-place them in the larger table.
            std::size_t base = s_.ids.size();
            for (std::uint64_t old : table_) {
                if ((old >> 32) == s_.generation) {
                    s_.ids.push_back(static_cast<std::uint32_t>(old));
                }
            }
            table_.assign(size, 0);
            for (std::size_t k = base; k < s_.ids.size(); ++k) {
                place(s_.ids[k], node_hash(nodes_[s_.ids[k]]));
            }
            s_.ids.resize(base);
        }
        place(id, node_hash(nodes_[id]));
        ++s_.table_used;
    }

    std::uint32_t new_child(std::uint32_t parent) {
        auto id = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back({});
        nodes_[id].parent = parent;
        form_node& p = nodes_[parent];
        detail::append_child<&form_node::first_child, &form_node::last_child,
                             &form_node::next_sibling>(p, nodes_, id, no_node);
        ++p.child_count;
        return id;
    }

    // The child of `parent` named by segment `seg` ("" = append), created when absent.
    std::uint32_t child(std::uint32_t parent, std::string_view seg, std::size_t seg_off,
                        bool top) {
        bool is_index = false;
        std::uint64_t index = 0;
        std::uint64_t idx = 0;
        if (!top && seg.empty()) {
            is_index = true;
            index = nodes_[parent].next_index;
        } else if (!top && canonical_index(seg, idx)) {
            is_index = true;
            index = idx;
        }
        bool appended = is_index && seg.empty();
        if (!appended) {
            std::uint32_t found = find(parent, is_index, index, seg);
            if (found != no_node) {
                return found;
            }
        }
        std::uint32_t id = new_child(parent);
        form_node& n = nodes_[id];
        n.is_index = is_index;
        if (is_index) {
            n.index = index;
            nodes_[parent].next_index = std::max(nodes_[parent].next_index, index + 1);
        } else {
            n.name_off = seg_off;
            n.name_len = seg.size();
        }
        if (!appended) {
            insert(id);
        }
        return id;
    }

    // A node that must hold children becomes a container; a leaf that was there becomes its
    // first element (`a=1&a[]=2` reads as {"a": ["1", "2"]}).
    void make_container(std::uint32_t n) {
        if (nodes_[n].container) {
            return;
        }
        nodes_[n].container = true;
        if (!nodes_[n].leaf) {
            return;
        }
        nodes_[n].leaf = false;
        std::uint32_t id = new_child(n);
        form_node& leaf = nodes_[id];
        leaf.text_off = nodes_[n].text_off;
        leaf.text_len = nodes_[n].text_len;
        leaf.is_index = true;
        leaf.index = 0;
        leaf.leaf = true;
        nodes_[n].next_index = 1;
    }

    // The tree costs far more per pair than the tape (`a&a&a…` is 2 bytes a node): it counts
    // against the document's size budget, so a large input fails with size_exceeded instead
    // of taking memory without bound. The cost per node is the one the tree had with a
    // std::vector per node and a separate key record (56 + 32 bytes, plus 64 for its hash map
    // entry), kept so that the budget stops at the same pair as before.
    bool over_budget() const {
        static_assert(sizeof(form_node) + 2 * sizeof(std::uint64_t) <= tree_bytes_per_node,
                      "the budget must cover a node and its table slots");
        return nodes_.size() * tree_bytes_per_node + arena_.size() > b_.limits().max_bytes;
    }

    result<void> pair(std::size_t from, std::size_t to) {
        if (over_budget()) {
            return fail(make_error(errc::size_exceeded, from,
                                   "document larger than its size budget"));
        }
        std::size_t eq = in_.find('=', from);
        if (eq == std::string_view::npos || eq > to) {
            eq = to;
        }
        auto klen = decode_text(from, eq);
        if (!klen) {
            return fail(klen.error());
        }
        std::size_t koff = arena_.size() - *klen;
        std::size_t voff = arena_.size();
        std::size_t vlen = 0;
        if (eq < to) {
            auto v = decode_text(eq + 1, to);
            if (!v) {
                return fail(v.error());
            }
            vlen = *v;
        }
        std::string_view key = arena(koff, *klen);  // after the value: the arena may move
        // Segments: name, then [seg]... when the whole key has that shape; else one name.
        segs_.clear();
        std::size_t open = key.find('[');
        bool nested = open != std::string_view::npos && open > 0;
        if (nested) {
            segs_.push_back({koff, open});
            std::size_t p = open;
            while (p < key.size()) {
                if (key[p] != '[') {
                    nested = false;
                    break;
                }
                std::size_t close = key.find_first_of("[]", p + 1);
                if (close == std::string_view::npos || key[close] != ']') {
                    nested = false;
                    break;
                }
                segs_.push_back({koff + p + 1, close - p - 1});
                p = close + 1;
            }
        }
        if (!nested) {
            segs_.clear();
            segs_.push_back({koff, key.size()});
        }
        std::uint32_t cur = 0;
        for (std::size_t i = 0; i < segs_.size(); ++i) {
            make_container(cur);
            std::uint32_t c = child(cur, arena(segs_[i].first, segs_[i].second), segs_[i].first,
                                    i == 0);
            if (i + 1 == segs_.size()) {
                if (nodes_[c].container || nodes_[c].leaf) {
                    // Repeated: the value joins an array (qs's combine).
                    make_container(c);
                    std::uint32_t leaf = child(c, std::string_view(), 0, false);
                    nodes_[leaf].text_off = voff;
                    nodes_[leaf].text_len = vlen;
                    nodes_[leaf].leaf = true;
                } else {
                    nodes_[c].text_off = voff;
                    nodes_[c].text_len = vlen;
                    nodes_[c].leaf = true;
                }
            }
            cur = c;
        }
        return {};
    }

    result<void> limit() {
        return fail(limit_error(b_, in_.size()));
    }

    // emit() recurses (as deep as the builder's depth limit lets it); its work lists are the
    // scratch vectors used as stacks: a level works at and above the size it found and cuts
    // them back before it returns. Elements are read by position, never by reference, because
    // a deeper level may grow (move) the vectors.
    result<void> emit(std::uint32_t n, int depth) {
        if (!nodes_[n].container) {
            std::string_view text = arena(nodes_[n].text_off, nodes_[n].text_len);
            if (infer_) {
                textinfer::add(b_, text);
            } else {
                b_.add_string(text);
            }
            return {};
        }
        std::vector<std::uint32_t>& ids = s_.ids;
        std::vector<std::pair<std::uint64_t, std::size_t>>& order = s_.order;
        const std::size_t base = ids.size();
        const std::size_t count = nodes_[n].child_count;
        bool all_index = n != 0;
        for (std::uint32_t c = nodes_[n].first_child; c != no_node; c = nodes_[c].next_sibling) {
            ids.push_back(c);
            all_index = all_index && nodes_[c].is_index;
        }
        if (all_index) {
            if (!b_.begin_array()) {
                return limit();
            }
            // Stable by index: (index, position) pairs sorted, as std::stable_sort would order
            // them (without its temporary buffer).
            const std::size_t obase = order.size();
            for (std::size_t i = 0; i < count; ++i) {
                order.emplace_back(nodes_[ids[base + i]].index, i);
            }
            std::sort(order.begin() + static_cast<std::ptrdiff_t>(obase), order.end());
            for (std::size_t i = 0; i < count; ++i) {
                POLYCODEC_TRY(emit(ids[base + order[obase + i].second], depth + 1));
            }
            order.resize(obase);
            ids.resize(base);
            b_.end_array();
            return {};
        }
        if (!b_.begin_map()) {
            return limit();
        }
        // In a map, two children can carry the same index: an appended one ("a[]=", or a plain
        // value under a container name) and an explicit "a[0]=". They become one key whose
        // value is the array of both, in input order, as qs reads `a[b]=1&a[0]=2&a[0]=3`
        // (fuzz_decode_urlform found the duplicate key "0", which the encoder cannot write).
        std::vector<std::size_t>& group_of = s_.groups;  // first position of each one's group
        const std::size_t gbase = group_of.size();
        group_of.resize(gbase + count, SIZE_MAX);
        {
            const std::size_t obase = order.size();  // (index, position)
            for (std::size_t i = 0; i < count; ++i) {
                if (nodes_[ids[base + i]].is_index) {
                    order.emplace_back(nodes_[ids[base + i]].index, i);
                }
            }
            std::sort(order.begin() + static_cast<std::ptrdiff_t>(obase), order.end());
            for (std::size_t j = obase + 1; j < order.size(); ++j) {
                if (order[j].first == order[j - 1].first) {
                    std::size_t prev = gbase + order[j - 1].second;
                    std::size_t first = group_of[prev] == SIZE_MAX ? order[j - 1].second
                                                                   : group_of[prev];
                    group_of[prev] = first;
                    group_of[gbase + order[j].second] = first;
                }
            }
            order.resize(obase);
        }
        for (std::size_t i = 0; i < count; ++i) {
            std::uint32_t c = ids[base + i];
            std::size_t group = group_of[gbase + i];
            if (group != SIZE_MAX && group != i) {
                continue;  // emitted with the first of its group
            }
            if (nodes_[c].is_index) {
                char buf[24];
                auto tc = std::to_chars(buf, buf + sizeof buf, nodes_[c].index);
                b_.add_string(std::string_view(buf, static_cast<std::size_t>(tc.ptr - buf)));
            } else {
                b_.add_string(arena(nodes_[c].name_off, nodes_[c].name_len));
            }
            if (group == i) {
                if (!b_.begin_array()) {
                    return limit();
                }
                for (std::size_t j = i; j < count; ++j) {
                    if (group_of[gbase + j] == i) {
                        POLYCODEC_TRY(emit(ids[base + j], depth + 1));
                    }
                }
                b_.end_array();
                continue;
            }
            POLYCODEC_TRY(emit(c, depth + 1));
        }
        group_of.resize(gbase);
        ids.resize(base);
        b_.end_map();
        return {};
    }

    std::string& arena_ = s_.arena;
    std::vector<form_node>& nodes_ = s_.nodes;
    std::vector<std::uint64_t>& table_ = s_.table;
    std::vector<std::pair<std::size_t, std::size_t>>& segs_ = s_.segs;
};

// ---- the fast path ----

// One pass that writes the Document through the builder as it reads, for the forms encoders
// write: pair names that are a plain name or name[seg]..., no '%' or '+' in a name, no name
// twice under one map and each container's pairs consecutive (so every map's entries come in
// input order), arrays written as indexes in order from 0 (a[0]=x&a[1]=y), never mixed with
// names. Anything else (a repeated or re-opened name, "[]", an index gap or out of order, a
// bad escape, invalid UTF-8, the tree's size budget, the builder's limits, a map of many
// entries, deep nesting) gives way: the builder is reset and form_reader reads the input from
// the start, so outputs and errors are form_reader's.
constexpr std::size_t fast_max_levels = 16;     // open maps, the root included
constexpr std::size_t fast_max_children = 64;   // entries of one map (names scanned linearly)

// Byte classes: what ends or disturbs a pair name, and what a value must decode or check.
constexpr std::uint8_t fc_amp = 1;      // '&'
constexpr std::uint8_t fc_eq = 2;       // '='
constexpr std::uint8_t fc_escape = 4;   // '%' '+'
constexpr std::uint8_t fc_bracket = 8;  // '[' ']'
constexpr std::uint8_t fc_high = 16;    // >= 0x80 (UTF-8 to check)

constexpr struct fast_class_table {
    std::uint8_t v[256];
    constexpr fast_class_table() : v() {
        v[static_cast<unsigned char>('&')] = fc_amp;
        v[static_cast<unsigned char>('=')] = fc_eq;
        v[static_cast<unsigned char>('%')] = fc_escape;
        v[static_cast<unsigned char>('+')] = fc_escape;
        v[static_cast<unsigned char>('[')] = fc_bracket;
        v[static_cast<unsigned char>(']')] = fc_bracket;
        for (int c = 0x80; c < 256; ++c) {
            v[c] = fc_high;
        }
    }
} fast_class;

struct fast_scratch {
    std::string text;                     // a value with escapes, decoded
    std::vector<std::string_view> names;  // the entry names of the open maps, outer first
};

class fast_form_reader : reader_base<fast_scratch> {
public:
    fast_form_reader(std::string_view in, builder& b, bool infer)
        : reader_base(in, b, infer, thread_scratch()) {}
    ~fast_form_reader() { release_if_huge(s_.text); }

    // True with the document built; false where it gives way.
    bool run() {
        if (!in_.empty() && in_.back() == '\n') {  // as form_reader::run
            in_.remove_suffix(in_.size() >= 2 && in_[in_.size() - 2] == '\r' ? 2 : 1);
        }
        if (!b_.begin_map()) {
            return false;
        }
        levels_[0] = {std::string_view(), 0, false, 0};
        depth_ = 1;
        const std::size_t n = in_.size();
        const char* const d = in_.data();
        std::size_t pos = 0;
        while (pos <= n) {
            // The name, up to '=' or '&'.
            std::size_t p = pos;
            std::uint8_t seen = 0;
            std::size_t open = std::string_view::npos;
            for (; p < n; ++p) {
                const std::uint8_t c = fast_class.v[static_cast<unsigned char>(d[p])];
                if (c == 0) {
                    continue;
                }
                if (c & (fc_amp | fc_eq)) {
                    break;
                }
                if (c == fc_bracket && open == std::string_view::npos && d[p] == '[') {
                    open = p - pos;
                }
                seen |= c;
            }
            if (p == pos && (p == n || d[p] == '&')) {  // an empty pair
                pos = p + 1;
                continue;
            }
            // form_reader::pair's budget check, with the same counts: its nodes (the root and
            // one a new name) and its arena (each pair's decoded name and value).
            if (nodes_ * tree_bytes_per_node + arena_ > b_.limits().max_bytes) {
                return false;
            }
            if (seen & fc_escape) {
                return false;
            }
            const std::string_view key(d + pos, p - pos);
            if ((seen & fc_high) && utf8_valid_prefix(key) != key.size()) {
                return false;
            }
            // The value, up to '&'.
            std::string_view val;
            std::size_t end = p;
            if (p < n && d[p] == '=') {
                std::size_t q = p + 1;
                std::uint8_t vseen = 0;
                for (; q < n; ++q) {
                    const std::uint8_t c = fast_class.v[static_cast<unsigned char>(d[q])];
                    if (c == fc_amp) {
                        break;
                    }
                    vseen |= c;
                }
                end = q;
                val = std::string_view(d + p + 1, q - p - 1);
                if (vseen & fc_escape) {
                    if (!unescape(val, vseen)) {
                        return false;
                    }
                    val = s_.text;
                }
                if ((vseen & fc_high) && utf8_valid_prefix(val) != val.size()) {
                    return false;
                }
            }
            arena_ += key.size() + val.size();
            if (!place(key, open, val)) {
                return false;
            }
            pos = end + 1;
        }
        while (depth_ > 0) {
            --depth_;
            if (levels_[depth_].array) {
                b_.end_array();
            } else {
                b_.end_map();
            }
        }
        return b_.ok();
    }

private:
    struct level {
        std::string_view name;   // under the parent (an array's element: its index)
        std::size_t names_from;  // a map's entries' names: s_.names[names_from...]
        bool array;
        std::uint64_t next;      // an array's next index
    };

    static fast_scratch& thread_scratch() {
        return detail::thread_scratch<fast_scratch, &fast_scratch::names>();
    }

    // Percent-decodes `raw` into s_.text; false on a bad escape. A byte >= 0x80 that %XX made
    // adds fc_high to `seen`.
    bool unescape(std::string_view raw, std::uint8_t& seen) {
        std::string& t = s_.text;
        t.resize(raw.size());
        char* w = t.data();
        for (std::size_t i = 0; i < raw.size(); ++i) {
            const char c = raw[i];
            if (c == '+') {
                *w++ = ' ';
            } else if (c == '%') {
                if (i + 2 >= raw.size()) {
                    return false;
                }
                const int hi = hex_digit(raw[i + 1]);
                const int lo = hex_digit(raw[i + 2]);
                if (hi < 0 || lo < 0) {
                    return false;
                }
                *w++ = static_cast<char>(hi * 16 + lo);
                seen |= hi >= 8 ? fc_high : 0;
                i += 2;
            } else {
                *w++ = c;
            }
        }
        t.resize(static_cast<std::size_t>(w - t.data()));
        return true;
    }

    // Splits `key` as form_reader::pair does (name, then [seg]... when the whole key has that
    // shape; else the key is one name) and adds the value under that path.
    bool place(std::string_view key, std::size_t open, std::string_view val) {
        // Segments as (offset, length) in `key`: plain arrays, left uninitialised.
        std::size_t seg_at[fast_max_levels];
        std::size_t seg_len[fast_max_levels];
        auto seg = [&](std::size_t i) {
            return std::string_view(key.data() + seg_at[i], seg_len[i]);
        };
        bool is_index[fast_max_levels];
        std::uint64_t index[fast_max_levels];
        std::size_t count = 0;
        bool nested = open != std::string_view::npos && open > 0;
        if (nested) {
            is_index[0] = false;
            seg_at[0] = 0;
            seg_len[0] = open;
            count = 1;
            std::size_t p = open;
            while (p < key.size()) {
                if (key[p] != '[') {
                    nested = false;
                    break;
                }
                std::size_t close = p + 1;  // the next bracket (find_first_of, inline)
                while (close < key.size() &&
                       fast_class.v[static_cast<unsigned char>(key[close])] != fc_bracket) {
                    ++close;
                }
                if (close == key.size() || key[close] != ']') {
                    nested = false;
                    break;
                }
                // "[]" appends (the tree reader's work); an index is an array's next element.
                if (close == p + 1 || count == fast_max_levels) {
                    return false;
                }
                seg_at[count] = p + 1;
                seg_len[count] = close - p - 1;
                is_index[count] = canonical_index(seg(count), index[count]);
                ++count;
                p = close + 1;
            }
        }
        if (!nested) {
            seg_at[0] = 0;
            seg_len[0] = key.size();
            is_index[0] = false;
            count = 1;
        }
        // The containers still open that the path goes through stay open; the others are done.
        std::size_t same = 0;
        while (same + 1 < count && same + 1 < depth_ && levels_[same + 1].name == seg(same)) {
            ++same;
        }
        while (depth_ > same + 1) {
            --depth_;
            s_.names.resize(levels_[depth_].names_from);
            if (levels_[depth_].array) {
                b_.end_array();
            } else {
                b_.end_map();
            }
        }
        for (std::size_t i = same; i < count; ++i) {
            level& l = levels_[depth_ - 1];
            if (l.array) {
                // Indexes in order from 0, as encoders write arrays; a gap, a repeat, an
                // index out of order or a name among them: the tree reader's work.
                if (!is_index[i] || index[i] != l.next) {
                    return false;
                }
                ++l.next;
            } else {
                if (is_index[i]) {
                    return false;  // an index among names: a map keyed "0", ...
                }
                const std::size_t from = l.names_from;
                if (s_.names.size() - from >= fast_max_children) {
                    return false;
                }
                for (std::size_t k = from; k < s_.names.size(); ++k) {
                    if (s_.names[k] == seg(i)) {
                        return false;  // a name again: arrays, or a map re-opened
                    }
                }
                s_.names.push_back(seg(i));
                b_.add_string(seg(i));
            }
            ++nodes_;
            if (i + 1 == count) {
                if (infer_) {
                    textinfer::add(b_, val);
                } else {
                    b_.add_string(val);
                }
                break;
            }
            // A container: an array when its first key is an index (it must be 0).
            const bool array = is_index[i + 1];
            if (depth_ == fast_max_levels || !(array ? b_.begin_array() : b_.begin_map())) {
                return false;
            }
            levels_[depth_++] = {seg(i), s_.names.size(), array, 0};
        }
        return true;
    }

    level levels_[fast_max_levels];
    std::size_t depth_ = 0;
    std::size_t nodes_ = 1;  // the tree's count: its root, and a node per name
    std::size_t arena_ = 0;  // the tree's arena: the decoded names and values
};

}  // namespace

bool decode_urlform_fast(std::string_view in, builder& b, const decode_options& opt) {
    if (b.depth() != 0 || b.next_index() != 0) {
        return false;
    }
    fast_form_reader r(in, b, opt.infer);
    if (r.run()) {
        return true;
    }
    b.reset();
    return false;
}

result<void> decode_urlform_tree(std::string_view in, builder& b, const decode_options& opt) {
    form_reader r(in, b, opt.infer);
    return r.run();
}

namespace {

result<void> decode_urlform(std::string_view in, builder& b, const decode_options& opt) {
    if (decode_urlform_fast(in, b, opt)) {
        return {};
    }
    return decode_urlform_tree(in, b, opt);
}

// ---- writer ----

// True when `key`, read as a whole pair name, splits into name[seg]... (the reader's rule in
// form_reader::pair).
bool forms_nesting(std::string_view key) {
    std::size_t open = key.find('[');
    if (open == std::string_view::npos || open == 0) {
        return false;
    }
    std::size_t p = open;
    while (p < key.size()) {
        if (key[p] != '[') {
            return false;
        }
        std::size_t close = key.find_first_of("[]", p + 1);
        if (close == std::string_view::npos || key[close] != ']') {
            return false;
        }
        p = close + 1;
    }
    return true;
}

// The bytes written as they are (RFC 3986 unreserved); every other byte as %XX.
constexpr struct unreserved_table {
    bool v[256];
    constexpr unreserved_table() : v() {
        for (int c = 0; c < 256; ++c) {
            v[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '-' || c == '.' || c == '_' || c == '~';
        }
    }
} unreserved_bytes;

// Writes `s` percent-encoded at `dst` (room for 3 bytes per byte of s); returns its end.
char* percent_encode_to(char* dst, std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    const char* p = s.data();
    std::size_t n = s.size();
    for (;;) {
        // A run of unreserved bytes, copied as it is scanned (one index for both).
        std::size_t i = 0;
        for (; i + 4 <= n; i += 4) {  // four at a time, then one
            const auto* u = reinterpret_cast<const unsigned char*>(p + i);
            if (!(unreserved_bytes.v[u[0]] & unreserved_bytes.v[u[1]] &
                  unreserved_bytes.v[u[2]] & unreserved_bytes.v[u[3]])) {
                break;
            }
            std::memcpy(dst + i, p + i, 4);
        }
        while (i < n && unreserved_bytes.v[static_cast<unsigned char>(p[i])]) {
            dst[i] = p[i];
            ++i;
        }
        dst += i;
        if (i == n) {
            return dst;
        }
        const auto c = static_cast<unsigned char>(p[i]);
        dst[0] = '%';
        dst[1] = hex[c >> 4];
        dst[2] = hex[c & 15];
        dst += 3;
        p += i + 1;
        n -= i + 1;
    }
}

// The writer's strings, kept per thread and reused across calls (#6).
struct writer_scratch {
    std::string prefix, key, text, enc;
};

class form_writer {
public:
    form_writer(output_buffer& out, const encode_options& opt)
        : out_(out), opt_(opt), s_(thread_scratch()) {}
    form_writer(const form_writer&) = delete;
    form_writer& operator=(const form_writer&) = delete;
    ~form_writer() {
        release_if_huge(prefix_);
        release_if_huge(key_);
        release_if_huge(text_);
        release_if_huge(enc_);
    }

    result<void> write_map(value m, bool top) {
        const std::size_t base = plen_;
        bool all_index = !top && m.size() != 0;
        for (auto [k, v] : m.entries()) {
            if (!all_index) {
                break;
            }
            if (k.kind() == kind::string) {
                all_index = index_like(k.get_string());
                continue;
            }
            all_index = (k.kind() == kind::int64 || k.kind() == kind::uint64) &&
                        textinfer::scalar_text(k, key_) && index_like(key_);
        }
        if (all_index && !allow_lossy(opt_, m, "map_to_array",
                                      "map with index keys written as an array")) {
            return fail(unrepresentable(m, "a map whose keys are all array indices is not "
                                           "representable in urlform (it reads back as an "
                                           "array)"));
        }
        // The entries, walked on the tape (a string, the usual key and value, is two words).
        const document* const doc = m.doc();
        const std::uint64_t* const tape = doc->tape().data();
        auto kind_at = [tape](std::size_t i) {
            return static_cast<kind>(tape[i] >> document::kind_shift);
        };
        const std::size_t end = m.end_index();
        for (std::size_t at = m.index() + 2; at < end;) {
            const value k(doc, at);
            const bool string_key = kind_at(at) == kind::string;
            const value v(doc, string_key ? at + 2 : k.end_index());
            at = kind_at(v.index()) == kind::string ? v.index() + 2 : v.end_index();
            if (string_key && k.get_string().size() != 0) {
                // A key of unreserved bytes only (percent-encoding leaves it as it is) has no
                // brackets, so every rule below passes: written at once, checked as it is
                // copied.
                const std::string_view name = k.get_string();
                plen_ = base;
                char* const start = prefix_room(2 + 3 * name.size()) + (top ? 0 : 1);
                char* w = percent_encode_to(start, name);
                if (static_cast<std::size_t>(w - start) == name.size()) {
                    if (!top) {
                        start[-1] = '[';
                        *w++ = ']';
                    }
                    prefix_end(w);
                    if (v.kind() == kind::string) {
                        put(v.get_string());
                    } else {
                        POLYCODEC_TRY(write(v));
                    }
                    continue;
                }
            }
            std::string_view key;  // a view into the Document, or the scratch string
            if (k.is_bool() || k.kind() == kind::float64 || k.kind() == kind::bytes ||
                !textinfer::scalar_view(k, key_, key)) {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "urlform"));
                key_ = std::move(text);
                key = key_;
            }
            // A top-level name with brackets that do not form name[key] nesting reads back as
            // that literal name ("a]", "[a]", as qs does), so it is written percent-encoded when
            // its value is a scalar (found by fuzz_decode_urlform); other bracketed keys would
            // read back nested.
            // The reader splits a pair name at its first '[' into NAME[seg]...: a top-level key
            // over a container needs a non-empty NAME without '[' (']' is fine: "a]" + "[b]"
            // reads back as name "a]", key "b"); nested keys need no brackets at all.
            const bool has_open = key.find('[') != std::string_view::npos;
            bool literal_ok = top && !v.is_container() && !forms_nesting(key);
            bool name_ok = top && v.is_container() && !key.empty() && !has_open;
            if (top && (key.empty() || (has_open && !forms_nesting(key))) && repeatable(v)) {
                // A name that cannot carry "[0]" (empty, or brackets read literally) over two or
                // more scalars: the repeated name, "=a&=b" for {"": ["a", "b"]}.
                for (value c : v.items()) {
                    plen_ = base;
                    prefix_end(percent_encode_to(prefix_room(3 * key.size()), key));
                    POLYCODEC_TRY(write(c));
                }
                continue;
            }
            if ((key.find_first_of("[]") != std::string_view::npos && !literal_ok && !name_ok) ||
                (!top && key.empty()) || (top && key.empty() && v.is_container())) {
                if (!allow_lossy(opt_, k, "key_brackets", "key with brackets written as is")) {
                    return fail(unrepresentable(
                        k, key.empty() ? std::string(top ? "an empty name over a map, or over an "
                                                            "array of fewer than two scalars, is "
                                                            "not representable in urlform"
                                                          : "an empty nested key is not "
                                                            "representable in urlform")
                                        : "key '" + std::string(key) + "' with '[' or ']' is not "
                                                           "representable in urlform"));
                }
            }
            plen_ = base;
            char* w = prefix_room(2 + 3 * key.size());
            if (!top) {
                *w++ = '[';
            }
            w = percent_encode_to(w, key);
            if (!top) {
                *w++ = ']';
            }
            prefix_end(w);
            POLYCODEC_TRY(write(v));
        }
        plen_ = base;
        return {};
    }

private:
    // The key path so far is prefix_[0, plen_); prefix_ is only storage, grown and never cut,
    // so that writing a key into it needs no zero-fill.
    [[gnu::always_inline]] char* prefix_room(std::size_t k) {
        if (prefix_.size() < plen_ + k) {
            grow_prefix(k);
        }
        return prefix_.data() + plen_;
    }
    [[gnu::noinline]] void grow_prefix(std::size_t k) {
        prefix_.resize(std::max(plen_ + k, 2 * prefix_.size()));
    }
    void prefix_end(const char* w) { plen_ = static_cast<std::size_t>(w - prefix_.data()); }

    // An array that the repeated-name form ("=a&=b") carries: two or more scalars.
    static bool repeatable(value v) {
        if (v.kind() != kind::array || v.size() < 2) {
            return false;
        }
        for (value c : v.items()) {
            if (c.is_container() || c.kind() == kind::tagged) {
                return false;
            }
        }
        return true;
    }

    static bool index_like(std::string_view s) {
        if (s.empty() || s.size() > 19 || (s.size() > 1 && s[0] == '0')) {
            return false;
        }
        return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    }

    result<void> write(value v) {
        std::string_view text;  // null: empty
        switch (v.kind()) {
            case kind::map:
                if (v.size() == 0) {
                    if (!allow_lossy(opt_, v, "empty_dropped", "empty map dropped")) {
                        return fail(unrepresentable(v, "an empty map is not representable in "
                                                       "urlform"));
                    }
                    return {};
                }
                return write_map(v, false);
            case kind::array: {
                if (v.size() == 0) {
                    if (!allow_lossy(opt_, v, "empty_dropped", "empty array dropped")) {
                        return fail(unrepresentable(v, "an empty array is not representable in "
                                                       "urlform"));
                    }
                    return {};
                }
                const std::size_t base = plen_;
                std::uint64_t i = 0;
                for (value c : v.items()) {
                    plen_ = base;
                    char* w = prefix_room(2 + 20);
                    *w++ = '[';
                    w = std::to_chars(w, w + 20, i++).ptr;
                    *w++ = ']';
                    prefix_end(w);
                    POLYCODEC_TRY(write(c));
                }
                plen_ = base;
                return {};
            }
            case kind::tagged:
                POLYCODEC_TRY(drop_tag(opt_, v, "urlform"));
                return write(v.tagged_value());
            case kind::null:
                if (!allow_lossy(opt_, v, "null_to_empty", "null written as an empty value")) {
                    return fail(unrepresentable(v, "null is not representable in urlform"));
                }
                break;
            default:
                textinfer::scalar_view(v, text_, text);
        }
        put(text);
        return {};
    }

    // "&" prefix "=" and the value percent-encoded, written in place.
    void put(std::string_view text) {
        char* const begin = out_.prepare(2 + plen_ + 3 * text.size());
        char* w = begin;
        if (!first_) {
            *w++ = '&';
        }
        first_ = false;
        std::memcpy(w, prefix_.data(), plen_);
        w += plen_;
        *w++ = '=';
        w = percent_encode_to(w, text);
        out_.commit(static_cast<std::size_t>(w - begin));
    }

    static writer_scratch& thread_scratch() {
        return detail::thread_scratch<writer_scratch, &writer_scratch::key, &writer_scratch::text,
                                      &writer_scratch::enc>();
    }

    output_buffer& out_;
    const encode_options& opt_;
    writer_scratch& s_;
    std::string& prefix_ = s_.prefix;
    std::size_t plen_ = 0;
    std::string& key_ = s_.key;
    std::string& text_ = s_.text;
    std::string& enc_ = s_.enc;
    bool first_ = true;
};

result<void> encode_urlform(const document& doc, output_buffer& out, const encode_options& opt) {
    value root = doc.root();
    POLYCODEC_TRY(detail::require_map_root(root, "urlform"));
    form_writer w(out, opt);
    return w.write_map(root, true);
}

}  // namespace

const codec_functions urlform_codec{decode_urlform, encode_urlform};

}  // namespace polycodec::detail
