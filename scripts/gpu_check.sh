#!/bin/bash
# scripts/gpu_check.sh - the whole GPU check in one go, on a machine with
# an NVIDIA GPU and no package registry: unpack OpenBLAS and the reference
# testers carried in .deps/ (scripts/fetch_deps.sh), build, run ctest with
# the GPU tests, xscblat3 and xdcblat3 in forced-GPU mode, compute-sanitizer
# on a small GPU run, and the benchmark tables.
# Usage: scripts/gpu_check.sh [OUTDIR]     (logs go to OUTDIR, default ./gpu-check)
#   TB_STEPS=ctest,kernels,...  runs only the named steps (after the build);
#   TB_CTEST_REGEX=...          runs only the matching ctest tests;
#   TB_CTEST_EXCLUDE=...        leaves the matching ones out;
#   TB_CMAKE_ARGS=...           more cmake arguments (e.g. -DCMAKE_CUDA_ARCHITECTURES=90-real
#                               to build for this GPU alone, faster);
#   TB_BUILD_TARGETS=...        build only these targets (e.g. "tiledblas_lib bench_e2e
#                               tiledblas" for steps calibrate and sweep);
#   TB_PREBUILT=DIR             no build: run the binaries of a build made on another
#                               machine with the same CUDA, copied flat into DIR
#                               (libtiledblas.so, bench_e2e, tiledblas: enough for
#                               steps calibrate and sweep); built here if they
#                               do not load;
#   TB_SWEEP_ROUNDS, TB_SWEEP_SMALL_ROUNDS, TB_SWEEP_SHAPES: the sweep's rounds
#          (2; 4 for shapes under 1 GFLOP) and shapes; TB_SWEEP_EXTRA: shapes
#          added to the list; TB_SWEEP_DOUBLE_SHAPES: the shapes of the sweep
#          in double precision, run the same way after it (set empty: none);
#   TB_SWEEP_BASE: another version's source tree, or a tarball of one (git
#          archive -o base.tar REV): the sweep builds its library too and runs
#          its auto processes beside ours, shape by shape, in turn, and prints
#          its table after ours (an A/B of a policy change in one run);
#   TB_LEARN_SHAPES: step learn's shapes (101 calls each in one process);
#   TB_SWITCH_SHAPES: step switch's shapes;
#   TB_STARTUP_ROUNDS (5), TB_STARTUP_EXITS (20): step startup's rounds, and
#          its processes that exit or fork while the GPU starts;
#   names: ctest kernel-tests xscblat3 sanitizers overhead e2e tune nvblas
#          sweep tool kernels odd calibrate numpy pypi repeat reliability cpuroute learn
#          switch startup devices level3 (xscblat3 runs xdcblat3 too)
#   level3: symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm in s, d, c, z: ours
#          against cuBLAS's same routine on device buffers at 4096 and 8192
#          (bench_blocked: ms, TFLOP/s, errors against a long-double reference),
#          then one call from host arrays at 8192 in forced-GPU mode beside
#          OpenBLAS and NVBLAS's Fortran names in the same process
#          (bench_level3 --peer NVBLAS); capped at 150 s and 210 s
#   TB_DEVICES_LIST: step devices' list (default: every GPU, or 0,0 - two
#          slots on one GPU - where there is one)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu-check}
mkdir -p "$out"
prefix=/tmp/tb-prefix
step() { printf "\n==== %s   [%ds]\n" "$*" "$SECONDS"; }
want() { [ -z "${TB_STEPS:-}" ] || [[ ",$TB_STEPS," == *",$1,"* ]]; }

step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
nproc; nvcc --version | tail -1

step "OpenBLAS and reference testers from .deps/ into $prefix"
mkdir -p "$prefix"
for f in "$root"/.deps/*.deb; do dpkg -x "$f" "$prefix"; done
lib=$prefix/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib/openblas-pthread:$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TB_BLASDIR=$lib/blas
export OPENBLAS_CORETYPE=SkylakeX      # 0.3.21 misdetects this CPU
export TILEDBLAS_CACHE_DIR=/tmp/tb-cache   # measured rates: never the user's cache

# configure SRC BUILDDIR LOG: cmake against the OpenBLAS unpacked above.
configure() {
    cmake -S "$1" -B "$2" -G Ninja -DCMAKE_PREFIX_PATH="$prefix/usr" \
          -DCMAKE_LIBRARY_PATH="$lib/openblas-pthread" \
          -DCMAKE_INCLUDE_PATH="$prefix/usr/include/x86_64-linux-gnu/openblas-pthread" ${TB_CMAKE_ARGS:-} >"$3" 2>&1 \
        || { tail -30 "$3"; return 1; }
}

B=/tmp/tb-build
pre=${TB_PREBUILT:+$(cd "$TB_PREBUILT" && pwd)}
if [ -n "$pre" ] && ! LD_LIBRARY_PATH=$pre:$LD_LIBRARY_PATH ldd "$pre"/{libtiledblas.so,bench_e2e,tiledblas} 2>&1 |
                       grep -E "not found|No such file|not a dynamic"; then
step "prebuilt binaries in $TB_PREBUILT"
B=$pre
export LD_LIBRARY_PATH=$B:$LD_LIBRARY_PATH   # the tiledblas command's libtiledblas.so.0
else
step "build"
configure "$root" $B "$out/cmake.log" || exit 1
cmake --build $B ${TB_BUILD_TARGETS:+--target $TB_BUILD_TARGETS} >"$out/build.log" 2>&1 || { grep -B3 -A20 FAILED "$out/build.log" | head -60; exit 1; }
grep -E "ptxas info *: (Used|Compiling)|spill" "$out/build.log" | sed 's/^ *//' | sort -u > "$out/ptxas.txt"
echo "built; ptxas report in ptxas.txt ($(wc -l < "$out/ptxas.txt") lines)"
fi
TBLIB=$B/libtiledblas.so

if want ctest; then
step "ctest (GPU tests included)"
(cd $B && TB_PYPI_PYTHON=${TB_PYPI_PYTHON:-python3} ctest -j6 --timeout 400 --output-on-failure ${TB_CTEST_REGEX:+-R "$TB_CTEST_REGEX"} ${TB_CTEST_EXCLUDE:+-E "$TB_CTEST_EXCLUDE"} 2>&1 | tee "$out/ctest.log" | grep -E "Test +#|tests passed|FAIL|PASS:|SKIP|Error|error" | head -90)

fi
if want calibrate; then
step "calibrate: this machine's rates for the decision, measured on a quiet machine"
$B/tiledblas calibrate; echo "exit $?"
$B/tiledblas info | grep "^cost model"
cp /tmp/tb-cache/rates-*.txt "$out/" 2>/dev/null   # the rates and the small-call grid's times
fi
if want xscblat3; then
for p in s d; do     # single precision (xscblat3, deck sin3), double (xdcblat3, din3)
step "x${p}cblat3, forced GPU, default deck, with decision lines"
(cd /tmp && LD_LIBRARY_PATH=$TB_BLASDIR:$LD_LIBRARY_PATH TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 LD_PRELOAD=$TBLIB \
    $TB_BLASDIR/x${p}cblat3 < $TB_BLASDIR/${p}in3 > "$out/x${p}cblat3.out" 2> "$out/x${p}cblat3.err")
grep -E "${p}gemm|FAIL" "$out/x${p}cblat3.out"
echo "decision lines: gpu $(grep -c ' -> gpu ' "$out/x${p}cblat3.err"), cpu $(grep -c ' -> cpu ' "$out/x${p}cblat3.err"); other lines: $(grep -vc ' -> ' "$out/x${p}cblat3.err")"
done

fi
if want sanitizers; then
step "compute-sanitizer: small calls, and multi-panel pipelined calls"
for tool in memcheck racecheck initcheck synccheck; do
    TILEDBLAS_MODE=gpu LD_PRELOAD=$TBLIB compute-sanitizer --tool $tool --error-exitcode 9 \
        $B/tests/sgemm_check --calls 30 --max-dim 40 --api mixed > "$out/sanitizer-$tool.log" 2>&1
    r1=$?
    TILEDBLAS_MODE=gpu LD_PRELOAD=$TBLIB compute-sanitizer --tool $tool --error-exitcode 9 \
        $B/tests/sgemm_check --calls 3 --min-dim 700 --max-dim 760 --seed 5 > "$out/sanitizer-$tool-big.log" 2>&1
    echo "$tool: exit $r1 / $? ; $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$out/sanitizer-$tool.log" "$out/sanitizer-$tool-big.log" | tr '\n' ' ')"
done
echo "-- double precision (cblas_dgemm and dgemm_), small calls:"
TILEDBLAS_MODE=gpu LD_PRELOAD=$TBLIB compute-sanitizer --tool memcheck --error-exitcode 9 \
    $B/tests/sgemm_check --calls 30 --max-dim 40 --api mixed --double > "$out/sanitizer-memcheck-double.log" 2>&1
echo "memcheck: exit $? ; $(grep -hE 'ERROR SUMMARY|passed' "$out/sanitizer-memcheck-double.log" | tr '\n' ' ')"
echo "-- the device path's own kernels (aligned copies, split-K sum) through test_kernels --kernels run:"
for tool in memcheck initcheck synccheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 \
        $B/tests/kernels/test_kernels --quick --max 1537 --kernels run > "$out/sanitizer-$tool-run.log" 2>&1
    echo "$tool: exit $? ; $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|passed|copied|split' "$out/sanitizer-$tool-run.log" | tr '\n' ' ')"
done

fi
if want overhead; then
step "per-call cost of the preload on a 4x4 sgemm, and on process start"
for i in 1 2 3; do
    echo "plain:   $($B/bench_overhead)"
    echo "preload: $(LD_PRELOAD=$TBLIB $B/bench_overhead)"
done
t0=$(date +%s%N); for i in $(seq 300); do /bin/true; done; t1=$(date +%s%N)
for i in $(seq 300); do LD_PRELOAD=$TBLIB /bin/true; done; t2=$(date +%s%N)
echo "process start: /bin/true $(( (t1 - t0) / 300000 )) us plain, $(( (t2 - t1) / 300000 )) us under the preload (mean of 300)"

fi
if want cpuroute; then
step "the CPU route: the shim's calls sent to OpenBLAS against OpenBLAS called directly, alternately"
TILEDBLAS_MODE=cpu $B/bench_cpu_route $TBLIB ${TB_CPUROUTE_SHAPES:+--shapes $TB_CPUROUTE_SHAPES} 2>&1 | tee "$out/cpuroute-cpu.txt"
for learn in on off; do
    TILEDBLAS_LEARN=$learn TILEDBLAS_VERBOSE=2 $B/bench_cpu_route $TBLIB ${TB_CPUROUTE_SHAPES:+--shapes $TB_CPUROUTE_SHAPES} \
        2> "$out/cpuroute-auto-learn-$learn.err" | tee "$out/cpuroute-auto-learn-$learn.txt"
    echo "auto, learning $learn: the shim's calls went $(grep -c ' -> gpu ' "$out/cpuroute-auto-learn-$learn.err") to the GPU, $(grep -c ' -> cpu ' "$out/cpuroute-auto-learn-$learn.err") to the CPU"
done

fi
if want startup; then
step "start-up: short programs as whole processes, OpenBLAS alone against the preload (cached rates, first run)"
bash "$root/scripts/startup.sh" $TBLIB $B/bench_startup --rounds ${TB_STARTUP_ROUNDS:-5} \
    --programs 2048x3,1024x10,2048x30,8192x1,2048x3:double,4096x1:double 2>&1 | tee "$out/startup.txt"
echo "-- 30 calls of 2048^3 as the trace sees them (the rates in $TILEDBLAS_CACHE_DIR): calls per route and reason, and the start"
TILEDBLAS_TRACE=$out/startup-trace.jsonl LD_PRELOAD=$TBLIB $B/bench_startup 2048 30 >/dev/null
grep -oE '"route":"[a-z]+","reason":"[a-z-]+"' "$out/startup-trace.jsonl" | sort | uniq -c
grep -oE '"t":[0-9.]+,.*"gpu_start_s":[0-9.]+' "$out/startup-trace.jsonl" | sed -E 's/"t":([0-9.]+),.*"gpu_start_s":([0-9.]+)/GPU ready after a start of \2 s, by the call at t = \1 s/'
n=${TB_STARTUP_EXITS:-20}
echo "-- exit while the GPU starts: $n processes of one 2048^3 call each, empty cache, and $n forking"
bad=0
for i in $(seq $n); do
    rm -rf /tmp/tb-empty
    TILEDBLAS_CACHE_DIR=/tmp/tb-empty LD_PRELOAD=$TBLIB timeout 30 $B/bench_startup 2048 1 >/dev/null 2>&1 || bad=$((bad + 1))
    LD_PRELOAD=$TBLIB timeout 60 $B/tests/sgemm_check --calls 6 --min-dim 600 --max-dim 900 --fork >/dev/null 2>&1 || bad=$((bad + 1))
done
echo "exit and fork during the start: $bad of $((2 * n)) processes failed or hung"
fi
if want e2e; then
step "end to end: one call through the shim (forced GPU) against OpenBLAS SkylakeX, 16 threads"
TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=1 $B/bench_e2e $TBLIB --sizes 256,512,1024,2048,4096,8192,16384 --reps 5 | tee "$out/e2e.txt"
TILEDBLAS_MODE=gpu TILEDBLAS_TRACE=$out/e2e-trace.jsonl $B/bench_e2e $TBLIB --sizes 4096,8192 --reps 3 > /dev/null
grep '"route":"gpu"' "$out/e2e-trace.jsonl" | tail -2
echo "-- double precision: one cblas_dgemm call through the shim (forced GPU) against OpenBLAS's cblas_dgemm:"
TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=1 $B/bench_e2e $TBLIB --double --sizes 1024,2048,4096,8192,16384 --reps 5 \
    | tee "$out/e2e-double.txt"
echo "-- every layout and transpose at 4096, auto mode (each within 10% of RowMajor NN):"
$B/bench_layouts $TBLIB --size 4096 --reps 5 | tee "$out/layouts.txt"

fi
if want devices; then
ngpu=$(nvidia-smi -L | grep -c '^GPU')
list=${TB_DEVICES_LIST:-$([ "$ngpu" -gt 1 ] && seq -s, 0 $((ngpu - 1)) || echo 0,0)}
step "large calls cut over device slots, TILEDBLAS_DEVICES=${list%%,*} up to $list, forced GPU, end to end"
TILEDBLAS_MODE=gpu $B/bench_e2e $TBLIB --shapes 4096,8192,16384,16384x4096x4096,4096x16384x4096 \
    --reps 3 --no-naive --devices $list > "$out/devices.txt" 2>&1
echo "exit $?"; sed -n '/^==== through/,$p' "$out/devices.txt"
fi
if want nvblas; then
step "against NVBLAS (sgemm_, dgemm_, cgemm_, zgemm_ under its own preload) in the same process as the shim"
nvb=/usr/local/cuda/lib64/libnvblas.so
if [ -f $nvb ]; then
    printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_LOGFILE /tmp/nvblas.log\n' \
        "$lib/openblas-pthread/libopenblas.so.0" > /tmp/nvblas.conf
    NVBLAS_CONFIG_FILE=/tmp/nvblas.conf LD_PRELOAD=$nvb $B/bench_e2e $TBLIB --sizes 512,1024,2048,4096,8192 \
        --reps 5 --peer NVBLAS 2>&1 | tee "$out/nvblas.txt"
    NVBLAS_CONFIG_FILE=/tmp/nvblas.conf LD_PRELOAD=$nvb $B/bench_e2e $TBLIB --double --sizes 512,1024,2048,4096,8192 \
        --reps 5 --peer NVBLAS 2>&1 | tee "$out/nvblas-double.txt"
    for p in complex zcomplex; do     # cgemm_ and zgemm_ under NVBLAS
        NVBLAS_CONFIG_FILE=/tmp/nvblas.conf LD_PRELOAD=$nvb $B/bench_e2e $TBLIB --$p --sizes ${TB_COMPLEX_SIZES:-1024,4096,8192} \
            --reps 3 --peer NVBLAS 2>&1 | tee "$out/nvblas-$p.txt"
    done
else
    echo "no $nvb on this machine"
fi

fi
if want sweep; then
# Each shape runs forced-GPU and then auto in two processes back to back,
# and the whole list twice; the table keeps the fastest of each. (Two
# separate passes over the list put minutes between the columns, and this
# machine's speed drifts by 20-30% over minutes.) Shapes under 1 GFLOP get
# TB_SWEEP_SMALL_ROUNDS rounds (4): their calls take 0.05-0.5 ms, each
# route alone moves 5-15% from one process to the next, and with two
# processes a column the faster of CPU and GPU is the luckier of four where
# auto gets two. The auto processes run as a user would, without decision
# lines (a line costs a call 1.1-2.2 us here); TILEDBLAS_STATS (about 0.2
# us a call) says where their calls went. One more process, not timed, prints
# the first decision of every shape for the model's residuals, with
# learning off: in one process, shapes of one class (m, n, k in the same
# powers of two) would learn from each other (3000x3000x3 and 180x180x700
# from 2048x2048x2 and 128x128x512), and the model's own times are wanted.
shapes=512,1024,2048,4096,8192,8192x8192x16,8192x8192x64,8192x8192x256,4096x4096x32,4096x4096x128
shapes=$shapes,256x256x65536,512x512x32768,1024x1024x16384,128x128x100000,64x4096x4096
shapes=$shapes,65536x256x256,32768x512x512,16384x1024x1024,100000x64x64,65536x128x1024
shapes=$shapes,256x65536x256,512x32768x512,1024x16384x1024,64x100000x64,128x65536x1024
shapes=$shapes,4096x1024x8192,1000x3000x2000,3000x1000x500,2000x500x3000,6000x4000x2000
shapes=$shapes,1000,1023,4097,8191,3001x2999x1503,300,700x200x900,1500x1500x64,2048x64x2048,64x2048x2048
# Padded and odd leading dimensions, transposes (bench_e2e's
# MxNxK[:XY][+P]), the neighbourhood of 256^3 on both sides, and a rank-8
# update whose time is all C's bytes.
shapes=$shapes,2500x2500x2500+1,1200x900x1100+16,3000x3000x3000:TN,2000x2000x2000:NT+5
shapes=$shapes,1536x1536x1536:TT,4096x4096x64:NT,256,384,200x5000x200,10000x10000x8
shapes=$shapes,3000x100x3000,50000x32x512:TN,777x1999x333+3,600x600x600:TT+2
shapes=$shapes,4000x4000x1,200x200x400
# Small calls around the threshold (150^3), where a GPU call and
# an OpenBLAS call both take 0.05-0.3 ms and the model is least sure.
shapes=$shapes,100,128,150,160,200,230,100x300x500,64x1024x128,64x64x2048,128x128x512
shapes=$shapes,512x512x32,1024x1024x8,2048x2048x2
# Small shapes off the points of calibrate.c's small-call grid, so that
# what the sweep sees there comes from interpolating between them.
shapes=$shapes,96x768x200,180x180x700,48x1500x100,700x700x20,3000x3000x3,120x2000x60
shapes=$shapes,1500x40x900,350x350x90
shapes=${TB_SWEEP_SHAPES:-$shapes}   # a shorter list, for a quick look
shapes=$shapes${TB_SWEEP_EXTRA:+,$TB_SWEEP_EXTRA}   # shapes beyond the list
# Double precision (bench_e2e --double: cblas_dgemm against OpenBLAS's):
# twice the bytes a flop and a CPU at half its single rate move the
# crossover to larger calls than single's; the list spans it, with the
# square sizes, thin and skinny shapes, a transpose and a padded stride.
dshapes=160,256,384,512,700,1024,2048,4096,8192,1500x1500x64,4096x4096x64,8192x8192x256,2048x2048x16
dshapes=$dshapes,256x256x65536,64x4096x4096,65536x256x256,1000x3000x2000:TN,2500x2500x2500+1
dshapes=$dshapes,700x200x900,180x180x700,3000x3000x3,100x300x500,600x600x600:TT+2
dshapes=${TB_SWEEP_DOUBLE_SHAPES-$dshapes}
rounds=${TB_SWEEP_ROUNDS:-2}; small_rounds=${TB_SWEEP_SMALL_ROUNDS:-4}
cols=auto; base_lib=
if [ -n "${TB_SWEEP_BASE:-}" ]; then
    base_src=$TB_SWEEP_BASE
    if [ -f "$base_src" ]; then
        rm -rf /tmp/tb-base-src && mkdir -p /tmp/tb-base-src && tar xf "$base_src" -C /tmp/tb-base-src || exit 1
        base_src=/tmp/tb-base-src
    fi
    step "the base version for the A/B: $TB_SWEEP_BASE"
    configure "$base_src" /tmp/tb-base-build "$out/cmake-base.log" || exit 1
    cmake --build /tmp/tb-base-build --target tiledblas_lib >"$out/build-base.log" 2>&1 \
        || { grep -B3 -A20 FAILED "$out/build-base.log" | head -60; exit 1; }
    base_lib=/tmp/tb-base-build/libtiledblas.so
    cols="auto base"
fi
# sweep NAME WHAT SHAPES [BENCH_E2E OPTIONS]: the rounds over SHAPES, files
# $out/NAME-*, the table in $out/NAME.txt (the base version's in
# $out/NAME-base-table.txt), then the model's residuals and the naive
# offload on the same shapes.
sweep() {
local name=$1 what=$2 shapes=$3; shift 3
local small=$(echo $shapes | tr , '\n' | awk '{ d = $0; sub(/[:+].*/, "", d); n = split(d, x, "x")
        if (n == 1) x[2] = x[3] = x[1]; if (2 * x[1] * x[2] * x[3] < 1e9) print $0 }' | tr '\n' ,)
step "the decision$what across $(echo $shapes | tr , '\n' | wc -l) shapes ($(echo $small | tr , '\n' | grep -c .) under 1 GFLOP): CPU only, GPU only, and auto (the cost model), end to end"
: > "$out/$name-gpu.txt"
for c in $cols; do : > "$out/$name-$c.txt"; : > "$out/$name-$c.err"; : > "$out/$name-$c-stats.jsonl"; done
for round in $(seq $(( rounds > small_rounds ? rounds : small_rounds ))); do
    list=$shapes; [ $round -gt $rounds ] && list=$small
    # With a base version, the two take turns going first.
    order=$cols; [ $((round % 2)) = 0 ] && order=$(echo $cols | tr ' ' '\n' | tac | tr '\n' ' ')
    for s in $(echo $list | tr , ' '); do
        TILEDBLAS_MODE=gpu $B/bench_e2e $TBLIB "$@" --shapes $s --reps 5 | grep -E '^[0-9]+x' >> "$out/$name-gpu.txt"
        for c in $order; do
            l=$TBLIB; [ $c = base ] && l=$base_lib
            echo "{\"sweep\":\"$s\"}" >> "$out/$name-$c-stats.jsonl"
            TILEDBLAS_STATS=$out/$name-$c-stats.jsonl $B/bench_e2e $l "$@" --shapes $s --reps 5 --no-naive \
                2>> "$out/$name-$c.err" | grep -E '^[0-9]+x' >> "$out/$name-$c.txt"
        done
    done
done
TILEDBLAS_LEARN=off TILEDBLAS_VERBOSE=2 $B/bench_e2e $TBLIB "$@" --shapes $shapes --reps 1 --no-naive > "$out/$name-decisions.txt" \
    2> "$out/$name-decisions.err"
awk -f "$root/scripts/sweep_table.awk" \
    "$out/$name-gpu.txt" "$out/$name-auto.txt" "$out/$name-auto-stats.jsonl" | tee "$out/$name.txt"
if [ -n "$base_lib" ]; then
    echo "-- the base version ($TB_SWEEP_BASE) in the same rounds, against the same GPU column (its table: $name-base-table.txt):"
    awk -f "$root/scripts/sweep_table.awk" "$out/$name-gpu.txt" "$out/$name-base.txt" \
        "$out/$name-base-stats.jsonl" > "$out/$name-base-table.txt"
    awk '$5 + 0 > 1.10 || /^(worst|with)/' "$out/$name-base-table.txt"
fi
echo "-- the cost model against the clock, per shape (first decision line against the fastest round):"
awk -f "$root/scripts/model_residuals.awk" \
    "$out/$name-gpu.txt" "$out/$name-auto.txt" "$out/$name-decisions.err" > "$out/model-residuals${name#sweep}.txt"
tail -2 "$out/model-residuals${name#sweep}.txt"
echo "-- the naive offload (cudaMalloc, pageable cudaMemcpy, our kernel, cudaMemcpy back) on the same shapes:"
awk '$1 ~ /^[0-9]+x[0-9]+x[0-9]+(:[NT][NT])?(\+[0-9]+)?$/ {
        if (!($1 in shim)) order[++n] = $1
        if (!($1 in shim) || $3 < shim[$1]) shim[$1] = $3
        if ($(NF-1) != "n/a" && (!($1 in nv) || $(NF-1) < nv[$1])) nv[$1] = $(NF-1) }
     END { for (i = 1; i <= n; i++) { s = order[i]
            if (s in nv) { g += log(nv[s] / shim[s]); c++; if (nv[s] / shim[s] < lo || !lo) { lo = nv[s] / shim[s]; ls = s } } }
        if (c) printf "naive/shim over %d shapes: geometric mean %.2fx, lowest %.2fx at %s\n", c, exp(g / c), lo, ls }' \
    "$out/$name-gpu.txt" | tee "$out/$name-naive.txt"
}
sweep sweep "" "$shapes"
[ -z "$dshapes" ] || sweep sweep-double " in double precision" "$dshapes" --double
fi
if want learn; then
step "learning over a long program: 101 calls per shape in one process, auto mode (route per call, reasons)"
for s in $(echo ${TB_LEARN_SHAPES:-4096x4096x32,8192x8192x16,1500x1500x64,700x200x900,300x300x300} | tr , " "); do
    TILEDBLAS_VERBOSE=2 $B/bench_e2e $TBLIB --shapes $s --reps 100 --no-naive 2> "$out/learn-$s.err" \
        | grep -E '^[0-9]+x' | tee -a "$out/learn.txt"
    printf '  routes: %s\n  reasons:' "$(grep -oE ' -> (gpu|cpu)' "$out/learn-$s.err" | cut -c5 | tr -d '\n')"
    grep -oE ' -> (gpu|cpu) \([a-z-]+' "$out/learn-$s.err" | sed 's/.*(//' | sort | uniq -c | tr '\n' ' '; echo
done
fi
if want switch; then
step "one route right after the other in one process: OpenBLAS after GPU calls, GPU calls after OpenBLAS (bench_switch)"
for s in $(echo ${TB_SWITCH_SHAPES:-700x200x900,1500x1500x64,4096x4096x32,8192x8192x16,300x300x300} | tr , " "); do
    for gap in 300 0; do $B/bench_switch $TBLIB --shape $s --gap-ms $gap --trials 12 | tail -5; done
done 2>&1 | sed 's/, GPU NVIDIA.*//'
echo "-- the same with one copy thread (no helper threads):"
TILEDBLAS_COPY_THREADS=1 $B/bench_switch $TBLIB --shape 1500x1500x64 --gap-ms 300 --trials 12 | tail -5 | sed "s/, GPU NVIDIA.*//"
fi
if want tool; then
step "tiledblas info, verify and ab on the bundled program"
$B/tiledblas info
$B/tiledblas run --mode verify -- $B/examples/mlp_train --batch 2048 --in 1024 --hidden 2048 --out 512 --steps 2 2>&1 | tail -8
$B/tiledblas ab -- $B/examples/mlp_train --batch 4096 --in 2048 --hidden 4096 --out 1024 --steps 3 2>&1 | tail -25

fi
if want level3; then
step "level 3 but gemm: ours against cuBLAS's same routine on device buffers (4096, 8192), then one call from host arrays at 8192, forced GPU, beside OpenBLAS and NVBLAS (Fortran names)"
bb=$B/bench/bench_blocked; [ -x $bb ] || bb=$B/bench_blocked
timeout 150 $bb --sizes 4096,8192 --reps 3 2>&1 | tee "$out/level3-device.txt"
rc=${PIPESTATUS[0]}; echo "exit $rc$([ $rc = 124 ] && echo ' (time cap: the rows after the last one were not run)')"
nvb=/usr/local/cuda/lib64/libnvblas.so
peer=()
if [ -f $nvb ]; then
    printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_LOGFILE /tmp/nvblas.log\n' \
        "$lib/openblas-pthread/libopenblas.so.0" > /tmp/nvblas.conf
    peer=(NVBLAS_CONFIG_FILE=/tmp/nvblas.conf LD_PRELOAD=$nvb)
else
    echo "no $nvb on this machine: no NVBLAS column"
fi
# OpenBLAS and NVBLAS: one timed call per routine (OpenBLAS's zgemm-like
# calls take seconds at 8192); the library: the median of 3.
timeout 210 env TILEDBLAS_MODE=gpu "${peer[@]}" $B/bench_level3 $TBLIB --sizes 8192 --reps 3 --cpu-reps 1 \
    ${peer:+--peer NVBLAS} 2>&1 | tee "$out/level3-e2e.txt"
rc=${PIPESTATUS[0]}; echo "exit $rc$([ $rc = 124 ] && echo ' (time cap: the rows after the last one were not run)')"
fi
if want kernels && { [ -x $B/bench/bench_kernels ] || [ -x $B/bench_kernels ]; }; then
    step "kernels against cuBLAS"
    bk=$B/bench/bench_kernels; [ -x $bk ] || bk=$B/bench_kernels
    timeout 240 $bk --quick 2>&1 | tee "$out/kernels.txt"
fi
if want kernel-tests; then
step "kernel tests alone: every kernel and the default device path against float64"
$B/tests/kernels/test_kernels > "$out/kernel-tests.txt" 2>&1; echo "exit $?"
grep -E "FAIL|run:|passed" "$out/kernel-tests.txt" | tail -12
fi
bk=$B/bench/bench_kernels
if want odd; then
step "kernels against cuBLAS at odd sizes and at shapes the issue does not list (default path)"
$bk --sizes 4097,8191,4096,1025,1500,1537,2047,3001,6000,5003x4099x2053,12289x1000x4097,4097:tn,8191:tt \
    --kernels cublas,tf32x3,warptile 2>&1 | grep -v "^ *$" | sed -n '1,40p' | tee "$out/odd.txt"
echo "-- the same kernel without the aligned copies (--raw):"
$bk --raw --sizes 4097,8191,1025,1537 --kernels cublas,tf32x3 2>&1 | grep -E "^[0-9]" | head -8

fi
if want tune; then
step "the pipeline alone: copy threads, and ordinary against streaming stores in the unpacks into C"
for round in 1 2; do
    for ct in 8 12 16; do
        TILEDBLAS_COPY_THREADS=$ct $B/bench/bench_pipeline --sizes 2048,4096,8192 --reps 9
    done
done
fi
if want numpy; then
step "numpy: Debian python3.11 + python3-numpy from .deps/, auto and forced GPU"
"$root/scripts/gpu_numpy.sh" "$prefix" "$TBLIB" "$out"
fi
if want pypi; then
step "numpy from PyPI (this machine's python3): its scipy_cblas_?gemm64_ calls, forced GPU and timed"
"$root/scripts/gpu_pypi.sh" "$TBLIB" "$out" python3; echo "exit $?"
fi
if want repeat; then
step "the same buffers again and again (bench_repeat): OpenBLAS alone against the preload (auto), and NVBLAS through sgemm_"
i=0
for a in "--size 4096 --calls 20" "--size 8192 --calls 5" "--size 4096 --calls 20 --fortran"; do
    i=$((i + 1))
    BENCH_REPEAT=$B/bench_repeat "$root/scripts/bench_repeat.sh" $TBLIB $a > "$out/repeat-$i.txt" 2>&1; rc=$?
    echo "-- preload, $a: exit $rc"; sed -n '/^== bench_repeat m=/,$p' "$out/repeat-$i.txt"
done
nvb=/usr/local/cuda/lib64/libnvblas.so
if [ -f $nvb ]; then
    printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_LOGFILE /tmp/nvblas.log\n' \
        "$lib/openblas-pthread/libopenblas.so.0" > /tmp/nvblas.conf
    i=$((i + 1))
    NVBLAS_CONFIG_FILE=/tmp/nvblas.conf BENCH_REPEAT=$B/bench_repeat "$root/scripts/bench_repeat.sh" $nvb \
        --size 4096 --calls 20 --fortran > "$out/repeat-$i.txt" 2>&1; rc=$?
    echo "-- NVBLAS, --size 4096 --calls 20 --fortran: exit $rc"; sed -n '/^== bench_repeat m=/,$p' "$out/repeat-$i.txt"
fi
fi
if want reliability; then
step "reliability: one line per item, from the ctest log above"
item() {
    local name=$1; shift
    local bad=0 line=""
    for t in "$@"; do
        r=$(grep -E "Test +#[0-9]+: $t " "$out/ctest.log" | grep -oE "Passed|Failed|Skipped|Not Run" | head -1)
        line="$line $t=${r:-missing}"
        [ "$r" = Passed ] || [ "$r" = Skipped ] || bad=1
    done
    printf '%-34s %s:%s\n' "$name" "$([ $bad = 0 ] && echo PASS || echo CHECK)" "$line"
}
item "1 concurrency (16/64 threads)" preload.threads preload.double-threads-fork
item "2 fork" preload.fork preload.double-threads-fork tool.stats-fork
item "3 injected faults, cap, GPU full" preload.faults preload.device-cap preload.gpu-full
item "4 bad input and settings" preload.illegal-args preload.bad-settings tool.usage
item "5 memory (valgrind, soak)" preload.valgrind preload.soak
item "6 conformance (BLAS, LAPACK testers)" preload.xscblat3-gpu preload.xscblat3-wide preload.xblat3s-gpu preload.xlintsts \
    preload.xdcblat3-gpu preload.xblat3d-gpu preload.xlintstd
TILEDBLAS_MODE=gpu LD_PRELOAD=$TBLIB $B/tests/soak --calls 10000 2>&1 | grep -E "soak:"
fi
step "done"
