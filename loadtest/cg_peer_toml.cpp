// polycodec-cgpeer-toml: a fixed number of toml::parse calls on our TOML of FILE.json wrapped
// as {"records": [...]}, the same work `polycodec-loadtest peers` times for toml++, for
// instruction counts under callgrind next to polycodec-cgdriver's `toml decode`
// (docs/BENCHMARKS.md). Instructions per operation = (Ir at N=21 - Ir at N=1) / 20.
//   polycodec-cgpeer-toml decode FILE.json N
#include <toml++/toml.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "dataset.hpp"
#include "polycodec/polycodec.hpp"

using namespace polycodec;
using polycodec::loadtest::read_file;
using polycodec::loadtest::wrap_records;

int main(int argc, char** argv) {
    if (argc != 4 || std::string(argv[1]) != "decode") {
        std::fprintf(stderr, "usage: polycodec-cgpeer-toml decode FILE.json N\n");
        return 2;
    }
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
    if (!encode(format_id::toml, wrapped, out)) {
        std::fprintf(stderr, "cannot encode %s as toml\n", argv[2]);
        return 1;
    }
    std::string bytes(out.view());
    std::size_t total = 0;
    for (long i = 0; i < n; ++i) {
        toml::table t = toml::parse(bytes);
        total += t.size();
    }
    std::printf("%zu\n", total);
    return 0;
}
