#pragma once
// The service's memory budget (DESIGN section 13): a limit and the bytes reserved against it by
// the requests in flight. Thread-safe (one atomic counter); no Asio, Beast or prometheus here.
//
//   memory_budget b(64 << 20);
//   memory_budget::reservation r = b.try_reserve(need);
//   if (!r) { /* 503: does not fit now (or 413 when need > b.limit()) */ }
//   ...                                // r is released when it goes out of scope
//
// A reservation is an accounting promise, not an allocation: the request that holds it may use
// that much memory, and the admission code refuses requests whose reservation does not fit.

#include <atomic>
#include <cstddef>
#include <optional>
#include <string_view>

namespace polycodec::server {

class memory_budget {
public:
    /// Bytes held against a budget; released on destruction. Movable, not copyable. A
    /// default-constructed or refused reservation is empty: false, size 0, releases nothing.
    class reservation {
    public:
        reservation() noexcept = default;
        reservation(reservation&& o) noexcept : owner_(o.owner_), bytes_(o.bytes_) {
            o.owner_ = nullptr;
            o.bytes_ = 0;
        }
        reservation& operator=(reservation&& o) noexcept {
            if (this != &o) {
                release();
                owner_ = o.owner_;
                bytes_ = o.bytes_;
                o.owner_ = nullptr;
                o.bytes_ = 0;
            }
            return *this;
        }
        reservation(const reservation&) = delete;
        reservation& operator=(const reservation&) = delete;
        ~reservation() { release(); }

        /// True when the reservation was granted (even for 0 bytes).
        explicit operator bool() const noexcept { return owner_ != nullptr; }
        std::size_t size() const noexcept { return bytes_; }
        /// Gives the bytes back now; the reservation becomes empty.
        void release() noexcept;
        /// Gives back what is above `keep` bytes (nothing when it holds less).
        void shrink_to(std::size_t keep) noexcept;
        /// Adds the bytes of `other` (of the same budget) to this one; `other` becomes empty.
        /// An empty `this` simply takes `other` over.
        void absorb(reservation&& other) noexcept;

    private:
        friend class memory_budget;
        reservation(memory_budget* owner, std::size_t bytes) noexcept
            : owner_(owner), bytes_(bytes) {}
        memory_budget* owner_ = nullptr;
        std::size_t bytes_ = 0;
    };

    explicit memory_budget(std::size_t limit) noexcept : limit_(limit) {}
    memory_budget(const memory_budget&) = delete;
    memory_budget& operator=(const memory_budget&) = delete;
    /// Every reservation must be gone before the budget is destroyed.
    ~memory_budget() = default;

    std::size_t limit() const noexcept { return limit_; }
    /// Bytes currently reserved (a snapshot).
    std::size_t reserved() const noexcept { return reserved_.load(std::memory_order_relaxed); }
    /// True when `n` bytes could be reserved at all (when nothing else is reserved).
    bool could_fit(std::size_t n) const noexcept { return n <= limit_; }

    /// `n` bytes if they fit now (reserved + n <= limit), else an empty reservation.
    reservation try_reserve(std::size_t n) noexcept;
    /// Adds `extra` bytes to `r` (a granted reservation of this budget) if they fit now; false
    /// (and `r` unchanged) when they do not or `r` is empty / of another budget.
    bool grow(reservation& r, std::size_t extra) noexcept;

private:
    bool add(std::size_t n) noexcept;
    void sub(std::size_t n) noexcept { reserved_.fetch_sub(n, std::memory_order_relaxed); }

    std::size_t limit_;
    std::atomic<std::size_t> reserved_{0};
};

/// The memory limit of a cgroup, from the contents of cgroup v2's `memory.max` or v1's
/// `memory.limit_in_bytes`: nullopt for "max", an empty or unparsable text, or a value so
/// large that it means no limit (v1 writes 2^63 rounded down to the page size).
std::optional<std::size_t> parse_cgroup_memory_limit(std::string_view contents) noexcept;

/// The default budget: half of the cgroup's memory limit where one is set (cgroup v2
/// `v2_path` first, then v1 `v1_path`; an unreadable file counts as no limit), else half of
/// `physical` bytes. With a limit above physical memory, half of physical.
std::size_t default_memory_budget(const char* v2_path, const char* v1_path,
                                  std::size_t physical) noexcept;

/// default_memory_budget of /sys/fs/cgroup/memory.max, /sys/fs/cgroup/memory/memory.limit_in_bytes
/// and the physical memory (sysconf).
std::size_t default_memory_budget() noexcept;

}  // namespace polycodec::server
