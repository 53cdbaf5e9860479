// JSON5 1.0.0 (https://spec.json5.org/): a recursive-descent reader straight into the tape and
// the writer. Input must be UTF-8; it is validated once up front, so string payloads that
// contain no escapes are appended without a second check.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "detail/base64.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/scalar_writer.hpp"
#include "detail/number.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/step.hpp"
#include "detail/text.hpp"
#include "detail/text_reader.hpp"
#include "detail/text_writer.hpp"
#include "detail/try.hpp"
#include "detail/unescape.hpp"
#include "formats.hpp"
#include "json5/unicode_id.hpp"

namespace polycodec::detail {
namespace {

using text::decode_cp;
using text::describe_at;

// ---- reader ----

// Bit 1: ASCII IdentifierPart bytes (ES5: letters, digits, '$', '_'); bit 2: IdentifierStart
// too; bit 4: bytes the writer copies into a string as they are (not a quote, the backslash,
// a control character or 0xE2, the lead byte of U+2028/U+2029).
constexpr byte_table json5_ascii = make_byte_table([](unsigned char c) -> std::uint8_t {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '$' || c == '_';
    const bool plain = c >= 0x20 && c != '\'' && c != '"' && c != '\\' && c != 0xE2;
    return static_cast<std::uint8_t>((letter || (c >= '0' && c <= '9') ? 1 : 0) |
                                     (letter ? 2 : 0) | (plain ? 4 : 0));
});

// The one-letter escapes of JSON5 that stand for another byte; \0, \x, \u and line
// continuations are the reader's own, any other escaped character is itself.
constexpr escape_letters json5_escapes("bfnrtv", "\b\f\n\r\t\v");

template <class Sink>
class json5_reader : text_cursor<Sink> {
public:
    json5_reader(std::string_view in, Sink& b) : text_cursor<Sink>(in, b) {}

    step run() {
        std::size_t valid = utf8_valid_prefix(in_);
        if (valid != in_.size()) {
            return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
        }
        POLYCODEC_TRY(skip_ws());
        POLYCODEC_TRY(parse_value());
        POLYCODEC_TRY(skip_ws());
        if (pos_ != in_.size()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input, saw " + describe_at(in_, pos_)));
        }
        return {};
    }

private:
    using cursor = text_cursor<Sink>;
    using cursor::b_, cursor::in_, cursor::pos_, cursor::container_limit;

    error unexpected(const char* expected) const {
        return make_error(pos_ >= in_.size() ? errc::unexpected_eof : errc::unexpected_char, pos_,
                          std::string("expected ") + expected + ", saw " + describe_at(in_, pos_));
    }

    unsigned char at(std::size_t p) const {
        return p < in_.size() ? static_cast<unsigned char>(in_[p]) : 0;
    }

    // JSON5 WhiteSpace: TAB VT FF SP NBSP BOM, Zs, and the line terminators LF CR LS PS.
    std::size_t ws_len(std::size_t p) const {
        unsigned char c = at(p);
        switch (c) {
            case '\t':
            case '\n':
            case '\v':
            case '\f':
            case '\r':
            case ' ':
                return 1;
            case 0xC2:
                return at(p + 1) == 0xA0 ? 2 : 0;
            case 0xE1:
                return at(p + 1) == 0x9A && at(p + 2) == 0x80 ? 3 : 0;
            case 0xE2: {
                unsigned char c1 = at(p + 1);
                unsigned char c2 = at(p + 2);
                if (c1 == 0x80 &&
                    ((c2 >= 0x80 && c2 <= 0x8A) || c2 == 0xA8 || c2 == 0xA9 || c2 == 0xAF)) {
                    return 3;
                }
                return c1 == 0x81 && c2 == 0x9F ? 3 : 0;
            }
            case 0xE3:
                return at(p + 1) == 0x80 && at(p + 2) == 0x80 ? 3 : 0;
            case 0xEF:
                return at(p + 1) == 0xBB && at(p + 2) == 0xBF ? 3 : 0;
            default:
                return 0;
        }
    }

    // LF, CR, U+2028, U+2029.
    std::size_t line_terminator_len(std::size_t p) const {
        unsigned char c = at(p);
        if (c == '\n' || c == '\r') {
            return 1;
        }
        if (c == 0xE2 && at(p + 1) == 0x80 && (at(p + 2) == 0xA8 || at(p + 2) == 0xA9)) {
            return 3;
        }
        return 0;
    }

    // The common case inline: ASCII blanks, then a byte that starts none of the rest.
    [[gnu::always_inline]] step skip_ws() {
        while (pos_ < in_.size()) {
            const char c = in_[pos_];
            if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
                ++pos_;
                continue;
            }
            if (c != '/' && static_cast<unsigned char>(c) < 0x80 && c != '\v' && c != '\f') {
                return {};
            }
            return skip_ws_slow();
        }
        return {};
    }

    [[gnu::noinline]] step skip_ws_slow() {
        for (;;) {
            if (pos_ >= in_.size()) {
                return {};
            }
            if (std::size_t n = ws_len(pos_)) {
                pos_ += n;
                continue;
            }
            if (in_[pos_] != '/') {
                return {};
            }
            if (at(pos_ + 1) == '/') {
                pos_ += 2;
                while (pos_ < in_.size() && line_terminator_len(pos_) == 0) {
                    ++pos_;
                }
                continue;
            }
            if (at(pos_ + 1) == '*') {
                std::size_t end = in_.find("*/", pos_ + 2);
                if (end == std::string_view::npos) {
                    return fail(
                        make_error(errc::unexpected_eof, in_.size(), "unterminated block comment"));
                }
                pos_ = end + 2;
                continue;
            }
            return fail(make_error(errc::unexpected_char, pos_,
                                   "expected '//' or '/*', saw " + describe_at(in_, pos_ + 1)));
        }
    }

    bool literal(std::string_view word) {
        if (in_.substr(pos_, word.size()) == word) {
            pos_ += word.size();
            return true;
        }
        return false;
    }

    step parse_value() {
        if (pos_ >= in_.size()) {
            return fail(unexpected("a value"));
        }
        char c = in_[pos_];
        switch (c) {
            case '{':
                return parse_object();
            case '[':
                return parse_array();
            case '"':
            case '\'':
                return parse_string();
            case 'n':
                if (literal("null")) {
                    b_.add_null();
                    return {};
                }
                break;
            case 't':
                if (literal("true")) {
                    b_.add_bool(true);
                    return {};
                }
                break;
            case 'f':
                if (literal("false")) {
                    b_.add_bool(false);
                    return {};
                }
                break;
            default:
                if (c == '+' || c == '-' || c == '.' || c == 'I' || c == 'N' ||
                    (c >= '0' && c <= '9')) {
                    return parse_number();
                }
        }
        return fail(unexpected("a value"));
    }

    step parse_array() {
        if (!b_.begin_array()) {
            return container_limit();
        }
        ++pos_;
        for (;;) {
            POLYCODEC_TRY(skip_ws());
            if (pos_ < in_.size() && in_[pos_] == ']') {
                ++pos_;
                b_.end_array();
                return {};
            }
            POLYCODEC_TRY(parse_value());
            POLYCODEC_TRY(skip_ws());
            if (pos_ < in_.size() && in_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (pos_ < in_.size() && in_[pos_] == ']') {
                ++pos_;
                b_.end_array();
                return {};
            }
            return fail(unexpected("',' or ']'"));
        }
    }

    step parse_object() {
        if (!b_.begin_map()) {
            return container_limit();
        }
        ++pos_;
        for (;;) {
            POLYCODEC_TRY(skip_ws());
            if (pos_ < in_.size() && in_[pos_] == '}') {
                ++pos_;
                b_.end_map();
                return {};
            }
            if (pos_ < in_.size() && (in_[pos_] == '"' || in_[pos_] == '\'')) {
                POLYCODEC_TRY(parse_string());
            } else if (auto r = parse_identifier(); !r) {
                return r;
            }
            POLYCODEC_TRY(skip_ws());
            if (pos_ >= in_.size() || in_[pos_] != ':') {
                return fail(unexpected("':' after the key"));
            }
            ++pos_;
            POLYCODEC_TRY(skip_ws());
            POLYCODEC_TRY(parse_value());
            POLYCODEC_TRY(skip_ws());
            if (pos_ < in_.size() && in_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (pos_ < in_.size() && in_[pos_] == '}') {
                ++pos_;
                b_.end_map();
                return {};
            }
            return fail(unexpected("',' or '}'"));
        }
    }

    // ES5 IdentifierName: IdentifierStart IdentifierPart*, where either may be a \uXXXX escape.
    step parse_identifier() {
        std::size_t start = pos_;
        // ASCII names without escapes: one scan over the table.
        if (pos_ < in_.size() && json5_ascii.has(static_cast<unsigned char>(in_[pos_]), 2)) {
            const char* e = skip_class(in_.data() + pos_ + 1, in_.data() + in_.size(),
                                       json5_ascii, 1);
            if (e == in_.data() + in_.size() ||
                (static_cast<unsigned char>(*e) < 0x80 && *e != '\\')) {
                pos_ = static_cast<std::size_t>(e - in_.data());
                b_.add_string(in_.substr(start, pos_ - start));
                return {};
            }
        }
        bool escaped = false;
        scratch_.clear();
        for (;;) {
            if (pos_ >= in_.size()) {
                break;
            }
            std::uint32_t cp;
            std::size_t len;
            std::size_t here = pos_;
            if (in_[pos_] == '\\') {
                if (at(pos_ + 1) != 'u') {
                    return fail(make_error(
                        errc::unexpected_char, pos_,
                        "expected \\u in an identifier, saw " + describe_at(in_, pos_ + 1)));
                }
                long u = text::hex_n(in_, pos_ + 2, 4);
                if (u < 0) {
                    return fail(
                        make_error(errc::invalid_string, pos_, "expected 4 hex digits after \\u"));
                }
                cp = static_cast<std::uint32_t>(u);
                len = 6;
                escaped = true;
            } else {
                cp = decode_cp(in_, pos_, len);
            }
            bool ok = here == start ? unicode_id::is_id_start(cp) : unicode_id::is_id_part(cp);
            if (!ok) {
                if (here == start || in_[here] == '\\') {
                    pos_ = here;
                    return fail(here == start ? unexpected("a key (string or identifier)")
                                              : make_error(errc::unexpected_char, here,
                                                           "escaped character is not allowed "
                                                           "in an identifier"));
                }
                break;
            }
            char buf[4];
            scratch_.append(buf, utf8_encode(cp, buf));
            pos_ += len;
        }
        if (pos_ == start) {
            return fail(unexpected("a key (string or identifier)"));
        }
        b_.add_string(escaped ? std::string_view(scratch_) : in_.substr(start, pos_ - start));
        return {};
    }

    // Finds the closing quote of the string starting at pos_ (skipping escapes); npos if none.
    std::size_t string_end(char q) const {
        std::size_t p = pos_ + 1;
        while (p < in_.size()) {
            char c = in_[p];
            if (c == q) {
                return p;
            }
            p += c == '\\' ? 2 : 1;
        }
        return std::string_view::npos;
    }

    step parse_string() {
        char q = in_[pos_];
        std::size_t start = pos_ + 1;
        {
            // Fast path: to the closing quote without an escape or a line break.
            const char* e = in_.data() + in_.size();
            const char* p = in_.data() + start;
            for (;;) {
                p = scan_to_special(p, e, q, '\\');
                if (p != e && *p != q && *p != '\\' && *p != '\n' && *p != '\r') {
                    ++p;  // another control character: part of the string
                    continue;
                }
                break;
            }
            if (p != e && *p == q) {
                const auto end = static_cast<std::size_t>(p - in_.data());
                b_.add_string(in_.substr(start, end - start));
                pos_ = end + 1;
                return {};
            }
        }
        std::size_t end = string_end(q);
        std::size_t scan_end = end == std::string_view::npos ? in_.size() : end;
        // Fast path: no escapes and no line breaks.
        std::size_t p = start;
        while (p < scan_end && in_[p] != '\\' && in_[p] != '\n' && in_[p] != '\r') {
            ++p;
        }
        if (p == end) {
            b_.add_string(in_.substr(start, end - start));
            pos_ = end + 1;
            return {};
        }
        char* out = b_.begin_string(scan_end - start);
        char* w = out;
        p = start;
        for (;;) {
            if (p == end) {
                break;
            }
            if (p >= scan_end) {
                b_.end_string(out);
                return fail(make_error(errc::unexpected_eof, in_.size(), "unterminated string"));
            }
            char c = in_[p];
            if (c == '\n' || c == '\r') {
                b_.end_string(out);
                return fail(make_error(errc::invalid_string, p,
                                       "line break in string (escape it as \\n or continue the "
                                       "line with a backslash)"));
            }
            if (c != '\\') {
                *w++ = c;
                ++p;
                continue;
            }
            if (p + 1 >= scan_end) {
                b_.end_string(out);
                return fail(make_error(errc::unexpected_eof, in_.size(), "unterminated string"));
            }
            char e = in_[p + 1];
            std::size_t esc = p;
            p += 2;
            if (const char d = json5_escapes[e]) {
                *w++ = d;
                continue;
            }
            switch (e) {
                case '0':
                    if (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
                        b_.end_string(out);
                        return fail(
                            make_error(errc::invalid_string, esc, "octal escapes are not allowed"));
                    }
                    *w++ = '\0';
                    break;
                case '1':
                case '2':
                case '3':
                case '4':
                case '5':
                case '6':
                case '7':
                case '8':
                case '9':
                    b_.end_string(out);
                    return fail(make_error(errc::invalid_string, esc,
                                           std::string("invalid escape \\") + e));
                case 'x': {
                    long h = text::hex_n(in_, p, 2);
                    if (h < 0) {
                        b_.end_string(out);
                        return fail(make_error(errc::invalid_string, esc,
                                               "expected 2 hex digits after \\x"));
                    }
                    p += 2;
                    w += utf8_encode(static_cast<std::uint32_t>(h), w);
                    break;
                }
                case 'u': {
                    std::uint32_t cp;
                    if (const char* m = read_u_escape(in_, p, cp)) {
                        b_.end_string(out);
                        return fail(make_error(errc::invalid_string, esc, m));
                    }
                    w += utf8_encode(cp, w);
                    break;
                }
                case '\r':
                    // LineContinuation: the escaped line terminator (CR LF counts as one).
                    if (at(p) == '\n') {
                        ++p;
                    }
                    break;
                case '\n':
                    break;
                default: {
                    // CharacterEscapeSequence of any other character is the character itself;
                    // an escaped U+2028 or U+2029 is a line continuation.
                    std::size_t len;
                    std::uint32_t cp = decode_cp(in_, p - 1, len);
                    if (cp != 0x2028 && cp != 0x2029) {
                        std::memcpy(w, in_.data() + p - 1, len);
                        w += len;
                    }
                    p += len - 1;
                }
            }
        }
        b_.end_string(w);
        pos_ = p + 1;
        return {};
    }

    step parse_number() {
        {
            // Fast path: a decimal integer of up to 18 digits (no leading zero) followed by a
            // byte that ends it.
            const char* e = in_.data() + in_.size();
            std::int64_t v = 0;
            const char* p = small_integer(in_.data() + pos_, e, false, v);
            if (p != nullptr &&
                (p == e || (static_cast<unsigned char>(*p) < 0x80 && *p != '.' && *p != 'e' &&
                            *p != 'E' && *p != 'x' && *p != 'X' && *p != '\\' &&
                            !json5_ascii.has(static_cast<unsigned char>(*p), 1)))) {
                pos_ = static_cast<std::size_t>(p - in_.data());
                b_.add_int(v);
                return {};
            }
        }
        std::size_t start = pos_;
        std::size_t p = pos_;
        bool neg = false;
        if (in_[p] == '+' || in_[p] == '-') {
            neg = in_[p] == '-';
            ++p;
        }
        pos_ = p;
        if (literal("Infinity")) {
            b_.add_double(neg ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity());
            return {};
        }
        if (literal("NaN")) {
            b_.add_double(std::numeric_limits<double>::quiet_NaN());
            return {};
        }
        if (at(p) == '0' && (at(p + 1) == 'x' || at(p + 1) == 'X')) {
            std::size_t h = p + 2;
            while (h < in_.size() && text::hex_value(in_[h]) >= 0) {
                ++h;
            }
            if (h == p + 2) {
                pos_ = h;
                return fail(
                    make_error(h >= in_.size() ? errc::unexpected_eof : errc::invalid_number, h,
                               "expected a hex digit, saw " + describe_at(in_, h)));
            }
            if (h < in_.size() && (unicode_id::is_id_start(static_cast<unsigned char>(in_[h])) ||
                                   static_cast<unsigned char>(in_[h]) >= 0x80)) {
                return fail(
                    make_error(errc::invalid_number, h,
                               "expected the end of the number, saw " + describe_at(in_, h)));
            }
            pos_ = h;
            std::string_view digits = in_.substr(p + 2, h - p - 2);
            while (digits.size() > 1 && digits[0] == '0') {
                digits.remove_prefix(1);
            }
            if (digits.size() <= 16) {
                std::uint64_t v = 0;
                for (char d : digits) {
                    v = v * 16 + static_cast<std::uint64_t>(text::hex_value(d));
                }
                if (!neg) {
                    b_.add_uint(v);
                    return {};
                }
                if (v <= std::uint64_t{1} << 63) {
                    b_.add_int(static_cast<std::int64_t>(0 - v));
                    return {};
                }
            }
            std::string dec = text::hex_to_decimal(digits);
            b_.add_bignum(neg ? "-" + dec : dec);
            return {};
        }
        std::size_t int_start = p;
        if (at(p) == '0') {
            ++p;
            if (at(p) >= '0' && at(p) <= '9') {
                pos_ = p;
                return fail(make_error(errc::invalid_number, p, "leading zeros are not allowed"));
            }
        } else {
            while (at(p) >= '0' && at(p) <= '9') {
                ++p;
            }
        }
        bool int_digits = p > int_start;
        bool is_float = false;
        bool frac_digits = false;
        if (at(p) == '.') {
            is_float = true;
            ++p;
            while (at(p) >= '0' && at(p) <= '9') {
                ++p;
                frac_digits = true;
            }
        }
        if (!int_digits && !frac_digits) {
            pos_ = p;
            return fail(make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_number, p,
                                   "expected a digit, saw " + describe_at(in_, p)));
        }
        if (at(p) == 'e' || at(p) == 'E') {
            is_float = true;
            ++p;
            if (at(p) == '+' || at(p) == '-') {
                ++p;
            }
            if (!(at(p) >= '0' && at(p) <= '9')) {
                pos_ = p;
                return fail(
                    make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_number, p,
                               "expected a digit in the exponent, saw " + describe_at(in_, p)));
            }
            while (at(p) >= '0' && at(p) <= '9') {
                ++p;
            }
        }
        pos_ = p;
        // ES5 7.8.3: the character after a numeric literal must not start an identifier.
        if (p < in_.size() && static_cast<unsigned char>(in_[p]) < 0x80) {
            if (json5_ascii.has(static_cast<unsigned char>(in_[p]), 2) || in_[p] == '\\') {
                return fail(
                    make_error(errc::invalid_number, p,
                               "expected the end of the number, saw " + describe_at(in_, p)));
            }
        } else if (p < in_.size()) {
            std::size_t len;
            std::uint32_t cp = decode_cp(in_, p, len);
            if (unicode_id::is_id_start(cp) || cp == '\\') {
                return fail(
                    make_error(errc::invalid_number, p,
                               "expected the end of the number, saw " + describe_at(in_, p)));
            }
        }
        std::size_t from = in_[start] == '+' ? start + 1 : start;
        std::string_view t = in_.substr(from, p - from);
        if (!is_float) {
            add_decimal_integer(b_, t);
            return {};
        }
        double d = 0;
        // from_chars takes neither "5." nor ".5" everywhere: give it the canonical spelling.
        // A stack buffer for ordinary numbers keeps decoding allocation-free.
        char stack_buf[64];
        std::string heap_buf;
        if (t.find('.') != std::string_view::npos) {
            char* canon = stack_buf;
            if (t.size() + 2 > sizeof stack_buf) {
                heap_buf.resize(t.size() + 2);
                canon = heap_buf.data();
            }
            std::size_t n = 0;
            for (std::size_t i = 0; i < t.size(); ++i) {
                if (t[i] == '.') {
                    if (i == 0 || t[i - 1] == '-') {
                        canon[n++] = '0';
                    }
                    canon[n++] = '.';
                    if (i + 1 >= t.size() || !(t[i + 1] >= '0' && t[i + 1] <= '9')) {
                        canon[n++] = '0';
                    }
                } else {
                    canon[n++] = t[i];
                }
            }
            t = std::string_view(canon, n);
        }
        if (!text::parse_double(t, d)) {
            return fail(make_error(errc::invalid_number, start, "invalid number"));
        }
        b_.add_double(d);
        return {};
    }

    std::string scratch_;
};

result<void> decode_json5(std::string_view in, builder& b, const decode_options&) {
    return decode_text_fast<json5_reader>(in, b);
}

// ---- writer ----

/// True when `s` is an ES5 IdentifierName that needs no escapes.
bool is_identifier(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    // ASCII: one pass over the table; any other byte takes the code point path below.
    if (json5_ascii.has(static_cast<unsigned char>(s[0]), 2)) {
        const char* e = skip_class(s.data() + 1, s.data() + s.size(), json5_ascii, 1);
        if (e == s.data() + s.size()) {
            return true;
        }
        if (static_cast<unsigned char>(*e) < 0x80) {
            return false;
        }
    }
    if (!utf8_valid(s)) {
        return false;
    }
    std::size_t p = 0;
    while (p < s.size()) {
        std::size_t len;
        std::uint32_t cp = decode_cp(s, p, len);
        if (p == 0 ? !unicode_id::is_id_start(cp) : !unicode_id::is_id_part(cp)) {
            return false;
        }
        p += len;
    }
    return true;
}

// As json5.stringify: the quote that occurs less often in the text (single on a tie); escapes
// for the backslash, that quote, \b \f \n \r \t \v, \0 (\x00 before a digit), other control
// characters as \xHH, and U+2028/U+2029 as \u escapes.
void write_string(output_buffer& out, std::string_view s) {
    // Most strings have none of the bytes that need a look: quoted with ' as they are.
    const char* e = s.data() + s.size();
    const char* stop = s.size() >= 16 ? scan_to_special4(s.data(), e, '\'', '"', '\\',
                                                          static_cast<char>(0xE2))
                                      : skip_class(s.data(), e, json5_ascii, 4);
    // (bit 4 is the complement of the set scan_to_special4 looks for)
    if (stop == e) {
        char* d = out.prepare(s.size() + 2);
        d[0] = '\'';
        if (!s.empty()) {
            std::memcpy(d + 1, s.data(), s.size());
        }
        d[s.size() + 1] = '\'';
        out.commit(s.size() + 2);
        return;
    }
    std::size_t dq = 0;
    std::size_t sq = 0;
    for (char c : s) {
        dq += c == '"';
        sq += c == '\'';
    }
    char q = sq > dq ? '"' : '\'';
    out.push_back(q);
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        const char* rep = nullptr;
        char buf[8];
        if (c >= 0x20 && c != static_cast<unsigned char>(q) && c != '\\' && c != 0xE2) {
            continue;
        }
        if (c == 0xE2) {
            if (i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
                (static_cast<unsigned char>(s[i + 2]) == 0xA8 ||
                 static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
                rep = static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
                out.append(s.data() + run, i - run);
                out.append(rep);
                i += 2;
                run = i + 1;
            }
            continue;
        }
        switch (c) {
            case '\\':
                rep = "\\\\";
                break;
            case '"':
                rep = "\\\"";
                break;
            case '\'':
                rep = "\\'";
                break;
            case '\b':
                rep = "\\b";
                break;
            case '\f':
                rep = "\\f";
                break;
            case '\n':
                rep = "\\n";
                break;
            case '\r':
                rep = "\\r";
                break;
            case '\t':
                rep = "\\t";
                break;
            case '\v':
                rep = "\\v";
                break;
            case '\0':
                rep = i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9' ? "\\x00" : "\\0";
                break;
            default:
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                rep = buf;
        }
        out.append(s.data() + run, i - run);
        out.append(rep);
        run = i + 1;
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back(q);
}

constexpr scalar_spelling json5_spelling{"null", "false", "true", "NaN", "Infinity", "-Infinity"};

// The hooks of detail::walk_text (text_writer.hpp).
class json5_writer : public text_hooks {
public:
    using text_hooks::text_hooks;

    const scalar_spelling& spelling() const noexcept { return json5_spelling; }

    // Integers, the bulk of most documents, without write_scalar's call and switch.
    [[gnu::always_inline]] bool scalar(value v) {
        if (v.kind() == kind::int64) {
            write_int(out_, v.get_int());
            return true;
        }
        return write_scalar(out_, v, json5_spelling) || leaf(v);
    }

    bool leaf(value v) {
        switch (v.kind()) {
            case kind::string:
            case kind::timestamp:
                write_string(out_, v.get_string());
                return true;
            case kind::bytes:
                // DESIGN section 3: bytes become base64url text, as in JSON.
                out_.push_back('\'');
                base64_encode(out_, v.get_string(), true);
                out_.push_back('\'');
                return true;
            default:
                return true;  // every other scalar is write_scalar's
        }
    }

    int tagged(value& v, int) { return drop_tag(v, "json5"); }
    char item_sep() const { return opt_.pretty ? 0 : ','; }

    void open_array(int) { put('['); }
    void array_item(bool first, int depth) {
        if (!first) {
            put(',');
        }
        newline(depth);
    }
    void close_array(bool empty, int depth) {
        if (!empty) {
            trailing_comma();
            newline(depth);
        }
        put(']');
    }
    void open_map(int) { put('{'); }
    bool map_key(value k, bool first, int depth) {
        if (!opt_.pretty && k.kind() == kind::string) {
            // The common case in one capacity check: [,]name:
            std::string_view s = k.get_string();
            if (is_identifier(s)) {
                char* d = out_.prepare(s.size() + 2);
                *d = ',';
                d += first ? 0 : 1;
                std::memcpy(d, s.data(), s.size());
                d[s.size()] = ':';
                out_.commit(s.size() + (first ? 1 : 2));
                return true;
            }
        }
        if (!first) {
            put(',');
        }
        newline(depth);
        if (auto r = write_key(k); !r) {
            status = std::move(r);
            return false;
        }
        if (opt_.pretty) {
            out_.append(": ");
        } else {
            out_.push_back(':');
        }
        return true;
    }
    void close_map(bool empty, int depth) {
        if (!empty) {
            trailing_comma();
            newline(depth);
        }
        put('}');
    }


private:
    result<void> write_key(value k) {
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp: {
                std::string_view s = k.get_string();
                if (is_identifier(s)) {
                    out_.append(s.data(), s.size());
                } else {
                    write_string(out_, s);
                }
                return {};
            }
            case kind::int64:
            case kind::uint64:
            case kind::bignum:
                // Integer keys become their decimal text (DESIGN section 3: not lossy).
                out_.push_back('"');
                if (k.kind() == kind::int64) {
                    write_int(out_, k.get_int());
                } else if (k.kind() == kind::uint64) {
                    write_uint(out_, k.get_uint());
                } else {
                    out_.append(k.get_string());
                }
                out_.push_back('"');
                return {};
            default: {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "json5"));
                write_string(out_, text);
                return {};
            }
        }
    }

    // As json5.stringify with an indent: every element of a multi-line container ends with a
    // comma, the last one too.
    void trailing_comma() {
        if (opt_.pretty) {
            out_.push_back(',');
        }
    }

};

result<void> encode_json5(const document& doc, output_buffer& out, const encode_options& opt) {
    return encode_text<json5_writer>(doc, out, opt);
}

}  // namespace

const codec_functions json5_codec{decode_json5, encode_json5};

}  // namespace polycodec::detail
