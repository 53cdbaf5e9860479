// Avro 1.11 (DESIGN section 14; ../shared/corpus/avro/UPSTREAM_SPEC.md). Binary encoding of a
// datum walking its schema, Object Container Files (codecs null, deflate, zstandard, snappy),
// single-object encoding and Confluent framing of a bare datum, the JSON encoding, and
// schema resolution from the writer's schema to a reader's.
//
// Data model: a record is a map of its fields, an enum its symbol, fixed and bytes are bytes,
// a union value its branch's value, a map a map of strings. Logical types: date, time-* and
// (local-)timestamp-* are timestamps, uuid a string, decimal its exact decimal text, duration
// a map {months, days, milliseconds}. A container's records are the elements of the array at
// the root.
#include "polycodec/formats/avro.hpp"

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "avro/schema.hpp"
#include "detail/base64.hpp"
#include "detail/big_integer.hpp"
#include "detail/binary.hpp"
#include "detail/describe.hpp"
#include "detail/epoch_time.hpp"
#include "detail/lossy.hpp"
#include "detail/tape_writer.hpp"
#include "detail/text.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"
#include "polycodec/codec.hpp"

namespace polycodec::detail {
namespace {

using avro::field;
using avro::logical;
using avro::no_node;
using avro::node;
using avro::schema;
using avro::type_kind;

constexpr std::uint64_t max_zero_size_items = 1 << 20;
constexpr char ocf_magic[4] = {'O', 'b', 'j', 1};

// ---- logical type text ----

void two(char* p, unsigned v) {
    p[0] = static_cast<char>('0' + v / 10);
    p[1] = static_cast<char>('0' + v % 10);
}

// "HH:MM:SS" plus `digits` fraction digits of `frac`.
std::size_t format_time(std::int64_t secs_of_day, std::uint64_t frac, int digits, char* out) {
    two(out, static_cast<unsigned>(secs_of_day / 3600));
    out[2] = ':';
    two(out + 3, static_cast<unsigned>(secs_of_day / 60 % 60));
    out[5] = ':';
    two(out + 6, static_cast<unsigned>(secs_of_day % 60));
    std::size_t n = 8;
    if (digits > 0) {
        out[n++] = '.';
        for (int i = digits - 1; i >= 0; --i) {
            out[n + i] = static_cast<char>('0' + frac % 10);
            frac /= 10;
        }
        n += digits;
    }
    return n;
}

// Days since the epoch as "YYYY-MM-DD" (the date of format_epoch's text; `out` needs 30
// chars); false outside years 0000-9999.
bool format_date(std::int64_t days, char* out) {
    return days >= epoch_min_seconds / 86400 && days <= epoch_max_seconds / 86400 &&
           format_epoch(days * 86400, 0, out) != 0;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct ts_unit {
    std::int64_t per_second;
    int digits;
};
ts_unit unit_of(logical lt) {
    switch (lt) {
        case logical::timestamp_millis:
        case logical::local_timestamp_millis:
        case logical::time_millis:
            return {1000, 3};
        case logical::timestamp_micros:
        case logical::local_timestamp_micros:
        case logical::time_micros:
            return {1000000, 6};
        default:
            return {1000000000, 9};
    }
}
bool is_local(logical lt) {
    return lt == logical::local_timestamp_millis || lt == logical::local_timestamp_micros ||
           lt == logical::local_timestamp_nanos;
}

// Decimal text of unscaled two's complement big-endian bytes at `scale`.
std::string decimal_text(std::string_view be, std::uint32_t scale) {
    big_integer v;
    bool neg = !be.empty() && (static_cast<unsigned char>(be[0]) & 0x80) != 0;
    std::vector<unsigned char> mag(be.begin(), be.end());
    if (neg) {
        // Magnitude of a negative value: invert and add one.
        for (auto& c : mag) {
            c = static_cast<unsigned char>(~c);
        }
        for (std::size_t i = mag.size(); i-- > 0;) {
            if (++mag[i] != 0) {
                break;
            }
        }
    }
    for (unsigned char c : mag) {
        v.mul_add(256, c);
    }
    v.trim();
    std::string digits = to_decimal(v);
    if (scale > 0) {
        if (digits.size() <= scale) {
            digits.insert(0, scale - digits.size() + 1, '0');
        }
        digits.insert(digits.size() - scale, 1, '.');
    }
    if (neg && !v.is_zero()) {
        digits.insert(0, 1, '-');
    }
    return digits;
}

// Parses decimal text ("-12.5", "3", "1e2" not accepted) into the unscaled integer at `scale`.
// Returns false when the text is not a decimal or needs more fraction digits than `scale`.
bool parse_decimal_text(std::string_view t, std::uint32_t scale, big_integer& out,
                        std::size_t& digits) {
    out = big_integer{};
    std::size_t i = 0;
    bool neg = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
        neg = t[i] == '-';
        ++i;
    }
    bool any = false;
    std::uint32_t frac = 0;
    bool point = false;
    digits = 0;
    for (; i < t.size(); ++i) {
        char c = t[i];
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (c < '0' || c > '9') {
            return false;
        }
        any = true;
        if (point) {
            if (frac == scale) {
                if (c != '0') {
                    return false;
                }
                continue;
            }
            ++frac;
        }
        out.mul_add(10, static_cast<std::uint32_t>(c - '0'));
        if (!out.is_zero() || digits > 0) {
            ++digits;
        }
    }
    if (!any) {
        return false;
    }
    for (; frac < scale; ++frac) {
        out.mul_add(10, 0);
        if (!out.is_zero()) {
            ++digits;
        }
    }
    out.trim();
    out.neg = neg && !out.is_zero();
    return true;
}

// Two's complement big-endian bytes of `v`: the shortest (width 0) or exactly `width` bytes.
bool twos_complement(const big_integer& v, std::size_t width, std::string& out) {
    std::vector<unsigned char> le;
    for (std::uint32_t limb : v.mag) {
        for (int i = 0; i < 4; ++i) {
            le.push_back(static_cast<unsigned char>(limb >> (8 * i)));
        }
    }
    while (!le.empty() && le.back() == 0) {
        le.pop_back();
    }
    if (v.neg) {
        for (auto& c : le) {
            c = static_cast<unsigned char>(~c);
        }
        for (auto& c : le) {
            if (++c != 0) {
                break;
            }
        }
        // Now the low bytes of the negative value; drop redundant 0xff sign bytes.
        while (le.size() > 1 && le.back() == 0xff && (le[le.size() - 2] & 0x80) != 0) {
            le.pop_back();
        }
        if (le.empty() || (le.back() & 0x80) == 0) {
            le.push_back(0xff);
        }
    } else if (le.empty() || (le.back() & 0x80) != 0) {
        le.push_back(0);
    }
    if (width != 0) {
        if (le.size() > width) {
            return false;
        }
        le.resize(width, v.neg ? 0xff : 0);
    }
    out.assign(le.rbegin(), le.rend());
    return true;
}

void format_uuid(std::string_view b, std::string& out) {
    static constexpr char hex[] = "0123456789abcdef";
    out.clear();
    for (std::size_t i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            out.push_back('-');
        }
        auto c = static_cast<unsigned char>(b[i]);
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 15]);
    }
}
bool parse_uuid(std::string_view t, std::string& out) {
    out.clear();
    if (t.size() != 36) {
        return false;
    }
    for (std::size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (t[i] != '-') {
                return false;
            }
            ++i;
            continue;
        }
        int h = text::hex_value(t[i]);
        int l = text::hex_value(t[i + 1]);
        if (h < 0 || l < 0) {
            return false;
        }
        out.push_back(static_cast<char>(h * 16 + l));
        i += 2;
    }
    return true;
}

constexpr std::string_view kind_names[] = {"null",  "boolean", "int",    "long",  "float",
                                           "double", "bytes",  "string", "record", "enum",
                                           "array",  "map",    "union",  "fixed"};

// The data model's text of an int or long of a date, time or timestamp logical type at `buf`
// (64 bytes) and its timestamp kind; 0 when `v` has no such form (it stays an integer).
std::size_t logical_int_text(const node& t, std::int64_t v, char* buf, timestamp_kind& k) {
    switch (t.lt) {
        case logical::date:
            if (format_date(v, buf)) {
                k = timestamp_kind::local_date;
                return 10;
            }
            return 0;
        case logical::time_millis:
        case logical::time_micros: {
            ts_unit u = unit_of(t.lt);
            if (v >= 0 && v < 86400 * u.per_second) {
                k = timestamp_kind::local_time;
                return format_time(v / u.per_second, static_cast<std::uint64_t>(v % u.per_second),
                                   u.digits, buf);
            }
            return 0;
        }
        case logical::timestamp_millis:
        case logical::timestamp_micros:
        case logical::timestamp_nanos:
        case logical::local_timestamp_millis:
        case logical::local_timestamp_micros:
        case logical::local_timestamp_nanos: {
            ts_unit u = unit_of(t.lt);
            std::int64_t secs = floor_div(v, u.per_second);
            std::int64_t frac = v - secs * u.per_second;
            std::int64_t days = floor_div(secs, 86400);
            if (!format_date(days, buf)) {
                return 0;
            }
            buf[10] = 'T';
            std::size_t n = 11 + format_time(secs - days * 86400, static_cast<std::uint64_t>(frac),
                                             u.digits, buf + 11);
            bool local = is_local(t.lt);
            if (!local) {
                buf[n++] = 'Z';
            }
            k = local ? timestamp_kind::local_date_time : timestamp_kind::offset_date_time;
            return n;
        }
        default:
            return 0;
    }
}

// The name of a union branch in the JSON encoding: a named type's full name, else its type.
std::string_view branch_name(const node& n) {
    return n.name.empty() ? kind_names[static_cast<std::size_t>(n.kind)]
                          : std::string_view(n.name);
}

// ---- reader ----

struct resolve_error {};

class avro_reader {
public:
    avro_reader(const schema& w, const schema* r, builder& b) : w_(w), r_(r), b_(b) {}

    /// Writes the Avro JSON encoding's form instead of the data model's: a non-null union
    /// value as {"branch": value}, bytes and fixed as text of code points 0-255, logical
    /// types as their underlying values.
    void set_json_form(bool on) { json_form_ = on; }

    void set_input(std::string_view in, std::size_t base) {
        p_ = reinterpret_cast<const unsigned char*>(in.data());
        begin_ = p_;
        end_ = p_ + in.size();
        base_ = base;
    }
    std::size_t offset() const { return base_ + static_cast<std::size_t>(p_ - begin_); }
    bool at_end() const { return p_ == end_; }

    // One datum of writer type `wn` (resolved to reader type `rn` when there is a reader).
    result<void> datum(std::uint32_t wn, std::uint32_t rn) {
        return r_ == nullptr ? read(wn) : resolve(wn, rn);
    }

    result<std::int64_t> read_long(const char* what) {
        std::uint64_t v = 0;
        const unsigned char* start = p_;
        for (unsigned shift = 0;; shift += 7) {
            if (p_ == end_) {
                return fail(make_error(errc::unexpected_eof, offset(),
                                       std::string("expected ") + what + ", saw end of input"));
            }
            unsigned char c = *p_++;
            if (shift == 63 && (c & 0x7e) != 0) {
                return fail(make_error(errc::invalid_number, at(start),
                                       std::string("varint longer than 64 bits for ") + what));
            }
            v |= std::uint64_t{c & 0x7fu} << shift;
            if ((c & 0x80) == 0) {
                break;
            }
            if (shift == 63) {
                return fail(make_error(errc::invalid_number, at(start),
                                       std::string("varint longer than 10 bytes for ") + what));
            }
        }
        return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
    }
    result<std::int32_t> read_int(const char* what) {
        const unsigned char* start = p_;
        auto v = read_long(what);
        if (!v) {
            return fail(v.error());
        }
        if (*v < INT32_MIN || *v > INT32_MAX) {
            return fail(make_error(errc::invalid_number, at(start),
                                   std::string(what) + " out of the 32-bit range"));
        }
        return static_cast<std::int32_t>(*v);
    }
    result<std::string_view> read_raw(std::uint64_t n, const char* what) {
        if (n > static_cast<std::uint64_t>(end_ - p_)) {
            return fail(make_error(errc::unexpected_eof, offset(),
                                   std::string("expected ") + std::to_string(n) + " bytes of " +
                                       what + ", saw " + std::to_string(end_ - p_)));
        }
        std::string_view s(reinterpret_cast<const char*>(p_), n);
        p_ += n;
        return s;
    }
    result<std::string_view> read_bytes(const char* what) {
        const unsigned char* start = p_;
        auto n = read_long(what);
        if (!n) {
            return fail(n.error());
        }
        if (*n < 0 || static_cast<std::uint64_t>(*n) > static_cast<std::uint64_t>(end_ - p_)) {
            return fail(make_error(*n < 0 ? errc::malformed : errc::size_exceeded, at(start),
                                   "length " + std::to_string(*n) + " of " + what +
                                       (*n < 0 ? " is negative" : " beyond the input")));
        }
        std::string_view s(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(*n));
        p_ += *n;
        return s;
    }
    result<std::string_view> read_string() {
        auto s = read_bytes("a string");
        if (!s) {
            return s;
        }
        std::size_t valid = utf8_valid_prefix(*s);
        if (valid != s->size()) {
            return fail(make_error(errc::invalid_utf8, offset() - s->size() + valid,
                                   "invalid UTF-8 in string"));
        }
        return s;
    }

private:
    std::size_t at(const unsigned char* p) const {
        return base_ + static_cast<std::size_t>(p - begin_);
    }
    result<void> limit() { return fail(limit_error(b_, offset())); }

    // A block count (specification "Arrays": a negative count is followed by the block's
    // size in bytes), checked against the input left.
    result<std::uint64_t> block_count(std::uint64_t min_item, const char* what) {
        const unsigned char* start = p_;
        auto n = read_long(what);
        if (!n) {
            return fail(n.error());
        }
        std::uint64_t count;
        if (*n < 0) {
            if (*n == INT64_MIN) {
                return fail(make_error(errc::malformed, at(start), "block count out of range"));
            }
            count = static_cast<std::uint64_t>(-*n);
            auto size = read_long("a block size");
            if (!size) {
                return fail(size.error());
            }
            if (*size < 0 || static_cast<std::uint64_t>(*size) > static_cast<std::uint64_t>(end_ - p_)) {
                return fail(make_error(errc::size_exceeded, at(start),
                                       "block size " + std::to_string(*size) + " of " + what +
                                           " beyond the input"));
            }
        } else {
            count = static_cast<std::uint64_t>(*n);
        }
        bool too_many = min_item == 0 ? count > max_zero_size_items
                                      : count > static_cast<std::uint64_t>(end_ - p_) / min_item;
        if (too_many) {
            return fail(make_error(errc::size_exceeded, at(start),
                                   "block of " + std::to_string(count) + " items of " + what +
                                       " beyond the input"));
        }
        return count;
    }

    // The blocks of an array or map whose writer's items are `items`: each item (after its
    // key, for a map) by item().
    template <class Item>
    result<void> read_blocks(bool is_map, std::uint32_t items, Item&& item) {
        if (!(is_map ? b_.begin_map() : b_.begin_array())) {
            return limit();
        }
        std::uint64_t item_min = w_.nodes[items].min_size + (is_map ? 1 : 0);
        while (true) {
            auto n = block_count(item_min, is_map ? "a map" : "an array");
            if (!n) {
                return fail(n.error());
            }
            if (*n == 0) {
                break;
            }
            for (std::uint64_t i = 0; i < *n; ++i) {
                if (is_map) {
                    auto k = read_string();
                    if (!k) {
                        return fail(k.error());
                    }
                    b_.add_string(*k);
                }
                POLYCODEC_TRY(item());
            }
            if (!b_.ok()) {
                return limit();
            }
        }
        if (is_map) {
            b_.end_map();
        } else {
            b_.end_array();
        }
        return {};
    }

    // A long that indexes one of `count` things (a union's branches, an enum's symbols): `what`
    // names it for read_long, out_of_range(i) words the error when it is not below count.
    template <class OutOfRange>
    result<std::uint32_t> index_below(std::size_t count, const char* what,
                                      OutOfRange&& out_of_range) {
        const unsigned char* start = p_;
        auto i = read_long(what);
        if (!i) {
            return fail(i.error());
        }
        if (*i < 0 || static_cast<std::uint64_t>(*i) >= count) {
            return fail(make_error(errc::malformed, at(start), out_of_range(*i)));
        }
        return static_cast<std::uint32_t>(*i);
    }
    result<std::uint32_t> union_index(const node& t) {
        return index_below(t.branches.size(), "a union branch index", [&](std::int64_t i) {
            return "union branch index " + std::to_string(i) + " out of range (the union has " +
                   std::to_string(t.branches.size()) + " branches)";
        });
    }
    result<std::uint32_t> enum_index(const node& t) {
        return index_below(t.symbols.size(), "an enum index", [&](std::int64_t i) {
            return "enum index " + std::to_string(i) + " out of range for " + t.name + " (" +
                   std::to_string(t.symbols.size()) + " symbols)";
        });
    }

    result<double> read_float() {
        if (end_ - p_ < 4) {
            return fail(make_error(errc::unexpected_eof, offset(),
                                   "expected a float, saw end of input"));
        }
        std::uint32_t bits;
        std::memcpy(&bits, p_, 4);
        p_ += 4;
        float f;
        std::memcpy(&f, &bits, 4);
        return static_cast<double>(f);
    }
    result<double> read_double() {
        if (end_ - p_ < 8) {
            return fail(make_error(errc::unexpected_eof, offset(),
                                   "expected a double, saw end of input"));
        }
        double d;
        std::memcpy(&d, p_, 8);
        p_ += 8;
        return d;
    }

    // An int or long of a logical type, as the data model's value.
    void add_logical_int(const node& t, std::int64_t v) {
        if (json_form_) {
            b_.add_int(v);
            return;
        }
        char buf[64];
        timestamp_kind k;
        if (std::size_t n = logical_int_text(t, v, buf, k)) {
            b_.add_timestamp(std::string_view(buf, n), k);
            return;
        }
        b_.add_int(v, t.kind == type_kind::int_ ? int_width::bits32 : int_width::bits64);
    }

    // An int or long of node t: with its logical type, else as an integer of that width.
    void add_node_int(const node& t, std::int64_t v, int_width width) {
        if (t.lt == logical::none) {
            b_.add_int(v, width);
        } else {
            add_logical_int(t, v);
        }
    }
    // A string, bytes (with t's logical type) or a fixed of `size` bytes (likewise), read.
    result<void> read_string_value() {
        POLYCODEC_TRY_ASSIGN(s, read_string());
        b_.add_string(s);
        return {};
    }
    result<void> read_bytes_as(const node& t) {
        POLYCODEC_TRY_ASSIGN(s, read_bytes("bytes"));
        add_logical_bytes(t, s);
        return {};
    }
    result<void> read_fixed_as(const node& t, std::uint64_t size) {
        POLYCODEC_TRY_ASSIGN(s, read_raw(size, "a fixed"));
        add_logical_bytes(t, s);
        return {};
    }
    void add_logical_bytes(const node& t, std::string_view s) {
        if (json_form_) {
            scratch_.clear();
            for (char c : s) {
                auto u = static_cast<unsigned char>(c);
                if (u < 0x80) {
                    scratch_.push_back(c);
                } else {
                    scratch_.push_back(static_cast<char>(0xc0 | (u >> 6)));
                    scratch_.push_back(static_cast<char>(0x80 | (u & 0x3f)));
                }
            }
            b_.add_string(scratch_);
            return;
        }
        if (t.lt == logical::decimal) {
            scratch_ = decimal_text(s, t.scale);
            b_.add_string(scratch_);
        } else if (t.lt == logical::uuid) {
            format_uuid(s, scratch_);
            b_.add_string(scratch_);
        } else if (t.lt == logical::duration) {
            auto u32 = [&](std::size_t i) {
                std::uint32_t v;
                std::memcpy(&v, s.data() + i, 4);
                return v;
            };
            b_.begin_map();
            b_.add_string("months");
            b_.add_int(u32(0));
            b_.add_string("days");
            b_.add_int(u32(4));
            b_.add_string("milliseconds");
            b_.add_int(u32(8));
            b_.end_map();
        } else {
            b_.add_bytes(s);
        }
    }

    result<void> read(std::uint32_t ti) {
        const node& t = w_.nodes[ti];
        switch (t.kind) {
            case type_kind::null_:
                b_.add_null();
                return {};
            case type_kind::boolean: {
                if (p_ == end_) {
                    return fail(make_error(errc::unexpected_eof, offset(),
                                           "expected a boolean, saw end of input"));
                }
                if (*p_ > 1) {
                    return fail(make_error(errc::malformed, offset(),
                                           "expected a boolean (0 or 1), saw byte " +
                                               std::to_string(*p_)));
                }
                b_.add_bool(*p_++ == 1);
                return {};
            }
            case type_kind::int_: {
                POLYCODEC_TRY_ASSIGN(v, read_int("an int"));
                add_node_int(t, v, int_width::bits32);
                return {};
            }
            case type_kind::long_: {
                POLYCODEC_TRY_ASSIGN(v, read_long("a long"));
                add_node_int(t, v, int_width::bits64);
                return {};
            }
            case type_kind::float_: {
                POLYCODEC_TRY_ASSIGN(v, read_float());
                b_.add_double(v);
                return {};
            }
            case type_kind::double_: {
                POLYCODEC_TRY_ASSIGN(v, read_double());
                b_.add_double(v);
                return {};
            }
            case type_kind::bytes:
                return read_bytes_as(t);
            case type_kind::string:
                return read_string_value();
            case type_kind::fixed:
                return read_fixed_as(t, t.size);
            case type_kind::enum_: {
                POLYCODEC_TRY_ASSIGN(i, enum_index(t));
                b_.add_string(t.symbols[i]);
                return {};
            }
            case type_kind::union_: {
                POLYCODEC_TRY_ASSIGN(i, union_index(t));
                std::uint32_t br = t.branches[i];
                if (!json_form_ || w_.nodes[br].kind == type_kind::null_) {
                    return read(br);
                }
                if (!b_.begin_map()) {
                    return limit();
                }
                b_.add_string(branch_name(w_.nodes[br]));
                POLYCODEC_TRY(read(br));
                b_.end_map();
                return {};
            }
            case type_kind::record: {
                if (!b_.begin_map()) {
                    return limit();
                }
                for (const field& f : t.fields) {
                    b_.add_string(f.name);
                    POLYCODEC_TRY(read(f.type));
                }
                b_.end_map();
                return {};
            }
            case type_kind::array:
            case type_kind::map:
                return read_blocks(t.kind == type_kind::map, t.items,
                                   [&] { return read(t.items); });
        }
        return {};
    }

    // ---- skipping (writer fields the reader does not have) ----

    result<void> skip(std::uint32_t ti, std::uint32_t depth) {
        if (depth > b_.limits().max_depth) {
            return fail(make_error(errc::depth_exceeded, offset(),
                                   "nesting deeper than " +
                                       std::to_string(b_.limits().max_depth)));
        }
        const node& t = w_.nodes[ti];
        switch (t.kind) {
            case type_kind::null_:
                return {};
            case type_kind::boolean:
                return read_raw(1, "a boolean") ? result<void>{} : fail(eof_here("a boolean"));
            case type_kind::int_:
            case type_kind::long_:
            case type_kind::enum_: {
                auto v = read_long("an integer");
                return v ? result<void>{} : fail(v.error());
            }
            case type_kind::float_:
            case type_kind::double_:
            case type_kind::fixed: {
                std::uint64_t n = t.kind == type_kind::float_    ? 4
                                  : t.kind == type_kind::double_ ? 8
                                                                 : t.size;
                auto s = read_raw(n, "a value");
                return s ? result<void>{} : fail(s.error());
            }
            case type_kind::bytes:
            case type_kind::string: {
                auto s = read_bytes("bytes");
                return s ? result<void>{} : fail(s.error());
            }
            case type_kind::union_: {
                auto i = union_index(t);
                if (!i) {
                    return fail(i.error());
                }
                return skip(t.branches[*i], depth + 1);
            }
            case type_kind::record:
                for (const field& f : t.fields) {
                    POLYCODEC_TRY(skip(f.type, depth + 1));
                }
                return {};
            case type_kind::array:
            case type_kind::map: {
                bool is_map = t.kind == type_kind::map;
                std::uint64_t item_min = w_.nodes[t.items].min_size + (is_map ? 1 : 0);
                while (true) {
                    auto n = block_count(item_min, "a block");
                    if (!n) {
                        return fail(n.error());
                    }
                    if (*n == 0) {
                        return {};
                    }
                    for (std::uint64_t i = 0; i < *n; ++i) {
                        if (is_map) {
                            auto k = read_bytes("a map key");
                            if (!k) {
                                return fail(k.error());
                            }
                        }
                        POLYCODEC_TRY(skip(t.items, depth + 1));
                    }
                }
            }
        }
        return {};
    }
    error eof_here(const char* what) const {
        return make_error(errc::unexpected_eof, offset(),
                          std::string("expected ") + what + ", saw end of input");
    }

    // ---- schema resolution (specification "Schema Resolution") ----

    static std::string_view unqualified(std::string_view n) {
        auto dot = n.rfind('.');
        return dot == std::string_view::npos ? n : n.substr(dot + 1);
    }
    // Named types match by unqualified name or a reader alias.
    bool names_match(const node& w, const node& r) const {
        if (unqualified(w.name) == unqualified(r.name)) {
            return true;
        }
        for (const std::string& a : r.aliases) {
            if (a == w.name || unqualified(a) == unqualified(w.name)) {
                return true;
            }
        }
        return false;
    }
    // Whether writer type `wn` resolves to reader type `rn` (no union on either side).
    bool matches(std::uint32_t wn, std::uint32_t rn) const {
        const node& w = w_.nodes[wn];
        const node& r = r_->nodes[rn];
        switch (r.kind) {
            case type_kind::long_:
                return w.kind == type_kind::long_ || w.kind == type_kind::int_;
            case type_kind::float_:
                return w.kind == type_kind::float_ || w.kind == type_kind::int_ ||
                       w.kind == type_kind::long_;
            case type_kind::double_:
                return w.kind == type_kind::double_ || w.kind == type_kind::float_ ||
                       w.kind == type_kind::int_ || w.kind == type_kind::long_;
            case type_kind::string:
            case type_kind::bytes:
                return w.kind == type_kind::string || w.kind == type_kind::bytes;
            case type_kind::record:
            case type_kind::enum_:
                return w.kind == r.kind && names_match(w, r);
            case type_kind::fixed:
                return w.kind == r.kind && names_match(w, r) && w.size == r.size;
            case type_kind::array:
            case type_kind::map:
                return w.kind == r.kind;
            default:
                return w.kind == r.kind;
        }
    }
    error mismatch(std::uint32_t wn, std::uint32_t rn) const {
        auto describe_node = [](const node& n) {
            static constexpr const char* names[] = {"null",   "boolean", "int",   "long",
                                                    "float",  "double",  "bytes", "string",
                                                    "record", "enum",    "array", "map",
                                                    "union",  "fixed"};
            std::string s = names[static_cast<std::size_t>(n.kind)];
            if (!n.name.empty()) {
                s += " " + n.name;
            }
            return s;
        };
        return make_error(errc::unrepresentable, offset(),
                          "the writer's " + describe_node(w_.nodes[wn]) +
                              " does not resolve to the reader's " +
                              describe_node(r_->nodes[rn]));
    }

    result<void> resolve(std::uint32_t wn, std::uint32_t rn) {
        const node& w = w_.nodes[wn];
        const node& r = r_->nodes[rn];
        if (w.kind == type_kind::union_) {
            POLYCODEC_TRY_ASSIGN(i, union_index(w));
            return resolve(w.branches[i], rn);
        }
        if (r.kind == type_kind::union_) {
            // The first branch of the reader's union that matches the writer's type.
            for (std::uint32_t b : r.branches) {
                if (r_->nodes[b].kind == w.kind && matches(wn, b)) {
                    return resolve(wn, b);
                }
            }
            for (std::uint32_t b : r.branches) {
                if (r_->nodes[b].kind != type_kind::union_ && matches(wn, b)) {
                    return resolve(wn, b);
                }
            }
            return fail(make_error(errc::unrepresentable, offset(),
                                   "no branch of the reader's union matches the writer's type"));
        }
        if (!matches(wn, rn)) {
            return fail(mismatch(wn, rn));
        }
        switch (r.kind) {
            case type_kind::long_:
            case type_kind::float_:
            case type_kind::double_:
                if (w.kind != r.kind) {
                    double d;
                    if (w.kind == type_kind::int_ || w.kind == type_kind::long_) {
                        POLYCODEC_TRY_ASSIGN(v, read_long("an integer"));
                        if (r.kind == type_kind::long_) {
                            add_node_int(r, v, int_width::bits64);
                            return {};
                        }
                        d = static_cast<double>(v);
                        if (r.kind == type_kind::float_) {
                            d = static_cast<double>(static_cast<float>(v));
                        }
                    } else {
                        POLYCODEC_TRY_ASSIGN(v, read_float());
                        d = v;
                    }
                    b_.add_double(d);
                    return {};
                }
                break;
            case type_kind::string:
            case type_kind::bytes:
                if (w.kind != r.kind) {
                    return r.kind == type_kind::string ? read_string_value() : read_bytes_as(r);
                }
                break;
            case type_kind::enum_: {
                POLYCODEC_TRY_ASSIGN(i, enum_index(w));
                const std::string& sym = w.symbols[i];
                for (const std::string& rs : r.symbols) {
                    if (rs == sym) {
                        b_.add_string(rs);
                        return {};
                    }
                }
                if (r.has_enum_default) {
                    b_.add_string(r.symbols[r.enum_default]);
                    return {};
                }
                return fail(make_error(errc::unrepresentable, offset(),
                                       "symbol " + sym + " is not in the reader's enum " +
                                           r.name + ", which has no default"));
            }
            case type_kind::record:
                return resolve_record(w, r);
            case type_kind::array:
            case type_kind::map:
                return read_blocks(r.kind == type_kind::map, w.items,
                                   [&] { return resolve(w.items, r.items); });
            default:
                break;
        }
        // Same primitive or fixed: read with the reader's logical type.
        return read_as(wn, rn);
    }
    // Reads writer type `wn` (same kind as reader `rn`) with the reader's logical type.
    result<void> read_as(std::uint32_t wn, std::uint32_t rn) {
        const node& r = r_->nodes[rn];
        const node& w = w_.nodes[wn];
        switch (r.kind) {
            case type_kind::int_:
            case type_kind::long_: {
                POLYCODEC_TRY_ASSIGN(v, read_long("an integer"));
                add_node_int(r, v,
                             r.kind == type_kind::int_ ? int_width::bits32 : int_width::bits64);
                return {};
            }
            case type_kind::bytes:
                return read_bytes_as(r);
            case type_kind::fixed:
                return read_fixed_as(r, w.size);
            default:
                return read(wn);
        }
    }

    result<void> resolve_record(const node& w, const node& r) {
        if (!b_.begin_map()) {
            return limit();
        }
        // Writer fields in the writer's order (the wire order); those the reader lacks are
        // skipped; then the reader's fields the writer lacks, from their defaults.
        std::vector<char> seen(r.fields.size(), 0);
        for (const field& wf : w.fields) {
            std::size_t match = r.fields.size();
            for (std::size_t i = 0; i < r.fields.size() && match == r.fields.size(); ++i) {
                if (r.fields[i].name == wf.name) {
                    match = i;
                }
            }
            for (std::size_t i = 0; i < r.fields.size() && match == r.fields.size(); ++i) {
                for (const std::string& a : r.fields[i].aliases) {
                    if (a == wf.name) {
                        match = i;
                    }
                }
            }
            if (match == r.fields.size()) {
                POLYCODEC_TRY(skip(wf.type, b_.depth()));
                continue;
            }
            seen[match] = 1;
            b_.add_string(r.fields[match].name);
            POLYCODEC_TRY(resolve(wf.type, r.fields[match].type));
        }
        for (std::size_t i = 0; i < r.fields.size(); ++i) {
            if (seen[i] != 0) {
                continue;
            }
            const field& rf = r.fields[i];
            if (!rf.has_default) {
                return fail(make_error(errc::unrepresentable, offset(),
                                       "the reader's field " + rf.name + " of " + r.name +
                                           " is not in the writer's schema and has no default"));
            }
            b_.add_string(rf.name);
            POLYCODEC_TRY(add_default(rf.type, rf.default_value.root(), 0));
        }
        b_.end_map();
        return {};
    }

public:
    // A default value (the JSON encoding of its type; a union's default is its first
    // branch's value) written as the data model value a datum of type `ti` decodes to.
    result<void> add_default(std::uint32_t ti, value v, std::uint32_t depth) {
        const schema& s = r_ != nullptr ? *r_ : w_;
        const node& t = s.nodes[ti];
        auto wrong = [&]() {
            return fail(make_error(errc::invalid_option, offset(),
                                   "a default value does not match its type"));
        };
        // A map's or a record's default: a map, opened in the builder.
        auto begin_map = [&]() -> result<void> {
            if (v.kind() != kind::map || !b_.begin_map()) {
                return v.kind() != kind::map ? wrong() : limit();
            }
            return {};
        };
        if (depth > 128) {
            return wrong();
        }
        switch (t.kind) {
            case type_kind::null_:
                if (!v.is_null()) {
                    return wrong();
                }
                b_.add_null();
                return {};
            case type_kind::boolean:
                if (!v.is_bool()) {
                    return wrong();
                }
                b_.add_bool(v.get_bool());
                return {};
            case type_kind::int_:
            case type_kind::long_:
                if (v.kind() != kind::int64) {
                    return wrong();
                }
                if (t.lt == logical::none) {
                    b_.add_int(v.get_int(), t.kind == type_kind::int_ ? int_width::bits32
                                                                      : int_width::bits64);
                } else {
                    add_logical_int(t, v.get_int());
                }
                return {};
            case type_kind::float_:
            case type_kind::double_:
                if (v.kind() == kind::int64) {
                    b_.add_double(static_cast<double>(v.get_int()));
                } else if (v.kind() == kind::float64) {
                    b_.add_double(v.get_double());
                } else {
                    return wrong();
                }
                return {};
            case type_kind::string:
                if (v.kind() != kind::string) {
                    return wrong();
                }
                b_.add_string(v.get_string());
                return {};
            case type_kind::bytes:
            case type_kind::fixed: {
                // JSON encoding: code points 0-255 are the bytes.
                if (v.kind() != kind::string) {
                    return wrong();
                }
                std::string raw;
                if (!latin1_bytes(v.get_string(), raw) ||
                    (t.kind == type_kind::fixed && raw.size() != t.size)) {
                    return wrong();
                }
                add_logical_bytes(t, raw);
                return {};
            }
            case type_kind::enum_:
                if (v.kind() != kind::string) {
                    return wrong();
                }
                for (const std::string& sym : t.symbols) {
                    if (sym == v.get_string()) {
                        b_.add_string(sym);
                        return {};
                    }
                }
                return wrong();
            case type_kind::union_:
                if (t.branches.empty()) {
                    return wrong();
                }
                return add_default(t.branches[0], v, depth + 1);
            case type_kind::array:
                if (v.kind() != kind::array || !b_.begin_array()) {
                    return v.kind() != kind::array ? wrong() : limit();
                }
                for (value x : v.items()) {
                    POLYCODEC_TRY(add_default(t.items, x, depth + 1));
                }
                b_.end_array();
                return {};
            case type_kind::map:
                POLYCODEC_TRY(begin_map());
                for (auto [k, x] : v.entries()) {
                    if (k.kind() != kind::string) {
                        return wrong();
                    }
                    b_.add_string(k.get_string());
                    POLYCODEC_TRY(add_default(t.items, x, depth + 1));
                }
                b_.end_map();
                return {};
            case type_kind::record:
                POLYCODEC_TRY(begin_map());
                for (const field& f : t.fields) {
                    value x = v.find(f.name);
                    b_.add_string(f.name);
                    if (x.doc() != nullptr) {
                        POLYCODEC_TRY(add_default(f.type, x, depth + 1));
                    } else if (f.has_default) {
                        POLYCODEC_TRY(add_default(f.type, f.default_value.root(), depth + 1));
                    } else {
                        return wrong();
                    }
                }
                b_.end_map();
                return {};
        }
        return {};
    }

    static bool latin1_bytes(std::string_view s, std::string& out) {
        out.clear();
        for (std::size_t i = 0; i < s.size(); ++i) {
            auto c = static_cast<unsigned char>(s[i]);
            if (c < 0x80) {
                out.push_back(static_cast<char>(c));
            } else if ((c == 0xc2 || c == 0xc3) && i + 1 < s.size()) {
                out.push_back(static_cast<char>(((c & 0x03) << 6) |
                                                (static_cast<unsigned char>(s[++i]) & 0x3f)));
            } else {
                return false;
            }
        }
        return true;
    }

private:
    const schema& w_;
    const schema* r_;
    builder& b_;
    const unsigned char* p_ = nullptr;
    const unsigned char* begin_ = nullptr;
    const unsigned char* end_ = nullptr;
    std::size_t base_ = 0;
    std::string scratch_;
    bool json_form_ = false;
};

// ---- fast reader ----
//
// The reader of valid input with no reader schema and no JSON form: it writes the tape and
// the payload bytes directly (detail::tape_writer) instead of through the builder, with
// one-byte varints read inline. It handles valid input within the limits only: on any error,
// limit or doubt (also decimal, uuid and duration values) it returns false, and the caller
// resets the builder and runs avro_reader, which decides (and words) every error exactly as
// before. On success the tape is the one avro_reader would have built.

using fast_tape = tape_writer<256, 2048, false>;

class fast_reader {
public:
    fast_reader(const schema& w, fast_tape& tw, const build_limits& limits)
        : w_(w), tw_(tw), max_depth_(limits.max_depth), max_bytes_(limits.max_bytes) {}

    void set_input(std::string_view in) {
        p_ = reinterpret_cast<const unsigned char*>(in.data());
        end_ = p_ + in.size();
    }
    bool at_end() const { return p_ == end_; }

    /// One datum of type `ti` at builder depth `depth`.
    bool read(std::uint32_t ti, std::size_t depth) {
        const node& t = w_.nodes[ti];
        std::uint64_t* w = tw_.words(4);
        switch (t.kind) {
            case type_kind::null_:
                w[0] = tape_word(kind::null, 0, 0);
                tw_.advance(1);
                return true;
            case type_kind::boolean:
                if (p_ == end_ || *p_ > 1) {
                    return false;
                }
                w[0] = tape_word(*p_++ == 1 ? kind::boolean_true : kind::boolean_false, 0, 0);
                tw_.advance(1);
                return true;
            case type_kind::int_:
            case type_kind::long_: {
                std::int64_t v;
                if (!read_long(v)) {
                    return false;
                }
                bool is_int = t.kind == type_kind::int_;
                if (is_int && (v < INT32_MIN || v > INT32_MAX)) {
                    return false;
                }
                if (t.lt != logical::none) {
                    char buf[64];
                    timestamp_kind k;
                    if (std::size_t n = logical_int_text(t, v, buf, k)) {
                        std::memcpy(tw_.bytes(n), buf, n);
                        tw_.payload(w, kind::timestamp, static_cast<std::uint64_t>(k), n);
                        return true;
                    }
                }
                w[0] = tape_word(kind::int64,
                                 static_cast<std::uint64_t>(is_int ? int_width::bits32
                                                                   : int_width::bits64),
                                 0);
                w[1] = static_cast<std::uint64_t>(v);
                tw_.advance(2);
                return true;
            }
            case type_kind::float_:
                if (end_ - p_ < 4) {
                    return false;
                }
                tw_.scalar(w, kind::float64, load_f32_widened(p_));
                p_ += 4;
                tw_.advance(2);
                return true;
            case type_kind::double_:
                if (end_ - p_ < 8) {
                    return false;
                }
                w[0] = tape_word(kind::float64, 0, 0);
                std::memcpy(&w[1], p_, 8);
                p_ += 8;
                tw_.advance(2);
                return true;
            case type_kind::string:
                return read_string(w);
            case type_kind::bytes:
            case type_kind::fixed: {
                if (t.lt == logical::decimal || t.lt == logical::uuid ||
                    t.lt == logical::duration) {
                    return false;  // avro_reader::add_logical_bytes
                }
                std::uint64_t n = t.size;
                if (t.kind == type_kind::bytes) {
                    std::int64_t len;
                    if (!read_long(len) || len < 0) {
                        return false;
                    }
                    n = static_cast<std::uint64_t>(len);
                }
                if (n > static_cast<std::uint64_t>(end_ - p_)) {
                    return false;
                }
                std::memcpy(tw_.bytes(n), p_, n);
                p_ += n;
                tw_.payload(w, kind::bytes, 0, n);
                return n <= 4096 || !tw_.over_budget(max_bytes_);
            }
            case type_kind::enum_: {
                std::int64_t i;
                if (!read_long(i) || i < 0 || static_cast<std::uint64_t>(i) >= t.symbols.size()) {
                    return false;
                }
                const std::string& sym = t.symbols[static_cast<std::size_t>(i)];
                put_text(w, sym);
                return true;
            }
            case type_kind::union_: {
                std::int64_t i;
                if (!read_long(i) || i < 0 || static_cast<std::uint64_t>(i) >= t.branches.size()) {
                    return false;
                }
                return read(t.branches[static_cast<std::size_t>(i)], depth);
            }
            case type_kind::record: {
                if (depth >= max_depth_ || tw_.over_budget(max_bytes_)) {
                    return false;
                }
                std::size_t start = tw_.size();
                tw_.open(w, kind::map, t.fields.size());
                for (const field& f : t.fields) {
                    put_text(tw_.words(4), f.name);
                    if (!read(f.type, depth + 1)) {
                        return false;
                    }
                }
                tw_.close(start);
                return true;
            }
            case type_kind::array:
            case type_kind::map: {
                if (depth >= max_depth_ || tw_.over_budget(max_bytes_)) {
                    return false;
                }
                bool is_map = t.kind == type_kind::map;
                std::size_t start = tw_.size();
                tw_.open(w, is_map ? kind::map : kind::array, 0);
                std::uint64_t item_min = w_.nodes[t.items].min_size + (is_map ? 1 : 0);
                std::uint64_t total = 0;
                for (;;) {
                    std::uint64_t n;
                    if (!block_count(item_min, n)) {
                        return false;
                    }
                    if (n == 0) {
                        break;
                    }
                    total += n;
                    const node& items = w_.nodes[t.items];
                    if (!is_map && items.kind == type_kind::long_ && items.lt == logical::none) {
                        // The common array of longs: no per-item dispatch.
                        if (n > max_bytes_ / 16) {
                            return false;
                        }
                        std::uint64_t* iw = tw_.words(2 * n);
                        for (std::uint64_t i = 0; i < n; ++i) {
                            std::int64_t v;
                            if (!read_long(v)) {
                                return false;
                            }
                            iw[0] = tape_word(kind::int64,
                                              static_cast<std::uint64_t>(int_width::bits64), 0);
                            iw[1] = static_cast<std::uint64_t>(v);
                            iw += 2;
                        }
                        tw_.advance(2 * n);
                        if (tw_.over_budget(max_bytes_)) {
                            return false;
                        }
                        continue;
                    }
                    for (std::uint64_t i = 0; i < n; ++i) {
                        if (is_map && !read_string(tw_.words(4))) {
                            return false;
                        }
                        if (!read(t.items, depth + 1)) {
                            return false;
                        }
                    }
                    if (tw_.over_budget(max_bytes_)) {
                        return false;
                    }
                }
                tw_.close(start, total);
                return true;
            }
        }
        return false;
    }

private:
    // A zig-zag varint; one-byte ones inline (avro_reader::read_long decides the others).
    [[gnu::always_inline]] bool read_long(std::int64_t& out) {
        std::uint64_t v;
        if (p_ != end_ && *p_ < 0x80) {
            v = *p_++;
        } else if (end_ - p_ >= 2 && p_[1] < 0x80) {
            v = (p_[0] & 0x7fu) | std::uint64_t{p_[1]} << 7;
            p_ += 2;
        } else if (!read_varint(v)) {
            return false;
        }
        out = static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
        return true;
    }
    [[gnu::noinline]] bool read_varint(std::uint64_t& v) {
        v = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (p_ == end_) {
                return false;
            }
            unsigned c = *p_++;
            if (shift == 63 && (c & 0x7e) != 0) {
                return false;
            }
            v |= std::uint64_t{c & 0x7fu} << shift;
            if ((c & 0x80) == 0) {
                return true;
            }
            if (shift == 63) {
                return false;
            }
        }
    }
    // The count of a block (avro_reader::block_count), its size skipped.
    bool block_count(std::uint64_t min_item, std::uint64_t& count) {
        std::int64_t n;
        if (!read_long(n)) {
            return false;
        }
        if (n < 0) {
            std::int64_t size;
            if (n == INT64_MIN || !read_long(size) || size < 0 ||
                static_cast<std::uint64_t>(size) > static_cast<std::uint64_t>(end_ - p_)) {
                return false;
            }
            count = static_cast<std::uint64_t>(-n);
        } else {
            count = static_cast<std::uint64_t>(n);
        }
        return min_item == 0 ? count <= max_zero_size_items
                             : count <= static_cast<std::uint64_t>(end_ - p_) / min_item;
    }
    bool read_string(std::uint64_t* w) {
        std::int64_t len;
        if (!read_long(len) || len < 0 ||
            static_cast<std::uint64_t>(len) > static_cast<std::uint64_t>(end_ - p_)) {
            return false;
        }
        auto n = static_cast<std::size_t>(len);
        if (n <= 16 && end_ - p_ >= 16) {
            // Short: one fixed 16-byte copy (the bytes past n are overwritten next or cut at
            // the end), checked for ASCII at once; only other text is validated as UTF-8.
            std::memcpy(tw_.bytes(16), p_, 16);
            std::uint64_t a, c;
            std::memcpy(&a, p_, 8);
            std::memcpy(&c, p_ + 8, 8);
            std::uint64_t ma = n >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
            std::uint64_t mc = n <= 8    ? 0
                               : n == 16 ? ~std::uint64_t{0}
                                         : (std::uint64_t{1} << (8 * (n - 8))) - 1;
            if ((((a & ma) | (c & mc)) & 0x8080808080808080ULL) != 0 &&
                utf8_valid_prefix({reinterpret_cast<const char*>(p_), n}) != n) {
                return false;
            }
            p_ += n;
            tw_.payload(w, kind::string, 0, n);
            return true;
        }
        std::string_view s(reinterpret_cast<const char*>(p_), n);
        if (utf8_valid_prefix(s) != n) {
            return false;
        }
        std::memcpy(tw_.bytes(n), p_, n);
        p_ += n;
        tw_.payload(w, kind::string, 0, n);
        return n <= 4096 || !tw_.over_budget(max_bytes_);
    }
    void put_text(std::uint64_t* w, const std::string& s) {
        std::memcpy(tw_.bytes(s.size()), s.data(), s.size());
        tw_.payload(w, kind::string, 0, s.size());
    }

    const schema& w_;
    fast_tape& tw_;
    const unsigned char* p_ = nullptr;
    const unsigned char* end_ = nullptr;
    std::size_t max_depth_;
    std::size_t max_bytes_;
};

// ---- writer ----

void put_long(output_buffer& out, std::int64_t v) {
    auto z = (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
    char* p = out.prepare(10);
    std::size_t n = 0;
    while (z >= 0x80) {
        p[n++] = static_cast<char>((z & 0x7f) | 0x80);
        z >>= 7;
    }
    p[n++] = static_cast<char>(z);
    out.commit(n);
}
void put_bytes(output_buffer& out, std::string_view s) {
    put_long(out, static_cast<std::int64_t>(s.size()));
    out.append(s.data(), s.size());
}

std::string type_desc(const node& n) {
    std::string s(kind_names[static_cast<std::size_t>(n.kind)]);
    if (!n.name.empty()) {
        s += " " + n.name;
    }
    if (!n.logical_name.empty() && n.lt != logical::none) {
        s += " (" + n.logical_name + ")";
    }
    return s;
}

// How well value `v` fits branch type `ti`: 2 its own kind, 1 by a standard mapping.
int branch_score(const schema& sch, std::uint32_t ti, value v) {
    const node& t = sch.nodes[ti];
    kind k = v.kind();
    switch (t.kind) {
        case type_kind::null_:
            return k == kind::null ? 2 : 0;
        case type_kind::boolean:
            return v.is_bool() ? 2 : 0;
        case type_kind::int_:
            if (k == kind::int64) {
                return v.get_int() >= INT32_MIN && v.get_int() <= INT32_MAX ? 2 : 0;
            }
            if (k == kind::string && t.lt != logical::none) {
                return 1;  // RFC 3339 text from a text format; a string branch wins
            }
            return k == kind::timestamp && t.lt != logical::none ? 2 : 0;
        case type_kind::long_:
            if (k == kind::string && t.lt != logical::none) {
                return 1;
            }
            return k == kind::int64 || (k == kind::timestamp && t.lt != logical::none) ? 2
                                                                                        : 0;
        case type_kind::float_:
            return k == kind::float64 || k == kind::int64 ? 1 : 0;
        case type_kind::double_:
            return k == kind::float64 ? 2 : k == kind::int64 ? 1 : 0;
        case type_kind::string:
            return k == kind::string ? 2 : k == kind::timestamp ? 1 : 0;
        case type_kind::bytes:
            if (t.lt == logical::decimal && (k == kind::string || k == kind::bignum)) {
                return 2;
            }
            return k == kind::bytes ? 2 : k == kind::string ? 1 : 0;
        case type_kind::fixed:
            if (t.lt == logical::duration) {
                return k == kind::map ? 2 : 0;
            }
            if (t.lt != logical::none && k == kind::string) {
                return 2;
            }
            return k == kind::bytes && v.get_string().size() == t.size ? 2 : 0;
        case type_kind::enum_:
            if (k == kind::string) {
                for (const std::string& s : t.symbols) {
                    if (s == v.get_string()) {
                        return 2;
                    }
                }
            }
            return 0;
        case type_kind::array:
            return k == kind::array ? 2 : 0;
        case type_kind::map:
            return k == kind::map ? 1 : 0;
        case type_kind::record: {
            if (k != kind::map) {
                return 0;
            }
            for (auto [key, val] : v.entries()) {
                bool known = false;
                if (key.kind() == kind::string) {
                    for (const field& f : t.fields) {
                        known = known || f.name == key.get_string();
                    }
                }
                if (!known) {
                    return 0;
                }
            }
            for (const field& f : t.fields) {
                if (!f.has_default && v.find(f.name).doc() == nullptr) {
                    return 0;
                }
            }
            return 2;
        }
        case type_kind::union_:
            return 0;
    }
    return 0;
}

// The branch of union `t` that fits v best (the first of the highest branch_score), or
// t.branches.size() when none does.
std::size_t best_branch(const schema& sch, const node& t, value v) {
    std::size_t best = t.branches.size();
    int best_score = 0;
    for (std::size_t i = 0; i < t.branches.size(); ++i) {
        int sc = branch_score(sch, t.branches[i], v);
        if (sc > best_score) {
            best_score = sc;
            best = i;
        }
    }
    return best;
}

class avro_writer {
public:
    avro_writer(const schema& s, output_buffer& out, const encode_options& opt)
        : s_(s), out_(&out), opt_(opt) {}

    /// Reads the Avro JSON encoding's form (avro_reader::set_json_form).
    void set_json_form(bool on) { json_form_ = on; }
    void set_output(output_buffer& out) { out_ = &out; }

    result<void> write(std::uint32_t ti, value v) {
        const node& t = s_.nodes[ti];
        if (v.kind() == kind::tagged) {
            v = v.tagged_value();  // tags have no Avro form; the inner value is written
        }
        switch (t.kind) {
            case type_kind::null_:
                if (!v.is_null()) {
                    return wrong(t, v);
                }
                return {};
            case type_kind::boolean:
                if (!v.is_bool()) {
                    return wrong(t, v);
                }
                out_->push_back(v.get_bool() ? 1 : 0);
                return {};
            case type_kind::int_:
            case type_kind::long_: {
                auto n = integer_of(t, v);
                if (!n) {
                    return fail(n.error());
                }
                put_long(*out_, *n);
                return {};
            }
            case type_kind::float_:
            case type_kind::double_: {
                POLYCODEC_TRY_ASSIGN(d, double_of(t, v));
                if (t.kind == type_kind::double_) {
                    out_->append(&d, 8);
                    return {};
                }
                auto f = static_cast<float>(d);
                if (static_cast<double>(f) != d && !std::isnan(d) &&
                    !allow_lossy(opt_, v, "float_narrowed", "double rounded to float")) {
                    return fail(unrepresentable(v, "a double not exact as an Avro float"));
                }
                out_->append(&f, 4);
                return {};
            }
            case type_kind::string: {
                if (v.kind() == kind::string || v.kind() == kind::timestamp ||
                    v.kind() == kind::bignum) {
                    put_bytes(*out_, v.get_string());
                    return {};
                }
                return wrong(t, v);
            }
            case type_kind::bytes:
            case type_kind::fixed:
                return write_bytes(t, v);
            case type_kind::enum_: {
                if (v.kind() == kind::string) {
                    std::string_view s = v.get_string();
                    for (std::size_t i = 0; i < t.symbols.size(); ++i) {
                        if (t.symbols[i] == s) {
                            put_long(*out_, static_cast<std::int64_t>(i));
                            return {};
                        }
                    }
                    return fail(unrepresentable(v, "\"" + std::string(s) +
                                                       "\" is not a symbol of enum " + t.name));
                }
                return wrong(t, v);
            }
            case type_kind::array: {
                if (v.kind() != kind::array) {
                    return wrong(t, v);
                }
                if (v.size() != 0) {
                    put_long(*out_, static_cast<std::int64_t>(v.size()));
                    for (value item : v.items()) {
                        POLYCODEC_TRY(write(t.items, item));
                    }
                }
                out_->push_back(0);
                return {};
            }
            case type_kind::map: {
                if (v.kind() != kind::map) {
                    return wrong(t, v);
                }
                if (v.size() != 0) {
                    put_long(*out_, static_cast<std::int64_t>(v.size()));
                    for (auto [k, item] : v.entries()) {
                        if (k.kind() == kind::string) {
                            put_bytes(*out_, k.get_string());
                        } else if (k.kind() == kind::int64 || k.kind() == kind::uint64) {
                            std::string key = k.kind() == kind::int64
                                                  ? std::to_string(k.get_int())
                                                  : std::to_string(k.get_uint());
                            put_bytes(*out_, key);
                        } else {
                            return fail(unrepresentable(
                                k, std::string("an Avro map key must be a string, saw ") +
                                       kind_phrase(k.kind())));
                        }
                        POLYCODEC_TRY(write(t.items, item));
                    }
                }
                out_->push_back(0);
                return {};
            }
            case type_kind::record:
                return write_record(t, v);
            case type_kind::union_:
                return write_union(t, v);
        }
        return {};
    }

private:
    tl::unexpected<error> wrong(const node& t, value v) const {
        return fail(unrepresentable(v, std::string(kind_phrase(v.kind())) +
                                           " is not representable as Avro " + type_desc(t)));
    }

    // The value of a float or double: a float64, or an int64 (exact, or rounded under lossy).
    result<double> double_of(const node& t, value v) {
        if (v.kind() == kind::float64) {
            return v.get_double();
        }
        if (v.kind() != kind::int64) {
            return wrong(t, v);
        }
        const auto d = static_cast<double>(v.get_int());
        if (static_cast<std::int64_t>(d) != v.get_int() &&
            !allow_lossy(opt_, v, "int_to_float", "integer rounded to a float")) {
            return fail(unrepresentable(v, "integer not exact as an Avro " + type_desc(t)));
        }
        return d;
    }
    result<std::int64_t> integer_of(const node& t, value v) {
        std::int64_t n;
        if (v.kind() == kind::int64) {
            n = v.get_int();
        } else if ((v.kind() == kind::timestamp || v.kind() == kind::string) &&
                   t.lt != logical::none && !json_form_) {
            // A string is the RFC 3339 text that text formats carry timestamps as.
            auto r = from_timestamp(t, v);
            if (!r) {
                return r;
            }
            n = *r;
        } else {
            return wrong(t, v);
        }
        if (t.kind == type_kind::int_ && (n < INT32_MIN || n > INT32_MAX)) {
            return fail(unrepresentable(v, std::to_string(n) + " is out of the range of an "
                                                              "Avro int"));
        }
        return n;
    }

    // A timestamp value as the count of its logical type.
    result<std::int64_t> from_timestamp(const node& t, value v) {
        std::string_view text = v.get_string();
        timestamp_kind k = v.get_timestamp_kind();
        if (v.kind() == kind::string) {
            k = t.lt == logical::date ? timestamp_kind::local_date
                : t.lt == logical::time_millis || t.lt == logical::time_micros
                    ? timestamp_kind::local_time
                : is_local(t.lt) ? timestamp_kind::local_date_time
                                 : timestamp_kind::offset_date_time;
        }
        auto bad = [&](const char* want) {
            return fail(unrepresentable(v, "timestamp \"" + std::string(text) +
                                               "\" is not representable as Avro " +
                                               type_desc(t) + " (expected " + want + ")"));
        };
        ts_unit u = unit_of(t.lt);
        switch (t.lt) {
            case logical::date: {
                if (k != timestamp_kind::local_date) {
                    return bad("a local date");
                }
                epoch_instant e;
                std::string full = std::string(text) + "T00:00:00Z";
                if (!parse_rfc3339(full, e)) {
                    return bad("YYYY-MM-DD");
                }
                return e.seconds / 86400;
            }
            case logical::time_millis:
            case logical::time_micros: {
                if (k != timestamp_kind::local_time) {
                    return bad("a local time");
                }
                epoch_instant e;
                std::string full = "1970-01-01T" + std::string(text) + "Z";
                if (!parse_rfc3339(full, e)) {
                    return bad("HH:MM:SS[.fraction]");
                }
                return scaled(v, e, u);
            }
            default: {
                bool local = is_local(t.lt);
                if (local ? k != timestamp_kind::local_date_time
                          : k != timestamp_kind::offset_date_time) {
                    return bad(local ? "a local date-time" : "a date-time with an offset");
                }
                epoch_instant e;
                std::string full = local ? std::string(text) + "Z" : std::string(text);
                if (!parse_rfc3339(full, e)) {
                    return bad("an RFC 3339 date-time");
                }
                return scaled(v, e, u);
            }
        }
    }
    result<std::int64_t> scaled(value v, const epoch_instant& e, ts_unit u) {
        std::int64_t per_nano = 1000000000 / u.per_second;
        if (e.nanos % per_nano != 0 || !e.exact) {
            if (!allow_lossy(opt_, v, "timestamp_truncated",
                             "fraction of a second beyond the logical type's unit dropped")) {
                return fail(unrepresentable(
                    v, "the timestamp has more fraction digits than the logical type holds"));
            }
        }
        // Seconds within about +-292 years of 1970 fit nanoseconds; millis fit everything.
        std::int64_t out;
        if (__builtin_mul_overflow(e.seconds, u.per_second, &out) ||
            __builtin_add_overflow(out, static_cast<std::int64_t>(e.nanos) / per_nano, &out)) {
            return fail(unrepresentable(v, "timestamp out of the range of the logical type"));
        }
        return out;
    }

    result<void> write_bytes(const node& t, value v) {
        std::string_view raw;
        bool fixed = t.kind == type_kind::fixed;
        if (!json_form_ && t.lt == logical::decimal &&
            (v.kind() == kind::string || v.kind() == kind::int64 || v.kind() == kind::bignum ||
             v.kind() == kind::uint64)) {
            std::string text = v.kind() == kind::int64    ? std::to_string(v.get_int())
                               : v.kind() == kind::uint64 ? std::to_string(v.get_uint())
                                                          : std::string(v.get_string());
            big_integer unscaled;
            std::size_t digits = 0;
            if (!parse_decimal_text(text, t.scale, unscaled, digits)) {
                return fail(unrepresentable(
                    v, "\"" + text + "\" is not a decimal with at most " +
                           std::to_string(t.scale) + " fraction digits"));
            }
            if (digits > t.precision) {
                return fail(unrepresentable(v, "\"" + text + "\" has more than " +
                                                   std::to_string(t.precision) + " digits"));
            }
            if (!twos_complement(unscaled, fixed ? t.size : 0, scratch_)) {
                return fail(unrepresentable(v, "\"" + text + "\" does not fit " +
                                                   type_desc(t)));
            }
            raw = scratch_;
        } else if (!json_form_ && t.lt == logical::uuid && v.kind() == kind::string) {
            if (!parse_uuid(v.get_string(), scratch_)) {
                return fail(unrepresentable(v, "\"" + std::string(v.get_string()) +
                                                   "\" is not a UUID"));
            }
            raw = scratch_;
        } else if (!json_form_ && t.lt == logical::duration && v.kind() == kind::map) {
            scratch_.clear();
            for (std::string_view part : {"months", "days", "milliseconds"}) {
                value x = v.find(part);
                if (x.doc() == nullptr || x.kind() != kind::int64 || x.get_int() < 0 ||
                    x.get_int() > UINT32_MAX) {
                    return fail(unrepresentable(
                        v, "a duration needs months, days and milliseconds as unsigned 32-bit "
                           "integers"));
                }
                auto n = static_cast<std::uint32_t>(x.get_int());
                scratch_.append(reinterpret_cast<const char*>(&n), 4);
            }
            if (v.size() != 3) {
                return fail(unrepresentable(v, "a duration has only months, days and "
                                               "milliseconds"));
            }
            raw = scratch_;
        } else if (v.kind() == kind::bytes) {
            raw = v.get_string();
        } else if (v.kind() == kind::string) {
            // The JSON encoding's code points 0-255, or the standard mapping's base64.
            bool ok = json_form_ ? avro_reader::latin1_bytes(v.get_string(), scratch_)
                                 : base64_decode(v.get_string(), scratch_);
            if (!ok) {
                return fail(unrepresentable(
                    v, json_form_ ? "expected bytes as code points 0-255"
                                  : "a string for Avro bytes must be base64"));
            }
            raw = scratch_;
        } else {
            return wrong(t, v);
        }
        if (fixed) {
            if (raw.size() != t.size) {
                return fail(unrepresentable(v, std::to_string(raw.size()) +
                                                   " bytes do not fit fixed " + t.name + " of " +
                                                   std::to_string(t.size)));
            }
            out_->append(raw.data(), raw.size());
            return {};
        }
        put_bytes(*out_, raw);
        return {};
    }

    result<void> write_default(const field& f) {
        // The default (JSON encoding) as the value it decodes to, then written like any other.
        document d;
        builder b(d);
        b.reset();
        avro_reader r(s_, nullptr, b);
        POLYCODEC_TRY(r.add_default(f.type, f.default_value.root(), 0));
        bool was = json_form_;
        json_form_ = false;
        auto res = write_first_branch(f.type, d.root());
        json_form_ = was;
        return res;
    }
    // A union default is its first branch's value.
    result<void> write_first_branch(std::uint32_t ti, value v) {
        if (s_.nodes[ti].kind == type_kind::union_ && !s_.nodes[ti].branches.empty()) {
            out_->push_back(0);
            return write(s_.nodes[ti].branches[0], v);
        }
        return write(ti, v);
    }

    result<void> write_record(const node& t, value v) {
        if (v.kind() != kind::map) {
            return wrong(t, v);
        }
        auto it = v.entries().begin();
        auto end = v.entries().end();
        std::uint64_t matched = 0;
        for (const field& f : t.fields) {
            value fv;
            if (it != end && (*it).key.kind() == kind::string && (*it).key.get_string() == f.name) {
                fv = (*it).val;
                ++it;
            } else {
                fv = v.find(f.name);
            }
            if (fv.doc() == nullptr) {
                if (f.has_default) {
                    POLYCODEC_TRY(write_default(f));
                    continue;
                }
                return fail(unrepresentable(v, "missing field \"" + f.name + "\" of record " +
                                                   t.name + ", which has no default"));
            }
            ++matched;
            POLYCODEC_TRY(write(f.type, fv));
        }
        if (matched != v.size()) {
            for (auto [k, val] : v.entries()) {
                bool known = false;
                if (k.kind() == kind::string) {
                    for (const field& f : t.fields) {
                        known = known || f.name == k.get_string();
                    }
                }
                if (!known && !allow_lossy(opt_, val, "field_dropped",
                                           "field not in the record's schema dropped")) {
                    return fail(unrepresentable(
                        val, "field " + to_debug_string(k) + " is not in record " + t.name));
                }
            }
        }
        return {};
    }

    static std::string to_debug_string(value k) {
        if (k.kind() == kind::string) {
            return "\"" + std::string(k.get_string()) + "\"";
        }
        return kind_phrase(k.kind());
    }

    result<void> write_union(const node& t, value v) {
        if (json_form_) {
            // JSON encoding: null, or {"branch name": value}.
            if (v.is_null()) {
                for (std::size_t i = 0; i < t.branches.size(); ++i) {
                    if (s_.nodes[t.branches[i]].kind == type_kind::null_) {
                        put_long(*out_, static_cast<std::int64_t>(i));
                        return {};
                    }
                }
            } else if (v.kind() == kind::map && v.size() == 1 &&
                       (*v.entries().begin()).key.kind() == kind::string) {
                entry e = *v.entries().begin();
                for (std::size_t i = 0; i < t.branches.size(); ++i) {
                    if (branch_name(s_.nodes[t.branches[i]]) == e.key.get_string()) {
                        put_long(*out_, static_cast<std::int64_t>(i));
                        return write(t.branches[i], e.val);
                    }
                }
            }
            return fail(unrepresentable(v, "expected a union value as null or "
                                           "{\"branch type\": value}"));
        }
        const std::size_t best = best_branch(s_, t, v);
        if (best == t.branches.size()) {
            std::string names;
            for (std::uint32_t b : t.branches) {
                names += (names.empty() ? "" : ", ") + type_desc(s_.nodes[b]);
            }
            return fail(unrepresentable(v, std::string(kind_phrase(v.kind())) +
                                               " matches no branch of the union [" + names +
                                               "]"));
        }
        put_long(*out_, static_cast<std::int64_t>(best));
        return write(t.branches[best], v);
    }

    const schema& s_;
    output_buffer* out_;
    const encode_options& opt_;
    std::string scratch_;
    bool json_form_ = false;
};

// ---- fast writer ----
//
// Writes the common cases straight from the document's tape through a cursor into the output
// (at least `slack` bytes free before each scalar): values of the kind their schema type
// takes, record fields matched to the map's keys in schema order with a lookup when they are
// not. Anything else (a tag, a timestamp or string for a logical type, an integer for a float,
// a missing field, a field not in the record, decimal/uuid/duration values, ...) returns
// false: the caller cuts the output back to where the value began and runs avro_writer on
// it, which decides (and words) every case exactly as before.

class fast_writer {
public:
    fast_writer(const schema& s, const document& doc, output_buffer& out)
        : s_(s), doc_(doc), t_(doc.tape().data()), payload_(doc.bytes().data()),
          payload_end_(payload_ + doc.bytes().size()), out_(out) {}

    /// Value at tape index `i` as schema type `ti`; false (output to be cut back) when it
    /// needs avro_writer.
    bool write_value(std::uint32_t ti, std::size_t i) {
        o_ = out_.prepare(slack);
        oend_ = out_.data_mut() + out_.capacity();
        bool ok = write(ti, i);
        out_.commit(static_cast<std::size_t>(o_ - (out_.data_mut() + out_.size())));
        return ok;
    }

private:
    static constexpr std::size_t slack = 32;

    kind kind_at(std::size_t i) const { return static_cast<kind>(t_[i] >> document::kind_shift); }
    std::string_view text_at(std::size_t i) const {
        return {payload_ + (t_[i] & document::payload_mask), static_cast<std::size_t>(t_[i + 1])};
    }
    // Index just past the element at `i` (value::end_index).
    std::size_t end_of(std::size_t i) const { return value(&doc_, i).end_index(); }
    // At least `n` bytes free at o_.
    void room(std::size_t n) {
        if (static_cast<std::size_t>(oend_ - o_) < n) {
            out_.commit(static_cast<std::size_t>(o_ - (out_.data_mut() + out_.size())));
            o_ = out_.prepare(n < 4096 ? 4096 : n);
            oend_ = out_.data_mut() + out_.capacity();
        }
    }
    // A zig-zag varint at o_ (10 bytes free).
    [[gnu::always_inline]] void put_varint(std::int64_t v) {
        auto z = (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
        if (z < 0x80) {
            *o_++ = static_cast<char>(z);
            return;
        }
        if (z < 0x4000) {
            o_[0] = static_cast<char>(z | 0x80);
            o_[1] = static_cast<char>(z >> 7);
            o_ += 2;
            return;
        }
        while (z >= 0x80) {
            *o_++ = static_cast<char>((z & 0x7f) | 0x80);
            z >>= 7;
        }
        *o_++ = static_cast<char>(z);
    }
    [[gnu::always_inline]] void put_text(std::string_view s) {
        if (s.size() <= 16 && static_cast<std::size_t>(payload_end_ - s.data()) >= 16) {
            // Short: one fixed 16-byte copy (the bytes past the text are overwritten next).
            room(slack);
            *o_++ = static_cast<char>(s.size() << 1);
            std::memcpy(o_, s.data(), 16);
            o_ += s.size();
            return;
        }
        room(s.size() + 10);
        put_varint(static_cast<std::int64_t>(s.size()));
        std::memcpy(o_, s.data(), s.size());
        o_ += s.size();
    }

    bool write(std::uint32_t ti, std::size_t i) {
        const node& t = s_.nodes[ti];
        const kind k = kind_at(i);
        room(slack);
        switch (t.kind) {
            case type_kind::null_:
                return k == kind::null;
            case type_kind::boolean:
                if (k != kind::boolean_false && k != kind::boolean_true) {
                    return false;
                }
                *o_++ = k == kind::boolean_true ? 1 : 0;
                return true;
            case type_kind::int_:
            case type_kind::long_: {
                if (k != kind::int64) {
                    return false;
                }
                auto n = static_cast<std::int64_t>(t_[i + 1]);
                if (t.kind == type_kind::int_ && (n < INT32_MIN || n > INT32_MAX)) {
                    return false;
                }
                put_varint(n);
                return true;
            }
            case type_kind::float_:
            case type_kind::double_: {
                if (k != kind::float64) {
                    return false;
                }
                if (t.kind == type_kind::double_) {
                    std::memcpy(o_, &t_[i + 1], 8);
                    o_ += 8;
                    return true;
                }
                double d;
                std::memcpy(&d, &t_[i + 1], 8);
                auto f = static_cast<float>(d);
                if (static_cast<double>(f) != d && !std::isnan(d)) {
                    return false;
                }
                std::memcpy(o_, &f, 4);
                o_ += 4;
                return true;
            }
            case type_kind::string:
                if (k != kind::string && k != kind::timestamp && k != kind::bignum) {
                    return false;
                }
                put_text(text_at(i));
                return true;
            case type_kind::bytes:
            case type_kind::fixed: {
                if (k != kind::bytes || t.lt == logical::decimal || t.lt == logical::uuid ||
                    t.lt == logical::duration) {
                    return false;
                }
                std::string_view raw = text_at(i);
                if (t.kind == type_kind::bytes) {
                    put_text(raw);
                    return true;
                }
                if (raw.size() != t.size) {
                    return false;
                }
                room(raw.size());
                std::memcpy(o_, raw.data(), raw.size());
                o_ += raw.size();
                return true;
            }
            case type_kind::enum_: {
                if (k != kind::string) {
                    return false;
                }
                std::string_view s = text_at(i);
                for (std::size_t n = 0; n < t.symbols.size(); ++n) {
                    if (t.symbols[n] == s) {
                        put_varint(static_cast<std::int64_t>(n));
                        return true;
                    }
                }
                return false;
            }
            case type_kind::array: {
                if (k != kind::array) {
                    return false;
                }
                const std::uint64_t count = t_[i + 1];
                const node& items = s_.nodes[t.items];
                if (count != 0 && items.kind == type_kind::long_ && items.lt == logical::none) {
                    // The common array of longs: no per-item dispatch.
                    room(11 * count + 11);
                    put_varint(static_cast<std::int64_t>(count));
                    for (std::size_t j = i + 2, end = end_of(i); j < end; j += 2) {
                        if (kind_at(j) != kind::int64) {
                            return false;
                        }
                        put_varint(static_cast<std::int64_t>(t_[j + 1]));
                    }
                    *o_++ = 0;
                    return true;
                }
                if (count != 0 && items.kind == type_kind::string) {
                    // The common array of strings: no per-item dispatch.
                    put_varint(static_cast<std::int64_t>(count));
                    for (std::size_t j = i + 2, end = end_of(i); j < end; j += 2) {
                        const kind ik = kind_at(j);
                        if (ik != kind::string && ik != kind::timestamp && ik != kind::bignum) {
                            return false;
                        }
                        put_text(text_at(j));
                    }
                    room(1);
                    *o_++ = 0;
                    return true;
                }
                if (count != 0) {
                    put_varint(static_cast<std::int64_t>(count));
                    for (std::size_t j = i + 2, end = end_of(i); j < end; j = end_of(j)) {
                        if (!write(t.items, j)) {
                            return false;
                        }
                    }
                    room(1);
                }
                *o_++ = 0;
                return true;
            }
            case type_kind::map: {
                if (k != kind::map) {
                    return false;
                }
                const std::uint64_t count = t_[i + 1];
                if (count != 0) {
                    put_varint(static_cast<std::int64_t>(count));
                    for (std::size_t j = i + 2, end = end_of(i); j < end;) {
                        if (kind_at(j) != kind::string) {
                            return false;
                        }
                        put_text(text_at(j));
                        if (!write(t.items, j + 2)) {
                            return false;
                        }
                        j = end_of(j + 2);
                    }
                    room(1);
                }
                *o_++ = 0;
                return true;
            }
            case type_kind::record:
                return k == kind::map && write_record(t, i);
            case type_kind::union_: {
                const std::size_t best = best_branch(s_, t, value(&doc_, i));
                if (best == t.branches.size()) {
                    return false;
                }
                put_varint(static_cast<std::int64_t>(best));
                return write(t.branches[best], i);
            }
        }
        return false;
    }

    // Whether a key is a field's name: names of up to 8 bytes as one masked 8-byte compare
    // (a std::string holds at least capacity() + 1 bytes; the key's 8 bytes must lie in the
    // payload).
    bool same_name(std::string_view key, const std::string& name) const {
        const std::size_t n = key.size();
        if (n != name.size()) {
            return false;
        }
        if (n <= 8 && name.capacity() >= 7 && payload_end_ - key.data() >= 8) {
            std::uint64_t a, b;
            std::memcpy(&a, key.data(), 8);
            std::memcpy(&b, name.data(), 8);
            const std::uint64_t mask = n == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
            return ((a ^ b) & mask) == 0;
        }
        return key == name;
    }

    // avro_writer::write_record's matching: the next entry when its key is the field's name,
    // else the first entry of that key.
    bool write_record(const node& t, std::size_t i) {
        const std::size_t end = end_of(i);
        std::size_t next = i + 2;  // the entry to try first
        std::uint64_t matched = 0;
        for (const field& f : t.fields) {
            std::size_t at = 0;
            if (next < end && kind_at(next) == kind::string && same_name(text_at(next), f.name)) {
                at = next + 2;
                next = end_of(at);
            } else {
                for (std::size_t j = i + 2; j < end; j = end_of(j + 2)) {
                    if (kind_at(j) == kind::string && text_at(j) == f.name) {
                        at = j + 2;
                        break;
                    }
                }
                if (at == 0) {
                    return false;  // a default, or the error: avro_writer
                }
            }
            ++matched;
            if (!write(f.type, at)) {
                return false;
            }
        }
        return matched == t_[i + 1];
    }

    const schema& s_;
    const document& doc_;
    const std::uint64_t* t_;
    const char* payload_;
    const char* payload_end_;
    output_buffer& out_;
    char* o_ = nullptr;
    char* oend_ = nullptr;
};

// ---- codecs of container blocks ----

enum class block_codec : std::uint8_t { null, deflate, zstandard, snappy };

bool codec_by_name(std::string_view n, block_codec& c) {
    if (n.empty() || n == "null") {
        c = block_codec::null;
    } else if (n == "deflate") {
        c = block_codec::deflate;
    } else if (n == "zstandard") {
        c = block_codec::zstandard;
    } else if (n == "snappy") {
        c = block_codec::snappy;
    } else {
        return false;
    }
    return true;
}
// The avro.codec names, in block_codec's order.
constexpr std::string_view codec_names[] = {"null", "deflate", "zstandard", "snappy"};
static_assert(std::size(codec_names) == static_cast<std::size_t>(block_codec::snappy) + 1);

std::string_view codec_name(block_codec c) {
    auto i = static_cast<std::size_t>(c);
    return i < std::size(codec_names) ? codec_names[i] : "null";
}

// Decompresses one block into `out`, at most `cap` bytes. The error message is empty on
// success.
std::string decompress(block_codec c, std::string_view in, std::size_t cap, std::string& out) {
    out.clear();
    switch (c) {
        case block_codec::null:
            return {};
        case block_codec::deflate: {
            // RFC 1951 raw deflate (the specification: "no zlib header or checksum").
            z_stream z{};
            if (inflateInit2(&z, -15) != Z_OK) {
                return "cannot start inflate";
            }
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
            z.avail_in = static_cast<uInt>(in.size());
            int rc = Z_OK;
            while (rc != Z_STREAM_END) {
                std::size_t have = out.size();
                std::size_t grow = std::max<std::size_t>(in.size() * 4, 4096);
                if (have >= cap) {
                    inflateEnd(&z);
                    return "a deflate block inflates beyond the document budget";
                }
                out.resize(std::min(cap, have + grow));
                z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
                z.avail_out = static_cast<uInt>(out.size() - have);
                rc = inflate(&z, Z_NO_FLUSH);
                out.resize(out.size() - z.avail_out);
                if (rc == Z_BUF_ERROR && z.avail_in == 0) {
                    inflateEnd(&z);
                    return "truncated deflate data";
                }
                if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
                    inflateEnd(&z);
                    return std::string("bad deflate data: ") + (z.msg ? z.msg : "error");
                }
            }
            inflateEnd(&z);
            return {};
        }
        case block_codec::zstandard: {
            ZSTD_DStream* ds = ZSTD_createDStream();
            ZSTD_inBuffer ib{in.data(), in.size(), 0};
            std::size_t rc = 1;
            while (ib.pos < ib.size || rc != 0) {
                std::size_t have = out.size();
                if (have >= cap) {
                    ZSTD_freeDStream(ds);
                    return "a zstandard block decompresses beyond the document budget";
                }
                out.resize(std::min(cap, have + std::max<std::size_t>(in.size() * 4, 4096)));
                ZSTD_outBuffer ob{out.data() + have, out.size() - have, 0};
                std::size_t before = ib.pos;
                rc = ZSTD_decompressStream(ds, &ob, &ib);
                out.resize(have + ob.pos);
                if (ZSTD_isError(rc)) {
                    ZSTD_freeDStream(ds);
                    return std::string("bad zstandard data: ") + ZSTD_getErrorName(rc);
                }
                if (rc != 0 && ib.pos == ib.size && ob.pos == 0 && before == ib.pos) {
                    ZSTD_freeDStream(ds);
                    return "truncated zstandard data";
                }
            }
            ZSTD_freeDStream(ds);
            return {};
        }
        case block_codec::snappy: {
            // Snappy-compressed data followed by the CRC-32 of the uncompressed data (4 bytes,
            // big-endian).
            if (in.size() < 4) {
                return "a snappy block shorter than its checksum";
            }
            std::size_t n = 0;
            std::string_view data = in.substr(0, in.size() - 4);
            if (snappy_uncompressed_length(data.data(), data.size(), &n) != SNAPPY_OK) {
                return "bad snappy data";
            }
            if (n > cap) {
                return "a snappy block decompresses beyond the document budget";
            }
            out.resize(n);
            if (snappy_uncompress(data.data(), data.size(), out.data(), &n) != SNAPPY_OK) {
                return "bad snappy data";
            }
            out.resize(n);
            auto crc = static_cast<std::uint32_t>(
                crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(n)));
            auto b = [&](std::size_t i) {
                return static_cast<std::uint32_t>(static_cast<unsigned char>(in[in.size() - 4 + i]));
            };
            std::uint32_t want = b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
            if (crc != want) {
                return "snappy block checksum mismatch";
            }
            return {};
        }
    }
    return {};
}

void compress(block_codec c, std::string_view in, output_buffer& out) {
    switch (c) {
        case block_codec::null:
            out.append(in.data(), in.size());
            return;
        case block_codec::deflate: {
            z_stream z{};
            deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
            std::size_t bound = deflateBound(&z, static_cast<uLong>(in.size()));
            char* p = out.prepare(bound);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
            z.avail_in = static_cast<uInt>(in.size());
            z.next_out = reinterpret_cast<Bytef*>(p);
            z.avail_out = static_cast<uInt>(bound);
            deflate(&z, Z_FINISH);
            out.commit(bound - z.avail_out);
            deflateEnd(&z);
            return;
        }
        case block_codec::zstandard: {
            std::size_t bound = ZSTD_compressBound(in.size());
            char* p = out.prepare(bound);
            std::size_t n = ZSTD_compress(p, bound, in.data(), in.size(), 3);
            out.commit(ZSTD_isError(n) ? 0 : n);
            return;
        }
        case block_codec::snappy: {
            std::size_t bound = snappy_max_compressed_length(in.size());
            char* p = out.prepare(bound + 4);
            std::size_t n = bound;
            snappy_compress(in.data(), in.size(), p, &n);
            auto crc = static_cast<std::uint32_t>(
                crc32(0, reinterpret_cast<const Bytef*>(in.data()), static_cast<uInt>(in.size())));
            p[n] = static_cast<char>(crc >> 24);
            p[n + 1] = static_cast<char>(crc >> 16);
            p[n + 2] = static_cast<char>(crc >> 8);
            p[n + 3] = static_cast<char>(crc);
            out.commit(n + 4);
            return;
        }
    }
}

// ---- entry points ----

struct schema_cache {
    std::string text;
    std::shared_ptr<const schema> parsed;
};

// The parsed schema of a container's avro.schema text; the last one is kept per thread, so
// that a stream of files of one schema parses it once.
result<std::shared_ptr<const schema>> container_schema(std::string_view text,
                                                       const decode_options& opt) {
    if (opt.avro_schema && opt.avro_schema->text == text) {
        return opt.avro_schema;
    }
    thread_local schema_cache cache;
    if (cache.parsed && cache.text == text) {
        return cache.parsed;
    }
    auto s = avro::parse_schema(text);
    if (!s) {
        return s;
    }
    cache.text = std::string(text);
    cache.parsed = *s;
    return s;
}

std::uint32_t reader_root(const decode_options& opt) {
    if (!opt.avro_reader_schema) {
        return no_node;
    }
    std::uint32_t r = avro::find_type(*opt.avro_reader_schema, opt.type_name);
    return r == no_node ? opt.avro_reader_schema->root : r;
}

result<std::uint32_t> root_of(const schema& s, const std::string& type_name) {
    std::uint32_t r = avro::find_type(s, type_name);
    if (r == no_node) {
        return fail(make_error(errc::invalid_option, 0,
                               "type=" + type_name + ": no such named type in the avro schema"));
    }
    return r;
}

// The root type of a decode's schema= (root_of its type=); `missing` words the error when no
// schema was given.
result<std::uint32_t> datum_root(const decode_options& opt, const char* missing) {
    if (!opt.avro_schema) {
        return fail(make_error(errc::schema_required, 0, missing));
    }
    return root_of(*opt.avro_schema, opt.type_name);
}

// The blocks of a container from `pos` (past the header) to the end: each block's records,
// inflated when compressed, go to records(data, data_at, block_at, count); then its sync
// marker is checked.
template <class Records>
result<void> for_each_block(std::string_view in, std::size_t pos, std::string_view sync,
                            block_codec codec, const schema& w, builder& b, Records&& records) {
    thread_local std::string inflated;
    std::uint64_t min_record = std::max<std::uint64_t>(w.nodes[w.root].min_size, 0);
    while (pos < in.size()) {
        std::size_t block_at = pos;
        avro_reader hr(w, nullptr, b);
        hr.set_input(in.substr(pos), pos);
        auto count = hr.read_long("a block's record count");
        if (!count) {
            return fail(count.error());
        }
        auto size = hr.read_long("a block's size");
        if (!size) {
            return fail(size.error());
        }
        pos = hr.offset();
        if (*count < 0 || *size < 0 ||
            static_cast<std::uint64_t>(*size) > in.size() - pos) {
            return fail(make_error(*size > 0 ? errc::size_exceeded : errc::malformed, block_at,
                                   "block of " + std::to_string(*count) + " records and " +
                                       std::to_string(*size) + " bytes beyond the input"));
        }
        std::string_view data = in.substr(pos, static_cast<std::size_t>(*size));
        std::size_t data_at = pos;
        pos += static_cast<std::size_t>(*size);
        if (codec != block_codec::null) {
            std::size_t used = b.doc().content_size();
            std::size_t cap = b.limits().max_bytes > used ? b.limits().max_bytes - used : 0;
            std::string err = decompress(codec, data, cap, inflated);
            if (!err.empty()) {
                return fail(make_error(err.find("budget") != std::string::npos
                                           ? errc::size_exceeded
                                           : errc::malformed,
                                       data_at, err + " (block at offset " +
                                                    std::to_string(block_at) + ")"));
            }
            data = inflated;
        }
        bool too_many = min_record == 0 ? static_cast<std::uint64_t>(*count) > max_zero_size_items
                                        : static_cast<std::uint64_t>(*count) >
                                              data.size() / min_record;
        if (too_many) {
            return fail(make_error(errc::size_exceeded, block_at,
                                   std::to_string(*count) + " records do not fit a block of " +
                                       std::to_string(data.size()) + " bytes"));
        }
        POLYCODEC_TRY(records(data, data_at, block_at, *count));
        if (in.size() - pos < 16) {
            return fail(make_error(errc::unexpected_eof, pos,
                                   "expected the block's sync marker, saw end of input"));
        }
        if (in.substr(pos, 16) != sync) {
            return fail(make_error(errc::malformed, pos,
                                   "bad sync marker after the block at offset " +
                                       std::to_string(block_at)));
        }
        pos += 16;
    }
    return {};
}

// The records of a container straight into the tape (fast_reader); false on any error or
// limit, with the builder's document left to be reset.
bool decode_container_fast(std::string_view in, std::size_t pos, std::string_view sync,
                           block_codec codec, const schema& w, builder& b) {
    fast_tape tw(b);
    fast_reader fr(w, tw, b.limits());
    if (b.limits().max_depth == 0) {
        return false;
    }
    std::uint64_t total = 0;
    tw.open(tw.words(4), kind::array, 0);
    bool ok = true;
    auto blocks = for_each_block(
        in, pos, sync, codec, w, b,
        [&](std::string_view data, std::size_t, std::size_t, std::int64_t count) -> result<void> {
            fr.set_input(data);
            for (std::int64_t i = 0; i < count && ok; ++i) {
                ok = fr.read(w.root, 1);
            }
            ok = ok && fr.at_end() && !tw.over_budget(b.limits().max_bytes);
            total += static_cast<std::uint64_t>(count);
            if (!ok) {
                return fail(make_error(errc::malformed, 0, "not for the fast reader"));
            }
            return {};
        });
    if (!blocks || !ok) {
        return false;
    }
    tw.close(0, total);
    tw.finish();
    return true;
}

result<void> decode_container(std::string_view in, builder& b, const decode_options& opt) {
    if (in.size() < 4 || std::memcmp(in.data(), ocf_magic, 4) != 0) {
        return fail(make_error(errc::malformed, 0,
                               "expected an Avro Object Container File (\"Obj\" 0x01); a bare "
                               "datum needs container=false and schema="));
    }
    // The header's metadata is a map of bytes, read with a schema of its own.
    static const std::shared_ptr<const schema> meta_schema =
        *avro::parse_schema(R"({"type":"map","values":"bytes"})");
    thread_local document meta;  // reused: a steady stream of files allocates nothing
    builder mb(meta);
    mb.reset();
    avro_reader mr(*meta_schema, nullptr, mb);
    mr.set_input(in.substr(4), 4);
    POLYCODEC_TRY(mr.datum(meta_schema->root, no_node));
    std::size_t pos = mr.offset();
    std::string_view schema_text;
    std::string_view codec_text = "null";
    bool has_schema = false;
    for (auto [k, v] : meta.root().entries()) {
        if (k.get_string() == "avro.schema") {
            schema_text = v.get_string();
            has_schema = true;
        } else if (k.get_string() == "avro.codec") {
            codec_text = v.get_string();
        }
    }
    if (!has_schema) {
        return fail(make_error(errc::malformed, 4, "the container header has no avro.schema"));
    }
    block_codec codec;
    if (!codec_by_name(codec_text, codec)) {
        return fail(make_error(errc::malformed, 4,
                               "unsupported container codec \"" + std::string(codec_text) +
                                   "\" (null, deflate, zstandard and snappy are)"));
    }
    auto ws = container_schema(schema_text, opt);
    if (!ws) {
        error e = ws.error();
        e.code = errc::malformed;
        e.offset = 4;
        e.line = e.column = 0;
        e.message = "the container's avro.schema: " + e.message;
        return fail(std::move(e));
    }
    if (in.size() - pos < 16) {
        return fail(make_error(errc::unexpected_eof, pos,
                               "expected the 16-byte sync marker, saw end of input"));
    }
    std::string_view sync = in.substr(pos, 16);
    pos += 16;
    const schema& w = **ws;
    if (!opt.avro_reader_schema && b.depth() == 0 && b.ok() && b.doc().empty() &&
        b.doc().bytes().empty()) {
        if (decode_container_fast(in, pos, sync, codec, w, b)) {
            return {};
        }
        b.reset();  // avro_reader below finds the error (or the limit) and reports it
    }
    avro_reader r(w, opt.avro_reader_schema.get(), b);
    std::uint32_t rroot = reader_root(opt);
    if (!b.begin_array()) {
        return fail(limit_error(b, pos));
    }
    auto blocks = for_each_block(
        in, pos, sync, codec, w, b,
        [&](std::string_view data, std::size_t data_at, std::size_t block_at,
            std::int64_t count) -> result<void> {
            r.set_input(data, data_at);
            for (std::int64_t i = 0; i < count; ++i) {
                POLYCODEC_TRY(r.datum(w.root, rroot));
                if (!b.ok()) {
                    return fail(limit_error(b, r.offset()));
                }
            }
            if (!r.at_end()) {
                return fail(make_error(errc::malformed, r.offset(),
                                       "block at offset " + std::to_string(block_at) +
                                           " has bytes after its " + std::to_string(count) +
                                           " records"));
            }
            return {};
        });
    if (!blocks) {
        return fail(blocks.error());
    }
    b.end_array();
    return {};
}

result<void> decode_datum(std::string_view in, builder& b, const decode_options& opt) {
    POLYCODEC_TRY_ASSIGN(root,
                         datum_root(opt, "a bare avro datum needs schema= (the writer's schema)"));
    const schema& w = *opt.avro_schema;
    std::size_t at = 0;
    if (opt.framing == avro_framing::single_object) {
        if (in.size() < 10 || static_cast<unsigned char>(in[0]) != 0xc3 ||
            static_cast<unsigned char>(in[1]) != 0x01) {
            return fail(make_error(in.size() < 10 ? errc::unexpected_eof : errc::malformed, 0,
                                   "expected the single-object header C3 01 and an 8-byte "
                                   "fingerprint"));
        }
        std::uint64_t fp = 0;
        std::memcpy(&fp, in.data() + 2, 8);
        std::uint64_t want =
            root == w.root ? w.fingerprint : avro::crc64_avro(avro::canonical_json(w, root));
        if (fp != want) {
            char buf[80];
            std::snprintf(buf, sizeof buf, "fingerprint %016llx is not the schema's %016llx",
                          static_cast<unsigned long long>(fp),
                          static_cast<unsigned long long>(want));
            return fail(make_error(errc::malformed, 2, buf));
        }
        at = 10;
    } else if (opt.framing == avro_framing::confluent) {
        if (in.size() < 5 || in[0] != 0) {
            return fail(make_error(in.size() < 5 ? errc::unexpected_eof : errc::malformed, 0,
                                   "expected the Confluent header: magic byte 0 and a 4-byte "
                                   "schema id"));
        }
        std::uint32_t id = 0;
        for (int i = 1; i < 5; ++i) {
            id = id << 8 | static_cast<unsigned char>(in[i]);
        }
        if (opt.avro_schema_id != 0 && id != opt.avro_schema_id) {
            return fail(make_error(errc::malformed, 1,
                                   "schema id " + std::to_string(id) + " is not schema_id=" +
                                       std::to_string(opt.avro_schema_id)));
        }
        at = 5;
    }
    if (!opt.avro_reader_schema && b.depth() == 0 && b.ok() && b.doc().empty() &&
        b.doc().bytes().empty()) {
        fast_tape tw(b);
        fast_reader fr(w, tw, b.limits());
        fr.set_input(in.substr(at));
        if (fr.read(root, 0) && fr.at_end() && !tw.over_budget(b.limits().max_bytes)) {
            tw.finish();
            return {};
        }
        b.reset();  // avro_reader below finds the error (or the limit) and reports it
    }
    avro_reader r(w, opt.avro_reader_schema.get(), b);
    r.set_input(in.substr(at), at);
    POLYCODEC_TRY(r.datum(root, reader_root(opt)));
    if (!r.at_end()) {
        return fail(make_error(errc::trailing_content, r.offset(),
                               "expected end of input after the datum, saw " +
                                   std::to_string(in.size() - r.offset()) + " more bytes"));
    }
    return {};
}

// avro_json=true: JSON text -> binary (the writer reading the JSON form) -> the data model.
result<void> decode_json_form(std::string_view in, builder& b, const decode_options& opt) {
    POLYCODEC_TRY_ASSIGN(root, datum_root(opt, "the Avro JSON encoding needs schema="));
    const schema& w = *opt.avro_schema;
    document json;
    if (auto r = decode(format_id::json, in, json, opt); !r) {
        error e = r.error();
        return fail(make_error(e.code, e.offset, "avro JSON encoding: " + e.message));
    }
    output_buffer bin;
    encode_options eo;
    avro_writer wr(w, bin, eo);
    wr.set_json_form(true);
    if (auto r = wr.write(root, json.root()); !r) {
        error e = r.error();
        return fail(make_error(errc::malformed, 0,
                               "avro JSON encoding at " + (e.path.empty() ? "/" : e.path) + ": " +
                                   e.message));
    }
    avro_reader r(w, opt.avro_reader_schema.get(), b);
    r.set_input(bin.view(), 0);
    return r.datum(root, reader_root(opt));
}

result<void> decode_avro(std::string_view in, builder& b, const decode_options& opt) {
    if (opt.avro_json) {
        return decode_json_form(in, b, opt);
    }
    if (opt.avro_container && opt.framing == avro_framing::none) {
        return decode_container(in, b, opt);
    }
    return decode_datum(in, b, opt);
}

result<void> encode_container(const document& doc, output_buffer& out, const schema& s,
                              std::uint32_t root, const encode_options& opt) {
    block_codec codec;
    if (!codec_by_name(opt.avro_codec, codec)) {
        return fail(make_error(errc::invalid_option,
                               "codec=" + opt.avro_codec +
                                   ": expected null, deflate, zstandard or snappy"));
    }
    value v = doc.root();
    if (v.kind() != kind::array) {
        return fail(unrepresentable(v, "an Avro container holds records: the root must be an "
                                       "array of them (container=false writes one datum)"));
    }
    std::string other;
    if (root != s.root) {
        other = avro::schema_json(s, root);
    }
    const std::string& text = root == s.root ? s.text : other;
    out.append(ocf_magic, 4);
    put_long(out, 2);
    put_bytes(out, "avro.schema");
    put_bytes(out, text);
    put_bytes(out, "avro.codec");
    put_bytes(out, codec_name(codec));
    out.push_back(0);
    // A sync marker derived from the schema, so that equal inputs give equal files.
    // (s.fingerprint is CRC-64-AVRO of s.canonical; the text's CRC is kept per thread for a
    // stream of files of one schema.)
    thread_local std::string crc_text;
    thread_local std::uint64_t crc_of_text = 0;
    if (crc_text != text) {
        crc_text = text;
        crc_of_text = avro::crc64_avro(text);
    }
    std::uint64_t a = crc_of_text;
    std::uint64_t bb = s.fingerprint ^ ((a << 29) | (a >> 35));
    char sync[16];
    std::memcpy(sync, &a, 8);
    std::memcpy(sync + 8, &bb, 8);
    out.append(sync, 16);
    constexpr std::size_t block_bytes = 64 * 1024;
    thread_local output_buffer block_buffer;  // reused across calls
    block_buffer.clear();
    output_buffer* block = &block_buffer;
    avro_writer w(s, *block, opt);
    std::int64_t count = 0;
    auto flush = [&]() {
        if (count == 0) {
            return;
        }
        put_long(out, count);
        if (codec == block_codec::null) {
            put_bytes(out, block->view());
        } else {
            thread_local output_buffer packed;
            packed.clear();
            compress(codec, block->view(), packed);
            put_bytes(out, packed.view());
        }
        out.append(sync, 16);
        block->clear();
        count = 0;
    };
    fast_writer fw(s, doc, *block);
    for (value rec : v.items()) {
        std::size_t at = block->size();
        if (!fw.write_value(root, rec.index())) {
            block->truncate(at);
            POLYCODEC_TRY(w.write(root, rec));
        }
        ++count;
        if (block->size() >= block_bytes) {
            flush();
        }
    }
    flush();
    return {};
}

result<void> encode_avro(const document& doc, output_buffer& out, const encode_options& opt) {
    if (!opt.avro_schema) {
        return fail(make_error(errc::schema_required,
                               "avro output needs schema= (the schema to write with)"));
    }
    const schema& s = *opt.avro_schema;
    auto root = root_of(s, opt.type_name);
    if (!root) {
        return fail(root.error());
    }
    if (opt.avro_json) {
        // Binary first (every check of the writer), then read back in the JSON form.
        output_buffer bin;
        avro_writer w(s, bin, opt);
        POLYCODEC_TRY(w.write(*root, doc.root()));
        document json;
        builder b(json);
        b.reset();
        avro_reader r(s, nullptr, b);
        r.set_json_form(true);
        r.set_input(bin.view(), 0);
        POLYCODEC_TRY(r.datum(*root, no_node));
        encode_options jo;
        jo.pretty = opt.pretty;
        return encode(format_id::json, json, out, jo);
    }
    if (opt.avro_container && opt.framing == avro_framing::none) {
        return encode_container(doc, out, s, *root, opt);
    }
    if (opt.framing == avro_framing::single_object) {
        std::uint64_t fp = *root == s.root ? s.fingerprint
                                           : avro::crc64_avro(avro::canonical_json(s, *root));
        out.push_back(static_cast<char>(0xc3));
        out.push_back(0x01);
        out.append(&fp, 8);
    } else if (opt.framing == avro_framing::confluent) {
        char h[5] = {0, static_cast<char>(opt.avro_schema_id >> 24),
                     static_cast<char>(opt.avro_schema_id >> 16),
                     static_cast<char>(opt.avro_schema_id >> 8),
                     static_cast<char>(opt.avro_schema_id)};
        out.append(h, 5);
    }
    std::size_t at = out.size();
    fast_writer fw(s, doc, out);
    if (!doc.empty() && fw.write_value(*root, doc.root().index())) {
        return {};
    }
    out.truncate(at);
    avro_writer w(s, out, opt);
    return w.write(*root, doc.root());
}

}  // namespace

const codec_functions avro_codec{decode_avro, encode_avro};

}  // namespace polycodec::detail
