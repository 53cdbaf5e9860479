#pragma once
// unflatten=true of the key=value text formats (dotenv, properties): the flat map of strings
// that a reader produced becomes nested maps by splitting each key at a separator ("__" for
// dotenv as the Rust envy crate reads prefixed variables, "." for Java properties), and with
// `arrays` a group whose names are exactly "0".."n-1" becomes an array in index order;
// infer=true types the leaves (detail/infer.hpp). Runs on the flat map, so each format's line
// grammar stays in one place. Moved here from formats/dotenv.cpp so that both formats share it.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "detail/child_list.hpp"
#include "detail/infer.hpp"
#include "detail/name_slots.hpp"
#include "detail/try.hpp"
#include "polycodec/document.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

struct unflatten_options {
    std::string_view separator = "__";
    bool nest = true;      ///< split keys at the separator (false: only infer)
    bool infer = false;    ///< type the leaves as infer.hpp does
    bool arrays = false;   ///< a group named exactly "0".."n-1" is an array (the root stays a map)
    /// A repeated key replaces the earlier value, which keeps its place (Java's Hashtable);
    /// false: a repeated key is errc::duplicate_key.
    bool last_wins = false;
    /// A key with an empty part ("a..b", ".a", "a.") stays one name (as csv's unflatten).
    bool whole_if_empty_part = false;
    std::string_view noun = "variable";  ///< in messages: "variable A is both ..."
};

namespace unflatten_impl {

// Scratch buffers above this many bytes are released after a call.
inline constexpr std::size_t keep_bytes = std::size_t{16} << 20;
inline constexpr std::uint32_t no_node = UINT32_MAX;
inline constexpr std::size_t no_value = SIZE_MAX;

using name_slots::name_hash;

struct node {
    std::string_view name;
    std::size_t value = no_value;  ///< tape index of the leaf's string in the flat document
    std::uint32_t parent = 0;
    std::uint32_t hash = 0;
    std::uint32_t first_kid = no_node, last_kid = no_node, next = no_node;
    std::uint32_t kids = 0;
};

// The tree (children as intrusive lists), its open-addressing lookup table (node id, 0 =
// empty; the root is never listed) and the array emitter's slots, reused per thread.
struct scratch {
    std::vector<node> nodes;
    std::vector<std::uint32_t> slots;
    std::vector<std::uint32_t> order;
    std::size_t used = 0;
};

/// "0", "17": the canonical decimal text of an index below `limit` (no sign, no leading 0).
inline bool index_name(std::string_view s, std::uint64_t limit, std::uint64_t& out) {
    if (s.empty() || s.size() > 19 || (s.size() > 1 && s[0] == '0')) {
        return false;
    }
    std::uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    out = v;
    return v < limit;
}

class unflattener {
public:
    unflattener(value flat, builder& b, const unflatten_options& o,
                std::span<const std::uint64_t> offsets)
        : flat_(flat), b_(b), o_(o), offsets_(offsets) {}
    ~unflattener() {
        if (nodes_.capacity() * sizeof(node) > keep_bytes) {
            std::vector<node>().swap(nodes_);
        }
        if (s_.slots.capacity() * sizeof(std::uint32_t) > keep_bytes) {
            std::vector<std::uint32_t>().swap(s_.slots);
        }
        if (s_.order.capacity() * sizeof(std::uint32_t) > keep_bytes) {
            std::vector<std::uint32_t>().swap(s_.order);
        }
    }
    unflattener(const unflattener&) = delete;
    unflattener& operator=(const unflattener&) = delete;

    result<void> run() {
        nodes_.push_back({});
        std::size_t entry = 0;
        for (auto [k, v] : flat_.entries()) {
            std::string_view full = k.get_string();
            std::string_view key = full;
            bool split = o_.nest;
            if (split && o_.whole_if_empty_part) {
                split = !has_empty_part(key);
            }
            std::uint32_t cur = 0;
            for (;;) {
                std::size_t sep = !split ? std::string_view::npos
                                  : o_.separator.size() == 1 ? key.find(o_.separator[0])
                                                             : key.find(o_.separator);
                std::string_view part = key.substr(0, sep);
                if (nodes_[cur].value != no_value) {
                    return fail(conflict(full, entry));
                }
                cur = child(cur, part);
                if (sep == std::string_view::npos) {
                    break;
                }
                key.remove_prefix(sep + o_.separator.size());
            }
            node& n = nodes_[cur];
            if (n.first_kid != no_node || (n.value != no_value && !o_.last_wins)) {
                return fail(conflict(full, entry));
            }
            n.value = v.index();
            ++entry;
        }
        return emit(0);
    }

private:
    bool has_empty_part(std::string_view key) const {
        std::string_view sep = o_.separator;
        std::size_t start = 0;
        for (;;) {
            std::size_t p = sep.size() == 1 ? key.find(sep[0], start) : key.find(sep, start);
            std::size_t end = p == std::string_view::npos ? key.size() : p;
            if (end == start) {
                return true;
            }
            if (p == std::string_view::npos) {
                return false;
            }
            start = p + sep.size();
        }
    }

    error conflict(std::string_view key, std::size_t entry) const {
        std::uint64_t at = entry < offsets_.size() ? offsets_[entry] : 0;
        return make_error(errc::duplicate_key, at,
                          std::string(o_.noun) + " " + std::string(key) +
                              " is both a value and a group (or repeated)");
    }

    std::uint32_t child(std::uint32_t parent, std::string_view name) {
        std::uint32_t h = name_hash(parent, name);
        std::vector<std::uint32_t>& slots = s_.slots;
        std::uint32_t found = name_slots::find(slots, h, [&](std::uint32_t k) {
            const node& n = nodes_[k];
            return n.hash == h && n.parent == parent && n.name == name;
        });
        if (found != 0) {
            return found;
        }
        auto id = static_cast<std::uint32_t>(nodes_.size());
        node n;
        n.name = name;
        n.parent = parent;
        n.hash = h;
        nodes_.push_back(n);
        node& p = nodes_[parent];
        append_child<&node::first_kid, &node::last_kid, &node::next>(p, nodes_, id, no_node);
        ++p.kids;
        name_slots::make_room(slots, s_.used, id, [&](std::uint32_t k) { return nodes_[k].hash; });
        name_slots::place(slots, h, id);
        ++s_.used;
        return id;
    }

    /// With `arrays`: true when the kids of `n` are named exactly 0..kids-1.
    bool is_array(const node& n) const {
        if (!o_.arrays || n.first_kid == no_node) {
            return false;
        }
        std::uint64_t idx = 0;
        for (std::uint32_t kid = n.first_kid; kid != no_node; kid = nodes_[kid].next) {
            if (!index_name(nodes_[kid].name, n.kids, idx)) {
                return false;
            }
        }
        return true;  // names are distinct and each below kids: every index is there once
    }

    result<void> emit(std::uint32_t id) {
        const node& n = nodes_[id];
        if (n.value != no_value) {
            std::string_view text = value(flat_.doc(), n.value).get_string();
            if (o_.infer) {
                textinfer::add(b_, text);
            } else {
                b_.add_string(text);
            }
            return {};
        }
        if (id != 0 && is_array(n)) {  // the root stays a map
            if (!b_.begin_array()) {
                return fail(make_error(b_.status(), 0, "nesting deeper than the depth limit"));
            }
            std::vector<std::uint32_t>& order = s_.order;
            std::size_t base = order.size();
            order.resize(base + n.kids);
            std::uint64_t idx = 0;
            for (std::uint32_t kid = n.first_kid; kid != no_node; kid = nodes_[kid].next) {
                index_name(nodes_[kid].name, n.kids, idx);
                order[base + idx] = kid;
            }
            for (std::size_t i = 0; i < n.kids; ++i) {
                POLYCODEC_TRY(emit(order[base + i]));
            }
            order.resize(base);
            b_.end_array();
            return {};
        }
        if (!b_.begin_map()) {
            return fail(make_error(b_.status(), 0, "nesting deeper than the depth limit"));
        }
        for (std::uint32_t kid = n.first_kid; kid != no_node; kid = nodes_[kid].next) {
            b_.add_string(nodes_[kid].name);
            POLYCODEC_TRY(emit(kid));
        }
        b_.end_map();
        return {};
    }

    static scratch& thread_scratch() {
        thread_local scratch s;
        s.nodes.clear();
        s.slots.assign(16, 0);
        s.order.clear();
        s.used = 0;
        return s;
    }

    value flat_;
    builder& b_;
    const unflatten_options& o_;
    std::span<const std::uint64_t> offsets_;
    scratch& s_ = thread_scratch();
    std::vector<node>& nodes_ = s_.nodes;
};

}  // namespace unflatten_impl

/// Writes the nested form of `flat` (a map of string keys and string values) into `b`.
/// `offsets` holds each entry's byte offset in the source (for errors), or is empty.
inline result<void> unflatten(value flat, builder& b, const unflatten_options& o,
                              std::span<const std::uint64_t> offsets = {}) {
    unflatten_impl::unflattener u(flat, b, o, offsets);
    return u.run();
}

}  // namespace polycodec::detail
