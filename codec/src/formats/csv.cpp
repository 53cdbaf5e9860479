// CSV (RFC 4180) and TSV. The reader turns a table into an array of maps (header row present,
// the default) or an array of arrays (header=absent); `infer` types unquoted fields, `unflatten`
// turns dotted column names back into nested maps. The writer takes an array of maps (columns =
// union of the flattened keys, first seen first) or an array of arrays and writes CRLF lines.
//
// The lossless scheme (docs/formats/csv.md): the writer quotes every string that an inferring
// reader would take for something else ("", "12", "true", "null", "NaN"), and the reader never
// infers a quoted field. So null is an empty field, the empty string is "", and `--infer` reads
// back every scalar the writer wrote. Arrays inside map rows become index columns (`tags.0`,
// `tags.1`); below an array an unquoted empty field is *absent* (past the end of this row's
// array, or a key this element lacks) and null is written `null`; `unflatten` turns columns
// named "0".."n-1" back into arrays, one past the last present element long.
#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "detail/base64.hpp"
#include "detail/dropped_tag.hpp"
#include "detail/key_text.hpp"
#include "detail/lossy.hpp"
#include "detail/map_key.hpp"
#include "detail/out_room.hpp"
#include "detail/quote_doubled.hpp"
#include "detail/raw_scalar.hpp"
#include "detail/scalar_writer.hpp"
#include "detail/number.hpp"
#include "detail/thread_scratch.hpp"
#include "detail/try.hpp"
#include "detail/utf8.hpp"
#include "detail/describe.hpp"
#include "detail/text.hpp"
#include "detail/infer.hpp"
#include "detail/utf8_input.hpp"
#include "formats.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace polycodec::detail {
namespace {

char delimiter_of(const common_options& opt) {
    if (opt.csv_delimiter != 0) {
        return opt.csv_delimiter;
    }
    return opt.csv_tab ? '\t' : ',';
}

// ---- type inference (shared by reader and writer) ----

enum class inferred { string, null, boolean, integer, floating };

/// What an unquoted field reads as with infer=true: "" and null null, true/false, integers without
/// leading zeros (JSON grammar), floats in JSON grammar plus NaN, Infinity and -Infinity (the
/// grammar shared with urlform, INI and dotenv, textinfer::classify).
inferred infer_kind(std::string_view s) {
    if (s.empty() || s == "null") {
        return inferred::null;
    }
    switch (textinfer::classify(s)) {
        case textinfer::kind::boolean:
            return inferred::boolean;
        case textinfer::kind::integer:
            return inferred::integer;
        case textinfer::kind::floating:
            return inferred::floating;
        case textinfer::kind::string:
            break;
    }
    return inferred::string;
}

void add_inferred(builder& b, std::string_view s) {
    if (s.empty() || s == "null") {
        b.add_null();
        return;
    }
    textinfer::add(b, s);  // the rest as urlform, INI and dotenv type it
}

// ---- reader ----

struct field {
    std::size_t src;    // offset of the field in the input (for errors)
    std::size_t start;  // text: in the input, or in the record's scratch when unescaped
    std::size_t len;
    bool quoted;
    bool in_scratch;
};

struct header_node {
    std::string_view name;
    int column = -1;  // a leaf's column; -1 for an inner map
    // Children as a list (0 ends it: the root is nobody's child), so the tree needs no
    // allocation per node.
    std::size_t first_child = 0;
    std::size_t last_child = 0;
    std::size_t next = 0;
    std::size_t parent = 0;
    bool is_array = false;  // children named exactly "0", "1", ... "n-1"
    bool in_array = false;  // below an array: an unquoted empty field is absent
};

// Buffers kept per thread between documents, so decoding allocates nothing in steady state.
struct reader_scratch {
    std::vector<field> fields;
    std::string text;
    std::string header;
    std::vector<std::string_view> names;
    std::vector<header_node> nodes;
    std::vector<char> present;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    std::vector<std::string_view> parts;
};

class csv_reader {
    static reader_scratch& thread_scratch() {
        return detail::thread_scratch<
            reader_scratch, &reader_scratch::fields, &reader_scratch::text, &reader_scratch::header,
            &reader_scratch::names, &reader_scratch::nodes, &reader_scratch::present>();
    }

public:
    csv_reader(std::string_view in, builder& b, const decode_options& opt)
        : in_(in), b_(b), opt_(opt), delim_(delimiter_of(opt)) {}

    result<void> run() {
        POLYCODEC_TRY(detail::require_utf8(in_));
        pos_ = detail::bom_size(in_);
        if (!b_.begin_array()) {
            return container_limit();
        }
        bool have_first = false;
        std::size_t ncols = 0;
        while (pos_ < in_.size()) {
            bool blank = in_[pos_] == '\r' || in_[pos_] == '\n';
            if (blank && (!have_first || ncols != 1)) {
                // An empty line: no record, except in a one-column table where it is one
                // empty field (that is how a null or missing value of that column is written).
                skip_line_end();
                continue;
            }
            std::size_t record_at = pos_;
            if (auto r = read_record(); !r) {
                return r;
            }
            if (!have_first) {
                header_at_ = record_at;
                have_first = true;
                ncols = fields_.size();
                if (opt_.csv_header) {
                    if (auto r = take_header(); !r) {
                        return r;
                    }
                    continue;
                }
            } else if (fields_.size() != ncols) {
                return ragged(ncols);
            }
            if (auto r = emit_record(); !r) {
                return r;
            }
        }
        b_.end_array();
        return {};
    }

private:
    result<void> container_limit() {
        return fail(limit_error(b_, pos_));
    }

    void skip_line_end() {
        if (pos_ < in_.size() && in_[pos_] == '\r') {
            ++pos_;
        }
        if (pos_ < in_.size() && in_[pos_] == '\n') {
            ++pos_;
        }
    }

    result<void> read_record() {
        fields_.clear();
        scratch_.clear();
        for (;;) {
            std::size_t src = pos_;
            if (pos_ < in_.size() && in_[pos_] == '"') {
                ++pos_;
                std::size_t content = pos_;
                bool escaped = false;
                std::size_t end;
                for (;;) {
                    const void* q = std::memchr(in_.data() + pos_, '"', in_.size() - pos_);
                    if (q == nullptr) {
                        return fail(make_error(errc::unexpected_eof, in_.size(),
                                               "unterminated quoted field (opened at byte " +
                                                   std::to_string(src) + ")"));
                    }
                    std::size_t qp =
                        static_cast<std::size_t>(static_cast<const char*>(q) - in_.data());
                    if (qp + 1 < in_.size() && in_[qp + 1] == '"') {
                        escaped = true;
                        pos_ = qp + 2;
                        continue;
                    }
                    end = qp;
                    pos_ = qp + 1;
                    break;
                }
                const bool junk = pos_ < in_.size() && in_[pos_] != delim_ &&
                                  in_[pos_] != '\r' && in_[pos_] != '\n';
                if (junk && opt_.strict) {
                    // RFC 4180 section 2 (field = escaped / non-escaped): a quoted field ends
                    // at its closing quote.
                    return fail(make_error(errc::unexpected_char, pos_,
                                           "expected a delimiter or a line end after the "
                                           "closing quote, saw " +
                                               text::describe_at(in_, pos_) +
                                               " (strict=false reads it as text)"));
                }
                if (escaped || junk) {
                    std::size_t at = scratch_.size();
                    for (std::size_t i = content; i < end; ++i) {
                        scratch_.push_back(in_[i]);
                        if (in_[i] == '"') {
                            ++i;  // "" is one quote
                        }
                    }
                    // strict=false, as Python's csv reader: what follows the closing quote,
                    // up to the delimiter or line end, joins the field as it is ("a"b is ab).
                    while (pos_ < in_.size() && in_[pos_] != delim_ && in_[pos_] != '\r' &&
                           in_[pos_] != '\n') {
                        scratch_.push_back(in_[pos_++]);
                    }
                    fields_.push_back({src, at, scratch_.size() - at, true, true});
                } else {
                    fields_.push_back({src, content, end - content, true, false});
                }
            } else {
                std::size_t start = pos_;
                while (pos_ < in_.size() && in_[pos_] != delim_ && in_[pos_] != '\r' &&
                       in_[pos_] != '\n') {
                    // RFC 4180 section 2, rule 5: a field holding a quote must be quoted.
                    if (in_[pos_] == '"' && opt_.strict) {
                        return fail(make_error(errc::unexpected_char, pos_,
                                               "a quote inside an unquoted field; quote the "
                                               "field and double the quote (\"\"), or "
                                               "strict=false reads it as text"));
                    }
                    ++pos_;
                }
                fields_.push_back({src, start, pos_ - start, false, false});
            }
            if (pos_ < in_.size() && in_[pos_] == delim_) {
                ++pos_;
                continue;
            }
            end_ = pos_;
            skip_line_end();
            return {};
        }
    }

    std::string_view text_of(const field& f) const {
        return f.in_scratch ? std::string_view(scratch_).substr(f.start, f.len)
                            : in_.substr(f.start, f.len);
    }

    result<void> ragged(std::size_t ncols) {
        std::size_t at = fields_.size() > ncols ? fields_[ncols].src : end_;
        return fail(make_error(errc::unexpected_char, at,
                               "expected " + std::to_string(ncols) + " field" +
                                   (ncols == 1 ? "" : "s") + " (as in the " +
                                   (opt_.csv_header ? "header" : "first row") + "), saw " +
                                   std::to_string(fields_.size())));
    }

    result<void> take_header() {
        header_buf_.clear();
        auto& spans = s_.spans;
        spans.clear();
        for (const field& f : fields_) {
            std::string_view t = text_of(f);
            spans.emplace_back(header_buf_.size(), t.size());
            header_buf_.append(t);
        }
        names_.clear();
        for (auto [off, len] : spans) {
            names_.push_back(std::string_view(header_buf_).substr(off, len));
        }
        // A column name twice would give rows with a duplicate key, which no CSV can hold
        // again (found by fuzz_decode_csv): the header is refused instead.
        thread_local std::vector<std::string_view> sorted;
        sorted.assign(names_.begin(), names_.end());
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 1; i < sorted.size(); ++i) {
            if (sorted[i] == sorted[i - 1]) {
                return fail(make_error(errc::duplicate_key, header_at_,
                                       "column \"" + std::string(sorted[i]) +
                                           "\" appears twice in the header"));
            }
        }
        if (!opt_.unflatten) {
            return {};
        }
        // The tree of dotted names: node 0 is the row map.
        nodes_.assign(1, header_node{});
        for (std::size_t col = 0; col < names_.size(); ++col) {
            std::string_view name = names_[col];
            auto& parts = s_.parts;
            parts.clear();
            bool empty_part = false;
            std::size_t start = 0;
            for (;;) {
                std::size_t dot = name.find('.', start);
                std::string_view part = name.substr(
                    start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
                empty_part = empty_part || part.empty();
                parts.push_back(part);
                if (dot == std::string_view::npos) {
                    break;
                }
                start = dot + 1;
            }
            if (empty_part) {
                parts.assign(1, name);  // "a..b", ".a", "a." stay one key
            }
            std::size_t node = 0;
            for (std::size_t i = 0; i < parts.size(); ++i) {
                bool last = i + 1 == parts.size();
                std::size_t found = 0;
                for (std::size_t c = nodes_[node].first_child; c != 0; c = nodes_[c].next) {
                    if (nodes_[c].name == parts[i]) {
                        found = c;
                        break;
                    }
                }
                if (found != 0 && (last || nodes_[found].column >= 0)) {
                    return fail(make_error(errc::duplicate_key, fields_[col].src,
                                           "column '" + std::string(name) +
                                               "' conflicts with an earlier column under "
                                               "unflatten"));
                }
                if (found == 0) {
                    header_node nn;
                    nn.name = parts[i];
                    nn.column = last ? static_cast<int>(col) : -1;
                    nn.parent = node;
                    nodes_.push_back(nn);
                    found = nodes_.size() - 1;
                    if (nodes_[node].first_child == 0) {
                        nodes_[node].first_child = found;
                    } else {
                        nodes_[nodes_[node].last_child].next = found;
                    }
                    nodes_[node].last_child = found;
                }
                node = found;
            }
        }
        // Inner nodes whose children are "0".."n-1" in that order are arrays. Children come
        // after their parent, so one pass in order sets `in_array` too.
        for (std::size_t n = 0; n < nodes_.size(); ++n) {
            header_node& nd = nodes_[n];
            if (n != 0 && nd.column < 0) {
                bool arr = nd.first_child != 0;
                std::size_t i = 0;
                for (std::size_t c = nd.first_child; arr && c != 0; c = nodes_[c].next) {
                    char buf[24];
                    auto res = std::to_chars(buf, buf + sizeof buf, i++);
                    arr = nodes_[c].name ==
                          std::string_view(buf, static_cast<std::size_t>(res.ptr - buf));
                }
                nd.is_array = arr;
            }
            for (std::size_t c = nd.first_child; c != 0; c = nodes_[c].next) {
                nodes_[c].in_array = nd.in_array || nd.is_array;
            }
        }
        present_.assign(nodes_.size(), 0);
        return {};
    }

    void add_field(const field& f) {
        std::string_view t = text_of(f);
        if (opt_.infer && !f.quoted) {
            add_inferred(b_, t);
        } else {
            b_.add_string(t);
        }
    }

    result<void> emit_child(std::size_t c) {
        if (nodes_[c].column >= 0) {
            add_field(fields_[static_cast<std::size_t>(nodes_[c].column)]);
            return {};
        }
        return emit_node(c);
    }

    // Under an array node the element count is one past the last element with a present cell;
    // in a map inside an array, absent leaves and maps without a present cell are left out.
    result<void> emit_node(std::size_t node) {
        const header_node& nd = nodes_[node];
        if (nd.is_array) {
            if (!b_.begin_array()) {
                return container_limit();
            }
            std::size_t len = 0;
            std::size_t i = 0;
            for (std::size_t c = nd.first_child; c != 0; c = nodes_[c].next) {
                ++i;
                if (present_[c] != 0) {
                    len = i;
                }
            }
            i = 0;
            for (std::size_t c = nd.first_child; c != 0 && i < len; c = nodes_[c].next, ++i) {
                if (auto r = emit_child(c); !r) {
                    return r;
                }
            }
            b_.end_array();
            return {};
        }
        if (!b_.begin_map()) {
            return container_limit();
        }
        for (std::size_t c = nd.first_child; c != 0; c = nodes_[c].next) {
            const header_node& ch = nodes_[c];
            if (ch.in_array && present_[c] == 0 && !ch.is_array) {
                continue;
            }
            b_.add_string(ch.name);
            if (auto r = emit_child(c); !r) {
                return r;
            }
        }
        b_.end_map();
        return {};
    }

    /// Marks the nodes with at least one present cell for this record (children follow their
    /// parent in nodes_, so one backward pass suffices).
    void mark_present() {
        std::fill(present_.begin(), present_.end(), 0);
        for (std::size_t n = nodes_.size(); n-- > 1;) {
            const header_node& nd = nodes_[n];
            if (nd.column >= 0) {
                const field& f = fields_[static_cast<std::size_t>(nd.column)];
                present_[n] = !(nd.in_array && !f.quoted && f.len == 0);
            }
            if (present_[n] != 0) {
                present_[nd.parent] = 1;
            }
        }
    }

    result<void> emit_record() {
        if (!opt_.csv_header) {
            if (!b_.begin_array()) {
                return container_limit();
            }
            for (const field& f : fields_) {
                add_field(f);
            }
            b_.end_array();
            return {};
        }
        if (opt_.unflatten) {
            mark_present();
            return emit_node(0);
        }
        if (!b_.begin_map()) {
            return container_limit();
        }
        for (std::size_t i = 0; i < fields_.size(); ++i) {
            b_.add_string(names_[i]);
            add_field(fields_[i]);
        }
        b_.end_map();
        return {};
    }

    std::string_view in_;
    builder& b_;
    const decode_options& opt_;
    char delim_;
    std::size_t pos_ = 0;
    std::size_t end_ = 0;  // where the last record's line ended
    reader_scratch& s_ = thread_scratch();
    std::vector<field>& fields_ = s_.fields;
    std::string& scratch_ = s_.text;
    std::string& header_buf_ = s_.header;
    std::size_t header_at_ = 0;  // offset of the header row, for its errors
    std::vector<std::string_view>& names_ = s_.names;
    std::vector<header_node>& nodes_ = s_.nodes;
    std::vector<char>& present_ = s_.present;
};

bool bad_delimiter(char d) { return d == '"' || d == '\r' || d == '\n'; }

result<void> decode_csv(std::string_view in, builder& b, const decode_options& opt) {
    if (bad_delimiter(delimiter_of(opt))) {
        return fail(make_error(errc::invalid_option, "the csv delimiter cannot be a quote or a "
                                                     "line break"));
    }
    csv_reader r(in, b, opt);
    return r.run();
}

// ---- writer ----

const char* kind_name(kind k) { return detail::kind_phrase(k); }

/// Strings in one buffer with an open-addressing index: adding and finding allocate nothing
/// once the buffers have grown (the writer keeps them per thread).
class name_table {
public:
    static constexpr std::size_t npos = std::string::npos;

    void clear() {
        text_.clear();
        spans_.clear();
        std::fill(slots_.begin(), slots_.end(), 0);
    }
    std::size_t size() const { return spans_.size(); }
    bool empty() const { return spans_.empty(); }
    std::string_view operator[](std::size_t i) const {
        return std::string_view(text_).substr(spans_[i].first, spans_[i].second);
    }
    std::size_t find(std::string_view n) const {
        if (slots_.empty()) {
            return npos;
        }
        std::size_t mask = slots_.size() - 1;
        for (std::size_t h = hash(n) & mask;; h = (h + 1) & mask) {
            std::size_t slot = slots_[h];
            if (slot == 0) {
                return npos;
            }
            if ((*this)[slot - 1] == n) {
                return slot - 1;
            }
        }
    }
    /// `n` must not point into the table.
    std::size_t add(std::string_view n) {
        if ((spans_.size() + 1) * 2 > slots_.size()) {
            slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), 0);
            for (std::size_t i = 0; i < spans_.size(); ++i) {
                place(i);
            }
        }
        spans_.emplace_back(text_.size(), n.size());
        text_.append(n);
        place(spans_.size() - 1);
        return spans_.size() - 1;
    }

private:
    static std::size_t hash(std::string_view n) { return std::hash<std::string_view>{}(n); }
    void place(std::size_t i) {
        std::size_t mask = slots_.size() - 1;
        std::size_t h = hash((*this)[i]) & mask;
        while (slots_[h] != 0) {
            h = (h + 1) & mask;
        }
        slots_[h] = i + 1;
    }

    std::string text_;
    std::vector<std::pair<std::size_t, std::size_t>> spans_;
    std::vector<std::size_t> slots_;  // column + 1; 0 is free
};

struct column_info {
    bool in_array = false;     // below an array: null is `null`, empty means absent
    bool placeholder = false;  // `key.0` of an array that is empty in every row
};

// Buffers kept per thread between documents, so encoding allocates nothing in steady state.
// A row's structure as csv_writer::walk goes through it (write_maps' fast path): per node one
// token, the kind in the low two bits and above them a map's or array's size or a key's length
// (the second tape word of each; the key tokens' texts are `keys`, in order); a leaf is a
// scalar of any kind. `leaf_columns`: the column of each leaf in walk order (the fill shape
// only).
struct row_shape {
    enum : std::uint64_t { leaf = 0, map = 1, array = 2, key = 3 };
    std::vector<std::uint64_t> tokens;
    std::vector<std::string_view> keys;  // views into the document being written
    std::vector<std::uint32_t> leaf_columns;
    bool valid = false;
    bool dense = false;  // leaf n goes to column n, and every column has a leaf
    // When dense: per leaf, the tape words before it since the last leaf (twice) plus 1 when
    // its column lies below an array.
    std::vector<std::uint32_t> leaf_steps;
    void clear() {
        tokens.clear();
        keys.clear();
        leaf_columns.clear();
        valid = false;
        dense = false;
        leaf_steps.clear();
    }
};

/// What pass 1 of write_maps did with a row, for pass 2 to do the same without comparing
/// shapes again (both passes see the same rows, so they take the same branches).
enum class row_plan : std::uint8_t {
    walked,           // the ordinary walk, its shape not recorded (fast path off)
    walked_recorded,  // the ordinary walk, then its shape recorded
    same_shape,       // the shape of the last recorded row
};

struct writer_scratch {
    name_table columns;
    name_table arrays;  // column-name paths that hold an array
    std::vector<column_info> info;
    std::vector<value> cells;
    std::string name;
    row_shape collected;         // the last row pass 1 walked
    row_shape filled;            // the last row pass 2 walked, with its cells' columns
    std::vector<row_plan> plan;  // per row, what pass 1 did
    // Stream mode: what the first record fixed.
    kind rows = kind::null;  // map or array rows; null before the first record
    std::uint64_t width = 0;
};

// A null cell is empty, except below an array (write_cell).
constexpr scalar_spelling csv_spelling{{}, "false", "true", "NaN", "Infinity", "-Infinity"};

/// Whether an inferring reader may type a string that starts with `c` (infer_kind: null,
/// true, false, NaN, Infinity, -Infinity and JSON numbers); the others need no infer_kind.
constexpr bool may_infer(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == 'n' || c == 't' || c == 'f' || c == 'N' ||
           c == 'I';
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr bool little_endian = true;
#else
constexpr bool little_endian = false;
#endif

/// The bytes that make a field quoted whatever it holds: the delimiter, a quote, CR and LF.
/// A scan takes 16 bytes a step with SSE2 (8 with SWAR elsewhere). `readable_end`: where the
/// buffer that holds the text ends; a last step shorter than a whole one is loaded whole (and
/// the bytes past the text masked off) when the buffer holds that many bytes, else the bytes
/// are looked at one by one.
class quote_scan {
public:
    explicit quote_scan(char delim) : delim_(delim) {}

#if defined(__SSE2__)
    static constexpr std::size_t step = 16;
    /// Bit n set when byte n of the 16 at `p` is special.
    unsigned mask(const char* p) const noexcept {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i m =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, d_), _mm_cmpeq_epi8(x, q_)),
                         _mm_or_si128(_mm_cmpeq_epi8(x, cr_), _mm_cmpeq_epi8(x, lf_)));
        return static_cast<unsigned>(_mm_movemask_epi8(m));
    }
    /// mask() of the first n (<= 16) bytes.
    static unsigned first(std::size_t n) noexcept { return (1u << n) - 1; }
#else
    static constexpr std::size_t step = 8;
    /// The high bit of byte n set when byte n of the 8 at `p` is special (exact: a borrow
    /// only marks bytes above a special one).
    std::uint64_t mask(const char* p) const noexcept {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        const std::uint64_t a = x ^ (ones * static_cast<unsigned char>(delim_));
        const std::uint64_t b = x ^ (ones * '"');
        const std::uint64_t c = x ^ (ones * '\r');
        const std::uint64_t d = x ^ (ones * '\n');
        return (((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c) | ((d - ones) & ~d)) &
               (ones * 0x80);
    }
    /// mask() of the first n (<= 8) bytes (little-endian: the low ones).
    static std::uint64_t first(std::size_t n) noexcept {
        return n == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
    }
#endif

    bool special(char c) const noexcept {
        return c == delim_ || c == '"' || c == '\r' || c == '\n';
    }

    /// Whether [s, s + n) holds a special byte.
    bool any(const char* s, std::size_t n, const char* readable_end) const noexcept {
        while (n > step) {
            if (mask(s) != 0) {
                return true;
            }
            s += step;
            n -= step;
        }
        if (little_endian && static_cast<std::size_t>(readable_end - s) >= step) {
            return (mask(s) & first(n)) != 0;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (special(s[i])) {
                return true;
            }
        }
        return false;
    }

private:
    char delim_;
#if defined(__SSE2__)
    __m128i d_ = _mm_set1_epi8(delim_);
    __m128i q_ = _mm_set1_epi8('"');
    __m128i cr_ = _mm_set1_epi8('\r');
    __m128i lf_ = _mm_set1_epi8('\n');
#else
    static constexpr std::uint64_t ones = 0x0101010101010101ull;
#endif
};

class csv_writer {
    static writer_scratch& thread_scratch() {
        return detail::thread_scratch<
            writer_scratch, &writer_scratch::columns, &writer_scratch::arrays,
            &writer_scratch::info, &writer_scratch::cells, &writer_scratch::name,
            &writer_scratch::collected, &writer_scratch::filled, &writer_scratch::plan>();
    }

public:
    csv_writer(output_buffer& out, const encode_options& opt)
        : out_(out), opt_(opt), delim_(delimiter_of(opt)) {}
    /// Stream mode: the columns live in `s` from one record to the next. `first_output`: this
    /// record's bytes open the output.
    csv_writer(output_buffer& out, const encode_options& opt, writer_scratch& s, bool first_output)
        : out_(out),
          out_start_(first_output ? out.size() : std::string::npos),
          opt_(opt),
          delim_(delimiter_of(opt)),
          s_(s) {}

    /// Stream mode (DESIGN section 12): the first record fixes the columns and the header, as
    /// a one-row table would; every later record is written with those columns.
    result<void> stream_record(value row) {
        if (s_.rows == kind::null) {
            if (row.kind() == kind::map) {
                std::string& name = s_.name;
                pass_ = pass::collect;
                guess_ = 0;
                if (auto r = walk(row, name, false); !r) {
                    return r;
                }
                drop_covered_placeholders();
                if (columns_.empty()) {
                    pass_ = pass::empty_check;
                    if (auto e = walk(row, name, false); !e && !opt_.lossy) {
                        return e;
                    }
                    return fail(unrepresentable(row, "stream mode takes the csv columns from "
                                                     "the first record, which has none"));
                }
                s_.rows = kind::map;
                write_header();
                pass_ = pass::fill;
                cells_.assign(columns_.size(), value());
                return write_map_row(row);
            }
            if (row.kind() == kind::array) {
                if (row.size() == 0) {
                    return fail(unrepresentable(row, "stream mode takes the csv columns from "
                                                     "the first record, which has none"));
                }
                s_.rows = kind::array;
                s_.width = row.size();
                return write_array_row(row, s_.width, out_.size());
            }
            return fail(unrepresentable(
                row, std::string("a csv row is a map or an array, saw ") + kind_name(row.kind())));
        }
        if (row.kind() != s_.rows) {
            return fail(unrepresentable(row, std::string("a csv table mixes ") +
                                                 (s_.rows == kind::map ? "map" : "array") +
                                                 " rows and " + kind_name(row.kind())));
        }
        if (s_.rows == kind::map) {
            pass_ = pass::fill;
            cells_.assign(columns_.size(), value());
            return write_map_row(row);
        }
        return write_array_row(row, s_.width, out_.size());
    }

    result<void> run(value root) {
        if (root.kind() != kind::array) {
            return fail(unrepresentable(root, std::string("csv holds an array of maps or of "
                                                          "arrays, saw ") +
                                                  kind_name(root.kind()) + " at the root"));
        }
        if (root.size() == 0) {
            return {};
        }
        value first = *root.items().begin();
        if (first.kind() == kind::map) {
            return write_maps(root);
        }
        if (first.kind() == kind::array) {
            return write_arrays(root);
        }
        return fail(unrepresentable(
            first, std::string("a csv row is a map or an array, saw ") + kind_name(first.kind())));
    }

private:
    // ---- maps: columns are the flattened key paths ----
    //
    // A nested map adds `.key` to the column name, an array adds `.0`, `.1` ... (any depth).
    // Pass 1 collects the union of the columns; pass 2 fills one row's cells and checks what
    // cannot be read back. Inside an array a missing cell is *absent* (an unquoted empty field)
    // and null is written `null`; outside arrays null is the empty field (docs/formats/csv.md).

    enum class pass { collect, fill, empty_check };

    static std::string_view key_view(value k, char (&buf)[24]) {
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
            case kind::bignum:
                return k.get_string();
            case kind::int64: {
                auto res = std::to_chars(buf, buf + sizeof buf, k.get_int());
                return {buf, static_cast<std::size_t>(res.ptr - buf)};
            }
            case kind::uint64: {
                auto res = std::to_chars(buf, buf + sizeof buf, k.get_uint());
                return {buf, static_cast<std::size_t>(res.ptr - buf)};
            }
            default:
                return {};
        }
    }

    result<void> key_text(value k, std::string& into) {
        if (append_key_text(into, k)) {
            return {};
        }
        POLYCODEC_TRY_ASSIGN(t, key_fallback(opt_, k, "csv"));
        into.append(t);
        return {};
    }

    static void append_index(std::string& name, std::uint64_t i) {
        char buf[24];
        auto res = std::to_chars(buf, buf + sizeof buf, i);
        name.append(buf, static_cast<std::size_t>(res.ptr - buf));
    }

    /// Whether a value holds at least one scalar (and so at least one written cell).
    static bool has_scalar(value v) {
        if (v.kind() == kind::array) {
            for (value item : v.items()) {
                if (has_scalar(item)) {
                    return true;
                }
            }
            return false;
        }
        if (v.kind() == kind::map) {
            for (auto [k, item] : v.entries()) {
                if (has_scalar(item)) {
                    return true;
                }
            }
            return false;
        }
        return true;
    }

    result<void> walk(value v, std::string& name, bool in_array) {
        std::size_t base = name.size();
        if (v.kind() == kind::array) {
            std::uint64_t i = 0;
            for (value item : v.items()) {
                name.resize(base);
                name.push_back('.');
                append_index(name, i++);
                if (auto r = visit(item, name, true); !r) {
                    return r;
                }
            }
        } else {
            for (auto [k, item] : v.entries()) {
                name.resize(base);
                if (base != 0) {
                    name.push_back('.');
                }
                if (auto r = key_text(k, name); !r) {
                    return r;
                }
                if (auto r = visit(item, name, in_array); !r) {
                    return r;
                }
            }
        }
        name.resize(base);
        return {};
    }

    result<void> visit(value v, std::string& name, bool in_array) {
        if (v.kind() == kind::map) {
            if (v.size() == 0) {
                return visit_empty_map(v);
            }
            if (pass_ == pass::fill) {
                if (auto r = check_index_keys(v); !r) {
                    return r;
                }
            }
            return walk(v, name, in_array);
        }
        if (v.kind() == kind::array) {
            if (auto r = visit_array(v, name); !r) {
                return r;
            }
            return walk(v, name, true);
        }
        return visit_leaf(name, v, in_array);
    }

    std::size_t add_column(const std::string& n, bool in_array, bool placeholder) {
        info_.push_back({in_array, placeholder});
        return columns_.add(n);
    }

    result<void> visit_leaf(const std::string& n, value v, bool in_array) {
        std::size_t c = column_of(n, guess_);
        if (pass_ == pass::collect) {
            if (c == std::string::npos) {
                c = add_column(n, in_array, false);
            } else {
                info_[c].placeholder = false;
            }
            guess_ = c + 1;
            return {};
        }
        if (pass_ != pass::fill) {
            return {};
        }
        guess_ = c + 1;
        if (c == name_table::npos) {
            // Only in stream mode: the whole-table writer collected every column first.
            return fail(unrepresentable(v, "column " + n + " is not in the header, which stream "
                                           "mode takes from the first record"));
        }
        if (cells_[c].doc() != nullptr) {
            if (!allow_lossy(opt_, v, "duplicate_column_dropped",
                             "second value of column " + n + " dropped")) {
                return fail(unrepresentable(v, "column " + n + " appears twice in this row"));
            }
            return {};
        }
        s_.filled.leaf_columns.push_back(static_cast<std::uint32_t>(c));
        cells_[c] = v;
        return {};
    }

    result<void> visit_array(value v, std::string& name) {
        if (pass_ == pass::collect) {
            if (array_paths_.find(name) == name_table::npos) {
                array_paths_.add(name);
            }
            if (v.size() == 0) {
                // An empty array still needs a column, or it would vanish: `key.0`, absent.
                std::size_t base = name.size();
                name.append(".0");
                if (column_of(name, guess_) == std::string::npos) {
                    add_column(name, true, true);
                }
                name.resize(base);
            }
            return {};
        }
        if (pass_ == pass::fill && v.size() != 0) {
            value last;
            for (value item : v.items()) {
                last = item;
            }
            if (!has_scalar(last) &&
                !allow_lossy(opt_, last, "trailing_empty_element_dropped",
                             "written as is; reads back without it")) {
                return fail(unrepresentable(
                    last, "an array whose last element holds no scalar (an empty array) is not "
                          "representable in csv (that element's cells are all absent, so the "
                          "array reads back shorter)"));
            }
        }
        return {};
    }

    result<void> visit_empty_map(value v) {
        if (pass_ == pass::empty_check) {
            return fail(unrepresentable(v,
                                        "an empty map inside a row is not representable in csv "
                                        "(it flattens to no column)"));
        }
        if (pass_ == pass::fill &&
            !allow_lossy(opt_, v, "empty_map_dropped", "empty map dropped")) {
            return fail(unrepresentable(v,
                                        "an empty map inside a row is not representable in csv "
                                        "(it flattens to no column)"));
        }
        return {};
    }

    /// A nested map whose keys are "0", "1", ... "n-1" in order would read back as an array.
    result<void> check_index_keys(value v) {
        std::uint64_t i = 0;
        for (auto [k, item] : v.entries()) {
            char buf[24];
            char want[24];
            auto res = std::to_chars(want, want + sizeof want, i++);
            if (key_view(k, buf) !=
                std::string_view(want, static_cast<std::size_t>(res.ptr - want))) {
                return {};
            }
        }
        if (!allow_lossy(opt_, v, "index_keys_read_as_array",
                         "written as is; unflatten reads it back as an array")) {
            return fail(unrepresentable(v,
                                        "a map with the keys \"0\"..\"" + std::to_string(i - 1) +
                                            "\" is not representable in csv (unflatten reads "
                                            "those columns back as an array)"));
        }
        return {};
    }

    /// Whether leaving column `col` empty in this row reads back right: it lies past the end of
    /// an array of the row, or names a missing key of a map inside an array (unless that key
    /// holds arrays elsewhere: absent cells there read back as an empty array).
    bool absent_ok(value v, std::string_view col) const {
        std::string_view rest = col;
        bool in_array = false;
        for (;;) {
            std::size_t dot = rest.find('.');
            std::string_view seg = rest.substr(0, dot);
            if (v.kind() == kind::array) {
                std::uint64_t idx = 0;
                auto res = std::from_chars(seg.data(), seg.data() + seg.size(), idx);
                if (res.ec != std::errc() || res.ptr != seg.data() + seg.size()) {
                    return false;
                }
                if (idx >= v.size()) {
                    return true;
                }
                if (dot == std::string_view::npos) {
                    return false;
                }
                std::uint64_t i = 0;
                for (value item : v.items()) {
                    if (i++ == idx) {
                        v = item;
                        break;
                    }
                }
                rest = rest.substr(dot + 1);
                in_array = true;
                continue;
            }
            if (v.kind() != kind::map) {
                return false;
            }
            bool found = false;
            for (auto [k, item] : v.entries()) {
                char buf[24];
                std::string_view kt = key_view(k, buf);
                if (rest.substr(0, kt.size()) == kt &&
                    (rest.size() == kt.size() || rest[kt.size()] == '.')) {
                    if (rest.size() == kt.size()) {
                        return false;
                    }
                    v = item;
                    rest = rest.substr(kt.size() + 1);
                    found = true;
                    break;
                }
            }
            if (!found) {
                if (!in_array) {
                    return false;
                }
                std::size_t end = col.size() - rest.size() + seg.size();
                return array_paths_.find(col.substr(0, end)) == name_table::npos;
            }
        }
    }

    std::size_t column_of(const std::string& name, std::size_t guess) {
        if (guess < columns_.size() && columns_[guess] == name) {
            return guess;
        }
        return columns_.find(name);
    }

    /// Drops the `key.0` column of an always-empty array when other rows hold maps or arrays
    /// there (`key.0.x`): their columns already stand for it.
    void drop_covered_placeholders() {
        bool any = false;
        for (const column_info& i : info_) {
            any = any || i.placeholder;
        }
        if (!any) {
            return;
        }
        std::vector<std::string> cols;
        std::vector<column_info> infos;
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            if (info_[c].placeholder) {
                std::string prefix = std::string(columns_[c]) + ".";
                bool covered = false;
                for (std::size_t o = 0; o < columns_.size(); ++o) {
                    covered = covered || columns_[o].substr(0, prefix.size()) == prefix;
                }
                if (covered) {
                    continue;
                }
            }
            cols.emplace_back(columns_[c]);
            infos.push_back(info_[c]);
        }
        columns_.clear();
        for (const std::string& c : cols) {
            columns_.add(c);
        }
        info_ = infos;
    }

    result<void> write_maps(value root) {
        std::string& name = s_.name;
        // Pass 1: the union of the column names in first-seen order.
        pass_ = pass::collect;
        // Rows of the last walked row's shape add no column (same_shape).
        shape_odds odds{!opt_.lossy};
        row_shape& collected = s_.collected;
        std::vector<row_plan>& plan = s_.plan;
        plan.clear();
        for (value row : root.items()) {
            if (row.kind() != kind::map) {
                return fail(unrepresentable(
                    row, std::string("a csv table mixes map rows and ") + kind_name(row.kind())));
            }
            if (odds.on && collected.valid) {
                if (odds.count(same_shape(row, collected))) {
                    plan.push_back(row_plan::same_shape);
                    continue;
                }
            }
            guess_ = 0;
            if (auto r = walk(row, name, false); !r) {
                return r;
            }
            if (odds.on) {
                collected.clear();
                collected.valid = record_shape(row, collected);
                plan.push_back(row_plan::walked_recorded);
            } else {
                plan.push_back(row_plan::walked);
            }
        }
        drop_covered_placeholders();
        if (columns_.empty()) {
            // Rows without a single column have no text at all: they would read back as [].
            // Name a nested empty map first, as the error that explains it.
            pass_ = pass::empty_check;
            for (value r : root.items()) {
                auto e = walk(r, name, false);
                if (!e && !opt_.lossy) {
                    return e;
                }
            }
            return no_columns(root);
        }
        write_header();
        // Pass 2: one line per row. A row pass 1 found of the last recorded row's shape is of
        // the shape pass 2 recorded last (the same rows, in the same order): its leaves go to
        // the columns of that row's leaves, and the cells that row left empty were absent
        // there, and so are they here.
        pass_ = pass::fill;
        cells_.assign(columns_.size(), value());
        row_shape& filled = s_.filled;
        std::size_t n = 0;
        for (value row : root.items()) {
            const row_plan how = plan[n++];
            if (how == row_plan::same_shape) {
                assert(filled.valid && same_shape(row, filled));
                if (auto w = write_shaped_row(row, filled); !w) {
                    return w;
                }
                continue;
            }
            if (auto r = write_map_row(row); !r) {
                return r;
            }
            if (how == row_plan::walked_recorded) {
                filled.valid = record_shape(row, filled);
                filled.dense = filled.valid && filled.leaf_columns.size() == columns_.size();
                for (std::size_t l = 0; filled.dense && l < filled.leaf_columns.size(); ++l) {
                    filled.dense = filled.leaf_columns[l] == l;
                }
                if (filled.dense) {
                    std::uint32_t words = 0;
                    for (const std::uint64_t tok : filled.tokens) {
                        if ((tok & 3) != row_shape::leaf) {
                            words += 2;
                            continue;
                        }
                        const std::size_t col = filled.leaf_steps.size();
                        filled.leaf_steps.push_back(2 * words + (info_[col].in_array ? 1 : 0));
                        words = 0;
                    }
                }
            }
        }
        return {};
    }

    // ---- write_maps' fast path: rows of one shape ----
    //
    // What the two passes do with a row depends, but for its leaves' values, only on its
    // shape: its keys in order, the size of each map and array in it, which values are
    // containers. (The columns a row adds, the checks of pass 2 and absent_ok, the column of
    // each leaf: all follow from the shape and the columns.) So a row of the shape of the
    // last row walked adds no column in pass 1, and in pass 2 passes the same checks and puts
    // its leaves in the same columns: it is compared with that shape, without building column
    // names or looking them up. Only without lossy (a lossy event is reported once per row)
    // and for rows whose keys are all strings (other keys are spelled by key_text).

    /// Whether the fast path still pays in one pass over the rows: once it has missed 8 times
    /// more than it matched (rows of changing shapes, records.json), the rest of the table
    /// takes the ordinary walk alone, without recording shapes.
    struct shape_odds {
        bool on;
        std::size_t hits = 0;
        std::size_t misses = 0;
        bool count(bool hit) {
            if (hit) {
                ++hits;
            } else if (++misses > hits + 8) {
                on = false;
            }
            return hit;
        }
    };

    /// Appends the shape of `v` to `s`; false when a key is not a string.
    static bool record_shape(value v, row_shape& s) {
        if (v.kind() == kind::map) {
            s.tokens.push_back(row_shape::map | (v.size() << 2));
            for (auto [k, item] : v.entries()) {
                if (k.kind() != kind::string) {
                    return false;
                }
                s.tokens.push_back(row_shape::key | (k.get_string().size() << 2));
                s.keys.push_back(k.get_string());
                if (!record_shape(item, s)) {
                    return false;
                }
            }
            return true;
        }
        if (v.kind() == kind::array) {
            s.tokens.push_back(row_shape::array | (v.size() << 2));
            for (value item : v.items()) {
                if (!record_shape(item, s)) {
                    return false;
                }
            }
            return true;
        }
        s.tokens.push_back(row_shape::leaf);
        return true;
    }

    /// The tape index after the scalar (or tag) at `i`.
    static std::size_t after_leaf(const document* doc, const std::uint64_t* t, std::size_t i) {
        switch (static_cast<kind>(t[i] >> document::kind_shift)) {
            case kind::null:
            case kind::boolean_false:
            case kind::boolean_true:
                return i + 1;
            case kind::tagged:
                return value(doc, i).end_index();
            default:
                return i + 2;
        }
    }

    /// Whether the `n` bytes at `a` and at `b` (both in the document's bytes, which end at
    /// `end`) are the same.
    static bool same_bytes(const char* a, const char* b, std::size_t n, const char* end) {
        if (little_endian && n <= 8 && end - a >= 8 && end - b >= 8) {
            std::uint64_t x;
            std::uint64_t y;
            std::memcpy(&x, a, 8);
            std::memcpy(&y, b, 8);
            const std::uint64_t low =
                n == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
            return ((x ^ y) & low) == 0;
        }
        return std::memcmp(a, b, n) == 0;
    }

    /// Whether `row` has the shape of `s`. The tokens are in tape order (a container's
    /// children follow its two words, a key's value follows the key), so one linear pass over
    /// the row's tape words compares them, without recursion or container end lookups.
    static bool same_shape(value row, const row_shape& s) {
        const document* doc = row.doc();
        const std::uint64_t* t = doc->tape().data();
        const char* bytes = doc->bytes().data();
        const char* bytes_end = bytes + doc->bytes().size();
        const std::string_view* key = s.keys.data();
        // The kind each token but a leaf wants (map, array, key).
        constexpr std::uint64_t want_kind[4] = {0, static_cast<std::uint64_t>(kind::map),
                                                static_cast<std::uint64_t>(kind::array),
                                                static_cast<std::uint64_t>(kind::string)};
        std::size_t i = row.index();
        for (const std::uint64_t tok : s.tokens) {
            const std::uint64_t h = t[i];
            const std::uint64_t k = h >> document::kind_shift;
            const std::uint64_t type = tok & 3;
            if (type == row_shape::leaf) {
                if (k <= static_cast<std::uint64_t>(kind::boolean_true)) {
                    i += 1;  // null, false, true
                } else if (k < static_cast<std::uint64_t>(kind::tagged)) {
                    i += 2;  // the other scalars
                } else if (k == static_cast<std::uint64_t>(kind::tagged)) {
                    i = value(doc, i).end_index();
                } else {
                    return false;  // a container
                }
                continue;
            }
            // A map's or array's size, a key's length.
            if (k != want_kind[type] || t[i + 1] != (tok >> 2)) {
                return false;
            }
            if (type == row_shape::key) {
                if (!same_bytes(bytes + (h & document::payload_mask), key->data(), key->size(),
                                bytes_end)) {
                    return false;
                }
                ++key;
            }
            i += 2;
        }
        return true;
    }

    // Rows of a recorded shape are written straight from the tape to the output, through a
    // local pointer into room made per cell (as json.cpp's write_compact), with the bytes
    // write_cell writes; kinds other than strings and finite scalars go to write_cell.

    // The output cursor: detail/out_room.hpp.
    using room = detail::out_room;
    room refill(char* w, std::size_t need) { return detail::out_refill(out_, w, need); }
    void sync(char* w) { detail::out_sync(out_, w); }

    /// write_text(s, true) at `w`, which has room for 2 * n + 24 bytes; `readable_end`: where
    /// the buffer holding `s` ends.
    [[gnu::always_inline]] char* put_text(char* w, const char* s, std::size_t n,
                                          const char* readable_end) {
        bool quote =
            n == 0 || (may_infer(s[0]) && infer_kind(std::string_view(s, n)) != inferred::string);
        if (!quote && n >= 3 && s[0] == '\xEF' && out_start_ != std::string::npos &&
            w == out_.data() + out_start_ && std::memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
            quote = true;  // as write_text: not read as a byte order mark
        }
        if (!quote) {
#if defined(__SSE2__)
            if (n <= 16 && readable_end - s >= 16) {
                if ((scan_.mask(s) & quote_scan::first(n)) == 0) {
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(w),
                                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
                    return w + n;
                }
                quote = true;
            }
#endif
            if (!quote && !scan_.any(s, n, readable_end)) {
                std::memcpy(w, s, n);
                return w + n;
            }
        }
        *w++ = '"';
        for (std::size_t i = 0; i < n; ++i) {
            *w++ = s[i];
            if (s[i] == '"') {
                *w++ = '"';
            }
        }
        *w++ = '"';
        return w;
    }

    /// Writes the leaf at tape index `i` as write_cell(leaf, in_array) does and moves `i`
    /// past it; `w` has room for 64 bytes. False on an error (in err_).
    [[gnu::always_inline]] bool put_leaf(char*& w, char*& lim, const document* doc,
                                         const std::uint64_t* t, const std::string& bytes,
                                         std::size_t& i, bool in_array) {
        const std::uint64_t h = t[i];
        switch (static_cast<kind>(h >> document::kind_shift)) {
            case kind::null:
                if (in_array) {
                    std::memcpy(w, "null", 4);
                    w += 4;
                }
                i += 1;
                return true;
            case kind::boolean_false:
                std::memcpy(w, "false", 5);
                w += 5;
                i += 1;
                return true;
            case kind::boolean_true:
                std::memcpy(w, "true", 4);
                w += 4;
                i += 1;
                return true;
            case kind::int64:
                w = put_int64_digits(w, t[i + 1]);
                i += 2;
                return true;
            case kind::uint64:
                w = write_uint_digits(w, t[i + 1]);
                i += 2;
                return true;
            case kind::float64: {
                double d;
                std::memcpy(&d, &t[i + 1], 8);
                if (!std::isfinite(d)) {
                    break;  // NaN, Infinity, -Infinity: write_cell
                }
                w += json_float_chars(w, d);
                i += 2;
                return true;
            }
            case kind::string:
            case kind::timestamp:
            case kind::bignum: {
                const auto n = static_cast<std::size_t>(t[i + 1]);
                if (static_cast<std::size_t>(lim - w) < 2 * n + 24) {
                    room r = refill(w, 2 * n + 24);
                    w = r.w;
                    lim = r.lim;
                }
                const char* s = bytes.data() + (h & document::payload_mask);
                if (static_cast<kind>(h >> document::kind_shift) == kind::bignum) {
                    std::memcpy(w, s, n);  // csv_spelling has no big_suffix
                    w += n;
                } else {
                    w = put_text(w, s, n, bytes.data() + bytes.size());
                }
                i += 2;
                return true;
            }
            default:
                break;
        }
        // The other kinds (bytes, tags, non-finite floats) through write_cell. (No pointer to
        // w, lim or i leaves here: they stay in registers.)
        const value v(doc, i);
        sync(w);
        if (!put_other(v, in_array)) {
            return false;
        }
        room r = refill(nullptr, 64);
        w = r.w;
        lim = r.lim;
        i = v.end_index();
        return true;
    }

    /// write_cell for put_leaf; false on an error (in err_).
    [[gnu::noinline]] bool put_other(value v, bool in_array) {
        if (auto r = write_cell(v, in_array); !r) {
            err_ = std::move(r.error());
            return false;
        }
        return true;
    }

    /// One line for a row of the shape `s` (same_shape): as write_map_row writes it.
    result<void> write_shaped_row(value row, const row_shape& s) {
        const document* doc = row.doc();
        const std::uint64_t* const t = doc->tape().data();
        const std::string& bytes = doc->bytes();
        const char delim = delim_;
        std::size_t i = row.index();
        room r = refill(nullptr, 256);
        char* w = r.w;
        char* lim = r.lim;
        if (s.dense) {
            // Leaf n in column n: the cells in tape order, each followed by the delimiter (the
            // last one's becomes the line end).
            for (const std::uint32_t step : s.leaf_steps) {
                i += step >> 1;
                if (lim - w < 72) {
                    r = refill(w, 72);
                    w = r.w;
                    lim = r.lim;
                }
                if (!put_leaf(w, lim, doc, t, bytes, i, (step & 1) != 0)) {
                    return fail(std::move(err_));
                }
                *w++ = delim;
            }
            if (lim == w) {
                r = refill(w, 1);
                w = r.w;
                lim = r.lim;
            }
            w[-1] = '\r';
            *w++ = '\n';
            sync(w);
            return {};
        }
        {
            std::fill(cells_.begin(), cells_.end(), value());
            std::size_t leaf = 0;
            for (const std::uint64_t tok : s.tokens) {
                if ((tok & 3) != row_shape::leaf) {
                    i += 2;
                    continue;
                }
                cells_[s.leaf_columns[leaf++]] = value(doc, i);
                i = after_leaf(doc, t, i);
            }
            for (std::size_t c = 0; c < cells_.size(); ++c) {
                if (lim - w < 72) {
                    r = refill(w, 72);
                    w = r.w;
                    lim = r.lim;
                }
                if (c != 0) {
                    *w++ = delim;
                }
                if (cells_[c].doc() != nullptr) {
                    std::size_t at = cells_[c].index();
                    if (!put_leaf(w, lim, doc, t, bytes, at, info_[c].in_array)) {
                        return fail(std::move(err_));
                    }
                }
            }
        }
        if (lim - w < 2) {
            r = refill(w, 2);
            w = r.w;
            lim = r.lim;
        }
        std::memcpy(w, "\r\n", 2);
        sync(w + 2);
        return {};
    }

    void write_header() {
        if (opt_.csv_header) {
            for (std::size_t c = 0; c < columns_.size(); ++c) {
                if (c != 0) {
                    out_.push_back(delim_);
                }
                write_text(columns_[c], false);
            }
            out_.append("\r\n");
        }
    }

    result<void> write_map_row(value row) {
        std::string& name = s_.name;
        s_.filled.clear();  // visit_leaf records the cells' columns
        {
            std::fill(cells_.begin(), cells_.end(), value());
            guess_ = 0;
            if (auto r = walk(row, name, false); !r) {
                return r;
            }
            for (std::size_t c = 0; c < cells_.size(); ++c) {
                if (c != 0) {
                    out_.push_back(delim_);
                }
                if (cells_[c].doc() == nullptr) {
                    if (info_[c].in_array && absent_ok(row, columns_[c])) {
                        continue;  // absent: an unquoted empty field
                    }
                    if (!allow_lossy(opt_, row, "missing_cell",
                                     "column " + std::string(columns_[c]) +
                                         " missing, written empty")) {
                        return fail(unrepresentable(
                            row, "row has no value for column " + std::string(columns_[c]) +
                                     (info_[c].in_array
                                          ? " (empty fields there would read back as an empty "
                                            "array or a missing element)"
                                          : " (an empty field would read back as null)")));
                    }
                    continue;
                }
                if (auto w = write_cell(cells_[c], info_[c].in_array); !w) {
                    return w;
                }
            }
            out_.append("\r\n");
        }
        return {};
    }

    // ---- arrays ----

    // Rows without a single column (they would read back as []): refused, or dropped under
    // lossy=allow.
    result<void> no_columns(value root) {
        value row = *root.items().begin();
        if (!allow_lossy(opt_, row, "empty_rows_dropped", "rows without columns dropped")) {
            return fail(
                unrepresentable(row, "rows without any column are not representable in csv"));
        }
        return {};
    }

    result<void> write_arrays(value root) {
        std::size_t start = out_.size();
        std::uint64_t width = 0;
        for (value row : root.items()) {
            if (row.kind() != kind::array) {
                return fail(unrepresentable(
                    row, std::string("a csv table mixes array rows and ") + kind_name(row.kind())));
            }
            width = std::max(width, row.size());
        }
        if (width == 0) {
            return no_columns(root);
        }
        for (value row : root.items()) {
            if (auto r = write_array_row(row, width, start); !r) {
                return r;
            }
        }
        return {};
    }

    /// One array row; `start` is where the table's output began (its first line is special).
    result<void> write_array_row(value row, std::uint64_t width, std::size_t start) {
        {
            if (row.size() != width &&
                !allow_lossy(opt_, row, "ragged_row_padded", "row padded with empty fields")) {
                return fail(unrepresentable(
                    row, "row has " + std::to_string(row.size()) + " fields, another has " +
                             std::to_string(width) + " (csv rows have one width)"));
            }
            std::uint64_t n = 0;
            for (value cell : row.items()) {
                if (n++ != 0) {
                    out_.push_back(delim_);
                }
                if (width == 1 && out_.size() == start && out_start_ != std::string::npos &&
                    cell.kind() == kind::null) {
                    // The first line of a one-column table cannot be empty: a reader skips
                    // blank lines until the first record.
                    if (!allow_lossy(opt_, cell, "null_to_empty_string", "null written as \"\"")) {
                        return fail(unrepresentable(cell,
                                                    "a null alone on the first line of a "
                                                    "one-column csv would read as no row"));
                    }
                    out_.append("\"\"");
                    continue;
                }
                if (auto w = write_cell(cell); !w) {
                    return w;
                }
            }
            for (; n < width; ++n) {
                if (n != 0) {
                    out_.push_back(delim_);
                }
            }
            out_.append("\r\n");
        }
        return {};
    }

    // ---- cells ----

    // A field: quoted when it holds the delimiter, a quote or a line break, and, for strings,
    // when it is empty or an inferring reader would type it (12, true, NaN ...).
    void write_text(std::string_view s, bool guard_inference) {
        bool quote =
            s.empty() || (guard_inference && may_infer(s[0]) && infer_kind(s) != inferred::string);
        // A field that opens the output with U+FEFF would be read as a byte order mark
        // (found by fuzz_decode_csv): quoted, it stays text.
        if (out_.size() == out_start_ && s.substr(0, 3) == "\xEF\xBB\xBF") {
            quote = true;
        }
        if (!quote) {
            quote = scan_.any(s.data(), s.size(), s.data() + s.size());
        }
        if (!quote) {
            out_.append(s);
            return;
        }
        write_quote_doubled(out_, s, '"');
    }

    // `in_array`: the cell lies below an array, where the empty field means absent.
    result<void> write_cell(value v, bool in_array = false) {
        if (write_scalar(out_, v, csv_spelling)) {
            return {};
        }
        switch (v.kind()) {
            case kind::null:
                if (in_array) {
                    out_.append("null");
                }
                return {};
            case kind::boolean_false:
            case kind::boolean_true:
            case kind::int64:
            case kind::uint64:
            case kind::bignum:
            case kind::float64:
                return {};  // write_scalar wrote it
            case kind::string:
            case kind::timestamp:
                write_text(v.get_string(), true);
                return {};
            case kind::bytes: {
                // DESIGN section 3: bytes become base64url text.
                output_buffer tmp;
                base64_encode(tmp, v.get_string(), true);
                write_text(tmp.view(), true);
                return {};
            }
            case kind::tagged:
                POLYCODEC_TRY(drop_tag(opt_, v, "csv"));
                return write_cell(v.tagged_value(), in_array);
            case kind::array:
            case kind::map: {
                const char* what = v.kind() == kind::array ? "an array" : "a map";
                if (!allow_lossy(opt_, v, "nested_to_json_text", "written as JSON text")) {
                    return fail(unrepresentable(
                        v, std::string(what) + " inside a csv row is not representable (csv "
                                               "cells are scalars; --lossy writes JSON text)"));
                }
                document sub;
                builder b(sub);
                b.add_copy(v);
                output_buffer json;
                encode_options jopt;
                jopt.lossy = true;
                if (auto r = json_codec.encode(sub, json, jopt); !r) {
                    return r;
                }
                write_text(json.view(), true);
                return {};
            }
        }
        return {};
    }

    output_buffer& out_;
    std::size_t out_start_ = out_.size();  // where this document's output begins (npos: not here)
    const encode_options& opt_;
    char delim_;
    quote_scan scan_{delim_};
    error err_;  // put_leaf's error when it returned false
    writer_scratch& s_ = thread_scratch();
    name_table& columns_ = s_.columns;
    name_table& array_paths_ = s_.arrays;
    std::vector<column_info>& info_ = s_.info;
    std::vector<value>& cells_ = s_.cells;
    std::size_t guess_ = 0;
    pass pass_ = pass::collect;
};

result<void> encode_csv(const document& doc, output_buffer& out, const encode_options& opt) {
    if (bad_delimiter(delimiter_of(opt))) {
        return fail(make_error(errc::invalid_option, "the csv delimiter cannot be a quote or a "
                                                     "line break"));
    }
    csv_writer w(out, opt);
    return w.run(doc.root());
}

}  // namespace

// Stream mode: one csv_writer per record over scratch that keeps the first record's columns.
class csv_record_encoder final : public record_encoder {
public:
    explicit csv_record_encoder(const encode_options& opt) : opt_(opt) {}
    result<void> write(value record, output_buffer& out) override {
        if (bad_delimiter(delimiter_of(opt_))) {
            return fail(make_error(errc::invalid_option, "the csv delimiter cannot be a quote or "
                                                         "a line break"));
        }
        csv_writer w(out, opt_, scratch_, first_);
        first_ = false;
        return w.stream_record(record);
    }

private:
    const encode_options& opt_;
    writer_scratch scratch_;
    bool first_ = true;
};

std::unique_ptr<record_encoder> make_csv_record_encoder(const encode_options& opt) {
    return std::make_unique<csv_record_encoder>(opt);
}

const codec_functions csv_codec{decode_csv, encode_csv, make_csv_record_encoder};

}  // namespace polycodec::detail
