// consumer FROM TO < input > output: converts standard input with the installed polycodec
// library (the package tests build this file with find_package and with pkg-config).
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include <polycodec/polycodec.hpp>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: consumer FROM TO < input > output\n");
        return 2;
    }
    const polycodec::format_info* from = polycodec::find_format_by_name(argv[1]);
    const polycodec::format_info* to = polycodec::find_format_by_name(argv[2]);
    if (from == nullptr || to == nullptr) {
        std::fprintf(stderr, "consumer: unknown format\n");
        return 2;
    }
    std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    polycodec::document doc;
    polycodec::output_buffer out;
    if (auto r = polycodec::decode(from->id, input, doc); !r) {
        std::fprintf(stderr, "%s\n", polycodec::describe(r.error()).c_str());
        return 2;
    }
    if (auto r = polycodec::encode(to->id, doc, out); !r) {
        std::fprintf(stderr, "%s\n", polycodec::describe(r.error()).c_str());
        return 3;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
