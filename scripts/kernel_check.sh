#!/bin/bash
# scripts/kernel_check.sh - build the kernels (kernels/*.cu, the registry and
# the host runtime under them, src/gpu/*.cu), test_kernels, test_registry,
# test_complex_pack and bench_kernels with nvcc/gcc directly (independent of
# the top-level CMake), and on a GPU machine run: the kernel tests,
# compute-sanitizer memcheck and racecheck on small runs, and the benchmark
# table. Logs go to OUT.
#   scripts/kernel_check.sh build [BUILD]          build only (no GPU needed)
#   scripts/kernel_check.sh link [BUILD]           relink the executables only
#   scripts/kernel_check.sh run [BUILD] [OUT]      build if needed, then run
# Environment: DTYPE (float, double, complex, zcomplex or all: which kernels
# run; default float),
# TEST_ARGS (test_kernels options), BENCH_ARGS (bench_kernels options),
# SAN_KERNELS (kernels under compute-sanitizer), KERNEL_ARCH (the GPU to
# build for, default sm_90; the wgmma kernel is always sm_90a).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-run}
B=${2:-$root/.kbuild}
OUT=${3:-${OUT:-$root/kernel-check}}
DTYPE=${DTYPE:-float}
mkdir -p "$B"

# The CUDA sources: the kernels and the runtime they take scratch from.
cu_sources() { ls "$root"/kernels/*.cu "$root"/src/gpu/*.cu; }

# Objects are rebuilt when missing or older than their source or a kernel
# header, so a build after an edit compiles only what changed.
compile() {
    local flags="-arch=${KERNEL_ARCH:-sm_90} -O3 -Xptxas -v -lineinfo -I$root/kernels"
    local newest
    newest=$(ls -t "$root"/kernels/*.h "$root"/kernels/*.cuh | head -1)
    for f in $(cu_sources); do
        o=$B/$(basename "$f" .cu).o
        [ "$o" -nt "$f" ] && [ "$o" -nt "$newest" ] && continue
        rm -f "$o"
        # The wgmma kernel is sm_90a code only (arch-specific: wgmma, setmaxnreg).
        local arch=""
        case "$f" in *wgmma*) arch="-gencode=arch=compute_90a,code=sm_90a" ;; esac
        nvcc ${arch:-$flags} ${arch:+-O3 -Xptxas -v -lineinfo -I$root/kernels} -c "$f" -o "$o" \
            > "$B/$(basename "$f" .cu).ptxas.txt" 2>&1 &
    done
    gcc -O2 -Wall -Wextra -I"$root/kernels" -I/usr/local/cuda/include -c "$root/kernels/registry.c" -o "$B/registry.o" || return 1
    wait
    for f in $(cu_sources); do
        [ -s "$B/$(basename "$f" .cu).o" ] || { cat "$B/$(basename "$f" .cu).ptxas.txt"; return 1; }
    done
}

link() {
    local cu=/usr/local/cuda/lib64 objs=()
    for f in $(cu_sources); do objs+=("$B/$(basename "$f" .cu).o"); done
    local libs="-L$cu -lcudart_static -ldl -lrt -lpthread -lm -Wl,-Bstatic -lgomp -Wl,-Bdynamic"
    for t in tests/kernels/test_kernels tests/kernels/test_registry bench/bench_kernels; do
        gcc -O2 -fopenmp -Wall -Wextra -I"$root/kernels" -I"$root/src/gpu" -I/usr/local/cuda/include \
            -c "$root/$t.c" -o "$B/$(basename $t).o" || return 1
        g++ -fopenmp -o "$B/$(basename $t)" "$B/$(basename $t).o" "${objs[@]}" "$B/registry.o" $libs || return 1
    done
    # Host code only (the complex packing's algebra, no GPU needed).
    nvcc -O2 -I"$root/kernels" -o "$B/test_complex_pack" "$root/tests/kernels/test_complex_pack.cu" \
        "${objs[@]}" "$B/registry.o" -ldl -lrt -lpthread || return 1
    echo "built in $B"
}

build() { compile && link; }

case $mode in
    build) build; exit $? ;;
    link) link; exit $? ;;
esac

mkdir -p "$OUT"   # logs: the run alone writes them
step() { printf '\n==== %s\n' "$*"; }
step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
if ! "$B/test_kernels" --max 0 >/dev/null 2>&1; then
    # Carried objects are fine on any machine with the same CUDA; the
    # executables may need this machine's libraries: relink first.
    step "carried binaries do not run here: relinking (rebuilding if that fails)"
    link || build || exit 1
fi
"$B/test_registry" > "$OUT/test_registry.log" 2>&1
echo "test_registry: exit $?; $(tail -1 "$OUT/test_registry.log")"
"$B/test_complex_pack" > "$OUT/test_complex_pack.log" 2>&1
echo "test_complex_pack: exit $?; $(tail -1 "$OUT/test_complex_pack.log")"

# The kernels under compute-sanitizer by default, and the benchmark's type
# (bench_kernels runs one type at a time; DTYPE=all benchmarks fp32).
case $DTYPE in
    double) san_default=dtiled16,dsmall,dmma,dmma-884,dmma-k16,run-dmma; bench_dtype=double ;;
    complex) san_default=ctiled16,crealify,crealify-post,run; bench_dtype=complex; san_dtype=complex ;;
    zcomplex) san_default=ztiled16,zrealify,zrealify-post,run; bench_dtype=zcomplex; san_dtype=zcomplex ;;
    all) san_default=small,dsmall,regblock,warptile,tf32x3,tf32-fast,wgmma-simple,dmma,dmma-884,dmma-k16,ctiled16,crealify,ztiled16,zrealify; bench_dtype=float ;;
    *) san_default=small,regblock,warptile,tf32x3,tf32-fast,wgmma-simple; bench_dtype=float ;;
esac
targs="--dtype $DTYPE"
san_dtype=${san_dtype:-all}

step "SASS of the tensor-core kernels (instruction counts)"
if command -v cuobjdump > /dev/null; then
    cuobjdump --dump-sass "$B/sgemm_04_wgmma.o" > "$OUT/sgemm_04_wgmma.sass" 2>&1
    for ins in HGMMA UTMALDG SYNCS USETMAXREG WARPGROUP LDL STL; do
        printf '%s %s  ' "$ins" "$(grep -c "$ins" "$OUT/sgemm_04_wgmma.sass")"
    done
    echo
    cuobjdump --dump-sass "$B/dgemm_01_dmma.o" > "$OUT/dgemm_01_dmma.sass" 2>&1
    grep -oE "DMMA\.[0-9A-Za-z.]+" "$OUT/dgemm_01_dmma.sass" | sort | uniq -c | tr '\n' ' '
    for ins in LDGSTS LDS LDL STL BAR; do
        printf '%s %s  ' "$ins" "$(grep -c "$ins" "$OUT/dgemm_01_dmma.sass")"
    done
    echo
fi
grep -A3 "tb_wgmma_kernel\|tb_wgmma_insplit\|tb_wgmma_simple" "$B/sgemm_04_wgmma.ptxas.txt" | grep -E "registers|spill" | head -4
grep -A3 "tb_dmma_kernel" "$B/dgemm_01_dmma.ptxas.txt" | grep -E "registers|spill" | head -4

step "test_kernels $targs ${TEST_ARGS:-(full)}"
timeout 150 "$B/test_kernels" $targs ${TEST_ARGS:-} > "$OUT/test_kernels.log" 2>&1
echo "exit $?"; grep -E "^FAIL|^skip" "$OUT/test_kernels.log" | head -20; tail -1 "$OUT/test_kernels.log"

step "bench_kernels --dtype $bench_dtype"
timeout 130 "$B/bench_kernels" --dtype $bench_dtype ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench_kernels.txt"

step "compute-sanitizer"
san=${SAN_KERNELS:-$san_default}
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/test_kernels" --dtype $san_dtype --max 127 --kernels "$san" \
    > "$OUT/memcheck.log" 2>&1
echo "memcheck (test_kernels --max 127): exit $?; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log"); $(tail -1 "$OUT/memcheck.log" | grep passed)"
timeout 35 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/test_kernels" --dtype $san_dtype --max 33 --kernels "$san" \
    > "$OUT/racecheck.log" 2>&1
echo "racecheck (test_kernels --max 33): exit $?; $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tr '\n' ' ')"
# The persistent wgmma kernels take grids of a quarter wave and more only:
# their memcheck runs the cases of test_kernels sized for them, and
# racecheck those of one size (wgmma-insplit's threads write the shared
# memory that its wgmmas read).
if [ -n "${SAN_WGMMA:-}" ]; then
    timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/test_kernels" --max 1537 \
        --kernels wgmma,wgmma-insplit > "$OUT/memcheck_wgmma.log" 2>&1
    echo "memcheck wgmma (test_kernels --max 1537 --kernels wgmma,wgmma-insplit): exit $?; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck_wgmma.log"); $(tail -1 "$OUT/memcheck_wgmma.log" | grep passed)"
    timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/test_kernels" --min 1000 --max 1000 \
        --kernels wgmma-insplit > "$OUT/racecheck_wgmma.log" 2>&1
    echo "racecheck wgmma-insplit (test_kernels --min 1000 --max 1000): exit $?; $(grep -E 'RACECHECK SUMMARY' "$OUT/racecheck_wgmma.log"); $(tail -1 "$OUT/racecheck_wgmma.log" | grep passed)"
fi
step "done"
