#!/bin/bash
# scripts/test.sh - set up (scripts/setup.sh), then run the whole test suite
# with ctest. On a machine without a GPU the GPU tests report a skip.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" --timeout 900
