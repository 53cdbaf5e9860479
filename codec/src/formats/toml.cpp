// TOML 1.0. Decoding uses toml++ (the Debian shared library, built with exceptions: its
// parse_error is caught here at the boundary); keys come back in source order. The encoder is
// our own. See docs/formats/toml.md.
#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "detail/base64.hpp"
#include "detail/lossy.hpp"
#include "detail/number.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/try.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// ---- reader ----

// toml++ reports 1-based lines (LF-terminated) and columns in code points.
std::size_t position_to_offset(std::string_view in, std::uint32_t line, std::uint32_t column) {
    std::size_t i = 0;
    for (std::uint32_t l = 1; l < line && i < in.size(); ++i) {
        if (in[i] == '\n') {
            ++l;
        }
    }
    for (std::uint32_t c = 1; c < column && i < in.size(); ++c) {
        unsigned char b = static_cast<unsigned char>(in[i]);
        i += b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    }
    return std::min(i, in.size());
}

void append_2(std::string& out, unsigned v) {
    out += static_cast<char>('0' + v / 10 % 10);
    out += static_cast<char>('0' + v % 10);
}

void append_date(std::string& out, const toml::date& d) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04u-", static_cast<unsigned>(d.year));
    out += buf;
    append_2(out, d.month);
    out += '-';
    append_2(out, d.day);
}

// HH:MM:SS with the fraction's trailing zeros trimmed (toml++ keeps nanoseconds).
void append_time(std::string& out, const toml::time& t) {
    append_2(out, t.hour);
    out += ':';
    append_2(out, t.minute);
    out += ':';
    append_2(out, t.second);
    if (t.nanosecond != 0) {
        char buf[16];
        std::snprintf(buf, sizeof buf, ".%09u", static_cast<unsigned>(t.nanosecond));
        std::string_view f(buf);
        while (f.back() == '0') {
            f.remove_suffix(1);
        }
        out += f;
    }
}

class toml_reader {
public:
    toml_reader(std::string_view in, builder& b) : in_(in), b_(b) {}

    result<void> table(const toml::table& t) {
        if (!b_.begin_map()) {
            return limit(t);
        }
        // toml++ keeps a table's keys sorted; restore the order of the source.
        std::vector<std::pair<const toml::key*, const toml::node*>> entries;
        entries.reserve(t.size());
        for (auto&& [k, v] : t) {
            entries.emplace_back(&k, &v);
        }
        std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
            const auto& pa = a.first->source().begin;
            const auto& pb = b.first->source().begin;
            return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
        });
        for (const auto& [k, v] : entries) {
            b_.add_string(k->str());
            POLYCODEC_TRY(node(*v));
        }
        b_.end_map();
        return {};
    }

private:
    result<void> limit(const toml::node& n) {
        const auto& p = n.source().begin;
        return fail(limit_error(b_, position_to_offset(in_, p.line, p.column)));
    }

    result<void> node(const toml::node& n) {
        switch (n.type()) {
            case toml::node_type::table:
                return table(*n.as_table());
            case toml::node_type::array: {
                const toml::array& a = *n.as_array();
                if (!b_.begin_array()) {
                    return limit(n);
                }
                for (const toml::node& e : a) {
                    POLYCODEC_TRY(node(e));
                }
                b_.end_array();
                return {};
            }
            case toml::node_type::string:
                b_.add_string(n.as_string()->get());
                return {};
            case toml::node_type::integer:
                b_.add_int(n.as_integer()->get());
                return {};
            case toml::node_type::floating_point:
                b_.add_double(n.as_floating_point()->get());
                return {};
            case toml::node_type::boolean:
                b_.add_bool(n.as_boolean()->get());
                return {};
            case toml::node_type::date:
                text_.clear();
                append_date(text_, n.as_date()->get());
                b_.add_timestamp(text_, timestamp_kind::local_date);
                return {};
            case toml::node_type::time:
                text_.clear();
                append_time(text_, n.as_time()->get());
                b_.add_timestamp(text_, timestamp_kind::local_time);
                return {};
            case toml::node_type::date_time: {
                const toml::date_time& dt = n.as_date_time()->get();
                text_.clear();
                append_date(text_, dt.date);
                text_ += 'T';
                append_time(text_, dt.time);
                if (dt.offset) {
                    int m = dt.offset->minutes;
                    if (m == 0) {
                        text_ += 'Z';
                    } else {
                        text_ += m < 0 ? '-' : '+';
                        m = m < 0 ? -m : m;
                        append_2(text_, static_cast<unsigned>(m / 60));
                        text_ += ':';
                        append_2(text_, static_cast<unsigned>(m % 60));
                    }
                }
                b_.add_timestamp(text_, dt.offset ? timestamp_kind::offset_date_time
                                                  : timestamp_kind::local_date_time);
                return {};
            }
            default:
                return {};
        }
    }

    std::string_view in_;
    builder& b_;
    std::string text_;
};

std::pair<std::size_t, std::size_t> deepest(const document& doc);
constexpr std::size_t max_toml_depth = 250;

result<void> decode_toml(std::string_view in, builder& b, const decode_options&) {
    std::size_t valid = utf8_valid_prefix(in);
    if (valid != in.size()) {
        return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
    }
    toml::table root;
    try {
        root = toml::parse(in);
    } catch (const toml::parse_error& e) {
        const auto& p = e.source().begin;
        std::size_t off = position_to_offset(in, p.line, p.column);
        std::string msg(e.description());
        if (!msg.empty() && msg.back() == '.') {
            msg.pop_back();
        }
        // toml++ says "Error while parsing X: ..."; house style is lowercase.
        if (msg.rfind("Error while", 0) == 0) {
            msg.erase(0, 6);
        }
        if (!msg.empty() && msg[0] >= 'A' && msg[0] <= 'Z') {
            msg[0] = static_cast<char>(msg[0] + 32);
        }
        std::string lower = msg;
        for (char& c : lower) {
            c = (c >= 'A' && c <= 'Z') ? char(c + 32) : c;
        }
        errc code = errc::unexpected_char;
        if (lower.find("nested value depth") != std::string::npos) {
            code = errc::depth_exceeded;
        } else if (lower.find("redefinition") != std::string::npos ||
                   lower.find("redefine") != std::string::npos ||
                   lower.find("already defined") != std::string::npos) {
            code = errc::duplicate_key;
        } else if (lower.find("end-of-file") != std::string::npos ||
                   lower.find("end of file") != std::string::npos || off >= in.size()) {
            code = errc::unexpected_eof;
        } else if (lower.find("escape") != std::string::npos ||
                   lower.find("string") != std::string::npos) {
            code = errc::invalid_string;
        } else if (lower.find("integer") != std::string::npos ||
                   lower.find("float") != std::string::npos ||
                   lower.find("number") != std::string::npos) {
            code = errc::invalid_number;
        }
        return fail(make_error(code, off, std::move(msg)));
    }
    toml_reader r(in, b);
    POLYCODEC_TRY(r.table(root));
    // The encoder refuses documents deeper than any TOML reader takes back (toml++ stops at
    // 256 nested values), so the decoder does too, though deep dotted keys parse.
    if (b.doc().tape().size() > 2 * max_toml_depth &&
        deepest(b.doc()).first > max_toml_depth) {
        return fail(make_error(errc::depth_exceeded, 0,
                               "tables nested deeper than " + std::to_string(max_toml_depth) +
                                   " levels"));
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
    if (std::isnan(d)) {
        out.append("nan");
    } else if (std::isinf(d)) {
        out.append(d > 0 ? "inf" : "-inf");
    } else {
        write_double(out, d);
    }
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
