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

    /// Capacity a worker keeps between requests (DESIGN section 13): after an answer, the
    /// Document's and the output buffer's memory above this is given back.
    static constexpr std::size_t keep_bytes = std::size_t{4} << 20;
    /// Called once an answer has been copied out: empties the Document and the output buffer
    /// and frees whichever of their buffers is over keep_bytes.
    void trim() noexcept {
        doc.shrink(keep_bytes);
        out.shrink(keep_bytes);
        lossy.clear();
    }
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

/// What a whole-document request reserves against the memory budget (DESIGN section 13),
/// before its body is read: request_memory_factor x the body size + request_memory_overhead.
/// It covers the body itself, the decoder's working memory and the Document, the encoded output
/// and the answer's copy of it. The factor is the measured peak of the service's largest case,
/// rounded up (docs/SECURITY.md "Memory budget" has the measurements).
inline constexpr std::size_t request_memory_factor = 6;
/// Per request: headers, parser and response objects, small buffers.
inline constexpr std::size_t request_memory_overhead = std::size_t{256} << 10;
/// request_memory_factor * body_size + request_memory_overhead, saturating.
std::size_t request_reservation(std::size_t body_size) noexcept;

/// What one stream (DESIGN section 12) reserves for its whole life, before its body is read:
/// its fixed window, stream_memory_factor x --max-record + request_memory_overhead + 1 MiB. It
/// covers the bytes of the record being framed and their decode copy (2x), the record's
/// Document (document_budget of a record, 5x) and the output chunk with one record's output
/// (1x), plus the read and write windows.
inline constexpr std::size_t stream_memory_factor = 8;
std::size_t stream_reservation(std::size_t max_record) noexcept;

/// Memory budget of a document decoded from `input_size` bytes: what the request reserved
/// minus its body (request_reservation(n) - n), so a Document never outgrows the reservation;
/// beyond it the decode fails with errc::size_exceeded (400 / status 1).
std::size_t document_budget(std::size_t input_size) noexcept;

}  // namespace polycodec::server
