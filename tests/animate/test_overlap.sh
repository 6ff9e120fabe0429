#!/bin/sh
# tests/animate/test_overlap.sh DRIVER OUTDIR - nothing the animation draws
# covers a text, and no two texts meet (overlap_check.py, at the start and
# at the still frame of each step):
#   1. the checker itself: a box drawn over a text, and two texts on one
#      spot, are found (exit 1); a text drawn on a box is not (exit 0);
#   2. the page of `animate --m 40 --n 50 --k 70 --html`, steps 3 and 9
#      (the barriers, whose callout once covered the As label, the
#      thread's label and the caption line), every kernel on it;
#   3. stand-alone SVGs, every step: seven sizes from 1x1x1 to 8192^3
#      (ragged edges along each axis, one thin axis) with each of the four
#      kernels, a thread at a block's far corner, and three traced calls
#      (GPU, column-major, CPU).
# Exit 0 pass, 1 fail, 77 skip (no python3, or no DejaVu Sans).
set -u
drv=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not installed"
    exit 77
fi
# Without the font's own metrics the checker only estimates widths, too
# coarsely to judge a layout drawn for DejaVu Sans (the test tools install
# fonts-dejavu-core).
font=
for d in /usr/share/fonts/truetype/dejavu /usr/share/fonts/dejavu /usr/share/fonts/TTF; do
    [ -f "$d/DejaVuSans.ttf" ] && font=$d/DejaVuSans.ttf
done
if [ -z "$font" ]; then
    echo "SKIP: DejaVu Sans (fonts-dejavu-core) not installed: text widths unknown"
    exit 77
fi
mkdir -p "$out"
fail=0
check() {   # check WANT_RC FILE [STEP ...]
    want=$1
    shift
    python3 "$here/overlap_check.py" "$@" >"$out/check.txt" 2>&1
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: overlap_check.py $* exited $rc, want $want:"
        head -20 "$out/check.txt"
        fail=1
    else
        grep -v '^FAIL' "$out/check.txt"
    fi
}

# 1. The checker on three hand-made frames of one step.
frame() {   # frame FILE BODY
    cat >"$1" <<EOF
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 200" font-family="DejaVu Sans">
<text x="10" y="20" font-size="12" visibility="hidden"><set attributeName="visibility" to="visible" begin="0.000s" dur="2.000s"/>step 1 of 1: test</text>
$2
</svg>
EOF
}
frame "$out/covered.svg" '<text x="50" y="100" font-size="13">As</text><rect x="40" y="90" width="200" height="10" fill="#0b3d91"/>'
frame "$out/texts.svg" '<text x="50" y="100" font-size="13">thread (3,1)</text><text x="60" y="102" font-size="12">__syncthreads()</text>'
frame "$out/on-box.svg" '<rect x="40" y="80" width="200" height="40" fill="#dbe7fa"/><text x="50" y="100" font-size="13">As</text>'
check 1 "$out/covered.svg"
check 1 "$out/texts.svg"
check 0 "$out/on-box.svg"

# 2. The page, steps 3 and 9.
"$drv" --m 40 --n 50 --k 70 --html "$out/page.html" || { echo "FAIL: animate --html"; exit 1; }
check 0 "$out/page.html" 3 9

# 3. Stand-alone SVGs, every step.
for size in 1x1x1 16x16x16 17x33x40 40x50x70 100x7x300 200x31x5 8192x8192x8192; do
    m=${size%%x*}; rest=${size#*x}; n=${rest%%x*}; k=${rest#*x}
    for kernel in tiled16 regblock warptile tf32x3; do
        "$drv" --m "$m" --n "$n" --k "$k" --kernel "$kernel" --svg "$out/$kernel-$size.svg" ||
            { echo "FAIL: animate $size $kernel"; fail=1; continue; }
        check 0 "$out/$kernel-$size.svg"
    done
done
"$drv" --m 40 --n 40 --k 40 --block 0,1 --thread 15,15 --svg "$out/edge-thread.svg" &&
    check 0 "$out/edge-thread.svg"
sed -n '/^cat >"\$out\/trace.jsonl"/,/^TRACE$/p' "$here/test_svg_xml.sh" | sed '1d;$d' >"$out/trace.jsonl"
[ "$(wc -l <"$out/trace.jsonl")" = 3 ] || { echo "FAIL: no three trace lines from test_svg_xml.sh"; fail=1; }
for call in 1 2 3; do
    "$drv" --trace "$out/trace.jsonl" --call "$call" --svg "$out/trace-$call.svg" && check 0 "$out/trace-$call.svg"
done

[ "$fail" -eq 0 ] && echo "PASS: no drawn shape covers a text, no two texts meet"
exit "$fail"
