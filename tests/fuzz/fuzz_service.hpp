// The in-process service that the fuzz targets of the service paths (fuzz_http.cpp,
// fuzz_tcp_frames.cpp) drive: 1 MiB bodies and the fixtures' schemas, made once.
#pragma once

#include "service.hpp"

namespace polycodec::server::fuzz {

inline service& the_service() {
    static metrics m("fuzz", "fuzz");
    static service svc = [] {
        config c;
        c.max_body = 1 << 20;
        auto schemas = load_schema_registry(POLYCODEC_FUZZ_SCHEMA_DIR);
        return service(c, m, schemas ? *schemas : schema_registry{}, "fuzz", "fuzz");
    }();
    return svc;
}

}  // namespace polycodec::server::fuzz
