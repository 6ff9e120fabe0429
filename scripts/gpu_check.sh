#!/bin/bash
# scripts/gpu_check.sh - the whole GPU check in one go, for the lent H200
# (shared/GPU.md): unpack OpenBLAS and the reference testers carried in
# .deps/, build, run ctest with the GPU tests, xscblat3 in forced-GPU mode,
# compute-sanitizer on a small GPU run, and the benchmark tables.
# Usage: scripts/gpu_check.sh [OUTDIR]     (logs go to OUTDIR, default ./gpu-check)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu-check}
mkdir -p "$out"
prefix=/tmp/tb-prefix
step() { printf '\n==== %s\n' "$*"; }

step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
nproc; nvcc --version | tail -1

step "OpenBLAS and reference testers from .deps/ into $prefix"
mkdir -p "$prefix"
for f in "$root"/.deps/*.deb; do dpkg -x "$f" "$prefix"; done
lib=$prefix/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib/openblas-pthread:$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TB_BLASDIR=$lib/blas
export OPENBLAS_CORETYPE=SkylakeX      # 0.3.21 misdetects this CPU (ANCHORS.md)

step "build"
cmake -S "$root" -B /tmp/tb-build -G Ninja -DCMAKE_PREFIX_PATH="$prefix/usr" \
      -DCMAKE_LIBRARY_PATH="$lib/openblas-pthread" \
      -DCMAKE_INCLUDE_PATH="$prefix/usr/include/x86_64-linux-gnu/openblas-pthread" >"$out/cmake.log" 2>&1 \
    || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build /tmp/tb-build >"$out/build.log" 2>&1 || { grep -B3 -A20 FAILED "$out/build.log" | head -60; exit 1; }
grep -E "ptxas info *: (Used|Compiling)|spill" "$out/build.log" | sed 's/^ *//' | sort -u > "$out/ptxas.txt"
echo "built; ptxas report in ptxas.txt ($(wc -l < "$out/ptxas.txt") lines)"
B=/tmp/tb-build
TBLIB=$B/libtiledblas.so

step "ctest (GPU tests included)"
(cd $B && ctest -j4 --timeout 600 --output-on-failure 2>&1 | tee "$out/ctest.log" | grep -E "Test +#|tests passed|FAIL|PASS:|SKIP" | head -80)

step "xscblat3, forced GPU, default deck and wide deck, with decision lines"
(cd /tmp && LD_LIBRARY_PATH=$TB_BLASDIR:$LD_LIBRARY_PATH TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 LD_PRELOAD=$TBLIB \
    $TB_BLASDIR/xscblat3 < $TB_BLASDIR/sin3 > "$out/xscblat3.out" 2> "$out/xscblat3.err")
grep -E "sgemm|FAIL" "$out/xscblat3.out"
echo "decision lines: gpu $(grep -c ' -> gpu ' "$out/xscblat3.err"), cpu $(grep -c ' -> cpu ' "$out/xscblat3.err"); other lines: $(grep -vc ' -> ' "$out/xscblat3.err")"

step "compute-sanitizer on a small GPU run"
for tool in memcheck racecheck; do
    TILEDBLAS_MODE=gpu LD_PRELOAD=$TBLIB compute-sanitizer --tool $tool --error-exitcode 9 \
        $B/tests/sgemm_check --calls 40 --max-dim 40 > "$out/sanitizer-$tool.log" 2>&1
    echo "$tool: exit $? ; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$out/sanitizer-$tool.log" | tr '\n' ' ')"
done

step "end to end: one call through the shim (forced GPU) against OpenBLAS SkylakeX, 16 threads"
TILEDBLAS_MODE=gpu $B/bench_e2e $TBLIB --sizes 256,512,768,1024,1536,2048,4096,8192 --reps 5 | tee "$out/e2e.txt"

step "end to end in auto mode (the default threshold decides)"
$B/bench_e2e $TBLIB --sizes 512,1024,2048,4096 --reps 5 | tee "$out/e2e-auto.txt"

if [ -x $B/bench/bench_kernels ] || [ -x $B/bench_kernels ]; then
    step "kernels against cuBLAS"
    bk=$B/bench/bench_kernels; [ -x $bk ] || bk=$B/bench_kernels
    timeout 300 $bk --quick 2>&1 | tee "$out/kernels.txt"
fi
step "done"
