/* kernels/sgemm_02_warptile.cu - step 2: warp tiling and double buffering.
 * The 128x128 block tile is cut into eight 64x32 warp tiles, each thread an
 * 8x8 micro-tile inside its warp's tile; the next K slice is fetched into
 * registers while the current one is multiplied, so one barrier per slice
 * remains. Any shape, stride, transpose and alignment. */
#include "tb_kernel_common.cuh"

/*
 * What changes from step 1 and why:
 * - BK = 16 instead of 8: twice the FMAs per barrier and per tile load.
 * - Warp tiles: warp w owns rows wm..wm+63, columns wn..wn+31 of the block
 *   tile (warps laid out 2 x 4). Lane (lm, ln) = (lane / 4, lane % 4) owns
 *   rows wm + sm*32 + lm*4 + {0..3} and columns wn + sn*16 + ln*4 + {0..3}
 *   for sm, sn in {0, 1}. A warp then reads only 64 rows of As and 32
 *   columns of Bs per k step (8 and 4 distinct float4s per instruction: one
 *   shared-memory wavefront each), and its 32 lanes touch a compact 64x32
 *   patch of C, which keeps the register-level reuse of step 1 and improves
 *   shared-memory locality per warp.
 * - Double buffering: while the block multiplies slice kt out of buffer
 *   kt % 2, each thread already holds slice kt+1 in registers (global loads
 *   in flight during the FMAs) and stores it into the other buffer after.
 */
#define BM 128
#define BN 128
#define BK 16
#define WM 64
#define WN 32
#define NTHREADS 256
#define AS_LD (BM + 4)   /* padding: see the store of a row-major A tile */
#define BS_LD (BN + 4)

/* Fetch slice k0 of op(A) and op(B) into registers: 128 x 16 = 512 groups of
 * four per operand, two per thread, each group along the contiguous
 * dimension of the stored matrix so that the loads are coalesced. */
template <int TA, int TB>
__device__ __forceinline__ void fetch(const tb_gemm_args &g, int vec_a, int vec_b, int bm, int bn,
                                      int k0, int tid, float4 ra[2], float4 rb[2])
{
#pragma unroll
    for (int it = 0; it < 2; it++) {
        const int q = it * NTHREADS + tid;
        if (!TA) ra[it] = tb_load4(g.A, g.lda, vec_a, bm + q / 4, k0 + (q % 4) * 4, g.m, g.k);
        else     ra[it] = tb_load4(g.A, g.lda, vec_a, k0 + q / 32, bm + (q % 32) * 4, g.k, g.m);
        if (!TB) rb[it] = tb_load4(g.B, g.ldb, vec_b, k0 + q / 32, bn + (q % 32) * 4, g.k, g.n);
        else     rb[it] = tb_load4(g.B, g.ldb, vec_b, bn + q / 4, k0 + (q % 4) * 4, g.n, g.k);
    }
}

/* Store the fetched slice k-major: As[p][i], Bs[p][j]. Groups that ran along
 * k are transposed here, one scalar at a time (a 2-way bank conflict on 8
 * stores per slice, against 16 x 64 FMAs: not worth a swizzle). */
template <int TA, int TB>
__device__ __forceinline__ void stash(float (*As)[AS_LD], float (*Bs)[BS_LD], int tid,
                                      const float4 ra[2], const float4 rb[2])
{
#pragma unroll
    for (int it = 0; it < 2; it++) {
        const int q = it * NTHREADS + tid;
        if (!TA) {
            const int i = q / 4, p = (q % 4) * 4;
            As[p + 0][i] = ra[it].x; As[p + 1][i] = ra[it].y;
            As[p + 2][i] = ra[it].z; As[p + 3][i] = ra[it].w;
        } else {
            *reinterpret_cast<float4 *>(&As[q / 32][(q % 32) * 4]) = ra[it];
        }
        if (!TB) {
            *reinterpret_cast<float4 *>(&Bs[q / 32][(q % 32) * 4]) = rb[it];
        } else {
            const int j = q / 4, p = (q % 4) * 4;
            Bs[p + 0][j] = rb[it].x; Bs[p + 1][j] = rb[it].y;
            Bs[p + 2][j] = rb[it].z; Bs[p + 3][j] = rb[it].w;
        }
    }
}

template <int TA, int TB>
__global__ void __launch_bounds__(NTHREADS)
tb_warptile_kernel(tb_gemm_args g, int vec_a, int vec_b, int vec_c, int nblk_n)
{
    __shared__ __align__(16) float As[2][BK][AS_LD];
    __shared__ __align__(16) float Bs[2][BK][BS_LD];

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int bm = (int)(blockIdx.x / nblk_n) * BM;
    const int bn = (int)(blockIdx.x % nblk_n) * BN;
    const int wm = (warp / 4) * WM, wn = (warp % 4) * WN;
    const int lm = lane / 4, ln = lane % 4;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.f;

    const int ktiles = (g.k + BK - 1) / BK;
    float4 ra[2], rb[2];
    if (ktiles > 0) {
        fetch<TA, TB>(g, vec_a, vec_b, bm, bn, 0, tid, ra, rb);
        stash<TA, TB>(As[0], Bs[0], tid, ra, rb);
    }
    /* Barrier: slice 0 is in buffer 0 before anyone multiplies it. */
    __syncthreads();

    for (int kt = 0; kt < ktiles; kt++) {
        const int cur = kt & 1;
        const bool more = kt + 1 < ktiles;
        /* Issue the global loads of the next slice now; their latency hides
         * behind the 16 x 64 FMAs below. */
        if (more)
            fetch<TA, TB>(g, vec_a, vec_b, bm, bn, (kt + 1) * BK, tid, ra, rb);

#pragma unroll
        for (int p = 0; p < BK; p++) {
            float a[8], b[8];
#pragma unroll
            for (int s = 0; s < 2; s++) {
                *reinterpret_cast<float4 *>(&a[s * 4]) =
                    *reinterpret_cast<const float4 *>(&As[cur][p][wm + s * 32 + lm * 4]);
                *reinterpret_cast<float4 *>(&b[s * 4]) =
                    *reinterpret_cast<const float4 *>(&Bs[cur][p][wn + s * 16 + ln * 4]);
            }
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }

        /* The other buffer was last read in iteration kt-1, and everyone
         * passed the barrier at its end, so it is free to overwrite. */
        if (more)
            stash<TA, TB>(As[cur ^ 1], Bs[cur ^ 1], tid, ra, rb);
        /* The one barrier per slice: it publishes slice kt+1 and guarantees
         * that nobody still reads buffer `cur` when iteration kt+1 writes it. */
        __syncthreads();
    }

    /* Epilogue: four contiguous columns at a time (tb_kernel_common.cuh); beta == 0
     * never reads C. */
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int row = bm + wm + (i / 4) * 32 + lm * 4 + (i % 4);
        if (row >= g.m)
            continue;
#pragma unroll
        for (int s = 0; s < 2; s++)
            tb_store4(g, row, bn + wn + s * 16 + ln * 4, &acc[i][s * 4], vec_c);
    }
}

extern "C" cudaError_t tb_launch_warptile(const tb_gemm *g, cudaStream_t stream)
{
    static const tb_tile_kernel kern[4] = {tb_warptile_kernel<0, 0>, tb_warptile_kernel<0, 1>,
                                           tb_warptile_kernel<1, 0>, tb_warptile_kernel<1, 1>};
    const tb_gemm_args a = tb_args_of<float>(g);
    return tb_launch_tiles(&a, BM, BN, NTHREADS, kern, stream);
}
