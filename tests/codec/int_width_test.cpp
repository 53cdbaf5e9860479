// The int_width hint (issue 19): which decoders record it, which encoders write it. Byte
// vectors from the specifications' integer formats (UBJSON Draft 12 markers i/U/I/l/L, Smile
// 0x24/0x25 and small ints, RFC 8949 section 3 heads, the MessagePack spec's int formats).
#include "support/support.hpp"

namespace polycodec {
namespace {

using test::hex;
using test::to_hex;

std::vector<int_width> widths(const document& d) {
    std::vector<int_width> out;
    for (value v : d.root().items()) {
        out.push_back(v.int_width());
    }
    return out;
}

// The int_width hints of the items of the array that `in` decodes to as `f`.
std::vector<int_width> decoded_widths(format_id f, std::string_view in, bool keep_int_width) {
    decode_options opt;
    opt.keep_int_width = keep_int_width;
    return widths(test::must_decode(f, in, opt));
}

std::string encode_ints(format_id f, const encode_options& opt,
                        std::initializer_list<std::pair<std::int64_t, int_width>> ints) {
    document d;
    builder b(d);
    b.begin_array();
    for (auto [v, w] : ints) {
        b.add_int(v, w);
    }
    b.end_array();
    return to_hex(test::must_encode(f, d, opt));
}

using W = int_width;

TEST(IntWidth, UbjsonRecordsItsMarkers) {
    document d = test::must_decode(
        format_id::ubjson, "[" + hex("69 01 55 01 49 00 01 6c 00 00 00 01 4c 00 00 00 00 00 00 00 01") + "]");
    EXPECT_EQ(widths(d), (std::vector<W>{W::bits8, W::bits8, W::bits16, W::bits32, W::bits64}));
    // ... which BSON keeps: {"a": L 1, "b": l 1} -> int64, int32.
    document m = test::must_decode(format_id::ubjson,
                                   hex("7b 69 01 61 4c 00 00 00 00 00 00 00 01 69 01 62 6c 00 00 "
                                       "00 01 7d"));
    EXPECT_EQ(to_hex(test::must_encode(format_id::bson, m)),
              to_hex(test::bson_document(hex("12 61 00 01 00 00 00 00 00 00 00"
                                             "10 62 00 01 00 00 00"))));
}

TEST(IntWidth, SmileRecordsInt32AndInt64) {
    // [small int 1, int32 1, int64 1]: c2, 24 82, 25 82 (zigzag 2 in one vint byte).
    document d = test::must_decode(format_id::smile, hex("3a 29 0a 00 f8 c2 24 82 25 82 f9"));
    EXPECT_EQ(test::dbg(d), "[1,1,1]");
    EXPECT_EQ(widths(d), (std::vector<W>{W::bits32, W::bits32, W::bits64}));
}

TEST(IntWidth, CborRecordsHeadsOnlyWithKeep) {
    std::string in = hex("85 01 18 01 19 00 01 1a 00 00 00 01 3b 00 00 00 00 00 00 00 00");
    EXPECT_EQ(decoded_widths(format_id::cbor, in, false), (std::vector<W>(5, W::unknown)));
    EXPECT_EQ(decoded_widths(format_id::cbor, in, true),
              (std::vector<W>{W::bits8, W::bits8, W::bits16, W::bits32, W::bits64}));
}

TEST(IntWidth, CborWritesHintedWidthsWithKeep) {
    encode_options keep;
    keep.keep_int_width = true;
    EXPECT_EQ(encode_ints(format_id::cbor, keep,
                          {{1, W::bits64}, {1, W::bits32}, {1, W::bits16}, {1, W::bits8},
                           {1, W::unknown}, {70000, W::bits16}, {-1, W::bits32}}),
              "87 1b 00 00 00 00 00 00 00 01 1a 00 00 00 01 19 00 01 01 01 1a 00 01 11 70 3a 00 "
              "00 00 00");
    // Without keep, and with canonical=true (deterministic = shortest), the shortest heads.
    keep.canonical = true;
    EXPECT_EQ(encode_ints(format_id::cbor, keep, {{1, W::bits64}, {-1, W::bits32}}), "82 01 20");
    EXPECT_EQ(encode_ints(format_id::cbor, {}, {{1, W::bits64}, {-1, W::bits32}}), "82 01 20");
}

TEST(IntWidth, MsgpackRecordsFormatsOnlyWithKeep) {
    std::string in = hex("96 01 cc 01 cd 00 01 d2 00 00 00 01 cf 00 00 00 00 00 00 00 01 e0");
    EXPECT_EQ(decoded_widths(format_id::msgpack, in, false), (std::vector<W>(6, W::unknown)));
    EXPECT_EQ(decoded_widths(format_id::msgpack, in, true),
              (std::vector<W>{W::bits8, W::bits8, W::bits16, W::bits32, W::bits64, W::bits8}));
}

TEST(IntWidth, MsgpackWritesHintedWidthsWithKeep) {
    encode_options keep;
    keep.keep_int_width = true;
    EXPECT_EQ(encode_ints(format_id::msgpack, keep,
                          {{1, W::bits64}, {-1, W::bits32}, {1, W::bits16}, {300, W::bits8},
                           {70000, W::bits16}, {-2, W::bits64}, {5, W::unknown}}),
              "97 cf 00 00 00 00 00 00 00 01 d2 ff ff ff ff cd 00 01 cd 01 2c ce 00 01 11 70 d3 "
              "ff ff ff ff ff ff ff fe 05");
    EXPECT_EQ(encode_ints(format_id::msgpack, {}, {{1, W::bits64}, {-1, W::bits32}}), "92 01 ff");
}

TEST(IntWidth, BsonThroughCborAndMsgpackWithKeep) {
    std::string in = test::bson_document(hex("12 61 00 01 00 00 00 00 00 00 00"
                                             "10 62 00 ff ff ff ff"
                                             "12 63 00 00 00 00 00 00 00 00 80"));
    encode_options keep_out;
    keep_out.keep_int_width = true;
    decode_options keep_in;
    keep_in.keep_int_width = true;
    for (format_id f : {format_id::cbor, format_id::msgpack}) {
        std::string mid = test::must_encode(f, test::must_decode(format_id::bson, in), keep_out);
        document back = test::must_decode(f, mid, keep_in);
        EXPECT_EQ(to_hex(test::must_encode(format_id::bson, back)), to_hex(in));
        // Without keep on the way in, widths are unknown: small values become int32.
        document plain = test::must_decode(f, mid);
        EXPECT_NE(to_hex(test::must_encode(format_id::bson, plain)), to_hex(in));
    }
}

}  // namespace
}  // namespace polycodec
