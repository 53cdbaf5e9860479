// dotenv: `KEY=value` lines as npm dotenv, python-dotenv and the shells read them, decoded to a
// flat map of strings in source order (duplicates kept). The grammar (docs/formats/dotenv.md):
//   line     = ws* ( '#' comment | ['export' ws+] key ws* '=' ws* value ws* ['#' comment] )?
//   key      = [A-Za-z0-9_.-]+
//   value    = '...' (literal, may span lines) | "..." (\n \r \t \" \\ escapes, may span lines)
//            | unquoted text up to the end of the line or a '#' that starts the value or
//              follows white space, trimmed
// The writer takes a map of scalars; nested maps are flattened with "__" between the keys
// (envy-style prefixes: {"db": {"host": "x"}} -> db__host=x); decoding stays flat.
#include <cstdint>
#include <string>
#include <vector>

#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/map_root.hpp"
#include "detail/thread_scratch.hpp"
#include "detail/utf8.hpp"
#include "detail/json_text.hpp"
#include "detail/infer.hpp"
#include "detail/step.hpp"
#include "detail/try.hpp"
#include "detail/unescape.hpp"
#include "detail/unflatten.hpp"
#include "detail/utf8_input.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// Letters, digits, '_', '.', '-': the bytes of a variable name (a table: one load a byte).
constexpr struct key_byte_table {
    bool v[256];
    constexpr key_byte_table() : v() {
        for (int c = 0; c < 256; ++c) {
            v[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '.' || c == '-';
        }
    }
} key_bytes;

bool key_char(char c) { return key_bytes.v[static_cast<unsigned char>(c)]; }

bool space(char c) { return c == ' ' || c == '\t'; }

std::string describe_at(std::string_view in, std::size_t p) {
    if (p >= in.size()) {
        return "end of input";
    }
    unsigned char c = static_cast<unsigned char>(in[p]);
    if (c == '\n' || c == '\r') {
        return "end of line";
    }
    if (c >= 0x20 && c < 0x7f) {
        return std::string("'") + static_cast<char>(c) + "'";
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
}

// The escapes of a double-quoted value that stand for another byte.
constexpr escape_letters dotenv_escapes("nrt\"\\", "\n\r\t\"\\");
// What the writer escapes in a double-quoted value (a tab stays as it is).
constexpr escape_letters dotenv_out_escapes("nr\"\\", "\n\r\"\\");

class dotenv_reader {
public:
    dotenv_reader(std::string_view in, builder& b) : in_(in), b_(b) {}

    result<void> run() {
        POLYCODEC_TRY(detail::require_utf8(in_));
        pos_ = detail::bom_size(in_);
        if (!b_.begin_map()) {
            return fail(make_error(b_.status(), 0, "document larger than its size budget"));
        }
        while (pos_ < in_.size()) {
            POLYCODEC_TRY(line());
        }
        b_.end_map();
        if (!b_.ok()) {
            return fail(make_error(b_.status(), in_.size(), "document larger than its size budget"));
        }
        return {};
    }

private:
    void skip_space() {
        while (pos_ < in_.size() && space(in_[pos_])) {
            ++pos_;
        }
    }
    bool at_eol() const { return pos_ >= in_.size() || in_[pos_] == '\n' || in_[pos_] == '\r'; }
    void skip_eol() {
        if (pos_ < in_.size() && in_[pos_] == '\r') {
            ++pos_;
        }
        if (pos_ < in_.size() && in_[pos_] == '\n') {
            ++pos_;
        }
    }
    void skip_comment() {
        while (!at_eol()) {
            ++pos_;
        }
    }
    error unexpected(const char* expected) const {
        return make_error(pos_ >= in_.size() ? errc::unexpected_eof : errc::unexpected_char, pos_,
                          std::string("expected ") + expected + ", saw " + describe_at(in_, pos_));
    }

    result<void> line() {
        skip_space();
        if (at_eol()) {
            skip_eol();
            return {};
        }
        if (in_[pos_] == '#') {
            skip_comment();
            skip_eol();
            return {};
        }
        if (in_.substr(pos_, 6) == "export" && pos_ + 6 < in_.size() && space(in_[pos_ + 6])) {
            pos_ += 6;
            skip_space();
        }
        std::size_t key_start = pos_;
        while (pos_ < in_.size() && key_char(in_[pos_])) {
            ++pos_;
        }
        if (pos_ == key_start) {
            return fail(unexpected("a variable name"));
        }
        std::string_view key = in_.substr(key_start, pos_ - key_start);
        skip_space();
        if (pos_ >= in_.size() || in_[pos_] != '=') {
            return fail(unexpected("'=' after the variable name"));
        }
        ++pos_;
        skip_space();
        b_.add_string(key);
        if (pos_ < in_.size() && (in_[pos_] == '\'' || in_[pos_] == '"')) {
            POLYCODEC_TRY(quoted());
            skip_space();
            if (!at_eol() && in_[pos_] != '#') {
                return fail(make_error(errc::trailing_content, pos_,
                                       "expected end of line or a comment after the closing "
                                       "quote, saw " + describe_at(in_, pos_)));
            }
            skip_comment();
            skip_eol();
            return {};
        }
        // Unquoted: up to the end of the line or a comment ('#' at the start or after white
        // space), trimmed.
        std::size_t start = pos_;
        std::size_t end = pos_;
        while (!at_eol()) {
            char c = in_[pos_];
            if (c == '#' && (pos_ == start || space(in_[pos_ - 1]))) {
                break;
            }
            ++pos_;
            if (!space(c)) {
                end = pos_;
            }
        }
        b_.add_string(in_.substr(start, end - start));
        skip_comment();
        skip_eol();
        return {};
    }

    result<void> quoted() {
        char q = in_[pos_];
        std::size_t open = pos_++;
        std::size_t close = in_.find(q, pos_);
        if (q == '"') {
            close = pos_;
            while (close < in_.size() && in_[close] != '"') {
                close += in_[close] == '\\' ? 2 : 1;
            }
        }
        if (close >= in_.size()) {
            return fail(make_error(errc::unexpected_eof, open,
                                   q == '"' ? "unterminated double-quoted value"
                                            : "unterminated single-quoted value"));
        }
        char* out = b_.begin_string(close - pos_);
        char* w = out;
        while (pos_ < close) {
            char c = in_[pos_++];
            if (c == '\r' && pos_ < close && in_[pos_] == '\n') {
                continue;  // CRLF inside quotes reads as LF
            }
            if (q == '"' && c == '\\') {
                char e = in_[pos_++];
                if (const char d = dotenv_escapes[e]) {
                    *w++ = d;
                } else {  // other escapes stay as written, backslash included
                    *w++ = '\\';
                    *w++ = e;
                }
                continue;
            }
            *w++ = c;
        }
        b_.end_string(w);
        pos_ = close + 1;
        return {};
    }

    std::string_view in_;
    builder& b_;
    std::size_t pos_ = 0;
};

// Scratch buffers above this many bytes are released after a call.
constexpr std::size_t scratch_keep_bytes = std::size_t{16} << 20;

result<void> decode_dotenv(std::string_view in, builder& b, const decode_options& opt) {
    if (!opt.unflatten && !opt.infer) {
        dotenv_reader r(in, b);
        return r.run();
    }
    thread_local document flat;
    builder fb(flat, b.limits());
    dotenv_reader r(in, fb);
    POLYCODEC_TRY(r.run());
    // unflatten=true: KEY__SUB=v nests as {"KEY": {"SUB": v}}, the way the Rust envy crate
    // reads prefixed variables; infer=true types numbers and booleans as CSV does.
    unflatten_options uo;
    uo.separator = "__";
    uo.nest = opt.unflatten;
    uo.infer = opt.infer;
    return unflatten(flat.root(), b, uo);
}

// ---- writer ----

bool valid_key(std::string_view k) {
    if (k.empty()) {
        return false;
    }
    bool ok = true;
    for (char c : k) {
        ok &= key_char(c);
    }
    return ok;
}

// How a value is written: bare when a reader gives it back as it is; else in single quotes
// (literal, line feeds included) when it has no single quote and no CR; else in double quotes
// with \n \r \" \\ escapes.
// What each byte rules out: 1 a bare value, 2 single quotes.
constexpr struct env_byte_table {
    unsigned char v[256];
    constexpr env_byte_table() : v() {
        for (unsigned char c : {'#', '\n', '\\', '"', '`', '$'}) {
            v[c] = 1;
        }
        v[static_cast<unsigned char>('\'')] = 3;
        v[static_cast<unsigned char>('\r')] = 3;
    }
} env_bytes;

void write_value(output_buffer& out, std::string_view s) {
    unsigned seen = 0;
    for (char c : s) {
        seen |= env_bytes.v[static_cast<unsigned char>(c)];
    }
    const bool bare = (seen & 1) == 0 && !s.empty() && !space(s.front()) && !space(s.back()) &&
                      s.front() != '\'' && s.front() != '"' && s.front() != '`';
    const bool single_ok = (seen & 2) == 0;
    if (bare) {
        out.append(s);
        return;
    }
    if (single_ok) {
        out.push_back('\'');
        out.append(s);
        out.push_back('\'');
        return;
    }
    out.push_back('"');
    for (char c : s) {
        if (const char letter = dotenv_out_escapes.letter_of(c)) {
            out.push_back('\\');
            out.push_back(letter);
        } else {
            out.push_back(c);
        }
    }
    out.push_back('"');
}

// The writer's strings, reused per thread across calls (cleared on entry).
struct env_write_scratch {
    std::string prefix, key_text, text;
};

void release_if_large(std::string& s) {
    if (s.capacity() > scratch_keep_bytes) {
        std::string().swap(s);
    }
}

class dotenv_writer {
public:
    dotenv_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}
    ~dotenv_writer() {
        release_if_large(scratch_.prefix);
        release_if_large(scratch_.key_text);
        release_if_large(scratch_.text);
    }
    dotenv_writer(const dotenv_writer&) = delete;
    dotenv_writer& operator=(const dotenv_writer&) = delete;

    step write_map(value m, std::size_t prefix_len, int depth) {
        for (auto [k, v] : m.entries()) {
            std::string_view key;
            if (k.kind() == kind::bytes || k.kind() == kind::float64 || k.is_bool() ||
                !textinfer::scalar_view(k, key_text_, key)) {
                POLYCODEC_TRY_ASSIGN(text, key_fallback(opt_, k, "dotenv"));
                key_text_ = std::move(text);
                key = key_text_;
            }
            if (v.kind() == kind::map) {
                prefix_.resize(prefix_len);
                if (prefix_len != 0) {
                    prefix_.append("__");
                }
                prefix_.append(key);
                if (v.size() == 0) {
                    if (!allow_lossy(opt_, v, "empty_map_dropped", "empty map dropped")) {
                        return fail(unrepresentable(v, "an empty map is not representable in "
                                                       "dotenv"));
                    }
                    continue;
                }
                POLYCODEC_TRY(write_map(v, prefix_.size(), depth + 1));
                continue;
            }
            // The name: the key itself at the top level, else the prefix and the key.
            std::string_view name = key;
            if (prefix_len != 0) {
                prefix_.resize(prefix_len);
                prefix_.append("__");
                prefix_.append(key);
                name = prefix_;
            }
            if (!valid_key(name)) {
                if (name.data() != prefix_.data()) {
                    prefix_.assign(name);
                }
                if (!allow_lossy(opt_, k, "key_changed", "invalid name characters replaced by '_'")) {
                    return fail(unrepresentable(k, "variable name '" + prefix_ +
                                                       "' is not representable in dotenv "
                                                       "(letters, digits, '_', '.', '-' only)"));
                }
                for (char& c : prefix_) {
                    if (!key_char(c)) {
                        c = '_';
                    }
                }
                if (prefix_.empty()) {
                    prefix_ = "_";
                }
                name = prefix_;
            }
            POLYCODEC_TRY(write_entry(v, name));
        }
        return {};
    }

private:
    step write_entry(value v, std::string_view name) {
        value inner = v;
        std::string_view text;
        while (inner.kind() == kind::tagged) {
            if (!allow_lossy(opt_, inner, "tag_dropped", "tag dropped, inner value kept")) {
                return fail(unrepresentable(inner, "tag " + std::to_string(inner.tag()) +
                                                       " is not representable in dotenv"));
            }
            inner = inner.tagged_value();
        }
        if (inner.kind() == kind::null) {
            if (!allow_lossy(opt_, inner, "null_to_empty", "null written as an empty value")) {
                return fail(unrepresentable(inner, "null is not representable in dotenv"));
            }
        } else if (inner.kind() == kind::array || inner.kind() == kind::map) {
            if (!allow_lossy(opt_, inner, "array_to_json", "array written as JSON text")) {
                return fail(unrepresentable(inner, "an array is not representable in dotenv"));
            }
            output_buffer json;
            POLYCODEC_TRY(json_write_value(inner, json, opt_));
            text_.assign(json.str());
            text = text_;
        } else {
            textinfer::scalar_view(inner, text_, text);
        }
        out_.append(name);
        out_.push_back('=');
        write_value(out_, text);
        out_.push_back('\n');
        return {};
    }

    static env_write_scratch& thread_scratch() {
        return detail::thread_scratch<env_write_scratch, &env_write_scratch::prefix,
                                      &env_write_scratch::key_text, &env_write_scratch::text>();
    }

    output_buffer& out_;
    const encode_options& opt_;
    env_write_scratch& scratch_ = thread_scratch();
    std::string& prefix_ = scratch_.prefix;
    std::string& key_text_ = scratch_.key_text;
    std::string& text_ = scratch_.text;
};

result<void> encode_dotenv(const document& doc, output_buffer& out, const encode_options& opt) {
    value root = doc.root();
    POLYCODEC_TRY(detail::require_map_root(root, "dotenv"));
    dotenv_writer w(out, opt);
    return w.write_map(root, 0, 0).to_result();
}

}  // namespace

const codec_functions dotenv_codec{decode_dotenv, encode_dotenv};

}  // namespace polycodec::detail
