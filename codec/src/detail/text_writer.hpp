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
bool walk_text(Hooks& h, output_buffer& out, value v, int depth) {
    for (;;) {
        switch (v.kind()) {
            case kind::array: {
                h.open_array(depth);
                bool first = true;
                for (value c : v.items()) {
                    h.array_item(first, depth + 1);
                    first = false;
                    if (!walk_text(h, out, c, depth + 1)) {
                        return false;
                    }
                }
                h.close_array(first, depth);
                return true;
            }
            case kind::map: {
                if constexpr (requires { h.map_prefix(v, depth); }) {
                    const int step = h.map_prefix(v, depth);
                    if (step == walk_next) {
                        continue;
                    }
                    if (step != walk_map) {
                        return step == walk_done;
                    }
                }
                h.open_map(depth);
                bool first = true;
                for (auto [k, val] : v.entries()) {
                    if (!h.map_key(k, first, depth + 1)) {
                        return false;
                    }
                    first = false;
                    // (`v` in the test: clang 14 takes no structured binding there)
                    if constexpr (requires { h.map_value(v, depth + 1); }) {
                        h.map_value(val, depth + 1);
                    }
                    if (!walk_text(h, out, val, depth + 1)) {
                        return false;
                    }
                }
                h.close_map(first, depth);
                return true;
            }
            case kind::tagged: {
                const int step = h.tagged(v, depth);
                if (step == walk_next) {
                    continue;
                }
                return step == walk_done;
            }
            case kind::int64:
                write_int(out, v.get_int());  // what write_scalar writes, without the call
                return true;
            case kind::string:
            case kind::timestamp:
            case kind::bytes:
                return h.leaf(v);  // never write_scalar's
            default:
                if constexpr (requires { h.scalar(v); }) {
                    return h.scalar(v);  // the hooks' own scalar writer (inlined)
                } else {
                    if (write_scalar(out, v, h.spelling())) {
                        return true;
                    }
                    return h.leaf(v);
                }
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
            status = fail(unrepresentable(v, "tag " + std::to_string(v.tag()) +
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
