#!/bin/sh
# tests/tool_fuzz.sh SOURCE_DIR WORK_DIR CC LIBTILEDBLAS CUDART_STATIC CUDA_INCLUDES
# - the `tiledblas` command's option parsing under AddressSanitizer and
# UndefinedBehaviorSanitizer: the tool's sources (tool, tool/animate,
# src/core/files.c) are compiled again with both into WORK_DIR, linked to the
# library as built, then fed long (100 KB) and repeated (up to 1000)
# options and 300 fixed-seed random mixes for every subcommand. Any
# sanitizer report, crash, or status other than 0, 1, 2 or 127 (a command
# that cannot start: `run x` runs x) fails. Exit 77
# (a skip, said plainly) where the compiler cannot build or run with ASan.
set -u
src=$1 dir=$2 cc=$3 lib=$4 cudart=$5 cudainc=$6
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
printf 'int main(void){return 0;}\n' >"$dir/probe.c"
if ! "$cc" $san "$dir/probe.c" -o "$dir/probe" >"$dir/probe.log" 2>&1 || ! "$dir/probe" >>"$dir/probe.log" 2>&1; then
    echo "SKIP: AddressSanitizer is not available here: $(tail -2 "$dir/probe.log")"
    exit 77
fi
inc=""
# CMake hands over its list of include directories joined by ';'.
for d in $(printf '%s' "$cudainc" | tr ';' ' '); do inc="$inc -I$d"; done
# shellcheck disable=SC2086
"$cc" $san -std=gnu11 -DTB_HAVE_ANIMATE=1 -DTB_INSTALL_LIBDIR='"lib"' \
    -I"$src/tool" -I"$src/tool/animate" -I"$src/src/core" -I"$src/src/gpu" -I"$src/include" $inc \
    "$src"/tool/*.c "$src"/tool/animate/*.c "$src/src/core/files.c" \
    "$lib" -Wl,-rpath,"$(dirname "$lib")" "$cudart" -ldl -lpthread -lrt -lm \
    -o "$dir/tiledblas" >"$dir/build.log" 2>&1 || fail "build: $(grep -m5 -i error "$dir/build.log")"
tool=$dir/tiledblas
export ASAN_OPTIONS="detect_leaks=0 abort_on_error=0 exitcode=99"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 exitcode=99"
for v in $(env | sed -n 's/^\(TILEDBLAS_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export TILEDBLAS_CALIBRATE=off TILEDBLAS_CACHE_DIR="$dir/cache"
cd "$dir" || exit 1
n=0
# One command line: must end with status 0, 1, 2 or 127 and no sanitizer report.
try() {
    n=$((n + 1))
    timeout 60 "$tool" "$@" >"$dir/out" 2>"$dir/err" </dev/null
    rc=$?
    if grep -q -E "ERROR: AddressSanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer" "$dir/err"; then
        fail "tiledblas $(echo "$*" | cut -c1-300): $(grep -A12 -m1 -E 'ERROR: AddressSanitizer|runtime error:' "$dir/err")"
    fi
    case $rc in 0|1|2|127) ;; *) fail "tiledblas $(echo "$*" | cut -c1-300): status $rc: $(tail -3 "$dir/err")";; esac
}
big=$(head -c 100000 /dev/zero | tr '\0' x)
rep() { k=$1; shift; i=0; while [ $i -lt "$k" ]; do printf '%s\n' "$@"; i=$((i + 1)); done; }
# Repeated options (word lists with no spaces inside words).
# shellcheck disable=SC2046
try run $(rep 40 --stats) -- /bin/true
# shellcheck disable=SC2046
try run $(rep 200 --mode cpu --stats --trace "$dir/t.jsonl" --verbose 1 --verify-every 2) -- /bin/true
# shellcheck disable=SC2046
try run $(rep 1000 --stats=x.json) -- /bin/true
# shellcheck disable=SC2046
try ab $(rep 500 --runs 1 --log "$dir/ab.log" --plot p.png) --runs 0 -- /bin/true
# shellcheck disable=SC2046
try bench $(rep 500 --reps 1 --csv c.csv --plot p.svg --check-all --sizes 8) --reps 0
# Long values everywhere.
for opt in --mode --trace --verbose --verify-every --stats="$big" "$big"; do try run "$opt" "$big" -- /bin/true; done
try run --trace "$big"x -- /bin/true
try ab --runs "$big" -- /bin/true
try ab --log "$big" -- /bin/true
try ab --plot "$big.png" --runs 0 -- /bin/true
try ab "$big"
for opt in --sizes --shapes --reps --csv --plot "$big"; do try bench "$opt" "$big"; done
try bench --sizes "$(rep 10000 8 | tr '\n' ',')"8
try bench --shapes "$(rep 2000 8x8x8 | tr '\n' ',')"8x8x8
try bench --plot "$big.png" --reps 0
try "$big"
try info "$big"
try calibrate "$big"
# Fixed-seed random mixes of the options each subcommand knows, values
# short or long, ending so that nothing long runs: run starts /bin/true, the
# others stop at a bad value at the end.
awk -v seed=7 'BEGIN {
    srand(seed)
    split("--mode|--stats|--stats=s.txt|--trace|--verbose|--verify-every|--runs|--log|--plot|--sizes|--shapes|--reps|--csv|--check-all|--help-not|-|--|x", o, "|")
    split("auto|gpu|cpu|verify|0|1|2|-1|99999999999999999999|64|1,2,3|8x8x8|p.png|p.svg|p.pdf|t.jsonl|%p|,,,|x", v, "|")
    split("run|ab|bench|info|calibrate", s, "|")
    for (line = 0; line < 300; line++) {
        sub_ = s[int(rand() * 5) + 1]; out = sub_
        words = int(rand() * 30)
        for (w = 0; w < words; w++) {
            out = out " " o[int(rand() * 18) + 1]
            if (rand() < 0.6) out = out " " v[int(rand() * 19) + 1]
        }
        if (sub_ == "run") out = out " -- /bin/true"
        else if (sub_ == "ab") out = out " --runs 0 -- /bin/true"
        else if (sub_ == "bench") out = out " --reps 0"
        else out = out " --bogus"
        print out
    }
}' >"$dir/mixes"
while read -r line; do
    # shellcheck disable=SC2086
    set -f; try $line; set +f
done <"$dir/mixes"
echo "PASS: $n command lines (repeated up to 1000 times, 100 KB values, 300 random mixes) under ASan and UBSan: no report, every status 0, 1, 2 or 127"
