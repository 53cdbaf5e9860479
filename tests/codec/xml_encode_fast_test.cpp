// The xml encoder's fast path (a tape walk for the default mapping's common elements) vs its
// general writer (docs/formats/xml.md "Encoding: the fast path"): on every document and option
// set here both must give the same bytes, or the same error (code, message, path), and the
// same lossy fallbacks in the same order. The documents: every fixture that decodes, XML
// fixtures read back, hand-written hostile cases (names that need checking or are no XML
// names, attribute and text keys, empty and single-item arrays, arrays in arrays, characters
// to escape, refuse or replace, every scalar kind, deep nesting) and seeded random documents
// built from the same pieces.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "formats/formats.hpp"
#include "support/mutate.hpp"
#include "support/support.hpp"

namespace polycodec {
namespace {

using detail::xml_writer_kind;

struct run_result {
    bool ok = false;
    std::string bytes;
    errc code = errc::ok;
    std::string message;
    std::string path;
    std::vector<std::string> lossy;  // "path kind detail"
};

run_result run(xml_writer_kind which, const document& doc, encode_options opt) {
    run_result r;
    lossy_report report;
    if (opt.lossy) {
        opt.report = &report;
    }
    output_buffer out;
    out.append("junk before");  // the writer appends: both keep what was there
    auto res = detail::encode_xml_only(which, doc, out, opt);
    r.ok = static_cast<bool>(res);
    if (r.ok) {
        r.bytes = out.str();
    } else {
        r.code = res.error().code;
        r.message = res.error().message;
        r.path = res.error().path;
    }
    for (const lossy_event& e : report) {
        r.lossy.push_back(e.path + " " + std::string(e.kind) + " " + e.detail);
    }
    return r;
}

// Encode options with lossy and pretty as given and the XML mapping `xml`.
encode_options with_xml(bool lossy, xml_options xml, bool pretty = false) {
    encode_options o;
    o.pretty = pretty;
    o.lossy = lossy;
    o.xml = std::move(xml);
    return o;
}

// The option sets: each with fast() true (neither pretty nor namespaces) but the last two,
// which check that those still take the general path alone.
std::vector<encode_options> option_sets() {
    return {
        {},  // default
        with_xml(false, {.root = "r"}),
        with_xml(true, {}),
        with_xml(true, {.root = "bench"}),
        with_xml(false, {.force_list = {"a", "item", "b", "samples"}, .root = "r"}),
        with_xml(true, {.attr_prefix = ""}),
        with_xml(true, {.attr_prefix = "_", .text_key = "value", .root = "r"}),
        with_xml(true, {.text_key = "", .force_list = {"x"}}),
        with_xml(false, {.root = "1bad"}),              // refused
        with_xml(true, {.root = "\xC3\xA9t\xC3\xA9"}),  // "été": a name by the code point check
        with_xml(true, {}, true),
        with_xml(true, {.expand_namespaces = true}),
    };
}

struct tally {
    int runs = 0;
    int ok = 0;
    int errors = 0;
    int lossy = 0;
};

void expect_agree(const document& doc, const std::string& label, tally& t) {
    const std::vector<encode_options> sets = option_sets();
    for (std::size_t s = 0; s < sets.size(); ++s) {
        run_result f = run(xml_writer_kind::fast, doc, sets[s]);
        run_result g = run(xml_writer_kind::general, doc, sets[s]);
        ++t.runs;
        t.ok += f.ok;
        t.errors += !f.ok;
        t.lossy += !f.lossy.empty();
        SCOPED_TRACE(label + ", option set " + std::to_string(s) + ": " +
                     test::dbg(doc).substr(0, 300));
        ASSERT_EQ(f.ok, g.ok) << (f.ok ? f.bytes : f.message) << "\nvs\n"
                              << (g.ok ? g.bytes : g.message);
        EXPECT_EQ(f.bytes, g.bytes);
        EXPECT_EQ(f.code, g.code);
        EXPECT_EQ(f.message, g.message);
        EXPECT_EQ(f.path, g.path);
        EXPECT_EQ(f.lossy, g.lossy);
        if (::testing::Test::HasFailure()) {
            return;  // one report per document
        }
    }
}

document from_json(std::string_view json) {
    document d;
    auto r = decode(format_id::json, json, d);
    EXPECT_TRUE(r) << json;
    return d;
}

TEST(XmlEncodeFastPath, Fixtures) {
    tally t;
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::fixtures_dir())) {
        if (!e.is_regular_file()) {
            continue;
        }
        const format_info* f = find_format_by_path(e.path().string());
        if (f == nullptr || !is_implemented(f->id)) {
            continue;
        }
        document d;
        std::string text = test::read_file(e.path());
        decode_options dopt;
        if (f->id == format_id::xml) {
            dopt.xml.root = "bench";  // bench.xml is written with root=bench
        }
        if (!decode(f->id, text, d, dopt) && !decode(f->id, text, d)) {
            continue;
        }
        ++files;
        expect_agree(d, e.path().filename().string(), t);
        // As bench times it: {"records": [...]}.
        if (d.root().kind() == kind::array) {
            document w;
            builder b(w);
            b.begin_map();
            b.add_string("records");
            b.add_copy(d.root());
            b.end_map();
            expect_agree(w, e.path().filename().string() + " as {records: ...}", t);
        }
    }
    EXPECT_GT(files, 10);
    EXPECT_GT(t.ok, 0);
    std::printf("xml encode: %d files, %d runs, %d written, %d refused, %d with fallbacks\n",
                files, t.runs, t.ok, t.errors, t.lossy);
}

TEST(XmlEncodeFastPath, HandWritten) {
    const char* cases[] = {
        "null", "1", "\"x\"", "[]", "{}", "[1]", "[1,2]", "[[1,2],3]", "[[],{}]",
        "{\"a\":null}", "{\"a\":{}}", "{\"a\":[]}", "{\"a\":[1]}", "{\"a\":[1,2]}",
        "{\"a\":[[1],2,3]}", "{\"a\":[[1],[2]]}", "{\"a\":[2,[1],[],3]}", "{\"a\":1,\"b\":2}",
        "{\"a\":{\"b\":{\"c\":{\"d\":[1,{\"e\":[true,false,null]},\"x\"]}}}}",
        "{\"a\":{\"@x\":\"1\",\"b\":2}}", "{\"a\":{\"@x\":\"1\"}}", "{\"a\":{\"#text\":\"t\"}}",
        "{\"a\":{\"@x\":\"1\",\"#text\":\"t\",\"c\":[1,2]}}", "{\"a\":{\"b\":1,\"@x\":\"1\"}}",
        "{\"a\":{\"@x\":null}}", "{\"a\":{\"@x\":[1]}}", "{\"a\":{\"@x\":\"1\",\"@x\":\"2\"}}",
        "{\"a\":{\"@\":1}}", "{\"a\":{\"#\":1}}", "{\"a\":{\"_x\":1,\"value\":2}}",
        "{\"a\":{\"\":1}}", "{\"\":1}", "{\"1a\":1}", "{\"a b\":1}", "{\"a\":{\"1a\":1}}",
        "{\"a\":{\"b c\":[1,2]}}", "{\"a\":{\"b c\":[[1],[2]]}}", "{\"a\":{\"b\":[1],\"c d\":2}}",
        "{\"a\":{\"ok\":1,\"bad name\":2}}", "{\"a\":{\"-x\":1}}", "{\"a\":{\".x\":1}}",
        "{\"a\":{\"x-y.z_1:w\":1}}", "{\"\xC3\xA9t\xC3\xA9\":{\"\xE6\x97\xA5\":\"\xE6\x9C\xAC\"}}",
        "{\"a\":{\"\xC3\x97\":1}}", "{\"a\":{\"b\xCC\x80\":1}}", "{\"{u}l\":{\"{v}m\":1}}",
        "{\"a\":\"a&b<c>d\\\"e'f\"}", "{\"a\":\"\\r\\n\\t x\"}", "{\"a\":\"\\u0001\"}",
        "{\"a\":\"ok\\u0000\"}", "{\"a\":\"\\uFFFE\"}", "{\"a\":\"x\\uFFFF\"}",
        "{\"a\":\"\\uFF01\\uFFFD\\uEFFF\"}", "{\"a\":\"0123456789abcdef&0123456789abcdef<\"}",
        "{\"a\":\"0123456789abcdef0123456789abcdef\\u001f\"}",
        "{\"a\":\"0123456789abcdef0123456789abcdef\\uFFFE0123456789\"}",
        "{\"a\":\"&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&\"}", "{\"a\":\"\"}",
        "{\"a\":[\"\",\"\"]}", "{\"a\":{\"b\":\"\\r\"}}", "{\"a\":{\"@b\":\"\\r\\n\\t\\\"<&>\"}}",
        "{\"a\":-9223372036854775808}", "{\"a\":18446744073709551615}",
        "{\"a\":123456789012345678901234567890}", "{\"a\":[1.0,-0.0,2.5,1e21,1e-7,1e300]}",
        "{\"a\":{\"b\":[0.1,-17.5]}}", "{\"a\":[true,false]}", "{\"a\":{\"b\":{},\"c\":[{},{}]}}",
        "{\"a\":{\"item\":[1,2],\"b\":[{\"c\":[1,2]},{\"c\":[3]}]}}",
        "{\"a\":1,\"b\":[1]}", "{\"a\":[1,2],\"b\":3}", "[{\"a\":1},{\"b\":[1,2]}]",
        "[null,\"x\",[1],{\"a\":[]}]", "{\"x\":[5]}", "{\"x\":{\"x\":[5]}}",
        "{\"samples\":{\"samples\":[7]}}", "{\"records\":[{\"id\":0,\"tags\":[\"a\",\"b\"]}]}",
    };
    tally t;
    for (const char* c : cases) {
        expect_agree(from_json(c), c, t);
    }
    // Names around the tag cache's 16 bytes (longer ones are checked and copied each time),
    // valid and not, as keys of leaves, maps and arrays, and many distinct names (slots
    // taken over by others).
    for (std::string name : {std::string(15, 'n'), std::string(16, 'n'), std::string(17, 'n'),
                             std::string(24, 'n'), std::string(100, 'n'),
                             std::string(16, 'n') + " ", std::string(20, 'n') + "\\u0001",
                             "1" + std::string(30, 'n'), "\u00e9" + std::string(20, 'n')}) {
        std::string q = "\"" + name + "\"";
        for (std::string json :
             {"{" + q + ":1}", "{\"r\":{" + q + ":\"x&\"}}", "{\"r\":{" + q + ":[1,2,3]}}",
              "{\"r\":{" + q + ":{\"a\":null," + q + ":{}}}}",
              "{\"r\":[{" + q + ":[true,[],{\"b\":2}]}," + q + "]}",
              "{\"r\":{\"a\":[[0]," + q + "]," + q + ":[null,null]}}"}) {
            expect_agree(from_json(json), json, t);
        }
    }
    {
        std::string json = "{\"r\":{";
        for (int k = 0; k < 300; ++k) {
            // "k12" and "keyname_12": some names share their first 8 bytes
            json += std::string(k ? "," : "") + (k % 2 ? "\"k" : "\"keyname_") +
                    std::to_string(k * 7919 % 1000) + "\":[" +
                    std::to_string(k) + ",\"" + std::to_string(k) + "<\"]";
        }
        json += "}}";
        expect_agree(from_json(json), "300 distinct names", t);
    }
    // Scalars JSON has not: bytes, bignum, timestamp, tagged, NaN and infinities, integer keys.
    {
        document d;
        builder b(d);
        b.begin_map();
        b.add_string("r");
        b.begin_map();
        b.add_string("bytes");
        b.add_bytes(std::string("\x00\xff\x10", 3));
        b.add_string("big");
        b.add_bignum("-123456789012345678901234567890");
        b.add_string("ts");
        b.add_timestamp("1979-05-27T07:32:00Z", timestamp_kind::offset_date_time);
        b.add_string("tag");
        b.begin_tagged(42);
        b.add_string("in<tag>");
        b.add_string("tagmap");
        b.begin_tagged(7);
        b.begin_map();
        b.add_string("k");
        b.add_int(1);
        b.end_map();
        b.add_string("nan");
        b.add_double(std::numeric_limits<double>::quiet_NaN());
        b.add_string("inf");
        b.begin_array();
        b.add_double(std::numeric_limits<double>::infinity());
        b.add_double(-std::numeric_limits<double>::infinity());
        b.add_double(-std::numeric_limits<double>::quiet_NaN());
        b.end_array();
        b.add_string("after");
        b.add_string("x");
        b.end_map();
        b.end_map();
        expect_agree(d, "non-JSON scalars", t);
    }
    {
        document d;
        builder b(d);
        b.begin_map();
        b.add_string("r");
        b.begin_map();
        b.add_string("a");
        b.add_int(1);
        b.add_int(7);  // an integer key: no XML name
        b.add_int(2);
        b.end_map();
        b.end_map();
        expect_agree(d, "integer key", t);
    }
    {
        document d;
        builder b(d);
        b.begin_map();
        b.add_bool(true);  // a boolean key: its text "true" is a name
        b.begin_map();
        b.add_string("b");
        b.add_int(1);
        b.end_map();
        b.end_map();
        expect_agree(d, "boolean root key", t);
    }
    // Nesting past the fast path's stack (128): maps and arrays of maps, 200 deep.
    for (int arrays = 0; arrays < 2; ++arrays) {
        std::string json;
        for (int k = 0; k < 200; ++k) {
            json += arrays ? "{\"a\":[1,{\"b\":" : "{\"a\":{\"b\":1,\"c\":";
        }
        json += "\"end&\"";
        for (int k = 0; k < 200; ++k) {
            json += arrays ? "}]}" : "}}";
        }
        document d;
        decode_options deep;
        deep.limits.max_depth = 2000;
        ASSERT_TRUE(decode(format_id::json, json, d, deep));
        expect_agree(d, arrays ? "deep arrays" : "deep maps", t);
    }
    // Long texts: past the fast path's 64 KiB, and just under it with escapes.
    {
        std::string big(70000, 'x');
        big[5] = '&';
        big[69990] = '<';
        std::string under(65536, 'y');
        under[0] = '>';
        under[65535] = '&';
        std::string amps(60000, '&');
        document d;
        builder b(d);
        b.begin_map();
        b.add_string("r");
        b.begin_map();
        b.add_string("big");
        b.add_string(big);
        b.add_string("under");
        b.add_string(under);
        b.add_string("amps");
        b.add_string(amps);
        b.add_string("tail");
        b.add_string("t");
        b.end_map();
        b.end_map();
        expect_agree(d, "long texts", t);
    }
    std::printf("xml encode: %d runs, %d written, %d refused, %d with fallbacks\n", t.runs, t.ok,
                t.errors, t.lossy);
}

// Seeded random documents from hostile pieces.
class generator {
public:
    explicit generator(std::uint64_t seed) : rng_(seed) {}

    void value(builder& b, int depth) {
        std::size_t pick = rng_.below(depth > 5 ? 12 : 16);
        switch (pick) {
            case 0: b.add_null(); break;
            case 1: b.add_bool(rng_.below(2) == 1); break;
            case 2: b.add_int(static_cast<std::int64_t>(rng_.next()) >> rng_.below(64)); break;
            case 3: b.add_uint(rng_.next() | (std::uint64_t{1} << 63)); break;
            case 4: b.add_double(doubles[rng_.below(std::size(doubles))]); break;
            case 5:
            case 6:
            case 7: b.add_string(text()); break;
            case 8: b.add_bytes(text()); break;
            case 9: {
                std::size_t r = rng_.below(3);
                if (r == 0) {
                    b.add_bignum("98765432109876543210");
                } else if (r == 1) {
                    b.add_timestamp("2001-02-03", timestamp_kind::local_date);
                } else {
                    b.begin_tagged(rng_.below(100));
                    value(b, depth + 1);
                }
                break;
            }
            case 10:
            case 11: b.add_int(static_cast<std::int64_t>(rng_.below(1000)) - 500); break;
            case 12:
            case 13: {
                b.begin_array();
                std::size_t n = sizes[rng_.below(std::size(sizes))];
                for (std::size_t k = 0; k < n; ++k) {
                    value(b, depth + 1);
                }
                b.end_array();
                break;
            }
            default: map(b, depth); break;
        }
    }

    void map(builder& b, int depth) {
        b.begin_map();
        std::size_t n = sizes[rng_.below(std::size(sizes))];
        for (std::size_t k = 0; k < n; ++k) {
            if (rng_.below(40) == 0) {
                b.add_int(static_cast<std::int64_t>(rng_.below(10)));
            } else {
                b.add_string(keys[rng_.below(std::size(keys))]);
            }
            value(b, depth + 1);
        }
        b.end_map();
    }

private:
    std::string text() {
        std::string s;
        std::size_t parts = rng_.below(4);
        for (std::size_t k = 0; k < parts; ++k) {
            s += texts[rng_.below(std::size(texts))];
        }
        return s;
    }

    static constexpr const char* keys[] = {
        "a", "b", "item", "samples", "x", "a", "b", "name", "@a", "@b", "@", "#text", "#",
        "value", "_v", "", "1a", "a b", "\xC3\xA9t\xC3\xA9", "ns:x", "x-y.z", "{u}l", "_",
        "-bad", "\xE2\x80\xBF", "a\tb", "tags", "id",
    };
    static constexpr const char* texts[] = {
        "plain", "", "a&b", "<", ">", "\"'", "\r", "\n", "\t", "\x01", "\x1f",
        "\xEF\xBF\xBE", "\xEF\xBF\xBF", "\xEF\xBF\xBD", "\xEF\xBC\x81", "\xC3\xA9",
        "\xF0\x9F\x98\x80", "0123456789abcdef", "record-0000", "]]>", "&amp;", " ",
    };
    static constexpr double doubles[] = {
        0.0, -0.0, 1.0, 2.5, -17.5, 1e21, 1e-7, 123456.789, 1e300, 5e-324,
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(),
    };
    static constexpr std::size_t sizes[] = {0, 1, 1, 2, 2, 2, 3, 3, 4, 6};

    test::rng rng_;
};

TEST(XmlEncodeFastPath, RandomDocuments) {
    tally t;
    for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
        generator g(seed);
        document d;
        builder b(d);
        std::uint64_t shape = seed % 4;
        if (shape == 0) {
            g.value(b, 0);  // anything: root= or the lossy wrapper
        } else {
            // {"name": value}: the root element as most documents give it
            b.begin_map();
            b.add_string(shape == 1 ? "r" : shape == 2 ? "records" : "a b");
            if (seed % 8 == 1) {
                g.value(b, 1);
            } else {
                g.map(b, 1);
            }
            b.end_map();
        }
        expect_agree(d, "seed " + std::to_string(seed), t);
        if (::testing::Test::HasFailure()) {
            break;
        }
    }
    // Each kind of outcome is reached.
    EXPECT_GT(t.ok, 1000);
    EXPECT_GT(t.errors, 1000);
    EXPECT_GT(t.lossy, 1000);
    std::printf("xml encode: %d runs, %d written, %d refused, %d with fallbacks\n", t.runs, t.ok,
                t.errors, t.lossy);
}

}  // namespace
}  // namespace polycodec
