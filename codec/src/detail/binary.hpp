#pragma once
// Pieces the binary codecs' fast paths share (msgpack, cbor): big-endian loads and stores of
// 1/2/4/8 bytes, and the short-string copy that checks 32 bytes for ASCII at once. Formats
// share code only through detail/ (docs/ARCHITECTURE.md).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace polycodec::detail {

/// The n (1, 2, 4 or 8) bytes at p as a big-endian number.
inline std::uint64_t load_be(const unsigned char* p, int n) noexcept {
    switch (n) {
        case 1:
            return p[0];
        case 2: {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            return __builtin_bswap16(v);
        }
        case 4: {
            std::uint32_t v;
            std::memcpy(&v, p, 4);
            return __builtin_bswap32(v);
        }
        default: {
            std::uint64_t v;
            std::memcpy(&v, p, 8);
            return __builtin_bswap64(v);
        }
    }
}

/// Reads a K-byte big-endian number at pos into v; false when the input ends first.
template <int K>
inline bool take_be(const unsigned char* p, std::size_t size, std::size_t& pos,
                    std::uint64_t& v) noexcept {
    if (size - pos < static_cast<std::size_t>(K)) {
        return false;
    }
    v = load_be(p + pos, K);
    pos += K;
    return true;
}

/// Writes `marker` then the low n (1, 2, 4 or 8) bytes of v big-endian at o (9 bytes must be
/// writable: all 8 are stored, only n count); returns the end of what counts.
inline char* put_be_at(char* o, unsigned char marker, std::uint64_t v, int n) noexcept {
    o[0] = static_cast<char>(marker);
    if constexpr (std::endian::native == std::endian::little) {
        std::uint64_t be = __builtin_bswap64(v << (8 * (8 - n)));
        std::memcpy(o + 1, &be, 8);
    } else {
        for (int k = 0; k < n; ++k) {
            o[1 + k] = static_cast<char>(v >> (8 * (n - 1 - k)));
        }
    }
    return o + 1 + n;
}

/// True when the n (1..16) bytes at s are ASCII; 16 bytes at s must be readable.
inline bool ascii_upto16(const unsigned char* s, std::size_t n) noexcept {
    constexpr std::uint64_t high = 0x8080808080808080ULL;
    std::uint64_t a;
    std::memcpy(&a, s, 8);
    if (n <= 8) {
        std::uint64_t m = ~std::uint64_t{0} >> (64 - 8 * n);
        return (a & m & high) == 0;
    }
    std::uint64_t c;
    std::memcpy(&c, s + 8, 8);
    std::uint64_t m = ~std::uint64_t{0} >> (64 - 8 * (n - 8));
    return ((a | (c & m)) & high) == 0;
}

/// True when the n (1..32) bytes at s are ASCII; 32 bytes at s must be readable.
inline bool ascii_upto32(const unsigned char* s, std::size_t n) noexcept {
    if (n <= 16) {
        return ascii_upto16(s, n);
    }
    std::uint64_t a, c;
    std::memcpy(&a, s, 8);
    std::memcpy(&c, s + 8, 8);
    return ((a | c) & 0x8080808080808080ULL) == 0 && ascii_upto16(s + 16, n - 16);
}

// first_n_mask + 32 - n: 16 bytes whose first n (0..16) are 0xff; + 48 - n: the next 16.
alignas(16) inline constexpr unsigned char first_n_mask[64] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/// Copies 32 bytes from s to dst (both must have 32 bytes: the bytes past n are overwritten by
/// what follows or cut at the end) and says whether the first n (0..32) are ASCII.
inline bool copy32_ascii(char* dst, const unsigned char* s, std::size_t n) noexcept {
#if defined(__SSE2__)
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), lo);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 16), hi);
    const __m128i mlo =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(first_n_mask + 32 - n));
    const __m128i mhi =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(first_n_mask + 48 - n));
    return _mm_movemask_epi8(_mm_or_si128(_mm_and_si128(lo, mlo), _mm_and_si128(hi, mhi))) == 0;
#else
    std::memcpy(dst, s, 32);
    return n == 0 || (std::endian::native == std::endian::little && ascii_upto32(s, n));
#endif
}

}  // namespace polycodec::detail
