// polycodec-cgdriver: a fixed number of encodes or decodes of one format, for instruction
// counts under `valgrind --tool=callgrind` (docs/BENCHMARKS.md). Instructions per operation =
// (Ir at N=101 - Ir at N=1) / 100, independent of machine load.
//   polycodec-cgdriver FORMAT encode|decode FILE.json N
//   polycodec-cgdriver rapidjson encode|decode FILE.json N   (RapidJSON's Writer / Parse, as
//                                                           `peers` drives them)
//   polycodec-cgdriver libyaml encode FILE.json N   (libyaml's emitter, as `peers` drives it)
//   polycodec-cgdriver libyaml decode FILE.json N   (libyaml's event loop over our YAML of FILE)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "dataset.hpp"
#include "polycodec/formats/avro.hpp"
#include "polycodec/formats/postcard.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "polycodec/polycodec.hpp"

#ifdef POLYCODEC_CGDRIVER_RAPIDJSON
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#endif

#ifdef POLYCODEC_CGDRIVER_LIBYAML
#include "peer_libyaml.hpp"
#endif

using namespace polycodec;
using polycodec::loadtest::load_bench_data;
using polycodec::loadtest::read_file;

#ifdef POLYCODEC_CGDRIVER_LIBYAML
using polycodec::loadtest::libyaml_emit;  // the same calls as `peers` makes
using polycodec::loadtest::libyaml_events;
#endif

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: polycodec-cgdriver FORMAT encode|decode FILE.json N\n");
        return 2;
    }
#ifdef POLYCODEC_CGDRIVER_RAPIDJSON
    if (std::string(argv[1]) == "rapidjson") {
        std::string json = read_file(argv[3]);
        const long n = std::atol(argv[4]);
        const bool enc = std::string(argv[2]) == "encode";
        rapidjson::Document rd;
        rd.Parse(json.data(), json.size());
        std::size_t sink = 0;
        for (long i = 0; i < n; ++i) {
            if (enc) {
                rapidjson::StringBuffer sb;
                rapidjson::Writer<rapidjson::StringBuffer> w(sb);
                rd.Accept(w);
                sink += sb.GetSize();
            } else {
                rapidjson::Document d;
                d.Parse(json.data(), json.size());
                sink += static_cast<std::size_t>(d.HasParseError());
            }
        }
        std::printf("%zu\n", sink);
        return 0;
    }
#endif
#ifdef POLYCODEC_CGDRIVER_LIBYAML
    if (std::string(argv[1]) == "libyaml" && std::string(argv[2]) == "encode") {
        std::string json = read_file(argv[3]);
        const long n = std::atol(argv[4]);
        document doc;
        if (!decode(format_id::json, json, doc)) {
            std::fprintf(stderr, "cannot decode %s\n", argv[3]);
            return 1;
        }
        std::size_t sink = 0;
        for (long i = 0; i < n; ++i) {
            std::string out;
            libyaml_emit(doc, out);
            sink += out.size();
        }
        std::printf("%zu\n", sink);
        return 0;
    }
    if (std::string(argv[1]) == "libyaml" && std::string(argv[2]) == "decode") {
        // libyaml's bare event loop over our YAML of the fixture, as `peers` drives it.
        std::string json = read_file(argv[3]);
        const long n = std::atol(argv[4]);
        document doc;
        output_buffer yaml;
        if (!decode(format_id::json, json, doc) || !encode(format_id::yaml, doc, yaml)) {
            std::fprintf(stderr, "cannot decode %s\n", argv[3]);
            return 1;
        }
        std::size_t sink = 0;
        for (long i = 0; i < n; ++i) {
            sink += static_cast<std::size_t>(libyaml_events(yaml.view()));
        }
        std::printf("%zu\n", sink);
        return 0;
    }
#endif
    // "plist/binary": plist with binary=true, as bench's plist/binary row.
    std::string name = argv[1];
    encode_options eo;
    if (name == "plist/binary") {
        name = "plist";
        eo.plist_binary = true;
    }
    const format_info* info = find_format_by_name(name);
    if (info == nullptr) {
        std::fprintf(stderr, "unknown format %s\n", argv[1]);
        return 2;
    }
    std::string op = argv[2];
    long n = std::atol(argv[4]);
    document src;
    document wrapped;  // {"records": [...]} for map-root formats, as bench and peers do
    if (!load_bench_data(argv[3], src, wrapped)) {
        return 1;
    }
    const format_id f = info->id;
    // XML as bench times it: {"records": [...]} inside a <bench> root (root=bench both ways).
    const bool xml = f == format_id::xml;
    const document& in = info->caps.map_root_only || xml ? wrapped : src;
    decode_options dopt;
    if (xml) {
        eo.xml.root = dopt.xml.root = "bench";
    }
    // Schema-driven formats: <dir>/schemas/<stem>.avsc or .binpb beside FILE.json, as bench
    // loads fixtures/schemas/bench.avsc and bench.binpb.
    std::string schema_base;
    {
        std::string path = argv[3];
        std::size_t slash = path.find_last_of('/');
        std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
        std::string stem = path.substr(slash == std::string::npos ? 0 : slash + 1);
        schema_base = dir + "/schemas/" + stem.substr(0, stem.find('.'));
    }
    if (f == format_id::avro) {
        auto parsed = avro::parse_schema(read_file(schema_base + ".avsc"));
        if (!parsed) {
            std::fprintf(stderr, "cannot read the schema of %s\n", argv[3]);
            return 1;
        }
        eo.avro_schema = dopt.avro_schema = *parsed;
    }
    if (f == format_id::postcard) {  // <stem>.json, as bench loads fixtures/schemas/bench.json
        bool ok = false;
        std::string text = read_file(schema_base + ".json", ok);
        if (ok) {
            if (auto parsed = postcard::parse_schema(text)) {
                eo.schema = dopt.schema = *parsed;
            }
        }
    }
    if (f == format_id::protobuf || f == format_id::protojson) {
        bool ok = false;
        std::string desc = read_file(schema_base + ".binpb", ok);
        if (ok) {
            if (auto pb = protobuf::parse_descriptor_set(desc)) {
                eo.protobuf_schema = dopt.protobuf_schema = *pb;
            }
        }
    }
    output_buffer out;
    if (!encode(f, in, out, eo)) {
        std::fprintf(stderr, "cannot encode\n");
        return 1;
    }
    std::string bytes(out.view());
    document back;
    // Text-only formats (properties, dotenv, ...) read back with unflatten and infer when the
    // plain read differs, as bench times them.
    for (int mode = 1;
         mode <= 2 && !info->caps.boolean && !(decode(f, bytes, back, dopt) && equal(in, back));
         ++mode) {
        dopt.unflatten = true;
        dopt.infer = mode == 2;
    }
    std::size_t sink = 0;
    for (long i = 0; i < n; ++i) {
        if (op == "encode") {
            out.clear();
            sink += static_cast<bool>(encode(f, in, out, eo)) + out.size();
        } else {
            sink += static_cast<bool>(decode(f, bytes, back, dopt));
        }
    }
    std::printf("%zu\n", sink);
    return 0;
}
