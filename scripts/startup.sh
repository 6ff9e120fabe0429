#!/bin/bash
# scripts/startup.sh - what the preload costs a short program: whole-process
# times of bench_startup (fill arrays, CALLS products of n^3, exit), OpenBLAS
# alone against the preload with this machine's rates cached and on a
# machine's first run (an empty cache directory), the three alternating,
# median of the rounds. The preloaded runs' checksums must agree with
# OpenBLAS's to the precision's rounding (a GPU sums in another order).
# Usage: scripts/startup.sh LIBTILEDBLAS BENCH_STARTUP [--rounds R]
#          [--programs NxCALLS[:double],...]
#   default programs: 2048x3, 1024x10, 2048x30, 8192x1 (single precision)
set -u
lib=$1 bin=$2; shift 2
rounds=5 programs=2048x3,1024x10,2048x30,8192x1
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    *) echo "startup.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cached=$tmp/cache
# The "cached" column reads this machine's rates as `tiledblas calibrate`
# (the tool built beside the library) leaves them for a user.
tool=$(dirname "$lib")/tiledblas
TILEDBLAS_CACHE_DIR=$cached "$tool" calibrate >/dev/null ||
    echo "startup.sh: no rates cached ($tool calibrate failed): both columns start empty" >&2

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

printf "%-16s %12s %14s %8s %14s %8s\n" program "OpenBLAS ms" "cached ms" ratio "first run ms" ratio
for p in ${programs//,/ }; do
    spec=${p%%:*} prec=${p#"$spec"}
    n=${spec%x*} calls=${spec#*x}
    opt=; [ "$prec" = :double ] && opt=--double
    : > "$tmp/a"; : > "$tmp/b"; : > "$tmp/c"
    for r in $(seq "$rounds"); do
        run_ms env -u LD_PRELOAD "$bin" "$n" "$calls" $opt >> "$tmp/a"; want=$(cat "$tmp/out")
        run_ms env TILEDBLAS_CACHE_DIR="$cached" LD_PRELOAD="$lib" "$bin" "$n" "$calls" $opt >> "$tmp/b"
        same "$want" || { echo "startup.sh: $p cached: $(cat "$tmp/out") against $want" >&2; exit 1; }
        rm -rf "$tmp/empty"
        run_ms env TILEDBLAS_CACHE_DIR="$tmp/empty" LD_PRELOAD="$lib" "$bin" "$n" "$calls" $opt >> "$tmp/c"
        same "$want" || { echo "startup.sh: $p first run: $(cat "$tmp/out") against $want" >&2; exit 1; }
    done
    a=$(median < "$tmp/a") b=$(median < "$tmp/b") c=$(median < "$tmp/c")
    awk -v p="${spec}${prec}" -v a="$a" -v b="$b" -v c="$c" \
        'BEGIN {printf "%-16s %12s %14s %7.2fx %14s %7.2fx\n", p, a, b, b / a, c, c / a}'
done
echo "whole processes: fill, CALLS products of N^3, exit; median of $rounds rounds; ratio: preload / OpenBLAS alone (lower is better)"
