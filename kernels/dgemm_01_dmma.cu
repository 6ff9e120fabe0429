/* kernels/dgemm_01_dmma.cu - double precision, step 1: FP64 tensor cores.
 * mma.sync with f64 operands (m16n8k16 on compute capability 9.0 and later,
 * m8n8k4 on 8.x), a multistage cp.async pipeline, padded shared memory.
 * Registry entries "dmma" (the fp64 default) and "dmma-884" (m8n8k4 on
 * every GPU). Any shape, stride, transpose, alignment; plain fp64. */
#include "tb_kernel_common.cuh"

/*
 * Why: the H200 multiplies fp64 at about 67 TFLOP/s on its tensor cores
 * and half that on its CUDA cores (FP64 FMA). There is no wgmma for f64, so
 * mma.sync is the way in. Every product and sum is IEEE fp64 (round to
 * nearest), nothing is split or emulated: the result is an fp64 GEMM with
 * its own summation order, as cuBLAS DGEMM's is.
 *
 * The instruction: Ampere (sm_80) has one f64 shape, m8n8k4: 256 FMAs, A
 * and B one register pair each per thread, C two. Hopper (sm_90) adds
 * m16n8k4, m16n8k8 and m16n8k16; m16n8k16 does 2048 FMAs per instruction
 * from 8 + 4 doubles of A and B and 4 of C per thread, 8 times the work of
 * an m8n8k4 for 3 times its operand registers. The kernel works in m16n8k16
 * fragments everywhere; below sm_90 (and in "dmma-884") each becomes eight
 * m8n8k4, which read the same registers (tb_dmma16).
 *
 * Tiling: block tile BM x 128 (BM = 128 with 8 warps; BM = 64 with 4 warps
 * and two blocks per SM for grids of 128-row tiles that would leave SMs
 * idle), BK = 16: one m16n8k16 deep. Warp tile 64 x 32 = 4 x 4 MMA tiles of
 * 16 x 8: 64 accumulators, 128 registers, per thread. A 128 x 128 block
 * tile is as large as the register file allows: its accumulators are
 * 32768 registers, half of an SM's. Per slice of 16 it reads 2 x 128 x 16
 * doubles (32 KB) for 262144 FMAs: 16 bytes of L2 traffic per SM per clock
 * at 128 FMAs per clock, about 4 TB/s over 132 SMs.
 *
 * Shared memory holds each operand in its global layout (no transposition
 * on the way in, so cp.async copies 16 bytes = 2 doubles along the
 * contiguous dimension for all four transpose cases); the transposition
 * happens in the fragment reads. Those are 8-byte loads, and a half-warp's
 * 16 loads are one conflict-free wavefront when their 16 doubles fall in
 * distinct 8-byte bank pairs (address mod 16 doubles). Lane (g, t) = (lane
 * / 4, lane % 4) reads A(g, t + 4u) and B(t + 4u, g): rows of 16 (BK) are
 * padded to 20 and rows of 64 or 128 to 68 or 132, all 4 mod 16, so the
 * reads land on 4g + t or 4t + g, 16 distinct pairs. 20 and 132 doubles
 * keep rows 16-byte aligned for cp.async.
 *
 * Pipeline: STAGES slices in flight (tb_cp_pipeline): 4 for 128-row tiles
 * (160 KB of shared memory at most, which the A100's 163 KB allows), 3 for
 * 64-row tiles (90 KB, two blocks per SM). Each slice is 2048 clocks of
 * tensor work per SM, so three slices ahead cover any L2 or DRAM latency.
 */
#define BN 128
#define WM 64
#define WN 32
#define MT (WM / 16)     /* m16 tiles per warp */
#define NTL (WN / 8)     /* n8 tiles per warp  */

/* Padded strides of the shared tiles, in doubles: +4 on every row (see
 * above). A is BM x BK (TA = 0) or BK x BM (TA = 1); B is BK x BN (TB = 0)
 * or BN x BK (TB = 1). */
template <int TA, int BM, int BK> struct tb_dlay {
    static constexpr int A_LD = TA ? BM + 4 : BK + 4;
    static constexpr int A_SZ = TA ? BK * (BM + 4) : BM * (BK + 4);
};
template <int TB, int BK> struct tb_dlayb {
    static constexpr int B_LD = TB ? BK + 4 : BN + 4;
    static constexpr int B_SZ = TB ? BN * (BK + 4) : BK * (BN + 4);
};

/* A tiling: BM-row tiles (128 or 64), slices of BK (16 or 32), STAGES in
 * flight; the dynamic shared memory it takes for transposes TA, TB. */
template <int BM_, int BK_, int STAGES_> struct tb_dtile {
    static constexpr int BM = BM_, BK = BK_, STAGES = STAGES_;
    static constexpr int NT = (BM / WM) * (BN / WN) * 32;
    template <int TA, int TB> static constexpr size_t smem()
    {
        return (size_t)STAGES * (tb_dlay<TA, BM, BK>::A_SZ + tb_dlayb<TB, BK>::B_SZ) * sizeof(double);
    }
};
typedef tb_dtile<128, 16, 4> tb_dt128;     /* 160 KB at most: 8.0, 9.0, 10.x */
typedef tb_dtile<64, 16, 3> tb_dt64;       /* 90 KB, two blocks per SM       */
typedef tb_dtile<128, 32, 3> tb_dt128k32;  /* 216 KB: 9.0, 10.x              */

/* D += A * B on one 16 x 8 x 16 tile, fp64 accumulators in place. Fragment
 * of lane (g, t): a[2u + h] = A(g + 8h, t + 4u), b[u] = B(t + 4u, g),
 * d[2h + e] = D(g + 8h, 2t + e) (the PTX ISA's m16n8k16 .f64 layout).
 * m8n8k4 takes A(g, t), B(t, g) and D(g, 2t + e): the same registers,
 * eight instructions (rows g and g + 8, four k steps of 4). AMP forces
 * m8n8k4; below sm_90 there is nothing else. */
template <int AMP>
__device__ __forceinline__ void tb_dmma16(double d[4], const double a[8], const double b[4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr bool k16 = !AMP;
#else
    constexpr bool k16 = false;
#endif
    if constexpr (k16) {
        asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
            : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
              "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
    } else {
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                    : "+d"(d[2 * h]), "+d"(d[2 * h + 1])
                    : "d"(a[2 * u + h]), "d"(b[u]));
    }
}

/* One m16n8k16 step of a warp's 64 x 32 tile, pa and pb at this lane's
 * first A and B element of the step: all of the warp's B fragments (16
 * doubles), then one A fragment (8 doubles) at a time against them, 4 MMAs
 * per A fragment, so that the next fragment's loads overlap them. */
template <int TA, int TB, int A_LD, int B_LD, int AMP>
__device__ __forceinline__ void tb_dmma_step(double (&acc)[MT][NTL][4], const double *pa,
                                             const double *pb)
{
    double bf[NTL][4];
#pragma unroll
    for (int j = 0; j < NTL; j++)
#pragma unroll
        for (int u = 0; u < 4; u++)
            bf[j][u] = TB ? pb[j * 8 * B_LD + 4 * u] : pb[4 * u * B_LD + j * 8];
#pragma unroll
    for (int i = 0; i < MT; i++) {
        double af[8];
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                af[2 * u + h] = TA ? pa[4 * u * A_LD + i * 16 + h * 8]
                                   : pa[(i * 16 + h * 8) * A_LD + 4 * u];
#pragma unroll
        for (int j = 0; j < NTL; j++)
            tb_dmma16<AMP>(acc[i][j], af, bf[j]);
    }
}

template <int TA, int TB, typename L, int AMP>
__global__ void __launch_bounds__(L::NT, L::BM == 128 ? 1 : 2)
tb_dmma_kernel(tb_dgemm_args g, int vec_a, int vec_b, int vec_c, int nblk_m, int nblk_n)
{
    constexpr int BM = L::BM, BK = L::BK, NT = L::NT;
    constexpr int A_LD = tb_dlay<TA, BM, BK>::A_LD, A_SZ = tb_dlay<TA, BM, BK>::A_SZ;
    constexpr int B_LD = tb_dlayb<TB, BK>::B_LD, B_SZ = tb_dlayb<TB, BK>::B_SZ;
    extern __shared__ double2 tb_dsmem2[];
    double *smem = reinterpret_cast<double *>(tb_dsmem2);

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int gq = lane / 4, tq = lane % 4;       /* MMA (groupID, thread in group) */
    int tm, tn;
    tb_grouped_tile(blockIdx.x, nblk_m, nblk_n, tm, tn);
    const int bm = tm * BM, bn = tn * BN;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;

    double acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0;

    /* This lane's first fragment element in a stage: A(wm + g, t) and
     * B(t, wn + g); the others are compile-time offsets from there. */
    const int a_off = TA ? tq * A_LD + wm + gq : (wm + gq) * A_LD + tq;
    const int b_off = TB ? (wn + gq) * B_LD + tq : tq * B_LD + wn + gq;

    auto load_stage = [&](int stage, int kt) {
        double *sA = smem + stage * (A_SZ + B_SZ), *sB = sA + A_SZ;
        const int k0 = kt * BK;
        if (!TA) tb_load_tile<double, BM, BK, A_LD, NT>(sA, g.A, g.lda, vec_a, bm, k0, g.m, g.k, tid);
        else     tb_load_tile<double, BK, BM, A_LD, NT>(sA, g.A, g.lda, vec_a, k0, bm, g.k, g.m, tid);
        if (!TB) tb_load_tile<double, BK, BN, B_LD, NT>(sB, g.B, g.ldb, vec_b, k0, bn, g.k, g.n, tid);
        else     tb_load_tile<double, BN, BK, B_LD, NT>(sB, g.B, g.ldb, vec_b, bn, k0, g.n, g.k, tid);
    };

    tb_cp_pipeline<L::STAGES>((g.k + BK - 1) / BK, load_stage, [&](int stage, int) {
        const double *sA = smem + stage * (A_SZ + B_SZ);
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16)
            tb_dmma_step<TA, TB, A_LD, B_LD, AMP>(acc, sA + a_off + (TA ? kk * A_LD : kk),
                                                  sA + A_SZ + b_off + (TB ? kk : kk * B_LD));
    });

    /* Epilogue: accumulator element 2h + e of tile (i, j) is C(row, col)
     * with row = g + 8h, col = 2t + e: pairs of adjacent columns, written as
     * double2 where C's rows are 16-byte aligned. */
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int row = bm + wm + i * 16 + gq + h * 8;
            if (row >= g.m)
                continue;
#pragma unroll
            for (int j = 0; j < NTL; j++) {
                const int col = bn + wn + j * 8 + tq * 2;
                if (col >= g.n)
                    continue;
                const double v[2] = {g.alpha * acc[i][j][2 * h], g.alpha * acc[i][j][2 * h + 1]};
                tb_store2(g.C + (size_t)row * g.ldc + col, col, g.n, v, g.beta, vec_c);
            }
        }
}

/* ---- host side ---------------------------------------------------------- */

template <int TA, int TB, typename L, int AMP>
static cudaError_t tb_dmma_go(const tb_dgemm_args &g, int va, int vb, int vc, int dev,
                              cudaStream_t stream)
{
    constexpr size_t smem = L::template smem<TA, TB>();
    static volatile int attr_set[TB_ATTR_MAX_DEV];
    auto kern = tb_dmma_kernel<TA, TB, L, AMP>;
    const cudaError_t e = tb_smem_attr(kern, (int)smem, dev, attr_set);
    if (e != cudaSuccess)
        return e;
    const int nblk_m = (g.m + L::BM - 1) / L::BM, nblk_n = (g.n + BN - 1) / BN;
    const long long blocks = (long long)nblk_m * nblk_n;
    if (blocks > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    kern<<<(unsigned)blocks, L::NT, smem, stream>>>(g, va, vb, vc, nblk_m, nblk_n);
    return cudaGetLastError();
}

template <typename L, int AMP>
static cudaError_t tb_dmma_trans(const tb_dgemm_args &g, int va, int vb, int vc, int dev,
                                 cudaStream_t stream)
{
    if (!g.transa && !g.transb)
        return tb_dmma_go<0, 0, L, AMP>(g, va, vb, vc, dev, stream);
    if (!g.transa && g.transb)
        return tb_dmma_go<0, 1, L, AMP>(g, va, vb, vc, dev, stream);
    if (g.transa && !g.transb)
        return tb_dmma_go<1, 0, L, AMP>(g, va, vb, vc, dev, stream);
    return tb_dmma_go<1, 1, L, AMP>(g, va, vb, vc, dev, stream);
}

/* L128: the tiling of grids of at least one 128-row tile per SM (NULL
 * type void: 64-row tiles always). */
template <typename L128, int AMP>
static cudaError_t tb_dmma_launch(const tb_dgemm_args *args, cudaStream_t stream)
{
    if (args->m <= 0 || args->n <= 0)
        return cudaSuccess;
    const tb_dgemm_args g = tb_args_blas(args);
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    const int sms = tb_device_sms(dev);
    if (sms == 0)
        return cudaErrorInvalidDevice;
    /* 16-byte copies need 16-byte aligned rows (an even stride and an
     * aligned base); so do the double2 stores of C. */
    const int va = tb_rows16(g.A, g.lda, sizeof(double)), vb = tb_rows16(g.B, g.ldb, sizeof(double));
    const int vc = tb_rows16(g.C, g.ldc, sizeof(double));
    /* A grid of 128-row tiles that leaves SMs idle (m = n = 1000 gives 64
     * tiles for 132 SMs) runs 64-row tiles instead: twice the blocks, two
     * resident per SM. */
    const long long tiles128 = (long long)((g.m + 127) / 128) * ((g.n + BN - 1) / BN);
    if constexpr (L128::BM == 64)
        return tb_dmma_trans<tb_dt64, AMP>(g, va, vb, vc, dev, stream);
    else if (tiles128 < sms)
        return tb_dmma_trans<tb_dt64, AMP>(g, va, vb, vc, dev, stream);
    return tb_dmma_trans<L128, AMP>(g, va, vb, vc, dev, stream);
}

extern "C" cudaError_t tb_launch_dmma(const tb_dgemm_args *args, cudaStream_t stream)
{
    return tb_dmma_launch<tb_dt128, 0>(args, stream);
}

extern "C" cudaError_t tb_launch_dmma_884(const tb_dgemm_args *args, cudaStream_t stream)
{
    return tb_dmma_launch<tb_dt128, 1>(args, stream);
}

extern "C" cudaError_t tb_launch_dmma_k32(const tb_dgemm_args *args, cudaStream_t stream)
{
    return tb_dmma_launch<tb_dt128k32, 0>(args, stream);
}

extern "C" cudaError_t tb_launch_dmma_64(const tb_dgemm_args *args, cudaStream_t stream)
{
    return tb_dmma_launch<tb_dt64, 0>(args, stream);
}
