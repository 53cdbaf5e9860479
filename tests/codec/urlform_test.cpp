// Tests of the urlform codec: spec examples, error positions, exact encodings.
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string form(std::string_view text, bool infer = false) {
    return decoded_as(format_id::urlform, text, inferring(infer));
}

std::string encode_form(std::string_view json, const encode_options& opt = {}) {
    return encode_json_as(format_id::urlform, json, opt);
}

error encode_error(std::string_view json) { return encode_json_error(format_id::urlform, json); }

TEST(UrlformDecode, FlatForms) {
    // WHATWG URL standard, application/x-www-form-urlencoded parsing.
    const text_case cases[] = {
        {"a=1&b=x%20y+z", "{\"a\":\"1\",\"b\":\"x y z\"}"},
        {"", "{}"},
        {"a&b=&&=v", "{\"a\":\"\",\"b\":\"\",\"\":\"v\"}"},
        {"k=a=b%3D%26%2B", "{\"k\":\"a=b=&+\"}"},
        {"%C3%A9t%C3%A9=%E2%82%AC&raw=\xC3\xA9",
         "{\"\u00e9t\u00e9\":\"\u20ac\",\"raw\":\"\u00e9\"}"},
        {"a=1&b=2&a=3", "{\"a\":[\"1\",\"3\"],\"b\":\"2\"}"},
        // One final line break is dropped; other raw line breaks are data.
        {"a=1\n", "{\"a\":\"1\"}"},
        {"a=1\r\n", "{\"a\":\"1\"}"},
        {"a=1\n\n", "{\"a\":\"1\\u000a\"}"},
    };
    expect_decodes(format_id::urlform, cases);
}

TEST(UrlformDecode, BracketNesting) {
    const text_case cases[] = {
        {"a[b][c]=1&a[b][d]=2", "{\"a\":{\"b\":{\"c\":\"1\",\"d\":\"2\"}}}"},
        {"a[]=1&a[]=2", "{\"a\":[\"1\",\"2\"]}"},
        {"a[1]=y&a[0]=x&a[5]=z", "{\"a\":[\"x\",\"y\",\"z\"]}"},
        {"a[0][b]=1&a[1][b]=2", "{\"a\":[{\"b\":\"1\"},{\"b\":\"2\"}]}"},
        {"a[][b]=1&a[][b]=2", "{\"a\":[{\"b\":\"1\"},{\"b\":\"2\"}]}"},
        {"a%5Bb%5D=1", "{\"a\":{\"b\":\"1\"}}"},  // keys decode first
        // Index keys beside names make a map; a leading zero is a name.
        {"a[0]=x&a[b]=y&a[01]=z", "{\"a\":{\"0\":\"x\",\"b\":\"y\",\"01\":\"z\"}}"},
        // A value and a container under one key: the value becomes element 0.
        {"a=1&a[]=2", "{\"a\":[\"1\",\"2\"]}"},
        {"a=1&a[b]=2", "{\"a\":{\"0\":\"1\",\"b\":\"2\"}}"},
        // Keys not of the form name[seg]... are literal names.
        {"[a]=1&a[b]c=2&a[b=3&a]=4", "{\"[a]\":\"1\",\"a[b]c\":\"2\",\"a[b\":\"3\",\"a]\":\"4\"}"},
    };
    expect_decodes(format_id::urlform, cases);
}

TEST(UrlformDecode, Infer) {
    EXPECT_EQ(form("i=-12&f=2.5e3&t=true&n=&s=007&x=1e999&b=18446744073709551616&N=NaN&q=True",
                   true),
              "{\"i\":-12,\"f\":2500.0,\"t\":true,\"n\":\"\",\"s\":\"007\",\"x\":\"1e999\","
              "\"b\":18446744073709551616n,\"N\":NaN,\"q\":\"True\"}");
}

TEST(UrlformDecode, Errors) {
    const bad_input bad[] = {
        {"a=1&b=%zz", {errc::invalid_string, 6, any, 7, "expected two hex digits after '%'"}},
        {"a=%4", {errc::invalid_string, 2}},
        {"a=ok%C3%28", {errc::invalid_utf8, 4}},
        {"a=x&\xff=1", {errc::invalid_utf8, 4}},
    };
    expect_decode_errors(format_id::urlform, bad);
}

TEST(UrlformDecode, DepthLimit) {
    EXPECT_EQ(decoded_as(format_id::urlform, "a[b][c]=1", max_depth(3)),
              "{\"a\":{\"b\":{\"c\":\"1\"}}}");
    expect_decode_error(format_id::urlform, "a[b][c][d]=1", {errc::depth_exceeded}, max_depth(3));
    expect_decode_error(format_id::urlform, "a" + repeat("[x]", 100000) + "=1",
                        {errc::depth_exceeded});
}

TEST(UrlformEncode, ExactBytes) {
    // qs.stringify(v, {encodeValuesOnly: true}) writes the same (keys are also encoded here).
    EXPECT_EQ(encode_form(R"({"a":{"b":[1,"x y",{"c":"\u00e9&="}]},"k k":"v+","t":true,"f":2.0})"),
              "a[b][0]=1&a[b][1]=x%20y&a[b][2][c]=%C3%A9%26%3D&k%20k=v%2B&t=true&f=2.0");
    EXPECT_EQ(encode_form("{}"), "");
    EXPECT_EQ(encode_form(R"x({"u":"-._~!*'()"})x"), "u=-._~%21%2A%27%28%29");
}

TEST(UrlformEncode, RoundTripWithInfer) {
    const char* json = R"({"a":{"b":[1,-2.5,{"c":"x y"}],"n":123456789012345678901234567890},)"
                       R"("t":false,"s":"\u00e9"})";
    expect_round_trip(format_id::urlform, must_decode(format_id::json, json), inferring());
}

TEST(UrlformEncode, Unrepresentable) {
    const bad_input bad[] = {
        {"[1]", {.code = errc::unrepresentable, .path = ""}},
        {R"({"a":{"b":null}})",
         {.code = errc::unrepresentable,
          .message = "null is not representable in urlform",
          .path = "/a/b"}},
        {R"({"a":[]})", {.code = errc::unrepresentable, .path = "/a"}},
        {R"({"a":{"x":{}}})", {.code = errc::unrepresentable, .path = "/a/x"}},
        {R"({"a[b]":"1"})", {.code = errc::unrepresentable, .path = "/a[b]"}},
        {R"({"a":{"0":"x","1":"y"}})", {.code = errc::unrepresentable, .path = "/a"}},
    };
    expect_encode_errors(format_id::urlform, bad);

    lossy_encode lossy;
    EXPECT_EQ(encode_form(R"({"a":null,"b":[],"c":{"0":"x"}})", lossy.opt), "a=&c[0]=x");
    expect_report(lossy.report, {{"null_to_empty"}, {"empty_dropped"}, {"map_to_array"}});
}

TEST(UrlformEncode, BytesAreBase64url) {
    EXPECT_EQ(must_encode(format_id::urlform, map_of_bytes("k", "\xfb\xff")), "k=-_8");
}

// fuzz_decode_urlform: "=a&=b" is {"": ["a", "b"]}, and was written "[0]=a&[1]=b" (literal
// names "[0]" and "[1]" when read back).
TEST(UrlformRoundTrip, EmptyNameRepeated) {
    const text_case cases[] = {
        {"=a&=b", R"({"":["a","b"]})"},
        // So is a name whose brackets read literally ("[?").
        {"[?&[?&1", R"({"[?":["",""],"1":""})"},
        // A top-level name may hold ']' over a map: the reader splits the name at its first '['.
        {"a]%5Bb]=1", R"({"a]":{"b":"1"}})"},
    };
    expect_decodes(format_id::urlform, cases);
    const text_case cases2[] = {
        {R"({"":["a","b"],"x":"1"})", "=a&=b&x=1"},
        {R"({"":"a"})", "=a"},
        {R"({"[?":["",""],"1":""})", "%5B%3F=&%5B%3F=&1="},
        {R"({"a]":{"b":"1"}})", "a%5D[b]=1"},
    };
    expect_encodes(format_id::urlform, cases2);
    for (const char* json : {R"({"a[":{"b":"1"}})", R"({"a":{"b]":"1"}})", R"({"":["a"]})",
                             R"({"":{"b":"1"}})", R"({"":["a",["b"]]})"}) {
        SCOPED_TRACE(json);
        EXPECT_EQ(encode_error(json).code, errc::unrepresentable);
    }
    EXPECT_EQ(encode_error(R"({"":["a"]})").path, "/");
}

// fuzz_decode_urlform: in a map, an appended element and an explicit index could both be "0"
// (a duplicate key the encoder cannot write). They form one key over an array, as qs reads
// `a[b]=1&a[0]=2&a[0]=3`.
TEST(UrlformDecode, SameIndexTwiceInAMap) {
    const text_case cases[] = {
        {"a=1&a[b]=2&a[0]=3", R"({"a":{"0":["1","3"],"b":"2"}})"},
        {"a[b]=1&a[]=x&a[]=y&a[0]=z&a[1]=w", R"({"a":{"b":"1","0":["x","z"],"1":["y","w"]}})"},
        // In an array the two are consecutive elements, as before.
        {"a=1&a[0]=2", R"({"a":["1","2"]})"},
    };
    expect_decodes(format_id::urlform, cases);
    EXPECT_EQ(encode_form(R"({"a":{"0":["1","3"],"b":"2"}})"), "a[0][0]=1&a[0][1]=3&a[b]=2");
}

TEST(UrlformRoundTrip, RecordsFixtureSubset) {
    // records.json under one key, without nulls and empty arrays (docs/formats/urlform.md).
    document rows = must_decode(format_id::json, read_file(fixtures_dir() / "records.json"));
    document sub;
    builder b(sub);
    b.begin_map();
    b.add_string("records");
    b.begin_array();
    for (value r : rows.root().items()) {
        b.begin_map();
        for (auto [k, v] : r.entries()) {
            if (v.is_null() || (v.kind() == kind::array && v.size() == 0)) {
                continue;
            }
            b.add_copy(k);
            b.add_copy(v);
        }
        b.end_map();
    }
    b.end_array();
    b.end_map();
    expect_round_trip(format_id::urlform, sub, inferring());
}

TEST(UrlformDecode, SizeBudget) {
    expect_decode_error(format_id::urlform, repeat("a&", 1000), {errc::size_exceeded},
                        max_bytes(4096));
}

}  // namespace
}  // namespace polycodec::test
