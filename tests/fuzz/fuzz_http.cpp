// libFuzzer target for the HTTP path in-process: routing, negotiation (Content-Type, Accept,
// query) and transcoding on fuzzed request fields and bodies, without sockets. Every answer
// must be a well-formed status with a body type; nothing may crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz_service.hpp"
#include "http/handler.hpp"

namespace {

using namespace polycodec::server;
using polycodec::server::fuzz::the_service;

// Splits the input at 0x00 bytes into request fields; the last field is the body.
std::string_view next_field(std::string_view& in) {
    auto nul = in.find('\0');
    std::string_view f = in.substr(0, nul);
    in = nul == std::string_view::npos ? std::string_view{} : in.substr(nul + 1);
    return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    http::request req;
    static const std::string_view methods[] = {"POST", "GET", "PUT", "HEAD"};
    std::string_view sel = next_field(in);
    req.method = methods[sel.empty() ? 0 : static_cast<unsigned char>(sel[0]) % 4];
    req.target = next_field(in);
    req.content_type = next_field(in);
    req.has_content_type = !req.content_type.empty();
    req.accept = next_field(in);
    req.request_id = next_field(in);
    req.body = in;
    http::response res;
    http::handle(the_service(), req, res);
    if (res.status < 100 || res.status > 599 || (!res.body.empty() && res.content_type.empty())) {
        std::abort();
    }
    return 0;
}
