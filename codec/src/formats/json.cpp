// JSON (RFC 8259). Decoding first parses with simdjson's DOM parser (run-time dispatched kernel)
// and copies its tape into the Document in one loop; what that refuses goes to simdjson's
// on-demand API, which appends straight into the Document; when simdjson refuses the input, the
// own recursive-descent reader below reads it again: it accepts what simdjson cannot hold
// (integers beyond 64 bits become bignums) and reports the exact byte offset and message of
// every error. docs/formats/json.md has the measurements behind this choice.
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "detail/base64.hpp"
#include "detail/extjson.hpp"
#include "detail/lossy.hpp"
#include "detail/out_room.hpp"
#include "detail/raw_scalar.hpp"
#include "detail/text.hpp"
#include "detail/text_reader.hpp"
#include "detail/unescape.hpp"
#include "detail/map_key.hpp"
#include "detail/tape_writer.hpp"
#include "detail/number.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "formats.hpp"
#include "detail/json_text.hpp"

namespace polycodec::detail {
namespace {

// ---- reader ----

// The one-letter escapes of a JSON string (RFC 8259 section 7); \u is read_u_escape's.
constexpr escape_letters json_escapes("\"\\/bfnrt", "\"\\/\b\f\n\r\t");

class json_reader : text_cursor<builder> {
public:
    json_reader(std::string_view in, builder& b, std::size_t begin = 0)
        : text_cursor<builder>(in, b) {
        pos_ = begin;
    }

    result<void> run() {
        skip_ws();
        if (auto r = parse_value(); !r) {
            return r;
        }
        skip_ws();
        return at_end();
    }

private:
    void skip_ws() {
        while (pos_ < in_.size()) {
            char c = in_[pos_];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                ++pos_;
            } else {
                break;
            }
        }
    }

    // Consumes `c` if it is the next byte.
    bool eat(char c) {
        if (pos_ < in_.size() && in_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    bool literal(std::string_view word) {
        if (in_.substr(pos_, word.size()) == word) {
            pos_ += word.size();
            return true;
        }
        return false;
    }

    result<void> parse_value() {
        if (pos_ >= in_.size()) {
            return fail(unexpected("a value"));
        }
        switch (in_[pos_]) {
            case '{':
                return parse_object();
            case '[':
                return parse_array();
            case '"':
                return parse_string();
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
            case 'n':
                if (literal("null")) {
                    b_.add_null();
                    return {};
                }
                break;
            default:
                if (in_[pos_] == '-' || (in_[pos_] >= '0' && in_[pos_] <= '9')) {
                    return parse_number();
                }
        }
        return fail(unexpected("a value"));
    }

    result<void> parse_array() {
        if (!b_.begin_array()) {
            return container_limit();
        }
        ++pos_;
        skip_ws();
        if (eat(']')) {
            b_.end_array();
            return {};
        }
        for (;;) {
            skip_ws();
            if (auto r = parse_value(); !r) {
                return r;
            }
            skip_ws();
            if (eat(',')) {
                continue;
            }
            if (eat(']')) {
                b_.end_array();
                return {};
            }
            return fail(unexpected("',' or ']'"));
        }
    }

    result<void> parse_object() {
        if (!b_.begin_map()) {
            return container_limit();
        }
        ++pos_;
        skip_ws();
        if (eat('}')) {
            b_.end_map();
            return {};
        }
        for (;;) {
            skip_ws();
            if (pos_ >= in_.size() || in_[pos_] != '"') {
                return fail(unexpected("a string key"));
            }
            if (auto r = parse_string(); !r) {
                return r;
            }
            skip_ws();
            if (pos_ >= in_.size() || in_[pos_] != ':') {
                return fail(unexpected("':' after object key"));
            }
            ++pos_;
            skip_ws();
            if (auto r = parse_value(); !r) {
                return r;
            }
            skip_ws();
            if (eat(',')) {
                continue;
            }
            if (eat('}')) {
                b_.end_map();
                return {};
            }
            return fail(unexpected("',' or '}'"));
        }
    }

    // An error inside the string starting at `start`; invalid UTF-8 before `at` comes first,
    // so the reported offset is always that of the first offending byte.
    error string_error(std::size_t start, errc code, std::size_t at, std::string message) const {
        std::size_t valid = utf8_valid_prefix(in_.substr(start, at - start));
        if (start + valid < at) {
            return make_error(errc::invalid_utf8, start + valid, "invalid UTF-8 in string");
        }
        return make_error(code, at, std::move(message));
    }

    result<void> parse_string() {
        std::size_t start = ++pos_;
        // Fast scan: no escapes, no control characters.
        std::size_t p = start;
        while (p < in_.size()) {
            unsigned char c = static_cast<unsigned char>(in_[p]);
            if (c == '"' || c == '\\' || c < 0x20) {
                break;
            }
            ++p;
        }
        if (p < in_.size() && in_[p] == '"') {
            std::string_view s = in_.substr(start, p - start);
            if (auto r = string_utf8(s, start); !r) {
                return r;
            }
            b_.add_string(s);
            pos_ = p + 1;
            return {};
        }
        // Slow path: unescape into the builder's buffer (never longer than the source). On an
        // error the string is not finished, so the error path names the string itself; the
        // caller clears the document.
        // Reserve only up to the closing quote: reserving the rest of the input for every
        // escaped string would make a document of many such strings quadratic.
        std::size_t close = p;
        while (close < in_.size() && in_[close] != '"') {
            close += in_[close] == '\\' ? 2 : 1;
        }
        std::size_t end_guess = (close < in_.size() ? close : in_.size()) - start;
        char* out = b_.begin_string(end_guess);
        char* w = out;
        p = start;
        for (;;) {
            if (p >= in_.size()) {
                pos_ = p;
                return fail(string_error(start, errc::unexpected_eof, p, "unterminated string"));
            }
            unsigned char c = static_cast<unsigned char>(in_[p]);
            if (c == '"') {
                break;
            }
            if (c < 0x20) {
                return fail(string_error(start, errc::invalid_string, p,
                                         "control character in string (escape it as \\u00XX)"));
            }
            if (c != '\\') {
                *w++ = static_cast<char>(c);
                ++p;
                continue;
            }
            if (p + 1 >= in_.size()) {
                return fail(
                    string_error(start, errc::unexpected_eof, p + 1, "unterminated escape"));
            }
            char e = in_[p + 1];
            p += 2;
            if (const char d = json_escapes[e]) {
                *w++ = d;
                continue;
            }
            if (e != 'u') {
                return fail(string_error(start, errc::invalid_string, p - 2,
                                         std::string("invalid escape \\") + e));
            }
            std::uint32_t cp;
            if (const char* m = read_u_escape(in_, p, cp)) {
                return fail(string_error(start, errc::invalid_string, p - 2, m));
            }
            w += utf8_encode(cp, w);
        }
        std::string_view written(out, static_cast<std::size_t>(w - out));
        std::size_t valid = utf8_valid_prefix(written);
        if (valid != written.size()) {
            // Report the first invalid byte's offset in the source.
            std::size_t q = start;
            std::size_t src_valid = utf8_valid_prefix(in_.substr(start, p - start));
            q += src_valid;
            return fail(make_error(errc::invalid_utf8, q, "invalid UTF-8 in string"));
        }
        b_.end_string(w);
        pos_ = p + 1;
        return {};
    }

    result<void> parse_number() {
        std::size_t start = pos_;
        std::size_t p = pos_;
        bool neg = false;
        if (in_[p] == '-') {
            neg = true;
            ++p;
        }
        if (p >= in_.size() || !(in_[p] >= '0' && in_[p] <= '9')) {
            pos_ = p;
            return fail(make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_number, p,
                                   "expected a digit, saw " + describe_at(p)));
        }
        if (in_[p] == '0') {
            ++p;
            if (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
                return fail(make_error(errc::invalid_number, p, "leading zeros are not allowed"));
            }
        } else {
            while (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
                ++p;
            }
        }
        bool is_float = false;
        if (p < in_.size() && in_[p] == '.') {
            is_float = true;
            ++p;
            if (p >= in_.size() || !(in_[p] >= '0' && in_[p] <= '9')) {
                return fail(make_error(errc::invalid_number, p,
                                       "expected a digit after '.', saw " + describe_at(p)));
            }
            while (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
                ++p;
            }
        }
        if (p < in_.size() && (in_[p] == 'e' || in_[p] == 'E')) {
            is_float = true;
            ++p;
            if (p < in_.size() && (in_[p] == '+' || in_[p] == '-')) {
                ++p;
            }
            if (p >= in_.size() || !(in_[p] >= '0' && in_[p] <= '9')) {
                return fail(make_error(errc::invalid_number, p,
                                       "expected a digit in the exponent, saw " + describe_at(p)));
            }
            while (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
                ++p;
            }
        }
        const char* first = in_.data() + start;
        const char* last = in_.data() + p;
        pos_ = p;
        if (is_float) {
            double d = 0;
            auto r = std::from_chars(first, last, d);
            if (r.ec == std::errc::result_out_of_range) {
                // Overflow to infinity is not a JSON value; underflow reads as zero. 400
                // digits and a fraction overflow too (read as 0.0 before: fuzz_diff_yaml).
                if (detail::text::decimal_overflows(
                        std::string_view(first, static_cast<std::size_t>(last - first)))) {
                    return fail(
                        make_error(errc::invalid_number, start, "number too large for a double"));
                }
                d = neg ? -0.0 : 0.0;
            } else if (r.ec != std::errc()) {
                return fail(make_error(errc::invalid_number, start, "invalid number"));
            }
            b_.add_double(d);
            return {};
        }
        if (neg) {
            std::int64_t v = 0;
            auto r = std::from_chars(first, last, v);
            if (r.ec == std::errc()) {
                b_.add_int(v);
                return {};
            }
        } else {
            std::uint64_t v = 0;
            auto r = std::from_chars(first, last, v);
            if (r.ec == std::errc()) {
                b_.add_uint(v);
                return {};
            }
        }
        // Outside 64 bits: keep the exact digits.
        b_.add_bignum(in_.substr(start, p - start));
        return {};
    }
};

// ---- simdjson ----

// Which decoder runs first: 3 simdjson's DOM parser with its tape translated into the Document
// in one loop, then (when that refuses) on-demand as 2 (the default, measured fastest); 2
// simdjson on-demand; 1 simdjson DOM walked through the builder; 0 the own reader only. 0, 1
// and 2 exist to repeat the measurements of docs/formats/json.md
// (cmake -DCMAKE_CXX_FLAGS=-DPOLYCODEC_JSON_DECODER=1).
#ifndef POLYCODEC_JSON_DECODER
#define POLYCODEC_JSON_DECODER 3
#endif

// Inputs above this size do not keep their parser buffers after the decode, so one huge body
// does not pin its memory in a worker thread for good.
constexpr std::size_t keep_parser_limit = std::size_t{16} << 20;

#if POLYCODEC_JSON_DECODER == 1

// Copies simdjson's DOM into the builder. Recursion is bounded by the builder's depth limit.
class dom_walker {
public:
    explicit dom_walker(builder& b) : b_(b) {}

    // False when the builder refused a container (depth limit or size budget).
    bool walk(simdjson::dom::element e) {
        using simdjson::dom::element_type;
        switch (e.type()) {
            case element_type::ARRAY: {
                if (!b_.begin_array()) {
                    return false;
                }
                // A named copy: value_unsafe() of a temporary result returns a reference into
                // it, which a range-for would keep after the temporary is gone.
                simdjson::dom::array arr = e.get_array().value_unsafe();
                for (simdjson::dom::element c : arr) {
                    if (!walk(c)) {
                        return false;
                    }
                }
                b_.end_array();
                return true;
            }
            case element_type::OBJECT: {
                if (!b_.begin_map()) {
                    return false;
                }
                simdjson::dom::object obj = e.get_object().value_unsafe();
                for (simdjson::dom::key_value_pair kv : obj) {
                    b_.add_string(kv.key);
                    if (!walk(kv.value)) {
                        return false;
                    }
                }
                b_.end_map();
                return true;
            }
            case element_type::INT64:
                b_.add_int(e.get_int64().value_unsafe());
                return true;
            case element_type::UINT64:
                b_.add_uint(e.get_uint64().value_unsafe());
                return true;
            case element_type::DOUBLE:
                b_.add_double(e.get_double().value_unsafe());
                return true;
            case element_type::STRING:
                b_.add_string(e.get_string().value_unsafe());
                return true;
            case element_type::BOOL:
                b_.add_bool(e.get_bool().value_unsafe());
                return true;
            case element_type::NULL_VALUE:
                b_.add_null();
                return true;
        }
        return true;
    }

private:
    builder& b_;
};

// True when simdjson read the whole input into the builder.
bool decode_with_simdjson(std::string_view in, builder& b) {
    // One parser per thread, reused: its buffers grow to the largest input and stay, so a
    // steady stream of decodes allocates nothing. parse() copies the input into the parser's
    // padded buffer (simdjson reads up to SIMDJSON_PADDING bytes past the end).
    thread_local simdjson::dom::parser parser;
    bool done = false;
    simdjson::dom::element root;
    if (parser.parse(in.data(), in.size(), true).get(root) == simdjson::SUCCESS) {
        dom_walker w(b);
        done = w.walk(root);
    }
    if (in.size() > keep_parser_limit) {
        parser = simdjson::dom::parser{};
    }
    return done;
}

#elif POLYCODEC_JSON_DECODER >= 2

// Walks simdjson's on-demand API into the builder. It compiles to this translation unit's
// target: without -march that is simdjson's fallback kernel, and still beats the DOM parser's
// run-time dispatched AVX-512 kernel, because the DOM costs a second pass over its own tape
// while the on-demand walk appends to the Document as it goes. Recursion is bounded by the
// builder's depth limit. Every value is visited, so on-demand validates all of the input.
class ondemand_walker {
public:
    explicit ondemand_walker(builder& b) : b_(b) {}

    simdjson::error_code walk(simdjson::ondemand::value v) {
        using simdjson::ondemand::json_type;
        json_type t;
        SIMDJSON_TRY(v.type().get(t));
        switch (t) {
            case json_type::array: {
                simdjson::ondemand::array a;
                SIMDJSON_TRY(v.get_array().get(a));
                if (!b_.begin_array()) {
                    return simdjson::DEPTH_ERROR;
                }
                for (auto c : a) {
                    simdjson::ondemand::value cv;
                    SIMDJSON_TRY(std::move(c).get(cv));
                    SIMDJSON_TRY(walk(cv));
                }
                b_.end_array();
                return simdjson::SUCCESS;
            }
            case json_type::object: {
                simdjson::ondemand::object o;
                SIMDJSON_TRY(v.get_object().get(o));
                if (!b_.begin_map()) {
                    return simdjson::DEPTH_ERROR;
                }
                for (auto f : o) {
                    simdjson::ondemand::field field;
                    SIMDJSON_TRY(std::move(f).get(field));
                    std::string_view key;
                    SIMDJSON_TRY(field.unescaped_key().get(key));
                    b_.add_string(key);
                    SIMDJSON_TRY(walk(field.value()));
                }
                b_.end_map();
                return simdjson::SUCCESS;
            }
            case json_type::number: {
                std::string_view raw = v.raw_json_token();
                simdjson::ondemand::number n;
                SIMDJSON_TRY(v.get_number().get(n));
                switch (n.get_number_type()) {
                    case simdjson::ondemand::number_type::signed_integer:
                        b_.add_int(n.get_int64());
                        break;
                    case simdjson::ondemand::number_type::unsigned_integer:
                        b_.add_uint(n.get_uint64());
                        break;
                    default: {
                        // simdjson 3.0.1's generic kernel reads floats with 19 or more
                        // significant digits as 0.0 ([1234567890123456789.0]); long tokens
                        // are read again with from_chars (found by fuzz_decode_json).
                        // A token that underflows (from_chars: out of range; simdjson
                        // fails on overflow) is a zero with the token's sign, as the own
                        // reader reads it (this path gave +0.0 for "-5.5555555555555555e-400").
                        double d = n.get_double();
                        if (raw.size() > 18) {
                            auto r = std::from_chars(raw.data(), raw.data() + raw.size(), d);
                            if (r.ec == std::errc::result_out_of_range) {
                                if (detail::text::decimal_overflows(raw)) {
                                    return simdjson::NUMBER_ERROR;  // the own reader words it
                                }
                                d = raw[0] == '-' ? -0.0 : 0.0;
                            }
                        }
                        b_.add_double(d);
                    }
                }
                return simdjson::SUCCESS;
            }
            case json_type::string: {
                std::string_view s;
                SIMDJSON_TRY(v.get_string().get(s));
                b_.add_string(s);
                return simdjson::SUCCESS;
            }
            case json_type::boolean: {
                bool x = false;
                SIMDJSON_TRY(v.get_bool().get(x));
                b_.add_bool(x);
                return simdjson::SUCCESS;
            }
            case json_type::null: {
                bool is_null = false;
                SIMDJSON_TRY(v.is_null().get(is_null));
                if (!is_null) {
                    return simdjson::N_ATOM_ERROR;
                }
                b_.add_null();
                return simdjson::SUCCESS;
            }
        }
        return simdjson::UNEXPECTED_ERROR;
    }

private:
    builder& b_;
};

// The parser and the padded copy of the input, one per thread and reused: they grow to the
// largest input and stay, so a steady stream of decodes allocates nothing.
struct ondemand_state {
    simdjson::ondemand::parser parser;
    std::unique_ptr<char[]> padded;
    std::size_t padded_cap = 0;
};

bool walk_ondemand(ondemand_state& st, std::string_view in, builder& b) {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: copy the input into a padded
    // buffer (a memcpy, small next to the parse).
    if (st.padded_cap < in.size() + simdjson::SIMDJSON_PADDING) {
        st.padded_cap = in.size() + simdjson::SIMDJSON_PADDING;
        st.padded.reset(new char[st.padded_cap]);
    }
    std::memcpy(st.padded.get(), in.data(), in.size());
    std::memset(st.padded.get() + in.size(), ' ', simdjson::SIMDJSON_PADDING);
    simdjson::ondemand::document doc;
    if (st.parser.iterate(simdjson::padded_string_view(st.padded.get(), in.size(), st.padded_cap))
            .get(doc) != simdjson::SUCCESS) {
        return false;
    }
    // A scalar document is not a value on-demand can hand out; the own reader takes it.
    simdjson::ondemand::json_type t;
    if (doc.type().get(t) != simdjson::SUCCESS ||
        (t != simdjson::ondemand::json_type::array && t != simdjson::ondemand::json_type::object)) {
        return false;
    }
    simdjson::ondemand::value root;
    if (doc.get_value().get(root) != simdjson::SUCCESS) {
        return false;
    }
    ondemand_walker w(b);
    // Trailing content: simdjson 3.0.1 has no document::at_end(); past the last token
    // current_location() answers OUT_OF_BOUNDS.
    return w.walk(root) == simdjson::SUCCESS &&
           doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
}

// True when simdjson read the whole input into the builder.
bool decode_with_simdjson(std::string_view in, builder& b) {
    // On-demand tracks nesting against the parser's max_depth (1024) only in builds with
    // simdjson's development checks (no NDEBUG), where going deeper asserts. The walk stops one
    // level past the builder's limit, so a limit that could come near it goes to the own reader.
    if (b.limits().max_depth + 2 > simdjson::DEFAULT_MAX_DEPTH) {
        return false;
    }
    thread_local ondemand_state st;
    bool done = walk_ondemand(st, in, b);
    if (in.size() > keep_parser_limit) {
        st.parser = simdjson::ondemand::parser();
        st.padded.reset();
        st.padded_cap = 0;
    }
    return done;
}

#endif

#if POLYCODEC_JSON_DECODER == 3

// ---- fast path: simdjson's DOM tape translated into the Document ----
//
// simdjson's DOM parser runs its run-time dispatched kernel (AVX-512 / AVX2 where the CPU has
// them; the on-demand walk above compiles to this translation unit's target, the portable
// fallback kernel). Its tape (simdjson docs/tape.md: one word per element, the type character
// in the top 8 bits; '{' and '[' hold the index past their close in the low 32 bits and the
// count, saturated at 0xFFFFFF, in bits 32..55; strings are an offset into string_buf, where a
// 32-bit little-endian length precedes the bytes; 'l', 'u', 'd' are followed by their value
// word) is copied into the Document's tape in one loop without recursion, writing the tape
// words and payload bytes directly (detail::tape_writer, as msgpack.cpp's fast
// path). It takes valid input within the limits only: a parse error, a scalar document, depth
// over the limit, the size budget or a saturated count return false, and decode_json resets
// the builder and runs the decoder of POLYCODEC_JSON_DECODER 2 unchanged (on-demand, then
// the own reader), which decides and words every error and keeps bignums. simdjson's DOM
// validates all of the input (UTF-8 included); duplicate keys stay, in order. The doubles are
// simdjson's DOM number parser's (checked equal to std::from_chars on long mantissas in every
// kernel: JsonTapeFastPath tests).

constexpr std::uint64_t tape_header(kind k, std::uint64_t payload) noexcept {
    return detail::tape_word(k, 0, payload);
}

// The smallest steps: resize() zero-fills what it adds, so a small document (a stream
// record) must not pay for 4 KiB it does not use; large ones grow by a quarter at a time.
constexpr std::size_t dom_tape_step = 32;    // words
constexpr std::size_t dom_bytes_step = 256;  // bytes
using dom_writer = detail::tape_writer<dom_tape_step, dom_bytes_step, true>;
// simdjson's DOM parser refuses deeper input (DEPTH_ERROR) before the loop sees it.
constexpr std::size_t dom_max_frames = simdjson::DEFAULT_MAX_DEPTH;

// The translation loop of the whole-document path and of the chunks of the large-input path
// below: copies simdjson tape words [i, end) (whole elements, or a container's opening word
// through its closing word) into the Document's tape through `tw`, with `depth_io` containers
// already open (the tape indexes of their headers in `stack`). Works on a local copy of the
// depth, written back at the end (the writer's counters stay in registers: it is inlined).
// False when it does not take the words: a saturated count, the depth limit, the size budget,
// a word it does not know.
[[gnu::always_inline]] inline bool copy_dom_words(const std::uint64_t* const st,
                                                  const std::uint8_t* const sb, std::size_t i,
                                                  const std::size_t end, dom_writer& tw,
                                                  std::size_t* const stack,
                                                  std::size_t& depth_io,
                                                  const std::size_t max_depth,
                                                  const std::size_t max_bytes) {
    constexpr std::uint64_t mask = simdjson::internal::JSON_VALUE_MASK;
    std::size_t depth = depth_io;

    for (; i < end;) {
        const std::uint64_t word = st[i];
        std::uint64_t* w = tw.words(2);
        switch (static_cast<char>(word >> 56)) {
            case '"': {
                const std::uint8_t* src = sb + (word & mask);
                std::uint32_t len;
                std::memcpy(&len, src, 4);
                src += 4;
                char* const dst = tw.bytes(std::size_t{len} + 32);
                // Short strings: copy 32 bytes at once (string_buf keeps SIMDJSON_PADDING
                // spare bytes past its last string; the bytes past len are overwritten by the
                // next payload or cut at the end).
                if (len <= 32) {
                    std::memcpy(dst, src, 32);
                } else {
                    std::memcpy(dst, src, len);
                }
                tw.payload(w, kind::string, 0, len);
                ++i;
                break;
            }
            case 'l':
                w[0] = tape_header(kind::int64, 0);
                w[1] = st[i + 1];
                tw.advance(2);
                i += 2;
                break;
            case 'u': {
                const std::uint64_t v = st[i + 1];
                w[0] = tape_header(v <= static_cast<std::uint64_t>(INT64_MAX) ? kind::int64
                                                                            : kind::uint64,
                                   0);
                w[1] = v;
                tw.advance(2);
                i += 2;
                break;
            }
            case 'd':
                w[0] = tape_header(kind::float64, 0);
                w[1] = st[i + 1];
                tw.advance(2);
                i += 2;
                break;
            case 'n':
                w[0] = tape_header(kind::null, 0);
                tw.advance(1);
                ++i;
                break;
            case 't':
                w[0] = tape_header(kind::boolean_true, 0);
                tw.advance(1);
                ++i;
                break;
            case 'f':
                w[0] = tape_header(kind::boolean_false, 0);
                tw.advance(1);
                ++i;
                break;
            case '{':
            case '[': {
                const std::uint64_t count = (word >> 32) & 0xFFFFFF;
                if (count == 0xFFFFFF || depth >= max_depth || tw.over_budget(max_bytes)) {
                    return false;  // saturated count, depth limit, size budget
                }
                stack[depth++] = tw.size();
                w[0] = tape_header((word >> 56) == '{' ? kind::map : kind::array, 0);
                w[1] = count;
                tw.advance(2);
                ++i;
                break;
            }
            case '}':
            case ']':
                if (depth == 0) {
                    return false;
                }
                tw.close(stack[--depth]);  // the header's payload: the index just past it
                ++i;
                break;
            default:
                return false;
        }
    }
    depth_io = depth;
    return true;
}

// Copies a parsed simdjson DOM document into the (empty) builder; false when it does not take it.
bool translate_dom_tape(const simdjson::dom::document& d, builder& b) {
    const std::uint64_t* const st = d.tape.get();
    constexpr std::uint64_t mask = simdjson::internal::JSON_VALUE_MASK;
    const std::size_t end = (st[0] & mask) - 1;  // index of the closing root word
    const auto first = static_cast<char>(st[1] >> 56);
    if (first != '{' && first != '[') {
        return false;  // a scalar document: the own reader reads it, as before
    }
    const std::size_t max_bytes = b.limits().max_bytes;
    dom_writer tw(b);
    std::size_t stack[dom_max_frames];  // tape index of each open container's header
    std::size_t depth = 0;
    if (!copy_dom_words(st, d.string_buf.get(), 1, end, tw, stack, depth,
                        std::min<std::size_t>(b.limits().max_depth, dom_max_frames),
                        max_bytes)) {
        return false;
    }
    if (depth != 0 || tw.over_budget(max_bytes)) {
        return false;
    }
    tw.finish();
    return true;
}

// One DOM parser per thread, shared by both paths and reused: its buffers grow to the largest
// input (whole-document path) or chunk (large-input path) and stay, so a steady stream of
// decodes allocates nothing. Released after an input above keep_parser_limit.
simdjson::dom::parser& thread_dom_parser() {
    thread_local simdjson::dom::parser parser;
    return parser;
}

// The decoders of POLYCODEC_JSON_DECODER 3 take the input only within simdjson's own depth
// limit (1024): a builder limit that could come near it goes to the decoders below (tests
// force the own reader that way).
bool dom_paths_apply(builder& b) {
    return b.depth() == 0 && b.ok() && b.doc().empty() && b.doc().bytes().empty() &&
           b.limits().max_depth + 2 <= simdjson::DEFAULT_MAX_DEPTH;
}

// True when simdjson's DOM parser read the whole input and its tape went into the builder.
bool decode_with_dom_tape(std::string_view in, builder& b) {
    if (!dom_paths_apply(b)) {
        return false;
    }
    // parse() copies the input into the parser's padded buffer (simdjson reads up to
    // SIMDJSON_PADDING bytes past the end).
    simdjson::dom::parser& parser = thread_dom_parser();
    simdjson::dom::element root;
    const bool done = parser.parse(in.data(), in.size(), true).get(root) == simdjson::SUCCESS &&
                      translate_dom_tape(parser.doc, b);
    if (parser.capacity() > keep_parser_limit) {
        parser = simdjson::dom::parser{};
    }
    return done;
}

// ---- NDJSON: one document per line through simdjson's document stream ----
//
// What dom::parser::parse_many() does (stage 1 over the whole input in streaming mode, then
// stage 2 once per document), driven here directly through the parser's implementation: the
// document_stream object allocates a worker per stream when simdjson is built with threads,
// and its iterator does not say where a document ends. Each document's tape goes through
// copy_dom_words into the open root array. It takes the input only when every document lies
// on a line of its own (no '\n' inside a container, one between two documents), nothing was
// left over at the end, and the limits hold; anything else (errors included) returns false
// and ndjson.cpp reads the input again with the own reader line by line.
constexpr std::size_t ndjson_stream_limit = keep_parser_limit;

bool lines_path_applies(std::string_view in, builder& b) {
    return dom_paths_apply(b) && !in.empty() && in.size() <= ndjson_stream_limit &&
           b.limits().max_depth >= 1;
}

// True when [p, end) is JSON white space only, with a '\n' in it when `need_newline`.
bool lines_gap(const char* p, const char* end, bool need_newline) noexcept {
    bool newline = false;
    for (; p < end; ++p) {
        if (*p == '\n') {
            newline = true;
        } else if (*p != ' ' && *p != '\t' && *p != '\r') {
            return false;
        }
    }
    return newline || !need_newline;
}

// Just past the scalar token simdjson read at `start` (a string, number or atom it accepted).
std::size_t scalar_token_end(const char* text, std::size_t start, std::size_t size) noexcept {
    std::size_t i = start;
    if (text[i] == '"') {
        for (++i; i < size && text[i] != '"'; ++i) {
            if (text[i] == '\\') {
                ++i;
            }
        }
        return std::min(i + 1, size);
    }
    while (i < size && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n') {
        ++i;
    }
    return i;
}

// Called when lines_path_applies(); on false the builder holds garbage (the caller resets it).
bool read_lines_with_dom_tape(std::string_view in, builder& b) {
    const std::size_t max_depth = std::min<std::size_t>(b.limits().max_depth, dom_max_frames);
    // The input in a padded buffer of this thread (simdjson reads past the end).
    thread_local std::unique_ptr<char[]> padded;
    thread_local std::size_t padded_cap = 0;
    if (padded_cap < in.size() + simdjson::SIMDJSON_PADDING) {
        padded_cap = in.size() + simdjson::SIMDJSON_PADDING;
        padded = std::make_unique<char[]>(padded_cap);
    }
    std::memcpy(padded.get(), in.data(), in.size());
    std::memset(padded.get() + in.size(), ' ', simdjson::SIMDJSON_PADDING);
    const char* const text = padded.get();

    simdjson::dom::parser& parser = thread_dom_parser();
    // What parse_many's ensure_capacity does (private): the parser and its document, each
    // grown only when too small.
    const std::size_t need = std::max<std::size_t>(in.size(), simdjson::dom::MINIMAL_DOCUMENT_CAPACITY);
    if ((parser.doc.capacity() < need && parser.doc.allocate(need) != simdjson::SUCCESS) ||
        (parser.capacity() < need && parser.allocate(need) != simdjson::SUCCESS)) {
        return false;
    }
    simdjson::internal::dom_parser_implementation& impl = *parser.implementation;
    if (impl.stage1(reinterpret_cast<const std::uint8_t*>(text), in.size(),
                    simdjson::stage1_mode::streaming_final) != simdjson::SUCCESS) {
        return false;
    }
    const std::size_t max_bytes = b.limits().max_bytes;
    constexpr std::uint64_t mask = simdjson::internal::JSON_VALUE_MASK;
    dom_writer tw(b);
    std::size_t stack[dom_max_frames];
    std::size_t depth = 1;
    stack[0] = 0;
    tw.open(tw.words(2), kind::array, 0);
    std::uint64_t count = 0;
    std::size_t prev_end = 0;  // just past the previous document
    for (;;) {
        if (impl.next_structural_index >= impl.n_structural_indexes) {
            break;
        }
        const std::size_t start = impl.structural_indexes[impl.next_structural_index];
        const simdjson::error_code err = impl.stage2_next(parser.doc);
        if (err == simdjson::EMPTY) {
            break;
        }
        // The gap before it: white space with a '\n' in it (the first document: white space).
        if (err != simdjson::SUCCESS || start < prev_end ||
            !lines_gap(text + prev_end, text + start, count != 0)) {
            return false;
        }
        std::size_t end;
        if (text[start] == '[' || text[start] == '{') {
            end = impl.structural_indexes[impl.next_structural_index - 1] + 1;
            if (end <= start || std::memchr(text + start, '\n', end - start) != nullptr) {
                return false;  // a container continues on the next line
            }
        } else {
            end = scalar_token_end(text, start, in.size());
        }
        prev_end = end;
        const std::uint64_t* const st = parser.doc.tape.get();
        if (!copy_dom_words(st, parser.doc.string_buf.get(), 1, (st[0] & mask) - 1, tw, stack,
                            depth, max_depth, max_bytes) ||
            depth != 1 || tw.over_budget(max_bytes)) {
            return false;
        }
        ++count;
    }
    // Only white space after the last document (stage 1 in streaming mode leaves out an
    // unfinished last document without an error).
    if (count == 0 || !lines_gap(text + prev_end, text + in.size(), false)) {
        return false;
    }
    tw.close(0, count);
    tw.finish();
    return true;
}

// ---- large inputs: a top-level array decoded chunk by chunk ----
//
// The whole-document path holds, next to the input and the Document, simdjson's DOM of the
// whole input: its padded copy of the input, its structural indexes, its tape and string
// buffer (for a 200 MB array of records.json's records that came to 1.6 GB peak RSS with the
// CLI's buffers; docs/BENCHMARKS.md "Whole-document memory"). Above large_input_threshold, a
// top-level array is instead cut at commas between its elements into chunks of about
// large_chunk_bytes; each chunk is copied as "[" elements "]" into a padded buffer, parsed by
// the same DOM parser (the same run-time dispatched kernel) and its tape translated onto the
// end of the Document with copy_dom_words, the root array kept open across chunks. Scratch
// memory is then a few times the chunk size whatever the input, and the Document's buffers
// are reserved from the rate of the chunks already read instead of doubling.
//
// Where to cut is a guess that the parse checks. Starting from a cut known to lie between two
// elements of the top-level array (outside strings, at depth 1; the first is just after the
// '['), the chunk up to the next cut parses as an array of one or more elements only if that
// next cut lies between two elements too: were it inside a string, the chunk would end in an
// unclosed string, were it inside a nested container, in an unclosed container, and simdjson
// refuses both. So a chunk that parsed was cut right. One that does not parse is cut again by
// exact_cut (a scan that follows strings and nesting from the chunk's start); if that does
// not parse either, the input has an error, a bignum or a limit, and it goes whole to the own
// reader, which words the error (or keeps the bignum) exactly as for any other input.
// Conversely, when every chunk parsed, the input is '[' followed by non-empty lists of
// elements joined by the commas cut at, the last list closed by ']' (and white space): a
// valid array whose elements are the chunks' in order. So no invalid input is accepted, and
// the Document is word for word the whole-document path's (JsonLargeInput tests).
//
// Inputs above the threshold that are not a top-level array (an object, a scalar) take the
// whole-document paths of decode_json, unchanged.

constexpr std::size_t default_large_input_threshold = std::size_t{16} << 20;
constexpr std::size_t default_large_chunk_bytes = std::size_t{1} << 20;
// How far past the chunk size guess_cut looks for a comma between two containers.
constexpr std::size_t guess_window = std::size_t{64} << 10;
// After this many chunks whose guessed cut did not parse, the rest is cut exactly.
constexpr int max_missed_guesses = 2;

std::atomic<std::size_t> large_input_threshold{default_large_input_threshold};
std::atomic<std::size_t> large_chunk_bytes{default_large_chunk_bytes};

struct large_input_counters {
    std::uint64_t decodes = 0;  // inputs decoded chunk by chunk
    std::uint64_t chunks = 0;
    std::uint64_t missed_guesses = 0;
    std::uint64_t fallbacks = 0;  // arrays handed to the own reader
};
thread_local large_input_counters large_counters;

constexpr bool is_json_ws(char c) noexcept {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The first comma at or after `from` that looks like one between two containers ("},{" or
// "],[", white space allowed around the comma) within guess_window bytes; else the first comma
// at or after `from`; npos when there is none.
std::size_t guess_cut(std::string_view in, std::size_t from) {
    const char* const p = in.data();
    const std::size_t n = in.size();
    const std::size_t limit = std::min(n, from + guess_window);
    std::size_t first = std::string_view::npos;
    for (std::size_t i = from; i < limit;) {
        const auto* c = static_cast<const char*>(std::memchr(p + i, ',', limit - i));
        if (c == nullptr) {
            break;
        }
        const auto k = static_cast<std::size_t>(c - p);
        if (first == std::string_view::npos) {
            first = k;
        }
        std::size_t a = k;
        while (a > 0 && is_json_ws(p[a - 1])) {
            --a;
        }
        std::size_t z = k + 1;
        while (z < n && is_json_ws(p[z])) {
            ++z;
        }
        if (a > 0 && (p[a - 1] == '}' || p[a - 1] == ']') && z < n &&
            (p[z] == '{' || p[z] == '[')) {
            return k;
        }
        i = k + 1;
    }
    if (first != std::string_view::npos || limit == n) {
        return first;
    }
    const auto* c = static_cast<const char*>(std::memchr(p + limit, ',', n - limit));
    return c == nullptr ? std::string_view::npos : static_cast<std::size_t>(c - p);
}

// Has a byte '"' or '\\' (the "has a zero byte" test on x ^ each).
inline bool swar_has_quote_or_backslash(std::uint64_t x) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101u;
    const std::uint64_t q = x ^ (ones * '"');
    const std::uint64_t bs = x ^ (ones * '\\');
    return ((((q - ones) & ~q) | ((bs - ones) & ~bs)) & (ones * 0x80)) != 0;
}

// The first comma at or after `from` between two elements of the array whose elements start
// at `s` (outside strings, depth 1), following strings and nesting from `s`; npos when the
// array or the input ends first. Only a guess for malformed input, which the parse refuses.
std::size_t exact_cut(std::string_view in, std::size_t s, std::size_t from) {
    const char* const p = in.data();
    const std::size_t n = in.size();
    std::size_t depth = 1;
    for (std::size_t i = s; i < n; ++i) {
        switch (p[i]) {
            case '"':
                for (++i;;) {
                    while (i + 8 <= n) {
                        std::uint64_t x;
                        std::memcpy(&x, p + i, 8);
                        if (swar_has_quote_or_backslash(x)) {
                            break;
                        }
                        i += 8;
                    }
                    if (i >= n) {
                        return std::string_view::npos;
                    }
                    if (p[i] == '"') {
                        break;  // the closing quote; the loop's ++i steps past it
                    }
                    i += p[i] == '\\' ? 2 : 1;
                }
                break;
            case '[':
            case '{':
                ++depth;
                break;
            case ']':
            case '}':
                if (--depth == 0) {
                    return std::string_view::npos;
                }
                break;
            case ',':
                if (depth == 1 && i >= from) {
                    return i;
                }
                break;
            default:
                break;
        }
    }
    return std::string_view::npos;
}

// The padded copy of one chunk, one per thread, reused.
struct chunk_buffer {
    std::unique_ptr<char[]> data;
    std::size_t cap = 0;
};

// Reserves room for `need` elements in `v`, aiming at the whole input: `used` elements came
// from `consumed` of its `total` bytes, so the rest is estimated at the same rate, with 1/16
// to spare, never above `upper` (an upper bound for any input of that size) unless `need` is.
// Returns the capacity to reserve for a buffer of capacity `cap` (`cap` itself when it holds
// `need` already).
std::size_t reserve_for_input(std::size_t cap, std::size_t need, std::size_t used,
                              std::size_t consumed, std::size_t total, std::size_t upper) {
    if (cap >= need) {
        return cap;
    }
    std::size_t target = need;
    if (consumed > 0) {
        const double rate = static_cast<double>(used) / static_cast<double>(consumed);
        const auto estimate = static_cast<std::size_t>(rate * static_cast<double>(total) * 1.0625);
        target = std::max({need, std::min(estimate, upper), cap + cap / 8});
    }
    return target;
}

enum class large_outcome {
    decoded,    // every chunk went into the builder
    refused,    // a top-level array, but a chunk did not parse or the builder refused it
    not_taken,  // not a top-level array (or limits the DOM paths do not take): builder untouched
};

large_outcome decode_large_array(std::string_view in, builder& b) {
    if (!dom_paths_apply(b)) {
        return large_outcome::not_taken;
    }
    const char* const p = in.data();
    const std::size_t n = in.size();
    std::size_t s = 0;
    while (s < n && is_json_ws(p[s])) {
        ++s;
    }
    if (s >= n || p[s] != '[') {
        return large_outcome::not_taken;
    }
    ++s;
    const std::size_t elements_start = s;
    const std::size_t chunk_bytes =
        std::max<std::size_t>(1, large_chunk_bytes.load(std::memory_order_relaxed));
    const std::size_t max_depth = std::min<std::size_t>(b.limits().max_depth, dom_max_frames);
    const std::size_t max_bytes = b.limits().max_bytes;
    if (max_depth == 0) {
        return large_outcome::not_taken;
    }
    constexpr std::uint64_t mask = simdjson::internal::JSON_VALUE_MASK;
    simdjson::dom::parser& parser = thread_dom_parser();
    thread_local chunk_buffer buf;
    dom_writer tw(b);
    tw.words(2);
    tw.advance(2);  // words 0 and 1: the root array's header, written at the end
    std::uint64_t count = 0;
    std::size_t stack[dom_max_frames];
    stack[0] = 0;
    int missed = 0;
    bool ok = true;

    // Parses in[s, cut) (to the end when cut is npos) as one chunk; true when it is an array of
    // at least one element (or, the whole input being one chunk, none).
    auto parse_chunk = [&](std::size_t cut) -> bool {
        const bool last = cut == std::string_view::npos;
        const std::size_t len = (last ? n : cut) - s;
        const std::size_t need = len + 2 + simdjson::SIMDJSON_PADDING;
        if (buf.cap < need) {
            buf.cap = std::max(need, std::min(chunk_bytes + chunk_bytes / 2, n) + 2 +
                                         simdjson::SIMDJSON_PADDING);
            buf.data.reset(new char[buf.cap]);
        }
        char* d = buf.data.get();
        d[0] = '[';
        std::memcpy(d + 1, p + s, len);
        std::size_t doc_len = len + 1;
        if (!last) {
            d[doc_len++] = ']';
        }
        std::memset(d + doc_len, ' ', simdjson::SIMDJSON_PADDING);
        simdjson::dom::element root;
        if (parser.parse(d, doc_len, false).get(root) != simdjson::SUCCESS) {
            return false;
        }
        const std::uint64_t* st = parser.doc.tape.get();
        const std::uint64_t chunk_count = (st[1] >> 32) & 0xFFFFFF;
        return chunk_count != 0xFFFFFF && (chunk_count > 0 || (last && s == elements_start));
    };

    for (;;) {
        const bool tail = n - s <= chunk_bytes + chunk_bytes / 2;
        const bool guessing = !tail && missed < max_missed_guesses;
        std::size_t cut = tail       ? std::string_view::npos
                          : guessing ? guess_cut(in, s + chunk_bytes)
                                     : exact_cut(in, s, s + chunk_bytes);
        if (!parse_chunk(cut)) {
            if (!guessing) {
                ok = false;
                break;
            }
            ++missed;
            ++large_counters.missed_guesses;
            cut = exact_cut(in, s, s + chunk_bytes);
            if (!parse_chunk(cut)) {
                ok = false;
                break;
            }
        }
        const std::uint64_t* st = parser.doc.tape.get();
        const std::size_t st_words = st[0] & mask;
        const std::size_t consumed = s - elements_start;
        // A chunk's tape takes at most two of our words per simdjson word and at most its
        // length in payload bytes; the steps are those of dom_grow_tape / dom_grow_bytes. The
        // estimates stop at what any input of this size could need, and at the size budget
        // (past it the decode stops anyway).
        const std::size_t tn = tw.size();
        const std::size_t bn = tw.bytes_used();
        tw.reserve(
            reserve_for_input(tw.tape_capacity(), tn + 2 * st_words + dom_tape_step, tn, consumed,
                              n, std::min(n, max_bytes / 8) + 16 + dom_tape_step),
            reserve_for_input(tw.bytes_capacity(),
                              bn + (cut == std::string_view::npos ? n : cut) - s + 32 +
                                  dom_bytes_step,
                              bn, consumed, n, std::min(n, max_bytes) + 32 + dom_bytes_step));
        std::size_t depth = 1;  // the root array, open
        if (!copy_dom_words(st, parser.doc.string_buf.get(), 2, st_words - 2, tw, stack, depth,
                            max_depth, max_bytes) ||
            depth != 1) {
            ok = false;
            break;
        }
        count += (st[1] >> 32) & 0xFFFFFF;
        ++large_counters.chunks;
        if (tw.over_budget(max_bytes)) {
            ok = false;  // over the size budget: the own reader says where
            break;
        }
        if (cut == std::string_view::npos) {
            break;
        }
        s = cut + 1;
    }
    if (parser.capacity() > keep_parser_limit) {
        parser = simdjson::dom::parser{};
    }
    if (buf.cap > keep_parser_limit) {
        buf.data.reset();
        buf.cap = 0;
    }
    if (!ok || tw.over_budget(max_bytes)) {
        ++large_counters.fallbacks;
        return large_outcome::refused;
    }
    tw.at(0) = tape_header(kind::array, 0);
    tw.close(0, count);
    tw.finish();
    ++large_counters.decodes;
    return large_outcome::decoded;
}

#endif

result<void> decode_json(std::string_view in, builder& b, const decode_options&) {
    if (in.size() >= 3 && in.substr(0, 3) == "\xEF\xBB\xBF") {
        return fail(make_error(errc::unexpected_char, 0,
                               "a byte order mark is not allowed before JSON text"));
    }
#if POLYCODEC_JSON_DECODER != 0
    if (!in.empty() && in.size() <= simdjson::SIMDJSON_MAXSIZE_BYTES) {
#if POLYCODEC_JSON_DECODER == 3
        if (in.size() > large_input_threshold.load(std::memory_order_relaxed)) [[unlikely]] {
            switch (decode_large_array(in, b)) {
                case large_outcome::decoded:
                    return {};
                case large_outcome::refused: {
                    // A chunk did not parse (an error, a bignum, a limit): the own reader
                    // reads the whole input, as the whole-document path ends up doing, and
                    // needs no memory besides the input and the Document.
                    b.reset();
                    json_reader r(in, b);
                    return r.run();
                }
                case large_outcome::not_taken:
                    break;  // not a top-level array: the paths below, unchanged
            }
        }
        if (decode_with_dom_tape(in, b)) {
            return {};
        }
        // Anything the fast path does not take goes to the decoder before it, unchanged.
        b.reset();
#endif
        if (decode_with_simdjson(in, b)) {
            return {};
        }
        // simdjson refused the input or the builder refused a container. The own reader
        // reads it again from scratch: it keeps integers beyond 64 bits as bignums (simdjson
        // calls them a number error) and reports the exact offset and message of real errors.
        b.reset();
    }
#endif
    json_reader r(in, b);
    return r.run();
}

// ---- writer ----

constexpr char hex_digits[] = "0123456789abcdef";

// Bytes that need an escape in a JSON string: controls, '"' and '\\' (a table: one load).
constexpr struct escape_table {
    bool v[256];
    constexpr escape_table() : v() {
        for (int c = 0; c < 0x20; ++c) {
            v[c] = true;
        }
        v[static_cast<unsigned char>('"')] = true;
        v[static_cast<unsigned char>('\\')] = true;
    }
} escape_bytes;
constexpr bool needs_escape(unsigned char c) noexcept { return escape_bytes.v[c]; }

[[gnu::noinline]] char* write_escaped_tail(char* w, const unsigned char* p, const unsigned char* end) {
    for (; p != end; ++p) {
        const unsigned char c = *p;
        if (!needs_escape(c)) {
            *w++ = static_cast<char>(c);
            continue;
        }
        *w++ = '\\';
        switch (c) {
            case '"':
                *w++ = '"';
                break;
            case '\\':
                *w++ = '\\';
                break;
            case '\n':
                *w++ = 'n';
                break;
            case '\r':
                *w++ = 'r';
                break;
            case '\t':
                *w++ = 't';
                break;
            case '\b':
                *w++ = 'b';
                break;
            case '\f':
                *w++ = 'f';
                break;
            default:
                std::memcpy(w, "u00", 3);
                w[3] = hex_digits[c >> 4];
                w[4] = hex_digits[c & 15];
                w += 5;
        }
    }
    return w;
}

[[gnu::always_inline]] inline bool swar_needs_escape(std::uint64_t x) noexcept {
    // Some byte is < 0x20, '"' or '\\' (the classic "has a zero byte" / "has a byte less
    // than" tests: exact for whether any byte matches).
    constexpr std::uint64_t ones = 0x0101010101010101u;
    const std::uint64_t q = x ^ (ones * '"');
    const std::uint64_t bs = x ^ (ones * '\\');
    return ((((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((bs - ones) & ~bs)) &
            (ones * 0x80)) != 0;
}

// Writes `s` quoted and escaped at w, which has room for 6 * size + 18 bytes; returns the end.
// 8 bytes at a time, copied unconditionally and checked with SWAR for bytes to escape; the
// last 1-8 bytes as one overlapping 8-byte block, strings of 4-7 bytes as two overlapping
// 4-byte halves. From the first block with such a byte on, the byte loop write_escaped_tail.
[[gnu::always_inline]] inline char* put_string(char* w, const char* p, std::size_t n) {
    *w++ = '"';
    const char* const end = p + n;
    if (n >= 8) {
        std::uint64_t x;
        while (end - p > 8) {
            std::memcpy(&x, p, 8);
            if (swar_needs_escape(x)) {
                goto tail;
            }
            std::memcpy(w, &x, 8);
            w += 8;
            p += 8;
        }
        std::memcpy(&x, end - 8, 8);
        if (swar_needs_escape(x)) {
            goto tail;
        }
        std::memcpy(w - (8 - (end - p)), &x, 8);
        w += end - p;
        p = end;
    } else if (n >= 4) {
        std::uint32_t lo;
        std::uint32_t hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, end - 4, 4);
        if (swar_needs_escape(lo | (std::uint64_t{hi} << 32))) {
            goto tail;
        }
        std::memcpy(w, &lo, 4);
        std::memcpy(w + n - 4, &hi, 4);
        w += n;
        p = end;
    }
tail:
    while (p != end && !needs_escape(static_cast<unsigned char>(*p))) {
        *w++ = *p++;
    }
    if (p != end) {
        w = write_escaped_tail(w, reinterpret_cast<const unsigned char*>(p),
                               reinterpret_cast<const unsigned char*>(end));
    }
    *w++ = '"';
    return w;
}

void write_string(output_buffer& out, std::string_view s) {
    char* const start = out.prepare(s.size() * 6 + 18);
    out.commit(static_cast<std::size_t>(put_string(start, s.data(), s.size()) - start));
}

class json_writer {
public:
    json_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    bool write(value v, int depth) {
        if (canonical_ && raw_ == 0 && depth > 0 && canonical_object(v)) {
            // extjson=canonical (docs/formats/bson.md "Canonical mode"): the value's canonical
            // Extended JSON object, built on its own (no copy of the whole document) and
            // written as it is. The root (depth 0) stays as it is, as the decoder reads it.
            thread_local document ext;
            builder eb(ext);
            if (!extjson::write_canonical(v, eb, false)) {
                return set_error(make_error(errc::size_exceeded, "canonical Extended JSON of a "
                                                                 "value larger than its budget"));
            }
            ++raw_;
            bool ok = write(ext.root(), depth);
            --raw_;
            return ok;
        }
        switch (v.kind()) {
            case kind::null:
                out_.append("null");
                return true;
            case kind::boolean_false:
                out_.append("false");
                return true;
            case kind::boolean_true:
                out_.append("true");
                return true;
            case kind::int64:
                write_int(out_, v.get_int());
                return true;
            case kind::uint64:
                write_uint(out_, v.get_uint());
                return true;
            case kind::bignum:
                out_.append(v.get_string());
                return true;
            case kind::float64: {
                double d = v.get_double();
                if (std::isfinite(d)) {
                    write_double(out_, d);
                    return true;
                }
                const char* what = std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
                if (!allow_lossy(opt_, v, "nonfinite_to_null",
                                 std::string(what) + " written as null")) {
                    return set_error(
                        unrepresentable(v, std::string(what) + " is not representable in json"));
                }
                out_.append("null");
                return true;
            }
            case kind::string:
            case kind::timestamp:
                write_string(out_, v.get_string());
                return true;
            case kind::bytes: {
                // RFC 8949 section 6.1 style: bytes become base64url text.
                out_.push_back('"');
                base64_encode(out_, v.get_string(), true);
                out_.push_back('"');
                return true;
            }
            case kind::tagged:
                // BSON's own types become MongoDB Extended JSON v2 (relaxed) objects, which
                // the BSON encoder turns back into those types (DESIGN section 3).
                if (v.get_tag_space() == tag_space::bson) {
                    thread_local document ext;
                    builder eb(ext);
                    if (extjson::write_relaxed(v, eb)) {
                        return write(ext.root(), depth);
                    }
                }
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return set_error(unrepresentable(
                        v, "tag " + std::to_string(v.tag()) + " is not representable in json"));
                }
                return write(v.tagged_value(), depth);
            case kind::array: {
                out_.push_back('[');
                bool first = true;
                for (value c : v.items()) {
                    if (!first) {
                        out_.push_back(',');
                    }
                    first = false;
                    newline(depth + 1);
                    if (!write(c, depth + 1)) {
                        return false;
                    }
                }
                if (!first) {
                    newline(depth);
                }
                out_.push_back(']');
                return true;
            }
            case kind::map: {
                out_.push_back('{');
                bool first = true;
                for (auto [k, val] : v.entries()) {
                    if (!first) {
                        out_.push_back(',');
                    }
                    first = false;
                    newline(depth + 1);
                    if (!write_key(k)) {
                        return false;
                    }
                    out_.push_back(':');
                    if (opt_.pretty) {
                        out_.push_back(' ');
                    }
                    if (!write(val, depth + 1)) {
                        return false;
                    }
                }
                if (!first) {
                    newline(depth);
                }
                out_.push_back('}');
                return true;
            }
        }
        return true;
    }

    // Compact output by one linear pass over the tape (pre-order: each element's children
    // follow it) with an explicit stack, instead of recursing through value cursors, writing
    // through a local pointer into room reserved per element. Writes the same bytes as
    // write(v, 0) without opt_.pretty; tagged values, bytes, non-finite floats, keys that are
    // not strings and containers nested deeper than the stack go to write() / write_key()
    // for that element.
    //
    // With Lines (ndjson's encoder; `root` an array): each element of the root followed by
    // "\n" instead of the root's brackets and commas, the bytes of json_write_value per
    // element and "\n" each.
    template <bool Lines = false>
    [[gnu::always_inline]] bool write_compact(value root) {
        struct frame {
            std::uint64_t remaining;  // elements (array) or entries (map) still to write
            bool map;
        };
        constexpr int max_stack = 128;
        frame st[max_stack];  // the open containers around the innermost one
        int depth = 0;        // open containers
        std::uint64_t rem = 0;  // the innermost one's elements or entries still to write
        bool in_map = false;    // the innermost one is a map
        const document* doc = root.doc();
        const std::uint64_t* t = doc->tape().data();
        const char* bytes = doc->bytes().data();
        std::size_t i = root.index();
        room r = refill(nullptr, 64);
        char* w = r.w;
        char* lim = r.lim;
        bool at_key = false;  // i is a map key: write it and ':' first
        char sep = ',';       // Lines: the separator after an element of the innermost one
        if constexpr (Lines) {  // the root array, open without a bracket
            if (t[i + 1] == 0) {
                sync(w);
                return true;
            }
            depth = 1;
            rem = t[i + 1];
            i += 2;
            sep = '\n';
        }
        for (;;) {
            if (at_key) {
                const std::uint64_t h = t[i];
                if (static_cast<kind>(h >> document::kind_shift) == kind::string) [[likely]] {
                    const auto n = static_cast<std::size_t>(t[i + 1]);
                    if (static_cast<std::size_t>(lim - w) < n * 6 + 84) [[unlikely]] {
                        r = refill(w, n * 6 + 84);
                        w = r.w;
                        lim = r.lim;
                    }
                    w = put_string(w, bytes + (h & document::payload_mask), n);
                    i += 2;
                } else {
                    value kv(doc, i);
                    sync(w);
                    if (!write_key(kv)) {
                        return false;
                    }
                    r = refill(nullptr, 84);
                    w = r.w;
                    lim = r.lim;
                    i = kv.end_index();
                }
                *w++ = ':';
            }
            const std::uint64_t h = t[i];
            const auto k = static_cast<kind>(h >> document::kind_shift);
            // room for any scalar but a string, and the separator after it
            if (static_cast<std::size_t>(lim - w) < 64) [[unlikely]] {
                r = refill(w, 64);
                w = r.w;
                lim = r.lim;
            }
            if (!detail::put_raw_scalar<detail::json_float_chars>(w, k, t, i)) {
                switch (k) {
                    case kind::float64:  // not finite: write() words it
                        sync(w);
                        if (!write(value(doc, i), 0)) {
                            return false;
                        }
                        r = refill(nullptr, 64);
                        w = r.w;
                        lim = r.lim;
                        i += 2;
                        break;
                    case kind::string:
                    case kind::timestamp: {
                        const auto n = static_cast<std::size_t>(t[i + 1]);
                        if (static_cast<std::size_t>(lim - w) < n * 6 + 24) [[unlikely]] {
                            r = refill(w, n * 6 + 24);
                            w = r.w;
                            lim = r.lim;
                        }
                        w = put_string(w, bytes + (h & document::payload_mask), n);
                        i += 2;
                        break;
                    }
                    case kind::bignum: {
                        const auto n = static_cast<std::size_t>(t[i + 1]);
                        if (static_cast<std::size_t>(lim - w) < n + 4) [[unlikely]] {
                            r = refill(w, n + 4);
                            w = r.w;
                            lim = r.lim;
                        }
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
                        if (depth > max_stack) [[unlikely]] {
                            value cv(doc, i);
                            sync(w);
                            if (!write(cv, 0)) {
                                return false;
                            }
                            r = refill(nullptr, 64);
                            w = r.w;
                            lim = r.lim;
                            i = cv.end_index();
                            break;
                        }
                        *w++ = map ? '{' : '[';
                        if (depth > 0) {
                            st[depth - 1] = {rem, in_map};
                        }
                        ++depth;
                        if constexpr (Lines) {
                            sep = ',';
                        }
                        rem = count;
                        in_map = map;
                        i += 2;
                        at_key = map;
                        continue;  // the first child: no separator
                    }
                    default: {  // bytes, tagged
                        value ov(doc, i);
                        sync(w);
                        if (!write(ov, 0)) {
                            return false;
                        }
                        r = refill(nullptr, 64);
                        w = r.w;
                        lim = r.lim;
                        i = ov.end_index();
                        break;
                    }
                }
            }
            // After a value: close finished containers, then the separator.
            for (;;) {
                if (depth == 0) {
                    sync(w);
                    return true;
                }
                if (lim == w) [[unlikely]] {
                    r = refill(w, 64);
                    w = r.w;
                    lim = r.lim;
                }
                if (--rem == 0) {
                    *w++ = Lines && depth == 1 ? '\n' : in_map ? '}' : ']';
                    if (--depth > 0) {
                        rem = st[depth - 1].remaining;
                        in_map = st[depth - 1].map;
                        if constexpr (Lines) {
                            sep = depth == 1 ? '\n' : ',';
                        }
                    }
                    continue;
                }
                *w++ = Lines ? sep : ',';
                at_key = in_map;
                break;
            }
        }
    }

    error err_;  // the error when write() returned false
    /// json_write_key_text's writer: container keys are written as their own text, unquoted.
    bool key_text_ = false;

private:
    // The internal functions return false on an error, kept in err_: a bool return is much
    // cheaper on the hot path than result<void> (callgrind, docs/BENCHMARKS.md).
    [[gnu::cold]] [[gnu::noinline]] bool set_error(error e) {
        err_ = std::move(e);
        return false;
    }
    // The output cursor: detail/out_room.hpp.
    using room = detail::out_room;
    room refill(char* w, std::size_t need) { return detail::out_refill(out_, w, need); }
    void sync(char* w) { detail::out_sync(out_, w); }
    bool write_key(value k) {
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
                write_string(out_, k.get_string());
                return true;
            case kind::int64:
            case kind::uint64:
            case kind::bignum: {
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
                return true;
            }
            default: {
                if (key_text_ && is_container_key(k)) {
                    // Inside a container key's text (json_write_key_text): the key as its own
                    // compact text, unquoted, so nested keys do not escape each other again.
                    return write(k, 0);
                }
                auto text = key_fallback(opt_, k, "json");
                if (!text) {
                    return set_error(std::move(text.error()));
                }
                write_string(out_, *text);
                return true;
            }
        }
    }

    void newline(int depth) {
        if (!opt_.pretty) {
            return;
        }
        out_.push_back('\n');
        for (int i = 0; i < depth; ++i) {
            out_.append("  ");
        }
    }

    // Values canonical Extended JSON spells as objects (extjson::write_canonical rewrites them):
    // ints, floats, bytes, BSON datetimes, BSON's tagged types, and maps that look like
    // Extended JSON. Other tags take the usual path (and its error paths).
    static bool canonical_object(value v) {
        switch (v.kind()) {
            case kind::int64:
            case kind::float64:
            case kind::bytes:
                return true;
            case kind::timestamp: {
                std::int64_t ms;
                return v.get_timestamp_kind() == timestamp_kind::offset_date_time &&
                       extjson::parse_datetime(v.get_string(), ms);
            }
            case kind::tagged: {
                extjson::special s;
                return v.get_tag_space() == tag_space::bson && extjson::from_tagged(v, s);
            }
            case kind::map:
                return extjson::may_be_extjson(v);
            default:
                return false;
        }
    }

    output_buffer& out_;
    const encode_options& opt_;
    const bool canonical_ = opt_.extjson == extjson_mode::canonical;
    int raw_ = 0;  // > 0 while a rewritten canonical object is written
};

result<void> encode_json(const document& doc, output_buffer& out, const encode_options& opt) {
    json_writer w(out, opt);
    // Canonical Extended JSON goes through write(), which rewrites value by value.
    bool walk = opt.pretty || opt.extjson == extjson_mode::canonical;
    if (!(walk ? w.write(doc.root(), 0) : w.write_compact(doc.root()))) {
        return fail(std::move(w.err_));
    }
    if (opt.pretty) {
        out.push_back('\n');
    }
    return {};
}

}  // namespace

const codec_functions json_codec{decode_json, encode_json};

void json_set_large_input(std::size_t threshold, std::size_t chunk) noexcept {
#if POLYCODEC_JSON_DECODER == 3
    large_input_threshold.store(threshold == 0 ? default_large_input_threshold : threshold,
                                std::memory_order_relaxed);
    large_chunk_bytes.store(chunk == 0 ? default_large_chunk_bytes : chunk,
                            std::memory_order_relaxed);
#else
    (void)threshold;
    (void)chunk;
#endif
}

json_large_input_stats json_large_input_counters() noexcept {
#if POLYCODEC_JSON_DECODER == 3
    return {large_counters.decodes, large_counters.chunks, large_counters.missed_guesses,
            large_counters.fallbacks, thread_dom_parser().capacity()};
#else
    return {};
#endif
}

bool json_read_lines(std::string_view in, builder& b) {
#if POLYCODEC_JSON_DECODER == 3
    if (!lines_path_applies(in, b)) {
        return false;
    }
    if (read_lines_with_dom_tape(in, b)) {
        return true;
    }
    b.reset();  // the fast path may have written part of the tape
    return false;
#else
    (void)in;
    (void)b;
    return false;
#endif
}

result<void> json_read_value(std::string_view in, std::size_t begin, builder& b) {
    json_reader r(in, b, begin);
    return r.run();
}

void json_write_string(output_buffer& out, std::string_view s) { write_string(out, s); }

result<void> json_write_lines(value v, output_buffer& out, const encode_options& opt) {
    json_writer w(out, opt);
    if (!w.write_compact<true>(v)) {
        return fail(std::move(w.err_));
    }
    return {};
}

void json_write_key_text(value k, output_buffer& out) {
    encode_options opt;
    opt.lossy = true;  // what JSON cannot hold inside the key takes JSON's own fallbacks
    json_writer w(out, opt);
    w.key_text_ = true;
    // With lossy=allow and relaxed Extended JSON the writer takes every value.
    (void)w.write_compact(k);
}

result<void> json_write_value(value v, output_buffer& out, const encode_options& opt) {
    json_writer w(out, opt);
    bool walk = opt.pretty || opt.extjson == extjson_mode::canonical;
    if (!(walk ? w.write(v, 0) : w.write_compact(v))) {
        return fail(std::move(w.err_));
    }
    return {};
}

}  // namespace polycodec::detail
