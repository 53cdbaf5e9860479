#pragma once
// The parsed form of a FileDescriptorSet: messages and enums in flat vectors, fields pointing
// at their types by index. Built once by parse_descriptor_set, read by the protobuf and
// protojson codecs (formats/protobuf/schema.hpp forwards here).

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "polycodec/error.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "polycodec/result.hpp"

namespace polycodec::protobuf {

/// FieldDescriptorProto.Type, the numbers of descriptor.proto.
enum class field_type : std::uint8_t {
    double_ = 1,
    float_ = 2,
    int64 = 3,
    uint64 = 4,
    int32 = 5,
    fixed64 = 6,
    fixed32 = 7,
    bool_ = 8,
    string = 9,
    group = 10,
    message = 11,
    bytes = 12,
    uint32 = 13,
    enum_ = 14,
    sfixed32 = 15,
    sfixed64 = 16,
    sint32 = 17,
    sint64 = 18,
};

/// The well-known types the codec maps to natural values (DESIGN section 14).
enum class wkt : std::uint8_t {
    none,
    timestamp,
    duration,
    struct_,
    value,
    list_value,
    field_mask,
    any,
    wrapper,  ///< DoubleValue ... BytesValue: the value of field 1
    empty,
};

constexpr std::int32_t no_index = -1;

struct field_desc {
    std::string name;
    std::string json_name;
    std::uint32_t number = 0;
    field_type type{};
    bool repeated = false;
    bool presence = false;  ///< explicit presence (proto2, message, oneof, proto3 optional)
    bool map = false;       ///< a map field (repeated entry message with map_entry)
    /// Repeated scalars are written packed: proto3's default, proto2's with [packed = true];
    /// [packed = false] and proto2's default write one tag per element, as libprotobuf does.
    bool packed = false;
    std::int32_t message = no_index;  ///< message, group and map entry types
    std::int32_t enum_ = no_index;
    std::int32_t oneof = no_index;
    std::string default_value;  ///< proto2 [default = ...] as descriptor.proto writes it
    bool name_wins = true;  ///< by_name[name] is this field (not an earlier field's json_name)
    /// The ProtoJSON keys, quoted and escaped as JSON strings ("\"jsonName\"", "\"name\""):
    /// built once with the schema, written as they are by the protojson encoder.
    std::string json_key;
    std::string name_key;
};

struct message_desc {
    std::string full_name;  ///< "pkg.Outer.Inner"
    std::vector<field_desc> fields;  ///< in declaration order
    std::vector<std::int32_t> by_small_number;  ///< field index by number for numbers < size
    std::unordered_map<std::uint32_t, std::int32_t> by_large_number;
    std::unordered_map<std::string, std::int32_t> by_name;  ///< name and json_name
    std::uint32_t oneof_count = 0;
    bool map_entry = false;
    bool proto3 = false;
    wkt kind = wkt::none;

    std::int32_t find_number(std::uint32_t n) const noexcept {
        if (n < by_small_number.size()) {
            return by_small_number[n];
        }
        auto it = by_large_number.find(n);
        return it == by_large_number.end() ? no_index : it->second;
    }
};

struct enum_value_desc {
    std::string name;
    std::int32_t number = 0;
};

struct enum_desc {
    std::string full_name;
    std::vector<enum_value_desc> values;
    bool null_value = false;  ///< google.protobuf.NullValue
};

struct schema {
    std::vector<message_desc> messages;
    std::vector<enum_desc> enums;
    std::unordered_map<std::string, std::int32_t> message_by_name;
    std::unordered_map<std::string, std::int32_t> enum_by_name;
    /// The top-level messages of the last file of the set (the file protoc was asked for):
    /// the default type when `type=` is not given and there is exactly one.
    std::vector<std::int32_t> main_messages;
};

/// The message `type=` names (a type URL's last segment or a leading '.' allowed), or the
/// only top-level message of the main file; shared by protobuf and protojson.
inline result<std::int32_t> pick_message(const schema& s, const std::string& type_name) {
    if (!type_name.empty()) {
        std::string_view t = type_name;
        if (auto slash = t.rfind('/'); slash != std::string_view::npos) {
            t.remove_prefix(slash + 1);
        }
        if (!t.empty() && t[0] == '.') {
            t.remove_prefix(1);
        }
        auto it = s.message_by_name.find(std::string(t));
        if (it == s.message_by_name.end()) {
            return fail(make_error(errc::invalid_option,
                                   "type=" + type_name + ": no such message in the schema"));
        }
        return it->second;
    }
    if (s.main_messages.size() == 1) {
        return s.main_messages[0];
    }
    std::string names;
    for (std::size_t i = 0; i < s.main_messages.size() && i < 8; ++i) {
        names += (i != 0 ? ", " : "") + s.messages[s.main_messages[i]].full_name;
    }
    return fail(make_error(errc::schema_required,
                           "the schema defines several messages: type= names one (" + names + ")"));
}

}  // namespace polycodec::protobuf
