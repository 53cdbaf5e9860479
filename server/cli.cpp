#include "cli.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>

#include "config.hpp"
#include "http/openapi.hpp"
#include "polycodec/polycodec.hpp"
#include "schema_loader.hpp"
#include "version.hpp"

namespace polycodec::cli {
namespace {

int usage_error(const std::string& msg) {
    std::fprintf(stderr, "polycodec: %s\n(see polycodec --help)\n", msg.c_str());
    return exit_usage;
}

// Exit code of a codec error: 3 for values with no form in the target, 2 for everything else.
int exit_code_of(const error& e) {
    return e.code == errc::unrepresentable ? exit_unrepresentable : exit_usage;
}

// Reads the rest of `f` into `out`. A regular file is read into one allocation of its size
// (fstat), so a large input is neither copied nor over-allocated while it is read; what is
// left then (a pipe, a terminal, a file that grew meanwhile) is appended in 64 KiB blocks.
bool read_all(std::FILE* f, std::string& out) {
    struct stat st {};
    if (::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        const long at = std::ftell(f);
        const auto size = static_cast<std::size_t>(st.st_size);
        const std::size_t done = at > 0 ? static_cast<std::size_t>(at) : 0;
        if (size > done) {
            const std::size_t base = out.size();
            out.resize(base + (size - done));
            out.resize(base + std::fread(out.data() + base, 1, size - done, f));
        }
    }
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        out.append(buf, n);
    }
    return std::ferror(f) == 0;
}

bool read_file(const std::string& path, std::string& out) {
    if (path == "-") {
        return read_all(stdin, out);
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        return false;
    }
    bool ok = read_all(f, out);
    std::fclose(f);
    return ok;
}

void print_lossy(lossy_report& report) {
    for (const lossy_event& ev : report) {
        std::fprintf(stderr, "polycodec: lossy: %s: %.*s (%s)\n",
                     ev.path.empty() ? "(root)" : ev.path.c_str(),
                     static_cast<int>(ev.kind.size()), ev.kind.data(), ev.detail.c_str());
    }
    report.clear();
}

int stream_error(const error& e) {
    std::fprintf(stderr, "polycodec: %s\n", describe(e).c_str());
    // A record over --max-record is a size error of the input (HTTP 413): exit 2 like other
    // input errors; a value the output cannot hold is 3.
    return exit_code_of(e);
}

// convert --stream (DESIGN section 12): reads the input in chunks and writes records as they
// are converted, so memory stays bounded by the longest record whatever the input size.
int run_stream(const format_info& from, const format_info& to, transcode_options& opt,
               const std::string& in_path, const std::string& out_path, std::size_t max_record) {
    for (const format_info* f : {&from, &to}) {
        if (!is_streamable(f->id)) {
            std::fprintf(stderr,
                         "polycodec: %.*s is not streamable (--stream reads and writes ndjson, "
                         "json, csv, yaml, cbor, msgpack and bson)\n",
                         static_cast<int>(f->name.size()), f->name.data());
            return exit_unrepresentable;
        }
    }
    std::FILE* in = in_path == "-" ? stdin : std::fopen(in_path.c_str(), "rb");
    if (in == nullptr) {
        return usage_error("cannot read " + in_path + ": " + std::strerror(errno));
    }
    std::FILE* out = out_path == "-" ? stdout : std::fopen(out_path.c_str(), "wb");
    if (out == nullptr) {
        if (in != stdin) {
            std::fclose(in);
        }
        return usage_error("cannot write " + out_path + ": " + std::strerror(errno));
    }
    struct closer {
        std::FILE* in;
        std::FILE* out;
        ~closer() {
            if (in != stdin) {
                std::fclose(in);
            }
            if (out != stdout) {
                std::fclose(out);
            } else {
                std::fflush(stdout);
            }
        }
    } files{in, out};
    struct stat st {};
    // A MessagePack array's count goes in its header: a regular output file is patched at the
    // end; a pipe gets concatenated values (docs/formats/msgpack.md).
    bool seekable = fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode) &&
                    (fcntl(fileno(out), F_GETFL) & O_APPEND) == 0 && std::ftell(out) == 0;

    lossy_report report;
    opt.encode.report = &report;
    record_reader reader(from.id, opt.decode, max_record);
    record_writer writer(to.id, opt.encode);
    document rec;
    output_buffer buf;
    bool began = false;
    constexpr std::size_t flush_at = std::size_t{1} << 20;
    auto flush = [&]() -> bool {
        if (buf.size() != 0 && std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) {
            return false;
        }
        buf.clear();
        return true;
    };
    auto begin = [&]() -> result<void> {
        began = true;
        return writer.begin(buf, reader.declared_count(), seekable && to.id == format_id::msgpack);
    };
    std::vector<char> chunk(std::size_t{1} << 20);
    bool input_done = false;
    for (;;) {
        auto s = reader.next(rec);
        if (!s) {
            flush();
            return stream_error(s.error());
        }
        if (*s == record_reader::step::end) {
            break;
        }
        if (*s == record_reader::step::need_input) {
            if (input_done) {
                break;  // the reader reports a cut record itself; not reached
            }
            std::size_t n = std::fread(chunk.data(), 1, chunk.size(), in);
            if (n != 0) {
                reader.feed({chunk.data(), n});
            }
            if (n < chunk.size()) {
                if (std::ferror(in)) {
                    return usage_error("cannot read " + in_path + ": " + std::strerror(errno));
                }
                if (std::feof(in)) {
                    reader.finish();
                    input_done = true;
                }
            }
            continue;
        }
        if (!began) {
            if (auto r = begin(); !r) {
                return stream_error(r.error());
            }
        }
        if (auto r = writer.write(rec, buf); !r) {
            flush();
            return stream_error(r.error());
        }
        if (!report.empty()) {
            print_lossy(report);
        }
        if (buf.size() >= flush_at && !flush()) {
            return usage_error("cannot write " + out_path + ": " + std::strerror(errno));
        }
    }
    if (!began) {
        if (auto r = begin(); !r) {
            return stream_error(r.error());
        }
    }
    if (auto r = writer.end(buf); !r) {
        flush();
        return stream_error(r.error());
    }
    if (!flush()) {
        return usage_error("cannot write " + out_path + ": " + std::strerror(errno));
    }
    if (auto p = writer.count_patch()) {
        if (std::fseek(out, static_cast<long>(p->at), SEEK_SET) != 0 ||
            std::fwrite(p->bytes, 1, 4, out) != 4) {
            return usage_error("cannot write " + out_path + ": " + std::strerror(errno));
        }
    }
    if (std::fflush(out) != 0) {
        return usage_error("cannot write " + out_path + ": " + std::strerror(errno));
    }
    return exit_ok;
}

}  // namespace

const char* usage() {
    return "usage:\n"
           "  polycodec serve [--http-port 8080] [--tcp-port 9090] [--threads N] [--max-body 64MiB]\n"
           "                  [--memory-budget SIZE] [--schema-dir DIR] [--log-level info]\n"
           "                  [--log-format text|json]   (polycodec serve --help: every flag)\n"
           "  polycodec convert --from F --to G [--pretty] [--lossy] [--canonical] [--multi]\n"
           "                  [--schema FILE] [--header absent] [--delimiter C] [--infer]\n"
           "                  [--unflatten] [--strict=false] [--extjson canonical|relaxed]\n"
           "                  [--int-width keep] [--binary] [--ordered] [--force-list A,B]\n"
           "                  [--attr-prefix P] [--text-key K] [--namespaces expand] [--root NAME]\n"
           "                  [--stream [--seq] [--max-record 16MiB]] [IN [OUT]]\n"
           "  polycodec formats\n"
           "  polycodec openapi   (the OpenAPI 3.1 document of GET /openapi.json)\n"
           "  polycodec --version\n"
           "\n"
           "F and G are a format name (json, cbor ...), a media type with parameters\n"
           "('text/csv; header=absent') or NAME;param=value ('csv;header=absent'); by default\n"
           "they come from the file extensions. IN and OUT default to standard input and output.\n"
           "--stream converts record by record in bounded memory (ndjson, json arrays, csv,\n"
           "yaml sequences, cbor, msgpack, bson; --seq: json-seq, cbor-seq, concatenated msgpack).\n"
           "Exit codes: 0 ok, 2 malformed input or usage, 3 not representable in the target.\n";
}

int run_version() {
    std::printf("polycodec %s (commit %s)\n", POLYCODEC_VERSION, POLYCODEC_COMMIT);
    return exit_ok;
}

int run_openapi(int argc, char** argv) {
    if (argc > 0) {
        return usage_error("openapi takes no arguments");
    }
    (void)argv;
    const std::string& doc = server::http::openapi_document();
    if (doc.empty()) {
        std::fputs("polycodec openapi: the document could not be built\n", stderr);
        return exit_usage;
    }
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    return exit_ok;
}

int run_formats(int argc, char** argv) {
    if (argc > 0) {
        return usage_error("formats takes no arguments");
    }
    (void)argv;
    std::printf("%-3s %-10s %-12s %-44s %s\n", "id", "name", "status", "media types",
                "extensions");
    for (const format_info& f : formats()) {
        std::string types;
        for (auto t : f.media_types) {
            types += types.empty() ? "" : ", ";
            types += t;
        }
        std::string exts;
        for (auto e : f.extensions) {
            exts += exts.empty() ? "" : " ";
            exts += e;
        }
        std::printf("%-3d %-10.*s %-12s %-44s %s\n", static_cast<int>(f.id),
                    static_cast<int>(f.name.size()), f.name.data(),
                    is_implemented(f.id) ? "ready" : "not yet", types.c_str(), exts.c_str());
    }
    return exit_ok;
}

int run_convert(int argc, char** argv) {
    transcode_options opt;
    std::string from_spec;
    std::string to_spec;
    std::string schema_file;
    std::string reader_schema_file;
    std::vector<std::string> positional;
    std::size_t max_record = default_max_record;
    // Flags: --max-record here, every other one a row of the option table.
    for (int i = 0; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--") {
            for (++i; i < argc; ++i) {
                positional.emplace_back(argv[i]);
            }
            break;
        }
        if (a.size() < 2 || a.substr(0, 2) != "--") {
            positional.emplace_back(a);
            continue;
        }
        std::string_view name = a.substr(2);
        std::string_view value;
        bool has_value = false;
        if (auto eq = name.find('='); eq != std::string_view::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            has_value = true;
        }
        auto take_value = [&]() -> bool {
            if (has_value) {
                return true;
            }
            if (i + 1 >= argc) {
                return false;
            }
            value = argv[++i];
            return true;
        };
        if (name == "int-width") {
            name = "int_width";  // the flag spelling of the int_width option
        }
        if (name == "max-record") {
            if (!take_value()) {
                return usage_error("--max-record needs a value");
            }
            auto sz = server::parse_size(value);
            if (!sz || *sz == 0) {
                return usage_error("--max-record: expected a size such as 16MiB");
            }
            max_record = *sz;
            continue;
        }
        // Every other flag is a row of the option table (the one the HTTP query and
        // /openapi.json read). A row that accepts "true" is a switch (--pretty, --lossy);
        // the others take a value (--header absent). --from, --to and --schema are kept
        // here: they are resolved after the loop, and --schema names a file.
        // --force-list and --force_list alike: the table's names use '_'.
        std::string table_name(name);
        std::replace(table_name.begin(), table_name.end(), '-', '_');
        const option_info* o = find_option(table_name);
        if (o != nullptr && name != "help") {
            bool is_switch = o->kind == option_kind::boolean ||
                             std::find(o->values.begin(), o->values.end(), "true") !=
                                 o->values.end();
            if (!is_switch && !take_value()) {
                return usage_error("--" + std::string(name) + " needs a value");
            }
            if (o->name == "from") {
                from_spec = value;
            } else if (o->name == "to") {
                to_spec = value;
            } else if (o->name == "schema") {
                schema_file = value;
            } else if (o->name == "reader_schema") {
                reader_schema_file = value;
            } else if (auto r = apply_option(table_name, is_switch && !has_value ? "true" : value,
                                             opt);
                       !r) {
                return usage_error(r.error().message);
            }
        } else if (name == "help") {
            std::fputs(usage(), stdout);
            return exit_ok;
        } else {
            return usage_error("unknown flag --" + std::string(name));
        }
    }
    if (positional.size() > 2) {
        return usage_error("convert takes at most two files, IN and OUT");
    }
    std::string in_path = positional.size() > 0 ? positional[0] : "-";
    std::string out_path = positional.size() > 1 ? positional[1] : "-";

    auto resolve = [&](const std::string& spec, const std::string& path,
                       const char* which) -> result<const format_info*> {
        if (!spec.empty()) {
            return resolve_format_spec(spec, opt);
        }
        if (path != "-") {
            if (const format_info* f = find_format_by_path(path)) {
                std::string_view p = path;
                if (p.size() >= 4 && p.substr(p.size() - 4) == ".tsv") {
                    opt.decode.csv_tab = opt.encode.csv_tab = true;
                }
                return f;
            }
        }
        return fail(make_error(errc::unsupported_format,
                               std::string("cannot tell the ") + which + " format: give --" +
                                   which + " (the file name has no known extension)"));
    };
    auto from = resolve(from_spec, in_path, "from");
    if (!from) {
        return usage_error(from.error().message);
    }
    auto to = resolve(to_spec, out_path, "to");
    if (!to) {
        return usage_error(to.error().message);
    }
    if (!schema_file.empty()) {
        auto s = load_schema_file(schema_file, opt);
        if (!s) {
            return usage_error(s.error().message);
        }
    }
    if (!reader_schema_file.empty()) {
        auto s = load_reader_schema_file(reader_schema_file, opt);
        if (!s) {
            return usage_error(s.error().message);
        }
    }

    if (opt.stream) {
        return run_stream(**from, **to, opt, in_path, out_path, max_record);
    }

    std::string input;
    if (!read_file(in_path, input)) {
        return usage_error("cannot read " + in_path + ": " + std::strerror(errno));
    }
    document doc;
    lossy_report report;  // the decoder's fallbacks (xml under --lossy), then the encoder's
    opt.decode.report = &report;
    if (auto r = decode((*from)->id, input, doc, opt.decode); !r) {
        std::fprintf(stderr, "polycodec: %s\n", describe(r.error()).c_str());
        return exit_code_of(r.error());
    }
    // The Document holds copies of everything it needs: give the input back before the
    // output grows, and reserve the output at about the input's size (pages not written stay
    // unused), so neither is copied while it doubles (docs/BENCHMARKS.md, whole-document memory).
    const std::size_t input_size = input.size();
    std::string().swap(input);
    output_buffer out;
    out.reserve(input_size + input_size / 8 + 4096);
    opt.encode.report = &report;
    if (auto r = encode((*to)->id, doc, out, opt.encode); !r) {
        std::fprintf(stderr, "polycodec: %s\n", describe(r.error()).c_str());
        return exit_code_of(r.error());
    }
    for (const lossy_event& ev : report) {
        std::fprintf(stderr, "polycodec: lossy: %s: %.*s (%s)\n",
                     ev.path.empty() ? "(root)" : ev.path.c_str(),
                     static_cast<int>(ev.kind.size()), ev.kind.data(), ev.detail.c_str());
    }
    if (out_path == "-") {
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fflush(stdout);
    } else {
        std::ofstream f(out_path, std::ios::binary);
        f.write(out.data(), static_cast<std::streamsize>(out.size()));
        if (!f) {
            return usage_error("cannot write " + out_path);
        }
    }
    return exit_ok;
}

}  // namespace polycodec::cli
