#!/bin/bash
# scripts/test.sh - set up (scripts/setup.sh), then run the whole test suite
# with ctest. On a machine without a GPU the GPU tests report a skip.
# OpenBLAS's kernel and thread count come from the environment
# (OPENBLAS_CORETYPE, OPENBLAS_NUM_THREADS): the line before ctest names
# them, so that a failure's log says which were in force.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root/build"
echo "test: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}"
ctest --output-on-failure -j "$(nproc)" --timeout 900
