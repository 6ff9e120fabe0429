/* tests/test_dispatch.c - unit tests of one call's way through dispatch.c
 * that need no GPU: BLAS legality (one case per argument), the column-major
 * normalisation, the decision's forced and plain outcomes, the reason
 * words, and the CPU completion after a GPU failure. Linked against the
 * library's objects, so it sees the hidden internals. */
#include "unit_check.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int legal(const tb_call *c) { return tb_call_illegal(c) == 0; }

static void test_legality(void)
{
    tb_call c = row_nn(4, 5, 6);
    CHECK(legal(&c), "a plain row-major call is legal");
    tb_call x;
    x = c; x.layout = 100;             CHECK(!legal(&x), "bad layout");
    x = c; x.transa = 110;             CHECK(!legal(&x), "bad transa");
    x = c; x.transb = 114;             CHECK(!legal(&x), "transb ConjNoTrans is left to the BLAS");
    x = c; x.m = -1;                   CHECK(!legal(&x), "m < 0");
    x = c; x.n = -1;                   CHECK(!legal(&x), "n < 0");
    x = c; x.k = -1;                   CHECK(!legal(&x), "k < 0");
    x = c; x.lda = 5;                  CHECK(!legal(&x), "row-major lda < k");
    x = c; x.ldb = 4;                  CHECK(!legal(&x), "row-major ldb < n");
    x = c; x.ldc = 4;                  CHECK(!legal(&x), "row-major ldc < n");
    x = c; x.transa = TB_TRANS; x.lda = 4; CHECK(legal(&x), "row-major A^T needs lda >= m");
    x = c; x.transa = TB_TRANS; x.lda = 3; CHECK(!legal(&x), "row-major A^T with lda < m");
    x = c; x.layout = TB_COL_MAJOR; x.lda = 4; x.ldb = 6; x.ldc = 4;
    CHECK(legal(&x), "column-major lda >= m, ldb >= k, ldc >= m");
    x.ldc = 3;                         CHECK(!legal(&x), "column-major ldc < m");
    x = row_nn(0, 0, 0);               CHECK(legal(&x), "all sizes zero with ld = 1");
    x.lda = 0;                         CHECK(!legal(&x), "ld 0 is never legal");
}

static void test_normalise(void)
{
    float a[1], b[1], c[1];
    tb_call col = gemm_call(TB_API_CBLAS, TB_SINGLE, TB_COL_MAJOR, TB_TRANS, TB_NO_TRANS, 3, 5, 7,
                            2.0f, 0.5f, a, 7, b, 7, c, 3);
    tb_problem p;
    tb_normalise(&col, &p);
    CHECK(p.m == 5 && p.n == 3 && p.k == 7, "column-major m x n becomes row-major n x m (got %dx%dx%d)", p.m, p.n, p.k);
    CHECK(p.A == b && p.B == a && p.transa == 0 && p.transb == 1, "operands swap and keep their transposes");
    CHECK(p.lda == 7 && p.ldb == 7 && p.ldc == 3 && p.alpha == 2.0f && p.beta == 0.5f, "strides and scalars carry over");
    tb_call row = row_nn(3, 5, 7);
    tb_normalise(&row, &p);
    CHECK(p.m == 3 && p.n == 5 && p.k == 7 && p.transa == 0 && p.transb == 0, "row-major is unchanged");
}

static void test_decide(void)
{
    /* Default settings (ctest sets no TILEDBLAS_* for this test). */
    tb_call c = row_nn(8, 8, 8);
    tb_problem p = problem_of(c);
    tb_decision d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_SMALL, "a 8x8x8 call stays on the CPU (got %s)",
          tb_reason_name(d.reason));

    c = row_nn(0, 4000, 4000);
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_NO_OP, "m = 0 is a no-op (got %s)", tb_reason_name(d.reason));

    c = row_nn(4000, 4000, 4000); c.alpha = 0.0f; c.beta = 1.0f;
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_NO_OP, "alpha = 0, beta = 1 is a no-op (got %s)",
          tb_reason_name(d.reason));

    c = row_nn(4000, 4000, 4000);
    p = problem_of(c);
    tb_policy_ran(TB_ROUTE_CPU);   /* as after a CPU call: this one may measure */
    d = tb_decide(&c, &p);
    tb_reason why;
    if (tb_gpu_available(&why)) {
        /* The first call (0.13 s on the CPU by the built-in rates, less
         * than a start costs) runs on the CPU without starting the GPU.
         * Once CUDA runs (tb_gpu_available started it here), the next call
         * starts the rest in the background; then the GPU takes the call. */
        CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_GPU_STARTING && d.weighed && d.learn,
              "the first 4000^3 call runs on the CPU, the GPU not started, and measures the "
              "CPU (got %s, learn %d)", tb_reason_name(d.reason), d.learn);
        d = tb_decide(&c, &p);
        /* This call launched the start (a thread that takes milliseconds at
         * least), so the start still works as it is decided. */
        CHECK(d.reason != TB_WHY_GPU_STARTING || !d.learn,
              "a call made while the start works measures nothing (got %s, learn %d)",
              tb_reason_name(d.reason), d.learn);
        CHECK(tb_gpu_wait(30.0, &why) == TB_GPU_POLL_READY, "the start ends, the GPU ready");
        d = tb_decide(&c, &p);
        CHECK(d.route == TB_ROUTE_GPU && d.reason == TB_WHY_GPU_FASTER && d.weighed,
              "then a 4000^3 call goes to the GPU (got %s)", tb_reason_name(d.reason));
    } else
        CHECK(d.route == TB_ROUTE_CPU && d.reason == why && !d.weighed && d.pred_cpu_s == 0.0 &&
                  d.pred_gpu_s == 0.0,
              "without a GPU a 4000^3 call says why, with no predicted times (got %s, %g, %g)",
              tb_reason_name(d.reason), d.pred_cpu_s, d.pred_gpu_s);

    /* Skinny shapes with big outputs stay on the CPU even when m*n*k is
     * large: the model says so before CUDA is ever asked. */
    c = row_nn(8192, 8192, 4);
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_CPU_FASTER && d.weighed,
          "8192x8192x4 is transfer-bound: CPU (got %s)", tb_reason_name(d.reason));
    CHECK(d.pred_cpu_s > 0 && d.pred_gpu_s > d.pred_cpu_s, "the model's times are reported");
    /* A call measures its route only when the two calls before it ran there. */
    tb_policy_ran(TB_ROUTE_GPU);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !d.learn, "a CPU call right after a GPU call measures nothing");
    tb_policy_ran(TB_ROUTE_CPU);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !d.learn, "nor does the second CPU call after it");
    tb_policy_ran(TB_ROUTE_CPU);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.learn == tb_settings_get()->learn,
          "a CPU call after two CPU calls measures the CPU (learn %d)", d.learn);
}

/* Every reason has its own word, and the GPU failure's carries its stage. */
static void test_reason_names(void)
{
    int distinct = 1;
    for (int i = 0; i < TB_WHY_COUNT; i++) {
        distinct &= strcmp(tb_reason_name((tb_reason)i), "?") != 0;
        for (int j = 0; j < i; j++)
            distinct &= strcmp(tb_reason_name((tb_reason)i), tb_reason_name((tb_reason)j)) != 0;
    }
    CHECK(distinct, "%d reasons, each with a word of its own", TB_WHY_COUNT);
    char buf[48];
    CHECK(!strcmp(tb_reason_text(TB_WHY_GPU_FAILED, TB_STAGE_H2D, buf, sizeof buf), "gpu-failed:h2d"),
          "a GPU failure names its stage (%s)", buf);
    CHECK(!strcmp(tb_reason_text(TB_WHY_CPU_TRY, TB_STAGE_H2D, buf, sizeof buf), "cpu-try"),
          "other reasons are their word alone (%s)", buf);
    CHECK(tb_reason_ineligible(TB_WHY_SMALL) && tb_reason_ineligible(TB_WHY_SCOPE) &&
              !tb_reason_ineligible(TB_WHY_CPU_FASTER) && !tb_reason_ineligible(TB_WHY_NO_GPU),
          "ineligible: the calls never meant for the GPU");
    CHECK(!strcmp(tb_reason_name(TB_WHY_COUNT), "?"), "an unknown reason reads '?'");
}

/* A GPU failure while results stream back leaves part of C final; the CPU
 * must complete exactly the rest (tb_complete_on_cpu), for every shape of
 * the final part and both transposes, with beta != 0 so that computing a
 * final element twice would show. */
/* Element i of an array of precision prec, read and written as a double. */
static double get(tb_prec prec, const void *x, int i)
{
    return prec == TB_DOUBLE ? ((const double *)x)[i] : ((const float *)x)[i];
}

static void set(tb_prec prec, void *x, int i, double v)
{
    if (prec == TB_DOUBLE)
        ((double *)x)[i] = v;
    else
        ((float *)x)[i] = (float)v;
}

/* After a GPU failure the CPU completes what is not final, in the call's
 * precision: the final parts keep what the GPU wrote, the rest is computed,
 * and nothing outside C's window changes. */
static void test_partial_completion(tb_prec prec)
{
    enum { M = 37, N = 23, K = 11 };
    static const int cases[][3] = {   /* done_cols, done_cols_end, done_rows */
        {0, 0, 0}, {0, N, 16}, {8, 16, 5}, {8, 8, 0}, {0, 12, 36}, {20, N, 1},
    };
    /* Storage for either precision: room for doubles. */
    static double A[M * K], B[K * N], C[M * (N + 3)];
    for (int tr = 0; tr < 4; tr++)
        for (unsigned ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            int ta = tr & 1, tb = tr >> 1;
            double want[M * N];
            int lda = ta ? M : K, ldb = tb ? K : N, ldc = N + 3;
            for (int i = 0; i < M * K; i++) set(prec, A, i, (double)((i * 7) % 11) - 5.0);
            for (int i = 0; i < K * N; i++) set(prec, B, i, (double)((i * 5) % 9) - 4.0);
            for (int i = 0; i < M * ldc; i++) set(prec, C, i, (double)(i % 13) * 0.5);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double acc = 0.0;
                    for (int q = 0; q < K; q++)
                        acc += get(prec, A, ta ? q * lda + i : i * lda + q) *
                               get(prec, B, tb ? j * ldb + q : q * ldb + j);
                    want[i * N + j] = 2.0 * acc + 0.5 * get(prec, C, i * ldc + j);
                }
            tb_gpu_times t = {0};
            t.done_cols = cases[ci][0];
            t.done_cols_end = cases[ci][1];
            t.done_rows = cases[ci][2];
            /* What the GPU had written: final values in the final part. */
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++)
                    if (j < t.done_cols || (j < t.done_cols_end && i < t.done_rows))
                        set(prec, C, i * ldc + j, want[i * N + j]);
            tb_call c = gemm_call(TB_API_CBLAS, prec, TB_ROW_MAJOR, ta ? TB_TRANS : TB_NO_TRANS,
                                  tb ? TB_TRANS : TB_NO_TRANS, M, N, K, 2.0, 0.5, A, lda, B, ldb,
                                  C, ldc);
            tb_problem p;
            tb_normalise(&c, &p);
            tb_complete_on_cpu(&c, &p, &t);
            int bad = 0;
            for (int i = 0; i < M && !bad; i++)
                for (int j = 0; j < N; j++)
                    if (fabs(get(prec, C, i * ldc + j) - want[i * N + j]) > 1e-3) {
                        bad = 1;
                        printf("  (%d,%d) = %g, want %g\n", i, j, get(prec, C, i * ldc + j),
                               want[i * N + j]);
                        break;
                    }
            for (int i = 0; i < M && !bad; i++)
                for (int j = N; j < ldc; j++)
                    bad |= get(prec, C, i * ldc + j) != (double)((i * ldc + j) % 13) * 0.5;
            CHECK(!bad, "%s: completion after a failure with cols<%d final, rows<%d of cols<%d "
                  "final, op %c%c", tb_prec_name(prec), t.done_cols, t.done_rows,
                  t.done_cols_end, ta ? 'T' : 'N', tb ? 'T' : 'N');
        }
}

/* Rent or buy: CUDA starts once the GPU's calls have spent on the CPU what
 * a start costs, or for one call that alone would. */
static void test_start_due(void)
{
    CHECK(!tb_start_due(0.0, 0.017), "one 2048^3 call (17 ms on the CPU) does not start the GPU");
    CHECK(!tb_start_due(0.017 * 10, 0.017), "nor do eleven");
    CHECK(tb_start_due(0.017 * 20, 0.017), "twenty-one do");
    CHECK(tb_start_due(0.0, 1.0), "one 8192^3 call (1 s on the CPU) starts it at once");
    CHECK(!tb_start_due(0.0, 0.0), "a call the GPU would not take never does");
}

/* Double calls: the same normalisation, their own shape classes and scope. */
static void test_double(void)
{
    double a[1], b[1], c[1];
    tb_call col = gemm_call(TB_API_FORTRAN, TB_DOUBLE, TB_COL_MAJOR, TB_TRANS, TB_NO_TRANS, 3, 5,
                            7, 2.0, 0.1, a, 7, b, 7, c, 3);
    tb_problem p;
    tb_normalise(&col, &p);
    CHECK(p.prec == TB_DOUBLE && p.m == 5 && p.n == 3 && p.A == b && p.beta == 0.1,
          "a double call normalises to a double problem, beta exact (%.17g)", p.beta);
    CHECK(strcmp(tb_call_name(&col), "dgemm_") == 0, "a Fortran double call is named dgemm_");
    col.entry = tb_entry_of(TB_R_gemm, TB_DOUBLE, TB_FAM_plain, TB_API_CBLAS);
    CHECK(strcmp(tb_call_name(&col), "dgemm") == 0, "a cblas_dgemm call is named dgemm");
    col.entry = tb_entry_of(TB_R_gemm, TB_DOUBLE, TB_FAM_scipy64, TB_API_CBLAS);
    CHECK(strcmp(tb_call_name(&col), "scipy_dgemm64_") == 0 &&
          strcmp(col.entry->symbol, "scipy_cblas_dgemm64_") == 0 && col.entry->width == 8,
          "a scipy_cblas_dgemm64_ call is named scipy_dgemm64_ and takes 8-byte integers");
    tb_problem q = p;
    q.prec = TB_SINGLE;
    CHECK(tb_policy_class(&p) != tb_policy_class(&q), "single and double calls of one shape are "
          "different classes");
}

int main(void)
{
    /* Decisions with the built-in rates: never measure in a unit test. */
    setenv("TILEDBLAS_CALIBRATE", "off", 1);
    test_legality();
    test_normalise();
    test_decide();
    test_reason_names();
    test_partial_completion(TB_SINGLE);
    test_partial_completion(TB_DOUBLE);
    test_double();
    test_start_due();
    return unit_summary("test_dispatch");
}
