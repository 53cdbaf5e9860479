// The raw output cursor of the fast text writers (json's write_compact, csv's rows of a recorded
// shape, xml's fast path): they write through a local pointer into room taken from the
// output_buffer and hand the bytes written back to it, so the hot loop keeps `w` and `lim` in
// registers and calls out of line only to grow.
#pragma once

#include <cstddef>

#include "polycodec/buffer.hpp"

namespace polycodec::detail {

struct out_room {
    char* w;
    char* lim;
};

/// Commits the bytes written from the buffer's end up to `w`.
inline void out_sync(output_buffer& out, char* w) {
    out.commit(static_cast<std::size_t>(w - (out.data_mut() + out.size())));
}

/// Hands the bytes written up to `w` (null: none since the last sync) to `out` and returns room
/// for at least `need` more.
[[gnu::noinline]] inline out_room out_refill(output_buffer& out, char* w, std::size_t need) {
    if (w != nullptr) {
        out_sync(out, w);
    }
    char* p = out.prepare(need < 4096 ? 4096 : need);
    return {p, out.data_mut() + out.capacity()};
}

}  // namespace polycodec::detail
