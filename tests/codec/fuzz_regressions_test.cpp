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
