// polycodec-cgpeer-msgpack: a fixed number of msgpack-cxx unpacks or packs of the bytes our
// MessagePack encoder writes for FILE.json, the same work `polycodec-loadtest peers` times for
// msgpack-cxx, for instruction counts under callgrind next to polycodec-cgdriver
// (docs/BENCHMARKS.md). Instructions per operation = (Ir at N=21 - Ir at N=1) / 20.
//   polycodec-cgpeer-msgpack decode|encode FILE.json N
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <msgpack.hpp>
#include <string>

#include "dataset.hpp"
#include "polycodec/polycodec.hpp"

using namespace polycodec;
using polycodec::loadtest::cg_peer_input;
using polycodec::loadtest::read_cg_peer_input;

int main(int argc, char** argv) {
    cg_peer_input in;
    if (int status =
            read_cg_peer_input(argc, argv, "polycodec-cgpeer-msgpack encode|decode FILE.json N",
                               false, format_id::msgpack, false, in);
        status != 0) {
        return status;
    }
    const std::string& bytes = in.bytes;
    auto handle = msgpack::unpack(bytes.data(), bytes.size());
    std::size_t sink = 0;
    for (long i = 0; i < in.n; ++i) {
        if (in.op == "encode") {
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
