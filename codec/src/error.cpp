#include "polycodec/error.hpp"

#include <string>
#include <string_view>

namespace polycodec {

std::string_view to_string(errc code) noexcept {
    switch (code) {
        case errc::ok: return "ok";
        case errc::unexpected_eof: return "unexpected_eof";
        case errc::unexpected_char: return "unexpected_char";
        case errc::invalid_number: return "invalid_number";
        case errc::invalid_string: return "invalid_string";
        case errc::invalid_utf8: return "invalid_utf8";
        case errc::depth_exceeded: return "depth_exceeded";
        case errc::size_exceeded: return "size_exceeded";
        case errc::duplicate_key: return "duplicate_key";
        case errc::trailing_content: return "trailing_content";
        case errc::malformed: return "malformed";
        case errc::unrepresentable: return "unrepresentable";
        case errc::schema_required: return "schema_required";
        case errc::forbidden: return "forbidden";
        case errc::unsupported_format: return "unsupported_format";
        case errc::not_implemented: return "not_implemented";
        case errc::invalid_option: return "invalid_option";
    }
    return "unknown";
}

error make_error(errc code, std::uint64_t offset, std::string message) {
    error e;
    e.code = code;
    e.has_offset = true;
    e.offset = offset;
    e.message = std::move(message);
    return e;
}

error make_error(errc code, std::string message) {
    error e;
    e.code = code;
    e.message = std::move(message);
    return e;
}

namespace {

// Keys and values quoted in a path or message may hold control characters (a NUL cut the
// CLI's line short; a line break would forge a log line): they are written as \u00XX.
void append_printable(std::string& s, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            s += "\\u00";
            s += hex[u >> 4];
            s += hex[u & 15];
        } else {
            s += c;
        }
    }
}

}  // namespace

std::string describe(const error& e) {
    std::string s;
    if (e.format != format_id{}) {
        s += to_string(e.format);
        s += ": ";
    }
    if (e.line != 0) {
        s += "line " + std::to_string(e.line) + ", column " + std::to_string(e.column) +
             " (byte " + std::to_string(e.offset) + ")";
    } else if (e.has_offset) {
        s += "byte " + std::to_string(e.offset);
    }
    if (e.has_path) {
        if (e.line != 0 || e.has_offset) {
            s += ", ";
        }
        s += "at ";
        if (e.path.empty()) {
            s += "the root";
        } else {
            append_printable(s, e.path);
        }
    }
    if (e.line != 0 || e.has_offset || e.has_path) {
        s += ": ";
    }
    append_printable(s, e.message);
    return s;
}

}  // namespace polycodec
