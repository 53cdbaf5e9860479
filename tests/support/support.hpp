#pragma once
// Helpers shared by the test suites.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "polycodec/polycodec.hpp"

namespace polycodec::test {

/// The caller's file and line, as std::source_location gives them; written on the compilers'
/// builtins because clang 14 with libstdc++ 12 has no std::source_location.
struct source_loc {
    const char* file = "";
    unsigned ln = 0;
    static constexpr source_loc current(const char* file = __builtin_FILE(),
                                        unsigned line = __builtin_LINE()) noexcept {
        return {file, line};
    }
    constexpr const char* file_name() const noexcept { return file; }
    constexpr unsigned line() const noexcept { return ln; }
};

/// "a2 61 61 01" or "a2616101" -> bytes. Whitespace and dashes are ignored.
inline std::string hex(std::string_view text) {
    std::string out;
    int hi = -1;
    for (char c : text) {
        int v;
        if (c >= '0' && c <= '9') {
            v = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            v = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            v = c - 'A' + 10;
        } else {
            continue;
        }
        if (hi < 0) {
            hi = v;
        } else {
            out.push_back(static_cast<char>(hi * 16 + v));
            hi = -1;
        }
    }
    return out;
}

/// bytes -> "a2 61 61 01", for failure messages.
inline std::string to_hex(std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        if (!out.empty()) {
            out += ' ';
        }
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

/// A BSON document around the element bytes `elements`: int32 length, elements, 0x00.
inline std::string bson_document(std::string_view elements) {
    std::string out(4, '\0');
    out += elements;
    out.push_back('\0');
    auto n = static_cast<std::uint32_t>(out.size());
    for (int i = 0; i < 4; ++i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
    }
    return out;
}

/// A bplist00 trailer: 6 unused bytes, the offset and reference sizes, then the object count,
/// the top object and the offset table's start as big-endian uint64s.
inline std::string bplist_trailer(unsigned offset_size, unsigned ref_size, std::uint64_t objects,
                                  std::uint64_t top, std::uint64_t table) {
    std::string t(6, '\0');
    t.push_back(static_cast<char>(offset_size));
    t.push_back(static_cast<char>(ref_size));
    for (std::uint64_t v : {objects, top, table}) {
        for (int i = 7; i >= 0; --i) {
            t.push_back(static_cast<char>(v >> (8 * i)));
        }
    }
    return t;
}

/// A binary plist: "bplist00", the objects and offset table `body` (hex) and a trailer.
inline std::string bplist00(std::string_view body, unsigned offset_size, unsigned ref_size,
                            std::uint64_t objects, std::uint64_t top, std::uint64_t table) {
    return "bplist00" + hex(body) + bplist_trailer(offset_size, ref_size, objects, top, table);
}

/// The conformance corpus (../shared/corpus), or "" when absent.
inline std::filesystem::path corpus_dir() {
    const char* env = std::getenv("POLYCODEC_CORPUS_DIR");
    std::filesystem::path p = env != nullptr && *env != 0 ? env : POLYCODEC_CORPUS_DIR;
    return std::filesystem::is_directory(p) ? p : std::filesystem::path();
}

/// Skips the current test with a message when the corpus folder `sub` is absent.
#define POLYCODEC_REQUIRE_CORPUS(sub, var)                                                 \
    std::filesystem::path var = ::polycodec::test::corpus_dir();                          \
    if (var.empty() || !std::filesystem::exists(var / (sub))) {                           \
        GTEST_SKIP() << "conformance corpus " << (sub) << " not found under "             \
                     << POLYCODEC_CORPUS_DIR << " (set POLYCODEC_CORPUS_DIR)";            \
    }                                                                                     \
    var /= (sub)

inline std::filesystem::path fixtures_dir() { return POLYCODEC_FIXTURES_DIR; }

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// Decodes or fails the test with the error's description.
inline document must_decode(format_id f, std::string_view in, const decode_options& opt = {}) {
    document d;
    auto r = decode(f, in, d, opt);
    EXPECT_TRUE(r) << (r ? "" : describe(r.error()));
    return d;
}

/// The value of `r` (an expected<T, error>), or T{} after failing the test with the error's
/// description.
template <class Expected>
auto must_value(Expected&& r) -> std::remove_cvref_t<decltype(*r)> {
    EXPECT_TRUE(r) << (r ? "" : describe(r.error()));
    return r ? *r : std::remove_cvref_t<decltype(*r)>{};
}

/// Encodes or fails the test with the error's description.
inline std::string must_encode(format_id f, const document& d, const encode_options& opt = {}) {
    output_buffer out;
    auto r = encode(f, d, out, opt);
    EXPECT_TRUE(r) << (r ? "" : describe(r.error()));
    return out.str();
}

/// The decode error of `in`; fails the test when `in` decodes.
inline error decode_error(format_id f, std::string_view in, const decode_options& opt = {}) {
    document d;
    auto r = decode(f, in, d, opt);
    EXPECT_FALSE(r) << "decoded to " << (r ? to_debug_string(d.root()) : "");
    return r ? error{} : r.error();
}

/// Debug text of a document, "<empty>" for none.
inline std::string dbg(const document& d) {
    return d.empty() ? std::string("<empty>") : to_debug_string(d.root());
}

/// Debug text of `in` decoded as `f` (fails the test when it does not decode).
inline std::string decoded_as(format_id f, std::string_view in, const decode_options& opt = {}) {
    return dbg(must_decode(f, in, opt));
}

/// Decode options with only `infer` set.
inline decode_options inferring(bool infer = true) {
    decode_options opt;
    opt.infer = infer;
    return opt;
}

/// Encode options with only `pretty` set.
inline encode_options pretty(bool on = true) {
    encode_options opt;
    opt.pretty = on;
    return opt;
}

/// Decode options with only limits.max_depth set.
inline decode_options max_depth(std::uint32_t depth) {
    decode_options opt;
    opt.limits.max_depth = depth;
    return opt;
}

/// Decode options with only limits.max_bytes set.
inline decode_options max_bytes(std::size_t bytes) {
    decode_options opt;
    opt.limits.max_bytes = bytes;
    return opt;
}

/// `piece` `n` times.
inline std::string repeat(std::string_view piece, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += piece;
    }
    return out;
}

/// A document holding one map entry: `key` and the value `add_value(b)` adds with the builder.
template <class AddValue>
document map_with(std::string_view key, AddValue add_value) {
    document d;
    {
        builder b(d);
        b.begin_map();
        b.add_string(key);
        add_value(b);
        b.end_map();
    }
    return d;
}

/// A document holding one map entry: `key` and the byte string `bytes`.
inline document map_of_bytes(std::string_view key, std::string_view bytes) {
    return map_with(key, [bytes](builder& b) { b.add_bytes(bytes); });
}

/// A map with one entry: `key` and a map whose one entry is true: 1 ({"x": {true: 1}} for
/// the key "x"); formats whose map keys are text cannot write it.
inline document bool_keyed_map(std::string_view key) {
    return map_with(key, [](builder& b) {
        b.begin_map();
        b.add_bool(true);
        b.add_int(1);
        b.end_map();
    });
}

/// The JSON text `json` encoded as `f` (fails the test when either step fails).
inline std::string encode_json_as(format_id f, std::string_view json,
                                  const encode_options& opt = {}) {
    return must_encode(f, must_decode(format_id::json, json), opt);
}

/// The encode error of `d` as `f`; fails the test (with the output) when it encodes.
inline error encode_error_of(format_id f, const document& d, const encode_options& opt = {}) {
    output_buffer out;
    auto r = encode(f, d, out, opt);
    EXPECT_FALSE(r) << out.str();
    return r ? error{} : r.error();
}

/// The encode error of the JSON text `json` as `f`.
inline error encode_json_error(format_id f, std::string_view json, const encode_options& opt = {}) {
    return encode_error_of(f, must_decode(format_id::json, json), opt);
}

/// A want_error field that is not checked.
inline constexpr std::uint32_t any = 0xffffffffu;

/// What an error must say: its code, and the fields not left at `any` / nullptr.
struct want_error {
    errc code = errc::ok;
    std::uint64_t offset = any;
    std::uint32_t line = any;
    std::uint32_t column = any;
    const char* message = nullptr;      ///< the whole message
    const char* path = nullptr;         ///< the JSON Pointer
    const char* message_has = nullptr;  ///< a part of the message
    std::optional<format_id> format{};  ///< the format the error names
};

/// Checks `actual` against `want` unless `want` is `any` (the field `name` is not checked).
inline void expect_field(const char* name, std::uint64_t actual, std::uint64_t want) {
    if (want != any) {
        EXPECT_EQ(actual, want) << name;
    }
}

/// Checks `actual` against `want` unless `want` is nullptr (the field `name` is not checked).
inline void expect_field(const char* name, const std::string& actual, const char* want) {
    if (want != nullptr) {
        EXPECT_EQ(actual, want) << name;
    }
}

/// Checks `e` against `w`; a failure names the caller's line and describe(e).
inline void expect_error(const error& e, const want_error& w,
                         source_loc loc = source_loc::current()) {
    ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()), describe(e));
    EXPECT_EQ(e.code, w.code);
    expect_field("offset", e.offset, w.offset);
    expect_field("line", e.line, w.line);
    expect_field("column", e.column, w.column);
    expect_field("message", e.message, w.message);
    expect_field("path", e.path, w.path);
    if (w.message_has != nullptr) {
        EXPECT_NE(e.message.find(w.message_has), std::string::npos) << e.message;
    }
    if (w.format) {
        EXPECT_EQ(e.format, *w.format);
    }
}

/// The first 200 bytes of `text`, for a failure's trace.
inline std::string clip(std::string_view text) { return std::string(text.substr(0, 200)); }

/// Runs `check(row)` for every row of `rows`, each under a trace of the caller's line and
/// `label(row)` (which row and input a failure is about).
template <class Row, class Label, class Check>
void for_each_row(std::span<const Row> rows, source_loc loc, Label label, Check check) {
    for (const Row& row : rows) {
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()), label(row));
        check(row);
    }
}

/// Decodes `in` as `f`, which must fail as `w` says.
inline void expect_decode_error(format_id f, std::string_view in, const want_error& w,
                                const decode_options& opt = {},
                                source_loc loc = source_loc::current()) {
    ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                 "input: " + clip(in));
    expect_error(decode_error(f, in, opt), w, loc);
}

/// One row of a table of inputs that must fail to decode.
struct bad_input {
    std::string input;
    want_error want;
};

/// Checks every row of `rows` (a failure says which row and input).
inline void expect_decode_errors(format_id f, std::span<const bad_input> rows,
                                 const decode_options& opt = {},
                                 source_loc loc = source_loc::current()) {
    const bad_input* first = rows.data();
    for_each_row(
        rows, loc, [first](const bad_input& c) { return "row " + std::to_string(&c - first); },
        [&](const bad_input& c) { expect_decode_error(f, c.input, c.want, opt, loc); });
}

/// One row of a table of inputs that must fail to decode at a byte offset.
struct bad_at {
    std::string input;
    errc code;
    std::uint64_t offset;
    const char* message_has;  ///< a part of the message
};

/// The trace label of a binary input: its first 64 bytes in hex.
inline std::string hex_label(std::string_view bytes) {
    return "input (hex): " + to_hex(bytes.substr(0, 64));
}

/// Checks every row of `rows`: the error's code, byte offset and a part of its message, and
/// its line when `line` is given (binary formats report line 0).
inline void expect_errors_at(format_id f, std::span<const bad_at> rows, std::uint32_t line = any,
                             source_loc loc = source_loc::current()) {
    for_each_row(
        rows, loc, [](const bad_at& c) { return hex_label(c.input); },
        [&](const bad_at& c) {
            expect_error(
                decode_error(f, c.input),
                {.code = c.code, .offset = c.offset, .line = line, .message_has = c.message_has},
                loc);
        });
}

/// Checks that every row's input (JSON text) fails to encode as `f` as its row says.
inline void expect_encode_errors(format_id f, std::span<const bad_input> rows,
                                 const encode_options& opt = {},
                                 source_loc loc = source_loc::current()) {
    for_each_row(
        rows, loc, [](const bad_input& c) { return "json: " + clip(c.input); },
        [&](const bad_input& c) { expect_error(encode_json_error(f, c.input, opt), c.want, loc); });
}

/// Encodes `d` as `f`, decodes the bytes back with `back` and checks they equal `d`; returns
/// the bytes.
inline std::string expect_round_trip(format_id f, const document& d,
                                     const decode_options& back = {},
                                     source_loc loc = source_loc::current()) {
    ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()), "round trip");
    std::string bytes = must_encode(f, d);
    document again = must_decode(f, bytes, back);
    EXPECT_TRUE(equal(d, again)) << dbg(again).substr(0, 2000);
    return bytes;
}

/// expect_round_trip, then checks that what decodes from the bytes encodes to them again.
inline void expect_stable_round_trip(format_id f, const document& d,
                                     source_loc loc = source_loc::current()) {
    std::string bytes = expect_round_trip(f, d, {}, loc);
    EXPECT_EQ(must_encode(f, must_decode(f, bytes)), bytes) << "re-encoding what decoded";
}

/// Encodes `d` as `f`, compact and pretty, and checks that each decodes back to `d`.
inline void expect_round_trips_compact_and_pretty(format_id f, const document& d,
                                                  source_loc loc = source_loc::current()) {
    for (bool on : {false, true}) {
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     on ? "pretty" : "compact");
        EXPECT_TRUE(equal(must_decode(f, must_encode(f, d, pretty(on))), d));
    }
}

/// The fixture fixtures/`name` (JSON text) as a document.
inline document json_fixture(std::string_view name) {
    return must_decode(format_id::json, read_file(fixtures_dir() / name));
}

/// Encodes `d` as `f` and decodes the output into `back`: "" when both steps succeed, else
/// which one failed and why (with the output when it does not decode).
inline std::string reencode_into(format_id f, const document& d, document& back) {
    output_buffer out;
    if (auto er = encode(f, d, out); !er) {
        return "encode failed: " + describe(er.error());
    }
    if (auto br = decode(f, out.view(), back); !br) {
        return "encoded output rejected: " + describe(br.error()) + "\n" + out.str();
    }
    return "";
}

/// Checks that `text` decodes as `f` to a map or array whose values are timestamps of the
/// kinds offset date-time, local date-time, local date and local time, in that order (TOML's
/// four kinds, which YAML's !!timestamp shares).
inline void expect_four_timestamp_kinds(format_id f, std::string_view text,
                                        source_loc loc = source_loc::current()) {
    ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()), "timestamps");
    document d = must_decode(f, text);
    std::vector<value> values;
    if (d.root().kind() == kind::map) {
        for (auto [k, v] : d.root().entries()) {
            values.push_back(v);
        }
    } else {
        for (value v : d.root().items()) {
            values.push_back(v);
        }
    }
    const timestamp_kind kinds[] = {timestamp_kind::offset_date_time,
                                    timestamp_kind::local_date_time, timestamp_kind::local_date,
                                    timestamp_kind::local_time};
    ASSERT_EQ(values.size(), std::size(kinds));
    for (std::size_t i = 0; i < values.size(); ++i) {
        ASSERT_EQ(values[i].kind(), kind::timestamp) << "value " << i;
        EXPECT_EQ(values[i].get_timestamp_kind(), kinds[i]) << "value " << i;
    }
}

/// One row of a table of inputs and what they give: the debug text of what the input decodes
/// to, or the text (or hex) that the input, JSON text, encodes to.
struct text_case {
    std::string input;
    std::string want;
};

/// Checks that `convert(input)` is `want` for every row; `what` names the input in a trace.
template <class Convert>
void expect_converts(std::span<const text_case> rows, const char* what, source_loc loc,
                     Convert convert) {
    for_each_row(
        rows, loc, [what](const text_case& c) { return std::string(what) + ": " + clip(c.input); },
        [&](const text_case& c) { EXPECT_EQ(convert(c.input), c.want); });
}

/// Checks that every row's input decodes as `f` to its debug text.
inline void expect_decodes(format_id f, std::span<const text_case> rows,
                           const decode_options& opt = {}, source_loc loc = source_loc::current()) {
    expect_converts(rows, "input", loc,
                    [&](std::string_view in) { return decoded_as(f, in, opt); });
}

/// One row of a table of binary inputs spelled in hex and what they decode to (debug text);
/// a row whose want is nullptr is skipped (its test checks it another way).
struct hex_case {
    const char* hex;
    const char* want;
};

/// Checks that every row's input (hex) decodes as `f` to its debug text.
inline void expect_decodes_hex(format_id f, std::span<const hex_case> rows,
                               const decode_options& opt = {},
                               source_loc loc = source_loc::current()) {
    for_each_row(
        rows, loc, [](const hex_case& c) { return std::string("input (hex): ") + c.hex; },
        [&](const hex_case& c) {
            if (c.want != nullptr) {
                EXPECT_EQ(decoded_as(f, hex(c.hex), opt), c.want);
            }
        });
}

/// One row of a table of binary inputs that must fail to decode at a byte offset.
struct bytes_error_case {
    std::string bytes;
    errc code;
    std::uint64_t offset;
};

/// Checks that `bytes` fails to decode as `f` with `code` at byte `offset`, and on `line` when
/// given; returns the error.
inline error expect_error_at_byte(format_id f, std::string_view bytes, errc code,
                                  std::uint64_t offset, std::uint32_t line = any) {
    error e = decode_error(f, bytes);
    EXPECT_EQ(e.code, code) << describe(e);
    EXPECT_EQ(e.offset, offset) << describe(e);
    expect_field("line", e.line, line);
    return e;
}

/// Checks every row of `rows`: the error's code and byte offset, and its line when `line` is
/// given (binary formats report line 0).
inline void expect_byte_errors(format_id f, std::span<const bytes_error_case> rows,
                               std::uint32_t line = any, source_loc loc = source_loc::current()) {
    for_each_row(
        rows, loc, [](const bytes_error_case& c) { return hex_label(c.bytes); },
        [&](const bytes_error_case& c) {
            expect_error_at_byte(f, c.bytes, c.code, c.offset, line);
        });
}

/// One row of a table of binary inputs spelled in hex that must fail to decode at a byte offset.
struct hex_error_case {
    const char* hex;
    errc code;
    std::uint64_t offset;
};

/// Checks every row of `rows`: the error's code, byte offset (which it must have) and format,
/// and its line when `line` is given.
inline void expect_hex_errors(format_id f, std::span<const hex_error_case> rows,
                              std::uint32_t line = any, source_loc loc = source_loc::current()) {
    for_each_row(
        rows, loc, [](const hex_error_case& c) { return std::string("input (hex): ") + c.hex; },
        [&](const hex_error_case& c) {
            error e = expect_error_at_byte(f, hex(c.hex), c.code, c.offset, line);
            EXPECT_TRUE(e.has_offset);
            EXPECT_EQ(e.format, f);
        });
}

/// Checks that every row's input (JSON text) encodes as `f` to its bytes.
inline void expect_encodes(format_id f, std::span<const text_case> rows,
                           const encode_options& opt = {}, source_loc loc = source_loc::current()) {
    expect_converts(rows, "json", loc,
                    [&](std::string_view in) { return encode_json_as(f, in, opt); });
}

/// Encode options with lossy=allow and a report to read (not copyable: opt points at report).
struct lossy_encode {
    encode_options opt;
    lossy_report report;
    lossy_encode() {
        opt.lossy = true;
        opt.report = &report;
    }
    lossy_encode(const lossy_encode&) = delete;
    lossy_encode& operator=(const lossy_encode&) = delete;
};

/// Checks that `d` does not encode as `f` (unrepresentable at `path`) and that with
/// lossy=allow it encodes to `lossy_bytes`; returns the lossy report of that encode.
inline lossy_report expect_lossy_only(format_id f, const document& d, const char* path,
                                      std::string_view lossy_bytes,
                                      source_loc loc = source_loc::current()) {
    expect_error(encode_error_of(f, d), {.code = errc::unrepresentable, .path = path}, loc);
    lossy_encode lossy;
    EXPECT_EQ(must_encode(f, d, lossy.opt), lossy_bytes);
    return lossy.report;
}

/// One expected lossy event: its kind and, when given, its path.
struct want_event {
    std::string_view kind;
    std::optional<std::string_view> path{};
};

/// Checks the events of `report` in order.
inline void expect_report(const lossy_report& report, std::initializer_list<want_event> want,
                          source_loc loc = source_loc::current()) {
    ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()), "lossy report");
    ASSERT_EQ(report.size(), want.size());
    std::size_t i = 0;
    for (const auto& w : want) {
        EXPECT_EQ(report[i].kind, w.kind) << "event " << i;
        if (w.path) {
            EXPECT_EQ(report[i].path, *w.path) << "event " << i;
        }
        ++i;
    }
}

}  // namespace polycodec::test
