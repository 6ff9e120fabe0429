/* kernels/dgemm_01_dmma.cu - double precision, step 1: FP64 tensor cores.
 * mma.sync with f64 operands (m16n8k8/k16 on compute capability 9.0 and
 * later, m8n8k4 on 8.x), a multistage cp.async pipeline, padded shared
 * memory. Registry entries "dmma" (the fp64 default), "dmma-k16" and
 * "dmma-884" (its earlier steps, kept to compare). Any shape, stride,
 * transpose, alignment; plain fp64. */
#include "tb_kernel_common.cuh"

/*
 * Why: the H200 multiplies fp64 at about 67 TFLOP/s on its tensor cores
 * and half that on its CUDA cores (FP64 FMA). There is no wgmma for f64, so
 * mma.sync is the way in. Every product and sum is IEEE fp64 (round to
 * nearest), nothing is split or emulated: the result is an fp64 GEMM with
 * its own summation order, as cuBLAS DGEMM's is (the same relative error to
 * three digits on every shape measured, docs/kernels.md).
 *
 * The instruction: Ampere (sm_80) has one f64 shape, m8n8k4: 256 FMAs, A
 * and B one register each per thread, C two. Hopper (sm_90) adds m16n8k4,
 * m16n8k8 and m16n8k16 (SASS DMMA.16x8x8, DMMA.16x8x16): 1024 and 2048
 * FMAs per instruction. All fragments here are in the m16n8 layout; below
 * sm_90 (and in "dmma-884") each m16n8kK is K / 2 m8n8k4 on the same
 * registers (tb_dmma). On the H200 the m8n8k4 sequence reaches 28 TFLOP/s
 * at 4096 where the same kernel with m16n8k16 reaches 50: the tensor cores
 * need the larger instructions to be kept busy.
 *
 * Tiling: block tile BM x 128 (BM = 128 with 8 warps; BM = 64 with 4 warps
 * and two blocks per SM for grids of fewer 128-row tiles than SMs). Warp
 * tile 64 x 32 = 4 x 4 MMA tiles of 16 x 8: 64 accumulators, 128
 * registers, per thread. A 128 x 128 block tile is as large as the register
 * file allows: its accumulators are 32768 registers, half of an SM's. Per
 * K slice of 32 it reads 2 x 128 x 32 doubles (64 KB) for 524288 FMAs: 16
 * bytes of L2 traffic per SM per clock at 128 FMAs per clock, about 4 TB/s
 * over 132 SMs.
 *
 * Shared memory holds each operand in its global layout (no transposition
 * on the way in, so cp.async copies 16 bytes = 2 doubles along the
 * contiguous dimension for all four transpose cases); the transposition
 * happens in the fragment reads. Those are 8-byte loads, and a half-warp's
 * 16 loads are one conflict-free wavefront when their 16 doubles fall in
 * distinct 8-byte bank pairs (address mod 16 doubles). Lane (g, t) = (lane
 * / 4, lane % 4) reads A(g, t + 4u) and B(t + 4u, g): rows of 16 or 32
 * (BK) are padded to 20 or 36 and rows of 64 or 128 to 68 or 132, all 4
 * mod 16, so the reads land on 4g + t or 4t + g, 16 distinct pairs. The
 * padded rows stay 16-byte aligned for cp.async.
 *
 * Pipeline, as the GPU's shared memory allows: 3 stages of K slices of 32
 * (216 KB per block, 9.0 and 10.x), else 4 of 16 (160 KB: the A100's 163
 * KB); 64-row tiles take 2 of 32 (108 KB) or 3 of 16 (90 KB), two blocks
 * per SM. Each stage is 2048 or 4096 clocks of tensor work per SM, so two
 * stages ahead cover any L2 or DRAM latency. Of the two K loops below, the
 * double-buffered one runs where the slices are 32 deep (it spills its
 * registers with slices of 16); what each bought is in docs/kernels.md.
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
typedef tb_dtile<128, 32, 3> tb_dt128;     /* 216 KB: 9.0, 10.x                  */
typedef tb_dtile<128, 16, 4> tb_dt128k16;  /* 160 KB: 8.0                        */
typedef tb_dtile<64, 32, 2> tb_dt64k32;    /* 108 KB, two blocks per SM: 9.0, 10.x */
typedef tb_dtile<64, 16, 3> tb_dt64;       /* 90 KB, two blocks per SM elsewhere */

/* D += A * B on one 16 x 8 x KF tile (KF = 16 or 8), fp64 accumulators in
 * place. Fragment of lane (g, t): a[2u + h] = A(g + 8h, t + 4u), b[u] =
 * B(t + 4u, g), u < KF / 4, and d[2h + e] = D(g + 8h, 2t + e) (the PTX
 * ISA's m16n8k16 and m16n8k8 .f64 layouts). m8n8k4 takes A(g, t), B(t, g)
 * and D(g, 2t + e): the same registers, KF / 2 instructions (rows g and
 * g + 8, KF / 4 steps of 4). AMP forces m8n8k4; below sm_90 there is
 * nothing else. volatile: the MMAs stay in program order, so that what is
 * placed between them (the copies of the next slice) overlaps them. */
template <int KF, int AMP>
__device__ __forceinline__ void tb_dmma(double d[4], const double a[KF / 2], const double b[KF / 4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr bool hopper = !AMP;
#else
    constexpr bool hopper = false;
#endif
    if constexpr (hopper && KF == 16) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
            : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
              "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
    } else if constexpr (hopper && KF == 8) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    } else {
#pragma unroll
        for (int u = 0; u < KF / 4; u++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                    : "+d"(d[2 * h]), "+d"(d[2 * h + 1])
                    : "d"(a[2 * u + h]), "d"(b[u]));
    }
}

/* This lane's fragments of one KF-deep step of the warp's 64 x 32 tile
 * (pa, pb: its first A and B element of the step): B of each n8 tile j,
 * A of each m16 tile i. */
template <int KF, int TB, int B_LD>
__device__ __forceinline__ void tb_dfrag_b(double (&bf)[NTL][KF / 4], const double *pb)
{
#pragma unroll
    for (int j = 0; j < NTL; j++)
#pragma unroll
        for (int u = 0; u < KF / 4; u++)
            bf[j][u] = TB ? pb[j * 8 * B_LD + 4 * u] : pb[4 * u * B_LD + j * 8];
}
template <int KF, int TA, int A_LD>
__device__ __forceinline__ void tb_dfrag_a(double (&af)[KF / 2], const double *pa, int i)
{
#pragma unroll
    for (int u = 0; u < KF / 4; u++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            af[2 * u + h] = TA ? pa[4 * u * A_LD + i * 16 + h * 8] : pa[(i * 16 + h * 8) * A_LD + 4 * u];
}

/* One m16n8k16 step of a warp's 64 x 32 tile, pa and pb at this lane's
 * first A and B element of the step: all of the warp's B fragments (16
 * doubles), then one A fragment (8 doubles) at a time against them, 4 MMAs
 * per A fragment, so that the next fragment's loads overlap them. after()
 * runs once the first 4 MMAs are issued: the MMAs are asynchronous (volatile
 * asm keeps them in this order), so what it issues overlaps them. */
template <int TA, int TB, int A_LD, int B_LD, int AMP, typename After>
__device__ __forceinline__ void tb_dmma_step(double (&acc)[MT][NTL][4], const double *pa,
                                             const double *pb, After after)
{
    double bf[NTL][4];
    tb_dfrag_b<16, TB, B_LD>(bf, pb);
#pragma unroll
    for (int i = 0; i < MT; i++) {
        double af[8];
        tb_dfrag_a<16, TA, A_LD>(af, pa, i);
#pragma unroll
        for (int j = 0; j < NTL; j++)
            tb_dmma<16, AMP>(acc[i][j], af, bf[j]);
        if (i == 0)
            after();
    }
}

/* The copy of a ROWS x COLS tile that lies wholly inside its operand, whose
 * rows are 16-byte aligned (src: the tile's top left): 16-byte cp.async
 * only, no tests, the same chunks per thread as tb_load_tile. The edge
 * tiles go through tb_load_tile; the interior ones, nearly all of a large
 * product, take this path, about a fifth of the instructions. */
template <int ROWS, int COLS, int SLD, int NT>
__device__ __forceinline__ void tb_dcopy_inside(double *s, const double *src, size_t ld, int tid)
{
    constexpr int GPR = COLS / 2, RSTEP = NT / GPR, ITER = ROWS / RSTEP;
    const int rb = tid / GPR, c = (tid % GPR) * 2;
    src += (size_t)rb * ld + c;
    s += rb * SLD + c;
#pragma unroll
    for (int it = 0; it < ITER; it++)
        tb_cp_async<16>(s + it * RSTEP * SLD, src + (size_t)it * RSTEP * ld, 16);
}

/* The MN x BK tile of one operand X at row or column r0 of its mn and K
 * slice k0 of its k: stored mn x k (KM = 0: rows r0.., columns k0..) or k x
 * mn (KM = 1). inside: the whole tile lies in X and X is aligned. */
template <int KM, int MN, int BK, int SLD, int NT>
__device__ __forceinline__ void tb_dload(double *s, const double *X, size_t ld, int vec, bool inside,
                                         int r0, int k0, int mn, int k, int tid)
{
    if (inside) {
        if (!KM) tb_dcopy_inside<MN, BK, SLD, NT>(s, X + (size_t)r0 * ld + k0, ld, tid);
        else     tb_dcopy_inside<BK, MN, SLD, NT>(s, X + (size_t)k0 * ld + r0, ld, tid);
    } else {
        if (!KM) tb_load_tile<double, MN, BK, SLD, NT>(s, X, ld, vec, r0, k0, mn, k, tid);
        else     tb_load_tile<double, BK, MN, SLD, NT>(s, X, ld, vec, k0, r0, k, mn, tid);
    }
}

template <int TA, int TB, typename L, int AMP, int K8>
__global__ void __launch_bounds__(L::NT, L::BM == 128 ? 1 : 2)
tb_dmma_kernel(tb_dgemm_args g, int vec_a, int vec_b, int vec_c, int nblk_m, int nblk_n,
               const int *run_if)
{
    /* Gated (tb_launch_dmma_if): the product is another kernel's unless the
     * flag, written before this launch in stream order, says otherwise. */
    if (run_if && !*run_if)
        return;
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
    if (TB_TILE_UNWANTED(g.tri, g.tri_w, bm, BM, bn, BN))
        return;   /* no wanted element: the whole block leaves, before any barrier */
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

    /* The copies of slice kt into buffer `stage`. A tile wholly inside
     * its operand (block-uniform: this block's rows or columns and slice kt
     * all inside) takes tb_dcopy_inside when the operand is aligned. B
     * stored k x n (TB = 0) is the K-major case of tb_dload. */
    const bool a_in = vec_a && bm + BM <= g.m, b_in = vec_b && bn + BN <= g.n;
    auto load_stage = [&](int stage, int kt) {
        double *sA = smem + stage * (A_SZ + B_SZ), *sB = sA + A_SZ;
        const int k0 = kt * BK;
        const bool k_in = k0 + BK <= g.k;
        tb_dload<TA, BM, BK, A_LD, NT>(sA, g.A, g.lda, vec_a, a_in && k_in, bm, k0, g.m, g.k, tid);
        tb_dload<!TB, BN, BK, B_LD, NT>(sB, g.B, g.ldb, vec_b, b_in && k_in, bn, k0, g.n, g.k, tid);
    };

    constexpr int S = L::STAGES;
    const int ktiles = (g.k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < S - 1; s++) {
        if (s < ktiles)
            load_stage(s, s);
        tb_cp_async_commit();   /* committed even when empty: the waits count uniformly */
    }
    /* Slice 0 has landed for this thread, and after the barrier for all. */
    tb_cp_async_wait<S - 2>();
    __syncthreads();
    if constexpr (!K8) {
        /* The K loop, one m16n8k16 deep step at a time. Unlike
         * tb_cp_pipeline (sgemm_03), the barrier closes each slice and the
         * next slice's copies go out after its first MMAs: the copies'
         * address arithmetic (and the edge tests) then run while the tensor
         * cores work, and each warp arrives at the barrier with its last
         * MMAs still queued. Copies issued first, then the fragment loads,
         * then the MMAs would leave the tensor cores idle for the length of
         * that code after every barrier: 44 TFLOP/s at 4096 on the H200,
         * against 50 this way. */
        for (int kt = 0; kt < ktiles; kt++) {
            const double *sA = smem + (kt % S) * (A_SZ + B_SZ);
#pragma unroll
            for (int kk = 0; kk < BK; kk += 16)
                tb_dmma_step<TA, TB, A_LD, B_LD, AMP>(
                    acc, sA + a_off + (TA ? kk * A_LD : kk), sA + A_SZ + b_off + (TB ? kk : kk * B_LD),
                    [&] {
                        /* Slice kt + S - 1 into the buffer of slice kt - 1,
                         * which every warp finished before the last barrier. */
                        const int nk = kt + S - 1;
                        if (kk == 0) {
                            if (nk < ktiles)
                                load_stage(nk % S, nk);
                            tb_cp_async_commit();
                        }
                    });
            /* Groups committed: S - 1 + kt + 1; S - 2 pending at most means
             * slice kt + 1 has landed for this thread; the barrier makes it
             * visible to all and proves slice kt is read by every warp. */
            tb_cp_async_wait<S - 2>();
            __syncthreads();
        }
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
        /* Never launched below 9.0 (tb_dmma_launch: no GPU there offers the
         * 216 KB it takes), so no code for it there (it would spill). */
        __trap();
#else
        /* The K loop in m16n8k8 steps with double-buffered fragments: the
         * fragments of step s + 1 are loaded while the MMAs of step s run,
         * across the slice boundary too. The barrier comes before the last
         * step of a slice is multiplied, so the wait for the other warps
         * overlaps MMAs already issued, and right after it the next slice's
         * first fragments are read into the free buffer. 8-deep fragments
         * (A 4, B 2 doubles per tile) make the two buffers fit: 96 registers
         * beside the 128 of the accumulators (242-250 in all, no spills with
         * slices of 32). On the H200 at 4096: 57.7 TFLOP/s, against 50.2 for
         * the step loop with the same tiling and cuBLAS's 60.7. */
        constexpr int G = BK / 8;             /* steps per slice (2 or 4: even) */
        double af[2][MT][4], bf[2][NTL][2];
        auto frags = [&](int buf, const double *st, int kk) {
            tb_dfrag_b<8, TB, B_LD>(bf[buf], st + A_SZ + b_off + (TB ? kk : kk * B_LD));
#pragma unroll
            for (int i = 0; i < MT; i++)
                tb_dfrag_a<8, TA, A_LD>(af[buf][i], st + a_off + (TA ? kk * A_LD : kk), i);
        };
        frags(0, smem, 0);
        for (int kt = 0; kt < ktiles; kt++) {
            const double *st = smem + (kt % S) * (A_SZ + B_SZ);
#pragma unroll
            for (int s8 = 0; s8 < G; s8++) {
                if (s8 == G - 1) {
                    /* Slice kt + 1 landed and visible; every warp has read
                     * slice kt - 1 (its last step was loaded before). */
                    tb_cp_async_wait<S - 2>();
                    __syncthreads();
                    if (kt + 1 < ktiles)
                        frags(0, smem + ((kt + 1) % S) * (A_SZ + B_SZ), 0);
                } else {
                    frags((s8 + 1) & 1, st, (s8 + 1) * 8);
                }
#pragma unroll
                for (int i = 0; i < MT; i++)
#pragma unroll
                    for (int j = 0; j < NTL; j++)
                        tb_dmma<8, AMP>(acc[i][j], af[s8 & 1][i], bf[s8 & 1][j]);
                if (s8 == 0) {
                    /* Slice kt + S - 1 into the buffer of slice kt - 1. */
                    const int nk = kt + S - 1;
                    if (nk < ktiles)
                        load_stage(nk % S, nk);
                    tb_cp_async_commit();
                }
            }
        }
#endif
    }

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

template <int TA, int TB, typename L, int AMP, int K8>
static cudaError_t tb_dmma_go(const tb_dgemm_args &g, int va, int vb, int vc, int dev,
                              const int *run_if, cudaStream_t stream)
{
    constexpr size_t smem = L::template smem<TA, TB>();
    static volatile int attr_set[TB_ATTR_MAX_DEV];
    auto kern = tb_dmma_kernel<TA, TB, L, AMP, K8>;
    const cudaError_t e = tb_smem_attr(kern, (int)smem, dev, attr_set);
    if (e != cudaSuccess)
        return e;
    const int nblk_m = (g.m + L::BM - 1) / L::BM, nblk_n = (g.n + BN - 1) / BN;
    const long long blocks = (long long)nblk_m * nblk_n;
    if (blocks > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    kern<<<(unsigned)blocks, L::NT, smem, stream>>>(g, va, vb, vc, nblk_m, nblk_n, run_if);
    return cudaGetLastError();
}

template <typename L, int AMP, int K8>
static cudaError_t tb_dmma_trans(const tb_dgemm_args &g, int va, int vb, int vc, int dev,
                                 const int *run_if, cudaStream_t stream)
{
    if (!g.transa && !g.transb)
        return tb_dmma_go<0, 0, L, AMP, K8>(g, va, vb, vc, dev, run_if, stream);
    if (!g.transa && g.transb)
        return tb_dmma_go<0, 1, L, AMP, K8>(g, va, vb, vc, dev, run_if, stream);
    if (g.transa && !g.transb)
        return tb_dmma_go<1, 0, L, AMP, K8>(g, va, vb, vc, dev, run_if, stream);
    return tb_dmma_go<1, 1, L, AMP, K8>(g, va, vb, vc, dev, run_if, stream);
}

/* The tiling and K loop of a launch. dmma (K8 = 1): where the GPU offers
 * 216 KB per block (9.0, 10.x), slices of 32 and the double-buffered
 * m16n8k8 loop; else (8.0) slices of 16 and the m16n8k16 step loop.
 * dmma-k16 and dmma-884 (K8 = 0): the step loop on every GPU, dmma-k16
 * with slices of 16 (8.0's tiling, there to compare on any GPU), dmma-884
 * with m8n8k4. Grids of fewer 128-row tiles than SMs take 64-row tiles. */
template <int K16, int AMP, int K8>
static cudaError_t tb_dmma_launch(const tb_dgemm_args *args, cudaStream_t stream,
                                  const int *run_if = nullptr)
{
    if (args->m <= 0 || args->n <= 0)
        return cudaSuccess;
    const tb_dgemm_args g = tb_args_blas(args);
    int dev = 0, major = 0, minor = 0, optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    const int sms = tb_device_sms(dev);
    if (sms == 0 || !tb_device_caps(dev, &major, &minor, &optin))
        return cudaErrorInvalidDevice;
    /* 16-byte copies need 16-byte aligned rows (an even stride and an
     * aligned base); so do the double2 stores of C. */
    const int va = tb_rows16(g.A, g.lda, sizeof(double)), vb = tb_rows16(g.B, g.ldb, sizeof(double));
    const int vc = tb_rows16(g.C, g.ldc, sizeof(double));
    const bool big = !K16 && optin >= (int)tb_dt128::smem<0, 1>();
    /* A grid of 128-row tiles that leaves SMs idle (m = n = 1000 gives 64
     * tiles for 132 SMs) runs 64-row tiles instead: twice the blocks, two
     * resident per SM. */
    const long long tiles128 = (long long)((g.m + 127) / 128) * ((g.n + BN - 1) / BN);
    if (tiles128 < sms) {
        if constexpr (K8)
            if (big)
                return tb_dmma_trans<tb_dt64k32, AMP, 1>(g, va, vb, vc, dev, run_if, stream);
        return tb_dmma_trans<tb_dt64, AMP, 0>(g, va, vb, vc, dev, run_if, stream);
    }
    if constexpr (!K16)
        if (big)
            return tb_dmma_trans<tb_dt128, AMP, K8>(g, va, vb, vc, dev, run_if, stream);
    return tb_dmma_trans<tb_dt128k16, AMP, 0>(g, va, vb, vc, dev, run_if, stream);
}

/* g in dmma's arguments, its wanted triangle included. */
static tb_dgemm_args tb_dmma_args(const tb_gemm *g)
{
    tb_dgemm_args a = tb_args_of<double>(g);
    a.tri = g->tri;
    a.tri_w = g->tri_w;
    return a;
}

extern "C" cudaError_t tb_launch_dmma(const tb_gemm *g, cudaStream_t stream)
{
    const tb_dgemm_args a = tb_dmma_args(g);
    return tb_dmma_launch<0, 0, 1>(&a, stream);
}

/* dmma whose blocks return at once unless *run_if (device memory, written
 * before in stream order) is nonzero: the fallback of a kernel that decides
 * on the GPU whether it can run the product itself (dgemm_02_ozaki.cu). */
extern "C" cudaError_t tb_launch_dmma_if(const tb_gemm *g, const int *run_if, cudaStream_t stream)
{
    const tb_dgemm_args a = tb_dmma_args(g);
    return tb_dmma_launch<0, 0, 1>(&a, stream, run_if);
}

extern "C" cudaError_t tb_launch_dmma_k16(const tb_gemm *g, cudaStream_t stream)
{
    const tb_dgemm_args a = tb_args_of<double>(g);
    return tb_dmma_launch<1, 0, 0>(&a, stream);
}

extern "C" cudaError_t tb_launch_dmma_884(const tb_gemm *g, cudaStream_t stream)
{
    const tb_dgemm_args a = tb_args_of<double>(g);
    return tb_dmma_launch<0, 1, 0>(&a, stream);
}
