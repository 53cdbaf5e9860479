#pragma once
// The parsed form of an Avro schema (formats/avro.hpp): a graph of nodes, where a named type
// referenced again (also recursively) is the same node index.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "polycodec/document.hpp"
#include "polycodec/formats/avro.hpp"

namespace polycodec::avro {

enum class type_kind : std::uint8_t {
    null_, boolean, int_, long_, float_, double_, bytes, string,
    record, enum_, array, map, union_, fixed,
};

enum class logical : std::uint8_t {
    none, decimal, uuid, date, time_millis, time_micros, timestamp_millis, timestamp_micros,
    timestamp_nanos, local_timestamp_millis, local_timestamp_micros, local_timestamp_nanos,
    duration,
};

constexpr std::uint32_t no_node = 0xffffffffu;

struct field {
    std::string name;
    std::vector<std::string> aliases;
    std::uint32_t type = no_node;
    bool has_default = false;
    std::string default_json;  ///< the default's JSON text, compact
    document default_value;    ///< the default as parsed JSON (Avro JSON encoding of the type)
    std::string order;         ///< "ascending" (empty), "descending" or "ignore"
};

struct node {
    type_kind kind = type_kind::null_;
    logical lt = logical::none;
    std::string logical_name;  ///< as written, also for ignored (unknown or invalid) ones
    std::uint32_t precision = 0, scale = 0;  ///< decimal
    std::string name;          ///< full name of a record, enum or fixed
    std::vector<std::string> aliases;  ///< full names
    std::string doc;
    std::vector<field> fields;         ///< record
    std::vector<std::string> symbols;  ///< enum
    bool has_enum_default = false;
    std::uint32_t enum_default = 0;
    std::uint32_t items = no_node;     ///< array items, map values
    std::vector<std::uint32_t> branches;  ///< union
    std::uint64_t size = 0;            ///< fixed
    std::uint64_t min_size = 0;        ///< fewest bytes a datum of this type takes
};

struct schema {
    std::vector<node> nodes;
    std::uint32_t root = no_node;
    std::map<std::string, std::uint32_t, std::less<>> named;  ///< full name -> node
    std::vector<std::string> named_order;
    std::string canonical;
    std::uint64_t fingerprint = 0;
    std::string text;  ///< the schema as JSON with its logical types, for containers
};

/// The node of `type_name` (full or unqualified name), or the root when it is empty;
/// no_node when absent.
std::uint32_t find_type(const schema& s, std::string_view type_name);
/// The JSON text (with logical types and defaults) of node `n` as a schema of its own.
std::string schema_json(const schema& s, std::uint32_t n);
/// The Parsing Canonical Form of node `n` as a schema of its own.
std::string canonical_json(const schema& s, std::uint32_t n);
/// CRC-64-AVRO of `text`.
std::uint64_t crc64_avro(std::string_view text) noexcept;

}  // namespace polycodec::avro
