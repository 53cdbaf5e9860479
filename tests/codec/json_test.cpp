// Tests of the json codec (RFC 8259): spec examples, error positions, exact encodings,
// JSONTestSuite and the json-bench files from the corpus, limits, lossy cases.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <thread>
#include <string>
#include <vector>

#include <simdjson.h>

#include "support/support.hpp"
#include "../codec/src/detail/json_text.hpp"

namespace polycodec {
namespace {

using test::dbg;
using test::encode_error_of;
using test::expect_encodes;
using test::expect_error;
using test::expect_report;
using test::lossy_encode;
using test::max_bytes;
using test::max_depth;
using test::text_case;

std::string decoded(std::string_view text, const decode_options& opt = {}) {
    return dbg(test::must_decode(format_id::json, text, opt));
}

std::string encoded(const document& d, const encode_options& opt = {}) {
    return test::must_encode(format_id::json, d, opt);
}

// JSON text -> JSON text through a document.
std::string reencoded(std::string_view text, const encode_options& opt = {}) {
    return encoded(test::must_decode(format_id::json, text), opt);
}

// ---- spec table ----

struct decode_case {
    const char* json;
    const char* value;  // to_debug_string of the result
};

const decode_case decode_table[] = {
    // RFC 8259 section 2: "A JSON text is a serialized value", so scalars are texts too.
    {"null", "null"},
    {"true", "true"},
    {"false", "false"},
    {" \t\r\n 1 \t\r\n ", "1"},
    {"0", "0"},
    {"-0", "0"},
    {"-0.0", "-0.0"},
    {"1.0", "1.0"},
    {"1E2", "100.0"},
    {"1e-2", "0.01"},
    {"-1.5e+3", "-1500.0"},
    {"123456789", "123456789"},
    // Integers: int64, then uint64 above INT64_MAX, then exact bignums.
    {"9223372036854775807", "9223372036854775807"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"9223372036854775808", "9223372036854775808u"},
    {"18446744073709551615", "18446744073709551615u"},
    {"18446744073709551616", "18446744073709551616n"},
    {"-9223372036854775809", "-9223372036854775809n"},
    {"123456789012345678901234567890", "123456789012345678901234567890n"},
    {"-123456789012345678901234567890", "-123456789012345678901234567890n"},
    // Floats: underflow reads as zero, subnormals and the extremes exactly.
    {"1e-400", "0.0"},
    {"-1e-400", "-0.0"},
    {"5e-324", "5e-324"},
    {"1.7976931348623157e308", "1.7976931348623157e308"},
    {"0.1", "0.1"},
    // Strings: RFC 8259 section 7 escapes, UTF-8 kept, surrogate pairs joined.
    {R"("")", R"("")"},
    {R"("abc")", R"("abc")"},
    {R"("\"\\\/\b\f\n\r\t")", "\"\\\"\\\\/\\u0008\\u000c\\u000a\\u000d\\u0009\""},
    {R"("\u0041\u00e9\u20AC")", "\"A\xc3\xa9\xe2\x82\xac\""},
    {R"("\ud83d\ude00")", "\"\xf0\x9f\x98\x80\""},
    {R"("\u0000")", R"("\u0000")"},
    {"\"h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac\"", "\"h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac\""},
    {"\"\xf4\x8f\xbf\xbf\"", "\"\xf4\x8f\xbf\xbf\""},  // U+10FFFF
    // Containers.
    {"[]", "[]"},
    {"{}", "{}"},
    {"[ ]", "[]"},
    {"{ }", "{}"},
    {"[1,\"a\",null,true,[],{}]", "[1,\"a\",null,true,[],{}]"},
    {R"({"a":{"b":[{"c":null}]}})", R"({"a":{"b":[{"c":null}]}})"},
    // Duplicate keys are kept in source order (RFC 8259 section 4 leaves them to us).
    {R"({"a":1,"b":2,"a":3})", R"({"a":1,"b":2,"a":3})"},
    {R"({"b":1,"a":2})", R"({"b":1,"a":2})"},
};

TEST(JsonDecode, SpecTable) {
    for (const auto& c : decode_table) {
        EXPECT_EQ(decoded(c.json), c.value) << c.json;
        // Inside an array too: a scalar document is read by the own reader, a container by
        // simdjson first.
        EXPECT_EQ(decoded("[" + std::string(c.json) + "]"), "[" + std::string(c.value) + "]")
            << c.json;
    }
}

TEST(JsonDecode, KindsOfNumbers) {
    document d =
        test::must_decode(format_id::json, "[1,1.0,18446744073709551615,99999999999999999999]");
    ASSERT_EQ(d.root().size(), 4u);
    std::vector<kind> kinds;
    for (value v : d.root().items()) {
        kinds.push_back(v.kind());
    }
    EXPECT_EQ(kinds, (std::vector<kind>{kind::int64, kind::float64, kind::uint64, kind::bignum}));
}

// ---- error table ----

struct error_case {
    const char* json;
    errc code;
    std::uint64_t offset;
    std::uint32_t line;
    std::uint32_t column;
    const char* path;
};

const error_case error_table[] = {
    {"", errc::unexpected_eof, 0, 1, 1, ""},
    {"   ", errc::unexpected_eof, 3, 1, 4, ""},
    {"[1, 2", errc::unexpected_eof, 5, 1, 6, "/2"},
    {"[1 2]", errc::unexpected_char, 3, 1, 4, "/1"},
    {"[1,]", errc::unexpected_char, 3, 1, 4, "/1"},
    {"[,1]", errc::unexpected_char, 1, 1, 2, "/0"},
    {R"({"a" 1})", errc::unexpected_char, 5, 1, 6, "/a"},
    {R"({"a":1,})", errc::unexpected_char, 7, 1, 8, ""},
    {"{1:2}", errc::unexpected_char, 1, 1, 2, ""},
    {R"({"a":})", errc::unexpected_char, 5, 1, 6, "/a"},
    {"[tru]", errc::unexpected_char, 1, 1, 2, "/0"},
    {"[NaN]", errc::unexpected_char, 1, 1, 2, "/0"},
    {"[Infinity]", errc::unexpected_char, 1, 1, 2, "/0"},
    {"'a'", errc::unexpected_char, 0, 1, 1, ""},
    {"[01]", errc::invalid_number, 2, 1, 3, "/0"},
    {"[1.]", errc::invalid_number, 3, 1, 4, "/0"},
    {"[.5]", errc::unexpected_char, 1, 1, 2, "/0"},
    {"[1e]", errc::invalid_number, 3, 1, 4, "/0"},
    {"[-]", errc::invalid_number, 2, 1, 3, "/0"},
    {"[+1]", errc::unexpected_char, 1, 1, 2, "/0"},
    {"[1e400]", errc::invalid_number, 1, 1, 2, "/0"},
    {R"(["a\x"])", errc::invalid_string, 3, 1, 4, "/0"},
    {R"(["\u12"])", errc::invalid_string, 2, 1, 3, "/0"},
    {R"(["\ud800"])", errc::invalid_string, 2, 1, 3, "/0"},
    {R"(["\udc00\ud800"])", errc::invalid_string, 2, 1, 3, "/0"},
    {"[\"a\tb\"]", errc::invalid_string, 3, 1, 4, "/0"},
    {"[\"a\nb\"]", errc::invalid_string, 3, 1, 4, "/0"},
    {"\"abc", errc::unexpected_eof, 4, 1, 5, ""},
    {"[\"\xff\"]", errc::invalid_utf8, 2, 1, 3, "/0"},
    {"[\"\xc3\xa9\xc3\"]", errc::invalid_utf8, 4, 1, 4, "/0"},  // truncated sequence
    {"\"\xed\xa0\x80\"", errc::invalid_utf8, 1, 1, 2, ""},      // encoded surrogate
    {"\"\xc0\xaf\"", errc::invalid_utf8, 1, 1, 2, ""},          // overlong
    {"\"\\n\xf8\"", errc::invalid_utf8, 3, 1, 4, ""},           // after an escape
    // The first offending byte wins: invalid UTF-8 before a control character or bad escape.
    {"[\"\xff\tx\"]", errc::invalid_utf8, 2, 1, 3, "/0"},
    {"[\"\xc3\xa9\xff\\u12\"]", errc::invalid_utf8, 4, 1, 4, "/0"},
    {"[\"\xc3\xa9\\n\t\"]", errc::invalid_string, 6, 1, 6, "/0"},
    {"[1] 2", errc::trailing_content, 4, 1, 5, ""},
    {"{} {}", errc::trailing_content, 3, 1, 4, ""},
    {"\xef\xbb\xbf[]", errc::unexpected_char, 0, 1, 1, ""},
    {"{\n  \"a\": [1,\n    2,,\n  ]\n}", errc::unexpected_char, 19, 3, 7, "/a/2"},
    {"{\r\n\"k\":\r\n  x}", errc::unexpected_char, 11, 3, 3, "/k"},
    {"[\"\xc3\xa9\", nul]", errc::unexpected_char, 7, 1, 7, "/1"},
};

TEST(JsonDecode, ErrorTable) {
    for (const auto& c : error_table) {
        error e = test::decode_error(format_id::json, c.json);
        EXPECT_EQ(e.code, c.code) << c.json << ": " << describe(e);
        EXPECT_EQ(e.format, format_id::json) << c.json;
        EXPECT_TRUE(e.has_offset) << c.json;
        EXPECT_EQ(e.offset, c.offset) << c.json << ": " << describe(e);
        EXPECT_EQ(e.line, c.line) << c.json << ": " << describe(e);
        EXPECT_EQ(e.column, c.column) << c.json << ": " << describe(e);
        EXPECT_EQ(e.path, c.path) << c.json << ": " << describe(e);
        EXPECT_FALSE(e.message.empty()) << c.json;
        EXPECT_NE(e.message.back(), '.') << c.json;
    }
}

TEST(JsonDecode, ErrorMessagesSayWhatWasExpected) {
    EXPECT_EQ(test::decode_error(format_id::json, "[1 2]").message, "expected ',' or ']', saw '2'");
    EXPECT_EQ(test::decode_error(format_id::json, R"({"a" 1})").message,
              "expected ':' after object key, saw '1'");
    EXPECT_EQ(test::decode_error(format_id::json, "[1, 2").message,
              "expected ',' or ']', saw end of input");
    EXPECT_EQ(test::decode_error(format_id::json, "[1,").message,
              "expected a value, saw end of input");
    EXPECT_EQ(test::decode_error(format_id::json, "[\x01]").message,
              "expected a value, saw byte 0x01");
}

TEST(JsonDecode, ReportsUnterminatedArray) {
    auto e = test::decode_error(format_id::json, "[1, 2");
    //                                                 ^ offset 5, line 1, column 6
    EXPECT_EQ(e.code, errc::unexpected_eof);
    EXPECT_EQ(e.offset, 5u);
    EXPECT_EQ(e.column, 6u);
    EXPECT_EQ(describe(e).find("json"), 0u) << describe(e);
}

// The fast path (simdjson) hands some inputs to the own reader: integers beyond 64 bits, scalar
// documents, and every error. Both must give the same answers wherever the value sits.
TEST(JsonDecode, BignumsAnywhereInLargeDocuments) {
    std::string text = "{\"pad\":[";
    for (int i = 0; i < 2000; ++i) {
        text += "\"x\\n\",1.5,";
    }
    text += "0],\"big\":[-18446744073709551617,99999999999999999999999],\"a\":1,\"a\":2}";
    document d = test::must_decode(format_id::json, text);
    value big = d.root().find("big");
    ASSERT_NE(big.doc(), nullptr);
    EXPECT_EQ(to_debug_string(big), "[-18446744073709551617n,99999999999999999999999n]");
    EXPECT_EQ(d.root().size(), 4u);
    std::string keys;
    for (auto [k, v] : d.root().entries()) {
        keys += std::string(k.get_string()) + ";";
    }
    EXPECT_EQ(keys, "pad;big;a;a;");
}

TEST(JsonDecode, EscapedKeysAndStringsInLargeDocuments) {
    std::string text = "[";
    for (int i = 0; i < 500; ++i) {
        text += R"({"k\u00e9\"":"v\ud83d\ude00\t",)";
        text += R"("n":-0.0},)";
    }
    text += "null]";
    document d = test::must_decode(format_id::json, text);
    ASSERT_EQ(d.root().size(), 501u);
    EXPECT_EQ(to_debug_string(*d.root().items().begin()),
              "{\"k\xc3\xa9\\\"\":\"v\xf0\x9f\x98\x80\\u0009\",\"n\":-0.0}");
}

TEST(JsonDecode, LoneSurrogatesAreRejected) {
    for (const char* text :
         {R"(["\udc00"])", R"(["\ud800x"])", R"(["\ud800\u0041"])", R"({"\udfff":1})"}) {
        auto e = test::decode_error(format_id::json, text);
        EXPECT_EQ(e.code, errc::invalid_string) << text;
        EXPECT_EQ(e.offset, 2u) << text;
    }
}

TEST(JsonDecode, ErrorsDeepInLargeDocuments) {
    // The offset comes from the own reader after simdjson refuses the input.
    std::string text = "[";
    for (int i = 0; i < 1000; ++i) {
        text += "{\"a\":[1,2,3]},";
    }
    std::size_t at = text.size();
    text += "{\"a\":[1,2,]}]";
    auto e = test::decode_error(format_id::json, text);
    EXPECT_EQ(e.code, errc::unexpected_char);
    EXPECT_EQ(e.offset, at + 10);
    EXPECT_EQ(e.path, "/1000/a/2");
    text.resize(at);
    text += "0] 7";
    e = test::decode_error(format_id::json, text);
    EXPECT_EQ(e.code, errc::trailing_content);
    EXPECT_EQ(e.offset, at + 3);
    text.resize(at);
    text += "0]]";
    e = test::decode_error(format_id::json, text);
    EXPECT_EQ(e.code, errc::trailing_content);
    EXPECT_EQ(e.offset, at + 2);
}

// ---- limits ----

std::string nested_arrays(std::size_t n) { return std::string(n, '[') + std::string(n, ']'); }

TEST(JsonDecode, DepthLimit) {
    document d;
    ASSERT_TRUE(decode(format_id::json, nested_arrays(512), d));
    auto e = test::decode_error(format_id::json, nested_arrays(513));
    EXPECT_EQ(e.code, errc::depth_exceeded) << describe(e);
    EXPECT_EQ(e.offset, 512u);
    // Maps count too, and a lower limit is honoured.
    decode_options opt = max_depth(3);
    EXPECT_TRUE(decode(format_id::json, R"([{"a":[]}])", d, opt));
    e = test::decode_error(format_id::json, R"([{"a":[{}]}])", opt);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 7u);
    EXPECT_EQ(e.path, "/0/a/0");
    // A limit above simdjson's own (1024) is honoured too.
    opt.limits.max_depth = 3000;
    EXPECT_TRUE(decode(format_id::json, nested_arrays(2000), d, opt));
    EXPECT_EQ(d.root().size(), 1u);
    // Deep input far beyond the limit fails fast without recursion.
    e = test::decode_error(format_id::json, std::string(1'000'000, '['));
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 512u);
}

TEST(JsonDecode, SizeBudget) {
    const decode_options opt = max_bytes(1000);
    std::string big = "[\"" + std::string(5000, 'x') + "\",[]]";
    auto e = test::decode_error(format_id::json, big, opt);
    EXPECT_EQ(e.code, errc::size_exceeded) << describe(e);
}

TEST(JsonDecode, ReusedDocumentIsCleared) {
    document d;
    ASSERT_TRUE(decode(format_id::json, R"({"a":[1,2,3],"b":"xyz"})", d));
    ASSERT_TRUE(decode(format_id::json, "[true]", d));
    EXPECT_EQ(dbg(d), "[true]");
    EXPECT_FALSE(decode(format_id::json, "[1,", d));
    EXPECT_TRUE(d.empty());
}

// ---- encoding: exact bytes ----

TEST(JsonEncode, Escapes) {
    // RFC 8259 section 7: quotation mark, reverse solidus and the control characters must be
    // escaped; everything else may be written as it is, so non-ASCII stays UTF-8.
    document d;
    builder b(d);
    b.begin_array();
    b.add_string("a\"b\\c/");
    b.add_string(std::string_view("\x00\x01\x1f\x7f", 4));
    b.add_string("\b\f\n\r\t");
    b.add_string("h\xc3\xa9llo \xe6\x97\xa5 \xf0\x9f\x98\x80");
    b.add_string("\xe2\x80\xa8");  // U+2028 is valid unescaped JSON
    b.end_array();
    EXPECT_EQ(encoded(d),
              "[\"a\\\"b\\\\c/\",\"\\u0000\\u0001\\u001f\x7f\","
              "\"\\b\\f\\n\\r\\t\","
              "\"h\xc3\xa9llo \xe6\x97\xa5 \xf0\x9f\x98\x80\",\"\xe2\x80\xa8\"]");
}

TEST(JsonEncode, Floats) {
    struct {
        double d;
        const char* text;
    } cases[] = {
        {1.0, "1.0"},
        {-0.0, "-0.0"},
        {0.0, "0.0"},
        {1e300, "1e300"},
        {5e-324, "5e-324"},
        {0.1, "0.1"},
        {-2.5, "-2.5"},
        {1e21, "1e21"},
        {1e20, "100000000000000000000.0"},
        {123456789012345680000.0, "123456789012345680000.0"},
        {9.223372036854776e58, "9.223372036854776e58"},
        {123456789.0, "123456789.0"},
        {1.7976931348623157e308, "1.7976931348623157e308"},
        {1e-7, "1e-7"},
        {1e-6, "0.000001"},
        {1.5e-6, "0.0000015"},
        {1.5e-7, "1.5e-7"},
    };
    for (const auto& c : cases) {
        document d;
        builder b(d);
        b.add_double(c.d);
        std::string out = encoded(d);
        EXPECT_EQ(out, c.text);
        // Shortest round trip: the text reads back to the same bits.
        document back = test::must_decode(format_id::json, out);
        EXPECT_TRUE(equal(back, d)) << out;
    }
}

// write_double (shared by every text format) computes the shortest digits in-tree
// (detail/shortest_double.hpp). Its text must be std::to_chars's shortest scientific digits
// (libstdc++'s Ryu) laid out as ECMA-262 Number::toString lays them out, without '+' in the
// exponent, plus ".0" when that reads as an integer. Hand-picked edge cases around every
// branch of the algorithm and of the layout.
namespace {
std::string reference_float_text(double c) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, c, std::chars_format::scientific);
    std::string sci(buf, r.ptr);  // [-]d[.ddd]e(+|-)XX
    std::string sign;
    if (sci[0] == '-') {
        sign = "-";
        sci.erase(0, 1);
    }
    const std::size_t e = sci.find('e');
    std::string digits = sci.substr(0, e);
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    const int k = static_cast<int>(digits.size());
    const int n = std::stoi(sci.substr(e + 1)) + 1;  // value = 0.digits * 10^n
    std::string text;
    if (c == 0) {
        text = "0.0";
    } else if (k <= n && n <= 21) {
        text = digits + std::string(static_cast<std::size_t>(n - k), '0') + ".0";
    } else if (0 < n && n <= 21) {
        text = digits.substr(0, static_cast<std::size_t>(n)) + "." +
               digits.substr(static_cast<std::size_t>(n));
    } else if (-6 < n && n <= 0) {
        text = "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
    } else {
        text = digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "") + "e" +
               std::to_string(n - 1);
    }
    return sign + text;
}
}  // namespace

TEST(JsonEncode, DoublesMatchReferenceLayout) {
    std::vector<double> cases = {
        0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 17.5, -215.8359375,
        0.9047141424272819, 0.6760280842527583, 100.125, 5.75, 9007199254740991.0,
        9007199254740992.0, 9007199254740994.0, 9007199254740993.0 * 2, 1e15, 1e16, 1e17,
        1e20, 1e21, 1e22, 1e23, 123456789012345680000.0, 1.2345678901234567e19,
        4503599627370496.0, 4503599627370495.5, 0.001, 0.0001, 0.00001, 1.5e-5, 1.25e-4,
        0.000123456789, 1e-7, 1e-10, 1e-100, 1e100, 1e-99, 1e99, 1e-300, 1e300, 5e-324,
        1e-323, 2.2250738585072014e-308, 2.2250738585072009e-308, 4.9406564584124654e-324,
        1.7976931348623157e308, 8.98846567431158e307, 2.0, 4.0, 1024.0, 0.5, 0.25,
        0.125, 9.5367431640625e-07, 123456.0, 1234567.0, 12345678.0, 100000.0, 1000000.0,
        2e5, 3e6, 12e20, 1.5e300, 299792458.0, 6.02214076e23, 6.62607015e-34,
        1.602176634e-19, 3.141592653589793, 2.718281828459045, 1.7976931348623157e307,
        std::ldexp(1.0, 52), std::ldexp(1.0, 53), std::ldexp(1.0, 54), std::ldexp(1.0, -1022),
        std::ldexp(1.0, -1023), std::ldexp(1.0, -1074), std::ldexp(1.0, 1023), 
        std::numeric_limits<double>::epsilon(), 1.0 + std::numeric_limits<double>::epsilon(),
        std::nextafter(1.0, 0.0), std::nextafter(0.1, 1.0), std::nextafter(1e23, 0.0),
        std::nextafter(1e23, 2e23), 5e-324 * 3, 1e-5, 1e-6, 1.0e-4 * 3, 0.3e-3, 123.456e-3,
    };
    for (int e = -325; e <= 309; ++e) {  // every power of ten and its neighbours
        double p = std::pow(10.0, e);
        cases.push_back(p);
        cases.push_back(std::nextafter(p, 0.0));
        cases.push_back(std::nextafter(p, 1e309));
    }
    for (int e = -1074; e <= 1023; e += 7) {  // powers of two (lower boundary closer)
        cases.push_back(std::ldexp(1.0, e));
        cases.push_back(std::ldexp(3.0, e - 1));
    }
    for (double c : std::vector<double>(cases)) {
        cases.push_back(-c);
    }
    document d;
    builder b(d);
    b.begin_array();
    std::string want = "[";
    for (double c : cases) {
        if (!std::isfinite(c)) {
            continue;
        }
        b.add_double(c);
        want += (want.size() > 1 ? "," : "") + reference_float_text(c);
    }
    b.end_array();
    want += "]";
    EXPECT_EQ(encoded(d), want);
}

// The compact writer walks the tape with a fixed stack of 128 open containers and hands
// deeper ones to the recursive writer: nesting across that boundary, maps and arrays mixed.
TEST(JsonEncode, DeepNestingAcrossTheWalkerStack) {
    for (int depth : {1, 127, 128, 129, 300, 500}) {
        document d;
        builder b(d);
        std::string want;
        for (int i = 0; i < depth; ++i) {
            if (i % 2 == 0) {
                ASSERT_TRUE(b.begin_array());
                b.add_int(i);
                want += "[" + std::to_string(i) + ",";
            } else {
                ASSERT_TRUE(b.begin_map());
                b.add_string("k");
                want += "{\"k\":";
            }
        }
        b.add_string("x");
        want += "\"x\"";
        for (int i = depth - 1; i >= 0; --i) {
            if (i % 2 == 0) {
                b.add_null();
                b.end_array();
                want += ",null]";
            } else {
                b.add_int(7);  // a second key, not a string
                b.add_bool(true);
                b.end_map();
                want += ",\"7\":true}";
            }
        }
        EXPECT_EQ(encoded(d), want) << depth;
        EXPECT_EQ(test::must_decode(format_id::json, want).root().kind(), kind::array);
    }
}

TEST(JsonEncode, IntegersMatchToChars) {
    std::vector<std::int64_t> cases = {std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max()};
    for (std::int64_t p = 1; p < std::numeric_limits<std::int64_t>::max() / 10; p *= 10) {
        for (std::int64_t v : {p - 1, p, p + 1, 2 * p - 1, 9 * p}) {
            cases.push_back(v);
            cases.push_back(-v);
        }
    }
    document d;
    builder b(d);
    b.begin_array();
    std::string want = "[";
    for (std::int64_t c : cases) {
        b.add_int(c);
        char buf[32];
        want += (want.size() > 1 ? "," : "") + std::string(buf, std::to_chars(buf, buf + 32, c).ptr);
    }
    for (std::uint64_t c : {std::uint64_t{9223372036854775808u}, std::uint64_t{9999999999999999999u},
                            std::uint64_t{10000000000000000000u}, ~std::uint64_t{0}}) {
        b.add_uint(c);
        char buf[32];
        want += "," + std::string(buf, std::to_chars(buf, buf + 32, c).ptr);
    }
    b.end_array();
    want += "]";
    EXPECT_EQ(encoded(d), want);
}

// The string writer copies 8 (or 4) bytes at a time and checks them with SWAR: every length
// from 0 to 40 with a character to escape at every position, and with none.
TEST(JsonEncode, StringEscapesAtEveryPosition) {
    const std::string escapes[] = {std::string(1, '"'), "\\", std::string(1, '\0'), "\x1f", "\n",
                                   "\x7f", "\xc3\xa9"};
    for (std::size_t len = 0; len <= 40; ++len) {
        for (std::size_t pos = 0; pos <= len; ++pos) {
            for (const std::string& esc : escapes) {
                std::string s(len, 'a');
                for (std::size_t i = 0; i < len; ++i) {
                    s[i] = static_cast<char>('!' + (i * 7) % 90);
                    if (s[i] == '"' || s[i] == '\\') {
                        s[i] = 'x';
                    }
                }
                if (pos < len) {
                    s.replace(pos, 1, esc);
                }
                std::string want = "\"";
                for (unsigned char c : s) {
                    switch (c) {
                        case '"': want += "\\\""; break;
                        case '\\': want += "\\\\"; break;
                        case '\n': want += "\\n"; break;
                        case 0: want += "\\u0000"; break;
                        case 0x1f: want += "\\u001f"; break;
                        default: want += static_cast<char>(c);
                    }
                }
                want += "\"";
                document d;
                builder b(d);
                b.add_string(s);
                ASSERT_EQ(encoded(d), want) << "len " << len << " pos " << pos;
            }
        }
    }
}

TEST(JsonEncode, Integers) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_int(std::numeric_limits<std::int64_t>::min());
    b.add_int(std::numeric_limits<std::int64_t>::max());
    b.add_uint(std::numeric_limits<std::uint64_t>::max());
    b.add_int(0);
    b.add_int(-1);
    b.add_bignum("18446744073709551616");
    b.add_bignum("-123456789012345678901234567890");
    b.end_array();
    EXPECT_EQ(encoded(d),
              "[-9223372036854775808,9223372036854775807,18446744073709551615,0,-1,"
              "18446744073709551616,-123456789012345678901234567890]");
}

TEST(JsonEncode, CompactReencodingIsIdentity) {
    const char* texts[] = {
        R"({"a":[1,2.5,"x",null,true,false],"b":{},"c":[],"a":-3})",
        "[18446744073709551616,-0.0,1e300,\"\\u0000\\n\"]",
        "\"\xe6\x97\xa5\"",
    };
    for (const char* t : texts) {
        EXPECT_EQ(reencoded(t), t);
    }
}

TEST(JsonEncode, Pretty) {
    encode_options opt;
    opt.pretty = true;
    const text_case cases[] = {
        {R"({"a":[1,{"b":null}],"c":{},"d":[],"e":"x"})",
         "{\n"
         "  \"a\": [\n"
         "    1,\n"
         "    {\n"
         "      \"b\": null\n"
         "    }\n"
         "  ],\n"
         "  \"c\": {},\n"
         "  \"d\": [],\n"
         "  \"e\": \"x\"\n"
         "}\n"},
        {"1", "1\n"},
        {"[]", "[]\n"},
    };
    expect_encodes(format_id::json, cases, opt);
}

TEST(JsonEncode, BytesAreBase64urlText) {
    // DESIGN section 3 (RFC 8949 section 6.1 style): not lossy, no flag needed.
    document d;
    builder b(d);
    b.begin_array();
    b.add_bytes(std::string_view("\xfb\xff\x00", 3));
    b.add_bytes("");
    b.add_bytes("abcd");
    b.end_array();
    lossy_report report;
    encode_options opt;
    opt.report = &report;
    EXPECT_EQ(encoded(d, opt), R"(["-_8A","","YWJjZA"])");
    EXPECT_TRUE(report.empty());
}

TEST(JsonEncode, TimestampsAreText) {
    document d;
    builder b(d);
    b.add_timestamp("1979-05-27T07:32:00Z", timestamp_kind::offset_date_time);
    EXPECT_EQ(encoded(d), R"("1979-05-27T07:32:00Z")");
}

TEST(JsonEncode, IntegerKeysAreDecimalText) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_int(7);
    b.add_string("a");
    b.add_int(-3);
    b.add_string("b");
    b.add_uint(std::numeric_limits<std::uint64_t>::max());
    b.add_null();
    b.add_bignum("-18446744073709551617");
    b.add_bool(true);
    b.add_string("s");
    b.add_int(1);
    b.end_map();
    EXPECT_EQ(encoded(d), R"({"7":"a","-3":"b","18446744073709551615":null,)"
                          R"("-18446744073709551617":true,"s":1})");
}

TEST(JsonEncode, BoolKeyIsUnrepresentable) {
    document d = test::bool_keyed_map("m");
    error e = test::encode_error_of(format_id::json, d);
    test::expect_error(e, {.code = errc::unrepresentable,
                           .message = "map key true is not representable in json",
                           .path = "/m/true"});
    EXPECT_EQ(e.format, format_id::json);

    lossy_encode lossy;
    EXPECT_EQ(encoded(d, lossy.opt), R"({"m":{"true":1}})");
    expect_report(lossy.report, {{"key_to_string", "/m/true"}});
}

document nonfinite_doc(double d) {
    document doc;
    builder b(doc);
    b.begin_map();
    b.add_string("a");
    b.begin_array();
    b.add_double(d);
    b.add_int(2);
    b.end_array();
    b.end_map();
    return doc;
}

TEST(JsonEncode, NonFiniteIsUnrepresentable) {
    struct {
        double d;
        const char* name;
    } cases[] = {
        {std::numeric_limits<double>::quiet_NaN(), "NaN"},
        {std::numeric_limits<double>::infinity(), "Infinity"},
        {-std::numeric_limits<double>::infinity(), "-Infinity"},
    };
    for (const auto& c : cases) {
        document d = nonfinite_doc(c.d);
        output_buffer out;
        auto r = encode(format_id::json, d, out);
        ASSERT_FALSE(r) << c.name;
        EXPECT_EQ(r.error().code, errc::unrepresentable);
        EXPECT_EQ(r.error().path, "/a/0");
        EXPECT_EQ(r.error().message, std::string(c.name) + " is not representable in json");
        EXPECT_NE(describe(r.error()).find("/a/0"), std::string::npos) << describe(r.error());

        lossy_encode lossy;
        EXPECT_EQ(encoded(d, lossy.opt), R"({"a":[null,2]})");
        expect_report(lossy.report, {{"nonfinite_to_null", "/a/0"}});
        EXPECT_EQ(lossy.report[0].detail, std::string(c.name) + " written as null");
    }
}

TEST(JsonEncode, TagIsUnrepresentableUnlessLossy) {
    document d;
    builder b(d);
    b.begin_array();
    b.begin_tagged(32);
    b.add_string("http://x");
    b.end_array();
    expect_error(encode_error_of(format_id::json, d),
                 {.code = errc::unrepresentable, .path = "/0"});
    lossy_encode lossy;
    EXPECT_EQ(encoded(d, lossy.opt), R"(["http://x"])");
    expect_report(lossy.report, {{"tag_dropped", "/0"}});
}

// ---- JSONTestSuite (nst/JSONTestSuite test_parsing) ----

TEST(JsonConformance, JsonTestSuite) {
    POLYCODEC_REQUIRE_CORPUS("json/test_parsing", dir);
    int y_total = 0, y_ok = 0, n_total = 0, n_rejected = 0, i_total = 0;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    document d;
    output_buffer out;
    for (const auto& name : files) {
        if (name.size() < 2 || name[1] != '_' || name.find(".json") == std::string::npos) {
            continue;
        }
        std::string text = test::read_file(dir / name);
        auto r = decode(format_id::json, text, d);
        if (name[0] == 'y') {
            ++y_total;
            if (r) {
                ++y_ok;
                // What we accept we can write and read back unchanged.
                out.clear();
                ASSERT_TRUE(encode(format_id::json, d, out)) << name;
                document back;
                ASSERT_TRUE(decode(format_id::json, out.view(), back)) << name;
                EXPECT_TRUE(equal(back, d)) << name;
            } else {
                ADD_FAILURE() << name << " rejected: " << describe(r.error());
            }
        } else if (name[0] == 'n') {
            ++n_total;
            if (!r) {
                ++n_rejected;
                EXPECT_LE(r.error().offset, text.size()) << name;
                EXPECT_GE(r.error().line, 1u) << name;
            } else {
                ADD_FAILURE() << name << " accepted as " << dbg(d);
            }
        } else if (name[0] == 'i') {
            ++i_total;  // either answer is fine; it must not crash
            if (r) {
                out.clear();
                (void)encode(format_id::json, d, out);
            }
        }
    }
    EXPECT_EQ(y_total, 95);
    EXPECT_EQ(y_ok, 95);
    EXPECT_EQ(n_total, 188);
    EXPECT_EQ(n_rejected, 188);
    EXPECT_EQ(i_total, 35);
}

// A depth limit above 1022 makes the decoder skip simdjson (see docs/formats/json.md), so
// decoding once with the default limit and once with 1100 compares simdjson's on-demand path
// with the own reader on the same inputs.
// The fixtures and, when the corpus is there, the json-bench files.
std::vector<std::string> large_input_texts() {
    std::vector<std::string> texts;
    for (const char* name : {"records.json", "bench.json"}) {
        texts.push_back(test::read_file(test::fixtures_dir() / name));
    }
    std::filesystem::path corpus = test::corpus_dir();
    if (!corpus.empty() && std::filesystem::exists(corpus / "json-bench")) {
        for (const char* name : {"twitter.json", "citm_catalog.json", "canada.json"}) {
            texts.push_back(test::read_file(corpus / "json-bench" / name));
        }
    }
    return texts;
}

// Decodes `text` through the default path and through the own reader alone (a depth limit
// of 1100 besides `opt`): both succeed with equal documents or both fail with the same error
// code; then `more(fast, own, rf, ro)` checks the rest.
template <class More>
void compare_with_own_reader(const std::string& text, const decode_options& opt, More more) {
    document fast, own;
    auto rf = decode(format_id::json, text, fast, opt);
    decode_options o = opt;
    o.limits.max_depth = 1100;
    auto ro = decode(format_id::json, text, own, o);
    ASSERT_EQ(static_cast<bool>(rf), static_cast<bool>(ro)) << text.substr(0, 200);
    if (rf) {
        EXPECT_TRUE(equal(fast, own)) << text.substr(0, 200) << "\n"
                                      << dbg(fast).substr(0, 300) << "\n"
                                      << dbg(own).substr(0, 300);
    } else {
        EXPECT_EQ(rf.error().code, ro.error().code) << text.substr(0, 200);
    }
    more(fast, own, rf, ro);
}

TEST(JsonConformance, FastPathAgreesWithOwnReader) {
    std::vector<std::string> texts = large_input_texts();
    std::filesystem::path corpus = test::corpus_dir();
    if (!corpus.empty() && std::filesystem::exists(corpus / "json/test_parsing")) {
        for (const auto& entry :
             std::filesystem::directory_iterator(corpus / "json/test_parsing")) {
            texts.push_back(test::read_file(entry.path()));
        }
    }
    for (const decode_case& c : decode_table) {
        texts.emplace_back(c.json);
    }
    ASSERT_GE(texts.size(), 2u);
    for (const std::string& text : texts) {
        compare_with_own_reader(
            text, {}, [&](const document&, const document&, const auto& rf, const auto& ro) {
                if (!rf &&
                    rf.error().code != errc::depth_exceeded) {  // the limits differ on purpose
                    EXPECT_EQ(rf.error().offset, ro.error().offset) << text.substr(0, 200);
                }
            });
    }
}

// ---- the DOM tape fast path ----
//
// decode_json first parses with simdjson's DOM parser and translates its tape into the
// Document in one loop; whatever that loop does not take (bignums, scalar documents, depth and
// size limits, every error) goes to the decoders before it. A depth limit above 1022 skips
// both simdjson paths, so a limit of 1100 gives the own reader's answer to compare with.

// Decodes `text` through the default path and through the own reader alone: same Document, or
// same error code, offset and path.
void expect_same_as_own_reader(const std::string& text, decode_options opt = {}) {
    compare_with_own_reader(
        text, opt, [&](const document& fast, const document& own, const auto& rf, const auto& ro) {
            if (rf) {
                EXPECT_EQ(fast.tape(), own.tape()) << text.substr(0, 200);
                EXPECT_EQ(fast.bytes(), own.bytes()) << text.substr(0, 200);
            } else {
                EXPECT_EQ(rf.error().offset, ro.error().offset) << text.substr(0, 200);
                EXPECT_EQ(rf.error().path, ro.error().path) << text.substr(0, 200);
                EXPECT_EQ(rf.error().message, ro.error().message) << text.substr(0, 200);
            }
        });
}

TEST(JsonTapeFastPath, SameTapeAsOwnReaderForEveryKind) {
    expect_same_as_own_reader(
        R"({"a":[],"b":{},"c":[[],{}],"d":null,"e":true,"f":false,"g":-1,"h":9223372036854775807,)"
        R"("i":9223372036854775808,"j":18446744073709551615,"k":-9223372036854775808,"l":1.5,)"
        R"("m":-0.0,"n":1e-300,"o":"","p":"x\u0000y","q":"\ud83d\ude00\"\\\/\b\f\n\r\t",)"
        R"("r":"a string longer than thirty-two bytes, copied whole","s":[1,[2,[3,{"t":[4]}]]]})");
    const text_case cases[] = {
        {R"([[],{},[[]]])", "[[],{},[[]]]"},
        {R"({"a":{"b":[1,"x"]},"c":2})", R"({"a":{"b":[1,"x"]},"c":2})"},
    };
    expect_decodes(format_id::json, cases);
}

TEST(JsonTapeFastPath, DuplicateKeysKeepTheirOrder) {
    EXPECT_EQ(decoded(R"({"a":1,"b":2,"a":3,"a":[4],"b":{"a":5,"a":6}})"),
              R"({"a":1,"b":2,"a":3,"a":[4],"b":{"a":5,"a":6}})");
    expect_same_as_own_reader(R"({"a":1,"b":2,"a":3,"a":[4],"b":{"a":5,"a":6}})");
}

TEST(JsonTapeFastPath, BignumsFallBackWherever) {
    for (const char* big : {"18446744073709551616", "-9223372036854775809",
                            "123456789012345678901234567890"}) {
        std::string text = "[";
        for (int i = 0; i < 300; ++i) {
            text += "{\"k\":\"v\",\"n\":[1,2.5]},";
        }
        text += big;
        text += "]";
        expect_same_as_own_reader(text);
        document d = test::must_decode(format_id::json, text);
        EXPECT_EQ(d.root().size(), 301u);
        std::string last;
        for (value v : d.root().items()) {
            last = to_debug_string(v);
        }
        EXPECT_EQ(last, std::string(big) + "n");
    }
}

// simdjson 3.0.1's on-demand fallback kernel read some floats with long mantissas as 0.0
// (FuzzRegressions.LongMantissaFloatsInContainersKeepTheirValue). The DOM parser's doubles
// must equal std::from_chars on every such token, in every kernel this CPU can run (the
// parser is thread_local, so a new thread allocates one with the kernel made active).
TEST(JsonTapeFastPath, LongMantissasMatchFromChars) {
    std::string text = "[444444444444412e4,1234567890123456789.0,"
                       "0.1000000000000000055511151231257827021181583404541015625,"
                       "2.2250738585072011e-308,4.9e-324,1.7976931348623157e308";
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;
    auto next = [&x] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    for (int i = 0; i < 3000; ++i) {
        text += ',';
        if (next() % 4 == 0) {
            text += '-';
        }
        int digits = 15 + static_cast<int>(next() % 12);
        std::string mantissa;
        for (int k = 0; k < digits; ++k) {
            mantissa += static_cast<char>('0' + (k == 0 ? 1 + next() % 9 : next() % 10));
        }
        std::size_t dot = next() % mantissa.size();
        if (dot != 0) {
            mantissa.insert(dot, ".");
        }
        text += mantissa;
        if (dot == 0 || next() % 3 == 0) {
            text += "e" + std::to_string(static_cast<int>(next() % 60) - 30);
        }
    }
    text += "]";
    std::vector<double> expected;
    for (std::size_t pos = 1; pos < text.size();) {
        std::size_t end = text.find_first_of(",]", pos);
        double d = 0;
        auto r = std::from_chars(text.data() + pos, text.data() + end, d);
        ASSERT_EQ(r.ec, std::errc{}) << text.substr(pos, end - pos);
        expected.push_back(d);
        pos = end + 1;
    }
    auto check = [&](const std::string& kernel) {
        document d;
        auto r = decode(format_id::json, text, d);
        ASSERT_TRUE(r) << kernel;
        ASSERT_EQ(d.root().size(), expected.size()) << kernel;
        std::size_t i = 0;
        for (value v : d.root().items()) {
            ASSERT_EQ(v.kind(), kind::float64) << kernel << " #" << i;
            double got = v.get_double();
            EXPECT_EQ(std::memcmp(&got, &expected[i], 8), 0)
                << kernel << " #" << i << ": " << got << " vs " << expected[i];
            ++i;
        }
    };
    const simdjson::implementation* before = simdjson::get_active_implementation();
    int kernels = 0;
    for (const simdjson::implementation* impl : simdjson::get_available_implementations()) {
        if (!impl->supported_by_runtime_system()) {
            continue;
        }
        simdjson::get_active_implementation() = impl;
        std::thread t(check, impl->name());
        t.join();
        ++kernels;
    }
    simdjson::get_active_implementation() = before;
    EXPECT_GE(kernels, 1);
    check("default");
    expect_same_as_own_reader(text);
}

// A long negative token that underflows keeps its sign, as in the own reader (the on-demand
// path's from_chars re-read gave +0.0 before; found by the differential run of this change).
TEST(JsonTapeFastPath, NegativeUnderflowKeepsItsSign) {
    const std::string tokens[] = {"-55674.084258539433120912625e-363", "-2250062.541288753265e-393",
                                  "-1e-400", "1e-400", "-0.0000000000000000000001e-320"};
    for (const std::string& t : tokens) {
        std::string text = "[" + t + ",{\"k\":" + t + "}]";
        expect_same_as_own_reader(text);
        std::string zero = t[0] == '-' ? "-0.0" : "0.0";
        EXPECT_EQ(decoded(text), "[" + zero + ",{\"k\":" + zero + "}]") << t;
        // The on-demand path (taken when the fast path hands a document on, here at the size
        // budget's edge) agrees.
        document d = test::must_decode(format_id::json, text);
        decode_options opt;
        opt.limits.max_bytes = d.content_size() - 1;
        expect_same_as_own_reader(text, opt);
    }
}

TEST(JsonTapeFastPath, DepthAtTheLimit) {
    for (std::uint32_t limit : {1u, 2u, 5u, 512u, 1022u}) {
        decode_options opt;
        opt.limits.max_depth = limit;
        for (std::size_t n : {std::size_t{limit} - 1, std::size_t{limit}, std::size_t{limit} + 1}) {
            if (n == 0) {
                continue;
            }
            std::string arrays = nested_arrays(n);
            std::string maps;
            for (std::size_t i = 0; i < n; ++i) {
                maps += "{\"k\":";
            }
            maps += "[]";  // one level more than the maps
            maps += std::string(n, '}');
            for (const std::string& text : {arrays, maps}) {
                document d;
                auto r = decode(format_id::json, text, d, opt);
                std::size_t depth = text[0] == '[' ? n : n + 1;
                EXPECT_EQ(static_cast<bool>(r), depth <= limit) << limit << " " << n;
                if (!r) {
                    // The first container past the limit: '[' at `limit`, '{"k":' every 5 bytes.
                    EXPECT_EQ(r.error().code, errc::depth_exceeded);
                    EXPECT_EQ(r.error().offset, text[0] == '[' ? limit : 5 * limit) << n;
                } else {
                    expect_same_as_own_reader(text, opt);
                }
            }
        }
    }
}

TEST(JsonTapeFastPath, SizeBudgetAtTheEdge) {
    std::string text = R"({"a":["x","a string of more than thirty-two bytes...",1,2.5,{"b":[]}],"c":null})";
    document d = test::must_decode(format_id::json, text);
    const std::size_t size = d.content_size();
    for (std::size_t budget : {size - 40, size - 1, size, size + 1}) {
        decode_options opt;
        opt.limits.max_bytes = budget;
        expect_same_as_own_reader(text, opt);
    }
    // The builder checks the budget at container starts; the fast path is stricter (it also
    // checks at the end) and hands the borderline cases to the decoders before it.
    const decode_options opt = max_bytes(64);
    EXPECT_EQ(test::decode_error(format_id::json, text, opt).code, errc::size_exceeded);
}

TEST(JsonTapeFastPath, ScalarDocumentsAndErrorsAreTheOwnReaders) {
    for (const char* text : {"42", "-0", "1.5", "\"x\"", "null", "true", " 18446744073709551616 ",
                             "[1,]", "{\"a\" 1}", "[\"\\ud800\"]", "[1] x", "[01]", "[\"\x80\"]",
                             "[\"a\tb\"]", "[nul]", "{\"a\":1,}", "[1e400]"}) {
        expect_same_as_own_reader(text);
    }
}

// Above 16 MiB the thread's parser buffers are released after the decode; the next decode
// allocates them again and still gives the right answer.
TEST(JsonTapeFastPath, LargeInputThenSmall) {
    std::string text = "[";
    while (text.size() < (std::size_t{17} << 20)) {
        text += "{\"id\":12345,\"name\":\"abcdefghij\"},";
    }
    text += "0]";
    document d = test::must_decode(format_id::json, text);
    EXPECT_GT(d.root().size(), 400000u);
    EXPECT_EQ(dbg(test::must_decode(format_id::json, R"({"a":[1,"b"]})")), R"({"a":[1,"b"]})");
    EXPECT_EQ(dbg(test::must_decode(format_id::json, text.substr(0, 34) + "0]")),
              R"([{"id":12345,"name":"abcdefghij"},0])");
}

// ---- the large-input path: a top-level array decoded chunk by chunk ----
//
// Above 16 MiB a top-level array is cut into ~1 MiB chunks at commas between its elements and
// each chunk is parsed alone. The test hooks lower the threshold and the chunk size, so that
// small inputs take that path with cuts everywhere; its Documents must be those of the
// whole-document path word for word, and its errors the same.

// Sets the large-input threshold and chunk size for one scope.
struct large_input_scope {
    large_input_scope(std::size_t threshold, std::size_t chunk) {
        detail::json_set_large_input(threshold, chunk);
    }
    ~large_input_scope() { detail::json_set_large_input(0, 0); }
    large_input_scope(const large_input_scope&) = delete;
    large_input_scope& operator=(const large_input_scope&) = delete;
};

// Decodes `text` with the large-input path forced (threshold 1, chunks of `chunk` bytes) and
// with it off: the same tape and bytes, or the same error code, offset, path and message.
// Returns how many chunks the forced decode parsed (0 when it did not take the path).
std::uint64_t expect_same_as_whole_document(const std::string& text, std::size_t chunk,
                                            const decode_options& opt = {}) {
    document whole, chunked;
    result<void> rw, rc;
    {
        large_input_scope off(std::numeric_limits<std::size_t>::max(), 0);
        rw = decode(format_id::json, text, whole, opt);
    }
    const auto before = detail::json_large_input_counters();
    {
        large_input_scope on(1, chunk);
        rc = decode(format_id::json, text, chunked, opt);
    }
    const auto after = detail::json_large_input_counters();
    const std::string what = text.substr(0, 120) + " (chunk " + std::to_string(chunk) + ")";
    EXPECT_EQ(static_cast<bool>(rw), static_cast<bool>(rc)) << what;
    if (rw && rc) {
        EXPECT_EQ(whole.tape(), chunked.tape()) << what;
        EXPECT_EQ(whole.bytes(), chunked.bytes()) << what;
    } else if (!rw && !rc) {
        EXPECT_EQ(rw.error().code, rc.error().code) << what;
        EXPECT_EQ(rw.error().offset, rc.error().offset) << what;
        EXPECT_LE(rc.error().offset, text.size()) << what;
        EXPECT_EQ(rw.error().path, rc.error().path) << what;
        EXPECT_EQ(rw.error().message, rc.error().message) << what;
    }
    return after.chunks - before.chunks;
}

TEST(JsonLargeInput, JsonTestSuiteSameAsWholeDocument) {
    POLYCODEC_REQUIRE_CORPUS("json/test_parsing", dir);
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    int accepted = 0, rejected = 0;
    std::uint64_t chunks = 0;
    for (const auto& name : files) {
        if (name.size() < 2 || name[1] != '_' || name.find(".json") == std::string::npos) {
            continue;
        }
        const std::string text = test::read_file(dir / name);
        document d;
        (decode(format_id::json, text, d) ? accepted : rejected) += 1;
        for (std::size_t chunk : {1, 2, 3, 8, 1024}) {
            SCOPED_TRACE(name);
            chunks += expect_same_as_whole_document(text, chunk);
        }
    }
    EXPECT_EQ(accepted, 95 + 6);  // the y_ cases and the i_ cases we accept
    EXPECT_EQ(rejected, 188 + 29);
    EXPECT_GT(chunks, 300u);
}

TEST(JsonLargeInput, FixturesAndBenchFilesSameAsWholeDocument) {
    for (const std::string& text : large_input_texts()) {
        for (std::size_t chunk : {1, 7, 64, 300, 4096, 65536}) {
            expect_same_as_whole_document(text, chunk);
        }
    }
    // records.json and bench.json are arrays: they take the path, in many chunks when they are
    // small, in one when the chunk size is above their size.
    for (const char* name : {"records.json", "bench.json"}) {
        const std::string text = test::read_file(test::fixtures_dir() / name);
        EXPECT_GT(expect_same_as_whole_document(text, 300), 40u) << name;
        EXPECT_EQ(expect_same_as_whole_document(text, 1 << 20), 1u) << name;
        // Wrapped in an object, they take the whole-document path, unchanged.
        EXPECT_EQ(expect_same_as_whole_document("{\"records\":" + text + "}", 64), 0u) << name;
    }
}

// Commas inside strings and nested containers that look like cuts between elements ("},{"):
// the guessed cut does not parse and is cut again exactly; the Documents are the same.
TEST(JsonLargeInput, CutsThatLandInStringsOrNestedContainers) {
    std::string text = "[";
    for (int i = 0; i < 200; ++i) {
        text += R"({"s":"a},{b,c","t":"\"},{\"","n":[{"x":1},{"y":[2,3]}],"e":"\\"},)";
        text += R"("},{",[[1,2],[3,{"a":"],["}]],)";
    }
    text += "0]";
    const auto before = detail::json_large_input_counters();
    for (std::size_t chunk : {1, 5, 16, 100, 1000}) {
        EXPECT_GT(expect_same_as_whole_document(text, chunk), 0u) << chunk;
    }
    const auto after = detail::json_large_input_counters();
    EXPECT_GT(after.missed_guesses, before.missed_guesses);
    EXPECT_EQ(after.fallbacks, before.fallbacks);
    document d;
    {
        large_input_scope on(1, 16);
        ASSERT_TRUE(decode(format_id::json, text, d));
    }
    EXPECT_EQ(d.root().size(), 601u);
}

// Errors, bignums and limits anywhere in a chunked array: the chunk that holds them does not
// parse, and the whole input goes to the own reader, which answers as on the whole-document
// path (same error, offset and message; the bignum kept).
TEST(JsonLargeInput, ErrorsBignumsAndLimitsAnywhere) {
    const std::string records = test::read_file(test::fixtures_dir() / "records.json");
    ASSERT_GT(records.size(), 10000u);
    std::vector<std::string> texts;
    // Mutations between two elements (after '[', after "},", before the last ']'): each one
    // is an error there.
    std::vector<std::size_t> boundaries = {1, records.size() - 1};
    for (int k = 1; k < 5; ++k) {
        boundaries.push_back(records.find("},{", records.size() * k / 5) + 2);
    }
    for (std::size_t at : boundaries) {
        texts.push_back(records.substr(0, at));                               // truncated
        for (const char* insert : {"x", ",", "\"", "\x80", "]", "}", "{"}) {
            texts.push_back(records.substr(0, at) + insert + records.substr(at));
        }
    }
    // A control character or a stray continuation byte anywhere, in strings or not.
    for (std::size_t at = 7; at < records.size(); at += records.size() / 7) {
        texts.push_back(records.substr(0, at) + "\x01" + records.substr(at));
        texts.push_back(records.substr(0, at) + "\x80" + records.substr(at));
    }
    const std::string open = records.substr(0, records.rfind(']'));  // without the last ']'
    texts.push_back(records + " x");
    texts.push_back(records + ",");
    texts.push_back(open + ",]");
    texts.push_back(open + ",,1]");
    texts.push_back(open + "] ]");
    const std::size_t invalid = texts.size();
    // Bignums: valid, kept by the own reader.
    texts.push_back(open + ",18446744073709551616]");
    texts.push_back("[18446744073709551616," + records.substr(1));
    const std::size_t mid = records.find("},{", records.size() / 2) + 2;
    texts.push_back(records.substr(0, mid) + "-123456789012345678901234," + records.substr(mid));
    for (std::size_t i = 0; i < texts.size(); ++i) {
        for (std::size_t chunk : {1, 100, 2000}) {
            expect_same_as_whole_document(texts[i], chunk);
        }
        document d;
        EXPECT_EQ(static_cast<bool>(decode(format_id::json, texts[i], d)), i >= invalid) << i;
    }
    // Depth and size limits: the same answer as the whole-document path.
    for (std::uint32_t depth : {1u, 2u, 3u, 4u}) {
        decode_options opt;
        opt.limits.max_depth = depth;
        for (std::size_t chunk : {1, 100, 2000}) {
            expect_same_as_whole_document(records, chunk, opt);
            expect_same_as_whole_document("[" + nested_arrays(3) + "," + nested_arrays(4) + "]",
                                          chunk, opt);
        }
    }
    document d = test::must_decode(format_id::json, records);
    for (std::size_t budget : {std::size_t{64}, d.content_size() / 2, d.content_size() - 1,
                               d.content_size(), d.content_size() + 1}) {
        decode_options opt;
        opt.limits.max_bytes = budget;
        for (std::size_t chunk : {1, 100, 2000}) {
            expect_same_as_whole_document(records, chunk, opt);
        }
    }
}

// The default threshold: an array above 16 MiB takes the path (in ~1 MiB chunks) with the
// whole-document path's Document, and the thread's parser keeps no more than a chunk's worth.
TEST(JsonLargeInput, AboveSixteenMebibytes) {
    std::string text = "[";
    const std::string records = test::read_file(test::fixtures_dir() / "records.json");
    const std::string body = records.substr(1, records.size() - 2);  // records.json's elements
    while (text.size() < (std::size_t{17} << 20)) {
        text += body;
        text += ',';
    }
    text += "{\"last\":true}]";
    const auto before = detail::json_large_input_counters();
    document chunked;
    ASSERT_TRUE(decode(format_id::json, text, chunked));
    const auto after = detail::json_large_input_counters();
    EXPECT_EQ(after.decodes, before.decodes + 1);
    EXPECT_GE(after.chunks - before.chunks, 16u);
    EXPECT_LE(after.chunks - before.chunks, 18u);
    // Chunks of ~1 MiB (at most 1.5 MiB); the parser may keep what an earlier test's input
    // (below 16 MiB) sized it for.
    EXPECT_LE(after.parser_capacity,
              std::max(before.parser_capacity, std::size_t{3} << 19) + simdjson::SIMDJSON_PADDING);
    document whole;
    {
        large_input_scope off(std::numeric_limits<std::size_t>::max(), 0);
        ASSERT_TRUE(decode(format_id::json, text, whole));
        // The whole-document path gives its parser back after an input above 16 MiB.
        EXPECT_EQ(detail::json_large_input_counters().parser_capacity, 0u);
    }
    EXPECT_EQ(whole.tape(), chunked.tape());
    EXPECT_EQ(whole.bytes(), chunked.bytes());
    // A large object takes the whole-document path.
    const std::string object = "{\"a\":" + text + "}";
    const auto before_object = detail::json_large_input_counters();
    document d;
    ASSERT_TRUE(decode(format_id::json, object, d));
    EXPECT_EQ(detail::json_large_input_counters().chunks, before_object.chunks);
    EXPECT_EQ(d.root().size(), 1u);
    EXPECT_EQ(d.root().find("a").size(), whole.root().size());
    // A small input after them is decoded as usual.
    EXPECT_EQ(dbg(test::must_decode(format_id::json, R"({"a":[1,"b"]})")), R"({"a":[1,"b"]})");
}

// ---- json-bench files ----

TEST(JsonConformance, JsonBenchRoundTrip) {
    POLYCODEC_REQUIRE_CORPUS("json-bench", dir);
    for (const char* name : {"twitter.json", "citm_catalog.json", "canada.json"}) {
        std::string text = test::read_file(dir / name);
        ASSERT_FALSE(text.empty()) << name;
        document d = test::must_decode(format_id::json, text);
        ASSERT_FALSE(d.empty()) << name;
        for (bool pretty : {false, true}) {
            encode_options opt;
            opt.pretty = pretty;
            std::string out = encoded(d, opt);
            document back = test::must_decode(format_id::json, out);
            EXPECT_TRUE(equal(back, d)) << name << (pretty ? " pretty" : "");
            // The compact form is a fixed point.
            if (!pretty) {
                EXPECT_EQ(encoded(back), out) << name;
            }
        }
    }
}

TEST(JsonConformance, FixturesRoundTrip) {
    for (const char* name : {"records.json", "bench.json"}) {
        std::string text = test::read_file(test::fixtures_dir() / name);
        ASSERT_FALSE(text.empty()) << name;
        document d = test::must_decode(format_id::json, text);
        document back = test::must_decode(format_id::json, encoded(d));
        EXPECT_TRUE(equal(back, d)) << name;
    }
}

}  // namespace
}  // namespace polycodec

namespace polycodec {
namespace {

// A decimal of 311 digits and a fraction, no exponent, is beyond the doubles: refused as too
// large, as "1e400" is, in both the simdjson and the own reader's paths (it read as 0.0 before;
// found by fuzz_diff_yaml). Underflow without an exponent is still a zero.
TEST(JsonDecode, ManyDigitsWithoutAnExponentOverflow) {
    const std::string big = "1" + std::string(310, '0') + ".5";
    for (const std::string& text : {big, "-" + big, "[" + big + "]", "{\"a\": " + big + "}"}) {
        error e = test::decode_error(format_id::json, text);
        EXPECT_EQ(e.code, errc::invalid_number) << describe(e);
        EXPECT_NE(e.message.find("too large"), std::string::npos) << describe(e);
    }
    document d = test::must_decode(format_id::json, "[0." + std::string(400, '0') + "1]");
    EXPECT_EQ((*d.root().items().begin()).get_double(), 0.0);
}

}  // namespace
}  // namespace polycodec
