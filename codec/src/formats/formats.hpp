#pragma once
// The per-format entry points. Each codec/src/formats/<fmt>.cpp defines its `<fmt>_codec`;
// registry.cpp ties them to the format table. A format whose functions are null is "not
// implemented yet".

#include <memory>
#include <string_view>

#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

/// Decodes `in` into `b` (already reset). Errors carry code, offset and message; the caller
/// adds format, line, column and path.
using decode_fn = result<void> (*)(std::string_view in, builder& b, const decode_options& opt);
/// Appends the encoding of `doc` to `out`. Errors carry code, message and path (use
/// document::pointer_to on the offending index).
using encode_fn = result<void> (*)(const document& doc, output_buffer& out,
                                   const encode_options& opt);

/// Stream mode (DESIGN section 12): writes one record at a time, for a format whose records
/// depend on earlier ones (csv: the columns and header come from the first record).
class record_encoder {
public:
    virtual ~record_encoder() = default;
    /// Appends `record` (a row) to `out`; errors and lossy events as encode_fn's.
    virtual result<void> write(value record, output_buffer& out) = 0;
};
/// `opt` outlives the encoder.
using make_record_encoder_fn = std::unique_ptr<record_encoder> (*)(const encode_options& opt);

struct codec_functions {
    decode_fn decode = nullptr;
    encode_fn encode = nullptr;
    make_record_encoder_fn record_encoder = nullptr;  ///< stream mode, where `encode` won't do
};

extern const codec_functions json_codec;
extern const codec_functions json5_codec;
extern const codec_functions hjson_codec;
extern const codec_functions yaml_codec;
extern const codec_functions ron_codec;
extern const codec_functions sexpr_codec;
extern const codec_functions cbor_codec;
extern const codec_functions msgpack_codec;
extern const codec_functions pickle_codec;
extern const codec_functions toml_codec;
extern const codec_functions bson_codec;
extern const codec_functions bencode_codec;
extern const codec_functions postcard_codec;
extern const codec_functions csv_codec;
extern const codec_functions ndjson_codec;
extern const codec_functions urlform_codec;
extern const codec_functions ini_codec;
extern const codec_functions edn_codec;
extern const codec_functions ubjson_codec;
extern const codec_functions smile_codec;
extern const codec_functions dotenv_codec;
extern const codec_functions protobuf_codec;
extern const codec_functions avro_codec;
extern const codec_functions xml_codec;
extern const codec_functions properties_codec;
extern const codec_functions protojson_codec;
extern const codec_functions plist_codec;

/// properties' one-pass fast path alone (unflatten and/or infer), for the agreement test:
/// true with the document in `b` (empty at depth 0 before), false where it gives way to the
/// nester and the general path (then `b` is reset). properties_codec.decode runs it first.
bool decode_properties_fast(std::string_view in, builder& b, const decode_options& opt);
/// xml's two readers apart, for the agreement tests and fuzz_diff_xml (xml_codec.decode runs
/// the fast path and, where it hands off, expat): `expat` the ordinary reader alone, `fast`
/// the one-pass scanner alone, which fails with *handed_off set where it would hand off.
enum class xml_reader_kind { fast, expat };
result<void> decode_xml_only(xml_reader_kind which, std::string_view in, builder& b,
                             const decode_options& opt, bool* handed_off = nullptr);

/// xml's writer with (`fast`, what xml_codec.encode runs) or without (`general`) its fast path,
/// for the agreement test (tests/codec/xml_encode_fast_test.cpp): both write the same bytes.
enum class xml_writer_kind { fast, general };
result<void> encode_xml_only(xml_writer_kind which, const document& doc, output_buffer& out,
                             const encode_options& opt);

}  // namespace polycodec::detail
