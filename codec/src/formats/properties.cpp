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
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "detail/infer.hpp"
#include "detail/lossy.hpp"
#include "detail/text.hpp"
#include "detail/text_reader.hpp"
#include "detail/try.hpp"
#include "detail/unflatten.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr std::size_t scratch_keep_bytes = std::size_t{16} << 20;

inline bool ws(char c) { return c == ' ' || c == '\t' || c == '\f'; }
inline bool eol(char c) { return c == '\n' || c == '\r'; }

int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

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
        s_.names.clear();
        if (s_.table_used != 0) {
            std::fill(s_.table.begin(), s_.table.end(), slot{});
            s_.table_used = 0;
        }
        flat_bytes_ = 16;
    }
    ~nester() {
        if (s_.table.capacity() * sizeof(slot) > scratch_keep_bytes) {
            std::vector<slot>().swap(s_.table);
            s_.table_used = 0;
        }
    }
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
            levels.push_back(level{array, 0, s_.names.size(), next_serial()});
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
        std::size_t names_at;  // this map's kid names start at s_.names[names_at]
        std::uint32_t serial;
        std::string_view last{};
    };
    struct slot {
        std::uint32_t serial = 0;  // 0: empty
        std::uint32_t hash = 0;
        std::string_view name;
    };
    struct scratch {
        std::vector<level> levels;
        std::vector<std::string_view> names;
        std::vector<slot> table;
        std::size_t table_used = 0;
    };
    static constexpr std::size_t linear_kids = 16;

    // The length of the longest common prefix of a and b.
    static std::size_t common_prefix(std::string_view a, std::string_view b) {
        const std::size_t n = std::min(a.size(), b.size());
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t x, y;
            std::memcpy(&x, a.data() + i, 8);
            std::memcpy(&y, b.data() + i, 8);
            if (x != y) {
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
            s_.names.resize(l.names_at);
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
            if (!new_name(l, name)) {
                return false;
            }
            b_.add_string(name);
        }
        ++l.count;
        l.last = name;
        return true;
    }

    // Whether map `l` has no kid `name` yet; records it.
    bool new_name(level& l, std::string_view name) {
        auto& names = s_.names;
        if (l.count < linear_kids) {
            for (std::size_t i = l.names_at; i < names.size(); ++i) {
                if (names[i] == name) {
                    return false;
                }
            }
            names.push_back(name);
            if (l.count + 1 == linear_kids) {
                for (std::size_t i = l.names_at; i < names.size(); ++i) {
                    insert(l.serial, names[i]);
                }
            }
            return true;
        }
        return insert(l.serial, name);
    }

    // Inserts (serial, name) into the open-addressing table, false when it is there already.
    bool insert(std::uint32_t serial, std::string_view name) {
        auto& t = s_.table;
        if ((s_.table_used + 1) * 2 > t.size()) {
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
                ++s_.table_used;
                return true;
            }
            if (sl.hash == h && sl.serial == serial && sl.name == name) {
                return false;
            }
        }
    }
    void place(const slot& o) {
        auto& t = s_.table;
        const std::size_t mask = t.size() - 1;
        std::size_t i = o.hash & mask;
        while (t[i].serial != 0) {
            i = (i + 1) & mask;
        }
        t[i] = o;
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
    std::vector<std::string_view>& parts_ = parts_scratch();
    static std::vector<std::string_view>& parts_scratch() {
        thread_local std::vector<std::string_view> p;
        return p;
    }
};

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
        std::size_t valid = utf8_valid_prefix(in_);
        if (valid != in_.size()) {
            return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
        }
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
    // The end of the natural line that starts at `p` (its CR or LF, or the end of input).
    // memchr (vectorised in libc) for the next LF and the next CR, each remembered until the
    // scan passes it, so a file of CR-only lines is still read in one pass.
    std::size_t line_end(std::size_t p) {
        const char* s = in_.data();
        std::size_t n = in_.size();
        if (p >= n) {
            return n;
        }
        if (next_lf_ < p || next_lf_ == unknown) {
            const void* lf = std::memchr(s + p, '\n', n - p);
            next_lf_ = lf == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(lf) - s);
        }
        if (next_cr_ < p || next_cr_ == unknown) {
            const void* cr = std::memchr(s + p, '\r', n - p);
            next_cr_ = cr == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(cr) - s);
        }
        return std::min(next_lf_, next_cr_);
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
        if (!value.empty() && std::memchr(value.data(), '\\', value.size()) != nullptr) {
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
        const char* s = part.data();
        std::size_t len = part.size();
        const void* bs = len == 0 ? nullptr : std::memchr(s, '\\', len);
        if (bs == nullptr) {
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
            int h = hex_value(part[i + k]);
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
    static constexpr std::size_t unknown = SIZE_MAX;
    std::size_t pos_ = 0;
    std::size_t next_lf_ = unknown;  // line_end's memory: the next LF, CR at or after a scan
    std::size_t next_cr_ = unknown;
    std::size_t line_at_ = 0;  // input offset of the current logical line
    bool joined_ = false;      // the current line is s_.joined.text
    const char* part_name_ = "key";
    reader_scratch& s_ = thread_scratch();

    static reader_scratch& thread_scratch() {
        thread_local reader_scratch s;
        return s;
    }
};

result<void> decode_properties(std::string_view in, builder& b, const decode_options& opt) {
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

// Bytes that saveConvert writes as they are (a space only inside a value, past its start).
struct plain_table {
    bool plain[256] = {};
    constexpr plain_table() {
        for (int c = 0x21; c < 0x7f; ++c) {
            plain[c] = c != '=' && c != ':' && c != '#' && c != '!' && c != '\\';
        }
    }
};
constexpr plain_table plain_bytes;

void put_u(output_buffer& out, std::uint32_t unit) {
    char buf[6] = {'\\', 'u', hex_digits[(unit >> 12) & 15], hex_digits[(unit >> 8) & 15],
                   hex_digits[(unit >> 4) & 15], hex_digits[unit & 15]};
    out.append(std::string_view(buf, 6));
}

// Properties.saveConvert with escapeUnicode: what Properties.store(OutputStream) writes, so the
// output is ASCII and reads back the same with load(Reader) and load(InputStream) alike.
// `key`: every space is escaped; in a value only a leading one.
void escape(output_buffer& out, std::string_view s, bool key) {
    const char* p = s.data();
    std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        std::size_t run = i;
        while (run < n) {
            auto c = static_cast<unsigned char>(p[run]);
            if (!plain_bytes.plain[c] && (c != ' ' || key || run == 0)) {
                break;
            }
            ++run;
        }
        if (run != i) {
            out.append(s.substr(i, run - i));
            i = run;
            if (i >= n) {
                break;
            }
        }
        auto c = static_cast<unsigned char>(p[i]);
        switch (c) {
            case ' ':
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
            cp = (cp << 6) | (static_cast<unsigned char>(p[i + k]) & 0x3F);
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
    std::vector<std::size_t> path;       // prefix_ length before each open level
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // key texts of one map in names
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

    // Nested output is read back by unflatten=true: a part must be non-empty and free of
    // dots, and a map must not look like an array (keys exactly 0..n-1) nor repeat a key.
    result<void> check_part(value k, std::string_view part) {
        if (!nested_) {
            return {};
        }
        if (part.empty() || part.find('.') != std::string_view::npos) {
            if (!allow_lossy(opt_, k, "key_ambiguous", "key written as is; unflatten reads it "
                                                        "differently")) {
                return fail(unrepresentable(
                    k, "key \"" + std::string(part) +
                           "\" is not representable in nested properties (empty, or holding "
                           "the separator '.'; unflatten would read it differently)"));
            }
        }
        return {};
    }

    result<void> check_map_keys(value m) {
        if (!nested_ || m.size() < 1) {
            return {};
        }
        std::string& names = s_.names;
        auto& spans = s_.spans;
        names.clear();
        spans.clear();
        bool all_index = true;
        for (auto [k, v] : m.entries()) {
            (void)v;
            std::string t;
            if (k.kind() == kind::string) {
                std::string_view sv = k.get_string();
                spans.emplace_back(names.size(), sv.size());
                names.append(sv);
                all_index = all_index && is_index_name(sv, m.size());
            } else {
                textinfer::scalar_text(k, t);
                if (t.empty() && !k.is_null()) {
                    t = to_debug_string(k);
                }
                spans.emplace_back(names.size(), t.size());
                names.append(t);
                all_index = all_index && is_index_name(t, m.size());
            }
        }
        auto name = [&](std::size_t i) {
            return std::string_view(names).substr(spans[i].first, spans[i].second);
        };
        std::string_view repeated;
        if (spans.size() <= 32) {
            for (std::size_t i = 0; i < spans.size() && repeated.empty(); ++i) {
                for (std::size_t j = i + 1; j < spans.size(); ++j) {
                    if (name(i) == name(j)) {
                        repeated = name(i);
                        break;
                    }
                }
            }
        } else {
            auto& sorted = s_.sorted;
            sorted.clear();
            for (std::size_t i = 0; i < spans.size(); ++i) {
                sorted.push_back(name(i));
            }
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t i = 1; i < sorted.size(); ++i) {
                if (sorted[i] == sorted[i - 1]) {
                    repeated = sorted[i];
                    break;
                }
            }
        }
        if (repeated.data() != nullptr) {
            if (!allow_lossy(opt_, m, "key_ambiguous",
                             "repeated key written twice; unflatten keeps the last")) {
                return fail(unrepresentable(
                    m, "key \"" + std::string(repeated) +
                           "\" appears twice in a map; nested properties cannot hold that "
                           "(unflatten keeps the last)"));
            }
            return {};
        }
        if (all_index && m.doc()->root().index() != m.index()) {
            if (!allow_lossy(opt_, m, "key_ambiguous",
                             "map written as is; unflatten reads it as an array")) {
                return fail(unrepresentable(
                    m, "a map whose keys are 0..n-1 is not representable in nested properties "
                       "(unflatten reads it back as an array)"));
            }
        }
        return {};
    }

    result<void> write_map(value m) {
        POLYCODEC_TRY(check_map_keys(m));
        std::size_t len = prefix_.size();
        for (auto [k, v] : m.entries()) {
            POLYCODEC_TRY(key_text(k));
            if (!nested_ && v.kind() != kind::tagged) {
                // A flat map: the key goes straight to the output (no prefix to build).
                direct_key_ = true;
                POLYCODEC_TRY(write_value(v));
                direct_key_ = false;
                continue;
            }
            POLYCODEC_TRY(check_part(k, key_view_));
            prefix_.truncate(len);
            if (len != 0) {
                prefix_.push_back('.');
            }
            escape(prefix_, key_view_, true);
            POLYCODEC_TRY(write_value(v));
        }
        prefix_.truncate(len);
        return {};
    }

    result<void> write_array(value a) {
        std::size_t len = prefix_.size();
        std::size_t i = 0;
        char buf[24];
        for (value v : a.items()) {
            prefix_.truncate(len);
            prefix_.push_back('.');
            auto r = std::to_chars(buf, buf + sizeof buf, i);
            prefix_.append(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
            POLYCODEC_TRY(write_value(v));
            ++i;
        }
        prefix_.truncate(len);
        return {};
    }

    result<void> write_value(value v) {
        value inner = v;
        while (inner.kind() == kind::tagged) {
            if (!allow_lossy(opt_, inner, "tag_dropped", "tag dropped, inner value kept")) {
                return fail(unrepresentable(inner, "tag " + std::to_string(inner.tag()) +
                                                       " is not representable in properties"));
            }
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
                text_.clear();
                break;
            case kind::string:
                break;
            default:
                textinfer::scalar_text(inner, text_);
        }
        if (direct_key_) {
            escape(out_, key_view_, true);
        } else {
            out_.append(prefix_.view());
        }
        out_.push_back('=');
        escape(out_, inner.kind() == kind::string ? inner.get_string() : std::string_view(text_),
                false);
        out_.push_back('\n');
        return {};
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
    bool direct_key_ = false;     // write_value writes key_view_, not prefix_
    std::string_view key_view_;   // the current key's text (k's own, or key_)
};

result<void> encode_properties(const document& doc, output_buffer& out,
                               const encode_options& opt) {
    value root = doc.root();
    if (root.kind() != kind::map) {
        return fail(unrepresentable(root, "a root that is not a map is not representable in "
                                          "properties"));
    }
    properties_writer w(out, opt);
    return w.write_root(root);
}

}  // namespace

const codec_functions properties_codec{decode_properties, encode_properties};

}  // namespace polycodec::detail
