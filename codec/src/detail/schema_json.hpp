#pragma once
// The JSON text of a schema option decoded into a document, for the schema parsers of avro
// (formats/avro/schema.cpp) and postcard (formats/postcard.cpp): a JSON error comes back as
// errc::invalid_option, "<format> schema is not valid JSON: <the JSON error>".

#include <string>
#include <string_view>
#include <utility>

#include "polycodec/codec.hpp"
#include "polycodec/document.hpp"
#include "polycodec/error.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

inline result<void> decode_schema_json(std::string_view json_text, document& doc,
                                       const char* format) {
    if (auto r = decode(format_id::json, json_text, doc); !r) {
        error e = r.error();
        e.code = errc::invalid_option;
        e.message = std::string(format) + " schema is not valid JSON: " + describe(r.error());
        return fail(std::move(e));
    }
    return {};
}

}  // namespace polycodec::detail
