// `polycodec-loadtest peers`: the codec measured side by side with the specialised C++
// libraries, in one process, on the same data and with the same timing loop (measure.hpp).
// Every peer decodes the bytes our encoder wrote for its format, and encodes from its own
// in-memory representation of the same data (built once, outside the timed loop).
#include "peers.hpp"

#include <bson/bson.h>
#include <cbor.h>
#include <simdjson.h>
#include <yaml-cpp/yaml.h>
#include <yaml.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <charconv>
#include <functional>
#include <memory>
#include <iterator>
#include <msgpack.hpp>
#include <nlohmann/json.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sstream>
#include <string>
#include <expat.h>
#include <toml++/toml.h>
#include <vector>

#ifdef POLYCODEC_PEERS_LIBPROTOBUF
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#endif

#include "dataset.hpp"
#include "measure.hpp"
#include "peer_keep.hpp"
#include "peer_libbson.hpp"
#include "peer_libyaml.hpp"
#include "peer_protojson.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "polycodec/polycodec.hpp"

namespace polycodec::loadtest {
namespace {

struct result_row {
    std::string format, op, library;
    double mbps = 0;
};

std::vector<result_row> rows;
int window_ms = 1000;

void run(const std::string& format, const std::string& op, const std::string& library,
         std::size_t bytes, const std::function<void()>& fn) {
    summary s = measure(fn, window_ms);
    rows.push_back({format, op, library, s.ops_per_s * static_cast<double>(bytes) / 1e6});
    std::fprintf(stderr, "peers: %s %s %s %.1f MB/s\n", format.c_str(), op.c_str(),
                 library.c_str(), rows.back().mbps);
}

// ---- ours ----

void ours(format_id f, const document& in, const std::string& bytes, const encode_options& eo = {},
          const decode_options& dopt = {}) {
    auto name = std::string(to_string(f));
    output_buffer out;
    document back;
    run(name, "encode", "polycodec", bytes.size(), [&] {
        out.clear();
        (void)encode(f, in, out, eo);
    });
    run(name, "decode", "polycodec", bytes.size(), [&] { (void)decode(f, bytes, back, dopt); });
}

// nlohmann's two rows of msgpack, cbor or bson: from_X decoding `bytes`, to_X encoding `j`.
void nlohmann_rows(format_id f, const std::string& bytes, const nlohmann::json& j) {
    using nlohmann::json;
    run(std::string(to_string(f)), "decode", "nlohmann", bytes.size(), [&] {
        keep((f == format_id::msgpack ? json::from_msgpack(bytes)
              : f == format_id::cbor  ? json::from_cbor(bytes)
                                      : json::from_bson(bytes))
                 .size());
    });
    run(std::string(to_string(f)), "encode", "nlohmann", bytes.size(), [&] {
        keep((f == format_id::msgpack ? json::to_msgpack(j)
              : f == format_id::cbor  ? json::to_cbor(j)
                                      : json::to_bson(j))
                 .size());
    });
}

bool encoded(format_id f, const document& in, std::string& out) {
    output_buffer b;
    if (!is_implemented(f) || !encode(f, in, b)) {
        std::fprintf(stderr, "peers: %s is not available, its rows are skipped\n",
                     std::string(to_string(f)).c_str());
        return false;
    }
    out.assign(b.view());
    return true;
}

// One format's section: our rows, then `peers(bytes)` over what we encode `in` to; nothing
// when the format is not available.
template <class Peers>
void section(format_id f, const document& in, Peers peers) {
    if (std::string bytes; encoded(f, in, bytes)) {
        ours(f, in, bytes);
        peers(bytes);
    }
}

void compare_dataset(const std::string& path) {
    std::string json = read_file(path);
    document doc;
    if (!decode(format_id::json, json, doc)) {
        std::fprintf(stderr, "peers: cannot decode %s\n", path.c_str());
        return;
    }
    document wrapped;
    wrap_records(doc, wrapped);
    std::printf("# data: %s (%zu bytes of JSON)\n", path.c_str(), json.size());
    rows.clear();

    // JSON
    {
        std::string bytes;
        encoded(format_id::json, doc, bytes);
        ours(format_id::json, doc, bytes);
        simdjson::dom::parser parser;
        simdjson::padded_string padded(bytes);
        run("json", "decode", "simdjson DOM", bytes.size(), [&] {
            auto r = parser.parse(padded);
            keep(r.error() == simdjson::SUCCESS);
        });
        std::unique_ptr<char[]> minified(new char[bytes.size() + simdjson::SIMDJSON_PADDING]);
        {
            std::size_t len = 0;
            auto err = simdjson::minify(bytes.data(), bytes.size(), minified.get(), len);
            if (err != simdjson::SUCCESS || len != bytes.size()) {
                std::fprintf(stderr, "peers: simdjson::minify failed (%s, %zu bytes)\n",
                             simdjson::error_message(err), len);
            }
        }
        run("json", "encode", "simdjson minify", bytes.size(), [&] {
            std::size_t len = 0;
            auto err = simdjson::minify(bytes.data(), bytes.size(), minified.get(), len);
            keep(len + static_cast<std::size_t>(err));
        });
        run("json", "decode", "RapidJSON", bytes.size(), [&] {
            rapidjson::Document d;
            d.Parse(bytes.data(), bytes.size());
            keep(d.HasParseError());
        });
        rapidjson::Document rd;
        rd.Parse(bytes.data(), bytes.size());
        run("json", "encode", "RapidJSON", bytes.size(), [&] {
            rapidjson::StringBuffer sb;
            rapidjson::Writer<rapidjson::StringBuffer> w(sb);
            rd.Accept(w);
            keep(sb.GetSize());
        });
        run("json", "decode", "nlohmann", bytes.size(), [&] {
            auto j = nlohmann::json::parse(bytes);
            keep(j.size());
        });
        auto nj = nlohmann::json::parse(bytes);
        run("json", "encode", "nlohmann", bytes.size(), [&] { keep(nj.dump().size()); });
    }
    auto nj = nlohmann::json::parse(json);

    // MessagePack
    section(format_id::msgpack, doc, [&](const std::string& bytes) {
        run("msgpack", "decode", "msgpack-cxx", bytes.size(), [&] {
            auto h = msgpack::unpack(bytes.data(), bytes.size());
            keep(h.get().type);
        });
        auto handle = msgpack::unpack(bytes.data(), bytes.size());
        run("msgpack", "encode", "msgpack-cxx", bytes.size(), [&] {
            msgpack::sbuffer sb;
            msgpack::pack(sb, handle.get());
            keep(sb.size());
        });
        nlohmann_rows(format_id::msgpack, bytes, nj);
    });

    // CBOR
    section(format_id::cbor, doc, [&](const std::string& bytes) {
        run("cbor", "decode", "libcbor", bytes.size(), [&] {
            cbor_load_result res;
            cbor_item_t* item = cbor_load(reinterpret_cast<const unsigned char*>(bytes.data()),
                                          bytes.size(), &res);
            keep(res.read);
            if (item != nullptr) {
                cbor_decref(&item);
            }
        });
        cbor_load_result res;
        cbor_item_t* item = cbor_load(reinterpret_cast<const unsigned char*>(bytes.data()),
                                      bytes.size(), &res);
        run("cbor", "encode", "libcbor", bytes.size(), [&] {
            unsigned char* buf = nullptr;
            size_t cap = 0;
            keep(cbor_serialize_alloc(item, &buf, &cap));
            std::free(buf);
        });
        if (item != nullptr) {
            cbor_decref(&item);
        }
        nlohmann_rows(format_id::cbor, bytes, nj);
    });

    // BSON ({"records": [...]} as in the reference benchmark)
    section(format_id::bson, wrapped, [&](const std::string& bytes) {
        run("bson", "decode", "libbson iter walk", bytes.size(), [&] {
            bson_t b;
            if (bson_init_static(&b, reinterpret_cast<const uint8_t*>(bytes.data()),
                                 bytes.size())) {
                bson_walk(&b);
            }
        });
        run("bson", "encode", "libbson append", bytes.size(), [&] {
            bson_t b = BSON_INITIALIZER;
            bson_build(&b, wrapped.root());
            keep(b.len);
            bson_destroy(&b);
        });
        nlohmann::json njw = {{"records", nj}};
        nlohmann_rows(format_id::bson, bytes, njw);
    });

    // YAML
    section(format_id::yaml, doc, [&](const std::string& bytes) {
        run("yaml", "decode", "libyaml events", bytes.size(), [&] { libyaml_events(bytes); });
        run("yaml", "encode", "libyaml emitter", bytes.size(), [&] {
            std::string out;
            libyaml_emit(doc, out);
            keep(out.size());
        });
        run("yaml", "decode", "yaml-cpp", bytes.size(), [&] {
            keep(YAML::Load(bytes).size());
        });
        YAML::Node node = YAML::Load(bytes);
        run("yaml", "encode", "yaml-cpp", bytes.size(), [&] {
            YAML::Emitter em;
            em << node;
            keep(em.size());
        });
    });

    // TOML ({"records": [...]})
    section(format_id::toml, wrapped, [&](const std::string& bytes) {
        run("toml", "decode", "toml++", bytes.size(), [&] {
            try {
                auto t = toml::parse(bytes);
                keep(t.size());
            } catch (const std::exception&) {
            }
        });
        toml::table table;
        try {
            table = toml::parse(bytes);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "peers: toml++ cannot parse our TOML: %s\n", e.what());
        }
        run("toml", "encode", "toml++", bytes.size(), [&] {
            std::ostringstream os;
            os << toml::toml_formatter(table);
            keep(os.str().size());
        });
    });

    // XML ({"records": [...]} inside <bench>, as bench's xml row): expat parsing the same
    // bytes and building nothing, with no handlers and with empty ones (the callbacks that
    // our decoder fills).
    {
        encode_options eo;
        decode_options dopt;
        eo.xml.root = dopt.xml.root = "bench";
        output_buffer b;
        if (is_implemented(format_id::xml) && encode(format_id::xml, wrapped, b, eo)) {
            std::string bytes(b.view());
            ours(format_id::xml, wrapped, bytes, eo, dopt);
            XML_Parser p = XML_ParserCreate(nullptr);
            auto parse = [&](bool handlers) {
                XML_ParserReset(p, nullptr);
                if (handlers) {
                    XML_SetElementHandler(
                        p, [](void*, const XML_Char*, const XML_Char**) {},
                        [](void*, const XML_Char*) {});
                    XML_SetCharacterDataHandler(p, [](void*, const XML_Char*, int) {});
                }
                keep(XML_Parse(p, bytes.data(), static_cast<int>(bytes.size()), XML_TRUE));
            };
            run("xml", "decode", "expat, no handlers", bytes.size(), [&] { parse(false); });
            run("xml", "decode", "expat, empty handlers", bytes.size(), [&] { parse(true); });
            XML_ParserFree(p);
        } else {
            std::fprintf(stderr, "peers: xml is not available, its rows are skipped\n");
        }
    }

#ifdef POLYCODEC_PEERS_LIBPROTOBUF
    // protobuf ({"records": [...]} as polycodec.bench.Bench, the schema bench uses:
    // <dir>/schemas/<stem>.binpb beside the data file): libprotobuf's DynamicMessage of the
    // same descriptor set, ParseFromArray of our bytes into one reused message and
    // SerializeToArray of that message into a buffer of the right size.
    {
        auto slash = path.find_last_of('/');
        std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
        std::string stem = path.substr(slash == std::string::npos ? 0 : slash + 1);
        stem = stem.substr(0, stem.find('.'));
        bool ok = false;
        std::string desc = read_file(dir + "/schemas/" + stem + ".binpb", ok);
        std::shared_ptr<const protobuf::schema> schema;
        if (ok) {
            if (auto parsed = protobuf::parse_descriptor_set(desc)) {
                schema = *parsed;
            }
        }
        encode_options eo;
        decode_options dopt;
        output_buffer b;
        google::protobuf::FileDescriptorSet fds;
        google::protobuf::DescriptorPool pool;
        bool peer_ok = schema != nullptr && fds.ParseFromString(desc);
        for (int k = 0; peer_ok && k < fds.file_size(); ++k) {
            peer_ok = pool.BuildFile(fds.file(k)) != nullptr;
        }
        const google::protobuf::Descriptor* d =
            peer_ok ? pool.FindMessageTypeByName("polycodec.bench.Bench") : nullptr;
        eo.protobuf_schema = dopt.protobuf_schema = schema;
        if (d != nullptr && encode(format_id::protobuf, wrapped, b, eo)) {
            std::string bytes(b.view());
            ours(format_id::protobuf, wrapped, bytes, eo, dopt);
            google::protobuf::DynamicMessageFactory factory(&pool);
            std::unique_ptr<google::protobuf::Message> msg(factory.GetPrototype(d)->New());
            int size = static_cast<int>(bytes.size());
            run("protobuf", "decode", "libprotobuf DynamicMessage", bytes.size(),
                [&] { keep(msg->ParseFromArray(bytes.data(), size)); });
            std::string wire(bytes.size(), '\0');
            if (!msg->ParseFromArray(bytes.data(), size) || msg->ByteSizeLong() != bytes.size()) {
                std::fprintf(stderr, "peers: libprotobuf does not read our protobuf bytes back\n");
            }
            run("protobuf", "encode", "libprotobuf DynamicMessage", bytes.size(),
                [&] { keep(msg->SerializeToArray(wire.data(), size)); });
            if (wire != bytes) {
                std::fprintf(stderr, "peers: libprotobuf's serialization differs from ours\n");
            }
        } else {
            std::fprintf(stderr, "peers: protobuf has no schema for %s, its rows are skipped\n",
                         path.c_str());
        }
    }
#endif
    // protojson: bench.json's records as polycodec.bench.Bench (fixtures/schemas/<stem>.binpb),
    // against libprotobuf's JsonStringToMessage / MessageToJsonString on a DynamicMessage.
    {
        auto stem = path.substr(path.find_last_of('/') + 1);
        stem = stem.substr(0, stem.find('.'));
        std::ifstream df(fixtures_dir() + "/schemas/" + stem + ".binpb", std::ios::binary);
        std::string desc((std::istreambuf_iterator<char>(df)), std::istreambuf_iterator<char>());
        auto pb = desc.empty() ? decltype(protobuf::parse_descriptor_set(desc)){}
                               : protobuf::parse_descriptor_set(desc);
        encode_options eo;
        decode_options dopt;
        output_buffer out;
        if (!desc.empty() && pb) {
            eo.protobuf_schema = dopt.protobuf_schema = *pb;
            eo.type_name = dopt.type_name = "polycodec.bench.Bench";
        }
        if (!desc.empty() && pb && encode(format_id::protojson, wrapped, out, eo)) {
            std::string bytes(out.view());
            document back;
            run("protojson", "encode", "polycodec", bytes.size(), [&] {
                out.clear();
                (void)encode(format_id::protojson, wrapped, out, eo);
            });
            run("protojson", "decode", "polycodec", bytes.size(),
                [&] { (void)decode(format_id::protojson, bytes, back, dopt); });
            protojson_libprotobuf_rows(desc, "polycodec.bench.Bench", bytes, run);
        } else {
            std::fprintf(stderr, "peers: protojson needs fixtures/schemas/%s.binpb; its rows are "
                                 "skipped\n", stem.c_str());
        }
    }

    // The table: every peer next to ours, with the ratio ours / peer.
    std::printf("format,op,library,MBps,polycodec_MBps,ratio\n");
    for (const auto& r : rows) {
        if (r.library == "polycodec") {
            continue;
        }
        double our = 0;
        for (const auto& o : rows) {
            if (o.library == "polycodec" && o.format == r.format && o.op == r.op) {
                our = o.mbps;
            }
        }
        std::printf("%s,%s,%s,%.1f,%.1f,%.2f\n", r.format.c_str(), r.op.c_str(),
                    r.library.c_str(), r.mbps, our, r.mbps > 0 ? our / r.mbps : 0.0);
    }
    std::fflush(stdout);
}

}  // namespace

int run_peers(int argc, char** argv) {
    std::vector<std::string> data;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--data" && i + 1 < argc) {
            data.emplace_back(argv[++i]);
        } else if (a == "--ms" && i + 1 < argc) {
            window_ms = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "polycodec-loadtest peers: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    if (data.empty()) {
        data = {fixtures_dir() + "/bench.json",
                fixtures_dir() + "/records.json"};
    }
    std::printf("# polycodec-loadtest peers: MB/s on each format's own encoded size, %d ms per "
                "measurement (5 windows, median)\n# compiler: %s\n# flags: %s\n# commit: %s\n",
                window_ms, POLYCODEC_COMPILER, POLYCODEC_CXX_FLAGS, POLYCODEC_COMMIT);
    for (const auto& d : data) {
        compare_dataset(d);
    }
    return 0;
}

}  // namespace polycodec::loadtest
