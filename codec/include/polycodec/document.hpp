#pragma once
/// The Document (DESIGN section 9): one flat, append-only tape of 64-bit words plus one byte
/// buffer for string payloads. Decoders append through a `builder`; encoders walk with `value`
/// cursors. A document and its buffers are reused across inputs, so a steady stream allocates
/// nothing.
///
/// Tape layout. The first word of every element is `kind:8 | aux:8 | payload:48`.
///   null, false, true      1 word
///   int64, uint64, float64 2 words: header, then the value's 64 bits; the aux of int64 and
///                          uint64 is the int_width the source format used (0 = unknown)
///   string, bytes, bignum, 2 words: header (payload = offset into bytes()), then the length;
///   timestamp              aux of a timestamp is its timestamp_kind
///   tagged                 2 words: header (aux = tag_space), then the tag; the inner element follows
///   array, map             2 words: header (payload = tape index just past the last child),
///                          then the count (elements of an array, entries of a map); children
///                          follow, a map's as key, value, key, value ...
///
/// Example:
///   polycodec::document doc;
///   polycodec::builder b(doc);
///   b.begin_map(); b.add_string("a"); b.add_int(1); b.end_map();
///   for (auto [k, v] : doc.root().entries()) { /* k.get_string() == "a", v.get_int() == 1 */ }

#include <cstdint>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/error.hpp"

namespace polycodec {

/// The kinds of DESIGN section 2.
enum class kind : std::uint8_t {
    null = 1,
    boolean_false = 2,
    boolean_true = 3,
    int64 = 4,
    uint64 = 5,      ///< only values above INT64_MAX; smaller ones are int64
    float64 = 6,
    string = 7,      ///< valid UTF-8
    bytes = 8,
    bignum = 9,      ///< integer outside 64 bits, as exact decimal text ("-123456789012345678901")
    timestamp = 10,  ///< RFC 3339 text, see timestamp_kind
    tagged = 11,     ///< a tag number and one inner value
    array = 12,
    map = 13,
};

/// What a timestamp's text holds (the four TOML date-time kinds).
enum class timestamp_kind : std::uint8_t {
    offset_date_time = 0,  ///< "1979-05-27T07:32:00.999Z", "1979-05-27T00:32:00-07:00"
    local_date_time = 1,   ///< "1979-05-27T07:32:00"
    local_date = 2,        ///< "1979-05-27"
    local_time = 3,        ///< "07:32:00.5"
};

/// The integer width a source format used for an int64 or uint64 element (the aux byte of its
/// header word). A hint only: it never changes the value, equal() ignores it, and encoders that
/// cannot write it ignore it. The BSON encoder keeps int32 vs int64 by it (docs/formats/bson.md).
enum class int_width : std::uint8_t {
    unknown = 0,  ///< the source had no width (text formats) or did not record it
    bits8 = 1,
    bits16 = 2,
    bits32 = 3,
    bits64 = 4,
};

/// Whose numbering a tag uses. Encoders map foreign spaces as their format page documents.
enum class tag_space : std::uint8_t {
    cbor = 0,         ///< CBOR tag numbers (RFC 8949)
    msgpack_ext = 1,  ///< MessagePack ext type; the tag is the signed type cast to uint64
    bson = 2,         ///< BSON element type byte (0x07 ObjectId, 0x13 decimal128, ...)
    other = 3,        ///< format-specific, documented where produced (RON, pickle ...)
};

class document;
class value;
class child_iterator;
class entry_iterator;
template <class Iterator>
struct tape_range;
using child_range = tape_range<child_iterator>;
using entry_range = tape_range<entry_iterator>;

namespace detail {
struct tape_access;  // codec/src/detail/tape_access.hpp: the library's own tape surgery and
                     // detail::tape_writer (one-pass decoders); no raw tape access here
/// An open container or tag while a document is built (builder's stack, stored in the document
/// so that a reused document makes decoding allocation-free).
struct build_frame {
    std::size_t start;    ///< tape index of the header
    std::uint64_t count;  ///< children added so far (keys and values for maps)
    bool tag;             ///< a tagged value waiting for its inner element
};
}  // namespace detail

/// A read-only cursor on one element of a document. Cheap to copy; valid while the document
/// is neither changed nor destroyed.
class value {
public:
    value() = default;
    value(const document* doc, std::size_t index) noexcept : doc_(doc), index_(index) {}

    polycodec::kind kind() const noexcept;
    bool is_null() const noexcept { return kind() == kind::null; }
    bool is_bool() const noexcept {
        return kind() == kind::boolean_false || kind() == kind::boolean_true;
    }
    bool is_container() const noexcept { return kind() == kind::array || kind() == kind::map; }

    bool get_bool() const noexcept { return kind() == kind::boolean_true; }
    std::int64_t get_int() const noexcept;
    std::uint64_t get_uint() const noexcept;
    /// The width hint of an int64 or uint64 element; int_width::unknown for other kinds.
    polycodec::int_width int_width() const noexcept;
    double get_double() const noexcept;
    /// The text of a string, bignum or timestamp; the octets of bytes.
    std::string_view get_string() const noexcept;
    timestamp_kind get_timestamp_kind() const noexcept;
    std::uint64_t tag() const noexcept;          ///< of a tagged value
    polycodec::tag_space get_tag_space() const noexcept;
    value tagged_value() const noexcept { return {doc_, index_ + 2}; }

    /// Elements of an array, entries of a map; 0 for scalars.
    std::uint64_t size() const noexcept;

    /// Index of this element on the tape.
    std::size_t index() const noexcept { return index_; }
    /// Index just past this element (its next sibling). O(1).
    std::size_t end_index() const noexcept;
    const document* doc() const noexcept { return doc_; }

    /// Elements of an array (for a map: keys and values alternately).
    child_range items() const noexcept;
    /// Entries of a map, in source order, duplicates included.
    entry_range entries() const noexcept;

    /// The first entry of a map whose key is the string `key`; a null cursor (doc() ==
    /// nullptr) when absent.
    value find(std::string_view key) const noexcept;

private:
    const document* doc_ = nullptr;
    std::size_t index_ = 0;
};

/// What child_iterator and entry_iterator share: a forward iterator over tape index i_ of
/// doc_, whose `Derived` gives operator* and the prefix ++.
template <class Derived, class Reference>
class tape_iterator {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Reference;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Reference;

    tape_iterator() = default;
    tape_iterator(const document* d, std::size_t i) : doc_(d), i_(i) {}
    Derived operator++(int) noexcept {
        Derived old = static_cast<const Derived&>(*this);
        ++static_cast<Derived&>(*this);
        return old;
    }
    friend bool operator==(const Derived& a, const Derived& b) noexcept { return a.i_ == b.i_; }
    friend bool operator!=(const Derived& a, const Derived& b) noexcept { return a.i_ != b.i_; }

protected:
    const document* doc_ = nullptr;
    std::size_t i_ = 0;
};

/// A begin and end iterator, for range-for.
template <class Iterator>
struct tape_range {
    Iterator b, e;
    Iterator begin() const { return b; }
    Iterator end() const { return e; }
};

/// Iterates an array's elements, or a map's keys and values alternately.
class child_iterator : public tape_iterator<child_iterator, value> {
public:
    using tape_iterator::tape_iterator;
    value operator*() const noexcept { return {doc_, i_}; }
    child_iterator& operator++() noexcept {
        i_ = value(doc_, i_).end_index();
        return *this;
    }
    using tape_iterator::operator++;
};

/// One map entry.
struct entry {
    value key;
    value val;
};

/// Iterates a map's entries.
class entry_iterator : public tape_iterator<entry_iterator, entry> {
public:
    using tape_iterator::tape_iterator;
    entry operator*() const noexcept {
        value k(doc_, i_);
        return {k, value(doc_, k.end_index())};
    }
    entry_iterator& operator++() noexcept {
        i_ = value(doc_, value(doc_, i_).end_index()).end_index();
        return *this;
    }
    using tape_iterator::operator++;
};

/// The tape. Reuse one per thread: clear() keeps the capacity.
class document {
public:
    document() = default;

    /// The root element; the document must not be empty.
    value root() const noexcept { return {this, 0}; }
    bool empty() const noexcept { return tape_.empty(); }
    /// Forgets the content, keeps the buffers.
    void clear() noexcept {
        tape_.clear();
        bytes_.clear();
    }

    /// Forgets the content, and gives back the memory of each buffer (tape, payload bytes,
    /// builder stack) whose capacity is over `keep_bytes`; smaller ones are kept for reuse. A
    /// worker calls it after a large document so that one big request does not pin its peak.
    void shrink(std::size_t keep_bytes) noexcept;
    /// Bytes allocated for the tape, the payload bytes and the builder stack.
    std::size_t capacity_bytes() const noexcept;

    const std::vector<std::uint64_t>& tape() const noexcept { return tape_; }
    const std::string& bytes() const noexcept { return bytes_; }
    /// Memory the content occupies: tape words and payload bytes.
    std::size_t content_size() const noexcept { return tape_.size() * 8 + bytes_.size(); }

    /// JSON Pointer (RFC 6901) of the element at tape index `index`, e.g. "/items/3/price".
    /// Integer map keys appear as their decimal text. Computed by walking from the root:
    /// meant for error paths only.
    std::string pointer_to(std::size_t index) const;

    static constexpr int kind_shift = 56;
    static constexpr int aux_shift = 48;
    static constexpr std::uint64_t payload_mask = (std::uint64_t{1} << 48) - 1;

private:
    friend class builder;
    friend struct detail::tape_access;
    std::vector<std::uint64_t> tape_;
    std::string bytes_;
    std::vector<detail::build_frame> frames_;
};

/// Limits a builder enforces (DESIGN section 9).
struct build_limits {
    std::uint32_t max_depth = 512;                        ///< nesting of arrays, maps, tags
    std::size_t max_bytes = std::size_t{1} << 30;         ///< tape + payload bytes
};

/// Appends elements to a document. A decoder calls one method per value; containers are
/// bracketed by begin_* and end_*. begin_* returns false when the depth limit or the size
/// budget is hit (then `status()` tells which); scalar methods never fail, but set the
/// over-budget status that the decoder checks at container boundaries and at the end.
class builder {
public:
    explicit builder(document& doc, build_limits limits = {});

    /// Clears the document and the builder's state for a new input.
    void reset() noexcept;
    void set_limits(build_limits limits) noexcept { limits_ = limits; }
    const build_limits& limits() const noexcept { return limits_; }

    void add_null() { scalar_word(kind::null, 0); }
    void add_bool(bool b) { scalar_word(b ? kind::boolean_true : kind::boolean_false, 0); }
    void add_int(std::int64_t v) { scalar2(kind::int64, 0, static_cast<std::uint64_t>(v)); }
    /// An integer with the width its source format used (a hint, see int_width).
    void add_int(std::int64_t v, int_width w) {
        scalar2(kind::int64, static_cast<std::uint8_t>(w), static_cast<std::uint64_t>(v));
    }
    /// Values up to INT64_MAX are stored as int64, so equal numbers compare equal.
    void add_uint(std::uint64_t v, int_width w = int_width::unknown) {
        if (v <= static_cast<std::uint64_t>(INT64_MAX)) {
            add_int(static_cast<std::int64_t>(v), w);
        } else {
            scalar2(kind::uint64, static_cast<std::uint8_t>(w), v);
        }
    }
    void add_double(double d) {
        std::uint64_t bits;
        std::memcpy(&bits, &d, 8);
        scalar2(kind::float64, 0, bits);
    }
    /// `s` must be valid UTF-8; decoders validate before calling.
    void add_string(std::string_view s) { payload(kind::string, 0, s); }
    void add_bytes(std::string_view b) { payload(kind::bytes, 0, b); }
    /// Decimal text with optional leading '-', no leading zeros, outside the 64-bit ranges.
    void add_bignum(std::string_view decimal) { payload(kind::bignum, 0, decimal); }
    void add_timestamp(std::string_view text, timestamp_kind k) {
        payload(kind::timestamp, static_cast<std::uint8_t>(k), text);
    }
    /// Reserves `n` payload bytes for a string and returns where to write them; finish with
    /// the same `n` already written. For decoders that unescape in place.
    char* begin_string(std::size_t max_len);
    void end_string(char* written_end, kind k = kind::string);

    /// Starts a tagged value; the next element added is its inner value.
    bool begin_tagged(std::uint64_t tag, tag_space space = tag_space::cbor);
    bool begin_array();
    void end_array() { end_container(); }
    bool begin_map();
    void end_map() { end_container(); }

    /// Appends a copy of `v` (from this or another document), for YAML aliases and pickle
    /// memo references. Checks the budget before copying.
    bool add_copy(value v);

    /// Makes room for at least `tape_words` words and `payload_bytes` bytes in all (a decoder
    /// that can estimate its document's size avoids the copies of growth by doubling). Pages
    /// that are never written stay unused memory.
    void reserve(std::size_t tape_words, std::size_t payload_bytes) {
        doc_->tape_.reserve(tape_words);
        doc_->bytes_.reserve(payload_bytes);
    }

    /// Depth of open containers and tags.
    std::size_t depth() const noexcept { return stack_.size(); }
    /// ok, depth_exceeded or size_exceeded.
    errc status() const noexcept { return status_; }
    bool ok() const noexcept { return status_ == errc::ok; }
    /// Tape index where the next element goes.
    std::size_t next_index() const noexcept { return doc_->tape_.size(); }
    /// JSON Pointer of the position where the next element would go, for decode errors.
    std::string current_path() const;

    document& doc() noexcept { return *doc_; }

private:
    using frame = detail::build_frame;

    static std::uint64_t header(kind k, std::uint8_t aux, std::uint64_t payload) noexcept {
        return (static_cast<std::uint64_t>(k) << document::kind_shift) |
               (static_cast<std::uint64_t>(aux) << document::aux_shift) | payload;
    }
    // Called before every element: counts it in its parent, closes finished tags.
    void on_element() noexcept {
        if (!stack_.empty()) {
            ++stack_.back().count;
        }
    }
    void after_scalar() noexcept {
        if (!stack_.empty() && stack_.back().tag) {
            close_tags();
        }
    }
    void close_tags() noexcept;
    void check_budget() noexcept {
        if (doc_->tape_.size() * 8 + doc_->bytes_.size() > limits_.max_bytes) {
            status_ = errc::size_exceeded;
        }
    }
    void scalar_word(kind k, std::uint64_t payload) {
        on_element();
        doc_->tape_.push_back(header(k, 0, payload));
        after_scalar();
    }
    void scalar2(kind k, std::uint8_t aux, std::uint64_t v) {
        on_element();
        auto& t = doc_->tape_;
        t.push_back(header(k, aux, 0));
        t.push_back(v);
        after_scalar();
    }
    void payload(kind k, std::uint8_t aux, std::string_view s) {
        on_element();
        auto& t = doc_->tape_;
        t.push_back(header(k, aux, doc_->bytes_.size()));
        t.push_back(s.size());
        doc_->bytes_.append(s);
        if (s.size() > 4096) {
            check_budget();
        }
        after_scalar();
    }
    bool begin_container(kind k);
    void end_container() noexcept;

    document* doc_;
    build_limits limits_;
    std::vector<frame>& stack_;
    errc status_ = errc::ok;
    std::size_t string_start_ = 0;
};

/// Deep equality: same kinds, same values (floats bit for bit, so -0.0 differs from 0.0, but
/// every NaN equals every NaN), maps compared entry by entry in order.
bool equal(value a, value b) noexcept;
inline bool equal(const document& a, const document& b) noexcept {
    if (a.empty() || b.empty()) {
        return a.empty() && b.empty();
    }
    return equal(a.root(), b.root());
}

/// A compact JSON-like rendering for test messages and logs: bytes as b64"...", bignums as
/// 123n, timestamps as t"...", tags as tag(N, ...). Not a codec.
std::string to_debug_string(value v);

// ---- inline accessors ----

inline polycodec::kind value::kind() const noexcept {
    return static_cast<polycodec::kind>(doc_->tape()[index_] >> document::kind_shift);
}
inline std::int64_t value::get_int() const noexcept {
    return static_cast<std::int64_t>(doc_->tape()[index_ + 1]);
}
inline std::uint64_t value::get_uint() const noexcept { return doc_->tape()[index_ + 1]; }
inline int_width value::int_width() const noexcept {
    std::uint64_t w = doc_->tape()[index_];
    auto k = static_cast<polycodec::kind>(w >> document::kind_shift);
    if (k != kind::int64 && k != kind::uint64) {
        return polycodec::int_width::unknown;
    }
    return static_cast<polycodec::int_width>((w >> document::aux_shift) & 0xff);
}
inline double value::get_double() const noexcept {
    double d;
    std::uint64_t bits = doc_->tape()[index_ + 1];
    std::memcpy(&d, &bits, 8);
    return d;
}
inline std::string_view value::get_string() const noexcept {
    const auto& t = doc_->tape();
    return {doc_->bytes().data() + (t[index_] & document::payload_mask),
            static_cast<std::size_t>(t[index_ + 1])};
}
inline timestamp_kind value::get_timestamp_kind() const noexcept {
    return static_cast<timestamp_kind>((doc_->tape()[index_] >> document::aux_shift) & 0xff);
}
inline std::uint64_t value::tag() const noexcept { return doc_->tape()[index_ + 1]; }
inline tag_space value::get_tag_space() const noexcept {
    return static_cast<polycodec::tag_space>((doc_->tape()[index_] >> document::aux_shift) & 0xff);
}
inline std::uint64_t value::size() const noexcept {
    return is_container() ? doc_->tape()[index_ + 1] : 0;
}
inline std::size_t value::end_index() const noexcept {
    std::size_t i = index_;
    for (;;) {
        std::uint64_t w = doc_->tape()[i];
        switch (static_cast<polycodec::kind>(w >> document::kind_shift)) {
            case kind::null:
            case kind::boolean_false:
            case kind::boolean_true:
                return i + 1;
            case kind::array:
            case kind::map:
                return static_cast<std::size_t>(w & document::payload_mask);
            case kind::tagged:
                i += 2;  // the inner element follows the tag
                continue;
            default:
                return i + 2;
        }
    }
}
inline child_range value::items() const noexcept {
    return {child_iterator(doc_, index_ + 2), child_iterator(doc_, end_index())};
}
inline entry_range value::entries() const noexcept {
    return {entry_iterator(doc_, index_ + 2), entry_iterator(doc_, end_index())};
}

}  // namespace polycodec
