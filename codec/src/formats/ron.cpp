// RON, Rusty Object Notation (the ron-rs grammar, docs/formats/ron.md). Our own reader into the
// serde data model of DESIGN section 2, and the writer in ron-rs's own style.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "detail/lossy.hpp"
#include "detail/text.hpp"
#include "detail/text_reader.hpp"
#include "detail/text_writer.hpp"
#include "detail/scalar_writer.hpp"
#include "detail/number.hpp"
#include "detail/thread_scratch.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/step.hpp"
#include "detail/try.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

constexpr bool is_ident_start(unsigned char c) noexcept {
    // XID_Start is approximated by: ASCII letters, '_' and every non-ASCII character.
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
constexpr bool is_ident_char(unsigned char c) noexcept {
    return is_ident_start(c) || (c >= '0' && c <= '9');
}
constexpr bool is_dec(char c) noexcept { return c >= '0' && c <= '9'; }
using text::hex_value;  // detail/text.hpp

// ---- reader ----

// Bit 1: a byte that may start whitespace or a comment (the ASCII spaces, U+000B, U+000C, the
// lead bytes of U+0085 and U+200E..U+2029, '/'); bit 2: a byte the writer escapes in a string
// ('"', the backslash, a control byte, DEL).
constexpr std::uint8_t ws_lead = 1;
constexpr std::uint8_t escaped = 2;
constexpr byte_table ron_bytes = make_byte_table([](unsigned char c) -> std::uint8_t {
    const bool ws = c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0x0b || c == 0x0c ||
                    c == 0xc2 || c == 0xe2 || c == '/';
    const bool esc = c < 0x20 || c == '"' || c == '\\' || c == 0x7f;
    return static_cast<std::uint8_t>((ws ? ws_lead : 0) | (esc ? escaped : 0));
});

/// A lexed number literal, emitted separately so that a range can open its map first.
struct number_token {
    std::size_t start = 0;
    std::size_t end = 0;
    bool neg = false;
    bool is_float = false;
    bool special = false;  // inf or NaN
    int base = 10;
    std::size_t digits_start = 0;  // after sign and base prefix
    std::size_t digits_end = 0;    // before the suffix
    char suffix_kind = 0;          // 'i', 'u', 'f' or 0
    int suffix_bits = 0;
};

template <class Sink>
class ron_reader : text_cursor<Sink> {
public:
    ron_reader(std::string_view in, Sink& b) : text_cursor<Sink>(in, b) {}

    step run() {
        POLYCODEC_TRY(skip_ws());
        POLYCODEC_TRY(parse_attributes());
        POLYCODEC_TRY(parse_value());
        POLYCODEC_TRY(skip_ws());
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
        if (!(map ? b_.begin_map() : b_.begin_array())) {
            return container_limit();
        }
        return {};
    }

    // ---- whitespace and comments ----

    // Length of a RON whitespace character at p (0 when there is none): the ASCII ones and
    // U+000B, U+000C, U+0085, U+200E, U+200F, U+2028, U+2029.
    std::size_t ws_len(std::size_t p) const {
        unsigned char c = static_cast<unsigned char>(in_[p]);
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0x0b || c == 0x0c) {
            return 1;
        }
        if (c == 0xc2 && p + 1 < in_.size() && static_cast<unsigned char>(in_[p + 1]) == 0x85) {
            return 2;
        }
        if (c == 0xe2 && p + 2 < in_.size() && static_cast<unsigned char>(in_[p + 1]) == 0x80) {
            unsigned char d = static_cast<unsigned char>(in_[p + 2]);
            if (d == 0x8e || d == 0x8f || d == 0xa8 || d == 0xa9) {
                return 3;
            }
        }
        return 0;
    }

    // Skips whitespace and comments from p; returns the new position, or npos with `err_at`
    // set when a block comment is not closed.
    std::size_t skip_ws_from(std::size_t p, std::size_t* err_at) const {
        while (p < in_.size()) {
            if (std::size_t n = ws_len(p); n != 0) {
                p += n;
                continue;
            }
            if (in_[p] == '/' && peek(p + 1) == '/') {
                p += 2;
                while (p < in_.size() && in_[p] != '\n') {
                    ++p;
                }
                continue;
            }
            if (in_[p] == '/' && peek(p + 1) == '*') {
                // Block comments nest: /* a /* b */ c */.
                std::size_t open = p;
                std::size_t level = 1;
                p += 2;
                while (level != 0) {
                    if (p + 1 >= in_.size()) {
                        if (err_at != nullptr) {
                            *err_at = open;
                        }
                        return std::string_view::npos;
                    }
                    if (in_[p] == '/' && in_[p + 1] == '*') {
                        ++level;
                        p += 2;
                    } else if (in_[p] == '*' && in_[p + 1] == '/') {
                        --level;
                        p += 2;
                    } else {
                        ++p;
                    }
                }
                continue;
            }
            break;
        }
        return p;
    }
    [[gnu::always_inline]] step skip_ws() {
        if (pos_ < in_.size() && !ron_bytes.has(static_cast<unsigned char>(in_[pos_]), ws_lead)) {
            return {};  // the common case: no whitespace or comment here
        }
        return skip_ws_here();
    }
    [[gnu::noinline]] step skip_ws_here() {
        std::size_t err_at = 0;
        std::size_t p = skip_ws_from(pos_, &err_at);
        if (p == std::string_view::npos) {
            pos_ = in_.size();
            return fail(make_error(
                errc::unexpected_eof, in_.size(),
                "unterminated block comment (opened at byte " + std::to_string(err_at) + ")"));
        }
        pos_ = p;
        return {};
    }

    // ---- attributes: #![enable(...)], #![type = "..."], #![schema = "..."] ----

    step expect_char(char c, const char* what) {
        POLYCODEC_TRY(skip_ws());
        if (peek(pos_) != c || pos_ >= in_.size()) {
            return fail(unexpected(what));
        }
        ++pos_;
        return skip_ws();
    }

    step parse_attributes() {
        while (pos_ < in_.size() && in_[pos_] == '#') {
            ++pos_;
            POLYCODEC_TRY(expect_char('!', "'!' after '#'"));
            POLYCODEC_TRY(expect_char('[', "'[' after '#!'"));
            std::size_t name_at = pos_;
            std::string_view name = read_std_ident();
            if (name == "enable") {
                POLYCODEC_TRY(expect_char('(', "'(' after 'enable'"));
                for (;;) {
                    if (pos_ < in_.size() && in_[pos_] == ')') {
                        break;
                    }
                    std::size_t ext_at = pos_;
                    std::string_view ext = read_std_ident();
                    if (ext.empty()) {
                        return fail(unexpected("an extension name"));
                    }
                    // Without a schema every value is taken as written, so the extensions
                    // change nothing here (docs/formats/ron.md); unknown names are errors as
                    // in ron-rs.
                    if (ext != "implicit_some" && ext != "unwrap_newtypes" &&
                        ext != "unwrap_variant_newtypes" && ext != "explicit_struct_names") {
                        return fail(make_error(errc::unexpected_char, ext_at,
                                               "unknown extension '" + std::string(ext) + "'"));
                    }
                    POLYCODEC_TRY(skip_ws());
                    if (pos_ < in_.size() && in_[pos_] == ',') {
                        ++pos_;
                        POLYCODEC_TRY(skip_ws());
                        continue;
                    }
                    if (pos_ < in_.size() && in_[pos_] == ')') {
                        break;
                    }
                    return fail(unexpected("',' or ')' in the extension list"));
                }
                ++pos_;
            } else if (name == "type" || name == "schema") {
                POLYCODEC_TRY(expect_char('=', "'=' in the attribute"));
                if (pos_ >= in_.size() || in_[pos_] != '"') {
                    return fail(unexpected("a string"));
                }
                // Parsed for its syntax only.
                POLYCODEC_TRY(skip_string_literal());
            } else {
                return fail(make_error(errc::unexpected_char, name_at,
                                       name.empty()
                                           ? "expected an attribute, saw " + describe_at(name_at)
                                           : "unknown attribute '" + std::string(name) + "'"));
            }
            POLYCODEC_TRY(expect_char(']', "']' closing the attribute"));
        }
        return {};
    }

    // A plain "..." string whose content is not needed (attribute values).
    step skip_string_literal() {
        std::size_t p = pos_ + 1;
        while (p < in_.size() && in_[p] != '"') {
            p += in_[p] == '\\' ? 2 : 1;
        }
        if (p >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, in_.size(), "unterminated string"));
        }
        pos_ = p + 1;
        return {};
    }

    // ---- identifiers ----

    std::string_view read_std_ident() {
        std::size_t s = pos_;
        if (pos_ < in_.size() && is_ident_start(static_cast<unsigned char>(in_[pos_]))) {
            ++pos_;
            while (pos_ < in_.size() && is_ident_char(static_cast<unsigned char>(in_[pos_]))) {
                ++pos_;
            }
        }
        return in_.substr(s, pos_ - s);
    }
    // r#name: raw identifiers may also hold '.', '+' and '-'.
    bool at_raw_ident(std::size_t p) const {
        return peek(p) == 'r' && peek(p + 1) == '#' && p + 2 < in_.size() &&
               (is_ident_char(static_cast<unsigned char>(in_[p + 2])) || in_[p + 2] == '.' ||
                in_[p + 2] == '+' || in_[p + 2] == '-');
    }
    // An identifier (std or raw) at p: its end, or p when there is none. `name` gets the text.
    std::size_t ident_end(std::size_t p, std::string_view* name) const {
        if (at_raw_ident(p)) {
            std::size_t q = p + 2;
            while (q < in_.size() && (is_ident_char(static_cast<unsigned char>(in_[q])) ||
                                      in_[q] == '.' || in_[q] == '+' || in_[q] == '-')) {
                ++q;
            }
            if (name != nullptr) {
                *name = in_.substr(p + 2, q - p - 2);
            }
            return q;
        }
        std::size_t q = p;
        if (q < in_.size() && is_ident_start(static_cast<unsigned char>(in_[q])) &&
            ws_len(q) == 0) {
            ++q;
            while (q < in_.size() && is_ident_char(static_cast<unsigned char>(in_[q])) &&
                   (static_cast<unsigned char>(in_[q]) < 0x80 || ws_len(q) == 0)) {
                ++q;
            }
        }
        if (name != nullptr) {
            *name = in_.substr(p, q - p);
        }
        return q;
    }
    // Identifiers become strings: they must be valid UTF-8.
    step check_ident_utf8(std::string_view name) const {
        std::size_t valid = utf8_valid_prefix(name);
        if (valid != name.size()) {
            return fail(make_error(errc::invalid_utf8,
                                   static_cast<std::size_t>(name.data() - in_.data()) + valid,
                                   "invalid UTF-8 in an identifier"));
        }
        return {};
    }
    // A string, byte string or byte literal starts at p (b"", b'', br"", r"", r#"").
    bool at_string_prefix(std::size_t p) const {
        char c = peek(p);
        char d = peek(p + 1);
        if (c == 'b') {
            return d == '"' || d == '\'' ||
                   (d == 'r' && (peek(p + 2) == '"' || peek(p + 2) == '#'));
        }
        return c == 'r' && (d == '"' || (d == '#' && !at_raw_ident(p)));
    }
    // A named field starts at p: an identifier, then ':'.
    bool at_field(std::size_t p) const {
        if (p >= in_.size() || at_string_prefix(p)) {
            return false;
        }
        std::size_t q = ident_end(p, nullptr);
        if (q == p) {
            return false;
        }
        q = skip_ws_from(q, nullptr);
        return q != std::string_view::npos && q < in_.size() && in_[q] == ':';
    }

    // ---- values ----

    step parse_value() {
        if (++depth_ > b_.limits().max_depth) {
            return fail(make_error(errc::depth_exceeded, pos_,
                                   "nesting deeper than " + std::to_string(b_.limits().max_depth)));
        }
        auto r = parse_value_inner();
        --depth_;
        return r;
    }

    step parse_value_inner() {
        if (pos_ >= in_.size()) {
            return fail(unexpected("a value"));
        }
        char c = in_[pos_];
        switch (c) {
            case '[':
                return parse_list();
            case '{':
                return parse_map();
            case '(':
                return parse_paren();
            case '"':
                return parse_string(pos_ + 1, false);
            case '\'':
                return parse_char();
            default:
                break;
        }
        if (is_dec(c) || c == '+' || c == '-' || c == '.') {
            return parse_number_or_range();
        }
        if (c == 'b' && peek(pos_ + 1) == '"') {
            return parse_string(pos_ + 2, true);
        }
        if (c == 'b' && peek(pos_ + 1) == '\'') {
            return parse_byte_char();
        }
        if (c == 'b' && peek(pos_ + 1) == 'r' && (peek(pos_ + 2) == '"' || peek(pos_ + 2) == '#')) {
            return parse_raw_string(pos_ + 2, true);
        }
        if (c == 'r' && (peek(pos_ + 1) == '"' || (peek(pos_ + 1) == '#' && !at_raw_ident(pos_)))) {
            return parse_raw_string(pos_ + 1, false);
        }
        if (is_ident_start(static_cast<unsigned char>(c))) {
            return parse_ident_value();
        }
        return fail(unexpected("a value"));
    }

    // Separator logic shared by lists, maps, tuples and structs: after an element, either
    // ',' (then the closer may follow) or the closer. Returns true when the closer was eaten.
    result<bool> after_element(char closer, const char* what) {
        POLYCODEC_TRY(skip_ws());
        if (pos_ < in_.size() && in_[pos_] == ',') {
            ++pos_;
            POLYCODEC_TRY(skip_ws());
            if (pos_ < in_.size() && in_[pos_] == closer) {
                ++pos_;
                return true;
            }
            return false;
        }
        if (pos_ < in_.size() && in_[pos_] == closer) {
            ++pos_;
            return true;
        }
        return fail(unexpected(what));
    }

    // Elements until `closer`; the opener is already consumed and whitespace skipped.
    step parse_elements(char closer, const char* what) {
        if (pos_ < in_.size() && in_[pos_] == closer) {
            ++pos_;
            return {};
        }
        for (;;) {
            POLYCODEC_TRY_ASSIGN(done, value_then(closer, what));
            if (done) {
                return {};
            }
        }
    }

    // A value, then its separator or `closer` (after_element).
    result<bool> value_then(char closer, const char* what) {
        POLYCODEC_TRY(parse_value());
        return after_element(closer, what);
    }

    // The one value of a group: the value, then ')' (a trailing ',' allowed).
    step last_value(const char* what, const char* closer_what) {
        POLYCODEC_TRY_ASSIGN(done, value_then(')', what));
        if (!done) {
            return fail(unexpected(closer_what));
        }
        return {};
    }

    // After a map key or a field name: ':', the value, its separator or `closer`.
    result<bool> entry_value(const char* colon, char closer, const char* what) {
        POLYCODEC_TRY(skip_ws());
        if (pos_ >= in_.size() || in_[pos_] != ':') {
            return fail(unexpected(colon));
        }
        ++pos_;
        POLYCODEC_TRY(skip_ws());
        return value_then(closer, what);
    }

    step parse_list() {
        POLYCODEC_TRY(open_container(false));
        ++pos_;
        POLYCODEC_TRY(skip_ws());
        POLYCODEC_TRY(parse_elements(']', "',' or ']'"));
        b_.end_array();
        return {};
    }

    step parse_map() {
        POLYCODEC_TRY(open_container(true));
        ++pos_;
        POLYCODEC_TRY(skip_ws());
        if (pos_ < in_.size() && in_[pos_] == '}') {
            ++pos_;
            b_.end_map();
            return {};
        }
        for (;;) {
            key_at_ = pos_;
            key_depth_ = b_.depth();
            auto key = parse_value();
            key_depth_ = SIZE_MAX;
            if (!key) {
                return key;
            }
            POLYCODEC_TRY_ASSIGN(done, entry_value("':' after a map key", '}', "',' or '}'"));
            if (done) {
                break;
            }
        }
        b_.end_map();
        return {};
    }

    // Named fields `name: value, ...` up to ')': a struct is a map of its fields.
    step parse_fields() {
        POLYCODEC_TRY(open_container(true));
        for (;;) {
            std::string_view name;
            std::size_t q = ident_end(pos_, &name);
            if (q == pos_) {
                return fail(unexpected("a field name"));
            }
            POLYCODEC_TRY(check_ident_utf8(name));
            b_.add_string(name);
            pos_ = q;
            POLYCODEC_TRY_ASSIGN(done, entry_value("':' after a field name", ')', "',' or ')'"));
            if (done) {
                break;
            }
        }
        b_.end_map();
        return {};
    }

    // `(` starts unit `()` (null), an anonymous struct `(a: 1)` (a map) or a tuple `(1, 2)`
    // (an array).
    step parse_paren() {
        ++pos_;
        POLYCODEC_TRY(skip_ws());
        if (pos_ < in_.size() && in_[pos_] == ')') {
            ++pos_;
            b_.add_null();
            return {};
        }
        if (at_field(pos_)) {
            return parse_fields();
        }
        POLYCODEC_TRY(open_container(false));
        POLYCODEC_TRY(parse_elements(')', "',' or ')'"));
        b_.end_array();
        return {};
    }

    // ---- newtype or tuple variant: a lexical look-ahead ----
    //
    // `V(x)` is {V: x} and `V(x, y)` is {V: [x, y]}, and the tape needs to know which before
    // x is written. So the group is scanned lexically (brackets balanced, strings, chars and
    // comments stepped over) for its first top-level comma. One scan records the answer for
    // every '(' group inside it, so nested variants A(B(C(...))) cost one pass, not one per
    // level.

    struct paren_group {
        std::size_t open;         // offset of '('
        std::size_t first_comma;  // its first top-level ',' or npos
    };

    // Offset of the first top-level comma of the '(' group opening at `open`, npos when there
    // is none (or the group is not closed: the parser then reports the error).
    std::size_t first_comma_of(std::size_t open) {
        constexpr std::size_t npos = std::string_view::npos;
        for (int pass = 0; pass < 2; ++pass) {
            while (groups_next_ < groups_.size() && groups_[groups_next_].open < open) {
                ++groups_next_;
            }
            if (groups_next_ < groups_.size() && groups_[groups_next_].open == open) {
                return groups_[groups_next_].first_comma;
            }
            if (open < scanned_to_ || pass == 1) {
                // Inside a scanned stretch and never closed: the input ends first.
                return npos;
            }
            groups_.clear();
            groups_next_ = 0;
            scan_groups(open);
        }
        return npos;
    }

    // Scans the group opening at `open` up to its closer; appends every '(' group closed on
    // the way to groups_, sorted by offset.
    void scan_groups(std::size_t open) {
        constexpr std::size_t npos = std::string_view::npos;
        std::size_t first = groups_.size();
        stack_.clear();
        std::size_t p = open;
        while (p < in_.size()) {
            char c = in_[p];
            if (c == '/' && (peek(p + 1) == '/' || peek(p + 1) == '*')) {
                p = skip_ws_from(p, nullptr);
                if (p == npos) {
                    break;
                }
                continue;
            }
            if (c == '"') {
                ++p;
                while (p < in_.size() && in_[p] != '"') {
                    p += in_[p] == '\\' ? 2 : 1;
                }
                ++p;
                continue;
            }
            if ((c == 'r' || c == 'b') &&
                (p == 0 || !is_ident_char(static_cast<unsigned char>(in_[p - 1]))) &&
                at_string_prefix(p)) {
                if (c == 'b' && in_[p + 1] != 'r') {
                    ++p;  // b"..." and b'...' continue as a string or char
                    continue;
                }
                std::size_t hashes = 0;
                std::size_t q = p + (c == 'b' ? 2 : 1);
                while (q < in_.size() && in_[q] == '#') {
                    ++hashes;
                    ++q;
                }
                ++q;  // the quote
                for (;;) {
                    if (q >= in_.size()) {
                        p = q;
                        break;
                    }
                    if (in_[q] == '"' && q + 1 + hashes <= in_.size() &&
                        in_.substr(q + 1, hashes).find_first_not_of('#') == npos) {
                        p = q + 1 + hashes;
                        break;
                    }
                    ++q;
                }
                continue;
            }
            if (c == '\'' && (p == 0 || !is_ident_char(static_cast<unsigned char>(in_[p - 1])) ||
                              in_[p - 1] == 'b')) {
                // A char or byte literal: at most a short escape.
                std::size_t q = p + 1;
                while (q < in_.size() && in_[q] != '\'' && q < p + 16) {
                    q += in_[q] == '\\' ? 2 : 1;
                }
                p = q + 1;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                // Only '(' groups are recorded; the others just shield their commas.
                stack_.push_back({c == '(' ? p : npos - 1, npos});
            } else if (c == ')' || c == ']' || c == '}') {
                if (stack_.empty()) {
                    break;
                }
                paren_group g = stack_.back();
                stack_.pop_back();
                if (g.open != npos - 1) {
                    groups_.push_back(g);
                }
                if (stack_.empty()) {
                    break;
                }
            } else if (c == ',' && !stack_.empty() && stack_.back().first_comma == npos) {
                stack_.back().first_comma = p;
            }
            ++p;
        }
        scanned_to_ = p;
        std::sort(groups_.begin() + static_cast<std::ptrdiff_t>(first), groups_.end(),
                  [](const paren_group& x, const paren_group& y) { return x.open < y.open; });
    }

    step parse_ident_value() {
        std::size_t start = pos_;
        std::string_view name;
        std::size_t q = ident_end(pos_, &name);
        bool raw = at_raw_ident(pos_);
        if (q == pos_) {
            return fail(unexpected("a value"));
        }
        POLYCODEC_TRY(check_ident_utf8(name));
        pos_ = q;
        if (!raw) {
            if (name == "true" || name == "false") {
                b_.add_bool(name == "true");
                return {};
            }
            if (name == "None") {
                b_.add_null();
                return {};
            }
            if (name == "inf" || name == "NaN") {
                pos_ = start;
                return parse_number_or_range();
            }
        }
        std::size_t after = skip_ws_from(pos_, nullptr);
        if (after == std::string_view::npos || peek(after) != '(' || after >= in_.size()) {
            // A unit variant (or unit struct) is the string of its name.
            b_.add_string(name);
            return {};
        }
        pos_ = after + 1;
        POLYCODEC_TRY(skip_ws());
        if (!raw && name == "Some") {
            // Some(x) is x.
            if (pos_ < in_.size() && in_[pos_] == ')') {
                return fail(unexpected("a value inside Some(...)"));
            }
            return last_value("')' closing Some(...)", "')' closing Some(...)");
        }
        if (pos_ < in_.size() && in_[pos_] == ')') {
            // Name(): a named struct without fields.
            ++pos_;
            POLYCODEC_TRY(open_container(true));
            b_.end_map();
            return {};
        }
        if (at_field(pos_)) {
            // Name(a: 1): a named struct is the map of its fields; the name is dropped.
            return parse_fields();
        }
        // Name(x) is the newtype variant {Name: x}; Name(x, y) the tuple variant {Name: [x, y]}.
        bool tuple = false;
        std::size_t e = first_comma_of(after);
        if (e != std::string_view::npos) {
            std::size_t f = skip_ws_from(e + 1, nullptr);
            tuple = f != std::string_view::npos && f < in_.size() && in_[f] != ')';
        }
        POLYCODEC_TRY(open_container(true));
        b_.add_string(name);
        if (tuple) {
            POLYCODEC_TRY(open_container(false));
            POLYCODEC_TRY(parse_elements(')', "',' or ')'"));
            b_.end_array();
        } else {
            POLYCODEC_TRY(last_value("',' or ')'", "')'"));
        }
        b_.end_map();
        return {};
    }

    // ---- strings, chars, bytes ----

    // One escape at p (just after the backslash) into w; `bytes` allows \x80..\xff. Returns
    // the position after the escape or an error.
    result<std::size_t> escape(std::size_t p, char*& w, bool bytes) {
        std::size_t bs = p - 1;
        if (p >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, p, "unterminated escape"));
        }
        char e = in_[p];
        switch (e) {
            case '\'':
                *w++ = '\'';
                return p + 1;
            case '"':
                *w++ = '"';
                return p + 1;
            case '\\':
                *w++ = '\\';
                return p + 1;
            case 'n':
                *w++ = '\n';
                return p + 1;
            case 'r':
                *w++ = '\r';
                return p + 1;
            case 't':
                *w++ = '\t';
                return p + 1;
            case '0':
                *w++ = '\0';
                return p + 1;
            case 'x': {
                int hi = hex_value(peek(p + 1));
                int lo = hex_value(peek(p + 2));
                if (hi < 0 || lo < 0 || p + 2 >= in_.size()) {
                    return fail(
                        make_error(errc::invalid_string, bs, "expected 2 hex digits after \\x"));
                }
                int v = hi * 16 + lo;
                if (v > 0x7f && !bytes) {
                    return fail(make_error(errc::invalid_string, bs,
                                           "\\x escape above \\x7f in a string (use \\u{...})"));
                }
                *w++ = static_cast<char>(v);
                return p + 3;
            }
            case 'u': {
                // \u{1F600}: one to six hex digits in braces, as in Rust.
                if (peek(p + 1) != '{') {
                    return fail(make_error(errc::invalid_string, bs, "expected '{' after \\u"));
                }
                std::size_t q = p + 2;
                std::uint32_t cp = 0;
                int n = 0;
                while (q < in_.size() && in_[q] != '}') {
                    int h = hex_value(in_[q]);
                    if (h < 0 || n == 6) {
                        return fail(make_error(errc::invalid_string, bs,
                                               "expected 1 to 6 hex digits in \\u{...}"));
                    }
                    cp = cp * 16 + static_cast<std::uint32_t>(h);
                    ++n;
                    ++q;
                }
                if (q >= in_.size()) {
                    return fail(
                        make_error(errc::unexpected_eof, q, "unterminated \\u{...} escape"));
                }
                if (n == 0) {
                    return fail(make_error(errc::invalid_string, bs,
                                           "expected 1 to 6 hex digits in \\u{...}"));
                }
                if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                    return fail(make_error(errc::invalid_string, bs,
                                           "\\u{...} is not a Unicode scalar value"));
                }
                w += utf8_encode(cp, w);
                return q + 1;
            }
            default:
                if (e == '\n' || (e == '\r' && peek(p + 1) == '\n')) {
                    // A backslash at the end of a line skips the line break and the next
                    // line's leading whitespace, as in Rust.
                    std::size_t q = p + (e == '\r' ? 2 : 1);
                    while (q < in_.size() &&
                           (in_[q] == ' ' || in_[q] == '\t' || in_[q] == '\n' || in_[q] == '\r')) {
                        ++q;
                    }
                    return q;
                }
                return fail(
                    make_error(errc::invalid_string, bs, "invalid escape \\" + describe_at(p)));
        }
    }

    step finish_string(char* out, char* w, std::size_t start, std::size_t end, bool bytes) {
        if (!bytes) {
            std::string_view written(out, static_cast<std::size_t>(w - out));
            std::size_t valid = utf8_valid_prefix(written);
            if (valid != written.size()) {
                b_.end_string(w);
                std::size_t src_valid = utf8_valid_prefix(in_.substr(start, end - start));
                return fail(
                    make_error(errc::invalid_utf8, start + src_valid, "invalid UTF-8 in string"));
            }
        }
        b_.end_string(w, bytes ? kind::bytes : kind::string);
        return {};
    }

    // "..." or b"..." with the content starting at `start`.
    step parse_string(std::size_t start, bool bytes) {
        // To the closing quote or the first escape, 16 bytes a step (control bytes are part of
        // a RON string: the scan steps over them).
        const char* e = in_.data() + in_.size();
        const char* q = in_.data() + start;
        for (;;) {
            q = scan_to_special(q, e, '"', '\\');
            if (q == e || *q == '"' || *q == '\\') {
                break;
            }
            ++q;
        }
        std::size_t p = static_cast<std::size_t>(q - in_.data());
        if (p < in_.size() && in_[p] == '"') {
            std::string_view s = in_.substr(start, p - start);
            if (bytes) {
                b_.add_bytes(s);
            } else {
                std::size_t valid = utf8_valid_prefix(s);
                if (valid != s.size()) {
                    return fail(
                        make_error(errc::invalid_utf8, start + valid, "invalid UTF-8 in string"));
                }
                b_.add_string(s);
            }
            pos_ = p + 1;
            return {};
        }
        // Escapes never produce more bytes than they take.
        char* out = b_.begin_string(in_.size() - start);
        char* w = out;
        p = start;
        for (;;) {
            if (p >= in_.size()) {
                b_.end_string(w);
                pos_ = p;
                return fail(make_error(errc::unexpected_eof, p, "unterminated string"));
            }
            char c = in_[p];
            if (c == '"') {
                break;
            }
            if (c != '\\') {
                *w++ = c;
                ++p;
                continue;
            }
            auto r = escape(p + 1, w, bytes);
            if (!r) {
                b_.end_string(w);
                return fail(r.error());
            }
            p = *r;
        }
        POLYCODEC_TRY(finish_string(out, w, start, p, bytes));
        pos_ = p + 1;
        return {};
    }

    // r#"..."# (or br#"..."#): `p` is at the first '#' or the quote.
    step parse_raw_string(std::size_t p, bool bytes) {
        std::size_t opened = pos_;
        std::size_t hashes = 0;
        while (p < in_.size() && in_[p] == '#') {
            ++hashes;
            ++p;
        }
        if (p >= in_.size() || in_[p] != '"') {
            pos_ = p;
            return fail(unexpected("'\"' opening a raw string"));
        }
        std::size_t start = p + 1;
        std::size_t q = start;
        for (;;) {
            q = in_.find('"', q);
            if (q == std::string_view::npos) {
                return fail(make_error(
                    errc::unexpected_eof, in_.size(),
                    "unterminated raw string (opened at byte " + std::to_string(opened) + ")"));
            }
            std::size_t h = 0;
            while (h < hashes && q + 1 + h < in_.size() && in_[q + 1 + h] == '#') {
                ++h;
            }
            if (h == hashes) {
                break;
            }
            ++q;
        }
        std::string_view s = in_.substr(start, q - start);
        if (bytes) {
            b_.add_bytes(s);
        } else {
            std::size_t valid = utf8_valid_prefix(s);
            if (valid != s.size()) {
                return fail(
                    make_error(errc::invalid_utf8, start + valid, "invalid UTF-8 in string"));
            }
            b_.add_string(s);
        }
        pos_ = q + 1 + hashes;
        return {};
    }

    // 'c': a char is the string of that one character.
    step parse_char() {
        std::size_t start = pos_ + 1;
        char buf[8];
        char* w = buf;
        std::size_t p = start;
        if (p >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, p, "unterminated char literal"));
        }
        if (in_[p] == '\\') {
            auto r = escape(p + 1, w, false);
            if (!r) {
                return fail(r.error());
            }
            p = *r;
            if (w == buf) {
                return fail(make_error(errc::invalid_string, start, "empty char literal"));
            }
        } else {
            std::size_t n = utf8_valid_prefix(in_.substr(p, 4));
            unsigned char c = static_cast<unsigned char>(in_[p]);
            std::size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
            if (n < len) {
                return fail(make_error(errc::invalid_utf8, p, "invalid UTF-8 in char literal"));
            }
            if (c == '\'') {
                return fail(make_error(errc::invalid_string, p, "empty char literal"));
            }
            std::memcpy(w, in_.data() + p, len);
            w += len;
            p += len;
        }
        if (p >= in_.size() || in_[p] != '\'') {
            return fail(make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_string, p,
                                   "expected ''' closing a char literal, saw " + describe_at(p)));
        }
        b_.add_string(std::string_view(buf, static_cast<std::size_t>(w - buf)));
        pos_ = p + 1;
        return {};
    }

    // b'a': a byte literal is its integer value.
    step parse_byte_char() {
        std::size_t p = pos_ + 2;
        char buf[8];
        char* w = buf;
        if (p < in_.size() && in_[p] == '\\') {
            auto r = escape(p + 1, w, true);
            if (!r) {
                return fail(r.error());
            }
            p = *r;
        } else if (p < in_.size() && static_cast<unsigned char>(in_[p]) < 0x80 && in_[p] != '\'') {
            *w++ = in_[p++];
        } else {
            return fail(make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_string, p,
                                   "expected one ASCII character in a byte literal"));
        }
        if (w - buf != 1 || p >= in_.size() || in_[p] != '\'') {
            return fail(make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_string, p,
                                   "expected ''' closing a byte literal, saw " + describe_at(p)));
        }
        b_.add_int(static_cast<unsigned char>(buf[0]));
        pos_ = p + 1;
        return {};
    }

    // ---- numbers and ranges ----

    // A byte after which a number is complete: the separators and closers.
    static bool ends_number(char c) noexcept {
        return c == ',' || c == ')' || c == ']' || c == '}' || c == ':';
    }

    bool word_at(std::size_t p, std::string_view w) const {
        return in_.substr(p, w.size()) == w &&
               (p + w.size() >= in_.size() ||
                !is_ident_char(static_cast<unsigned char>(in_[p + w.size()])));
    }

    result<number_token> lex_number() {
        number_token t;
        t.start = pos_;
        std::size_t p = pos_;
        if (peek(p) == '+' || peek(p) == '-') {
            t.neg = in_[p] == '-';
            ++p;
        }
        if (word_at(p, "inf") || word_at(p, "NaN")) {
            t.is_float = true;
            t.special = true;
            t.digits_start = p;
            p += 3;
            t.digits_end = p;
        } else if (peek(p) == '0' &&
                   (peek(p + 1) == 'x' || peek(p + 1) == 'o' || peek(p + 1) == 'b')) {
            t.base = in_[p + 1] == 'x' ? 16 : in_[p + 1] == 'o' ? 8 : 2;
            p += 2;
            t.digits_start = p;
            auto digit_ok = [&](char c) {
                int h = hex_value(c);
                return h >= 0 && h < t.base;
            };
            if (!digit_ok(peek(p)) || p >= in_.size()) {
                pos_ = p;
                return fail(
                    make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_number, p,
                               "expected a digit after the base prefix, saw " + describe_at(p)));
            }
            while (p < in_.size() && (digit_ok(in_[p]) || in_[p] == '_')) {
                ++p;
            }
            t.digits_end = p;
        } else {
            t.digits_start = p;
            bool digits = false;
            while (p < in_.size() && (is_dec(in_[p]) || (digits && in_[p] == '_'))) {
                digits = true;
                ++p;
            }
            if (peek(p) == '.' && peek(p + 1) != '.' && p < in_.size() &&
                (digits || is_dec(peek(p + 1)))) {
                t.is_float = true;
                ++p;
                if (!digits && !is_dec(peek(p))) {
                    pos_ = p;
                    return fail(make_error(errc::invalid_number, p, "expected a digit after '.'"));
                }
                bool frac = false;
                while (p < in_.size() && (is_dec(in_[p]) || (frac && in_[p] == '_'))) {
                    frac = true;
                    ++p;
                }
                digits = true;
            }
            if (!digits) {
                pos_ = p;
                return fail(
                    make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_number, p,
                               "expected a digit, saw " + describe_at(p)));
            }
            if (peek(p) == 'e' || peek(p) == 'E') {
                t.is_float = true;
                ++p;
                if (peek(p) == '+' || peek(p) == '-') {
                    ++p;
                }
                bool exp_digit = false;
                while (p < in_.size() && (is_dec(in_[p]) || in_[p] == '_')) {
                    exp_digit = exp_digit || is_dec(in_[p]);
                    ++p;
                }
                if (!exp_digit) {
                    pos_ = p;
                    return fail(
                        make_error(errc::invalid_number, p,
                                   "expected a digit in the exponent, saw " + describe_at(p)));
                }
            }
            t.digits_end = p;
        }
        // Type suffix: i8 .. i128, u8 .. u128, f32, f64.
        if (peek(p) == 'i' || peek(p) == 'u' || peek(p) == 'f') {
            char k = in_[p];
            std::size_t q = p + 1;
            while (q < in_.size() && is_dec(in_[q])) {
                ++q;
            }
            std::string_view bits = in_.substr(p + 1, q - p - 1);
            int n = 0;
            std::from_chars(bits.data(), bits.data() + bits.size(), n);
            bool ok = k == 'f' ? (bits == "32" || bits == "64") && t.base == 10 && !t.special
                               : (bits == "8" || bits == "16" || bits == "32" || bits == "64" ||
                                  bits == "128") &&
                                     !t.is_float;
            if (!ok || (q < in_.size() && is_ident_char(static_cast<unsigned char>(in_[q])))) {
                pos_ = p;
                return fail(make_error(
                    errc::invalid_number, p,
                    "invalid number suffix '" + std::string(in_.substr(p, q - p)) + "'"));
            }
            t.suffix_kind = k;
            t.suffix_bits = n;
            if (k == 'f') {
                t.is_float = true;
            }
            p = q;
        }
        if (p < in_.size() && is_ident_char(static_cast<unsigned char>(in_[p]))) {
            pos_ = p;
            return fail(make_error(errc::invalid_number, p,
                                   "unexpected " + describe_at(p) + " after a number"));
        }
        t.end = p;
        return t;
    }

    step emit_number(const number_token& t) {
        std::string_view digits = in_.substr(t.digits_start, t.digits_end - t.digits_start);
        if (t.is_float) {
            double d;
            if (t.special) {
                d = digits == "inf" ? HUGE_VAL : std::nan("");
            } else {
                scratch_.clear();
                for (char c : digits) {
                    if (c != '_') {
                        scratch_.push_back(c);
                    }
                }
                if (scratch_.back() == '.') {
                    scratch_.push_back('0');
                }
                if (scratch_.front() == '.') {
                    scratch_.insert(scratch_.begin(), '0');
                }
                auto r = read_double_saturating(scratch_, d);
                if (r.ec != std::errc() || r.ptr != scratch_.data() + scratch_.size()) {
                    return fail(make_error(errc::invalid_number, t.start, "invalid float"));
                }
            }
            if (t.neg) {
                d = -d;
            }
            if (t.suffix_kind == 'f' && t.suffix_bits == 32) {
                // A float32 source is widened exactly (DESIGN section 2).
                d = static_cast<double>(static_cast<float>(d));
            }
            b_.add_double(d);
            return {};
        }
        // Integer: magnitude in 64 bits when it fits, decimal text beyond.
        const radix_value rv = read_radix(digits, static_cast<unsigned>(t.base));
        const bool big = !rv.fits;
        const std::uint64_t mag = rv.magnitude;
        if (t.suffix_kind != 0) {
            int bits = t.suffix_bits;
            bool is_unsigned = t.suffix_kind == 'u';
            bool out = false;
            if (is_unsigned && t.neg && (mag != 0 || big)) {
                out = true;
            } else if (bits < 128) {
                std::uint64_t max = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
                if (!is_unsigned) {
                    max = (max >> 1) + (t.neg ? 1 : 0);
                }
                out = big || mag > max;
            } else if (big && rv.digits > 160) {
                out = true;  // far beyond 128 bits; the exact check follows below
            }
            if (out) {
                return fail(make_error(errc::invalid_number, t.start,
                                       "integer out of range for its suffix"));
            }
        }
        if (fits_64(rv, t.neg)) {
            add_radix_value(b_, rv, t.neg);
            return {};
        }
        // Outside 64 bits: a bignum as exact decimal text.
        if (!radix_to_decimal(digits, static_cast<unsigned>(t.base), rv, scratch_)) {
            return fail(make_error(errc::invalid_number, t.start,
                                   "integer literal longer than 4096 digits"));
        }
        if (t.suffix_bits == 128) {
            // The magnitude limits of u128 and i128, compared as decimal text.
            std::string_view max = t.suffix_kind == 'u' ? "340282366920938463463374607431768211455"
                                   : t.neg              ? "170141183460469231731687303715884105728"
                                                        : "170141183460469231731687303715884105727";
            std::string_view mag_text = scratch_;
            if (mag_text.size() > max.size() || (mag_text.size() == max.size() && mag_text > max)) {
                return fail(make_error(errc::invalid_number, t.start,
                                       "integer out of range for its suffix"));
            }
        }
        if (t.neg) {
            scratch_.insert(scratch_.begin(), '-');
        }
        b_.add_bignum(scratch_);
        return {};
    }

    // A number, or a range `a..b`, `a..=b`, `a..`, `..b`, `..=b`, `..` (the serde form of
    // Rust's ranges: a map with "start" and/or "end").
    step parse_number_or_range() {
        {
            // Fast path: a plain decimal integer (up to 18 digits, no leading zero) or float
            // (digits, a fraction and/or an exponent, no '_') that a ',', a closer or the end
            // ends: no suffix, no range, nothing else to decide.
            const char* b = in_.data() + pos_;
            const char* e = in_.data() + in_.size();
            std::int64_t v = 0;
            const char* q = small_integer(b, e, true, v);
            if (q != nullptr && (q == e || ends_number(*q))) {
                pos_ = static_cast<std::size_t>(q - in_.data());
                b_.add_int(v);
                return {};
            }
            double d = 0;
            q = small_float(b, e, d);
            if (q != nullptr && (q == e || ends_number(*q))) {
                pos_ = static_cast<std::size_t>(q - in_.data());
                b_.add_double(d);
                return {};
            }
        }
        number_token start_tok;
        bool has_start = false;
        if (!(peek(pos_) == '.' && peek(pos_ + 1) == '.')) {
            auto t = lex_number();
            if (!t) {
                return fail(t.error());
            }
            start_tok = *t;
            has_start = true;
            std::size_t q = skip_ws_from(t->end, nullptr);
            if (q == std::string_view::npos || peek(q) != '.' || peek(q + 1) != '.') {
                pos_ = t->end;
                return emit_number(*t);
            }
            pos_ = q;
        }
        // A range.
        pos_ += 2;
        if (peek(pos_) == '=') {
            ++pos_;
        }
        POLYCODEC_TRY(open_container(true));
        if (has_start) {
            b_.add_string("start");
            POLYCODEC_TRY(emit_number(start_tok));
        }
        std::size_t q = skip_ws_from(pos_, nullptr);
        if (q != std::string_view::npos && q < in_.size() &&
            (is_dec(in_[q]) || in_[q] == '+' || in_[q] == '-' || word_at(q, "inf") ||
             word_at(q, "NaN") || (in_[q] == '.' && is_dec(peek(q + 1))))) {
            pos_ = q;
            auto t = lex_number();
            if (!t) {
                return fail(t.error());
            }
            b_.add_string("end");
            POLYCODEC_TRY(emit_number(*t));
            pos_ = t->end;
        }
        b_.end_map();
        return {};
    }

    std::uint32_t depth_ = 0;
    std::size_t key_depth_ = SIZE_MAX;  // builder depth while a map key is read
    std::size_t key_at_ = 0;
    // Per-thread buffers, reused so that steady-state decoding allocates nothing.
    struct scratch_buffers {
        std::string text;
        std::vector<paren_group> groups;
        std::vector<paren_group> stack;
    };
    static scratch_buffers& thread_scratch() {
        return detail::thread_scratch<scratch_buffers, &scratch_buffers::text,
                                      &scratch_buffers::groups, &scratch_buffers::stack>();
    }
    scratch_buffers& buffers_ = thread_scratch();
    std::string& scratch_ = buffers_.text;
    std::vector<paren_group>& groups_ = buffers_.groups;  // look-ahead results, by offset
    std::size_t groups_next_ = 0;
    std::size_t scanned_to_ = 0;  // where the last look-ahead scan stopped
    std::vector<paren_group>& stack_ = buffers_.stack;
};

// One pass straight into the tape (detail::tape_sink), the builder for whatever that run does
// not finish (detail/text_reader.hpp).
result<void> decode_ron(std::string_view in, builder& b, const decode_options&) {
    return decode_text_fast<ron_reader>(in, b);
}

// ---- writer ----

constexpr char hex_digits[] = "0123456789abcdef";

// A RON string or byte string body: '"' and '\\' escaped, control characters (and for bytes
// everything outside printable ASCII) as \xHH, which ron-rs and the grammar both read. A
// string's plain runs are found 16 bytes a step.
void write_quoted(output_buffer& out, std::string_view s, bool bytes) {
    const char* e = s.data() + s.size();
    // The next byte to escape at or after p, or e.
    auto next = [&](const char* p) {
        if (!bytes) {
            return scan_to_special4(p, e, '"', '\\', '\x7f', '\x7f', ron_bytes, escaped);
        }
        while (p < e && static_cast<unsigned char>(*p) < 0x80 &&
               !ron_bytes.has(static_cast<unsigned char>(*p), escaped)) {
            ++p;
        }
        return p;
    };
    const char* p = next(s.data());
    if (p == e) {
        append_wrapped(out, '"', s, '"');  // nothing to escape: one copy
        return;
    }
    out.push_back('"');
    const char* run = s.data();
    for (; p != e; p = next(p + 1)) {
        out.append(run, static_cast<std::size_t>(p - run));
        run = p + 1;
        if (const char* esc = short_escape(*p)) {
            out.append(esc, 2);
        } else {
            const auto c = static_cast<unsigned char>(*p);
            const char buf[4] = {'\\', 'x', hex_digits[c >> 4], hex_digits[c & 15]};
            out.append(buf, 4);
        }
    }
    out.append(run, static_cast<std::size_t>(e - run));
    out.push_back('"');
}

// DESIGN section 2: None is null (ron-rs writes a unit as "()", which reads back as null too).
constexpr scalar_spelling ron_spelling{"None", "false", "true", "NaN", "inf", "-inf"};

// The hooks of detail::walk_text, in ron-rs's style: compact "[1,2]" / "{\"a\":1}"; pretty puts
// each element on its own line, indented by four spaces, every element followed by a comma
// (PrettyConfig::default()).
class ron_writer : public text_hooks {
public:
    ron_writer(output_buffer& out, const encode_options& opt) : text_hooks(out, opt, "    ") {}

    const scalar_spelling& spelling() const { return ron_spelling; }
    bool leaf(value v) {
        if (v.kind() == kind::bytes) {
            put('b');
        }
        write_quoted(out_, v.get_string(), v.kind() == kind::bytes);
        return true;
    }
    int tagged(value& v, int) { return drop_tag(v, "ron"); }
    char item_sep() const { return opt_.pretty ? 0 : ','; }
    void open_array(int) { put('['); }
    void array_item(bool first, int depth) { item(first, depth); }
    void close_array(bool empty, int depth) { close(empty, depth, ']'); }
    void open_map(int) { put('{'); }
    bool map_key(value k, bool first, int depth) {
        item(first, depth);
        if (k.kind() == kind::string) {
            write_quoted(out_, k.get_string(), false);
        } else if (!walk_text(*this, out_, k, depth)) {
            return false;
        }
        if (opt_.pretty) {
            out_.append(": ");
        } else {
            put(':');
        }
        return true;
    }
    void close_map(bool empty, int depth) { close(empty, depth, '}'); }

private:
    // Pretty: each element is followed by ',' (the last one too), so a ',' before every element
    // but the first and one before the closer write the same bytes.
    void item(bool first, int depth) {
        if (!first) {
            put(',');
        }
        newline(depth);
    }
    void close(bool empty, int depth, char closer) {
        if (!empty && opt_.pretty) {
            put(',');
            newline(depth);
        }
        put(closer);
    }
};

result<void> encode_ron(const document& doc, output_buffer& out, const encode_options& opt) {
    ron_writer w(out, opt);
    if (!walk_text(w, out, doc.root(), 0)) {
        return std::move(w.status);
    }
    return {};
}

}  // namespace

const codec_functions ron_codec{decode_ron, encode_ron};

}  // namespace polycodec::detail
