// Tests of the avro codec: the specification's encoding examples (UPSTREAM_SPEC.md "Binary
// Encoding"), the Parsing Canonical Form and CRC-64-AVRO fingerprints of the corpus's
// schema-tests.txt (cross-checked by Java's tests upstream), logical types worked out by
// hand, schema errors with their lines, and hostile inputs with their offsets.
#include "polycodec/formats/avro.hpp"

#include <fstream>
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::shared_ptr<const avro::schema> schema_of(const std::string& json) {
    return must_value(avro::parse_schema(json));
}

decode_options bare(const std::shared_ptr<const avro::schema>& s) {
    decode_options o;
    o.avro_schema = s;
    o.avro_container = false;
    return o;
}

encode_options bare_out(const std::shared_ptr<const avro::schema>& s) {
    encode_options o;
    o.avro_schema = s;
    o.avro_container = false;
    return o;
}

// The datum `bytes` of `schema` decodes to `json`, and `json` encodes to exactly `bytes`.
void both_ways(const std::string& schema, const std::string& bytes, const std::string& json) {
    auto s = schema_of(schema);
    ASSERT_TRUE(s);
    document d = test::must_decode(format_id::avro, bytes, bare(s));
    document want = test::must_decode(format_id::json, json);
    // Compared as JSON text: a timestamp's text is the JSON string's.
    EXPECT_EQ(test::must_encode(format_id::json, d), test::must_encode(format_id::json, want))
        << schema;
    EXPECT_EQ(to_hex(test::must_encode(format_id::avro, want, bare_out(s))), to_hex(bytes))
        << schema << " " << json;
}

// Specification "Primitive Types" / "Complex Types" encoding examples.
TEST(AvroSpec, EncodingExamples) {
    // long: 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03, 2 -> 04, -64 -> 7f, 64 -> 80 01.
    both_ways(R"("long")", hex("00"), "0");
    both_ways(R"("long")", hex("01"), "-1");
    both_ways(R"("long")", hex("02"), "1");
    both_ways(R"("long")", hex("03"), "-2");
    both_ways(R"("long")", hex("7f"), "-64");
    both_ways(R"("long")", hex("80 01"), "64");
    // "the string "foo" (three characters) is encoded as 06 66 6f 6f".
    both_ways(R"("string")", hex("06 66 6f 6f"), R"("foo")");
    // The record example {"a": 27, "b": "foo"}: 36 06 66 6f 6f.
    both_ways(R"({"type":"record","name":"test","fields":[{"name":"a","type":"long"},
                {"name":"b","type":"string"}]})",
              hex("36 06 66 6f 6f"), R"({"a":27,"b":"foo"})");
    // An array of longs [3, 27]: 04 06 36 00.
    both_ways(R"({"type":"array","items":"long"})", hex("04 06 36 00"), "[3,27]");
    // ["null","string"]: null is 00, "a" is 02 02 61.
    both_ways(R"(["null","string"])", hex("00"), "null");
    both_ways(R"(["null","string"])", hex("02 02 61"), R"("a")");
    both_ways(R"("boolean")", hex("01"), "true");
    both_ways(R"("double")", hex("00 00 00 00 00 00 f8 3f"), "1.5");
    both_ways(R"("float")", hex("00 00 c0 3f"), "1.5");
    both_ways(R"({"type":"map","values":"int"})", hex("02 02 6b 0e 00"), R"({"k":7})");
    both_ways(R"({"type":"enum","name":"E","symbols":["A","B"]})", hex("02"), R"("B")");
}

// "If a block's count is negative, its absolute value is used, and the count is followed
// immediately by a long block size".
TEST(AvroSpec, NegativeBlockCountsWithSizes) {
    auto s = schema_of(R"({"type":"array","items":"long"})");
    document d = test::must_decode(format_id::avro, hex("03 04 06 36 02 02 00"), bare(s));
    EXPECT_EQ(dbg(d), "[3,27,1]");
}

TEST(AvroLogical, ValuesWorkedOutByHand) {
    // -12345 is cf c7 in two's complement: -123.45 at scale 2.
    both_ways(R"({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})",
              hex("04 cf c7"), R"("-123.45")");
    both_ways(R"({"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":9,
                 "scale":3})",
              hex("00 00 00 05"), R"("0.005")");
    // 19782 days after 1970-01-01 is 2024-02-29; zigzag 39564 = 8c b5 02.
    both_ways(R"({"type":"int","logicalType":"date"})", hex("8c b5 02"), R"("2024-02-29")");
    // 3723004 ms = 01:02:03.004.
    both_ways(R"({"type":"int","logicalType":"time-millis"})", hex("f8 bb c6 03"),
              R"("01:02:03.004")");
    // -1 ms is 1969-12-31T23:59:59.999Z.
    both_ways(R"({"type":"long","logicalType":"timestamp-millis"})", hex("01"),
              R"("1969-12-31T23:59:59.999Z")");
    both_ways(R"({"type":"long","logicalType":"local-timestamp-micros"})", hex("02"),
              R"("1970-01-01T00:00:00.000001")");
    both_ways(R"({"type":"fixed","name":"U","size":16,"logicalType":"uuid"})",
              hex("00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff"),
              R"("00112233-4455-6677-8899-aabbccddeeff")");
    both_ways(R"({"type":"fixed","name":"D","size":12,"logicalType":"duration"})",
              hex("01 00 00 00 02 00 00 00 03 00 00 00"),
              R"({"months":1,"days":2,"milliseconds":3})");
    // An invalid logical type (decimal on an int) is ignored: the int itself.
    both_ways(R"({"type":"int","logicalType":"decimal","precision":2})", hex("04"), "2");
}

TEST(AvroLogical, DecodesToTimestampKinds) {
    auto s = schema_of(R"({"type":"long","logicalType":"timestamp-micros"})");
    document d = test::must_decode(format_id::avro, hex("00"), bare(s));
    ASSERT_EQ(d.root().kind(), kind::timestamp);
    EXPECT_EQ(d.root().get_timestamp_kind(), timestamp_kind::offset_date_time);
    EXPECT_EQ(d.root().get_string(), "1970-01-01T00:00:00.000000Z");
}

// ../shared/corpus/avro/share/test/data/schema-tests.txt: <<INPUT, <<canonical and
// <<fingerprint (a signed 64-bit decimal) per case.
TEST(AvroSchema, CanonicalFormAndFingerprintsOfTheCorpus) {
    POLYCODEC_REQUIRE_CORPUS("avro/share/test/data/schema-tests.txt", path);
    std::ifstream f(path);
    std::string line, input, canonical;
    int checked = 0;
    auto take = [](const std::string& l, const char* tag, std::string& out) {
        std::string t = std::string("<<") + tag + " ";
        if (l.rfind(t, 0) == 0) {
            out = l.substr(t.size());
            return true;
        }
        return false;
    };
    std::string fp;
    while (std::getline(f, line)) {
        if (line.rfind("<<INPUT", 0) == 0 && line.find("<<INPUT ") != 0) {
            // A multi-line input: <<INPUT followed by lines up to INPUT.
            input.clear();
            std::string l;
            while (std::getline(f, l) && l != "INPUT") {
                input += l + "\n";
            }
            continue;
        }
        take(line, "INPUT", input);
        take(line, "canonical", canonical);
        if (take(line, "fingerprint", fp)) {
            auto s = avro::parse_schema(input);
            ASSERT_TRUE(s) << input << ": " << describe(s.error());
            EXPECT_EQ(avro::canonical_form(**s), canonical) << input;
            EXPECT_EQ(static_cast<std::int64_t>(avro::fingerprint(**s)), std::stoll(fp))
                << input;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 26);  // every case of the file
}

TEST(AvroSchema, ErrorsNameThePathAndLine) {
    auto s = avro::parse_schema("{\"type\": \"record\", \"name\": \"R\",\n \"fields\": [\n"
                                "  {\"name\": \"a\", \"type\": \"nope\"}]}");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, errc::invalid_option);
    EXPECT_EQ(s.error().line, 3u);
    EXPECT_NE(s.error().message.find("/fields/0/type"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("unknown type \"nope\""), std::string::npos);
    auto dup = avro::parse_schema(R"(["int", "int"])");
    ASSERT_FALSE(dup);
    auto bad_default = avro::parse_schema(
        R"({"type":"enum","name":"E","symbols":["A"],"default":"B"})");
    ASSERT_FALSE(bad_default);
    auto not_json = avro::parse_schema("{\n\"type\":");
    ASSERT_FALSE(not_json);
    EXPECT_EQ(not_json.error().line, 2u);
}

TEST(AvroSchema, NamedTypesAndTypeSelection) {
    auto s = schema_of(R"([{"type":"record","name":"A","namespace":"n","fields":[
        {"name":"x","type":"int"}]},{"type":"record","name":"B","namespace":"n","fields":[
        {"name":"a","type":"A"}]}])");
    ASSERT_TRUE(s);
    EXPECT_EQ(avro::type_names(*s), (std::vector<std::string>{"n.A", "n.B"}));
    decode_options o = bare(s);
    o.type_name = "n.B";
    EXPECT_EQ(dbg(test::must_decode(format_id::avro, hex("04"), o)), R"({"a":{"x":2}})");
    o.type_name = "A";  // the short name, when it is unique
    EXPECT_EQ(dbg(test::must_decode(format_id::avro, hex("04"), o)), R"({"x":2})");
    o.type_name = "C";
    EXPECT_EQ(test::decode_error(format_id::avro, hex("04"), o).code, errc::invalid_option);
}

struct bad_case {
    const char* schema;
    const char* bytes;
    errc code;
    std::uint64_t offset;
};

TEST(AvroDecode, HostileDatumsFailWithOffsets) {
    const bad_case cases[] = {
        {R"("string")", "06 66 6f", errc::size_exceeded, 0},   // length 3, two bytes left
        {R"("string")", "05", errc::malformed, 0},             // length -3
        {R"("string")", "02 ff", errc::invalid_utf8, 1},
        {R"(["null","int"])", "04", errc::malformed, 0},      // branch 2 of 2
        {R"({"type":"enum","name":"E","symbols":["A"]})", "02", errc::malformed, 0},
        {R"("long")", "ff ff ff ff ff ff ff ff ff ff 01", errc::invalid_number, 0},
        {R"("int")", "80 80 80 80 20", errc::invalid_number, 0},  // 2^32 > int range
        {R"("boolean")", "02", errc::malformed, 0},
        {R"("double")", "00 00 00", errc::unexpected_eof, 0},
        // A block of 2^62 longs in three bytes: refused before any allocation.
        {R"({"type":"array","items":"long"})", "80 80 80 80 80 80 80 80 80 01", errc::size_exceeded,
         0},
        // A block of 2^40 nulls (each zero bytes): capped.
        {R"({"type":"array","items":"null"})", "80 80 80 80 80 40", errc::size_exceeded, 0},
        {R"("int")", "02 00", errc::trailing_content, 1},
        {R"({"type":"fixed","name":"F","size":4})", "00 00", errc::unexpected_eof, 0},
    };
    for (const bad_case& c : cases) {
        auto s = schema_of(c.schema);
        error e = test::decode_error(format_id::avro, hex(c.bytes), bare(s));
        EXPECT_EQ(e.code, c.code) << c.schema << " " << c.bytes << ": " << describe(e);
        EXPECT_EQ(e.offset, c.offset) << c.schema << " " << c.bytes << ": " << describe(e);
    }
}

// The fast reader and writer (straight from and to the tape) at the edges of their shortcuts:
// one- and two-byte varints and the first three-byte one, strings around the 16-byte copy,
// non-ASCII text in it, fields out of order (the lookup), and errors that fall back to the
// full reader (values worked out by hand from the specification's zig-zag varints).
TEST(AvroFastPath, EdgesOfTheShortcuts) {
    // 63 -> 7e, 64 -> 80 01, 8191 -> fe 7f, -8192 -> ff 7f, 8192 -> 80 80 01.
    both_ways(R"({"type":"array","items":"long"})", hex("0a 7e 80 01 fe 7f ff 7f 80 80 01 00"),
              "[63, 64, 8191, -8192, 8192]");
    both_ways(R"({"type":"array","items":"int"})", hex("04 fe 7f 80 80 01 00"), "[8191, 8192]");
    both_ways(R"("string")", hex("00"), R"("")");
    both_ways(R"("string")", hex("20") + "abcdefghijklmnop", R"("abcdefghijklmnop")");
    both_ways(R"("string")", hex("22") + "abcdefghijklmnopq", R"("abcdefghijklmnopq")");
    // "\u00e9" (c3 a9) as bytes 15-16 of 16, then of 17: beyond the ASCII mask.
    both_ways(R"("string")", hex("20") + "abcdefghijklmn" + hex("c3 a9"),
              R"("abcdefghijklmn\u00e9")");
    both_ways(R"("string")", hex("22") + "abcdefghijklmno" + hex("c3 a9"),
              R"("abcdefghijklmno\u00e9")");
    const std::string rec =
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"},)"
        R"({"name":"b","type":"string"},{"name":"m","type":{"type":"map","values":"long"}}]})";
    both_ways(rec, hex("02 02 78 02 02 6b 80 01 00"), R"({"a": 1, "b": "x", "m": {"k": 64}})");
    // Keys in another order than the schema's: the same bytes.
    auto s = schema_of(rec);
    ASSERT_TRUE(s);
    document shuffled =
        test::must_decode(format_id::json, R"({"m": {"k": 64}, "b": "x", "a": 1})");
    EXPECT_EQ(to_hex(test::must_encode(format_id::avro, shuffled, bare_out(s))),
              to_hex(hex("02 02 78 02 02 6b 80 01 00")));
    // An ASCII string with more input after it, then invalid UTF-8 at its third byte: the
    // error has the offset the full reader gives.
    const std::string two =
        R"({"type":"record","name":"T","fields":[{"name":"a","type":"string"},)"
        R"({"name":"b","type":"string"}]})";
    auto t = schema_of(two);
    ASSERT_TRUE(t);
    std::string bad = hex("06 61 62 ff 20") + std::string(16, 'x');
    error e = test::decode_error(format_id::avro, bad, bare(t));
    EXPECT_EQ(e.code, errc::invalid_utf8) << describe(e);
    EXPECT_EQ(e.offset, 3u) << describe(e);
    // A field missing from the map with a default: written by the full writer.
    auto d = schema_of(
        R"({"type":"record","name":"D","fields":[{"name":"a","type":"long"},)"
        R"({"name":"z","type":"long","default":-2}]})");
    ASSERT_TRUE(d);
    EXPECT_EQ(to_hex(test::must_encode(format_id::avro, test::must_decode(format_id::json,
                                                                           R"({"a": 1})"),
                                       bare_out(d))),
              to_hex(hex("02 03")));
}

TEST(AvroDecode, RecursionIsBoundedByDepth) {
    // A record that contains itself through a union: every level costs one byte.
    auto s = schema_of(R"({"type":"record","name":"L","fields":[
        {"name":"next","type":["null","L"]}]})");
    std::string deep(100000, '\x02');
    deep += '\x00';
    error e = test::decode_error(format_id::avro, deep, bare(s));
    EXPECT_EQ(e.code, errc::depth_exceeded) << describe(e);
}

TEST(AvroDecode, BareDatumNeedsASchema) {
    decode_options o;
    o.avro_container = false;
    EXPECT_EQ(test::decode_error(format_id::avro, hex("00"), o).code, errc::schema_required);
    // A container needs none, but must be one.
    EXPECT_EQ(test::decode_error(format_id::avro, hex("00"), {}).code, errc::malformed);
}

TEST(AvroEncode, RefusesValuesTheSchemaCannotHold) {
    auto s = schema_of(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},
        {"name":"u","type":["null","string"],"default":null}]})");
    auto enc_err = [&](const char* json) {
        document d = test::must_decode(format_id::json, json);
        output_buffer out;
        auto r = encode(format_id::avro, d, out, bare_out(s));
        EXPECT_FALSE(r) << json;
        return r ? error{} : r.error();
    };
    error e = enc_err(R"({"a": 4294967296})");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "/a");
    e = enc_err(R"({"a": 1, "u": 5})");
    EXPECT_EQ(e.path, "/u");
    e = enc_err(R"({"a": 1, "extra": 5})");
    EXPECT_EQ(e.path, "/extra");
    e = enc_err(R"({"u": null})");
    EXPECT_NE(e.message.find("missing field \"a\""), std::string::npos) << e.message;
    // A missing field with a default takes it: a = 1, u = null (branch 0).
    document d = test::must_decode(format_id::json, R"({"a": 1})");
    EXPECT_EQ(to_hex(test::must_encode(format_id::avro, d, bare_out(s))), to_hex(hex("02 00")));
    // Under lossy=allow the unknown field is dropped and reported.
    lossy_report report;
    encode_options lo = bare_out(s);
    lo.lossy = true;
    lo.report = &report;
    document extra = test::must_decode(format_id::json, R"({"a": 1, "u": "x", "extra": 5})");
    EXPECT_EQ(to_hex(test::must_encode(format_id::avro, extra, lo)), to_hex(hex("02 02 02 78")));
    expect_report(report, {{"field_dropped"}});
}

TEST(AvroContainer, RoundTripsEveryCodecAndChecksSyncMarkers) {
    auto s = schema_of(R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"}]})");
    document d = test::must_decode(format_id::json, R"([{"a":1},{"a":-2},{"a":300}])");
    for (const char* codec : {"null", "deflate", "zstandard", "snappy"}) {
        encode_options eo;
        eo.avro_schema = s;
        eo.avro_codec = codec;
        std::string file = test::must_encode(format_id::avro, d, eo);
        ASSERT_EQ(file.substr(0, 4), std::string("Obj\x01", 4));
        document back = test::must_decode(format_id::avro, file);
        EXPECT_TRUE(equal(d, back)) << codec << ": " << dbg(back);
        // The last 16 bytes are the block's sync marker: changed, the file is refused there.
        std::string broken = file;
        broken.back() ^= 1;
        error e = test::decode_error(format_id::avro, broken);
        EXPECT_EQ(e.code, errc::malformed) << codec;
        EXPECT_EQ(e.offset, file.size() - 16) << codec << ": " << describe(e);
        // Truncated anywhere: an error, never a crash (cut just after the header, it is a
        // valid empty container).
        for (std::size_t n = 0; n < file.size(); ++n) {
            document t;
            auto r = decode(format_id::avro, file.substr(0, n), t);
            EXPECT_TRUE(!r || t.root().size() == 0) << codec << " " << n;
        }
    }
}

TEST(AvroFraming, SingleObjectAndConfluentHeaders) {
    auto s = schema_of(R"("string")");
    document d = test::must_decode(format_id::json, R"("hi")");
    encode_options eo = bare_out(s);
    eo.framing = avro_framing::single_object;
    // CRC-64-AVRO of "string" is 8f014872634503c7 (schema-tests.txt: -4064184465339637361... as
    // checked there); little-endian after C3 01.
    std::string msg = test::must_encode(format_id::avro, d, eo);
    std::uint64_t fp = avro::fingerprint(*s);
    std::string want = hex("c3 01");
    want.append(reinterpret_cast<const char*>(&fp), 8);
    want += hex("04 68 69");
    EXPECT_EQ(to_hex(msg), to_hex(want));
    decode_options o = bare(s);
    o.framing = avro_framing::single_object;
    EXPECT_EQ(dbg(test::must_decode(format_id::avro, msg, o)), "\"hi\"");
    eo.framing = avro_framing::confluent;
    eo.avro_schema_id = 0x01020304;
    EXPECT_EQ(to_hex(test::must_encode(format_id::avro, d, eo)),
              to_hex(hex("00 01 02 03 04 04 68 69")));
    o.framing = avro_framing::confluent;
    EXPECT_EQ(test::decode_error(format_id::avro, hex("01 00 00 00 01 04 68 69"), o).code,
              errc::malformed);
}

}  // namespace
}  // namespace polycodec::test
