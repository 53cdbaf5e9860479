#pragma once
// The build's version and commit: server/CMakeLists.txt defines both from the project version
// and `git describe`; a build without them (a tool compiling one file) says so plainly.

#ifndef POLYCODEC_VERSION
#define POLYCODEC_VERSION "0.0.0"
#endif
#ifndef POLYCODEC_COMMIT
#define POLYCODEC_COMMIT "unknown"
#endif
