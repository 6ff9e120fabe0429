/* kernels/tb_kernel_common.cuh - what the kernels share around their main
 * loops: the launchers' reading of the BLAS rules and of operand alignment
 * (every kernel file and run.cu), the guarded load of four neighbouring
 * elements of an operand and the write of four neighbouring results of one
 * row of C (the CUDA-core kernels, sgemm_01 and sgemm_02). */
#ifndef TB_KERNEL_COMMON_CUH
#define TB_KERNEL_COMMON_CUH
#include "tb_kernels.h"
#include <stdint.h>

/* BLAS: alpha == 0 or k == 0 gives C = beta * C without reading A or B, so
 * the kernels see k = 0 and never touch A or B then. */
static inline tb_gemm_args tb_args_blas(const tb_gemm_args *args)
{
    tb_gemm_args g = *args;
    if (g.alpha == 0.0f || g.k <= 0) {
        g.alpha = 0.0f;
        g.k = 0;
    }
    return g;
}

/* A 16-byte vector access is legal when the base is 16-byte aligned and the
 * stride keeps every row so (the tile offsets are multiples of 4 elements). */
static inline int tb_vec_ok(const void *p, size_t ld)
{
    return ((uintptr_t)p % 16 == 0) && (ld % 4 == 0);
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
#endif
