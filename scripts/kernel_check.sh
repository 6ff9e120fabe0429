#!/bin/bash
# scripts/kernel_check.sh - build the kernels, test_kernels and bench_kernels
# with nvcc/gcc directly (independent of the top-level CMake), and on a GPU
# machine run: the kernel tests, compute-sanitizer memcheck and racecheck on
# small runs, and the benchmark table. Logs go to OUT.
#   scripts/kernel_check.sh build [BUILD]          build only (no GPU needed)
#   scripts/kernel_check.sh run [BUILD] [OUT]      build if needed, then run
# Environment: TEST_ARGS (test_kernels options), BENCH_ARGS (bench_kernels
# options), SAN_KERNELS (kernels under compute-sanitizer), KERNEL_ARCH (the
# GPU to build for, default sm_90; the wgmma kernel is always sm_90a).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-run}
B=${2:-$root/.kbuild}
OUT=${3:-${OUT:-$root/kernel-check}}
mkdir -p "$B" "$OUT"

build() {
    local flags="-arch=${KERNEL_ARCH:-sm_90} -O3 -Xptxas -v -lineinfo -I$root/kernels"
    local objs=()
    for f in "$root"/kernels/*.cu; do
        o=$B/$(basename "$f" .cu).o
        objs+=("$o")
        # The wgmma kernel is sm_90a code only (arch-specific: wgmma, setmaxnreg).
        local arch=""
        case "$f" in *wgmma*) arch="-gencode=arch=compute_90a,code=sm_90a" ;; esac
        nvcc ${arch:-$flags} ${arch:+-O3 -Xptxas -v -lineinfo -I$root/kernels} -c "$f" -o "$o" \
            > "$B/$(basename "$f" .cu).ptxas.txt" 2>&1 &
    done
    gcc -O2 -Wall -Wextra -I"$root/kernels" -I/usr/local/cuda/include -c "$root/kernels/registry.c" -o "$B/registry.o" || return 1
    wait
    for f in "$root"/kernels/*.cu; do
        [ -s "$B/$(basename "$f" .cu).o" ] || { cat "$B/$(basename "$f" .cu).ptxas.txt"; return 1; }
    done
    local cu=/usr/local/cuda/lib64
    local libs="-L$cu -lcudart_static -ldl -lrt -lpthread -lm -Wl,-Bstatic -lgomp -Wl,-Bdynamic"
    for t in tests/kernels/test_kernels bench/bench_kernels; do
        gcc -O2 -fopenmp -Wall -Wextra -I"$root/kernels" -I/usr/local/cuda/include \
            -c "$root/$t.c" -o "$B/$(basename $t).o" || return 1
        g++ -fopenmp -o "$B/$(basename $t)" "$B/$(basename $t).o" "${objs[@]}" "$B/registry.o" $libs || return 1
    done
    echo "built in $B"
}

if [ "$mode" = build ]; then
    build
    exit $?
fi

step() { printf '\n==== %s\n' "$*"; }
step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
if ! "$B/test_kernels" --max 0 >/dev/null 2>&1; then
    step "carried binaries do not run here: rebuilding"
    build || exit 1
fi

step "SASS of the wgmma kernel (instruction counts)"
if command -v cuobjdump > /dev/null; then
    cuobjdump --dump-sass "$B/sgemm_04_wgmma.o" > "$OUT/sgemm_04_wgmma.sass" 2>&1
    for ins in HGMMA UTMALDG SYNCS USETMAXREG WARPGROUP LDL STL; do
        printf '%s %s  ' "$ins" "$(grep -c "$ins" "$OUT/sgemm_04_wgmma.sass")"
    done
    echo
fi
grep -A3 "tb_wgmma_kernel\|tb_wgmma_simple" "$B/sgemm_04_wgmma.ptxas.txt" | grep -E "registers|spill" | head -4

step "test_kernels ${TEST_ARGS:-(full)}"
timeout 150 "$B/test_kernels" ${TEST_ARGS:-} > "$OUT/test_kernels.log" 2>&1
echo "exit $?"; grep -E "^FAIL" "$OUT/test_kernels.log" | head -20; tail -1 "$OUT/test_kernels.log"

step "bench_kernels"
timeout 130 "$B/bench_kernels" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench_kernels.txt"

step "compute-sanitizer"
san=${SAN_KERNELS:-regblock,warptile,tf32x3,tf32-fast,wgmma-simple}
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/test_kernels" --max 127 --kernels "$san" \
    > "$OUT/memcheck.log" 2>&1
echo "memcheck (test_kernels --max 127): exit $?; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log"); $(tail -1 "$OUT/memcheck.log" | grep passed)"
timeout 35 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/test_kernels" --max 33 --kernels "$san" \
    > "$OUT/racecheck.log" 2>&1
echo "racecheck (test_kernels --max 33): exit $?; $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tr '\n' ' ')"
# The persistent wgmma kernel takes grids of half a wave and more only: its
# memcheck runs the cases of test_kernels sized for it.
if [ -n "${SAN_WGMMA:-}" ]; then
    timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/test_kernels" --max 1537 --kernels wgmma \
        > "$OUT/memcheck_wgmma.log" 2>&1
    echo "memcheck wgmma (test_kernels --max 1537 --kernels wgmma): exit $?; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck_wgmma.log"); $(tail -1 "$OUT/memcheck_wgmma.log" | grep passed)"
fi
step "done"
