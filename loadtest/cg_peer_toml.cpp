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
using polycodec::loadtest::cg_peer_input;
using polycodec::loadtest::read_cg_peer_input;

int main(int argc, char** argv) {
    cg_peer_input in;
    if (int status = read_cg_peer_input(argc, argv, "polycodec-cgpeer-toml decode FILE.json N",
                                        true, format_id::toml, true, in);
        status != 0) {
        return status;
    }
    const std::string& bytes = in.bytes;
    std::size_t total = 0;
    for (long i = 0; i < in.n; ++i) {
        toml::table t = toml::parse(bytes);
        total += t.size();
    }
    std::printf("%zu\n", total);
    return 0;
}
