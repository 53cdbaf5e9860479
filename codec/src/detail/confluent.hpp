#pragma once
// Confluent Schema Registry's wire format (docs.confluent.io, "Wire format"): magic byte 0, the
// schema id as 4 bytes big-endian, then the payload. protobuf's payload starts with the message
// indexes (the path of the message type in the schema's file) as zig-zag varints, the count
// first, and the most common path [0] written as the single byte 0 (Confluent's MessageIndexes
// of schema-registry/protobuf-provider). Shared by the schema formats' framing=confluent.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/buffer.hpp"
#include "polycodec/error.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// The schema id of the header at the start of `in`, which must be `want_id` unless that is 0.
inline result<std::uint32_t> read_confluent_header(std::string_view in, std::uint32_t want_id) {
    if (in.size() < 5 || in[0] != 0) {
        return fail(make_error(in.size() < 5 ? errc::unexpected_eof : errc::malformed, 0,
                               "expected the Confluent header: magic byte 0 and a 4-byte schema id"));
    }
    std::uint32_t id = 0;
    for (int i = 1; i < 5; ++i) {
        id = id << 8 | static_cast<unsigned char>(in[i]);
    }
    if (want_id != 0 && id != want_id) {
        return fail(make_error(errc::malformed, 1,
                               "schema id " + std::to_string(id) + " is not schema_id=" + std::to_string(want_id)));
    }
    return id;
}

inline void write_confluent_header(output_buffer& out, std::uint32_t id) {
    char h[5] = {0, static_cast<char>(id >> 24), static_cast<char>(id >> 16), static_cast<char>(id >> 8),
                 static_cast<char>(id)};
    out.append(h, 5);
}

/// Confluent's message indexes at in[at...] (Kafka's zig-zag varints of 32 bits): `at` ends past
/// them. A count of 0 is the path [0]. At most `max_count` indexes.
inline result<void> read_message_indexes(std::string_view in, std::size_t& at, std::vector<std::int32_t>& path,
                                         std::size_t max_count = 64) {
    auto zigzag = [&](std::int32_t& v) -> result<void> {
        std::uint32_t u = 0;
        const std::size_t start = at;
        for (int shift = 0;; shift += 7) {
            if (at == in.size()) {
                return fail(make_error(errc::unexpected_eof, start, "input ends inside the Confluent message indexes"));
            }
            auto c = static_cast<unsigned char>(in[at++]);
            if (shift == 28 && c > 0x0f) {
                return fail(make_error(errc::malformed, start, "a Confluent message index longer than 32 bits"));
            }
            u |= static_cast<std::uint32_t>(c & 0x7f) << shift;
            if (c < 0x80) {
                break;
            }
        }
        v = static_cast<std::int32_t>((u >> 1) ^ (~(u & 1) + 1));
        return {};
    };
    path.clear();
    const std::size_t count_at = at;
    std::int32_t count = 0;
    if (auto r = zigzag(count); !r) {
        return r;
    }
    if (count == 0) {
        path.push_back(0);
        return {};
    }
    if (count < 0 || static_cast<std::size_t>(count) > max_count) {
        return fail(make_error(errc::malformed, count_at,
                               "Confluent message index count " + std::to_string(count) + " out of range"));
    }
    for (std::int32_t k = 0; k < count; ++k) {
        const std::size_t index_at = at;
        std::int32_t v = 0;
        if (auto r = zigzag(v); !r) {
            return r;
        }
        if (v < 0) {
            return fail(make_error(errc::malformed, index_at, "negative Confluent message index " + std::to_string(v)));
        }
        path.push_back(v);
    }
    return {};
}

inline void write_message_indexes(output_buffer& out, const std::vector<std::int32_t>& path) {
    auto zigzag = [&](std::int32_t v) {
        auto u = (static_cast<std::uint32_t>(v) << 1) ^ static_cast<std::uint32_t>(v >> 31);
        while (u >= 0x80) {
            out.push_back(static_cast<char>(u | 0x80));
            u >>= 7;
        }
        out.push_back(static_cast<char>(u));
    };
    if (path.size() == 1 && path[0] == 0) {
        out.push_back('\0');  // the optimisation of Confluent's serializers
        return;
    }
    zigzag(static_cast<std::int32_t>(path.size()));
    for (std::int32_t v : path) {
        zigzag(v);
    }
}

}  // namespace polycodec::detail
