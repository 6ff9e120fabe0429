#!/bin/bash
# scripts/gpu_pypi.sh LIBTILEDBLAS OUTDIR [PYTHON] - numpy from PyPI on the
# GPU machine (its wheel calls its bundled OpenBLAS by scipy_cblas_sgemm64_
# and scipy_cblas_dgemm64_): tests/numpy_check.py under the preload in
# forced-GPU mode, every product on the GPU and right; then
# bench/bench_numpy.py (a @ b at 2048, 4096, 8192 in float32 and float64)
# without the preload and under it in auto mode, side by side, with the
# speed-up. Exits 1 when a product is wrong or did not run on the GPU.
set -u
[ $# -ge 2 ] || { echo "usage: $0 LIBTILEDBLAS OUTDIR [PYTHON]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
lib=$(readlink -f "$1") out=$2 py=${3:-python3}
mkdir -p "$out"
"$py" -c 'import numpy; print("numpy", numpy.__version__)' || { echo "gpu_pypi: no numpy for $py"; exit 2; }
unset OPENBLAS_CORETYPE   # the wheel's OpenBLAS knows this CPU
TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$py" "$root/tests/numpy_check.py" --big \
    >"$out/pypi-check.out" 2>"$out/pypi-check.err"
rc=$?
cat "$out/pypi-check.out"
gpu=$(grep -cE '^tiledblas: scipy_[sd]gemm64_ .* -> gpu ' "$out/pypi-check.err")
cpu=$(grep -cE '^tiledblas: scipy_[sd]gemm64_ .* -> cpu ' "$out/pypi-check.err")
echo "forced GPU: $gpu products on the GPU, $cpu on the CPU ($(grep -v ' -> ' "$out/pypi-check.err" | head -2))"
[ $rc = 0 ] && [ "$gpu" -gt 0 ] && [ "$cpu" = 0 ] || rc=1
"$py" "$root/bench/bench_numpy.py" >"$out/pypi-alone.txt" 2>&1
TILEDBLAS_STATS=stderr LD_PRELOAD="$lib" "$py" "$root/bench/bench_numpy.py" >"$out/pypi-preload.txt" 2>"$out/pypi-preload.err"
echo "numpy a @ b, median of 3 after one warm-up (ms): alone | under the preload, auto mode | speed-up | error alone, preload"
join <(awk '{print $1"-"$2, $3, $5}' "$out/pypi-alone.txt") <(awk '{print $1"-"$2, $3, $5}' "$out/pypi-preload.txt") |
    awk '{printf "%-14s %10.2f %10.2f %8.1fx   %s %s\n", $1, $2, $4, $2 / $4, $3, $5}'
grep -A12 'route' "$out/pypi-preload.err" | head -14
exit $rc
