#include "polycodec/format.hpp"

#include <algorithm>
#include <array>
#include <iterator>

#include "detail/ascii.hpp"

namespace polycodec {
namespace {

using sv = std::string_view;

constexpr sv json_types[] = {"application/json", "text/json"};
constexpr sv json_ext[] = {".json"};
constexpr sv json5_types[] = {"application/json5"};
constexpr sv json5_ext[] = {".json5"};
constexpr sv hjson_types[] = {"application/hjson", "text/hjson"};
constexpr sv hjson_ext[] = {".hjson"};
constexpr sv yaml_types[] = {"application/yaml", "application/x-yaml", "text/yaml",
                             "text/x-yaml"};
constexpr sv yaml_ext[] = {".yaml", ".yml"};
constexpr sv ron_types[] = {"application/ron", "text/ron", "application/x-ron"};
constexpr sv ron_ext[] = {".ron"};
constexpr sv sexpr_types[] = {"text/x-sexpr", "application/x-sexpr"};
constexpr sv sexpr_ext[] = {".sexp", ".sexpr"};
constexpr sv cbor_types[] = {"application/cbor"};
constexpr sv cbor_ext[] = {".cbor"};
constexpr sv msgpack_types[] = {"application/vnd.msgpack", "application/msgpack",
                                "application/x-msgpack"};
constexpr sv msgpack_ext[] = {".msgpack", ".mpk"};
constexpr sv pickle_types[] = {"application/x-python-pickle", "application/x-python-serialize",
                               "application/python-pickle"};
constexpr sv pickle_ext[] = {".pickle", ".pkl"};
constexpr sv toml_types[] = {"application/toml"};
constexpr sv toml_ext[] = {".toml"};
constexpr sv bson_types[] = {"application/bson", "application/x-bson"};
constexpr sv bson_ext[] = {".bson"};
constexpr sv bencode_types[] = {"application/x-bencode", "application/x-bittorrent"};
constexpr sv bencode_ext[] = {".bencode", ".torrent"};
constexpr sv postcard_types[] = {"application/postcard", "application/x-postcard"};
constexpr sv postcard_ext[] = {".postcard"};
constexpr sv csv_types[] = {"text/csv", "application/csv", "text/tab-separated-values"};
constexpr sv csv_ext[] = {".csv", ".tsv"};
constexpr sv ndjson_types[] = {"application/x-ndjson", "application/jsonl", "application/ndjson"};
constexpr sv ndjson_ext[] = {".ndjson", ".jsonl"};
constexpr sv urlform_types[] = {"application/x-www-form-urlencoded"};
constexpr sv urlform_ext[] = {".form"};
constexpr sv ini_types[] = {"text/x-ini"};
constexpr sv ini_ext[] = {".ini"};
constexpr sv edn_types[] = {"application/edn"};
constexpr sv edn_ext[] = {".edn"};
constexpr sv ubjson_types[] = {"application/ubjson"};
constexpr sv ubjson_ext[] = {".ubj"};
constexpr sv smile_types[] = {"application/x-jackson-smile"};
constexpr sv smile_ext[] = {".sml"};
constexpr sv dotenv_types[] = {"text/x-dotenv", "application/x-env"};
constexpr sv dotenv_ext[] = {".env"};
constexpr sv protobuf_types[] = {"application/x-protobuf", "application/protobuf",
                                 "application/vnd.google.protobuf"};
constexpr sv protobuf_ext[] = {".binpb", ".pb"};
constexpr sv avro_types[] = {"application/avro", "avro/binary", "application/vnd.apache.avro+binary"};
constexpr sv avro_ext[] = {".avro"};
constexpr sv xml_types[] = {"application/xml", "text/xml"};
constexpr sv xml_ext[] = {".xml"};
constexpr sv plist_types[] = {"application/x-plist", "application/x-bplist"};
constexpr sv plist_ext[] = {".plist"};
constexpr sv properties_types[] = {"text/x-java-properties"};
constexpr sv properties_ext[] = {".properties"};
constexpr sv protojson_types[] = {"application/x-protojson"};
constexpr sv protojson_ext[] = {".pjson"};

// Capabilities: text, null, boolean, floats, bytes, any_keys, map_root_only, tabular, schema.
constexpr format_caps text_json{true, true, true, true, false, false, false, false, false};
constexpr format_caps text_any_keys{true, true, true, true, true, true, false, false, false};
constexpr format_caps binary_any_keys{false, true, true, true, true, true, false, false, false};

// In id order; an id may be missing while the formats of DESIGN sections 14-15 are added.
constexpr format_info table[] = {
    {format_id::json, "json", json_types, json_ext, text_json},
    {format_id::json5, "json5", json5_types, json5_ext, text_json},
    {format_id::hjson, "hjson", hjson_types, hjson_ext, text_json},
    {format_id::yaml, "yaml", yaml_types, yaml_ext, text_any_keys},
    {format_id::ron, "ron", ron_types, ron_ext, text_any_keys},
    {format_id::sexpr, "sexpr", sexpr_types, sexpr_ext, text_any_keys},
    {format_id::cbor, "cbor", cbor_types, cbor_ext, binary_any_keys},
    {format_id::msgpack, "msgpack", msgpack_types, msgpack_ext, binary_any_keys},
    {format_id::pickle, "pickle", pickle_types, pickle_ext, binary_any_keys},
    {format_id::toml, "toml", toml_types, toml_ext,
     {true, false, true, true, false, false, true, false, false}},
    {format_id::bson, "bson", bson_types, bson_ext,
     {false, true, true, true, true, false, true, false, false}},
    {format_id::bencode, "bencode", bencode_types, bencode_ext,
     {false, false, false, false, true, false, false, false, false}},
    {format_id::postcard, "postcard", postcard_types, postcard_ext,
     {false, true, true, true, true, true, false, false, true}},
    {format_id::csv, "csv", csv_types, csv_ext,
     {true, false, false, false, false, false, false, true, false}},
    {format_id::ndjson, "ndjson", ndjson_types, ndjson_ext, text_json},
    {format_id::urlform, "urlform", urlform_types, urlform_ext,
     {true, false, false, false, false, false, true, false, false}},
    {format_id::ini, "ini", ini_types, ini_ext,
     {true, false, false, false, false, false, true, false, false}},
    {format_id::edn, "edn", edn_types, edn_ext, {true, true, true, true, false, true, false, false, false}},
    {format_id::ubjson, "ubjson", ubjson_types, ubjson_ext,
     {false, true, true, true, true, false, false, false, false}},
    {format_id::smile, "smile", smile_types, smile_ext,
     {false, true, true, true, true, false, false, false, false}},
    {format_id::dotenv, "dotenv", dotenv_types, dotenv_ext,
     {true, false, false, false, false, false, true, false, false}},
    {format_id::protobuf, "protobuf", protobuf_types, protobuf_ext,
     {false, false, true, true, true, true, true, false, true}},
    {format_id::avro, "avro", avro_types, avro_ext,
     {false, true, true, true, true, false, false, false, true}},
    {format_id::xml, "xml", xml_types, xml_ext,
     {true, true, false, false, false, false, false, false, false}},
    // XML or binary (bplist00): not a text format as a whole, the XML reader adds line and
    // column to its errors itself.
    {format_id::plist, "plist", plist_types, plist_ext,
     {false, false, true, true, true, false, false, false, false}},
    {format_id::properties, "properties", properties_types, properties_ext,
     {true, false, false, false, false, false, true, false, false}},
    {format_id::protojson, "protojson", protojson_types, protojson_ext,
     {true, true, true, true, false, false, true, false, true}},
};

constexpr bool ids_increasing() {
    for (std::size_t i = 1; i < std::size(table); ++i) {
        if (static_cast<int>(table[i].id) <= static_cast<int>(table[i - 1].id)) {
            return false;
        }
    }
    return static_cast<std::size_t>(table[std::size(table) - 1].id) == format_count;
}
static_assert(ids_increasing(), "the format table is in increasing id order up to format_count");

}  // namespace

std::span<const format_info> formats() noexcept { return table; }

const format_info* find_format(format_id id) noexcept {
    return find_format_by_number(static_cast<std::uint8_t>(id));
}

const format_info* find_format_by_number(std::uint8_t number) noexcept {
    if (number == 0 || number > format_count) {
        return nullptr;
    }
    // Usually table[number - 1]; past an unassigned id, a few rows earlier.
    for (std::size_t i = std::min<std::size_t>(number, std::size(table)); i-- > 0;) {
        if (static_cast<std::uint8_t>(table[i].id) == number) {
            return &table[i];
        }
        if (static_cast<std::uint8_t>(table[i].id) < number) {
            break;
        }
    }
    return nullptr;
}

const format_info* find_format_by_name(std::string_view name) noexcept {
    for (const auto& f : table) {
        if (detail::iequals(f.name, name)) {
            return &f;
        }
    }
    return nullptr;
}

const format_info* find_format_by_extension(std::string_view ext) noexcept {
    if (!ext.empty() && ext.front() == '.') {
        ext.remove_prefix(1);
    }
    for (const auto& f : table) {
        for (sv e : f.extensions) {
            if (detail::iequals(e.substr(1), ext)) {
                return &f;
            }
        }
    }
    return nullptr;
}

const format_info* find_format_by_media_type(std::string_view type) noexcept {
    for (const auto& f : table) {
        for (sv t : f.media_types) {
            if (detail::iequals(t, type)) {
                return &f;
            }
        }
    }
    // RFC 6839: any structured-syntax "+json" type is JSON.
    if (type.size() > 5 && detail::iequals(type.substr(type.size() - 5), "+json") &&
        type.find('/') != sv::npos) {
        return &table[0];
    }
    // RFC 7303 section 4.2: any "+xml" type is XML.
    if (type.size() > 4 && detail::iequals(type.substr(type.size() - 4), "+xml") &&
        type.find('/') != sv::npos) {
        return find_format(format_id::xml);
    }
    return nullptr;
}

const format_info* find_format_by_path(std::string_view path) noexcept {
    auto slash = path.find_last_of('/');
    sv base = slash == sv::npos ? path : path.substr(slash + 1);
    auto dot = base.find_last_of('.');
    if (dot == sv::npos || dot == 0) {
        return nullptr;
    }
    return find_format_by_extension(base.substr(dot));
}

std::string_view to_string(format_id id) noexcept {
    const format_info* f = find_format(id);
    return f ? f->name : "unknown";
}

}  // namespace polycodec
