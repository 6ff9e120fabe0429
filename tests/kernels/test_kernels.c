/* tests/kernels/test_kernels.c - every kernel in the registry, fp32, fp64,
 * complex float and complex double, against a long-double host reference:
 * odd, prime and tile-edge sizes, all four transposes (complex: all nine,
 * the conjugate ones with them, and complex alpha and beta), padded/odd
 * strides, unaligned bases (off by one element), alpha/beta combos (NaN in C
 * with beta = 0, alpha = 0 with NaN in A and B), inf/NaN inputs, wide
 * dynamic range, the ends of the fp32 range (1e-30 x 1e30, subnormals,
 * FLT_MAX), and a check that nothing outside C's m x n window changed; also
 * the default path (tb_gemm_run, as tiledblas_{s,d,c,z}gemm_device() take
 * it) with its aligned copies and split K, and for the complex types the
 * real products it runs them as (complex_00_realify.cu); and the Ozaki
 * double product's accuracy against dmma's on the same inputs (run_ozaki).
 * Kernels that do not fit this GPU are skipped with a line saying so.
 * Exit 0 pass, 1 fail, 77 no CUDA device. Options: --quick, --max N, --min N
 * (sizes and edge cases from N up: the flat ones under a sanitizer),
 * --kernels a,b,c, --dtype float|double|complex|zcomplex|real|all (default
 * all; real: float and double), --verbose. */
#include "tb_kernels.h"

#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic inputs ------------------------------------------------ */
static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static uint32_t rng_u32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}
/* Uniform in [-1, 1), never exactly 0 (zeros hide indexing errors): 24
 * random bits for a float, 53 for a double (so that fp64 products really
 * round). */
static double rng_val(tb_dtype t)
{
    if (t == TB_F64) {
        const uint64_t u = ((uint64_t)rng_u32() << 32) | rng_u32();
        const double v = (double)((int64_t)u >> 11) / 4503599627370496.0;
        return v == 0.0 ? 0.5 : v;
    }
    float v = (float)((int32_t)rng_u32() >> 8) / 8388608.0f;
    return v == 0.0f ? 0.5f : v;
}

/* FILL_SPAN: uniform, and in run_case every odd row of op(A) times a
 * further 2^-150 (an operand spanning more than the fp32 range's width
 * below its largest value). */
enum { FILL_UNIFORM, FILL_WIDE, FILL_NAN, FILL_SPAN };

/* Element i of a host array of type t, read or written as a double (exact
 * for either type). */
static double get(tb_dtype t, const void *p, size_t i)
{
    return t == TB_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}
static void put(tb_dtype t, void *p, size_t i, double v)
{
    if (t == TB_F64)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

/* n values of the kind `how`, times 2^e; a float that would round past
 * FLT_MAX is FLT_MAX (e = 128 reaches the top of the range). */
static void fill(tb_dtype t, void *x, size_t n, int how, int e)
{
    for (size_t i = 0; i < n; i++) {
        double v;
        if (how == FILL_NAN)
            v = NAN;
        else if (how == FILL_WIDE) /* values scaled by 2^e, e in [-20, 20] */
            v = ldexp(rng_val(t), (int)(rng_u32() % 41) - 20);
        else
            v = rng_val(t);
        v = ldexp(v, e);
        if (t == TB_F32 && fabs(v) > FLT_MAX)
            v = copysign(FLT_MAX, v);
        put(t, x, i, v);
    }
}

/* ---- one case ------------------------------------------------------------- */
typedef struct {
    int m, n, k, ta, tb;
    int pad_a, pad_b, pad_c;   /* extra elements per row of storage */
    int off;                   /* base pointers offset by this many elements */
    double alpha, beta;
    int fill;                  /* FILL_UNIFORM, FILL_WIDE or FILL_SPAN */
    int special;               /* plant +inf in A and NaN in B */
    int nan_ab;                /* A and B are all NaN (alpha == 0 cases) */
    tb_dtype dtype;            /* TB_F32 (the default), TB_F64, TB_C32 or TB_C64 */
    int ea, eb;                /* A and B scaled by 2^ea and 2^eb (range cases) */
    int tri;                   /* tb_gemm's wanted triangle (0: all of C)  */
} tcase;

static int verbose;
static int n_pass, n_fail;

static long double now_abs(long double x) { return x < 0 ? -x : x; }

/* Host reference: ref = sum_p op(A)(i,p) op(B)(p,j) in long double (64-bit
 * mantissa: 11 bits beyond fp64) and mag = sum |.||.| in double, the loops
 * ordered i-p-j so the inner loop streams rows. */
static void reference(const tcase *t, const void *A, size_t lda, const void *B, size_t ldb,
                      long double *ref, double *mag)
{
    const int m = t->m, n = t->n, k = t->k;
    long double *Ad = malloc(sizeof(long double) * (size_t)m * (k ? k : 1));
    long double *Bd = malloc(sizeof(long double) * (size_t)(k ? k : 1) * n);
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++)
            Ad[(size_t)i * k + p] = get(t->dtype, A, t->ta ? (size_t)p * lda + i : (size_t)i * lda + p);
    for (int p = 0; p < k; p++)
        for (int j = 0; j < n; j++)
            Bd[(size_t)p * n + j] = get(t->dtype, B, t->tb ? (size_t)j * ldb + p : (size_t)p * ldb + j);
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < m; i++) {
        long double *r = ref + (size_t)i * n;
        double *g = mag + (size_t)i * n;
        for (int j = 0; j < n; j++)
            r[j] = g[j] = 0.0;
        for (int p = 0; p < k; p++) {
            const long double a = Ad[(size_t)i * k + p];
            const double aa = (double)now_abs(a);
            const long double *b = Bd + (size_t)p * n;
            for (int j = 0; j < n; j++) {
                r[j] += a * b[j];
                g[j] += aa * (double)now_abs(b[j]);
            }
        }
    }
    free(Ad);
    free(Bd);
}

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "test_kernels: %s: %s (line %d)\n", #call,                    \
                    cudaGetErrorString(e_), __LINE__);                                    \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* The kernels that ran nothing because they do not fit this GPU, named once. */
static unsigned char skipped[256];
static unsigned char range_skipped[256];   /* kernels told of their range limit */

/* Whether any of the kernels in klist can run a case of type t (to skip the
 * reference of cases nothing will run). */
static int any_for(tb_dtype t, const char *klist)
{
    int nk;
    const tb_kernel_info *ks = tb_kernel_list(&nk);
    for (int i = 0; i < nk; i++)
        if (ks[i].dtype == t && tb_kernel_in_list(ks[i].name, klist))
            return 1;
    return tb_kernel_in_list("run", klist) ||
           (tb_dtype_real(t) == t &&
            tb_kernel_in_list(t == TB_F64 ? "run-dmma" : "run-tf32x3", klist));
}

static void run_case(const tcase *t, const char *klist)
{
    const int m = t->m, n = t->n, k = t->k;
    const tb_dtype dt = t->dtype;
    const size_t es = tb_dtype_size(dt);
    if (!any_for(dt, klist))
        return;
    /* Stored shapes: A is m x k (k x m when transposed), likewise B. */
    const int a_rows = t->ta ? k : m, a_cols = t->ta ? m : k;
    const int b_rows = t->tb ? n : k, b_cols = t->tb ? k : n;
    const size_t lda = (size_t)(a_cols > 0 ? a_cols : 1) + t->pad_a;
    const size_t ldb = (size_t)(b_cols > 0 ? b_cols : 1) + t->pad_b;
    const size_t ldc = (size_t)(n > 0 ? n : 1) + t->pad_c;
    const size_t GUARD = 37;
    const size_t a_sz = t->off + (size_t)a_rows * lda + GUARD;
    const size_t b_sz = t->off + (size_t)b_rows * ldb + GUARD;
    const size_t c_sz = t->off + (size_t)m * ldc + GUARD;

    char *hA = malloc(es * a_sz), *hB = malloc(es * b_sz);
    char *hC0 = malloc(es * c_sz), *hC = malloc(es * c_sz);
    long double *ref = malloc(sizeof(long double) * ((size_t)m * n + 1));
    double *mag = malloc(sizeof(double) * ((size_t)m * n + 1));
    fill(dt, hA, a_sz, t->nan_ab ? FILL_NAN : t->fill, t->ea);
    fill(dt, hB, b_sz, t->nan_ab ? FILL_NAN : t->fill, t->eb);
    if (t->fill == FILL_SPAN)
        for (int i = 1; i < m; i += 2)
            for (int p = 0; p < k; p++) {
                const size_t q = t->off + (t->ta ? (size_t)p * lda + i : (size_t)i * lda + p);
                const double v = dt == TB_F64 ? ((double *)hA)[q] : ((float *)hA)[q];
                put(dt, hA, q, ldexp(v, -150));
            }
    if (t->special && m > 2 && n > 2 && k > 2) {
        /* +inf at op(A)(1, 2), NaN at op(B)(k-1, n-2): row 1 of C must be
         * +-inf, column n-2 NaN; the 3xTF32 split must not turn inf to NaN. */
        put(dt, hA, t->off + (t->ta ? (size_t)2 * lda + 1 : (size_t)1 * lda + 2), INFINITY);
        put(dt, hB, t->off + (t->tb ? (size_t)(n - 2) * ldb + (k - 1) : (size_t)(k - 1) * ldb + (n - 2)),
            NAN);
    }
    /* C: a guard pattern everywhere, the window either NaN (beta == 0: it
     * must never be read) or random values that beta scales. */
    fill(dt, hC0, c_sz, FILL_UNIFORM, 0);
    if (t->beta == 0.0)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                put(dt, hC0, t->off + (size_t)i * ldc + j, NAN);
    if (t->alpha != 0.0 && !t->nan_ab)
        reference(t, hA + es * t->off, lda, hB + es * t->off, ldb, ref, mag);

    char *dA, *dB, *dC;
    CK(cudaMalloc((void **)&dA, es * a_sz));
    CK(cudaMalloc((void **)&dB, es * b_sz));
    CK(cudaMalloc((void **)&dC, es * c_sz));
    CK(cudaMemcpy(dA, hA, es * a_sz, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB, es * b_sz, cudaMemcpyHostToDevice));

    int nk;
    const tb_kernel_info *ks = tb_kernel_list(&nk);
    /* Every kernel of the case's type, its launcher alone (tb_gemm_run
     * with whole = 1), then (ki == nk, "run") the default path, tb_gemm_run
     * with the registry's pick; and (ki == nk + 1) that path with tf32x3
     * ("run-tf32x3") or dmma ("run-dmma"), whose aligned copies and split K
     * the blocks below count. */
    const tb_kernel_info *runk = tb_kernel_by_name(dt == TB_F64 ? "dmma" : "tf32x3");
    const tb_kernel_info *wgmma = tb_kernel_by_name("wgmma");
    for (int ki = 0; ki <= nk + 1; ki++) {
        const tb_kernel_info *K = ki < nk ? &ks[ki] : NULL;
        if (K && K->dtype != dt)
            continue;
        const char *kname = K ? K->name : ki == nk ? "run" : dt == TB_F64 ? "run-dmma" : "run-tf32x3";
        if (!tb_kernel_in_list(kname, klist))
            continue;
        if (K && !tb_kernel_fits_here(K)) {
            if (!skipped[ki]++)
                printf("skip %-13s does not fit this GPU (cc %d-%d, %d bytes of shared memory)\n",
                       kname, K->cc_min, K->cc_max, K->smem);
            continue;
        }
        if (ki == nk + 1 && (!runk || !tb_kernel_fits_here(runk)))
            continue;
        /* Range limits (sgemm_03_tf32x3.cu): the mma.sync kernels split
         * in their inner loop and do not test for values too small to
         * split (|x| < 2^-114), nor the default path where it takes them
         * (no wgmma); plain TF32 (tf32-fast) also rounds values within
         * 2^-12 of FLT_MAX to inf. */
        const int tiny = t->ea < -114 || t->eb < -114;
        const int mma_sync = !strncmp(kname, "tf32", 4) || !strcmp(kname, "run-tf32x3") ||
                             (!strcmp(kname, "run") && dt == TB_F32 &&
                              !(wgmma && tb_kernel_fits_here(wgmma)));
        if ((mma_sync && tiny) ||
            (!strcmp(kname, "tf32-fast") && (t->ea >= 128 || t->eb >= 128))) {
            if (!range_skipped[ki]) {
                range_skipped[ki] = 1;
                printf("skip %-13s on operands under 2^-114%s (its range limit)\n", kname,
                       strcmp(kname, "tf32-fast") ? "" : " or near FLT_MAX");
            }
            continue;
        }
        const tb_gemm gg = {dt, m, n, k, t->ta, t->tb, {t->alpha, 0.0}, {t->beta, 0.0},
                            dA + es * t->off, lda, dB + es * t->off, ldb, dC + es * t->off, ldc,
                            t->tri, 1};
        if (K && !tb_kernel_accepts(K, &gg))   /* its supports() says no */
            continue;
        CK(cudaMemcpy(dC, hC0, es * c_sz, cudaMemcpyHostToDevice));
        cudaError_t e = tb_gemm_run(&gg, K ? K : ki == nk ? NULL : runk, K != NULL, 0);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("FAIL %-13s %dx%dx%d t%d%d: launch: %s\n", kname, m, n, k, t->ta, t->tb,
                   cudaGetErrorString(e));
            n_fail++;
            cudaGetLastError();
            continue;
        }
        CK(cudaMemcpy(hC, dC, es * c_sz, cudaMemcpyDeviceToHost));

        /* Elementwise bound: rounding of a k-term dot product plus the beta
         * term, 4 (k+2) eps times the magnitudes (eps of the element type).
         * Plain TF32 rounds each input to 11 bits: its bound adds 2^-9 of
         * the magnitude. */
        const double eps = dt == TB_F64 ? DBL_EPSILON : FLT_EPSILON, kk = 4.0 * (k + 2) * eps;
        const double extra = strcmp(kname, "tf32-fast") == 0 ? ldexp(1.0, -9) : 0.0;
        long bad = 0, outside = 0, kept = 0;
        double worst = 0;
        int wi = -1, wj = -1;
        for (size_t idx = 0; idx < c_sz; idx++) {
            const long rel = (long)idx - t->off;
            const int in = rel >= 0 && (size_t)rel < (size_t)m * ldc && (size_t)rel % ldc < (size_t)n;
            if (!in) {
                if (memcmp(hC + es * idx, hC0 + es * idx, es) != 0)
                    outside++;
                continue;
            }
            const int i = (int)(rel / (long)ldc), j = (int)(rel % (long)ldc);
            if (TB_TILE_UNWANTED(t->tri, 1, i, 1, j, 1)) {   /* anything, or left alone */
                kept += memcmp(hC + es * idx, hC0 + es * idx, es) == 0;
                continue;
            }
            const double c0 = t->beta == 0.0 ? 0.0 : get(dt, hC0, idx);
            const long double want =
                (t->alpha == 0.0 ? 0.0L : (long double)t->alpha * ref[(size_t)i * n + j]) +
                (long double)t->beta * c0;
            const double got = get(dt, hC, idx);
            int ok;
            if (!isfinite((double)want)) /* inf/NaN planted: same class required */
                ok = isnan((double)want) ? isnan(got) : got == (double)want;
            else {
                const double m_ = t->alpha == 0.0 ? 0.0 : fabs(t->alpha) * mag[(size_t)i * n + j];
                const double tol = (kk + extra) * m_ + kk * fabs(t->beta) * fabs(c0);
                const double err = (double)now_abs(got - want);
                ok = err <= tol; /* NaN fails */
                if (err > worst || err != err) {
                    worst = err;
                    wi = i;
                    wj = j;
                }
            }
            if (!ok) {
                if (bad < 3 && verbose)
                    printf("   (%d,%d) got %.17g want %.17Lg\n", i, j, got, want);
                bad++;
            }
        }
        /* dmma leaves the tiles past a wanted triangle alone: most of the
         * other triangle of a product of 512 or more. */
        const int unskipped = t->tri && !strcmp(kname, "dmma") && m >= 512 && n >= 512 &&
                              kept < (long)m * n / 4;
        const int fail = bad || outside || unskipped;
        if (fail || verbose)
            printf("%s %-13s %5dx%5dx%5d t%d%d ld+%d/%d/%d off%d a=%g b=%g%s%s%s A*2^%d B*2^%d: "
                   "%ld bad, %ld outside changed, worst |err| %.3g at (%d,%d)%s\n",
                   fail ? "FAIL" : "ok  ", kname, m, n, k, t->ta, t->tb, t->pad_a, t->pad_b,
                   t->pad_c, t->off, t->alpha, t->beta, t->fill == FILL_WIDE ? " wide" : t->fill == FILL_SPAN ? " span" : "",
                   t->special ? " inf/nan" : "", t->nan_ab ? " nanAB" : "", t->ea, t->eb, bad,
                   outside, worst, wi, wj,
                   !t->tri ? "" : unskipped ? "; the other triangle computed" : "; a triangle wanted");
        if (fail)
            n_fail++;
        else
            n_pass++;
    }
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    free(hA); free(hB); free(hC0); free(hC); free(ref); free(mag);
}

/* ---- complex cases --------------------------------------------------------- */

/* Element (i, p) of op(X) for a complex X of parts of type rt (stride ld
 * elements, trans 0, 1 or 2: conjugated), as long doubles. */
static void cx_op(tb_dtype rt, const void *X, size_t ld, int trans, int i, int p, long double *re,
                  long double *im)
{
    const size_t q = trans ? (size_t)p * ld + i : (size_t)i * ld + p;
    *re = get(rt, X, 2 * q);
    *im = get(rt, X, 2 * q + 1) * (trans == 2 ? -1.0L : 1.0L);
}

/* Host reference of a complex case: ref (re, im pairs) = sum_p op(A)(i,p)
 * op(B)(p,j) in long double, and mag = sum_p |op(A)(i,p)|_1 |op(B)(p,j)|_1
 * (|z|_1 = |re| + |im|, which bounds each part of every term). */
static void creference(const tcase *t, const void *A, size_t lda, const void *B, size_t ldb,
                       long double *ref, double *mag)
{
    const tb_dtype rt = tb_dtype_real(t->dtype);
    const int m = t->m, n = t->n, k = t->k;
    long double *Ad = malloc(2 * sizeof(long double) * (size_t)m * (k ? k : 1));
    long double *Bd = malloc(2 * sizeof(long double) * (size_t)(k ? k : 1) * n);
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++)
            cx_op(rt, A, lda, t->ta, i, p, &Ad[2 * ((size_t)i * k + p)], &Ad[2 * ((size_t)i * k + p) + 1]);
    for (int p = 0; p < k; p++)
        for (int j = 0; j < n; j++)
            cx_op(rt, B, ldb, t->tb, p, j, &Bd[2 * ((size_t)p * n + j)], &Bd[2 * ((size_t)p * n + j) + 1]);
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < m; i++) {
        long double *r = ref + 2 * (size_t)i * n;
        double *g = mag + (size_t)i * n;
        for (int j = 0; j < n; j++)
            r[2 * j] = r[2 * j + 1] = g[j] = 0.0;
        for (int p = 0; p < k; p++) {
            const long double ar = Ad[2 * ((size_t)i * k + p)], ai = Ad[2 * ((size_t)i * k + p) + 1];
            const double aa = (double)(now_abs(ar) + now_abs(ai));
            const long double *b = Bd + 2 * (size_t)p * n;
            for (int j = 0; j < n; j++) {
                const long double br = b[2 * j], bi = b[2 * j + 1];
                r[2 * j] += ar * br - ai * bi;
                r[2 * j + 1] += ar * bi + ai * br;
                g[j] += aa * (double)(now_abs(br) + now_abs(bi));
            }
        }
    }
    free(Ad);
    free(Bd);
}

/* s x with the library's rule (tb_scalar): a real s scales each part alone. */
static void cx_scale(double sr, double si, long double xr, long double xi, long double *re,
                     long double *im)
{
    if (si == 0.0) {
        *re = sr * xr;
        *im = sr * xi;
    } else {
        *re = sr * xr - si * xi;
        *im = sr * xi + si * xr;
    }
}

/* A complex case (TB_C32, TB_C64) on every complex entry in klist and on
 * the default path ("run", tb_gemm_run with the registry's pick): ta and
 * tb 0, 1 or 2 (conjugate transpose), complex alpha and beta, the same
 * checks as run_case: the bound, inf/NaN classes, beta 0 over NaN, nothing
 * outside C's window changed. */
/* A complex case: a tcase (ta, tb 0, 1 or 2; alpha and beta the real
 * parts) and the imaginary parts of alpha and beta. */
typedef struct {
    tcase c;
    double alpha_im, beta_im;
} ccase;

static void run_ccase(const ccase *cc, const char *klist)
{
    const tcase *t = &cc->c;
    const int m = t->m, n = t->n, k = t->k;
    const tb_dtype dt = t->dtype, rt = tb_dtype_real(dt);
    const size_t es = tb_dtype_size(dt);
    if (!any_for(dt, klist))
        return;
    const int a_rows = t->ta ? k : m, a_cols = t->ta ? m : k;
    const int b_rows = t->tb ? n : k, b_cols = t->tb ? k : n;
    const size_t lda = (size_t)(a_cols > 0 ? a_cols : 1) + t->pad_a;
    const size_t ldb = (size_t)(b_cols > 0 ? b_cols : 1) + t->pad_b;
    const size_t ldc = (size_t)(n > 0 ? n : 1) + t->pad_c;
    const size_t GUARD = 37;
    const size_t a_sz = t->off + (size_t)a_rows * lda + GUARD;
    const size_t b_sz = t->off + (size_t)b_rows * ldb + GUARD;
    const size_t c_sz = t->off + (size_t)m * ldc + GUARD;
    const int beta0 = t->beta == 0.0 && cc->beta_im == 0.0;
    const int alpha0 = t->alpha == 0.0 && cc->alpha_im == 0.0;

    char *hA = malloc(es * a_sz), *hB = malloc(es * b_sz);
    char *hC0 = malloc(es * c_sz), *hC = malloc(es * c_sz);
    long double *ref = malloc(2 * sizeof(long double) * ((size_t)m * n + 1));
    double *mag = malloc(sizeof(double) * ((size_t)m * n + 1));
    fill(rt, hA, 2 * a_sz, t->nan_ab ? FILL_NAN : t->fill, t->ea);
    fill(rt, hB, 2 * b_sz, t->nan_ab ? FILL_NAN : t->fill, t->eb);
    if (t->special && m > 2 && n > 2 && k > 2) {
        /* +inf in re of op(A)(1, 2), NaN in im of op(B)(k-1, n-2): row 1 of
         * C infinite in both parts, column n-2 NaN. */
        put(rt, hA, 2 * (t->off + (t->ta ? (size_t)2 * lda + 1 : (size_t)1 * lda + 2)), INFINITY);
        put(rt, hB, 2 * (t->off + (t->tb ? (size_t)(n - 2) * ldb + (k - 1) : (size_t)(k - 1) * ldb + (n - 2))) + 1,
            NAN);
    }
    fill(rt, hC0, 2 * c_sz, FILL_UNIFORM, 0);
    if (beta0)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                put(rt, hC0, 2 * (t->off + (size_t)i * ldc + j), NAN);
                put(rt, hC0, 2 * (t->off + (size_t)i * ldc + j) + 1, NAN);
            }
    if (!alpha0 && !t->nan_ab)
        creference(t, hA + es * t->off, lda, hB + es * t->off, ldb, ref, mag);

    char *dA, *dB, *dC;
    CK(cudaMalloc((void **)&dA, es * a_sz));
    CK(cudaMalloc((void **)&dB, es * b_sz));
    CK(cudaMalloc((void **)&dC, es * c_sz));
    CK(cudaMemcpy(dA, hA, es * a_sz, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB, es * b_sz, cudaMemcpyHostToDevice));

    int nk;
    const tb_kernel_info *ks = tb_kernel_list(&nk);
    for (int ki = 0; ki <= nk; ki++) {
        const tb_kernel_info *K = ki < nk ? &ks[ki] : NULL;
        if (K && K->dtype != dt)
            continue;
        const char *kname = K ? K->name : "run";
        if (!tb_kernel_in_list(kname, klist))
            continue;
        if (K && !tb_kernel_fits_here(K)) {
            if (!skipped[ki]++)
                printf("skip %-13s does not fit this GPU (cc %d-%d, %d bytes of shared memory)\n",
                       kname, K->cc_min, K->cc_max, K->smem);
            continue;
        }
        const tb_gemm gg = {dt, m, n, k, t->ta, t->tb, {t->alpha, cc->alpha_im},
                            {t->beta, cc->beta_im}, dA + es * t->off, lda, dB + es * t->off, ldb,
                            dC + es * t->off, ldc};
        if (K && !tb_kernel_accepts(K, &gg))
            continue;
        CK(cudaMemcpy(dC, hC0, es * c_sz, cudaMemcpyHostToDevice));
        cudaError_t e = tb_gemm_run(&gg, K, K != NULL, 0);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("FAIL %-13s %dx%dx%d t%d%d: launch: %s\n", kname, m, n, k, t->ta, t->tb,
                   cudaGetErrorString(e));
            n_fail++;
            cudaGetLastError();
            continue;
        }
        CK(cudaMemcpy(hC, dC, es * c_sz, cudaMemcpyDeviceToHost));

        /* Each part within 4 (2k+2) eps (the real product's depth is 2k)
         * of |alpha|_1 mag + |beta|_1 |c0|_1: the rounding of the sums, of
         * a complex alpha folded into B'' and of a complex beta's scaling. */
        const double eps = rt == TB_F64 ? DBL_EPSILON : FLT_EPSILON, kk = 4.0 * (2.0 * k + 2) * eps;
        const double a1 = fabs(t->alpha) + fabs(cc->alpha_im), b1 = fabs(t->beta) + fabs(cc->beta_im);
        long bad = 0, outside = 0;
        double worst = 0;
        int wi = -1, wj = -1;
        for (size_t idx = 0; idx < c_sz; idx++) {
            const long rel = (long)idx - t->off;
            const int in = rel >= 0 && (size_t)rel < (size_t)m * ldc && (size_t)rel % ldc < (size_t)n;
            if (!in) {
                if (memcmp(hC + es * idx, hC0 + es * idx, es) != 0)
                    outside++;
                continue;
            }
            const int i = (int)(rel / (long)ldc), j = (int)(rel % (long)ldc);
            const double c0r = beta0 ? 0.0 : get(rt, hC0, 2 * idx);
            const double c0i = beta0 ? 0.0 : get(rt, hC0, 2 * idx + 1);
            long double wr = 0, wi_ = 0, br = 0, bi = 0;
            if (!alpha0)
                cx_scale(t->alpha, cc->alpha_im, ref[2 * ((size_t)i * n + j)],
                         ref[2 * ((size_t)i * n + j) + 1], &wr, &wi_);
            if (!beta0)
                cx_scale(t->beta, cc->beta_im, c0r, c0i, &br, &bi);
            const long double want[2] = {wr + br, wi_ + bi};
            const double tol = kk * (alpha0 ? 0.0 : a1 * mag[(size_t)i * n + j]) +
                               kk * b1 * (fabs(c0r) + fabs(c0i));
            int ok = 1;
            for (int part = 0; part < 2; part++) {
                const double got = get(rt, hC, 2 * idx + part), w = (double)want[part];
                if (!isfinite(w)) {
                    ok &= isnan(w) ? isnan(got) : got == w;
                } else {
                    const double err = (double)now_abs(got - want[part]);
                    ok &= err <= tol;   /* NaN fails */
                    if (err > worst || err != err) {
                        worst = err;
                        wi = i;
                        wj = j;
                    }
                }
            }
            if (!ok) {
                if (bad < 3 && verbose)
                    printf("   (%d,%d) got %.9g%+.9gi want %.9Lg%+.9Lgi\n", i, j,
                           get(rt, hC, 2 * idx), get(rt, hC, 2 * idx + 1), want[0], want[1]);
                bad++;
            }
        }
        const int fail = bad || outside;
        if (fail || verbose)
            printf("%s %-13s %5dx%5dx%5d t%d%d ld+%d/%d/%d off%d a=%g%+gi b=%g%+gi%s%s%s: "
                   "%ld bad, %ld outside changed, worst |err| %.3g at (%d,%d)\n",
                   fail ? "FAIL" : "ok  ", kname, m, n, k, t->ta, t->tb, t->pad_a, t->pad_b,
                   t->pad_c, t->off, t->alpha, cc->alpha_im, t->beta, cc->beta_im,
                   t->fill == FILL_WIDE ? " wide" : "", t->special ? " inf/nan" : "",
                   t->nan_ab ? " nanAB" : "", bad, outside, worst, wi, wj);
        if (fail)
            n_fail++;
        else
            n_pass++;
    }
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    free(hA); free(hB); free(hC0); free(hC); free(ref); free(mag);
}

/* A complex case: sizes, transposes (0 N, 1 T, 2 C), strides padded by
 * pa, pb, pc elements, bases off by `off` elements, alpha and beta. */
static ccase cx(int m, int n, int k, int ta, int tb, int pa, int pb, int pc, int off, double ar,
                double ai, double br, double bi, int fill_how, int special, int nan_ab)
{
    const ccase c = {{m, n, k, ta, tb, pa, pb, pc, off, ar, br, fill_how, special, nan_ab, TB_C32,
                      0, 0},
                     ai, bi};
    return c;
}

/* Every complex case of type dt (TB_C32 or TB_C64) with sizes up to maxs
 * (those from mins up; --quick: up to 257). */
static void run_complex(tb_dtype dt, const char *klist, int quick, int mins, int maxs)
{
    static const int sizes[] = {1, 2, 7, 13, 16, 17, 31, 33, 61, 127, 131, 257, 509, 0};
    for (const int *sp = sizes; *sp; sp++) {
        const int s = *sp;
        if (s > maxs || s < mins || (quick && s > 257))
            continue;
        for (int tr = 0; tr < 9; tr++) {
            const int ta = tr / 3, tb = tr % 3;
            /* v0: square, tight strides, aligned, alpha 1, beta 0 over NaN.
             * v1: non-square, odd padded strides, bases off by one element,
             *     complex alpha, real beta.
             * v2: other aspect, padded strides, real alpha, complex beta,
             *     wide dynamic range. */
            ccase v[3] = {
                cx(s, s, s, ta, tb, 0, 0, 0, 0, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
                cx(s, s + s / 2 + 1, s / 2 + 1, ta, tb, 3, 5, 1, 1, -1.5, 0.5, 0.5, 0.0,
                   FILL_UNIFORM, 0, 0),
                cx(s / 2 + 1, s, 2 * s + 1, ta, tb, 4, 8, 4, 0, 0.75, 0.0, 1.0, -0.5, FILL_WIDE,
                   0, 0),
            };
            for (int i = 0; i < 3; i++) {
                v[i].c.dtype = dt;
                run_ccase(&v[i], klist);
            }
        }
    }
    /* The edges of the contract, and shapes that the real types' fast
     * kernels take as real products (m x 2n x 2k): a wave of tiles and more,
     * K split (long K, small output), the last wave in parts. */
    ccase c[] = {
        /* alpha == 0: C = beta C, A and B (all NaN) never read; complex
         * beta, real beta, beta 0. */
        cx(37, 29, 41, 0, 0, 0, 0, 3, 0, 0.0, 0.0, 0.5, -2.0, FILL_UNIFORM, 0, 1),
        cx(37, 29, 41, 2, 1, 1, 0, 0, 1, 0.0, 0.0, 1.5, 0.0, FILL_UNIFORM, 0, 1),
        cx(37, 29, 41, 1, 2, 1, 0, 0, 1, 0.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 0, 1),
        /* k == 0: C = beta C. */
        cx(33, 17, 0, 0, 2, 0, 0, 2, 0, 1.0, 1.0, 2.0, 1.0, FILL_UNIFORM, 0, 0),
        cx(33, 17, 0, 2, 0, 0, 0, 0, 1, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        /* m == 0 or n == 0: nothing may be written. */
        cx(0, 17, 9, 0, 0, 0, 0, 0, 0, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        cx(17, 0, 9, 2, 2, 0, 0, 0, 0, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        /* inf in A, NaN in B (real alpha: no 0 x inf in its scaling). */
        cx(33, 35, 37, 0, 0, 0, 0, 0, 0, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 1, 0),
        cx(257, 131, 200, 2, 1, 1, 3, 1, 1, -1.0, 0.0, 0.5, 0.0, FILL_UNIFORM, 1, 0),
        cx(131, 257, 100, 1, 2, 0, 1, 0, 0, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 1, 0),
        /* Skinny and flat, a complex alpha with beta 0 over NaN. */
        cx(1, 300, 257, 0, 2, 0, 1, 0, 0, 0.5, -2.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        cx(300, 1, 257, 2, 0, 2, 0, 0, 1, 2.0, 0.0, -1.0, 0.25, FILL_UNIFORM, 0, 0),
        cx(129, 130, 5, 1, 1, 0, 0, 0, 0, 1.0, 1.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        /* Real products of a wave of tiles and more; every transpose pair
         * with a conjugate, unaligned strides and bases, alpha and beta of
         * every kind. */
        cx(1000, 700, 600, 0, 1, 0, 0, 0, 0, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        cx(1000, 700, 600, 0, 2, 1, 3, 1, 1, -0.5, 1.5, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        cx(777, 1031, 513, 2, 2, 3, 1, 2, 1, 0.5, 0.0, 1.0, -1.0, FILL_WIDE, 0, 0),
        cx(640, 700, 650, 1, 0, 0, 0, 0, 0, 1.0, -1.0, 0.5, 0.5, FILL_UNIFORM, 0, 0),
        cx(1100, 900, 301, 2, 0, 1, 0, 3, 0, 1.0, 0.0, -1.0, 0.0, FILL_UNIFORM, 1, 0),
        /* Small outputs with a long K: the real product's K split. */
        cx(300, 200, 3000, 1, 2, 1, 1, 1, 1, 1.0, 0.0, 0.0, 0.0, FILL_UNIFORM, 0, 0),
        cx(128, 95, 10000, 2, 0, 0, 3, 0, 0, -1.0, 0.5, 0.5, 0.0, FILL_WIDE, 0, 0),
        cx(384, 700, 2500, 0, 0, 2, 2, 2, 0, 1.0, 0.0, 0.0, 2.0, FILL_UNIFORM, 0, 0),
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const tcase *t = &c[i].c;
        const int big = t->m > 700 || t->n > 700 || t->k > 2000;
        if (t->m > maxs || t->n > maxs || (t->m < mins && t->n < mins) || (quick && big))
            continue;
        c[i].c.dtype = dt;
        run_ccase(&c[i], klist);
    }
}

/* The case c as element type dt. */
static void run_as(tcase c, tb_dtype dt, const char *klist)
{
    c.dtype = dt;
    run_case(&c, klist);
}

/* ---- the Ozaki double product's accuracy rule ------------------------------ */

/* randn x 2^u, u uniform in [-E, E] (E < 0: uniform [-1, 1)), never 0. */
static double randn_wide(int E)
{
    if (E < 0)
        return rng_val(TB_F64);
    const double u1 = ((double)rng_u32() + 1.0) / 4294967297.0, u2 = rng_u32() / 4294967296.0;
    const double v = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    return ldexp(v == 0.0 ? 0.5 : v, E ? (int)(rng_u32() % (unsigned)(2 * E + 1)) - E : 0);
}

/* The Ozaki scheme's entries (dozaki, dozaki-mma; dgemm_02_ozaki.cu) on the
 * same inputs as dmma, an fp64 sum of each dot product in order (cuBLAS
 * DGEMM's errors to three digits, docs/kernels.md): their largest |c - ref|
 * / sum |a||b| and relative Frobenius error, against the long-double
 * reference, must be at most dmma's. Uniform [-1, 1] and randn x 2^u, u in
 * [-12, 12] and [-30, 30]; a result equal to dmma's bit for bit is the rule
 * sending the product to dmma (said as such). Then the edges of its gate
 * through run_case's bound: operands near the top of the range, near the
 * bottom, subnormal A times 2^1000 (scaled, not sent), and K over one INT8
 * pass (TB_OZ_KCUT, 130944). */
static void run_ozaki(const char *klist, int quick)
{
    const tb_kernel_info *dm = tb_kernel_by_name("dmma");
    static const char *const oz[] = {"dozaki", "dozaki-mma"};
    int any = 0;
    for (int i = 0; i < 2; i++) {
        const tb_kernel_info *K = tb_kernel_by_name(oz[i]);
        any |= K && tb_kernel_in_list(oz[i], klist) && tb_kernel_fits_here(K);
    }
    if (!any || !dm || !tb_kernel_fits_here(dm))
        return;
    static const struct {
        int m, n, k, ta, tb, E;
    } cs[] = {
        {384, 512, 1536, 0, 0, -1}, {509, 257, 2048, 1, 1, -1}, {384, 512, 1536, 1, 0, 12},
        {256, 384, 4096, 0, 1, 12}, {384, 512, 1536, 0, 1, 30},  {256, 256, 4096, 1, 0, 30},
        {300, 200, 600, 0, 0, 30},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        const int m = cs[c].m, n = cs[c].n, k = cs[c].k;
        if (quick && (size_t)m * n * k > 200000000u)
            continue;
        const tcase t = {m, n, k, cs[c].ta, cs[c].tb, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0,
                         TB_F64, 0, 0};
        const size_t lda = t.ta ? m : k, ldb = t.tb ? k : n;
        const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
        double *hA = malloc(8 * na), *hB = malloc(8 * nb), *hC = malloc(8 * nc), *hD = malloc(8 * nc);
        long double *ref = malloc(sizeof(long double) * nc);
        double *mag = malloc(8 * nc);
        for (size_t q = 0; q < na; q++)
            hA[q] = randn_wide(cs[c].E);
        for (size_t q = 0; q < nb; q++)
            hB[q] = randn_wide(cs[c].E);
        reference(&t, hA, lda, hB, ldb, ref, mag);
        double *dA, *dB, *dC;
        CK(cudaMalloc((void **)&dA, 8 * na));
        CK(cudaMalloc((void **)&dB, 8 * nb));
        CK(cudaMalloc((void **)&dC, 8 * nc));
        CK(cudaMemcpy(dA, hA, 8 * na, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, hB, 8 * nb, cudaMemcpyHostToDevice));
        const tb_gemm g = {TB_F64, m, n, k, t.ta, t.tb, {1.0, 0.0}, {0.0, 0.0}, dA, lda, dB, ldb,
                           dC, (size_t)n};
        double dmx = 0, drel = 0;
        for (int ki = -1; ki < 2; ki++) {
            const tb_kernel_info *K = ki < 0 ? dm : tb_kernel_by_name(oz[ki]);
            if (ki >= 0 && (!K || !tb_kernel_in_list(K->name, klist) || !tb_kernel_accepts(K, &g)))
                continue;
            CK(cudaMemset(dC, 0xff, 8 * nc));   /* NaN: every result must be written */
            cudaError_t e = tb_gemm_run(&g, K, 1, 0);
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                printf("FAIL %-13s %dx%dx%d: launch: %s\n", K->name, m, n, k, cudaGetErrorString(e));
                n_fail++;
                cudaGetLastError();
                continue;
            }
            CK(cudaMemcpy(ki < 0 ? hD : hC, dC, 8 * nc, cudaMemcpyDeviceToHost));
            const double *got = ki < 0 ? hD : hC;
            long double num = 0, den = 0;
            double mx = 0;
            for (size_t q = 0; q < nc; q++) {
                const long double d = (long double)got[q] - ref[q];
                num += d * d;
                den += ref[q] * ref[q];
                const double r = (double)now_abs(d) / mag[q];
                if (r > mx || r != r)
                    mx = r;
            }
            const double rel = (double)sqrtl(num / den);
            if (ki < 0) {
                dmx = mx, drel = rel;
                continue;
            }
            const int same = memcmp(hC, hD, 8 * nc) == 0;
            const int ok = mx <= dmx && rel <= drel;   /* NaN fails */
            printf("%s %-13s %5dx%5dx%5d t%d%d %s: max_err %.3g (dmma %.3g), rel_err %.3g (dmma "
                   "%.3g)%s\n",
                   ok ? "ok  " : "FAIL", K->name, m, n, k, t.ta, t.tb,
                   cs[c].E < 0 ? "uniform" : cs[c].E == 12 ? "randn x 2^[-12,12]" : "randn x 2^[-30,30]",
                   mx, dmx, rel, drel, same ? " (sent to dmma)" : "");
            if (ok)
                n_pass++;
            else
                n_fail++;
        }
        CK(cudaFree(dA));
        CK(cudaFree(dB));
        CK(cudaFree(dC));
        free(hA), free(hB), free(hC), free(hD), free(ref), free(mag);
    }
    /* The gate and the scale at the ends of the range, and K over one pass,
     * through the common checks. */
    tcase r[] = {
        {200, 300, 400, 0, 1, 1, 0, 3, 1, 1.0, 0.0, FILL_UNIFORM, 0, 0, TB_F64, 1000, 0},
        {300, 200, 400, 1, 0, 0, 2, 0, 0, -1.0, 0.5, FILL_UNIFORM, 0, 0, TB_F64, -600, -400},
        {257, 263, 509, 1, 1, 0, 0, 1, 1, 2.0, 0.0, FILL_UNIFORM, 0, 0, TB_F64, -1060, 1000},
        {263, 257, 509, 0, 0, 3, 1, 0, 0, 1.0, 1.0, FILL_UNIFORM, 0, 0, TB_F64, 1000, -1060},
        {64, 72, 140000, 0, 1, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, TB_F64, 0, 0},
        {33, 40, 131073, 1, 0, 1, 2, 3, 1, -1.0, 0.5, FILL_WIDE, 0, 0, TB_F64, 0, 0},
    };
    char list[64] = "";
    for (int i = 0; i < 2; i++)
        if (tb_kernel_in_list(oz[i], klist))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? "," : "", oz[i]);
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (!quick || r[i].k < 100000)
            run_case(&r[i], list);
}

int main(int argc, char **argv)
{
    /* bit 0: fp32, 1: fp64, 2: complex float, 3: complex double */
    int quick = 0, maxs = 1 << 30, mins = 0, types = 15;
    const char *klist = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--max") && i + 1 < argc)
            maxs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min") && i + 1 < argc)
            mins = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
            klist = argv[++i];
        else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
            const char *d = argv[++i];
            types = !strcmp(d, "float")      ? 1
                    : !strcmp(d, "double")   ? 2
                    : !strcmp(d, "complex")  ? 4
                    : !strcmp(d, "zcomplex") ? 8
                    : !strcmp(d, "real")     ? 3
                    : !strcmp(d, "all")      ? 15
                                             : 0;
            if (!types) {
                fprintf(stderr, "test_kernels: --dtype float, double, complex, zcomplex, real or "
                                "all\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: test_kernels [--quick] [--max N] [--min N] [--kernels a,b] "
                            "[--dtype float|double|complex|zcomplex|real|all] [--verbose]\n");
            return 2;
        }
    }
    int ndev = 0, sms = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    {
        /* What the start thread runs: every kernel the default pick can
         * return, launched on 1 x 1 x 1 products with both row layouts. */
        const int stop = 0;
        const cudaError_t e = tb_kernels_load(0, &stop);
        if (e == cudaSuccess) {
            n_pass++;
        } else {
            n_fail++;
            printf("FAIL tb_kernels_load: %s\n", cudaGetErrorString(e));
        }
    }

    for (int d = 0; d < 2; d++) {
        const tb_dtype dt = d ? TB_F64 : TB_F32;
        if (!(types & (1 << d)))
            continue;
        /* fp32: tile edges and odd sizes; fp64 adds primes. */
        static const int sizes32[] = {1, 15, 16, 17, 31, 33, 127, 255, 257, 1000, 1023, 0};
        static const int sizes64[] = {1, 2, 7, 13, 16, 17, 31, 33, 61, 127, 131, 255, 257, 509, 1009, 0};
        for (const int *sp = d ? sizes64 : sizes32; *sp; sp++) {
            const int s = *sp;
            if (s > maxs || s < mins || (quick && s > 257))
                continue;
            for (int tr = 0; tr < 4; tr++) {
                const int ta = tr >> 1, tb = tr & 1;
                /* v0: square, tight strides, aligned, alpha 1, beta 0 over NaN.
                 * v1: non-square, odd padded strides, bases off by one element
                 *     (nothing 16-byte aligned), alpha -1.5, beta 0.5.
                 * v2: other aspect, strides padded to a multiple of 4, alpha
                 *     0.75, beta 1, wide dynamic range. */
                tcase v0 = {s, s, s, ta, tb, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, dt, 0, 0};
                tcase v1 = {s, s + s / 2 + 1, s / 2 + 1, ta, tb, 3, 5, 1, 1, -1.5, 0.5,
                            FILL_UNIFORM, 0, 0, dt, 0, 0};
                tcase v2 = {s / 2 + 1, s, 2 * s + 1, ta, tb, 4, 8, 4, 0, 0.75, 1.0,
                            FILL_WIDE, 0, 0, dt, 0, 0};
                run_case(&v0, klist);
                run_case(&v1, klist);
                run_case(&v2, klist);
            }
        }
        /* Edges of the contract. */
        {
            tcase c[] = {
                /* alpha == 0: C = beta*C and A, B (all NaN) never read. */
                {37, 29, 41, 0, 0, 0, 0, 3, 0, 0.0, 0.5, FILL_UNIFORM, 0, 1, 0, 0, 0},
                {37, 29, 41, 1, 1, 1, 0, 0, 1, 0.0, 0.0, FILL_UNIFORM, 0, 1, 0, 0, 0},
                /* k == 0: C = beta*C. */
                {33, 17, 0, 0, 0, 0, 0, 2, 0, 1.0, 2.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {33, 17, 0, 1, 0, 0, 0, 0, 1, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                /* m == 0 or n == 0: nothing may be written. */
                {0, 17, 9, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {17, 0, 9, 0, 1, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                /* inf in A, NaN in B. */
                {33, 35, 37, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {257, 131, 200, 1, 1, 1, 3, 1, 1, 1.0, 0.5, FILL_UNIFORM, 1, 0, 0, 0, 0},
                /* Skinny and flat. */
                {1, 300, 257, 0, 1, 0, 1, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {300, 1, 257, 1, 0, 2, 0, 0, 1, 2.0, -1.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {129, 130, 5, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                /* Flat, at least a wave of 128 x 128 tiles (the 128-row
                 * tilings), a short K with a ragged last slice. */
                {1700, 1300, 40, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {1601, 1333, 37, 1, 1, 1, 3, 1, 1, -1.0, 0.5, FILL_UNIFORM, 1, 0, 0, 0, 0},
            };
            for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
                if (c[i].m <= maxs && c[i].n <= maxs && (c[i].m >= mins || c[i].n >= mins))
                    run_as(c[i], dt, klist);
        }
        if (maxs >= 1100) {
            /* The ends of the range, results kept normal: 1e-30 times 1e30
             * either way round, subnormal operands times 2^125, products near
             * the bottom of the normal range (2^-62 x 2^-62), large values
             * (2^60 x 2^60), and values up to FLT_MAX (2^128 x 2^-40: about one
             * in 4096 rounds past the largest TF32 value). Shapes that the
             * wgmma kernel takes: whole tiles, the last wave in parts, K split. */
            tcase r[] = {
                {1100, 770, 301, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, -100, 100},
                {770, 1100, 129, 1, 1, 1, 3, 1, 1, -1.5, 0.5, FILL_UNIFORM, 0, 0, 0, 100, -100},
                {1030, 900, 333, 0, 1, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, -133, 125},
                {900, 1030, 333, 1, 0, 2, 1, 3, 1, 1.0, 1.0, FILL_UNIFORM, 0, 0, 0, 125, -133},
                {1024, 1024, 512, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, -62, -62},
                {1040, 700, 1000, 1, 0, 0, 0, 0, 0, -1.5, 0.5, FILL_UNIFORM, 0, 0, 0, 60, 60},
                {1100, 800, 100, 0, 1, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 1, 0, 0, 128, -40},
                {384, 320, 4100, 1, 1, 4, 4, 0, 1, 2.0, 0.25, FILL_UNIFORM, 0, 0, 0, -133, 126},
                /* A already in the scaled range (2^32 to 2^33), B scaled
                 * alone. */
                {1030, 900, 333, 1, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 33, -120},
                /* Half of A's rows 2^-150 below the other half: more than
                 * any one scale of A can hold (the exact path). */
                {1100, 770, 301, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_SPAN, 0, 0, 0, 100, 0},
                {384, 320, 4100, 1, 1, 4, 4, 0, 1, 2.0, 0.25, FILL_SPAN, 0, 0, 0, 100, 0},
            };
            for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
                run_as(r[i], dt, klist);
        }
        if (!quick && maxs >= 700) {
            /* Fewer 128 x 128 tiles than SMs with a long K: the wgmma
             * kernel splits K inside its persistent grid (tb_wgmma_parts,
             * on the H200: 6, 3, 13, 32 and 5 parts, the fourth 8 slices deep;
             * the aligned last two are split in shared memory); and larger
             * grids whose last wave it splits (tb_wgmma_tail_parts, on the
             * H200: 154 tiles, the last 22 in 6 parts; 274 tiles split in
             * shared memory, the last 10 in 8).
             * Every transpose, unaligned operands, beta 0 over NaN and beta
             * != 0, inf and NaN planted (split K recomputes a NaN sum over
             * the whole of K), wide range. For fp32 on a GPU that runs wgmma,
             * each must really be split. */
            tcase sk[] = {
                {520, 390, 4000, 1, 0, 3, 1, 2, 1, -0.5, 1.5, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {700, 650, 3001, 0, 1, 0, 0, 0, 0, 1.0, 0.0, FILL_WIDE, 0, 0, 0, 0, 0},
                {384, 320, 4100, 1, 1, 4, 4, 0, 1, 2.0, 0.25, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {256, 256, 8192, 0, 0, 1, 0, 3, 0, 1.0, 0.0, FILL_UNIFORM, 1, 0, 0, 0, 0},
                /* More units than SMs (49 tiles x 5 parts): a block's sums
                 * go out under its next unit's first slice, a NaN's first. */
                {781, 792, 2048, 1, 0, 1, 2, 3, 0, 1.0, 0.5, FILL_UNIFORM, 1, 0, 0, 0, 0},
                /* Aligned small outputs: wgmma splits in shared memory. */
                {256, 384, 8192, 0, 0, 0, 4, 1, 0, 1.0, 0.0, FILL_WIDE, 1, 0, 0, 0, 0},
                {300, 200, 6000, 1, 1, 4, 0, 0, 0, -1.0, 0.5, FILL_UNIFORM, 0, 0, 0, 0, 0},
                /* The last wave in parts, the others whole. */
                {1300, 1700, 900, 1, 0, 2, 1, 3, 1, 1.0, 0.5, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {128, 35072, 512, 0, 1, 0, 0, 0, 0, -1.0, 0.0, FILL_WIDE, 0, 0, 0, 0, 0},
            };
            const tb_kernel_info *wg = tb_kernel_by_name("wgmma");
            const int split_here = dt == TB_F32 && wg && tb_kernel_fits_here(wg) &&
                                   tb_kernel_in_list("wgmma", klist);
            unsigned long long done = 0, want = 0;
            for (size_t i = 0; split_here && i < sizeof sk / sizeof sk[0]; i++) {
                want += tb_wgmma_parts(sk[i].m, sk[i].n, sk[i].k, sms) > 1 ||
                        tb_wgmma_tail_parts(sk[i].m, sk[i].n, sk[i].k, sms) > 1;
                const unsigned long long before = tb_run_split_count();
                run_as(sk[i], dt, "wgmma");
                done += tb_run_split_count() - before;
            }
            if (split_here && (done != want || want == 0)) {
                printf("FAIL wgmma: %llu small grids with a long K split along K, %llu planned\n",
                       done, want);
                n_fail++;
            } else if (split_here) {
                printf("ok   wgmma: %llu small grids with a long K split along K (%d SMs)\n", done,
                       sms);
                n_pass++;
            }
            /* Every kernel of the list on the same cases (wgmma again, if listed). */
            for (size_t i = 0; (!klist || strcmp(klist, "wgmma") != 0) && i < sizeof sk / sizeof sk[0]; i++)
                run_as(sk[i], dt, klist);
        }
        if (!quick && maxs >= 450) {
            /* The small kernel's split along K (gemm_05_small.cu): small
             * outputs with a long K, a 1 x 1 dot product, a ragged last
             * part; every transpose, unaligned operands, beta 0 over NaN and
             * beta != 0, inf and NaN planted, wide range. Each product that
             * tb_small_parts splits must be split, and every result right. */
            tcase sm[] = {
                {64, 64, 2048, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {100, 300, 500, 1, 0, 3, 1, 2, 1, -0.5, 1.5, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {33, 47, 3001, 1, 1, 1, 0, 0, 1, 2.0, 0.5, FILL_WIDE, 0, 0, 0, 0, 0},
                {450, 450, 450, 0, 1, 0, 4, 4, 0, 1.0, 0.0, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {1, 1, 5000, 0, 0, 0, 0, 0, 0, 1.0, 1.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {300, 17, 777, 1, 1, 2, 2, 1, 1, 1.0, 0.0, FILL_WIDE, 1, 0, 0, 0, 0},
            };
            const char *sname = dt == TB_F64 ? "dsmall" : "small";
            const tb_kernel_info *sk = tb_kernel_by_name(sname);
            if (sk && tb_kernel_fits_here(sk) && tb_kernel_in_list(sname, klist)) {
                unsigned long long want = 0;
                const unsigned long long before = tb_run_split_count();
                for (size_t i = 0; i < sizeof sm / sizeof sm[0]; i++) {
                    want += tb_small_parts(dt, sm[i].m, sm[i].n, sm[i].k, sms) > 1;
                    run_as(sm[i], dt, sname);
                }
                const unsigned long long done = tb_run_split_count() - before;
                if (done != want || want == 0) {
                    printf("FAIL %s: %llu products split along K, %llu planned\n", sname, done,
                           want);
                    n_fail++;
                } else {
                    printf("ok   %s: %llu products split along K (%d SMs)\n", sname, done, sms);
                    n_pass++;
                }
            }
        }
        const char *runk = dt == TB_F64 ? "run-dmma" : "run-tf32x3";
        char both[32];
        snprintf(both, sizeof both, "run,%s", runk);
        /* The counts below need the kernel of run-tf32x3 / run-dmma. */
        const int counted = tb_kernel_fits_here(tb_kernel_by_name(dt == TB_F64 ? "dmma" : "tf32x3"));
        if (!counted && tb_kernel_in_list("run", klist))
            printf("skip run: %s: the aligned copies and split K are counted on %s, which does not "
                   "fit this GPU\n", d ? "fp64" : "fp32", runk);
        if (counted && maxs >= 700 && tb_kernel_in_list("run", klist)) {
            /* The default path must really copy unaligned operands (odd
             * strides, bases off by one element) for tf32x3 and dmma when
             * they are re-read enough, and still be right: every transpose,
             * beta 0 over NaN and beta != 0. (The wgmma kernel makes its own
             * K-major copies: no repack.) */
            const unsigned long long before = tb_run_repack_count();
            for (int tr = 0; tr < 4; tr++) {
                tcase r = {640, 700, 650, tr >> 1, tr & 1, 1, 3, 1, 1, tr ? 0.5 : 1.0,
                           tr & 1 ? 2.0 : 0.0, FILL_UNIFORM, 0, 0, dt, 0, 0};
                run_case(&r, both);
            }
            const unsigned long long done = tb_run_repack_count() - before;
            const char *tn = d ? "fp64" : "fp32";
            if (done < 8) {
                printf("FAIL run: %s: %llu of 8 unaligned operands were copied to aligned scratch\n",
                       tn, done);
                n_fail++;
            } else {
                printf("ok   run: %s: %llu unaligned operands copied to aligned scratch\n", tn, done);
                n_pass++;
            }
        }
        if (counted && dt == TB_F32 && maxs >= 1537 && tb_kernel_in_list("run", klist)) {
            /* Grids that fill tf32x3's tiles badly are split along K
             * (tb_kernel_plan): 1537^3 makes 169 tiles for 132 SMs. Counted on
             * run-tf32x3 (the default path, also checked, may take wgmma, which
             * never splits). Every transpose, unaligned
             * operands (copied first) and aligned ones, beta 0 over NaN and
             * beta != 0, alpha != 1; the results must be right, and all but
             * the fourth split (81 tiles, it runs 64-row tiles whole); the
             * last two are small outputs with a long K, cut into 26 and 32
             * parts. */
            tcase sp[] = {
                {1537, 1537, 1537, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {1537, 1411, 1029, 1, 0, 3, 1, 2, 1, -0.5, 1.5, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {1500, 1530, 2000, 0, 1, 4, 4, 0, 0, 2.0, 0.25, FILL_WIDE, 0, 0, 0, 0, 0},
                {1029, 1025, 1537, 1, 1, 1, 0, 0, 1, 1.0, 0.0, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {320, 250, 8200, 1, 0, 2, 0, 1, 0, 0.5, -1.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {128, 190, 20000, 0, 1, 0, 3, 0, 1, 1.0, 0.0, FILL_WIDE, 0, 0, 0, 0, 0},
            };
            for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
                run_case(&sp[i], "run");
            const unsigned long long before = tb_run_split_count();
            for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
                run_case(&sp[i], "run-tf32x3");
            const unsigned long long done = tb_run_split_count() - before;
            if (done != 5) {
                printf("FAIL run: %llu of the 5 badly filling grids were split along K\n", done);
                n_fail++;
            } else {
                printf("ok   run: %llu of 5 badly filling grids split along K\n", done);
                n_pass++;
            }
        }
        if (counted && dt == TB_F64 && maxs >= 1029 && tb_kernel_in_list("run", klist)) {
            /* The fp64 split plans (tb_split_parts) cut grids of 64-row
             * tiles too: on the H200, 1025x1000x2051 (136 blocks of 64 x 128
             * for 264 slots) in 3 parts, 1029x1025x1537 in 3, the small
             * outputs with a long K in up to 32. Every transpose, unaligned
             * operands and aligned ones, beta 0 over NaN and beta != 0,
             * inf/NaN planted; each product that the plan splits must be
             * split, and every result right. */
            tcase sp[] = {
                {1025, 1000, 2051, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, TB_F64, 0, 0},
                {640, 700, 3000, 1, 0, 3, 1, 2, 1, -0.5, 1.5, FILL_UNIFORM, 0, 0, TB_F64, 0, 0},
                {1029, 1025, 1537, 1, 1, 1, 0, 0, 1, 1.0, 0.0, FILL_UNIFORM, 1, 0, TB_F64, 0, 0},
                {320, 250, 8200, 1, 0, 2, 0, 1, 0, 0.5, -1.0, FILL_WIDE, 0, 0, TB_F64, 0, 0},
                {128, 190, 20000, 0, 1, 0, 3, 0, 1, 1.0, 0.0, FILL_UNIFORM, 0, 0, TB_F64, 0, 0},
                {1025, 1025, 8192, 0, 0, 0, 0, 0, 0, 2.0, 0.5, FILL_UNIFORM, 0, 0, TB_F64, 0, 0},
            };
            const int ncase = (int)(sizeof sp / sizeof sp[0]) - (quick ? 1 : 0);
            unsigned long long want = 0;
            for (int i = 0; i < ncase; i++)
                want += tb_split_parts(TB_F64, sp[i].m, sp[i].n, sp[i].k, sms) > 1;
            for (int i = 0; i < ncase; i++)
                run_case(&sp[i], "run");
            const unsigned long long before = tb_run_split_count();
            for (int i = 0; i < ncase; i++)
                run_case(&sp[i], "run-dmma");
            const unsigned long long done = tb_run_split_count() - before;
            if (done != want) {
                printf("FAIL run: fp64: %llu products split, %llu planned in parts\n",
                       done, want);
                n_fail++;
            } else {
                printf("ok   run: fp64: %llu products split along K (%llu planned, %d SMs)\n", done,
                       want, sms);
                n_pass++;
            }
        }
        if (dt == TB_F32 && !quick && maxs >= 1537) {
            /* Grids of at least a quarter of a wave of 128 x 128 tiles, where the
             * persistent wgmma kernel takes products (its supports()): edge
             * tiles in m, n and K, every transpose, strides padded and bases
             * off by one float, alpha/beta, beta 0 over NaN, inf/NaN planted,
             * wide range, and more tiles than blocks (each block walks several
             * tiles, its pipeline running on across them). */
            tcase w[] = {
                {1537, 1411, 1029, 1, 0, 3, 1, 2, 1, -0.5, 1.5, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {1500, 1530, 2000, 0, 1, 4, 4, 0, 0, 2.0, 0.25, FILL_WIDE, 0, 0, 0, 0, 0},
                {1029, 1125, 777, 1, 1, 1, 0, 0, 1, 1.0, 0.0, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {1100, 1300, 33, 0, 0, 1, 2, 3, 1, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {1537, 1025, 1, 0, 1, 0, 0, 0, 0, 1.0, -1.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                /* Under a wave of tiles (36, 45 and 33), long K. */
                {700, 768, 5003, 1, 0, 1, 2, 3, 1, -1.0, 0.5, FILL_UNIFORM, 1, 0, 0, 0, 0},
                {640, 1100, 3001, 0, 1, 0, 0, 0, 0, 1.0, 0.0, FILL_WIDE, 0, 0, 0, 0, 0},
                {384, 1401, 4001, 0, 1, 1, 1, 1, 1, 1.5, 1.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                /* C's rows 16-byte aligned (ldc 1536, 1540) and n not a
                 * multiple of 4: wgmma's staged stores in float4 with 3 and
                 * 1 column left over, beta != 0 read in float4. */
                {1501, 1535, 700, 0, 0, 0, 0, 1, 0, -1.0, 0.5, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {1411, 1537, 600, 1, 1, 2, 0, 3, 0, 1.0, 1.0, FILL_WIDE, 1, 0, 0, 0, 0},
            };
            for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
                run_case(&w[i], klist);
        }
        if (d && maxs >= 1000)
            run_ozaki(klist, quick);
        if (d && maxs >= 1000) {
            /* Only a triangle of C wanted (syrk's diagonal blocks): the
             * wanted elements right whatever the kernel; dmma leaves the
             * tiles past it alone. */
            tcase tr[] = {
                {1000, 1000, 300, 0, 1, 0, 0, 3, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0, TB_TRI_LOWER},
                {777, 777, 129, 1, 0, 1, 2, 0, 1, -0.5, 0.75, FILL_WIDE, 0, 0, 0, 0, 0, TB_TRI_UPPER},
                {600, 600, 64, 0, 0, 0, 0, 0, 0, 1.0, 1.0, FILL_UNIFORM, 0, 0, 0, 0, 0, TB_TRI_LOWER},
                {1025, 1025, 2000, 1, 1, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0, TB_TRI_UPPER},
                /* K in parts (run, run-dmma): the parts and their sum skip alike */
                {1100, 1100, 6000, 0, 1, 0, 0, 0, 0, 1.0, 0.5, FILL_UNIFORM, 0, 0, 0, 0, 0, TB_TRI_LOWER},
            };
            for (size_t i = 0; i < sizeof tr / sizeof tr[0]; i++)
                run_as(tr[i], dt, klist);
        }
        if (!quick && maxs >= 2049) {
            /* One big product per layout family for the fast kernels' steady
             * state: full tiles, many K slices, the pipeline wrapping around. */
            tcase b[] = {
                {2047, 2047, 2047, 0, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {2049, 1531, 1029, 1, 1, 1, 3, 5, 1, 1.0, 1.0, FILL_UNIFORM, 0, 0, 0, 0, 0},
                {1536, 2048, 2048, 1, 0, 0, 0, 0, 0, 1.0, 0.0, FILL_WIDE, 0, 0, 0, 0, 0},
            };
            for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
                run_as(b[i], dt, klist);
        }
    }
    if (types & 4)
        run_complex(TB_C32, klist, quick, mins, maxs);
    if (types & 8)
        run_complex(TB_C64, klist, quick, mins, maxs);
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
