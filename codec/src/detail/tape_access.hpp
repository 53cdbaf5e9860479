#pragma once
// Tape surgery inside the library (stream mode, detail::tape_writer): not part of the public API.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "polycodec/document.hpp"

namespace polycodec::detail {

struct tape_access {
    /// The buffers themselves, for detail::tape_writer (one-pass decoders).
    static std::vector<std::uint64_t>& tape(document& d) noexcept { return d.tape_; }
    static std::string& bytes(document& d) noexcept { return d.bytes_; }

    /// Makes the element at tape index `at` (a child of the root) the whole document: its words
    /// move to the front and container end indices shift with them. Payload bytes stay where
    /// they are (offsets into bytes() do not change). O(size of the element).
    static void keep_subtree(document& d, std::size_t at) noexcept {
        auto& t = d.tape_;
        std::size_t end = value(&d, at).end_index();
        if (at != 0) {
            std::memmove(t.data(), t.data() + at, (end - at) * sizeof(std::uint64_t));
        }
        t.resize(end - at);
        if (at == 0) {
            return;
        }
        std::size_t i = 0;
        while (i < t.size()) {
            auto k = static_cast<kind>(t[i] >> document::kind_shift);
            switch (k) {
                case kind::null:
                case kind::boolean_false:
                case kind::boolean_true:
                    i += 1;
                    break;
                case kind::array:
                case kind::map: {
                    std::uint64_t payload = (t[i] & document::payload_mask) - at;
                    t[i] = (t[i] & ~document::payload_mask) | payload;
                    i += 2;
                    break;
                }
                default:
                    i += 2;  // scalars of two words; a tag's inner element follows it
                    break;
            }
        }
    }
};

}  // namespace polycodec::detail
