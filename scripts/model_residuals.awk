# scripts/model_residuals.awk - how far the cost model is from the clock, per
# shape, from the decision sweep's files (scripts/gpu_check.sh, step sweep):
#   awk -f scripts/model_residuals.awk sweep-gpu.txt sweep-auto.txt sweep-auto.err
# Measured: the fastest of the rounds, OpenBLAS alone (both files) and the
# shim forced onto the GPU (the first file). Predicted: the first decision
# line of the shape in auto mode, which is the model with this machine's
# rates before learning has scaled anything. A ratio above 1 means the call
# took longer than the model said. The last line sums each route up: the
# geometric mean of the ratios and their range, over the shapes that have
# both a time and a prediction.
function lo(a, k, v) { if (!(k in a) || v < a[k]) a[k] = v }
# A bench row's shape, MxNxK[:XY][+P], as its decision lines name it (they
# carry the transposes but not the leading dimensions): without the +P.
function dkey(s) { sub(/\+[0-9]+$/, "", s); return s }
FNR == 1 { f++ }
f == 3 && / -> / && /predicted cpu/ {
    split($0, w, " "); mm = w[5]; nn = w[6]; kk = w[7]
    sub("m=", "", mm); sub("n=", "", nn); sub("k=", "", kk)
    key = mm "x" nn "x" kk (w[4] == "NN" ? "" : ":" w[4])
    if (!(key in pc)) {
        match($0, /predicted cpu [0-9.]+ ms, gpu [0-9.]+/)
        split(substr($0, RSTART, RLENGTH), q, " ")
        pc[key] = q[3]; pg[key] = q[6]
    }
    next
}
$1 ~ /^[0-9]+x[0-9]+x[0-9]+(:[NT][NT])?(\+[0-9]+)?$/ {
    lo(cpu, $1, $2)
    if (f == 1) { lo(gpu, $1, $3); if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
}
function sum_up(name, r, c, lo_, hi_, los, his) {
    if (!c) { printf "%s/model: no shape with a prediction\n", name; return }
    printf "%s/model: geometric mean %.2f, %.2f (%s) to %.2f (%s) over %d shapes\n",
           name, exp(r / c), lo_, los, hi_, his, c
}
END {
    printf "%-18s %9s %9s %7s %9s %9s %7s\n", "m x n x k", "CPU ms", "model", "ratio", "GPU ms", "model", "ratio"
    for (i = 1; i <= n; i++) {
        s = order[i]
        d = dkey(s)
        if (!(d in pc)) { printf "%-18s %9.3f %9s %7s %9.3f %9s %7s\n", s, cpu[s], "-", "-", gpu[s], "-", "-"; continue }
        rc = cpu[s] / pc[d]; rg = gpu[s] / pg[d]
        printf "%-18s %9.3f %9.3f %7.2f %9.3f %9.3f %7.2f\n", s, cpu[s], pc[d], rc, gpu[s], pg[d], rg
        lc += log(rc); nc++
        if (nc == 1 || rc < clo) { clo = rc; clos = s }
        if (nc == 1 || rc > chi) { chi = rc; chis = s }
        lg += log(rg)
        if (nc == 1 || rg < glo) { glo = rg; glos = s }
        if (nc == 1 || rg > ghi) { ghi = rg; ghis = s }
    }
    sum_up("CPU", lc, nc, clo, chi, clos, chis)
    sum_up("GPU", lg, nc, glo, ghi, glos, ghis)
}
