// Java .properties, read exactly as java.util.Properties.load(Reader) reads a UTF-8 file
// (OpenJDK 17 LineReader and loadConvert; docs/formats/properties.md), decoded to a flat map of
// strings in file order (duplicates kept; Java keeps the last):
//   - natural lines end at LF, CR or CRLF; leading ' ', '\t', '\f' are skipped, blank lines too;
//   - a line whose first character is '#' or '!' is a comment;
//   - a line ending in an odd number of backslashes continues on the next one, whose leading
//     white space is skipped (a final backslash at the end of input is dropped);
//   - the key ends at the first unescaped '=', ':', ' ', '\t' or '\f'; white space, at most one
//     '=' or ':', and more white space follow before the value;
//   - in keys and values \t \n \r \f and \uXXXX are escapes, any other \c is c.
// unflatten=true nests dotted keys (arrays for 0..n-1) and infer=true types the values, through
// detail/unflatten.hpp, which dotenv uses too. The writer escapes as Properties.store to an
// OutputStream does (ASCII only, \uXXXX beyond), and flattens nested maps and arrays with dots.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "detail/dropped_tag.hpp"
#include "detail/infer.hpp"
#include "detail/lossy.hpp"
#include "detail/map_root.hpp"
#include "detail/number.hpp"
#include "detail/text.hpp"
#include "detail/text_reader.hpp"
#include "detail/try.hpp"
#include "detail/unflatten.hpp"
#include "detail/utf8.hpp"
#include "detail/utf8_input.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr std::size_t scratch_keep_bytes = std::size_t{16} << 20;

inline bool ws(char c) { return c == ' ' || c == '\t' || c == '\f'; }
inline bool eol(char c) { return c == '\n' || c == '\r'; }

std::string shown(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
        return std::string("'") + c + "'";
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
}

// A logical line joined from continued natural lines, with where each piece came from.
struct joined_line {
    std::string text;
    std::vector<std::pair<std::size_t, std::size_t>> pieces;  // (offset in text, in input)
};

struct reader_scratch {
    joined_line joined;
    // With a nester: unescaped and joined keys (which must outlive their line) in the first
    // half, the current line's unescaped value in the second; escapes only shrink.
    std::unique_ptr<char[]> arena;
    std::size_t arena_size = 0;
};

// The kid names of the maps open in a nested read, to find a repeated name: a map's names
// are compared linearly up to `linear_kids`, then looked up in an open-addressing table keyed
// by (the map's serial, name). One per thread (the nester and the fast path), reused.
class kid_names {
public:
    static kid_names& local() {
        thread_local kid_names k;
        return k;
    }
    void reset() {
        names_.clear();
        if (table_used_ != 0) {
            std::fill(table_.begin(), table_.end(), slot{});
            table_used_ = 0;
        }
    }
    // Frees a table grown past the scratch budget.
    void trim() {
        if (table_.capacity() * sizeof(slot) > scratch_keep_bytes) {
            std::vector<slot>().swap(table_);
            table_used_ = 0;
        }
    }
    // Where a map opened now keeps its names (its `at`); release(at) when it closes.
    std::size_t mark() const { return names_.size(); }
    void release(std::size_t at) { names_.resize(at); }

    // Whether the map `serial` (names from `at`, `count` kids so far) has no kid `name` yet;
    // records it.
    [[gnu::always_inline]] bool add(std::uint32_t serial, std::size_t at, std::size_t count,
                                    std::string_view name) {
        if (count < linear_kids) {
            for (std::size_t i = at; i < names_.size(); ++i) {
                const std::string_view o = names_[i];
                if (o.size() == name.size() && (o.empty() || o[0] == name[0]) && o == name) {
                    return false;
                }
            }
            names_.push_back(name);
            if (count + 1 == linear_kids) {
                to_table(serial, at);
            }
            return true;
        }
        return insert(serial, name);
    }

private:
    struct slot {
        std::uint32_t serial = 0;  // 0: empty
        std::uint32_t hash = 0;
        std::string_view name;
    };
    static constexpr std::size_t linear_kids = 16;

    [[gnu::noinline]] void to_table(std::uint32_t serial, std::size_t at) {
        for (std::size_t i = at; i < names_.size(); ++i) {
            insert(serial, names_[i]);
        }
    }
    // Inserts (serial, name) into the open-addressing table, false when it is there already.
    [[gnu::noinline]] bool insert(std::uint32_t serial, std::string_view name) {
        auto& t = table_;
        if ((table_used_ + 1) * 2 > t.size()) {
            std::vector<slot> old;
            old.swap(t);
            t.assign(old.empty() ? 64 : old.size() * 2, slot{});
            for (const slot& o : old) {
                if (o.serial != 0) {
                    place(o);
                }
            }
        }
        const std::uint32_t h = unflatten_impl::name_hash(serial, name);
        const std::size_t mask = t.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            slot& sl = t[i];
            if (sl.serial == 0) {
                sl = slot{serial, h, name};
                ++table_used_;
                return true;
            }
            if (sl.hash == h && sl.serial == serial && sl.name == name) {
                return false;
            }
        }
    }
    void place(const slot& o) {
        auto& t = table_;
        const std::size_t mask = t.size() - 1;
        std::size_t i = o.hash & mask;
        while (t[i].serial != 0) {
            i = (i + 1) & mask;
        }
        t[i] = o;
    }

    std::vector<std::string_view> names_;
    std::vector<slot> table_;
    std::size_t table_used_ = 0;
};

// unflatten=true / infer=true straight from the lines: the nested document is written as the
// keys come, with a stack of the containers open along the current key's path. That gives
// detail/unflatten.hpp's document exactly when each group's keys are consecutive, no key is
// repeated, no key is both a value and a group, and a group is an array (first key "0", then
// "1", "2", ... in order) or a map whose first key is not an index; on anything else add()
// returns false and the caller reads the input again through the flat document and the tree.
class nester {
public:
    nester(builder& b, bool nest, bool infer) : b_(b), nest_(nest), infer_(infer) {
        s_.levels.clear();
        names_.reset();
        flat_bytes_ = 16;
    }
    ~nester() { names_.trim(); }
    nester(const nester&) = delete;
    nester& operator=(const nester&) = delete;

    bool begin() {
        if (!b_.begin_map()) {
            return false;
        }
        s_.levels.push_back(level{false, 0, 0, next_serial()});
        return true;
    }
    bool finish() {
        while (!s_.levels.empty()) {
            close_top();
        }
        return b_.ok();
    }

    // One entry: `key` stays valid until the end of the document, `value` only for the call.
    bool add(std::string_view key, std::string_view value) {
        // The flat document's size (what the general path builds first) keeps its budget.
        flat_bytes_ += 32 + key.size() + value.size();
        if (flat_bytes_ > b_.limits().max_bytes) {
            return false;
        }
        // The parts the key shares with the previous one (keys of one group come one after
        // another) are not split again: the previous key's parts, but its last, that end
        // before the first byte where the two keys differ. The rest is split at its dots.
        std::size_t d = 0;
        std::size_t rest = 0;
        if (prev_split_ && parts_.size() > 1) {
            const std::size_t same = common_prefix(prev_key_, key);
            while (d + 1 < parts_.size()) {
                const auto at = static_cast<std::size_t>(parts_[d].data() - prev_key_.data());
                if (at + parts_[d].size() >= same) {
                    break;
                }
                parts_[d] = key.substr(at, parts_[d].size());
                rest = at + parts_[d].size() + 1;
                ++d;
            }
        }
        parts_.erase(parts_.begin() + static_cast<std::ptrdiff_t>(d), parts_.end());
        bool split = nest_;
        if (split) {
            const char* s = key.data();
            const std::size_t n = key.size();
            std::size_t part = rest;
            for (std::size_t p = rest; p < n; ++p) {
                if (s[p] == '.') {
                    if (p == part) {
                        split = false;  // an empty part: the key stays whole
                        break;
                    }
                    parts_.push_back(key.substr(part, p - part));
                    part = p + 1;
                }
            }
            if (part == n) {
                split = false;  // the empty key, or one that ends in a dot
            }
            if (split) {
                parts_.push_back(key.substr(part));
            }
        }
        if (!split) {
            parts_.clear();
            parts_.push_back(key);
            d = 0;
        }
        prev_key_ = key;
        prev_split_ = split;
        auto& levels = s_.levels;
        const std::size_t k = parts_.size() - 1;
        while (levels.size() > d + 1) {
            close_top();
        }
        if (!add_kid(d, parts_[d])) {
            return false;
        }
        for (std::size_t j = d + 1; j <= k; ++j) {
            const bool array = parts_[j] == "0";
            if (!array && is_index(parts_[j])) {
                return false;  // may be an array in another order: the tree decides
            }
            if (!(array ? b_.begin_array() : b_.begin_map())) {
                return false;
            }
            levels.push_back(level{array, 0, names_.mark(), next_serial()});
            if (!add_kid(j, parts_[j])) {
                return false;
            }
        }
        if (infer_) {
            textinfer::add(b_, value);
        } else {
            b_.add_string(value);
        }
        return true;
    }

private:
    struct level {
        bool array;
        std::size_t count;
        std::size_t names_at;  // this map's kid names' kid_names mark
        std::uint32_t serial;
        std::string_view last{};
    };
    struct scratch {
        std::vector<level> levels;
    };

    // The length of the longest common prefix of a and b.
    static std::size_t common_prefix(std::string_view a, std::string_view b) {
        const std::size_t n = std::min(a.size(), b.size());
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t x, y;
            std::memcpy(&x, a.data() + i, 8);
            std::memcpy(&y, b.data() + i, 8);
            if (x != y) {  // the first differing byte (little-endian: the lowest set bit)
                if constexpr (std::endian::native == std::endian::little) {
                    return i + static_cast<std::size_t>(__builtin_ctzll(x ^ y) / 8);
                }
                break;
            }
        }
        while (i < n && a[i] == b[i]) {
            ++i;
        }
        return i;
    }
    static bool is_index(std::string_view s) {
        std::uint64_t v = 0;
        return unflatten_impl::index_name(s, UINT64_MAX, v);
    }
    std::uint32_t next_serial() { return ++serial_; }

    void close_top() {
        level& l = s_.levels.back();
        if (l.array) {
            b_.end_array();
        } else {
            b_.end_map();
            names_.release(l.names_at);
        }
        s_.levels.pop_back();
    }

    // Adds kid `name` to the open container at `d` (its key, for a map), or false when the
    // tree would make something else of it.
    bool add_kid(std::size_t d, std::string_view name) {
        level& l = s_.levels[d];
        if (l.array) {
            std::uint64_t v = 0;
            if (!unflatten_impl::index_name(name, UINT64_MAX, v) || v != l.count) {
                return false;
            }
        } else {
            if (!names_.add(l.serial, l.names_at, l.count, name)) {
                return false;
            }
            b_.add_string(name);
        }
        ++l.count;
        l.last = name;
        return true;
    }

    static scratch& thread_scratch() {
        thread_local scratch s;
        return s;
    }

    builder& b_;
    bool nest_;
    bool infer_;
    std::uint32_t serial_ = 0;
    std::size_t flat_bytes_ = 0;
    std::string_view prev_key_;  // the previous key, split into parts_ when prev_split_
    bool prev_split_ = false;
    scratch& s_ = thread_scratch();
    kid_names& names_ = kid_names::local();
    std::vector<std::string_view>& parts_ = parts_scratch();
    static std::vector<std::string_view>& parts_scratch() {
        thread_local std::vector<std::string_view> p;
        return p;
    }
};

// Whether `s` holds a backslash (short texts, most values, without a call).
inline bool has_backslash(std::string_view s) {
    if (s.size() >= 16) {
        return std::memchr(s.data(), '\\', s.size()) != nullptr;
    }
    for (const char c : s) {
        if (c == '\\') {
            return true;
        }
    }
    return false;
}

class properties_reader {
public:
    properties_reader(std::string_view in, builder& b, std::vector<std::uint64_t>* offsets,
                      nester* nest = nullptr)
        : in_(in), b_(b), offsets_(offsets), nest_(nest) {}
    /// With a nester: it refused the input (run() then returns ok, the builder holds junk).
    bool abandoned() const { return abandoned_; }
    ~properties_reader() {
        if (s_.joined.text.capacity() > scratch_keep_bytes) {
            std::string().swap(s_.joined.text);
        }
        if (s_.arena_size > 2 * scratch_keep_bytes) {
            s_.arena.reset();
            s_.arena_size = 0;
        }
    }
    properties_reader(const properties_reader&) = delete;
    properties_reader& operator=(const properties_reader&) = delete;

    result<void> run() {
        POLYCODEC_TRY(detail::require_utf8(in_));
        if (nest_ != nullptr) {
            if (s_.arena_size < 2 * in_.size()) {
                s_.arena = std::make_unique_for_overwrite<char[]>(2 * in_.size());
                s_.arena_size = 2 * in_.size();
            }
            keys_ = s_.arena.get();
            if (!nest_->begin()) {
                abandoned_ = true;
                return {};
            }
        } else if (!b_.begin_map()) {
            return fail(make_error(b_.status(), 0, "document larger than its size budget"));
        }
        for (;;) {
            std::string_view line;
            bool more = next_line(line);
            if (!more) {
                break;
            }
            POLYCODEC_TRY(entry(line));
            if (nest_ != nullptr) {
                if (abandoned_ || !b_.ok()) {
                    abandoned_ = true;
                    return {};
                }
                continue;
            }
            if (!b_.ok()) {
                return fail(make_error(b_.status(), pos_, "document larger than its size budget"));
            }
        }
        if (nest_ != nullptr) {
            abandoned_ = !nest_->finish();
            return {};
        }
        b_.end_map();
        if (!b_.ok()) {
            return fail(make_error(b_.status(), in_.size(), "document larger than its size budget"));
        }
        return {};
    }

private:
    // The end of the natural line that starts at `p` (its CR or LF, or the end of input):
    // sixteen bytes a step while that many are left.
    std::size_t line_end(std::size_t p) const {
        const char* s = in_.data();
        const std::size_t n = in_.size();
#if defined(__SSE2__)
        const __m128i lf = _mm_set1_epi8('\n');
        const __m128i cr = _mm_set1_epi8('\r');
        while (p < n && n - p >= 16) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + p));
            const int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, cr)));
            if (m != 0) {
                return p + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(m)));
            }
            p += 16;
        }
#endif
        while (p < n && !eol(s[p])) {
            ++p;
        }
        return std::min(p, n);
    }
    // Whether the natural line [from, end) ends in an odd number of backslashes.
    bool continued(std::size_t from, std::size_t end) const {
        std::size_t k = end;
        while (k > from && in_[k - 1] == '\\') {
            --k;
        }
        return ((end - k) & 1) != 0;
    }
    void skip_comment() {
        pos_ = line_end(pos_);
    }

    // LineReader.readLine: the next logical line, or false at the end of input.
    bool next_line(std::string_view& line) {
        for (;;) {
            int r = logical_line(line);
            if (r >= 0) {
                return r != 0;
            }
        }
    }

    // One try of next_line: 1 a line, 0 the end of input, -1 nothing (a continued line that
    // came to nothing, or a comment after a lone "\\"): try again from pos_.
    int logical_line(std::string_view& line) {
        const char* s = in_.data();
        std::size_t n = in_.size();
        for (;;) {
            while (pos_ < n && (ws(s[pos_]) || eol(s[pos_]))) {
                ++pos_;
            }
            if (pos_ >= n) {
                return 0;
            }
            if (s[pos_] == '#' || s[pos_] == '!') {
                skip_comment();
                continue;
            }
            break;
        }
        line_at_ = pos_;
        std::size_t end = line_end(pos_);
        if (!continued(pos_, end)) {
            line = in_.substr(pos_, end - pos_);
            joined_ = false;
            pos_ = end;
            return 1;
        }
        if (end == n) {  // a backslash at the end of input is not part of the line
            line = in_.substr(pos_, end - 1 - pos_);
            joined_ = false;
            pos_ = end;
            return 1;
        }
        // Continued: join the pieces, each without its final backslash and line break, the
        // next without its leading white space.
        joined_line& j = s_.joined;
        j.text.clear();
        j.pieces.clear();
        std::size_t start = pos_;
        for (;;) {
            j.pieces.emplace_back(j.text.size(), start);
            j.text.append(in_.substr(start, end - 1 - start));
            std::size_t p = end;
            bool crlf = s[p] == '\r' && p + 1 < n && s[p + 1] == '\n';
            p += crlf ? 2 : 1;
            if (p >= n && !crlf) {
                // LineReader ends the line at a one-byte line break that ends the input, even
                // when nothing is left of it ("\\" LF at the end is the entry "" = "").
                pos_ = p;
                break;
            }
            while (p < n && ws(s[p])) {
                ++p;
            }
            if (p >= n || eol(s[p])) {
                // End of input, or an empty continuation line: the logical line ends here.
                pos_ = p;
                if (j.text.empty()) {
                    return -1;
                }
                break;
            }
            if (j.text.empty() && (s[p] == '#' || s[p] == '!')) {
                // Nothing before it on the logical line: a comment, as LineReader sees it.
                pos_ = p;
                skip_comment();
                return -1;
            }
            start = p;
            end = line_end(p);
            if (!continued(start, end)) {
                j.pieces.emplace_back(j.text.size(), start);
                j.text.append(in_.substr(start, end - start));
                pos_ = end;
                break;
            }
            if (end == n) {
                j.pieces.emplace_back(j.text.size(), start);
                j.text.append(in_.substr(start, end - 1 - start));
                pos_ = end;
                break;
            }
        }
        joined_ = true;
        line = j.text;
        return 1;
    }

    // Input offset of position `i` of the current logical line.
    std::size_t at(std::size_t i) const {
        if (!joined_) {
            return line_at_ + i;
        }
        const auto& pieces = s_.joined.pieces;
        std::size_t k = pieces.size();
        while (k > 1 && pieces[k - 1].first > i) {
            --k;
        }
        return pieces[k - 1].second + (i - pieces[k - 1].first);
    }

    // Properties.load0: splits the logical line into key and value.
    result<void> entry(std::string_view line) {
        const char* s = line.data();
        std::size_t len = line.size();
        std::size_t key_len = 0;
        std::size_t value_start = len;
        bool has_sep = false;
        // Runs of ordinary bytes are skipped 16 at a time (the scan stops at every control
        // byte too: those other than \t and \f are key bytes); a backslash escapes the next.
        bool key_escaped = false;
        for (;;) {
            key_len = static_cast<std::size_t>(
                scan_to_special4(s + key_len, s + len, '=', ':', ' ', '\\') - s);
            if (key_len >= len) {
                break;
            }
            const char c = s[key_len];
            if (c == '\\') {
                key_escaped = true;
                key_len = std::min(key_len + 2, len);
                continue;
            }
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\f') {
                ++key_len;
                continue;
            }
            value_start = key_len + 1;
            has_sep = c == '=' || c == ':';
            break;
        }
        while (value_start < len) {
            char c = s[value_start];
            if (!ws(c)) {
                if (!has_sep && (c == '=' || c == ':')) {
                    has_sep = true;
                } else {
                    break;
                }
            }
            ++value_start;
        }
        if (nest_ != nullptr) {
            return nested_entry(line, key_len, value_start, key_escaped);
        }
        if (offsets_ != nullptr) {
            offsets_->push_back(line_at_);
        }
        part_name_ = "key";
        POLYCODEC_TRY(convert(line.substr(0, key_len), 0));
        part_name_ = "value";
        return convert(line.substr(value_start), value_start);
    }

    error bad_escape(std::size_t i, std::string why) const {
        return make_error(errc::invalid_string, at(i), std::move(why));
    }

    // The entry's key and value for the nester: keys that do not lie in the input as they are
    // (escaped, or on a joined line) are copied to the arena, as is an escaped value.
    result<void> nested_entry(std::string_view line, std::size_t key_len,
                              std::size_t value_start, bool key_escaped) {
        std::string_view key = line.substr(0, key_len);
        std::string_view value = line.substr(value_start);
        if (key_escaped || joined_) {
            char* w = keys_;
            part_name_ = "key";
            POLYCODEC_TRY(unescape(key, 0, w));
            key = std::string_view(keys_, static_cast<std::size_t>(w - keys_));
            keys_ = w;
        }
        if (has_backslash(value)) {
            char* out = s_.arena.get() + in_.size();
            char* w = out;
            part_name_ = "value";
            POLYCODEC_TRY(unescape(value, value_start, w));
            value = std::string_view(out, static_cast<std::size_t>(w - out));
        }
        if (!nest_->add(key, value)) {
            abandoned_ = true;
        }
        return {};
    }

    // Properties.loadConvert: `part` starts at position `base` of the logical line.
    result<void> convert(std::string_view part, std::size_t base) {
        std::size_t len = part.size();
        if (!has_backslash(part)) {
            b_.add_string(part);
            return {};
        }
        // Escapes only shrink: \uXXXX (6 bytes) is at most 3 bytes of UTF-8, a pair 4 of 12.
        char* out = b_.begin_string(len);
        if (out == nullptr) {
            return fail(make_error(b_.status(), at(base), "document larger than its size budget"));
        }
        char* w = out;
        POLYCODEC_TRY(unescape(part, base, w));
        b_.end_string(w);
        return {};
    }

    // Writes `part` unescaped at `w` (room for part.size() bytes), advancing `w`.
    result<void> unescape(std::string_view part, std::size_t base, char*& w) {
        const char* s = part.data();
        std::size_t len = part.size();
        const void* bs = len == 0 ? nullptr : std::memchr(s, '\\', len);
        if (bs == nullptr) {
            std::memcpy(w, s, len);
            w += len;
            return {};
        }
        auto first = static_cast<std::size_t>(static_cast<const char*>(bs) - s);
        std::memcpy(w, s, first);
        w += first;
        std::size_t i = first;
        while (i < len) {
            char c = s[i];
            if (c != '\\') {
                *w++ = c;
                ++i;
                continue;
            }
            std::size_t esc = i;
            // LineReader drops an unescaped final backslash, so one always follows.
            c = s[i + 1];
            i += 2;
            switch (c) {
                case 't':
                    *w++ = '\t';
                    continue;
                case 'n':
                    *w++ = '\n';
                    continue;
                case 'r':
                    *w++ = '\r';
                    continue;
                case 'f':
                    *w++ = '\f';
                    continue;
                case 'u':
                    break;
                default:
                    *w++ = c;
                    continue;
            }
            std::uint32_t cp = 0;
            POLYCODEC_TRY(hex4(part, i, base + esc, cp));
            i += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(bad_escape(base + esc, "lone low surrogate in a \\uxxxx escape "
                                                   "has no UTF-8 form"));
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                std::uint32_t lo = 0;
                if (i + 1 >= len || s[i] != '\\' || s[i + 1] != 'u' ||
                    !hex4(part, i + 2, base + i, lo) || lo < 0xDC00 || lo > 0xDFFF) {
                    return fail(bad_escape(base + esc,
                                           "high surrogate in a \\uxxxx escape without a low "
                                           "surrogate escape after it has no UTF-8 form"));
                }
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            w += utf8_encode(cp, w);
        }
        return {};
    }

    // The four hex digits of \uXXXX at part[i..i+4); `esc` is the escape's line position.
    result<void> hex4(std::string_view part, std::size_t i, std::size_t esc,
                      std::uint32_t& cp) const {
        if (i + 4 > part.size()) {
            return fail(bad_escape(esc, std::string("malformed \\uxxxx escape: expected 4 hex "
                                                    "digits, saw the end of the ") +
                                            part_name_));
        }
        std::uint32_t v = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            int h = text::hex_value(part[i + k]);
            if (h < 0) {
                return fail(bad_escape(esc, "malformed \\uxxxx escape: expected a hex digit, saw " +
                                                shown(part[i + k])));
            }
            v = (v << 4) | static_cast<std::uint32_t>(h);
        }
        cp = v;
        return {};
    }

    std::string_view in_;
    builder& b_;
    std::vector<std::uint64_t>* offsets_;
    nester* nest_;
    char* keys_ = nullptr;  // where the next key goes in the arena
    bool abandoned_ = false;
    std::size_t pos_ = 0;
    std::size_t line_at_ = 0;  // input offset of the current logical line
    bool joined_ = false;      // the current line is s_.joined.text
    const char* part_name_ = "key";
    reader_scratch& s_ = thread_scratch();

    static reader_scratch& thread_scratch() {
        thread_local reader_scratch s;
        return s;
    }
};

// ---- the fast path ----
// unflatten and/or infer on the common file, in one pass that writes the tape directly
// (detail/tape_writer.hpp): natural lines `key=value`, `key: value`, `key value` with neither
// a backslash (no escapes, no continuation lines) nor an empty dotted part in them, whose
// keys nest as the nester takes them (consecutive keys of a group, arrays in index order, no
// repeated key, no key both a value and a group). A key's parts that it shares with the
// previous key are found by comparing the two keys' bytes, not split again. Anything else
// (invalid UTF-8 included) returns false and the nester, then the general path, read the
// input from the start; what the fast path finishes is the nester's document.

// n bytes from s to d, in at most four moves for up to 32 bytes.
[[gnu::always_inline]] inline void copy_short(char* d, const char* s, std::size_t n) {
    if (n >= 16 && n <= 32) {
        std::memcpy(d, s, 16);
        std::memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8 && n < 16) {
        std::memcpy(d, s, 8);
        std::memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        std::memcpy(d, s, 4);
        std::memcpy(d + n - 4, s + n - 4, 4);
    } else if (n != 0 && n < 4) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    } else if (n != 0) {
        std::memcpy(d, s, n);
    }
}

// The key bytes past the shared prefix, by class.
constexpr std::uint8_t key_dot = 1;
constexpr std::uint8_t key_sep = 2;   // '=', ':', ' ', '\t', '\f': the key ends
constexpr std::uint8_t key_eol = 3;   // LF, CR: the key ends, the value is empty
constexpr std::uint8_t key_bail = 4;  // a backslash: not for the fast path
// Bytes before a line's key: white space and line breaks.
constexpr byte_table skip_bytes = make_byte_table([](unsigned char c) -> std::uint8_t {
    return c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' ? 1 : 0;
});
constexpr byte_table key_bytes = make_byte_table([](unsigned char c) -> std::uint8_t {
    switch (c) {
        case '.':
            return key_dot;
        case '=':
        case ':':
        case ' ':
        case '\t':
        case '\f':
            return key_sep;
        case '\n':
        case '\r':
            return key_eol;
        case '\\':
            return key_bail;
        default:
            return 0;
    }
});

// Fixed steps under 2 KiB: glibc zero-fills larger growths with `rep stosb`, which costs far
// more instructions per byte (callgrind: 84k per operation on bench.json at <512, 4096, true>).
using fast_tape = tape_writer<224, 1792, false>;

// What textinfer::add_classified makes of a text, recorded (the fast path writes it).
struct typed_text {
    kind k = kind::string;
    std::uint64_t bits = 0;
    void add_string(std::string_view) { k = kind::string; }
    void add_bignum(std::string_view) { k = kind::bignum; }
    void add_bool(bool v) { k = v ? kind::boolean_true : kind::boolean_false; }
    void add_int(std::int64_t v) {
        k = kind::int64;
        bits = static_cast<std::uint64_t>(v);
    }
    void add_uint(std::uint64_t v) {
        k = v <= static_cast<std::uint64_t>(INT64_MAX) ? kind::int64 : kind::uint64;
        bits = v;
    }
    void add_double(double d) {
        k = kind::float64;
        std::memcpy(&bits, &d, 8);
    }
};

[[gnu::noinline]] typed_text type_text(std::string_view s) {
    typed_text t;
    textinfer::add_classified(t, s);
    return t;
}

// The first of LF, CR and backslash in [p, e), or e.
[[gnu::always_inline]] inline const char* value_end(const char* p, const char* e) {
#if defined(__SSE2__)
    const __m128i lf = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r');
    const __m128i bs = _mm_set1_epi8('\\');
    while (e - p >= 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int m = _mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, cr)), _mm_cmpeq_epi8(x, bs)));
        if (m != 0) {
            return p + __builtin_ctz(static_cast<unsigned>(m));
        }
        p += 16;
    }
#endif
    while (p < e && *p != '\n' && *p != '\r' && *p != '\\') {
        ++p;
    }
    return p;
}

// The length of the longest common prefix of a[0, n) and b[0, n).
[[gnu::always_inline]] inline std::size_t same_prefix(const char* a, const char* b,
                                                      std::size_t n) {
    std::size_t i = 0;
    if constexpr (std::endian::native == std::endian::little) {
        if (n >= 8) {
            std::uint64_t x, y;
            for (; i + 8 <= n; i += 8) {
                std::memcpy(&x, a + i, 8);
                std::memcpy(&y, b + i, 8);
                if (x != y) {
                    return i + static_cast<std::size_t>(__builtin_ctzll(x ^ y) / 8);
                }
            }
            // The last n % 8 bytes in the word that ends at n (its first bytes are equal).
            std::memcpy(&x, a + n - 8, 8);
            std::memcpy(&y, b + n - 8, 8);
            return x == y ? n : n - 8 + static_cast<std::size_t>(__builtin_ctzll(x ^ y) / 8);
        }
    }
    while (i < n && a[i] == b[i]) {
        ++i;
    }
    return i;
}

// The decimal digits from t (before `stop`) summed into acc; where they end.
[[gnu::always_inline]] inline const char* sum_digits(const char* t, const char* stop,
                                                     std::uint64_t& acc) {
    for (; t < stop; ++t) {
        const auto dg = static_cast<unsigned>(static_cast<unsigned char>(*t) - '0');
        if (dg > 9) {
            break;
        }
        acc = acc * 10 + dg;
    }
    return t;
}

// Whether a[0, n) and b[0, n) are the same bytes.
[[gnu::always_inline]] inline bool same_bytes(const char* a, const char* b, std::size_t n) {
    if (n < 8) {
        return std::memcmp(a, b, n) == 0;
    }
    std::uint64_t x, y;
    for (std::size_t i = 0; i + 8 < n; i += 8) {
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        if (x != y) {
            return false;
        }
    }
    std::memcpy(&x, a + n - 8, 8);
    std::memcpy(&y, b + n - 8, 8);
    return x == y;
}

class fast_reader {
public:
    static constexpr std::size_t max_parts = 64;

    fast_reader(std::string_view in, builder& b, bool nest, bool infer)
        : in_(in), b_(b), nest_(nest), infer_(infer) {}
    ~fast_reader() { names_.trim(); }
    fast_reader(const fast_reader&) = delete;
    fast_reader& operator=(const fast_reader&) = delete;

    // The document into the (empty) builder, or false: nothing is decided, the builder holds
    // junk (the caller resets it).
    bool run() {
        if (utf8_valid_prefix(in_) != in_.size() || b_.limits().max_depth < 2) {
            return false;
        }
        names_.reset();
        fast_tape tw(b_);
        // Roughly the document of a flattened file (two words and a few bytes a line), so that
        // growth is rare; the tape writer zero-fills only what it grows into.
        tw.reserve(in_.size() / 4 + 64, in_.size() / 4 + 64);
        std::uint64_t* w = tw.hot_words(2);
        tw.open(w, kind::map, 0);
        levels_[0] = level{0, 0, names_.mark(), ++serial_, false};
        std::size_t open = 1;       // levels_[0, open) are open
        std::size_t prev_parts = 0;  // the previous key's parts (0: nothing to share)
        std::size_t prev_d = 0;      // how many parts it shared with the one before
        const char* prev_key = nullptr;
        std::size_t prev_len = 0;
        std::size_t flat_bytes = 16;  // the flat document's size, as the nester counts it
        const std::size_t max_bytes = b_.limits().max_bytes;
        const std::size_t max_depth = b_.limits().max_depth;
        const char* p = in_.data();
        const char* const e = p + in_.size();
        for (;;) {
            p += p + 1 < e && *p == '\n' ? 1 : 0;  // the common line break, then the rest
            while (p < e && skip_bytes[static_cast<unsigned char>(*p)] != 0) {
                ++p;
            }
            if (p == e) {
                break;
            }
            if (*p == '#' || *p == '!') {
                while (p < e && !eol(*p)) {
                    ++p;
                }
                continue;
            }
            const char* key = p;
            // The parts shared with the previous key: those of its parts, but its last, that
            // end before the first byte where the two differ (its bytes hold no separator).
            std::size_t d = 0;
            std::size_t from = 0;
            if (prev_parts > 1) {
                // Mostly all of them: the key starts as the previous one up to its last part.
                const std::size_t last = ends_[prev_parts - 2] + 1;
                if (last <= static_cast<std::size_t>(e - key) && same_bytes(prev_key, key, last)) {
                    d = prev_parts - 1;
                    from = last;
                    goto shared;
                }
                const std::size_t lim = std::min(prev_len, static_cast<std::size_t>(e - key));
                const std::size_t same = same_prefix(prev_key, key, lim);
                // Mostly as many as the previous key shared.
                if (prev_d != 0 && ends_[prev_d - 1] < same &&
                    (prev_d + 1 >= prev_parts || ends_[prev_d] >= same)) {
                    d = prev_d;
                } else {
                    while (d + 1 < prev_parts && ends_[d] < same) {
                        ++d;
                    }
                }
                from = d == 0 ? 0 : ends_[d - 1] + 1;
            }
        shared:
            prev_d = d;
            std::size_t np = d;
            const char* q = key + from;
            std::uint8_t c = key_eol;
            // In an array, mostly its next index ends the key: read as a number at once.
            bool counted = false;
            if (levels_[d].array) {
                std::uint64_t acc = 0;
                const char* const t = sum_digits(q, q + std::min<std::ptrdiff_t>(19, e - q), acc);
                const std::uint8_t tc = t < e ? key_bytes[static_cast<unsigned char>(*t)] : key_eol;
                if (t != q && (tc == key_sep || tc == key_eol) && (t - q == 1 || *q != '0') &&
                    acc == levels_[d].count) {
                    counted = true;
                    q = t;
                    c = tc;
                }
            }
            for (; !counted && q < e; ++q) {
                c = key_bytes[static_cast<unsigned char>(*q)];
                if (c == 0) {
                    continue;
                }
                if (c != key_dot) {
                    break;
                }
                if (!nest_) {
                    continue;
                }
                const auto at = static_cast<std::size_t>(q - key);
                if (at == from || np + 1 >= max_parts) {
                    return false;  // an empty part (the key stays whole), or too deep
                }
                ends_[np++] = at;
                from = at + 1;
            }
            if (q == e) {
                c = key_eol;
            }
            if (c == key_bail) {
                return false;
            }
            const auto key_len = static_cast<std::size_t>(q - key);
            if (key_len == from) {
                return false;  // the empty key, or one that ends in a dot
            }
            ends_[np++] = key_len;
            // The separator: white space, at most one '=' or ':', white space.
            const char* v = q;
            if (c == key_sep) {
                bool has_sep = *v == '=' || *v == ':';
                ++v;
                for (; v < e; ++v) {
                    const char x = *v;
                    if (!ws(x)) {
                        if (has_sep || (x != '=' && x != ':')) {
                            break;
                        }
                        has_sep = true;
                    }
                }
            }
            // An integer value of up to 18 digits (textinfer::add's fast case) is summed as the
            // line's end is looked for; anything else is scanned to its end, then typed.
            const char* ve = v;
            bool is_int = false;
            std::uint64_t int_bits = 0;
            if (infer_) {
                const bool minus = ve < e && *ve == '-';
                const char* const digits = ve + (minus ? 1 : 0);
                std::uint64_t acc = 0;
                const char* const t =
                    sum_digits(digits, digits + std::min<std::ptrdiff_t>(18, e - digits), acc);
                if (t != digits && (t == e || eol(*t)) && (t - digits == 1 || *digits != '0')) {
                    is_int = true;
                    int_bits = minus ? 0 - acc : acc;
                    ve = t;
                }
            }
            if (!is_int) {
                ve = value_end(v, e);
                if (ve != e && *ve == '\\') {
                    return false;
                }
            }
            const std::string_view value(v, static_cast<std::size_t>(ve - v));
            p = ve;
            flat_bytes += 32 + key_len + value.size();
            if (flat_bytes > max_bytes) {
                return false;
            }
            // Close what the key leaves, add its parts, open what it enters.
            while (open > d + 1) {
                const level& l = levels_[--open];
                tw.close(l.start, l.count);
                if (!l.array) {
                    names_.release(l.names_at);
                }
            }
            std::size_t begin = d == 0 ? 0 : ends_[d - 1] + 1;
            if (counted) {
                ++levels_[d].count;
            } else if (!add_kid(tw, levels_[d], std::string_view(key + begin, ends_[d] - begin))) {
                return false;
            }
            for (std::size_t j = d + 1; j < np; ++j) {
                begin = ends_[j - 1] + 1;
                const std::string_view name(key + begin, ends_[j] - begin);
                const bool array = name.size() == 1 && name[0] == '0';
                if ((!array && is_index_part(name)) || j >= max_depth) {
                    return false;  // may be an array in another order: the tree decides
                }
                const std::size_t start = tw.size();
                tw.open(tw.hot_words(2), array ? kind::array : kind::map, 0);
                levels_[j] = level{start, 0, names_.mark(), ++serial_, array};
                open = j + 1;
                if (!add_kid(tw, levels_[j], name)) {
                    return false;
                }
            }
            prev_key = key;
            prev_len = key_len;
            prev_parts = np;
            if (is_int) {
                fast_tape::scalar(tw.hot_words(2), kind::int64, int_bits);
                tw.advance(2);
            } else if (infer_) {
                add_typed(tw, value);
            } else {
                add_text(tw, kind::string, value);
            }
        }
        while (open > 0) {
            const level& l = levels_[--open];
            tw.close(l.start, l.count);
        }
        if (tw.over_budget(max_bytes)) {
            return false;
        }
        tw.finish();
        return true;
    }

private:
    struct level {
        std::size_t start;     // the header's tape index
        std::size_t count;     // kids so far
        std::size_t names_at;  // a map's kid_names mark
        std::uint32_t serial;
        bool array;
    };

    // A decimal fraction in JSON grammar ("-17.5": no exponent, no leading zero) of at most
    // 15 digits and 22 after the point, as parse_double reads it: the digits as an integer
    // and one division by a power of ten, both exact, so the quotient is correctly rounded.
    static bool short_decimal(std::string_view s, double& out) {
        static constexpr double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        const std::size_t n = s.size();
        std::size_t i = s[0] == '-' ? 1 : 0;
        const std::size_t int_at = i;
        std::uint64_t m = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; ++i) {
            m = m * 10 + static_cast<unsigned>(s[i] - '0');
        }
        const std::size_t int_len = i - int_at;
        if (int_len == 0 || (int_len > 1 && s[int_at] == '0') || i == n || s[i] != '.') {
            return false;
        }
        const std::size_t frac_at = ++i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; ++i) {
            m = m * 10 + static_cast<unsigned>(s[i] - '0');
        }
        const std::size_t frac_len = i - frac_at;
        if (i != n || frac_len == 0 || frac_len > 22 || int_len + frac_len > 15) {
            return false;
        }
        const double v = static_cast<double>(m) / pow10[frac_len];
        out = int_at != 0 ? -v : v;
        return true;
    }

    // Whether `name` is the index `count` (index_name's text: decimal, no leading zero).
    [[gnu::always_inline]] static bool is_count(std::string_view name, std::size_t count) {
        const std::size_t n = name.size();
        if (n == 0 || n > 19 || (n > 1 && name[0] == '0')) {
            return false;
        }
        std::uint64_t v = 0;
        for (const char c : name) {
            const auto dg = static_cast<unsigned>(static_cast<unsigned char>(c) - '0');
            if (dg > 9) {
                return false;
            }
            v = v * 10 + dg;
        }
        return v == count;
    }
    static bool is_index_part(std::string_view s) {
        std::uint64_t v = 0;
        return unflatten_impl::index_name(s, UINT64_MAX, v);
    }

    [[gnu::always_inline]] static void add_text(fast_tape& tw, kind k, std::string_view s) {
        char* d = tw.hot_bytes(s.size());
        if (s.size() <= 32) {
            copy_short(d, s.data(), s.size());
        } else {
            std::memcpy(d, s.data(), s.size());
        }
        tw.payload(tw.hot_words(2), k, 0, s.size());
    }

    // textinfer::add on the tape for a value that is not an integer of up to 18 digits (the
    // line loop takes those).
    [[gnu::always_inline]] static void add_typed(fast_tape& tw, std::string_view s) {
        const char c0 = s.empty() ? 'x' : s[0];
        if (!(c0 == '-' || (c0 >= '0' && c0 <= '9') || c0 == 't' || c0 == 'f' || c0 == 'N' ||
              c0 == 'I')) {
            add_text(tw, kind::string, s);
            return;
        }
        if (s.size() == 4 && std::memcmp(s.data(), "true", 4) == 0) {
            *tw.hot_words(1) = tape_word(kind::boolean_true, 0, 0);
            tw.advance(1);
            return;
        }
        if (s.size() == 5 && std::memcmp(s.data(), "false", 5) == 0) {
            *tw.hot_words(1) = tape_word(kind::boolean_false, 0, 0);
            tw.advance(1);
            return;
        }
        double f = 0;
        if (short_decimal(s, f)) {
            std::uint64_t bits;
            std::memcpy(&bits, &f, 8);
            fast_tape::scalar(tw.hot_words(2), kind::float64, bits);
            tw.advance(2);
            return;
        }
        const typed_text t = type_text(s);
        switch (t.k) {
            case kind::string:
            case kind::bignum:
                add_text(tw, t.k, s);
                return;
            case kind::boolean_true:
            case kind::boolean_false:
                *tw.hot_words(1) = tape_word(t.k, 0, 0);
                tw.advance(1);
                return;
            default:
                fast_tape::scalar(tw.hot_words(2), t.k, t.bits);
                tw.advance(2);
                return;
        }
    }

    // Kid `name` of level `l`: its key, for a map; false where the tree would differ.
    [[gnu::always_inline]] bool add_kid(fast_tape& tw, level& l, std::string_view name) {
        if (l.array) {
            if (!is_count(name, l.count)) {
                return false;
            }
        } else {
            if (!names_.add(l.serial, l.names_at, l.count, name)) {
                return false;
            }
            add_text(tw, kind::string, name);
        }
        ++l.count;
        return true;
    }

    std::string_view in_;
    builder& b_;
    bool nest_;
    bool infer_;
    std::uint32_t serial_ = 0;
    kid_names& names_ = kid_names::local();
    level levels_[max_parts];
    std::size_t ends_[max_parts];  // the current key's parts end at key[ends_[i]]
};

}  // namespace

bool decode_properties_fast(std::string_view in, builder& b, const decode_options& opt) {
    if ((!opt.unflatten && !opt.infer) || b.depth() != 0 || b.next_index() != 0) {
        return false;
    }
    fast_reader r(in, b, opt.unflatten, opt.infer);
    if (r.run()) {
        return true;
    }
    b.reset();
    return false;
}

namespace {

result<void> decode_properties(std::string_view in, builder& b, const decode_options& opt) {
    if (decode_properties_fast(in, b, opt)) {
        return {};
    }
    if (!opt.unflatten && !opt.infer) {
        properties_reader r(in, b, nullptr);
        return r.run();
    }
    {
        nester nest(b, opt.unflatten, opt.infer);
        properties_reader r(in, b, nullptr, &nest);
        POLYCODEC_TRY(r.run());
        if (!r.abandoned()) {
            return {};
        }
    }
    b.reset();  // the general path below reads it (and finds any error)
    thread_local document flat;
    thread_local std::vector<std::uint64_t> offsets;
    offsets.clear();
    builder fb(flat, b.limits());
    {
        properties_reader r(in, fb, &offsets);
        POLYCODEC_TRY(r.run());
    }
    unflatten_options uo;
    uo.separator = ".";
    uo.nest = opt.unflatten;
    uo.infer = opt.infer;
    uo.arrays = true;
    uo.last_wins = true;
    uo.whole_if_empty_part = true;
    uo.noun = "key";
    auto r = unflatten(flat.root(), b, uo, offsets);
    if (offsets.capacity() * sizeof(std::uint64_t) > scratch_keep_bytes) {
        std::vector<std::uint64_t>().swap(offsets);
    }
    return r;
}

// ---- writer ----

constexpr char hex_digits[] = "0123456789ABCDEF";

// Bytes that saveConvert writes as they are: in a key (key_plain), and in a value past its
// first byte (value_plain: a space too; a leading space is escaped).
constexpr std::uint8_t key_plain = 1;
constexpr std::uint8_t value_plain = 2;
constexpr std::uint8_t part_plain = 4;  // key_plain but not '.'

struct plain_table {
    std::uint8_t bits[256] = {};
    constexpr plain_table() {
        for (int c = 0x21; c < 0x7f; ++c) {
            if (c != '=' && c != ':' && c != '#' && c != '!' && c != '\\') {
                bits[c] = key_plain | value_plain | (c != '.' ? part_plain : 0);
            }
        }
        bits[static_cast<unsigned char>(' ')] = value_plain;
    }
};
constexpr plain_table plain_bytes;

// The end of the run of bytes of class `bit` that starts at p[i] (n when it reaches the end):
// sixteen bytes a step while that many are left, then by the table.
inline std::size_t plain_run(const unsigned char* p, std::size_t i, std::size_t n,
                             std::uint8_t bit) {
#if defined(__SSE2__)
    if (n - i >= 16) {
        // Plain: above 0x20 (0x1F in a value), below 0x7F, none of = : # ! and backslash
        // (nor '.' for part_plain).
        // Signed compares: bytes from 0x80 are negative, so not above the low bound.
        const __m128i low = _mm_set1_epi8(bit == value_plain ? 0x1F : 0x20);
        // part_plain: no dot either ('=' stands in for it in the other classes).
        const __m128i dot = _mm_set1_epi8(bit == part_plain ? '.' : '=');
        const __m128i del = _mm_set1_epi8(0x7F);
        const __m128i eq = _mm_set1_epi8('=');
        const __m128i colon = _mm_set1_epi8(':');
        const __m128i hash = _mm_set1_epi8('#');
        const __m128i bang = _mm_set1_epi8('!');
        const __m128i bs = _mm_set1_epi8('\\');
        do {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            const __m128i specials =
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, eq), _mm_cmpeq_epi8(x, colon)),
                             _mm_or_si128(_mm_cmpeq_epi8(x, hash), _mm_cmpeq_epi8(x, bang)));
            const __m128i others =
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, bs), _mm_cmpeq_epi8(x, del)),
                             _mm_or_si128(_mm_cmpeq_epi8(x, dot),
                                          _mm_cmpeq_epi8(_mm_cmpgt_epi8(x, low),
                                                         _mm_setzero_si128())));
            const __m128i bad = _mm_or_si128(specials, others);
            const int mask = _mm_movemask_epi8(bad);
            if (mask != 0) {
                return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
            }
            i += 16;
        } while (n - i >= 16);
    }
#endif
    while (i < n && (plain_bytes.bits[p[i]] & bit) != 0) {
        ++i;
    }
    return i;
}

void put_u(output_buffer& out, std::uint32_t unit) {
    char buf[6] = {'\\', 'u', hex_digits[(unit >> 12) & 15], hex_digits[(unit >> 8) & 15],
                   hex_digits[(unit >> 4) & 15], hex_digits[unit & 15]};
    out.append(std::string_view(buf, 6));
}

// Properties.saveConvert with escapeUnicode: what Properties.store(OutputStream) writes, so the
// output is ASCII and reads back the same with load(Reader) and load(InputStream) alike.
// `key`: every space is escaped; in a value only a leading one. Runs of plain bytes are found
// by plain_run and copied whole.
void escape(output_buffer& out, std::string_view s, bool key) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    const std::uint8_t bit = key ? key_plain : value_plain;
    std::size_t i = 0;
    if (!key && n != 0 && p[0] == ' ') {
        out.append("\\ ");
        i = 1;
    }
    while (i < n) {
        const std::size_t run = plain_run(p, i, n, bit);
        if (run != i) {
            out.append(p + i, run - i);
            i = run;
            if (i >= n) {
                break;
            }
        }
        const unsigned char c = p[i];
        switch (c) {
            case ' ':  // in a key
                out.append("\\ ");
                ++i;
                continue;
            case '\\':
                out.append("\\\\");
                ++i;
                continue;
            case '\t':
                out.append("\\t");
                ++i;
                continue;
            case '\n':
                out.append("\\n");
                ++i;
                continue;
            case '\r':
                out.append("\\r");
                ++i;
                continue;
            case '\f':
                out.append("\\f");
                ++i;
                continue;
            case '=':
            case ':':
            case '#':
            case '!':
                out.push_back('\\');
                out.push_back(static_cast<char>(c));
                ++i;
                continue;
            default:
                break;
        }
        if (c < 0x80) {  // other controls and DEL
            put_u(out, c);
            ++i;
            continue;
        }
        // UTF-8 (valid: the document's strings are) to UTF-16 code units.
        std::uint32_t cp = 0;
        std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
        for (std::size_t k = 1; k < len && i + k < n; ++k) {
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        i += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            put_u(out, 0xD800 + (cp >> 10));
            put_u(out, 0xDC00 + (cp & 0x3FF));
        } else {
            put_u(out, cp);
        }
    }
}

bool is_index_name(std::string_view s, std::uint64_t limit) {
    std::uint64_t v = 0;
    return unflatten_impl::index_name(s, limit, v);
}

struct write_scratch {
    std::string key_text, text, names;
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // (kid, offset in names)
    std::vector<std::string_view> kids;                      // one map's key texts
    std::vector<std::string_view> sorted;
    output_buffer prefix;
};

class properties_writer {
public:
    properties_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}
    ~properties_writer() {
        for (std::string* s : {&s_.key_text, &s_.text, &s_.names}) {
            if (s->capacity() > scratch_keep_bytes) {
                std::string().swap(*s);
            }
        }
        if (s_.prefix.capacity() > scratch_keep_bytes) {
            s_.prefix.shrink(scratch_keep_bytes);
        }
    }
    properties_writer(const properties_writer&) = delete;
    properties_writer& operator=(const properties_writer&) = delete;

    result<void> write_root(value root) {
        nested_ = false;
        for (auto [k, v] : root.entries()) {
            (void)k;
            if (v.is_container()) {
                nested_ = true;
                break;
            }
        }
        prefix_.clear();
        return write_map(root);
    }

private:
    // The text of key `k`: strings as they are, integers in decimal; others under lossy.
    result<void> key_text(value k) {
        if (k.kind() == kind::string) {
            key_view_ = k.get_string();
            return {};
        }
        if (k.kind() == kind::int64 || k.kind() == kind::uint64 || k.kind() == kind::bignum) {
            textinfer::scalar_text(k, key_);
            key_view_ = key_;
            return {};
        }
        if (!allow_lossy(opt_, k, "key_to_string", "key written as its text")) {
            return fail(unrepresentable(
                k, "map key " + to_debug_string(k) + " is not representable in properties"));
        }
        key_ = to_debug_string(k);
        key_view_ = key_;
        return {};
    }

    // Nested output unflatten would read back differently: refused with `message`, or under
    // lossy=allow written as is and recorded as "key_ambiguous" with `what`.
    result<void> ambiguous(value v, std::string_view what, const std::string& message) {
        if (!allow_lossy(opt_, v, "key_ambiguous", what)) {
            return fail(unrepresentable(v, message));
        }
        return {};
    }

    // Nested output is read back by unflatten=true: a part must be non-empty and free of
    // dots, and a map must not look like an array (keys exactly 0..n-1) nor repeat a key.
    result<void> check_part(value k, std::string_view part) {
        if (!nested_) {
            return {};
        }
        if (part.empty() || part.find('.') != std::string_view::npos) {
            return ambiguous(k, "key written as is; unflatten reads it differently",
                             "key \"" + std::string(part) +
                                 "\" is not representable in nested properties (empty, or "
                                 "holding the separator '.'; unflatten would read it "
                                 "differently)");
        }
        return {};
    }

    // Six bits of a key's text that repeats have alike: its size, first and last byte.
    static unsigned digest(std::string_view s) {
        if (s.empty()) {
            return 0;
        }
        return (static_cast<unsigned>(s.size()) * 7 + static_cast<unsigned char>(s.front()) +
                static_cast<unsigned char>(s.back()) * 3) & 63;
    }

    result<void> check_map_keys(value m) {
        if (!nested_ || m.size() < 1) {
            return {};
        }
        // Up to 32 string keys whose digests all differ cannot repeat: the common case, with
        // no list of the keys made and no pairs compared.
        const std::uint64_t count = m.size();
        if (count > 32) {
            return check_map_keys_by_list(m);
        }
        std::uint64_t seen = 0;
        bool all_index = true;
        for (auto [k, v] : m.entries()) {
            (void)v;
            if (k.kind() != kind::string) {
                return check_map_keys_by_list(m);
            }
            const std::string_view sv = k.get_string();
            const unsigned h = digest(sv);
            if ((seen >> h & 1) != 0) {
                return check_map_keys_by_list(m);
            }
            seen |= std::uint64_t{1} << h;
            all_index = all_index && is_index_name(sv, count);
        }
        return check_all_index(m, all_index);
    }

    result<void> check_all_index(value m, bool all_index) {
        if (all_index && m.doc()->root().index() != m.index()) {
            return ambiguous(m, "map written as is; unflatten reads it as an array",
                             "a map whose keys are 0..n-1 is not representable in nested "
                             "properties (unflatten reads it back as an array)");
        }
        return {};
    }

    // check_map_keys from the list of the key texts.
    result<void> check_map_keys_by_list(value m) {
        // String keys are viewed where they are; the text of other keys goes to `names`
        // (their views are set once it stops growing).
        auto& kids = s_.kids;
        std::string& names = s_.names;
        auto& spans = s_.spans;
        kids.clear();
        names.clear();
        spans.clear();
        bool all_index = true;
        std::string t;
        for (auto [k, v] : m.entries()) {
            (void)v;
            if (k.kind() == kind::string) {
                std::string_view sv = k.get_string();
                kids.push_back(sv);
                all_index = all_index && is_index_name(sv, m.size());
            } else {
                textinfer::scalar_text(k, t);
                if (t.empty() && !k.is_null()) {
                    t = to_debug_string(k);
                }
                spans.emplace_back(kids.size(), names.size());
                kids.emplace_back(nullptr, t.size());
                names.append(t);
                all_index = all_index && is_index_name(t, m.size());
            }
        }
        for (auto [kid, at] : spans) {
            kids[kid] = std::string_view(names).substr(at, kids[kid].size());
        }
        std::string_view repeated;
        if (kids.size() <= 32) {
            for (std::size_t i = 0; i < kids.size() && repeated.empty(); ++i) {
                const std::string_view a = kids[i];
                for (std::size_t j = i + 1; j < kids.size(); ++j) {
                    const std::string_view b = kids[j];
                    if (a.size() == b.size() && (a.empty() || a[0] == b[0]) && a == b) {
                        repeated = a;
                        break;
                    }
                }
            }
        } else {
            auto& sorted = s_.sorted;
            sorted.assign(kids.begin(), kids.end());
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t i = 1; i < sorted.size(); ++i) {
                if (sorted[i] == sorted[i - 1]) {
                    repeated = sorted[i];
                    break;
                }
            }
        }
        if (repeated.data() != nullptr) {
            return ambiguous(m, "repeated key written twice; unflatten keeps the last",
                             "key \"" + std::string(repeated) +
                                 "\" appears twice in a map; nested properties cannot hold "
                                 "that (unflatten keeps the last)");
        }
        return check_all_index(m, all_index);
    }

    result<void> write_map(value m) {
        POLYCODEC_TRY(check_map_keys(m));
        const std::size_t len = prefix_.size();
        const document* doc = m.doc();
        for (std::size_t at = m.index() + 2, end = m.end_index(); at < end;) {
            const value k(doc, at);
            const value v(doc, k.end_index());
            at = v.end_index();
            POLYCODEC_TRY(key_text(k));
            if (!nested_ && v.kind() != kind::tagged) {
                // A flat map: the key goes straight to the output (no prefix to build).
                direct_key_ = true;
                if (!scalar_line(v)) {
                    POLYCODEC_TRY(write_value(v));
                }
                direct_key_ = false;
                continue;
            }
            // A short key of plain bytes and no dot (check_part has nothing to say of it) is
            // its own text: a scalar's line is the prefix, the dot and the key. Else the key
            // goes to the prefix escaped, as for containers.
            const auto* kp = reinterpret_cast<const unsigned char*>(key_view_.data());
            const std::size_t kn = key_view_.size();
            const bool simple = kn != 0 && kn <= max_tail && plain_run(kp, 0, kn, part_plain) == kn;
            if (!simple) {
                POLYCODEC_TRY(check_part(k, key_view_));
            }
            prefix_.truncate(len);
            if (!direct_key_ && simple) {
                dot_ = len != 0;
                tail_ = key_view_;
                const bool done = scalar_line(v);
                dot_ = false;
                tail_ = {};
                if (done) {
                    continue;
                }
            }
            if (len != 0) {
                prefix_.push_back('.');
            }
            escape(prefix_, key_view_, true);
            if (!scalar_line(v)) {
                POLYCODEC_TRY(write_value(v));
            }
        }
        prefix_.truncate(len);
        return {};
    }

    // The index at the end of prefix_ (from `at`, its dot) plus one: "x.9" to "x.10".
    void next_index(std::size_t at) {
        char* s = prefix_.data_mut() + at;
        std::size_t k = prefix_.size() - at - 1;
        for (; k > 0 && s[k] == '9'; --k) {
            s[k] = '0';
        }
        if (k == 0) {
            s[1] = '1';
            prefix_.push_back('0');
        } else {
            ++s[k];
        }
    }

    result<void> write_array(value a) {
        // The element's index is counted in place at the end of the prefix (the lines and
        // containers below only ever write after it, and cut the prefix back to it).
        const std::size_t len = prefix_.size();
        const document* doc = a.doc();
        prefix_.append(".0", 2);
        for (std::size_t at = a.index() + 2, end = a.end_index(); at < end; next_index(len)) {
            const value v(doc, at);
            at = v.end_index();
            if (!scalar_line(v)) {
                POLYCODEC_TRY(write_value(v));
            }
        }
        prefix_.truncate(len);
        return {};
    }

    // Where the next n bytes of out_ go (prepare without the call).
    [[gnu::always_inline]] char* room(std::size_t n) {
        if (out_.size() + n > out_.capacity()) [[unlikely]] {
            out_.reserve(out_.size() + n);
        }
        return out_.data_mut() + out_.size();
    }

    // The line's key and '=' written, with room for `room` more bytes after them: where the
    // value goes (finish_line(end) commits up to `end` and ends the line). The key is
    // key_view_ escaped (direct_key_), or prefix_ and, with a tail_, a dot when dot_ and
    // tail_. The prefix is copied 16 bytes a move, some bytes past its end (in its buffer,
    // which has room for them) too: the line's next bytes overwrite them.
    [[gnu::always_inline]] char* begin_line(std::size_t room) {
        if (direct_key_) {
            escape(out_, key_view_, true);
            char* w = this->room(1 + room + 1);
            *w = '=';
            line_ = w;
            return w + 1;
        }
        const std::size_t n = prefix_.size();
        const char* pre = prefix_.data();
        char* w = this->room(n + 16 + 1 + max_tail + 1 + room + 1);
        line_ = w;
        if (n + 16 <= prefix_.capacity()) [[likely]] {
            for (std::size_t i = 0; i < n; i += 16) {
                std::memcpy(w + i, pre + i, 16);
            }
        } else if (n != 0) {
            std::memcpy(w, pre, n);
        }
        w += n;
        if (!tail_.empty()) {
            *w = '.';
            w += dot_ ? 1 : 0;
            copy_short(w, tail_.data(), tail_.size());
            w += tail_.size();
        }
        *w = '=';
        return w + 1;
    }
    [[gnu::always_inline]] void finish_line(char* end) {
        *end++ = '\n';
        out_.commit(static_cast<std::size_t>(end - line_));
    }
    // A line whose value is `text`, escaped.
    [[gnu::noinline]] void text_line(std::string_view text) {
        const auto* p = reinterpret_cast<const unsigned char*>(text.data());
        const std::size_t n = text.size();
        if (n == 0 || (p[0] != ' ' && plain_run(p, 0, n, value_plain) == n)) {
            char* w = begin_line(n);
            if (n != 0) {
                copy_short(w, text.data(), n);
            }
            finish_line(w + n);
            return;
        }
        char* w = begin_line(0);
        out_.commit(static_cast<std::size_t>(w - line_));
        escape(out_, text, false);
        out_.push_back('\n');
    }

    // The line of scalar `v` when it is a string, number or boolean (numbers and booleans are
    // plain bytes, written where they go); false, and nothing written, for anything else.
    [[gnu::always_inline]] bool scalar_line(value v) {
        if (v.kind() == kind::int64) {
            char* w = begin_line(24);
            const std::int64_t i = v.get_int();
            std::uint64_t u = static_cast<std::uint64_t>(i);
            *w = '-';
            w += i < 0 ? 1 : 0;
            u = i < 0 ? 0 - u : u;
            if (u < 100) {  // as write_uint_digits, without the call
                w[0] = static_cast<char>('0' + u / 10);
                w[1] = static_cast<char>('0' + u % 10);
                finish_line(w + (u < 10 ? (w[0] = w[1], 1) : 2));
                return true;
            }
            finish_line(write_uint_digits(w, u));
            return true;
        }
        if (v.kind() == kind::string) {
            text_line(v.get_string());
            return true;
        }
        return other_scalar_line(v);
    }
    [[gnu::noinline]] bool other_scalar_line(value v) {
        switch (v.kind()) {
            case kind::string:
                text_line(v.get_string());
                return true;
            case kind::uint64:
                finish_line(write_uint_digits(begin_line(24), v.get_uint()));
                return true;
            case kind::boolean_true:
            case kind::boolean_false: {
                const bool t = v.kind() == kind::boolean_true;
                char* w = begin_line(5);
                std::memcpy(w, t ? "true" : "false", 5);
                finish_line(w + (t ? 4 : 5));
                return true;
            }
            case kind::float64: {
                const double d = v.get_double();
                if (!std::isfinite(d)) {
                    text_line(std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
                    return true;
                }
                char* w = begin_line(48);
                bool integral = false;
                w += shortest_double_chars(w, d, &integral);
                if (integral) {
                    *w++ = '.';
                    *w++ = '0';
                }
                finish_line(w);
                return true;
            }
            default:
                return false;
        }
    }

    result<void> write_value(value v) {
        value inner = v;
        while (inner.kind() == kind::tagged) {
            POLYCODEC_TRY(drop_tag(opt_, inner, "properties"));
            inner = inner.tagged_value();
        }
        switch (inner.kind()) {
            case kind::map:
            case kind::array:
                if (inner.size() == 0) {
                    if (!allow_lossy(opt_, inner, "empty_container_dropped",
                                     "empty container dropped")) {
                        return fail(unrepresentable(
                            inner, std::string("an empty ") +
                                       (inner.kind() == kind::map ? "map" : "array") +
                                       " is not representable in properties"));
                    }
                    return {};
                }
                return inner.kind() == kind::map ? write_map(inner) : write_array(inner);
            case kind::null:
                if (!allow_lossy(opt_, inner, "null_to_empty", "null written as an empty value")) {
                    return fail(unrepresentable(inner, "null is not representable in properties"));
                }
                finish_line(begin_line(0));
                return {};
            default:
                if (!scalar_line(inner)) {  // timestamps, bignums, bytes: their text, escaped
                    textinfer::scalar_text(inner, text_);
                    text_line(text_);
                }
                return {};
        }
    }

    static write_scratch& thread_scratch() {
        thread_local write_scratch s;
        return s;
    }

    output_buffer& out_;
    const encode_options& opt_;
    write_scratch& s_ = thread_scratch();
    std::string& key_ = s_.key_text;
    std::string& text_ = s_.text;
    output_buffer& prefix_ = s_.prefix;
    bool nested_ = false;
    bool direct_key_ = false;     // begin_line writes key_view_, not prefix_
    std::string_view key_view_;   // the current key's text (k's own, or key_)
    char* line_ = nullptr;        // where begin_line's line starts in out_
    static constexpr std::size_t max_tail = 32;
    bool dot_ = false;            // begin_line writes a dot and tail_ after prefix_
    std::string_view tail_;
};

result<void> encode_properties(const document& doc, output_buffer& out,
                               const encode_options& opt) {
    value root = doc.root();
    POLYCODEC_TRY(detail::require_map_root(root, "properties"));
    properties_writer w(out, opt);
    return w.write_root(root);
}

}  // namespace

const codec_functions properties_codec{decode_properties, encode_properties};

}  // namespace polycodec::detail
