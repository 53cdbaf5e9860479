// EDN, extensible data notation (github.com/edn-format/edn). Own recursive-descent reader and
// writer; docs/formats/edn.md lists how every EDN element maps to the Document and back.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include "detail/base64.hpp"
#include "detail/decimal128.hpp"
#include "detail/epoch_time.hpp"
#include "detail/exponent_scan.hpp"
#include "detail/extjson.hpp"
#include "detail/lossy.hpp"
#include "detail/scalar_writer.hpp"
#include "detail/number.hpp"
#include "detail/short_escape.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/step.hpp"
#include "detail/try.hpp"
#include "detail/unescape.hpp"
#include "detail/text_reader.hpp"
#include "detail/text_writer.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// ---- character classes ----

// EDN: whitespace includes the comma.
constexpr bool ws_byte(unsigned char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ',' || c == '\f';
}

// Characters that end a token (symbol, keyword, number, character name), as Clojure's reader.
constexpr bool delim_byte(unsigned char c) {
    return ws_byte(c) || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' ||
           c == '"' || c == ';' || c == '\\';
}

// "Symbols begin with a non-numeric character and can contain alphanumeric characters and
// . * + ! - _ ? $ % & = < >"; "# and : are allowed as constituent characters other than as
// the first character"; Clojure also allows ' inside. Non-ASCII letters (UTF-8) are accepted.
constexpr bool symbol_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80 || std::string_view(".*+!-_?$%&=<>/#:'").find(static_cast<char>(c)) !=
                            std::string_view::npos;
}

// One table for the three classes (detail/text_reader.hpp's byte_table).
// The writer's classes: a byte its strings escape; keyword_safe's first and later bytes.
constexpr bool escape_byte(unsigned char c) { return c < 0x20 || c == '"' || c == '\\' || c == 0x7f; }
constexpr bool keyword_first_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::string_view("_*?!$<>=&%").find(static_cast<char>(c)) != std::string_view::npos;
}
constexpr bool keyword_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_.*+!?$%&=<>").find(static_cast<char>(c)) != std::string_view::npos;
}

constexpr std::uint8_t c_ws = 1, c_delim = 2, c_symbol = 4, c_escape = 8, c_kw_first = 16,
                       c_kw = 32;
constexpr byte_table edn_class = make_byte_table([](unsigned char c) -> std::uint8_t {
    return static_cast<std::uint8_t>((ws_byte(c) ? c_ws : 0) | (delim_byte(c) ? c_delim : 0) |
                                     (symbol_byte(c) ? c_symbol : 0) |
                                     (escape_byte(c) ? c_escape : 0) |
                                     (keyword_first_byte(c) ? c_kw_first : 0) |
                                     (keyword_byte(c) ? c_kw : 0));
});

bool is_ws(char c) { return edn_class.has(static_cast<unsigned char>(c), c_ws); }
bool is_delim(char c) { return edn_class.has(static_cast<unsigned char>(c), c_delim); }

bool is_closer(char c) { return c == ')' || c == ']' || c == '}'; }

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_symbol_char(char c) { return edn_class.has(static_cast<unsigned char>(c), c_symbol); }

bool is_symbol_start(char c) {
    return is_symbol_char(c) && !is_digit(c) && c != '#' && c != ':' && c != '\'';
}

// A symbol name: prefix/name with both parts non-empty, or "/" alone; "If -, + or . are the
// first character, the second character (if any) must be non-numeric".
bool valid_symbol(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    if (s == "/") {
        return true;
    }
    auto part_ok = [](std::string_view p) {
        if (p.empty() || !is_symbol_start(p[0])) {
            return false;
        }
        if ((p[0] == '-' || p[0] == '+' || p[0] == '.') && p.size() > 1 && is_digit(p[1])) {
            return false;
        }
        bool ascii = true;
        for (char c : p) {
            if (!is_symbol_char(c) || c == '/') {
                return false;
            }
            ascii = ascii && static_cast<unsigned char>(c) < 0x80;
        }
        return ascii || utf8_valid(p);
    };
    std::size_t slash = s.find('/');
    if (slash == std::string_view::npos) {
        return part_ok(s);
    }
    return part_ok(s.substr(0, slash)) && part_ok(s.substr(slash + 1));
}

// The names the writer emits as keywords (:name): a strict ASCII subset of valid_symbol that
// every EDN reader reads back as the same name.
bool keyword_safe(std::string_view s) {
    if (s.empty() || s.size() > 256) {
        return false;
    }
    // Without a '/': one pass over the table.
    if (edn_class.has(static_cast<unsigned char>(s[0]), c_kw_first)) {
        const char* e = skip_class(s.data() + 1, s.data() + s.size(), edn_class, c_kw);
        if (e == s.data() + s.size()) {
            return true;
        }
        if (*e != '/') {
            return false;
        }
    }
    std::size_t slash = s.find('/');
    auto part = [](std::string_view p) {
        if (p.empty() || !(is_alpha(p[0]) || p[0] == '_' || p[0] == '*' || p[0] == '?' ||
                           p[0] == '!' || p[0] == '$' || p[0] == '<' || p[0] == '>' ||
                           p[0] == '=' || p[0] == '&' || p[0] == '%')) {
            return false;
        }
        for (char c : p) {
            if (!(is_alpha(c) || is_digit(c) || c == '-' || c == '_' || c == '.' || c == '*' ||
                  c == '+' || c == '!' || c == '?' || c == '$' || c == '%' || c == '&' ||
                  c == '=' || c == '<' || c == '>')) {
                return false;
            }
        }
        return true;
    };
    if (slash == std::string_view::npos) {
        return part(s);
    }
    return part(s.substr(0, slash)) && part(s.substr(slash + 1));
}

// Our own tags for the Document's tagged values: #cbor/tagN, #msgpack/tagN, #bson/tagN,
// #other/tagN.
constexpr std::pair<std::string_view, tag_space> own_tag_spaces[] = {
    {"cbor/tag", tag_space::cbor},
    {"msgpack/tag", tag_space::msgpack_ext},
    {"bson/tag", tag_space::bson},
    {"other/tag", tag_space::other},
};

bool own_tag(std::string_view name, tag_space& space, std::uint64_t& number) {
    for (auto [prefix, sp] : own_tag_spaces) {
        if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) {
            std::string_view n = name.substr(prefix.size());
            if (n.size() > 1 && n[0] == '0') {
                return false;
            }
            auto r = std::from_chars(n.data(), n.data() + n.size(), number);
            if (r.ec == std::errc() && r.ptr == n.data() + n.size()) {
                space = sp;
                return true;
            }
        }
    }
    return false;
}

// A tag name of EDN: "# followed immediately by a symbol starting with an alphabetic
// character".
bool valid_tag(std::string_view name) {
    return !name.empty() && is_alpha(name[0]) && valid_symbol(name);
}

// ---- reader ----

// The named characters (\newline ...) and their text.
constexpr std::pair<std::string_view, std::string_view> named_chars[] = {
    {"newline", "\n"}, {"space", " "},     {"tab", "\t"},
    {"return", "\r"},  {"formfeed", "\f"}, {"backspace", "\b"},
};

/// The text of the character named `name`, or empty.
std::string_view named_char(std::string_view name) {
    for (const auto& [n, text] : named_chars) {
        if (n == name) {
            return text;
        }
    }
    return {};
}

template <class Sink>
class edn_reader {
public:
    edn_reader(std::string_view in, Sink& b, std::string& scratch)
        : in_(in), b_(b), scratch_(scratch) {}

    step run() {
        POLYCODEC_TRY(skip_ignorable());
        if (pos_ >= in_.size()) {
            return fail(
                make_error(errc::unexpected_eof, pos_, "expected a value, saw end of input"));
        }
        POLYCODEC_TRY(parse_value());
        POLYCODEC_TRY(skip_ignorable());
        if (pos_ != in_.size()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input, saw " + describe_at(pos_)));
        }
        if (!b_.ok()) {
            return container_limit();
        }
        return {};
    }

private:
    std::string describe_at(std::size_t p) const { return describe_byte_at(in_, p); }
    error unexpected(const char* expected) const { return unexpected_at(in_, pos_, expected); }
    step container_limit() { return fail(limit_error(b_, pos_)); }

    // Containers and discards inside a #_ form are parsed but not built; they count against
    // the same depth limit.
    bool enter_skipped() {
        if (b_.depth() + skip_depth_ + 1 > b_.limits().max_depth) {
            return false;
        }
        ++skip_depth_;
        return true;
    }

    // Whitespace, commas, ; comments and #_ discarded forms. The common case inline: blanks,
    // then a byte that starts neither a comment nor a discard.
    [[gnu::always_inline]] step skip_ignorable() {
        while (pos_ < in_.size() && is_ws(in_[pos_])) {
            ++pos_;
        }
        if (pos_ >= in_.size() || (in_[pos_] != ';' && in_[pos_] != '#')) {
            return {};
        }
        return skip_ignorable_slow();
    }

    [[gnu::noinline]] step skip_ignorable_slow() {
        for (;;) {
            while (pos_ < in_.size() && is_ws(in_[pos_])) {
                ++pos_;
            }
            if (pos_ >= in_.size()) {
                return {};
            }
            if (in_[pos_] == ';') {
                while (pos_ < in_.size() && in_[pos_] != '\n') {
                    ++pos_;
                }
                continue;
            }
            if (in_[pos_] == '#' && pos_ + 1 < in_.size() && in_[pos_ + 1] == '_') {
                if (!enter_skipped()) {
                    return container_limit();
                }
                pos_ += 2;
                ++skipping_;
                auto r = skip_ignorable();
                if (r && pos_ >= in_.size()) {
                    r = fail(unexpected("a form after #_"));
                }
                if (r) {
                    r = parse_value();
                }
                --skipping_;
                --skip_depth_;
                if (!r) {
                    return r;
                }
                continue;
            }
            return {};
        }
    }

    // ---- builder calls, silent inside #_ ----
    bool skipping() const { return skipping_ != 0; }

    bool open(bool map) {
        if (skipping()) {
            return enter_skipped();
        }
        return map ? b_.begin_map() : b_.begin_array();
    }
    void close(bool map) {
        if (skipping()) {
            --skip_depth_;
        } else if (map) {
            b_.end_map();
        } else {
            b_.end_array();
        }
    }

    // A Document's map keys are scalars: a collection (or a tag read as a map) in a key
    // position is refused before anything is built.
    step collection_key() {
        return fail(
            make_error(errc::unrepresentable, pos_, "a collection as a map key is not supported"));
    }

    step parse_value() {
        char c = in_[pos_];
        if (in_key_ && !skipping() && (c == '[' || c == '(' || c == '{')) {
            return collection_key();
        }
        switch (c) {
            case '[':
                return parse_seq(']');
            case '(':
                return parse_seq(')');
            case '{':
                return parse_map();
            case '"': {
                std::string_view s;
                POLYCODEC_TRY(read_string(s));
                if (!skipping()) {
                    b_.add_string(s);
                }
                return {};
            }
            case '\\':
                return parse_char();
            case '#':
                return parse_dispatch();
            case ')':
            case ']':
            case '}':
                return fail(unexpected("a value"));
            default:
                break;
        }
        if (is_digit(c) ||
            ((c == '+' || c == '-') && pos_ + 1 < in_.size() && is_digit(in_[pos_ + 1]))) {
            return parse_number();
        }
        if (c == ':') {
            return parse_keyword();
        }
        if (is_symbol_start(c)) {
            return parse_symbol();
        }
        return fail(unexpected("a value"));
    }

    std::size_t token_end(std::size_t from) const {
        std::size_t p = from;
        while (p < in_.size() && !is_delim(in_[p])) {
            ++p;
        }
        return p;
    }

    step parse_seq(char closer) {
        if (!open(false)) {
            return container_limit();
        }
        ++pos_;
        for (;;) {
            POLYCODEC_TRY(skip_ignorable());
            if (pos_ < in_.size() && in_[pos_] == closer) {
                ++pos_;
                close(false);
                return {};
            }
            if (pos_ >= in_.size() || is_closer(in_[pos_])) {
                return fail(unexpected(closer == ']' ? "a value or ']'" : "a value or ')'"));
            }
            POLYCODEC_TRY(parse_value());
        }
    }

    // A map's elements alternate key and value; keys are scalars in the Document.
    step parse_map() {
        std::size_t open_at = pos_;
        if (!open(true)) {
            return container_limit();
        }
        ++pos_;
        std::uint64_t forms = 0;
        for (;;) {
            POLYCODEC_TRY(skip_ignorable());
            if (pos_ < in_.size() && in_[pos_] == '}') {
                if (forms % 2 != 0) {
                    return fail(make_error(errc::unexpected_char, pos_,
                                           "expected a value for the last key of the map at byte " +
                                               std::to_string(open_at) + ", saw '}'"));
                }
                ++pos_;
                close(true);
                return {};
            }
            if (pos_ >= in_.size() || is_closer(in_[pos_])) {
                return fail(unexpected("a value or '}'"));
            }
            // Inside #_ keys may be anything; a discarded map leaves the flag alone.
            if (!skipping()) {
                in_key_ = forms % 2 == 0;
            }
            auto r = parse_value();
            if (!skipping()) {
                in_key_ = false;
            }
            if (!r) {
                return r;
            }
            ++forms;
        }
    }

    int hex4(std::size_t p) const {
        if (p + 4 > in_.size()) {
            return -1;
        }
        int v = 0;
        for (std::size_t i = p; i < p + 4; ++i) {
            char c = in_[i];
            v <<= 4;
            if (c >= '0' && c <= '9') {
                v |= c - '0';
            } else if (c >= 'a' && c <= 'f') {
                v |= c - 'a' + 10;
            } else if (c >= 'A' && c <= 'F') {
                v |= c - 'A' + 10;
            } else {
                return -1;
            }
        }
        return v;
    }

    // A string at pos_ ('"'); `out` views the input (no escapes) or scratch_.
    step read_string(std::string_view& out) {
        std::size_t start = ++pos_;
        std::size_t p = start;
        {
            const char* e = in_.data() + in_.size();
            const char* q = in_.data() + start;
            while ((q = scan_to_special(q, e, '"', '\\')) != e && *q != '"' && *q != '\\') {
                ++q;  // a control character: part of the string
            }
            p = static_cast<std::size_t>(q - in_.data());
        }
        if (p < in_.size() && in_[p] == '"') {
            std::string_view s = in_.substr(start, p - start);
            POLYCODEC_TRY(string_utf8(s, start));
            out = s;
            pos_ = p + 1;
            return {};
        }
        scratch_.assign(in_.substr(start, p - start));
        std::size_t checked = start;  // UTF-8 checked up to here, escapes aside
        auto check_utf8 = [&](std::size_t upto) {
            return string_utf8(in_.substr(checked, upto - checked), checked);
        };
        std::size_t run = p;
        for (;;) {
            if (p >= in_.size()) {
                POLYCODEC_TRY(check_utf8(p));
                pos_ = p;
                return fail(make_error(
                    errc::unexpected_eof, p,
                    "unterminated string starting at byte " + std::to_string(start - 1)));
            }
            char c = in_[p];
            if (c == '"') {
                break;
            }
            if (c != '\\') {
                ++p;
                continue;
            }
            POLYCODEC_TRY(check_utf8(p));
            scratch_.append(in_.data() + run, p - run);
            if (p + 1 >= in_.size()) {
                return fail(make_error(errc::unexpected_eof, p + 1, "unterminated escape"));
            }
            char e = in_[p + 1];
            std::size_t esc_at = p;
            p += 2;
            switch (e) {
                case '"':
                    scratch_.push_back('"');
                    break;
                case '\\':
                    scratch_.push_back('\\');
                    break;
                case 'n':
                    scratch_.push_back('\n');
                    break;
                case 'r':
                    scratch_.push_back('\r');
                    break;
                case 't':
                    scratch_.push_back('\t');
                    break;
                case 'b':
                    scratch_.push_back('\b');
                    break;
                case 'f':
                    scratch_.push_back('\f');
                    break;
                case 'u': {
                    int u = hex4(p);
                    if (u < 0) {
                        return fail(make_error(errc::invalid_string, esc_at,
                                               "expected 4 hex digits after \\u"));
                    }
                    p += 4;
                    std::uint32_t cp = static_cast<std::uint32_t>(u);
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        int lo = (p + 1 < in_.size() && in_[p] == '\\' && in_[p + 1] == 'u')
                                     ? hex4(p + 2)
                                     : -1;
                        if (lo < 0xDC00 || lo > 0xDFFF) {
                            return fail(make_error(errc::invalid_string, esc_at,
                                                   "unpaired UTF-16 surrogate in \\u escape"));
                        }
                        p += 6;
                        cp = 0x10000 + ((cp - 0xD800) << 10) +
                             (static_cast<std::uint32_t>(lo) - 0xDC00);
                    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                        return fail(make_error(errc::invalid_string, esc_at,
                                               "unpaired UTF-16 surrogate in \\u escape"));
                    }
                    char buf[4];
                    scratch_.append(buf, utf8_encode(cp, buf));
                    break;
                }
                default:
                    return fail(make_error(errc::invalid_string, esc_at,
                                           "invalid escape \\" + describe_char(e)));
            }
            run = p;
            checked = p;
        }
        POLYCODEC_TRY(check_utf8(p));
        scratch_.append(in_.data() + run, p - run);
        out = scratch_;
        pos_ = p + 1;
        return {};
    }

    static std::string describe_char(char e) {
        unsigned char c = static_cast<unsigned char>(e);
        if (c >= 0x20 && c < 0x7f) {
            return std::string(1, e);
        }
        char buf[16];
        std::snprintf(buf, sizeof buf, "(byte 0x%02x)", c);
        return buf;
    }

    // \c, \newline, \space, \tab, \return, \formfeed, \backspace, \uXXXX: a one-character
    // string.
    step parse_char() {
        std::size_t start = pos_;
        std::size_t p = pos_ + 1;
        if (p >= in_.size()) {
            pos_ = p;
            return fail(make_error(errc::unexpected_eof, p, "expected a character after '\\'"));
        }
        if (is_ws(in_[p])) {
            return fail(make_error(errc::invalid_string, start,
                                   "expected a character after '\\', saw whitespace"));
        }
        // The first code point, whatever it is, then the token's rest.
        std::size_t first_len = 1;
        unsigned char c0 = static_cast<unsigned char>(in_[p]);
        if (c0 >= 0x80) {
            first_len = c0 >= 0xF0 ? 4 : c0 >= 0xE0 ? 3 : 2;
            if (p + first_len > in_.size() ||
                utf8_valid_prefix(in_.substr(p, first_len)) != first_len) {
                return fail(make_error(errc::invalid_utf8, p, "invalid UTF-8 in character"));
            }
        }
        std::size_t end = token_end(p + first_len);
        std::string_view tok = in_.substr(p, end - p);
        char buf[4];
        std::string_view ch;
        std::string_view named = named_char(tok);
        if (tok.size() == first_len) {
            ch = tok;
        } else if (!named.empty()) {
            ch = named;
        } else if (tok.size() == 5 && tok[0] == 'u' && hex4(p + 1) >= 0) {
            int u = hex4(p + 1);
            if (u >= 0xD800 && u <= 0xDFFF) {
                return fail(make_error(errc::invalid_string, start,
                                       "a UTF-16 surrogate is not a character"));
            }
            ch = std::string_view(buf, utf8_encode(static_cast<std::uint32_t>(u), buf));
        } else {
            return fail(make_error(errc::invalid_string, start,
                                   "unknown character name \\" + std::string(tok.substr(0, 32))));
        }
        pos_ = end;
        if (!skipping()) {
            b_.add_string(ch);
        }
        return {};
    }

    // A keyword or symbol `tok` (at offset tok_at; the token starts at `start`) that is not
    // valid: its first byte of invalid UTF-8, else "invalid <what> <shown><tok>".
    [[gnu::cold]] static error bad_token(std::string_view tok, std::size_t tok_at,
                                         std::size_t start, const char* what, const char* shown) {
        std::size_t bad = utf8_valid_prefix(tok);
        if (bad != tok.size()) {
            return make_error(errc::invalid_utf8, tok_at + bad,
                              std::string("invalid UTF-8 in ") + what);
        }
        return make_error(
            errc::unexpected_char, start,
            std::string("invalid ") + what + " " + shown + std::string(tok.substr(0, 64)));
    }

    step parse_keyword() {
        std::size_t start = pos_;
        std::size_t end = token_end(pos_ + 1);
        std::string_view name = in_.substr(pos_ + 1, end - pos_ - 1);
        // Clojure's reader also takes keywords that start with a digit (:1, :2d), which the
        // spec's symbol rule does not; read them too.
        bool ok = valid_symbol(name) ||
                  (!name.empty() && is_digit(name[0]) && valid_symbol("a" + std::string(name)));
        if (!ok || name == "/") {
            return fail(bad_token(name, start + 1, start, "keyword", ":"));
        }
        pos_ = end;
        if (!skipping()) {
            b_.add_string(name);
        }
        return {};
    }

    step parse_symbol() {
        std::size_t start = pos_;
        std::size_t end = token_end(pos_);
        std::string_view tok = in_.substr(pos_, end - pos_);
        if (!valid_symbol(tok)) {
            return fail(bad_token(tok, start, start, "symbol", ""));
        }
        pos_ = end;
        if (skipping()) {
            return {};
        }
        if (tok == "nil") {
            b_.add_null();
        } else if (tok == "true") {
            b_.add_bool(true);
        } else if (tok == "false") {
            b_.add_bool(false);
        } else {
            b_.add_string(tok);
        }
        return {};
    }

    // "[+-]?(0|[1-9][0-9]*)(N | (.[0-9]+)?([eE][+-]?[0-9]+)?M?)"
    step parse_number() {
        {
            // Fast path: [+-]? up to 18 digits (no leading zero) ending the token.
            const char* e = in_.data() + in_.size();
            std::int64_t v = 0;
            const char* p = small_integer(in_.data() + pos_, e, true, v);
            if (p != nullptr && (p == e || is_delim(*p))) {
                pos_ = static_cast<std::size_t>(p - in_.data());
                if (!skipping()) {
                    b_.add_int(v);
                }
                return {};
            }
        }
        std::size_t start = pos_;
        std::size_t end = token_end(pos_);
        std::size_t p = pos_;
        bool neg = false;
        if (in_[p] == '+' || in_[p] == '-') {
            neg = in_[p] == '-';
            ++p;
        }
        std::size_t digits_at = p;
        auto bad = [&](std::size_t at, const std::string& what) {
            pos_ = at;
            return fail(make_error(errc::invalid_number, at, what));
        };
        if (in_[p] == '0') {
            ++p;
            if (p < end && is_digit(in_[p])) {
                return bad(p, "leading zeros are not allowed");
            }
        } else {
            while (p < end && is_digit(in_[p])) {
                ++p;
            }
        }
        std::size_t int_end = p;
        bool is_float = false;
        if (p < end && in_[p] == 'N' && p + 1 == end) {
            pos_ = end;
            if (!skipping()) {
                add_integer(neg, digits_at, int_end);
            }
            return {};
        }
        if (p < end && in_[p] == '.') {
            is_float = true;
            ++p;
            if (p >= end || !is_digit(in_[p])) {
                return bad(p, "expected a digit after '.', saw " + describe_at(p));
            }
            while (p < end && is_digit(in_[p])) {
                ++p;
            }
        }
        if (p < end && (in_[p] == 'e' || in_[p] == 'E')) {
            is_float = true;
            ++p;
            if (p < end && (in_[p] == '+' || in_[p] == '-')) {
                ++p;
            }
            if (p >= end || !is_digit(in_[p])) {
                return bad(p, "expected a digit in the exponent, saw " + describe_at(p));
            }
            while (p < end && is_digit(in_[p])) {
                ++p;
            }
        }
        bool decimal = false;
        if (p < end && in_[p] == 'M') {
            decimal = true;
            ++p;
        }
        if (p != end) {
            return bad(p, "invalid character in number: " + describe_at(p));
        }
        pos_ = end;
        if (skipping()) {
            return {};
        }
        if (decimal) {
            // An exact decimal: BSON's decimal128, whose tagged value keeps the text.
            std::string_view text = in_.substr(in_[start] == '+' ? start + 1 : start,
                                               end - 1 - (in_[start] == '+' ? start + 1 : start));
            unsigned char bid[16];
            if (!decimal128::from_string(text, bid)) {
                return bad(start, "decimal " + std::string(text.substr(0, 64)) +
                                      "M has more than the 34 significant digits of decimal128");
            }
            b_.begin_tagged(extjson::t_decimal128, tag_space::bson);
            b_.add_string(text);
            return {};
        }
        if (!is_float) {
            add_integer(neg, digits_at, int_end);
            return {};
        }
        double d = 0;
        auto r = std::from_chars(in_.data() + digits_at, in_.data() + p, d);
        if (r.ec == std::errc::result_out_of_range) {
            // As Clojure's Double/parseDouble: overflow is infinite, underflow zero.
            std::size_t e = in_.find_first_of("eE", digits_at);
            bool huge = e < p && in_[e + 1] != '-';
            d = huge ? HUGE_VAL : 0.0;
        } else if (r.ec != std::errc()) {
            return bad(start, "invalid number");
        }
        b_.add_double(neg ? -d : d);
        return {};
    }

    void add_integer(bool neg, std::size_t digits_at, std::size_t int_end) {
        std::string_view digits = in_.substr(digits_at, int_end - digits_at);
        std::uint64_t u = 0;
        if (digits.size() <= 18 && small_decimal(digits.data(), digits.data() + digits.size(), u)) {
            if (neg) {
                b_.add_int(-static_cast<std::int64_t>(u));
            } else {
                b_.add_uint(u);
            }
            return;
        }
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), u);
        if (r.ec == std::errc()) {
            if (!neg) {
                b_.add_uint(u);
                return;
            }
            if (u <= static_cast<std::uint64_t>(INT64_MAX) + 1) {
                b_.add_int(static_cast<std::int64_t>(0 - u));
                return;
            }
        }
        if (neg) {
            scratch_.assign("-");
            scratch_.append(digits);
            b_.add_bignum(scratch_);
        } else {
            b_.add_bignum(digits);
        }
    }

    // '#': sets #{}, ##NaN/##Inf/##-Inf, tagged elements (#_ is handled by skip_ignorable).
    step parse_dispatch() {
        std::size_t start = pos_;
        if (pos_ + 1 >= in_.size()) {
            pos_ = in_.size();
            return fail(make_error(errc::unexpected_eof, pos_, "expected a tag or '{' after '#'"));
        }
        char c = in_[pos_ + 1];
        if (c == '{') {
            if (in_key_ && !skipping()) {
                return collection_key();
            }
            ++pos_;
            return parse_seq_set();
        }
        if (c == '#') {
            std::size_t end = token_end(pos_ + 2);
            std::string_view name = in_.substr(pos_ + 2, end - pos_ - 2);
            double d;
            if (name == "NaN") {
                d = std::nan("");
            } else if (name == "Inf") {
                d = HUGE_VAL;
            } else if (name == "-Inf") {
                d = -HUGE_VAL;
            } else {
                return fail(make_error(
                    errc::unexpected_char, start,
                    "expected ##NaN, ##Inf or ##-Inf, saw ##" + std::string(name.substr(0, 32))));
            }
            pos_ = end;
            if (!skipping()) {
                b_.add_double(d);
            }
            return {};
        }
        std::size_t end = token_end(pos_ + 1);
        std::string_view name = in_.substr(pos_ + 1, end - pos_ - 1);
        if (!valid_tag(name)) {
            ++pos_;
            return fail(make_error(
                errc::unexpected_char, start,
                name.empty() ? "expected a tag or '{' after '#', saw " + describe_at(start + 1)
                             : "invalid tag #" + std::string(name.substr(0, 64)) +
                                   " (a tag starts with a letter)"));
        }
        pos_ = end;
        POLYCODEC_TRY(skip_ignorable());
        if (pos_ >= in_.size() || in_[pos_] == ')' || in_[pos_] == ']' || in_[pos_] == '}') {
            return fail(unexpected(("a value after #" + std::string(name.substr(0, 64))).c_str()));
        }
        if (name == "inst") {
            return parse_inst();
        }
        tag_space space;
        std::uint64_t number = 0;
        if (own_tag(name, space, number)) {
            if (skipping()) {
                return parse_value();
            }
            if (!b_.begin_tagged(number, space)) {
                return container_limit();
            }
            return parse_value();
        }
        // Any other tag: the one-entry map {"#tag": value}.
        if (in_key_ && !skipping()) {
            pos_ = start;
            return collection_key();
        }
        if (!open(true)) {
            return container_limit();
        }
        if (!skipping()) {
            scratch_.assign(in_.substr(start, end - start));
            b_.add_string(scratch_);
        }
        POLYCODEC_TRY(parse_value());
        close(true);
        return {};
    }

    step parse_seq_set() {
        // pos_ is at '{' of "#{"; a set reads as an array.
        if (!open(false)) {
            return container_limit();
        }
        ++pos_;
        for (;;) {
            POLYCODEC_TRY(skip_ignorable());
            if (pos_ < in_.size() && in_[pos_] == '}') {
                ++pos_;
                close(false);
                return {};
            }
            if (pos_ >= in_.size() || is_closer(in_[pos_])) {
                return fail(unexpected("a value or '}'"));
            }
            POLYCODEC_TRY(parse_value());
        }
    }

    // #inst "RFC 3339 date-time with offset" -> timestamp, the text kept as written.
    step parse_inst() {
        if (in_[pos_] != '"') {
            return fail(unexpected("a string after #inst"));
        }
        std::size_t at = pos_;
        std::string_view s;
        POLYCODEC_TRY(read_string(s));
        epoch_instant t;
        if (!parse_rfc3339(s, t)) {
            return fail(make_error(errc::invalid_string, at,
                                   "#inst needs an RFC 3339 date-time with offset, saw \"" +
                                       std::string(s.substr(0, 40)) + "\""));
        }
        if (!skipping()) {
            b_.add_timestamp(s, timestamp_kind::offset_date_time);
        }
        return {};
    }

    std::string_view in_;
    Sink& b_;
    std::size_t pos_ = 0;
    int skipping_ = 0;
    bool in_key_ = false;  // parsing a map key
    std::size_t skip_depth_ = 0;
    std::string& scratch_;  // unescaped strings, per thread and reused
};

result<void> decode_edn(std::string_view in, builder& b, const decode_options&) {
    // Reused across decodes so that a steady stream allocates nothing; released when large.
    thread_local std::string scratch;
    auto res = decode_text_fast<edn_reader>(in, b, scratch);
    if (scratch.capacity() > (std::size_t{1} << 20)) {
        std::string().swap(scratch);
    }
    return res;
}

// ---- writer ----

constexpr char hex_digits[] = "0123456789abcdef";
constexpr short_escapes edn_escapes = make_short_escapes("\"\\\n\r\t", "\"\\nrt");

// EDN strings: \" \\ \n \r \t, other control characters as \uXXXX (Clojure reads both).
void write_string(output_buffer& out, std::string_view s) {
    // Most strings need no escape: one scan (16 bytes a step), one copy.
    const char* e = s.data() + s.size();
    if (scan_to_special4(s.data(), e, '"', '\\', '\x7f', '\x7f', edn_class, c_escape) == e) {
        append_wrapped(out, '"', s, '"');
        return;
    }
    write_short_escaped(out, s, edn_escapes, hex_digits);
}

// The text of a decimal128 value that EDN's grammar reads back as the same M literal.
bool edn_decimal_text(std::string_view t) {
    std::size_t p = 0;
    if (p < t.size() && t[p] == '-') {
        ++p;
    }
    std::size_t d = p;
    while (p < t.size() && is_digit(t[p])) {
        ++p;
    }
    if (p == d || (t[d] == '0' && p - d > 1)) {
        return false;
    }
    if (p < t.size() && t[p] == '.') {
        std::size_t f = ++p;
        while (p < t.size() && is_digit(t[p])) {
            ++p;
        }
        if (p == f) {
            return false;
        }
    }
    return skip_exponent(t, p) && p == t.size();
}

// Integers above INT64_MAX take EDN's N suffix; doubles are 1.0, 1e21, 1e-7 (EDN's grammar).
constexpr scalar_spelling edn_spelling{"nil", "false", "true", "##NaN", "##Inf", "##-Inf", "N"};

// The hooks of detail::walk_text (text_writer.hpp).
class edn_writer : public text_hooks {
public:
    using text_hooks::text_hooks;

    const scalar_spelling& spelling() const noexcept { return edn_spelling; }

    bool leaf(value v) {
        switch (v.kind()) {
            case kind::string:
                write_string(out_, v.get_string());
                return true;
            case kind::timestamp:
                // Only an offset date-time is an instant; local dates and times stay text
                // (DESIGN section 3: timestamps to RFC 3339 text are not lossy).
                if (v.get_timestamp_kind() == timestamp_kind::offset_date_time) {
                    out_.append("#inst ");
                }
                write_string(out_, v.get_string());
                return true;
            case kind::bytes:
                // RFC 8949 section 6.1 style, as JSON: base64url text.
                out_.push_back('"');
                base64_encode(out_, v.get_string(), true);
                out_.push_back('"');
                return true;
            default:
                return true;  // every other scalar is write_scalar's
        }
    }

    void open_array(int) { put('['); }
    void array_item(bool first, int depth) { separator(first, depth); }
    char item_sep() const { return opt_.pretty ? 0 : ' '; }
    void close_array(bool empty, int depth) {
        if (!empty) {
            newline(depth);
        }
        put(']');
    }

    // A one-entry map {"#tag": value} is the tagged element #tag value (the decoder's
    // rule for tags it has no meaning for), unless the tag has a meaning of its own.
    int map_prefix(value& v, int) {
        if (v.size() == 1) {
            auto e = *v.entries().begin();
            if (e.key.kind() == kind::string) {
                std::string_view k = e.key.get_string();
                tag_space sp;
                std::uint64_t n;
                if (k.size() > 1 && k[0] == '#' && valid_tag(k.substr(1)) && k != "#inst" &&
                    !own_tag(k.substr(1), sp, n)) {
                    out_.append(k);
                    out_.push_back(' ');
                    v = e.val;
                    return walk_next;
                }
            }
        }
        return walk_map;
    }
    void open_map(int) { put('{'); }
    bool map_key(value k, bool first, int depth) {
        separator(first, depth);
        if (k.kind() == kind::string && keyword_safe(k.get_string())) {
            std::string_view s = k.get_string();
            char* d = out_.prepare(s.size() + 2);
            d[0] = ':';
            std::memcpy(d + 1, s.data(), s.size());
            d[s.size() + 1] = ' ';
            out_.commit(s.size() + 2);
            return true;
        }
        if (!walk_text(*this, out_, k, depth)) {
            return false;
        }
        put(' ');
        return true;
    }
    void close_map(bool empty, int depth) {
        if (!empty) {
            newline(depth);
        }
        put('}');
    }

    int tagged(value& v, int depth) {
        tag_space sp = v.get_tag_space();
        value in = v.tagged_value();
        if (sp == tag_space::bson) {
            // decimal128 is EDN's exact decimal (1.5M); other BSON types become MongoDB
            // Extended JSON v2 maps, as in JSON (DESIGN section 3).
            if (v.tag() == extjson::t_decimal128 && in.kind() == kind::string &&
                edn_decimal_text(in.get_string())) {
                unsigned char bid[16];
                if (decimal128::from_string(in.get_string(), bid)) {
                    out_.append(in.get_string());
                    out_.push_back('M');
                    return walk_done;
                }
            }
            thread_local document ext;
            builder eb(ext);
            if (extjson::write_relaxed(v, eb)) {
                return walk_text(*this, out_, ext.root(), depth) ? walk_done : walk_error;
            }
        }
        std::string_view prefix = "#other/tag";
        for (auto [p, s] : own_tag_spaces) {
            if (s == sp) {
                prefix = p;
            }
        }
        out_.push_back('#');
        out_.append(prefix);
        write_uint(out_, v.tag());
        out_.push_back(' ');
        v = in;
        return walk_next;
    }

private:

    void separator(bool first, int depth) {
        if (opt_.pretty) {
            newline(depth);
        } else if (!first) {
            put(' ');
        }
    }

};

result<void> encode_edn(const document& doc, output_buffer& out, const encode_options& opt) {
    return encode_text<edn_writer>(doc, out, opt);
}

}  // namespace

const codec_functions edn_codec{decode_edn, encode_edn};

}  // namespace polycodec::detail
