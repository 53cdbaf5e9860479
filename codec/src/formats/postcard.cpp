// postcard 1.x (DESIGN section 1; wire format: postcard's spec "The Postcard Wire Format").
// Not self-describing: decoding walks a schema (the JSON form of postcard-schema's
// OwnedNamedType, parsed here by parse_schema); encoding follows the schema when there is one
// and otherwise writes what postcard::to_vec(&serde_json::Value) writes.
#include "polycodec/formats/postcard.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "detail/base64.hpp"
#include "detail/big_integer.hpp"
#include "detail/binary.hpp"
#include "detail/describe.hpp"
#include "detail/dropped_tag.hpp"
#include "detail/fast_decode.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/schema_json.hpp"
#include "detail/tape_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"
#include "polycodec/codec.hpp"
#include "postcard/schema.hpp"

// ---- schema parsing ----

namespace polycodec::postcard {
namespace {

constexpr std::uint32_t max_schema_depth = 128;
constexpr std::size_t max_schema_nodes = 1 << 16;

struct primitive {
    std::string_view name;
    type_kind kind;
    std::uint64_t min_size;
};

// The one-member objects of the data model's compound types: {"Seq": NamedType}, ...
struct compound {
    std::string_view name;
    type_kind kind;
};

constexpr compound compounds[] = {
    {"Option", type_kind::option},
    {"NewtypeStruct", type_kind::newtype_struct},
    {"Seq", type_kind::seq},
    {"Tuple", type_kind::tuple},
    {"TupleStruct", type_kind::tuple_struct},
    {"Map", type_kind::map},
    {"Struct", type_kind::struct_},
    {"Enum", type_kind::enum_},
};

constexpr primitive primitives[] = {
    {"Bool", type_kind::bool_, 1},    {"I8", type_kind::i8, 1},
    {"U8", type_kind::u8, 1},         {"I16", type_kind::i16, 1},
    {"I32", type_kind::i32, 1},       {"I64", type_kind::i64, 1},
    {"I128", type_kind::i128, 1},     {"U16", type_kind::u16, 1},
    {"U32", type_kind::u32, 1},       {"U64", type_kind::u64, 1},
    {"U128", type_kind::u128, 1},     {"Usize", type_kind::usize, 1},
    {"Isize", type_kind::isize, 1},   {"F32", type_kind::f32, 4},
    {"F64", type_kind::f64, 8},       {"Char", type_kind::char_, 2},
    {"String", type_kind::string, 1}, {"ByteArray", type_kind::byte_array, 1},
    {"Unit", type_kind::unit, 0},     {"UnitStruct", type_kind::unit_struct, 0},
};

class schema_parser {
public:
    explicit schema_parser(schema& s) : s_(s) {}

    result<std::uint32_t> named_type(value v, const std::string& path, std::uint32_t depth) {
        if (depth > max_schema_depth) {
            return fail_bad(path, "schema nested deeper than " + std::to_string(max_schema_depth));
        }
        if (v.kind() != kind::map) {
            return fail_bad(path, "expected a NamedType object {\"name\": ..., \"ty\": ...}");
        }
        value name = v.find("name");
        value ty = v.find("ty");
        if (name.doc() == nullptr || name.kind() != kind::string) {
            return fail_bad(path + "/name", "expected the type's name as a string");
        }
        if (ty.doc() == nullptr) {
            return fail_bad(path + "/ty", "expected a \"ty\" member");
        }
        return data_model_type(ty, std::string(name.get_string()), path + "/ty", depth);
    }

private:
    error bad(const std::string& path, std::string what) const {
        return make_error(
            errc::invalid_option,
            "postcard schema at " + (path.empty() ? std::string("/") : path) + ": " + what);
    }
    tl::unexpected<error> fail_bad(const std::string& path, std::string what) const {
        return fail(bad(path, std::move(what)));
    }
    result<std::uint32_t> new_node(type_kind k, std::string name) {
        if (s_.nodes.size() >= max_schema_nodes) {
            return fail(make_error(errc::invalid_option, "postcard schema has too many types"));
        }
        s_.nodes.emplace_back();
        s_.nodes.back().kind = k;
        s_.nodes.back().name = std::move(name);
        return static_cast<std::uint32_t>(s_.nodes.size() - 1);
    }

    // The items of a JSON array of NamedType or NamedValue as the children of node `into`,
    // whose min_size is the sum of theirs: item(value, path) reads one and returns its type.
    template <class Item>
    result<void> list_into(value v, const std::string& path, const char* expected,
                           std::uint32_t into, Item&& item) {
        if (v.kind() != kind::array) {
            return fail_bad(path, expected);
        }
        std::size_t i = 0;
        std::uint64_t size = 0;
        for (value it : v.items()) {
            POLYCODEC_TRY_ASSIGN(t, item(it, path + "/" + std::to_string(i++)));
            s_.nodes[into].children.push_back(t);
            size += s_.nodes[t].min_size;
        }
        s_.nodes[into].min_size = size;
        return {};
    }
    // A list of NamedType: tuple items or a variant's tuple.
    result<void> type_list(value v, const std::string& path, std::uint32_t depth,
                           std::uint32_t into) {
        return list_into(
            v, path, "expected an array of NamedType", into,
            [&](value item, const std::string& p) { return named_type(item, p, depth + 1); });
    }
    // A list of NamedValue: struct fields.
    result<void> value_list(value v, const std::string& path, std::uint32_t depth,
                            std::uint32_t into) {
        return list_into(
            v, path, "expected an array of {\"name\": ..., \"ty\": NamedType}", into,
            [&](value item, const std::string& p) -> result<std::uint32_t> {
                value name = item.kind() == kind::map ? item.find("name") : value();
                value ty = item.kind() == kind::map ? item.find("ty") : value();
                if (name.doc() == nullptr || name.kind() != kind::string || ty.doc() == nullptr) {
                    return fail_bad(p, "expected a NamedValue {\"name\": ..., \"ty\": NamedType}");
                }
                auto t = named_type(ty, p + "/ty", depth + 1);
                if (t) {
                    s_.nodes[into].names.emplace_back(name.get_string());
                }
                return t;
            });
    }

    result<std::uint32_t> data_model_type(value ty, std::string name, const std::string& path,
                                          std::uint32_t depth) {
        if (ty.kind() == kind::string) {
            std::string_view tag = ty.get_string();
            for (const primitive& p : primitives) {
                if (p.name == tag) {
                    auto n = new_node(p.kind, std::move(name));
                    if (n) {
                        s_.nodes[*n].min_size = p.min_size;
                    }
                    return n;
                }
            }
            if (tag == "Schema") {
                return fail_bad(path, "the Schema type (a schema inside data) is not supported");
            }
            return fail_bad(path, "unknown type \"" + std::string(tag) + "\"");
        }
        if (ty.kind() != kind::map || ty.size() != 1) {
            return fail_bad(path,
                            "expected a type name or a one-member object such as "
                            "{\"Seq\": NamedType}");
        }
        entry e = *ty.entries().begin();
        if (e.key.kind() != kind::string) {
            return fail_bad(path, "expected a string key");
        }
        std::string_view tag = e.key.get_string();
        std::string p = path + "/" + std::string(tag);
        const auto* c = std::find_if(std::begin(compounds), std::end(compounds),
                                     [&](const compound& x) { return x.name == tag; });
        if (c == std::end(compounds)) {
            return fail_bad(path, "unknown type \"" + std::string(tag) + "\"");
        }
        const type_kind k = c->kind;
        auto n = new_node(k, std::move(name));
        if (!n) {
            return n;
        }
        switch (k) {
            case type_kind::option:
            case type_kind::newtype_struct:
            case type_kind::seq: {
                auto inner = named_type(e.val, p, depth + 1);
                if (!inner) {
                    return inner;
                }
                s_.nodes[*n].children.push_back(*inner);
                s_.nodes[*n].min_size =
                    k == type_kind::newtype_struct ? s_.nodes[*inner].min_size : 1;
                return n;
            }
            case type_kind::tuple:
            case type_kind::tuple_struct: {
                auto r = type_list(e.val, p, depth, *n);
                return r ? n : fail(r.error());
            }
            case type_kind::struct_: {
                auto r = value_list(e.val, p, depth, *n);
                return r ? n : fail(r.error());
            }
            case type_kind::map: {
                value key = e.val.kind() == kind::map ? e.val.find("key") : value();
                value val = e.val.kind() == kind::map ? e.val.find("val") : value();
                if (key.doc() == nullptr || val.doc() == nullptr) {
                    return fail_bad(p, "expected {\"key\": NamedType, \"val\": NamedType}");
                }
                auto kt = named_type(key, p + "/key", depth + 1);
                if (!kt) {
                    return kt;
                }
                auto vt = named_type(val, p + "/val", depth + 1);
                if (!vt) {
                    return vt;
                }
                s_.nodes[*n].children = {*kt, *vt};
                s_.nodes[*n].min_size = 1;
                return n;
            }
            default:
                break;
        }
        // Enum: [{"name": ..., "ty": "UnitVariant" | {"NewtypeVariant": NT} |
        //         {"TupleVariant": [NT]} | {"StructVariant": [NV]}}]
        if (e.val.kind() != kind::array) {
            return fail_bad(p, "expected an array of variants");
        }
        std::size_t i = 0;
        for (value var : e.val.items()) {
            std::string vp = p + "/" + std::to_string(i++);
            value vname = var.kind() == kind::map ? var.find("name") : value();
            value vty = var.kind() == kind::map ? var.find("ty") : value();
            if (vname.doc() == nullptr || vname.kind() != kind::string || vty.doc() == nullptr) {
                return fail_bad(vp, "expected a NamedVariant {\"name\": ..., \"ty\": ...}");
            }
            std::uint32_t child = no_type;
            variant_kind vk;
            if (vty.kind() == kind::string && vty.get_string() == "UnitVariant") {
                vk = variant_kind::unit;
            } else if (vty.kind() == kind::map && vty.size() == 1) {
                entry ve = *vty.entries().begin();
                std::string_view vtag =
                    ve.key.kind() == kind::string ? ve.key.get_string() : std::string_view();
                std::string vtp = vp + "/ty/" + std::string(vtag);
                if (vtag == "NewtypeVariant") {
                    vk = variant_kind::newtype;
                    auto t = named_type(ve.val, vtp, depth + 1);
                    if (!t) {
                        return t;
                    }
                    child = *t;
                } else if (vtag == "TupleVariant" || vtag == "StructVariant") {
                    vk = vtag == "TupleVariant" ? variant_kind::tuple : variant_kind::struct_;
                    auto t =
                        new_node(vk == variant_kind::tuple ? type_kind::tuple : type_kind::struct_,
                                 std::string(vname.get_string()));
                    if (!t) {
                        return t;
                    }
                    auto r = vk == variant_kind::tuple ? type_list(ve.val, vtp, depth + 1, *t)
                                                       : value_list(ve.val, vtp, depth + 1, *t);
                    if (!r) {
                        return fail(r.error());
                    }
                    child = *t;
                } else {
                    return fail_bad(vp + "/ty",
                                    "expected \"UnitVariant\", NewtypeVariant, "
                                    "TupleVariant or StructVariant");
                }
            } else {
                return fail_bad(vp + "/ty",
                                "expected \"UnitVariant\", NewtypeVariant, "
                                "TupleVariant or StructVariant");
            }
            s_.nodes[*n].children.push_back(child);
            s_.nodes[*n].names.emplace_back(vname.get_string());
            s_.nodes[*n].variants.push_back(vk);
        }
        s_.nodes[*n].min_size = 1;
        return n;
    }

    schema& s_;
};

}  // namespace

result<std::shared_ptr<const schema>> parse_schema(std::string_view json_text) {
    document doc;
    POLYCODEC_TRY(detail::decode_schema_json(json_text, doc, "postcard"));
    auto s = std::make_shared<schema>();
    schema_parser p(*s);
    auto root = p.named_type(doc.root(), "", 0);
    if (!root) {
        return fail(root.error());
    }
    s->root = *root;
    for (type_node& n : s->nodes) {
        for (std::size_t i = 0; i < n.names.size() && n.unique_names; ++i) {
            for (std::size_t j = 0; j < i; ++j) {
                n.unique_names = n.unique_names && n.names[i] != n.names[j];
            }
        }
    }
    return std::shared_ptr<const schema>(std::move(s));
}

}  // namespace polycodec::postcard

namespace polycodec::detail {
namespace {

using postcard::type_kind;
using postcard::type_node;
using postcard::variant_kind;

// The bits of a varint integer type (u16..usize, i16..isize), and whether it is zigzag coded.
constexpr unsigned varint_bits(type_kind k) noexcept {
    return k == type_kind::i16 || k == type_kind::u16   ? 16
           : k == type_kind::i32 || k == type_kind::u32 ? 32
                                                        : 64;
}
constexpr bool is_zigzag(type_kind k) noexcept {
    return k == type_kind::i16 || k == type_kind::i32 || k == type_kind::i64 ||
           k == type_kind::isize;
}

// The range of a fixed-width integer type: u8..usize up to uint_max, i8..isize from int_min
// to int_max.
constexpr std::uint64_t uint_max(type_kind k) noexcept {
    return k == type_kind::u8    ? 0xff
           : k == type_kind::u16 ? 0xffff
           : k == type_kind::u32 ? 0xffffffffu
                                 : UINT64_MAX;
}
constexpr std::int64_t int_min(type_kind k) noexcept {
    return k == type_kind::i8    ? INT8_MIN
           : k == type_kind::i16 ? INT16_MIN
           : k == type_kind::i32 ? INT32_MIN
                                 : INT64_MIN;
}
constexpr std::int64_t int_max(type_kind k) noexcept {
    return k == type_kind::i8    ? INT8_MAX
           : k == type_kind::i16 ? INT16_MAX
           : k == type_kind::i32 ? INT32_MAX
                                 : INT64_MAX;
}

constexpr std::uint64_t max_zero_size_items = 1 << 20;

const char* kind_name(kind k) { return detail::kind_phrase(k); }

// ---- reader ----

class postcard_reader {
public:
    postcard_reader(std::string_view in, builder& b, const postcard::schema& s)
        : in_(in), b_(b), s_(s) {}

    result<void> run() {
        POLYCODEC_TRY(read(s_.root));
        if (pos_ != in_.size()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input after the " + s_.nodes[s_.root].name +
                                       ", saw " + std::to_string(in_.size() - pos_) +
                                       " more bytes"));
        }
        return {};
    }

private:
    error eof(const char* what) const {
        return make_error(errc::unexpected_eof, pos_,
                          std::string("expected ") + what + ", saw end of input");
    }

    // An f32 or f64: sizeof(Bits) bytes, little-endian, as a double.
    template <class Float, class Bits>
    result<double> float_le(const char* what) {
        if (in_.size() - pos_ < sizeof(Bits)) {
            return fail(eof(what));
        }
        Bits bits = 0;
        for (std::size_t i = 0; i < sizeof(Bits); ++i) {
            bits |= Bits{static_cast<unsigned char>(in_[pos_ + i])} << (8 * i);
        }
        pos_ += sizeof(Bits);
        Float f;
        std::memcpy(&f, &bits, sizeof(Bits));
        return static_cast<double>(f);
    }

    // LEB128 of at most `max_bytes` bytes whose value fits `bits` bits (spec: "Maximum
    // Encoded Length"; overlong forms within that length are accepted, as postcard does).
    result<std::uint64_t> varint(unsigned bits, const char* what) {
        unsigned max_bytes = (bits + 6) / 7;
        std::size_t start = pos_;
        std::uint64_t v = 0;
        for (unsigned i = 0;; ++i) {
            if (i == max_bytes) {
                return fail(make_error(errc::invalid_number, start,
                                       std::string("varint longer than ") +
                                           std::to_string(max_bytes) + " bytes for " + what));
            }
            if (pos_ >= in_.size()) {
                return fail(eof(what));
            }
            auto byte = static_cast<unsigned char>(in_[pos_++]);
            unsigned shift = 7 * i;
            std::uint64_t part = byte & 0x7fu;
            if (shift + 7 > bits && (part >> (bits - shift)) != 0) {
                return fail(make_error(errc::invalid_number, start,
                                       std::string("varint exceeds the range of ") + what));
            }
            v |= part << shift;
            if ((byte & 0x80u) == 0) {
                return v;
            }
        }
    }
    // varint(u128): up to 19 bytes.
    result<big_integer> varint128(const char* what) {
        std::size_t start = pos_;
        std::uint64_t lo = 0;
        std::uint64_t hi = 0;
        for (unsigned i = 0;; ++i) {
            if (i == 19) {
                return fail(make_error(errc::invalid_number, start,
                                       std::string("varint longer than 19 bytes for ") + what));
            }
            if (pos_ >= in_.size()) {
                return fail(eof(what));
            }
            auto byte = static_cast<unsigned char>(in_[pos_++]);
            std::uint64_t part = byte & 0x7fu;
            unsigned shift = 7 * i;
            if (shift + 7 > 128 && (part >> (128 - shift)) != 0) {
                return fail(make_error(errc::invalid_number, start,
                                       std::string("varint exceeds the range of ") + what));
            }
            if (shift < 64) {
                lo |= part << shift;
                if (shift + 7 > 64) {
                    hi |= part >> (64 - shift);
                }
            } else {
                hi |= part << (shift - 64);
            }
            if ((byte & 0x80u) == 0) {
                break;
            }
        }
        big_integer v;
        v.mag = {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32),
                 static_cast<std::uint32_t>(hi), static_cast<std::uint32_t>(hi >> 32)};
        v.trim();
        return v;
    }

    result<std::string_view> bytes_of(const char* what) {
        std::size_t at = pos_;
        auto len = varint(64, what);
        if (!len) {
            return fail(len.error());
        }
        if (*len > in_.size() - pos_) {
            return fail(
                make_error(errc::size_exceeded, at,
                           "length " + std::to_string(*len) + " of " + what + " beyond the input"));
        }
        std::string_view s = in_.substr(pos_, *len);
        pos_ += *len;
        return s;
    }
    result<std::string_view> text_of(const char* what) {
        auto s = bytes_of(what);
        if (!s) {
            return s;
        }
        std::size_t valid = utf8_valid_prefix(*s);
        if (valid != s->size()) {
            return fail(make_error(errc::invalid_utf8, pos_ - s->size() + valid,
                                   "invalid UTF-8 in string"));
        }
        return s;
    }

    result<void> container_limit() {
        return fail(limit_error(b_, pos_));
    }

    // A count of items of type `item`, checked against what is left of the input.
    result<std::uint64_t> count_of(std::uint64_t min_item_size, const char* what) {
        std::size_t at = pos_;
        auto n = varint(64, what);
        if (!n) {
            return n;
        }
        bool too_many = min_item_size == 0 ? *n > max_zero_size_items
                                           : *n > (in_.size() - pos_) / min_item_size;
        if (too_many) {
            return fail(
                make_error(errc::size_exceeded, at,
                           "length " + std::to_string(*n) + " of " + what + " beyond the input"));
        }
        return n;
    }

    static std::int64_t unzigzag(std::uint64_t n) {
        return static_cast<std::int64_t>(n >> 1) ^ -static_cast<std::int64_t>(n & 1);
    }

    result<void> read_items(const type_node& t) {
        for (std::uint32_t c : t.children) {
            POLYCODEC_TRY(read(c));
        }
        return {};
    }
    result<void> read_fields(const type_node& t) {
        if (!b_.begin_map()) {
            return container_limit();
        }
        for (std::size_t i = 0; i < t.children.size(); ++i) {
            b_.add_string(t.names[i]);
            POLYCODEC_TRY(read(t.children[i]));
        }
        b_.end_map();
        return {};
    }

    // A byte that must be 0x00 or 0x01 (a bool, an option tag): true for 0x01.
    result<bool> zero_or_one(const char* what) {
        if (pos_ >= in_.size()) {
            return fail(eof(what));
        }
        auto c = static_cast<unsigned char>(in_[pos_]);
        if (c > 1) {
            return fail(make_error(errc::malformed, pos_,
                                   std::string("expected ") + what + " (0x00 or 0x01), saw byte " +
                                       std::to_string(c)));
        }
        ++pos_;
        return c == 1;
    }

    result<void> read(std::uint32_t ti) {
        const type_node& t = s_.nodes[ti];
        switch (t.kind) {
            case type_kind::bool_: {
                POLYCODEC_TRY_ASSIGN(c, zero_or_one("a bool"));
                b_.add_bool(c);
                return {};
            }
            case type_kind::u8:
            case type_kind::i8: {
                if (pos_ >= in_.size()) {
                    return fail(eof(t.kind == type_kind::u8 ? "a u8" : "an i8"));
                }
                auto c = static_cast<unsigned char>(in_[pos_++]);
                b_.add_int(t.kind == type_kind::u8 ? c : static_cast<std::int8_t>(c));
                return {};
            }
            case type_kind::u16:
            case type_kind::u32:
            case type_kind::u64:
            case type_kind::usize:
            case type_kind::i16:
            case type_kind::i32:
            case type_kind::i64:
            case type_kind::isize: {
                POLYCODEC_TRY_ASSIGN(v, varint(varint_bits(t.kind), t.name.c_str()));
                if (is_zigzag(t.kind)) {
                    b_.add_int(unzigzag(v));
                } else {
                    b_.add_uint(v);
                }
                return {};
            }
            case type_kind::u128:
            case type_kind::i128: {
                POLYCODEC_TRY_ASSIGN(v, varint128(t.name.c_str()));
                if (t.kind == type_kind::i128 && !v.is_zero()) {
                    // Zigzag: odd -> -(n+1)/2, even -> n/2.
                    bool neg = (v.mag[0] & 1) != 0;
                    if (neg) {
                        v.mul_add(1, 1);  // n + 1
                    }
                    v.div_small(2);
                    v.neg = neg;
                    v.trim();
                }
                add_big_integer(b_, v);
                return {};
            }
            case type_kind::f32: {
                POLYCODEC_TRY_ASSIGN(d, float_le<float, std::uint32_t>("an f32"));
                b_.add_double(d);
                return {};
            }
            case type_kind::f64: {
                POLYCODEC_TRY_ASSIGN(d, float_le<double, std::uint64_t>("an f64"));
                b_.add_double(d);
                return {};
            }
            case type_kind::char_: {
                std::size_t at = pos_;
                POLYCODEC_TRY_ASSIGN(s, text_of("a char"));
                // Exactly one scalar value: the first sequence's length equals the size.
                auto lead = s.empty() ? 0u : static_cast<unsigned char>(s[0]);
                std::size_t want = s.empty()     ? 0
                                   : lead < 0x80 ? 1
                                   : lead < 0xE0 ? 2
                                   : lead < 0xF0 ? 3
                                                 : 4;
                if (s.empty() || want != s.size()) {
                    return fail(make_error(errc::malformed, at,
                                           "expected exactly one character for a char"));
                }
                b_.add_string(s);
                return {};
            }
            case type_kind::string: {
                POLYCODEC_TRY_ASSIGN(s, text_of("a string"));
                b_.add_string(s);
                return {};
            }
            case type_kind::byte_array: {
                POLYCODEC_TRY_ASSIGN(s, bytes_of("a byte array"));
                b_.add_bytes(s);
                return {};
            }
            case type_kind::option: {
                POLYCODEC_TRY_ASSIGN(c, zero_or_one("an option tag"));
                if (!c) {
                    b_.add_null();
                    return {};
                }
                return read(t.children[0]);
            }
            case type_kind::unit:
            case type_kind::unit_struct:
                b_.add_null();
                return {};
            case type_kind::newtype_struct:
                return read(t.children[0]);
            case type_kind::seq: {
                POLYCODEC_TRY_ASSIGN(n, count_of(s_.nodes[t.children[0]].min_size, "a seq"));
                if (!b_.begin_array()) {
                    return container_limit();
                }
                for (std::uint64_t i = 0; i < n; ++i) {
                    POLYCODEC_TRY(read(t.children[0]));
                }
                b_.end_array();
                return {};
            }
            case type_kind::tuple:
            case type_kind::tuple_struct: {
                if (!b_.begin_array()) {
                    return container_limit();
                }
                POLYCODEC_TRY(read_items(t));
                b_.end_array();
                return {};
            }
            case type_kind::map: {
                auto n = count_of(
                    s_.nodes[t.children[0]].min_size + s_.nodes[t.children[1]].min_size, "a map");
                if (!n) {
                    return fail(n.error());
                }
                if (!b_.begin_map()) {
                    return container_limit();
                }
                for (std::uint64_t i = 0; i < *n; ++i) {
                    POLYCODEC_TRY(read(t.children[0]));
                    POLYCODEC_TRY(read(t.children[1]));
                }
                b_.end_map();
                return {};
            }
            case type_kind::struct_:
                return read_fields(t);
            case type_kind::enum_: {
                std::size_t at = pos_;
                POLYCODEC_TRY_ASSIGN(d, varint(32, "an enum discriminant"));
                if (d >= t.variants.size()) {
                    return fail(
                        make_error(errc::malformed, at,
                                   "enum " + t.name + " has no variant " + std::to_string(d)));
                }
                const std::string& name = t.names[d];
                if (t.variants[d] == variant_kind::unit) {
                    b_.add_string(name);
                    return {};
                }
                if (!b_.begin_map()) {
                    return container_limit();
                }
                b_.add_string(name);
                std::uint32_t c = t.children[d];
                if (t.variants[d] == variant_kind::struct_) {
                    POLYCODEC_TRY(read_fields(s_.nodes[c]));
                } else if (auto r = read(c); !r) {
                    return r;
                }
                b_.end_map();
                return {};
            }
        }
        return {};
    }

    std::string_view in_;
    builder& b_;
    const postcard::schema& s_;
    std::size_t pos_ = 0;
};

// ---- fast path ----
//
// One pass over the input that walks the schema and writes the tape and the payload bytes
// directly (detail::tape_writer) instead of going through the builder per element, with bool
// returns instead of result<>. It takes valid input within the limits of every type but u128,
// i128 and char (rare: the reader takes them): on any error, limit or doubt it returns false,
// and decode_postcard resets the builder and runs postcard_reader above, which decides (and
// words) every error exactly as before. On success the tape is the one postcard_reader would
// have built.

constexpr std::size_t fast_max_depth = 64;  // deeper input takes postcard_reader

class postcard_fast_reader {
public:
    postcard_fast_reader(std::string_view in, builder& b, const postcard::schema& s)
        : p_(reinterpret_cast<const unsigned char*>(in.data())),
          size_(in.size()),
          max_depth_(std::min<std::size_t>(b.limits().max_depth, fast_max_depth)),
          max_bytes_(b.limits().max_bytes),
          nodes_(s.nodes.data()),
          root_(s.root),
          tw_(b) {}

    bool run() {
        return read(root_) && fast_finish(tw_, pos_, size_, max_bytes_);
    }

private:
    using writer = tape_writer<256, 2048, false>;

    // LEB128 of at most (bits + 6) / 7 bytes whose value fits `bits` bits, as varint().
    [[gnu::always_inline]] bool varint(unsigned bits, std::uint64_t& v) {
        if (pos_ < size_ && p_[pos_] < 0x80) [[likely]] {
            v = p_[pos_++];
            return true;
        }
        const unsigned max_bytes = (bits + 6) / 7;
        v = 0;
        for (unsigned i = 0;; ++i) {
            if (i == max_bytes || pos_ >= size_) {
                return false;
            }
            const unsigned byte = p_[pos_++];
            const unsigned shift = 7 * i;
            const std::uint64_t part = byte & 0x7fu;
            if (shift + 7 > bits && (part >> (bits - shift)) != 0) {
                return false;
            }
            v |= part << shift;
            if ((byte & 0x80u) == 0) {
                return true;
            }
        }
    }

    [[gnu::always_inline]] void scalar(kind k, std::uint64_t v) {
        std::uint64_t* w = tw_.words(2);
        w[0] = tape_word(k, 0, 0);
        w[1] = v;
        tw_.advance(2);
    }
    [[gnu::always_inline]] void word(kind k) {
        *tw_.words(1) = tape_word(k, 0, 0);
        tw_.advance(1);
    }
    void name(const std::string& s) {
        std::uint64_t* w = tw_.words(2);
        std::memcpy(tw_.bytes(s.size()), s.data(), s.size());
        tw_.payload(w, kind::string, 0, s.size());
    }
    // A container's header (its count and end index filled by close()); false past the limits.
    bool open(kind k, std::uint64_t count, std::size_t& start) {
        if (depth_ >= max_depth_ || tw_.over_budget(max_bytes_)) {
            return false;
        }
        ++depth_;
        start = tw_.size();
        tw_.open(tw_.words(2), k, count);
        return true;
    }
    void close(std::size_t start) {
        --depth_;
        tw_.close(start);
    }

    // The varint integer types: their width in bits, and whether they are zigzag (signed).
    // A varint integer's two words at w: zigzag decoded, or unsigned (uint64 above INT64_MAX).
    [[gnu::always_inline]] static void int_word(std::uint64_t* w, bool zigzag,
                                                std::uint64_t u) noexcept {
        if (zigzag) {
            w[0] = tape_word(kind::int64, 0, 0);
            w[1] = (u >> 1) ^ (0 - (u & 1));
        } else {
            w[0] = u <= static_cast<std::uint64_t>(INT64_MAX) ? tape_word(kind::int64, 0, 0)
                                                             : tape_word(kind::uint64, 0, 0);
            w[1] = u;
        }
    }

    // The n items of a seq of varint integers (i16..isize, u16..usize) in one loop that keeps
    // the tape pointer local (n <= what is left of the input: the caller checked).
    // no_int_seq for other item types; on any error 0 (false, as read()).
    static constexpr int no_int_seq = 2;
    int int_seq(type_kind k, std::uint64_t n) {
        const bool zigzag = is_zigzag(k);
        if (!zigzag && k != type_kind::u16 && k != type_kind::u32 && k != type_kind::u64 &&
            k != type_kind::usize) {
            return no_int_seq;
        }
        const unsigned bits = varint_bits(k);
        std::uint64_t* w = tw_.words(2 * n);
        for (std::uint64_t i = 0; i < n; ++i, w += 2) {
            std::uint64_t u;
            if (!varint(bits, u)) {
                return 0;
            }
            int_word(w, zigzag, u);
        }
        tw_.advance(2 * n);
        return 1;
    }

    bool fields(const type_node& t) {
        std::size_t start;
        if (!open(kind::map, t.children.size(), start)) {
            return false;
        }
        for (std::size_t i = 0; i < t.children.size(); ++i) {
            name(t.names[i]);
            if (!read(t.children[i])) {
                return false;
            }
        }
        close(start);
        return true;
    }

    bool read(std::uint32_t ti) {
        const type_node& t = nodes_[ti];
        std::uint64_t v;
        switch (t.kind) {
            case type_kind::bool_:
                if (pos_ >= size_ || p_[pos_] > 1) {
                    return false;
                }
                word(p_[pos_++] != 0 ? kind::boolean_true : kind::boolean_false);
                return true;
            case type_kind::u8:
            case type_kind::i8:
                if (pos_ >= size_) {
                    return false;
                }
                v = p_[pos_++];
                scalar(kind::int64, t.kind == type_kind::u8
                                        ? v
                                        : static_cast<std::uint64_t>(static_cast<std::int64_t>(
                                              static_cast<std::int8_t>(v))));
                return true;
            case type_kind::u16:
            case type_kind::u32:
            case type_kind::u64:
            case type_kind::usize:
            case type_kind::i16:
            case type_kind::i32:
            case type_kind::i64:
            case type_kind::isize:
                if (!varint(varint_bits(t.kind), v)) {
                    return false;
                }
                int_word(tw_.words(2), is_zigzag(t.kind), v);
                tw_.advance(2);
                return true;
            case type_kind::f32:  // little-endian on the wire
                if (size_ - pos_ < 4 || std::endian::native != std::endian::little) {
                    return false;
                }
                scalar(kind::float64, load_f32_widened(p_ + pos_));
                pos_ += 4;
                return true;
            case type_kind::f64:
                if (size_ - pos_ < 8 || std::endian::native != std::endian::little) {
                    return false;
                }
                std::memcpy(&v, p_ + pos_, 8);
                pos_ += 8;
                scalar(kind::float64, v);
                return true;
            case type_kind::string:
            case type_kind::byte_array: {
                if (!varint(64, v) || v > size_ - pos_) {
                    return false;
                }
                std::uint64_t* w = tw_.words(2);
                if (t.kind == type_kind::string) {
                    if (!fast_text(tw_, w, p_ + pos_, size_ - pos_, v)) {
                        return false;
                    }
                } else {
                    std::memcpy(tw_.bytes(v), p_ + pos_, v);
                    tw_.payload(w, kind::bytes, 0, v);
                }
                pos_ += v;
                return true;
            }
            case type_kind::option:
                if (pos_ >= size_ || p_[pos_] > 1) {
                    return false;
                }
                if (p_[pos_++] == 0) {
                    word(kind::null);
                    return true;
                }
                return read(t.children[0]);
            case type_kind::unit:
            case type_kind::unit_struct:
                word(kind::null);
                return true;
            case type_kind::newtype_struct:
                return read(t.children[0]);
            case type_kind::seq:
            case type_kind::map: {
                const bool map = t.kind == type_kind::map;
                const std::uint64_t min =
                    map ? nodes_[t.children[0]].min_size + nodes_[t.children[1]].min_size
                        : nodes_[t.children[0]].min_size;
                std::size_t start;
                if (!varint(64, v) ||
                    (min == 0 ? v > max_zero_size_items : v > (size_ - pos_) / min) ||
                    !open(map ? kind::map : kind::array, v, start)) {
                    return false;
                }
                if (!map) {
                    const int r = int_seq(nodes_[t.children[0]].kind, v);
                    if (r != no_int_seq) {
                        if (r == 0) {
                            return false;
                        }
                        close(start);
                        return true;
                    }
                }
                for (std::uint64_t i = 0; i < v; ++i) {
                    if (!read(t.children[0]) || (map && !read(t.children[1]))) {
                        return false;
                    }
                }
                close(start);
                return true;
            }
            case type_kind::tuple:
            case type_kind::tuple_struct: {
                std::size_t start;
                if (!open(kind::array, t.children.size(), start)) {
                    return false;
                }
                for (std::uint32_t c : t.children) {
                    if (!read(c)) {
                        return false;
                    }
                }
                close(start);
                return true;
            }
            case type_kind::struct_:
                return fields(t);
            case type_kind::enum_: {
                if (!varint(32, v) || v >= t.variants.size()) {
                    return false;
                }
                if (t.variants[v] == variant_kind::unit) {
                    name(t.names[v]);
                    return true;
                }
                std::size_t start;
                if (!open(kind::map, 1, start)) {
                    return false;
                }
                name(t.names[v]);
                const std::uint32_t c = t.children[v];
                if (!(t.variants[v] == variant_kind::struct_ ? fields(nodes_[c]) : read(c))) {
                    return false;
                }
                close(start);
                return true;
            }
            default:  // u128, i128, char: postcard_reader
                return false;
        }
    }

    const unsigned char* p_;
    std::size_t size_;
    std::size_t pos_ = 0;
    std::size_t depth_ = 0;
    std::size_t max_depth_;
    std::size_t max_bytes_;
    const type_node* nodes_;
    std::uint32_t root_;
    writer tw_;
};

result<void> decode_postcard(std::string_view in, builder& b, const decode_options& opt) {
    if (!opt.schema) {
        return fail(make_error(errc::schema_required, 0, "postcard needs a schema"));
    }
    return fast_or_read(
        b, true, [&] { return postcard_fast_reader(in, b, *opt.schema).run(); },
        [&] { return postcard_reader(in, b, *opt.schema).run(); });
}

// ---- writer ----

void put_varint(output_buffer& out, std::uint64_t v) {
    char buf[10];
    std::size_t n = 0;
    while (v >= 0x80) {
        buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out.append(buf, n);
}
std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
// An f32 or f64: the float's bits, little-endian.
template <class Float, class Bits>
void put_float_le(output_buffer& out, Float x) {
    Bits bits;
    std::memcpy(&bits, &x, sizeof bits);
    char buf[sizeof bits];
    for (std::size_t i = 0; i < sizeof bits; ++i) {
        buf[i] = static_cast<char>((bits >> (8 * i)) & 0xff);
    }
    out.append(buf, sizeof bits);
}
void put_f64(output_buffer& out, double d) { put_float_le<double, std::uint64_t>(out, d); }
void put_bytes(output_buffer& out, std::string_view s) {
    put_varint(out, s.size());
    out.append(s);
}

class postcard_writer {
public:
    postcard_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    // ---- without a schema: postcard::to_vec(&serde_json::Value) ----

    result<void> write_value(value v) {
        switch (v.kind()) {
            case kind::null:
                return {};  // serialize_unit: nothing on the wire
            case kind::boolean_false:
            case kind::boolean_true:
                out_.push_back(v.get_bool() ? 1 : 0);
                return {};
            case kind::int64: {
                std::int64_t i = v.get_int();
                // serde_json::Number: PosInt -> serialize_u64, NegInt -> serialize_i64.
                put_varint(out_, i >= 0 ? static_cast<std::uint64_t>(i) : zigzag(i));
                return {};
            }
            case kind::uint64:
                put_varint(out_, v.get_uint());
                return {};
            case kind::bignum: {
                if (!allow_lossy(opt_, v, "bignum_to_float", "bignum written as an f64")) {
                    return fail(unrepresentable(v,
                                                "an integer outside 64 bits is not "
                                                "representable in postcard without a schema"));
                }
                put_f64(out_, std::strtod(std::string(v.get_string()).c_str(), nullptr));
                return {};
            }
            case kind::float64:
                put_f64(out_, v.get_double());
                return {};
            case kind::string:
            case kind::timestamp:
            case kind::bytes:
                put_bytes(out_, v.get_string());
                return {};
            case kind::tagged:
                POLYCODEC_TRY(drop_tag(opt_, v, "postcard"));
                return write_value(v.tagged_value());
            case kind::array:
                put_varint(out_, v.size());
                for (value c : v.items()) {
                    POLYCODEC_TRY(write_value(c));
                }
                return {};
            case kind::map:
                put_varint(out_, v.size());
                for (auto [k, val] : v.entries()) {
                    POLYCODEC_TRY(write_plain_key(k));
                    POLYCODEC_TRY(write_value(val));
                }
                return {};
        }
        return {};
    }

    // ---- with a schema ----

    result<void> write_typed(const postcard::schema& s, std::uint32_t ti, value v) {
        const type_node& t = s.nodes[ti];
        if (v.kind() == kind::tagged && t.kind != type_kind::option) {
            POLYCODEC_TRY(drop_tag(opt_, v, "postcard"));
            return write_typed(s, ti, v.tagged_value());
        }
        switch (t.kind) {
            case type_kind::bool_:
                if (!v.is_bool()) {
                    return mismatch(v, t);
                }
                out_.push_back(v.get_bool() ? 1 : 0);
                return {};
            case type_kind::u8:
            case type_kind::u16:
            case type_kind::u32:
            case type_kind::u64:
            case type_kind::usize: {
                std::uint64_t max = uint_max(t.kind);
                std::uint64_t u;
                if (v.kind() == kind::int64 && v.get_int() >= 0) {
                    u = static_cast<std::uint64_t>(v.get_int());
                } else if (v.kind() == kind::uint64) {
                    u = v.get_uint();
                } else if (v.kind() == kind::int64 || v.kind() == kind::bignum) {
                    return out_of_range(v, t);
                } else {
                    return mismatch(v, t);
                }
                if (u > max) {
                    return out_of_range(v, t);
                }
                if (t.kind == type_kind::u8) {
                    out_.push_back(static_cast<char>(u));
                } else {
                    put_varint(out_, u);
                }
                return {};
            }
            case type_kind::i8:
            case type_kind::i16:
            case type_kind::i32:
            case type_kind::i64:
            case type_kind::isize: {
                std::int64_t lo = int_min(t.kind);
                std::int64_t hi = int_max(t.kind);
                if (v.kind() == kind::uint64 || v.kind() == kind::bignum) {
                    return out_of_range(v, t);
                }
                if (v.kind() != kind::int64) {
                    return mismatch(v, t);
                }
                std::int64_t i = v.get_int();
                if (i < lo || i > hi) {
                    return out_of_range(v, t);
                }
                if (t.kind == type_kind::i8) {
                    out_.push_back(static_cast<char>(static_cast<std::int8_t>(i)));
                } else {
                    put_varint(out_, zigzag(i));
                }
                return {};
            }
            case type_kind::u128:
            case type_kind::i128: {
                big_integer b;
                if (v.kind() == kind::int64) {
                    std::int64_t i = v.get_int();
                    b.neg = i < 0;
                    std::uint64_t m =
                        b.neg ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
                    b.mag = {static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(m >> 32)};
                } else if (v.kind() == kind::uint64) {
                    std::uint64_t m = v.get_uint();
                    b.mag = {static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(m >> 32)};
                } else if (v.kind() == kind::bignum) {
                    if (!parse_decimal(v.get_string(), b)) {
                        return mismatch(v, t);
                    }
                } else {
                    return mismatch(v, t);
                }
                b.trim();
                if (t.kind == type_kind::u128) {
                    if (b.neg || b.bit_length() > 128) {
                        return out_of_range(v, t);
                    }
                } else {
                    // i128 range: -2^127 .. 2^127-1; zigzag = 2n or 2|n|-1.
                    std::size_t bits = b.bit_length();
                    bool min = b.neg && bits == 128 && b.mag[0] == 0 && b.mag[1] == 0 &&
                               b.mag[2] == 0 && b.mag[3] == 0x80000000u;
                    if (bits > 127 && !min) {
                        return out_of_range(v, t);
                    }
                    bool neg = b.neg;
                    b.neg = false;
                    b.mul_add(2, 0);
                    if (neg) {
                        // 2|n| - 1
                        for (auto& limb : b.mag) {
                            if (limb-- != 0) {
                                break;
                            }
                        }
                        b.trim();
                    }
                }
                // Seven bits at a time, least significant first.
                b.mag.resize(5, 0);
                bool more = true;
                while (more) {
                    std::uint32_t byte = b.mag[0] & 0x7f;
                    // Shift the magnitude right by 7.
                    for (std::size_t i = 0; i < b.mag.size(); ++i) {
                        std::uint32_t next = i + 1 < b.mag.size() ? b.mag[i + 1] : 0;
                        b.mag[i] = (b.mag[i] >> 7) | (next << 25);
                    }
                    more = false;
                    for (std::uint32_t limb : b.mag) {
                        more = more || limb != 0;
                    }
                    out_.push_back(static_cast<char>(byte | (more ? 0x80 : 0)));
                }
                return {};
            }
            case type_kind::f32:
            case type_kind::f64: {
                double d;
                if (v.kind() == kind::float64) {
                    d = v.get_double();
                } else if (v.kind() == kind::int64 || v.kind() == kind::uint64) {
                    d = v.kind() == kind::int64 ? static_cast<double>(v.get_int())
                                                : static_cast<double>(v.get_uint());
                    if (!allow_lossy(opt_, v, "int_to_float", "integer written as a float")) {
                        return fail(
                            unrepresentable(v, "an integer is not representable as postcard " +
                                                   t.name + " (a float; lossy allows it)"));
                    }
                } else {
                    return mismatch(v, t);
                }
                if (t.kind == type_kind::f64) {
                    put_f64(out_, d);
                    return {};
                }
                auto f = static_cast<float>(d);
                if (static_cast<double>(f) != d && !std::isnan(d)) {
                    if (!allow_lossy(opt_, v, "float_rounded", "rounded to f32")) {
                        return fail(unrepresentable(
                            v, "this float is not exactly representable as postcard f32"));
                    }
                }
                put_float_le<float, std::uint32_t>(out_, f);
                return {};
            }
            case type_kind::char_: {
                if (v.kind() != kind::string) {
                    return mismatch(v, t);
                }
                std::string_view text = v.get_string();
                auto lead = text.empty() ? 0u : static_cast<unsigned char>(text[0]);
                std::size_t want = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
                if (text.empty() || want != text.size()) {
                    return fail(unrepresentable(v, "a char must be exactly one character"));
                }
                put_bytes(out_, text);
                return {};
            }
            case type_kind::string:
                if (v.kind() != kind::string && v.kind() != kind::timestamp) {
                    return mismatch(v, t);
                }
                put_bytes(out_, v.get_string());
                return {};
            case type_kind::byte_array:
                if (v.kind() == kind::string) {
                    // Bytes that came through a text format as base64 text (DESIGN section 3).
                    std::string raw;
                    if (!base64_decode(v.get_string(), raw)) {
                        return fail(unrepresentable(
                            v, "a string that is not base64 is not representable as postcard " +
                                   t.name));
                    }
                    put_bytes(out_, raw);
                    return {};
                }
                if (v.kind() != kind::bytes) {
                    return mismatch(v, t);
                }
                put_bytes(out_, v.get_string());
                return {};
            case type_kind::option:
                if (v.is_null()) {
                    out_.push_back(0);
                    return {};
                }
                out_.push_back(1);
                return write_typed(s, t.children[0], v);
            case type_kind::unit:
            case type_kind::unit_struct:
                if (!v.is_null()) {
                    return mismatch(v, t);
                }
                return {};
            case type_kind::newtype_struct:
                return write_typed(s, t.children[0], v);
            case type_kind::seq: {
                const type_node& item = s.nodes[t.children[0]];
                if (v.kind() == kind::bytes && item.kind == type_kind::u8) {
                    put_bytes(out_, v.get_string());  // the same wire form as a seq of u8
                    return {};
                }
                if (v.kind() != kind::array) {
                    return mismatch(v, t);
                }
                put_varint(out_, v.size());
                for (value c : v.items()) {
                    POLYCODEC_TRY(write_typed(s, t.children[0], c));
                }
                return {};
            }
            case type_kind::tuple:
            case type_kind::tuple_struct: {
                if (v.kind() != kind::array) {
                    return mismatch(v, t);
                }
                if (v.size() != t.children.size()) {
                    return fail(unrepresentable(v, "expected " + std::to_string(t.children.size()) +
                                                       " items for " + t.name + ", saw " +
                                                       std::to_string(v.size())));
                }
                std::size_t i = 0;
                for (value c : v.items()) {
                    POLYCODEC_TRY(write_typed(s, t.children[i++], c));
                }
                return {};
            }
            case type_kind::map: {
                if (v.kind() != kind::map) {
                    return mismatch(v, t);
                }
                put_varint(out_, v.size());
                for (auto [k, val] : v.entries()) {
                    POLYCODEC_TRY(write_key(s, t.children[0], k));
                    POLYCODEC_TRY(write_typed(s, t.children[1], val));
                }
                return {};
            }
            case type_kind::struct_:
                return write_struct(s, t, v);
            case type_kind::enum_:
                return write_enum(s, t, v);
        }
        return {};
    }

private:
    error mismatch_error(value v, const type_node& t) {
        return unrepresentable(
            v, std::string(kind_name(v.kind())) + " is not representable as postcard " + t.name);
    }
    result<void> mismatch(value v, const type_node& t) { return fail(mismatch_error(v, t)); }
    result<void> out_of_range(value v, const type_node& t) {
        return fail(unrepresentable(v, "integer out of the range of postcard " + t.name));
    }

    result<void> write_plain_key(value k) {
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
                put_bytes(out_, k.get_string());
                return {};
            case kind::int64:
            case kind::uint64:
            case kind::bignum: {
                // serde_json::Map keys are strings: integer keys as decimal text (not lossy).
                std::string text = k.kind() == kind::int64    ? std::to_string(k.get_int())
                                   : k.kind() == kind::uint64 ? std::to_string(k.get_uint())
                                                              : std::string(k.get_string());
                put_bytes(out_, text);
                return {};
            }
            default: {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "postcard without a schema"));
                put_bytes(out_, text);
                return {};
            }
        }
    }

    // A map key: integer key types also take decimal text (keys from string-keyed formats).
    result<void> write_key(const postcard::schema& s, std::uint32_t kt, value k) {
        const type_node& t = s.nodes[kt];
        bool integer =
            t.kind == type_kind::u8 || t.kind == type_kind::u16 || t.kind == type_kind::u32 ||
            t.kind == type_kind::u64 || t.kind == type_kind::usize || t.kind == type_kind::i8 ||
            t.kind == type_kind::i16 || t.kind == type_kind::i32 || t.kind == type_kind::i64 ||
            t.kind == type_kind::isize || t.kind == type_kind::u128 || t.kind == type_kind::i128;
        if (integer && k.kind() == kind::string) {
            document tmp;
            if (decode(format_id::json, k.get_string(), tmp) &&
                (tmp.root().kind() == kind::int64 || tmp.root().kind() == kind::uint64 ||
                 tmp.root().kind() == kind::bignum)) {
                auto r = write_typed(s, kt, tmp.root());
                if (!r) {
                    return fail(unrepresentable(k, r.error().message));
                }
                return {};
            }
        }
        return write_typed(s, kt, k);
    }

    result<void> write_fields(const postcard::schema& s, const type_node& t, value v) {
        if (v.kind() != kind::map) {
            return mismatch(v, t);
        }
        std::uint64_t found = 0;
        for (std::size_t i = 0; i < t.children.size(); ++i) {
            value f = v.find(t.names[i]);
            if (f.doc() == nullptr) {
                if (s.nodes[t.children[i]].kind == type_kind::option) {
                    out_.push_back(0);  // an absent optional field is None
                    continue;
                }
                return fail(
                    unrepresentable(v, "missing field \"" + t.names[i] + "\" of " + t.name));
            }
            ++found;
            POLYCODEC_TRY(write_typed(s, t.children[i], f));
        }
        if (found != v.size()) {
            // Keys the struct does not have (or duplicates).
            for (auto [k, val] : v.entries()) {
                bool known = false;
                if (k.kind() == kind::string) {
                    for (const std::string& n : t.names) {
                        known = known || n == k.get_string();
                    }
                }
                if (!known) {
                    if (!allow_lossy(opt_, val, "field_dropped",
                                     "field not in the schema dropped")) {
                        return fail(unrepresentable(
                            val, "field " + to_debug_string(k) + " is not in " + t.name));
                    }
                }
            }
        }
        return {};
    }
    result<void> write_struct(const postcard::schema& s, const type_node& t, value v) {
        return write_fields(s, t, v);
    }

    result<void> write_enum(const postcard::schema& s, const type_node& t, value v) {
        std::string_view name;
        value data;
        if (v.kind() == kind::string) {
            name = v.get_string();
        } else if (v.kind() == kind::map && v.size() == 1 &&
                   (*v.entries().begin()).key.kind() == kind::string) {
            entry e = *v.entries().begin();
            name = e.key.get_string();
            data = e.val;
        } else {
            return fail(unrepresentable(v, std::string(kind_name(v.kind())) +
                                               " is not representable as postcard enum " + t.name +
                                               " (expected a variant name or {Variant: data})"));
        }
        for (std::size_t i = 0; i < t.names.size(); ++i) {
            if (t.names[i] != name) {
                continue;
            }
            put_varint(out_, i);
            switch (t.variants[i]) {
                case variant_kind::unit:
                    if (data.doc() != nullptr && !data.is_null()) {
                        return fail(unrepresentable(
                            data, "variant " + t.names[i] + " of " + t.name + " carries no data"));
                    }
                    return {};
                case variant_kind::struct_:
                case variant_kind::tuple:
                case variant_kind::newtype:
                    if (data.doc() == nullptr) {
                        return fail(unrepresentable(v, "variant " + t.names[i] + " of " + t.name +
                                                           " needs data: {\"" + t.names[i] +
                                                           "\": ...}"));
                    }
                    if (t.variants[i] == variant_kind::struct_) {
                        return write_fields(s, s.nodes[t.children[i]], data);
                    }
                    return write_typed(s, t.children[i], data);
            }
        }
        return fail(
            unrepresentable(v, "enum " + t.name + " has no variant \"" + std::string(name) + "\""));
    }

    output_buffer& out_;
    const encode_options& opt_;
};

// The encoder's fast path with a schema: walks the schema and the tape words together, writing
// through an output cursor, with bool returns. It takes what needs no option and no conversion:
// booleans, integers in their type's range, f64 from a float, strings, bytes, options, units,
// seqs, tuples, maps whose keys need no text-to-integer reading, and structs whose map holds
// exactly the fields in the schema's order; on anything else (a tag, f32, u128/i128, char, enum,
// base64 text for bytes, a missing, extra or reordered field, an error) it returns false and
// encode_postcard truncates the output and runs postcard_writer, which writes the same bytes
// for what this takes.
class postcard_fast_writer {
public:
    postcard_fast_writer(const document& doc, output_buffer& out, const postcard::schema& s)
        : t_(doc.tape().data()),
          payload_(doc.bytes().data()),
          nodes_(s.nodes.data()),
          out_(out),
          c_(out) {}

    bool run(std::size_t root, std::uint32_t ti) {
        std::size_t i = root;
        if (!write(ti, i)) {
            return false;
        }
        c_.release();
        return true;
    }

private:
    [[gnu::always_inline]] static char* varint_at(char* o, std::uint64_t v) noexcept {
        while (v >= 0x80) {
            *o++ = static_cast<char>((v & 0x7f) | 0x80);
            v >>= 7;
        }
        *o++ = static_cast<char>(v);
        return o;
    }
    kind kind_at(std::size_t i) const noexcept {
        return static_cast<kind>(t_[i] >> document::kind_shift);
    }
    // A string's or bytes' length and payload.
    void put_bytes(std::size_t i) {
        const std::size_t n = static_cast<std::size_t>(t_[i + 1]);
        if (static_cast<std::size_t>(c_.end - c_.o) < n + 16) {
            c_.release();
            out_.prepare(n + 16);
            c_.acquire();
        }
        c_.o = varint_at(c_.o, n);
        std::memcpy(c_.o, payload_ + (t_[i] & document::payload_mask), n);
        c_.o += n;
    }

    bool write(std::uint32_t ti, std::size_t& i) {
        const type_node& t = nodes_[ti];
        const kind k = kind_at(i);
        c_.room();
        switch (t.kind) {
            case type_kind::bool_:
                if (k != kind::boolean_false && k != kind::boolean_true) {
                    return false;
                }
                *c_.o++ = k == kind::boolean_true ? 1 : 0;
                i += 1;
                return true;
            case type_kind::u8:
            case type_kind::u16:
            case type_kind::u32:
            case type_kind::u64:
            case type_kind::usize: {
                const std::uint64_t max = uint_max(t.kind);
                const std::uint64_t u = t_[i + 1];
                if (!(k == kind::uint64 ||
                      (k == kind::int64 && static_cast<std::int64_t>(u) >= 0)) ||
                    u > max) {
                    return false;
                }
                if (t.kind == type_kind::u8) {
                    *c_.o++ = static_cast<char>(u);
                } else {
                    c_.o = varint_at(c_.o, u);
                }
                i += 2;
                return true;
            }
            case type_kind::i8:
            case type_kind::i16:
            case type_kind::i32:
            case type_kind::i64:
            case type_kind::isize: {
                const std::int64_t lo = int_min(t.kind);
                const std::int64_t hi = int_max(t.kind);
                const auto v = static_cast<std::int64_t>(t_[i + 1]);
                if (k != kind::int64 || v < lo || v > hi) {
                    return false;
                }
                if (t.kind == type_kind::i8) {
                    *c_.o++ = static_cast<char>(static_cast<std::int8_t>(v));
                } else {
                    c_.o = varint_at(c_.o, zigzag(v));
                }
                i += 2;
                return true;
            }
            case type_kind::f64:
                if (k != kind::float64 || std::endian::native != std::endian::little) {
                    return false;
                }
                std::memcpy(c_.o, &t_[i + 1], 8);
                c_.o += 8;
                i += 2;
                return true;
            case type_kind::string:
                if (k != kind::string && k != kind::timestamp) {
                    return false;
                }
                put_bytes(i);
                i += 2;
                return true;
            case type_kind::byte_array:
                if (k != kind::bytes) {
                    return false;
                }
                put_bytes(i);
                i += 2;
                return true;
            case type_kind::option:
                if (k == kind::null) {
                    *c_.o++ = 0;
                    i += 1;
                    return true;
                }
                *c_.o++ = 1;
                return write(t.children[0], i);
            case type_kind::unit:
            case type_kind::unit_struct:
                if (k != kind::null) {
                    return false;
                }
                i += 1;
                return true;
            case type_kind::newtype_struct:
                return write(t.children[0], i);
            case type_kind::seq: {
                if (k != kind::array) {
                    return false;  // bytes for a seq of u8 too: postcard_writer
                }
                const std::uint64_t n = t_[i + 1];
                c_.o = varint_at(c_.o, n);
                i += 2;
                const type_kind item = nodes_[t.children[0]].kind;
                if (item == type_kind::i64 || item == type_kind::isize) {
                    // A seq of i64: one loop over the items' words (each an int64; anything
                    // else hands the document to postcard_writer, as write() would).
                    for (std::uint64_t j = 0; j < n; ++j, i += 2) {
                        if (kind_at(i) != kind::int64) {
                            return false;
                        }
                        c_.room();
                        c_.o = varint_at(c_.o, zigzag(static_cast<std::int64_t>(t_[i + 1])));
                    }
                    return true;
                }
                for (std::uint64_t j = 0; j < n; ++j) {
                    if (!write(t.children[0], i)) {
                        return false;
                    }
                }
                return true;
            }
            case type_kind::tuple:
            case type_kind::tuple_struct:
                if (k != kind::array || t_[i + 1] != t.children.size()) {
                    return false;
                }
                i += 2;
                for (std::uint32_t c : t.children) {
                    if (!write(c, i)) {
                        return false;
                    }
                }
                return true;
            case type_kind::map: {
                const type_kind kt = nodes_[t.children[0]].kind;
                const bool integer_key = kt != type_kind::bool_ && kt <= type_kind::isize;
                if (k != kind::map) {
                    return false;
                }
                const std::uint64_t n = t_[i + 1];
                c_.o = varint_at(c_.o, n);
                i += 2;
                for (std::uint64_t j = 0; j < n; ++j) {
                    if ((integer_key && kind_at(i) == kind::string) || !write(t.children[0], i) ||
                        !write(t.children[1], i)) {
                        return false;  // an integer key as text: postcard_writer reads it
                    }
                }
                return true;
            }
            case type_kind::struct_: {
                if (k != kind::map || t_[i + 1] != t.children.size() || !t.unique_names) {
                    return false;
                }
                i += 2;
                for (std::size_t f = 0; f < t.children.size(); ++f) {
                    const std::string& name = t.names[f];
                    if (kind_at(i) != kind::string || t_[i + 1] != name.size() ||
                        std::memcmp(payload_ + (t_[i] & document::payload_mask), name.data(),
                                    name.size()) != 0) {
                        return false;
                    }
                    i += 2;
                    if (!write(t.children[f], i)) {
                        return false;
                    }
                }
                return true;
            }
            default:  // f32, u128, i128, char, enum: postcard_writer
                return false;
        }
    }

    const std::uint64_t* t_;
    const char* payload_;
    const type_node* nodes_;
    output_buffer& out_;
    out_cursor<32> c_;
};

result<void> encode_postcard(const document& doc, output_buffer& out, const encode_options& opt) {
    if (opt.schema && !doc.empty()) {
        const std::size_t at = out.size();
        postcard_fast_writer f(doc, out, *opt.schema);
        if (f.run(doc.root().index(), opt.schema->root)) {
            return {};
        }
        out.truncate(at);
    }
    postcard_writer w(out, opt);
    if (opt.schema) {
        return w.write_typed(*opt.schema, opt.schema->root, doc.root());
    }
    return w.write_value(doc.root());
}

}  // namespace

const codec_functions postcard_codec{decode_postcard, encode_postcard};

}  // namespace polycodec::detail
