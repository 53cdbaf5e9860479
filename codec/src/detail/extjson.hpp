#pragma once
// BSON's own types and MongoDB Extended JSON v2 (relaxed and canonical), see
// docs/formats/bson.md.
//
// The BSON decoder turns the types JSON lacks into tagged values (tag_space::bson, tag = the
// BSON element type byte; binary: 0x05 | subtype << 8). Formats without those types write them
// as Extended JSON v2 relaxed maps ({"$oid": "..."}), and the BSON encoder recognises those
// maps and turns them back into the BSON types, so BSON -> JSON -> BSON keeps every byte.
//
// Three entry points, all through one description (`special`):
//   from_tagged(v, s)     a tagged BSON value -> its description
//   recognize(map, s)     an Extended JSON map -> its description
//   write_map(s, b)       a description -> the relaxed Extended JSON map, appended to a builder
//   write_relaxed(v, b)   from_tagged + write_map, for encoders of formats without these types
//   write_canonical(v, b) a whole value -> canonical Extended JSON (extjson=canonical, codec.cpp)
//   read_extended(v, b)   a whole value with Extended JSON maps -> native values (decoding)
//
// Example (an encoder without tags, e.g. JSON):
//   document tmp; builder tb(tmp);
//   if (extjson::write_relaxed(v, tb)) { write(tmp.root()); }   // {"$oid": "5f1d..."}

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "detail/base64.hpp"
#include "detail/decimal128.hpp"
#include "detail/epoch_time.hpp"
#include "detail/number.hpp"
#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"

namespace polycodec::detail::extjson {

// BSON 1.1 element type bytes (bsonspec.org).
constexpr std::uint8_t t_double = 0x01;
constexpr std::uint8_t t_string = 0x02;
constexpr std::uint8_t t_document = 0x03;
constexpr std::uint8_t t_array = 0x04;
constexpr std::uint8_t t_binary = 0x05;
constexpr std::uint8_t t_undefined = 0x06;
constexpr std::uint8_t t_object_id = 0x07;
constexpr std::uint8_t t_bool = 0x08;
constexpr std::uint8_t t_datetime = 0x09;
constexpr std::uint8_t t_null = 0x0a;
constexpr std::uint8_t t_regex = 0x0b;
constexpr std::uint8_t t_db_pointer = 0x0c;
constexpr std::uint8_t t_code = 0x0d;
constexpr std::uint8_t t_symbol = 0x0e;
constexpr std::uint8_t t_code_w_scope = 0x0f;
constexpr std::uint8_t t_int32 = 0x10;
constexpr std::uint8_t t_timestamp = 0x11;
constexpr std::uint8_t t_int64 = 0x12;
constexpr std::uint8_t t_decimal128 = 0x13;
constexpr std::uint8_t t_max_key = 0x7f;
constexpr std::uint8_t t_min_key = 0xff;

/// The tag of a binary value of subtype `st` (subtype 0 decodes to plain bytes).
constexpr std::uint64_t binary_tag(std::uint8_t st) noexcept {
    return t_binary | (static_cast<std::uint64_t>(st) << 8);
}

/// One BSON value of a type JSON lacks. Which fields are used depends on `type`.
struct special {
    std::uint8_t type = 0;     ///< BSON element type byte; 0 = nothing recognised
    std::uint8_t subtype = 0;  ///< binary subtype
    /// binary payload; the 12 ObjectId bytes; the 16 decimal128 bytes; code or symbol text;
    /// regex pattern; DBPointer namespace
    std::string data;
    std::string extra;    ///< regex options; DBPointer's 12 ObjectId bytes
    std::int64_t i = 0;   ///< datetime (ms since the epoch); $numberInt / $numberLong
    std::uint64_t u = 0;  ///< BSON timestamp (t << 32 | i)
    double d = 0;         ///< $numberDouble
    value scope;          ///< code with scope: its scope map

    void clear() {
        type = 0;
        subtype = 0;
        data.clear();
        extra.clear();
        i = 0;
        u = 0;
        d = 0;
        scope = value();
    }
};

// ---- dates ----

/// "YYYY-MM-DDTHH:MM:SS.sssZ" of `ms` since the epoch; false outside years 0000-9999.
inline bool format_datetime(std::int64_t ms, std::string& out) {
    // Years 0000 and 9999 bound the 4-digit years of RFC 3339.
    constexpr std::int64_t min_ms = -62167219200000LL;  // 0000-01-01T00:00:00Z
    constexpr std::int64_t max_ms = 253402300799999LL;  // 9999-12-31T23:59:59.999Z
    if (ms < min_ms || ms > max_ms) {
        return false;
    }
    std::int64_t days = ms / 86400000;
    std::int64_t rem = ms % 86400000;
    if (rem < 0) {
        rem += 86400000;
        --days;
    }
    const civil_date c = civil_from_days(days);
    char buf[64];
    auto ims = static_cast<unsigned>(rem);
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02u:%02u:%02u.%03uZ", static_cast<int>(c.year),
                  c.month, c.day, ims / 3600000, ims / 60000 % 60, ims / 1000 % 60, ims % 1000);
    out += buf;
    return true;
}

/// Milliseconds since the epoch of RFC 3339 date-time text with an offset ("...Z",
/// "...+02:00", 't', 'z' and ' ' accepted). False when the text is not such a date-time, or
/// when it is not a whole number of milliseconds (a sub-millisecond fraction or a leap second).
inline bool parse_datetime(std::string_view s, std::int64_t& ms) {
    epoch_instant t;
    if (!parse_rfc3339(s, t) || t.leap_second || !t.exact || t.nanos % 1000000 != 0) {
        return false;
    }
    ms = t.seconds * 1000 + t.nanos / 1000000;
    return true;
}

// ---- tagged value -> description ----

/// Describes a tagged value of tag_space::bson; false (s.type == 0) when its tag or inner
/// value is not one of the shapes docs/formats/bson.md lists. `raw_decimal` (the BSON encoder)
/// also takes a decimal128 whose inner value is its 16 bytes (a NaN with sign or payload, a
/// signalling NaN, a non-canonical value: no Extended JSON text holds those, so other
/// encoders refuse them unless lossy).
inline bool from_tagged(value v, special& s, bool raw_decimal = false) {
    s.clear();
    if (v.kind() != kind::tagged || v.get_tag_space() != tag_space::bson) {
        return false;
    }
    std::uint64_t tag = v.tag();
    value in = v.tagged_value();
    kind k = in.kind();
    if ((tag & 0xff) == t_binary && tag <= 0xffff) {
        if (k != kind::bytes) {
            return false;
        }
        s.subtype = static_cast<std::uint8_t>(tag >> 8);
        s.data = in.get_string();
        s.type = t_binary;
        return true;
    }
    switch (tag) {
        case t_undefined:
        case t_min_key:
        case t_max_key:
            if (k != kind::null) {
                return false;
            }
            break;
        case t_object_id:
            if (k != kind::bytes || in.get_string().size() != 12) {
                return false;
            }
            s.data = in.get_string();
            break;
        case t_datetime:
            if (k == kind::int64) {
                s.i = in.get_int();
            } else if (k != kind::timestamp || !parse_datetime(in.get_string(), s.i)) {
                return false;
            }
            break;
        case t_regex: {
            value pat = in.find("pattern");
            value opt = in.find("options");
            if (in.size() != 2 || pat.doc() == nullptr || opt.doc() == nullptr ||
                pat.kind() != kind::string || opt.kind() != kind::string) {
                return false;
            }
            s.data = pat.get_string();
            s.extra = opt.get_string();
            break;
        }
        case t_db_pointer: {
            value ref = in.find("$ref");
            value id = in.find("$id");
            if (in.size() != 2 || ref.doc() == nullptr || id.doc() == nullptr ||
                ref.kind() != kind::string) {
                return false;
            }
            special oid;
            if (id.kind() == kind::tagged) {
                if (!from_tagged(id, oid) || oid.type != t_object_id) {
                    return false;
                }
            } else if (id.kind() != kind::bytes || id.get_string().size() != 12) {
                return false;
            } else {
                oid.data = id.get_string();
            }
            s.data = ref.get_string();
            s.extra = oid.data;
            break;
        }
        case t_code:
        case t_symbol:
            if (k != kind::string) {
                return false;
            }
            s.data = in.get_string();
            break;
        case t_code_w_scope: {
            value code = in.find("$code");
            value scope = in.find("$scope");
            if (in.size() != 2 || code.doc() == nullptr || scope.doc() == nullptr ||
                code.kind() != kind::string || scope.kind() != kind::map) {
                return false;
            }
            s.data = code.get_string();
            s.scope = scope;
            break;
        }
        case t_timestamp:
            if (k == kind::int64 && in.get_int() >= 0) {
                s.u = static_cast<std::uint64_t>(in.get_int());
            } else if (k == kind::uint64) {
                s.u = in.get_uint();
            } else {
                return false;
            }
            break;
        case t_int32:
        case t_int64:
            if (k != kind::int64 ||
                (tag == t_int32 && (in.get_int() < INT32_MIN || in.get_int() > INT32_MAX))) {
                return false;
            }
            s.i = in.get_int();
            break;
        case t_decimal128: {
            if (raw_decimal && k == kind::bytes && in.get_string().size() == 16) {
                s.data = in.get_string();
                break;
            }
            if (k != kind::string && k != kind::bignum) {
                return false;
            }
            unsigned char bid[16];
            if (!decimal128::from_string(in.get_string(), bid)) {
                return false;
            }
            s.data.assign(reinterpret_cast<const char*>(bid), 16);
            break;
        }
        default:
            return false;
    }
    s.type = static_cast<std::uint8_t>(tag);
    return true;
}

// ---- Extended JSON map -> description ----

inline bool hex_bytes(std::string_view hex, std::string& out) {
    if (hex.size() % 2 != 0) {
        return false;
    }
    out.clear();
    auto nib = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    };
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        int a = nib(hex[i]);
        int b = nib(hex[i + 1]);
        if (a < 0 || b < 0) {
            return false;
        }
        out.push_back(static_cast<char>(a * 16 + b));
    }
    return true;
}

inline bool parse_int64(std::string_view t, std::int64_t& v) {
    if (t.empty()) {
        return false;
    }
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// The value of a map's only entry when its key is `key`.
inline bool one_entry(value m, std::string_view& key, value& val) {
    if (m.kind() != kind::map || m.size() != 1) {
        return false;
    }
    auto [k, v] = *m.entries().begin();
    if (k.kind() != kind::string) {
        return false;
    }
    key = k.get_string();
    val = v;
    return true;
}

// Entries `a` and `b` of a two-entry map with string keys, in either order.
inline bool two_entries(value m, std::string_view a, std::string_view b, value& va, value& vb) {
    if (m.kind() != kind::map || m.size() != 2) {
        return false;
    }
    va = m.find(a);
    vb = m.find(b);
    return va.doc() != nullptr && vb.doc() != nullptr;
}

// A 32-bit unsigned integer of $timestamp.
inline bool uint32_value(value v, std::uint64_t& out) {
    if (v.kind() != kind::int64 || v.get_int() < 0 || v.get_int() > 0xffffffffLL) {
        return false;
    }
    out = static_cast<std::uint64_t>(v.get_int());
    return true;
}

/// Cheap test an encoder runs on every map before calling recognize().
inline bool may_be_extjson(value m) noexcept {
    if (m.kind() != kind::map || m.size() == 0 || m.size() > 2) {
        return false;
    }
    value k(m.doc(), m.index() + 2);
    if (k.kind() != kind::string) {
        return false;
    }
    std::string_view s = k.get_string();
    return !s.empty() && s[0] == '$';
}

/// Recognises a map that is exactly one of the Extended JSON v2 forms of
/// docs/formats/bson.md (canonical or relaxed); false (s.type == 0) otherwise.
inline bool recognize(value m, special& s) {
    s.clear();
    if (!may_be_extjson(m)) {
        return false;
    }
    if (m.size() == 2) {
        value code, scope;
        if (!two_entries(m, "$code", "$scope", code, scope) || code.kind() != kind::string ||
            scope.kind() != kind::map) {
            return false;
        }
        s.data = code.get_string();
        s.scope = scope;
        s.type = t_code_w_scope;
        return true;
    }
    std::string_view key;
    value v;
    one_entry(m, key, v);
    kind k = v.kind();
    std::uint8_t type = 0;
    if (key == "$oid") {
        if (k != kind::string || v.get_string().size() != 24 ||
            !hex_bytes(v.get_string(), s.data)) {
            return false;
        }
        type = t_object_id;
    } else if (key == "$numberDecimal") {
        unsigned char bid[16];
        if (k != kind::string || !decimal128::from_string(v.get_string(), bid)) {
            return false;
        }
        s.data.assign(reinterpret_cast<const char*>(bid), 16);
        type = t_decimal128;
    } else if (key == "$binary") {
        value b64, st;
        if (!two_entries(v, "base64", "subType", b64, st) || b64.kind() != kind::string ||
            st.kind() != kind::string || st.get_string().empty() || st.get_string().size() > 2) {
            return false;
        }
        std::string sub;
        std::string_view sts = st.get_string();
        if (!hex_bytes(sts.size() == 1 ? "0" + std::string(sts) : std::string(sts), sub)) {
            return false;
        }
        // Strict base64: the standard alphabet with padding (what Extended JSON writes).
        std::string_view t = b64.get_string();
        if (t.size() % 4 != 0 || t.find_first_of("-_") != std::string_view::npos ||
            !base64_decode(t, s.data)) {
            return false;
        }
        s.subtype = static_cast<std::uint8_t>(sub[0]);
        type = t_binary;
    } else if (key == "$date") {
        std::string_view inner_key;
        value inner;
        if (k == kind::string) {
            if (!parse_datetime(v.get_string(), s.i)) {
                return false;
            }
        } else if (k == kind::timestamp &&
                   v.get_timestamp_kind() == timestamp_kind::offset_date_time) {
            if (!parse_datetime(v.get_string(), s.i)) {
                return false;
            }
        } else if (one_entry(v, inner_key, inner) && inner_key == "$numberLong" &&
                   inner.kind() == kind::string) {
            if (!parse_int64(inner.get_string(), s.i)) {
                return false;
            }
        } else {
            return false;
        }
        type = t_datetime;
    } else if (key == "$numberLong" || key == "$numberInt") {
        if (k != kind::string || !parse_int64(v.get_string(), s.i)) {
            return false;
        }
        if (key == "$numberInt") {
            if (s.i < INT32_MIN || s.i > INT32_MAX) {
                return false;
            }
            type = t_int32;
        } else {
            type = t_int64;
        }
    } else if (key == "$numberDouble") {
        if (k != kind::string) {
            return false;
        }
        std::string_view t = v.get_string();
        if (t == "Infinity") {
            s.d = std::numeric_limits<double>::infinity();
        } else if (t == "-Infinity") {
            s.d = -std::numeric_limits<double>::infinity();
        } else if (t == "NaN") {
            s.d = std::numeric_limits<double>::quiet_NaN();
        } else {
            auto r = std::from_chars(t.data(), t.data() + t.size(), s.d);
            if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
                return false;
            }
        }
        type = t_double;
    } else if (key == "$regularExpression") {
        value pat, opt;
        if (!two_entries(v, "pattern", "options", pat, opt) || pat.kind() != kind::string ||
            opt.kind() != kind::string) {
            return false;
        }
        s.data = pat.get_string();
        s.extra = opt.get_string();
        type = t_regex;
    } else if (key == "$timestamp") {
        value t, i;
        std::uint64_t tv, iv;
        if (!two_entries(v, "t", "i", t, i) || !uint32_value(t, tv) || !uint32_value(i, iv)) {
            return false;
        }
        s.u = tv << 32 | iv;
        type = t_timestamp;
    } else if (key == "$minKey" || key == "$maxKey") {
        if (k != kind::int64 || v.get_int() != 1) {
            return false;
        }
        type = key == "$minKey" ? t_min_key : t_max_key;
    } else if (key == "$code" || key == "$symbol") {
        if (k != kind::string) {
            return false;
        }
        s.data = v.get_string();
        type = key == "$code" ? t_code : t_symbol;
    } else if (key == "$undefined") {
        if (k != kind::boolean_true) {
            return false;
        }
        type = t_undefined;
    } else if (key == "$dbPointer") {
        value ref, id;
        if (!two_entries(v, "$ref", "$id", ref, id) || ref.kind() != kind::string) {
            return false;
        }
        special oid;
        if (id.kind() == kind::tagged) {
            if (!from_tagged(id, oid) || oid.type != t_object_id) {
                return false;
            }
        } else if (!recognize(id, oid) || oid.type != t_object_id) {
            return false;
        }
        s.data = ref.get_string();
        s.extra = oid.data;
        type = t_db_pointer;
    } else {
        return false;
    }
    s.type = type;
    return true;
}

// ---- description -> Extended JSON map ----

inline void add_hex(builder& b, std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string h;
    h.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        h += digits[c >> 4];
        h += digits[c & 15];
    }
    b.add_string(h);
}

/// Appends {"$date": ...} for `ms`: relaxed form (ISO-8601 text) for years 1970-9999, else
/// {"$date": {"$numberLong": "ms"}}, as Extended JSON v2 relaxed mode says.
inline void write_date(std::int64_t ms, builder& b) {
    b.begin_map();
    b.add_string("$date");
    std::string text;
    if (ms >= 0 && format_datetime(ms, text)) {
        b.add_string(text);
    } else {
        b.begin_map();
        b.add_string("$numberLong");
        b.add_string(std::to_string(ms));
        b.end_map();
    }
    b.end_map();
}

inline bool write_canonical(value v, builder& b, bool root = false);

/// The text of $numberDouble in canonical mode, as js-bson's Double.toExtendedJSON writes it
/// (and the Extended JSON v2 corpus): "-0.0" for negative zero; integral values below 1e21 as
/// their exact digits and ".0" ("1.0", "-5.0"); others as ECMAScript's Number::toString
/// ("1.5", "1e-7", "1.7976931348623157e+308", "1e+21"); "NaN", "Infinity", "-Infinity".
inline void canonical_double_text(double d, std::string& out) {
    if (std::isnan(d)) {
        out += "NaN";
        return;
    }
    if (std::isinf(d)) {
        out += d > 0 ? "Infinity" : "-Infinity";
        return;
    }
    if (d == 0) {
        out += std::signbit(d) ? "-0.0" : "0.0";
        return;
    }
    char buf[64];
    if (d == std::trunc(d) && std::fabs(d) < 1e21) {
        // toFixed(1): the exact integer, then ".0" (glibc's %f is exact).
        int n = std::snprintf(buf, sizeof buf, "%.1f", d);
        out.append(buf, static_cast<std::size_t>(n));
        return;
    }
    // Shortest round-trip digits and exponent: "d.ddde+XX".
    auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view t(buf, static_cast<std::size_t>(r.ptr - buf));
    if (t[0] == '-') {
        out += '-';
        t.remove_prefix(1);
    }
    std::size_t e = t.find('e');
    std::string digits;
    for (char c : t.substr(0, e)) {
        if (c != '.') {
            digits += c;
        }
    }
    int exp10 = 0;
    std::from_chars(t.data() + e + (t[e + 1] == '+' ? 2 : 1), t.data() + t.size(), exp10);
    int k = static_cast<int>(digits.size());
    int n = exp10 + 1;  // ECMAScript's n: value = digits * 10^(n - k)
    if (k <= n && n <= 21) {
        out += digits;
        out.append(static_cast<std::size_t>(n - k), '0');
    } else if (0 < n && n <= 21) {
        out.append(digits, 0, static_cast<std::size_t>(n));
        out += '.';
        out.append(digits, static_cast<std::size_t>(n));
    } else if (-6 < n && n <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-n), '0');
        out += digits;
    } else {
        out += digits[0];
        if (k > 1) {
            out += '.';
            out.append(digits, 1);
        }
        out += 'e';
        out += n - 1 < 0 ? '-' : '+';
        out += std::to_string(n - 1 < 0 ? 1 - n : n - 1);
    }
}

/// {"$numberInt": "7"} when `w` is not 64 bits and `i` fits in 32 bits (what the BSON encoder
/// writes as int32), else {"$numberLong": "7"}.
inline void write_canonical_int(std::int64_t i, int_width w, builder& b) {
    b.begin_map();
    b.add_string(i >= INT32_MIN && i <= INT32_MAX && w != int_width::bits64 ? "$numberInt"
                                                                             : "$numberLong");
    b.add_string(std::to_string(i));
    b.end_map();
}

/// Appends the Extended JSON v2 map of `s` (s.type != 0) to `b`: relaxed mode, or canonical
/// mode when `canonical` (dates as {"$numberLong"}, numbers as $numberInt/Long/Double).
inline void write_map(const special& s, builder& b, bool canonical = false) {
    if (canonical) {
        switch (s.type) {
            case t_datetime:
                b.begin_map();
                b.add_string("$date");
                b.begin_map();
                b.add_string("$numberLong");
                b.add_string(std::to_string(s.i));
                b.end_map();
                b.end_map();
                return;
            case t_double: {
                std::string text;
                canonical_double_text(s.d, text);
                b.begin_map();
                b.add_string("$numberDouble");
                b.add_string(text);
                b.end_map();
                return;
            }
            case t_int32:
                write_canonical_int(s.i, int_width::bits32, b);
                return;
            case t_int64:
                write_canonical_int(s.i, int_width::bits64, b);
                return;
            case t_code_w_scope:
                b.begin_map();
                b.add_string("$code");
                b.add_string(s.data);
                b.add_string("$scope");
                write_canonical(s.scope, b, true);  // a scope is a document of its own
                b.end_map();
                return;
            default:
                break;  // the same in both modes
        }
    }
    if (s.type == t_datetime) {
        write_date(s.i, b);
        return;
    }
    if (s.type == t_double) {
        // Relaxed mode writes finite doubles as numbers.
        if (std::isfinite(s.d)) {
            b.add_double(s.d);
        } else {
            b.begin_map();
            b.add_string("$numberDouble");
            b.add_string(std::isnan(s.d) ? "NaN" : s.d > 0 ? "Infinity" : "-Infinity");
            b.end_map();
        }
        return;
    }
    if (s.type == t_int32 || s.type == t_int64) {
        b.add_int(s.i);  // relaxed mode: a plain number
        return;
    }
    b.begin_map();
    switch (s.type) {
        case t_binary: {
            b.add_string("$binary");
            b.begin_map();
            b.add_string("base64");
            output_buffer tmp;
            base64_encode(tmp, s.data);
            b.add_string(tmp.view());
            b.add_string("subType");
            static const char* digits = "0123456789abcdef";
            char st[2] = {digits[s.subtype >> 4], digits[s.subtype & 15]};
            b.add_string(std::string_view(st, 2));
            b.end_map();
            break;
        }
        case t_undefined:
            b.add_string("$undefined");
            b.add_bool(true);
            break;
        case t_object_id:
            b.add_string("$oid");
            add_hex(b, s.data);
            break;
        case t_regex:
            b.add_string("$regularExpression");
            b.begin_map();
            b.add_string("pattern");
            b.add_string(s.data);
            b.add_string("options");
            b.add_string(s.extra);
            b.end_map();
            break;
        case t_db_pointer:
            b.add_string("$dbPointer");
            b.begin_map();
            b.add_string("$ref");
            b.add_string(s.data);
            b.add_string("$id");
            b.begin_map();
            b.add_string("$oid");
            add_hex(b, s.extra);
            b.end_map();
            b.end_map();
            break;
        case t_code:
            b.add_string("$code");
            b.add_string(s.data);
            break;
        case t_symbol:
            b.add_string("$symbol");
            b.add_string(s.data);
            break;
        case t_code_w_scope:
            b.add_string("$code");
            b.add_string(s.data);
            b.add_string("$scope");
            b.add_copy(s.scope);
            break;
        case t_timestamp:
            b.add_string("$timestamp");
            b.begin_map();
            b.add_string("t");
            b.add_int(static_cast<std::int64_t>(s.u >> 32));
            b.add_string("i");
            b.add_int(static_cast<std::int64_t>(s.u & 0xffffffffULL));
            b.end_map();
            break;
        case t_decimal128: {
            b.add_string("$numberDecimal");
            std::string text;
            decimal128::to_string(reinterpret_cast<const unsigned char*>(s.data.data()), text);
            b.add_string(text);
            break;
        }
        case t_min_key:
            b.add_string("$minKey");
            b.add_int(1);
            break;
        case t_max_key:
            b.add_string("$maxKey");
            b.add_int(1);
            break;
        default:
            break;
    }
    b.end_map();
}

/// Appends the relaxed Extended JSON v2 map of tagged BSON value `v` to `b`; false (nothing
/// appended) when `v` is not a tagged BSON value of a documented shape.
inline bool write_relaxed(value v, builder& b) {
    special s;
    if (!from_tagged(v, s)) {
        return false;
    }
    write_map(s, b);
    return true;
}

// ---- canonical mode: whole documents (extjson=canonical, codec.cpp) ----

/// Appends `v` to `b` with every value that canonical Extended JSON v2 spells as an object so
/// spelled: ints ($numberInt / $numberLong by their int_width hint), floats ($numberDouble),
/// offset date-times with whole milliseconds ($date {$numberLong}), bytes ($binary subType
/// "00"), BSON's tagged types, and Extended JSON maps already present (re-spelled
/// canonically). Map keys, strings, uints above INT64_MAX, bignums, other timestamps and
/// other tags are copied as they are.
/// `root`: `v` is a document of its own (the root, a code-with-scope's scope, an ndjson
/// record), which stays as it is, as read_extended never turns a root map into a value: a root
/// map is not re-spelled and a root scalar is copied (only a container's children are
/// rewritten). False when the builder's budget or depth limit is hit.
inline bool write_canonical(value v, builder& b, bool root) {
    if (root && v.kind() != kind::map && v.kind() != kind::array) {
        return b.add_copy(v);
    }
    switch (v.kind()) {
        case kind::int64:
            write_canonical_int(v.get_int(), v.int_width(), b);
            return b.ok();
        case kind::float64: {
            special s;
            s.type = t_double;
            s.d = v.get_double();
            write_map(s, b, true);
            return b.ok();
        }
        case kind::bytes: {
            // Binary subtype 0, as canonical Extended JSON spells it (not base64url text).
            special s;
            s.type = t_binary;
            s.data = v.get_string();
            write_map(s, b, true);
            return b.ok();
        }
        case kind::timestamp: {
            special s;
            if (v.get_timestamp_kind() == timestamp_kind::offset_date_time &&
                parse_datetime(v.get_string(), s.i)) {
                s.type = t_datetime;
                write_map(s, b, true);
                return b.ok();
            }
            return b.add_copy(v);
        }
        case kind::tagged: {
            special s;
            if (v.get_tag_space() == tag_space::bson && from_tagged(v, s)) {
                write_map(s, b, true);
                return b.ok();
            }
            if (!b.begin_tagged(v.tag(), v.get_tag_space())) {
                return false;
            }
            return write_canonical(v.tagged_value(), b);
        }
        case kind::array:
            if (!b.begin_array()) {
                return false;
            }
            for (value c : v.items()) {
                if (!write_canonical(c, b)) {
                    return false;
                }
            }
            b.end_array();
            return b.ok();
        case kind::map: {
            special s;
            bool lookalike = !root && may_be_extjson(v);
            if (lookalike && recognize(v, s)) {
                write_map(s, b, true);
                return b.ok();
            }
            // {"$code": ..., "$scope": 5} is no code with scope, but would read as one once
            // its scope became {"$numberInt": "5"}: such a scope is copied as it is.
            value code, scope;
            bool scope_as_is = lookalike && two_entries(v, "$code", "$scope", code, scope) &&
                               scope.kind() != kind::map;
            if (!b.begin_map()) {
                return false;
            }
            for (auto [k, val] : v.entries()) {
                if (!b.add_copy(k)) {
                    return false;
                }
                if (scope_as_is && val.index() == scope.index() ? !b.add_copy(val)
                                                                : !write_canonical(val, b)) {
                    return false;
                }
            }
            b.end_map();
            return b.ok();
        }
        default:
            return b.add_copy(v);
    }
}

/// Appends the value Extended JSON map `s` stands for, as the BSON decoder would have
/// produced it from the BSON type (with int_width hints for $numberInt and $numberLong).
inline bool add_native(const special& s, builder& b);

/// Appends `v` to `b` with every Extended JSON v2 map (canonical or relaxed, as recognize()
/// takes them) turned into the value it stands for; the root map itself is never turned.
/// False when the builder's budget or depth limit is hit.
inline bool read_extended(value v, builder& b, bool root = false) {
    switch (v.kind()) {
        case kind::map: {
            special s;
            if (!root && may_be_extjson(v) && recognize(v, s)) {
                return add_native(s, b);
            }
            if (!b.begin_map()) {
                return false;
            }
            for (auto [k, val] : v.entries()) {
                if (!b.add_copy(k) || !read_extended(val, b)) {
                    return false;
                }
            }
            b.end_map();
            return b.ok();
        }
        case kind::array:
            if (!b.begin_array()) {
                return false;
            }
            for (value c : v.items()) {
                if (!read_extended(c, b)) {
                    return false;
                }
            }
            b.end_array();
            return b.ok();
        case kind::tagged:
            if (!b.begin_tagged(v.tag(), v.get_tag_space())) {
                return false;
            }
            return read_extended(v.tagged_value(), b);
        default:
            return b.add_copy(v);
    }
}

inline bool add_native(const special& s, builder& b) {
    auto tag = [&](std::uint64_t t) { return b.begin_tagged(t, tag_space::bson); };
    switch (s.type) {
        case t_int32:
            b.add_int(s.i, int_width::bits32);
            break;
        case t_int64:
            b.add_int(s.i, int_width::bits64);
            break;
        case t_double:
            b.add_double(s.d);
            break;
        case t_datetime: {
            std::string text;
            if (format_datetime(s.i, text)) {
                b.add_timestamp(text, timestamp_kind::offset_date_time);
            } else {
                if (!tag(t_datetime)) {
                    return false;
                }
                b.add_int(s.i);
            }
            break;
        }
        case t_binary:
            if (s.subtype == 0) {
                b.add_bytes(s.data);
            } else {
                if (!tag(binary_tag(s.subtype))) {
                    return false;
                }
                b.add_bytes(s.data);
            }
            break;
        case t_object_id:
            if (!tag(t_object_id)) {
                return false;
            }
            b.add_bytes(s.data);
            break;
        case t_decimal128: {
            if (!tag(t_decimal128)) {
                return false;
            }
            std::string text;
            decimal128::to_string(reinterpret_cast<const unsigned char*>(s.data.data()), text);
            b.add_string(text);
            break;
        }
        case t_regex:
            if (!tag(t_regex) || !b.begin_map()) {
                return false;
            }
            b.add_string("pattern");
            b.add_string(s.data);
            b.add_string("options");
            b.add_string(s.extra);
            b.end_map();
            break;
        case t_db_pointer:
            if (!tag(t_db_pointer) || !b.begin_map()) {
                return false;
            }
            b.add_string("$ref");
            b.add_string(s.data);
            b.add_string("$id");
            if (!tag(t_object_id)) {
                return false;
            }
            b.add_bytes(s.extra);
            b.end_map();
            break;
        case t_code:
        case t_symbol:
            if (!tag(s.type)) {
                return false;
            }
            b.add_string(s.data);
            break;
        case t_code_w_scope:
            if (!tag(t_code_w_scope) || !b.begin_map()) {
                return false;
            }
            b.add_string("$code");
            b.add_string(s.data);
            b.add_string("$scope");
            if (!read_extended(s.scope, b, true)) {  // the scope stays a map
                return false;
            }
            b.end_map();
            break;
        case t_timestamp:
            if (!tag(t_timestamp)) {
                return false;
            }
            b.add_uint(s.u);
            break;
        case t_undefined:
        case t_min_key:
        case t_max_key:
            if (!tag(s.type)) {
                return false;
            }
            b.add_null();
            break;
        default:
            return false;
    }
    return b.ok();
}

}  // namespace polycodec::detail::extjson
