/* bench/bench_kernels.c - TFLOP/s of every registered kernel beside cuBLAS
 * in the same run, and each one's errors against a long-double reference:
 * fp32 (--dtype float, the default) beside cuBLAS SGEMM (fp32, and TF32
 * tensor-core math as "cublas-tf32"), fp64 (--dtype double) beside cuBLAS
 * DGEMM, complex float (--dtype complex) beside cuBLAS CGEMM, complex
 * double (--dtype zcomplex) beside cuBLAS ZGEMM (complex: TFLOP/s of 8mnk
 * real flops; --alpha RE,IM sets alpha, 1 by default). cuBLAS is dlopen()ed at run time, never linked; without it
 * the table still prints. Device arrays only: this times kernels, not
 * transfers.
 *
 * Usage: bench_kernels [--dtype float|double|complex|zcomplex] [--quick] [--raw]
 *                      [--no-wide] [--sizes LIST] [--wide-sizes LIST]
 *                      [--range-sizes LIST] [--scale EA,EB] [--alpha RE,IM]
 *                      [--kernels LIST] [--reps N] [--wide-exp E]
 *   --sizes '' leaves the timed table out (the error tables alone).
 *   LIST of sizes: comma-separated N, MxNxK, optionally :OO with each O one
 *   of n, t, c (c: the conjugate transpose; t for the real types), e.g. :tn
 *   LIST of kernels: registry names and/or "cublas", "cublas-tf32".
 *   Our kernels run as tiledblas_sgemm_device() runs them (tb_gemm_run:
 *   unaligned operands copied to aligned scratch and K split when that
 *   pays, the copy timed); --raw times the launchers alone.
 * Method: fresh random inputs per shape (uniform in [-1,1), never zeros; 24
 * random bits per float, 53 per double), C poisoned with NaN before the
 * first launch, 2 warm-up launches, then the median of >= 5 launches (more
 * for short ones) each timed by CUDA events; --scale EA,EB multiplies A
 * by 2^EA and B by 2^EB (the speed of range cases).
 * Error: long-double reference on the host (OpenMP) for 64 evenly spaced
 * rows of C (all columns): rel_err = ||C - ref||_F / ||ref||_F over those
 * rows, and max_err = max |c - ref| / sum_p |a_ip||b_pj| (the elementwise
 * measure a BLAS error bound speaks of; complex: moduli, and with alpha,
 * against alpha ref and over |alpha| sum_p |a_ip||b_pj|). A second table repeats the error
 * check on wide-dynamic-range data: randn x 2^u, u uniform in [-12, 12]
 * (--wide-exp E: [-E, E]), on 2048^3 and 4096^3 TT or on the shapes of
 * --wide-sizes; and (fp32)
 * tables for the ends of the range (1e-30 x 1e30, subnormal operands,
 * values up to FLT_MAX, products and results near the bottom of the
 * normal range) on the shapes of --range-sizes. --no-wide: neither. */
#include "tb_kernels.h"
#include "tb_no_gpu.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "bench_kernels: %s: %s (line %d)\n", #call,                   \
                    cudaGetErrorString(e_), __LINE__);                                    \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* ---- cuBLAS through dlopen ------------------------------------------------ */
typedef int (*cublasCreate_t)(void **);
typedef int (*cublasSetStream_t)(void *, cudaStream_t);
typedef int (*cublasSgemm_t)(void *, int, int, int, int, int, const float *, const float *, int,
                             const float *, int, const float *, float *, int);
typedef int (*cublasDgemm_t)(void *, int, int, int, int, int, const double *, const double *, int,
                             const double *, int, const double *, double *, int);
/* cublasCgemm_v2 / cublasZgemm_v2: alpha, beta and the elements are
 * cuComplex / cuDoubleComplex, the same two-number layout as TB_C32 and
 * TB_C64. */
typedef int (*cublasXgemm_t)(void *, int, int, int, int, int, const void *, const void *, int,
                             const void *, int, const void *, void *, int);
typedef int (*cublasSetMathMode_t)(void *, int);
static void *cublas_handle, *cublas_tf32_handle;
static cublasSgemm_t p_sgemm;
static cublasDgemm_t p_dgemm;
static cublasXgemm_t p_cgemm, p_zgemm;

static void cublas_load(void)
{
    void *lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("cuBLAS not found (%s): kernels only\n", dlerror());
        return;
    }
    cublasCreate_t create = (cublasCreate_t)dlsym(lib, "cublasCreate_v2");
    cublasSetStream_t setstream = (cublasSetStream_t)dlsym(lib, "cublasSetStream_v2");
    p_sgemm = (cublasSgemm_t)dlsym(lib, "cublasSgemm_v2");
    p_dgemm = (cublasDgemm_t)dlsym(lib, "cublasDgemm_v2");
    p_cgemm = (cublasXgemm_t)dlsym(lib, "cublasCgemm_v2");
    p_zgemm = (cublasXgemm_t)dlsym(lib, "cublasZgemm_v2");
    if (!create || !p_sgemm || create(&cublas_handle) != 0) {
        printf("cuBLAS not found (symbols or cublasCreate failed): kernels only\n");
        p_sgemm = NULL;
        p_dgemm = NULL;
        p_cgemm = p_zgemm = NULL;
        return;
    }
    if (setstream)
        setstream(cublas_handle, 0);
    /* A second handle in CUBLAS_TF32_TENSOR_OP_MATH (3): the tensor-core
     * speed an fp32 caller would get by accepting TF32 rounding. */
    cublasSetMathMode_t setmath = (cublasSetMathMode_t)dlsym(lib, "cublasSetMathMode");
    if (setmath && create(&cublas_tf32_handle) == 0) {
        if (setstream)
            setstream(cublas_tf32_handle, 0);
        if (setmath(cublas_tf32_handle, 3) != 0)
            cublas_tf32_handle = NULL;
    }
}

/* The cuBLAS GEMM of element type t (NULL: not loaded). */
static void *cublas_fn(tb_dtype t)
{
    return t == TB_F64 ? (void *)p_dgemm : t == TB_C32 ? (void *)p_cgemm
                       : t == TB_C64 ? (void *)p_zgemm : (void *)p_sgemm;
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: hand
 * cuBLAS B first, then A, with m and n swapped; each op keeps its code
 * (N 0, T 1, C 2: the column-major view of a stored X is X^T, and
 * (X^H)^T = conj(X) is op C of it). Default math mode: fp32, or fp64
 * (DGEMM, ZGEMM, whose only math is fp64); CGEMM fp32. */
static cudaError_t cublas_on(void *h, const tb_gemm *g)
{
    int st;
    if (g->dtype == TB_C32) {
        const float alpha[2] = {(float)g->alpha.re, (float)g->alpha.im};
        const float beta[2] = {(float)g->beta.re, (float)g->beta.im};
        st = p_cgemm(h, g->transb, g->transa, g->n, g->m, g->k, alpha, g->B, (int)g->ldb, g->A,
                     (int)g->lda, beta, g->C, (int)g->ldc);
    } else if (g->dtype == TB_C64) {
        const double alpha[2] = {g->alpha.re, g->alpha.im}, beta[2] = {g->beta.re, g->beta.im};
        st = p_zgemm(h, g->transb, g->transa, g->n, g->m, g->k, alpha, g->B, (int)g->ldb, g->A,
                     (int)g->lda, beta, g->C, (int)g->ldc);
    } else if (g->dtype == TB_F64) {
        st = p_dgemm(h, g->transb ? 1 : 0, g->transa ? 1 : 0, g->n, g->m, g->k, &g->alpha.re, g->B,
                     (int)g->ldb, g->A, (int)g->lda, &g->beta.re, g->C, (int)g->ldc);
    } else {
        const float alpha = (float)g->alpha.re, beta = (float)g->beta.re;
        st = p_sgemm(h, g->transb ? 1 : 0, g->transa ? 1 : 0, g->n, g->m, g->k, &alpha, g->B,
                     (int)g->ldb, g->A, (int)g->lda, &beta, g->C, (int)g->ldc);
    }
    return st == 0 ? cudaGetLastError() : cudaErrorUnknown;
}

typedef cudaError_t (*bench_fn)(const tb_gemm *g, cudaStream_t s);

static cudaError_t cublas_launch(const tb_gemm *g, cudaStream_t s)
{
    (void)s;
    return cublas_on(cublas_handle, g);
}

static cudaError_t cublas_tf32_launch(const tb_gemm *g, cudaStream_t s)
{
    (void)s;
    return cublas_on(cublas_tf32_handle, g);
}

/* Our kernels are timed the way tiledblas_sgemm_device() runs them
 * (tb_gemm_run: aligned copies of unaligned operands and split K
 * included), or with --raw the launcher alone. */
static const tb_kernel_info *bench_kern;
static int bench_raw;
static cudaError_t kernel_launch(const tb_gemm *g, cudaStream_t s)
{
    return tb_gemm_run(g, bench_kern, bench_raw, s);
}

/* ---- inputs and reference ------------------------------------------------- */
static double elem(tb_dtype t, const void *p, size_t i)
{
    return t == TB_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Uniform (wide = 0) or wide-range values (randn x 2^u, u uniform in
 * [-wide_exp, wide_exp]), times 2^e2 (a float past FLT_MAX is FLT_MAX). */
static int wide_exp = 12;
static void fill_random(tb_dtype t, void *x, size_t n, uint64_t seed, int wide, int e2)
{
#pragma omp parallel
    {
        int th = 0, nt = 1;
#ifdef _OPENMP
        th = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        size_t lo = n * th / nt, hi = n * (th + 1) / nt;
        uint64_t s = seed * 0x9E3779B97F4A7C15ULL + (uint64_t)th * 0xD1B54A32D192ED03ULL + 1;
        for (size_t i = lo; i < hi; i++) {
            const uint64_t r = xorshift(&s);
            double v = t == TB_F64 ? (double)((int64_t)r >> 11) / 4503599627370496.0
                                   : (float)((int32_t)(r >> 32) >> 8) / 8388608.0f;
            if (v == 0.0)
                v = 0.5;
            if (wide) {
                /* randn (Box-Muller on two more draws) x 2^u, u in [-E, E] */
                const double u1 = ((xorshift(&s) >> 11) + 1.0) / 9007199254740993.0;
                const double u2 = (xorshift(&s) >> 11) / 9007199254740992.0;
                v = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
                if (t == TB_F32)
                    v = (float)v;
                v = ldexp(v == 0.0 ? 0.5 : v,
                          (int)((s >> 3) % (uint64_t)(2 * wide_exp + 1)) - wide_exp);
            }
            v = ldexp(v, e2);
            if (t == TB_F32 && fabs(v) > 3.4028234663852886e38)
                v = copysign(3.4028234663852886e38, v);
            if (t == TB_F64)
                ((double *)x)[i] = v;
            else
                ((float *)x)[i] = (float)v;
        }
    }
}

#define NSAMPLE 64

/* Complex: rows rows[0..nr) of op(A) op(B) into ref (nr x n pairs, re and
 * im, long double), and of |op(A)| |op(B)| (moduli) into mag; op 2 reads
 * the conjugate. */
static void reference_rows_cx(const tb_gemm *g, const void *A, const void *B, const int *rows,
                              int nr, long double *ref, double *mag)
{
    const int n = g->n, k = g->k;
    const tb_dtype t = tb_dtype_real(g->dtype);
    const long double sa = g->transa == 2 ? -1.0L : 1.0L, sb = g->transb == 2 ? -1.0L : 1.0L;
#pragma omp parallel for schedule(dynamic, 1)
    for (int r = 0; r < nr; r++) {
        const int i = rows[r];
        long double *a = malloc(2 * sizeof(long double) * (size_t)k), *c = ref + 2 * (size_t)r * n;
        double *mg = mag + (size_t)r * n;
        for (int p = 0; p < k; p++) {
            const size_t q = g->transa ? (size_t)p * g->lda + i : (size_t)i * g->lda + p;
            a[2 * p] = elem(t, A, 2 * q);
            a[2 * p + 1] = sa * elem(t, A, 2 * q + 1);
        }
        for (int j = 0; j < n; j++) {
            long double sr = 0, si = 0;
            double sm = 0;
            for (int p = 0; p < k; p++) {
                const size_t q = g->transb ? (size_t)j * g->ldb + p : (size_t)p * g->ldb + j;
                const long double br = elem(t, B, 2 * q), bi = sb * elem(t, B, 2 * q + 1);
                sr += a[2 * p] * br - a[2 * p + 1] * bi;
                si += a[2 * p] * bi + a[2 * p + 1] * br;
                sm += hypot((double)a[2 * p], (double)a[2 * p + 1]) * hypot((double)br, (double)bi);
            }
            c[2 * j] = sr;
            c[2 * j + 1] = si;
            mg[j] = sm;
        }
        free(a);
    }
}

/* Rows rows[0..nr) of op(A) op(B) into ref (nr x n, long double), and of
 * |op(A)| |op(B)| into mag. */
static void reference_rows(const tb_gemm *g, const void *A, const void *B, const int *rows, int nr,
                           long double *ref, double *mag)
{
    const int n = g->n, k = g->k;
    const tb_dtype t = g->dtype;
    if (tb_dtype_real(t) != t) {
        reference_rows_cx(g, A, B, rows, nr, ref, mag);
        return;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int r = 0; r < nr; r++) {
        const int i = rows[r];
        long double *a = malloc(sizeof(long double) * (size_t)k), *c = ref + (size_t)r * n;
        double *mg = mag + (size_t)r * n;
        for (int p = 0; p < k; p++)
            a[p] = elem(t, A, g->transa ? (size_t)p * g->lda + i : (size_t)i * g->lda + p);
        if (!g->transb) { /* B is k x n: stream its rows */
            for (int j = 0; j < n; j++)
                c[j] = mg[j] = 0.0;
            for (int p = 0; p < k; p++) {
                const size_t b = (size_t)p * g->ldb;
                const double aa = fabs((double)a[p]);
                for (int j = 0; j < n; j++) {
                    const double bj = elem(t, B, b + j);
                    c[j] += a[p] * bj;
                    mg[j] += aa * fabs(bj);
                }
            }
        } else {          /* B is n x k: dot products along its rows */
            for (int j = 0; j < n; j++) {
                const size_t b = (size_t)j * g->ldb;
                long double s = 0.0;
                double sm = 0.0;
                for (int p = 0; p < k; p++) {
                    const double bp = elem(t, B, b + p);
                    s += a[p] * bp;
                    sm += fabs((double)a[p] * bp);
                }
                c[j] = s;
                mg[j] = sm;
            }
        }
        free(a);
    }
}

/* Relative Frobenius error over the sampled rows, against alpha ref; *maxe
 * the largest |c - alpha ref| / (|alpha| sum |a||b|) (complex: moduli; NaN
 * in C makes both NaN). */
static double rel_error(const tb_gemm *g, const int *rows, int nr, const long double *ref,
                        const double *mag, void *hrow, double *maxe)
{
    const size_t es = tb_dtype_size(g->dtype);
    const tb_dtype rt = tb_dtype_real(g->dtype);
    const int parts = rt == g->dtype ? 1 : 2;
    const long double ar = g->alpha.re, ai = g->alpha.im;
    const double am = hypot(g->alpha.re, g->alpha.im);
    long double num = 0, den = 0;
    double mx = 0;
    for (int r = 0; r < nr; r++) {
        CK(cudaMemcpy(hrow, (char *)g->C + es * (size_t)rows[r] * g->ldc, es * g->n,
                      cudaMemcpyDeviceToHost));
        for (int j = 0; j < g->n; j++) {
            const size_t q = (size_t)r * g->n + j;
            /* want = alpha ref (a real alpha scales each part alone) */
            const long double rr = ref[parts * q], ri = parts == 2 ? ref[2 * q + 1] : 0.0L;
            const long double wr = ai == 0 ? ar * rr : ar * rr - ai * ri;
            const long double wi = ai == 0 ? ar * ri : ar * ri + ai * rr;
            const long double dr = elem(rt, hrow, (size_t)parts * j) - wr;
            const long double di = parts == 2 ? elem(rt, hrow, 2 * (size_t)j + 1) - wi : 0.0L;
            const long double d2 = dr * dr + di * di;
            num += d2;
            den += wr * wr + wi * wi;
            const double mg = am * mag[q];
            const double d = (double)sqrtl(d2);
            const double e = mg > 0 ? d / mg : d;
            if (e > mx || e != e)
                mx = e;
        }
    }
    *maxe = mx;
    return (double)sqrtl(num / den); /* NaN if any sampled element was never written */
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Median milliseconds of `reps` launches (at least 5); -1 on launch error. */
static float time_launch(bench_fn fn, const tb_gemm *g, int reps)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int w = 0; w < 2; w++)
        if (fn(g, 0) != cudaSuccess)
            return -1.0f;
    CK(cudaDeviceSynchronize());
    float t[64];
    if (reps > 64)
        reps = 64;
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(e0, 0));
        if (fn(g, 0) != cudaSuccess)
            return -1.0f;
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&t[r], e0, e1));
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    qsort(t, (size_t)reps, sizeof t[0], cmp_float);
    return t[reps / 2];
}

typedef struct {
    int m, n, k, ta, tb;
} shape;

/* The inputs of a table: uniform or wide range, A scaled by 2^ea, B by 2^eb. */
typedef struct {
    int wide, ea, eb;
} inputs;

static int parse_shape(const char *s, shape *sh)
{
    memset(sh, 0, sizeof *sh);
    int a, b, c, used = 0;
    if (sscanf(s, "%dx%dx%d%n", &a, &b, &c, &used) == 3) {
        sh->m = a; sh->n = b; sh->k = c;
    } else if (sscanf(s, "%d%n", &a, &used) == 1) {
        sh->m = sh->n = sh->k = a;
    } else
        return -1;
    const char *t = s + used;
    if (*t == ':') {
        t++;
        if (strlen(t) != 2)
            return -1;
        for (int i = 0; i < 2; i++) {
            const char c = t[i] | 0x20;   /* n, t, or c: the conjugate transpose */
            const int op = c == 'n' ? 0 : c == 't' ? 1 : c == 'c' ? 2 : -1;
            if (op < 0)
                return -1;
            *(i ? &sh->tb : &sh->ta) = op;
        }
    }
    return 0;
}

/* Run every selected kernel of type dt (and cuBLAS) on one shape. timed = 0:
 * error only. */
static tb_scalar bench_alpha = {1.0, 0.0};   /* --alpha RE,IM */

/* --dtype's names: the tb_dtype, or -1. */
static int dtype_of(const char *s)
{
    return !strcmp(s, "float")      ? TB_F32
           : !strcmp(s, "double")   ? TB_F64
           : !strcmp(s, "complex")  ? TB_C32
           : !strcmp(s, "zcomplex") ? TB_C64
                                    : -1;
}

static void bench_shape(tb_dtype dt, const shape *sh, const char *klist, int reps_min, int timed,
                        const inputs *in, uint64_t seed)
{
    const int m = sh->m, n = sh->n, k = sh->k;
    const size_t es = tb_dtype_size(dt);
    const tb_dtype rt = tb_dtype_real(dt);
    const int parts = rt == dt ? 1 : 2;   /* reals per element */
    const size_t lda = sh->ta ? m : k, ldb = sh->tb ? k : n, ldc = n;
    const size_t a_n = (size_t)m * k, b_n = (size_t)k * n, c_n = (size_t)m * n;
    void *hA = malloc(es * a_n), *hB = malloc(es * b_n);
    fill_random(rt, hA, parts * a_n, seed, in->wide, in->ea);
    fill_random(rt, hB, parts * b_n, seed + 7777, in->wide, in->eb);
    void *dA, *dB, *dC;
    CK(cudaMalloc(&dA, es * a_n));
    CK(cudaMalloc(&dB, es * b_n));
    CK(cudaMalloc(&dC, es * c_n));
    CK(cudaMemcpy(dA, hA, es * a_n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB, es * b_n, cudaMemcpyHostToDevice));

    const int nr = m < NSAMPLE ? m : NSAMPLE;
    int rows[NSAMPLE];
    for (int r = 0; r < nr; r++)
        rows[r] = (int)((long long)r * (m - 1) / (nr > 1 ? nr - 1 : 1));
    const tb_gemm g = {dt, m, n, k, sh->ta, sh->tb, bench_alpha, {0.0, 0.0}, dA, lda, dB, ldb,
                       dC, ldc};
    long double *ref = malloc(parts * sizeof(long double) * (size_t)nr * n);
    double *mag = malloc(sizeof(double) * (size_t)nr * n);
    void *hrow = malloc(es * n);
    reference_rows(&g, hA, hB, rows, nr, ref, mag);

    /* Real flops: 8mnk for a complex product (four real multiply-adds per
     * complex one), as cuBLAS and the literature count them. */
    const double flops = (parts == 2 ? 8.0 : 2.0) * m * n * (double)k;
    char label[64];
    static const char opc[] = "NTC";
    char ops[4] = "";
    if (sh->ta || sh->tb)
        snprintf(ops, sizeof ops, " %c%c", opc[sh->ta], opc[sh->tb]);
    snprintf(label, sizeof label, "%dx%dx%d%s", m, n, k, ops);
    const tb_kernel_info *def = tb_kernel_pick(&g, 1);

    int nk;
    const tb_kernel_info *ks = tb_kernel_list(&nk);
    float cublas_ms = -1;
    for (int ki = -2; ki < nk; ki++) {
        const char *name = ki == -2 ? "cublas" : ki == -1 ? "cublas-tf32" : ks[ki].name;
        bench_fn fn = ki == -2 ? cublas_launch : ki == -1 ? cublas_tf32_launch : kernel_launch;
        if ((ki == -2 && !cublas_fn(dt)) || (ki == -1 && (!cublas_tf32_handle || dt != TB_F32)))
            continue;
        if (!tb_kernel_in_list(name, klist))
            continue;
        if (ki >= 0 && (ks[ki].dtype != dt || !tb_kernel_accepts(&ks[ki], &g)))
            continue;
        /* The seed kernel at 16384 would take ~7 s of the run; ask by name. */
        if (ki >= 0 && ks[ki].rank <= 0 && strcmp(name, "tf32-fast") != 0 && flops > 1.2e12 &&
            !klist)
            continue;
        if (ki >= 0)
            bench_kern = &ks[ki];
        CK(cudaMemset(dC, 0xff, es * c_n)); /* NaN poison */
        float ms = 0;
        if (timed) {
            int reps = reps_min;
            ms = time_launch(fn, &g, reps);
            if (ms >= 0 && ms < 2.0f) /* short: more launches for a stable median */
                ms = time_launch(fn, &g, 31);
            if (ms < 0) {
                printf("%-22s %-13s launch failed: %s\n", label, name,
                       cudaGetErrorString(cudaGetLastError()));
                continue;
            }
        } else if (fn(&g, 0) != cudaSuccess) {
            printf("%-22s %-13s launch failed\n", label, name);
            continue;
        }
        CK(cudaDeviceSynchronize());
        double maxe;
        const double err = rel_error(&g, rows, nr, ref, mag, hrow, &maxe);
        if (ki == -2)
            cublas_ms = ms;
        if (timed) {
            const double tf = flops / (ms * 1e-3) / 1e12;
            char ratio[16] = "   -";
            if (cublas_ms > 0)
                snprintf(ratio, sizeof ratio, "%5.1f%%", 100.0 * cublas_ms / ms);
            printf("%-22s %-13s %9.3f %8.2f %8s %10.2e %10.2e%s\n", label, name, ms, tf, ratio,
                   err, maxe, (ki >= 0 && def == &ks[ki]) ? "  <- default" : "");
        } else {
            printf("%-22s %-13s %10.2e %10.2e%s\n", label, name, err, maxe,
                   (ki >= 0 && def == &ks[ki]) ? "  <- default" : "");
        }
        fflush(stdout);
    }
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    free(hA); free(hB); free(ref); free(mag); free(hrow);
}

/* bench_shape over a comma-separated LIST of shapes, seeds from seed on.
 * Returns -1 on a shape it cannot parse. */
static int bench_list(tb_dtype dt, const char *sizes, const char *klist, int reps, int timed,
                      const inputs *in, uint64_t seed)
{
    char *list = strdup(sizes);
    int rc = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        shape sh;
        if (parse_shape(tok, &sh) != 0 || sh.m <= 0 || sh.n <= 0 || sh.k <= 0) {
            fprintf(stderr, "bench_kernels: bad size '%s'\n", tok);
            rc = -1;
            break;
        }
        bench_shape(dt, &sh, klist, reps, timed, in, seed++);
    }
    free(list);
    return rc;
}

int main(int argc, char **argv)
{
    const char *sizes = NULL, *wide_sizes = NULL, *range_sizes = NULL;
    const char *klist = NULL;
    int reps = 5, quick = 0, wide = 1;
    inputs uniform = {0, 0, 0};   /* the timed table's: --scale EA,EB */
    tb_dtype dt = TB_F32;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--wide-sizes") && i + 1 < argc)
            wide_sizes = argv[++i];
        else if (!strcmp(argv[i], "--range-sizes") && i + 1 < argc)
            range_sizes = argv[++i];
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc &&
                 sscanf(argv[i + 1], "%d,%d", &uniform.ea, &uniform.eb) == 2)
            i++;
        else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
            klist = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--wide-exp") && i + 1 < argc && atoi(argv[i + 1]) >= 0 &&
                 atoi(argv[i + 1]) <= 300)
            wide_exp = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--raw"))
            bench_raw = 1;
        else if (!strcmp(argv[i], "--no-wide"))
            wide = 0;
        else if (!strcmp(argv[i], "--dtype") && i + 1 < argc && dtype_of(argv[i + 1]) >= 0)
            dt = (tb_dtype)dtype_of(argv[++i]);
        else if (!strcmp(argv[i], "--alpha") && i + 1 < argc &&
                 sscanf(argv[i + 1], "%lf,%lf", &bench_alpha.re, &bench_alpha.im) == 2)
            i++;
        else {
            fprintf(stderr, "usage: bench_kernels [--dtype float|double|complex|zcomplex] "
                            "[--quick] [--raw] [--no-wide] [--sizes LIST] [--wide-sizes LIST] "
                            "[--range-sizes LIST] [--scale EA,EB] [--alpha RE,IM] "
                            "[--kernels LIST] [--reps N] [--wide-exp E]\n");
            return 2;
        }
    }
    if (tb_dtype_real(dt) == dt && bench_alpha.im != 0.0) {
        fprintf(stderr, "bench_kernels: --alpha with an imaginary part needs a complex --dtype\n");
        return 2;
    }
    /* The shapes of docs/kernels.md's tables, and a short list (--quick). */
    if (!sizes && tb_dtype_real(dt) != dt)
        sizes = quick ? "1024,4096,4097"
                      : "1024,2048,4096,8192,4097,1000,1234x5678x910,8192x8192x256,"
                        "256x8192x8192,4096:nt,4096:nc,4096:tn,4096:cn,4096:cc";
    else if (!sizes && dt == TB_F64)
        sizes = quick ? "1024,4096,4097"
                      : "1024,2048,4096,8192,4097,8191,1234x5678x910,1025x1025x8192,"
                        "768x768x16384,4096:tn,4096:nt,4096:tt";
    else if (!sizes)
        sizes = quick ? "1024,4096,4097"
                      : "1024,2048,4096,8192,16384,1000,4097,8191,8192x8192x256,256x8192x8192,"
                        "4096:tn,4096:nt,4096:tt";
    if (reps < 5)
        reps = 5;
    int ndev = 0;
    cudaError_t de = cudaGetDeviceCount(&ndev);
    if (de != cudaSuccess || ndev == 0) {
        printf("SKIP: no GPU (%s)\n", tb_no_gpu_text(de, ndev));
        return 77;
    }
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    static const char *const what[TB_DTYPES] = {
        [TB_F32] = "fp32 (beside cuBLAS SGEMM)", [TB_F64] = "fp64 (beside cuBLAS DGEMM)",
        [TB_C32] = "complex float (beside cuBLAS CGEMM; TFLOP/s of 8mnk real flops)",
        [TB_C64] = "complex double (beside cuBLAS ZGEMM; TFLOP/s of 8mnk real flops)"};
    printf("device: %s, %d SMs, cc %d.%d; %s\n", prop.name, prop.multiProcessorCount, prop.major,
           prop.minor, what[dt]);
    cublas_load();
    printf("%s\n", bench_raw ? "kernels timed alone (--raw): unaligned operands read in place"
                             : "kernels timed as tiledblas_sgemm_device() runs them: aligned "
                               "copies of unaligned operands and split K included");
    if (bench_alpha.re != 1.0 || bench_alpha.im != 0.0)
        printf("alpha %g%+gi, beta 0; errors against alpha times the reference\n", bench_alpha.re,
               bench_alpha.im);

    if (*sizes) {
        printf("\n%-22s %-13s %9s %8s %8s %10s %10s\n", "shape (MxNxK op)", "kernel", "ms",
               "TFLOP/s", "%cuBLAS", "rel_err", "max_err");
        if (uniform.ea || uniform.eb)
            printf("inputs: A x 2^%d, B x 2^%d\n", uniform.ea, uniform.eb);
        if (bench_list(dt, sizes, klist, reps, 1, &uniform, 1) != 0)
            return 2;
    }
    if (!wide)
        return 0;
    /* Accuracy on wide-dynamic-range data: the case that stresses the
     * 3xTF32 split (the small part must not underflow or lose its scale). */
    printf("\nwide dynamic range (randn x 2^[-%d,%d]), error only\n%-22s %-13s %10s %10s\n",
           wide_exp, wide_exp, "shape", "kernel", "rel_err", "max_err");
    if (!wide_sizes)
        wide_sizes = quick ? "2048,1024x4096x4096:tt" : "2048,4096:tt";
    const inputs wide_in = {1, 0, 0};
    if (bench_list(dt, wide_sizes, klist, reps, 0, &wide_in, 99) != 0)
        return 2;
    /* The ends of the range: uniform inputs scaled so that the results stay
     * normal fp32 numbers, except in the last case, where they are
     * subnormal (about 2^-135) and every method keeps fewer bits. */
    static const struct {
        const char *what;
        inputs in;
    } ends[] = {
        {"A x 2^-100, B x 2^100 (1e-30 x 1e30)", {0, -100, 100}},
        {"A x 2^100, B x 2^-100 (1e30 x 1e-30)", {0, 100, -100}},
        {"A subnormal (x 2^-133), B x 2^125", {0, -133, 125}},
        {"A x 2^125, B subnormal (x 2^-133)", {0, 125, -133}},
        {"A, B x 2^-62 (products near 2^-126)", {0, -62, -62}},
        {"A, B x 2^60", {0, 60, 60}},
        {"A up to FLT_MAX (x 2^128), B x 2^-40", {0, 128, -40}},
        {"A, B x 2^-67 (subnormal results)", {0, -67, -67}},
    };
    if (!range_sizes)
        range_sizes = quick ? "1024" : "2048,1000x1000x1000:tn,256x384x4096";
    for (size_t i = 0; dt == TB_F32 && i < sizeof ends / sizeof ends[0]; i++) {
        printf("\n%s, error only\n%-22s %-13s %10s %10s\n", ends[i].what, "shape", "kernel",
               "rel_err", "max_err");
        if (bench_list(dt, range_sizes, klist, reps, 0, &ends[i].in, 200 + 10 * i) != 0)
            return 2;
    }
    return 0;
}
