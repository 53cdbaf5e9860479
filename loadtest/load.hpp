#pragma once
// `polycodec-loadtest http` and `tcp`: closed-loop load against a running server.

namespace polycodec::loadtest {

/// Runs the load rows against --target; returns 0 when every answer was correct.
int run_load(bool http, int argc, char** argv);

}  // namespace polycodec::loadtest
