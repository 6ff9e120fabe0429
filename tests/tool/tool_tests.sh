#!/bin/sh
# tests/tool/tool_tests.sh CASE - one observability or `tiledblas` command
# test; prints what it proves, exits 0 (pass), 1 (fail) or 77 (skip: needs a
# GPU). Environment from CMake: TB_LIB (libtiledblas), TB_TOOL (tiledblas),
# TB_CALLS (tool_calls, an OpenBLAS program), TB_PY (python3), TB_WORK,
# TB_BUILD (the build tree) and TB_SRC (the source tree) for the demo cases.
set -u
case_name=$1
W=$TB_WORK
rm -rf "$W" && mkdir -p "$W" || exit 1
cd "$W" || exit 1
# The outcome must not depend on the caller's settings.
unset TILEDBLAS_MODE TILEDBLAS_STATS TILEDBLAS_TRACE TILEDBLAS_VERBOSE TILEDBLAS_LOG \
      TILEDBLAS_THRESHOLD TILEDBLAS_VERIFY_EVERY TILEDBLAS_LIBRARY LD_PRELOAD TILEDBLAS_CALIBRATE \
      TILEDBLAS_LEARN
# Measured rates go to this case's own directory, never the user's cache.
export TILEDBLAS_CACHE_DIR="$W/cache"

say() { echo "tool.$case_name: $*"; }
fail() { echo "tool.$case_name: FAIL: $*"; for f in out err; do [ -s $f ] && { echo "--- $f:"; tail -20 $f; }; done; exit 1; }
pass() { echo "tool.$case_name: PASS"; exit 0; }
pre() { env LD_PRELOAD="$TB_LIB" "$@"; }
# The number after "stats for ... : N calls" on stderr, summed over processes.
calls_in() { sed -n 's/.*: \([0-9]*\) calls in.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}'; }
# The table's rows (routine, prec, route, reason, calls, ...): their calls.
rows_sum() { awk '$1 == "tiledblas:" && ($4 == "cpu" || $4 == "gpu") {s += $6} END {print s+0}' "$1"; }

case $case_name in
stats-count)
    say "proves: TILEDBLAS_STATS=1 prints at exit a table whose rows count every call"
    say "(40 calls on 4 threads), and names the CPU BLAS (OpenBLAS) and the GPU state"
    pre env TILEDBLAS_STATS=1 "$TB_CALLS" --calls 40 --threads 4 >out 2>err || fail "program failed"
    grep -q "tool_calls: 40 calls ok" out || fail "the program's results changed"
    [ "$(calls_in err)" = 40 ] || fail "header does not say 40 calls"
    [ "$(rows_sum err)" = 40 ] || fail "rows add up to $(rows_sum err), not 40"
    grep -q "route reason .*calls .*GFLOP .*seconds .*GFLOP/s .*to GPU .*from GPU" err || fail "no table header"
    grep -q "^tiledblas: CPU BLAS: OpenBLAS [0-9.]*, core " err || fail "no OpenBLAS line with its core"
    grep -q "^tiledblas: GPU: " err || fail "no GPU line"
    pass ;;
stats-json)
    say "proves: TILEDBLAS_STATS=FILE.json appends JSON lines (one report per process)"
    say "that add up to the calls made, in two runs of the program"
    for i in 1 2; do pre env TILEDBLAS_STATS="$W/s.json" "$TB_CALLS" --calls 10 >out 2>err || fail "program failed"; done
    "$TB_PY" - "$W/s.json" <<'PY' || fail "stats file wrong"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
procs = [r for r in rows if r["stats"] == "process"]
calls = sum(r["calls"] for r in rows if r["stats"] == "row")
assert len(procs) == 2, procs
assert calls == 20, calls
assert all("OpenBLAS" in p["cpu_blas"] for p in procs)
print("2 process reports, 20 calls in the rows")
PY
    grep -q "stats for" err && fail "the report went to stderr as well"
    pass ;;
stats-quiet)
    say "proves: without TILEDBLAS_STATS nothing is printed, and with it a process"
    say "that makes no sgemm call (sh) prints nothing either"
    pre "$TB_CALLS" --calls 10 >out 2>err || fail "program failed"
    [ -s err ] && fail "stderr not empty without settings"
    pre env TILEDBLAS_STATS=1 sh -c 'echo hi' >out 2>err || fail "sh failed"
    [ -s err ] && fail "a process without calls printed a report"
    pass ;;
stats-fork)
    say "proves: a forked child that makes calls reports only its own (3); a child"
    say "that makes none prints nothing; the parent still reports its own calls"
    pre env TILEDBLAS_STATS=1 "$TB_CALLS" --calls 8 --fork >out 2>err || fail "program failed"
    [ "$(grep -c 'stats for' err)" = 2 ] || fail "want two reports"
    grep -q ": 3 calls" err || fail "the child's report does not say 3 calls"
    grep -q ": 8 calls" err || fail "the parent's report does not say 8 calls"
    pre env TILEDBLAS_STATS=1 "$TB_CALLS" --calls 8 --fork-idle >out 2>err || fail "program failed"
    [ "$(grep -c 'stats for' err)" = 1 ] || fail "an idle child printed a report"
    pass ;;
stats-exit-thread)
    say "proves: exit() from one thread while 3 others are inside sgemm neither"
    say "crashes nor hangs, and the report is still written"
    pre env TILEDBLAS_STATS=1 TILEDBLAS_TRACE="$W/t.jsonl" timeout 60 "$TB_CALLS" --threads 3 --exit-mid >out 2>err
    rc=$?
    [ $rc = 0 ] || fail "exit status $rc (124: hung)"
    n=$(calls_in err)
    [ "$n" -gt 0 ] || fail "no report"
    say "report counted $n calls"
    pass ;;
trace-fields)
    say "proves: TILEDBLAS_TRACE writes one valid JSON object per call (30 calls on"
    say "3 threads), with every field the animate command reads, whole lines only"
    pre env TILEDBLAS_TRACE="$W/t.jsonl" "$TB_CALLS" --calls 30 --threads 3 >out 2>err || fail "program failed"
    "$TB_PY" - "$W/t.jsonl" <<'PY' || fail "trace wrong"
import json, sys
need = ["t", "thread", "api", "layout", "transa", "transb", "m", "n", "k", "lda", "ldb",
        "ldc", "alpha", "beta", "route", "reason", "seconds"]
lines = open(sys.argv[1]).read().splitlines()
rows = [json.loads(l) for l in lines]
assert len(rows) == 30, len(rows)
for r in rows:
    miss = [f for f in need if f not in r]
    assert not miss, ("missing", miss, r)
    assert r["api"] == "cblas" and r["layout"] == "RowMajor" and r["transa"] == "N"
    assert r["route"] in ("cpu", "gpu") and r["seconds"] >= 0 and r["t"] >= 0
    if r["route"] == "gpu":
        for f in ["kernel", "h2d_s", "kernel_s", "d2h_s", "bytes_h2d", "bytes_d2h", "devices"]:
            assert f in r, (f, r)
threads = sorted({r["thread"] for r in rows})
assert threads == [1, 2, 3], threads
assert sorted(r["seq"] for r in rows) == list(range(1, 31))
assert sorted({r["m"] for r in rows}) == [8, 64]
print("30 rows, fields present, threads", threads)
PY
    pass ;;
trace-unopenable)
    say "proves: a TILEDBLAS_TRACE that cannot be opened gives one warning and the"
    say "program runs on with correct results and exit status 0"
    pre env TILEDBLAS_TRACE=/nonexistent-dir/t.jsonl "$TB_CALLS" --calls 10 --threads 2 >out 2>err || fail "program failed"
    grep -q "tool_calls: 10 calls ok" out || fail "results changed"
    [ "$(grep -c "TILEDBLAS_TRACE='/nonexistent-dir/t.jsonl' cannot be opened" err)" = 1 ] || fail "want exactly one warning"
    pass ;;
verify-no-gpu)
    say "proves: TILEDBLAS_MODE=verify without TILEDBLAS_STATS prints a verdict at"
    say "exit; with no GPU it says no call was compared, and results are the CPU's"
    if "$TB_TOOL" info | grep -q "^GPU: none"; then :; else say "a GPU is present: see verify-gpu"; exit 77; fi
    pre env TILEDBLAS_MODE=verify TILEDBLAS_THRESHOLD=0 "$TB_CALLS" --calls 10 >out 2>err || fail "program failed"
    grep -q "tool_calls: 10 calls ok" out || fail "results changed"
    grep -q "^tiledblas: verify: no call was compared (.* could not use the GPU" err || fail "no verdict"
    grep -q "stats for" err && fail "a stats table without TILEDBLAS_STATS"
    pass ;;
verify-gpu)
    say "proves (GPU): TILEDBLAS_MODE=verify compares every eligible call and finds"
    say "all within the fp32 bound; the stats and trace carry the errors"
    if "$TB_TOOL" info | grep -q "^GPU: none"; then say "no GPU: skipped"; exit 77; fi
    pre env TILEDBLAS_MODE=verify TILEDBLAS_THRESHOLD=0 TILEDBLAS_STATS=1 TILEDBLAS_TRACE="$W/t.jsonl" \
        "$TB_CALLS" --calls 20 --size 200 >out 2>err || fail "program failed"
    grep -q "^tiledblas: verify: all [0-9]* calls within their precision's error bound" err || fail "no passing verdict"
    grep -q '"verify_rel_fro":' t.jsonl || fail "no verify fields in the trace"
    pass ;;
blas-core-warning)
    say "proves: when OpenBLAS runs its generic Prescott kernel on a CPU that could do"
    say "better, the report warns and names the OPENBLAS_CORETYPE that fixes it; on"
    say "Haswell's kernel (this CPU has AVX2) it does not warn"
    grep -q -w avx2 /proc/cpuinfo || { say "this CPU has no AVX2: Prescott is right here"; exit 77; }
    pre env OPENBLAS_CORETYPE=Prescott TILEDBLAS_STATS=1 "$TB_CALLS" --calls 4 >out 2>err || fail "program failed"
    grep -q "core Prescott" err || fail "the core is not reported as Prescott"
    grep -q "^tiledblas: warning: OpenBLAS runs its generic Prescott kernel.*OPENBLAS_CORETYPE=[A-Za-z]* fixes it" err || fail "no warning"
    # Set, not the machine's own choice: OpenBLAS 0.3.21 runs Prescott on
    # CPUs newer than itself, where the warning is right.
    pre env OPENBLAS_CORETYPE=Haswell TILEDBLAS_STATS=1 "$TB_CALLS" --calls 4 >out 2>err || fail "program failed"
    grep -q "core Haswell" err || fail "the core is not reported as Haswell"
    grep -q "Prescott kernel" err && fail "warned about a core that is not Prescott"
    pass ;;
info)
    say "proves: 'tiledblas info' names the library, OpenBLAS with its core, the GPU"
    say "(none here) and the settings in effect"
    env TILEDBLAS_MODE=cpu "$TB_TOOL" info >out 2>err || fail "exit status $?"
    grep -q "^library: /.*libtiledblas.so.* (version [0-9]" out || fail "no library line"
    grep -q "^CPU BLAS: OpenBLAS [0-9.]*, core [A-Za-z0-9]*" out || fail "no OpenBLAS line"
    grep -q "^GPU: " out || fail "no GPU line"
    if [ -e /dev/nvidia0 ]; then :; else grep -q "^GPU: none (" out || fail "no 'GPU: none' line"; fi
    grep -q "^  TILEDBLAS_MODE=cpu" out || fail "settings not shown"
    grep -q "^  TILEDBLAS_LEARN=on " out || fail "TILEDBLAS_LEARN not shown"
    env TILEDBLAS_LEARN=off "$TB_TOOL" info >out 2>err || fail "exit status $?"
    grep -q "^  TILEDBLAS_LEARN=off " out || fail "TILEDBLAS_LEARN=off not shown"
    grep -q "^preloaded by 'tiledblas run': /" out || fail "no preload path"
    say "and a TILEDBLAS_KERNEL that names no kernel built in is not shown as in effect"
    env TILEDBLAS_KERNEL=nope "$TB_TOOL" info >out 2>err || fail "exit status $?"
    grep -q "^  TILEDBLAS_KERNEL=(best for the shape)" out || fail "TILEDBLAS_KERNEL=nope shown as in effect"
    env TILEDBLAS_KERNEL=dmma "$TB_TOOL" info >out 2>err || fail "exit status $?"
    grep -q "^  TILEDBLAS_KERNEL=dmma$" out || fail "TILEDBLAS_KERNEL=dmma not shown"
    pass ;;
run-exit)
    say "proves: 'tiledblas run' passes output through and returns the command's"
    say "exit status (3), 128+signal when killed (143), 127 when it cannot start"
    "$TB_TOOL" run -- sh -c 'echo to-stdout; echo to-stderr >&2; exit 3' >out 2>err
    rc=$?
    [ $rc = 3 ] || fail "exit status $rc, want 3"
    grep -q to-stdout out && grep -q to-stderr err || fail "output not passed through"
    "$TB_TOOL" run -- sh -c 'kill -TERM $$' >out 2>err
    rc=$?; [ $rc = 143 ] || fail "killed: status $rc, want 143"
    "$TB_TOOL" run -- /nonexistent/prog >out 2>err
    rc=$?; [ $rc = 127 ] || fail "missing command: status $rc, want 127"
    grep -q "tiledblas: cannot run /nonexistent/prog" err || fail "no message for a missing command"
    pass ;;
run-preload)
    say "proves: 'tiledblas run' preloads the library by absolute path ahead of an"
    say "existing LD_PRELOAD (kept), and --stats/--mode reach the program"
    libm=$(ldconfig -p | sed -n 's/.*libm.so.6 (libc6,x86-64) => //p' | head -1)
    [ -n "$libm" ] || libm=/lib/x86_64-linux-gnu/libm.so.6
    env LD_PRELOAD="$libm" "$TB_TOOL" run -- sh -c 'echo "$LD_PRELOAD"' >out 2>err || fail "run failed"
    first=$(tr ':' ' ' <out | awk '{print $1}')
    case $first in /*libtiledblas.so*) ;; *) fail "LD_PRELOAD starts with '$first'";; esac
    grep -q "$libm" out || fail "the existing LD_PRELOAD was dropped"
    "$TB_TOOL" run --stats --mode cpu -- "$TB_CALLS" --calls 12 >out 2>err || fail "program failed"
    [ "$(calls_in err)" = 12 ] || fail "no report of 12 calls"
    grep -q "^tiledblas: gemm  *single  *cpu  *mode-cpu  *12 " err || fail "--mode cpu did not reach the library"
    pass ;;
run-trace)
    say "proves: 'tiledblas run --trace F' empties F once, then every process of the"
    say "command appends to it (two programs in one shell: 2 x 6 rows, 2 pids)"
    echo stale >t.jsonl
    "$TB_TOOL" run --trace "$W/t.jsonl" -- sh -c "'$TB_CALLS' --calls 6 && '$TB_CALLS' --calls 6" >out 2>err || fail "run failed"
    "$TB_PY" - "$W/t.jsonl" <<'PY' || fail "trace wrong"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 12, len(rows)
assert len({r["pid"] for r in rows}) == 2
print("12 rows from 2 processes")
PY
    pass ;;
ab)
    say "proves: 'tiledblas ab' runs the program in cpu, auto and verify mode, prints a"
    say "side-by-side table with wall times, calls by route and the verify result,"
    say "keeps the program's output in the log it names, and exits 0"
    "$TB_TOOL" ab --runs 2 --log "$W/ab.log" -- "$TB_CALLS" --calls 10 >out 2>err || fail "exit status $?"
    for want in "^ *cpu *auto *verify" "^wall time (median) " "^wall time (range) " "^cpu median / median" \
                "^calls on the CPU BLAS *10 *10 *10" "^calls on the GPU " "^CPU BLAS: OpenBLAS" "^verify: " \
                "^auto against cpu: " "went to $W/ab.log"; do
        grep -q "$want" out || fail "no '$want' in the table"
    done
    [ "$(grep -c 'tool_calls: 10 calls ok' ab.log)" = 7 ] || fail "the log does not hold the 7 runs' output (2 warm-ups)"
    grep -q "calls ok" out && fail "the program's output reached the table"
    if grep -q "^GPU: none" out; then grep -q "^No GPU:" out || fail "does not say plainly there is no GPU"; fi
    "$TB_TOOL" ab --runs 1 --log "$W/ab2.log" -- sh -c 'exit 5' >out 2>err
    [ $? = 1 ] || fail "a failing command did not give status 1"
    grep -q "exited with status 5" err || fail "the failure was not reported"
    if command -v gnuplot >/dev/null; then
        say "and with --plot it draws the wall times as a PNG and an SVG bar chart"
        for ext in png svg; do
            "$TB_TOOL" ab --runs 1 --log "$W/ab3.log" --plot "$W/ab.$ext" -- "$TB_CALLS" --calls 4 >out 2>err \
                || fail "ab --plot $ext: exit status $?"
            [ -s "$W/ab.$ext" ] || fail "no $W/ab.$ext"
            grep -q "^plot: $W/ab.$ext" out || fail "ab does not name the picture"
        done
        head -c 8 "$W/ab.png" | grep -q PNG || fail "ab.png is not a PNG"
        grep -q "<svg" "$W/ab.svg" || fail "ab.svg is not an SVG"
        grep -q "auto (libtiledblas)" "$W/ab.svg" || fail "the SVG lacks the bar labels"
    fi
    pass ;;
bench-help)
    say "proves: 'tiledblas bench --help' answers (status 0) and names its columns"
    "$TB_TOOL" bench --help >out 2>err || fail "exit status $?"
    grep -q "usage: tiledblas bench" out && grep -q "cublas" out && grep -q -- "--csv" out || fail "help text incomplete"
    grep -q -- "--complex" out && grep -q -- "--zcomplex" out || fail "help text lacks --complex or --zcomplex"
    pass ;;
bench-complex)
    say "proves: 'tiledblas bench --complex' and '--zcomplex' (cgemm, zgemm) run at"
    say "64 and 100 on the CPU, count 8 m n k flops, check OpenBLAS's and the shim's"
    say "results against a long-double reference over real and imaginary parts with"
    say "max abs errors within bench-csv's fp32 bound (1e-3) scaled by the part's"
    say "epsilon and by 2 (a complex part sums 2k products); the kernel row reads n/a"
    say "without a GPU or without the library's complex device entry point"
    for p in complex zcomplex; do
        "$TB_TOOL" bench --$p --sizes 64,100 --reps 3 --csv "$W/$p.csv" >out 2>err || fail "--$p: exit status $?"
        r=$(echo $p | cut -c1)gemm
        grep -q "^precision: $p (cblas_$r" out || fail "--$p: no 'precision: $p (cblas_$r' line"
        grep -q "^tiledblas: bench: 64x64x64 long-double reference\.\.\." err || fail "--$p: no long-double reference"
        if grep -q "^GPU: none" out; then
            grep -q "kernel *n/a (no GPU)" out || fail "--$p: kernel row not n/a (no GPU)"
        elif ! nm -D "$TB_LIB" | grep -q " T tiledblas_${r}_device$"; then
            grep -q "kernel *n/a (no tiledblas_${r}_device in libtiledblas)" out || fail "--$p: kernel row not n/a without the entry point"
        fi
        "$TB_PY" - "$W/$p.csv" "$p" <<'PY' || fail "--$p: CSV wrong"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
col = {name: i for i, name in enumerate(rows[0])}
prec = sys.argv[2]
# bench-csv's fp32 bound, scaled by the part's epsilon (2^-23 or 2^-52) and
# by 2 for the 2k products a complex part sums.
bound = 2 * 1e-3 * (1.0 if prec == "complex" else 2.0 ** -29)
got = set()
for r in rows[1:]:
    v = {name: r[i] for name, i in col.items()}
    got.add((v["series"], int(v["size"])))
    assert v["prec"] == prec, r
    m, n, k = int(v["m"]), int(v["n"]), int(v["k"])
    flops = float(v["gflops"]) * 1e9 * float(v["median_s"])
    assert abs(flops / (8.0 * m * n * k) - 1) < 0.01, ("not 8 m n k flops", flops, r)
    assert float(v["max_abs"]) < bound and float(v["avg_abs"]) <= float(v["max_abs"]), (bound, r)
for s in ("openblas", "shim"):
    for n in (64, 100):
        assert (s, n) in got, (s, n, got)
print(prec, len(rows) - 1, "rows, max abs err",
      max(float(r[col["max_abs"]]) for r in rows[1:]), "< bound", bound)
PY
    done
    pass ;;
bench-csv)
    say "proves: a tiny 'tiledblas bench --sizes 64,128 --reps 3 --csv F' runs on the"
    say "CPU, checks against float64, and writes series,size,gflops rows with the"
    say "median inside its range; a ratio is called noise exactly when the series'"
    say "range overlaps OpenBLAS's; without a GPU the GPU rows read n/a, and neither"
    say "the progress nor the header names a GPU series as run"
    "$TB_TOOL" bench --sizes 64,128 --reps 3 --csv "$W/b.csv" >out 2>err || fail "exit status $?"
    "$TB_PY" - "$W/b.csv" out <<'PY' || fail "CSV or table wrong"
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
assert head[:3] == ["series", "size", "gflops"] and head[-2:] == ["min_s", "max_s"], head
col = {name: i for i, name in enumerate(head)}
got = {(r[0], int(r[1])) for r in rows[1:]}
for s in ("openblas", "shim"):
    for n in (64, 128):
        assert (s, n) in got, (s, n, got)
for r in rows[1:]:
    assert float(r[2]) > 0 and float(r[col["max_abs"]]) < 1e-3, r
    assert float(r[col["min_s"]]) <= float(r[col["median_s"]]) <= float(r[col["max_s"]]), r
# The table: label, series, median, range, GFLOP/s, ratio [noise], errors.
base = None
for line in open(sys.argv[2]):
    m = re.match(r"^(\S+x\S+)?\s+(openblas|shim|kernel|cublas)\s+[0-9.]+\s+([0-9.]+)-([0-9.]+)\s+[0-9.]+\s+([0-9.]+)x( noise)?\s", line)
    if not m:
        continue
    lo, hi = float(m.group(3)), float(m.group(4))
    if m.group(2) == "openblas":
        base = (lo, hi)
        continue
    # The printed ms are rounded: ranges that touch within 0.001 ms may go either way.
    if base[1] + 0.001 < lo or hi + 0.001 < base[0]:
        assert not m.group(6), ("apart, yet called noise", line)
    elif min(hi, base[1]) - max(lo, base[0]) > 0.001:
        assert m.group(6), ("overlapping, yet not called noise", line)
print(len(rows) - 1, "rows")
PY
    grep -q "^OpenBLAS: .*core " out || fail "OpenBLAS core not printed"
    if grep -q "^GPU: none" out; then
        grep -q "kernel *n/a (no GPU)" out || fail "GPU rows not n/a"
        grep -q "kernel\.\.\.\|cublas\.\.\." err && fail "progress names a GPU series that did not run"
        grep -q "^precision: .*cuBLAS" out && fail "the header names cuBLAS, which did not run"
        grep -q "^(no GPU: the shim forwarded every call to OpenBLAS" out || fail "no note that the shim only forwarded"
    fi
    grep -q "64x64x64 openblas\.\.\." err && grep -q "64x64x64 shim\.\.\." err || fail "no progress on stderr"
    if command -v gnuplot >/dev/null; then
        say "and --plot draws it, titled with the series that ran"
        "$TB_TOOL" bench --sizes 64 --reps 2 --plot "$W/b.svg" >out 2>err || fail "--plot: exit status $?"
        grep -q "<svg" "$W/b.svg" || fail "b.svg is not an SVG"
        grep -q ">sgemm GFLOP/s: OpenBLAS, libtiledblas" "$W/b.svg" || fail "no title naming OpenBLAS and libtiledblas"
        if grep -q "^GPU: none" out; then
            grep -q "cuBLAS\|kernel alone" "$W/b.svg" && fail "the title names a GPU series that did not run"
        fi
    fi
    pass ;;
calibrate)
    say "proves: 'tiledblas calibrate' measures and caches this machine's rates (GPU),"
    say "or says there is no GPU, exits 1 and writes nothing (no GPU)"
    "$TB_TOOL" calibrate --help >out 2>err || fail "--help failed"
    grep -q "usage: tiledblas calibrate" out || fail "no usage text"
    "$TB_TOOL" calibrate --bogus >out 2>err; [ $? = 2 ] || fail "bad usage did not exit 2"
    "$TB_TOOL" calibrate >out 2>err; rc=$?
    if grep -q "^no GPU" err; then
        [ $rc = 1 ] || fail "no GPU: exit $rc, not 1"
        [ ! -e "$W/cache" ] || fail "no GPU, yet something was cached"
        pass
    fi
    [ $rc = 0 ] || fail "exit $rc"
    grep -q "rates: measured by this process in [0-9]* ms, saved to $W/cache/rates-" out || fail "no 'measured ... saved to'"
    grep -q "GFLOP/s.*TFLOP/s.*GB/s" out || fail "no rates printed"
    grep -q "small-call grid: 259 shapes, measured / formula [0-9.]*-[0-9.]* on the CPU" out || fail "no grid summary"
    f=$(ls "$W"/cache/rates-*.txt) && grep -q "^key tiledblas " "$f" && grep -q "^gpu_flops " "$f" || fail "no rates file"
    [ "$(grep -c '^grid [0-9]* [0-9]* [0-9]* [0-9.e-]* [0-9.e-]*$' "$f")" = 259 ] || fail "not 259 grid lines in $f"
    "$TB_TOOL" info >out 2>err || fail "info failed"
    grep -q "^cost model: this machine's, cached in $f" out || fail "info does not see the cache: $(grep 'cost model' out)"
    cat "$f"
    pass ;;
ab-repeat)
    say "proves: 'tiledblas ab --repeat 3' runs a warm-up of each side, then cpu and"
    say "auto alternating 3 times each, prints the median and range of each side, and"
    say "says 'within noise' exactly when the two ranges overlap (as far as the printed"
    say "milliseconds tell); with a program that"
    say "sleeps 1 s in one mode only it reports that side slower (or the other"
    say "faster), names no GPU effect when no call went to the GPU; --repeat 1 claims"
    say "nothing"
    # verdict_ok OUT: the verdict agrees with the printed ranges.
    verdict_ok() {
        "$TB_PY" - "$1" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
med = re.search(r"^wall time \(median\) +([0-9.]+) s +([0-9.]+) s", t, re.M)
rng = re.search(r"^wall time \(range\) +([0-9.]+)-([0-9.]+) s +([0-9.]+)-([0-9.]+) s", t, re.M)
ver = re.search(r"^auto against cpu: (.*)$", t, re.M)
assert med and rng and ver, "no median, range or verdict line"
c, a = float(med.group(1)), float(med.group(2))
clo, chi, alo, ahi = map(float, rng.groups())
assert clo <= c <= chi and alo <= a <= ahi, ("median outside its range", c, a, rng.groups())
# The tool judges the unrounded times; the printed ones are to the
# millisecond, so ranges that touch within half of it may go either way.
h = 0.0005
lo, hi = max(clo, alo), min(chi, ahi)
v = ver.group(1)
if lo + h <= hi - h or lo - h > hi + h:
    overlap = lo <= hi
    assert ("within noise" in v) == overlap, ("verdict does not follow the ranges", v, rng.groups())
else:
    overlap = "within noise" in v
if not overlap and a != c:     # equal medians to the millisecond: either word
    assert ("slower" in v) == (a > c) and ("faster" in v) == (a < c), v
print("verdict:", v)
PY
    }
    mkdir -p "$W/tmp"
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 3 -- "$TB_CALLS" --calls 10 >out 2>err || fail "exit status $?"
    order=$(sed -n 's/^tiledblas: ab: \([a-z]*\) \(warm-up\|run\) \([0-9]*\) of \([0-9]*\)\.\.\./\1 \2 \3 \4/p' err | tr '\n' ',')
    want="cpu warm-up 1 1,auto warm-up 1 1,cpu run 1 3,auto run 1 3,cpu run 2 3,auto run 2 3,cpu run 3 3,auto run 3 3,verify run 1 1,"
    [ "$order" = "$want" ] || fail "runs not warmed up and alternating: $order"
    grep -q "then 3 runs each of cpu and auto, alternating: median and range" out || fail "header"
    verdict_ok out || fail "verdict"
    say "a program that sleeps 1 s only with TILEDBLAS_MODE=auto, then only with cpu:"
    slow='if [ "$TILEDBLAS_MODE" = "$1" ]; then sleep 1; fi; exec "$0" --calls 4'
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 2 -- sh -c "$slow" "$TB_CALLS" auto >out 2>err || fail "exit status $?"
    verdict_ok out || fail "verdict (slow auto)"
    grep -q "^auto against cpu: slower, [0-9.]*x (the ranges of 2 runs do not overlap)" out \
        || fail "a 1 s slower auto side not reported slower"
    if grep -q "^calls on the GPU *0 *0 " out; then
        grep -q "not a GPU effect" out || fail "no GPU call, yet the difference is not said to be no GPU effect"
    fi
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 2 -- sh -c "$slow" "$TB_CALLS" cpu >out 2>err || fail "exit status $?"
    verdict_ok out || fail "verdict (slow cpu)"
    grep -q "^auto against cpu: faster, [0-9.]*x (the ranges of 2 runs do not overlap)" out || fail "a 1 s slower cpu side did not make auto faster"
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 1 -- "$TB_CALLS" --calls 4 >out 2>err || fail "exit status $?"
    grep -q "^auto against cpu: one run each, no spread" out || fail "--repeat 1 judged a difference"
    [ -z "$(ls -A "$W/tmp")" ] || fail "left behind in TMPDIR: $(ls -A "$W/tmp")"
    pass ;;
ab-cleanup)
    say "proves: 'tiledblas ab' leaves nothing in TMPDIR: after a good run, a failing"
    say "command, one that cannot be started, an unwritable --log, a child of CMD that"
    say "writes its statistics after CMD exited, and SIGTERM in the middle of a run"
    mkdir -p "$W/tmp"
    empty() { [ -z "$(ls -A "$W/tmp")" ] || fail "after $1, left in TMPDIR: $(ls -A "$W/tmp")"; }
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 1 -- "$TB_CALLS" --calls 4 >out 2>err || fail "exit status $?"
    empty "a good run"
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 1 -- sh -c 'echo boom; exit 3' >out 2>err
    [ $? = 1 ] && grep -q boom err || fail "a failing command: status or its output not shown"
    empty "a failing command"
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 1 -- "$W/no-such-program" >out 2>err
    [ $? = 1 ] || fail "a command that cannot start: not status 1"
    empty "a command that cannot start"
    TMPDIR="$W/tmp" "$TB_TOOL" ab --log "$W/no-dir/ab.log" -- "$TB_CALLS" >out 2>err
    [ $? = 1 ] && grep -q "cannot write the log" err || fail "an unwritable --log: not refused"
    empty "an unwritable --log"
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 2 -- sh -c '("$0" --calls 2 >/dev/null; sleep 0) & exit 0' "$TB_CALLS" >out 2>err \
        || fail "a command with a late child: exit status $?"
    sleep 1
    empty "a command whose child wrote late"
    TMPDIR="$W/tmp" "$TB_TOOL" ab --repeat 2 -- sh -c 'sleep 2' >out 2>err &
    ab=$!
    sleep 0.7
    [ -n "$(ls -A "$W/tmp")" ] || fail "no private directory while ab runs (the test proves nothing)"
    kill -TERM $ab
    wait $ab
    rc=$?
    [ $rc = 143 ] || fail "SIGTERM: ab exited $rc, not 143"
    sleep 2
    empty "SIGTERM"
    pass ;;
demo-ab)
    say "proves: scripts/demo.sh (a fast size, 2 rounds, the build tree given) warms"
    say "up both sides, alternates A and B, shows one loss per step that falls, says"
    say "'identical' for bit-identical results, and on a machine without a GPU says"
    say "so on its first line and claims no speed-up; it leaves nothing in TMPDIR"
    mkdir -p "$W/tmp"
    TMPDIR="$W/tmp" bash "$TB_SRC/scripts/demo.sh" --build "$TB_BUILD" --rounds 2 \
        --batch 96 --in 64 --hidden 128 --out 32 --steps 4 >out 2>err || fail "exit status $?"
    cat out
    [ "$(grep -c '^   round [12]: A [0-9.]* s   B [0-9.]* s$' out)" = 2 ] || fail "not 2 rounds of A then B"
    grep -q "one untimed run of each side, then 2 rounds of A, B" out || fail "no warm-up of each side"
    "$TB_PY" - out <<'PY' || fail "loss table"
import re, sys
rows = re.findall(r"^   ([0-9]+) +([0-9.]+) +([0-9.]+)$", open(sys.argv[1]).read(), re.M)
assert [int(r[0]) for r in rows] == [0, 1, 2, 3], rows
a = [float(r[1]) for r in rows]
assert all(x > y for x, y in zip(a, a[1:])), ("loss does not fall at every step", a)
print("loss A:", a, "B:", [float(r[2]) for r in rows])
PY
    if "$TB_BUILD/tests/gpu_probe" >/dev/null 2>&1; then
        say "a GPU is present: the no-GPU wording is not checked"
    else
        head -1 out | grep -q "^no GPU: " || fail "the first line does not say there is no GPU"
        grep -q "^   results       identical: final loss " out || fail "results not 'identical'"
        grep -q "^   sgemm calls   B: 0 on the GPU, 21 on the CPU BLAS; by reason: cpu:small x21$" out \
            || fail "not 21 calls, all on the CPU BLAS and named by reason"
        grep -q "^   verdict       no GPU: both sides ran on OpenBLAS" out || fail "no-GPU verdict"
        grep -qi "speed-\?up [0-9]\|speedup [0-9]" out && fail "a speed-up claimed with no GPU"
    fi
    [ -z "$(ls -A "$W/tmp")" ] || fail "left behind in TMPDIR: $(ls -A "$W/tmp")"
    say "--help answers without building or running anything"
    TMPDIR="$W/tmp" bash "$TB_SRC/scripts/demo.sh" --help --build "$W/no-such-build" >out 2>err || fail "--help: status $?"
    grep -q "^usage: scripts/demo.sh" out || fail "--help: no usage"
    grep -q "^==\|^no GPU" out && fail "--help ran the demo"
    [ -z "$(ls -A "$W/tmp")" ] || fail "--help wrote to TMPDIR"
    pass ;;
mlp-converge)
    say "proves: examples/mlp_train trains at both sizes the demo picks (scripts/demo.sh"
    say "--sizes: with and without a GPU), on OpenBLAS alone: the loss falls at every"
    say "step and ends below half its start; --help answers, bad usage exits 2"
    "$TB_BUILD/examples/mlp_train" --help >out 2>err && grep -q "^usage: mlp_train" out || fail "--help"
    "$TB_BUILD/examples/mlp_train" --batch 0 >out 2>err; [ $? = 2 ] || fail "--batch 0 not refused"
    "$TB_BUILD/examples/mlp_train" --bogus 1 >out 2>err; [ $? = 2 ] || fail "unknown option not refused"
    bash "$TB_SRC/scripts/demo.sh" --sizes >sizes 2>err || fail "demo.sh --sizes failed"
    [ "$(wc -l <sizes)" = 2 ] || fail "demo.sh --sizes does not give two sizes"
    while read -r which args; do
        "$TB_BUILD/examples/mlp_train" $args >out 2>err || fail "mlp_train $args: status $?"
        "$TB_PY" - out "$which" <<'PY' || fail "mlp_train $args does not train"
import re, sys
t = open(sys.argv[1]).read()
loss = [float(x) for x in re.findall(r"^step [0-9]+: loss ([0-9.e+-]+|nan|inf)$", t, re.M)]
assert len(loss) >= 3, loss
assert all(x > y for x, y in zip(loss, loss[1:])), ("loss does not fall at every step", loss)
assert loss[-1] < 0.5 * loss[0], ("loss ends above half its start", loss)
print(sys.argv[2], "loss per step:", " ".join("%.6f" % x for x in loss))
PY
    done <sizes
    pass ;;
usage)
    say "proves: bad usage anywhere exits 2 with a message naming the problem"
    check() { want=$1; shift; "$TB_TOOL" "$@" >out 2>err; rc=$?; [ $rc = 2 ] || fail "'$*': status $rc"; grep -q -- "$want" err || fail "'$*': no '$want'"; }
    check "usage: tiledblas"
    check "unknown command 'frobnicate'" frobnicate
    check "no command given" run
    check "no command given" run --stats
    check "--mode wants" run --mode fast -- true
    check "--verbose wants" run --verbose 9 -- true
    check "unknown option '--bogus'" run --bogus -- true
    check "--runs wants" ab --runs 0 -- true
    check "--repeat wants" ab --repeat 65 -- true
    check "--repeat wants" ab --repeat -- true
    check "no command given" ab
    check "bad --sizes" bench --sizes 12,abc
    check "bad --shapes" bench --shapes 12x3
    check "--plot wants" bench --plot out.pdf
    check "unexpected argument" info extra
    "$TB_TOOL" --help >top 2>err || fail "--help failed"
    say "and the top-level usage lists every option each command's --help names"
    subs="run ab info bench calibrate"
    grep -q "^  animate " top && subs="$subs animate"
    for sub in $subs; do
        "$TB_TOOL" $sub --help >out 2>err || fail "$sub --help failed"
        grep -q "usage: tiledblas $sub" out || fail "$sub --help text"
        for opt in $(grep -o -- '--[a-z][a-z-]*' out | sort -u); do
            grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" top || fail "'tiledblas --help' lacks $sub's $opt"
        done
    done
    pass ;;
*)
    echo "unknown case $case_name"; exit 1 ;;
esac
