// Bencode (BEP 3): integers of any size, byte strings, lists and dictionaries whose keys are
// byte strings sorted as raw bytes. See docs/formats/bencode.md for every mapping.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "detail/extjson.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/number.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/try.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

// ---- reader ----

class bencode_reader {
public:
    bencode_reader(std::string_view in, builder& b, bool canonical)
        : in_(in), b_(b), canonical_(canonical) {}

    result<void> run() {
        POLYCODEC_TRY(parse_value());
        if (pos_ != in_.size()) {
            return fail(make_error(errc::trailing_content, pos_,
                                   "expected end of input, saw " + describe_at(pos_)));
        }
        return {};
    }

private:
    std::string describe_at(std::size_t p) const { return describe_byte_at(in_, p); }
    error unexpected(const char* expected) const { return unexpected_at(in_, pos_, expected); }
    result<void> container_limit() {
        return fail(limit_error(b_, pos_));
    }

    result<void> parse_value() {
        if (pos_ >= in_.size()) {
            return fail(unexpected("a value"));
        }
        char c = in_[pos_];
        if (c == 'i') {
            return parse_int();
        }
        if (c == 'l') {
            return parse_list();
        }
        if (c == 'd') {
            return parse_dict();
        }
        if (c >= '0' && c <= '9') {
            std::string_view s;
            POLYCODEC_TRY(parse_bytes(s));
            add_text(s);
            return {};
        }
        return fail(unexpected("'i', 'l', 'd' or a string length"));
    }

    // Valid UTF-8 becomes a string, anything else bytes.
    void add_text(std::string_view s) {
        if (utf8_valid(s)) {
            b_.add_string(s);
        } else {
            b_.add_bytes(s);
        }
    }

    // BEP 3: "i-0e is invalid. All encodings with a leading zero, such as i03e, are invalid,
    // other than i0e".
    result<void> parse_int() {
        std::size_t start = pos_++;
        std::size_t p = pos_;
        bool neg = false;
        if (p < in_.size() && in_[p] == '-') {
            neg = true;
            ++p;
        }
        std::size_t digits = p;
        while (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
            ++p;
        }
        if (p == digits) {
            pos_ = p;
            return fail(make_error(p >= in_.size() ? errc::unexpected_eof : errc::invalid_number, p,
                                   "expected a digit in integer, saw " + describe_at(p)));
        }
        if (in_[digits] == '0' && (p - digits > 1 || neg)) {
            return fail(make_error(errc::invalid_number, start,
                                   neg && p - digits == 1
                                       ? std::string("negative zero i-0e is not allowed")
                                       : std::string("leading zeros are not allowed in integer")));
        }
        if (p >= in_.size() || in_[p] != 'e') {
            pos_ = p;
            return fail(unexpected("'e' after integer digits"));
        }
        std::string_view text = in_.substr(start + 1, p - start - 1);
        pos_ = p + 1;
        const char* first = text.data();
        const char* last = text.data() + text.size();
        if (neg) {
            std::int64_t v = 0;
            if (std::from_chars(first, last, v).ec == std::errc()) {
                b_.add_int(v);
                return {};
            }
        } else {
            std::uint64_t v = 0;
            if (std::from_chars(first, last, v).ec == std::errc()) {
                b_.add_uint(v);
                return {};
            }
        }
        b_.add_bignum(text);
        return {};
    }

    // <length>:<bytes>. The length is checked against the remaining input before anything is
    // copied, so "4294967295:" fails at once.
    result<void> parse_bytes(std::string_view& out) {
        std::size_t start = pos_;
        std::size_t p = pos_;
        std::uint64_t len = 0;
        while (p < in_.size() && in_[p] >= '0' && in_[p] <= '9') {
            if (p - start >= 19) {
                return fail(
                    make_error(errc::size_exceeded, start, "string length has too many digits"));
            }
            len = len * 10 + static_cast<std::uint64_t>(in_[p] - '0');
            ++p;
        }
        if (in_[start] == '0' && p - start > 1) {
            return fail(make_error(errc::invalid_number, start,
                                   "leading zeros are not allowed in a string length"));
        }
        if (p >= in_.size() || in_[p] != ':') {
            pos_ = p;
            return fail(unexpected("':' after string length"));
        }
        ++p;
        if (len > in_.size() - p) {
            return fail(make_error(errc::size_exceeded, start,
                                   "string length " + std::to_string(len) + " exceeds the " +
                                       std::to_string(in_.size() - p) + " bytes left"));
        }
        out = in_.substr(p, static_cast<std::size_t>(len));
        pos_ = p + static_cast<std::size_t>(len);
        return {};
    }

    result<void> parse_list() {
        if (!b_.begin_array()) {
            return container_limit();
        }
        ++pos_;
        for (;;) {
            if (pos_ < in_.size() && in_[pos_] == 'e') {
                ++pos_;
                b_.end_array();
                return {};
            }
            POLYCODEC_TRY(parse_value());
        }
    }

    result<void> parse_dict() {
        if (!b_.begin_map()) {
            return container_limit();
        }
        ++pos_;
        std::string_view prev;
        bool first = true;
        bool sorted = true;
        const std::size_t base = keys_.size();
        for (;;) {
            if (pos_ < in_.size() && in_[pos_] == 'e') {
                if (!sorted) {
                    POLYCODEC_TRY(check_unique(base));
                }
                keys_.resize(base);
                ++pos_;
                b_.end_map();
                return {};
            }
            if (pos_ >= in_.size() || in_[pos_] < '0' || in_[pos_] > '9') {
                return fail(unexpected("a string key or 'e'"));
            }
            std::size_t key_at = pos_;
            std::string_view key;
            POLYCODEC_TRY(parse_bytes(key));
            if (!first) {
                int c = prev.compare(key);
                if (c == 0) {
                    return fail(make_error(errc::duplicate_key, key_at, "duplicate key"));
                }
                if (c > 0) {
                    if (canonical_) {
                        return fail(make_error(errc::malformed, key_at,
                                               "dictionary keys are not sorted by raw bytes"));
                    }
                    sorted = false;
                }
            }
            if (!canonical_) {
                if (keys_.size() * sizeof(seen_key) > b_.limits().max_bytes) {
                    return fail(make_error(errc::size_exceeded, key_at,
                                           "document larger than its size budget"));
                }
                keys_.push_back({key, key_at});
            }
            prev = key;
            first = false;
            add_text(key);
            POLYCODEC_TRY(parse_value());
        }
    }

    // An unsorted dictionary (accepted without canonical=true) is checked for duplicate keys
    // when it closes: its keys, keys_[base..], sorted with their offsets.
    result<void> check_unique(std::size_t base) {
        auto first = keys_.begin() + static_cast<std::ptrdiff_t>(base);
        std::sort(first, keys_.end(), [](const seen_key& a, const seen_key& b) {
            int c = a.key.compare(b.key);
            return c < 0 || (c == 0 && a.offset < b.offset);
        });
        for (auto it = first; it != keys_.end() && it + 1 != keys_.end(); ++it) {
            if (it->key == (it + 1)->key) {
                pos_ = (it + 1)->offset;
                return fail(make_error(errc::duplicate_key, (it + 1)->offset, "duplicate key"));
            }
        }
        return {};
    }

    struct seen_key {
        std::string_view key;
        std::size_t offset;
    };

    std::string_view in_;
    builder& b_;
    bool canonical_;
    std::size_t pos_ = 0;
    // The keys of the open dictionaries, innermost last; reused across decodes on a thread so
    // that decoding into a reused document allocates nothing in steady state.
    std::vector<seen_key>& keys_ = scratch_keys();

    static std::vector<seen_key>& scratch_keys() {
        thread_local std::vector<seen_key> keys;
        keys.clear();
        if (keys.capacity() > 65536) {
            keys = {};  // a huge document's key list is not kept for the rest of the thread
        }
        return keys;
    }
};

result<void> decode_bencode(std::string_view in, builder& b, const decode_options& opt) {
    bencode_reader r(in, b, opt.canonical);
    return r.run();
}

// ---- writer ----

class bencode_writer {
public:
    bencode_writer(output_buffer& out, const encode_options& opt) : out_(out), opt_(opt) {}

    result<void> write(value v) {
        switch (v.kind()) {
            case kind::null:
                if (!allow_lossy(opt_, v, "null_to_empty_string", "null written as ''")) {
                    return fail(unrepresentable(v, "null is not representable in bencode"));
                }
                out_.append("0:");
                return {};
            case kind::boolean_false:
            case kind::boolean_true:
                if (!allow_lossy(opt_, v, "bool_to_int", "boolean written as 0 or 1")) {
                    return fail(unrepresentable(v, "a boolean is not representable in bencode"));
                }
                out_.append(v.get_bool() ? "i1e" : "i0e");
                return {};
            case kind::int64:
                out_.push_back('i');
                write_int(out_, v.get_int());
                out_.push_back('e');
                return {};
            case kind::uint64:
                out_.push_back('i');
                write_uint(out_, v.get_uint());
                out_.push_back('e');
                return {};
            case kind::bignum:
                out_.push_back('i');
                out_.append(v.get_string());
                out_.push_back('e');
                return {};
            case kind::float64: {
                if (!allow_lossy(opt_, v, "float_to_string", "float written as its decimal text")) {
                    return fail(unrepresentable(v, "a float is not representable in bencode"));
                }
                output_buffer tmp;
                double d = v.get_double();
                if (std::isnan(d)) {
                    tmp.append("NaN");
                } else if (std::isinf(d)) {
                    tmp.append(d > 0 ? "Infinity" : "-Infinity");
                } else {
                    write_double(tmp, d);
                }
                write_bytes(tmp.view());
                return {};
            }
            case kind::string:
            case kind::bytes:
            case kind::timestamp:
                write_bytes(v.get_string());
                return {};
            case kind::tagged:
                return write_tagged(v);
            case kind::array:
                out_.push_back('l');
                for (value c : v.items()) {
                    POLYCODEC_TRY(write(c));
                }
                out_.push_back('e');
                return {};
            case kind::map:
                return write_map(v);
        }
        return {};
    }

private:
    void write_bytes(std::string_view s) {
        write_uint(out_, s.size());
        out_.push_back(':');
        out_.append(s);
    }

    // BSON's own types become their Extended JSON v2 maps (DESIGN section 3: not lossy);
    // other tags keep only their inner value under lossy=allow.
    result<void> write_tagged(value v) {
        if (v.get_tag_space() == tag_space::bson) {
            document tmp;
            builder tb(tmp);
            if (extjson::write_relaxed(v, tb)) {
                bencode_writer w(out_, opt_);
                auto r = w.write(tmp.root());
                if (!r) {
                    // Name the value in the caller's document, not in the temporary one.
                    r.error().path = v.doc()->pointer_to(v.index()) + r.error().path;
                }
                return r;
            }
        }
        if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
            return fail(unrepresentable(
                v, "tag " + std::to_string(v.tag()) + " is not representable in bencode"));
        }
        return write(v.tagged_value());
    }

    struct key_ref {
        std::size_t off;  // into the document's bytes, or into arena_ when in_arena
        std::size_t len;
        bool in_arena;
        std::size_t key_index;
        std::size_t val_index;
    };

    std::string_view key_text(const key_ref& k, const document& doc) const {
        return k.in_arena ? std::string_view(arena_).substr(k.off, k.len)
                          : std::string_view(doc.bytes()).substr(k.off, k.len);
    }

    // BEP 3: "Keys must be strings and appear in sorted order (sorted as raw strings, not
    // alphanumerics)". Keys are gathered on a shared stack, sorted, then written.
    result<void> write_map(value v) {
        const document& doc = *v.doc();
        std::size_t base = keys_.size();
        std::size_t arena_base = arena_.size();
        for (auto [k, val] : v.entries()) {
            key_ref ref{0, 0, false, k.index(), val.index()};
            switch (k.kind()) {
                case kind::string:
                case kind::bytes:
                case kind::timestamp: {
                    std::string_view s = k.get_string();
                    ref.off = static_cast<std::size_t>(s.data() - doc.bytes().data());
                    ref.len = s.size();
                    break;
                }
                case kind::int64:
                case kind::uint64:
                case kind::bignum: {
                    // Integer keys become their decimal text (DESIGN section 3: not lossy).
                    std::string text = k.kind() == kind::int64    ? std::to_string(k.get_int())
                                       : k.kind() == kind::uint64 ? std::to_string(k.get_uint())
                                                                  : std::string(k.get_string());
                    ref.in_arena = true;
                    ref.off = arena_.size();
                    ref.len = text.size();
                    arena_ += text;
                    break;
                }
                default: {
                    auto fallback = key_fallback(opt_, k, "bencode");
                    if (!fallback) {
                        keys_.resize(base);
                        arena_.resize(arena_base);
                        return fail(std::move(fallback.error()));
                    }
                    const std::string& text = *fallback;
                    ref.in_arena = true;
                    ref.off = arena_.size();
                    ref.len = text.size();
                    arena_ += text;
                }
            }
            keys_.push_back(ref);
        }
        auto first = keys_.begin() + static_cast<std::ptrdiff_t>(base);
        std::stable_sort(first, keys_.end(), [&](const key_ref& a, const key_ref& b) {
            return key_text(a, doc) < key_text(b, doc);
        });
        out_.push_back('d');
        std::size_t n = keys_.size() - base;
        result<void> r;
        for (std::size_t i = 0; i < n && r; ++i) {
            key_ref k = keys_[base + i];
            if (i > 0 && key_text(keys_[base + i - 1], doc) == key_text(k, doc)) {
                value key(&doc, k.key_index);
                if (!allow_lossy(opt_, key, "duplicate_key_dropped",
                                 "duplicate key dropped, first value kept")) {
                    r = fail(unrepresentable(key, "duplicate key " + to_debug_string(key) +
                                                      " is not representable in bencode"));
                }
                continue;
            }
            write_bytes(key_text(k, doc));
            r = write(value(&doc, k.val_index));
        }
        keys_.resize(base);
        arena_.resize(arena_base);
        if (r) {
            out_.push_back('e');
        }
        return r;
    }

    output_buffer& out_;
    const encode_options& opt_;
    std::vector<key_ref> keys_;
    std::string arena_;
};

result<void> encode_bencode(const document& doc, output_buffer& out, const encode_options& opt) {
    bencode_writer w(out, opt);
    return w.write(doc.root());
}

}  // namespace

const codec_functions bencode_codec{decode_bencode, encode_bencode};

}  // namespace polycodec::detail
