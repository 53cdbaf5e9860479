// polycodec-cgpeer-msgpack: a fixed number of msgpack-cxx unpacks or packs of the bytes our
// MessagePack encoder writes for FILE.json, the same work `polycodec-loadtest peers` times for
// msgpack-cxx, for instruction counts under callgrind next to polycodec-cgdriver
// (docs/BENCHMARKS.md). Instructions per operation = (Ir at N=21 - Ir at N=1) / 20.
//   polycodec-cgpeer-msgpack decode|encode FILE.json N
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <msgpack.hpp>

#include "dataset.hpp"
#include "polycodec/polycodec.hpp"

using namespace polycodec;
using polycodec::loadtest::read_file;

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: polycodec-cgpeer-msgpack encode|decode FILE.json N\n");
        return 2;
    }
    std::string op = argv[1];
    std::string json = read_file(argv[2]);
    long n = std::atol(argv[3]);
    document src;
    output_buffer out;
    if (!decode(format_id::json, json, src) || !encode(format_id::msgpack, src, out)) {
        std::fprintf(stderr, "cannot convert %s\n", argv[2]);
        return 1;
    }
    std::string bytes(out.view());
    auto handle = msgpack::unpack(bytes.data(), bytes.size());
    std::size_t sink = 0;
    for (long i = 0; i < n; ++i) {
        if (op == "encode") {
            msgpack::sbuffer sb;
            msgpack::pack(sb, handle.get());
            sink += sb.size();
        } else {
            auto h = msgpack::unpack(bytes.data(), bytes.size());
            sink += static_cast<std::size_t>(h.get().type);
        }
    }
    std::printf("%zu\n", sink);
    return 0;
}
