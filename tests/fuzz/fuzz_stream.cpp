// libFuzzer target for stream mode's record framers (DESIGN section 12). The first byte picks
// the format and its framing options, the second seeds a random chunking; the rest is the
// input. Properties: reading in random chunks gives the same records (and the same error, at
// the same offset) as reading the input in one piece; the records re-written in the same
// format's stream framing read back to the same records.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "polycodec/polycodec.hpp"

namespace {

using namespace polycodec;

[[noreturn]] void property_failed() { std::abort(); }

struct outcome {
    std::vector<std::string> records;  // each as compact debug text
    bool failed = false;
    errc code = errc::ok;
    std::uint64_t offset = 0;
};

outcome read_all(format_id f, const decode_options& opt, std::string_view in, std::uint64_t seed,
                 bool chunked) {
    outcome o;
    record_reader reader(f, opt, 1 << 16);
    std::mt19937_64 rng(seed);
    std::size_t at = 0;
    document rec;
    for (int guard = 0; guard < 1000000; ++guard) {
        auto s = reader.next(rec);
        if (!s) {
            o.failed = true;
            o.code = s.error().code;
            o.offset = s.error().offset;
            return o;
        }
        if (*s == record_reader::step::end) {
            return o;
        }
        if (*s == record_reader::step::record) {
            o.records.push_back(to_debug_string(rec.root()));
            continue;
        }
        if (at == in.size()) {
            reader.finish();
            continue;
        }
        std::size_t n = chunked ? 1 + rng() % 17 : in.size() - at;
        n = std::min(n, in.size() - at);
        reader.feed(in.substr(at, n));
        at += n;
    }
    property_failed();  // a reader that neither ends nor fails
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) {
        return 0;
    }
    static const format_id formats[] = {format_id::ndjson, format_id::json, format_id::csv,
                                        format_id::yaml,   format_id::cbor, format_id::msgpack,
                                        format_id::bson};
    format_id f = formats[(data[0] & 0x0f) % 7];
    decode_options opt;
    opt.seq = (data[0] & 0x10) != 0;
    opt.multi = (data[0] & 0x20) != 0;
    opt.csv_header = (data[0] & 0x40) == 0;
    opt.limits.max_bytes = std::size_t{16} << 20;
    std::string_view in(reinterpret_cast<const char*>(data) + 2, size - 2);
    outcome whole = read_all(f, opt, in, 0, false);
    outcome parts = read_all(f, opt, in, data[1], true);
    if (whole.records != parts.records || whole.failed != parts.failed ||
        whole.code != parts.code || whole.offset != parts.offset) {
        property_failed();
    }
    if (whole.failed || whole.records.empty()) {
        return 0;
    }
    // Write the records in the same format's stream framing, read them back.
    encode_options eo;
    eo.seq = opt.seq;
    eo.multi = opt.multi;
    eo.csv_header = opt.csv_header;
    eo.lossy = false;
    record_reader again(f, opt, 1 << 16);
    record_writer writer(f, eo);
    output_buffer out;
    if (!writer.begin(out)) {
        return 0;
    }
    record_reader reader(f, opt, 1 << 16);
    reader.feed(in);
    reader.finish();
    document rec;
    std::vector<std::string> written;
    for (;;) {
        auto s = reader.next(rec);
        if (!s || *s != record_reader::step::record) {
            break;
        }
        if (!writer.write(rec, out)) {
            return 0;  // a value this format's stream cannot hold again (e.g. CSV columns)
        }
        written.push_back(to_debug_string(rec.root()));
    }
    if (!writer.end(out)) {
        return 0;
    }
    outcome back = read_all(f, opt, out.view(), 1, true);
    // CSV and YAML re-read strings where the source had other scalars; compare the count there.
    if (f == format_id::csv || f == format_id::yaml) {
        if (!back.failed && back.records.size() != written.size()) {
            property_failed();
        }
        return 0;
    }
    if (back.failed || back.records != written) {
        property_failed();
    }
    return 0;
}
