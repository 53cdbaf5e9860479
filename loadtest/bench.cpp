#include "bench.hpp"

#include <sched.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "dataset.hpp"
#include "measure.hpp"
#include "polycodec/formats/avro.hpp"
#include "polycodec/formats/postcard.hpp"
#include "polycodec/formats/protobuf.hpp"
#include "polycodec/polycodec.hpp"
#include "polycodec/stream.hpp"

namespace polycodec::loadtest {
namespace {

struct options {
    std::vector<std::string> data;
    int ms = 2000;
    bool stats = false;
    int pin = -1;
    std::vector<std::string> only;
    bool conversions = true;  ///< the FROM>TO/document and /stream rows
    /// Conversion rows are made unless --no-stream, or --formats leaves out "stream".
    bool want_conversions() const {
        return conversions &&
               (only.empty() || std::find(only.begin(), only.end(), "stream") != only.end());
    }
};

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto c = line.find(':');
            return c == std::string::npos ? line : line.substr(c + 2);
        }
    }
    return "unknown";
}

struct row {
    std::string format;
    std::size_t size = 0;
    summary enc, dec;
    double doc_ratio = 0;
    double enc_allocs = 0, dec_allocs = 0;
    bool conversion = false;  ///< a conversion row (its own "fastest")
};

// ---- conversion rows: stream mode beside the whole document (DESIGN section 12) ----

constexpr std::size_t stream_chunk = 64 * 1024;  // input fed, and output flushed, in 64 KiB

// Converts `input` record by record: fed in 64 KiB chunks to a record_reader, each record
// written by a record_writer into `out`, which is cleared (as if sent) past 64 KiB. With
// `write` false only reads. Returns the records converted; `check`, when given, sees each.
template <class Check>
std::uint64_t stream_convert(format_id from, format_id to, std::string_view input,
                             document& rec, output_buffer& out, bool write, Check&& check) {
    record_reader reader(from, decode_options{});
    record_writer writer(to, encode_options{});
    std::size_t off = 0;
    bool began = false;
    for (;;) {
        auto s = reader.next(rec);
        if (!s) {
            return 0;
        }
        if (*s == record_reader::step::end) {
            break;
        }
        if (*s == record_reader::step::need_input) {
            if (off == input.size()) {
                reader.finish();
                continue;
            }
            std::size_t n = std::min(stream_chunk, input.size() - off);
            reader.feed(input.substr(off, n));
            off += n;
            continue;
        }
        check(rec);
        if (!write) {
            continue;
        }
        if (!began) {
            began = true;
            if (!writer.begin(out, reader.declared_count())) {
                return 0;
            }
        }
        if (!writer.write(rec, out)) {
            return 0;
        }
        if (out.size() >= stream_chunk) {
            out.clear();
        }
    }
    if (write && ((!began && !writer.begin(out)) || !writer.end(out))) {
        return 0;
    }
    return reader.records();
}

struct no_check {
    void operator()(const document&) const {}
};

// Rows "FROM>TO/document" (decode the whole input, encode the whole Document) and
// "FROM>TO/stream" (record_reader + record_writer, 64 KiB chunks) on the same input: the
// data's records in FROM. size_bytes is the input's size; decode_* times reading the input
// alone, encode_* the whole conversion (input bytes to output bytes); both MB/s on the input
// size. Allocations: per conversion (a stream's reader and writer are made per conversion),
// and for stream rows the allocations per record in steady state, from converting the input
// once and twice over.
void conversion_rows(const document& src, const options& opt, std::vector<row>& rows) {
    if (src.root().kind() != kind::array || src.root().size() == 0) {
        std::printf("# conversions: skipped (the data is not an array of records)\n");
        return;
    }
    document doubled;  // the records twice over, for the per-record allocation count
    {
        builder b(doubled);
        b.begin_array();
        for (int k = 0; k < 2; ++k) {
            for (value v : src.root().items()) {
                b.add_copy(v);
            }
        }
        b.end_array();
    }
    const std::uint64_t n_records = src.root().size();
    struct pair {
        format_id from, to;
    };
    for (pair pr : {pair{format_id::ndjson, format_id::msgpack},
                    pair{format_id::json, format_id::ndjson}}) {
        std::string name = std::string(find_format(pr.from)->name) + ">" +
                           std::string(find_format(pr.to)->name);
        output_buffer enc_in;
        output_buffer enc_in2;
        if (!encode(pr.from, src, enc_in) || !encode(pr.from, doubled, enc_in2)) {
            std::printf("# %s: skipped (the data has no %s form)\n", name.c_str(),
                        std::string(find_format(pr.from)->name).c_str());
            continue;
        }
        std::string input = enc_in.str();
        std::string input2 = enc_in2.str();
        // Verify: the stream's records are the data's records, and its output read back (as a
        // record stream of the output format) gives them again.
        document rec;
        output_buffer out;
        std::uint64_t i = 0;
        bool same = true;
        auto items = src.root().items();
        auto it = items.begin();
        auto check = [&](const document& r) {
            same = same && it != items.end() && equal(r.root(), *it);
            if (it != items.end()) {
                ++it;
            }
            ++i;
        };
        output_buffer whole_out;
        std::string streamed;
        {
            record_reader reader(pr.from, decode_options{});
            record_writer writer(pr.to, encode_options{});
            reader.feed(input);
            reader.finish();
            (void)writer.begin(whole_out);
            for (;;) {
                auto s = reader.next(rec);
                if (!s || *s != record_reader::step::record) {
                    break;
                }
                check(rec);
                (void)writer.write(rec, whole_out);
            }
            (void)writer.end(whole_out);
            streamed = whole_out.str();
        }
        it = items.begin();
        std::uint64_t back_n = 0;
        {
            record_reader back(pr.to, decode_options{});
            back.feed(streamed);
            back.finish();
            for (;;) {
                auto s = back.next(rec);
                if (!s || *s != record_reader::step::record) {
                    break;
                }
                same = same && it != items.end() && equal(rec.root(), *it);
                if (it != items.end()) {
                    ++it;
                }
                ++back_n;
            }
        }
        if (!same || i != n_records || back_n != n_records ||
            stream_convert(pr.from, pr.to, input, rec, out, true, no_check{}) != n_records) {
            std::printf("# %s/stream: the conversion changed the data; not timed\n",
                        name.c_str());
            continue;
        }
        document doc;
        // Whole document: decode, encode.
        auto whole = [&] {
            (void)decode(pr.from, input, doc);
            out.clear();
            (void)encode(pr.to, doc, out);
        };
        auto whole_read = [&] { (void)decode(pr.from, input, doc); };
        auto stream = [&] { (void)stream_convert(pr.from, pr.to, input, rec, out, true, no_check{}); };
        auto stream_read = [&] {
            (void)stream_convert(pr.from, pr.to, input, rec, out, false, no_check{});
        };
        auto allocs = [](auto&& op) {
            op();
            auto before = alloc_count();
            const int n = 5;
            for (int k = 0; k < n; ++k) {
                op();
            }
            return static_cast<double>(alloc_count() - before) / n;
        };
        // A conversion row: one `write`, the document it holds per input byte, the allocations
        // of `write` and `read`; then (timed) their speeds.
        auto conversion_row = [&](const char* mode, auto& write, auto& read, const document& held) {
            row r;
            r.format = name + mode;
            r.size = input.size();
            r.conversion = true;
            write();
            r.doc_ratio =
                static_cast<double>(held.content_size()) / static_cast<double>(input.size());
            r.enc_allocs = allocs(write);
            r.dec_allocs = allocs(read);
            return r;
        };
        auto timed = [&](row& r, auto& write, auto& read) {
            r.enc = measure(write, opt.ms);
            r.dec = measure(read, opt.ms);
            rows.push_back(r);
        };
        row wd = conversion_row("/document", whole, whole_read, doc);
        timed(wd, whole, whole_read);

        // The Document held at a time (one record) per input byte.
        row st = conversion_row("/stream", stream, stream_read, rec);
        double twice = allocs([&] {
            (void)stream_convert(pr.from, pr.to, input2, rec, out, true, no_check{});
        });
        double per_record = (twice - st.enc_allocs) / static_cast<double>(n_records);
        std::printf("# %s/stream: %llu records; %.2f allocations per conversion (reader and "
                    "writer set-up), %.4f per record in steady state\n",
                    name.c_str(), static_cast<unsigned long long>(n_records), st.enc_allocs,
                    per_record);
        timed(st, stream, stream_read);
        std::fprintf(stderr, "bench: %s done\n", name.c_str());
    }
}

void print_header(const options& opt) {
    utsname u{};
    uname(&u);
    std::printf("# polycodec-loadtest bench\n");
    std::printf("# cpu: %s (%ld online)\n", cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("# os: %s %s %s\n", u.sysname, u.release, u.machine);
    std::printf("# compiler: %s\n", POLYCODEC_COMPILER);
    std::printf("# flags: %s\n", POLYCODEC_CXX_FLAGS);
    std::printf("# commit: %s\n", POLYCODEC_COMMIT);
    if (opt.want_conversions()) {
        std::printf("# conversion rows FROM>TO/document and FROM>TO/stream: size_bytes is the "
                    "input's size, decode_* reads the input alone, encode_* is the whole "
                    "conversion, MB/s on the input size; stream rows feed 64 KiB chunks to "
                    "record_reader and write with record_writer\n");
    }
    std::printf("# window: %d ms per measurement (5 windows, median), pin: %s\n", opt.ms,
                opt.pin >= 0 ? std::to_string(opt.pin).c_str() : "none");
}

int bench_file(const std::string& path, const options& opt) {
    bool ok = false;
    std::string json = read_file(path, ok);
    if (!ok) {
        std::fprintf(stderr, "polycodec-loadtest: cannot read %s\n", path.c_str());
        return 2;
    }
    document src;
    if (auto r = decode(format_id::json, json, src); !r) {
        std::fprintf(stderr, "polycodec-loadtest: %s: %s\n", path.c_str(),
                     describe(r.error()).c_str());
        return 2;
    }
    // {"records": [...]} for formats whose root must be a map (TOML, BSON), as the reference.
    document wrapped;
    wrap_records(src, wrapped);
    std::printf("# data: %s (%zu bytes of JSON)\n", path.c_str(), json.size());
    std::vector<row> rows;
    // One row a format, and for plist a second one of its binary form (binary=true).
    std::vector<std::pair<const format_info*, bool>> targets;
    for (const format_info& f : formats()) {
        targets.emplace_back(&f, false);
        if (f.id == format_id::plist) {
            targets.emplace_back(&f, true);
        }
    }
    for (const auto& [fp, binary_form] : targets) {
        const format_info& f = *fp;
        if (!opt.only.empty() &&
            std::find(opt.only.begin(), opt.only.end(), std::string(f.name)) == opt.only.end()) {
            continue;
        }
        if (!is_implemented(f.id)) {
            std::printf("# %s: skipped (not implemented yet)\n", std::string(f.name).c_str());
            continue;
        }
        // (A map root needs no wrapping: fixtures/bench_flat.json times properties as it is.)
        // XML: {"records": [...]} inside a <bench> root element (root=bench both ways).
        const bool xml = f.id == format_id::xml;
        const document& in =
            (f.caps.map_root_only && src.root().kind() != kind::map) || xml ? wrapped : src;
        encode_options eo;
        eo.plist_binary = binary_form;
        decode_options dopt;
        if (xml) {
            eo.xml.root = dopt.xml.root = "bench";
        }
        if (f.caps.needs_schema) {
            // postcard: the data file's schema, fixtures/schemas/<stem>.json, when it exists;
            // avro: <stem>.avsc (the records of an Object Container File).
            auto stem = path.substr(path.find_last_of('/') + 1);
            stem = stem.substr(0, stem.find('.'));
            bool schema_ok = false;
            bool is_avro = f.id == format_id::avro;
            std::string text =
                read_file(fixtures_dir() + "/schemas/" + stem + (is_avro ? ".avsc" : ".json"),
                          schema_ok);
            if (schema_ok && is_avro) {
                auto parsed = avro::parse_schema(text);
                if (parsed) {
                    eo.avro_schema = dopt.avro_schema = *parsed;
                }
            } else if (schema_ok) {
                auto parsed = postcard::parse_schema(text);
                if (parsed) {
                    eo.schema = dopt.schema = *parsed;
                }
            }
            // protobuf, protojson: fixtures/schemas/<stem>.binpb (scripts/gen_fixtures.py).
            bool desc_ok = false;
            std::string desc = read_file(fixtures_dir() + "/schemas/" + stem + ".binpb", desc_ok);
            if (desc_ok && (f.id == format_id::protobuf || f.id == format_id::protojson)) {
                if (auto pb = protobuf::parse_descriptor_set(desc)) {
                    eo.protobuf_schema = dopt.protobuf_schema = *pb;
                }
            }
        }
        output_buffer out;
        if (auto r = encode(f.id, in, out, eo); !r) {
            std::printf("# %s: skipped (%s)\n", std::string(f.name).c_str(),
                        describe(r.error()).c_str());
            continue;
        }
        std::string encoded(out.view());
        document back;
        if (auto r = decode(f.id, encoded, back, dopt); !r) {
            std::printf("# %s: skipped (%s)\n", std::string(f.name).c_str(),
                        describe(r.error()).c_str());
            continue;
        }
        // Formats that keep only text (CSV, urlform, INI, dotenv) read nested keys, numbers and
        // booleans back with unflatten and infer, as a user of the table would.
        for (int mode = 1; mode <= 2 && !f.caps.boolean && !equal(in, back); ++mode) {
            dopt.unflatten = true;
            dopt.infer = mode == 2;
            if (!decode(f.id, encoded, back, dopt)) {
                back.clear();
                break;
            }
        }
        if (back.empty() || !equal(in, back)) {
            std::printf("# %s: round trip changed the data; not timed\n",
                        std::string(f.name).c_str());
            continue;
        }
        row rw;
        rw.format = std::string(f.name) + (binary_form ? "/binary" : "");
        rw.size = encoded.size();
        rw.doc_ratio = static_cast<double>(back.content_size()) / static_cast<double>(encoded.size());
        // Steady-state allocations: after the warm-up above, buffers are at their size.
        {
            out.clear();
            (void)encode(f.id, in, out, eo);
            auto before = alloc_count();
            const int n = 20;
            for (int i = 0; i < n; ++i) {
                out.clear();
                (void)encode(f.id, in, out, eo);
            }
            rw.enc_allocs = static_cast<double>(alloc_count() - before) / n;
            (void)decode(f.id, encoded, back, dopt);
            before = alloc_count();
            for (int i = 0; i < n; ++i) {
                (void)decode(f.id, encoded, back, dopt);
            }
            rw.dec_allocs = static_cast<double>(alloc_count() - before) / n;
        }
        rw.enc = measure([&] {
            out.clear();
            (void)encode(f.id, in, out, eo);
        }, opt.ms);
        rw.dec = measure([&] { (void)decode(f.id, encoded, back, dopt); }, opt.ms);
        rows.push_back(rw);
        std::fprintf(stderr, "bench: %s done\n", rw.format.c_str());
    }
    if (opt.want_conversions()) {
        conversion_rows(src, opt, rows);
    }
    // "fastest" among the format rows, and among the conversion rows.
    double best_enc[2] = {0, 0};
    double best_dec[2] = {0, 0};
    for (const row& r : rows) {
        double& be = best_enc[r.conversion ? 1 : 0];
        double& bd = best_dec[r.conversion ? 1 : 0];
        be = std::max(be, r.enc.ops_per_s * static_cast<double>(r.size));
        bd = std::max(bd, r.dec.ops_per_s * static_cast<double>(r.size));
    }
    std::printf("format,size_bytes,encode_ops,encode_MBps,decode_ops,decode_MBps");
    if (opt.stats) {
        for (const char* p : {"encode", "decode"}) {
            std::printf(",%s_median_ns,%s_mean_ns,%s_stddev_ns,%s_p99_ns,%s_min_ns,%s_max_ns,"
                        "%s_vs_fastest",
                        p, p, p, p, p, p, p);
        }
        std::printf(",doc_bytes_per_byte,encode_allocs_per_op,decode_allocs_per_op");
    }
    std::printf("\n");
    for (const row& r : rows) {
        double enc_mbps = r.enc.ops_per_s * static_cast<double>(r.size) / 1e6;
        double dec_mbps = r.dec.ops_per_s * static_cast<double>(r.size) / 1e6;
        std::printf("%s,%zu,%.0f,%.1f,%.0f,%.1f", r.format.c_str(), r.size, r.enc.ops_per_s,
                    enc_mbps, r.dec.ops_per_s, dec_mbps);
        if (opt.stats) {
            for (const auto* s : {&r.enc, &r.dec}) {
                double mbps = s->ops_per_s * static_cast<double>(r.size);
                double best = (s == &r.enc ? best_enc : best_dec)[r.conversion ? 1 : 0];
                double factor = mbps > 0 ? best / mbps : 0.0;
                std::printf(",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,", s->median, s->mean, s->stddev,
                            s->p99, s->min, s->max);
                if (factor < 1.005) {
                    std::printf("fastest");
                } else {
                    std::printf("%.2fx slower", factor);
                }
            }
            std::printf(",%.2f,%.2f,%.2f", r.doc_ratio, r.enc_allocs, r.dec_allocs);
        }
        std::printf("\n");
    }
    std::fflush(stdout);
    return 0;
}

}  // namespace

int run_bench(int argc, char** argv) {
    options opt;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&] { return option_value(argc, argv, i, "polycodec-loadtest"); };
        if (a == "--data") {
            opt.data.push_back(value());
        } else if (a == "--ms") {
            opt.ms = std::max(1, std::atoi(value().c_str()));
        } else if (a == "--stats") {
            opt.stats = true;
        } else if (a == "--pin") {
            opt.pin = std::atoi(value().c_str());
        } else if (a == "--no-stream") {
            opt.conversions = false;
        } else if (a == "--formats") {
            std::string list = value();
            if (list != "all") {
                std::size_t p = 0;
                while (p <= list.size()) {
                    auto c = list.find(',', p);
                    opt.only.push_back(list.substr(p, c - p));
                    if (c == std::string::npos) {
                        break;
                    }
                    p = c + 1;
                }
            }
        } else {
            std::fprintf(stderr, "polycodec-loadtest bench: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    if (opt.data.empty()) {
        opt.data = {fixtures_dir() + "/bench.json",
                    fixtures_dir() + "/records.json"};
    }
    if (opt.pin >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(opt.pin, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            std::perror("polycodec-loadtest: sched_setaffinity");
            return 2;
        }
    }
    print_header(opt);
    for (const auto& d : opt.data) {
        if (int rc = bench_file(d, opt); rc != 0) {
            return rc;
        }
    }
    return 0;
}

}  // namespace polycodec::loadtest
