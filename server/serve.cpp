#include <cstdio>

#include "cli.hpp"

namespace polycodec::cli {

// TODO(#5): the HTTP and TCP service.
int run_serve(int argc, char** argv) {
    (void)argc;
    (void)argv;
    std::fputs("polycodec: serve is not implemented yet\n", stderr);
    return exit_usage;
}

}  // namespace polycodec::cli
