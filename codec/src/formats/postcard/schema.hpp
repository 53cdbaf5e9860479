#pragma once
// The parsed form of a postcard schema (OwnedNamedType): a flat vector of type nodes, children
// by index. Built once by parse_schema, read by the postcard decoder and encoder.

#include <cstdint>
#include <string>
#include <vector>

#include "polycodec/formats/postcard.hpp"

namespace polycodec::postcard {

/// OwnedDataModelType's variants, in the crate's order.
enum class type_kind : std::uint8_t {
    bool_,
    i8,
    u8,
    i16,
    i32,
    i64,
    i128,
    u16,
    u32,
    u64,
    u128,
    usize,
    isize,
    f32,
    f64,
    char_,
    string,
    byte_array,
    option,
    unit,
    unit_struct,
    newtype_struct,
    seq,
    tuple,
    tuple_struct,
    map,
    struct_,
    enum_,
};

/// OwnedDataModelVariant's variants.
enum class variant_kind : std::uint8_t { unit, newtype, tuple, struct_ };

constexpr std::uint32_t no_type = 0xffffffffu;

struct type_node {
    type_kind kind{};
    std::string name;  ///< the NamedType's name ("u64", "Record")
    /// option, newtype_struct, seq: the inner type; tuple, tuple_struct: the items; map: key
    /// then value; struct_: the fields' types; enum_: one node per variant (a newtype variant's
    /// type, a synthetic tuple or struct node, or no_type for a unit variant).
    std::vector<std::uint32_t> children;
    std::vector<std::string> names;      ///< struct_: field names; enum_: variant names
    std::vector<variant_kind> variants;  ///< enum_: the kind of each variant
    std::uint64_t min_size = 0;          ///< fewest bytes a value of this type takes on the wire
    /// struct_: no two fields share a name (the encoder's fast path then matches a map's keys
    /// to the fields in order; parse_schema sets it).
    bool unique_names = true;
};

struct schema {
    std::vector<type_node> nodes;
    std::uint32_t root = 0;
};

}  // namespace polycodec::postcard
