/* kernels/sgemm_03_tf32x3.cu - step 3: tensor cores with fp32 accuracy.
 * One kernel template, three registry entries: "tf32x3" (3xTF32 error-
 * compensated, two-level accumulation: the default), "tf32x3-tcacc" (3xTF32,
 * every sum inside the tensor cores) and "tf32-fast" (plain 1xTF32, opt-in
 * only: about 1e-4 relative error). Any shape, stride, transpose, alignment. */
#include "tb_kernel_common.cuh"

/*
 * Why: the SIMT kernels of steps 1-2 top out near 70-75% of cuBLAS on Hopper
 * because fp32 FMAs leave no slack for anything else. The tensor cores run
 * TF32 (8-bit exponent, 10-bit mantissa) products at ~8x the fp32 FMA rate.
 * A float x splits exactly into big = tf32(x) and small = tf32(x - big), with
 * |x - big - small| <= 2^-22 |x|. Then
 *     a*b ~= big_a*big_b + big_a*small_b + small_a*big_b
 * (small_a*small_b, <= 2^-22 |ab|, is dropped): three tensor-core products
 * give about the accuracy of one fp32 FMA, at well over the fp32 rate.
 *
 * Accumulation: the tensor cores add into their fp32 accumulator with
 * truncation, not round-to-nearest, and that bias grows with K. "tf32x3"
 * therefore accumulates one BK = 32 slice into a zeroed tensor-core
 * accumulator `part` (12 MMAs deep) and adds `part` into the real accumulator
 * with an ordinary, correctly rounded FADD: a blocked sum, which is also why
 * its error is typically below a plain fp32 loop's. "tf32x3-tcacc" skips that
 * (64 fewer registers and FADDs) and is kept to show the difference.
 *
 * inf and NaN: the split of x = inf gives small = inf - inf = NaN, and a
 * finite x within 2^-12 of FLT_MAX rounds to big = inf. Rather than pay two
 * instructions per element in the hot loop, the epilogue recomputes any NaN
 * result with a plain fp32 dot product (tb_dot_fp32): the exact IEEE outcome
 * of an fp32 GEMM (inf, or NaN where a real NaN or inf - inf arises), at
 * K FMAs per affected element, paid only when non-finite data is present.
 *
 * Tiling: block tile BM x 128 (BM = 128 with 8 warps, or 64 with 4 warps
 * for grids too small to fill the 132 SMs), BK = 32; warp tile 64 x 32 =
 * 4 x 4 MMA tiles of m16n8k8. The warp tile is as large as the registers
 * allow: 64 accumulators + 64 partial sums + 48 split fragments per thread.
 * Shared memory holds each operand in its global layout (no transposition on
 * the way in, so cp.async can copy 16-byte chunks for all four transpose
 * cases); the transposition happens in the fragment reads, whose padded
 * strides make every read conflict-free (see frag_a / frag_b).
 *
 * Pipeline: STAGES = 4 slices in flight through cp.async (the copy engine
 * writes shared memory directly, no registers, no waiting thread); each
 * iteration waits for the oldest slice, issues the newest, then multiplies.
 */
#define BN 128
#define BK 32
#define WM 64
#define WN 32
#define STAGES 4
#define MT (WM / 16)     /* m16 tiles per warp */
#define NTL (WN / 8)     /* n8 tiles per warp  */

/* Padded strides of the shared tiles, in floats. A row of 32 (BK) gets +4,
 * a row of 64/128 gets +8: the fragment reads then hit banks 4g + t or
 * 8t + g for lane (g, t) = (lane / 4, lane % 4), all 32 distinct. */
template <int TA, int BM> struct tb_lay {
    static constexpr int A_LD = TA ? BM + 8 : BK + 4;
    static constexpr int A_SZ = TA ? BK * (BM + 8) : BM * (BK + 4);
};
template <int TB> struct tb_layb {
    static constexpr int B_LD = TB ? BK + 4 : BN + 8;
    static constexpr int B_SZ = TB ? BN * (BK + 4) : BK * (BN + 8);
};

/* The tile copies (tb_load_tile), the STAGES-deep cp.async pipeline
 * (tb_cp_pipeline), the grouped block order and the paired stores of C are
 * shared with the double-precision kernel: tb_kernel_common.cuh. */

/* Round to TF32 (10-bit mantissa), nearest with ties away: the "big" part. */
__device__ __forceinline__ uint32_t tf32_rna(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* D += A * B on a 16x8x8 TF32 tile; fp32 accumulators in place. */
__device__ __forceinline__ void mma_tf32(float d[4], const uint32_t a[4], const uint32_t b[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* The fp32 dot product of row i of op(A) and column j of op(B): the slow,
 * exact-IEEE path for results the split turned into NaN (see above). Not
 * inlined, so the hot loop's register allocation does not see it. */
__device__ __noinline__ float tb_dot_fp32(const float *A, size_t lda, int ta, const float *B,
                                          size_t ldb, int tb, int k, int i, int j)
{
    float s = 0.f;
    for (int p = 0; p < k; p++) {
        const float a = ta ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p];
        const float b = tb ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j];
        s = fmaf(a, b, s);
    }
    return s;
}

template <int TA, int TB, int BM, int PASSES, int ACC2>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, 1)
tb_tf32_kernel(tb_gemm_args g, int vec_a, int vec_b, int vec_c, int nblk_m, int nblk_n)
{
    constexpr int NT = (BM / WM) * (BN / WN) * 32;
    constexpr int A_LD = tb_lay<TA, BM>::A_LD, A_SZ = tb_lay<TA, BM>::A_SZ;
    constexpr int B_LD = tb_layb<TB>::B_LD, B_SZ = tb_layb<TB>::B_SZ;
    extern __shared__ float4 tb_smem4[];
    float *smem = reinterpret_cast<float *>(tb_smem4);

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int gq = lane / 4, tq = lane % 4;       /* MMA (groupID, thread in group) */

    int tm, tn;
    tb_grouped_tile(blockIdx.x, nblk_m, nblk_n, tm, tn);
    const int bm = tm * BM, bn = tn * BN;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;

    float acc[MT][NTL][4], part[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                acc[i][j][e] = 0.f;
                part[i][j][e] = 0.f;
            }

    auto load_stage = [&](int stage, int kt) {
        float *sA = smem + stage * (A_SZ + B_SZ), *sB = sA + A_SZ;
        const int k0 = kt * BK;
        if (!TA) tb_load_tile<float, BM, BK, A_LD, NT>(sA, g.A, g.lda, vec_a, bm, k0, g.m, g.k, tid);
        else     tb_load_tile<float, BK, BM, A_LD, NT>(sA, g.A, g.lda, vec_a, k0, bm, g.k, g.m, tid);
        if (!TB) tb_load_tile<float, BK, BN, B_LD, NT>(sB, g.B, g.ldb, vec_b, k0, bn, g.k, g.n, tid);
        else     tb_load_tile<float, BN, BK, B_LD, NT>(sB, g.B, g.ldb, vec_b, bn, k0, g.n, g.k, tid);
    };

    /* Each iteration waits for the oldest slice, issues the newest, then
     * multiplies (tb_cp_pipeline). */
    tb_cp_pipeline<STAGES>((g.k + BK - 1) / BK, load_stage, [&](int stage, int kt) {
        const float *sA = smem + stage * (A_SZ + B_SZ), *sB = sA + A_SZ;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t ab[MT][4], as[MT][4], bb[NTL][2], bs[NTL][2];
            /* A fragment of m16 tile i: (row, col) = (g, t), (g+8, t),
             * (g, t+4), (g+8, t+4) of the 16x8 slice. Row-major A (TA = 0) is
             * stored [m][k] with stride 36: bank 4g + t. A^T is stored [k][m]
             * with stride BM+8: bank 8t + g. Conflict-free either way. */
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int r = wm + i * 16 + gq + (e & 1) * 8, c = kk + tq + (e >> 1) * 4;
                    const float x = TA ? sA[c * A_LD + r] : sA[r * A_LD + c];
                    ab[i][e] = tf32_rna(x);
                    if (PASSES == 3)
                        as[i][e] = tf32_rna(x - __uint_as_float(ab[i][e]));
                }
            /* B fragment of n8 tile j: (k, n) = (t, g), (t+4, g). B stored
             * [k][n] (stride 136: bank 8t + g) or B^T stored [n][k] (stride
             * 36: bank 4g + t). */
#pragma unroll
            for (int j = 0; j < NTL; j++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int c = wn + j * 8 + gq, r = kk + tq + e * 4;
                    const float x = TB ? sB[c * B_LD + r] : sB[r * B_LD + c];
                    bb[j][e] = tf32_rna(x);
                    if (PASSES == 3)
                        bs[j][e] = tf32_rna(x - __uint_as_float(bb[j][e]));
                }
            /* Small terms first, then big*big, into the same accumulator. */
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NTL; j++) {
                    float *d = ACC2 ? part[i][j] : acc[i][j];
                    if (PASSES == 3) {
                        mma_tf32(d, as[i], bb[j]);
                        mma_tf32(d, ab[i], bs[j]);
                    }
                    mma_tf32(d, ab[i], bb[j]);
                }
        }
        if (ACC2) {
            /* Close the slice: a correctly rounded fp32 add per element. */
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NTL; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        acc[i][j][e] += part[i][j][e];
                        part[i][j][e] = 0.f;
                    }
        }
    });

    /* Epilogue. Accumulator element e of tile (i, j) is C(row, col) with
     * row = g (+8 for e >= 2), col = 2t (+1 for odd e): pairs of adjacent
     * columns, written as float2 where C allows. */
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
                float v[2];
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    float s = acc[i][j][h * 2 + e];
                    if (s != s && col + e < g.n)      /* NaN: see the inf note */
                        s = tb_dot_fp32(g.A, g.lda, g.transa, g.B, g.ldb, g.transb, g.k, row,
                                        col + e);
                    v[e] = g.alpha * s;
                }
                tb_store2(g.C + (size_t)row * g.ldc + col, col, g.n, v, g.beta, vec_c);
            }
        }
}

/* ---- host side ---------------------------------------------------------- */

template <int TA, int TB, int BM, int PASSES, int ACC2>
static cudaError_t tb_tf32_go(const tb_gemm_args &g, int va, int vb, int vc, int nblk_m,
                              int nblk_n, int dev, cudaStream_t stream)
{
    constexpr int NT = (BM / WM) * (BN / WN) * 32;
    constexpr size_t smem =
        (size_t)STAGES * (tb_lay<TA, BM>::A_SZ + tb_layb<TB>::B_SZ) * sizeof(float);
    static volatile int attr_set[TB_ATTR_MAX_DEV];
    auto kern = tb_tf32_kernel<TA, TB, BM, PASSES, ACC2>;
    const cudaError_t e = tb_smem_attr(kern, (int)smem, dev, attr_set);
    if (e != cudaSuccess)
        return e;
    const long long blocks = (long long)nblk_m * nblk_n;
    kern<<<(unsigned)blocks, NT, smem, stream>>>(g, va, vb, vc, nblk_m, nblk_n);
    return cudaGetLastError();
}

template <int BM, int PASSES, int ACC2>
static cudaError_t tb_tf32_trans(const tb_gemm_args &g, int va, int vb, int vc, int dev,
                                 cudaStream_t stream)
{
    const int nblk_m = (g.m + BM - 1) / BM, nblk_n = (g.n + BN - 1) / BN;
    if ((long long)nblk_m * nblk_n > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    if (!g.transa && !g.transb)
        return tb_tf32_go<0, 0, BM, PASSES, ACC2>(g, va, vb, vc, nblk_m, nblk_n, dev, stream);
    if (!g.transa && g.transb)
        return tb_tf32_go<0, 1, BM, PASSES, ACC2>(g, va, vb, vc, nblk_m, nblk_n, dev, stream);
    if (g.transa && !g.transb)
        return tb_tf32_go<1, 0, BM, PASSES, ACC2>(g, va, vb, vc, nblk_m, nblk_n, dev, stream);
    return tb_tf32_go<1, 1, BM, PASSES, ACC2>(g, va, vb, vc, nblk_m, nblk_n, dev, stream);
}

template <int PASSES, int ACC2>
static cudaError_t tb_tf32_launch(const tb_gemm_args *args, cudaStream_t stream)
{
    if (args->m <= 0 || args->n <= 0)
        return cudaSuccess;
    tb_gemm_args g = tb_args_blas(args);
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    const int sms = tb_device_sms(dev);
    if (sms == 0)
        return cudaErrorInvalidDevice;
    /* 16-byte copies need 16-byte aligned rows; the float2 epilogue needs
     * 8-byte aligned pairs. */
    const int va = tb_vec_ok(g.A, g.lda), vb = tb_vec_ok(g.B, g.ldb);
    const int vc = ((uintptr_t)g.C % 8 == 0) && (g.ldc % 2 == 0);
    /* A grid of 128-row tiles that leaves SMs idle (m = n = 1000 gives 64
     * tiles for 132 SMs) runs 64-row tiles instead: twice the blocks, two
     * resident per SM. */
    const long long tiles128 = (long long)((g.m + 127) / 128) * ((g.n + BN - 1) / BN);
    if (tiles128 < sms)
        return tb_tf32_trans<64, PASSES, ACC2>(g, va, vb, vc, dev, stream);
    return tb_tf32_trans<128, PASSES, ACC2>(g, va, vb, vc, dev, stream);
}

extern "C" cudaError_t tb_launch_tf32x3(const tb_gemm *g, cudaStream_t stream)
{
    const tb_gemm_args a = tb_args_of<float>(g);
    return tb_tf32_launch<3, 1>(&a, stream);
}

extern "C" cudaError_t tb_launch_tf32x3_tcacc(const tb_gemm *g, cudaStream_t stream)
{
    const tb_gemm_args a = tb_args_of<float>(g);
    return tb_tf32_launch<3, 0>(&a, stream);
}

extern "C" cudaError_t tb_launch_tf32_fast(const tb_gemm *g, cudaStream_t stream)
{
    const tb_gemm_args a = tb_args_of<float>(g);
    return tb_tf32_launch<1, 0>(&a, stream);
}
