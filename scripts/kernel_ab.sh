#!/bin/bash
# scripts/kernel_ab.sh BASE [SHAPES] - A/B of one kernel on the GPU machine,
# two builds in one run: BASE (a source tree, or a tarball of one: `git
# archive -o base.tar REV kernels tests/kernels bench scripts/kernel_check.sh`)
# and this tree, each built by scripts/kernel_check.sh build, then
# bench_kernels on SHAPES with each build in turn, ROUNDS rounds, so that both
# see the machine at the same moments. Prints, per shape, cuBLAS fp32's ms,
# each build's ms per round, and the best of this tree over the best of BASE
# (below 1: this tree is faster), then both builds' errors where they differ.
# Environment: KERNEL (default wgmma), ROUNDS (2), BENCH_ARGS (--no-wide),
# AB_DIR (/tmp/kernel-ab: the builds and the logs).
set -u
base=${1:?usage: scripts/kernel_ab.sh BASE [SHAPES]}
shapes=${2:-777x9999x333,768x9984x320,8192x8192x256,1537,4097,4096,1024,256x256x65536,700x650x3001}
kernel=${KERNEL:-wgmma}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${AB_DIR:-/tmp/kernel-ab}
rm -rf "$dir" && mkdir -p "$dir/base-src"
if [ -d "$base" ]; then
    cp -r "$base"/. "$dir/base-src/"
else
    tar -xf "$base" -C "$dir/base-src" || exit 1
fi
(cd "$dir/base-src" && bash scripts/kernel_check.sh build "$dir/A" > "$dir/build-A.log" 2>&1) &
bash "$root/scripts/kernel_check.sh" build "$dir/B" > "$dir/build-B.log" 2>&1
wait
for v in A B; do
    [ -x "$dir/$v/bench_kernels" ] || { echo "build $v failed:"; tail -20 "$dir/build-$v.log"; exit 1; }
done

for r in $(seq "${ROUNDS:-2}"); do
    for v in A B; do
        "$dir/$v/bench_kernels" ${BENCH_ARGS:---no-wide} --sizes "$shapes" --kernels "cublas,$kernel" \
            > "$dir/bench-$v-$r.txt" 2>&1
        rc=$?
        [ $rc -eq 77 ] && { cat "$dir/bench-$v-$r.txt"; exit 77; }   # no GPU here
        [ $rc -eq 0 ] || { echo "bench_kernels ($v, round $r) exit $rc:"; tail -5 "$dir/bench-$v-$r.txt"; exit 1; }
    done
done

echo "$kernel, ms: A = $base, B = this tree, ${ROUNDS:-2} rounds each, in turn"
python3 "$root/scripts/kernel_ab_table.py" "$dir" "${ROUNDS:-2}" "$kernel"
