// HJSON (https://hjson.github.io/syntax.html). The reader follows the reference implementation
// hjson-js 3.2 (lib/hjson-parse.js) decision for decision: quoteless strings run to the end of
// the line, a quoteless value is a number, true, false or null only when the whole of it (up
// to a comma, bracket, brace or comment) reads as one, and a root without braces is tried as
// an object first, then as a single value. The writer produces what hjson-js Hjson.stringify
// writes with its default options, except where that output would not read back as the same
// value (docs/formats/hjson.md lists those cases).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "detail/base64.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/scalar_writer.hpp"
#include "detail/number.hpp"
#include "detail/raw_scalar.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/step.hpp"
#include "detail/text.hpp"
#include "detail/text_reader.hpp"
#include "detail/text_writer.hpp"
#include "detail/try.hpp"
#include "detail/unescape.hpp"
#include "detail/word_scan.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

using text::decode_cp;
using text::describe_at;

// ---- number rule (hjson-common.js tryParseNumber) ----

/// The length of the number `s` starts with when it reads as one under hjson's rule: '-'?,
/// digits without leading zeros, optional '.' digits*, optional exponent, then only white space
/// (<= U+0020) to the end, or, with `stop_at_next`, up to a ',' ']' '}' '#' '//' '/*'. Returns
/// 0 when it is not a number; `is_float` tells whether a '.' or an exponent was seen.
std::size_t hjson_number(std::string_view s, bool stop_at_next, bool& is_float,
                         double* value = nullptr) {
    std::size_t p = 0;
    auto c = [&](std::size_t i) -> unsigned char {
        return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
    };
    is_float = false;
    if (c(p) == '-') {
        ++p;
    }
    std::size_t int_start = p;
    while (c(p) >= '0' && c(p) <= '9') {
        ++p;
    }
    std::size_t int_len = p - int_start;
    if (int_len == 0 || (int_len > 1 && s[int_start] == '0')) {
        return 0;
    }
    if (c(p) == '.') {
        is_float = true;
        ++p;
        while (c(p) >= '0' && c(p) <= '9') {
            ++p;
        }
    }
    if (c(p) == 'e' || c(p) == 'E') {
        is_float = true;
        ++p;
        if (c(p) == '+' || c(p) == '-') {
            ++p;
        }
        std::size_t e = p;
        while (c(p) >= '0' && c(p) <= '9') {
            ++p;
        }
        if (p == e) {
            return 0;  // "1e" reads as NaN
        }
    }
    std::size_t end = p;
    while (p < s.size() && c(p) <= ' ') {
        ++p;
    }
    if (p < s.size()) {
        unsigned char x = c(p);
        bool stop = stop_at_next && (x == ',' || x == '}' || x == ']' || x == '#' ||
                                     (x == '/' && (c(p + 1) == '/' || c(p + 1) == '*')));
        if (!stop) {
            return 0;
        }
    }
    // JavaScript's Number() of the text must be finite.
    if (is_float || end - int_start > 300) {
        std::string canon;
        std::string_view t = s.substr(0, end);
        if (std::size_t dot = t.find('.');
            dot != std::string_view::npos &&
            (dot + 1 >= t.size() || !(t[dot + 1] >= '0' && t[dot + 1] <= '9'))) {
            canon.assign(t.substr(0, dot + 1));
            canon.push_back('0');
            canon.append(t.substr(dot + 1));
            t = canon;
        }
        double d = 0;
        if (!text::parse_double(t, d) || !std::isfinite(d)) {
            return 0;
        }
        if (value != nullptr) {
            *value = d;
        }
    }
    return end;
}

// Byte classes: bit 1, the bytes that end a quoteless value's text for the keyword and number
// test (line breaks, ',' '}' ']' '#' '/'); bit 2, the bytes of a bare key (above U+0020, no
// punctuator); bit 4, ASCII string bytes the writer's checks pass as they are (U+0020 to
// U+007E but '"' and '\\'); bit 8, ASCII bytes a bare key may hold (U+0021 to U+007E but
// ,{[}]:#"'/).
constexpr byte_table hjson_class = make_byte_table([](unsigned char c) -> std::uint8_t {
    const bool stop = c == '\r' || c == '\n' || c == ',' || c == '}' || c == ']' || c == '#' ||
                      c == '/';
    const bool punct = c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':';
    const bool plain = c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
    const bool bare_key = c > 0x20 && c < 0x7F && !punct && c != '#' && c != '"' && c != '\'' &&
                          c != '/';
    return static_cast<std::uint8_t>((stop ? 1 : 0) | (c > ' ' && !punct ? 2 : 0) |
                                     (plain ? 4 : 0) | (bare_key ? 8 : 0));
});
constexpr std::uint8_t cls_stop = 1;
constexpr std::uint8_t cls_key = 2;
constexpr std::uint8_t cls_plain = 4;
constexpr std::uint8_t cls_bare_key = 8;

// The one-letter escapes of a quoted Hjson string (JSON's and \'); \u is read_u_escape's.
constexpr escape_letters hjson_escapes("\"'\\/bfnrt", "\"'\\/\b\f\n\r\t");

// ---- reader ----

template <class Sink>
class hjson_reader {
public:
    hjson_reader(std::string_view in, Sink& b) : in_(in), b_(b) {}

    step run() {
        std::size_t valid = utf8_valid_prefix(in_);
        if (valid != in_.size()) {
            return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
        }
        POLYCODEC_TRY(white());
        if (!eof() && (in_[pos_] == '{' || in_[pos_] == '[')) {
            auto r = in_[pos_] == '{' ? object(false) : array();
            if (!r) {
                return r;
            }
            return check_trailing();
        }
        // A root without braces: an object first, then a single value (legacyRootValue).
        auto first = object(true);
        if (first) {
            first = check_trailing();
        }
        if (first) {
            return first;
        }
        if constexpr (!std::is_same_v<Sink, builder>) {
            return first;  // the builder path tries the single value
        } else {
            b_.reset();
        }
        pos_ = 0;
        auto second = value();
        if (second) {
            second = check_trailing();
        }
        if (second) {
            return second;
        }
        if constexpr (std::is_same_v<Sink, builder>) {
            b_.reset();
        }
        return first;
    }

private:
    bool eof() const { return pos_ >= in_.size(); }
    unsigned char ch() const { return static_cast<unsigned char>(in_[pos_]); }
    unsigned char peek(std::size_t k) const {
        return pos_ + k < in_.size() ? static_cast<unsigned char>(in_[pos_ + k]) : 0;
    }
    static bool is_punctuator(unsigned char c) {
        return c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':';
    }

    error here(errc code, std::string message) const {
        return make_error(eof() ? errc::unexpected_eof : code, pos_, std::move(message));
    }

    step container_limit() {
        return fail(limit_error(b_, pos_));
    }

    // White space is every character up to U+0020; comments are '#', '//' and '/* */'. The
    // common case inline: blanks, then a byte that starts no comment.
    [[gnu::always_inline]] step white() {
        while (pos_ < in_.size() && ch() <= ' ') {
            ++pos_;
        }
        if (pos_ < in_.size() && ch() != '#' && ch() != '/') {
            return {};
        }
        return white_slow();
    }

    [[gnu::noinline]] step white_slow() {
        while (!eof()) {
            while (!eof() && ch() <= ' ') {
                ++pos_;
            }
            if (eof()) {
                break;
            }
            if (ch() == '#' || (ch() == '/' && peek(1) == '/')) {
                while (!eof() && ch() != '\n') {
                    ++pos_;
                }
            } else if (ch() == '/' && peek(1) == '*') {
                std::size_t end = in_.find("*/", pos_ + 2);
                if (end == std::string_view::npos) {
                    return fail(
                        make_error(errc::unexpected_eof, in_.size(), "unterminated block comment"));
                }
                pos_ = end + 2;
            } else {
                break;
            }
        }
        return {};
    }

    step check_trailing() {
        POLYCODEC_TRY(white());
        if (!eof()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input, saw " + describe_at(in_, pos_)));
        }
        return {};
    }

    step value() {
        POLYCODEC_TRY(white());
        if (eof()) {
            // hjson-js reads an empty quoteless string here ("a:" at the end of a root object).
            b_.add_string("");
            return {};
        }
        switch (ch()) {
            case '{':
                return object(false);
            case '[':
                return array();
            case '"':
            case '\'':
                return quoted(true);
            default:
                return quoteless();
        }
    }

    step array() {
        if (!b_.begin_array()) {
            return container_limit();
        }
        ++pos_;
        POLYCODEC_TRY(white());
        if (!eof() && ch() == ']') {
            ++pos_;
            b_.end_array();
            return {};
        }
        while (!eof()) {
            POLYCODEC_TRY(value());
            POLYCODEC_TRY(white());
            if (!eof() && ch() == ',') {
                ++pos_;
                POLYCODEC_TRY(white());
            }
            if (!eof() && ch() == ']') {
                ++pos_;
                b_.end_array();
                return {};
            }
            POLYCODEC_TRY(white());
        }
        return fail(make_error(errc::unexpected_eof, pos_,
                               "end of input while parsing an array (missing ']')"));
    }

    step object(bool without_braces) {
        if (!b_.begin_map()) {
            return container_limit();
        }
        if (!without_braces) {
            ++pos_;
        }
        POLYCODEC_TRY(white());
        if (!without_braces && !eof() && ch() == '}') {
            ++pos_;
            b_.end_map();
            return {};
        }
        while (!eof()) {
            POLYCODEC_TRY(key());
            POLYCODEC_TRY(white());
            if (eof() || ch() != ':') {
                return fail(here(errc::unexpected_char,
                                 "expected ':' after the key, saw " + describe_at(in_, pos_)));
            }
            ++pos_;
            POLYCODEC_TRY(value());
            POLYCODEC_TRY(white());
            if (!eof() && ch() == ',') {
                ++pos_;
                POLYCODEC_TRY(white());
            }
            if (!without_braces && !eof() && ch() == '}') {
                ++pos_;
                b_.end_map();
                return {};
            }
            POLYCODEC_TRY(white());
        }
        if (without_braces) {
            b_.end_map();
            return {};
        }
        return fail(make_error(errc::unexpected_eof, pos_,
                               "end of input while parsing an object (missing '}')"));
    }

    // keyname(): a quoted string, or the characters up to ':' (no punctuator, no white space
    // inside; white space before the ':' is allowed).
    step key() {
        if (ch() == '"' || ch() == '\'') {
            return quoted(false);
        }
        std::size_t start = pos_;
        {
            // The common case: key bytes straight up to the ':'.
            const char* e = skip_class(in_.data() + pos_, in_.data() + in_.size(), hjson_class,
                                       cls_key);
            if (e != in_.data() + pos_ && e != in_.data() + in_.size() && *e == ':') {
                pos_ = static_cast<std::size_t>(e - in_.data());
                b_.add_string(in_.substr(start, pos_ - start));
                return {};
            }
        }
        std::size_t name_len = 0;
        std::size_t space = std::string_view::npos;
        for (;;) {
            if (eof()) {
                return fail(make_error(errc::unexpected_eof, pos_,
                                       "end of input while looking for a key name"));
            }
            unsigned char c = ch();
            if (c == ':') {
                if (name_len == 0) {
                    return fail(make_error(errc::unexpected_char, pos_,
                                           "found ':' but no key name (quote an empty key)"));
                }
                if (space != std::string_view::npos && space != name_len) {
                    return fail(make_error(errc::unexpected_char, start + space,
                                           "white space in a key name (quote the key)"));
                }
                b_.add_string(in_.substr(start, name_len));
                return {};
            }
            if (c <= ' ') {
                if (space == std::string_view::npos) {
                    space = name_len;
                }
            } else if (is_punctuator(c)) {
                return fail(make_error(
                    errc::unexpected_char, pos_,
                    std::string("found '") + static_cast<char>(c) +
                        "' where a key name was expected (quote keys that contain {}[],: or "
                        "white space)"));
            } else {
                ++name_len;
            }
            ++pos_;
        }
    }

    // tfnns(): a quoteless string, or true/false/null/a number when the text up to the next
    // ',' ']' '}' or comment is exactly one of them.
    step quoteless() {
        unsigned char first = ch();
        if (is_punctuator(first)) {
            return fail(make_error(errc::unexpected_char, pos_,
                                   std::string("found '") + static_cast<char>(first) +
                                       "' where a value was expected"));
        }
        std::size_t start = pos_;
        const char* const end = in_.data() + in_.size();
        if (first == '-' || (first >= '0' && first <= '9')) {
            // The common case: an integer of up to 18 digits right before a line break or
            // ',' '}' ']' '#' (exactly the text the loop below would test).
            std::int64_t iv = 0;
            const char* q = small_integer(in_.data() + pos_, end, false, iv);
            if (q != nullptr && (q == end || *q == '\n' || *q == ',' || *q == '}' || *q == ']' ||
                                 *q == '\r' || *q == '#')) {
                pos_ = static_cast<std::size_t>(q - in_.data());
                b_.add_int(iv);
                return {};
            }
        }
        for (;;) {
            ++pos_;
            pos_ = static_cast<std::size_t>(
                skip_class_not(in_.data() + pos_, end, cls_stop) - in_.data());
            bool is_eol = eof() || ch() == '\r' || ch() == '\n';
            if (is_eol || ch() != '/' || peek(1) == '/' || peek(1) == '*') {
                std::string_view v = in_.substr(start, pos_ - start);
                if (first == 'f' || first == 'n' || first == 't') {
                    std::string_view t = text::js_trim(v);
                    if (t == "false") {
                        b_.add_bool(false);
                        return {};
                    }
                    if (t == "true") {
                        b_.add_bool(true);
                        return {};
                    }
                    if (t == "null") {
                        b_.add_null();
                        return {};
                    }
                } else if (first == '-' || (first >= '0' && first <= '9')) {
                    bool is_float = false;
                    double d = 0;
                    if (std::size_t n = hjson_number(v, false, is_float, &d)) {
                        if (is_float) {
                            b_.add_double(d);
                        } else {
                            add_decimal_integer(b_, v.substr(0, n));
                        }
                        return {};
                    }
                }
                if (is_eol) {
                    b_.add_string(text::js_trim(v));
                    return {};
                }
            }
        }
    }

    static const char* skip_class_not(const char* p, const char* e, std::uint8_t bit) noexcept {
        while (p < e && !hjson_class.has(static_cast<unsigned char>(*p), bit)) {
            ++p;
        }
        return p;
    }

    // string(): "..." or '...' with JSON escapes plus \'; ''' starts a multi-line string.
    step quoted(bool allow_ml) {
        char q = in_[pos_];
        if (allow_ml && q == '\'' && peek(1) == '\'' && peek(2) == '\'') {
            return multiline();
        }
        std::size_t start = pos_ + 1;
        // Bound the payload: up to the closing quote or the first line break.
        std::size_t p = start;
        while (p < in_.size() && in_[p] != q && in_[p] != '\n' && in_[p] != '\r') {
            p += in_[p] == '\\' ? 2 : 1;
        }
        std::size_t bound = p < in_.size() ? p : in_.size();
        char* out = b_.begin_string(bound - start);
        char* w = out;
        p = start;
        for (;;) {
            if (p >= in_.size()) {
                b_.end_string(out);
                pos_ = p;
                return fail(make_error(errc::unexpected_eof, p, "unterminated string"));
            }
            char c = in_[p];
            if (c == q) {
                break;
            }
            if (c == '\n' || c == '\r') {
                b_.end_string(out);
                pos_ = p;
                return fail(make_error(errc::invalid_string, p,
                                       "line break in a quoted string (use ''' for several "
                                       "lines, or \\n)"));
            }
            if (c != '\\') {
                *w++ = c;
                ++p;
                continue;
            }
            if (p + 1 >= in_.size()) {
                b_.end_string(out);
                return fail(make_error(errc::unexpected_eof, p + 1, "unterminated string"));
            }
            char e = in_[p + 1];
            std::size_t esc = p;
            p += 2;
            if (const char d = hjson_escapes[e]) {
                *w++ = d;
                continue;
            }
            if (e != 'u') {
                b_.end_string(out);
                return fail(make_error(errc::invalid_string, esc,
                                       "invalid escape \\" + describe_at(in_, esc + 1)));
            }
            std::uint32_t cp;
            if (const char* m = read_u_escape(in_, p, cp)) {
                b_.end_string(out);
                return fail(make_error(errc::invalid_string, esc, m));
            }
            w += utf8_encode(cp, w);
        }
        b_.end_string(w);
        pos_ = p + 1;
        return {};
    }

    // mlString(): the indentation of the opening ''' is removed from every line; \r is
    // dropped; the last line break before the closing ''' is not part of the value.
    step multiline() {
        std::size_t open = pos_;
        // Indentation in UTF-16 code units, as JavaScript counts it.
        std::size_t indent = 0;
        for (std::size_t i = open; i > 0 && in_[i - 1] != '\n'; --i) {
            auto c = static_cast<unsigned char>(in_[i - 1]);
            if ((c & 0xC0) != 0x80) {
                indent += c >= 0xF0 ? 2 : 1;
            }
        }
        pos_ += 3;
        auto skip_indent = [&] {
            std::size_t skip = indent;
            while (!eof() && ch() <= ' ' && ch() != '\n' && skip > 0) {
                --skip;
                ++pos_;
            }
        };
        while (!eof() && ch() <= ' ' && ch() != '\n') {
            ++pos_;
        }
        if (!eof() && ch() == '\n') {
            ++pos_;
            skip_indent();
        }
        scratch_.clear();
        int triple = 0;
        for (;;) {
            if (eof()) {
                return fail(make_error(errc::unexpected_eof, pos_,
                                       "unterminated multi-line string (missing ''')"));
            }
            if (ch() == '\'') {
                ++triple;
                ++pos_;
                if (triple == 3) {
                    if (!scratch_.empty() && scratch_.back() == '\n') {
                        scratch_.pop_back();
                    }
                    b_.add_string(scratch_);
                    return {};
                }
                continue;
            }
            scratch_.append(static_cast<std::size_t>(triple), '\'');
            triple = 0;
            if (ch() == '\n') {
                scratch_.push_back('\n');
                ++pos_;
                skip_indent();
            } else {
                if (ch() != '\r') {
                    scratch_.push_back(static_cast<char>(ch()));
                }
                ++pos_;
            }
        }
    }

    std::string_view in_;
    Sink& b_;
    std::size_t pos_ = 0;
    std::string scratch_;
};

result<void> decode_hjson(std::string_view in, builder& b, const decode_options&) {
    return decode_text_fast<hjson_reader>(in, b);
}

// ---- writer (hjson-stringify.js with default options) ----

// commonRange of hjson-stringify.js: characters that are always escaped.
constexpr bool is_common_range(std::uint32_t cp) noexcept {
    return (cp >= 0x7F && cp <= 0x9F) || cp == 0xAD || (cp >= 0x600 && cp <= 0x604) ||
           cp == 0x70F || cp == 0x17B4 || cp == 0x17B5 || (cp >= 0x200C && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF ||
           (cp >= 0xFFF0 && cp <= 0xFFFF);
}

enum class string_form { bare, quoted, escaped, multiline };

struct string_scan {
    bool needs_escape = false;     // needsEscape: \ " control or commonRange
    bool needs_escape_ml = false;  // needsEscapeML: ''' or controls but TAB LF CR, commonRange
    bool has_control = false;      // any character below U+0020 or in commonRange
    bool has_lf = false;
    bool has_cr = false;
};

string_scan scan_string(std::string_view s) {
    string_scan r;
    std::size_t p = 0;
    while (p < s.size()) {
        std::size_t len;
        std::uint32_t cp = decode_cp(s, p, len);
        if (cp < 0x20 || is_common_range(cp)) {
            r.has_control = true;
            r.needs_escape = true;
            if (cp == '\n') {
                r.has_lf = true;
            } else if (cp == '\r') {
                r.has_cr = true;
            } else if (cp != '\t') {
                r.needs_escape_ml = true;
            }
        } else if (cp == '\\' || cp == '"') {
            r.needs_escape = true;
        }
        p += len;
    }
    if (s.find("'''") != std::string_view::npos) {
        r.needs_escape_ml = true;
    }
    return r;
}

bool starts_with_js_space(std::string_view s) {
    std::size_t len;
    return !s.empty() && text::is_js_space(decode_cp(s, 0, len));
}

bool ends_with_js_space(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    std::size_t k = s.size() - 1;
    while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) {
        --k;
    }
    std::size_t len;
    return text::is_js_space(decode_cp(s, k, len));
}

// startsWithKeyword: ^(true|false|null)\s*((,|\]|\}|#|//|/\*).*)?$
bool starts_with_keyword(std::string_view s) {
    std::size_t n = 0;
    for (std::string_view kw :
         {std::string_view("true"), std::string_view("false"), std::string_view("null")}) {
        if (s.substr(0, kw.size()) == kw) {
            n = kw.size();
            break;
        }
    }
    if (n == 0) {
        return false;
    }
    std::size_t p = n;
    while (p < s.size()) {
        std::size_t len;
        if (!text::is_js_space(decode_cp(s, p, len))) {
            break;
        }
        p += len;
    }
    if (p == s.size()) {
        return true;
    }
    char c = s[p];
    return c == ',' || c == ']' || c == '}' || c == '#' ||
           (c == '/' && p + 1 < s.size() && (s[p + 1] == '/' || s[p + 1] == '*'));
}

// True when every byte of [p, p + n) is in class cls_plain (U+0020 to U+007E but '"' and
// '\\'), 8 bytes a step: a byte below 0x20, at or above 0x7F, or equal to '"' or '\\' sets its
// high bit (the sums cannot carry across bytes once bytes >= 0x80 are excluded).
[[gnu::always_inline]] inline bool all_plain(const char* p, std::size_t n) noexcept {
    using namespace word_scan;
    return (fold(p, n, [](std::uint64_t x) {
                return x | ((x - ones * 0x20) & ~x) | (x + ones) | equal_bytes(x, '"') |
                       equal_bytes(x, '\\');
            }) & high) == 0;
}

string_form choose_form(std::string_view s, bool is_root) {
    if (s.empty()) {
        return string_form::quoted;
    }
    if (all_plain(s.data(), s.size())) {
        // Printable ASCII without '"' or '\\': nothing to escape, no control, no line break,
        // and the only white space is ' ' (the checks below, without decoding).
        // Only a '-' or a digit can start a number, only 't' 'f' 'n' a keyword.
        const char c0 = s[0];
        bool is_float = false;
        const bool needs_quotes =
            c0 == ' ' || c0 == '\'' || c0 == '#' || c0 == '{' || c0 == '}' || c0 == '[' ||
            c0 == ']' || c0 == ':' || c0 == ',' ||
            (c0 == '/' && s.size() > 1 && (s[1] == '*' || s[1] == '/')) || s.back() == ' ' ||
            ((c0 == '-' || (c0 >= '0' && c0 <= '9')) && hjson_number(s, true, is_float) != 0) ||
            ((c0 == 't' || c0 == 'f' || c0 == 'n') && starts_with_keyword(s)) ||
            (is_root && s.find(':') != std::string_view::npos);
        return needs_quotes ? string_form::quoted : string_form::bare;
    }
    string_scan sc = scan_string(s);
    char c0 = s[0];
    bool is_float = false;
    bool needs_quotes = starts_with_js_space(s) || c0 == '"' || c0 == '\'' || c0 == '#' ||
                        c0 == '{' || c0 == '}' || c0 == '[' || c0 == ']' || c0 == ':' ||
                        c0 == ',' || s.substr(0, 2) == "/*" || s.substr(0, 2) == "//" ||
                        ends_with_js_space(s) || sc.has_control ||
                        hjson_number(s, true, is_float) != 0 || starts_with_keyword(s) ||
                        // A bare root string with a ':' reads back as a braceless root object
                        // (found by fuzz_decode_hjson: "/:" became {"/": ""}).
                        (is_root && s.find(':') != std::string_view::npos);
    if (!needs_quotes) {
        return string_form::bare;
    }
    if (!sc.needs_escape) {
        return string_form::quoted;
    }
    // ^\s+$ is part of needsEscapeML. Beyond hjson-js: a CR would be dropped by the reader, and
    // a one-line ''' string loses leading white space and cannot end with a quote.
    bool all_space = true;
    for (std::size_t p = 0; p < s.size();) {
        std::size_t len;
        if (!text::is_js_space(decode_cp(s, p, len))) {
            all_space = false;
            break;
        }
        p += len;
    }
    bool ml_ok = !sc.needs_escape_ml && !all_space && !is_root && !sc.has_cr &&
                 (sc.has_lf || (static_cast<unsigned char>(c0) > ' ' && s.back() != '\''));
    return ml_ok ? string_form::multiline : string_form::escaped;
}

// Hjson has no NaN or Infinity: those are refused, or null under lossy=allow (the writer).
constexpr scalar_spelling hjson_spelling{"null", "false", "true", {}, {}, {}};

/// True when `s` has a line break and choose_form makes it a ''' string: the member value then
/// starts on the next line.
bool is_multiline_value(std::string_view s) {
    return std::memchr(s.data(), '\n', s.size()) != nullptr &&
           choose_form(s, false) == string_form::multiline;
}

// The walk of detail/text_writer.hpp with hjson-stringify's layout: every element on its own
// line, two spaces a level, a non-empty container or a ''' string that follows a key on the
// next line.
class hjson_writer : public text_hooks {
public:
    using text_hooks::text_hooks;

    const scalar_spelling& spelling() const noexcept { return hjson_spelling; }

    // The whole document by one linear pass over the tape (pre-order: each element's children
    // follow it) with an explicit stack of open containers, instead of walk_text's recursion
    // through value cursors. Writes the same bytes as walk_text(*this, out_, root, 0): null,
    // booleans, int64, finite doubles, strings that choose_form writes bare or in plain quotes,
    // bare string keys and the layout are written here; every other element (tagged values,
    // bytes, uint64, bignums, non-finite doubles, escaped and multiline strings, other keys,
    // empty containers, containers nested deeper than the stack) goes to the walk's hooks.
    bool write_fast(value root) {
        struct frame {
            std::uint64_t remaining;  // elements (array) or entries (map) still to write
            bool map;
        };
        constexpr int max_stack = 128;
        frame st[max_stack];  // the open containers around the innermost one
        int depth = 0;        // open containers: the indentation depth of element i
        std::uint64_t rem = 0;  // the innermost one's elements or entries still to write
        bool in_map = false;    // the innermost one is a map
        const document* doc = root.doc();
        const std::uint64_t* t = doc->tape().data();
        const char* bytes = doc->bytes().data();
        std::size_t i = root.index();
        bool member = false;  // element i is a member value: its separator comes first
        for (;;) {
            const std::uint64_t h = t[i];
            const auto k = static_cast<kind>(h >> document::kind_shift);
            bool opened = false;  // element i opened a container: its first child is next
            switch (k) {
                case kind::null:
                case kind::boolean_false:
                case kind::boolean_true:
                case kind::int64:
                case kind::float64: {
                    double d = 0;
                    if (k == kind::float64) {
                        std::memcpy(&d, &t[i + 1], 8);
                        if (!std::isfinite(d)) [[unlikely]] {
                            if (!slow_element(doc, i, depth, member)) {
                                return false;
                            }
                            break;
                        }
                    }
                    char* const w0 = out_.prepare(56);
                    char* w = w0;
                    if (member) {
                        std::memcpy(w, ": ", 2);
                        w += 2;
                    }
                    if (k == kind::int64) {
                        w = put_int64_digits(w, t[i + 1]);
                        i += 2;
                    } else if (k == kind::float64) {
                        bool integral;
                        w += shortest_double_chars(w, d, &integral);
                        if (integral) {
                            std::memcpy(w, ".0", 2);
                            w += 2;
                        }
                        i += 2;
                    } else {
                        if (k == kind::null) {
                            std::memcpy(w, "null", 4);
                            w += 4;
                        } else if (k == kind::boolean_true) {
                            std::memcpy(w, "true", 4);
                            w += 4;
                        } else {
                            std::memcpy(w, "false", 5);
                            w += 5;
                        }
                        i += 1;
                    }
                    out_.commit(static_cast<std::size_t>(w - w0));
                    break;
                }
                case kind::string:
                case kind::timestamp: {
                    const std::string_view s(bytes + (h & document::payload_mask),
                                             static_cast<std::size_t>(t[i + 1]));
                    const string_form f = choose_form(s, depth == 0);
                    if (f != string_form::bare && f != string_form::quoted) [[unlikely]] {
                        if (member) {
                            // map_value's separator: a ''' string over lines starts on the next
                            if (f == string_form::multiline &&
                                std::memchr(s.data(), '\n', s.size()) != nullptr) {
                                put(':');
                            } else {
                                put2(':', ' ');
                            }
                        }
                        depth_ = depth;
                        write_string(s, depth == 0);
                        i += 2;
                        break;
                    }
                    char* const w0 = out_.prepare(s.size() + 4);
                    char* w = w0;
                    if (member) {
                        std::memcpy(w, ": ", 2);
                        w += 2;
                    }
                    if (f == string_form::quoted) {
                        *w++ = '"';
                    }
                    if (!s.empty()) {
                        std::memcpy(w, s.data(), s.size());
                        w += s.size();
                    }
                    if (f == string_form::quoted) {
                        *w++ = '"';
                    }
                    out_.commit(static_cast<std::size_t>(w - w0));
                    i += 2;
                    break;
                }
                case kind::array:
                case kind::map: {
                    const std::uint64_t count = t[i + 1];
                    const bool map = k == kind::map;
                    if (count == 0 || depth >= max_stack) [[unlikely]] {
                        if (!slow_element(doc, i, depth, member)) {
                            return false;
                        }
                        break;
                    }
                    if (member) {
                        put(':');
                        line(depth);
                    }
                    put(map ? '{' : '[');
                    if (depth > 0) {
                        st[depth - 1] = {rem, in_map};
                    }
                    ++depth;
                    rem = count;
                    in_map = map;
                    i += 2;
                    opened = true;
                    break;
                }
                default:  // uint64, bignum, bytes, tagged
                    if (!slow_element(doc, i, depth, member)) {
                        return false;
                    }
                    break;
            }
            // After an element: close the finished containers, then the next element's line
            // and key.
            for (;;) {
                if (!opened) {
                    if (depth == 0) {
                        return true;
                    }
                    if (--rem == 0) {
                        --depth;
                        line(depth);
                        put(in_map ? '}' : ']');
                        if (depth > 0) {
                            rem = st[depth - 1].remaining;
                            in_map = st[depth - 1].map;
                        }
                        continue;
                    }
                }
                line(depth);
                member = in_map;
                if (in_map) {
                    const std::uint64_t kh = t[i];
                    const auto kk = static_cast<kind>(kh >> document::kind_shift);
                    const char* kp = bytes + (kh & document::payload_mask);
                    const auto kn = static_cast<std::size_t>(t[i + 1]);
                    if ((kk == kind::string || kk == kind::timestamp) && kn != 0 &&
                        skip_class(kp, kp + kn, hjson_class, cls_bare_key) == kp + kn) {
                        std::memcpy(out_.prepare(kn), kp, kn);
                        out_.commit(kn);
                        i += 2;
                    } else {
                        const value kv(doc, i);
                        depth_ = depth;
                        if (auto r = write_key(kv); !r) {
                            status = std::move(r);
                            return false;
                        }
                        i = kv.end_index();
                    }
                }
                break;
            }
        }
    }

    bool leaf(value v) {
        switch (v.kind()) {
            case kind::string:
            case kind::timestamp:
                write_string(v.get_string(), depth_ == 0);
                return true;
            case kind::bytes: {
                // DESIGN section 3: bytes become base64url text.
                output_buffer tmp;
                base64_encode(tmp, v.get_string(), true);
                write_string(tmp.view(), depth_ == 0);
                return true;
            }
            case kind::float64: {  // not finite: write_scalar left it
                const double d = v.get_double();
                const char* what = std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
                if (!allow_lossy(opt_, v, "nonfinite_to_null",
                                 std::string(what) + " written as null")) {
                    status = fail(
                        unrepresentable(v, std::string(what) + " is not representable in hjson"));
                    return false;
                }
                out_.append("null");
                return true;
            }
            default:
                return true;  // every other scalar is write_scalar's
        }
    }

    int tagged(value& v, int) {
        if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
            status = fail(unrepresentable(
                v, "tag " + std::to_string(v.tag()) + " is not representable in hjson"));
            return walk_error;
        }
        v = v.tagged_value();
        return walk_next;
    }

    void open_array(int) { put('['); }
    void array_item(bool, int depth) {
        depth_ = depth;
        line(depth);
    }
    void close_array(bool empty, int depth) {
        if (!empty) {
            line(depth);
        }
        put(']');
    }
    void open_map(int) { put('{'); }
    bool map_key(value k, bool, int depth) {
        depth_ = depth;
        line(depth);
        if (auto r = write_key(k); !r) {
            status = std::move(r);
            return false;
        }
        return true;
    }
    // After the key: ':' and a space, or a line break where the value starts on a new line.
    void map_value(value v, int depth) {
        while (v.kind() == kind::tagged) {
            v = v.tagged_value();
        }
        if (v.is_container()) {
            if (v.size() != 0) {
                put(':');
                line(depth);
                return;
            }
        } else if ((v.kind() == kind::string || v.kind() == kind::timestamp) &&
                   is_multiline_value(v.get_string())) {
            put(':');
            return;
        }
        char* d = out_.prepare(2);
        d[0] = ':';
        d[1] = ' ';
        out_.commit(2);
    }
    void close_map(bool empty, int depth) {
        if (!empty) {
            line(depth);
        }
        put('}');
    }

private:
    // Element i at `depth` through the walk's hooks (the separator first when it is a member
    // value, as map_value writes it); i moves past it.
    [[gnu::noinline]] bool slow_element(const document* doc, std::size_t& i, int depth,
                                        bool member) {
        const value v(doc, i);
        if (member) {
            map_value(v, depth);
        }
        depth_ = depth;
        if (!walk_text(*this, out_, v, depth)) {
            return false;
        }
        i = v.end_index();
        return true;
    }
    void put2(char a, char b) {
        char* d = out_.prepare(2);
        d[0] = a;
        d[1] = b;
        out_.commit(2);
    }
    // A line break and the indentation of `depth`.
    // Up to 16 spaces as one fixed-size copy (no memset call for the usual depths).
    [[gnu::always_inline]] void line(int depth) {
        static constexpr char blanks[16] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
                                            ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
        const auto n = static_cast<std::size_t>(depth) * 2;
        char* d = out_.prepare(n + 17);
        d[0] = '\n';
        std::memcpy(d + 1, blanks, 16);
        if (n > 16) {
            std::memset(d + 17, ' ', n - 16);
        }
        out_.commit(n + 1);
    }
    void spaces(std::size_t n) {
        std::memset(out_.prepare(n), ' ', n);
        out_.commit(n);
    }

    // quoteReplace(): \b \t \n \f \r \" \\ and \uXXXX for the other characters of needsEscape.
    void write_escaped(std::string_view s) {
        out_.push_back('"');
        std::size_t p = 0;
        std::size_t run = 0;
        while (p < s.size()) {
            std::size_t len;
            std::uint32_t cp = decode_cp(s, p, len);
            if (cp >= 0x20 && cp != '"' && cp != '\\' && !is_common_range(cp)) {
                p += len;
                continue;
            }
            out_.append(s.data() + run, p - run);
            switch (cp) {
                case '\b':
                    out_.append("\\b");
                    break;
                case '\t':
                    out_.append("\\t");
                    break;
                case '\n':
                    out_.append("\\n");
                    break;
                case '\f':
                    out_.append("\\f");
                    break;
                case '\r':
                    out_.append("\\r");
                    break;
                case '"':
                    out_.append("\\\"");
                    break;
                case '\\':
                    out_.append("\\\\");
                    break;
                default: {  // a control or commonRange character: at most U+FFFF
                    static constexpr char hex[] = "0123456789abcdef";
                    const char buf[6] = {'\\', 'u', hex[(cp >> 12) & 15], hex[(cp >> 8) & 15],
                                         hex[(cp >> 4) & 15], hex[cp & 15]};
                    out_.append(buf, 6);
                }
            }
            p += len;
            run = p;
        }
        out_.append(s.data() + run, s.size() - run);
        out_.push_back('"');
    }

    void write_string(std::string_view s, bool is_root) {
        switch (choose_form(s, is_root)) {
            case string_form::bare:
                out_.append(s);
                return;
            case string_form::quoted:
                append_wrapped(out_, '"', s, '"');
                return;
            case string_form::escaped:
                write_escaped(s);
                return;
            case string_form::multiline:
                break;
        }
        if (s.find('\n') == std::string_view::npos) {
            out_.append("'''");
            out_.append(s);
            out_.append("'''");
            return;
        }
        // The lines one level deeper than the member.
        const std::size_t gap = static_cast<std::size_t>(depth_ + 1) * 2;
        line(depth_ + 1);
        out_.append("'''");
        std::size_t start = 0;
        for (;;) {
            std::size_t nl = s.find('\n', start);
            std::string_view ln =
                s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
            out_.push_back('\n');
            if (!ln.empty()) {
                spaces(gap);
                out_.append(ln);
            }
            if (nl == std::string_view::npos) {
                break;
            }
            start = nl + 1;
        }
        line(depth_ + 1);
        out_.append("'''");
    }

    // quoteKey(): bare unless empty or needsEscapeName (,{[}]:#"' white space // /*); keys with
    // control characters are quoted as well (hjson-js would write them bare and misread them).
    result<void> write_key(value k) {
        std::string num;
        std::string_view s;
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
            case kind::bignum:
                s = k.get_string();
                break;
            case kind::int64:
                // Integer keys become their decimal text (DESIGN section 3: not lossy).
                write_int(out_, k.get_int());
                return {};
            case kind::uint64:
                write_uint(out_, k.get_uint());
                return {};
            default: {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "hjson"));
                num = std::move(text);
                s = num;
            }
        }
        if (s.empty()) {
            out_.append("\"\"");
            return {};
        }
        // The common case: ASCII that needs no quotes (no '/', so no comment start either).
        if (skip_class(s.data(), s.data() + s.size(), hjson_class, cls_bare_key) ==
            s.data() + s.size()) {
            out_.append(s);
            return {};
        }
        bool quote =
            s.find("//") != std::string_view::npos || s.find("/*") != std::string_view::npos;
        for (std::size_t p = 0; p < s.size() && !quote;) {
            std::size_t len;
            std::uint32_t cp = decode_cp(s, p, len);
            quote = cp == ',' || cp == '{' || cp == '[' || cp == '}' || cp == ']' || cp == ':' ||
                    cp == '#' || cp == '"' || cp == '\'' || cp < 0x20 || text::is_js_space(cp);
            p += len;
        }
        if (!quote) {
            out_.append(s);
        } else if (scan_string(s).needs_escape) {
            write_escaped(s);
        } else {
            append_wrapped(out_, '"', s, '"');
        }
        return {};
    }

    int depth_ = 0;  // the depth of the element being written (0: the root)
};

result<void> encode_hjson(const document& doc, output_buffer& out, const encode_options& opt) {
    hjson_writer w(out, opt);
    if (!w.write_fast(doc.root())) {
        return std::move(w.status);
    }
    return {};
}

}  // namespace

const codec_functions hjson_codec{decode_hjson, encode_hjson};

}  // namespace polycodec::detail
