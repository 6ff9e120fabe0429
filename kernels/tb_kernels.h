/* kernels/tb_kernels.h - the C ABI between the host side (src/) and the CUDA
 * kernels (kernels/). Every kernel file exports launchers of type
 * tb_launch_fn (fp32) or tb_dlaunch_fn (fp64); kernels/registry.c lists
 * them. Kernels see only device pointers, row-major operands and a stream;
 * they never synchronise, take scratch only from run.cu's stream-ordered
 * pool (tb_run_scratch), and report launch errors by return value. */
#ifndef TB_KERNELS_H
#define TB_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One row-major product on device memory:
 *   C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C
 * op(A) is A (m x k, element (i,p) at A[i*lda + p]) when transa == 0, and
 * A^T when transa != 0 (A stored k x m, element (i,p) at A[p*lda + i]).
 * Likewise op(B) with transb. Strides are in elements, not bytes.
 * beta == 0 means C is write-only: it is never read (NaN in C must not leak).
 * k == 0 or alpha == 0 give C = beta*C without reading A or B. */
typedef struct tb_gemm_args {
    int m, n, k;
    int transa, transb;
    float alpha, beta;
    const float *A; size_t lda;
    const float *B; size_t ldb;
    float *C; size_t ldc;
} tb_gemm_args;

/* The element type of a product: fp32 (tb_gemm_args, the sgemm_* kernels)
 * or fp64 (tb_dgemm_args, the dgemm_* kernels). The values are those of
 * src/'s tb_prec. */
typedef enum { TB_F32 = 0, TB_F64 = 1 } tb_dtype;

/* The same product in double precision; the same rules as tb_gemm_args. */
typedef struct tb_dgemm_args {
    int m, n, k;
    int transa, transb;
    double alpha, beta;
    const double *A; size_t lda;
    const double *B; size_t ldb;
    double *C; size_t ldc;
} tb_dgemm_args;

/* The product as the host side (src/) hands it over, whatever its element
 * type: A, B and C point to elements of `dtype`, strides in elements;
 * alpha and beta are exact for either type (an fp32 call's are converted
 * back to float). */
typedef struct tb_gemm {
    tb_dtype dtype;
    int m, n, k;
    int transa, transb;
    double alpha, beta;
    const void *A; size_t lda;
    const void *B; size_t ldb;
    void *C; size_t ldc;
} tb_gemm;

/* Launch the product on `stream`; return cudaSuccess or the launch error.
 * A launcher must accept every shape and stride allowed by BLAS unless its
 * tb_kernel_info.supports() says no. */
typedef cudaError_t (*tb_launch_fn)(const tb_gemm_args *args, cudaStream_t stream);

/* Optional limits, checked by the dispatcher before it picks a kernel; NULL
 * means "any shape, any stride, any alignment". */
typedef int (*tb_supports_fn)(const tb_gemm_args *args);
/* The fp64 launcher and limits, with the same contract. */
typedef cudaError_t (*tb_dlaunch_fn)(const tb_dgemm_args *args, cudaStream_t stream);
typedef int (*tb_dsupports_fn)(const tb_dgemm_args *args);

typedef struct tb_kernel_info {
    const char *name;        /* TILEDBLAS_KERNEL=<name> selects it        */
    const char *summary;     /* one line for `tiledblas info` and docs    */
    tb_launch_fn launch;
    tb_supports_fn supports;
    int rank;                /* higher = preferred by default when supported */
    /* The tiling, for docs and `tiledblas animate`: each thread block owns a
     * block_m x block_n tile of C and steps through K block_k at a time; each
     * warp a warp_m x warp_n part of it (0 when warps are not tiled); each
     * thread a thread_m x thread_n micro-tile; `threads` per block. */
    int block_m, block_n, block_k;
    int warp_m, warp_n;
    int thread_m, thread_n;
    int threads;
    /* 1: fast only when op(A) and op(B) rows are 16-byte aligned (it still
     * accepts any alignment); tb_gemm_run() then gives it aligned copies of
     * operands that are not, when they are re-read enough to pay. */
    int wants_aligned;
    /* 1: its launcher takes scratch from run.cu's pool for a pre-pass
     * (tb_run_scratch), on top of the caller's buffers. */
    int takes_scratch;
    /* What it needs of the GPU, which the registry compares with the
     * device's (tb_kernel_fits): compute capability from cc_min to cc_max
     * (major * 10 + minor; cc_max 0: no upper limit; arch-specific sm_90a
     * code runs on 9.0 alone), and smem bytes of shared memory per block,
     * static plus the most dynamic shared memory its launcher requests. */
    int cc_min, cc_max;
    int smem;
    /* The element type it computes in. TB_F32 kernels have launch (and
     * supports); TB_F64 kernels have dlaunch (and dsupports) and a NULL
     * launch. */
    tb_dtype dtype;
    tb_dlaunch_fn dlaunch;
    tb_dsupports_fn dsupports;
} tb_kernel_info;

/* ---- What src/ uses, for either element type (kernels/registry.c) ---- */
/* Bytes of one element. */
size_t tb_dtype_size(tb_dtype t);
/* The preferred kernel for g on the current device, among those of g's
 * element type: what tb_kernel_pick (fp32) or tb_dkernel_pick (fp64) picks;
 * scratch_ok 0: only kernels that take no scratch of their own. */
const tb_kernel_info *tb_kernel_choose(const tb_gemm *g, int scratch_ok);
/* 1 when kernel k computes g's element type, fits the current device and
 * its supports() accepts g. */
int tb_kernel_accepts(const tb_kernel_info *k, const tb_gemm *g);
/* Runs g with kern (NULL: tb_kernel_choose(g, 1)) on stream: as
 * tb_gemm_run / tb_dgemm_run do (aligned copies, split K) when whole is 0,
 * kern's launcher alone when whole is 1 (a caller held to a memory cap). */
cudaError_t tb_gemm_launch(const tb_gemm *g, const tb_kernel_info *kern, int whole,
                           cudaStream_t stream);

/* kernels/registry.c */
const tb_kernel_info *tb_kernel_list(int *count);
const tb_kernel_info *tb_kernel_by_name(const char *name);
/* Whether name is one of the comma-separated names in list (NULL: every
 * name is); the kernel benchmark's and tests' --kernels option. */
int tb_kernel_in_list(const char *name, const char *list);
/* The preferred kernel that supports args on the current device: the small
 * kernel for a small product (tb_kernel_small), else the highest rank among
 * those that fit the device (tb_kernel_fits) and whose supports() accepts
 * args; the seed kernel when none does or the device cannot be asked. */
const tb_kernel_info *tb_kernel_pick(const tb_gemm_args *args);
/* The same among the kernels that take no scratch of their own (a caller
 * held to a device memory cap): the seed, not the small kernel, for a small
 * product. */
const tb_kernel_info *tb_kernel_pick_no_scratch(const tb_gemm_args *args);
int tb_kernel_small(int m, int n, int k);
/* Pure, for tests: whether kernel k can run on a GPU of compute capability
 * major.minor whose blocks may opt in to smem_optin bytes of shared memory
 * (cudaDevAttrMaxSharedMemoryPerBlockOptin); and the kernel tb_kernel_pick
 * prefers for a large product on such a GPU, the kernels' own supports()
 * aside (NULL: no kernel fits, e.g. a GPU older than the build). */
int tb_kernel_fits(const tb_kernel_info *k, int major, int minor, int smem_optin);
const tb_kernel_info *tb_kernel_default_on(int major, int minor, int smem_optin);
/* The same among the kernels of element type t (tb_kernel_default_on is
 * tb_kernel_default_for(TB_F32, ...)). */
const tb_kernel_info *tb_kernel_default_for(tb_dtype t, int major, int minor, int smem_optin);
/* Whether an m x n x k product of element type t is small enough for that
 * type's small kernel (tb_kernel_small for TB_F32). */
int tb_kernel_small_for(tb_dtype t, int m, int n, int k);
/* Whether k fits the current device (0 when CUDA cannot say). */
int tb_kernel_fits_here(const tb_kernel_info *k);
/* Whether the default pick (tb_kernel_pick, tb_dkernel_pick) can return k
 * on a GPU of these properties: the seed or the small kernel of k's type,
 * or a kernel of rank >= 0 that fits and has no kernel of its type above
 * it that fits and takes every product. Pure, for tests. */
int tb_kernel_pickable(const tb_kernel_info *k, int major, int minor, int smem_optin);
/* Load the code of every kernel the default pick can return on this GPU
 * (one launch each on a 1 x 1 x 1 product, on `stream`, waited for) and of
 * the split sum, so
 * that no call pays for CUDA's lazy loading; stops before the next kernel
 * once *stop is set. */
cudaError_t tb_kernels_load(cudaStream_t stream, const int *stop);

/* kernels/run.cu: the product as tiledblas_sgemm_device() runs it: `kern`
 * (NULL: tb_kernel_pick); for a kernel that wants_aligned, unaligned
 * operands copied to aligned, stream-ordered scratch first when the copy
 * pays, and K split into parts on side streams when the grid would leave
 * SMs idle (the one place under kernels/ that allocates: from a memory pool
 * of its own, on `stream`). Falls back to the plain launch when it cannot. */
cudaError_t tb_gemm_run(const tb_gemm_args *args, const tb_kernel_info *kern,
                        cudaStream_t stream);
/* The same for an fp64 product and an fp64 kernel (NULL: tb_dkernel_pick). */
cudaError_t tb_dgemm_run(const tb_dgemm_args *args, const tb_kernel_info *kern,
                         cudaStream_t stream);
/* kernels/registry.c: as tb_kernel_pick, among the fp64 kernels. */
const tb_kernel_info *tb_dkernel_pick(const tb_dgemm_args *args);
const tb_kernel_info *tb_dkernel_pick_no_scratch(const tb_dgemm_args *args);
/* Operands repacked and products split along K so far (tests), and device
 * bytes the pool holds. */
unsigned long long tb_run_repack_count(void);
unsigned long long tb_run_split_count(void);
/* How many parts tb_gemm_run splits K into for m x n x k on `sms` SMs (1:
 * none); pure, for tests. tb_dsplit_parts: the same for tb_dgemm_run. */
int tb_split_parts(int m, int n, int k, int sms);
int tb_dsplit_parts(int m, int n, int k, int sms);
/* The K parts of the wgmma kernel's own split (1: none), pure: of every
 * tile of a small grid (tb_wgmma_parts), or of the last wave's tiles of a
 * larger one (tb_wgmma_tail_parts, for grids the first leaves whole); and
 * the count of products split (tb_run_split_count) that such a kernel adds
 * to. */
int tb_wgmma_parts(int m, int n, int k, int sms);
int tb_wgmma_tail_parts(int m, int n, int k, int sms);
void tb_run_count_split(void);
/* C = alpha * (W_0 + ... + W_{parts-1}) + beta * C for an m x n C, the W_s
 * being a kernel's own K parts (row stride ldw, wstride elements apart, of
 * type dtype), added in order; on `stream`. */
cudaError_t tb_run_split_sum(tb_dtype dtype, const void *W, size_t ldw, size_t wstride, int parts,
                             int m, int n, double alpha, double beta, void *C, size_t ldc,
                             cudaStream_t stream);
/* gemm_05_small.cu's split along K (pure, for tests): how many parts an
 * m x n x k product takes on `sms` SMs (1: whole) in float and in double,
 * and each part's depth. */
int tb_small_parts(int m, int n, int k, int sms);
int tb_dsmall_parts(int m, int n, int k, int sms);
int tb_small_slice(int k, int parts);
size_t tb_run_pool_bytes(void);
/* Stream-ordered scratch from the same pool for a launcher's own pre-pass
 * (NULL when there is none to be had: the launcher then takes a path that
 * needs none); freed on `stream` after the kernels that use it. */
void *tb_run_scratch(size_t bytes, cudaStream_t stream);
void tb_run_scratch_free(void *p, cudaStream_t stream);
/* kernels/registry.c: the SM count of device `dev`, asked once per device
 * and kept (0 if CUDA cannot say). The launchers size their grids with it. */
int tb_device_sms(int dev);
/* The same for its compute capability and opt-in shared memory per block:
 * 1 and the values, or 0 if CUDA cannot say. */
int tb_device_caps(int dev, int *major, int *minor, int *smem_optin);

/* Launchers, one per kernel file. gemm_00_tiled16.cu: the seed. */
cudaError_t tb_launch_tiled16(const tb_gemm_args *args, cudaStream_t stream);
/* gemm_05_small.cu: small products, 32x32 tiles, 4x4 micro-tiles, K split
 * across the grid; float and double. */
cudaError_t tb_launch_small(const tb_gemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_dsmall(const tb_dgemm_args *args, cudaStream_t stream);
/* sgemm_01_regblock.cu: 128x128 tiles, 8x8 register micro-tiles */
cudaError_t tb_launch_regblock(const tb_gemm_args *args, cudaStream_t stream);
/* sgemm_02_warptile.cu: warp tiles, double-buffered shared memory */
cudaError_t tb_launch_warptile(const tb_gemm_args *args, cudaStream_t stream);
/* sgemm_03_tf32x3.cu: tensor cores (mma.sync TF32), cp.async pipeline.
 * tf32x3: 3xTF32 error-compensated, fp32 accuracy; tf32x3_tcacc: the same
 * with all sums inside the tensor cores; tf32_fast: plain TF32 (~1e-4
 * relative error), never a default. */
cudaError_t tb_launch_tf32x3(const tb_gemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_tf32x3_tcacc(const tb_gemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_tf32_fast(const tb_gemm_args *args, cudaStream_t stream);
/* sgemm_04_wgmma.cu: Hopper wgmma (sm_90a), 3xTF32 on operands split and
 * made K-major by a pre-pass or, where that costs less, in shared memory.
 * wgmma: TMA + mbarrier pipeline, producer and consumer warpgroups,
 * persistent; wgmma_insplit: always the split in shared memory (operands
 * with 16-byte aligned rows); wgmma_simple: one warpgroup, plain loads. Only
 * on compute capability 9.0 (their supports() say so). */
cudaError_t tb_launch_wgmma(const tb_gemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_wgmma_1p(const tb_gemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_wgmma_simple(const tb_gemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_wgmma_insplit(const tb_gemm_args *args, cudaStream_t stream);
int tb_wgmma_supports(const tb_gemm_args *args);
int tb_wgmma_simple_supports(const tb_gemm_args *args);

/* Double precision (tb_dlaunch_fn). gemm_00_tiled16.cu: the seed kernel in
 * double, the same template as tb_launch_tiled16. */
cudaError_t tb_launch_dtiled16(const tb_dgemm_args *args, cudaStream_t stream);
/* dgemm_01_dmma.cu: FP64 tensor cores (mma.sync f64), cp.async pipeline,
 * padded shared memory. dmma: m16n8k8 steps with double-buffered fragments
 * and K slices of 32 where 216 KB of shared memory fit (9.0, 10.x); the
 * m16n8k16 step loop with slices of 16 on 8.0 (m8n8k4 below 9.0).
 * dmma-k16: that step loop on every GPU; dmma-884: m8n8k4 on every GPU
 * (the Ampere instruction, kept to compare and to test that path on
 * Hopper). */
cudaError_t tb_launch_dmma(const tb_dgemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_dmma_k16(const tb_dgemm_args *args, cudaStream_t stream);
cudaError_t tb_launch_dmma_884(const tb_dgemm_args *args, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
