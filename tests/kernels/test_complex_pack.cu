/* tests/kernels/test_complex_pack.cu - the algebra of a complex product run
 * as one real product (complex_00_realify.cu), on the host, without a GPU:
 * the registry's plan (tb_complex_plan_of: shapes, strides, scalars,
 * scratch) and the element rules the packing kernels apply
 * (tb_realify.cuh: A', B'' with conjugation and a folded alpha, the scaling
 * of C by a complex beta, the post entries' alpha after) build A' and B''
 * from small complex operands; a plain real product of them, with the
 * plan's alpha' and beta', into C read as reals, must equal alpha op(A)
 * op(B) + beta C computed in complex long double, for every pair of
 * transposes (N, T, C), padded strides, real, complex and zero alpha and
 * beta, both element types and both entries (alpha folded, alpha after).
 * Also: the plan's numbers written out for two shapes, beta 0 never reads
 * C (NaN there), alpha 0 never reads A or B, nothing outside C's window is
 * written. Exit 0 pass, 1 fail. */
#include "tb_realify.cuh"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../check.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double rnd(void)   /* uniform in [-1, 1), 53 bits */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)((int64_t)rng >> 11) / 4503599627370496.0;
}

/* op(X)(i, p) of a complex X stored with stride ld (elements), in long double. */
template <typename R>
static void op_ld(const tb_cx<R> *X, size_t ld, int trans, int i, int p, long double *re,
                  long double *im)
{
    const tb_cx<R> x = trans ? X[(size_t)p * ld + i] : X[(size_t)i * ld + p];
    *re = x.re;
    *im = trans == 2 ? -(long double)x.im : (long double)x.im;
}

/* s x, a real s scaling each part alone (the library's rule). */
static void scale_ld(double sr, double si, long double xr, long double xi, long double *re,
                     long double *im)
{
    *re = si == 0.0 ? sr * xr : sr * xr - si * xi;
    *im = si == 0.0 ? sr * xi : sr * xi + si * xr;
}

/* One case: C (m x n) = alpha op(A) op(B) + beta C on the host the way the
 * realify launcher runs it on the GPU, against the complex reference. */
template <typename R>
static void run(tb_dtype dt, int m, int n, int k, int ta, int tb, int pad, double ar, double ai,
                double br, double bi, int post, int nan_ab)
{
    typedef tb_cx<R> T;
    const int a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
    const size_t lda = (size_t)(a_cols > 0 ? a_cols : 1) + pad;
    const size_t ldb = (size_t)(b_cols > 0 ? b_cols : 1) + 2 * pad;
    const size_t ldc = (size_t)(n > 0 ? n : 1) + pad;
    const size_t a_n = (size_t)a_rows * lda + 1, b_n = (size_t)b_rows * ldb + 1,
                 c_n = (size_t)m * ldc + 3;
    T *A = (T *)malloc(sizeof(T) * a_n), *B = (T *)malloc(sizeof(T) * b_n);
    T *C0 = (T *)malloc(sizeof(T) * c_n), *C = (T *)malloc(sizeof(T) * c_n);
    for (size_t i = 0; i < a_n; i++)
        A[i] = nan_ab ? T((R)NAN, (R)NAN) : T((R)rnd(), (R)rnd());
    for (size_t i = 0; i < b_n; i++)
        B[i] = nan_ab ? T((R)NAN, (R)NAN) : T((R)rnd(), (R)rnd());
    const int beta0 = br == 0.0 && bi == 0.0, alpha0 = ar == 0.0 && ai == 0.0;
    for (size_t i = 0; i < c_n; i++)
        C0[i] = T((R)rnd(), (R)rnd());
    for (int i = 0; beta0 && i < m; i++)   /* beta 0: C is never read */
        for (int j = 0; j < n; j++)
            C0[(size_t)i * ldc + j] = T((R)NAN, (R)NAN);
    memcpy(C, C0, sizeof(T) * c_n);

    const tb_gemm g = {dt, m, n, k, ta, tb, {ar, ai}, {br, bi}, A, lda, B, ldb, C, ldc};
    const tb_complex_plan p = tb_complex_plan_of(&g, post);
    const T alpha((R)ar, (R)ai), beta((R)br, (R)bi), zero(R(0)), one(R(1));
    CHECK(p.g.dtype == tb_dtype_real(dt), "the real product's type");
    if (p.real == 0 && p.scale_c) {   /* C = beta C */
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                C[(size_t)i * ldc + j] = tb_realify_axpby(zero, zero, beta, &C[(size_t)i * ldc + j]);
    } else if (p.real == 1) {
        CHECK(p.g.m == m && p.g.n == 2 * n && p.g.k == 2 * k && !p.g.transa && !p.g.transb,
              "the real shape");
        CHECK(p.bytes == p.p_off + (p.post ? (size_t)m * p.g.ldc * sizeof(R) : 0) &&
                  p.b_off == p.a_off + (p.copy_a ? (size_t)m * p.g.lda * sizeof(R) : 0) &&
                  p.p_off == p.b_off + (size_t)2 * k * p.g.ldb * sizeof(R),
              "the scratch layout");
        char *buf = (char *)calloc(p.bytes, 1);
        tb_gemm r = p.g;
        if (p.scale_c)
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++)
                    C[(size_t)i * ldc + j] =
                        tb_realify_axpby(zero, zero, beta, &C[(size_t)i * ldc + j]);
        if (p.copy_a) {
            r.A = buf + p.a_off;
            for (int i = 0; i < m; i++)
                for (int q = 0; q < k; q++) {
                    const T x = ta ? A[(size_t)q * lda + i] : A[(size_t)i * lda + q];
                    tb_realify_put_a((R *)r.A, r.lda, i, q, tb_realify_value(x, ta, one, false));
                }
        } else {
            CHECK(r.A == (const void *)A && r.lda == 2 * lda, "A read in place, stride 2 lda");
        }
        r.B = buf + p.b_off;
        for (int l = 0; l < k; l++)
            for (int j = 0; j < n; j++) {
                const T x = tb ? B[(size_t)j * ldb + l] : B[(size_t)l * ldb + j];
                tb_realify_put_b((R *)r.B, r.ldb, l, j, tb_realify_value(x, tb, alpha, p.fold));
            }
        if (p.post)
            r.C = buf + p.p_off;
        else
            CHECK(r.C == (void *)C && r.ldc == 2 * ldc, "C written in place, stride 2 ldc");
        /* The real product as any real kernel computes it: alpha' s + beta' c,
         * beta' 0 never reading c; the sums in long double here. */
        const R *Ar = (const R *)r.A, *Br = (const R *)r.B;
        R *Cr = (R *)r.C;
        for (int i = 0; i < r.m; i++)
            for (int j = 0; j < r.n; j++) {
                long double s = 0;
                for (int q = 0; q < r.k; q++)
                    s += (long double)Ar[(size_t)i * r.lda + q] * Br[(size_t)q * r.ldb + j];
                R *c = &Cr[(size_t)i * r.ldc + j];
                *c = (R)(r.beta.re == 0.0 ? r.alpha.re * s : r.alpha.re * s + r.beta.re * *c);
            }
        if (p.post)
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    const T pv(Cr[(size_t)i * r.ldc + 2 * j], Cr[(size_t)i * r.ldc + 2 * j + 1]);
                    C[(size_t)i * ldc + j] = tb_realify_axpby(alpha, pv, beta, &C[(size_t)i * ldc + j]);
                }
        free(buf);
    }

    /* The reference, each part within 8 eps of |alpha|_1 sum |a|_1 |b|_1 +
     * |beta|_1 |c|_1 (the sums above are exact to long double: what is
     * left is the rounding of the folded alpha, of beta's scaling and of
     * the stores to R). */
    const double eps = sizeof(R) == 4 ? FLT_EPSILON : DBL_EPSILON;
    long bad = 0, outside = 0;
    for (size_t idx = 0; idx < c_n; idx++) {
        const int i = (int)(idx / ldc), j = (int)(idx % ldc);
        if (i >= m || j >= n) {
            outside += memcmp(&C[idx], &C0[idx], sizeof(T)) != 0;
            continue;
        }
        long double sr = 0, si = 0, mag = 0;
        for (int q = 0; !alpha0 && q < k; q++) {
            long double xr, xi, yr, yi;
            op_ld(A, lda, ta, i, q, &xr, &xi);
            op_ld(B, ldb, tb, q, j, &yr, &yi);
            sr += xr * yr - xi * yi;
            si += xr * yi + xi * yr;
            mag += (fabsl(xr) + fabsl(xi)) * (fabsl(yr) + fabsl(yi));
        }
        long double wr = 0, wi = 0, cr = 0, ci = 0;
        if (!alpha0)
            scale_ld(ar, ai, sr, si, &wr, &wi);
        if (!beta0)
            scale_ld(br, bi, C0[idx].re, C0[idx].im, &cr, &ci);
        const long double tol =
            8 * eps * ((fabs(ar) + fabs(ai)) * mag +
                       (beta0 ? 0.0L : (fabs(br) + fabs(bi)) * (fabsl(C0[idx].re) + fabsl(C0[idx].im))));
        const long double er = fabsl(C[idx].re - (wr + cr)), ei = fabsl(C[idx].im - (wi + ci));
        if (!(er <= tol && ei <= tol)) {   /* NaN fails */
            if (bad < 2)
                printf("   %s %dx%dx%d t%d%d (%d,%d): got %.17g%+.17gi want %.17Lg%+.17Lgi\n",
                       sizeof(R) == 4 ? "c" : "z", m, n, k, ta, tb, i, j, (double)C[idx].re,
                       (double)C[idx].im, wr + cr, wi + ci);
            bad++;
        }
    }
    CHECK(bad == 0 && outside == 0,
          "%s%s %dx%dx%d t%d%d pad %d alpha %g%+gi beta %g%+gi%s: %ld wrong, %ld outside changed",
          sizeof(R) == 4 ? "crealify" : "zrealify", post ? "-post" : "", m, n, k, ta, tb, pad, ar,
          ai, br, bi, nan_ab ? " nanAB" : "", bad, outside);
    free(A); free(B); free(C0); free(C);
}

template <typename R> static void run_all(tb_dtype dt)
{
    static const double scal[][4] = {
        {1.0, 0.0, 0.0, 0.0},   {-1.5, 0.5, 0.5, 0.0}, {0.75, 0.0, 1.0, -0.5},
        {0.5, -2.0, 0.0, 0.0},  {2.0, 1.0, -1.0, 0.25},
    };
    static const int shapes[][3] = {{1, 1, 1}, {5, 7, 6}, {8, 3, 11}, {13, 17, 2}};
    for (int post = 0; post < 2; post++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int tr = 0; tr < 9; tr++)
                for (size_t a = 0; a < sizeof scal / sizeof scal[0]; a++)
                    run<R>(dt, shapes[s][0], shapes[s][1], shapes[s][2], tr / 3, tr % 3,
                           (int)(s + a) % 3, scal[a][0], scal[a][1], scal[a][2], scal[a][3], post,
                           0);
    /* alpha 0 (A and B all NaN, never read) and k 0: C = beta C. */
    run<R>(dt, 6, 5, 4, 2, 1, 1, 0.0, 0.0, 0.5, -2.0, 0, 1);
    run<R>(dt, 6, 5, 4, 1, 2, 0, 0.0, 0.0, 0.0, 0.0, 1, 1);
    run<R>(dt, 6, 5, 0, 0, 2, 2, 1.0, 1.0, 2.0, 0.0, 0, 0);
    run<R>(dt, 0, 5, 4, 0, 0, 0, 1.0, 0.0, 0.0, 0.0, 0, 0);
}

int main(void)
{
    /* The plan's numbers, written out. Complex float 100 x 50 x 30, A^T, B^H,
     * lda 101, ldb 33, ldc 51, a complex alpha, beta 0: A' copied (100 rows
     * of 64 reals: 60 rounded up to 32s), B'' 60 x 128 reals after it, alpha
     * folded, C written in place at stride 102 reals. */
    const tb_gemm g1 = {TB_C32, 100, 50, 30, 1, 2, {1.0, 0.5}, {0.0, 0.0}, (const void *)4096, 101,
                        (const void *)8192, 33, (void *)16384, 51};
    tb_complex_plan p = tb_complex_plan_of(&g1, 0);
    CHECK(p.real == 1 && p.copy_a && p.fold && !p.scale_c && !p.post && p.g.dtype == TB_F32 &&
              p.g.m == 100 && p.g.n == 100 && p.g.k == 60 && p.g.lda == 64 && p.g.ldb == 128 &&
              p.g.ldc == 102 && p.g.A == NULL && p.g.B == NULL && p.g.C == (void *)16384 &&
              p.g.alpha.re == 1.0 && p.g.alpha.im == 0.0 && p.g.beta.re == 0.0 &&
              p.a_off == 0 && p.b_off == 25600 && p.p_off == 25600 + 30720 &&
              p.bytes == 25600 + 30720,
          "plan 1: real %d copy_a %d fold %d scale_c %d post %d; %dx%dx%d, ld %zu %zu %zu; "
          "offsets %zu %zu %zu, %zu bytes",
          p.real, p.copy_a, p.fold, p.scale_c, p.post, p.g.m, p.g.n, p.g.k, p.g.lda, p.g.ldb,
          p.g.ldc, p.a_off, p.b_off, p.p_off, p.bytes);
    /* The same as post: no fold, P after B'' (100 rows of 128 reals), the
     * real product's alpha 1 and beta 0. */
    p = tb_complex_plan_of(&g1, 1);
    CHECK(p.real == 1 && !p.fold && p.post && p.g.C == NULL && p.g.ldc == 128 &&
              p.p_off == 25600 + 30720 && p.bytes == 25600 + 30720 + 51200,
          "plan 1, post: fold %d post %d ldc %zu, %zu bytes", p.fold, p.post, p.g.ldc, p.bytes);
    /* Complex double 64 x 40 x 33, A, B^T, a real alpha, a complex beta: A
     * in place (stride 2 lda), B'' 66 x 96 doubles, alpha -2 in the real
     * product, C scaled by beta first and the real product's beta 1. */
    const tb_gemm g2 = {TB_C64, 64, 40, 33, 0, 1, {-2.0, 0.0}, {0.5, 1.0}, (const void *)4096, 35,
                        (const void *)8192, 33, (void *)16384, 40};
    p = tb_complex_plan_of(&g2, 1);
    CHECK(p.real == 1 && !p.copy_a && !p.fold && p.scale_c && !p.post && p.g.dtype == TB_F64 &&
              p.g.n == 80 && p.g.k == 66 && p.g.lda == 70 && p.g.A == (const void *)4096 &&
              p.g.ldb == 96 && p.g.ldc == 80 && p.g.alpha.re == -2.0 && p.g.beta.re == 1.0 &&
              p.b_off == 0 && p.bytes == 66 * 96 * 8,
          "plan 2: copy_a %d fold %d scale_c %d post %d; n %d k %d lda %zu ldb %zu; %zu bytes",
          p.copy_a, p.fold, p.scale_c, p.post, p.g.n, p.g.k, p.g.lda, p.g.ldb, p.bytes);
    /* Nothing to do, C = beta C alone, too wide for an int. */
    tb_gemm g3 = g2;
    g3.m = 0;
    p = tb_complex_plan_of(&g3, 0);
    CHECK(p.real == 0 && !p.scale_c && p.bytes == 0, "m 0: nothing");
    g3 = g2;
    g3.alpha.re = 0.0;
    p = tb_complex_plan_of(&g3, 0);
    CHECK(p.real == 0 && p.scale_c && p.bytes == 0, "alpha 0: C = beta C");
    g3 = g2;
    g3.k = 0;
    p = tb_complex_plan_of(&g3, 0);
    CHECK(p.real == 0 && p.scale_c, "k 0: C = beta C");
    g3 = g2;
    g3.n = 0x40000000;
    p = tb_complex_plan_of(&g3, 0);
    CHECK(p.real == -1, "2n past an int");

    run_all<float>(TB_C32);
    run_all<double>(TB_C64);
    return unit_summary("test_complex_pack");
}
