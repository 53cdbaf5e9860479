#pragma once
// The tape writer of one-pass decoders (msgpack, bson and json's simdjson translation): writes
// the Document's tape words and payload bytes directly, without the builder's per-element
// bookkeeping, in the layout document.hpp describes. Not part of the public API: the builder
// exposes no raw tape access; this header reaches the buffers as a friend of document
// (tape_access), like the stream mode's tape surgery.
//
// Use: construct on an empty builder (depth 0, empty document), then for each element
//   std::uint64_t* w = tw.words(4);           // at least 4 free words at w
//   w[0] = tape_word(kind::int64, 0, 0); w[1] = v; tw.advance(2);
// strings: char* d = tw.bytes(n); memcpy(d, s, n); w[0] = tape_word(kind::string, 0,
// tw.bytes_used()); w[1] = n; tw.advance(2); tw.advance_bytes(n);
// containers: open(w, kind, count) writes the header with its count (the end index is 0 until
// close(start) sets it to the index just past the last child). Check over_budget(max_bytes) at
// container boundaries and at the end, then finish() cuts both buffers to what was written.
// On failure the caller resets the builder (the buffers' contents are then garbage).
//
// The writer keeps its pointers and counters as members of an object that stays on the
// decoder's stack and is never passed to an out-of-line function (the growth functions take
// the buffers themselves), so the compiler keeps them in registers: the tape's own words (also
// 64-bit) cannot alias them. Buffers grow by resize(), which zero-fills, in steps of at least
// TapeStep words / BytesStep bytes (plus a quarter of what is used when Proportional), so that
// the zeroing stays a short loop and never runs far past the end.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "detail/tape_access.hpp"
#include "polycodec/document.hpp"

namespace polycodec::detail {

/// The first word of an element: kind, aux byte, 48-bit payload (offset, end index or 0).
constexpr std::uint64_t tape_word(kind k, std::uint64_t aux, std::uint64_t payload) noexcept {
    return (static_cast<std::uint64_t>(k) << document::kind_shift) |
           (aux << document::aux_shift) | payload;
}

template <class Buffer>
[[gnu::noinline]] inline auto* tape_grow(Buffer& buf, std::size_t used, std::size_t need,
                                         std::size_t step, bool proportional) {
    const std::size_t extra = proportional ? std::max({need, step, used / 4}) : std::max(need, step);
    buf.resize(used + extra);
    return buf.data();
}

template <std::size_t TapeStep, std::size_t BytesStep, bool Proportional>
class tape_writer {
public:
    /// The builder must be empty and at depth 0 (decoders check it before their fast path).
    explicit tape_writer(builder& b)
        : tape_(tape_access::tape(b.doc())), bytes_(tape_access::bytes(b.doc())) {
        t0_ = tape_grow(tape_, 0, 0, TapeStep, Proportional);
        tcap_ = tape_.size();
        b0_ = tape_grow(bytes_, 0, 0, BytesStep, Proportional);
        bcap_ = bytes_.size();
    }
    tape_writer(const tape_writer&) = delete;
    tape_writer& operator=(const tape_writer&) = delete;

    /// At least `k` free words at the returned pointer (the next element's place).
    std::uint64_t* words(std::size_t k) { return hot_words(k); }
    /// words() forced inline, for a decoder loop where GCC would otherwise call it per element
    /// (plist's). Not the default: forcing it everywhere made protobuf's decoder slower
    /// (callgrind, bench.json: 344k -> 378k instructions per operation).
    [[gnu::always_inline]] std::uint64_t* hot_words(std::size_t k) {
        if (tcap_ - tn_ < k) {
            t0_ = tape_grow(tape_, tn_, k, TapeStep, Proportional);
            tcap_ = tape_.size();
        }
        return t0_ + tn_;
    }
    /// The words just written at words() belong to the tape now.
    void advance(std::size_t k) noexcept { tn_ += k; }
    /// Tape words written (the index of the next element).
    std::size_t size() const noexcept { return tn_; }
    /// The word at tape index `i` (already written), for headers filled in later.
    std::uint64_t& at(std::size_t i) noexcept { return t0_[i]; }

    /// At least `n` free payload bytes at the returned pointer (at bytes_used()).
    char* bytes(std::size_t n) { return hot_bytes(n); }
    /// bytes() forced inline, as hot_words().
    [[gnu::always_inline]] char* hot_bytes(std::size_t n) {
        if (bcap_ - bn_ < n) {
            b0_ = tape_grow(bytes_, bn_, n, BytesStep, Proportional);
            bcap_ = bytes_.size();
        }
        return b0_ + bn_;
    }
    void advance_bytes(std::size_t n) noexcept { bn_ += n; }
    std::size_t bytes_used() const noexcept { return bn_; }

    /// Two-word scalars and payload elements.
    static void scalar(std::uint64_t* w, kind k, std::uint64_t v) noexcept {
        w[0] = tape_word(k, 0, 0);
        w[1] = v;
    }
    /// A string, bytes or timestamp whose `n` bytes were written at bytes(): its two words at w,
    /// and both counters advanced.
    void payload(std::uint64_t* w, kind k, std::uint64_t aux, std::size_t n) noexcept {
        w[0] = tape_word(k, aux, bn_);
        w[1] = n;
        tn_ += 2;
        bn_ += n;
    }

    /// A container header with its count at w (the next element's place); its end index
    /// follows from close(). An empty container is closed at once. Advances past the header.
    void open(std::uint64_t* w, kind k, std::uint64_t count) noexcept {
        w[0] = tape_word(k, 0, 0);
        w[1] = count;
        tn_ += 2;
    }
    void open_empty(std::uint64_t* w, kind k) noexcept {
        w[0] = tape_word(k, 0, tn_ + 2);
        w[1] = 0;
        tn_ += 2;
    }
    /// Sets the end index of the container whose header is at tape index `start` to the
    /// index of the next element.
    void close(std::size_t start) noexcept { t0_[start] |= tn_; }
    /// Closes it and sets its count (decoders that count while reading).
    void close(std::size_t start, std::uint64_t count) noexcept {
        t0_[start] |= tn_;
        t0_[start + 1] = count;
    }

    /// The size budget of build_limits::max_bytes: tape words and payload bytes.
    bool over_budget(std::size_t max_bytes) const noexcept { return tn_ * 8 + bn_ > max_bytes; }

    /// Capacity hints (decoders that can estimate a large input's document): at least
    /// `words` tape words and `bytes` payload bytes of capacity, without writing them.
    std::size_t tape_capacity() const noexcept { return tape_.capacity(); }
    std::size_t bytes_capacity() const noexcept { return bytes_.capacity(); }
    void reserve(std::size_t words, std::size_t bytes) {
        tape_.reserve(words);
        t0_ = tape_.data();
        bytes_.reserve(bytes);
        b0_ = bytes_.data();
    }

    /// Cuts both buffers to what was written: the document is complete.
    void finish() {
        tape_.resize(tn_);
        bytes_.resize(bn_);
    }

private:
    std::vector<std::uint64_t>& tape_;
    std::string& bytes_;
    std::uint64_t* t0_ = nullptr;
    std::size_t tn_ = 0;
    std::size_t tcap_ = 0;
    char* b0_ = nullptr;
    std::size_t bn_ = 0;
    std::size_t bcap_ = 0;
};

}  // namespace polycodec::detail
