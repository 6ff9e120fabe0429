#!/bin/bash
# scripts/gpu_run.sh STEPS [OUT] - scripts/gpu_check.sh's named steps on the
# GPU machine, with the logs packed into one file under OUT (default $OUT):
# the device tool brings back only a few files. The table a step prints is
# in the output itself.
#   TB_STEPS=ctest,xscblat3 ... as gpu_check.sh; STEPS is that list.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
steps=$1
dest=${2:-${OUT:-$root/gpu-check}}
log=/tmp/gpu-check-$(date +%s)
mkdir -p "$dest" "$log"
TB_STEPS=$steps "$root/scripts/gpu_check.sh" "$log"
rc=$?
tar czf "$dest/gpu-check-${steps//,/-}.tgz" -C "$(dirname "$log")" "$(basename "$log")"
exit $rc
