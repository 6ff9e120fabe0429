#!/bin/bash
# scripts/ozaki_check.sh - the Ozaki scheme double product (dozaki,
# dozaki-mma: kernels/dgemm_02_ozaki.cu, igemm_01_wgmma.cu) checked and
# timed on a GPU machine in one command, from the repository root, in about
# four minutes on an H100 (the build about one of them):
#   the build (scripts/kernel_check.sh build: nvcc/gcc, no CMake, no
#   OpenBLAS; the wgmma files for sm_90a, the rest for KERNEL_ARCH, default
#   sm_90), the registers and spills of the new kernels, the INT8 wgmma's
#   SASS (IGMMA, no local memory);
#   the host arithmetic (tests/kernels/test_ozaki.c);
#   test_kernels --dtype double --max 1100 on dozaki, dozaki-mma and dmma
#   (every fp64 case up to 1100, and the accuracy rule: their errors at most
#   dmma's on the same uniform and randn x 2^[-12,12] / [-30,30] inputs);
#   compute-sanitizer memcheck on small products;
#   bench_kernels --dtype double beside cuBLAS DGEMM and dmma at 2048, 4096,
#   8192, with the wide-range error tables (randn x 2^u, u in [-12, 12] and
#   [-30, 30]).
# Usage: OUT=DIR scripts/ozaki_check.sh [BUILD]     (BUILD default .kbuild)
# Logs and tables go to $OUT (default ./ozaki-check); the last lines printed
# are the benchmark's tables. BENCH_SIZES, WIDE_SIZES change the shapes.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$root/.kbuild}
OUT=${OUT:-$root/ozaki-check}
mkdir -p "$OUT" "$B"
step() { printf '\n==== %s   [%ds]\n' "$*" "$SECONDS"; }
export PATH=$PATH:/usr/local/cuda/bin

step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvcc --version | tail -1

step "build (scripts/kernel_check.sh build $B)"
if ! bash "$root/scripts/kernel_check.sh" build "$B" > "$OUT/build.log" 2>&1; then
    tail -40 "$OUT/build.log"
    exit 1
fi
cp "$B"/*.ptxas.txt "$OUT/" 2>/dev/null
# registers and spills of each kernel of the new files; dmma's range (its
# kernel takes the gate's flag)
for f in dgemm_02_ozaki igemm_01_wgmma dgemm_01_dmma; do
    grep -E "Compiling entry|registers|spill" "$B/$f.ptxas.txt" | paste - - - |
        sed -E "s/.*function '([^']*)'.*, ([0-9]+) bytes spill stores.* Used ([0-9]+) registers.*/\1 \3 \2/" |
        if [ $f = dgemm_01_dmma ]; then
            sort -k2n | awk '{if (NR == 1) lo = $2; hi = $2; s += $3} END {printf "dgemm_01_dmma: %d kernels, %d-%d registers, %d bytes spilled\n", NR, lo, hi, s}'
        else
            awk -v f=$f '{printf "%s: %s %d registers, %d bytes spilled\n", f, substr($1, 1, 48), $2, $3}'
        fi
done
if command -v cuobjdump > /dev/null; then
    cuobjdump --dump-sass "$B/igemm_01_wgmma.o" > "$OUT/igemm_01_wgmma.sass" 2>&1
    cuobjdump --dump-sass "$B/dgemm_02_ozaki.o" > "$OUT/dgemm_02_ozaki.sass" 2>&1
    printf 'igemm_01_wgmma: '
    grep -oE "IGMMA\.[0-9A-Za-z.]+" "$OUT/igemm_01_wgmma.sass" | sort | uniq -c | tr '\n' ' '
    for ins in UTMALDG WARPGROUP.DEPBAR LDL STL; do
        printf '%s %s  ' "$ins" "$(grep -c "$ins" "$OUT/igemm_01_wgmma.sass")"
    done
    printf '\ndgemm_02_ozaki (mma.sync path): '
    grep -oE "IMMA\.[0-9A-Za-z.]+" "$OUT/dgemm_02_ozaki.sass" | sort | uniq -c | tr '\n' ' '
    for ins in LDSM LDL STL; do
        printf '%s %s  ' "$ins" "$(grep -c "$ins" "$OUT/dgemm_02_ozaki.sass")"
    done
    echo
fi

step "test_ozaki (the arithmetic on the host)"
gcc -O2 -Wall -Wextra -I"$root/kernels" -o "$B/test_ozaki" "$root/tests/kernels/test_ozaki.c" -lm &&
    "$B/test_ozaki" > "$OUT/test_ozaki.log" 2>&1
echo "exit $?; $(tail -1 "$OUT/test_ozaki.log")"

step "test_kernels --dtype double --max 1100 --kernels dozaki,dozaki-mma,dmma"
if ! "$B/test_kernels" --max 0 > /dev/null 2>&1; then
    echo "the carried binaries do not run here: relinking"
    bash "$root/scripts/kernel_check.sh" link "$B" >> "$OUT/build.log" 2>&1 || exit 1
fi
timeout 150 "$B/test_kernels" --dtype double --max 1100 --kernels dozaki,dozaki-mma,dmma \
    > "$OUT/test_kernels.log" 2>&1
echo "exit $? (124: timed out)"
grep -E "^FAIL|^skip" "$OUT/test_kernels.log" | head -20
grep -E "dozaki.*(uniform|randn)" "$OUT/test_kernels.log"
tail -1 "$OUT/test_kernels.log"

step "compute-sanitizer memcheck (test_kernels --dtype double --max 33)"
if command -v compute-sanitizer > /dev/null; then
    timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/test_kernels" --dtype double \
        --max 33 --kernels dozaki,dozaki-mma > "$OUT/memcheck.log" 2>&1
    echo "exit $?; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log"); $(tail -1 "$OUT/memcheck.log" | grep passed)"
else
    echo "no compute-sanitizer"
fi

sizes=${BENCH_SIZES:-2048,4096,8192,4096:tn}
wide=${WIDE_SIZES:-2048,4096:tt}
kl=cublas,dmma,dozaki,dozaki-mma
step "bench_kernels --dtype double --kernels $kl --sizes $sizes --wide-sizes $wide"
timeout 120 "$B/bench_kernels" --dtype double --kernels $kl --sizes "$sizes" --wide-sizes "$wide" \
    > "$OUT/bench_kernels.txt" 2>&1
echo "exit $?"
step "bench_kernels: wide range randn x 2^[-30,30] (errors)"
timeout 60 "$B/bench_kernels" --dtype double --kernels $kl --sizes '' --wide-sizes "$wide" \
    --wide-exp 30 > "$OUT/bench_wide30.txt" 2>&1
echo "exit $?"
step "tables"
cat "$OUT/bench_kernels.txt" "$OUT/bench_wide30.txt"
