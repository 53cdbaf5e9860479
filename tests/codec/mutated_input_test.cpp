// Hostile inputs for every format with a fixture: deterministic mutations of valid inputs
// (tests/support/mutate.hpp) either decode or fail cleanly, never crash, hang or read past the
// input (each input is copied to an exact-size heap buffer, so the asan preset sees an
// over-read). On failure the error has a code, a message and an offset inside the input.
// Per format, as the six per-format copies this test replaced asserted: every strict prefix
// fails (smile, ubjson), what decodes re-encodes stably (bson, bencode), and some mutations
// still decode (bson, bencode, pickle, postcard).
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "polycodec/formats/postcard.hpp"
#include "support/mutate.hpp"
#include "support/support.hpp"

namespace polycodec::test {
// The CPython pickles of pickle_test.cpp's decode table.
std::vector<std::string> cpython_pickles();
}  // namespace polycodec::test

namespace polycodec {
namespace {

using test::hex;
using test::to_hex;

enum class reencode {
    none,
    stable,  ///< what decodes encodes (eopt), that decodes (reopt), and encodes to the same bytes
};

decode_options no_options() { return {}; }

struct mutation_case {
    const char* name;
    format_id format;
    std::vector<std::string> (*seeds)();  // the unmutated inputs; the first one decodes
    std::uint64_t seed = 1;               // of the generator
    int rounds = 2000;
    int max_edits = 4;  // 1 to max_edits edits a round
    unsigned kinds = test::all_mutations;
    std::string_view pool = {};  // bytes inserted or written; empty: any byte
    bool prefixes_fail = false;  // every strict prefix of the first seed fails
    reencode check = reencode::none;
    int min_decoded = 0;  // at least this many mutated inputs decode
    decode_options (*dopt)() = no_options;
    encode_options eopt = {};
    decode_options reopt = {};
};

// A document with every kind of value (for the prefix and mutation runs of smile and ubjson).
document all_kinds() {
    document src = test::must_decode(
        format_id::json,
        "{\"a\":[1,-200,70000,5000000000,1.5,\"x\",\"\\u00e9t\\u00e9\",null,true,false],"
        "\"b\":{\"a\":{\"a\":[]}},\"c\":18446744073709551615,"
        "\"d\":123456789012345678901234567890,\"long\":\"" +
            std::string(80, 'z') + "\"}");
    document d;
    builder b(d);
    b.begin_array();
    b.add_copy(src.root());
    b.add_bytes(hex("00 01 02 03 04 05 06 07 08 09 fe ff"));
    b.begin_tagged(4);
    b.begin_array();
    b.add_int(-3);
    b.add_int(12345);
    b.end_array();
    b.end_array();
    return d;
}

std::vector<std::string> all_kinds_in(format_id f) {
    document d = all_kinds();
    std::string good = test::must_encode(f, d);
    EXPECT_TRUE(equal(d, test::must_decode(f, good)));
    return {good};
}
std::vector<std::string> smile_seeds() { return all_kinds_in(format_id::smile); }
std::vector<std::string> ubjson_seeds() { return all_kinds_in(format_id::ubjson); }

// One element of most BSON types (double, string, document, array, binary, ObjectId, UTC
// datetime, regex, DBPointer, code with scope, timestamp, decimal128, min/max key).
std::vector<std::string> bson_seeds() {
    return {
        test::bson_document(hex("01 61 00 00 00 00 00 00 00 f8 3f"
                                "02 62 00 03 00 00 00 c3 a9 00"
                                "03 63 00 0c 00 00 00 10 78 00 01 00 00 00 00"
                                "04 64 00 0c 00 00 00 08 30 00 01 0a 31 00 00"
                                "05 65 00 06 00 00 00 02 02 00 00 00 de ad"
                                "07 66 00 5f 1d 2c 3b 4a 59 68 77 86 95 a4 b3"
                                "09 67 00 00 00 00 00 00 00 00 00"
                                "0b 68 00 61 2b 00 69 00"
                                "0c 69 00 02 00 00 00 64 00 5f 1d 2c 3b 4a 59 68 77 86 95 a4 b3"
                                "0f 6a 00 16 00 00 00 02 00 00 00 79 00 0c 00 00 00 10 61 "
                                "00 01 00 00 00 00"
                                "11 6b 00 02 00 00 00 01 00 00 00"
                                "13 6c 00 d2 04 00 00 00 00 00 00 00 00 00 00 00 00 2c 30"
                                "7f 6d 00 ff 6e 00 06 6f 00"))};
}

std::vector<std::string> bencode_seeds() {
    return {"d4:infod6:lengthi123e4:name5:a.txt6:piecesl2:ab2:cdee1:xi-77e2:zzli0ei1e0:ee"};
}

// The records of records.json in its first 3000 bytes, as an array.
document some_records() {
    std::string json = test::read_file(test::fixtures_dir() / "records.json").substr(0, 3000);
    json = json.substr(0, json.rfind("},{") + 1) + "]";
    return test::must_decode(format_id::json, json);
}

std::vector<std::string> pickle_seeds() {
    std::vector<std::string> seeds = {test::must_encode(format_id::pickle, some_records())};
    for (auto& p : test::cpython_pickles()) {
        seeds.push_back(p);
    }
    return seeds;
}

std::shared_ptr<const postcard::schema> records_schema() {
    static auto s = [] {
        auto r = postcard::parse_schema(
            test::read_file(test::fixtures_dir() / "schemas" / "records.json"));
        EXPECT_TRUE(r) << (r ? "" : describe(r.error()));
        return r ? *r : nullptr;
    }();
    return s;
}
decode_options postcard_options() {
    decode_options o;
    o.schema = records_schema();
    return o;
}

// The first five records of records.json in postcard, with the fixtures' schema.
std::vector<std::string> postcard_seeds() {
    document d =
        test::must_decode(format_id::json, test::read_file(test::fixtures_dir() / "records.json"));
    document five;
    builder fb(five);
    fb.begin_array();
    int n = 0;
    for (value r : d.root().items()) {
        if (n++ < 5) {
            fb.add_copy(r);
        }
    }
    fb.end_array();
    encode_options eo;
    eo.schema = records_schema();
    std::string seed = test::must_encode(format_id::postcard, five, eo);
    EXPECT_TRUE(equal(test::must_decode(format_id::postcard, seed, postcard_options()), five));
    return {seed};
}

// The other formats with a fixture form in fixtures/: that file, as it is.
template <const char* Name>
std::vector<std::string> fixture() {
    std::string f = test::read_file(test::fixtures_dir() / Name);
    EXPECT_FALSE(f.empty()) << Name;
    return {f};
}
constexpr char records_json[] = "records.json";
constexpr char records_json5[] = "records.json5";
constexpr char records_hjson[] = "records.hjson";
constexpr char records_yaml[] = "records.yaml";
constexpr char records_ron[] = "records.ron";
constexpr char records_sexp[] = "records.sexp";
constexpr char records_cbor[] = "records.cbor";
constexpr char records_msgpack[] = "records.msgpack";
constexpr char bench_toml[] = "bench.toml";  // (records.json has nulls, which TOML lacks)
constexpr char records_edn[] = "records.edn";
// The first 100 lines of fixtures/bench.properties (records.json has nulls), plus one of each
// escape, continuation and comment form.
std::vector<std::string> properties_seeds() {
    std::string f = test::read_file(test::fixtures_dir() / "bench.properties");
    std::size_t end = 0;
    for (int i = 0; i < 100 && end != std::string::npos; ++i) {
        end = f.find('\n', end + 1);
    }
    EXPECT_NE(end, std::string::npos);
    std::string seed = f.substr(0, end + 1);
    seed +=
        "# c\n! c\nk\\ e\\=y : v\\u00e9\\uD83D\\uDE00\\t\\\\ \\\r\n   more\\\n\tend\r"
        "fruits apple, \\\r  kiwi\n\\\n#x\nlast\\";
    return {seed};
}

decode_options properties_nested() {
    decode_options o;
    o.unflatten = true;
    o.infer = true;
    return o;
}

encode_options lossy_encode() {
    encode_options o;
    o.lossy = true;  // bencode: duplicate keys are dropped
    return o;
}
decode_options canonical_decode() {
    decode_options o;
    o.canonical = true;
    return o;
}

constexpr unsigned edit_bytes = test::overwrite | test::erase | test::insert | test::truncate;

using seeds_fn = std::vector<std::string> (*)();

// smile and ubjson: 3000 rounds of 1 to 3 overwrites; every strict prefix of the seed fails.
mutation_case strict_prefixes(const char* name, format_id f, seeds_fn seeds) {
    return {.name = name,
            .format = f,
            .seeds = seeds,
            .seed = 12345,
            .rounds = 3000,
            .max_edits = 3,
            .kinds = test::overwrite,
            .prefixes_fail = true};
}

// pickle and postcard: 20000 rounds of 1 to 4 byte edits, of which at least one decodes.
mutation_case byte_edits(const char* name, format_id f, seeds_fn seeds, std::uint64_t seed,
                         decode_options (*dopt)() = no_options) {
    return {.name = name,
            .format = f,
            .seeds = seeds,
            .seed = seed,
            .rounds = 20000,
            .kinds = edit_bytes,
            .min_decoded = 1,
            .dopt = dopt};
}

// Java properties, flat (what decodes re-encodes stably, 100 of them at least) or `nested`
// (decoded with unflatten and infer).
mutation_case properties_case(const char* name, std::uint64_t seed, bool nested) {
    mutation_case c{
        .name = name, .format = format_id::properties, .seeds = properties_seeds, .seed = seed};
    if (nested) {
        c.dopt = properties_nested;
    } else {
        c.check = reencode::stable;
        c.min_decoded = 100;
    }
    return c;
}

const mutation_case cases[] = {
    strict_prefixes("smile", format_id::smile, smile_seeds),
    strict_prefixes("ubjson", format_id::ubjson, ubjson_seeds),
    {.name = "bson",
     .format = format_id::bson,
     .seeds = bson_seeds,
     .seed = 12345,
     .rounds = 20000,
     .kinds = test::overwrite | test::flip | test::truncate | test::insert,
     .check = reencode::stable,
     .min_decoded = 11},
    {.name = "bencode",
     .format = format_id::bencode,
     .seeds = bencode_seeds,
     .seed = 777,
     .rounds = 20000,
     .max_edits = 3,
     .kinds = test::overwrite | test::truncate | test::insert,
     .pool = "ild e0123456789:-x",
     .check = reencode::stable,
     .min_decoded = 11,
     .eopt = lossy_encode(),
     .reopt = canonical_decode()},
    byte_edits("pickle", format_id::pickle, pickle_seeds, 0x9e3779b97f4a7c15ull),
    byte_edits("postcard", format_id::postcard, postcard_seeds, 0x243f6a8885a308d3ull,
               postcard_options),
    // The other formats with a fixture form in fixtures/ (records.* or bench.*): 2000 rounds of
    // 1 to 4 edits of every kind.
    {.name = "json", .format = format_id::json, .seeds = fixture<records_json>, .seed = 1},
    {.name = "json5", .format = format_id::json5, .seeds = fixture<records_json5>, .seed = 2},
    {.name = "hjson", .format = format_id::hjson, .seeds = fixture<records_hjson>, .seed = 3},
    {.name = "yaml", .format = format_id::yaml, .seeds = fixture<records_yaml>, .seed = 4},
    {.name = "ron", .format = format_id::ron, .seeds = fixture<records_ron>, .seed = 5},
    {.name = "sexpr", .format = format_id::sexpr, .seeds = fixture<records_sexp>, .seed = 6},
    {.name = "cbor", .format = format_id::cbor, .seeds = fixture<records_cbor>, .seed = 7},
    {.name = "msgpack", .format = format_id::msgpack, .seeds = fixture<records_msgpack>, .seed = 8},
    {.name = "toml", .format = format_id::toml, .seeds = fixture<bench_toml>, .seed = 9},
    {.name = "edn", .format = format_id::edn, .seeds = fixture<records_edn>, .seed = 10},
    properties_case("properties", 11, false),
    properties_case("properties_nested", 12, true),
};

void PrintTo(const mutation_case& c, std::ostream* os) { *os << c.name; }

class MutatedInput : public ::testing::TestWithParam<mutation_case> {};

TEST_P(MutatedInput, DecodesOrFailsCleanly) {
    const mutation_case& c = GetParam();
    const decode_options dopt = c.dopt();
    const std::vector<std::string> seeds = c.seeds();
    ASSERT_FALSE(seeds.empty());
    ASSERT_FALSE(seeds[0].empty());
    {
        // The first seed decodes unmutated (pickle's further seeds include DUP, an error).
        document d;
        auto r = decode(c.format, seeds[0], d, dopt);
        ASSERT_TRUE(r) << describe(r.error());
    }
    if (c.prefixes_fail) {
        const std::string& good = seeds[0];
        for (std::size_t n = 0; n < good.size(); ++n) {
            document out;
            auto r = decode(c.format, std::string_view(good).substr(0, n), out, dopt);
            ASSERT_FALSE(r) << "prefix " << n;
            EXPECT_LE(r.error().offset, n);
        }
    }
    test::rng g(c.seed);
    int decoded = 0;
    for (int round = 0; round < c.rounds; ++round) {
        std::string in = seeds[g.below(seeds.size())];
        test::mutate(in, g, c.kinds, c.max_edits, c.pool);
        // Copy to an exact-size heap buffer so that ASan sees any over-read.
        std::unique_ptr<char[]> buf(new char[in.size() + 1]);
        std::memcpy(buf.get(), in.data(), in.size());
        document d;
        auto r = decode(c.format, std::string_view(buf.get(), in.size()), d, dopt);
        if (!r) {
            EXPECT_NE(r.error().code, errc::ok) << to_hex(in);
            EXPECT_LE(r.error().offset, in.size()) << to_hex(in);
            EXPECT_FALSE(r.error().message.empty()) << to_hex(in);
            continue;
        }
        ++decoded;
        if (c.check == reencode::stable) {
            output_buffer out;
            auto w = encode(c.format, d, out, c.eopt);
            ASSERT_TRUE(w) << describe(w.error()) << "\n" << to_hex(in);
            // Our own output decodes, and encoding that again gives the same bytes (the first
            // encode may normalise, e.g. sort keys or regex options).
            document back;
            ASSERT_TRUE(decode(c.format, out.view(), back, c.reopt)) << to_hex(out.view());
            output_buffer again;
            ASSERT_TRUE(encode(c.format, back, again));
            EXPECT_EQ(to_hex(again.view()), to_hex(out.view()));
        }
    }
    EXPECT_GE(decoded, c.min_decoded);
}

INSTANTIATE_TEST_SUITE_P(Formats, MutatedInput, ::testing::ValuesIn(cases),
                         [](const ::testing::TestParamInfo<mutation_case>& i) {
                             return std::string(i.param.name);
                         });

}  // namespace
}  // namespace polycodec
