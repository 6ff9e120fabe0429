#!/bin/sh
# tests/torch_check.sh - ctest client.torch: Debian's PyTorch (python3-torch,
# linked to the system BLAS, whose sgemm_ and dgemm_ it calls) running
# tests/torch_check.py: torch.mm, nn.Linear forward and backward, torch.bmm
# and a product above the threshold, in float32 and float64.
#   1. Plain, then under tests/blas_count.c (a witness that counts each GEMM
#      call and forwards it): same output, and every operation makes at
#      least one sgemm_ (float32) or dgemm_ (float64) call.
#   2. Under LD_PRELOAD of the library in modes cpu and auto (and gpu, with
#      a GPU): every operation's float32 calls give exactly as many sgemm
#      decision lines as the witness counted, no other line on stderr, every
#      result within the bound of an extended-precision reference, and, for
#      runs whose calls all stayed on the CPU, results identical bit for bit
#      to the plain run; in forced-GPU mode every float32 call on the GPU.
#      float64 calls are held to the same count when the library exports
#      dgemm_ (what torch calls); until then none may be claimed.
# Exit 0 pass, 1 fail, 77 skip (no python3-torch, or a torch that does not
# call the system BLAS, which no preload can reach). Needs TB_LIB, TB_BIN
# and TB_COUNT (the witness library); TB_PYTHON overrides /usr/bin/python3.
set -u
lib=${TB_LIB:?}
bin=${TB_BIN:?}
witness=${TB_COUNT:?}
py=${TB_PYTHON:-/usr/bin/python3}
script=$(cd "$(dirname "$0")" && pwd)/torch_check.py
. "$(dirname "$0")/lib.sh"

[ -x "$py" ] || skip "$py not found (Debian package python3-torch)"
"$py" -c 'import torch' >"$tmp/import.err" 2>&1 ||
    skip "python3-torch not importable by $py (Debian package python3-torch): $(tail -1 "$tmp/import.err")"

# tally FILE REGEX DTYPE: "<op> <count>" for each operation of that dtype,
# counting the lines of FILE matching REGEX between its 'op' line and the next.
tally() {
    awk -v re="$2" -v dt="$3" '
        /^op / { if (op != "" && cur == dt) print op, n; op = $2; cur = $3; n = 0; next }
        $0 ~ re { n++ }' "$1"
}
witness_s='^blas_count: (sgemm_|cblas_sgemm)$'
witness_d='^blas_count: (dgemm_|cblas_dgemm)$'
lines_s='^tiledblas: sgemm_? (RowMajor|ColMajor) [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) '
lines_d='^tiledblas: dgemm_? (RowMajor|ColMajor) [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) '

# 1. Plain, and under the witness.
"$py" "$script" >"$tmp/plain.out" 2>"$tmp/plain.err" ||
    fail "torch_check.py fails without any preload: $(tail -3 "$tmp/plain.out") $(tail -3 "$tmp/plain.err")"
version=$(sed -n 's/^torch //p' "$tmp/plain.out")
LD_PRELOAD="$witness" "$py" "$script" >"$tmp/count.out" 2>"$tmp/count.err" ||
    fail "torch_check.py fails under the witness: $(tail -3 "$tmp/count.err")"
cmp -s "$tmp/plain.out" "$tmp/count.out" || fail "the witness changed the results: $(diff "$tmp/plain.out" "$tmp/count.out" | head -4)"
tally "$tmp/count.err" "$witness_s" float32 >"$tmp/want32"
tally "$tmp/count.err" "$witness_d" float64 >"$tmp/want64"
calls32=$(awk '{s += $2} END {print s + 0}' "$tmp/want32")
calls64=$(awk '{s += $2} END {print s + 0}' "$tmp/want64")
[ "$calls32" -gt 0 ] ||
    skip "torch $version calls no sgemm_ or cblas_sgemm of a loaded BLAS (not Debian's torch, linked to the system BLAS?): nothing a preload can reach"
none=$(cat "$tmp/want32" "$tmp/want64" | awk '$2 == 0 {print $1}' | sort -u | tr '\n' ' ')
[ -z "$none" ] || fail "operations that made no GEMM call: $none (float32: $(tr '\n' ' ' <"$tmp/want32"); float64: $(tr '\n' ' ' <"$tmp/want64"))"

if nm -D --defined-only "$lib" | awk '{print $3}' | grep -qx dgemm_; then
    double=1
else
    double=0
    awk '{print $1, 0}' "$tmp/want64" >"$tmp/want64.none"
fi

# 2. Under the preload, mode by mode.
modes="cpu auto"
have_gpu && modes="$modes gpu"
said=""
for mode in $modes; do
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$py" "$script" >"$tmp/$mode.out" 2>"$tmp/$mode.err" ||
        fail "mode $mode: $(grep '^FAIL' "$tmp/$mode.out" | head -3) $(grep -v -e '^op ' -e ' -> ' "$tmp/$mode.err" | tail -3)"
    tally "$tmp/$mode.err" "$lines_s" float32 >"$tmp/got32"
    cmp -s "$tmp/want32" "$tmp/got32" ||
        fail "mode $mode: float32 decision lines per operation $(tr '\n' ' ' <"$tmp/got32")for sgemm calls $(tr '\n' ' ' <"$tmp/want32")"
    tally "$tmp/$mode.err" "$lines_d" float64 >"$tmp/got64"
    if [ $double = 1 ]; then
        cmp -s "$tmp/want64" "$tmp/got64" ||
            fail "mode $mode: float64 decision lines per operation $(tr '\n' ' ' <"$tmp/got64")for dgemm calls $(tr '\n' ' ' <"$tmp/want64")"
    else
        cmp -s "$tmp/want64.none" "$tmp/got64" ||
            fail "mode $mode: the library exports no dgemm_, yet float64 decision lines: $(tr '\n' ' ' <"$tmp/got64")"
    fi
    other=$(grep -vE -e '^op ' -e "$lines_s" -e "$lines_d" "$tmp/$mode.err" | head -3)
    [ -z "$other" ] || fail "mode $mode: lines besides the decision lines: $other"
    gpu=$(grep -c ' -> gpu ' "$tmp/$mode.err" || true)
    if [ "$gpu" = 0 ]; then
        cmp -s "$tmp/plain.out" "$tmp/$mode.out" ||
            fail "mode $mode, every call on the CPU: results differ from the plain run: $(diff "$tmp/plain.out" "$tmp/$mode.out" | head -4)"
        same="identical to the plain run"
    else
        [ "$mode" != cpu ] || fail "mode cpu: $gpu calls claim the GPU"
        same="$gpu calls on the GPU, within the bound"
    fi
    if [ "$mode" = gpu ]; then
        gpu32=$(grep -E "$lines_s" "$tmp/$mode.err" | grep -c ' -> gpu ' || true)
        [ "$gpu32" = "$calls32" ] || fail "forced GPU: $gpu32 of $calls32 sgemm_ calls on the GPU"
    fi
    said="$said $mode: $same;"
done
if [ $double = 1 ]; then
    what="$calls32 sgemm_ and $calls64 dgemm_ calls, each intercepted once"
else
    what="$calls32 sgemm_ calls, each intercepted once ($calls64 dgemm_ calls not: the library exports no dgemm_)"
fi
pass "torch $version: mm, nn.Linear forward and backward, bmm, float32 and float64: $what;$said"
