// libFuzzer target for one format's decoder (POLYCODEC_FUZZ_FORMAT is its id), with the
// round-trip property: whatever decodes, re-encodes in the same format and decodes again to
// the same Document.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "polycodec/polycodec.hpp"

namespace {

constexpr auto fuzzed = static_cast<polycodec::format_id>(POLYCODEC_FUZZ_FORMAT);

[[noreturn]] void property_failed() { std::abort(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace polycodec;
    static document doc;
    static document again;
    static output_buffer out;
    std::string_view in(reinterpret_cast<const char*>(data), size);
    decode_options opt;
    opt.limits.max_bytes = std::size_t{64} << 20;
    if (!decode(fuzzed, in, doc, opt)) {
        return 0;
    }
    out.clear();
    encode_options eo;
    auto w = encode(fuzzed, doc, out, eo);
    if (!w) {
        // A decoded value must be representable in its own format.
        if (w.error().code == errc::unrepresentable) {
            property_failed();
        }
        return 0;
    }
    auto r = decode(fuzzed, out.view(), again, opt);
    if (!r || !equal(doc, again)) {
        property_failed();
    }
    return 0;
}
