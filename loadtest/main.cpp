// polycodec-loadtest: bench (in-process codec table), http and tcp (load against a running
// server), peers (the codec next to the specialised C++ libraries).
#include <cstdio>
#include <string_view>

#include "bench.hpp"
#include "load.hpp"
#include "peers.hpp"

namespace {
const char* usage =
    "usage:\n"
    "  polycodec-loadtest bench [--data FILE.json]... [--ms 2000] [--stats] [--pin CPU]\n"
    "                           [--formats all|json,cbor,...]\n"
    "  polycodec-loadtest http|tcp --target HOST:PORT [--concurrency 64] [--duration 10s]\n"
    "                           [--requests N] [--pipeline 8] [--formats all|json,cbor,...]\n"
    "                           [--data FILE.json] [--schema NAME [--schema-file F]]\n"
    "                           [--allow-remote]\n"
    "  polycodec-loadtest peers [--data FILE.json]... [--ms 1000]\n";
}

int main(int argc, char** argv) {
    std::string_view cmd = argc > 1 ? argv[1] : "";
    if (cmd == "bench") {
        return polycodec::loadtest::run_bench(argc - 2, argv + 2);
    }
    if (cmd == "http" || cmd == "tcp") {
        return polycodec::loadtest::run_load(cmd == "http", argc - 2, argv + 2);
    }
    if (cmd == "peers") {
#ifdef POLYCODEC_HAVE_PEERS
        return polycodec::loadtest::run_peers(argc - 2, argv + 2);
#else
        std::fputs("polycodec-loadtest: peers was not built (its libraries were missing at "
                   "configure time; scripts/deps.sh installs them)\n",
                   stderr);
        return 2;
#endif
    }
    if (cmd == "--help" || cmd == "help") {
        std::fputs(usage, stdout);
        return 0;
    }
    std::fputs(usage, stderr);
    return 2;
}
