// Fast path vs ordinary reader (issue 15 item 1): the codecs with two readers — MessagePack,
// CBOR, UBJSON, BSON, bencode and postcard (a one-pass loop writing the tape through
// detail::tape_writer, then the ordinary reader for whatever it refuses) — must give equal
// documents, or the same error code and offset, on every input. Bencode's, postcard's and
// BSON's fast encoders vs their writers: the same bytes for every document decoded here. JSON's
// simdjson paths vs its own reader: json_test.cpp (JsonConformance.FastPathAgreesWithOwnReader,
// JsonTapeFastPath.*). NDJSON's simdjson document stream vs its own line-by-line reader:
// FastPathAgreement.Ndjson.
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

#include "detail/text_reader.hpp"
#include "formats/formats.hpp"
#include "polycodec/formats/postcard.hpp"
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
outcome reader_only(const detail::codec_functions& codec, std::string_view in, document& out,
                    const decode_options& opt = {}) {
    builder b(out);
    b.reset();
    b.begin_array();
    auto r = codec.decode(in, b, opt);
    if (!r) {
        return {false, r.error().code, r.error().offset};
    }
    b.end_array();
    return {true, errc::ok, 0};
}

// The same through a depth limit past tape_sink_max_depth, which keeps the tape path out too,
// for a reader that resets its builder (hjson retries a braceless root as a single value);
// `out` holds the value itself.
outcome reader_only_deep(const detail::codec_functions& codec, std::string_view in,
                         document& out) {
    build_limits deep;
    deep.max_depth = static_cast<std::uint32_t>(detail::tape_sink_max_depth) + 1;
    builder b(out, deep);
    b.reset();
    auto r = codec.decode(in, b, decode_options{});
    if (!r) {
        return {false, r.error().code, r.error().offset};
    }
    return {true, errc::ok, 0};
}

struct agreement {
    int inputs = 0;
    int fast_ok = 0;  // decoded (the fast path takes almost all of these)
    int errors = 0;
    int encoded = 0;  // written back the same by the fast encoder and the writer
};

// The encoder's writer alone: the document under a (CBOR) tag, which the fast encoders hand
// to their writer, whose lossy=allow writes the inner value (tag_dropped) with the same
// recursive writer. Empty when that fails.
std::string writer_only(format_id f, const document& d, encode_options opt) {
    document wrapped;
    builder b(wrapped);
    b.begin_tagged(2);
    b.add_copy(d.root());
    opt.lossy = true;
    output_buffer out;
    if (!encode(f, wrapped, out, opt)) {
        return {};
    }
    std::string bytes(out.view());
    if (f == format_id::bson) {
        // BSON's writer puts a root that is no document under "root": {"root": d} is the
        // document's own bytes after a 4-byte length, 03 "root" 00, before the closing 00.
        const std::string head("\x03root\x00", 6);
        if (bytes.size() < 11 || bytes.compare(4, 6, head) != 0 || bytes.back() != '\0') {
            return "not under root: " + bytes;
        }
        return bytes.substr(10, bytes.size() - 11);
    }
    return bytes;
}

// With `enc`: the decoded document is also written by the encoder (its fast path first) and
// by its writer alone, which must give the same bytes (or both fail).
void check_agreement(format_id f, const detail::codec_functions& codec, std::string_view in,
                     agreement& tally, const decode_options& opt = {},
                     const encode_options* enc = nullptr, bool deep = false) {
    ++tally.inputs;
    document fast, own;
    auto rf = decode(f, in, fast, opt);
    outcome ro = deep ? reader_only_deep(codec, in, own) : reader_only(codec, in, own, opt);
    ASSERT_EQ(static_cast<bool>(rf), ro.ok) << test::to_hex(in.substr(0, 64));
    if (rf) {
        ++tally.fast_ok;
        if (!deep) {
            ASSERT_EQ(own.root().size(), 1u);
        }
        EXPECT_TRUE(equal(fast.root(), deep ? own.root() : *own.root().items().begin()))
            << test::to_hex(in.substr(0, 64)) << "\n"
            << dbg(fast).substr(0, 200);
        if (enc != nullptr) {
            output_buffer out;
            std::string ours = encode(f, fast, out, *enc) ? std::string(out.view()) : "";
            EXPECT_EQ(test::to_hex(ours), test::to_hex(writer_only(f, fast, *enc)))
                << test::to_hex(in.substr(0, 64));
            tally.encoded += !ours.empty();
        }
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
                   const std::vector<std::string>& valid, const decode_options& opt = {},
                   const encode_options* enc = nullptr, int min_each = 100, bool deep = false) {
    agreement tally;
    for (const std::string& in : valid) {
        check_agreement(f, codec, in, tally, opt, enc, deep);
        const int n = in.size() < 64 ? 20 : in.size() > 4096 ? 100 : 200;
        for (const std::string& m : mutations(in, n, in.size() + 1)) {
            check_agreement(f, codec, m, tally, opt, enc, deep);
        }
    }
    if (enc != nullptr) {
        EXPECT_GE(tally.encoded, min_each) << tally.inputs;
    }
    // Neither side is vacuous: both outcomes occur many times.
    EXPECT_GE(tally.fast_ok, min_each) << tally.inputs;
    EXPECT_GE(tally.errors, min_each) << tally.inputs;
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
    const encode_options enc;
    run_agreement(format_id::bson, detail::bson_codec, valid, {}, &enc);
}

TEST(FastPathAgreement, Bencode) {
    std::vector<std::string> valid;
    // The bench rows' data, and records.json as lossy=allow writes it (unsorted keys sorted).
    valid.push_back(test::must_encode(
        format_id::bencode,
        test::must_decode(format_id::json,
                          test::read_file(test::fixtures_dir() / "bench_bencode.json"))));
    encode_options lossy;
    lossy.lossy = true;
    valid.push_back(test::must_encode(
        format_id::bencode,
        test::must_decode(format_id::json, test::read_file(test::fixtures_dir() / "records.json")),
        lossy));
    // What the fast path hands to the reader (unsorted and duplicate keys, bignums, integers of
    // 19 digits, leading zeros, -0, invalid UTF-8, nesting past 64) next to what it takes
    // (hand-written, BEP 3).
    for (const std::string& h :
         {std::string("d1:ai1e1:bl1:x2:yyi-42ee1:cdee"), std::string("d1:bi1e1:ai2ee"),
          std::string("d1:ai1e1:ai2ee"), std::string("li123456789012345678901234567890ei-7ee"),
          std::string("li1234567890123456789ei123456789012345678ei-999999999999999999ee"),
          std::string("li-9223372036854775808ei9223372036854775807ei18446744073709551615ee"),
          std::string("li03ei-0ei0e03:abce"),
          std::string("l2:\xff\xfe"
                      "3:\xc3\xa9"
                      "xe"),
          std::string("di1e1:xe"),
          std::string("d0:0:1:\xff"
                      "0:e"),
          std::string("l32:0123456789abcdef0123456789abcdef33:0123456789abcdef0123456789abcdefge"),
          std::string(70, 'l') + std::string(70, 'e'), std::string(60, 'l') + std::string(60, 'e'),
          std::string("lledee"), std::string("d1:ad1:bd1:cleeee")}) {
        valid.push_back(h);
    }
    const encode_options enc;
    run_agreement(format_id::bencode, detail::bencode_codec, valid, {}, &enc);
}

// A NamedType whose name is its type tag, e.g. prim("U16").
std::string prim(const std::string& tag) {
    return R"({"name":")" + tag + R"(","ty":")" + tag + R"("})";
}

TEST(FastPathAgreement, Postcard) {
    // Every type of the data model in one struct (docs/formats/postcard.md), with what the
    // fast paths hand to the reader and the writer (Char, U128, I128, F32 on write, enums,
    // integer map keys as text, bytes from base64) next to what they take.
    const std::string shape = R"({"name":"Shape","ty":{"Enum":[
        {"name":"Empty","ty":"UnitVariant"},
        {"name":"Circle","ty":{"NewtypeVariant":{"name":"f32","ty":"F32"}}},
        {"name":"Line","ty":{"TupleVariant":[{"name":"u8","ty":"U8"},{"name":"u8","ty":"U8"}]}},
        {"name":"Rect","ty":{"StructVariant":[{"name":"w","ty":{"name":"u8","ty":"U8"}},
                                              {"name":"h","ty":{"name":"u8","ty":"U8"}}]}}]}})";
    std::string fields;
    auto field = [&fields](const std::string& name, const std::string& ty) {
        fields += (fields.empty() ? "" : ",") + std::string(R"({"name":")") + name + R"(","ty":)" +
                  ty + "}";
    };
    for (const char* t : {"Bool", "I8", "U8", "I16", "I32", "I64", "U16", "U32", "U64", "Usize",
                          "Isize", "F64", "String", "ByteArray", "Unit", "UnitStruct"}) {
        field(t, prim(t));
    }
    field("opt", R"({"name":"Option<u8>","ty":{"Option":)" + prim("U8") + "}}");
    field("opt2", R"({"name":"Option<String>","ty":{"Option":)" + prim("String") + "}}");
    field("nt", R"({"name":"Meters","ty":{"NewtypeStruct":)" + prim("U32") + "}}");
    field("seq", R"({"name":"Vec<i32>","ty":{"Seq":)" + prim("I32") + "}}");
    field("units", R"({"name":"Vec<()>","ty":{"Seq":)" + prim("Unit") + "}}");
    field("tup", R"({"name":"T","ty":{"Tuple":[)" + prim("U8") + "," + prim("Bool") + "]}}");
    field("ts", R"({"name":"TS","ty":{"TupleStruct":[)" + prim("I16") + "," + prim("F64") + "]}}");
    field("m", R"({"name":"M","ty":{"Map":{"key":)" + prim("String") + R"(,"val":)" + prim("U8") +
                   "}}}");
    field("mi", R"({"name":"MI","ty":{"Map":{"key":)" + prim("U16") + R"(,"val":)" +
                    prim("String") + "}}}");
    const std::string fast_schema = R"({"name":"All","ty":{"Struct":[)" + fields + "]}}";
    const std::string fast_json = R"({"Bool":true,"I8":-5,"U8":200,"I16":-300,"I32":-70000,
        "I64":-9223372036854775808,"U16":65535,"U32":4000000000,"U64":18446744073709551615,
        "Usize":300,"Isize":-1,"F64":-2.25e300,"String":"héllo, a string longer than 32 bytes",
        "ByteArray":"AQID","Unit":null,"UnitStruct":null,"opt":null,"opt2":"x","nt":42,
        "seq":[1,-2,300,-70000],"units":[null,null,null],"tup":[7,false],"ts":[-1,0.5],
        "m":{"a":1,"b":2},"mi":{"1":"x","65535":"y"}})";
    field("c", prim("Char"));
    field("big", prim("U128"));
    field("ibig", prim("I128"));
    field("f32", prim("F32"));
    field("shape", shape);
    field("shapes", R"({"name":"Vec<Shape>","ty":{"Seq":)" + shape + "}}");
    const std::string all_schema = R"({"name":"All","ty":{"Struct":[)" + fields + "]}}";
    std::string all_json = fast_json;
    all_json.pop_back();
    all_json += R"(,"c":"é","big":340282366920938463463374607431768211455,"ibig":-5,
        "f32":1.5,"shape":{"Rect":{"w":5,"h":6}},
        "shapes":["Empty",{"Circle":1.0},{"Line":[3,4]},{"Rect":{"w":1,"h":2}}]})";
    for (const auto& [schema_json, json] :
         {std::pair{fast_schema, fast_json}, std::pair{all_schema, all_json}}) {
        auto s = postcard::parse_schema(schema_json);
        ASSERT_TRUE(s) << describe(s.error());
        encode_options enc;
        enc.schema = *s;
        decode_options opt;
        opt.schema = *s;
        const std::string bytes =
            test::must_encode(format_id::postcard, test::must_decode(format_id::json, json), enc);
        run_agreement(format_id::postcard, detail::postcard_codec, {bytes}, opt, &enc, 20);
    }
    // The fixtures with their schemas.
    for (const char* name : {"bench", "records"}) {
        auto s = postcard::parse_schema(
            test::read_file(test::fixtures_dir() / "schemas" / (std::string(name) + ".json")));
        ASSERT_TRUE(s) << describe(s.error());
        encode_options enc;
        enc.schema = *s;
        decode_options opt;
        opt.schema = *s;
        run_agreement(format_id::postcard, detail::postcard_codec,
                      {test::read_file(test::fixtures_dir() / (std::string(name) + ".postcard"))},
                      opt, &enc, 20);
    }
}

// The text decoders on the shared skeleton (detail/text_reader.hpp): the tape_sink run vs the
// same reader on the builder (reader_only's open array keeps the tape path out). The inputs:
// generated ones, the fixtures encoded as `f`, the corpus folder `corpus_sub`, then `extra`.
std::vector<std::string> text_inputs(format_id f, const char* corpus_sub,
                                     std::initializer_list<const char*> extra) {
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
    for (const char* t : extra) {
        valid.emplace_back(t);
    }
    return valid;
}

TEST(FastPathAgreement, Json5) {
    std::vector<std::string> valid =
        text_inputs(format_id::json5, "json5",
                    {"{a:1,'b':\"\\u00e9\\n\",c:[+1,-0x10,.5,5.,Infinity,-NaN,1e3],}",
                     "[\"a\\\nb\", 'x\\x41', 12345678901234567890123, -9223372036854775808]",
                     "// c\n/* d */ {\u0061b: null, $_: true, \u00e9t\u00e9: false}"});
    run_agreement(format_id::json5, detail::json5_codec, valid);
}

// Hjson: the fast key and integer scans (bytes straight to ':', integers before a line break
// or ',' '}' ']' '#') next to what they leave to the general loop (white space before ':',
// leading zeros, 19 digits, floats, '/' inside a value, comments), braceless roots, a root
// scalar, ''' strings.
TEST(FastPathAgreement, Hjson) {
    std::vector<std::string> valid =
        text_inputs(format_id::hjson, "hjson",
                    {"{a: 1, b#c: -0, d : 01\n e: 1234567890123456789\n f: [1,2 ,3]\n}",
                     "a: 1.\nb: 1.5e3 # c\nc: x/y // d\nd: 5/* e */\ne: -12x\nf: true \n",
                     "{k: '''\n  two\n   lines\n  '''\n q: \"q\\n\", r: 'r'\n s: null,t:false}",
                     "[\n  1\n  -2\n  +3\n  007\n  99999999999999999999999\n  {}\n  []\n]", "42",
                     "  nul l ", "x: {y: {z: [1, {w: 2}]}}"});
    run_agreement(format_id::hjson, detail::hjson_codec, valid, {}, nullptr, 100, true);
}

TEST(FastPathAgreement, Edn) {
    std::vector<std::string> valid = text_inputs(
        format_id::edn, nullptr,
        {"{:a 1, :b/c \"x\\ny\", \"k\" [1 -2 +3 4N 5.5 6M 1e3 ##Inf]}",
         "(#inst \"2020-01-01T00:00:00Z\" #uuid \"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\")",
         "#{1 2} #_ [ignored] ; c\n{nil true, false \\a}",
         "[#cbor/tag1 5 #bson/tag19 \"1.5\" #my/tag {:x 1} 12345678901234567890123]"});
    run_agreement(format_id::edn, detail::edn_codec, valid);
}

TEST(FastPathAgreement, Ron) {
    std::vector<std::string> valid = text_inputs(
        format_id::ron, "ron",
        {"#![enable(implicit_some)] (a: 1, b: Some(\"x\"), c: None, d: [1, 2_000, 0x1F, -0b101, "
         "0o17, 1.5e3, .5, 5., inf, -NaN, 1f32, 255u8, +7, -0, 1e400, 1e-400])",
         "{\"k\": Point(x: 1.0, y: -2.0), \"v\": Variant(1, \"two\", (3, 4)), \"n\": N([1,2]), "
         "\"u\": Unit, \"r\": 1..=5, \"h\": ..3, \"e\": E(), \"t\": (), 7: 1 .. 2}",
         "[r#\"raw \"str\"\"#, b\"by\\x00\\xff\", br\"raw\", 'c', '\\u{1F600}', b'a', "
         "\"e\\n\\t\\\"\\\\\\u{e9}\\x41\", r#na.me, /* c /* n */ */ // l\n "
         "123456789012345678901234567890, -9223372036854775808, 0xFFFFFFFFFFFFFFFFFF]"});
    run_agreement(format_id::ron, detail::ron_codec, valid);
}

TEST(FastPathAgreement, Sexpr) {
    std::vector<std::string> valid = text_inputs(
        format_id::sexpr, nullptr,
        {"((a . 1) (b . \"x\\ny\") (\"k\" . #(1 -2 +3 4.5 1e3 +inf.0 -nan.0 #xFF #b101 #e1.0 "
         "#i3)))",
         "#(#t #f #true #false #nil #\\a #\\space #\\x41 |sym bol| #{brace sym}# #u8(1 2 255) "
         "#vu8())",
         "; c\n#| n #| c |# |# #; (skipped . 1) ((k v1 v2) (z . ()) (() . 1.5))",
         "#(12345678901234567890123 -9223372036854775808 007 1. .5 -0.0 \"a\\x41;b\\u00e9\")"});
    run_agreement(format_id::sexpr, detail::sexpr_codec, valid);
}

// NDJSON: simdjson's document stream (json_read_lines) vs the own reader line by line. The
// fixtures' records one per line, and hand-written inputs at the edges of the one-value-per-line
// rule (values over two lines, two on one line, blank and CRLF lines, scalars, an unfinished
// last line, bignums, escapes, -0), each mutated.
TEST(FastPathAgreement, Ndjson) {
    std::vector<std::string> valid;
    for (const char* name : {"bench.json", "records.json"}) {
        document d =
            test::must_decode(format_id::json, test::read_file(test::fixtures_dir() / name));
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

// The default mapping's tape_sink run at the builder's limits: for each depth limit and each
// byte budget, the fast path and decode answer as expat with the builder alone (the tape run
// gives way to the builder where it stops). Some budgets and depths must pass the tree's
// checks and stop only at the document's, so that the tape run's fallback is what answers.
TEST(FastPathAgreement, XmlTapeLimits) {
    std::string attrs = "<r>";
    for (int i = 0; i < 12; ++i) {
        attrs += "<e a='" + std::to_string(i) + "' bb='x" + std::to_string(i) +
                 "' ccc='-1.5' dddd='true'/>";
    }
    attrs += "</r>";
    const std::vector<std::string> docs{
        attrs,
        "<r><x>1</x><x>2</x><y k='v'>t</y><x>3</x><z><w>a</w><w>b</w></z></r>",
        "<a><b><c><d><e>deep</e><e/></d></c></b><b>again</b></a>",
        "<r>" + std::string(5000, 'x') + "</r>",
        "<r><s>" + std::string(4100, 'y') + "</s><s/><t u='" + std::string(300, 'z') + "'/></r>",
    };
    int emit_size = 0;
    int emit_depth = 0;
    // Both paths agree on `doc` under `o`; `count` gains one when the emitting path itself
    // (not handed off) fails with `code`.
    auto check = [](const std::string& doc, const decode_options& o, const std::string& limit,
                    errc code, int& count) {
        ASSERT_EQ(test::xml_paths_disagree(doc, o), "") << doc << "\n" << limit;
        document d;
        bool handed_off = false;
        test::xml_run r = test::xml_decode_with(2, doc, d, o, &handed_off);
        count += !r.ok && !handed_off && r.err.code == code;
    };
    for (const std::string& doc : docs) {
        for (int infer = 0; infer <= 1; ++infer) {
            for (std::size_t budget = 64; budget <= 12000; budget += budget < 2000 ? 8 : 256) {
                decode_options o;
                o.infer = infer == 1;
                o.limits.max_bytes = budget;
                ASSERT_NO_FATAL_FAILURE(check(doc, o, "max_bytes " + std::to_string(budget),
                                              errc::size_exceeded, emit_size));
            }
            for (std::uint32_t depth = 1; depth <= 8; ++depth) {
                decode_options o;
                o.infer = infer == 1;
                o.limits.max_depth = depth;
                ASSERT_NO_FATAL_FAILURE(check(doc, o, "max_depth " + std::to_string(depth),
                                              errc::depth_exceeded, emit_depth));
            }
        }
    }
    EXPECT_GE(emit_size, 10);
    EXPECT_GE(emit_depth, 5);
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

namespace polycodec::test {
// The CPython pickles of pickle_test.cpp's decode table.
std::vector<std::string> cpython_pickles();
}  // namespace polycodec::test

namespace polycodec {
namespace {

// A map of n distinct keys "k0".."k{n-1}", then a map repeating the keys `again` (the
// encoder's shared-name references: short below 64, long above, the table restarting at
// 1024), as JSON.
std::string many_keys(int n, std::initializer_list<int> again) {
    std::string json = "[{";
    for (int i = 0; i < n; ++i) {
        json += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
    }
    json += "},{";
    bool first = true;
    for (int k : again) {
        json += (first ? "\"k" : ",\"k") + std::to_string(k) + "\":[\"v\"]";
        first = false;
    }
    return json + "}]";
}

TEST(FastPathAgreement, Smile) {
    std::vector<std::string> valid = generated(format_id::smile);
    for (const char* name : {"bench.sml", "records.sml"}) {
        valid.push_back(test::read_file(test::fixtures_dir() / name));
    }
    for (const std::string& json : {many_keys(70, {3, 65, 69}), many_keys(1100, {5, 1050})}) {
        valid.push_back(test::must_encode(format_id::smile, test::must_decode(format_id::json, json)));
    }
    // What the fast path hands to the reader (big integers, BigDecimal, 7-bit and raw binary,
    // reserved tokens) next to what it takes: shared value references short and long, long
    // names and text, int32/int64/float32, the end marker, no header (hand-written, Smile 1.0).
    std::string values = "3a 29 0a 03 f8";
    for (int i = 0; i < 40; ++i) {
        values += " 41 61 " + std::string(1, "0123456789abcdef"[i / 16 % 16]) +
                  std::string(1, "0123456789abcdef"[i % 16]);
    }
    // 0x41 'a' <byte>: "a" + one of 0x00..0x27 (control bytes and ASCII).
    values += " 01 1f ec 1f ec 27 f9";
    for (const std::string& h : {values, std::string("3a 29 0a 03 f8 41 61 62 01 01 20 f9"),
                                 std::string("3a 29 0a 01 fa 34 6c 6f 6e 67 fc e0 78 79 fc 40 c2 fb"),
                                 std::string("fa 80 61 24 a0 81 62 62 25 0b 1d 1c 79 62 7f a4 fb ff"),
                                 std::string("3a 29 0a 00 f8 28 0b 7e 00 00 00 29 00 3f 70 00 00 00 00 00 00 00 f9"),
                                 std::string("3a 29 0a 00 f8 26 81 01 00 e8 81 20 01 2a 84 81 01 00 c2 f9"),
                                 std::string("3a 29 0a 04 f8 fd 83 01 02 03 21 f9"),
                                 std::string("3a 29 0a 00 fa 80 61 f8 f8 f9 fa fb f9 81 62 63 e4 c3 a9 fc fb")}) {
        valid.push_back(hex(h));
    }
    run_agreement(format_id::smile, detail::smile_codec, valid);
}

TEST(FastPathAgreement, Pickle) {
    std::vector<std::string> valid = generated(format_id::pickle);
    for (const char* name : {"bench.pickle", "records.pickle"}) {
        valid.push_back(test::read_file(test::fixtures_dir() / name));
    }
    for (const std::string& p : test::cpython_pickles()) {
        valid.push_back(p);
    }
    // Batches of 1000 (our encoder, as CPython's): a list of 2500 items, a dict of 1001.
    std::string list = "[", dict = "{";
    for (int i = 0; i < 2500; ++i) {
        list += (i ? "," : "") + std::to_string(i * 7919 - 5000000);
    }
    for (int i = 0; i < 1001; ++i) {
        dict += (i ? ",\"" : "\"") + std::to_string(i) + "\":[" + std::to_string(i) + "]";
    }
    for (const std::string& json : {list + "]", dict + "}"}) {
        valid.push_back(
            test::must_encode(format_id::pickle, test::must_decode(format_id::json, json)));
    }
    // Memo gets of scalars (taken) and of containers (the reader), PUTs of protocols 1-3,
    // EMPTY_TUPLE, sets, a tuple key, SHORT_BINSTRING as text and as bytes, LONG1 and LONG4
    // of up to 8 bytes and beyond (CPython's opcodes, hand-assembled).
    for (const char* h : {"8005 5d 94 28 8c 01 61 94 68 01 68 01 65 2e",
                          "8002 5d 71 00 28 58 01 00 00 00 61 71 01 4b 05 71 02 68 01 68 02 88 65 2e",
                          "8002 5d 71 00 28 4e 71 01 47 3f f8 00 00 00 00 00 00 72 02 00 00 00 6a 01 00 00 00 6a 02 00 00 00 65 2e",
                          "8005 5d 94 28 29 94 8f 94 28 4b 01 90 68 01 65 2e",
                          "8005 7d 94 28 29 4e 8c 01 61 94 68 01 75 2e",
                          "8002 5d 71 00 28 55 02 68 69 55 02 ff fe 8a 00 8a 02 ff 7f 8b 03 00 00 00 01 02 83 8a 09 00 00 00 00 00 00 00 00 01 65 2e",
                          "8005 7d 94 28 4b 01 7d 94 4b 02 5d 94 75 2e", "8005 7d 94 28 5d 94 4b 01 75 2e",
                          "8005 5d 94 28 5d 94 28 4b 01 4b 02 65 5d 94 4b 03 61 65 2e"}) {
        valid.push_back(hex(h));
    }
    run_agreement(format_id::pickle, detail::pickle_codec, valid);
}

// Binary plist: the one-pass reader (decode_bplist_fast) vs bplist_reader, and the tape walk
// of the binary writer vs its recursive writer (writer_only: lossy=allow under a tag sends the
// document to object()). Our encoder's output (objects in our order, no sharing), plistlib's
// bench fixture (shared scalars), the corpus' binary files (1- to 8-byte offsets and
// references, UIDs, cycles), and hand-written objects and edge layouts: tiny offset tables
// (the reader's bounds checks are not skipped there), counted lengths, long and UTF-16 keys,
// each mutated.
TEST(FastPathAgreement, PlistBinary) {
    encode_options bin;
    bin.plist_binary = true;
    std::vector<std::string> valid;
    std::vector<std::string> docs = {
        R"({"a":1})",
        R"([true,"a"])",
        R"({"a":[1,2.5,"x",true,false],"b":{"c":{}},"d":[]})",
        R"({"s":"h\u00e9llo \u65e5\u672c","long":"0123456789abcdef0123456789abcdef0123","n":-9223372036854775808,"u":18446744073709551615})",
        R"({"k":[[[[[[[[[[1]]]]]]]]]]})",
        R"({"x":1e300,"y":-0.0,"z":5e-324,"w":[{"a":{"b":[0,255,256,65535,65536,4294967296]}}]})",
        R"({"a key of more than fourteen":"v","\u00e9t\u00e9":"\ud83d\ude00","0123456789abcdef0123456789abcdefX":[]})",
    };
    // More than 255 objects (two-byte references and offsets), more than 65535 bytes (four-byte
    // offsets), and 15 or more elements (counted lengths).
    std::string many = "[", big = "{";
    for (int i = 0; i < 300; ++i) {
        many += (i ? ",\"s" : "\"s") + std::to_string(i) + "\"";
    }
    for (int i = 0; i < 800; ++i) {
        big += (i ? ",\"key" : "\"key") + std::to_string(i) + "\":\"" + std::string(90, 'a' + i % 26) +
               "\"";
    }
    docs.push_back(many + "]");
    docs.push_back(big + "}");
    for (const std::string& json : docs) {
        valid.push_back(test::must_encode(format_id::plist, test::must_decode(format_id::json, json), bin));
    }
    valid.push_back(test::must_encode(
        format_id::plist,
        test::must_decode(format_id::json, test::read_file(test::fixtures_dir() / "bench.json")),
        bin));
    valid.push_back(test::read_file(test::fixtures_dir() / "bench-binary.plist"));
    std::filesystem::path corpus = test::corpus_dir();
    if (!corpus.empty() && std::filesystem::exists(corpus / "plist")) {
        for (const auto& e : std::filesystem::recursive_directory_iterator(corpus / "plist")) {
            if (!e.is_regular_file()) {
                continue;
            }
            std::string bytes = test::read_file(e.path());
            if (bytes.rfind("bplist", 0) == 0) {
                valid.push_back(bytes);
            }
        }
    }
    // Every scalar (plist_test's DecodesEveryScalar), a dict that contains itself, a shared
    // string, a UID and a date in a dict, a 16-byte integer as the last object before a
    // 1-object table, 4-byte offsets with 1-byte references.
    valid.push_back(
        test::bplist00("ab 01 02 03 04 05 06 07 08 09 0a 0b 10 01 12 00 01 00 00 13 ff ff ff ff ff "
                       "ff ff fe 14 00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff 22 3f c0 00 "
                       "00 23 3f d0 00 00 00 00 00 00 33 3f f8 00 00 00 00 00 00 42 00 ff 62 00 "
                       "e9 26 3a 80 05 08 08 14 16 1b 24 35 3a 43 4c 4f 54 56",
                       1, 1, 12, 0, 87));
    valid.push_back(test::bplist00("d1 01 00 51 41 08 0b", 1, 1, 2, 0, 13));
    valid.push_back(test::bplist00("a3 01 01 01 51 41 08 0c", 1, 1, 2, 0, 14));
    valid.push_back(
        test::bplist00("d2 01 02 03 04 51 75 51 64 80 07 33 41 b0 00 00 00 00 00 00 "
                       "08 0d 0f 11 13",
                       1, 1, 5, 0, 28));
    valid.push_back(
        test::bplist00("14 80 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 08", 1, 1, 1, 0, 25));
    valid.push_back(test::bplist00("a1 01 09 00 00 00 08 00 00 00 0a", 4, 1, 2, 0, 11));
    agreement tally;
    int encoded = 0;
    for (const std::string& in : valid) {
        std::vector<std::string> inputs = mutations(in, in.size() > 4096 ? 100 : 200, in.size() + 7);
        inputs.insert(inputs.begin(), in);
        for (const std::string& m : inputs) {
            check_agreement(format_id::plist, detail::plist_codec, m, tally);
            document d;
            if (!decode(format_id::plist, m, d)) {
                continue;
            }
            // Without nulls the fast encoder takes it; both writers must give the same bytes.
            output_buffer out;
            if (encode(format_id::plist, d, out, bin)) {
                EXPECT_EQ(test::to_hex(out.view()), test::to_hex(writer_only(format_id::plist, d, bin)))
                    << test::to_hex(m.substr(0, 64));
                ++encoded;
            }
        }
    }
    EXPECT_GE(tally.fast_ok, 300) << tally.inputs;
    EXPECT_GE(tally.errors, 300) << tally.inputs;
    EXPECT_GE(encoded, 300);
    std::printf("plist binary: %d inputs, %d decoded, %d errors, %d encoded\n", tally.inputs,
                tally.fast_ok, tally.errors, encoded);
}

}  // namespace
}  // namespace polycodec
