// Tests of the ini codec: spec examples, error positions, exact encodings.
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string ini(std::string_view text, bool infer = false) {
    return decoded_as(format_id::ini, text, inferring(infer));
}

TEST(IniDecode, SectionsKeysComments) {
    // The configparser documentation's example file, minus its continuation lines.
    EXPECT_EQ(ini("[Simple Values]\n"
                  "key=value\n"
                  "spaces in keys=allowed\n"
                  "spaces in values=allowed as well\n"
                  "spaces around the delimiter = obviously\n"
                  "you can also use : to delimit keys from values\n"
                  "\n"
                  "[All Values Are Strings]\n"
                  "values like this: 1000000\n"
                  "or this: 3.14159265359\n"
                  "are they treated as numbers? : no\n"
                  "\n"
                  "[You can use comments]\n"
                  "# like this\n"
                  "; or this\n"
                  "    [Sections Can Be Indented]\n"
                  "        can_values_be_as_well = True\n"),
              "{\"Simple Values\":{\"key\":\"value\",\"spaces in keys\":\"allowed\","
              "\"spaces in values\":\"allowed as well\",\"spaces around the delimiter\":"
              "\"obviously\",\"you can also use\":\"to delimit keys from values\"},"
              "\"All Values Are Strings\":{\"values like this\":\"1000000\",\"or this\":"
              "\"3.14159265359\",\"are they treated as numbers?\":\"no\"},"
              "\"You can use comments\":{},\"Sections Can Be Indented\":"
              "{\"can_values_be_as_well\":\"True\"}}");
}

TEST(IniDecode, NestingQuotesTopLevel) {
    const text_case cases[] = {
        {"top = 1\n[a.b]\nx = 1\n[a]\ny = 2\n[ c . d ]\n",
         "{\"top\":\"1\",\"a\":{\"y\":\"2\",\"b\":{\"x\":\"1\"}},\"c\":{\"d\":{}}}"},
        {"a = \"  x \"\nb = 'y'\nc = \"z'\nd = \"\"\ne =\nf = 1 ; no inline comment\n"
         "g = x = y\nh: a=b\n",
         "{\"a\":\"  x \",\"b\":\"y\",\"c\":\"\\\"z'\",\"d\":\"\",\"e\":\"\","
         "\"f\":\"1 ; no inline comment\",\"g\":\"x = y\",\"h\":\"a=b\"}"},
        {"", "{}"},
    };
    expect_decodes(format_id::ini, cases);
    EXPECT_EQ(ini("\xEF\xBB\xBF[s]\r\nK=V\r\n"), "{\"s\":{\"K\":\"V\"}}");  // case kept
}

TEST(IniDecode, Infer) {
    EXPECT_EQ(ini("i = -12\nf = 2.5\nt = true\nn =\ns = \"12\"\nz = 007\nT = True\n", true),
              "{\"i\":-12,\"f\":2.5,\"t\":true,\"n\":null,\"s\":\"12\",\"z\":\"007\","
              "\"T\":\"True\"}");
}

TEST(IniDecode, Errors) {
    struct case_t {
        const char* in;
        errc code;
        std::uint64_t offset;
        std::uint32_t line, column;
    } cases[] = {
        {"[a]\nx=1\n[a]\n", errc::duplicate_key, 8, 3, 1},
        {"[a]\nx=1\nx=2\n", errc::duplicate_key, 8, 3, 1},
        {"[a]\njunk\n", errc::unexpected_char, 8, 2, 5},
        {"[a\n", errc::unexpected_char, 2, 1, 3},
        {"[a] x\n", errc::trailing_content, 3, 1, 4},
        {"[a..b]\n", errc::unexpected_char, 3, 1, 4},
        {"[]\n", errc::unexpected_char, 1, 1, 2},
        {"a=1\n[a]\n", errc::duplicate_key, 5, 2, 2},
        {"[a.b]\n[a]\nb=1\n", errc::duplicate_key, 10, 3, 1},
        {"= x\n", errc::unexpected_char, 0, 1, 1},
        {"a=\xff\n", errc::invalid_utf8, 2, 1, 3},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.in);
        expect_decode_error(format_id::ini, c.in, {c.code, c.offset, c.line, c.column});
    }
}

TEST(IniDecode, DepthLimit) {
    const decode_options opt = max_depth(2);
    EXPECT_EQ(decoded_as(format_id::ini, "[a]\nx=1\n", opt), "{\"a\":{\"x\":\"1\"}}");
    expect_decode_error(format_id::ini, "[a.b]\nx=1\n", {errc::depth_exceeded}, opt);
}

TEST(IniEncode, ExactBytes) {
    const text_case cases[] = {
        {R"({"t":1,"s":{"a":"x","n":null,"e":"","f":2.5,"b":false,)"
         R"("q":" pad","r":"\"x\"","sub":{"k":"true","z":{}}},"u":{"v":{"w":"1"}}})",
         "t = 1\n"
         "\n[s]\na = x\nn =\ne = \"\"\nf = 2.5\nb = false\nq = \" pad\"\nr = \"\"x\"\"\n"
         "\n[s.sub]\nk = \"true\"\n"
         "\n[s.sub.z]\n"
         "\n[u.v]\nw = \"1\"\n"},
        {"{}", ""},
    };
    expect_encodes(format_id::ini, cases);
}

TEST(IniEncode, RoundTrips) {
    const char* json = R"({"top":"x","n":1,"s":{"a":-2.5,"b":true,"c":null,"d":"","e":"12",)"
                       R"("big":123456789012345678901234567890,"t":"it's \"q\""},)"
                       R"("x":{"y":{"z":"deep"}}})";
    document a = must_decode(format_id::json, json);
    const decode_options infer = inferring();
    document back = must_decode(format_id::ini, must_encode(format_id::ini, a), infer);
    EXPECT_TRUE(equal(a, back)) << dbg(back);

    // All strings: reads back without infer.
    const char* strings = R"({"title":"NextJson benchmark","retries":"3",)"
                          R"("owner":{"name":"blueokanna","id":"42"}})";
    document s = must_decode(format_id::json, strings);
    EXPECT_TRUE(equal(s, must_decode(format_id::ini, must_encode(format_id::ini, s))));
}

// fuzz_decode_ini: a lone CR was part of the key ("\r&!)"), which the encoder refuses. Lines end
// at LF, CRLF or a lone CR, as configparser reads them (universal newlines).
TEST(IniDecode, LoneCrEndsALine) {
    EXPECT_EQ(decoded_as(format_id::ini, "a=1\rb=2\r\nc=3\n\r\rd=4"),
              R"({"a":"1","b":"2","c":"3","d":"4"})");
    EXPECT_EQ(decoded_as(format_id::ini, "\r&!):x"), R"j({"&!)":"x"})j");
    error e = test::decode_error(format_id::ini, "a=1\rb\rc=2");
    EXPECT_EQ(e.code, errc::unexpected_char);
    EXPECT_EQ(e.offset, 5u);
}

// fuzz_decode_ini: a section name holding ']' decoded (the header ends at the last ']') but the
// encoder refused it.
TEST(IniRoundTrip, SectionNameWithABracket) {
    EXPECT_EQ(decoded_as(format_id::ini, "[a]b]\nk=v\n"), R"({"a]b":{"k":"v"}})");
    EXPECT_EQ(encode_json_as(format_id::ini, R"({"a]b":{"k":"v"}})"), "[a]b]\nk = v\n");
}

// fuzz_decode_ini: a key after a subsection of its section (`[a.b]` then `[a]` `y=2`) decoded
// in that order, which the encoder cannot write (it writes a section's keys first). Keys now
// come first in the map, then subsections.
TEST(IniDecode, KeysComeBeforeSubsections) {
    EXPECT_EQ(decoded_as(format_id::ini, "[a.b]\nx=1\n[a]\ny=2\n"),
              R"({"a":{"y":"2","b":{"x":"1"}}})");
    EXPECT_EQ(encode_json_as(format_id::ini, R"({"a":{"y":"2","b":{"x":"1"}}})"),
              "[a]\ny = \"2\"\n\n[a.b]\nx = \"1\"\n");
}

TEST(IniEncode, Unrepresentable) {
    error e = encode_json_error(format_id::ini, "[1]");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.path, "");
    e = encode_json_error(format_id::ini, R"({"s":{"a":[1,2]}})");
    EXPECT_EQ(e.path, "/s/a");
    EXPECT_EQ(e.message, "an array is not representable in ini");
    e = encode_json_error(format_id::ini, R"({"s":{"m":{},"k":1}})");
    EXPECT_EQ(e.path, "/s/k");
    e = encode_json_error(format_id::ini, R"({"a.b":{"k":1}})");
    EXPECT_EQ(e.path, "/a.b");
    e = encode_json_error(format_id::ini, R"({"k=v":1})");
    EXPECT_EQ(e.path, "/k=v");
    e = encode_json_error(format_id::ini, R"({"k":"two\nlines"})");
    EXPECT_EQ(e.path, "/k");

    lossy_encode lossy;
    EXPECT_EQ(
        encode_json_as(format_id::ini, R"({"a":[1,"x"],"s":{"m":{},"k":"l1\nl2"}})", lossy.opt),
        "a = [1,\"x\"]\n\n[s]\nk = l1 l2\n\n[s.m]\n");
    expect_report(lossy.report, {{"array_to_json"}, {"key_reordered"}, {"line_break_to_space"}});
}

// The writer tests names and values 8 bytes a step and types only text classify() can type:
// a forbidden byte is found at every position of the word-sized pieces, and the quoting
// follows configparser plus --infer (a value an inferring reader would type is quoted).
TEST(IniEncode, QuotingAndNamesAtEveryLength) {
    const text_case cases[] = {
        {R"({"a":"007","b":"-0","c":"-","d":"0","e":"12345678901234567890","f":"-12",)"
         R"("g":"1.5","h":"1.","i":"tru","j":"true","k":"Infinity","l":"Infinityx",)"
         R"("m":"NaN","n":"fals","o":"-Infinity","p":"1e5","q":"falsehood","r":"7x"})",
         "a = 007\nb = \"-0\"\nc = -\nd = \"0\"\ne = \"12345678901234567890\"\nf = \"-12\"\n"
         "g = \"1.5\"\nh = 1.\ni = tru\nj = \"true\"\nk = \"Infinity\"\nl = Infinityx\n"
         "m = \"NaN\"\nn = fals\no = \"-Infinity\"\np = \"1e5\"\nq = falsehood\nr = 7x\n"},
        {R"({"abcdefghijklmnopq":"abcdefghijklmnopqrstuvwxyz","x":"a\tb"})",
         "abcdefghijklmnopq = abcdefghijklmnopqrstuvwxyz\nx = a\tb\n"},
    };
    expect_encodes(format_id::ini, cases);
    EXPECT_EQ(encode_json_error(format_id::ini, R"({"z":0,"long key with = later":1})").path,
              "/long key with = later");

    EXPECT_EQ(encode_json_as(format_id::ini, R"({"n":-9223372036854775808,"z":0})"),
              "n = -9223372036854775808\nz = 0\n");
    // '=' or ':' (keys), '.' (section names) or a line break (both) first, in the middle or
    // last in names of 1 to 17 bytes: unrepresentable, and '_' under lossy=allow.
    auto quoted = [](const std::string& s) {
        std::string j = "\"";
        for (char c : s) {
            j += c == '\n' ? "\\n" : c == '\r' ? "\\r" : std::string(1, c);
        }
        return j + "\"";
    };
    for (std::size_t n = 1; n <= 17; ++n) {
        for (std::size_t at : {std::size_t{0}, (n - 1) / 2, n - 1}) {
            for (char bad : {'=', ':', '.', '\n', '\r'}) {
                std::string name(n, 'k');
                name[at] = bad;
                std::string fixed(n, 'k');
                fixed[at] = '_';
                lossy_encode lossy;
                if (bad != '.') {  // a key
                    const std::string json = "{" + quoted(name) + ":1}";
                    EXPECT_EQ(encode_json_error(format_id::ini, json).code, errc::unrepresentable)
                        << json;
                    EXPECT_EQ(encode_json_as(format_id::ini, json, lossy.opt), fixed + " = 1\n")
                        << json;
                } else {
                    EXPECT_EQ(encode_json_as(format_id::ini, "{" + quoted(name) + ":1}"),
                              name + " = 1\n");
                }
                if (bad != '=' && bad != ':') {  // a section name
                    const std::string json = "{" + quoted(name) + ":{\"k\":1}}";
                    EXPECT_EQ(encode_json_error(format_id::ini, json).code, errc::unrepresentable)
                        << json;
                    EXPECT_EQ(encode_json_as(format_id::ini, json, lossy.opt),
                              "[" + fixed + "]\nk = 1\n")
                        << json;
                } else {
                    EXPECT_EQ(encode_json_as(format_id::ini, "{" + quoted(name) + ":{\"k\":1}}"),
                              "[" + name + "]\nk = 1\n");
                }
            }
            // A line break in a value: a space under lossy=allow (quoted when it is last).
            for (char brk : {'\n', '\r'}) {
                std::string text(n, 'v');
                text[at] = brk;
                std::string spaced(n, 'v');
                spaced[at] = ' ';
                const std::string json = "{\"v\":" + quoted(text) + "}";
                EXPECT_EQ(encode_json_error(format_id::ini, json).code, errc::unrepresentable)
                    << json;
                lossy_encode lossy;
                const bool q = at == 0 || at == n - 1;
                EXPECT_EQ(encode_json_as(format_id::ini, json, lossy.opt),
                          q ? "v = \"" + spaced + "\"\n" : "v = " + spaced + "\n")
                    << json;
            }
        }
    }
}

TEST(IniConformance, NextjsonIniDoc) {
    POLYCODEC_REQUIRE_CORPUS("nextjson-bench/ini_doc.json", path);
    document a = must_decode(format_id::json, read_file(path));
    std::string text = must_encode(format_id::ini, a);
    EXPECT_EQ(text, "title = NextJson benchmark\nretries = \"3\"\n\n[owner]\nname = blueokanna\n"
                    "id = \"42\"\n");
    EXPECT_TRUE(equal(a, must_decode(format_id::ini, text)));
}

}  // namespace
}  // namespace polycodec::test

namespace polycodec::test {
namespace {

TEST(IniDecode, SizeBudget) {
    const decode_options opt = max_bytes(4096);
    std::string many = "[s]\n";
    for (int i = 0; i < 1000; ++i) {
        many += "k" + std::to_string(i) + "=\n";
    }
    expect_decode_error(format_id::ini, many, {errc::size_exceeded}, opt);
}

}  // namespace
}  // namespace polycodec::test
