#!/bin/bash
# scripts/test.sh - set up and build (scripts/setup.sh, which installs the
# test tools named here as well), then run the whole test suite with ctest.
# On a machine without a GPU the GPU tests report a skip. OpenBLAS's kernel and thread
# count come from the environment (OPENBLAS_CORETYPE, OPENBLAS_NUM_THREADS):
# the line before ctest names them, so that a failure's log says which were
# in force.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# The reference BLAS/LAPACK testers, numpy, Debian's PyTorch (client.torch;
# about 130 MB to download, 560 MB installed, under a minute to install),
# Octave, valgrind, gnuplot and Chromium (the animation's pictures), and for
# the package test pkg-config, dpkg-dev and file (cpack's dpkg-shlibdeps).
# libopenblas64-pthread-dev, libblas64-dev, libblis64-dev: programs on an
# ILP64 BLAS, OpenBLAS, the reference BLAS and BLIS (preload.ilp64);
# libblas-dev, libblis-dev: on the LP64 reference BLAS and BLIS
# (preload.other-blas);
# python3-venv: numpy and scipy from PyPI in build/pypi-venv
# (preload.numpy-pypi), the BLAS clients people install most.
pkgs="libblas-test liblapack-test python3 python3-numpy python3-torch python3-venv libopenblas64-pthread-dev libblas64-dev libblis64-dev libblas-dev libblis-dev octave r-base-core valgrind gnuplot-nox chromium imagemagick fonts-dejavu-core pkg-config dpkg-dev file"
"$root/scripts/setup.sh" $pkgs
venv="$root/build/pypi-venv"
if ! "$venv/bin/python" -c 'import numpy, scipy' 2>/dev/null; then
    echo "test: installing numpy and scipy from PyPI into $venv"
    python3 -m venv "$venv" && "$venv/bin/pip" install -q numpy scipy \
        || echo "test: no numpy and scipy from PyPI: preload.numpy-pypi will skip"
fi
cd "$root/build"
echo "test: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}"
ctest --output-on-failure -j "$(nproc)" --timeout 900
