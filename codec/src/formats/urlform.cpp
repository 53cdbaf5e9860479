// application/x-www-form-urlencoded (WHATWG URL standard section 5) with the bracket nesting
// of Rails, PHP and npm qs. A form decodes to a map:
//   a=1&b=x%20y        {"a": "1", "b": "x y"}        '+' is a space; %XX must be valid
//   a=1&a=2            {"a": ["1", "2"]}             a repeated key collects an array
//   a[b][c]=1          {"a": {"b": {"c": "1"}}}
//   a[]=1&a[]=2        {"a": ["1", "2"]}
//   a[1]=y&a[0]=x      {"a": ["x", "y"]}             indices order the array, gaps close up
// Keys are percent-decoded before their brackets are read (as qs does). With infer=true values
// are typed by urlform/infer.hpp. The writer takes a map and writes qs.stringify's form with
// encodeValuesOnly (brackets literal, indices for arrays) and RFC 3986 percent-encoding (space
// as %20). docs/formats/urlform.md has every rule.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "detail/lossy.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"
#include "urlform/infer.hpp"

namespace polycodec::detail {
namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// ---- reader ----

// The form as a tree, built first because a key may come back anywhere in the input. Text
// (names and values) lives in one arena string.
struct form_node {
    bool container = false;
    std::size_t text_off = 0, text_len = 0;  // a leaf's value
    std::vector<std::uint32_t> children;     // indices into nodes, in insertion order
    std::uint64_t next_index = 0;            // where `[]` appends
};

struct form_child_key {
    bool is_index = false;
    std::uint64_t index = 0;
    std::size_t name_off = 0, name_len = 0;
};

class form_reader {
public:
    form_reader(std::string_view in, builder& b, bool infer) : in_(in), b_(b), infer_(infer) {}

    result<void> run() {
        // One line break at the very end is not part of the form (files and here-strings end
        // with one; an encoder never writes a raw line break, it writes %0A).
        if (!in_.empty() && in_.back() == '\n') {
            in_.remove_suffix(in_.size() >= 2 && in_[in_.size() - 2] == '\r' ? 2 : 1);
        }
        nodes_.push_back({});
        keys_.push_back({});
        nodes_[0].container = true;
        std::size_t pos = 0;
        while (pos <= in_.size()) {
            std::size_t amp = in_.find('&', pos);
            std::size_t end = amp == std::string_view::npos ? in_.size() : amp;
            if (end > pos) {
                if (auto r = pair(pos, end); !r) {
                    return r;
                }
            }
            pos = end + 1;
        }
        return emit(0, 0);
    }

private:
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

    static bool canonical_index(std::string_view s, std::uint64_t& out) {
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

    // The child of `parent` named by segment `seg` ("" = append), created when absent.
    std::uint32_t child(std::uint32_t parent, std::string_view seg, std::size_t seg_off,
                        bool top) {
        form_child_key key;
        std::uint64_t idx = 0;
        if (!top && seg.empty()) {
            key.is_index = true;
            key.index = nodes_[parent].next_index;
        } else if (!top && canonical_index(seg, idx)) {
            key.is_index = true;
            key.index = idx;
        } else {
            key.name_off = seg_off;
            key.name_len = seg.size();
        }
        if (!(key.is_index && seg.empty())) {
            lookup_.assign(reinterpret_cast<const char*>(&parent), sizeof parent);
            lookup_.push_back(key.is_index ? 'i' : 'n');
            lookup_.append(seg);
            auto it = index_.find(lookup_);
            if (it != index_.end()) {
                return it->second;
            }
        }
        auto id = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back({});
        keys_.push_back(key);
        nodes_[parent].children.push_back(id);
        if (key.is_index) {
            nodes_[parent].next_index = std::max(nodes_[parent].next_index, key.index + 1);
        }
        if (!(key.is_index && seg.empty())) {
            index_.emplace(lookup_, id);
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
        if (!seen_leaf(n)) {
            return;
        }
        is_leaf_[n] = false;
        auto id = static_cast<std::uint32_t>(nodes_.size());
        form_node leaf;
        leaf.text_off = nodes_[n].text_off;
        leaf.text_len = nodes_[n].text_len;
        form_child_key k;
        k.is_index = true;
        k.index = 0;
        nodes_.push_back(leaf);
        keys_.push_back(k);
        nodes_[n].children.push_back(id);
        nodes_[n].next_index = 1;
        set_leaf(id);
    }

    // The tree costs far more per pair than the tape (`a&a&a…` is 2 bytes a node): it counts
    // against the document's size budget, so a large input fails with size_exceeded instead
    // of taking memory without bound.
    bool over_budget() const {
        constexpr std::size_t per_node = sizeof(form_node) + sizeof(form_child_key) + 64;
        return nodes_.size() * per_node + arena_.size() > b_.limits().max_bytes;
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
                if (nodes_[c].container || seen_leaf(c)) {
                    // Repeated: the value joins an array (qs's combine).
                    make_container(c);
                    std::uint32_t leaf = child(c, std::string_view(), 0, false);
                    nodes_[leaf].text_off = voff;
                    nodes_[leaf].text_len = vlen;
                    set_leaf(leaf);
                } else {
                    nodes_[c].text_off = voff;
                    nodes_[c].text_len = vlen;
                    set_leaf(c);
                }
            }
            cur = c;
        }
        return {};
    }

    bool seen_leaf(std::uint32_t n) const { return n < is_leaf_.size() && is_leaf_[n]; }
    void set_leaf(std::uint32_t n) {
        if (is_leaf_.size() <= n) {
            is_leaf_.resize(nodes_.size(), false);
        }
        is_leaf_[n] = true;
    }

    result<void> limit() {
        return fail(make_error(b_.status(), in_.size(),
                               b_.status() == errc::depth_exceeded
                                   ? "nesting deeper than " + std::to_string(b_.limits().max_depth)
                                   : std::string("document larger than its size budget")));
    }

    result<void> emit(std::uint32_t n, int depth) {
        const form_node& node = nodes_[n];
        if (!node.container) {
            std::string_view text = arena(node.text_off, node.text_len);
            if (infer_) {
                textinfer::add(b_, text);
            } else {
                b_.add_string(text);
            }
            return {};
        }
        bool all_index = n != 0 && std::all_of(node.children.begin(), node.children.end(),
                                               [&](std::uint32_t c) { return keys_[c].is_index; });
        if (all_index) {
            if (!b_.begin_array()) {
                return limit();
            }
            std::vector<std::uint32_t> sorted(node.children.begin(), node.children.end());
            std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
                return keys_[a].index < keys_[b].index;
            });
            for (std::uint32_t c : sorted) {
                if (auto r = emit(c, depth + 1); !r) {
                    return r;
                }
            }
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
        std::vector<std::pair<std::uint64_t, std::size_t>> idx;  // (index, position)
        for (std::size_t i = 0; i < node.children.size(); ++i) {
            if (keys_[node.children[i]].is_index) {
                idx.emplace_back(keys_[node.children[i]].index, i);
            }
        }
        std::sort(idx.begin(), idx.end());
        std::vector<std::size_t> group_of(node.children.size(), SIZE_MAX);  // first position
        for (std::size_t j = 1; j < idx.size(); ++j) {
            if (idx[j].first == idx[j - 1].first) {
                std::size_t first = group_of[idx[j - 1].second] == SIZE_MAX
                                        ? idx[j - 1].second
                                        : group_of[idx[j - 1].second];
                group_of[idx[j - 1].second] = first;
                group_of[idx[j].second] = first;
            }
        }
        for (std::size_t i = 0; i < node.children.size(); ++i) {
            std::uint32_t c = node.children[i];
            const form_child_key& k = keys_[c];
            if (group_of[i] != SIZE_MAX && group_of[i] != i) {
                continue;  // emitted with the first of its group
            }
            if (k.is_index) {
                b_.add_string(std::to_string(k.index));
            } else {
                b_.add_string(arena(k.name_off, k.name_len));
            }
            if (group_of[i] == i) {
                if (!b_.begin_array()) {
                    return limit();
                }
                for (std::size_t j = i; j < node.children.size(); ++j) {
                    if (group_of[j] == i) {
                        if (auto r = emit(node.children[j], depth + 1); !r) {
                            return r;
                        }
                    }
                }
                b_.end_array();
                continue;
            }
            if (auto r = emit(c, depth + 1); !r) {
                return r;
            }
        }
        b_.end_map();
        return {};
    }

    std::string_view in_;
    builder& b_;
    bool infer_;
    std::string arena_;
    std::vector<form_node> nodes_;
    std::vector<form_child_key> keys_;
    std::vector<bool> is_leaf_;
    std::unordered_map<std::string, std::uint32_t> index_;
    std::string lookup_;
    std::vector<std::pair<std::size_t, std::size_t>> segs_;
};

result<void> decode_urlform(std::string_view in, builder& b, const decode_options& opt) {
    form_reader r(in, b, opt.infer);
    return r.run();
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

bool unreserved(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

void percent_encode(std::string& out, std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    for (unsigned char c : s) {
        if (unreserved(c)) {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
}

class form_writer {
public:
    form_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    result<void> write_map(value m, bool top) {
        std::size_t base = prefix_.size();
        bool all_index = !top && m.size() != 0;
        for (auto [k, v] : m.entries()) {
            if (!all_index) {
                break;
            }
            all_index = (k.kind() == kind::string || k.kind() == kind::int64 ||
                         k.kind() == kind::uint64) &&
                        textinfer::scalar_text(k, key_) && index_like(key_);
        }
        if (all_index && !allow_lossy(opt_, m, "map_to_array",
                                      "map with index keys written as an array")) {
            return fail(unrepresentable(m, "a map whose keys are all array indices is not "
                                           "representable in urlform (it reads back as an "
                                           "array)"));
        }
        for (auto [k, v] : m.entries()) {
            if (!textinfer::scalar_text(k, key_) || k.is_bool() || k.kind() == kind::float64 ||
                k.kind() == kind::bytes) {
                if (!allow_lossy(opt_, k, "key_to_string", "key written as its text")) {
                    return fail(unrepresentable(
                        k, "map key " + to_debug_string(k) + " is not representable in urlform"));
                }
                key_ = to_debug_string(k);
            }
            // A top-level name with brackets that do not form name[key] nesting reads back as
            // that literal name ("a]", "[a]", as qs does), so it is written percent-encoded when
            // its value is a scalar (found by fuzz_decode_urlform); other bracketed keys would
            // read back nested.
            // The reader splits a pair name at its first '[' into NAME[seg]...: a top-level key
            // over a container needs a non-empty NAME without '[' (']' is fine: "a]" + "[b]"
            // reads back as name "a]", key "b"); nested keys need no brackets at all.
            const bool has_open = key_.find('[') != std::string::npos;
            bool literal_ok = top && !v.is_container() && !forms_nesting(key_);
            bool name_ok = top && v.is_container() && !key_.empty() && !has_open;
            if (top && (key_.empty() || (has_open && !forms_nesting(key_))) && repeatable(v)) {
                // A name that cannot carry "[0]" (empty, or brackets read literally) over two or
                // more scalars: the repeated name, "=a&=b" for {"": ["a", "b"]}.
                for (value c : v.items()) {
                    prefix_.resize(base);
                    percent_encode(prefix_, key_);
                    if (auto r = write(c); !r) {
                        return r;
                    }
                }
                continue;
            }
            if ((key_.find_first_of("[]") != std::string::npos && !literal_ok && !name_ok) ||
                (!top && key_.empty()) || (top && key_.empty() && v.is_container())) {
                if (!allow_lossy(opt_, k, "key_brackets", "key with brackets written as is")) {
                    return fail(unrepresentable(
                        k, key_.empty() ? std::string(top ? "an empty name over a map, or over an "
                                                            "array of fewer than two scalars, is "
                                                            "not representable in urlform"
                                                          : "an empty nested key is not "
                                                            "representable in urlform")
                                        : "key '" + key_ + "' with '[' or ']' is not "
                                                           "representable in urlform"));
                }
            }
            prefix_.resize(base);
            if (!top) {
                prefix_.push_back('[');
            }
            percent_encode(prefix_, key_);
            if (!top) {
                prefix_.push_back(']');
            }
            if (auto r = write(v); !r) {
                return r;
            }
        }
        prefix_.resize(base);
        return {};
    }

private:
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
                std::size_t base = prefix_.size();
                std::uint64_t i = 0;
                for (value c : v.items()) {
                    prefix_.resize(base);
                    prefix_.push_back('[');
                    prefix_.append(std::to_string(i++));
                    prefix_.push_back(']');
                    if (auto r = write(c); !r) {
                        return r;
                    }
                }
                prefix_.resize(base);
                return {};
            }
            case kind::tagged:
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return fail(unrepresentable(
                        v, "tag " + std::to_string(v.tag()) + " is not representable in urlform"));
                }
                return write(v.tagged_value());
            case kind::null:
                if (!allow_lossy(opt_, v, "null_to_empty", "null written as an empty value")) {
                    return fail(unrepresentable(v, "null is not representable in urlform"));
                }
                text_.clear();
                break;
            default:
                textinfer::scalar_text(v, text_);
        }
        if (!first_) {
            out_.push_back('&');
        }
        first_ = false;
        out_.append(prefix_);
        out_.push_back('=');
        enc_.clear();
        percent_encode(enc_, text_);
        out_.append(enc_);
        return {};
    }

    output_buffer& out_;
    const encode_options& opt_;
    std::string prefix_;
    std::string key_;
    std::string text_;
    std::string enc_;
    bool first_ = true;
};

result<void> encode_urlform(const document& doc, output_buffer& out, const encode_options& opt) {
    value root = doc.root();
    if (root.kind() != kind::map) {
        return fail(unrepresentable(root, "a root that is not a map is not representable in "
                                          "urlform"));
    }
    form_writer w(out, opt);
    return w.write_map(root, true);
}

}  // namespace

const codec_functions urlform_codec{decode_urlform, encode_urlform};

}  // namespace polycodec::detail
