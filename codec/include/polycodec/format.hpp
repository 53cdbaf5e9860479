#pragma once
/// The format table of DESIGN section 1: the single source of truth that the registry, the
/// CLI, the server's negotiation, metric labels and the tests iterate.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace polycodec {

/// A format's number on the TCP protocol. Never renumbered once released.
enum class format_id : std::uint8_t {
    json = 1,
    json5 = 2,
    hjson = 3,
    yaml = 4,
    ron = 5,
    sexpr = 6,
    cbor = 7,
    msgpack = 8,
    pickle = 9,
    toml = 10,
    bson = 11,
    bencode = 12,
    postcard = 13,
    csv = 14,
    ndjson = 15,
    urlform = 16,
    ini = 17,
    edn = 18,
    ubjson = 19,
    smile = 20,
    dotenv = 21,
    protobuf = 22,
    avro = 23,
    xml = 24,
    plist = 25,
    properties = 26,
    protojson = 27,
};

/// The largest format id; ids run from 1 to format_count. While formats 22-27 are being
/// added an id may be unassigned: find_format_by_number answers nullptr for it.
inline constexpr std::size_t format_count = 27;

/// What a format can carry. Encoders use these to decide what is lossy; /formats shows them.
struct format_caps {
    bool text = false;            ///< human-readable text (errors carry line and column)
    bool null = true;             ///< has a null value
    bool boolean = true;          ///< has true/false
    bool floats = true;           ///< has floating-point numbers
    bool bytes = false;           ///< has a byte-string type
    bool any_keys = false;        ///< map keys may be non-strings
    bool map_root_only = false;   ///< the document root must be a map (TOML, BSON)
    bool tabular = false;         ///< only tables of rows (CSV)
    bool needs_schema = false;    ///< decoding needs a schema (postcard, protobuf, avro)
};

/// One row of the format table.
struct format_info {
    format_id id;
    std::string_view name;                         ///< canonical name, e.g. "msgpack"
    std::span<const std::string_view> media_types;  ///< canonical first, then aliases
    std::span<const std::string_view> extensions;   ///< with the dot: ".yaml"
    format_caps caps;
};

/// All formats, in id order.
std::span<const format_info> formats() noexcept;

/// The row of `id`; nullptr for an id outside the table.
const format_info* find_format(format_id id) noexcept;
/// By canonical name ("json"), case-insensitive.
const format_info* find_format_by_name(std::string_view name) noexcept;
/// By file extension with or without the dot (".yml", "yml"), case-insensitive.
const format_info* find_format_by_extension(std::string_view ext) noexcept;
/// By media type without parameters ("application/x-yaml"), case-insensitive; any
/// "+json" suffix type maps to json.
const format_info* find_format_by_media_type(std::string_view type) noexcept;
/// By a path's extension ("data/in.cbor").
const format_info* find_format_by_path(std::string_view path) noexcept;
/// By wire number; nullptr when `number` names no format.
const format_info* find_format_by_number(std::uint8_t number) noexcept;

/// The canonical name of `id` ("json"); "unknown" outside the table.
std::string_view to_string(format_id id) noexcept;

}  // namespace polycodec
