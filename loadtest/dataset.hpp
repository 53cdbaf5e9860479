#pragma once
// The benchmark dataset as every load-test tool reads it (DESIGN section 8): the file's bytes,
// and the {"records": [...]} wrapping for formats whose root must be a map (TOML, BSON).

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

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

/// `wrapped` becomes {"records": <src's root>}, a copy.
inline void wrap_records(const document& src, document& wrapped) {
    builder b(wrapped);
    b.begin_map();
    b.add_string("records");
    b.add_copy(src.root());
    b.end_map();
}

}  // namespace polycodec::loadtest
