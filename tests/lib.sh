# tests/lib.sh - sourced by the shell tests that run programs under the
# preload (preload.sh, octave_check.sh). Set lib (libtiledblas.so) and bin
# (the test programs) first. Gives a scratch directory $tmp removed on exit,
# default settings whatever the caller's shell has (the built-in rates, so
# that decisions do not depend on the last calibration; measured rates would
# go to $tmp/cache, never the user's cache), and the verdict helpers.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in $(env | sed -n 's/^\(TILEDBLAS_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export TILEDBLAS_CALIBRATE=off TILEDBLAS_CACHE_DIR="$tmp/cache"

fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; exit 0; }
skip() { echo "SKIP: $*"; exit 77; }
have_gpu() { "$bin/gpu_probe" >/dev/null 2>&1; }
pre() { LD_PRELOAD="$lib" "$@"; }
