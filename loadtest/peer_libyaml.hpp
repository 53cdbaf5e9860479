#pragma once
// Shared by `polycodec-loadtest peers` and the callgrind drivers, so that both measure the
// very same calls into the peer library.
#include <yaml.h>

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

#include "peer_keep.hpp"
#include "polycodec/polycodec.hpp"

namespace polycodec::loadtest {

// ---- libyaml: a bare event loop, and the emitter fed with events from a walk ----

inline bool libyaml_events(std::string_view in) {
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

inline int yaml_write(void* data, unsigned char* buffer, size_t size) {
    static_cast<std::string*>(data)->append(reinterpret_cast<char*>(buffer), size);
    return 1;
}

inline void libyaml_emit_value(yaml_emitter_t* e, value v, std::string& tmp) {
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

inline void libyaml_emit(const document& doc, std::string& out) {
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

}  // namespace polycodec::loadtest
