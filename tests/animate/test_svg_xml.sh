#!/bin/sh
# tests/animate/test_svg_xml.sh DRIVER OUTDIR - `animate` from the command
# line: bad usage exits 2 with a "tiledblas:" message, --help exits 0, every
# SVG (1x1x1 to 8192^3, four kernels, traced calls in the library's own line
# format) parses as XML. Skips (77) without python3.
set -u
drv=$1
out=$2
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not installed"
    exit 77
fi
mkdir -p "$out"
fail=0

run() {   # run WANT_RC ARGS...
    want=$1
    shift
    "$drv" "$@" >"$out/stdout" 2>"$out/stderr"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: animate $* exited $rc, want $want"
        cat "$out/stderr"
        fail=1
    elif [ "$want" -eq 2 ] && ! grep -q '^tiledblas: ' "$out/stderr"; then
        echo "FAIL: animate $*: no 'tiledblas: ' message on stderr"
        fail=1
    fi
}

run 2
run 2 --bogus 1 --svg "$out/x.svg"
run 2 --m 0 --svg "$out/x.svg"
run 2 --m ten --svg "$out/x.svg"
run 2 --block 9,9 --svg "$out/x.svg"
run 2 --block 1 --svg "$out/x.svg"
run 2 --thread 16,0 --svg "$out/x.svg"
run 2 --kernel nosuch --svg "$out/x.svg"
run 2 --call 1 --svg "$out/x.svg"
run 0 --help
grep -q 'usage: tiledblas animate' "$out/stdout" || { echo "FAIL: --help shows no usage"; fail=1; }
grep -q 'tiled16' "$out/stdout" || { echo "FAIL: --help lists no kernels"; fail=1; }

for size in 1x1x1 16x16x16 17x33x40 40x40x40 100x7x300 8192x8192x8192; do
    m=${size%%x*}; rest=${size#*x}; n=${rest%%x*}; k=${rest#*x}
    for kernel in tiled16 regblock warptile tf32x3; do
        run 0 --m "$m" --n "$n" --k "$k" --kernel "$kernel" --svg "$out/$kernel-$size.svg"
    done
done
run 0 --m 40 --n 40 --k 40 --block 0,1 --thread 15,15 --svg "$out/edge-thread.svg"
run 0 --m=33 --n=17 --k=5 --svg=- 
cp "$out/stdout" "$out/stdout.svg"

cat >"$out/trace.jsonl" <<'TRACE'
{"t":0.000000000,"pid":1044,"thread":1,"seq":1,"api":"cblas","layout":"RowMajor","transa":"N","transb":"N","m":1000,"n":513,"k":700,"lda":700,"ldb":513,"ldc":513,"alpha":1,"beta":0,"route":"cpu","reason":"cpu-faster","seconds":0.016708742}
{"t":0.000000000,"pid":1118,"thread":1,"seq":1,"api":"cblas","layout":"RowMajor","transa":"N","transb":"N","m":4096,"n":1000,"k":2049,"lda":2049,"ldb":1000,"ldc":1000,"alpha":1,"beta":0,"route":"gpu","reason":"forced","seconds":0.275779262,"kernel":"tiled16","h2d_s":0.010241824,"kernel_s":0.002379936,"d2h_s":0.015916000,"bytes_h2d":41766816,"bytes_d2h":16384000}
{"t":0.05,"pid":7,"thread":2,"seq":9,"api":"fortran","layout":"ColMajor","transa":"N","transb":"T","m":1000,"n":700,"k":300,"lda":1024,"ldb":704,"ldc":1000,"alpha":1,"beta":0.5,"route":"gpu","reason":"large","kernel":"warptile","seconds":0.0061,"h2d_s":0.0021,"kernel_s":0.0024,"d2h_s":0.0009,"bytes_h2d":6840000,"bytes_d2h":2800000,"verify_max_abs":null,"verify_ok":false}
TRACE
run 0 --trace "$out/trace.jsonl" --svg "$out/trace-gpu.svg" --html "$out/trace-gpu.html"
run 0 --trace "$out/trace.jsonl" --call 3 --svg "$out/trace-colmajor.svg"
run 0 --trace "$out/trace.jsonl" --call 1 --svg "$out/trace-cpu.svg" --html "$out/trace-cpu.html"
grep -q 'ran on the CPU' "$out/trace-cpu.html" || { echo "FAIL: CPU page does not say so"; fail=1; }
grep -q 'cpu-faster' "$out/trace-cpu.html" || { echo "FAIL: CPU page does not say why"; fail=1; }
run 1 --trace "$out/trace.jsonl" --call 4 --svg "$out/x.svg"

python3 - "$out" <<'PY' || fail=1
import glob, sys, xml.dom.minidom
bad = 0
files = sorted(glob.glob(sys.argv[1] + "/*.svg"))
for f in files:
    try:
        doc = xml.dom.minidom.parse(f)
        root = doc.documentElement
        assert root.tagName == "svg", "root is " + root.tagName
        assert doc.getElementsByTagName("set"), "no <set> animation"
    except Exception as e:
        print("FAIL: %s: %s" % (f, e))
        bad = 1
print("parsed %d SVG files" % len(files))
sys.exit(bad)
PY

[ "$fail" -eq 0 ] && echo "PASS: animate command line and SVG well-formedness"
exit "$fail"
