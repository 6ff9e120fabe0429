/* bench/bench_level3.c - the routines but gemm end to end: one call from
 * host arrays through libtiledblas against OpenBLAS's in the same process,
 * for each routine, precision and size asked: symm, hemm (Left Upper),
 * syrk, herk, syr2k, her2k (Upper NoTrans), trmm, trsm (Left Upper NoTrans
 * NonUnit), row-major, every matrix n x n, alpha 1, beta 0.5 (herk's and
 * her2k's real). The library routes each call as TILEDBLAS_MODE says (gpu
 * to time the GPU route). Columns: the median wall time of each side, the
 * speed-up, the library's TFLOP/s (tb_call_flops' count: n^3, 2 n^3 for
 * symm, hemm, syr2k and her2k, four times that complex), and the relative
 * Frobenius difference between the two results over what the routine
 * writes (syrk's family: C's upper triangle). trsm's T has a diagonal of
 * n + 1 and the rest in [-1, 1): well conditioned.
 * Usage: bench_level3 LIBTILEDBLAS [--sizes 4096,8192] [--reps N]
 *                     [--precs s,d,c,z] [--routines symm,...,trsm] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { ROW = 101, NOTRANS = 111, UPPER = 121, NONUNIT = 131, LEFT = 141 };

/* The CBLAS signatures, with every scalar by pointer (complex) or by value
 * as a double or float (real); one function per shape and scalar kind. */
typedef void (*symm_d)(int, int, int, int, int, double, const void *, int, const void *, int,
                       double, void *, int);
typedef void (*symm_s)(int, int, int, int, int, float, const void *, int, const void *, int,
                       float, void *, int);
typedef void (*symm_z)(int, int, int, int, int, const void *, const void *, int, const void *, int,
                       const void *, void *, int);
typedef void (*syrk_d)(int, int, int, int, int, double, const void *, int, double, void *, int);
typedef void (*syrk_s)(int, int, int, int, int, float, const void *, int, float, void *, int);
typedef void (*syrk_z)(int, int, int, int, int, const void *, const void *, int, const void *,
                       void *, int);
typedef void (*syr2k_d)(int, int, int, int, int, double, const void *, int, const void *, int,
                        double, void *, int);
typedef void (*syr2k_s)(int, int, int, int, int, float, const void *, int, const void *, int,
                        float, void *, int);
typedef void (*syr2k_z)(int, int, int, int, int, const void *, const void *, int, const void *,
                        int, const void *, void *, int);
typedef void (*her2k_z)(int, int, int, int, int, const void *, const void *, int, const void *,
                        int, double, void *, int);
typedef void (*her2k_c)(int, int, int, int, int, const void *, const void *, int, const void *,
                        int, float, void *, int);
typedef void (*trmm_d)(int, int, int, int, int, int, int, double, const void *, int, void *, int);
typedef void (*trmm_s)(int, int, int, int, int, int, int, float, const void *, int, void *, int);
typedef void (*trmm_z)(int, int, int, int, int, int, int, const void *, const void *, int, void *,
                       int);

static const char *const routines[] = {"symm", "hemm", "syrk", "herk", "syr2k", "her2k", "trmm",
                                       "trsm"};

/* One call of routine r (an index of routines[]) in precision x (s d c z)
 * of order n, through fn. */
static void call(void *fn, int r, char x, int n, const void *A, const void *B, void *C)
{
    const int cx = x == 'c' || x == 'z', dbl = x == 'd' || x == 'z';
    const double one[2] = {1.0, 0.0}, half[2] = {0.5, 0.0};
    const float onef[2] = {1.0f, 0.0f}, halff[2] = {0.5f, 0.0f};
    const void *al = dbl ? (const void *)one : (const void *)onef;
    const void *be = dbl ? (const void *)half : (const void *)halff;
    switch (r) {
    case 0: case 1:   /* symm, hemm */
        if (cx)
            ((symm_z)fn)(ROW, LEFT, UPPER, n, n, al, A, n, B, n, be, C, n);
        else if (dbl)
            ((symm_d)fn)(ROW, LEFT, UPPER, n, n, 1.0, A, n, B, n, 0.5, C, n);
        else
            ((symm_s)fn)(ROW, LEFT, UPPER, n, n, 1.0f, A, n, B, n, 0.5f, C, n);
        break;
    case 2: case 3:   /* syrk, herk (real alpha and beta) */
        if (r == 3)
            dbl ? ((syrk_d)fn)(ROW, UPPER, NOTRANS, n, n, 1.0, A, n, 0.5, C, n)
                : ((syrk_s)fn)(ROW, UPPER, NOTRANS, n, n, 1.0f, A, n, 0.5f, C, n);
        else if (cx)
            ((syrk_z)fn)(ROW, UPPER, NOTRANS, n, n, al, A, n, be, C, n);
        else if (dbl)
            ((syrk_d)fn)(ROW, UPPER, NOTRANS, n, n, 1.0, A, n, 0.5, C, n);
        else
            ((syrk_s)fn)(ROW, UPPER, NOTRANS, n, n, 1.0f, A, n, 0.5f, C, n);
        break;
    case 4: case 5:   /* syr2k, her2k (real beta) */
        if (r == 5)
            dbl ? ((her2k_z)fn)(ROW, UPPER, NOTRANS, n, n, al, A, n, B, n, 0.5, C, n)
                : ((her2k_c)fn)(ROW, UPPER, NOTRANS, n, n, al, A, n, B, n, 0.5f, C, n);
        else if (cx)
            ((syr2k_z)fn)(ROW, UPPER, NOTRANS, n, n, al, A, n, B, n, be, C, n);
        else if (dbl)
            ((syr2k_d)fn)(ROW, UPPER, NOTRANS, n, n, 1.0, A, n, B, n, 0.5, C, n);
        else
            ((syr2k_s)fn)(ROW, UPPER, NOTRANS, n, n, 1.0f, A, n, B, n, 0.5f, C, n);
        break;
    default:          /* trmm, trsm: B (here C) in place */
        if (cx)
            ((trmm_z)fn)(ROW, LEFT, UPPER, NOTRANS, NONUNIT, n, n, al, A, n, C, n);
        else if (dbl)
            ((trmm_d)fn)(ROW, LEFT, UPPER, NOTRANS, NONUNIT, n, n, 1.0, A, n, C, n);
        else
            ((trmm_s)fn)(ROW, LEFT, UPPER, NOTRANS, NONUNIT, n, n, 1.0f, A, n, C, n);
        break;
    }
}

/* The median seconds of reps calls (after one more, not timed), C reset
 * from C0 before each. */
static double time_calls(void *fn, int r, char x, int n, const void *A, const void *B, void *C,
                         const void *C0, size_t bytes, int reps)
{
    double t[64];
    for (int i = 0; i <= reps; i++) {
        memcpy(C, C0, bytes);
        const double t0 = now();
        call(fn, r, x, n, A, B, C);
        if (i > 0)
            t[i - 1] = now() - t0;
    }
    return median(t, reps);
}

/* ||X - Y|| / ||Y|| over what routine r writes (syrk's family: the upper
 * triangle of the row-major n x n matrix), in the precision's parts. */
static double rel_diff(int r, char x, int n, const void *X, const void *Y)
{
    const int parts = x == 'c' || x == 'z' ? 2 : 1, dbl = x == 'd' || x == 'z';
    const int tri = r >= 2 && r <= 5;
    double d2 = 0.0, y2 = 0.0;
    for (size_t i = 0; i < (size_t)n; i++)
        for (size_t j = tri ? i : 0; j < (size_t)n; j++)
            for (int q = 0; q < parts; q++) {
                const size_t at = (i * (size_t)n + j) * (size_t)parts + (size_t)q;
                const double a = dbl ? ((const double *)X)[at] : ((const float *)X)[at];
                const double b = dbl ? ((const double *)Y)[at] : ((const float *)Y)[at];
                d2 += (a - b) * (a - b);
                y2 += b * b;
            }
    return y2 > 0.0 ? sqrt(d2 / y2) : sqrt(d2);
}

static int listed(const char *list, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        const size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == len && !strncmp(p, name, l))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *sizes = "4096,8192", *precs = "s,d,c,z", *which = NULL;
    int reps = 3;
    if (argc < 2) {
        fprintf(stderr, "usage: bench_level3 LIBTILEDBLAS [--sizes 4096,8192] [--reps N] "
                        "[--precs s,d,c,z] [--routines symm,...]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--precs") && i + 1 < argc)
            precs = argv[++i];
        else if (!strcmp(argv[i], "--routines") && i + 1 < argc)
            which = argv[++i];
        else {
            fprintf(stderr, "bench_level3: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1 || reps > 63)
        reps = 3;
    void *ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL);
    void *tb = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!ob || !tb) {
        fprintf(stderr, "bench_level3: %s\n", dlerror());
        return 1;
    }
    int (*gpu_start)(double) = (int (*)(double))dlsym(tb, "tiledblas_gpu_start");
    if (gpu_start)
        gpu_start(60.0);   /* CUDA's start is no call's time */
    const char *mode = getenv("TILEDBLAS_MODE");
    printf("bench_level3: row-major n x n, library mode %s, median of %d\n", mode ? mode : "auto", reps);
    printf("%-8s %6s %12s %12s %8s %10s %10s\n", "routine", "n", "OpenBLAS ms", "library ms",
           "speedup", "lib TF/s", "rel diff");
    char sizes_copy[256];
    snprintf(sizes_copy, sizeof sizes_copy, "%s", sizes);
    for (char *tok = strtok(sizes_copy, ","); tok; tok = strtok(NULL, ",")) {
        const int n = atoi(tok);
        if (n <= 0) {
            fprintf(stderr, "bench_level3: bad size %s\n", tok);
            return 2;
        }
        for (const char *x = "sdcz"; *x; x++) {
            const char px[2] = {*x, 0};
            if (!listed(precs, px))
                continue;
            const int cx = *x == 'c' || *x == 'z', dbl = *x == 'd' || *x == 'z';
            const size_t es = (dbl ? 8 : 4) * (cx ? 2 : 1), elems = (size_t)n * n * (cx ? 2 : 1);
            const size_t bytes = (size_t)n * n * es;
            void *A = malloc(bytes), *B = malloc(bytes), *C0 = malloc(bytes), *C1 = malloc(bytes),
                 *C2 = malloc(bytes);
            if (!A || !B || !C0 || !C1 || !C2) {
                fprintf(stderr, "bench_level3: n %d: out of host memory\n", n);
                return 1;
            }
            fill_uniform_es(A, elems, dbl ? 8 : 4, 1);
            fill_uniform_es(B, elems, dbl ? 8 : 4, 2);
            fill_uniform_es(C0, elems, dbl ? 8 : 4, 3);
            for (size_t i = 0; i < (size_t)n; i++) {   /* trsm's diagonal: n + 1 */
                const size_t at = (i * (size_t)n + i) * (cx ? 2 : 1);
                if (dbl)
                    ((double *)A)[at] = n + 1.0;
                else
                    ((float *)A)[at] = (float)(n + 1.0);
            }
            for (int r = 0; r < 8; r++) {
                if ((which && !listed(which, routines[r])) || ((r == 1 || r == 3 || r == 5) && !cx))
                    continue;
                char name[16];
                snprintf(name, sizeof name, "cblas_%c%s", *x, routines[r]);
                void *fo = dlsym(ob, name), *ft = dlsym(tb, name);
                if (!fo || !ft) {
                    fprintf(stderr, "bench_level3: no %s\n", name);
                    return 1;
                }
                const double to = time_calls(fo, r, *x, n, A, B, C1, C0, bytes, reps);
                const double tt = time_calls(ft, r, *x, n, A, B, C2, C0, bytes, reps);
                const double flop = (double)n * n * n * (r == 0 || r == 1 || r == 4 || r == 5 ? 2.0 : 1.0) *
                                    (cx ? 4.0 : 1.0);
                printf("%c%-7s %6d %12.2f %12.2f %8.2f %10.2f %10.2e\n", *x, routines[r], n,
                       to * 1e3, tt * 1e3, to / tt, flop / tt * 1e-12, rel_diff(r, *x, n, C2, C1));
                fflush(stdout);
            }
            free(A), free(B), free(C0), free(C1), free(C2);
        }
    }
    return 0;
}
