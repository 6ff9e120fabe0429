#!/bin/sh
# tests/octave_check.sh - ctest client.octave: Octave's single- and
# double-precision products (tests/octave_check.m) run plain, then under the
# preload in auto and forced-GPU modes. Each preloaded run must be right,
# give one sgemm_ decision line per single product and one dgemm_ line per
# double product at least, and match the plain run: identical without a GPU
# (every call is forwarded to the same BLAS), within the bounds with one.
# Forced GPU mode without a GPU warns exactly once. A'*A is caught as
# dsyrk_, complex products as zgemm_ and cgemm_, each right. Exit 0 pass,
# 1 fail, 77 skip (no octave-cli). Needs TB_LIB and TB_BIN, as preload.sh does, whose
# conventions this follows.
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
total=$(sed -n 's/^PASS: \([0-9]*\) .*/\1/p' "$tmp/plain.out")
# The products of one precision ($1) that reach BLAS, and the decision lines
# of one routine ($1) in a file ($2).
products() { sed -n "s/^products $1: //p" "$tmp/plain.out"; }
lines() { count "^tiledblas: $1 ColMajor [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) \\([a-z:-]+\\)" "$2"; }
for prec in single double; do
    [ "$(products $prec)" -gt 0 ] 2>/dev/null || fail "the script reported no $prec products: $(cat "$tmp/plain.out")"
done
want=$(( $(products single) + $(products double) ))
said=""
for mode in auto gpu; do
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" oct --against "$tmp/plain.bin" \
        >"$tmp/out" 2>"$tmp/err" || fail "mode $mode: $(tail3 "$tmp/out") $(tail3 "$tmp/err")"
    for r in single:sgemm_ double:dgemm_; do
        prec=${r%:*} routine=${r#*:}
        got=$(lines $routine "$tmp/err") made=$(products $prec)
        [ "$got" -ge "$made" ] || fail "mode $mode: $got $routine decision lines for $made $prec products: $(grep -v 'preparing to exit' "$tmp/err" | head -3)"
    done
    n=$(count ' -> ' "$tmp/err")
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
# A'*A, which Octave hands to dsyrk_: intercepted (one dsyrk_ line) and
# right against an element-wise reference.
TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" octave-cli --no-gui --quiet --eval \
    "randn('state', 3); A = randn(300, 200); B = A' * A; R = zeros(200);
     for p = 1:300, R += A(p, :)' .* A(p, :); end
     printf('syrk error %g\n', max(abs(B(:) - R(:))) / max(abs(R(:))));" >"$tmp/syrk.out" 2>"$tmp/syrk.err"
err=$(sed -n 's/^syrk error //p' "$tmp/syrk.out")
awk -v e="${err:-1}" 'BEGIN { exit !(e < 1e-13) }' || fail "A'*A wrong under the preload: $(cat "$tmp/syrk.out")"
[ "$(count '^tiledblas: dsyrk_ ColMajor ' "$tmp/syrk.err")" -ge 1 ] || fail "A'*A not intercepted as dsyrk_: $(tail3 "$tmp/syrk.err")"
# Complex products, which Octave hands to zgemm_ and (single) cgemm_:
# intercepted (one line each) and right against element-wise sums in double.
TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" octave-cli --no-gui --quiet --eval \
    "randn('state', 5); A = randn(300, 200) + 1i * randn(300, 200); B = randn(200, 150) + 1i * randn(200, 150);
     R = zeros(300, 150); for p = 1:200, R += A(:, p) .* B(p, :); end
     C = A * B; printf('zgemm error %g\n', max(abs(C(:) - R(:))) / max(abs(R(:))));
     As = single(A); Bs = single(B); Rs = zeros(300, 150);
     for p = 1:200, Rs += double(As(:, p)) .* double(Bs(p, :)); end
     Cs = As * Bs; printf('cgemm error %g\n', max(abs(double(Cs(:)) - Rs(:))) / max(abs(Rs(:))));" \
    >"$tmp/cx.out" 2>"$tmp/cx.err"
for r in zgemm:1e-13 cgemm:1e-5; do
    e=$(sed -n "s/^${r%:*} error //p" "$tmp/cx.out")
    awk -v e="${e:-1}" -v b="${r#*:}" 'BEGIN { exit !(e < b) }' || fail "complex product (${r%:*}_) wrong under the preload: $(cat "$tmp/cx.out")"
    [ "$(count "^tiledblas: ${r%:*}_ ColMajor NN m=300 n=150 k=200 " "$tmp/cx.err")" = 1 ] ||
        fail "the complex product not intercepted once as ${r%:*}_: $(tail3 "$tmp/cx.err")"
done
pass "octave: $total products right, A'*A caught as dsyrk_ and right, complex products as zgemm_ and cgemm_ and right, $(products single) single through sgemm_ and $(products double) double through dgemm_;$said matching the plain run"
