#include "polycodec/media_type.hpp"

#include <algorithm>
#include <charconv>

#include "detail/ascii.hpp"
#include "detail/try.hpp"

namespace polycodec {
namespace {

using detail::iequals;
using detail::to_lower;
using detail::trim;

bool is_tchar(char c) {
    return detail::is_alpha(c) || detail::is_digit(c) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
    std::string r(s);
    for (char& c : r) {
        c = to_lower(c);
    }
    return r;
}

bool is_token(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar);
}

// Parses "; a=b; c="d e"" after a media range into `params`. False on bad syntax.
bool parse_params(std::string_view rest, std::vector<std::pair<std::string, std::string>>& params) {
    while (true) {
        rest = trim(rest);
        if (rest.empty()) {
            return true;
        }
        if (rest.front() != ';') {
            return false;
        }
        rest.remove_prefix(1);
        rest = trim(rest);
        if (rest.empty()) {
            return true;  // a trailing ';' is tolerated
        }
        auto eq = rest.find('=');
        if (eq == std::string_view::npos) {
            return false;
        }
        std::string_view name = trim(rest.substr(0, eq));
        if (!is_token(name)) {
            return false;
        }
        rest = trim(rest.substr(eq + 1));
        std::string val;
        if (!rest.empty() && rest.front() == '"') {
            std::size_t i = 1;
            bool closed = false;
            for (; i < rest.size(); ++i) {
                if (rest[i] == '\\' && i + 1 < rest.size()) {
                    val += rest[++i];
                } else if (rest[i] == '"') {
                    closed = true;
                    break;
                } else {
                    val += rest[i];
                }
            }
            if (!closed) {
                return false;
            }
            rest.remove_prefix(i + 1);
        } else {
            auto end = rest.find(';');
            std::string_view raw = trim(rest.substr(0, end));
            val = std::string(raw);
            rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
        }
        params.emplace_back(lower(name), std::move(val));
    }
}

result<bool> parse_bool(std::string_view name, std::string_view v) {
    if (v.empty() || iequals(v, "true") || v == "1" || iequals(v, "yes") || iequals(v, "on")) {
        return true;
    }
    if (iequals(v, "false") || v == "0" || iequals(v, "no") || iequals(v, "off")) {
        return false;
    }
    return fail(make_error(errc::invalid_option, std::string(name) + "=" + std::string(v) +
                                                     ": expected true or false"));
}

}  // namespace

std::optional<std::string_view> media_type::param(std::string_view name) const {
    for (const auto& [k, v] : params) {
        if (iequals(k, name)) {
            return std::string_view(v);
        }
    }
    return std::nullopt;
}

result<media_type> parse_media_type(std::string_view text) {
    text = trim(text);
    auto semi = text.find(';');
    std::string_view essence = trim(text.substr(0, semi));
    auto slash = essence.find('/');
    if (slash == std::string_view::npos) {
        return fail(make_error(errc::invalid_option,
                               "media type \"" + std::string(text) + "\" has no '/'"));
    }
    std::string_view type = essence.substr(0, slash);
    std::string_view subtype = essence.substr(slash + 1);
    if (!is_token(type) || !is_token(subtype)) {
        return fail(make_error(errc::invalid_option,
                               "media type \"" + std::string(text) + "\" is malformed"));
    }
    media_type m;
    m.type = lower(type);
    m.subtype = lower(subtype);
    if (semi != std::string_view::npos && !parse_params(text.substr(semi), m.params)) {
        return fail(make_error(errc::invalid_option, "media type \"" + std::string(text) +
                                                         "\" has malformed parameters"));
    }
    return m;
}

bool percent_decode(std::string_view in, std::string& out) {
    out.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '+') {
            out += ' ';
        } else if (c == '%') {
            if (i + 2 >= in.size()) {
                return false;
            }
            int v = 0;
            auto r = std::from_chars(in.data() + i + 1, in.data() + i + 3, v, 16);
            if (r.ec != std::errc() || r.ptr != in.data() + i + 3) {
                return false;
            }
            out += static_cast<char>(v);
            i += 2;
        } else {
            out += c;
        }
    }
    return true;
}

namespace {

// ---- the option table ----

constexpr std::string_view bool_values[] = {"true", "false", "1", "0", "yes", "no", "on", "off"};
constexpr std::string_view lossy_values[] = {"allow", "deny", "true", "false"};
constexpr std::string_view header_values[] = {"present", "absent"};
constexpr std::string_view charset_values[] = {"utf-8", "utf8"};
constexpr std::string_view extjson_values[] = {"relaxed", "canonical"};
constexpr std::string_view int_width_values[] = {"shortest", "keep"};

constexpr format_id csv_only[] = {format_id::csv};
constexpr format_id csv_properties[] = {format_id::csv, format_id::properties};
constexpr format_id yaml_only[] = {format_id::yaml};
constexpr format_id postcard_only[] = {format_id::postcard};
constexpr format_id schema_formats[] = {format_id::postcard, format_id::protobuf,
                                        format_id::avro, format_id::protojson};
constexpr format_id typed_schema_formats[] = {format_id::protobuf, format_id::avro,
                                              format_id::protojson};
constexpr format_id protojson_only[] = {format_id::protojson};
constexpr format_id avro_only[] = {format_id::avro};
constexpr format_id framed_formats[] = {format_id::avro, format_id::protobuf};
constexpr std::string_view framing_values[] = {"none", "single_object", "confluent"};
constexpr std::string_view avro_codec_values[] = {"null", "deflate", "zstandard", "snappy"};
constexpr format_id seq_formats[] = {format_id::json, format_id::cbor, format_id::msgpack};
constexpr format_id extjson_formats[] = {format_id::json, format_id::json5, format_id::hjson,
                                         format_id::yaml, format_id::ndjson};
constexpr format_id int_width_formats[] = {format_id::cbor, format_id::msgpack};
constexpr format_id plist_only[] = {format_id::plist};
constexpr format_id xml_only[] = {format_id::xml};
constexpr format_id infer_formats[] = {format_id::csv, format_id::xml,
                                       format_id::properties};
constexpr std::string_view namespaces_values[] = {"prefix", "expand"};

result<void> set_flag(std::string_view name, std::string_view value, bool& target) {
    auto b = parse_bool(name, value);
    if (!b) {
        return fail(b.error());
    }
    target = *b;
    return {};
}

// One of two values (case-insensitive): true for `first`, false for `second`; anything else
// fails as "NAME=V: expected FIRST or SECOND".
result<bool> one_of_two(std::string_view name, std::string_view value, std::string_view first,
                        std::string_view second) {
    if (iequals(value, first)) {
        return true;
    }
    if (iequals(value, second)) {
        return false;
    }
    return fail(make_error(errc::invalid_option, std::string(name) + "=" + std::string(value) +
                                                     ": expected " + std::string(first) + " or " +
                                                     std::string(second)));
}

// A flag that the decoder and the encoder both read (canonical, multi, seq).
result<void> set_flags(std::string_view name, std::string_view value, bool& decode, bool& encode) {
    auto r = set_flag(name, value, decode);
    encode = decode;
    return r;
}

result<void> set_format(std::string_view value, const format_info*& target,
                        transcode_options& opt) {
    const format_info* f = find_format_by_name(value);
    if (f == nullptr) {
        auto mt = resolve_format_spec(value, opt);
        if (!mt) {
            return fail(mt.error());
        }
        f = *mt;
    }
    target = f;
    return {};
}

constexpr option_info option_rows[] = {
    {"from", option_kind::format, {}, "", {},
     "the input format (a name, a media type or NAME;param=value); wins over Content-Type",
     [](std::string_view v, transcode_options& o) { return set_format(v, o.from, o); }},
    {"to", option_kind::format, {}, "", {},
     "the output format (a name, a media type or NAME;param=value); wins over Accept",
     [](std::string_view v, transcode_options& o) { return set_format(v, o.to, o); }},
    {"pretty", option_kind::boolean, bool_values, "false", {},
     "indent the output (text formats)",
     [](std::string_view v, transcode_options& o) { return set_flag("pretty", v, o.encode.pretty); }},
    {"lossy", option_kind::choice, lossy_values, "deny", {},
     "allow: take the documented fallbacks (listed in Polycodec-Lossy) instead of failing 422",
     [](std::string_view v, transcode_options& o) -> result<void> {
         if (iequals(v, "allow")) {
             o.encode.lossy = o.decode.lossy = true;
             return {};
         }
         if (iequals(v, "deny")) {
             o.encode.lossy = o.decode.lossy = false;
             return {};
         }
         return set_flags("lossy", v, o.decode.lossy, o.encode.lossy);
     }},
    {"canonical", option_kind::boolean, bool_values, "false", {},
     "deterministic encodings (sorted map keys, CBOR section 4.2, bencode order) and strict "
     "decoding",
     [](std::string_view v, transcode_options& o) {
         return set_flags("canonical", v, o.decode.canonical, o.encode.canonical);
     }},
    {"multi", option_kind::boolean, bool_values, "false", yaml_only,
     "a YAML stream of several documents reads as an array and an array writes as documents",
     [](std::string_view v, transcode_options& o) {
         return set_flags("multi", v, o.decode.multi, o.encode.multi);
     }},
    {"stream", option_kind::boolean, bool_values, "false", {},
     "convert record by record in bounded memory; the answer is chunked (record formats only)",
     [](std::string_view v, transcode_options& o) { return set_flag("stream", v, o.stream); }},
    {"seq", option_kind::boolean, bool_values, "false", seq_formats,
     "record sequences: json as RFC 7464 json-seq, cbor as an RFC 8742 sequence, msgpack as "
     "concatenated values",
     [](std::string_view v, transcode_options& o) {
         return set_flags("seq", v, o.decode.seq, o.encode.seq);
     }},
    {"header", option_kind::choice, header_values, "present", csv_only,
     "whether the first CSV row is a header",
     [](std::string_view v, transcode_options& o) -> result<void> {
         POLYCODEC_TRY_ASSIGN(present, one_of_two("header", v, "present", "absent"));
         o.decode.csv_header = o.encode.csv_header = present;
         return {};
     }},
    {"delimiter", option_kind::character, {}, ",", csv_only,
     "the CSV field delimiter: one character, or tab",
     [](std::string_view v, transcode_options& o) -> result<void> {
         char d;
         if (v.size() == 1) {
             d = v[0];
         } else if (iequals(v, "tab") || v == "\\t") {
             d = '\t';
         } else {
             return fail(make_error(errc::invalid_option,
                                    "delimiter=" + std::string(v) +
                                        ": expected one character (or \"tab\")"));
         }
         if (d == '"' || d == '\r' || d == '\n') {
             return fail(make_error(errc::invalid_option,
                                    "delimiter cannot be a quote or a line break"));
         }
         o.decode.csv_delimiter = o.encode.csv_delimiter = d;
         return {};
     }},
    {"infer", option_kind::boolean, bool_values, "false", infer_formats,
     "type CSV fields (numbers, booleans, empty fields as null), XML text and properties values "
     "(numbers, booleans)",
     [](std::string_view v, transcode_options& o) { return set_flag("infer", v, o.decode.infer); }},
    {"unflatten", option_kind::boolean, bool_values, "false", csv_properties,
     "dotted CSV column names and properties keys (a.b) become nested maps (a.0, a.1: arrays)",
     [](std::string_view v, transcode_options& o) {
         return set_flag("unflatten", v, o.decode.unflatten);
     }},
    {"strict", option_kind::boolean, bool_values, "true", csv_only,
     "RFC 4180 quoting; false reads a quote inside an unquoted field and text after a closing "
     "quote as Python's csv reader does",
     [](std::string_view v, transcode_options& o) {
         return set_flag("strict", v, o.decode.strict);
     }},
    {"extjson", option_kind::choice, extjson_values, "relaxed", extjson_formats,
     "MongoDB Extended JSON v2 mode: canonical writes ints, floats, dates and BSON's types as "
     "$numberInt/$numberLong/$numberDouble/$date objects and reads them back",
     [](std::string_view v, transcode_options& o) -> result<void> {
         POLYCODEC_TRY_ASSIGN(canonical, one_of_two("extjson", v, "canonical", "relaxed"));
         o.decode.extjson = o.encode.extjson =
             canonical ? extjson_mode::canonical : extjson_mode::relaxed;
         return {};
     }},
    {"int_width", option_kind::choice, int_width_values, "shortest", int_width_formats,
     "keep: CBOR and MessagePack record each integer's encoded width and write integers at "
     "their width hint (BSON int32 vs int64)",
     [](std::string_view v, transcode_options& o) -> result<void> {
         POLYCODEC_TRY_ASSIGN(keep, one_of_two("int_width", v, "keep", "shortest"));
         o.decode.keep_int_width = o.encode.keep_int_width = keep;
         return {};
     }},
    {"binary", option_kind::boolean, bool_values, "false", plist_only,
     "plist output: the binary form (bplist00) instead of XML; the media type "
     "application/x-bplist sets it (input of either form is detected by its magic)",
     [](std::string_view v, transcode_options& o) {
         return set_flag("binary", v, o.encode.plist_binary);
     }},
    {"schema", option_kind::name, {}, "", schema_formats,
     "the postcard, protobuf or avro schema to read or write with, by name (a file of --schema-dir)",
     [](std::string_view v, transcode_options& o) -> result<void> {
         o.decode.schema_name = o.encode.schema_name = std::string(v);
         return {};
     }},
    {"ordered", option_kind::boolean, bool_values, "false", xml_only,
     "XML as the lossless JsonML-style form [\"tag\", {\"@attr\": ...}, child, \"text\", ...] "
     "keeping mixed content, comments and processing instructions in order",
     [](std::string_view v, transcode_options& o) {
         return set_flags("ordered", v, o.decode.xml.ordered, o.encode.xml.ordered);
     }},
    {"force_list", option_kind::name, {}, "", xml_only,
     "comma-separated XML element names that always decode as arrays, even when single",
     [](std::string_view v, transcode_options& o) -> result<void> {
         std::vector<std::string> names;
         while (!v.empty()) {
             auto comma = v.find(',');
             std::string_view n = trim(v.substr(0, comma));
             if (!n.empty()) {
                 names.emplace_back(n);
             }
             v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
         }
         o.decode.xml.force_list = names;
         o.encode.xml.force_list = std::move(names);
         return {};
     }},
    {"attr_prefix", option_kind::name, {}, "@", xml_only,
     "the prefix of XML attribute keys (may be empty)",
     [](std::string_view v, transcode_options& o) -> result<void> {
         o.decode.xml.attr_prefix = o.encode.xml.attr_prefix = std::string(v);
         return {};
     }},
    {"text_key", option_kind::name, {}, "#text", xml_only,
     "the key of an XML element's text beside its attributes or children",
     [](std::string_view v, transcode_options& o) -> result<void> {
         if (v.empty()) {
             return fail(make_error(errc::invalid_option, "text_key cannot be empty"));
         }
         o.decode.xml.text_key = o.encode.xml.text_key = std::string(v);
         return {};
     }},
    {"namespaces", option_kind::choice, namespaces_values, "prefix", xml_only,
     "XML names as written with their prefixes, or expand: {uri}local as ElementTree writes them",
     [](std::string_view v, transcode_options& o) -> result<void> {
         POLYCODEC_TRY_ASSIGN(prefix, one_of_two("namespaces", v, "prefix", "expand"));
         o.decode.xml.expand_namespaces = o.encode.xml.expand_namespaces = !prefix;
         return {};
     }},
    {"root", option_kind::name, {}, "", xml_only,
     "the XML root element's name: wraps a document that is not a map with one key",
     [](std::string_view v, transcode_options& o) -> result<void> {
         o.decode.xml.root = o.encode.xml.root = std::string(v);
         return {};
     }},
    {"type", option_kind::name, {}, "", typed_schema_formats,
     "the named type of the schema to use: protobuf's message (pkg.Message), avro's record "
     "(full or short name); needed when the schema's file defines several",
     [](std::string_view v, transcode_options& o) -> result<void> {
         o.decode.type_name = o.encode.type_name = std::string(v);
         return {};
     }},
    {"preserve_proto_field_names", option_kind::boolean, bool_values, "false", protojson_only,
     "protojson output: keys are the .proto field names instead of lowerCamelCase json_name",
     [](std::string_view v, transcode_options& o) {
         return set_flags("preserve_proto_field_names", v,
                          o.decode.protojson.preserve_proto_field_names,
                          o.encode.protojson.preserve_proto_field_names);
     }},
    {"always_print_primitive_fields", option_kind::boolean, bool_values, "false", protojson_only,
     "protojson output: fields without presence (proto3 scalars, repeated, maps) are written "
     "at their default (0, \"\", false, [], {}) when unset",
     [](std::string_view v, transcode_options& o) {
         return set_flags("always_print_primitive_fields", v,
                          o.decode.protojson.always_print_primitive_fields,
                          o.encode.protojson.always_print_primitive_fields);
     }},
    {"enums_as_ints", option_kind::boolean, bool_values, "false", protojson_only,
     "protojson output: enum values as their numbers instead of their names",
     [](std::string_view v, transcode_options& o) {
         return set_flags("enums_as_ints", v, o.decode.protojson.enums_as_ints,
                          o.encode.protojson.enums_as_ints);
     }},
    {"ignore_unknown_fields", option_kind::boolean, bool_values, "false", protojson_only,
     "protojson input: keys that name no field, and enum names the enum does not define, are "
     "dropped instead of refused",
     [](std::string_view v, transcode_options& o) {
         return set_flags("ignore_unknown_fields", v, o.decode.protojson.ignore_unknown_fields,
                          o.encode.protojson.ignore_unknown_fields);
     }},
    {"reader_schema", option_kind::name, {}, "", avro_only,
     "avro: resolve the writer's schema to this reader's schema (a file of --schema-dir)",
     [](std::string_view v, transcode_options& o) -> result<void> {
         o.decode.reader_schema_name = std::string(v);
         return {};
     }},
    {"container", option_kind::boolean, bool_values, "true", avro_only,
     "avro: an Object Container File (true) or a bare datum that needs schema= (false)",
     [](std::string_view v, transcode_options& o) {
         return set_flags("container", v, o.decode.avro_container, o.encode.avro_container);
     }},
    {"framing", option_kind::choice, framing_values, "none", framed_formats,
     "avro: a bare datum framed by single-object encoding (C3 01 + fingerprint) or Confluent's "
     "wire format (00 + schema id); protobuf: confluent only (00 + schema id + message indexes, "
     "which name the message type)",
     [](std::string_view v, transcode_options& o) -> result<void> {
         avro_framing f;
         if (iequals(v, "none")) {
             f = avro_framing::none;
         } else if (iequals(v, "single_object") || iequals(v, "single-object")) {
             f = avro_framing::single_object;
         } else if (iequals(v, "confluent")) {
             f = avro_framing::confluent;
         } else {
             return fail(make_error(errc::invalid_option,
                                    "framing=" + std::string(v) +
                                        ": expected none, single_object or confluent"));
         }
         o.decode.framing = o.encode.framing = f;
         return {};
     }},
    {"schema_id", option_kind::name, {}, "0", framed_formats,
     "avro and protobuf framing=confluent: the schema id to write (and to expect on input when "
     "not 0)",
     [](std::string_view v, transcode_options& o) -> result<void> {
         std::uint32_t id = 0;
         auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), id);
         if (ec != std::errc() || end != v.data() + v.size()) {
             return fail(make_error(errc::invalid_option,
                                    "schema_id=" + std::string(v) +
                                        ": expected an unsigned 32-bit integer"));
         }
         o.decode.avro_schema_id = o.encode.avro_schema_id = id;
         return {};
     }},
    {"avro_json", option_kind::boolean, bool_values, "false", avro_only,
     "avro: the Avro JSON encoding (unions as {\"type\": value}) instead of binary",
     [](std::string_view v, transcode_options& o) {
         return set_flags("avro_json", v, o.decode.avro_json, o.encode.avro_json);
     }},
    {"codec", option_kind::choice, avro_codec_values, "null", avro_only,
     "avro: the compression of container blocks on output",
     [](std::string_view v, transcode_options& o) -> result<void> {
         for (std::string_view c : avro_codec_values) {
             if (iequals(v, c)) {
                 o.encode.avro_codec = std::string(c);
                 return {};
             }
         }
         return fail(make_error(errc::invalid_option,
                                "codec=" + std::string(v) +
                                    ": expected null, deflate, zstandard or snappy"));
     }},
    {"charset", option_kind::choice, charset_values, "utf-8", {},
     "the character set of a text format; only UTF-8 is supported",
     [](std::string_view v, transcode_options&) -> result<void> {
         if (!iequals(v, "utf-8") && !iequals(v, "utf8")) {
             return fail(make_error(errc::invalid_option,
                                    "charset=" + std::string(v) + ": only utf-8 is supported"));
         }
         return {};
     }},
};

}  // namespace

std::span<const option_info> option_table() noexcept { return option_rows; }

const option_info* find_option(std::string_view name) noexcept {
    for (const option_info& o : option_rows) {
        if (iequals(o.name, name)) {
            return &o;
        }
    }
    return nullptr;
}

result<void> apply_option(std::string_view name, std::string_view value, transcode_options& opt) {
    const option_info* o = find_option(name);
    if (o == nullptr) {
        return fail(
            make_error(errc::invalid_option, "unknown option \"" + std::string(name) + "\""));
    }
    opt.given.emplace_back(o->name);
    return o->apply(value, opt);
}

result<void> apply_query(std::string_view query, transcode_options& opt) {
    return apply_query(query, opt, nullptr);
}

result<void> apply_query(
    std::string_view query, transcode_options& opt,
    const std::function<bool(std::string_view key, std::string_view value)>& take) {
    std::string key;
    std::string val;
    while (!query.empty()) {
        auto amp = query.find('&');
        std::string_view part = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        if (part.empty()) {
            continue;
        }
        auto eq = part.find('=');
        if (!percent_decode(part.substr(0, eq), key) ||
            !percent_decode(eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1),
                            val)) {
            return fail(make_error(errc::invalid_option,
                                   "bad percent-encoding in \"" + std::string(part) + "\""));
        }
        if (take && take(key, val)) {
            continue;
        }
        if (auto r = apply_option(key, val, opt); !r) {
            return r;
        }
    }
    return {};
}

namespace {
constexpr sequence_media_type sequence_rows[] = {
    {"application/json-seq", format_id::json},
    {"application/cbor-seq", format_id::cbor},
};
}  // namespace

std::span<const sequence_media_type> sequence_media_types() noexcept { return sequence_rows; }

result<const format_info*> resolve_format_spec(std::string_view spec, transcode_options& opt) {
    spec = trim(spec);
    auto semi = spec.find(';');
    std::string_view head = trim(spec.substr(0, semi));
    const format_info* f = nullptr;
    std::vector<std::pair<std::string, std::string>> params;
    if (head.find('/') != std::string_view::npos) {
        auto m = parse_media_type(spec);
        if (!m) {
            return fail(m.error());
        }
        f = find_format_by_media_type(m->essence());
        params = std::move(m->params);
        // Record sequences of stream mode (DESIGN section 12): RFC 7464 and RFC 8742.
        for (const sequence_media_type& sm : sequence_media_types()) {
            if (f == nullptr && m->essence() == sm.type) {
                f = find_format(sm.format);
                opt.decode.seq = opt.encode.seq = true;
            }
        }
        // application/json;profile=protojson names protojson (DESIGN section 14).
        if (f != nullptr && f->id == format_id::json) {
            for (auto it = params.begin(); it != params.end(); ++it) {
                if (it->first == "profile" && iequals(it->second, "protojson")) {
                    f = find_format(format_id::protojson);
                    params.erase(it);
                    break;
                }
            }
        }
        if (f != nullptr && m->essence() == "text/tab-separated-values") {
            opt.decode.csv_tab = opt.encode.csv_tab = true;
        }
        if (f != nullptr && m->essence() == "application/x-bplist") {
            opt.encode.plist_binary = true;  // the binary plist's own media type
        }
        if (f != nullptr && (m->essence() == "avro/binary" ||
                             m->essence() == "application/vnd.apache.avro+binary")) {
            opt.decode.avro_container = opt.encode.avro_container = false;
        }
    } else {
        f = find_format_by_name(head);
        if (f == nullptr) {
            f = find_format_by_extension(head);
        }
        if (semi != std::string_view::npos && !parse_params(spec.substr(semi), params)) {
            return fail(make_error(errc::invalid_option,
                                   "malformed parameters in \"" + std::string(spec) + "\""));
        }
        if (f != nullptr && (iequals(head, "tsv") || iequals(head, ".tsv"))) {
            opt.decode.csv_tab = opt.encode.csv_tab = true;
        }
    }
    if (f == nullptr) {
        return fail(make_error(errc::unsupported_format,
                               "unknown format \"" + std::string(head) + "\""));
    }
    for (const auto& [k, v] : params) {
        if (auto r = apply_option(k, v, opt); !r) {
            return fail(r.error());
        }
    }
    return f;
}

std::vector<accept_range> parse_accept(std::string_view header) {
    std::vector<accept_range> out;
    while (!header.empty()) {
        // Split on commas outside quotes.
        std::size_t i = 0;
        bool quoted = false;
        for (; i < header.size(); ++i) {
            if (header[i] == '"') {
                quoted = !quoted;
            } else if (header[i] == ',' && !quoted) {
                break;
            }
        }
        std::string_view item = trim(header.substr(0, i));
        header = i < header.size() ? header.substr(i + 1) : std::string_view{};
        if (item.empty()) {
            continue;
        }
        auto semi = item.find(';');
        std::string_view essence = trim(item.substr(0, semi));
        auto slash = essence.find('/');
        if (slash == std::string_view::npos) {
            continue;
        }
        std::string_view t = essence.substr(0, slash);
        std::string_view s = essence.substr(slash + 1);
        if (!is_token(t) || !is_token(s) || (t == "*" && s != "*")) {
            continue;
        }
        accept_range r;
        r.type = lower(t);
        r.subtype = lower(s);
        std::vector<std::pair<std::string, std::string>> params;
        if (semi != std::string_view::npos && !parse_params(item.substr(semi), params)) {
            continue;
        }
        bool bad = false;
        for (auto& [k, v] : params) {
            if (k == "q") {
                double q = 0;
                auto res = std::from_chars(v.data(), v.data() + v.size(), q);
                if (res.ec != std::errc() || res.ptr != v.data() + v.size() || q < 0 || q > 1) {
                    bad = true;
                }
                r.q = q;
                break;  // parameters after q are accept-extensions
            }
            r.params.emplace_back(k, v);
        }
        if (!bad) {
            out.push_back(std::move(r));
        }
    }
    return out;
}

negotiation negotiate(std::string_view accept, const format_info& fallback,
                      bool (*usable)(const format_info&)) {
    negotiation result;
    auto ok = [&](const format_info& f) { return usable == nullptr || usable(f); };
    if (trim(accept).empty()) {
        if (ok(fallback)) {
            result.format = &fallback;
        }
        return result;
    }
    std::vector<accept_range> ranges = parse_accept(accept);
    // For each format: the q of the most specific range matching any of its media types.
    double best_q = 0;
    int best_spec = -1;
    const format_info* best = nullptr;
    std::vector<std::pair<std::string, std::string>> best_params;
    for (const format_info& f : formats()) {
        if (!ok(f)) {
            continue;
        }
        int f_spec = -1;
        double f_q = 0;
        std::vector<std::pair<std::string, std::string>> f_params;
        for (std::string_view mt : f.media_types) {
            auto slash = mt.find('/');
            std::string_view t = mt.substr(0, slash);
            std::string_view s = mt.substr(slash + 1);
            for (const accept_range& r : ranges) {
                int spec;
                // application/json;profile=protojson names protojson, not json.
                bool pj_profile = false;
                for (const auto& [k, v] : r.params) {
                    pj_profile = pj_profile || (k == "profile" && iequals(v, "protojson"));
                }
                if (pj_profile && f.id == format_id::json) {
                    continue;
                }
                if (pj_profile && f.id == format_id::protojson && r.type == "application" &&
                    r.subtype == "json") {
                    if (3 > f_spec) {
                        f_spec = 3;
                        f_q = r.q;
                        f_params.clear();
                        for (const auto& [k, v] : r.params) {
                            if (k != "profile") {
                                f_params.emplace_back(k, v);
                            }
                        }
                    }
                    continue;
                }
                if (r.type == "*") {
                    spec = 0;
                } else if (r.type != t) {
                    continue;
                } else if (r.subtype == "*") {
                    spec = 1;
                } else if (r.subtype == s ||
                           (f.id == format_id::json && r.subtype.size() > 5 &&
                            r.subtype.compare(r.subtype.size() - 5, 5, "+json") == 0)) {
                    spec = r.params.empty() ? 2 : 3;
                } else {
                    continue;
                }
                if (spec > f_spec) {
                    f_spec = spec;
                    f_q = r.q;
                    f_params = r.params;
                    if (spec >= 2 && f.id == format_id::plist) {
                        // The plist form follows the media type asked for.
                        f_params.emplace_back("binary",
                                              mt == "application/x-bplist" ? "true" : "false");
                    }
                    // avro/binary names avro's bare datum (DESIGN section 14).
                    if (spec >= 2 && f.id == format_id::avro && mt != f.media_types.front()) {
                        f_params.emplace_back("container", "false");
                    }
                }
            }
        }
        if (f_spec < 0 || f_q <= 0) {
            continue;
        }
        // Wildcards prefer the input's format: "*/*" alone answers in the format that came in.
        bool is_fallback = &f == &fallback;
        if (f_q > best_q || (f_q == best_q && f_spec > best_spec) ||
            (f_q == best_q && f_spec == best_spec && is_fallback)) {
            best_q = f_q;
            best_spec = f_spec;
            best = &f;
            best_params = std::move(f_params);
        }
    }
    result.format = best;
    result.params = std::move(best_params);
    return result;
}

}  // namespace polycodec
