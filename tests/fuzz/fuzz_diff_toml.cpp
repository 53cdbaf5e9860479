// Differential libFuzzer target: the same input to our TOML decoder and to toml++ (the
// oracle, tests/oracle/tomlpp_oracle.hpp). Both must refuse it, or both accept it with equal
// documents; any other outcome aborts, except the documented differences below
// (docs/formats/toml.md, "Oracle").
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "oracle/tomlpp_oracle.hpp"
#include "polycodec/polycodec.hpp"

namespace {

[[noreturn]] void disagree(const char* what, const std::string& detail) {
    std::fprintf(stderr, "fuzz_diff_toml: %s\n%s\n", what, detail.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace polycodec;
    std::string_view in(reinterpret_cast<const char*>(data), size);
    thread_local document ours;
    thread_local document oracle;
    auto r = decode(format_id::toml, in, ours);
    std::string why;
    bool ok = test::parse_with_tomlpp(in, oracle, why);
    if (!r) {
        // Our nesting limit (250 levels, as the encoder's) is below toml++'s (256).
        if (r.error().code == errc::depth_exceeded) {
            return 0;
        }
        if (ok) {
            disagree("we refuse, toml++ accepts",
                     describe(r.error()) + "\ntoml++: " + to_debug_string(oracle.root()));
        }
        return 0;
    }
    if (!ok) {
        disagree("we accept, toml++ refuses", why + "\nours: " + to_debug_string(ours.root()));
    }
    document cut;
    builder cb(cut);
    test::cut_fractions(ours.root(), cb);
    if (!equal(cut, oracle)) {
        disagree("different values", "ours:   " + to_debug_string(cut.root()) +
                                         "\ntoml++: " + to_debug_string(oracle.root()));
    }
    return 0;
}
