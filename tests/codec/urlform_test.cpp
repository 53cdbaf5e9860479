// Tests of the urlform codec: spec examples, error positions, exact encodings.
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string form(std::string_view text, bool infer = false) {
    decode_options opt;
    opt.infer = infer;
    return dbg(must_decode(format_id::urlform, text, opt));
}

std::string encode_form(std::string_view json, encode_options opt = {}) {
    return must_encode(format_id::urlform, must_decode(format_id::json, json), opt);
}

error encode_error(std::string_view json, encode_options opt = {}) {
    document d = must_decode(format_id::json, json);
    output_buffer out;
    auto r = encode(format_id::urlform, d, out, opt);
    EXPECT_FALSE(r) << out.str();
    return r ? error{} : r.error();
}

TEST(UrlformDecode, FlatForms) {
    // WHATWG URL standard, application/x-www-form-urlencoded parsing.
    EXPECT_EQ(form("a=1&b=x%20y+z"), "{\"a\":\"1\",\"b\":\"x y z\"}");
    EXPECT_EQ(form(""), "{}");
    EXPECT_EQ(form("a&b=&&=v"), "{\"a\":\"\",\"b\":\"\",\"\":\"v\"}");
    EXPECT_EQ(form("k=a=b%3D%26%2B"), "{\"k\":\"a=b=&+\"}");
    EXPECT_EQ(form("%C3%A9t%C3%A9=%E2%82%AC&raw=\xC3\xA9"), "{\"\u00e9t\u00e9\":\"\u20ac\",\"raw\":\"\u00e9\"}");
    EXPECT_EQ(form("a=1&b=2&a=3"), "{\"a\":[\"1\",\"3\"],\"b\":\"2\"}");
    // One final line break is dropped; other raw line breaks are data.
    EXPECT_EQ(form("a=1\n"), "{\"a\":\"1\"}");
    EXPECT_EQ(form("a=1\r\n"), "{\"a\":\"1\"}");
    EXPECT_EQ(form("a=1\n\n"), "{\"a\":\"1\\u000a\"}");
}

TEST(UrlformDecode, BracketNesting) {
    EXPECT_EQ(form("a[b][c]=1&a[b][d]=2"), "{\"a\":{\"b\":{\"c\":\"1\",\"d\":\"2\"}}}");
    EXPECT_EQ(form("a[]=1&a[]=2"), "{\"a\":[\"1\",\"2\"]}");
    EXPECT_EQ(form("a[1]=y&a[0]=x&a[5]=z"), "{\"a\":[\"x\",\"y\",\"z\"]}");
    EXPECT_EQ(form("a[0][b]=1&a[1][b]=2"), "{\"a\":[{\"b\":\"1\"},{\"b\":\"2\"}]}");
    EXPECT_EQ(form("a[][b]=1&a[][b]=2"), "{\"a\":[{\"b\":\"1\"},{\"b\":\"2\"}]}");
    EXPECT_EQ(form("a%5Bb%5D=1"), "{\"a\":{\"b\":\"1\"}}");  // keys decode first
    // Index keys beside names make a map; a leading zero is a name.
    EXPECT_EQ(form("a[0]=x&a[b]=y&a[01]=z"), "{\"a\":{\"0\":\"x\",\"b\":\"y\",\"01\":\"z\"}}");
    // A value and a container under one key: the value becomes element 0.
    EXPECT_EQ(form("a=1&a[]=2"), "{\"a\":[\"1\",\"2\"]}");
    EXPECT_EQ(form("a=1&a[b]=2"), "{\"a\":{\"0\":\"1\",\"b\":\"2\"}}");
    // Keys not of the form name[seg]... are literal names.
    EXPECT_EQ(form("[a]=1&a[b]c=2&a[b=3&a]=4"),
              "{\"[a]\":\"1\",\"a[b]c\":\"2\",\"a[b\":\"3\",\"a]\":\"4\"}");
}

TEST(UrlformDecode, Infer) {
    EXPECT_EQ(form("i=-12&f=2.5e3&t=true&n=&s=007&x=1e999&b=18446744073709551616&N=NaN&q=True",
                   true),
              "{\"i\":-12,\"f\":2500.0,\"t\":true,\"n\":\"\",\"s\":\"007\",\"x\":\"1e999\","
              "\"b\":18446744073709551616n,\"N\":NaN,\"q\":\"True\"}");
}

TEST(UrlformDecode, Errors) {
    error e = decode_error(format_id::urlform, "a=1&b=%zz");
    EXPECT_EQ(e.code, errc::invalid_string);
    EXPECT_EQ(e.offset, 6u);
    EXPECT_EQ(e.column, 7u);
    EXPECT_EQ(e.message, "expected two hex digits after '%'");
    e = decode_error(format_id::urlform, "a=%4");
    EXPECT_EQ(e.code, errc::invalid_string);
    EXPECT_EQ(e.offset, 2u);
    e = decode_error(format_id::urlform, "a=ok%C3%28");
    EXPECT_EQ(e.code, errc::invalid_utf8);
    EXPECT_EQ(e.offset, 4u);
    e = decode_error(format_id::urlform, "a=x&\xff=1");
    EXPECT_EQ(e.code, errc::invalid_utf8);
    EXPECT_EQ(e.offset, 4u);
}

TEST(UrlformDecode, DepthLimit) {
    decode_options opt;
    opt.limits.max_depth = 3;
    EXPECT_EQ(dbg(must_decode(format_id::urlform, "a[b][c]=1", opt)), "{\"a\":{\"b\":{\"c\":\"1\"}}}");
    document d;
    auto r = decode(format_id::urlform, "a[b][c][d]=1", d, opt);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::depth_exceeded);
    std::string deep = "a" ;
    for (int i = 0; i < 100000; ++i) {
        deep += "[x]";
    }
    r = decode(format_id::urlform, deep + "=1", d);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::depth_exceeded);
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
    document a = must_decode(format_id::json, json);
    decode_options infer;
    infer.infer = true;
    document back =
        must_decode(format_id::urlform, must_encode(format_id::urlform, a), infer);
    EXPECT_TRUE(equal(a, back)) << dbg(back);
}

TEST(UrlformEncode, Unrepresentable) {
    error e = encode_error("[1]");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "");
    e = encode_error(R"({"a":{"b":null}})");
    EXPECT_EQ(e.path, "/a/b");
    EXPECT_EQ(e.message, "null is not representable in urlform");
    e = encode_error(R"({"a":[]})");
    EXPECT_EQ(e.path, "/a");
    e = encode_error(R"({"a":{"x":{}}})");
    EXPECT_EQ(e.path, "/a/x");
    e = encode_error(R"({"a[b]":"1"})");
    EXPECT_EQ(e.path, "/a[b]");
    e = encode_error(R"({"a":{"0":"x","1":"y"}})");
    EXPECT_EQ(e.path, "/a");

    encode_options lossy;
    lossy_report report;
    lossy.lossy = true;
    lossy.report = &report;
    EXPECT_EQ(encode_form(R"({"a":null,"b":[],"c":{"0":"x"}})", lossy), "a=&c[0]=x");
    ASSERT_EQ(report.size(), 3u);
    EXPECT_EQ(report[0].kind, "null_to_empty");
    EXPECT_EQ(report[1].kind, "empty_dropped");
    EXPECT_EQ(report[2].kind, "map_to_array");
}

TEST(UrlformEncode, BytesAreBase64url) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("k");
    b.add_bytes(std::string("\xfb\xff", 2));
    b.end_map();
    EXPECT_EQ(must_encode(format_id::urlform, d), "k=-_8");
}

// fuzz_decode_urlform: "=a&=b" is {"": ["a", "b"]}, and was written "[0]=a&[1]=b" (literal
// names "[0]" and "[1]" when read back).
TEST(UrlformRoundTrip, EmptyNameRepeated) {
    EXPECT_EQ(form("=a&=b"), R"({"":["a","b"]})");
    EXPECT_EQ(encode_form(R"({"":["a","b"],"x":"1"})"), "=a&=b&x=1");
    EXPECT_EQ(encode_form(R"({"":"a"})"), "=a");
    // So is a name whose brackets read literally ("[?").
    EXPECT_EQ(form("[?&[?&1"), R"({"[?":["",""],"1":""})");
    EXPECT_EQ(encode_form(R"({"[?":["",""],"1":""})"), "%5B%3F=&%5B%3F=&1=");
    // A top-level name may hold ']' over a map: the reader splits the name at its first '['.
    EXPECT_EQ(form("a]%5Bb]=1"), R"({"a]":{"b":"1"}})");
    EXPECT_EQ(encode_form(R"({"a]":{"b":"1"}})"), "a%5D[b]=1");
    EXPECT_EQ(encode_error(R"({"a[":{"b":"1"}})").code, errc::unrepresentable);
    EXPECT_EQ(encode_error(R"({"a":{"b]":"1"}})").code, errc::unrepresentable);
    error e = encode_error(R"({"":["a"]})");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "/");
    e = encode_error(R"({"":{"b":"1"}})");
    EXPECT_EQ(e.code, errc::unrepresentable);
    e = encode_error(R"({"":["a",["b"]]})");
    EXPECT_EQ(e.code, errc::unrepresentable);
}

// fuzz_decode_urlform: in a map, an appended element and an explicit index could both be "0"
// (a duplicate key the encoder cannot write). They form one key over an array, as qs reads
// `a[b]=1&a[0]=2&a[0]=3`.
TEST(UrlformDecode, SameIndexTwiceInAMap) {
    EXPECT_EQ(form("a=1&a[b]=2&a[0]=3"), R"({"a":{"0":["1","3"],"b":"2"}})");
    EXPECT_EQ(form("a[b]=1&a[]=x&a[]=y&a[0]=z&a[1]=w"),
              R"({"a":{"b":"1","0":["x","z"],"1":["y","w"]}})");
    EXPECT_EQ(encode_form(R"({"a":{"0":["1","3"],"b":"2"}})"), "a[0][0]=1&a[0][1]=3&a[b]=2");
    // In an array the two are consecutive elements, as before.
    EXPECT_EQ(form("a=1&a[0]=2"), R"({"a":["1","2"]})");
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
    decode_options infer;
    infer.infer = true;
    document back = must_decode(format_id::urlform, must_encode(format_id::urlform, sub), infer);
    EXPECT_TRUE(equal(sub, back));
}

}  // namespace
}  // namespace polycodec::test

namespace polycodec::test {
namespace {

TEST(UrlformDecode, SizeBudget) {
    decode_options opt;
    opt.limits.max_bytes = 4096;
    std::string many;
    for (int i = 0; i < 1000; ++i) {
        many += "a&";
    }
    document d;
    auto r = decode(format_id::urlform, many, d, opt);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::size_exceeded);
}

}  // namespace
}  // namespace polycodec::test
