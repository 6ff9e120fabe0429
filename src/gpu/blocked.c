/* src/gpu/blocked.c - symm, hemm, syrk, herk, syr2k, her2k, trmm and trsm
 * as recursive blocked algorithms over an engine (tb_blocked.h says what
 * and for whom; docs/blocked.md how each routine is cut).
 *
 * A routine's matrix of order d (C for syrk's family, A for the others) is
 * cut in two at s, a multiple of nb near d / 2, and each half again, down
 * to diagonal blocks of at most nb. Off the diagonal everything is a GEMM
 * (the largest ones, d/2 wide, first); a diagonal block is a GEMM into
 * scratch merged into C's triangle (syrk's family), a GEMM on the whole
 * block made from its triangle (symm, hemm), or a triangular step in place
 * (trmm, trsm), whose flops are about nb / d of the call's. The order of
 * the steps is the one that keeps trmm and trsm in place: each step reads
 * only parts of C that are still what it needs. */
#include "tb_blocked.h"

/* op(X) of a stored row-major X: where it starts, its stride, and the
 * tb_gemm transpose (0, 1, 2) that reads it. */
typedef struct tb_op {
    const void *p;
    size_t ld;
    int t;
} tb_op;

typedef struct tb_run {
    const tb_l3 *p;
    const tb_l3_engine *e;
    int nb;
    size_t es;          /* bytes of an element                               */
    int herm;           /* hemm, herk, her2k: conjugate transposes           */
    void *S;            /* scratch: a diagonal block, stride lds             */
    size_t lds;         /* min(nb, d): the largest diagonal block            */
    int err;
} tb_run;

static const tb_scalar tb_one = {1.0, 0.0}, tb_minus_one = {-1.0, 0.0}, tb_zero = {0.0, 0.0};

static int tb_is(tb_scalar s, double re) { return s.re == re && s.im == 0.0; }

static const void *tb_el(const tb_run *r, const void *x, size_t ld, size_t i, size_t j)
{
    return (const char *)x + (i * ld + j) * r->es;
}

/* Element (i, j) of op(x) on: the submatrix of op(x) from there. */
static tb_op tb_sub(const tb_run *r, tb_op x, size_t i, size_t j)
{
    x.p = x.t ? tb_el(r, x.p, x.ld, j, i) : tb_el(r, x.p, x.ld, i, j);
    return x;
}

/* op(x)^T, or op(x)^H for the Hermitian routines: op(x) is x, x^T (not
 * Hermitian) or x^H (Hermitian), so this is x^T, x^H or x. */
static tb_op tb_adj(const tb_run *r, tb_op x)
{
    x.t = x.t ? 0 : r->herm ? 2 : 1;
    return x;
}

/* The block of the whole symmetric (Hermitian) matrix A of symm (hemm) at
 * (i, j), off the diagonal: the stored block itself, or the transpose
 * (conjugate transpose) of the stored block at (j, i). */
static tb_op tb_sym_block(const tb_run *r, size_t i, size_t j)
{
    const tb_l3 *p = r->p;
    const int stored = p->lower ? i > j : i < j;
    const tb_op a = {p->A, p->lda, 0};
    return stored ? tb_sub(r, a, i, j) : tb_adj(r, tb_sub(r, a, j, i));
}

static void *tb_c(const tb_run *r, size_t i, size_t j)
{
    return (void *)tb_el(r, r->p->C, r->p->ldc, i, j);
}

/* C (m x n, ldc) = alpha op(a) op(b) + beta C, op(a) m x k; alpha 0 is a
 * product of depth 0 (a and b are not read). tri: tb_gemm's wanted
 * triangle (0: all of C). */
static void tb_mm_tri(tb_run *r, int m, int n, int k, tb_scalar alpha, tb_op a, tb_op b,
                      tb_scalar beta, void *c, size_t ldc, int tri)
{
    if (r->err || m <= 0 || n <= 0)
        return;
    if (tb_is(alpha, 0.0)) {
        if (tb_is(beta, 1.0))
            return;
        k = 0;
    }
    const tb_gemm g = {r->p->dtype, m, n, k, a.t, b.t, alpha, beta, a.p, a.ld, b.p, b.ld, c, ldc,
                       tri, 1};
    r->err = r->e->gemm(r->e->ctx, &g);
}

static void tb_mm(tb_run *r, int m, int n, int k, tb_scalar alpha, tb_op a, tb_op b,
                  tb_scalar beta, void *c, size_t ldc)
{
    tb_mm_tri(r, m, n, k, alpha, a, b, beta, c, ldc, 0);
}

/* Where d is cut: half its blocks of nb (d > nb, so 0 < s < d). */
static int tb_half(int d, int nb)
{
    return (d + nb - 1) / nb / 2 * nb;
}

/* ---- syrk, herk, syr2k, her2k: C's rows and columns [o, o + n) ---------- */

/* U = op(A) and V = op(B) (syrk, herk: V = U), both n x k. */
static tb_op tb_u(const tb_run *r)
{
    const tb_op u = {r->p->A, r->p->lda, r->p->trans};
    return u;
}
static tb_op tb_v(const tb_run *r)
{
    const tb_l3 *p = r->p;
    const int two = p->routine == TB_R_syr2k || p->routine == TB_R_her2k;
    const tb_op v = {two ? p->B : p->A, two ? p->ldb : p->lda, p->trans};
    return v;
}

/* The second term's alpha: her2k's conj(alpha), syr2k's alpha. */
static tb_scalar tb_alpha2(const tb_run *r)
{
    tb_scalar a = r->p->alpha;
    if (r->herm)
        a.im = -a.im;
    return a;
}

/* C(i.., j..) m x n = alpha U_i V_j^T (+ alpha2 V_i U_j^T) + beta C, into c;
 * tri: only that triangle of it wanted (a diagonal block). */
static void tb_rank(tb_run *r, int i, int j, int m, int n, tb_scalar beta, void *c, size_t ldc,
                    int tri)
{
    const tb_l3 *p = r->p;
    const tb_op u = tb_u(r), v = tb_v(r);
    tb_mm_tri(r, m, n, p->k, p->alpha, tb_sub(r, u, i, 0), tb_sub(r, tb_adj(r, v), 0, j), beta, c,
              ldc, tri);
    if (p->routine == TB_R_syr2k || p->routine == TB_R_her2k)
        tb_mm_tri(r, m, n, p->k, tb_alpha2(r), tb_sub(r, v, i, 0), tb_sub(r, tb_adj(r, u), 0, j),
                  tb_one, c, ldc, tri);
}

static void tb_rk(tb_run *r, int o, int n)
{
    const tb_l3 *p = r->p;
    if (r->err)
        return;
    if (n <= r->nb) {
        /* The block's product into scratch (its triangle wanted: a kernel
         * may skip the other's tiles), then the triangle into C. */
        const int product = p->k > 0 && !tb_is(p->alpha, 0.0);
        if (product)
            tb_rank(r, o, o, n, n, tb_zero, r->S, r->lds, p->lower ? TB_TRI_LOWER : TB_TRI_UPPER);
        const tb_blk_merge a = {p->dtype, n, p->lower, r->herm, p->beta,
                                product ? r->S : NULL, r->lds, tb_c(r, o, o), p->ldc};
        if (!r->err)
            r->err = r->e->merge(r->e->ctx, &a);
        return;
    }
    const int s = tb_half(n, r->nb);
    tb_rk(r, o, s);
    if (p->lower)   /* C(o+s.., o..) (n-s) x s */
        tb_rank(r, o + s, o, n - s, s, p->beta, tb_c(r, o + s, o), p->ldc, 0);
    else            /* C(o.., o+s..) s x (n-s) */
        tb_rank(r, o, o + s, s, n - s, p->beta, tb_c(r, o, o + s), p->ldc, 0);
    tb_rk(r, o + s, n - s);
}

/* ---- symm, hemm: A's rows and columns [o, o + d) ------------------------
 * Left: C's rows [o, o + d) = alpha A(o.., :) B + beta C; right: C's
 * columns = alpha B A(:, o..) + beta C. `beta` is the call's beta the first
 * time a part of C is written, then 1. */
static void tb_sy(tb_run *r, int o, int d, tb_scalar beta)
{
    const tb_l3 *p = r->p;
    const tb_op b = {p->B, p->ldb, 0};
    if (r->err)
        return;
    if (d <= r->nb) {
        const tb_blk_full f = {p->dtype, d, p->lower, r->herm,
                               tb_el(r, p->A, p->lda, o, o), p->lda, r->S, r->lds};
        r->err = r->e->full(r->e->ctx, &f);
        const tb_op s = {r->S, r->lds, 0};
        if (p->left)
            tb_mm(r, d, p->n, d, p->alpha, s, tb_sub(r, b, o, 0), beta, tb_c(r, o, 0), p->ldc);
        else
            tb_mm(r, p->m, d, d, p->alpha, tb_sub(r, b, 0, o), s, beta, tb_c(r, 0, o), p->ldc);
        return;
    }
    const int s = tb_half(d, r->nb), o2 = o + s, d2 = d - s;
    tb_sy(r, o, s, beta);
    if (p->left) {
        /* C1 += alpha A12 B2; C2 = alpha A21 B1 + beta C2 */
        tb_mm(r, s, p->n, d2, p->alpha, tb_sym_block(r, o, o2), tb_sub(r, b, o2, 0), tb_one,
              tb_c(r, o, 0), p->ldc);
        tb_mm(r, d2, p->n, s, p->alpha, tb_sym_block(r, o2, o), tb_sub(r, b, o, 0), beta,
              tb_c(r, o2, 0), p->ldc);
    } else {
        /* C1 += alpha B2 A21; C2 = alpha B1 A12 + beta C2 */
        tb_mm(r, p->m, s, d2, p->alpha, tb_sub(r, b, 0, o2), tb_sym_block(r, o2, o), tb_one,
              tb_c(r, 0, o), p->ldc);
        tb_mm(r, p->m, d2, s, p->alpha, tb_sub(r, b, 0, o), tb_sym_block(r, o, o2), beta,
              tb_c(r, 0, o2), p->ldc);
    }
    tb_sy(r, o2, d2, tb_one);
}

/* ---- trmm, trsm: op(T)'s rows and columns [o, o + d) --------------------
 * C1 = C's rows (left) or columns (right) [o, o + s), C2 the rest; T11,
 * T12, T21, T22 the blocks of op(T). Which half goes first is fixed by
 * which of T12 and T21 is zero (op(T) upper or lower) and the side, so
 * that each GEMM reads a half of C that is still the one it needs: the old
 * one (trmm) or the solved one (trsm). */

/* The diagonal block of op(T) at [o, o + d) applied to C's part there. */
static void tb_tri_leaf(tb_run *r, int o, int d, tb_scalar alpha)
{
    const tb_l3 *p = r->p;
    if (r->err)
        return;
    const tb_blk_tri a = {p->dtype, p->routine == TB_R_trsm, p->left, p->lower, p->trans,
                          p->unit, d, p->left ? p->n : p->m, alpha,
                          tb_el(r, p->A, p->lda, o, o), p->lda,
                          p->left ? tb_c(r, o, 0) : tb_c(r, 0, o), p->ldc};
    r->err = r->e->tri(r->e->ctx, &a);
}

/* C's part at i (rows on the left, columns on the right) = ga op(T)(i, j)
 * C's part at j (left) or C(j) op(T)(j, i) (right), + gb C's part at i;
 * mi and mj the parts' widths. */
static void tb_tri_mm(tb_run *r, int i, int mi, int j, int mj, tb_scalar ga, tb_scalar gb)
{
    const tb_l3 *p = r->p;
    const tb_op t = {p->A, p->lda, p->trans};
    const tb_op c = {p->C, p->ldc, 0};
    if (p->left)
        tb_mm(r, mi, p->n, mj, ga, tb_sub(r, t, i, j), tb_sub(r, c, j, 0), gb, tb_c(r, i, 0),
              p->ldc);
    else
        tb_mm(r, p->m, mi, mj, ga, tb_sub(r, c, 0, j), tb_sub(r, t, j, i), gb, tb_c(r, 0, i),
              p->ldc);
}

static void tb_tr(tb_run *r, int o, int d, tb_scalar alpha)
{
    const tb_l3 *p = r->p;
    if (r->err)
        return;
    if (d <= r->nb) {
        tb_tri_leaf(r, o, d, alpha);
        return;
    }
    const int s = tb_half(d, r->nb), o2 = o + s, d2 = d - s;
    const int op_lower = p->lower != (p->trans != 0);
    /* Whether the half at o is done first: the one that the other half's
     * GEMM must read new (trsm) or that must be written after it (trmm). */
    const int first = (p->routine == TB_R_trsm) == (op_lower == p->left);
    if (p->routine == TB_R_trsm) {
        /* the solved half X_a first, then C_b = alpha C_b - op(T) X_a */
        const int a = first ? o : o2, da = first ? s : d2, b = first ? o2 : o, db = first ? d2 : s;
        tb_tr(r, a, da, alpha);
        tb_tri_mm(r, b, db, a, da, tb_minus_one, alpha);
        tb_tr(r, b, db, tb_one);
    } else {
        /* the half whose new value needs the other's old one first:
         * C_a = alpha T_aa C_a, then C_a += alpha T_ab C_b, then C_b */
        const int a = first ? o : o2, da = first ? s : d2, b = first ? o2 : o, db = first ? d2 : s;
        tb_tr(r, a, da, alpha);
        tb_tri_mm(r, a, da, b, db, alpha, tb_one);
        tb_tr(r, b, db, alpha);
    }
}

/* ---- the call ------------------------------------------------------------ */

int tb_l3_of(const tb_call *c, tb_l3 *p)
{
    const tb_routine rt = c->entry->routine;
    if (rt == TB_R_gemm || (unsigned)rt >= TB_ROUTINE_COUNT)
        return -1;
    const int cx = tb_prec_complex(c->prec);
    const int rk = rt == TB_R_syrk || rt == TB_R_herk || rt == TB_R_syr2k || rt == TB_R_her2k;
    const int he = rt == TB_R_herk || rt == TB_R_her2k;
    *p = (tb_l3){.routine = rt, .dtype = (tb_dtype)c->prec,
                 .left = c->side == TB_LEFT, .lower = c->uplo == TB_LOWER,
                 .trans = c->transa == TB_NO_TRANS ? 0 : c->transa == TB_CONJ_TRANS && cx ? 2 : 1,
                 .unit = c->diag == TB_UNIT,
                 .m = c->m, .n = c->n, .k = c->k,
                 .alpha = {c->alpha, c->alpha_im}, .beta = {c->beta, c->beta_im},
                 .A = c->A, .lda = (size_t)c->lda, .B = c->B, .ldb = (size_t)c->ldb,
                 .C = c->C, .ldc = (size_t)c->ldc};
    if (rt == TB_R_trmm || rt == TB_R_trsm) {   /* the in-out matrix is C here */
        p->C = (void *)c->B;
        p->ldc = (size_t)c->ldb;
        p->B = NULL;
        p->ldb = 0;
    }
    if (c->layout == TB_COL_MAJOR) {
        p->m = c->n;
        p->n = c->m;
        p->left = !p->left;
        p->lower = !p->lower;
        if (rk)
            p->trans = p->trans ? 0 : he ? 2 : 1;
        if (rt == TB_R_her2k)
            p->alpha.im = -p->alpha.im;
    }
    if (rk) {
        p->m = p->n;
        p->left = 0;
    }
    if (rt == TB_R_symm || rt == TB_R_hemm)
        p->trans = 0;
    if (rt != TB_R_trmm && rt != TB_R_trsm)
        p->unit = 0;
    return 0;
}

/* The order of the matrix that is cut: C for syrk's family, else A. */
static int tb_order(const tb_l3 *p)
{
    return p->left ? p->m : p->n;   /* syrk's family: m = n */
}

size_t tb_l3_scratch_bytes(const tb_l3 *p, int nb)
{
    if (p->routine == TB_R_trmm || p->routine == TB_R_trsm || p->m <= 0 || p->n <= 0)
        return 0;
    const size_t d = (size_t)tb_order(p), b = nb < 1 ? 1 : (size_t)nb;
    const size_t lds = d < b ? d : b;
    return lds * lds * tb_dtype_size(p->dtype);
}

int tb_l3_block(const tb_l3 *p)
{
    if (p->routine == TB_R_trmm || p->routine == TB_R_trsm)
        return TB_BLK_TRI_NB;
    const int q = (tb_order(p) + 3) / 4;
    return q > 32 ? q : 32;
}

int tb_l3_run(const tb_l3 *p, int nb, const tb_l3_engine *e)
{
    if (p->m <= 0 || p->n <= 0)
        return 0;
    if (nb < 1)
        nb = 1;
    const tb_routine rt = p->routine;
    tb_run r = {p, e, nb, tb_dtype_size(p->dtype),
                rt == TB_R_hemm || rt == TB_R_herk || rt == TB_R_her2k, NULL, 0, 0};
    const int alpha0 = tb_is(p->alpha, 0.0);
    if (rt == TB_R_trmm || rt == TB_R_trsm) {
        /* alpha 0: C = 0, A and C not read */
        const tb_op none = {p->A, p->lda, 0};
        if (alpha0)
            tb_mm(&r, p->m, p->n, 0, tb_zero, none, none, tb_zero, p->C, p->ldc);
        else
            tb_tr(&r, 0, tb_order(p), p->alpha);
        return r.err;
    }
    const int rk = rt != TB_R_symm && rt != TB_R_hemm;
    if ((alpha0 || (rk && p->k <= 0)) && tb_is(p->beta, 1.0))
        return 0;   /* the reference BLAS returns at once: C untouched */
    if (!rk && alpha0) {
        /* C = beta C, A and B not read */
        const tb_op none = {p->A, p->lda, 0};
        tb_mm(&r, p->m, p->n, 0, tb_zero, none, none, p->beta, p->C, p->ldc);
        return r.err;
    }
    const int d = tb_order(p);
    r.lds = (size_t)(d < nb ? d : nb);
    r.S = e->scratch(e->ctx, tb_l3_scratch_bytes(p, nb));
    if (!r.S)
        return TB_L3_NO_SCRATCH;
    if (rk)
        tb_rk(&r, 0, p->n);
    else
        tb_sy(&r, 0, d, p->beta);
    e->scratch_free(e->ctx, r.S);
    return r.err;
}
