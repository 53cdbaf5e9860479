#pragma once
// Shared by `polycodec-loadtest peers` and the callgrind drivers, so that both measure the
// very same calls into the peer library.
#include <cstddef>

namespace polycodec::loadtest {

inline volatile std::size_t sink = 0;  // keeps results observable so nothing is optimised away

template <class T>
void keep(T v) {
    sink = sink + static_cast<std::size_t>(v);
}

}  // namespace polycodec::loadtest
