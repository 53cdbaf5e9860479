// Apple property lists (DESIGN section 15, docs/formats/plist.md): the XML form (Apple's
// PropertyList-1.0 DTD, read by a small parser of that subset of XML: no DTD is loaded, no
// entity declared) and the binary form `bplist00` (CoreFoundation's CFBinaryPList.c layout, as
// Python's plistlib reads and writes it). Decoding detects the form by its magic; encoding
// writes XML, or binary with binary=true.
#include <algorithm>
#include <charconv>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "detail/base64.hpp"
#include "detail/describe.hpp"
#include "detail/dropped_tag.hpp"
#include "detail/epoch_time.hpp"
#include "detail/locate.hpp"
#include "detail/lossy.hpp"
#include "detail/tape_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/// A plist UID (NSKeyedArchiver object reference) is tagged(other, 0x5549 "UI", uint).
constexpr std::uint64_t uid_tag = 0x5549;
/// The bytes (1, 2, 4 or 8) a UID `u` takes after its marker 0x80 + bytes - 1.
constexpr unsigned uid_width(std::uint64_t u) {
    return u < (1u << 8) ? 1 : u < (1u << 16) ? 2 : u < (std::uint64_t{1} << 32) ? 4 : 8;
}
/// Seconds from 1970-01-01 to 2001-01-01, the epoch of binary plist dates.
constexpr std::int64_t apple_epoch = 978307200;

// Decimal text of a 128-bit integer.
std::string int128_text(int128 v) {
    bool neg = v < 0;
    uint128 u = neg ? static_cast<uint128>(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
    char buf[48];
    char* p = buf + sizeof buf;
    do {
        *--p = static_cast<char>('0' + static_cast<int>(u % 10));
        u /= 10;
    } while (u != 0);
    if (neg) {
        *--p = '-';
    }
    return std::string(p, static_cast<std::size_t>(buf + sizeof buf - p));
}

// A 128-bit value as the document holds it: int64, uint64 or bignum.
void add_int128(builder& b, int128 v) {
    if (v >= INT64_MIN && v <= INT64_MAX) {
        b.add_int(static_cast<std::int64_t>(v));
    } else if (v > 0 && v <= static_cast<int128>(UINT64_MAX)) {
        b.add_uint(static_cast<std::uint64_t>(v));
    } else {
        b.add_bignum(int128_text(v));
    }
}

// The decimal text of a bignum as a 128-bit integer; false when it does not fit.
bool parse_int128(std::string_view s, int128& out) {
    bool neg = !s.empty() && s[0] == '-';
    if (neg || (!s.empty() && s[0] == '+')) {
        s.remove_prefix(1);
    }
    if (s.empty()) {
        return false;
    }
    uint128 limit = neg ? (static_cast<uint128>(1) << 127) : (static_cast<uint128>(1) << 127) - 1;
    uint128 v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
        unsigned d = static_cast<unsigned>(c - '0');
        if (v > (limit - d) / 10) {
            return false;
        }
        v = v * 10 + d;
    }
    out = neg ? static_cast<int128>(static_cast<uint128>(0) - v) : static_cast<int128>(v);
    return true;
}

// RFC 3339 text of a binary plist date (seconds since 2001-01-01, a double), to the
// microsecond as plistlib's datetime keeps it. Beyond 2^32 s from 2001 (before 1865, after
// 2137) a double has no microseconds left, and the text is rounded to the millisecond so that
// writing it back gives the same double's text again. 0 when it is not finite or outside years
// 0000-9999.
std::size_t date_text(double f, char* out) {
    if (!std::isfinite(f) || f < -7e10 || f > 3e11) {
        return 0;
    }
    double whole = std::floor(f);
    double us = std::nearbyint((f - whole) * 1e6);
    if (std::fabs(f) >= 4294967296.0) {
        us = std::nearbyint(us / 1000) * 1000;
    }
    auto secs = static_cast<std::int64_t>(whole) + apple_epoch;
    if (us >= 1e6) {
        us -= 1e6;
        ++secs;
    }
    return format_epoch(secs, static_cast<std::uint32_t>(us) * 1000u, out);
}

// ===================================================================== binary reader

// Ends the dict (or array) just read, or the limit error of a builder that refused part of it.
result<void> end_container(builder& b, bool dict, std::size_t at) {
    if (!b.ok()) {
        return fail(limit_error(b, at));
    }
    if (dict) {
        b.end_map();
    } else {
        b.end_array();
    }
    return {};
}

class bplist_reader {
public:
    bplist_reader(std::string_view in, builder& b) : in_(in), b_(b) {}

    result<void> run() {
        if (in_.size() < 8 + 32 + 1) {
            return fail(make_error(errc::unexpected_eof, in_.size(),
                                   "a binary plist needs its header, an object and a 32-byte "
                                   "trailer; saw " + std::to_string(in_.size()) + " bytes"));
        }
        if (in_.substr(0, 8) != "bplist00") {
            return fail(make_error(errc::malformed, 6,
                                   "only binary plist version 00 is supported, saw \"" +
                                       printable(in_.substr(6, 2)) + "\""));
        }
        const std::size_t t = in_.size() - 32;
        offset_size_ = byte(t + 6);
        ref_size_ = byte(t + 7);
        const std::uint64_t num = be(t + 8, 8);
        const std::uint64_t top = be(t + 16, 8);
        const std::uint64_t table = be(t + 24, 8);
        if (offset_size_ < 1 || offset_size_ > 8) {
            return fail(make_error(errc::malformed, t + 6,
                                   "trailer: offset size " + std::to_string(offset_size_) +
                                       " is not 1 to 8"));
        }
        if (ref_size_ < 1 || ref_size_ > 8) {
            return fail(make_error(errc::malformed, t + 7,
                                   "trailer: object reference size " +
                                       std::to_string(ref_size_) + " is not 1 to 8"));
        }
        if (table < 9 || table > t) {
            return fail(make_error(errc::malformed, t + 24,
                                   "trailer: offset table at " + std::to_string(table) +
                                       " is outside the objects' area (9 to " +
                                       std::to_string(t) + ")"));
        }
        // The table must lie inside the input: checked before anything is sized by the count.
        if (num == 0 || num > (t - table) / offset_size_) {
            return fail(make_error(errc::size_exceeded, t + 8,
                                   "trailer: " + std::to_string(num) + " objects of " +
                                       std::to_string(offset_size_) +
                                       "-byte offsets do not fit the " +
                                       std::to_string(t - table) + " bytes of the offset table"));
        }
        if (top >= num) {
            return fail(make_error(errc::malformed, t + 16,
                                   "trailer: top object " + std::to_string(top) + " of " +
                                       std::to_string(num) + " objects"));
        }
        num_objects_ = num;
        table_ = static_cast<std::size_t>(table);
        // Shared references may repeat an object; all values together stay within this
        // budget, so a small file cannot expand exponentially (docs/formats/plist.md).
        budget_ = static_cast<std::uint64_t>(in_.size()) * 16 + 4096;
        thread_local std::vector<std::uint8_t> state;
        state.assign(static_cast<std::size_t>(num), 0);
        state_ = &state;
        return read_object(top, t + 16);
    }

private:
    static std::string printable(std::string_view s) {
        std::string r;
        for (char c : s) {
            auto u = static_cast<unsigned char>(c);
            if (u >= 0x20 && u < 0x7f) {
                r.push_back(c);
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", u);
                r += buf;
            }
        }
        return r;
    }
    unsigned byte(std::size_t p) const noexcept { return static_cast<unsigned char>(in_[p]); }
    std::uint64_t be(std::size_t p, unsigned n) const noexcept {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < n; ++i) {
            v = (v << 8) | byte(p + i);
        }
        return v;
    }

    error eof_at(std::size_t start, std::uint64_t need, const char* what) const {
        return make_error(errc::size_exceeded, start,
                          std::string(what) + " of " + std::to_string(need) +
                              " bytes runs past the end of input (" +
                              std::to_string(in_.size() - std::min(start, in_.size())) +
                              " bytes left)");
    }

    // Offset of object `ref`, checked to lie in the objects' area.
    result<std::size_t> offset_of(std::uint64_t ref, std::size_t from) {
        if (ref >= num_objects_) {
            return fail(make_error(errc::malformed, from,
                                   "object reference " + std::to_string(ref) + " is past the " +
                                       std::to_string(num_objects_) + " objects"));
        }
        std::size_t at = table_ + static_cast<std::size_t>(ref) * offset_size_;
        std::uint64_t off = be(at, offset_size_);
        if (off < 8 || off >= table_) {
            return fail(make_error(errc::malformed, at,
                                   "object " + std::to_string(ref) + " at offset " +
                                       std::to_string(off) + " is outside the objects' area (8 to " +
                                       std::to_string(table_ - 1) + ")"));
        }
        return static_cast<std::size_t>(off);
    }

    // The count of a data, string, array or dict marker at `p` (low nibble, or 0xF and an
    // integer object after it); advances p past it.
    result<std::uint64_t> size_of(unsigned marker, std::size_t& p) {
        unsigned low = marker & 0x0F;
        ++p;
        if (low != 0x0F) {
            return static_cast<std::uint64_t>(low);
        }
        if (p >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, p, "expected a count, saw end of input"));
        }
        unsigned m = byte(p);
        if ((m & 0xF0) != 0x10 || (m & 0x0F) > 3) {
            return fail(make_error(errc::malformed, p,
                                   "expected an integer count (0x10 to 0x13), saw " +
                                       describe_byte_at(in_, p)));
        }
        unsigned n = 1u << (m & 3);
        if (in_.size() - p - 1 < n) {
            return fail(eof_at(p, n, "a count"));
        }
        std::uint64_t v = be(p + 1, n);
        p += 1 + n;
        return v;
    }

    result<void> read_object(std::uint64_t ref, std::size_t from) {
        if (++emitted_ > budget_) {
            return fail(make_error(errc::size_exceeded, from,
                                   "shared object references expand to more than " +
                                       std::to_string(budget_) +
                                       " values (16 per input byte)"));
        }
        auto off = offset_of(ref, from);
        if (!off) {
            return fail(off.error());
        }
        std::size_t p = *off;
        const std::size_t start = p;
        const unsigned m = byte(p);
        const std::size_t end = in_.size() - 32;  // objects never run into the trailer
        auto need = [&](std::size_t at, std::uint64_t n, const char* what) -> result<void> {
            if (at > end || n > end - at) {
                return fail(eof_at(start, n, what));
            }
            return {};
        };
        switch (m >> 4) {
            case 0x0:
                if (m == 0x00) {
                    b_.add_null();  // plistlib reads it as None; no writer emits it
                } else if (m == 0x08 || m == 0x09) {
                    b_.add_bool(m == 0x09);
                } else if (m == 0x0F) {
                    b_.add_bytes({});  // the "fill" byte, as plistlib reads it
                } else {
                    return fail(make_error(errc::malformed, start,
                                           "unsupported object type " + describe_byte_at(in_, p) +
                                               " (URL and UUID objects are not property list "
                                               "values)"));
                }
                return {};
            case 0x1: {
                unsigned lg = m & 0x0F;
                if (lg > 4) {
                    return fail(make_error(errc::malformed, start,
                                           "integer of " + std::to_string(1u << lg) +
                                               " bytes: at most 16 (128 bits) are supported"));
                }
                unsigned n = 1u << lg;
                POLYCODEC_TRY(need(p + 1, n, "an integer"));
                if (lg < 3) {
                    b_.add_int(static_cast<std::int64_t>(be(p + 1, n)));
                } else if (lg == 3) {
                    b_.add_int(static_cast<std::int64_t>(be(p + 1, 8)));
                } else {
                    uint128 u = (static_cast<uint128>(be(p + 1, 8)) << 64) | be(p + 9, 8);
                    add_int128(b_, static_cast<int128>(u));
                }
                return {};
            }
            case 0x2: {
                if (m != 0x22 && m != 0x23) {
                    return fail(make_error(errc::malformed, start,
                                           "real of marker " + describe_byte_at(in_, p) +
                                               ": only 4 and 8 bytes are supported"));
                }
                unsigned n = m == 0x22 ? 4 : 8;
                POLYCODEC_TRY(need(p + 1, n, "a real"));
                if (n == 4) {
                    auto bits = static_cast<std::uint32_t>(be(p + 1, 4));
                    float f;
                    std::memcpy(&f, &bits, 4);
                    b_.add_double(static_cast<double>(f));
                } else {
                    std::uint64_t bits = be(p + 1, 8);
                    double d;
                    std::memcpy(&d, &bits, 8);
                    b_.add_double(d);
                }
                return {};
            }
            case 0x3: {
                if (m != 0x33) {
                    return fail(make_error(errc::malformed, start,
                                           "expected a date (0x33), saw " +
                                               describe_byte_at(in_, p)));
                }
                POLYCODEC_TRY(need(p + 1, 8, "a date"));
                std::uint64_t bits = be(p + 1, 8);
                double d;
                std::memcpy(&d, &bits, 8);
                char text[32];
                std::size_t len = date_text(d, text);
                if (len == 0) {
                    return fail(make_error(errc::invalid_number, start,
                                           "date is not finite or outside years 0000-9999"));
                }
                b_.add_timestamp({text, len}, timestamp_kind::offset_date_time);
                return {};
            }
            case 0x4:
            case 0x5:
            case 0x6: {
                auto n = size_of(m, p);
                if (!n) {
                    return fail(n.error());
                }
                unsigned kind_nibble = m >> 4;
                std::uint64_t bytes = *n;
                if (kind_nibble == 0x6) {
                    if (bytes > (std::uint64_t{1} << 62)) {
                        return fail(eof_at(start, bytes, "a UTF-16 string"));
                    }
                    bytes *= 2;
                }
                POLYCODEC_TRY(need(p, bytes, kind_nibble == 0x4   ? "data"
                                             : kind_nibble == 0x5 ? "an ASCII string"
                                                                  : "a UTF-16 string"));
                std::string_view s = in_.substr(p, static_cast<std::size_t>(bytes));
                if (kind_nibble == 0x4) {
                    b_.add_bytes(s);
                } else if (kind_nibble == 0x5) {
                    for (std::size_t i = 0; i < s.size(); ++i) {
                        if (static_cast<unsigned char>(s[i]) >= 0x80) {
                            return fail(make_error(errc::invalid_utf8, p + i,
                                                   "byte above 0x7f in an ASCII string"));
                        }
                    }
                    b_.add_string(s);
                } else {
                    return utf16(s, p);
                }
                return {};
            }
            case 0x8: {
                unsigned n = (m & 0x0F) + 1;
                if (n > 8) {
                    return fail(make_error(errc::malformed, start,
                                           "UID of " + std::to_string(n) +
                                               " bytes: at most 8 are supported"));
                }
                POLYCODEC_TRY(need(p + 1, n, "a UID"));
                if (!b_.begin_tagged(uid_tag, tag_space::other)) {
                    return fail(limit_error(b_, start));
                }
                b_.add_uint(be(p + 1, n));
                return {};
            }
            case 0xA:
            case 0xD: {
                const bool dict = (m >> 4) == 0xD;
                auto n = size_of(m, p);
                if (!n) {
                    return fail(n.error());
                }
                std::uint64_t count = *n;
                // Lying counts: the references must be in the input before anything is built.
                std::uint64_t per = ref_size_ * (dict ? 2u : 1u);
                if (count > (end - std::min(p, end)) / per) {
                    return fail(eof_at(start, count * per,
                                       dict ? "a dict's references" : "an array's references"));
                }
                auto& state = *state_;
                auto self = static_cast<std::size_t>(ref);
                if (state[self] == 1) {
                    return fail(make_error(errc::malformed, start,
                                           "object " + std::to_string(ref) +
                                               " contains itself (a reference cycle)"));
                }
                if (!(dict ? b_.begin_map() : b_.begin_array())) {
                    return fail(limit_error(b_, start));
                }
                state[self] = 1;
                const std::size_t refs = p;
                for (std::uint64_t i = 0; i < count; ++i) {
                    if (dict) {
                        std::size_t kat = refs + static_cast<std::size_t>(i) * ref_size_;
                        std::uint64_t kref = be(kat, ref_size_);
                        auto koff = offset_of(kref, kat);
                        if (!koff) {
                            return fail(koff.error());
                        }
                        unsigned km = byte(*koff) >> 4;
                        if (km != 0x5 && km != 0x6) {
                            return fail(make_error(errc::malformed, kat,
                                                   "a dict key must be a string, object " +
                                                       std::to_string(kref) + " is " +
                                                       describe_byte_at(in_, *koff)));
                        }
                        POLYCODEC_TRY(read_object(kref, kat));
                        std::size_t vat = refs + static_cast<std::size_t>(count + i) * ref_size_;
                        POLYCODEC_TRY(read_object(be(vat, ref_size_), vat));
                    } else {
                        std::size_t at = refs + static_cast<std::size_t>(i) * ref_size_;
                        POLYCODEC_TRY(read_object(be(at, ref_size_), at));
                    }
                }
                state[self] = 2;
                return end_container(b_, dict, start);
            }
            default:
                return fail(make_error(errc::malformed, start,
                                       "unsupported object type " + describe_byte_at(in_, p) +
                                           (m >> 4 == 0xB || m >> 4 == 0xC
                                                ? " (sets are not property list values)"
                                                : "")));
        }
    }

    // UTF-16BE code units at p -> UTF-8.
    result<void> utf16(std::string_view s, std::size_t p) {
        char* w = b_.begin_string(s.size() / 2 * 3);
        char* o = w;
        for (std::size_t i = 0; i < s.size(); i += 2) {
            std::uint32_t u = (static_cast<unsigned char>(s[i]) << 8) |
                              static_cast<unsigned char>(s[i + 1]);
            if (u >= 0xD800 && u <= 0xDBFF) {
                std::uint32_t lo = 0;
                if (i + 3 < s.size()) {
                    lo = (static_cast<unsigned char>(s[i + 2]) << 8) |
                         static_cast<unsigned char>(s[i + 3]);
                }
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    b_.end_string(w);
                    return fail(make_error(errc::invalid_utf8, p + i,
                                           "unpaired UTF-16 high surrogate in a string"));
                }
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            } else if (u >= 0xDC00 && u <= 0xDFFF) {
                b_.end_string(w);
                return fail(make_error(errc::invalid_utf8, p + i,
                                       "unpaired UTF-16 low surrogate in a string"));
            }
            o += utf8_encode(u, o);
        }
        b_.end_string(o);
        return {};
    }

    std::string_view in_;
    builder& b_;
    unsigned offset_size_ = 0;
    unsigned ref_size_ = 0;
    std::uint64_t num_objects_ = 0;
    std::size_t table_ = 0;
    std::uint64_t emitted_ = 0;
    std::uint64_t budget_ = 0;
    std::vector<std::uint8_t>* state_ = nullptr;
};

// ===================================================================== binary reader, fast path

// One pass over the objects into the tape (detail/tape_writer.hpp), iterative with an explicit
// stack, the offset table read once into a validated array, every object resolved by index.
// It accepts a subset of what bplist_reader accepts and builds the same tape: any input it
// does not take (an error, a limit, an unusual layout) is left to bplist_reader, which reports
// the error, so the protections (cycles, depth, the shared-object budget, sizes) hold for both.

struct bplist_frame {
    const unsigned char* refs;  // the value references (a dict's follow its key references)
    const unsigned char* keys;  // a dict's key references; null for an array
    std::uint64_t next;         // elements (an array's) or entries (a dict's) started
    std::uint64_t count;        // elements or entries
    std::size_t start;          // tape index of the header
    std::uint32_t self;         // the container's object number (cycle check)
};

constexpr std::size_t bplist_fast_frames = 128;  // deeper input takes bplist_reader
using bplist_tape = tape_writer<256, 2048, false>;

[[gnu::always_inline]] inline std::uint64_t load_be_n(const unsigned char* p, unsigned n) noexcept {
    switch (n) {
        case 1:
            return p[0];
        case 2:
            return (std::uint64_t{p[0]} << 8) | p[1];
        case 4: {
            std::uint32_t v;
            std::memcpy(&v, p, 4);
            return __builtin_bswap32(v);
        }
        case 8: {
            std::uint64_t v;
            std::memcpy(&v, p, 8);
            return __builtin_bswap64(v);
        }
        default: {
            std::uint64_t v = 0;
            for (unsigned i = 0; i < n; ++i) {
                v = (v << 8) | p[i];
            }
            return v;
        }
    }
}

// Whether the first n (at most 32) of the 32 readable bytes at s are ASCII.
[[gnu::always_inline]] inline bool ascii_upto32(const char* s, std::size_t n) noexcept {
#if defined(__SSE2__)
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const auto high_bits = static_cast<std::uint64_t>(static_cast<std::uint32_t>(
        _mm_movemask_epi8(lo) | (_mm_movemask_epi8(hi) << 16)));
    return (high_bits & ((std::uint64_t{1} << n) - 1)) == 0;
#else
    unsigned char acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
        acc |= static_cast<unsigned char>(s[i]);
    }
    return acc < 0x80;
#endif
}

inline bool ascii_only(const char* s, std::size_t n) noexcept {
    std::uint64_t acc = 0;
    if (n >= 8) {
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t v;
            std::memcpy(&v, s + i, 8);
            acc |= v;
        }
        std::uint64_t last;  // the last 8 bytes, overlapping the loop's
        std::memcpy(&last, s + n - 8, 8);
        acc |= last;
    } else if (n >= 4) {
        std::uint32_t a, b;
        std::memcpy(&a, s, 4);
        std::memcpy(&b, s + n - 4, 4);
        acc = a | b;
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            acc |= static_cast<unsigned char>(s[i]);
        }
    }
    return (acc & 0x8080808080808080ull) == 0;
}

// `units` UTF-16BE code units at s as UTF-8 at out (room for 3 bytes a unit): the length, or
// SIZE_MAX for an unpaired surrogate.
inline std::size_t utf16_to_utf8(const unsigned char* s, std::size_t units, char* out) noexcept {
    char* o = out;
    for (std::size_t i = 0; i < units; ++i) {
        std::uint32_t u = (std::uint32_t{s[2 * i]} << 8) | s[2 * i + 1];
        if (u < 0x80) {
            *o++ = static_cast<char>(u);
            continue;
        }
        if (u >= 0xD800 && u <= 0xDFFF) {
            if (u > 0xDBFF || i + 1 >= units) {
                return SIZE_MAX;
            }
            const std::uint32_t lo = (std::uint32_t{s[2 * i + 2]} << 8) | s[2 * i + 3];
            if (lo < 0xDC00 || lo > 0xDFFF) {
                return SIZE_MAX;
            }
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            ++i;
        }
        o += utf8_encode(u, o);
    }
    return static_cast<std::size_t>(o - out);
}

/// Calls `f` with the byte width `w` as a compile-time constant when it is 1 or 2 (the usual
/// widths of offsets and object references: their loops unroll), else as it is.
template <class F>
void with_width(unsigned w, F f) {
    if (w == 1) {
        f(std::integral_constant<unsigned, 1>{});
    } else if (w == 2) {
        f(std::integral_constant<unsigned, 2>{});
    } else {
        f(w);
    }
}

// The offset table's `num` entries of `osize` bytes at o as 32-bit offsets at out; false when
// one is outside [8, table) (the objects' area).
inline bool read_offsets(const unsigned char* o, unsigned osize, std::size_t num,
                         std::uint64_t table, std::uint32_t* out) noexcept {
    std::uint64_t low = UINT64_MAX, high = 0;
    std::size_t i = 0;
#if defined(__SSE2__)
    if (osize == 2) {
        // Eight big-endian 16-bit offsets a step: swapped, widened and stored, their bounds
        // kept as signed 16-bit lanes (biased by 0x8000, as SSE2 has no unsigned min/max).
        const __m128i zero = _mm_setzero_si128();
        const __m128i bias = _mm_set1_epi16(static_cast<short>(0x8000));
        __m128i vmin = _mm_set1_epi16(0x7FFF), vmax = _mm_set1_epi16(static_cast<short>(0x8000));
        for (; i + 8 <= num; i += 8) {
            __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(o + 2 * i));
            x = _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_unpacklo_epi16(x, zero));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 4), _mm_unpackhi_epi16(x, zero));
            x = _mm_xor_si128(x, bias);
            vmin = _mm_min_epi16(vmin, x);
            vmax = _mm_max_epi16(vmax, x);
        }
        if (i != 0) {
            alignas(16) std::uint16_t lo[8], hi[8];
            _mm_store_si128(reinterpret_cast<__m128i*>(lo), _mm_xor_si128(vmin, bias));
            _mm_store_si128(reinterpret_cast<__m128i*>(hi), _mm_xor_si128(vmax, bias));
            for (int k = 0; k < 8; ++k) {
                low = std::min<std::uint64_t>(low, lo[k]);
                high = std::max<std::uint64_t>(high, hi[k]);
            }
        }
    }
#endif
    auto rest = [&](auto width) {
        for (; i < num; ++i) {
            const std::uint64_t off = load_be_n(o + i * width, width);
            low = std::min(low, off);
            high = std::max(high, off);
            out[i] = static_cast<std::uint32_t>(off);
        }
    };
    with_width(osize, rest);
    return low >= 8 && high < table;
}

// RS: the object reference size when it is 1 or 2 (loads of a constant width), 0 any other.
template <unsigned RS>
bool decode_bplist_fast(std::string_view in, builder& b) {
    const auto* const p = reinterpret_cast<const unsigned char*>(in.data());
    const std::size_t size = in.size();
    if (size < 8 + 32 + 1 || size > UINT32_MAX || std::memcmp(p, "bplist00", 8) != 0) {
        return false;
    }
    const std::size_t t = size - 32;
    const unsigned osize = p[t + 6];
    const unsigned rsize = RS != 0 ? RS : p[t + 7];
    const std::uint64_t num = load_be_n(p + t + 8, 8);
    const std::uint64_t top_ref = load_be_n(p + t + 16, 8);
    const std::uint64_t table = load_be_n(p + t + 24, 8);
    if (osize < 1 || osize > 8 || rsize < 1 || rsize > 8 || table < 9 || table > t ||
        num == 0 || num > (t - table) / osize || top_ref >= num) {
        return false;
    }
    // The offset table, read once: every offset must lie in the objects' area.
    thread_local std::vector<std::uint32_t> offsets;
    thread_local std::vector<std::uint8_t> state;  // 1 while a container is open (cycles)
    offsets.resize(static_cast<std::size_t>(num));
    state.assign(static_cast<std::size_t>(num), 0);
    if (!read_offsets(p + table, osize, static_cast<std::size_t>(num), table, offsets.data())) {
        return false;
    }
    const std::uint32_t* const offs = offsets.data();
    std::uint8_t* const open = state.data();
    const std::size_t end = t;  // objects never run into the trailer
    // Every object starts before the table; with 16 bytes of table or more after it, a marker
    // and the 16 bytes of the widest fixed-size object (or a count's 9) end before the trailer,
    // and their bounds checks can be skipped.
    const bool roomy = t - table >= 16;
    const std::size_t max_depth =
        std::min<std::size_t>(b.limits().max_depth, bplist_fast_frames);
    const std::size_t max_bytes = b.limits().max_bytes;
    // Values (keys included) the document gets, counted when their container opens.
    const std::uint64_t budget = static_cast<std::uint64_t>(size) * 16 + 4096;
    std::uint64_t emitted = 1;
    // Tape room: at the start of each element (a key or a value) at least two free words for
    // each element not yet started of the open containers (`pending`, this one included), so
    // that no element but a UID (four words, which makes its own room) checks for room; a
    // container restores it when it opens. The open containers are distinct objects whose
    // references lie in distinct bytes, so `pending` stays below the input's size.
    std::uint64_t pending = 1;

    bplist_tape tw(b);
    tw.hot_words(2);
    bplist_frame frames[bplist_fast_frames + 1];
    frames[0] = {nullptr, nullptr, 1, 1, 0, 0};  // the top level, never closed
    bplist_frame* top = frames;
    std::uint64_t ref = top_ref;

    // The count of a data, string, array or dict object whose marker m is at `at`: the low
    // nibble, or 0xF and an integer object after the marker. q: where the contents start.
    auto count = [&](unsigned m, std::size_t at, std::uint64_t& n, std::size_t& q)
                     __attribute__((always_inline)) -> bool {
        n = m & 0x0F;
        q = at + 1;
        if (n == 0x0F) {
            if (!roomy && q >= end) {
                return false;
            }
            const unsigned im = p[q];
            if ((im & 0xF0) != 0x10 || (im & 0x0F) > 3) {
                return false;
            }
            const unsigned k = 1u << (im & 3);
            if (!roomy && end - q - 1 < k) {
                return false;
            }
            n = load_be_n(p + q + 1, k);
            q += 1 + k;
        }
        return true;
    };
    // Data (hi 0x4), an ASCII string (0x5) or a UTF-16 string (0x6) of n at q, written at w.
    auto text = [&](unsigned hi, std::uint64_t n, std::size_t q, std::uint64_t* w)
                    __attribute__((always_inline)) -> bool {
        if (hi != 0x6) {
            if (n > end - q) {
                return false;
            }
            const char* s = reinterpret_cast<const char*>(p + q);
            if (n <= 32) {
                // Short: the 32-byte trailer follows the objects, so 32 bytes can be read and
                // copied at once (the bytes past n are overwritten by the next payload or cut
                // at the end).
                char* d = tw.hot_bytes(32);
                std::memcpy(d, s, 32);
                if (hi == 0x5 && !ascii_upto32(s, static_cast<std::size_t>(n))) {
                    return false;
                }
            } else {
                if ((hi == 0x5 && !ascii_only(s, n)) || n > max_bytes ||
                    tw.over_budget(max_bytes - n)) {
                    return false;
                }
                std::memcpy(tw.hot_bytes(n), s, n);
            }
            tw.payload(w, hi == 0x4 ? kind::bytes : kind::string, 0, n);
            return true;
        }
        if (n > (end - q) / 2) {
            return false;
        }
        if (3 * n > max_bytes || tw.over_budget(max_bytes - 3 * n)) {
            return false;
        }
        const std::size_t len = utf16_to_utf8(p + q, n, tw.hot_bytes(3 * n));
        if (len == SIZE_MAX) {
            return false;
        }
        tw.payload(w, kind::string, 0, len);
        return true;
    };

    for (;;) {
        if (ref >= num) {
            return false;
        }
        std::size_t at = offs[ref];
        const unsigned m = p[at];
        std::uint64_t* w = &tw.at(tw.size());
        --pending;
        switch (m >> 4) {
            case 0x0:
                if (m == 0x00) {
                    w[0] = tape_word(kind::null, 0, 0);
                    tw.advance(1);
                } else if (m == 0x08 || m == 0x09) {
                    w[0] = tape_word(m == 0x09 ? kind::boolean_true : kind::boolean_false, 0, 0);
                    tw.advance(1);
                } else if (m == 0x0F) {
                    tw.payload(w, kind::bytes, 0, 0);
                } else {
                    return false;
                }
                break;
            case 0x1: {
                const unsigned lg = m & 0x0F;
                if (lg > 4) {
                    return false;
                }
                const unsigned n = 1u << lg;
                if (!roomy && n > end - at - 1) {
                    return false;
                }
                if (lg < 4) {
                    const unsigned char* d = p + at + 1;
                    tw.scalar(w, kind::int64,
                              lg == 0   ? load_be_n(d, 1)
                              : lg == 1 ? load_be_n(d, 2)
                              : lg == 2 ? load_be_n(d, 4)
                                        : load_be_n(d, 8));
                    tw.advance(2);
                    break;
                }
                const uint128 u = (static_cast<uint128>(load_be_n(p + at + 1, 8)) << 64) |
                                  load_be_n(p + at + 9, 8);
                const auto v = static_cast<int128>(u);
                if (v >= INT64_MIN && v <= INT64_MAX) {
                    tw.scalar(w, kind::int64, static_cast<std::uint64_t>(v));
                    tw.advance(2);
                } else if (v > 0 && v <= static_cast<int128>(UINT64_MAX)) {
                    tw.scalar(w, kind::uint64, static_cast<std::uint64_t>(v));
                    tw.advance(2);
                } else {
                    char buf[48];
                    char* e = buf + sizeof buf;
                    char* s = e;
                    uint128 a = v < 0 ? static_cast<uint128>(0) - u : u;
                    do {
                        *--s = static_cast<char>('0' + static_cast<int>(a % 10));
                        a /= 10;
                    } while (a != 0);
                    if (v < 0) {
                        *--s = '-';
                    }
                    const auto len = static_cast<std::size_t>(e - s);
                    std::memcpy(tw.hot_bytes(len), s, len);
                    tw.payload(w, kind::bignum, 0, len);
                }
                break;
            }
            case 0x2: {
                if (m != 0x22 && m != 0x23) {
                    return false;
                }
                const unsigned n = m == 0x22 ? 4 : 8;
                if (!roomy && n > end - at - 1) {
                    return false;
                }
                double d;
                if (n == 4) {
                    auto bits = static_cast<std::uint32_t>(load_be_n(p + at + 1, 4));
                    float f;
                    std::memcpy(&f, &bits, 4);
                    d = static_cast<double>(f);
                } else {
                    std::uint64_t bits = load_be_n(p + at + 1, 8);
                    std::memcpy(&d, &bits, 8);
                }
                w[0] = tape_word(kind::float64, 0, 0);
                std::memcpy(&w[1], &d, 8);
                tw.advance(2);
                break;
            }
            case 0x3: {
                if (m != 0x33 || (!roomy && 8 > end - at - 1)) {
                    return false;
                }
                std::uint64_t bits = load_be_n(p + at + 1, 8);
                double d;
                std::memcpy(&d, &bits, 8);
                char txt[32];
                const std::size_t len = date_text(d, txt);
                if (len == 0) {
                    return false;
                }
                std::memcpy(tw.hot_bytes(len), txt, len);
                tw.payload(w, kind::timestamp,
                           static_cast<std::uint64_t>(timestamp_kind::offset_date_time), len);
                break;
            }
            case 0x4:
            case 0x5:
            case 0x6: {
                std::uint64_t n;
                std::size_t q;
                if (!count(m, at, n, q) || !text(m >> 4, n, q, w)) {
                    return false;
                }
                break;
            }
            case 0xA:
            case 0xD: {
                std::uint64_t n;
                std::size_t q;
                if (!count(m, at, n, q)) {
                    return false;
                }
                const bool dict = (m >> 4) == 0xD;
                const std::uint64_t per = rsize * (dict ? 2u : 1u);
                if (n > (end - q) / per) {
                    return false;
                }
                const auto self = static_cast<std::size_t>(ref);
                if (open[self] != 0 || static_cast<std::size_t>(top - frames) >= max_depth ||
                    tw.over_budget(max_bytes)) {
                    return false;
                }
                const kind k = dict ? kind::map : kind::array;
                if (n == 0) {
                    tw.open_empty(w, k);
                    break;
                }
                emitted += dict ? 2 * n : n;
                if (emitted > budget) {
                    return false;
                }
                open[self] = 1;
                const unsigned char* refs = p + q;
                *++top = {dict ? refs + n * rsize : refs, dict ? refs : nullptr, 0, n, tw.size(),
                          static_cast<std::uint32_t>(self)};
                tw.open(w, k, n);
                pending += dict ? 2 * n : n;
                if (pending > max_bytes / 16) {
                    return false;
                }
                tw.hot_words(static_cast<std::size_t>(2 * pending));
                goto next;
            }
            case 0x8: {
                const unsigned n = (m & 0x0F) + 1;
                if (n > 8 || (!roomy && n > end - at - 1) ||
                    static_cast<std::size_t>(top - frames) >= max_depth) {
                    return false;
                }
                const std::uint64_t u = load_be_n(p + at + 1, n);
                w = tw.hot_words(4 + static_cast<std::size_t>(2 * pending));
                w[0] = tape_word(kind::tagged, static_cast<std::uint64_t>(tag_space::other), 0);
                w[1] = uid_tag;
                tw.scalar(w + 2, u <= static_cast<std::uint64_t>(INT64_MAX) ? kind::int64
                                                                            : kind::uint64,
                          u);
                tw.advance(4);
                break;
            }
            default:
                return false;
        }
        // A value is complete: close the containers it ends (frames[0] ends the loop).
        while (top->next == top->count) {
            if (top == frames) {
                goto done;
            }
            tw.close(top->start);
            open[top->self] = 0;
            --top;
        }
    next: {
        bplist_frame& f = *top;
        const std::uint64_t j = f.next++;
        if (f.keys != nullptr) {
            // A dict's key: a string object, written before its value.
            const std::uint64_t kref = load_be_n(f.keys + j * rsize, rsize);
            if (kref >= num) {
                return false;
            }
            const std::size_t kat = offs[kref];
            const unsigned km = p[kat];
            std::uint64_t n;
            std::size_t q;
            --pending;
            if (((km >> 4) != 0x5 && (km >> 4) != 0x6) || !count(km, kat, n, q) ||
                !text(km >> 4, n, q, &tw.at(tw.size()))) {
                return false;
            }
        }
        ref = load_be_n(f.refs + j * rsize, rsize);
    }
    }
done:
    if (tw.over_budget(max_bytes)) {
        return false;
    }
    tw.finish();
    return true;
}
// ===================================================================== XML reader

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool name_char(char c) {
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) {
        s.remove_prefix(1);
    }
    while (!s.empty() && is_space(s.back())) {
        s.remove_suffix(1);
    }
    return s;
}

// The elements of a property list's XML form.
enum class element : std::uint8_t {
    dict,
    array,
    key,
    string,
    integer,
    real,
    true_,
    false_,
    date,
    data,
    unknown
};

// The element `n` names: by length, then compares of a known size (which compile to a few
// instructions, whatever else the compiler inlines).
element element_named(std::string_view n) {
    const char* p = n.data();
    auto is = [p](const char* name, std::size_t len) { return std::memcmp(p, name, len) == 0; };
    switch (n.size()) {
        case 3:
            return is("key", 3) ? element::key : element::unknown;
        case 4:
            return is("dict", 4)   ? element::dict
                   : is("real", 4) ? element::real
                   : is("true", 4) ? element::true_
                   : is("date", 4) ? element::date
                   : is("data", 4) ? element::data
                                   : element::unknown;
        case 5:
            return is("array", 5)   ? element::array
                   : is("false", 5) ? element::false_
                                    : element::unknown;
        case 6:
            return is("string", 6) ? element::string : element::unknown;
        case 7:
            return is("integer", 7) ? element::integer : element::unknown;
        default:
            return element::unknown;
    }
}

class xml_reader {
public:
    xml_reader(std::string_view in, builder& b) : in_(in), b_(b), text_(scratch()) {}

    result<void> run() {
        auto r = parse();
        if (!r) {
            // The XML form is text: line and column for the user.
            error& e = r.error();
            if (e.has_offset && e.line == 0) {
                auto pos = locate(in_, e.offset);
                e.line = pos.line;
                e.column = pos.column;
            }
        }
        return r;
    }

private:
    result<void> parse() {
        if (in_.substr(0, 3) == "\xEF\xBB\xBF") {
            pos_ = 3;
        }
        std::size_t valid = utf8_valid_prefix(in_);
        if (valid != in_.size()) {
            return fail(make_error(errc::invalid_utf8, valid,
                                   "invalid UTF-8 (an XML property list is read as UTF-8 only)"));
        }
        bool first = true;
        POLYCODEC_TRY(misc(true, first));
        if (pos_ >= in_.size() || in_[pos_] != '<') {
            return fail(unexpected_at(in_, pos_, "'<' starting the root element"));
        }
        std::size_t at = pos_;
        auto t = open_tag();
        if (!t) {
            return fail(t.error());
        }
        if (t->name == "plist") {
            if (t->empty) {
                return fail(make_error(errc::malformed, at,
                                       "<plist/> holds no value (a plist has no null)"));
            }
            POLYCODEC_TRY(skip_between());
            if (starts("</")) {
                return fail(make_error(errc::malformed, pos_,
                                       "<plist> holds no value (a plist has no null)"));
            }
            POLYCODEC_TRY(value());
            POLYCODEC_TRY(skip_between());
            POLYCODEC_TRY(close_tag("plist"));
        } else {
            POLYCODEC_TRY(value_of(*t, at));
        }
        POLYCODEC_TRY(misc(false, first));
        if (pos_ != in_.size()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input after the root element, saw " +
                                       describe_byte_at(in_, pos_)));
        }
        return {};
    }

    struct tag {
        std::string_view name;
        bool empty = false;  // <name/>
    };

    bool starts(std::string_view s) const { return in_.substr(pos_, s.size()) == s; }
    void skip_space() {
        while (pos_ < in_.size() && is_space(in_[pos_])) {
            ++pos_;
        }
    }
    result<void> skip_past(std::string_view end, std::size_t from, const char* what) {
        auto e = in_.find(end, pos_);
        if (e == std::string_view::npos) {
            return fail(make_error(errc::unexpected_eof, from,
                                   std::string("unterminated ") + what));
        }
        pos_ = e + end.size();
        return {};
    }
    result<void> comment() {
        std::size_t from = pos_;
        pos_ += 4;
        auto e = in_.find("--", pos_);
        if (e == std::string_view::npos) {
            return fail(make_error(errc::unexpected_eof, from, "unterminated comment"));
        }
        if (e + 2 >= in_.size() || in_[e + 2] != '>') {
            return fail(make_error(errc::unexpected_char, e, "\"--\" inside a comment"));
        }
        pos_ = e + 3;
        return {};
    }

    // Prolog (prolog=true) or epilog: whitespace, comments, processing instructions, and in
    // the prolog the XML declaration and one DOCTYPE without an internal subset.
    result<void> misc(bool prolog, bool& first) {
        for (;;) {
            std::size_t here = pos_;
            skip_space();
            if (starts("<?xml") && pos_ + 5 < in_.size() && (is_space(in_[pos_ + 5]) || in_[pos_ + 5] == '?')) {
                if (!prolog || !first || here != (in_.substr(0, 3) == "\xEF\xBB\xBF" ? 3u : 0u)) {
                    return fail(make_error(errc::unexpected_char, pos_,
                                           "the XML declaration must come first"));
                }
                std::size_t from = pos_;
                POLYCODEC_TRY(skip_past("?>", from, "XML declaration"));
                std::string_view decl = in_.substr(from, pos_ - from);
                auto enc = decl.find("encoding");
                if (enc != std::string_view::npos) {
                    auto q = decl.find_first_of("\"'", enc);
                    auto q2 = q == std::string_view::npos ? q : decl.find(decl[q], q + 1);
                    if (q2 != std::string_view::npos) {
                        std::string_view name = decl.substr(q + 1, q2 - q - 1);
                        if (!(name.size() == 5 && (name[0] | 0x20) == 'u' &&
                              (name[1] | 0x20) == 't' && (name[2] | 0x20) == 'f' &&
                              name[3] == '-' && name[4] == '8')) {
                            return fail(make_error(errc::malformed, from + q + 1,
                                                   "encoding \"" + std::string(name) +
                                                       "\": only UTF-8 is supported"));
                        }
                    }
                }
            } else if (starts("<?")) {
                std::size_t from = pos_;
                POLYCODEC_TRY(skip_past("?>", from, "processing instruction"));
            } else if (starts("<!--")) {
                POLYCODEC_TRY(comment());
            } else if (prolog && starts("<!DOCTYPE")) {
                std::size_t from = pos_;
                pos_ += 9;
                char quote = 0;
                for (; pos_ < in_.size(); ++pos_) {
                    char c = in_[pos_];
                    if (quote != 0) {
                        if (c == quote) {
                            quote = 0;
                        }
                    } else if (c == '"' || c == '\'') {
                        quote = c;
                    } else if (c == '[') {
                        return fail(make_error(errc::forbidden, pos_,
                                               "a DOCTYPE internal subset (entity declarations) "
                                               "is not supported in a property list"));
                    } else if (c == '>') {
                        break;
                    }
                }
                if (pos_ >= in_.size()) {
                    return fail(make_error(errc::unexpected_eof, from, "unterminated DOCTYPE"));
                }
                ++pos_;
            } else {
                first = false;
                return {};
            }
            first = false;
        }
    }

    // Whitespace and comments between elements.
    result<void> skip_between() {
        for (;;) {
            skip_space();
            if (starts("<!--")) {
                POLYCODEC_TRY(comment());
            } else if (pos_ < in_.size() && in_[pos_] != '<') {
                return fail(make_error(errc::unexpected_char, pos_,
                                       "text outside an element: expected '<', saw " +
                                           describe_byte_at(in_, pos_)));
            } else {
                return {};
            }
        }
    }

    // At '<': the name, attributes (checked, ignored) and '>' or '/>'.
    result<tag> open_tag() {
        std::size_t from = pos_;
        ++pos_;
        std::size_t ns = pos_;
        if (pos_ >= in_.size() || !name_start(in_[pos_])) {
            return fail(unexpected_at(in_, pos_, "an element name"));
        }
        while (pos_ < in_.size() && name_char(in_[pos_])) {
            ++pos_;
        }
        tag t;
        t.name = in_.substr(ns, pos_ - ns);
        for (;;) {
            bool spaced = pos_ < in_.size() && is_space(in_[pos_]);
            skip_space();
            if (pos_ >= in_.size()) {
                return fail(make_error(errc::unexpected_eof, from, "unterminated start tag"));
            }
            if (in_[pos_] == '>') {
                ++pos_;
                return t;
            }
            if (starts("/>")) {
                pos_ += 2;
                t.empty = true;
                return t;
            }
            if (!spaced || !name_start(in_[pos_])) {
                return fail(unexpected_at(in_, pos_, "an attribute, '>' or '/>'"));
            }
            while (pos_ < in_.size() && name_char(in_[pos_])) {
                ++pos_;
            }
            skip_space();
            if (pos_ >= in_.size() || in_[pos_] != '=') {
                return fail(unexpected_at(in_, pos_, "'=' after an attribute name"));
            }
            ++pos_;
            skip_space();
            if (pos_ >= in_.size() || (in_[pos_] != '"' && in_[pos_] != '\'')) {
                return fail(unexpected_at(in_, pos_, "a quoted attribute value"));
            }
            char q = in_[pos_++];
            auto e = in_.find(q, pos_);
            if (e == std::string_view::npos) {
                return fail(make_error(errc::unexpected_eof, from, "unterminated attribute value"));
            }
            auto lt = in_.substr(pos_, e - pos_).find('<');
            if (lt != std::string_view::npos) {
                return fail(make_error(errc::unexpected_char, pos_ + lt,
                                       "'<' inside an attribute value"));
            }
            pos_ = e + 1;
        }
    }

    result<void> close_tag(std::string_view name) {
        if (!starts("</") || in_.substr(pos_ + 2, name.size()) != name) {
            return fail(make_error(pos_ >= in_.size() ? errc::unexpected_eof : errc::unexpected_char,
                                   pos_,
                                   "expected </" + std::string(name) + ">, saw " +
                                       describe_byte_at(in_, pos_)));
        }
        pos_ += 2 + name.size();
        skip_space();
        if (pos_ >= in_.size() || in_[pos_] != '>') {
            return fail(unexpected_at(in_, pos_, "'>' closing the end tag"));
        }
        ++pos_;
        return {};
    }

    // The character data of an element up to its end tag: entity and character references,
    // CDATA sections and comments; line ends normalized to LF as XML does.
    result<std::string_view> text(const tag& t) {
        text_.clear();
        if (t.empty) {
            return std::string_view(text_);
        }
        for (;;) {
            std::size_t run = pos_;
            while (pos_ < in_.size() && in_[pos_] != '<' && in_[pos_] != '&' && in_[pos_] != '\r') {
                auto c = static_cast<unsigned char>(in_[pos_]);
                if (c < 0x20 && c != '\t' && c != '\n') {
                    return fail(make_error(errc::invalid_string, pos_,
                                           "control character " + describe_byte_at(in_, pos_) +
                                               " is not allowed in XML"));
                }
                if (c == 0xEF && non_character(pos_)) {
                    return fail(make_error(errc::invalid_string, pos_,
                                           "U+FFFE and U+FFFF are not XML characters"));
                }
                ++pos_;
            }
            text_.append(in_.substr(run, pos_ - run));
            if (pos_ >= in_.size()) {
                return fail(make_error(errc::unexpected_eof, pos_,
                                       "expected </" + std::string(t.name) + ">, saw end of input"));
            }
            char c = in_[pos_];
            if (c == '\r') {
                text_.push_back('\n');
                ++pos_;
                if (pos_ < in_.size() && in_[pos_] == '\n') {
                    ++pos_;
                }
            } else if (c == '&') {
                POLYCODEC_TRY(reference());
            } else if (starts("<![CDATA[")) {
                std::size_t from = pos_;
                pos_ += 9;
                auto e = in_.find("]]>", pos_);
                if (e == std::string_view::npos) {
                    return fail(make_error(errc::unexpected_eof, from, "unterminated CDATA section"));
                }
                for (std::size_t i = pos_; i < e; ++i) {
                    auto u = static_cast<unsigned char>(in_[i]);
                    if (u == '\r') {
                        text_.push_back('\n');
                        if (i + 1 < e && in_[i + 1] == '\n') {
                            ++i;
                        }
                        continue;
                    }
                    if ((u < 0x20 && u != '\t' && u != '\n') || (u == 0xEF && non_character(i))) {
                        return fail(make_error(errc::invalid_string, i,
                                               "a character that XML does not allow"));
                    }
                    text_.push_back(in_[i]);
                }
                pos_ = e + 3;
            } else if (starts("<!--")) {
                POLYCODEC_TRY(comment());
            } else if (starts("</")) {
                POLYCODEC_TRY(close_tag(t.name));
                return std::string_view(text_);
            } else {
                return fail(make_error(errc::unexpected_char, pos_,
                                       "an element inside <" + std::string(t.name) +
                                           "> (it holds text only)"));
            }
        }
    }

    // U+FFFE or U+FFFF (EF BF BE, EF BF BF) at p.
    bool non_character(std::size_t p) const {
        return p + 2 < in_.size() && static_cast<unsigned char>(in_[p + 1]) == 0xBF &&
               (static_cast<unsigned char>(in_[p + 2]) & 0xFE) == 0xBE;
    }

    // At '&': one of the five predefined entities or a character reference.
    result<void> reference() {
        std::size_t from = pos_;
        auto semi = in_.find(';', pos_);
        if (semi == std::string_view::npos || semi - pos_ > 12) {
            return fail(make_error(errc::invalid_string, from, "'&' that starts no reference"));
        }
        std::string_view name = in_.substr(pos_ + 1, semi - pos_ - 1);
        pos_ = semi + 1;
        if (name == "amp") {
            text_.push_back('&');
        } else if (name == "lt") {
            text_.push_back('<');
        } else if (name == "gt") {
            text_.push_back('>');
        } else if (name == "quot") {
            text_.push_back('"');
        } else if (name == "apos") {
            text_.push_back('\'');
        } else if (name.size() >= 2 && name[0] == '#') {
            bool hex = name[1] == 'x';
            std::string_view digits = name.substr(hex ? 2 : 1);
            std::uint32_t cp = 0;
            auto r = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
            bool ok = !digits.empty() && r.ec == std::errc() && r.ptr == digits.data() + digits.size() &&
                      digits[0] != '+' && digits[0] != '-';
            // XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
            if (!ok || !(cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF))) {
                return fail(make_error(errc::invalid_string, from,
                                       "character reference &" + std::string(name) +
                                           "; is not an XML character"));
            }
            char buf[4];
            text_.append(buf, utf8_encode(cp, buf));
        } else {
            return fail(make_error(errc::invalid_string, from,
                                   "undefined entity &" + std::string(name) +
                                       "; (a property list declares none)"));
        }
        return {};
    }

    result<void> value() {
        if (pos_ >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, pos_, "expected a value, saw end of input"));
        }
        std::size_t at = pos_;
        if (starts("</")) {
            return fail(unexpected_at(in_, pos_, "a value element"));
        }
        auto t = open_tag();
        if (!t) {
            return fail(t.error());
        }
        return value_of(*t, at);
    }

    // One <key> and its value of a <dict>.
    result<void> dict_entry() {
        std::size_t kat = pos_;
        if (pos_ >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, pos_,
                                   "expected <key> or </dict>, saw end of input"));
        }
        auto k = open_tag();
        if (!k) {
            return fail(k.error());
        }
        if (k->name != "key") {
            return fail(
                make_error(errc::unexpected_char, kat,
                           "expected <key> or </dict>, saw <" + std::string(k->name) + ">"));
        }
        auto s = text(*k);
        if (!s) {
            return fail(s.error());
        }
        b_.add_string(*s);
        POLYCODEC_TRY(skip_between());
        if (starts("</") || pos_ >= in_.size()) {
            return fail(
                make_error(errc::malformed, pos_, "key \"" + std::string(*s) + "\" has no value"));
        }
        return value();
    }

    result<void> value_of(const tag& t, std::size_t at) {
        std::string_view n = t.name;
        const element e = element_named(n);
        if (e == element::dict || e == element::array) {
            const bool dict = e == element::dict;
            if (!(dict ? b_.begin_map() : b_.begin_array())) {
                return fail(limit_error(b_, at));
            }
            if (!t.empty) {
                for (;;) {
                    POLYCODEC_TRY(skip_between());
                    if (starts("</")) {
                        POLYCODEC_TRY(close_tag(n));
                        break;
                    }
                    POLYCODEC_TRY(dict ? dict_entry() : value());
                }
            }
            return end_container(b_, dict, at);
        }
        if (e == element::true_ || e == element::false_) {
            auto s = text(t);
            if (!s) {
                return fail(s.error());
            }
            if (!trim(*s).empty()) {
                return fail(make_error(errc::malformed, at,
                                       "<" + std::string(n) + "> holds no text"));
            }
            b_.add_bool(e == element::true_);
            return {};
        }
        if (e == element::string || e == element::key) {
            if (e == element::key) {
                return fail(make_error(errc::unexpected_char, at, "<key> outside a <dict>"));
            }
            auto s = text(t);
            if (!s) {
                return fail(s.error());
            }
            b_.add_string(*s);
            return {};
        }
        if (e != element::unknown) {  // integer, real, date, data
            std::size_t content = pos_;
            auto s = text(t);
            if (!s) {
                return fail(s.error());
            }
            switch (e) {
                case element::integer:
                    return integer(*s, content);
                case element::real:
                    return real(*s, content);
                case element::date:
                    return date(*s, content);
                default:
                    return data(*s, content);
            }
        }
        return fail(make_error(errc::malformed, at,
                               "unknown element <" + std::string(n) +
                                   "> (a property list has dict, array, key, string, integer, "
                                   "real, true, false, date and data)"));
    }

    // Python's int() as plistlib applies it: optional sign, decimal digits, or 0x hex.
    result<void> integer(std::string_view raw, std::size_t at) {
        bool hex = raw.size() > 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X');
        std::string_view s = hex ? raw.substr(2) : trim(raw);
        bool neg = false;
        if (!hex && !s.empty() && (s[0] == '-' || s[0] == '+')) {
            neg = s[0] == '-';
            s.remove_prefix(1);
        }
        if (hex) {
            s = trim(s);
        }
        auto bad = [&] {
            return fail(make_error(errc::invalid_number, at,
                                   "<integer> holds \"" + std::string(raw.substr(0, 40)) +
                                       "\", not an integer"));
        };
        if (s.empty()) {
            return bad();
        }
        if (hex) {
            uint128 v = 0;
            while (s.size() > 1 && s[0] == '0') {
                s.remove_prefix(1);
            }
            if (s.size() > 32) {
                return fail(make_error(errc::invalid_number, at,
                                       "hexadecimal integer wider than 128 bits"));
            }
            for (char c : s) {
                int d = (c >= '0' && c <= '9')   ? c - '0'
                        : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                        : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                 : -1;
                if (d < 0) {
                    return bad();
                }
                v = (v << 4) | static_cast<unsigned>(d);
            }
            if (v > static_cast<uint128>(UINT64_MAX)) {
                std::string t;
                do {
                    t.insert(t.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
                    v /= 10;
                } while (v != 0);
                b_.add_bignum(t);
            } else {
                b_.add_uint(static_cast<std::uint64_t>(v));
            }
            return {};
        }
        for (char c : s) {
            if (c < '0' || c > '9') {
                return bad();
            }
        }
        while (s.size() > 1 && s[0] == '0') {
            s.remove_prefix(1);
        }
        if (s.size() <= 19) {
            std::uint64_t v = 0;
            std::from_chars(s.data(), s.data() + s.size(), v);
            if (!neg) {
                b_.add_uint(v);
                return {};
            }
            if (v <= static_cast<std::uint64_t>(INT64_MAX) + 1) {
                b_.add_int(static_cast<std::int64_t>(0 - v));
                return {};
            }
        } else if (!neg && s.size() == 20) {
            std::uint64_t v = 0;
            auto r = std::from_chars(s.data(), s.data() + s.size(), v);
            if (r.ec == std::errc()) {
                b_.add_uint(v);
                return {};
            }
        }
        if (s.size() > 4096) {
            return fail(make_error(errc::invalid_number, at,
                                   "integer of more than 4096 digits"));
        }
        std::string t = neg ? "-" : "";
        t.append(s);
        b_.add_bignum(t);
        return {};
    }

    // Python's float(): decimal forms, inf, infinity, nan (any case, signed).
    result<void> real(std::string_view raw, std::size_t at) {
        std::string_view s = trim(raw);
        bool neg = false;
        std::string_view body = s;
        if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
            neg = body[0] == '-';
            body.remove_prefix(1);
        }
        auto ieq = [](std::string_view a, std::string_view b) {
            if (a.size() != b.size()) {
                return false;
            }
            for (std::size_t i = 0; i < a.size(); ++i) {
                if ((a[i] | 0x20) != b[i]) {
                    return false;
                }
            }
            return true;
        };
        double d = 0;
        if (ieq(body, "inf") || ieq(body, "infinity")) {
            d = HUGE_VAL;
        } else if (ieq(body, "nan")) {
            d = std::nan("");
        } else {
            bool ok = !body.empty() && (body[0] == '.' || (body[0] >= '0' && body[0] <= '9'));
            if (ok) {
                auto r = std::from_chars(body.data(), body.data() + body.size(), d);
                ok = r.ptr == body.data() + body.size() &&
                     (r.ec == std::errc() || r.ec == std::errc::result_out_of_range);
                if (r.ec == std::errc::result_out_of_range) {
                    // from_chars leaves d unchanged: Python gives inf or 0, as strtod.
                    d = std::strtod(std::string(body).c_str(), nullptr);
                }
            }
            if (!ok) {
                return fail(make_error(errc::invalid_number, at,
                                       "<real> holds \"" + std::string(raw.substr(0, 40)) +
                                           "\", not a number"));
            }
        }
        b_.add_double(neg ? -d : d);
        return {};
    }

    // plistlib's form: YYYY-MM-DD[THH[:MM[:SS]]]Z, UTC (it needs the day: datetime() does).
    result<void> date(std::string_view raw, std::size_t at) {
        std::string_view s = trim(raw);
        unsigned f[6] = {0, 1, 1, 0, 0, 0};
        const char seps[] = {0, '-', '-', 'T', ':', ':'};
        std::size_t p = 0;
        int fields = 0;
        auto bad = [&] {
            return fail(make_error(errc::invalid_number, at,
                                   "<date> holds \"" + std::string(raw.substr(0, 40)) +
                                       "\", not YYYY-MM-DD[THH[:MM[:SS]]]Z"));
        };
        for (int i = 0; i < 6; ++i) {
            if (i > 0) {
                if (p >= s.size() || s[p] != seps[i]) {
                    break;
                }
                ++p;
            }
            unsigned width = i == 0 ? 4 : 2;
            if (p + width > s.size()) {
                return bad();
            }
            unsigned v = 0;
            for (unsigned k = 0; k < width; ++k) {
                char c = s[p + k];
                if (c < '0' || c > '9') {
                    return bad();
                }
                v = v * 10 + static_cast<unsigned>(c - '0');
            }
            f[i] = v;
            p += width;
            ++fields;
        }
        if (fields < 3 || p + 1 != s.size() || s[p] != 'Z') {
            return bad();
        }
        if (f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > days_in_month(f[0], f[1]) || f[3] > 23 ||
            f[4] > 59 || f[5] > 59) {
            return fail(make_error(errc::invalid_number, at,
                                   "<date> " + std::string(s) + " is not a valid date and time"));
        }
        std::int64_t secs = days_from_civil(f[0], f[1], f[2]) * 86400 + f[3] * 3600 + f[4] * 60 + f[5];
        char text[32];
        std::size_t len = format_epoch(secs, 0, text);
        b_.add_timestamp({text, len}, timestamp_kind::offset_date_time);
        return {};
    }

    // Base64 with whitespace anywhere (Apple wraps lines; plistlib too).
    result<void> data(std::string_view raw, std::size_t at) {
        thread_local std::string compact, bytes;
        compact.clear();
        for (char c : raw) {
            if (!is_space(c)) {
                compact.push_back(c);
            }
        }
        bool ok = true;
        for (std::size_t i = 0; i < compact.size() && ok; ++i) {
            char c = compact[i];
            bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                         (c >= '0' && c <= '9') || c == '+' || c == '/';
            ok = alpha || (c == '=' && i + 2 >= compact.size() &&
                           compact.find_first_not_of('=', i) == std::string::npos);
        }
        std::size_t pad = compact.size() - std::min(compact.size(), compact.find('='));
        if (compact.find('=') == std::string::npos) {
            pad = 0;
        }
        ok = ok && (compact.size() % 4 == 0 || pad == 0) && base64_decode(compact, bytes);
        if (!ok) {
            return fail(make_error(errc::malformed, at, "<data> is not valid base64"));
        }
        b_.add_bytes(bytes);
        return {};
    }

    std::string_view in_;
    builder& b_;
    std::size_t pos_ = 0;
    // The text of the element being read; per thread, so that steady decoding allocates
    // nothing.
    static std::string& scratch() {
        thread_local std::string s;
        return s;
    }
    std::string& text_;
};

result<void> decode_plist(std::string_view in, builder& b, const decode_options&) {
    if (in.substr(0, 6) == "bplist") {
        if (b.depth() == 0 && b.ok() && b.doc().empty() && b.doc().bytes().empty()) {
            const unsigned rs = in.size() >= 32 ? static_cast<unsigned char>(in[in.size() - 25]) : 0;
            if (rs == 1   ? decode_bplist_fast<1>(in, b)
                : rs == 2 ? decode_bplist_fast<2>(in, b)
                          : decode_bplist_fast<0>(in, b)) {
                return {};
            }
            b.reset();  // the reader below finds the error (or the limit) and reports it
        }
        bplist_reader r(in, b);
        return r.run();
    }
    xml_reader r(in, b);
    return r.run();
}

// ===================================================================== shared by writers

// What a plist holds of a value: the fallbacks both writers take alike.
struct plist_policy {
    const encode_options& opt;

    // Null (dropped under lossy=allow: the caller skips it) or an error.
    result<void> null(value v) const {
        if (!allow_lossy(opt, v, "null_dropped", "null dropped (a plist has no null)")) {
            return fail(unrepresentable(v, "null is not representable in plist"));
        }
        return {};
    }
    // Whether the value is dropped: a null under lossy=allow.
    bool dropped(value v) const { return v.kind() == kind::null && opt.lossy; }

    // An instant as seconds and nanoseconds since 1970; false when the timestamp is no instant
    // and lossy=allow writes it as its text (`as_text` set), error otherwise.
    result<bool> instant(value v, epoch_instant& t) const {
        if (v.get_timestamp_kind() == timestamp_kind::offset_date_time &&
            parse_rfc3339(v.get_string(), t)) {
            return true;
        }
        if (!allow_lossy(opt, v, "timestamp_to_string",
                         "local date or time written as its text")) {
            return fail(unrepresentable(v, "local date or time " + std::string(v.get_string()) +
                                               " is not representable in plist (a plist date "
                                               "is an instant)"));
        }
        return false;
    }
};

// The text of a map key; error for keys a plist cannot hold.
result<std::string_view> key_text(value k, const plist_policy& pol, std::string& scratch) {
    switch (k.kind()) {
        case kind::string:
        case kind::timestamp:
        case kind::bignum:
            return k.get_string();
        case kind::int64:
        case kind::uint64: {
            char buf[24];
            auto r = k.kind() == kind::int64 ? std::to_chars(buf, buf + 24, k.get_int())
                                             : std::to_chars(buf, buf + 24, k.get_uint());
            scratch.assign(buf, r.ptr);
            return std::string_view(scratch);
        }
        default: {
            scratch = to_debug_string(k);
            if (!allow_lossy(pol.opt, k, "key_to_string", "key written as its text")) {
                return fail(unrepresentable(k, "map key " + scratch +
                                                   " is not representable in plist (keys are "
                                                   "strings)"));
            }
            return std::string_view(scratch);
        }
    }
}

// ===================================================================== binary writer

class bplist_writer {
public:
    bplist_writer(output_buffer& out, const encode_options& opt) : out_(out), pol_{opt} {}

    result<void> write(const document& doc) {
        // Objects: one per element (a tagged UID and its integer are one). The count sizes the
        // object references before anything is written.
        const auto& tape = doc.tape();
        std::uint64_t objects = 0;
        // Without lossy=allow an object takes 1 to 4 tape words (a tagged UID and its integer
        // are one; any other tag is an error); when both bounds give the same reference size,
        // the count is not needed. (Under lossy=allow dropped tags may nest deeper.)
        const std::uint64_t words = tape.size();
        if (!pol_.opt.lossy && size_for(words / 4) == size_for(words)) {
            objects = words;
        }
        for (std::size_t i = objects != 0 ? tape.size() : 0; i < tape.size();) {
            auto k = static_cast<kind>(tape[i] >> document::kind_shift);
            if (k != kind::tagged) {
                ++objects;
            }
            i += (k == kind::null || k == kind::boolean_false || k == kind::boolean_true) ? 1 : 2;
        }
        ref_size_ = size_for(objects);
        thread_local std::vector<std::uint64_t> offsets;  // by object number; `objects` bounds it
        offsets.resize(static_cast<std::size_t>(objects) + 1);
        offsets_ = &offsets;
        base_ = out_.size();
        out_.append("bplist00", 8);
        next_id_ = 1;
        if (doc.root().kind() == kind::null) {
            POLYCODEC_TRY(pol_.null(doc.root()));
            return fail(unrepresentable(doc.root(), "a null root is not representable in plist"));
        }
        if (pol_.opt.lossy || !walk(doc)) {
            // What the tape walk does not take (nulls, lossy fallbacks, keys that are not
            // strings, errors) goes through the recursive writer, which reports the errors.
            out_.truncate(base_ + 8);
            next_id_ = 1;
            POLYCODEC_TRY(object(doc.root(), 0));
        }
        const std::uint64_t table = out_.size() - base_;
        const unsigned osize = size_for(table);
        char* p = out_.prepare(static_cast<std::size_t>(next_id_) * osize + 32);
        // Locals: the stores through p may alias any member or the vector's pointers.
        const std::uint64_t* const offs = offsets.data();
        const std::uint64_t count = next_id_;
        auto put_offsets = [&](auto width) {
            char* q = p;
            for (std::uint64_t i = 0; i < count; ++i, q += width) {
                put_be(q, offs[static_cast<std::size_t>(i)], width);
            }
            p = q;
        };
        if (osize == 1) {
            put_offsets(std::integral_constant<unsigned, 1>{});
        } else if (osize == 2) {
#if defined(__SSE2__)
            // Eight a step: the low 32 bits of each (below 2^16), biased into the signed
            // range that the saturating pack keeps, packed, unbiased and byte-swapped.
            const __m128i bias32 = _mm_set1_epi32(0x8000);
            const __m128i bias16 = _mm_set1_epi16(static_cast<short>(0x8000));
            auto low32 = [&](std::uint64_t i) {
                const auto* s = reinterpret_cast<const __m128i*>(offs + i);
                const __m128i a = _mm_shuffle_epi32(_mm_loadu_si128(s), _MM_SHUFFLE(3, 1, 2, 0));
                const __m128i b =
                    _mm_shuffle_epi32(_mm_loadu_si128(s + 1), _MM_SHUFFLE(3, 1, 2, 0));
                return _mm_sub_epi32(_mm_unpacklo_epi64(a, b), bias32);
            };
            std::uint64_t i = 0;
            for (; i + 8 <= count; i += 8, p += 16) {
                __m128i x = _mm_xor_si128(_mm_packs_epi32(low32(i), low32(i + 4)), bias16);
                x = _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x);
            }
            for (; i < count; ++i, p += 2) {
                put_be(p, offs[static_cast<std::size_t>(i)], 2);
            }
#else
            put_offsets(std::integral_constant<unsigned, 2>{});
#endif
        } else if (osize == 4) {
            put_offsets(std::integral_constant<unsigned, 4>{});
        } else {
            put_offsets(std::integral_constant<unsigned, 8>{});
        }
        std::memset(p, 0, 6);
        p[6] = static_cast<char>(osize);
        p[7] = static_cast<char>(ref_size_);
        put_be(p + 8, next_id_, 8);
        put_be(p + 16, 0, 8);
        put_be(p + 24, table, 8);
        out_.commit(static_cast<std::size_t>(next_id_) * osize + 32);
        return {};
    }

private:
    static unsigned size_for(std::uint64_t n) {
        return n < (1u << 8) ? 1 : n < (1u << 16) ? 2 : n < (std::uint64_t{1} << 32) ? 4 : 8;
    }
    // n is 1, 2, 4 or 8: one byte-swapped store each.
    static void put_be(char* p, std::uint64_t v, unsigned n) {
        switch (n) {
            case 1:
                p[0] = static_cast<char>(v);
                return;
            case 2: {
                auto x = __builtin_bswap16(static_cast<std::uint16_t>(v));
                std::memcpy(p, &x, 2);
                return;
            }
            case 4: {
                auto x = __builtin_bswap32(static_cast<std::uint32_t>(v));
                std::memcpy(p, &x, 4);
                return;
            }
            default: {
                auto x = __builtin_bswap64(v);
                std::memcpy(p, &x, 8);
                return;
            }
        }
    }
    void marker_int(unsigned marker, std::uint64_t v, unsigned n) {
        char* p = out_.prepare(9);
        p[0] = static_cast<char>(marker);
        put_be(p + 1, v, n);
        out_.commit(n + 1);
    }
    void head(unsigned token, std::uint64_t n) {
        if (n < 15) {
            out_.push_back(static_cast<char>(token | n));
            return;
        }
        out_.push_back(static_cast<char>(token | 0x0F));
        unsigned s = size_for(n);
        marker_int(0x10 | (s == 1 ? 0 : s == 2 ? 1 : s == 4 ? 2 : 3), n, s);
    }
    void integer(std::int64_t v) {
        if (v < 0) {
            marker_int(0x13, static_cast<std::uint64_t>(v), 8);
        } else if (v < (1 << 8)) {
            marker_int(0x10, static_cast<std::uint64_t>(v), 1);
        } else if (v < (1 << 16)) {
            marker_int(0x11, static_cast<std::uint64_t>(v), 2);
        } else if (v < (std::int64_t{1} << 32)) {
            marker_int(0x12, static_cast<std::uint64_t>(v), 4);
        } else {
            marker_int(0x13, static_cast<std::uint64_t>(v), 8);
        }
    }
    void wide(int128 v) {
        auto u = static_cast<uint128>(v);
        char* p = out_.prepare(17);
        p[0] = 0x14;
        put_be(p + 1, static_cast<std::uint64_t>(u >> 64), 8);
        put_be(p + 9, static_cast<std::uint64_t>(u), 8);
        out_.commit(17);
    }
    void real(double d) {
        std::uint64_t bits;
        std::memcpy(&bits, &d, 8);
        marker_int(0x23, bits, 8);
    }
    void string(std::string_view s) {
        if (ascii_only(s.data(), s.size())) {
            if (s.size() < 15) {
                char* p = out_.prepare(s.size() + 1);
                p[0] = static_cast<char>(0x50 | s.size());
                std::memcpy(p + 1, s.data(), s.size());
                out_.commit(s.size() + 1);
                return;
            }
            head(0x50, s.size());
            out_.append(s);
            return;
        }
        // UTF-16BE: count the units first (4-byte sequences are two).
        std::uint64_t units = 0;
        for (char c : s) {
            auto u = static_cast<unsigned char>(c);
            if ((u & 0xC0) != 0x80) {
                units += u >= 0xF0 ? 2 : 1;
            }
        }
        head(0x60, units);
        char* p = out_.prepare(static_cast<std::size_t>(units) * 2);
        char* w = p;
        for (std::size_t i = 0; i < s.size();) {
            auto c = static_cast<unsigned char>(s[i]);
            std::uint32_t cp;
            if (c < 0x80) {
                cp = c;
                i += 1;
            } else if (c < 0xE0) {
                cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
                i += 2;
            } else if (c < 0xF0) {
                cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
                     (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
                i += 3;
            } else {
                cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12) |
                     ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) |
                     (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
                i += 4;
            }
            if (cp >= 0x10000) {
                cp -= 0x10000;
                std::uint32_t hi = 0xD800 + (cp >> 10), lo = 0xDC00 + (cp & 0x3FF);
                *w++ = static_cast<char>(hi >> 8);
                *w++ = static_cast<char>(hi);
                *w++ = static_cast<char>(lo >> 8);
                *w++ = static_cast<char>(lo);
            } else {
                *w++ = static_cast<char>(cp >> 8);
                *w++ = static_cast<char>(cp);
            }
        }
        out_.commit(static_cast<std::size_t>(w - p));
    }
    void refs(std::uint64_t first, std::uint64_t n) {
        char* p = out_.prepare(static_cast<std::size_t>(n) * ref_size_);
        auto put = [&](auto width) {
            for (std::uint64_t i = 0; i < n; ++i) {
                put_be(p, first + i, width);
                p += width;
            }
        };
        with_width(ref_size_, put);
        out_.commit(static_cast<std::size_t>(n) * ref_size_);
    }

    // The document in one walk of its tape (which lists the elements in the order the objects
    // are written: a container, then its children): each element's object number is its
    // parent's next free reference, assigned when the parent's references were written; a
    // dict's keys take the first half of its references, its values the second. False, with
    // part of the output written, for what only object() handles.
    bool walk(const document& doc) {
        struct frame {
            std::uint64_t left;  // elements (an array's) or entries (a dict's) still to write
            std::uint64_t id;    // the next element's or key's object number
            std::uint64_t vid;   // the next value's object number (dicts)
            bool dict;
        };
        const std::uint64_t* const t = doc.tape().data();
        const std::size_t size = doc.tape().size();
        const char* const payload = doc.bytes().data();
        const char* const payload_end = payload + doc.bytes().size();
        std::uint64_t* const offsets = offsets_->data();
        const unsigned rs = ref_size_;
        const std::size_t base = base_;
        thread_local std::vector<frame> stack;
        stack.clear();
        stack.push_back({1, 0, 0, false});
        frame* top = &stack.back();
        // The output is written through a local window [o, oend) of the buffer's free space;
        // room() commits what was written and makes room for `n` more bytes.
        out_.prepare(64);
        char* begin = out_.data_mut();
        char* o = begin + out_.size();
        char* oend = begin + out_.capacity();
        // Inlined everywhere: an out-of-line call would keep o, begin and oend in memory.
        auto room = [&](std::size_t n) __attribute__((always_inline)) {
            if (static_cast<std::size_t>(oend - o) < n) {
                out_.commit(static_cast<std::size_t>(o - begin) - out_.size());
                out_.prepare(n);
                begin = out_.data_mut();
                o = begin + out_.size();
                oend = begin + out_.capacity();
            }
        };
        auto flush = [&]() __attribute__((always_inline)) { out_.commit(static_cast<std::size_t>(o - begin) - out_.size()); };
        auto put_head = [&](unsigned token, std::uint64_t n) __attribute__((always_inline)) {
            if (n < 15) {
                *o++ = static_cast<char>(token | n);
                return;
            }
            *o++ = static_cast<char>(token | 0x0F);
            const unsigned w = size_for(n);
            *o++ = static_cast<char>(0x10 | (w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3));
            put_be(o, n, w);
            o += w;
        };
        auto put_marker = [&](unsigned marker, std::uint64_t v, unsigned w)
                              __attribute__((always_inline)) {
            *o++ = static_cast<char>(marker);
            put_be(o, v, w);
            o += w;
        };
        // A string (ASCII as 0x5, others as UTF-16) or bytes element, with room(32) made.
        auto put_text = [&](kind k, std::uint64_t head_word, std::uint64_t n)
                            __attribute__((always_inline)) {
            const char* sp = payload + (head_word & document::payload_mask);
#if defined(__SSE2__)
            // Short, with 16 readable bytes: one load, one check of the first n, one store
            // (the bytes past n are overwritten next or lie past the end).
            if (n < 15 && payload_end - sp >= 16) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sp));
                if (k != kind::string ||
                    (static_cast<unsigned>(_mm_movemask_epi8(v)) & ((1u << n) - 1)) == 0) {
                    *o++ = static_cast<char>((k == kind::string ? 0x50 : 0x40) | n);
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
                    o += n;
                    return;
                }
            }
#endif
            if (k == kind::string && !ascii_only(sp, n)) {
                flush();
                string(std::string_view(sp, n));  // UTF-16
                begin = out_.data_mut();
                o = begin + out_.size();
                oend = begin + out_.capacity();
            } else {
                room(n + 10);
                put_head(k == kind::string ? 0x50 : 0x40, n);
                std::memcpy(o, sp, n);
                o += n;
            }
        };
        std::size_t i = 0;
        while (i < size) {
            room(32);
            std::uint64_t id;
            if (top->dict) {
                // The entry's key (a string, or only object() writes the map), then its value.
                offsets[top->id++] = static_cast<std::uint64_t>(o - begin) - base;
                const std::uint64_t key_word = t[i];
                if (static_cast<kind>(key_word >> document::kind_shift) != kind::string) {
                    flush();
                    return false;
                }
                put_text(kind::string, key_word, t[i + 1]);
                i += 2;
                room(32);
                id = top->vid++;
            } else {
                id = top->id++;
            }
            --top->left;
            offsets[id] = static_cast<std::uint64_t>(o - begin) - base;
            const std::uint64_t head_word = t[i];
            const auto k = static_cast<kind>(head_word >> document::kind_shift);
            switch (k) {
                case kind::boolean_false:
                case kind::boolean_true:
                    *o++ = k == kind::boolean_true ? 0x09 : 0x08;
                    i += 1;
                    break;
                case kind::int64: {
                    const auto v = static_cast<std::int64_t>(t[i + 1]);
                    const auto u = static_cast<std::uint64_t>(v);
                    if (v < 0) {
                        put_marker(0x13, u, 8);
                    } else if (v < (1 << 8)) {
                        put_marker(0x10, u, 1);
                    } else if (v < (1 << 16)) {
                        put_marker(0x11, u, 2);
                    } else if (v < (std::int64_t{1} << 32)) {
                        put_marker(0x12, u, 4);
                    } else {
                        put_marker(0x13, u, 8);
                    }
                    i += 2;
                    break;
                }
                case kind::uint64:
                    *o++ = 0x14;
                    put_be(o, 0, 8);
                    put_be(o + 8, t[i + 1], 8);
                    o += 16;
                    i += 2;
                    break;
                case kind::float64:
                    put_marker(0x23, t[i + 1], 8);
                    i += 2;
                    break;
                case kind::string:
                case kind::bytes:
                    put_text(k, head_word, t[i + 1]);
                    i += 2;
                    break;
                case kind::bignum: {
                    int128 x;
                    if (!parse_int128(value(&doc, i).get_string(), x)) {
                        flush();
                        return false;
                    }
                    const auto u = static_cast<uint128>(x);
                    *o++ = 0x14;
                    put_be(o, static_cast<std::uint64_t>(u >> 64), 8);
                    put_be(o + 8, static_cast<std::uint64_t>(u), 8);
                    o += 16;
                    i += 2;
                    break;
                }
                case kind::timestamp: {
                    value v(&doc, i);
                    epoch_instant e;
                    if (v.get_timestamp_kind() != timestamp_kind::offset_date_time ||
                        !parse_rfc3339(v.get_string(), e)) {
                        flush();
                        return false;
                    }
                    const double d = static_cast<double>(e.seconds - apple_epoch) +
                                     static_cast<double>(e.nanos) / 1e9;
                    std::uint64_t bits;
                    std::memcpy(&bits, &d, 8);
                    put_marker(0x33, bits, 8);
                    i += 2;
                    break;
                }
                case kind::tagged: {
                    value v(&doc, i);
                    value inner = v.tagged_value();
                    if (v.get_tag_space() != tag_space::other || v.tag() != uid_tag ||
                        !(inner.kind() == kind::uint64 ||
                          (inner.kind() == kind::int64 && inner.get_int() >= 0))) {
                        flush();
                        return false;
                    }
                    const std::uint64_t u = inner.get_uint();
                    put_marker(0x80 + uid_width(u) - 1, u, uid_width(u));
                    i += 4;  // the tag's two words and its integer's two
                    break;
                }
                case kind::array:
                case kind::map: {
                    const bool dict = k == kind::map;
                    const std::uint64_t n = t[i + 1];
                    const std::uint64_t nrefs = dict ? 2 * n : n;
                    room(static_cast<std::size_t>(nrefs) * rs + 10 + 16);
                    put_head(dict ? 0xD0 : 0xA0, n);
                    const std::uint64_t first = next_id_;
                    next_id_ += nrefs;
#if defined(__SSE2__)
                    // The references first, first + 1, ...: 16 (one-byte) or 8 (two-byte,
                    // byte-swapped) a store; the lanes past the last are overwritten next.
                    if (rs == 1) {
                        __m128i v = _mm_add_epi8(
                            _mm_set1_epi8(static_cast<char>(first)),
                            _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
                        for (std::uint64_t r = 0; r < nrefs; r += 16) {
                            _mm_storeu_si128(reinterpret_cast<__m128i*>(o + r), v);
                            v = _mm_add_epi8(v, _mm_set1_epi8(16));
                        }
                        o += nrefs;
                    } else if (rs == 2) {
                        __m128i v = _mm_add_epi16(_mm_set1_epi16(static_cast<short>(first)),
                                                  _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));
                        for (std::uint64_t r = 0; r < nrefs; r += 8) {
                            _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 2 * r),
                                             _mm_or_si128(_mm_slli_epi16(v, 8),
                                                          _mm_srli_epi16(v, 8)));
                            v = _mm_add_epi16(v, _mm_set1_epi16(8));
                        }
                        o += 2 * nrefs;
                    } else
#endif
                    if (rs == 1) {
                        for (std::uint64_t r = 0; r < nrefs; ++r) {
                            *o++ = static_cast<char>(first + r);
                        }
                    } else if (rs == 2) {
                        for (std::uint64_t r = 0; r < nrefs; ++r, o += 2) {
                            put_be(o, first + r, 2);
                        }
                    } else {
                        for (std::uint64_t r = 0; r < nrefs; ++r, o += rs) {
                            put_be(o, first + r, rs);
                        }
                    }
                    i += 2;
                    if (n != 0) {
                        stack.push_back({n, first, first + n, dict});
                        top = &stack.back();
                        continue;
                    }
                    break;
                }
                default:  // null: an error, or dropped under lossy=allow
                    flush();
                    return false;
            }
            while (top->left == 0) {
                stack.pop_back();
                if (stack.empty()) {
                    flush();
                    return i == size;
                }
                top = &stack.back();
            }
        }
        flush();
        return false;
    }

    result<void> object(value v, std::uint64_t id) {
        (*offsets_)[static_cast<std::size_t>(id)] = out_.size() - base_;
        switch (v.kind()) {
            case kind::null:
                return fail(unrepresentable(v, "null is not representable in plist"));
            case kind::boolean_false:
                out_.push_back(0x08);
                return {};
            case kind::boolean_true:
                out_.push_back(0x09);
                return {};
            case kind::int64:
                integer(v.get_int());
                return {};
            case kind::uint64:
                wide(static_cast<int128>(v.get_uint()));
                return {};
            case kind::bignum: {
                int128 x;
                if (parse_int128(v.get_string(), x)) {
                    wide(x);
                    return {};
                }
                if (!allow_lossy(pol_.opt, v, "bignum_to_string",
                                 "integer beyond 128 bits written as its decimal text")) {
                    return fail(unrepresentable(
                        v, "integer " + std::string(v.get_string()) +
                               " is beyond the 128 bits of a binary plist integer"));
                }
                string(v.get_string());
                return {};
            }
            case kind::float64:
                real(v.get_double());
                return {};
            case kind::string:
                string(v.get_string());
                return {};
            case kind::bytes:
                head(0x40, v.get_string().size());
                out_.append(v.get_string());
                return {};
            case kind::timestamp: {
                epoch_instant t;
                POLYCODEC_TRY_ASSIGN(is_instant, pol_.instant(v, t));
                if (!is_instant) {
                    string(v.get_string());
                    return {};
                }
                double d = static_cast<double>(t.seconds - apple_epoch) +
                           static_cast<double>(t.nanos) / 1e9;
                real(d);
                out_.data_mut()[out_.size() - 9] = 0x33;
                return {};
            }
            case kind::tagged: {
                value inner = v.tagged_value();
                if (v.get_tag_space() == tag_space::other && v.tag() == uid_tag &&
                    (inner.kind() == kind::int64 || inner.kind() == kind::uint64) &&
                    (inner.kind() == kind::uint64 || inner.get_int() >= 0)) {
                    std::uint64_t u = inner.get_uint();
                    marker_int(0x80 + uid_width(u) - 1, u, uid_width(u));
                    return {};
                }
                POLYCODEC_TRY(drop_tag(pol_.opt, v, "plist"));
                if (inner.kind() == kind::null) {
                    return fail(unrepresentable(inner, "null is not representable in plist"));
                }
                return object(inner, id);
            }
            case kind::array: {
                // Without lossy=allow a null fails where it is met; with it, nulls are left
                // out and must not be counted.
                std::uint64_t n = pol_.opt.lossy ? 0 : v.size();
                if (pol_.opt.lossy) {
                    for (value c : v.items()) {
                        if (c.kind() == kind::null) {
                            POLYCODEC_TRY(pol_.null(c));
                        } else {
                            ++n;
                        }
                    }
                }
                head(0xA0, n);
                std::uint64_t first = next_id_;
                next_id_ += n;
                refs(first, n);
                for (value c : v.items()) {
                    if (c.kind() == kind::null) {
                        if (!pol_.opt.lossy) {
                            POLYCODEC_TRY(pol_.null(c));  // fails: counted above when lossy
                        }
                        continue;
                    }
                    POLYCODEC_TRY(object(c, first++));
                }
                return {};
            }
            case kind::map: {
                std::uint64_t n = pol_.opt.lossy ? 0 : v.size();
                if (pol_.opt.lossy) {
                    for (auto [k, val] : v.entries()) {
                        if (val.kind() == kind::null || k.kind() == kind::null) {
                            POLYCODEC_TRY(pol_.null(val.kind() == kind::null ? val : k));
                        } else {
                            ++n;
                        }
                    }
                }
                head(0xD0, n);
                std::uint64_t first = next_id_;
                next_id_ += 2 * n;
                refs(first, 2 * n);
                std::uint64_t kid = first, vid = first + n;
                for (auto [k, val] : v.entries()) {
                    if (val.kind() == kind::null || k.kind() == kind::null) {
                        if (!pol_.opt.lossy) {
                            POLYCODEC_TRY(pol_.null(val.kind() == kind::null ? val : k));
                        }
                        continue;
                    }
                    (*offsets_)[static_cast<std::size_t>(kid++)] = out_.size() - base_;
                    auto t = key_text(k, pol_, scratch_);
                    if (!t) {
                        return fail(t.error());
                    }
                    string(*t);
                    POLYCODEC_TRY(object(val, vid++));
                }
                return {};
            }
        }
        return {};
    }

    output_buffer& out_;
    plist_policy pol_;
    unsigned ref_size_ = 1;
    std::uint64_t next_id_ = 0;
    std::size_t base_ = 0;
    std::vector<std::uint64_t>* offsets_ = nullptr;
    std::string scratch_;
};

// ===================================================================== XML writer

// Python's repr() of a float, which plistlib writes in <real>.
std::size_t python_repr(double d, char* out) {
    if (std::isnan(d)) {
        std::memcpy(out, "nan", 3);
        return 3;
    }
    if (std::isinf(d)) {
        std::memcpy(out, d < 0 ? "-inf" : "inf", d < 0 ? 4 : 3);
        return d < 0 ? 4 : 3;
    }
    char sci[40];
    auto r = std::to_chars(sci, sci + sizeof sci, d, std::chars_format::scientific);
    std::string_view s(sci, static_cast<std::size_t>(r.ptr - sci));
    std::size_t w = 0;
    if (s[0] == '-') {
        out[w++] = '-';
        s.remove_prefix(1);
    }
    auto epos = s.find('e');
    int exp = std::atoi(std::string(s.substr(epos + 1)).c_str());
    char digits[24];
    std::size_t nd = 0;
    for (char c : s.substr(0, epos)) {
        if (c != '.') {
            digits[nd++] = c;
        }
    }
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            out[w++] = '0';
            out[w++] = '.';
            for (int i = 0; i < -exp - 1; ++i) {
                out[w++] = '0';
            }
            std::memcpy(out + w, digits, nd);
            w += nd;
        } else {
            std::size_t intlen = static_cast<std::size_t>(exp) + 1;
            for (std::size_t i = 0; i < intlen; ++i) {
                out[w++] = i < nd ? digits[i] : '0';
            }
            out[w++] = '.';
            if (nd > intlen) {
                std::memcpy(out + w, digits + intlen, nd - intlen);
                w += nd - intlen;
            } else {
                out[w++] = '0';
            }
        }
        return w;
    }
    out[w++] = digits[0];
    if (nd > 1) {
        out[w++] = '.';
        std::memcpy(out + w, digits + 1, nd - 1);
        w += nd - 1;
    }
    out[w++] = 'e';
    out[w++] = exp < 0 ? '-' : '+';
    int a = exp < 0 ? -exp : exp;
    if (a < 10) {
        out[w++] = '0';
    }
    auto er = std::to_chars(out + w, out + w + 4, a);
    return static_cast<std::size_t>(er.ptr - out);
}

class xml_writer {
public:
    xml_writer(output_buffer& out, const encode_options& opt) : out_(out), pol_{opt} {}

    result<void> write(const document& doc) {
        out_.append(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
            "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
            "<plist version=\"1.0\">\n");
        if (doc.root().kind() == kind::null) {
            POLYCODEC_TRY(pol_.null(doc.root()));
            return fail(unrepresentable(doc.root(), "a null root is not representable in plist"));
        }
        POLYCODEC_TRY(val(doc.root(), 0));
        out_.append("</plist>\n");
        return {};
    }

private:
    void indent(int depth) {
        char* p = out_.prepare(static_cast<std::size_t>(depth));
        std::memset(p, '\t', static_cast<std::size_t>(depth));
        out_.commit(static_cast<std::size_t>(depth));
    }
    void simple(int depth, std::string_view name, std::string_view body) {
        indent(depth);
        out_.push_back('<');
        out_.append(name);
        out_.push_back('>');
        out_.append(body);
        out_.append("</", 2);
        out_.append(name);
        out_.append(">\n", 2);
    }
    // Escaped text; control characters other than tab and LF cannot be in XML 1.0 text (CR is
    // written as &#13; so that it survives line-end normalization).
    result<void> escaped(int depth, std::string_view name, std::string_view s, value v) {
        indent(depth);
        out_.push_back('<');
        out_.append(name);
        out_.push_back('>');
        std::size_t run = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            auto c = static_cast<unsigned char>(s[i]);
            const char* rep = nullptr;
            if (c == '&') {
                rep = "&amp;";
            } else if (c == '<') {
                rep = "&lt;";
            } else if (c == '>') {
                rep = "&gt;";
            } else if (c == '\r') {
                rep = "&#13;";
            } else if (c < 0x20 && c != '\t' && c != '\n') {
                if (!allow_lossy(pol_.opt, v, "control_char_dropped",
                                 "control character dropped from a string")) {
                    return fail(unrepresentable(
                        v, "control character U+00" + std::string(1, "0123456789ABCDEF"[c >> 4]) +
                               "0123456789ABCDEF"[c & 15] +
                               " is not representable in an XML plist (binary=true holds it)"));
                }
                rep = "";
            } else if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
                       (static_cast<unsigned char>(s[i + 2]) == 0xBE ||
                        static_cast<unsigned char>(s[i + 2]) == 0xBF)) {
                // U+FFFE and U+FFFF are not XML characters either.
                if (!allow_lossy(pol_.opt, v, "control_char_dropped",
                                 "non-character U+FFFE/U+FFFF dropped from a string")) {
                    return fail(unrepresentable(
                        v, "U+FFFE and U+FFFF are not representable in an XML plist"));
                }
                out_.append(s.substr(run, i - run));
                i += 2;
                run = i + 1;
                continue;
            }
            if (rep != nullptr) {
                out_.append(s.substr(run, i - run));
                out_.append(rep);
                run = i + 1;
            }
        }
        out_.append(s.substr(run));
        out_.append("</", 2);
        out_.append(name);
        out_.append(">\n", 2);
        return {};
    }
    void integer_text(int depth, std::string_view digits) { simple(depth, "integer", digits); }

    void date(int depth, const epoch_instant& t) {
        char text[32];
        std::size_t n = format_epoch(t.seconds, 0, text);
        simple(depth, "date", {text, n});
    }

    void data(int depth, std::string_view bytes) {
        indent(depth);
        out_.append("<data>\n", 7);
        // plistlib's layout: lines of at most 76 - 8 * depth characters (16 at least).
        int maxline = std::max(16, 76 - 8 * depth);
        std::size_t chunk = static_cast<std::size_t>(maxline / 4 * 3);
        for (std::size_t i = 0; i < bytes.size(); i += chunk) {
            indent(depth);
            base64_encode(out_, bytes.substr(i, chunk));
            out_.push_back('\n');
        }
        indent(depth);
        out_.append("</data>\n", 8);
    }

    result<void> val(value v, int depth) {
        switch (v.kind()) {
            case kind::null:
                return fail(unrepresentable(v, "null is not representable in plist"));
            case kind::boolean_false:
                indent(depth);
                out_.append("<false/>\n", 9);
                return {};
            case kind::boolean_true:
                indent(depth);
                out_.append("<true/>\n", 8);
                return {};
            case kind::int64:
            case kind::uint64: {
                char buf[24];
                auto r = v.kind() == kind::int64 ? std::to_chars(buf, buf + 24, v.get_int())
                                                 : std::to_chars(buf, buf + 24, v.get_uint());
                integer_text(depth, {buf, static_cast<std::size_t>(r.ptr - buf)});
                return {};
            }
            case kind::bignum:
                integer_text(depth, v.get_string());
                return {};
            case kind::float64: {
                char buf[40];
                std::size_t n = python_repr(v.get_double(), buf);
                simple(depth, "real", {buf, n});
                return {};
            }
            case kind::string:
                return escaped(depth, "string", v.get_string(), v);
            case kind::bytes:
                data(depth, v.get_string());
                return {};
            case kind::timestamp: {
                epoch_instant t;
                POLYCODEC_TRY_ASSIGN(is_instant, pol_.instant(v, t));
                if (!is_instant) {
                    return escaped(depth, "string", v.get_string(), v);
                }
                if (t.nanos != 0 &&
                    !allow_lossy(pol_.opt, v, "date_fraction_dropped",
                                 "fraction of a second dropped (an XML plist date has seconds)")) {
                    return fail(unrepresentable(
                        v, "date " + std::string(v.get_string()) +
                               " has a fraction of a second, which an XML plist date cannot "
                               "hold (binary=true keeps it)"));
                }
                date(depth, t);
                return {};
            }
            case kind::tagged: {
                value inner = v.tagged_value();
                if (v.get_tag_space() == tag_space::other && v.tag() == uid_tag &&
                    (inner.kind() == kind::uint64 ||
                     (inner.kind() == kind::int64 && inner.get_int() >= 0))) {
                    // Apple's XML form of a UID (plutil, CFPropertyList).
                    indent(depth);
                    out_.append("<dict>\n");
                    simple(depth + 1, "key", "CF$UID");
                    POLYCODEC_TRY(val(inner, depth + 1));
                    indent(depth);
                    out_.append("</dict>\n");
                    return {};
                }
                POLYCODEC_TRY(drop_tag(pol_.opt, v, "plist"));
                return val(inner, depth);
            }
            case kind::array: {
                bool any = false;
                for (value c : v.items()) {
                    if (c.kind() == kind::null) {
                        POLYCODEC_TRY(pol_.null(c));
                        continue;
                    }
                    if (!any) {
                        indent(depth);
                        out_.append("<array>\n", 8);
                        any = true;
                    }
                    POLYCODEC_TRY(val(c, depth + 1));
                }
                indent(depth);
                out_.append(any ? "</array>\n" : "<array/>\n");
                return {};
            }
            case kind::map: {
                bool any = false;
                for (auto [k, c] : v.entries()) {
                    if (c.kind() == kind::null || k.kind() == kind::null) {
                        POLYCODEC_TRY(pol_.null(c.kind() == kind::null ? c : k));
                        continue;
                    }
                    if (!any) {
                        indent(depth);
                        out_.append("<dict>\n", 7);
                        any = true;
                    }
                    auto t = key_text(k, pol_, scratch_);
                    if (!t) {
                        return fail(t.error());
                    }
                    POLYCODEC_TRY(escaped(depth + 1, "key", *t, k));
                    POLYCODEC_TRY(val(c, depth + 1));
                }
                indent(depth);
                out_.append(any ? "</dict>\n" : "<dict/>\n");
                return {};
            }
        }
        return {};
    }

    output_buffer& out_;
    plist_policy pol_;
    std::string scratch_;
};

result<void> encode_plist(const document& doc, output_buffer& out, const encode_options& opt) {
    if (opt.plist_binary) {
        bplist_writer w(out, opt);
        return w.write(doc);
    }
    xml_writer w(out, opt);
    return w.write(doc);
}

}  // namespace

const codec_functions plist_codec{decode_plist, encode_plist};

}  // namespace polycodec::detail
