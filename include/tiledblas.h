/* tiledblas.h - the public C API of libtiledblas beyond the BLAS names it
 * exports. Most programs need none of this: LD_PRELOAD=libtiledblas.so is
 * the whole interface. This header is for programs whose data already lives
 * on the GPU, and for tools that want to know what the library holds. */
#ifndef TILEDBLAS_H
#define TILEDBLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEDBLAS_VERSION "0.1.0"

/* Library version string, e.g. "0.1.0". */
const char *tiledblas_version(void);

/* C = alpha * op(A) * op(B) + beta * C on device pointers, row-major, with
 * op() chosen by transa/transb ('N' or 'T'; 'C' reads as 'T'), strides in
 * elements, enqueued
 * on `stream` (a cudaStream_t; NULL is the legacy default stream). Does not
 * synchronise. Operands whose rows are not 16-byte aligned (odd strides such
 * as 4097, or an odd base address) are first copied to aligned scratch on
 * the same stream when they are re-read enough for the copy to pay.
 * Returns 0 on success, a positive BLAS-style argument number for an
 * illegal argument (the Fortran sgemm's: 1 = transa ... 8 = lda, 10 = ldb,
 * 13 = ldc), or -1 for a CUDA error (see tiledblas_last_error). */
int tiledblas_sgemm_device(char transa, char transb, int m, int n, int k,
                           float alpha, const float *A, int lda,
                           const float *B, int ldb,
                           float beta, float *C, int ldc, void *stream);

/* The same in double precision, on the library's fp64 kernels (plain fp64
 * arithmetic on the FP64 tensor cores where the GPU has them). */
int tiledblas_dgemm_device(char transa, char transb, int m, int n, int k,
                           double alpha, const double *A, int lda,
                           const double *B, int ldb,
                           double beta, double *C, int ldc, void *stream);

/* The same, with the kernel named (NULL = the default choice for the shape).
 * Returns -2 when no kernel of that name exists, or it computes another
 * element type, does not fit this GPU or does not support the call. The
 * complex ones below take the complex entries (crealify, ctiled16,
 * zrealify, ztiled16, ...; `tiledblas info` lists them). */
int tiledblas_sgemm_device_kernel(const char *kernel, char transa, char transb,
                                  int m, int n, int k, float alpha,
                                  const float *A, int lda, const float *B, int ldb,
                                  float beta, float *C, int ldc, void *stream);
int tiledblas_dgemm_device_kernel(const char *kernel, char transa, char transb,
                                  int m, int n, int k, double alpha,
                                  const double *A, int lda, const double *B, int ldb,
                                  double beta, double *C, int ldc, void *stream);

/* Complex GEMM on device pointers: C = alpha * op(A) * op(B) + beta * C,
 * row-major, with op() chosen by transa/transb: 'N', 'T' or 'C' (the
 * conjugate transpose). A, B and C hold complex numbers of two floats
 * (cgemm) or two doubles (zgemm), re then im (the layout of C's
 * float _Complex / double _Complex, std::complex and cuComplex /
 * cuDoubleComplex); strides in complex elements. alpha and beta point to
 * two numbers each in host memory, re then im (a float _Complex * or
 * std::complex<float> * may be passed cast); beta == 0 never reads C.
 * Runs as one real product of twice the width and depth (m x 2n x 2k) on
 * the library's fp32 kernels (3xTF32 tensor cores: fp32 accuracy) or fp64
 * kernels, which writes C in place; op(B) is copied to a 2 x 2-block real
 * form first (4x its size in stream-ordered scratch), a transposed A to
 * interleaved rows. Same return values and stream rules as
 * tiledblas_sgemm_device(). */
int tiledblas_cgemm_device(char transa, char transb, int m, int n, int k,
                           const float *alpha, const void *A, int lda,
                           const void *B, int ldb,
                           const float *beta, void *C, int ldc, void *stream);
int tiledblas_zgemm_device(char transa, char transb, int m, int n, int k,
                           const double *alpha, const void *A, int lda,
                           const void *B, int ldb,
                           const double *beta, void *C, int ldc, void *stream);
int tiledblas_cgemm_device_kernel(const char *kernel, char transa, char transb,
                                  int m, int n, int k, const float *alpha,
                                  const void *A, int lda, const void *B, int ldb,
                                  const float *beta, void *C, int ldc, void *stream);
int tiledblas_zgemm_device_kernel(const char *kernel, char transa, char transb,
                                  int m, int n, int k, const double *alpha,
                                  const void *A, int lda, const void *B, int ldb,
                                  const double *beta, void *C, int ldc, void *stream);

/* Text of the last CUDA error seen by this thread in the calls above. */
const char *tiledblas_last_error(void);

/* The kernels built into the library, in the order of their progression. */
typedef struct tiledblas_kernel_desc {
    const char *name;
    const char *summary;
    int block_m, block_n, block_k;   /* C tile of one thread block, K step  */
    int warp_m, warp_n;              /* C tile of one warp (0: not tiled)   */
    int thread_m, thread_n;          /* C micro-tile of one thread          */
    int threads;                     /* threads per block                   */
} tiledblas_kernel_desc;

int tiledblas_kernel_count(void);
/* Fills *out for kernel i (0-based); returns 0, or -1 when i is out of range. */
int tiledblas_kernel_describe(int i, tiledblas_kernel_desc *out);

/* A description of the library for people and tools: its path and version,
 * the CPU BLAS it forwards to (name, version, OpenBLAS core), the GPU (this
 * starts CUDA, as the first GPU call would), the kernels and the settings
 * in effect, one "name: value" line each. Writes at most len bytes,
 * NUL-terminated, and returns the length the whole text needs (as
 * snprintf does). */
int tiledblas_info(char *buf, size_t len);

/* One line on the GPU ("NVIDIA H200, 139.8 GiB, compute capability 9.0,
 * ...", or "none (why)"). Starts CUDA. Returns 1 when the GPU path is
 * usable, 0 when not. */
int tiledblas_gpu_describe(char *buf, size_t len);

/* Starts the GPU path now, as auto mode does by itself once the calls the
 * GPU would take have spent on the CPU what a start costs: CUDA, pinned
 * staging and this machine's rates, on the library's own thread; waits at
 * most timeout_s seconds for them (0: does not wait). For programs that know
 * they will multiply large matrices, and for benchmarks of the steady state.
 * Returns 1 when the GPU path is ready, 0 when it is still starting, -1
 * when there is no usable GPU (or in a child forked after the start). */
int tiledblas_gpu_start(double timeout_s);

/* Measures this machine's rates for the GPU/CPU decision now (CPU BLAS,
 * transfers, kernels, the small-call grid; both precisions) and saves them
 * to the cache directory (TILEDBLAS_CACHE_DIR, else $XDG_CACHE_HOME/tiledblas,
 * else ~/.cache/tiledblas), where auto mode finds them once CUDA starts;
 * with nothing cached auto mode measures only the GPU's own rates. Writes a
 * report to buf. Returns 0 when measured, 1 when there is no GPU, -1 when
 * measuring failed (the built-in rates stay). Starts CUDA. */
int tiledblas_calibrate(char *buf, size_t len);

/* Device memory: bytes held in the library's idle buffers (the preload's
 * pipeline buffers, and the pool that the tiledblas_*gemm_device()
 * functions take their kernels' scratch from), and free on
 * the device. Returns 0, or -1 (both 0) when the GPU path has not started.
 * Never starts CUDA. */
int tiledblas_memory(size_t *device_held, size_t *device_free);

#ifdef __cplusplus
}
#endif
#endif
