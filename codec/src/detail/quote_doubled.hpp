#pragma once
// A string in quotes that stand for themselves when doubled: csv's "..." fields (RFC 4180)
// and yaml's '...' scalars.

#include <cstddef>
#include <string_view>

#include "polycodec/buffer.hpp"

namespace polycodec::detail {

/// Appends `s` between two `quote`s, each `quote` inside it written twice.
inline void write_quote_doubled(output_buffer& out, std::string_view s, char quote) {
    out.push_back(quote);
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == quote) {
            out.append(s.data() + run, i + 1 - run);
            out.push_back(quote);
            run = i + 1;
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back(quote);
}

}  // namespace polycodec::detail
