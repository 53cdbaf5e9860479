// Tests of the dotenv codec: spec examples, error positions, exact encodings.
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string env(std::string_view text) { return decoded_as(format_id::dotenv, text); }

TEST(DotenvDecode, Grammar) {
    EXPECT_EQ(env("A=1\n"
                  "export B = \"x\\ny\" # comment\n"
                  "C='lit $x \\n'\n"
                  "D=a b # comment\n"
                  "E=#x\n"
                  "F=a#b\n"
                  "# a comment\n"
                  "\n"
                  "  G.h-i=\"multi\nline\"\n"
                  "H=\"t\\tq\\\"b\\\\ \\x\"\n"
                  "I=\n"
                  "J='two\nlines'\n"
                  "K=  padded\t \n"),
              "{\"A\":\"1\",\"B\":\"x\\u000ay\",\"C\":\"lit $x \\\\n\",\"D\":\"a b\",\"E\":\"\","
              "\"F\":\"a#b\",\"G.h-i\":\"multi\\u000aline\",\"H\":\"t\\u0009q\\\"b\\\\ \\\\x\",\"I\":\"\","
              "\"J\":\"two\\u000alines\",\"K\":\"padded\"}");
}

TEST(DotenvDecode, LineEndsBomEmptyAndDuplicates) {
    const text_case cases[] = {
        {"", "{}"},
        {"\xEF\xBB\xBF"
         "A=1\r\nB=\"x\r\ny\"\r\n",
         "{\"A\":\"1\",\"B\":\"x\\u000ay\"}"},
    };
    expect_decodes(format_id::dotenv, cases);
    EXPECT_EQ(env("A=1\nA=2"), "{\"A\":\"1\",\"A\":\"2\"}");  // kept as they came
    EXPECT_EQ(env("export=1\n"), "{\"export\":\"1\"}");
}

TEST(DotenvDecode, Errors) {
    const bad_input bad[] = {
        {"A=1\nB\n",
         {errc::unexpected_char, 5, 2, 2, "expected '=' after the variable name, saw end of line"}},
        {"A=1\n  $X=2\n", {errc::unexpected_char, 6, any, 3}},
        {"A=1\nB=\"open\nC=2\n", {errc::unexpected_eof, 6, 2, 3}},
        {"A='x' y\n", {errc::trailing_content, 6}},
        {"A=ok\nB=\xC3\x28\n", {errc::invalid_utf8, 7, 2}},
    };
    expect_decode_errors(format_id::dotenv, bad);
}

TEST(DotenvEncode, ExactBytes) {
    const text_case cases[] = {
        {R"({"A":"1","B":"x y","C":" pad","D":"a#b","E":"","F":"it's \"q\"",)"
         R"("G":"two\nlines","H":"cr\r","I":"back\\slash $HOME"})",
         "A=1\nB=x y\nC=' pad'\nD='a#b'\nE=''\nF=\"it's \\\"q\\\"\"\n"
         "G='two\nlines'\nH=\"cr\\r\"\nI='back\\slash $HOME'\n"},
        {R"({"n":5,"f":2.0,"t":true,"big":123456789012345678901234567890})",
         "n=5\nf=2.0\nt=true\nbig=123456789012345678901234567890\n"},
        {"{}", ""},
    };
    expect_encodes(format_id::dotenv, cases);
}

TEST(DotenvEncode, NestedMapsJoinWithDoubleUnderscore) {
    EXPECT_EQ(encode_json_as(format_id::dotenv,
                             R"({"app":{"db":{"host":"h","port":5432},"debug":false},"x":"1"})"),
              "app__db__host=h\napp__db__port=5432\napp__debug=false\nx=1\n");
    // Decoding stays flat, and flat maps of strings round trip.
    const char* flat = R"({"app__db__host":"h","x":"it's","y":"a\nb\r"})";
    document a = must_decode(format_id::json, flat);
    document back = must_decode(format_id::dotenv, must_encode(format_id::dotenv, a));
    EXPECT_TRUE(equal(a, back)) << dbg(back);
}

TEST(DotenvEncode, Unrepresentable) {
    error e = encode_json_error(format_id::dotenv, R"([1])");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "");
    e = encode_json_error(format_id::dotenv, R"({"a":{"b":[1,2]}})");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "/a/b");
    e = encode_json_error(format_id::dotenv, R"({"a":null})");
    EXPECT_EQ(e.path, "/a");
    EXPECT_EQ(e.message, "null is not representable in dotenv");
    e = encode_json_error(format_id::dotenv, R"({"a b":"1"})");
    EXPECT_EQ(e.path, "/a b");
    e = encode_json_error(format_id::dotenv, R"({"a":{}})");
    EXPECT_EQ(e.path, "/a");

    lossy_encode lossy;
    EXPECT_EQ(
        encode_json_as(format_id::dotenv, R"({"a":null,"b":[1,"x"],"c d":"1","e":{}})", lossy.opt),
        "a=''\nb='[1,\"x\"]'\nc_d=1\n");
    expect_report(lossy.report,
                  {{"null_to_empty"}, {"array_to_json"}, {"key_changed"}, {"empty_map_dropped"}});
}

TEST(DotenvEncode, BytesAreBase64url) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("K");
    b.add_bytes(std::string("\xfb\xff", 2));
    b.end_map();
    EXPECT_EQ(must_encode(format_id::dotenv, d), "K=-_8\n");
}

}  // namespace
}  // namespace polycodec::test

namespace polycodec {
namespace {

// unflatten=true nests KEY__SUB as the Rust envy crate reads prefixed variables; infer=true
// types numbers and booleans. Both make nested, typed maps round-trip through dotenv.
TEST(DotenvUnflatten, NestsOnDoubleUnderscoreAndInfersTypes) {
    decode_options opt;
    opt.unflatten = true;
    document d = test::must_decode(format_id::dotenv,
                                   "TITLE=x\nOWNER__NAME=bob\nOWNER__ID=42\nON=true\n", opt);
    EXPECT_EQ(test::dbg(d), R"({"TITLE":"x","OWNER":{"NAME":"bob","ID":"42"},"ON":"true"})");
    opt.infer = true;
    d = test::must_decode(format_id::dotenv, "OWNER__ID=42\nON=true\nPI=3.5\nS=\"007\"\n", opt);
    EXPECT_EQ(test::dbg(d), R"({"OWNER":{"ID":42},"ON":true,"PI":3.5,"S":"007"})");
    document src = test::must_decode(
        format_id::json, R"({"title":"t","owner":{"name":"n","id":"42","deep":{"x":"1"}}})");
    decode_options nested;
    nested.unflatten = true;
    document back = test::must_decode(format_id::dotenv,
                                      test::must_encode(format_id::dotenv, src), nested);
    EXPECT_TRUE(equal(src, back)) << test::dbg(back);
}

TEST(DotenvUnflatten, AValueThatIsAlsoAGroupIsAnError) {
    decode_options opt;
    opt.unflatten = true;
    error e = test::decode_error(format_id::dotenv, "A=1\nA__B=2\n", opt);
    EXPECT_EQ(e.code, errc::duplicate_key);
}

}  // namespace
}  // namespace polycodec
