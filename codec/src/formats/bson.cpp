// BSON 1.1 (bsonspec.org): every element type. The types JSON lacks become tagged values
// (tag_space::bson) whose Extended JSON v2 forms detail/extjson.hpp defines; the encoder
// recognises those forms again. See docs/formats/bson.md for every mapping.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "detail/describe.hpp"
#include "detail/extjson.hpp"
#include "detail/fast_decode.hpp"
#include "detail/kept_error.hpp"
#include "detail/key_text.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/number.hpp"
#include "detail/tape_writer.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

namespace ej = extjson;

inline std::uint32_t load_le32(const char* p) noexcept {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return static_cast<std::uint32_t>(u[0]) | static_cast<std::uint32_t>(u[1]) << 8 |
           static_cast<std::uint32_t>(u[2]) << 16 | static_cast<std::uint32_t>(u[3]) << 24;
}

inline std::uint64_t load_le64(const char* p) noexcept {
    return static_cast<std::uint64_t>(load_le32(p)) | static_cast<std::uint64_t>(load_le32(p + 4))
                                                          << 32;
}

// ---- reader ----

class bson_reader : kept_error {
public:
    bson_reader(std::string_view in, builder& b) : in_(in), b_(b) {}

    result<void> run() {
        const bool ok = parse_document(0, in_.size(), false);
        return read_outcome(ok, pos_, in_.size(), "expected end of input after the document");
    }

private:
    static std::string hex_byte(unsigned char c) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02x", c);
        return buf;
    }


    [[gnu::cold]] [[gnu::noinline]] bool container_limit(std::size_t at) {
        return set_error(limit_error(b_, at));
    }

    // `n` bytes at pos_ must lie before `limit` (the enclosing document's terminator).
    // An int32 (n = 4) or int64 (n = 8) element's little-endian value, as an int of that width.
    bool read_int(std::size_t limit, std::size_t n, const char* what, int_width width) {
        if (!need(n, limit, what)) {
            return false;
        }
        const char* s = in_.data() + pos_;
        b_.add_int(n == 4 ? static_cast<std::int32_t>(load_le32(s))
                          : static_cast<std::int64_t>(load_le64(s)),
                   width);
        pos_ += n;
        return true;
    }

    bool need(std::size_t n, std::size_t limit, const char* what) {
        if (pos_ <= limit && n <= limit - pos_) [[likely]] {
            return true;
        }
        return need_failed(n, limit, what);
    }

    [[gnu::cold]] [[gnu::noinline]] bool need_failed(std::size_t n, std::size_t limit,
                                                     const char* what) {
        return set_error(make_error(
            limit == in_.size() ? errc::unexpected_eof : errc::malformed, pos_,
            std::string("expected ") + std::to_string(n) + " bytes of " + what +
                ", the enclosing document ends after " + std::to_string(limit - pos_)));
    }

    // document ::= int32 e_list "\x00". The length is checked against `limit` (the end of the
    // input or of the enclosing element) before anything is read.
    bool parse_document(std::size_t start, std::size_t limit, bool array) {
        pos_ = start;
        if (limit - start < 4) {
            return set_error(make_error(limit == in_.size() ? errc::unexpected_eof : errc::malformed,
                                   start, "expected a 4-byte document length"));
        }
        auto len = static_cast<std::int32_t>(load_le32(in_.data() + start));
        if (len < 5) {
            return set_error(make_error(
                errc::malformed, start,
                "document length " + std::to_string(len) + " is less than the minimum of 5"));
        }
        if (static_cast<std::size_t>(len) > limit - start) {
            return set_error(make_error(errc::size_exceeded, start,
                                   "document length " + std::to_string(len) + " exceeds the " +
                                       std::to_string(limit - start) +
                                       (limit == in_.size() ? " bytes of input left"
                                                            : " bytes its element has left")));
        }
        std::size_t end = start + static_cast<std::size_t>(len);
        std::size_t term = end - 1;
        if (in_[term] != 0) {
            return set_error(make_error(errc::malformed, term,
                                   "expected 0x00 at the end of the document, saw " +
                                       hex_byte(static_cast<unsigned char>(in_[term]))));
        }
        if (!(array ? b_.begin_array() : b_.begin_map())) {
            return container_limit(start);
        }
        std::size_t key_base = keys_.size();
        pos_ = start + 4;
        for (;;) {
            std::size_t type_at = pos_;
            auto type = static_cast<unsigned char>(in_[pos_]);
            if (type == 0) {
                if (pos_ != term) {
                    return set_error(make_error(errc::malformed, pos_,
                                           "document terminator 0x00 before its declared end at "
                                           "byte " +
                                               std::to_string(term)));
                }
                break;
            }
            ++pos_;
            // e_name ::= cstring: UTF-8 without NUL, then 0x00.
            const void* nul = std::memchr(in_.data() + pos_, 0, term - pos_);
            if (nul == nullptr) {
                return set_error(make_error(errc::malformed, pos_,
                                       "element name runs past the end of its document"));
            }
            std::size_t key_end =
                static_cast<std::size_t>(static_cast<const char*>(nul) - in_.data());
            std::string_view key = in_.substr(pos_, key_end - pos_);
            std::size_t valid = utf8_valid_prefix(key);
            if (valid != key.size()) {
                return set_error(
                    make_error(errc::invalid_utf8, pos_ + valid, "invalid UTF-8 in element name"));
            }
            if (array) {
                // Array elements are read by position whatever their names: the BSON
                // specification asks decoders to accept names other than "0", "1", ... (the
                // encoder writes them canonically).
            } else {
                keys_.push_back(key);
                b_.add_string(key);
            }
            pos_ = key_end + 1;
            if (!parse_element(type, type_at, term)) {
                return false;
            }
        }
        if (!array) {
            if (!check_unique(key_base)) {
                return false;
            }
        }
        keys_.resize(key_base);
        if (array) {
            b_.end_array();
        } else {
            b_.end_map();
        }
        pos_ = end;
        return true;
    }

    // Documents with a key twice are refused: MongoDB and most drivers treat documents as
    // maps, and a map cannot keep both values.
    bool check_unique(std::size_t base) {
        std::size_t n = keys_.size() - base;
        if (n < 2) {
            return true;
        }
        const std::string_view* k = keys_.data() + base;
        const std::string_view* dup = nullptr;
        if (n <= 16) {
            for (std::size_t i = 1; i < n && dup == nullptr; ++i) {
                for (std::size_t j = 0; j < i; ++j) {
                    if (k[i] == k[j]) {
                        dup = &k[i];
                        break;
                    }
                }
            }
        } else {
            sorted_.assign(k, k + n);
            std::sort(sorted_.begin(), sorted_.end());
            for (std::size_t i = 1; i < n; ++i) {
                if (sorted_[i] == sorted_[i - 1]) {
                    // Report the later of the two.
                    dup = sorted_[i].data() > sorted_[i - 1].data() ? &sorted_[i] : &sorted_[i - 1];
                    break;
                }
            }
        }
        if (dup == nullptr) {
            return true;
        }
        std::size_t at = static_cast<std::size_t>(dup->data() - in_.data());
        return set_error(make_error(errc::duplicate_key, at,
                               "duplicate element name '" + std::string(*dup) + "'"));
    }

    // string ::= int32 (byte*) "\x00", the length counting the NUL.
    bool read_string(std::size_t limit, std::string_view& out) {
        if (!need(4, limit, "string length")) {
            return false;
        }
        std::size_t at = pos_;
        auto len = static_cast<std::int32_t>(load_le32(in_.data() + pos_));
        pos_ += 4;
        if (len < 1) {
            return set_error(make_error(errc::malformed, at,
                                   "string length " + std::to_string(len) +
                                       " is less than 1 (it counts the final 0x00)"));
        }
        if (static_cast<std::size_t>(len) > limit - pos_) {
            return set_error(make_error(errc::size_exceeded, at,
                                   "string length " + std::to_string(len) + " exceeds the " +
                                       std::to_string(limit - pos_) +
                                       " bytes left in its document"));
        }
        std::size_t last = pos_ + static_cast<std::size_t>(len) - 1;
        if (in_[last] != 0) {
            return set_error(make_error(errc::malformed, last,
                                   "expected 0x00 at the end of the string, saw " +
                                       hex_byte(static_cast<unsigned char>(in_[last]))));
        }
        out = in_.substr(pos_, static_cast<std::size_t>(len) - 1);
        std::size_t valid = utf8_valid_prefix(out);
        if (valid != out.size()) {
            return set_error(make_error(errc::invalid_utf8, pos_ + valid, "invalid UTF-8 in string"));
        }
        pos_ = last + 1;
        return true;
    }

    bool read_cstring(std::size_t limit, std::string_view& out) {
        if (pos_ >= limit) {
            return need(1, limit, "cstring");
        }
        const void* nul = std::memchr(in_.data() + pos_, 0, limit - pos_);
        if (nul == nullptr) {
            return set_error(
                make_error(errc::malformed, pos_, "cstring runs past the end of its document"));
        }
        std::size_t e = static_cast<std::size_t>(static_cast<const char*>(nul) - in_.data());
        out = in_.substr(pos_, e - pos_);
        std::size_t valid = utf8_valid_prefix(out);
        if (valid != out.size()) {
            return set_error(make_error(errc::invalid_utf8, pos_ + valid, "invalid UTF-8 in cstring"));
        }
        pos_ = e + 1;
        return true;
    }

    bool tagged(std::uint64_t tag) { return b_.begin_tagged(tag, tag_space::bson); }

    // The map of a tagged element of two entries (DBPointer, code with scope): the tag, the
    // map, `first`: `value` and the key `second`, whose value the caller adds before end_map().
    bool open_tagged_pair(std::uint64_t tag, std::size_t at, std::string_view first,
                          std::string_view value, std::string_view second) {
        if (!tagged(tag) || !b_.begin_map()) {
            return container_limit(at);
        }
        b_.add_string(first);
        b_.add_string(value);
        b_.add_string(second);
        return true;
    }

    // One element's value, which must end before `limit` (its document's terminator).
    bool parse_element(unsigned char type, std::size_t type_at, std::size_t limit) {
        std::size_t at = pos_;
        switch (type) {
            case ej::t_double: {
                if (!need(8, limit, "double")) {
                    return false;
                }
                std::uint64_t bits = load_le64(in_.data() + pos_);
                double d;
                std::memcpy(&d, &bits, 8);
                b_.add_double(d);
                pos_ += 8;
                return true;
            }
            case ej::t_string:
            case ej::t_code:
            case ej::t_symbol: {
                std::string_view s;
                if (!read_string(limit, s)) {
                    return false;
                }
                if (type != ej::t_string && !tagged(type)) {
                    return container_limit(at);
                }
                b_.add_string(s);
                return true;
            }
            case ej::t_document:
            case ej::t_array:
                return parse_document(pos_, limit, type == ej::t_array);
            case ej::t_binary: {
                if (!need(5, limit, "binary length and subtype")) {
                    return false;
                }
                auto len = static_cast<std::int32_t>(load_le32(in_.data() + pos_));
                auto sub = static_cast<unsigned char>(in_[pos_ + 4]);
                pos_ += 5;
                if (len < 0) {
                    return set_error(make_error(errc::malformed, at,
                                           "negative binary length " + std::to_string(len)));
                }
                if (static_cast<std::size_t>(len) > limit - pos_) {
                    return set_error(make_error(errc::size_exceeded, at,
                                           "binary length " + std::to_string(len) +
                                               " exceeds the " + std::to_string(limit - pos_) +
                                               " bytes left in its document"));
                }
                std::string_view data = in_.substr(pos_, static_cast<std::size_t>(len));
                if (sub == 0x02) {
                    // The old binary subtype repeats the length inside: int32 (byte*).
                    if (len < 4 || static_cast<std::int32_t>(load_le32(data.data())) != len - 4) {
                        return set_error(make_error(errc::malformed, pos_,
                                               "binary subtype 0x02 needs an inner length of " +
                                                   std::to_string(len - 4)));
                    }
                    data.remove_prefix(4);
                }
                pos_ += static_cast<std::size_t>(len);
                if (sub == 0) {
                    b_.add_bytes(data);
                    return true;
                }
                if (!tagged(ej::binary_tag(sub))) {
                    return container_limit(at);
                }
                b_.add_bytes(data);
                return true;
            }
            case ej::t_undefined:
            case ej::t_min_key:
            case ej::t_max_key:
                if (!tagged(type)) {
                    return container_limit(at);
                }
                b_.add_null();
                return true;
            case ej::t_object_id:
                if (!need(12, limit, "ObjectId")) {
                    return false;
                }
                if (!tagged(ej::t_object_id)) {
                    return container_limit(at);
                }
                b_.add_bytes(in_.substr(pos_, 12));
                pos_ += 12;
                return true;
            case ej::t_bool: {
                if (!need(1, limit, "boolean")) {
                    return false;
                }
                auto c = static_cast<unsigned char>(in_[pos_]);
                if (c > 1) {
                    return set_error(make_error(errc::malformed, pos_,
                                           "expected boolean 0x00 or 0x01, saw " + hex_byte(c)));
                }
                b_.add_bool(c == 1);
                ++pos_;
                return true;
            }
            case ej::t_datetime: {
                if (!need(8, limit, "UTC datetime")) {
                    return false;
                }
                auto ms = static_cast<std::int64_t>(load_le64(in_.data() + pos_));
                pos_ += 8;
                text_.clear();
                if (ej::format_datetime(ms, text_)) {
                    b_.add_timestamp(text_, timestamp_kind::offset_date_time);
                    return true;
                }
                // Outside years 0000-9999: no RFC 3339 text, keep the milliseconds.
                if (!tagged(ej::t_datetime)) {
                    return container_limit(at);
                }
                b_.add_int(ms);
                return true;
            }
            case ej::t_null:
                b_.add_null();
                return true;
            case ej::t_regex: {
                std::string_view pattern, options;
                if (!read_cstring(limit, pattern)) {
                    return false;
                }
                if (!read_cstring(limit, options)) {
                    return false;
                }
                // bsonspec.org: options "must be stored in alphabetical order" (an unsorted
                // set would not come back as written; found by fuzz_decode_bson).
                if (!std::is_sorted(options.begin(), options.end())) {
                    return set_error(make_error(errc::malformed, pos_ - options.size() - 1,
                                           "regex options are not in alphabetical order"));
                }
                if (!tagged(ej::t_regex) || !b_.begin_map()) {
                    return container_limit(at);
                }
                b_.add_string("pattern");
                b_.add_string(pattern);
                b_.add_string("options");
                b_.add_string(options);
                b_.end_map();
                return true;
            }
            case ej::t_db_pointer: {
                std::string_view ns;
                if (!read_string(limit, ns)) {
                    return false;
                }
                if (!need(12, limit, "DBPointer ObjectId")) {
                    return false;
                }
                if (!open_tagged_pair(ej::t_db_pointer, at, "$ref", ns, "$id")) {
                    return false;
                }
                if (!tagged(ej::t_object_id)) {
                    return container_limit(at);
                }
                b_.add_bytes(in_.substr(pos_, 12));
                pos_ += 12;
                b_.end_map();
                return true;
            }
            case ej::t_code_w_scope: {
                // code_w_s ::= int32 string document, the int32 counting all of it.
                if (!need(4, limit, "code with scope length")) {
                    return false;
                }
                auto total = static_cast<std::int32_t>(load_le32(in_.data() + pos_));
                if (total < 14) {
                    return set_error(make_error(errc::malformed, at,
                                           "code with scope length " + std::to_string(total) +
                                               " is less than the minimum of 14"));
                }
                if (static_cast<std::size_t>(total) > limit - pos_) {
                    return set_error(make_error(errc::size_exceeded, at,
                                           "code with scope length " + std::to_string(total) +
                                               " exceeds the " + std::to_string(limit - pos_) +
                                               " bytes left in its document"));
                }
                std::size_t end = pos_ + static_cast<std::size_t>(total);
                pos_ += 4;
                std::string_view code;
                if (!read_string(end, code)) {
                    return false;
                }
                if (!open_tagged_pair(ej::t_code_w_scope, at, "$code", code, "$scope")) {
                    return false;
                }
                if (!parse_document(pos_, end, false)) {
                    return false;
                }
                if (pos_ != end) {
                    return set_error(make_error(errc::malformed, pos_,
                                           "code with scope length " + std::to_string(total) +
                                               " does not match its content"));
                }
                b_.end_map();
                return true;
            }
            case ej::t_int32:
                return read_int(limit, 4, "int32", int_width::bits32);
            case ej::t_timestamp:
                if (!need(8, limit, "timestamp")) {
                    return false;
                }
                if (!tagged(ej::t_timestamp)) {
                    return container_limit(at);
                }
                b_.add_uint(load_le64(in_.data() + pos_));
                pos_ += 8;
                return true;
            case ej::t_int64:
                return read_int(limit, 8, "int64", int_width::bits64);
            case ej::t_decimal128: {
                if (!need(16, limit, "decimal128")) {
                    return false;
                }
                text_.clear();
                const auto* bid = reinterpret_cast<const unsigned char*>(in_.data() + pos_);
                decimal128::to_string(bid, text_);
                // A NaN other than the plain quiet one (a sign, a payload, the signalling bit)
                // keeps its 16 bytes, as no decimal text holds those, so BSON -> BSON is
                // byte-identical. (A non-canonical coefficient is the value 0, as the
                // specification says, and is read as "0".)
                unsigned char again[16];
                bool exact = text_ != "NaN" || (decimal128::from_string(text_, again) &&
                                                 std::memcmp(again, bid, 16) == 0);
                pos_ += 16;
                if (!tagged(ej::t_decimal128)) {
                    return container_limit(at);
                }
                if (exact) {
                    b_.add_string(text_);
                } else {
                    b_.add_bytes({in_.data() + pos_ - 16, 16});
                }
                return true;
            }
            default:
                return set_error(
                    make_error(errc::malformed, type_at, "unknown element type " + hex_byte(type)));
        }
    }

    std::string_view in_;
    builder& b_;
    std::size_t pos_ = 0;
    // Per-thread scratch, reused so that steady-state decoding allocates nothing.
    struct scratch_buffers {
        std::vector<std::string_view> keys;  // names of the open documents, innermost last
        std::vector<std::string_view> sorted;
        std::string text;

        scratch_buffers& cleared() noexcept {
            keys.clear();
            sorted.clear();
            text.clear();
            return *this;
        }
    };
    static scratch_buffers& thread_scratch() {
        thread_local scratch_buffers s;
        return s.cleared();
    }
    scratch_buffers& scratch_ = thread_scratch();
    std::vector<std::string_view>& keys_ = scratch_.keys;
    std::vector<std::string_view>& sorted_ = scratch_.sorted;
    std::string& text_ = scratch_.text;
};

// ---- fast path ----
//
// One iterative loop that writes the tape and the payload bytes directly (detail::tape_writer),
// as MessagePack's fast path does. It takes the common element types (double,
// string, document, array, binary subtype 0, bool, UTC datetime in years 0000-9999, null,
// int32, int64) of valid input within the limits; on anything else, any error, any limit or
// a duplicate key it returns false, and decode_bson resets the builder and runs bson_reader
// above, which decides (and words) every error exactly as before. On success the tape is the
// one bson_reader would have built.

using detail::tape_word;

struct fast_frame {
    std::size_t start;    // tape index of the header
    std::size_t term;     // input index of the document's terminating 0x00
    std::uint64_t count;  // elements (array) or entries (map) so far
    std::size_t key_base; // first of this document's keys in fast_keys
    std::uint64_t filter; // the open child's parent's key filter, kept while the child is open
    std::uint64_t clash;  // and its clashes (see decode_bson_fast)
    bool array;
};

constexpr std::size_t fast_max_frames = 64;     // deeper input takes bson_reader
using fast_writer = detail::tape_writer<256, 2048, false>;  // steps: 256 words, 2 KiB

// A key seen in an open document: a cheap fingerprint (length and first 8 bytes) to compare
// first, and the text.
struct fast_key {
    std::uint64_t fp;
    const char* s;
    std::size_t n;
};

// From the key's first 8 bytes as a little-endian word (the bytes past n in it are ignored).
inline std::uint64_t key_fingerprint(std::uint64_t first8, std::size_t n) noexcept {
    const std::uint64_t a = n < 8 ? first8 & ((std::uint64_t{1} << (8 * n)) - 1) : first8;
    return a ^ (static_cast<std::uint64_t>(n) * 0x9E3779B97F4A7C15ULL);
}
inline std::uint64_t key_fingerprint(const char* s, std::size_t n) noexcept {
    std::uint64_t a = 0;
    std::memcpy(&a, s, n < 8 ? n : 8);
    return key_fingerprint(a, n);
}

// A key's bit in a 64-bit filter of fingerprints: keys with different bits differ.
inline std::uint64_t key_filter_bit(std::uint64_t fp) noexcept {
    return std::uint64_t{1} << ((fp * 0x9E3779B97F4A7C15ULL) >> 58);
}

// True when two keys of k[0..n) are equal.
[[gnu::noinline]] bool has_duplicate(fast_key* k, std::size_t n,
                                     std::vector<fast_key>& sorted) {
    if (n <= 16) {
        // A 64-bit filter of the fingerprints; only a key whose bit is already set is compared
        // with the keys before it.
        std::uint64_t filter = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t bit = key_filter_bit(k[i].fp);
            if ((filter & bit) != 0) {
                for (std::size_t j = 0; j < i; ++j) {
                    if (k[i].fp == k[j].fp && k[i].n == k[j].n &&
                        std::memcmp(k[i].s, k[j].s, k[i].n) == 0) {
                        return true;
                    }
                }
            }
            filter |= bit;
        }
        return false;
    }
    sorted.assign(k, k + n);
    std::sort(sorted.begin(), sorted.end(), [](const fast_key& a, const fast_key& b) {
        return a.fp != b.fp ? a.fp < b.fp
                            : std::string_view(a.s, a.n) < std::string_view(b.s, b.n);
    });
    for (std::size_t i = 1; i < n; ++i) {
        if (sorted[i].fp == sorted[i - 1].fp &&
            std::string_view(sorted[i].s, sorted[i].n) ==
                std::string_view(sorted[i - 1].s, sorted[i - 1].n)) {
            return true;
        }
    }
    return false;
}

struct fast_scratch {
    std::vector<fast_key> keys;
    std::vector<fast_key> sorted;
    std::string text;
};

bool decode_bson_fast(std::string_view in, builder& b) {
    const char* const p = in.data();
    const std::size_t size = in.size();
    const std::size_t max_depth = std::min<std::size_t>(b.limits().max_depth, fast_max_frames);
    const std::size_t max_bytes = b.limits().max_bytes;
    thread_local fast_scratch scratch;
    std::vector<fast_key>& keys = scratch.keys;
    keys.clear();

    fast_writer tw(b);

    // frames[1] is the root document; frames[0] is never used (top == frames: none open yet).
    fast_frame frames[fast_max_frames + 1];
    fast_frame* top = frames;
    std::size_t pos = 0;
    std::size_t limit = size;  // where the next document must end (its parent's terminator)
    bool array = false;        // the next document is an array
    // The open map's filter of its keys' bits (key_filter_bit) and the bits seen twice: a map
    // whose keys all have different bits has no duplicate, and skips has_duplicate.
    std::uint64_t filter = 0;
    std::uint64_t clash = 0;

    // Opens the document at pos (the root, or an element of type 0x03 / 0x04).
open_document: {
    if (limit - pos < 4) {
        return false;
    }
    const auto len = static_cast<std::int32_t>(load_le32(p + pos));
    if (len < 5 || static_cast<std::size_t>(len) > limit - pos) {
        return false;
    }
    const std::size_t term = pos + static_cast<std::size_t>(len) - 1;
    if (p[term] != 0) {
        return false;
    }
    const std::size_t depth = static_cast<std::size_t>(top - frames);  // open documents
    if (depth >= max_depth || tw.over_budget(max_bytes)) {
        return false;
    }
    std::uint64_t* const w = tw.words(2);
    top->filter = filter;
    top->clash = clash;
    filter = 0;
    clash = 0;
    ++top;
    *top = {tw.size(), term, 0, keys.size(), 0, 0, array};
    tw.open(w, array ? kind::array : kind::map, 0);  // the count is set when it closes
    pos += 4;
}

    for (;;) {
        const auto type = static_cast<unsigned char>(p[pos]);
        const std::size_t term = top->term;
        if (type == 0) {
            if (pos != term) {
                return false;
            }
            // Close the document.
            if (!top->array) {
                const std::size_t nk = keys.size() - top->key_base;
                if (clash != 0 &&
                    has_duplicate(keys.data() + top->key_base, nk, scratch.sorted)) {
                    return false;
                }
                keys.resize(top->key_base);
            }
            tw.close(top->start, top->count);
            pos = term + 1;
            if (top == frames + 1) {
                break;
            }
            --top;
            filter = top->filter;
            clash = top->clash;
            ++top->count;
            continue;
        }
        ++pos;
        // e_name: a cstring ending before the terminator.
        std::size_t key_len;
        std::uint64_t key_fp = 0;
        bool short_key = false;
#if defined(__SSE2__)
        if (size - pos >= 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos));
            const unsigned zero =
                static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
            if (zero != 0) {
                key_len = static_cast<unsigned>(__builtin_ctz(zero));
                if (key_len >= term - pos) {
                    return false;
                }
                const unsigned high = static_cast<unsigned>(_mm_movemask_epi8(v));
                if ((high & ((1u << key_len) - 1)) != 0 &&
                    utf8_valid_prefix({p + pos, key_len}) != key_len) {
                    return false;
                }
                if (!top->array) {
                    char* const dst = tw.hot_bytes(16);
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), v);
                    key_fp = key_fingerprint(
                        static_cast<std::uint64_t>(_mm_cvtsi128_si64(v)), key_len);
                }
                short_key = true;
            }
        }
#endif
        if (!short_key) {
            const void* nul = std::memchr(p + pos, 0, term - pos);
            if (nul == nullptr) {
                return false;
            }
            key_len = static_cast<std::size_t>(static_cast<const char*>(nul) - (p + pos));
            if (utf8_valid_prefix({p + pos, key_len}) != key_len) {
                return false;
            }
            if (!top->array) {
                char* const dst = tw.bytes(key_len);
                std::memcpy(dst, p + pos, key_len);
                key_fp = key_fingerprint(p + pos, key_len);
            }
        }
        std::uint64_t* w = tw.words(4);
        if (top->array) {
            // Array elements are read by position whatever their names (as bson_reader).
        } else {
            keys.push_back({key_fp, p + pos, key_len});
            const std::uint64_t bit = key_filter_bit(key_fp);
            clash |= filter & bit;
            filter |= bit;
            tw.payload(w, kind::string, 0, key_len);
            w += 2;
        }
        pos += key_len + 1;
        // The value, which must end before term.
        switch (type) {
            case ej::t_double:
            case ej::t_int64:
                if (term - pos < 8) {
                    return false;
                }
                w[0] = type == ej::t_double
                           ? tape_word(kind::float64, 0, 0)
                           : tape_word(kind::int64,
                                       static_cast<std::uint64_t>(int_width::bits64), 0);
                w[1] = load_le64(p + pos);
                pos += 8;
                tw.advance(2);
                break;
            case ej::t_int32:
                if (term - pos < 4) {
                    return false;
                }
                w[0] = tape_word(kind::int64, static_cast<std::uint64_t>(int_width::bits32), 0);
                w[1] = static_cast<std::uint64_t>(
                    static_cast<std::int64_t>(static_cast<std::int32_t>(load_le32(p + pos))));
                pos += 4;
                tw.advance(2);
                break;
            case ej::t_string: {
                if (term - pos < 4) {
                    return false;
                }
                const auto len = static_cast<std::int32_t>(load_le32(p + pos));
                pos += 4;
                if (len < 1 || static_cast<std::size_t>(len) > term - pos) {
                    return false;
                }
                const std::size_t n = static_cast<std::size_t>(len) - 1;
                if (p[pos + n] != 0) {
                    return false;
                }
                const char* s = p + pos;
#if defined(__SSE2__)
                if (n <= 32 && size - pos >= 32) {
                    // Copy 32 bytes (the bytes past n are overwritten by the next payload or
                    // cut at the end) and check the first n for ASCII at once.
                    char* const dst = tw.hot_bytes(32);
                    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
                    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), lo);
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 16), hi);
                    const std::uint64_t high =
                        static_cast<std::uint32_t>(_mm_movemask_epi8(lo)) |
                        static_cast<std::uint64_t>(
                            static_cast<std::uint32_t>(_mm_movemask_epi8(hi)))
                            << 16;
                    if ((high & ((std::uint64_t{1} << n) - 1)) != 0 &&
                        utf8_valid_prefix({s, n}) != n) {
                        return false;
                    }
                } else
#endif
                {
                    if (utf8_valid_prefix({s, n}) != n) {
                        return false;
                    }
                    char* const dst = tw.bytes(n);
                    std::memcpy(dst, s, n);
                }
                tw.payload(w, kind::string, 0, n);
                pos += n + 1;
                break;
            }
            case ej::t_document:
            case ej::t_array:
                limit = term;
                array = type == ej::t_array;
                goto open_document;
            case ej::t_binary: {
                if (term - pos < 5) {
                    return false;
                }
                const auto len = static_cast<std::int32_t>(load_le32(p + pos));
                if (p[pos + 4] != 0 || len < 0 ||
                    static_cast<std::size_t>(len) > term - pos - 5) {
                    return false;
                }
                pos += 5;
                const std::size_t n = static_cast<std::size_t>(len);
                char* const dst = tw.bytes(n);
                std::memcpy(dst, p + pos, n);
                tw.payload(w, kind::bytes, 0, n);
                pos += n;
                break;
            }
            case ej::t_bool: {
                if (term - pos < 1) {
                    return false;
                }
                const auto c = static_cast<unsigned char>(p[pos]);
                if (c > 1) {
                    return false;
                }
                w[0] = tape_word(c == 1 ? kind::boolean_true : kind::boolean_false, 0, 0);
                ++pos;
                tw.advance(1);
                break;
            }
            case ej::t_null:
                w[0] = tape_word(kind::null, 0, 0);
                tw.advance(1);
                break;
            case ej::t_datetime: {
                if (term - pos < 8) {
                    return false;
                }
                const auto ms = static_cast<std::int64_t>(load_le64(p + pos));
                scratch.text.clear();
                if (!ej::format_datetime(ms, scratch.text)) {
                    return false;
                }
                const std::size_t n = scratch.text.size();
                char* const dst = tw.bytes(n);
                std::memcpy(dst, scratch.text.data(), n);
                tw.payload(w, kind::timestamp,
                           static_cast<std::uint64_t>(timestamp_kind::offset_date_time), n);
                pos += 8;
                break;
            }
            default:
                return false;
        }
        ++top->count;
    }

    return fast_finish(tw, pos, size, max_bytes);
}

result<void> decode_bson(std::string_view in, builder& b, const decode_options&) {
    return fast_or_read(
        b, true, [&] { return decode_bson_fast(in, b); }, [&] { return bson_reader(in, b).run(); });
}

// ---- writer ----

class bson_writer : public kept_error {
public:
    bson_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    bool write_root(value v) {
        if (v.kind() == kind::map) {
            return write_document(v);
        }
        if (!allow_lossy(opt_, v, "root_wrapped", "non-map root wrapped as {\"root\": ...}")) {
            return set_error(unrepresentable(
                v, "a bson document must be a map at the root, not " + kind_name(v)));
        }
        std::size_t start = out_.size();
        put32(0);
        if (!write_element("root", v)) {
            return false;
        }
        out_.push_back(0);
        patch32(start, static_cast<std::uint32_t>(out_.size() - start));
        return true;
    }

private:
    static std::string kind_name(value v) {
        switch (v.kind()) {
            case kind::array:
                return "an array";
            case kind::null:
                return "null";
            case kind::string:
                return "a string";
            default:
                return "a scalar";
        }
    }

    void put32(std::uint32_t v) {
        char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 24)};
        out_.append(b, 4);
    }
    void put64(std::uint64_t v) {
        put32(static_cast<std::uint32_t>(v));
        put32(static_cast<std::uint32_t>(v >> 32));
    }
    void patch32(std::size_t at, std::uint32_t v) {
        char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 24)};
        out_.overwrite(at, b, 4);
    }
    void put_string(std::string_view s) {
        put32(static_cast<std::uint32_t>(s.size() + 1));
        out_.append(s);
        out_.push_back(0);
    }
    void put_cstring(std::string_view s) {
        out_.append(s);
        out_.push_back(0);
    }

    // The key of a map entry as element-name text: strings (no NUL), integers as decimal text.
    bool key_text(value k, std::string& scratch, std::string_view& text) {
        if (!key_text_view(k, scratch, text)) {
            auto t = key_fallback(opt_, k, "bson");
            if (!t) {
                return set_error(std::move(t.error()));
            }
            scratch = std::move(*t);
            text = scratch;
        }
        if (text.find('\0') != std::string_view::npos) {
            if (!allow_lossy(opt_, k, "key_nul_removed", "NUL bytes removed from key")) {
                return set_error(
                    unrepresentable(k, "a map key containing NUL is not representable in bson"));
            }
            std::string cleaned(text);
            cleaned.erase(std::remove(cleaned.begin(), cleaned.end(), '\0'), cleaned.end());
            scratch = std::move(cleaned);
            text = scratch;
        }
        return true;
    }

    // A key written twice into one document: refused (the decoder refuses it too), or under
    // lossy=allow the later entry is dropped.
    bool seen(std::size_t base, std::string_view key) const {
        for (std::size_t i = base; i < names_.size(); ++i) {
            if (out_.view().substr(names_[i].first, names_[i].second) == key) {
                return true;
            }
        }
        return false;
    }

    bool write_document(value m) {
        std::size_t start = out_.size();
        put32(0);
        std::size_t base = names_.size();
        std::string scratch;
        std::string_view key;
        bool r = true;
        bool dedup = m.size() <= 16;  // small maps check each key on the way
        for (auto [k, val] : m.entries()) {
            if (r = key_text(k, scratch, key); !r) {
                break;
            }
            if (dedup && seen(base, key)) {
                if (!allow_lossy(opt_, k, "duplicate_key_dropped",
                                 "duplicate key dropped, first value kept")) {
                    r = set_error(unrepresentable(k, "duplicate key '" + std::string(key) +
                                                         "' is not representable in bson"));
                    break;
                }
                continue;
            }
            names_.emplace_back(out_.size() + 1, key.size());
            if (r = write_element(key, val); !r) {
                break;
            }
        }
        if (r && !dedup) {
            // Large maps: sort the names written and look for neighbours that are equal.
            auto& sorted = sorted_names_;
            sorted.assign(names_.begin() + base, names_.end());
            auto text = [&](const std::pair<std::size_t, std::size_t>& p) {
                return out_.view().substr(p.first, p.second);
            };
            std::sort(sorted.begin(), sorted.end(),
                      [&](const auto& a, const auto& b) { return text(a) < text(b); });
            bool dup = false;
            for (std::size_t i = 1; i < sorted.size(); ++i) {
                if (text(sorted[i]) == text(sorted[i - 1])) {
                    dup = true;
                    key = text(sorted[i]);
                    break;
                }
            }
            if (dup) {
                if (!allow_lossy(opt_, m, "duplicate_key_dropped",
                                 "duplicate keys dropped, first values kept")) {
                    r = set_error(unrepresentable(m, "duplicate key '" + std::string(key) +
                                                         "' is not representable in bson"));
                } else {
                    // Rare path: write the map again checking each key.
                    names_.resize(base);
                    out_.truncate(start);
                    put32(0);
                    for (auto [k, val] : m.entries()) {
                        if (r = key_text(k, scratch, key); !r) {
                            break;
                        }
                        if (seen(base, key)) {
                            continue;
                        }
                        names_.emplace_back(out_.size() + 1, key.size());
                        if (r = write_element(key, val); !r) {
                            break;
                        }
                    }
                }
            }
        }
        names_.resize(base);
        if (!r) {
            return r;
        }
        out_.push_back(0);
        patch32(start, static_cast<std::uint32_t>(out_.size() - start));
        return true;
    }

    bool write_array(value a) {
        std::size_t start = out_.size();
        put32(0);
        std::uint64_t i = 0;
        char buf[24];
        for (value c : a.items()) {
            auto r = std::to_chars(buf, buf + sizeof buf, i++);
            if (auto w =
                    write_element(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)), c);
                !w) {
                return w;
            }
        }
        out_.push_back(0);
        patch32(start, static_cast<std::uint32_t>(out_.size() - start));
        return true;
    }

    // Writes type byte, name and value; the type byte is patched once the value is written.
    bool write_element(std::string_view key, value v) {
        std::size_t type_at = out_.size();
        out_.push_back(0);
        put_cstring(key);
        std::uint8_t type = 0;
        if (!write_value(v, type)) {
            return false;
        }
        out_.data_mut()[type_at] = static_cast<char>(type);
        return true;
    }

    bool write_decimal_text(value v, std::string_view text, std::uint8_t& type) {
        unsigned char bid[16];
        if (decimal128::from_string(text, bid)) {
            out_.append(bid, 16);
            type = ej::t_decimal128;
            return true;
        }
        (void)v;
        put_string(text);
        type = ej::t_string;
        return true;
    }

    bool write_value(value v, std::uint8_t& type) {
        switch (v.kind()) {
            case kind::null:
                type = ej::t_null;
                return true;
            case kind::boolean_false:
            case kind::boolean_true:
                out_.push_back(v.get_bool() ? 1 : 0);
                type = ej::t_bool;
                return true;
            case kind::int64: {
                std::int64_t i = v.get_int();
                if (i >= INT32_MIN && i <= INT32_MAX && v.int_width() != int_width::bits64) {
                    put32(static_cast<std::uint32_t>(static_cast<std::int32_t>(i)));
                    type = ej::t_int32;
                } else {
                    put64(static_cast<std::uint64_t>(i));
                    type = ej::t_int64;
                }
                return true;
            }
            case kind::uint64: {
                std::string text = std::to_string(v.get_uint());
                if (!allow_lossy(opt_, v, "uint_to_decimal128",
                                 "integer above INT64_MAX written as decimal128")) {
                    return set_error(unrepresentable(v, "integer " + text +
                                                            " above INT64_MAX is not representable "
                                                            "in bson"));
                }
                return write_decimal_text(v, text, type);
            }
            case kind::bignum: {
                std::string_view text = v.get_string();
                bool fits = text.size() - (text[0] == '-' ? 1 : 0) <= 34;
                if (!allow_lossy(opt_, v, fits ? "bignum_to_decimal128" : "bignum_to_string",
                                 fits ? "integer outside 64 bits written as decimal128"
                                      : "integer outside 64 bits written as a string")) {
                    return set_error(unrepresentable(v, "integer " + std::string(text) +
                                                            " outside 64 bits is not representable "
                                                            "in bson"));
                }
                return write_decimal_text(v, text, type);
            }
            case kind::float64: {
                double d = v.get_double();
                std::uint64_t bits;
                std::memcpy(&bits, &d, 8);
                put64(bits);
                type = ej::t_double;
                return true;
            }
            case kind::string:
                put_string(v.get_string());
                type = ej::t_string;
                return true;
            case kind::bytes: {
                std::string_view b = v.get_string();
                put32(static_cast<std::uint32_t>(b.size()));
                out_.push_back(0);
                out_.append(b);
                type = ej::t_binary;
                return true;
            }
            case kind::timestamp: {
                // An instant with whole milliseconds is a UTC datetime; any other date or time
                // keeps its RFC 3339 text as a string (DESIGN section 3).
                std::int64_t ms = 0;
                if (v.get_timestamp_kind() == timestamp_kind::offset_date_time &&
                    ej::parse_datetime(v.get_string(), ms)) {
                    put64(static_cast<std::uint64_t>(ms));
                    type = ej::t_datetime;
                } else {
                    put_string(v.get_string());
                    type = ej::t_string;
                }
                return true;
            }
            case kind::tagged: {
                if (v.get_tag_space() == tag_space::bson) {
                    ej::special s;
                    if (ej::from_tagged(v, s, true)) {
                        return write_special(v, s, type);
                    }
                }
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return set_error(unrepresentable(
                        v, "tag " + std::to_string(v.tag()) + " is not representable in bson"));
                }
                return write_value(v.tagged_value(), type);
            }
            case kind::array:
                type = ej::t_array;
                return write_array(v);
            case kind::map: {
                if (ej::may_be_extjson(v)) {
                    ej::special s;
                    if (ej::recognize(v, s)) {
                        return write_special(v, s, type);
                    }
                }
                type = ej::t_document;
                return write_document(v);
            }
        }
        return true;
    }

    bool write_special(value v, const ej::special& s, std::uint8_t& type) {
        type = s.type;
        switch (s.type) {
            case ej::t_double:
                std::uint64_t bits;
                std::memcpy(&bits, &s.d, 8);
                put64(bits);
                return true;
            case ej::t_binary:
                if (s.subtype == 0x02) {
                    put32(static_cast<std::uint32_t>(s.data.size() + 4));
                    out_.push_back(0x02);
                    put32(static_cast<std::uint32_t>(s.data.size()));
                } else {
                    put32(static_cast<std::uint32_t>(s.data.size()));
                    out_.push_back(static_cast<char>(s.subtype));
                }
                out_.append(s.data);
                return true;
            case ej::t_undefined:
            case ej::t_min_key:
            case ej::t_max_key:
                return true;
            case ej::t_object_id:
            case ej::t_decimal128:
                out_.append(s.data);
                return true;
            case ej::t_datetime:
                put64(static_cast<std::uint64_t>(s.i));
                return true;
            case ej::t_regex: {
                if (s.data.find('\0') != std::string::npos ||
                    s.extra.find('\0') != std::string::npos) {
                    return set_error(unrepresentable(
                        v, "a regular expression containing NUL is not representable in bson"));
                }
                // bsonspec.org: options "must be stored in alphabetical order".
                std::string options = s.extra;
                std::sort(options.begin(), options.end());
                put_cstring(s.data);
                put_cstring(options);
                return true;
            }
            case ej::t_db_pointer:
                put_string(s.data);
                out_.append(s.extra);
                return true;
            case ej::t_code:
            case ej::t_symbol:
                put_string(s.data);
                return true;
            case ej::t_code_w_scope: {
                std::size_t start = out_.size();
                put32(0);
                put_string(s.data);
                value scope = s.scope;
                if (!write_document(scope)) {
                    return false;
                }
                patch32(start, static_cast<std::uint32_t>(out_.size() - start));
                return true;
            }
            case ej::t_int32:
                put32(static_cast<std::uint32_t>(static_cast<std::int32_t>(s.i)));
                return true;
            case ej::t_timestamp:
                put64(s.u);
                return true;
            case ej::t_int64:
                put64(static_cast<std::uint64_t>(s.i));
                return true;
            default:
                return set_error(unrepresentable(v, "unknown bson type"));
        }
    }

    output_buffer& out_;
    const encode_options& opt_;
    // Per-thread scratch, reused so that steady-state encoding allocates nothing.
    struct scratch_buffers {
        std::vector<std::pair<std::size_t, std::size_t>> names;  // (offset, length) in out_
        std::vector<std::pair<std::size_t, std::size_t>> sorted;
    };
    static scratch_buffers& thread_scratch() {
        thread_local scratch_buffers s;
        s.names.clear();
        s.sorted.clear();
        return s;
    }
    scratch_buffers& scratch_ = thread_scratch();
    std::vector<std::pair<std::size_t, std::size_t>>& names_ = scratch_.names;
    std::vector<std::pair<std::size_t, std::size_t>>& sorted_names_ = scratch_.sorted;
};

// ---- encoder fast path ----
//
// A linear walk of the tape (the elements are listed in the order BSON writes them) with an
// explicit stack instead of the recursive writer above, writing each element through a local
// pointer after one prepare() of its whole size. It takes maps with string keys, arrays,
// null, booleans, integers within 64 bits, doubles, strings, bytes and timestamps; on
// anything else (another key kind, a key with NUL, a duplicate key, a map that may be
// Extended JSON, a tag, a bignum, an integer above INT64_MAX, nesting deeper than 64) it cuts
// the output back and returns false, and encode_bson runs bson_writer, which decides (and
// reports) those cases exactly as before. On success the bytes are bson_writer's.

struct enc_frame {
    std::size_t end;      // tape index just past the container
    std::size_t start;    // output offset of its length
    std::uint64_t index;  // next array index
    std::size_t key_base; // first of this map's keys in the scratch
    bool map;
};

inline bool has_nul(const char* s, std::size_t n) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t high = 0x8080808080808080ULL;
    while (n >= 8) {
        std::uint64_t v;
        std::memcpy(&v, s, 8);
        if (((v - ones) & ~v & high) != 0) {
            return true;
        }
        s += 8;
        n -= 8;
    }
    std::uint64_t v = ones;
    std::memcpy(&v, s, n);
    return ((v - ones) & ~v & high) != 0;
}

inline char* put_le32(char* o, std::uint32_t v) noexcept {
    std::memcpy(o, &v, 4);  // little-endian host (static_assert below)
    return o + 4;
}
inline char* put_le64(char* o, std::uint64_t v) noexcept {
    std::memcpy(o, &v, 8);
    return o + 8;
}

// The decimal text of the array indexes 0..999, NUL-padded to 4 bytes.
constexpr auto array_index_table() {
    std::array<std::array<char, 4>, 1000> t{};
    for (std::size_t n = 0; n < 1000; ++n) {
        std::size_t k = 0;
        if (n >= 100) {
            t[n][k++] = static_cast<char>('0' + n / 100);
        }
        if (n >= 10) {
            t[n][k++] = static_cast<char>('0' + n / 10 % 10);
        }
        t[n][k] = static_cast<char>('0' + n % 10);
    }
    return t;
}
constexpr std::array<std::array<char, 4>, 1000> array_index_text_table = array_index_table();
const char (*const array_index_text)[4] =
    reinterpret_cast<const char (*)[4]>(array_index_text_table.data());

bool encode_bson_fast(const document& doc, output_buffer& out) {
    static_assert(std::endian::native == std::endian::little);
    const std::uint64_t* const t = doc.tape().data();
    const char* const payload = doc.bytes().data();
    const char* const payload_end = payload + doc.bytes().size();
    if ((t[0] >> document::kind_shift) != static_cast<std::uint64_t>(kind::map)) {
        return false;
    }
    thread_local fast_scratch scratch;
    std::vector<fast_key>& keys = scratch.keys;
    keys.clear();
    const std::size_t out_start = out.size();
    enc_frame frames[fast_max_frames];
    enc_frame* top = frames;
    *top = {static_cast<std::size_t>(t[0] & document::payload_mask), out_start, 0, 0, true};
    // The output is written through a local pointer into the buffer's free space (o .. oend),
    // committed only when more room is needed and at the end: stores through a char pointer
    // would otherwise make the compiler reload the buffer's size after each one.
    char* o = out.prepare(256);
    char* base = out.data_mut();
    char* oend = base + out.capacity();
    auto room = [&](std::size_t n) {
        if (static_cast<std::size_t>(oend - o) < n) {
            out.commit(static_cast<std::size_t>(o - (base + out.size())));
            o = out.prepare(n);
            base = out.data_mut();
            oend = base + out.capacity();
        }
    };
    o = put_le32(o, 0);
    std::size_t i = 2;
    auto bail = [&] {
        out.truncate(out_start);
        return false;
    };
    for (;;) {
        while (i == top->end) {
            // Close the container: duplicate keys, terminator, length.
            if (top->map) {
                const std::size_t nk = keys.size() - top->key_base;
                if (nk >= 2 && has_duplicate(keys.data() + top->key_base, nk, scratch.sorted)) {
                    return bail();
                }
                keys.resize(top->key_base);
            }
            room(1);
            *o++ = 0;
            const auto len = static_cast<std::uint32_t>((o - base) - top->start);
            put_le32(base + top->start, len);
            if (top == frames) {
                out.commit(static_cast<std::size_t>(o - (base + out.size())));
                return true;
            }
            --top;
        }
        if (!top->map) {
            // A run of int32 elements of an array (a numeric array): one tight loop, the
            // index's digits from a table. The same bytes as the general element below.
            while (i != top->end && top->index < 1000 &&
                   (t[i] >> document::kind_shift) == static_cast<std::uint64_t>(kind::int64)) {
                const auto v = static_cast<std::int64_t>(t[i + 1]);
                if (v < INT32_MIN || v > INT32_MAX ||
                    ((t[i] >> document::aux_shift) & 0xff) ==
                        static_cast<std::uint64_t>(int_width::bits64)) {
                    break;
                }
                room(16);
                const std::uint64_t index = top->index++;
                *o = static_cast<char>(ej::t_int32);
                std::memcpy(o + 1, array_index_text[index], 4);  // digits, then NULs
                o += index < 10 ? 3 : index < 100 ? 4 : 5;
                o = put_le32(o, static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
                i += 2;
            }
            if (i == top->end) {
                continue;
            }
        }
        // The element's name.
        const char* key;
        std::size_t klen;
        char digits[24];
        if (top->map) {
            const std::uint64_t kw = t[i];
            if ((kw >> document::kind_shift) != static_cast<std::uint64_t>(kind::string)) {
                return bail();
            }
            key = payload + (kw & document::payload_mask);
            klen = static_cast<std::size_t>(t[i + 1]);
            std::uint64_t fp;
#if defined(__SSE2__)
            if (klen <= 16 && key + 16 <= payload_end) {
                // A short key: one 16-byte load for the NUL check, one 8-byte load (masked to
                // the key) for the fingerprint, the same value key_fingerprint gives.
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key));
                const unsigned zeros =
                    static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
                if ((zeros & ((1u << klen) - 1)) != 0) {
                    return bail();
                }
                std::uint64_t a;
                std::memcpy(&a, key, 8);
                if (klen < 8) {
                    a = klen == 0 ? 0 : a & (~std::uint64_t{0} >> (64 - 8 * klen));
                }
                fp = a ^ (static_cast<std::uint64_t>(klen) * 0x9E3779B97F4A7C15ULL);
            } else
#endif
            {
                if (has_nul(key, klen)) {
                    return bail();
                }
                fp = key_fingerprint(key, klen);
            }
            keys.push_back({fp, key, klen});
            i += 2;
        } else {
            const std::uint64_t index = top->index++;
            if (index < 10) {
                digits[0] = static_cast<char>('0' + index);
                klen = 1;
            } else if (index < 100) {
                digits[0] = static_cast<char>('0' + index / 10);
                digits[1] = static_cast<char>('0' + index % 10);
                klen = 2;
            } else {
                auto r = std::to_chars(digits, digits + sizeof digits, index);
                klen = static_cast<std::size_t>(r.ptr - digits);
            }
            key = digits;
        }
        // The value.
        const std::uint64_t w = t[i];
        const auto k = static_cast<kind>(w >> document::kind_shift);
        std::size_t vlen = 8;
        std::string_view text;
        if (k == kind::string || k == kind::bytes || k == kind::timestamp) {
            text = {payload + (w & document::payload_mask), static_cast<std::size_t>(t[i + 1])};
            vlen = 5 + text.size();
        }
        // 32 bytes of slack: short keys and strings are copied 16 / 32 bytes at a time when
        // that much payload can be read (the bytes past their end are overwritten next).
        room(2 + klen + vlen + 32);
        char* const o0 = o++;
        if (klen <= 16 && (key == digits || key + 16 <= payload_end)) {
            std::memcpy(o, key, 16);
        } else {
            std::memcpy(o, key, klen);
        }
        o += klen;
        *o++ = 0;
        std::uint8_t type;
        switch (k) {
            case kind::null:
                type = ej::t_null;
                i += 1;
                break;
            case kind::boolean_false:
            case kind::boolean_true:
                *o++ = k == kind::boolean_true ? 1 : 0;
                type = ej::t_bool;
                i += 1;
                break;
            case kind::int64: {
                const auto v = static_cast<std::int64_t>(t[i + 1]);
                if (v >= INT32_MIN && v <= INT32_MAX &&
                    ((w >> document::aux_shift) & 0xff) !=
                        static_cast<std::uint64_t>(int_width::bits64)) {
                    o = put_le32(o, static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
                    type = ej::t_int32;
                } else {
                    o = put_le64(o, static_cast<std::uint64_t>(v));
                    type = ej::t_int64;
                }
                i += 2;
                break;
            }
            case kind::float64:
                o = put_le64(o, t[i + 1]);
                type = ej::t_double;
                i += 2;
                break;
            case kind::timestamp: {
                // As bson_writer: an instant with whole milliseconds is a UTC datetime, any
                // other date or time a string.
                std::int64_t ms = 0;
                if (static_cast<timestamp_kind>((w >> document::aux_shift) & 0xff) ==
                        timestamp_kind::offset_date_time &&
                    ej::parse_datetime(text, ms)) {
                    o = put_le64(o, static_cast<std::uint64_t>(ms));
                    type = ej::t_datetime;
                    i += 2;
                    break;
                }
                [[fallthrough]];
            }
            case kind::string:
                o = put_le32(o, static_cast<std::uint32_t>(text.size() + 1));
                if (text.size() <= 32 && text.data() + 32 <= payload_end) {
                    std::memcpy(o, text.data(), 32);
                } else {
                    std::memcpy(o, text.data(), text.size());
                }
                o += text.size();
                *o++ = 0;
                type = ej::t_string;
                i += 2;
                break;
            case kind::bytes:
                o = put_le32(o, static_cast<std::uint32_t>(text.size()));
                *o++ = 0;
                std::memcpy(o, text.data(), text.size());
                o += text.size();
                type = ej::t_binary;
                i += 2;
                break;
            case kind::array:
            case kind::map: {
                if (k == kind::map && ej::may_be_extjson(value(&doc, i))) {
                    return bail();
                }
                if (static_cast<std::size_t>(top + 1 - frames) >= fast_max_frames) {
                    return bail();
                }
                const std::size_t start = static_cast<std::size_t>(o - base);
                o = put_le32(o, 0);
                *++top = {static_cast<std::size_t>(w & document::payload_mask), start, 0,
                          keys.size(), k == kind::map};
                type = k == kind::map ? ej::t_document : ej::t_array;
                i += 2;
                break;
            }
            default:
                return bail();
        }
        *o0 = static_cast<char>(type);
    }
}

result<void> encode_bson(const document& doc, output_buffer& out, const encode_options& opt) {
    if (!doc.empty() && encode_bson_fast(doc, out)) {
        return {};
    }
    bson_writer w(out, opt);
    return w.outcome(w.write_root(doc.root()));
}

}  // namespace

const codec_functions bson_codec{decode_bson, encode_bson};

}  // namespace polycodec::detail
