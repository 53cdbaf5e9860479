#!/usr/bin/env bash
# Installs what the build and the tests need and is missing: Debian packages (apt) and the
# npm reference implementations of the differential tests. Says what it installs.
#   scripts/deps.sh           build + test dependencies
#   scripts/deps.sh --build   build dependencies only
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(
    cmake ninja-build g++ clang-14 libclang-rt-14-dev ccache pkg-config git
    libexpected-dev libsimdjson-dev libyaml-dev libtomlplusplus-dev
    libboost-dev libspdlog-dev libfmt-dev prometheus-cpp-dev
    libgtest-dev libgmock-dev
)
test_pkgs=(
    python3 nodejs npm curl
    guile-3.0
    cargo librust-ron-dev librust-serde-json-dev
)

want=("${build_pkgs[@]}")
if [[ "${1:-}" != "--build" ]]; then
    want+=("${test_pkgs[@]}")
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
        echo "deps: installing npm packages for the differential tests (npm ci)"
        (cd tests/differential && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
        cp "$lock" "$stamp"
    else
        echo "deps: npm packages present"
    fi
fi
