#pragma once
// Deterministic input mutation for the mutated-input test (tests/codec/mutated_input_test.cpp):
// one seeded generator and one mutator, shared by every format.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace polycodec::test {

/// xorshift64: small, fast, and the same sequence on every platform for a given seed.
class rng {
public:
    explicit rng(std::uint64_t seed) : state_(seed != 0 ? seed : 0x9e3779b97f4a7c15ull) {}

    std::uint64_t next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_;
    }
    /// A value in [0, n); n > 0.
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

private:
    std::uint64_t state_;
};

/// The kinds of edit `mutate` may make, as a bit set.
enum mutation : unsigned {
    overwrite = 1,  ///< one byte replaced
    flip = 2,       ///< one bit of one byte flipped
    erase = 4,      ///< 1 to 8 bytes removed
    insert = 8,     ///< one byte inserted
    truncate = 16,  ///< everything from one position on removed
    all_mutations = 31,
};

/// Applies 1 to `max_edits` edits of the kinds in `kinds` to `s`. New bytes are drawn from
/// `pool`, or are any byte when `pool` is empty. Stops early once `s` is empty.
inline void mutate(std::string& s, rng& g, unsigned kinds, int max_edits, std::string_view pool) {
    auto fresh = [&] {
        return pool.empty() ? static_cast<char>(g.next() >> 24) : pool[g.below(pool.size())];
    };
    int edits = 1 + static_cast<int>(g.below(static_cast<std::size_t>(max_edits)));
    for (int k = 0; k < edits && !s.empty(); ++k) {
        std::size_t at = g.below(s.size());
        unsigned kind;
        do {
            kind = 1u << g.below(5);
        } while ((kinds & kind) == 0);
        switch (kind) {
            case overwrite:
                s[at] = fresh();
                break;
            case flip:
                s[at] = static_cast<char>(s[at] ^ (1 << g.below(8)));
                break;
            case erase:
                s.erase(at, 1 + g.below(8));
                break;
            case insert:
                s.insert(at, 1, fresh());
                break;
            default:
                s.resize(at);
                break;
        }
    }
}

}  // namespace polycodec::test
