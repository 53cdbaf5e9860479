// protojson (DESIGN section 14): the ProtoJSON mapping of Protocol Buffers (protobuf.dev "JSON
// Mapping"), read and written with the message type of schema=/type=. See
// docs/formats/protojson.md.
//
// Decoding reads the JSON text (detail/json_text.hpp), checks it against the descriptors by the
// specification's rules (field names in both forms, int64 as strings or numbers, enums by name
// or number, base64 in both alphabets, null as absent, duplicate keys refused, the well-known
// types' JSON forms) into a document the protobuf encoder accepts, then writes and reads that
// as wire bytes with the protobuf codec: the document is exactly what decoding the same
// message from protobuf gives (field-number order, proto3 defaults left out, oneofs, enum
// names, Timestamp/Duration forms). Encoding goes the other way: the document is written as
// wire bytes and read back (so every input form the protobuf encoder accepts works, and is
// validated once), then printed by the ProtoJSON rules.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_set>

#include "detail/base64.hpp"
#include "detail/epoch_time.hpp"
#include "detail/json_skip.hpp"
#include "detail/json_text.hpp"
#include "detail/lossy.hpp"
#include "detail/nonfinite_text.hpp"
#include "detail/number.hpp"
#include "detail/protobuf_schema.hpp"
#include "detail/protobuf_time.hpp"
#include "detail/text_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"
#include "polycodec/codec.hpp"

namespace polycodec::detail {
namespace {

namespace pb = polycodec::protobuf;
using pb::field_type;
using pb::wkt;

constexpr int max_message_depth = 100;


// The message an Any's type URL names ("type.googleapis.com/pkg.M"), or no_index.
std::int32_t message_of_url(const pb::schema& s, std::string_view url) {
    auto slash = url.rfind('/');
    if (slash == std::string_view::npos) {
        return pb::no_index;
    }
    auto it = s.message_by_name.find(std::string(url.substr(slash + 1)));
    return it == s.message_by_name.end() ? pb::no_index : it->second;
}

bool is_int_type(field_type t) noexcept {
    switch (t) {
        case field_type::int32:
        case field_type::sint32:
        case field_type::sfixed32:
        case field_type::uint32:
        case field_type::fixed32:
        case field_type::int64:
        case field_type::sint64:
        case field_type::sfixed64:
        case field_type::uint64:
        case field_type::fixed64: return true;
        default: return false;
    }
}

bool is_64bit(field_type t) noexcept {
    return t == field_type::int64 || t == field_type::sint64 || t == field_type::sfixed64 ||
           t == field_type::uint64 || t == field_type::fixed64;
}

bool is_unsigned(field_type t) noexcept {
    return t == field_type::uint32 || t == field_type::fixed32 || t == field_type::uint64 ||
           t == field_type::fixed64;
}

// ---------------------------------------------------------------------------------------------
// Byte offsets of values: the JSON reader's document has none, so an error's offset is found
// by walking the text along the value's position (child ordinals from the root).

using json_skip::skip_string;
using json_skip::skip_value;
using json_skip::skip_ws;

// The offset of the value at tape index `target` of `doc`, read from `text`.
std::uint64_t offset_of(const document& doc, std::string_view text, std::size_t target) {
    value v = doc.root();
    std::size_t p = skip_ws(text, 0);
    while (v.index() != target && v.is_container() && p < text.size()) {
        bool is_map = v.kind() == kind::map;
        ++p;  // '{' or '['
        bool found = false;
        value next;
        std::size_t n = 0;
        auto visit = [&](value child) {
            if (child.index() <= target && target < child.end_index()) {
                found = true;
                next = child;
                return true;
            }
            return false;
        };
        if (is_map) {
            for (entry e : v.entries()) {
                p = skip_ws(text, p);
                if (visit(e.key)) {
                    return p;
                }
                p = skip_string(text, p);
                p = skip_ws(text, p) + 1;  // ':'
                if (visit(e.val)) {
                    p = skip_ws(text, p);
                    break;
                }
                p = skip_value(text, p);
                p = skip_ws(text, p) + 1;  // ','
                ++n;
            }
        } else {
            for (value c : v.items()) {
                p = skip_ws(text, p);
                if (visit(c)) {
                    break;
                }
                p = skip_value(text, p);
                p = skip_ws(text, p) + 1;
                ++n;
            }
        }
        if (!found) {
            break;
        }
        v = next;
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// Decoding: ProtoJSON (as the JSON reader's document) -> the protobuf encoder's input.

// "fooBar" -> "foo_bar" (FieldMask paths); false for a path ProtoJSON cannot hold.
bool camel_to_snake(std::string_view in, std::string& out) {
    for (char c : in) {
        if (c == '_') {
            return false;
        }
        if (c >= 'A' && c <= 'Z') {
            out += '_';
            out += static_cast<char>(c + 32);
        } else {
            out += c;
        }
    }
    return true;
}

// "foo_bar" -> "fooBar"; false where the path would not come back (an upper-case letter, or
// '_' not followed by a lower-case letter), as libprotobuf refuses.
bool snake_to_camel(std::string_view in, std::string& out) {
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c >= 'A' && c <= 'Z') {
            return false;
        }
        if (c == '_') {
            if (i + 1 >= in.size() || in[i + 1] < 'a' || in[i + 1] > 'z') {
                return false;
            }
            out += static_cast<char>(in[++i] - 32);
        } else {
            out += c;
        }
    }
    return true;
}

// Per-thread buffers of the reader, reused so that decoding allocates nothing once warm: field
// marks of the messages being read (a stack), keys being checked for duplicates, a key's text.
struct pools {
    std::vector<std::int32_t> marks;
    std::vector<std::string_view> keys;
    std::string key;
};

// True when two of `v`'s map keys are equal; `at` gets the second one.
bool duplicate_key(value v, std::vector<std::string_view>& pool, std::string_view& at) {
    std::size_t base = pool.size();
    for (entry e : v.entries()) {
        pool.push_back(e.key.get_string());
    }
    std::sort(pool.begin() + static_cast<std::ptrdiff_t>(base), pool.end());
    auto it = std::adjacent_find(pool.begin() + static_cast<std::ptrdiff_t>(base), pool.end());
    bool dup = it != pool.end();
    if (dup) {
        at = *it;
    }
    pool.resize(base);
    return dup;
}

class reader {
public:
    reader(const pb::schema& s, std::string_view text, const document& in, builder& out,
           const decode_options& opt, pools& pool)
        : s_(s), text_(text), in_(in), b_(out), opt_(opt), pool_(pool) {}

    result<void> root(std::int32_t m) { return message(in_.root(), s_.messages[m], 0); }

private:
    error bad(value v, std::string msg) const {
        error e = make_error(errc::malformed, offset_of(in_, text_, v.index()), std::move(msg));
        e.path = in_.pointer_to(v.index());
        e.has_path = true;
        return e;
    }

    result<void> limit() const {
        if (!b_.ok()) {
            return fail(make_error(b_.status(), 0,
                                   b_.status() == errc::depth_exceeded
                                       ? "nesting deeper than the depth limit"
                                       : "document larger than its budget"));
        }
        return {};
    }

    static bool is_value_msg(const pb::schema& s, const pb::field_desc& f) {
        return f.type == field_type::message && s.messages[f.message].kind == wkt::value;
    }
    bool is_null_enum(const pb::field_desc& f) const {
        return f.type == field_type::enum_ && s_.enums[f.enum_].null_value;
    }
    // A null that stands for a value (not for "absent"): google.protobuf.Value, NullValue.
    bool null_is_value(const pb::field_desc& f) const {
        return is_value_msg(s_, f) || is_null_enum(f);
    }
    // An enum name the enum does not define, under ignore_unknown_fields: the value is dropped.
    bool dropped_enum(value v, const pb::field_desc& f) const {
        if (!opt_.protojson.ignore_unknown_fields || f.type != field_type::enum_ ||
            v.kind() != kind::string) {
            return false;
        }
        const pb::enum_desc& e = s_.enums[f.enum_];
        std::string_view n = v.get_string();
        return std::none_of(e.values.begin(), e.values.end(),
                            [&](const pb::enum_value_desc& d) { return d.name == n; });
    }

    result<void> message(value v, const pb::message_desc& m, int depth) {
        if (depth > max_message_depth) {
            return fail(bad(v, "messages nested deeper than " +
                                   std::to_string(max_message_depth)));
        }
        if (m.kind != wkt::none) {
            return well_known(v, m, depth);
        }
        if (v.kind() != kind::map) {
            return fail(bad(v, "expected an object for message " + m.full_name));
        }
        if (!b_.begin_map()) {
            return limit();
        }
        // Enums are open (any number) in proto3 files, closed in proto2 ones: the message's
        // file decides for the enums of its fields.
        bool saved = current_proto3_;
        current_proto3_ = m.proto3;
        POLYCODEC_TRY(fields(v, m, depth, false));
        current_proto3_ = saved;
        b_.end_map();
        return {};
    }

    // The fields of object `v` into the open map; `any`: skip "@type".
    result<void> fields(value v, const pb::message_desc& m, int depth, bool any) {
        // marks[base + i]: field i seen; marks[base + fields + o]: the member of oneof o set.
        const std::size_t base = pool_.marks.size();
        const std::size_t nf = m.fields.size();
        pool_.marks.resize(base + nf + m.oneof_count, pb::no_index);
        auto seen = [&](std::size_t i) -> std::int32_t& { return pool_.marks[base + i]; };
        auto oneof = [&](std::size_t o) -> std::int32_t& { return pool_.marks[base + nf + o]; };
        for (entry e : v.entries()) {
            std::string_view key = e.key.get_string();
            if (any && key == "@type") {
                continue;
            }
            pool_.key.assign(key);
            auto it = m.by_name.find(pool_.key);
            if (it == m.by_name.end()) {
                if (opt_.protojson.ignore_unknown_fields) {
                    continue;
                }
                return fail(bad(e.key, "no field \"" + std::string(key) + "\" in " + m.full_name));
            }
            const pb::field_desc& f = m.fields[it->second];
            if (seen(it->second) != pb::no_index) {
                return fail(bad(e.key, "field " + f.name + " given twice (as \"" +
                                           std::string(key) + "\")"));
            }
            seen(it->second) = 1;
            if (e.val.is_null() && !(null_is_value(f) && !f.repeated && !f.map)) {
                continue;  // null: the field's default, absent
            }
            if (!f.repeated && dropped_enum(e.val, f)) {
                continue;
            }
            if (f.oneof != pb::no_index) {
                if (oneof(f.oneof) != pb::no_index) {
                    return fail(bad(e.key, "fields " + m.fields[oneof(f.oneof)].name + " and " +
                                               f.name + " of one oneof are both set"));
                }
                oneof(f.oneof) = it->second;
            }
            b_.add_string(f.name);
            POLYCODEC_TRY(field(e.val, f, depth));
        }
        pool_.marks.resize(base);
        return {};
    }

    result<void> field(value v, const pb::field_desc& f, int depth) {
        if (f.map) {
            const pb::message_desc& entry_m = s_.messages[f.message];
            std::int32_t ki = entry_m.find_number(1);
            std::int32_t vi = entry_m.find_number(2);
            if (ki == pb::no_index || vi == pb::no_index) {
                return fail(bad(v, "map entry " + entry_m.full_name + " lacks key or value"));
            }
            const pb::field_desc& kf = entry_m.fields[ki];
            const pb::field_desc& vf = entry_m.fields[vi];
            if (v.kind() != kind::map) {
                return fail(bad(v, "expected an object for map field " + f.name));
            }
            if (!b_.begin_map()) {
                return limit();
            }
            std::string_view dup;
            if (duplicate_key(v, pool_.keys, dup)) {
                return fail(bad(v, "map key \"" + std::string(dup) + "\" given twice"));
            }
            for (entry e : v.entries()) {
                if (e.val.is_null() && !null_is_value(vf)) {
                    return fail(bad(e.val, "null is not a value of map field " + f.name));
                }
                if (dropped_enum(e.val, vf)) {
                    continue;
                }
                POLYCODEC_TRY(map_key(e.key, kf));
                POLYCODEC_TRY(single(e.val, vf, depth));
            }
            b_.end_map();
            return {};
        }
        if (f.repeated) {
            if (v.kind() != kind::array) {
                return fail(bad(v, "expected an array for repeated field " + f.name));
            }
            if (!b_.begin_array()) {
                return limit();
            }
            for (value item : v.items()) {
                if (item.is_null() && !null_is_value(f)) {
                    return fail(bad(item, "null is not an element of repeated field " + f.name));
                }
                if (dropped_enum(item, f)) {
                    continue;
                }
                POLYCODEC_TRY(single(item, f, depth));
            }
            b_.end_array();
            return {};
        }
        return single(v, f, depth);
    }

    result<void> map_key(value k, const pb::field_desc& kf) {
        std::string_view t = k.get_string();
        if (kf.type == field_type::bool_) {
            if (t != "true" && t != "false") {
                return fail(bad(k, "map key \"" + std::string(t) + "\" is not true or false"));
            }
            b_.add_string(t);
            return {};
        }
        if (is_int_type(kf.type)) {
            return integer_text(k, t, kf, false);
        }
        b_.add_string(t);
        return {};
    }

    // An integer field's value given as text: "-12", or (exponent: true) "1e2", "1.0".
    result<void> integer_text(value v, std::string_view t, const pb::field_desc& f,
                              bool exponent) {
        const char* b = t.data();
        const char* e = t.data() + t.size();
        if (is_unsigned(f.type)) {
            std::uint64_t u = 0;
            auto [p, ec] = std::from_chars(b, e, u);
            if (ec == std::errc() && p == e && !t.empty() && t[0] != '+') {
                return integer_value(v, f, false, 0, u);
            }
        } else {
            std::int64_t i = 0;
            auto [p, ec] = std::from_chars(b, e, i);
            if (ec == std::errc() && p == e && !t.empty()) {
                return integer_value(v, f, i < 0, i, static_cast<std::uint64_t>(i));
            }
        }
        if (exponent && !t.empty() && t[0] != ' ' && t.back() != ' ') {
            double d = 0;
            auto [p, ec] = std::from_chars(b, e, d);
            if (ec == std::errc() && p == e) {
                return integer_double(v, d, f);
            }
        }
        return fail(bad(v, "\"" + std::string(t) + "\" is not an integer for field " + f.name));
    }

    result<void> integer_double(value v, double d, const pb::field_desc& f) {
        if (!std::isfinite(d) || d != std::trunc(d)) {
            return fail(bad(v, "field " + f.name + " needs an integer"));
        }
        if (d < 0) {
            if (d < -9223372036854775808.0) {
                return fail(bad(v, "value out of range for field " + f.name));
            }
            auto i = static_cast<std::int64_t>(d);
            return integer_value(v, f, true, i, 0);
        }
        if (d >= 18446744073709551616.0) {
            return fail(bad(v, "value out of range for field " + f.name));
        }
        auto u = static_cast<std::uint64_t>(d);
        return integer_value(v, f, false, 0, u);
    }

    result<void> integer_value(value v, const pb::field_desc& f, bool neg, std::int64_t i,
                               std::uint64_t u) {
        std::int64_t lo = 0;
        std::uint64_t hi = 0;
        switch (f.type) {
            case field_type::int32:
            case field_type::sint32:
            case field_type::sfixed32:
            case field_type::enum_:
                lo = std::numeric_limits<std::int32_t>::min();
                hi = std::numeric_limits<std::int32_t>::max();
                break;
            case field_type::uint32:
            case field_type::fixed32: hi = std::numeric_limits<std::uint32_t>::max(); break;
            case field_type::uint64:
            case field_type::fixed64: hi = std::numeric_limits<std::uint64_t>::max(); break;
            default:
                lo = std::numeric_limits<std::int64_t>::min();
                hi = std::numeric_limits<std::int64_t>::max();
        }
        if (neg ? i < lo : u > hi) {
            return fail(bad(v, "value out of range for " + std::string(is_64bit(f.type) ? "64" : "32") +
                                   "-bit field " + f.name));
        }
        if (neg) {
            b_.add_int(i);
        } else if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            b_.add_uint(u);
        } else {
            b_.add_int(static_cast<std::int64_t>(u));
        }
        return {};
    }

    result<void> integer(value v, const pb::field_desc& f) {
        switch (v.kind()) {
            case kind::int64: {
                std::int64_t i = v.get_int();
                return integer_value(v, f, i < 0, i, static_cast<std::uint64_t>(i));
            }
            case kind::uint64: return integer_value(v, f, false, 0, v.get_uint());
            case kind::float64: return integer_double(v, v.get_double(), f);
            case kind::bignum: return fail(bad(v, "value out of range for field " + f.name));
            case kind::string: return integer_text(v, v.get_string(), f, true);
            default: return fail(bad(v, "field " + f.name + " needs an integer"));
        }
    }

    result<void> floating(value v, const pb::field_desc& f) {
        double d = 0;
        switch (v.kind()) {
            case kind::int64: d = static_cast<double>(v.get_int()); break;
            case kind::uint64: d = static_cast<double>(v.get_uint()); break;
            case kind::float64: d = v.get_double(); break;
            case kind::bignum: {
                std::string_view t = v.get_string();
                std::from_chars(t.data(), t.data() + t.size(), d);
                break;
            }
            case kind::string: {
                std::string_view t = v.get_string();
                if (t == "NaN") {
                    d = std::numeric_limits<double>::quiet_NaN();
                } else if (t == "Infinity") {
                    d = std::numeric_limits<double>::infinity();
                } else if (t == "-Infinity") {
                    d = -std::numeric_limits<double>::infinity();
                } else {
                    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
                    if (t.empty() || ec != std::errc() || p != t.data() + t.size() ||
                        !std::isfinite(d)) {
                        return fail(bad(v, "\"" + std::string(t) + "\" is not a number for field " +
                                               f.name));
                    }
                }
                break;
            }
            default: return fail(bad(v, "field " + f.name + " needs a number"));
        }
        if (f.type == field_type::float_ && std::isfinite(d)) {
            // Rounded to the nearest float32; a value that rounds past FLT_MAX is refused.
            auto r = static_cast<float>(d);
            if (std::isinf(r)) {
                return fail(bad(v, "value out of range for float field " + f.name));
            }
            d = static_cast<double>(r);
        }
        b_.add_double(d);
        return {};
    }

    result<void> single(value v, const pb::field_desc& f, int depth) {
        switch (f.type) {
            case field_type::double_:
            case field_type::float_: return floating(v, f);
            case field_type::bool_:
                if (!v.is_bool()) {
                    return fail(bad(v, "field " + f.name + " needs true or false"));
                }
                b_.add_bool(v.get_bool());
                return {};
            case field_type::string:
                if (v.kind() != kind::string) {
                    return fail(bad(v, "field " + f.name + " needs a string"));
                }
                b_.add_string(v.get_string());
                return {};
            case field_type::bytes: {
                if (v.kind() != kind::string) {
                    return fail(bad(v, "field " + f.name + " needs base64 text"));
                }
                if (!base64_decode(v.get_string(), scratch_)) {
                    return fail(bad(v, "field " + f.name + ": not base64"));
                }
                b_.add_bytes(scratch_);
                return {};
            }
            case field_type::enum_: return enumeration(v, f);
            case field_type::message:
            case field_type::group: return message(v, s_.messages[f.message], depth + 1);
            default: return integer(v, f);
        }
    }

    result<void> enumeration(value v, const pb::field_desc& f) {
        const pb::enum_desc& e = s_.enums[f.enum_];
        if (e.null_value && (v.is_null() || (v.kind() == kind::string &&
                                             v.get_string() == "NULL_VALUE"))) {
            b_.add_null();
            return {};
        }
        if (v.kind() == kind::string) {
            std::string_view n = v.get_string();
            for (const pb::enum_value_desc& d : e.values) {
                if (d.name == n) {
                    b_.add_int(d.number);
                    return {};
                }
            }
            return fail(bad(v, "\"" + std::string(n) + "\" is not a value of enum " + e.full_name));
        }
        if (v.kind() == kind::int64 || v.kind() == kind::uint64 || v.kind() == kind::float64) {
            if (!open_enum(f)) {
                // A closed (proto2) enum holds only its values.
                double d = v.kind() == kind::float64 ? v.get_double()
                                                     : static_cast<double>(v.get_int());
                bool known = std::any_of(e.values.begin(), e.values.end(),
                                         [&](const pb::enum_value_desc& x) { return x.number == d; });
                if (!known) {
                    return fail(bad(v, "not a value of enum " + e.full_name));
                }
            }
            return integer(v, f);
        }
        return fail(bad(v, "field " + f.name + " needs an enum name or number"));
    }

    bool open_enum(const pb::field_desc& f) const {
        (void)f;
        return current_proto3_;
    }

    result<void> well_known(value v, const pb::message_desc& m, int depth) {
        switch (m.kind) {
            case wkt::timestamp: return timestamp(v);
            case wkt::duration: return duration(v);
            case wkt::wrapper: return single(v, m.fields[0], depth);
            case wkt::struct_: return json_map(v, depth);
            case wkt::value: return json_value(v, depth);
            case wkt::list_value:
                if (v.kind() != kind::array) {
                    return fail(bad(v, "expected an array for google.protobuf.ListValue"));
                }
                return json_value(v, depth);
            case wkt::field_mask: return field_mask(v);
            case wkt::any: return any(v, depth);
            case wkt::empty:
            default:
                if (v.kind() != kind::map) {
                    return fail(bad(v, "expected an object for " + m.full_name));
                }
                if (v.size() != 0 && !opt_.protojson.ignore_unknown_fields) {
                    return fail(bad(v, m.full_name + " has no fields"));
                }
                if (!b_.begin_map()) {
                    return limit();
                }
                b_.end_map();
                return {};
        }
    }

    result<void> timestamp(value v) {
        if (v.kind() != kind::string) {
            return fail(bad(v, "expected RFC 3339 text for google.protobuf.Timestamp"));
        }
        std::string_view t = v.get_string();
        epoch_instant r;
        std::size_t frac = 0;
        if (t.size() > 19 && t[19] == '.') {
            std::size_t p = 20;
            while (p < t.size() && t[p] >= '0' && t[p] <= '9') {
                ++p;
            }
            frac = p - 20;
        }
        if (!parse_rfc3339(t, r) || t[10] != 'T' || t.find('z') != std::string_view::npos ||
            r.leap_second || frac > 9) {
            return fail(bad(v, "\"" + std::string(t) +
                                   "\" is not an RFC 3339 timestamp (YYYY-MM-DDTHH:MM:SS[.f]Z "
                                   "or an offset, up to 9 fraction digits)"));
        }
        if (r.seconds < -62135596800 || r.seconds > 253402300799) {
            return fail(bad(v, "timestamp \"" + std::string(t) +
                                   "\" outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z"));
        }
        b_.add_string(t);
        return {};
    }

    result<void> duration(value v) {
        if (v.kind() != kind::string) {
            return fail(bad(v, "expected text like \"1.5s\" for google.protobuf.Duration"));
        }
        std::string_view t = v.get_string();
        std::size_t p = 0;
        if (p < t.size() && t[p] == '-') {
            ++p;
        }
        std::size_t int_start = p;
        std::uint64_t secs = 0;
        while (p < t.size() && t[p] >= '0' && t[p] <= '9' && p - int_start < 13) {
            secs = secs * 10 + static_cast<unsigned>(t[p] - '0');
            ++p;
        }
        bool ok = p > int_start;
        if (ok && p < t.size() && t[p] == '.') {
            std::size_t f0 = ++p;
            while (p < t.size() && t[p] >= '0' && t[p] <= '9') {
                ++p;
            }
            ok = p > f0 && p - f0 <= 9;
        }
        ok = ok && p + 1 == t.size() && t[p] == 's';
        if (!ok) {
            return fail(bad(v, "\"" + std::string(t) +
                                   "\" is not a duration (-?seconds[.up to 9 digits]s)"));
        }
        if (secs > 315576000000ULL) {
            return fail(bad(v, "duration \"" + std::string(t) + "\" outside ±315576000000s"));
        }
        b_.add_string(t);
        return {};
    }

    result<void> field_mask(value v) {
        if (v.kind() != kind::string) {
            return fail(bad(v, "expected comma-separated paths for google.protobuf.FieldMask"));
        }
        std::string_view t = v.get_string();
        if (!b_.begin_array()) {
            return limit();
        }
        while (!t.empty()) {
            auto comma = t.find(',');
            std::string_view part = t.substr(0, comma);
            std::string path;
            if (!camel_to_snake(part, path)) {
                return fail(bad(v, "FieldMask path \"" + std::string(part) +
                                       "\" is not lowerCamelCase"));
            }
            b_.add_string(path);
            t = comma == std::string_view::npos ? std::string_view{} : t.substr(comma + 1);
        }
        b_.end_array();
        return {};
    }

    result<void> any(value v, int depth) {
        if (v.kind() != kind::map) {
            return fail(bad(v, "expected an object for google.protobuf.Any"));
        }
        value url;
        for (entry e : v.entries()) {
            if (e.key.get_string() == "@type") {
                if (url.doc() != nullptr) {
                    return fail(bad(e.key, "\"@type\" given twice"));
                }
                url = e.val;
            }
        }
        if (url.doc() == nullptr) {
            if (v.size() != 0) {
                return fail(bad(v, "google.protobuf.Any needs \"@type\""));
            }
            if (!b_.begin_map()) {
                return limit();
            }
            b_.end_map();
            return {};
        }
        if (url.kind() != kind::string) {
            return fail(bad(url, "\"@type\" needs a type URL"));
        }
        std::int32_t im = message_of_url(s_, url.get_string());
        if (im == pb::no_index) {
            return fail(bad(url, "type URL \"" + std::string(url.get_string()) +
                                     "\" names no message of the schema"));
        }
        const pb::message_desc& inner = s_.messages[im];
        if (!b_.begin_map()) {
            return limit();
        }
        b_.add_string("@type");
        b_.add_string(url.get_string());
        if (inner.kind != wkt::none && inner.kind != wkt::empty) {
            value packed;
            for (entry e : v.entries()) {
                std::string_view k = e.key.get_string();
                if (k == "value") {
                    if (packed.doc() != nullptr) {
                        return fail(bad(e.key, "\"value\" given twice"));
                    }
                    packed = e.val;
                } else if (k != "@type" && !opt_.protojson.ignore_unknown_fields) {
                    return fail(bad(e.key, "an Any of " + inner.full_name +
                                               " holds only \"@type\" and \"value\""));
                }
            }
            if (packed.doc() == nullptr) {
                return fail(bad(v, "an Any of " + inner.full_name + " needs \"value\""));
            }
            b_.add_string("value");
            POLYCODEC_TRY(message(packed, inner, depth + 1));
        } else {
            bool saved = current_proto3_;
            current_proto3_ = inner.proto3;
            POLYCODEC_TRY(fields(v, inner, depth + 1, true));
            current_proto3_ = saved;
        }
        b_.end_map();
        return {};
    }

    result<void> json_map(value v, int depth) {
        if (v.kind() != kind::map) {
            return fail(bad(v, "expected an object for google.protobuf.Struct"));
        }
        return json_value(v, depth);
    }

    // google.protobuf.Value: any JSON; numbers as doubles.
    result<void> json_value(value v, int depth) {
        if (depth > max_message_depth) {
            return fail(bad(v, "messages nested deeper than " +
                                   std::to_string(max_message_depth)));
        }
        switch (v.kind()) {
            case kind::null: b_.add_null(); return {};
            case kind::boolean_false:
            case kind::boolean_true: b_.add_bool(v.get_bool()); return {};
            case kind::int64: b_.add_double(static_cast<double>(v.get_int())); return {};
            case kind::uint64: b_.add_double(static_cast<double>(v.get_uint())); return {};
            case kind::float64: b_.add_double(v.get_double()); return {};
            case kind::bignum: {
                std::string_view t = v.get_string();
                double d = 0;
                std::from_chars(t.data(), t.data() + t.size(), d);
                if (!std::isfinite(d)) {
                    return fail(bad(v, "number out of range for google.protobuf.Value"));
                }
                b_.add_double(d);
                return {};
            }
            case kind::string: b_.add_string(v.get_string()); return {};
            case kind::array:
                if (!b_.begin_array()) {
                    return limit();
                }
                for (value item : v.items()) {
                    POLYCODEC_TRY(json_value(item, depth + 1));
                }
                b_.end_array();
                return {};
            case kind::map: {
                if (!b_.begin_map()) {
                    return limit();
                }
                std::string_view dup;
                if (duplicate_key(v, pool_.keys, dup)) {
                    return fail(bad(v, "key \"" + std::string(dup) + "\" given twice"));
                }
                for (entry e : v.entries()) {
                    b_.add_string(e.key.get_string());
                    POLYCODEC_TRY(json_value(e.val, depth + 1));
                }
                b_.end_map();
                return {};
            }
            default: return fail(bad(v, "not a JSON value"));
        }
    }

public:
    bool current_proto3_ = true;

private:
    const pb::schema& s_;
    std::string_view text_;
    const document& in_;
    builder& b_;
    const decode_options& opt_;
    pools& pool_;
    std::string scratch_;
};

struct scratch {
    document json;
    document normal;
    output_buffer wire;
    pools pool;
};

scratch& thread_scratch() {
    thread_local scratch s;
    return s;
}

result<void> decode_protojson(std::string_view in, builder& b, const decode_options& opt) {
    if (!opt.protobuf_schema) {
        return fail(make_error(errc::schema_required, 0,
                               "protojson needs a protobuf schema (schema=NAME, CLI --schema)"));
    }
    const pb::schema& s = *opt.protobuf_schema;
    POLYCODEC_TRY_ASSIGN(m, pick_message(s, opt.type_name));
    scratch& sc = thread_scratch();
    {
        builder jb(sc.json, opt.limits);
        jb.reset();
        POLYCODEC_TRY(json_read_value(in, 0, jb));
        if (!jb.ok()) {
            return fail(make_error(jb.status(), in.size(),
                                   jb.status() == errc::depth_exceeded
                                       ? "nesting deeper than " +
                                             std::to_string(opt.limits.max_depth)
                                       : "document larger than its budget"));
        }
    }
    {
        builder nb(sc.normal, opt.limits);
        nb.reset();
        sc.pool.marks.clear();
        sc.pool.keys.clear();
        reader r(s, in, sc.json, nb, opt, sc.pool);
        r.current_proto3_ = s.messages[m].proto3;
        POLYCODEC_TRY(r.root(m));
        if (!nb.ok()) {
            return fail(make_error(nb.status(), in.size(), "document larger than its budget"));
        }
    }
    encode_options eo;
    eo.protobuf_schema = opt.protobuf_schema;
    eo.type_name = opt.type_name;
    sc.wire.clear();
    if (auto r = encode(format_id::protobuf, sc.normal, sc.wire, eo); !r) {
        error e = r.error();
        e.code = errc::malformed;
        e.has_offset = true;
        e.offset = 0;
        e.line = 0;
        e.format = format_id::protojson;
        return fail(std::move(e));
    }
    return protobuf_codec.decode(sc.wire.view(), b, opt);
}

// ---------------------------------------------------------------------------------------------
// Encoding: the document -> protobuf wire bytes -> the protobuf decoder's document -> ProtoJSON
// (as a JSON document, written by the JSON writer).

// A float field's value (finite) as the double to print: the shortest text that reads back as
// the same float32, read as a double. Near FLT_MAX that text ("3.4028235e+38") reads as a
// double above FLT_MAX, which json_format refuses: the exact value is printed there.
double float_shown(double d) {
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<float>(d));
    double r = d;
    if (ec == std::errc()) {
        std::from_chars(buf, p, r);
    }
    return std::fabs(r) > static_cast<double>(std::numeric_limits<float>::max()) ? d : r;
}

class printer {
public:
    printer(const pb::schema& s, builder& out, const encode_options& opt, output_buffer& text)
        : s_(s), b_(out), opt_(opt), out_(text) {}

    result<void> message(value v, const pb::message_desc& m) {
        if (m.kind != wkt::none) {
            return well_known(v, m);
        }
        if (v.kind() != kind::map) {
            return fail(unrepresentable(v, "expected a map for message " + m.full_name));
        }
        if (!b_.begin_map()) {
            return limit();
        }
        POLYCODEC_TRY(fields(v, m, false));
        b_.end_map();
        return {};
    }

private:
    result<void> limit() const {
        return fail(make_error(b_.status() == errc::ok ? errc::size_exceeded : b_.status(),
                               "protojson output deeper or larger than the document budget"));
    }

    result<void> fields(value v, const pb::message_desc& m, bool any) {
        std::vector<std::uint8_t> present;
        if (opt_.protojson.always_print_primitive_fields) {
            present.assign(m.fields.size(), 0);
        }
        for (entry e : v.entries()) {
            if (e.key.kind() != kind::string) {
                // An unknown field (its number and raw bytes): ProtoJSON has no form for it.
                if (allow_lossy(opt_, e.val, "tag_dropped",
                                "unknown protobuf field dropped (no ProtoJSON form)")) {
                    continue;
                }
                return fail(unrepresentable(
                    e.val, "unknown field " + std::to_string(e.key.get_int()) +
                               " is not representable in protojson"));
            }
            std::string_view key = e.key.get_string();
            if (any && key == "@type") {
                continue;
            }
            auto it = m.by_name.find(std::string(key));
            if (it == m.by_name.end()) {
                return fail(unrepresentable(e.val, "no field \"" + std::string(key) + "\" in " +
                                                       m.full_name));
            }
            const pb::field_desc& f = m.fields[it->second];
            if (!present.empty()) {
                present[it->second] = 1;
            }
            b_.add_string(opt_.protojson.preserve_proto_field_names ? f.name : f.json_name);
            POLYCODEC_TRY(field(e.val, f));
        }
        if (!present.empty()) {
            for (std::size_t i = 0; i < m.fields.size(); ++i) {
                const pb::field_desc& f = m.fields[i];
                if (present[i] != 0 || (f.presence && !f.repeated && !f.map)) {
                    continue;
                }
                b_.add_string(opt_.protojson.preserve_proto_field_names ? f.name : f.json_name);
                POLYCODEC_TRY(default_value(f));
            }
        }
        return {};
    }

    result<void> default_value(const pb::field_desc& f) {
        if (f.map) {
            b_.begin_map();
            b_.end_map();
            return {};
        }
        if (f.repeated) {
            b_.begin_array();
            b_.end_array();
            return {};
        }
        switch (f.type) {
            case field_type::double_:
            case field_type::float_: b_.add_int(0); break;
            case field_type::bool_: b_.add_bool(false); break;
            case field_type::string:
            case field_type::bytes: b_.add_string(""); break;
            case field_type::enum_: {
                const pb::enum_desc& e = s_.enums[f.enum_];
                if (e.null_value) {
                    b_.add_null();
                } else if (opt_.protojson.enums_as_ints || e.values.empty()) {
                    b_.add_int(e.values.empty() ? 0 : e.values[0].number);
                } else {
                    b_.add_string(e.values[0].name);
                }
                break;
            }
            default:
                if (is_64bit(f.type)) {
                    b_.add_string("0");
                } else {
                    b_.add_int(0);
                }
        }
        return {};
    }

    result<void> field(value v, const pb::field_desc& f) {
        if (f.map) {
            const pb::message_desc& entry_m = s_.messages[f.message];
            std::int32_t vi = entry_m.find_number(2);
            if (v.kind() != kind::map || vi == pb::no_index) {
                return fail(unrepresentable(v, "expected a map for map field " + f.name));
            }
            const pb::field_desc& vf = entry_m.fields[vi];
            if (!b_.begin_map()) {
                return limit();
            }
            for (entry e : v.entries()) {
                if (e.key.kind() == kind::string) {
                    b_.add_string(e.key.get_string());
                } else if (e.key.kind() == kind::int64 || e.key.kind() == kind::uint64) {
                    char buf[24];
                    auto [p, ec] = e.key.kind() == kind::uint64
                                       ? std::to_chars(buf, buf + sizeof buf, e.key.get_uint())
                                       : std::to_chars(buf, buf + sizeof buf, e.key.get_int());
                    (void)ec;
                    b_.add_string(std::string_view(buf, static_cast<std::size_t>(p - buf)));
                } else if (e.key.is_bool()) {
                    b_.add_string(e.key.get_bool() ? "true" : "false");
                } else {
                    return fail(unrepresentable(e.key, "map key not representable in protojson"));
                }
                POLYCODEC_TRY(single(e.val, vf));
            }
            b_.end_map();
            return {};
        }
        if (f.repeated) {
            if (v.kind() != kind::array) {
                return fail(unrepresentable(v, "expected an array for repeated field " + f.name));
            }
            if (!b_.begin_array()) {
                return limit();
            }
            for (value item : v.items()) {
                POLYCODEC_TRY(single(item, f));
            }
            b_.end_array();
            return {};
        }
        return single(v, f);
    }

    void number_text(double d, bool as_float) {
        if (std::isnan(d)) {
            b_.add_string("NaN");
        } else if (std::isinf(d)) {
            b_.add_string(d > 0 ? "Infinity" : "-Infinity");
        } else if (as_float) {
            b_.add_double(float_shown(d));
        } else {
            b_.add_double(d);
        }
    }

    result<void> single(value v, const pb::field_desc& f) {
        switch (f.type) {
            case field_type::double_:
            case field_type::float_:
                number_text(v.kind() == kind::float64 ? v.get_double()
                            : v.kind() == kind::uint64 ? static_cast<double>(v.get_uint())
                                                       : static_cast<double>(v.get_int()),
                            f.type == field_type::float_);
                return {};
            case field_type::bool_: b_.add_bool(v.get_bool()); return {};
            case field_type::string: b_.add_string(v.get_string()); return {};
            case field_type::bytes: {
                out_.clear();
                base64_encode(out_, v.get_string());
                b_.add_string(out_.view());
                return {};
            }
            case field_type::enum_: {
                const pb::enum_desc& e = s_.enums[f.enum_];
                if (v.is_null()) {
                    b_.add_null();
                } else if (v.kind() == kind::string) {
                    if (opt_.protojson.enums_as_ints) {
                        std::string_view n = v.get_string();
                        for (const pb::enum_value_desc& d : e.values) {
                            if (d.name == n) {
                                b_.add_int(d.number);
                                return {};
                            }
                        }
                    }
                    b_.add_string(v.get_string());
                } else {
                    b_.add_int(v.get_int());
                }
                return {};
            }
            case field_type::message:
            case field_type::group: return message(v, s_.messages[f.message]);
            default:
                if (is_64bit(f.type)) {
                    char buf[24];
                    auto [p, ec] = v.kind() == kind::uint64
                                       ? std::to_chars(buf, buf + sizeof buf, v.get_uint())
                                       : std::to_chars(buf, buf + sizeof buf, v.get_int());
                    (void)ec;
                    b_.add_string(std::string_view(buf, static_cast<std::size_t>(p - buf)));
                } else {
                    b_.add_int(v.get_int());
                }
                return {};
        }
    }

    result<void> well_known(value v, const pb::message_desc& m) {
        switch (m.kind) {
            case wkt::timestamp:
                if (v.kind() != kind::timestamp) {
                    return fail(unrepresentable(
                        v, "a Timestamp outside 0001..9999 or with bad nanos is not "
                           "representable in protojson"));
                }
                b_.add_string(v.get_string());
                return {};
            case wkt::duration:
                if (v.kind() != kind::string) {
                    return fail(unrepresentable(
                        v, "a Duration out of range or with mixed signs is not representable in "
                           "protojson"));
                }
                b_.add_string(v.get_string());
                return {};
            case wkt::wrapper: return single(v, m.fields[0]);
            case wkt::struct_:
            case wkt::value:
            case wkt::list_value: return json_value(v);
            case wkt::field_mask: {
                std::string joined;
                if (v.kind() == kind::array) {
                    bool first = true;
                    for (value p : v.items()) {
                        if (!first) {
                            joined += ',';
                        }
                        first = false;
                        if (!snake_to_camel(p.get_string(), joined)) {
                            return fail(unrepresentable(
                                p, "FieldMask path \"" + std::string(p.get_string()) +
                                       "\" has no lowerCamelCase form"));
                        }
                    }
                }
                b_.add_string(joined);
                return {};
            }
            case wkt::any: return any(v);
            case wkt::empty:
            default:
                b_.begin_map();
                b_.end_map();
                return {};
        }
    }

    result<void> any(value v) {
        value url = v.kind() == kind::map ? v.find("@type") : value{};
        if (url.doc() == nullptr || url.kind() != kind::string) {
            if (!b_.begin_map()) {
                return limit();
            }
            b_.end_map();
            return {};
        }
        std::int32_t im = message_of_url(s_, url.get_string());
        value packed = v.find("value");
        if (im == pb::no_index) {
            return fail(unrepresentable(v, "Any of type \"" + std::string(url.get_string()) +
                                               "\", which the schema does not define, is not "
                                               "representable in protojson"));
        }
        const pb::message_desc& inner = s_.messages[im];
        if (!b_.begin_map()) {
            return limit();
        }
        b_.add_string("@type");
        b_.add_string(url.get_string());
        if (inner.kind != wkt::none && inner.kind != wkt::empty) {
            b_.add_string("value");
            POLYCODEC_TRY(well_known(packed, inner));
        } else {
            POLYCODEC_TRY(fields(v, inner, true));
        }
        b_.end_map();
        return {};
    }

    result<void> json_value(value v) {
        switch (v.kind()) {
            case kind::float64:
                if (!std::isfinite(v.get_double())) {
                    return fail(unrepresentable(
                        v, "NaN or Infinity in google.protobuf.Value is not representable in "
                           "protojson"));
                }
                b_.add_double(v.get_double());
                return {};
            case kind::array:
                if (!b_.begin_array()) {
                    return limit();
                }
                for (value item : v.items()) {
                    POLYCODEC_TRY(json_value(item));
                }
                b_.end_array();
                return {};
            case kind::map:
                if (!b_.begin_map()) {
                    return limit();
                }
                for (entry e : v.entries()) {
                    b_.add_string(e.key.kind() == kind::string ? e.key.get_string()
                                                               : std::string_view{});
                    POLYCODEC_TRY(json_value(e.val));
                }
                b_.end_map();
                return {};
            default: return b_.add_copy(v) ? result<void>{} : limit();
        }
    }

    const pb::schema& s_;
    builder& b_;
    const encode_options& opt_;
    output_buffer& out_;  ///< base64 text, per thread
};

// ---------------------------------------------------------------------------------------------
// Encoding, direct: one walk of the document against the descriptors, writing ProtoJSON text
// as it goes (keys quoted once with the schema: field_desc::json_key / name_key; the layout
// of detail/text_writer.hpp's text_hooks, which is the JSON writer's). It takes the documents
// whose printed form it can tell without the round trip below, which are what the protobuf
// and protojson decoders give and what JSON-like formats give for such data: keys that name
// fields in ascending field-number order, values of their fields' own kinds (integers in
// range, floats exact, enum names or numbers, bytes, valid UTF-8 strings, Timestamp and
// Duration text, wrappers' values, Struct/Value/ListValue, FieldMask, Empty, Any of a type
// the schema defines), nested at most max_depth levels. The rest (a key out of order, given
// twice or by number, a oneof set twice, numbers as text, base64 text for bytes, unknown
// fields, an Any of an undefined type, the well-known types in their
// plain-message form, every error and every lossy case) makes it return false having written
// nothing that stays: encode_protojson then takes the round trip, which decides those
// documents (tests/differential/test_protojson.py checks that both write the same bytes,
// POLYCODEC_PROTOJSON_PATH choosing one).

class direct_printer : public text_hooks {
public:
    direct_printer(const pb::schema& s, output_buffer& out, const encode_options& opt,
                   std::vector<std::uint8_t>& marks, std::string& text)
        : text_hooks(out, opt), s_(s), marks_(marks), text_(text),
          proto_names_(opt.protojson.preserve_proto_field_names) {}

    bool message(value v, const pb::message_desc& m, int depth) {
        if (depth > max_depth) {
            return false;
        }
        if (m.kind != wkt::none) {
            return well_known(v, m, depth);
        }
        return v.kind() == kind::map && fields(v, m, depth, value{});
    }

private:
    // A message's fields as an object; with `url` (an Any's type URL), "@type" first and the
    // document's "@type" keys skipped.
    bool fields(value v, const pb::message_desc& m, int depth, value url) {
        const bool always = opt_.protojson.always_print_primitive_fields;
        const std::size_t base = marks_.size();
        if (always) {
            marks_.resize(base + m.fields.size(), 0);
        }
        std::uint64_t oneofs = 0;
        std::uint32_t last_number = 0;
        std::size_t next = 0;  // the field after the last one: the usual next key
        bool first = true;
        put('{');
        if (url.doc() != nullptr) {
            item(true, depth + 1);
            type_url(url);
            first = false;
        }
        for (entry e : v.entries()) {
            if (e.key.kind() != kind::string) {
                return false;
            }
            if (url.doc() != nullptr && e.key.get_string() == "@type") {
                continue;
            }
            const std::int32_t fi = field_index(m, e.key.get_string(), next);
            if (fi == pb::no_index) {
                return false;
            }
            const pb::field_desc& f = m.fields[static_cast<std::size_t>(fi)];
            if (f.number <= last_number || !f.name_wins) {
                return false;  // out of order or given twice: the round trip sorts and merges
            }
            last_number = f.number;
            next = static_cast<std::size_t>(fi) + 1;
            if (e.val.is_null()) {
                if (!accepts_null(f)) {
                    continue;  // null: the field's default, absent
                }
                if (f.repeated || f.map) {
                    return false;  // an error
                }
            }
            if (f.oneof != pb::no_index) {
                if (f.oneof >= 64 || (oneofs >> f.oneof & 1) != 0) {
                    return false;
                }
                oneofs |= std::uint64_t{1} << f.oneof;
            }
            const std::size_t mark = out_.size();
            item(first, depth + 1);
            key_of(f);
            const int r = field(e.val, f, depth + 1);
            if (r < 0) {
                return false;
            }
            if (r == 0) {
                out_.truncate(mark);  // the default of an implicit-presence field: absent
                continue;
            }
            first = false;
            if (always) {
                marks_[base + static_cast<std::size_t>(fi)] = 1;
            }
        }
        if (always) {
            for (std::size_t i = 0; i < m.fields.size(); ++i) {
                const pb::field_desc& f = m.fields[i];
                if (marks_[base + i] != 0 || (f.presence && !f.repeated && !f.map)) {
                    continue;
                }
                item(first, depth + 1);
                first = false;
                key_of(f);
                default_value(f);
            }
            marks_.resize(base);
        }
        close('}', first, depth);
        return true;
    }

    // Deeper: the round trip (whose decoder stops at 100 nested messages; a Value nests three
    // messages a level).
    static constexpr int max_depth = 30;

    // The field `key` names: the field at `next` when it is the one (one comparison), else
    // through by_name (.proto names and json_names); no_index for none.
    std::int32_t field_index(const pb::message_desc& m, std::string_view key, std::size_t next) {
        if (next < m.fields.size() && m.fields[next].name == key) {
            return static_cast<std::int32_t>(next);
        }
        key_.assign(key);
        auto it = m.by_name.find(key_);
        return it == m.by_name.end() ? pb::no_index : it->second;
    }

    // Before an element or entry: the comma after the previous one, the pretty line break.
    void item(bool first, int depth) {
        if (!first) {
            put(',');
        }
        newline(depth);
    }
    void close(char c, bool empty, int depth) {
        if (!empty) {
            newline(depth);
        }
        put(c);
    }
    void colon() {
        put(':');
        if (opt_.pretty) {
            put(' ');
        }
    }
    void key_of(const pb::field_desc& f) {
        out_.append(proto_names_ ? f.name_key : f.json_key);
        colon();
    }

    // As the protobuf encoder: null stands for a value only in Value and NullValue fields.
    bool accepts_null(const pb::field_desc& f) const {
        if (f.type == field_type::enum_) {
            return s_.enums[f.enum_].null_value;
        }
        return f.type == field_type::message && s_.messages[f.message].kind == wkt::value;
    }

    void default_value(const pb::field_desc& f) {
        if (f.map || f.repeated) {
            out_.append(f.map ? "{}" : "[]");
            return;
        }
        switch (f.type) {
            case field_type::double_:
            case field_type::float_: put('0'); return;
            case field_type::bool_: out_.append("false"); return;
            case field_type::string:
            case field_type::bytes: out_.append("\"\""); return;
            case field_type::enum_: {
                const pb::enum_desc& e = s_.enums[f.enum_];
                if (e.null_value) {
                    out_.append("null");
                } else if (opt_.protojson.enums_as_ints || e.values.empty()) {
                    write_int(out_, e.values.empty() ? 0 : e.values[0].number);
                } else {
                    json_write_string(out_, e.values[0].name);
                }
                return;
            }
            default: out_.append(is_64bit(f.type) ? "\"0\"" : "0"); return;
        }
    }

    // -1: not taken (the round trip); 0: the field is absent (an implicit-presence default,
    // an empty repeated field or map); 1: written.
    int field(value v, const pb::field_desc& f, int depth) {
        if (f.map) {
            return map_field(v, f, depth);
        }
        if (!f.repeated) {
            return single(v, f, f.presence, depth);
        }
        if (v.kind() != kind::array) {
            return -1;
        }
        if (v.size() == 0) {
            return 0;
        }
        put('[');
        bool first = true;
        for (value element : v.items()) {
            item(first, depth + 1);
            first = false;
            if (single(element, f, true, depth + 1) < 0) {
                return -1;
            }
        }
        close(']', false, depth);
        return 1;
    }

    int map_field(value v, const pb::field_desc& f, int depth) {
        if (v.kind() != kind::map) {
            return -1;
        }
        if (v.size() == 0) {
            return 0;
        }
        const pb::message_desc& entry_m = s_.messages[f.message];
        const std::int32_t ki = entry_m.find_number(1);
        const std::int32_t vi = entry_m.find_number(2);
        if (ki == pb::no_index || vi == pb::no_index) {
            return -1;
        }
        const pb::field_desc& kf = entry_m.fields[ki];
        const pb::field_desc& vf = entry_m.fields[vi];
        put('{');
        bool first = true;
        for (entry e : v.entries()) {
            item(first, depth + 1);
            first = false;
            if (!map_key(e.key, kf)) {
                return -1;
            }
            colon();
            if (single(e.val, vf, true, depth + 1) < 0) {
                return -1;
            }
        }
        close('}', false, depth);
        return 1;
    }

    // A map key as the protobuf encoder reads it and its decoder gives it back, as text.
    bool map_key(value k, const pb::field_desc& kf) {
        if (kf.type == field_type::string) {
            if (k.kind() != kind::string || !utf8_valid(k.get_string())) {
                return false;
            }
            json_write_string(out_, k.get_string());
            return true;
        }
        if (kf.type == field_type::bool_) {
            bool b = false;
            if (k.is_bool()) {
                b = k.get_bool();
            } else if (k.kind() == kind::string && (k.get_string() == "true" || k.get_string() == "false")) {
                b = k.get_string() == "true";
            } else {
                return false;
            }
            out_.append(b ? "\"true\"" : "\"false\"");
            return true;
        }
        std::int64_t iv = 0;
        std::uint64_t uv = 0;
        bool neg = false;
        if (k.kind() == kind::string) {
            if (!decimal_text(k.get_string(), neg, iv, uv)) {
                return false;
            }
        } else if (!integer_of(k, neg, iv, uv)) {
            return false;
        }
        if (!is_int_type(kf.type) || !in_range(kf.type, neg, iv, uv)) {
            return false;
        }
        quoted_integer(neg, iv, uv);
        return true;
    }

    // "-123" with its quotes, through one capacity check (64-bit fields, map keys).
    void quoted_integer(bool neg, std::int64_t iv, std::uint64_t uv) {
        char* d = out_.prepare(24);
        char* p = d;
        *p++ = '"';
        if (neg && iv < 0) {  // "-0" (a map key's text) is 0
            *p++ = '-';
            uv = 0 - static_cast<std::uint64_t>(iv);
        }
        p = write_uint_digits(p, uv);
        *p++ = '"';
        out_.commit(static_cast<std::size_t>(p - d));
    }

    // "-?[0-9]{1,20}" in the 64-bit range, as the protobuf encoder reads integer map keys.
    static bool decimal_text(std::string_view t, bool& neg, std::int64_t& iv, std::uint64_t& uv) {
        neg = !t.empty() && t[0] == '-';
        std::string_view digits = neg ? t.substr(1) : t;
        if (digits.empty() || digits.size() > 20) {
            return false;
        }
        uv = 0;
        for (char c : digits) {
            std::uint64_t nv = uv * 10 + static_cast<std::uint64_t>(c - '0');
            if (c < '0' || c > '9' || nv / 10 != uv) {
                return false;
            }
            uv = nv;
        }
        if (!neg) {
            iv = static_cast<std::int64_t>(uv);
            return true;
        }
        if (uv > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1) {
            return false;
        }
        iv = static_cast<std::int64_t>(0 - uv);
        return true;
    }

    static bool integer_of(value v, bool& neg, std::int64_t& iv, std::uint64_t& uv) {
        if (v.kind() == kind::int64) {
            iv = v.get_int();
            neg = iv < 0;
            uv = static_cast<std::uint64_t>(iv);
            return true;
        }
        if (v.kind() == kind::uint64) {
            uv = v.get_uint();
            iv = static_cast<std::int64_t>(uv);
            neg = false;
            return true;
        }
        return false;  // floats and text: the round trip
    }

    // The protobuf encoder's range checks of an integer field (int_payload).
    static bool in_range(field_type t, bool neg, std::int64_t iv, std::uint64_t uv) {
        const bool big = !neg && uv > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        switch (t) {
            case field_type::int32:
            case field_type::sfixed32:
            case field_type::sint32:
                return !big && iv >= std::numeric_limits<std::int32_t>::min() &&
                       iv <= std::numeric_limits<std::int32_t>::max();
            case field_type::uint32:
            case field_type::fixed32: return !neg && uv <= std::numeric_limits<std::uint32_t>::max();
            case field_type::int64:
            case field_type::sfixed64:
            case field_type::sint64: return !big;
            case field_type::uint64:
            case field_type::fixed64: return !neg;
            default: return false;
        }
    }

    // A double as the protobuf encoder reads it without loss: float64, an integer exact as a
    // double, or the ProtoJSON texts of the non-finite values.
    static bool to_double(value v, double& d) {
        switch (v.kind()) {
            case kind::float64: d = v.get_double(); return true;
            case kind::int64:
                d = static_cast<double>(v.get_int());
                return d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
                       static_cast<std::int64_t>(d) == v.get_int();
            case kind::uint64:
                d = static_cast<double>(v.get_uint());
                return d < 18446744073709551616.0 && static_cast<std::uint64_t>(d) == v.get_uint();
            case kind::string:
                return nonfinite_of(v.get_string(), d);
            default: return false;
        }
    }

    void number(double d, bool as_float) {
        if (std::isnan(d)) {
            out_.append("\"NaN\"");
        } else if (std::isinf(d)) {
            out_.append(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        } else {
            write_double(out_, as_float ? float_shown(d) : d);
        }
    }

    // One value of field f (a singular field, an element, a map value); `always`: written even
    // when it is the default (elements, map values, fields with presence).
    int single(value v, const pb::field_desc& f, bool always, int depth) {
        switch (f.type) {
            case field_type::double_:
            case field_type::float_: return floating(v, f.type == field_type::float_, always);
            case field_type::bool_:
                if (!v.is_bool()) {
                    return -1;
                }
                if (!always && !v.get_bool()) {
                    return 0;
                }
                out_.append(v.get_bool() ? "true" : "false");
                return 1;
            case field_type::string: {
                if (v.kind() != kind::string || !utf8_valid(v.get_string())) {
                    return -1;
                }
                if (!always && v.get_string().empty()) {
                    return 0;
                }
                json_write_string(out_, v.get_string());
                return 1;
            }
            case field_type::bytes: {
                if (v.kind() != kind::bytes) {
                    return -1;  // base64 text: the round trip
                }
                if (!always && v.get_string().empty()) {
                    return 0;
                }
                put('"');
                base64_encode(out_, v.get_string());
                put('"');
                return 1;
            }
            case field_type::enum_: return enumeration(v, f, always);
            case field_type::message:
            case field_type::group: return message(v, s_.messages[f.message], depth) ? 1 : -1;
            default: return integer(v, f, always);
        }
    }

    int floating(value v, bool as_float, bool always) {
        double d = 0;
        if (!to_double(v, d)) {
            return -1;
        }
        if (as_float) {
            auto x = static_cast<float>(d);
            if ((std::isfinite(d) && !std::isfinite(x)) || (!std::isnan(d) && static_cast<double>(x) != d)) {
                return -1;  // out of range, or not exact in 32 bits: an error or lossy=allow
            }
            if (!always && std::bit_cast<std::uint32_t>(x) == 0) {
                return 0;
            }
            d = static_cast<double>(x);
        } else if (!always && std::bit_cast<std::uint64_t>(d) == 0) {
            return 0;
        }
        number(d, as_float);
        return 1;
    }

    int integer(value v, const pb::field_desc& f, bool always) {
        std::int64_t iv = 0;
        std::uint64_t uv = 0;
        bool neg = false;
        if (!integer_of(v, neg, iv, uv) || !in_range(f.type, neg, iv, uv)) {
            return -1;
        }
        if (!always && uv == 0) {
            return 0;
        }
        if (is_64bit(f.type)) {
            quoted_integer(neg, iv, uv);
        } else {
            neg ? write_int(out_, iv) : write_uint(out_, uv);
        }
        return 1;
    }

    int enumeration(value v, const pb::field_desc& f, bool always) {
        const pb::enum_desc& e = s_.enums[f.enum_];
        std::int32_t n = 0;
        if (v.is_null() && e.null_value) {
            n = 0;
        } else if (v.kind() == kind::string) {
            std::string_view name = v.get_string();
            auto it = std::find_if(e.values.begin(), e.values.end(),
                                   [&](const pb::enum_value_desc& d) { return d.name == name; });
            if (it == e.values.end()) {
                return -1;
            }
            n = it->number;
        } else if (v.kind() == kind::int64 && v.get_int() >= std::numeric_limits<std::int32_t>::min() &&
                   v.get_int() <= std::numeric_limits<std::int32_t>::max()) {
            n = static_cast<std::int32_t>(v.get_int());
        } else {
            return -1;
        }
        if (!always && n == 0) {
            return 0;
        }
        if (e.null_value) {
            // NullValue: the decoder gives null for 0, the number for any other.
            n == 0 ? out_.append("null") : write_int(out_, n);
            return 1;
        }
        // The decoder names a number by its first value (an alias reads as the first name).
        auto it = std::find_if(e.values.begin(), e.values.end(),
                               [&](const pb::enum_value_desc& d) { return d.number == n; });
        if (it == e.values.end() || opt_.protojson.enums_as_ints) {
            write_int(out_, n);
        } else {
            json_write_string(out_, it->name);
        }
        return 1;
    }

    bool well_known(value v, const pb::message_desc& m, int depth) {
        switch (m.kind) {
            case wkt::timestamp: return timestamp(v);
            case wkt::duration: return duration(v);
            case wkt::wrapper: return single(v, m.fields[0], true, depth) > 0;
            case wkt::struct_: return v.kind() == kind::map && json_value(v, depth);
            case wkt::list_value: return v.kind() == kind::array && json_value(v, depth);
            case wkt::value: return json_value(v, depth);
            case wkt::field_mask: return field_mask(v);
            case wkt::empty:
                if (v.kind() != kind::map || v.size() != 0) {
                    return false;
                }
                out_.append("{}");
                return true;
            case wkt::any: return any(v, depth);
            default: return false;
        }
    }

    void type_url(value url) {
        out_.append("\"@type\"");
        colon();
        json_write_string(out_, url.get_string());
    }

    // {"@type": URL, fields...} or {"@type": URL, "value": ...} for a well-known type, {} for
    // an empty Any; a type the schema does not define (or a URL without '/', which the
    // printer refuses): the round trip.
    bool any(value v, int depth) {
        if (v.kind() != kind::map) {
            return false;
        }
        value url = v.find("@type");
        if (url.doc() == nullptr) {
            if (v.size() != 0) {
                return false;
            }
            out_.append("{}");
            return true;
        }
        if (url.kind() != kind::string || !utf8_valid(url.get_string())) {
            return false;
        }
        const std::int32_t im = message_of_url(s_, url.get_string());
        if (im == pb::no_index) {
            return false;
        }
        const pb::message_desc& inner = s_.messages[im];
        if (inner.kind == wkt::none || inner.kind == wkt::empty) {
            return fields(v, inner, depth, url);
        }
        value packed = v.find("value");
        if (packed.doc() == nullptr) {
            return false;
        }
        put('{');
        item(true, depth + 1);
        type_url(url);
        item(false, depth + 1);
        out_.append("\"value\"");
        colon();
        if (!message(packed, inner, depth + 1)) {
            return false;
        }
        close('}', false, depth);
        return true;
    }

    // The RFC 3339 texts the encoder reads, as the decoder gives them back (UTC, 0/3/6/9
    // fraction digits).
    bool timestamp(value v) {
        if (v.kind() != kind::timestamp && v.kind() != kind::string) {
            return false;
        }
        epoch_instant t;
        if (!parse_rfc3339(v.get_string(), t) || !t.exact || t.leap_second ||
            t.seconds < -62135596800 || t.seconds > 253402300799) {
            return false;
        }
        char buf[48];
        std::size_t n = pb::format_timestamp(t.seconds, static_cast<std::int32_t>(t.nanos), buf);
        if (n == 0) {
            return false;
        }
        append_wrapped(out_, '"', {buf, n}, '"');
        return true;
    }

    bool duration(value v) {
        std::int64_t seconds = 0;
        std::int32_t nanos = 0;
        if (v.kind() != kind::string || !pb::parse_duration(v.get_string(), seconds, nanos)) {
            return false;
        }
        char buf[48];
        append_wrapped(out_, '"', {buf, pb::format_duration(seconds, nanos, buf)}, '"');
        return true;
    }

    // Paths (text split at commas, or an array of them) as one lowerCamelCase text.
    bool field_mask(value v) {
        text_.clear();
        bool first = true;
        auto path = [&](std::string_view p) {
            if (!first) {
                text_ += ',';
            }
            first = false;
            return utf8_valid(p) && snake_to_camel(p, text_);
        };
        if (v.kind() == kind::string) {
            std::string_view t = v.get_string();
            while (!t.empty()) {
                auto comma = t.find(',');
                if (!path(t.substr(0, comma))) {
                    return false;
                }
                t = comma == std::string_view::npos ? std::string_view{} : t.substr(comma + 1);
            }
        } else if (v.kind() == kind::array) {
            for (value p : v.items()) {
                if (p.kind() != kind::string || !path(p.get_string())) {
                    return false;
                }
            }
        } else {
            return false;
        }
        json_write_string(out_, text_);
        return true;
    }

    // A Struct key: text, or an int64 as its decimal text (as the protobuf encoder keys it).
    bool struct_key(value k) {
        if (k.kind() == kind::int64) {
            put('"');
            write_int(out_, k.get_int());
            put('"');
            return true;
        }
        if (k.kind() != kind::string || !utf8_valid(k.get_string())) {
            return false;
        }
        json_write_string(out_, k.get_string());
        return true;
    }

    // google.protobuf.Value and what it holds: numbers as doubles, Struct keys as text.
    bool json_value(value v, int depth) {
        if (depth > max_depth) {
            return false;
        }
        switch (v.kind()) {
            case kind::null: out_.append("null"); return true;
            case kind::boolean_false:
            case kind::boolean_true: out_.append(v.get_bool() ? "true" : "false"); return true;
            case kind::int64:
            case kind::uint64:
            case kind::float64: {
                double d = 0;
                if (!to_double(v, d) || !std::isfinite(d)) {
                    return false;  // inexact, or NaN/Infinity (422 on the round trip)
                }
                write_double(out_, d);
                return true;
            }
            case kind::string:
            case kind::timestamp:
                if (!utf8_valid(v.get_string())) {
                    return false;
                }
                json_write_string(out_, v.get_string());
                return true;
            case kind::array: {
                put('[');
                bool first = true;
                for (value element : v.items()) {
                    item(first, depth + 1);
                    first = false;
                    if (!json_value(element, depth + 1)) {
                        return false;
                    }
                }
                close(']', first, depth);
                return true;
            }
            case kind::map: {
                put('{');
                bool first = true;
                for (entry e : v.entries()) {
                    item(first, depth + 1);
                    first = false;
                    if (!struct_key(e.key)) {
                        return false;
                    }
                    colon();
                    if (!json_value(e.val, depth + 1)) {
                        return false;
                    }
                }
                close('}', first, depth);
                return true;
            }
            default: return false;
        }
    }

    const pb::schema& s_;
    std::vector<std::uint8_t>& marks_;  ///< always_print_primitive_fields: fields written
    std::string& text_;                 ///< FieldMask paths
    std::string key_;                   ///< a key looked up in by_name
    bool proto_names_;
};

// Test hook: POLYCODEC_PROTOJSON_PATH=round_trip in the environment makes every encode take
// the round trip, =direct makes a document the direct writer does not take an error
// (tests/differential/test_protojson.py compares the two paths' output).
enum class print_path { both, round_trip, direct };

print_path forced_path() {
    static const print_path p = [] {
        const char* e = std::getenv("POLYCODEC_PROTOJSON_PATH");
        std::string_view t = e == nullptr ? "" : e;
        return t == "round_trip" ? print_path::round_trip
               : t == "direct"   ? print_path::direct
                                 : print_path::both;
    }();
    return p;
}

struct print_scratch {
    std::vector<std::uint8_t> marks;
    std::string mask;
    document canon;
    document json;
    output_buffer wire;
    output_buffer text;
};

print_scratch& thread_print_scratch() {
    thread_local print_scratch s;
    return s;
}

result<void> encode_protojson(const document& doc, output_buffer& out, const encode_options& opt) {
    if (!opt.protobuf_schema) {
        return fail(make_error(errc::schema_required,
                               "protojson needs a protobuf schema (schema=NAME, CLI --schema)"));
    }
    const pb::schema& s = *opt.protobuf_schema;
    POLYCODEC_TRY_ASSIGN(m, pick_message(s, opt.type_name));
    print_scratch& sc = thread_print_scratch();
    const std::size_t start = out.size();
    sc.marks.clear();
    const print_path path = forced_path();
    if (path != print_path::round_trip &&
        direct_printer(s, out, opt, sc.marks, sc.mask).message(doc.root(), s.messages[m], 0)) {
        return {};
    }
    out.truncate(start);
    if (path == print_path::direct) {
        return fail(make_error(errc::not_implemented, "POLYCODEC_PROTOJSON_PATH=direct: the direct "
                                               "writer does not take this document"));
    }
    sc.wire.clear();
    POLYCODEC_TRY(encode(format_id::protobuf, doc, sc.wire, opt));
    decode_options dopt;
    dopt.protobuf_schema = opt.protobuf_schema;
    dopt.type_name = opt.type_name;
    POLYCODEC_TRY(decode(format_id::protobuf, sc.wire.view(), sc.canon, dopt));
    {
        builder jb(sc.json);
        jb.reset();
        printer p(s, jb, opt, sc.text);
        POLYCODEC_TRY(p.message(sc.canon.root(), s.messages[m]));
    }
    encode_options jo;
    jo.pretty = opt.pretty;
    return json_write_value(sc.json.root(), out, jo);
}

}  // namespace

const codec_functions protojson_codec{decode_protojson, encode_protojson};

}  // namespace polycodec::detail
