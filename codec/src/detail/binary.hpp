#pragma once
// Pieces the binary codecs' fast paths share: big-endian loads and stores of 1/2/4/8 bytes,
// the short-string copy that checks 32 bytes for ASCII at once, the frame loop of counted
// containers of the one-pass decoders that write the tape (detail::tape_writer: fast_open,
// fast_value_done; msgpack, cbor, ubjson; smile and pickle use the frames), and the output
// cursor of the encoders that walk it, with reserve() for long strings (also bencode,
// postcard, smile, pickle). Formats share code only through detail/ (docs/ARCHITECTURE.md).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "detail/utf8.hpp"
#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"

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

/// The bits of the double that the float32 at p (in the host's byte order: the little-endian
/// wire order of avro and postcard on a little-endian host) widens to.
inline std::uint64_t load_f32_widened(const unsigned char* p) noexcept {
    float f;
    std::memcpy(&f, p, 4);
    const auto d = static_cast<double>(f);
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    return bits;
}

/// The number after a head whose `code` First, First + 1, First + 2 or First + 3 announces a
/// 1-, 2-, 4- or 8-byte big-endian number (take_be, each width a constant-width load). False
/// for any other code, or when the input ends first.
template <unsigned First>
[[gnu::always_inline]] inline bool take_be_coded(unsigned code, const unsigned char* p,
                                                 std::size_t size, std::size_t& pos,
                                                 std::uint64_t& v) noexcept {
    switch (code) {
        case First:
            return take_be<1>(p, size, pos, v);
        case First + 1:
            return take_be<2>(p, size, pos, v);
        case First + 2:
            return take_be<4>(p, size, pos, v);
        case First + 3:
            return take_be<8>(p, size, pos, v);
        default:
            return false;
    }
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

/// A string's n bytes at s (`avail` bytes of input there), checked as UTF-8 and copied to the
/// tape writer's payload, its two words at w; short ones are copied 32 bytes at a time when 32
/// can be read. False when n runs past the input or on invalid UTF-8.
template <class TapeWriter>
[[gnu::always_inline]] inline bool fast_text(TapeWriter& tw, std::uint64_t* w,
                                             const unsigned char* s, std::size_t avail,
                                             std::uint64_t n) {
    if (avail >= 32 && n <= 32) {
        if (!copy32_ascii(tw.bytes(32), s, n) &&
            utf8_valid_prefix({reinterpret_cast<const char*>(s), n}) != n) {
            return false;
        }
    } else {
        if (n > avail || utf8_valid_prefix({reinterpret_cast<const char*>(s), n}) != n) {
            return false;
        }
        std::memcpy(tw.bytes(n), s, n);
    }
    tw.payload(w, kind::string, 0, n);
    return true;
}

/// An open container of a one-pass decoder; frames[0] stands for the top level, a container
/// of one value that is never closed.
struct fast_frame {
    std::size_t start;   // tape index of the container's header
    std::uint64_t left;  // children still to read (keys and values for a map)
    bool map = false;    // (ubjson) a map: the child is a key when `left` is even
};

/// A value is complete: counts it in its container, closing (tw.close) the containers it
/// ends. True when it was the top-level value.
template <class TapeWriter>
[[gnu::always_inline]] inline bool fast_value_done(fast_frame*& top, const fast_frame* frames,
                                                   TapeWriter& tw) noexcept {
    if (--top->left != 0) {
        return false;
    }
    for (;;) {
        if (top == frames) {
            return true;
        }
        tw.close(top->start);
        --top;
        if (--top->left != 0) {
            return false;
        }
    }
}

/// What fast_open did with a container's header.
enum class fast_open_result {
    fail,    // hand off to the reader (a count the input cannot hold, the depth, the budget)
    empty,   // an empty container, complete at once: count it as a value (fast_value_done)
    opened,  // its frame is pushed: read its first child next
};

/// Opens a container of a one-pass decoder: its header at w (the next element's place), with
/// n children (n pairs for a map). Fails when n children of at least MinChild bytes each
/// (n pairs of MinPair, for a map) cannot fit in the `left` bytes of input, past `max_depth`
/// open containers or over the size budget (tape_writer::over_budget).
template <std::size_t MinChild, std::size_t MinPair, class TapeWriter>
[[gnu::always_inline]] inline fast_open_result fast_open(
    fast_frame*& top, const fast_frame* frames, std::size_t max_depth, std::size_t max_bytes,
    TapeWriter& tw, std::uint64_t* w, bool is_map, std::uint64_t n, std::size_t left) noexcept {
    if ((is_map ? n > left / MinPair : n > left / MinChild) ||
        static_cast<std::size_t>(top - frames) >= max_depth || tw.over_budget(max_bytes)) {
        return fast_open_result::fail;
    }
    const kind k = is_map ? kind::map : kind::array;
    if (n == 0) {
        tw.open_empty(w, k);
        return fast_open_result::empty;
    }
    *++top = {tw.size(), is_map ? 2 * n : n, is_map};
    tw.open(w, k, n);
    return fast_open_result::opened;
}

/// The encoders' output cursor: a pointer into the buffer's free space (o .. end), with at
/// least `Slack` bytes before each element (room()), committed by release(). Kept on the
/// encoder's stack so that the compiler keeps o in a register.
template <std::size_t Slack>
struct out_cursor {
    explicit out_cursor(output_buffer& b) : out(b) { acquire(); }
    void acquire() {
        o = out.prepare(Slack);
        end = out.data_mut() + out.capacity();
    }
    void release() noexcept {
        out.commit(static_cast<std::size_t>(o - (out.data_mut() + out.size())));
    }
    void room() {
        if (static_cast<std::size_t>(end - o) < Slack) {
            release();
            acquire();
        }
    }
    /// At least n bytes free at o (an element longer than Slack: a string).
    void reserve(std::size_t n) {
        if (static_cast<std::size_t>(end - o) < n) {
            release();
            o = out.prepare(n);
            end = out.data_mut() + out.capacity();
        }
    }
    output_buffer& out;
    char* o = nullptr;
    char* end = nullptr;
};

}  // namespace polycodec::detail
