#include "transcode.hpp"

#include <chrono>

namespace polycodec::server {
namespace {

using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace

worker_state& this_worker() {
    // Each io_context runs on exactly one thread, so a thread's requests never overlap.
    thread_local worker_state w;
    return w;
}

std::size_t request_reservation(std::size_t body_size) noexcept {
    constexpr std::size_t max = static_cast<std::size_t>(-1);
    if (body_size > (max - request_memory_overhead) / request_memory_factor) {
        return max;
    }
    return body_size * request_memory_factor + request_memory_overhead;
}

std::size_t stream_reservation(std::size_t max_record) noexcept {
    constexpr std::size_t max = static_cast<std::size_t>(-1);
    constexpr std::size_t fixed = request_memory_overhead + (std::size_t{1} << 20);
    if (max_record > (max - fixed) / stream_memory_factor) {
        return max;
    }
    return max_record * stream_memory_factor + fixed;
}

std::size_t document_budget(std::size_t input_size) noexcept {
    // A tape word per value is 8-16 bytes for values as short as 1-2 input bytes ("[0,0,..."):
    // such documents fail with size_exceeded rather than take more than was reserved.
    return request_reservation(input_size) - input_size;
}

result<void> prepare_options(const service& svc, transcode_options& opt, std::size_t input_size) {
    opt.decode.limits.max_bytes = document_budget(input_size);
    if (!opt.decode.schema_name.empty() && !opt.decode.schema && !opt.decode.avro_schema) {
        auto it = svc.schemas.find(opt.decode.schema_name);
        if (it == svc.schemas.end()) {
            return fail(make_error(errc::invalid_option,
                                   "unknown schema \"" + opt.decode.schema_name + "\""));
        }
        opt.decode.schema = opt.encode.schema = it->second.postcard;
        opt.decode.avro_schema = opt.encode.avro_schema = it->second.avro;
    }
    if (!opt.decode.reader_schema_name.empty() && !opt.decode.avro_reader_schema) {
        auto it = svc.schemas.find(opt.decode.reader_schema_name);
        if (it == svc.schemas.end() || !it->second.avro) {
            return fail(make_error(errc::invalid_option, "unknown avro schema \"" +
                                                             opt.decode.reader_schema_name +
                                                             "\" for reader_schema="));
        }
        opt.decode.avro_reader_schema = it->second.avro;
    }
    return {};
}

outcome run_transcode(service& svc, worker_state& w, std::string_view input, transcode_options& opt,
                      bool validate_only) {
    outcome o;
    w.out.clear();
    w.lossy.clear();
    auto t0 = clock_type::now();
    opt.decode.report = &w.lossy;  // xml under lossy=allow reports what its mapping dropped
    auto r = decode(opt.from->id, input, w.doc, opt.decode);
    opt.decode.report = nullptr;
    o.decode_s = since(t0);
    if (!r) {
        o.ok = false;
        o.failed = stage::decode;
        o.err = std::move(r.error());
        return o;
    }
    svc.stats.decoded(opt.from->id, input.size(), o.decode_s);
    if (validate_only) {
        return o;
    }
    opt.encode.report = &w.lossy;
    auto t1 = clock_type::now();
    auto e = encode(opt.to->id, w.doc, w.out, opt.encode);
    o.encode_s = since(t1);
    opt.encode.report = nullptr;
    if (!e) {
        o.ok = false;
        o.failed = stage::encode;
        o.err = std::move(e.error());
        w.out.clear();
        return o;
    }
    svc.stats.encoded(opt.to->id, w.out.size(), o.encode_s);
    for (const lossy_event& ev : w.lossy) {
        svc.stats.lossy(opt.from->id, opt.to->id, ev.kind);
    }
    return o;
}

}  // namespace polycodec::server
