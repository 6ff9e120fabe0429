/* bench/bench_repeat.c - a plain BLAS client (linked to OpenBLAS, knows
 * nothing of GPUs or of libtiledblas) that calls cblas_sgemm many times on
 * the same buffers, as an iterative program does. Run it as it is, and under
 * LD_PRELOAD=libtiledblas.so, and compare (scripts/bench_repeat.sh does).
 *
 * The pattern: A (m x k), B (k x n) and C (m x n) are allocated once and
 * filled with random values (never zero: magnitudes in [0.5, 1), random
 * signs; C too, though the first pass never reads it). Then, on the same
 * three buffers, row-major, no transposes, alpha = 1:
 *   pass 1, beta = 0: R calls C = A B          (a forward product recomputed
 *                                               every iteration)
 *   pass 2, beta = 1: R calls C = A B + C      (gradient accumulation over
 *                                               micro-batches)
 * so after both passes C = (R + 1) A B exactly. Every call is timed on its
 * own (wall clock around the call); printed per pass and for all calls:
 * the first call (under the preload it includes starting CUDA), the median,
 * min and max of the rest, and the total.
 *
 * The result is checked twice against one float64 reference of A B over a
 * sample of rows (first, last and evenly spaced between): after pass 1
 * against A B, after pass 2 against (R + 1) A B. Each check prints the max
 * relative error (max |C - ref| / max |ref| over the sample) and fails when
 *  - any element is outside the fp32 bound: for one call
 *    2 (k + 2) FLT_EPSILON sum_p |a_ip| |b_pj| (the bound of
 *    tests/sgemm_check.c), summed over the calls that built C (the t-th
 *    accumulating call also adds |C| <= t sum |a||b| to its bound), or
 *  - the normwise relative error ||C - ref|| / ||ref|| over the sample
 *    exceeds 4 sqrt(k) (calls + 1) FLT_EPSILON (random rounding grows like
 *    sqrt(k), not k); this is the check that sees one call of the
 *    accumulation lost or doubled (an error of about 1 / (R + 1)), which the
 *    worst-case elementwise bound is too loose to see at large k.
 * Exit status: 0 when both checks pass, 1 when one fails, 2 for bad usage.
 *
 * Usage: bench_repeat [--size N | --m M --n N --k K] [--calls R] [--rows S] [--seed X]
 *                     [--fortran]
 *   defaults: m = n = k = 4096, R = 20 (per pass), S = 32 checked rows, X = 1.
 *   --fortran makes the same calls through the Fortran sgemm_ (C^T = B^T A^T,
 *   column-major), the interface a preload such as NVBLAS intercepts.
 * The last line, "summary: ...", is for scripts. */
#define _GNU_SOURCE
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"

/* The Fortran interface, as OpenBLAS exports it. */
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

/* C = A B + beta C, row-major, packed, through CBLAS or through Fortran. */
static void gemm(int fortran, int m, int n, int k, const float *A, const float *B, float beta,
                 float *C)
{
    if (fortran) {
        /* Row-major C = A B is column-major C^T = B^T A^T: the same memory. */
        float one = 1.0f;
        sgemm_("N", "N", &n, &m, &k, &one, B, &n, A, &k, &beta, C, &n, 1, 1);
    } else {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, beta,
                    C, n);
    }
}

#ifdef _OPENMP
#define PARALLEL_FOR _Pragma("omp parallel for schedule(dynamic)")
#else
#define PARALLEL_FOR
#endif

/* Random values with magnitude in [0.5, 1) and a random sign: never zero. */
static void fill(float *x, size_t n, unsigned long long seed)
{
    unsigned long long s = seed * 0x9e3779b97f4a7c15ull + 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float mag = 0.5f + 0.5f * (float)((s >> 40) * (1.0 / 16777216.0));
        x[i] = (s >> 39) & 1 ? -mag : mag;
    }
}

/* Per-call times of one group of calls: first, then median/min/max of the rest. */
typedef struct stats {
    double first, median, min, max, total;
    int calls;
} stats;

static stats summarise(const double *t, int n)
{
    stats s = {t[0], NAN, NAN, NAN, 0.0, n};
    for (int i = 0; i < n; i++)
        s.total += t[i];
    if (n > 1) {
        double *rest = malloc((size_t)(n - 1) * sizeof *rest);
        memcpy(rest, t + 1, (size_t)(n - 1) * sizeof *rest);
        qsort(rest, (size_t)(n - 1), sizeof *rest, cmp_double);
        int r = n - 1;
        s.median = r % 2 ? rest[r / 2] : 0.5 * (rest[r / 2 - 1] + rest[r / 2]);
        s.min = rest[0];
        s.max = rest[r - 1];
        free(rest);
    }
    return s;
}

static void print_row(const char *name, stats s)
{
    printf("%-16s %6d %11.3f %11.3f %11.3f %11.3f %12.3f\n", name, s.calls, s.first * 1e3,
           s.median * 1e3, s.min * 1e3, s.max * 1e3, s.total * 1e3);
}

/* The sampled rows: first, last and evenly spaced between. */
static int sample_row(int j, int rows, int m)
{
    return rows == 1 ? 0 : (int)((long long)j * (m - 1) / (rows - 1));
}

/* Checks the sampled rows of C against calls * ref (ref = A B in float64,
 * mag = sum |a||b|, both rows x n). `calls` is the number of calls that
 * built C: 1 after pass 1, R + 1 after pass 2 (the last call of pass 1 and
 * the R accumulating ones). C is the whole m x n matrix, or with `packed`
 * only the sampled rows, one after another. Returns 0 when C is within both
 * bounds. */
static int check(const char *when, const float *C, int packed, const double *ref,
                 const double *mag, int m, int n, int k, int rows, int calls)
{
    double scale = calls, max_err = 0.0, max_ref = 0.0, d2 = 0.0, r2 = 0.0, worst = 0.0;
    /* Sum over the calls t = 0 .. calls-1 of 2 (k + 2) eps (mag + t mag). */
    double gamma = 2.0 * (k + 2) * FLT_EPSILON * (calls * (calls + 1) / 2.0);
    double norm_limit = 4.0 * sqrt((double)k) * (calls + 1) * FLT_EPSILON;
    long bad = 0;
    for (int j = 0; j < rows; j++) {
        int i = sample_row(j, rows, m);
        const float *row = C + (size_t)(packed ? j : i) * n;
        for (int c = 0; c < n; c++) {
            double want = scale * ref[(size_t)j * n + c], got = row[c];
            double err = fabs(got - want), bound = gamma * mag[(size_t)j * n + c] + 1e-30;
            if (!(err <= bound)) {   /* NaN fails too */
                if (bad++ < 3)
                    fprintf(stderr, "bench_repeat: %s: C(%d,%d) = %.9g, want %.9g (bound %.3g)\n",
                            when, i, c, got, want, bound);
            }
            /* A NaN, once seen, stays in max_err and worst. */
            if (isnan(err) || err > max_err)
                max_err = err;
            if (isnan(err) || err / bound > worst)
                worst = err / bound;
            max_ref = fabs(want) > max_ref ? fabs(want) : max_ref;
            d2 += err * err;
            r2 += want * want;
        }
    }
    double max_rel = max_err / (max_ref > 0.0 ? max_ref : 1e-300);
    double norm_rel = sqrt(d2 / (r2 > 0.0 ? r2 : 1e-300));
    int ok = bad == 0 && norm_rel <= norm_limit;
    printf("check %-14s %d rows x %d: max rel err %.2e, normwise %.2e (limit %.2e), "
           "worst element %.1e of its fp32 bound: %s\n", when, rows, n, max_rel, norm_rel,
           norm_limit, worst, ok ? "ok" : "FAIL");
    if (bad)
        fprintf(stderr, "bench_repeat: %s: %ld of %ld checked elements outside the fp32 bound\n",
                when, bad, (long)rows * n);
    else if (!ok)
        fprintf(stderr, "bench_repeat: %s: normwise error %.3g above %.3g\n", when, norm_rel,
                norm_limit);
    return ok ? 0 : 1;
}

static int positive(const char *opt, const char *v, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || x < 1 || x > 1000000) {
        fprintf(stderr, "bench_repeat: %s wants a positive integer, not '%s'\n", opt, v);
        return 0;
    }
    *out = (int)x;
    return 1;
}

int main(int argc, char **argv)
{
    int m = 4096, n = 4096, k = 4096, R = 20, rows = 32, seed = 1, fortran = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            printf("usage: bench_repeat [--size N | --m M --n N --k K] [--calls R] [--rows S] [--seed X]\n"
                   "                    [--fortran]\n"
                   "R calls C = A B (beta 0), then R calls C = A B + C (beta 1), on the same\n"
                   "buffers; per-call times; C checked against float64 (defaults 4096, 20, 32, 1);\n"
                   "--fortran: through sgemm_ instead of cblas_sgemm\n");
            return 0;
        }
        if (!strcmp(o, "--fortran")) {
            fortran = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_repeat: %s: missing value (or unknown option)\n", o);
            return 2;
        }
        const char *v = argv[++i];
        int ok;
        if (!strcmp(o, "--size")) {
            ok = positive(o, v, &m);
            n = k = m;
        } else if (!strcmp(o, "--m")) ok = positive(o, v, &m);
        else if (!strcmp(o, "--n")) ok = positive(o, v, &n);
        else if (!strcmp(o, "--k")) ok = positive(o, v, &k);
        else if (!strcmp(o, "--calls")) ok = positive(o, v, &R);
        else if (!strcmp(o, "--rows")) ok = positive(o, v, &rows);
        else if (!strcmp(o, "--seed")) ok = positive(o, v, &seed);
        else {
            fprintf(stderr, "bench_repeat: unknown option %s (try --help)\n", o);
            return 2;
        }
        if (!ok)
            return 2;
    }
    if (rows > m)
        rows = m;

    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
    double *ref = malloc((size_t)rows * n * sizeof *ref), *mag = malloc((size_t)rows * n * sizeof *mag);
    double *t = malloc((size_t)2 * R * sizeof *t);
    if (!A || !B || !C || !ref || !mag || !t) {
        fprintf(stderr, "bench_repeat: out of memory for m=%d n=%d k=%d\n", m, n, k);
        return 1;
    }
    fill(A, na, 3ull * seed);
    fill(B, nb, 3ull * seed + 1);
    fill(C, nc, 3ull * seed + 2);

    printf("bench_repeat: m=%d n=%d k=%d, %s, alpha 1, %d calls with beta 0 then %d "
           "with beta 1, same buffers\n", m, n, k,
           fortran ? "sgemm_ (column-major C^T = B^T A^T)" : "cblas_sgemm row-major NN", R, R);
    fflush(stdout);

    for (int i = 0; i < R; i++) {
        double t0 = now();
        gemm(fortran, m, n, k, A, B, 0.0f, C);
        t[i] = now() - t0;
    }
    /* Keep pass 1's sampled rows: they are checked after the reference is built. */
    float *C1 = malloc((size_t)rows * n * sizeof *C1);
    if (!C1) {
        fprintf(stderr, "bench_repeat: out of memory\n");
        return 1;
    }
    for (int j = 0; j < rows; j++)
        memcpy(C1 + (size_t)j * n, C + (size_t)sample_row(j, rows, m) * n, (size_t)n * sizeof *C1);
    for (int i = 0; i < R; i++) {
        double t0 = now();
        gemm(fortran, m, n, k, A, B, 1.0f, C);
        t[R + i] = now() - t0;
    }

    stats s1 = summarise(t, R), s2 = summarise(t + R, R), all = summarise(t, 2 * R);
    printf("%-16s %6s %11s %11s %11s %11s %12s\n", "calls", "n", "first ms", "median ms",
           "min ms", "max ms", "total ms");
    print_row("beta=0", s1);
    print_row("beta=1 (accum)", s2);
    print_row("all", all);
    printf("(median, min and max are over the calls after the first; %.1f GFLOP/s over all "
           "calls)\n", 2.0 * m * n * k * 2 * R / all.total * 1e-9);
    fflush(stdout);

    /* float64 reference of the sampled rows of A B, and sum |a||b|. */
    PARALLEL_FOR
    for (int j = 0; j < rows; j++) {
        const float *a = A + (size_t)sample_row(j, rows, m) * k;
        double *r = ref + (size_t)j * n, *g = mag + (size_t)j * n;
        for (int c = 0; c < n; c++)
            r[c] = g[c] = 0.0;
        for (int p = 0; p < k; p++) {
            double ap = a[p];
            const float *b = B + (size_t)p * n;
            for (int c = 0; c < n; c++) {
                r[c] += ap * b[c];
                g[c] += fabs(ap * b[c]);
            }
        }
    }
    int bad = check("after beta=0", C1, 1, ref, mag, m, n, k, rows, 1);
    bad |= check("after beta=1", C, 0, ref, mag, m, n, k, rows, R + 1);
    printf("summary: m=%d n=%d k=%d calls=%d first_ms=%.3f median_ms=%.3f min_ms=%.3f "
           "max_ms=%.3f total_ms=%.3f check=%s\n", m, n, k, 2 * R, all.first * 1e3,
           all.median * 1e3, all.min * 1e3, all.max * 1e3, all.total * 1e3, bad ? "FAIL" : "ok");
    free(A); free(B); free(C); free(C1); free(ref); free(mag); free(t);
    return bad;
}
