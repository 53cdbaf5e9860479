// NDJSON / JSON Lines: one JSON value per line, decoded to an array. Inputs up to 16 MiB go
// first through simdjson's DOM parser in streaming mode (json_read_lines, json.cpp), each line's
// tape copied into the Document; what that refuses, and larger inputs, are read line by line by
// the JSON reader of json.cpp (detail/json_text.hpp) on the whole input, so error offsets, lines
// and columns are those of the whole input. Lines whose only content is white space (space, tab,
// CR) are skipped. The encoder writes each element of a root array as compact JSON followed by
// "\n". docs/formats/ndjson.md has the rules.
#include <string>

#include "detail/lossy.hpp"
#include "detail/json_text.hpp"
#include "detail/try.hpp"
#include "formats.hpp"

namespace polycodec::detail {
namespace {

bool blank(std::string_view line) {
    for (char c : line) {
        if (c != ' ' && c != '\t' && c != '\r') {
            return false;
        }
    }
    return true;
}

result<void> decode_ndjson(std::string_view in, builder& b, const decode_options&) {
    if (in.size() >= 3 && in.substr(0, 3) == "\xEF\xBB\xBF") {
        return fail(make_error(errc::unexpected_char, 0,
                               "a byte order mark is not allowed before JSON text"));
    }
    // simdjson's document stream first (json.cpp); what it does not take, the own reader
    // below reads line by line, and words every error.
    if (json_read_lines(in, b)) {
        return {};
    }
    if (!b.begin_array()) {
        return fail(make_error(b.status(), 0, "document larger than its size budget"));
    }
    std::size_t pos = 0;
    // A large input: once a sixteenth is read, reserve the Document for the whole of it at the
    // rate so far (+6%), so that its buffers do not double (old and new copy resident at once).
    const std::size_t checkpoint = in.size() >= (std::size_t{16} << 20) ? in.size() / 16 : 0;
    bool reserved = checkpoint == 0;
    while (pos < in.size()) {
        if (!reserved && pos >= checkpoint) {
            reserved = true;
            const document& d = b.doc();
            const double scale = static_cast<double>(in.size()) / static_cast<double>(pos) * 1.0625;
            const std::size_t budget = b.limits().max_bytes;
            auto tape_words = static_cast<std::size_t>(static_cast<double>(d.tape().size()) * scale);
            auto payload = static_cast<std::size_t>(static_cast<double>(d.bytes().size()) * scale);
            b.reserve(std::min(tape_words, budget / 8 + 16), std::min(payload, budget + 16));
        }
        std::size_t nl = in.find('\n', pos);
        std::size_t end = nl == std::string_view::npos ? in.size() : nl;
        if (!blank(in.substr(pos, end - pos))) {
            // The reader sees the input up to the end of this line only: a value cannot run
            // into the next line, and what follows it on the line must be white space.
            POLYCODEC_TRY(json_read_value(in.substr(0, end), pos, b));
            if (!b.ok()) {
                return fail(make_error(b.status(), end, "document larger than its size budget"));
            }
        }
        pos = end + 1;
    }
    b.end_array();
    return {};
}

result<void> encode_ndjson(const document& doc, output_buffer& out, const encode_options& opt) {
    encode_options line_opt = opt;
    line_opt.pretty = false;  // one value per line, always compact
    value root = doc.root();
    if (root.kind() != kind::array) {
        if (!allow_lossy(opt, root, "root_as_single_line", "root written as a single line")) {
            return fail(unrepresentable(root, "a root that is not an array is not "
                                              "representable in ndjson"));
        }
        POLYCODEC_TRY(json_write_value(root, out, line_opt));
        out.push_back('\n');
        return {};
    }
    if (line_opt.extjson != extjson_mode::canonical) {
        return json_write_lines(root, out, line_opt);  // one pass over the tape
    }
    for (value v : root.items()) {
        POLYCODEC_TRY(json_write_value(v, out, line_opt));
        out.push_back('\n');
    }
    return {};
}

}  // namespace

const codec_functions ndjson_codec{decode_ndjson, encode_ndjson};

}  // namespace polycodec::detail
