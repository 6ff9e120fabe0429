#!/bin/sh
# tests/tsan.sh SOURCE_DIR WORK_DIR - the library's host code under
# ThreadSanitizer: builds the C sources with -fsanitize=thread into WORK_DIR
# (the CUDA kernels as usual), then runs the copy pool's test and
# sgemm_check under the preload from 4 to 64 threads (both precisions), with statistics,
# trace and decision lines on and off, verify mode and around fork. Any
# report fails the test. Without a GPU this covers the decision, the CPU
# route, accounting and the pool; the GPU path itself runs under
# compute-sanitizer in scripts/gpu_check.sh. OpenBLAS runs with whatever
# kernel and thread count the environment picks (OPENBLAS_CORETYPE,
# OPENBLAS_NUM_THREADS); tsan.supp drops reports inside OpenBLAS. Exit 77
# (a skip) where ThreadSanitizer cannot run at all on this kernel.
set -u
src=$1
dir=$2
log=$dir.log
fail() { echo "FAIL: $*"; exit 1; }
cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="-fsanitize=thread -g" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >"$log" 2>&1 || fail "configure: $(tail -5 "$log")"
cmake --build "$dir" --target tiledblas_lib sgemm_check test_pool >>"$log" 2>&1 \
    || fail "build: $(grep -A5 FAILED "$log" | head -20)"
# die_after_fork=0: with a GPU the parent has CUDA's threads and our copy
# threads when it forks, and OpenBLAS starts its threads again in the child;
# ThreadSanitizer would kill that child (it cannot follow threads started
# after a multi-threaded fork), though the program is right to do it.
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 die_after_fork=0 suppressions=$src/tests/tsan.supp"
out=$dir/out
"$dir/tests/test_pool" >"$out" 2>&1
rc=$?
if grep -q "FATAL: ThreadSanitizer" "$out"; then
    echo "SKIP: ThreadSanitizer cannot run here: $(grep -m1 FATAL "$out")"
    exit 77
fi
grep -q "WARNING: ThreadSanitizer" "$out" && fail "test_pool: $(grep -A20 -m1 'WARNING: ThreadSanitizer' "$out")"
[ $rc = 0 ] || fail "test_pool exit $rc: $(tail -3 "$out")"
runs=1
for args in "--calls 320 --threads 16" "--calls 640 --threads 64 --rownn --max-dim 40" \
            "--calls 60 --threads 4 --fork" "--calls 320 --threads 8 --api mixed" \
            "--calls 320 --threads 16 --api mixed --double"; do
    for env in "TILEDBLAS_VERBOSE=0" "TILEDBLAS_STATS=1 TILEDBLAS_TRACE=$dir/trace.jsonl TILEDBLAS_VERBOSE=2" \
               "TILEDBLAS_MODE=verify TILEDBLAS_STATS=1"; do
        rm -f "$dir/trace.jsonl"
        # shellcheck disable=SC2086
        env $env LD_PRELOAD="$dir/libtiledblas.so" "$dir/tests/sgemm_check" $args >"$out" 2>&1
        rc=$?
        grep -q "WARNING: ThreadSanitizer" "$out" \
            && fail "sgemm_check $args ($env): $(grep -A24 -m1 'WARNING: ThreadSanitizer' "$out")"
        [ $rc = 0 ] || fail "sgemm_check $args ($env) exit $rc: $(grep -E "^call [0-9]+:|forked child|ThreadSanitizer|tiledblas:" "$out" | head -12; tail -3 "$out")"
        runs=$((runs + 1))
    done
done
echo "PASS: ThreadSanitizer: no reports over $runs runs (the pool's test; sgemm_check from 4 to 64 threads, fork, both interfaces, statistics, trace, verify; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset})"
