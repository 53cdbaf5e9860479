// S-expressions in R7RS datum syntax as DESIGN section 1 fixes them (docs/formats/sexpr.md):
// null #nil, vectors for arrays, association lists of dotted pairs for maps.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "detail/describe.hpp"
#include "detail/lossy.hpp"
#include "detail/number.hpp"
#include "detail/scalar_writer.hpp"
#include "detail/step.hpp"
#include "detail/text.hpp"
#include "detail/text_reader.hpp"
#include "detail/text_writer.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr bool is_dec(char c) noexcept { return c >= '0' && c <= '9'; }
using text::hex_value;  // detail/text.hpp
constexpr bool is_space(char c) noexcept {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v';
}
// R7RS delimiters end a token.
constexpr bool is_delimiter(char c) noexcept {
    return is_space(c) || c == '(' || c == ')' || c == '"' || c == ';' || c == '|';
}

// Bit 1: a byte inside a token (not a delimiter); bit 2: a byte that may start atmosphere
// (a space, ';', '#'); bit 4: a byte the writer escapes in a string ('"', the backslash,
// \a \b \t \n \r); bit 8: a byte that keeps a token from being a plain symbol (non-ASCII, the
// backslash, ' ` ,); bit 16: an identifier's initial (letters, ! $ % & * / < = > ? ^ _ ~); bit 32:
// an identifier's later byte (those, digits, + - . @).
constexpr std::uint8_t token_byte = 1;
constexpr std::uint8_t atmosphere_lead = 2;
constexpr std::uint8_t escaped = 4;
constexpr std::uint8_t symbol_odd = 8;
constexpr std::uint8_t ident_initial = 16;
constexpr std::uint8_t ident_later = 32;
constexpr byte_table sexpr_bytes = make_byte_table([](unsigned char c) -> std::uint8_t {
    const char x = static_cast<char>(c);
    const bool esc =
        x == '"' || x == '\\' || x == '\a' || x == '\b' || x == '\t' || x == '\n' || x == '\r';
    const bool odd = c >= 0x80 || x == '\\' || x == '\'' || x == '`' || x == ',';
    bool initial = (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z');
    for (char i : std::string_view("!$%&*/<=>?^_~")) {
        initial = initial || x == i;
    }
    const bool later = initial || is_dec(x) || x == '+' || x == '-' || x == '.' || x == '@';
    return static_cast<std::uint8_t>((is_delimiter(x) ? 0 : token_byte) |
                                     (is_space(x) || x == ';' || x == '#' ? atmosphere_lead : 0) |
                                     (esc ? escaped : 0) | (odd ? symbol_odd : 0) |
                                     (initial ? ident_initial : 0) | (later ? ident_later : 0));
});

// ---- reader ----

template <class Sink>
class sexpr_reader : text_cursor<Sink> {
public:
    sexpr_reader(std::string_view in, Sink& b) : text_cursor<Sink>(in, b) {}

    step run() {
        POLYCODEC_TRY(skip_atmosphere());
        POLYCODEC_TRY(parse_datum());
        POLYCODEC_TRY(skip_atmosphere());
        return this->at_end();
    }

private:
    using cursor = text_cursor<Sink>;
    using cursor::b_, cursor::in_, cursor::pos_, cursor::container_limit, cursor::describe_at,
        cursor::peek, cursor::unexpected;

    // A map key must be a scalar: a container is refused before it reaches the tape.
    step open_container(bool map) {
        if (key_depth_ == b_.depth()) {
            return fail(make_error(errc::unexpected_char, key_at_,
                                   "a map key must be a scalar, saw a compound value"));
        }
        if (discard_ == 0 && !(map ? b_.begin_map() : b_.begin_array())) {
            return container_limit();
        }
        return {};
    }

    // Every sink call goes through emit, so that a #; datum comment parses without output.
    template <class F>
    void emit(F&& f) {
        if (discard_ == 0) {
            f(b_);
        }
    }

    // ---- atmosphere: whitespace, ; comments, #| nested |# comments, #; datum comments ----

    [[gnu::always_inline]] step skip_atmosphere() {
        // One space between tokens, the common case, inline; anything else out of line.
        while (pos_ < in_.size() && in_[pos_] == ' ') {
            ++pos_;
        }
        if (pos_ < in_.size() &&
            !sexpr_bytes.has(static_cast<unsigned char>(in_[pos_]), atmosphere_lead)) {
            return {};  // the common case: nothing to skip
        }
        return skip_atmosphere_here();
    }
    [[gnu::noinline]] step skip_atmosphere_here() {
        while (pos_ < in_.size()) {
            char c = in_[pos_];
            if (is_space(c)) {
                ++pos_;
            } else if (c == ';') {
                while (pos_ < in_.size() && in_[pos_] != '\n') {
                    ++pos_;
                }
            } else if (c == '#' && peek(pos_ + 1) == '|') {
                std::size_t open = pos_;
                std::size_t level = 1;
                pos_ += 2;
                while (level != 0) {
                    if (pos_ + 1 >= in_.size()) {
                        pos_ = in_.size();
                        return fail(make_error(errc::unexpected_eof, in_.size(),
                                               "unterminated #| comment (opened at byte " +
                                                   std::to_string(open) + ")"));
                    }
                    if (in_[pos_] == '#' && in_[pos_ + 1] == '|') {
                        ++level;
                        pos_ += 2;
                    } else if (in_[pos_] == '|' && in_[pos_ + 1] == '#') {
                        --level;
                        pos_ += 2;
                    } else {
                        ++pos_;
                    }
                }
            } else if (c == '#' && peek(pos_ + 1) == ';') {
                // #; #; 1 2 skips two datums: the recursion is bounded like nesting.
                if (depth_ + 1 > b_.limits().max_depth) {
                    return fail(
                        make_error(errc::depth_exceeded, pos_,
                                   "nesting deeper than " + std::to_string(b_.limits().max_depth)));
                }
                pos_ += 2;
                ++depth_;
                auto skipped = skip_atmosphere();
                --depth_;
                if (!skipped) {
                    return skipped;
                }
                ++discard_;
                auto r = parse_datum();
                --discard_;
                if (!r) {
                    return r;
                }
            } else {
                break;
            }
        }
        return {};
    }

    // ---- datums ----

    step parse_datum() {
        if (++depth_ > b_.limits().max_depth) {
            return fail(make_error(errc::depth_exceeded, pos_,
                                   "nesting deeper than " + std::to_string(b_.limits().max_depth)));
        }
        auto r = parse_datum_inner();
        --depth_;
        return r;
    }

    step parse_datum_inner() {
        if (pos_ >= in_.size()) {
            return fail(unexpected("a datum"));
        }
        char c = in_[pos_];
        switch (c) {
            case '(':
                ++pos_;
                return parse_list_body();
            case '"':
                return parse_string();
            case '|':
                return parse_bar_symbol();
            case '#':
                return parse_hash();
            case ')':
                return fail(unexpected("a datum"));
            case '\'':
            case '`':
            case ',':
                return fail(
                    make_error(errc::unexpected_char, pos_,
                               "quote abbreviations are not supported, saw " + describe_at(pos_)));
            default:
                return parse_token();
        }
    }

    // `.` standing alone (a dotted pair's dot).
    bool at_dot() const {
        return peek(pos_) == '.' && (pos_ + 1 >= in_.size() || is_delimiter(in_[pos_ + 1]));
    }

    // After '(' : "()" is the empty map; a list whose first element is a pair (a dotted pair
    // or any non-empty list) is an association list, so a map; any other list is an array.
    // An element's '(' is consumed before its kind is known, so nothing is read twice.
    step parse_list_body() {
        POLYCODEC_TRY(skip_atmosphere());
        if (pos_ < in_.size() && in_[pos_] == ')') {
            ++pos_;
            POLYCODEC_TRY(open_container(true));
            emit([](Sink& o) { o.end_map(); });
            return {};
        }
        if (pos_ < in_.size() && in_[pos_] == '(') {
            std::size_t open = pos_;
            ++pos_;
            POLYCODEC_TRY(skip_atmosphere());
            if (pos_ >= in_.size() || in_[pos_] != ')') {
                // The first element is a pair: an association list.
                if (auto r = open_container(true); !r) {
                    pos_ = open;
                    return r;
                }
                POLYCODEC_TRY(parse_entry());
                return parse_alist();
            }
            // The first element is (), the empty map: an array.
            ++pos_;
            POLYCODEC_TRY(open_container(false));
            POLYCODEC_TRY(empty_map());
        } else if (auto r = open_container(false); !r) {
            return r;
        }
        return parse_array_rest();
    }

    step empty_map() {
        if (++depth_ > b_.limits().max_depth) {
            return depth_error();
        }
        auto r = open_container(true);
        --depth_;
        if (r) {
            emit([](Sink& o) { o.end_map(); });
        }
        return r;
    }
    step depth_error() {
        return fail(make_error(errc::depth_exceeded, pos_,
                               "nesting deeper than " + std::to_string(b_.limits().max_depth)));
    }

    // Atmosphere, then: true after a ')' (consumed), false before anything else; the end of
    // the input is the error "expected <what>".
    // Inline: it runs before every element of a list.
    [[gnu::always_inline]] result<bool> closing(const char* what) {
        POLYCODEC_TRY(skip_atmosphere());
        if (pos_ >= in_.size()) {
            return missing(what);
        }
        if (in_[pos_] == ')') {
            ++pos_;
            return true;
        }
        return false;
    }

    [[gnu::noinline]] result<bool> missing(const char* what) { return fail(unexpected(what)); }

    // The elements of an array-list up to its ')'.
    step parse_array_rest() {
        for (;;) {
            POLYCODEC_TRY_ASSIGN(closed, closing("')'"));
            if (closed) {
                break;
            }
            if (at_dot()) {
                if (discard_ == 0) {
                    return fail(make_error(errc::unexpected_char, pos_,
                                           "a dotted tail outside a (key . value) pair is not "
                                           "supported"));
                }
                // Inside a #; comment any datum goes, a dotted pair too.
                ++pos_;
                continue;
            }
            if (in_[pos_] == '(') {
                std::size_t open = pos_;
                ++pos_;
                POLYCODEC_TRY(skip_atmosphere());
                if (pos_ < in_.size() && in_[pos_] == ')') {
                    ++pos_;
                    POLYCODEC_TRY(empty_map());
                    continue;
                }
                if (discard_ == 0) {
                    return fail(make_error(errc::unexpected_char, open,
                                           "a list mixing pairs and other values is neither an "
                                           "array nor an association list (write arrays as "
                                           "#(...))"));
                }
                if (++depth_ > b_.limits().max_depth) {
                    return depth_error();
                }
                auto r = parse_list_body();
                --depth_;
                if (!r) {
                    return r;
                }
                continue;
            }
            POLYCODEC_TRY(next_datum());
        }
        emit([](Sink& o) { o.end_array(); });
        return {};
    }

    // The entries after the first of an association list, up to its ')'.
    step parse_alist() {
        for (;;) {
            POLYCODEC_TRY_ASSIGN(closed, closing("')'"));
            if (closed) {
                break;
            }
            if (in_[pos_] != '(') {
                if (discard_ != 0) {
                    POLYCODEC_TRY(at_dot() ? (++pos_, step{}) : parse_datum());
                    continue;
                }
                return fail(unexpected("a (key . value) pair in an association list"));
            }
            std::size_t open = pos_;
            ++pos_;
            POLYCODEC_TRY(skip_atmosphere());
            if (pos_ < in_.size() && in_[pos_] == ')') {
                if (discard_ != 0) {
                    ++pos_;
                    continue;
                }
                pos_ = open;
                return fail(unexpected("a (key . value) pair in an association list"));
            }
            POLYCODEC_TRY(parse_entry());
        }
        emit([](Sink& o) { o.end_map(); });
        return {};
    }

    // One entry, its '(' consumed: key, then ". value)", ")" (the empty map) or the rest of
    // the list as the value.
    step parse_entry() {
        if (pos_ >= in_.size()) {
            return fail(unexpected("a key"));
        }
        // Inside a #; comment nothing is built, so any key goes.
        std::size_t saved_depth = key_depth_;
        key_at_ = pos_;
        key_depth_ = discard_ == 0 ? b_.depth() : SIZE_MAX;
        auto key = parse_datum();
        key_depth_ = saved_depth;
        if (!key) {
            return key;
        }
        POLYCODEC_TRY(skip_atmosphere());
        if (at_dot()) {
            // (key . value)
            ++pos_;
            POLYCODEC_TRY(skip_atmosphere());
            POLYCODEC_TRY(parse_datum());
            POLYCODEC_TRY(skip_atmosphere());
            if (pos_ >= in_.size() || in_[pos_] != ')') {
                return fail(unexpected("')' closing a (key . value) pair"));
            }
            ++pos_;
            return {};
        }
        // (key v ...) is (key . (v ...)): the value is the rest of the list, as Scheme
        // writers print a pair whose cdr is a list. It nests like a datum.
        if (++depth_ > b_.limits().max_depth) {
            return depth_error();
        }
        auto r = parse_list_body();
        --depth_;
        return r;
    }

    // #t #f #true #false #nil #(vector) #u8(bytes) #vu8(bytes) #\char #x1F #{symbol}#
    step parse_hash() {
        std::size_t start = pos_;
        char c = peek(pos_ + 1);
        if (c == '(') {
            pos_ += 2;
            return parse_vector();
        }
        if (c == '\\') {
            return parse_char();
        }
        if (c == '{') {
            return parse_brace_symbol();
        }
        if (in_.substr(pos_, 4) == "#u8(" || in_.substr(pos_, 5) == "#vu8(") {
            pos_ += in_[pos_ + 1] == 'v' ? 5 : 4;
            return parse_bytevector();
        }
        std::size_t end = pos_ + 1;
        while (end < in_.size() && !is_delimiter(in_[end])) {
            ++end;
        }
        std::string_view tok = in_.substr(pos_, end - pos_);
        if (tok == "#t" || tok == "#true") {
            emit([&](Sink& o) { o.add_bool(true); });
        } else if (tok == "#f" || tok == "#false") {
            emit([&](Sink& o) { o.add_bool(false); });
        } else if (tok == "#nil") {
            emit([](Sink& o) { o.add_null(); });
        } else if (tok.size() >= 2 && std::strchr("xXbBoOdDeEiI", tok[1]) != nullptr) {
            return parse_number(tok, start);
        } else {
            return fail(make_error(errc::unexpected_char, start,
                                   "unknown # syntax '" + std::string(tok.substr(0, 16)) + "'"));
        }
        pos_ = end;
        return {};
    }

    step parse_vector() {
        POLYCODEC_TRY(open_container(false));
        for (;;) {
            POLYCODEC_TRY_ASSIGN(closed, closing("')' closing a vector"));
            if (closed) {
                break;
            }
            POLYCODEC_TRY(next_datum());
        }
        emit([](Sink& o) { o.end_array(); });
        return {};
    }

    step parse_bytevector() {
        scratch_.clear();
        for (;;) {
            POLYCODEC_TRY_ASSIGN(closed, closing("')' closing a bytevector"));
            if (closed) {
                break;
            }
            std::size_t s = pos_;
            unsigned v = 0;
            while (pos_ < in_.size() && is_dec(in_[pos_]) && v < 1000) {
                v = v * 10 + static_cast<unsigned>(in_[pos_] - '0');
                ++pos_;
            }
            if (pos_ == s || v > 255 || (pos_ < in_.size() && !is_delimiter(in_[pos_]))) {
                pos_ = s;
                return fail(
                    make_error(pos_ >= in_.size() ? errc::unexpected_eof : errc::invalid_number, s,
                               "expected a byte (0 to 255) in a bytevector"));
            }
            scratch_.push_back(static_cast<char>(v));
        }
        emit([&](Sink& o) { o.add_bytes(scratch_); });
        return {};
    }

    // #\a #\space #\x41: a character is the string of that one character.
    step parse_char() {
        std::size_t start = pos_;
        std::size_t p = pos_ + 2;
        if (p >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, p, "expected a character after #\\"));
        }
        // The first character is taken even when it is a delimiter: #\( #\space.
        unsigned char c0 = static_cast<unsigned char>(in_[p]);
        std::size_t len = c0 < 0x80 ? 1 : c0 < 0xe0 ? 2 : c0 < 0xf0 ? 3 : 4;
        if (utf8_valid_prefix(in_.substr(p, len)) != len) {
            return fail(make_error(errc::invalid_utf8, p, "invalid UTF-8 in a character"));
        }
        std::size_t end = p + len;
        while (end < in_.size() && !is_delimiter(in_[end])) {
            ++end;
        }
        std::string_view name = in_.substr(p, end - p);
        char buf[4];
        std::uint32_t cp = 0;
        if (end - p == len) {
            emit([&](Sink& o) { o.add_string(name); });
            pos_ = end;
            return {};
        }
        static constexpr struct {
            std::string_view name;
            std::uint32_t cp;
        } names[] = {{"alarm", 7},    {"backspace", 8}, {"delete", 0x7f}, {"escape", 0x1b},
                     {"newline", 10}, {"null", 0},      {"nul", 0},       {"return", 13},
                     {"space", 32},   {"tab", 9},       {"linefeed", 10}};
        bool found = false;
        for (const auto& n : names) {
            if (n.name == name) {
                cp = n.cp;
                found = true;
            }
        }
        if (!found && (name[0] == 'x' || name[0] == 'U' || name[0] == 'u') && name.size() > 1) {
            found = true;
            for (char h : name.substr(1)) {
                int v = hex_value(h);
                if (v < 0 || cp > 0x10FFFF) {
                    found = false;
                    break;
                }
                cp = cp * 16 + static_cast<std::uint32_t>(v);
            }
        }
        if (!found || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return fail(make_error(errc::invalid_string, start,
                                   "unknown character name #\\" + std::string(name.substr(0, 16))));
        }
        emit([&](Sink& o) { o.add_string(std::string_view(buf, utf8_encode(cp, buf))); });
        pos_ = end;
        return {};
    }

    // ---- strings and symbols ----

    // An escape at p (after the backslash) inside "..." or |...|. R7RS: \a \b \t \n \r \"
    // backslash, \| \xHH; and line continuations; also Guile's and Racket's \xHH (two digits, no
    // ';'), \uHHHH and \UHHHHHH, which Guile's writer produces.
    result<std::size_t> escape(std::size_t p, char*& w) {
        std::size_t bs = p - 1;
        if (p >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, p, "unterminated escape"));
        }
        char e = in_[p];
        switch (e) {
            case 'a':
                *w++ = '\a';
                return p + 1;
            case 'b':
                *w++ = '\b';
                return p + 1;
            case 't':
                *w++ = '\t';
                return p + 1;
            case 'n':
                *w++ = '\n';
                return p + 1;
            case 'r':
                *w++ = '\r';
                return p + 1;
            case 'f':
                *w++ = '\f';
                return p + 1;
            case 'v':
                *w++ = '\v';
                return p + 1;
            case '0':
                *w++ = '\0';
                return p + 1;
            case '"':
                *w++ = '"';
                return p + 1;
            case '\\':
                *w++ = '\\';
                return p + 1;
            case '|':
                *w++ = '|';
                return p + 1;
            case 'x':
            case 'X':
            case 'u':
            case 'U': {
                std::size_t q = p + 1;
                std::uint32_t cp = 0;
                std::size_t n = 0;
                while (q < in_.size() && hex_value(in_[q]) >= 0 && n < 8) {
                    cp = cp * 16 + static_cast<std::uint32_t>(hex_value(in_[q]));
                    ++q;
                    ++n;
                }
                if ((e == 'x' || e == 'X') && q < in_.size() && in_[q] == ';' && n > 0) {
                    ++q;  // R7RS \x41;
                } else {
                    std::size_t want = e == 'u' ? 4 : e == 'U' ? 6 : 2;
                    if (n < want) {
                        return fail(make_error(
                            errc::invalid_string, bs,
                            "expected hex digits in the \\" + std::string(1, e) + " escape"));
                    }
                    // Guile style: a fixed number of digits.
                    q = p + 1 + want;
                    cp = 0;
                    for (std::size_t i = p + 1; i < q; ++i) {
                        cp = cp * 16 + static_cast<std::uint32_t>(hex_value(in_[i]));
                    }
                }
                if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                    return fail(make_error(errc::invalid_string, bs,
                                           "escape is not a Unicode scalar value"));
                }
                w += utf8_encode(cp, w);
                return q;
            }
            default: {
                // \ <intraline whitespace>* <line ending> <intraline whitespace>*
                std::size_t q = p;
                while (q < in_.size() && (in_[q] == ' ' || in_[q] == '\t')) {
                    ++q;
                }
                if (q < in_.size() && (in_[q] == '\n' || in_[q] == '\r')) {
                    q += (in_[q] == '\r' && peek(q + 1) == '\n') ? 2 : 1;
                    while (q < in_.size() && (in_[q] == ' ' || in_[q] == '\t')) {
                        ++q;
                    }
                    return q;
                }
                return fail(
                    make_error(errc::invalid_string, bs, "invalid escape \\" + describe_at(p)));
            }
        }
    }

    // "..." (quote '"') or |...| (quote '|'), both unescaped into a string.
    step parse_quoted(char quote) {
        std::size_t start = pos_ + 1;
        // To the closing quote or the first escape, 16 bytes a step (control bytes are part of
        // a string: the scan steps over them).
        const char* e = in_.data() + in_.size();
        const char* q = in_.data() + start;
        for (;;) {
            q = scan_to_special(q, e, quote, '\\');
            if (q == e || *q == quote || *q == '\\') {
                break;
            }
            ++q;
        }
        std::size_t p = static_cast<std::size_t>(q - in_.data());
        if (p < in_.size() && in_[p] == quote) {
            std::string_view s = in_.substr(start, p - start);
            std::size_t valid = utf8_valid_prefix(s);
            if (valid != s.size()) {
                return fail(
                    make_error(errc::invalid_utf8, start + valid, "invalid UTF-8 in string"));
            }
            emit([&](Sink& o) { o.add_string(s); });
            pos_ = p + 1;
            return {};
        }
        // Escapes never produce more bytes than they take.
        char* out = discard_ == 0 ? b_.begin_string(in_.size() - start) : nullptr;
        scratch_.resize(discard_ == 0 ? 0 : in_.size() - start);
        if (out == nullptr) {
            out = scratch_.data();
        }
        char* w = out;
        p = start;
        auto close = [&] {
            if (discard_ == 0) {
                b_.end_string(w);
            }
        };
        for (;;) {
            if (p >= in_.size()) {
                close();
                pos_ = p;
                return fail(
                    make_error(errc::unexpected_eof, p,
                               quote == '"' ? "unterminated string" : "unterminated |symbol|"));
            }
            char c = in_[p];
            if (c == quote) {
                break;
            }
            if (c != '\\') {
                *w++ = c;
                ++p;
                continue;
            }
            auto r = escape(p + 1, w);
            if (!r) {
                close();
                return fail(r.error());
            }
            p = *r;
        }
        std::string_view written(out, static_cast<std::size_t>(w - out));
        std::size_t valid = utf8_valid_prefix(written);
        if (valid != written.size()) {
            close();
            std::size_t src_valid = utf8_valid_prefix(in_.substr(start, p - start));
            return fail(
                make_error(errc::invalid_utf8, start + src_valid, "invalid UTF-8 in string"));
        }
        close();
        pos_ = p + 1;
        return {};
    }
    step parse_string() { return parse_quoted('"'); }
    step parse_bar_symbol() { return parse_quoted('|'); }

    // Guile's #{symbol with spaces}# (what Guile writes for symbols R7RS would put in |...|).
    step parse_brace_symbol() {
        std::size_t start = pos_ + 2;
        std::size_t end = in_.find("}#", start);
        if (end == std::string_view::npos) {
            return fail(make_error(errc::unexpected_eof, in_.size(), "unterminated #{symbol}#"));
        }
        std::string_view s = in_.substr(start, end - start);
        if (s.find('\\') != std::string_view::npos) {
            // Rare; keep it simple: escapes inside #{...}# are not supported.
            return fail(make_error(errc::invalid_string, start,
                                   "escapes inside #{...}# symbols are not supported"));
        }
        std::size_t valid = utf8_valid_prefix(s);
        if (valid != s.size()) {
            return fail(make_error(errc::invalid_utf8, start + valid, "invalid UTF-8 in symbol"));
        }
        emit([&](Sink& o) { o.add_string(s); });
        pos_ = end + 2;
        return {};
    }

    // A plain decimal integer (up to 18 digits, no leading zero) that is the whole token at
    // pos_, its digits read as the token is scanned: emitted, true; false (nothing read) for
    // any other text there.
    [[gnu::always_inline]] bool integer_token() {
        const char* e = in_.data() + in_.size();
        std::int64_t v = 0;
        const char* q = small_integer(in_.data() + pos_, e, true, v);
        if (q == nullptr ||
            (q != e && sexpr_bytes.has(static_cast<unsigned char>(*q), token_byte))) {
            return false;
        }
        emit([&](Sink& o) {
            if constexpr (std::is_same_v<Sink, tape_sink>) {
                o.hot_int(v);  // inline: numeric arrays are mostly these
            } else {
                o.add_int(v);
            }
        });
        pos_ = static_cast<std::size_t>(q - in_.data());
        return true;
    }

    // A list's next datum: an integer token without parse_datum (and its result), where the
    // depth limit lets parse_datum take it; else parse_datum.
    [[gnu::always_inline]] step next_datum() {
        if (depth_ < b_.limits().max_depth && integer_token()) {
            return {};
        }
        return parse_datum();
    }

    // A token up to the next delimiter: a number if it reads as one, else a symbol (decoded
    // to a string).
    step parse_token() {
        std::size_t start = pos_;
        const char* e = in_.data() + in_.size();
        const char* first = in_.data() + start;
        const char c = *first;
        const bool number_lead = is_dec(c) || c == '-' || c == '+';
        if (number_lead && integer_token()) {
            return {};
        }
        // The token's end, and the union of its bytes' classes.
        const char* tok_end = first;
        std::uint8_t classes = 0;
        while (tok_end < e) {
            const std::uint8_t b = sexpr_bytes[static_cast<unsigned char>(*tok_end)];
            if ((b & token_byte) == 0) {
                break;
            }
            classes |= b;
            ++tok_end;
        }
        const auto end = static_cast<std::size_t>(tok_end - in_.data());
        std::string_view tok = in_.substr(start, end - start);
        if (number_lead) {
            // A plain decimal float that is the whole token.
            double d = 0;
            if (c != '+' && small_float(tok.data(), tok_end, d) == tok_end) {
                emit([&](Sink& o) { o.add_double(d); });
                pos_ = end;
                return {};
            }
        }
        bool numeric = is_dec(c) ||
                       ((c == '+' || c == '-' || c == '.') && tok.size() > 1 &&
                        (is_dec(tok[1]) || (tok[1] == '.' && tok.size() > 2 && is_dec(tok[2])))) ||
                       ((c == '+' || c == '-') &&
                        (tok == "+inf.0" || tok == "-inf.0" || tok == "+nan.0" || tok == "-nan.0"));
        if (numeric) {
            return parse_number(tok, start);
        }
        if (c == '.' && tok.size() == 1) {
            return fail(
                make_error(errc::unexpected_char, start, "a dot outside a (key . value) pair"));
        }
        if ((classes & symbol_odd) == 0) {
            // ASCII with none of the refused bytes: the symbol as it is.
            emit([&](Sink& o) { o.add_string(tok); });
            pos_ = end;
            return {};
        }
        std::size_t valid = utf8_valid_prefix(tok);
        if (valid != tok.size()) {
            return fail(make_error(errc::invalid_utf8, start + valid, "invalid UTF-8 in symbol"));
        }
        if (tok.find_first_of("\\'`,") != std::string_view::npos) {
            std::size_t bad = tok.find_first_of("\\'`,");
            return fail(make_error(errc::unexpected_char, start + bad,
                                   "unexpected " + describe_at(start + bad) + " in a symbol"));
        }
        emit([&](Sink& o) { o.add_string(tok); });
        pos_ = end;
        return {};
    }

    // R7RS numbers: prefixes #x #b #o #d (radix) and #e #i (exactness), integers of any size,
    // decimals with an optional exponent, +inf.0 -inf.0 +nan.0.
    step parse_number(std::string_view tok, std::size_t start) {
        int radix = 10;
        char exactness = 0;
        std::string_view t = tok;
        while (t.size() >= 2 && t[0] == '#') {
            char p = static_cast<char>(t[1] | 0x20);
            if (p == 'x') {
                radix = 16;
            } else if (p == 'b') {
                radix = 2;
            } else if (p == 'o') {
                radix = 8;
            } else if (p == 'd') {
                radix = 10;
            } else if (p == 'e' || p == 'i') {
                exactness = p;
            } else {
                break;
            }
            t.remove_prefix(2);
        }
        auto bad = [&](const char* why) {
            pos_ = start;
            return fail(make_error(errc::invalid_number, start,
                                   std::string(why) + " '" + std::string(tok.substr(0, 40)) + "'"));
        };
        if (t.empty()) {
            return bad("expected a number after the prefix in");
        }
        if (t == "+inf.0" || t == "-inf.0" || t == "+nan.0" || t == "-nan.0") {
            if (exactness == 'e') {
                return bad("no exact form of");
            }
            double d = t[1] == 'i' ? HUGE_VAL : std::nan("");
            emit([&](Sink& o) { o.add_double(t[0] == '-' ? -d : d); });
            pos_ = start + tok.size();
            return {};
        }
        bool neg = t[0] == '-';
        std::string_view body = (t[0] == '+' || t[0] == '-') ? t.substr(1) : t;
        if (body.empty()) {
            return bad("not a number:");
        }
        bool all_digits = true;
        for (char ch : body) {
            int v = hex_value(ch);
            if (v < 0 || v >= radix) {
                all_digits = false;
                break;
            }
        }
        if (all_digits) {
            if (exactness == 'i') {
                double d = 0;
                for (char ch : body) {
                    d = d * radix + hex_value(ch);
                }
                emit([&](Sink& o) { o.add_double(neg ? -d : d); });
                pos_ = start + tok.size();
                return {};
            }
            return emit_integer(body, radix, neg, start, tok.size());
        }
        if (radix != 10) {
            return bad("not a number:");
        }
        if (body.find('/') != std::string_view::npos) {
            return bad("rational numbers are not supported:");
        }
        // Decimal: digits [. digits] [e [sign] digits], at least one digit before the exponent.
        std::size_t i = 0;
        std::size_t mant = 0;
        while (i < body.size() && is_dec(body[i])) {
            ++i;
            ++mant;
        }
        if (i < body.size() && body[i] == '.') {
            ++i;
            while (i < body.size() && is_dec(body[i])) {
                ++i;
                ++mant;
            }
        }
        if (mant == 0) {
            return bad("not a number:");
        }
        if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
            ++i;
            if (i < body.size() && (body[i] == '+' || body[i] == '-')) {
                ++i;
            }
            std::size_t ed = 0;
            while (i < body.size() && is_dec(body[i])) {
                ++i;
                ++ed;
            }
            if (ed == 0) {
                return bad("expected exponent digits in");
            }
        }
        if (i != body.size()) {
            return bad("not a number:");
        }
        scratch_.assign(body);
        if (scratch_.front() == '.') {
            scratch_.insert(scratch_.begin(), '0');
        }
        double d = 0;
        if (read_double_saturating(scratch_, d).ec != std::errc()) {
            return bad("not a number:");
        }
        if (neg) {
            d = -d;
        }
        if (exactness == 'e') {
            if (d != std::floor(d) || std::fabs(d) >= 9.2e18) {
                return bad("exact non-integers are not supported:");
            }
            emit([&](Sink& o) { o.add_int(static_cast<std::int64_t>(d)); });
        } else {
            emit([&](Sink& o) { o.add_double(d); });
        }
        pos_ = start + tok.size();
        return {};
    }

    step emit_integer(std::string_view digits, int radix, bool neg, std::size_t start,
                              std::size_t len) {
        const radix_value rv = read_radix(digits, static_cast<unsigned>(radix));
        pos_ = start + len;
        if (fits_64(rv, neg)) {
            emit([&](Sink& o) { add_radix_value(o, rv, neg); });
            return {};
        }
        if (!radix_to_decimal(digits, static_cast<unsigned>(radix), rv, scratch_)) {
            return fail(
                make_error(errc::invalid_number, start, "integer literal longer than 4096 digits"));
        }
        if (neg) {
            scratch_.insert(scratch_.begin(), '-');
        }
        emit([&](Sink& o) { o.add_bignum(scratch_); });
        return {};
    }

    std::uint32_t depth_ = 0;
    std::size_t key_depth_ = SIZE_MAX;  // builder depth while a map key is read
    std::size_t key_at_ = 0;
    std::uint32_t discard_ = 0;
    // A per-thread buffer, reused so that steady-state decoding allocates nothing.
    static std::string& thread_scratch() {
        thread_local std::string s;
        s.clear();
        return s;
    }
    std::string& scratch_ = thread_scratch();
};

// One pass straight into the tape (detail::tape_sink), the builder for whatever that run does
// not finish (detail/text_reader.hpp).
result<void> decode_sexpr(std::string_view in, builder& b, const decode_options&) {
    return decode_text_fast<sexpr_reader>(in, b);
}

// ---- writer ----

// A string in the escapes R7RS, Guile and Racket all read: \" \\ \a \b \t \n \r. Other
// control characters are written as themselves (legal inside a string everywhere), since
// R7RS's \x1f; is misread by Guile's and Racket's default readers. Plain runs are found 16
// bytes a step.
void write_string(output_buffer& out, std::string_view s) {
    const char* e = s.data() + s.size();
    // The next byte to look at (a quote, the backslash, a control byte) at or after p, or e.
    auto next = [&](const char* p) {
        return scan_to_special4(p, e, '"', '\\', '"', '"', sexpr_bytes, escaped);
    };
    const char* p = next(s.data());
    if (p == e) {
        append_wrapped(out, '"', s, '"');  // nothing to escape: one copy
        return;
    }
    out.push_back('"');
    const char* run = s.data();
    for (; p != e; p = next(p + 1)) {
        const char* esc = *p == '\a' ? "\\a" : *p == '\b' ? "\\b" : short_escape(*p);
        if (esc == nullptr) {
            continue;  // another control byte: written as it is
        }
        out.append(run, static_cast<std::size_t>(p - run));
        out.append(esc, 2);
        run = p + 1;
    }
    out.append(run, static_cast<std::size_t>(e - run));
    out.push_back('"');
}

// A key written as a symbol: an R7RS identifier of ASCII letters, digits and
// ! $ % & * / < = > ? ^ _ ~ + - . @ that starts with a letter or one of ! $ % & * / < = > ? ^ _ ~.
bool plain_identifier(std::string_view s) {
    if (s.empty() || s.size() > 256 ||
        !sexpr_bytes.has(static_cast<unsigned char>(s[0]), ident_initial)) {
        return false;
    }
    for (char c : s) {
        if (!sexpr_bytes.has(static_cast<unsigned char>(c), ident_later)) {
            return false;
        }
    }
    return true;
}

constexpr scalar_spelling sexpr_spelling{"#nil", "#f", "#t", "+nan.0", "+inf.0", "-inf.0"};

// The hooks of detail::walk_text. Compact: one space between elements. Pretty: one element per
// line, two spaces per level, the closing parenthesis on its own line. A map is an association
// list of (key . value) pairs.
class sexpr_writer : public text_hooks {
public:
    using text_hooks::text_hooks;

    const scalar_spelling& spelling() const { return sexpr_spelling; }
    bool leaf(value v) {
        if (v.kind() != kind::bytes) {
            write_string(out_, v.get_string());
            return true;
        }
        out_.append("#u8(");
        std::string_view b = v.get_string();
        for (std::size_t i = 0; i < b.size(); ++i) {
            if (i != 0) {
                put(' ');
            }
            write_uint(out_, static_cast<unsigned char>(b[i]));
        }
        put(')');
        return true;
    }
    int tagged(value& v, int) { return drop_tag(v, "sexpr"); }
    char item_sep() const { return opt_.pretty ? 0 : ' '; }
    void open_array(int) { out_.append("#("); }
    void array_item(bool first, int depth) { separate(first, depth, ' '); }
    void close_array(bool empty, int depth) { close(empty, depth); }
    void open_map(int) { put('('); }
    // Each pair's ')' is written before the next pair's separator and before the map's ')'.
    bool map_key(value k, bool first, int depth) {
        if (!first) {
            put(')');
        }
        separate(first, depth, ' ');
        put('(');
        if (k.kind() == kind::string && plain_identifier(k.get_string())) {
            out_.append(k.get_string());
        } else if (!walk_text(*this, out_, k, 0)) {
            // Any other scalar is its own datum; a tagged key follows the value rules.
            return false;
        }
        out_.append(" . ");
        return true;
    }
    void close_map(bool empty, int depth) {
        if (!empty) {
            put(')');
        }
        close(empty, depth);
    }

private:
    void close(bool empty, int depth) {
        if (!empty) {
            newline(depth);
        }
        put(')');
    }
};

result<void> encode_sexpr(const document& doc, output_buffer& out, const encode_options& opt) {
    return encode_text<sexpr_writer>(doc, out, opt);
}

}  // namespace

const codec_functions sexpr_codec{decode_sexpr, encode_sexpr};

}  // namespace polycodec::detail
