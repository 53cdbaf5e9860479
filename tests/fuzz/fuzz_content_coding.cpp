// libFuzzer target of the HTTP content codings (server/http/content_coding.hpp, DESIGN
// section 16): fuzzed compressed bodies through content_decoder in fuzzed pieces and output
// windows (no crash, no over-read, decoded size bounded by the caller's limit), and the
// round trip compress(c, data) -> content_decoder == data for every coding.
//
// Input: byte 0 picks the coding stack, byte 1 the input piece size, byte 2 the output
// window; the rest is the body.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http/content_coding.hpp"

namespace http = polycodec::server::http;
using http::coding;

namespace {

constexpr std::size_t decoded_limit = 4u << 20;  // as a caller's --max-body

// Decodes `body` in pieces of `piece` bytes into windows of `window` bytes; returns false on a
// decoding error (a clean refusal), the decoded bytes in `out` (at most decoded_limit + window).
bool decode_all(const std::vector<coding>& stack, std::string_view body, std::size_t piece,
                std::size_t window, std::string& out) {
    http::content_decoder d(stack);
    std::vector<char> buf(window);
    while (true) {
        std::string_view in = body.substr(0, piece);
        const std::size_t before = in.size();
        body.remove_prefix(before);
        while (true) {
            auto n = d.decode(in, buf.data(), buf.size());
            if (!n) {
                return false;
            }
            out.append(buf.data(), *n);
            if (out.size() > decoded_limit) {
                return true;  // the caller's 413
            }
            if (*n == 0 && in.empty()) {
                break;
            }
        }
        if (body.empty()) {
            break;
        }
    }
    return static_cast<bool>(d.finish());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) {
        return 0;
    }
    static const std::vector<coding> stacks[] = {
        {coding::gzip}, {coding::deflate}, {coding::br}, {coding::zstd},
        {coding::gzip, coding::br}, {coding::zstd, coding::gzip},
    };
    const auto& stack = stacks[data[0] % std::size(stacks)];
    const std::size_t piece = 1 + data[1] % 64 * 97;
    const std::size_t window = 1 + data[2] % 32 * 131;
    std::string_view body(reinterpret_cast<const char*>(data) + 3, size - 3);

    std::string out;
    (void)decode_all(stack, body, piece, window, out);

    // The round trip of one coding: what we compress decodes back to the same bytes.
    const coding one = stack.front();
    std::string packed = http::compress(one, body);
    std::string back;
    if (!decode_all({one}, packed, piece, window, back) || back != body) {
        std::abort();
    }
    return 0;
}
