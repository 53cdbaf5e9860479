// Tests of the urlform codec: spec examples, error positions, exact encodings.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "detail/urlform_readers.hpp"
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

TEST(UrlformDecode, MapsReopenedAndPlainKeys) {
    // Hand-checked (qs.parse gives the same): a map whose pairs are not consecutive, a name
    // again, a literal name beside a nested one.
    const text_case cases[] = {
        {"a[b]=1&c=2&a[d]=3", "{\"a\":{\"b\":\"1\",\"d\":\"3\"},\"c\":\"2\"}"},
        {"a[b][c]=1&a[e]=2&a[b][d]=3", "{\"a\":{\"b\":{\"c\":\"1\",\"d\":\"3\"},\"e\":\"2\"}}"},
        {"x=1&y[z]=2&x=3", "{\"x\":[\"1\",\"3\"],\"y\":{\"z\":\"2\"}}"},
        {"a[b]=1&a[b]=2", "{\"a\":{\"b\":[\"1\",\"2\"]}}"},
        {"a[b=1&a[c]=2", "{\"a[b\":\"1\",\"a\":{\"c\":\"2\"}}"},
        {"a[0]=x&a[1]=y&b[0][c]=1&b[1][c]=2&b[1][d]=3",
         "{\"a\":[\"x\",\"y\"],\"b\":[{\"c\":\"1\"},{\"c\":\"2\",\"d\":\"3\"}]}"},
        {"a[0]=x&a[2]=y&a[1]=z", "{\"a\":[\"x\",\"z\",\"y\"]}"},
        {"a[0]=x&a[b]=y", "{\"a\":{\"0\":\"x\",\"b\":\"y\"}}"},
        {"o[n]=blue&o[id]=42&t=Next+J%73on",
         "{\"o\":{\"n\":\"blue\",\"id\":\"42\"},\"t\":\"Next Json\"}"},
    };
    expect_decodes(format_id::urlform, cases);
}

TEST(UrlformEncode, PlainAndEncodedKeys) {
    // qs.stringify(v, {encodeValuesOnly: true}) for the plain keys; the others percent-encoded.
    EXPECT_EQ(encode_form(R"({"a":{"b":"1","c-d.e_f~":"2"},"g":"3","h i":{"j&":"4"}})"),
              "a[b]=1&a[c-d.e_f~]=2&g=3&h%20i[j%26]=4");
    EXPECT_EQ(encode_form(R"({"t":"NextJson benchmark","o":{"name":"b","id":"42"}})"),
              "t=NextJson%20benchmark&o[name]=b&o[id]=42");
}

// The one-pass reader (detail::decode_urlform_fast) against the tree reader
// (detail::decode_urlform_tree, the general path) on generated forms: nested names written in
// order as encoders write them, and every disturbance (a name again, a map re-opened, indexes,
// "[]", literal bracket names, escapes in names and values, bad escapes, invalid UTF-8, empty
// pairs, a final line break), with and without infer, under tight size and depth limits.
// Where the fast path finishes, both give the same document; where the tree reader fails, the
// fast path must have given way; decode() gives the tree reader's result and error.
TEST(UrlformDecode, FastPathAgreesWithTheTreeReader) {
    const char* names[] = {"a", "b", "id", "name", "x_y", "caf\xc3\xa9", "n-1", "Z.z", "t~"};
    const char* odd_names[] = {"", "0", "1", "00", "07", "a%5Bb%5D", "a+b", "%61", "a]", "[a]",
                               "a[b", "a[]", "a[0]", "a[b]c", "\xff", "%zz", "a%C3", "9z"};
    const char* values[] = {"", "1", "-12", "2.5e3", "true", "false", "007", "NaN", "x y",
                            "x+y", "%20", "%41%42", "%e2%82%ac", "caf\xc3\xa9", "%C3%28", "%4",
                            "%zz", "\xc3", "a=b", "1e999", "18446744073709551616", "%2B"};
    std::uint64_t seed = 0x9E3779B97F4A7C15ull;
    auto next = [&](std::uint64_t n) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return (seed >> 33) % n;
    };
    // `base` itself, or (when `nest`) 1 to 3 names below it, each with its index: base[name0].
    auto add_keys = [&](std::vector<std::string>& keys, const std::string& base, bool nest) {
        if (!nest) {
            keys.push_back(base);
            return;
        }
        const std::uint64_t n = 1 + next(3);
        for (std::uint64_t i = 0; i < n; ++i) {
            keys.push_back(base + "[" + names[next(9)] + std::to_string(i) + "]");
        }
    };
    int handled = 0;
    int runs = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text;
        const bool disturb = round % 3 == 0;
        const std::uint64_t tops = next(6);
        for (std::uint64_t t = 0; t < tops; ++t) {
            const std::string top = std::string(names[next(9)]) + std::to_string(t);
            const std::uint64_t shape = next(5);
            std::vector<std::string> keys;
            if (shape == 0) {
                keys.push_back(top);
            } else if (shape >= 3) {  // an array, its indexes in order: of scalars or of maps
                const std::uint64_t n = 1 + next(12);
                for (std::uint64_t i = 0; i < n; ++i) {
                    add_keys(keys, top + "[" + std::to_string(i) + "]", shape == 4);
                }
            } else {
                const std::uint64_t kids = 1 + next(4);
                for (std::uint64_t k = 0; k < kids; ++k) {
                    add_keys(keys, top + "[" + names[next(9)] + std::to_string(k) + "]",
                             shape == 2);
                }
            }
            for (std::string key : keys) {
                if (disturb) {
                    switch (next(10)) {
                        case 0:
                            key = names[next(3)] + std::to_string(next(2));  // maybe again
                            break;
                        case 1:
                            key = odd_names[next(sizeof odd_names / sizeof odd_names[0])];
                            break;
                        case 2:
                            key += std::string("[") + odd_names[next(8)] + "]";
                            break;
                        case 3:
                            key = top + "[" + names[next(2)] + "0]";  // a map re-opened
                            break;
                        case 4:
                            key = top + "[" + std::to_string(next(4)) + "]";  // index again
                            break;
                        case 5:
                            key = top + "[" + std::to_string(next(3)) + "][x]";
                            break;
                        default:
                            break;
                    }
                }
                if (!text.empty()) {
                    text += disturb && next(8) == 0 ? "&&" : "&";
                }
                text += key;
                if (next(10) != 0) {
                    text += "=";
                    text += values[next(disturb ? sizeof values / sizeof values[0] : 14)];
                }
            }
        }
        if (next(8) == 0) {
            text += next(2) == 0 ? "\n" : "\r\n";
        }
        for (int mode = 0; mode < 4; ++mode) {
            decode_options opt;
            opt.infer = (mode & 1) != 0;
            if (mode == 2) {
                opt.limits.max_bytes = 64 + next(1200);
            }
            if (mode == 3) {
                opt.limits.max_depth = 1 + static_cast<std::uint32_t>(next(3));
            }
            document want;
            builder wb(want, opt.limits);
            const result<void> expected = detail::decode_urlform_tree(text, wb, opt);
            document fast;
            builder b(fast, opt.limits);
            const bool took = detail::decode_urlform_fast(text, b, opt);
            ++runs;
            document got;
            const result<void> r = decode(format_id::urlform, text, got, opt);
            if (expected && wb.ok()) {
                ASSERT_TRUE(static_cast<bool>(r)) << text << " mode " << mode;
                EXPECT_EQ(dbg(got), dbg(want)) << text << " mode " << mode;
            } else {
                ASSERT_FALSE(static_cast<bool>(r)) << text << " mode " << mode;
                if (!expected) {
                    EXPECT_EQ(r.error().code, expected.error().code) << text;
                    EXPECT_EQ(r.error().offset, expected.error().offset) << text;
                    EXPECT_EQ(r.error().message, expected.error().message) << text;
                }
            }
            if (!took) {
                EXPECT_TRUE(fast.empty()) << text;
                continue;
            }
            ++handled;
            ASSERT_TRUE(static_cast<bool>(expected)) << text << " mode " << mode;
            ASSERT_TRUE(wb.ok()) << text << " mode " << mode;
            EXPECT_TRUE(equal(fast, want)) << text << " mode " << mode << ": " << dbg(fast)
                                           << " vs " << dbg(want);
            EXPECT_EQ(dbg(fast), dbg(want)) << text << " mode " << mode;
        }
    }
    EXPECT_GT(handled, runs / 4);  // most undisturbed forms take the fast path
    std::fprintf(stderr, "fast path took %d of %d reads\n", handled, runs);
}

}  // namespace
}  // namespace polycodec::test
