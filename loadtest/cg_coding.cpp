// polycodec-cgcoding: a fixed number of decodes of one Content-Encoding body with the server's
// content_decoder (server/http/content_coding.hpp), in the server's loop (geometric output
// windows, as http/server.cpp's decode_available), for instruction counts under
// `valgrind --tool=callgrind` (and wall clock) next to polycodec-cgdriver's transcode counts
// (docs/BENCHMARKS.md). Instructions per decode = (Ir at N=11 - Ir at N=1) / 10.
//   polycodec-cgcoding gzip|deflate|br|zstd FILE N          (decode FILE, compressed)
//   polycodec-cgcoding encode gzip|deflate|br|zstd FILE N   (compress FILE, as answers are)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dataset.hpp"
#include "http/content_coding.hpp"

using namespace polycodec::server::http;

int main(int argc, char** argv) {
    if (argc != 4 && argc != 5) {
        std::fprintf(stderr, "usage: polycodec-cgcoding [encode] gzip|deflate|br|zstd FILE N\n");
        return 2;
    }
    if (argc == 5 && std::string(argv[1]) == "encode") {
        auto c = parse_content_encoding(argv[2]);
        if (!c || c->size() != 1) {
            std::fprintf(stderr, "unknown coding %s\n", argv[2]);
            return 2;
        }
        std::string body = polycodec::loadtest::read_file(argv[3]);
        long n = std::atol(argv[4]);
        std::size_t sink = 0;
        for (long i = 0; i < n; ++i) {
            sink += compress(c->front(), body).size();
        }
        std::printf("%zu\n", n > 0 ? sink / static_cast<std::size_t>(n) : 0);
        return 0;
    }
    auto codings = parse_content_encoding(argv[1]);
    if (!codings || codings->empty()) {
        std::fprintf(stderr, "unknown coding %s\n", argv[1]);
        return 2;
    }
    std::string body = polycodec::loadtest::read_file(argv[2]);
    long n = std::atol(argv[3]);
    std::size_t sink = 0;
    std::string out;  // reused, as the server's I/O thread reuses its decode buffers
    for (long i = 0; i < n; ++i) {
        content_decoder d(*codings);
        out.clear();
        std::string_view in(body);
        for (;;) {
            std::size_t have = out.size();
            std::size_t room = std::max<std::size_t>(have, 64 * 1024);
            out.resize(have + room);
            auto r = d.decode(in, out.data() + have, room);
            if (!r) {
                std::fprintf(stderr, "%s\n", r.error().message.c_str());
                return 1;
            }
            out.resize(have + *r);
            if (*r < room) {
                break;
            }
        }
        if (!d.finish()) {
            std::fprintf(stderr, "truncated\n");
            return 1;
        }
        sink += out.size();
    }
    std::printf("%zu\n", sink);
    return 0;
}
