#pragma once
// The encoders' walk over the tape, written once: the tape lists the elements in the order
// CBOR and MessagePack write them (a container's header, then its children), so a document
// is written in one linear pass over the tape words, the common elements through a local
// pointer into the output buffer's free space (detail::out_cursor, at least `Slack` bytes
// before each element) and the rest handed, subtree and all, to the format's own writer.
// The format supplies the bytes and the per-kind writes as hooks, inlined into the loop.
// Formats share code only through detail/ (docs/ARCHITECTURE.md).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "detail/binary.hpp"
#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"

namespace polycodec::detail {

/// A document's tape words and payload bytes, as the encoders' walks read them.
struct tape_view {
    const std::uint64_t* t;
    const char* payload;
    std::size_t payload_size;
};

[[gnu::always_inline]] inline tape_view tape_view_of(const document& doc) noexcept {
    return {doc.tape().data(), doc.bytes().data(), doc.bytes().size()};
}

/// A one-byte literal (null, false, true) at o, the walk's index past it; returns the new end.
[[gnu::always_inline]] inline char* literal_at(char* o, unsigned char byte, std::size_t& i) {
    *o = static_cast<char>(byte);
    i += 1;
    return o + 1;
}

/// Writes the subtree `root` to `out` in one pass over the tape. The hooks (h):
///   static constexpr unsigned char null_byte, false_byte, true_byte: the one-byte literals;
///   int64(o, w, v), uint64(o, v), float64(o, bits), header(o, kind::array or kind::map, n):
///     an element of first word w and second word v (the value, its bits, a container's
///     count) written at o (advanced past it), true; or false to hand it to rare();
///   static constexpr std::uint64_t short_max, unsigned char short_fix: strings of up to
///     short_max bytes are written as the byte short_fix | n and their bytes;
///   rare(doc, i): writes element i through the output buffer (the cursor released), moving
///     i past what it wrote; false on an error (which the writer keeps).
/// Returns false on such an error.
template <std::size_t Slack, class Hooks>
[[gnu::always_inline]] inline bool walk_tape(Hooks& h, output_buffer& out, value root) {
    const document& doc = *root.doc();
    const auto [t, payload, payload_size] = tape_view_of(doc);
    std::size_t i = root.index();
    const std::size_t end = root.end_index();
    out_cursor<Slack> c(out);
    char*& o = c.o;
    while (i < end) {
        c.room();
        const std::uint64_t w = t[i];
        bool took = false;
        switch (static_cast<kind>(w >> document::kind_shift)) {
            case kind::null:
                o = literal_at(o, Hooks::null_byte, i);
                continue;
            case kind::boolean_false:
                o = literal_at(o, Hooks::false_byte, i);
                continue;
            case kind::boolean_true:
                o = literal_at(o, Hooks::true_byte, i);
                continue;
            case kind::int64:
                took = h.int64(o, w, t[i + 1]);
                break;
            case kind::uint64:
                took = h.uint64(o, t[i + 1]);
                break;
            case kind::float64:
                took = h.float64(o, t[i + 1]);
                break;
            case kind::string: {
                // Up to Hooks::short_max bytes: the byte short_fix | n and one 32-byte copy
                // when that much payload can be read (the bytes past n are overwritten by
                // what follows).
                const std::uint64_t off = w & document::payload_mask;
                const std::uint64_t n = t[i + 1];
                if (n <= Hooks::short_max && off + 32 <= payload_size) {
                    o[0] = static_cast<char>(Hooks::short_fix | n);
                    std::memcpy(o + 1, payload + off, 32);
                    o += n + 1;
                    took = true;
                }
                break;
            }
            case kind::array:
                took = h.header(o, kind::array, t[i + 1]);
                break;
            case kind::map:
                took = h.header(o, kind::map, t[i + 1]);
                break;
            default:
                break;
        }
        if (took) [[likely]] {
            i += 2;  // a container's children follow
            continue;
        }
        c.release();
        if (!h.rare(doc, i)) {
            return false;
        }
        c.acquire();
    }
    c.release();
    return true;
}

}  // namespace polycodec::detail
