#!/bin/sh
# tests/preload.sh CASE - the library as a user meets it: ordinary BLAS
# programs run with and without LD_PRELOAD, checked for what users care
# about (same answers, silence by default, one decision line per call, one
# warning at most, the real BLAS's own error reports). Exit 0 pass, 1 fail,
# 77 skip. Needs TB_LIB (libtiledblas.so) and TB_BIN (the test programs).
set -u
case_name=$1
lib=${TB_LIB:?}
bin=${TB_BIN:?}
blasdir=${TB_BLASDIR:-/usr/lib/x86_64-linux-gnu/blas}
# Each case starts from default settings in a scratch directory ($tmp); the
# calibrate case measures in a directory of its own.
. "$(dirname "$0")/lib.sh"
count() { grep -c "$1" "$2" || true; }

case "$case_name" in
quiet)
    # Default settings: same output as without the preload, nothing on stderr.
    "$bin/sgemm_check" >"$tmp/plain.out" 2>"$tmp/plain.err" || fail "sgemm_check fails without the preload"
    pre "$bin/sgemm_check" >"$tmp/pre.out" 2>"$tmp/pre.err" || fail "sgemm_check fails under the preload: $(cat "$tmp/pre.err")"
    cmp -s "$tmp/plain.out" "$tmp/pre.out" || fail "stdout differs under the preload"
    [ ! -s "$tmp/pre.err" ] || fail "the preload printed at default settings: $(head -3 "$tmp/pre.err")"
    pass "300 random calls right, identical output, silent" ;;
decision-lines)
    # VERBOSE=2: exactly one documented line per intercepted call.
    TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 300 --api mixed >"$tmp/out" 2>"$tmp/err" || fail "wrong results"
    n=$(grep -cE '^tiledblas: sgemm_? (RowMajor|ColMajor) [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) \([a-z:-]+\)( predicted cpu [0-9.]+ ms, gpu [0-9.]+ ms)?$' "$tmp/err")
    [ "$n" = 300 ] || fail "$n decision lines for 300 calls: $(grep -v ' -> ' "$tmp/err" | head -3)"
    [ "$(wc -l <"$tmp/err")" = 300 ] || fail "other lines besides the decision lines: $(grep -v ' -> ' "$tmp/err" | head -3)"
    pass "300 calls, 300 decision lines" ;;
mode-gpu)
    # Forced GPU: results right; without a GPU at most one warning, with one
    # every row-major NN call that BLAS does not make a no-op ran there.
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 300 --api mixed >"$tmp/out" 2>"$tmp/err" \
        || fail "wrong results in forced-GPU mode: $(grep -v ' -> ' "$tmp/err" | head -5)"
    warnings=$(grep -v ' -> ' "$tmp/err" | grep -c . || true)
    gpu=$(count ' -> gpu ' "$tmp/err")
    if have_gpu; then
        [ "$warnings" = 0 ] || fail "warnings on a GPU machine: $(grep -v ' -> ' "$tmp/err" | head -3)"
        [ "$gpu" -gt 0 ] || fail "no call went to the GPU"
        bad=$(grep ' -> cpu ' "$tmp/err" | grep -vcE '\((scope|no-op|illegal-args)\)' || true)
        [ "$bad" = 0 ] || fail "$bad eligible calls did not run on the GPU: $(grep ' -> cpu ' "$tmp/err" | grep -vE '\((scope|no-op)\)' | head -3)"
        pass "$gpu calls on the GPU, all right"
    fi
    [ "$warnings" -le 1 ] || fail "$warnings warnings: $(grep -v ' -> ' "$tmp/err")"
    [ "$gpu" = 0 ] || fail "gpu route claimed without a GPU"
    TILEDBLAS_MODE=gpu pre "$bin/sgemm_check" --calls 50 >/dev/null 2>"$tmp/err1" || fail "wrong results"
    [ "$(wc -l <"$tmp/err1")" -le 1 ] || fail "more than one line at default verbosity"
    pass "no GPU: results right, $warnings warning" ;;
exit-threads)
    # Threads keep calling (400^3) while the main thread calls exit(): every
    # run ends within its time limit with exit code 0, in each mode, with
    # and without statistics. (OpenBLAS 0.3.21 alone hangs in some runs.)
    for mode in auto gpu cpu verify; do
        for stats in "" 1; do
            for run in 1 2 3 4 5; do
                rc=0
                TILEDBLAS_MODE=$mode TILEDBLAS_STATS=$stats TILEDBLAS_VERBOSE=0 LD_PRELOAD="$lib" \
                    timeout 20 "$bin/exit_threads" 4 400 $((20 * run)) >/dev/null 2>"$tmp/err" || rc=$?
                [ $rc = 0 ] || fail "mode $mode${stats:+, stats}, run $run: exit $rc $(head -3 "$tmp/err")"
            done
        done
    done
    pass "40 runs, 4 threads calling while main exits: each ended, exit 0" ;;
model-trace)
    # Auto mode records the cost model's two predictions in the trace for
    # calls it weighed, and none for calls below the threshold. Without a
    # GPU the calls say why and carry no predicted GPU time.
    TILEDBLAS_TRACE="$tmp/t.jsonl" pre "$bin/sgemm_check" --calls 20 --rownn --min-dim 400 --max-dim 480 \
        >/dev/null 2>&1 || fail "wrong results"
    TILEDBLAS_TRACE="$tmp/s.jsonl" pre "$bin/sgemm_check" --calls 20 --rownn --max-dim 40 >/dev/null 2>&1 || fail "wrong results"
    if ! have_gpu; then
        [ "$(count '"reason":"no-gpu"' "$tmp/t.jsonl")" -ge 10 ] || fail "no GPU, yet: $(head -1 "$tmp/t.jsonl")"
        ! grep '"reason":"no-gpu"' "$tmp/t.jsonl" | grep -q pred_gpu_s ||
            fail "no GPU, yet predicted times: $(grep '"reason":"no-gpu"' "$tmp/t.jsonl" | grep -m1 pred_gpu_s)"
        ! grep -q pred_cpu_s "$tmp/s.jsonl" || fail "calls below the threshold carry predictions"
        TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 10 --rownn --min-dim 400 --max-dim 480 >/dev/null 2>"$tmp/err" \
            || fail "wrong results"
        [ "$(count ' -> cpu (no-gpu)$' "$tmp/err")" -ge 5 ] || fail "decision lines: $(head -2 "$tmp/err")"
        pass "no GPU: calls that asked for the GPU say no-gpu, without predicted times"
    fi
    weighed=$(grep -c '"pred_cpu_s":[0-9.]*,"pred_gpu_s":[0-9.]*' "$tmp/t.jsonl" || true)
    [ "$weighed" -ge 15 ] || fail "$weighed of 20 large calls carry predictions: $(head -1 "$tmp/t.jsonl")"
    ! grep -q pred_cpu_s "$tmp/s.jsonl" || fail "calls below the threshold carry predictions"
    # The decision lines carry the same two times.
    TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 10 --rownn --min-dim 400 --max-dim 480 >/dev/null 2>"$tmp/err" \
        || fail "wrong results"
    lines=$(count ' predicted cpu [0-9.]* ms, gpu [0-9.]* ms$' "$tmp/err")
    [ "$lines" -ge 8 ] || fail "$lines of 10 decision lines carry predictions: $(head -2 "$tmp/err")"
    pass "$weighed large calls traced with both predicted times, small ones without; decision lines too" ;;
calibrate)
    # Auto mode's first call that may use the GPU reads this machine's rates
    # from the cache, or measures them once and caches them; a changed key
    # or a damaged file measures again. No GPU: nothing measured or written.
    unset TILEDBLAS_CALIBRATE
    run() { TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 6 --rownn --min-dim 700 --max-dim 900 \
                >/dev/null 2>"$tmp/$1" || fail "wrong results ($1)"; }
    run err1
    if ! have_gpu; then
        [ ! -e "$tmp/cache" ] || fail "no GPU, yet rates were cached: $(ls "$tmp/cache")"
        [ "$(count 'cost model' "$tmp/err1")" = 0 ] || fail "no GPU, yet: $(grep 'cost model' "$tmp/err1")"
        pass "no GPU: nothing measured, nothing cached"
    fi
    [ "$(count 'cost model: measured by this process' "$tmp/err1")" = 1 ] || fail "not measured once: $(grep 'cost model' "$tmp/err1")"
    f=$(ls "$tmp"/cache/rates-*.txt) || fail "nothing cached"
    run err2
    grep -q "cost model: this machine's, read from $f" "$tmp/err2" || fail "the cache was not read: $(grep 'cost model' "$tmp/err2")"
    TILEDBLAS_STREAMS=1 run err3
    grep -q "cost model: measured" "$tmp/err3" || fail "another key did not measure again"
    [ "$(ls "$tmp"/cache/rates-*.txt | wc -l)" = 2 ] || fail "not two rate files: $(ls "$tmp/cache")"
    sed -i 's/^gpu_flops .*/gpu_flops many/' "$f"
    run err4
    grep -q "cost model: measured" "$tmp/err4" || fail "a damaged file was believed: $(grep 'cost model' "$tmp/err4")"
    grep -q "^gpu_flops [0-9]" "$f" || fail "the damaged file was not rewritten"
    TILEDBLAS_CALIBRATE=off run err5
    [ "$(count 'cost model' "$tmp/err5")" = 0 ] || fail "calibrate=off still calibrated"
    pass "measured once ($(sed -n 's/.*measured by this process in \([0-9]*\) ms.*/\1/p' "$tmp/err1") ms), then read back; new key or damaged file measured again" ;;
mode-cpu)
    TILEDBLAS_MODE=cpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 100 >/dev/null 2>"$tmp/err" || fail "wrong results"
    [ "$(count ' -> cpu (mode-cpu)' "$tmp/err")" -ge 80 ] || fail "mode=cpu not honoured: $(head -3 "$tmp/err")"
    pass "mode=cpu keeps calls on the CPU" ;;
bad-settings)
    # Each bad value warns once, naming the variable, and results stay right.
    for kv in TILEDBLAS_MODE=fast TILEDBLAS_VERBOSE=7 TILEDBLAS_THRESHOLD=big TILEDBLAS_FAULT=disk \
              TILEDBLAS_DEVICE=-3 TILEDBLAS_VERIFY_EVERY=0 TILEDBLAS_SCOPE=diagonal TILEDBLAS_LEARN=maybe; do
        var=${kv%%=*}
        env "$kv" LD_PRELOAD="$lib" "$bin/sgemm_check" --calls 40 >/dev/null 2>"$tmp/err" || fail "$kv broke results"
        grep -q "^tiledblas: $var=" "$tmp/err" || fail "$kv gave no warning naming $var: $(cat "$tmp/err")"
        [ "$(grep -c "$var=" "$tmp/err")" = 1 ] || fail "$kv warned more than once"
    done
    pass "bad values warn once, naming the variable" ;;
illegal-args)
    # The real BLAS reports illegal arguments (xerbla) exactly as without us.
    "$bin/illegal_args" >"$tmp/plain" 2>&1 || fail "illegal_args fails without the preload"
    for mode in auto gpu; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=0 pre "$bin/illegal_args" >"$tmp/pre" 2>&1 \
            || fail "the program did not go on under the preload (mode $mode)"
        diff "$tmp/plain" "$tmp/pre" >"$tmp/diff" || fail "reports differ (mode $mode): $(head -5 "$tmp/diff")"
    done
    pass "$(grep -c 'illegal value' "$tmp/plain") illegal calls reported exactly as OpenBLAS does" ;;
threads)
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=0 pre "$bin/sgemm_check" --calls 640 --threads 16 >"$tmp/out" 2>&1 \
        || fail "16 threads: $(tail -3 "$tmp/out")"
    TILEDBLAS_VERBOSE=0 pre "$bin/sgemm_check" --calls 640 --threads 64 --rownn --max-dim 40 >"$tmp/out" 2>&1 \
        || fail "64 threads: $(tail -3 "$tmp/out")"
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=0 pre "$bin/sgemm_check" --calls 640 --threads 32 --openmp --api mixed \
        >"$tmp/out" 2>&1 || fail "32 OpenMP threads: $(tail -3 "$tmp/out")"
    grep -q "on 32 OpenMP thread" "$tmp/out" || fail "the OpenMP run did not happen: $(cat "$tmp/out")"
    pass "16 and 64 POSIX threads and 32 OpenMP threads calling at once: all right" ;;
fork)
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=0 pre "$bin/sgemm_check" --calls 60 --fork >"$tmp/out" 2>&1 \
        || fail "around fork: $(tail -3 "$tmp/out")"
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=0 pre "$bin/sgemm_check" --calls 60 --threads 4 --fork >"$tmp/out" 2>&1 \
        || fail "threads and fork: $(tail -3 "$tmp/out")"
    pass "parent, forked child and parent again all right" ;;
xscblat3-auto|xscblat3-gpu|xscblat3-wide)
    [ -x "$blasdir/xscblat3" ] || skip "xscblat3 not installed (Debian package libblas-test)"
    deck=$blasdir/sin3; mode=${case_name#xscblat3-}
    [ "$mode" = wide ] && { deck=$(dirname "$0")/data/sin3_wide; mode=gpu; }
    cd "$tmp" || exit 1
    # The reference CBLAS needs the reference library's RowMajorStrg. Its
    # cblas_sgemm calls sgemm_, which we also export: each call must be
    # intercepted once (as sgemm), never a second time (as sgemm_).
    LD_LIBRARY_PATH=$blasdir TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" \
        "$blasdir/xscblat3" <"$deck" >"$tmp/out" 2>"$tmp/err" || fail "xscblat3 exited non-zero"
    grep -q 'cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL' "$tmp/out" || fail "$(grep -i sgemm "$tmp/out" | head)"
    grep -q 'cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL' "$tmp/out" || fail "$(grep -i sgemm "$tmp/out" | head)"
    grep -q 'cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS' "$tmp/out" || fail "error exits"
    ! grep -qiE 'FAIL|SUSPECT' "$tmp/out" || fail "$(grep -iE 'FAIL|SUSPECT' "$tmp/out" | head)"
    twice=$(count '^tiledblas: sgemm_ ' "$tmp/err"); once=$(count '^tiledblas: sgemm ' "$tmp/err")
    [ "$twice" = 0 ] && [ "$once" -gt 1000 ] || fail "recursion guard: $once cblas lines, $twice sgemm_ lines"
    gpu=$(count ' -> gpu ' "$tmp/err")
    have_gpu && [ "$mode" = gpu ] && { [ "$gpu" -gt 1000 ] || fail "only $gpu calls reached the GPU"; }
    pass "xscblat3 ($deck) in mode $mode: $(grep -c PASSED "$tmp/out") PASSED lines; $once calls intercepted once each, $gpu on the GPU" ;;
xblat3s-auto|xblat3s-gpu)
    # The reference Fortran tester calls sgemm_ directly.
    [ -x "$blasdir/xblat3s" ] || skip "xblat3s not installed (Debian package libblas-test)"
    mode=${case_name#xblat3s-}
    cd "$tmp" || exit 1
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$blasdir/xblat3s" <"$blasdir/sblat3.in" \
        >"$tmp/out" 2>"$tmp/err" || fail "xblat3s exited non-zero"
    grep -q 'SGEMM  PASSED THE COMPUTATIONAL TESTS' "$tmp/sblat3.out" || fail "$(grep -i sgemm "$tmp/sblat3.out" | head)"
    grep -q 'SGEMM  PASSED THE TESTS OF ERROR-EXITS' "$tmp/sblat3.out" || fail "error exits"
    ! grep -qiE 'FAIL|SUSPECT' "$tmp/sblat3.out" || fail "$(grep -iE 'FAIL|SUSPECT' "$tmp/sblat3.out" | head)"
    n=$(count '^tiledblas: sgemm_ ColMajor' "$tmp/err"); gpu=$(count ' -> gpu ' "$tmp/err")
    [ "$n" -gt 1000 ] || fail "only $n sgemm_ calls intercepted"
    have_gpu && [ "$mode" = gpu ] && { [ "$gpu" -gt 1000 ] || fail "only $gpu calls reached the GPU"; }
    pass "xblat3s in mode $mode: SGEMM passed; $n sgemm_ calls intercepted, $gpu on the GPU" ;;
xlintsts)
    # LAPACK's single-precision linear solver tests, against the reference
    # LAPACK (whose sgemm_ calls reach us), in forced-GPU mode: the summary
    # must match the run without the preload line for line.
    lapackdir=${TB_LAPACKDIR:-$(dirname "$blasdir")/lapack}
    [ -x "$lapackdir/xlintsts" ] || skip "xlintsts not installed (Debian package liblapack-test)"
    cd "$tmp" || exit 1
    LD_LIBRARY_PATH=$lapackdir "$lapackdir/xlintsts" <"$lapackdir/stest.in" >"$tmp/plain" 2>&1 || fail "xlintsts fails without the preload"
    LD_LIBRARY_PATH=$lapackdir TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=0 TILEDBLAS_STATS= LD_PRELOAD="$lib" \
        "$lapackdir/xlintsts" <"$lapackdir/stest.in" >"$tmp/pre" 2>&1 || fail "xlintsts fails under the preload"
    grep -E 'tests run|failed to pass|out of' "$tmp/plain" | sed 's/ *$//' >"$tmp/plain.sum"
    grep -E 'tests run|failed to pass|out of' "$tmp/pre" | sed 's/ *$//' >"$tmp/pre.sum"
    [ -s "$tmp/plain.sum" ] || fail "no summary lines in xlintsts output"
    diff "$tmp/plain.sum" "$tmp/pre.sum" >"$tmp/diff" || fail "summaries differ: $(head -6 "$tmp/diff")"
    pass "xlintsts: $(grep -c 'passed the threshold' "$tmp/pre.sum") routine groups passed, summary identical to the plain run" ;;
numpy)
    # numpy (Debian's python3-numpy) calls cblas_sgemm from a privately
    # dlopen()ed BLAS, with row- and column-major, transposed operands.
    py=/usr/bin/python3
    $py -c 'import numpy' 2>/dev/null || skip "python3-numpy not installed"
    for mode in auto gpu; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" $py "$(dirname "$0")/numpy_check.py" \
            >"$tmp/out" 2>"$tmp/err" || fail "numpy products wrong in mode $mode: $(cat "$tmp/out" | tail -3)"
        n=$(count '^tiledblas: sgemm ' "$tmp/err")
        want=$(sed -n 's/^products: //p' "$tmp/out")
        [ "$n" -ge "$want" ] || fail "mode $mode: $n decision lines for $want float32 products"
    done
    pass "numpy: $want float32 products (C, Fortran and transposed operands) intercepted and right" ;;
fortran)
    # sgemm_ calls, lower case and 'C' included, through the same decision.
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 200 --api fortran >"$tmp/out" 2>"$tmp/err" \
        || fail "wrong sgemm_ results: $(grep -v ' -> ' "$tmp/err" | head -3)"
    n=$(count '^tiledblas: sgemm_ ColMajor ' "$tmp/err")
    [ "$n" = 200 ] || fail "$n sgemm_ decision lines for 200 calls"
    pass "200 Fortran calls right, each with one sgemm_ decision line" ;;
scope)
    # TILEDBLAS_SCOPE narrows what may go to the GPU: here the first scope,
    # cblas row-major NN; everything else must say (scope).
    TILEDBLAS_SCOPE=cblas,rowmajor,nn TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 200 \
        --api mixed >"$tmp/out" 2>"$tmp/err" || fail "wrong results"
    bad=$(grep ' (scope)$' "$tmp/err" | grep -c 'sgemm RowMajor NN' || true)
    [ "$bad" = 0 ] || fail "$bad in-scope calls were refused"
    out=$(grep -vE 'sgemm RowMajor NN|\((no-op|illegal-args)\)' "$tmp/err" | grep -vc ' (scope)$' || true)
    [ "$out" -le 1 ] || fail "$out out-of-scope calls were not refused: $(grep -vE 'sgemm RowMajor NN' "$tmp/err" | grep -v '(scope)' | head -3)"
    [ "$(count ' (scope)$' "$tmp/err")" -gt 50 ] || fail "too few calls refused"
    pass "scope cblas,rowmajor,nn: $(count ' (scope)$' "$tmp/err") calls kept off the GPU, the rest allowed" ;;
exports)
    # Only BLAS names and the tiledblas_* API are visible to the loader.
    nm -D --defined-only "$lib" | awk '{print $3}' >"$tmp/syms"
    bad=$(grep -vE '^(cblas_sgemm|sgemm_|sgemm|tiledblas_[a-z_]+)$' "$tmp/syms" | grep -v '^$' || true)
    [ -z "$bad" ] || fail "unexpected exports: $(echo "$bad" | head -5 | tr '\n' ' ')"
    grep -qx cblas_sgemm "$tmp/syms" || fail "cblas_sgemm not exported"
    pass "exports: $(tr '\n' ' ' <"$tmp/syms")" ;;
deps)
    # Loads where no CUDA is installed and drags in no BLAS.
    ldd "$lib" >"$tmp/ldd" || fail "ldd failed"
    ! grep -qiE 'cudart|cublas|blas|lapack|libcuda' "$tmp/ldd" || fail "$(grep -iE 'cudart|cublas|blas|libcuda' "$tmp/ldd")"
    pass "no libcudart, no BLAS: $(awk '{print $1}' "$tmp/ldd" | tr '\n' ' ')" ;;
lazy-start)
    # Loading the library does nothing visible: no CUDA, no output, no files.
    TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" /bin/true 2>"$tmp/err" || fail "/bin/true failed under the preload"
    [ ! -s "$tmp/err" ] || fail "the constructor printed: $(cat "$tmp/err")"
    TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$bin/sgemm_check" --calls 20 --max-dim 8 >/dev/null 2>"$tmp/err"
    ! grep -q 'CUDA' "$tmp/err" || fail "small calls started CUDA: $(grep CUDA "$tmp/err")"
    pass "nothing at load, small calls never start CUDA" ;;
faults)
    # Injected GPU faults: each call completes right on the CPU, one warning
    # per kind, and repeated faults switch the GPU path off.
    have_gpu || skip "no CUDA device: injected faults need a GPU to fail"
    for stage in init alloc h2d launch kernel d2h; do
        TILEDBLAS_FAULT=$stage TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 30 --rownn \
            >"$tmp/out" 2>"$tmp/err" || fail "fault $stage gave wrong results"
        w=$(grep -v ' -> ' "$tmp/err" | grep -c . || true)
        [ "$w" -le 2 ] || fail "fault $stage: $w warnings: $(grep -v ' -> ' "$tmp/err")"
        [ "$(count ' -> gpu ' "$tmp/err")" = 0 ] || fail "fault $stage: a call claimed the GPU"
    done
    pass "init/alloc/h2d/launch/kernel/d2h faults all completed on the CPU" ;;
valgrind)
    # The CPU path under memcheck; without a GPU also forced-GPU mode, whose
    # CUDA start fails and whose calls complete on the CPU. With a GPU the
    # forced-GPU run is left out: the CUDA driver itself is not
    # valgrind-clean, so its verdict would say nothing about our code.
    command -v valgrind >/dev/null || skip "valgrind not installed"
    modes="auto gpu"
    have_gpu && modes=auto
    for mode in $modes; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=0 LD_PRELOAD="$lib" valgrind -q --error-exitcode=9 \
            --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
            "$bin/sgemm_check" --calls 40 --api mixed >"$tmp/out" 2>&1
        rc=$?
        [ $rc = 0 ] || fail "valgrind (mode $mode) exit $rc: $(grep -E '==[0-9]+==' "$tmp/out" | head -8)"
        grep -q '^40 passed, 0 failed$' "$tmp/out" || fail "valgrind (mode $mode): the calls did not all run: $(tail -3 "$tmp/out")"
    done
    pass "valgrind memcheck, 40 calls in mode(s) $modes: no errors, no definite leaks" ;;
soak)
    # 10,000 mixed calls; memory after warm-up and at the end must not grow.
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=0 pre "$bin/soak" --calls 10000 >"$tmp/out" 2>&1 \
        || fail "$(tail -4 "$tmp/out")"
    cat "$tmp/out"
    pass "soak: $(grep -c . "$tmp/out") lines, no growth" ;;
device-cap)
    # A device-memory cap far below what the calls need: the library cuts
    # them into column blocks and panels, and every result stays right.
    have_gpu || skip "no CUDA device: the cap cuts GPU work into blocks and panels, which needs a GPU"
    TILEDBLAS_DEVICE_MEMORY=6M TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 5 \
        --min-dim 900 --max-dim 1100 >"$tmp/out" 2>"$tmp/err" || fail "wrong results under a 6 MiB cap: $(tail -3 "$tmp/out")"
    [ "$(count ' -> gpu ' "$tmp/err")" -ge 3 ] || fail "the capped calls did not run on the GPU: $(head -3 "$tmp/err")"
    pass "5 calls of 900-1100 under a 6 MiB device cap: cut into blocks and panels on the GPU, and right" ;;
gpu-full)
    have_gpu || skip "no CUDA device"
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=1 pre "$bin/gpu_full" >"$tmp/out" 2>&1 || fail "$(tail -4 "$tmp/out")"
    cat "$tmp/out"
    pass "right with the GPU nearly full" ;;
no-blas)
    # No BLAS anywhere: a program linked to the library alone, and one with
    # none run under the preload, TILEDBLAS_CPU_BLAS naming a library that is
    # not there. Every call is right (the built-in CPU GEMM), one warning
    # says what was looked for, illegal calls are reported in the BLAS's
    # words and leave C as it was; silent at TILEDBLAS_VERBOSE=0.
    ldd "$bin/no_blas" | grep -i blas | grep -v tiledblas && fail "no_blas loads a BLAS"
    none=libtiledblas-test-no-such-blas.so.0
    want="tiledblas: no CPU BLAS found: the program loaded no cblas_sgemm or sgemm_, and TILEDBLAS_CPU_BLAS='$none' could not be opened ($none: cannot open shared object file: No such file or directory); calls run on the built-in CPU GEMM (single-threaded, slow)"
    one_warning() {   # $1: stderr file, $2: the line it must be
        [ "$(wc -l <"$1")" = 1 ] && [ "$(head -1 "$1")" = "$2" ] ||
            fail "not the one warning: $(head -5 "$1")"
    }
    TILEDBLAS_CPU_BLAS=$none "$bin/no_blas" >"$tmp/out" 2>"$tmp/err" || fail "linked: $(tail -5 "$tmp/out")"
    cat "$tmp/out"
    one_warning "$tmp/err" "$want"
    rc=0; "$bin/no_blas_dl" >"$tmp/out" 2>&1 || rc=$?
    [ $rc = 2 ] || fail "no_blas_dl found an sgemm without the preload (exit $rc): $(cat "$tmp/out")"
    TILEDBLAS_CPU_BLAS=$none pre "$bin/no_blas_dl" 300 small >"$tmp/out" 2>"$tmp/err" ||
        fail "preloaded: $(tail -5 "$tmp/out")"
    one_warning "$tmp/err" "$want"
    TILEDBLAS_CPU_BLAS=$none "$bin/no_blas" illegal >"$tmp/out" 2>"$tmp/err" || fail "illegal: $(cat "$tmp/out")"
    cat "$tmp/out"
    one_warning "$tmp/err" "$want"
    TILEDBLAS_CPU_BLAS=libm.so.6 "$bin/no_blas" 50 small >"$tmp/out" 2>"$tmp/err" || fail "libm: $(tail -5 "$tmp/out")"
    one_warning "$tmp/err" "${want%%, and *}, and TILEDBLAS_CPU_BLAS='libm.so.6' has neither; calls run on the built-in CPU GEMM (single-threaded, slow)"
    for mode in auto cpu gpu verify; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=0 TILEDBLAS_CPU_BLAS=$none pre "$bin/no_blas_dl" 100 small \
            >"$tmp/out" 2>"$tmp/err" || fail "mode $mode: $(tail -5 "$tmp/out")"
        # (verify mode's report at exit is written whatever the verbosity)
        [ $mode = verify ] || [ ! -s "$tmp/err" ] || fail "mode $mode, TILEDBLAS_VERBOSE=0: $(head -3 "$tmp/err")"
    done
    pass "no BLAS: every call right, linked and preloaded, in every mode; one warning; illegal calls reported as the BLAS does" ;;
*)
    echo "unknown case $case_name"; exit 2 ;;
esac
