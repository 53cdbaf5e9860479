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
#include <utility>

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

/// A document holding one map entry: `key` and the byte string `bytes`.
inline document map_of_bytes(std::string_view key, std::string_view bytes) {
    document d;
    {
        builder b(d);
        b.begin_map();
        b.add_string(key);
        b.add_bytes(bytes);
        b.end_map();
    }
    return d;
}

/// A map with one entry: `key` and a map whose one entry is true: 1 ({"x": {true: 1}} for
/// the key "x"); formats whose map keys are text cannot write it.
inline document bool_keyed_map(std::string_view key) {
    document d;
    {
        builder b(d);
        b.begin_map();
        b.add_string(key);
        b.begin_map();
        b.add_bool(true);
        b.add_int(1);
        b.end_map();
        b.end_map();
    }
    return d;
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
};

/// Checks `e` against `w`; a failure names the caller's line and describe(e).
inline void expect_error(const error& e, const want_error& w,
                         source_loc loc = source_loc::current()) {
    ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()), describe(e));
    EXPECT_EQ(e.code, w.code);
    if (w.offset != any) {
        EXPECT_EQ(e.offset, w.offset);
    }
    if (w.line != any) {
        EXPECT_EQ(e.line, w.line);
    }
    if (w.column != any) {
        EXPECT_EQ(e.column, w.column);
    }
    if (w.message != nullptr) {
        EXPECT_EQ(e.message, w.message);
    }
    if (w.path != nullptr) {
        EXPECT_EQ(e.path, w.path);
    }
    if (w.message_has != nullptr) {
        EXPECT_NE(e.message.find(w.message_has), std::string::npos) << e.message;
    }
}

/// Decodes `in` as `f`, which must fail as `w` says.
inline void expect_decode_error(format_id f, std::string_view in, const want_error& w,
                                const decode_options& opt = {},
                                source_loc loc = source_loc::current()) {
    ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                 "input: " + std::string(in.substr(0, 200)));
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
    int row = 0;
    for (const auto& c : rows) {
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     "row " + std::to_string(row++));
        expect_decode_error(f, c.input, c.want, opt, loc);
    }
}

/// One row of a table of inputs that must fail to decode at a byte offset.
struct bad_at {
    std::string input;
    errc code;
    std::uint64_t offset;
    const char* message_has;  ///< a part of the message
};

/// Checks every row of `rows`: the error's code, byte offset and a part of its message, and
/// its line when `line` is given (binary formats report line 0).
inline void expect_errors_at(format_id f, std::span<const bad_at> rows, std::uint32_t line = any,
                             source_loc loc = source_loc::current()) {
    for (const auto& c : rows) {
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     "input (hex): " + to_hex(c.input.substr(0, 64)));
        expect_error(decode_error(f, c.input),
                     {.code = c.code, .offset = c.offset, .line = line,
                      .message_has = c.message_has},
                     loc);
    }
}

/// Checks that every row's input (JSON text) fails to encode as `f` as its row says.
inline void expect_encode_errors(format_id f, std::span<const bad_input> rows,
                                 const encode_options& opt = {},
                                 source_loc loc = source_loc::current()) {
    for (const auto& c : rows) {
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     "json: " + std::string(c.input.substr(0, 200)));
        expect_error(encode_json_error(f, c.input, opt), c.want, loc);
    }
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

/// One row of a table of texts and what they decode to (debug text).
struct text_case {
    std::string input;
    std::string want;
};

/// Checks that every row's input decodes as `f` to its debug text.
inline void expect_decodes(format_id f, std::span<const text_case> rows,
                           const decode_options& opt = {},
                           source_loc loc = source_loc::current()) {
    for (const auto& c : rows) {
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     "input: " + std::string(c.input.substr(0, 200)));
        EXPECT_EQ(decoded_as(f, c.input, opt), c.want);
    }
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
    for (const auto& c : rows) {
        if (c.want == nullptr) {
            continue;
        }
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     std::string("input (hex): ") + c.hex);
        EXPECT_EQ(decoded_as(f, hex(c.hex), opt), c.want);
    }
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
                              std::uint32_t line = any,
                              source_loc loc = source_loc::current()) {
    for (const auto& c : rows) {
        error e = decode_error(f, hex(c.hex));
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     std::string("input (hex): ") + c.hex + ": " + describe(e));
        EXPECT_EQ(e.code, c.code);
        EXPECT_EQ(e.offset, c.offset);
        EXPECT_TRUE(e.has_offset);
        EXPECT_EQ(e.format, f);
        if (line != any) {
            EXPECT_EQ(e.line, line);
        }
    }
}

/// Checks that every row's input (JSON text) encodes as `f` to its bytes.
inline void expect_encodes(format_id f, std::span<const text_case> rows,
                           const encode_options& opt = {},
                           source_loc loc = source_loc::current()) {
    for (const auto& c : rows) {
        ::testing::ScopedTrace trace(loc.file_name(), static_cast<int>(loc.line()),
                                     "json: " + std::string(c.input.substr(0, 200)));
        EXPECT_EQ(encode_json_as(f, c.input, opt), c.want);
    }
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
