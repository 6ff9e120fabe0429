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
# A run's precision: sgemm_check's option for it ($dbl) and the routine its
# decision lines name ($g: "sgemm" for cblas_sgemm, "sgemm_" for sgemm_).
# The double, complex and zcomplex cases are the single ones' checks on
# cblas_dgemm and dgemm_ calls, cblas_cgemm and cgemm_, cblas_zgemm and
# zgemm_.
set_prec() {
    prec=$1
    case $prec in
    double) dbl=--double g=dgemm ;;
    complex) dbl=--complex g=cgemm ;;
    zcomplex) dbl=--zcomplex g=zgemm ;;
    *) dbl="" g=sgemm ;;
    esac
}
case "$case_name" in
double*|xlintstd) set_prec double ;;
complex*|xlintstc) set_prec complex ;;
zcomplex*|xlintstz) set_prec zcomplex ;;
*) set_prec single ;;
esac
# The calls that statistics rows (TILEDBLAS_STATS, JSON lines) in $1 count
# for precision $2, over every process report in the file.
stats_calls() {
    grep '^{"stats":"row"' "$1" 2>/dev/null | grep "\"prec\":\"$2\"" |
        sed -n 's/.*"calls":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
}
# A reference level-3 tester's run, checked: level3_tester cblas|fortran
# DECK REPORT STDERR. Every routine the deck tests passed its error exits
# and computational tests, with no failure or suspect result; each of its
# calls was intercepted once, in its own name (cblas_dsyrk as dsyrk, dsyrk_
# as dsyrk_): its decision lines are its computed calls plus the illegal
# calls of its error-exit tests, which say illegal-args and all come before
# the first computed one. Every routine is decided as GEMM is (none says
# cpu-only); in forced-GPU mode on a GPU every computed call of every
# routine reaches it (over 1000 GEMM calls), but the no-ops (no-op), and
# without one each says no-gpu; in verify mode every routine but GEMM
# says verify-gemm-only; at most one line besides the decision lines
# (forced-GPU mode's warning that there is no GPU) and, in verify mode, the
# verdict's lines, which with a GPU say every call compared was within its
# bound. Sets $said.
level3_tester() {
    api=$1 deck=$2 report=$3 err=$4
    [ -f "$report" ] || fail "no report $report"
    ! grep -qiE 'FAIL|SUSPECT' "$report" || fail "$(grep -iE 'FAIL|SUSPECT' "$report" | head -3)"
    routines=$(sed -n 's/^\(cblas_\)\{0,1\}\([SDCZsdcz][A-Za-z0-9]*\) *T .*/\2/p' "$deck" | tr A-Z a-z)
    [ -n "$routines" ] || fail "no routine tested in $deck"
    said="" total=0
    for r in $routines; do
        if [ "$api" = cblas ]; then name=$r; R=cblas_$r; else name=${r}_; R=$(echo "$r" | tr a-z A-Z); fi
        grep -qE "^ *$R +PASSED THE TESTS OF ERROR-EXITS" "$report" || fail "$R: error exits: $(grep -E "^ *$R " "$report" | head -3)"
        computed=$(sed -n "s/^ *$R *PASSED THE .*COMPUTATIONAL TESTS ( *\([0-9]*\) CALLS).*/\1/p" "$report" |
                   awk '{ s += $1; n++ } END { print (n ? s : -1) }')
        [ "$computed" -gt 0 ] || fail "$R did not pass its computational tests: $(grep -E "^ *$R " "$report" | head -3)"
        [ "$api" = fortran ] || [ "$(grep -cE "^ *$R *PASSED THE (COLUMN|ROW)-MAJOR" "$report")" = 2 ] ||
            fail "$R: not both layouts passed"
        # lines, illegal-args lines, and whether every illegal one came first
        set -- $(awk -v n="tiledblas: $name " 'index($0, n) == 1 {
                     lines++; if (/ -> cpu \(illegal-args\)$/) { ill++; if (legal) late++ } else legal++ }
                     END { print lines + 0, ill + 0, late + 0 }' "$err")
        [ "$1" = $((computed + $2)) ] && [ "$2" -gt 0 ] && [ "$3" = 0 ] ||
            fail "$R: $1 decision lines for $computed computed calls and $2 illegal ones ($3 illegal after a computed one)"
        bad=$(grep "^tiledblas: $name " "$err" | grep -c ' (cpu-only)$' || true)
        [ "$bad" = 0 ] || fail "$R: $bad calls say cpu-only"
        if [ "$mode" = gpu ]; then
            if have_gpu; then want=' -> (gpu \(forced\)|cpu \((no-op|illegal-args)\))$'
            else want=' -> cpu \((no-gpu|no-op|illegal-args)\)$'; fi
            bad=$(grep "^tiledblas: $name " "$err" | grep -vcE "$want" || true)
            [ "$bad" = 0 ] || fail "$R: $bad calls not as forced-GPU mode has them: $(grep "^tiledblas: $name " "$err" | grep -vE "$want" | head -2)"
            on=$(grep "^tiledblas: $name " "$err" | grep -c ' -> gpu ' || true)
            ! have_gpu || [ "$on" -gt 0 ] || fail "$R: no call reached the GPU"
        elif [ "$mode" = verify ]; then
            case $r in
            ?gemm) ;;
            *) want=' -> cpu \((verify-gemm-only|no-op|illegal-args)\)$'
               bad=$(grep "^tiledblas: $name " "$err" | grep -vcE "$want" || true)
               [ "$bad" = 0 ] || fail "$R: $bad calls not verify-gemm-only: $(grep "^tiledblas: $name " "$err" | grep -vE "$want" | head -2)" ;;
            esac
        fi
        total=$((total + $1)) said="$said $R $1"
    done
    # (verify mode adds its verdict at exit, and without a GPU its warning)
    others=$(grep -v ' -> ' "$err" | grep -v '^tiledblas: verify: ' | grep -c . || true)
    [ "$others" -le 1 ] || fail "$others lines besides the decision lines: $(grep -v ' -> ' "$err" | head -3)"
    if [ "$mode" = verify ] && have_gpu; then
        grep -qE '^tiledblas: verify: all [0-9]+ calls within' "$err" ||
            fail "verify: $(grep '^tiledblas: verify: ' "$err" | head -4)"
    fi
    gpu=$(count ' -> gpu ' "$err")
    if have_gpu; then
        [ "$mode" != gpu ] || ! echo "$routines" | grep -qE '^[sdcz]gemm$' || [ "$gpu" -gt 1000 ] ||
            fail "only $gpu calls reached the GPU"
    else
        [ "$gpu" = 0 ] || fail "no GPU, yet $gpu calls claim it"
    fi
    said="all passed;$said decision lines, each routine's computed and illegal calls once; $gpu on the GPU"
}
# Calls from many threads at once, and around fork(): in the given mode,
# every result right and exactly one whole decision line per call.
#   many WHAT CALLS MODE SGEMM_CHECK_ARGS...
many() {
    what=$1 calls=$2 mode=$3
    shift 3
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" "$@" $dbl >"$tmp/out" 2>"$tmp/err" \
        || fail "$what: $(grep -v ' -> ' "$tmp/err" | head -3) $(tail -1 "$tmp/out")"
    n=$(grep -cE "^tiledblas: ${g}_? (RowMajor|ColMajor) [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) " "$tmp/err")
    [ "$n" = "$calls" ] || fail "$what: $n $g decision lines for $calls calls: $(grep -v ' -> ' "$tmp/err" | head -3)"
}
# The cases of the cache (calibrate, learned), in auto mode with decision
# lines: cache_run CALLS NAME runs CALLS products of 8192^3 in one process
# (the first waits for the GPU's start), stderr to $tmp/NAME; no_gpu_run,
# without a GPU, six calls of 700-900 through sgemm_check, stderr to
# $tmp/err1.
cache_run() {
    TILEDBLAS_VERBOSE=2 pre "$bin/../bench_startup" 8192 "$1" >/dev/null 2>"$tmp/$2" || fail "failed ($2)"
}
no_gpu_run() {
    TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 6 --rownn --min-dim 700 --max-dim 900 \
        >/dev/null 2>"$tmp/err1" || fail "wrong results"
}
threads_runs() {
    many "16 threads" 640 gpu --calls 640 --threads 16
    many "64 threads" 640 auto --calls 640 --threads 64 --rownn --max-dim 40
    many "32 OpenMP threads" 640 gpu --calls 640 --threads 32 --openmp --api mixed
    grep -q "on 32 OpenMP thread" "$tmp/out" || fail "the OpenMP run did not happen: $(cat "$tmp/out")"
}
# The parent's calls, a forked child's and the parent's again: 60 each.
fork_runs() {
    many "around fork" 180 gpu --calls 60 --fork
    many "threads and fork" 180 gpu --calls 60 --threads 4 --fork
}

case "$case_name" in
quiet|double)
    # Default settings: same output as without the preload, nothing on
    # stderr; and the statistics show that the preload saw all 300 calls,
    # each counted in its precision.
    "$bin/sgemm_check" $dbl >"$tmp/plain.out" 2>"$tmp/plain.err" || fail "sgemm_check $dbl fails without the preload"
    pre "$bin/sgemm_check" $dbl >"$tmp/pre.out" 2>"$tmp/pre.err" || fail "sgemm_check $dbl fails under the preload: $(cat "$tmp/pre.err")"
    cmp -s "$tmp/plain.out" "$tmp/pre.out" || fail "stdout differs under the preload"
    [ ! -s "$tmp/pre.err" ] || fail "the preload printed at default settings: $(head -3 "$tmp/pre.err")"
    TILEDBLAS_STATS="$tmp/stats.jsonl" pre "$bin/sgemm_check" $dbl >/dev/null 2>&1 || fail "wrong results with statistics"
    n=$(stats_calls "$tmp/stats.jsonl" $prec)
    [ "$n" = 300 ] || fail "the statistics count $n $prec-precision calls of 300: $(head -2 "$tmp/stats.jsonl" 2>/dev/null)"
    pass "300 random $prec-precision calls right, identical output, silent; all 300 intercepted" ;;
decision-lines|double-lines|complex-lines|zcomplex-lines)
    # VERBOSE=2: exactly one documented line per intercepted call, both
    # interfaces among them; the trace has one line per call, naming its
    # precision.
    TILEDBLAS_VERBOSE=2 TILEDBLAS_TRACE="$tmp/trace.jsonl" pre "$bin/sgemm_check" --calls 300 --api mixed $dbl \
        >"$tmp/out" 2>"$tmp/err" || fail "wrong results"
    n=$(grep -cE "^tiledblas: ${g}_? (RowMajor|ColMajor) [NTC][NTC] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) \\([a-z:-]+\\)( predicted cpu [0-9.]+ ms, gpu [0-9.]+ ms)?\$" "$tmp/err")
    [ "$n" = 300 ] || fail "$n $g decision lines for 300 calls: $(grep -v ' -> ' "$tmp/err" | head -3)"
    [ "$(wc -l <"$tmp/err")" = 300 ] || fail "other lines besides the decision lines: $(grep -v ' -> ' "$tmp/err" | head -3)"
    [ "$(count "^tiledblas: $g " "$tmp/err")" -gt 0 ] && [ "$(count "^tiledblas: ${g}_ ColMajor " "$tmp/err")" -gt 0 ] \
        || fail "not both interfaces: $(count "^tiledblas: $g " "$tmp/err") $g lines, $(count "^tiledblas: ${g}_ " "$tmp/err") ${g}_ lines"
    [ -s "$tmp/trace.jsonl" ] || fail "no trace written"
    t=$(count "\"prec\":\"$prec\"" "$tmp/trace.jsonl")
    [ "$t" = 300 ] && [ "$(wc -l <"$tmp/trace.jsonl")" = 300 ] \
        || fail "$t of $(wc -l <"$tmp/trace.jsonl") trace lines for 300 calls say \"prec\":\"$prec\": $(head -1 "$tmp/trace.jsonl")"
    pass "300 $prec-precision calls, 300 $g/${g}_ decision lines, 300 trace lines" ;;
mode-gpu|double-gpu|complex-gpu|zcomplex-gpu)
    # Forced GPU: results right, one decision line per call; without a GPU
    # at most one warning, with one every row-major NN call that BLAS does
    # not make a no-op ran there.
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 300 --api mixed $dbl >"$tmp/out" 2>"$tmp/err" \
        || fail "wrong results in forced-GPU mode: $(grep -v ' -> ' "$tmp/err" | head -5)"
    n=$(grep -cE "^tiledblas: ${g}_? .* -> (gpu|cpu) " "$tmp/err")
    [ "$n" = 300 ] || fail "$n $g decision lines for 300 calls: $(grep -v ' -> ' "$tmp/err" | head -3)"
    warnings=$(grep -v ' -> ' "$tmp/err" | grep -c . || true)
    gpu=$(count ' -> gpu ' "$tmp/err")
    if have_gpu; then
        [ "$warnings" = 0 ] || fail "warnings on a GPU machine: $(grep -v ' -> ' "$tmp/err" | head -3)"
        [ "$gpu" -gt 0 ] || fail "no call went to the GPU"
        bad=$(grep ' -> cpu ' "$tmp/err" | grep -vcE '\((scope|no-op|illegal-args)\)' || true)
        [ "$bad" = 0 ] || fail "$bad eligible calls did not run on the GPU: $(grep ' -> cpu ' "$tmp/err" | grep -vE '\((scope|no-op)\)' | head -3)"
        pass "$gpu $prec-precision calls on the GPU, all right"
    fi
    [ "$warnings" -le 1 ] || fail "$warnings warnings: $(grep -v ' -> ' "$tmp/err")"
    [ "$gpu" = 0 ] || fail "gpu route claimed without a GPU"
    TILEDBLAS_MODE=gpu pre "$bin/sgemm_check" --calls 50 $dbl >/dev/null 2>"$tmp/err1" || fail "wrong results"
    [ "$(wc -l <"$tmp/err1")" -le 1 ] || fail "more than one line at default verbosity"
    pass "no GPU: $prec-precision results right, $warnings warning" ;;
l3-random)
    # Random calls of the level-3 routines but GEMM (tests/l3_check.c: symm,
    # hemm, syrk, herk, syr2k, her2k, trmm and trsm in every precision,
    # option, layout and interface, against a long-double reference, NaN
    # where they must not read and sentinels where they must not write):
    # right without the preload; under it in auto mode right, the same
    # output, silent; in forced-GPU mode right with one decision line per
    # call. With a GPU there every call but the no-ops ran on it, each of
    # the 26 routine-precision pairs among them; without one each call says
    # no-gpu or no-op, after at most one warning.
    "$bin/l3_check" >"$tmp/plain.out" 2>"$tmp/plain.err" || fail "l3_check fails without the preload: $(head -3 "$tmp/plain.err")"
    calls=$(sed -n 's/^l3_check: \([0-9]*\) calls, 0 failed$/\1/p' "$tmp/plain.out")
    [ -n "$calls" ] || fail "no summary line: $(cat "$tmp/plain.out")"
    TILEDBLAS_MODE=auto pre "$bin/l3_check" >"$tmp/pre.out" 2>"$tmp/pre.err" || fail "l3_check fails under the preload: $(head -3 "$tmp/pre.err")"
    cmp -s "$tmp/plain.out" "$tmp/pre.out" || fail "stdout differs under the preload"
    [ ! -s "$tmp/pre.err" ] || fail "the preload printed at default settings: $(head -3 "$tmp/pre.err")"
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/l3_check" >"$tmp/out" 2>"$tmp/err" \
        || fail "wrong results in forced-GPU mode: $(grep -v ' -> ' "$tmp/err" | head -5)"
    line='^tiledblas: [sdcz](symm|hemm|syrk|herk|syr2k|her2k|trmm|trsm)_? (RowMajor|ColMajor) [A-Z]+ m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) \('
    n=$(grep -cE "$line" "$tmp/err")
    [ "$n" = "$calls" ] || fail "$n decision lines for $calls calls: $(grep -vE "$line" "$tmp/err" | head -3)"
    warnings=$(grep -v ' -> ' "$tmp/err" | grep -c . || true)
    gpu=$(count ' -> gpu ' "$tmp/err")
    if have_gpu; then
        [ "$warnings" = 0 ] || fail "warnings on a GPU machine: $(grep -v ' -> ' "$tmp/err" | head -3)"
        want=' -> (gpu \(forced\)|cpu \(no-op\))$'
        bad=$(grep -vcE "$want" "$tmp/err" || true)
        [ "$bad" = 0 ] || fail "$bad calls did not run on the GPU: $(grep -vE "$want" "$tmp/err" | head -3)"
        for r in ssymm dsymm csymm zsymm chemm zhemm ssyrk dsyrk csyrk zsyrk cherk zherk ssyr2k dsyr2k csyr2k \
                 zsyr2k cher2k zher2k strmm dtrmm ctrmm ztrmm strsm dtrsm ctrsm ztrsm; do
            grep -qE "^tiledblas: ${r}_? .* -> gpu " "$tmp/err" || fail "no $r call reached the GPU"
        done
        pass "$calls random level-3 calls right plain and in auto mode (same output, silent); forced GPU: $gpu on the GPU (every routine in every precision), the rest no-ops, all right"
    fi
    [ "$warnings" -le 1 ] || fail "$warnings warnings: $(grep -v ' -> ' "$tmp/err" | head -3)"
    [ "$gpu" = 0 ] || fail "gpu route claimed without a GPU"
    bad=$(grep -E "$line" "$tmp/err" | grep -vcE ' -> cpu \((no-gpu|no-op)\)$' || true)
    [ "$bad" = 0 ] || fail "$bad calls neither no-gpu nor no-op: $(grep -E "$line" "$tmp/err" | grep -vE ' -> cpu \((no-gpu|no-op)\)$' | head -3)"
    pass "$calls random level-3 calls right plain and in auto mode (same output, silent); no GPU: forced-GPU mode right, $warnings warning" ;;
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
    # Auto mode reads this machine's rates from the cache once CUDA has
    # started in the background; with none cached it measures the GPU's own
    # there and caches nothing; TILEDBLAS_CALIBRATE=force measures all and
    # caches it; a changed key or a damaged file is not believed. The
    # program is one 8192^3 call, which waits for the start (so the start,
    # and its line, always come before the process ends). No GPU: nothing
    # measured or written.
    unset TILEDBLAS_CALIBRATE
    run() { cache_run 1 "$1"; }
    if ! have_gpu; then
        no_gpu_run
        [ ! -e "$tmp/cache" ] || fail "no GPU, yet rates were cached: $(ls "$tmp/cache")"
        [ "$(count 'cost model' "$tmp/err1")" = 0 ] || fail "no GPU, yet: $(grep 'cost model' "$tmp/err1")"
        pass "no GPU: nothing measured, nothing cached"
    fi
    run err1
    [ "$(count "cost model: the GPU's measured by this process" "$tmp/err1")" = 1 ] ||
        fail "the GPU's rates not measured once: $(grep 'cost model' "$tmp/err1")"
    ! ls "$tmp"/cache/rates-*.txt >/dev/null 2>&1 || fail "a partial measurement was cached"
    TILEDBLAS_CALIBRATE=force run err2
    [ "$(count 'cost model: measured by this process' "$tmp/err2")" = 1 ] || fail "force did not measure: $(grep 'cost model' "$tmp/err2")"
    f=$(ls "$tmp"/cache/rates-*.txt) || fail "nothing cached"
    run err3
    grep -q "cost model: this machine's, read from $f" "$tmp/err3" || fail "the cache was not read: $(grep 'cost model' "$tmp/err3")"
    TILEDBLAS_STREAMS=1 run err4
    grep -q "cost model: the GPU's measured" "$tmp/err4" || fail "another key was believed: $(grep 'cost model' "$tmp/err4")"
    sed -i 's/^gpu_flops .*/gpu_flops many/' "$f"
    run err5
    grep -q "cost model: the GPU's measured" "$tmp/err5" || fail "a damaged file was believed: $(grep 'cost model' "$tmp/err5")"
    TILEDBLAS_CALIBRATE=off run err6
    [ "$(count 'cost model' "$tmp/err6")" = 0 ] || fail "calibrate=off still calibrated"
    pass "the GPU's rates measured in the background ($(sed -n 's/.*measured by this process in \([0-9]*\) ms.*/\1/p' "$tmp/err1") ms), force measured all and cached, read back; new key or damaged file not believed" ;;
learned)
    # Auto mode keeps what its shape classes measured in the cache, beside
    # the rates, and the next process starts from it: its calls say
    # gpu-measured from the first one weighed once the GPU is up, where the
    # first process's first GPU call said gpu-faster. TILEDBLAS_LEARN=off
    # reads and writes nothing, and a damaged file is not believed. The
    # program is three 8192^3 calls, the first of which waits for the start.
    # No GPU: nothing learned, nothing written.
    unset TILEDBLAS_CALIBRATE
    run() { cache_run 3 "$1"; }
    if ! have_gpu; then
        no_gpu_run
        ! ls "$tmp"/cache/learned-* >/dev/null 2>&1 || fail "no GPU, yet: $(ls "$tmp/cache")"
        pass "no GPU: nothing learned, nothing written"
    fi
    run err1
    f=$(ls "$tmp"/cache/learned-*.txt 2>/dev/null) || fail "no learned file: $(ls "$tmp/cache" 2>&1)"
    grep -q "^call [0-9]* 1 [0-9.e-]* 8192 8192 8192$" "$f" || fail "no GPU call kept: $(cat "$f")"
    [ "$(count ' -> gpu (gpu-faster)' "$tmp/err1")" -ge 1 ] || fail "first process: $(grep ' -> ' "$tmp/err1")"
    run err2
    grep -q "learned: [1-9][0-9]* lines read from $f" "$tmp/err2" || fail "not read: $(grep -v ' -> ' "$tmp/err2")"
    [ "$(count ' -> gpu (gpu-faster)' "$tmp/err2")" = 0 ] && [ "$(count ' -> gpu (gpu-measured)' "$tmp/err2")" -ge 2 ] ||
        fail "the second process did not start from the first's calls: $(grep ' -> ' "$tmp/err2")"
    rm -f "$f"
    TILEDBLAS_LEARN=off run err3
    [ ! -e "$f" ] && [ "$(count 'learned:' "$tmp/err3")" = 0 ] || fail "TILEDBLAS_LEARN=off learned"
    printf 'call 1 1 nan 1 1 1\nclass 0 0 0 0 0\n%s\n' "garbage" > "$f"
    run err4
    grep -q "learned: 0 lines read from $f" "$tmp/err4" && [ "$(count ' -> gpu (gpu-faster)' "$tmp/err4")" -ge 1 ] ||
        fail "a damaged file was believed: $(grep -v ' -> ' "$tmp/err4" | head -3)"
    pass "the second process started from the first's measured calls ($(grep -c '^call ' "$f") kept); LEARN=off and a damaged file: nothing taken" ;;
mode-cpu)
    TILEDBLAS_MODE=cpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 100 >/dev/null 2>"$tmp/err" || fail "wrong results"
    [ "$(count ' -> cpu (mode-cpu)' "$tmp/err")" -ge 80 ] || fail "mode=cpu not honoured: $(head -3 "$tmp/err")"
    pass "mode=cpu keeps calls on the CPU" ;;
bad-settings)
    # Each bad value warns once, naming the variable, and results stay right.
    for kv in TILEDBLAS_MODE=fast TILEDBLAS_VERBOSE=7 TILEDBLAS_THRESHOLD=big TILEDBLAS_FAULT=disk \
              TILEDBLAS_DEVICE=-3 TILEDBLAS_DEVICES=0,,1 TILEDBLAS_VERIFY_EVERY=0 TILEDBLAS_SCOPE=diagonal TILEDBLAS_LEARN=maybe \
              TILEDBLAS_KERNEL=nope; do
        var=${kv%%=*}
        env "$kv" LD_PRELOAD="$lib" "$bin/sgemm_check" --calls 40 >/dev/null 2>"$tmp/err" || fail "$kv broke results"
        grep -q "^tiledblas: $var=" "$tmp/err" || fail "$kv gave no warning naming $var: $(cat "$tmp/err")"
        [ "$(grep -c "$var=" "$tmp/err")" = 1 ] || fail "$kv warned more than once"
    done
    pass "bad values warn once, naming the variable" ;;
illegal-args)
    # The real BLAS reports illegal arguments (xerbla) exactly as without us,
    # for gemm in both real precisions, dsyrk and ztrsm, both interfaces; and
    # each illegal call was intercepted (its decision line says
    # illegal-args) before it went there.
    "$bin/illegal_args" >"$tmp/plain" 2>&1 || fail "illegal_args fails without the preload"
    for mode in auto gpu; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=0 pre "$bin/illegal_args" >"$tmp/pre" 2>&1 \
            || fail "the program did not go on under the preload (mode $mode)"
        diff "$tmp/plain" "$tmp/pre" >"$tmp/diff" || fail "reports differ (mode $mode): $(head -5 "$tmp/diff")"
    done
    TILEDBLAS_VERBOSE=2 pre "$bin/illegal_args" >"$tmp/out" 2>"$tmp/err" || fail "the program did not go on at VERBOSE=2"
    for r in cblas_sgemm:sgemm sgemm_:sgemm_ cblas_dgemm:dgemm dgemm_:dgemm_ cblas_dsyrk:dsyrk \
             dsyrk_:dsyrk_ cblas_ztrsm:ztrsm ztrsm_:ztrsm_; do
        calls=$(count "^illegal ${r%:*} call" "$tmp/out")
        n=$(count "^tiledblas: ${r#*:} .* -> cpu (illegal-args)\$" "$tmp/err")
        [ "$calls" -gt 0 ] && [ "$n" = "$calls" ] || fail "$n illegal-args decision lines for $calls illegal ${r%:*} calls"
    done
    pass "$(grep -c '^illegal ' "$tmp/out") illegal calls (cblas_sgemm, sgemm_, cblas_dgemm, dgemm_, cblas_dsyrk, dsyrk_, cblas_ztrsm, ztrsm_) intercepted, then reported exactly as OpenBLAS does" ;;
threads)
    threads_runs
    pass "16 and 64 POSIX threads and 32 OpenMP threads calling at once: all right, one decision line per call" ;;
fork)
    fork_runs
    pass "parent, forked child and parent again all right, one decision line per call" ;;
double-threads-fork)
    threads_runs
    fork_runs
    pass "double precision: 16 and 64 POSIX threads, 32 OpenMP threads, and around fork: all right, one dgemm line per call" ;;
xscblat3-*|xdcblat3-*|xccblat3-*|xzcblat3-*)
    # The reference CBLAS tester of the case's precision (x?cblat3, deck
    # ?in3): every level-3 routine of the deck passes in both layouts. The
    # wide decks (tests/data/?in3_wide, forced-GPU mode) add sizes 16, 17,
    # 33 and 65, which the blocked routines cut in blocks of 32.
    p=${case_name#x}; p=${p%%cblat3-*}; tester=x${p}cblat3
    [ -x "$blasdir/$tester" ] || skip "$tester not installed (Debian package libblas-test)"
    deck=$blasdir/${p}in3; mode=${case_name#*-}
    [ "$mode" = wide ] && { deck=$(dirname "$0")/data/${p}in3_wide; mode=gpu; }
    cd "$tmp" || exit 1
    # The reference CBLAS needs the reference library's RowMajorStrg. Its
    # cblas_?xxx calls ?xxx_, which we also export: each call must be
    # intercepted once (as ?xxx), never a second time (as ?xxx_).
    LD_LIBRARY_PATH=$blasdir TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" \
        "$blasdir/$tester" <"$deck" >"$tmp/out" 2>"$tmp/err" || fail "$tester exited non-zero"
    level3_tester cblas "$deck" "$tmp/out" "$tmp/err"
    twice=$(count "^tiledblas: ${p}[a-z0-9]*_ " "$tmp/err")
    [ "$twice" = 0 ] || fail "recursion guard: $twice Fortran lines: $(grep -m1 "^tiledblas: ${p}[a-z0-9]*_ " "$tmp/err")"
    pass "$tester ($deck) in mode $mode: $said" ;;
xblat3s-*|xblat3d-*|xblat3c-*|xblat3z-*)
    # The reference Fortran tester of the case's precision calls the
    # routines' Fortran names directly (xblat3?, deck ?blat3.in, report
    # ?blat3.out).
    p=${case_name#xblat3}; p=${p%%-*}; tester=xblat3$p
    [ -x "$blasdir/$tester" ] || skip "$tester not installed (Debian package libblas-test)"
    mode=${case_name#*-}
    cd "$tmp" || exit 1
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$blasdir/$tester" <"$blasdir/${p}blat3.in" \
        >"$tmp/out" 2>"$tmp/err" || fail "$tester exited non-zero"
    level3_tester fortran "$blasdir/${p}blat3.in" "$tmp/${p}blat3.out" "$tmp/err"
    pass "$tester in mode $mode: $said" ;;
xlintsts|xlintstd|xlintstc|xlintstz)
    # LAPACK's linear solver tests of the run's precision, against the
    # reference LAPACK (whose level-3 calls reach us), in forced-GPU mode:
    # the summary must match the run without the preload line for line, and
    # the statistics must count the calls in that precision, its trsm, trmm
    # and syrk (herk: complex) calls among them.
    p=${g%gemm}; tester=xlintst$p
    lapackdir=${TB_LAPACKDIR:-$(dirname "$blasdir")/lapack}
    [ -x "$lapackdir/$tester" ] || skip "$tester not installed (Debian package liblapack-test)"
    cd "$tmp" || exit 1
    LD_LIBRARY_PATH=$lapackdir "$lapackdir/$tester" <"$lapackdir/${p}test.in" >"$tmp/plain" 2>&1 || fail "$tester fails without the preload"
    LD_LIBRARY_PATH=$lapackdir TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=0 TILEDBLAS_STATS="$tmp/stats.jsonl" LD_PRELOAD="$lib" \
        "$lapackdir/$tester" <"$lapackdir/${p}test.in" >"$tmp/pre" 2>&1 || fail "$tester fails under the preload"
    grep -E 'tests run|failed to pass|out of' "$tmp/plain" | sed 's/ *$//' >"$tmp/plain.sum"
    grep -E 'tests run|failed to pass|out of' "$tmp/pre" | sed 's/ *$//' >"$tmp/pre.sum"
    [ -s "$tmp/plain.sum" ] || fail "no summary lines in $tester output"
    diff "$tmp/plain.sum" "$tmp/pre.sum" >"$tmp/diff" || fail "summaries differ: $(head -6 "$tmp/diff")"
    n=$(stats_calls "$tmp/stats.jsonl" $prec)
    [ "$n" -gt 0 ] || fail "the statistics count no $prec-precision calls: $(head -2 "$tmp/stats.jsonl" 2>/dev/null)"
    caught=""
    for r in trsm trmm syrk herk; do
        case $r$prec in herksingle|herkdouble|syrkcomplex|syrkzcomplex) continue ;; esac
        c=$(grep '^{"stats":"row"' "$tmp/stats.jsonl" | grep "\"prec\":\"$prec\"" | grep "\"routine\":\"$r\"" |
            sed -n 's/.*"calls":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
        [ "$c" -gt 0 ] || fail "the statistics count no $prec $r calls"
        caught="$caught $c ${p}${r}_,"
    done
    pass "$tester: $(grep -c 'passed the threshold' "$tmp/pre.sum") routine groups passed, summary identical to the plain run; $n calls intercepted:$caught the rest ${g}_ and others" ;;
numpy)
    # numpy (Debian's python3-numpy) calls cblas_sgemm and cblas_dgemm from
    # a privately dlopen()ed BLAS, with row- and column-major, transposed
    # operands; each float32 and each float64 product must be intercepted.
    py=/usr/bin/python3
    $py -c 'import numpy' 2>/dev/null || skip "python3-numpy not installed"
    for mode in auto gpu; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" $py "$(dirname "$0")/numpy_check.py" \
            >"$tmp/out" 2>"$tmp/err" || fail "numpy products wrong in mode $mode: $(cat "$tmp/out" | tail -3)"
        for t in float32:sgemm float64:dgemm complex64:cgemm complex128:zgemm; do
            n=$(count "^tiledblas: ${t#*:} " "$tmp/err")
            want=$(sed -n "s/^products ${t%:*}: //p" "$tmp/out")
            [ "${want:-0}" -gt 0 ] || fail "numpy_check.py reported no ${t%:*} products: $(cat "$tmp/out")"
            [ "$n" -ge "$want" ] || fail "mode $mode: $n ${t#*:} decision lines for $want ${t%:*} products"
        done
    done
    pass "numpy: $(sed -n 's/^products \(.*\): \(.*\)/\2 \1,/p' "$tmp/out" | tr '\n' ' ')products (C, Fortran and transposed operands) intercepted and right" ;;
ilp64)
    # A program on an ILP64 BLAS (Debian's libopenblas64, 64-bit integers
    # under the plain names), and one calling the "64_" suffix names: gemm,
    # syrk and trsm right for every layout, transpose, uplo, side and diag in
    # auto and forced-GPU modes, each call intercepted once with its true
    # sizes, no false report of an illegal argument; the BLAS's own reports
    # of illegal calls byte for byte as without us; a legal size past 2^31
    # (gemm's M, syrk's K) forwarded, not misread. The same, plain names,
    # on Debian's other ILP64 BLASes where installed: the reference BLAS
    # (ilp64_check_ref) and BLIS (ilp64_check_blis).
    [ -x "$bin/ilp64_check" ] || skip "libopenblas64 (Debian's libopenblas64-pthread-dev) not installed"
    done_on=""
    for run in ilp64_check:plain ilp64_check:suffix64 ilp64_check_ref:plain ilp64_check_blis:plain; do
        prog=$bin/${run%:*} names=${run#*:} on="${run%:*} --names $names"
        [ -x "$prog" ] || continue
        "$prog" --names $names >"$tmp/out" 2>"$tmp/err" \
            || fail "$on without the preload: $(tail -2 "$tmp/out") $(head -2 "$tmp/err")"
        for mode in auto gpu; do
            TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 pre "$prog" --names $names \
                >"$tmp/out" 2>"$tmp/err" || fail "$on, mode $mode: $(tail -2 "$tmp/out")"
            calls=$(sed -n 's/.*: \([0-9]*\) passed, 0 failed$/\1/p' "$tmp/out")
            [ -n "$calls" ] || fail "$on, mode $mode: $(tail -1 "$tmp/out")"
            n=$(grep -cE '^tiledblas: [a-z_0-9]+ (RowMajor|ColMajor) [LRUNTC]{2,4} m=[1-9][0-9]* n=[1-9][0-9]* k=[1-9][0-9]* -> ' "$tmp/err" || true)
            [ "$n" = "$calls" ] || fail "$on, mode $mode: $n decision lines for $calls calls: $(grep -v ' -> ' "$tmp/err" | head -3)"
            ! grep -q 'illegal\|parameter number\|was incorrect' "$tmp/err" || fail "$on, mode $mode: $(grep 'illegal\|parameter\|incorrect' "$tmp/err" | head -2)"
        done
        "$prog" --names $names --illegal >"$tmp/plain" 2>&1
        TILEDBLAS_MODE=gpu pre "$prog" --names $names --illegal >"$tmp/pre" 2>&1
        cmp -s "$tmp/plain" "$tmp/pre" || fail "$on: illegal calls reported differently: $(diff "$tmp/plain" "$tmp/pre" | head -5)"
        TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$prog" --names $names --wide >"$tmp/out" 2>"$tmp/err" \
            || fail "$on: M past 2^31: $(cat "$tmp/out" "$tmp/err" | head -3)"
        n=$(grep -c ' -> cpu (ints-past-32-bits)$' "$tmp/err" || true)
        [ "$n" = 4 ] || fail "$on: a size past 2^31 not forwarded ($n of 4 calls): $(head -3 "$tmp/err")"
        done_on="$done_on ${run%:*} ($names),"
    done
    pass "ILP64 BLAS:$done_on each $calls gemm, syrk and trsm calls right in auto and forced-GPU modes, each intercepted once, their illegal calls reported as the BLAS does, sizes past 2^31 forwarded" ;;
other-blas)
    # Programs on the other CPU BLASes Debian ships, LP64 (tests/CMakeLists.txt
    # links each from its own directory): the reference BLAS (sgemm_check_ref,
    # l3_check_ref) and BLIS (sgemm_check_blis, l3_check_blis). gemm in s, d,
    # c, z and the other level-3 routines through both interfaces: right
    # without the preload; under it in auto mode the same output and
    # silent; in forced-GPU mode right, one decision line a call. BLIS 0.9
    # reads the imaginary parts of herk's and her2k's diagonal of C, which
    # the reference BLAS does not and l3_check sets to NaN: those two run on
    # the reference BLAS alone.
    ran=""
    for b in ref blis; do
        [ -x "$bin/sgemm_check_$b" ] && [ -x "$bin/l3_check_$b" ] || continue
        l3=""
        [ $b = blis ] && l3="--routines symm,hemm,syrk,syr2k,trmm,trsm"
        for run in "sgemm_check_$b:" "sgemm_check_$b:--double" "sgemm_check_$b:--complex" \
                   "sgemm_check_$b:--zcomplex" "l3_check_$b:$l3"; do
            prog=$bin/${run%%:*} opts="--api mixed ${run#*:}" on="${run%%:*} ${run#*:}"
            "$prog" $opts >"$tmp/plain.out" 2>"$tmp/plain.err" \
                || fail "$on fails without the preload: $(tail -2 "$tmp/plain.out") $(head -2 "$tmp/plain.err")"
            calls=$(sed -n 's/^\(l3_check: \)\{0,1\}\([0-9]*\) \(passed\|calls\), 0 failed$/\2/p' "$tmp/plain.out")
            [ -n "$calls" ] || fail "$on: no summary line: $(tail -2 "$tmp/plain.out")"
            TILEDBLAS_MODE=auto pre "$prog" $opts >"$tmp/pre.out" 2>"$tmp/pre.err" \
                || fail "$on fails under the preload: $(tail -2 "$tmp/pre.out")"
            cmp -s "$tmp/plain.out" "$tmp/pre.out" || fail "$on: stdout differs under the preload"
            [ ! -s "$tmp/pre.err" ] || fail "$on: the preload printed at default settings: $(head -3 "$tmp/pre.err")"
            TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$prog" $opts >"$tmp/out" 2>"$tmp/err" \
                || fail "$on: wrong results in forced-GPU mode: $(grep -v ' -> ' "$tmp/err" | head -5)"
            n=$(grep -cE '^tiledblas: [a-z_0-9]+ (RowMajor|ColMajor) [A-Z]* ?m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) ' "$tmp/err" || true)
            [ "$n" = "$calls" ] || fail "$on: $n decision lines for $calls calls: $(grep -v ' -> ' "$tmp/err" | head -3)"
        done
        ran="$ran $b,"
    done
    [ -n "$ran" ] || skip "neither the reference BLAS (libblas-dev) nor BLIS (libblis-dev) installed"
    pass "on the CPU BLAS of each of$ran gemm in s, d, c, z and the other level-3 routines right without the preload and under it (auto: the same output, silent; forced GPU: right, a decision line a call)" ;;
numpy-pypi)
    # numpy and scipy from PyPI (scripts/test.sh makes the virtual
    # environment): numpy's wheel calls its bundled scipy-openblas64 by
    # scipy_cblas_sgemm64_ and scipy_cblas_dgemm64_, scipy's by scipy_sgemm_
    # and scipy_dgemm_ (scipy-openblas32). Each product is intercepted, one
    # decision line a call under its own name, and right.
    py=${TB_PYPI_PYTHON:-$bin/../pypi-venv/bin/python}
    [ -x "$py" ] && "$py" -c 'import numpy' 2>/dev/null || skip "no virtual environment with numpy from PyPI at $py"
    "$py" -c 'import numpy, sys; sys.exit(0 if "scipy" in str(numpy.show_config(mode="dicts")) else 1)' 2>/dev/null \
        || skip "$py's numpy is not a PyPI wheel (no scipy-openblas)"
    have_scipy=1
    "$py" -c 'import scipy' 2>/dev/null || have_scipy=0
    for mode in auto gpu; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$py" "$(dirname "$0")/numpy_check.py" \
            >"$tmp/out" 2>"$tmp/err" || fail "PyPI numpy products wrong in mode $mode: $(tail -3 "$tmp/out")"
        for t in float32:scipy_sgemm64_ float64:scipy_dgemm64_ complex64:scipy_cgemm64_ complex128:scipy_zgemm64_; do
            n=$(count "^tiledblas: ${t#*:} " "$tmp/err")
            want=$(sed -n "s/^products ${t%:*}: //p" "$tmp/out")
            [ "${want:-0}" -gt 0 ] || fail "numpy_check.py reported no ${t%:*} products: $(cat "$tmp/out")"
            [ "$n" -ge "$want" ] || fail "mode $mode: $n ${t#*:} decision lines for $want ${t%:*} products: $(grep -v ' -> ' "$tmp/err" | head -3)"
        done
        [ $have_scipy = 1 ] || continue
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$py" "$(dirname "$0")/scipy_check.py" \
            >"$tmp/out" 2>"$tmp/err" || fail "PyPI scipy products wrong in mode $mode: $(tail -3 "$tmp/out")"
        for t in float32:scipy_sgemm_ float64:scipy_dgemm_; do
            n=$(count "^tiledblas: ${t#*:} ColMajor " "$tmp/err")
            want=$(sed -n "s/^products ${t%:*}: //p" "$tmp/out")
            [ "${want:-0}" -gt 0 ] && [ "$n" -ge "$want" ] || fail "mode $mode: $n ${t#*:} decision lines for ${want:-no} scipy ${t%:*} products: $(grep -v ' -> ' "$tmp/err" | head -3)"
        done
        [ $mode = gpu ] || ! grep -v '^tiledblas: [a-z_0-9]* \(RowMajor\|ColMajor\) ' "$tmp/err" | grep -q . \
            || fail "mode $mode printed: $(grep -v ' -> ' "$tmp/err" | head -3)"
    done
    # The wheel's BLAS serves every call alone: no second BLAS is loaded
    # beside it for the names it lacks (TILEDBLAS_CPU_BLAS is opened only
    # when a program loaded none).
    blas=$(LD_PRELOAD="$lib" "$py" -c 'import numpy as np; a = np.ones((300, 300)); a @ a
print("\n".join(sorted({l.split()[-1] for l in open("/proc/self/maps") if "blas" in l.split()[-1] and "tiledblas" not in l})))')
    [ "$(echo "$blas" | grep -c .)" = 1 ] || fail "a second BLAS loaded beside the wheel's: $(echo $blas)"
    scipy_v=$([ $have_scipy = 1 ] && "$py" -c 'import scipy; print(scipy.__version__)' || echo "not installed")
    pass "PyPI numpy $("$py" -c 'import numpy; print(numpy.__version__)') (scipy_cblas_?gemm64_) and scipy $scipy_v (scipy_?gemm_) products intercepted and right in auto and forced-GPU modes" ;;
fortran)
    # sgemm_ calls, lower case and 'C' included, through the same decision.
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 200 --api fortran >"$tmp/out" 2>"$tmp/err" \
        || fail "wrong sgemm_ results: $(grep -v ' -> ' "$tmp/err" | head -3)"
    n=$(count '^tiledblas: sgemm_ ColMajor ' "$tmp/err")
    [ "$n" = 200 ] || fail "$n sgemm_ decision lines for 200 calls"
    pass "200 Fortran calls right, each with one sgemm_ decision line" ;;
scope)
    # TILEDBLAS_SCOPE narrows what may go to the GPU; the calls it keeps off
    # say (scope), as many as one decision line per call shows. Every run is
    # in forced-GPU mode, 200 calls of both interfaces.
    scoped() {   # $1: the scope; the run's precision is set_prec's
        TILEDBLAS_SCOPE=$1 TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 pre "$bin/sgemm_check" --calls 200 --api mixed $dbl \
            >"$tmp/out" 2>"$tmp/err" || fail "scope $1, $prec precision: wrong results"
        n=$(count "^tiledblas: ${g}_* [RC][a-z]*Major .* -> " "$tmp/err")
        [ "$n" = 200 ] || fail "scope $1: $n $g decision lines for 200 $prec-precision calls"
        refused=$(count ' (scope)$' "$tmp/err")
    }
    # cblas row-major NN, in each precision (the precision group, with no
    # word named, stays open): everything else must say (scope).
    for p in single double; do
        set_prec $p
        scoped cblas,rowmajor,nn
        bad=$(grep ' (scope)$' "$tmp/err" | grep -c "$g RowMajor NN" || true)
        [ "$bad" = 0 ] || fail "$bad in-scope $prec-precision calls were refused"
        out=$(grep -vE "$g RowMajor NN|\\((no-op|illegal-args)\\)" "$tmp/err" | grep -vc ' (scope)$' || true)
        [ "$out" -le 1 ] || fail "$out out-of-scope $prec-precision calls were not refused: $(grep -vE "$g RowMajor NN" "$tmp/err" | grep -v '(scope)' | head -3)"
        [ "$refused" -gt 50 ] || fail "too few $prec-precision calls refused: $refused"
        said="cblas,rowmajor,nn kept $refused calls off the GPU"
    done
    # The precision group alone: "single" keeps every double call off the
    # GPU, "double" every single call, and neither touches its own.
    for scope in single double; do
        for p in single double; do
            set_prec $p
            scoped $scope
            if [ $p = $scope ]; then
                [ "$refused" = 0 ] || fail "scope $scope refused $refused $prec-precision calls: $(grep -m1 ' (scope)$' "$tmp/err")"
            else
                out=$(grep -vE '\((scope|no-op|illegal-args)\)$' "$tmp/err" | grep -c "^tiledblas: $g" || true)
                [ "$out" = 0 ] || fail "scope $scope let $out $prec-precision calls through: $(grep -vE '\((scope|no-op|illegal-args)\)$' "$tmp/err" | grep -m1 "^tiledblas: $g")"
                [ "$refused" -gt 150 ] || fail "scope $scope refused only $refused of 200 $prec-precision calls"
                said="$said; $scope kept $refused $prec-precision calls off"
            fi
        done
    done
    pass "scope: $said, and allowed the rest" ;;
exports)
    # Only the table's BLAS names (the export list the build made from
    # src/core/blas.def) and the tiledblas_* API are visible to the loader,
    # and each of the names is.
    nm -D --defined-only "$lib" | awk '{print $3}' >"$tmp/syms"
    map=$(dirname "$lib")/exports.map
    [ -f "$map" ] || fail "no export list at $map"
    tr -s ' ;{}\n' '\n' <"$map" | grep -vE '^(global:|local:|\*|tiledblas_\*|)$' | sort -u >"$tmp/names"
    bad=$(grep -vxF -f "$tmp/names" "$tmp/syms" | grep -vE '^(tiledblas_[a-z_]+)?$' || true)
    [ -z "$bad" ] || fail "unexpected exports: $(echo "$bad" | head -5 | tr '\n' ' ')"
    for name in $(cat "$tmp/names") cblas_sgemm sgemm_ sgemm cblas_dgemm dgemm_ dgemm \
                scipy_cblas_sgemm64_ scipy_cblas_dgemm64_ scipy_dgemm_ cblas_dgemm64_ dgemm_64_; do
        grep -qx $name "$tmp/syms" || fail "$name not exported"
    done
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
    # The other routines (level3.c): the reference CBLAS tester on one
    # routine at a time, sizes 2, 9 and 33, C read (beta 1.3): each call
    # that fails (three, then the GPU path is off) is completed right on the
    # CPU - after a d2h fault, which strikes once half of C is written, its
    # rows not yet written - with one warning per kind, as GEMM's.
    n=0
    for r in dsymm dtrmm dtrsm dsyrk dsyr2k zhemm ztrsm zherk zher2k; do
        p=${r%"${r#?}"} tester=x${r%"${r#?}"}cblat3
        [ -x "$blasdir/$tester" ] || skip "$tester not installed (Debian package libblas-test)"
        if [ "$p" = z ]; then a="(0.7,-0.9)" b="(1.3,0.5)"; else a=0.7 b=1.3; fi
        printf "'F.SNAP'\n-1\nF\nF\nF\n2\n16.0\n3\n2 9 33\n1\n%s\n1\n%s\ncblas_%s T\n" "$a" "$b" "$r" >"$tmp/deck"
        for stage in alloc h2d launch kernel d2h; do
            (cd "$tmp" && LD_LIBRARY_PATH=$blasdir TILEDBLAS_FAULT=$stage TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=2 \
                LD_PRELOAD="$lib" "$blasdir/$tester" <"$tmp/deck" >"$tmp/out" 2>"$tmp/err") ||
                fail "$r, fault $stage: $tester exited non-zero"
            [ "$(grep -cE "^ *cblas_$r +PASSED THE (COLUMN|ROW)-MAJOR +COMPUTATIONAL TESTS" "$tmp/out")" = 2 ] &&
                ! grep -qiE 'FAIL|SUSPECT' "$tmp/out" || fail "$r, fault $stage: $(grep -E "cblas_$r|FAIL" "$tmp/out" | head -3)"
            w=$(grep -v ' -> ' "$tmp/err" | grep -c . || true)
            [ "$w" -le 2 ] || fail "$r, fault $stage: $w warnings: $(grep -v ' -> ' "$tmp/err")"
            [ "$(count " -> cpu (gpu-failed:$stage)" "$tmp/err")" -ge 1 ] || fail "$r, fault $stage: no call failed at $stage"
            [ "$(count ' -> gpu ' "$tmp/err")" = 0 ] || fail "$r, fault $stage: a call claimed the GPU"
            n=$((n + 1))
        done
    done
    pass "init/alloc/h2d/launch/kernel/d2h faults all completed on the CPU; $n runs of the other routines' tester with faults, all right" ;;
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
    # The other routines are not cut: under 1 MiB over 8 lanes (128 KiB a
    # call), dsymm's calls of order 33 run on the GPU, those of 65 (three
    # 65 x 65 matrices) on the CPU BLAS, saying too-big; all right, silent.
    [ -x "$blasdir/xdcblat3" ] || skip "xdcblat3 not installed (Debian package libblas-test)"
    printf "'C.SNAP'\n-1\nF\nF\nF\n2\n16.0\n2\n33 65\n1\n0.7\n1\n1.3\ncblas_dsymm T\n" >"$tmp/deck"
    (cd "$tmp" && LD_LIBRARY_PATH=$blasdir TILEDBLAS_DEVICE_MEMORY=1M TILEDBLAS_STREAMS=8 TILEDBLAS_MODE=gpu \
        TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$blasdir/xdcblat3" <"$tmp/deck" >"$tmp/out" 2>"$tmp/err") ||
        fail "xdcblat3 under a 1 MiB cap exited non-zero"
    [ "$(grep -cE '^ *cblas_dsymm +PASSED THE (COLUMN|ROW)-MAJOR +COMPUTATIONAL TESTS' "$tmp/out")" = 2 ] &&
        ! grep -qiE 'FAIL|SUSPECT' "$tmp/out" || fail "dsymm under a 1 MiB cap: $(grep -E 'dsymm|FAIL' "$tmp/out" | head -3)"
    big=$(count ' -> cpu (too-big)$' "$tmp/err") fit=$(count ' -> gpu (forced)$' "$tmp/err")
    [ "$big" -ge 1 ] && [ "$fit" -ge 1 ] || fail "dsymm under a 1 MiB cap: $fit on the GPU, $big too big"
    [ "$(grep -v ' -> ' "$tmp/err" | grep -c . || true)" = 0 ] || fail "warnings: $(grep -v ' -> ' "$tmp/err" | head -3)"
    pass "5 calls of 900-1100 under a 6 MiB device cap: cut into blocks and panels on the GPU, and right; dsymm under 1 MiB: $fit calls on the GPU, $big too big for it on the CPU BLAS, all right" ;;
devices)
    # Two device slots on one GPU (TILEDBLAS_DEVICES=0,0), each with its own
    # lanes, buffers and staging. Calls with m n k of 4e9 or more are cut in
    # two, by rows where m >= n and by columns where not, the parts at once:
    # random calls from 4 threads (every layout, transpose, stride, alpha,
    # beta; sentinels around C) are right, and five shapes of bench_e2e are
    # cut and right. A kernel fault on slot 1 costs only slot 1's parts
    # (completed on the CPU), then turns that slot off and the calls go on
    # whole on slot 0; an init fault on slot 1 leaves slot 0 alone from the
    # start.
    have_gpu || skip "no CUDA device: cutting calls over device slots needs a GPU"
    shapes=3000x1700x1000:TN+3,1700x3000x1000:NT+5,2000x2000x1100:TT,2600x1800x1200,1800x2600x1200+1
    cuts() {   # trace -> "by-rows by-columns big-calls-whole gpu-failed"
        python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
big = [r for r in rows if r["m"] * r["n"] * r["k"] >= 4e9 and float(r["alpha"]) != 0]
cut = [r for r in big if r["route"] == "gpu" and r.get("devices") == 2]
print(sum(r["m"] >= r["n"] for r in cut), sum(r["m"] < r["n"] for r in cut),
      sum(r["route"] == "gpu" and r.get("devices") == 1 for r in big),
      sum(r["reason"].startswith("gpu-failed") for r in big))' "$1"
    }
    slots() {   # NAME [VAR=VALUE...]: bench_e2e's shapes on two slots of GPU 0
        name=$1; shift
        env "$@" TILEDBLAS_DEVICES=0,0 TILEDBLAS_MODE=gpu TILEDBLAS_TRACE="$tmp/$name.jsonl" \
            "$bin/../bench_e2e" "$lib" --shapes $shapes --reps 1 --no-naive >"$tmp/$name.out" 2>"$tmp/$name.err" \
            || fail "$name: bench_e2e failed: $(tail -3 "$tmp/$name.err")"
        [ "$(grep -c '^[0-9]*x' "$tmp/$name.out")" = 5 ] || fail "$name: not 5 shapes: $(cat "$tmp/$name.out")"
        awk '/^[0-9]+x/ && !($9 + 0 < 1e-5) { print; bad = 1 } END { exit bad }' "$tmp/$name.out" \
            || fail "$name: results off (rel fro, last column): $(grep '^[0-9]*x' "$tmp/$name.out")"
        set -- $(cuts "$tmp/$name.jsonl")
        rows=$1 cols=$2 whole=$3 failed=$4
    }
    TILEDBLAS_DEVICES=0,0 TILEDBLAS_MODE=gpu TILEDBLAS_TRACE="$tmp/random.jsonl" pre "$bin/sgemm_check" \
        --calls 8 --threads 4 --min-dim 1600 --max-dim 1900 --seed 11 >"$tmp/random.out" 2>"$tmp/random.err" \
        || fail "random calls on two slots: $(tail -3 "$tmp/random.out")"
    grep -q '^8 passed, 0 failed$' "$tmp/random.out" || fail "random calls: $(tail -2 "$tmp/random.out")"
    set -- $(cuts "$tmp/random.jsonl")
    [ $(($1 + $2)) -ge 1 ] && [ "$3" = 0 ] || fail "random calls: $1 + $2 cut, $3 large ones whole"
    random_cut=$(($1 + $2))
    slots cut
    [ -s "$tmp/cut.err" ] && fail "warnings with two healthy slots: $(cat "$tmp/cut.err")"
    [ "$rows" -ge 3 ] && [ "$cols" -ge 2 ] && [ "$whole" = 0 ] \
        || fail "not every large call was cut: $rows by rows, $cols by columns, $whole whole"
    slots kernel-fault TILEDBLAS_FAULT=kernel@1
    grep -q "GPU kernel failed on device slot 1 (injected by TILEDBLAS_FAULT); its part" "$tmp/kernel-fault.err" \
        || fail "no warning for slot 1's fault: $(cat "$tmp/kernel-fault.err")"
    grep -q "device slot 1 is off, the other devices go on" "$tmp/kernel-fault.err" \
        || fail "slot 1 was not turned off: $(cat "$tmp/kernel-fault.err")"
    [ "$(grep -c . "$tmp/kernel-fault.err")" = 2 ] || fail "not two warnings: $(cat "$tmp/kernel-fault.err")"
    [ "$failed" -ge 3 ] && [ "$whole" -ge 1 ] || fail "kernel@1: $failed calls with a failed part, $whole whole"
    k_failed=$failed k_whole=$whole
    slots init-fault TILEDBLAS_FAULT=init@1
    [ "$(grep -c . "$tmp/init-fault.err")" = 1 ] || fail "init@1: not one warning: $(cat "$tmp/init-fault.err")"
    [ $((rows + cols)) = 0 ] && [ "$whole" -ge 5 ] || fail "init@1: $rows + $cols cut, $whole whole"
    pass "two slots on GPU 0: $random_cut of 8 random calls and every large bench_e2e call cut ($rows by rows, $cols by columns), all right; kernel@1: $k_failed calls' slot-1 parts completed on the CPU, slot 1 off, $k_whole calls whole; init@1: $whole calls whole on slot 0" ;;
gpu-full)
    have_gpu || skip "no CUDA device"
    TILEDBLAS_MODE=gpu TILEDBLAS_VERBOSE=1 pre "$bin/gpu_full" >"$tmp/out" 2>&1 || fail "$(tail -4 "$tmp/out")"
    cat "$tmp/out"
    pass "right with the GPU nearly full" ;;
no-blas)
    # No BLAS anywhere: a program linked to the library alone, and one with
    # none run under the preload, TILEDBLAS_CPU_BLAS naming a library that is
    # not there; each makes its calls in single, then double precision
    # (cblas_sgemm, sgemm_, cblas_dgemm, dgemm_). Every call is right (the
    # built-in CPU GEMM, in the call's precision), one warning in all says
    # what was looked for, illegal calls are reported in the BLAS's words
    # and leave C as it was; silent at TILEDBLAS_VERBOSE=0. The built-in
    # path has GEMM only: other routines' illegal calls are reported so
    # too, and a legal call is not run, which one more warning says.
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
    [ $rc = 2 ] || fail "no_blas_dl found a gemm without the preload (exit $rc): $(cat "$tmp/out")"
    TILEDBLAS_CPU_BLAS=$none pre "$bin/no_blas_dl" 300 small >"$tmp/out" 2>"$tmp/err" ||
        fail "preloaded: $(tail -5 "$tmp/out")"
    one_warning "$tmp/err" "$want"
    TILEDBLAS_CPU_BLAS=$none "$bin/no_blas" illegal >"$tmp/out" 2>"$tmp/err" || fail "illegal: $(cat "$tmp/out")"
    cat "$tmp/out"
    one_warning "$tmp/err" "$want"
    TILEDBLAS_CPU_BLAS=libm.so.6 "$bin/no_blas" 50 small >"$tmp/out" 2>"$tmp/err" || fail "libm: $(tail -5 "$tmp/out")"
    one_warning "$tmp/err" "${want%%, and *}, and TILEDBLAS_CPU_BLAS='libm.so.6' has neither; calls run on the built-in CPU GEMM (single-threaded, slow)"
    # Other routines: illegal calls reported in the BLAS's words, a legal
    # one not run, and said so once.
    TILEDBLAS_CPU_BLAS=$none pre "$bin/no_blas_dl" level3 >"$tmp/out" 2>"$tmp/err" || fail "level3: $(cat "$tmp/out")"
    printf '%s\n' " ** On entry to DSYRK  parameter number  3 had an illegal value" \
        " ** On entry to DSYRK  parameter number  7 had an illegal value" \
        "Parameter 12 to routine cblas_ztrsm  was incorrect" \
        "Parameter 3 to routine cblas_ztrsm was incorrect" "Illegal Uplo setting, 7" \
        "Parameter 3 to routine cblas_csyr2k was incorrect" \
        "$(echo "$want" | sed 's/cblas_sgemm or sgemm_/cblas_dsyrk or dsyrk_/')" \
        "tiledblas: dsyrk_: the built-in CPU path computes only GEMM; this call and any like it are not run" \
        >"$tmp/want"
    diff "$tmp/want" "$tmp/err" >"$tmp/diff" || fail "level3 reports: $(head -6 "$tmp/diff")"
    for mode in auto cpu gpu verify; do
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=0 TILEDBLAS_CPU_BLAS=$none pre "$bin/no_blas_dl" 100 small \
            >"$tmp/out" 2>"$tmp/err" || fail "mode $mode: $(tail -5 "$tmp/out")"
        # (verify mode's report at exit is written whatever the verbosity)
        [ $mode = verify ] || [ ! -s "$tmp/err" ] || fail "mode $mode, TILEDBLAS_VERBOSE=0: $(head -3 "$tmp/err")"
    done
    pass "no BLAS: every single and double call right, linked and preloaded, in every mode; one warning; illegal calls reported as the BLAS does; other routines' illegal calls reported so too, a legal one not run and said so" ;;
*)
    echo "unknown case $case_name"; exit 2 ;;
esac
