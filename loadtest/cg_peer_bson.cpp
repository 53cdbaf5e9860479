// polycodec-cgpeer-bson: a fixed number of libbson iteration walks or bson_append_* builds of
// FILE.json wrapped as {"records": [...]}, the same work `polycodec-loadtest peers` times for
// libbson (the same walk and build as peers.cpp), for instruction counts under callgrind next
// to polycodec-cgdriver (docs/BENCHMARKS.md). Instructions per operation =
// (Ir at N=21 - Ir at N=1) / 20.
//   polycodec-cgpeer-bson decode|encode FILE.json N
#include <bson/bson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "dataset.hpp"
#include "peer_libbson.hpp"
#include "polycodec/polycodec.hpp"

using namespace polycodec;
using polycodec::loadtest::cg_peer_input;
using polycodec::loadtest::read_cg_peer_input;

using polycodec::loadtest::bson_build;
using polycodec::loadtest::bson_walk;
using polycodec::loadtest::keep;
using polycodec::loadtest::sink;

int main(int argc, char** argv) {
    cg_peer_input in;
    if (int status =
            read_cg_peer_input(argc, argv, "polycodec-cgpeer-bson encode|decode FILE.json N", false,
                               format_id::bson, true, in);
        status != 0) {
        return status;
    }
    const std::string& bytes = in.bytes;
    for (long i = 0; i < in.n; ++i) {
        if (in.op == "encode") {
            bson_t b = BSON_INITIALIZER;
            bson_build(&b, in.wrapped.root());
            keep(b.len);
            bson_destroy(&b);
        } else {
            bson_t b;
            if (bson_init_static(&b, reinterpret_cast<const uint8_t*>(bytes.data()),
                                 bytes.size())) {
                bson_walk(&b);
            }
        }
    }
    std::printf("%zu\n", sink);
    return 0;
}
