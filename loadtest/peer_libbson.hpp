#pragma once
// Shared by `polycodec-loadtest peers` and the callgrind drivers, so that both measure the
// very same calls into the peer library.
#include <bson/bson.h>

#include <cstdint>
#include <cstring>

#include "peer_keep.hpp"
#include "polycodec/polycodec.hpp"

namespace polycodec::loadtest {

// ---- libbson: a bare iteration that builds nothing, and building with bson_append_* ----

inline void bson_walk(const bson_t* doc) {
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

inline void bson_build(bson_t* out, value v);

inline void bson_append_value(bson_t* out, const char* key, int key_len, value v) {
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

inline void bson_build(bson_t* out, value m) {
    for (auto [k, v] : m.entries()) {
        auto key = k.get_string();
        bson_append_value(out, key.data(), static_cast<int>(key.size()), v);
    }
}

}  // namespace polycodec::loadtest
