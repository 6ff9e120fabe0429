/* tests/test_verify.c - verify mode's comparison (verify.c's
 * tb_verify_compare) without a GPU: a "GPU" result made here against the
 * CPU BLAS's, in both precisions. It must accept what rounding gives,
 * refuse an error past the bound and a NaN or an infinity on one side,
 * take NaN on both sides as equal, and not count the CPU BLAS's NaN for
 * alpha = 0 against the GPU. Linked against the library's objects. */
#include "unit_check.h"
#include <float.h>
#include <stdlib.h>

enum { M = 37, N = 29, K = 53, LDC = 31, LDG = 30 };

static double a[M * K], b[K * N];              /* the operands, in double     */
static double ref[M][N];                       /* A B in double               */
static double cpu_d[M * LDC], gpu_d[M * LDG];  /* the two results, per type   */
static float a_s[M * K], b_s[K * N], cpu_s[M * LDC], gpu_s[M * LDG];

static void put(tb_prec prec, void *x, size_t at, double v)
{
    if (prec == TB_DOUBLE)
        ((double *)x)[at] = v;
    else
        ((float *)x)[at] = (float)v;
}

/* p: C = A B in precision prec, both results equal to ref rounded to the
 * type, A and B uniform in [-1, 1) from a fixed seed. */
static tb_problem setup(tb_prec prec, void **gpu)
{
    srand(7);
    for (int i = 0; i < M * K; i++)
        a[i] = 2.0 * rand() / ((double)RAND_MAX + 1.0) - 1.0;
    for (int i = 0; i < K * N; i++)
        b[i] = 2.0 * rand() / ((double)RAND_MAX + 1.0) - 1.0;
    const int dbl = prec == TB_DOUBLE;
    void *A = dbl ? (void *)a : a_s, *B = dbl ? (void *)b : b_s;
    void *C = dbl ? (void *)cpu_d : cpu_s;
    *gpu = dbl ? (void *)gpu_d : gpu_s;
    for (int i = 0; i < M * K; i++)
        put(prec, A, (size_t)i, a[i]);
    for (int i = 0; i < K * N; i++)
        put(prec, B, (size_t)i, b[i]);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int l = 0; l < K; l++)
                s += a[i * K + l] * b[l * N + j];
            ref[i][j] = s;
            put(prec, C, (size_t)i * LDC + j, s);
            put(prec, *gpu, (size_t)i * LDG + j, s);
        }
    return (tb_problem){.m = M, .n = N, .k = K, .alpha = 1.0, .beta = 0.0, .A = A, .lda = K,
                        .B = B, .ldb = N, .C = C, .ldc = LDC, .prec = prec};
}

static void test_prec(tb_prec prec)
{
    const char *name = prec == TB_DOUBLE ? "fp64" : "fp32";
    const double eps = prec == TB_DOUBLE ? DBL_EPSILON : FLT_EPSILON;
    void *gpu;
    tb_verify_result v;
    tb_problem p = setup(prec, &gpu);

    size_t q = tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    CHECK(q == 0 && v.within_bound && v.max_abs == 0.0 && v.rel_fro == 0.0,
          "%s: equal results are within the bound, no difference", name);
    CHECK(v.bound_rel > 0.0 && v.bound_rel < 1e3 * eps, "%s: the bound is a few K eps of ||C|| (%g)",
          name, v.bound_rel);

    /* Every element off by a few ulps of its own size: what another order
     * of the same sums gives. */
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            put(prec, gpu, (size_t)i * LDG + j, ref[i][j] * (1.0 + 4.0 * eps * ((i + j) % 2 ? 1 : -1)));
    tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    CHECK(v.within_bound && v.rel_fro > 0.0 && v.rel_fro < 8.0 * eps,
          "%s: rounding-sized differences pass (relative %g)", name, v.rel_fro);

    /* One element wrong by far more than the bound allows. */
    setup(prec, &gpu);
    put(prec, gpu, 5 * LDG + 7, ref[5][7] + 0.5);
    tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    CHECK(!v.within_bound && fabs(v.max_abs - 0.5) < 1e-6 && v.avg_abs > 0.0,
          "%s: one element off by 0.5 fails (max abs %g)", name, v.max_abs);

    /* Elements never written would be anything: a NaN, an infinity. */
    setup(prec, &gpu);
    put(prec, gpu, 3 * LDG + 2, NAN);
    tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    CHECK(!v.within_bound && isinf(v.max_abs), "%s: a NaN on the GPU side only fails", name);
    setup(prec, &gpu);
    put(prec, gpu, 0, INFINITY);
    tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    CHECK(!v.within_bound, "%s: an infinity on the GPU side only fails", name);

    /* NaN in A reaches both results alike. */
    setup(prec, &gpu);
    put(prec, p.C, 4 * LDC + 4, NAN);
    put(prec, gpu, 4 * LDG + 4, NAN);
    q = tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    CHECK(q == 0 && v.max_abs == 0.0, "%s: NaN on both sides is equal", name);

    /* alpha = 0: the GPU gives beta C; a CPU BLAS that read NaN in A gives
     * NaN. Counted as the CPU's quirk, not as the GPU's error. */
    setup(prec, &gpu);
    p.alpha = 0.0;
    put(prec, p.C, 1 * LDC + 1, NAN);
    q = tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    CHECK(q == 1 && v.within_bound, "%s: the CPU's NaN for alpha = 0 is a quirk (%zu)", name, q);
    p.alpha = 1.0;

    /* beta != 0: |beta| ||C0|| widens the bound. A difference the plain
     * product's bound refuses passes with a large enough C0. */
    setup(prec, &gpu);
    double nc = 0.0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            nc += ref[i][j] * ref[i][j];
    put(prec, gpu, 2 * LDG + 3, ref[2][3] + 300.0 * K * eps * sqrt(nc));
    tb_verify_compare(&p, gpu, LDG, 0.0, &v);
    const int refused = !v.within_bound;
    p.beta = 1.0;
    tb_verify_compare(&p, gpu, LDG, 1e3 * sqrt(nc), &v);
    CHECK(refused && v.within_bound, "%s: beta's |beta| ||C0|| widens the bound", name);
}

int main(void)
{
    test_prec(TB_SINGLE);
    test_prec(TB_DOUBLE);
    return unit_summary("test_verify");
}
