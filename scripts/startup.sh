#!/bin/bash
# scripts/startup.sh - what the preload costs a short program: whole-process
# times of bench_startup (fill arrays, CALLS products of n^3, exit), OpenBLAS
# alone against the preload on the program's first run with this machine's
# rates cached (no record of the program), its second run (the first run's
# record and learned calls in the cache, as a user's next run finds them),
# and on a machine's first run (an empty cache directory), alternating, the
# median of the rounds. A program "A>B" runs A first and B second (a program
# whose second run is short: it changed its input); its OpenBLAS column
# shows A's time and B's, each run's ratio is against its own program. The
# preloaded runs' checksums must agree with OpenBLAS's to the precision's
# rounding (a GPU sums in another order).
# Usage: scripts/startup.sh LIBTILEDBLAS BENCH_STARTUP [--rounds R]
#          [--programs NxCALLS[:double][>NxCALLS[:double]],...]
#   default programs: 2048x3, 1024x10, 2048x30, 8192x1, 2048x30>2048x3
set -u
lib=$1 bin=$2; shift 2
rounds=5 programs='2048x3,1024x10,2048x30,8192x1,2048x30>2048x3'
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    *) echo "startup.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cached=$tmp/cache
# The rates as `tiledblas calibrate` (the tool built beside the library)
# leaves them for a user; each first run starts from a copy of them alone.
tool=$(dirname "$lib")/tiledblas
TILEDBLAS_CACHE_DIR=$cached "$tool" calibrate >/dev/null ||
    echo "startup.sh: no rates cached ($tool calibrate failed): the runs start without them" >&2
mkdir -p "$cached"

# Milliseconds of one whole process; its stdout in $tmp/out.
run_ms() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" > "$tmp/out" 2>> "$tmp/err" || { echo "startup.sh: failed: $* ($(tail -2 "$tmp/err"))" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 ))
}
# Whether $tmp/out's checksum (the last word) is within 1e-5 of $1's.
same() { awk -v a="${1##* }" -v b="$(awk '{print $NF}' "$tmp/out")" \
             'BEGIN {d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(d <= 1e-5 * m)}'; }
median() { sort -n | awk '{v[NR] = $1} END {printf "%.1f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1000}'; }
# bench_startup's arguments for NxCALLS[:double].
args_of() {
    local spec=${1%%:*} prec=${1#"${1%%:*}"}
    echo "${spec%x*} ${spec#*x}${prec:+ --double}"
}

printf "%-22s %16s %12s %8s %12s %8s %12s %8s\n" program "OpenBLAS ms" "1st run ms" ratio \
    "2nd run ms" ratio "empty ms" ratio
for p in ${programs//,/ }; do
    first=${p%%>*} second=${p#*>}
    a1=$(args_of "$first") a2=$(args_of "$second")
    : > "$tmp/o1"; : > "$tmp/o2"; : > "$tmp/r1"; : > "$tmp/r2"; : > "$tmp/e"
    for r in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        run_ms env -u LD_PRELOAD "$bin" $a1 >> "$tmp/o1"; want1=$(cat "$tmp/out")
        if [ "$second" = "$first" ]; then
            want2=$want1
        else
            run_ms env -u LD_PRELOAD "$bin" $a2 >> "$tmp/o2"; want2=$(cat "$tmp/out")
        fi
        rm -rf "$tmp/run" && mkdir -m 755 "$tmp/run"
        cp "$cached"/rates-*.txt "$tmp/run/" 2>/dev/null
        run_ms env TILEDBLAS_CACHE_DIR="$tmp/run" LD_PRELOAD="$lib" "$bin" $a1 >> "$tmp/r1"
        same "$want1" || { echo "startup.sh: $p 1st run: $(cat "$tmp/out") against $want1" >&2; exit 1; }
        run_ms env TILEDBLAS_CACHE_DIR="$tmp/run" LD_PRELOAD="$lib" "$bin" $a2 >> "$tmp/r2"
        same "$want2" || { echo "startup.sh: $p 2nd run: $(cat "$tmp/out") against $want2" >&2; exit 1; }
        rm -rf "$tmp/empty"
        run_ms env TILEDBLAS_CACHE_DIR="$tmp/empty" LD_PRELOAD="$lib" "$bin" $a1 >> "$tmp/e"
        same "$want1" || { echo "startup.sh: $p empty cache: $(cat "$tmp/out") against $want1" >&2; exit 1; }
    done
    o1=$(median < "$tmp/o1") r1=$(median < "$tmp/r1") r2=$(median < "$tmp/r2") e=$(median < "$tmp/e")
    o2=$o1 shown=$o1
    if [ "$second" != "$first" ]; then o2=$(median < "$tmp/o2") shown="$o1/$o2"; fi
    awk -v p="$p" -v s="$shown" -v o1="$o1" -v o2="$o2" -v r1="$r1" -v r2="$r2" -v e="$e" \
        'BEGIN {printf "%-22s %16s %12s %7.2fx %12s %7.2fx %12s %7.2fx\n", p, s, r1, r1 / o1, r2, r2 / o2, e, e / o1}'
done
echo "whole processes: fill, CALLS products of N^3, exit; median of $rounds rounds; ratio: preload / OpenBLAS alone (lower is better)"
echo "1st run: rates cached, no record of the program; 2nd run: after the 1st (its record and learned calls); empty: nothing cached"
