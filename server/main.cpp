// The polycodec binary: `polycodec convert`, `polycodec formats`, `polycodec openapi`,
// `polycodec serve`.
#include <cstdio>
#include <string_view>

#include "cli.hpp"

int main(int argc, char** argv) {
    std::string_view cmd = argc > 1 ? std::string_view(argv[1]) : std::string_view();
    if (cmd == "convert") {
        return polycodec::cli::run_convert(argc - 2, argv + 2);
    }
    if (cmd == "formats") {
        return polycodec::cli::run_formats(argc - 2, argv + 2);
    }
    if (cmd == "openapi") {
        return polycodec::cli::run_openapi(argc - 2, argv + 2);
    }
    if (cmd == "serve") {
        return polycodec::cli::run_serve(argc - 2, argv + 2);
    }
    if (cmd == "--version" || cmd == "version") {
        return polycodec::cli::run_version();
    }
    std::fputs(polycodec::cli::usage(), cmd == "--help" || cmd == "help" ? stdout : stderr);
    return cmd == "--help" || cmd == "help" ? 0 : 2;
}
