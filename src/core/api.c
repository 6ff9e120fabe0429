/* src/core/api.c - every public tiledblas_* function of include/tiledblas.h, in
 * one place: the GEMM on device pointers (the kernel alone, no copies, no
 * lock), the kernels built in, memory, calibration on request, the info
 * text and the GPU's description. Each is a thin door onto the internals
 * that do the work. */
#include "tb_internal.h"
#include "tb_kernels.h"
#include "tiledblas.h"
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define TB_EXPORT __attribute__((visibility("default")))

static __thread const char *tb_api_error = "no error";

TB_EXPORT const char *tiledblas_version(void) { return TILEDBLAS_VERSION; }

TB_EXPORT const char *tiledblas_last_error(void) { return tb_api_error; }

/* 'N' 0, 'T' 1, 'C' 2 (the conjugate transpose; the transpose for the
 * real types, as BLAS reads it). */
static tb_scalar tb_real(double x) { return (tb_scalar){x, 0.0}; }

static int tb_trans_arg(char t, tb_dtype dtype, int *out)
{
    if (t == 'N' || t == 'n') { *out = 0; return 1; }
    if (t == 'T' || t == 't') { *out = 1; return 1; }
    if (t == 'C' || t == 'c') { *out = tb_dtype_real(dtype) == dtype ? 1 : 2; return 1; }
    return 0;
}

/* One product on device pointers, any element type: the BLAS argument
 * checks, the kernel (named, or the best for the call), tb_gemm_run. */
static int tb_device_gemm(const char *kernel, tb_dtype dtype, char transa, char transb, int m,
                          int n, int k, tb_scalar alpha, const void *A, int lda, const void *B,
                          int ldb, tb_scalar beta, void *C, int ldc, void *stream)
{
    int ta, tb;
    /* BLAS argument numbers, in the order of the Fortran xgemm. */
    if (!tb_trans_arg(transa, dtype, &ta)) return 1;
    if (!tb_trans_arg(transb, dtype, &tb)) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < (ta ? (m > 1 ? m : 1) : (k > 1 ? k : 1))) return 8;
    if (ldb < (tb ? (k > 1 ? k : 1) : (n > 1 ? n : 1))) return 10;
    if (ldc < (n > 1 ? n : 1)) return 13;

    const tb_gemm g = {dtype, m, n, k, ta, tb, alpha, beta, A, (size_t)lda, B, (size_t)ldb, C,
                       (size_t)ldc, 0, 0};
    const tb_kernel_info *kern = kernel ? tb_kernel_by_name(kernel) : tb_kernel_pick(&g, 1);
    if (!kern || !tb_kernel_accepts(kern, &g)) {
        tb_api_error = "no such kernel, or it does not compute this precision, fit this GPU "
                       "or support this call";
        return -2;
    }
    cudaError_t e = tb_gemm_run(&g, kern, 0, (cudaStream_t)stream);
    if (e != cudaSuccess) {
        tb_api_error = cudaGetErrorString(e);
        cudaGetLastError();
        return -1;
    }
    return 0;
}

TB_EXPORT int tiledblas_sgemm_device_kernel(const char *kernel, char transa, char transb,
                                            int m, int n, int k, float alpha,
                                            const float *A, int lda, const float *B, int ldb,
                                            float beta, float *C, int ldc, void *stream)
{
    return tb_device_gemm(kernel, TB_F32, transa, transb, m, n, k, tb_real(alpha), A, lda, B, ldb,
                          tb_real(beta), C, ldc, stream);
}

TB_EXPORT int tiledblas_sgemm_device(char transa, char transb, int m, int n, int k,
                                     float alpha, const float *A, int lda,
                                     const float *B, int ldb,
                                     float beta, float *C, int ldc, void *stream)
{
    return tb_device_gemm(NULL, TB_F32, transa, transb, m, n, k, tb_real(alpha), A, lda, B, ldb,
                          tb_real(beta), C, ldc, stream);
}

TB_EXPORT int tiledblas_dgemm_device_kernel(const char *kernel, char transa, char transb,
                                            int m, int n, int k, double alpha,
                                            const double *A, int lda, const double *B, int ldb,
                                            double beta, double *C, int ldc, void *stream)
{
    return tb_device_gemm(kernel, TB_F64, transa, transb, m, n, k, tb_real(alpha), A, lda, B, ldb,
                          tb_real(beta), C, ldc, stream);
}

TB_EXPORT int tiledblas_dgemm_device(char transa, char transb, int m, int n, int k,
                                     double alpha, const double *A, int lda,
                                     const double *B, int ldb,
                                     double beta, double *C, int ldc, void *stream)
{
    return tb_device_gemm(NULL, TB_F64, transa, transb, m, n, k, tb_real(alpha), A, lda, B, ldb,
                          tb_real(beta), C, ldc, stream);
}

/* Complex alpha and beta: two numbers each, re then im, in host memory. */
static tb_scalar tb_cx_arg(const float *x) { return (tb_scalar){x[0], x[1]}; }
static tb_scalar tb_zx_arg(const double *x) { return (tb_scalar){x[0], x[1]}; }

TB_EXPORT int tiledblas_cgemm_device_kernel(const char *kernel, char transa, char transb,
                                            int m, int n, int k, const float *alpha,
                                            const void *A, int lda, const void *B, int ldb,
                                            const float *beta, void *C, int ldc, void *stream)
{
    return tb_device_gemm(kernel, TB_C32, transa, transb, m, n, k, tb_cx_arg(alpha), A, lda, B,
                          ldb, tb_cx_arg(beta), C, ldc, stream);
}

TB_EXPORT int tiledblas_cgemm_device(char transa, char transb, int m, int n, int k,
                                     const float *alpha, const void *A, int lda,
                                     const void *B, int ldb,
                                     const float *beta, void *C, int ldc, void *stream)
{
    return tb_device_gemm(NULL, TB_C32, transa, transb, m, n, k, tb_cx_arg(alpha), A, lda, B,
                          ldb, tb_cx_arg(beta), C, ldc, stream);
}

TB_EXPORT int tiledblas_zgemm_device_kernel(const char *kernel, char transa, char transb,
                                            int m, int n, int k, const double *alpha,
                                            const void *A, int lda, const void *B, int ldb,
                                            const double *beta, void *C, int ldc, void *stream)
{
    return tb_device_gemm(kernel, TB_C64, transa, transb, m, n, k, tb_zx_arg(alpha), A, lda, B,
                          ldb, tb_zx_arg(beta), C, ldc, stream);
}

TB_EXPORT int tiledblas_zgemm_device(char transa, char transb, int m, int n, int k,
                                     const double *alpha, const void *A, int lda,
                                     const void *B, int ldb,
                                     const double *beta, void *C, int ldc, void *stream)
{
    return tb_device_gemm(NULL, TB_C64, transa, transb, m, n, k, tb_zx_arg(alpha), A, lda, B,
                          ldb, tb_zx_arg(beta), C, ldc, stream);
}

TB_EXPORT int tiledblas_kernel_count(void)
{
    int n;
    tb_kernel_list(&n);
    return n;
}

TB_EXPORT int tiledblas_kernel_describe(int i, tiledblas_kernel_desc *out)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    if (i < 0 || i >= n)
        return -1;
    *out = (tiledblas_kernel_desc){k[i].name, k[i].summary, k[i].block_m, k[i].block_n,
                                   k[i].block_k, k[i].warp_m, k[i].warp_n,
                                   k[i].thread_m, k[i].thread_n, k[i].threads};
    return 0;
}

TB_EXPORT int tiledblas_memory(size_t *device_held, size_t *device_free)
{
    size_t held = 0, free_b = 0;
    int r = tb_gpu_memory(&held, &free_b);
    if (r == 0)
        held += tb_run_pool_bytes(); /* the device API's aligned copies */
    if (device_held)
        *device_held = held;
    if (device_free)
        *device_free = free_b;
    return r;
}

TB_EXPORT int tiledblas_info(char *buf, size_t len)
{
    return tb_info_text(buf, len);
}

TB_EXPORT int tiledblas_gpu_describe(char *buf, size_t len)
{
    return tb_gpu_describe_for_user(buf, len);
}

TB_EXPORT int tiledblas_gpu_start(double timeout_s)
{
    tb_reason why;
    double left = 0.0;
    /* A call "worth" a start makes it due at once. */
    tb_gpu_poll_t st = tb_gpu_poll(&why, &left, 1e30);
    if (st == TB_GPU_POLL_STARTING && timeout_s > 0.0)
        st = tb_gpu_wait(timeout_s, &why);
    return st == TB_GPU_POLL_READY ? 1 : st == TB_GPU_POLL_NONE ? -1 : 0;
}

TB_EXPORT int tiledblas_calibrate(char *buf, size_t len)
{
    tb_reason why;
    if (!tb_gpu_available(&why)) {
        snprintf(buf, len, "no GPU (%s: %s): every call runs on the CPU BLAS, no rates to measure\n",
                 tb_reason_name(why), tb_gpu_detail());
        return 1;
    }
    if (strcmp(tb_real_blas_path(), "none") == 0) {
        snprintf(buf, len, "no CPU BLAS found (see %s)\n", TB_ENV_CPU_BLAS);
        return -1;
    }
    const int rc = tb_calibrate_now(buf, len);
    /* The new rates are written over the ones in use, in place: what the
     * shape classes measured against the old ones starts again. */
    tb_policy_forget();
    return rc;
}
