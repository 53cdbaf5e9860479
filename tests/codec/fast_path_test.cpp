// Fast path vs ordinary reader (issue 15 item 1): the codecs with two readers — MessagePack,
// CBOR, UBJSON and BSON (a one-pass loop writing the tape through detail::tape_writer, then the ordinary reader
// for whatever it refuses) — must give equal documents, or the same error code and offset, on
// every input. JSON's simdjson paths vs its own reader: json_test.cpp
// (JsonConformance.FastPathAgreesWithOwnReader, JsonTapeFastPath.*). NDJSON's simdjson document
// stream vs its own line-by-line reader: FastPathAgreement.Ndjson.
//
// The ordinary reader alone: the codec's decode function called with a builder that already
// has an array open (the fast paths only take an empty builder at depth 0), the result being
// that array's one element. decode() tries the fast path first.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "formats/formats.hpp"
#include "support/support.hpp"
#include "support/xml_paths.hpp"

namespace polycodec {
namespace {

using test::dbg;
using test::hex;

struct outcome {
    bool ok = false;
    errc code = errc::ok;
    std::size_t offset = 0;
};

// The ordinary reader only; `out` holds [the value] on success.
outcome reader_only(const detail::codec_functions& codec, std::string_view in, document& out) {
    builder b(out);
    b.reset();
    b.begin_array();
    auto r = codec.decode(in, b, decode_options{});
    if (!r) {
        return {false, r.error().code, r.error().offset};
    }
    b.end_array();
    return {true, errc::ok, 0};
}

struct agreement {
    int inputs = 0;
    int fast_ok = 0;  // decoded (the fast path takes almost all of these)
    int errors = 0;
};

void check_agreement(format_id f, const detail::codec_functions& codec, std::string_view in,
                     agreement& tally) {
    ++tally.inputs;
    document fast, own;
    auto rf = decode(f, in, fast);
    outcome ro = reader_only(codec, in, own);
    ASSERT_EQ(static_cast<bool>(rf), ro.ok) << test::to_hex(in.substr(0, 64));
    if (rf) {
        ++tally.fast_ok;
        ASSERT_EQ(own.root().size(), 1u);
        EXPECT_TRUE(equal(fast.root(), *own.root().items().begin()))
            << test::to_hex(in.substr(0, 64)) << "\n"
            << dbg(fast).substr(0, 200);
    } else {
        ++tally.errors;
        EXPECT_EQ(rf.error().code, ro.code) << test::to_hex(in.substr(0, 64));
        EXPECT_EQ(rf.error().offset, ro.offset) << test::to_hex(in.substr(0, 64));
    }
}

// Mutations of a valid input: byte changes, truncations, inserted bytes (xorshift, fixed seed).
std::vector<std::string> mutations(const std::string& base, int n, std::uint64_t seed) {
    std::vector<std::string> out;
    std::uint64_t x = seed;
    auto next = [&x] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    for (int i = 0; i < n; ++i) {
        std::string m = base;
        switch (next() % 4) {
            case 0:
                m[next() % m.size()] = static_cast<char>(next());
                break;
            case 1:
                m.resize(next() % m.size());
                break;
            case 2:
                m.insert(next() % m.size(), 1, static_cast<char>(next()));
                break;
            default:  // a few bytes changed near each other
                for (std::size_t at = next() % m.size(), k = 0; k < 3 && at + k < m.size(); ++k) {
                    m[at + k] = static_cast<char>(next());
                }
        }
        out.push_back(std::move(m));
    }
    return out;
}

// Small documents of every kind the fast paths take, nested, encoded by our encoder.
std::vector<std::string> generated(format_id f) {
    const char* docs[] = {
        R"({"a":1})",
        R"({"a":[1,2.5,"x",true,false,null],"b":{"c":{}},"d":[]})",
        R"({"s":"h\u00e9llo \u65e5\u672c","long":"0123456789abcdef0123456789abcdef0123","n":-9223372036854775808,"u":9223372036854775807})",
        R"({"k":[[[[[[[[[[1]]]]]]]]]]})",
        R"({"x":1e300,"y":-0.0,"z":5e-324,"w":[{"a":{"b":[null]}}]})",
    };
    std::vector<std::string> out;
    for (const char* json : docs) {
        document d = test::must_decode(format_id::json, json);
        out.push_back(test::must_encode(f, d));
    }
    return out;
}

void run_agreement(format_id f, const detail::codec_functions& codec,
                   const std::vector<std::string>& valid) {
    agreement tally;
    for (const std::string& in : valid) {
        check_agreement(f, codec, in, tally);
        const int n = in.size() < 64 ? 20 : in.size() > 4096 ? 100 : 200;
        for (const std::string& m : mutations(in, n, in.size() + 1)) {
            check_agreement(f, codec, m, tally);
        }
    }
    // Neither side is vacuous: both outcomes occur many times.
    EXPECT_GE(tally.fast_ok, 100) << tally.inputs;
    EXPECT_GE(tally.errors, 100) << tally.inputs;
    std::printf("%s: %d inputs, %d decoded, %d errors\n", to_string(f).data(), tally.inputs,
                tally.fast_ok, tally.errors);
}

TEST(FastPathAgreement, Msgpack) {
    std::vector<std::string> valid = generated(format_id::msgpack);
    for (const char* name : {"bench.msgpack", "records.msgpack"}) {
        valid.push_back(test::read_file(test::fixtures_dir() / name));
    }
    // Container keys, timestamps, ext, bin, str8/16, the widths (hand-written).
    for (const char* h : {"81 92 01 02 03", "81 81 a1 62 01 a1 78", "d6 ff 00 00 00 01",
                          "d7 ff 00 00 00 04 00 00 00 01", "c7 03 05 61 62 63",
                          "c4 03 00 01 02", "d9 03 61 62 63", "da 00 01 61",
                          "93 cc ff cd ff ff ce ff ff ff ff",
                          "92 cf ff ff ff ff ff ff ff ff d3 80 00 00 00 00 00 00 00",
                          "92 ca 3f c0 00 00 cb 3f f8 00 00 00 00 00 00"}) {
        valid.push_back(hex(h));
    }
    std::filesystem::path corpus = test::corpus_dir();
    const char* suite_file = "msgpack/dist/msgpack-test-suite.json";
    if (!corpus.empty() && std::filesystem::exists(corpus / suite_file)) {
        document suite = test::must_decode(
            format_id::json, test::read_file(corpus / suite_file));
        for (auto [group, list] : suite.root().entries()) {
            for (value c : list.items()) {
                for (value form : c.find("msgpack").items()) {
                    valid.push_back(hex(form.get_string()));
                }
            }
        }
    }
    run_agreement(format_id::msgpack, detail::msgpack_codec, valid);
}

TEST(FastPathAgreement, Cbor) {
    std::vector<std::string> valid = generated(format_id::cbor);
    for (const char* name : {"bench.cbor", "records.cbor"}) {
        valid.push_back(test::read_file(test::fixtures_dir() / name));
    }
    // What the fast path hands to the reader (tags, bignums, indefinite lengths, simple values,
    // undefined) inside what it takes, and every head width (hand-written, RFC 8949).
    for (const char* h : {"a2 61 61 01 61 62 82 f9 3c 00 fa 3f c0 00 00",
                          "82 c1 1a 5f 5e 10 00 c2 49 01 00 00 00 00 00 00 00 00",
                          "83 3b ff ff ff ff ff ff ff ff 1b ff ff ff ff ff ff ff ff 3b 7f ff ff ff ff ff ff ff",
                          "a1 9f 01 02 ff bf 61 61 f7 ff", "82 7f 61 61 61 62 ff 5f 41 00 ff",
                          "84 f0 f8 20 f7 f9 7e 00", "83 18 18 19 01 00 1a 00 01 00 00",
                          "83 58 03 00 01 02 78 02 c3 a9 79 00 01 61",
                          "98 02 b9 00 01 01 02 9a 00 00 00 01 f6",
                          "a1 82 01 02 a1 f5 f4", "c0 74 32 30 31 33 2d 30 33 2d 32 31 54 32 30 3a 30 34 3a 30 30 5a"}) {
        valid.push_back(hex(h));
    }
    std::filesystem::path corpus = test::corpus_dir();
    const char* suite_file = "cbor/appendix_a.json";
    if (!corpus.empty() && std::filesystem::exists(corpus / suite_file)) {
        document suite =
            test::must_decode(format_id::json, test::read_file(corpus / suite_file));
        for (value c : suite.root().items()) {
            valid.push_back(hex(c.find("hex").get_string()));
        }
    }
    run_agreement(format_id::cbor, detail::cbor_codec, valid);
}

TEST(FastPathAgreement, Ubjson) {
    std::vector<std::string> valid = generated(format_id::ubjson);
    for (const char* name : {"bench.ubj", "records.ubj"}) {
        valid.push_back(test::read_file(test::fixtures_dir() / name));
    }
    // What the fast path hands to the reader (no-ops, '$' types, uncounted containers, C, H,
    // negative lengths) next to what it takes, every integer marker (hand-written, Draft 12).
    using namespace std::string_literals;
    for (const std::string& s : {"[#i\x03N" "i\x01" "C" "a" "Z"s, "{#i\x01i\x01" "a[$i#i\x02\x01\x02"s,
                          "[[i\x01" "T]{i\x01" "bF}]"s, "[#i\x02" "H" "i\x03" "1.5" "S" "i\xff"s,
                          "[#i\x05U\xffI\x01\x00l\x00\x01\x00\x00L\x80\x00\x00\x00\x00\x00\x00\x00" "d\x3f\xc0\x00\x00"s,
                          "{#U\x02i\x01" "aD\x3f\xf8\x00\x00\x00\x00\x00\x00" "i\x02" "\xc3\xa9" "S" "i\x01" "x"s,
                          "[#i\x01[$U#i\x02\x00\x01"s, "N[#i\x00"s}) {
        valid.push_back(s);
    }
    run_agreement(format_id::ubjson, detail::ubjson_codec, valid);
}

TEST(FastPathAgreement, Bson) {
    std::vector<std::string> valid = generated(format_id::bson);
    for (const char* name : {"bench.bson", "records.bson"}) {
        valid.push_back(test::read_file(test::fixtures_dir() / name));
    }
    run_agreement(format_id::bson, detail::bson_codec, valid);
}

// The text decoders on the shared skeleton (detail/text_reader.hpp): the tape_sink run vs the
// same reader on the builder (reader_only's open array keeps the tape path out).
std::vector<std::string> text_inputs(format_id f, const char* corpus_sub) {
    std::vector<std::string> valid = generated(f);
    for (const char* name : {"bench.json", "records.json", "ini_doc.json"}) {
        std::filesystem::path p = test::fixtures_dir() / name;
        if (!std::filesystem::exists(p)) {
            continue;
        }
        document d = test::must_decode(format_id::json, test::read_file(p));
        encode_options lossy;
        lossy.lossy = true;
        for (bool pretty : {false, true}) {
            lossy.pretty = pretty;
            output_buffer out;
            if (encode(f, d, out, lossy)) {
                valid.emplace_back(out.view());
            }
        }
    }
    std::filesystem::path corpus = test::corpus_dir();
    if (corpus_sub != nullptr && !corpus.empty() && std::filesystem::exists(corpus / corpus_sub)) {
        std::vector<std::filesystem::path> files;
        for (const auto& e : std::filesystem::recursive_directory_iterator(corpus / corpus_sub)) {
            if (e.is_regular_file() && e.path().extension() != ".md") {
                files.push_back(e.path());
            }
        }
        std::sort(files.begin(), files.end());
        for (const auto& p : files) {
            std::string text = test::read_file(p);
            if (!text.empty()) {  // mutations() needs a byte to change
                valid.push_back(std::move(text));
            }
        }
    }
    return valid;
}

TEST(FastPathAgreement, Json5) {
    std::vector<std::string> valid = text_inputs(format_id::json5, "json5");
    for (const char* t : {"{a:1,'b':\"\\u00e9\\n\",c:[+1,-0x10,.5,5.,Infinity,-NaN,1e3],}",
                          "[\"a\\\nb\", 'x\\x41', 12345678901234567890123, -9223372036854775808]",
                          "// c\n/* d */ {\u0061b: null, $_: true, \u00e9t\u00e9: false}"}) {
        valid.emplace_back(t);
    }
    run_agreement(format_id::json5, detail::json5_codec, valid);
}

TEST(FastPathAgreement, Edn) {
    std::vector<std::string> valid = text_inputs(format_id::edn, nullptr);
    for (const char* t : {"{:a 1, :b/c \"x\\ny\", \"k\" [1 -2 +3 4N 5.5 6M 1e3 ##Inf]}",
                          "(#inst \"2020-01-01T00:00:00Z\" #uuid \"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\")",
                          "#{1 2} #_ [ignored] ; c\n{nil true, false \\a}",
                          "[#cbor/tag1 5 #bson/tag19 \"1.5\" #my/tag {:x 1} 12345678901234567890123]"}) {
        valid.emplace_back(t);
    }
    run_agreement(format_id::edn, detail::edn_codec, valid);
}

// NDJSON: simdjson's document stream (json_read_lines) vs the own reader line by line. The
// fixtures' records one per line, and hand-written inputs at the edges of the one-value-per-line
// rule (values over two lines, two on one line, blank and CRLF lines, scalars, an unfinished
// last line, bignums, escapes, -0), each mutated.
TEST(FastPathAgreement, Ndjson) {
    std::vector<std::string> valid;
    for (const char* name : {"bench.json", "records.json"}) {
        document d = test::must_decode(format_id::json,
                                       test::read_file(test::fixtures_dir() / name));
        std::string all = test::must_encode(format_id::ndjson, d);  // a root array
        valid.push_back(all);
        // Three records at a time, from the first 24: inputs whose mutations often stay valid.
        std::size_t pos = 0;
        for (int k = 0; k < 8 && pos < all.size(); ++k) {
            std::size_t end = pos;
            for (int line = 0; line < 3 && end != std::string::npos; ++line) {
                end = all.find('\n', end == pos ? pos : end + 1);
            }
            end = end == std::string::npos ? all.size() : end + 1;
            valid.push_back(all.substr(pos, end - pos));
            pos = end;
        }
    }
    for (const char* in : {
             "1\n\"two\"\nnull\ntrue\nfalse\n[3]\n-0.5\n18446744073709551615\n-0\n0\n",
             "{\"a\":1}\n{\"b\":[1,{\"c\":\"d\\n\\u00e9\\ud83d\\ude00\"}]}\n",
             "{\"a\":1}\r\n\r\n  \t \n[2]\r\n  3  \n",
             "{\"a\":1}",                           // no final newline
             "1\n2 3\n", "[1,\n2]\n", "[1] [2]\n", "{}{}\n", "1\n{\"a\":\n",
             "123456789012345678901234567890\n[1e400]\n", "\"\\u0000\"\n\"x\"",
             "[1.7976931348623157e308,5e-324,-9223372036854775808,9223372036854775808]\n",
             "\n\n[]\n\n{}\n\n", "  \"a b\"  \n  \"c\"", "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]\n",
         }) {
        valid.push_back(in);
    }
    run_agreement(format_id::ndjson, detail::ndjson_codec, valid);
}

// XML: the one-pass scanner vs expat (tests/support/xml_paths.hpp), under each option set.
void run_xml_agreement(const std::vector<std::string>& inputs, bool mutate,
                       test::xml_paths_tally& tally) {
    std::vector<decode_options> opts = test::xml_paths_options();
    for (const std::string& in : inputs) {
        std::vector<std::string> all{in};
        if (mutate && !in.empty()) {
            std::vector<std::string> m = mutations(in, in.size() > 4096 ? 60 : 150, in.size() + 7);
            all.insert(all.end(), m.begin(), m.end());
        }
        for (const std::string& x : all) {
            for (const decode_options& o : opts) {
                std::string why = test::xml_paths_disagree(x, o, &tally);
                ASSERT_EQ(why, "") << test::to_hex(x.substr(0, 96)) << "\n"
                                   << x.substr(0, 200) << "\nordered " << o.xml.ordered
                                   << " lossy " << o.lossy;
            }
        }
    }
}

TEST(FastPathAgreement, Xml) {
    std::vector<std::string> valid{test::read_file(test::fixtures_dir() / "bench.xml")};
    // Each construct the fast path takes, and its neighbours that it leaves to expat.
    for (const char* in : {
             "<a/>", "<a>x</a>", "<a b='1' c=\"2\">t</a>", "<?xml version=\"1.0\"?><a/>",
             "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<a>\n</a>\n",
             "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>\xe9</a>",
             "\xef\xbb\xbf<a>bom</a>", "<a>&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;</a>",
             "<a b='&lt;&#9;x&#10;\ty\r\nz'/>", "<a><![CDATA[<x>&amp;]]]]><![CDATA[>]]></a>",
             "<a>x\r\ny\rz</a>", "<a><!-- c --><?p d?>t<?q?></a><!--after-->",
             "<!--before--><?pi x\r\ny?><r><x>1</x><x>2</x><y/></r>",
             "<a>mixed<b/>text</a>", "<a> <b>1</b> </a>", "<a>h\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80</a>",
             "<a:b xmlns:a='u'><a:c/></a:b>", "<a x='1' x='2'/>", "<a>]]></a>", "<a b='<'/>",
             "<a>\x01</a>", "<a>\xc0\xaf</a>", "<a>\xed\xa0\x80</a>", "<a>\xef\xbf\xbe</a>",
             "<a></b>", "<a>", "<a/><b/>", "x<a/>", "<a/>x", "<a>&foo;</a>", "<a>&#0;</a>",
             "<a>&#xD800;</a>", "<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>", "<a><!-- a--b --></a>",
             "<\xc3\xa9/>", "<a \xc3\xa9='1'/>", "<a b='1'c='2'/>", "<a/ >", "</a>", "",
             "<?xml version='1.0'?><?xml version='1.0'?><a/>", " <?xml version='1.0'?><a/>",
             "<a>\x7f\xc2\x85</a>", "<a><b><c><d><e/></d></c></b></a>", "<_.-:9 a.b-c='v'/>",
         }) {
        valid.push_back(in);
    }
    test::xml_paths_tally tally;
    run_xml_agreement(valid, true, tally);
    EXPECT_GE(tally.fast, 1000) << tally.inputs;
    EXPECT_GE(tally.handed_off, 100) << tally.inputs;
    EXPECT_GE(tally.errors, 1000) << tally.inputs;
    std::printf("xml: %d runs, %d by the fast path, %d handed off to expat, %d errors\n",
                tally.inputs, tally.fast, tally.handed_off, tally.errors);
}

// The W3C XML conformance suite (../shared/corpus/xml, zipped): every document in it.
TEST(FastPathAgreement, XmlConformanceCorpus) {
    POLYCODEC_REQUIRE_CORPUS("xml/xmlts20130923.zip", zip);
    std::filesystem::path tmp = std::filesystem::temp_directory_path() /
                                ("polycodec-xmlfast-" + std::to_string(::getpid()));
    std::filesystem::remove_all(tmp);
    std::filesystem::create_directories(tmp);
    std::string cmd = "unzip -q '" + zip.string() + "' -d '" + tmp.string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::vector<std::string> inputs;
    for (const auto& e : std::filesystem::recursive_directory_iterator(tmp)) {
        std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".xml" || ext == ".ent" || ext == ".dtd")) {
            inputs.push_back(test::read_file(e.path()));
        }
    }
    std::filesystem::remove_all(tmp);
    ASSERT_GE(inputs.size(), 2000u);
    test::xml_paths_tally tally;
    run_xml_agreement(inputs, false, tally);
    EXPECT_GE(tally.fast, 1000) << tally.inputs;
    EXPECT_GE(tally.handed_off, 1000) << tally.inputs;
    std::printf("xml conformance: %d runs, %d by the fast path, %d handed off, %d errors\n",
                tally.inputs, tally.fast, tally.handed_off, tally.errors);
}

}  // namespace
}  // namespace polycodec
