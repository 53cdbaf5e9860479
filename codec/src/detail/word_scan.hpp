#pragma once
// Byte tests 8 bytes a step for the writers' short strings (keys, names, values; issue 15):
// a string is read as 64-bit words, the last one overlapping the one before (or built from
// overlapping smaller loads below 8 bytes), so every word holds only the string's own bytes
// (some twice) and ' ' filler. Tests "does any byte of the string ..." stay exact: a byte seen
// twice changes nothing, and a test using these must pass ' '.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace polycodec::detail::word_scan {

constexpr std::uint64_t ones = 0x0101010101010101ull;
constexpr std::uint64_t high = 0x8080808080808080ull;

/// A word of the bytes of [p, p + n), 1 <= n <= 8, each at least once, the rest ' '.
inline std::uint64_t load_short(const char* p, std::size_t n) noexcept {
    if (n >= 4) {
        std::uint32_t a;
        std::uint32_t b;
        std::memcpy(&a, p, 4);
        std::memcpy(&b, p + n - 4, 4);
        return a | (static_cast<std::uint64_t>(b) << 32);
    }
    const auto b0 = static_cast<unsigned char>(p[0]);
    const auto b1 = static_cast<unsigned char>(p[n >> 1]);
    const auto b2 = static_cast<unsigned char>(p[n - 1]);
    return ((ones * ' ') & ~std::uint64_t{0xFFFFFF}) | b0 | (std::uint64_t{b1} << 8) |
           (std::uint64_t{b2} << 16);
}

/// The high bit of every byte of `x` equal to `c` (and perhaps of bytes above one that is:
/// "any byte is c" is exact).
constexpr std::uint64_t equal_bytes(std::uint64_t x, char c) noexcept {
    const std::uint64_t y = x ^ (ones * static_cast<unsigned char>(c));
    return (y - ones) & ~y & high;
}

/// ORs f(word) over the words of [p, p + n) (none when n == 0) and returns it.
template <class F>
[[gnu::always_inline]] inline std::uint64_t fold(const char* p, std::size_t n, F f) noexcept {
    if (n <= 8) {
        return n == 0 ? 0 : f(load_short(p, n));
    }
    std::uint64_t acc = 0;
    const char* const last = p + n - 8;
    for (; p < last; p += 8) {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        acc |= f(x);
    }
    std::uint64_t x;
    std::memcpy(&x, last, 8);
    return acc | f(x);
}

/// Copies n bytes, sizeof(Word) <= n <= 2 * sizeof(Word), from `s` to `d` as two Word moves
/// that overlap in the middle: the first and the last sizeof(Word) bytes.
template <class Word>
[[gnu::always_inline]] inline void copy_two_words(char* d, const char* s, std::size_t n) noexcept {
    Word a;
    Word b;
    std::memcpy(&a, s, sizeof a);
    std::memcpy(&b, s + n - sizeof b, sizeof b);
    std::memcpy(d, &a, sizeof a);
    std::memcpy(d + n - sizeof b, &b, sizeof b);
}

/// Copies n bytes from `s` to `d` (no overlap) through fixed-size moves up to 16 bytes (no
/// memcpy call for the short keys and values of the text writers).
[[gnu::always_inline]] inline void copy_short(char* d, const char* s, std::size_t n) noexcept {
    if (n > 16) {
        std::memcpy(d, s, n);
    } else if (n >= 8) {
        copy_two_words<std::uint64_t>(d, s, n);
    } else if (n >= 4) {
        copy_two_words<std::uint32_t>(d, s, n);
    } else if (n != 0) {
        d[0] = s[0];
        d[n >> 1] = s[n >> 1];
        d[n - 1] = s[n - 1];
    }
}

}  // namespace polycodec::detail::word_scan
