#pragma once
// The double-quoted strings of the toml and edn writers: '"', '\\', the C0 controls and DEL
// escaped, by a two-character escape where the format has one, else as \u00XX.

#include <array>
#include <cstddef>
#include <string_view>

#include "polycodec/buffer.hpp"

namespace polycodec::detail {

/// For each byte below 0x80, the letter of its two-character escape ('n' for "\n"), or 0.
struct short_escapes {
    std::array<char, 128> letter{};
};

/// The table in which byte `bytes[i]` is written as '\\' and `letters[i]`.
constexpr short_escapes make_short_escapes(std::string_view bytes, std::string_view letters) {
    short_escapes t;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        t.letter[static_cast<unsigned char>(bytes[i])] = letters[i];
    }
    return t;
}

/// Appends `s` in double quotes with '"', '\\', the bytes below 0x20 and DEL escaped: by `esc`
/// where it has a letter (it must have one for '"' and '\\'), else as \u00XX in `hex` digits.
inline void write_short_escaped(output_buffer& out, std::string_view s, const short_escapes& esc,
                                const char* hex) {
    out.push_back('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f) {
            continue;
        }
        out.append(s.data() + run, i - run);
        run = i + 1;
        if (esc.letter[c] != 0) {
            const char two[2] = {'\\', esc.letter[c]};
            out.append(two, 2);
        } else {
            const char six[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out.append(six, 6);
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

}  // namespace polycodec::detail
