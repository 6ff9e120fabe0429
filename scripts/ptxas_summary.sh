#!/bin/sh
# scripts/ptxas_summary.sh FILE.cu - compile one kernel file for sm_90 and
# print registers / spills per instantiation, one line each (docs/kernels.md).
f=$1; shift
nvcc -arch=sm_90 -O3 -Xptxas -v -I"$(dirname "$0")/../kernels" "$@" -c "$f" -o /dev/null 2>&1 |
awk '/Compiling entry function/ {match($0, /_Z[0-9]+[A-Za-z0-9_]+/); name=substr($0, RSTART, RLENGTH)}
     /spill stores/ {spill=$0; sub(/^ */, "", spill)}
     /Used [0-9]+ registers/ {match($0, /Used [0-9]+ registers/); print name ": " substr($0, RSTART, RLENGTH) ", " spill}' |
c++filt -p 2>/dev/null || cat
