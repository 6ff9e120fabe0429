/* kernels/gemm_00_tiled16.cu - the seed kernel, kept as the readable
 * reference: one thread per element of C, BLOCK x BLOCK thread blocks, a phase
 * loop over K through shared memory. One template body for float ("tiled16"),
 * double ("dtiled16"), complex float ("ctiled16") and complex double
 * ("ztiled16"); every faster kernel of each type is checked against the same
 * host reference as this one; this one is never tuned. The complex ones take
 * no scratch: a caller held to a device memory cap runs them, and the
 * realify launcher does when the pool has no room for its B''. */
#include "tb_kernel_args.cuh"

#define BLOCK 16

/* Element (i, p) of op(X), where X is row-major with stride ld: trans 0 X,
 * 1 X^T, 2 X^H (complex; X^T for the real types). Reading the transposed
 * operand here, in the tile load, is what lets every layout and transpose
 * run without a host-side copy. */
template <typename T>
__device__ __forceinline__ T tb_op(const T *X, size_t ld, int trans, int i, int p)
{
    return trans ? tb_conj_if(X[(size_t)p * ld + i], trans == 2) : X[(size_t)i * ld + p];
}

/*
 * The mapping, in the seed's terms:
 *   block (blockIdx.x, blockIdx.y) owns the BLOCK x BLOCK tile of C whose top
 *   left corner is (row, col) = (blockIdx.y*BLOCK, blockIdx.x*BLOCK);
 *   thread (threadIdx.y, threadIdx.x) = (ty, tx) owns C[row+ty][col+tx].
 * Phase ph walks along K: the block loads the BLOCK x BLOCK tile of A's row
 * panel at columns ph*BLOCK.. and the tile of B's column panel at rows
 * ph*BLOCK.. into shared memory, each thread loading one element of each, then
 * every thread combines row ty of the A tile with column tx of the B tile.
 * T is the element type (float, double, tb_cx<float> or tb_cx<double>),
 * Args the matching tb_gemm_args, tb_dgemm_args, tb_cgemm_args or
 * tb_zgemm_args.
 */
template <typename T, typename Args>
__global__ void tb_tiled16_kernel(Args g)
{
    __shared__ T As[BLOCK][BLOCK];
    __shared__ T Bs[BLOCK][BLOCK];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * BLOCK + ty;
    const int col = blockIdx.x * BLOCK + tx;
    const int phases = (g.k + BLOCK - 1) / BLOCK;

    T sum = 0;
    for (int ph = 0; ph < phases; ph++) {
        const int a_col = ph * BLOCK + tx;   /* column of A this thread loads */
        const int b_row = ph * BLOCK + ty;   /* row of B this thread loads    */
        /* Ragged edges: a thread whose element lies outside the matrix loads
         * a zero, so the product below needs no bounds test of its own. */
        As[ty][tx] = (row < g.m && a_col < g.k) ? tb_op(g.A, g.lda, g.transa, row, a_col) : T(0);
        Bs[ty][tx] = (b_row < g.k && col < g.n) ? tb_op(g.B, g.ldb, g.transb, b_row, col) : T(0);
        /* Barrier 1: no thread may read the tiles before all of them are in. */
        __syncthreads();
        for (int p = 0; p < BLOCK; p++)
            sum += As[ty][p] * Bs[p][tx];
        /* Barrier 2: no thread may overwrite the tiles in the next phase while
         * another is still reading them in this one. */
        __syncthreads();
    }

    if (row < g.m && col < g.n) {
        T *c = &g.C[(size_t)row * g.ldc + col];
        /* beta == 0: C is write-only, so NaN or garbage in C cannot leak. */
        *c = (g.beta == T(0)) ? tb_scale(g.alpha, sum)
                              : tb_scale(g.alpha, sum) + tb_scale(g.beta, *c);
    }
}

template <typename T, typename Args>
static cudaError_t tb_tiled16_launch(const Args *args, cudaStream_t stream)
{
    if (args->m <= 0 || args->n <= 0)
        return cudaSuccess;
    Args g = *args;
    if (g.alpha == T(0))
        g.k = 0;              /* BLAS: alpha == 0 never reads A or B */
    dim3 threads(BLOCK, BLOCK);
    dim3 blocks((g.n + BLOCK - 1) / BLOCK, (g.m + BLOCK - 1) / BLOCK);
    if (blocks.y > 65535u)
        return cudaErrorInvalidConfiguration;   /* m > 1048560: caller falls back */
    tb_tiled16_kernel<T, Args><<<blocks, threads, 0, stream>>>(g);
    return cudaGetLastError();
}

/* "tiled16", "dtiled16", "ctiled16", "ztiled16": the entry's element type
 * picks the instance. */
extern "C" cudaError_t tb_launch_tiled16(const tb_gemm *g, cudaStream_t stream)
{
    switch (g->dtype) {
    case TB_F32: {
        const tb_gemm_args a = tb_args_of<float>(g);
        return tb_tiled16_launch<float>(&a, stream);
    }
    case TB_F64: {
        const tb_dgemm_args a = tb_args_of<double>(g);
        return tb_tiled16_launch<double>(&a, stream);
    }
    case TB_C32: {
        const tb_cgemm_args a = tb_args_of<tb_cx<float>>(g);
        return tb_tiled16_launch<tb_cx<float>>(&a, stream);
    }
    case TB_C64: {
        const tb_zgemm_args a = tb_args_of<tb_cx<double>>(g);
        return tb_tiled16_launch<tb_cx<double>>(&a, stream);
    }
    default:
        return cudaErrorInvalidValue;
    }
}
