/* bench/bench_cpu_route.c - does a call the shim sends to the CPU cost more
 * than calling OpenBLAS directly? For each shape, in one process, OpenBLAS's
 * cblas_sgemm and the shim's are called alternately (direct, shim, direct,
 * ...), so that both see the same machine at the same moment, and the
 * medians of each are compared. Then the same after the bench itself has
 * created a CUDA context (phase "ctx"), to see whether CUDA being up in the
 * process slows OpenBLAS down by itself.
 * Run it with TILEDBLAS_MODE=cpu (the shim never starts CUDA) and in auto
 * mode (the decision weighs the call, and may start CUDA to do so; it may
 * also send the call to the GPU: with TILEDBLAS_VERBOSE=2 the decision lines
 * say where each went, and gpu_check.sh counts them).
 * Usage: bench_cpu_route LIBTILEDBLAS [--shapes MxNxK,...] [--reps R] */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_util.h"

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                         const float *, int, float, float *, int);

static double timed(sgemm_fn f, int m, int n, int k, const float *A, const float *B, float *C)
{
    double t0 = now();
    f(101, 111, 111, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
    return now() - t0;
}

/* Medians of `reps` alternating calls of f and g, f first in even rounds
 * and g first in odd ones, so that neither always follows the other. */
static void alternate(sgemm_fn f, sgemm_fn g, int m, int n, int k, const float *A,
                      const float *B, float *C, int reps, double *tf, double *tg)
{
    double a[64], b[64];
    for (int i = 0; i < reps; i++) {
        if (i % 2 == 0) {
            a[i] = timed(f, m, n, k, A, B, C);
            b[i] = timed(g, m, n, k, A, B, C);
        } else {
            b[i] = timed(g, m, n, k, A, B, C);
            a[i] = timed(f, m, n, k, A, B, C);
        }
    }
    *tf = median(a, reps);
    *tg = median(b, reps);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_cpu_route LIBTILEDBLAS [--shapes MxNxK,...] [--reps R]\n");
        return 2;
    }
    char list[1024] = "300x300x300,1500x1500x64,4096x4096x32,8192x8192x16,700x200x900";
    int reps = 15;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
            snprintf(list, sizeof list, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "bench_cpu_route: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1)
        reps = 15;
    if (reps > 64)
        reps = 64;
    void *ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL);
    void *tb = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!ob || !tb) {
        fprintf(stderr, "bench_cpu_route: %s\n", dlerror());
        return 1;
    }
    sgemm_fn direct = (sgemm_fn)dlsym(ob, "cblas_sgemm");
    sgemm_fn shim = (sgemm_fn)dlsym(tb, "cblas_sgemm");
    const char *mode = getenv("TILEDBLAS_MODE");
    printf("shim mode %s; medians of %d alternating calls each; ctx: after the bench created a "
           "CUDA context\n", mode ? mode : "auto", reps);
    printf("%-16s %10s %10s %7s %10s %10s %7s\n", "m x n x k", "direct ms", "shim ms", "ratio",
           "ctx dir ms", "ctx shim", "ratio");
    int ctx = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            ctx = cudaFree(NULL) == cudaSuccess;
        char buf[sizeof list];
        memcpy(buf, list, sizeof list);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            int m, n, k;
            if (sscanf(tok, "%dx%dx%d", &m, &n, &k) != 3)
                m = n = k = atoi(tok);
            if (m <= 0 || n <= 0 || k <= 0)
                continue;
            float *A = malloc((size_t)m * k * 4), *B = malloc((size_t)k * n * 4);
            float *C = malloc((size_t)m * n * 4);
            fill_uniform(A, (size_t)m * k, 1);
            fill_uniform(B, (size_t)k * n, 2);
            double td, ts;
            alternate(direct, shim, m, n, k, A, B, C, 2, &td, &ts);    /* warm-up */
            alternate(direct, shim, m, n, k, A, B, C, reps, &td, &ts);
            if (pass == 0)
                printf("%-16s %10.3f %10.3f %6.2fx", tok, td * 1e3, ts * 1e3, ts / td);
            else
                printf("%-16s %10s %10s %7s %10.3f %10.3f %6.2fx", tok, "", "", "", td * 1e3,
                       ts * 1e3, ts / td);
            printf("\n");
            free(A); free(B); free(C);
        }
        if (pass == 1 && !ctx)
            printf("(no CUDA context: the ctx columns ran without one)\n");
    }
    return 0;
}
