// Tests of the smile codec: spec examples, error positions, exact encodings. Vectors are
// worked out by hand from the Smile specification 1.0.4 and checked against the bytes that
// Jackson's SmileGenerator writes (tests/differential/test_smile.py runs Jackson itself).
#include <string>

#include "support/support.hpp"

namespace polycodec::test {
namespace {

const std::string header = hex("3a 29 0a 00");         // ":)\n", version 0, no flags
const std::string header_names = hex("3a 29 0a 01");   // shared names
const std::string header_values = hex("3a 29 0a 02");  // shared values
const std::string header_raw = hex("3a 29 0a 04");     // raw binary allowed

// "0x20: "" (empty String), 0x21: null, 0x22 / 0x23: false / true"; small integers "Zigzag
// encoded, 5 LSB used to get values from -16 to +15"; VInts "big endian ... Last byte has its
// MSB (bit #7) set, but bit #6 NOT set".
TEST(SmileDecode, ValueTokens) {
    const text_case cases[] = {
        {header + hex("21"), "null"},
        {header + hex("22"), "false"},
        {header + hex("23"), "true"},
        {header + hex("20"), "\"\""},
        {header + hex("c0"), "0"},
        {header + hex("c1"), "-1"},
        {header + hex("c2"), "1"},
        {header + hex("de"), "15"},
        {header + hex("df"), "-16"},
        {header + hex("24 a0"), "16"},
        {header + hex("24 a1"), "-17"},
        {header + hex("24 18 35 80"), "100000"},
        {header + hex("24 1f 7f 7f 7f bf"), "-2147483648"},
        {header + hex("25 0b 1d 1c 79 62 7f a4"), "12345678901234"},
        {header + hex("25 03 7f 7f 7f 7f 7f 7f 7f 7f be"), "9223372036854775807"},
        {header + hex("25 03 7f 7f 7f 7f 7f 7f 7f 7f bf"), "-9223372036854775808"},
        // BigInteger: VInt byte count, 7-bit two's complement bytes (Java toByteArray)
        {header + hex("26 89 00 20 00 00 00 00 00 00 00 00 00"), "9223372036854775808u"},
        {header + hex("26 8d 7f 1c 22 6f 00 24 79 0c 0f 44 36 1c 07 54 2e"),
         "-123456789012345678901234567890n"},
        {header + hex("26 81 01 00"), "2"},
        // float32 (5 bytes) and float64 (10 bytes), 7 bits each, right-aligned; Jackson sets
        // the padding bits of a negative float32, they are ignored
        {header + hex("28 0b 7e 00 00 00"), "-1.5"},
        {header + hex("28 7b 7e 00 00 00"), "-1.5"},
        {header + hex("29 00 3f 70 00 00 00 00 00 00 00"), "0.5"},
        {header + hex("29 00 7f 7c 00 00 00 00 00 00 00"), "NaN"},
        {header + hex("29 00 7f 78 00 00 00 00 00 00 00"), "Infinity"},
        // BigDecimal -1.50: zigzag scale 2, unscaled -150 = ff 6a
        {header + hex("2a 84 82 7f 5a 02"), "tag(4, [-2,-150])"},
        // tiny/short ASCII, tiny/short Unicode, long text
        {header + hex("40") + "a", "\"a\""},
        {header + hex("5f") + std::string(32, 'x'), "\"" + std::string(32, 'x') + "\""},
        {header + hex("60") + std::string(33, 'x'), "\"" + std::string(33, 'x') + "\""},
        {header + hex("7f") + std::string(64, 'x'), "\"" + std::string(64, 'x') + "\""},
        {header + hex("80 c3 a9"), "\"\xc3\xa9\""},
        {header + hex("e0") + "abc" + hex("fc"), "\"abc\""},
        {header + hex("e4 c3 a9 fc"), "\"\xc3\xa9\""},
        // binary: 7-bit (00 01 ff 80, as Jackson writes it) and raw
        {header + hex("e8 84 00 00 3f 78 00"), "b64\"AAH/gA==\""},
        {header + hex("e8 80"), "b64\"\""},
        {header_raw + hex("fd 83 00 ff fc"), "b64\"AP/8\""},
        // structures; the optional end-of-content marker
        {header + hex("f8 f9"), "[]"},
        {header + hex("f8 c2 21 f8 f9 f9"), "[1,null,[]]"},
        {header + hex("fa fb"), "{}"},
        {header + hex("fa 20 c2 fb"), "{\"\":1}"},
        {header + hex("21 ff"), "null"},
        // no header: the defaults (shared names on)
        {hex("fa 80 61 c2 80 62 fa 40 c4 fb fb"), "{\"a\":1,\"b\":{\"a\":2}}"},
    };
    expect_decodes(format_id::smile, cases);
}

// Key mode: "0x40 - 0x7F: "Short" shared key name reference", "0x80 - 0xBF: Short ASCII names",
// "0xC0 - 0xF7: Short Unicode names", "0x34: Long (not-yet-shared) Unicode name".
TEST(SmileDecode, KeyTokens) {
    const text_case cases[] = {
        {header_names + hex("fa 80 61 c2 80 62 fa 40 c4 fb fb"), "{\"a\":1,\"b\":{\"a\":2}}"},
        {header + hex("fa c0 c3 a9 21 fb"), "{\"\xc3\xa9\":null}"},
    };
    expect_decodes(format_id::smile, cases);
    std::string long_name(70, 'k');
    EXPECT_EQ(decoded_as(format_id::smile,
                         header_names + hex("fa 34") + long_name + hex("fc c2 40 c4 fb")),
              "{\"" + long_name + "\":1,\"" + long_name + "\":2}");
}

// A header with shared names and the start of an object holding `count` entries: keys
// `prefix`0, `prefix`1, ... (short ASCII names), each with the value `value`.
std::string named_entries(const std::string& prefix, int count, const std::string& value) {
    std::string out = header_names + hex("fa");
    for (int i = 0; i < count; ++i) {
        std::string name = prefix + std::to_string(i);
        out += static_cast<char>(0x80 + name.size() - 1);
        out += name;
        out += value;
    }
    return out;
}

// "Shared key resolution is done same way as shared String value resolution"; long references
// carry 10 bits; "If it already has 1024 values, it MUST clear out buffer and start from first
// entry".
TEST(SmileDecode, SharedNameReferences) {
    std::string in = named_entries("n", 65, hex("c0"));
    in += hex("30 40 c2");  // long reference 64: "n64"
    in += hex("7f c4");     // short reference 63: "n63"
    in += hex("fb");
    document d = test::must_decode(format_id::smile, in);
    ASSERT_EQ(d.root().size(), 67u);
    auto it = d.root().entries().begin();
    for (int i = 0; i < 65; ++i) {
        ++it;
    }
    EXPECT_EQ((*it).key.get_string(), "n64");
    ++it;
    EXPECT_EQ((*it).key.get_string(), "n63");

    // 1025 names: the 1025th starts the table again at index 0.
    std::string reset = named_entries("m", 1025, hex("21"));
    reset += hex("40 23 fb");
    document r = test::must_decode(format_id::smile, reset);
    std::string last;
    for (auto [k, v] : r.root().entries()) {
        last = std::string(k.get_string()) + "=" + to_debug_string(v);
    }
    EXPECT_EQ(last, "m1024=true");
}

TEST(SmileDecode, SharedValueReferences) {
    const text_case cases[] = {
        {header_values + hex("f8 41 61 62 01 20 01 f9"), "[\"ab\",\"ab\",\"\",\"ab\"]"},
        // Long text is not shared: the reference points to the short one.
        {header_values + hex("f8 e0 78 fc 40 79 01 f9"), "[\"x\",\"y\",\"y\"]"},
    };
    expect_decodes(format_id::smile, cases);
    std::string in = header_values + hex("f8");
    for (int i = 0; i < 32; ++i) {
        std::string s = "v" + std::to_string(i);
        in += static_cast<char>(0x40 + s.size() - 1);
        in += s;
    }
    in += hex("ec 1f f9");  // long reference 31: "v31"
    document d = test::must_decode(format_id::smile, in);
    ASSERT_EQ(d.root().size(), 33u);
    value last;
    for (value v : d.root().items()) {
        last = v;
    }
    EXPECT_EQ(last.get_string(), "v31");
}

TEST(SmileDecode, Errors) {
    const test::bytes_error_case cases[] = {
        {"", errc::unexpected_eof, 0},
        {hex("3a 29"), errc::unexpected_eof, 2},
        {hex("3a 28 0a 00 21"), errc::malformed, 0},
        {hex("3a 29 0a 10 21"), errc::malformed, 3},  // version 1
        {header, errc::unexpected_eof, 4},
        {header + hex("24"), errc::unexpected_eof, 5},
        {header + hex("24 7f 7f 7f 7f 7f 80"), errc::malformed, 5},    // int32 VInt of 6 bytes
        {header + hex("24 3f 7f 7f 7f bf"), errc::invalid_number, 5},  // above 32 bits
        {header + hex("24 c0"), errc::malformed, 5},                   // last VInt byte 0xc0
        {header + hex("2c"), errc::malformed, 4},                      // reserved
        {header + hex("00"), errc::malformed, 4},
        {header + hex("28 80 00 00 00 00"), errc::malformed, 5},
        {header + hex("01"), errc::malformed, 4},         // shared values disabled
        {header_values + hex("01"), errc::malformed, 4},  // nothing seen yet
        {header_values + hex("f8 41 61 62 ec 00 f9"), errc::malformed, 8},  // long ref below 31
        {header_names + hex("fa 41 21 fb"), errc::malformed, 5},            // key reference 1 of 0
        {header + hex("fa 40 21 fb"), errc::malformed, 5},                  // shared names disabled
        {header_names + hex("fa 30 05 21 fb"), errc::malformed, 5},         // long key ref below 64
        {header + hex("fa 21 21 fb"), errc::malformed, 5},                  // no key token
        {header + hex("fa 80 61"), errc::unexpected_eof, 7},
        {header + hex("f8 21"), errc::unexpected_eof, 6},
        {header + hex("f9"), errc::malformed, 4},
        {header + hex("ff"), errc::unexpected_eof, 4},
        {header + hex("41 61 ff"), errc::invalid_utf8, 6},
        {header + hex("42 61"), errc::size_exceeded, 4},
        {header + hex("e0 61 62"), errc::unexpected_eof, 7},
        {header + hex("e8 8a 00 01"), errc::size_exceeded, 4},
        {header + hex("e8 7f 7f 7f 7f 7f 7f 7f 7f 81"), errc::size_exceeded, 4},
        {header + hex("e8 81 7f 7f"), errc::malformed, 7},  // bits past the last byte
        {header + hex("fd 81 00"), errc::malformed, 4},     // raw binary not enabled
        {header_raw + hex("fd 8f 00"), errc::size_exceeded, 4},
        {header + hex("26 80"), errc::malformed, 4},            // BigInteger of 0 bytes
        {header + hex("26 01 80 80"), errc::size_exceeded, 4},  // 8192 bytes: over the limit
        {header + hex("21 21"), errc::trailing_content, 5},
        {header + hex("21 ff 21"), errc::trailing_content, 6},
    };
    test::expect_byte_errors(format_id::smile, cases, 0);
}

TEST(SmileDecode, DepthLimit) {
    std::string deep = header + std::string(600, static_cast<char>(0xf8));
    error e = test::decode_error(format_id::smile, deep);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    EXPECT_EQ(e.offset, 4u + 512u);
    std::string objects = header;
    for (int i = 0; i < 600; ++i) {
        objects += hex("fa 80 61");
    }
    e = test::decode_error(format_id::smile, objects);
    EXPECT_EQ(e.code, errc::depth_exceeded);
}

TEST(SmileDecode, ErrorPathNamesTheValue) {
    error e = test::decode_error(format_id::smile, header + hex("fa 80 61 f8 21 41 ff f9 fb"));
    EXPECT_EQ(e.code, errc::invalid_utf8);
    EXPECT_EQ(e.offset, 10u);
    EXPECT_EQ(e.path, "/a/1");
}

// ---- encoder: exact bytes ----

struct encode_case {
    const char* json;
    std::string bytes;  // after the header 3a 29 0a 01
};

TEST(SmileEncode, ExactBytes) {
    const encode_case cases[] = {
        {"null", hex("21")},
        {"[true,false,\"\"]", hex("f8 23 22 20 f9")},
        {"0", hex("c0")},
        {"-16", hex("df")},
        {"15", hex("de")},
        {"16", hex("24 a0")},
        {"-17", hex("24 a1")},
        {"100000", hex("24 18 35 80")},
        {"2147483648", hex("25 20 00 00 00 80")},
        {"-9223372036854775808", hex("25 03 7f 7f 7f 7f 7f 7f 7f 7f bf")},
        {"9223372036854775808", hex("26 89 00 20 00 00 00 00 00 00 00 00 00")},
        {"-123456789012345678901234567890",
         hex("26 8d 7f 1c 22 6f 00 24 79 0c 0f 44 36 1c 07 54 2e")},
        {"0.5", hex("29 00 3f 70 00 00 00 00 00 00 00")},
        {"\"a\"", hex("40 61")},
        {"\"\xc3\xa9\"", hex("80 c3 a9")},
        {"{\"a\":1,\"b\":{\"a\":2}}", hex("fa 80 61 c2 80 62 fa 40 c4 fb fb")},
        {"{\"\":1}", hex("fa 20 c2 fb")},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(to_hex(encode_json_as(format_id::smile, c.json)), to_hex(header_names + c.bytes))
            << c.json;
    }
}

TEST(SmileEncode, StringAndNameLengths) {
    auto body = [](std::string_view json) {
        return encode_json_as(format_id::smile, json).substr(4);
    };
    EXPECT_EQ(to_hex(body("\"" + std::string(32, 'x') + "\"").substr(0, 1)), "5f");
    EXPECT_EQ(to_hex(body("\"" + std::string(33, 'x') + "\"").substr(0, 1)), "60");
    EXPECT_EQ(to_hex(body("\"" + std::string(64, 'x') + "\"").substr(0, 1)), "7f");
    std::string long_text = body("\"" + std::string(65, 'x') + "\"");
    EXPECT_EQ(to_hex(long_text.substr(0, 1)), "e0");
    EXPECT_EQ(to_hex(long_text.substr(long_text.size() - 1)), "fc");
    std::string e_acute = "\xc3\xa9";
    std::string u33;  // 34 bytes
    for (int i = 0; i < 17; ++i) {
        u33 += e_acute;
    }
    EXPECT_EQ(to_hex(body("\"" + u33 + "\"").substr(0, 1)), "a0");
    // Names: ASCII up to 64 bytes short, Unicode up to 56 bytes short, else 0x34 ... 0xfc.
    EXPECT_EQ(to_hex(body("{\"" + std::string(64, 'k') + "\":1}").substr(1, 1)), "bf");
    EXPECT_EQ(to_hex(body("{\"" + std::string(65, 'k') + "\":1}").substr(1, 1)), "34");
    std::string u56, u58;
    for (int i = 0; i < 28; ++i) {
        u56 += e_acute;
    }
    u58 = u56 + e_acute;
    EXPECT_EQ(to_hex(body("{\"" + u56 + "\":1}").substr(1, 1)), "f6");
    EXPECT_EQ(to_hex(body("{\"" + u58 + "\":1}").substr(1, 1)), "34");
}

TEST(SmileEncode, LongNameReferencesAndReset) {
    // 1100 names: k0..k1023 fill the table, k1024 starts it again at index 0, so after the
    // first map k1024 is reference 0 (short, 0x40) and k1099 reference 75 (long, 0x30 0x4b).
    document d;
    builder b(d);
    b.begin_array();
    b.begin_map();
    for (int i = 0; i < 1100; ++i) {
        b.add_string("k" + std::to_string(i));
        b.add_null();
    }
    b.end_map();
    b.begin_map();
    b.add_string("k1024");
    b.add_int(1);
    b.add_string("k1099");
    b.add_int(2);
    b.end_map();
    b.end_array();
    std::string out = test::must_encode(format_id::smile, d);
    std::string tail = hex("fa 40 c2 30 4b c4 fb f9");
    ASSERT_GT(out.size(), tail.size());
    EXPECT_EQ(to_hex(out.substr(out.size() - tail.size())), to_hex(tail));
    EXPECT_TRUE(equal(d, test::must_decode(format_id::smile, out)));
}

TEST(SmileEncode, BinaryBigNumbersAndDecimals) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_bytes(hex("00 01 ff 80"));
    b.add_bytes("");
    b.begin_tagged(4);
    b.begin_array();
    b.add_int(-2);
    b.add_int(-150);
    b.end_array();
    b.add_bignum("-123456789012345678901234567890");
    b.end_array();
    EXPECT_EQ(to_hex(test::must_encode(format_id::smile, d)),
              to_hex(header_names + hex("f8 e8 84 00 00 3f 78 00 e8 80 2a 84 82 7f 5a 02 "
                                        "26 8d 7f 1c 22 6f 00 24 79 0c 0f 44 36 1c 07 54 2e f9")));
}

TEST(SmileEncode, KeysAndLossyCases) {
    document d;
    builder b(d);
    b.begin_map();
    b.add_int(7);
    b.add_null();
    b.add_string("7");
    b.add_null();
    b.end_map();
    // The integer key is the name "7"; the second "7" refers back to it.
    EXPECT_EQ(to_hex(test::must_encode(format_id::smile, d)),
              to_hex(header_names + hex("fa 80 37 21 40 21 fb")));

    document k = test::bool_keyed_map("x");
    test::expect_error(test::encode_error_of(format_id::smile, k),
                       {.code = errc::unrepresentable, .path = "/x/true"});
    encode_options opt;
    opt.lossy = true;
    EXPECT_EQ(to_hex(test::must_encode(format_id::smile, k, opt)),
              to_hex(header_names + hex("fa 80 78 fa 83") + "true" + hex("c2 fb fb")));

    document t;
    builder tb(t);
    tb.begin_tagged(32);
    tb.add_string("u");
    EXPECT_EQ(test::encode_error_of(format_id::smile, t).code, errc::unrepresentable);

    // A decimal exponent beyond Java's int scale.
    document big;
    builder bb(big);
    bb.begin_tagged(4);
    bb.begin_array();
    bb.add_int(std::int64_t{1} << 40);
    bb.add_int(1);
    bb.end_array();
    EXPECT_EQ(test::encode_error_of(format_id::smile, big).code, errc::unrepresentable);
    lossy_report report;
    opt.report = &report;
    EXPECT_EQ(test::must_encode(format_id::smile, big, opt).substr(5), "1E1099511627776");
    expect_report(report, {{"decimal_to_string"}});
}

TEST(SmileRoundTrip, RecordsFixture) {
    test::expect_stable_round_trip(format_id::smile, test::json_fixture("records.json"));
}

}  // namespace
}  // namespace polycodec::test
