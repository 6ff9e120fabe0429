/* kernels/tb_kernels.h - the C ABI between the host side (src/) and the CUDA
 * kernels (kernels/), for every element type alike:
 *   tb_gemm          one product, tagged by its element type (tb_dtype)
 *   tb_kernel_info   one kernel: its launcher (tb_launch_fn), its limits
 *                    (tb_supports_fn), its tiling and what it needs of the GPU
 *   kernels/registry.c   the list of kernels and every choice among them:
 *                    which kernel runs a product, and how K is cut
 *                    (tb_kernel_pick, tb_kernel_plan)
 *   src/gpu/run.cu   the host runtime that runs a product with a kernel
 *                    (tb_gemm_run: aligned copies, K in parts on side streams)
 *                    and the stream-ordered scratch pool the kernels take
 *                    from (tb_run_scratch)
 * Kernels see only device pointers, row-major operands and a stream; they
 * never synchronise, take scratch only from that pool, and report launch
 * errors by return value. Each element type is a tb_dtype value, a row of
 * kernels/registry.c's per-type numbers and the entries that compute it:
 * the complex ones (TB_C32, TB_C64) run as one product of their real
 * type's kernels (complex_00_realify.cu), through the same tb_gemm_run. */
#ifndef TB_KERNELS_H
#define TB_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The element type of a product. The values are those of src/'s tb_prec
 * (TB_SINGLE 0, TB_DOUBLE 1, TB_COMPLEX 2, TB_ZCOMPLEX 3); TB_DTYPES
 * counts them (the rows of per-type tables). TB_C32 and TB_C64 are complex
 * numbers of two floats or two doubles, interleaved (re, then im), as C's
 * float _Complex, std::complex<float> and cuComplex lay them out. */
typedef enum { TB_F32 = 0, TB_F64 = 1, TB_C32 = 2, TB_C64 = 3, TB_DTYPES } tb_dtype;

/* A scalar of any element type: re alone for the real types (im 0), both
 * for the complex ones. An fp32 call's values came from float and go back
 * to float exactly. A complex scalar whose im is 0 scales as a real one
 * does, each part alone (inf times it stays inf, no 0 x inf). */
typedef struct tb_scalar {
    double re, im;
} tb_scalar;

/* One row-major product on device memory:
 *   C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C
 * op(A) is A (m x k, element (i,p) at A[i*lda + p]) when transa == 0,
 * A^T when transa == 1 (A stored k x m, element (i,p) at A[p*lda + i]),
 * and for the complex types the conjugate transpose A^H when transa == 2
 * (stored as for 1, each element conjugated); for the real types 2 is the
 * same as 1. Likewise op(B) with transb. A, B and C point to elements of
 * `dtype` (complex ones interleaved, re then im); strides are in elements,
 * not bytes.
 * beta == 0 means C is write-only: it is never read (NaN in C must not leak).
 * k == 0 or alpha == 0 give C = beta*C without reading A or B.
 * tri (0: none) says that only a triangle of C is wanted (a diagonal block
 * of syrk's family, blocked.c): TB_TRI_LOWER the elements (i, j) with
 * j < (i + 1) w, TB_TRI_UPPER those with j >= i w, w = tri_w (1 when 0;
 * 2 for a complex product's real one, whose columns are re and im). A
 * kernel may leave the other elements' tiles unwritten (TB_TILE_UNWANTED)
 * or compute them; none may read them afterwards. */
typedef struct tb_gemm {
    tb_dtype dtype;
    int m, n, k;
    int transa, transb;
    tb_scalar alpha, beta;
    const void *A; size_t lda;
    const void *B; size_t ldb;
    void *C; size_t ldc;
    int tri, tri_w;
} tb_gemm;

enum { TB_TRI_LOWER = 1, TB_TRI_UPPER = 2 };
/* Whether the tile of C at rows [r0, r0 + rows), columns [c0, c0 + cols)
 * holds no wanted element (host and device; tri, w as in tb_gemm). */
#define TB_TILE_UNWANTED(tri, w, r0, rows, c0, cols)                                     \
    ((tri) == TB_TRI_LOWER   ? (long long)(c0) >= ((long long)(r0) + (rows)) * ((w) > 1 ? (w) : 1) \
     : (tri) == TB_TRI_UPPER ? (long long)(c0) + (cols) <= (long long)(r0) * ((w) > 1 ? (w) : 1)   \
                             : 0)

/* Launch the product on `stream`; return cudaSuccess or the launch error.
 * A launcher is handed products of its kernel's element type only
 * (tb_kernel_info.dtype; the registry and tb_gemm_run check), and must
 * accept every shape and stride allowed by BLAS unless its supports() says
 * no. */
typedef cudaError_t (*tb_launch_fn)(const tb_gemm *g, cudaStream_t stream);

/* Optional limits, checked before a kernel is picked; NULL means "any
 * shape, any stride, any alignment". */
typedef int (*tb_supports_fn)(const tb_gemm *g);

/* How a kernel's product walks K. */
typedef enum {
    TB_K_WHOLE,   /* one launch, all of K                                   */
    TB_K_PARTS,   /* K may be cut into parts, each its own launch on a side
                   * stream, added by the split sum (tb_kernel_plan says how
                   * many; tb_gemm_run runs them)                           */
    TB_K_OWN      /* its launcher cuts K across its own grid and adds the
                   * parts itself                                           */
} tb_ksplit;

typedef struct tb_kernel_info {
    const char *name;        /* TILEDBLAS_KERNEL=<name> selects it        */
    const char *summary;     /* one line for `tiledblas info` and docs    */
    tb_dtype dtype;          /* the element type it computes in            */
    tb_launch_fn launch;
    tb_supports_fn supports;
    int rank;                /* higher = preferred by default when supported,
                              * among the kernels of its type */
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
     * operands that are not, where tb_kernel_plan says the copy pays. */
    int wants_aligned;
    tb_ksplit ksplit;
    /* 1: its launcher takes scratch from the pool (tb_run_scratch) for a
     * pre-pass or its own K split, on top of the caller's buffers. */
    int takes_scratch;
    /* What it needs of the GPU, which the registry compares with the
     * device's (tb_kernel_fits): compute capability from cc_min to cc_max
     * (major * 10 + minor; cc_max 0: no upper limit; arch-specific sm_90a
     * code runs on 9.0 alone), and smem bytes of shared memory per block,
     * static plus the most dynamic shared memory its launcher requests. */
    int cc_min, cc_max;
    int smem;
    /* NULL: picked by default wherever it is the highest ranked kernel
     * that supports the product; else only for products where pays()
     * says it beats the kernels ranked below it (a kernel that wins on
     * some shapes alone; never the type's default for every product). */
    tb_supports_fn pays;
} tb_kernel_info;

/* A 16-byte vector access is legal when the base is 16-byte aligned and the
 * stride keeps every row so: whether rows of elements of elem bytes at p,
 * ld apart, are (the launchers' fast paths and the registry's copies). */
static inline int tb_rows16(const void *p, size_t ld, size_t elem)
{
    return ((uintptr_t)p % 16 == 0) && (ld * elem % 16 == 0);
}

/* ---- kernels/registry.c: the kernels and the choices among them -------- */
/* Bytes of one element of type t; the type of its parts (t itself for a
 * real type, TB_F32 for TB_C32, TB_F64 for TB_C64). */
size_t tb_dtype_size(tb_dtype t);
tb_dtype tb_dtype_real(tb_dtype t);
const tb_kernel_info *tb_kernel_list(int *count);
const tb_kernel_info *tb_kernel_by_name(const char *name);
/* Whether name is one of the comma-separated names in list (NULL: every
 * name is); the kernel benchmark's and tests' --kernels option. */
int tb_kernel_in_list(const char *name, const char *list);
/* The preferred kernel for g on the current device, among those of g's
 * element type: the small kernel for a small product (tb_kernel_small),
 * else the highest rank among those that fit the device (tb_kernel_fits)
 * and whose supports() accepts g; the seed kernel when none does or the
 * device cannot be asked. scratch_ok 0 (a caller held to a device memory
 * cap): only kernels that take no scratch of their own, so the seed, not
 * the small kernel, for a small product. */
const tb_kernel_info *tb_kernel_pick(const tb_gemm *g, int scratch_ok);
/* 1 when kernel k computes g's element type, fits the current device and
 * its supports() accepts g. */
int tb_kernel_accepts(const tb_kernel_info *k, const tb_gemm *g);
/* Whether an m x n x k product of element type t is small enough for that
 * type's small kernel. */
int tb_kernel_small(tb_dtype t, int m, int n, int k);
/* Pure, for tests: whether kernel k can run on a GPU of compute capability
 * major.minor whose blocks may opt in to smem_optin bytes of shared memory
 * (cudaDevAttrMaxSharedMemoryPerBlockOptin); and the kernel of element
 * type t that tb_kernel_pick prefers for a large product on such a GPU,
 * the kernels' own supports() aside (NULL: no kernel fits, e.g. a GPU
 * older than the build). */
int tb_kernel_fits(const tb_kernel_info *k, int major, int minor, int smem_optin);
const tb_kernel_info *tb_kernel_default(tb_dtype t, int major, int minor, int smem_optin);
/* Whether k fits the current device (0 when CUDA cannot say). */
int tb_kernel_fits_here(const tb_kernel_info *k);
/* Whether tb_kernel_pick can return k on a GPU of these properties: the
 * seed or the small kernel of k's type, or a kernel of rank >= 0 that fits
 * and has no kernel of its type above it that fits and takes every
 * product. Pure, for tests. */
int tb_kernel_pickable(const tb_kernel_info *k, int major, int minor, int smem_optin);
/* dozaki's pays(): whether its time, by its cost model, is under 0.9 of
 * dmma's for g (registry.c). Pure, for tests. */
int tb_ozaki_pays(const tb_gemm *g);

/* How tb_gemm_run runs g with kernel k on a GPU of `sms` SMs (0: unknown):
 * op(A) and op(B) copied to aligned rows first (pack_a, pack_b), and K cut
 * into `parts` launches (1: whole) of `slice` elements each, the last one
 * the rest. Pure: g's pointers are read as numbers, CUDA is not asked. */
typedef struct tb_run_plan {
    int pack_a, pack_b;
    int parts, slice;
} tb_run_plan;
#define TB_MAX_PARTS 32   /* the most parts of any plan of K */
tb_run_plan tb_kernel_plan(const tb_kernel_info *k, const tb_gemm *g, int sms);
/* The parts that plan cuts K into for a TB_K_PARTS kernel of element type
 * t on an m x n x k product (1: none); pure, for tests. */
int tb_split_parts(tb_dtype t, int m, int n, int k, int sms);
/* The K parts of the wgmma kernel's own split (1: none), pure: of every
 * tile of a small grid (tb_wgmma_parts), or of the last wave's tiles of a
 * larger one (tb_wgmma_tail_parts, for grids the first leaves whole). */
int tb_wgmma_parts(int m, int n, int k, int sms);
int tb_wgmma_tail_parts(int m, int n, int k, int sms);
/* How complex_00_realify.cu runs a complex product as one real product
 * of the real type's kernels (tb_gemm_run picks one for the real shape).
 * With k_c = k and n_c = n the complex sizes:
 *   C' = C viewed as m x 2n_c reals (re, im interleaved along n; stride
 *        2 ldc), written by the real product;
 *   A' = op(A) as m x 2k_c reals, re and im interleaved along k: A's own
 *        memory (stride 2 lda) when transa == 0, else a copy of op(A)
 *        (transposed, conjugated for transa == 2) in scratch;
 *   B'' = 2k_c x 2n_c reals in scratch, element (l, j) of s op(B) the 2 x 2
 *        block [[re, im], [-im, re]] at rows 2l, 2l+1 and columns 2j, 2j+1,
 *        s = alpha when alpha is complex (folded), else 1 (B'' exact);
 * so that A' B'' = s op(A) op(B), interleaved like C. The real product
 * takes alpha' = alpha (real alpha) or 1 (folded), beta' = beta (real
 * beta: 0 never reads C) or 1 after a pass that scales C by a complex beta.
 * post (the crealify-post and zrealify-post entries): a complex alpha is
 * not folded but applied afterwards: the real product (alpha' 1, beta' 0)
 * goes to P in scratch, then C = alpha P + beta C.
 * Real flops 8 m n_c k_c, those of the four real products of the usual
 * method, in one product of twice the depth and width. Pure: g's pointers
 * are read as numbers, CUDA is not asked. */
typedef struct tb_complex_plan {
    int real;              /* 1: a real product runs; 0: none (m or n 0: nothing
                            * at all; k 0 or alpha 0: C = beta C alone, scale_c);
                            * -1: 2n or 2k would not fit an int            */
    tb_gemm g;             /* the real product, dtype the real type; its A
                            * is g's own A (not copied) or NULL, B NULL, C
                            * g's own C or NULL (post): the launcher points
                            * the NULL ones into its scratch (the offsets) */
    int copy_a;            /* A' is a copy of op(A) in scratch (transa != 0) */
    int fold;              /* a complex alpha is folded into B''            */
    int scale_c;           /* C = beta C first (complex beta; or the whole
                            * product when real is 0)                       */
    int post;              /* the result goes to P, then C = alpha P + beta C */
    size_t a_off, b_off, p_off, bytes;   /* scratch: A', B'', P, and in all */
} tb_complex_plan;
tb_complex_plan tb_complex_plan_of(const tb_gemm *g, int post);

/* The SM count of device `dev`, asked once per device and kept (0 if CUDA
 * cannot say). The launchers size their grids with it. */
int tb_device_sms(int dev);
/* The same for its compute capability and opt-in shared memory per block:
 * 1 and the values, or 0 if CUDA cannot say. */
int tb_device_caps(int dev, int *major, int *minor, int *smem_optin);

/* ---- src/gpu/run.cu: the host runtime on device pointers --------------- */
/* g with kern (NULL: tb_kernel_pick(g, 1)) on stream, the way the public
 * tiledblas_{s,d,c,z}gemm_device() run it: as
 * tb_kernel_plan says, unaligned operands copied to aligned, stream-ordered
 * scratch first and K split into parts on side streams; falls back to the
 * plain launch when it cannot. whole 1: kern's launcher alone (a caller
 * held to a device memory cap). A kernel of another element type is
 * refused (cudaErrorInvalidValue), never launched. */
cudaError_t tb_gemm_run(const tb_gemm *g, const tb_kernel_info *kern, int whole,
                        cudaStream_t stream);
/* Load the code of every kernel the default pick can return on this GPU
 * (one launch each on a 1 x 1 x 1 product, on `stream`, waited for) and of
 * the split sum, so that no call pays for CUDA's lazy loading; stops before
 * the next kernel once *stop is set. */
cudaError_t tb_kernels_load(cudaStream_t stream, const int *stop);
/* Stream-ordered scratch from the runtime's pool for a launcher's own
 * pre-pass or K split (NULL when there is none to be had: the launcher
 * then takes a path that needs none); freed on `stream` after the kernels
 * that use it. */
void *tb_run_scratch(size_t bytes, cudaStream_t stream);
void tb_run_scratch_free(void *p, cudaStream_t stream);
/* Device bytes the pool holds. */
size_t tb_run_pool_bytes(void);
/* Operands copied to aligned scratch and products split along K so far
 * (tests); a kernel that split K itself (wgmma, small) counts its product
 * with tb_run_count_split. */
unsigned long long tb_run_repack_count(void);
unsigned long long tb_run_split_count(void);
void tb_run_count_split(void);

/* ---- the launchers, one file of kernels each ---------------------------- */
/* gemm_00_tiled16.cu: the seed, every element type (complex: conjugate
 * transposes read in its tile loads). */
cudaError_t tb_launch_tiled16(const tb_gemm *g, cudaStream_t stream);
/* gemm_05_small.cu: small products, 32x32 tiles, 4x4 micro-tiles, K split
 * across the grid; float and double. tb_small_parts: how many parts an
 * m x n x k product of type t takes on `sms` SMs (1: whole), and
 * tb_small_slice each part's depth (pure, for tests). */
cudaError_t tb_launch_small(const tb_gemm *g, cudaStream_t stream);
int tb_small_parts(tb_dtype t, int m, int n, int k, int sms);
int tb_small_slice(int k, int parts);
/* sgemm_01_regblock.cu: 128x128 tiles, 8x8 register micro-tiles */
cudaError_t tb_launch_regblock(const tb_gemm *g, cudaStream_t stream);
/* sgemm_02_warptile.cu: warp tiles, double-buffered shared memory */
cudaError_t tb_launch_warptile(const tb_gemm *g, cudaStream_t stream);
/* sgemm_03_tf32x3.cu: tensor cores (mma.sync TF32), cp.async pipeline.
 * tf32x3: 3xTF32 error-compensated, fp32 accuracy; tf32x3_tcacc: the same
 * with all sums inside the tensor cores; tf32_fast: plain TF32 (~1e-4
 * relative error), never a default. */
cudaError_t tb_launch_tf32x3(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_tf32x3_tcacc(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_tf32_fast(const tb_gemm *g, cudaStream_t stream);
/* sgemm_04_wgmma.cu: Hopper wgmma (sm_90a), 3xTF32 on operands split and
 * made K-major by a pre-pass or, where that costs less, in shared memory.
 * wgmma: TMA + mbarrier pipeline, producer and consumer warpgroups,
 * persistent; wgmma_insplit: always the split in shared memory (operands
 * with 16-byte aligned rows); wgmma_simple: one warpgroup, plain loads. Only
 * on compute capability 9.0 (their supports() say so). */
cudaError_t tb_launch_wgmma(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_wgmma_1p(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_wgmma_simple(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_wgmma_insplit(const tb_gemm *g, cudaStream_t stream);
int tb_wgmma_supports(const tb_gemm *g);
int tb_wgmma_simple_supports(const tb_gemm *g);
/* dgemm_01_dmma.cu: FP64 tensor cores (mma.sync f64), cp.async pipeline,
 * padded shared memory. dmma: m16n8k8 steps with double-buffered fragments
 * and K slices of 32 where 216 KB of shared memory fit (9.0, 10.x); the
 * m16n8k16 step loop with slices of 16 on 8.0 (m8n8k4 below 9.0).
 * dmma-k16: that step loop on every GPU; dmma-884: m8n8k4 on every GPU
 * (the Ampere instruction, kept to compare and to test that path on
 * Hopper). */
cudaError_t tb_launch_dmma(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_dmma_k16(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_dmma_884(const tb_gemm *g, cudaStream_t stream);
/* dmma whose blocks return at once unless *run_if (device memory, set by
 * an earlier kernel on the stream) is nonzero: the fallback of a kernel
 * that finds on the GPU that it cannot run a product (dgemm_02_ozaki.cu). */
cudaError_t tb_launch_dmma_if(const tb_gemm *g, const int *run_if, cudaStream_t stream);
/* dgemm_02_ozaki.cu: fp64 as Ozaki scheme II, int8 residues of the operands
 * scaled to integers, modulo 15 or 16 moduli, multiplied on the INT8 tensor
 * cores (wgmma on 9.0, igemm_01_wgmma.cu; mma.sync m16n8k32 elsewhere, and
 * always in ozaki_mma), the product rebuilt by the Chinese remainder
 * theorem; on dmma where the operands (inf/NaN, range, dynamic range with a
 * short K) say so, decided on the GPU (tb_ozaki.h). Any shape. */
cudaError_t tb_launch_ozaki(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_ozaki_mma(const tb_gemm *g, cudaStream_t stream);
int tb_ozaki_supports(const tb_gemm *g);
/* complex_00_realify.cu: a complex product as one real product
 * (tb_complex_plan_of): the packing of A' and B'', the scaling of C and
 * the real product through tb_gemm_run; realify_post with a complex alpha
 * applied after the real product. Without scratch: the complex seed
 * (tb_launch_tiled16). */
cudaError_t tb_launch_realify(const tb_gemm *g, cudaStream_t stream);
cudaError_t tb_launch_realify_post(const tb_gemm *g, cudaStream_t stream);
/* run_kernels.cu: the runtime's own two kernels, for element type t: a
 * rows x cols block copied from src (stride lds) to dst (stride ldd), the
 * aligned copies; and the split sum, C = alpha * (W_0 + ... + W_{parts-1})
 * + beta * C for an m x n C, the W_s being K parts' results (row stride
 * ldw, wstride elements apart) added in order (the runtime's parts and the
 * small kernel's). */
cudaError_t tb_launch_pack(tb_dtype t, const void *src, size_t lds, void *dst, size_t ldd,
                           int rows, int cols, cudaStream_t stream);
cudaError_t tb_launch_split_sum(tb_dtype t, const void *W, size_t ldw, size_t wstride, int parts,
                                int m, int n, tb_scalar alpha, tb_scalar beta, void *C, size_t ldc,
                                int tri, int tri_w, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
