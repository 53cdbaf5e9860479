#include "budget.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>

namespace polycodec::server {

void memory_budget::reservation::release() noexcept {
    if (owner_ != nullptr) {
        owner_->sub(bytes_);
    }
    owner_ = nullptr;
    bytes_ = 0;
}

void memory_budget::reservation::shrink_to(std::size_t keep) noexcept {
    if (owner_ != nullptr && bytes_ > keep) {
        owner_->sub(bytes_ - keep);
        bytes_ = keep;
    }
}

void memory_budget::reservation::absorb(reservation&& other) noexcept {
    if (other.owner_ == nullptr || &other == this) {
        return;
    }
    if (owner_ == nullptr) {
        *this = std::move(other);
        return;
    }
    if (owner_ != other.owner_) {
        return;  // of another budget: keep them apart (not expected)
    }
    bytes_ += other.bytes_;
    other.owner_ = nullptr;
    other.bytes_ = 0;
}

bool memory_budget::add(std::size_t n) noexcept {
    std::size_t cur = reserved_.load(std::memory_order_relaxed);
    do {
        if (cur > limit_ || n > limit_ - cur) {
            return false;
        }
    } while (!reserved_.compare_exchange_weak(cur, cur + n, std::memory_order_relaxed));
    return true;
}

memory_budget::reservation memory_budget::try_reserve(std::size_t n) noexcept {
    if (!add(n)) {
        return {};
    }
    return reservation(this, n);
}

bool memory_budget::grow(reservation& r, std::size_t extra) noexcept {
    if (r.owner_ != this || !add(extra)) {
        return false;
    }
    r.bytes_ += extra;
    return true;
}

std::optional<std::size_t> parse_cgroup_memory_limit(std::string_view contents) noexcept {
    while (!contents.empty() && (contents.back() == '\n' || contents.back() == ' ' ||
                                 contents.back() == '\r' || contents.back() == '\t')) {
        contents.remove_suffix(1);
    }
    if (contents.empty() || contents == "max") {
        return std::nullopt;
    }
    std::uint64_t n = 0;
    auto r = std::from_chars(contents.data(), contents.data() + contents.size(), n);
    if (r.ec != std::errc() || r.ptr != contents.data() + contents.size() || n == 0) {
        return std::nullopt;
    }
    // cgroup v1 says "no limit" with 9223372036854771712 (2^63 rounded to a page); anything
    // from 2^60 (an exbibyte) up is no limit in practice.
    if (n >= (std::uint64_t{1} << 60)) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(n);
}

namespace {

std::optional<std::size_t> read_limit(const char* path) noexcept {
    if (path == nullptr) {
        return std::nullopt;
    }
    std::FILE* f = std::fopen(path, "rb");
    if (f == nullptr) {
        return std::nullopt;
    }
    char buf[64];
    std::size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    return parse_cgroup_memory_limit(std::string_view(buf, n));
}

}  // namespace

std::size_t default_memory_budget(const char* v2_path, const char* v1_path,
                                  std::size_t physical) noexcept {
    std::optional<std::size_t> limit = read_limit(v2_path);
    if (!limit) {
        limit = read_limit(v1_path);
    }
    std::size_t base = physical;
    if (limit && (physical == 0 || *limit < physical)) {
        base = *limit;
    }
    if (base == 0) {
        base = std::size_t{2} << 30;  // nothing known: assume 2 GiB
    }
    return base / 2;
}

std::size_t default_memory_budget() noexcept {
    long pages = ::sysconf(_SC_PHYS_PAGES);
    long page = ::sysconf(_SC_PAGESIZE);
    std::size_t physical = pages > 0 && page > 0
                               ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
    return default_memory_budget("/sys/fs/cgroup/memory.max",
                                 "/sys/fs/cgroup/memory/memory.limit_in_bytes", physical);
}

}  // namespace polycodec::server
