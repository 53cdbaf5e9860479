// libFuzzer target for one format's decoder (POLYCODEC_FUZZ_FORMAT_NAME is its canonical name,
// looked up in the format table), with the round-trip property: whatever decodes, re-encodes
// in the same format and decodes again to the same Document.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "polycodec/formats/avro.hpp"
#include "polycodec/formats/postcard.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "polycodec/polycodec.hpp"

namespace {

// The id comes from the table row of the target's name; a name outside the table stops the
// target at its first input instead of fuzzing another format.
polycodec::format_id fuzzed_format() {
    const polycodec::format_info* row = polycodec::find_format_by_name(POLYCODEC_FUZZ_FORMAT_NAME);
    if (row == nullptr) {
        std::abort();
    }
    return row->id;
}

[[noreturn]] void property_failed() { std::abort(); }

// A map below the root that Extended JSON could mistake for one of its objects (one or two
// entries, the first key starting with '$'): BSON -> JSON -> BSON turns such a document into
// that type, the ambiguity docs/formats/bson.md documents. Also a double NaN with a sign or
// payload, which comes back as the quiet NaN (found by this target).
bool has_extjson_lookalike(polycodec::value v, bool root) {
    using polycodec::kind;
    if (v.kind() == kind::tagged) {
        return has_extjson_lookalike(v.tagged_value(), false);
    }
    if (v.kind() == kind::map && !root && v.size() >= 1 && v.size() <= 2) {
        polycodec::value k = (*v.entries().begin()).key;
        if (k.kind() == kind::string && !k.get_string().empty() && k.get_string()[0] == '$') {
            return true;
        }
    }
    if (v.kind() == kind::float64 && v.get_double() != v.get_double() &&
        v.get_uint() != 0x7ff8000000000000ULL) {
        return true;  // a NaN other than the quiet one: Extended JSON spells one NaN
    }
    if (v.is_container()) {
        for (polycodec::value c : v.items()) {
            if (has_extjson_lookalike(c, false)) {
                return true;
            }
        }
    }
    return false;
}

bool has_null(polycodec::value v) {
    if (v.kind() == polycodec::kind::null) {
        return true;
    }
    if (v.is_container()) {
        for (polycodec::value c : v.items()) {
            if (has_null(c)) {
                return true;
            }
        }
    }
    return false;
}

// The schema-driven formats decode with a fixture schema: the file at PATH, read whole and
// given to PARSE (parse_schema or parse_descriptor_set); a file that does not parse stops the
// target.
template <class Schema>
std::shared_ptr<const Schema> load_fixture_schema(
    const char* path, polycodec::result<std::shared_ptr<const Schema>> (*parse)(std::string_view)) {
    std::ifstream f(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto s = parse(text);
    if (!s) {
        std::abort();
    }
    return *s;
}

// postcard is not self-describing: its target decodes with the records fixture's schema.
std::shared_ptr<const polycodec::postcard::schema> fixture_schema() {
    return load_fixture_schema(POLYCODEC_FUZZ_SCHEMA_FILE, &polycodec::postcard::parse_schema);
}

// avro: a bare datum decodes with the records fixture's .avsc (container=false); an input
// starting with the container magic decodes as an Object Container File with its own schema.
std::shared_ptr<const polycodec::avro::schema> fixture_avro_schema() {
    return load_fixture_schema(POLYCODEC_FUZZ_AVRO_SCHEMA_FILE, &polycodec::avro::parse_schema);
}

// protobuf needs one too: the conformance suite's TestAllTypesProto2/3 (every field kind, the
// well-known types, groups, recursion), compiled with protoc into protobuf_conformance.binpb.
std::shared_ptr<const polycodec::protobuf::schema> protobuf_fixture_schema() {
    return load_fixture_schema(POLYCODEC_FUZZ_PROTOBUF_SCHEMA_FILE,
                               &polycodec::protobuf::parse_descriptor_set);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace polycodec;
    static const format_id fuzzed = fuzzed_format();
    static document doc;
    static document again;
    static output_buffer out;
    std::string_view in(reinterpret_cast<const char*>(data), size);
    static const auto schema =
        fuzzed == format_id::postcard ? fixture_schema() : std::shared_ptr<const postcard::schema>();
    static const auto pb_schema = fuzzed == format_id::protobuf || fuzzed == format_id::protojson
                                      ? protobuf_fixture_schema()
                                      : std::shared_ptr<const protobuf::schema>();
    static const auto avro_schema = fuzzed == format_id::avro
                                        ? fixture_avro_schema()
                                        : std::shared_ptr<const avro::schema>();
    decode_options opt;
    opt.limits.max_bytes = std::size_t{64} << 20;
    opt.schema = schema;
    opt.protobuf_schema = pb_schema;
    if (fuzzed == format_id::avro) {
        opt.avro_schema = avro_schema;
        opt.avro_container = in.substr(0, 4) == std::string_view("Obj\x01", 4);
        if (opt.avro_container) {
            // The container's schema is its own: decoding must not crash, hang or over-read;
            // there is no schema to write it back with.
            (void)decode(fuzzed, in, doc, opt);
            return 0;
        }
    }
    // The last byte also picks the options whose paths differ: CSV's strict=false reading
    // and MessagePack's canonical float widths (both must still round-trip).
    const unsigned pick = size > 0 ? data[size - 1] : 0;
    if (fuzzed == format_id::csv) {
        opt.strict = (pick & 1) == 0;
    }
    if (fuzzed == format_id::xml) {
        // XML: the xmltodict mapping or the ordered (JsonML-style) form, each read back by
        // the encoder of the same mapping.
        opt.xml.ordered = (pick & 1) != 0;
    }
    if (fuzzed == format_id::protobuf || fuzzed == format_id::protojson) {
        opt.type_name = (pick & 1) != 0 ? "protobuf_test_messages.proto2.TestAllTypesProto2"
                                        : "protobuf_test_messages.proto3.TestAllTypesProto3";
    }
    if (!decode(fuzzed, in, doc, opt)) {
        return 0;
    }
    out.clear();
    encode_options eo;
    eo.schema = schema;
    eo.avro_schema = avro_schema;
    eo.avro_container = opt.avro_container;
    eo.protobuf_schema = pb_schema;
    eo.type_name = opt.type_name;
    if (fuzzed == format_id::msgpack) {
        eo.canonical = (pick & 1) != 0;
    }
    // plist: written back in the form it came in (an XML plist cannot hold what only the
    // binary form has: fractions of a second, control characters).
    eo.plist_binary = fuzzed == format_id::plist && in.substr(0, 6) == "bplist";
    eo.xml = opt.xml;
    auto w = encode(fuzzed, doc, out, eo);
    if (!w && fuzzed == format_id::plist && has_null(doc.root())) {
        return 0;  // the binary null marker 0x00 reads (as plistlib's None) but is not written
    }
    if (!w) {
        // A decoded value must be representable in its own format.
        if (w.error().code == errc::unrepresentable) {
            property_failed();
        }
        return 0;
    }
    auto r = decode(fuzzed, out.view(), again, opt);
    if (!r) {
        property_failed();
    }
    if (fuzzed == format_id::bencode) {
        // bencode's encoder sorts dictionary keys (BEP 3), so an unsorted input comes back
        // sorted: the property is that the encoding is then stable.
        static output_buffer out2;
        out2.clear();
        if (!encode(fuzzed, again, out2, eo) || out2.view() != out.view()) {
            property_failed();
        }
        return 0;
    }
    if (!equal(doc, again)) {
        property_failed();
    }
    if (fuzzed == format_id::properties && (pick & 1) != 0) {
        // unflatten=true (and infer=true on bit 1): what the encoder writes of the nested,
        // typed values reads back the same with the same options.
        decode_options nest = opt;
        nest.unflatten = true;
        nest.infer = (pick & 2) != 0;
        if (decode(fuzzed, in, doc, nest)) {
            out.clear();
            if (encode(fuzzed, doc, out, eo) &&
                (!decode(fuzzed, out.view(), again, nest) || !equal(doc, again))) {
                property_failed();
            }
        }
        return 0;
    }
    if (fuzzed == format_id::bson) {
        // extjson=canonical (issue 19): BSON -> canonical Extended JSON -> BSON keeps every
        // byte whenever the JSON can be written (a decimal128 NaN payload cannot).
        static output_buffer json;
        static output_buffer back;
        json.clear();
        back.clear();
        encode_options canon;
        canon.extjson = extjson_mode::canonical;
        if (!has_extjson_lookalike(doc.root(), true) && encode(format_id::json, doc, json, canon)) {
            decode_options read = opt;
            read.extjson = extjson_mode::canonical;
            read.limits.max_depth += 4;  // {"$date": {"$numberLong": ...}} nests two deeper
            if (!decode(format_id::json, json.view(), again, read) ||
                !encode(format_id::bson, again, back) || back.view() != out.view()) {
                property_failed();
            }
        }
    }
    if (fuzzed == format_id::cbor || fuzzed == format_id::msgpack) {
        // int_width=keep (issue 19): widths read, written, read again give the same values, and
        // writing those again the same bytes (a width lost on the way would shorten a head).
        decode_options keep_in = opt;
        keep_in.keep_int_width = true;
        encode_options keep_out = eo;
        keep_out.keep_int_width = true;
        if (!decode(fuzzed, in, doc, keep_in)) {
            property_failed();  // the same input decoded without keep
        }
        out.clear();
        if (!encode(fuzzed, doc, out, keep_out)) {
            property_failed();
        }
        static output_buffer out2;
        out2.clear();
        if (!decode(fuzzed, out.view(), again, keep_in) || !equal(doc, again) ||
            !encode(fuzzed, again, out2, keep_out) || out2.view() != out.view()) {
            property_failed();
        }
    }
    if (fuzzed == format_id::json || fuzzed == format_id::json5 || fuzzed == format_id::hjson ||
        fuzzed == format_id::yaml || fuzzed == format_id::ndjson) {
        // Reading Extended JSON (extjson=canonical) and writing it canonically give the same
        // values back.
        decode_options read = opt;
        read.extjson = extjson_mode::canonical;
        if (!decode(fuzzed, in, doc, read)) {
            return 0;
        }
        encode_options canon;
        canon.extjson = extjson_mode::canonical;
        out.clear();
        if (!encode(fuzzed, doc, out, canon)) {
            return 0;
        }
        if (!decode(fuzzed, out.view(), again, read) || !equal(doc, again)) {
            property_failed();
        }
    }
    return 0;
}
