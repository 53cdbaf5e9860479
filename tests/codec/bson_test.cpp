// Tests of the bson codec: spec examples, error positions, exact encodings.
#include <chrono>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

// A document around the element bytes `elements`: int32 length, elements, 0x00.
std::string wrap(std::string_view elements) { return test::bson_document(elements); }

std::string decode_dbg(std::string_view in) { return dbg(test::must_decode(format_id::bson, in)); }

std::string encode_doc(void (*fn)(builder&), const encode_options& opt = {}) {
    document d;
    builder b(d);
    fn(b);
    return test::must_encode(format_id::bson, d, opt);
}

// ---- spec examples ----

// bsonspec.org/faq.html: {"hello": "world"} and {"BSON": ["awesome", 5.05, 1986]}.
TEST(BsonDecode, SpecExamples) {
    const text_case cases[] = {
        {hex("16 00 00 00 02 68 65 6c 6c 6f 00 06 00 00 00 77 6f 72 6c 64 00 00"),
         R"({"hello":"world"})"},
        {hex("31 00 00 00 04 42 53 4f 4e 00 26 00 00 00 02 30 00 08 00 00 00 61 77"
             "65 73 6f 6d 65 00 01 31 00 33 33 33 33 33 33 14 40 10 32 00 c2 07 00"
             "00 00 00"),
         R"({"BSON":["awesome",5.05,1986]})"},
    };
    expect_decodes(format_id::bson, cases);
}

TEST(BsonEncode, SpecExamples) {
    EXPECT_EQ(to_hex(encode_doc([](builder& b) {
                  b.begin_map();
                  b.add_string("hello");
                  b.add_string("world");
                  b.end_map();
              })),
              "16 00 00 00 02 68 65 6c 6c 6f 00 06 00 00 00 77 6f 72 6c 64 00 00");
    EXPECT_EQ(to_hex(encode_doc([](builder& b) {
                  b.begin_map();
                  b.add_string("BSON");
                  b.begin_array();
                  b.add_string("awesome");
                  b.add_double(5.05);
                  b.add_int(1986);
                  b.end_array();
                  b.end_map();
              })),
              "31 00 00 00 04 42 53 4f 4e 00 26 00 00 00 02 30 00 08 00 00 00 61 77 65 73 6f 6d "
              "65 00 01 31 00 33 33 33 33 33 33 14 40 10 32 00 c2 07 00 00 00 00");
}

// ---- every element type ----

struct decode_case {
    const char* elements;  // hex of the element list
    const char* expect;    // to_debug_string of the document
};

// Tags are tag_space::bson (@2) with the element type byte; binary: 0x05 | subtype << 8.
constexpr decode_case element_cases[] = {
    {"01 61 00 00 00 00 00 00 00 f8 3f", R"({"a":1.5})"},
    {"02 61 00 01 00 00 00 00", R"({"a":""})"},
    {"02 61 00 04 00 00 00 c3 a9 00 00", "{\"a\":\"\xc3\xa9\\u0000\"}"},
    {"03 61 00 05 00 00 00 00", R"({"a":{}})"},
    {"04 61 00 05 00 00 00 00", R"({"a":[]})"},
    {"05 61 00 02 00 00 00 00 de ad", R"({"a":b64"3q0="})"},
    {"05 61 00 02 00 00 00 04 de ad", R"({"a":tag(1029@2, b64"3q0=")})"},
    {"05 61 00 02 00 00 00 80 de ad", R"({"a":tag(32773@2, b64"3q0=")})"},
    // Subtype 2 repeats the length inside; the value is the bytes after it.
    {"05 61 00 06 00 00 00 02 02 00 00 00 de ad", R"({"a":tag(517@2, b64"3q0=")})"},
    {"06 61 00", R"({"a":tag(6@2, null)})"},
    {"07 61 00 5f 1d 2c 3b 4a 59 68 77 86 95 a4 b3", R"({"a":tag(7@2, b64"Xx0sO0pZaHeGlaSz")})"},
    {"08 61 00 00 08 62 00 01", R"({"a":false,"b":true})"},
    {"09 61 00 00 00 00 00 00 00 00 00", R"({"a":t"1970-01-01T00:00:00.000Z"})"},
    {"09 61 00 ff ff ff ff ff ff ff ff", R"({"a":t"1969-12-31T23:59:59.999Z"})"},
    // 253402300799999 ms is the last millisecond of year 9999; one more has no RFC 3339 text.
    {"09 61 00 ff db 1f d2 77 e6 00 00", R"({"a":t"9999-12-31T23:59:59.999Z"})"},
    {"09 61 00 00 dc 1f d2 77 e6 00 00", R"({"a":tag(9@2, 253402300800000)})"},
    {"09 61 00 00 00 00 00 00 00 00 80", R"({"a":tag(9@2, -9223372036854775808)})"},
    {"0a 61 00", R"({"a":null})"},
    {"0b 61 00 61 2b 00 69 6d 00", R"({"a":tag(11@2, {"pattern":"a+","options":"im"})})"},
    {"0c 61 00 05 00 00 00 64 62 2e 63 00 5f 1d 2c 3b 4a 59 68 77 86 95 a4 b3",
     R"({"a":tag(12@2, {"$ref":"db.c","$id":tag(7@2, b64"Xx0sO0pZaHeGlaSz")})})"},
    {"0d 61 00 02 00 00 00 78 00", R"({"a":tag(13@2, "x")})"},
    {"0e 61 00 02 00 00 00 73 00", R"({"a":tag(14@2, "s")})"},
    {"0f 61 00 16 00 00 00 02 00 00 00 79 00 0c 00 00 00 10 61 00 01 00 00 00 00",
     R"({"a":tag(15@2, {"$code":"y","$scope":{"a":1}})})"},
    {"10 61 00 00 00 00 80", R"({"a":-2147483648})"},
    {"11 61 00 02 00 00 00 01 00 00 00", R"({"a":tag(17@2, 4294967298)})"},
    {"11 61 00 ff ff ff ff ff ff ff ff", R"({"a":tag(17@2, 18446744073709551615u)})"},
    {"12 61 00 ff ff ff ff ff ff ff 7f", R"({"a":9223372036854775807})"},
    {"13 61 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 40 30", R"({"a":tag(19@2, "1")})"},
    {"7f 61 00 ff 62 00", R"({"a":tag(127@2, null),"b":tag(255@2, null)})"},
};

TEST(BsonDecode, EveryElementType) {
    for (const auto& c : element_cases) {
        std::string in = wrap(hex(c.elements));
        EXPECT_EQ(decode_dbg(in), c.expect) << c.elements;
    }
}

TEST(BsonEncode, EveryElementTypeRoundTripsByteIdentical) {
    for (const auto& c : element_cases) {
        std::string in = wrap(hex(c.elements));
        document d = test::must_decode(format_id::bson, in);
        EXPECT_EQ(to_hex(test::must_encode(format_id::bson, d)), to_hex(in)) << c.elements;
    }
}

// ---- decimal128 (BSON Decimal128 specification test vectors) ----

struct decimal_case {
    const char* bytes;  // 16 bytes little-endian
    const char* text;
};

constexpr decimal_case decimal_cases[] = {
    {"00000000000000000000000000004030", "0"},
    {"000000000000000000000000000040b0", "-0"},
    {"01000000000000000000000000004030", "1"},
    {"010000000000000000000000000040b0", "-1"},
    {"0a000000000000000000000000003e30", "1.0"},  // coefficient 10, exponent -1
    {"d2040000000000000000000000002e30", "0.000001234"},
    {"d2040000000000000000000000002c30", "1.234E-7"},
    {"00000000000000000000000000000000", "0E-6176"},
    {"01000000000000000000000000000000", "1E-6176"},
    {"ffffffff638e8d37c087adbe09edff5f", "9.999999999999999999999999999999999E+6144"},
    {"0c000000000000000000000000004630", "1.2E+4"},
    {"0000000000000000000000000000007c", "NaN"},
    {"00000000000000000000000000000078", "Infinity"},
    {"000000000000000000000000000000f8", "-Infinity"},
};

TEST(BsonDecimal128, DecodesSpecVectors) {
    for (const auto& c : decimal_cases) {
        std::string in = wrap(hex("13 64 00") + hex(c.bytes));
        std::string got = decode_dbg(in);
        EXPECT_EQ(got, std::string(R"({"d":tag(19@2, ")") + c.text + "\")}") << c.bytes;
    }
}

TEST(BsonDecimal128, EncodesSpecVectors) {
    for (const auto& c : decimal_cases) {
        std::string json = std::string(R"({"d":{"$numberDecimal":")") + c.text + "\"}}";
        document d = test::must_decode(format_id::json, json);
        std::string out = test::must_encode(format_id::bson, d);
        std::string want = wrap(hex("13 64 00") + hex(c.bytes));
        EXPECT_EQ(to_hex(out), to_hex(want)) << c.text;
    }
}

TEST(BsonDecimal128, NonCanonicalCoefficientsReadAsZero) {
    // Spec: a coefficient above 10^34 - 1 is non-canonical and "must be interpreted as 0".
    const text_case cases[] = {
        {wrap(hex("13 64 00 00 00 00 00 64 8e 8d 37 c0 87 ad be 09 ed 41 30")),
         R"({"d":tag(19@2, "0")})"},
        // The second combination-field form always holds a coefficient above 2^113.
        {wrap(hex("13 64 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 10 6c")),
         R"({"d":tag(19@2, "0")})"},
    };
    expect_decodes(format_id::bson, cases);
}

TEST(BsonDecimal128, ExactTextOrRefusal) {
    auto encode_text = [](std::string_view text) {
        document d;
        builder b(d);
        b.begin_map();
        b.add_string("d");
        b.begin_tagged(0x13, tag_space::bson);
        b.add_string(text);
        b.end_map();
        output_buffer out;
        return encode(format_id::bson, d, out);
    };
    EXPECT_TRUE(encode_text("1234567890123456789012345678901234"));
    EXPECT_TRUE(encode_text("12345678901234567890123456789012340000"));  // zeros fold
    auto r = encode_text("12345678901234567890123456789012345");         // 35 significant digits
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::unrepresentable);
    EXPECT_EQ(r.error().path, "/d");
    EXPECT_FALSE(encode_text("1E+7000"));
    EXPECT_FALSE(encode_text("abc"));
}

// ---- Extended JSON v2 ----

// BSON -> bencode writes every tagged value as its relaxed Extended JSON map, and bencode ->
// BSON recognises those maps: the bytes come back identical (keys already sorted, no floats).
TEST(BsonExtendedJson, TaggedValuesSurviveAFormatWithoutThem) {
    std::string elements =
        hex("05 61 00 02 00 00 00 04 de ad"                 // a: binary subtype 4
            "05 62 00 05 00 00 00 02 01 00 00 00 ff"        // b: old binary
            "07 64 00 5f 1d 2c 3b 4a 59 68 77 86 95 a4 b3"  // d: ObjectId
            "09 66 00 00 00 00 00 00 00 00 80"              // f: date outside 0000-9999
            "0b 67 00 61 2b 00 69 6d 00"                    // g: regex
            "0c 68 00 05 00 00 00 64 62 2e 63 00 5f 1d 2c 3b 4a 59 68 77 86 95 a4 b3"  // h
            "0d 69 00 02 00 00 00 78 00"                                               // i: code
            "0e 6a 00 02 00 00 00 73 00"                                               // j: symbol
            "0f 6b 00 16 00 00 00 02 00 00 00 79 00 0c 00 00 00 10 61 00 01 00 00 00 00"
            "11 6c 00 02 00 00 00 01 00 00 00"                          // l: timestamp
            "13 6d 00 d2 04 00 00 00 00 00 00 00 00 00 00 00 00 2c 30"  // m: decimal128
            "7f 6e 00 ff 6f 00");                                       // n, o: max and min key
    std::string in = wrap(elements);
    document d = test::must_decode(format_id::bson, in);
    std::string ben = test::must_encode(format_id::bencode, d);
    EXPECT_NE(ben.find("4:$oid24:5f1d2c3b4a5968778695a4b3"), std::string::npos) << ben;
    EXPECT_NE(ben.find("14:$numberDecimal8:1.234E-7"), std::string::npos) << ben;
    EXPECT_NE(ben.find("7:$binaryd6:base644:3q0=7:subType2:04e"), std::string::npos) << ben;
    EXPECT_NE(ben.find("5:$dated11:$numberLong20:-9223372036854775808e"), std::string::npos);
    document back = test::must_decode(format_id::bencode, ben);
    EXPECT_EQ(to_hex(test::must_encode(format_id::bson, back)), to_hex(in)) << dbg(back);
}

TEST(BsonExtendedJson, RecognisesCanonicalForms) {
    document d = test::must_decode(
        format_id::json,
        R"({"i":{"$numberInt":"7"},"l":{"$numberLong":"7"},"x":{"$numberDouble":"-Infinity"},)"
        R"("d":{"$date":"1970-01-01T01:00:00.001+01:00"},"s":{"$scope":{},"$code":"c"}})");
    EXPECT_EQ(to_hex(test::must_encode(format_id::bson, d)),
              to_hex(wrap(hex("10 69 00 07 00 00 00"
                              "12 6c 00 07 00 00 00 00 00 00 00"
                              "01 78 00 00 00 00 00 00 00 f0 ff"
                              "09 64 00 01 00 00 00 00 00 00 00"
                              "0f 73 00 0f 00 00 00 02 00 00 00 63 00 05 00 00 00 00"))));
}

TEST(BsonExtendedJson, LookalikesStayDocuments) {
    // Wrong value types, extra keys or a bad ObjectId: plain documents with '$' keys.
    document d = test::must_decode(
        format_id::json,
        R"({"a":{"$oid":5},"b":{"$oid":"zz1d2c3b4a5968778695a4b3"},"c":{"$minKey":1,"x":2}})");
    std::string out = test::must_encode(format_id::bson, d);
    EXPECT_EQ(
        decode_dbg(out),
        R"({"a":{"$oid":5},"b":{"$oid":"zz1d2c3b4a5968778695a4b3"},"c":{"$minKey":1,"x":2}})");
}

// ---- encoder mappings ----

TEST(BsonEncode, IntegersUseInt32WhenTheyFit) {
    std::string out = encode_doc([](builder& b) {
        b.begin_map();
        b.add_string("a");
        b.add_int(2147483647);
        b.add_string("b");
        b.add_int(2147483648);
        b.add_string("c");
        b.add_int(-2147483649);
        b.end_map();
    });
    EXPECT_EQ(to_hex(out), to_hex(wrap(hex("10 61 00 ff ff ff 7f"
                                           "12 62 00 00 00 00 80 00 00 00 00"
                                           "12 63 00 ff ff ff 7f ff ff ff ff"))));
}

TEST(BsonEncode, KeysBytesAndTimestamps) {
    std::string out = encode_doc([](builder& b) {
        b.begin_map();
        b.add_int(7);  // integer key -> "7"
        b.add_bytes(std::string_view("\x00\xff", 2));
        b.add_string("t");
        b.add_timestamp("2026-01-01T01:00:00.5+01:00", timestamp_kind::offset_date_time);
        b.add_string("u");
        b.add_timestamp("2026-01-01T00:00:00.123456Z", timestamp_kind::offset_date_time);
        b.add_string("v");
        b.add_timestamp("2026-01-01", timestamp_kind::local_date);
        b.end_map();
    });
    // 2026-01-01T00:00:00.500Z = 1767225600500 ms = 0x19b76daa9f4.
    EXPECT_EQ(to_hex(out), to_hex(wrap(hex("05 37 00 02 00 00 00 00 00 ff"
                                           "09 74 00 f4 a9 da 76 9b 01 00 00") +
                                       std::string("\x02u\x00", 3) + hex("1c 00 00 00") +
                                       std::string("2026-01-01T00:00:00.123456Z\0", 28) +
                                       std::string("\x02v\x00", 3) + hex("0b 00 00 00") +
                                       std::string("2026-01-01\0", 11))));
}

TEST(BsonEncode, UnrepresentableWithPaths) {
    struct c {
        void (*fn)(builder&);
        std::string path;
        const char* message;
    };
    const c cases[] = {
        {[](builder& b) {
             b.begin_array();
             b.end_array();
         },
         "", "a bson document must be a map at the root"},
        {[](builder& b) {
             b.begin_map();
             b.add_string("a");
             b.begin_array();
             b.add_uint(UINT64_MAX);
             b.end_array();
             b.end_map();
         },
         "/a/0", "above INT64_MAX"},
        {[](builder& b) {
             b.begin_map();
             b.add_string("a");
             b.add_bignum("123456789012345678901");
             b.end_map();
         },
         "/a", "outside 64 bits"},
        {[](builder& b) {
             b.begin_map();
             b.add_string("a");
             b.add_int(1);
             b.add_string("a");
             b.add_int(2);
             b.end_map();
         },
         "/a", "duplicate key 'a'"},
        {[](builder& b) {
             b.begin_map();
             b.add_string(std::string_view("a\0b", 3));
             b.add_int(1);
             b.end_map();
         },
         std::string("/a\0b", 4), "containing NUL"},
        {[](builder& b) {
             b.begin_map();
             b.add_bool(true);
             b.add_int(1);
             b.end_map();
         },
         "/true", "map key true"},
        {[](builder& b) {
             b.begin_map();
             b.add_string("x");
             b.begin_tagged(1);
             b.add_int(1);
             b.end_map();
         },
         "/x", "tag 1 is not representable in bson"},
    };
    for (const auto& k : cases) {
        document d;
        builder b(d);
        k.fn(b);
        output_buffer out;
        auto r = encode(format_id::bson, d, out);
        ASSERT_FALSE(r) << k.message;
        EXPECT_EQ(r.error().code, errc::unrepresentable);
        EXPECT_EQ(r.error().path, k.path) << k.message;
        EXPECT_NE(r.error().message.find(k.message), std::string::npos) << r.error().message;
    }
}

TEST(BsonEncode, LossyFallbacks) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_uint(UINT64_MAX);
    b.add_bignum("-123456789012345678901234567890123456");  // 36 digits: a string
    b.end_array();
    lossy_encode lossy;
    std::string out = test::must_encode(format_id::bson, d, lossy.opt);
    EXPECT_EQ(
        decode_dbg(out),
        R"({"root":[tag(19@2, "18446744073709551615"),"-123456789012345678901234567890123456"]})");
    expect_report(lossy.report,
                  {{"root_wrapped"}, {"uint_to_decimal128", "/0"}, {"bignum_to_string"}});

    document dup;
    builder db(dup);
    db.begin_map();
    db.add_string("a");
    db.add_int(1);
    db.add_int(5);
    db.add_int(2);
    db.add_string("5");
    db.add_int(3);
    db.end_map();
    EXPECT_EQ(decode_dbg(test::must_encode(format_id::bson, dup, lossy.opt)), R"({"a":1,"5":2})");
}

TEST(BsonEncode, LargeMapsRefuseDuplicates) {
    document d;
    builder b(d);
    b.begin_map();
    for (int i = 0; i < 40; ++i) {
        b.add_string("k" + std::to_string(i % 39));
        b.add_int(i);
    }
    b.end_map();
    output_buffer out;
    auto r = encode(format_id::bson, d, out);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("duplicate key 'k0'"), std::string::npos);
    encode_options opt;
    opt.lossy = true;
    document back = test::must_decode(format_id::bson, test::must_encode(format_id::bson, d, opt));
    EXPECT_EQ(back.root().size(), 39u);
}

// ---- errors ----

TEST(BsonDecode, ErrorsWithOffsets) {
    const test::bad_at cases[] = {
        {"", errc::unexpected_eof, 0, "expected a 4-byte document length"},
        {hex("05 00 00"), errc::unexpected_eof, 0, "expected a 4-byte document length"},
        {hex("04 00 00 00"), errc::malformed, 0, "less than the minimum of 5"},
        {hex("06 00 00 00 00"), errc::size_exceeded, 0, "exceeds the 5 bytes of input left"},
        {hex("ff ff ff 7f 00"), errc::size_exceeded, 0, "document length 2147483647"},
        {hex("05 00 00 00 01"), errc::malformed, 4, "expected 0x00 at the end of the document"},
        {hex("05 00 00 00 00 00"), errc::trailing_content, 5, "1 more bytes"},
        {wrap(hex("20 61 00")), errc::malformed, 4, "unknown element type 0x20"},
        {wrap(hex("10 61 00 01 00")), errc::malformed, 7, "expected 4 bytes of int32"},
        {wrap(hex("02 61 61")), errc::malformed, 5, "element name runs past"},
        {wrap(hex("02 ff 00 01 00 00 00 00")), errc::invalid_utf8, 5, "element name"},
        {wrap(hex("02 61 00 00 00 00 00")), errc::malformed, 7, "string length 0"},
        {wrap(hex("02 61 00 ff ff ff 7f 00")), errc::size_exceeded, 7, "string length 2147483647"},
        {wrap(hex("02 61 00 02 00 00 00 78 79")), errc::malformed, 12, "end of the string"},
        {wrap(hex("02 61 00 02 00 00 00 ff 00")), errc::invalid_utf8, 11, "invalid UTF-8"},
        {wrap(hex("05 61 00 ff ff ff ff 00")), errc::malformed, 7, "negative binary length"},
        {wrap(hex("05 61 00 00 00 00 40 00")), errc::size_exceeded, 7, "binary length 1073741824"},
        {wrap(hex("05 61 00 05 00 00 00 02 02 00 00 00 00")), errc::malformed, 12, "inner length"},
        {wrap(hex("08 61 00 02")), errc::malformed, 7, "expected boolean"},
        {wrap(hex("03 61 00 05 00 00 00 00 03 61 00 05 00 00 00 00")), errc::duplicate_key, 13,
         "duplicate element name 'a'"},
        {wrap(hex("03 61 00 06 00 00 00 00 00")), errc::malformed, 11,
         "terminator 0x00 before its declared end"},
        {wrap(hex("03 61 00 09 00 00 00 00")), errc::size_exceeded, 7,
         "bytes its element has left"},
        {wrap(hex("0f 61 00 0d 00 00 00 02 00 00 00 79 00 05 00 00 00 00 00")), errc::malformed, 7,
         "less than the minimum of 14"},
        {wrap(hex("0b 61 00 61 2b")), errc::malformed, 7, "cstring runs past"},
    };
    test::expect_errors_at(format_id::bson, cases, 0);
}

TEST(BsonDecode, ErrorPathNamesTheElement) {
    error e = test::decode_error(format_id::bson, wrap(hex("03 78 00 09 00 00 00 08 79 00 05 00")));
    EXPECT_EQ(e.code, errc::malformed);
    EXPECT_EQ(e.path, "/x/y");
}

TEST(BsonDecode, HostileNestingFailsFast) {
    // 600 nested documents: past the depth limit of 512.
    std::string doc = hex("05 00 00 00 00");
    for (int i = 0; i < 600; ++i) {
        doc = wrap(std::string("\x03", 1) + std::string(1, '\0') + doc);
    }
    error e = test::decode_error(format_id::bson, doc);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 512u * 6);
    // A megabyte of headers claiming 2 GiB each: refused at the first length.
    std::string lies;
    for (int i = 0; i < 100000; ++i) {
        lies += hex("f0 ff ff 7f 03 00");
    }
    auto t0 = std::chrono::steady_clock::now();
    e = test::decode_error(format_id::bson, lies);
    EXPECT_EQ(e.code, errc::size_exceeded);
    EXPECT_EQ(e.offset, 0u);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

}  // namespace
}  // namespace polycodec::test

namespace polycodec::test {
namespace {

// DESIGN section 3: BSON's own types travel through JSON as Extended JSON v2 (relaxed) and the
// BSON encoder turns them back into the same bytes. (Relaxed mode writes an int64 as a plain
// number, so a small int64 comes back as int32: plain integers are left out here; canonical
// mode keeps the width, see CanonicalModeRoundTripsEveryElementType.)
TEST(BsonExtendedJson, BsonToJsonToBsonIsByteIdentical) {
    const char* ext = R"({"_id":{"$oid":"5f1d7a3b2c4e5d6f7a8b9c0d"},)"
                      R"("d":{"$numberDecimal":"1.10"},"t":{"$timestamp":{"t":5,"i":7}},)"
                      R"("b":{"$binary":{"base64":"AAEC","subType":"04"}},)"
                      R"("r":{"$regularExpression":{"pattern":"^a.*","options":"im"}},)"
                      R"("lo":{"$minKey":1},"hi":{"$maxKey":1},"c":{"$code":"x = 1"}})";
    document from_json = test::must_decode(format_id::json, ext);
    std::string bson = test::must_encode(format_id::bson, from_json);
    document from_bson = test::must_decode(format_id::bson, bson);
    // The non-JSON types are tagged values, not maps, after BSON.
    EXPECT_EQ(from_bson.root().find("_id").kind(), kind::tagged);
    EXPECT_EQ(from_bson.root().find("d").kind(), kind::tagged);
    std::string json = test::must_encode(format_id::json, from_bson);
    EXPECT_EQ(json, R"({"_id":{"$oid":"5f1d7a3b2c4e5d6f7a8b9c0d"},"d":{"$numberDecimal":"1.10"},)"
                    R"("t":{"$timestamp":{"t":5,"i":7}},)"
                    R"("b":{"$binary":{"base64":"AAEC","subType":"04"}},)"
                    R"("r":{"$regularExpression":{"pattern":"^a.*","options":"im"}},)"
                    R"("lo":{"$minKey":1},"hi":{"$maxKey":1},"c":{"$code":"x = 1"}})");
    document again = test::must_decode(format_id::json, json);
    EXPECT_EQ(test::to_hex(test::must_encode(format_id::bson, again)), test::to_hex(bson));
}

// ---- issue 19: integer widths, canonical Extended JSON, degenerate arrays, decimal NaNs ----

// The encode error of `d`; fails the test when it encodes.
error encode_error(format_id f, const document& d) {
    output_buffer out;
    auto r = encode(f, d, out);
    EXPECT_FALSE(r) << "encoded to " << out.str();
    return r ? error{} : r.error();
}

TEST(BsonIntWidth, DecoderRecordsAndEncoderKeepsInt32AndInt64) {
    // The issue's example: an int64 holding 1 stays an int64.
    std::string in = wrap(hex("12 61 00 01 00 00 00 00 00 00 00 10 62 00 01 00 00 00"));
    document d = test::must_decode(format_id::bson, in);
    EXPECT_EQ(d.root().find("a").int_width(), int_width::bits64);
    EXPECT_EQ(d.root().find("b").int_width(), int_width::bits32);
    EXPECT_EQ(to_hex(test::must_encode(format_id::bson, d)), to_hex(in));
    // The slow reader (a rare type forces it) records the same widths.
    std::string slow = wrap(hex("12 61 00 01 00 00 00 00 00 00 00 10 62 00 01 00 00 00"
                                "06 75 00"));
    document ds = test::must_decode(format_id::bson, slow);
    EXPECT_EQ(ds.root().find("a").int_width(), int_width::bits64);
    EXPECT_EQ(ds.root().find("b").int_width(), int_width::bits32);
    EXPECT_EQ(to_hex(test::must_encode(format_id::bson, ds)), to_hex(slow));
}

TEST(BsonIntWidth, HintThatDoesNotFitFallsBackToTheSmallestWidth) {
    std::string out = encode_doc([](builder& b) {
        b.begin_map();
        b.add_string("a");
        b.add_int(std::int64_t{1} << 40, int_width::bits32);  // needs int64
        b.add_string("b");
        b.add_int(5, int_width::bits16);  // int32, BSON's smallest
        b.add_string("c");
        b.add_int(-5, int_width::bits64);
        b.add_string("d");
        b.add_int(7);  // no hint: int32
        b.end_map();
    });
    EXPECT_EQ(to_hex(out), to_hex(wrap(hex("12 61 00 00 00 00 00 00 01 00 00"
                                           "10 62 00 05 00 00 00"
                                           "12 63 00 fb ff ff ff ff ff ff ff"
                                           "10 64 00 07 00 00 00"))));
}

TEST(BsonExtendedJson, CanonicalModeRoundTripsEveryElementType) {
    encode_options canon;
    canon.extjson = extjson_mode::canonical;
    decode_options read_canon;
    read_canon.extjson = extjson_mode::canonical;
    for (const auto& c : element_cases) {
        std::string in = wrap(hex(c.elements));
        document d = test::must_decode(format_id::bson, in);
        std::string json = test::must_encode(format_id::json, d, canon);
        // As maps (the BSON encoder recognises them) and read back into values.
        document maps = test::must_decode(format_id::json, json);
        EXPECT_EQ(to_hex(test::must_encode(format_id::bson, maps)), to_hex(in)) << json;
        document values = test::must_decode(format_id::json, json, read_canon);
        EXPECT_EQ(to_hex(test::must_encode(format_id::bson, values)), to_hex(in)) << json;
        EXPECT_TRUE(equal(values, d)) << json;
    }
}

TEST(BsonExtendedJson, CanonicalTextOfNumbersAndDates) {
    // Texts as js-bson 7's EJSON.stringify(..., {relaxed: false}) writes them (checked with
    // node for each double) and the Extended JSON v2 specification's canonical forms.
    std::string in = wrap(hex("10 69 00 ff ff ff 7f"                      // int32
                              "12 6c 00 01 00 00 00 00 00 00 00"          // int64 1
                              "01 6e 00 00 00 00 00 00 00 f8 7f"          // NaN
                              "01 70 00 00 00 00 00 00 00 f0 7f"          // Infinity
                              "01 6d 00 00 00 00 00 00 00 f0 ff"          // -Infinity
                              "01 7a 00 00 00 00 00 00 00 00 80"          // -0.0
                              "01 6f 00 00 00 00 00 00 00 f0 3f"          // 1.0
                              "01 71 00 ff ff ff ff ff ff ef 7f"          // DBL_MAX
                              "01 72 00 8d ed b5 a0 f7 c6 b0 3e"          // 1e-6
                              "01 73 00 bb bd d7 d9 df 7c db 3d"          // 1e-10
                              "01 74 00 00 00 00 00 00 00 f8 3f"          // 1.5
                              "01 75 00 da bc 04 7e 3a c5 1a 44"          // 1.2345678901234568e20
                              "09 64 00 00 00 00 00 00 00 00 00"          // 1970-01-01
                              "05 62 00 01 00 00 00 00 ff"));             // bytes
    document d = test::must_decode(format_id::bson, in);
    encode_options canon;
    canon.extjson = extjson_mode::canonical;
    EXPECT_EQ(test::must_encode(format_id::json, d, canon),
              R"({"i":{"$numberInt":"2147483647"},"l":{"$numberLong":"1"},)"
              R"("n":{"$numberDouble":"NaN"},"p":{"$numberDouble":"Infinity"},)"
              R"("m":{"$numberDouble":"-Infinity"},"z":{"$numberDouble":"-0.0"},)"
              R"("o":{"$numberDouble":"1.0"},"q":{"$numberDouble":"1.7976931348623157e+308"},)"
              R"("r":{"$numberDouble":"0.000001"},"s":{"$numberDouble":"1e-10"},)"
              R"("t":{"$numberDouble":"1.5"},"u":{"$numberDouble":"123456789012345683968.0"},)"
              R"("d":{"$date":{"$numberLong":"0"}},)"
              R"("b":{"$binary":{"base64":"/w==","subType":"00"}}})");
    // Relaxed (the default) is as before: plain numbers, NaN refused.
    EXPECT_EQ(encode_error(format_id::json, d).code, errc::unrepresentable);
}

// fuzz_decode_bson (tests/fuzz/regressions/bson/extjson-nan-payload): a double NaN with sign
// and payload (ff ff ff ff ff ff ff ff) is "NaN" in Extended JSON, as js-bson writes every NaN,
// and comes back as the quiet NaN 7ff8000000000000 (equal() takes every NaN as equal).
TEST(BsonExtendedJson, CanonicalNanPayloadComesBackQuiet) {
    std::string in = wrap(hex("01 6e 00 ff ff ff ff ff ff ff ff"));
    encode_options canon;
    canon.extjson = extjson_mode::canonical;
    document d = test::must_decode(format_id::bson, in);
    std::string json = test::must_encode(format_id::json, d, canon);
    EXPECT_EQ(json, R"({"n":{"$numberDouble":"NaN"}})");
    EXPECT_EQ(to_hex(test::must_encode(format_id::bson, test::must_decode(format_id::json, json))),
              to_hex(wrap(hex("01 6e 00 00 00 00 00 00 00 f8 7f"))));
    EXPECT_EQ(to_hex(test::must_encode(format_id::bson, d)), to_hex(in));  // BSON keeps it
}

TEST(BsonDecode, DegenerateArrayNamesReadByPosition) {
    // Names "1", "x", "" instead of "0", "1", "2": read by position, written canonically.
    std::string arr = wrap(hex("10 31 00 07 00 00 00 08 78 00 01 0a 00"));
    std::string canonical = wrap(hex("10 30 00 07 00 00 00 08 31 00 01 0a 32 00"));
    for (std::string rare : {std::string(), hex("06 75 00")}) {  // fast and slow reader
        std::string in = wrap(hex("04 61 00") + arr + rare);
        document d = test::must_decode(format_id::bson, in);
        EXPECT_EQ(to_debug_string(d.root().find("a")), "[7,true,null]");
        EXPECT_EQ(to_hex(test::must_encode(format_id::bson, d)),
                  to_hex(wrap(hex("04 61 00") + canonical + rare)));
    }
    // Element names must still be cstrings of valid UTF-8.
    EXPECT_EQ(test::decode_error(format_id::bson, wrap(hex("04 61 00") +
                                                       wrap(hex("10 ff 00 07 00 00 00"))))
                  .code,
              errc::invalid_utf8);
}

TEST(BsonDecimal128, NanSignPayloadAndSignallingKept) {
    const char* nans[] = {
        "000000000000000000000000000000fc",  // -NaN
        "3930000000000000000000000000007c",  // NaN with payload 12345
        "0000000000000000000000000000007e",  // sNaN
        "010000000000000001000000000000fe",  // -sNaN with payload
        "0000000000000000000000000000007f",  // sNaN, reserved combination bits set
    };
    for (const char* bytes : nans) {
        std::string in = wrap(hex("13 64 00") + hex(bytes));
        document d = test::must_decode(format_id::bson, in);
        value v = d.root().find("d");
        ASSERT_EQ(v.kind(), kind::tagged) << bytes;
        EXPECT_EQ(v.tagged_value().kind(), kind::bytes) << bytes;  // the 16 bytes themselves
        EXPECT_EQ(to_hex(test::must_encode(format_id::bson, d)), to_hex(in)) << bytes;
        // Extended JSON has only "NaN": refused unless lossy.
        EXPECT_EQ(encode_error(format_id::json, d).code, errc::unrepresentable) << bytes;
    }
    // The plain quiet NaN stays the text "NaN".
    EXPECT_EQ(decode_dbg(wrap(hex("13 64 00 0000000000000000000000000000007c"))),
              R"({"d":tag(19@2, "NaN")})");
}

}  // namespace
}  // namespace polycodec::test
