// Tests of the ron codec: spec examples, error positions, exact encodings.
#include <cmath>
#include <sstream>
#include <vector>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string ron_dbg(std::string_view in) { return decoded_as(format_id::ron, in); }

std::string ron_encode(std::string_view json, bool pretty = false) {
    return encode_json_as(format_id::ron, json, test::pretty(pretty));
}

struct spec_case {
    const char* ron;
    const char* expected;  // to_debug_string of the decoded value
};

// The ron-rs grammar (UPSTREAM_grammar.md) mapped to the serde data model of DESIGN section 2.
TEST(RonDecode, SpecTable) {
    const spec_case cases[] = {
        // value = integer | byte | float | string | byte_string | char | bool | option | list
        //         | map | tuple | struct | enum_variant | range
        {"true", "true"},
        {"false", "false"},
        {"42", "42"},
        {"-42", "-42"},
        {"+7", "7"},
        {"1_000_000", "1000000"},
        {"0xFF", "255"},
        {"0o17", "15"},
        {"0b1010_1010", "170"},
        {"-0x10", "-16"},
        {"9223372036854775807", "9223372036854775807"},
        {"-9223372036854775808", "-9223372036854775808"},
        {"18446744073709551615", "18446744073709551615u"},
        {"18446744073709551616", "18446744073709551616n"},
        {"-170141183460469231731687303715884105728i128",
         "-170141183460469231731687303715884105728n"},
        {"340282366920938463463374607431768211455u128", "340282366920938463463374607431768211455n"},
        {"0x7fff_ffff_ffff_ffff_ffff_ffff_ffff_ffffi128",
         "170141183460469231731687303715884105727n"},
        {"0x1_0000_0000_0000_0000", "18446744073709551616n"},
        {"00012", "12"},
        {"255u8", "255"},
        {"-128i8", "-128"},
        {"b'a'", "97"},
        {"b'\\n'", "10"},
        {"1.5", "1.5"},
        {"1.", "1.0"},
        {".5", "0.5"},
        {"1e3", "1000.0"},
        {"1_000.000_1", "1000.0001"},
        {"-2.5E-3", "-0.0025"},
        {"1.1f32", "1.100000023841858"},
        {"3f64", "3.0"},
        {"inf", "Infinity"},
        {"-inf", "-Infinity"},
        {"+inf", "Infinity"},
        {"NaN", "NaN"},
        {"1e400", "Infinity"},
        {"\"plain\"", "\"plain\""},
        {R"("esc \" \\ \n \r \t \0 \x41 \u{e9} \u{1F600} \'")",
         "\"esc \\\" \\\\ \\u000a \\u000d \\u0009 \\u0000 A \xc3\xa9 \xf0\x9f\x98\x80 '\""},
        {"\"line \\\n     continued\"", "\"line continued\""},
        {R"(r"raw \n")", "\"raw \\\\n\""},
        {R"(r#"a "quoted" word"#)", "\"a \\\"quoted\\\" word\""},
        {R"(r##"x"#y"##)", "\"x\\\"#y\""},
        {R"(b"ab\x00\xff")", "b64\"YWIA/w==\""},
        {R"(br#"\x"#)", "b64\"XHg=\""},
        {"'c'", "\"c\""},
        {"'\\''", "\"'\""},
        {"'\xc3\xa9'", "\"\xc3\xa9\""},
        // option = "None" | "Some", ws, "(", ws, value, ws, ")"
        {"None", "null"},
        {"Some(1)", "1"},
        {"Some( Some ( \"x\" ) )", "\"x\""},
        // unit
        {"()", "null"},
        // list, map (any keys), tuple
        {"[]", "[]"},
        {"[1, 2, 3,]", "[1,2,3]"},
        {"{}", "{}"},
        {"(1, \"two\", 3.0)", "[1,\"two\",3.0]"},
        {"(1)", "[1]"},
        // struct: anonymous and named (the name is dropped), unit struct
        {"(a: 1, b: \"x\")", "{\"a\":1,\"b\":\"x\"}"},
        {"Point(x: 1, y: 2,)", "{\"x\":1,\"y\":2}"},
        {"Empty()", "{}"},
        {"(r#type: 1)", "{\"type\":1}"},
        // enum variants: unit -> name, newtype -> {V: x}, tuple -> {V: [..]}
        {"Up", "\"Up\""},
        {"Suffix(\".c\")", "{\"Suffix\":\".c\"}"},
        {"Pair(1, (2, 3))", "{\"Pair\":[1,[2,3]]}"},
        {"Pair(\"a,b\", [1, 2],)", "{\"Pair\":[\"a,b\",[1,2]]}"},
        {"Wrap((1, 2))", "{\"Wrap\":[1,2]}"},
        {"Wrap(1,)", "{\"Wrap\":1}"},
        {"r#Raw-Name", "\"Raw-Name\""},
        // range -> serde's {start, end}
        {"1..5", "{\"start\":1,\"end\":5}"},
        {"1 ..= 5", "{\"start\":1,\"end\":5}"},
        {"-3..", "{\"start\":-3}"},
        {"..=2.5", "{\"end\":2.5}"},
        {"..", "{}"},
        // comments and whitespace
        {"/* a /* nested */ comment */ [1, // line\n 2]", "[1,2]"},
        {"\xc2\x85[\xe2\x80\xa8 1 \xe2\x80\x8e]", "[1]"},
        {"1 // trailing comment without newline", "1"},
        // extensions
        {"#![enable(implicit_some, unwrap_newtypes, unwrap_variant_newtypes)]\n(a: 5)",
         "{\"a\":5}"},
        {"#! [ enable ( implicit_some ) ] #![type = \"my::Type\"] 1", "1"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(ron_dbg(c.ron), c.expected) << c.ron;
    }
}

// The newtype/tuple decision looks ahead past strings, chars, comments and nested groups.
TEST(RonDecode, VariantLookAhead) {
    EXPECT_EQ(ron_dbg(R"([A(1), B(1, 2), C((1, 2)), D([1, 2], 3), E("a,b"), F(',' ),
                         G(b',', 2), H(r#"),"#), I(/* , */ 1), J(K(1, 2)), L(M(1), 2),
                         N((1, 2),), O('\'', 1), P({1: 2, 3: 4}), Q(a: 1, b: 2)])"),
              "[{\"A\":1},{\"B\":[1,2]},{\"C\":[1,2]},{\"D\":[[1,2],3]},{\"E\":\"a,b\"},"
              "{\"F\":\",\"},{\"G\":[44,2]},{\"H\":\"),\"},{\"I\":1},{\"J\":{\"K\":[1,2]}},"
              "{\"L\":[{\"M\":1},2]},{\"N\":[1,2]},{\"O\":[\"'\",1]},{\"P\":{1:2,3:4}},"
              "{\"a\":1,\"b\":2}]");
    // Nested variants are scanned once, not once per level.
    std::string deep = "[";
    for (int i = 0; i < 400; ++i) {
        deep += "A(";
    }
    deep += "[";
    for (int i = 0; i < 100000; ++i) {
        deep += "1,";
    }
    deep += "]" + std::string(400, ')') + "]";
    document d = must_decode(format_id::ron, deep);
    EXPECT_EQ(d.root().size(), 1u);
    // And unclosed ones too.
    std::string open(400 * 2, ' ');
    for (int i = 0; i < 400; ++i) {
        open[2 * i] = 'A';
        open[2 * i + 1] = '(';
    }
    open += std::string(2000000, '1');
    EXPECT_EQ(decode_error(format_id::ron, open).code, errc::unexpected_eof);
}

TEST(RonDecode, MapWithAnyScalarKeys) {
    document d = must_decode(format_id::ron, "{1: 'a', \"k\": true, 'c': 2.5, None: 1, true: [],}");
    ASSERT_EQ(d.root().kind(), kind::map);
    std::vector<kind> keys;
    for (auto [k, v] : d.root().entries()) {
        keys.push_back(k.kind());
    }
    EXPECT_EQ(keys, (std::vector<kind>{kind::int64, kind::string, kind::string, kind::null,
                                       kind::boolean_true}));
    EXPECT_EQ(dbg(d), "{1:\"a\",\"k\":true,\"c\":2.5,null:1,true:[]}");
}

// ron-rs's own example file (tests/example.ron upstream), expected value written by hand from
// the Rust types it is deserialized into.
TEST(RonDecode, CorpusExampleRon) {
    POLYCODEC_REQUIRE_CORPUS("ron/ron-rs", dir);
    document got = must_decode(format_id::ron, read_file(dir / "example.ron"));
    document want = must_decode(format_id::json, R"({
        "boolean": true, "float": 8.2,
        "map": {"1": "1", "2": "4", "3": "9", "4": "1", "5": "2", "6": "3"},
        "nested": {"a": "Decode me!", "b": "z"},
        "tuple": [3, 7],
        "vec": [{"a": "Nested 1", "b": "x"}, {"a": "Nested 2", "b": "y"},
                {"a": "Nested 3", "b": "z"}]})");
    // The RON map has integer keys; JSON text keys stand in for them above.
    EXPECT_EQ(dbg(got),
              "{\"boolean\":true,\"float\":8.2,\"map\":{1:\"1\",2:\"4\",3:\"9\",4:\"1\",5:\"2\","
              "6:\"3\"},\"nested\":{\"a\":\"Decode me!\",\"b\":\"z\"},\"tuple\":[3,7],\"vec\":[{"
              "\"a\":\"Nested 1\",\"b\":\"x\"},{\"a\":\"Nested 2\",\"b\":\"y\"},{\"a\":\"Nested "
              "3\",\"b\":\"z\"}]}");
    EXPECT_EQ(got.root().find("nested").size(), 2u);
    EXPECT_TRUE(equal(got.root().find("vec"), want.root().find("vec")));
}

TEST(RonDecode, CorpusPreserveSequence) {
    POLYCODEC_REQUIRE_CORPUS("ron/ron-rs", dir);
    EXPECT_EQ(decoded_as(format_id::ron, read_file(dir / "preserve_sequence_ex2.ron")),
              "{\"boolean\":true,\"float\":8.2,\"map\":{1:\"1\"},\"nested\":{\"a\":\"Decode "
              "me!\",\"b\":\"z\"},\"tuple\":[3,7]}");
    must_decode(format_id::ron, read_file(dir / "preserve_sequence_ex1.ron"));
}

// Every input of tree-sitter-ron's corpus (the text between the ==== header and the ----
// line) parses, and so do its example files except struct-0.ron, whose "\A" and '\a'
// escapes are not RON (ron-rs rejects them too).
TEST(RonDecode, CorpusTreeSitterInputsParse) {
    POLYCODEC_REQUIRE_CORPUS("ron/tree-sitter-ron", dir);
    int parsed = 0;
    for (const char* name : {"arrays.txt", "structs.txt", "tuples.txt"}) {
        std::istringstream lines(read_file(dir / "corpus" / name));
        std::string line;
        int rule = 0;  // '=' lines seen in the current header
        bool in_input = false;
        std::string input;
        while (std::getline(lines, line)) {
            if (line.rfind("====", 0) == 0) {
                rule = rule == 1 ? 2 : 1;
                in_input = rule == 2;
                input.clear();
                continue;
            }
            if (in_input && line.rfind("----", 0) == 0) {
                document d;
                auto r = decode(format_id::ron, input, d);
                EXPECT_TRUE(r) << name << ": " << input << "\n" << (r ? "" : describe(r.error()));
                ++parsed;
                in_input = false;
                rule = 0;
                continue;
            }
            if (in_input) {
                input += line;
                input += '\n';
            }
        }
    }
    EXPECT_GE(parsed, 10);
    for (const char* name : {"game-config.ron", "tuple.ron", "zee-config.ron"}) {
        document d;
        auto r = decode(format_id::ron, read_file(dir / "examples" / name), d);
        EXPECT_TRUE(r) << name << ": " << (r ? "" : describe(r.error()));
    }
    auto e = decode_error(format_id::ron, read_file(dir / "examples" / "struct-0.ron"));
    EXPECT_EQ(e.code, errc::invalid_string);
    EXPECT_EQ(e.line, 3u);
    EXPECT_EQ(e.column, 34u);
}

TEST(RonDecode, ZeeConfigValues) {
    POLYCODEC_REQUIRE_CORPUS("ron/tree-sitter-ron", dir);
    document d = must_decode(format_id::ron, read_file(dir / "examples" / "zee-config.ron"));
    value mode = d.root().find("modes").items().begin().operator*();
    EXPECT_EQ(decoded_as(format_id::json, "{}"), "{}");
    std::string s = to_debug_string(mode);
    EXPECT_NE(s.find("\"patterns\":[{\"Suffix\":\".c\"},{\"Suffix\":\".h\"}]"), std::string::npos)
        << s;
    EXPECT_NE(s.find("\"comment\":{\"token\":\"// \"}"), std::string::npos) << s;
    EXPECT_NE(s.find("\"indentation\":{\"width\":4,\"unit\":\"Space\"}"), std::string::npos) << s;
}

TEST(RonDecode, ErrorTable) {
    const bad_input cases[] = {
        {"", {errc::unexpected_eof, 0, 1, 1}},
        {"[1, 2", {errc::unexpected_eof, 5, 1, 6}},
        {"[1 2]", {errc::unexpected_char, 3, 1, 4}},
        {"(a: 1,\n b 2)", {errc::unexpected_char, 10, 2, 4}},
        {"{1: 2, 3}", {errc::unexpected_char, 8, 1, 9}},
        {"{(1, 2): 3}", {errc::unexpected_char, 1, 1, 2}},
        {"{{{1: 2}: 3}: 4}", {errc::unexpected_char, 1, 1, 2}},
        {"{A(B(1)): 1}", {errc::unexpected_char, 1, 1, 2}},
        {"{Some([1]): 1}", {errc::unexpected_char, 1, 1, 2}},
        {"{1..2: 1}", {errc::unexpected_char, 1, 1, 2}},
        {"\"abc", {errc::unexpected_eof, 4, 1, 5}},
        {"\"a\\qb\"", {errc::invalid_string, 2, 1, 3}},
        {"\"\\x80\"", {errc::invalid_string, 1, 1, 2}},
        {"\"\\u{D800}\"", {errc::invalid_string, 1, 1, 2}},
        {"\"\xff\"", {errc::invalid_utf8, 1, 1, 2}},
        {"r#\"open\"", {errc::unexpected_eof, 8, 1, 9}},
        {"''", {errc::invalid_string, 1, 1, 2}},
        {"'ab'", {errc::invalid_string, 2, 1, 3}},
        {"0x", {errc::unexpected_eof, 2, 1, 3}},
        {"0x_1", {errc::invalid_number, 2, 1, 3}},
        {"12abc", {errc::invalid_number, 2, 1, 3}},
        {"256u8", {errc::invalid_number, 0, 1, 1}},
        {"-1u32", {errc::invalid_number, 0, 1, 1}},
        {"340282366920938463463374607431768211456u128", {errc::invalid_number, 0, 1, 1}},
        {"0x8000_0000_0000_0000_0000_0000_0000_0000i128", {errc::invalid_number, 0, 1, 1}},
        {"-170141183460469231731687303715884105729i128", {errc::invalid_number, 0, 1, 1}},
        {"1e", {errc::invalid_number, 2, 1, 3}},
        {"1 2", {errc::trailing_content, 2, 1, 3}},
        {"/* open /* nested */", {errc::unexpected_eof, 20, 1, 21}},
        {"#![enable(no_such_thing)] 1", {errc::unexpected_char, 10, 1, 11}},
        {"Some()", {errc::unexpected_char, 5, 1, 6}},
        {"Some(1, 2)", {errc::unexpected_char, 8, 1, 9}},
        {"(\n  name: \"x\",\n  count: ?\n)", {errc::unexpected_char, 24, 3, 10}},
        {"@", {errc::unexpected_char, 0, 1, 1}},
        {"[Ok, B\xc3(1)]", {errc::invalid_utf8, 6, 1, 7}},
        {"(f\xff: 1)", {errc::invalid_utf8, 2, 1, 3}},
    };
    expect_decode_errors(format_id::ron, cases);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.input);
        EXPECT_FALSE(decode_error(format_id::ron, c.input).message.empty());
    }
}

TEST(RonDecode, DepthLimit) {
    const decode_options opt = max_depth(16);
    std::string ok(16, '[');
    ok += std::string(16, ']');
    must_decode(format_id::ron, ok, opt);
    std::string deep(17, '[');
    deep += std::string(17, ']');
    EXPECT_EQ(decode_error(format_id::ron, deep, opt).code, errc::depth_exceeded);
    // Some( ... ) adds no container but still recurses: it counts too.
    std::string some;
    for (int i = 0; i < 100000; ++i) {
        some += "Some(";
    }
    some += "1";
    some += std::string(100000, ')');
    EXPECT_EQ(decode_error(format_id::ron, some).code, errc::depth_exceeded);
}

struct encode_case {
    const char* json;
    const char* ron;
};

TEST(RonEncode, ExactText) {
    const encode_case cases[] = {
        {"null", "None"},
        {"true", "true"},
        {"-12", "-12"},
        {"18446744073709551615", "18446744073709551615"},
        {"123456789012345678901234567890", "123456789012345678901234567890"},
        {"1.0", "1.0"},
        {"1e300", "1e300"},
        {"-0.0", "-0.0"},
        {R"("a\"b\\c\n\t\u0001\u007f é")", R"("a\"b\\c\n\t\x01\x7f é")"},
        {"[]", "[]"},
        {"{}", "{}"},
        {R"({"a":[1,2],"b":{"c":null}})", R"({"a":[1,2],"b":{"c":None}})"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(ron_encode(c.json), c.ron) << c.json;
    }
}

// PrettyConfig::default() of ron-rs: four-space indent, every element followed by a comma,
// empty containers stay "[]" / "{}", no newline at the end.
TEST(RonEncode, PrettyMatchesRonRsStyle) {
    EXPECT_EQ(ron_encode(R"({"a":[1,2.0,{"x":null}],"b":{},"c":[]})", true),
              "{\n"
              "    \"a\": [\n"
              "        1,\n"
              "        2.0,\n"
              "        {\n"
              "            \"x\": None,\n"
              "        },\n"
              "    ],\n"
              "    \"b\": {},\n"
              "    \"c\": [],\n"
              "}");
}

TEST(RonEncode, NonJsonKinds) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_int(7);
    b.add_bytes(std::string("\x00\x01z\xff", 4));
    b.add_string("inf");
    b.add_double(HUGE_VAL);
    b.add_string("nan");
    b.add_double(std::nan(""));
    b.add_string("ts");
    b.add_timestamp("1979-05-27T07:32:00Z", timestamp_kind::offset_date_time);
    b.add_bool(false);
    b.add_double(-HUGE_VAL);
    b.end_map();
    std::string text = must_encode(format_id::ron, d);
    EXPECT_EQ(text,
              R"({7:b"\x00\x01z\xff","inf":inf,"nan":NaN,"ts":"1979-05-27T07:32:00Z",false:-inf})");
    // And back: everything but the timestamp kind survives.
    EXPECT_EQ(decoded_as(format_id::ron, text),
              "{7:b64\"AAF6/w==\",\"inf\":Infinity,\"nan\":NaN,\"ts\":\"1979-05-27T07:32:00Z\","
              "false:-Infinity}");
}

TEST(RonEncode, TagIsLossy) {
    document d;
    builder b(d);
    b.begin_array();
    b.begin_tagged(1);
    b.add_int(5);
    b.end_array();
    expect_error(encode_error_of(format_id::ron, d), {.code = errc::unrepresentable, .path = "/0"});
    lossy_encode lossy;
    EXPECT_EQ(must_encode(format_id::ron, d, lossy.opt), "[5]");
    ASSERT_EQ(lossy.report.size(), 1u);
    EXPECT_EQ(lossy.report[0].path, "/0");
}

TEST(RonRoundTrip, RecordsFixture) {
    expect_round_trips_compact_and_pretty(format_id::ron, json_fixture("records.json"));
}

}  // namespace
}  // namespace polycodec::test
