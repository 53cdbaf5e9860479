// Tests of the bencode codec: spec examples, error positions, exact encodings.
#include <chrono>

#include "support/support.hpp"

namespace polycodec {
namespace {

using test::dbg;
using test::lossy_encode;

std::string decode_dbg(std::string_view in, const decode_options& opt = {}) {
    return dbg(test::must_decode(format_id::bencode, in, opt));
}

// ---- spec examples (BEP 3) ----

struct spec_case {
    const char* input;
    const char* expect;
};

// "4:spam corresponds to 'spam'", "i3e corresponds to 3 and i-3e corresponds to -3",
// "l4:spam4:eggse corresponds to ['spam', 'eggs']", "d3:cow3:moo4:spam4:eggse corresponds to
// {'cow': 'moo', 'spam': 'eggs'} and d4:spaml1:a1:bee corresponds to {'spam': ['a', 'b']}".
constexpr spec_case spec_cases[] = {
    {"4:spam", R"("spam")"},
    {"i3e", "3"},
    {"i-3e", "-3"},
    {"i0e", "0"},
    {"0:", R"("")"},
    {"l4:spam4:eggse", R"(["spam","eggs"])"},
    {"d3:cow3:moo4:spam4:eggse", R"({"cow":"moo","spam":"eggs"})"},
    {"d4:spaml1:a1:bee", R"({"spam":["a","b"]})"},
    {"le", "[]"},
    {"de", "{}"},
    // "Integers have no size limitation": beyond 64 bits they are bignums.
    {"i9223372036854775807e", "9223372036854775807"},
    {"i-9223372036854775808e", "-9223372036854775808"},
    {"i18446744073709551615e", "18446744073709551615u"},
    {"i18446744073709551616e", "18446744073709551616n"},
    {"i-9223372036854775809e", "-9223372036854775809n"},
    {"5:\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\""},
};

TEST(BencodeDecode, SpecExamples) {
    for (const auto& c : spec_cases) {
        EXPECT_EQ(decode_dbg(c.input), c.expect) << c.input;
    }
}

TEST(BencodeDecode, InvalidUtf8IsBytes) {
    EXPECT_EQ(decode_dbg(std::string_view("d2:\xff\xfe"
                                          "2:\xc3\x28"
                                          "e",
                                          10)),
              R"({b64"//4=":b64"wyg="})");
}

TEST(BencodeEncode, SpecExamplesByteExact) {
    for (const auto& c : spec_cases) {
        document d = test::must_decode(format_id::bencode, c.input);
        EXPECT_EQ(test::must_encode(format_id::bencode, d), c.input);
    }
}

// ---- errors ----

TEST(BencodeDecode, ErrorsWithOffsets) {
    const test::bad_at cases[] = {
        {"", errc::unexpected_eof, 0, "expected a value, saw end of input"},
        {"i03e", errc::invalid_number, 0, "leading zeros"},
        {"i-0e", errc::invalid_number, 0, "negative zero"},
        {"i00e", errc::invalid_number, 0, "leading zeros"},
        {"ie", errc::invalid_number, 1, "expected a digit in integer, saw 'e'"},
        {"i-e", errc::invalid_number, 2, "expected a digit"},
        {"i12", errc::unexpected_eof, 3, "expected 'e' after integer digits"},
        {"i1.5e", errc::unexpected_char, 2, "expected 'e' after integer digits, saw '.'"},
        {"-3:abc", errc::unexpected_char, 0, "expected 'i', 'l', 'd' or a string length"},
        {"5:abc", errc::size_exceeded, 0, "string length 5 exceeds the 3 bytes left"},
        {"4294967296:abc", errc::size_exceeded, 0, "string length 4294967296"},
        {"99999999999999999999:", errc::size_exceeded, 0, "too many digits"},
        {"03:abc", errc::invalid_number, 0, "leading zeros are not allowed in a string length"},
        {"3abc", errc::unexpected_char, 1, "expected ':' after string length"},
        {"l", errc::unexpected_eof, 1, "expected a value"},
        {"li1e", errc::unexpected_eof, 4, "expected a value"},
        {"di1ei2ee", errc::unexpected_char, 1, "expected a string key or 'e'"},
        {"d1:a", errc::unexpected_eof, 4, "expected a value"},
        {"i1ei2e", errc::trailing_content, 3, "expected end of input, saw 'i'"},
        {"x", errc::unexpected_char, 0, "saw 'x'"},
    };
    test::expect_errors_at(format_id::bencode, cases);
}

TEST(BencodeDecode, CanonicalRejectsUnsortedAndDuplicateKeys) {
    // Without canonical=true, order is kept as it came; a duplicate key is refused all the same
    // (a dictionary cannot hold one: fuzz_decode_bencode found one decoded, then not encodable).
    EXPECT_EQ(decode_dbg("d1:bi1e1:ai2ee"), R"({"b":1,"a":2})");
    error dup = test::decode_error(format_id::bencode, "d1:bi1e1:ai2e1:bi3ee");
    EXPECT_EQ(dup.code, errc::duplicate_key);
    EXPECT_EQ(dup.offset, 13u);
    dup = test::decode_error(format_id::bencode, "d1:xd1:ci1e1:ai2e1:ci3ee1:ai0ee");
    EXPECT_EQ(dup.code, errc::duplicate_key);
    EXPECT_EQ(dup.offset, 17u);
    EXPECT_EQ(dup.path, "/x");
    EXPECT_EQ(decode_dbg("d1:bd1:ai1ee1:ai3ee"), R"({"b":{"a":1},"a":3})");
    decode_options canonical;
    canonical.canonical = true;
    error e = test::decode_error(format_id::bencode, "d1:bi1e1:ai2ee", canonical);
    EXPECT_EQ(e.code, errc::malformed);
    EXPECT_EQ(e.offset, 7u);
    EXPECT_EQ(e.path, "");
    e = test::decode_error(format_id::bencode, "dd1:ai1e1:ai2eee" + std::string(), canonical);
    EXPECT_EQ(e.code, errc::unexpected_char);  // a dictionary is not a key
    e = test::decode_error(format_id::bencode, "d1:xd1:ai1e1:ai2eee", canonical);
    EXPECT_EQ(e.code, errc::duplicate_key);
    EXPECT_EQ(e.offset, 11u);
    EXPECT_EQ(e.path, "/x");
    // Raw byte order: "B" (0x42) < "a" (0x61) < "\xc3\xa9".
    EXPECT_EQ(decode_dbg("d1:Bi1e1:ai2e2:\xc3\xa9i3ee", canonical),
              "{\"B\":1,\"a\":2,\"\xc3\xa9\":3}");
}

TEST(BencodeDecode, MillionNestedListsFailFast) {
    std::string deep(1000000, 'l');
    auto t0 = std::chrono::steady_clock::now();
    error e = test::decode_error(format_id::bencode, deep);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 512u);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
    std::string dicts;
    for (int i = 0; i < 100000; ++i) {
        dicts += "d1:a";
    }
    e = test::decode_error(format_id::bencode, dicts);
    EXPECT_EQ(e.code, errc::depth_exceeded);
}

// ---- encoder ----

TEST(BencodeEncode, SortsKeysByRawBytes) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("b");
    b.add_int(1);
    b.add_int(10);  // integer keys become decimal text: "10" < "9" as bytes
    b.add_int(2);
    b.add_int(9);
    b.add_int(3);
    b.add_string("\xc3\xa9");
    b.add_int(4);
    b.add_string("B");
    b.begin_map();
    b.add_string("z");
    b.add_int(5);
    b.add_string("y");
    b.add_bytes(std::string_view("\x00\xff", 2));
    b.end_map();
    b.add_string("");
    b.add_timestamp("1979-05-27T07:32:00Z", timestamp_kind::offset_date_time);
    b.end_map();
    EXPECT_EQ(test::must_encode(format_id::bencode, d),
              std::string("d0:20:1979-05-27T07:32:00Z2:10i2e1:9i3e1:Bd1:y2:") +
                  std::string("\x00\xff", 2) + "1:zi5ee1:bi1e2:\xc3\xa9i4ee");
}

TEST(BencodeEncode, UnrepresentableWithPaths) {
    struct c {
        const char* json;
        const char* path;
        const char* message;
    };
    const c cases[] = {
        {R"({"a":[1,null]})", "/a/1", "null is not representable in bencode"},
        {R"({"a":true})", "/a", "a boolean is not representable"},
        {R"([1.5])", "/0", "a float is not representable"},
    };
    for (const auto& k : cases) {
        document d = test::must_decode(format_id::json, k.json);
        output_buffer out;
        auto r = encode(format_id::bencode, d, out);
        ASSERT_FALSE(r) << k.json;
        EXPECT_EQ(r.error().code, errc::unrepresentable);
        EXPECT_EQ(r.error().path, k.path);
        EXPECT_NE(r.error().message.find(k.message), std::string::npos) << r.error().message;
    }
    // Duplicate keys (also after integer keys become text) and keys of other kinds.
    document d;
    builder b(d);
    b.begin_map();
    b.add_string("1");
    b.add_int(1);
    b.add_int(1);
    b.add_int(2);
    b.end_map();
    output_buffer out;
    auto r = encode(format_id::bencode, d, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().path, "/1");
    EXPECT_NE(r.error().message.find("duplicate key"), std::string::npos);
    document k;
    builder kb(k);
    kb.begin_map();
    kb.add_null();
    kb.add_int(1);
    kb.end_map();
    r = encode(format_id::bencode, k, out);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("map key null"), std::string::npos);
}

TEST(BencodeEncode, LossyFallbacks) {
    document d = test::must_decode(format_id::json,
                                   R"({"n":null,"t":true,"f":false,"x":1.5,"w":-2.0,"k":{"1":1}})");
    lossy_encode lossy;
    EXPECT_EQ(test::must_encode(format_id::bencode, d, lossy.opt),
              "d1:fi0e1:kd1:1i1ee1:n0:1:ti1e1:w4:-2.01:x3:1.5e");
    ASSERT_EQ(lossy.report.size(), 5u);
    EXPECT_EQ(lossy.report[0].kind, "bool_to_int");
    EXPECT_EQ(lossy.report[0].path, "/f");
    EXPECT_EQ(lossy.report[1].kind, "null_to_empty_string");
    EXPECT_EQ(lossy.report[1].path, "/n");
    EXPECT_EQ(lossy.report[3].kind, "float_to_string");
    // Duplicate keys: the first value is kept.
    document dup = test::must_decode(format_id::json, R"({"a":1,"a":2})");
    ASSERT_EQ(dbg(dup), R"({"a":1,"a":2})");
    EXPECT_EQ(test::must_encode(format_id::bencode, dup, lossy.opt), "d1:ai1ee");
}

TEST(BencodeEncode, BsonTypesAsExtendedJson) {
    document d;
    builder b(d);
    b.begin_array();
    b.begin_tagged(0x07, tag_space::bson);
    b.add_bytes(test::hex("5f1d2c3b4a5968778695a4b3"));
    b.begin_tagged(0xff, tag_space::bson);
    b.add_null();
    b.begin_tagged(2);  // a CBOR tag: only its inner value, under lossy=allow
    b.add_bytes("x");
    b.end_array();
    EXPECT_EQ(test::encode_error_of(format_id::bencode, d).path, "/2");
    encode_options opt;
    opt.lossy = true;
    EXPECT_EQ(test::must_encode(format_id::bencode, d, opt),
              "ld4:$oid24:5f1d2c3b4a5968778695a4b3ed7:$minKeyi1ee1:xe");
}

// ---- conformance corpus: real files re-encode byte for byte ----

TEST(BencodeConformance, CorpusFilesReencodeByteIdentical) {
    POLYCODEC_REQUIRE_CORPUS("bencode", dir);
    int files = 0;
    for (const char* name : {"test.torrent", "bittorrent-v2-test.torrent",
                             "bittorrent-v2-hybrid-test.torrent", "announce-compacted-peers.bin"}) {
        std::string data = test::read_file(dir / name);
        ASSERT_FALSE(data.empty()) << name;
        decode_options canonical;
        canonical.canonical = true;
        document d = test::must_decode(format_id::bencode, data, canonical);
        EXPECT_EQ(test::must_encode(format_id::bencode, d), data) << name;
        ++files;
    }
    EXPECT_EQ(files, 4);
    // BEP 23 reply: {complete:4, incomplete:3, interval:1800, "min interval":1800, peers:<42>}.
    document d = test::must_decode(format_id::bencode,
                                   test::read_file(dir / "announce-compacted-peers.bin"));
    value peers = d.root().find("peers");
    ASSERT_NE(peers.doc(), nullptr);
    EXPECT_EQ(peers.kind(), kind::bytes);
    EXPECT_EQ(peers.get_string().size(), 42u);
    EXPECT_EQ(d.root().find("min interval").get_int(), 1800);
}

}  // namespace
}  // namespace polycodec
