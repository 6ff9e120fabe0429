#!/bin/bash
# scripts/setup.sh - installs what building libtiledblas and running the demo
# need on a fresh Debian machine (apt packages; the CUDA toolkit is expected
# in /usr/local/cuda) and builds into ./build. Packages named as arguments
# are installed too (scripts/test.sh names the test tools). Safe to run
# again.
# Usage: scripts/setup.sh [PACKAGE...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# g++: nvcc's host compiler (it also brings libc6-dev). python3: configuring
# the build needs it (the tool tests' interpreter).
pkgs="cmake ninja-build gcc g++ libopenblas-dev python3 $*"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get update -qq
    $sudo_cmd apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1; then
    for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
        [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
    done
fi
command -v nvcc >/dev/null 2>&1 || { echo "setup: nvcc not found: install the CUDA toolkit (12.x or 13.x) first" >&2; exit 1; }
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j "$(nproc)" 2>&1 | grep -E "error|warning: |FAILED" || true
[ -f "$root/build/libtiledblas.so" ] || { echo "setup: build failed" >&2; exit 1; }
echo "setup: built $root/build/libtiledblas.so"
