// The memory budget of DESIGN section 13: reservations, growth, release, concurrency, and the
// default budget from cgroup files.
#include "budget.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "transcode.hpp"

using namespace polycodec::server;

TEST(MemoryBudget, ReservesWhatFitsAndRefusesTheRest) {
    memory_budget b(1000);
    EXPECT_EQ(b.limit(), 1000u);
    EXPECT_EQ(b.reserved(), 0u);
    {
        auto r1 = b.try_reserve(600);
        ASSERT_TRUE(r1);
        EXPECT_EQ(r1.size(), 600u);
        EXPECT_EQ(b.reserved(), 600u);
        auto r2 = b.try_reserve(401);  // 1001 > 1000
        EXPECT_FALSE(r2);
        EXPECT_EQ(r2.size(), 0u);
        EXPECT_EQ(b.reserved(), 600u);
        auto r3 = b.try_reserve(400);  // exactly the limit
        ASSERT_TRUE(r3);
        EXPECT_EQ(b.reserved(), 1000u);
        auto r4 = b.try_reserve(1);
        EXPECT_FALSE(r4);
        auto zero = b.try_reserve(0);  // a 0-byte reservation always fits
        EXPECT_TRUE(zero);
        EXPECT_EQ(zero.size(), 0u);
    }
    EXPECT_EQ(b.reserved(), 0u);  // released on destruction
    EXPECT_TRUE(b.could_fit(1000));
    EXPECT_FALSE(b.could_fit(1001));
    EXPECT_FALSE(b.try_reserve(1001));
    EXPECT_FALSE(b.try_reserve(static_cast<std::size_t>(-1)));
    EXPECT_EQ(b.reserved(), 0u);
}

TEST(MemoryBudget, ReservationsMoveAndReleaseOnce) {
    memory_budget b(100);
    memory_budget::reservation outer;
    EXPECT_FALSE(outer);
    {
        auto r = b.try_reserve(30);
        memory_budget::reservation moved(std::move(r));
        EXPECT_FALSE(r);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
        EXPECT_EQ(r.size(), 0u);
        EXPECT_EQ(moved.size(), 30u);
        outer = std::move(moved);
        EXPECT_EQ(b.reserved(), 30u);
    }
    EXPECT_EQ(b.reserved(), 30u);  // outer still holds it
    outer = b.try_reserve(50);     // assigning releases the old 30
    EXPECT_EQ(b.reserved(), 50u);
    outer.shrink_to(20);
    EXPECT_EQ(outer.size(), 20u);
    EXPECT_EQ(b.reserved(), 20u);
    outer.shrink_to(40);  // never grows
    EXPECT_EQ(outer.size(), 20u);
    auto other = b.try_reserve(5);
    outer.absorb(std::move(other));
    EXPECT_EQ(outer.size(), 25u);
    EXPECT_FALSE(other);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(b.reserved(), 25u);
    outer.release();
    EXPECT_FALSE(outer);
    EXPECT_EQ(b.reserved(), 0u);
    outer.release();  // twice is harmless
    EXPECT_EQ(b.reserved(), 0u);
    memory_budget::reservation empty;
    empty.absorb(b.try_reserve(7));  // an empty one takes the other over
    EXPECT_EQ(empty.size(), 7u);
    EXPECT_EQ(b.reserved(), 7u);
}

TEST(MemoryBudget, GrowOnlyWhatFits) {
    memory_budget b(1000);
    auto r = b.try_reserve(100);
    ASSERT_TRUE(r);
    EXPECT_TRUE(b.grow(r, 400));
    EXPECT_EQ(r.size(), 500u);
    EXPECT_EQ(b.reserved(), 500u);
    auto other = b.try_reserve(300);
    ASSERT_TRUE(other);
    EXPECT_FALSE(b.grow(r, 201));  // 500 + 300 + 201 > 1000: unchanged
    EXPECT_EQ(r.size(), 500u);
    EXPECT_EQ(b.reserved(), 800u);
    EXPECT_TRUE(b.grow(r, 200));
    EXPECT_EQ(b.reserved(), 1000u);
    memory_budget::reservation none;
    EXPECT_FALSE(b.grow(none, 0));  // an empty reservation cannot grow
    memory_budget elsewhere(1000);
    EXPECT_FALSE(elsewhere.grow(r, 1));  // nor one of another budget
    EXPECT_EQ(elsewhere.reserved(), 0u);
    r.release();
    other.release();
    EXPECT_EQ(b.reserved(), 0u);
}

// Many threads reserving, growing and releasing: the limit is never exceeded and everything
// comes back.
TEST(MemoryBudget, ConcurrentReservationsNeverExceedTheLimit) {
    constexpr std::size_t limit = 10000;
    memory_budget b(limit);
    std::atomic<std::size_t> granted{0};
    std::atomic<std::size_t> refused{0};
    std::atomic<bool> over{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 20000; ++i) {
                std::size_t n = 100 + static_cast<std::size_t>((i * 37 + t * 11) % 900);
                auto r = b.try_reserve(n);
                if (!r) {
                    refused.fetch_add(1);
                    continue;
                }
                granted.fetch_add(1);
                if (i % 3 == 0) {
                    (void)b.grow(r, 250);
                }
                if (b.reserved() > limit) {
                    over = true;
                }
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    EXPECT_FALSE(over.load());
    EXPECT_EQ(granted.load() + refused.load(), 8u * 20000u);
    EXPECT_GT(granted.load(), 0u);
    EXPECT_EQ(b.reserved(), 0u);
}

// Eight holders of 1500 bytes fit a 10000-byte budget only six at a time, however they race.
TEST(MemoryBudget, ConcurrentHoldersAreCountedExactly) {
    memory_budget b(10000);
    std::vector<memory_budget::reservation> held(8);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < held.size(); ++t) {
        threads.emplace_back([&, t] { held[t] = b.try_reserve(1500); });
    }
    for (auto& th : threads) {
        th.join();
    }
    std::size_t n = 0;
    for (auto& r : held) {
        n += r ? 1 : 0;
    }
    EXPECT_EQ(n, 6u);
    EXPECT_EQ(b.reserved(), 9000u);
    held.clear();
    EXPECT_EQ(b.reserved(), 0u);
}

TEST(MemoryBudget, CgroupLimitText) {
    EXPECT_EQ(parse_cgroup_memory_limit("max\n"), std::nullopt);  // v2: no limit
    EXPECT_EQ(parse_cgroup_memory_limit("max"), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit("536870912\n"), std::optional<std::size_t>(536870912));
    EXPECT_EQ(parse_cgroup_memory_limit("1073741824"), std::optional<std::size_t>(1u << 30));
    // v1 without a limit: 2^63 rounded down to the page size.
    EXPECT_EQ(parse_cgroup_memory_limit("9223372036854771712\n"), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit(""), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit("\n"), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit("12x"), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit("-1"), std::nullopt);
    EXPECT_EQ(parse_cgroup_memory_limit("0"), std::nullopt);
}

namespace {

struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        path = std::filesystem::temp_directory_path() /
               ("polycodec_budget_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string write(const std::string& name, const std::string& text) const {
        auto p = path / name;
        std::ofstream(p) << text;
        return p.string();
    }
};

}  // namespace

TEST(MemoryBudget, DefaultIsHalfOfTheCgroupLimitElseOfPhysicalMemory) {
    temp_dir d;
    constexpr std::size_t gib = std::size_t{1} << 30;
    std::string v2 = d.write("memory.max", "2147483648\n");
    std::string v2max = d.write("memory.max.none", "max\n");
    std::string v1 = d.write("memory.limit_in_bytes", "1073741824\n");
    std::string v1none = d.write("memory.limit_in_bytes.none", "9223372036854771712\n");
    std::string missing = (d.path / "absent").string();
    // v2 limit set: half of it.
    EXPECT_EQ(default_memory_budget(v2.c_str(), v1.c_str(), 16 * gib), gib);
    // v2 "max": v1 is consulted, then physical memory.
    EXPECT_EQ(default_memory_budget(v2max.c_str(), v1.c_str(), 16 * gib), gib / 2);
    EXPECT_EQ(default_memory_budget(v2max.c_str(), v1none.c_str(), 16 * gib), 8 * gib);
    // No cgroup files at all (not in a container): half of physical.
    EXPECT_EQ(default_memory_budget(missing.c_str(), missing.c_str(), 16 * gib), 8 * gib);
    EXPECT_EQ(default_memory_budget(nullptr, nullptr, 6 * gib), 3 * gib);
    // A cgroup limit above physical memory: physical counts.
    EXPECT_EQ(default_memory_budget(v2.c_str(), nullptr, gib), gib / 2);
    // The machine's own default is positive.
    EXPECT_GT(default_memory_budget(), 0u);
}

TEST(MemoryBudget, RequestReservationIsTheDocumentedFactor) {
    EXPECT_EQ(request_reservation(0), request_memory_overhead);
    EXPECT_EQ(request_reservation(1000000),
              1000000 * request_memory_factor + request_memory_overhead);
    EXPECT_EQ(request_reservation(static_cast<std::size_t>(-1) / 2), static_cast<std::size_t>(-1));
    // The Document may use what the request reserved minus its body, never more.
    for (std::size_t n : {std::size_t{0}, std::size_t{17}, std::size_t{8} << 20}) {
        EXPECT_EQ(document_budget(n) + n, request_reservation(n));
    }
}
