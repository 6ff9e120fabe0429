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
 * --peer NAME: the Fortran routine of the same name that the process sees
 * first (dsyrk_ for dsyrk; under LD_PRELOAD=libnvblas.so NVBLAS's, which
 * catches Fortran names only; without a preload OpenBLAS's own) timed too
 * on the same call in column-major form (bench_l3.h), in three more
 * columns: its time, its time over the library's (above 1: the library is
 * faster) and its result's difference from OpenBLAS's.
 * Timing: the library's median of --reps calls after one untimed call (its
 * device buffers grow to the call); OpenBLAS's and the peer's median of
 * --cpu-reps calls (default --reps), untimed only in the process's first
 * row (their threads, handles and buffers start there; they keep nothing
 * sized by a call). C is reset from the same input before every call.
 * Usage: bench_level3 LIBTILEDBLAS [--sizes 4096,8192] [--reps N] [--cpu-reps N]
 *                     [--precs s,d,c,z] [--routines symm,...,trsm] [--peer NAME] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_l3.h"

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

/* One call of routine r (an index of l3_routines) in precision x (s d c z)
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

/* The same call through the Fortran routine fn, column-major (bench_l3.h). */
static void call_fortran(void *fn, int r, char x, int n, const void *A, const void *B, void *C)
{
    const l3call c = l3_call(r, x, n, A, B, C);
    l3_fortran(fn, &c);
}

typedef void (*caller)(void *fn, int r, char x, int n, const void *A, const void *B, void *C);

/* The median seconds of reps calls through fn by how after `warm` more,
 * not timed, C reset from C0 before each. */
static double time_calls(caller how, void *fn, int r, char x, int n, const void *A, const void *B,
                         void *C, const void *C0, size_t bytes, int reps, int warm)
{
    double t[64];
    for (int i = 0; i < warm + reps; i++) {
        memcpy(C, C0, bytes);
        const double t0 = now();
        how(fn, r, x, n, A, B, C);
        if (i >= warm)
            t[i - warm] = now() - t0;
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

int main(int argc, char **argv)
{
    const char *sizes = "4096,8192", *precs = "s,d,c,z", *which = NULL, *peer = NULL;
    int reps = 3, cpu_reps = 0;
    static const char usage[] = "usage: bench_level3 LIBTILEDBLAS [--sizes 4096,8192] [--reps N] "
                                "[--cpu-reps N] [--precs s,d,c,z] [--routines symm,...] "
                                "[--peer NAME]\n";
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-reps") && i + 1 < argc)
            cpu_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--precs") && i + 1 < argc)
            precs = argv[++i];
        else if (!strcmp(argv[i], "--routines") && i + 1 < argc)
            which = argv[++i];
        else if (!strcmp(argv[i], "--peer") && i + 1 < argc)
            peer = argv[++i];
        else {
            fprintf(stderr, "bench_level3: unknown argument %s\n%s", argv[i], usage);
            return 2;
        }
    }
    if (reps < 1 || reps > 63)
        reps = 3;
    if (cpu_reps < 1 || cpu_reps > 63)
        cpu_reps = reps;
    int ns[16];
    const int nsizes = l3_sizes(sizes, ns, 16);
    if (nsizes < 0) {
        fprintf(stderr, "bench_level3: bad --sizes %s\n", sizes);
        return 2;
    }
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
    printf("bench_level3: row-major n x n, library mode %s, median of %d (OpenBLAS%s: %d)\n",
           mode ? mode : "auto", reps, peer ? " and the peer" : "", cpu_reps);
    if (peer) {
        /* Where the peer's names come from (the first one asked for). */
        Dl_info where = {0};
        void *f = NULL;
        for (int r = 0; r < 8 && !f; r++)
            for (const char *x = "sdcz"; *x && !f; x++) {
                char name[16];
                snprintf(name, sizeof name, "%c%s_", *x, l3_routines[r]);
                if (l3_prec_listed(precs, *x) && l3_exists(r, *x) &&
                    (!which || l3_listed(which, l3_routines[r])))
                    f = dlsym(RTLD_DEFAULT, name);
            }
        printf("peer %s: Fortran names, column-major, from %s\n", peer,
               f && dladdr(f, &where) && where.dli_fname ? where.dli_fname : "(not found)");
    }
    printf("%-8s %6s %12s %12s %8s %10s %10s", "routine", "n", "OpenBLAS ms", "library ms",
           "speedup", "lib TF/s", "rel diff");
    if (peer)
        printf(" %12.12s %9.9s %10.10s", peer, "peer/lib", "peer diff");
    printf("\n");
    int first = 1;   /* OpenBLAS's and the peer's first calls in the process are not timed */
    for (int si = 0; si < nsizes; si++) {
        const int n = ns[si];
        for (const char *x = "sdcz"; *x; x++) {
            if (!l3_prec_listed(precs, *x))
                continue;
            const int cx = *x == 'c' || *x == 'z';
            const size_t bytes = (size_t)n * n * l3_es(*x);
            void *A = malloc(bytes), *B = malloc(bytes), *C0 = malloc(bytes), *C1 = malloc(bytes),
                 *C2 = malloc(bytes), *C3 = peer ? malloc(bytes) : NULL;
            if (!A || !B || !C0 || !C1 || !C2 || (peer && !C3)) {
                fprintf(stderr, "bench_level3: n %d: out of host memory\n", n);
                return 1;
            }
            l3_inputs(*x, n, A, B, C0);
            for (int r = 0; r < 8; r++) {
                if ((which && !l3_listed(which, l3_routines[r])) || !l3_exists(r, *x))
                    continue;
                char name[16], fname[16];
                snprintf(name, sizeof name, "cblas_%c%s", *x, l3_routines[r]);
                snprintf(fname, sizeof fname, "%c%s_", *x, l3_routines[r]);
                void *fo = dlsym(ob, name), *ft = dlsym(tb, name);
                void *fp = peer ? dlsym(RTLD_DEFAULT, fname) : NULL;
                if (!fo || !ft || (peer && !fp)) {
                    fprintf(stderr, "bench_level3: no %s\n", !fo || !ft ? name : fname);
                    return 1;
                }
                const double to = time_calls(call, fo, r, *x, n, A, B, C1, C0, bytes, cpu_reps, first);
                const double tt = time_calls(call, ft, r, *x, n, A, B, C2, C0, bytes, reps, 1);
                const double tp = peer ? time_calls(call_fortran, fp, r, *x, n, A, B, C3, C0, bytes,
                                                    cpu_reps, first)
                                       : 0.0;
                first = 0;
                const double flop = (double)n * n * n * (r == 0 || r == 1 || r == 4 || r == 5 ? 2.0 : 1.0) *
                                    (cx ? 4.0 : 1.0);
                printf("%c%-7s %6d %12.2f %12.2f %8.2f %10.2f %10.2e", *x, l3_routines[r], n,
                       to * 1e3, tt * 1e3, to / tt, flop / tt * 1e-12, rel_diff(r, *x, n, C2, C1));
                if (peer)
                    printf(" %12.2f %9.2f %10.2e", tp * 1e3, tp / tt, rel_diff(r, *x, n, C3, C1));
                printf("\n");
                fflush(stdout);
            }
            free(A), free(B), free(C0), free(C1), free(C2), free(C3);
        }
    }
    return 0;
}
