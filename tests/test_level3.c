/* tests/test_level3.c - the CPU side of the GPU route of the routines but
 * gemm (src/gpu/level3.c), which needs no GPU: a part of a call made for
 * the CPU BLAS (tb_call_part) reads back as that part, and after a failure
 * during the download, whatever rows of C it had written in the route's
 * order (tb_l3_order), the CPU BLAS's completion (tb_l3_complete) gives
 * what the whole call gives on the CPU BLAS. Every routine in every
 * precision it has, every side, uplo, trans and diag, both interfaces and
 * CBLAS layouts, every count of rows written; each matrix's storage filled
 * everywhere (the other triangle, the padding), all of it compared. Linked
 * against the library's objects and OpenBLAS, which tb_forward finds as
 * the CPU BLAS. */
#include "tb_blocked.h"
#include "unit_check.h"
#include <stdlib.h>

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double rnd(void)   /* uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}

enum { LD = 11, DIM = 9, ELEMS = LD * DIM + 1 };

/* One call's arguments, as an entry point of the plain names keeps them
 * (the integers 32-bit, the width of the LP64 OpenBLAS linked). */
typedef struct args {
    char opt[16];
    int32_t ints[16];
    double alpha[2], beta[2];
    float alpha_s[2], beta_s[2];
} args;

/* The call of routine r with options o (CBLAS values), sizes M N (trmm,
 * symm) or N K (syrk's family), every leading dimension LD, on matrices
 * A, B, C (trmm's and trsm's in-out matrix is B). */
static tb_call make_call(args *g, tb_routine r, tb_prec prec, tb_api api, int layout,
                         const int *o, int d1, int d2, const void *A, const void *B, void *C)
{
    const int dbl = prec == TB_DOUBLE || prec == TB_ZCOMPLEX;
    const void *alpha = dbl ? (const void *)g->alpha : (const void *)g->alpha_s;
    const void *beta = dbl ? (const void *)g->beta : (const void *)g->beta_s;
    tb_call c = {.entry = tb_entry_of(r, prec, TB_FAM_plain, api), .layout = layout};
    int ni = 0, np = 0, no = 0, nd = 0;
    for (int j = 0; j < tb_routine_arity(r); j++) {
        const char a = tb_routine_arg(r, j);
        const int option = strchr("sutTd", a) != NULL, integer = strchr("MNKxyz", a) != NULL;
        const int ld = a == 'x' || a == 'y' || a == 'z';
        const int value = option ? o[no++] : !integer ? 0 : ld ? LD : nd++ ? d2 : d1;
        const void *ptr = a == 'a' ? alpha : a == 'b' ? beta : a == 'A' ? A : a == 'B'
                        ? (r == TB_R_trmm || r == TB_R_trsm ? (const void *)C : B) : C;
        if (api == TB_API_CBLAS) {
            if (option || integer)
                c.raw.i[ni++] = value;
            else
                c.raw.p[np++] = ptr;
        } else if (option) {
            g->opt[j] = a == 's' ? (value == TB_LEFT ? 'L' : 'R')
                      : a == 'u' ? (value == TB_UPPER ? 'U' : 'L')
                      : a == 'd' ? (value == TB_UNIT ? 'U' : 'N')
                      : value == TB_NO_TRANS ? 'N' : value == TB_TRANS ? 'T' : 'C';
            c.raw.p[j] = &g->opt[j];
        } else if (integer) {
            g->ints[j] = value;
            c.raw.p[j] = &g->ints[j];
        } else {
            c.raw.p[j] = ptr;
        }
    }
    tb_call_read(&c, 4);
    return c;
}

/* tb_call_part's call reads back as the part: its sizes (the call's own,
 * column-major ones swapped) and matrices, the rest as it was; a Fortran
 * call's integers at either width. */
static void test_call_part(void)
{
    static double A[ELEMS], B[ELEMS], C[ELEMS];
    args g = {.alpha = {2.0, 0.0}, .beta = {0.5, 0.0}};
    const int trsm[4] = {TB_LEFT, TB_LOWER, TB_TRANS, TB_UNIT};
    for (int api = 0; api < 2; api++)
        for (int layout = TB_ROW_MAJOR; layout <= TB_COL_MAJOR; layout++) {
            if (api == TB_API_FORTRAN && layout == TB_ROW_MAJOR)
                continue;
            tb_call c = make_call(&g, TB_R_trsm, TB_DOUBLE, (tb_api)api, layout, trsm, 7, 5, A,
                                  NULL, C), s;
            int64_t ints[3];
            /* row-major form: m x n = 4 x 5 (row-major) or 4 x 7 */
            tb_call_part(&c, &s, 4, layout == TB_ROW_MAJOR ? 5 : 7, A + 3, NULL, C + 2, 4, ints);
            tb_call_read(&s, 4);
            const int m = layout == TB_ROW_MAJOR ? 4 : 7, n = layout == TB_ROW_MAJOR ? 5 : 4;
            CHECK(s.m == m && s.n == n && s.k == m && s.A == A + 3 && s.B == C + 2 &&
                      s.lda == LD && s.ldb == LD && s.alpha == 2.0 && s.side == TB_LEFT &&
                      s.uplo == TB_LOWER && s.transa == TB_TRANS && s.diag == TB_UNIT &&
                      tb_call_illegal(&s) == 0,
                  "%s %s dtrsm: the part reads back M %d N %d K %d (got %d %d %d)",
                  api ? "Fortran" : "CBLAS", layout == TB_ROW_MAJOR ? "row-major" : "column-major",
                  m, n, m, s.m, s.n, s.k);
        }
    const int syr2k[2] = {TB_UPPER, TB_NO_TRANS};
    tb_call c = make_call(&g, TB_R_syr2k, TB_DOUBLE, TB_API_FORTRAN, TB_COL_MAJOR, syr2k, 8, 3,
                          A, B, C), s;
    int64_t ints[3];
    tb_call_part(&c, &s, 6, 6, A + 2, B + 2, C + 2 * LD + 2, 4, ints);
    tb_call_read(&s, 4);
    CHECK(s.n == 6 && s.m == 6 && s.k == 3 && s.A == A + 2 && s.B == B + 2 &&
              s.C == C + 2 * LD + 2 && s.ldc == LD && s.beta == 0.5 && tb_call_illegal(&s) == 0,
          "dsyr2k_: the part N 6 (got %d), K 3, its matrices", s.n);
    /* 8-byte Fortran integers: written and read back at that width. */
    int64_t wide[16];
    const char opts[4] = {'R', 'U', 'N', 'N'};
    tb_call w = {.entry = tb_entry_of(TB_R_trmm, TB_DOUBLE, TB_FAM_plain, TB_API_FORTRAN)};
    const int64_t vals[4] = {7, 5, LD, LD};
    for (int j = 0, nv = 0; j < tb_routine_arity(TB_R_trmm); j++) {
        const char a = tb_routine_arg(TB_R_trmm, j);
        if (strchr("sutd", a))
            w.raw.p[j] = &opts[j];
        else if (strchr("MNxy", a)) {
            wide[j] = vals[nv++];
            w.raw.p[j] = &wide[j];
        } else
            w.raw.p[j] = a == 'a' ? (const void *)g.alpha : a == 'A' ? (const void *)A : C;
    }
    tb_call_read(&w, 8);
    tb_call_part(&w, &s, 3, 7, A, NULL, C + 2 * LD, 8, ints);
    tb_call_read(&s, 8);
    CHECK(s.m == 7 && s.n == 3 && s.k == 3 && s.B == C + 2 * LD && s.ints == TB_INTS_OK &&
              *(const int64_t *)s.raw.p[5] == 3,
          "dtrmm_ with 8-byte integers: N 3 written at that width (got %d)", s.n);
}

/* The other triangle's elements (and each side's) that a routine writes:
 * row i of C in row-major form, columns [*lo, *hi). */
static void written_cols(const tb_l3 *p, int i, int *lo, int *hi)
{
    const int rk = p->routine == TB_R_syrk || p->routine == TB_R_herk ||
                   p->routine == TB_R_syr2k || p->routine == TB_R_her2k;
    *lo = rk && !p->lower ? i : 0;
    *hi = rk && p->lower ? i + 1 : p->n;
}

static int cases, mismatches;

/* One call: the whole of it on the CPU BLAS (full), then for every count
 * of rows a failed download could have written, those rows of full over
 * the caller's C, the completion, and every byte against full. */
static void one_case(tb_routine r, tb_prec prec, tb_api api, int layout, const int *o, int d1,
                     int d2, const double alpha[2], const double beta[2])
{
    const size_t es = tb_prec_size(prec), bytes = ELEMS * es;
    unsigned char *A = malloc(bytes), *B = malloc(bytes), *C0 = malloc(bytes),
                  *full = malloc(bytes), *work = malloc(bytes);
    const int dbl = tb_prec_real(prec) == TB_DOUBLE, parts = tb_prec_complex(prec) ? 2 : 1;
    for (size_t i = 0; i < ELEMS * (size_t)parts; i++) {
        const double a = 0.3 * rnd(), b = rnd(), c = rnd();
        if (dbl) {
            ((double *)A)[i] = a, ((double *)B)[i] = b, ((double *)C0)[i] = c;
        } else {
            ((float *)A)[i] = (float)a, ((float *)B)[i] = (float)b, ((float *)C0)[i] = (float)c;
        }
    }
    /* A's diagonal (in either layout) well away from 0: trsm's T well
     * conditioned. */
    for (int i = 0; i < DIM; i++) {
        const size_t at = ((size_t)i * LD + (size_t)i) * (size_t)parts;
        if (dbl)
            ((double *)A)[at] = 3.0 + rnd();
        else
            ((float *)A)[at] = (float)(3.0 + rnd());
    }
    args g = {.alpha = {alpha[0], alpha[1]}, .beta = {beta[0], beta[1]},
              .alpha_s = {(float)alpha[0], (float)alpha[1]},
              .beta_s = {(float)beta[0], (float)beta[1]}};
    memcpy(full, C0, bytes);
    tb_call c = make_call(&g, r, prec, api, layout, o, d1, d2, A, B, full);
    CHECK(tb_call_illegal(&c) == 0, "the case is a legal call");
    tb_forward(&c);
    tb_l3 p;
    for (int done = 0;; done++) {
        memcpy(work, C0, bytes);
        c = make_call(&g, r, prec, api, layout, o, d1, d2, A, B, work);
        tb_l3_of(&c, &p);
        if (done >= p.m)
            break;
        const int last = tb_l3_order(&p);
        /* The rows the download wrote: [m - done, m) or [0, done). */
        for (int k = 0; k < done; k++) {
            const int i = last ? p.m - 1 - k : k;
            int lo, hi;
            written_cols(&p, i, &lo, &hi);
            const size_t at = (size_t)((unsigned char *)p.C - work) + ((size_t)i * p.ldc + (size_t)lo) * es;
            if (hi > lo)
                memcpy(work + at, full + at, (size_t)(hi - lo) * es);
        }
        tb_l3_complete(&c, &p, (size_t)done, last);
        double worst = 0.0;
        for (size_t i = 0; i < ELEMS * (size_t)parts; i++) {
            const double x = dbl ? ((double *)work)[i] : ((float *)work)[i];
            const double y = dbl ? ((double *)full)[i] : ((float *)full)[i];
            const double d = fabs(x - y) / (1.0 + fabs(y));
            worst = d > worst || d != d ? d : worst;
        }
        const double tol = dbl ? 1e-13 : 1e-5;
        cases++;
        if (!(worst <= tol)) {
            mismatches++;
            CHECK(0, "%s%s, options %d %d %d %d, sizes %d %d, alpha %g%+gi, beta %g%+gi, %d "
                  "rows written (the %s first): off by %.3g", c.entry->symbol,
                  api ? "" : layout == TB_ROW_MAJOR ? " row-major" : " column-major", o[0], o[1],
                  o[2], o[3], d1, d2, alpha[0], alpha[1], beta[0], beta[1], done,
                  last ? "last" : "first", worst);
        }
    }
    free(A), free(B), free(C0), free(full), free(work);
}

/* Every routine, precision, option and layout; sizes odd and unequal. */
static void test_complete(void)
{
    static const tb_routine routines[] = {TB_R_symm, TB_R_hemm, TB_R_syrk, TB_R_herk,
                                          TB_R_syr2k, TB_R_her2k, TB_R_trmm, TB_R_trsm};
    for (size_t ri = 0; ri < sizeof routines / sizeof *routines; ri++) {
        const tb_routine r = routines[ri];
        const int herm = r == TB_R_hemm || r == TB_R_herk || r == TB_R_her2k;
        const int rk = r == TB_R_syrk || r == TB_R_herk || r == TB_R_syr2k || r == TB_R_her2k;
        const int tr = r == TB_R_trmm || r == TB_R_trsm;
        for (int prec = herm ? TB_COMPLEX : TB_SINGLE; prec < TB_PREC_COUNT; prec++)
            for (int api = 0; api < 2; api++)
                for (int layout = TB_ROW_MAJOR; layout <= TB_COL_MAJOR; layout++) {
                    if (api == TB_API_FORTRAN && layout == TB_ROW_MAJOR)
                        continue;
                    const int cx = tb_prec_complex((tb_prec)prec);
                    for (int side = TB_LEFT; side <= TB_RIGHT; side++)
                        for (int uplo = TB_UPPER; uplo <= TB_LOWER; uplo++)
                            for (int t = TB_NO_TRANS; t <= TB_CONJ_TRANS; t++)
                                for (int diag = TB_NON_UNIT; diag <= TB_UNIT; diag++) {
                                    if ((rk && side != TB_LEFT) || (!tr && diag != TB_NON_UNIT) ||
                                        (!tr && !rk && t != TB_NO_TRANS))
                                        continue;
                                    /* syrk's family's trans: N, and T (syrk,
                                     * syr2k) or C (herk, her2k); a real
                                     * type's C is its T */
                                    if (rk && t != TB_NO_TRANS && (herm ? t != TB_CONJ_TRANS
                                                                        : cx && t != TB_TRANS))
                                        continue;
                                    int o[4];
                                    if (rk)
                                        o[0] = uplo, o[1] = t, o[2] = o[3] = 0;
                                    else if (tr)
                                        o[0] = side, o[1] = uplo, o[2] = t, o[3] = diag;
                                    else
                                        o[0] = side, o[1] = uplo, o[2] = o[3] = 0;
                                    /* alpha, beta complex (herk's real; her2k's
                                     * beta real); then beta 0 (trmm, trsm: alpha
                                     * 0, B = 0) */
                                    static const double a1[2] = {0.8, -0.3}, b1[2] = {0.6, 0.2},
                                                        a2[2] = {1.3, 0.4}, zero[2] = {0.0, 0.0};
                                    one_case(r, (tb_prec)prec, (tb_api)api, layout, o, 7,
                                             rk ? 5 : 6, a1, b1);
                                    one_case(r, (tb_prec)prec, (tb_api)api, layout, o,
                                             rk ? 6 : 5, rk ? 9 : 8, tr ? zero : a2, zero);
                                }
                }
    }
    CHECK(cases > 2000 && mismatches == 0, "%d completions, each as the whole call gives", cases);
    printf("%d completions compared\n", cases);
}

int main(void)
{
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    setenv("TILEDBLAS_CALIBRATE", "off", 1);
    test_call_part();
    test_complete();
    return unit_summary("test_level3");
}
