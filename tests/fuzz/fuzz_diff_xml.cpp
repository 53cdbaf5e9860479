// Differential libFuzzer target: the XML decoder's one-pass fast path against the expat
// reader it hands off to (codec/src/formats/xml.cpp). Aborts when the fast path accepts what
// expat refuses, when their documents differ, or when decode (fast path, then expat) answers
// otherwise than expat alone (tests/support/xml_paths.hpp). Each input runs under every option
// set (the default mapping, ordered=true, lossy=allow, force_list, a small depth limit).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "support/xml_paths.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace polycodec;
    static const std::vector<decode_options> opts = test::xml_paths_options();
    std::string_view in(reinterpret_cast<const char*>(data), size);
    for (std::size_t i = 0; i < opts.size(); ++i) {
        std::string why = test::xml_paths_disagree(in, opts[i]);
        if (!why.empty()) {
            std::fprintf(stderr, "fuzz_diff_xml: option set %zu: %s\n", i, why.c_str());
            std::abort();
        }
    }
    return 0;
}
