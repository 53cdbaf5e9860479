#pragma once
// toml++ as the oracle of our TOML decoder (tests and fuzz_diff_toml only; codec/ no longer
// links it). parse_with_tomlpp() builds a polycodec document from toml++'s tree, with each
// table's keys in source order and date-times in the text our decoder writes, so that the
// two can be compared with polycodec::equal().
#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/document.hpp"

namespace polycodec::test {

namespace tomlpp_detail {

inline void append_2(std::string& out, unsigned v) {
    out += static_cast<char>('0' + v / 10 % 10);
    out += static_cast<char>('0' + v % 10);
}

inline void append_date(std::string& out, const toml::date& d) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04u-", static_cast<unsigned>(d.year));
    out += buf;
    append_2(out, d.month);
    out += '-';
    append_2(out, d.day);
}

// HH:MM:SS and the nanoseconds with trailing zeros trimmed.
inline void append_time(std::string& out, const toml::time& t) {
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

inline void node(const toml::node& n, builder& b);

inline void table(const toml::table& t, builder& b) {
    b.begin_map();
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (auto&& [k, v] : t) {
        entries.emplace_back(&k, &v);
    }
    std::stable_sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) {
        const auto& px = x.first->source().begin;
        const auto& py = y.first->source().begin;
        return px.line != py.line ? px.line < py.line : px.column < py.column;
    });
    for (const auto& [k, v] : entries) {
        b.add_string(k->str());
        node(*v, b);
    }
    b.end_map();
}

// A string, integer, float or boolean as the builder's value of that kind.
inline void add_scalar(builder& b, const std::string& s) { b.add_string(s); }
inline void add_scalar(builder& b, std::int64_t i) { b.add_int(i); }
inline void add_scalar(builder& b, double d) { b.add_double(d); }
inline void add_scalar(builder& b, bool v) { b.add_bool(v); }

inline void node(const toml::node& n, builder& b) {
    std::string text;
    switch (n.type()) {
        case toml::node_type::table:
            table(*n.as_table(), b);
            return;
        case toml::node_type::array:
            b.begin_array();
            for (const toml::node& e : *n.as_array()) {
                node(e, b);
            }
            b.end_array();
            return;
        case toml::node_type::string:
        case toml::node_type::integer:
        case toml::node_type::floating_point:
        case toml::node_type::boolean:
            n.visit([&b](const auto& v) {
                if constexpr (requires { add_scalar(b, v.get()); }) {
                    add_scalar(b, v.get());
                }
            });
            return;
        case toml::node_type::date:
            append_date(text, n.as_date()->get());
            b.add_timestamp(text, timestamp_kind::local_date);
            return;
        case toml::node_type::time:
            append_time(text, n.as_time()->get());
            b.add_timestamp(text, timestamp_kind::local_time);
            return;
        case toml::node_type::date_time: {
            const toml::date_time& dt = n.as_date_time()->get();
            append_date(text, dt.date);
            text += 'T';
            append_time(text, dt.time);
            if (dt.offset) {
                int m = dt.offset->minutes;
                if (m == 0) {
                    text += 'Z';
                } else {
                    text += m < 0 ? '-' : '+';
                    m = m < 0 ? -m : m;
                    append_2(text, static_cast<unsigned>(m / 60));
                    text += ':';
                    append_2(text, static_cast<unsigned>(m % 60));
                }
            }
            b.add_timestamp(text, dt.offset ? timestamp_kind::offset_date_time
                                            : timestamp_kind::local_date_time);
            return;
        }
        default:
            return;
    }
}

}  // namespace tomlpp_detail

/// Parses `in` with toml++ into `out`; false with toml++'s message in `why` when it refuses.
inline bool parse_with_tomlpp(std::string_view in, document& out, std::string& why) {
    out.clear();
    toml::table root;
    try {
        root = toml::parse(in);
    } catch (const toml::parse_error& e) {
        why = std::string(e.description());
        return false;
    }
    builder b(out);
    b.reset();
    tomlpp_detail::table(root, b);
    return true;
}

/// Our timestamps keep every fraction digit; toml++ keeps nanoseconds. The same document
/// with each timestamp's fraction cut to 9 digits (for comparing with the oracle).
inline void cut_fractions(value v, builder& b) {
    switch (v.kind()) {
        case kind::map:
            b.begin_map();
            for (auto [k, e] : v.entries()) {
                cut_fractions(k, b);
                cut_fractions(e, b);
            }
            b.end_map();
            return;
        case kind::array:
            b.begin_array();
            for (value e : v.items()) {
                cut_fractions(e, b);
            }
            b.end_array();
            return;
        case kind::timestamp: {
            std::string s(v.get_string());
            std::size_t dot = s.find('.');
            if (dot != std::string::npos) {
                std::size_t end = dot + 1;
                while (end < s.size() && s[end] >= '0' && s[end] <= '9') {
                    ++end;
                }
                std::size_t keep = std::min(end, dot + 10);
                while (keep > dot + 1 && s[keep - 1] == '0') {
                    --keep;
                }
                if (keep == dot + 1) {
                    keep = dot;
                }
                s.erase(keep, end - keep);
            }
            b.add_timestamp(s, v.get_timestamp_kind());
            return;
        }
        default:
            b.add_copy(v);
            return;
    }
}

}  // namespace polycodec::test
