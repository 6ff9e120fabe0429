#!/bin/sh
# tests/octave_check.sh - ctest client.octave: Octave's single-precision
# products (tests/octave_check.m) run plain, then under the preload in auto
# and forced-GPU modes. Each preloaded run must be right, give one sgemm_
# decision line per product at least, and match the plain run: identical
# without a GPU (every call is forwarded to the same BLAS), within the fp32
# bound with one. Forced GPU mode without a GPU warns exactly once. Exit 0
# pass, 1 fail, 77 skip (no octave-cli). Needs TB_LIB and TB_BIN, as
# preload.sh does, whose conventions this follows.
set -u
lib=${TB_LIB:?}
bin=${TB_BIN:?}
script=$(cd "$(dirname "$0")" && pwd)/octave_check.m
. "$(dirname "$0")/lib.sh"
count() { grep -cE "$1" "$2" || true; }
oct() { octave-cli --norc --quiet "$script" "$@"; }
# Octave 7.3 ends every run with "error: ignoring const execution_exception&
# while preparing to exit" on stderr (upstream bug #62515, exit status 0);
# messages leave it out, and the decision lines.
tail3() { grep -v -e 'while preparing to exit' -e ' -> ' "$1" | tail -3; }

command -v octave-cli >/dev/null || skip "octave-cli not installed (Debian package octave)"
cd "$tmp" || exit 1
oct --save "$tmp/plain.bin" >"$tmp/plain.out" 2>"$tmp/plain.err" \
    || fail "wrong without the preload: $(tail3 "$tmp/plain.out") $(tail3 "$tmp/plain.err")"
want=$(sed -n 's/^products: //p' "$tmp/plain.out")
total=$(sed -n 's/^PASS: \([0-9]*\) .*/\1/p' "$tmp/plain.out")
[ "${want:-0}" -gt 0 ] || fail "the script reported no products: $(cat "$tmp/plain.out")"
line='^tiledblas: sgemm_ ColMajor [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) \([a-z:-]+\)'
said=""
for mode in auto gpu; do
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" oct --against "$tmp/plain.bin" \
        >"$tmp/out" 2>"$tmp/err" || fail "mode $mode: $(tail3 "$tmp/out") $(tail3 "$tmp/err")"
    n=$(count "$line" "$tmp/err")
    [ "$n" -ge "$want" ] || fail "mode $mode: $n sgemm_ decision lines for $want products: $(grep -v 'preparing to exit' "$tmp/err" | head -3)"
    warnings=$(grep '^tiledblas: ' "$tmp/err" | grep -vc ' -> ' || true)
    gpu=$(count ' -> gpu ' "$tmp/err")
    same=$(sed -n 's/^identical to .*: \([0-9]*\) of [0-9]*$/\1/p' "$tmp/out")
    if have_gpu; then
        [ "$warnings" = 0 ] || fail "mode $mode: warnings on a GPU machine: $(grep -v ' -> ' "$tmp/err" | head -3)"
        [ "$mode" = auto ] || [ "$gpu" -ge "$want" ] || fail "forced GPU: only $gpu of $want products on the GPU"
    else
        [ "$same" = "$total" ] || fail "mode $mode: ${same:-no} of $total results identical to the plain run"
        [ "$gpu" = 0 ] || fail "mode $mode: gpu route claimed without a GPU"
        expect=0; [ "$mode" = gpu ] && expect=1
        [ "$warnings" = $expect ] || fail "mode $mode: $warnings warnings, not $expect: $(grep -v ' -> ' "$tmp/err")"
    fi
    said="$said $mode $n lines ($gpu gpu, $warnings warning),"
done
pass "octave: $total single products right, $want through sgemm_;$said matching the plain run"
