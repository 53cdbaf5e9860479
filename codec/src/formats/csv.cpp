// CSV (RFC 4180) and TSV. The reader turns a table into an array of maps (header row present,
// the default) or an array of arrays (header=absent); `infer` types unquoted fields, `unflatten`
// turns dotted column names back into nested maps. The writer takes an array of maps (columns =
// union of the flattened keys, first seen first) or an array of arrays and writes CRLF lines.
//
// The lossless scheme (docs/formats/csv.md): the writer quotes every string that an inferring
// reader would take for something else ("", "12", "true", "NaN"), and the reader never infers a
// quoted field. So null is an empty field, the empty string is "", and `--infer` reads back every
// scalar the writer wrote.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "detail/base64.hpp"
#include "detail/lossy.hpp"
#include "detail/number.hpp"
#include "detail/utf8.hpp"
#include "formats.hpp"
#include "json5/text.hpp"

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

/// What an unquoted field reads as with infer=true: "" null, true/false, integers without
/// leading zeros (JSON grammar), floats in JSON grammar plus NaN, Infinity and -Infinity.
inferred infer_kind(std::string_view s) {
    if (s.empty()) {
        return inferred::null;
    }
    if (s == "true" || s == "false") {
        return inferred::boolean;
    }
    if (s == "NaN" || s == "Infinity" || s == "-Infinity") {
        return inferred::floating;
    }
    std::size_t p = 0;
    if (s[p] == '-') {
        ++p;
    }
    std::size_t int_start = p;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
        ++p;
    }
    std::size_t int_len = p - int_start;
    if (int_len == 0 || (int_len > 1 && s[int_start] == '0')) {
        return inferred::string;
    }
    bool is_float = false;
    if (p < s.size() && s[p] == '.') {
        is_float = true;
        ++p;
        std::size_t f = p;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
            ++p;
        }
        if (p == f) {
            return inferred::string;
        }
    }
    if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
        is_float = true;
        ++p;
        if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
            ++p;
        }
        std::size_t e = p;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
            ++p;
        }
        if (p == e) {
            return inferred::string;
        }
    }
    if (p != s.size()) {
        return inferred::string;
    }
    if (is_float) {
        double d = 0;
        if (!text::parse_double(s, d) || !std::isfinite(d)) {
            return inferred::string;  // "1e999" stays text
        }
        return inferred::floating;
    }
    return inferred::integer;
}

void add_inferred(builder& b, std::string_view s) {
    switch (infer_kind(s)) {
        case inferred::null:
            b.add_null();
            return;
        case inferred::boolean:
            b.add_bool(s == "true");
            return;
        case inferred::integer:
            text::add_decimal_integer(b, s);
            return;
        case inferred::floating: {
            double d = 0;
            if (s == "NaN") {
                d = std::numeric_limits<double>::quiet_NaN();
            } else if (s == "Infinity" || s == "-Infinity") {
                d = s[0] == '-' ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity();
            } else {
                text::parse_double(s, d);
            }
            b.add_double(d);
            return;
        }
        case inferred::string:
            b.add_string(s);
            return;
    }
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
    std::vector<std::size_t> children;
};

class csv_reader {
public:
    csv_reader(std::string_view in, builder& b, const decode_options& opt)
        : in_(in), b_(b), opt_(opt), delim_(delimiter_of(opt)) {}

    result<void> run() {
        std::size_t valid = utf8_valid_prefix(in_);
        if (valid != in_.size()) {
            return fail(make_error(errc::invalid_utf8, valid, "invalid UTF-8"));
        }
        if (in_.substr(0, 3) == "\xEF\xBB\xBF") {
            pos_ = 3;
        }
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
            if (auto r = read_record(); !r) {
                return r;
            }
            if (!have_first) {
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
        return fail(make_error(b_.status(), pos_,
                               b_.status() == errc::depth_exceeded
                                   ? "nesting deeper than " + std::to_string(b_.limits().max_depth)
                                   : std::string("document larger than its size budget")));
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
                if (pos_ < in_.size() && in_[pos_] != delim_ && in_[pos_] != '\r' &&
                    in_[pos_] != '\n') {
                    return fail(make_error(errc::unexpected_char, pos_,
                                           "expected a delimiter or a line end after the "
                                           "closing quote, saw " +
                                               text::describe_at(in_, pos_)));
                }
                if (escaped) {
                    std::size_t at = scratch_.size();
                    for (std::size_t i = content; i < end; ++i) {
                        scratch_.push_back(in_[i]);
                        if (in_[i] == '"') {
                            ++i;  // "" is one quote
                        }
                    }
                    fields_.push_back({src, at, scratch_.size() - at, true, true});
                } else {
                    fields_.push_back({src, content, end - content, true, false});
                }
            } else {
                std::size_t start = pos_;
                while (pos_ < in_.size() && in_[pos_] != delim_ && in_[pos_] != '\r' &&
                       in_[pos_] != '\n') {
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
        std::vector<std::pair<std::size_t, std::size_t>> spans;
        for (const field& f : fields_) {
            std::string_view t = text_of(f);
            spans.emplace_back(header_buf_.size(), t.size());
            header_buf_.append(t);
        }
        names_.clear();
        for (auto [off, len] : spans) {
            names_.push_back(std::string_view(header_buf_).substr(off, len));
        }
        if (!opt_.unflatten) {
            return {};
        }
        // The tree of dotted names: node 0 is the row map.
        nodes_.assign(1, header_node{});
        for (std::size_t col = 0; col < names_.size(); ++col) {
            std::string_view name = names_[col];
            std::vector<std::string_view> parts;
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
                for (std::size_t c : nodes_[node].children) {
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
                    nodes_.push_back(header_node{parts[i], last ? static_cast<int>(col) : -1, {}});
                    found = nodes_.size() - 1;
                    nodes_[node].children.push_back(found);
                }
                node = found;
            }
        }
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

    result<void> emit_node(std::size_t node) {
        if (!b_.begin_map()) {
            return container_limit();
        }
        for (std::size_t c : nodes_[node].children) {
            b_.add_string(nodes_[c].name);
            if (nodes_[c].column >= 0) {
                add_field(fields_[static_cast<std::size_t>(nodes_[c].column)]);
            } else if (auto r = emit_node(c); !r) {
                return r;
            }
        }
        b_.end_map();
        return {};
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
    std::vector<field> fields_;
    std::string scratch_;
    std::string header_buf_;
    std::vector<std::string_view> names_;
    std::vector<header_node> nodes_;
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

const char* kind_name(kind k) {
    switch (k) {
        case kind::null:
            return "null";
        case kind::boolean_false:
        case kind::boolean_true:
            return "a bool";
        case kind::int64:
        case kind::uint64:
        case kind::bignum:
            return "an integer";
        case kind::float64:
            return "a float";
        case kind::string:
            return "a string";
        case kind::bytes:
            return "bytes";
        case kind::timestamp:
            return "a timestamp";
        case kind::tagged:
            return "a tagged value";
        case kind::array:
            return "an array";
        case kind::map:
            return "a map";
    }
    return "a value";
}

class csv_writer {
public:
    csv_writer(output_buffer& out, const encode_options& opt)
        : out_(out), opt_(opt), delim_(delimiter_of(opt)) {}

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

    result<void> key_text(value k, std::string& into) {
        switch (k.kind()) {
            case kind::string:
            case kind::timestamp:
            case kind::bignum:
                into.append(k.get_string());
                return {};
            case kind::int64:
                into.append(std::to_string(k.get_int()));
                return {};
            case kind::uint64:
                into.append(std::to_string(k.get_uint()));
                return {};
            default: {
                std::string t = to_debug_string(k);
                if (!allow_lossy(opt_, k, "key_to_string", "key written as its text")) {
                    return fail(
                        unrepresentable(k, "map key " + t + " is not representable in csv"));
                }
                into.append(t);
                return {};
            }
        }
    }

    // Visits the leaf values of a row map as (column name, value); nested non-empty maps are
    // flattened with '.', empty ones are reported through `on_empty`.
    template <class OnLeaf, class OnEmpty>
    result<void> flatten(value map, std::string& name, OnLeaf&& on_leaf, OnEmpty&& on_empty) {
        std::size_t base = name.size();
        for (auto [k, v] : map.entries()) {
            name.resize(base);
            if (base != 0) {
                name.push_back('.');
            }
            if (auto r = key_text(k, name); !r) {
                return r;
            }
            value inner = v;
            if (inner.kind() == kind::map) {
                if (inner.size() == 0) {
                    if (auto r = on_empty(inner); !r) {
                        return r;
                    }
                    continue;
                }
                if (auto r = flatten(inner, name, on_leaf, on_empty); !r) {
                    return r;
                }
                continue;
            }
            if (auto r = on_leaf(name, v); !r) {
                return r;
            }
        }
        name.resize(base);
        return {};
    }

    std::size_t column_of(const std::string& name, std::size_t guess) {
        if (guess < columns_.size() && columns_[guess] == name) {
            return guess;
        }
        auto it = index_.find(name);
        return it == index_.end() ? std::string::npos : it->second;
    }

    result<void> write_maps(value root) {
        std::string name;
        // Pass 1: the union of the column names in first-seen order.
        for (value row : root.items()) {
            if (row.kind() != kind::map) {
                return fail(unrepresentable(
                    row, std::string("a csv table mixes map rows and ") + kind_name(row.kind())));
            }
            std::size_t i = 0;
            auto r = flatten(
                row, name,
                [&](const std::string& n, value) -> result<void> {
                    std::size_t c = column_of(n, i);
                    if (c == std::string::npos) {
                        index_.emplace(n, columns_.size());
                        columns_.push_back(n);
                        c = columns_.size() - 1;
                    }
                    i = c + 1;
                    return {};
                },
                [](value) -> result<void> { return {}; });
            if (!r) {
                return r;
            }
        }
        if (columns_.empty()) {
            // Rows without a single column have no text at all: they would read back as [].
            // Name a nested empty map first, as the error that explains it.
            for (value r : root.items()) {
                auto e = flatten(
                    r, name, [](const std::string&, value) -> result<void> { return {}; },
                    [&](value v) -> result<void> {
                        return fail(unrepresentable(v,
                                                    "an empty map inside a row is not "
                                                    "representable in csv (it flattens to "
                                                    "no column)"));
                    });
                if (!e && !opt_.lossy) {
                    return e;
                }
            }
            value row = *root.items().begin();
            if (!allow_lossy(opt_, row, "empty_rows_dropped", "rows without columns dropped")) {
                return fail(unrepresentable(row,
                                            "rows without any column are not representable "
                                            "in csv"));
            }
            return {};
        }
        if (opt_.csv_header) {
            for (std::size_t c = 0; c < columns_.size(); ++c) {
                if (c != 0) {
                    out_.push_back(delim_);
                }
                write_text(columns_[c], false);
            }
            out_.append("\r\n");
        }
        // Pass 2: one line per row.
        std::vector<value> cells(columns_.size());
        for (value row : root.items()) {
            std::fill(cells.begin(), cells.end(), value());
            std::size_t i = 0;
            auto r = flatten(
                row, name,
                [&](const std::string& n, value v) -> result<void> {
                    std::size_t c = column_of(n, i);
                    i = c + 1;
                    if (cells[c].doc() != nullptr) {
                        if (!allow_lossy(opt_, v, "duplicate_column_dropped",
                                         "second value of column " + n + " dropped")) {
                            return fail(
                                unrepresentable(v, "column " + n + " appears twice in this row"));
                        }
                        return {};
                    }
                    cells[c] = v;
                    return {};
                },
                [&](value v) -> result<void> {
                    if (!allow_lossy(opt_, v, "empty_map_dropped", "empty map dropped")) {
                        return fail(unrepresentable(
                            v,
                            "an empty map inside a row is not representable in csv (it "
                            "flattens to no column)"));
                    }
                    return {};
                });
            if (!r) {
                return r;
            }
            for (std::size_t c = 0; c < cells.size(); ++c) {
                if (c != 0) {
                    out_.push_back(delim_);
                }
                if (cells[c].doc() == nullptr) {
                    if (!allow_lossy(opt_, row, "missing_cell",
                                     "column " + columns_[c] + " missing, written empty")) {
                        return fail(
                            unrepresentable(row, "row has no value for column " + columns_[c] +
                                                     " (an empty field would read back as null)"));
                    }
                    continue;
                }
                if (auto w = write_cell(cells[c]); !w) {
                    return w;
                }
            }
            out_.append("\r\n");
        }
        return {};
    }

    // ---- arrays ----

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
            value row = *root.items().begin();
            if (!allow_lossy(opt_, row, "empty_rows_dropped", "rows without columns dropped")) {
                return fail(unrepresentable(row,
                                            "rows without any column are not representable "
                                            "in csv"));
            }
            return {};
        }
        for (value row : root.items()) {
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
                if (width == 1 && out_.size() == start && cell.kind() == kind::null) {
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
        bool quote = s.empty() || (guard_inference && infer_kind(s) != inferred::string);
        if (!quote) {
            for (char c : s) {
                if (c == delim_ || c == '"' || c == '\r' || c == '\n') {
                    quote = true;
                    break;
                }
            }
        }
        if (!quote) {
            out_.append(s);
            return;
        }
        out_.push_back('"');
        std::size_t run = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '"') {
                out_.append(s.data() + run, i + 1 - run);
                out_.push_back('"');
                run = i + 1;
            }
        }
        out_.append(s.data() + run, s.size() - run);
        out_.push_back('"');
    }

    result<void> write_cell(value v) {
        switch (v.kind()) {
            case kind::null:
                return {};
            case kind::boolean_false:
                out_.append("false");
                return {};
            case kind::boolean_true:
                out_.append("true");
                return {};
            case kind::int64:
                write_int(out_, v.get_int());
                return {};
            case kind::uint64:
                write_uint(out_, v.get_uint());
                return {};
            case kind::bignum:
                out_.append(v.get_string());
                return {};
            case kind::float64: {
                double d = v.get_double();
                if (std::isfinite(d)) {
                    write_double(out_, d);
                } else {
                    out_.append(std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
                }
                return {};
            }
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
                if (!allow_lossy(opt_, v, "tag_dropped", "tag dropped, inner value kept")) {
                    return fail(unrepresentable(
                        v, "tag " + std::to_string(v.tag()) + " is not representable in csv"));
                }
                return write_cell(v.tagged_value());
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
    const encode_options& opt_;
    char delim_;
    std::vector<std::string> columns_;
    std::unordered_map<std::string, std::size_t> index_;
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

const codec_functions csv_codec{decode_csv, encode_csv};

}  // namespace polycodec::detail
