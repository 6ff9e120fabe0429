/* bench/bench_layouts.c - every layout and transpose
 * through the preload, end to end (host arrays in and out), beside the
 * row-major NN call: RowMajor and ColMajor x NN, NT, TN, TT through
 * cblas_sgemm, and the Fortran sgemm_ NN. Each is checked against float64
 * on sampled rows and timed (median of R after a warm-up), with OpenBLAS's
 * time for the same call and the ratio to RowMajor NN through the preload,
 * after the GPU path has started (tiledblas_gpu_start).
 * Usage: bench_layouts LIBTILEDBLAS [--size N] [--reps R]
 * (TILEDBLAS_MODE etc. come from the environment, as for any program.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

typedef void (*cblas_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef void (*fortran_fn)(const char *, const char *, const int *, const int *, const int *,
                           const float *, const float *, const int *, const float *, const int *,
                           const float *, float *, const int *, size_t, size_t);

/* op(X)(i, p) for a layout (101 row, 102 column) and a transpose flag. */
static float op_at(const float *X, int ld, int layout, int t, int i, int p)
{
    if (layout == 101)
        return t ? X[(size_t)p * ld + i] : X[(size_t)i * ld + p];
    return t ? X[(size_t)i * ld + p] : X[(size_t)p * ld + i];
}

/* Largest |C - ref| / sum |terms| over 24 sampled rows (all columns). */
static double check(int layout, int ta, int tb, int n, const float *A, const float *B,
                    const float *C)
{
    double worst = 0;
    for (int s = 0; s < 24; s++) {
        int i = (int)((long long)s * (n - 1) / 23);
        for (int j = 0; j < n; j++) {
            double ref = 0, mag = 0;
            for (int p = 0; p < n; p++) {
                double t = (double)op_at(A, n, layout, ta, i, p) * op_at(B, n, layout, tb, p, j);
                ref += t;
                mag += fabs(t);
            }
            double c = layout == 101 ? C[(size_t)i * n + j] : C[(size_t)j * n + i];
            double e = fabs(c - ref) / (mag > 0 ? mag : 1);
            if (worst == worst && !(e <= worst))   /* a NaN, once seen, stays */
                worst = e;
        }
    }
    return worst;
}

int main(int argc, char **argv)
{
    int n = 4096, reps = 5;
    if (argc < 2) {
        fprintf(stderr, "usage: bench_layouts LIBTILEDBLAS [--size N] [--reps R]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_layouts LIBTILEDBLAS [--size N] [--reps R]\n");
            return 2;
        }
    }
    if (n < 1 || reps < 1 || reps > 50)
        return 2;
    void *ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL);
    void *tb = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!ob || !tb) {
        fprintf(stderr, "bench_layouts: %s\n", dlerror());
        return 1;
    }
    cblas_fn ob_c = (cblas_fn)dlsym(ob, "cblas_sgemm"), tb_c = (cblas_fn)dlsym(tb, "cblas_sgemm");
    fortran_fn ob_f = (fortran_fn)dlsym(ob, "sgemm_"), tb_f = (fortran_fn)dlsym(tb, "sgemm_");
    if (!ob_c || !tb_c || !ob_f || !tb_f) {
        fprintf(stderr, "bench_layouts: missing cblas_sgemm or sgemm_\n");
        return 1;
    }
    /* The layouts are compared in the steady state: the GPU path started
     * first, as a program that knows its sizes would (tiledblas_gpu_start),
     * so that the first variant does not carry the start rule's CPU calls. */
    int (*start)(double) = (int (*)(double))dlsym(tb, "tiledblas_gpu_start");
    if (start)
        start(30.0);
    size_t nn = (size_t)n * n;
    float *A = malloc(nn * 4), *B = malloc(nn * 4), *C = malloc(nn * 4);
    if (!A || !B || !C)
        return 1;
    unsigned long long s = 12345;
    for (size_t i = 0; i < nn; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        A[i] = (float)((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        B[i] = (float)((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
    }
    printf("%d^3, host arrays in and out, median of %d after a warm-up; mode %s\n", n, reps,
           getenv("TILEDBLAS_MODE") ? getenv("TILEDBLAS_MODE") : "auto");
    printf("%-22s %12s %12s %9s %12s %10s\n", "call", "OpenBLAS ms", "preload ms", "speedup",
           "vs RowMajor NN", "max err");
    const char *ops[4] = {"NN", "NT", "TN", "TT"};
    double base = 0;
    int bad = 0;
    for (int v = 0; v < 9; v++) {
        const int fortran = v == 8, layout = v < 4 || fortran ? 101 : 102, o = v % 4;
        const int ta = fortran ? 0 : o >> 1, tb_ = fortran ? 0 : o & 1;
        double t[2][50];
        for (int lib = 0; lib < 2; lib++) {
            /* OpenBLAS's threads spin for a while after a call; let them
             * sleep first, or they compete with the preload's copy threads
             * (the first H200 run measured every variant after the first at
             * 1.7-2.1x its time this way; the first one ran after CUDA's
             * start, which outlasted the spinning). */
            if (lib == 1)
                usleep(300000);
            for (int r = -1; r < reps; r++) {
                double t0 = now();
                if (fortran) {
                    /* Fortran is column-major: row-major C = A B as C^T = B^T A^T. */
                    const float one = 1.0f, zero = 0.0f;
                    (lib ? tb_f : ob_f)("N", "N", &n, &n, &n, &one, B, &n, A, &n, &zero, C, &n, 1, 1);
                } else {
                    (lib ? tb_c : ob_c)(layout, ta ? 112 : 111, tb_ ? 112 : 111, n, n, n, 1.0f, A, n,
                                        B, n, 0.0f, C, n);
                }
                if (r >= 0)
                    t[lib][r] = now() - t0;
            }
        }
        double err = check(layout, ta, tb_, n, A, B, C);   /* the preload's result */
        qsort(t[0], (size_t)reps, sizeof(double), cmp_double);
        qsort(t[1], (size_t)reps, sizeof(double), cmp_double);
        double t_ob = t[0][reps / 2], t_tb = t[1][reps / 2];
        if (v == 0)
            base = t_tb;
        char name[32];
        snprintf(name, sizeof name, "%s %s", fortran ? "sgemm_" : layout == 101 ? "RowMajor" : "ColMajor",
                 fortran ? "NN" : ops[o]);
        printf("%-22s %12.3f %12.3f %8.2fx %13.2fx %10.2e\n", name, t_ob * 1e3, t_tb * 1e3,
               t_ob / t_tb, t_tb / base, err);
        fflush(stdout);
        if (!(err < 1e-5))
            bad++;
    }
    printf("max err: largest |C - ref| / sum |a b| over 24 sampled rows, float64 reference%s\n",
           bad ? "; SOME RESULTS WRONG" : "");
    free(A);
    free(B);
    free(C);
    return bad ? 1 : 0;
}
