#pragma once
// Exact decimals shared by UBJSON (high-precision numbers) and Smile (BigInteger, BigDecimal):
// integer text -> int, uint or bignum, and decimal text <-> the RFC 8949 section 3.4.4
// decimal fraction tagged(cbor, 4, [exponent, mantissa]).

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "polycodec/document.hpp"

namespace polycodec::detail {

/// The CBOR tag of a decimal fraction [exponent, mantissa] (RFC 8949 section 3.4.4).
inline constexpr std::uint64_t decimal_fraction_tag = 4;

/// Adds the integer `neg ? -digits : digits` (digits: '0'-'9', no sign, at least one) as an
/// int, a uint or a bignum. Leading zeros are dropped.
inline void add_integer_digits(builder& b, bool neg, std::string_view digits) {
    while (digits.size() > 1 && digits.front() == '0') {
        digits.remove_prefix(1);
    }
    std::uint64_t v = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec == std::errc()) {
        if (!neg) {
            b.add_uint(v);
            return;
        }
        if (v <= static_cast<std::uint64_t>(INT64_MAX) + 1) {
            b.add_int(v == 0 ? 0 : static_cast<std::int64_t>(0 - v));
            return;
        }
    }
    std::string text;
    text.reserve(digits.size() + 1);
    if (neg) {
        text.push_back('-');
    }
    text.append(digits);
    b.add_bignum(text);
}

/// What add_decimal_text did: added the number, or refused it at byte `at` of the text, or the
/// builder refused the tag (depth or budget: see builder::status).
struct decimal_status {
    enum { added, bad_text, limit } what;
    std::size_t at;
};

/// Parses JSON number text (RFC 8259 grammar). Integers become int, uint or bignum; others
/// the decimal fraction tagged(cbor, 4, [exponent, mantissa]). An exponent outside +-2^62 is
/// refused at its first digit.
inline decimal_status add_decimal_text(builder& b, std::string_view text) {
    auto bad = [](std::size_t at) { return decimal_status{decimal_status::bad_text, at}; };
    std::size_t i = 0;
    const std::size_t n = text.size();
    bool neg = false;
    if (i < n && text[i] == '-') {
        neg = true;
        ++i;
    }
    std::size_t int_start = i;
    if (i < n && text[i] == '0') {
        ++i;
    } else if (i < n && text[i] >= '1' && text[i] <= '9') {
        while (i < n && text[i] >= '0' && text[i] <= '9') {
            ++i;
        }
    } else {
        return bad(i);
    }
    std::string_view int_digits = text.substr(int_start, i - int_start);
    std::string_view frac_digits;
    bool is_integer = true;
    if (i < n && text[i] == '.') {
        ++i;
        std::size_t s = i;
        while (i < n && text[i] >= '0' && text[i] <= '9') {
            ++i;
        }
        if (i == s) {
            return bad(i);
        }
        frac_digits = text.substr(s, i - s);
        is_integer = false;
    }
    std::int64_t exp = 0;
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < n && (text[i] == '+' || text[i] == '-')) {
            eneg = text[i] == '-';
            ++i;
        }
        std::size_t s = i;
        while (i < n && text[i] >= '0' && text[i] <= '9') {
            if (exp > (std::int64_t{1} << 62) / 10) {
                return bad(s);
            }
            exp = exp * 10 + (text[i] - '0');
            ++i;
        }
        if (i == s) {
            return bad(i);
        }
        exp = eneg ? -exp : exp;
        is_integer = false;
    }
    if (i != n) {
        return bad(i);
    }
    if (is_integer) {
        add_integer_digits(b, neg, int_digits);
        return {decimal_status::added, n};
    }
    std::string mantissa;
    mantissa.reserve(int_digits.size() + frac_digits.size());
    mantissa.append(int_digits);
    mantissa.append(frac_digits);
    exp -= static_cast<std::int64_t>(frac_digits.size());
    if (!b.begin_tagged(decimal_fraction_tag, tag_space::cbor) || !b.begin_array()) {
        return {decimal_status::limit, 0};
    }
    b.add_int(exp);
    add_integer_digits(b, neg, mantissa);
    b.end_array();
    return {decimal_status::added, n};
}

/// True when `v` is a decimal fraction this project writes as a decimal: tagged(cbor, 4,
/// [int exponent, int|uint|bignum mantissa]).
inline bool is_decimal_fraction(value v) {
    if (v.kind() != kind::tagged || v.get_tag_space() != tag_space::cbor ||
        v.tag() != decimal_fraction_tag) {
        return false;
    }
    value a = v.tagged_value();
    if (a.kind() != kind::array || a.size() != 2) {
        return false;
    }
    auto it = a.items().begin();
    value e = *it;
    value m = *++it;
    return e.kind() == kind::int64 &&
           (m.kind() == kind::int64 || m.kind() == kind::uint64 || m.kind() == kind::bignum);
}

/// The sign and decimal digits of an int, uint or bignum.
inline std::string integer_text(value m) {
    char buf[24];
    if (m.kind() == kind::int64) {
        auto r = std::to_chars(buf, buf + sizeof buf, m.get_int());
        return std::string(buf, r.ptr);
    }
    if (m.kind() == kind::uint64) {
        auto r = std::to_chars(buf, buf + sizeof buf, m.get_uint());
        return std::string(buf, r.ptr);
    }
    return std::string(m.get_string());
}

/// The text of a decimal fraction (is_decimal_fraction): "1.5" for [-1, 15], "0.005" for
/// [-3, 5], "15E2" for [2, 15] and "15E0" for [0, 15], so that it reads back as a decimal
/// and not as an integer.
inline std::string decimal_fraction_text(value v) {
    value a = v.tagged_value();
    auto it = a.items().begin();
    std::int64_t exp = (*it).get_int();
    std::string m = integer_text(*++it);
    std::string sign;
    if (!m.empty() && m[0] == '-') {
        sign = "-";
        m.erase(0, 1);
    }
    if (exp >= 0) {
        return sign + m + "E" + std::to_string(exp);
    }
    // exp < 0: a point |exp| digits from the right, at least one digit before it. An exponent
    // far below the digits would need that many zeros: write those in exponent form.
    std::uint64_t k = static_cast<std::uint64_t>(-(exp + 1)) + 1;
    if (k > m.size() + 64) {
        return sign + m + "E" + std::to_string(exp);
    }
    if (k >= m.size()) {
        m.insert(0, k - m.size() + 1, '0');
    }
    m.insert(m.size() - k, 1, '.');
    return sign + m;
}

}  // namespace polycodec::detail
