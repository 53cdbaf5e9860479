#pragma once
// The XML decoder's two readers on one input (codec/src/formats/xml.cpp): its one-pass fast
// path and the expat reader it hands off to. Shared by FastPathAgreement.Xml* (gtest) and
// fuzz_diff_xml. Needs codec/src on the include path (formats/formats.hpp).
//
// The contract checked: where the fast path accepts, expat accepts with an equal document;
// and xml_codec.decode (fast path, then expat where it hands off) answers exactly as expat
// alone: the same document, or the same error (status, offset, line, column, path, message).
// Expat alone also writes its document through the builder only, where the other two write
// the default mapping straight to the tape (tape_sink) first: the two writers are held to
// agree too, at the limits included.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.hpp"
#include "polycodec/polycodec.hpp"

namespace polycodec::test {

struct xml_paths_tally {
    int inputs = 0;
    int fast = 0;        // decided by the fast path (a document, or a mapping refusal)
    int handed_off = 0;  // left to expat, which accepted
    int errors = 0;      // refused (by expat)
};

struct xml_run {
    bool ok = false;
    error err;
};

inline xml_run xml_decode_with(int which, std::string_view in, document& out,
                               const decode_options& opt, bool* handed_off = nullptr) {
    builder b(out, opt.limits);
    b.reset();
    result<void> r = which == 0 ? detail::xml_codec.decode(in, b, opt)
                     : which == 1
                         ? detail::decode_xml_only(detail::xml_reader_kind::expat, in, b, opt)
                         : detail::decode_xml_only(detail::xml_reader_kind::fast, in, b, opt,
                                                   handed_off);
    if (!r) {
        return {false, r.error()};
    }
    return {true, {}};
}

inline std::string xml_error_text(const error& e) {
    // expat names the open entities of an external entity's context in its hash table's
    // order, which its per-parser random salt changes from run to run: left out.
    std::string msg = e.message;
    if (msg.rfind("external entity &", 0) == 0) {
        msg = "external entity &...;" + msg.substr(std::min(msg.find(';'), msg.size() - 1) + 1);
    }
    return std::to_string(static_cast<int>(e.code)) + " @" + std::to_string(e.offset) + " " +
           std::to_string(e.line) + ":" + std::to_string(e.column) + " path " +
           (e.has_path ? e.path : "-") + " " + msg;
}

/// "" when the readers agree on `in` under `opt`, else what differs.
inline std::string xml_paths_disagree(std::string_view in, const decode_options& opt,
                                      xml_paths_tally* tally = nullptr) {
    thread_local document expat_doc, fast_doc, both_doc;
    xml_run ex = xml_decode_with(1, in, expat_doc, opt);
    bool handed_off = false;
    xml_run fa = xml_decode_with(2, in, fast_doc, opt, &handed_off);
    xml_run both = xml_decode_with(0, in, both_doc, opt);
    if (tally != nullptr) {
        ++tally->inputs;
        tally->fast += handed_off ? 0 : 1;
        tally->handed_off += handed_off && ex.ok ? 1 : 0;
        tally->errors += ex.ok ? 0 : 1;
    }
    if (fa.ok && handed_off) {
        return "the fast path both accepted and handed off";
    }
    if (!fa.ok && !handed_off) {
        // Read in full, then refused by the mapping (a lossy construct, root=, the limits of
        // the builder): expat's reading must end in the same refusal.
        if (ex.ok) {
            return "the fast path refuses what expat accepts: " + xml_error_text(fa.err);
        }
        if (xml_error_text(fa.err) != xml_error_text(ex.err)) {
            return "errors differ: fast path " + xml_error_text(fa.err) + " / expat " +
                   xml_error_text(ex.err);
        }
    }
    if (fa.ok && !ex.ok) {
        return "the fast path accepts what expat refuses: " + xml_error_text(ex.err);
    }
    if (fa.ok && !equal(fast_doc.root(), expat_doc.root())) {
        return "the fast path's document differs from expat's";
    }
    if (both.ok != ex.ok) {
        return both.ok ? "decode accepts what expat refuses"
                       : "decode refuses what expat accepts: " + xml_error_text(both.err);
    }
    if (both.ok && !equal(both_doc.root(), expat_doc.root())) {
        return "decode's document differs from expat's";
    }
    if (!both.ok && xml_error_text(both.err) != xml_error_text(ex.err)) {
        return "errors differ: decode " + xml_error_text(both.err) + " / expat " +
               xml_error_text(ex.err);
    }
    return {};
}

/// The option sets the readers are compared under: the default mapping, ordered=true,
/// lossy=allow, force_list and a small depth limit.
inline std::vector<decode_options> xml_paths_options() {
    std::vector<decode_options> all(7);
    all[1].xml.ordered = true;
    all[2].lossy = true;
    all[3].xml.force_list = {"a", "item"};
    all[4].limits.max_depth = 3;
    all[5].infer = true;  // text typed (textinfer) on the way to the tape
    all[5].lossy = true;
    all[6].limits.max_bytes = 1500;  // the tree's budget and the tape's
    return all;
}

}  // namespace polycodec::test
