/* bench/bench_overhead.c - what the preload costs a program that never
 * benefits from it: the time of a 4x4 cblas_sgemm (median of 31 batches of
 * 20000 calls). Run it with and without LD_PRELOAD and compare; the GPU
 * check script prints both and their ratio. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench_util.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (n < 1 || n > 64)
        n = 4;
    float A[64 * 64], B[64 * 64], C[64 * 64];
    for (int i = 0; i < n * n; i++) {
        A[i] = (float)(i % 7) - 3.0f;
        B[i] = (float)(i % 5) - 2.0f;
        C[i] = 0.0f;
    }
    enum { BATCHES = 31, CALLS = 20000 };
    double t[BATCHES];
    for (int b = -3; b < BATCHES; b++) {   /* three warm-up batches */
        double t0 = now();
        for (int i = 0; i < CALLS; i++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
        if (b >= 0)
            t[b] = (now() - t0) / CALLS;
    }
    qsort(t, BATCHES, sizeof t[0], cmp_double);
    printf("%dx%d sgemm: %.1f ns per call (fastest of %d batches of %d; median %.1f ns; C[0] = %g)\n",
           n, n, t[0] * 1e9, BATCHES, CALLS, t[BATCHES / 2] * 1e9, C[0]);
    return 0;
}
