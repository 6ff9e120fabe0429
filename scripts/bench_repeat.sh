#!/bin/bash
# scripts/bench_repeat.sh - run bench_repeat (bench/bench_repeat.c: a plain
# BLAS client calling cblas_sgemm again and again on the same buffers) twice
# in the same environment: plain, on the OpenBLAS it is linked to, and under
# LD_PRELOAD=LIBTILEDBLAS; then print first call, steady-state median and
# total of each and the speedup. Works without a GPU (then every call runs on
# the CPU either way, and the table says so).
# Usage: scripts/bench_repeat.sh LIBTILEDBLAS [bench_repeat options]
#   e.g. scripts/bench_repeat.sh build/libtiledblas.so --size 4096 --calls 20
# The program is taken from $BENCH_REPEAT, or else next to LIBTILEDBLAS (the
# build directory). Everything else in the environment (OPENBLAS_CORETYPE,
# OPENBLAS_NUM_THREADS, TILEDBLAS_MODE, ...) is the caller's, for both runs;
# only TILEDBLAS_VERBOSE defaults to 2 here (one decision line per call, read
# to count where the calls went; the plain run ignores it), and LD_PRELOAD is
# cleared for the plain run and set to LIBTILEDBLAS alone for the other.
# Exit status: 0 when both runs exit 0 (each checks its result against
# float64), 1 otherwise, 2 for bad usage.
set -u
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    echo "usage: scripts/bench_repeat.sh LIBTILEDBLAS [bench_repeat options]" >&2
    exit 2
fi
lib=$1; shift
case $lib in /*) ;; *) lib=$PWD/$lib ;; esac
bin=${BENCH_REPEAT:-$(dirname "$lib")/bench_repeat}
[ -f "$lib" ] || { echo "bench_repeat.sh: no library $lib" >&2; exit 2; }
[ -x "$bin" ] || { echo "bench_repeat.sh: no program $bin (set BENCH_REPEAT)" >&2; exit 2; }
[ -n "${LD_PRELOAD:-}" ] && echo "bench_repeat.sh: note: ignoring the caller's LD_PRELOAD=$LD_PRELOAD"
export TILEDBLAS_VERBOSE=${TILEDBLAS_VERBOSE:-2}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "== plain (OpenBLAS${OPENBLAS_CORETYPE:+, OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE}): $bin $*"
env -u LD_PRELOAD "$bin" "$@" >"$tmp/plain.out" 2>"$tmp/plain.err"; rc_plain=$?
cat "$tmp/plain.out"; grep -v ' -> ' "$tmp/plain.err"
echo "== preload: LD_PRELOAD=$lib $bin $*"
LD_PRELOAD=$lib "$bin" "$@" >"$tmp/pre.out" 2>"$tmp/pre.err"; rc_pre=$?
cat "$tmp/pre.out"; grep -v ' -> ' "$tmp/pre.err"

# Where the preloaded run's calls went, from its decision lines.
routes=$(sed -n 's/.* -> \(gpu\|cpu\) (\([a-z:-]*\)).*/\1 (\2)/p' "$tmp/pre.err" | sort | uniq -c |
         awk '{ n = $1; $1 = ""; printf "%s%d x%s", (NR > 1 ? ", " : ""), n, $0 }')
stray=$(grep -c ' -> ' "$tmp/plain.err")

echo
awk -v rp="$rc_plain" -v rt="$rc_pre" -v routes="$routes" -v stray="$stray" '
    function field(line, key,   a, i, n) {
        n = split(line, a, " ")
        for (i = 1; i <= n; i++) if (index(a[i], key "=") == 1) return substr(a[i], length(key) + 2)
        return ""
    }
    /^summary: / { s[FILENAME ~ /plain/ ? "p" : "t"] = $0 }
    END {
        p = s["p"]; t = s["t"]
        if (p == "" || t == "") {
            printf "bench_repeat.sh: a run printed no summary (exit status plain %d, preload %d)\n", rp, rt
            exit 1
        }
        printf "== bench_repeat m=%s n=%s k=%s, %s calls on the same buffers\n",
               field(p, "m"), field(p, "n"), field(p, "k"), field(p, "calls")
        printf "%-24s %12s %12s %9s\n", "", "OpenBLAS", "preload", "speedup"
        split("first_ms median_ms total_ms", keys, " ")
        split("first call ms|steady-state median ms|total ms", names, "|")
        for (i = 1; i <= 3; i++) {
            a = field(p, keys[i]) + 0; b = field(t, keys[i]) + 0
            printf "%-24s %12.3f %12.3f %8.2fx\n", names[i], a, b, (b > 0 ? a / b : 0)
        }
        printf "%-24s %12s %12s\n", "result check", field(p, "check") " (" rp ")", field(t, "check") " (" rt ")"
        printf "preload routes: %s\n", (routes == "" ? "unknown (no libtiledblas decision lines: another preload, or TILEDBLAS_VERBOSE/TILEDBLAS_LOG set by the caller)" : routes)
        if (stray > 0)
            printf "warning: the plain run printed %d decision lines: was it preloaded after all?\n", stray
        exit (rp == 0 && rt == 0) ? 0 : 1
    }' "$tmp/plain.out" "$tmp/pre.out"
