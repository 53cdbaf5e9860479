#include "tcp/handler.hpp"

#include "http/problem.hpp"
#include "polycodec/media_type.hpp"
#include "transcode.hpp"

namespace polycodec::server::tcp {
namespace {

void append_frame(proto::status code, std::uint32_t id, std::uint8_t fmt, std::string_view payload,
                  std::string& out) {
    proto::response_header h;
    h.code = code;
    h.request_id = id;
    h.output_format = fmt;
    h.payload_length = static_cast<std::uint32_t>(payload.size());
    std::size_t at = out.size();
    out.resize(at + proto::header_size);
    proto::encode_response_header(h, reinterpret_cast<unsigned char*>(out.data() + at));
    out.append(payload);
}

}  // namespace

void error_frame(proto::status code, std::uint32_t request_id, std::string_view message,
                 std::string& out) {
    append_frame(code, request_id, 0, message, out);
}

frame_result handle_frame(service& svc, const proto::request_header& h, std::string_view payload,
                          std::string& out) {
    frame_result fr;
    auto reply_error = [&](proto::status code, std::string_view msg) {
        fr.code = code;
        fr.bytes_out = msg.size();
        error_frame(code, h.request_id, msg, out);
        return fr;
    };
    const format_info* from = find_format_by_number(h.input_format);
    const format_info* to = find_format_by_number(h.output_format);
    if (from == nullptr) {
        return reply_error(proto::status::unsupported_format,
                           "unknown input format " + std::to_string(h.input_format));
    }
    fr.from = h.input_format;
    if (to == nullptr) {
        return reply_error(proto::status::unsupported_format,
                           "unknown output format " + std::to_string(h.output_format));
    }
    fr.to = h.output_format;
    if (!is_implemented(from->id)) {
        return reply_error(proto::status::unsupported_format,
                           std::string(from->name) + " is not implemented yet");
    }
    if (!is_implemented(to->id)) {
        return reply_error(proto::status::unsupported_format,
                           std::string(to->name) + " is not implemented yet");
    }
    std::string_view options = payload.substr(0, h.options_length);
    std::string_view input = payload.substr(h.options_length);
    transcode_options opt;
    opt.encode.pretty = (h.flags & proto::flag_pretty) != 0;
    opt.encode.lossy = (h.flags & proto::flag_lossy) != 0;
    opt.encode.canonical = opt.decode.canonical = (h.flags & proto::flag_canonical) != 0;
    if (auto r = apply_query(options, opt); !r) {
        return reply_error(r.error().code == errc::unsupported_format
                               ? proto::status::unsupported_format
                               : proto::status::malformed,
                           r.error().message);
    }
    // The header's format numbers are authoritative.
    opt.from = from;
    opt.to = to;
    if (auto r = prepare_options(svc, opt, input.size()); !r) {
        return reply_error(proto::status::malformed, r.error().message);
    }
    worker_state& w = this_worker();
    outcome o = run_transcode(svc, w, input, opt, false);
    fr.decode_ms = o.decode_s * 1000;
    fr.encode_ms = o.encode_s * 1000;
    if (!o.ok) {
        fr.code = http::tcp_status_of(o);
        std::string msg = describe(o.err);
        fr.bytes_out = msg.size();
        error_frame(fr.code, h.request_id, msg, out);
        return fr;
    }
    fr.bytes_out = w.out.size();
    append_frame(proto::status::ok, h.request_id, h.output_format, w.out.view(), out);
    return fr;
}

}  // namespace polycodec::server::tcp
