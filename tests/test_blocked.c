/* tests/test_blocked.c - the blocked level-3 routines (src/gpu/blocked.c)
 * through the CPU engine (blocked_host.c), against a long-double reference
 * computed from the reference BLAS's definitions in the caller's own layout.
 *
 * Every routine (symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm) in every
 * precision it has, every side, uplo, trans and diag, both CBLAS layouts
 * (column-major is also what a Fortran call is), sizes odd, prime, equal to
 * and around the block sizes 1, 3, 5 and 16, leading dimensions padded or
 * not, alpha and beta 0, 1, real and complex. Each matrix's storage starts
 * as NaN everywhere (all bits set); only the elements the routine reads are
 * given values, so reading anything else (the other triangle, a unit
 * diagonal, a Hermitian diagonal's imaginary parts, C when beta is 0, A and
 * B when alpha is 0) shows as NaN in the result. Every byte the routine may
 * not write (A, B, C's other triangle, the padding, everything on a quick
 * return) is compared with what it was. The engine's counts check the cut:
 * symm's, trmm's and trsm's GEMM and triangular flops add up to
 * tb_call_flops exactly, syrk's family's GEMMs compute at most the
 * diagonal blocks twice, the triangular steps are at most nb / order of the
 * flops, and every scratch allocation is given back. */
#include "blocked_host.h"
#include "unit_check.h"
#include <complex.h>
#include <float.h>
#include <stdlib.h>

typedef long double _Complex lcx;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double rnd(void)   /* uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}

static int is_cx(tb_dtype t) { return t == TB_C32 || t == TB_C64; }
static size_t esize(tb_dtype t) { return t == TB_F32 ? 4 : t == TB_C64 ? 16 : 8; }
static size_t part(tb_dtype t) { return t == TB_F32 || t == TB_C32 ? 4 : 8; }

/* A matrix in the caller's layout: rows x cols, element (i, j) at
 * i ld + j (row-major) or j ld + i (column-major). */
typedef struct mat {
    tb_dtype dt;
    int rows, cols, row;
    size_t ld, n;             /* stride, elements of storage */
    unsigned char *p, *orig;  /* the storage, and a copy made before the call */
} mat;

static mat mat_new(tb_dtype dt, int rows, int cols, int row, int pad)
{
    mat x = {dt, rows, cols, row, 0, 0, NULL, NULL};
    const int inner = row ? cols : rows, outer = row ? rows : cols;
    x.ld = (size_t)(inner > 1 ? inner : 1) + (size_t)pad;
    x.n = x.ld * (size_t)(outer > 0 ? outer : 0) + 1;
    x.p = malloc(x.n * esize(dt));
    x.orig = malloc(x.n * esize(dt));
    memset(x.p, 0xff, x.n * esize(dt));   /* NaN, real and imaginary parts */
    return x;
}

static void mat_free(mat *x)
{
    free(x->p);
    free(x->orig);
}

static size_t pos(const mat *x, int i, int j)
{
    return x->row ? (size_t)i * x->ld + (size_t)j : (size_t)j * x->ld + (size_t)i;
}

static long double part_get(tb_dtype dt, const unsigned char *p)
{
    return part(dt) == 4 ? (long double)*(const float *)p : (long double)*(const double *)p;
}

static void part_put(tb_dtype dt, unsigned char *p, long double v)
{
    if (part(dt) == 4)
        *(float *)p = (float)v;
    else
        *(double *)p = (double)v;
}

/* Element (i, j) of the storage now (cur) or before the call. */
static lcx el(const mat *x, int i, int j, int cur)
{
    const unsigned char *p = (cur ? x->p : x->orig) + pos(x, i, j) * esize(x->dt);
    const long double re = part_get(x->dt, p);
    return is_cx(x->dt) ? CMPLXL(re, part_get(x->dt, p + part(x->dt))) : re;
}

static void set(mat *x, int i, int j, lcx v)
{
    unsigned char *p = x->p + pos(x, i, j) * esize(x->dt);
    part_put(x->dt, p, creall(v));
    if (is_cx(x->dt))
        part_put(x->dt, p + part(x->dt), cimagl(v));
}

/* A random value of the type (complex: both parts). */
static lcx rval(tb_dtype dt)
{
    const double re = rnd();
    return is_cx(dt) ? re + I * rnd() : re;
}

static int in_tri(int upper, int i, int j) { return upper ? i <= j : i >= j; }

/* One case: the routine's arguments as a caller passes them. */
typedef struct cas {
    tb_routine r;
    tb_dtype dt;
    int layout, side, uplo, trans, diag;   /* CBLAS values */
    int m, n, k;                           /* symm, trmm, trsm: M, N; syrk's: N, K */
    int pad;
    lcx alpha, beta;
    int nb;
} cas;

static const char *rname(tb_routine r) { return tb_routine_name(r); }
static char pchar(tb_dtype t) { return "sdcz"[t]; }

static void describe(const cas *c, char *buf, size_t len)
{
    snprintf(buf, len, "%c%s %s side %c uplo %c trans %c diag %c m %d n %d k %d pad %d "
             "alpha %g%+gi beta %g%+gi nb %d", pchar(c->dt), rname(c->r),
             c->layout == TB_ROW_MAJOR ? "row" : "col", c->side == TB_LEFT ? 'L' : 'R',
             c->uplo == TB_UPPER ? 'U' : 'L',
             c->trans == TB_NO_TRANS ? 'N' : c->trans == TB_TRANS ? 'T' : 'C',
             c->diag == TB_UNIT ? 'U' : 'N', c->m, c->n, c->k, c->pad,
             (double)creall(c->alpha), (double)cimagl(c->alpha), (double)creall(c->beta),
             (double)cimagl(c->beta), c->nb);
}

static int kind_rk(tb_routine r)
{
    return r == TB_R_syrk || r == TB_R_herk || r == TB_R_syr2k || r == TB_R_her2k;
}
static int kind_tr(tb_routine r) { return r == TB_R_trmm || r == TB_R_trsm; }
static int herm(tb_routine r) { return r == TB_R_hemm || r == TB_R_herk || r == TB_R_her2k; }

static double worst_ratio;   /* the largest error / tolerance seen */

static void run_case(const cas *c)
{
    const tb_dtype dt = c->dt;
    const int row = c->layout == TB_ROW_MAJOR, up = c->uplo == TB_UPPER;
    const int rk = kind_rk(c->r), tr = kind_tr(c->r), he = herm(c->r);
    const int two = c->r == TB_R_syr2k || c->r == TB_R_her2k;
    const int left = c->side == TB_LEFT, notr = c->trans == TB_NO_TRANS;
    const int unit = c->diag == TB_UNIT;
    const int ka = rk ? 0 : left ? c->m : c->n;          /* A's order */
    const int am = rk ? (notr ? c->n : c->k) : ka, an = rk ? (notr ? c->k : c->n) : ka;
    const int cm = rk ? c->n : c->m, cn = c->n;           /* C (tr: B) */
    const lcx alpha = c->alpha, beta = c->beta;
    const int alpha0 = alpha == 0, beta0 = beta == 0, beta1 = beta == 1;
    char what[256];
    describe(c, what, sizeof what);

    mat A = mat_new(dt, am, an, row, c->pad);
    mat B = mat_new(dt, rk ? am : cm, rk ? an : cn, row, (c->pad * 2) % 5);
    mat C = mat_new(dt, cm, cn, row, (c->pad + 1) % 4);
    mat *out = tr ? &B : &C;

    /* Values where the routine reads them, NaN elsewhere. */
    if (!alpha0) {
        for (int i = 0; i < am; i++)
            for (int j = 0; j < an; j++) {
                if (rk) {
                    set(&A, i, j, rval(dt));
                } else if (tr) {
                    if (i == j && !unit) {
                        const lcx d = (1.5 + 0.5 * rnd()) * (rnd() < 0 ? -1 : 1);
                        set(&A, i, i, is_cx(dt) ? d * (0.6 + 0.8 * I) : d);
                    } else if (i != j && in_tri(up, i, j)) {
                        set(&A, i, j, rval(dt) / ka);
                    }
                } else if (in_tri(up, i, j)) {
                    set(&A, i, j, rval(dt));
                    if (he && i == j)   /* the imaginary part is not read */
                        memset(A.p + pos(&A, i, i) * esize(dt) + part(dt), 0xff, part(dt));
                }
            }
        if (!tr)
            for (int i = 0; i < B.rows; i++)
                for (int j = 0; j < B.cols; j++)
                    set(&B, i, j, rval(dt));
    }
    if (tr ? !alpha0 : !beta0)
        for (int i = 0; i < cm; i++)
            for (int j = 0; j < cn; j++)
                if (!rk || in_tri(up, i, j)) {
                    set(out, i, j, rval(dt));
                    if (rk && he && i == j)
                        memset(C.p + pos(&C, i, i) * esize(dt) + part(dt), 0xff, part(dt));
                }
    memcpy(A.orig, A.p, A.n * esize(dt));
    memcpy(B.orig, B.p, B.n * esize(dt));
    memcpy(C.orig, C.p, C.n * esize(dt));

    /* The call, as src/core/routines.c reads it. */
    tb_call call = {.entry = tb_entry_of(c->r, (tb_prec)dt, TB_FAM_plain, TB_API_CBLAS),
                    .api = TB_API_CBLAS, .prec = (tb_prec)dt, .ints = TB_INTS_OK,
                    .layout = c->layout, .transa = rk || tr ? c->trans : 0,
                    .side = rk ? 0 : c->side, .uplo = c->uplo, .diag = tr ? c->diag : 0,
                    .m = rk ? c->n : c->m, .n = c->n, .k = rk ? c->k : ka,
                    .alpha = (double)creall(alpha), .alpha_im = (double)cimagl(alpha),
                    .beta = tr ? 0.0 : (double)creall(beta), .beta_im = tr ? 0.0 : (double)cimagl(beta),
                    .A = A.p, .lda = (int)A.ld, .B = B.p, .ldb = (int)B.ld,
                    .C = tr ? NULL : C.p, .ldc = tr ? 0 : (int)C.ld};
    tb_l3 p;
    CHECK(tb_l3_of(&call, &p) == 0, "%s: tb_l3_of", what);
    const int nb = c->nb ? c->nb : tb_l3_block(&p);
    blk_host h = {0};
    const tb_l3_engine e = blk_host_engine(&h);
    const int rc = tb_l3_run(&p, nb, &e);
    CHECK(rc == 0, "%s: tb_l3_run returned %d", what, rc);
    CHECK(h.scratch_live == 0, "%s: %ld scratch allocations not freed", what, h.scratch_live);
    CHECK(h.scratch_max <= tb_l3_scratch_bytes(&p, nb), "%s: scratch %zu > %zu", what,
          h.scratch_max, tb_l3_scratch_bytes(&p, nb));

    /* Which elements of the output are written, and their reference. */
    const int quick = cm == 0 || cn == 0 ||
                      (!tr && (alpha0 || (rk && c->k == 0)) && beta1);
    const int depth = rk ? c->k : ka;
    const long double eps = part(dt) == 4 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    long double err = 0, scale = 0;
    int herm_diag_bad = 0;
    unsigned char *written = calloc(out->n, 1);
    lcx *X = tr ? calloc((size_t)(cm * cn + 1), sizeof(lcx)) : NULL;   /* trsm's solution */
    /* op(T)(i, j) of trmm and trsm, and the full matrix of symm and hemm. */
#define OPT(i, j) (notr ? tri_at(i, j) : c->trans == TB_CONJ_TRANS && is_cx(dt) ? conjl(tri_at(j, i)) : tri_at(j, i))
#define tri_at(i, j) ((i) == (j) && unit ? (lcx)1 : in_tri(up, i, j) ? el(&A, i, j, 0) : (lcx)0)
#define SYM(i, j) (in_tri(up, i, j) ? ((i) == (j) && he ? creall(el(&A, i, i, 0)) : el(&A, i, j, 0)) \
                                    : he ? conjl(el(&A, j, i, 0)) : el(&A, j, i, 0))
    /* op(A)(i, l), op(B)(i, l) of syrk's family */
#define OPX(M, i, l) (notr ? el(&M, i, l, 0) : c->trans == TB_CONJ_TRANS && is_cx(dt) ? conjl(el(&M, l, i, 0)) : el(&M, l, i, 0))
#define CJ(v) (he ? conjl(v) : (v))
    if (!quick && c->r == TB_R_trsm) {
        /* X op(T) = alpha B or op(T) X = alpha B by substitution in long double */
        const int op_lower = (c->uplo == TB_LOWER) != !notr;
        for (int v = 0; v < (left ? cn : cm); v++)
            for (int s = 0; s < ka; s++) {
                /* left: column v, solved down when op(T) is lower; right: row v,
                 * x op(T) = b solved along op(T)^T, lower when op(T) is upper */
                const int lower = left ? op_lower : !op_lower;
                const int i = lower ? s : ka - 1 - s;
                lcx acc = alpha * (left ? el(&B, i, v, 0) : el(&B, v, i, 0));
                for (int l = 0; l < ka; l++) {
                    if (l == i || (lower ? l > i : l < i))
                        continue;
                    acc -= left ? OPT(i, l) * X[l * cn + v] : X[v * cn + l] * OPT(l, i);
                }
                const lcx d = OPT(i, i);
                if (left)
                    X[i * cn + v] = acc / d;
                else
                    X[v * cn + i] = acc / d;
            }
    }
    for (int i = 0; i < cm && !quick; i++)
        for (int j = 0; j < cn; j++) {
            if (rk && !in_tri(up, i, j))
                continue;
            lcx ref = 0;
            long double mag = 0;
            if (c->r == TB_R_trsm) {
                ref = alpha0 ? 0 : X[i * cn + j];
                mag = cabsl(ref) * 4;
            } else if (c->r == TB_R_trmm) {
                for (int l = 0; l < ka && !alpha0; l++) {
                    const lcx t = left ? OPT(i, l) * el(&B, l, j, 0) : el(&B, i, l, 0) * OPT(l, j);
                    ref += t;
                    mag += cabsl(t);
                }
                ref *= alpha;
                mag *= cabsl(alpha);
            } else if (!rk) {
                for (int l = 0; l < ka && !alpha0; l++) {
                    const lcx t = left ? SYM(i, l) * el(&B, l, j, 0) : el(&B, i, l, 0) * SYM(l, j);
                    ref += t;
                    mag += cabsl(t);
                }
                ref *= alpha;
                mag *= cabsl(alpha);
                if (!beta0) {
                    ref += beta * el(&C, i, j, 0);
                    mag += cabsl(beta * el(&C, i, j, 0));
                }
            } else {
                lcx t1 = 0, t2 = 0;
                for (int l = 0; l < c->k && !alpha0; l++) {
                    t1 += OPX(A, i, l) * CJ(two ? OPX(B, j, l) : OPX(A, j, l));
                    if (two)
                        t2 += OPX(B, i, l) * CJ(OPX(A, j, l));
                    mag += cabsl(OPX(A, i, l)) * cabsl(two ? OPX(B, j, l) : OPX(A, j, l)) * 2;
                }
                ref = alpha * t1 + (he ? conjl(alpha) : alpha) * t2;
                mag *= cabsl(alpha);
                if (!beta0) {
                    const lcx cij = he && i == j ? creall(el(&C, i, i, 0)) : el(&C, i, j, 0);
                    ref += beta * cij;
                    mag += cabsl(beta * cij);
                }
                if (he && i == j) {
                    ref = creall(ref);
                    if (cimagl(el(&C, i, i, 1)) != 0)
                        herm_diag_bad++;
                }
            }
            const lcx got = el(out, i, j, 1);
            const long double d = cabsl(got - ref);
            if (err == err && !(d <= err))   /* a NaN, once seen, stays */
                err = d;
            if (mag > scale)
                scale = mag;
            memset(written + pos(out, i, j), 1, 1);
        }
#undef OPT
#undef tri_at
#undef SYM
#undef OPX
#undef CJ
    const long double tol = 8 * eps * (depth + 4) * (scale > 0 ? scale : 1);
    CHECK(err <= tol, "%s: error %Lg > %Lg", what, err, tol);
    if (tol > 0 && err / tol > worst_ratio && err == err)
        worst_ratio = (double)(err / tol);
    CHECK(!herm_diag_bad, "%s: %d Hermitian diagonal imaginary parts not 0", what, herm_diag_bad);
    /* Every byte not written: as it was. */
    size_t changed = 0;
    for (size_t q = 0; q < out->n; q++)
        if (!written[q] && memcmp(out->p + q * esize(dt), out->orig + q * esize(dt), esize(dt)))
            changed++;
    CHECK(changed == 0, "%s: %zu elements written that must not be", what, changed);
    CHECK(!memcmp(A.p, A.orig, A.n * esize(dt)), "%s: A written", what);
    if (!tr)
        CHECK(!memcmp(B.p, B.orig, B.n * esize(dt)), "%s: B written", what);

    /* How the call was cut: flops as tb_call_flops counts them. */
    const double want = (double)tb_call_flops(&call);
    const int d_order = rk ? c->n : ka;
    if (!quick && !alpha0 && depth > 0) {
        const double got = h.gemm_flops + h.tri_flops;
        if (rk)
            CHECK(got >= want && got <= want * (1.0 + (double)nb / d_order) + 1e-9,
                  "%s: GEMM flops %g for %g", what, got, want);
        else
            CHECK(got == want, "%s: GEMM %g + triangular %g flops for %g", what, h.gemm_flops,
                  h.tri_flops, want);
        CHECK(h.tri_flops <= want * (double)nb / d_order + 1e-9,
              "%s: triangular flops %g of %g, more than nb / order", what, h.tri_flops, want);
    }
    if (quick)
        CHECK(h.gemms + h.merges + h.fulls + h.tris == 0, "%s: work on a quick return", what);
    free(written);
    free(X);
    mat_free(&A);
    mat_free(&B);
    mat_free(&C);
}

/* ---- the mapping of a column-major call -------------------------------- */

static tb_call map_call(tb_routine r, tb_prec prec, int layout, int side, int uplo, int trans,
                        int diag, int m, int n, int k, double are, double aim)
{
    static double dummy[64];
    tb_call c = {.entry = tb_entry_of(r, prec, TB_FAM_plain, TB_API_CBLAS), .api = TB_API_CBLAS,
                 .prec = prec, .layout = layout, .side = side, .uplo = uplo, .transa = trans,
                 .diag = diag, .m = m, .n = n, .k = k, .alpha = are, .alpha_im = aim,
                 .beta = 1.0, .A = dummy, .lda = 9, .B = dummy + 1, .ldb = 10, .C = dummy + 2,
                 .ldc = 11};
    return c;
}

static void test_mapping(void)
{
    tb_l3 p;
    /* column-major dsyrk U N, n 5, k 3: row-major lower, trans T */
    tb_call c = map_call(TB_R_syrk, TB_DOUBLE, TB_COL_MAJOR, 0, TB_UPPER, TB_NO_TRANS, 0, 5, 5, 3,
                         1, 0);
    CHECK(tb_l3_of(&c, &p) == 0 && p.lower && p.trans == 1 && p.m == 5 && p.n == 5 && p.k == 3 &&
          p.A == c.A && p.lda == 9 && p.C == c.C && p.ldc == 11, "col dsyrk UN");
    /* the same row-major: as it came */
    c.layout = TB_ROW_MAJOR;
    CHECK(tb_l3_of(&c, &p) == 0 && !p.lower && p.trans == 0, "row dsyrk UN");
    /* column-major zherk L C: row-major upper, trans N; N: C */
    c = map_call(TB_R_herk, TB_ZCOMPLEX, TB_COL_MAJOR, 0, TB_LOWER, TB_CONJ_TRANS, 0, 4, 4, 2, 1, 0);
    CHECK(tb_l3_of(&c, &p) == 0 && !p.lower && p.trans == 0, "col zherk LC");
    c.transa = TB_NO_TRANS;
    CHECK(tb_l3_of(&c, &p) == 0 && p.trans == 2, "col zherk LN");
    /* column-major zher2k: alpha conjugated; row-major: not */
    c = map_call(TB_R_her2k, TB_ZCOMPLEX, TB_COL_MAJOR, 0, TB_UPPER, TB_NO_TRANS, 0, 4, 4, 2, 1, 2);
    CHECK(tb_l3_of(&c, &p) == 0 && p.alpha.re == 1 && p.alpha.im == -2 && p.trans == 2 &&
          p.B == c.B && p.ldb == 10, "col zher2k");
    c.layout = TB_ROW_MAJOR;
    CHECK(tb_l3_of(&c, &p) == 0 && p.alpha.im == 2 && p.trans == 0, "row zher2k");
    /* column-major ztrsm L U C, m 4, n 6: right, lower, trans C, m 6, n 4, B in C */
    c = map_call(TB_R_trsm, TB_ZCOMPLEX, TB_COL_MAJOR, TB_LEFT, TB_UPPER, TB_CONJ_TRANS, TB_UNIT,
                 4, 6, 4, 1, 0);
    CHECK(tb_l3_of(&c, &p) == 0 && !p.left && p.lower && p.trans == 2 && p.unit && p.m == 6 &&
          p.n == 4 && p.k == 4 && p.C == c.B && p.ldc == 10 && !p.B, "col ztrsm LUCU");
    /* a real type's C is T */
    c = map_call(TB_R_trmm, TB_SINGLE, TB_ROW_MAJOR, TB_RIGHT, TB_LOWER, TB_CONJ_TRANS,
                 TB_NON_UNIT, 3, 7, 7, 1, 0);
    CHECK(tb_l3_of(&c, &p) == 0 && !p.left && p.lower && p.trans == 1 && !p.unit && p.m == 3 &&
          p.n == 7, "row strmm RLCN");
    /* column-major csymm R L, m 3, n 7: left, upper, m 7, n 3 */
    c = map_call(TB_R_symm, TB_COMPLEX, TB_COL_MAJOR, TB_RIGHT, TB_LOWER, 0, 0, 3, 7, 7, 1, 0);
    CHECK(tb_l3_of(&c, &p) == 0 && p.left && !p.lower && p.m == 7 && p.n == 3 && p.k == 7,
          "col csymm RL");
    c = map_call(TB_R_gemm, TB_SINGLE, TB_ROW_MAJOR, 0, 0, TB_NO_TRANS, 0, 3, 3, 3, 1, 0);
    CHECK(tb_l3_of(&c, &p) == -1, "gemm is not one of them");
}

/* The block size rule: a quarter of the order (at least 32) for symm's and
 * syrk's families, 64 (TB_BLK_TRI_NB) for trmm and trsm whatever the order. */
static void test_block(void)
{
    tb_l3 p = {.routine = TB_R_trsm, .left = 1, .m = 8192, .n = 100};
    CHECK(tb_l3_block(&p) == 64, "trsm nb at 8192: %d", tb_l3_block(&p));
    p.routine = TB_R_trmm;
    p.left = 0;   /* the right side: A's order is n */
    CHECK(tb_l3_block(&p) == 64, "trmm nb at 100: %d", tb_l3_block(&p));
    p = (tb_l3){.routine = TB_R_syrk, .m = 4096, .n = 4096, .k = 3};
    CHECK(tb_l3_block(&p) == 1024, "syrk nb at 4096: %d", tb_l3_block(&p));
    p.routine = TB_R_her2k;
    p.m = p.n = 1001;
    CHECK(tb_l3_block(&p) == 251, "her2k nb at 1001: %d", tb_l3_block(&p));
    p.m = p.n = 100;
    CHECK(tb_l3_block(&p) == 32, "her2k nb at 100: %d", tb_l3_block(&p));
    p = (tb_l3){.routine = TB_R_symm, .left = 1, .m = 3000, .n = 7};
    CHECK(tb_l3_block(&p) == 750, "symm nb, left, m 3000: %d", tb_l3_block(&p));
    p = (tb_l3){.routine = TB_R_hemm, .left = 0, .m = 7, .n = 513};
    CHECK(tb_l3_block(&p) == 129, "hemm nb, right, n 513: %d", tb_l3_block(&p));
}

/* No scratch: TB_L3_NO_SCRATCH before anything is written. */
static void test_no_scratch(void)
{
    double A[12], C[9];
    for (int i = 0; i < 12; i++)
        A[i] = i;
    memset(C, 0xff, sizeof C);
    tb_l3 p = {.routine = TB_R_syrk, .dtype = TB_F64, .lower = 1, .m = 3, .n = 3, .k = 4,
               .alpha = {1, 0}, .beta = {0, 0}, .A = A, .lda = 4, .C = C, .ldc = 3};
    blk_host h = {0};
    h.fail_scratch = 1;
    const tb_l3_engine e = blk_host_engine(&h);
    unsigned char before[sizeof C];
    memcpy(before, C, sizeof C);
    CHECK(tb_l3_run(&p, 2, &e) == TB_L3_NO_SCRATCH, "no scratch");
    CHECK(!memcmp(before, C, sizeof C) && h.gemms == 0, "no scratch: nothing written");
}

int main(void)
{
    test_mapping();
    test_block();
    test_no_scratch();

    static const tb_routine routines[] = {TB_R_symm, TB_R_hemm, TB_R_syrk, TB_R_herk,
                                          TB_R_syr2k, TB_R_her2k, TB_R_trmm, TB_R_trsm};
    static const int nbs[] = {1, 3, 5, 16, 0};   /* 0: tb_l3_block's */
    /* sizes: m, n, k (syrk's family: n, k; the others m, n) */
    static const int sizes[][3] = {{1, 1, 1}, {5, 3, 2}, {13, 17, 7}, {16, 5, 16},
                                   {17, 16, 1}, {37, 31, 29}, {6, 0, 0}, {0, 4, 3}};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    long cases = 0;
    for (size_t ri = 0; ri < sizeof routines / sizeof routines[0]; ri++) {
        const tb_routine r = routines[ri];
        const int rk = kind_rk(r), tr = kind_tr(r), he = herm(r);
        for (int dt = he ? TB_C32 : TB_F32; dt <= TB_C64; dt++) {
            const int ntrans = tr ? 3 : rk ? 2 : 1;
            for (int layout = TB_ROW_MAJOR; layout <= TB_COL_MAJOR; layout++)
                for (int side = 0; side < (rk ? 1 : 2); side++)
                    for (int uplo = 0; uplo < 2; uplo++)
                        for (int t = 0; t < ntrans; t++)
                            for (int diag = 0; diag < (tr ? 2 : 1); diag++)
                                for (int si = 0; si < NSIZES; si++) {
                                    cas c = {r, (tb_dtype)dt, layout, side ? TB_RIGHT : TB_LEFT,
                                             uplo ? TB_LOWER : TB_UPPER, TB_NO_TRANS,
                                             diag ? TB_UNIT : TB_NON_UNIT, sizes[si][0],
                                             sizes[si][1], sizes[si][2], 0, 0, 0, 0};
                                    if (rk) {   /* N, then T (sy) or C (he) */
                                        c.trans = t ? (he ? TB_CONJ_TRANS : TB_TRANS) : TB_NO_TRANS;
                                        c.n = sizes[si][0];
                                        c.k = sizes[si][2];
                                    } else if (tr) {
                                        c.trans = t == 0 ? TB_NO_TRANS : t == 1 ? TB_TRANS : TB_CONJ_TRANS;
                                    }
                                    /* alpha, beta: complex, real, 0 and 1, in turn */
                                    const int cx = dt == TB_C32 || dt == TB_C64;
                                    const int ra = r == TB_R_herk, rb = ra || r == TB_R_her2k;
                                    const lcx as[] = {cx && !ra ? 0.7 - 0.4 * I : -0.7, 1, 0, 1.25, 0};
                                    const lcx bs[] = {cx && !rb ? -0.3 + 0.6 * I : 0.6, 0, 1, 1, 0};
                                    for (int ab = 0; ab < 5; ab++) {
                                        if (tr && ab >= 3)
                                            continue;   /* no beta: alpha -0.7 (complex), 1, 0 */
                                        c.alpha = as[ab];
                                        c.beta = bs[ab];
                                        c.nb = nbs[(si + ab + uplo + t) % 5];
                                        c.pad = (si + ab + layout) % 3 == 0 ? 0 : 3;
                                        run_case(&c);
                                        cases++;
                                    }
                                }
        }
    }
    /* Deeper cuts: 97 x 61 (depth 53) in blocks of 8 and 7, every option
     * of each routine in double and complex double. */
    for (size_t ri = 0; ri < sizeof routines / sizeof routines[0]; ri++) {
        const tb_routine r = routines[ri];
        const int rk = kind_rk(r), tr = kind_tr(r), he = herm(r);
        for (int dt = he ? TB_C64 : TB_F64; dt <= TB_C64; dt += 2)
            for (int o = 0; o < 16; o++) {
                cas c = {r, (tb_dtype)dt, o & 1 ? TB_COL_MAJOR : TB_ROW_MAJOR,
                         o & 2 ? TB_RIGHT : TB_LEFT, o & 4 ? TB_LOWER : TB_UPPER, TB_NO_TRANS,
                         o & 8 ? TB_UNIT : TB_NON_UNIT, 97, 61, 53, o % 3, 0.8 + 0.3 * I,
                         -0.4 + 0.1 * I, 7 + (o & 1)};
                if (rk) {
                    if (o & 2)
                        continue;
                    c.trans = o & 8 ? (he ? TB_CONJ_TRANS : TB_TRANS) : TB_NO_TRANS;
                    c.diag = TB_NON_UNIT;
                } else if (tr) {
                    c.trans = o % 3 == 0 ? TB_NO_TRANS : o % 3 == 1 ? TB_TRANS : TB_CONJ_TRANS;
                } else if (o & 8) {
                    continue;
                }
                if (dt == TB_F64 || r == TB_R_herk)
                    c.alpha = 0.8;
                if (dt == TB_F64 || he)
                    c.beta = -0.4;
                if (r == TB_R_hemm)
                    c.beta = -0.4 + 0.1 * I;
                run_case(&c);
                cases++;
            }
    }
    printf("test_blocked: %ld cases, largest error %.3f of the tolerance\n", cases, worst_ratio);
    return unit_summary("test_blocked");
}
