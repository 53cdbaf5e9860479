// Tests of the hjson codec: the rules of hjson-js's parser, error positions, exact encodings
// as Hjson.stringify writes them, the hjson-cpp assets.
#include <fstream>
#include <string>
#include <vector>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string encode_hj(std::string_view json) { return encode_json_as(format_id::hjson, json); }

// ---- decoding ----

TEST(HjsonDecode, QuotelessStringsRunToTheEndOfTheLine) {
    const text_case cases[] = {
        {"a: 3 times\nb: 3\nc: true story\nd: x, y # not a comment\n",
         "{\"a\":\"3 times\",\"b\":3,\"c\":\"true story\","
         "\"d\":\"x, y # not a comment\"}"},
        // Trailing white space is not part of the value; a \r before \n ends the line.
        {"a: text   \r\nb: x", "{\"a\":\"text\",\"b\":\"x\"}"},
    };
    expect_decodes(format_id::hjson, cases);
}

TEST(HjsonDecode, NumbersAndKeywordsOnlyWhenTheWholeValueIsOne) {
    // hjson-common.js tryParseNumber: no leading zeros, digits required before '.', finite.
    const text_case cases[] = {
        {"[\n0\n-0\n42\n-5.1\n1.\n1.e2\n17.01e2\n12345e-3\n12345678901234567890123\n"
         "007\n.5\n-.5\n1e\n1e999\n0x10\n- 5\n1 2\n]",
         "[0,0,42,-5.1,1.0,100.0,1701.0,12.345,12345678901234567890123n,"
         "\"007\",\".5\",\"-.5\",\"1e\",\"1e999\",\"0x10\",\"- 5\",\"1 2\"]"},
        // A value ends at ',' ']' '}' or a comment when what precedes is a number or keyword.
        {"[1, true, null # c\n, false // c\n 2 /* c */]", "[1,true,null,false,2]"},
    };
    expect_decodes(format_id::hjson, cases);
    // ... otherwise the quoteless string takes the rest of the line, closing brace included.
    EXPECT_EQ(decode_error(format_id::hjson, "{a: 1, b: x, c: 2}").code, errc::unexpected_eof);
}

TEST(HjsonDecode, CommasAreOptional) {
    const text_case cases[] = {
        {"{\n  a: 1\n  b: [\n    x\n    2,\n  ],\n}", "{\"a\":1,\"b\":[\"x\",2]}"},
        // After a quoteless string a comma is content.
        {"[\n  y,\n]", "[\"y,\"]"},
    };
    expect_decodes(format_id::hjson, cases);
}

TEST(HjsonDecode, MultilineStrings) {
    // The indentation of the opening ''' is removed; the last line break is not content.
    const text_case cases[] = {
        {"k:\n  '''\n  first\n    indented\n\n  last\n  '''",
         "{\"k\":\"first\\u000a  indented\\u000a\\u000alast\"}"},
        {"k: '''one line'''", "{\"k\":\"one line\"}"},
        // CR is dropped; fewer than three quotes are content.
        {"k: '''\r\n   a''b\r\n   '''", "{\"k\":\"a''b\"}"},
    };
    expect_decodes(format_id::hjson, cases);
}

TEST(HjsonDecode, QuotedStringsAndKeys) {
    const text_case cases[] = {
        {R"({"a b": 'it\'s', 'c': "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"})",
         "{\"a b\":\"it's\",\"c\":\"\\\"\\\\/\\u0008\\u000c\\u000a\\u000d\\u0009\xC3\xA9"
         "\xF0\x9F\x98\x80\"}"},
        {"{key   : v\n}", "{\"key\":\"v\"}"},
    };
    expect_decodes(format_id::hjson, cases);
}

TEST(HjsonDecode, RootWithoutBraces) {
    const text_case cases[] = {
        {"a: 1\nb: 2", "{\"a\":1,\"b\":2}"},
        {"", "{}"},
        {"# only a comment", "{}"},
        // When the root does not read as an object it is one value (hjson-js legacyRootValue).
        {"42", "42"},
        {"\"quoted\"", "\"quoted\""},
        {"just some words", "\"just some words\""},
        {"key with space: 1", "\"key with space: 1\""},
    };
    expect_decodes(format_id::hjson, cases);
}

TEST(HjsonDecode, ErrorsCarryOffsetLineAndColumn) {
    const bad_input cases[] = {
        {"{a: 1", {errc::unexpected_eof, 5, 1, 6}},
        {"[1, 2", {errc::unexpected_eof, 5, 1, 6}},
        {"a: 1\nb c: 2", {errc::unexpected_char, 6, 2, 2}},
        {"{a: \"x\nb: 1}", {errc::invalid_string, 6, 1, 7}},
        {"{a: \"\\q\"}", {errc::invalid_string, 5, 1, 6}},
        {"{a: \"\\ud800\"}", {errc::invalid_string, 5, 1, 6}},
        {"{a: '''never}", {errc::unexpected_eof, 13, 1, 14}},
        {"{: 1}", {errc::unexpected_char, 1, 1, 2}},
        {"[}", {errc::unexpected_char, 1, 1, 2}},
        {"{a: 1}}", {errc::trailing_content, 6, 1, 7}},
        {"{a: 1 /* open", {errc::unexpected_eof, 13, 1, 14}},
        {"{a: \xC3}", {errc::invalid_utf8, 4, 1, 5}},
    };
    expect_decode_errors(format_id::hjson, cases);
}

TEST(HjsonDecode, DepthLimit) {
    expect_decode_error(format_id::hjson, std::string(600, '['), {errc::depth_exceeded});
}

// ---- encoding: the output of hjson-js Hjson.stringify(value) ----

TEST(HjsonEncode, LayoutOfObjectsAndArrays) {
    const text_case cases[] = {
        {R"({"a":1,"b":{"c":[1,{"d":null}],"e":[]},"f":{}})",
         "{\n  a: 1\n  b:\n  {\n    c:\n    [\n      1\n      {\n        d: null\n"
         "      }\n    ]\n    e: []\n  }\n  f: {}\n}"},
        {"[]", "[]"},
        {"[[1]]", "[\n  [\n    1\n  ]\n]"},
    };
    expect_encodes(format_id::hjson, cases);
}

TEST(HjsonEncode, StringQuoting) {
    const text_case cases[] = {
        {R"({"a":"text","b":"3","c":"3 times","d":"true","e":"true story",)"
         R"("f":"null, x","g":"# x","h":" x","i":"x ","j":"","k":"a\"b",)"
         R"("l":"a\\b","m":"1e999","n":"-.5"})",
         "{\n  a: text\n  b: \"3\"\n  c: 3 times\n  d: \"true\"\n  e: true story\n"
         "  f: \"null, x\"\n  g: \"# x\"\n  h: \" x\"\n  i: \"x \"\n  j: \"\"\n"
         "  k: a\"b\n  l: a\\b\n  m: 1e999\n  n: -.5\n}"},
        // Quotes are needed and so are escapes: ''' where it reads back, JSON escapes otherwise.
        {R"({"a":"\"q\"\\","b":"x\ny","c":"ctl\u0001","d":"\u00ad"})",
         "{\n  a: '''\"q\"\\'''\n  b:\n    '''\n    x\n    y\n    '''\n"
         "  c: \"ctl\\u0001\"\n  d: \"\\u00ad\"\n}"},
    };
    expect_encodes(format_id::hjson, cases);
}

// The writer tests strings for plain ASCII 8 bytes a step: a byte that needs an escape or
// decides the quoting is found first, in the middle and last in strings of 1 to 17 bytes.
TEST(HjsonEncode, StringQuotingAtEveryLength) {
    struct probe {
        const char* json;  // the byte in a JSON string
        const char* text;  // as the hjson string writes it
        bool escaped;      // the string becomes a "..." string with escapes, else stays bare
    };
    const probe probes[] = {
        {"\\u0001", "\\u0001", true}, {"\\u001f", "\\u001f", true}, {"\\u007f", "\\u007f", true},
        {"\\\\", "\\", false},        {"~", "~", false},
    };
    for (std::size_t n = 1; n <= 17; ++n) {
        for (std::size_t at : {std::size_t{0}, (n - 1) / 2, n - 1}) {
            const std::string a(at, 'x');
            const std::string b(n - 1 - at, 'x');
            for (const probe& p : probes) {
                const std::string s = a + p.text + b;
                const std::string want = p.escaped ? "\"" + s + "\"" : s;
                EXPECT_EQ(encode_hj("{\"k\":\"" + a + p.json + b + "\"}"),
                          "{\n  k: " + want + "\n}")
                    << n << " " << at << " " << p.json;
            }
            // '"' is written as it is unless it comes first (then ''' quotes the string).
            EXPECT_EQ(encode_hj("{\"k\":\"" + a + "\\\"" + b + "\"}"),
                      "{\n  k: " + (at == 0 ? "'''\"" + b + "'''" : a + "\"" + b) + "\n}");
        }
    }
    // Plain ASCII of every length up to 17 stays bare, or quoted where it would read back as
    // something else (a trailing space); a digit then text is no number.
    for (std::size_t n = 1; n <= 17; ++n) {
        const std::string x(n, 'x');
        EXPECT_EQ(encode_hj("[\"" + x + "\",\"" + x + " \",\"1" + x + "\"]"),
                  "[\n  " + x + "\n  \"" + x + " \"\n  1" + x + "\n]");
    }
}

TEST(HjsonEncode, KeyQuoting) {
    EXPECT_EQ(encode_hj(R"({"":1,"a b":2,"a:b":3,"#":4,"//":5,"'":6,"ok-key_1":7,"\u00e9":8})"),
              "{\n  \"\": 1\n  \"a b\": 2\n  \"a:b\": 3\n  \"#\": 4\n  \"//\": 5\n  \"'\": 6\n"
              "  ok-key_1: 7\n  \xC3\xA9: 8\n}");
}

TEST(HjsonEncode, DeviationsThatKeepValues) {
    // hjson-js would drop the \r of a ''' string, the leading space of a one-line ''' string,
    // and could not close one that ends with a quote: polycodec escapes these instead.
    const text_case cases[] = {
        {R"({"a":"x\r\ny","b":" \\","c":"# x\\'"})",
         "{\n  a: \"x\\r\\ny\"\n  b: \" \\\\\"\n  c: \"# x\\\\'\"\n}"},
        {R"({"k\u0001":1})", "{\n  \"k\\u0001\": 1\n}"},
    };
    expect_encodes(format_id::hjson, cases);
}

TEST(HjsonEncode, RootScalarsAndFloats) {
    EXPECT_EQ(encode_hj("\"x\\ny\""), "\"x\\ny\"");  // no ''' at the root
    EXPECT_EQ(encode_hj("[1.0, -0.5, 1e300, 12345678901234567890123]"),
              "[\n  1.0\n  -0.5\n  1e300\n  12345678901234567890123\n]");
}

TEST(HjsonEncode, NonFiniteIsUnrepresentableUnlessLossy) {
    document d = must_decode(format_id::json5, "{a: [1, NaN]}");
    expect_report(
        expect_lossy_only(format_id::hjson, d, "/a/1", "{\n  a:\n  [\n    1\n    null\n  ]\n}"),
        {{"nonfinite_to_null"}});
}

TEST(HjsonEncode, RoundTripsFixtures) {
    for (const char* name : {"records.json", "bench.json"}) {
        SCOPED_TRACE(name);
        expect_round_trip(format_id::hjson,
                          must_decode(format_id::json, read_file(fixtures_dir() / name)));
    }
}

// ---- hjson-cpp assets ----

// testlist.txt: fail* must be rejected; the others decode to NAME_result.json, and our writer's
// output is compared with NAME_result.hjson (hjson-cpp's default output).
TEST(HjsonCorpus, HjsonCppAssets) {
    POLYCODEC_REQUIRE_CORPUS("hjson/hjson-cpp", root);
    std::ifstream list(root / "testlist.txt");
    std::string line;
    int rejected = 0;
    int decoded = 0;
    int text_matched = 0;
    std::vector<std::string> text_differs;
    while (std::getline(list, line)) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.empty()) {
            continue;
        }
        std::string name = line.substr(0, line.rfind("_test"));
        SCOPED_TRACE(line);
        std::string text = read_file(root / line);
        document d;
        auto r = decode(format_id::hjson, text, d);
        if (name.rfind("fail", 0) == 0) {
            EXPECT_FALSE(r) << "accepted: " << dbg(d);
            if (!r) {
                EXPECT_GT(r.error().line, 0u);
                ++rejected;
            }
            continue;
        }
        ASSERT_TRUE(r) << describe(r.error());
        ++decoded;
        document want = must_decode(format_id::json, read_file(root / (name + "_result.json")));
        if (name != "pass5") {  // hjson-cpp rounds a 59-digit integer to a double there
            EXPECT_TRUE(equal(d, want)) << dbg(d) << "\n!=\n" << dbg(want);
        }
        std::string ours = must_encode(format_id::hjson, d);
        std::string expected = read_file(root / (name + "_result.hjson"));
        for (std::size_t p; (p = expected.find("\r\n")) != std::string::npos;) {
            expected.erase(p, 1);
        }
        while (!expected.empty() && expected.back() == '\n') {
            expected.pop_back();
        }
        // hjson-cpp writes '+' in positive exponents (1.23456789e+34); our one float text
        // has none (docs/formats/hjson.md).
        for (std::size_t p; (p = expected.find("e+")) != std::string::npos;) {
            expected.erase(p + 1, 1);
        }
        if (ours == expected) {
            ++text_matched;
        } else {
            text_differs.push_back(name);
        }
        // Our output always reads back as the same value.
        EXPECT_TRUE(equal(d, must_decode(format_id::hjson, ours)));
    }
    EXPECT_EQ(rejected, 64);
    EXPECT_EQ(decoded, 30);
    // pass5 differs only in the integer hjson-cpp rounded (9.22337203685478e+58).
    EXPECT_EQ(text_matched, 29);
    EXPECT_EQ(text_differs, std::vector<std::string>{"pass5"});
}

}  // namespace
}  // namespace polycodec::test
