#pragma once
// Counts heap allocations of the whole process (global operator new is replaced in
// alloc_counter.cpp), so the bench can show that steady-state encode and decode allocate
// nothing.

#include <cstdint>

namespace polycodec::loadtest {

/// Allocations made so far by this process.
std::uint64_t alloc_count() noexcept;

}  // namespace polycodec::loadtest
