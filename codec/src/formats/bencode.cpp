// Bencode (BEP 3): integers of any size, byte strings, lists and dictionaries whose keys are
// byte strings sorted as raw bytes. See docs/formats/bencode.md for every mapping.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "detail/binary.hpp"
#include "detail/describe.hpp"
#include "detail/dropped_tag.hpp"
#include "detail/extjson.hpp"
#include "detail/fast_decode.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/nonfinite_text.hpp"
#include "detail/number.hpp"
#include "detail/tape_writer.hpp"
#include "detail/text_reader.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// ---- reader ----

class bencode_reader : text_cursor<builder> {
public:
    bencode_reader(std::string_view in, builder& b, bool canonical)
        : text_cursor<builder>(in, b), canonical_(canonical) {}

    result<void> run() {
        POLYCODEC_TRY(parse_value());
        return at_end();
    }

private:
    result<void> parse_value() {
        if (pos_ >= in_.size()) {
            return fail(unexpected("a value"));
        }
        char c = in_[pos_];
        if (c == 'i') {
            return parse_int();
        }
        if (c == 'l') {
            return parse_list();
        }
        if (c == 'd') {
            return parse_dict();
        }
        if (c >= '0' && c <= '9') {
            std::string_view s;
            POLYCODEC_TRY(parse_bytes(s));
            add_text(s);
            return {};
        }
        return fail(unexpected("'i', 'l', 'd' or a string length"));
    }

    // Valid UTF-8 becomes a string, anything else bytes.
    void add_text(std::string_view s) {
        if (utf8_valid(s)) {
            b_.add_string(s);
        } else {
            b_.add_bytes(s);
        }
    }

    // BEP 3: "i-0e is invalid. All encodings with a leading zero, such as i03e, are invalid,
    // other than i0e".
    result<void> parse_int() {
        std::size_t start = pos_++;
        std::size_t p = pos_;
        bool neg = false;
        if (p < in_.size() && in_[p] == '-') {
            neg = true;
            ++p;
        }
        std::size_t digits = p;
        while (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
            ++p;
        }
        if (p == digits) {
            pos_ = p;
            return fail(make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_number, p,
                                   "expected a digit in integer, saw " + describe_at(p)));
        }
        if (in_[digits] == '0' && (p - digits > 1 || neg)) {
            return fail(make_error(errc::invalid_number, start,
                                   neg && p - digits == 1
                                       ? std::string("negative zero i-0e is not allowed")
                                       : std::string("leading zeros are not allowed in integer")));
        }
        if (p >= in_.size() || in_[p] != 'e') {
            pos_ = p;
            return fail(unexpected("'e' after integer digits"));
        }
        std::string_view text = in_.substr(start + 1, p - start - 1);
        pos_ = p + 1;
        const char* first = text.data();
        const char* last = text.data() + text.size();
        if (neg) {
            std::int64_t v = 0;
            if (std::from_chars(first, last, v).ec == std::errc()) {
                b_.add_int(v);
                return {};
            }
        } else {
            std::uint64_t v = 0;
            if (std::from_chars(first, last, v).ec == std::errc()) {
                b_.add_uint(v);
                return {};
            }
        }
        b_.add_bignum(text);
        return {};
    }

    // <length>:<bytes>. The length is checked against the remaining input before anything is
    // copied, so "4294967295:" fails at once.
    result<void> parse_bytes(std::string_view& out) {
        std::size_t start = pos_;
        std::size_t p = pos_;
        std::uint64_t len = 0;
        while (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
            if (p - start >= 19) {
                return fail(
                    make_error(errc::size_exceeded, start, "string length has too many digits"));
            }
            len = len * 10 + static_cast<std::uint64_t>(in_[p] - '0');
            ++p;
        }
        if (in_[start] == '0' && p - start > 1) {
            return fail(make_error(errc::invalid_number, start,
                                   "leading zeros are not allowed in a string length"));
        }
        if (p >= in_.size() || in_[p] != ':') {
            pos_ = p;
            return fail(unexpected("':' after string length"));
        }
        ++p;
        if (len > in_.size() - p) {
            return fail(make_error(errc::size_exceeded, start,
                                   "string length " + std::to_string(len) + " exceeds the " +
                                       std::to_string(in_.size() - p) + " bytes left"));
        }
        out = in_.substr(p, static_cast<std::size_t>(len));
        pos_ = p + static_cast<std::size_t>(len);
        return {};
    }

    result<void> parse_list() {
        if (!b_.begin_array()) {
            return container_limit();
        }
        ++pos_;
        for (;;) {
            if (pos_ < in_.size() && in_[pos_] == 'e') {
                ++pos_;
                b_.end_array();
                return {};
            }
            POLYCODEC_TRY(parse_value());
        }
    }

    result<void> parse_dict() {
        if (!b_.begin_map()) {
            return container_limit();
        }
        ++pos_;
        std::string_view prev;
        bool first = true;
        bool sorted = true;
        const std::size_t base = keys_.size();
        for (;;) {
            if (pos_ < in_.size() && in_[pos_] == 'e') {
                if (!sorted) {
                    POLYCODEC_TRY(check_unique(base));
                }
                keys_.resize(base);
                ++pos_;
                b_.end_map();
                return {};
            }
            if (pos_ >= in_.size() || in_[pos_] < '0' || in_[pos_] > '9') {
                return fail(unexpected("a string key or 'e'"));
            }
            std::size_t key_at = pos_;
            std::string_view key;
            POLYCODEC_TRY(parse_bytes(key));
            if (!first) {
                int c = prev.compare(key);
                if (c == 0) {
                    return fail(make_error(errc::duplicate_key, key_at, "duplicate key"));
                }
                if (c > 0) {
                    if (canonical_) {
                        return fail(make_error(errc::malformed, key_at,
                                               "dictionary keys are not sorted by raw bytes"));
                    }
                    sorted = false;
                }
            }
            if (!canonical_) {
                if (keys_.size() * sizeof(seen_key) > b_.limits().max_bytes) {
                    return fail(make_error(errc::size_exceeded, key_at,
                                           "document larger than its size budget"));
                }
                keys_.push_back({key, key_at});
            }
            prev = key;
            first = false;
            add_text(key);
            POLYCODEC_TRY(parse_value());
        }
    }

    // An unsorted dictionary (accepted without canonical=true) is checked for duplicate keys
    // when it closes: its keys, keys_[base..], sorted with their offsets.
    result<void> check_unique(std::size_t base) {
        auto first = keys_.begin() + static_cast<std::ptrdiff_t>(base);
        std::sort(first, keys_.end(), [](const seen_key& a, const seen_key& b) {
            int c = a.key.compare(b.key);
            return c < 0 || (c == 0 && a.offset < b.offset);
        });
        for (auto it = first; it != keys_.end() && it + 1 != keys_.end(); ++it) {
            if (it->key == (it + 1)->key) {
                pos_ = (it + 1)->offset;
                return fail(make_error(errc::duplicate_key, (it + 1)->offset, "duplicate key"));
            }
        }
        return {};
    }

    struct seen_key {
        std::string_view key;
        std::size_t offset;
    };

    bool canonical_;
    // The keys of the open dictionaries, innermost last; reused across decodes on a thread so
    // that decoding into a reused document allocates nothing in steady state.
    std::vector<seen_key>& keys_ = scratch_keys();

    static std::vector<seen_key>& scratch_keys() {
        thread_local std::vector<seen_key> keys;
        keys.clear();
        if (keys.capacity() > 65536) {
            keys = {};  // a huge document's key list is not kept for the rest of the thread
        }
        return keys;
    }
};

// ---- fast path ----
//
// One iterative loop that writes the tape and the payload bytes directly (detail::tape_writer)
// instead of going through the builder per element. Bencode gives no counts up front, so each
// open container counts its children and close(start, count) writes the count when its 'e'
// comes. It takes valid input within the limits whose dictionaries' keys are strictly sorted
// (what canonical input and every encoder's output hold) and integers of at most 18 digits: on
// anything else (an error, a limit, an unsorted or duplicate key, a bignum, nesting past 64) it
// returns false, and decode_bencode resets the builder and runs bencode_reader above, which
// decides (and words) every error exactly as before. On success the tape is the one
// bencode_reader would have built.

constexpr std::size_t fast_max_frames = 64;  // deeper input takes bencode_reader

using fast_writer = tape_writer<256, 2048, false>;  // steps: 256 words, 2 KiB

struct bencode_frame {
    std::size_t start;    // tape index of the container's header
    std::uint64_t count;  // children read: a list's elements, a dictionary's pairs
    const char* prev;     // a dictionary's last key (in the input), null before the first
    std::size_t prev_len;
    bool map;
};

// A string's n bytes at s copied to the payload: a string when valid UTF-8, else bytes (as
// add_text). `avail` bytes can be read at s.
// True when the key k[0..n) sorts strictly after prev[0..prev_len) as raw bytes. `wide`: 8 bytes
// can be read at k and at prev; their first 8 bytes, zero past each key's end, big-endian, then
// order most pairs of keys without a memcmp.
inline bool key_after(const char* prev, std::size_t prev_len, const char* k, std::size_t n,
                      bool wide) noexcept {
    if (wide) {
        const auto first8 = [](const char* s, std::size_t len) {
            std::uint64_t v;
            std::memcpy(&v, s, 8);
            v = __builtin_bswap64(v);
            return len >= 8 ? v : v & ~(~std::uint64_t{0} >> (8 * len));
        };
        const std::uint64_t a = first8(prev, prev_len);
        const std::uint64_t b = first8(k, n);
        if (a != b) {
            return a < b;
        }
    }
    return std::string_view(prev, prev_len).compare({k, n}) < 0;
}

// The value of the 8 ASCII digits at s (the first is the most significant), SWAR.
inline std::uint64_t eight_digits(std::uint64_t chunk) noexcept {
    chunk -= 0x3030303030303030ULL;
    chunk = (chunk * 10 + (chunk >> 8)) & 0x00FF00FF00FF00FFULL;
    chunk = (chunk * 100 + (chunk >> 16)) & 0x0000FFFF0000FFFFULL;
    return (chunk * 10000 + (chunk >> 32)) & 0xFFFFFFFFULL;
}

inline std::uint64_t load_le64(const unsigned char* s) noexcept {
    std::uint64_t v;
    std::memcpy(&v, s, 8);
    return v;
}

// The value of the first n (1..8) ASCII digits in the low bytes of chunk: the bytes past them
// are shifted out and '0's come in as leading zeros.
inline std::uint64_t low_digits(std::uint64_t chunk, std::size_t n) noexcept {
    const std::size_t pad = 8 * (8 - n);
    return eight_digits((chunk << pad) | (0x3030303030303030ULL & ((std::uint64_t{1} << pad) - 1)));
}

// As low_digits for n (1..4) digits in the low bytes of a 32-bit chunk (most integers).
inline std::uint64_t low_digits4(std::uint32_t chunk, std::size_t n) noexcept {
    const std::size_t pad = 8 * (4 - n);
    chunk = ((chunk << pad) | (0x30303030U & ((std::uint32_t{1} << pad) - 1))) - 0x30303030U;
    chunk = (chunk * 10 + (chunk >> 8)) & 0x00FF00FFU;
    return (chunk * 100 + (chunk >> 16)) & 0xFFFFU;
}

// The value of the n (1..15) ASCII digits at s, 16 bytes readable at s.
[[gnu::always_inline]] inline std::uint64_t short_digits(const unsigned char* s,
                                                         std::size_t n) noexcept {
    if (n <= 4) {
        return low_digits4(static_cast<std::uint32_t>(load_le64(s)), n);
    }
    if (n <= 8) {
        return low_digits(load_le64(s), n);
    }
    return low_digits(load_le64(s), n - 8) * 100000000 + eight_digits(load_le64(s + n - 8));
}

// The run of ASCII digits at s (of `avail` readable bytes), at most `max` (>= 16) of them:
// how many and their value (no overflow: max <= 19).
struct digit_run {
    std::size_t len;
    std::uint64_t value;
};
[[gnu::always_inline]] inline digit_run scan_digits(const unsigned char* s, std::size_t avail,
                                                    std::size_t max) noexcept {
#if defined(__SSE2__)
    if (avail >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
        const __m128i other = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8('0')),
                                           _mm_cmpgt_epi8(v, _mm_set1_epi8('9')));
        const auto m = static_cast<unsigned>(_mm_movemask_epi8(other));
        if (m != 0) {
            const std::size_t n = static_cast<unsigned>(__builtin_ctz(m));
            return {n, n == 0 ? 0 : short_digits(s, n)};
        }
    }
#endif
    std::size_t n = 0;
    std::uint64_t v = 0;
    while (n < avail && n < max && s[n] >= '0' && s[n] <= '9') {
        v = v * 10 + (s[n] - '0');
        ++n;
    }
    return {n, v};
}

[[gnu::always_inline]] inline void fast_bencode_text(fast_writer& tw, std::uint64_t* w,
                                                     const unsigned char* s, std::size_t avail,
                                                     std::size_t n) {
    bool text;
    if (avail >= 32 && n <= 32) {
        text = copy32_ascii(tw.hot_bytes(32), s, n) ||
               utf8_valid_prefix({reinterpret_cast<const char*>(s), n}) == n;
    } else {
        text = utf8_valid_prefix({reinterpret_cast<const char*>(s), n}) == n;
        std::memcpy(tw.bytes(n), s, n);
    }
    tw.payload(w, text ? kind::string : kind::bytes, 0, n);
}

bool decode_bencode_fast(std::string_view in, builder& b) {
    // Named variables, not a structured binding: the lambdas below use them (clang 14
    // refuses to capture a binding).
    const fast_input input = fast_input_of(in, b, fast_max_frames);
    const auto* const p = input.p;
    const std::size_t size = input.size;
    const std::size_t max_depth = input.max_depth;
    const std::size_t max_bytes = input.max_bytes;
    std::size_t pos = 0;
    fast_writer tw(b);

    // The innermost open container lives in these locals (the tape's words could alias a
    // frame's, so a frame's fields would be reloaded and stored per element); frames[d] holds
    // the container around it at depth d + 1. Depth 0 is the top level: one value, never
    // closed. `count` is a list's elements or a dictionary's pairs read so far.
    bencode_frame frames[fast_max_frames + 1];
    std::size_t depth = 0;
    std::size_t start = 0;
    std::uint64_t count = 0;
    const char* prev = nullptr;  // a dictionary's last key (in the input), null before the first
    std::size_t prev_len = 0;
    bool map = false;

    // The integer i...e at pos (c == 'i'): at most 18 digits, no leading zero, no -0. Where
    // 5 bytes can be read past the sign, an integer of up to 4 digits (most of them) is read
    // byte by byte, its length found by branches: the next element's position then does not
    // wait for a vector scan of the digits, which longer ones take (from the first digit).
    const auto read_int = [&]() __attribute__((always_inline))->bool {
        std::size_t q = pos + 1;
        bool neg = false;
        if (q < size && p[q] == '-') {
            neg = true;
            ++q;
        }
        std::uint64_t v = 0;
        bool is_short = false;  // up to 4 digits, read below
        if (size - q >= 5) {
            // Digit k after the sign, into v: false when it is not one.
            const auto digit = [&](std::size_t k) __attribute__((always_inline)) {
                const unsigned d = p[q + k] - unsigned{'0'};
                v = v * 10 + d;
                return d <= 9;
            };
            std::size_t len = 0;  // 0: not up to 4 digits before an 'e'
            if (!digit(0) || (p[q + 1] != 'e' && (!digit(1) || p[q] == '0'))) {
                return false;  // not a digit, or a leading zero
            }
            if (p[q + 1] == 'e') {
                len = 1;
            } else if (p[q + 2] == 'e') {
                len = 2;
            } else if (!digit(2)) {
                return false;
            } else if (p[q + 3] == 'e') {
                len = 3;
            } else if (digit(3) && p[q + 4] == 'e') {
                len = 4;
            }
            if (len != 0) {
                if (neg && v == 0) {
                    return false;  // -0
                }
                q += len;
                is_short = true;
            }
        }
        if (!is_short) {
            const std::size_t digits = q;
            const auto [len, value] = scan_digits(p + q, size - q, 18);
            q += len;
            if (len == 0 || q >= size || p[q] != 'e' || (p[digits] == '0' && (len > 1 || neg))) {
                return false;  // no digits, more than 18, leading zero or -0
            }
            v = value;
        }
        std::uint64_t* const w = tw.hot_words(2);
        w[0] = tape_word(kind::int64, 0, 0);
        w[1] = neg ? 0 - v : v;
        tw.advance(2);
        pos = q + 1;
        return true;
    };
    // <length>:<bytes> at pos (a digit there); at most 18 digits (no overflow), no leading
    // zero. `key`: a dictionary's key, strictly after the previous one as raw bytes.
    const auto read_string = [&](bool key) __attribute__((always_inline))->bool {
        const unsigned char c = p[pos];
        std::size_t q = pos + 1;
        std::uint64_t n = c - '0';
        if (q >= size || p[q] != ':') {  // more than one digit
            while (q < size && q - pos < 19 && p[q] >= '0' && p[q] <= '9') {
                n = n * 10 + (p[q] - '0');
                ++q;
            }
            if (q >= size || p[q] != ':' || (c == '0' && q - pos > 1)) {
                return false;
            }
        }
        ++q;
        if (n > size - q) {
            return false;
        }
        if (key) {
            const char* k = reinterpret_cast<const char*>(p + q);
            if (prev != nullptr && !key_after(prev, prev_len, k, n, size - q >= 8)) {
                return false;
            }
            prev = k;
            prev_len = n;
        }
        fast_bencode_text(tw, tw.hot_words(2), p + q, size - q, n);
        pos = q + n;
        return true;
    };

    for (;;) {
        if (pos >= size) {
            return false;
        }
        unsigned char c = p[pos];
        if (c == 'e') {
            // The end of the innermost container (a dictionary's after a value, not a key).
            if (depth == 0) {
                return false;
            }
            ++pos;
            tw.close(start, count);
            const bencode_frame& f = frames[--depth];
            start = f.start;
            count = f.count;
            prev = f.prev;
            prev_len = f.prev_len;
            map = f.map;
        } else {
            if (map) {
                // A key, then its value.
                if (c < '0' || c > '9' || !read_string(true) || pos >= size) {
                    return false;
                }
                c = p[pos];
            }
            if (c == 'i') {
                // In a list, a run of integers (a numeric list) in one tight loop.
                const bool run = depth != 0 && !map;
                do {
                    if (!read_int()) {
                        return false;
                    }
                    if (!run) {
                        break;
                    }
                    ++count;
                } while (pos < size && p[pos] == 'i');
                if (run) {
                    continue;
                }
            } else if (c >= '0' && c <= '9') {
                if (!read_string(false)) {
                    return false;
                }
            } else if (c == 'l' || c == 'd') {
                if (depth >= max_depth || tw.over_budget(max_bytes)) {
                    return false;
                }
                ++pos;
                frames[depth++] = {start, count, prev, prev_len, map};
                map = c == 'd';
                start = tw.size();
                count = 0;
                prev = nullptr;
                prev_len = 0;
                tw.open(tw.words(2), map ? kind::map : kind::array, 0);
                continue;
            } else {
                return false;
            }
        }
        // A value is complete: count it in its container.
        if (depth == 0) {
            break;
        }
        ++count;
    }
    return fast_finish(tw, pos, size, max_bytes);
}

result<void> decode_bencode(std::string_view in, builder& b, const decode_options& opt) {
    return fast_or_read(
        b, true, [&] { return decode_bencode_fast(in, b); },
        [&] { return bencode_reader(in, b, opt.canonical).run(); });
}

// ---- writer ----

class bencode_writer {
public:
    bencode_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    result<void> write(value v) {
        switch (v.kind()) {
            case kind::null:
                if (!allow_lossy(opt_, v, "null_to_empty_string", "null written as ''")) {
                    return fail(unrepresentable(v, "null is not representable in bencode"));
                }
                out_.append("0:");
                return {};
            case kind::boolean_false:
            case kind::boolean_true:
                if (!allow_lossy(opt_, v, "bool_to_int", "boolean written as 0 or 1")) {
                    return fail(unrepresentable(v, "a boolean is not representable in bencode"));
                }
                out_.append(v.get_bool() ? "i1e" : "i0e");
                return {};
            case kind::int64:
                out_.push_back('i');
                write_int(out_, v.get_int());
                out_.push_back('e');
                return {};
            case kind::uint64:
                out_.push_back('i');
                write_uint(out_, v.get_uint());
                out_.push_back('e');
                return {};
            case kind::bignum:
                out_.push_back('i');
                out_.append(v.get_string());
                out_.push_back('e');
                return {};
            case kind::float64: {
                if (!allow_lossy(opt_, v, "float_to_string", "float written as its decimal text")) {
                    return fail(unrepresentable(v, "a float is not representable in bencode"));
                }
                output_buffer tmp;
                write_double_text(tmp, v.get_double());
                write_bytes(tmp.view());
                return {};
            }
            case kind::string:
            case kind::bytes:
            case kind::timestamp:
                write_bytes(v.get_string());
                return {};
            case kind::tagged:
                return write_tagged(v);
            case kind::array:
                out_.push_back('l');
                for (value c : v.items()) {
                    POLYCODEC_TRY(write(c));
                }
                out_.push_back('e');
                return {};
            case kind::map:
                return write_map(v);
        }
        return {};
    }

private:
    void write_bytes(std::string_view s) {
        write_uint(out_, s.size());
        out_.push_back(':');
        out_.append(s);
    }

    // BSON's own types become their Extended JSON v2 maps (DESIGN section 3: not lossy);
    // other tags keep only their inner value under lossy=allow.
    result<void> write_tagged(value v) {
        if (v.get_tag_space() == tag_space::bson) {
            document tmp;
            builder tb(tmp);
            if (extjson::write_relaxed(v, tb)) {
                bencode_writer w(out_, opt_);
                auto r = w.write(tmp.root());
                if (!r) {
                    // Name the value in the caller's document, not in the temporary one.
                    r.error().path = v.doc()->pointer_to(v.index()) + r.error().path;
                }
                return r;
            }
        }
        POLYCODEC_TRY(drop_tag(opt_, v, "bencode"));
        return write(v.tagged_value());
    }

    struct key_ref {
        std::size_t off;  // into the document's bytes, or into arena_ when in_arena
        std::size_t len;
        bool in_arena;
        std::size_t key_index;
        std::size_t val_index;
    };

    std::string_view key_text(const key_ref& k, const document& doc) const {
        return k.in_arena ? std::string_view(arena_).substr(k.off, k.len)
                          : std::string_view(doc.bytes()).substr(k.off, k.len);
    }

    // BEP 3: "Keys must be strings and appear in sorted order (sorted as raw strings, not
    // alphanumerics)". Keys are gathered on a shared stack, sorted, then written.
    result<void> write_map(value v) {
        const document& doc = *v.doc();
        std::size_t base = keys_.size();
        std::size_t arena_base = arena_.size();
        for (auto [k, val] : v.entries()) {
            key_ref ref{0, 0, false, k.index(), val.index()};
            switch (k.kind()) {
                case kind::string:
                case kind::bytes:
                case kind::timestamp: {
                    std::string_view s = k.get_string();
                    ref.off = static_cast<std::size_t>(s.data() - doc.bytes().data());
                    ref.len = s.size();
                    break;
                }
                case kind::int64:
                case kind::uint64:
                case kind::bignum: {
                    // Integer keys become their decimal text (DESIGN section 3: not lossy).
                    std::string text = k.kind() == kind::int64    ? std::to_string(k.get_int())
                                       : k.kind() == kind::uint64 ? std::to_string(k.get_uint())
                                                                  : std::string(k.get_string());
                    ref.in_arena = true;
                    ref.off = arena_.size();
                    ref.len = text.size();
                    arena_ += text;
                    break;
                }
                default: {
                    auto fallback = key_fallback(opt_, k, "bencode");
                    if (!fallback) {
                        keys_.resize(base);
                        arena_.resize(arena_base);
                        return fail(std::move(fallback.error()));
                    }
                    const std::string& text = *fallback;
                    ref.in_arena = true;
                    ref.off = arena_.size();
                    ref.len = text.size();
                    arena_ += text;
                }
            }
            keys_.push_back(ref);
        }
        auto first = keys_.begin() + static_cast<std::ptrdiff_t>(base);
        std::stable_sort(first, keys_.end(), [&](const key_ref& a, const key_ref& b) {
            return key_text(a, doc) < key_text(b, doc);
        });
        out_.push_back('d');
        std::size_t n = keys_.size() - base;
        result<void> r;
        for (std::size_t i = 0; i < n && r; ++i) {
            key_ref k = keys_[base + i];
            if (i > 0 && key_text(keys_[base + i - 1], doc) == key_text(k, doc)) {
                value key(&doc, k.key_index);
                if (!allow_lossy(opt_, key, "duplicate_key_dropped",
                                 "duplicate key dropped, first value kept")) {
                    r = fail(unrepresentable(key, "duplicate key " + to_debug_string(key) +
                                                      " is not representable in bencode"));
                }
                continue;
            }
            write_bytes(key_text(k, doc));
            r = write(value(&doc, k.val_index));
        }
        keys_.resize(base);
        arena_.resize(arena_base);
        if (r) {
            out_.push_back('e');
        }
        return r;
    }

    output_buffer& out_;
    const encode_options& opt_;
    std::vector<key_ref> keys_;
    std::string arena_;
};

// The encoder's fast path: one linear pass over the tape (a container's header comes before
// its children, as bencode writes them) through an output cursor. It takes integers, bignums,
// strings, bytes, timestamps, lists and dictionaries whose keys are strings (or bytes or
// timestamps) already strictly sorted as raw bytes, as every bencode document decodes; on
// anything else (a null, boolean, float or tag, whose writing depends on lossy=; an integer,
// unsorted or duplicate key; nesting past 64) it returns false and encode_bencode truncates
// the output and runs bencode_writer, which writes the same bytes for what this takes.
bool encode_bencode_fast(const document& doc, output_buffer& out) {
    const std::uint64_t* const t = doc.tape().data();
    const char* const payload = doc.bytes().data();
    const char* const payload_end = payload + doc.bytes().size();
    value root = doc.root();
    std::size_t i = root.index();
    const std::size_t end = root.end_index();
    struct frame {
        std::size_t end;  // tape index just past the container's last child
        bool map;
        bool key;          // a dictionary: the next child is a key
        const char* prev;  // its last key, null before the first
        std::size_t prev_len;
    };
    frame frames[fast_max_frames + 1];
    frames[0] = {end, false, false, nullptr, 0};
    frame* top = frames;
    out_cursor<64> c(out);
    char*& o = c.o;
    for (;;) {
        while (top != frames && i == top->end) {
            c.room();
            *o++ = 'e';
            --top;
        }
        if (i >= end) {
            break;
        }
        if (!top->map) {
            // A run of int64 elements of a list (a numeric list): one tight loop, the same
            // bytes as the element below.
            while (i != top->end &&
                   (t[i] >> document::kind_shift) == static_cast<std::uint64_t>(kind::int64)) {
                c.room();
                auto u = t[i + 1];
                *o++ = 'i';
                if (static_cast<std::int64_t>(u) < 0) {
                    *o++ = '-';
                    u = 0 - u;
                }
                o = u < 10000 ? shortest_impl::put_upto4(o, static_cast<std::uint32_t>(u))
                              : write_uint_digits(o, u);  // small ones inline
                *o++ = 'e';
                i += 2;
            }
            if (i == top->end) {
                continue;
            }
        }
        c.room();
        const std::uint64_t w = t[i];
        const auto k = static_cast<kind>(w >> document::kind_shift);
        const bool is_key = top->map && top->key;
        if (top->map) {
            top->key = !top->key;
        }
        switch (k) {
            case kind::int64: {
                if (is_key) {
                    return false;
                }
                auto u = t[i + 1];
                *o++ = 'i';
                if (static_cast<std::int64_t>(u) < 0) {
                    *o++ = '-';
                    u = 0 - u;
                }
                o = u < 10000 ? shortest_impl::put_upto4(o, static_cast<std::uint32_t>(u))
                              : write_uint_digits(o, u);
                *o++ = 'e';
                i += 2;
                continue;
            }
            case kind::uint64:
                if (is_key) {
                    return false;
                }
                *o++ = 'i';
                o = write_uint_digits(o, t[i + 1]);
                *o++ = 'e';
                i += 2;
                continue;
            case kind::string:
            case kind::bytes:
            case kind::timestamp:
            case kind::bignum: {
                const char* s = payload + (w & document::payload_mask);
                const std::size_t n = static_cast<std::size_t>(t[i + 1]);
                if (is_key) {
                    if (k == kind::bignum ||
                        (top->prev != nullptr &&
                         !key_after(top->prev, top->prev_len, s, n,
                                    payload_end - s >= 8 && payload_end - top->prev >= 8))) {
                        return false;
                    }
                    top->prev = s;
                    top->prev_len = n;
                }
                if (n <= 32 && payload_end - s >= 32) {
                    // A short one (most keys and values): 32 bytes copied at once, within the
                    // 64 bytes room() gave (at most "32:" before them) and the payload.
                    if (k == kind::bignum) {
                        *o++ = 'i';
                    } else {
                        o = shortest_impl::put_upto4(o, static_cast<std::uint32_t>(n));  // n <= 32
                        *o++ = ':';
                    }
                    std::memcpy(o, s, 16);
                    std::memcpy(o + 16, s + 16, 16);
                    o += n;
                    if (k == kind::bignum) {
                        *o++ = 'e';
                    }
                    i += 2;
                    continue;
                }
                if (static_cast<std::size_t>(c.end - o) < n + 24) {
                    c.release();
                    out.prepare(n + 24);
                    c.acquire();
                }
                if (k == kind::bignum) {
                    *o++ = 'i';
                    std::memcpy(o, s, n);
                    o += n;
                    *o++ = 'e';
                } else {
                    o = write_uint_digits(o, n);
                    *o++ = ':';
                    std::memcpy(o, s, n);
                    o += n;
                }
                i += 2;
                continue;
            }
            case kind::array:
            case kind::map:
                if (is_key || static_cast<std::size_t>(top - frames) >= fast_max_frames) {
                    return false;
                }
                *o++ = k == kind::map ? 'd' : 'l';
                *++top = {static_cast<std::size_t>(w & document::payload_mask), k == kind::map,
                          true, nullptr, 0};
                i += 2;
                continue;
            default:  // null, booleans, floats, tags: bencode_writer decides by lossy=
                return false;
        }
    }
    c.release();
    return true;
}

result<void> encode_bencode(const document& doc, output_buffer& out, const encode_options& opt) {
    const std::size_t at = out.size();
    if (!doc.empty()) {
        if (encode_bencode_fast(doc, out)) {
            return {};
        }
        out.truncate(at);
    }
    bencode_writer w(out, opt);
    return w.write(doc.root());
}

}  // namespace

const codec_functions bencode_codec{decode_bencode, encode_bencode};

}  // namespace polycodec::detail
