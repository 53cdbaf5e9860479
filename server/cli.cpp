#include "cli.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include "polycodec/polycodec.hpp"
#include "schema_loader.hpp"

namespace polycodec::cli {
namespace {

#ifndef POLYCODEC_VERSION
#define POLYCODEC_VERSION "0.0.0"
#endif
#ifndef POLYCODEC_COMMIT
#define POLYCODEC_COMMIT "unknown"
#endif

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

}  // namespace

const char* usage() {
    return "usage:\n"
           "  polycodec serve [--http-port 8080] [--tcp-port 9090] [--threads N] [--max-body 64MiB]\n"
           "                  [--schema-dir DIR] [--log-level info] [--log-format text|json]\n"
           "  polycodec convert --from F --to G [--pretty] [--lossy] [--canonical] [--multi]\n"
           "                  [--schema FILE] [--header absent] [--delimiter C] [--infer]\n"
           "                  [--unflatten] [IN [OUT]]\n"
           "  polycodec formats\n"
           "  polycodec --version\n"
           "\n"
           "F and G are a format name (json, cbor ...), a media type with parameters\n"
           "('text/csv; header=absent') or NAME;param=value ('csv;header=absent'); by default\n"
           "they come from the file extensions. IN and OUT default to standard input and output.\n"
           "Exit codes: 0 ok, 2 malformed input or usage, 3 not representable in the target.\n";
}

int run_version() {
    std::printf("polycodec %s (commit %s)\n", POLYCODEC_VERSION, POLYCODEC_COMMIT);
    return exit_ok;
}

int run_formats(int argc, char** argv) {
    if (argc > 0) {
        return usage_error("formats takes no arguments");
    }
    (void)argv;
    std::printf("%-3s %-9s %-12s %-44s %s\n", "id", "name", "status", "media types",
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
        std::printf("%-3d %-9.*s %-12s %-44s %s\n", static_cast<int>(f.id),
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
    std::vector<std::string> positional;
    // Flags whose value follows, and how each maps onto apply_option.
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
        if (name == "from" || name == "to" || name == "schema" || name == "header" ||
            name == "delimiter") {
            if (!take_value()) {
                return usage_error("--" + std::string(name) + " needs a value");
            }
            if (name == "from") {
                from_spec = value;
            } else if (name == "to") {
                to_spec = value;
            } else if (name == "schema") {
                schema_file = value;
            } else if (auto r = apply_option(name, value, opt); !r) {
                return usage_error(r.error().message);
            }
        } else if (name == "pretty" || name == "lossy" || name == "canonical" || name == "multi" ||
                   name == "infer" || name == "unflatten") {
            if (auto r = apply_option(name, has_value ? value : "true", opt); !r) {
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

    std::string input;
    if (!read_file(in_path, input)) {
        return usage_error("cannot read " + in_path + ": " + std::strerror(errno));
    }
    document doc;
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
    lossy_report report;
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
