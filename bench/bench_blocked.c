/* bench/bench_blocked.c - the level-3 routines but gemm on device buffers,
 * ours beside cuBLAS's same routine in the same process: symm, hemm, syrk,
 * herk, syr2k, her2k, trmm and trsm in s, d, c, z, each call the one
 * bench_level3 makes (n x n, alpha 1, beta 0.5) in the column-major form
 * cuBLAS takes (bench_l3.h: symm, hemm RL; syrk's family LT, herk's and
 * her2k's LC; trmm, trsm RLNN).
 *   ours:   the call through the library's own mapping of a column-major
 *           call (tb_l3_of, src/gpu/blocked.c), run by the GPU route's
 *           device engine (tb_l3_device, src/gpu/level3.c): what the route
 *           runs between its upload and its download.
 *   cuBLAS: cublas<X><routine>_v2, dlopen()ed at run time (never linked;
 *           without it the table prints ours alone), default math mode.
 * Timing: CUDA events around one call on one stream, C reset from its input
 * before each call (not timed), the median of --reps calls after one
 * untimed call. Columns: ms and TFLOP/s of each (tb_call_flops' count: n^3,
 * 2 n^3 for symm, hemm, syr2k, her2k, four times that complex), cuBLAS's
 * time over ours (1.00 or more: ours as fast or faster), the first GEMM's
 * kernel, and each one's errors against a long-double reference computed
 * on the host for 32 evenly spaced lines of C: rows, or for trsm solved
 * from the left columns (each an independent solve):
 *   rel_err  ||c - ref||_F / ||ref||_F over the lines (syrk's family: the
 *            triangle the routine writes);
 *   max_err  the largest |c - ref| / mag: mag the sum of the moduli of the
 *            terms, |alpha| sum_p |x_p||y_p| + |beta||c0| for an element
 *            of a product, (|alpha||b_i| + sum_p |t_ip||x_p|) / |t_ii| for
 *            an element of a solve.
 * --check-reference: no GPU needed: the same errors for the host BLAS's
 * Fortran routines (libopenblas.so.0's dsyrk_ ...) called on host arrays
 * with the same column-major calls; each near its precision's rounding
 * error, or the reference, the calls or the mapping are wrong.
 * --nb 128,256,...: each routine again at these block sizes (tb_l3_run's
 * nb; the first row is tb_l3_block's, named in its kernel column), one row
 * each: ms, TFLOP/s, cuBLAS's time over it, its errors.
 * Usage: bench_blocked [--sizes 4096,8192] [--precs s,d,c,z]
 *                      [--routines symm,...,trsm] [--reps N] [--nb LIST]
 *                      [--check-reference] */
#include "tb_blocked.h"
#include "tb_no_gpu.h"
#include "bench_l3.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "bench_blocked: %s: %s (line %d)\n", #call,                   \
                    cudaGetErrorString(e_), __LINE__);                                    \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define NLINES 32

/* ---- the call as the library sees it ------------------------------------ */

static const tb_routine l3_rt[8] = {TB_R_symm,  TB_R_hemm,  TB_R_syrk, TB_R_herk,
                                    TB_R_syr2k, TB_R_her2k, TB_R_trmm, TB_R_trsm};

static tb_prec prec_of(char x)
{
    return x == 'd' ? TB_DOUBLE : x == 'c' ? TB_COMPLEX : x == 'z' ? TB_ZCOMPLEX : TB_SINGLE;
}

/* A scalar of c (herk's and her2k's real ones: the real part alone). */
static tb_scalar scalar(const l3call *c, const void *s, int real)
{
    const int dbl = c->x == 'd' || c->x == 'z', cx = c->x == 'c' || c->x == 'z';
    const double re = dbl ? ((const double *)s)[0] : ((const float *)s)[0];
    const double im = cx && !real ? (dbl ? ((const double *)s)[1] : ((const float *)s)[1]) : 0.0;
    return (tb_scalar){re, im};
}

/* c as the Fortran entry point reads it (a tb_call, column-major; the
 * options a routine does not take 0). */
static tb_call tb_call_of(const l3call *c)
{
    const int sh = l3_shape(c->r), rank = sh == 1 || sh == 2;
    const tb_scalar al = scalar(c, c->alpha, c->r == 3);
    const tb_scalar be = sh == 3 ? (tb_scalar){0.0, 0.0} : scalar(c, c->beta, c->r == 3 || c->r == 5);
    tb_call t = {.entry = tb_entry_of(l3_rt[c->r], prec_of(c->x), TB_FAM_plain, TB_API_FORTRAN),
                 .api = TB_API_FORTRAN, .prec = prec_of(c->x), .ints = TB_INTS_OK,
                 .layout = TB_COL_MAJOR,
                 .transa = sh == 0 ? 0 : c->trans == 'N' ? TB_NO_TRANS
                                     : c->trans == 'T' ? TB_TRANS : TB_CONJ_TRANS,
                 .side = rank ? 0 : c->side == 'L' ? TB_LEFT : TB_RIGHT,
                 .uplo = c->uplo == 'U' ? TB_UPPER : TB_LOWER,
                 .diag = sh != 3 ? 0 : c->diag == 'U' ? TB_UNIT : TB_NON_UNIT,
                 .m = rank ? c->n : c->m, .n = c->n,
                 .k = rank ? c->k : c->side == 'L' ? c->m : c->n,
                 .alpha = al.re, .alpha_im = al.im, .beta = be.re, .beta_im = be.im,
                 .A = c->A, .lda = c->lda, .B = c->B, .ldb = c->ldb, .C = c->C, .ldc = c->ldc};
    if (sh == 3) {   /* trmm's and trsm's in-out matrix is B */
        t.B = c->C;
        t.ldb = c->ldc;
        t.C = NULL;
        t.ldc = 0;
    }
    return t;
}

/* ---- cuBLAS through dlopen ------------------------------------------------ */

typedef int (*cb_symm)(void *, int, int, int, int, const void *, const void *, int, const void *,
                       int, const void *, void *, int);
typedef int (*cb_syrk)(void *, int, int, int, int, const void *, const void *, int, const void *,
                       void *, int);
typedef int (*cb_syr2k)(void *, int, int, int, int, const void *, const void *, int, const void *,
                        int, const void *, void *, int);
typedef int (*cb_trmm)(void *, int, int, int, int, int, int, const void *, const void *, int,
                       const void *, int, void *, int);
typedef int (*cb_trsm)(void *, int, int, int, int, int, int, const void *, const void *, int,
                       void *, int);
static void *cublas_lib, *cublas_handle;

static void cublas_load(cudaStream_t st)
{
    cublas_lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!cublas_lib)
        cublas_lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    int (*create)(void **) = cublas_lib ? (int (*)(void **))dlsym(cublas_lib, "cublasCreate_v2") : NULL;
    int (*setstream)(void *, cudaStream_t) =
        cublas_lib ? (int (*)(void *, cudaStream_t))dlsym(cublas_lib, "cublasSetStream_v2") : NULL;
    if (!create || !setstream || create(&cublas_handle) != 0 || setstream(cublas_handle, st) != 0) {
        printf("cuBLAS not found (%s): ours only\n", cublas_lib ? "symbols or cublasCreate" : dlerror());
        cublas_handle = NULL;
    }
}

/* cuBLAS's routine of c (NULL: none). */
static void *cublas_fn(const l3call *c)
{
    char name[32];
    snprintf(name, sizeof name, "cublas%c%s_v2", c->x - 'a' + 'A', l3_routines[c->r]);
    return cublas_handle ? dlsym(cublas_lib, name) : NULL;
}

/* c through cuBLAS's routine fn: 0 or cuBLAS's status. */
static int cublas_call(void *fn, const l3call *c)
{
    void *h = cublas_handle;
    const int side = c->side == 'R', uplo = c->uplo == 'U', diag = c->diag == 'U';
    const int trans = c->trans == 'N' ? 0 : c->trans == 'T' ? 1 : 2;
    switch (l3_shape(c->r)) {
    case 0:
        return ((cb_symm)fn)(h, side, uplo, c->m, c->n, c->alpha, c->A, c->lda, c->B, c->ldb,
                             c->beta, c->C, c->ldc);
    case 1:
        return ((cb_syrk)fn)(h, uplo, trans, c->n, c->k, c->alpha, c->A, c->lda, c->beta, c->C,
                             c->ldc);
    case 2:
        return ((cb_syr2k)fn)(h, uplo, trans, c->n, c->k, c->alpha, c->A, c->lda, c->B, c->ldb,
                              c->beta, c->C, c->ldc);
    default:
        if (c->r == 6)   /* trmm: out of place, here in place (C as B and C) */
            return ((cb_trmm)fn)(h, side, uplo, trans, diag, c->m, c->n, c->alpha, c->A, c->lda,
                                 c->C, c->ldc, c->C, c->ldc);
        return ((cb_trsm)fn)(h, side, uplo, trans, diag, c->m, c->n, c->alpha, c->A, c->lda, c->C,
                             c->ldc);
    }
}

/* ---- the reference ------------------------------------------------------ */

typedef struct {
    long double re, im;
} lcx;

static lcx lmul(lcx a, lcx b)
{
    return (lcx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
static double lmod(lcx a)
{
    const double re = (double)a.re, im = (double)a.im;
    return im == 0.0 ? fabs(re) : sqrt(re * re + im * im);
}

/* The call in row-major form (tb_l3) on host arrays, and its element type. */
typedef struct {
    const tb_l3 *p;
    int cx, dbl;
    int herm;   /* hemm, herk, her2k */
} ref;

static lcx el(const ref *f, const void *X, size_t ld, size_t i, size_t j)
{
    const size_t q = (i * ld + j) * (f->cx ? 2 : 1);
    lcx v = {f->dbl ? ((const double *)X)[q] : ((const float *)X)[q], 0.0L};
    if (f->cx)
        v.im = f->dbl ? ((const double *)X)[q + 1] : ((const float *)X)[q + 1];
    return v;
}

/* op(X)(i, j): X, X^T or X^H (trans 0, 1, 2). */
static lcx opel(const ref *f, const void *X, size_t ld, int trans, size_t i, size_t j)
{
    lcx v = trans ? el(f, X, ld, j, i) : el(f, X, ld, i, j);
    if (trans == 2)
        v.im = -v.im;
    return v;
}

/* symm's (hemm's) whole A from its stored triangle. */
static lcx sym(const ref *f, size_t i, size_t j)
{
    const tb_l3 *p = f->p;
    const int stored = p->lower ? i >= j : i <= j;
    lcx v = stored ? el(f, p->A, p->lda, i, j) : el(f, p->A, p->lda, j, i);
    if (f->herm && (i == j || !stored))
        v.im = i == j ? 0.0L : -v.im;
    return v;
}

/* trmm's and trsm's op(T)(i, j). */
static lcx tri(const ref *f, size_t i, size_t j)
{
    const tb_l3 *p = f->p;
    const size_t a = p->trans ? j : i, b = p->trans ? i : j;
    if (a == b && p->unit)
        return (lcx){1.0L, 0.0L};
    if (p->lower ? a < b : a > b)
        return (lcx){0.0L, 0.0L};
    lcx v = el(f, p->A, p->lda, a, b);
    if (p->trans == 2)
        v.im = -v.im;
    return v;
}

/* A product's term t (0; syr2k's and her2k's second: 1) as sum_p L(i, p)
 * R(p, j): the factors of tb_blocked.h's meaning of the call. */
static lcx fac_l(const ref *f, int t, size_t i, size_t q)
{
    const tb_l3 *p = f->p;
    switch (p->routine) {
    case TB_R_symm: case TB_R_hemm:
        return p->left ? sym(f, i, q) : el(f, p->B, p->ldb, i, q);
    case TB_R_trmm:
        return p->left ? tri(f, i, q) : el(f, p->C, p->ldc, i, q);   /* C: the input here */
    default:   /* U = op(A), V = op(B) */
        return t ? opel(f, p->B, p->ldb, p->trans, i, q) : opel(f, p->A, p->lda, p->trans, i, q);
    }
}
static lcx fac_r(const ref *f, int t, size_t q, size_t j)
{
    const tb_l3 *p = f->p;
    switch (p->routine) {
    case TB_R_symm: case TB_R_hemm:
        return p->left ? el(f, p->B, p->ldb, q, j) : sym(f, q, j);
    case TB_R_trmm:
        return p->left ? el(f, p->C, p->ldc, q, j) : tri(f, q, j);
    default: {   /* V(j, q) or U(j, q), conjugated for herk and her2k */
        const int two = p->routine == TB_R_syr2k || p->routine == TB_R_her2k;
        lcx v = two && !t ? opel(f, p->B, p->ldb, p->trans, j, q)
                          : opel(f, p->A, p->lda, p->trans, j, q);
        if (f->herm)
            v.im = -v.im;
        return v;
    }
    }
}

/* A factor's elements as doubles (exact: each is an input element, its
 * conjugate, 0 or 1): real parts, imaginary parts, moduli. */
typedef struct {
    double *re, *im, *mod;
} dvec;

static dvec dvec_new(size_t n)
{
    const dvec v = {malloc(sizeof(double) * n), malloc(sizeof(double) * n),
                    malloc(sizeof(double) * n)};
    return v;
}
static void dvec_set(dvec v, size_t i, lcx x)
{
    v.re[i] = (double)x.re;
    v.im[i] = (double)x.im;
    v.mod[i] = lmod(x);
}
static void dvec_free(dvec v)
{
    free(v.re), free(v.im), free(v.mod);
}

#define JB 16   /* columns of R a thread takes at a time */

/* Rows rows[0..nl) of the product routine's result into out (nl x n), and
 * the moduli of their terms into mag. Each element is a dot product over
 * q of L(i, q) R(q, j), the factors as doubles, the sum in long double;
 * a thread takes JB columns of R at a time, copied into rows of doubles. */
static void ref_products(const ref *f, const int *rows, int nl, lcx *out, double *mag)
{
    const tb_l3 *p = f->p;
    const int n = p->n, trmm = p->routine == TB_R_trmm;
    const int rank = p->routine != TB_R_symm && p->routine != TB_R_hemm && !trmm;
    const int two = p->routine == TB_R_syr2k || p->routine == TB_R_her2k;
    const size_t depth = (size_t)(rank ? p->k : p->left ? p->m : p->n);
    const double bm = lmod((lcx){p->beta.re, p->beta.im});
    for (int l = 0; l < nl; l++)
        for (int j = 0; j < n; j++) {
            lcx c0 = trmm ? (lcx){0.0L, 0.0L} : el(f, p->C, p->ldc, (size_t)rows[l], (size_t)j);
            if (f->herm && rank && rows[l] == j)
                c0.im = 0.0L;   /* herk's, her2k's diagonal: real */
            out[(size_t)l * n + j] = trmm ? c0 : lmul((lcx){p->beta.re, p->beta.im}, c0);
            mag[(size_t)l * n + j] = trmm ? 0.0 : bm * lmod(c0);
        }
    const dvec L = dvec_new((size_t)nl * depth);
    for (int t = 0; t < 1 + two; t++) {
        /* her2k's second term: conj(alpha) */
        const lcx al = {p->alpha.re, t && f->herm ? -p->alpha.im : p->alpha.im};
        const double am = lmod(al);
        for (int l = 0; l < nl; l++)
            for (size_t q = 0; q < depth; q++)
                dvec_set(L, (size_t)l * depth + q, fac_l(f, t, (size_t)rows[l], q));
#pragma omp parallel for schedule(dynamic, 1)
        for (int j0 = 0; j0 < n; j0 += JB) {
            const int nj = n - j0 < JB ? n - j0 : JB;
            const dvec R = dvec_new((size_t)nj * depth);
            for (size_t q = 0; q < depth; q++)
                for (int jj = 0; jj < nj; jj++)
                    dvec_set(R, (size_t)jj * depth + q, fac_r(f, t, q, (size_t)(j0 + jj)));
            for (int l = 0; l < nl; l++)
                for (int jj = 0; jj < nj; jj++) {
                    const double *xr = L.re + (size_t)l * depth, *xi = L.im + (size_t)l * depth;
                    const double *xm = L.mod + (size_t)l * depth, *rr = R.re + (size_t)jj * depth;
                    const double *ri = R.im + (size_t)jj * depth, *rm = R.mod + (size_t)jj * depth;
                    /* real: two sums, of the even and the odd terms
                     * (the adds' latency is the time) */
                    long double sr0 = 0.0L, sr1 = 0.0L, si = 0.0L;
                    double sm0 = 0.0, sm1 = 0.0;
                    if (f->cx)
                        for (size_t q = 0; q < depth; q++) {
                            const long double a = xr[q], b = xi[q];
                            sr0 += a * rr[q] - b * ri[q];
                            si += a * ri[q] + b * rr[q];
                        }
                    else
                        for (size_t q = 0; q < depth; q += 2) {
                            sr0 += (long double)xr[q] * rr[q];
                            if (q + 1 < depth)
                                sr1 += (long double)xr[q + 1] * rr[q + 1];
                        }
                    for (size_t q = 0; q < depth; q += 2) {
                        sm0 += xm[q] * rm[q];
                        if (q + 1 < depth)
                            sm1 += xm[q + 1] * rm[q + 1];
                    }
                    const size_t o = (size_t)l * n + j0 + jj;
                    const lcx v = lmul(al, (lcx){sr0 + sr1, si});
                    out[o].re += v.re;
                    out[o].im += v.im;
                    mag[o] += am * (sm0 + sm1);
                }
            dvec_free(R);
        }
    }
    dvec_free(L);
}

/* trsm: the lines at[0..nl) of the result (columns on the left, rows on
 * the right), solved by substitution together: on the left op(T) x =
 * alpha b, on the right x op(T) = alpha b, i.e. M x = alpha b with M(i, q)
 * = op(T)(q, i); M lower: forward. Unknown by unknown, M's row over the
 * unknowns solved so far is read once (as doubles, exact) for every line;
 * the sums are long double. */
static void ref_solves(const ref *f, const int *at, int nl, lcx *out, double *mag)
{
    const tb_l3 *p = f->p;
    const int d = p->left ? p->m : p->n;
    const int op_lower = p->lower != (p->trans != 0), forward = p->left ? op_lower : !op_lower;
    const lcx al = {p->alpha.re, p->alpha.im};
    const double am = lmod(al);
    const dvec row = dvec_new((size_t)d);
    long double *xr = malloc(sizeof(long double) * (size_t)nl * d);
    long double *xi = malloc(sizeof(long double) * (size_t)nl * d);
    double *xm = malloc(sizeof(double) * (size_t)nl * d);
    for (int s = 0; s < d; s++) {
        const int i = forward ? s : d - 1 - s;
        const int q0 = forward ? 0 : i + 1, q1 = forward ? i : d;   /* solved */
        for (int q = q0; q < q1; q++)
            dvec_set(row, (size_t)q, p->left ? tri(f, (size_t)i, (size_t)q) : tri(f, (size_t)q, (size_t)i));
        const lcx t = tri(f, (size_t)i, (size_t)i);
        const long double den = t.re * t.re + t.im * t.im;
#pragma omp parallel for schedule(static)
        for (int l = 0; l < nl; l++) {
            const size_t o = (size_t)l * d;
            const lcx b = p->left ? el(f, p->C, p->ldc, (size_t)i, (size_t)at[l])
                                  : el(f, p->C, p->ldc, (size_t)at[l], (size_t)i);
            lcx sum = lmul(al, b);
            double sm = am * lmod(b);
            for (int q = q0; q < q1; q++) {
                const long double mr = row.re[q], mi = row.im[q];
                sum.re -= mr * xr[o + q] - mi * xi[o + q];
                sum.im -= mr * xi[o + q] + mi * xr[o + q];
                sm += row.mod[q] * xm[o + q];
            }
            const lcx x = {(sum.re * t.re + sum.im * t.im) / den, (sum.im * t.re - sum.re * t.im) / den};
            xr[o + i] = x.re;
            xi[o + i] = x.im;
            xm[o + i] = lmod(x);
            out[o + i] = x;
            mag[o + i] = sm / lmod(t);
        }
    }
    dvec_free(row);
    free(xr), free(xi), free(xm);
}

/* The reference lines of the call p: which lines (rows, or columns for
 * trsm on the left), their length, and their values and magnitudes. */
typedef struct {
    int cols, nl, len;
    int at[NLINES];
    lcx *val;
    double *mag;
} lines;

static lines reference(const ref *f)
{
    const tb_l3 *p = f->p;
    lines r = {.cols = p->routine == TB_R_trsm && p->left};
    const int count = r.cols ? p->n : p->m;
    r.len = r.cols ? p->m : p->n;
    r.nl = count < NLINES ? count : NLINES;
    for (int l = 0; l < r.nl; l++)
        r.at[l] = (int)((long long)l * (count - 1) / (r.nl > 1 ? r.nl - 1 : 1));
    r.val = malloc(sizeof(lcx) * (size_t)r.nl * r.len);
    r.mag = malloc(sizeof(double) * (size_t)r.nl * r.len);
    if (p->routine == TB_R_trsm)
        ref_solves(f, r.at, r.nl, r.val, r.mag);
    else
        ref_products(f, r.at, r.nl, r.val, r.mag);
    return r;
}

/* rel_err and (*maxe) max_err of the result C (row-major form, ldc; on the
 * device or not) over the reference lines; syrk's family: the triangle. */
static double errors(const ref *f, const lines *r, const void *C, size_t ldc, int device, double *maxe)
{
    const tb_l3 *p = f->p;
    const size_t es = tb_dtype_size(p->dtype);
    const int rank = p->routine == TB_R_syrk || p->routine == TB_R_herk ||
                     p->routine == TB_R_syr2k || p->routine == TB_R_her2k;
    char *h = malloc(es * (size_t)r->len);
    long double num = 0, den = 0;
    double mx = 0;
    for (int l = 0; l < r->nl; l++) {
        const char *src = (const char *)C + (r->cols ? (size_t)r->at[l] : (size_t)r->at[l] * ldc) * es;
        const size_t stride = r->cols ? ldc * es : es;
        if (device)
            CK(cudaMemcpy2D(h, es, src, stride, es, (size_t)r->len, cudaMemcpyDeviceToHost));
        else
            for (int j = 0; j < r->len; j++)
                memcpy(h + (size_t)j * es, src + (size_t)j * stride, es);
        for (int j = 0; j < r->len; j++) {
            if (rank && (p->lower ? j > r->at[l] : j < r->at[l]))
                continue;
            const lcx c = el(f, h, 0, 0, (size_t)j), w = r->val[(size_t)l * r->len + j];
            const long double dr = c.re - w.re, di = c.im - w.im, d2 = dr * dr + di * di;
            num += d2;
            den += w.re * w.re + w.im * w.im;
            const double mg = r->mag[(size_t)l * r->len + j], d = (double)sqrtl(d2);
            const double e = mg > 0 ? d / mg : d;
            if (e > mx || e != e)
                mx = e;
        }
    }
    free(h);
    *maxe = mx;
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

/* ---- one routine ---------------------------------------------------------- */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The answer of the last run that failed: a cudaError_t, cuBLAS's status,
 * or TB_L3_NO_SCRATCH. */
static int fail_rc;

/* The median ms of reps runs of c (after one untimed), C reset from C0
 * before each: ours (fn NULL: tb_l3_device on d at block size nb, 0 the
 * library's) or cuBLAS's fn; -1 on an
 * error (fail_rc). */
static float time_runs(void *fn, const l3call *c, const tb_l3 *d, int nb, const void *C0,
                       size_t bytes, cudaStream_t st, int reps, const char **kernel)
{
    cudaEvent_t e0, e1;
    float t[64];
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int rc = 0;
    for (int i = 0; i <= reps && rc == 0; i++) {
        CK(cudaMemcpyAsync(c->C, C0, bytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaEventRecord(e0, st));
        rc = fn ? cublas_call(fn, c) : tb_l3_device(d, nb, st, kernel);
        CK(cudaEventRecord(e1, st));
        if (rc == 0 && (rc = (int)cudaEventSynchronize(e1)) == 0)
            rc = (int)cudaGetLastError();
        if (i > 0 && rc == 0)
            CK(cudaEventElapsedTime(&t[i - 1], e0, e1));
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    if (rc != 0) {
        fail_rc = rc;
        cudaDeviceSynchronize();
        cudaGetLastError();
        return -1.0f;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_float);
    return t[reps / 2];
}

/* Host arrays: A, B, C0 (and the result R for --check-reference); device
 * arrays dA, dB, dC0, dC. */
typedef struct {
    char x;
    int n;
    size_t bytes;
    void *A, *B, *C0, *R;
    void *dA, *dB, *dC0, *dC;
} arrays;

/* Routine r on the arrays: a table row. blas: --check-reference's host
 * BLAS (dlopen handle), else the GPU. Returns 0, or 1 on a failure. */
static int bench_routine(int r, const arrays *a, int reps, cudaStream_t st, void *blas,
                         const int *nbs, int nnb)
{
    const char x = a->x;
    const int n = a->n;
    char name[16], ops[8];
    snprintf(name, sizeof name, "%c%s", x, l3_routines[r]);
    const l3call hc = l3_call(r, x, n, a->A, a->B, blas ? a->R : a->C0);
    tb_call tc = tb_call_of(&hc);
    tb_l3 hp, dp;
    if (!tc.entry || tb_call_illegal(&tc) != 0 || tb_l3_of(&tc, &hp) != 0) {
        fprintf(stderr, "bench_blocked: %s: not a legal call\n", name);
        return 1;
    }
    hp.C = a->C0;   /* the reference reads the input */
    const ref f = {&hp, x == 'c' || x == 'z', x == 'd' || x == 'z',
                   r == 1 || r == 3 || r == 5};
    const double flops = (double)tb_call_flops(&tc);
    printf("%-7s %-4s %6d", name, tb_call_ops(&tc, ops), n);
    fflush(stdout);
    lines ref_lines = reference(&f);
    int bad = 0;
    if (blas) {
        char fname[24];
        snprintf(fname, sizeof fname, "%s_", name);
        void *fn = dlsym(blas, fname);
        if (!fn) {
            printf("  no %s\n", fname);
            bad = 1;
        } else {
            memcpy(a->R, a->C0, a->bytes);
            l3_fortran(fn, &hc);
            double maxe;
            const double rel = errors(&f, &ref_lines, a->R, hp.ldc, 0, &maxe);
            printf(" %10.2e %10.2e\n", rel, maxe);
        }
    } else {
        const l3call dc = l3_call(r, x, n, a->dA, a->dB, a->dC);
        dp = hp;
        dp.A = a->dA;
        dp.B = hp.B ? a->dB : NULL;
        dp.C = a->dC;
        const char *kernel = "-";
        const float ours = time_runs(NULL, &dc, &dp, 0, a->dC0, a->bytes, st, reps, &kernel);
        double oe = NAN, om = NAN, ce = NAN, cm = NAN;
        if (ours >= 0)
            oe = errors(&f, &ref_lines, a->dC, hp.ldc, 1, &om);
        void *fn = cublas_fn(&dc);
        const float cub = fn ? time_runs(fn, &dc, NULL, 0, a->dC0, a->bytes, st, reps, NULL) : -1.0f;
        if (cub >= 0)
            ce = errors(&f, &ref_lines, a->dC, hp.ldc, 1, &cm);
        char t_ours[48] = "    failed        -", t_cub[48] = "          -        -",
             ratio[16] = "      -";
        if (ours >= 0)
            snprintf(t_ours, sizeof t_ours, "%10.3f %8.2f", ours, flops / (ours * 1e-3) * 1e-12);
        if (cub >= 0)
            snprintf(t_cub, sizeof t_cub, "%11.3f %8.2f", cub, flops / (cub * 1e-3) * 1e-12);
        if (ours > 0 && cub > 0)
            snprintf(ratio, sizeof ratio, "%7.2f", cub / ours);
        printf(" %s %s %s %10.2e %10.2e %10.2e %10.2e  %s, nb %d\n", t_ours, t_cub, ratio, oe, ce,
               om, cm, kernel, tb_l3_block(&dp));
        bad = ours < 0 || (fn && cub < 0);
        if (bad)
            printf("bench_blocked: %s: %s failed (%d%s%s)\n", name, ours < 0 ? "ours" : "cuBLAS",
                   fail_rc, ours < 0 && fail_rc > 0 ? ": " : "",
                   ours < 0 && fail_rc > 0 ? cudaGetErrorString((cudaError_t)fail_rc) : "");
        /* --nb: the same call at other block sizes (tb_l3_block's is the
         * row above: nb there) */
        for (int i = 0; i < nnb && ours >= 0; i++) {
            const float t = time_runs(NULL, &dc, &dp, nbs[i], a->dC0, a->bytes, st, reps, NULL);
            double e = NAN, m = NAN;
            if (t >= 0)
                e = errors(&f, &ref_lines, a->dC, hp.ldc, 1, &m);
            printf("%-7s nb %-5d %10.3f %8.2f %20s %7.2f %10.2e %21s %10.2e\n", name, nbs[i], t,
                   t > 0 ? flops / (t * 1e-3) * 1e-12 : 0.0, "", t > 0 && cub > 0 ? cub / t : 0.0,
                   e, "", m);
            bad |= t < 0;
        }
    }
    fflush(stdout);
    free(ref_lines.val);
    free(ref_lines.mag);
    return bad;
}

int main(int argc, char **argv)
{
    const char *sizes = "4096,8192", *precs = "s,d,c,z", *which = NULL;
    int nbs[16], nnb = 0;
    int reps = 5, check = 0;
    static const char usage[] = "usage: bench_blocked [--sizes 4096,8192] [--precs s,d,c,z] "
                                "[--routines symm,...,trsm] [--reps N] [--nb 128,256,...] "
                                "[--check-reference]\n";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--precs") && i + 1 < argc)
            precs = argv[++i];
        else if (!strcmp(argv[i], "--routines") && i + 1 < argc)
            which = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--check-reference"))
            check = 1;
        else if (!strcmp(argv[i], "--nb") && i + 1 < argc && (nnb = l3_sizes(argv[++i], nbs, 16)) >= 0)
            ;
        else {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (reps < 1 || reps > 63)
        reps = 5;
    int ns[16];
    const int nsizes = l3_sizes(sizes, ns, 16);
    if (nsizes < 0) {
        fprintf(stderr, "bench_blocked: bad --sizes %s\n", sizes);
        return 2;
    }
    void *blas = NULL;
    cudaStream_t st = NULL;
    if (check) {
        blas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!blas) {
            fprintf(stderr, "bench_blocked: %s\n", dlerror());
            return 1;
        }
        printf("bench_blocked --check-reference: libopenblas.so.0's Fortran routines on host "
               "arrays against the reference of %d lines\n%-7s %-4s %6s %10s %10s\n",
               NLINES, "routine", "ops", "n", "rel_err", "max_err");
    } else {
        int ndev = 0;
        const cudaError_t de = cudaGetDeviceCount(&ndev);
        if (de != cudaSuccess || ndev == 0) {
            printf("SKIP: no GPU (%s)\n", tb_no_gpu_text(de, ndev));
            return 77;
        }
        struct cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, 0));
        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        cublas_load(st);
        printf("device: %s, %d SMs, cc %d.%d; the level-3 routines on device buffers, median of "
               "%d; errors against a long-double reference on %d lines of C\n",
               prop.name, prop.multiProcessorCount, prop.major, prop.minor, reps, NLINES);
        printf("%-7s %-4s %6s %10s %8s %11s %8s %7s %10s %10s %10s %10s  %s\n", "routine", "ops",
               "n", "ours ms", "TFLOP/s", "cuBLAS ms", "TFLOP/s", "cuB/our", "rel ours",
               "rel cuBLAS", "max ours", "max cuBLAS", "kernel");
    }
    int bad = 0;
    for (int si = 0; si < nsizes; si++) {
        const int n = ns[si];
        for (const char *x = "sdcz"; *x; x++) {
            if (!l3_prec_listed(precs, *x))
                continue;
            arrays a = {.x = *x, .n = n, .bytes = (size_t)n * n * l3_es(*x)};
            a.A = malloc(a.bytes);
            a.B = malloc(a.bytes);
            a.C0 = malloc(a.bytes);
            a.R = check ? malloc(a.bytes) : NULL;
            if (!a.A || !a.B || !a.C0 || (check && !a.R)) {
                fprintf(stderr, "bench_blocked: n %d: out of host memory\n", n);
                return 1;
            }
            l3_inputs(*x, n, a.A, a.B, a.C0);
            if (!check) {
                CK(cudaMalloc(&a.dA, a.bytes));
                CK(cudaMalloc(&a.dB, a.bytes));
                CK(cudaMalloc(&a.dC0, a.bytes));
                CK(cudaMalloc(&a.dC, a.bytes));
                CK(cudaMemcpy(a.dA, a.A, a.bytes, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(a.dB, a.B, a.bytes, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(a.dC0, a.C0, a.bytes, cudaMemcpyHostToDevice));
            }
            for (int r = 0; r < 8; r++)
                if (l3_exists(r, *x) && (!which || l3_listed(which, l3_routines[r])))
                    bad |= bench_routine(r, &a, reps, st, blas, nbs, nnb);
            if (!check) {
                CK(cudaFree(a.dA));
                CK(cudaFree(a.dB));
                CK(cudaFree(a.dC0));
                CK(cudaFree(a.dC));
            }
            free(a.A), free(a.B), free(a.C0), free(a.R);
        }
    }
    return bad;
}
