/* bench/bench_pipeline.c - the host<->device pipeline alone (gpu.c's
 * tb_gpu_gemm, no dispatch), timed with the large unpacks into C made two
 * ways in the same process, alternately: ordinary stores (memcpy) and
 * streaming stores that bypass the cache (tb_copy_nontemporal; packing
 * into staging always takes ordinary stores). Prints per
 * size the median wall time of each and the spans of the last call on the
 * three streams. The copy threads come from TILEDBLAS_COPY_THREADS, so a
 * script runs this once per thread count.
 * Usage: bench_pipeline [--sizes N,N,...] [--reps R]      (needs a GPU) */
#include "tb_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

/* Max relative error of 16 sampled elements of C against float64. */
static double check(const float *A, const float *B, const float *C, int n)
{
    double worst = 0;
    for (int s = 0; s < 16; s++) {
        int i = (int)((long long)s * 7919 % n), j = (int)((long long)s * 104729 % n);
        double ref = 0, mag = 0;
        for (int p = 0; p < n; p++) {
            ref += (double)A[(size_t)i * n + p] * B[(size_t)p * n + j];
            mag += fabs((double)A[(size_t)i * n + p] * B[(size_t)p * n + j]);
        }
        double e = fabs(C[(size_t)i * n + j] - ref) / mag;
        if (worst == worst && !(e <= worst))   /* a NaN, once seen, stays */
            worst = e;
    }
    return worst;
}

int main(int argc, char **argv)
{
    char sizes[256] = "2048,4096,8192";
    int reps = 9;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            snprintf(sizes, sizeof sizes, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_pipeline [--sizes N,N,...] [--reps R]\n");
            return 2;
        }
    }
    if (reps < 3 || reps > 64)
        reps = 9;
    tb_reason why;
    if (!tb_gpu_available(&why)) {
        printf("SKIP: no GPU (%s)\n", tb_reason_name(why));
        return 77;
    }
    printf("copy threads %d; unpacks of >= 4 MiB into C with ordinary or streaming stores, "
           "alternating; median of %d\n", tb_pool_size(), reps);
    printf("%-6s %12s %12s %8s   %s\n", "n", "memcpy ms", "stream ms", "gain", "spans of the last streaming call (h2d / kernel / d2h ms)");
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int n = atoi(tok);
        size_t nn = (size_t)n * n;
        float *A = malloc(nn * 4), *B = malloc(nn * 4), *C = malloc(nn * 4);
        if (!A || !B || !C)
            return 1;
        for (size_t i = 0; i < nn; i++) {
            A[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f + 1e-3f;
            B[i] = (float)((i * 40503u) % 1999) / 1000.0f - 1.0f + 1e-3f;
            C[i] = 1.0f;
        }
        tb_problem p = {n, n, n, 0, 0, 1.0f, 0.0f, A, (size_t)n, B, (size_t)n, C, (size_t)n, TB_SINGLE, 0.0, 0.0, TB_R_gemm};
        double t[2][64];
        tb_gpu_times gt;
        memset(&gt, 0, sizeof gt);
        tb_gpu_gemm(&p, &gt);   /* warm-up: buffers, staging, pool */
        for (int r = 0; r < reps; r++)
            for (int mode = 0; mode < 2; mode++) {
                tb_copy_nontemporal = mode;
                memset(&gt, 0, sizeof gt);
                double t0 = tb_now();
                if (tb_gpu_gemm(&p, &gt) != TB_STAGE_NONE) {
                    printf("%-6d GPU call failed\n", n);
                    return 1;
                }
                t[mode][r] = tb_now() - t0;
            }
        double err = check(A, B, C, n);
        qsort(t[0], (size_t)reps, sizeof(double), cmp_double);
        qsort(t[1], (size_t)reps, sizeof(double), cmp_double);
        double m0 = t[0][reps / 2], m1 = t[1][reps / 2];
        printf("%-6d %12.3f %12.3f %7.2fx   %.2f / %.2f / %.2f   (max rel err %.1e)\n", n, m0 * 1e3,
               m1 * 1e3, m0 / m1, gt.h2d_s * 1e3, gt.kernel_s * 1e3, gt.d2h_s * 1e3, err);
        fflush(stdout);
        free(A);
        free(B);
        free(C);
        if (!(err < 1e-5))
            return 1;
    }
    return 0;
}
