// Tests of the plist codec: hand-checked bplist00 bytes (CFBinaryPList.c's layout), the XML
// form, error positions of hostile binary plists, options and media types.
#include <string>

#include "polycodec/media_type.hpp"
#include "support/support.hpp"

namespace polycodec::test {
namespace {

std::string plist(std::string_view text) { return decoded_as(format_id::plist, text); }

encode_options binary() {
    encode_options o;
    o.plist_binary = true;
    return o;
}

TEST(PlistBinary, EncodesTheHandCheckedBytes) {
    // [true, "a"]: the array (object 0) at 8 refers to objects 1 and 2; offsets 08 0b 0c; the
    // table at 14 (0x0e); one-byte offsets and references, 3 objects, top 0.
    std::string expect =
        "bplist00" + hex("a2 01 02 09 51 61 08 0b 0c") + bplist_trailer(1, 1, 3, 0, 14);
    EXPECT_EQ(to_hex(must_encode(format_id::plist, must_decode(format_id::json, "[true,\"a\"]"),
                                 binary())),
              to_hex(expect));
    // {"k": -1}: the dict's key references come before its value references; -1 as 8 bytes.
    std::string dict = "bplist00" + hex("d1 01 02 51 6b 13 ff ff ff ff ff ff ff ff 08 0b 0d") +
                       bplist_trailer(1, 1, 3, 0, 22);
    EXPECT_EQ(to_hex(must_encode(format_id::plist, must_decode(format_id::json, "{\"k\":-1}"),
                                 binary())),
              to_hex(dict));
}

TEST(PlistBinary, TapeWalkWritesWhatTheRecursiveWriterWrites) {
    // The binary encoder walks the tape unless lossy=allow (or a key that is not a string, or
    // an error) sends it to the recursive writer; without nulls both must give the same bytes,
    // and those bytes decode back to the document. 300 strings need 2-byte references, the
    // long string a counted length, the non-ASCII one UTF-16, the UID and date their markers.
    std::string json = "{\"a\":[";
    for (int i = 0; i < 300; ++i) {
        json += (i != 0 ? ",\"s" : "\"s") + std::to_string(i) + "\"";
    }
    json += "],\"n\":[0,255,256,65535,65536,4294967296,-1,9223372036854775807,"
            "18446744073709551615,1.5,-0.0,true,false],\"u\":\"\\u00e9\\u263a\\ud83d\\ude00\","
            "\"long\":\"abcdefghijklmnopqrstuvwxyz\",\"e\":{},\"z\":[[]]}";
    document doc = must_decode(format_id::json, json);
    std::string walked = must_encode(format_id::plist, doc, binary());
    encode_options lossy = binary();
    lossy.lossy = true;
    EXPECT_EQ(to_hex(walked), to_hex(must_encode(format_id::plist, doc, lossy)));
    EXPECT_TRUE(equal(must_decode(format_id::plist, walked), doc));
    // The UID and date markers, both ways (hand-checked bytes above cover the layout).
    // [UID 256, date 1.5 s after 2001]: array at 8, UID at 11, date at 14, table at 23.
    document tagged = must_decode(format_id::plist,
                                  "bplist00" + hex("a2 01 02 81 01 00 33 3f f8 00 00 00 00 00 00") +
                                      hex("08 0b 0e") + bplist_trailer(1, 1, 3, 0, 23));
    std::string t1 = must_encode(format_id::plist, tagged, binary());
    EXPECT_EQ(to_hex(t1), to_hex(must_encode(format_id::plist, tagged, lossy)));
    EXPECT_TRUE(equal(must_decode(format_id::plist, t1), tagged));
}

TEST(PlistBinary, DecodesEveryScalar) {
    // An array of 9 objects: int 1 (1 byte), int 2^16 (4 bytes), -2 (8 bytes), 2^64 - 1 as
    // the 16-byte form, float32 1.5, double 0.25, a date 1.5 s after 2001, data 00 ff, UTF-16
    // "é☺", UID 5, false.
    std::string objs = hex("ab 01 02 03 04 05 06 07 08 09 0a 0b") +  // array of 11 at 8
                       hex("10 01") +                               // 1 at 20
                       hex("12 00 01 00 00") +                      // 65536 at 22
                       hex("13 ff ff ff ff ff ff ff fe") +          // -2 at 27
                       hex("14 00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff") +  // at 36
                       hex("22 3f c0 00 00") +                      // 1.5f at 53
                       hex("23 3f d0 00 00 00 00 00 00") +          // 0.25 at 58
                       hex("33 3f f8 00 00 00 00 00 00") +          // date 1.5 at 67
                       hex("42 00 ff") +                            // data at 76
                       hex("62 00 e9 26 3a") +                      // "é☺" at 79
                       hex("80 05") +                               // UID 5 at 84
                       hex("08");                                   // false at 86
    std::string table = hex("08 14 16 1b 24 35 3a 43 4c 4f 54 56");
    std::string data = "bplist00" + objs + table + bplist_trailer(1, 1, 12, 0, 87);
    EXPECT_EQ(plist(data),
              "[1,65536,-2,18446744073709551615u,1.5,0.25,t\"2001-01-01T00:00:01.5Z\",b64\"AP8=\","
              "\"\u00e9\u263a\",tag(21833@3, 5),false]");
}

TEST(PlistBinary, HostileInputsGiveOffsets) {
    // A dict that contains itself (libplist's recursion.bplist in small).
    std::string self = "bplist00" + hex("d1 01 00 51 41 08 0b") + bplist_trailer(1, 1, 2, 0, 13);
    expect_decode_error(format_id::plist, self,
                        {.code = errc::malformed, .offset = 8, .message_has = "contains itself"});
    error e;
    // An array whose count (2^40) is checked against the input before anything is built.
    std::string lying =
        "bplist00" + hex("af 13 00 00 01 00 00 00 00 00 08") + bplist_trailer(1, 1, 1, 0, 18);
    expect_decode_error(format_id::plist, lying, {errc::size_exceeded, 8});
    // 2^60 objects of a 1-byte offset table: refused from the trailer.
    std::string many =
        "bplist00" + hex("08 08") + bplist_trailer(1, 1, std::uint64_t{1} << 60, 0, 9);
    expect_decode_error(format_id::plist, many,
                        {.code = errc::size_exceeded, .message_has = "offset table"});
    // An offset into the offset table itself.
    std::string inside = "bplist00" + hex("08 09") + bplist_trailer(1, 1, 1, 0, 9);
    expect_decode_error(format_id::plist, inside, {errc::malformed, 9});
    // A reference size of 0 and an offset size of 9 are no sizes.
    e = decode_error(format_id::plist, "bplist00" + hex("08 08") + bplist_trailer(1, 0, 1, 0, 9));
    EXPECT_NE(e.message.find("reference size 0"), std::string::npos) << e.message;
    e = decode_error(format_id::plist, "bplist00" + hex("08 08") + bplist_trailer(9, 1, 1, 0, 9));
    EXPECT_NE(e.message.find("offset size 9"), std::string::npos) << e.message;
    // An ASCII string with a byte above 0x7f; a lone UTF-16 surrogate.
    const bad_input bad[] = {
        {"bplist00" + hex("51 e9 08") + bplist_trailer(1, 1, 1, 0, 10), {errc::invalid_utf8, 9}},
        {"bplist00" + hex("61 d8 00 08") + bplist_trailer(1, 1, 1, 0, 11), {errc::invalid_utf8}},
    };
    expect_decode_errors(format_id::plist, bad);
}

TEST(PlistBinary, DepthLimit) {
    const decode_options opt = max_depth(3);
    // [[[[true]]]]: five objects, each array refers to the next.
    std::string data = "bplist00" + hex("a1 01 a1 02 a1 03 a1 04 09 08 0a 0c 0e 10") +
                       bplist_trailer(1, 1, 5, 0, 17);
    EXPECT_EQ(plist(data), "[[[[true]]]]");
    expect_decode_error(format_id::plist, data, {errc::depth_exceeded, 14}, opt);
}

TEST(PlistXml, Decodes) {
    EXPECT_EQ(plist("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
                    "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
                    "<plist version=\"1.0\"><dict>\n"
                    "<key>i</key><integer>-7</integer><key>r</key><real>2.5</real>"
                    "<key>s</key><string>a&lt;&#x263a;</string><key>d</key><data>AP8=</data>"
                    "<key>t</key><date>2010-11-12T13:14:15Z</date><key>e</key><array/>"
                    "<key>b</key><true/></dict></plist>"),
              "{\"i\":-7,\"r\":2.5,\"s\":\"a<\u263a\",\"d\":b64\"AP8=\","
              "\"t\":t\"2010-11-12T13:14:15Z\",\"e\":[],\"b\":true}");
}

TEST(PlistXml, ErrorsHaveLineAndColumn) {
    error e = decode_error(format_id::plist, "<plist>\n  <foo/>\n</plist>");
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 3u);
    EXPECT_NE(e.message.find("unknown element <foo>"), std::string::npos) << e.message;
    expect_decode_error(
        format_id::plist,
        "<!DOCTYPE plist [<!ENTITY a \"aaaa\">]>\n<plist><string>&a;</string></plist>",
        {errc::forbidden});
    e = decode_error(format_id::plist, "<plist><dict><key>k</key></dict></plist>");
    EXPECT_NE(e.message.find("key \"k\" has no value"), std::string::npos) << e.message;
    e = decode_error(format_id::plist, "<plist/>");
    EXPECT_NE(e.message.find("no value"), std::string::npos) << e.message;
}

TEST(PlistXml, EncodesApplesLayout) {
    EXPECT_EQ(must_encode(format_id::plist,
                          must_decode(format_id::json, "{\"a\":[1,1.0,\"x&y\"],\"b\":{}}")),
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
              "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
              "<plist version=\"1.0\">\n"
              "<dict>\n"
              "\t<key>a</key>\n"
              "\t<array>\n"
              "\t\t<integer>1</integer>\n"
              "\t\t<real>1.0</real>\n"
              "\t\t<string>x&amp;y</string>\n"
              "\t</array>\n"
              "\t<key>b</key>\n"
              "\t<dict/>\n"
              "</dict>\n"
              "</plist>\n");
}

TEST(Plist, NullIsLossy) {
    document d = must_decode(format_id::json, "[1,null]");
    for (bool bin : {false, true}) {
        encode_options o;
        o.plist_binary = bin;
        expect_error(encode_error_of(format_id::plist, d, o),
                     {.code = errc::unrepresentable, .path = "/1"});
        lossy_report report;
        o.lossy = true;
        o.report = &report;
        EXPECT_EQ(decoded_as(format_id::plist, must_encode(format_id::plist, d, o)), "[1]");
        expect_report(report, {{"null_dropped"}});
    }
}

TEST(Plist, MediaTypesAndOptions) {
    transcode_options opt;
    auto f = resolve_format_spec("application/x-bplist", opt);
    ASSERT_TRUE(f);
    EXPECT_EQ((*f)->id, format_id::plist);
    EXPECT_TRUE(opt.encode.plist_binary);
    transcode_options q;
    ASSERT_TRUE(apply_option("binary", "true", q));
    EXPECT_TRUE(q.encode.plist_binary);
    auto n = negotiate("application/x-bplist", *find_format(format_id::json));
    ASSERT_NE(n.format, nullptr);
    EXPECT_EQ(n.format->id, format_id::plist);
    ASSERT_EQ(n.params.size(), 1u);
    EXPECT_EQ(n.params[0].first, "binary");
    EXPECT_EQ(n.params[0].second, "true");
    n = negotiate("application/x-plist", *find_format(format_id::json));
    ASSERT_EQ(n.params.size(), 1u);
    EXPECT_EQ(n.params[0].second, "false");
}

TEST(Plist, BenchFixturesFromPlistlib) {
    document bench = must_decode(format_id::json, read_file(fixtures_dir() / "bench.json"));
    for (const char* name : {"bench.plist", "bench-binary.plist"}) {
        document d = must_decode(format_id::plist, read_file(fixtures_dir() / name));
        EXPECT_TRUE(equal(d, bench)) << name;
    }
    // plistlib.dumps(sort_keys=False) and our XML writer give the same bytes.
    EXPECT_EQ(must_encode(format_id::plist, bench), read_file(fixtures_dir() / "bench.plist"));
}

}  // namespace
}  // namespace polycodec::test
