#pragma once
// The backslash escapes of the text formats' quoted strings, read once: the one-letter escapes
// by a per-format table (json, json5, hjson, dotenv; the same table the other way for the
// writers: edn, dotenv) and \uXXXX with its UTF-16 surrogate pair (json, json5, hjson). The
// rest of each format's escapes (json5's \x and line continuations, dotenv's kept
// backslashes) and the error wording around them stay with the format. Also the UTF-8 check
// of a quoted string's bytes, with its error (json, edn).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "detail/text.hpp"
#include "detail/utf8.hpp"
#include "polycodec/error.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// The one-letter escapes of a format, both ways: the byte each stands for, by the letter
/// after the backslash (operator[]; 0 for a letter that is not one of them), and the letter
/// that escapes a byte (letter_of; 0 for a byte written as it is or otherwise). Built at
/// compile time from the letters and, at the same positions, their bytes:
/// escape_letters("nrt", "\n\r\t").
struct escape_letters {
    unsigned char to[256] = {};
    unsigned char from[256] = {};
    constexpr escape_letters(std::string_view letters, std::string_view bytes) {
        for (std::size_t k = 0; k < letters.size(); ++k) {
            to[static_cast<unsigned char>(letters[k])] = static_cast<unsigned char>(bytes[k]);
            from[static_cast<unsigned char>(bytes[k])] = static_cast<unsigned char>(letters[k]);
        }
    }
    constexpr char operator[](char letter) const noexcept {
        return static_cast<char>(to[static_cast<unsigned char>(letter)]);
    }
    constexpr char letter_of(char byte) const noexcept {
        return static_cast<char>(from[static_cast<unsigned char>(byte)]);
    }
};

/// invalid_utf8 ("invalid UTF-8 in string") at the first byte of `s` that is not valid UTF-8,
/// `s` being bytes of a quoted string that start at offset `at` of the input; ok if none.
[[gnu::always_inline]] inline result<void> string_utf8(std::string_view s, std::size_t at) {
    const std::size_t valid = utf8_valid_prefix(s);
    if (valid != s.size()) [[unlikely]] {
        return fail(make_error(errc::invalid_utf8, at + valid, "invalid UTF-8 in string"));
    }
    return {};
}

/// Reads the \u escape whose four hex digits start at `p` in `in` (after "\u"): a high
/// surrogate takes the "\uXXXX" low one right after it. Sets `cp`, moves `p` past what it
/// read and returns null; or returns the message of the error ("expected 4 hex digits after
/// \u", "unpaired UTF-16 surrogate in \u escape"), `p` unchanged.
inline const char* read_u_escape(std::string_view in, std::size_t& p, std::uint32_t& cp) noexcept {
    const long u = text::hex_n(in, p, 4);
    if (u < 0) {
        return "expected 4 hex digits after \\u";
    }
    std::size_t q = p + 4;
    cp = static_cast<std::uint32_t>(u);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        const long lo =
            q + 1 < in.size() && in[q] == '\\' && in[q + 1] == 'u' ? text::hex_n(in, q + 2, 4) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF) {
            return "unpaired UTF-16 surrogate in \\u escape";
        }
        q += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<std::uint32_t>(lo) - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return "unpaired UTF-16 surrogate in \\u escape";
    }
    p = q;
    return nullptr;
}

}  // namespace polycodec::detail
