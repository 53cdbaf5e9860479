// Differential fuzz target: the same input to our YAML decoder and to libfyaml
// (tests/support/yaml_oracle.hpp). Where both accept it, the values must agree; a
// disagreement aborts with both readings on stderr. Inputs only one side accepts are not
// reported (libfyaml and we set different limits, and the grammar's corners are checked by
// the yaml-test-suite tests); a disagreement that is libfyaml's bug is documented in
// docs/formats/yaml.md with its input.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/yaml_oracle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) {
        return 0;  // the oracle's regexes and tree are slow on big inputs; size is not the point
    }
    std::string text(reinterpret_cast<const char*>(data), size);
    polycodec::decode_options opt;
    opt.multi = true;
    polycodec::document d;
    auto r = polycodec::decode(polycodec::format_id::yaml, text, d, opt);
    if (!r) {
        return 0;
    }
    polycodec::test::yaml_oracle::fy_stream fy(text);
    if (!fy.ok) {
        return 0;
    }
    if (d.root().size() != fy.docs.size()) {
        std::fprintf(stderr, "document counts differ: ours %zu, libfyaml %zu\n", d.root().size(),
                     fy.docs.size());
        std::abort();
    }
    std::size_t i = 0;
    for (polycodec::value doc : d.root().items()) {
        polycodec::test::yaml_oracle::oracle o;
        o.tolerate_split_pairs = true;  // libfyaml's documented bug (docs/formats/yaml.md)
        if (!o.match(doc, fy_document_root(fy.docs[i]), "doc" + std::to_string(i))) {
            std::fprintf(stderr, "value disagreement: %s\nours: %s\n", o.why.c_str(),
                         polycodec::to_debug_string(d.root()).c_str());
            std::abort();
        }
        ++i;
    }
    return 0;
}
