#pragma once
// The command-line front ends of DESIGN section 7. Each returns the process exit code:
// 0 ok, 2 malformed input or usage, 3 not representable.

namespace polycodec::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 2;  ///< also malformed input
inline constexpr int exit_unrepresentable = 3;

const char* usage();
int run_convert(int argc, char** argv);
int run_formats(int argc, char** argv);
int run_version();
/// `polycodec openapi`: prints the document GET /openapi.json serves (server/http/openapi.cpp).
int run_openapi(int argc, char** argv);
/// `polycodec serve` (server/serve.cpp).
int run_serve(int argc, char** argv);

}  // namespace polycodec::cli
