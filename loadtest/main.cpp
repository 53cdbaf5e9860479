// polycodec-loadtest: bench (in-process codec table); http, tcp and peers arrive with the
// load-test issue.
#include <cstdio>
#include <string_view>

#include "bench.hpp"

namespace {
const char* usage =
    "usage:\n"
    "  polycodec-loadtest bench [--data FILE.json]... [--ms 2000] [--stats] [--pin CPU]\n"
    "                           [--formats all|json,cbor,...]\n";
}

int main(int argc, char** argv) {
    std::string_view cmd = argc > 1 ? argv[1] : "";
    if (cmd == "bench") {
        return polycodec::loadtest::run_bench(argc - 2, argv + 2);
    }
    if (cmd == "--help" || cmd == "help") {
        std::fputs(usage, stdout);
        return 0;
    }
    std::fputs(usage, stderr);
    return 2;
}
