// Tests of the postcard codec: the vectors of the postcard wire-format specification
// (../shared/corpus/postcard/UPSTREAM_SPEC_wire-format.md), schema parsing, fixtures' bytes
// worked out by hand, hostile inputs, exact encodings with and without a schema.
#include "polycodec/formats/postcard.hpp"

#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::shared_ptr<const postcard::schema> schema_of(const std::string& json) {
    return must_value(postcard::parse_schema(json));
}

// A NamedType whose name is its type tag, e.g. prim("U16").
std::string prim(const std::string& tag) {
    return R"({"name":")" + tag + R"(","ty":")" + tag + R"("})";
}

decode_options with(const std::shared_ptr<const postcard::schema>& s) {
    decode_options o;
    o.schema = s;
    return o;
}
encode_options enc_with(const std::shared_ptr<const postcard::schema>& s) {
    encode_options o;
    o.schema = s;
    return o;
}

std::string decode_dbg(const std::string& schema_json, const std::string& bytes) {
    auto s = schema_of(schema_json);
    return dbg(test::must_decode(format_id::postcard, bytes, with(s)));
}
std::string encode_hex(const std::string& schema_json, const std::string& json) {
    auto s = schema_of(schema_json);
    document d = test::must_decode(format_id::json, json);
    return to_hex(test::must_encode(format_id::postcard, d, enc_with(s)));
}

struct vector_case {
    const char* value;  // JSON
    const char* bytes;  // hex
};

// Spec, "Unsigned Integer Encoding": the 16-bit unsigned numbers table.
TEST(PostcardSpec, UnsignedVarint) {
    const vector_case cases[] = {{"0", "00"},          {"127", "7f"},         {"128", "80 01"},
                                 {"16383", "ff 7f"},   {"16384", "80 80 01"}, {"16385", "81 80 01"},
                                 {"65535", "ff ff 03"}};
    for (const auto& c : cases) {
        EXPECT_EQ(decode_dbg(prim("U16"), hex(c.bytes)), c.value);
        EXPECT_EQ(encode_hex(prim("U16"), c.value), to_hex(hex(c.bytes)));
    }
}

// Spec, "Signed Integer Encoding": the 16-bit signed numbers table (zigzag).
TEST(PostcardSpec, SignedZigzagVarint) {
    const vector_case cases[] = {{"0", "00"},      {"-1", "01"},          {"1", "02"},
                                 {"63", "7e"},     {"-64", "7f"},         {"64", "80 01"},
                                 {"-65", "81 01"}, {"32767", "fe ff 03"}, {"-32768", "ff ff 03"}};
    for (const auto& c : cases) {
        EXPECT_EQ(decode_dbg(prim("I16"), hex(c.bytes)), c.value);
        EXPECT_EQ(encode_hex(prim("I16"), c.value), to_hex(hex(c.bytes)));
    }
}

// Spec, "Canonicalization": the u16 table of accepted and rejected forms.
TEST(PostcardSpec, Canonicalization) {
    auto s = schema_of(prim("U16"));
    EXPECT_EQ(dbg(test::must_decode(format_id::postcard, hex("00"), with(s))), "0");
    EXPECT_EQ(dbg(test::must_decode(format_id::postcard, hex("80 00"), with(s))), "0");
    EXPECT_EQ(dbg(test::must_decode(format_id::postcard, hex("80 80 00"), with(s))), "0");
    EXPECT_EQ(dbg(test::must_decode(format_id::postcard, hex("ff ff 03"), with(s))), "65535");
    // "Exceeds the Maximum Encoded Length of the type"
    auto e = test::decode_error(format_id::postcard, hex("80 80 80 00"), with(s));
    EXPECT_EQ(e.code, errc::invalid_number);
    EXPECT_EQ(e.offset, 0u);
    e = test::decode_error(format_id::postcard, hex("ff ff 83 00"), with(s));
    EXPECT_EQ(e.code, errc::invalid_number);
    // "Exceeds the maximum value of the encoded type": 131071
    e = test::decode_error(format_id::postcard, hex("ff ff 07"), with(s));
    EXPECT_EQ(e.code, errc::invalid_number);
    EXPECT_NE(e.message.find("range"), std::string::npos);
}

// Spec, "12 - f32" and "13 - f64": -32.005859375.
TEST(PostcardSpec, Floats) {
    EXPECT_EQ(decode_dbg(prim("F32"), hex("00 06 00 c2")), "-32.005859375");
    EXPECT_EQ(encode_hex(prim("F32"), "-32.005859375"), "00 06 00 c2");
    EXPECT_EQ(decode_dbg(prim("F64"), hex("00 00 00 00 c0 00 40 c0")), "-32.005859375");
    EXPECT_EQ(encode_hex(prim("F64"), "-32.005859375"), "00 00 00 00 c0 00 40 c0");
    // 0.1 is not an f32: unrepresentable unless lossy.
    auto s = schema_of(prim("F32"));
    document d = test::must_decode(format_id::json, "0.1");
    expect_error(encode_error_of(format_id::postcard, d, enc_with(s)), {errc::unrepresentable});
}

// Spec, sections 1-29: one vector per Serde data model type.
TEST(PostcardSpec, EveryDataModelType) {
    struct {
        std::string schema;
        const char* bytes;
        const char* value;
    } cases[] = {
        {prim("Bool"), "01", "true"},
        {prim("Bool"), "00", "false"},
        {prim("I8"), "ff", "-1"},
        {prim("I32"), "ff ff ff ff 0f", "-2147483648"},
        {prim("I64"), "ff ff ff ff ff ff ff ff ff 01", "-9223372036854775808"},
        {prim("U8"), "ff", "255"},
        {prim("U32"), "ff ff ff ff 0f", "4294967295"},
        {prim("U64"), "ff ff ff ff ff ff ff ff ff 01", "18446744073709551615u"},
        {prim("Usize"), "2a", "42"},
        {prim("Isize"), "53", "-42"},
        // u128::MAX: 19 bytes, the last holding the top 2 bits.
        {prim("U128"), "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff 03",
         "340282366920938463463374607431768211455n"},
        {prim("U128"), "05", "5"},
        // i128::MIN: zigzag 2^128 - 1.
        {prim("I128"), "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff 03",
         "-170141183460469231731687303715884105728n"},
        {prim("I128"), "03", "-2"},
        {prim("Char"), "02 c3 a9", "\"\xc3\xa9\""},
        {prim("String"), "05 68 65 6c 6c 6f", "\"hello\""},
        {prim("ByteArray"), "03 01 02 03", "b64\"AQID\""},
        {R"({"name":"Option<u8>","ty":{"Option":)" + prim("U8") + "}}", "00", "null"},
        {R"({"name":"Option<u8>","ty":{"Option":)" + prim("U8") + "}}", "01 07", "7"},
        {prim("Unit"), "", "null"},
        {prim("UnitStruct"), "", "null"},
        {R"({"name":"Meters","ty":{"NewtypeStruct":)" + prim("U32") + "}}", "2a", "42"},
        {R"({"name":"Vec<u16>","ty":{"Seq":)" + prim("U16") + "}}", "02 01 80 01", "[1,128]"},
        {R"({"name":"Tuple2","ty":{"Tuple":[)" + prim("U8") + "," + prim("Bool") + "]}}", "07 01",
         "[7,true]"},
        {R"({"name":"Pair","ty":{"TupleStruct":[)" + prim("U8") + "," + prim("U8") + "]}}", "01 02",
         "[1,2]"},
        {R"({"name":"Map","ty":{"Map":{"key":)" + prim("String") + R"(,"val":)" + prim("U8") +
             "}}}",
         "02 01 61 01 01 62 02", "{\"a\":1,\"b\":2}"},
        {R"({"name":"Point","ty":{"Struct":[{"name":"x","ty":)" + prim("I32") +
             R"(},{"name":"y","ty":)" + prim("I32") + "}]}}",
         "02 03", "{\"x\":1,\"y\":-2}"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(decode_dbg(c.schema, hex(c.bytes)), c.value) << c.schema;
        // And back: the same bytes.
        auto s = schema_of(c.schema);
        document d = test::must_decode(format_id::postcard, hex(c.bytes), with(s));
        EXPECT_EQ(to_hex(test::must_encode(format_id::postcard, d, enc_with(s))),
                  to_hex(hex(c.bytes)))
            << c.schema;
    }
}

const char* enum_schema = R"({"name":"Shape","ty":{"Enum":[
    {"name":"Empty","ty":"UnitVariant"},
    {"name":"Circle","ty":{"NewtypeVariant":{"name":"f32","ty":"F32"}}},
    {"name":"Line","ty":{"TupleVariant":[{"name":"u8","ty":"U8"},{"name":"u8","ty":"U8"}]}},
    {"name":"Rect","ty":{"StructVariant":[{"name":"w","ty":{"name":"u8","ty":"U8"}},
                                          {"name":"h","ty":{"name":"u8","ty":"U8"}}]}}]}})";

// Spec, "20 - unit_variant", "22 - newtype_variant", "26 - tuple_variant",
// "29 - struct_variant": a varint(u32) discriminant, then the variant's data.
TEST(PostcardSpec, EnumVariants) {
    struct {
        const char* bytes;
        const char* value;
    } cases[] = {
        {"00", "\"Empty\""},
        {"01 00 00 80 3f", "{\"Circle\":1.0}"},
        {"02 03 04", "{\"Line\":[3,4]}"},
        {"03 05 06", "{\"Rect\":{\"w\":5,\"h\":6}}"},
    };
    auto s = schema_of(enum_schema);
    for (const auto& c : cases) {
        document d = test::must_decode(format_id::postcard, hex(c.bytes), with(s));
        EXPECT_EQ(dbg(d), c.value);
        EXPECT_EQ(to_hex(test::must_encode(format_id::postcard, d, enc_with(s))),
                  to_hex(hex(c.bytes)));
    }
    auto e = test::decode_error(format_id::postcard, hex("04"), with(s));
    EXPECT_EQ(e.code, errc::malformed);
    EXPECT_EQ(e.message, "enum Shape has no variant 4");
}

// ---- errors and hostile input ----

TEST(PostcardDecode, NeedsASchema) {
    auto e = test::decode_error(format_id::postcard, hex("00"));
    EXPECT_EQ(e.code, errc::schema_required);
    EXPECT_EQ(e.message, "postcard needs a schema");
}

TEST(PostcardDecode, Errors) {
    const std::string seq_u8 = R"({"name":"Vec<u8>","ty":{"Seq":)" + prim("U8") + "}}";
    const std::string seq_unit = R"({"name":"VecUnit","ty":{"Seq":)" + prim("Unit") + "}}";
    struct {
        std::string schema;
        const char* bytes;
        errc code;
        std::uint64_t offset;
    } cases[] = {
        // A varint longer than 10 bytes.
        {prim("U64"), "80 80 80 80 80 80 80 80 80 80 00", errc::invalid_number, 0},
        {prim("U64"), "ff ff ff ff ff ff ff ff ff ff 01", errc::invalid_number, 0},
        // The 10th byte of a u64 holds one bit.
        {prim("U64"), "ff ff ff ff ff ff ff ff ff 02", errc::invalid_number, 0},
        {prim("U64"), "ff ff", errc::unexpected_eof, 2},
        {prim("U128"), "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff 01",
         errc::invalid_number, 0},
        {prim("Bool"), "02", errc::malformed, 0},
        {prim("Bool"), "", errc::unexpected_eof, 0},
        {R"({"name":"O","ty":{"Option":)" + prim("U8") + "}}", "02", errc::malformed, 0},
        // A length beyond the input, no allocation: 2^63 elements.
        {seq_u8, "ff ff ff ff ff ff ff ff 7f", errc::size_exceeded, 0},
        {prim("String"), "05 61 62", errc::size_exceeded, 0},
        {prim("String"), "02 c3 28", errc::invalid_utf8, 1},
        {prim("ByteArray"), "ff ff ff ff 0f", errc::size_exceeded, 0},
        // Zero-size elements cannot be counted against the input: a separate bound.
        {seq_unit, "ff ff ff ff ff ff ff ff 7f", errc::size_exceeded, 0},
        {prim("Char"), "02 61 62", errc::malformed, 0},
        {prim("F64"), "00 00 00", errc::unexpected_eof, 0},
        {prim("U8"), "01 02", errc::trailing_content, 1},
    };
    for (const auto& c : cases) {
        auto s = schema_of(c.schema);
        auto e = test::decode_error(format_id::postcard, hex(c.bytes), with(s));
        EXPECT_EQ(e.code, c.code) << c.schema << " " << c.bytes << ": " << e.message;
        EXPECT_EQ(e.offset, c.offset) << c.schema << " " << c.bytes << ": " << e.message;
    }
}

TEST(PostcardDecode, DepthIsBounded) {
    // Option<Option<...<u8>>> 200 deep decodes as data nesting of 0; use Seq nesting instead.
    std::string schema = prim("U8");
    for (int i = 0; i < 100; ++i) {
        schema = R"({"name":"V","ty":{"Seq":)" + schema + "}}";
    }
    auto s = schema_of(schema);
    std::string bytes(100, '\x01');
    bytes += '\x07';
    decode_options o = with(s);
    o.limits.max_depth = 50;
    auto e = test::decode_error(format_id::postcard, bytes, o);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    o.limits.max_depth = 512;
    EXPECT_EQ(test::must_decode(format_id::postcard, bytes, o).root().size(), 1u);
}

TEST(PostcardSchema, Errors) {
    struct {
        const char* json;
        const char* message;
    } cases[] = {
        {"[", nullptr},
        {R"({"name":"x"})", "postcard schema at /ty: expected a \"ty\" member"},
        {R"({"name":"x","ty":"U65"})", "postcard schema at /ty: unknown type \"U65\""},
        {R"({"name":"x","ty":"Schema"})",
         "postcard schema at /ty: the Schema type (a schema inside data) is not supported"},
        {R"({"name":"x","ty":{"Struct":[{"name":"a","ty":{"name":"b","ty":"Nope"}}]}})",
         "postcard schema at /ty/Struct/0/ty/ty: unknown type \"Nope\""},
        {R"({"name":"x","ty":{"Enum":[{"name":"A","ty":"Unit"}]}})",
         "postcard schema at /ty/Enum/0/ty: expected \"UnitVariant\", NewtypeVariant, "
         "TupleVariant or StructVariant"},
    };
    for (const auto& c : cases) {
        auto s = postcard::parse_schema(c.json);
        ASSERT_FALSE(s) << c.json;
        EXPECT_EQ(s.error().code, errc::invalid_option);
        if (c.message != nullptr) {
            EXPECT_EQ(s.error().message, c.message);
        }
    }
}

// ---- encoding with a schema ----

TEST(PostcardEncode, SchemaMismatchNamesThePath) {
    auto s = schema_of(test::read_file(test::fixtures_dir() / "schemas" / "bench.json"));
    document d = test::must_decode(
        format_id::json,
        R"([{"id":1,"active":true,"score":1.5,"name":"a","tags":[],"samples":[1,"x"]}])");
    output_buffer out;
    auto r = encode(format_id::postcard, d, out, enc_with(s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::unrepresentable);
    EXPECT_EQ(r.error().path, "/0/samples/1");
    EXPECT_EQ(r.error().message, "a string is not representable as postcard i64");

    d = test::must_decode(
        format_id::json,
        R"([{"id":-1,"active":true,"score":1.5,"name":"a","tags":[],"samples":[]}])");
    out.clear();
    r = encode(format_id::postcard, d, out, enc_with(s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().path, "/0/id");
    EXPECT_EQ(r.error().message, "integer out of the range of postcard u64");

    d = test::must_decode(format_id::json, R"([{"id":1}])");
    out.clear();
    r = encode(format_id::postcard, d, out, enc_with(s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().path, "/0");
    EXPECT_EQ(r.error().message, "missing field \"active\" of BenchRecord");

    d = test::must_decode(
        format_id::json,
        R"([{"id":1,"active":true,"score":1.5,"name":"a","tags":[],"samples":[],"extra":0}])");
    out.clear();
    r = encode(format_id::postcard, d, out, enc_with(s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().path, "/0/extra");
}

TEST(PostcardEncode, ByteArrayFromBase64Text) {
    // JSON carries bytes as base64url text (DESIGN section 3); a ByteArray takes it back.
    EXPECT_EQ(encode_hex(prim("ByteArray"), "\"AQID\""), "03 01 02 03");
    EXPECT_EQ(encode_hex(prim("ByteArray"), "\"_-8\""), "02 ff ef");
    auto s = schema_of(prim("ByteArray"));
    document d = test::must_decode(format_id::json, "\"not base64!\"");
    expect_error(encode_error_of(format_id::postcard, d, enc_with(s)), {errc::unrepresentable});
}

TEST(PostcardEncode, IntegerKeysFromText) {
    std::string schema =
        R"({"name":"M","ty":{"Map":{"key":)" + prim("U32") + R"(,"val":)" + prim("Bool") + "}}}";
    EXPECT_EQ(encode_hex(schema, R"({"1":true,"300":false})"), "02 01 01 ac 02 00");
}

// ---- fixtures, bytes worked out by hand ----

TEST(PostcardFixtures, BenchRecordZeroByHand) {
    auto s = schema_of(test::read_file(test::fixtures_dir() / "schemas" / "bench.json"));
    document d =
        test::must_decode(format_id::json, test::read_file(test::fixtures_dir() / "bench.json"));
    std::string bytes = test::must_encode(format_id::postcard, d, enc_with(s));
    // seq of 128: varint 80 01. Record 0: id 0 -> 00; active false -> 00; score -17.5 ->
    // 0xc031800000000000 little-endian; name "record-0000" (11 bytes); tags: 3 strings;
    // samples: 16 zigzag varints 0, -1 .. -15 -> 00 01 03 .. 1d.
    std::string expected =
        hex("80 01"
            "00"
            "00"
            "00 00 00 00 00 80 31 c0"
            "0b 72 65 63 6f 72 64 2d 30 30 30 30"
            "03 04 6a 73 6f 6e 09 7a 65 72 6f 2d 63 6f 70 79 07 67 72 6f 75 70 2d 30"
            "10 00 01 03 05 07 09 0b 0d 0f 11 13 15 17 19 1b 1d");
    EXPECT_EQ(to_hex(bytes.substr(0, expected.size())), to_hex(expected));
    document back = test::must_decode(format_id::postcard, bytes, with(s));
    EXPECT_TRUE(equal(d, back));
}

TEST(PostcardFixtures, RecordsRecordZeroByHand) {
    auto s = schema_of(test::read_file(test::fixtures_dir() / "schemas" / "records.json"));
    document d =
        test::must_decode(format_id::json, test::read_file(test::fixtures_dir() / "records.json"));
    std::string bytes = test::must_encode(format_id::postcard, d, enc_with(s));
    // seq of 256: 80 02. id 0: 00. big 9007199254740993 = 2^53 + 1, zigzag 2^54 + 2:
    // 82 80 80 80 80 80 80 20. score -215.8359375, ratio 0.9047141424272819 (f64 LE).
    // active false: 00. name "user-0000", city "Lisboa". nested: x 242 -> zigzag 484 ->
    // e4 03; y 5.75; label "alpha". tags []: 00. created (20 bytes). note None: 00.
    std::string expected =
        hex("80 02"
            "00"
            "82 80 80 80 80 80 80 20"
            "00 00 00 00 c0 fa 6a c0"
            "09 86 be 12 6b f3 ec 3f"
            "00"
            "09 75 73 65 72 2d 30 30 30 30"
            "06 4c 69 73 62 6f 61"
            "e4 03"
            "00 00 00 00 00 00 17 40"
            "05 61 6c 70 68 61"
            "00"
            "14 32 30 32 36 2d 30 31 2d 30 31 54 30 30 3a 30 30 3a 30 30 5a"
            "00");
    EXPECT_EQ(to_hex(bytes.substr(0, expected.size())), to_hex(expected));
    document back = test::must_decode(format_id::postcard, bytes, with(s));
    EXPECT_TRUE(equal(d, back));
}

// ---- encoding without a schema: postcard::to_vec(&serde_json::Value) ----

TEST(PostcardEncode, WithoutSchemaLikeSerdeJsonValue) {
    struct {
        const char* json;
        const char* bytes;
    } cases[] = {
        {"null", ""},  // serialize_unit: nothing
        {"true", "01"},
        {"300", "ac 02"},  // PosInt: serialize_u64, plain varint
        {"-1", "01"},      // NegInt: serialize_i64, zigzag
        {"18446744073709551615", "ff ff ff ff ff ff ff ff ff 01"},
        {"1.5", "00 00 00 00 00 00 f8 3f"},  // serialize_f64
        {"\"hi\"", "02 68 69"},
        {"[1,null,\"a\"]", "03 01 01 61"},
        {"{\"a\":[],\"7\":false}", "02 01 61 00 01 37 00"},
    };
    for (const auto& c : cases) {
        document d = test::must_decode(format_id::json, c.json);
        EXPECT_EQ(to_hex(test::must_encode(format_id::postcard, d)), to_hex(hex(c.bytes)))
            << c.json;
    }
    document big = test::must_decode(format_id::json, "123456789012345678901234567890");
    expect_error(encode_error_of(format_id::postcard, big), {errc::unrepresentable});
}

}  // namespace
}  // namespace polycodec::test
