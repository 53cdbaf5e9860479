// libFuzzer target for the TCP protocol without I/O: the frame splitter of proto/ on a fuzzed
// byte stream, and the server's frame handler on every complete frame. Responses must be
// well-formed frames carrying the request id.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_service.hpp"
#include "polycodec/proto/frame.hpp"
#include "tcp/handler.hpp"

namespace {

using namespace polycodec;
using namespace polycodec::server;
using polycodec::server::fuzz::the_service;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    std::string out;
    while (!in.empty()) {
        proto::request_header h;
        proto::parse_error err = proto::parse_error::none;
        std::size_t n = proto::next_request_frame(in, h, err, 1 << 20);
        if (err != proto::parse_error::none || n == 0) {
            break;  // a bad frame closes the connection; a partial one waits for more bytes
        }
        if (n < proto::header_size || n > in.size()) {
            std::abort();
        }
        out.clear();
        tcp::handle_frame(the_service(), h, in.substr(proto::header_size, n - proto::header_size),
                          out);
        proto::response_header rh;
        if (out.size() < proto::header_size ||
            proto::parse_response_header(reinterpret_cast<const unsigned char*>(out.data()), rh) !=
                proto::parse_error::none ||
            rh.request_id != h.request_id ||
            rh.payload_length != out.size() - proto::header_size) {
            std::abort();
        }
        in.remove_prefix(n);
    }
    return 0;
}
