#!/bin/sh
# tests/lbt_check.sh - client.julia-lbt: libtiledblas behind
# libblastrampoline (LBT), the library Julia calls BLAS through, driven as
# Julia drives it (tests/lbt_check.c): an ILP64 BLAS forwarded, then
# libtiledblas with clear=0. LBT takes our "64_" names at ILP64; every
# level-3 call made by LBT's names is right and seen by us once (one
# decision line, in its own name), with LBT opened local or global, in
# auto and forced-GPU modes; silent at default settings; the names LBT
# probes us with answer right; LAPACK stays on the BLAS. The checker itself
# first passes on the BLAS alone. Needs TB_LIB, TB_BIN, TB_ILP64_BLAS
# (Debian's libopenblas64) and TB_LBT_LIB (a libblastrampoline.so, built
# from its source: CI has none, and skips). Exit 0 pass, 1 fail, 77 skip.
set -u
lib=${TB_LIB:?}
bin=${TB_BIN:?}
. "$(dirname "$0")/lib.sh"
lbt=${TB_LBT_LIB:-}
blas=${TB_ILP64_BLAS:-}
[ -n "$lbt" ] && [ -f "$lbt" ] || skip "no libblastrampoline: TB_LBT_LIB (at configure or test time) names none"
[ -n "$blas" ] && [ -f "$blas" ] || skip "no ILP64 BLAS (Debian's libopenblas64-pthread-dev) found at configure time"
"$bin/lbt_check" "$lbt" "$blas" - >"$tmp/out" 2>"$tmp/err" ||
    fail "the checker on the BLAS alone: $(grep -E 'FAIL|lbt_check' "$tmp/out" | head -3) $(head -2 "$tmp/err")"
calls=$(grep -c '^call ' "$tmp/out")
[ "$calls" -gt 0 ] || fail "no calls made: $(tail -2 "$tmp/out")"
# The calls' decision-line names: cblas_dgemm64_ is dgemm64_.
sed -n 's/^call \(cblas_\)\{0,1\}//p' "$tmp/out" | sort >"$tmp/want"
for scope in local global; do
    for mode in auto gpu; do
        rc=0
        TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 "$bin/lbt_check" "$lbt" "$blas" "$lib" $scope \
            >"$tmp/out" 2>"$tmp/err" || rc=$?
        [ $rc = 0 ] || fail "LBT $scope, mode $mode (exit $rc): $(cat "$tmp/out" "$tmp/err" |
            grep -E 'FAIL|lbt_check|Unable|Error' | head -3 | tr '\n' ' ')"
        grep -q '^ -> Autodetected symbol suffix "64_"$' "$tmp/out" &&
            grep -q '^ -> Autodetected interface ILP64 (64-bit)$' "$tmp/out" ||
            fail "LBT $scope: not taken as 64_ at ILP64: $(grep -- '->' "$tmp/out" | head -3)"
        sed -n 's/^tiledblas: \([a-z0-9_]*\) ColMajor [LRUNTC]\{2,4\} m=[0-9]* n=[0-9]* k=[0-9]* -> .*/\1/p' \
            "$tmp/err" | sort >"$tmp/got"
        cmp -s "$tmp/want" "$tmp/got" ||
            fail "LBT $scope, mode $mode: decision lines are not one a call: $(diff "$tmp/want" "$tmp/got" | head -4 | tr '\n' ' ')"
        others=$(grep -v ' -> ' "$tmp/err" || true)
        [ -z "$others" ] || { [ $mode = gpu ] && [ "$(echo "$others" | wc -l)" = 1 ]; } ||
            fail "LBT $scope, mode $mode printed: $(echo "$others" | head -3)"
    done
done
"$bin/lbt_check" "$lbt" "$blas" "$lib" >"$tmp/out" 2>"$tmp/err" || fail "default settings: $(grep FAIL "$tmp/out" | head -2)"
[ ! -s "$tmp/err" ] || fail "printed at default settings: $(head -3 "$tmp/err")"
pass "$(sed -n 's/^lbt_check: //p' "$tmp/out") through LBT's ILP64 names, each seen once, LBT local and global, auto and forced-GPU modes"
