/* kernels/sgemm_01_regblock.cu - step 1 of the progression: register blocking.
 * Each thread owns an 8x8 micro-tile of C held in registers, the block a
 * 128x128 tile; tiles move through shared memory in 128-bit loads where the
 * operand is aligned, scalar predicated loads elsewhere. Any shape, stride,
 * transpose and alignment; no allocation, no synchronisation with the host. */
#include "tb_kernel_common.cuh"

/*
 * Why register blocking: the seed does one FMA per two shared-memory loads, so
 * shared memory, not arithmetic, sets its speed. Here a thread loads 8 values
 * of A and 8 of B per k step and does 8 x 8 = 64 FMAs with them: 4 FMAs per
 * load. The 128x128 block tile also cuts global traffic per FMA by 8x versus
 * 16x16 tiles.
 *
 * Tiling: BM x BN = 128 x 128, BK = 8, 256 threads as a 16 x 16 grid. Thread
 * (ty, tx) owns rows {ty*4 + r, 64 + ty*4 + r} and columns {tx*4 + c,
 * 64 + tx*4 + c} (r, c in 0..3): two groups of four, not eight in a row, so
 * that the 16 lanes reading B read 16 consecutive float4s (no bank conflict)
 * rather than every other one.
 */
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NTHREADS 256
/* As is stored k-major (As[p][i]) so a thread reads its 4 rows of A as one
 * float4. Rows of As are padded by 4 floats: the transposing store of the
 * row-major A tile then spreads over all 32 banks instead of colliding 2-way. */
#define AS_LD (BM + 4)
#define BS_LD (BN + 4)

/* Tiles come in as groups of 4 consecutive elements along the contiguous
 * dimension of the stored operand: tb_load4 (tb_kernel_common.cuh) reads a
 * float4 when the operand is 16-byte aligned and the group is inside, else
 * predicated scalars, with zeros outside the matrix. Zeros contribute
 * nothing to the products, so the inner loop needs no tests. */

template <int TA, int TB>
__global__ void __launch_bounds__(NTHREADS)
tb_regblock_kernel(tb_gemm_args g, int vec_a, int vec_b, int vec_c, int nblk_n)
{
    __shared__ __align__(16) float As[BK][AS_LD];
    __shared__ __align__(16) float Bs[BK][BS_LD];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    /* A 1-D grid (no 65535 limit on either dimension): block b owns tile
     * (b / nblk_n, b % nblk_n). Neighbouring blocks share a row panel of A. */
    const int bm = (int)(blockIdx.x / nblk_n) * BM;
    const int bn = (int)(blockIdx.x % nblk_n) * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.f;

    for (int k0 = 0; k0 < g.k; k0 += BK) {
        /* Each thread loads one group of 4 of the A tile and one of the B tile
         * (128 x 8 = 1024 elements = 256 groups each). The group runs along
         * whichever dimension is contiguous in memory, so global loads are
         * coalesced whatever the transpose; the store into shared memory does
         * the transposing. */
        if (!TA) {            /* A is m x k: group = 4 consecutive p of row i */
            const int i = tid / 2, p = (tid % 2) * 4;
            float4 v = tb_load4(g.A, g.lda, vec_a, bm + i, k0 + p, g.m, g.k);
            As[p + 0][i] = v.x; As[p + 1][i] = v.y; As[p + 2][i] = v.z; As[p + 3][i] = v.w;
        } else {              /* A is k x m: group = 4 consecutive i of row p */
            const int p = tid / 32, i = (tid % 32) * 4;
            *reinterpret_cast<float4 *>(&As[p][i]) =
                tb_load4(g.A, g.lda, vec_a, k0 + p, bm + i, g.k, g.m);
        }
        if (!TB) {            /* B is k x n: group = 4 consecutive j of row p */
            const int p = tid / 32, j = (tid % 32) * 4;
            *reinterpret_cast<float4 *>(&Bs[p][j]) =
                tb_load4(g.B, g.ldb, vec_b, k0 + p, bn + j, g.k, g.n);
        } else {              /* B is n x k: group = 4 consecutive p of row j */
            const int j = tid / 2, p = (tid % 2) * 4;
            float4 v = tb_load4(g.B, g.ldb, vec_b, bn + j, k0 + p, g.n, g.k);
            Bs[p + 0][j] = v.x; Bs[p + 1][j] = v.y; Bs[p + 2][j] = v.z; Bs[p + 3][j] = v.w;
        }
        /* Barrier 1: the tiles are complete before anyone reads them. */
        __syncthreads();

#pragma unroll
        for (int p = 0; p < BK; p++) {
            /* 4 LDS.128 feed 64 FMAs. Lanes with the same ty read the same
             * address of As (a broadcast); the 16 values of tx read 16
             * consecutive float4s of Bs, one shared-memory wavefront each. */
            float a[TM], b[TN];
            *reinterpret_cast<float4 *>(&a[0]) = *reinterpret_cast<const float4 *>(&As[p][ty * 4]);
            *reinterpret_cast<float4 *>(&a[4]) = *reinterpret_cast<const float4 *>(&As[p][64 + ty * 4]);
            *reinterpret_cast<float4 *>(&b[0]) = *reinterpret_cast<const float4 *>(&Bs[p][tx * 4]);
            *reinterpret_cast<float4 *>(&b[4]) = *reinterpret_cast<const float4 *>(&Bs[p][64 + tx * 4]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        /* Barrier 2: everyone is done reading before the next phase
         * overwrites the tiles (one buffer only; step 2 removes this). */
        __syncthreads();
    }

    /* Epilogue: C = alpha*acc + beta*C, four columns at a time
     * (tb_kernel_common.cuh). beta == 0 never reads C, so NaN there cannot leak
     * into the result. */
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int row = bm + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (row >= g.m)
            continue;
#pragma unroll
        for (int half = 0; half < 2; half++)
            tb_store4(g, row, bn + half * 64 + tx * 4, &acc[i][half * 4], vec_c);
    }
}

extern "C" cudaError_t tb_launch_regblock(const tb_gemm *g, cudaStream_t stream)
{
    static const tb_tile_kernel kern[4] = {tb_regblock_kernel<0, 0>, tb_regblock_kernel<0, 1>,
                                           tb_regblock_kernel<1, 0>, tb_regblock_kernel<1, 1>};
    const tb_gemm_args a = tb_args_of<float>(g);
    return tb_launch_tiles(&a, BM, BN, NTHREADS, kern, stream);
}
