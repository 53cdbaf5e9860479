#include "http/problem.hpp"

#include "logging.hpp"

namespace polycodec::server::http {

int status_of(const outcome& o) noexcept {
    switch (o.failed) {
        case stage::none:
            return 200;
        case stage::options:
            return 400;
        case stage::input_format:
            return 415;
        case stage::output_format:
            return 406;
        case stage::decode:
        case stage::encode:
            break;
    }
    switch (o.err.code) {
        case errc::unrepresentable:
            return 422;
        // postcard without a schema: the input cannot be read (415), or the answer cannot be
        // written in the format asked for (406).
        case errc::schema_required:
            return o.failed == stage::decode ? 415 : 406;
        case errc::unsupported_format:
            return 415;
        // A codec that does not exist yet: the input side is 415, the output side 406.
        case errc::not_implemented:
            return o.failed == stage::decode ? 415 : 406;
        case errc::invalid_option:
            return 400;
        default:
            break;
    }
    // Syntax errors, depth and size limits, pickle's forbidden opcodes: the input is at fault.
    return o.failed == stage::decode ? 400 : 422;
}

proto::status tcp_status_of(const outcome& o) noexcept {
    switch (status_of(o)) {
        case 200:
            return proto::status::ok;
        case 406:
        case 415:
            return proto::status::unsupported_format;
        case 422:
            return proto::status::unrepresentable;
        default:
            return proto::status::malformed;
    }
}

std::string_view reason(int status) noexcept {
    switch (status) {
        case 100:
            return "Continue";
        case 200:
            return "OK";
        case 204:
            return "No Content";
        case 400:
            return "Bad Request";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 406:
            return "Not Acceptable";
        case 408:
            return "Request Timeout";
        case 413:
            return "Content Too Large";
        case 415:
            return "Unsupported Media Type";
        case 422:
            return "Unprocessable Content";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
        default:
            return "Error";
    }
}

std::string problem_body(int status, std::string_view code, std::string_view detail, const error* e,
                         const std::vector<std::string_view>* acceptable) {
    std::string out;
    out.reserve(256 + detail.size());
    out += "{\"type\":";
    append_json_string(out, "urn:polycodec:problem:" + std::string(code));
    out += ",\"title\":";
    append_json_string(out, reason(status));
    out += ",\"status\":";
    out += std::to_string(status);
    out += ",\"detail\":";
    append_json_string(out, detail);
    out += ",\"code\":";
    append_json_string(out, code);
    if (e != nullptr) {
        if (find_format(e->format) != nullptr) {
            out += ",\"format\":";
            append_json_string(out, to_string(e->format));
        }
        if (e->has_offset) {
            out += ",\"offset\":";
            out += std::to_string(e->offset);
        }
        if (e->line != 0) {
            out += ",\"line\":";
            out += std::to_string(e->line);
            out += ",\"column\":";
            out += std::to_string(e->column);
        }
        if (e->has_path) {
            out += ",\"path\":";
            append_json_string(out, e->path);
        }
    }
    if (acceptable != nullptr) {
        out += ",\"acceptable\":[";
        bool first = true;
        for (auto t : *acceptable) {
            if (!first) {
                out += ',';
            }
            first = false;
            append_json_string(out, t);
        }
        out += ']';
    }
    out += "}\n";
    return out;
}

}  // namespace polycodec::server::http
