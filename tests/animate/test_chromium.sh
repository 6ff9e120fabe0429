#!/bin/sh
# tests/animate/test_chromium.sh DRIVER OUTDIR - the page really steps:
# headless Chromium opens it at #step=1 and #phase=2, its script must land on
# the right step, the screenshots must differ and not be blank, and the
# stand-alone SVG must play by itself. Skips (77) without Chromium.
set -u
drv=$1
out=$2
browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    echo "SKIP: chromium not installed"
    exit 77
fi
mkdir -p "$out"
page="$out/page.html"
"$drv" --m 40 --n 40 --k 40 --html "$page" || { echo "FAIL: animate --html"; exit 1; }
url="file://$(cd "$out" && pwd)/page.html"

chrome() {   # chrome ARGS... (own profile, no GPU, bounded time)
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$out/profile" --window-size=1200,900 --virtual-time-budget=3000 "$@" \
        2>>"$out/chromium.log"
}

fail=0
# 40x40x40 on 16x16 tiles: step 1 grid, then 4 steps per phase; phase 2's
# compute step is step 12.
chrome --dump-dom "$url#phase=2" >"$out/phase2.dom"
grep -q 'data-step="12"' "$out/phase2.dom" || { echo "FAIL: #phase=2 did not land on step 12"; fail=1; }
chrome --dump-dom "$url#step=5&kernel=warptile" >"$out/k.dom"
grep -q 'data-step="5"' "$out/k.dom" || { echo "FAIL: #step=5&kernel=... ignored"; fail=1; }

chrome --screenshot="$out/step1.png" "$url#step=1" >/dev/null
chrome --screenshot="$out/phase2.png" "$url#phase=2" >/dev/null
for f in step1 phase2; do
    if [ ! -s "$out/$f.png" ]; then
        echo "FAIL: no screenshot $f.png (see $out/chromium.log)"
        exit 1
    fi
    size=$(wc -c <"$out/$f.png")
    if [ "$size" -lt 20000 ]; then
        echo "FAIL: $f.png is only $size bytes: a blank page?"
        fail=1
    fi
    if command -v identify >/dev/null 2>&1; then
        colours=$(identify -format %k "$out/$f.png")
        if [ "$colours" -lt 40 ]; then
            echo "FAIL: $f.png has only $colours colours"
            fail=1
        fi
        echo "$f.png: $size bytes, $colours colours"
    else
        echo "$f.png: $size bytes (ImageMagick not installed: colour count not checked)"
    fi
done
if cmp -s "$out/step1.png" "$out/phase2.png"; then
    echo "FAIL: step 1 and phase 2 look the same: the page does not step"
    fail=1
fi
# The stand-alone SVG plays by itself (SMIL, no script): some seconds in it
# must show another step than at 1 s. Chromium's virtual time drives SMIL
# only loosely, so a few budgets are tried before calling it a failure.
"$drv" --m 40 --n 40 --k 40 --svg "$out/alone.svg" || { echo "FAIL: animate --svg"; exit 1; }
svgurl="file://$(cd "$out" && pwd)/alone.svg"
alone() {   # alone BUDGET_MS OUT.png
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$out/profile" --window-size=1200,830 --virtual-time-budget="$1" \
        --screenshot="$2" "$svgurl" >/dev/null 2>>"$out/chromium.log"
}
alone 1000 "$out/alone1.png"
plays=0
for budget in 6000 9000 14000 20000; do
    alone "$budget" "$out/alone-later.png"
    if [ -s "$out/alone1.png" ] && [ -s "$out/alone-later.png" ] && ! cmp -s "$out/alone1.png" "$out/alone-later.png"; then
        plays=1
        break
    fi
done
if [ "$plays" -ne 1 ]; then
    echo "FAIL: the stand-alone SVG does not play (alone1.png vs alone-later.png)"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "PASS: the page steps and the SVG plays in headless $browser"
exit "$fail"
