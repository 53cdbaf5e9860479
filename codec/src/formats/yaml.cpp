// YAML 1.2 (core schema). Decoding runs libyaml's event parser and resolves scalars, tags,
// anchors and aliases here; the encoder is our own block-style writer.
// See docs/formats/yaml.md for every decision (tags, timestamps, quoting).
#include <yaml.h>

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
#include "detail/lossy.hpp"
#include "detail/number.hpp"
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
    bool exp = false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        exp = true;
        ++i;
        if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
            ++i;
        }
        std::size_t e0 = i;
        while (i < t.size() && is_digit(t[i])) {
            ++i;
        }
        if (i == e0) {
            return false;
        }
    }
    if (i != t.size() || (!dot && !exp)) {
        return false;
    }
    double d = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec == std::errc::result_out_of_range) {
        // Overflow reads as infinity, underflow as zero (as the reference loaders do).
        bool huge = false;
        for (char c : t) {
            if (c == 'e' || c == 'E') {
                huge =
                    t.find('-', static_cast<std::size_t>(&c - t.data())) == std::string_view::npos;
                break;
            }
        }
        d = huge ? HUGE_VAL : 0.0;
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

// ---- reader ----

// libyaml's marks count characters, not bytes; its line breaks are LF, CR, CRLF, NEL, LS and
// PS, and a leading BOM is skipped. Converts a mark back to a byte offset.
std::size_t mark_to_offset(std::string_view in, const yaml_mark_t& m) {
    std::size_t i = in.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    std::size_t line = 0;
    while (line < m.line && i < in.size()) {
        unsigned char c = static_cast<unsigned char>(in[i]);
        if (c == '\n') {
            ++line;
            ++i;
        } else if (c == '\r') {
            ++line;
            i += (i + 1 < in.size() && in[i + 1] == '\n') ? 2 : 1;
        } else if (c == 0xC2 && i + 1 < in.size() &&
                   static_cast<unsigned char>(in[i + 1]) == 0x85) {
            ++line;
            i += 2;
        } else if (c == 0xE2 && in.substr(i, 3) >= "\xE2\x80\xA8" &&
                   in.substr(i, 3) <= "\xE2\x80\xA9") {
            ++line;
            i += 3;
        } else {
            ++i;
        }
    }
    for (std::size_t col = 0; col < m.column && i < in.size(); ++col) {
        unsigned char c = static_cast<unsigned char>(in[i]);
        i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    }
    return i < in.size() ? i : in.size();
}

struct anchor_info {
    std::size_t index = 0;  // tape index of the anchored element
    std::size_t size = 0;   // its words * 8 + payload bytes, once complete
    bool complete = false;
};

struct open_node {
    std::size_t index;        // tape index of the container (or tag) header
    std::size_t bytes_start;  // payload buffer size when it started
    std::string anchor;       // "" when none
    bool is_map;
    bool expect_key;  // maps: the next element is a key
};

class yaml_reader {
public:
    yaml_reader(std::string_view in, builder& b, const decode_options& opt)
        : in_(in), b_(b), opt_(opt) {
        // Aliases may copy at most this much in total (billion laughs defence).
        budget_ = in.size() * 10 + (std::size_t{1} << 20);
    }
    ~yaml_reader() {
        if (has_event_) {
            yaml_event_delete(&ev_);
        }
        if (initialized_) {
            yaml_parser_delete(&parser_);
        }
    }
    yaml_reader(const yaml_reader&) = delete;
    yaml_reader& operator=(const yaml_reader&) = delete;

    result<void> run() {
        std::size_t valid = utf8_valid_prefix(in_);
        if (valid != in_.size()) {
            return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
        }
        if (yaml_parser_initialize(&parser_) == 0) {
            throw std::bad_alloc();
        }
        initialized_ = true;
        // libyaml asserts on a null pointer, which an empty string_view may carry (found by
        // fuzz_http: an empty YAML body).
        static const unsigned char empty_input[1] = {0};
        yaml_parser_set_input_string(&parser_,
                                     in_.data() != nullptr
                                         ? reinterpret_cast<const unsigned char*>(in_.data())
                                         : empty_input,
                                     in_.size());
        yaml_parser_set_encoding(&parser_, YAML_UTF8_ENCODING);
        std::size_t documents = 0;
        for (;;) {
            POLYCODEC_TRY(next());
            switch (ev_.type) {
                case YAML_STREAM_START_EVENT:
                    if (opt_.multi && !b_.begin_array()) {
                        return container_limit();
                    }
                    break;
                case YAML_STREAM_END_EVENT:
                    if (opt_.multi) {
                        b_.end_array();
                    } else if (documents == 0) {
                        b_.add_null();  // an empty stream is one null document
                    }
                    return {};
                case YAML_DOCUMENT_START_EVENT:
                    if (documents == 1 && !opt_.multi) {
                        return fail(make_error(errc::trailing_content, offset(ev_.start_mark),
                                               "expected end of stream, saw a second document "
                                               "(decode a stream with multi=true)"));
                    }
                    ++documents;
                    anchors_.clear();
                    break;
                case YAML_DOCUMENT_END_EVENT:
                    break;
                default:
                    POLYCODEC_TRY(node());
            }
        }
    }

private:
    std::size_t offset(const yaml_mark_t& m) const { return mark_to_offset(in_, m); }

    result<void> next() {
        if (has_event_) {
            yaml_event_delete(&ev_);
            has_event_ = false;
        }
        if (yaml_parser_parse(&parser_, &ev_) == 0) {
            return parser_error();
        }
        has_event_ = true;
        return {};
    }

    result<void> parser_error() {
        std::string msg = parser_.problem != nullptr ? parser_.problem : "invalid YAML";
        if (parser_.context != nullptr) {
            msg = std::string(parser_.context) + ": " + msg;
        }
        for (char& c : msg) {
            c = to_lower(c);
        }
        std::size_t off;
        errc code = errc::unexpected_char;
        if (parser_.error == YAML_READER_ERROR) {
            off = parser_.problem_offset;
            code = errc::invalid_utf8;
            if (msg.find("control") != std::string::npos) {
                code = errc::unexpected_char;
            }
        } else if (parser_.error == YAML_MEMORY_ERROR) {
            throw std::bad_alloc();
        } else {
            off = offset(parser_.problem_mark);
        }
        if (off > in_.size()) {
            off = in_.size();
        }
        if (off >= in_.size() && parser_.error != YAML_READER_ERROR) {
            code = errc::unexpected_eof;
        }
        return fail(make_error(code, off, msg));
    }

    result<void> container_limit() {
        return fail(limit_error(b_, offset(ev_.start_mark)));
    }

    // Before an element: a map waiting for a key accepts only scalars.
    result<void> check_key_position(bool container) {
        if (!stack_.empty() && stack_.back().is_map) {
            bool is_key = stack_.back().expect_key;
            stack_.back().expect_key = !is_key;
            if (is_key && container) {
                return fail(make_error(errc::unrepresentable, offset(ev_.start_mark),
                                       "a sequence or mapping as a mapping key is not supported"));
            }
        }
        return {};
    }

    // Our own local tags for tagged values: !cbor/N, !msgpack/N, !bson/N, !tag/N.
    bool own_tag(std::string_view tag, tag_space& space, std::uint64_t& number) {
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

    // Opens our tags of the element (at most a few), returns how many were opened.
    result<int> open_tags(const unsigned char* tag_ptr) {
        if (tag_ptr == nullptr) {
            return 0;
        }
        tag_space space;
        std::uint64_t number = 0;
        if (!own_tag(reinterpret_cast<const char*>(tag_ptr), space, number)) {
            return 0;
        }
        if (!b_.begin_tagged(number, space)) {
            return fail(container_limit().error());
        }
        return 1;
    }

    void remember_anchor(const unsigned char* anchor, std::size_t index) {
        if (anchor != nullptr) {
            anchor_info& a = anchors_[reinterpret_cast<const char*>(anchor)];
            a.index = index;
            a.complete = false;
        }
    }
    void complete_anchor(const std::string& name, std::size_t index, std::size_t bytes_start) {
        auto it = anchors_.find(name);
        if (it != anchors_.end() && it->second.index == index) {
            it->second.complete = true;
            it->second.size =
                (b_.next_index() - index) * 8 + (b_.doc().bytes().size() - bytes_start);
        }
    }

    // One node event (scalar, alias, sequence or mapping start/end).
    result<void> node() {
        switch (ev_.type) {
            case YAML_SCALAR_EVENT:
                return scalar();
            case YAML_ALIAS_EVENT:
                return alias();
            case YAML_SEQUENCE_START_EVENT:
            case YAML_MAPPING_START_EVENT: {
                POLYCODEC_TRY(check_key_position(true));
                bool is_map = ev_.type == YAML_MAPPING_START_EVENT;
                const unsigned char* anchor =
                    is_map ? ev_.data.mapping_start.anchor : ev_.data.sequence_start.anchor;
                const unsigned char* tag =
                    is_map ? ev_.data.mapping_start.tag : ev_.data.sequence_start.tag;
                std::size_t start = b_.next_index();
                std::size_t bytes_start = b_.doc().bytes().size();
                auto tags = open_tags(tag);
                if (!tags) {
                    return fail(tags.error());
                }
                if (!(is_map ? b_.begin_map() : b_.begin_array())) {
                    return container_limit();
                }
                remember_anchor(anchor, start);
                stack_.push_back({start, bytes_start,
                                  anchor != nullptr ? reinterpret_cast<const char*>(anchor) : "",
                                  is_map, true});
                return {};
            }
            case YAML_SEQUENCE_END_EVENT:
            case YAML_MAPPING_END_EVENT: {
                open_node n = std::move(stack_.back());
                stack_.pop_back();
                if (n.is_map) {
                    b_.end_map();
                } else {
                    b_.end_array();
                }
                if (!n.anchor.empty()) {
                    complete_anchor(n.anchor, n.index, n.bytes_start);
                }
                if (!b_.ok()) {
                    return container_limit();
                }
                return {};
            }
            default:
                return fail(make_error(errc::unexpected_char, offset(ev_.start_mark),
                                       "unexpected parser event"));
        }
    }

    result<void> alias() {
        std::size_t at = offset(ev_.start_mark);
        std::string name = reinterpret_cast<const char*>(ev_.data.alias.anchor);
        auto it = anchors_.find(name);
        if (it == anchors_.end()) {
            return fail(
                make_error(errc::unexpected_char, at, "alias *" + name + " refers to no anchor"));
        }
        if (!it->second.complete) {
            return fail(make_error(errc::unexpected_char, at,
                                   "alias *" + name + " refers to a node that contains it"));
        }
        value src(&b_.doc(), it->second.index);
        POLYCODEC_TRY(check_key_position(src.is_container()));
        if (it->second.size > budget_) {
            return fail(make_error(errc::size_exceeded, at,
                                   "aliases expand beyond the budget of " +
                                       std::to_string(in_.size() * 10 + (std::size_t{1} << 20)) +
                                       " bytes"));
        }
        budget_ -= it->second.size;
        if (!b_.add_copy(src)) {
            return fail(
                make_error(errc::size_exceeded, at, "document larger than its size budget"));
        }
        return {};
    }

    result<void> scalar() {
        POLYCODEC_TRY(check_key_position(false));
        const auto& sc = ev_.data.scalar;
        std::string_view text(reinterpret_cast<const char*>(sc.value), sc.length);
        std::size_t start = b_.next_index();
        std::size_t bytes_start = b_.doc().bytes().size();
        auto tags = open_tags(sc.tag);
        if (!tags) {
            return fail(tags.error());
        }
        remember_anchor(sc.anchor, start);
        std::string_view tag =
            sc.tag != nullptr ? reinterpret_cast<const char*>(sc.tag) : std::string_view();
        POLYCODEC_TRY(resolve(text, tag, sc.style == YAML_PLAIN_SCALAR_STYLE));
        if (sc.anchor != nullptr) {
            complete_anchor(reinterpret_cast<const char*>(sc.anchor), start, bytes_start);
        }
        return {};
    }

    result<void> resolve(std::string_view text, std::string_view tag, bool plain) {
        if (tag.substr(0, yaml_tag_prefix.size()) == yaml_tag_prefix) {
            return resolve_tagged(text, tag.substr(yaml_tag_prefix.size()));
        }
        // A non-specific "!" tag, a quoted scalar or any other tag: a string; a plain scalar
        // without a tag resolves by the core schema. Unknown tags are dropped.
        if (!plain || tag == "!") {
            b_.add_string(text);
            return {};
        }
        // An unknown (local or global) tag on a plain scalar is dropped: the value resolves
        // as if untagged (docs/formats/yaml.md).
        resolve_plain(text);
        return {};
    }

    void resolve_plain(std::string_view s) {
        if (core_null(s)) {
            b_.add_null();
            return;
        }
        if (int v = core_bool(s); v >= 0) {
            b_.add_bool(v == 1);
            return;
        }
        char c = s[0];
        if (is_digit(c) || c == '-' || c == '+' || c == '.') {
            if (add_core_int(b_, s) || add_core_float(b_, s)) {
                return;
            }
        }
        b_.add_string(s);
    }

    result<void> bad_value(const char* what) {
        return fail(make_error(errc::invalid_string, offset(ev_.start_mark),
                               std::string("invalid ") + what + " value"));
    }

    result<void> resolve_tagged(std::string_view text, std::string_view name) {
        if (name == "str") {
            b_.add_string(text);
        } else if (name == "null") {
            if (!core_null(text)) {
                return bad_value("!!null");
            }
            b_.add_null();
        } else if (name == "bool") {
            int v = core_bool(text);
            if (v < 0) {
                return bad_value("!!bool");
            }
            b_.add_bool(v == 1);
        } else if (name == "int") {
            if (text.empty() || !add_core_int(b_, text)) {
                return bad_value("!!int");
            }
        } else if (name == "float") {
            if (text.empty() || !(add_core_float(b_, text))) {
                // An integer written as !!float: its value as a double.
                double d = 0;
                std::string_view t = text.size() > 1 && text[0] == '+' ? text.substr(1) : text;
                auto r = std::from_chars(t.data(), t.data() + t.size(), d);
                if (text.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
                    return bad_value("!!float");
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
                return bad_value("!!binary");
            }
            b_.add_bytes(raw);
        } else if (name == "timestamp") {
            timestamp_kind k;
            if (!parse_timestamp(text, scratch_, k)) {
                return bad_value("!!timestamp");
            }
            b_.add_timestamp(scratch_, k);
        } else {
            // !!seq, !!map on a scalar, !!set, !!omap ... : keep the text.
            b_.add_string(text);
        }
        return {};
    }

    std::string_view in_;
    builder& b_;
    const decode_options& opt_;
    yaml_parser_t parser_{};
    yaml_event_t ev_{};
    bool has_event_ = false;
    bool initialized_ = false;
    std::vector<open_node> stack_;
    std::unordered_map<std::string, anchor_info> anchors_;
    std::size_t budget_;
    std::string scratch_;
};

result<void> decode_yaml(std::string_view in, builder& b, const decode_options& opt) {
    yaml_reader r(in, b, opt);
    return r.run();
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
    out.push_back('\'');
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\'') {
            out.append(s.data() + run, i + 1 - run);
            out.push_back('\'');
            run = i + 1;
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('\'');
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

const char* tag_prefix(tag_space s) {
    switch (s) {
        case tag_space::cbor:
            return "!cbor/";
        case tag_space::msgpack_ext:
            return "!msgpack/";
        case tag_space::bson:
            return "!bson/";
        default:
            return "!tag/";
    }
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
        switch (k) {
            case kind::null:
                std::memcpy(w, "null", 4);
                w += 4;
                i += 1;
                break;
            case kind::boolean_false:
                std::memcpy(w, "false", 5);
                w += 5;
                i += 1;
                break;
            case kind::boolean_true:
                std::memcpy(w, "true", 4);
                w += 4;
                i += 1;
                break;
            case kind::int64: {
                const std::uint64_t u = t[i + 1];
                if (static_cast<std::int64_t>(u) < 0) {
                    *w++ = '-';
                    w = write_uint_digits(w, 0 - u);
                } else {
                    w = write_uint_digits(w, u);
                }
                i += 2;
                break;
            }
            case kind::uint64:
                w = write_uint_digits(w, t[i + 1]);
                i += 2;
                break;
            case kind::float64: {
                double d;
                std::memcpy(&d, &t[i + 1], 8);
                if (std::isfinite(d)) [[likely]] {
                    w += yaml_float_chars(w, d);
                } else {
                    sync(w);
                    write_float(out_, d);
                    resume();
                }
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

    // A map key at `indent`; a key longer than 1000 bytes takes the explicit "? " form.
    result<void> write_key_checked(value key, int indent) {
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
