// Tests of the toml codec: spec examples, error positions, exact encodings, toml-test.
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "support/support.hpp"

namespace polycodec {
namespace {

using test::dbg;
using test::decode_error;
using test::encode_error_of;
using test::expect_decode_error;
using test::expect_encodes;
using test::expect_error;
using test::lossy_encode;
using test::max_bytes;
using test::max_depth;
using test::must_decode;
using test::must_encode;
using test::text_case;

document from_json(std::string_view json) { return must_decode(format_id::json, json); }

std::string toml_of(std::string_view json, const encode_options& opt = {}) {
    return must_encode(format_id::toml, from_json(json), opt);
}

// ---- decoding ----

// TOML 1.0.0: "Keys are on the left of the equals sign and values are on the right."
const text_case decode_cases[] = {
    {"", "{}"},
    {"a = 1\nb = -2\nc = 0x1F\nd = 0o17\ne = 0b101\nf = 1_000",
     R"({"a":1,"b":-2,"c":31,"d":15,"e":5,"f":1000})"},
    {"a = 1.5\nb = -0.0\nc = inf\nd = -inf\ne = nan\nf = 6.626e-34\ng = 1e6",
     R"({"a":1.5,"b":-0.0,"c":Infinity,"d":-Infinity,"e":NaN,"f":6.626e-34,"g":1000000.0})"},
    {"a = true\nb = false", R"({"a":true,"b":false})"},
    {R"(a = "tab\there \u00e9 \U0001F600")",
     "{\"a\":\"tab\\u0009here \xC3\xA9 \xF0\x9F\x98\x80\"}"},
    {"a = 'C:\\path'\nb = '''\nline1\nline2'''", R"({"a":"C:\\path","b":"line1\u000aline2"})"},
    // "Offset Date-Time", "Local Date-Time", "Local Date", "Local Time".
    {"odt1 = 1979-05-27T07:32:00Z\nodt2 = 1979-05-27T00:32:00-07:00\n"
     "odt3 = 1979-05-27T00:32:00.999999-07:00\nodt4 = 1979-05-27 07:32:00Z",
     R"({"odt1":t"1979-05-27T07:32:00Z","odt2":t"1979-05-27T00:32:00-07:00",)"
     R"("odt3":t"1979-05-27T00:32:00.999999-07:00","odt4":t"1979-05-27T07:32:00Z"})"},
    {"ldt = 1979-05-27T07:32:00\nld = 1979-05-27\nlt = 00:32:00.500",
     R"({"ldt":t"1979-05-27T07:32:00","ld":t"1979-05-27","lt":t"00:32:00.5"})"},
    // Keys keep the order of the source (toml++ itself sorts them).
    {"zeta = 1\nalpha = 2\n[m]\ny = 1\nb = 2", R"({"zeta":1,"alpha":2,"m":{"y":1,"b":2}})"},
    {"[t.y]\nq = 1\n[t]\np = 2", R"({"t":{"y":{"q":1},"p":2}})"},
    {"a.b.c = 1\na.d = 2", R"({"a":{"b":{"c":1},"d":2}})"},
    // A table only named by a header ([a.b.c] names a.b) may be filled by dotted keys.
    {"[a.b.c]\n[a]\nb.d = 1", R"({"a":{"b":{"c":{},"d":1}}})"},
    {"[[p]]\nn = 1\n[[p]]\nn = 2\n[p.q]\nr = 3", R"({"p":[{"n":1},{"n":2,"q":{"r":3}}]})"},
    {"x = [1, \"a\", {b = 2}, [3]]", R"({"x":[1,"a",{"b":2},[3]]})"},
    // A line-ending backslash trims spaces, tabs and newlines only: U+FEFF stays (tomllib
    // agrees; toml++ trims it, docs/formats/toml.md "Oracle").
    {"bee = \"\"\"\nhee \\\n\xEF\xBB\xBF\na\"\"\"", "{\"bee\":\"hee \xEF\xBB\xBF\\u000aa\"}"},
    {"\"quoted key\" = 1\n'lit' = 2\n\"\" = 3", R"({"quoted key":1,"lit":2,"":3})"},
};

TEST(TomlDecode, SpecExamples) { test::expect_decodes(format_id::toml, decode_cases); }

TEST(TomlDecode, TimestampKinds) {
    test::expect_four_timestamp_kinds(format_id::toml,
                                      "a = 1979-05-27T07:32:00Z\nb = 1979-05-27T07:32:00\n"
                                      "c = 1979-05-27\nd = 07:32:00");
}

struct error_case {
    const char* toml;
    errc code;
    std::uint64_t offset;
    std::uint32_t line, column;
    const char* path;
    const char* message;  // the whole message
};

// Positions checked by hand: the byte offset of the offending byte, its line and column
// (code points), the JSON Pointer of the value or table concerned.
const error_case error_cases[] = {
    // "Unspecified values are invalid."
    {"a = ", errc::unexpected_eof, 4, 1, 5, "/a", "expected a value, saw end of input"},
    {"a = 1\nb = [1, 2\n", errc::unexpected_eof, 16, 3, 1, "/b",
     "expected ',' or ']' in an array, saw end of input"},
    // "Defining a key multiple times is invalid."
    {"a = 1\na = 2\n", errc::duplicate_key, 6, 2, 1, "/a", "key \"a\" defined twice"},
    {"[t]\nx = 1\n[t]\n", errc::duplicate_key, 11, 3, 2, "/t", "[t] redefines a table"},
    {"[t]\nx.y = 1\n[t.x]\n", errc::duplicate_key, 15, 3, 4, "/t/x",
     "[t.x] redefines a table defined by dotted keys"},
    {"[a.b]\n[a]\nb.c = 1\n", errc::duplicate_key, 10, 3, 1, "/a/b",
     "dotted key extends a table defined before"},
    {"a = {b = 1}\n[a.c]\n", errc::duplicate_key, 13, 2, 2, "/a",
     "table header goes through an inline table defined before"},
    {"a = [1]\n[[a]]\n", errc::duplicate_key, 10, 2, 3, "/a", "[[a]] redefines an array"},
    {"[[a]]\n[a]\n", errc::duplicate_key, 7, 2, 2, "/a", "[a] redefines an array of tables"},
    {"a = {x = 1, x = 2}", errc::duplicate_key, 12, 1, 13, "/a/x", "key \"x\" defined twice"},
    // Strings.
    {"a = \"bad \\q escape\"\n", errc::invalid_string, 10, 1, 11, "/a",
     "expected an escape (b t n f r \" \\ u U), saw 'q'"},
    {"a = \"\\uD800\"", errc::invalid_string, 5, 1, 6, "/a",
     "escape is not a Unicode scalar value"},
    {"a = \"\\u12x4\"", errc::invalid_string, 9, 1, 10, "/a",
     "expected 4 hex digits after \\u, saw 'x'"},
    {"a = \"one\ntwo\"", errc::invalid_string, 8, 1, 9, "/a",
     "expected '\"' closing the string, saw a newline"},
    {"a = 'x\x01'", errc::invalid_string, 6, 1, 7, "/a",
     "control character byte 0x01 in a string"},
    {"a = \"\"\"abc", errc::unexpected_eof, 10, 1, 11, "/a",
     "expected '\"\"\"' closing the string opened at byte 4, saw end of input"},
    {"a = \"\"\"x\"\"\"\"\"\"", errc::invalid_string, 13, 1, 14, "/a",
     "expected the end of the string, saw a sixth quote"},
    // Numbers.
    {"a = 01\n", errc::invalid_number, 4, 1, 5, "/a",
     "invalid number: leading zeros are not allowed"},
    {"a = 1__0", errc::invalid_number, 5, 1, 6, "/a",
     "invalid number: '_' must stand between digits"},
    {"a = 9223372036854775808", errc::invalid_number, 4, 1, 5, "/a",
     "invalid number: integer outside the 64-bit signed range"},
    {"a = 0x8000000000000000", errc::invalid_number, 4, 1, 5, "/a",
     "invalid number: integer outside the 64-bit signed range"},
    {"a = +0x10", errc::invalid_number, 4, 1, 5, "/a",
     "invalid number: a sign before 0x, 0o or 0b"},
    {"a = 1.", errc::invalid_number, 6, 1, 7, "/a", "invalid number: expected a digit"},
    {"a = 1e1000", errc::invalid_number, 4, 1, 5, "/a",
     "invalid number: float outside the range of a double"},
    {"a = 0o8", errc::invalid_number, 4, 1, 5, "/a",
     "invalid number: no digits after the base prefix"},
    // Date-times.
    {"a = 2021-02-29", errc::invalid_number, 4, 1, 5, "/a",
     "invalid date-time: month or day out of range"},
    {"a = 1979-05-27T25:00:00", errc::invalid_number, 15, 1, 16, "/a",
     "invalid date-time: hour, minute or second out of range"},
    {"t.a = 1979-05-27T23:59:60Z", errc::invalid_number, 17, 1, 18, "/t/a",
     "invalid date-time: hour, minute or second out of range"},
    {"a = 07:32", errc::invalid_number, 4, 1, 5, "/a",
     "invalid date-time: expected HH:MM:SS, saw '0'"},
    // Structure.
    {"a = 1\n= 2\n", errc::unexpected_char, 6, 2, 1, "", "expected a key, saw '='"},
    {"x = 1 y = 2", errc::unexpected_char, 6, 1, 7, "",
     "expected a newline or a comment after a value, saw 'y'"},
    {"[t] x = 1", errc::unexpected_char, 4, 1, 5, "/t",
     "expected a newline or a comment after a table header, saw 'x'"},
    {"[t\n", errc::unexpected_char, 2, 1, 3, "", "expected ']' closing a table header, saw byte 0x0a"},
    {"[[t]\n", errc::unexpected_char, 3, 1, 4, "",
     "expected ']]' closing a table array header, saw ']'"},
    {"a b = 1", errc::unexpected_char, 2, 1, 3, "/a", "expected '=' after a key, saw 'b'"},
    {"t = {a = 1\n}", errc::unexpected_char, 10, 1, 11, "/t",
     "expected ',' or '}' in an inline table, saw byte 0x0a"},
    {"t = {a = 1,}", errc::unexpected_char, 11, 1, 12, "/t", "expected a key, saw '}'"},
    {"a = [1, 2, {b = [true, tru]}]", errc::unexpected_char, 23, 1, 24, "/a/2/b/1",
     "expected a value, saw 't'"},
    {"# comment \x7f\n", errc::unexpected_char, 10, 1, 11, "",
     "control character byte 0x7f in a comment"},
    {"a = 1\r", errc::unexpected_char, 5, 1, 6, "",
     "expected a newline or a comment after a value, saw byte 0x0d"},
    {"a = \"\xff\"", errc::invalid_utf8, 5, 1, 6, "", "invalid UTF-8"},
    {"k = \"\xCE\xB1\" z", errc::unexpected_char, 9, 1, 9, "",
     "expected a newline or a comment after a value, saw 'z'"},
};

TEST(TomlDecode, ErrorsCarryPositions) {
    for (const auto& c : error_cases) {
        expect_decode_error(
            format_id::toml, c.toml,
            {c.code, c.offset, c.line, c.column, c.message, c.path, nullptr, format_id::toml});
    }
}

TEST(TomlDecode, DepthLimit) {
    std::string deep = "a = " + std::string(300, '[') + std::string(300, ']');
    const decode_options opt = max_depth(100);
    expect_decode_error(format_id::toml, deep, {errc::depth_exceeded}, opt);
}

// The parser's scratch counts against the builder's size budget as the tape it will become
// (16 bytes per value at least), so a document whose tape fits is never refused for it.
TEST(TomlDecode, SizeBudget) {
    std::string doc = "a = [";
    for (int i = 0; i < 10000; ++i) {
        doc += i == 0 ? "1" : ",1";
    }
    doc += "]";
    decode_options opt = max_bytes(200000);  // the tape: 10000 x 16 bytes and a few words
    document d = must_decode(format_id::toml, doc, opt);
    EXPECT_EQ(d.root().find("a").size(), 10000u);
    opt.limits.max_bytes = 100000;
    expect_decode_error(format_id::toml, doc, {errc::size_exceeded}, opt);
}

// ---- encoding ----

struct encode_case {
    const char* json;
    const char* toml;
};

const encode_case encode_cases[] = {
    {"{}", ""},
    {R"({"a":1,"b":"x","c":true,"d":1.5,"e":-0.0,"f":1e300,"g":2.0})",
     "a = 1\nb = \"x\"\nc = true\nd = 1.5\ne = -0.0\nf = 1e300\ng = 2.0\n"},
    // Simple keys come before tables; tables get [headers] with quoted dotted paths. A table
    // that comes before a simple key is written inline, which keeps the order of the map.
    {R"({"s":2,"t":{"x":1},"u v":{"w.z":{"k":[]}}})",
     "s = 2\n\n[t]\nx = 1\n\n[\"u v\"]\n\n[\"u v\".\"w.z\"]\nk = []\n"},
    {R"({"t":{"x":1},"s":2,"p":[{"n":1}],"q":true})",
     "t = { x = 1 }\ns = 2\np = [{ n = 1 }]\nq = true\n"},
    // Arrays of tables; inline tables inside arrays that are not all tables.
    {R"({"m":[1,{"a":1},[{"b":2}]],"p":[{"n":1,"q":{"r":3}},{"n":2}],"e":[{}]})",
     "m = [1, { a = 1 }, [{ b = 2 }]]\n\n[[p]]\nn = 1\n\n[p.q]\nr = 3\n\n[[p]]\nn = 2\n\n[[e]]\n"},
    // Key quoting: bare keys are A-Za-z0-9_- only.
    {R"({"bare-key_1":1,"":2,"a.b":3,"\u00e9":4,"q\"":5})",
     "bare-key_1 = 1\n\"\" = 2\n\"a.b\" = 3\n\"\xC3\xA9\" = 4\n\"q\\\"\" = 5\n"},
    // Basic strings escape controls, DEL, quotes and backslashes.
    {R"({"s":"a\"b\\c\n\t\u0001\u007f\u00e9"})",
     "s = \"a\\\"b\\\\c\\n\\t\\u0001\\u007F\xC3\xA9\"\n"},
    {R"({"i":-9223372036854775808,"j":9223372036854775807})",
     "i = -9223372036854775808\nj = 9223372036854775807\n"},
};

TEST(TomlEncode, ExactOutput) {
    for (const auto& c : encode_cases) {
        EXPECT_EQ(toml_of(c.json), c.toml) << c.json;
    }
}

TEST(TomlEncode, FloatsAndTimestampsAndBytes) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("inf");
    b.add_double(HUGE_VAL);
    b.add_string("ninf");
    b.add_double(-HUGE_VAL);
    b.add_string("nan");
    b.add_double(std::nan(""));
    b.add_string("odt");
    b.add_timestamp("1979-05-27T07:32:00Z", timestamp_kind::offset_date_time);
    b.add_string("lt");
    b.add_timestamp("07:32:00.5", timestamp_kind::local_time);
    b.add_string("bin");
    b.add_bytes("\x01\xff");
    b.add_int(7);  // integer key
    b.add_int(8);
    b.end_map();
    EXPECT_EQ(must_encode(format_id::toml, d),
              "inf = inf\nninf = -inf\nnan = nan\nodt = 1979-05-27T07:32:00Z\nlt = 07:32:00.5\n"
              "bin = \"Af8\"\n7 = 8\n");
    document back = must_decode(format_id::toml, must_encode(format_id::toml, d));
    value odt = back.root().find("odt");
    ASSERT_EQ(odt.kind(), kind::timestamp);
    EXPECT_EQ(odt.get_timestamp_kind(), timestamp_kind::offset_date_time);
    EXPECT_EQ(back.root().find("lt").get_timestamp_kind(), timestamp_kind::local_time);
}

struct unrep_case {
    const char* json;
    const char* path;
    const char* lossy_toml;  // output under lossy=allow
    const char* lossy_kind;
};

const unrep_case unrep_cases[] = {
    {R"({"a":1,"n":null})", "/n", "a = 1\n", "null_dropped"},
    {R"({"a":[1,null,2]})", "/a/1", "a = [1, 2]\n", "null_dropped"},
    {R"({"a":{"b":null,"c":1}})", "/a/b", "[a]\nc = 1\n", "null_dropped"},
    {R"([1,2])", "", "root = [1, 2]\n", "root_wrapped"},
    {R"([{"a":1}])", "", "[[root]]\na = 1\n", "root_wrapped"},
    {R"({"u":18446744073709551615})", "/u", "u = \"18446744073709551615\"\n", "integer_to_string"},
    {R"({"b":123456789012345678901234567890})", "/b", "b = \"123456789012345678901234567890\"\n",
     "integer_to_string"},
};

TEST(TomlEncode, UnrepresentableUnlessLossy) {
    for (const auto& c : unrep_cases) {
        document d = from_json(c.json);
        output_buffer out;
        auto r = encode(format_id::toml, d, out);
        ASSERT_FALSE(r) << c.json << " -> " << out.str();
        EXPECT_EQ(r.error().code, errc::unrepresentable);
        EXPECT_EQ(r.error().path, c.path) << c.json;
        EXPECT_EQ(r.error().format, format_id::toml);

        lossy_encode lossy;
        out.clear();
        ASSERT_TRUE(encode(format_id::toml, d, out, lossy.opt)) << c.json;
        EXPECT_EQ(out.str(), c.lossy_toml) << c.json;
        ASSERT_FALSE(lossy.report.empty()) << c.json;
        EXPECT_EQ(lossy.report[0].kind, c.lossy_kind) << c.json;
        EXPECT_EQ(lossy.report[0].path, c.path) << c.json;
    }
}

TEST(TomlEncode, CanonicalSortsKeys) {
    encode_options opt;
    opt.canonical = true;
    const text_case cases[] = {
        {R"({"c":[{"y":1,"x":2}],"b":{"q":1,"p":2},"a":1})",
         "a = 1\n\n[b]\np = 2\nq = 1\n\n[[c]]\nx = 2\ny = 1\n"},
        {R"({"m":[{"b":1,"a":2}, 1]})", "m = [{ a = 2, b = 1 }, 1]\n"},
    };
    expect_encodes(format_id::toml, cases, opt);
}

TEST(TomlEncode, DuplicateKeysAreUnrepresentable) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("1");
    b.add_int(1);
    b.add_int(1);  // integer key with the same text
    b.add_int(2);
    b.end_map();
    expect_error(encode_error_of(format_id::toml, d), {errc::unrepresentable});
    encode_options opt;
    opt.lossy = true;
    EXPECT_EQ(must_encode(format_id::toml, d, opt), "1 = 1\n");
}

TEST(TomlEncode, RecordsRoundTripThroughWrapping) {
    std::string json = test::read_file(test::fixtures_dir() / "records.json");
    document records = must_decode(format_id::json, json);
    std::string wrapped = "{\"records\":" + json + "}";
    document d = must_decode(format_id::json, wrapped);
    encode_options opt;
    opt.lossy = true;  // records.json has nulls ("note"), which TOML drops
    std::string toml = must_encode(format_id::toml, d, opt);
    document back = must_decode(format_id::toml, toml);
    value arr = back.root().find("records");
    ASSERT_EQ(arr.kind(), kind::array);
    ASSERT_EQ(arr.size(), records.root().size());
    // Every non-null member survives with its value, in order.
    auto it = arr.items().begin();
    for (value rec : records.root().items()) {
        value got = *it++;
        std::string want_keys, got_keys;
        for (auto [k, v] : rec.entries()) {
            if (!v.is_null()) {
                want_keys += std::string(k.get_string()) + ",";
            }
        }
        for (auto [k, v] : got.entries()) {
            got_keys += std::string(k.get_string()) + ",";
        }
        EXPECT_EQ(got_keys, want_keys);
        for (auto [k, v] : rec.entries()) {
            value g = got.find(k.get_string());
            if (v.is_null()) {
                EXPECT_EQ(g.doc(), nullptr);
                continue;
            }
            ASSERT_NE(g.doc(), nullptr) << k.get_string();
            EXPECT_TRUE(equal(v, g)) << to_debug_string(v) << " vs " << to_debug_string(g);
        }
    }
}

// ---- toml-test (TOML 1.0.0 file list) ----

// Builds a document from toml-test's tagged JSON: {"type": T, "value": "text"} is a scalar.
bool tagged_to_doc(value j, builder& b, std::string& why) {
    if (j.kind() == kind::array) {
        b.begin_array();
        for (value e : j.items()) {
            if (!tagged_to_doc(e, b, why)) {
                return false;
            }
        }
        b.end_array();
        return true;
    }
    if (j.kind() != kind::map) {
        why = "unexpected JSON " + to_debug_string(j);
        return false;
    }
    value type = j.find("type");
    value val = j.find("value");
    if (j.size() == 2 && type.doc() != nullptr && type.kind() == kind::string &&
        val.doc() != nullptr && val.kind() == kind::string) {
        std::string t(type.get_string());
        std::string s(val.get_string());
        if (t == "string") {
            b.add_string(s);
        } else if (t == "integer") {
            b.add_int(std::strtoll(s.c_str(), nullptr, 10));
        } else if (t == "float") {
            std::string x = s;
            if (x == "nan" || x == "+nan" || x == "-nan") {
                b.add_double(std::nan(""));
            } else if (x == "inf" || x == "+inf") {
                b.add_double(HUGE_VAL);
            } else if (x == "-inf") {
                b.add_double(-HUGE_VAL);
            } else {
                b.add_double(std::strtod(x.c_str(), nullptr));
            }
        } else if (t == "bool") {
            b.add_bool(s == "true");
        } else if (t == "datetime") {
            b.add_timestamp(s, timestamp_kind::offset_date_time);
        } else if (t == "datetime-local") {
            b.add_timestamp(s, timestamp_kind::local_date_time);
        } else if (t == "date-local") {
            b.add_timestamp(s, timestamp_kind::local_date);
        } else if (t == "time-local") {
            b.add_timestamp(s, timestamp_kind::local_time);
        } else {
            why = "unknown type " + t;
            return false;
        }
        return true;
    }
    b.begin_map();
    for (auto [k, v] : j.entries()) {
        b.add_string(k.get_string());
        if (!tagged_to_doc(v, b, why)) {
            return false;
        }
    }
    b.end_map();
    return true;
}

// Date-times compared at millisecond precision: 'T', 'Z' and "+00:00" spellings unified.
std::string normalize_datetime(std::string_view s) {
    std::string out;
    for (char c : s) {
        out += c == ' ' ? 'T' : (c >= 'a' && c <= 'z') ? char(c - 32) : c;
    }
    if (out.size() >= 6 &&
        (out.substr(out.size() - 6) == "+00:00" || out.substr(out.size() - 6) == "-00:00")) {
        out.replace(out.size() - 6, 6, "Z");
    }
    std::size_t dot = out.find('.');
    if (dot != std::string::npos) {
        std::size_t end = dot + 1;
        while (end < out.size() && out[end] >= '0' && out[end] <= '9') {
            ++end;
        }
        std::string frac = out.substr(dot + 1, end - dot - 1);
        frac.resize(3, '0');
        out = out.substr(0, dot) + "." + frac + out.substr(end);
    } else {
        // No fraction: insert .000 after the seconds for comparison.
        std::size_t colon = out.find(':');
        if (colon != std::string::npos && colon + 6 <= out.size()) {
            out.insert(colon + 6, ".000");
        }
    }
    return out;
}

// Semantic equality of a decoded document and the expectation: maps by key (any order),
// floats by value, date-times at millisecond precision.
bool same(value a, value b, std::string& why, const std::string& path = "") {
    if (a.kind() != b.kind()) {
        why = path + ": " + to_debug_string(a) + " vs " + to_debug_string(b);
        return false;
    }
    switch (a.kind()) {
        case kind::float64: {
            double x = a.get_double(), y = b.get_double();
            if ((std::isnan(x) && std::isnan(y)) || x == y) {
                return true;
            }
            why = path + ": " + to_debug_string(a) + " vs " + to_debug_string(b);
            return false;
        }
        case kind::timestamp:
            if (a.get_timestamp_kind() == b.get_timestamp_kind() &&
                normalize_datetime(a.get_string()) == normalize_datetime(b.get_string())) {
                return true;
            }
            why = path + ": " + to_debug_string(a) + " vs " + to_debug_string(b);
            return false;
        case kind::array: {
            if (a.size() != b.size()) {
                why = path + ": array sizes differ";
                return false;
            }
            auto ib = b.items().begin();
            std::size_t i = 0;
            for (value x : a.items()) {
                if (!same(x, *ib++, why, path + "/" + std::to_string(i++))) {
                    return false;
                }
            }
            return true;
        }
        case kind::map: {
            if (a.size() != b.size()) {
                why =
                    path + ": map sizes differ " + to_debug_string(a) + " vs " + to_debug_string(b);
                return false;
            }
            for (auto [k, v] : a.entries()) {
                value w = b.find(k.get_string());
                if (w.doc() == nullptr) {
                    why = path + ": key " + std::string(k.get_string()) + " missing";
                    return false;
                }
                if (!same(v, w, why, path + "/" + std::string(k.get_string()))) {
                    return false;
                }
            }
            return true;
        }
        default:
            if (equal(a, b)) {
                return true;
            }
            why = path + ": " + to_debug_string(a) + " vs " + to_debug_string(b);
            return false;
    }
}

// Known failures of our decoder against toml-test (TOML 1.0.0 list), each explained in
// docs/formats/toml.md; empty today. An unlisted failure fails the test, and so does a listed
// case that passes.
const std::map<std::string, std::string> known_toml_test_failures = {
#include "toml_known_failures.inc"
};

TEST(TomlConformance, TomlTest100) {
    POLYCODEC_REQUIRE_CORPUS("toml/tests", dir);
    std::ifstream list(dir / "files-toml-1.0.0");
    ASSERT_TRUE(list) << "files-toml-1.0.0 missing";
    std::string rel;
    int valid = 0, valid_ok = 0, invalid = 0, invalid_ok = 0, encode_ok = 0, known = 0;
    std::vector<std::string> unexpected;
    while (std::getline(list, rel)) {
        if (rel.size() < 5 || rel.substr(rel.size() - 5) != ".toml") {
            continue;
        }
        std::string input = test::read_file(dir / rel);
        document d;
        auto r = decode(format_id::toml, input, d);
        std::string failure;
        if (rel.rfind("valid/", 0) == 0) {
            ++valid;
            std::string json_path = rel.substr(0, rel.size() - 5) + ".json";
            document expected_json;
            auto jr = decode(format_id::json, test::read_file(dir / json_path), expected_json);
            ASSERT_TRUE(jr) << json_path;
            document expected;
            builder eb(expected);
            std::string why;
            ASSERT_TRUE(tagged_to_doc(expected_json.root(), eb, why)) << json_path << ": " << why;
            if (!r) {
                failure = "valid case rejected: " + describe(r.error());
            } else if (!same(d.root(), expected.root(), why)) {
                failure = "valid case decoded differently: " + why;
            } else {
                ++valid_ok;
                // Our encoder's output of the expectation decodes back equal.
                document back;
                failure = test::reencode_into(format_id::toml, expected, back);
                if (failure.empty() && !same(back.root(), expected.root(), why)) {
                    failure = "encoded output decodes differently: " + why;
                } else if (failure.empty()) {
                    ++encode_ok;
                }
            }
        } else {
            ++invalid;
            if (r) {
                failure = "invalid case accepted: " + dbg(d);
            } else {
                ++invalid_ok;
            }
        }
        bool listed = known_toml_test_failures.count(rel) != 0;
        if (!failure.empty()) {
            if (listed) {
                ++known;
            } else {
                unexpected.push_back(rel + ": " + failure);
            }
        } else if (listed) {
            unexpected.push_back(rel + ": listed as a known failure but passes (remove it "
                                        "from toml_known_failures.inc)");
        }
    }
    std::printf(
        "toml-test 1.0.0: valid %d/%d decode equal, %d/%d encode round trip; "
        "invalid %d/%d rejected; %d known exceptions\n",
        valid_ok, valid, encode_ok, valid, invalid_ok, invalid, known);
    EXPECT_EQ(valid, 210);
    EXPECT_EQ(invalid, 499);
    // Every listed case exists in the list (a renamed case cannot hide).
    EXPECT_EQ(static_cast<std::size_t>(known), known_toml_test_failures.size());
    for (const auto& u : unexpected) {
        ADD_FAILURE() << u;
    }
}

}  // namespace
}  // namespace polycodec
