#!/usr/bin/env bash
# Installs what the build and the tests need and is missing: Debian packages (apt) and the
# npm reference implementations of the differential tests. Says what it installs.
#   scripts/deps.sh           build + test dependencies
#   scripts/deps.sh --build   build dependencies only
#   scripts/deps.sh --external  also the peers of loadtest/external/run (Jackson's CBOR
#                               module and databind, Debian's Rust serde crates; not tests)
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(
    cmake ninja-build g++ clang-14 libclang-rt-14-dev ccache pkg-config git
    dpkg-dev file  # cpack -G DEB: dpkg-shlibdeps computes the runtime Depends
    libexpected-dev libsimdjson-dev libyaml-dev libtomlplusplus-dev libexpat1-dev
    libboost-dev libspdlog-dev libfmt-dev prometheus-cpp-dev libssl-dev
    libgtest-dev libgmock-dev
    libisal-dev libbrotli-dev libzstd-dev zlib1g-dev libsnappy-dev
    libprotobuf-dev libprotoc-dev  # .proto schemas (server/proto_compiler.cpp), the peers row
    rapidjson-dev nlohmann-json3-dev libmsgpack-cxx-dev libcbor-dev libbson-dev libyaml-cpp-dev
    libfyaml-dev  # the YAML decoder's test oracle (tests/codec/yaml_oracle_test.cpp, fuzz_diff_yaml)
)
test_pkgs=(
    python3 python3-yaml python3-msgpack python3-cbor2 python3-xmltodict python3-avro
    python3-zstandard python3-snappy curl prometheus openssl
    libfyaml-utils  # fy-tool, libfyaml's command line (YAML oracle by hand)
    zstd brotli
    guile-3.0
    cargo librust-ron-dev librust-serde-json-dev
    openjdk-17-jdk-headless libjackson2-dataformat-smile
    python3-protobuf protobuf-compiler  # test_protobuf.py: libprotobuf as the reference
)
# loadtest/external/run only (not the test command).
external_pkgs=(
    openjdk-17-jdk-headless libjackson2-dataformat-smile libjackson2-dataformat-cbor
    libjackson2-databind-java
    cargo librust-serde-json-dev librust-rmp-serde-dev librust-serde-cbor-dev librust-csv-dev
    librust-ron-dev librust-toml-dev librust-serde-yaml-dev
)

want=("${build_pkgs[@]}")
if [[ "${1:-}" != "--build" ]]; then
    want+=("${test_pkgs[@]}")
fi
if [[ "${1:-}" == "--external" ]]; then
    want+=("${external_pkgs[@]}")
fi

# Node.js may come from Debian (nodejs + npm) or another build that bundles npm.
if [[ "${1:-}" != "--build" ]] && ! command -v npm >/dev/null; then
    want+=(nodejs npm)
fi

missing=()
for p in "${want[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "deps: installing Debian packages: ${missing[*]}"
    sudo_cmd=()
    if [[ $(id -u) -ne 0 ]]; then
        sudo_cmd=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "deps: all Debian packages present"
fi

if [[ "${1:-}" != "--build" ]]; then
    # The npm reference implementations, pinned by tests/differential/package-lock.json.
    lock=tests/differential/package-lock.json
    stamp=tests/differential/node_modules/.polycodec-stamp
    if [[ ! -f $stamp ]] || ! cmp -s "$lock" "$stamp"; then
        echo "deps: installing npm packages for the differential tests"
        # npm ci rejects this lock (npm 11 lists cbor-x's optional platform packages as
        # missing); npm install with --no-save installs the same pinned versions.
        (cd tests/differential && npm install --no-save --no-audit --no-fund --loglevel=error >/dev/null)
        cp "$lock" "$stamp"
    else
        echo "deps: npm packages present"
    fi
fi
