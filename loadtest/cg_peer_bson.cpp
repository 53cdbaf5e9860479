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
using polycodec::loadtest::read_file;
using polycodec::loadtest::wrap_records;

using polycodec::loadtest::bson_build;
using polycodec::loadtest::bson_walk;
using polycodec::loadtest::keep;
using polycodec::loadtest::sink;

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: polycodec-cgpeer-bson encode|decode FILE.json N\n");
        return 2;
    }
    std::string op = argv[1];
    std::string json = read_file(argv[2]);
    long n = std::atol(argv[3]);
    document src;
    if (!decode(format_id::json, json, src)) {
        std::fprintf(stderr, "cannot decode %s\n", argv[2]);
        return 1;
    }
    document wrapped;  // {"records": [...]} as bench and peers do
    wrap_records(src, wrapped);
    output_buffer out;
    if (!encode(format_id::bson, wrapped, out)) {
        std::fprintf(stderr, "cannot encode %s\n", argv[2]);
        return 1;
    }
    std::string bytes(out.view());
    for (long i = 0; i < n; ++i) {
        if (op == "encode") {
            bson_t b = BSON_INITIALIZER;
            bson_build(&b, wrapped.root());
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
