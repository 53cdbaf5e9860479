#pragma once
// The benchmark dataset as every load-test tool reads it (DESIGN section 8): the file's bytes,
// and the {"records": [...]} wrapping for formats whose root must be a map (TOML, BSON).

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "polycodec/polycodec.hpp"

namespace polycodec::loadtest {

#if defined(POLYCODEC_FIXTURES_DIR) && defined(POLYCODEC_INSTALL_DATADIR)
/// Where the default data (records.json, bench.json, schemas/) is read from: the installed
/// copy beside the binary (<prefix>/bin/../share/polycodec/fixtures, from the package) when
/// there is one, else the source tree's fixtures/ (a binary in its build tree). Defined where
/// loadtest/CMakeLists.txt passes both directories (polycodec-loadtest).
inline const std::string& fixtures_dir() {
    static const std::string dir = [] {
        std::error_code ec;
        auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
        if (!ec) {
            auto installed = exe.parent_path().parent_path() / POLYCODEC_INSTALL_DATADIR /
                             "polycodec" / "fixtures";
            if (std::filesystem::is_regular_file(installed / "records.json", ec)) {
                return installed.string();
            }
        }
        return std::string(POLYCODEC_FIXTURES_DIR);
    }();
    return dir;
}
#endif

/// The whole file; `ok` is false when it cannot be opened (the result is then empty).
inline std::string read_file(const std::string& path, bool& ok) {
    std::ifstream f(path, std::ios::binary);
    ok = static_cast<bool>(f);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// The whole file, or "" when it cannot be opened (the JSON decode that follows then fails).
inline std::string read_file(const std::string& path) {
    bool ok = false;
    return read_file(path, ok);
}

/// Splits `--target HOST:PORT` ("[::1]:8080" too) into host and port; "" when it is fine,
/// else the usage error to print.
inline std::string split_target(const std::string& target, std::string& host, std::string& port) {
    if (target.empty()) {
        return "--target HOST:PORT is required";
    }
    auto colon = target.rfind(':');
    if (colon == std::string::npos) {
        return "--target must be HOST:PORT";
    }
    host = target.substr(0, colon);
    port = target.substr(colon + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    return {};
}

/// The checks of a load run's --target and --duration: "" when both are fine, else the usage
/// error to print (host and port are set from the target).
inline std::string check_target_and_duration(const std::string& target, std::string& host,
                                             std::string& port, double duration_s) {
    if (std::string bad = split_target(target, host, port); !bad.empty()) {
        return bad;
    }
    if (duration_s <= 0 || duration_s > 3600) {
        return "--duration must be between 0 and 1 hour";
    }
    return {};
}

/// A --duration value in seconds: "500ms", "2m", "30s" or bare seconds.
inline double parse_duration(const std::string& s) {
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string unit = end ? end : "";
    if (unit == "ms") {
        return v / 1000;
    }
    if (unit == "m") {
        return v * 60;
    }
    return v;  // "s" or bare seconds
}

/// Sets the field of `opt` that option `a` names: a string option of `texts` to value(), a flag
/// of `flags` to true. False when neither lists `a`.
template <class Opt, std::size_t T, std::size_t F, class Value>
bool set_listed_option(Opt& opt, std::string_view a, Value&& value,
                       const std::pair<std::string_view, std::string Opt::*> (&texts)[T],
                       const std::pair<std::string_view, bool Opt::*> (&flags)[F]) {
    for (const auto& [name, field] : texts) {
        if (a == name) {
            opt.*field = value();
            return true;
        }
    }
    for (const auto& [name, field] : flags) {
        if (a == name) {
            opt.*field = true;
            return true;
        }
    }
    return false;
}

/// The value of option argv[i] (argv[i + 1], i moves onto it); without one, prints
/// "TOOL: OPTION needs a value" and exits with status 2.
inline std::string option_value(int argc, char** argv, int& i, const char* tool) {
    if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", tool, argv[i]);
        std::exit(2);
    }
    return argv[++i];
}

/// `wrapped` becomes {"records": <src's root>}, a copy.
inline void wrap_records(const document& src, document& wrapped) {
    builder b(wrapped);
    b.begin_map();
    b.add_string("records");
    b.add_copy(src.root());
    b.end_map();
}

/// The callgrind drivers' data (cg_driver.cpp, cg_peer_*.cpp): FILE.json decoded into `src`
/// and wrapped as {"records": [...]} into `wrapped`, as bench and peers do. False, after a
/// message, when FILE does not decode.
inline bool load_bench_data(const char* path, document& src, document& wrapped) {
    if (!decode(format_id::json, read_file(path), src)) {
        std::fprintf(stderr, "cannot decode %s\n", path);
        return false;
    }
    wrap_records(src, wrapped);
    return true;
}

/// `doc` encoded as `f` into `bytes` (the bytes a peer decodes). False, after a message naming
/// FILE `path`, when it does not encode.
inline bool encode_bench_data(format_id f, const document& doc, const char* path,
                              std::string& bytes) {
    output_buffer out;
    if (!encode(f, doc, out)) {
        std::fprintf(stderr, "cannot encode %s as %s\n", path, std::string(to_string(f)).c_str());
        return false;
    }
    bytes = std::string(out.view());
    return true;
}

/// What a callgrind peer driver (cg_peer_*.cpp) runs on: `OP FILE.json N` from its command
/// line, FILE decoded and wrapped as bench does, and our bytes of it in the peer's format.
struct cg_peer_input {
    std::string op;  ///< "encode" or "decode"
    long n = 0;
    document src;
    document wrapped;   ///< {"records": [...]}
    std::string bytes;  ///< `wrapped` (or `src` when not `wrap`) in the peer's format
};

/// Fills `in` from the command line: 0 when it is ready, else the exit status after a message
/// (2 for a usage error, `usage` being the line to print; 1 when FILE does not convert).
inline int read_cg_peer_input(int argc, char** argv, const char* usage, bool decode_only,
                              format_id f, bool wrap, cg_peer_input& in) {
    if (argc != 4 || (decode_only && std::string(argv[1]) != "decode")) {
        std::fprintf(stderr, "usage: %s\n", usage);
        return 2;
    }
    in.op = argv[1];
    in.n = std::atol(argv[3]);
    if (!load_bench_data(argv[2], in.src, in.wrapped) ||
        !encode_bench_data(f, wrap ? in.wrapped : in.src, argv[2], in.bytes)) {
        return 1;
    }
    return 0;
}

}  // namespace polycodec::loadtest
