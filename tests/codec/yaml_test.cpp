// Tests of the yaml codec: spec examples, error positions, exact encodings, yaml-test-suite.
#include <chrono>
#include <cmath>
#include <map>

#include "support/support.hpp"
#include "support/yaml_suite.hpp"

namespace polycodec {
namespace {

using test::any;
using test::dbg;
using test::decode_error;
using test::decoded_as;
using test::expect_decode_error;
using test::max_depth;
using test::must_decode;
using test::must_encode;

document from_json(std::string_view json) { return must_decode(format_id::json, json); }

// ---- decoding ----

const test::text_case decode_cases[] = {
    // YAML 1.2.2 section 10.3.2, core schema tag resolution.
    {"[null, Null, NULL, ~, ]", "[null,null,null,null]"},
    {"a:\nb: ~", R"({"a":null,"b":null})"},
    {"[true, True, TRUE, false, False, FALSE, yes, no, on, off, y, n]",
     R"([true,true,true,false,false,false,"yes","no","on","off","y","n"])"},
    {"[0, 12, -7, +3, 0o17, 0x1F, 0xff, 007, 1_000, 0b11, 1:20]",
     R"([0,12,-7,3,15,31,255,7,"1_000","0b11","1:20"])"},
    {"[1.5, -0.5, .5, 1., 1e3, -1E-2, +12e03, .inf, -.Inf, +.INF]",
     R"([1.5,-0.5,0.5,1.0,1000.0,-0.01,12000.0,Infinity,-Infinity,Infinity])"},
    {"[.nan, .NaN, .NAN, nan, .nAn]", R"([NaN,NaN,NaN,"nan",".nAn"])"},
    {"[9223372036854775807, 9223372036854775808, -9223372036854775808, "
     "-9223372036854775809, 0xFFFFFFFFFFFFFFFFFF]",
     "[9223372036854775807,9223372036854775808u,-9223372036854775808,-9223372036854775809n,"
     "4722366482869645213695n]"},
    // Quoted scalars are always strings; plain ones that match nothing are strings too.
    {"['1', \"true\", 'null', \"\", plain text, 2001-12-14]",
     R"(["1","true","null","","plain text","2001-12-14"])"},
    // Explicit tags.
    {"[!!str 1, !!int '2', !!float 3, !!bool true, !!null '', ! 12]",
     R"(["1",2,3.0,true,null,"12"])"},
    {"a: !!binary aGVsbG8=\nb: !!binary |\n  aGVs\n  bG8=\n",
     R"({"a":b64"aGVsbG8=","b":b64"aGVsbG8="})"},
    {"- !!timestamp 2001-12-14t21:59:43.10-05:00\n- !!timestamp 2001-12-14 21:59:43.10 -5\n"
     "- !!timestamp 2001-12-15T02:59:43.1Z\n- !!timestamp 2002-12-14\n"
     "- !!timestamp 1979-05-27T07:32:00\n- !!timestamp 07:32:00.5",
     R"([t"2001-12-14T21:59:43.10-05:00",t"2001-12-14T21:59:43.10-05:00",)"
     R"(t"2001-12-15T02:59:43.1Z",t"2002-12-14",t"1979-05-27T07:32:00",t"07:32:00.5"])"},
    // Unknown tags are dropped, the value resolved as if untagged; our own tags keep theirs.
    {"[!foo 12, !foo 'x', !<tag:example.com,2000:app/foo> bar, !cbor/32 'http://a']",
     R"([12,"x","bar",tag(32, "http://a")])"},
    // Anchors and aliases.
    {"a: &x {k: [1, 2]}\nb: *x\nc: &s str\nd: *s",
     R"({"a":{"k":[1,2]},"b":{"k":[1,2]},"c":"str","d":"str"})"},
    {"- &a 1\n- &a 2\n- *a", "[1,2,2]"},
    // Non-string keys keep their kind; duplicates are kept.
    {"1: a\ntrue: b\nnull: c\n1.5: d\n1: e", R"({1:"a",true:"b",null:"c",1.5:"d",1:"e"})"},
    {"", "null"},
    {"# only a comment\n", "null"},
    {"--- 42\n...\n", "42"},
    {"\xEF\xBB\xBFkey: \"\xC3\xA9\\u00e9\\x41\\t\"",
     "{\"key\":\"\xC3\xA9\xC3\xA9"
     "A\\u0009\"}"},
    {"literal: |\n  a\n  b\nfolded: >\n  a\n  b\n",
     R"({"literal":"a\u000ab\u000a","folded":"a b\u000a"})"},
    {"<<: {a: 1}", R"({"<<":{"a":1}})"},
    // Complex keys: any node may be a key (explicit "? " or a flow collection on one line).
    {"[1, 2]: x\n", R"({[1,2]:"x"})"},
    {"? {a: 1}\n: x\n", R"({{"a":1}:"x"})"},
    {"? - a\n  - b\n: - c\n", R"({["a","b"]:["c"]})"},
    {"{[a]: 1, ? b, : c}", R"({["a"]:1,"b":null,null:"c"})"},
    {"[a: 1, ? b : 2, : 3]", R"([{"a":1},{"b":2},{null:3}])"},
    // Block scalars: chomping, indentation indicators, folding of more-indented lines.
    {"- |-\n  a\n\n- |+\n  a\n\n- |2\n   a\n- >\n  a\n  b\n\n  c\n   d\n  e\n",
     R"(["a","a\u000a\u000a"," a\u000a","a b\u000ac\u000a d\u000ae\u000a"])"},
    // Folding in quoted and plain multi-line scalars; escapes; tabs as separation.
    {"- \"a\n  b\n\n  c\\\n  d\"\n- 'x\n\n  ''y'''\n- p\n  q\n\n  r\n-\tt\n",
     R"(["a b\u000acd","x\u000a'y'","p q\u000ar","t"])"},
    // Directives, tag handles, verbatim tags, %-escapes.
    {"%YAML 1.2\n%TAG !e! tag:yaml.org,2002:\n--- [!e!int '7', !<tag:yaml.org,2002:str> 8, "
     "!e!s%74r 9]",
     R"([7,"8","9"])"},
    // Anchor names may hold ':' and any non-space character (YAML 1.2).
    {"- &a: x\n- *a:\n- &\xC3\xA9 y\n- *\xC3\xA9\n", R"(["x","x","y","y"])"},
};

TEST(YamlDecode, SpecExamples) { test::expect_decodes(format_id::yaml, decode_cases); }

TEST(YamlDecode, TimestampKinds) {
    test::expect_four_timestamp_kinds(
        format_id::yaml,
        "[!!timestamp 2001-12-14T21:59:43Z, !!timestamp 2001-12-14T21:59:43,"
        " !!timestamp 2001-12-14, !!timestamp '21:59:43']");
}

TEST(YamlDecode, MultiDocumentStreams) {
    const char* stream = "a: 1\n---\nb: 2\n";
    expect_decode_error(format_id::yaml, stream, {errc::trailing_content, 5, 2, 1});
    error e;
    decode_options opt;
    opt.multi = true;
    EXPECT_EQ(decoded_as(format_id::yaml, stream, opt), R"([{"a":1},{"b":2}])");
    EXPECT_EQ(decoded_as(format_id::yaml, "", opt), "[]");
    EXPECT_EQ(decoded_as(format_id::yaml, "--- 1\n--- 2\n", opt), "[1,2]");
    // Anchors do not cross documents.
    expect_decode_error(format_id::yaml, "--- &a 1\n--- *a\n", {errc::unexpected_char}, opt);
}

struct error_case {
    const char* yaml;
    errc code;
    std::uint64_t offset;
    std::uint32_t line, column;
};

const error_case error_cases[] = {
    {"a: [1, 2\nb: 3\n", errc::unexpected_char, 9, 2, 1},
    {"key: \"unterminated\n", errc::unexpected_eof, 19, 2, 1},
    {"a: 1\n b: 2\n", errc::unexpected_char, 7, 2, 3},
    {"- a\nb: c\n", errc::unexpected_char, 4, 2, 1},
    {"a: *nope\n", errc::unexpected_char, 3, 1, 4},
    {"a: &x [1, *x]\n", errc::unexpected_char, 10, 1, 11},
    // Columns count code points: the error after "\xC3\xA9" is at byte 9, column 2.
    {"\xC3\xA9: [x\n \xC3\xA9: y", errc::unexpected_char, 10, 2, 3},
    {"a: \"\xff\"\n", errc::invalid_utf8, 4, 1, 5},
    {"a: \"\x01\"\n", errc::unexpected_char, 4, 1, 5},
    {"a: !!int x\n", errc::invalid_string, 3, 1, 4},
    {"a: !!binary '@@'\n", errc::invalid_string, 3, 1, 4},
    {"a: !!timestamp 2001-13\n", errc::invalid_string, 3, 1, 4},
};

TEST(YamlDecode, ErrorsCarryPositions) {
    for (const auto& c : error_cases) {
        expect_decode_error(format_id::yaml, c.yaml,
                            {.code = c.code,
                             .offset = c.offset,
                             .line = c.line,
                             .column = c.column,
                             .format = format_id::yaml});
    }
}

// Messages say what was expected and what was seen, at the offending byte.
struct message_case {
    const char* yaml;
    std::uint64_t offset;
    const char* message;  // a part of the message
};

const message_case message_cases[] = {
    {"a: 1\nb\n", 5, "expected a mapping key ('key: value'), saw 'b'"},
    {"? a\n: 1\n\"b\"\n", 8, "expected a mapping key ('key: value'), saw '\"'"},
    {"a:\n\t- b\n", 4, "expected spaces as indentation, saw a tab"},
    {"- [a]\n  - b\n", 8, "expected a sequence entry ('- ') at the sequence's indentation"},
    {"- a\nb: c\n", 4, "expected end of document ('---', '...' or end of input), saw 'b'"},
    {"[a, b", 5, "expected ',' or ']' in a flow sequence, saw end of input"},
    {"- !a/[ foo ]\n", 5, "expected white space after a node property, saw '['"},
    {"&x{a: 1}\n", 2, "expected white space after a node property, saw '{'"},
    {"[a,", 3, "expected ']' closing the flow sequence, saw end of input"},
    {"{a: 1 b: 2}", 7, "expected ',' or '}' in a flow mapping, saw ':'"},
    {"[a, , b]", 4, "expected a value, saw ','"},
    {"\"a\\qb\"", 3, "expected an escape character after '\\', saw 'q'"},
    {"\"\\ud800\"", 1, "surrogate"},
    {"'abc", 4, "expected ''' closing the string, saw end of input"},
    {"a: b: c\n", 4, "expected end of line, saw ':'"},
    {"key: - a\n", 5, "expected a value, saw '-'"},
    {"[a]#c\n", 3, "expected white space before a comment, saw '#'"},
    {"a: |0\n  x\n", 4, "expected an indentation indicator 1-9"},
    {"a: |x\n", 4, "expected a chomping or indentation indicator"},
    {"- |\n   \n  x\n", 8, "leading empty line of a block scalar"},
    {"%YAML 1.2\n%YAML 1.2\n---\n", 10, "one %YAML directive per document"},
    {"%YAML 2.0\n---\n", 6, "unsupported major version"},
    {"%TAG !x! y\n", 11, "expected '---' after the directives"},
    {"a: 1\n%YAML 1.2\n---\n", 5, "expected a mapping key"},
    {"!x!y a\n", 0, "tag handle declared by %TAG, saw !x!"},
    {"&a &b x\n", 3, "one anchor per node"},
    {"&a *b\n", 3, "an alias has no properties"},
    {"- \"a\n---\n\"\n", 5, "saw a document marker"},
    {"k: \"a\nb\"\n", 6, "indented more than its parent"},
    {"k: [a,\nb]\n", 7, "flow collection's line indented more than its parent"},
    {"--- a\n... x\n", 10, "expected end of line, saw 'x'"},
    {"a\x01", 1, "expected a printable character, saw byte 0x01"},
    {"a: \xC2\x80", 3, "C1 control"},
};

TEST(YamlDecode, ErrorMessagesSayExpectedAndSaw) {
    for (const auto& c : message_cases) {
        error e = decode_error(format_id::yaml, c.yaml);
        EXPECT_EQ(e.offset, c.offset) << c.yaml << ": " << describe(e);
        EXPECT_NE(e.message.find(c.message), std::string::npos) << c.yaml << ": " << describe(e);
        EXPECT_NE(e.line, 0u) << c.yaml;
    }
}

TEST(YamlDecode, DepthLimit) {
    const decode_options opt = max_depth(64);
    expect_decode_error(format_id::yaml, std::string(100, '[') + std::string(100, ']'),
                        {errc::depth_exceeded, 64}, opt);
    error e;
    // Whatever max_depth a caller sets, the parser's recursion stays bounded (600 levels).
    const decode_options deep = max_depth(1000000);
    for (std::string doc : {std::string(200000, '['), std::string(200000, '{')}) {
        expect_decode_error(format_id::yaml, doc, {errc::depth_exceeded, 600}, deep);
    }
    std::string dashes;
    for (int i = 0; i < 100000; ++i) {
        dashes += "- ";
    }
    expect_decode_error(format_id::yaml, dashes + "x\n", {errc::depth_exceeded}, deep);
    // Block nesting at the default limit: depth_exceeded at the 513th level.
    std::string keys;
    for (int i = 0; i < 600; ++i) {
        keys += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
    }
    expect_decode_error(format_id::yaml, keys + std::string(600, ' ') + "v\n",
                        {errc::depth_exceeded, any, 513});
}

// A billion laughs: nine levels of nine aliases would expand to 9^9 strings.
TEST(YamlDecode, BillionLaughsFailsFast) {
    std::string doc = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        std::string prev(1, static_cast<char>(c - 1));
        doc += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 9; ++i) {
            doc += (i ? ", *" : "*") + prev;
        }
        doc += "]\n";
    }
    auto t0 = std::chrono::steady_clock::now();
    document d;
    auto r = decode(format_id::yaml, doc, d);
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::size_exceeded);
    EXPECT_EQ(r.error().line, 5u);  // the first alias past the budget
    EXPECT_LT(ms, 2000);
    // The budget bounds memory: 10x the input + 1 MiB of copies at most.
    EXPECT_LT(d.content_size(), std::size_t{4} << 20);
    // A few aliases of a small node are fine.
    EXPECT_EQ(decoded_as(format_id::yaml, "a: &a [1]\nb: [*a, *a, *a]"),
              R"({"a":[1],"b":[[1],[1],[1]]})");
}

// ---- encoding ----

const test::text_case encode_cases[] = {
    {"1", "1\n"},
    {"\"x\"", "x\n"},
    {"[]", "[]\n"},
    {"{}", "{}\n"},
    {R"({"a":1,"b":[1,2],"c":{"d":"e"},"f":[],"g":{}})",
     "a: 1\nb:\n  - 1\n  - 2\nc:\n  d: e\nf: []\ng: {}\n"},
    {R"([{"a":1,"b":2},[1,[2]],{}])", "- a: 1\n  b: 2\n- - 1\n  - - 2\n- {}\n"},
    {R"({"n":null,"t":true,"f":false,"i":-5,"x":1.5,"y":2.0,"z":1e300,"w":5e-324})",
     "'n': null\nt: true\nf: false\ni: -5\nx: 1.5\n'y': 2.0\nz: 1.0e+300\nw: 5.0e-324\n"},
    {R"({"big":123456789012345678901234567890,"u":18446744073709551615})",
     "big: 123456789012345678901234567890\nu: 18446744073709551615\n"},
    // Strings a YAML 1.1 or 1.2 reader would take as another type are quoted.
    {R"(["true","False","yes","NO","on","Off","y","N","null","~","","1","-1.5","0x1F","0o17",)"
     R"("1_000",".inf","-.Inf",".NaN","1e3","1:20","2001-12-14","2001-12-14T21:59:43Z","<<","="])",
     "- 'true'\n- 'False'\n- 'yes'\n- 'NO'\n- 'on'\n- 'Off'\n- 'y'\n- 'N'\n- 'null'\n- '~'\n"
     "- ''\n- '1'\n- '-1.5'\n- '0x1F'\n- '0o17'\n- '1_000'\n- '.inf'\n- '-.Inf'\n- '.NaN'\n"
     "- '1e3'\n- '1:20'\n- '2001-12-14'\n- '2001-12-14T21:59:43Z'\n- '<<'\n- '='\n"},
    // Indicators, ": ", " #", leading and trailing spaces; plain where safe.
    {R"(["- a","?x",":x","[a]","{a}","#c","&a","*a","!t","|l",">f","'q","\"d","%p","@a","`b",)"
     R"(",c","a: b","a #b","a:"," lead","trail ","it's","a:b","a#b","plain text","---","..."])",
     "- '- a'\n- '?x'\n- ':x'\n- '[a]'\n- '{a}'\n- '#c'\n- '&a'\n- '*a'\n- '!t'\n- '|l'\n"
     "- '>f'\n- '''q'\n- '\"d'\n- '%p'\n- '@a'\n- '`b'\n- ',c'\n- 'a: b'\n- 'a #b'\n- 'a:'\n"
     "- ' lead'\n- 'trail '\n- it's\n- a:b\n- a#b\n- plain text\n- '---'\n- '...'\n"},
    // Control characters and line breaks: double quotes with escapes.
    {R"(["a\nb","tab\there","nul\u0000","esc\u001b","del\u007f","nel\u0085","ls\u2028","q\"\\"])",
     "- \"a\\nb\"\n- \"tab\\there\"\n- \"nul\\0\"\n- \"esc\\e\"\n- \"del\\x7F\"\n- \"nel\\u0085\"\n"
     "- \"ls\\L\"\n- q\"\\\n"},
    {R"({"1":"int-like key","true":1,"":2,"a b":3})",
     "'1': int-like key\n'true': 1\n'': 2\na b: 3\n"},
};

TEST(YamlEncode, ExactOutput) {
    for (const auto& c : encode_cases) {
        document d = from_json(c.input);
        std::string yaml = must_encode(format_id::yaml, d);
        EXPECT_EQ(yaml, c.want) << c.input;
        // And it reads back to the same value.
        document back = must_decode(format_id::yaml, yaml);
        EXPECT_TRUE(equal(d, back)) << c.input << " -> " << dbg(back);
    }
}

TEST(YamlEncode, RicherKinds) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("nan");
    b.add_double(std::nan(""));
    b.add_string("inf");
    b.add_double(-HUGE_VAL);
    b.add_string("bin");
    b.add_bytes("hello");
    b.add_string("empty");
    b.add_bytes("");
    b.add_string("ts");
    b.add_timestamp("2001-12-14T21:59:43.1Z", timestamp_kind::offset_date_time);
    b.add_string("lt");
    b.add_timestamp("07:32:00", timestamp_kind::local_time);
    b.add_int(7);  // non-string keys are written natively
    b.add_bool(true);
    b.add_bool(false);
    b.add_null();
    b.add_null();
    b.add_string("null key");
    b.add_string("tagged");
    b.begin_tagged(32);
    b.add_string("http://a");
    b.add_string("tagged map");
    b.begin_tagged(5, tag_space::msgpack_ext);
    b.begin_map();
    b.add_string("k");
    b.add_int(1);
    b.end_map();
    b.end_map();
    std::string yaml = must_encode(format_id::yaml, d);
    EXPECT_EQ(yaml,
              "nan: .nan\ninf: -.inf\nbin: !!binary aGVsbG8=\nempty: !!binary \"\"\n"
              "ts: !!timestamp 2001-12-14T21:59:43.1Z\nlt: !!timestamp 07:32:00\n7: true\n"
              "false: null\nnull: null key\ntagged: !cbor/32 http://a\n"
              "tagged map: !msgpack/5\n  k: 1\n");
    document back = must_decode(format_id::yaml, yaml);
    EXPECT_TRUE(equal(d, back)) << dbg(back);
}

TEST(YamlEncode, ComplexKeysTakeTheExplicitForm) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("ok");
    b.begin_map();
    b.begin_array();
    b.add_int(1);
    b.end_array();
    b.add_int(2);
    b.end_map();
    b.end_map();
    // YAML holds any node as a key: "? key" then ": value", nothing lossy.
    std::string yaml = must_encode(format_id::yaml, d);
    EXPECT_EQ(yaml, "ok:\n  ? - 1\n  : 2\n");
    EXPECT_TRUE(equal(d, must_decode(format_id::yaml, yaml))) << yaml;
    document m = must_decode(format_id::yaml, "? {a: [1, {b: c}], d: {}}\n: [x]\n? []\n: y\n");
    yaml = must_encode(format_id::yaml, m);
    EXPECT_EQ(yaml, "? a:\n    - 1\n    - b: c\n  d: {}\n:\n  - x\n? []\n: 'y'\n");
    EXPECT_TRUE(equal(m, must_decode(format_id::yaml, yaml))) << yaml;
}

TEST(YamlEncode, LongKeysUseTheExplicitForm) {
    std::string key(1100, 'k');
    document d = from_json("{\"" + key + "\":1}");
    std::string yaml = must_encode(format_id::yaml, d);
    EXPECT_EQ(yaml, "? " + key + "\n: 1\n");
    EXPECT_TRUE(equal(d, must_decode(format_id::yaml, yaml)));
}

TEST(YamlEncode, CanonicalSortsKeys) {
    encode_options opt;
    opt.canonical = true;
    EXPECT_EQ(
        must_encode(format_id::yaml, from_json(R"({"b":1,"a":{"z":1,"c":[{"y":1,"x":2}]}})"), opt),
        "a:\n  c:\n    - x: 2\n      'y': 1\n  z: 1\nb: 1\n");
    // pretty changes nothing: block style is already indented.
    encode_options pretty;
    pretty.pretty = true;
    EXPECT_EQ(must_encode(format_id::yaml, from_json(R"({"b":[1]})"), pretty), "b:\n  - 1\n");
}

TEST(YamlEncode, RecordsRoundTrip) {
    document d =
        must_decode(format_id::json, test::read_file(test::fixtures_dir() / "records.json"));
    document back = must_decode(format_id::yaml, must_encode(format_id::yaml, d));
    EXPECT_TRUE(equal(d, back));
}

// ---- yaml-test-suite (data-2022-01-17) ----

// Splits a stream of concatenated JSON texts (in.json of multi-document cases).
std::vector<std::string> split_json_texts(std::string_view s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    auto ws = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) {
            ++i;
        }
    };
    for (ws(); i < s.size(); ws()) {
        std::size_t start = i;
        if (s[i] == '{' || s[i] == '[' || s[i] == '"') {
            int depth = 0;
            bool in_str = false;
            do {
                char c = s[i++];
                if (in_str) {
                    if (c == '\\') {
                        ++i;
                    } else if (c == '"') {
                        in_str = false;
                    }
                } else if (c == '"') {
                    in_str = true;
                } else if (c == '[' || c == '{') {
                    ++depth;
                } else if (c == ']' || c == '}') {
                    --depth;
                }
            } while (i < s.size() && (depth > 0 || in_str));
        } else {
            while (i < s.size() && s[i] != ' ' && s[i] != '\n' && s[i] != '\r' && s[i] != '\t') {
                ++i;
            }
        }
        out.emplace_back(s.substr(start, i - start));
    }
    return out;
}

// True when `text` is the padded base64 of `raw`.
bool base64_equal(std::string_view raw, std::string_view text) {
    static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
    for (; i + 3 <= raw.size(); i += 3) {
        unsigned v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
        out += abc[v >> 18];
        out += abc[(v >> 12) & 63];
        out += abc[(v >> 6) & 63];
        out += abc[v & 63];
    }
    if (i < raw.size()) {
        unsigned v = p[i] << 16;
        if (i + 1 < raw.size()) {
            v |= p[i + 1] << 8;
        }
        out += abc[v >> 18];
        out += abc[(v >> 12) & 63];
        out += i + 1 < raw.size() ? abc[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out == text;
}

// Values compared as the suite means them: numbers by value (1 == 1.0), maps by key.
bool same(value a, value b) {
    auto num = [](value v, double& d) {
        switch (v.kind()) {
            case kind::int64:
                d = static_cast<double>(v.get_int());
                return true;
            case kind::uint64:
                d = static_cast<double>(v.get_uint());
                return true;
            case kind::float64:
                d = v.get_double();
                return true;
            default:
                return false;
        }
    };
    double x, y;
    if (num(a, x) && num(b, y)) {
        return x == y || (std::isnan(x) && std::isnan(y));
    }
    if (a.kind() == kind::bytes && b.kind() == kind::string) {
        // in.json gives !!binary as its base64 text (with line breaks).
        std::string text;
        for (char c : b.get_string()) {
            if (c != '\n' && c != ' ') {
                text += c;
            }
        }
        return base64_equal(a.get_string(), text);
    }
    if (a.kind() != b.kind()) {
        return false;
    }
    if (a.kind() == kind::array) {
        if (a.size() != b.size()) {
            return false;
        }
        auto ib = b.items().begin();
        for (value e : a.items()) {
            if (!same(e, *ib++)) {
                return false;
            }
        }
        return true;
    }
    if (a.kind() == kind::map) {
        if (a.size() != b.size()) {
            return false;
        }
        for (auto [k, v] : a.entries()) {
            if (k.kind() != kind::string) {
                return false;
            }
            value w = b.find(k.get_string());
            if (w.doc() == nullptr || !same(v, w)) {
                return false;
            }
        }
        return true;
    }
    return equal(a, b);
}

// Cases our parser decides differently from the suite, each explained in
// docs/formats/yaml.md. Any other failure fails the test, and so does a listed case that
// passes.
const std::map<std::string, std::string> known_yaml_failures = {
#include "yaml_known_failures.inc"
};

TEST(YamlConformance, YamlTestSuite) {
    POLYCODEC_REQUIRE_CORPUS("yaml/data", dir);
    int cases = 0, passed = 0, errors = 0, errors_ok = 0, values = 0, values_ok = 0, known = 0;
    int reencoded = 0;
    std::vector<std::string> unexpected;
    const std::vector<std::filesystem::path> folders = test::yaml_suite_cases(dir);
    for (const auto& f : folders) {
        std::string name = std::filesystem::relative(f, dir).generic_string();
        ++cases;
        std::string input = test::read_file(f / "in.yaml");
        decode_options opt;
        opt.multi = true;
        document d;
        auto r = decode(format_id::yaml, input, d, opt);
        std::string failure;
        if (std::filesystem::exists(f / "error")) {
            ++errors;
            if (r) {
                failure = "error case accepted: " + dbg(d);
            } else {
                ++errors_ok;
            }
        } else if (!r) {
            failure = "valid case rejected: " + describe(r.error());
        } else if (std::filesystem::exists(f / "in.json")) {
            ++values;
            auto texts = split_json_texts(test::read_file(f / "in.json"));
            bool ok = d.root().size() == texts.size();
            std::size_t i = 0;
            for (value doc : d.root().items()) {
                if (!ok) {
                    break;
                }
                document want;
                if (auto jr = decode(format_id::json, texts[i++], want); !jr) {
                    ok = false;
                    break;
                }
                ok = same(doc, want.root());
            }
            if (ok) {
                ++values_ok;
            } else {
                std::string want;
                for (const auto& t : texts) {
                    want += t + " ";
                }
                failure = "value differs: " + dbg(d) + " vs " + want;
            }
        }
        if (failure.empty() && r) {
            // Our writer's output of every decoded stream reads back equal.
            document back;
            failure = test::reencode_into(format_id::yaml, d, back);
            if (failure.empty() && !equal(d, back)) {
                failure = "our output reads back as " + dbg(back) + "\n" +
                          test::must_encode(format_id::yaml, d);
            } else if (failure.empty()) {
                ++reencoded;
            }
        }
        bool listed = known_yaml_failures.count(name) != 0;
        if (failure.empty()) {
            ++passed;
            if (listed) {
                unexpected.push_back(name + ": passes but is listed in yaml_known_failures.inc");
            }
        } else if (listed) {
            ++known;
        } else {
            unexpected.push_back(name + ": " + failure);
        }
    }
    std::printf(
        "yaml-test-suite: %d/%d cases pass (%d error cases rejected of %d, %d values "
        "equal in.json of %d, %d decoded streams re-encoded and read back equal); "
        "%d known failures\n",
        passed, cases, errors_ok, errors, values_ok, values, reencoded, known);
    // Any unlisted failure, and any listed case that passes, fails the test.
    for (const auto& u : unexpected) {
        ADD_FAILURE() << u;
    }
    EXPECT_EQ(passed + known, cases);
    EXPECT_EQ(static_cast<std::size_t>(known), known_yaml_failures.size())
        << "a listed case is missing from the suite";
    EXPECT_GE(passed, 398);
}

}  // namespace
}  // namespace polycodec

namespace polycodec {
namespace {

// 311 digits and a fraction overflow to infinity as "1e400" does (read as 0.0 before; found by
// fuzz_diff_yaml, libfyaml reads it as a float too big for a double).
TEST(YamlDecode, ManyDigitsWithoutAnExponentOverflow) {
    const std::string big = "1" + std::string(310, '0') + ".5";
    document d = test::must_decode(format_id::yaml, "[" + big + ", -" + big + ", 1e400]\n");
    std::vector<value> v(d.root().items().begin(), d.root().items().end());
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[0].get_double(), HUGE_VAL);
    EXPECT_EQ(v[1].get_double(), -HUGE_VAL);
    EXPECT_EQ(v[2].get_double(), HUGE_VAL);
}

}  // namespace
}  // namespace polycodec
