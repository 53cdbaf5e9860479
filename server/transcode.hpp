#pragma once
// decode -> document -> encode for both transports: the only place codec errors become
// outcomes. Measures decode and encode, records metrics, uses per-thread reusable buffers.

#include <cstddef>
#include <string_view>

#include "polycodec/codec.hpp"
#include "polycodec/media_type.hpp"
#include "service.hpp"

namespace polycodec::server {

/// Buffers reused by every request of one I/O thread, so steady traffic allocates nothing.
struct worker_state {
    document doc;
    output_buffer out;
    lossy_report lossy;
};

/// The calling thread's state.
worker_state& this_worker();

/// Which step failed.
enum class stage : std::uint8_t { none, options, input_format, output_format, decode, encode };

struct outcome {
    bool ok = true;
    stage failed = stage::none;
    error err;
    double decode_s = 0;
    double encode_s = 0;
};

/// Resolves opt.decode.schema_name against the service's schemas (errc::invalid_option for an
/// unknown name) and bounds the document's memory by the input size.
result<void> prepare_options(const service& svc, transcode_options& opt, std::size_t input_size);

/// Decodes `input` as opt.from into w.doc, then (unless `validate_only`) encodes it as opt.to
/// into w.out (cleared first). Lossy fallbacks land in w.lossy. Metrics of decode, encode and
/// lossy conversions are recorded.
outcome run_transcode(service& svc, worker_state& w, std::string_view input, transcode_options& opt,
                      bool validate_only);

/// Memory budget of a document decoded from `input_size` bytes (a small factor of it).
std::size_t document_budget(std::size_t input_size) noexcept;

}  // namespace polycodec::server
