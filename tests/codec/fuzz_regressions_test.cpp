// Inputs the fuzzers found (tests/fuzz/regressions/<format>/*), replayed in the normal suite
// with the fuzz targets' property: whatever decodes re-encodes in its own format (a decoded
// value is always representable there) and decodes again to the same Document.
#include <filesystem>

#include "support/support.hpp"

namespace polycodec {
namespace {

TEST(FuzzRegressions, EveryFoundInputKeepsTheRoundTripProperty) {
    std::filesystem::path root = std::filesystem::path(POLYCODEC_SOURCE_DIR) / "tests" / "fuzz" /
                                 "regressions";
    int replayed = 0;
    for (const auto& dir : std::filesystem::directory_iterator(root)) {
        const format_info* f = find_format_by_name(dir.path().filename().string());
        ASSERT_NE(f, nullptr) << dir.path();
        for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
            std::string input = test::read_file(file.path());
            document doc;
            if (!decode(f->id, input, doc)) {
                ++replayed;
                continue;  // a clean error is fine
            }
            output_buffer out;
            auto w = encode(f->id, doc, out);
            ASSERT_TRUE(w) << file.path() << ": " << describe(w.error());
            document again;
            auto r = decode(f->id, out.view(), again);
            ASSERT_TRUE(r) << file.path() << ": " << describe(r.error());
            if (f->id == format_id::bencode) {
                // The encoder sorts keys (BEP 3): the encoding is stable instead.
                EXPECT_EQ(test::must_encode(f->id, again), out.str()) << file.path();
                ++replayed;
                continue;
            }
            EXPECT_TRUE(equal(doc, again)) << file.path() << "\n" << test::dbg(doc) << "\n"
                                           << test::dbg(again);
            ++replayed;
        }
    }
    EXPECT_GE(replayed, 2);
}

// fuzz_decode_json: simdjson 3.0.1's generic kernel read floats with 19 or more significant
// digits inside containers as 0.0.
TEST(FuzzRegressions, LongMantissaFloatsInContainersKeepTheirValue) {
    document d = test::must_decode(format_id::json, "[444444444444412e4, 1234567890123456789.0]");
    EXPECT_EQ(test::dbg(d), "[4444444444444120000.0,1234567890123456800.0]");
}

// fuzz_decode_csv: a header naming a column twice.
TEST(FuzzRegressions, CsvHeaderWithADuplicateNameIsRefused) {
    error e = test::decode_error(format_id::csv, "a,\"\",\"\"\n23,,4");
    EXPECT_EQ(e.code, errc::duplicate_key);
    EXPECT_EQ(e.message, "column \"\" appears twice in the header");
}

}  // namespace
}  // namespace polycodec

namespace polycodec {
namespace {

// fuzz_http: an empty body reaches the decoders as a string_view whose data() is null;
// libyaml asserted on it. Every decoder takes it.
TEST(FuzzRegressions, EveryDecoderTakesANullEmptyInput) {
    for (const format_info& f : formats()) {
        if (!is_implemented(f.id)) {
            continue;
        }
        document d;
        decode_options opt;
        (void)decode(f.id, std::string_view(), d, opt);  // a value or a clean error
    }
    SUCCEED();
}

}  // namespace
}  // namespace polycodec

namespace polycodec {
namespace {

// fuzz_decode_json, extjson property (issue 19): a root scalar was written canonically as
// {"$numberInt": "42"}, which reads back as a map (a root map is never turned into a value).
// A root stays as it is; only its children are rewritten.
TEST(FuzzRegressions, CanonicalExtendedJsonKeepsAScalarRoot) {
    encode_options canon;
    canon.extjson = extjson_mode::canonical;
    decode_options read;
    read.extjson = extjson_mode::canonical;
    for (const char* in : {"42", "1.5", "[42]", "{\"a\":42}", "{\"$numberInt\":\"42\"}"}) {
        document d = test::must_decode(format_id::json, in, read);
        std::string out = test::must_encode(format_id::json, d, canon);
        document again = test::must_decode(format_id::json, out, read);
        EXPECT_TRUE(equal(d, again)) << in << " -> " << out;
    }
    EXPECT_EQ(test::must_encode(format_id::json, test::must_decode(format_id::json, "[42]"), canon),
              R"([{"$numberInt":"42"}])");
}

}  // namespace
}  // namespace polycodec

namespace polycodec {
namespace {

// `depth` maps nested as keys around {"q":1}: {{...{{"q":1}:1}...:1}:1}, as MessagePack
// (0x81: a map of one entry; a1 71: "q"), and the text the key-text fallback gives the
// root's key, built by hand: each level adds "{" before and ":1}" after, nothing is quoted.
struct nested_keys {
    std::string msgpack;
    std::string key_text;
};
nested_keys nested_map_keys(int depth) {
    nested_keys n;
    n.msgpack.assign(static_cast<std::size_t>(depth) + 2, '\x81');
    n.msgpack += "\xa1q\x01";
    n.msgpack.append(static_cast<std::size_t>(depth) + 1, '\x01');
    n.key_text = R"({"q":1})";
    for (int i = 0; i < depth; ++i) {
        n.key_text = "{" + n.key_text + ":1}";
    }
    return n;
}

// fuzz_tcp_frames: map keys that are maps, nested as keys of keys, written by a format whose
// keys are strings under lossy=allow. The fallback wrote an inner container key as a quoted
// JSON string inside the outer key's JSON text, so its quotes and backslashes were escaped
// again at every level and the text doubled per level (a 275-byte frame asked for 2 GiB).
TEST(FuzzRegressions, MapKeysNestedInMapKeysKeepTheirTextLinear) {
    nested_keys n = nested_map_keys(24);
    document d = test::must_decode(format_id::msgpack, n.msgpack);
    encode_options lossy;
    lossy.lossy = true;
    output_buffer out;
    ASSERT_TRUE(encode(format_id::json, d, out, lossy));
    ASSERT_LT(out.size(), 1000u);
    std::string escaped;  // the key text as a JSON string: only the two quotes of "q" need it
    for (char c : n.key_text) {
        escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
    }
    EXPECT_EQ(out.view(), "{\"" + escaped + "\":1}");

    // Every encoder: the same text through its own key rules, or a clean error.
    for (const format_info& f : formats()) {
        if (!is_implemented(f.id)) {
            continue;
        }
        output_buffer o;
        if (encode(f.id, d, o, lossy)) {
            EXPECT_LT(o.size(), 1000u) << f.name;
        }
        encode_options strict;
        output_buffer refused;
        auto r = encode(f.id, d, refused, strict);  // the refusal's message holds the text too
        if (!r) {
            EXPECT_LT(r.error().message.size(), 1000u) << f.name;
        }
    }
}

}  // namespace
}  // namespace polycodec
