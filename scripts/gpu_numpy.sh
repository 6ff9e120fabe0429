#!/bin/bash
# scripts/gpu_numpy.sh PREFIX LIBTILEDBLAS OUTDIR - Debian's numpy
# float32 products (C-ordered, Fortran-ordered and transposed operands, sizes
# up to 2048) and float64 ones (sizes up to 640) under the preload, in auto
# mode (with three seconds more of 2048^3 products, so that the GPU pays) and
# forced-GPU mode, on a machine whose own Python cannot be reached by a
# preload (a PyPI numpy carries its OpenBLAS under renamed symbols).
#
# PREFIX holds .deps/*.deb unpacked with dpkg -x (scripts/gpu_check.sh does
# this; scripts/fetch_deps.sh downloads them): Debian's python3.11 runs from
# there with only the prefix's standard library and numpy, and numpy's
# libblas.so.3 resolves to the carried OpenBLAS. Writes the decision lines
# (TILEDBLAS_VERBOSE=2) and outputs to OUTDIR, prints a summary, and exits
# 0 when both modes pass, 1 when one fails, 2 when PREFIX is not usable.
# Without a GPU, forced-GPU mode falls back to the CPU with one warning: that
# is reported as "no GPU here", not as a failure. With one (the library says
# so, or nvidia-smi lists one), every product must run on the GPU in forced
# mode and some in auto mode.
set -u
[ $# = 3 ] || { echo "usage: $0 PREFIX LIBTILEDBLAS OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
check=$root/tests/numpy_check.py
die() { echo "gpu_numpy: $*" >&2; exit 2; }
[ -d "$1" ] || die "no prefix $1"
prefix=$(cd "$1" && pwd -P)
[ -f "$2" ] || die "no library $2"
tblib=$(readlink -f "$2")
mkdir -p "$3" || die "cannot create $3"
out=$(cd "$3" && pwd)
arch=x86_64-linux-gnu
py=$prefix/usr/bin/python3.11
ulib=$prefix/usr/lib/$arch
[ -x "$py" ] || die "no $py: unpack .deps/*.deb (scripts/fetch_deps.sh) into $prefix"
[ -f "$prefix/usr/lib/python3/dist-packages/numpy/__init__.py" ] || die "no python3-numpy in $prefix"
[ -f "$ulib/openblas-pthread/libblas.so.3" ] || die "no OpenBLAS (libopenblas0-pthread) in $prefix"
summary=$out/numpy-summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# Nothing of the caller's Python or settings: the prefix's interpreter, its
# standard library (PYTHONHOME) and its numpy (PYTHONPATH; -S: no site, so
# no user or system site-packages and no sitecustomize). OpenBLAS's folder
# first on the library path, so that numpy's libblas.so.3 and liblapack.so.3
# are OpenBLAS, then the prefix's other libraries (libgfortran, libexpat);
# what the caller had stays behind them (the CUDA driver may be found there).
# Of the caller's TILEDBLAS_* settings only the two about this machine's
# measured rates stay (gpu_check.sh keeps them out of the user's cache);
# without a cache directory given, the rates go to a temporary one.
if [ -n "${TILEDBLAS_CACHE_DIR:-}" ]; then
    cache_dir=$TILEDBLAS_CACHE_DIR
else
    cache_dir=$(mktemp -d /tmp/tb-numpy-cache.XXXXXX)
    trap 'rm -rf "$cache_dir"' EXIT
fi
calibrate=${TILEDBLAS_CALIBRATE:-}
for v in $(env | sed -n 's/^\(PYTHON[A-Z_]*\|TILEDBLAS_[A-Z_]*\|VIRTUAL_ENV\|CONDA_PREFIX\)=.*/\1/p'); do
    unset "$v"
done
export TILEDBLAS_CACHE_DIR=$cache_dir
[ -z "$calibrate" ] || export TILEDBLAS_CALIBRATE=$calibrate
unset LD_PRELOAD
export PYTHONHOME=$prefix/usr
export PYTHONPATH=$prefix/usr/lib/python3/dist-packages
export PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1
export LD_LIBRARY_PATH=$ulib/openblas-pthread:$ulib:$prefix/lib/$arch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# What this interpreter really loaded, under the preload as the checks run:
# every module and mapped library that names python must come from the
# prefix, and libblas.so.3 from the carried OpenBLAS. Also asks the library
# whether it can use a GPU here.
LD_PRELOAD=$tblib TILEDBLAS_VERBOSE=1 "$py" -S - "$prefix" "$tblib" >"$out/numpy-probe.txt" 2>&1 <<'EOF'
import os, re, sys
prefix, tblib = sys.argv[1], sys.argv[2]
import numpy
x = numpy.ones((8, 8), numpy.float32)
x @ x
inside = lambda p: os.path.realpath(p).startswith(prefix + "/")
print("python:", sys.version.split()[0], sys.executable)
print("stdlib:", os.path.dirname(os.__file__))
print("numpy:", numpy.__version__, os.path.dirname(numpy.__file__))
maps = []
with open("/proc/self/maps") as f:
    for line in f:
        p = line.split(None, 5)[5].strip() if len(line.split(None, 5)) == 6 else ""
        if p.startswith("/") and p not in maps:
            maps.append(p)
for p in maps:
    if re.match(r"lib(open)?blas|liblapack|libgfortran|libquadmath|libtiledblas", os.path.basename(p)):
        print("loaded:", p)
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f and f.startswith("/") and not inside(f):
        print("outside:", f)
for p in maps:
    if "python" in p and not inside(p):
        print("outside:", p)
    elif not inside(p) and ".so" in p and os.path.realpath(p) != os.path.realpath(tblib):
        print("system:", p)
try:
    import ctypes
    blas = [p for p in maps if os.path.basename(p).startswith("libblas.so")]
    if blas:
        ob = ctypes.CDLL(blas[0])
        ob.openblas_get_config.restype = ob.openblas_get_corename.restype = ctypes.c_char_p
        print("openblas:", ob.openblas_get_config().decode(), "- core", ob.openblas_get_corename().decode())
    lib = ctypes.CDLL(tblib)
    buf = ctypes.create_string_buffer(512)
    ok = lib.tiledblas_gpu_describe(buf, ctypes.c_size_t(len(buf)))
    print("gpu:", "yes" if ok == 1 else "no", buf.value.decode(errors="replace"))
except Exception as e:
    print("gpu: unknown (ctypes: %s)" % e)
EOF
probe_rc=$?
field() { sed -n "s/^$1: //p" "$out/numpy-probe.txt" | head -1; }
rel() { sed "s|$prefix/|PREFIX/|g"; }
say "numpy under the preload: Debian python3.11 and python3-numpy from PREFIX=$prefix"
if [ $probe_rc != 0 ] || [ -z "$(field numpy)" ]; then
    say "FAIL: the prefix's python could not import numpy:"; rel <"$out/numpy-probe.txt" | tail -8; exit 1
fi
say "python: $(field python | rel)"
say "numpy:  $(field numpy | rel)"
blas=$(grep '^loaded: .*/libblas\.so' "$out/numpy-probe.txt" | head -1 | sed 's/^loaded: //')
say "BLAS:   $(echo "${blas:-none}" | rel)"
[ -n "$(field openblas)" ] && say "        $(field openblas)"
say "GPU:    $(field gpu)"
setup_bad=""
case $blas in
"$ulib"/openblas-pthread/libblas.so*) ;;
*) setup_bad="numpy's BLAS is not the carried OpenBLAS" ;;
esac
if grep -q '^outside: ' "$out/numpy-probe.txt"; then
    setup_bad="python files from outside the prefix: $(sed -n 's/^outside: //p' "$out/numpy-probe.txt" | head -3 | tr '\n' ' ')"
fi
[ -z "$setup_bad" ] || { say "FAIL: $setup_bad"; exit 1; }

have_gpu=0
case $(field gpu) in yes*) have_gpu=1 ;; esac
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    have_gpu=1      # a GPU is there: the library must use it, whatever it said
    case $(field gpu) in yes*) ;; *) say "        but nvidia-smi lists a GPU: $(nvidia-smi -L | head -1)" ;; esac
fi

line_re='^tiledblas: [sd]gemm_? (RowMajor|ColMajor) [NT][NT] m=[0-9]+ n=[0-9]+ k=[0-9]+ -> (gpu|cpu) \([a-z:-]+\)( predicted cpu [0-9.]+ ms, gpu [0-9.]+ ms)?$'
info_re='^tiledblas: cost model: '     # auto mode's rates, at the first call that may use the GPU
status=0
for mode in auto gpu; do
    o=$out/numpy-$mode.out e=$out/numpy-$mode.err
    t0=$(date +%s%N)
    # Auto mode: --long as well, a program long enough for the GPU to pay.
    long=; [ $mode = auto ] && long=--long
    TILEDBLAS_MODE=$mode TILEDBLAS_VERBOSE=2 LD_PRELOAD=$tblib "$py" -S "$check" --big $long >"$o" 2>"$e"
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    want=$(sed -n 's/^products float32: //p' "$o") want64=$(sed -n 's/^products float64: //p' "$o")
    n=$(grep -c '^tiledblas: sgemm ' "$e") n64=$(grep -c '^tiledblas: dgemm ' "$e")   # (the float32 references add dgemm calls)
    gpu=$(grep -E "$line_re" "$e" | grep -c ' -> gpu ')
    cpu=$(grep -E "$line_re" "$e" | grep -c ' -> cpu ')
    other=$(grep -vE "$line_re" "$e" | grep -vcE "$info_re")
    why=$(grep -oE ' -> (gpu|cpu) \([a-z:-]+\)' "$e" | sed 's/^ -> //' | sort | uniq -c | sort -rn |
          awk '{ printf "%s%s %s %d", sep, $2, $3, $1; sep = ", " }')
    lines="${want:-?} float32 and ${want64:-?} float64 products, $n sgemm and $n64 dgemm decision lines: gpu $gpu, cpu $cpu [$why], other lines $other, ${ms} ms"
    bad=""
    if [ $rc != 0 ] || [ -z "$want" ] || [ -z "$want64" ]; then
        bad="numpy_check.py exit $rc: $(cat "$o" "$e" | grep -v '^tiledblas: ' | tail -3 | tr '\n' ' ')"
    elif [ "$n" -lt "$want" ]; then
        bad="$n decision lines for $want float32 products"
    elif [ "$n64" -lt "$want64" ]; then
        bad="$n64 dgemm decision lines for $want64 float64 products"
    elif [ $have_gpu = 1 ]; then
        [ "$other" = 0 ] || bad="warnings with a GPU: $(grep -vE "$line_re" "$e" | grep -vE "$info_re" | head -3 | tr '\n' ' ')"
        [ "$gpu" -gt 0 ] || bad="no product went to the GPU"
        if [ $mode = gpu ]; then
            kept=$(grep -E "$line_re" "$e" | grep ' -> cpu ' | grep -vcE '\((scope|no-op|illegal-args)\)')
            [ "$kept" = 0 ] || bad="$kept products stayed on the CPU in forced-GPU mode: $(grep ' -> cpu ' "$e" | head -2 | tr '\n' ' ')"
        fi
    else
        [ "$gpu" = 0 ] || bad="the GPU route claimed without a GPU"
        if [ $mode = auto ]; then
            [ "$other" = 0 ] || bad="auto mode printed more than decision lines: $(grep -vE "$line_re" "$e" | grep -vE "$info_re" | head -3 | tr '\n' ' ')"
        else
            [ "$other" -le 1 ] || bad="$other warnings: $(grep -vE "$line_re" "$e" | grep -vE "$info_re" | head -3 | tr '\n' ' ')"
            lines="$lines; no GPU here: forced-GPU mode fell back to the CPU ($other warning)"
        fi
    fi
    if [ -z "$bad" ]; then
        say "$mode: PASS - $lines"
    else
        say "$mode: FAIL - $bad"
        say "      ($lines)"
        status=1
    fi
    grep -E "$info_re" "$e" | head -1 | sed 's/^tiledblas: /      /' | tee -a "$summary"
done
say "layouts and transposes that reached cblas_sgemm: $(sed -n 's/^tiledblas: sgemm \([A-Za-z]*\) \([NT][NT]\) .*/\1 \2/p' \
    "$out/numpy-gpu.err" | sort | uniq -c | awk '{ printf "%s%s %s %d", sep, $2, $3, $1; sep = ", " }')"
say "logs: $out/numpy-{probe.txt,auto.out,auto.err,gpu.out,gpu.err,summary.txt}"
exit $status
