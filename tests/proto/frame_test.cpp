// The TCP frame codec (DESIGN section 5, proto/PROTOCOL.md): exact bytes both ways.
#include "polycodec/proto/frame.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/support.hpp"

namespace proto = polycodec::proto;

using polycodec::test::to_hex;

TEST(ProtoFrame, EncodesRequestHeaderBigEndian) {
    proto::request_header h;
    h.flags = proto::flag_pretty | proto::flag_canonical;
    h.request_id = 0x01020304;
    h.input_format = 1;
    h.output_format = 7;
    std::string f = proto::encode_request(h, "a=1", "{}");
    // magic PC, version 1, flags 5, id, from 1, to 7, options 3, payload 5
    EXPECT_EQ(to_hex(f), "50 43 01 05 01 02 03 04 01 07 00 03 00 00 00 05 61 3d 31 7b 7d");
}

TEST(ProtoFrame, EncodesResponseHeader) {
    std::string f = proto::encode_response(proto::status::unrepresentable, 0xfffffffe, 0, "no");
    EXPECT_EQ(to_hex(f), "50 43 01 03 ff ff ff fe 00 00 00 00 00 00 00 02 6e 6f");
}

TEST(ProtoFrame, ParsesWhatItEncodes) {
    proto::request_header h;
    h.flags = proto::flag_lossy;
    h.request_id = 42;
    h.input_format = 14;
    h.output_format = 13;
    std::string f = proto::encode_request(h, "header=absent", "a,b\n");
    proto::request_header p;
    proto::parse_error err;
    EXPECT_EQ(proto::next_request_frame(f, p, err), f.size());
    EXPECT_EQ(err, proto::parse_error::none);
    EXPECT_EQ(p.flags, proto::flag_lossy);
    EXPECT_EQ(p.request_id, 42u);
    EXPECT_EQ(p.input_format, 14);
    EXPECT_EQ(p.output_format, 13);
    EXPECT_EQ(p.options_length, 13);
    EXPECT_EQ(p.payload_length, 17u);

    proto::response_header r;
    std::string resp = proto::encode_response(proto::status::ok, 9, 4, "x: 1\n");
    ASSERT_EQ(proto::parse_response_header(reinterpret_cast<const unsigned char*>(resp.data()), r),
              proto::parse_error::none);
    EXPECT_EQ(r.code, proto::status::ok);
    EXPECT_EQ(r.request_id, 9u);
    EXPECT_EQ(r.output_format, 4);
    EXPECT_EQ(r.payload_length, 5u);
}

TEST(ProtoFrame, NeedsMoreBytesUntilTheFrameIsComplete) {
    proto::request_header h;
    std::string f = proto::encode_request(h, "", "[1,2,3]");
    proto::request_header p;
    proto::parse_error err;
    for (std::size_t n = 0; n < f.size(); ++n) {
        EXPECT_EQ(proto::next_request_frame(std::string_view(f).substr(0, n), p, err), 0u) << n;
        EXPECT_EQ(err, proto::parse_error::none) << n;
    }
    // Two pipelined frames: the first is split off alone.
    std::string two = f + f;
    EXPECT_EQ(proto::next_request_frame(two, p, err), f.size());
}

TEST(ProtoFrame, RejectsBadMagicVersionAndLengths) {
    proto::request_header h;
    h.request_id = 7;
    std::string f = proto::encode_request(h, "", "{}");
    proto::request_header p;
    proto::parse_error err;

    std::string bad = f;
    bad[0] = 'X';
    EXPECT_EQ(proto::next_request_frame(bad, p, err), 0u);
    EXPECT_EQ(err, proto::parse_error::bad_magic);
    EXPECT_EQ(p.request_id, 7u);  // still readable for the answer

    bad = f;
    bad[2] = 2;
    proto::next_request_frame(bad, p, err);
    EXPECT_EQ(err, proto::parse_error::bad_version);

    bad = f;
    bad[11] = 3;  // options length 3 > payload length 2
    proto::next_request_frame(bad, p, err);
    EXPECT_EQ(err, proto::parse_error::bad_lengths);

    bad = f;
    bad[12] = '\xff';  // payload length 0xff000002
    proto::next_request_frame(bad, p, err);
    EXPECT_EQ(err, proto::parse_error::too_long);

    // A limit given by the caller.
    proto::next_request_frame(f, p, err, 1);
    EXPECT_EQ(err, proto::parse_error::too_long);
}

TEST(ProtoFrame, StatusNamesAreStable) {
    EXPECT_EQ(proto::to_string(proto::status::ok), "ok");
    EXPECT_EQ(proto::to_string(proto::status::malformed), "malformed");
    EXPECT_EQ(proto::to_string(proto::status::unsupported_format), "unsupported_format");
    EXPECT_EQ(proto::to_string(proto::status::unrepresentable), "unrepresentable");
    EXPECT_EQ(proto::to_string(proto::status::too_large), "too_large");
    EXPECT_EQ(proto::to_string(proto::status::busy), "busy");
    EXPECT_EQ(proto::to_string(proto::status::bad_frame), "bad_frame");
}
