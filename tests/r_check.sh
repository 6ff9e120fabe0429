#!/bin/sh
# tests/r_check.sh - ctest client.r: R's crossprod and tcrossprod (which R
# hands to dsyrk_), a product (dgemm_) and a complex product (zgemm_), in
# tests/r_check.R, under the preload in auto and forced-GPU modes: each
# right (relative error under 1e-13 against element-wise sums), each caught
# once in its own name with its true sizes; on a GPU forced-GPU mode runs
# all four there, without one it warns once. Silent by default. Exit 0
# pass, 1 fail, 77 skip (no Rscript). Needs TB_LIB and TB_BIN, as
# preload.sh does, whose conventions this follows.
set -u
lib=${TB_LIB:?}
bin=${TB_BIN:?}
script=$(cd "$(dirname "$0")" && pwd)/r_check.R
. "$(dirname "$0")/lib.sh"
command -v Rscript >/dev/null || skip "Rscript not installed (Debian package r-base-core)"
cd "$tmp" || exit 1
Rscript "$script" >"$tmp/plain.out" 2>&1 || fail "wrong without the preload: $(tail -3 "$tmp/plain.out")"
LD_PRELOAD="$lib" Rscript "$script" >"$tmp/quiet.out" 2>"$tmp/quiet.err" || fail "fails under the preload: $(tail -3 "$tmp/quiet.err")"
[ ! -s "$tmp/quiet.err" ] || fail "not silent by default: $(head -3 "$tmp/quiet.err")"
# the four calls' decision lines, as "routine ops m n k"
set -- "dsyrk_ UT m=200 n=200 k=300" "dsyrk_ UN m=300 n=300 k=200" "dgemm_ NN m=300 n=250 k=200" \
       "zgemm_ NN m=300 n=150 k=200"
said=""
for mode in auto gpu; do
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" Rscript "$script" >"$tmp/out" 2>"$tmp/err" ||
        fail "mode $mode: $(tail -3 "$tmp/out") $(grep -v ' -> ' "$tmp/err" | tail -3)"
    for what in crossprod tcrossprod dgemm zgemm; do
        e=$(sed -n "s/^$what //p" "$tmp/out")
        awk -v e="${e:-1}" 'BEGIN { exit !(e < 1e-13) }' || fail "mode $mode: $what wrong: ${e:-no result}"
    done
    for call in "$@"; do
        r=${call%% *} rest=${call#* }
        line="^tiledblas: $r ColMajor ${rest%% *} ${rest#* } -> "
        [ "$(grep -c "$line" "$tmp/err")" = 1 ] || fail "mode $mode: not one line '$line': $(grep "^tiledblas: $r " "$tmp/err" | grep -v ' k=1 ' | head -3)"
        if [ "$mode" = gpu ]; then
            if have_gpu; then want="${line}gpu (forced)"; else want="${line}cpu (no-gpu)"; fi
            grep -q "$want" "$tmp/err" || fail "forced GPU: $(grep "$line" "$tmp/err")"
        fi
    done
    warnings=$(grep '^tiledblas: ' "$tmp/err" | grep -vc ' -> ' || true)
    expect=0; [ "$mode" = gpu ] && ! have_gpu && expect=1
    [ "$warnings" = $expect ] || fail "mode $mode: $warnings warnings, not $expect: $(grep -v ' -> ' "$tmp/err" | head -3)"
    said="$said $mode: $(grep -c ' -> gpu ' "$tmp/err") calls on the GPU;"
done
pass "R: crossprod and tcrossprod caught as dsyrk_, %*% as dgemm_ and zgemm_, right in auto and forced-GPU modes;$said silent by default"
