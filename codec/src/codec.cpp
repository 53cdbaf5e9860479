#include "polycodec/codec.hpp"

#include <string>

#include "detail/extjson.hpp"
#include "detail/locate.hpp"
#include "detail/try.hpp"
#include "formats/formats.hpp"

namespace polycodec {
namespace {

// The codec of each format, in id order (format.hpp). Listed explicitly: in a static library
// a self-registering object file that nothing references would be dropped.
const detail::codec_functions* const codecs[format_count] = {
    &detail::json_codec,    &detail::json5_codec,   &detail::hjson_codec,
    &detail::yaml_codec,    &detail::ron_codec,     &detail::sexpr_codec,
    &detail::cbor_codec,    &detail::msgpack_codec, &detail::pickle_codec,
    &detail::toml_codec,    &detail::bson_codec,    &detail::bencode_codec,
    &detail::postcard_codec, &detail::csv_codec,    &detail::ndjson_codec,
    &detail::urlform_codec, &detail::ini_codec,     &detail::edn_codec,
    &detail::ubjson_codec,  &detail::smile_codec,   &detail::dotenv_codec,
    &detail::protobuf_codec, &detail::avro_codec, &detail::xml_codec,
    &detail::plist_codec,   &detail::properties_codec, &detail::protojson_codec,
};

const detail::codec_functions* codec_of(format_id f) noexcept {
    auto n = static_cast<std::size_t>(f);
    if (n == 0 || n > format_count || codecs[n - 1] == nullptr) {
        return nullptr;
    }
    return codecs[n - 1];
}

error unsupported(format_id f) {
    auto e = make_error(errc::unsupported_format,
                        "format number " + std::to_string(static_cast<int>(f)) + " is unknown");
    return e;
}

// The JSON-family formats of extjson=canonical (docs/formats/bson.md "Extended JSON v2").
bool extjson_family(format_id f) noexcept {
    return f == format_id::json || f == format_id::json5 || f == format_id::hjson ||
           f == format_id::yaml || f == format_id::ndjson;
}

// The Extended JSON rewrite of a document, kept per thread so that its buffers are reused.
document& extjson_scratch() {
    thread_local document d;
    return d;
}

// Applies an Extended JSON rewrite (read_extended, write_canonical) to a whole document:
// the root is a document of its own, and so is each record of an ndjson array.
bool extjson_rewrite(format_id f, value root, builder& b, bool (*rewrite)(value, builder&, bool)) {
    if (f != format_id::ndjson || root.kind() != kind::array) {
        return rewrite(root, b, true);
    }
    if (!b.begin_array()) {
        return false;
    }
    for (value record : root.items()) {
        if (!rewrite(record, b, true)) {
            return false;
        }
    }
    b.end_array();
    return b.ok();
}

error not_implemented(format_id f, const char* what) {
    auto e = make_error(errc::not_implemented, std::string(what) + " is not implemented yet");
    e.format = f;
    return e;
}

// The codec of `format` when it has a decoder (`decoding`) or an encoder; else the error.
result<const detail::codec_functions*> codec_for(format_id format, bool decoding) {
    const auto* c = codec_of(format);
    if (c == nullptr) {
        return fail(unsupported(format));
    }
    if (decoding ? c->decode == nullptr : c->encode == nullptr) {
        return fail(not_implemented(format, decoding ? "decoding" : "encoding"));
    }
    return c;
}

// A builder's stop (errc::depth_exceeded, or a size error) at `offset`, with the limit it hit.
error limit_error(errc code, std::size_t offset, const build_limits& limits) {
    return make_error(
        code, offset,
        code == errc::depth_exceeded
            ? "nesting deeper than " + std::to_string(limits.max_depth)
            : "document larger than its budget of " + std::to_string(limits.max_bytes) + " bytes");
}

}  // namespace

bool is_implemented(format_id format) noexcept {
    const auto* c = codec_of(format);
    return c != nullptr && c->decode != nullptr && c->encode != nullptr;
}

result<void> decode(format_id format, std::string_view input, document& out,
                    const decode_options& opt) {
    POLYCODEC_TRY_ASSIGN(c, codec_for(format, true));
    builder b(out, opt.limits);
    result<void> r = c->decode(input, b, opt);
    if (r && !b.ok()) {
        r = fail(limit_error(b.status(), input.size(), opt.limits));
    }
    if (r && b.depth() != 0) {
        r = fail(make_error(errc::unexpected_eof, input.size(), "unclosed container"));
    }
    if (r && opt.extjson == extjson_mode::canonical && extjson_family(format) && !out.empty()) {
        // Extended JSON objects -> the values they stand for (int widths, BSON's types).
        document& tmp = extjson_scratch();
        builder tb(tmp, opt.limits);
        tb.reset();
        if (!extjson_rewrite(format, out.root(), tb, detail::extjson::read_extended)) {
            errc code = tb.ok() ? errc::size_exceeded : tb.status();
            r = fail(limit_error(code, input.size(), opt.limits));
        } else {
            std::swap(out, tmp);
        }
    }
    if (!r) {
        error& e = r.error();
        e.format = format;
        if (!e.has_path) {
            e.path = b.current_path();
            e.has_path = true;
        }
        if (e.has_offset && find_format(format)->caps.text && e.line == 0) {
            auto pos = detail::locate(input, e.offset);
            e.line = pos.line;
            e.column = pos.column;
        }
        out.clear();
    }
    return r;
}

result<void> encode(format_id format, const document& doc, output_buffer& out,
                    const encode_options& opt) {
    POLYCODEC_TRY_ASSIGN(c, codec_for(format, false));
    if (doc.empty()) {
        return fail(make_error(errc::invalid_option, "cannot encode an empty document"));
    }
    result<void> r;
    if (opt.extjson == extjson_mode::canonical && extjson_family(format) &&
        format != format_id::json && format != format_id::ndjson) {
        // Ints, floats, dates and BSON's types as canonical Extended JSON v2 objects. (The
        // JSON writer, also NDJSON's, does it value by value without this copy.)
        // The rewrite nests at most two levels deeper than the document ({"$date":
        // {"$numberLong": ...}}), whose own depth its decoder bounded.
        build_limits limits;
        limits.max_depth = 0xffffffffu;
        document& tmp = extjson_scratch();
        builder tb(tmp, limits);
        tb.reset();
        if (extjson_rewrite(format, doc.root(), tb, detail::extjson::write_canonical)) {
            r = c->encode(tmp, out, opt);
        } else {
            r = fail(make_error(errc::size_exceeded,
                                "canonical Extended JSON larger than the budget of " +
                                    std::to_string(limits.max_bytes) + " bytes"));
        }
    } else {
        r = c->encode(doc, out, opt);
    }
    if (!r) {
        r.error().format = format;
    }
    return r;
}

}  // namespace polycodec
