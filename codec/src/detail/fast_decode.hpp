#pragma once
// The frame around the binary codecs' one-pass decoders (cbor, msgpack, smile, ubjson, bson,
// bencode, pickle, postcard), written once: when a fast path may run (an empty builder at
// depth 0, and what the format's options allow), the reset when it bails so that the ordinary
// reader finds (and words) the error or the limit, the input and limits it starts from, and
// the all-input-read and size-budget check at its end. The fast paths themselves write the
// tape through detail::tape_writer (detail/binary.hpp has their frame loop of counted
// containers). Formats share code only through detail/ (docs/ARCHITECTURE.md).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "detail/binary.hpp"
#include "polycodec/document.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// Runs the one-pass decoder `fast` (a callable returning true when it decoded all of the
/// input) when it may: `allowed` (the format's options) and an empty builder at depth 0. When
/// it bails the builder is reset, and the caller runs its ordinary reader, which finds the
/// error (or the limit) and reports it. True when the fast path decoded the input.
template <class Fast>
inline bool try_fast_decode(builder& b, bool allowed, Fast&& fast) {
    if (allowed && b.depth() == 0 && b.ok() && b.doc().empty() && b.doc().bytes().empty()) {
        if (fast()) {
            return true;
        }
        b.reset();  // the reader finds the error (or the limit) and reports it
    }
    return false;
}

/// A decoder: the one-pass `fast` when it may run and decodes the input (try_fast_decode),
/// else the ordinary reader, `read` (a callable returning result<void>).
template <class Fast, class Read>
inline result<void> fast_or_read(builder& b, bool allowed, Fast&& fast, Read&& read) {
    if (try_fast_decode(b, allowed, fast)) {
        return {};
    }
    return read();
}

/// What a one-pass decoder starts from: the input's bytes and size, the depth it may open
/// (the builder's limit, at most the fast path's own `max_frames`) and the size budget.
struct fast_input {
    const unsigned char* p;
    std::size_t size;
    std::size_t max_depth;
    std::size_t max_bytes;
};

[[gnu::always_inline]] inline fast_input fast_input_of(std::string_view in, const builder& b,
                                                       std::size_t max_frames) noexcept {
    return {reinterpret_cast<const unsigned char*>(in.data()), in.size(),
            std::min<std::size_t>(b.limits().max_depth, max_frames), b.limits().max_bytes};
}

/// A string of n bytes at p + pos (of the input's `size`), checked and copied as fast_text
/// does (detail/binary.hpp); pos moves past it. False when it does not fit or is not UTF-8.
template <class TapeWriter>
[[gnu::always_inline]] inline bool fast_text_at(TapeWriter& tw, std::uint64_t* w,
                                                const unsigned char* p, std::size_t size,
                                                std::size_t& pos, std::uint64_t n) {
    if (!fast_text(tw, w, p + pos, size - pos, n)) {
        return false;
    }
    pos += n;
    return true;
}

/// The end of a one-pass decoder: all `size` bytes of input read (pos) and the tape within the
/// size budget; then the tape writer's buffers are cut to what was written. False otherwise
/// (the caller bails).
template <class TapeWriter>
[[gnu::always_inline]] inline bool fast_finish(TapeWriter& tw, std::size_t pos, std::size_t size,
                                               std::size_t max_bytes) {
    if (pos != size || tw.over_budget(max_bytes)) {
        return false;
    }
    tw.finish();
    return true;
}

}  // namespace polycodec::detail
