// Tests of the json5 codec: spec examples, error positions, exact encodings, the json5-tests
// corpus.
#include <filesystem>
#include <string>
#include <vector>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string j5(std::string_view text) { return decoded_as(format_id::json5, text); }

std::string encode_j5(std::string_view json, bool pretty = false) {
    return encode_json_as(format_id::json5, json, test::pretty(pretty));
}

// ---- decoding: the features of spec.json5.org ----

TEST(Json5Decode, SpecExample) {
    // The example of the JSON5 spec, section 1.
    EXPECT_EQ(j5("{\n"
                 "  // comments\n"
                 "  unquoted: 'and you can quote me on that',\n"
                 "  singleQuotes: 'I can use \"double quotes\" here',\n"
                 "  lineBreaks: \"Look, Mom! \\\nNo \\\\n's!\",\n"
                 "  hexadecimal: 0xdecaf,\n"
                 "  leadingDecimalPoint: .8675309, andTrailing: 8675309.,\n"
                 "  positiveSign: +1,\n"
                 "  trailingComma: 'in objects', andIn: ['arrays',],\n"
                 "  \"backwardsCompatible\": \"with JSON\",\n"
                 "}"),
              "{\"unquoted\":\"and you can quote me on that\","
              "\"singleQuotes\":\"I can use \\\"double quotes\\\" here\","
              "\"lineBreaks\":\"Look, Mom! No \\\\n's!\",\"hexadecimal\":912559,"
              "\"leadingDecimalPoint\":0.8675309,\"andTrailing\":8675309.0,\"positiveSign\":1,"
              "\"trailingComma\":\"in objects\",\"andIn\":[\"arrays\"],"
              "\"backwardsCompatible\":\"with JSON\"}");
}

TEST(Json5Decode, Numbers) {
    const text_case cases[] = {
        {"[0, -0, +7, 0x10, 0XfF, -0x1, 1e3, 1E-2, .5, 5., -.5, +5.e1]",
         "[0,0,7,16,255,-1,1000.0,0.01,0.5,5.0,-0.5,50.0]"},
        {"[Infinity, -Infinity, +Infinity, NaN, -NaN]", "[Infinity,-Infinity,Infinity,NaN,NaN]"},
        // Beyond 64 bits: exact bignums, hex included.
        {"[18446744073709551615, 18446744073709551616, -9223372036854775809]",
         "[18446744073709551615u,18446744073709551616n,-9223372036854775809n]"},
        {"[0x8000000000000000, -0x8000000000000000, 0x10000000000000000, "
         "-0x1FFFFFFFFFFFFFFFF]",
         "[9223372036854775808u,-9223372036854775808,18446744073709551616n,"
         "-36893488147419103231n]"},
        {"1e400", "Infinity"},
    };
    expect_decodes(format_id::json5, cases);
}

TEST(Json5Decode, StringsAndEscapes) {
    const text_case cases[] = {
        {R"('\b\f\n\r\t\v\0\'\"\\\/\a\x41\u00e9\uD83D\uDE00')",
         "\"\\u0008\\u000c\\u000a\\u000d\\u0009\\u000b\\u0000'\\\"\\\\/aA\xC3\xA9"
         "\xF0\x9F\x98\x80\""},
        // Line continuations: LF, CRLF, CR, U+2028 and U+2029 after a backslash vanish.
        {"'a\\\nb\\\r\nc\\\rd\\\xE2\x80\xA8"
         "e\\\xE2\x80\xA9"
         "f'",
         "\"abcdef\""},
        // U+2028 and U+2029 may appear raw in strings.
        {"'\xE2\x80\xA8'", "\"\xE2\x80\xA8\""},
    };
    expect_decodes(format_id::json5, cases);
}

TEST(Json5Decode, IdentifierKeys) {
    const text_case cases[] = {
        {"{$: 1, _: 2, a1: 3, \\u0061b: 4, \xC3\xA9t\xC3\xA9: 5, a\xCC\x81: 6, "
         "\xE4\xB8\xAD: 7, null: 8, Infinity: 9}",
         "{\"$\":1,\"_\":2,\"a1\":3,\"ab\":4,\"\xC3\xA9t\xC3\xA9\":5,\"a\xCC\x81\":6,"
         "\"\xE4\xB8\xAD\":7,\"null\":8,\"Infinity\":9}"},
        {"{'single': 1, \"double\": 2, '': 3}", "{\"single\":1,\"double\":2,\"\":3}"},
        // Duplicate keys are kept in order (DESIGN section 2).
        {"{a: 1, a: 2}", "{\"a\":1,\"a\":2}"},
    };
    expect_decodes(format_id::json5, cases);
}

TEST(Json5Decode, WhiteSpaceAndComments) {
    // TAB VT FF SP NBSP, BOM, U+2003 (Zs), U+3000, LS, PS.
    const text_case cases[] = {
        {"\xEF\xBB\xBF\t\v\f \xC2\xA0[\xE2\x80\x83"
         "1\xE3\x80\x80,\xE2\x80\xA8"
         "2"
         "\xE2\x80\xA9]",
         "[1,2]"},
        {"/* a */ [ // b\n 1 /* c */, // d\n ] // e", "[1]"},
    };
    expect_decodes(format_id::json5, cases);
}

// ---- decoding errors ----

TEST(Json5Decode, ErrorsCarryOffsetLineAndColumn) {
    const bad_input cases[] = {
        {"{a: 1,,}", {errc::unexpected_char, 6, 1, 7}},
        {"[1, 2", {errc::unexpected_eof, 5, 1, 6}},
        {"[1,,]", {errc::unexpected_char, 3, 1, 4}},
        {"{a b: 1}", {errc::unexpected_char, 3, 1, 4}},
        {"{1a: 1}", {errc::unexpected_char, 1, 1, 2}},
        {"{\n  a: 'x\n'}", {errc::invalid_string, 9, 2, 8}},
        {"'abc", {errc::unexpected_eof, 4, 1, 5}},
        {"[01]", {errc::invalid_number, 2, 1, 3}},
        {"[0x]", {errc::invalid_number, 3, 1, 4}},
        {"[1e]", {errc::invalid_number, 3, 1, 4}},
        {"[.]", {errc::invalid_number, 2, 1, 3}},
        {"[3in]", {errc::invalid_number, 2, 1, 3}},
        {"'\\1'", {errc::invalid_string, 1, 1, 2}},
        {"'\\01'", {errc::invalid_string, 1, 1, 2}},
        {"'\\x4'", {errc::invalid_string, 1, 1, 2}},
        {"'\\uD800'", {errc::invalid_string, 1, 1, 2}},
        {"/* open", {errc::unexpected_eof, 7, 1, 8}},
        {"/ x", {errc::unexpected_char, 0, 1, 1}},
        {"[1] 2", {errc::trailing_content, 4, 1, 5}},
        {"", {errc::unexpected_eof, 0, 1, 1}},
        {"undefined", {errc::unexpected_char, 0, 1, 1}},
        {"{a: \xFF}", {errc::invalid_utf8, 4, 1, 5}},
        {"{\\u0031: 1}", {errc::unexpected_char, 1, 1, 2}},
    };
    expect_decode_errors(format_id::json5, cases);
}

TEST(Json5Decode, DepthLimit) {
    std::string deep(600, '[');
    expect_decode_error(format_id::json5, deep, {errc::depth_exceeded, 512});
    std::string ok(100, '[');
    ok += std::string(100, ']');
    must_decode(format_id::json5, ok);
}

// ---- encoding ----

TEST(Json5Encode, ExactCompactText) {
    EXPECT_EQ(encode_j5(R"({"id":1,"a b":"x","":[],"$ok":{},"1a":true,"n":null,"f":1.5,)"
                        R"("g":2.0,"big":123456789012345678901234567890})"),
              "{id:1,'a b':'x','':[],$ok:{},'1a':true,n:null,f:1.5,g:2.0,"
              "big:123456789012345678901234567890}");
}

TEST(Json5Encode, PrettyHasTwoSpacesAndTrailingCommas) {
    // As json5.stringify(value, null, 2).
    EXPECT_EQ(encode_j5(R"({"a":[1,{"b":null}],"c":{},"d":[]})", true),
              "{\n  a: [\n    1,\n    {\n      b: null,\n    },\n  ],\n  c: {},\n  d: [],\n}\n");
}

TEST(Json5Encode, QuotesAndEscapes) {
    // The quote that needs fewer escapes; single on a tie (json5.stringify).
    const text_case cases[] = {
        {R"(["it's", "say \"hi\"", "'\"", "both ' \" \""])",
         "[\"it's\",'say \"hi\"','\\'\"','both \\' \" \"']"},
        {R"(["\u0000\u00001\b\f\n\r\t\u000b\u0001\u001f\u2028\u2029\\"])",
         "['\\0\\x001\\b\\f\\n\\r\\t\\v\\x01\\x1f\\u2028\\u2029\\\\']"},
    };
    expect_encodes(format_id::json5, cases);
}

TEST(Json5Encode, NonFiniteFloatsAreLiterals) {
    document d = must_decode(format_id::json5, "[NaN, Infinity, -Infinity]");
    EXPECT_EQ(must_encode(format_id::json5, d), "[NaN,Infinity,-Infinity]");
}

TEST(Json5Encode, BytesAreBase64UrlText) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_bytes(std::string("\xFB\xFF\x00", 3));
    b.end_array();
    EXPECT_EQ(must_encode(format_id::json5, d), "['-_8A']");
}

TEST(Json5Encode, TagsAreUnrepresentableUnlessLossy) {
    document d = map_with("t", [](builder& b) {
        b.begin_tagged(1);
        b.add_int(5);
    });
    expect_lossy_only(format_id::json5, d, "/t", "{t:5}");
}

TEST(Json5Encode, RoundTripsFixtures) {
    for (const char* name : {"records.json", "bench.json"}) {
        SCOPED_TRACE(name);
        expect_round_trips_compact_and_pretty(format_id::json5, json_fixture(name));
    }
}

// ---- json5-tests ----

// The extension is the expected result: .json and .json5 are accepted (for .json the value
// equals the JSON reading), .js and .txt are rejected with a position. todo/ is not graded.
TEST(Json5Corpus, Json5Tests) {
    POLYCODEC_REQUIRE_CORPUS("json5", root);
    int accepted = 0;
    int rejected = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        const auto& p = entry.path();
        if (!entry.is_regular_file() || p.string().find("/todo/") != std::string::npos) {
            continue;
        }
        std::string ext = p.extension().string();
        if (ext != ".json" && ext != ".json5" && ext != ".js" && ext != ".txt") {
            continue;
        }
        SCOPED_TRACE(p.string());
        std::string text = read_file(p);
        document d;
        auto r = decode(format_id::json5, text, d);
        if (ext == ".js" || ext == ".txt") {
            EXPECT_FALSE(r) << "accepted: " << dbg(d);
            if (!r) {
                EXPECT_GT(r.error().line, 0u);
                ++rejected;
            }
            continue;
        }
        ASSERT_TRUE(r) << describe(r.error());
        ++accepted;
        if (ext == ".json") {
            document j = must_decode(format_id::json, text);
            EXPECT_TRUE(equal(d, j)) << dbg(d) << " != " << dbg(j);
        }
    }
    EXPECT_EQ(accepted, 80);
    EXPECT_EQ(rejected, 31);
}

TEST(Json5Corpus, Json5TestsExactValues) {
    POLYCODEC_REQUIRE_CORPUS("json5", root);
    // Values of ES5 eval, checked by hand for the cases JSON cannot express.
    const std::pair<const char*, const char*> cases[] = {
        {"numbers/hexadecimal.json5", "200"},
        {"numbers/hexadecimal-uppercase-x.json5", "200"},
        {"numbers/negative-hexadecimal.json5", "-200"},
        {"numbers/infinity.json5", "Infinity"},
        {"numbers/negative-infinity.json5", "-Infinity"},
        {"numbers/nan.json5", "NaN"},
        {"numbers/float-leading-decimal-point.json5", "0.5"},
        {"numbers/float-trailing-decimal-point.json5", "5.0"},
        {"strings/escaped-single-quoted-string.json5", "\"I can't wait\""},
        {"objects/unquoted-keys.json5",
         "{\"hello\":\"world\",\"_\":\"underscore\",\"$\":\"dollar sign\",\"one1\":\"numerals\","
         "\"_$_\":\"multiple symbols\",\"$_$hello123world_$_\":\"mixed\"}"},
    };
    for (const auto& [file, want] : cases) {
        SCOPED_TRACE(file);
        EXPECT_EQ(decoded_as(format_id::json5, read_file(root / file)), want);
    }
}

}  // namespace
}  // namespace polycodec::test
