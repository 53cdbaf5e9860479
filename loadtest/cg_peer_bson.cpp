// polycodec-cgpeer-bson: a fixed number of libbson iteration walks or bson_append_* builds of
// FILE.json wrapped as {"records": [...]}, the same work `polycodec-loadtest peers` times for
// libbson (the same walk and build as peers.cpp), for instruction counts under callgrind next
// to polycodec-cgdriver (docs/BENCHMARKS.md). Instructions per operation =
// (Ir at N=21 - Ir at N=1) / 20.
//   polycodec-cgpeer-bson decode|encode FILE.json N
#include <bson/bson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "polycodec/polycodec.hpp"

using namespace polycodec;

namespace {

std::size_t sink = 0;
void keep(std::size_t v) { sink += v; }

// As peers.cpp: a bare iteration that builds nothing.
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

// As peers.cpp: building with bson_append_*.
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

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: polycodec-cgpeer-bson encode|decode FILE.json N\n");
        return 2;
    }
    std::string op = argv[1];
    std::ifstream file(argv[2], std::ios::binary);
    std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    long n = std::atol(argv[3]);
    document src;
    if (!decode(format_id::json, json, src)) {
        std::fprintf(stderr, "cannot decode %s\n", argv[2]);
        return 1;
    }
    document wrapped;  // {"records": [...]} as bench and peers do
    {
        builder b(wrapped);
        b.begin_map();
        b.add_string("records");
        b.add_copy(src.root());
        b.end_map();
    }
    output_buffer out;
    if (!encode(format_id::bson, wrapped, out)) {
        std::fprintf(stderr, "cannot encode %s\n", argv[2]);
        return 1;
    }
    std::string bytes(out.view());
    for (long i = 0; i < n; ++i) {
        if (op == "encode") {
            bson_t b = BSON_INITIALIZER;
            bson_build(&b, wrapped.root());
            keep(b.len);
            bson_destroy(&b);
        } else {
            bson_t b;
            if (bson_init_static(&b, reinterpret_cast<const uint8_t*>(bytes.data()),
                                 bytes.size())) {
                bson_walk(&b);
            }
        }
    }
    std::printf("%zu\n", sink);
    return 0;
}
