/* tests/blocked_host.c - the CPU engine (blocked_host.h): each primitive
 * of tb_l3_engine as the plain loops its CUDA kernel runs in parallel
 * (kernels/blocks_00_diag.cu: one thread an element of a block, or one
 * vector of a triangular step). */
#include "blocked_host.h"
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef double _Complex cx;

static int is_cx(tb_dtype t) { return t == TB_C32 || t == TB_C64; }

/* Element i of an array of type t, and a value stored as one. */
static cx get(tb_dtype t, const void *p, size_t i)
{
    switch (t) {
    case TB_F32: return ((const float *)p)[i];
    case TB_F64: return ((const double *)p)[i];
    case TB_C32: return CMPLX(((const float *)p)[2 * i], ((const float *)p)[2 * i + 1]);
    default: return CMPLX(((const double *)p)[2 * i], ((const double *)p)[2 * i + 1]);
    }
}

static void put(tb_dtype t, void *p, size_t i, cx v)
{
    switch (t) {
    case TB_F32: ((float *)p)[i] = (float)creal(v); break;
    case TB_F64: ((double *)p)[i] = creal(v); break;
    case TB_C32: ((float *)p)[2 * i] = (float)creal(v); ((float *)p)[2 * i + 1] = (float)cimag(v); break;
    default: ((double *)p)[2 * i] = creal(v); ((double *)p)[2 * i + 1] = cimag(v); break;
    }
}

static cx sc(tb_scalar s) { return CMPLX(s.re, s.im); }

/* op(X)(i, j) of a stored row-major X: transposed when t, conjugated too
 * when t == 2 and the type is complex. */
static cx op_el(tb_dtype dt, const void *X, size_t ld, int t, size_t i, size_t j)
{
    if (!t)
        return get(dt, X, i * ld + j);
    const cx v = get(dt, X, j * ld + i);
    return t == 2 && is_cx(dt) ? conj(v) : v;
}

static double flop_scale(tb_dtype t) { return is_cx(t) ? 4.0 : 1.0; }

/* s x, s real: each part alone (no 0 x inf), as tb_scalar's rule says. */
static cx scale(tb_scalar s, cx x)
{
    return s.im == 0.0 ? CMPLX(s.re * creal(x), s.re * cimag(x)) : sc(s) * x;
}

static int is_zero(tb_scalar s) { return s.re == 0.0 && s.im == 0.0; }

/* C = alpha op(A) op(B) + beta C as tb_gemm says: k 0 or alpha 0 read
 * neither A nor B, beta 0 never reads C; an element outside a wanted
 * triangle (g->tri) becomes NaN, so that a step reading it shows. */
static int host_gemm(void *ctx, const tb_gemm *g)
{
    blk_host *h = ctx;
    const tb_dtype dt = g->dtype;
    const int k = is_zero(g->alpha) ? 0 : g->k;
    h->gemms++;
    h->gemm_flops += 2.0 * g->m * g->n * k * flop_scale(dt);
    for (int i = 0; i < g->m; i++)
        for (int j = 0; j < g->n; j++) {
            if (TB_TILE_UNWANTED(g->tri, g->tri_w, i, 1, j, 1)) {
                put(dt, g->C, (size_t)i * g->ldc + j, CMPLX(NAN, NAN));
                continue;
            }
            cx acc = 0;
            for (int l = 0; l < k; l++)
                acc += op_el(dt, g->A, g->lda, g->transa, i, l) *
                       op_el(dt, g->B, g->ldb, g->transb, l, j);
            const size_t c = (size_t)i * g->ldc + j;
            cx v = k ? scale(g->alpha, acc) : 0;
            if (!is_zero(g->beta))
                v += scale(g->beta, get(dt, g->C, c));
            put(dt, g->C, c, v);
        }
    return 0;
}

static int in_tri(int lower, int i, int j) { return lower ? i >= j : i <= j; }

static int host_merge(void *ctx, const tb_blk_merge *a)
{
    blk_host *h = ctx;
    h->merges++;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < a->n; j++) {
            if (!in_tri(a->lower, i, j))
                continue;
            const size_t c = (size_t)i * a->ldc + j;
            cx p = a->P ? get(a->dtype, a->P, (size_t)i * a->ldp + j) : 0;
            cx v;
            if (a->herm && i == j) {   /* the imaginary parts neither read nor kept */
                v = creal(p);
                if (!is_zero(a->beta))
                    v += a->beta.re * creal(get(a->dtype, a->C, c));
            } else {
                v = p;
                if (!is_zero(a->beta))
                    v += scale(a->beta, get(a->dtype, a->C, c));
            }
            put(a->dtype, a->C, c, v);
        }
    return 0;
}

static int host_full(void *ctx, const tb_blk_full *a)
{
    blk_host *h = ctx;
    h->fulls++;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < a->n; j++) {
            if (!in_tri(a->lower, i, j))
                continue;
            const cx v = get(a->dtype, a->A, (size_t)i * a->lda + j);
            if (i == j) {
                put(a->dtype, a->S, (size_t)i * a->lds + i, a->herm ? creal(v) : v);
                continue;
            }
            put(a->dtype, a->S, (size_t)i * a->lds + j, v);
            put(a->dtype, a->S, (size_t)j * a->lds + i, a->herm ? conj(v) : v);
        }
    return 0;
}

/* T(i, j): A's triangle, zero outside it, one on a unit diagonal (not read). */
static cx tri_el(const tb_blk_tri *a, int i, int j)
{
    if (a->unit && i == j)
        return 1;
    if (!in_tri(a->lower, i, j))
        return 0;
    return get(a->dtype, a->A, (size_t)i * a->lda + j);
}

/* op(T)(i, j) */
static cx op_tri(const tb_blk_tri *a, int i, int j)
{
    if (!a->trans)
        return tri_el(a, i, j);
    const cx v = tri_el(a, j, i);
    return a->trans == 2 && is_cx(a->dtype) ? conj(v) : v;
}

/* E(i, j) = op(T)(i, j) on the left, op(T)(j, i) on the right: each
 * vector x of B (left: a column, right: a row) becomes alpha E x, or the
 * solution of E x = alpha x (x^T op(T) is (op(T)^T x)^T). E is lower when
 * op(T) is lower on the left or upper on the right. In place, in the order
 * that reads each x(j) while it is the value needed: a solve along the
 * triangle (x(j), j before i, already solved), a product against it (x(j),
 * j on i's side of the diagonal, not yet overwritten). */
static cx e_el(const tb_blk_tri *a, int i, int j)
{
    return a->left ? op_tri(a, i, j) : op_tri(a, j, i);
}

static int host_tri(void *ctx, const tb_blk_tri *a)
{
    blk_host *h = ctx;
    const int n = a->n;
    h->tris++;
    h->tri_flops += (double)n * n * a->m * flop_scale(a->dtype);
    const size_t step = a->left ? a->ldb : 1, vstep = a->left ? 1 : a->ldb;
    const int lower = (a->lower != (a->trans != 0)) == a->left;
    for (int v = 0; v < a->m; v++) {   /* one CUDA thread each */
        void *x = (char *)a->B + (size_t)v * vstep * tb_dtype_size(a->dtype);
        for (int s = 0; s < n; s++) {
            const int i = lower == a->solve ? s : n - 1 - s;
            cx acc = a->solve ? scale(a->alpha, get(a->dtype, x, (size_t)i * step)) : 0;
            for (int j = 0; j < n; j++) {
                if (!in_tri(lower, i, j) || (a->solve && j == i))
                    continue;
                const cx t = e_el(a, i, j) * get(a->dtype, x, (size_t)j * step);
                acc = a->solve ? acc - t : acc + t;
            }
            const cx y = a->solve ? (a->unit ? acc : acc / e_el(a, i, i)) : scale(a->alpha, acc);
            put(a->dtype, x, (size_t)i * step, y);
        }
    }
    return 0;
}

static void *host_scratch(void *ctx, size_t bytes)
{
    blk_host *h = ctx;
    if (h->fail_scratch)
        return NULL;
    if (bytes > h->scratch_max)
        h->scratch_max = bytes;
    void *p = malloc(bytes ? bytes : 1);
    if (p) {
        memset(p, 0xff, bytes ? bytes : 1);   /* NaN everywhere: what is not written shows */
        h->scratch_live++;
    }
    return p;
}

static void host_scratch_free(void *ctx, void *p)
{
    blk_host *h = ctx;
    if (p)
        h->scratch_live--;
    free(p);
}

tb_l3_engine blk_host_engine(blk_host *h)
{
    const tb_l3_engine e = {h, host_gemm, host_merge, host_full, host_tri, host_scratch,
                            host_scratch_free};
    return e;
}
