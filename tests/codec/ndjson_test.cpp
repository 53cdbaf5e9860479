// Tests of the ndjson codec: spec examples, error positions, exact encodings.
#include <algorithm>
#include <limits>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string nd(std::string_view text) { return dbg(must_decode(format_id::ndjson, text)); }

std::string encode_nd(std::string_view json, encode_options opt = {}) {
    return must_encode(format_id::ndjson, must_decode(format_id::json, json), opt);
}

TEST(NdjsonDecode, OneValuePerLine) {
    // The example of the JSON Lines site (jsonlines.org).
    EXPECT_EQ(nd("{\"name\": \"Gilbert\", \"wins\": [[\"straight\", \"7\u2663\"]]}\n"
                 "{\"name\": \"Alexa\", \"wins\": []}\n"),
              "[{\"name\":\"Gilbert\",\"wins\":[[\"straight\",\"7\u2663\"]]},"
              "{\"name\":\"Alexa\",\"wins\":[]}]");
    EXPECT_EQ(nd("1\n\"two\"\nnull\ntrue\n[3]\n-0.5\n18446744073709551615\n"
                 "123456789012345678901234567890"),
              "[1,\"two\",null,true,[3],-0.5,18446744073709551615u,"
              "123456789012345678901234567890n]");
}

TEST(NdjsonDecode, BlankLinesAndCrlfAreSkipped) {
    EXPECT_EQ(nd(""), "[]");
    EXPECT_EQ(nd("\n\n"), "[]");
    EXPECT_EQ(nd("1\r\n\r\n  \t \n2\r\n  3  \n"), "[1,2,3]");
    EXPECT_EQ(nd("{\"a\":1}"), "[{\"a\":1}]");  // no final newline
}

TEST(NdjsonDecode, ErrorsNameTheLine) {
    error e = decode_error(format_id::ndjson, "1\n2\n{\"a\" 1}\n");
    EXPECT_EQ(e.code, errc::unexpected_char);
    EXPECT_EQ(e.offset, 9u);
    EXPECT_EQ(e.line, 3u);
    EXPECT_EQ(e.column, 6u);
    EXPECT_EQ(e.path, "/2/a");

    // Two values on one line: trailing content at the second one.
    e = decode_error(format_id::ndjson, "1\n2 3\n");
    EXPECT_EQ(e.code, errc::trailing_content);
    EXPECT_EQ(e.offset, 4u);
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 3u);

    // A value cannot continue on the next line.
    e = decode_error(format_id::ndjson, "[1,\n2]\n");
    EXPECT_EQ(e.code, errc::unexpected_eof);
    EXPECT_EQ(e.offset, 3u);
    EXPECT_EQ(e.line, 1u);
    EXPECT_EQ(e.column, 4u);

    e = decode_error(format_id::ndjson, "\"ok\"\n\"\xff\"\n");
    EXPECT_EQ(e.code, errc::invalid_utf8);
    EXPECT_EQ(e.offset, 6u);
    EXPECT_EQ(e.line, 2u);

    e = decode_error(format_id::ndjson, "\xEF\xBB\xBF{}\n");
    EXPECT_EQ(e.code, errc::unexpected_char);
    EXPECT_EQ(e.offset, 0u);
}

TEST(NdjsonDecode, DepthLimit) {
    decode_options opt;
    opt.limits.max_depth = 3;  // the root array counts as one level
    EXPECT_EQ(dbg(must_decode(format_id::ndjson, "[[1]]\n", opt)), "[[[1]]]");
    document d;
    auto r = decode(format_id::ndjson, "[1]\n[[[1]]]\n", d, opt);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::depth_exceeded);
    EXPECT_EQ(r.error().line, 2u);
}

TEST(NdjsonEncode, ExactBytes) {
    EXPECT_EQ(encode_nd("[{\"a\": [1, 2.5, null]}, \"x\\ny\", true, [], {}]"),
              "{\"a\":[1,2.5,null]}\n\"x\\ny\"\ntrue\n[]\n{}\n");
    EXPECT_EQ(encode_nd("[]"), "");
    encode_options pretty;
    pretty.pretty = true;  // ignored: one line per value
    EXPECT_EQ(encode_nd("[{\"a\": 1}, [2]]", pretty), "{\"a\":1}\n[2]\n");
}

TEST(NdjsonEncode, RootMustBeAnArray) {
    document d = must_decode(format_id::json, "{\"a\": 1}");
    output_buffer out;
    auto r = encode(format_id::ndjson, d, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::unrepresentable);
    EXPECT_EQ(r.error().path, "");

    encode_options lossy;
    lossy_report report;
    lossy.lossy = true;
    lossy.report = &report;
    EXPECT_EQ(must_encode(format_id::ndjson, d, lossy), "{\"a\":1}\n");
    ASSERT_EQ(report.size(), 1u);
    EXPECT_EQ(report[0].kind, "root_as_single_line");
}

TEST(NdjsonEncode, JsonRulesApplyInside) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_int(1);
    b.add_double(std::numeric_limits<double>::quiet_NaN());
    b.add_bytes(std::string("\x00\xff", 2));
    b.end_array();
    output_buffer out;
    auto r = encode(format_id::ndjson, d, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::unrepresentable);
    EXPECT_EQ(r.error().path, "/1");
    encode_options lossy;
    lossy.lossy = true;
    EXPECT_EQ(must_encode(format_id::ndjson, d, lossy), "1\nnull\n\"AP8\"\n");
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
