/* tests/sgemm_check.c - an ordinary BLAS program (linked to OpenBLAS, knows
 * nothing of libtiledblas) that makes random GEMM calls and checks each
 * against a long-double reference: every layout and transpose, padded
 * leading dimensions, alpha/beta including 0, NaN in C when beta = 0, and
 * sentinels around C's m x n window. The element type is the run's: single
 * precision (cblas_sgemm, sgemm_), or with --double double precision
 * (cblas_dgemm, dgemm_), --complex complex float (cblas_cgemm, cgemm_:
 * conjugate transposes and complex alpha and beta too), --zcomplex complex
 * double (cblas_zgemm, zgemm_), each against its own epsilon. Run it with
 * and without the preload. */
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

#include "client_rand.h"
#include "fortran_gemm.h"

#define SENTINEL 12345.678f     /* exact in float and in double */

typedef struct opts {
    int calls, threads, max_dim, min_dim, do_fork, only_rownn;
    int api;                   /* 0 cblas_?gemm, 1 Fortran ?gemm_, 2 a mix */
    int openmp;                /* threads from an OpenMP parallel loop, not pthreads */
    unsigned seed;
    int type;                  /* the element type: 0 float, 1 double (--double),
                                * 2 complex float (--complex), 3 complex double
                                * (--zcomplex) */
    int dbl, cx;               /* its parts are doubles; it is complex */
} opts;

/* The names the run's calls go by, [type][api]. */
static const char *const api_names[4][3] = {
    {"cblas_sgemm", "sgemm_", "cblas_sgemm and sgemm_"},
    {"cblas_dgemm", "dgemm_", "cblas_dgemm and dgemm_"},
    {"cblas_cgemm", "cgemm_", "cblas_cgemm and cgemm_"},
    {"cblas_zgemm", "zgemm_", "cblas_zgemm and zgemm_"},
};

/* Matrices are untyped buffers of the run's element type: only these two
 * read and write them; part 0 is an element's real part, part 1 its
 * imaginary part (complex types). */
static size_t elem_size(const opts *o) { return (o->dbl ? sizeof(double) : sizeof(float)) << o->cx; }
static long double get(const opts *o, const void *p, size_t i, int part)
{
    const size_t at = (i << o->cx) + (size_t)part;
    return o->dbl ? ((const double *)p)[at] : ((const float *)p)[at];
}
static void put(const opts *o, void *p, size_t i, int part, long double v)
{
    const size_t at = (i << o->cx) + (size_t)part;
    if (o->dbl)
        ((double *)p)[at] = (double)v;
    else
        ((float *)p)[at] = (float)v;
}
/* Element i as re and im (im 0 for the real types). */
static void get_cx(const opts *o, const void *p, size_t i, long double *re, long double *im)
{
    *re = get(o, p, i, 0);
    *im = o->cx ? get(o, p, i, 1) : 0.0L;
}
static void put_all(const opts *o, void *p, size_t i, long double re, long double im)
{
    put(o, p, i, 0, re);
    if (o->cx)
        put(o, p, i, 1, im);
}

/* The call itself, in the run's precision and the chosen interface. */
static void gemm(const opts *o, int fortran, int layout, int ta, int tb, int m, int n, int k,
                 const double alpha[2], const void *A, int lda, const void *B, int ldb,
                 const double beta[2], void *C, int ldc, uint64_t *s)
{
    const float al[2] = {(float)alpha[0], (float)alpha[1]}, be[2] = {(float)beta[0], (float)beta[1]};
    if (fortran) {
        /* Lower case is legal too, and 'C' (a real type's T); use them now
         * and then. */
        const char *tch = rng_int(s, 0, 1) ? "NTC" : "ntc";
        char fa = tch[ta - CblasNoTrans], fb = tch[tb - CblasNoTrans];
        if (!o->cx && fa != 'N' && fa != 'n' && rng_int(s, 0, 1))
            fa = fa == 'T' ? 'C' : 'c';
        switch (o->type) {
        case 0: sgemm_(&fa, &fb, &m, &n, &k, al, A, &lda, B, &ldb, be, C, &ldc, 1, 1); break;
        case 1: dgemm_(&fa, &fb, &m, &n, &k, alpha, A, &lda, B, &ldb, beta, C, &ldc, 1, 1); break;
        case 2: cgemm_(&fa, &fb, &m, &n, &k, al, A, &lda, B, &ldb, be, C, &ldc, 1, 1); break;
        default: zgemm_(&fa, &fb, &m, &n, &k, alpha, A, &lda, B, &ldb, beta, C, &ldc, 1, 1); break;
        }
        return;
    }
    switch (o->type) {
    case 0: cblas_sgemm(layout, ta, tb, m, n, k, al[0], A, lda, B, ldb, be[0], C, ldc); break;
    case 1: cblas_dgemm(layout, ta, tb, m, n, k, alpha[0], A, lda, B, ldb, beta[0], C, ldc); break;
    case 2: cblas_cgemm(layout, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc); break;
    default: cblas_zgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); break;
    }
}

/* One random call; returns 0 when it checks out, 1 otherwise (and prints why). */
static int one_call(uint64_t *s, const opts *o, int id)
{
    int fortran = o->api == 1 || (o->api == 2 && rng_int(s, 0, 1));
    int layout = (o->only_rownn || rng_int(s, 0, 1) == 0) ? CblasRowMajor : CblasColMajor;
    if (fortran)
        layout = CblasColMajor;   /* Fortran is column-major */
    /* N or T, and for the complex types C (the conjugate transpose). */
    const int ops = o->cx ? 2 : 1;
    int ta = o->only_rownn ? CblasNoTrans : CblasNoTrans + rng_int(s, 0, ops);
    int tb = o->only_rownn ? CblasNoTrans : CblasNoTrans + rng_int(s, 0, ops);
    int m = rng_int(s, o->min_dim, o->max_dim), n = rng_int(s, o->min_dim, o->max_dim);
    int k = rng_int(s, o->min_dim, o->max_dim);
    if (rng_int(s, 0, 15) == 0) m = 0;
    if (rng_int(s, 0, 15) == 0) k = 0;
    /* Double runs also draw scalars that float cannot hold (0.1, -0.3);
     * complex runs imaginary parts, 0 half of the time. */
    static const double alphas[] = {1.0, -1.0, 0.5, 0.0, 2.25, 0.1};
    static const double betas[] = {0.0, 1.0, -0.75, 0.0, 3.0, -0.3};
    static const double ims[] = {0.0, 0.0, 0.0, 0.5, -1.25, 1.0};
    int last = o->dbl ? 5 : 4;
    double alpha[2] = {alphas[rng_int(s, 0, last)], o->cx ? ims[rng_int(s, 0, 5)] : 0.0};
    double beta[2] = {betas[rng_int(s, 0, last)], o->cx ? ims[rng_int(s, 0, 5)] : 0.0};
    const int alpha0 = alpha[0] == 0.0 && alpha[1] == 0.0, beta0 = beta[0] == 0.0 && beta[1] == 0.0;

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
    for (size_t i = 0; i < na; i++) put_all(o, A, i, rng_value(s, o->dbl), rng_value(s, o->dbl));
    for (size_t i = 0; i < nb; i++) put_all(o, B, i, rng_value(s, o->dbl), rng_value(s, o->dbl));
    for (size_t i = 0; i < nc; i++) put_all(o, C, i, SENTINEL, SENTINEL);
    int nan_c = beta0 && rng_int(s, 0, 1);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            put_all(o, C, at(layout, ldc, i, j), nan_c ? NAN : rng_value(s, o->dbl), rng_value(s, o->dbl));

    /* op(A) as m rows of k and op(B) as n rows of k (re, im), in long
     * double, so that the reference reads both in order. */
    long double *opa = malloc(((size_t)m * k + 1) * 2 * sizeof *opa);
    long double *opb = malloc(((size_t)n * k + 1) * 2 * sizeof *opb);
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++) {
            long double *x = opa + 2 * ((size_t)i * k + p);
            get_cx(o, A, ta == CblasNoTrans ? at(layout, lda, i, p) : at(layout, lda, p, i), &x[0], &x[1]);
            if (ta == CblasConjTrans)
                x[1] = -x[1];
        }
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++) {
            long double *x = opb + 2 * ((size_t)j * k + p);
            get_cx(o, B, tb == CblasNoTrans ? at(layout, ldb, p, j) : at(layout, ldb, j, p), &x[0], &x[1]);
            if (tb == CblasConjTrans)
                x[1] = -x[1];
        }
    /* The reference, and a per-element bound of 2 (k + 2) eps times the
     * magnitudes summed: the worst-case rounding of a k-term dot product,
     * alpha, beta and the final sum, in the element type (twice that for
     * complex numbers, whose products and sums round twice). */
    const long double eps = (o->dbl ? DBL_EPSILON : FLT_EPSILON) * (o->cx ? 2 : 1);
    long double *ref = malloc(((size_t)m * n + 1) * 2 * sizeof *ref);
    long double *bound = malloc(((size_t)m * n + 1) * sizeof *bound);
    const long double mod_alpha = hypotl(alpha[0], alpha[1]), mod_beta = hypotl(beta[0], beta[1]);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double sr = 0.0L, si = 0.0L, mag = 0.0L;
            const long double *a = opa + 2 * (size_t)i * k, *b = opb + 2 * (size_t)j * k;
            if (!alpha0 && !o->cx)
                for (int p = 0; p < k; p++) {
                    sr += a[2 * p] * b[2 * p];
                    mag += fabsl(a[2 * p] * b[2 * p]);
                }
            else if (!alpha0)
                for (int p = 0; p < k; p++) {
                    sr += a[2 * p] * b[2 * p] - a[2 * p + 1] * b[2 * p + 1];
                    si += a[2 * p] * b[2 * p + 1] + a[2 * p + 1] * b[2 * p];
                    /* |re| + |im| >= |z|: a bound as safe, and cheap */
                    mag += (fabsl(a[2 * p]) + fabsl(a[2 * p + 1])) * (fabsl(b[2 * p]) + fabsl(b[2 * p + 1]));
                }
            long double cr = 0.0L, ci = 0.0L;
            if (!beta0)
                get_cx(o, C, at(layout, ldc, i, j), &cr, &ci);
            long double *r = ref + 2 * ((size_t)i * n + j);
            r[0] = alpha[0] * sr - alpha[1] * si + beta[0] * cr - beta[1] * ci;
            r[1] = alpha[0] * si + alpha[1] * sr + beta[0] * ci + beta[1] * cr;
            bound[(size_t)i * n + j] =
                2.0L * (k + 2) * eps * (mod_alpha * mag + mod_beta * hypotl(cr, ci)) + 1e-300L;
        }

    gemm(o, fortran, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, s);

    int bad = 0;
    for (int i = 0; i < m && !bad; i++)
        for (int j = 0; j < n && !bad; j++) {
            long double gr, gi;
            get_cx(o, C, at(layout, ldc, i, j), &gr, &gi);
            const long double *want = ref + 2 * ((size_t)i * n + j);
            if (!(hypotl(gr - want[0], gi - want[1]) <= bound[(size_t)i * n + j])) {
                static const char tch[] = "NTC";
                fprintf(stderr, "call %d: %s %s %c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g%+gi "
                        "beta=%g%+gi: C(%d,%d)=%.*Lg%+.*Lgi want %.*Lg%+.*Lgi (bound %.3Lg)\n", id,
                        api_names[o->type][fortran], layout == CblasRowMajor ? "RowMajor" : "ColMajor",
                        tch[ta - CblasNoTrans], tch[tb - CblasNoTrans], m, n, k, lda, ldb, ldc,
                        alpha[0], alpha[1], beta[0], beta[1], i, j, o->dbl ? 17 : 9, gr,
                        o->dbl ? 17 : 9, gi, o->dbl ? 17 : 9, want[0], o->dbl ? 17 : 9, want[1],
                        bound[(size_t)i * n + j]);
                bad = 1;
            }
        }
    /* Nothing outside the window: count sentinels (bit for bit), which must
     * be all the elements that are not in the m x n window. */
    char sentinel[2 * sizeof(double)];
    put_all(o, sentinel, 0, SENTINEL, SENTINEL);
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
                    "[--max-dim D] [--rownn] [--fork] [--openmp] [--api cblas|fortran|mixed] "
                    "[--double | --complex | --zcomplex]\n");
}

int main(int argc, char **argv)
{
    opts o = {300, 1, 70, 0, 0, 0, 0, 0, 42, 0, 0, 0};
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
        else if (!strcmp(a, "--double")) o.type = 1;
        else if (!strcmp(a, "--complex")) o.type = 2;
        else if (!strcmp(a, "--zcomplex")) o.type = 3;
        else if (!strcmp(a, "--api") && v) {
            const char *w = argv[++i];
            o.api = !strcmp(w, "fortran") ? 1 : !strcmp(w, "mixed") ? 2 : !strcmp(w, "cblas") ? 0 : -1;
            if (o.api < 0) { usage(); return 2; }
        }
        else { usage(); return 2; }
    }
    if (o.threads < 1 || o.threads > 256 || o.min_dim > o.max_dim) { usage(); return 2; }
    o.dbl = o.type == 1 || o.type == 3;
    o.cx = o.type >= 2;

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
    printf("sgemm_check: %d calls (%s) on %d %s thread(s)%s\n", done, api_names[o.type][o.api],
           o.threads, o.openmp ? "OpenMP" : "POSIX", o.do_fork ? ", with fork" : "");
    printf("%d passed, %d failed\n", done - failed, failed);
    return failed ? 1 : 0;
}
