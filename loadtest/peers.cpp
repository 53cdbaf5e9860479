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
#include <toml++/toml.h>
#include <vector>

#include "measure.hpp"
#include "polycodec/polycodec.hpp"

namespace polycodec::loadtest {
namespace {

struct result_row {
    std::string format, op, library;
    double mbps = 0;
};

std::vector<result_row> rows;
int window_ms = 1000;

volatile std::size_t sink = 0;  // keeps results observable so nothing is optimised away

template <class T>
void keep(T v) {
    sink = sink + static_cast<std::size_t>(v);
}

void run(const std::string& format, const std::string& op, const std::string& library,
         std::size_t bytes, const std::function<void()>& fn) {
    summary s = measure(fn, window_ms);
    rows.push_back({format, op, library, s.ops_per_s * static_cast<double>(bytes) / 1e6});
    std::fprintf(stderr, "peers: %s %s %s %.1f MB/s\n", format.c_str(), op.c_str(),
                 library.c_str(), rows.back().mbps);
}

// ---- libbson: a bare iteration that builds nothing, and building with bson_append_* ----

void bson_walk(const bson_t* doc) {
    bson_iter_t it;
    if (!bson_iter_init(&it, doc)) {
        return;
    }
    while (bson_iter_next(&it)) {
        keep(std::strlen(bson_iter_key(&it)));
        switch (bson_iter_type(&it)) {
            case BSON_TYPE_DOCUMENT:
            case BSON_TYPE_ARRAY: {
                const uint8_t* data;
                uint32_t len;
                if (bson_iter_type(&it) == BSON_TYPE_DOCUMENT) {
                    bson_iter_document(&it, &len, &data);
                } else {
                    bson_iter_array(&it, &len, &data);
                }
                bson_t child;
                if (bson_init_static(&child, data, len)) {
                    bson_walk(&child);
                }
                break;
            }
            case BSON_TYPE_UTF8: {
                uint32_t len;
                keep(reinterpret_cast<std::uintptr_t>(bson_iter_utf8(&it, &len)) + len);
                break;
            }
            case BSON_TYPE_INT32:
                keep(static_cast<std::size_t>(bson_iter_int32(&it)));
                break;
            case BSON_TYPE_INT64:
                keep(static_cast<std::size_t>(bson_iter_int64(&it)));
                break;
            case BSON_TYPE_DOUBLE:
                keep(static_cast<std::size_t>(bson_iter_double(&it)));
                break;
            case BSON_TYPE_BOOL:
                keep(bson_iter_bool(&it));
                break;
            default:
                break;
        }
    }
}

void bson_build(bson_t* out, value v);

void bson_append_value(bson_t* out, const char* key, int key_len, value v) {
    switch (v.kind()) {
        case kind::null:
            bson_append_null(out, key, key_len);
            break;
        case kind::boolean_false:
        case kind::boolean_true:
            bson_append_bool(out, key, key_len, v.get_bool());
            break;
        case kind::int64: {
            std::int64_t i = v.get_int();
            if (i >= INT32_MIN && i <= INT32_MAX) {
                bson_append_int32(out, key, key_len, static_cast<int32_t>(i));
            } else {
                bson_append_int64(out, key, key_len, i);
            }
            break;
        }
        case kind::float64:
            bson_append_double(out, key, key_len, v.get_double());
            break;
        case kind::string: {
            auto s = v.get_string();
            bson_append_utf8(out, key, key_len, s.data(), static_cast<int>(s.size()));
            break;
        }
        case kind::array: {
            bson_t child;
            bson_append_array_begin(out, key, key_len, &child);
            char buf[16];
            int i = 0;
            for (value c : v.items()) {
                const char* k;
                std::size_t kl = bson_uint32_to_string(static_cast<uint32_t>(i++), &k, buf,
                                                       sizeof buf);
                bson_append_value(&child, k, static_cast<int>(kl), c);
            }
            bson_append_array_end(out, &child);
            break;
        }
        case kind::map: {
            bson_t child;
            bson_append_document_begin(out, key, key_len, &child);
            bson_build(&child, v);
            bson_append_document_end(out, &child);
            break;
        }
        default:
            break;
    }
}

void bson_build(bson_t* out, value m) {
    for (auto [k, v] : m.entries()) {
        auto key = k.get_string();
        bson_append_value(out, key.data(), static_cast<int>(key.size()), v);
    }
}

// ---- libyaml: a bare event loop, and the emitter fed with events from a walk ----

bool libyaml_events(std::string_view in) {
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(in.data()),
                                 in.size());
    yaml_event_t ev;
    bool ok = true;
    for (;;) {
        if (!yaml_parser_parse(&parser, &ev)) {
            ok = false;
            break;
        }
        yaml_event_type_t t = ev.type;
        keep(static_cast<std::size_t>(t));
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT) {
            break;
        }
    }
    yaml_parser_delete(&parser);
    return ok;
}

int yaml_write(void* data, unsigned char* buffer, size_t size) {
    static_cast<std::string*>(data)->append(reinterpret_cast<char*>(buffer), size);
    return 1;
}

void libyaml_emit_value(yaml_emitter_t* e, value v, std::string& tmp) {
    yaml_event_t ev;
    auto scalar = [&](std::string_view text, bool quoted) {
        yaml_scalar_event_initialize(&ev, nullptr, nullptr,
                                     reinterpret_cast<yaml_char_t*>(const_cast<char*>(text.data())),
                                     static_cast<int>(text.size()), 1, 1,
                                     quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
        yaml_emitter_emit(e, &ev);
    };
    switch (v.kind()) {
        case kind::null:
            scalar("null", false);
            break;
        case kind::boolean_false:
            scalar("false", false);
            break;
        case kind::boolean_true:
            scalar("true", false);
            break;
        case kind::int64:
            tmp = std::to_string(v.get_int());
            scalar(tmp, false);
            break;
        case kind::float64: {
            char buf[32];
            auto r = std::to_chars(buf, buf + 32, v.get_double());
            scalar(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)), false);
            break;
        }
        case kind::string:
            scalar(v.get_string(), false);
            break;
        case kind::array:
            yaml_sequence_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
            yaml_emitter_emit(e, &ev);
            for (value c : v.items()) {
                libyaml_emit_value(e, c, tmp);
            }
            yaml_sequence_end_event_initialize(&ev);
            yaml_emitter_emit(e, &ev);
            break;
        case kind::map:
            yaml_mapping_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_MAPPING_STYLE);
            yaml_emitter_emit(e, &ev);
            for (auto [k, val] : v.entries()) {
                libyaml_emit_value(e, k, tmp);
                libyaml_emit_value(e, val, tmp);
            }
            yaml_mapping_end_event_initialize(&ev);
            yaml_emitter_emit(e, &ev);
            break;
        default:
            scalar("~", false);
    }
}

void libyaml_emit(const document& doc, std::string& out) {
    yaml_emitter_t e;
    yaml_emitter_initialize(&e);
    yaml_emitter_set_output(&e, yaml_write, &out);
    yaml_emitter_set_unicode(&e, 1);
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    yaml_emitter_emit(&e, &ev);
    yaml_document_start_event_initialize(&ev, nullptr, nullptr, nullptr, 1);
    yaml_emitter_emit(&e, &ev);
    std::string tmp;
    libyaml_emit_value(&e, doc.root(), tmp);
    yaml_document_end_event_initialize(&ev, 1);
    yaml_emitter_emit(&e, &ev);
    yaml_stream_end_event_initialize(&ev);
    yaml_emitter_emit(&e, &ev);
    yaml_emitter_delete(&e);
}

// ---- ours ----

void ours(format_id f, const document& in, const std::string& bytes) {
    auto name = std::string(to_string(f));
    output_buffer out;
    document back;
    run(name, "encode", "polycodec", bytes.size(), [&] {
        out.clear();
        (void)encode(f, in, out);
    });
    run(name, "decode", "polycodec", bytes.size(), [&] { (void)decode(f, bytes, back); });
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

void compare_dataset(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    document doc;
    if (!decode(format_id::json, json, doc)) {
        std::fprintf(stderr, "peers: cannot decode %s\n", path.c_str());
        return;
    }
    document wrapped;
    {
        builder b(wrapped);
        b.begin_map();
        b.add_string("records");
        b.add_copy(doc.root());
        b.end_map();
    }
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
    if (std::string bytes; encoded(format_id::msgpack, doc, bytes)) {
        ours(format_id::msgpack, doc, bytes);
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
        run("msgpack", "decode", "nlohmann", bytes.size(), [&] {
            keep(nlohmann::json::from_msgpack(bytes).size());
        });
        run("msgpack", "encode", "nlohmann", bytes.size(), [&] {
            keep(nlohmann::json::to_msgpack(nj).size());
        });
    }

    // CBOR
    if (std::string bytes; encoded(format_id::cbor, doc, bytes)) {
        ours(format_id::cbor, doc, bytes);
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
        run("cbor", "decode", "nlohmann", bytes.size(), [&] {
            keep(nlohmann::json::from_cbor(bytes).size());
        });
        run("cbor", "encode", "nlohmann", bytes.size(), [&] {
            keep(nlohmann::json::to_cbor(nj).size());
        });
    }

    // BSON ({"records": [...]} as in the reference benchmark)
    if (std::string bytes; encoded(format_id::bson, wrapped, bytes)) {
        ours(format_id::bson, wrapped, bytes);
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
        run("bson", "decode", "nlohmann", bytes.size(), [&] {
            keep(nlohmann::json::from_bson(bytes).size());
        });
        run("bson", "encode", "nlohmann", bytes.size(), [&] {
            keep(nlohmann::json::to_bson(njw).size());
        });
    }

    // YAML
    if (std::string bytes; encoded(format_id::yaml, doc, bytes)) {
        ours(format_id::yaml, doc, bytes);
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
    }

    // TOML ({"records": [...]})
    if (std::string bytes; encoded(format_id::toml, wrapped, bytes)) {
        ours(format_id::toml, wrapped, bytes);
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
        data = {std::string(POLYCODEC_FIXTURES_DIR) + "/bench.json",
                std::string(POLYCODEC_FIXTURES_DIR) + "/records.json"};
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
