// Record framers of the text formats: ndjson (lines), json (elements of a top-level array, or
// RFC 7464 json-seq), csv (rows), yaml (entries of a top-level block or flow sequence, or the
// documents of a stream with multi=true). A framer only finds boundaries; the format's own
// decoder reads each record, so what is valid and every error message stay the decoder's.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "detail/describe.hpp"
#include "stream/framer.hpp"

namespace polycodec::stream_detail {
namespace {


bool json_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The bytes the JSON element scan stops at outside strings.
constexpr std::array<bool, 256> json_structural = [] {
    std::array<bool, 256> t{};
    for (unsigned char c : {'"', '[', ']', '{', '}', ','}) {
        t[c] = true;
    }
    return t;
}();

// The first '"' or '\\' in d[i, n), or n; eight bytes at a time (the lowest byte flagged by
// the has-zero-byte test is exact).
std::size_t find_quote_or_backslash(const char* d, std::size_t i, std::size_t n) {
    if constexpr (std::endian::native == std::endian::little) {
        constexpr std::uint64_t ones = 0x0101010101010101ULL;
        constexpr std::uint64_t highs = 0x8080808080808080ULL;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t w;
            std::memcpy(&w, d + i, 8);
            std::uint64_t q = w ^ (ones * static_cast<unsigned char>('"'));
            std::uint64_t b = w ^ (ones * static_cast<unsigned char>('\\'));
            std::uint64_t hit = (((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
            if (hit != 0) {
                return i + static_cast<std::size_t>(std::countr_zero(hit) >> 3);
            }
        }
    }
    while (i < n && d[i] != '"' && d[i] != '\\') {
        ++i;
    }
    return i;
}

std::string saw(std::string_view buf, std::size_t i) { return detail::describe_byte_at(buf, i); }

constexpr std::string_view bom = "\xEF\xBB\xBF";

// ---- ndjson: one record per line; blank lines (space, tab, CR only) hold none ----

class ndjson_framer final : public framer {
public:
    result<frame> next(std::string_view buf, std::size_t pos, bool eof) override {
        if (pos == 0 && !checked_bom_) {
            if (buf.size() < 3 && !eof) {
                return need_more();
            }
            checked_bom_ = true;
            if (buf.substr(0, 3) == bom) {
                return fail(make_error(errc::unexpected_char, 0,
                                       "a byte order mark is not allowed before JSON text"));
            }
        }
        if (pos == buf.size()) {
            return eof ? end_of_stream() : need_more();
        }
        std::size_t from = pos + scanned_;
        const void* nl = std::memchr(buf.data() + from, '\n', buf.size() - from);
        std::size_t e;
        std::size_t next;
        if (nl == nullptr) {
            if (!eof) {
                scanned_ = buf.size() - pos;
                return need_more();
            }
            e = next = buf.size();
        } else {
            e = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data());
            next = e + 1;
        }
        scanned_ = 0;
        for (std::size_t i = pos; i < e; ++i) {
            char c = buf[i];
            if (c != ' ' && c != '\t' && c != '\r') {
                return record(pos, e, next);
            }
        }
        return skip_to(next);
    }
    format_id decode_as() const noexcept override { return format_id::json; }

private:
    std::size_t scanned_ = 0;
    bool checked_bom_ = false;
};

// ---- json: the elements of a top-level array, or RFC 7464 json-seq ----

class json_framer final : public framer {
public:
    explicit json_framer(bool seq) : seq_(seq) {}

    result<frame> next(std::string_view buf, std::size_t pos, bool eof) override {
        if (stage_ == stage::seq) {
            return next_seq(buf, pos, eof);
        }
        std::size_t i = pos;
        if (stage_ != stage::element) {
            while (i < buf.size() && json_ws(buf[i])) {
                ++i;
            }
            if (i > pos) {
                return skip_to(i);
            }
            if (i == buf.size()) {
                if (!eof) {
                    return need_more();
                }
                switch (stage_) {
                    case stage::done:
                        return end_of_stream();
                    case stage::start:
                        return fail(make_error(errc::unexpected_eof, i,
                                               seq_ ? "expected a json-seq record (RS, 0x1E)"
                                                    : "expected '[' (stream mode reads a "
                                                      "top-level array, or json-seq with "
                                                      "seq=true), the input is empty"));
                    default:
                        return fail(make_error(errc::unexpected_eof, i,
                                               stage_ == stage::after_element
                                                   ? "expected ',' or ']', the input ended"
                                                   : "expected a value, the input ended"));
                }
            }
        }
        char c = buf[i];
        switch (stage_) {
            case stage::start:
                if (c == '\x1e') {
                    stage_ = stage::seq;
                    return next_seq(buf, pos, eof);
                }
                if (seq_) {
                    return fail(make_error(errc::unexpected_char, i,
                                           "a json-seq record starts with RS (0x1E), saw " +
                                               saw(buf, i)));
                }
                if (c != '[') {
                    return fail(make_error(errc::unexpected_char, i,
                                           "stream mode reads the elements of a top-level "
                                           "array (or json-seq, RS-separated), expected '[', "
                                           "saw " +
                                               saw(buf, i)));
                }
                stage_ = stage::first;
                return skip_to(i + 1);
            case stage::first:
                if (c == ']') {
                    stage_ = stage::done;
                    return skip_to(i + 1);
                }
                stage_ = stage::element;
                return scan_element(buf, pos, eof);
            case stage::after_comma:
                stage_ = stage::element;
                return scan_element(buf, pos, eof);
            case stage::element:
                return scan_element(buf, pos, eof);
            case stage::after_element:
                if (c == ',') {
                    stage_ = stage::after_comma;
                    return skip_to(i + 1);
                }
                if (c == ']') {
                    stage_ = stage::done;
                    return skip_to(i + 1);
                }
                return fail(make_error(errc::unexpected_char, i,
                                       "expected ',' or ']' after an array element, saw " +
                                           saw(buf, i)));
            case stage::done:
                return fail(make_error(errc::trailing_content, i,
                                       "content after the top-level array: " + saw(buf, i)));
            case stage::seq:
                break;
        }
        return fail(make_error(errc::malformed, i, "json framer in an unknown state"));
    }

    format_id decode_as() const noexcept override { return format_id::json; }

private:
    enum class stage : std::uint8_t { start, first, after_comma, element, after_element, done, seq };

    // One element from `pos`: up to the ',' or ']' at depth 0 outside strings. What lies
    // between is the decoder's to judge.
    result<frame> scan_element(std::string_view buf, std::size_t pos, bool eof) {
        std::size_t i = pos + scanned_;
        const char* d = buf.data();
        std::size_t n = buf.size();
        while (i < n) {
            if (in_string_) {
                // To the next quote or backslash.
                i = find_quote_or_backslash(d, i, n);
                if (i == n) {
                    break;
                }
                if (d[i] == '\\') {
                    if (i + 1 == n) {
                        break;  // the escaped byte has not arrived
                    }
                    i += 2;
                    continue;
                }
                in_string_ = false;
                ++i;
                continue;
            }
            while (i < n && !json_structural[static_cast<unsigned char>(d[i])]) {
                ++i;
            }
            if (i == n) {
                break;
            }
            char c = d[i];
            if (c == '"') {
                in_string_ = true;
            } else if (c == '[' || c == '{') {
                ++depth_;
            } else if (c == ']' || c == '}') {
                if (depth_ == 0) {
                    if (c == ']') {
                        return element_at(pos, i);
                    }
                    // `[1}`: the decoder reports it at the right place.
                    return element_at(pos, i + 1);
                }
                --depth_;
            } else if (c == ',' && depth_ == 0) {
                return element_at(pos, i);
            }
            ++i;
        }
        if (!eof) {
            scanned_ = i - pos;
            return need_more();
        }
        // The input ended inside the element: the decoder says where and why.
        return element_at(pos, n);
    }

    frame element_at(std::size_t pos, std::size_t e) {
        scanned_ = 0;
        depth_ = 0;
        in_string_ = false;
        stage_ = stage::after_element;
        return record(pos, e, e);
    }

    // RFC 7464: RS, a JSON text, usually LF; a record ends at the next RS.
    result<frame> next_seq(std::string_view buf, std::size_t pos, bool eof) {
        if (pos == buf.size()) {
            return eof ? end_of_stream() : need_more();
        }
        if (scanned_ == 0) {
            if (buf[pos] != '\x1e') {
                if (json_ws(buf[pos])) {
                    return skip_to(pos + 1);
                }
                return fail(make_error(errc::unexpected_char, pos,
                                       "a json-seq record starts with RS (0x1E), saw " +
                                           saw(buf, pos)));
            }
            scanned_ = 1;
        }
        std::size_t from = pos + scanned_;
        const void* rs = std::memchr(buf.data() + from, '\x1e', buf.size() - from);
        std::size_t e;
        if (rs == nullptr) {
            if (!eof) {
                scanned_ = buf.size() - pos;
                return need_more();
            }
            e = buf.size();
        } else {
            e = static_cast<std::size_t>(static_cast<const char*>(rs) - buf.data());
        }
        scanned_ = 0;
        for (std::size_t i = pos + 1; i < e; ++i) {
            if (!json_ws(buf[i])) {
                return record(pos + 1, e, e);
            }
        }
        return skip_to(e);  // RS RS: an empty record, ignored (RFC 7464 section 2.1)
    }

    bool seq_;
    stage stage_ = stage::start;
    std::size_t scanned_ = 0;
    std::uint32_t depth_ = 0;
    bool in_string_ = false;
};

// ---- csv: one record per row ----
//
// Rows end at CR, LF or CRLF outside quotes; a quote opens a quoted field only at a field's
// start (as the reader has it). Each row is decoded together with the header row (header
// present), or with the first row (header absent, so that one-column blank lines and ragged
// rows are judged as in the whole table), and the row's own value is taken from the result.

class csv_framer final : public framer {
public:
    explicit csv_framer(const decode_options& opt)
        : header_(opt.csv_header),
          delim_(opt.csv_delimiter != 0 ? opt.csv_delimiter : opt.csv_tab ? '\t' : ',') {}

    result<frame> next(std::string_view buf, std::size_t pos, bool eof) override {
        if (pos == 0 && !checked_bom_) {
            if (buf.size() < 3 && !eof) {
                return need_more();
            }
            checked_bom_ = true;
            if (buf.substr(0, 3) == bom) {
                return skip_to(3);
            }
        }
        if (pos == buf.size()) {
            return eof ? end_of_stream() : need_more();
        }
        if (!have_first_ && (buf[pos] == '\r' || buf[pos] == '\n')) {
            return skip_to(pos + 1);  // blank lines before the first row hold nothing
        }
        std::size_t i = pos + scanned_;
        const char* d = buf.data();
        std::size_t n = buf.size();
        std::size_t line_end = n;
        std::size_t next = n;
        bool found = false;
        while (i < n) {
            if (in_quotes_) {
                const void* q = std::memchr(d + i, '"', n - i);
                if (q == nullptr) {
                    i = n;
                    break;
                }
                std::size_t qp = static_cast<std::size_t>(static_cast<const char*>(q) - d);
                if (qp + 1 == n) {
                    i = qp;  // "" or the closing quote: the next byte decides
                    break;
                }
                if (d[qp + 1] == '"') {
                    i = qp + 2;
                    continue;
                }
                in_quotes_ = false;
                field_start_ = false;
                i = qp + 1;
                continue;
            }
            char c = d[i];
            if (c == '\n') {
                line_end = i;
                next = i + 1;
                found = true;
                break;
            }
            if (c == '\r') {
                if (i + 1 == n && !eof) {
                    break;  // a CRLF may be split
                }
                line_end = i;
                next = i + 1 < n && d[i + 1] == '\n' ? i + 2 : i + 1;
                found = true;
                break;
            }
            if (c == '"' && field_start_) {
                in_quotes_ = true;
            } else {
                field_start_ = c == delim_;
            }
            ++i;
        }
        if (!found && !eof) {
            scanned_ = i - pos;
            return need_more();
        }
        (void)line_end;
        scanned_ = 0;
        in_quotes_ = false;
        field_start_ = true;
        frame f = record(pos, next, next);
        f.unwrap = true;
        if (!have_first_) {
            have_first_ = true;
            first_.assign(buf.substr(pos, next - pos));
            if (!found) {
                first_.push_back('\n');  // the last line (at eof) may lack its line end
            }
            return f;  // the header alone decodes to no record; the first row to one
        }
        f.prefix = first_;
        f.drop = header_ ? 0 : 1;
        return f;
    }

    format_id decode_as() const noexcept override { return format_id::csv; }

private:
    bool header_;
    char delim_;
    bool checked_bom_ = false;
    bool have_first_ = false;
    std::string first_;  // the header row, or the first row without a header
    std::size_t scanned_ = 0;
    bool in_quotes_ = false;
    bool field_start_ = true;
};

// ---- yaml ----
//
// Block sequence: an entry starts at a line beginning with "-" followed by a space, a tab or
// the line end; it runs to the next such line or a document marker ("---", "..."). Each entry
// is decoded as a one-entry sequence. An alias must refer to an anchor of its own record.
// Flow sequence: the elements between '[' and ']', each decoded as "[element]".
// multi=true: each document (split at "---" and after "...") is one record.

bool yaml_blank(char c) { return c == ' ' || c == '\t'; }

struct line_view {
    std::size_t begin = 0;
    std::size_t end = 0;   // before the line break
    std::size_t next = 0;  // after it
    bool complete = false;
};

// The line starting at `i`; incomplete when no line break has arrived (and not at eof).
line_view line_at(std::string_view buf, std::size_t i, bool eof) {
    line_view l;
    l.begin = i;
    const void* nl = std::memchr(buf.data() + i, '\n', buf.size() - i);
    if (nl == nullptr) {
        l.end = l.next = buf.size();
        l.complete = eof;
        return l;
    }
    l.end = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data());
    l.next = l.end + 1;
    if (l.end > i && buf[l.end - 1] == '\r') {
        --l.end;
    }
    l.complete = true;
    return l;
}

// A line starting with `marker` ("---", "...") followed by white space or the line end.
bool is_marker(std::string_view line, std::string_view marker) {
    return line.substr(0, 3) == marker && (line.size() == 3 || yaml_blank(line[3]));
}
bool is_entry(std::string_view line) {
    return !line.empty() && line[0] == '-' && (line.size() == 1 || yaml_blank(line[1]));
}
// Blank, or a comment.
bool is_void(std::string_view line) {
    for (char c : line) {
        if (c == '#') {
            return true;
        }
        if (!yaml_blank(c)) {
            return false;
        }
    }
    return true;
}
// "---" alone (or with a comment).
bool is_bare_start(std::string_view line) {
    return is_marker(line, "---") && is_void(line.substr(3));
}

class yaml_framer final : public framer {
public:
    explicit yaml_framer(bool multi) : multi_(multi) {}

    result<frame> next(std::string_view buf, std::size_t pos, bool eof) override {
        if (pos == 0 && !checked_bom_) {
            if (buf.size() < 3 && !eof) {
                return need_more();
            }
            checked_bom_ = true;
            if (buf.substr(0, 3) == bom) {
                return skip_to(3);
            }
        }
        if (multi_) {
            return next_document(buf, pos, eof);
        }
        switch (stage_) {
            case stage::prelude:
                return prelude(buf, pos, eof);
            case stage::block:
                return block_entry(buf, pos, eof);
            case stage::flow:
                return flow(buf, pos, eof);
            case stage::after:
                return after(buf, pos, eof);
        }
        return fail(make_error(errc::malformed, pos, "yaml framer in an unknown state"));
    }

    format_id decode_as() const noexcept override { return format_id::yaml; }

private:
    enum class stage : std::uint8_t { prelude, block, flow, after };

    result<frame> prelude(std::string_view buf, std::size_t pos, bool eof) {
        if (pos == buf.size()) {
            if (!eof) {
                return need_more();
            }
            return fail(make_error(errc::unexpected_eof, pos,
                                   "stream mode reads the entries of a top-level sequence (or "
                                   "the documents of a stream with multi=true); the input has "
                                   "no content"));
        }
        line_view l = line_at(buf, pos, eof);
        std::string_view text = buf.substr(l.begin, l.end - l.begin);
        if (!l.complete && text.size() < 4) {
            return need_more();  // not enough to tell what the line is
        }
        if (is_entry(text)) {
            stage_ = stage::block;
            return block_entry(buf, pos, eof);
        }
        std::size_t s = 0;
        while (s < text.size() && yaml_blank(text[s])) {
            ++s;
        }
        if (s < text.size() && text[s] == '[') {
            stage_ = stage::flow;
            return skip_to(pos + s + 1);
        }
        if (!l.complete) {
            return need_more();
        }
        if (is_void(text) || (text.size() > 0 && text[0] == '%' && !seen_start_)) {
            return skip_to(l.next);
        }
        if (is_bare_start(text) && !seen_start_) {
            seen_start_ = true;
            return skip_to(l.next);
        }
        return fail(make_error(errc::unexpected_char, pos,
                               "stream mode reads the entries of a top-level sequence (a line "
                               "starting with \"- \", or '['), or the documents of a stream "
                               "with multi=true; saw " +
                                   saw(buf, pos)));
    }

    // From `pos` (a "-" line) to the next entry or document marker at column 0.
    result<frame> block_entry(std::string_view buf, std::size_t pos, bool eof) {
        if (pos == buf.size()) {
            return eof ? end_of_stream() : need_more();
        }
        line_view first = line_at(buf, pos, eof);
        std::string_view first_text = buf.substr(first.begin, first.end - first.begin);
        if (first.complete || first_text.size() >= 4) {
            if (is_marker(first_text, "---") || is_marker(first_text, "...")) {
                stage_ = stage::after;
                return after(buf, pos, eof);
            }
            if (scanned_ == 0 && !is_entry(first_text) && first.complete) {
                if (is_void(first_text)) {
                    return skip_to(first.next);  // comments between entries
                }
                return fail(make_error(errc::unexpected_char, pos,
                                       "expected a sequence entry (\"- \") at the start of the "
                                       "line, saw " +
                                           saw(buf, pos)));
            }
        }
        if (!first.complete) {
            return need_more();
        }
        std::size_t i = scanned_ == 0 ? first.next : pos + scanned_;
        while (i < buf.size()) {
            line_view l = line_at(buf, i, eof);
            std::string_view text = buf.substr(l.begin, l.end - l.begin);
            if (!l.complete && text.size() < 4) {
                scanned_ = i - pos;
                return need_more();
            }
            if (is_entry(text) || is_marker(text, "---") || is_marker(text, "...")) {
                scanned_ = 0;
                return entry(pos, i);
            }
            if (!l.complete) {
                scanned_ = i - pos;
                return need_more();
            }
            i = l.next;
        }
        if (!eof) {
            scanned_ = i - pos;
            return need_more();
        }
        scanned_ = 0;
        return entry(pos, buf.size());
    }

    static frame entry(std::size_t b, std::size_t e) {
        frame f = record(b, e, e);
        f.unwrap = true;
        return f;
    }

    // After the sequence's document: only "...", comments and blank lines may follow.
    result<frame> after(std::string_view buf, std::size_t pos, bool eof) {
        if (pos == buf.size()) {
            return eof ? end_of_stream() : need_more();
        }
        line_view l = line_at(buf, pos, eof);
        if (!l.complete) {
            return need_more();
        }
        std::string_view text = buf.substr(l.begin, l.end - l.begin);
        if (is_void(text) || (is_marker(text, "...") && is_void(text.substr(3)))) {
            return skip_to(l.next);
        }
        return fail(make_error(errc::trailing_content, pos,
                               "a second YAML document follows the sequence (decode a stream "
                               "of documents with multi=true)"));
    }

    // Flow sequence: elements at depth 0 between ',' outside quotes and comments.
    result<frame> flow(std::string_view buf, std::size_t pos, bool eof) {
        const char* d = buf.data();
        std::size_t n = buf.size();
        if (flow_done_) {
            // After ']': white space, comments and "..." only.
            std::size_t i = pos;
            while (i < n && (yaml_blank(d[i]) || d[i] == '\n' || d[i] == '\r')) {
                ++i;
            }
            if (i > pos) {
                return skip_to(i);
            }
            if (i == n) {
                return eof ? end_of_stream() : need_more();
            }
            stage_ = stage::after;
            return after(buf, pos, eof);
        }
        if (scanned_ == 0) {
            std::size_t i = pos;
            while (i < n && (yaml_blank(d[i]) || d[i] == '\n' || d[i] == '\r' || d[i] == ',')) {
                if (d[i] == ',') {
                    if (!after_element_) {
                        return fail(make_error(errc::unexpected_char, i,
                                               "expected a sequence element, saw ','"));
                    }
                    after_element_ = false;
                }
                ++i;
            }
            if (i > pos) {
                return skip_to(i);
            }
            if (i == n) {
                if (!eof) {
                    return need_more();
                }
                return fail(make_error(errc::unexpected_eof, i,
                                       "the flow sequence is not closed (expected ']')"));
            }
            if (d[i] == ']') {
                flow_done_ = true;
                return skip_to(i + 1);
            }
            if (d[i] == '#') {
                line_view l = line_at(buf, i, eof);
                if (!l.complete) {
                    return need_more();
                }
                return skip_to(l.next);
            }
            if (after_element_) {
                return fail(make_error(errc::unexpected_char, i,
                                       "expected ',' or ']' after a sequence element, saw " +
                                           saw(buf, i)));
            }
            token_start_ = true;
        }
        std::size_t i = pos + scanned_;
        while (i < n) {
            if (comment_) {
                // To the line end, which may be in a later chunk.
                const void* nl = std::memchr(d + i, '\n', n - i);
                if (nl == nullptr) {
                    i = n;
                    break;
                }
                i = static_cast<std::size_t>(static_cast<const char*>(nl) - d) + 1;
                comment_ = false;
                token_start_ = true;
                continue;
            }
            char c = d[i];
            if (quote_ != 0) {
                if (quote_ == '"') {
                    if (c == '\\') {
                        if (i + 1 == n) {
                            break;
                        }
                        i += 2;
                        continue;
                    }
                    if (c == '"') {
                        quote_ = 0;
                    }
                } else if (c == '\'') {
                    if (i + 1 == n) {
                        break;  // '' or the closing quote
                    }
                    if (d[i + 1] == '\'') {
                        i += 2;
                        continue;
                    }
                    quote_ = 0;
                }
                ++i;
                continue;
            }
            if (c == '#' && (i == pos || yaml_blank(d[i - 1]) || d[i - 1] == '\n')) {
                comment_ = true;
                ++i;
                continue;
            }
            if ((c == '"' || c == '\'') && token_start_) {
                quote_ = c;
            } else if (c == '[' || c == '{') {
                ++depth_;
            } else if (c == ']' || c == '}') {
                if (depth_ == 0) {
                    return flow_element(pos, i);
                }
                --depth_;
            } else if (c == ',' && depth_ == 0) {
                return flow_element(pos, i);
            }
            token_start_ = c == '[' || c == '{' || c == ',' || c == ':' || c == '?' ||
                           c == '-' || yaml_blank(c) || c == '\n' || c == '\r'
                               ? true
                               : (token_start_ && false);
            ++i;
        }
        if (!eof) {
            scanned_ = i - pos;
            return need_more();
        }
        return flow_element(pos, n);
    }

    frame flow_element(std::size_t pos, std::size_t e) {
        scanned_ = 0;
        depth_ = 0;
        quote_ = 0;
        comment_ = false;
        after_element_ = true;
        frame f = record(pos, e, e);
        f.prefix = "[";
        f.suffix = "]";
        f.unwrap = true;
        return f;
    }

    // multi=true: one document per record.
    result<frame> next_document(std::string_view buf, std::size_t pos, bool eof) {
        if (pos == buf.size()) {
            return eof ? end_of_stream() : need_more();
        }
        std::size_t i = pos + scanned_;
        while (i < buf.size()) {
            line_view l = line_at(buf, i, eof);
            std::string_view text = buf.substr(l.begin, l.end - l.begin);
            if (!l.complete && text.size() < 4) {
                break;
            }
            if (is_marker(text, "---")) {
                if (doc_content_ || doc_started_) {
                    return document_at(pos, i);
                }
                if (!l.complete) {
                    break;  // the whole line says whether the document has content on it
                }
                doc_started_ = true;
                doc_content_ = !is_void(text.substr(3));
            } else if (is_marker(text, "...")) {
                if (!l.complete) {
                    break;
                }
                if (doc_content_ || doc_started_) {
                    return document_at(pos, l.next);
                }
                i = l.next;
                continue;
            } else if (!l.complete) {
                break;
            } else if (!is_void(text) && !(text[0] == '%' && !doc_content_)) {
                doc_content_ = true;
            }
            if (!l.complete) {
                break;
            }
            i = l.next;
        }
        if (!eof) {
            scanned_ = i - pos;
            return need_more();
        }
        if (doc_content_ || doc_started_) {
            return document_at(pos, buf.size());
        }
        scanned_ = 0;
        return skip_to(buf.size());  // comments and directives only
    }

    frame document_at(std::size_t pos, std::size_t e) {
        scanned_ = 0;
        doc_content_ = false;
        doc_started_ = false;
        return record(pos, e, e);
    }

    bool multi_;
    bool checked_bom_ = false;
    stage stage_ = stage::prelude;
    bool seen_start_ = false;
    std::size_t scanned_ = 0;
    // flow
    std::uint32_t depth_ = 0;
    char quote_ = 0;
    bool comment_ = false;  // inside a comment (to the line end) of the element being scanned
    bool token_start_ = true;
    bool after_element_ = false;
    bool flow_done_ = false;
    // multi
    bool doc_content_ = false;
    bool doc_started_ = false;
};

}  // namespace

std::unique_ptr<framer> make_ndjson_framer() { return std::make_unique<ndjson_framer>(); }
std::unique_ptr<framer> make_json_framer(bool seq) { return std::make_unique<json_framer>(seq); }
std::unique_ptr<framer> make_csv_framer(const decode_options& opt) {
    return std::make_unique<csv_framer>(opt);
}
std::unique_ptr<framer> make_yaml_framer(bool multi) {
    return std::make_unique<yaml_framer>(multi);
}

}  // namespace polycodec::stream_detail
