#pragma once
// Typing of text values with infer=true, shared by the urlform, ini, dotenv and csv readers
// and their writers (which must know what an inferring reader would make of a string):
// "true", "false", integers and floats in JSON grammar (no leading zeros, no '+', no ".5"),
// "NaN", "Infinity" and "-Infinity". Everything else, the empty text included, stays a string.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "detail/base64.hpp"
#include "detail/nonfinite_text.hpp"
#include "detail/number.hpp"
#include "detail/text.hpp"
#include "polycodec/document.hpp"

namespace polycodec::detail::textinfer {

enum class kind { string, boolean, integer, floating };

// classify(), with the value of a float in JSON grammar in *d (parsed once for add()).
inline kind classify(std::string_view s, double* d) {
    if (s.empty()) {
        return kind::string;
    }
    if (s == "true" || s == "false") {
        return kind::boolean;
    }
    if (s == "NaN" || s == "Infinity" || s == "-Infinity") {
        return kind::floating;
    }
    std::size_t p = 0;
    if (s[p] == '-') {
        ++p;
    }
    std::size_t int_start = p;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
        ++p;
    }
    std::size_t int_len = p - int_start;
    if (int_len == 0 || (int_len > 1 && s[int_start] == '0')) {
        return kind::string;
    }
    bool is_float = false;
    if (p < s.size() && s[p] == '.') {
        is_float = true;
        std::size_t f = ++p;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
            ++p;
        }
        if (p == f) {
            return kind::string;
        }
    }
    if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
        is_float = true;
        ++p;
        if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
            ++p;
        }
        std::size_t e = p;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
            ++p;
        }
        if (p == e) {
            return kind::string;
        }
    }
    if (p != s.size()) {
        return kind::string;
    }
    if (is_float) {
        double v = 0;
        if (!text::parse_double(s, v) || !std::isfinite(v)) {
            return kind::string;  // "1e999" stays text
        }
        *d = v;
        return kind::floating;
    }
    return kind::integer;
}

inline kind classify(std::string_view s) {
    double d = 0;
    return classify(s, &d);
}

/// add() past its fast paths: `s` typed by classify(), to the builder or a builder-shaped sink
/// (detail::tape_sink).
template <class Builder>
[[gnu::noinline]] inline void add_classified(Builder& b, std::string_view s) {
    double parsed = 0;
    switch (classify(s, &parsed)) {
        case kind::string:
            b.add_string(s);
            return;
        case kind::boolean:
            b.add_bool(s == "true");
            return;
        case kind::integer:
            text::add_decimal_integer(b, s);
            return;
        case kind::floating: {
            double d = parsed;
            nonfinite_of(s, d);  // else the value classify() parsed
            b.add_double(d);
            return;
        }
    }
}

/// Appends `s` typed as classify() says, to the builder or a builder-shaped sink
/// (detail::tape_sink).
template <class Builder>
inline void add(Builder& b, std::string_view s) {
    // The common case first: an integer of up to 18 digits (no leading zero) is summed as it
    // is recognised, which is what classify() and add_decimal_integer() would make of it.
    const std::size_t minus = !s.empty() && s[0] == '-' ? 1 : 0;
    const std::size_t digits = s.size() - minus;
    if (digits >= 1 && digits <= 18 && (digits == 1 || s[minus] != '0')) {
        std::uint64_t v = 0;
        std::size_t p = minus;
        for (; p < s.size(); ++p) {
            const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[p]) - '0');
            if (d > 9) {
                break;
            }
            v = v * 10 + d;
        }
        if (p == s.size()) {
            b.add_int(minus != 0 ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v));
            return;
        }
    }
    // Text that starts as none of the typed forms can start stays a string.
    const char c0 = s.empty() ? 'x' : s[0];
    if (!(c0 == '-' || (c0 >= '0' && c0 <= '9') || c0 == 't' || c0 == 'f' || c0 == 'N' ||
          c0 == 'I')) {
        b.add_string(s);
        return;
    }
    add_classified(b, s);
}

/// The text of scalar `v` as the urlform, ini and dotenv writers put it: strings and timestamps
/// as they are, integers and bignums in decimal, floats in shortest round-trip form ("2.0",
/// "NaN", "Infinity", "-Infinity"), booleans "true"/"false", bytes as base64url (DESIGN
/// section 3). Replaces `out`; false (and `out` untouched) for null, tagged values and
/// containers, which each writer handles by its own rules.
inline bool scalar_text(value v, std::string& out) {
    char buf[32];
    switch (v.kind()) {
        case polycodec::kind::string:
        case polycodec::kind::timestamp:
        case polycodec::kind::bignum:
            out.assign(v.get_string());
            return true;
        case polycodec::kind::boolean_false:
            out.assign("false");
            return true;
        case polycodec::kind::boolean_true:
            out.assign("true");
            return true;
        case polycodec::kind::int64: {
            auto r = std::to_chars(buf, buf + sizeof buf, v.get_int());
            out.assign(buf, r.ptr);
            return true;
        }
        case polycodec::kind::uint64: {
            auto r = std::to_chars(buf, buf + sizeof buf, v.get_uint());
            out.assign(buf, r.ptr);
            return true;
        }
        case polycodec::kind::float64: {
            thread_local output_buffer tmp;
            tmp.clear();
            write_double_text(tmp, v.get_double());
            out.assign(tmp.view());
            return true;
        }
        case polycodec::kind::bytes: {
            thread_local output_buffer tmp;
            tmp.clear();
            base64_encode(tmp, v.get_string(), true);
            out.assign(tmp.view());
            return true;
        }
        default:
            return false;
    }
}

/// scalar_text without the copy where the Document has the text: strings, timestamps and
/// bignums are their own bytes; other scalars' text goes to `scratch`. False as scalar_text.
inline bool scalar_view(value v, std::string& scratch, std::string_view& out) {
    switch (v.kind()) {
        case polycodec::kind::string:
        case polycodec::kind::timestamp:
        case polycodec::kind::bignum:
            out = v.get_string();
            return true;
        default:
            if (!scalar_text(v, scratch)) {
                return false;
            }
            out = scratch;
            return true;
    }
}

}  // namespace polycodec::detail::textinfer
