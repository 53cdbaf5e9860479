// Tests of the ndjson codec: spec examples, error positions, exact encodings.
#include <algorithm>
#include <limits>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string nd(std::string_view text) { return decoded_as(format_id::ndjson, text); }

std::string encode_nd(std::string_view json, const encode_options& opt = {}) {
    return encode_json_as(format_id::ndjson, json, opt);
}

TEST(NdjsonDecode, OneValuePerLine) {
    // The example of the JSON Lines site (jsonlines.org).
    const text_case cases[] = {
        {"{\"name\": \"Gilbert\", \"wins\": [[\"straight\", \"7\u2663\"]]}\n"
         "{\"name\": \"Alexa\", \"wins\": []}\n",
         "[{\"name\":\"Gilbert\",\"wins\":[[\"straight\",\"7\u2663\"]]},"
         "{\"name\":\"Alexa\",\"wins\":[]}]"},
        {"1\n\"two\"\nnull\ntrue\n[3]\n-0.5\n18446744073709551615\n"
         "123456789012345678901234567890",
         "[1,\"two\",null,true,[3],-0.5,18446744073709551615u,"
         "123456789012345678901234567890n]"},
    };
    expect_decodes(format_id::ndjson, cases);
}

TEST(NdjsonDecode, BlankLinesAndCrlfAreSkipped) {
    const text_case cases[] = {
        {"", "[]"},
        {"\n\n", "[]"},
        {"1\r\n\r\n  \t \n2\r\n  3  \n", "[1,2,3]"},
    };
    expect_decodes(format_id::ndjson, cases);
    EXPECT_EQ(nd("{\"a\":1}"), "[{\"a\":1}]");  // no final newline
}

TEST(NdjsonDecode, ErrorsNameTheLine) {
    const bad_input bad[] = {
        {"1\n2\n{\"a\" 1}\n",
         {.code = errc::unexpected_char, .offset = 9, .line = 3, .column = 6, .path = "/2/a"}},
        // Two values on one line: trailing content at the second one.
        {"1\n2 3\n", {errc::trailing_content, 4, 2, 3}},
        // A value cannot continue on the next line.
        {"[1,\n2]\n", {errc::unexpected_eof, 3, 1, 4}},
        {"\"ok\"\n\"\xff\"\n", {errc::invalid_utf8, 6, 2}},
        {"\xEF\xBB\xBF{}\n", {errc::unexpected_char, 0}},
    };
    expect_decode_errors(format_id::ndjson, bad);
}

TEST(NdjsonDecode, DepthLimit) {
    const decode_options opt = max_depth(3);  // the root array counts as one level
    EXPECT_EQ(decoded_as(format_id::ndjson, "[[1]]\n", opt), "[[[1]]]");
    expect_decode_error(format_id::ndjson, "[1]\n[[[1]]]\n", {errc::depth_exceeded, any, 2}, opt);
}

TEST(NdjsonEncode, ExactBytes) {
    const text_case cases[] = {
        {"[{\"a\": [1, 2.5, null]}, \"x\\ny\", true, [], {}]",
         "{\"a\":[1,2.5,null]}\n\"x\\ny\"\ntrue\n[]\n{}\n"},
        {"[]", ""},
    };
    expect_encodes(format_id::ndjson, cases);
    encode_options pretty;
    pretty.pretty = true;  // ignored: one line per value
    EXPECT_EQ(encode_nd("[{\"a\": 1}, [2]]", pretty), "{\"a\":1}\n[2]\n");
}

TEST(NdjsonEncode, RootMustBeAnArray) {
    document d = must_decode(format_id::json, "{\"a\": 1}");
    expect_report(expect_lossy_only(format_id::ndjson, d, "", "{\"a\":1}\n"),
                  {{"root_as_single_line"}});
}

TEST(NdjsonEncode, JsonRulesApplyInside) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_int(1);
    b.add_double(std::numeric_limits<double>::quiet_NaN());
    b.add_bytes(std::string("\x00\xff", 2));
    b.end_array();
    expect_lossy_only(format_id::ndjson, d, "/1", "1\nnull\n\"AP8\"\n");
}

TEST(NdjsonRoundTrip, RecordsFixture) {
    std::string json = read_file(fixtures_dir() / "records.json");
    document a = must_decode(format_id::json, json);
    std::string text = must_encode(format_id::ndjson, a);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 256);
    document back = must_decode(format_id::ndjson, text);
    EXPECT_TRUE(equal(a, back));
}

}  // namespace
}  // namespace polycodec::test
