#include "polycodec/proto/frame.hpp"

#include <iterator>

namespace polycodec::proto {
namespace {

void put16(unsigned char* p, std::uint16_t v) noexcept {
    p[0] = static_cast<unsigned char>(v >> 8);
    p[1] = static_cast<unsigned char>(v);
}

void put32(unsigned char* p, std::uint32_t v) noexcept {
    p[0] = static_cast<unsigned char>(v >> 24);
    p[1] = static_cast<unsigned char>(v >> 16);
    p[2] = static_cast<unsigned char>(v >> 8);
    p[3] = static_cast<unsigned char>(v);
}

std::uint16_t get16(const unsigned char* p) noexcept {
    return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

std::uint32_t get32(const unsigned char* p) noexcept {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
}

// Both headers: magic, version, the flags (request) or status (response) byte, the request
// id, two format bytes, the options length (0 in a response) and the payload length.
void put_header(unsigned char* out, unsigned char flags_or_code, std::uint32_t request_id,
                unsigned char format8, unsigned char format9, std::uint16_t options_length,
                std::uint32_t payload_length) noexcept {
    out[0] = magic0;
    out[1] = magic1;
    out[2] = version;
    out[3] = flags_or_code;
    put32(out + 4, request_id);
    out[8] = format8;
    out[9] = format9;
    put16(out + 10, options_length);
    put32(out + 12, payload_length);
}

// The checks both headers make, in order: magic, version, a payload length over `limit`.
parse_error check_header(const unsigned char* in, std::uint32_t payload_length,
                         std::uint32_t limit) noexcept {
    if (in[0] != static_cast<unsigned char>(magic0) ||
        in[1] != static_cast<unsigned char>(magic1)) {
        return parse_error::bad_magic;
    }
    if (in[2] != version) {
        return parse_error::bad_version;
    }
    if (payload_length > limit || payload_length > max_payload) {
        return parse_error::too_long;
    }
    return parse_error::none;
}

// The names of `status` and `parse_error`, in enumerator order.
constexpr std::string_view status_names[] = {
    "ok", "malformed", "unsupported_format", "unrepresentable", "too_large", "busy", "bad_frame"};
static_assert(std::size(status_names) == static_cast<std::size_t>(status::bad_frame) + 1);
constexpr std::string_view parse_error_names[] = {"none", "bad magic", "unsupported version",
                                                  "options length exceeds payload length",
                                                  "payload length over the limit"};
static_assert(std::size(parse_error_names) == static_cast<std::size_t>(parse_error::too_long) + 1);

// The entry of `names` that `e` indexes, "unknown" for a value past its end.
template <class E, std::size_t N>
std::string_view name_or_unknown(const std::string_view (&names)[N], E e) noexcept {
    auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : "unknown";
}

}  // namespace

std::string_view to_string(status s) noexcept { return name_or_unknown(status_names, s); }

std::string_view to_string(parse_error e) noexcept { return name_or_unknown(parse_error_names, e); }

void encode_request_header(const request_header& h, unsigned char* out) noexcept {
    put_header(out, h.flags, h.request_id, h.input_format, h.output_format, h.options_length,
               h.payload_length);
}

void encode_response_header(const response_header& h, unsigned char* out) noexcept {
    put_header(out, static_cast<unsigned char>(h.code), h.request_id, h.output_format, 0, 0,
               h.payload_length);
}

parse_error parse_request_header(const unsigned char* in, request_header& h,
                                 std::uint32_t limit) noexcept {
    h.flags = in[3];
    h.request_id = get32(in + 4);
    h.input_format = in[8];
    h.output_format = in[9];
    h.options_length = get16(in + 10);
    h.payload_length = get32(in + 12);
    if (parse_error e = check_header(in, h.payload_length, limit); e != parse_error::none) {
        return e;
    }
    if (h.options_length > h.payload_length) {
        return parse_error::bad_lengths;
    }
    return parse_error::none;
}

parse_error parse_response_header(const unsigned char* in, response_header& h) noexcept {
    h.code = static_cast<status>(in[3]);
    h.request_id = get32(in + 4);
    h.output_format = in[8];
    h.payload_length = get32(in + 12);
    return check_header(in, h.payload_length, max_payload);
}

std::string encode_request(const request_header& h, std::string_view options,
                           std::string_view document) {
    request_header hh = h;
    hh.options_length = static_cast<std::uint16_t>(options.size());
    hh.payload_length = static_cast<std::uint32_t>(options.size() + document.size());
    std::string out(header_size, '\0');
    encode_request_header(hh, reinterpret_cast<unsigned char*>(out.data()));
    out.append(options);
    out.append(document);
    return out;
}

std::string encode_response(status code, std::uint32_t request_id, std::uint8_t output_format,
                            std::string_view payload) {
    response_header h;
    h.code = code;
    h.request_id = request_id;
    h.output_format = output_format;
    h.payload_length = static_cast<std::uint32_t>(payload.size());
    std::string out(header_size, '\0');
    encode_response_header(h, reinterpret_cast<unsigned char*>(out.data()));
    out.append(payload);
    return out;
}

std::size_t next_request_frame(std::string_view in, request_header& h, parse_error& err,
                               std::uint32_t limit) noexcept {
    err = parse_error::none;
    if (in.size() < header_size) {
        return 0;
    }
    err = parse_request_header(reinterpret_cast<const unsigned char*>(in.data()), h, limit);
    if (err != parse_error::none) {
        return 0;
    }
    std::size_t total = header_size + std::size_t{h.payload_length};
    return in.size() >= total ? total : 0;
}

}  // namespace polycodec::proto
