/* kernels/tb_kernel_common.cuh - what the kernels share around their main
 * loops: the launchers' reading of the BLAS rules and of operand alignment
 * (the kernel files, float and double), the guarded load of four
 * neighbouring elements of an operand and the write of four neighbouring
 * results of one row of C (the CUDA-core kernels, sgemm_01 and sgemm_02),
 * the cp.async tile copies, multistage pipeline, grouped block order and
 * paired stores of C of the mma.sync kernels (sgemm_03, dgemm_01), and
 * launches under a predecessor's tail (wgmma, small, the split sum). */
#ifndef TB_KERNEL_COMMON_CUH
#define TB_KERNEL_COMMON_CUH
#include "tb_kernel_args.cuh"
#include <stdint.h>

/* BLAS: alpha == 0 or k == 0 gives C = beta * C without reading A or B, so
 * the kernels see k = 0 and never touch A or B then. Args: tb_gemm_args or
 * tb_dgemm_args. */
template <typename Args> static inline Args tb_args_blas(const Args *args)
{
    Args g = *args;
    if (g.alpha == 0 || g.k <= 0) {
        g.alpha = 0;
        g.k = 0;
    }
    return g;
}

/* A 16-byte vector access is legal when the base is 16-byte aligned and the
 * stride keeps every row so (the tile offsets are multiples of 16 bytes):
 * tb_rows16 (tb_kernels.h) for elements of elem bytes, which the registry
 * also asks when it plans aligned copies (tb_kernel_plan), and tb_vec_ok
 * for floats. The CUDA-core kernels read such operands in float4 loads,
 * the mma.sync kernels in 16-byte cp.async copies, wgmma's split in shared
 * memory through TMA. */

static inline int tb_vec_ok(const void *p, size_t ld)
{
    return tb_rows16(p, ld, sizeof(float));
}

/* Load one group of 4 consecutive elements along the contiguous dimension of
 * a row-major operand X: row `r`, columns c..c+3, of which only columns
 * < ncols and rows < nrows exist. A float4 load when the operand is 16-byte
 * aligned (base and stride, checked once by the launcher: tb_vec_ok) and the
 * whole group is inside; otherwise up to four scalar loads, with zeros
 * outside. Zeros contribute nothing to the products, so the inner loop
 * needs no tests. */
__device__ __forceinline__ float4 tb_load4(const float *X, size_t ld, int vec, int r, int c,
                                           int nrows, int ncols)
{
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r >= nrows)
        return v;
    const float *p = X + (size_t)r * ld + c;
    if (vec && c + 3 < ncols)
        return *reinterpret_cast<const float4 *>(p);
    if (c + 0 < ncols) v.x = p[0];
    if (c + 1 < ncols) v.y = p[1];
    if (c + 2 < ncols) v.z = p[2];
    if (c + 3 < ncols) v.w = p[3];
    return v;
}

/* C[row][col..col+3] = alpha * acc[0..3] + beta * C, for the columns < n.
 * One float4 store when C is 16-byte aligned (vec_c) and the group is
 * inside; scalar stores otherwise. beta == 0 never reads C, so NaN there
 * cannot leak into the result. */
__device__ __forceinline__ void tb_store4(const tb_gemm_args &g, int row, int col,
                                          const float *acc, int vec_c)
{
    float *c = g.C + (size_t)row * g.ldc + col;
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
        v[j] = g.alpha * acc[j];
    if (vec_c && col + 3 < g.n) {
        float4 o = make_float4(v[0], v[1], v[2], v[3]);
        if (g.beta != 0.f) {
            float4 old = *reinterpret_cast<float4 *>(c);
            o.x += g.beta * old.x; o.y += g.beta * old.y;
            o.z += g.beta * old.z; o.w += g.beta * old.w;
        }
        *reinterpret_cast<float4 *>(c) = o;
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (col + j < g.n)
                c[j] = (g.beta == 0.f) ? v[j] : v[j] + g.beta * c[j];
    }
}

/* The launch the CUDA-core kernels share: a 1-D grid of bm x bn tiles of C,
 * `threads` per block, and one instantiation of the kernel per pair of
 * transposes (kern: NN, NT, TN, TT), each taking (args, vec_a, vec_b, vec_c,
 * blocks along n). */
typedef void (*tb_tile_kernel)(tb_gemm_args, int, int, int, int);

static inline cudaError_t tb_launch_tiles(const tb_gemm_args *args, int bm, int bn, int threads,
                                          const tb_tile_kernel kern[4], cudaStream_t stream)
{
    if (args->m <= 0 || args->n <= 0)
        return cudaSuccess;
    const tb_gemm_args g = tb_args_blas(args);
    const int nblk_m = (g.m + bm - 1) / bm, nblk_n = (g.n + bn - 1) / bn;
    const long long blocks = (long long)nblk_m * nblk_n;
    if (blocks > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    const int va = tb_vec_ok(g.A, g.lda), vb = tb_vec_ok(g.B, g.ldb), vc = tb_vec_ok(g.C, g.ldc);
    const tb_tile_kernel k = kern[(g.transa ? 2 : 0) + (g.transb ? 1 : 0)];
    k<<<(unsigned)blocks, threads, 0, stream>>>(g, va, vb, vc, nblk_n);
    return cudaGetLastError();
}

/* ---- the mma.sync kernels: cp.async tiles and the pipeline ------------- */

/* One cp.async (sm_80) of BYTES = 4, 8 or 16 bytes from global to shared
 * memory: the copy engine writes shared memory directly, no registers, no
 * waiting thread. src_bytes < BYTES reads that many and zero-fills the rest
 * (0: reads nothing, writes zeros). 16-byte copies take .cg, which skips L1
 * (each tile is read once per block); 4 and 8 must take .ca. */
template <int BYTES>
__device__ __forceinline__ void tb_cp_async(void *dst, const void *src, int src_bytes)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
                     "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src),
                     "n"(BYTES), "r"(src_bytes));
}
__device__ __forceinline__ void tb_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void tb_cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* Copy one ROWS x COLS tile of a row-major operand X of element type T,
 * whose top left is (r0, c0) and which has nrows x ncols elements, into
 * shared memory with stride SLD (elements), NT threads sharing the work.
 * Aligned operands (vec: 16-byte aligned rows, tb_rows16): one 16-byte
 * cp.async per chunk of E = 16 / sizeof(T) elements along the contiguous
 * dimension, a zero-filling 16-byte copy for chunks past the last row, and
 * E predicated element copies for a chunk cut by the last column.
 * Unaligned operands (odd strides like 4097): element copies mapped so that
 * consecutive lanes read consecutive addresses (coalesced). Elements outside
 * the matrix become zeros, so the MMAs need no tests. */
template <typename T, int ROWS, int COLS, int SLD, int NT>
__device__ __forceinline__ void tb_load_tile(T *s, const T *X, size_t ld, int vec, int r0, int c0,
                                             int nrows, int ncols, int tid)
{
    constexpr int E = 16 / sizeof(T), B = sizeof(T);
    if (vec) {
        /* Thread tid always copies the same chunk column, in rows rb,
         * rb + RSTEP, ...: one running pointer instead of one per chunk
         * (registers). */
        constexpr int GPR = COLS / E;                 /* chunks per row */
        constexpr int RSTEP = NT / GPR, ITER = ROWS / RSTEP;
        const int rb = tid / GPR, c = (tid % GPR) * E, gc = c0 + c;
        const T *src = X + (size_t)(r0 + rb) * ld + gc;
        T *d = s + rb * SLD + c;
#pragma unroll
        for (int it = 0; it < ITER; it++, src += RSTEP * ld, d += RSTEP * SLD) {
            const int gr = r0 + rb + it * RSTEP;
            if (gr < nrows && gc + E - 1 < ncols) {
                tb_cp_async<16>(d, src, 16);
            } else if (gr < nrows) {
#pragma unroll
                for (int e = 0; e < E; e++)
                    tb_cp_async<B>(d + e, gc + e < ncols ? src + e : X, gc + e < ncols ? B : 0);
            } else {
                tb_cp_async<16>(d, X, 0);
            }
        }
    } else {
        constexpr int ITER = ROWS * COLS / NT;
#pragma unroll 4
        for (int it = 0; it < ITER; it++) {
            const int q = it * NT + tid, r = q / COLS, c = q % COLS;
            const int gr = r0 + r, gc = c0 + c;
            const bool in = gr < nrows && gc < ncols;
            tb_cp_async<B>(s + r * SLD + c, in ? X + (size_t)gr * ld + gc : X, in ? B : 0);
        }
    }
}

/* The K loop of the mma.sync kernels: STAGES slices in flight through
 * cp.async. load(stage, kt) issues the copies of slice kt into buffer
 * `stage`; compute(stage, kt) multiplies the slice in that buffer. */
template <int STAGES, typename Load, typename Compute>
__device__ __forceinline__ void tb_cp_pipeline(int ktiles, Load load, Compute compute)
{
    /* Prologue: STAGES-1 slices in flight. A group is committed even when
     * there is no slice to load, so that the wait below counts uniformly. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles)
            load(s, s);
        tb_cp_async_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        /* Groups committed so far: STAGES-1+kt. Allowing STAGES-2 pending
         * means this thread's copies of slice kt have landed ... */
        tb_cp_async_wait<STAGES - 2>();
        /* ... and this barrier makes everyone's copies visible to all. It
         * also proves that every warp has finished slice kt-1, whose buffer
         * (kt-1) % STAGES is refilled just below. One barrier per slice. */
        __syncthreads();
        {
            const int nk = kt + STAGES - 1;
            if (nk < ktiles)
                load(nk % STAGES, nk);
            tb_cp_async_commit();
        }
        compute(kt % STAGES, kt);
    }
    tb_cp_async_wait<0>();   /* nothing may still write shared memory at exit */
}

/* Grouped launch order: consecutive blocks walk down a group of 8 block rows
 * before moving right, so the ~132 resident blocks share 8 row panels of A
 * and ~17 column panels of B in L2 instead of 2 and 64. Block pid of a
 * nblk_m x nblk_n grid gets tile row *tm and tile column *tn. */
__device__ __forceinline__ void tb_grouped_tile(int pid, int nblk_m, int nblk_n, int &tm, int &tn)
{
    const int GROUP = 8;
    const int width = GROUP * nblk_n;
    const int first_m = (pid / width) * GROUP;
    const int gsize = min(nblk_m - first_m, GROUP);
    tm = first_m + (pid % width) % gsize;
    tn = (pid % width) / gsize;
}

/* Two neighbouring results of one row of C, c[0] = v0 and c[1] = v1 (the
 * second only when col + 1 < n), plus beta times the old values: one
 * 2-element vector store when vec (an aligned pair), scalar stores
 * otherwise. beta == 0 never reads C, so NaN there cannot leak. */
template <typename T> struct tb_pair;
template <> struct tb_pair<float> { typedef float2 type; };
template <> struct tb_pair<double> { typedef double2 type; };

template <typename T>
__device__ __forceinline__ void tb_store2(T *c, int col, int n, const T v[2], T beta, int vec)
{
    typedef typename tb_pair<T>::type T2;
    if (vec && col + 1 < n) {
        T2 o = {v[0], v[1]};
        if (beta != T(0)) {
            const T2 old = *reinterpret_cast<T2 *>(c);
            o.x += beta * old.x;
            o.y += beta * old.y;
        }
        *reinterpret_cast<T2 *>(c) = o;
    } else {
        c[0] = (beta == T(0)) ? v[0] : v[0] + beta * c[0];
        if (col + 1 < n)
            c[1] = (beta == T(0)) ? v[1] : v[1] + beta * c[1];
    }
}

/* Over 48 KB of dynamic shared memory must be requested per kernel and
 * device (cudaFuncSetAttribute); set[dev] remembers it. Setting it twice is
 * harmless, so a racy flag is fine. */
#define TB_ATTR_MAX_DEV 64
template <typename F>
static cudaError_t tb_smem_attr(F kern, int bytes, int dev, volatile int *set)
{
    if (dev >= 0 && dev < TB_ATTR_MAX_DEV && set[dev])
        return cudaSuccess;
    cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e == cudaSuccess && dev >= 0 && dev < TB_ATTR_MAX_DEV)
        set[dev] = 1;
    return e;
}

/* Programmatic dependent launch (sm_90), along a chain of kernels on one
 * stream (wgmma's pre-pass -> main kernel -> split K's sum; the small
 * kernel -> the split sum): a kernel lets the next one launch once all of
 * its own blocks are running (tb_pdl_trigger), and the next one waits for
 * it to finish, its writes visible, before it touches memory
 * (tb_pdl_wait). So a kernel's launch and set-up overlap its predecessor's
 * last wave. Both are no-ops where the launch did not ask for it
 * (tb_pdl_config), the predecessor does not trigger (it then counts as
 * triggered when it ends), or the GPU has no such thing. */
__device__ __forceinline__ void tb_pdl_trigger()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void tb_pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

/* A launch of grid x block threads with smem bytes of dynamic shared memory
 * on stream for cudaLaunchKernelEx, allowed to start under its
 * predecessor's tail where the current GPU can (9.0 and later; a plain
 * launch otherwise); attr is the storage of its one attribute. */
static inline cudaLaunchConfig_t tb_pdl_config(dim3 grid, dim3 block, size_t smem,
                                               cudaStream_t stream, cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    int dev = 0, major = 0, minor = 0, smem_optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || !tb_device_caps(dev, &major, &minor, &smem_optin)) {
        cudaGetLastError();
        major = 0;
    }
    attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr->val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = major >= 9 ? 1 : 0;
    return cfg;
}

#endif
