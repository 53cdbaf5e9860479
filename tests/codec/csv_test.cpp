// Tests of the csv codec: RFC 4180 examples, options, error positions, exact encodings,
// csv-spectrum.
#include <filesystem>
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string cv(std::string_view text, const decode_options& opt = {}) {
    return decoded_as(format_id::csv, text, opt);
}

decode_options with(bool infer, bool header = true, bool unflatten = false, char delim = 0) {
    decode_options o;
    o.infer = infer;
    o.csv_header = header;
    o.unflatten = unflatten;
    o.csv_delimiter = delim;
    return o;
}

std::string encode_cv(std::string_view json, const encode_options& opt = {}) {
    return encode_json_as(format_id::csv, json, opt);
}

// ---- decoding ----

TEST(CsvDecode, Rfc4180Examples) {
    // RFC 4180 section 2: CRLF records, optional final line break, quoted fields with
    // delimiters, line breaks and doubled quotes.
    const text_case cases[] = {
        {"aaa,bbb,ccc\r\nzzz,yyy,xxx\r\n", "[{\"aaa\":\"zzz\",\"bbb\":\"yyy\",\"ccc\":\"xxx\"}]"},
        {"aaa,bbb,ccc\r\nzzz,yyy,xxx", "[{\"aaa\":\"zzz\",\"bbb\":\"yyy\",\"ccc\":\"xxx\"}]"},
        {"h,i\r\n\"b\r\nbb\",\"c,\"\"c\"\"\"\r\n",
         "[{\"h\":\"b\\u000d\\u000abb\",\"i\":\"c,\\\"c\\\"\"}]"},
    };
    expect_decodes(format_id::csv, cases);
}

TEST(CsvDecode, HeaderAbsentGivesArrays) {
    EXPECT_EQ(cv("1,2\n3,4\n", with(false, false)), "[[\"1\",\"2\"],[\"3\",\"4\"]]");
    EXPECT_EQ(cv("1,2\n3,4\n", with(true, false)), "[[1,2],[3,4]]");
}

TEST(CsvDecode, LineEndsBomAndBlankLines) {
    const char* inputs[] = {"a,b\r\n1,2\r\n", "a,b\n1,2\n", "a,b\r1,2\r",
                            "\xEF\xBB\xBF"
                            "a,b\n1,2",
                            "a,b\n\n1,2\n\r\n"};
    for (const char* in : inputs) {
        SCOPED_TRACE(in);
        EXPECT_EQ(cv(in), "[{\"a\":\"1\",\"b\":\"2\"}]");
    }
    // In a one-column table an empty line is an empty field (how null is written there).
    EXPECT_EQ(cv("a\r\n1\r\n\r\n2\r\n", with(true)), "[{\"a\":1},{\"a\":null},{\"a\":2}]");
    EXPECT_EQ(cv(""), "[]");
    EXPECT_EQ(cv("a,b\r\n"), "[]");
}

TEST(CsvDecode, InferTypesUnquotedFieldsOnly) {
    EXPECT_EQ(cv("i,f,b,n,s,z,q,e,x\n"
                 "-12,2.5e3,true,,007,0,\"12\",\"\",1e999\n"
                 "18446744073709551615,NaN,false,,-0.0,-0,\"true\",x,.5\n"
                 "123456789012345678901234567890,-Infinity,True,,1.,1e5,\" 1\",Infinity,+1\n",
                 with(true)),
              "[{\"i\":-12,\"f\":2500.0,\"b\":true,\"n\":null,\"s\":\"007\",\"z\":0,\"q\":\"12\","
              "\"e\":\"\",\"x\":\"1e999\"},"
              "{\"i\":18446744073709551615u,\"f\":NaN,\"b\":false,\"n\":null,\"s\":-0.0,\"z\":0,"
              "\"q\":\"true\",\"e\":\"x\",\"x\":\".5\"},"
              "{\"i\":123456789012345678901234567890n,\"f\":-Infinity,\"b\":\"True\",\"n\":null,"
              "\"s\":\"1.\",\"z\":100000.0,\"q\":\" 1\",\"e\":Infinity,\"x\":\"+1\"}]");
}

TEST(CsvDecode, DelimiterAndTab) {
    EXPECT_EQ(cv("a;b\n1;\"x;y\"\n", with(false, true, false, ';')),
              "[{\"a\":\"1\",\"b\":\"x;y\"}]");
    decode_options tsv;
    tsv.csv_tab = true;
    EXPECT_EQ(cv("a\tb\n1\t2,3\n", tsv), "[{\"a\":\"1\",\"b\":\"2,3\"}]");
}

TEST(CsvDecode, UnflattenRestoresNestedMaps) {
    EXPECT_EQ(cv("id,n.x,n.y,t,n.z.w,a..b\n1,2,3,4,5,6\n", with(true, true, true)),
              "[{\"id\":1,\"n\":{\"x\":2,\"y\":3,\"z\":{\"w\":5}},\"t\":4,\"a..b\":6}]");
    // Without unflatten the dotted names are plain keys.
    EXPECT_EQ(cv("n.x\n1\n", with(true)), "[{\"n.x\":1}]");
    // A column cannot be both a value and a map.
    expect_decode_error(format_id::csv, "a,a.b\n1,2\n", {errc::duplicate_key, 2},
                        with(false, true, true));
}

// RFC 4180 section 2: "Fields containing line breaks (CRLF), double quotes, and commas
// should be enclosed in double-quotes", and a quoted field ends at its closing quote. By
// default both breaches are errors; strict=false reads them as Python's csv reader does.
TEST(CsvDecode, QuoteInsideAnUnquotedFieldIsRefusedUnlessNotStrict) {
    //                                   ^ offset 3, line 2, column 2
    expect_decode_error(format_id::csv, "a\nx\"y\n",
                        {.code = errc::unexpected_char,
                         .offset = 3,
                         .line = 2,
                         .column = 2,
                         .message_has = "a quote inside an unquoted field"});
    decode_options lax;
    lax.strict = false;
    EXPECT_EQ(cv("a\nx\"y\n", lax), "[{\"a\":\"x\\\"y\"}]");
    EXPECT_EQ(cv("a,b\n1,x\"\"y\"\n", lax), "[{\"a\":\"1\",\"b\":\"x\\\"\\\"y\\\"\"}]");
}

TEST(CsvDecode, TextAfterAClosingQuoteJoinsTheFieldUnlessStrict) {
    expect_decode_error(format_id::csv, "a,b\n\"x\"y,2\n", {errc::unexpected_char, 7});
    decode_options lax;
    lax.strict = false;
    lax.infer = true;  // a field that was quoted is never inferred, whatever follows
    EXPECT_EQ(cv("a,b\n\"x\"y,2\n", lax), "[{\"a\":\"xy\",\"b\":2}]");
    EXPECT_EQ(cv("a,b\n\"1\"2,\"a\"\"b\"c\"d\r\n", lax),
              "[{\"a\":\"12\",\"b\":\"a\\\"bc\\\"d\"}]");
}

TEST(CsvDecode, ErrorsCarryOffsetLineAndColumn) {
    const bad_input bad[] = {
        {"a,b\n1,\"x", {errc::unexpected_eof, 8, 2, 5}},
        {"a,b\n1,2,3\n", {errc::unexpected_char, 8, 2, 5}},
        {"a,b,c\n1,2\n", {errc::unexpected_char, 9, 2, 4}},
        {"a,b\n\"x\"y,2\n", {errc::unexpected_char, 7, 2, 4}},
        {"a\n\xFF\n", {errc::invalid_utf8, 2, 2, 1}},
        {"1,2\n3\n", {errc::unexpected_char, 5, 2, 2}},
    };
    expect_decode_errors(format_id::csv, bad);
}

TEST(CsvDecode, DelimiterCannotBeAQuoteOrLineBreak) {
    for (char d : {'"', '\n', '\r'}) {
        EXPECT_EQ(decode_error(format_id::csv, "a\n1\n", with(false, true, false, d)).code,
                  errc::invalid_option);
        encode_options opt;
        opt.csv_delimiter = d;
        EXPECT_EQ(encode_json_error(format_id::csv, "[[1]]", opt).code, errc::invalid_option);
    }
}

TEST(CsvDecode, UnflattenDepthIsLimited) {
    expect_decode_error(format_id::csv, "a" + repeat(".a", 600) + "\n1\n", {errc::depth_exceeded},
                        with(false, true, true));
}

// ---- encoding ----

TEST(CsvEncode, MapsWithUnionHeaderAndCrlf) {
    EXPECT_EQ(
        encode_cv(R"([{"id":1,"name":"a,b","n":{"x":1.5,"y":{"z":true}},"note":null},)"
                  R"({"id":2,"name":"say \"hi\"","n":{"x":-0.0,"y":{"z":false}},"note":"x\ny"}])"),
        "id,name,n.x,n.y.z,note\r\n"
        "1,\"a,b\",1.5,true,\r\n"
        "2,\"say \"\"hi\"\"\",-0.0,false,\"x\ny\"\r\n");
}

TEST(CsvEncode, StringsThatWouldInferAreQuoted) {
    EXPECT_EQ(encode_cv(R"([{"s":"12"},{"s":""},{"s":"true"},{"s":"NaN"},{"s":"-1.5e3"},)"
                        R"({"s":"007"},{"s":"x"},{"s":null}])"),
              "s\r\n\"12\"\r\n\"\"\r\n\"true\"\r\n\"NaN\"\r\n\"-1.5e3\"\r\n007\r\nx\r\n\r\n");
}

TEST(CsvEncode, ScalarsAsText) {
    document d = must_decode(format_id::json5,
                             "[[1, -2, 18446744073709551615, 123456789012345678901234567890, "
                             "0.1, 1e300, NaN, -Infinity, true, false, null]]");
    EXPECT_EQ(must_encode(format_id::csv, d),
              "1,-2,18446744073709551615,123456789012345678901234567890,0.1,1e300,NaN,"
              "-Infinity,true,false,\r\n");
}

TEST(CsvEncode, DelimiterAndHeaderOptions) {
    encode_options opt;
    opt.csv_delimiter = ';';
    EXPECT_EQ(encode_cv(R"([{"a":"x;y","b":"x,y"}])", opt), "a;b\r\n\"x;y\";x,y\r\n");
    encode_options tsv;
    tsv.csv_tab = true;
    EXPECT_EQ(encode_cv(R"([{"a":"x\ty","b":1}])", tsv), "a\tb\r\n\"x\ty\"\t1\r\n");
    encode_options no_header;
    no_header.csv_header = false;
    EXPECT_EQ(encode_cv(R"([{"a":1}])", no_header), "1\r\n");
}

TEST(CsvEncode, NonTabularIsUnrepresentableWithPath) {
    const bad_input bad[] = {
        {R"({"a":1})", {.code = errc::unrepresentable, .path = ""}},
        {R"([1,2])", {.code = errc::unrepresentable, .path = "/0"}},
        {R"([{"a":1},[1]])", {.code = errc::unrepresentable, .path = "/1"}},
        {R"([{"a":{"b":[1,[]]}}])", {.code = errc::unrepresentable, .path = "/0/a/b/1"}},
        {R"([{"a":{"0":1,"1":2}}])", {.code = errc::unrepresentable, .path = "/0/a"}},
        {R"([{"a":[1]},{"b":2}])", {.code = errc::unrepresentable, .path = "/0"}},
        {R"([{"a":[{"t":[1]}]},{"a":[{"x":1}]}])", {.code = errc::unrepresentable, .path = "/1"}},
        {R"([{"a":1},{"b":2}])", {.code = errc::unrepresentable, .path = "/0"}},
        {R"([{"a":{}}])", {.code = errc::unrepresentable, .path = "/0/a"}},
        {R"([[1],[1,2]])", {.code = errc::unrepresentable, .path = "/0"}},
        {R"([[[1]]])", {.code = errc::unrepresentable, .path = "/0/0"}},
        {R"([[null],[1]])", {.code = errc::unrepresentable, .path = "/0/0"}},
        {R"([{},{}])", {.code = errc::unrepresentable, .path = "/0"}},
        {R"([[],[]])", {.code = errc::unrepresentable, .path = "/0"}},
        {R"([{"a":{}}])", {.code = errc::unrepresentable, .path = "/0/a"}},
    };
    expect_encode_errors(format_id::csv, bad);
}

TEST(CsvEncode, LossyFallbacks) {
    lossy_encode lossy;
    const encode_options& opt = lossy.opt;
    EXPECT_EQ(encode_cv(R"([{"a":[1,"x"],"e":{}},{"b":2}])", opt),
              "a.0,a.1,b\r\n1,x,\r\n,,2\r\n");
    expect_report(lossy.report, {{"empty_map_dropped", "/0/e"},
                                 {"missing_cell", "/0"},
                                 {"missing_cell", "/1"},
                                 {"missing_cell", "/1"}});
    lossy.report.clear();
    // Arrays inside array rows are still JSON text.
    EXPECT_EQ(encode_cv(R"([[1,[2,"x"]]])", opt), "1,\"[2,\"\"x\"\"]\"\r\n");
    expect_report(lossy.report, {{"nested_to_json_text", "/0/1"}});
    lossy.report.clear();
    EXPECT_EQ(encode_cv(R"([{"m":{"0":"a","1":"b"},"t":[1,[]]}])", opt),
              "m.0,m.1,t.0,t.1.0\r\na,b,1,\r\n");
    expect_report(lossy.report, {{"index_keys_read_as_array", "/0/m"},
                                 {"trailing_empty_element_dropped", "/0/t/1"}});
    lossy.report.clear();
    EXPECT_EQ(encode_cv("[[1],[1,2]]", opt), "1,\r\n1,2\r\n");
    expect_report(lossy.report, {{"ragged_row_padded"}});
}

TEST(CsvEncode, EmptyTableIsEmptyText) { EXPECT_EQ(encode_cv("[]"), ""); }

TEST(CsvEncode, RoundTripWithInferAndUnflatten) {
    const char* json =
        R"([{"id":1,"s":"12","e":"","n":null,"f":2.0,"b":false,"m":{"x":"a\r\nb","y":{"z":-3}}},)"
        R"({"id":2,"s":"x","e":"y","n":1,"f":-0.5,"b":true,"m":{"x":"","y":{"z":9}}}])";
    expect_round_trip(format_id::csv, must_decode(format_id::json, json), with(true, true, true));
    expect_round_trip(format_id::csv, must_decode(format_id::json, "[[1],[null],[\"\"]]"),
                      with(true, false));
    // One column, null rows included.
    expect_round_trip(format_id::csv,
                      must_decode(format_id::json, R"([{"a":null},{"a":""},{"a":1},{"a":null}])"),
                      with(true));
}

TEST(CsvEncode, ArraysBecomeIndexColumns) {
    // Different lengths, an empty array, null and "" inside arrays: absent cells are empty,
    // null inside an array is `null`, the empty string is "".
    const char* json =
        R"([{"id":1,"t":["a",null,""]},{"id":2,"t":[]},{"id":null,"t":[null]},)"
        R"({"id":4,"t":["null",7,2.0]}])";
    std::string text = expect_round_trip(format_id::csv, must_decode(format_id::json, json),
                                         with(true, true, true));
    EXPECT_EQ(text,
              "id,t.0,t.1,t.2\r\n"
              "1,a,null,\"\"\r\n"
              "2,,,\r\n"
              ",null,,\r\n"
              "4,\"null\",7,2.0\r\n");
    // Without unflatten the columns stay flat and the empty fields read as null.
    EXPECT_EQ(cv(text, with(true)),
              "[{\"id\":1,\"t.0\":\"a\",\"t.1\":null,\"t.2\":\"\"},"
              "{\"id\":2,\"t.0\":null,\"t.1\":null,\"t.2\":null},"
              "{\"id\":null,\"t.0\":null,\"t.1\":null,\"t.2\":null},"
              "{\"id\":4,\"t.0\":\"null\",\"t.1\":7,\"t.2\":2.0}]");
}

TEST(CsvEncode, RowsOfOneShapeAgreeWithTheOrdinaryWalk) {
    // write_maps compares a row with the last walked row's shape and, when it matches, skips
    // building its column names (pass 1) and puts its leaves straight into their cells (pass 2).
    // Rows 1, 5 and 6 (0-based) match the row before them; rows 2, 3 and 4 do not (an array
    // of another size, a row after such a change, another key order). Leaves of other kinds
    // in a matching row are fine. lossy=allow turns the fast path off: the same text.
    const char* json =
        R"([{"a":1,"t":[1,2]},{"a":"12","t":[3,4]},{"a":null,"t":[5]},{"a":true,"t":[6,null]},)"
        R"({"t":[7,8],"a":2.5},{"t":["",9],"a":"x,y"},{"t":[10,11],"a":"q\"r"}])";
    const std::string want =
        "a,t.0,t.1\r\n"
        "1,1,2\r\n"
        "\"12\",3,4\r\n"
        ",5,\r\n"
        "true,6,null\r\n"
        "2.5,7,8\r\n"
        "\"x,y\",\"\",9\r\n"
        "\"q\"\"r\",10,11\r\n";
    EXPECT_EQ(encode_cv(json), want);
    encode_options lossy;
    lossy.lossy = true;
    EXPECT_EQ(encode_cv(json, lossy), want);
    // Maps inside arrays: the same sizes but another key is another shape (its own column).
    EXPECT_EQ(encode_cv(R"([{"m":[{"x":1}]},{"m":[{"x":2}]},{"m":[{"y":3}]}])"),
              "m.0.x,m.0.y\r\n1,\r\n2,\r\n,3\r\n");
    // A row that fails after rows of one shape: the same error and path as the ordinary walk.
    const bad_input bad[] = {
        {R"([{"a":[1,2]},{"a":[1,2]},{"a":[1,{}]}])",
         {.code = errc::unrepresentable, .path = "/2/a/1"}},
        {R"([{"a":[1,2]},{"a":[3,4]},{"b":[5,6]}])", {.code = errc::unrepresentable, .path = "/0"}},
    };
    expect_encode_errors(format_id::csv, bad);
}

TEST(CsvEncode, RowsOfOneShapeQuoteAndSpellEveryCell) {
    // Rows 1.. have row 0's shape: they go from the tape to the text directly, their strings
    // checked 16 bytes a step. Quoted exactly when RFC 4180 needs it (a comma, a quote, CR or
    // LF) or an inferring reader would type the text; the bytes after a string in the document
    // (here the key "a,b") do not count. The last string of the document has fewer than 16
    // bytes after it.
    const char* json =
        R"([{"s":"first","a,b":1},{"s":"abcdefghijklmno,","a,b":-5},)"
        R"({"s":"abcdefghijklmnop","a,b":0},)"
        R"({"s":"abcdefghijklmnopq\"","a,b":18446744073709551615},)"
        R"({"s":"abc","a,b":123456789012345678901234567890},{"s":"","a,b":1.5},)"
        R"({"s":"12","a,b":-0.0},{"s":"null","a,b":1e300},{"s":"nul","a,b":null},)"
        R"({"s":"-","a,b":true},{"s":"Infinity","a,b":false},{"s":"tru","a,b":NaN},)"
        R"({"s":"line\r\nbreak","a,b":-Infinity},{"s":"tab\there","a,b":2},)"
        R"({"s":"0123456789012345678901234567890123456789\n","a,b":3},)"
        R"({"s":"012345678901234567890123456789012","a,b":4},{"s":"x\"y","a,b":5}])";
    const document d = must_decode(format_id::json5, json);
    EXPECT_EQ(must_encode(format_id::csv, d),
              "s,\"a,b\"\r\n"
              "first,1\r\n"
              "\"abcdefghijklmno,\",-5\r\n"
              "abcdefghijklmnop,0\r\n"
              "\"abcdefghijklmnopq\"\"\",18446744073709551615\r\n"
              "abc,123456789012345678901234567890\r\n"
              "\"\",1.5\r\n"
              "\"12\",-0.0\r\n"
              "\"null\",1e300\r\n"
              "nul,\r\n"
              "-,true\r\n"
              "\"Infinity\",false\r\n"
              "tru,NaN\r\n"
              "\"line\r\nbreak\",-Infinity\r\n"
              "tab\there,2\r\n"
              "\"0123456789012345678901234567890123456789\n\",3\r\n"
              "012345678901234567890123456789012,4\r\n"
              "\"x\"\"y\",5\r\n");
    // Another delimiter: the comma is text, the delimiter and the tab's quoting follow it.
    encode_options semi;
    semi.csv_delimiter = ';';
    EXPECT_EQ(encode_cv(R"([{"s":"a","t":[null,"b"]},{"s":"a;b","t":["a,b",null]},)"
                        R"({"s":"a\tb","t":["",7]}])",
                        semi),
              "s;t.0;t.1\r\n"
              "a;null;b\r\n"
              "\"a;b\";a,b;null\r\n"
              "a\tb;\"\";7\r\n");
    encode_options tsv;
    tsv.csv_tab = true;
    EXPECT_EQ(encode_cv(R"([{"s":"a"},{"s":"a\tb"},{"s":"a,b"}])", tsv),
              "s\r\na\r\n\"a\tb\"\r\na,b\r\n");
    // Leaves in other columns than their order (an array shorter than in the first row, keys
    // in another order): gathered into their cells first.
    EXPECT_EQ(encode_cv(R"([{"t":[1,2],"s":"a"},{"t":[3],"s":"b,c"},{"t":[4],"s":"d"},)"
                        R"({"s":"e","t":[5,6]},{"s":"f\"","t":[7,8]}])"),
              "t.0,t.1,s\r\n1,2,a\r\n3,,\"b,c\"\r\n4,,d\r\n5,6,e\r\n7,8,\"f\"\"\"\r\n");
}

TEST(CsvEncode, RowsOfOneShapeWithBytesTimestampsAndTags) {
    // Bytes (unpadded base64url: Python's base64.urlsafe_b64encode without "=") and timestamps
    // in rows of one shape; with `tag`, a third row of that shape holds a tag, refused with its
    // path as in a walked row.
    auto table = [](document& d, bool tag) {
        builder b(d);
        b.begin_array();
        for (std::string_view bytes : {std::string_view("\x00\xff", 2), std::string_view("hi?")}) {
            b.begin_map();
            b.add_string("b");
            b.add_bytes(bytes);
            b.add_string("ts");
            b.add_timestamp("1979-05-27T07:32:00Z", timestamp_kind::offset_date_time);
            b.end_map();
        }
        if (tag) {
            b.begin_map();
            b.add_string("b");
            b.begin_tagged(1);
            b.add_int(5);
            b.add_string("ts");
            b.add_null();
            b.end_map();
        }
        b.end_array();
    };
    document d;
    table(d, false);
    EXPECT_EQ(must_encode(format_id::csv, d),
              "b,ts\r\nAP8,1979-05-27T07:32:00Z\r\naGk_,1979-05-27T07:32:00Z\r\n");
    document bad;
    table(bad, true);
    output_buffer out;
    auto r = encode(format_id::csv, bad, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::unrepresentable);
    EXPECT_EQ(r.error().path, "/2/b");
}

TEST(CsvEncode, ArraysOfMapsAndNestedArrays) {
    // New columns join the union where first seen (t.1 after x); maps inside arrays may miss
    // keys (absent cells); an array empty in every row keeps a `key.0` column.
    const char* json =
        R"([{"t":[{"a":1}],"x":true,"e":[],"n":{"v":[[],[1,2]]}},)"
        R"({"t":[{"a":2,"b":"s"},{"b":null}],"x":false,"e":[],"n":{"v":[[3]]}}])";
    EXPECT_EQ(expect_round_trip(format_id::csv, must_decode(format_id::json, json),
                                with(true, true, true)),
              "t.0.a,x,e.0,n.v.0.0,n.v.1.0,n.v.1.1,t.0.b,t.1.b\r\n"
              "1,true,,,1,2,,\r\n"
              "2,false,,3,,,s,null\r\n");
}

TEST(CsvDecode, UnflattenIndexColumnsBecomeArrays) {
    const text_case cases[] = {
        {"a.0,a.1,b.1,b.0,c.0,c.2\n1,,2,3,4,5\n",
         "[{\"a\":[1],\"b\":{\"1\":2,\"0\":3},\"c\":{\"0\":4,\"2\":5}}]"},
        // A hole before a present element reads as null (with infer) and "" (without).
        {"a.0,a.1\n,x\n", "[{\"a\":[null,\"x\"]}]"},
        // Absent cells only exist below an array; `null` reads as null everywhere under infer.
        {"a,b.0\n,null\n", "[{\"a\":null,\"b\":[null]}]"},
        // One column: a blank line is a row whose array is empty.
        {"t.0\r\nx\r\n\r\n", "[{\"t\":[\"x\"]},{\"t\":[]}]"},
    };
    expect_decodes(format_id::csv, cases, with(true, true, true));
    EXPECT_EQ(cv("a.0,a.1\n,x\n", with(false, true, true)), "[{\"a\":[\"\",\"x\"]}]");
    EXPECT_EQ(cv("a\nnull\n\"null\"\n", with(true)), "[{\"a\":null},{\"a\":\"null\"}]");
}

TEST(CsvEncode, RecordsFixtureRoundTrips) {
    document a = must_decode(format_id::json, read_file(fixtures_dir() / "records.json"));
    std::string text = expect_round_trip(format_id::csv, a, with(true, true, true));
    EXPECT_EQ(text.substr(0, text.find('\r')),
              "id,big,score,ratio,active,name,city,nested.x,nested.y,nested.label,tags.0,"
              "created,note,tags.1,tags.2");
}

// ---- csv-spectrum ----

TEST(CsvEncode, FixturesEncodeAsWithoutTheShapeFastPath) {
    // lossy=allow turns write_maps' fast path off; where the default encode succeeds no lossy
    // event happened, so both must write the same bytes (bench.json, records.json: rows of
    // one shape and rows of several).
    int tables = 0;
    for (const auto& f : std::filesystem::directory_iterator(fixtures_dir())) {
        if (f.path().extension() != ".json") {
            continue;
        }
        SCOPED_TRACE(f.path().string());
        document d;
        if (!decode(format_id::json, read_file(f.path()), d)) {
            continue;
        }
        output_buffer plain;
        if (!encode(format_id::csv, d, plain)) {
            continue;
        }
        encode_options lossy;
        lossy.lossy = true;
        output_buffer other;
        ASSERT_TRUE(encode(format_id::csv, d, other, lossy));
        EXPECT_EQ(plain.str(), other.str());
        ++tables;
    }
    EXPECT_GE(tables, 2);
}

TEST(CsvCorpus, CsvSpectrum) {
    POLYCODEC_REQUIRE_CORPUS("csv/csv-spectrum", root);
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(root / "csvs")) {
        std::string stem = entry.path().stem().string();
        SCOPED_TRACE(stem);
        document got = must_decode(format_id::csv, read_file(entry.path()));
        document want = must_decode(format_id::json, read_file(root / "json" / (stem + ".json")));
        EXPECT_TRUE(equal(got, want)) << dbg(got) << " != " << dbg(want);
        // and our writer's text reads back to the same table
        document again = must_decode(format_id::csv, must_encode(format_id::csv, got));
        EXPECT_TRUE(equal(got, again)) << dbg(again);
        ++n;
    }
    EXPECT_EQ(n, 11);
}

}  // namespace
}  // namespace polycodec::test
