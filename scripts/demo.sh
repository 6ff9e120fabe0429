#!/bin/bash
# scripts/demo.sh - the main job: builds, then runs examples/mlp_train (an
# OpenBLAS program) alone (A) and under LD_PRELOAD=libtiledblas.so (B), warmed
# up and alternated, and compares results, calls and times. It claims a speed-up
# only from medians whose ranges are apart, never with no call on the GPU.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# The sizes it picks; tests/tool (mlp-converge) checks that both train.
gpu_args=(--batch 4096 --in 2048 --hidden 4096 --out 1024 --steps 5)
cpu_args=(--batch 1024 --in 512 --hidden 1024 --out 512 --steps 5)
usage="usage: scripts/demo.sh [--build DIR] [--rounds N] [--sizes] [--help] [mlp_train options]
Builds libtiledblas (scripts/setup.sh into ./build: minutes the first time,
with a line every 30 s; --build DIR uses a tree already built there instead),
then runs examples/mlp_train once on each side untimed (warm-up) and N rounds
(default 3) of A then B, and prints the loss per step, whether the results (final loss, weights checksum) are identical,
the calls by route, and the median and range of each side's time. Without
mlp_train options it picks a size that trains in seconds: with a GPU
${gpu_args[*]},
without one ${cpu_args[*]}.
--sizes prints those two and runs nothing. Exit status 0, or 1 when a run
failed or the two sides' results disagree beyond fp32 rounding."

b=$root/build setup=1 rounds=3 args=()
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) echo "$usage"; exit 0 ;;
    --sizes) echo "gpu: ${gpu_args[*]}"; echo "cpu: ${cpu_args[*]}"; exit 0 ;;
    --build) [ $# -ge 2 ] || { echo "demo: --build needs a directory" >&2; exit 2; }
             b=$(cd "$2" && pwd) || exit 2; setup=0; shift 2 ;;
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || { echo "demo: --rounds wants 1..99" >&2; exit 2; }
              rounds=$2; shift 2 ;;
    --) shift; args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
    esac
done

# The first line says whether there is a GPU at all (the build's probe, once
# it exists, says whether CUDA can use it).
if compgen -G "/dev/nvidia[0-9]*" >/dev/null; then
    echo "== GPU device found ($(ls /dev/nvidia[0-9]* | tr '\n' ' '| sed 's/ $//')); building, then probing it"
else
    echo "no GPU: this machine has no NVIDIA device (/dev/nvidia*): both sides will run on OpenBLAS; the A/B shows identical results, not a speed-up"
fi
# The build prints nothing of its own until it ends (scripts/setup.sh keeps
# only errors and warnings): say what it does and how long it takes, and
# show it is alive every 30 s with the files compiled so far.
if [ $setup = 1 ]; then
    echo "== building libtiledblas into $b with scripts/setup.sh (it first installs missing apt packages):"
    echo "   a first build compiles the CUDA kernels for every GPU generation and takes minutes"
    echo "   (about 4 on a 2-core machine); one already up to date, seconds"
    start=$(date +%s) mark=$(mktemp "${TMPDIR:-/tmp}/tiledblas-demo-build.XXXXXX")
    ( trap 'kill $nap 2>/dev/null; exit 0' TERM     # its sleep goes too: it would hold stdout
      while :; do
          sleep 30 & nap=$!; wait $nap
          echo "   ... $(( $(date +%s) - start )) s, $(find "$b" -name '*.o' -newer "$mark" 2>/dev/null | wc -l) files compiled so far"
      done ) &
    beat=$!
    trap 'kill $beat 2>/dev/null; rm -f "$mark"' EXIT
    rc=0
    "$root/scripts/setup.sh" || rc=$?
    kill $beat 2>/dev/null; wait $beat 2>/dev/null || true
    rm -f "$mark"; trap - EXIT
    [ $rc = 0 ] || { echo "demo: scripts/setup.sh failed (status $rc)" >&2; exit 1; }
    echo "== built in $(( $(date +%s) - start )) s"
fi
lib=$b/libtiledblas.so app=$b/examples/mlp_train
for f in "$lib" "$app" "$b/tests/gpu_probe"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "demo: $f is missing: build first" >&2; exit 1; }
done
gpu=$("$b/tests/gpu_probe" 2>&1) && have_gpu=1 || have_gpu=0
if [ $have_gpu = 1 ]; then echo "== GPU: $gpu"
else echo "== GPU: none usable ($gpu): every call will run on OpenBLAS"; fi
[ ${#args[@]} -gt 0 ] || { if [ $have_gpu = 1 ]; then args=("${gpu_args[@]}"); else args=("${cpu_args[@]}"); fi; }
core=$(OPENBLAS_VERBOSE=2 "$app" --steps 1 --batch 8 --in 8 --hidden 8 --out 8 2>&1 | sed -n 's/^Core: *//p' | head -1)
echo "== OpenBLAS core: ${core:-unknown}${OPENBLAS_CORETYPE:+ (OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE)}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tiledblas-demo.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
# run SIDE NAME: one run of mlp_train, stdout to $tmp/NAME; B also writes
# its statistics (calls by route and reason) to $tmp/NAME.json.
run() {
    if [ "$1" = A ]; then "$app" "${args[@]}" >"$tmp/$2" 2>"$tmp/$2.err"
    else LD_PRELOAD=$lib TILEDBLAS_STATS=$tmp/$2.json "$app" "${args[@]}" >"$tmp/$2" 2>"$tmp/$2.err"; fi \
        || { echo "demo: side $1 failed (status $?):"; tail -5 "$tmp/$2" "$tmp/$2.err"; exit 1; }
}
secs() { sed -n 's/^time: \([0-9.]*\) s total.*/\1/p' "$tmp/$1"; }

echo "== A: OpenBLAS alone: $app ${args[*]}"
echo "== B: the same program under LD_PRELOAD=$lib"
echo "== one untimed run of each side, then $rounds rounds of A, B (time: mlp_train's own 'time: ... s total')"
run A warm-a; run B warm-b
for r in $(seq "$rounds"); do
    run A a$r; run B b$r
    echo "   round $r: A $(secs a$r) s   B $(secs b$r) s"
done

echo
echo "== loss per step (round 1)"
paste <(grep '^step' "$tmp/a1" | awk '{sub(":", "", $2); print $2, $4}') <(grep '^step' "$tmp/b1" | awk '{print $4}') |
    awk 'BEGIN {printf "   %-6s %-18s %s\n", "step", "A: OpenBLAS", "B: preload"} {printf "   %-6s %-18s %s\n", $1, $2, $3}'

# Results: every run of a side must agree with its first (the program is
# deterministic), and A with B.
status=0
for s in a b; do
    for r in $(seq 2 "$rounds"); do
        diff -q <(grep -E '^(final loss|weights)' "$tmp/${s}1") <(grep -E '^(final loss|weights)' "$tmp/$s$r") >/dev/null ||
            echo "   note: side ${s^^} round $r gave other results than round 1"
    done
done
la=$(sed -n 's/^final loss //p' "$tmp/a1") lb=$(sed -n 's/^final loss //p' "$tmp/b1")
ca=$(sed -n 's/^weights checksum //p' "$tmp/a1") cb=$(sed -n 's/^weights checksum //p' "$tmp/b1")
# Calls by route and reason, from B's statistics (round 1).
calls=$(sed -n 's/.*"stats":"row".*"route":"\([a-z]*\)","reason":"\([^"]*\)","calls":\([0-9]*\).*/\1 \2 \3/p' "$tmp/b1.json" 2>/dev/null || true)
gpu_calls=$(echo "$calls" | awk '$1 == "gpu" {s += $3} END {print s + 0}')
cpu_calls=$(echo "$calls" | awk '$1 == "cpu" {s += $3} END {print s + 0}')
echo
echo "== A/B"
if [ "$la" = "$lb" ] && [ "$ca" = "$cb" ]; then
    echo "   results       identical: final loss $la, weights checksum $ca (sum, hash of the bits)"
else
    awk -v la="$la" -v lb="$lb" -v ca="${ca%% *}" -v cb="${cb%% *}" -v g="$gpu_calls" 'BEGIN {
        dl = (la - lb) / (la != 0 ? la : 1); dl = dl < 0 ? -dl : dl
        dc = ca - cb; dc = dc < 0 ? -dc : dc
        printf "   results       differ: final loss A %s, B %s (relative difference %.2e); weights sum A %s, B %s (difference %.2e)\n", la, lb, dl, ca, cb, dc
        if (g > 0) printf "                 (the GPU sums the products in another order: fp32 rounding, expected below 1e-3)\n"
        exit !(dl < 1e-3 && g > 0) }' || { status=1; echo "   results       DISAGREE beyond fp32 rounding"; }
fi
echo "   sgemm calls   B: $gpu_calls on the GPU, $cpu_calls on the CPU BLAS; by reason: $(echo "$calls" | awk 'NF {printf "%s%s:%s x%s", (NR > 1 ? ", " : ""), $1, $2, $3}')"
times() { for r in $(seq "$rounds"); do secs $1$r; done | sort -n | tr '\n' ' '; }
awk -v a="$(times a)" -v b="$(times b)" -v g="$gpu_calls" -v gpu=$have_gpu 'function med(x, n) { return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
BEGIN {
    n = split(a, ta, " "); split(b, tb, " ")
    ma = med(ta, n); mb = med(tb, n)
    printf "   time          A median %.3f s (range %.3f-%.3f)   B median %.3f s (range %.3f-%.3f), %d rounds\n", ma, ta[1], ta[n], mb, tb[1], tb[n], n
    overlap = ta[1] <= tb[n] && tb[1] <= ta[n]
    if (g == 0) {
        printf "   verdict       %s: both sides ran on OpenBLAS (0 calls on the GPU); ", gpu ? "no call went to the GPU" : "no GPU"
        if (n < 2) print "one round: no spread to judge the times by"
        else if (overlap) print "times within noise"
        else printf "B %.3f s against A %.3f s, outside the spread: not a GPU effect (the cost of the shim, or drift in the machine)\n", mb, ma
    } else if (n < 2 || ma <= 0 || mb <= 0) {
        printf "   verdict       %s (A %.3f s, B %.3f s): no speed-up to report; more rounds or a larger size\n", n < 2 ? "one round, no spread to judge by" : "too short to time", ma, mb
    } else if (overlap) {
        printf "   verdict       within noise: the ranges overlap, no speed-up shown (%d calls on the GPU)\n", g
    } else {
        printf "   verdict       %s %.2fx (median against median, ranges apart), %d calls on the GPU\n", mb < ma ? "speed-up" : "slow-down", mb < ma ? ma / mb : mb / ma, g
    }
}'
exit $status
