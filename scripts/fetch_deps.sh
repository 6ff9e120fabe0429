#!/bin/bash
# scripts/fetch_deps.sh - downloads into .deps/ the Debian packages that the
# GPU check carries to the GPU machine, which reaches no package registry:
# OpenBLAS and the reference testers (scripts/gpu_check.sh), and Debian's own
# python3.11 with python3-numpy (scripts/gpu_numpy.sh). Run it here,
# on the Debian 12 machine, whose apt can download. A package that already
# has a .deb in .deps/ (any version) is skipped, so running it again is cheap.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

# OpenBLAS (pthread build), its Fortran runtime, the reference BLAS and
# LAPACK with their testers (xscblat3, xblat3s, xlintsts).
blas="libopenblas0-pthread libopenblas-pthread-dev libopenblas-dev libgfortran5 libquadmath0
      libblas3 libblas-test liblapack3 liblapack-test libopenblas64-0-pthread libopenblas64-pthread-dev"
# Debian's interpreter, its standard library and numpy, unpacked into a
# prefix there. libexpat1: the interpreter links libexpat.so.1, which a bare
# Ubuntu may lack (it unpacks into PREFIX/lib, off gpu_check.sh's library
# path). Not carried: zlib (always there), libffi and OpenSSL (only ctypes and
# _hashlib need them, both optional for numpy; libffi would unpack into the
# folder gpu_check.sh puts first on every program's library path).
python="python3.11-minimal libpython3.11-minimal libpython3.11-stdlib python3-numpy libexpat1"

mkdir -p "$root/.deps"
cd "$root/.deps"
want=""
for p in $blas $python; do
    compgen -G "${p}_*.deb" >/dev/null || want="$want $p"
done
if [ -n "$want" ]; then
    echo "fetch_deps: downloading$want"
    # shellcheck disable=SC2086
    apt-get download $want || { echo "fetch_deps: apt-get download failed (stale lists? try apt-get update)" >&2; exit 1; }
else
    echo "fetch_deps: every package is already in .deps/"
fi

# The interpreter and its two libraries must be one build: a mix (an old
# .deb kept beside newer ones) fails at start-up in confusing ways.
vers=$(for p in python3.11-minimal libpython3.11-minimal libpython3.11-stdlib; do
           for f in "${p}"_*.deb; do dpkg-deb -f "$f" Version; done
       done | sort -u)
if [ "$(echo "$vers" | wc -l)" != 1 ]; then
    echo "fetch_deps: python3.11 packages of different versions in .deps/ ($(echo "$vers" | tr '\n' ' ')):" \
         "delete them and run again" >&2
    exit 1
fi
mib=$(du -sm . | cut -f1)
echo "fetch_deps: $(find . -maxdepth 1 -name '*.deb' | wc -l) packages, $mib MiB in .deps/ (python3.11 $vers)"
[ "$mib" -lt 60 ] || { echo "fetch_deps: .deps/ is over 60 MiB: it must travel with the tree" >&2; exit 1; }
