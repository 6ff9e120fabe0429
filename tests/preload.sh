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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each case starts from default settings, whatever the caller's shell has.
for v in $(env | sed -n 's/^\(TILEDBLAS_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; exit 0; }
skip() { echo "SKIP: $*"; exit 77; }
have_gpu() { "$bin/gpu_probe" >/dev/null 2>&1; }
pre() { LD_PRELOAD="$lib" "$@"; }
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
    TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 300 >"$tmp/out" 2>"$tmp/err" || fail "wrong results"
    n=$(grep -cE '^tiledblas: sgemm (RowMajor|ColMajor) [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) \([a-z:-]+\)$' "$tmp/err")
    [ "$n" = 300 ] || fail "$n decision lines for 300 calls: $(grep -v ' -> ' "$tmp/err" | head -3)"
    [ "$(wc -l <"$tmp/err")" = 300 ] || fail "other lines besides the decision lines: $(grep -v ' -> ' "$tmp/err" | head -3)"
    pass "300 calls, 300 decision lines" ;;
mode-gpu)
    # Forced GPU: results right; without a GPU at most one warning, with one
    # every row-major NN call that BLAS does not make a no-op ran there.
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 300 >"$tmp/out" 2>"$tmp/err" \
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
mode-cpu)
    TILEDBLAS_MODE=cpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 100 >/dev/null 2>"$tmp/err" || fail "wrong results"
    [ "$(count ' -> cpu (mode-cpu)' "$tmp/err")" -ge 80 ] || fail "mode=cpu not honoured: $(head -3 "$tmp/err")"
    pass "mode=cpu keeps calls on the CPU" ;;
bad-settings)
    # Each bad value warns once, naming the variable, and results stay right.
    for kv in TILEDBLAS_MODE=fast TILEDBLAS_VERBOSE=7 TILEDBLAS_THRESHOLD=big TILEDBLAS_FAULT=disk \
              TILEDBLAS_DEVICE=-3 TILEDBLAS_VERIFY_EVERY=0; do
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
    pass "16 and 64 concurrent callers right" ;;
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
    # The reference CBLAS needs the reference library's RowMajorStrg.
    LD_LIBRARY_PATH=$blasdir TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=0 LD_PRELOAD="$lib" \
        "$blasdir/xscblat3" <"$deck" >"$tmp/out" 2>&1 || fail "xscblat3 exited non-zero"
    grep -q 'cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL' "$tmp/out" || fail "$(grep -i sgemm "$tmp/out" | head)"
    grep -q 'cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL' "$tmp/out" || fail "$(grep -i sgemm "$tmp/out" | head)"
    grep -q 'cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS' "$tmp/out" || fail "error exits"
    ! grep -qiE 'FAIL|SUSPECT' "$tmp/out" || fail "$(grep -iE 'FAIL|SUSPECT' "$tmp/out" | head)"
    pass "xscblat3 ($deck) in mode $mode: $(grep -c PASSED "$tmp/out") PASSED lines" ;;
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
*)
    echo "unknown case $case_name"; exit 2 ;;
esac
