// Tests of the cbor codec: spec examples, error positions, exact encodings, RFC 8949
// Appendix A.
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "support/support.hpp"

namespace polycodec {
namespace {

using test::any;
using test::dbg;
using test::encode_error_of;
using test::expect_error;
using test::expect_report;
using test::hex;
using test::lossy_encode;
using test::max_depth;
using test::to_hex;

std::string decoded(std::string_view hex_text, const decode_options& opt = {}) {
    return dbg(test::must_decode(format_id::cbor, hex(hex_text), opt));
}

const test::hex_case decode_table[] = {
    // Major type 0 and 1, every width.
    {"17", "23"},
    {"18 18", "24"},
    {"19 01 00", "256"},
    {"1a 00 01 00 00", "65536"},
    {"1b 00 00 00 01 00 00 00 00", "4294967296"},
    {"1b ff ff ff ff ff ff ff ff", "18446744073709551615u"},
    {"18 00", "0"},  // not preferred, still well-formed
    {"37", "-24"},
    {"38 ff", "-256"},
    {"39 ff ff", "-65536"},
    {"3a ff ff ff ff", "-4294967296"},
    {"3b 7f ff ff ff ff ff ff ff", "-9223372036854775808"},
    {"3b 80 00 00 00 00 00 00 00", "-9223372036854775809n"},
    {"3b ff ff ff ff ff ff ff ff", "-18446744073709551616n"},
    // Floats of the three widths, widened exactly.
    {"f9 3c 00", "1.0"},
    {"f9 00 01", "5.960464477539063e-8"},
    {"f9 7b ff", "65504.0"},
    {"f9 fc 00", "-Infinity"},
    {"fa 3d cc cc cd", "0.10000000149011612"},
    {"fb 3f b9 99 99 99 99 99 9a", "0.1"},
    // Strings, definite and indefinite.
    {"40", "b64\"\""},
    {"43 01 02 03", "b64\"AQID\""},
    {"58 01 ff", "b64\"/w==\""},
    {"59 00 01 ff", "b64\"/w==\""},
    {"5a 00 00 00 01 ff", "b64\"/w==\""},
    {"5b 00 00 00 00 00 00 00 01 ff", "b64\"/w==\""},
    {"5f ff", "b64\"\""},
    {"5f 41 01 40 42 02 03 ff", "b64\"AQID\""},
    {"63 e2 82 ac", "\"\xe2\x82\xac\""},
    {"78 01 61", "\"a\""},
    {"79 00 01 61", "\"a\""},
    {"7a 00 00 00 01 61", "\"a\""},
    {"7b 00 00 00 00 00 00 00 01 61", "\"a\""},
    {"7f 62 e2 82 61 ac ff", nullptr},  // placeholder, see IndefiniteTextChunksAreWhole
    {"7f ff", "\"\""},
    // Arrays and maps, every width and indefinite.
    {"98 01 01", "[1]"},
    {"99 00 01 01", "[1]"},
    {"9a 00 00 00 01 01", "[1]"},
    {"9b 00 00 00 00 00 00 00 01 01", "[1]"},
    {"9f 9f ff 9f 01 ff ff", "[[],[1]]"},
    {"b8 01 01 02", "{1:2}"},
    {"bf 61 61 01 20 9f ff ff", "{\"a\":1,-1:[]}"},
    {"a3 f6 01 f5 02 fb 3f f8 00 00 00 00 00 00 03", "{null:1,true:2,1.5:3}"},
    {"a2 61 61 01 61 61 02", "{\"a\":1,\"a\":2}"},  // duplicates kept
    // Tags.
    {"c0 74 32 30 31 33 2d 30 33 2d 32 31 54 32 30 3a 30 34 3a 30 30 5a",
     "t\"2013-03-21T20:04:00Z\""},
    {"c0 63 61 62 63", "tag(0, \"abc\")"},  // not RFC 3339: kept as a tag
    {"c1 1a 51 4b 67 b0", "t\"2013-03-21T20:04:00Z\""},
    {"c1 20", "t\"1969-12-31T23:59:59Z\""},
    {"c1 fb 41 d4 52 d9 ec 20 00 00", "t\"2013-03-21T20:04:00.5Z\""},
    {"c1 f9 3e 00", "t\"1970-01-01T00:00:01.5Z\""},
    // Over a bignum that fits 64 bits (which decodes as that integer): the same instant
    // (fuzz_decode_cbor found tag(1, -1) read back as a timestamp, not as tag(1, tag(3, h''))).
    {"c1 c3 40", "t\"1969-12-31T23:59:59Z\""},
    {"c1 c2 42 01 00", "t\"1970-01-01T00:04:16Z\""},
    {"c1 c2 49 01 00 00 00 00 00 00 00 00", "tag(1, 18446744073709551616n)"},
    {"c1 fb 3f b9 99 99 99 99 99 9a", "tag(1, 0.1)"},  // 0.1 s is no whole count of ns
    {"c1 1b 00 00 00 3a ff f4 41 80", "tag(1, 253402300800)"},  // year 10000
    {"d9 03 ec 6a 31 39 37 39 2d 30 35 2d 32 37", "t\"1979-05-27\""},
    {"c2 40", "0"},
    {"c2 42 01 00", "256"},
    {"c2 49 01 00 00 00 00 00 00 00 00", "18446744073709551616n"},
    {"c2 49 00 ff ff ff ff ff ff ff ff", "18446744073709551615u"},
    {"c3 49 01 00 00 00 00 00 00 00 00", "-18446744073709551617n"},
    {"c3 48 7f ff ff ff ff ff ff ff", "-9223372036854775808"},
    {"c3 48 80 00 00 00 00 00 00 00", "-9223372036854775809n"},
    {"c2 4d 01 8e e9 0f f6 c3 73 e0 ee 4e 3f 0a d2", "123456789012345678901234567890n"},
    // Over indefinite-length strings, as over definite ones (fuzz_decode_cbor found tag 2 over
    // one kept as a tag, which came back as a bignum once written with a definite length).
    {"c2 5f 41 01 41 00 ff", "256"},
    {"c2 5f ff", "0"},
    {"c0 7f 6a 32 30 31 33 2d 30 33 2d 32 31 6a 54 32 30 3a 30 34 3a 30 30 5a ff",
     "t\"2013-03-21T20:04:00Z\""},
    {"c2 61 61", "tag(2, \"a\")"},  // not a byte string: kept as a tag
    {"d8 20 63 61 62 63", "tag(32, \"abc\")"},
    {"db ff ff ff ff ff ff ff ff 00", "tag(18446744073709551615, 0)"},
    {"c6 c7 01", "tag(6, tag(7, 1))"},
    // Simple values.
    {"f4", "false"},
    {"f5", "true"},
    {"f6", "null"},
    {"f7", "tag(23@3, null)"},
    {"e0", "tag(0@3, null)"},
    {"f3", "tag(19@3, null)"},
    {"f8 20", "tag(32@3, null)"},
    {"f8 ff", "tag(255@3, null)"},
};

TEST(CborDecode, SpecTable) {
    test::expect_decodes_hex(format_id::cbor, decode_table);
}

TEST(CborDecode, IndefiniteTextChunksAreWhole) {
    // RFC 8949 section 3.2.3: a chunk is itself a text string, so a character cannot be split
    // between two chunks.
    test::expect_decode_error(format_id::cbor, hex("7f 62 e2 82 61 ac ff"),
                              {.code = errc::invalid_utf8, .offset = 2});
    EXPECT_EQ(decoded("7f 63 e2 82 ac 61 61 ff"), "\"\xe2\x82\xac" "a\"");
}

TEST(CborDecode, NaNPayloadsWidenExactly) {
    document d = test::must_decode(format_id::cbor, hex("f9 7e 01"));
    double v = d.root().get_double();
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    EXPECT_EQ(bits, 0x7ff8040000000000ULL);
}

const test::hex_error_case error_table[] = {
    {"", errc::unexpected_eof, 0},
    {"18", errc::unexpected_eof, 1},                 // argument byte missing
    {"1b 00 00 00", errc::unexpected_eof, 4},
    {"82 01 19 01", errc::unexpected_eof, 4},
    {"fb 3f f0", errc::unexpected_eof, 3},
    {"1c", errc::malformed, 0},                      // reserved additional information 28
    {"81 3d", errc::malformed, 1},                   // 29
    {"5e", errc::malformed, 0},                      // 30
    {"fc", errc::malformed, 0},
    {"1f", errc::malformed, 0},                      // indefinite unsigned integer
    {"3f", errc::malformed, 0},
    {"df 00", errc::malformed, 0},                   // indefinite tag
    {"ff", errc::malformed, 0},                      // break outside indefinite
    {"82 01 ff", errc::malformed, 2},
    {"a1 01 ff", errc::malformed, 2},
    {"bf 01 ff", errc::malformed, 2},                // break where a value is due
    {"f8 18", errc::malformed, 0},                   // simple 24 in two bytes
    {"f8 1f", errc::malformed, 0},
    {"62 61", errc::size_exceeded, 0},               // length past the end
    {"82 01 43 01 02", errc::size_exceeded, 2},
    {"5b 00 00 00 01 00 00 00 00 00", errc::size_exceeded, 0},
    // A count of 2^32 elements in 10 bytes fails at once, nothing reserved.
    {"9b 00 00 00 01 00 00 00 00 00", errc::size_exceeded, 0},
    {"bb 00 00 00 01 00 00 00 00 00", errc::size_exceeded, 0},
    {"9a ff ff ff ff 00 00 00 00 00", errc::size_exceeded, 0},
    {"9b ff ff ff ff ff ff ff ff 00", errc::size_exceeded, 0},
    {"83 01 02", errc::size_exceeded, 0},
    {"9f 01 02", errc::unexpected_eof, 3},           // indefinite array never closed
    {"bf 61 61", errc::unexpected_eof, 3},
    {"5f 41 00", errc::unexpected_eof, 3},
    {"5f 61 61 ff", errc::malformed, 1},             // text chunk in a byte string
    {"5f 5f 41 00 ff ff", errc::malformed, 1},       // nested indefinite chunk
    {"7f 01 ff", errc::malformed, 1},
    {"5f 43 00 ff", errc::size_exceeded, 1},         // chunk past the end
    {"62 c3 28", errc::invalid_utf8, 1},
    {"63 ed a0 80", errc::invalid_utf8, 1},          // surrogate
    {"01 02", errc::trailing_content, 1},
    {"c2 5f 41 00", errc::unexpected_eof, 4},        // tagged indefinite bytes, unclosed
};

// Any value may be a map key (RFC 8949 section 5.6; DESIGN section 2): hand-written vectors,
// decoded and written back byte for byte.
TEST(CborDecode, ContainerKeys) {
    const struct {
        const char* hex;
        const char* value;
    } cases[] = {
        {"a1 82 01 02 03", "{[1,2]:3}"},                       // {[1, 2]: 3}
        {"a1 a1 61 62 01 61 78", "{{\"b\":1}:\"x\"}"},        // {{"b": 1}: "x"}
        {"a2 61 61 01 82 01 02 61 78", "{\"a\":1,[1,2]:\"x\"}"},
        {"a1 80 a0", "{[]:{}}"},                               // {[]: {}}
        {"a1 c1 82 01 02 f6", "{tag(1, [1,2]):null}"},          // a tag over an array key
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.hex);
        document d = test::must_decode(format_id::cbor, hex(c.hex));
        EXPECT_EQ(dbg(d), c.value);
        EXPECT_EQ(to_hex(test::must_encode(format_id::cbor, d)), to_hex(hex(c.hex)));
    }
    // Deterministic encoding (canonical=true) sorts keys by their encoded bytes, containers
    // included: 0x61 0x61 ("a") < 0x82 ... ([1, 2]).
    document d = test::must_decode(format_id::cbor, hex("a2 82 01 02 61 78 61 61 01"));
    encode_options opt;
    opt.canonical = true;
    EXPECT_EQ(to_hex(test::must_encode(format_id::cbor, d, opt)),
              to_hex(hex("a2 61 61 01 82 01 02 61 78")));
}

TEST(CborDecode, ErrorTable) {
    test::expect_hex_errors(format_id::cbor, error_table);
}

TEST(CborDecode, ErrorPathAndMessage) {
    test::expect_decode_error(format_id::cbor, hex("a1 61 61 82 01 1c"),
                              {.code = errc::malformed,
                               .offset = 5,
                               .message = "reserved additional information 28 in initial byte 0x1c",
                               .path = "/a/1"});
}

TEST(CborDecode, DepthLimit) {
    const decode_options opt = max_depth(4);
    EXPECT_EQ(decoded("81 81 81 81 01", opt), "[[[[1]]]]");
    EXPECT_EQ(test::decode_error(format_id::cbor, hex("81 81 81 81 81 01"), opt).code,
              errc::depth_exceeded);
    EXPECT_EQ(test::decode_error(format_id::cbor, hex("81 81 81 c6 81 01"), opt).offset, 4u);
    std::string deep(100000, '\x9f');  // indefinite arrays
    EXPECT_EQ(test::decode_error(format_id::cbor, deep).code, errc::depth_exceeded);
    std::string tags(100000, '\xc6');
    EXPECT_EQ(test::decode_error(format_id::cbor, tags).code, errc::depth_exceeded);
}

TEST(CborDecode, CanonicalIsStrict) {
    // canonical=true accepts only the deterministic encoding of RFC 8949 section 4.2.1.
    decode_options strict;
    strict.canonical = true;
    const test::hex_error_case cases[] = {
        {"18 17", errc::malformed, 0},                 // 23 in two bytes
        {"82 01 19 00 ff", errc::malformed, 2},        // 255 in three bytes
        {"5f ff", errc::malformed, 0},                 // indefinite length
        {"9f ff", errc::malformed, 0},
        {"a2 61 62 01 61 61 02", errc::malformed, 4},  // "b" before "a"
        {"a2 61 61 01 61 61 02", errc::duplicate_key, 4},
        {"a2 18 64 01 0a 02", errc::malformed, 4},     // 100 before 10
        {"fa 3f c0 00 00", errc::malformed, 0},        // 1.5 fits in a half
        {"fb 3f f8 00 00 00 00 00 00", errc::malformed, 0},
        {"f9 7e 01", errc::malformed, 0},              // NaN other than f97e00
        {"c2 41 01", errc::malformed, 0},              // bignum within 64 bits
        {"c2 4a 00 01 00 00 00 00 00 00 00 00", errc::malformed, 0},  // leading zero
    };
    for (const auto& c : cases) {
        EXPECT_TRUE(decode(format_id::cbor, hex(c.hex), *std::make_unique<document>()))
            << c.hex << " is well-formed without canonical";
        error e = test::decode_error(format_id::cbor, hex(c.hex), strict);
        EXPECT_EQ(e.code, c.code) << c.hex << ": " << describe(e);
        EXPECT_EQ(e.offset, c.offset) << c.hex << ": " << describe(e);
    }
    for (const char* ok : {"a3 0a 01 18 64 02 20 03", "f9 7e 00", "fa 47 c3 50 00",
                           "c2 49 01 00 00 00 00 00 00 00 00", "1b 00 00 00 01 00 00 00 00"}) {
        EXPECT_TRUE(decode(format_id::cbor, hex(ok), *std::make_unique<document>(), strict)) << ok;
    }
}

// ---- encoding ----

std::string enc(const document& d, const encode_options& opt = {}) {
    return to_hex(test::must_encode(format_id::cbor, d, opt));
}
std::string enc_json(std::string_view json, const encode_options& opt = {}) {
    return enc(test::must_decode(format_id::json, json), opt);
}

TEST(CborEncode, PreferredSerialization) {
    const test::text_case rows[] = {
        {"0", "00"},
        {"23", "17"},
        {"24", "18 18"},
        {"255", "18 ff"},
        {"256", "19 01 00"},
        {"65536", "1a 00 01 00 00"},
        {"4294967296", "1b 00 00 00 01 00 00 00 00"},
        {"18446744073709551615", "1b ff ff ff ff ff ff ff ff"},
        {"-1", "20"},
        {"-25", "38 18"},
        {"-9223372036854775808", "3b 7f ff ff ff ff ff ff ff"},
        {"-18446744073709551616", "3b ff ff ff ff ff ff ff ff"},
        {"18446744073709551616", "c2 49 01 00 00 00 00 00 00 00 00"},
        {"-18446744073709551617", "c3 49 01 00 00 00 00 00 00 00 00"},
        // RFC 8949 section 4.2.2: the shortest float that keeps the value.
        {"0.0", "f9 00 00"},
        {"-0.0", "f9 80 00"},
        {"1.5", "f9 3e 00"},
        {"65504.0", "f9 7b ff"},
        {"65505.0", "fa 47 7f e1 00"},
        {"100000.0", "fa 47 c3 50 00"},
        {"5.960464477539063e-8", "f9 00 01"},
        {"6.103515625e-5", "f9 04 00"},
        {"3.4028234663852886e+38", "fa 7f 7f ff ff"},
        {"1e300", "fb 7e 37 e4 3c 88 00 75 9c"},
        {"0.1", "fb 3f b9 99 99 99 99 99 9a"},
        {"1.401298464324817e-45", "fa 00 00 00 01"},  // a float32 subnormal
        {"\"\"", "60"},
        {"\"IETF\"", "64 49 45 54 46"},
        {"[]", "80"},
        {"[1,[2,3]]", "82 01 82 02 03"},
        {"{\"b\":1,\"a\":2}", "a2 61 62 01 61 61 02"},  // order kept without canonical
    };
    for (const auto& r : rows) {
        EXPECT_EQ(enc_json(r.input), r.want) << r.input;
    }
    std::string s24 = "\"" + std::string(24, 'a') + "\"";
    EXPECT_EQ(enc_json(s24).substr(0, 5), "78 18");
    std::string s256 = "\"" + std::string(256, 'a') + "\"";
    EXPECT_EQ(enc_json(s256).substr(0, 8), "79 01 00");
}

TEST(CborEncode, SpecialFloatsAndKinds) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_double(std::numeric_limits<double>::quiet_NaN());
    b.add_double(-std::numeric_limits<double>::quiet_NaN());
    b.add_double(std::numeric_limits<double>::infinity());
    b.add_double(-std::numeric_limits<double>::infinity());
    b.add_bytes("\x01\x02");
    b.add_timestamp("2013-03-21T20:04:00Z", timestamp_kind::offset_date_time);
    b.add_timestamp("1979-05-27", timestamp_kind::local_date);
    b.add_timestamp("07:32:00", timestamp_kind::local_time);
    b.begin_tagged(32, tag_space::cbor);
    b.add_string("a");
    b.begin_tagged(23, tag_space::other);
    b.add_null();
    b.begin_tagged(255, tag_space::other);
    b.add_null();
    b.end_array();
    EXPECT_EQ(enc(d),
              "8b f9 7e 00 f9 7e 00 f9 7c 00 f9 fc 00 42 01 02 "
              "c0 74 32 30 31 33 2d 30 33 2d 32 31 54 32 30 3a 30 34 3a 30 30 5a "
              "d9 03 ec 6a 31 39 37 39 2d 30 35 2d 32 37 "
              "68 30 37 3a 33 32 3a 30 30 "
              "d8 20 61 61 f7 f8 ff");
}

TEST(CborEncode, CanonicalSortsKeysByEncodedBytes) {
    encode_options opt;
    opt.canonical = true;
    // RFC 8949 section 4.2.1: 10, 100, -1, "z", "aa", [100], [-1], false.
    document d;
    builder b(d);
    b.begin_map();
    b.add_bool(false);
    b.add_int(8);
    b.add_string("aa");
    b.add_int(5);
    b.add_int(-1);
    b.add_int(3);
    b.add_int(100);
    b.add_int(2);
    b.add_string("z");
    b.add_int(4);
    b.add_int(10);
    b.begin_map();  // a nested map is sorted too
    b.add_string("b");
    b.add_int(1);
    b.add_string("a");
    b.add_int(2);
    b.end_map();
    b.end_map();
    EXPECT_EQ(enc(d, opt), "a6 0a a2 61 61 02 61 62 01 18 64 02 20 03 61 7a 04 62 61 61 05 f4 08");
    decode_options strict;
    strict.canonical = true;
    // The deterministic form passes the strict reader and writes back unchanged.
    std::string canonical = test::must_encode(format_id::cbor, d, opt);
    document back = test::must_decode(format_id::cbor, canonical, strict);
    EXPECT_EQ(to_hex(test::must_encode(format_id::cbor, back)), to_hex(canonical));
    EXPECT_EQ(enc(d), "a6 f4 08 62 61 61 05 20 03 18 64 02 61 7a 04 0a a2 61 62 01 61 61 02");
}

TEST(CborEncode, ForeignTags) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("x");
    b.begin_tagged(5, tag_space::msgpack_ext);
    b.add_bytes("\x01");
    b.end_map();
    expect_error(
        encode_error_of(format_id::cbor, d),
        {errc::unrepresentable, any, any, any, "msgpack ext 5 is not representable in cbor", "/x"});
    lossy_encode lossy;
    EXPECT_EQ(enc(d, lossy.opt), "a1 61 78 41 01");
    expect_report(lossy.report, {{"tag_dropped"}});
}

TEST(CborRoundTrip, KindsSurvive) {
    const char* inputs[] = {
        "a4 61 61 c2 4d 01 8e e9 0f f6 c3 73 e0 ee 4e 3f 0a d2 61 62 3b ff ff ff ff ff ff ff ff "
        "61 63 f7 61 64 d8 20 61 78",
        "83 c0 78 1d 32 30 31 33 2d 30 33 2d 32 31 54 32 30 3a 30 34 3a 30 30 2e 31 32 33 2b 30 "
        "31 3a 30 30 d9 03 ec 6a 31 39 37 39 2d 30 35 2d 32 37 f8 ff",
    };
    for (const char* h : inputs) {
        document d = test::must_decode(format_id::cbor, hex(h));
        std::string bytes = test::must_encode(format_id::cbor, d);
        EXPECT_EQ(to_hex(bytes), to_hex(hex(h)));
        EXPECT_TRUE(equal(d, test::must_decode(format_id::cbor, bytes))) << h;
    }
}

TEST(CborRoundTrip, MsgpackTimestampsBecomeTagZero) {
    document d = test::must_decode(format_id::msgpack, hex("d6 ff 5a 4a f6 a5"));
    EXPECT_EQ(enc(d), "c0 74 32 30 31 38 2d 30 31 2d 30 32 54 30 33 3a 30 34 3a 30 35 5a");
}

// ---- RFC 8949 Appendix A ----

// Expectations for the vectors the JSON file gives only in diagnostic notation. nullptr: not
// well-formed under RFC 8949 (section 3.3: 0xf8 followed by a byte below 0x20).
const std::map<std::string, const char*> diagnostic_expect = {
    {"f97c00", "Infinity"},
    {"f97e00", "NaN"},
    {"f9fc00", "-Infinity"},
    {"fa7f800000", "Infinity"},
    {"fa7fc00000", "NaN"},
    {"faff800000", "-Infinity"},
    {"fb7ff0000000000000", "Infinity"},
    {"fb7ff8000000000000", "NaN"},
    {"fbfff0000000000000", "-Infinity"},
    {"f7", "tag(23@3, null)"},
    {"f0", "tag(16@3, null)"},
    {"f818", nullptr},
    {"f8ff", "tag(255@3, null)"},
    {"c074323031332d30332d32315432303a30343a30305a", "t\"2013-03-21T20:04:00Z\""},
    {"c11a514b67b0", "t\"2013-03-21T20:04:00Z\""},
    {"c1fb41d452d9ec200000", "t\"2013-03-21T20:04:00.5Z\""},
    {"d74401020304", "tag(23, b64\"AQIDBA==\")"},
    {"d818456449455446", "tag(24, b64\"ZElFVEY=\")"},
    {"d82076687474703a2f2f7777772e6578616d706c652e636f6d",
     "tag(32, \"http://www.example.com\")"},
    {"40", "b64\"\""},
    {"4401020304", "b64\"AQIDBA==\""},
    {"a201020304", "{1:2,3:4}"},
    {"5f42010243030405ff", "b64\"AQIDBAU=\""},
};

// Round-trip vectors whose bytes we do not reproduce, and why.
const std::map<std::string, const char*> roundtrip_exceptions = {
    // Tag 1 decodes to a timestamp, which is written back as tag 0 (its RFC 3339 text).
    {"c11a514b67b0", "c074323031332d30332d32315432303a30343a30305a"},
    {"c1fb41d452d9ec200000", "c076323031332d30332d32315432303a30343a30302e355a"},
};

TEST(CborConformance, Rfc8949AppendixA) {
    POLYCODEC_REQUIRE_CORPUS("cbor/appendix_a.json", path);
    document vectors = test::must_decode(format_id::json, test::read_file(path));
    int total = 0, by_value = 0, by_diagnostic = 0, rejected = 0, roundtrips = 0;
    for (value v : vectors.root().items()) {
        ++total;
        std::string h(v.find("hex").get_string());
        std::string bytes = hex(h);
        value want = v.find("decoded");
        document got;
        auto r = decode(format_id::cbor, bytes, got);
        if (want.doc() != nullptr) {
            ASSERT_TRUE(r) << h << ": " << describe(r.error());
            document expected;
            builder b(expected);
            b.add_copy(want);
            EXPECT_TRUE(equal(got, expected)) << h << ": " << dbg(got) << " != " << dbg(expected);
            ++by_value;
        } else {
            auto it = diagnostic_expect.find(h);
            ASSERT_NE(it, diagnostic_expect.end()) << "no expectation for " << h;
            if (it->second == nullptr) {
                ASSERT_FALSE(r) << h;
                EXPECT_EQ(r.error().code, errc::malformed);
                EXPECT_EQ(r.error().offset, 0u);
                ++rejected;
                continue;
            }
            ASSERT_TRUE(r) << h << ": " << describe(r.error());
            EXPECT_EQ(dbg(got), it->second) << h;
            ++by_diagnostic;
        }
        if (v.find("roundtrip").get_bool()) {
            std::string ours = to_hex(test::must_encode(format_id::cbor, got));
            std::string compact;
            for (char c : ours) {
                if (c != ' ') {
                    compact += c;
                }
            }
            auto ex = roundtrip_exceptions.find(h);
            EXPECT_EQ(compact, ex == roundtrip_exceptions.end() ? h : std::string(ex->second))
                << "re-encoding " << h;
            roundtrips += ex == roundtrip_exceptions.end() ? 1 : 0;
        }
    }
    EXPECT_EQ(total, 82);
    EXPECT_EQ(by_value + by_diagnostic + rejected, 82);
    EXPECT_EQ(rejected, 1);
    std::printf("appendix A: %d vectors, %d by value, %d by diagnostic, %d rejected (f818), "
                "%d byte-exact round trips\n",
                total, by_value, by_diagnostic, rejected, roundtrips);
}

}  // namespace
}  // namespace polycodec
