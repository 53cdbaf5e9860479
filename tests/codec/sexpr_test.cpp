// Tests of the sexpr codec: spec examples, error positions, exact encodings.
#include <cmath>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string sx_dbg(std::string_view in) { return decoded_as(format_id::sexpr, in); }

std::string sx_encode(std::string_view json, bool pretty = false) {
    return encode_json_as(format_id::sexpr, json, test::pretty(pretty));
}

struct spec_case {
    const char* sexpr;
    const char* expected;  // to_debug_string of the decoded value
};

// DESIGN section 1: R7RS datum syntax, null #nil, vectors for arrays, association lists of
// dotted pairs for maps, () the empty map, a proper list of non-pairs an array.
TEST(SexprDecode, SpecTable) {
    const spec_case cases[] = {
        {"#nil", "null"},
        {"#t", "true"},
        {"#true", "true"},
        {"#f", "false"},
        {"#false", "false"},
        {"42", "42"},
        {"-42", "-42"},
        {"+7", "7"},
        {"9223372036854775808", "9223372036854775808u"},
        {"-123456789012345678901234567890", "-123456789012345678901234567890n"},
        {"#xff", "255"},
        {"#b-101", "-5"},
        {"#o17", "15"},
        {"#x10000000000000000", "18446744073709551616n"},
        {"#e5", "5"},
        {"#i5", "5.0"},
        {"1.5", "1.5"},
        {"1.", "1.0"},
        {".5", "0.5"},
        {"-0.0", "-0.0"},
        {"1e3", "1000.0"},
        {"1.0e300", "1e300"},
        {"+inf.0", "Infinity"},
        {"-inf.0", "-Infinity"},
        {"+nan.0", "NaN"},
        {"\"plain\"", "\"plain\""},
        // R7RS string escapes, including \x<hex>; and a line continuation.
        {R"("\a\b\t\n\r\"\\\|\x41;\x3bb;")",
         "\"\\u0007\\u0008\\u0009\\u000a\\u000d\\\"\\\\|A\xce\xbb\""},
        {"\"one \\   \n   two\"", "\"one two\""},
        // What Guile's writer produces: \xHH (two digits), \uHHHH, \UHHHHHH.
        {R"("\x01\x7f\u2028\U01F600")", "\"\\u0001\x7f\xe2\x80\xa8\xf0\x9f\x98\x80\""},
        {"symbol", "\"symbol\""},
        {"|two words|", "\"two words\""},
        {"#{two words}#", "\"two words\""},
        {"...", "\"...\""},
        {"a#b", "\"a#b\""},
        {"-", "\"-\""},
        {"->x", "\"->x\""},
        {"#\\a", "\"a\""},
        {"#\\space", "\" \""},
        {"#\\x41", "\"A\""},
        {"#u8(1 2 255)", "b64\"AQL/\""},
        {"#vu8()", "b64\"\""},
        {"#()", "[]"},
        {"#(1 \"two\" #(3))", "[1,\"two\",[3]]"},
        {"()", "{}"},
        {"(1 2 3)", "[1,2,3]"},
        {"(a b)", "[\"a\",\"b\"]"},
        {"((name . \"Billy\") (\"two words\" . 2) (7 . #t))",
         "{\"name\":\"Billy\",\"two words\":2,7:true}"},
        {"((a . ()))", "{\"a\":{}}"},
        // Scheme writers print (k . (v ...)) as (k v ...): the rest of the list is the value.
        {"((a 1 2) (b))", "{\"a\":[1,2],\"b\":{}}"},
        {"((outer (x . 1) (y . 2)))", "{\"outer\":{\"x\":1,\"y\":2}}"},
        {"((k . #(1 2)))", "{\"k\":[1,2]}"},
        {"((#nil . 1) (#f . 2) (1.5 . 3))", "{null:1,false:2,1.5:3}"},
        // Comments: ; line, #| nested |#, #; datum.
        {"; comment\n#| a #| nested |# block |# (1 #;(ignored . 2) #;#(3) 4)", "[1,4]"},
        {"((a . 1) #;(b . 2) (c . 3))", "{\"a\":1,\"c\":3}"},
        {"#(1 #;\"x\" 2)", "[1,2]"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(sx_dbg(c.sexpr), c.expected) << c.sexpr;
    }
}

TEST(SexprDecode, ErrorTable) {
    const bad_input cases[] = {
        {"", {errc::unexpected_eof, 0, 1, 1}},
        {"(1 2", {errc::unexpected_eof, 4, 1, 5}},
        {"#(1 2", {errc::unexpected_eof, 5, 1, 6}},
        {")", {errc::unexpected_char, 0, 1, 1}},
        {"1 2", {errc::trailing_content, 2, 1, 3}},
        {"(1 (a . 2))", {errc::unexpected_char, 3, 1, 4}},
        {"((a . 1) 2)", {errc::unexpected_char, 9, 1, 10}},
        {"((a . 1)\n (b . 2 3))", {errc::unexpected_char, 17, 2, 9}},
        {"(1 . 2)", {errc::unexpected_char, 3, 1, 4}},
        {"(((1) . 2))", {errc::unexpected_char, 2, 1, 3}},
        {"((k ((k 1))))", {errc::unexpected_char, 5, 1, 6}},
        {"((#(1) . 2))", {errc::unexpected_char, 2, 1, 3}},
        {"\"abc", {errc::unexpected_eof, 4, 1, 5}},
        {"\"a\\qb\"", {errc::invalid_string, 2, 1, 3}},
        {"\"\\x110000;\"", {errc::invalid_string, 1, 1, 2}},
        {"\"\xff\"", {errc::invalid_utf8, 1, 1, 2}},
        {"#u8(1 256)", {errc::invalid_number, 6, 1, 7}},
        {"1/2", {errc::invalid_number, 0, 1, 1}},
        {"12abc", {errc::invalid_number, 0, 1, 1}},
        {"1e", {errc::invalid_number, 0, 1, 1}},
        {"#z", {errc::unexpected_char, 0, 1, 1}},
        {"'a", {errc::unexpected_char, 0, 1, 1}},
        {"#| open #| nested |#", {errc::unexpected_eof, 20, 1, 21}},
        {"(\n  (name . \"x\")\n  (count . .)\n)", {errc::unexpected_char, 28, 3, 12}},
    };
    expect_decode_errors(format_id::sexpr, cases);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.input);
        EXPECT_FALSE(decode_error(format_id::sexpr, c.input).message.empty());
    }
}

TEST(SexprDecode, DepthLimit) {
    const decode_options opt = max_depth(16);
    // Vectors: nested lists would read as association lists with compound keys.
    std::string vec;
    for (int i = 0; i < 16; ++i) {
        vec += "#(";
    }
    vec += std::string(16, ')');
    must_decode(format_id::sexpr, vec, opt);
    EXPECT_EQ(decode_error(format_id::sexpr, "#(" + vec + ")", opt).code, errc::depth_exceeded);
    // #; comments recurse without building anything: they count too.
    std::string comments;
    for (int i = 0; i < 100000; ++i) {
        comments += "#;";
    }
    comments += "1 2";
    EXPECT_EQ(decode_error(format_id::sexpr, comments).code, errc::depth_exceeded);
    // ((k (k (k . 1)))) is {k: {k: {k: 1}}} as Scheme writers print it: entries nest through
    // their list tails. Inside #; nothing is built, so only the reader's own count stops them.
    std::string tails = "#;(";
    for (int i = 0; i < 100000; ++i) {
        tails += "(k ";
    }
    EXPECT_EQ(decode_error(format_id::sexpr, tails).code, errc::depth_exceeded);
    std::string nested = "(";
    for (int i = 0; i < 20; ++i) {
        nested += "(k ";
    }
    nested += ". 1" + std::string(21, ')');
    std::string want;
    for (int i = 0; i < 20; ++i) {
        want += "{\"k\":";
    }
    want += "1" + std::string(20, '}');
    EXPECT_EQ(decoded_as(format_id::sexpr, nested), want);
    EXPECT_EQ(decode_error(format_id::sexpr, nested, opt).code, errc::depth_exceeded);
    EXPECT_EQ(decode_error(format_id::sexpr, nested, opt).code, errc::depth_exceeded);
}

// Each datum is read once, also when a #; comment sits where the reader decides between an
// array and an association list: 200 nested levels would take 3^200 steps otherwise.
TEST(SexprDecode, DatumCommentsAreReadOnce) {
    std::string x = "1";
    for (int i = 0; i < 200; ++i) {
        x = "((#;" + x + " k . 1))";
    }
    const text_case cases[] = {
        {x, "{\"k\":1}"},
        {"#(( #| c |# ) ((#;(1 . 2) a . 1) #;(x) (b)))", "[{},{\"a\":1,\"b\":{}}]"},
    };
    expect_decodes(format_id::sexpr, cases);
}

struct encode_case {
    const char* json;
    const char* sexpr;
};

TEST(SexprEncode, ExactText) {
    const encode_case cases[] = {
        {"null", "#nil"},
        {"true", "#t"},
        {"false", "#f"},
        {"-12", "-12"},
        {"123456789012345678901234567890", "123456789012345678901234567890"},
        {"1.0", "1.0"},
        {"1e300", "1e300"},
        {"-0.0", "-0.0"},
        // Only the escapes every Scheme reader shares; other control characters stay raw.
        {R"("a\"b\\c\n\t\r\u0007\u0008\u0001 é")", "\"a\\\"b\\\\c\\n\\t\\r\\a\\b\x01 \xc3\xa9\""},
        {"[]", "#()"},
        {"{}", "()"},
        {"[1,[2],{}]", "#(1 #(2) ())"},
        {R"({"name":"Billy","two words":2,"7":true})",
         R"(((name . "Billy") ("two words" . 2) ("7" . #t)))"},
        {R"({"a-b?":1,"1x":2,"":3,"x:y":4,"+":5,"é":6})",
         R"(((a-b? . 1) ("1x" . 2) ("" . 3) ("x:y" . 4) ("+" . 5) ("é" . 6)))"},
        {R"({"a":{"b":null}})", "((a . ((b . #nil))))"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(sx_encode(c.json), c.sexpr) << c.json;
    }
}

TEST(SexprEncode, Pretty) {
    EXPECT_EQ(sx_encode(R"({"a":[1,{"b":2}],"e":[],"m":{}})", true),
              "(\n"
              "  (a . #(\n"
              "    1\n"
              "    (\n"
              "      (b . 2)\n"
              "    )\n"
              "  ))\n"
              "  (e . #())\n"
              "  (m . ())\n"
              ")\n");
}

TEST(SexprEncode, NonJsonKinds) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_int(7);
    b.add_bytes(std::string("\x00\x01\xff", 3));
    b.add_string("inf");
    b.add_double(HUGE_VAL);
    b.add_string("nan");
    b.add_double(std::nan(""));
    b.add_string("ts");
    b.add_timestamp("1979-05-27", timestamp_kind::local_date);
    b.add_bool(true);
    b.add_double(-HUGE_VAL);
    b.add_string("big");
    b.add_bignum("-18446744073709551616");
    b.end_map();
    std::string text = must_encode(format_id::sexpr, d);
    EXPECT_EQ(text,
              "((7 . #u8(0 1 255)) (inf . +inf.0) (nan . +nan.0) (ts . \"1979-05-27\") "
              "(#t . -inf.0) (big . -18446744073709551616))");
    EXPECT_EQ(decoded_as(format_id::sexpr, text),
              "{7:b64\"AAH/\",\"inf\":Infinity,\"nan\":NaN,\"ts\":\"1979-05-27\",true:-Infinity,"
              "\"big\":-18446744073709551616n}");
}

TEST(SexprEncode, TagIsLossy) {
    document d = map_with("t", [](builder& b) {
        b.begin_tagged(0);
        b.add_string("2020-01-01T00:00:00Z");
    });
    expect_lossy_only(format_id::sexpr, d, "/t", "((t . \"2020-01-01T00:00:00Z\"))");
}

TEST(SexprRoundTrip, RecordsFixture) {
    expect_round_trips_compact_and_pretty(format_id::sexpr, json_fixture("records.json"));
}

}  // namespace
}  // namespace polycodec::test
