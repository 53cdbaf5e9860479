// Tests of the edn codec: spec examples, error positions, exact encodings.
#include <cmath>
#include <string>

#include "support/support.hpp"

namespace polycodec {
namespace {

using test::dbg;
using test::max_bytes;
using test::max_depth;

std::string decode_dbg(std::string_view in, const decode_options& opt = {}) {
    return dbg(test::must_decode(format_id::edn, in, opt));
}

std::string reencode(std::string_view in, bool pretty = false) {
    document d = test::must_decode(format_id::edn, in);
    encode_options opt;
    opt.pretty = pretty;
    return test::must_encode(format_id::edn, d, opt);
}

// ---- spec examples (github.com/edn-format/edn) ----

const test::text_case spec_cases[] = {
    // "nil represents nil, null or nothing"; "true and false should be mapped to booleans".
    {"nil", "null"},
    {"true", "true"},
    {"false", "false"},
    // "Strings are enclosed in double quotes. May span multiple lines. Standard C/Java
    // escape characters \t, \r, \n, \\ and \" are supported."
    {R"("a\tb\rc\nd\\e\"f")", R"("a\u0009b\u000dc\u000ad\\e\"f")"},
    {"\"multi\nline\"", R"("multi\u000aline")"},
    {R"("\u00e9\ud83d\ude00")", "\"\xc3\xa9\xf0\x9f\x98\x80\""},
    // "Characters are preceded by a backslash: \c, \newline, \return, \space and \tab";
    // "\uXXXX"; characters are one-character strings.
    {R"([\c \newline \return \space \tab \u00e9 \\ \( \"])",
     "[\"c\",\"\\u000a\",\"\\u000d\",\" \",\"\\u0009\",\"\xc3\xa9\",\"\\\\\",\"(\",\"\\\"\"]"},
    {"\\\xc3\xa9", "\"\xc3\xa9\""},
    // "Symbols are used to represent identifiers": their text.
    {"[foo my.ns/bar - + ... <=> a#b a:b a'b /]",
     R"(["foo","my.ns/bar","-","+","...","<=>","a#b","a:b","a'b","/"])"},
    // "Keywords are identifiers that typically designate themselves": the name without ':'.
    {"[:fred :my/fred :a.b-c?]", R"(["fred","my/fred","a.b-c?"])"},
    // and, as Clojure's reader, keywords that start with a digit
    {"{:1 a :2d b}", R"({"1":"a","2d":"b"})"},
    // "Integers consist of the digits 0 - 9, optionally prefixed by - to indicate a negative
    // number, or (redundantly) by +"; "If the suffix N is present, arbitrary precision".
    {"[0 -0 +7 -42 9223372036854775807 -9223372036854775808]",
     "[0,0,7,-42,9223372036854775807,-9223372036854775808]"},
    {"[18446744073709551615 18446744073709551616 -9223372036854775809]",
     "[18446744073709551615u,18446744073709551616n,-9223372036854775809n]"},
    {"[5N -5N 123456789012345678901234567890N]", "[5,-5,123456789012345678901234567890n]"},
    // "64-bit (double) precision is expected"; "In addition, a floating-point number may have
    // the suffix M to indicate that exact precision is desired" (decimal128).
    {"[1.5 -2.25e3 1E-2 +0.5 -0.0 1e400 1e-400]", "[1.5,-2250.0,0.01,0.5,-0.0,Infinity,0.0]"},
    {"[1.50M -3M 1e-7M]", R"([tag(19@2, "1.50"),tag(19@2, "-3"),tag(19@2, "1e-7")])"},
    {"[##NaN ##Inf ##-Inf]", "[NaN,Infinity,-Infinity]"},
    // "A list is a sequence of values. Lists are represented by zero or more elements
    // enclosed in parentheses"; vectors in square brackets: both arrays.
    {"(a b 42)", R"(["a","b",42])"},
    {"[a b 42]", R"(["a","b",42])"},
    {"()", "[]"},
    // "A map is a collection of associations between keys and values ... Maps are
    // represented by zero or more key and value pairs enclosed in curly braces"; "commas are
    // considered whitespace"; "Keys and values can be elements of any type".
    {"{:a 1, \"foo\" :bar, [1] x}", ""},  // placeholder, see CollectionKeysAreRefused
    {"{:a 1, \"foo\" :bar, 2 x, nil y, 1.5 z}", R"({"a":1,"foo":"bar",2:"x",null:"y",1.5:"z"})"},
    {"{}", "{}"},
    // "A set is a collection of unique values. Sets are represented by zero or more elements
    // enclosed in curly braces preceded by #": an array.
    {"#{a b [1 2 3]}", R"(["a","b",[1,2,3]])"},
    // "#inst "1985-04-12T23:20:50.52Z"": an RFC 3339 timestamp, the text kept.
    {R"(#inst "1985-04-12T23:20:50.52Z")", R"(t"1985-04-12T23:20:50.52Z")"},
    // "#uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"" and any other tag: {"#tag": value}.
    {R"(#uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6")",
     R"({"#uuid":"f81d4fae-7dec-11d0-a765-00a0c91e6bf6"})"},
    {"#myapp/Person {:first \"Fred\" :last \"Mertz\"}",
     R"({"#myapp/Person":{"first":"Fred","last":"Mertz"}})"},
    // Our own tags for the Document's tagged values.
    {"[#cbor/tag37 \"x\" #msgpack/tag5 1 #other/tag0 nil]",
     R"([tag(37, "x"),tag(5@1, 1),tag(0@3, null)])"},
    // "If a ; character is encountered outside of a string, that character and all
    // subsequent characters to the next newline should be ignored"; "#_ ... the next element
    // (whether separated from it by whitespace or not) should be read and discarded".
    {"[1 ; comment\n 2 #_3 #_ [4 5] 6 #_ #_ 7 8 9]", "[1,2,6,9]"},
    {"#_ nil ; c\n 42 #_ {}", "42"},
    {",, [1,,2] ,", "[1,2]"},
};

TEST(EdnDecode, SpecExamples) {
    for (const auto& c : spec_cases) {
        if (c.want.empty()) {
            continue;
        }
        EXPECT_EQ(decode_dbg(c.input), c.want) << c.input;
    }
}

TEST(EdnDecode, CollectionKeysAreRefused) {
    // A Document's map keys are scalars.
    auto e = test::decode_error(format_id::edn, "{:a 1, [1] x}");
    EXPECT_EQ(e.code, errc::unrepresentable) << describe(e);
    EXPECT_EQ(e.offset, 7u);
    e = test::decode_error(format_id::edn, "{#{1} 2}");
    EXPECT_EQ(e.code, errc::unrepresentable) << describe(e);
    EXPECT_EQ(e.offset, 1u);
    e = test::decode_error(format_id::edn, "{#cbor/tag1 (1) 2}");
    EXPECT_EQ(e.code, errc::unrepresentable) << describe(e);
    EXPECT_EQ(e.offset, 12u);
    // Scalars of any kind are fine, also tagged and after discarded collections.
    EXPECT_EQ(decode_dbg("{#_ [1] #cbor/tag1 #_ {} 5 x #inst \"2026-01-01T00:00:00Z\" y}"),
              R"({tag(1, 5):"x",t"2026-01-01T00:00:00Z":"y"})");
    // A map discarded inside a tagged key does not end the key.
    e = test::decode_error(format_id::edn, "{#cbor/tag1 #_ {:a 1} [1] 2}");
    EXPECT_EQ(e.code, errc::unrepresentable) << describe(e);
    EXPECT_EQ(e.offset, 22u);
    e = test::decode_error(format_id::edn, "{#t 1 2}");
    EXPECT_EQ(e.code, errc::unrepresentable) << describe(e);
    EXPECT_EQ(e.offset, 1u);
}

TEST(EdnDecode, ReadsClojurePrStrOutput) {
    // (pr-str {:id 1 :tags #{"a"} :score 1.5 :big 12345678901234567890N :when #inst ...})
    EXPECT_EQ(decode_dbg("{:id 1, :tags #{\"a\"}, :score 1.5, :big 12345678901234567890N, "
                         ":when #inst \"2026-01-01T00:00:00.000-00:00\", :price 9.99M}"),
              R"({"id":1,"tags":["a"],"score":1.5,"big":12345678901234567890u,)"
              R"("when":t"2026-01-01T00:00:00.000-00:00","price":tag(19@2, "9.99")})");
}

// ---- errors ----

struct error_case {
    std::string_view input;
    errc code;
    std::uint64_t offset;
    std::uint32_t line;
    std::uint32_t column;
    const char* message;
};

TEST(EdnDecode, ErrorTable) {
    const error_case cases[] = {
        {"", errc::unexpected_eof, 0, 1, 1, "expected a value, saw end of input"},
        {"  ; only a comment", errc::unexpected_eof, 18, 1, 19, "expected a value"},
        {"[1 2", errc::unexpected_eof, 4, 1, 5, "expected a value or ']'"},
        {"(1 2]", errc::unexpected_char, 4, 1, 5, "expected a value or ')', saw ']'"},
        {"{:a 1 :b}", errc::unexpected_char, 8, 1, 9, "expected a value for the last key"},
        {"{:a 1", errc::unexpected_eof, 5, 1, 6, "expected a value or '}'"},
        {"#{1", errc::unexpected_eof, 3, 1, 4, "expected a value or '}'"},
        {"[1] 2", errc::trailing_content, 4, 1, 5, "expected end of input, saw '2'"},
        {"]", errc::unexpected_char, 0, 1, 1, "expected a value, saw ']'"},
        {"@x", errc::unexpected_char, 0, 1, 1, "expected a value, saw '@'"},
        {"\"abc", errc::unexpected_eof, 4, 1, 5, "unterminated string"},
        {"\"a\\qb\"", errc::invalid_string, 2, 1, 3, "invalid escape \\q"},
        {"\"\\u12\"", errc::invalid_string, 1, 1, 2, "expected 4 hex digits after \\u"},
        {"\"\\ud800\"", errc::invalid_string, 1, 1, 2, "unpaired UTF-16 surrogate"},
        {"\"a\xff\"", errc::invalid_utf8, 2, 1, 3, "invalid UTF-8 in string"},
        {"\"\\n\xff\"", errc::invalid_utf8, 3, 1, 4, "invalid UTF-8 in string"},
        {"[\\foo]", errc::invalid_string, 1, 1, 2, "unknown character name \\foo"},
        {"\\", errc::unexpected_eof, 1, 1, 2, "expected a character after '\\'"},
        {"[\\ ]", errc::invalid_string, 1, 1, 2, "saw whitespace"},
        {"\\ud800", errc::invalid_string, 0, 1, 1, "surrogate"},
        {"[01]", errc::invalid_number, 2, 1, 3, "leading zeros are not allowed"},
        {"1.", errc::invalid_number, 2, 1, 3, "expected a digit after '.'"},
        {"1e+", errc::invalid_number, 3, 1, 4, "expected a digit in the exponent"},
        {"[1abc]", errc::invalid_number, 2, 1, 3, "invalid character in number: 'a'"},
        {"1.5N", errc::invalid_number, 3, 1, 4, "invalid character in number: 'N'"},
        {"0x10", errc::invalid_number, 1, 1, 2, "invalid character in number: 'x'"},
        {"1/2", errc::invalid_number, 1, 1, 2, "invalid character in number: '/'"},
        {"1.2345678901234567890123456789012345M", errc::invalid_number, 0, 1, 1,
         "more than the 34 significant digits of decimal128"},
        {"::x", errc::unexpected_char, 0, 1, 1, "invalid keyword ::x"},
        {":", errc::unexpected_char, 0, 1, 1, "invalid keyword :"},
        {"a/b/c", errc::unexpected_char, 0, 1, 1, "invalid symbol a/b/c"},
        {".5", errc::unexpected_char, 0, 1, 1, "invalid symbol .5"},
        {"#", errc::unexpected_eof, 1, 1, 2, "expected a tag or '{' after '#'"},
        {"#1 2", errc::unexpected_char, 0, 1, 1, "invalid tag #1"},
        {"# x", errc::unexpected_char, 0, 1, 1, "expected a tag or '{' after '#', saw ' '"},
        {"##Foo", errc::unexpected_char, 0, 1, 1, "expected ##NaN, ##Inf or ##-Inf"},
        {"#foo", errc::unexpected_eof, 4, 1, 5, "expected a value after #foo"},
        {"[#foo]", errc::unexpected_char, 5, 1, 6, "expected a value after #foo, saw ']'"},
        {"#_", errc::unexpected_eof, 2, 1, 3, "expected a form after #_"},
        {"[1 #_]", errc::unexpected_char, 5, 1, 6, "expected a value, saw ']'"},
        {"#inst 5", errc::unexpected_char, 6, 1, 7, "expected a string after #inst"},
        {"{:a\n  #inst \"2020-01-01\"}", errc::invalid_string, 12, 2, 9,
         "#inst needs an RFC 3339 date-time with offset"},
        {"[1\n 2\n  x/]", errc::unexpected_char, 8, 3, 3, "invalid symbol x/"},
    };
    for (const auto& c : cases) {
        auto e = test::decode_error(format_id::edn, c.input);
        EXPECT_EQ(e.code, c.code) << c.input << ": " << describe(e);
        EXPECT_EQ(e.offset, c.offset) << c.input << ": " << describe(e);
        EXPECT_EQ(e.line, c.line) << c.input << ": " << describe(e);
        EXPECT_EQ(e.column, c.column) << c.input << ": " << describe(e);
        EXPECT_NE(e.message.find(c.message), std::string::npos) << c.input << ": " << e.message;
        EXPECT_EQ(e.format, format_id::edn);
    }
}

TEST(EdnDecode, ErrorPathsNameTheValue) {
    auto e = test::decode_error(format_id::edn, "{:a [1 {:b 01}]}");
    EXPECT_EQ(e.code, errc::invalid_number);
    EXPECT_EQ(e.path, "/a/1/b");
    // A tag's name is the key of its one-entry map, also in paths.
    e = test::decode_error(format_id::edn, "[#my/tag [1 01]]");
    EXPECT_EQ(e.code, errc::invalid_number);
    EXPECT_EQ(e.path, "/0/#my~1tag/1");
    e = test::decode_error(format_id::edn, "{:a {:b 1 [1] 2}}");
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.offset, 10u);
    EXPECT_EQ(e.path, "/a");
    // An error inside a tagged key names the map (builder::current_path once read past the
    // tape here).
    e = test::decode_error(format_id::edn, "{:a {#cbor/tag1 01 2}}");
    EXPECT_EQ(e.code, errc::invalid_number);
    EXPECT_EQ(e.offset, 17u);
    EXPECT_EQ(e.path, "/a");
}

// ---- limits ----

TEST(EdnDecode, DepthLimit) {
    document d;
    ASSERT_TRUE(decode(format_id::edn, std::string(512, '[') + std::string(512, ']'), d));
    auto e = test::decode_error(format_id::edn, std::string(513, '(') + std::string(513, ')'));
    EXPECT_EQ(e.code, errc::depth_exceeded) << describe(e);
    EXPECT_EQ(e.offset, 512u);
    // Sets, maps and tags count; a lower limit is honoured.
    const decode_options opt = max_depth(3);
    EXPECT_TRUE(decode(format_id::edn, "[#{#t 1}]", d, opt)) << dbg(d);
    e = test::decode_error(format_id::edn, "[#{#t [1]}]", opt);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 6u);
    // Discarded forms are parsed, not built, but nest under the same limit, and so do chains
    // of #_ (no recursion past the limit).
    e = test::decode_error(format_id::edn, "#_ " + std::string(100'000, '[') + " 1");
    EXPECT_EQ(e.code, errc::depth_exceeded);
    e = test::decode_error(format_id::edn, [] {
        std::string s;
        for (int i = 0; i < 100'000; ++i) {
            s += "#_";
        }
        return s;
    }());
    EXPECT_EQ(e.code, errc::depth_exceeded);
    std::string maps;
    for (int i = 0; i < 100'000; ++i) {
        maps += "{:a ";
    }
    e = test::decode_error(format_id::edn, maps);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 2048u);
    // A map as a key is refused before it is built.
    e = test::decode_error(format_id::edn, std::string(1'000'000, '{'));
    EXPECT_EQ(e.code, errc::unrepresentable);
    EXPECT_EQ(e.offset, 1u);
}

TEST(EdnDecode, SizeBudget) {
    const decode_options opt = max_bytes(1000);
    auto e = test::decode_error(format_id::edn, "[\"" + std::string(5000, 'x') + "\" []]", opt);
    EXPECT_EQ(e.code, errc::size_exceeded) << describe(e);
}

TEST(EdnDecode, ReusedDocumentIsCleared) {
    document d;
    ASSERT_TRUE(decode(format_id::edn, "{:a [1 2 3] :b \"x\\ny\"}", d));
    ASSERT_TRUE(decode(format_id::edn, "[true]", d));
    EXPECT_EQ(dbg(d), "[true]");
    EXPECT_FALSE(decode(format_id::edn, "[1", d));
    EXPECT_TRUE(d.empty());
}

// ---- encoder ----

TEST(EdnEncode, ExactOutput) {
    const test::text_case cases[] = {
        {"nil", "nil"},
        {"[true false]", "[true false]"},
        {"[0 -5 9223372036854775807 -9223372036854775808]",
         "[0 -5 9223372036854775807 -9223372036854775808]"},
        // uint64 and bignums with N, so that every reader keeps them exact
        {"[18446744073709551615 123456789012345678901234567890 -99999999999999999999]",
         "[18446744073709551615N 123456789012345678901234567890N -99999999999999999999N]"},
        // floats always with '.' or an exponent, exponents without leading zeros
        {"[1.0 -0.0 1.5 1e300 1e-7 5e-324 123456.789 1e21]",
         "[1.0 -0.0 1.5 1e300 1e-7 5e-324 123456.789 1e21]"},
        {"[##NaN ##Inf ##-Inf]", "[##NaN ##Inf ##-Inf]"},
        {"[1.50M -3M 1e-7M]", "[1.50M -3M 1e-7M]"},
        // map keys that are keyword-safe names are keywords, other strings stay strings
        {"{\"id\" 1 \"a/b\" 2 \"x y\" 3 \"\" 4 \"1a\" 5 \"-x\" 6 \"a/\" 7 \"\xc3\xa9\" 8}",
         "{:id 1 :a/b 2 \"x y\" 3 \"\" 4 \"1a\" 5 \"-x\" 6 \"a/\" 7 \"\xc3\xa9\" 8}"},
        // values are strings even when they look like keywords
        {"[:kw sym \\c]", "[\"kw\" \"sym\" \"c\"]"},
        {"{1 2 nil 3 true 4 1.5 5 7N 6}", "{1 2 nil 3 true 4 1.5 5 7 6}"},
        // escapes: \" \\ \n \r \t, other control characters as \uXXXX
        {"\"q\\\"b\\\\n\\nr\\rt\\t\\u0001\\u001f\\u007f\xc3\xa9\"",
         "\"q\\\"b\\\\n\\nr\\rt\\t\\u0001\\u001f\\u007f\xc3\xa9\""},
        {"(1 #{2} [])", "[1 [2] []]"},
        {"#inst \"1985-04-12T23:20:50.52Z\"", "#inst \"1985-04-12T23:20:50.52Z\""},
        {"#my/tag {:a 1}", "#my/tag {:a 1}"},
        {"{\"#inst\" \"x\"}", "{\"#inst\" \"x\"}"},
        {"{\"#cbor/tag1\" 2}", "{\"#cbor/tag1\" 2}"},
        {"{\"#1\" 2}", "{\"#1\" 2}"},
        {"{\"#a\" 1 \"#b\" 2}", "{\"#a\" 1 \"#b\" 2}"},
        {"[#cbor/tag37 \"x\" #msgpack/tag5 1 #bson/tag7 nil #other/tag0 nil]",
         "[#cbor/tag37 \"x\" #msgpack/tag5 1 #bson/tag7 nil #other/tag0 nil]"},
        {"{}", "{}"},
        {"[]", "[]"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(reencode(c.input), c.want) << c.input;
    }
}

TEST(EdnEncode, Pretty) {
    EXPECT_EQ(reencode("{:a [1 {:b nil}] :c [] :d {}}", true),
              "{\n  :a [\n    1\n    {\n      :b nil\n    }\n  ]\n  :c []\n  :d {}\n}\n");
    EXPECT_EQ(reencode("42", true), "42\n");
}

TEST(EdnEncode, FromOtherFormats) {
    // bytes -> base64url text (DESIGN section 3), timestamps: offset date-times as #inst,
    // local ones as text; BSON ObjectId as Extended JSON; a uint key with N.
    document d = test::must_decode(format_id::cbor,
                                   test::hex("a3 6161 43 000102"
                                             "6162 c0 74 323032362d30312d30315430303a30303a30305a"
                                             "1bffffffffffffffff f5"));
    EXPECT_EQ(test::must_encode(format_id::edn, d),
              "{:a \"AAEC\" :b #inst \"2026-01-01T00:00:00Z\" 18446744073709551615N true}");
    d = test::must_decode(format_id::toml, "d = 1979-05-27\nt = 07:32:00\n");
    EXPECT_EQ(test::must_encode(format_id::edn, d), "{:d \"1979-05-27\" :t \"07:32:00\"}");
    d = test::must_decode(format_id::json, R"({"_id": {"$oid": "5f1d0c6e8b3e4a2b1c0d9e8f"}})");
    document b;
    output_buffer bson;
    ASSERT_TRUE(encode(format_id::bson, d, bson));
    b = test::must_decode(format_id::bson, bson.view());
    EXPECT_EQ(test::must_encode(format_id::edn, b), "{:_id {:$oid \"5f1d0c6e8b3e4a2b1c0d9e8f\"}}");
}

TEST(EdnEncode, RoundTripsEveryKindThroughEdn) {
    const char* inputs[] = {
        "[nil true 1 -1 18446744073709551615N 1.5 ##NaN \"s\" 1234567890123456789012N "
        "#inst \"2026-01-01T00:00:00+01:00\" #cbor/tag1 2 {:k [1 2]} {1 2} 1.5M #x/y z]",
    };
    for (const char* in : inputs) {
        document a = test::must_decode(format_id::edn, in);
        std::string text = test::must_encode(format_id::edn, a);
        document b = test::must_decode(format_id::edn, text);
        EXPECT_TRUE(equal(a, b)) << dbg(a) << " vs " << dbg(b);
        encode_options opt;
        opt.pretty = true;
        document c = test::must_decode(format_id::edn, test::must_encode(format_id::edn, a, opt));
        EXPECT_TRUE(equal(a, c)) << dbg(a) << " vs " << dbg(c);
    }
}

TEST(EdnConformance, FixturesRoundTrip) {
    for (const char* name : {"records.json", "bench.json"}) {
        SCOPED_TRACE(name);
        std::string json = test::read_file(test::fixtures_dir() / name);
        ASSERT_FALSE(json.empty());
        test::expect_round_trips_compact_and_pretty(format_id::edn,
                                                    test::must_decode(format_id::json, json));
    }
}

}  // namespace
}  // namespace polycodec
