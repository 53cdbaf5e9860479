// Tests of the ubjson codec: spec examples, error positions, exact encodings.
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

// Draft 12 value types (https://ubjson.org/type-reference/), big-endian, one row per marker
// and width.
TEST(UbjsonDecode, ValueTypes) {
    const text_case cases[] = {
        {"Z", "null"},
        {"T", "true"},
        {"F", "false"},
        {"NNZ", "null"},  // no-op before a value is skipped
        {"i" + hex("fc"), "-4"},
        {"U" + hex("ff"), "255"},
        {"I" + hex("27 10"), "10000"},
        {"I" + hex("80 00"), "-32768"},
        {"l" + hex("af b4 66 d8"), "-1347131688"},
        {"L" + hex("39 0e 5d 4d c4 e5 ec 05"), "4111326098433108997"},
        {"L" + hex("80 00 00 00 00 00 00 00"), "-9223372036854775808"},
        // float32 widened exactly
        {"d" + hex("3d cc cc cd"), "0.10000000149011612"},
        {"D" + hex("3f b9 99 99 99 99 99 9a"), "0.1"},
        {"D" + hex("7f f8 00 00 00 00 00 00"), "NaN"},
        {"Ca", "\"a\""},
        {"Si" + hex("03") + "abc", "\"abc\""},
        {"SU" + hex("02") + "\xc3\xa9", "\"\xc3\xa9\""},
        {"Si" + hex("00"), "\"\""},
        // high-precision numbers: integers of any size, decimals as decimal fractions
        {"Hi" + hex("14") + "18446744073709551615", "18446744073709551615u"},
        {"Hi" + hex("15") + "-12345678901234567890", "-12345678901234567890n"},
        {"Hi" + hex("02") + "-1", "-1"},
        {"Hi" + hex("04") + "1.50", "tag(4, [-2,150])"},
        {"Hi" + hex("05") + "-25e3", "tag(4, [3,-25])"},
        {"Hi" + hex("05") + "0.001", "tag(4, [-3,1])"},
        {"Hi" + hex("24") + "3.1415926535897932384626433832795028",
         "tag(4, [-34,31415926535897932384626433832795028n])"},
        // containers: plain, counted, typed and counted
        {"[]", "[]"},
        {"[i" + hex("01") + "NSi" + hex("01") + "aZ]", "[1,\"a\",null]"},
        {"[#i" + hex("02") + "TF", "[true,false]"},
        {"[$i#i" + hex("03") + hex("01 02 ff"), "[1,2,-1]"},
        {"[$Z#i" + hex("02"), "[null,null]"},
        {"[$[#i" + hex("02") + "]]", "[[],[]]"},
        {"{}", "{}"},
        {"{i" + hex("01") + "aTi" + hex("01") + "b[]}", "{\"a\":true,\"b\":[]}"},
        {"{#i" + hex("01") + "i" + hex("01") + "aZ", "{\"a\":null}"},
        {"{$i#i" + hex("02") + "i" + hex("01") + "a" + hex("05") + "i" + hex("01") + "a" +
             hex("06"),
         "{\"a\":5,\"a\":6}"},
        // [$U#n is binary (nlohmann's to_ubjson writes bytes so)
        {"[$U#i" + hex("03") + hex("00 01 ff"), "b64\"AAH/\""},
        {"[$U#i" + hex("00"), "b64\"\""},
        // a plain array of U stays an array of integers
        {"[U" + hex("01") + "U" + hex("02") + "]", "[1,2]"},
    };
    expect_decodes(format_id::ubjson, cases);
}

// The example of the Draft 12 object page: {"post": {"id": 1137, "author": "rkalla"}}.
TEST(UbjsonDecode, SpecObjectExample) {
    std::string in = "{i" + hex("04") + "post{i" + hex("02") + "idI" + hex("04 71") + "i" +
                     hex("06") + "authorSi" + hex("06") + "rkalla}}";
    EXPECT_EQ(decoded_as(format_id::ubjson, in), "{\"post\":{\"id\":1137,\"author\":\"rkalla\"}}");
}

TEST(UbjsonDecode, Errors) {
    const test::bytes_error_case cases[] = {
        {"", errc::unexpected_eof, 0},
        {"N", errc::unexpected_eof, 1},
        {"X", errc::malformed, 0},
        {"ZZ", errc::trailing_content, 1},
        {"I" + hex("01"), errc::unexpected_eof, 2},
        {"D" + hex("00 00"), errc::unexpected_eof, 3},
        {"C" + hex("80"), errc::invalid_utf8, 1},
        {"Si" + hex("02") + "\xc3(", errc::invalid_utf8, 3},
        {"SZ", errc::malformed, 1},              // length without integer marker
        {"Si" + hex("ff"), errc::malformed, 1},  // negative length
        {"Sl" + hex("7f ff ff ff") + "ab", errc::size_exceeded, 0},
        {"SL" + hex("7f ff ff ff ff ff ff ff"), errc::size_exceeded, 0},
        {"Hi" + hex("02") + "1x", errc::invalid_number, 4},
        {"Hi" + hex("02") + "01", errc::invalid_number, 4},
        {"Hi" + hex("00"), errc::invalid_number, 3},
        {"[", errc::unexpected_eof, 1},
        {"[Z", errc::unexpected_eof, 2},
        {"{i" + hex("01") + "a", errc::unexpected_eof, 4},
        {"{Z}", errc::malformed, 1},                // a key needs a length
        {"[$i]", errc::malformed, 3},               // '$' needs '#'
        {"[$N#i" + hex("01"), errc::malformed, 2},  // N is no type
        {"[#i" + hex("ff"), errc::malformed, 2},    // negative count
        // Huge counts fail before anything is built.
        {"[#l" + hex("7f ff ff ff") + "Z", errc::size_exceeded, 0},
        {"[$D#l" + hex("00 00 10 00") + "12345678", errc::size_exceeded, 0},
        {"{#L" + hex("7f ff ff ff ff ff ff ff"), errc::size_exceeded, 0},
        {"[$U#l" + hex("7f ff ff ff"), errc::size_exceeded, 0},
        {"[$Z#L" + hex("7f ff ff ff ff ff ff ff"), errc::size_exceeded, 0},
        {"[#i" + hex("02") + "Z", errc::size_exceeded, 0},
        {"[#i" + hex("02") + "ZN", errc::unexpected_eof, 6},
        {"Hi" + hex("02") + "1.", errc::invalid_number, 5},
    };
    test::expect_byte_errors(format_id::ubjson, cases, 0);
}

TEST(UbjsonDecode, DepthLimit) {
    std::string deep(600, '[');
    error e = test::decode_error(format_id::ubjson, deep);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 512u);
    std::string typed;
    for (int i = 0; i < 600; ++i) {
        typed += "[$[#i" + hex("01");
    }
    e = test::decode_error(format_id::ubjson, typed);
    EXPECT_EQ(e.code, errc::depth_exceeded);
}

// An optimized array of a type without payload ($Z, $T, $F) takes no input per element:
// six bytes must not stand for millions of values (the fuzz target was slow on
// [$F#l 00 77 00 00, 7798784 falses, within the budget of 64 MiB). At most 2^20.
TEST(UbjsonDecode, NoPayloadCountIsCapped) {
    decode_options opt;
    opt.limits.max_bytes = std::size_t{64} << 20;
    document doc;
    auto r = decode(format_id::ubjson, "[$F#l" + hex("00 77 00 00"), doc, opt);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::size_exceeded);
    EXPECT_EQ(r.error().offset, 0u);
    EXPECT_EQ(r.error().message,
              "count 7798784 exceeds the limit of 1048576 elements without payload");
    for (const char* type : {"Z", "T", "F"}) {
        // 2^20 + 1: refused; 2^20: read, every element the type's value.
        r = decode(format_id::ubjson, std::string("[$") + type + "#l" + hex("00 10 00 01"), doc,
                   opt);
        ASSERT_FALSE(r) << type;
        EXPECT_EQ(r.error().code, errc::size_exceeded) << type;
        ASSERT_TRUE(decode(format_id::ubjson, std::string("[$") + type + "#l" + hex("00 10 00 00"),
                           doc, opt))
            << type;
        value root = doc.root();
        ASSERT_EQ(root.kind(), kind::array);
        ASSERT_EQ(root.size(), std::size_t{1} << 20);
        const kind want = type[0] == 'Z'   ? kind::null
                          : type[0] == 'T' ? kind::boolean_true
                                           : kind::boolean_false;
        std::size_t n = 0;
        for (value v : root.items()) {
            n += v.kind() == want;
        }
        EXPECT_EQ(n, std::size_t{1} << 20) << type;
    }
}

TEST(UbjsonDecode, ErrorPathNamesTheValue) {
    std::string in = "{i" + hex("01") + "a[Z" + "Si" + hex("01") + "\xff" + "]}";
    error e = test::decode_error(format_id::ubjson, in);
    EXPECT_EQ(e.code, errc::invalid_utf8);
    EXPECT_EQ(e.offset, 9u);
    EXPECT_EQ(e.path, "/a/1");
}

// ---- encoder: exact bytes ----

struct encode_case {
    const char* json;
    std::string bytes;
};

TEST(UbjsonEncode, ExactBytes) {
    const encode_case cases[] = {
        {"null", "Z"},
        {"true", "T"},
        {"false", "F"},
        {"0", "i" + hex("00")},
        {"-128", "i" + hex("80")},
        {"127", "i" + hex("7f")},
        {"128", "U" + hex("80")},
        {"255", "U" + hex("ff")},
        {"256", "I" + hex("01 00")},
        {"-129", "I" + hex("ff 7f")},
        {"32768", "l" + hex("00 00 80 00")},
        {"-2147483648", "l" + hex("80 00 00 00")},
        {"2147483648", "L" + hex("00 00 00 00 80 00 00 00")},
        {"9223372036854775807", "L" + hex("7f ff ff ff ff ff ff ff")},
        {"9223372036854775808", "Hi" + hex("13") + "9223372036854775808"},
        {"123456789012345678901234567890", "Hi" + hex("1e") + "123456789012345678901234567890"},
        {"1.5", "D" + hex("3f f8 00 00 00 00 00 00")},
        {"\"\"", "Si" + hex("00")},
        {"\"h\xc3\xa9\"", "Si" + hex("03") + "h\xc3\xa9"},
        {"[]", "[#i" + hex("00")},
        {"[1,[null]]", "[#i" + hex("02") + "i" + hex("01") + "[#i" + hex("01") + "Z"},
        {"{\"a\":{}}", "{#i" + hex("01") + "i" + hex("01") + "a{#i" + hex("00")},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(to_hex(encode_json_as(format_id::ubjson, c.json)), to_hex(c.bytes)) << c.json;
    }
}

TEST(UbjsonEncode, LongStringLength) {
    std::string s(300, 'x');
    std::string out = encode_json_as(format_id::ubjson, "\"" + s + "\"");
    EXPECT_EQ(to_hex(out.substr(0, 4)), to_hex("SI" + hex("01 2c")));
    EXPECT_EQ(out.size(), 304u);
}

TEST(UbjsonEncode, BytesAsTypedUint8Array) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_bytes(hex("00 ff"));
    b.add_bytes("");
    b.end_array();
    EXPECT_EQ(to_hex(test::must_encode(format_id::ubjson, d)),
              to_hex("[#i" + hex("02") + "[$U#i" + hex("02 00 ff") + "[$U#i" + hex("00")));
}

TEST(UbjsonEncode, DecimalFractionAsHighPrecision) {
    const std::pair<std::string, std::string> cases[] = {
        {"1.50", "1.50"}, {"-25e3", "-25E3"}, {"0.001", "0.001"},
        {"1E0", "1E0"},   {"-0.5", "-0.5"},   {"12345678901234567890.5", "12345678901234567890.5"},
    };
    for (const auto& [text, written] : cases) {
        std::string in = "Hi" + std::string(1, static_cast<char>(text.size())) + text;
        document d = test::must_decode(format_id::ubjson, in);
        std::string out = test::must_encode(format_id::ubjson, d);
        EXPECT_EQ(out, "Hi" + std::string(1, static_cast<char>(written.size())) + written);
        EXPECT_EQ(dbg(test::must_decode(format_id::ubjson, out)), dbg(d)) << text;
    }
}

TEST(UbjsonEncode, KeysAndLossyCases) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_int(7);
    b.add_string("seven");
    b.add_timestamp("2024-01-02T03:04:05Z", timestamp_kind::offset_date_time);
    b.add_null();
    b.end_map();
    EXPECT_EQ(test::must_encode(format_id::ubjson, d), "{#i" + hex("02") + "i" + hex("01") + "7Si" +
                                                           hex("05") + "seven" + "i" + hex("14") +
                                                           "2024-01-02T03:04:05ZZ");

    document k = test::bool_keyed_map("x");
    test::expect_error(test::encode_error_of(format_id::ubjson, k),
                       {.code = errc::unrepresentable, .path = "/x/true"});
    lossy_encode lossy;
    EXPECT_EQ(test::must_encode(format_id::ubjson, k, lossy.opt),
              "{#i" + hex("01") + "i" + hex("01") + "x{#i" + hex("01") + "i" + hex("04") + "truei" +
                  hex("01"));
    expect_report(lossy.report, {{"key_to_string"}});

    document t;
    builder tb(t);
    tb.begin_tagged(32);
    tb.add_string("u");
    EXPECT_EQ(test::encode_error_of(format_id::ubjson, t).code, errc::unrepresentable);
}

TEST(UbjsonRoundTrip, RecordsFixture) {
    // Re-encoding what we read gives the same bytes.
    test::expect_stable_round_trip(format_id::ubjson, test::json_fixture("records.json"));
}

}  // namespace
}  // namespace polycodec::test
