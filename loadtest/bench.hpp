#pragma once
// `polycodec-loadtest bench`: the in-process benchmark table of DESIGN section 8.

namespace polycodec::loadtest {

/// Times every implemented format's encode and decode on the fixtures (or --data files) and
/// prints the CSV table. Returns the exit code.
int run_bench(int argc, char** argv);

}  // namespace polycodec::loadtest
