# scripts/sweep_table.awk - the decision sweep's table (scripts/gpu_check.sh,
# step sweep) from its three files: bench_e2e's rows in forced-GPU mode, its
# rows in auto mode, and where auto mode's calls went:
#   awk -f scripts/sweep_table.awk sweep-gpu.txt sweep-auto.txt sweep-auto-stats.jsonl
# The third file is the auto processes' TILEDBLAS_STATS reports (JSON lines),
# each after a line {"sweep":"SHAPE"} naming the shape that process ran; or
# their decision lines (TILEDBLAS_VERBOSE=2), which cost the timed calls a
# write each: 1.1-2.2 us a call on the H200 machine, 1-2% of a 0.1 ms call.
# Every column keeps the fastest of its rounds: CPU (OpenBLAS alone, timed
# in the auto processes before the shim's first call), GPU (the shim forced
# onto the GPU) and auto. Each column thus gets the same number of
# processes: taking the CPU's fastest from the forced-GPU processes as well
# would give it twice the chances of a lucky process; the last line counts
# the shapes over 1.10x that way too, for comparison. A shape over
# 1.10x whose calls in auto mode all went the way of the faster forced run
# is marked "noise": every decision was right, and the time moved between
# processes. The route column is the route and reason that most of the
# shape's calls took (the last call's, from decision lines), and how many of
# its calls went to the GPU.
function lo(a, k, v) { if (!(k in a) || v < a[k]) a[k] = v }
# A bench row's shape, MxNxK[:XY][+P], as its decision lines name it (they
# carry the transposes but not the leading dimensions): without the +P.
function dkey(s) { sub(/\+[0-9]+$/, "", s); return s }
FNR == 1 { f++ }
# Stats reports: rows counted for the shape of the last {"sweep":...} line.
function jstr(name,    v) {
    if (!match($0, "\"" name "\":\"[^\"]*\"")) return ""
    v = substr($0, RSTART, RLENGTH); sub(/^"[^"]*":"/, "", v); sub(/"$/, "", v); return v
}
function jnum(name,    v) {
    if (!match($0, "\"" name "\":[0-9.eE+-]+")) return 0
    v = substr($0, RSTART, RLENGTH); sub(/^"[^"]*":/, "", v); return v + 0
}
# A marker names the shape as the sweep's list does; bench rows write a
# plain N as NxNxN.
f == 3 && /^\{"sweep":/ {
    shape = jstr("sweep"); if (shape !~ /^[0-9]+x/) { d = shape; sub(/[:+].*/, "", d); shape = d "x" d "x" shape }
    next
}
f == 3 && /^\{"stats":"row"/ && shape != "" {
    rr = jstr("route") " (" jstr("reason") ")"; c = jnum("calls")
    calls[shape] += c; if (jstr("route") == "gpu") ongpu[shape] += c
    tally[shape, rr] += c
    if (tally[shape, rr] > most[shape]) { most[shape] = tally[shape, rr]; route[shape] = rr }
    next
}
f == 3 && / -> / {
    split($0, w, " "); mm = w[5]; nn = w[6]; kk = w[7]
    sub("m=", "", mm); sub("n=", "", nn); sub("k=", "", kk)
    key = mm "x" nn "x" kk (w[4] == "NN" ? "" : ":" w[4]); route[key] = w[9] " " w[10]; calls[key]++
    if (w[9] == "gpu") ongpu[key]++
    next
}
$1 ~ /^[0-9]+x[0-9]+x[0-9]+(:[NT][NT])?(\+[0-9]+)?$/ {
    lo(cpuall, $1, $2)
    if (f == 2) lo(cpu, $1, $2)
    if (f == 1) { lo(gpu, $1, $3); if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
    else if (f == 2) lo(aut, $1, $3)
}
END {
    printf "%-18s %10s %10s %10s %8s  %s\n", "m x n x k", "CPU ms", "GPU ms", "auto ms", "auto/best", "route"
    worst = 0; over = 0; noise = 0
    for (i = 1; i <= n; i++) {
        s = order[i]; d = (s in calls) ? s : dkey(s); best = cpu[s] < gpu[s] ? cpu[s] : gpu[s]
        r = aut[s] / best; if (r > worst) { worst = r; ws = s }
        mark = ""
        if (r > 1.10) {
            over++
            if (calls[d] > 0 && ongpu[d] + 0 == (gpu[s] < cpu[s] ? calls[d] : 0)) { noise++; mark = "  noise" }
        }
        printf "%-18s %10.3f %10.3f %10.3f %8.2f  %s, %d/%d on the GPU%s\n", s, cpu[s], gpu[s], aut[s], r,
               route[d], ongpu[d], calls[d], mark
        bestall = cpuall[s] < gpu[s] ? cpuall[s] : gpu[s]
        if (aut[s] / bestall > 1.10) overall++
    }
    printf "worst auto/best: %.2f at %s over %d shapes; %d above 1.10 (%d with every call on the faster route)\n", worst, ws, n, over, noise
    printf "with OpenBLAS's fastest from every process (forced-GPU ones too) as CPU: %d above 1.10\n", overall
}
