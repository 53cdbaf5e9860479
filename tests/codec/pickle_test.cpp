// Tests of the pickle codec: what CPython's pickle.dumps writes (bytes taken from CPython 3.11,
// protocols 0-5), refused opcodes with their exact message, limits, exact encodings.
#include <string>
#include <vector>

#include "support/support.hpp"

namespace polycodec {
namespace {

using test::dbg;
using test::hex;

struct decode_case {
    const char* what;
    const char* pickle_hex;
    const char* expected;  // to_debug_string of the decoded value
};

// pickle.dumps(value, protocol=p).hex() from CPython 3.11.
const decode_case decode_cases[] = {
    {"None p0", "4e2e", "null"},
    {"None p5", "80054e2e", "null"},
    {"True p0 (I01)", "4930310a2e", "true"},
    {"False p1 (I00)", "4930300a2e", "false"},
    {"True p2 NEWTRUE", "8002882e", "true"},
    {"255 p0 INT", "493235350a2e", "255"},
    {"255 p1 BININT1", "4bff2e", "255"},
    {"-1 p5 BININT in a frame", "80059506000000000000004affffffff2e", "-1"},
    {"2**31 p0 LONG", "4c323134373438333634384c0a2e", "2147483648"},
    {"2**31 p2 LONG1", "80028a0500000080002e", "2147483648"},
    {"2**64 p0 LONG", "4c31383434363734343037333730393535313631364c0a2e", "18446744073709551616n"},
    {"2**64 p5 LONG1", "8005950c000000000000008a090000000000000000012e", "18446744073709551616n"},
    {"2**63 p3 LONG1", "80038a090000000000000080002e", "9223372036854775808u"},
    {"-2**63 p4 LONG1", "8004950b000000000000008a0800000000000000802e", "-9223372036854775808"},
    {"-2**63 p0 LONG", "4c2d393232333337323033363835343737353830384c0a2e", "-9223372036854775808"},
    {"1.5 p0 FLOAT", "46312e350a2e", "1.5"},
    {"1.5 p1 BINFLOAT", "473ff80000000000002e", "1.5"},
    // 'h\xe9\\u\U0001f600\n': protocol 0 writes raw-unicode-escape with \u005c for '\'.
    {"str p0 UNICODE", "5668e95c7530303563755c5530303031663630305c75303030610a70300a2e",
     "\"h\xc3\xa9\\\\u\xf0\x9f\x98\x80\\u000a\""},
    {"str p1 BINUNICODE", "580a00000068c3a95c75f09f98800a71002e",
     "\"h\xc3\xa9\\\\u\xf0\x9f\x98\x80\\u000a\""},
    {"str p5 SHORT_BINUNICODE", "8005950e000000000000008c0a68c3a95c75f09f98800a942e",
     "\"h\xc3\xa9\\\\u\xf0\x9f\x98\x80\\u000a\""},
    {"bytes p0 _codecs.encode",
     "635f636f646563730a656e636f64650a70300a28566162ff0a70310a566c6174696e310a70320a7470330a527"
     "0340a2e",
     "b64\"YWL/\""},
    {"bytes p2 _codecs.encode",
     "8002635f636f646563730a656e636f64650a710058040000006162c3bf710158060000006c6174696e3171028"
     "671035271042e",
     "b64\"YWL/\""},
    {"bytes p3 SHORT_BINBYTES", "800343036162ff71002e", "b64\"YWL/\""},
    {"empty bytes p1 __builtin__.bytes", "635f5f6275696c74696e5f5f0a62797465730a7100295271012e",
     "b64\"\""},
    {"bytearray p0",
     "635f5f6275696c74696e5f5f0a6279746561727261790a70300a28635f636f646563730a"
     "656e636f64650a70310a2856780a70320a566c6174696e310a70330a7470340a5270350a74"
     "70360a5270370a2e",
     "b64\"eA==\""},
    {"bytearray p3 builtins.bytearray",
     "8003636275696c74696e730a6279746561727261790a710043017871018571025271032e", "b64\"eA==\""},
    {"bytearray p4 STACK_GLOBAL",
     "80049522000000000000008c086275696c74696e73948c0962797465617272617994939443017894859452942e",
     "b64\"eA==\""},
    {"bytearray p5 BYTEARRAY8", "8005950c0000000000000096010000000000000078942e", "b64\"eA==\""},
    {"list p0", "286c70300a49310a61286c70310a49320a6156610a70320a61612e", "[1,[2,\"a\"]]"},
    {"list p1 APPENDS", "5d7100284b015d7101284b02580100000061710265652e", "[1,[2,\"a\"]]"},
    {"list p5 MEMOIZE", "80059511000000000000005d94284b015d94284b028c01619465652e",
     "[1,[2,\"a\"]]"},
    {"tuple p0", "2849310a49320a7470300a2e", "[1,2]"},
    {"tuple p2 TUPLE2", "80024b014b028671002e", "[1,2]"},
    {"dict p0", "286470300a56610a70310a49310a7349320a4e732e", "{\"a\":1,2:null}"},
    {"dict p5 SETITEMS", "8005950e000000000000007d94288c0161944b014b024e752e", "{\"a\":1,2:null}"},
    {"set p0 __builtin__.set",
     "635f5f6275696c74696e5f5f0a7365740a70300a28286c70310a49310a6149320a617470320a5270330a2e",
     "[1,2]"},
    {"set p3 builtins.set", "8003636275696c74696e730a7365740a71005d7101284b014b02658571025271032e",
     "[1,2]"},
    {"set p5 ADDITEMS", "80059509000000000000008f94284b014b02902e", "[1,2]"},
    {"frozenset p2",
     "8002635f5f6275696c74696e5f5f0a66726f7a656e7365740a71005d71014b0361857102527"
     "1032e",
     "[3]"},
    {"frozenset p5 FROZENSET", "8005950600000000000000284b0391942e", "[3]"},
    {"empty set p5", "80058f942e", "[]"},
    // The same list twice through the memo: [x, x] with x = [1].
    {"memo reference", "8005 5d 94 28 5d 94 4b01 61 6801 65 2e", "[[1],[1]]"},
    {"DUP", "80054b01322e", "<dup>"},
};

TEST(PickleDecode, ReadsWhatCPythonWrites) {
    for (const auto& c : decode_cases) {
        if (std::string(c.expected) == "<dup>") {
            continue;  // checked below: DUP leaves two values, STOP needs one
        }
        document d = test::must_decode(format_id::pickle, hex(c.pickle_hex));
        EXPECT_EQ(dbg(d), c.expected) << c.what;
    }
}

TEST(PickleDecode, MemoReferenceSeesLaterAppends) {
    // ( ] BINPUT 0, BINGET 0, TUPLE: a tuple holding one list twice; then BINGET 0, K 1,
    // APPEND fills the list after both references were taken, POP drops it. Python loads
    // ([1], [1]).
    document d =
        test::must_decode(format_id::pickle, hex("8005 28 5d 7100 6800 74 6800 4b01 61 30 2e"));
    EXPECT_EQ(dbg(d), "[[1],[1]]");
}

TEST(PickleDecode, DupLeavesTwoValues) {
    auto e = test::decode_error(format_id::pickle, hex("80054b01322e"));
    EXPECT_EQ(e.code, errc::malformed);
    EXPECT_EQ(e.offset, 5u);  // at STOP
}

TEST(PickleDecode, RecursiveListFails) {
    // l = []; l.append(l): EMPTY_LIST BINPUT 0 BINGET 0 APPEND STOP
    auto e = test::decode_error(format_id::pickle, hex("80055d71006800612e"));
    EXPECT_EQ(e.code, errc::malformed);
    EXPECT_NE(e.message.find("recursive"), std::string::npos);
}

// ---- refused opcodes ----

struct refused_case {
    const char* what;
    const char* pickle_hex;
    const char* opcode;
    std::uint64_t offset;
};

const refused_case refused_cases[] = {
    // pickle.dumps of a class whose __reduce__ returns (os.system, ("true",)), protocol 0.
    {"GLOBAL posix.system", "63706f7369780a73797374656d0a7030", "GLOBAL", 0},
    {"STACK_GLOBAL os.system", "80048c026f738c0673797374656d932e", "STACK_GLOBAL", 14},
    // REDUCE of a recognised global with a shape CPython never writes: set("abc").
    {"REDUCE set of a str", "8003636275696c74696e730a7365740a8c03616263855294", "REDUCE", 22},
    {"REDUCE of non-global", "80024e29522e", "REDUCE", 4},
    {"INST", "2869706f7369780a73797374656d0a2e", "INST", 1},
    {"OBJ", "28294e6f2e", "OBJ", 3},
    {"NEWOBJ", "80024e29812e", "NEWOBJ", 4},
    {"NEWOBJ_EX", "80044e297d922e", "NEWOBJ_EX", 5},
    {"BUILD", "80025d7d622e", "BUILD", 4},
    {"EXT1", "8002820100", "EXT1", 2},
    {"EXT2", "800283010000", "EXT2", 2},
    {"EXT4", "80028401000000", "EXT4", 2},
    {"PERSID", "5030", "PERSID", 0},
    {"BINPERSID", "80024e512e", "BINPERSID", 3},
};

TEST(PickleDecode, RefusesOpcodesThatImportOrCall) {
    for (const auto& c : refused_cases) {
        auto e = test::decode_error(format_id::pickle, hex(c.pickle_hex));
        EXPECT_EQ(e.code, errc::forbidden) << c.what;
        EXPECT_EQ(e.message, std::string("pickle opcode ") + c.opcode +
                                 " refused: it would import or call code")
            << c.what;
        EXPECT_EQ(e.offset, c.offset) << c.what;
    }
}

TEST(PickleDecode, RefusesOutOfBandBuffers) {
    auto e = test::decode_error(format_id::pickle, hex("8005972e"));
    EXPECT_EQ(e.code, errc::malformed);
    EXPECT_EQ(e.offset, 2u);
}

// ---- malformed input and limits ----

TEST(PickleDecode, Errors) {
    struct {
        const char* hex;
        errc code;
        std::uint64_t offset;
    } cases[] = {
        {"", errc::unexpected_eof, 0},                            // no STOP
        {"8005", errc::unexpected_eof, 2},                        // no STOP
        {"80054b", errc::unexpected_eof, 3},                      // BININT1 without its byte
        {"8005 58 ffffffff 61", errc::size_exceeded, 2},          // BINUNICODE claims 4 GiB
        {"8005 8d ffffffffffffff7f 2e", errc::size_exceeded, 2},  // BINUNICODE8
        {"8005 8b ffffff7f 2e", errc::size_exceeded, 2},          // LONG4 past the input
        {"8005 8c 02 c328 2e", errc::invalid_utf8, 4},            // bad UTF-8 in a str
        {"8005 68 05 2e", errc::malformed, 2},                    // BINGET of an empty memo
        {"8005 61 2e", errc::malformed, 2},                       // APPEND on an empty stack
        {"8005 652e", errc::malformed, 2},                        // APPENDS without a MARK
        {"8005 4e 4e 2e", errc::malformed, 4},                    // two values at STOP
        {"8005 4e 2e 4e", errc::trailing_content, 4},             // bytes after STOP
        {"8006 4e 2e", errc::malformed, 1},                       // protocol 6
        {"8005 ff", errc::malformed, 2},                          // unknown opcode
        {"8005 72 00001000 2e", errc::malformed, 2},              // LONG_BINPUT on an empty stack
        {"8005 4e 72 ffffff7f 2e", errc::size_exceeded, 3},       // memo index beyond the limit
        {"49 31 32 61 0a 2e", errc::invalid_number, 1},           // INT text with junk
    };
    for (const auto& c : cases) {
        auto e = test::decode_error(format_id::pickle, hex(c.hex));
        EXPECT_EQ(e.code, c.code) << c.hex << ": " << e.message;
        EXPECT_EQ(e.offset, c.offset) << c.hex << ": " << e.message;
    }
}

TEST(PickleDecode, DepthIsBounded) {
    // 1000 nested lists: ']' * 1000 then 'a' * 999 '.'.
    std::string p = "\x80\x05";
    p += std::string(1000, ']');
    p += std::string(999, 'a');
    p += '.';
    auto e = test::decode_error(format_id::pickle, p);
    EXPECT_EQ(e.code, errc::depth_exceeded);
    // Marks are bounded too.
    std::string marks = "\x80\x05" + std::string(100000, '(') + "N.";
    e = test::decode_error(format_id::pickle, marks);
    EXPECT_EQ(e.code, errc::depth_exceeded);
}

TEST(PickleDecode, MemoBombIsBounded) {
    // x0 = [1 MiB bytes]; x(i+1) = [x(i), x(i)] forty times: 2^40 MiB if expanded.
    std::string p = "\x80\x05";
    p += "\x8e";  // BINBYTES8 of 1 MiB
    std::uint64_t n = 1 << 20;
    for (int i = 0; i < 8; ++i) {
        p += static_cast<char>((n >> (8 * i)) & 0xff);
    }
    p += std::string(n, 'x');
    p += "\x94"
         "0";  // MEMOIZE -> 0, POP
    for (int i = 0; i < 40; ++i) {
        p += "(h";
        p += static_cast<char>(i);
        p += "h";
        p += static_cast<char>(i);
        p += "l\x94"
             "0";  // LIST, MEMOIZE -> i + 1, POP
    }
    p.back() = '.';  // the last list stays: STOP
    auto e = test::decode_error(format_id::pickle, p);
    EXPECT_EQ(e.code, errc::size_exceeded);
}

// ---- encoder ----

TEST(PickleEncode, ExactBytes) {
    struct {
        const char* json;
        const char* pickle_hex;
    } cases[] = {
        {"null", "80054e2e"},  // frame under 4 bytes: no FRAME
        {"true", "8005882e"},
        {"255", "80054bff2e"},
        {"65535", "8005 95 0400000000000000 4dffff 2e"},
        {"-1", "8005 95 0600000000000000 4affffffff 2e"},
        {"4294967296", "8005 95 0800000000000000 8a05 0000000001 2e"},
        {"-9223372036854775808", "8005 95 0b00000000000000 8a08 0000000000000080 2e"},
        {"18446744073709551615", "8005 95 0c00000000000000 8a09 ffffffffffffffff00 2e"},
        {"-18446744073709551616", "8005 95 0c00000000000000 8a09 0000000000000000ff 2e"},
        {"1.5", "8005 95 0a00000000000000 473ff8000000000000 2e"},
        {"\"ab\"", "8005 95 0500000000000000 8c026162 2e"},
        {"[]", "80055d2e"},
        {"[1]", "8005 95 0500000000000000 5d 4b01 61 2e"},
        {"[1,2]", "8005 95 0800000000000000 5d 28 4b01 4b02 65 2e"},
        {"{\"a\":null}", "8005 95 0700000000000000 7d 8c0161 4e 73 2e"},
        {"{\"a\":1,\"b\":2}", "8005 95 0e00000000000000 7d 28 8c0161 4b01 8c0162 4b02 75 2e"},
    };
    for (const auto& c : cases) {
        document d = test::must_decode(format_id::json, c.json);
        EXPECT_EQ(test::to_hex(test::must_encode(format_id::pickle, d)),
                  test::to_hex(hex(c.pickle_hex)))
            << c.json;
    }
}

TEST(PickleEncode, BytesAndBignum) {
    document d;
    builder b(d);
    b.begin_array();
    b.add_bytes("\x01\x02");
    b.add_bignum("-1180591620717411303424");
    b.end_array();
    // Python: pickle.dumps([b'\x01\x02', -2**70], 5) without memo opcodes.
    EXPECT_EQ(test::to_hex(test::must_encode(format_id::pickle, d)),
              test::to_hex(hex("8005 95 1300000000000000 5d 28 43020102 8a09 00000000000000 00c0 "
                               "65 2e")));
}

TEST(PickleEncode, LargeValuesAreFramedLikeCPython) {
    // 3000 strings of 40 bytes: frames are closed once they reach 64 KiB.
    std::string json = "[";
    for (int i = 0; i < 3000; ++i) {
        json += i ? "," : "";
        json += "\"" + std::string(40, 'a' + i % 26) + "\"";
    }
    json += "]";
    document d = test::must_decode(format_id::json, json);
    std::string p = test::must_encode(format_id::pickle, d);
    // Walk the frames: each FRAME's length is followed by exactly that many bytes.
    std::size_t pos = 2;
    int frames = 0;
    while (pos < p.size() && static_cast<unsigned char>(p[pos]) == 0x95) {
        std::uint64_t len = 0;
        for (int i = 0; i < 8; ++i) {
            len |= std::uint64_t{static_cast<unsigned char>(p[pos + 1 + i])} << (8 * i);
        }
        pos += 9 + len;
        ++frames;
    }
    EXPECT_EQ(pos, p.size());
    EXPECT_EQ(frames, 2);
    document back = test::must_decode(format_id::pickle, p);
    EXPECT_TRUE(equal(d, back));
}

TEST(PickleEncode, TupleKeysAndLossyCases) {
    document d = test::must_decode(format_id::pickle,
                                   hex("8005 7d 28 4b01 4b02 74 4e 73 2e"));  // {(1, 2): None}
    ASSERT_EQ(dbg(d), "{[1,2]:null}");
    document back = test::must_decode(format_id::pickle, test::must_encode(format_id::pickle, d));
    EXPECT_EQ(dbg(back), "{[1,2]:null}");

    document m;
    builder b(m);
    b.begin_map();
    b.begin_map();
    b.end_map();
    b.add_null();
    b.end_map();
    EXPECT_EQ(test::encode_error_of(format_id::pickle, m).code, errc::unrepresentable);

    document t;
    builder tb(t);
    tb.begin_array();
    tb.begin_tagged(1);
    tb.add_int(5);
    tb.end_array();
    EXPECT_EQ(test::encode_error_of(format_id::pickle, t).path, "/0");
    encode_options lossy;
    lossy.lossy = true;
    output_buffer out;
    ASSERT_TRUE(encode(format_id::pickle, t, out, lossy));
    EXPECT_EQ(dbg(test::must_decode(format_id::pickle, out.view())), "[5]");
}

TEST(PickleRoundTrip, Fixtures) {
    for (const char* name : {"records.json", "bench.json"}) {
        std::string json = test::read_file(test::fixtures_dir() / name);
        document d = test::must_decode(format_id::json, json);
        document back =
            test::must_decode(format_id::pickle, test::must_encode(format_id::pickle, d));
        EXPECT_TRUE(equal(d, back)) << name;
    }
}

}  // namespace
}  // namespace polycodec

namespace polycodec::test {

// The CPython pickles of the decode table: seeds of the mutated-input test
// (mutated_input_test.cpp).
std::vector<std::string> cpython_pickles() {
    std::vector<std::string> out;
    for (const auto& c : decode_cases) {
        out.push_back(hex(c.pickle_hex));
    }
    return out;
}

}  // namespace polycodec::test
