/* tests/unit_check.h - what the unit tests of the hidden internals share:
 * check.h's CHECK and summary line, a plain row-major NN call, and a
 * small-call grid scaled from the formulas. */
#ifndef TB_UNIT_CHECK_H
#define TB_UNIT_CHECK_H

#include "check.h"
#include "tb_internal.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A GEMM call as the plain name of its interface and precision would make
 * it, its integers read (ldX as given), and what the entry point kept
 * (raw) so that it can be forwarded: a CBLAS call's options, integers,
 * scalars and matrices; a Fortran call's every argument by pointer (its
 * integers 32-bit, the plain names' width with the LP64 BLAS the tests
 * link). */
typedef union gemm_scalar { float s; double d; } gemm_scalar;
typedef struct gemm_raw {
    char ta, tb;
    int32_t m, n, k, lda, ldb, ldc;
    gemm_scalar alpha, beta;
} gemm_raw;
static inline tb_call gemm_call(tb_api api, tb_prec prec, int layout, int transa, int transb,
                                int m, int n, int k, double alpha, double beta, const void *A,
                                int lda, const void *B, int ldb, void *C, int ldc)
{
    /* The scalars and Fortran integers the raw pointers point at: each
     * call keeps its own, for as long as the test runs. */
    static gemm_raw keep[4096];
    static unsigned used;
    gemm_raw *g = &keep[used++ % 4096];
    *g = (gemm_raw){transa == TB_NO_TRANS ? 'N' : 'T', transb == TB_NO_TRANS ? 'N' : 'T', m, n, k,
                    lda, ldb, ldc};
    if (prec == TB_SINGLE) {
        g->alpha.s = (float)alpha;
        g->beta.s = (float)beta;
    } else {
        g->alpha.d = alpha;
        g->beta.d = beta;
    }
    tb_call c = {.entry = tb_entry_of(TB_R_gemm, prec, TB_FAM_plain, api), .api = api,
                 .prec = prec, .ints = TB_INTS_OK, .layout = layout, .transa = transa,
                 .transb = transb, .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta,
                 .A = A, .lda = lda, .B = B, .ldb = ldb, .C = C, .ldc = ldc};
    if (api == TB_API_CBLAS) {
        const int64_t i[8] = {transa, transb, m, n, k, lda, ldb, ldc};
        memcpy(c.raw.i, i, sizeof i);
        const void *p[5] = {&g->alpha, A, B, &g->beta, C};
        memcpy(c.raw.p, p, sizeof p);
    } else {
        const void *p[13] = {&g->ta, &g->tb, &g->m, &g->n, &g->k, &g->alpha, A, &g->lda,
                             B, &g->ldb, &g->beta, C, &g->ldc};
        memcpy(c.raw.p, p, sizeof p);
    }
    return c;
}

static inline tb_call row_nn(int m, int n, int k)
{
    static float dummy[1];
    return gemm_call(TB_API_CBLAS, TB_SINGLE, TB_ROW_MAJOR, TB_NO_TRANS, TB_NO_TRANS, m, n, k,
                     1.0, 0.0, dummy, k > 1 ? k : 1, dummy, n > 1 ? n : 1, dummy, n > 1 ? n : 1);
}

static inline tb_problem problem_of(tb_call c)
{
    tb_problem p;
    tb_normalise(&c, &p);
    return p;
}

/* Rates whose grid holds formula x fc on the CPU and x fg on the GPU at
 * every shape calibrate.c measures. */
static inline void grid_scaled(tb_rates *r, double fc, double fg)
{
    memset(r->grid, 0, sizeof r->grid);
    for (int i = 0; i < TB_GRID_MN; i++)
        for (int j = 0; j < TB_GRID_MN; j++)
            for (int l = 0; l < TB_GRID_K; l++)
                if (tb_grid_wanted(i, j, l)) {
                    const tb_problem q = tb_grid_shape(i, j, l, NULL, NULL, NULL);
                    double pc, pg;
                    tb_predict_with(r, &q, &pc, &pg);
                    r->grid[TB_ROUTE_CPU][i][j][l] = (float)(pc * fc);
                    r->grid[TB_ROUTE_GPU][i][j][l] = (float)(pg * fg);
                }
}

static inline int near(double x, double want) { return fabs(x - want) <= 1e-5 * want; }

#endif
