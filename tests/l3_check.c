/* tests/l3_check.c - an ordinary BLAS program (linked to OpenBLAS, knows
 * nothing of libtiledblas) that makes random calls of the level-3 routines
 * other than GEMM - symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm - in
 * every precision each has (s, d, c, z; hemm, herk and her2k c and z only)
 * and checks each against a long-double reference: the level-3 twin of
 * sgemm_check. Run it with and without the preload.
 *
 * Each call draws its routine and precision, its interface (cblas_xyyy in
 * either layout, or the Fortran xyyy_ with lower-case options now and then),
 * every option the routine has (side, uplo, trans where legal - N/T for
 * complex syrk and syr2k, N/C for herk and her2k, N/T/C elsewhere, C being
 * T for the real types - diag), sizes in [min-dim, max-dim] (with the
 * default min-dim 0, also 0 and 1 one time in 16 each), leading dimensions
 * padded by 0-7, alpha and beta from {0, 1, -1, 0.5, ...} with complex
 * parts for the complex types (herk's alpha and beta and her2k's beta real,
 * as the BLAS has them).
 *
 * What the reference BLAS defines is checked, nothing less:
 *  - A and B start as NaN everywhere; only what the routine reads gets
 *    values: symm's, hemm's, trmm's and trsm's referenced triangle (not
 *    hemm's imaginary diagonal, not a unit diagonal), and nothing at all
 *    when alpha is 0. C (trmm's and trsm's B) is NaN where the call must
 *    not read it: all of it when beta is 0 (trmm and trsm: when alpha is
 *    0), and the imaginary parts of herk's and her2k's diagonal. A NaN read
 *    shows in the result.
 *  - Everything the routine may not write keeps its bytes: A and B, the
 *    sentinels around the output's window (its padding and a spare ld-row),
 *    the other triangle of syrk's family's C, and the whole output on the
 *    reference BLAS's quick returns (m or n 0; alpha 0 and beta 1 for symm
 *    and hemm; alpha or k 0 and beta 1 for syrk's family).
 *  - herk's and her2k's diagonal comes back with imaginary parts exactly 0.
 *  - Each written element is within its bound of the reference:
 *    |c - ref| <= 2 (t + 2) eps (|alpha| sum |terms| + |beta| |c_in|), t
 *    the length of its sums (m or n for symm, hemm, trmm; k for syrk and
 *    herk; 2k for syr2k and her2k), eps the element type's epsilon (twice
 *    that for the complex types), |z| taken as |re| + |im| in the sums -
 *    sgemm_check's bound. trsm: its triangular matrix T (op(A), or op(A)'s
 *    transpose for side R, order t) is well conditioned by construction
 *    (diagonal of magnitude 1 to about 2, off-diagonal elements U(-1,1)/t),
 *    the reference x = T^-1 (alpha b) is solved for each right-hand side b
 *    in long double, and the bound is the componentwise one of a
 *    backward-stable substitution, |x^ - x| <= 2 (t + 2) eps |T^-1| (|T| |x|
 *    + |alpha b|), with |T^-1| from T's inverse computed in long double.
 *
 * Options: --calls N (1000), --seed S (42), --min-dim D (0), --max-dim D
 * (100), --api cblas|fortran|mixed (mixed), --routines LIST (names, comma-
 * separated; all), --precs LIST (letters of sdcz; all). Prints "l3_check: N
 * calls, F failed" and a line for each failed call (stderr); exits 1 on
 * any failure. The default run takes 3.3 s on this project's 2-core CI
 * machine (./l3_check, OpenBLAS 0.3.21). */
#define _GNU_SOURCE
#include <cblas.h>
#include <complex.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_rand.h"

#define SENTINEL 12345.678f     /* exact in float and in double */

/* The Fortran routines as a Fortran program calls them: every argument by
 * reference, then the hidden lengths of the character arguments. Scalars
 * and elements are floats or doubles, two of them (re, im) for the complex
 * types. syr2k's arguments have symm's types (uplo, trans, n, k for side,
 * uplo, m, n). */
typedef void f_mm(const char *, const char *, const int *, const int *, const void *, const void *,
                  const int *, const void *, const int *, const void *, void *, const int *, size_t,
                  size_t);
typedef void f_rk(const char *, const char *, const int *, const int *, const void *, const void *,
                  const int *, const void *, void *, const int *, size_t, size_t);
typedef void f_tr(const char *, const char *, const char *, const char *, const int *, const int *,
                  const void *, const void *, const int *, void *, const int *, size_t, size_t, size_t,
                  size_t);
f_mm ssymm_, dsymm_, csymm_, zsymm_, chemm_, zhemm_, ssyr2k_, dsyr2k_, csyr2k_, zsyr2k_, cher2k_, zher2k_;
f_rk ssyrk_, dsyrk_, csyrk_, zsyrk_, cherk_, zherk_;
f_tr strmm_, dtrmm_, ctrmm_, ztrmm_, strsm_, dtrsm_, ctrsm_, ztrsm_;

enum { SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, TRMM, TRSM, NROUTINES };
static const char *const routine_names[NROUTINES] = {"symm", "hemm", "syrk", "herk",
                                                     "syr2k", "her2k", "trmm", "trsm"};
/* Each routine's Fortran entry points by element type (s, d, c, z). */
static f_mm *const f_mms[NROUTINES][4] = {
    [SYMM] = {ssymm_, dsymm_, csymm_, zsymm_}, [HEMM] = {NULL, NULL, chemm_, zhemm_},
    [SYR2K] = {ssyr2k_, dsyr2k_, csyr2k_, zsyr2k_}, [HER2K] = {NULL, NULL, cher2k_, zher2k_}};
static f_rk *const f_rks[NROUTINES][4] = {[SYRK] = {ssyrk_, dsyrk_, csyrk_, zsyrk_},
                                          [HERK] = {NULL, NULL, cherk_, zherk_}};
static f_tr *const f_trs[NROUTINES][4] = {[TRMM] = {strmm_, dtrmm_, ctrmm_, ztrmm_},
                                          [TRSM] = {strsm_, dtrsm_, ctrsm_, ztrsm_}};
static const char type_letters[] = "sdcz";

static int is_mm(int r) { return r == SYMM || r == HEMM; }       /* A symmetric or Hermitian */
static int is_rk(int r) { return r >= SYRK && r <= HER2K; }      /* C n x n, one triangle */
static int is_tr(int r) { return r == TRMM || r == TRSM; }       /* A triangular, B written */
static int is_herm(int r) { return r == HEMM || r == HERK || r == HER2K; }
static int is_2k(int r) { return r == SYR2K || r == HER2K; }
static int exists(int r, int type) { return type >= 2 || !is_herm(r); }

typedef struct opts {
    int calls, min_dim, max_dim;
    int api;                   /* 0 CBLAS, 1 Fortran, 2 a mix */
    unsigned seed;
    unsigned routines, types;  /* bit masks of the routines and element types to call */
} opts;

/* The element type: 0 float, 1 double, 2 complex float, 3 complex double. */
typedef struct elem { int type, dbl, cx; } elem;

/* Matrices are untyped buffers of the call's element type; only these read
 * and write them. Part 0 is an element's real part, part 1 its imaginary
 * part (complex types). */
typedef long double complex cld;
static size_t elem_size(const elem *e) { return (e->dbl ? sizeof(double) : sizeof(float)) << e->cx; }
static void put(const elem *e, void *p, size_t i, int part, long double v)
{
    const size_t at = (i << e->cx) + (size_t)part;
    if (e->dbl)
        ((double *)p)[at] = (double)v;
    else
        ((float *)p)[at] = (float)v;
}
static void put_all(const elem *e, void *p, size_t i, long double re, long double im)
{
    put(e, p, i, 0, re);
    if (e->cx)
        put(e, p, i, 1, im);
}
static cld get(const elem *e, const void *p, size_t i)
{
    const size_t at = i << e->cx;
    long double re = e->dbl ? ((const double *)p)[at] : ((const float *)p)[at];
    long double im = !e->cx ? 0.0L : e->dbl ? ((const double *)p)[at + 1] : ((const float *)p)[at + 1];
    return CMPLXL(re, im);
}

/* Complex arithmetic written out (no library call for NaN and infinity
 * cases, which cannot occur in what the reference reads). */
static cld mul(cld a, cld b)
{
    return CMPLXL(creall(a) * creall(b) - cimagl(a) * cimagl(b), creall(a) * cimagl(b) + cimagl(a) * creall(b));
}
static long double mag(cld a) { return fabsl(creall(a)) + fabsl(cimagl(a)); }   /* >= |a| */

/* One call's choices. Options: side 0 L, 1 R; uplo 0 U, 1 L; trans 0 N,
 * 1 T, 2 C; diag 0 N (non-unit), 1 U. trmm's and trsm's B, which they
 * write, is "C" here (its ld ldc); their beta is 0. */
typedef struct call {
    int r, fortran, layout, side, uplo, trans, diag, m, n, k, lda, ldb, ldc;
    double alpha[2], beta[2];
} call;

static void describe(const call *c, const elem *e, char *buf, size_t len)
{
    const char t = type_letters[e->type];
    int w = snprintf(buf, len, "%s%c%s%s %s", c->fortran ? "" : "cblas_", t, routine_names[c->r],
                     c->fortran ? "_" : "", c->layout == CblasRowMajor ? "RowMajor" : "ColMajor");
    if (!is_rk(c->r))
        w += snprintf(buf + w, len - w, " side=%c", "LR"[c->side]);
    w += snprintf(buf + w, len - w, " uplo=%c", "UL"[c->uplo]);
    if (!is_mm(c->r))
        w += snprintf(buf + w, len - w, " trans=%c", "NTC"[c->trans]);
    if (is_tr(c->r))
        w += snprintf(buf + w, len - w, " diag=%c", "NU"[c->diag]);
    if (is_rk(c->r))
        w += snprintf(buf + w, len - w, " n=%d k=%d lda=%d", c->n, c->k, c->lda);
    else
        w += snprintf(buf + w, len - w, " m=%d n=%d lda=%d", c->m, c->n, c->lda);
    if (is_mm(c->r) || is_2k(c->r))
        w += snprintf(buf + w, len - w, " ldb=%d", c->ldb);
    w += snprintf(buf + w, len - w, " %s=%d alpha=%g%+gi", is_tr(c->r) ? "ldb" : "ldc", c->ldc,
                  c->alpha[0], c->alpha[1]);
    if (!is_tr(c->r))
        snprintf(buf + w, len - w, " beta=%g%+gi", c->beta[0], c->beta[1]);
}

/* One CBLAS call in the element type t: ARGS is its argument list, in
 * which AL and BE stand for alpha and beta as that type's routine takes
 * them (values for s and d, pointers for c and z), and in the complex-only
 * routines ALR and BER for the real alpha and beta of herk and her2k. */
#define CBLAS_CALL(r, ARGS)                                                                        \
    switch (t) {                                                                                   \
    case 0: { const float AL = af[0], BE = bf[0]; (void)BE; cblas_s##r ARGS; } break;              \
    case 1: { const double AL = c->alpha[0], BE = c->beta[0]; (void)BE; cblas_d##r ARGS; } break;  \
    case 2: { const void *AL = af, *BE = bf; (void)BE; cblas_c##r ARGS; } break;                   \
    default: { const void *AL = c->alpha, *BE = c->beta; (void)BE; cblas_z##r ARGS; } break;       \
    }
#define CBLAS_CALL_CX(r, ARGS)                                                                     \
    switch (t) {                                                                                   \
    case 2: { const void *AL = af, *BE = bf; const float ALR = af[0], BER = bf[0];                 \
              (void)AL; (void)BE; (void)ALR; (void)BER; cblas_c##r ARGS; } break;                  \
    default: { const void *AL = c->alpha, *BE = c->beta; const double ALR = c->alpha[0], BER = c->beta[0]; \
               (void)AL; (void)BE; (void)ALR; (void)BER; cblas_z##r ARGS; } break;                 \
    }

static void blas_call(const call *c, const elem *e, const void *A, const void *B, void *C, uint64_t *s)
{
    const float af[2] = {(float)c->alpha[0], (float)c->alpha[1]}, bf[2] = {(float)c->beta[0], (float)c->beta[1]};
    const int t = e->type, m = c->m, n = c->n, k = c->k, lda = c->lda, ldb = c->ldb, ldc = c->ldc;
    if (c->fortran) {
        const void *al = e->dbl ? (const void *)c->alpha : af, *be = e->dbl ? (const void *)c->beta : bf;
        char fs = "LR"[c->side], fu = "UL"[c->uplo], ft = "NTC"[c->trans], fd = "NU"[c->diag];
        if (rng_int(s, 0, 1)) {   /* lower case is legal too */
            fs = (char)tolower(fs); fu = (char)tolower(fu); ft = (char)tolower(ft); fd = (char)tolower(fd);
        }
        if (is_mm(c->r))
            f_mms[c->r][t](&fs, &fu, &m, &n, al, A, &lda, B, &ldb, be, C, &ldc, 1, 1);
        else if (is_2k(c->r))
            f_mms[c->r][t](&fu, &ft, &n, &k, al, A, &lda, B, &ldb, be, C, &ldc, 1, 1);
        else if (is_rk(c->r))
            f_rks[c->r][t](&fu, &ft, &n, &k, al, A, &lda, be, C, &ldc, 1, 1);
        else
            f_trs[c->r][t](&fs, &fu, &ft, &fd, &m, &n, al, A, &lda, C, &ldc, 1, 1, 1, 1);
        return;
    }
    const int lay = c->layout;
    const int side = c->side ? CblasRight : CblasLeft, uplo = c->uplo ? CblasLower : CblasUpper;
    const int trans = CblasNoTrans + c->trans, diag = c->diag ? CblasUnit : CblasNonUnit;
    switch (c->r) {
    case SYMM: CBLAS_CALL(symm, (lay, side, uplo, m, n, AL, A, lda, B, ldb, BE, C, ldc)) break;
    case HEMM: CBLAS_CALL_CX(hemm, (lay, side, uplo, m, n, AL, A, lda, B, ldb, BE, C, ldc)) break;
    case SYRK: CBLAS_CALL(syrk, (lay, uplo, trans, n, k, AL, A, lda, BE, C, ldc)) break;
    case HERK: CBLAS_CALL_CX(herk, (lay, uplo, trans, n, k, ALR, A, lda, BER, C, ldc)) break;
    case SYR2K: CBLAS_CALL(syr2k, (lay, uplo, trans, n, k, AL, A, lda, B, ldb, BE, C, ldc)) break;
    case HER2K: CBLAS_CALL_CX(her2k, (lay, uplo, trans, n, k, AL, A, lda, B, ldb, BER, C, ldc)) break;
    case TRMM: CBLAS_CALL(trmm, (lay, side, uplo, trans, diag, m, n, AL, A, lda, C, ldc)) break;
    default: CBLAS_CALL(trsm, (lay, side, uplo, trans, diag, m, n, AL, A, lda, C, ldc)) break;
    }
}

/* A rows x cols matrix read from its storage, row by row. */
static cld *load(const elem *e, const void *p, int layout, int ld, int rows, int cols)
{
    cld *x = malloc(((size_t)rows * cols + 1) * sizeof *x);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            x[(size_t)i * cols + j] = get(e, p, at(layout, ld, i, j));
    return x;
}
/* x's transpose (cols x rows), conjugated if conj; x is freed. */
static cld *transpose(cld *x, int rows, int cols, int conj)
{
    cld *y = malloc(((size_t)rows * cols + 1) * sizeof *y);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            y[(size_t)j * rows + i] = conj ? conjl(x[(size_t)i * cols + j]) : x[(size_t)i * cols + j];
    free(x);
    return y;
}
/* op(x) for trans 0 N, 1 T, 2 C; x is rows x cols, freed unless trans 0. */
static cld *op(cld *x, int rows, int cols, int trans) { return trans ? transpose(x, rows, cols, trans == 2) : x; }

/* The K x K matrix that symm, hemm, trmm or trsm reads from A: its uplo
 * triangle, mirrored for symm (conjugated for hemm, whose diagonal is
 * real), zeros elsewhere and ones on a unit diagonal for trmm and trsm. */
static cld *full_a(const elem *e, const call *c, const void *A, int K)
{
    cld *x = calloc((size_t)K * K + 1, sizeof *x);
    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++) {
            const int in = c->uplo == 0 ? i <= j : i >= j;
            cld v = 0.0L;
            if (i == j)
                v = is_tr(c->r) && c->diag ? 1.0L : c->r == HEMM ? creall(get(e, A, at(c->layout, c->lda, i, i)))
                                                                 : get(e, A, at(c->layout, c->lda, i, i));
            else if (in)
                v = get(e, A, at(c->layout, c->lda, i, j));
            else if (is_mm(c->r))
                v = get(e, A, at(c->layout, c->lda, j, i)), v = c->r == HEMM ? conjl(v) : v;
            x[(size_t)i * K + j] = v;
        }
    return x;
}

/* acc += s P Q and sum += |s| |P| |Q|, P rows x inner, Q inner x cols; a
 * row of acc a thread. */
static void product(cld s, const cld *P, const cld *Q, int rows, int inner, int cols, cld *acc, long double *sum)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            cld d = 0.0L;
            long double g = 0.0L;
            for (int p = 0; p < inner; p++) {
                const cld a = P[(size_t)i * inner + p], b = Q[(size_t)p * cols + j];
                d += mul(a, b);
                g += mag(a) * mag(b);
            }
            acc[(size_t)i * cols + j] += mul(s, d);
            sum[(size_t)i * cols + j] += cabsl(s) * g;
        }
}

/* x = T^-1 y for T K x K, upper or lower triangular. */
static void solve(const cld *T, int K, int upper, const cld *y, cld *x)
{
    for (int q = 0; q < K; q++) {
        const int i = upper ? K - 1 - q : q;
        cld v = y[i];
        for (int j = upper ? i + 1 : 0; j < (upper ? K : i); j++)
            v -= mul(T[(size_t)i * K + j], x[j]);
        x[i] = v / T[(size_t)i * K + i];
    }
}

/* trsm's reference and bound (see the header): X = alpha op(A)^-1 B (side
 * L) or alpha B op(A)^-1 (side R), each right-hand side a column (L) or a
 * row (R) of B. */
static void trsm_ref(const elem *e, const call *c, const void *A, const void *B, long double eps, cld *ref,
                     long double *bound)
{
    const int K = c->side ? c->n : c->m, nrhs = c->side ? c->m : c->n;
    cld *T = op(full_a(e, c, A, K), K, K, c->trans);
    int upper = (c->uplo == 0) != (c->trans != 0);
    if (c->side) {   /* x^T op(A) = alpha b^T: op(A)^T x = alpha b */
        T = transpose(T, K, K, 0);
        upper = !upper;
    }
    cld *inv = malloc(((size_t)K * K + 1) * sizeof *inv);
#pragma omp parallel for schedule(static)
    for (int j = 0; j < K; j++) {   /* T^-1, column j at a time (a thread each) */
        cld *y = malloc((K + 1) * sizeof *y), *x = malloc((K + 1) * sizeof *x);
        for (int i = 0; i < K; i++)
            y[i] = i == j;
        solve(T, K, upper, y, x);
        for (int i = 0; i < K; i++)
            inv[(size_t)i * K + j] = x[i];
        free(y);
        free(x);
    }
    const cld alpha = CMPLXL(c->alpha[0], c->alpha[1]);
#pragma omp parallel for schedule(static)
    for (int r = 0; r < nrhs; r++) {   /* a right-hand side a thread */
        cld *y = malloc((K + 1) * sizeof *y), *x = malloc((K + 1) * sizeof *x);
        long double *w = malloc((K + 1) * sizeof *w);
        for (int i = 0; i < K; i++)
            y[i] = mul(alpha, get(e, B, c->side ? at(c->layout, c->ldc, r, i) : at(c->layout, c->ldc, i, r)));
        solve(T, K, upper, y, x);
        for (int i = 0; i < K; i++) {   /* w = |T| |x| + |alpha b| */
            w[i] = mag(y[i]);
            for (int j = 0; j < K; j++)
                w[i] += mag(T[(size_t)i * K + j]) * mag(x[j]);
        }
        for (int i = 0; i < K; i++) {
            long double z = 0.0L;
            for (int j = 0; j < K; j++)
                z += mag(inv[(size_t)i * K + j]) * w[j];
            const size_t o = c->side ? (size_t)r * c->n + i : (size_t)i * c->n + r;
            ref[o] = x[i];
            bound[o] = 2.0L * (K + 2) * eps * z;
        }
        free(y); free(x); free(w);
    }
    free(T); free(inv);
}

/* Random values into the rows x cols window of p. */
static void fill(const elem *e, uint64_t *s, void *p, int layout, int ld, int rows, int cols)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            put_all(e, p, at(layout, ld, i, j), rng_value(s, e->dbl), rng_value(s, e->dbl));
}

static int dim(uint64_t *s, const opts *o)
{
    const int u = rng_int(s, 0, 15), d = rng_int(s, o->min_dim, o->max_dim);
    return o->min_dim > 0 ? d : u == 0 ? 0 : u == 1 && o->max_dim >= 1 ? 1 : d;
}

/* One random call of routine r in element type `type`; returns 0 when it
 * checks out, 1 otherwise (and prints why). */
static int one_call(uint64_t *s, const opts *o, int r, int type, int id)
{
    const elem e = {type, type == 1 || type == 3, type >= 2};
    call c = {.r = r};
    c.fortran = o->api == 1 || (o->api == 2 && rng_int(s, 0, 1));
    c.layout = c.fortran || rng_int(s, 0, 1) ? CblasColMajor : CblasRowMajor;
    c.side = rng_int(s, 0, 1);
    c.uplo = rng_int(s, 0, 1);
    c.diag = rng_int(s, 0, 1);
    if (r == HERK || r == HER2K)
        c.trans = 2 * rng_int(s, 0, 1);           /* N or C */
    else if ((r == SYRK || r == SYR2K) && e.cx)
        c.trans = rng_int(s, 0, 1);               /* N or T */
    else if (!is_mm(r))
        c.trans = rng_int(s, 0, 2);               /* N, T or C (T for the real types) */
    c.m = dim(s, o);
    c.n = dim(s, o);
    c.k = dim(s, o);
    static const double alphas[] = {1.0, -1.0, 0.5, 0.0, 2.25, 0.1};
    static const double betas[] = {0.0, 1.0, -0.75, 0.0, 3.0, -0.3};
    static const double ims[] = {0.0, 0.0, 0.0, 0.5, -1.25, 1.0};
    const int last = e.dbl ? 5 : 4;   /* 0.1 and -0.3 only where the type holds them */
    c.alpha[0] = alphas[rng_int(s, 0, last)];
    c.alpha[1] = e.cx && r != HERK ? ims[rng_int(s, 0, 5)] : 0.0;
    c.beta[0] = is_tr(r) ? 0.0 : betas[rng_int(s, 0, last)];
    c.beta[1] = e.cx && !is_tr(r) && r != HERK && r != HER2K ? ims[rng_int(s, 0, 5)] : 0.0;
    const int alpha0 = c.alpha[0] == 0.0 && c.alpha[1] == 0.0, beta0 = c.beta[0] == 0.0 && c.beta[1] == 0.0;
    const int beta1 = c.beta[0] == 1.0 && c.beta[1] == 0.0;

    /* Shapes: A ar x ac, B br x bc (if read), the output om x on. */
    const int row = c.layout == CblasRowMajor, m = c.m, n = c.n, k = c.k;
    const int K = is_rk(r) ? k : c.side ? n : m;   /* A's order, or syrk's k */
    int ar = K, ac = K, br = m, bc = n, om = m, on = n;
    if (is_rk(r)) {
        ar = c.trans ? k : n, ac = c.trans ? n : k;
        br = ar, bc = ac, om = n, on = n;
    }
    const int has_b = is_mm(r) || is_2k(r);
    c.lda = (row ? ac : ar) + rng_int(s, 0, 7);
    c.ldb = (row ? bc : br) + rng_int(s, 0, 7);
    c.ldc = (row ? on : om) + rng_int(s, 0, 7);
    if (c.lda < 1) c.lda = 1;
    if (c.ldb < 1) c.ldb = 1;
    if (c.ldc < 1) c.ldc = 1;
    const size_t es = elem_size(&e);
    const size_t na = (size_t)c.lda * (row ? ar : ac) + 1, nb = has_b ? (size_t)c.ldb * (row ? br : bc) + 1 : 1;
    const size_t nc = (size_t)c.ldc * ((row ? om : on) + 1);   /* a spare ld-row */
    void *A = malloc(na * es), *B = malloc(nb * es), *C = malloc(nc * es);
    void *A0 = malloc(na * es), *B0 = malloc(nb * es), *C0 = malloc(nc * es);

    /* A and B: NaN but for what the routine reads. */
    for (size_t i = 0; i < na; i++) put_all(&e, A, i, NAN, NAN);
    for (size_t i = 0; i < nb; i++) put_all(&e, B, i, NAN, NAN);
    if (!alpha0 && !is_rk(r)) {
        for (int i = 0; i < K; i++)
            for (int j = 0; j < K; j++) {
                const size_t a = at(c.layout, c.lda, i, j);
                if (i != j && (c.uplo == 0 ? i > j : i < j))
                    continue;   /* the other triangle */
                if (i == j && is_tr(r) && c.diag)
                    continue;   /* a unit diagonal */
                if (r != TRSM)
                    put_all(&e, A, a, rng_value(s, e.dbl), rng_value(s, e.dbl));
                else if (i != j)
                    put_all(&e, A, a, rng_value(s, e.dbl) / K, rng_value(s, e.dbl) / K);
                else {
                    /* a diagonal of magnitude 1 to about 2 */
                    const double u = rng_value(s, e.dbl);
                    put_all(&e, A, a, u < 0 ? u - 1.0 : u + 1.0, 0.5 * rng_value(s, e.dbl));
                }
                if (i == j && r == HEMM)
                    put(&e, A, a, 1, NAN);   /* a Hermitian diagonal's imaginary part */
            }
    }
    if (!alpha0 && is_rk(r))
        fill(&e, s, A, c.layout, c.lda, ar, ac);
    if (!alpha0 && has_b)
        fill(&e, s, B, c.layout, c.ldb, br, bc);
    /* The output: sentinels but for what the routine writes, NaN where it
     * must not read. */
    for (size_t i = 0; i < nc; i++) put_all(&e, C, i, SENTINEL, SENTINEL);
    const int nan_c = is_tr(r) ? alpha0 : beta0;
    for (int i = 0; i < om; i++)
        for (int j = 0; j < on; j++) {
            if (is_rk(r) && (c.uplo == 0 ? i > j : i < j))
                continue;
            const size_t a = at(c.layout, c.ldc, i, j);
            if (nan_c)
                put_all(&e, C, a, NAN, NAN);
            else
                put_all(&e, C, a, rng_value(s, e.dbl), rng_value(s, e.dbl));
            if (i == j && (r == HERK || r == HER2K))
                put(&e, C, a, 1, NAN);
        }
    memcpy(A0, A, na * es);
    memcpy(B0, B, nb * es);
    memcpy(C0, C, nc * es);

    /* The reference BLAS's quick returns leave every byte as it was. */
    const int quick = om == 0 || on == 0 || (is_mm(r) && alpha0 && beta1) ||
                      (is_rk(r) && (alpha0 || k == 0) && beta1);
    const long double eps = (e.dbl ? DBL_EPSILON : FLT_EPSILON) * (e.cx ? 2 : 1);
    const size_t nout = (size_t)om * on + 1;
    cld *ref = calloc(nout, sizeof *ref);
    long double *bound = calloc(nout, sizeof *bound);
    const cld alpha = CMPLXL(c.alpha[0], c.alpha[1]), beta = CMPLXL(c.beta[0], c.beta[1]);
    int terms = 0;   /* the length of each element's sums */
    if (quick || alpha0) {
        /* nothing read from A or B */
    } else if (r == TRSM) {
        trsm_ref(&e, &c, A, C, eps, ref, bound);
    } else if (is_rk(r)) {
        /* op(A) and op(B) n x k: C = alpha op(A) op(B)^T (+ alpha op(B)
         * op(A)^T), ^H and conj(alpha) for herk and her2k */
        const int h = is_herm(r);
        cld *pa = op(load(&e, A, c.layout, c.lda, ar, ac), ar, ac, c.trans);
        cld *qa = transpose(op(load(&e, A, c.layout, c.lda, ar, ac), ar, ac, c.trans), n, k, h);
        if (is_2k(r)) {
            cld *pb = op(load(&e, B, c.layout, c.ldb, br, bc), br, bc, c.trans);
            cld *qb = transpose(op(load(&e, B, c.layout, c.ldb, br, bc), br, bc, c.trans), n, k, h);
            product(alpha, pa, qb, n, k, n, ref, bound);
            product(h ? conjl(alpha) : alpha, pb, qa, n, k, n, ref, bound);
            free(pb); free(qb);
        } else
            product(alpha, pa, qa, n, k, n, ref, bound);
        terms = is_2k(r) ? 2 * k : k;
        free(pa); free(qa);
    } else {
        /* symm, hemm, trmm: full A times B (side L) or B times full A */
        cld *a = full_a(&e, &c, A, K);
        if (is_tr(r))
            a = op(a, K, K, c.trans);
        cld *b = load(&e, is_tr(r) ? C : B, c.layout, is_tr(r) ? c.ldc : c.ldb, m, n);
        if (c.side)
            product(alpha, b, a, m, n, n, ref, bound);
        else
            product(alpha, a, b, m, m, n, ref, bound);
        terms = K;
        free(a); free(b);
    }
    if (r != TRSM) {
        /* + beta C, C not read when beta is 0; herk's and her2k's diagonal
         * real */
        for (int i = 0; i < om && !quick; i++)
            for (int j = 0; j < on; j++) {
                const size_t o1 = (size_t)i * on + j;
                cld cin = beta0 ? 0.0L : get(&e, C, at(c.layout, c.ldc, i, j));
                if (i == j && (r == HERK || r == HER2K)) {
                    cin = creall(cin);
                    ref[o1] = creall(ref[o1]);
                }
                ref[o1] += mul(beta, cin);
                bound[o1] = 2.0L * (terms + 2) * eps * (bound[o1] + cabsl(beta) * cabsl(cin));
            }
    }

    blas_call(&c, &e, A, B, C, s);

    int bad = 0;
    char what[400];
    describe(&c, &e, what, sizeof what);
    const char *out = is_tr(r) ? "B" : "C";
    const int digits = e.dbl ? 17 : 9;
    char *written = calloc(nc, 1);
    for (int i = 0; i < om && !quick; i++)
        for (int j = 0; j < on; j++) {
            if (is_rk(r) && (c.uplo == 0 ? i > j : i < j))
                continue;
            const size_t a = at(c.layout, c.ldc, i, j), o1 = (size_t)i * on + j;
            written[a] = 1;
            const cld got = get(&e, C, a), want = ref[o1];
            const int real_diag = i == j && (r == HERK || r == HER2K);
            const long double err = real_diag ? fabsl(creall(got) - creall(want)) : cabsl(got - want);
            if (!(err <= bound[o1] + 1e-300L) || (real_diag && cimagl(got) != 0.0L)) {
                if (!bad)
                    fprintf(stderr, "call %d: %s: %s(%d,%d)=%.*Lg%+.*Lgi want %.*Lg%+.*Lgi (bound %.3Lg)\n", id,
                            what, out, i, j, digits, creall(got), digits, cimagl(got), digits, creall(want),
                            digits, cimagl(want), bound[o1]);
                bad = 1;
            }
        }
    /* Every byte the call may not write: the output's other triangle, its
     * padding and spare row (everything on a quick return), A and B. */
    size_t changed = 0;
    for (size_t i = 0; i < nc; i++)
        changed += !written[i] && memcmp((char *)C + i * es, (char *)C0 + i * es, es) != 0;
    if (changed) {
        fprintf(stderr, "call %d: %s: %zu elements of %s the call may not write were changed\n", id, what,
                changed, out);
        bad = 1;
    }
    if (memcmp(A, A0, na * es) || memcmp(B, B0, nb * es)) {
        fprintf(stderr, "call %d: %s: A or B was changed\n", id, what);
        bad = 1;
    }
    free(A); free(B); free(C); free(A0); free(B0); free(C0); free(ref); free(bound); free(written);
    return bad;
}

static void usage(void)
{
    fprintf(stderr, "usage: l3_check [--calls N] [--seed S] [--min-dim D] [--max-dim D] "
                    "[--api cblas|fortran|mixed] [--routines symm,hemm,syrk,herk,syr2k,her2k,trmm,trsm] "
                    "[--precs sdcz]\n");
}

int main(int argc, char **argv)
{
    opts o = {1000, 0, 100, 2, 42, (1u << NROUTINES) - 1, 15};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--calls") && v) o.calls = atoi(argv[++i]);
        else if (!strcmp(a, "--seed") && v) o.seed = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--max-dim") && v) o.max_dim = atoi(argv[++i]);
        else if (!strcmp(a, "--min-dim") && v) o.min_dim = atoi(argv[++i]);
        else if (!strcmp(a, "--api") && v) {
            const char *w = argv[++i];
            o.api = !strcmp(w, "fortran") ? 1 : !strcmp(w, "mixed") ? 2 : !strcmp(w, "cblas") ? 0 : -1;
            if (o.api < 0) { usage(); return 2; }
        } else if (!strcmp(a, "--routines") && v) {
            /* a comma-separated list of names */
            char list[256];
            snprintf(list, sizeof list, "%s", argv[++i]);
            o.routines = 0;
            for (char *w = strtok(list, ","); w; w = strtok(NULL, ",")) {
                int r = 0;
                while (r < NROUTINES && strcmp(w, routine_names[r]))
                    r++;
                if (r == NROUTINES) { usage(); return 2; }
                o.routines |= 1u << r;
            }
        } else if (!strcmp(a, "--precs") && v) {
            /* letters of s, d, c, z (commas allowed) */
            o.types = 0;
            for (const char *w = argv[++i]; *w; w++) {
                const char *l = strchr(type_letters, *w);
                if (*w == ',') continue;
                if (!l) { usage(); return 2; }
                o.types |= 1u << (l - type_letters);
            }
        } else { usage(); return 2; }
    }
    if (o.min_dim < 0 || o.min_dim > o.max_dim || o.calls < 0) { usage(); return 2; }
    /* The routine and element type pairs to draw from. */
    int pairs[NROUTINES * 4][2], npairs = 0;
    for (int r = 0; r < NROUTINES; r++)
        for (int t = 0; t < 4; t++)
            if ((o.routines >> r & 1) && (o.types >> t & 1) && exists(r, t))
                pairs[npairs][0] = r, pairs[npairs++][1] = t;
    if (npairs == 0) {
        fprintf(stderr, "l3_check: no routine exists in the precisions asked for\n");
        return 2;
    }
    uint64_t s = o.seed * 1000003ull;
    int failed = 0;
    for (int i = 0; i < o.calls; i++) {
        const int *p = pairs[rng_int(&s, 0, npairs - 1)];
        failed += one_call(&s, &o, p[0], p[1], i);
    }
    printf("l3_check: %d calls, %d failed\n", o.calls, failed);
    return failed ? 1 : 0;
}
