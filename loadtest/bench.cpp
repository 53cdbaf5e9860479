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
#include "polycodec/formats/postcard.hpp"
#include "polycodec/polycodec.hpp"

namespace polycodec::loadtest {
namespace {

struct options {
    std::vector<std::string> data;
    int ms = 2000;
    bool stats = false;
    int pin = -1;
    std::vector<std::string> only;
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
};

void print_header(const options& opt) {
    utsname u{};
    uname(&u);
    std::printf("# polycodec-loadtest bench\n");
    std::printf("# cpu: %s (%ld online)\n", cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("# os: %s %s %s\n", u.sysname, u.release, u.machine);
    std::printf("# compiler: %s\n", POLYCODEC_COMPILER);
    std::printf("# flags: %s\n", POLYCODEC_CXX_FLAGS);
    std::printf("# commit: %s\n", POLYCODEC_COMMIT);
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
    for (const format_info& f : formats()) {
        if (!opt.only.empty() &&
            std::find(opt.only.begin(), opt.only.end(), std::string(f.name)) == opt.only.end()) {
            continue;
        }
        if (!is_implemented(f.id)) {
            std::printf("# %s: skipped (not implemented yet)\n", std::string(f.name).c_str());
            continue;
        }
        const document& in = f.caps.map_root_only ? wrapped : src;
        encode_options eo;
        decode_options dopt;
        if (f.caps.needs_schema) {
            // postcard: the data file's schema, fixtures/schemas/<stem>.json, when it exists.
            auto stem = path.substr(path.find_last_of('/') + 1);
            stem = stem.substr(0, stem.find('.'));
            bool schema_ok = false;
            std::string text =
                read_file(std::string(POLYCODEC_FIXTURES_DIR) + "/schemas/" + stem + ".json",
                          schema_ok);
            if (schema_ok) {
                auto parsed = postcard::parse_schema(text);
                if (parsed) {
                    eo.schema = dopt.schema = *parsed;
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
        rw.format = std::string(f.name);
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
    double best_enc = 0;
    double best_dec = 0;
    for (const row& r : rows) {
        best_enc = std::max(best_enc, r.enc.ops_per_s * static_cast<double>(r.size));
        best_dec = std::max(best_dec, r.dec.ops_per_s * static_cast<double>(r.size));
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
                double best = s == &r.enc ? best_enc : best_dec;
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
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "polycodec-loadtest: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--data") {
            opt.data.push_back(value());
        } else if (a == "--ms") {
            opt.ms = std::max(1, std::atoi(value().c_str()));
        } else if (a == "--stats") {
            opt.stats = true;
        } else if (a == "--pin") {
            opt.pin = std::atoi(value().c_str());
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
        opt.data = {std::string(POLYCODEC_FIXTURES_DIR) + "/bench.json",
                    std::string(POLYCODEC_FIXTURES_DIR) + "/records.json"};
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
