#!/bin/bash
# scripts/demo.sh - the main job: set up, then run a real BLAS program
# (examples/mlp_train, linked to OpenBLAS) first on OpenBLAS alone and then
# under LD_PRELOAD=libtiledblas.so, and compare the two runs: time, results,
# and where the calls went. Says plainly when there is no GPU.
# Usage: scripts/demo.sh [mlp_train options, e.g. --batch 4096 --steps 5]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
b=$root/build
lib=$b/libtiledblas.so
app=$b/examples/mlp_train
args=("$@")
if [ ${#args[@]} = 0 ]; then
    # A size that finishes in seconds on a laptop CPU and shows the GPU on a big one.
    if "$b/tests/gpu_probe" >/dev/null 2>&1; then args=(--batch 4096 --in 2048 --hidden 4096 --out 1024 --steps 5)
    else args=(--batch 1024 --in 512 --hidden 1024 --out 512 --steps 3); fi
fi
gpu=$("$b/tests/gpu_probe" 2>&1) && have_gpu=1 || have_gpu=0
echo "== GPU: $([ $have_gpu = 1 ] && echo "$gpu" || echo "none ($gpu): every call will run on OpenBLAS, the A/B still runs")"
core=$(OPENBLAS_VERBOSE=2 "$app" --steps 1 --batch 8 --in 8 --hidden 8 --out 8 2>&1 | sed -n 's/^Core: *//p' | head -1)
echo "== OpenBLAS core: ${core:-unknown}${OPENBLAS_CORETYPE:+ (OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE)}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "== A: OpenBLAS alone: $app ${args[*]}"
"$app" "${args[@]}" | tee "$tmp/a"
echo "== B: the same program under LD_PRELOAD=$lib"
TILEDBLAS_VERBOSE=2 LD_PRELOAD=$lib "$app" "${args[@]}" 2>"$tmp/calls" | tee "$tmp/b"

ta=$(sed -n 's/^time: \([0-9.]*\) s total.*/\1/p' "$tmp/a"); tb=$(sed -n 's/^time: \([0-9.]*\) s total.*/\1/p' "$tmp/b")
la=$(grep '^step' "$tmp/a" | tail -1 | awk '{print $4}'); lb=$(grep '^step' "$tmp/b" | tail -1 | awk '{print $4}')
ca=$(sed -n 's/^weights checksum //p' "$tmp/a"); cb=$(sed -n 's/^weights checksum //p' "$tmp/b")
gpu_calls=$(grep -c ' -> gpu ' "$tmp/calls" || true); cpu_calls=$(grep -c ' -> cpu ' "$tmp/calls" || true)
echo
echo "== A/B"
awk -v ta="$ta" -v tb="$tb" -v la="$la" -v lb="$lb" -v ca="$ca" -v cb="$cb" -v g="$gpu_calls" -v c="$cpu_calls" 'BEGIN {
    d = (ca - cb) / (ca != 0 ? ca : 1); if (d < 0) d = -d
    printf "  wall time     OpenBLAS %.3f s   preload %.3f s   speedup %.2fx\n", ta, tb, ta / tb
    printf "  final loss    OpenBLAS %s   preload %s\n", la, lb
    printf "  weights       relative difference %.2e (fp32 rounding order differs; < 1e-3 agrees)\n", d
    printf "  sgemm calls   %d on the GPU, %d on the CPU\n", g, c
    exit (d < 1e-3) ? 0 : 1 }'
echo "  reasons:      $(sed -n 's/.* -> \(gpu\|cpu\) (\([a-z:-]*\)).*/\1:\2/p' "$tmp/calls" | sort | uniq -c | awk '{printf "%s x%s  ", $2, $1}')"
