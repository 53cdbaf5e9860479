// Tests of the msgpack codec: spec examples, error positions, exact encodings, the
// msgpack-test-suite corpus.
#include <cmath>
#include <cstring>
#include <ctime>
#include <set>
#include <vector>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string decoded(std::string_view hex_text) {
    return dbg(test::must_decode(format_id::msgpack, hex(hex_text)));
}

// The spec (https://github.com/msgpack/msgpack/blob/master/spec.md), one row per format
// family and width.
const test::hex_case decode_table[] = {
    {"00", "0"},
    {"7f", "127"},
    {"e0", "-32"},
    {"ff", "-1"},
    {"c0", "null"},
    {"c2", "false"},
    {"c3", "true"},
    {"cc ff", "255"},
    {"cd ff ff", "65535"},
    {"ce ff ff ff ff", "4294967295"},
    {"cf 7f ff ff ff ff ff ff ff", "9223372036854775807"},
    {"cf ff ff ff ff ff ff ff ff", "18446744073709551615u"},
    {"d0 80", "-128"},
    {"d1 80 00", "-32768"},
    {"d2 80 00 00 00", "-2147483648"},
    {"d3 80 00 00 00 00 00 00 00", "-9223372036854775808"},
    {"d0 7f", "127"},
    // float 32 widened exactly: 0.1f is 0.100000001490116...
    {"ca 3d cc cc cd", "0.10000000149011612"},
    {"ca 7f 80 00 00", "Infinity"},
    {"ca ff c0 00 00", "NaN"},
    {"cb 3f b9 99 99 99 99 99 9a", "0.1"},
    {"cb 80 00 00 00 00 00 00 00", "-0.0"},
    {"a0", "\"\""},
    {"a3 61 62 63", "\"abc\""},
    {"d9 03 e2 82 ac", "\"\xe2\x82\xac\""},
    {"da 00 01 41", "\"A\""},
    {"db 00 00 00 01 41", "\"A\""},
    {"c4 00", "b64\"\""},
    {"c4 03 01 02 03", "b64\"AQID\""},
    {"c5 00 01 ff", "b64\"/w==\""},
    {"c6 00 00 00 01 ff", "b64\"/w==\""},
    {"90", "[]"},
    {"93 01 a1 61 c0", "[1,\"a\",null]"},
    {"dc 00 02 01 02", "[1,2]"},
    {"dd 00 00 00 01 90", "[[]]"},
    {"80", "{}"},
    {"82 a1 61 01 a1 62 92 c2 c3", "{\"a\":1,\"b\":[false,true]}"},
    {"de 00 01 a1 61 80", "{\"a\":{}}"},
    {"df 00 00 00 01 01 02", "{1:2}"},
    // Map keys of any scalar kind, duplicates kept in order.
    {"84 c0 01 c3 02 cb 3f f8 00 00 00 00 00 00 03 c4 01 00 04",
     "{null:1,true:2,1.5:3,b64\"AA==\":4}"},
    {"82 a1 61 01 a1 61 02", "{\"a\":1,\"a\":2}"},
    // ext -> tagged(msgpack_ext, (uint64)(int64)type, bytes); every width.
    {"d4 01 10", "tag(1@1, b64\"EA==\")"},
    {"d5 02 20 21", "tag(2@1, b64\"ICE=\")"},
    {"d6 7f 30 31 32 33", "tag(127@1, b64\"MDEyMw==\")"},
    {"d7 80 40 41 42 43 44 45 46 47", "tag(18446744073709551488@1, b64\"QEFCQ0RFRkc=\")"},
    {"d8 05 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
     "tag(5@1, b64\"AAAAAAAAAAAAAAAAAAAAAA==\")"},
    {"c7 00 06", "tag(6@1, b64\"\")"},
    {"c8 00 03 fe 70 71 72", "tag(18446744073709551614@1, b64\"cHFy\")"},
    {"c9 00 00 00 01 07 70", "tag(7@1, b64\"cA==\")"},
    // Timestamp extension (type -1), all three sizes.
    {"d6 ff 5a 4a f6 a5", "t\"2018-01-02T03:04:05Z\""},
    {"d7 ff a1 dc d7 c8 5a 4a f6 a5", "t\"2018-01-02T03:04:05.678901234Z\""},
    {"d7 ff 00 00 00 04 00 00 00 00", "t\"1970-01-01T00:00:00.000000001Z\""},
    {"c7 0c ff 00 00 00 00 ff ff ff ff 7c 55 81 80", "t\"1900-01-01T00:00:00Z\""},
    {"c7 0c ff 3b 9a c9 ff ff ff ff ff ff ff ff ff", "t\"1969-12-31T23:59:59.999999999Z\""},
    {"c7 0c ff 00 00 00 00 ff ff ff f1 86 8b 84 00", "t\"0000-01-01T00:00:00Z\""},
    {"c7 0c ff 3b 9a c9 ff 00 00 00 3a ff f4 41 7f", "t\"9999-12-31T23:59:59.999999999Z\""},
    // Beyond year 9999 RFC 3339 has no text: the extension is kept as it came.
    {"c7 0c ff 00 00 00 00 00 00 00 3a ff f4 41 80",
     "tag(18446744073709551615@1, b64\"AAAAAAAAADr/9EGA\")"},
};

TEST(MsgpackDecode, SpecTable) {
    test::expect_decodes_hex(format_id::msgpack, decode_table);
}

TEST(MsgpackDecode, LongLengths) {
    std::string s(300, 'x');
    EXPECT_EQ(decoded("da 01 2c" + to_hex(s)), "\"" + s + "\"");
    std::string in = hex("dc 01 00");
    for (int i = 0; i < 256; ++i) {
        in += hex("c0");
    }
    document d = test::must_decode(format_id::msgpack, in);
    EXPECT_EQ(d.root().size(), 256u);
}

const test::hex_error_case error_table[] = {
    {"", errc::unexpected_eof, 0},
    {"c1", errc::malformed, 0},                       // never used
    {"91 c1", errc::malformed, 1},
    {"cd 01", errc::unexpected_eof, 2},               // uint 16 cut short
    {"cb 00 00 00", errc::unexpected_eof, 4},
    {"a2 61", errc::size_exceeded, 0},                // fixstr past the end
    {"92 01 d9 05 61", errc::size_exceeded, 2},       // str 8 past the end
    {"c4 02 00", errc::size_exceeded, 0},
    {"c6 ff ff ff ff 00", errc::size_exceeded, 0},
    {"d6 01 00", errc::size_exceeded, 0},             // fixext 4 with one byte
    {"c7 01", errc::unexpected_eof, 2},               // ext 8 without its type
    {"a2 c3 28", errc::invalid_utf8, 1},              // bad continuation byte
    {"a3 61 ed a0", errc::invalid_utf8, 2},           // truncated sequence inside the str
    {"a4 61 ed a0 80", errc::invalid_utf8, 2},        // UTF-16 surrogate
    {"a2 c0 80", errc::invalid_utf8, 1},              // overlong
    // A count of 2^32-1 elements in a few bytes fails before anything is reserved.
    {"dd ff ff ff ff 01 02 03 04 05", errc::size_exceeded, 0},
    {"df ff ff ff ff 01 02 03 04 05", errc::size_exceeded, 0},
    {"81 01", errc::size_exceeded, 0},                // map of 1 entry in 1 byte
    {"93 01 02", errc::size_exceeded, 0},
    {"92 cd 01", errc::unexpected_eof, 3},            // uint 16 cut short inside an array
    {"92 92 01", errc::size_exceeded, 1},
    {"01 02", errc::trailing_content, 1},
    {"d6 ff 00 00", errc::size_exceeded, 0},
    {"c7 05 ff 00 00 00 00 00", errc::malformed, 0},  // timestamp of 5 bytes
    {"d7 ff ff ff ff ff 00 00 00 00", errc::malformed, 0},  // nanoseconds above 999999999
};

// Any value may be a map key (DESIGN section 2; the spec's map holds "N objects" as keys):
// hand-written vectors through the fast path and through the ordinary reader (int_width=keep
// takes it), both giving the same document, written back byte for byte.
TEST(MsgpackDecode, ContainerKeys) {
    const struct {
        const char* hex;
        const char* value;
    } cases[] = {
        {"81 92 01 02 03", "{[1,2]:3}"},                      // {[1, 2]: 3}
        {"81 81 a1 62 01 a1 78", "{{\"b\":1}:\"x\"}"},       // {{"b": 1}: "x"}
        {"82 a1 61 01 92 01 02 a1 78", "{\"a\":1,[1,2]:\"x\"}"},
        {"81 90 80", "{[]:{}}"},                              // {[]: {}}
        {"81 81 92 01 02 91 03 04", "{{[1,2]:[3]}:4}"},         // a key inside a key
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.hex);
        document fast = test::must_decode(format_id::msgpack, hex(c.hex));
        EXPECT_EQ(dbg(fast), c.value);
        decode_options keep;
        keep.keep_int_width = true;
        document slow = test::must_decode(format_id::msgpack, hex(c.hex), keep);
        EXPECT_TRUE(equal(fast, slow)) << dbg(slow);
        EXPECT_EQ(to_hex(test::must_encode(format_id::msgpack, fast)), to_hex(hex(c.hex)));
    }
}

TEST(MsgpackDecode, ErrorTable) {
    test::expect_hex_errors(format_id::msgpack, error_table, 0);  // binary formats have no lines
}

TEST(MsgpackDecode, ErrorPathAndMessage) {
    test::expect_decode_error(format_id::msgpack, hex("82 a1 61 01 a1 62 92 01 c1"),
                              {.code = errc::malformed,
                               .offset = 8,
                               .message = "the byte 0xc1 is never used in msgpack",
                               .path = "/b/1"});
}

TEST(MsgpackDecode, DepthLimit) {
    const decode_options opt = max_depth(10);
    std::string in(10, '\x91');
    in += '\x01';
    EXPECT_TRUE(test::must_decode(format_id::msgpack, in, opt).root().size() == 1);
    in.insert(0, "\x91");
    error e = test::decode_error(format_id::msgpack, in, opt);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 10u);
    // The default limit (512) stops a deep input without exhausting the stack.
    std::string deep(100000, '\x91');
    EXPECT_EQ(test::decode_error(format_id::msgpack, deep).code, errc::depth_exceeded);
}

// ---- encoding ----

std::string encoded_json(std::string_view json, const encode_options& opt = {}) {
    return to_hex(test::must_encode(format_id::msgpack, test::must_decode(format_id::json, json), opt));
}

TEST(MsgpackEncode, SmallestForm) {
    const test::text_case rows[] = {
        {"0", "00"},
        {"127", "7f"},
        {"128", "cc 80"},
        {"255", "cc ff"},
        {"256", "cd 01 00"},
        {"65535", "cd ff ff"},
        {"65536", "ce 00 01 00 00"},
        {"4294967295", "ce ff ff ff ff"},
        {"4294967296", "cf 00 00 00 01 00 00 00 00"},
        {"18446744073709551615", "cf ff ff ff ff ff ff ff ff"},
        {"-1", "ff"},
        {"-32", "e0"},
        {"-33", "d0 df"},
        {"-128", "d0 80"},
        {"-129", "d1 ff 7f"},
        {"-32768", "d1 80 00"},
        {"-32769", "d2 ff ff 7f ff"},
        {"-2147483648", "d2 80 00 00 00"},
        {"-2147483649", "d3 ff ff ff ff 7f ff ff ff"},
        {"-9223372036854775808", "d3 80 00 00 00 00 00 00 00"},
        {"1.5", "cb 3f f8 00 00 00 00 00 00"},
        {"0.5", "cb 3f e0 00 00 00 00 00 00"},  // doubles stay float64
        {"null", "c0"},
        {"[true,false]", "92 c3 c2"},
        {"\"\"", "a0"},
        {"\"1234567890123456789012345678901\"",
         "bf 31 32 33 34 35 36 37 38 39 30 31 32 33 34 35 36 37 38 39 30 31 32 33 34 35 36 37 38 "
         "39 30 31"},
        {"\"12345678901234567890123456789012\"",
         "d9 20 31 32 33 34 35 36 37 38 39 30 31 32 33 34 35 36 37 38 39 30 31 32 33 34 35 36 37 "
         "38 39 30 31 32"},
        {"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]",
         "9f 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"},
        {"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]",
         "dc 00 10 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10"},
        {"{\"a\":1,\"b\":[]}", "82 a1 61 01 a1 62 90"},
    };
    for (const auto& r : rows) {
        EXPECT_EQ(encoded_json(r.input), r.want) << r.input;
    }
}

// canonical=true: the shortest exact float, as CBOR's preferred serialization (RFC 8949
// section 4.1): float 32 when it gives back the same double, float 64 otherwise. A NaN is
// float 32 when its payload has no bits below the float's 23 (zero-padding gives it back),
// with sign, quiet bit and payload kept. Without canonical every double stays float 64.
std::string float_bytes(std::uint64_t bits, bool canonical) {
    double d;
    std::memcpy(&d, &bits, 8);
    document doc;
    builder b(doc);
    b.add_double(d);
    encode_options opt;
    opt.canonical = canonical;
    return to_hex(test::must_encode(format_id::msgpack, doc, opt));
}

TEST(MsgpackEncode, CanonicalWritesTheShortestExactFloat) {
    struct {
        std::uint64_t bits;
        const char* canonical;
    } cases[] = {
        {0x3fe0000000000000, "ca 3f 00 00 00"},           // 0.5
        {0x3ff0000000000000, "ca 3f 80 00 00"},           // 1.0
        {0x0000000000000000, "ca 00 00 00 00"},           // 0.0
        {0x8000000000000000, "ca 80 00 00 00"},           // -0.0
        {0x7ff0000000000000, "ca 7f 80 00 00"},           // Infinity
        {0xfff0000000000000, "ca ff 80 00 00"},           // -Infinity
        {0x47efffffe0000000, "ca 7f 7f ff ff"},           // FLT_MAX
        {0x36a0000000000000, "ca 00 00 00 01"},           // 2^-149, the least float subnormal
        {0x3fb99999a0000000, "ca 3d cc cc cd"},           // 0.1f widened
        {0x3fb999999999999a, "cb 3f b9 99 99 99 99 99 9a"},  // 0.1 needs 64 bits
        {0x3690000000000000, "cb 36 90 00 00 00 00 00 00"},  // 2^-150: below every float
        {0x47f0000000000000, "cb 47 f0 00 00 00 00 00 00"},  // 2^128: above FLT_MAX
        {0x47efffffe0000001, "cb 47 ef ff ff e0 00 00 01"},  // FLT_MAX + 1 ulp of double
        {0x7ff8000000000000, "ca 7f c0 00 00"},           // the quiet NaN
        {0xfff8000000000000, "ca ff c0 00 00"},           // its negative
        {0x7ffc000020000000, "ca 7f e0 00 01"},           // payload in the float's 23 bits
        {0x7ff4000000000000, "ca 7f a0 00 00"},           // signalling, kept signalling
        {0x7ff8000000000001, "cb 7f f8 00 00 00 00 00 01"},  // payload below: 64 bits
        {0x7ff0000000000001, "cb 7f f0 00 00 00 00 00 01"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.canonical);
        EXPECT_EQ(float_bytes(c.bits, true), c.canonical);
        EXPECT_EQ(float_bytes(c.bits, false).substr(0, 2), "cb");
        // Decoding gives back the very same double, NaN bits included.
        document back = test::must_decode(format_id::msgpack, hex(c.canonical));
        double d = back.root().get_double();
        std::uint64_t got;
        std::memcpy(&got, &d, 8);
        EXPECT_EQ(got, c.bits);
    }
}

TEST(MsgpackEncode, LongStringsArraysMaps) {
    std::string s300 = "\"" + std::string(300, 'a') + "\"";
    EXPECT_EQ(encoded_json(s300).substr(0, 8), "da 01 2c");
    std::string s70k = "\"" + std::string(70000, 'a') + "\"";
    EXPECT_EQ(encoded_json(s70k).substr(0, 14), "db 00 01 11 70");
    document d;
    builder b(d);
    b.begin_map();
    for (int i = 0; i < 16; ++i) {
        b.add_int(i);
        b.add_null();
    }
    b.end_map();
    EXPECT_EQ(to_hex(test::must_encode(format_id::msgpack, d)).substr(0, 8), "de 00 10");
    d.clear();
    b.reset();
    b.begin_array();
    for (int i = 0; i < 65536; ++i) {
        b.add_null();
    }
    b.end_array();
    EXPECT_EQ(to_hex(test::must_encode(format_id::msgpack, d)).substr(0, 14), "dd 00 01 00 00");
}

std::string encode_with(void (*fill)(builder&), const encode_options& opt = {}) {
    document d;
    builder b(d);
    fill(b);
    return to_hex(test::must_encode(format_id::msgpack, d, opt));
}

TEST(MsgpackEncode, BytesExtAndTimestamps) {
    EXPECT_EQ(encode_with([](builder& b) { b.add_bytes(std::string(3, '\x01')); }),
              "c4 03 01 01 01");
    EXPECT_EQ(encode_with([](builder& b) { b.add_bytes(std::string(256, 'x')); }).substr(0, 8),
              "c5 01 00");
    EXPECT_EQ(encode_with([](builder& b) {
                  b.begin_tagged(static_cast<std::uint64_t>(-2), tag_space::msgpack_ext);
                  b.add_bytes("\x10");
              }),
              "d4 fe 10");
    EXPECT_EQ(encode_with([](builder& b) {
                  b.begin_tagged(5, tag_space::msgpack_ext);
                  b.add_bytes(std::string(16, '\0'));
              }),
              "d8 05 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00");
    EXPECT_EQ(encode_with([](builder& b) {
                  b.begin_tagged(7, tag_space::msgpack_ext);
                  b.add_bytes("pqr");
              }),
              "c7 03 07 70 71 72");
    EXPECT_EQ(encode_with([](builder& b) {
                  b.begin_tagged(7, tag_space::msgpack_ext);
                  b.add_bytes(std::string(300, 'z'));
              }).substr(0, 11),
              "c8 01 2c 07");
    // Timestamps: the smallest of the three forms.
    auto ts = [](const char* text) {
        document d;
        builder b(d);
        b.add_timestamp(text, timestamp_kind::offset_date_time);
        return to_hex(test::must_encode(format_id::msgpack, d));
    };
    EXPECT_EQ(ts("2018-01-02T03:04:05Z"), "d6 ff 5a 4a f6 a5");
    EXPECT_EQ(ts("1970-01-01T00:00:00Z"), "d6 ff 00 00 00 00");
    EXPECT_EQ(ts("2106-02-07T06:28:15Z"), "d6 ff ff ff ff ff");
    EXPECT_EQ(ts("2018-01-02T03:04:05.678901234Z"), "d7 ff a1 dc d7 c8 5a 4a f6 a5");
    EXPECT_EQ(ts("2106-02-07T06:28:16Z"), "d7 ff 00 00 00 01 00 00 00 00");
    EXPECT_EQ(ts("2514-05-30T01:53:04Z"), "c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00");
    EXPECT_EQ(ts("1969-12-31T23:59:59.999999999Z"),
              "c7 0c ff 3b 9a c9 ff ff ff ff ff ff ff ff ff");
    // Texts the extension cannot give back unchanged stay text (DESIGN section 3).
    EXPECT_EQ(ts("2018-01-02T03:04:05+01:00"),
              "b9 32 30 31 38 2d 30 31 2d 30 32 54 30 33 3a 30 34 3a 30 35 2b 30 31 3a 30 30");
    EXPECT_EQ(ts("2018-01-02T03:04:05.50Z").substr(0, 2), "b7");
    EXPECT_EQ(ts("2016-12-31T23:59:60Z").substr(0, 2), "b4");
    document d;
    builder b(d);
    b.add_timestamp("1979-05-27", timestamp_kind::local_date);
    EXPECT_EQ(to_hex(test::must_encode(format_id::msgpack, d)), "aa 31 39 37 39 2d 30 35 2d 32 37");
}

TEST(MsgpackEncode, TimestampsRoundTrip) {
    for (const char* text : {"2018-01-02T03:04:05Z", "2018-01-02T03:04:05.5Z",
                             "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
                             "1900-02-28T12:00:00.000001Z", "2000-02-29T00:00:00Z"}) {
        document d;
        builder b(d);
        b.add_timestamp(text, timestamp_kind::offset_date_time);
        std::string bytes = test::must_encode(format_id::msgpack, d);
        EXPECT_NE(static_cast<unsigned char>(bytes[0]) & 0xe0, 0xa0) << text << " became a str";
        document back = test::must_decode(format_id::msgpack, bytes);
        EXPECT_TRUE(equal(d, back)) << text << " -> " << dbg(back);
    }
}

TEST(MsgpackEncode, BignumIsLossy) {
    document d = test::must_decode(format_id::json, R"({"a":[1,123456789012345678901234567890]})");
    output_buffer out;
    auto r = encode(format_id::msgpack, d, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::unrepresentable);
    EXPECT_EQ(r.error().path, "/a/1");
    EXPECT_EQ(r.error().message,
              "bignum 123456789012345678901234567890 is not representable in msgpack");
    lossy_encode lossy;
    out.clear();
    ASSERT_TRUE(encode(format_id::msgpack, d, out, lossy.opt));
    EXPECT_EQ(dbg(test::must_decode(format_id::msgpack, out.view())),
              "{\"a\":[1,\"123456789012345678901234567890\"]}");
    expect_report(lossy.report, {{"bignum_to_string", "/a/1"}});
}

TEST(MsgpackEncode, ForeignTagsAreLossy) {
    document d;
    builder b(d);
    b.begin_array();
    b.begin_tagged(32, tag_space::cbor);
    b.add_string("http://example.com");
    b.end_array();
    test::expect_error(test::encode_error_of(format_id::msgpack, d),
                       {.code = errc::unrepresentable,
                        .message = "CBOR tag 32 is not representable in msgpack", .path = "/0"});
    encode_options opt;
    opt.lossy = true;
    EXPECT_EQ(to_hex(test::must_encode(format_id::msgpack, d, opt)).substr(0, 5), "91 b2");
}

TEST(MsgpackRoundTrip, EveryKindItHolds) {
    const char* inputs[] = {
        "93 cf ff ff ff ff ff ff ff ff d3 80 00 00 00 00 00 00 00 cb 7f f0 00 00 00 00 00 00",
        "82 c4 01 00 d6 ff 00 00 00 01 d4 05 10 c0",
        "81 a3 e6 97 a5 92 ca 3f c0 00 00 a0",
    };
    for (const char* h : inputs) {
        document d = test::must_decode(format_id::msgpack, hex(h));
        document back = test::must_decode(format_id::msgpack, test::must_encode(format_id::msgpack, d));
        EXPECT_TRUE(equal(d, back)) << h << ": " << dbg(d) << " vs " << dbg(back);
    }
}

// ---- msgpack-test-suite (kawanet) ----

// RFC 3339 text of an instant computed with the C library (independent of the codec).
std::string libc_time_text(std::int64_t sec, std::int64_t nsec) {
    std::time_t t = static_cast<std::time_t>(sec);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    std::string s = buf;
    if (nsec != 0) {
        std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(nsec));
        std::string frac = buf;
        while (frac.back() == '0') {
            frac.pop_back();
        }
        s += frac;
    }
    return s + "Z";
}

// The expected value of one suite case, written into `b` (a "bignum" entry gives the exact
// integer; a "number" alone is taken as JSON read it).
void expected_value(value c, builder& b) {
    for (auto [k, v] : c.entries()) {
        std::string_view key = k.get_string();
        if (key == "msgpack") {
            continue;
        }
        if (key == "nil" || key == "bool" || key == "string" || key == "array" || key == "map") {
            b.add_copy(v);
        } else if (key == "binary") {
            b.add_bytes(hex(v.get_string()));
        } else if (key == "bignum") {
            std::string text(v.get_string());
            if (text[0] == '-') {
                b.add_int(std::stoll(text));
            } else {
                b.add_uint(std::stoull(text));
            }
        } else if (key == "number") {
            if (c.find("bignum").doc() == nullptr) {
                b.add_copy(v);
            }
        } else if (key == "timestamp") {
            auto it = v.items().begin();
            std::int64_t sec = (*it).get_int();
            ++it;
            b.add_timestamp(libc_time_text(sec, (*it).get_int()), timestamp_kind::offset_date_time);
        } else if (key == "ext") {
            auto it = v.items().begin();
            std::int64_t type = (*it).get_int();
            ++it;
            b.begin_tagged(static_cast<std::uint64_t>(type), tag_space::msgpack_ext);
            b.add_bytes(hex((*it).get_string()));
        }
    }
}

double as_double(value v) {
    switch (v.kind()) {
        case kind::int64: return static_cast<double>(v.get_int());
        case kind::uint64: return static_cast<double>(v.get_uint());
        default: return v.get_double();
    }
}

TEST(MsgpackConformance, MsgpackTestSuite) {
    POLYCODEC_REQUIRE_CORPUS("msgpack/dist/msgpack-test-suite.json", path);
    document suite = test::must_decode(format_id::json, test::read_file(path));
    ASSERT_FALSE(suite.empty());
    int decoded_ok = 0, encodings = 0, cases = 0;
    std::vector<std::string> not_first;
    for (auto [group, list] : suite.root().entries()) {
        for (value c : list.items()) {
            ++cases;
            document want;
            builder b(want);
            expected_value(c, b);
            value number = c.find("number");
            bool by_number = number.doc() != nullptr;
            value forms = c.find("msgpack");
            std::string first;
            for (value f : forms.items()) {
                ++encodings;
                std::string bytes = hex(f.get_string());
                if (first.empty()) {
                    first = bytes;
                }
                document got;
                auto r = decode(format_id::msgpack, bytes, got);
                ASSERT_TRUE(r) << group.get_string() << " " << f.get_string() << ": "
                               << describe(r.error());
                if (by_number) {
                    EXPECT_EQ(as_double(got.root()), as_double(number))
                        << group.get_string() << " " << f.get_string();
                } else {
                    EXPECT_TRUE(equal(got, want)) << group.get_string() << " " << f.get_string()
                                                   << ": " << dbg(got) << " != " << dbg(want);
                }
                ++decoded_ok;
            }
            // Our encoding of the value: the suite's first form, except where that form is
            // not the one we choose (listed and explained below).
            std::string ours = test::must_encode(format_id::msgpack, want);
            if (ours != first) {
                not_first.push_back(to_hex(first) + " -> " + to_hex(ours));
                bool listed = false;
                for (value f : forms.items()) {
                    listed = listed || hex(f.get_string()) == ours;
                }
                EXPECT_TRUE(listed) << to_hex(ours) << " is none of the suite's forms";
            }
        }
    }
    // 0.5 and -0.5: the suite lists float 32 first; a double is always written as float 64.
    // 9223372036854775807: the suite lists int 64 (d3) first; non-negative integers use the
    // uint family (cf), the same 9 bytes.
    const std::vector<std::string> expected_not_first = {
        "ca 3f 00 00 00 -> cb 3f e0 00 00 00 00 00 00",
        "ca bf 00 00 00 -> cb bf e0 00 00 00 00 00 00",
        "d3 7f ff ff ff ff ff ff ff -> cf 7f ff ff ff ff ff ff ff",
    };
    EXPECT_EQ(not_first, expected_not_first);
    EXPECT_EQ(cases, 85);
    EXPECT_EQ(decoded_ok, encodings);
    std::printf("msgpack-test-suite: %d cases, %d/%d encodings decoded\n", cases, decoded_ok,
                encodings);
}

}  // namespace
}  // namespace polycodec::test
