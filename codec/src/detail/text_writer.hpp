#pragma once
// The one encoder walk of the text writers (json5, ...; issue 15): walks the tape depth first,
// writes what detail::write_scalar spells from the format's table, and hands the rest to the
// format's hooks. Returns bool all the way down (no result<> per value); the first failure is
// kept in the walk and returned once at the end.
//
// A format supplies a Hooks class with:
//   const scalar_spelling& spelling() const;
//   bool leaf(value v);                         // strings, bytes, timestamps and what the table
//                                               // leaves empty; false after fail(...)
//   int tagged(value& v, int depth);            // walk_error, walk_done (the hook wrote it) or
//                                               // walk_next (write the value v now holds)
//   int map_prefix(value& v, int depth);        // as tagged, or walk_map: an ordinary map
//   void open_array(int depth);  void array_item(bool first, int depth);
//   void close_array(bool empty, int depth);
//   void open_map(int depth);    bool map_key(value k, bool first, int depth);
//   void close_map(bool empty, int depth);
//   void map_value(value v, int depth);         // optional: between a key and its value, for
//                                               // a separator that depends on the value (hjson)
//   bool scalar(value v);                       // optional: every other scalar, instead of
//                                               // write_scalar then leaf (json5: integers inline)
//   char item_sep() const;                      // optional: what array_item writes before
//                                               // all but the first element, when that is one
//                                               // byte and nothing before the first (compact
//                                               // layout), else 0
// and an error slot: `result<void> status;` that leaf/tagged/map_key set on failure.

#include <cstring>
#include <string>
#include <string_view>

#include "detail/lossy.hpp"
#include "detail/scalar_writer.hpp"
#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

enum walk_step : int { walk_error = -1, walk_done = 0, walk_next = 1, walk_map = 2 };

template <class Hooks>
bool walk_text(Hooks& h, output_buffer& out, value v, int depth);

/// After the tagged or map_prefix hook answered `step` for element `i` (turned into `v` on
/// walk_next): 1 when the walk writes element i now (`v` ends where element i ends, a tag's
/// inner value or edn's one-entry map's value, and i moved to it); 0 when element i is
/// written (the hook wrote it, or `v` went through a walk of its own) and i moved past it;
/// -1 on an error.
template <class Hooks>
[[gnu::noinline]] int walk_hooked(Hooks& h, output_buffer& out, const document* doc, std::size_t& i,
                                  int step, value v, int depth) {
    if (step != walk_next) {
        i = value(doc, i).end_index();
        return step == walk_done ? 0 : -1;
    }
    const std::size_t end = value(doc, i).end_index();
    if (v.doc() == doc && v.end_index() == end) {
        i = v.index();
        return 1;
    }
    if (!walk_text(h, out, v, depth)) {
        return -1;
    }
    i = end;
    return 0;
}

/// The walk: one pass over the tape words of `v` (pre-order: a container's children follow
/// it) with an explicit stack of the open containers, instead of recursion through value
/// cursors; past max_stack open containers the walk starts a walk of its own.
template <class Hooks>
bool walk_text(Hooks& h, output_buffer& out, value v, int depth) {
    struct frame {
        std::uint64_t remaining;  // elements (array) or entries (map) still to write
        bool map;
    };
    constexpr int max_stack = 64;
    frame st[max_stack];
    int sp = 0;             // open containers
    std::uint64_t rem = 0;  // the innermost one's elements or entries still to write
    bool in_map = false;
    const document* const doc = v.doc();
    const std::uint64_t* const t = doc->tape().data();
    std::size_t i = v.index();
    for (;;) {
        // Element i at `depth`.
        const std::uint64_t w = t[i];
        const auto k = static_cast<kind>(w >> document::kind_shift);
        bool opened = false;
        int hooked = walk_map;  // what the tagged or map_prefix hook made of element i
        if (k == kind::tagged) [[unlikely]] {
            value c(doc, i);
            hooked = walk_hooked(h, out, doc, i, h.tagged(c, depth), c, depth);
        } else if constexpr (requires(value & x) { h.map_prefix(x, depth); }) {
            if (k == kind::map) {
                value c(doc, i);
                const int step = h.map_prefix(c, depth);
                if (step != walk_map) {
                    hooked = walk_hooked(h, out, doc, i, step, c, depth);
                }
            }
        }
        if (hooked < 0) {
            return false;
        }
        if (hooked == 1) {
            continue;  // the value the hook turned element i into, in its place
        }
        if (hooked == walk_map) {
            switch (k) {
                case kind::int64:
                    write_int(out, static_cast<std::int64_t>(t[i + 1]));  // without write_scalar
                    i += 2;
                    break;
                case kind::string:
                case kind::timestamp:
                case kind::bytes:
                    if (!h.leaf(value(doc, i))) {  // never write_scalar's
                        return false;
                    }
                    i += 2;
                    break;
                case kind::array:
                case kind::map: {
                    const bool map = k == kind::map;
                    if (sp == max_stack) [[unlikely]] {
                        const value c(doc, i);
                        if (!walk_text(h, out, c, depth)) {
                            return false;
                        }
                        i = c.end_index();
                        break;
                    }
                    if (map) {
                        h.open_map(depth);
                    } else {
                        h.open_array(depth);
                    }
                    const std::uint64_t n = t[i + 1];
                    i += 2;
                    if (n == 0) {
                        if (map) {
                            h.close_map(true, depth);
                        } else {
                            h.close_array(true, depth);
                        }
                        break;
                    }
                    if (sp > 0) {
                        st[sp - 1] = {rem, in_map};
                    }
                    ++sp;
                    ++depth;
                    rem = n;
                    in_map = map;
                    opened = true;
                    break;
                }
                default: {
                    const value c(doc, i);
                    if constexpr (requires { h.scalar(c); }) {
                        if (!h.scalar(c)) {  // the hooks' own scalar writer (inlined)
                            return false;
                        }
                    } else if (!write_scalar(out, c, h.spelling()) && !h.leaf(c)) {
                        return false;
                    }
                    i += k <= kind::boolean_true ? 1 : 2;
                    break;
                }
            }
        }
        // After an element: close the finished containers, then the next element's separator
        // (and key).
        for (;;) {
            if (sp == 0) {
                return true;
            }
            if (!opened) {
                if (--rem == 0) {
                    --sp;
                    --depth;
                    if (in_map) {
                        h.close_map(false, depth);
                    } else {
                        h.close_array(false, depth);
                    }
                    if (sp > 0) {
                        rem = st[sp - 1].remaining;
                        in_map = st[sp - 1].map;
                    }
                    continue;
                }
            }
            if (in_map) {
                const value key(doc, i);
                if (!h.map_key(key, opened, depth)) {
                    return false;
                }
                const auto kk = static_cast<kind>(t[i] >> document::kind_shift);
                i = kk == kind::string ? i + 2 : key.end_index();
                // (`v` in the test: clang 14 takes no structured binding there)
                if constexpr (requires { h.map_value(v, depth); }) {
                    h.map_value(value(doc, i), depth);
                }
            } else {
                if constexpr (requires { h.item_sep(); }) {
                    // An integer after the first element, compact: its separator and digits
                    // through one capacity check, then on to the next element.
                    const char sep = h.item_sep();
                    if (sep != 0 && !opened &&
                        static_cast<kind>(t[i] >> document::kind_shift) == kind::int64) {
                        char* const p = out.prepare(25);
                        *p = sep;
                        char* o = p + 1;
                        std::uint64_t u = t[i + 1];
                        if (static_cast<std::int64_t>(u) < 0) {
                            *o++ = '-';
                            u = 0 - u;
                        }
                        o = write_uint_digits(o, u);
                        out.commit(static_cast<std::size_t>(o - p));
                        i += 2;
                        continue;
                    }
                }
                h.array_item(opened, depth);
            }
            break;
        }
    }
}

/// The backslash escape of '"', '\\', '\n', '\r' and '\t' (two bytes) as the C-family text
/// formats write them (ron, sexpr), or nullptr for any other byte.
constexpr const char* short_escape(char c) noexcept {
    switch (c) {
        case '"':
            return "\\\"";
        case '\\':
            return "\\\\";
        case '\n':
            return "\\n";
        case '\r':
            return "\\r";
        case '\t':
            return "\\t";
        default:
            return nullptr;
    }
}

/// Appends `a`, `s` and `b` through one capacity check.
inline void append_wrapped(output_buffer& out, char a, std::string_view s, char b) {
    char* d = out.prepare(s.size() + 2);
    d[0] = a;
    if (!s.empty()) {
        std::memcpy(d + 1, s.data(), s.size());
    }
    d[s.size() + 1] = b;
    out.commit(s.size() + 2);
}

/// What every format's hooks have: the output, the options, the error slot, one-byte writes
/// and the pretty layout's line breaks (`indent` a level: two spaces unless the format says).
class text_hooks {
public:
    text_hooks(output_buffer& out, const encode_options& opt, std::string_view indent = "  ")
        : out_(out), opt_(opt), indent_(indent) {}

    result<void> status;

protected:
    // One byte through the inline capacity check.
    void put(char c) {
        *out_.prepare(1) = c;
        out_.commit(1);
    }
    // The `tagged` hook of a format that has no tags: under lossy=allow the tag is dropped and
    // the inner value written (walk_next), else the value is unrepresentable (walk_error).
    int drop_tag(value& v, std::string_view format) {
        if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
            status =
                fail(unrepresentable(v, "tag " + std::to_string(v.tag()) +
                                            " is not representable in " + std::string(format)));
            return walk_error;
        }
        v = v.tagged_value();
        return walk_next;
    }
    // Before an element: pretty, a line break; compact, `sep` before all but the first.
    void separate(bool first, int depth, char sep) {
        if (opt_.pretty) {
            newline(depth);
        } else if (!first) {
            put(sep);
        }
    }
    void newline(int depth) {
        if (!opt_.pretty) {
            return;
        }
        out_.push_back('\n');
        for (int i = 0; i < depth; ++i) {
            out_.append(indent_);
        }
    }

    output_buffer& out_;
    const encode_options& opt_;
    std::string_view indent_;
};

/// A whole document through Hooks (constructed from out and opt); a final line break when
/// pretty.
template <class Hooks>
result<void> encode_text(const document& doc, output_buffer& out, const encode_options& opt) {
    Hooks w(out, opt);
    if (!walk_text(w, out, doc.root(), 0)) {
        return std::move(w.status);
    }
    if (opt.pretty) {
        out.push_back('\n');
    }
    return {};
}

}  // namespace polycodec::detail
