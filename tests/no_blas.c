/* tests/no_blas.c - a program with no BLAS at all: linked to libtiledblas
 * alone (no_blas), or to nothing, finding cblas_sgemm, sgemm_, cblas_dgemm
 * and dgemm_ at run time so that it runs only under LD_PRELOAD (no_blas_dl).
 * Makes every kind of call below in single precision, then in double, and
 * checks each against a long-double product of its own; prints, exits 0
 * when all are right, 1 otherwise, 2 when it finds one of the four
 * routines missing.
 *   no_blas [calls [small]]  random calls: both interfaces, both layouts,
 *                     N/T/C, alpha, beta, padded leading dimensions, zero
 *                     sizes; NaN in C where beta = 0, in A and B where alpha
 *                     or k is 0 and in every gap between their rows;
 *                     sentinels around C and in its gaps; then (unless
 *                     "small") a timed and checked 512^3 call
 *   no_blas illegal   illegal calls: each one's report on stderr, exactly as
 *                     the BLAS words it, and C untouched
 *   no_blas level3    routines the built-in path does not compute (dsyrk_,
 *                     cblas_ztrsm, cblas_csyr2k): illegal calls, then a legal
 *                     one; every output left as it was (the reports and the
 *                     library's warnings on stderr are checked by
 *                     tests/preload.sh) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fortran_gemm.h"

enum { ROW = 101, COL = 102, NT = 111, TR = 112, CT = 113 };

/* The CBLAS routines with int for their enumerations (this program
 * includes no BLAS header), and the Fortran ones (fortran_gemm.h). */
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);
static __typeof__(cblas_sgemm) *cblas_s;
static __typeof__(sgemm_) *fortran_s;
static __typeof__(cblas_dgemm) *cblas_d;
static __typeof__(dgemm_) *fortran_d;

#ifdef NO_BLAS_DLSYM
static int resolve(void)
{
    cblas_s = (__typeof__(cblas_s))dlsym(RTLD_DEFAULT, "cblas_sgemm");
    fortran_s = (__typeof__(fortran_s))dlsym(RTLD_DEFAULT, "sgemm_");
    cblas_d = (__typeof__(cblas_d))dlsym(RTLD_DEFAULT, "cblas_dgemm");
    fortran_d = (__typeof__(fortran_d))dlsym(RTLD_DEFAULT, "dgemm_");
    return cblas_s && fortran_s && cblas_d && fortran_d ? 0 : -1;
}
#else
/* The double routines are weak: linked to a library that lacks them, the
 * program still builds, and says which ones it did not find. */
#pragma weak cblas_dgemm
#pragma weak dgemm_
static int resolve(void)
{
    cblas_s = cblas_sgemm;
    fortran_s = sgemm_;
    cblas_d = cblas_dgemm;
    fortran_d = dgemm_;
    return cblas_s && fortran_s && cblas_d && fortran_d ? 0 : -1;
}
#endif

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static int pick(int n) { return (int)(next() % (unsigned)n); }
/* In [-1, 1], four decimals: in double, most of them need every bit of the
 * mantissa, so a double path that rounded its operands to float would show. */
static double uniform(void) { return (double)(next() % 20001u) / 10000.0 - 1.0; }

#define GUARD 16                 /* sentinel elements before and after C */
#define SENTINEL (-7777.25)      /* exact in float and in double */

typedef struct {
    int fortran, layout, ta, tb;  /* ta, tb: NT, TR or CT */
    char fta, ftb;
    int m, n, k, lda, ldb, ldc;
    double alpha, beta;           /* values of the element type */
    int dbl;                      /* the element type: 0 float, 1 double */
} gemm_case;

/* Matrices are untyped buffers of the case's element type: only these read
 * and write them. */
static size_t elem_size(int dbl) { return dbl ? sizeof(double) : sizeof(float); }
static long double get(int dbl, const void *p, size_t i)
{
    return dbl ? ((const double *)p)[i] : ((const float *)p)[i];
}
static void put(int dbl, void *p, size_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}
/* v rounded to the element type, as a scalar the call can carry exactly */
static double in_type(int dbl, double v) { return dbl ? v : (float)v; }
/* Whether element i is the sentinel, bit for bit. */
static int is_sentinel(int dbl, const void *p, size_t i)
{
    char s[sizeof(double)];
    put(dbl, s, 0, SENTINEL);
    return memcmp((const char *)p + i * elem_size(dbl), s, elem_size(dbl)) == 0;
}

/* Rows and columns of X as stored: column-major X (r x c) is stored as
 * c rows of r. `stored_rows` lines of `ld`, `used` of each one used. */
static void storage(int layout, int rows, int cols, int *stored_rows, int *used)
{
    *stored_rows = layout == ROW ? rows : cols;
    *used = layout == ROW ? cols : rows;
}

/* element (i, j) of the matrix X (rows x cols as the caller sees it) */
static size_t at(int layout, int ld, int i, int j)
{
    return layout == ROW ? (size_t)i * ld + j : (size_t)j * ld + i;
}

static void print_case(const char *what, const gemm_case *g)
{
    static const char *const names[2][2] = {{"cblas_sgemm", "sgemm_"}, {"cblas_dgemm", "dgemm_"}};
    printf("FAIL %s: %s %s %c%c m=%d n=%d k=%d alpha=%.17g lda=%d ldb=%d beta=%.17g ldc=%d\n", what,
           names[g->dbl][g->fortran], g->layout == ROW ? "RowMajor" : "ColMajor",
           g->fortran ? g->fta : "NTC"[g->ta - NT], g->fortran ? g->ftb : "NTC"[g->tb - NT],
           g->m, g->n, g->k, g->alpha, g->lda, g->ldb, g->beta, g->ldc);
}

/* The call itself, in the case's precision and interface. */
static void gemm(const gemm_case *g, const void *A, const void *B, void *C)
{
    if (g->dbl && g->fortran)
        fortran_d(&g->fta, &g->ftb, &g->m, &g->n, &g->k, &g->alpha, A, &g->lda, B, &g->ldb,
                  &g->beta, C, &g->ldc, 1, 1);
    else if (g->dbl)
        cblas_d(g->layout, g->ta, g->tb, g->m, g->n, g->k, g->alpha, A, g->lda, B, g->ldb,
                g->beta, C, g->ldc);
    else if (g->fortran)
        fortran_s(&g->fta, &g->ftb, &g->m, &g->n, &g->k, &(float){(float)g->alpha}, A, &g->lda,
                  B, &g->ldb, &(float){(float)g->beta}, C, &g->ldc, 1, 1);
    else
        cblas_s(g->layout, g->ta, g->tb, g->m, g->n, g->k, (float)g->alpha, A, g->lda, B, g->ldb,
                (float)g->beta, C, g->ldc);
}

/* Runs one case; returns 0 when C is right and nothing outside it changed. */
static int run_case(const gemm_case *g)
{
    const int lay = g->layout, dbl = g->dbl;
    const int ar = g->ta == NT ? g->m : g->k, ac = g->ta == NT ? g->k : g->m;   /* A as stored */
    const int br = g->tb == NT ? g->k : g->n, bc = g->tb == NT ? g->n : g->k;
    int as, au, bs, bu, cs, cu;
    storage(lay, ar, ac, &as, &au);
    storage(lay, br, bc, &bs, &bu);
    storage(lay, g->m, g->n, &cs, &cu);
    size_t na = (size_t)(as > 0 ? as : 1) * g->lda, nb = (size_t)(bs > 0 ? bs : 1) * g->ldb;
    size_t nc = (size_t)(cs > 0 ? cs : 1) * g->ldc, es = elem_size(dbl);
    void *A = malloc(na * es), *B = malloc(nb * es);
    char *Cbuf = malloc((nc + 2 * GUARD) * es), *C = Cbuf + GUARD * es;
    void *C0 = malloc(nc * es);
    long double *ref = malloc(((size_t)g->m * g->n + 1) * sizeof *ref);
    long double *bound = malloc(((size_t)g->m * g->n + 1) * sizeof *bound);
    if (!A || !B || !Cbuf || !C0 || !ref || !bound) {
        printf("FAIL: out of memory\n");
        exit(1);
    }
    const int no_ab = g->alpha == 0.0 || g->k == 0;      /* A and B must not be read */
    /* Every gap between rows of A and B holds NaN: a read of one shows. */
    for (size_t i = 0; i < na; i++)
        put(dbl, A, i, no_ab || (int)(i % g->lda) >= au ? NAN : uniform());
    for (size_t i = 0; i < nb; i++)
        put(dbl, B, i, no_ab || (int)(i % g->ldb) >= bu ? NAN : uniform());
    for (size_t i = 0; i < nc + 2 * GUARD; i++)
        put(dbl, Cbuf, i, SENTINEL);
    for (int i = 0; i < g->m; i++)
        for (int j = 0; j < g->n; j++)
            put(dbl, C, at(lay, g->ldc, i, j), g->beta == 0.0 ? NAN : uniform());
    memcpy(C0, C, nc * es);

    const long double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    for (int i = 0; i < g->m; i++)
        for (int j = 0; j < g->n; j++) {
            long double s = 0.0L, sa = 0.0L, c = get(dbl, C0, at(lay, g->ldc, i, j));
            if (!no_ab)
                for (int l = 0; l < g->k; l++) {
                    long double a = get(dbl, A, g->ta == NT ? at(lay, g->lda, i, l) : at(lay, g->lda, l, i));
                    long double b = get(dbl, B, g->tb == NT ? at(lay, g->ldb, l, j) : at(lay, g->ldb, j, l));
                    s += a * b;
                    sa += fabsl(a * b);
                }
            long double r = no_ab ? 0.0L : g->alpha * s;
            long double e = no_ab ? 0.0L : fabsl(g->alpha) * sa;
            if (g->beta != 0.0) {
                r += g->beta * c;
                e += fabsl(g->beta * c);
            }
            ref[(size_t)i * g->n + j] = r;
            bound[(size_t)i * g->n + j] = (g->k + 2) * eps * e + 1e-300L;
        }

    gemm(g, A, B, C);

    int bad = 0;
    for (int i = 0; i < GUARD && !bad; i++)
        if (!is_sentinel(dbl, Cbuf, i) || !is_sentinel(dbl, C, nc + i)) {
            print_case("written outside C", g);
            bad = 1;
        }
    for (size_t i = 0; i < nc && !bad; i++)
        if (((int)(i / g->ldc) >= cs || (int)(i % g->ldc) >= cu) && !is_sentinel(dbl, C, i)) {
            print_case("written in a gap between C's rows", g);
            bad = 1;
        }
    for (int i = 0; i < g->m && !bad; i++)
        for (int j = 0; j < g->n && !bad; j++) {
            long double got = get(dbl, C, at(lay, g->ldc, i, j)), want = ref[(size_t)i * g->n + j];
            if (!(fabsl(got - want) <= bound[(size_t)i * g->n + j])) {
                print_case("wrong result", g);
                printf("  C(%d,%d) = %.*Lg, want %.*Lg (bound %.3Lg)\n", i, j, dbl ? 17 : 9, got,
                       dbl ? 17 : 9, want, bound[(size_t)i * g->n + j]);
                bad = 1;
            }
        }
    free(A); free(B); free(Cbuf); free(C0); free(ref); free(bound);
    return bad;
}

static int trans_of(char *f)
{
    static const char chars[] = "NnTtCc";
    int t = pick(3);
    *f = chars[2 * t + pick(2)];
    return NT + t;
}

static double pick_scalar(int dbl, int zero_ok)
{
    static const double fixed[] = {1.0, -1.0, 0.5, 2.0};
    int r = pick(8);
    if (r == 0 && zero_ok)
        return 0.0;
    return r < 5 ? fixed[r % 4] : in_type(dbl, uniform() * 3.0);
}

static int pick_dim(void)
{
    int r = pick(20);
    if (r == 0) return 0;
    if (r < 15) return 1 + pick(40);
    if (r < 19) return 41 + pick(120);
    return 161 + pick(200);            /* more than one block of K and of M */
}

static gemm_case random_case(int dbl)
{
    gemm_case g;
    g.dbl = dbl;
    g.fortran = pick(3) == 0;
    g.layout = g.fortran || pick(2) ? COL : ROW;
    g.ta = trans_of(&g.fta);
    g.tb = trans_of(&g.ftb);
    g.m = pick_dim(); g.n = pick_dim(); g.k = pick_dim();
    g.alpha = pick_scalar(dbl, 1);
    g.beta = pick(3) == 0 ? 0.0 : pick_scalar(dbl, 0);
    if (pick(6) == 0)
        g.beta = pick(2) ? 1.0 : 0.0;
    /* Leading dimensions: the least legal one, plus a padding of 0 to 5. */
    int ar = g.ta == NT ? g.m : g.k, ac = g.ta == NT ? g.k : g.m;
    int br = g.tb == NT ? g.k : g.n, bc = g.tb == NT ? g.n : g.k;
    int min_a = g.layout == ROW ? ac : ar, min_b = g.layout == ROW ? bc : br;
    int min_c = g.layout == ROW ? g.n : g.m;
    g.lda = (min_a > 1 ? min_a : 1) + (pick(2) ? pick(6) : 0);
    g.ldb = (min_b > 1 ? min_b : 1) + (pick(2) ? pick(6) : 0);
    g.ldc = (min_c > 1 ? min_c : 1) + (pick(2) ? pick(6) : 0);
    return g;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The calls of one precision; returns 0 when all are right. */
static int correct(int dbl, int calls, int big_too)
{
    const char *prec = dbl ? "double" : "single";
    int bad = 0;
    /* Shapes every run has: the edges, the zero sizes, a product wider than
     * one block of N, and beta = 0 over a C of NaN with alpha = 0. */
    static const gemm_case fixed[] = {
        {0, ROW, NT, NT, 'N', 'N', 1, 1, 1, 1, 1, 1, 1.0, 0.0, 0},
        {0, ROW, NT, NT, 'N', 'N', 0, 5, 5, 5, 5, 5, 1.0, 0.0, 0},
        {0, ROW, NT, NT, 'N', 'N', 5, 0, 5, 5, 1, 1, 1.0, 0.0, 0},
        {0, ROW, NT, NT, 'N', 'N', 5, 5, 0, 1, 5, 5, 1.0, 0.0, 0},
        {0, ROW, NT, NT, 'N', 'N', 5, 5, 0, 1, 5, 5, 1.0, 0.5, 0},
        {0, COL, TR, TR, 'N', 'N', 7, 6, 5, 7, 8, 9, 0.0, 0.0, 0},
        {0, COL, TR, CT, 'N', 'N', 7, 6, 5, 7, 8, 9, 0.0, 1.0, 0},
        {1, COL, NT, NT, 'N', 'N', 0, 0, 0, 1, 1, 1, 1.0, 0.0, 0},
        {1, COL, TR, TR, 't', 'c', 33, 17, 300, 300, 17, 40, -1.5, 0.0, 0},
        {0, ROW, NT, TR, 'N', 'N', 3, 2100, 7, 7, 7, 2101, 1.0, 2.0, 0},
        {0, COL, NT, NT, 'N', 'N', 100, 3, 600, 101, 600, 100, 1.0, -1.0, 0},
    };
    for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        gemm_case g = fixed[i];
        g.dbl = dbl;
        bad += run_case(&g);
    }
    for (int i = 0; i < calls; i++) {
        gemm_case g = random_case(dbl);
        bad += run_case(&g);
    }
    int total = calls + (int)(sizeof fixed / sizeof fixed[0]);
    if (bad) {
        printf("%s: %d of %d calls wrong\n", prec, bad, total);
        return 1;
    }
    printf("%s: %d calls right\n", prec, total);
    if (!big_too)
        return 0;

    /* 512^3, row-major NN: timed (the fastest of three) and checked. */
    gemm_case big = {0, ROW, NT, NT, 'N', 'N', 512, 512, 512, 512, 512, 512, 1.0, 0.0, dbl};
    const size_t nn = 512 * 512, es = elem_size(dbl);
    void *A = malloc(nn * es), *B = malloc(nn * es), *C = malloc(nn * es);
    for (size_t i = 0; i < nn; i++) { put(dbl, A, i, uniform()); put(dbl, B, i, uniform()); }
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        gemm(&big, A, B, C);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    printf("%s: 512^3 RowMajor NN: %.1f ms (%.2f GFLOP/s)\n", prec, best * 1e3, 2.0 * 512 * nn / best * 1e-9);
    free(A); free(B); free(C);
    if (run_case(&big)) {
        printf("%s: 512^3 wrong\n", prec);
        return 1;
    }
    return 0;
}

/* ---- Illegal calls ---- */

typedef struct {
    int fortran;
    int a[9];                        /* layout, transa, transb, m, n, k, lda, ldb, ldc */
    char fta, ftb;
    const char *report;              /* exactly what the BLAS writes on stderr */
} illegal_case;

/* The reports as OpenBLAS words sgemm_'s and the reference CBLAS
 * cblas_sgemm's (Debian's libblas3): the number is the argument's position.
 * The double routines' are the same with dgemm and DGEMM (double_words). */
static const illegal_case illegal[] = {
    {0, {100, NT, NT, 2, 2, 2, 2, 2, 2}, 0, 0,
     "Parameter 1 to routine cblas_sgemm was incorrect\nIllegal layout setting, 100\n"},
    {0, {ROW, 7, NT, 2, 2, 2, 2, 2, 2}, 0, 0,
     "Parameter 2 to routine cblas_sgemm was incorrect\nIllegal TransA setting, 7\n"},
    {0, {COL, NT, 0, 2, 2, 2, 2, 2, 2}, 0, 0,
     "Parameter 3 to routine cblas_sgemm was incorrect\nIllegal TransB setting, 0\n"},
    {0, {ROW, NT, NT, -1, 2, 2, 2, 2, 2}, 0, 0, "Parameter 4 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 2, -1, 2, 2, 2, 2}, 0, 0, "Parameter 5 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, -1, -1, 2, 2, 2, 2}, 0, 0, "Parameter 5 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 2, 2, -1, 2, 2, 2}, 0, 0, "Parameter 6 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, 2, 4, 4, 3, 4, 4}, 0, 0, "Parameter 9 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, 2, 4, 4, 3, 3, 4}, 0, 0, "Parameter 11 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, 2, 4, 4, 4, 4, 3}, 0, 0, "Parameter 14 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 4, 2, 2, 3, 2, 4}, 0, 0, "Parameter 9 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, TR, TR, 2, 2, 4, 3, 2, 2}, 0, 0, "Parameter 9 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 4, 2, 2, 4, 1, 4}, 0, 0, "Parameter 11 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 4, 2, 2, 4, 2, 3}, 0, 0, "Parameter 14 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, TR, TR, 0, 0, 0, 0, 0, 0}, 0, 0, "Parameter 11 to routine cblas_sgemm  was incorrect\n"},
    {1, {COL, 0, 0, 2, 2, 2, 2, 2, 2}, 'X', 'N', " ** On entry to SGEMM  parameter number  1 had an illegal value\n"},
    {1, {COL, 0, 0, 2, 2, 2, 2, 2, 2}, 'n', 'R', " ** On entry to SGEMM  parameter number  2 had an illegal value\n"},
    {1, {COL, 0, 0, -1, 2, 2, 2, 2, 2}, 'N', 'N', " ** On entry to SGEMM  parameter number  3 had an illegal value\n"},
    {1, {COL, 0, 0, 2, -1, 2, 2, 2, 2}, 'N', 'N', " ** On entry to SGEMM  parameter number  4 had an illegal value\n"},
    {1, {COL, 0, 0, 2, 2, -1, 2, 2, 2}, 'N', 'N', " ** On entry to SGEMM  parameter number  5 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 2, 3, 2, 4}, 'N', 'N', " ** On entry to SGEMM  parameter number  8 had an illegal value\n"},
    {1, {COL, 0, 0, 2, 2, 4, 3, 2, 2}, 'T', 'n', " ** On entry to SGEMM  parameter number  8 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 2, 4, 1, 4}, 'N', 'N', " ** On entry to SGEMM  parameter number 10 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 3, 4, 1, 4}, 'N', 'c', " ** On entry to SGEMM  parameter number 10 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 2, 4, 2, 3}, 'N', 'N', " ** On entry to SGEMM  parameter number 13 had an illegal value\n"},
    {1, {COL, 0, 0, 0, 0, 0, 0, 0, 0}, 'N', 'N', " ** On entry to SGEMM  parameter number  8 had an illegal value\n"},
};

/* The double routine's report: the single one's, naming dgemm for sgemm. */
static void double_words(char *s)
{
    for (char *p = s; (p = strpbrk(p, "sS")) != NULL; p++)
        if (!strncmp(p + 1, "gemm", 4) || !strncmp(p + 1, "GEMM", 4))
            *p = *p == 's' ? 'd' : 'D';
}

/* What the call wrote on stderr, the library's own "tiledblas: " lines
 * left out: they go on to stderr (the shell test counts them). */
static void capture_stderr(const gemm_case *g, const void *A, const void *B, void *C, char *out, size_t len)
{
    char path[] = "/tmp/no_blas.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    out[0] = '\0';
    if (fd < 0 || saved < 0)
        return;
    unlink(path);
    dup2(fd, 2);
    gemm(g, A, B, C);
    dup2(saved, 2);
    close(saved);
    FILE *f = fdopen(fd, "r");
    rewind(f);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "tiledblas: ", 11) == 0)
            fputs(line, stderr);
        else if (n + strlen(line) < len) {
            memcpy(out + n, line, strlen(line) + 1);
            n += strlen(line);
        }
    fclose(f);
}

/* Every illegal call in one precision; returns the failures. */
static int illegal_calls(int dbl)
{
    static double A[64], B[64], C[64], C0[64];    /* room for 64 elements of either type */
    const size_t bytes = 64 * elem_size(dbl);
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        put(dbl, A, i, 1.0);
        put(dbl, B, i, 1.0);
        put(dbl, C, i, SENTINEL);
    }
    memcpy(C0, C, bytes);
    const int n = (int)(sizeof illegal / sizeof illegal[0]);
    for (int i = 0; i < n; i++) {
        const illegal_case *t = &illegal[i];
        const int *a = t->a;
        gemm_case g = {t->fortran, a[0], a[1], a[2], t->fta, t->ftb, a[3], a[4], a[5], a[6], a[7], a[8],
                       1.0, 0.0, dbl};
        char got[1024], want[256];
        snprintf(want, sizeof want, "%s", t->report);
        if (dbl)
            double_words(want);
        capture_stderr(&g, A, B, C, got, sizeof got);
        if (strcmp(got, want) != 0) {
            printf("FAIL illegal %s call %d: stderr was \"%s\", want \"%s\"\n", dbl ? "double" : "single",
                   i, got, want);
            bad++;
        }
        if (memcmp(C, C0, bytes)) {
            printf("FAIL illegal %s call %d: C was written\n", dbl ? "double" : "single", i);
            bad++;
            memcpy(C, C0, bytes);
        }
    }
    /* and the program goes on: a legal call afterwards is right */
    gemm_case one = {0, ROW, NT, NT, 'N', 'N', 1, 1, 1, 1, 1, 1, 1.0, 0.0, dbl};
    put(dbl, C, 0, NAN);
    put(dbl, A, 0, 2.0);
    put(dbl, B, 0, 3.0);
    gemm(&one, A, B, C);
    if (get(dbl, C, 0) != 6.0L) {
        printf("FAIL: the legal %s call after the illegal ones gave %Lg, not 6\n", dbl ? "double" : "single",
               get(dbl, C, 0));
        bad++;
    }
    return bad;
}

/* Other routines than gemm, found at run time: four illegal calls, then a
 * legal dsyrk_ call, which the built-in path does not run. Returns 1 when
 * an output was written. */
static int level3_calls(void)
{
    void (*dsyrk)(const char *, const char *, const int *, const int *, const double *,
                  const double *, const int *, const double *, double *, const int *, size_t,
                  size_t) = (__typeof__(dsyrk))dlsym(RTLD_DEFAULT, "dsyrk_");
    void (*ztrsm)(int, int, int, int, int, int, int, const void *, const void *, int, void *,
                  int) = (__typeof__(ztrsm))dlsym(RTLD_DEFAULT, "cblas_ztrsm");
    void (*csyr2k)(int, int, int, int, int, const void *, const void *, int, const void *, int,
                   const void *, void *, int) = (__typeof__(csyr2k))dlsym(RTLD_DEFAULT, "cblas_csyr2k");
    if (!dsyrk || !ztrsm || !csyr2k) {
        printf("dsyrk_, cblas_ztrsm or cblas_csyr2k missing\n");
        return 1;
    }
    double a[32], c[32], c0[32];
    const double one[2] = {1.0, 0.0};
    for (int i = 0; i < 32; i++)
        a[i] = 1.0, c[i] = c0[i] = SENTINEL;
    const int two = 2, three = 3, minus = -1;
    dsyrk("U", "N", &minus, &two, one, a, &two, one, c, &two, 1, 1);      /* N < 0: 3 */
    dsyrk("U", "N", &three, &two, one, a, &two, one, c, &three, 1, 1);    /* LDA < N: 7 */
    ztrsm(ROW, 141, 121, NT, 131, 2, 2, one, a, 2, c, 1);                  /* ldb < N: 12 */
    ztrsm(ROW, 141, 7, NT, 131, 2, 2, one, a, 2, c, 2);                    /* Uplo: 3 */
    csyr2k(COL, 121, CT, 2, 2, one, a, 2, a, 2, one, c, 2);                /* ConjTrans: 3 */
    dsyrk("U", "N", &two, &two, one, a, &two, one, c, &two, 1, 1);        /* legal, not run */
    const int bad = memcmp(c, c0, sizeof c) != 0;
    printf("%s\n", bad ? "FAIL: an output was written" : "6 calls of dsyrk_, cblas_ztrsm and "
           "cblas_csyr2k, every output left as it was");
    return bad;
}

int main(int argc, char **argv)
{
    if (resolve() != 0) {
        printf("not all of cblas_sgemm, sgemm_, cblas_dgemm, dgemm_ in this process:%s%s%s%s "
               "(run it under LD_PRELOAD=libtiledblas.so)\n", cblas_s ? "" : " no cblas_sgemm",
               fortran_s ? "" : " no sgemm_", cblas_d ? "" : " no cblas_dgemm", fortran_d ? "" : " no dgemm_");
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "illegal") == 0) {
        int bad = illegal_calls(0) + illegal_calls(1);
        if (bad)
            return 1;
        printf("%d illegal calls in each precision reported as the BLAS does, C untouched\n",
               (int)(sizeof illegal / sizeof illegal[0]));
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "level3") == 0)
        return level3_calls();
    int calls = argc > 1 ? atoi(argv[1]) : 400, big_too = !(argc > 2 && strcmp(argv[2], "small") == 0);
    int bad = correct(0, calls, big_too);
    bad += correct(1, calls, big_too);
    return bad ? 1 : 0;
}
