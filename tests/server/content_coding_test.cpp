// HTTP content codings (DESIGN section 16) without sockets: Content-Encoding parsing, the
// incremental decoder on vectors made by the gzip, zstd and brotli command-line tools and
// Python's zlib (`printf 'hello, hello, hello\n' | gzip -n`, `zstd -c`, `brotli -c`,
// zlib.compress / compressobj(wbits=-15)), fed whole and one byte at a time, corrupt and
// truncated input, and Accept-Encoding negotiation.
#include "http/content_coding.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/mutate.hpp"

using namespace polycodec::server::http;

namespace {

const std::string plain = "hello, hello, hello\n";

std::string bytes(std::initializer_list<unsigned> b) {
    std::string s;
    for (unsigned c : b) {
        s += static_cast<char>(c);
    }
    return s;
}

const std::string gz = bytes({0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                              0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0xc8, 0x40, 0xa2,
                              0xb8, 0x00, 0xe7, 0x42, 0x6e, 0x52, 0x14, 0x00, 0x00, 0x00});
// `gzip -c hv.txt`: FNAME "hv.txt" and an mtime in the header.
const std::string gz_named =
    bytes({0x1f, 0x8b, 0x08, 0x08, 0x36, 0xd8, 0x0e, 0x6b, 0x00, 0x03, 0x68, 0x76, 0x2e,
           0x74, 0x78, 0x74, 0x00, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0xc8, 0x40,
           0xa2, 0xb8, 0x00, 0xe7, 0x42, 0x6e, 0x52, 0x14, 0x00, 0x00, 0x00});
const std::string zlib_wrapped = bytes({0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0xc8,
                                        0x40, 0xa2, 0xb8, 0x00, 0x4b, 0x07, 0x06, 0xdf});
const std::string raw =
    bytes({0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0xc8, 0x40, 0xa2, 0xb8, 0x00});
const std::string zst =
    bytes({0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x14, 0x75, 0x00, 0x00, 0x40, 0x68, 0x65, 0x6c, 0x6c,
           0x6f, 0x2c, 0x20, 0x0a, 0x01, 0x00, 0xe2, 0x8a, 0x11, 0x21, 0x69, 0x9d, 0x87});
const std::string br =
    bytes({0x21, 0x4c, 0x00, 0x04, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x68, 0x65,
           0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x0a, 0x03});

// Decodes `body` fed `piece` bytes at a time into windows of `window` bytes.
polycodec::result<std::string> decode_all(std::vector<coding> cs, const std::string& body,
                                          std::size_t piece, std::size_t window = 7) {
    content_decoder d(cs);
    std::string out;
    std::vector<char> buf(window);
    for (std::size_t pos = 0; pos <= body.size(); pos += piece) {
        std::string_view in = std::string_view(body).substr(pos, piece);
        for (;;) {
            auto r = d.decode(in, buf.data(), buf.size());
            if (!r) {
                return polycodec::fail(r.error());
            }
            out.append(buf.data(), *r);
            if (*r < buf.size()) {
                EXPECT_TRUE(in.empty());
                break;
            }
        }
    }
    if (auto f = d.finish(); !f) {
        return polycodec::fail(f.error());
    }
    EXPECT_EQ(d.consumed(), body.size());
    return out;
}

}  // namespace

TEST(ContentCoding, ParsesContentEncoding) {
    auto c = parse_content_encoding("gzip");
    ASSERT_TRUE(c);
    EXPECT_EQ(*c, std::vector<coding>{coding::gzip});
    c = parse_content_encoding(" X-GZip ,identity, br ");
    ASSERT_TRUE(c);
    EXPECT_EQ(*c, (std::vector<coding>{coding::gzip, coding::br}));
    c = parse_content_encoding("identity");
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->empty());
    for (const char* bad : {"lzma", "", "gzip,,br", "gzip, br, zstd", "compress"}) {
        auto e = parse_content_encoding(bad);
        ASSERT_FALSE(e) << bad;
        EXPECT_EQ(e.error().code, polycodec::errc::unsupported_format);
    }
    EXPECT_NE(parse_content_encoding("lzma").error().message.find("\"lzma\""), std::string::npos);
}

TEST(ContentCoding, DecodesToolVectorsWholeAndByteByByte) {
    struct {
        coding c;
        const std::string* body;
    } cases[] = {
        {coding::gzip, &gz},     {coding::gzip, &gz_named}, {coding::deflate, &zlib_wrapped},
        {coding::deflate, &raw}, {coding::zstd, &zst},      {coding::br, &br}};
    for (auto& k : cases) {
        for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{5}, k.body->size()}) {
            auto r = decode_all({k.c}, *k.body, piece);
            ASSERT_TRUE(r) << to_string(k.c) << " piece " << piece << ": " << r.error().message;
            EXPECT_EQ(*r, plain) << to_string(k.c) << " piece " << piece;
        }
    }
}

TEST(ContentCoding, StackedCodingsAndConcatenations) {
    // "gzip, br" applied gzip first: br(gzip(x)); brotli -c of the gzip vector made with
    // compress(), checked by decoding.
    std::string body = compress(coding::br, gz);
    auto r = decode_all({coding::gzip, coding::br}, body, 3);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, plain);
    for (std::size_t piece : {1, 3, 4, 29, 31, 1000}) {
        r = decode_all({coding::gzip}, gz + gz + gz, piece);  // three gzip members
        ASSERT_TRUE(r) << piece << ": " << r.error().message;
        EXPECT_EQ(*r, plain + plain + plain);
    }
    r = decode_all({coding::zstd}, zst + zst, 4);  // two zstd frames
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, plain + plain);
}

TEST(ContentCoding, CorruptAndTruncatedInput) {
    std::string bad = gz;
    bad[12] = static_cast<char>(0xff);
    bad[13] = static_cast<char>(0xff);
    auto r = decode_all({coding::gzip}, bad, 100);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, polycodec::errc::malformed);
    EXPECT_TRUE(r.error().has_offset);
    EXPECT_GE(r.error().offset, 10u);
    EXPECT_LE(r.error().offset, bad.size());
    EXPECT_EQ(r.error().message.rfind("gzip: corrupt compressed data", 0), 0u) << r.error().message;
    // The CRC-32 in the trailer is checked.
    bad = gz;
    bad[gz.size() - 6] ^= 1;
    r = decode_all({coding::gzip}, bad, 100);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("incorrect data check"), std::string::npos);
    for (coding c : {coding::gzip, coding::zstd, coding::br}) {
        const std::string& full = c == coding::gzip ? gz : c == coding::zstd ? zst : br;
        r = decode_all({c}, full.substr(0, full.size() - 2), 100);
        ASSERT_FALSE(r) << to_string(c);
        EXPECT_NE(r.error().message.find("ends early"), std::string::npos) << r.error().message;
    }
    for (const std::string* d : {&zlib_wrapped, &raw}) {
        for (std::size_t piece : {1, 5, 100}) {
            r = decode_all({coding::deflate}, *d + "x", piece);
            ASSERT_FALSE(r) << piece;
            EXPECT_NE(r.error().message.find("after the end"), std::string::npos);
        }
    }
    r = decode_all({coding::gzip}, gz + "x", 100);  // not another gzip member
    ASSERT_FALSE(r);
    r = decode_all({coding::br}, br + "x", 100);
    ASSERT_FALSE(r);
    r = decode_all({coding::gzip}, "", 100);
    ASSERT_FALSE(r);  // an empty gzip body is no gzip stream
}

TEST(ContentCoding, EncoderRoundTripsWithFlush) {
    for (coding c : {coding::gzip, coding::deflate, coding::br, coding::zstd}) {
        content_encoder e(c);
        std::string z;
        std::string expect;
        for (int i = 0; i < 50; ++i) {
            std::string piece = "record " + std::to_string(i) + "\n";
            expect += piece;
            e.write(piece, z, true);
            // Everything written so far decodes from what was flushed.
            content_decoder d(std::vector<coding>{c});
            std::string_view in(z);
            std::string got(expect.size() + 64, '\0');
            auto n = d.decode(in, got.data(), got.size());
            ASSERT_TRUE(n) << to_string(c) << ": " << n.error().message;
            EXPECT_EQ(got.substr(0, *n), expect) << to_string(c);
        }
        e.finish(z);
        auto r = decode_all({c}, z, 64, 1024);
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(*r, expect);
    }
}

TEST(ContentCoding, NegotiatesAcceptEncoding) {
    auto pick = [](const char* ae, bool allowed = true) {
        return negotiate_encoding(ae, true, allowed).chosen;
    };
    EXPECT_EQ(pick("gzip, deflate, br, zstd"), coding::zstd);
    EXPECT_EQ(pick("gzip, br"), coding::br);
    EXPECT_EQ(pick("br;q=0.5, gzip"), coding::gzip);
    EXPECT_EQ(pick("*"), coding::zstd);
    EXPECT_EQ(pick("*;q=0.1, gzip;q=0.2"), coding::gzip);
    EXPECT_EQ(pick("zstd;q=0, *"), coding::br);
    EXPECT_EQ(pick("gzip;q=0.001"), coding::gzip);
    EXPECT_EQ(pick("gzip;q=0"), coding::identity);
    EXPECT_EQ(pick("gzip;q=1.5"), coding::identity);  // malformed weight
    EXPECT_EQ(pick("gzip;q=0.5, identity"), coding::identity);
    EXPECT_EQ(pick(""), coding::identity);
    EXPECT_EQ(pick("gzip", false), coding::identity);  // below the threshold
    EXPECT_EQ(pick("gzip, identity;q=0", false), coding::gzip);
    EXPECT_EQ(negotiate_encoding("gzip", false, true).chosen, coding::identity);  // absent
    auto none = negotiate_encoding("identity;q=0", true, true);
    EXPECT_FALSE(none.acceptable);
    none = negotiate_encoding("*;q=0", true, true);
    EXPECT_FALSE(none.acceptable);
    EXPECT_TRUE(negotiate_encoding("*;q=0, identity", true, true).acceptable);
}

// Hostile input: seeded mutations of every vector (and of a larger body) decode or fail with an
// error whose offset is inside the input; never a crash, hang or over-read (the asan preset
// runs this too), and the output never exceeds what the caller's windows allow.
TEST(ContentCoding, MutatedInputFailsCleanly) {
    std::string big;
    for (int i = 0; i < 2000; ++i) {
        big +=
            "{\"id\":" + std::to_string(i) + ",\"name\":\"user-" + std::to_string(i * 7) + "\"}\n";
    }
    struct {
        coding c;
        std::string body;
    } seeds[] = {{coding::gzip, gz},
                 {coding::deflate, zlib_wrapped},
                 {coding::deflate, raw},
                 {coding::zstd, zst},
                 {coding::br, br},
                 {coding::gzip, compress(coding::gzip, big)},
                 {coding::zstd, compress(coding::zstd, big)},
                 {coding::br, compress(coding::br, big)}};
    polycodec::test::rng g(20261201);
    int failed = 0;
    for (auto& s : seeds) {
        for (int i = 0; i < 300; ++i) {
            std::string m = s.body;
            polycodec::test::mutate(m, g, polycodec::test::all_mutations, 4,
                                    std::string_view("\x00\xff\x1f\x8b", 4));
            auto r = decode_all({s.c}, m, 1 + g.below(64), 1 + g.below(4096));
            if (!r) {
                ++failed;
                EXPECT_LE(r.error().offset, m.size())
                    << to_string(s.c) << ": " << r.error().message;
                EXPECT_EQ(r.error().message.rfind(std::string(to_string(s.c)) + ":", 0), 0u)
                    << r.error().message;
            } else {
                EXPECT_LE(r->size(), 64u * big.size());
            }
        }
    }
    EXPECT_GT(failed, 1000);  // most mutations break the data (and are caught)
}
