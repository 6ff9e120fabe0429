/* tests/sgemm_check.c - an ordinary BLAS program (linked to OpenBLAS, knows
 * nothing of libtiledblas) that makes random GEMM calls and checks each
 * against a long-double reference: every layout and transpose, padded
 * leading dimensions, alpha/beta including 0, NaN in C when beta = 0, and
 * sentinels around C's m x n window. The element type is the run's: single
 * precision (cblas_sgemm, sgemm_), or with --double double precision
 * (cblas_dgemm, dgemm_), each against its own epsilon. Run it with and
 * without the preload. */
#define _GNU_SOURCE
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fortran_gemm.h"

#define SENTINEL 12345.678f     /* exact in float and in double */

typedef struct opts {
    int calls, threads, max_dim, min_dim, do_fork, only_rownn;
    int api;                   /* 0 cblas_?gemm, 1 Fortran ?gemm_, 2 a mix */
    int openmp;                /* threads from an OpenMP parallel loop, not pthreads */
    unsigned seed;
    int dbl;                   /* the element type: 0 float, 1 double (--double) */
} opts;

/* The names the run's calls go by, [dbl][api]. */
static const char *const api_names[2][3] = {
    {"cblas_sgemm", "sgemm_", "cblas_sgemm and sgemm_"},
    {"cblas_dgemm", "dgemm_", "cblas_dgemm and dgemm_"},
};

/* Matrices are untyped buffers of the run's element type: only these two
 * read and write them. */
static size_t elem_size(const opts *o) { return o->dbl ? sizeof(double) : sizeof(float); }
static long double get(const opts *o, const void *p, size_t i)
{
    return o->dbl ? ((const double *)p)[i] : ((const float *)p)[i];
}
static void put(const opts *o, void *p, size_t i, long double v)
{
    if (o->dbl)
        ((double *)p)[i] = (double)v;
    else
        ((float *)p)[i] = (float)v;
}

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: small, fixed-seed reproducible */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int rng_int(uint64_t *s, int lo, int hi) { return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1)); }
/* A value in [-1, 1) with every bit of the element type's mantissa random:
 * a double path that rounded its operands to float would show. */
static double rng_value(uint64_t *s, const opts *o)
{
    double u = (rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
    return o->dbl ? u * 2.0 - 1.0 : (float)u * 2.0f - 1.0f;
}

/* Element (i, j) of a matrix stored with the given layout and ld. */
static size_t at(int layout, int ld, int i, int j)
{
    return layout == CblasRowMajor ? (size_t)i * ld + j : (size_t)j * ld + i;
}

/* The call itself, in the run's precision and the chosen interface. */
static void gemm(const opts *o, int fortran, int layout, int ta, int tb, int m, int n, int k,
                 double alpha, const void *A, int lda, const void *B, int ldb, double beta,
                 void *C, int ldc, uint64_t *s)
{
    if (fortran) {
        /* Lower case and 'C' are legal too; use them now and then. */
        const char *tch = rng_int(s, 0, 1) ? "NT" : "nc";
        char fa = tch[ta != CblasNoTrans], fb = tch[tb != CblasNoTrans];
        if (o->dbl) {
            dgemm_(&fa, &fb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
        } else {
            float al = (float)alpha, be = (float)beta;
            sgemm_(&fa, &fb, &m, &n, &k, &al, A, &lda, B, &ldb, &be, C, &ldc, 1, 1);
        }
    } else if (o->dbl) {
        cblas_dgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    } else {
        cblas_sgemm(layout, ta, tb, m, n, k, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc);
    }
}

/* One random call; returns 0 when it checks out, 1 otherwise (and prints why). */
static int one_call(uint64_t *s, const opts *o, int id)
{
    int fortran = o->api == 1 || (o->api == 2 && rng_int(s, 0, 1));
    int layout = (o->only_rownn || rng_int(s, 0, 1) == 0) ? CblasRowMajor : CblasColMajor;
    if (fortran)
        layout = CblasColMajor;   /* Fortran is column-major */
    int ta = (o->only_rownn || rng_int(s, 0, 1) == 0) ? CblasNoTrans : CblasTrans;
    int tb = (o->only_rownn || rng_int(s, 0, 1) == 0) ? CblasNoTrans : CblasTrans;
    int m = rng_int(s, o->min_dim, o->max_dim), n = rng_int(s, o->min_dim, o->max_dim);
    int k = rng_int(s, o->min_dim, o->max_dim);
    if (rng_int(s, 0, 15) == 0) m = 0;
    if (rng_int(s, 0, 15) == 0) k = 0;
    /* Double runs also draw scalars that float cannot hold (0.1, -0.3). */
    static const double alphas[] = {1.0, -1.0, 0.5, 0.0, 2.25, 0.1};
    static const double betas[] = {0.0, 1.0, -0.75, 0.0, 3.0, -0.3};
    int last = o->dbl ? 5 : 4;
    double alpha = alphas[rng_int(s, 0, last)], beta = betas[rng_int(s, 0, last)];

    /* Stored shapes in the call's layout: A is rows_a x cols_a, etc. */
    int ar = ta == CblasNoTrans ? m : k, ac = ta == CblasNoTrans ? k : m;
    int br = tb == CblasNoTrans ? k : n, bc = tb == CblasNoTrans ? n : k;
    int pad = rng_int(s, 0, 3) == 0 ? 0 : rng_int(s, 1, 17);
    int lda = (layout == CblasRowMajor ? ac : ar) + pad;
    int ldb = (layout == CblasRowMajor ? bc : br) + rng_int(s, 0, 5);
    int ldc = (layout == CblasRowMajor ? n : m) + rng_int(s, 0, 9);
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    if (ldc < 1) ldc = 1;
    size_t na = (size_t)lda * (layout == CblasRowMajor ? ar : ac) + 1;
    size_t nb = (size_t)ldb * (layout == CblasRowMajor ? br : bc) + 1;
    /* C gets a spare ld-row at the end: all of it must stay a sentinel. */
    size_t nc = (size_t)ldc * ((layout == CblasRowMajor ? m : n) + 1);
    size_t es = elem_size(o);
    void *A = malloc(na * es), *B = malloc(nb * es), *C = malloc(nc * es);
    for (size_t i = 0; i < na; i++) put(o, A, i, rng_value(s, o));
    for (size_t i = 0; i < nb; i++) put(o, B, i, rng_value(s, o));
    for (size_t i = 0; i < nc; i++) put(o, C, i, SENTINEL);
    int nan_c = beta == 0.0 && rng_int(s, 0, 1);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            put(o, C, at(layout, ldc, i, j), nan_c ? NAN : rng_value(s, o));

    /* op(A) as m rows of k and op(B) as n rows of k, in long double, so that
     * the reference reads both in order. */
    long double *opa = malloc(((size_t)m * k + 1) * sizeof *opa);
    long double *opb = malloc(((size_t)n * k + 1) * sizeof *opb);
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++)
            opa[(size_t)i * k + p] = get(o, A, ta == CblasNoTrans ? at(layout, lda, i, p) : at(layout, lda, p, i));
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++)
            opb[(size_t)j * k + p] = get(o, B, tb == CblasNoTrans ? at(layout, ldb, p, j) : at(layout, ldb, j, p));
    /* The reference, and a per-element bound of 2 (k + 2) eps times the
     * magnitudes summed: the worst-case rounding of a k-term dot product,
     * alpha, beta and the final sum, in the element type. */
    const long double eps = o->dbl ? DBL_EPSILON : FLT_EPSILON;
    long double *ref = malloc(((size_t)m * n + 1) * sizeof *ref), *bound = malloc(((size_t)m * n + 1) * sizeof *bound);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double acc = 0.0L, mag = 0.0L;
            const long double *a = opa + (size_t)i * k, *b = opb + (size_t)j * k;
            if (alpha != 0.0)
                for (int p = 0; p < k; p++) {
                    acc += a[p] * b[p];
                    mag += fabsl(a[p] * b[p]);
                }
            long double c0 = beta == 0.0 ? 0.0L : get(o, C, at(layout, ldc, i, j));
            ref[(size_t)i * n + j] = alpha * acc + beta * c0;
            bound[(size_t)i * n + j] = 2.0L * (k + 2) * eps * (fabsl(alpha) * mag + fabsl(beta * c0)) + 1e-300L;
        }

    gemm(o, fortran, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, s);

    int bad = 0;
    for (int i = 0; i < m && !bad; i++)
        for (int j = 0; j < n && !bad; j++) {
            long double got = get(o, C, at(layout, ldc, i, j)), want = ref[(size_t)i * n + j];
            if (!(fabsl(got - want) <= bound[(size_t)i * n + j])) {
                fprintf(stderr, "call %d: %s %s %c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g: "
                        "C(%d,%d)=%.*Lg want %.*Lg (bound %.3Lg)\n", id, api_names[o->dbl][fortran],
                        layout == CblasRowMajor ? "RowMajor" : "ColMajor",
                        ta == CblasNoTrans ? 'N' : 'T', tb == CblasNoTrans ? 'N' : 'T',
                        m, n, k, lda, ldb, ldc, alpha, beta, i, j, o->dbl ? 17 : 9, got,
                        o->dbl ? 17 : 9, want, bound[(size_t)i * n + j]);
                bad = 1;
            }
        }
    /* Nothing outside the window: count sentinels (bit for bit), which must
     * be all the elements that are not in the m x n window. */
    char sentinel[sizeof(double)];
    put(o, sentinel, 0, SENTINEL);
    size_t sentinels = 0;
    for (size_t i = 0; i < nc; i++)
        sentinels += memcmp((char *)C + i * es, sentinel, es) == 0;
    if (!bad && sentinels != nc - (size_t)m * n) {
        fprintf(stderr, "call %d: %zu elements outside C's %d x %d window were written\n",
                id, nc - (size_t)m * n - sentinels, m, n);
        bad = 1;
    }
    free(A); free(B); free(C); free(opa); free(opb); free(ref); free(bound);
    return bad;
}
typedef struct worker { const opts *o; int index, calls, failed; } worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    uint64_t s = w->o->seed * 1000003ull + (uint64_t)w->index;
    for (int i = 0; i < w->calls; i++)
        w->failed += one_call(&s, w->o, w->index * 100000 + i);
    return NULL;
}

/* Runs o->calls calls on o->threads threads; returns the failures. */
static int run_calls(const opts *o, int *done)
{
#ifdef _OPENMP
    if (o->openmp) {
        int failed = 0;
        #pragma omp parallel for num_threads(o->threads) schedule(dynamic) reduction(+:failed)
        for (int i = 0; i < o->calls; i++) {
            uint64_t s = o->seed * 1000003ull + 7919ull * (uint64_t)i;
            failed += one_call(&s, o, i);
        }
        *done = o->calls;
        return failed;
    }
#endif
    int t = o->threads < 1 ? 1 : o->threads;
    pthread_t th[256];
    worker w[256];
    int failed = 0;
    *done = 0;
    for (int i = 0; i < t; i++) {
        w[i] = (worker){o, i, o->calls / t + (i < o->calls % t), 0};
        pthread_create(&th[i], NULL, run_worker, &w[i]);
    }
    for (int i = 0; i < t; i++) {
        pthread_join(th[i], NULL);
        failed += w[i].failed;
        *done += w[i].calls;
    }
    return failed;
}

static void usage(void)
{
    fprintf(stderr, "usage: sgemm_check [--calls N] [--threads T] [--seed S] [--min-dim D] "
                    "[--max-dim D] [--rownn] [--fork] [--openmp] [--api cblas|fortran|mixed] [--double]\n");
}

int main(int argc, char **argv)
{
    opts o = {300, 1, 70, 0, 0, 0, 0, 0, 42, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--calls") && v) o.calls = atoi(argv[++i]);
        else if (!strcmp(a, "--threads") && v) o.threads = atoi(argv[++i]);
        else if (!strcmp(a, "--seed") && v) o.seed = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--max-dim") && v) o.max_dim = atoi(argv[++i]);
        else if (!strcmp(a, "--min-dim") && v) o.min_dim = atoi(argv[++i]);
        else if (!strcmp(a, "--rownn")) o.only_rownn = 1;
        else if (!strcmp(a, "--fork")) o.do_fork = 1;
        else if (!strcmp(a, "--openmp")) o.openmp = 1;
        else if (!strcmp(a, "--double")) o.dbl = 1;
        else if (!strcmp(a, "--api") && v) {
            const char *w = argv[++i];
            o.api = !strcmp(w, "fortran") ? 1 : !strcmp(w, "mixed") ? 2 : !strcmp(w, "cblas") ? 0 : -1;
            if (o.api < 0) { usage(); return 2; }
        }
        else { usage(); return 2; }
    }
    if (o.threads < 1 || o.threads > 256 || o.min_dim > o.max_dim) { usage(); return 2; }

    int done, failed = run_calls(&o, &done);
    if (o.do_fork) {
        /* The parent has used the BLAS (and maybe the GPU); a child must
         * still get right answers, and exec'd children must be unaffected. */
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            opts c = o;
            c.seed += 7;
            int cdone, cfailed = run_calls(&c, &cdone);
            _exit(cfailed ? 1 : 0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        int child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        done += 1;
        failed += !child_ok;
        if (!child_ok)
            fprintf(stderr, "the forked child's calls failed (status %d)\n", status);
        /* And the parent goes on working after the fork. */
        int again;
        failed += run_calls(&o, &again);
        done += again;
    }
    printf("sgemm_check: %d calls (%s) on %d %s thread(s)%s\n", done, api_names[o.dbl][o.api],
           o.threads, o.openmp ? "OpenMP" : "POSIX", o.do_fork ? ", with fork" : "");
    printf("%d passed, %d failed\n", done - failed, failed);
    return failed ? 1 : 0;
}
