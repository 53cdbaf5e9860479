#pragma once
// `polycodec-loadtest peers`: the codec against RapidJSON, nlohmann/json, simdjson's DOM,
// msgpack-cxx, libcbor, libbson, libyaml, yaml-cpp and toml++ in one process.

namespace polycodec::loadtest {

int run_peers(int argc, char** argv);

}  // namespace polycodec::loadtest
