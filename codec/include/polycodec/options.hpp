#pragma once
/// Options of decode and encode: the query parameters of DESIGN section 4 and the CLI flags of
/// section 7 in one struct each, so HTTP, TCP and the CLI mean the same thing.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/document.hpp"

namespace polycodec {

namespace postcard {
struct schema;  // formats/postcard.hpp
}
namespace protobuf {
struct schema;  // formats/protobuf.hpp
}
namespace avro {
struct schema;  // formats/avro.hpp
}

/// avro framing= of a bare datum (docs/formats/avro.md).
enum class avro_framing : std::uint8_t {
    none = 0,           ///< the datum alone
    single_object = 1,  ///< C3 01, the schema's CRC-64-AVRO fingerprint (8 bytes LE), datum
    confluent = 2,      ///< 00, the schema id (4 bytes BE), datum
};

/// One fallback an encoder took under lossy=allow, e.g. {"/a/0", "nan_to_null"}.
struct lossy_event {
    std::string path;    ///< JSON Pointer of the value
    std::string_view kind;  ///< a fixed name from the encoder ("nan_to_null"), a metric label
    std::string detail;  ///< "NaN written as null"
};

/// Everything lossy=allow changed during one encode.
using lossy_report = std::vector<lossy_event>;

/// extjson=relaxed|canonical (docs/formats/bson.md "Extended JSON v2").
enum class extjson_mode : std::uint8_t {
    relaxed = 0,    ///< the default: BSON's numbers and dates as plain JSON values where they fit
    canonical = 1,  ///< every int32, int64, double and date as its type-preserving object
};

/// XML's mapping (docs/formats/xml.md): the xmltodict convention by default, or the ordered
/// JsonML-style form. Decoder and encoder read the same values.
struct xml_options {
    std::string attr_prefix = "@";   ///< attr_prefix=: prepended to attribute names
    std::string text_key = "#text";  ///< text_key=: the key of text beside attributes/children
    std::vector<std::string> force_list;  ///< force_list=a,b: these elements always as arrays
    bool expand_namespaces = false;  ///< namespaces=expand: names as {uri}local
    bool ordered = false;            ///< ordered=true: ["tag", {"@a": ..}, child, "text", ...]
    std::string root;                ///< root=NAME: the root element wrapping the document
};

/// protojson's print and parse options (DESIGN section 14, docs/formats/protojson.md).
struct protojson_options {
    bool preserve_proto_field_names = false;     ///< output: field names as in the .proto
    bool always_print_primitive_fields = false;  ///< output: fields without presence at default
    bool enums_as_ints = false;                  ///< output: enum values as numbers
    bool ignore_unknown_fields = false;          ///< input: unknown keys and enum names dropped
};

/// Shared by decode and encode.
struct common_options {
    bool canonical = false;  ///< canonical=true: deterministic encodings, strict decoding
    /// CSV: the first row is a header (header=present, the default) or not (header=absent).
    bool csv_header = true;
    char csv_delimiter = 0;  ///< 0 = the format's default (',' or '\t' for TSV)
    bool csv_tab = false;    ///< text/tab-separated-values
    /// postcard: the schema chosen by schema=NAME, resolved by the caller.
    std::shared_ptr<const postcard::schema> schema;
    /// protobuf: the descriptor set chosen by schema=NAME, resolved by the caller.
    std::shared_ptr<const protobuf::schema> protobuf_schema;
    /// type=: the message (protobuf, "pkg.Message") or record (avro) the schema's file defines.
    std::string type_name;
    std::string schema_name;  ///< as given, for messages
    /// avro: the schema chosen by schema=NAME (a NAME.avsc of --schema-dir), resolved by the
    /// caller; the writer's schema of a bare datum, the schema to embed in a container.
    std::shared_ptr<const avro::schema> avro_schema;
    /// avro reader_schema=NAME: decode resolves the writer's schema to this one.
    std::shared_ptr<const avro::schema> avro_reader_schema;
    std::string reader_schema_name;  ///< as given, for messages
    /// avro container=false (or avro/binary): a bare datum instead of an Object Container File.
    bool avro_container = true;
    /// avro framing= of a bare datum; any framing implies container=false.
    avro_framing framing = avro_framing::none;
    /// avro schema_id=N: the id written after the Confluent magic byte.
    std::uint32_t avro_schema_id = 0;
    /// avro_json=true: the Avro JSON encoding instead of the binary one.
    bool avro_json = false;
    /// avro codec=null|deflate|zstandard|snappy: how container blocks are compressed on output.
    std::string avro_codec;
    /// Stream mode's record framing (DESIGN section 12): json as RFC 7464 json-seq, cbor as an
    /// RFC 8742 CBOR sequence, msgpack as concatenated values, instead of a top-level array.
    /// Set by seq=true or the media types application/json-seq and application/cbor-seq.
    bool seq = false;
    /// YAML: a stream of several documents decodes to an array; in stream mode each record
    /// is one document, in and out.
    bool multi = false;
    /// extjson=canonical: JSON-family encoders (json, json5, hjson, yaml, ndjson) write BSON's
    /// types, ints, floats and dates as canonical Extended JSON v2 ({"$numberLong": "1"});
    /// their decoders read Extended JSON objects back into those values (with int_width
    /// hints). relaxed (the default) writes and reads as before.
    extjson_mode extjson = extjson_mode::relaxed;
    /// int_width=keep: the CBOR and MessagePack decoders record each integer's encoded width
    /// (int_width hint) and their encoders write an integer at its hinted width when it fits
    /// (docs/formats/cbor.md, msgpack.md). The default (shortest) ignores widths.
    bool keep_int_width = false;
    xml_options xml;  ///< xml: the mapping options
    protojson_options protojson;  ///< protojson: print and parse options
};

struct decode_options : common_options {
    build_limits limits;  ///< depth and size budget
    bool infer = false;   ///< CSV: type numbers, booleans and empty fields
    bool unflatten = false;  ///< CSV: dotted column names become nested maps
    /// CSV: RFC 4180 quoting (strict=true, the default) refuses a quote inside an unquoted
    /// field (`1,x"y`) and text after a closing quote (`"a"b`); strict=false reads both as
    /// Python's csv reader does (`x"y`, `ab`).
    bool strict = true;
    /// lossy=allow for decoders whose mapping can drop input (xml: comments, processing
    /// instructions, mixed content order); the fallbacks go to `report` when it is set.
    bool lossy = false;
    lossy_report* report = nullptr;
};

struct encode_options : common_options {
    bool pretty = false;  ///< indentation for text formats
    bool lossy = false;   ///< lossy=allow: take documented fallbacks instead of failing
    /// plist: binary=true writes the binary form (bplist00) instead of XML; the media type
    /// application/x-bplist sets it (docs/formats/plist.md).
    bool plist_binary = false;
    /// Where fallbacks are recorded when `lossy` is set; may be null.
    lossy_report* report = nullptr;
};

}  // namespace polycodec
