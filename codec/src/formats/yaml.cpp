// YAML 1.2 (core schema). Decoding is our own parser, writing the tape as it reads (no
// tokens, no events, no tree); the encoder is our own block-style writer.
// See docs/formats/yaml.md for every decision (tags, timestamps, quoting).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "detail/ascii.hpp"
#include "detail/base64.hpp"
#include "detail/exponent_scan.hpp"
#include "detail/lossy.hpp"
#include "detail/number.hpp"
#include "detail/quote_doubled.hpp"
#include "detail/raw_scalar.hpp"
#include "detail/text.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/try.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr std::string_view yaml_tag_prefix = "tag:yaml.org,2002:";

// ---- scalar resolution (YAML 1.2.2 section 10.3.2, core schema) ----

bool all_of(std::string_view s, bool (*pred)(char)) {
    if (s.empty()) {
        return false;
    }
    for (char c : s) {
        if (!pred(c)) {
            return false;
        }
    }
    return true;
}
bool is_oct(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_dig(char c) { return is_digit(c); }

bool core_null(std::string_view s) {
    return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}
int core_bool(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE") {
        return 1;
    }
    if (s == "false" || s == "False" || s == "FALSE") {
        return 0;
    }
    return -1;
}

// Decimal text of the unsigned number `digits` in `base` (digits already validated), for
// integers outside 64 bits.
std::string to_decimal(std::string_view digits, unsigned base) {
    std::vector<std::uint32_t> limbs;  // base 1e9, least significant first
    for (char c : digits) {
        unsigned d = is_digit(c) ? unsigned(c - '0') : unsigned(to_lower(c) - 'a' + 10);
        std::uint64_t carry = d;
        for (auto& l : limbs) {
            std::uint64_t v = std::uint64_t{l} * base + carry;
            l = static_cast<std::uint32_t>(v % 1000000000u);
            carry = v / 1000000000u;
        }
        while (carry != 0) {
            limbs.push_back(static_cast<std::uint32_t>(carry % 1000000000u));
            carry /= 1000000000u;
        }
    }
    if (limbs.empty()) {
        return "0";
    }
    std::string out = std::to_string(limbs.back());
    for (std::size_t i = limbs.size() - 1; i-- > 0;) {
        std::string part = std::to_string(limbs[i]);
        out.append(9 - part.size(), '0');
        out += part;
    }
    return out;
}

// Appends the integer `s` (core schema forms: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+).
// Returns false when `s` is not such an integer.
bool add_core_int(builder& b, std::string_view s) {
    if (s.size() <= 18) {
        // Up to 18 characters: an optional sign and at most 18 digits fit in int64.
        std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
        if (i < s.size() && !(s.size() > i + 1 && s[i] == '0' && (s[i + 1] == 'o' || s[i + 1] == 'x'))) {
            std::int64_t v = 0;
            std::size_t k = i;
            for (; k < s.size() && is_digit(s[k]); ++k) {
                v = v * 10 + (s[k] - '0');
            }
            if (k == s.size()) {
                b.add_int(s[0] == '-' ? -v : v);
                return true;
            }
            if (i == 1 || k != i) {
                return false;  // a sign or digits, then something else: not an integer
            }
        }
    }
    bool neg = false;
    std::string_view body = s;
    unsigned base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
        base = s[1] == 'o' ? 8 : 16;
        body = s.substr(2);
        if (!all_of(body, base == 8 ? is_oct : is_hex)) {
            return false;
        }
    } else {
        if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
            neg = body[0] == '-';
            body.remove_prefix(1);
        }
        if (!all_of(body, is_dig)) {
            return false;
        }
    }
    std::uint64_t v = 0;
    auto r = std::from_chars(body.data(), body.data() + body.size(), v, static_cast<int>(base));
    if (r.ec == std::errc() && r.ptr == body.data() + body.size()) {
        if (!neg) {
            b.add_uint(v);
            return true;
        }
        if (v <= std::uint64_t{1} << 63) {
            b.add_int(v == std::uint64_t{1} << 63 ? INT64_MIN : -static_cast<std::int64_t>(v));
            return true;
        }
    }
    std::string dec = to_decimal(body, base);
    if (neg) {
        dec.insert(0, 1, '-');
    }
    b.add_bignum(dec);
    return true;
}

// Appends the float `s` (core schema forms). Returns false when `s` is not one.
bool add_core_float(builder& b, std::string_view s) {
    std::string_view t = s;
    bool neg = false;
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
        neg = t[0] == '-';
        t.remove_prefix(1);
    }
    if (t == ".inf" || t == ".Inf" || t == ".INF") {
        b.add_double(neg ? -HUGE_VAL : HUGE_VAL);
        return true;
    }
    if (s == ".nan" || s == ".NaN" || s == ".NAN") {
        b.add_double(std::nan(""));
        return true;
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    std::size_t i = 0;
    std::size_t int_digits = 0;
    while (i < t.size() && is_digit(t[i])) {
        ++i;
        ++int_digits;
    }
    std::size_t frac_digits = 0;
    bool dot = false;
    if (i < t.size() && t[i] == '.') {
        dot = true;
        ++i;
        while (i < t.size() && is_digit(t[i])) {
            ++i;
            ++frac_digits;
        }
    }
    if (int_digits == 0 && frac_digits == 0) {
        return false;
    }
    if (int_digits == 0 && !dot) {
        return false;
    }
    bool exp = i < t.size() && (t[i] == 'e' || t[i] == 'E');
    if (!skip_exponent(t, i)) {
        return false;
    }
    if (i != t.size() || (!dot && !exp)) {
        return false;
    }
    double d = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec == std::errc::result_out_of_range) {
        // Overflow reads as infinity, underflow as zero (as the reference loaders do); a
        // text of 400 digits and a fraction overflows too (fuzz_diff_yaml read it as 0.0).
        d = text::decimal_overflows(t) ? HUGE_VAL : 0.0;
    } else if (r.ec != std::errc()) {
        return false;
    }
    b.add_double(neg ? -d : d);
    return true;
}

// YAML 1.1 timestamp forms (https://yaml.org/type/timestamp.html), plus a bare time
// (HH:MM:SS[.frac]) for TOML's local time. Writes the RFC 3339 text (separator 'T', 'Z'
// upper case, two-digit month/day/hour) and its kind; false when `s` matches none.
bool parse_timestamp(std::string_view s, std::string& out, timestamp_kind& k) {
    out.clear();
    std::size_t i = 0;
    auto digits = [&](std::size_t min, std::size_t max) -> std::string_view {
        std::size_t start = i;
        while (i < s.size() && is_digit(s[i]) && i - start < max) {
            ++i;
        }
        if (i - start < min) {
            return {};
        }
        return s.substr(start, i - start);
    };
    auto two = [&](std::string_view d) {
        if (d.size() == 1) {
            out += '0';
        }
        out += d;
    };
    auto time_part = [&]() -> bool {
        std::string_view h = digits(1, 2);
        if (h.empty() || i >= s.size() || s[i] != ':') {
            return false;
        }
        ++i;
        std::string_view m = digits(2, 2);
        if (m.empty() || i >= s.size() || s[i] != ':') {
            return false;
        }
        ++i;
        std::string_view sec = digits(2, 2);
        if (sec.empty()) {
            return false;
        }
        two(h);
        out += ':';
        out += m;
        out += ':';
        out += sec;
        if (i < s.size() && s[i] == '.') {
            ++i;
            std::string_view f = digits(1, 64);
            if (f.empty()) {
                return false;
            }
            out += '.';
            out += f;
        }
        return true;
    };
    // A bare time.
    if (s.size() >= 5 && (s[1] == ':' || s[2] == ':')) {
        if (!time_part() || i != s.size()) {
            return false;
        }
        k = timestamp_kind::local_time;
        return true;
    }
    std::string_view y = digits(4, 4);
    if (y.empty() || i >= s.size() || s[i] != '-') {
        return false;
    }
    ++i;
    std::string_view mo = digits(1, 2);
    if (mo.empty() || i >= s.size() || s[i] != '-') {
        return false;
    }
    ++i;
    std::string_view d = digits(1, 2);
    if (d.empty()) {
        return false;
    }
    out += y;
    out += '-';
    two(mo);
    out += '-';
    two(d);
    if (i == s.size()) {
        k = timestamp_kind::local_date;
        return mo.size() == 2 && d.size() == 2;  // a date alone needs two digits (1.1 regex)
    }
    if (s[i] == 'T' || s[i] == 't') {
        ++i;
    } else if (s[i] == ' ' || s[i] == '\t') {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) {
            ++i;
        }
    } else {
        return false;
    }
    out += 'T';
    if (!time_part()) {
        return false;
    }
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) {
        ++i;
    }
    if (i == s.size()) {
        k = timestamp_kind::local_date_time;
        return true;
    }
    k = timestamp_kind::offset_date_time;
    if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == s.size()) {
        out += 'Z';
        return true;
    }
    if (s[i] != '+' && s[i] != '-') {
        return false;
    }
    out += s[i++];
    std::string_view oh = digits(1, 2);
    if (oh.empty()) {
        return false;
    }
    two(oh);
    out += ':';
    if (i < s.size() && s[i] == ':') {
        ++i;
        std::string_view om = digits(2, 2);
        if (om.empty()) {
            return false;
        }
        out += om;
    } else {
        out += "00";
    }
    return i == s.size();
}

// ---- parser ----
//
// A YAML 1.2 parser of our own, recursive descent over the bytes, writing the tape through
// the builder as it goes: no token queue, no event objects, no node tree. A plain or quoted
// scalar on one line is a view of the input; folded, escaped and block scalars are written
// into one reused scratch buffer. The only lookahead is the implicit-key probe, which scans
// at most the rest of one line (and never more than `max_key_probe` bytes, YAML's own limit
// on implicit keys being 1024 characters).

constexpr std::size_t max_key_probe = 4096;

inline bool y_ws(char c) { return c == ' ' || c == '\t'; }
inline bool y_break(char c) { return c == '\n' || c == '\r'; }
inline bool y_flow_ind(char c) {
    return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}
inline bool y_indicator(char c) {
    switch (c) {
        case '-': case '?': case ':': case ',': case '[': case ']': case '{': case '}':
        case '#': case '&': case '*': case '!': case '|': case '>': case '\'': case '"':
        case '%': case '@': case '`':
            return true;
        default:
            return false;
    }
}

// Bytes at which a plain scalar's scan stops to look: bit 1 in block context, bit 2 in flow.
constexpr auto make_plain_stop() {
    std::array<std::uint8_t, 256> t{};
    for (unsigned char c : {' ', '\t', '\n', '\r', ':', '#'}) {
        t[c] = 3;
    }
    for (unsigned char c : {',', '[', ']', '{', '}'}) {
        t[c] = 2;
    }
    return t;
}
constexpr auto plain_stop = make_plain_stop();

enum class yctx : std::uint8_t { doc, seq_entry, map_value, explicit_entry };

struct yanchor {
    std::size_t index = 0;  // tape index of the anchored node
    std::size_t size = 0;   // its words * 8 + payload bytes, once complete
    bool complete = false;
};

struct yprops {
    const char* tag = nullptr;  // the tag's '!', null when none
    const char* tag_end = nullptr;
    const char* anchor = nullptr;  // the name after '&'
    const char* anchor_end = nullptr;
    const char* start = nullptr;  // the first property
    bool any() const { return tag != nullptr || anchor != nullptr; }
};

struct ynode_mark {
    std::size_t index;
    std::size_t bytes;
};

// Scratch buffers kept per thread, so that a steady stream of decodes allocates nothing.
std::string& yaml_scratch() {
    thread_local std::string s;
    return s;
}
std::string& yaml_tag_scratch() {
    thread_local std::string s;
    return s;
}

#define YTRY(...)          \
    do {                   \
        if (!(__VA_ARGS__)) { \
            return false;  \
        }                  \
    } while (false)

class yaml_parser {
public:
    result<void> parse() {
        if (!run()) {
            return fail(std::move(err_));
        }
        return {};
    }

    yaml_parser(std::string_view in, builder& b, const decode_options& opt)
        : in_(in),
          beg_(in.data()),
          end_(in.data() + in.size()),
          p_(in.data()),
          ls_(in.data()),
          b_(b),
          opt_(opt),
          scratch_(yaml_scratch()),
          tagbuf_(yaml_tag_scratch()) {
        budget0_ = in.size() * 10 + (std::size_t{1} << 20);
        budget_ = budget0_;
    }

private:
    bool run() {
        if (in_.empty()) {
            if (opt_.multi) {
                if (!b_.begin_array()) {
                    return fail_(limit_error(b_, 0));
                }
                b_.end_array();
            } else {
                b_.add_null();
            }
            return true;
        }
        YTRY(check_characters());
        if (in_.size() >= 3 && in_.substr(0, 3) == "\xEF\xBB\xBF") {
            p_ += 3;
            ls_ = p_;
        }
        if (opt_.multi && !b_.begin_array()) {
            return fail_(limit_error(b_, 0));
        }
        std::size_t documents = 0;
        bool after_end_marker = true;  // directives are allowed: stream start or after '...'
        skip_to_content();
        for (;;) {
            bool directives = false;
            bool yaml_directive = false;
            handles_.clear();
            while (p_ < end_ && *p_ == '%' && p_ == ls_) {
                if (!after_end_marker) {
                    return fail_(err(p_, "expected '...' before a directive (the previous document "
                                        "has no end marker), saw '%'"));
                }
                YTRY(directive(yaml_directive));
                directives = true;
            }
            if (p_ >= end_) {
                if (directives) {
                    return fail_(at(p_, "'---' after the directives"));
                }
                break;
            }
            const char* doc_start = p_;
            bool explicit_start = marker(p_, '-');
            if (!explicit_start) {
                if (directives) {
                    return fail_(at(p_, "'---' after the directives"));
                }
                if (marker(p_, '.')) {
                    // A document end marker with no document before it.
                    p_ += 3;
                    YTRY(end_line());
                    after_end_marker = true;
                    continue;
                }
            }
            if (documents == 1 && !opt_.multi) {
                return fail_(make_error(errc::trailing_content, off(doc_start),
                                       "expected end of stream, saw a second document "
                                       "(decode a stream with multi=true)"));
            }
            ++documents;
            anchors_.clear();
            if (explicit_start) {
                p_ += 3;
                YTRY(block_inline(-1, yctx::doc));
            } else {
                YTRY(block_fresh(-1, yctx::doc, yprops{}));
            }
            after_end_marker = false;
            if (p_ >= end_) {
                break;
            }
            if (marker(p_, '.')) {
                p_ += 3;
                YTRY(end_line());
                after_end_marker = true;
                continue;
            }
            if (!marker(p_, '-')) {
                return fail_(at(p_, "end of document ('---', '...' or end of input)"));
            }
        }
        if (opt_.multi) {
            b_.end_array();
        } else if (documents == 0) {
            b_.add_null();  // an empty stream is one null document
        }
        return true;
    }

    // ---- positions and errors ----

    // Internal steps return false after storing their error here (cheaper than a result<>
    // per call on the hot paths).
    bool fail_(error e) const {
        err_ = std::move(e);
        return false;
    }

    std::size_t off(const char* q) const { return static_cast<std::size_t>(q - beg_); }
    int col(const char* q) const { return static_cast<int>(q - ls_); }
    char ch(const char* q) const { return q < end_ ? *q : '\0'; }
    bool blankz(const char* q) const { return q >= end_ || y_ws(*q) || y_break(*q); }
    // c followed by white space, a line break or the end.
    bool ind_at(const char* q, char c) const { return q < end_ && *q == c && blankz(q + 1); }
    // '---' or '...' at the start of a line, followed by white space or the end.
    bool marker(const char* q, char c) const {
        return q == ls_ && end_ - q >= 3 && q[0] == c && q[1] == c && q[2] == c && blankz(q + 3);
    }
    // A '#' starts a comment only at a line start or after white space.
    bool comment_at(const char* q) const {
        return q < end_ && *q == '#' && (q == ls_ || y_ws(q[-1]) || y_break(q[-1]));
    }

    error at(const char* q, const char* expected) const {
        return unexpected_at(in_, off(q), expected);
    }
    error err(const char* q, std::string msg) const {
        return make_error(q >= end_ ? errc::unexpected_eof : errc::unexpected_char, off(q),
                          std::move(msg));
    }
    error limit(const char* q) const { return limit_error(b_, off(q)); }

    // Non-printable characters (YAML 1.2 section 5.1): C0 controls but tab, LF and CR; DEL;
    // C1 controls but NEL; U+FFFE and U+FFFF. The input is valid UTF-8 after this.
    bool check_characters() const {
        const std::size_t n = in_.size();
        const auto* u = reinterpret_cast<const unsigned char*>(in_.data());
        // Printable ASCII, tab, LF and CR, eight bytes at a time (exact per-byte masks, no
        // borrows across bytes); the first other byte ends the fast scan.
        constexpr std::uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
        constexpr std::uint64_t hi = 0x8080808080808080ull;
        auto zero_bytes = [](std::uint64_t v) { return ~(((v & lo7) + lo7) | v) & hi; };
        auto block_ok = [&](std::size_t at) {
            std::uint64_t x;
            std::memcpy(&x, u + at, 8);
            std::uint64_t below_space = ~(((x & lo7) + 0x6060606060606060ull) | x) & hi;
            std::uint64_t del_or_high = (((x & lo7) + 0x0101010101010101ull) | x) & hi;
            if (below_space != 0) {
                below_space &= ~(zero_bytes(x ^ 0x0a0a0a0a0a0a0a0aull) |
                                 zero_bytes(x ^ 0x0909090909090909ull) |
                                 zero_bytes(x ^ 0x0d0d0d0d0d0d0d0dull));
            }
            return (below_space | del_or_high) == 0;
        };
        std::size_t i = 0;
        while (i + 8 <= n && block_ok(i)) {
            i += 8;
        }
        if (i + 8 > n) {
            bool ascii = true;
            for (std::size_t k = i; k < n; ++k) {
                unsigned char c = u[k];
                if (c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
                    ascii = false;
                    break;
                }
            }
            if (ascii) {
                return true;
            }
        }
        const std::size_t valid = i + utf8_valid_prefix(in_.substr(i));
        while (i < valid) {
            if (i + 8 <= valid && block_ok(i)) {
                i += 8;
                continue;
            }
            unsigned char c = u[i];
            if (c < 0x20) {
                if (c != '\t' && c != '\n' && c != '\r') {
                    return fail_(unexpected_at(in_, i, "a printable character"));
                }
                ++i;
            } else if (c < 0x7f) {
                ++i;
            } else if (c == 0x7f) {
                return fail_(unexpected_at(in_, i, "a printable character"));
            } else if (c == 0xC2) {
                if (u[i + 1] < 0xA0 && u[i + 1] != 0x85) {
                    return fail_(make_error(errc::unexpected_char, i,
                                           "expected a printable character, saw a C1 control"));
                }
                i += 2;
            } else if (c == 0xEF && u[i + 1] == 0xBF && u[i + 2] >= 0xBE) {
                return fail_(make_error(errc::unexpected_char, i,
                                       "expected a printable character, saw U+FFFE or U+FFFF"));
            } else {
                i += c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            }
        }
        if (valid != n) {
            return fail_(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
        }
        return true;
    }

    // ---- lines ----

    void eat_break() {
        if (p_ < end_ && *p_ == '\r') {
            ++p_;
        }
        if (p_ < end_ && *p_ == '\n') {
            ++p_;
        }
        ls_ = p_;
    }

    // From a line start, skips blank and comment lines. Leaves p_ at the first non-blank
    // byte of the next content line (or the end), indent_ = its leading spaces, tabbed_ = a
    // tab between those and the content.
    void skip_to_content() {
        for (;;) {
            const char* q = p_;
            while (q < end_ && *q == ' ') {
                ++q;
            }
            indent_ = static_cast<int>(q - p_);
            const char* r = q;
            while (r < end_ && y_ws(*r)) {
                ++r;
            }
            tabbed_ = r != q;
            if (r < end_ && *r == '#') {
                while (r < end_ && !y_break(*r)) {
                    ++r;
                }
            }
            p_ = r;
            if (r < end_ && y_break(*r)) {
                eat_break();
                continue;
            }
            return;
        }
    }

    // After a node on its line: white space, a comment, then the line break.
    bool end_line() {
        const char* q = p_;
        while (q < end_ && y_ws(*q)) {
            ++q;
        }
        if (q < end_ && *q == '#') {
            if (!comment_at(q)) {
                return fail_(at(q, "white space before a comment"));
            }
            while (q < end_ && !y_break(*q)) {
                ++q;
            }
        }
        if (q < end_ && !y_break(*q)) {
            if (*q == ':') {
                return fail_(err(q, "expected end of line, saw ':' (a mapping key must be on one "
                                   "line, and a mapping cannot start on the line of a key or "
                                   "'---')"));
            }
            return fail_(at(q, "end of line"));
        }
        p_ = q;
        eat_break();
        skip_to_content();
        return true;
    }

    // ---- directives ----

    bool directive(bool& yaml_seen) {
        const char* start = p_;
        ++p_;
        const char* name = p_;
        while (p_ < end_ && !blankz(p_)) {
            ++p_;
        }
        std::string_view n(name, static_cast<std::size_t>(p_ - name));
        auto skip_ws = [&] {
            const char* s = p_;
            while (p_ < end_ && y_ws(*p_)) {
                ++p_;
            }
            return p_ != s;
        };
        if (n == "YAML") {
            if (yaml_seen) {
                return fail_(err(start, "expected one %YAML directive per document, saw a "
                                       "second one"));
            }
            yaml_seen = true;
            if (!skip_ws()) {
                return fail_(at(p_, "white space and a version after %YAML"));
            }
            const char* v = p_;
            while (p_ < end_ && is_digit(*p_)) {
                ++p_;
            }
            bool ok = p_ > v && ch(p_) == '.';
            const char* major_end = p_;
            if (ok) {
                ++p_;
                const char* m = p_;
                while (p_ < end_ && is_digit(*p_)) {
                    ++p_;
                }
                ok = p_ > m && blankz(p_);
            }
            if (!ok) {
                return fail_(at(p_, "a version such as 1.2 after %YAML"));
            }
            if (std::string_view(v, static_cast<std::size_t>(major_end - v)) != "1") {
                return fail_(err(v, "expected %YAML 1.x, saw an unsupported major version"));
            }
            return end_line();
        }
        if (n == "TAG") {
            if (!skip_ws()) {
                return fail_(at(p_, "white space and a tag handle after %TAG"));
            }
            const char* h = p_;
            if (ch(p_) != '!') {
                return fail_(at(p_, "a tag handle ('!', '!!' or '!name!')"));
            }
            ++p_;
            while (p_ < end_ && (is_digit(*p_) || is_alpha(*p_) || *p_ == '-')) {
                ++p_;
            }
            if (ch(p_) == '!') {
                ++p_;
            } else if (p_ != h + 1) {
                return fail_(at(p_, "'!' closing the tag handle"));
            }
            std::string_view handle(h, static_cast<std::size_t>(p_ - h));
            if (!blankz(p_) || !skip_ws()) {
                return fail_(at(p_, "white space and a tag prefix"));
            }
            const char* pre = p_;
            while (p_ < end_ && !blankz(p_)) {
                ++p_;
            }
            if (p_ == pre) {
                return fail_(at(p_, "a tag prefix"));
            }
            handles_.push_back({handle, std::string_view(pre, static_cast<std::size_t>(p_ - pre))});
            return end_line();
        }
        // A reserved directive: ignored (YAML 1.2 section 6.8).
        while (p_ < end_ && !y_break(*p_)) {
            ++p_;
        }
        eat_break();
        skip_to_content();
        return true;
    }

    // ---- properties, tags, anchors ----

    bool properties(yprops& pr) {
        while (p_ < end_ && (*p_ == '&' || *p_ == '!')) {
            const char* s = p_;
            if (pr.start == nullptr) {
                pr.start = s;
            }
            if (*p_ == '&') {
                if (pr.anchor != nullptr) {
                    return fail_(err(s, "expected one anchor per node, saw a second '&'"));
                }
                ++p_;
                while (p_ < end_ && !blankz(p_) && !y_flow_ind(*p_)) {
                    ++p_;
                }
                if (p_ == s + 1) {
                    return fail_(at(p_, "an anchor name after '&'"));
                }
                pr.anchor = s + 1;
                pr.anchor_end = p_;
            } else {
                if (pr.tag != nullptr) {
                    return fail_(err(s, "expected one tag per node, saw a second '!'"));
                }
                if (ch(p_ + 1) == '<') {
                    p_ += 2;
                    while (p_ < end_ && *p_ != '>' && !blankz(p_)) {
                        ++p_;
                    }
                    if (ch(p_) != '>' || p_ == s + 2) {
                        return fail_(at(p_, "'>' closing a verbatim tag"));
                    }
                    ++p_;
                } else {
                    ++p_;
                    while (p_ < end_ && !blankz(p_) && !y_flow_ind(*p_)) {
                        ++p_;
                    }
                }
                pr.tag = s;
                pr.tag_end = p_;
            }
            // A ',', ']' or '}' may end an empty node right after its properties; content,
            // a '[' or '{' included, needs white space first.
            if (p_ < end_ && !blankz(p_) && (!y_flow_ind(*p_) || *p_ == '[' || *p_ == '{')) {
                return fail_(at(p_, "white space after a node property"));
            }
            while (p_ < end_ && y_ws(*p_)) {
                ++p_;
            }
        }
        return true;
    }

    static int hexval(char c) {
        if (is_digit(c)) {
            return c - '0';
        }
        c = to_lower(c);
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    }

    // The full tag of `pr` (resolved through %TAG handles, %-escapes decoded), in tagbuf_.
    result<std::string_view> resolve_tag(const yprops& pr) {
        std::string_view t(pr.tag, static_cast<std::size_t>(pr.tag_end - pr.tag));
        if (t.size() >= 2 && t[1] == '<') {
            tagbuf_.assign(t.substr(2, t.size() - 3));
            return std::string_view(tagbuf_);
        }
        if (t == "!") {
            return std::string_view("!");
        }
        std::size_t h = 1;
        if (t[1] == '!') {
            h = 2;
        } else if (auto k = t.find('!', 1); k != std::string_view::npos) {
            h = k + 1;
        }
        std::string_view handle = t.substr(0, h);
        std::string_view suffix = t.substr(h);
        std::string_view prefix;
        bool found = false;
        for (auto it = handles_.rbegin(); it != handles_.rend(); ++it) {
            if (it->handle == handle) {
                prefix = it->prefix;
                found = true;
                break;
            }
        }
        if (!found) {
            if (handle == "!!") {
                prefix = yaml_tag_prefix;
            } else if (handle == "!") {
                prefix = "!";
            } else {
                return fail(err(pr.tag, "expected a tag handle declared by %TAG, saw " +
                                            std::string(handle)));
            }
        }
        if (suffix.empty() && h > 1) {
            return fail(at(pr.tag_end, "a tag suffix after the handle"));
        }
        tagbuf_.assign(prefix);
        for (std::size_t i = 0; i < suffix.size(); ++i) {
            if (suffix[i] == '%') {
                int a = i + 2 < suffix.size() ? hexval(suffix[i + 1]) : -1;
                int c = a >= 0 ? hexval(suffix[i + 2]) : -1;
                if (c < 0) {
                    return fail(err(pr.tag + h + i, "expected two hex digits after '%' in a tag"));
                }
                tagbuf_ += static_cast<char>(a * 16 + c);
                i += 2;
            } else {
                tagbuf_ += suffix[i];
            }
        }
        return std::string_view(tagbuf_);
    }

    // Our own local tags for tagged values: !cbor/N, !msgpack/N, !bson/N, !tag/N.
    static bool own_tag(std::string_view tag, tag_space& space, std::uint64_t& number) {
        static constexpr std::pair<std::string_view, tag_space> spaces[] = {
            {"!cbor/", tag_space::cbor},
            {"!msgpack/", tag_space::msgpack_ext},
            {"!bson/", tag_space::bson},
            {"!tag/", tag_space::other},
        };
        for (auto [prefix, sp] : spaces) {
            if (tag.substr(0, prefix.size()) == prefix) {
                std::string_view n = tag.substr(prefix.size());
                auto r = std::from_chars(n.data(), n.data() + n.size(), number);
                if (r.ec == std::errc() && r.ptr == n.data() + n.size()) {
                    space = sp;
                    return true;
                }
            }
        }
        return false;
    }

    // Starts a node: its tag (ours open a tagged value) and anchor. `tag` gets the resolved
    // tag ("" when none), valid until the next tag is resolved.
    bool open_node(const yprops& pr, ynode_mark& m, std::string_view& tag) {
        m = {b_.next_index(), b_.doc().bytes().size()};
        tag = {};
        if (pr.tag != nullptr) {
            auto t = resolve_tag(pr);
            if (!t) {
                return fail_(t.error());
            }
            tag = *t;
            tag_space space;
            std::uint64_t number = 0;
            if (own_tag(tag, space, number) && !b_.begin_tagged(number, space)) {
                return fail_(limit(pr.tag));
            }
        }
        if (pr.anchor != nullptr) {
            yanchor& a = anchors_[std::string_view(
                pr.anchor, static_cast<std::size_t>(pr.anchor_end - pr.anchor))];
            a.index = m.index;
            a.complete = false;
        }
        return true;
    }
    void close_node(const yprops& pr, const ynode_mark& m) {
        if (pr.anchor == nullptr) {
            return;
        }
        auto it = anchors_.find(
            std::string_view(pr.anchor, static_cast<std::size_t>(pr.anchor_end - pr.anchor)));
        if (it != anchors_.end() && it->second.index == m.index) {
            it->second.complete = true;
            it->second.size =
                (b_.next_index() - m.index) * 8 + (b_.doc().bytes().size() - m.bytes);
        }
    }

    bool alias(const yprops& pr) {
        const char* a = p_;
        if (pr.any()) {
            return fail_(err(a, "expected a node after properties, saw an alias (an alias "
                               "has no properties)"));
        }
        ++p_;
        while (p_ < end_ && !blankz(p_) && !y_flow_ind(*p_)) {
            ++p_;
        }
        std::string_view name(a + 1, static_cast<std::size_t>(p_ - a - 1));
        if (name.empty()) {
            return fail_(at(p_, "an anchor name after '*'"));
        }
        auto it = anchors_.find(name);
        if (it == anchors_.end()) {
            return fail_(err(a, "alias *" + std::string(name) + " refers to no anchor"));
        }
        if (!it->second.complete) {
            return fail_(err(a, "alias *" + std::string(name) + " refers to a node that "
                                                                "contains it"));
        }
        if (it->second.size > budget_) {
            return fail_(make_error(errc::size_exceeded, off(a),
                                   "aliases expand beyond the budget of " +
                                       std::to_string(budget0_) + " bytes"));
        }
        budget_ -= it->second.size;
        if (!b_.add_copy(value(&b_.doc(), it->second.index))) {
            return fail_(
                make_error(errc::size_exceeded, off(a), "document larger than its size budget"));
        }
        return true;
    }

    // ---- scalar values ----

    bool bad_value(const char* where, const char* what) {
        return fail_(make_error(errc::invalid_string, off(where),
                               std::string("invalid ") + what + " value"));
    }

    // A scalar with its properties: the core schema for untagged plain scalars, the tag's
    // type otherwise (docs/formats/yaml.md).
    bool scalar(std::string_view text, bool plain, const yprops& pr, const char* where) {
        if (!pr.any()) [[likely]] {
            if (plain) {
                resolve_plain(text);
            } else {
                b_.add_string(text);
            }
            return true;
        }
        ynode_mark m;
        std::string_view tag;
        YTRY(open_node(pr, m, tag));
        if (tag.substr(0, yaml_tag_prefix.size()) == yaml_tag_prefix) {
            YTRY(resolve_tagged(text, tag.substr(yaml_tag_prefix.size()),
                                         pr.start != nullptr ? pr.start : where));
        } else if (!plain || tag == "!") {
            b_.add_string(text);
        } else {
            resolve_plain(text);
        }
        close_node(pr, m);
        return true;
    }

    void resolve_plain(std::string_view s) {
        if (s.empty()) {
            b_.add_null();
            return;
        }
        char c = s[0];
        if (is_digit(c) || c == '-' || c == '+' || c == '.') {
            if (add_core_int(b_, s) || add_core_float(b_, s)) {
                return;
            }
        } else if (c == 'n' || c == 'N' || c == '~') {
            if (core_null(s)) {
                b_.add_null();
                return;
            }
        } else if (c == 't' || c == 'T' || c == 'f' || c == 'F') {
            if (int v = core_bool(s); v >= 0) {
                b_.add_bool(v == 1);
                return;
            }
        }
        b_.add_string(s);
    }

    bool resolve_tagged(std::string_view text, std::string_view name, const char* at) {
        if (name == "str") {
            b_.add_string(text);
        } else if (name == "null") {
            if (!core_null(text)) {
                return bad_value(at, "!!null");
            }
            b_.add_null();
        } else if (name == "bool") {
            int v = core_bool(text);
            if (v < 0) {
                return bad_value(at, "!!bool");
            }
            b_.add_bool(v == 1);
        } else if (name == "int") {
            if (text.empty() || !add_core_int(b_, text)) {
                return bad_value(at, "!!int");
            }
        } else if (name == "float") {
            if (text.empty() || !(add_core_float(b_, text))) {
                // An integer written as !!float: its value as a double.
                double d = 0;
                std::string_view t = text.size() > 1 && text[0] == '+' ? text.substr(1) : text;
                auto r = std::from_chars(t.data(), t.data() + t.size(), d);
                if (text.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
                    return bad_value(at, "!!float");
                }
                b_.add_double(d);
            }
        } else if (name == "binary") {
            // Base64 with any whitespace (line breaks in block scalars) ignored.
            std::string compact;
            compact.reserve(text.size());
            for (char c : text) {
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                    compact += c;
                }
            }
            std::string raw;
            if (!base64_decode(compact, raw)) {
                return bad_value(at, "!!binary");
            }
            b_.add_bytes(raw);
        } else if (name == "timestamp") {
            timestamp_kind k;
            if (!parse_timestamp(text, tsbuf_, k)) {
                return bad_value(at, "!!timestamp");
            }
            b_.add_timestamp(tsbuf_, k);
        } else {
            // !!seq, !!map on a scalar, !!set, !!omap ... : keep the text.
            b_.add_string(text);
        }
        return true;
    }

    // ---- plain scalars ----

    bool plain_first(const char* q, bool flow) const {
        if (q >= end_) {
            return false;
        }
        char c = *q;
        if (y_ws(c) || y_break(c)) {
            return false;
        }
        if (y_indicator(c)) {
            if (c == '-' || c == '?' || c == ':') {
                const char* r = q + 1;
                return !blankz(r) && !(flow && y_flow_ind(*r));
            }
            return false;
        }
        return true;
    }

    // The end of a plain scalar's text on its first line (trailing white space excluded).
    const char* plain_line(const char* q, bool flow) const {
        const std::uint8_t bit = flow ? 2 : 1;
        const char* last = q;
        for (;;) {
            const char* run = q;
            while (q < end_ && (plain_stop[static_cast<unsigned char>(*q)] & bit) == 0) {
                ++q;
            }
            if (q != run) {
                last = q;
            }
            if (q >= end_) {
                return last;
            }
            char c = *q;
            if (c == ':') {
                const char* r = q + 1;
                if (blankz(r) || (flow && y_flow_ind(*r))) {
                    return last;
                }
                ++q;
                last = q;
            } else if (c == ' ' || c == '\t') {
                while (q < end_ && y_ws(*q)) {
                    ++q;
                }
                if (q >= end_ || *q == '#' || y_break(*q)) {
                    return last;
                }
            } else if (c == '#') {
                ++q;  // not after white space: part of the text
                last = q;
            } else {
                return last;  // a line break, or a flow indicator in flow context
            }
        }
    }

    // A plain scalar at p_ (its first byte checked). Continuation lines must be indented more
    // than n. Leaves p_ after its last non-blank byte.
    std::string_view plain(int n, bool flow) {
        const char* s = p_;
        const char* e = (s == probe_start_ && probe_flow_ == flow) ? probe_end_ : plain_line(s, flow);
        p_ = e;
        const char* q = e;
        while (q < end_ && y_ws(*q)) {
            ++q;
        }
        if (q >= end_ || !y_break(*q)) {
            return {s, static_cast<std::size_t>(e - s)};
        }
        if (*q == '\n') {
            // The common case: the next line is less indented, so it cannot continue.
            const char* t = q + 1;
            while (t < end_ && *t == ' ') {
                ++t;
            }
            if (t < end_ && !y_ws(*t) && !y_break(*t) && static_cast<int>(t - q - 1) <= n) {
                return {s, static_cast<std::size_t>(e - s)};
            }
        }
        bool folded = false;
        for (;;) {
            // q at a line break after the text so far.
            int breaks = 0;
            const char* ls = ls_;
            const char* t = q;
            for (;;) {
                if (t < end_ && *t == '\r') {
                    ++t;
                }
                if (t < end_ && *t == '\n') {
                    ++t;
                }
                ++breaks;
                ls = t;
                while (t < end_ && *t == ' ') {
                    ++t;
                }
                int ind = static_cast<int>(t - ls);
                while (t < end_ && y_ws(*t)) {
                    ++t;
                }
                if (t < end_ && y_break(*t)) {
                    continue;  // an empty line
                }
                if (t >= end_ || *t == '#' || ind <= n ||
                    (ls + 3 <= end_ && t - ls < 3 && (ls[0] == '-' || ls[0] == '.') &&
                     ls[1] == ls[0] && ls[2] == ls[0] && (ls + 3 >= end_ || y_ws(ls[3]) ||
                                                           y_break(ls[3])))) {
                    goto done;
                }
                break;
            }
            {
                // A document marker anywhere at column 0 ends the scalar.
                if (t == ls && end_ - ls >= 3 && (ls[0] == '-' || ls[0] == '.') &&
                    ls[1] == ls[0] && ls[2] == ls[0] &&
                    (ls + 3 >= end_ || y_ws(ls[3]) || y_break(ls[3]))) {
                    goto done;
                }
                if (!plain_continues(t, flow)) {
                    goto done;
                }
                const char* le = plain_line(t, flow);
                if (!folded) {
                    scratch_.assign(s, static_cast<std::size_t>(e - s));
                    folded = true;
                }
                if (breaks == 1) {
                    scratch_ += ' ';
                } else {
                    scratch_.append(static_cast<std::size_t>(breaks - 1), '\n');
                }
                scratch_.append(t, static_cast<std::size_t>(le - t));
                ls_ = ls;
                p_ = le;
                q = le;
                while (q < end_ && y_ws(*q)) {
                    ++q;
                }
                if (q >= end_ || !y_break(*q)) {
                    break;
                }
            }
        }
    done:
        if (!folded) {
            return {s, static_cast<std::size_t>(e - s)};
        }
        return scratch_;
    }

    // Whether a continuation line's text at t continues a plain scalar.
    bool plain_continues(const char* t, bool flow) const {
        char c = *t;
        if (c == ':') {
            return !blankz(t + 1) && !(flow && y_flow_ind(t[1]));
        }
        if (flow && y_flow_ind(c)) {
            return false;
        }
        return true;
    }

    // ---- quoted scalars ----

    // The line-break part of folding inside a quoted scalar: q at a break. Appends ' ' or
    // the kept line feeds and returns the first content byte of the continuation.
    result<const char*> quoted_fold(const char* q, int n, bool append_space) {
        int breaks = 0;
        for (;;) {
            if (q < end_ && *q == '\r') {
                ++q;
            }
            if (q < end_ && *q == '\n') {
                ++q;
            }
            ++breaks;
            ls_ = q;
            const char* t = q;
            while (t < end_ && *t == ' ') {
                ++t;
            }
            int ind = static_cast<int>(t - q);
            if (marker(q, '-') || marker(q, '.')) {
                return fail(err(q, "expected the closing quote, saw a document marker"));
            }
            while (t < end_ && y_ws(*t)) {
                ++t;
            }
            if (t >= end_) {
                return fail(err(t, "expected the closing quote, saw end of input"));
            }
            if (y_break(*t)) {
                q = t;
                continue;
            }
            if (ind <= n && t != q + ind) {
                // tabs after too little indentation
            }
            if (ind <= n) {
                return fail(err(t, "expected the continuation of a quoted scalar indented more "
                                   "than its parent, saw less indentation"));
            }
            if (breaks == 1) {
                if (append_space) {
                    scratch_ += ' ';
                }
            } else {
                scratch_.append(static_cast<std::size_t>(breaks - 1), '\n');
            }
            return t;
        }
    }

    // Strips the white space at the end of scratch_ back to `keep` (escapes are content).
    void trim_to(std::size_t keep) {
        while (scratch_.size() > keep && y_ws(scratch_.back())) {
            scratch_.pop_back();
        }
    }

    result<std::string_view> single_quoted(int n) {
        const char* s = ++p_;
        const char* q = s;
        while (q < end_ && *q != '\'' && !y_break(*q)) {
            ++q;
        }
        if (q < end_ && *q == '\'' && ch(q + 1) != '\'') {
            p_ = q + 1;
            return std::string_view(s, static_cast<std::size_t>(q - s));
        }
        scratch_.assign(s, static_cast<std::size_t>(q - s));
        std::size_t keep = 0;
        for (;;) {
            if (q >= end_) {
                return fail(err(q, "expected ''' closing the string, saw end of input"));
            }
            char c = *q;
            if (c == '\'') {
                if (ch(q + 1) == '\'') {
                    scratch_ += '\'';
                    keep = scratch_.size();
                    q += 2;
                } else {
                    p_ = q + 1;
                    return std::string_view(scratch_);
                }
            } else if (y_break(c)) {
                trim_to(keep);
                auto t = quoted_fold(q, n, true);
                if (!t) {
                    return fail(t.error());
                }
                q = *t;
            } else {
                const char* r = q;
                while (r < end_ && *r != '\'' && !y_break(*r)) {
                    ++r;
                }
                scratch_.append(q, static_cast<std::size_t>(r - q));
                const char* k = r;
                while (k > q && y_ws(k[-1])) {
                    --k;
                }
                if (k > q) {
                    keep = scratch_.size() - static_cast<std::size_t>(r - k);
                }
                q = r;
            }
        }
    }

    result<std::string_view> double_quoted(int n) {
        const char* s = ++p_;
        const char* q = s;
        while (q < end_ && *q != '"' && *q != '\\' && !y_break(*q)) {
            ++q;
        }
        if (q < end_ && *q == '"') {
            p_ = q + 1;
            return std::string_view(s, static_cast<std::size_t>(q - s));
        }
        scratch_.assign(s, static_cast<std::size_t>(q - s));
        std::size_t keep = 0;
        {
            const char* k = q;
            while (k > s && y_ws(k[-1])) {
                --k;
            }
            keep = static_cast<std::size_t>(k - s);
        }
        for (;;) {
            if (q >= end_) {
                return fail(err(q, "expected '\"' closing the string, saw end of input"));
            }
            char c = *q;
            if (c == '"') {
                p_ = q + 1;
                return std::string_view(scratch_);
            }
            if (c == '\\') {
                const char* e = q;
                ++q;
                if (q >= end_) {
                    return fail(err(q, "expected an escape after '\\', saw end of input"));
                }
                char x = *q++;
                std::uint32_t cp = 0;
                int hex = 0;
                switch (x) {
                    case '0': scratch_ += '\0'; break;
                    case 'a': scratch_ += '\a'; break;
                    case 'b': scratch_ += '\b'; break;
                    case 't': case '\t': scratch_ += '\t'; break;
                    case 'n': scratch_ += '\n'; break;
                    case 'v': scratch_ += '\v'; break;
                    case 'f': scratch_ += '\f'; break;
                    case 'r': scratch_ += '\r'; break;
                    case 'e': scratch_ += '\x1b'; break;
                    case ' ': scratch_ += ' '; break;
                    case '"': scratch_ += '"'; break;
                    case '/': scratch_ += '/'; break;
                    case '\\': scratch_ += '\\'; break;
                    case 'N': scratch_ += "\xC2\x85"; break;
                    case '_': scratch_ += "\xC2\xA0"; break;
                    case 'L': scratch_ += "\xE2\x80\xA8"; break;
                    case 'P': scratch_ += "\xE2\x80\xA9"; break;
                    case 'x': hex = 2; break;
                    case 'u': hex = 4; break;
                    case 'U': hex = 8; break;
                    case '\r':
                    case '\n': {
                        // An escaped line break: the break and the next line's leading white
                        // space are removed, white space before the '\' kept.
                        --q;
                        auto t = quoted_fold(q, n, false);
                        if (!t) {
                            return fail(t.error());
                        }
                        // quoted_fold appended line feeds for empty lines; one fewer break
                        // counts for an escaped break (the first is escaped).
                        q = *t;
                        keep = scratch_.size();
                        continue;
                    }
                    default:
                        return fail(err(q - 1, "expected an escape character after '\\', saw " +
                                                   describe_byte_at(in_, off(q - 1))));
                }
                if (hex != 0) {
                    for (int i = 0; i < hex; ++i) {
                        int v = q < end_ ? hexval(*q) : -1;
                        if (v < 0) {
                            return fail(at(q, "a hex digit in the escape"));
                        }
                        cp = cp * 16 + static_cast<std::uint32_t>(v);
                        ++q;
                    }
                    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
                        return fail(make_error(errc::invalid_string, off(e),
                                               "expected a Unicode scalar value in the escape, "
                                               "saw a surrogate or a code point past U+10FFFF"));
                    }
                    char buf[4];
                    scratch_.append(buf, utf8_encode(cp, buf));
                }
                keep = scratch_.size();
            } else if (y_break(c)) {
                trim_to(keep);
                auto t = quoted_fold(q, n, true);
                if (!t) {
                    return fail(t.error());
                }
                q = *t;
            } else {
                const char* r = q;
                while (r < end_ && *r != '"' && *r != '\\' && !y_break(*r)) {
                    ++r;
                }
                scratch_.append(q, static_cast<std::size_t>(r - q));
                const char* k = r;
                while (k > q && y_ws(k[-1])) {
                    --k;
                }
                if (k > q) {
                    keep = scratch_.size() - static_cast<std::size_t>(r - k);
                }
                q = r;
            }
        }
    }

    // ---- block scalars ----

    // p_ at '|' or '>'. n: the parent's indentation. Leaves p_ at the next content line.
    result<std::string_view> block_scalar(int n) {
        const bool folded = *p_ == '>';
        ++p_;
        int chomp = 0;  // -1 strip, 0 clip, 1 keep
        int explicit_indent = 0;
        for (int i = 0; i < 2; ++i) {
            char c = ch(p_);
            if ((c == '-' || c == '+') && chomp == 0) {
                chomp = c == '-' ? -1 : 1;
                ++p_;
            } else if (c >= '1' && c <= '9' && explicit_indent == 0) {
                explicit_indent = c - '0';
                ++p_;
            } else if (c == '0') {
                return fail(at(p_, "an indentation indicator 1-9"));
            }
        }
        if (!blankz(p_)) {
            return fail(at(p_, "a chomping or indentation indicator, or the end of the line"));
        }
        while (p_ < end_ && y_ws(*p_)) {
            ++p_;
        }
        if (p_ < end_ && *p_ == '#') {
            if (!comment_at(p_)) {
                return fail(at(p_, "white space before a comment"));
            }
            while (p_ < end_ && !y_break(*p_)) {
                ++p_;
            }
        }
        if (p_ < end_ && !y_break(*p_)) {
            return fail(at(p_, "the end of the line after a block scalar header"));
        }
        eat_break();
        // Indentation: given, or that of the first non-empty line.
        int ind = 0;
        if (explicit_indent != 0) {
            ind = (n < 0 ? 0 : n) + explicit_indent;
        } else {
            int max_blank = 0;
            const char* q = p_;
            for (;;) {
                const char* r = q;
                while (r < end_ && *r == ' ') {
                    ++r;
                }
                int sp = static_cast<int>(r - q);
                if (r < end_ && y_break(*r)) {
                    max_blank = std::max(max_blank, sp);
                    q = r + ((*r == '\r' && ch(r + 1) == '\n') ? 2 : 1);
                    continue;
                }
                if (r >= end_) {
                    max_blank = std::max(max_blank, sp);
                    ind = std::max(max_blank, n + 1);
                    break;
                }
                ind = sp;
                if (ind <= n && *r == '\t') {
                    return fail(err(r, "expected spaces as the indentation of a block scalar, "
                                       "saw a tab"));
                }
                if (ind <= n || (q == r && marker(q, '-')) || (q == r && marker(q, '.'))) {
                    ind = std::max(n + 1, max_blank);  // no content: an empty scalar
                    if (ind < max_blank) {
                        ind = max_blank;
                    }
                    break;
                }
                if (max_blank > ind) {
                    return fail(err(q, "expected a leading empty line of a block scalar not "
                                       "to be indented more than its first content line"));
                }
                break;
            }
            if (ind < 1 && n >= 0) {
                ind = 1;
            }
            if (ind < 0) {
                ind = 0;
            }
        }
        scratch_.clear();
        int empties = 0;
        bool any_text = false;
        bool last_break = false;
        bool prev_spaced = false;
        for (;;) {
            const char* q = p_;
            if (q >= end_) {
                break;
            }
            if (marker(q, '-') || marker(q, '.')) {
                break;
            }
            const char* r = q;
            while (r < end_ && *r == ' ' && r - q < ind) {
                ++r;
            }
            int sp = static_cast<int>(r - q);
            if (sp < ind) {
                // Fewer spaces: an empty line if nothing else is on it, else the end.
                const char* t = r;
                while (t < end_ && *t == ' ') {
                    ++t;
                }
                if (t < end_ && y_break(*t)) {
                    ++empties;
                    p_ = t;
                    eat_break();
                    continue;
                }
                if (t >= end_) {
                    p_ = t;
                    break;
                }
                break;
            }
            // sp == ind: the rest of the line is content.
            const char* e = r;
            while (e < end_ && !y_break(*e)) {
                ++e;
            }
            if (e == r) {
                // Empty line (exactly the indentation).
                if (e < end_) {
                    ++empties;
                    p_ = e;
                    eat_break();
                    continue;
                }
                if (e > q) {
                    ++empties;  // a line of spaces at the end of input
                }
                p_ = e;
                break;
            }
            bool spaced = y_ws(*r);
            if (!any_text) {
                scratch_.append(static_cast<std::size_t>(empties), '\n');
            } else if (folded && !spaced && !prev_spaced) {
                if (empties == 0) {
                    scratch_ += ' ';
                } else {
                    scratch_.append(static_cast<std::size_t>(empties), '\n');
                }
            } else {
                scratch_.append(static_cast<std::size_t>(empties + 1), '\n');
            }
            scratch_.append(r, static_cast<std::size_t>(e - r));
            any_text = true;
            prev_spaced = spaced;
            empties = 0;
            p_ = e;
            last_break = true;  // the end of input ends the last line too
            if (e < end_) {
                eat_break();
            } else {
                break;
            }
        }
        if (chomp == 1) {
            if (any_text && last_break) {
                scratch_ += '\n';
            }
            scratch_.append(static_cast<std::size_t>(empties), '\n');
        } else if (chomp == 0) {
            if (any_text && last_break) {
                scratch_ += '\n';
            }
        }
        // p_ is at the start of the line that ended the scalar, or at the end.
        if (p_ < end_) {
            ls_ = p_;
            skip_to_content();
        }
        return std::string_view(scratch_);
    }

    // ---- flow collections ----

    // Skips white space, comments and line breaks inside a flow collection whose lines must
    // be indented more than n.
    bool flow_ws(int n) {
        for (;;) {
            while (p_ < end_ && y_ws(*p_)) {
                ++p_;
            }
            if (p_ >= end_) {
                return true;
            }
            if (*p_ == '#') {
                if (!comment_at(p_)) {
                    return true;  // the caller reports the '#'
                }
                while (p_ < end_ && !y_break(*p_)) {
                    ++p_;
                }
            }
            if (p_ < end_ && y_break(*p_)) {
                eat_break();
                if (marker(p_, '-') || marker(p_, '.')) {
                    return fail_(err(p_, "expected the end of the flow collection, saw a "
                                        "document marker"));
                }
                const char* q = p_;
                while (q < end_ && *q == ' ') {
                    ++q;
                }
                const char* r = q;
                while (r < end_ && y_ws(*r)) {
                    ++r;
                }
                if (r < end_ && !y_break(*r) && *r != '#' && static_cast<int>(q - p_) <= n) {
                    return fail_(err(r, "expected a flow collection's line indented more than its "
                                       "parent, saw less indentation"));
                }
                p_ = r;
                continue;
            }
            return true;
        }
    }

    // An implicit key at q inside a flow sequence ("[a: b]"): a node on one line then ':'.
    bool flow_key_ahead(const char* q) const {
        const char* limit = end_ - q > static_cast<std::ptrdiff_t>(max_key_probe)
                                ? q + max_key_probe
                                : end_;
        return key_probe(q, limit, true) != nullptr;
    }

    // The ':' after an implicit key at q (props, then one node on this line), or null.
    const char* key_probe(const char* q, const char* limit, bool flow) const {
        bool props = false;
        while (q < limit && (*q == '&' || *q == '!')) {
            if (*q == '!' && q + 1 < limit && q[1] == '<') {
                while (q < limit && *q != '>' && !blankz(q)) {
                    ++q;
                }
                if (q < limit && *q == '>') {
                    ++q;
                }
            }
            while (q < limit && !blankz(q) && !y_flow_ind(*q)) {
                ++q;
            }
            while (q < limit && y_ws(*q)) {
                ++q;
            }
            props = true;
        }
        if (q >= limit) {
            return nullptr;
        }
        if (props && *q == ':' && (blankz(q + 1) || (flow && y_flow_ind(q[1])))) {
            return q;  // an empty key with properties
        }
        bool json_like = false;
        char c = *q;
        if (c == '*') {
            ++q;
            while (q < limit && !blankz(q) && !y_flow_ind(*q)) {
                ++q;
            }
        } else if (c == '"') {
            ++q;
            while (q < limit && *q != '"') {
                if (y_break(*q)) {
                    return nullptr;
                }
                if (*q == '\\') {
                    ++q;
                    if (q < limit && y_break(*q)) {
                        return nullptr;
                    }
                }
                ++q;
            }
            if (q >= limit) {
                return nullptr;
            }
            ++q;
            json_like = true;
        } else if (c == '\'') {
            ++q;
            for (;;) {
                while (q < limit && *q != '\'') {
                    if (y_break(*q)) {
                        return nullptr;
                    }
                    ++q;
                }
                if (q >= limit) {
                    return nullptr;
                }
                if (q + 1 < limit && q[1] == '\'') {
                    q += 2;
                    continue;
                }
                ++q;
                break;
            }
            json_like = true;
        } else if (c == '[' || c == '{') {
            int depth = 0;
            while (q < limit) {
                char d = *q;
                if (y_break(d)) {
                    return nullptr;
                }
                if (d == '[' || d == '{') {
                    ++depth;
                } else if (d == ']' || d == '}') {
                    if (--depth == 0) {
                        ++q;
                        break;
                    }
                } else if (d == '"' || d == '\'') {
                    ++q;
                    while (q < limit && *q != d && !y_break(*q)) {
                        if (d == '"' && *q == '\\') {
                            ++q;
                        }
                        ++q;
                    }
                    if (q >= limit || *q != d) {
                        return nullptr;
                    }
                } else if (d == '#' && q[-1] == ' ') {
                    return nullptr;
                }
                ++q;
            }
            if (depth != 0) {
                return nullptr;
            }
            json_like = true;
        } else if (plain_first(q, flow)) {
            const char* s = q;
            q = plain_line(q, flow);
            probe_start_ = s;
            probe_end_ = q;
            probe_flow_ = flow;
            if (q > limit) {
                return nullptr;
            }
        } else {
            return nullptr;
        }
        while (q < limit && y_ws(*q)) {
            ++q;
        }
        if (q >= limit || *q != ':') {
            return nullptr;
        }
        if (flow && json_like) {
            return q;
        }
        const char* r = q + 1;
        return (blankz(r) || (flow && y_flow_ind(*r))) ? q : nullptr;
    }

    // A node inside a flow collection (or a flow node on a block line): properties, then an
    // alias, a flow collection, a quoted or a plain scalar, or nothing (an empty node).
    bool flow_node(int n) {
        yprops pr;
        if (p_ < end_ && (*p_ == '&' || *p_ == '!')) {
            YTRY(properties(pr));
            YTRY(flow_ws(n));
        }
        return flow_content(n, pr, true);
    }

    bool flow_content(int n, const yprops& pr, bool flow) {
        const char* q = p_;
        char c = ch(q);
        switch (c) {
            case '*':
                return alias(pr);
            case '[':
                return flow_seq(n, pr);
            case '{':
                return flow_map(n, pr);
            case '"': {
                auto t = double_quoted(n);
                if (!t) {
                    return fail_(t.error());
                }
                return scalar(*t, false, pr, q);
            }
            case '\'': {
                auto t = single_quoted(n);
                if (!t) {
                    return fail_(t.error());
                }
                return scalar(*t, false, pr, q);
            }
            default:
                break;
        }
        if (plain_first(q, flow)) {
            std::string_view t = plain(n, flow);
            return scalar(t, true, pr, q);
        }
        if (flow && (q >= end_ || c == ',' || c == ']' || c == '}' || c == ':') && pr.any()) {
            return scalar({}, true, pr, q);  // an empty node with properties
        }
        return fail_(at(q, "a value"));
    }

    // After ':' in a flow collection: the value, or an empty one before ',' and the closer.
    bool flow_value(int n) {
        ++p_;
        YTRY(flow_ws(n));
        char c = ch(p_);
        if (p_ >= end_ || c == ',' || c == ']' || c == '}') {
            b_.add_null();
            return true;
        }
        return flow_node(n);
    }

    bool flow_colon(const char* q) const {
        return q < end_ && *q == ':' && (blankz(q + 1) || y_flow_ind(q[1]));
    }

    // Opens a flow collection at its '[' or '{': the node's properties, the tape container and
    // the nesting count; then steps over the opener. Used by flow_seq and flow_map.
    bool flow_open(const yprops& pr, ynode_mark& m, bool is_map) {
        const char* open = p_;
        std::string_view tag;
        YTRY(open_node(pr, m, tag));
        if (!(is_map ? b_.begin_map() : b_.begin_array())) {
            return fail_(limit(open));
        }
        if (++nest_ > max_nest) {
            return fail_(make_error(errc::depth_exceeded, off(open), "nesting too deep"));
        }
        ++p_;
        return true;
    }

    // Before each entry of a flow collection: skips blanks and comments, fails at the end of
    // input with `eof_msg`, and sets `done` after stepping over the `closer`.
    bool flow_entry(int n, char closer, const char* eof_msg, bool& done) {
        YTRY(flow_ws(n));
        if (p_ >= end_) {
            return fail_(err(p_, eof_msg));
        }
        done = *p_ == closer;
        p_ += done ? 1 : 0;
        return true;
    }

    // After each entry of a flow collection: steps over its ',' or stays before the `closer`.
    bool flow_after_entry(int n, char closer, const char* expected) {
        YTRY(flow_ws(n));
        if (ch(p_) == ',') {
            ++p_;
        } else if (ch(p_) != closer) {
            return fail_(at(p_, expected));
        }
        return true;
    }

    // Closes what flow_open opened.
    void flow_close(const yprops& pr, const ynode_mark& m, bool is_map) {
        --nest_;
        if (is_map) {
            b_.end_map();
        } else {
            b_.end_array();
        }
        close_node(pr, m);
    }

    bool flow_seq(int n, const yprops& pr) {
        ynode_mark m;
        YTRY(flow_open(pr, m, false));
        for (;;) {
            bool done = false;
            YTRY(flow_entry(n, ']', "expected ']' closing the flow sequence, saw end of input",
                            done));
            if (done) {
                break;
            }
            char c = *p_;
            const char* entry = p_;
            if (c == '?' && (blankz(p_ + 1) || y_flow_ind(p_[1]))) {
                // An explicit key: a single-pair map.
                if (!b_.begin_map()) {
                    return fail_(limit(entry));
                }
                ++p_;
                YTRY(flow_ws(n));
                if (flow_colon(p_) || ch(p_) == ',' || ch(p_) == ']') {
                    b_.add_null();
                } else {
                    YTRY(flow_node(n));
                    YTRY(flow_ws(n));
                }
                if (ch(p_) == ':') {
                    YTRY(flow_value(n));
                } else {
                    b_.add_null();
                }
                b_.end_map();
            } else if (flow_colon(p_)) {
                // An empty key: {null: value}.
                if (!b_.begin_map()) {
                    return fail_(limit(entry));
                }
                b_.add_null();
                YTRY(flow_value(n));
                b_.end_map();
            } else if (flow_key_ahead(p_)) {
                if (!b_.begin_map()) {
                    return fail_(limit(entry));
                }
                YTRY(flow_node(n));
                while (p_ < end_ && y_ws(*p_)) {
                    ++p_;
                }
                if (ch(p_) != ':') {
                    return fail_(at(p_, "':' after the key"));
                }
                YTRY(flow_value(n));
                b_.end_map();
            } else {
                YTRY(flow_node(n));
            }
            YTRY(flow_after_entry(n, ']', "',' or ']' in a flow sequence"));
        }
        flow_close(pr, m, false);
        return true;
    }

    bool flow_map(int n, const yprops& pr) {
        ynode_mark m;
        YTRY(flow_open(pr, m, true));
        for (;;) {
            bool done = false;
            YTRY(flow_entry(n, '}', "expected '}' closing the flow mapping, saw end of input",
                            done));
            if (done) {
                break;
            }
            char c = *p_;
            if (c == '?' && (blankz(p_ + 1) || y_flow_ind(p_[1]))) {
                ++p_;
                YTRY(flow_ws(n));
            }
            c = ch(p_);
            if (flow_colon(p_) || c == ',' || c == '}') {
                b_.add_null();
            } else {
                YTRY(flow_node(n));
                YTRY(flow_ws(n));
            }
            if (ch(p_) == ':') {
                YTRY(flow_value(n));
            } else {
                b_.add_null();
            }
            YTRY(flow_after_entry(n, '}', "',' or '}' in a flow mapping"));
        }
        flow_close(pr, m, true);
        return true;
    }

    // ---- block structure ----

    // The ':' of an implicit block key starting at q, or null.
    // (key_probe stops at the line break itself.)
    const char* block_key_ahead(const char* q) const {
        const char* limit = end_ - q > static_cast<std::ptrdiff_t>(max_key_probe)
                                ? q + max_key_probe
                                : end_;
        return key_probe(q, limit, false);
    }

    bool map_start(const char* q) const {
        return ind_at(q, '?') || ind_at(q, ':') || block_key_ahead(q) != nullptr;
    }

    // A value on the current line: a block scalar, an alias, a flow collection or a scalar.
    bool inline_value(int n, const yprops& pr) {
        const char* q = p_;
        char c = ch(q);
        if (c == '|' || c == '>') {
            auto t = block_scalar(n);
            if (!t) {
                return fail_(t.error());
            }
            return scalar(*t, false, pr, q);
        }
        if (c == '*' || c == '[' || c == '{' || c == '"' || c == '\'' || plain_first(q, false)) {
            if (c == '[' || c == '{') {
                YTRY(flow_content(n, pr, false));
            } else {
                YTRY(flow_content(n, pr, false));
            }
            return end_line();
        }
        return fail_(at(q, "a value"));
    }

    // The node after an indicator ('-', '?', ':' after a key, '---'), from p_ on the same line.
    bool block_inline(int n, yctx c) {
        const char* sep = p_;
        while (p_ < end_ && y_ws(*p_)) {
            ++p_;
        }
        auto tabs_before = [&] {
            for (const char* t = sep; t < p_; ++t) {
                if (*t == '\t') {
                    return true;
                }
            }
            return false;
        };
        if (p_ >= end_ || y_break(*p_) || comment_at(p_)) {
            YTRY(end_line());
            return block_fresh(n, c, yprops{});
        }
        const bool compact = c == yctx::seq_entry || c == yctx::explicit_entry;
        if (compact) {
            int cl = col(p_);
            if (ind_at(p_, '-')) {
                if (tabs_before()) {
                    return fail_(err(p_, "expected spaces before a compact block sequence, saw "
                                        "a tab"));
                }
                return block_seq(cl, yprops{});
            }
            if (map_start(p_)) {
                if (tabs_before()) {
                    return fail_(err(p_, "expected spaces before a compact block mapping, saw "
                                        "a tab"));
                }
                return block_map(cl, yprops{});
            }
        } else if (ind_at(p_, '-') || ind_at(p_, '?')) {
            return fail_(err(p_, std::string("expected a value, saw '") + *p_ +
                                    "' (a block collection cannot start on this line)"));
        }
        yprops pr;
        if (*p_ == '&' || *p_ == '!') {
            YTRY(properties(pr));
            if (p_ >= end_ || y_break(*p_) || comment_at(p_)) {
                YTRY(end_line());
                return block_fresh(n, c, pr);
            }
            if (ind_at(p_, '-') || ind_at(p_, '?')) {
                return fail_(err(p_, std::string("expected a value after the properties, saw '") +
                                        *p_ + "'"));
            }
        }
        return inline_value(n, pr);
    }

    // The node starting at a content line (p_ at its first non-blank byte), or an empty node
    // when that line belongs to an outer level. `pr`: properties from the line before.
    bool block_fresh(int n, yctx c, yprops pr) {
        if (p_ >= end_ || marker(p_, '-') || marker(p_, '.')) {
            return scalar({}, true, pr, p_);
        }
        const int i = indent_;
        if (ind_at(p_, '-')) {
            bool ok = i > n || (i == n && (c == yctx::map_value || c == yctx::explicit_entry));
            if (!ok) {
                return scalar({}, true, pr, p_);
            }
            if (tabbed_) {
                return fail_(err(p_, "expected spaces as indentation, saw a tab"));
            }
            return block_seq(i, pr);
        }
        if (i <= n) {
            return scalar({}, true, pr, p_);
        }
        if (map_start(p_)) {
            if (tabbed_) {
                return fail_(err(p_, "expected spaces as indentation, saw a tab"));
            }
            return block_map(i, pr);
        }
        if (*p_ == '&' || *p_ == '!') {
            YTRY(properties(pr));
            if (p_ >= end_ || y_break(*p_) || comment_at(p_)) {
                YTRY(end_line());
                return block_fresh(n, c, pr);
            }
        }
        return inline_value(n, pr);
    }

    bool block_seq(int m, const yprops& pr) {
        const char* open = p_;
        ynode_mark mk;
        std::string_view tag;
        YTRY(open_node(pr, mk, tag));
        if (!b_.begin_array()) {
            return fail_(limit(open));
        }
        if (++nest_ > max_nest) {
            return fail_(make_error(errc::depth_exceeded, off(open), "nesting too deep"));
        }
        for (;;) {
            ++p_;  // the '-'
            YTRY(block_inline(m, yctx::seq_entry));
            if (p_ >= end_ || marker(p_, '-') || marker(p_, '.')) {
                break;
            }
            if (indent_ == m && ind_at(p_, '-') && !tabbed_) {
                continue;
            }
            if (indent_ > m) {
                return fail_(at(p_, "a sequence entry ('- ') at the sequence's indentation"));
            }
            break;
        }
        --nest_;
        b_.end_array();
        close_node(pr, mk);
        return true;
    }

    // An implicit key on the current line: properties and one node.
    bool implicit_key(int m) {
        yprops pr;
        if (*p_ == '&' || *p_ == '!') {
            YTRY(properties(pr));
        }
        const char* q = p_;
        if (ind_at(q, ':')) {
            return scalar({}, true, pr, q);  // "&a : value"
        }
        if (plain_first(q, false)) {
            const char* e = (q == probe_start_ && !probe_flow_) ? probe_end_ : plain_line(q, false);
            p_ = e;
            return scalar(std::string_view(q, static_cast<std::size_t>(e - q)), true, pr, q);
        }
        return flow_content(m, pr, false);
    }

    bool block_map(int m, const yprops& pr) {
        const char* open = p_;
        ynode_mark mk;
        std::string_view tag;
        YTRY(open_node(pr, mk, tag));
        if (!b_.begin_map()) {
            return fail_(limit(open));
        }
        if (++nest_ > max_nest) {
            return fail_(make_error(errc::depth_exceeded, off(open), "nesting too deep"));
        }
        for (;;) {
            if (ind_at(p_, '?')) {
                ++p_;
                YTRY(block_inline(m, yctx::explicit_entry));
                if (p_ < end_ && indent_ == m && !tabbed_ && ind_at(p_, ':') &&
                    !marker(p_, '-')) {
                    ++p_;
                    YTRY(block_inline(m, yctx::explicit_entry));
                } else {
                    b_.add_null();
                }
            } else {
                if (ind_at(p_, ':')) {
                    b_.add_null();  // an empty key
                } else {
                    YTRY(implicit_key(m));
                    while (p_ < end_ && y_ws(*p_)) {
                        ++p_;
                    }
                    if (ch(p_) != ':') {
                        return fail_(at(p_, "':' after a mapping key"));
                    }
                }
                ++p_;
                YTRY(block_inline(m, yctx::map_value));
            }
            if (p_ >= end_ || marker(p_, '-') || marker(p_, '.')) {
                break;
            }
            if (indent_ == m) {
                if (ind_at(p_, '-')) {
                    break;  // the parent's compact sequence ("key:\n- a") goes on
                }
                if (tabbed_) {
                    return fail_(err(p_, "expected spaces as indentation, saw a tab"));
                }
                if (map_start(p_)) {
                    continue;
                }
                return fail_(at(p_, "a mapping key ('key: value')"));
            }
            if (indent_ > m) {
                return fail_(at(p_, "a mapping key at the mapping's indentation"));
            }
            break;
        }
        --nest_;
        b_.end_map();
        close_node(pr, mk);
        return true;
    }

    // Our own bound on the recursion, whatever max_depth a caller sets: each level of block or
    // flow nesting is a few stack frames (4096 and 1024 levels overflowed 8 MiB of stack under
    // ASan; 600 stays above the default max_depth of 512).
    static constexpr int max_nest = 600;
    mutable error err_;

    std::string_view in_;
    const char* beg_;
    const char* end_;
    const char* p_;
    const char* ls_;  // start of the current line
    int indent_ = 0;
    bool tabbed_ = false;
    builder& b_;
    const decode_options& opt_;
    std::string& scratch_;
    std::string& tagbuf_;
    std::string tsbuf_;
    struct tag_handle {
        std::string_view handle, prefix;
    };
    std::vector<tag_handle> handles_;
    std::unordered_map<std::string_view, yanchor> anchors_;
    std::size_t budget_ = 0;
    std::size_t budget0_ = 0;
    int nest_ = 0;
    // The last implicit-key probe of a plain scalar: its start and end on the line.
    mutable const char* probe_start_ = nullptr;
    mutable const char* probe_end_ = nullptr;
    mutable bool probe_flow_ = false;
};

#undef YTRY

result<void> decode_yaml(std::string_view in, builder& b, const decode_options& opt) {
    yaml_parser r(in, b, opt);
    return r.parse();
}

// ---- writer ----

constexpr bool yaml_indicator(char c) {
    switch (c) {
        case '-':
        case '?':
        case ':':
        case ',':
        case '[':
        case ']':
        case '{':
        case '}':
        case '#':
        case '&':
        case '*':
        case '!':
        case '|':
        case '>':
        case '\'':
        case '"':
        case '%':
        case '@':
        case '`':
            return true;
        default:
            return false;
    }
}

// null, ~, true, false, yes, no, on, off, y, n, <<, = in any ASCII case
bool typed_word(std::string_view s) {
    switch (s.size()) {
        case 1: {
            const char c = to_lower(s[0]);
            if (c == '~' || c == 'y' || c == 'n' || c == '=') {
                return true;
            }
            break;
        }
        case 2:
            if (iequals(s, "no") || iequals(s, "on") || s == "<<") {
                return true;
            }
            break;
        case 3:
            if (iequals(s, "yes") || iequals(s, "off")) {
                return true;
            }
            break;
        case 4:
            if (iequals(s, "null") || iequals(s, "true")) {
                return true;
            }
            break;
        case 5:
            if (iequals(s, "false")) {
                return true;
            }
            break;
        default:
            break;
    }
    return false;
}

// True when a YAML 1.1 or 1.2 reader could take plain `s` as something other than a string:
// null, booleans (1.1's y/n/yes/no/on/off in any case), numbers in any notation (0x, 0o, 0b,
// 1_000, 1e3, .5, .inf, .nan, sexagesimal 1:20), dates and times, and the 1.1 merge and value
// keys. Errs on the side of quoting.
bool looks_typed(std::string_view s) {
    if (typed_word(s)) {
        return true;
    }
    std::string_view t = s;
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
        t.remove_prefix(1);
    }
    if (iequals(t, ".inf") || iequals(t, ".nan")) {
        return true;
    }
    if (t.empty()) {
        return false;
    }
    // (YAML 1.1 also reads "._5" as a float.)
    if (is_digit(t[0]) || (t[0] == '.' && t.size() > 1 && (is_digit(t[1]) || t[1] == '_'))) {
        // Anything made only of number characters is quoted (1_000, 0x1F, 1:20, 1e3, 1.2.3).
        bool numeric = true;
        for (char c : t) {
            if (!(is_hex(c) || c == '.' || c == '_' || c == ':' || c == '+' || c == '-' ||
                  c == 'x' || c == 'X' || c == 'o' || c == 'O' || c == 'b' || c == 'B')) {
                numeric = false;
                break;
            }
        }
        if (numeric) {
            return true;
        }
        // Dates and date-times: 2001-12-14, 2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.
        if (t.size() >= 8 && is_digit(t[1]) && is_digit(t[2]) && is_digit(t[3]) && t[4] == '-') {
            return true;
        }
    }
    return false;
}

// Characters that force double quotes (escapes): C0 controls, DEL, C1 controls, the
// 1.1 line breaks NEL/LS/PS, BOM and the non-characters U+FFFE/U+FFFF.
bool needs_escape(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            return true;
        }
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
            return true;
        }
        if (c == 0xE2 && i + 2 < s.size() && s[i + 1] == '\x80' &&
            (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
            return true;
        }
        if (c == 0xEF && i + 2 < s.size() &&
            ((s[i + 1] == '\xBB' && s[i + 2] == '\xBF') ||
             (s[i + 1] == '\xBF' && (s[i + 2] == '\xBE' || s[i + 2] == '\xBF')))) {
            return true;
        }
    }
    return false;
}

bool plain_safe(std::string_view s) {
    if (s.empty() || s.front() == ' ' || s.back() == ' ' || yaml_indicator(s.front()) ||
        s.back() == ':' || looks_typed(s)) {
        return false;
    }
    if (s.substr(0, 3) == "..." || s.substr(0, 3) == "---") {
        return false;
    }
    if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) {
        return false;
    }
    for (char c : s) {
        if (c == '\t') {
            return false;
        }
    }
    return !needs_escape(s);
}

// One pass over a string that decides how write_string writes it (the same decision as
// plain_safe / needs_escape above, which the recursive writer still uses): a 256-entry class
// table, 8 bytes at a time while no byte of interest is in the block, and an exit at the first
// character that forces double quotes.
enum scan_class : unsigned char {
    sc_escape = 1,  // C0 controls (tab included), DEL: double quotes
    sc_lead = 2,    // 0xC2, 0xE2, 0xEF: may start a character that needs an escape
    sc_colon = 4,   // ':' (": " is not plain)
    sc_hash = 8,    // '#' (" #" is not plain)
};
constexpr auto make_scan_table() {
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 0x20; ++c) {
        t[c] = sc_escape;
    }
    t[0x7f] = sc_escape;
    t[0xC2] = t[0xE2] = t[0xEF] = sc_lead;
    t[':'] = sc_colon;
    t['#'] = sc_hash;
    return t;
}
constexpr auto scan_table = make_scan_table();

enum first_class : unsigned char {
    fc_not_plain = 1,  // ' ' or an indicator: never plain
    fc_word = 2,       // first letter of null/true/false/yes/no/on/off/y/n: looks_typed if short
    fc_typed = 4,      // digits, '.', '+', '~', '<', '=': ask looks_typed
};
constexpr auto make_first_table() {
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 256; ++c) {
        if (c == ' ' || yaml_indicator(static_cast<char>(c))) {
            t[c] = fc_not_plain;
        }
    }
    for (char c : std::string_view("nNtTfFyYoO")) {
        t[static_cast<unsigned char>(c)] = fc_word;
    }
    for (char c : std::string_view("0123456789.+~<=")) {
        t[static_cast<unsigned char>(c)] = fc_typed;
    }
    return t;
}
constexpr auto first_table = make_first_table();

enum class quoting { plain, single, dbl };

// Some byte of the 8 is < 0x20, >= 0x7F, ':' or '#' (exact as a whole-word test).
inline bool block_of_interest(std::uint64_t x) {
    constexpr std::uint64_t ones = 0x0101010101010101ull;
    constexpr std::uint64_t high = 0x8080808080808080ull;
    const std::uint64_t lt20 = (x - ones * 0x20) & ~x;
    const std::uint64_t ge7f = x | (x + ones);
    const std::uint64_t c = x ^ (ones * ':');
    const std::uint64_t h = x ^ (ones * '#');
    return ((lt20 | ge7f | ((c - ones) & ~c) | ((h - ones) & ~h)) & high) != 0;
}

// One byte of interest at u[i]; true when the string must be double quoted.
inline bool scan_byte(const unsigned char* u, std::size_t i, std::size_t n, bool& plain) {
    const unsigned char cls = scan_table[u[i]];
    if (cls == 0) [[likely]] {
        return false;
    }
    if (cls & sc_escape) {
        return true;
    }
    if (cls & sc_lead) {
        const unsigned char c = u[i];
        if (c == 0xC2) {
            return i + 1 < n && u[i + 1] < 0xA0;
        }
        if (c == 0xE2) {
            return i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9);
        }
        return i + 2 < n && ((u[i + 1] == 0xBB && u[i + 2] == 0xBF) ||
                             (u[i + 1] == 0xBF && (u[i + 2] == 0xBE || u[i + 2] == 0xBF)));
    }
    if (cls & sc_colon) {
        if (i + 1 < n && u[i + 1] == ' ') {
            plain = false;
        }
    } else if (i > 0 && u[i - 1] == ' ') {  // '#'
        plain = false;
    }
    return false;
}

// `end` is the end of the readable bytes around p (at least p + n): a short string with 8
// readable bytes from p is tested as one block, the bytes after it replaced by 'a'.
inline quoting classify(const char* p, std::size_t n, const char* end) {
    if (n == 0) {
        return quoting::single;
    }
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    bool plain = u[n - 1] != ' ' && u[n - 1] != ':';
    std::size_t i = 0;
    if (n >= 8) {
        while (i + 8 <= n) {
            std::uint64_t x;
            std::memcpy(&x, u + i, 8);
            if (block_of_interest(x)) {
                for (const std::size_t e = i + 8; i < e; ++i) {
                    if (scan_byte(u, i, n, plain)) {
                        return quoting::dbl;
                    }
                }
            } else {
                i += 8;
            }
        }
        if (i < n) {  // the last 8 bytes, overlapping bytes already seen
            std::uint64_t x;
            std::memcpy(&x, u + n - 8, 8);
            if (!block_of_interest(x)) {
                i = n;
            }
        }
    } else if (end - p >= 8) {
        std::uint64_t x;
        std::memcpy(&x, u, 8);
        const std::uint64_t keep = ~std::uint64_t{0} >> (64 - 8 * n);  // little-endian
        x = (x & keep) | (0x6161616161616161ull & ~keep);
        if (!block_of_interest(x)) {
            i = n;
        }
    }
    for (; i < n; ++i) {
        if (scan_byte(u, i, n, plain)) {
            return quoting::dbl;
        }
    }
    if (!plain) {
        return quoting::single;
    }
    const unsigned char f = first_table[u[0]];
    if (f != 0) {
        if (f & fc_not_plain) {
            return quoting::single;
        }
        if (f & fc_word) {
            if (n <= 5 && typed_word(std::string_view(p, n))) {  // = looks_typed here
                return quoting::single;
            }
        } else {
            if (looks_typed(std::string_view(p, n))) {
                return quoting::single;
            }
            if (u[0] == '.' && n >= 3 && u[1] == '.' && u[2] == '.') {
                return quoting::single;
            }
        }
    }
    return quoting::plain;
}

// Writes s as write_string does for quoting q (plain or single) at w, which has room for
// 2 * s.size() + 16 bytes; returns the end. `end`: the end of the readable bytes after p.
inline char* put_plain_or_single(char* w, const char* p, std::size_t n, quoting q,
                                 const char* end) {
    if (q == quoting::plain) {
        if (n <= 16 && end - p >= 16) {
            std::memcpy(w, p, 16);
        } else {
            std::memcpy(w, p, n);
        }
        return w + n;
    }
    *w++ = '\'';
    const char* stop = p + n;
    for (;;) {
        const void* qp = std::memchr(p, '\'', static_cast<std::size_t>(stop - p));
        if (qp == nullptr) {
            break;
        }
        const char* at = static_cast<const char*>(qp) + 1;
        std::memcpy(w, p, static_cast<std::size_t>(at - p));
        w += at - p;
        *w++ = '\'';
        p = at;
    }
    std::memcpy(w, p, static_cast<std::size_t>(stop - p));
    w += stop - p;
    *w++ = '\'';
    return w;
}

constexpr char hex_digits[] = "0123456789ABCDEF";

void write_double_quoted(output_buffer& out, std::string_view s) {
    out.push_back('"');
    std::size_t run = 0;
    auto flush = [&](std::size_t i, std::size_t skip) {
        out.append(s.data() + run, i - run);
        run = i + skip;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            flush(i, 1);
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
        } else if (c < 0x20 || c == 0x7f) {
            flush(i, 1);
            switch (c) {
                case 0:
                    out.append("\\0");
                    break;
                case '\a':
                    out.append("\\a");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\v':
                    out.append("\\v");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case 0x1b:
                    out.append("\\e");
                    break;
                default: {
                    char buf[4] = {'\\', 'x', hex_digits[c >> 4], hex_digits[c & 15]};
                    out.append(buf, 4);
                }
            }
        } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
            unsigned char c2 = static_cast<unsigned char>(s[i + 1]);
            flush(i, 2);
            char buf[6] = {'\\', 'u', '0', '0', hex_digits[c2 >> 4], hex_digits[c2 & 15]};
            out.append(buf, 6);
            ++i;
        } else if (c == 0xE2 && i + 2 < s.size() && s[i + 1] == '\x80' &&
                   (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
            flush(i, 3);
            out.append(s[i + 2] == '\xA8' ? "\\L" : "\\P");
            i += 2;
        } else if (c == 0xEF && i + 2 < s.size() &&
                   ((s[i + 1] == '\xBB' && s[i + 2] == '\xBF') ||
                    (s[i + 1] == '\xBF' && (s[i + 2] == '\xBE' || s[i + 2] == '\xBF')))) {
            flush(i, 3);
            out.append(s[i + 1] == '\xBB' ? "\\uFEFF" : s[i + 2] == '\xBE' ? "\\uFFFE" : "\\uFFFF");
            i += 2;
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

void write_string(output_buffer& out, std::string_view s) {
    if (plain_safe(s)) {
        out.append(s);
        return;
    }
    if (needs_escape(s) || s.find('\t') != std::string_view::npos) {
        write_double_quoted(out, s);
        return;
    }
    write_quote_doubled(out, s, '\'');
}

// Floats that both YAML 1.1 (which needs a '.' and a signed exponent, PyYAML) and 1.2 read as
// floats: the shared float text (detail/shortest_double.hpp) with ".0" on integral values,
// ".0" before an exponent that follows a lone digit and '+' in a positive exponent
// (1e21 -> 1.0e+21, 1.5e300 -> 1.5e+300, 1e-7 -> 1.0e-7).
std::size_t yaml_float_chars(char* p, double d) noexcept {
    bool integral;
    std::size_t n = shortest_double_chars(p, d, &integral);
    if (integral) {
        std::memcpy(p + n, ".0", 2);
        return n + 2;
    }
    const auto* e = static_cast<char*>(std::memchr(p, 'e', n));
    if (e == nullptr) {
        return n;
    }
    auto at = static_cast<std::size_t>(e - p);
    if (std::memchr(p, '.', at) == nullptr) {  // 1e21 -> 1.0e21
        std::memmove(p + at + 2, p + at, n - at);
        std::memcpy(p + at, ".0", 2);
        at += 2;
        n += 2;
    }
    if (p[at + 1] != '-') {  // 1.0e21 -> 1.0e+21
        std::memmove(p + at + 2, p + at + 1, n - at - 1);
        p[at + 1] = '+';
        n += 1;
    }
    return n;
}

void write_float(output_buffer& out, double d) {
    if (std::isnan(d)) {
        out.append(".nan");
        return;
    }
    if (std::isinf(d)) {
        out.append(d > 0 ? ".inf" : "-.inf");
        return;
    }
    char buf[48];
    out.append(buf, yaml_float_chars(buf, d));
}

// The local tag each tag space writes before its number, in tag_space's order.
constexpr const char* tag_prefixes[] = {"!cbor/", "!msgpack/", "!bson/", "!tag/"};
static_assert(std::size(tag_prefixes) == static_cast<std::size_t>(tag_space::other) + 1);

const char* tag_prefix(tag_space s) {
    auto i = static_cast<std::size_t>(s);
    return i < std::size(tag_prefixes) ? tag_prefixes[i] : "!tag/";
}

std::string sort_text(value k) {
    return k.kind() == kind::string ? std::string(k.get_string()) : to_debug_string(k);
}

class yaml_writer {
public:
    yaml_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    // Writes `v` after a "key:" or "- " (or at the root): scalars and empty containers on the
    // same line, other containers on the next lines at `indent`. `inline_first` lets the first
    // line of a container continue the current line (sequence items).
    result<void> write_value(value v, int indent, bool after_indicator, bool inline_first) {
        kind k = v.kind();
        if (k == kind::tagged) {
            if (after_indicator) {
                out_.push_back(' ');
            }
            out_.append(tag_prefix(v.get_tag_space()));
            write_uint(out_, v.tag());
            value inner = v.tagged_value();
            if (inner.is_container() && inner.size() > 0) {
                out_.push_back('\n');
                return write_block(inner, indent, false);
            }
            return write_value(inner, indent, true, false);
        }
        if (v.is_container() && v.size() > 0) {
            if (inline_first) {
                out_.push_back(' ');
                return write_block(v, indent, true);
            }
            if (after_indicator) {
                out_.push_back('\n');
            }
            return write_block(v, indent, false);
        }
        if (after_indicator) {
            out_.push_back(' ');
        }
        POLYCODEC_TRY(write_scalar(v));
        out_.push_back('\n');
        return {};
    }

    result<void> write_scalar(value v) {
        switch (v.kind()) {
            case kind::null:
                out_.append("null");
                break;
            case kind::boolean_false:
                out_.append("false");
                break;
            case kind::boolean_true:
                out_.append("true");
                break;
            case kind::int64:
                write_int(out_, v.get_int());
                break;
            case kind::uint64:
                write_uint(out_, v.get_uint());
                break;
            case kind::bignum:
                out_.append(v.get_string());
                break;
            case kind::float64:
                write_float(out_, v.get_double());
                break;
            case kind::string:
                write_string(out_, v.get_string());
                break;
            case kind::timestamp:
                out_.append("!!timestamp ");
                out_.append(v.get_string());
                break;
            case kind::bytes:
                if (v.get_string().empty()) {
                    out_.append("!!binary \"\"");
                } else {
                    out_.append("!!binary ");
                    base64_encode(out_, v.get_string());
                }
                break;
            case kind::array:
                out_.append("[]");
                break;
            case kind::map:
                out_.append("{}");
                break;
            case kind::tagged:
                out_.append(tag_prefix(v.get_tag_space()));
                write_uint(out_, v.tag());
                out_.push_back(' ');
                return write_scalar(v.tagged_value());
        }
        return {};
    }

    // Block output by one linear pass over the tape (pre-order: each element's children
    // follow it) with an explicit stack instead of recursing through value cursors, writing
    // through a local pointer into room reserved per element. Writes the same bytes as
    // write_value(root, 0, false, false) without opt_.canonical; tagged values, bytes,
    // timestamps, non-finite floats, strings that need double quotes, keys that are not short
    // strings and containers nested deeper than the stack go to the recursive functions above.
    result<void> write_root(value root) {
        struct frame {
            std::uint64_t remaining;  // elements (sequence) or entries (map) still to write
            bool map;
        };
        constexpr int max_stack = 128;
        frame st[max_stack];  // the open blocks around the innermost one
        int depth = 0;        // open blocks; the innermost one is indented 2 * (depth - 1)
        std::uint64_t rem = 0;
        bool in_map = false;
        const document* doc = root.doc();
        const std::uint64_t* t = doc->tape().data();
        const char* bytes = doc->bytes().data();
        const char* bytes_end = bytes + doc->bytes().size();
        std::size_t i = root.index();
        char* w = refill(64);
        char* lim = out_.data_mut() + out_.capacity();
        // How the value at i is placed: at the root, after "- " (first line of a block may
        // continue it) or after "key:".
        enum : unsigned char { at_root, after_dash, after_colon } ctx = at_root;
        bool skip_pad = false;  // the next block element continues the current line
        auto ensure = [&](std::size_t need) __attribute__((always_inline)) {
            if (static_cast<std::size_t>(lim - w) < need) [[unlikely]] {
                grow(w, lim, need);
            }
        };
        auto resume = [&] {
            w = refill(64);
            lim = out_.data_mut() + out_.capacity();
        };
        goto value_start;
    element_start : {
        // The next element of the innermost block: indentation, then "-" or "key:".
        const auto indent = static_cast<std::size_t>(2 * (depth - 1));
        ensure(indent + 64);
        if (!skip_pad) {
            if (indent <= 32) {
                std::memcpy(w, "                                ", 32);
            } else {
                std::memset(w, ' ', indent);
            }
            w += indent;
        }
        skip_pad = false;
        if (!in_map) {
            *w++ = '-';
            ctx = after_dash;
        } else {
            const std::uint64_t h = t[i];
            std::size_t n = 0;
            quoting q = quoting::dbl;
            const char* s = bytes + (h & document::payload_mask);
            // (a key that may write more than 1000 bytes takes write_key_checked)
            if (static_cast<kind>(h >> document::kind_shift) == kind::string) {
                n = static_cast<std::size_t>(t[i + 1]);
                if (n <= 240) {
                    q = classify(s, n, bytes_end);
                }
            }
            if (q != quoting::dbl) [[likely]] {
                ensure(2 * n + 24);
                w = put_plain_or_single(w, s, n, q, bytes_end);
                i += 2;
            } else {
                value kv(doc, i);
                sync(w);
                POLYCODEC_TRY(write_key_checked(kv, static_cast<int>(indent)));
                resume();
                i = kv.end_index();
            }
            *w++ = ':';
            ctx = after_colon;
        }
    }
    value_start : {
        const std::uint64_t h = t[i];
        const auto k = static_cast<kind>(h >> document::kind_shift);
        ensure(72);  // any scalar but a string, "[]", the separator and newline
        if (ctx != at_root) {
            *w++ = ' ';
        }
        if (put_raw_scalar<yaml_float_chars>(w, k, t, i)) [[likely]] {
            goto scalar_end;
        }
        switch (k) {
            case kind::float64: {  // not finite
                double d;
                std::memcpy(&d, &t[i + 1], 8);
                sync(w);
                write_float(out_, d);
                resume();
                i += 2;
                break;
            }
            case kind::string: {
                const auto n = static_cast<std::size_t>(t[i + 1]);
                const char* s = bytes + (h & document::payload_mask);
                const quoting q = classify(s, n, bytes_end);
                if (q != quoting::dbl) [[likely]] {
                    ensure(2 * n + 24);
                    w = put_plain_or_single(w, s, n, q, bytes_end);
                } else {
                    sync(w);
                    write_double_quoted(out_, std::string_view(s, n));
                    resume();
                }
                i += 2;
                break;
            }
            case kind::bignum: {
                const auto n = static_cast<std::size_t>(t[i + 1]);
                ensure(n + 8);
                std::memcpy(w, bytes + (h & document::payload_mask), n);
                w += n;
                i += 2;
                break;
            }
            case kind::array:
            case kind::map: {
                const std::uint64_t count = t[i + 1];
                const bool map = k == kind::map;
                if (count == 0) {
                    std::memcpy(w, map ? "{}" : "[]", 2);
                    w += 2;
                    i += 2;
                    break;
                }
                if (depth >= max_stack) [[unlikely]] {
                    if (ctx != at_root) {
                        --w;  // write_value writes the separator itself
                    }
                    value cv(doc, i);
                    sync(w);
                    POLYCODEC_TRY(write_value(cv, 2 * depth, ctx != at_root, ctx == after_dash));
                    resume();
                    i = cv.end_index();
                    goto element_end;
                }
                // After "- " the first element continues the line; after "key:" the block
                // starts on the next line.
                if (ctx == after_colon) {
                    w[-1] = '\n';
                }
                skip_pad = ctx == after_dash;
                if (depth > 0) {
                    st[depth - 1] = {rem, in_map};
                }
                ++depth;
                rem = count;
                in_map = map;
                i += 2;
                goto element_start;
            }
            default: {  // bytes, timestamp, tagged
                if (ctx != at_root) {
                    --w;  // write_value writes the separator itself
                }
                value ov(doc, i);
                sync(w);
                POLYCODEC_TRY(write_value(ov, 2 * depth, ctx != at_root, ctx == after_dash));
                resume();
                i = ov.end_index();
                goto element_end;
            }
        }
    scalar_end:
        *w++ = '\n';
    }
    element_end:
        // After a value: close finished blocks.
        for (;;) {
            if (depth == 0) {
                sync(w);
                return {};
            }
            if (--rem != 0) {
                goto element_start;
            }
            if (--depth > 0) {
                rem = st[depth - 1].remaining;
                in_map = st[depth - 1].map;
            }
        }
    }

private:
    // write_root's output: the room after the bytes written so far, at least `need` bytes.
    char* refill(std::size_t need) { return out_.prepare(need < 4096 ? 4096 : need); }
    [[gnu::noinline]] void grow(char*& w, char*& lim, std::size_t need) {
        sync(w);
        w = refill(need);
        lim = out_.data_mut() + out_.capacity();
    }
    void sync(char* w) { out_.commit(static_cast<std::size_t>(w - (out_.data_mut() + out_.size()))); }

    // A map key at `indent`; a key longer than 1000 bytes, and a sequence or mapping as a key
    // (a "complex key"), take the explicit "? " form.
    result<void> write_key_checked(value key, int indent) {
        value inner = key;
        while (inner.kind() == kind::tagged) {
            inner = inner.tagged_value();
        }
        if (inner.is_container()) {
            // "? " and the key as a block node, then the ':' on a line of its own.
            out_.push_back('?');
            POLYCODEC_TRY(write_value(key, indent + 2, true, true));
            pad(indent);
            return {};
        }
        std::size_t key_start = out_.size();
        POLYCODEC_TRY(write_key(key));
        if (out_.size() - key_start > 1000) {
            // Implicit keys are limited to 1024 characters: use the explicit "? " form.
            std::string text(out_.view().substr(key_start));
            out_.truncate(key_start);
            out_.append("? ");
            out_.append(text);
            out_.push_back('\n');
            pad(indent);
        }
        return {};
    }

    void pad(int n) {
        for (int i = 0; i < n; ++i) {
            out_.push_back(' ');
        }
    }

    // A non-empty block collection at `indent`; with `first_inline` its first line continues
    // the current one (after "- ").
    result<void> write_block(value v, int indent, bool first_inline) {
        bool first = true;
        if (v.kind() == kind::array) {
            for (value item : v.items()) {
                if (!(first && first_inline)) {
                    pad(indent);
                }
                first = false;
                out_.push_back('-');
                POLYCODEC_TRY(write_value(item, indent + 2, true, true));
            }
            return {};
        }
        std::vector<entry> sorted;
        if (opt_.canonical) {
            // canonical=true: entries sorted by key (strings by their bytes, other keys by
            // their debug text), duplicates in source order.
            for (entry e : v.entries()) {
                sorted.push_back(e);
            }
            std::stable_sort(sorted.begin(), sorted.end(), [](const entry& a, const entry& b) {
                return sort_text(a.key) < sort_text(b.key);
            });
        }
        auto next = v.entries().begin();
        for (std::size_t n = 0; n < v.size(); ++n) {
            entry e = opt_.canonical ? sorted[n] : *next++;
            value key = e.key;
            value val = e.val;
            if (!(first && first_inline)) {
                pad(indent);
            }
            first = false;
            POLYCODEC_TRY(write_key_checked(key, indent));
            out_.push_back(':');
            // A sequence under a key is indented too (as npm yaml writes it).
            POLYCODEC_TRY(write_value(val, indent + 2, true, false));
        }
        return {};
    }

    result<void> write_key(value k) {
        value inner = k;
        while (inner.kind() == kind::tagged) {
            inner = inner.tagged_value();
        }
        if (inner.is_container()) {
            std::string text = to_debug_string(k);
            if (!allow_lossy(opt_, k, "key_to_string", "complex key written as its text")) {
                return fail(
                    unrepresentable(k, "map key " + text + " is not representable in yaml"));
            }
            write_string(out_, text);
            return {};
        }
        return write_scalar(k);
    }

    output_buffer& out_;
    const encode_options& opt_;
};

result<void> encode_yaml(const document& doc, output_buffer& out, const encode_options& opt) {
    yaml_writer w(out, opt);
    if (opt.canonical) {
        return w.write_value(doc.root(), 0, false, false);
    }
    return w.write_root(doc.root());
}

}  // namespace

const codec_functions yaml_codec{decode_yaml, encode_yaml};

}  // namespace polycodec::detail
