/* kernels/dgemm_02_ozaki.cu - double precision, step 2: fp64-accurate
 * products on the INT8 tensor cores (Ozaki scheme II). Registry entries
 * "dozaki" (9.0: INT8 products on wgmma, igemm_01_wgmma.cu; picked where
 * registry.c's tb_ozaki_pays says it beats dmma) and "dozaki-mma"
 * (mma.sync on every GPU, by name only). Any shape,
 * stride, transpose, alignment; products the scheme cannot give fp64
 * accuracy run on dmma, decided on the GPU from the operands.
 *
 * Why: int8 multiply-adds are exact and about 30 times as fast as fp64 ones
 * on the H100 and H200's tensor cores; 15 or 16 products of int8 residues
 * give an fp64 product as accurate as an fp64 sum (tb_ozaki.h has the
 * arithmetic, the rule for the number of moduli and why).
 *
 * The launch sequence, all on the caller's stream, scratch from the
 * runtime's pool (tb_run_scratch):
 *   1. statistics (tb_oz_stats_rows / _cols): for each row of op(A) and
 *      column of op(B) the largest magnitude, sums of squares and of
 *      magnitudes (tb_oz_see), hence the norm's exponent E and the
 *      peakedness, and whether any value is inf or NaN; the extremes over
 *      all vectors into the control block (atomics of max and or);
 *   2. the decision (tb_oz_decide, one thread): the moduli N (15 or 16), or
 *      0: the product runs on dmma (inf/NaN, the ends of the range, too many
 *      moduli needed, a vector of a few terms);
 *   3. residues (tb_oz_residues): each element scaled to an integer,
 *      rint(2^(g - E) x), and its symmetric residue mod each p_t, as int8
 *      planes, K-major for both operands (op(A) and op(B)^T), padded with
 *      zeros to whole tiles (transposes and alignment end here);
 *   4. the INT8 products (tb_igemm_wgmma or the mma.sync kernel below), one
 *      pass per TB_OZ_KCUT of K: U_t = residues of C' mod p_t, bytes;
 *   5. reconstruction (tb_oz_rebuild): C' from its residues, times
 *      2^(Ea_i + Eb_j - G), then alpha and beta (beta 0 never reads C);
 *   6. dmma's launch, whose blocks return at once unless step 2 said 0.
 * Where N is 0 steps 3 to 5 return at once. The scratch: N_max = 16
 * planes of each operand (Mp x Kp and Np x Kp bytes) and of U (m x n
 * bytes): 16 (m k + n k + m n) bytes and the padding, 3 GB at 8192.
 */
#include "tb_kernel_common.cuh"
#include "tb_igemm.h"
#include "tb_ozaki.h"
#include <float.h>

/* The control block, zeroed before the statistics. Norm exponents of
 * nonzero vectors are kept as E + TB_OZ_EOFF (largest) and TB_OZ_EOFF - E
 * (smallest) so that zero means none; the largest log2 peakedness x 2^20,
 * rounded up. */
struct tb_oz_ctrl {
    unsigned nonfinite;
    int a_max, a_min, b_max, b_min;
    int lp_a, lp_b;
    int nmod;       /* moduli; 0: dmma runs the product          */
    int run_dmma;   /* the flag dmma's launch is gated on        */
    int pad[7];
};
#define TB_OZ_EOFF 8192
#define TB_OZ_LPQ 1048576.0

/* ---- 1. statistics ------------------------------------------------------- */

/* One operand's vectors: vector v of length len at src[v * ld + p]
 * (strided 0: a row of op(A) when A is not transposed, a column of op(B)
 * when B is) or src[p * ld + v] (strided 1); E[v] receives its norm's
 * exponent (0 for zeros or inf/NaN). side: 0 op(A), 1 op(B). */
struct tb_oz_vjob {
    const double *src;
    size_t ld;
    int nvec, len, strided, side;
    int *E;
};

/* A vector's running statistics. */
struct tb_oz_acc {
    double amax, s2[3], s1[3];
    int bad;
};

__device__ __forceinline__ void tb_oz_acc_zero(tb_oz_acc &a)
{
    a.amax = 0.0;
    for (int i = 0; i < 3; i++)
        a.s2[i] = a.s1[i] = 0.0;
    a.bad = 0;
}

__device__ __forceinline__ void tb_oz_acc_see(tb_oz_acc &a, double x)
{
    a.bad |= !(fabs(x) <= DBL_MAX);
    a.amax = fmax(a.amax, fabs(x));
    tb_oz_see(x, a.s2, a.s1);
}

__device__ __forceinline__ void tb_oz_acc_add(tb_oz_acc &a, const tb_oz_acc &b)
{
    a.amax = fmax(a.amax, b.amax);
    for (int i = 0; i < 3; i++) {
        a.s2[i] += b.s2[i];
        a.s1[i] += b.s1[i];
    }
    a.bad |= b.bad;
}

/* A finished vector: its exponent, and its extremes into the control
 * block. */
__device__ __forceinline__ void tb_oz_vec_done(const tb_oz_vjob &j, int v, const tb_oz_acc &a,
                                               tb_oz_ctrl *ctrl)
{
    int E = 0;
    if (a.bad) {
        atomicOr(&ctrl->nonfinite, 1u);
    } else if (a.amax > 0.0) {
        E = tb_oz_norm_exp(a.amax, a.s2);
        const int lp = (int)ceil(tb_oz_log2_peak(a.amax, a.s2, a.s1, j.len) * TB_OZ_LPQ);
        atomicMax(j.side ? &ctrl->b_max : &ctrl->a_max, E + TB_OZ_EOFF);
        atomicMax(j.side ? &ctrl->b_min : &ctrl->a_min, TB_OZ_EOFF - E);
        atomicMax(j.side ? &ctrl->lp_b : &ctrl->lp_a, lp);
    }
    j.E[v] = E;
}

/* Contiguous vectors: a warp a vector, four loads a lane in flight, the
 * lanes' sums added in a fixed tree (the result does not depend on timing). */
__global__ void __launch_bounds__(256) tb_oz_stats_rows(tb_oz_vjob j, tb_oz_ctrl *ctrl)
{
    const int lane = threadIdx.x % 32;
    for (int v = blockIdx.x * 8 + threadIdx.x / 32; v < j.nvec; v += gridDim.x * 8) {
        const double *x = j.src + (size_t)v * j.ld;
        tb_oz_acc a;
        tb_oz_acc_zero(a);
        for (int p = lane; p < j.len; p += 128) {
            double y[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                y[u] = p + 32 * u < j.len ? x[p + 32 * u] : 0.0;
#pragma unroll
            for (int u = 0; u < 4; u++)
                tb_oz_acc_see(a, y[u]);
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            tb_oz_acc b;
            b.amax = __shfl_xor_sync(0xffffffffu, a.amax, off);
            for (int i = 0; i < 3; i++) {
                b.s2[i] = __shfl_xor_sync(0xffffffffu, a.s2[i], off);
                b.s1[i] = __shfl_xor_sync(0xffffffffu, a.s1[i], off);
            }
            b.bad = __shfl_xor_sync(0xffffffffu, a.bad, off);
            tb_oz_acc_add(a, b);
        }
        if (lane == 0)
            tb_oz_vec_done(j, v, a, ctrl);
    }
}

/* Strided vectors: a block 32 vectors (consecutive addresses across the
 * lanes), its 8 warps taking every 8th element, then added in warp order. */
__global__ void __launch_bounds__(256) tb_oz_stats_cols(tb_oz_vjob j, tb_oz_ctrl *ctrl)
{
    __shared__ tb_oz_acc sh[8][32];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    for (int v0 = blockIdx.x * 32; v0 < j.nvec; v0 += gridDim.x * 32) {
        const int v = v0 + tx;
        tb_oz_acc a;
        tb_oz_acc_zero(a);
        if (v < j.nvec)
            for (int p = ty; p < j.len; p += 32) {
                double y[4];
#pragma unroll
                for (int u = 0; u < 4; u++)
                    y[u] = p + 8 * u < j.len ? j.src[(size_t)(p + 8 * u) * j.ld + v] : 0.0;
#pragma unroll
                for (int u = 0; u < 4; u++)
                    tb_oz_acc_see(a, y[u]);
            }
        sh[ty][tx] = a;
        __syncthreads();
        if (ty == 0 && v < j.nvec) {
            for (int w = 1; w < 8; w++)
                tb_oz_acc_add(a, sh[w][tx]);
            tb_oz_vec_done(j, v, a, ctrl);
        }
        __syncthreads();   /* sh is refilled by the next 32 vectors */
    }
}

static cudaError_t tb_oz_stats(const tb_oz_vjob &j, tb_oz_ctrl *ctrl, cudaStream_t stream)
{
    if (j.strided) {
        const long long b = (j.nvec + 31) / 32;
        tb_oz_stats_cols<<<(unsigned)(b < 65535 ? b : 65535), 256, 0, stream>>>(j, ctrl);
    } else {
        const long long b = (j.nvec + 7) / 8;
        tb_oz_stats_rows<<<(unsigned)(b < 65535 ? b : 65535), 256, 0, stream>>>(j, ctrl);
    }
    return cudaGetLastError();
}

/* ---- 2. the decision --------------------------------------------------------- */

struct tb_oz_rule {
    int k;
    int G[TB_OZ_NSETS];
};

__global__ void tb_oz_decide(tb_oz_ctrl *c, tb_oz_rule r)
{
    const int any_a = c->a_max != 0, any_b = c->b_max != 0;
    int n = 0;
    if (!c->nonfinite && tb_oz_range_ok(any_a, c->a_max - TB_OZ_EOFF, TB_OZ_EOFF - c->a_min, any_b,
                                        c->b_max - TB_OZ_EOFF, TB_OZ_EOFF - c->b_min))
        n = tb_oz_choose(r.k, c->lp_a / TB_OZ_LPQ, c->lp_b / TB_OZ_LPQ, r.G);
    c->nmod = n;
    c->run_dmma = n == 0;
}

/* ---- 3. residues ------------------------------------------------------------- */

/* One operand's planes: vectors as in tb_oz_vjob (nvec of length len),
 * written as Rp rows of Kp int8 a plane (zeros past nvec and len), plane t
 * at R + t * plane. */
struct tb_oz_rjob {
    const double *src;
    size_t ld;
    int strided, nvec, len, Rp;
    const int *E;
    int8_t *R;
    size_t plane;
};

struct tb_oz_rconsts {
    double pd[TB_OZ_MAXMOD], pinv[TB_OZ_MAXMOD];
    int G[TB_OZ_NSETS];
};

#define TB_OZ_TV 32      /* vectors a tile                                     */
#define TB_OZ_TK 128     /* K a tile                                           */
#define TB_OZ_TLD 130    /* doubles a row of the staged tile: 16-byte rows     */

/* Tiles of 32 vectors x 128 K through shared memory, so that both the read
 * (along whichever dimension is contiguous) and the write (K) are
 * coalesced: a thread then scales 4 neighbouring elements of one vector and
 * writes their 4 residues as one word per modulus (a warp 128 bytes of a
 * plane's row). NM moduli, unrolled; g: the operand's ga or gb. */
template <int NM>
__device__ __forceinline__ void tb_oz_res_tiles(const tb_oz_rjob &j, int Kp, int g,
                                                const tb_oz_rconsts &c,
                                                double (*tile)[TB_OZ_TLD])
{
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    for (int p0 = blockIdx.x * TB_OZ_TK; p0 < Kp; p0 += gridDim.x * TB_OZ_TK)
        for (int v0 = blockIdx.y * TB_OZ_TV; v0 < j.Rp; v0 += gridDim.y * TB_OZ_TV) {
#pragma unroll 4
            for (int it = 0; it < TB_OZ_TV * TB_OZ_TK / 256; it++) {
                const int q = it * 256 + tid;
                int v, p;
                if (!j.strided)
                    v = q / TB_OZ_TK, p = q % TB_OZ_TK;
                else
                    v = q % TB_OZ_TV, p = q / TB_OZ_TV;
                const int gv = v0 + v, gp = p0 + p;
                double x = 0.0;
                if (gv < j.nvec && gp < j.len)
                    x = j.strided ? j.src[(size_t)gp * j.ld + gv] : j.src[(size_t)gv * j.ld + gp];
                tile[v][p] = x;
            }
            __syncthreads();
#pragma unroll 1
            for (int it = 0; it < TB_OZ_TV / 8; it++) {
                const int v = it * 8 + warp, gv = v0 + v;
                const int e = g - (gv < j.nvec ? j.E[gv] : 0);
                const double f1 = tb_oz_pow2(e / 2), f2 = tb_oz_pow2(e - e / 2);
                const double2 x01 = *reinterpret_cast<const double2 *>(&tile[v][4 * lane]);
                const double2 x23 = *reinterpret_cast<const double2 *>(&tile[v][4 * lane + 2]);
                const double y[4] = {tb_oz_scaled(x01.x, f1, f2), tb_oz_scaled(x01.y, f1, f2),
                                     tb_oz_scaled(x23.x, f1, f2), tb_oz_scaled(x23.y, f1, f2)};
                int8_t *out = j.R + (size_t)gv * Kp + p0 + 4 * lane;
#pragma unroll
                for (int t = 0; t < NM; t++) {
                    unsigned w = 0;
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        w |= (unsigned)(tb_oz_residue(y[u], c.pd[t], c.pinv[t]) & 0xff) << (8 * u);
                    *reinterpret_cast<unsigned *>(out + (size_t)t * j.plane) = w;
                }
            }
            __syncthreads();   /* the tile is refilled next */
        }
}

/* Both operands in one launch (blockIdx.z: op(A), then op(B)). */
__global__ void __launch_bounds__(256)
tb_oz_residues(tb_oz_rjob a, tb_oz_rjob b, int Kp, const tb_oz_ctrl *ctrl, tb_oz_rconsts c)
{
    __shared__ __align__(16) double tile[TB_OZ_TV][TB_OZ_TLD];
    const int nm = ctrl->nmod;
    if (nm == 0)
        return;
    const int z = blockIdx.z;
    /* field by field: a dynamic pick of a whole parameter spills */
    const tb_oz_rjob j = {z ? b.src : a.src, z ? b.ld : a.ld, z ? b.strided : a.strided,
                          z ? b.nvec : a.nvec, z ? b.len : a.len, z ? b.Rp : a.Rp,
                          z ? b.E : a.E, z ? b.R : a.R, z ? b.plane : a.plane};
    const int G = c.G[nm - TB_OZ_MINMOD];
    const int g = z ? tb_oz_gb(G) : tb_oz_ga(G);
    if (nm == 14)
        tb_oz_res_tiles<14>(j, Kp, g, c, tile);
    else if (nm == 15)
        tb_oz_res_tiles<15>(j, Kp, g, c, tile);
    else
        tb_oz_res_tiles<16>(j, Kp, g, c, tile);
}

/* ---- 4. the INT8 products on mma.sync ------------------------------------------
 *
 * The portable kernel of tb_igemm.h's contract (and "ozaki-mma" on any
 * GPU): mma.sync m16n8k32 s8 x s8 -> s32 (sm_80 on), 128 x 128 block tiles
 * of 8 warps (64 x 32 each: 4 x 4 MMA tiles, 64 sums a thread), K slices of
 * 64 bytes in 4 cp.async stages (20 KB each: rows of 64 bytes padded to 80,
 * so that the 8 rows an ldmatrix phase reads land in 8 distinct groups of
 * 4 banks). Both operands are K-major, which is what m16n8k32's row.col
 * fragments hold: ldmatrix.x4 loads a 16 x 32-byte A fragment or two 8 x
 * 32-byte B fragments in one instruction (an 8 x 16-byte matrix gives lane
 * (g, q) bytes 4q..4q+3 of row g, the s8 fragment layout). Persistent over
 * (modulus, tile) units; the epilogue is the wgmma kernel's. */
#define TB_IM_BM 128
#define TB_IM_BN 128
#define TB_IM_BK 64
#define TB_IM_LD 80
#define TB_IM_STAGES 4
#define TB_IM_STAGE ((TB_IM_BM + TB_IM_BN) * TB_IM_LD)
#define TB_IM_SMEM (TB_IM_STAGES * TB_IM_STAGE)   /* 80 KB */

__device__ __forceinline__ void tb_im_ldsm4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void tb_im_mma(int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__global__ void __launch_bounds__(256, 2)
tb_igemm_mma_kernel(const __grid_constant__ tb_igemm j, int tiles_m, int tiles_n)
{
    extern __shared__ __align__(16) uint8_t tb_im_smem[];
    const int nmod = *j.nmod;
    const int tiles = tiles_m * tiles_n, units = nmod * tiles;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
    const int g = lane / 4, q = lane % 4;
    const uint32_t sbase = (uint32_t)__cvta_generic_to_shared(tb_im_smem);
    const int ktiles = (j.kend - j.kbeg) / TB_IM_BK;
    /* This lane's ldmatrix rows and byte offsets: A (m16 x 32 bytes:
     * matrices rows 0-7 / 8-15 x bytes 0-15 / 16-31 = a0..a3), B (n16 x 32
     * bytes: rows 0-7 bytes 0-15, rows 0-7 bytes 16-31, rows 8-15 ... = b0,
     * b1 of two n8 tiles). */
    const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_col = (lane >> 4) * 16;
    const int b_row = (lane & 7) + ((lane >> 4) << 3), b_col = ((lane >> 3) & 1) * 16;
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
        const int t = u / tiles;
        int tm, tn;
        tb_grouped_tile(u - t * tiles, tiles_m, tiles_n, tm, tn);
        const int8_t *Ab = j.A + (size_t)t * j.a_plane + (size_t)tm * TB_IM_BM * j.Kp;
        const int8_t *Bb = j.B + (size_t)t * j.b_plane + (size_t)tn * TB_IM_BN * j.Kp;
        int acc[4][4][4];
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int n = 0; n < 4; n++)
#pragma unroll
                for (int e = 0; e < 4; e++)
                    acc[i][n][e] = 0;
        auto load = [&](int stage, int kt) {
            uint8_t *sA = tb_im_smem + stage * TB_IM_STAGE, *sB = sA + TB_IM_BM * TB_IM_LD;
            const size_t k0 = (size_t)j.kbeg + (size_t)kt * TB_IM_BK;
#pragma unroll
            for (int it = 0; it < 2; it++) {
                const int ch = it * 256 + tid, row = ch / 4, c16 = (ch % 4) * 16;
                tb_cp_async<16>(sA + row * TB_IM_LD + c16, Ab + (size_t)row * j.Kp + k0 + c16, 16);
                tb_cp_async<16>(sB + row * TB_IM_LD + c16, Bb + (size_t)row * j.Kp + k0 + c16, 16);
            }
        };
        auto compute = [&](int stage, int) {
            const uint32_t sA = sbase + stage * TB_IM_STAGE, sB = sA + TB_IM_BM * TB_IM_LD;
#pragma unroll
            for (int ks = 0; ks < TB_IM_BK / 32; ks++) {
                uint32_t bf[2][4];
#pragma unroll
                for (int np = 0; np < 2; np++)
                    tb_im_ldsm4(bf[np], sB + (wn + np * 16 + b_row) * TB_IM_LD + ks * 32 + b_col);
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    uint32_t af[4];
                    tb_im_ldsm4(af, sA + (wm + i * 16 + a_row) * TB_IM_LD + ks * 32 + a_col);
#pragma unroll
                    for (int n = 0; n < 4; n++)
                        tb_im_mma(acc[i][n], af, bf[n / 2][(n % 2) * 2], bf[n / 2][(n % 2) * 2 + 1]);
                }
            }
        };
        tb_cp_pipeline<TB_IM_STAGES>(ktiles, load, compute);
        __syncthreads();   /* every warp is done with the stages before the next unit fills them */
        /* Sums to residues: acc[i][n][2h + e] is row g + 8h, column 2q + e
         * of MMA tile (i, n). */
        const int p = j.p[t];
        const double pinv = j.pinv[t];
        uint8_t *U = j.U + (size_t)t * j.u_plane;
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int row = tm * TB_IM_BM + wm + i * 16 + g + 8 * h;
                if (row >= j.m)
                    continue;
                uint8_t *ur = U + (size_t)row * j.ldu;
#pragma unroll
                for (int n = 0; n < 4; n++) {
                    const int col = tn * TB_IM_BN + wn + n * 8 + 2 * q;
                    if (col >= j.n)
                        continue;
                    if (col + 1 < j.n) {
                        const unsigned old = j.accumulate ? *reinterpret_cast<const uint16_t *>(ur + col) : 0u;
                        const int r0 = tb_oz_mod(acc[i][n][2 * h], p, pinv, (int)(old & 0xff));
                        const int r1 = tb_oz_mod(acc[i][n][2 * h + 1], p, pinv, (int)(old >> 8));
                        *reinterpret_cast<uint16_t *>(ur + col) = (uint16_t)(r0 | (r1 << 8));
                    } else {
                        ur[col] = (uint8_t)tb_oz_mod(acc[i][n][2 * h], p, pinv, j.accumulate ? ur[col] : 0);
                    }
                }
            }
    }
}

extern "C" cudaError_t tb_igemm_mma(const tb_igemm *j, int sms, cudaStream_t stream)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    static volatile int attr_set[TB_ATTR_MAX_DEV];
    e = tb_smem_attr(tb_igemm_mma_kernel, TB_IM_SMEM, dev, attr_set);
    if (e != cudaSuccess)
        return e;
    const int tiles_m = j->Mp / TB_IM_BM, tiles_n = j->Np / TB_IM_BN;
    const long long units = (long long)TB_IG_MAXMOD * tiles_m * tiles_n;
    if (units > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    const long long slots = 2LL * (sms > 0 ? sms : 1);
    tb_igemm_mma_kernel<<<(unsigned)(units < slots ? units : slots), 256, TB_IM_SMEM, stream>>>(
        *j, tiles_m, tiles_n);
    return cudaGetLastError();
}

/* ---- 5. reconstruction ----------------------------------------------------------- */

struct tb_oz_out {
    int m, n;
    double alpha, beta;
    double *C;
    size_t ldc;
    const uint8_t *U;
    size_t ldu, u_plane;
    const int *Ea, *Eb;
};

/* A thread 4 neighbouring columns of a row: one word of each plane, then
 * per element the theorem (tb_oz_reconstruct, NM residues), the scale
 * 2^(Ea_i + Eb_j - G) and alpha, beta. */
template <int NM>
__device__ __forceinline__ void tb_oz_rebuild_rows(const tb_oz_out &o, const tb_oz_crt &c)
{
    for (int i = blockIdx.y; i < o.m; i += gridDim.y)
        for (int j0 = 4 * (blockIdx.x * blockDim.x + threadIdx.x); j0 < o.n;
             j0 += 4 * gridDim.x * blockDim.x) {
            const uint8_t *u = o.U + (size_t)i * o.ldu + j0;
            unsigned w[NM];
#pragma unroll
            for (int t = 0; t < NM; t++)
                w[t] = *reinterpret_cast<const unsigned *>(u + (size_t)t * o.u_plane);
            const int ea = o.Ea[i] - c.G;
            double *crow = o.C + (size_t)i * o.ldc;
#pragma unroll 2   /* all 4 at once spill (168 registers) */
            for (int e = 0; e < 4; e++) {
                const int jc = j0 + e;
                if (jc >= o.n)
                    break;
                int r[NM];
#pragma unroll
                for (int t = 0; t < NM; t++)
                    r[t] = (int)((w[t] >> (8 * e)) & 0xff);
                double hi, lo;
                tb_oz_reconstruct(&c, NM, r, &hi, &lo);
                const double v = o.alpha * tb_oz_unscale(hi, ea + o.Eb[jc]);
                crow[jc] = o.beta == 0.0 ? v : v + o.beta * crow[jc];
            }
        }
}

__global__ void __launch_bounds__(128)
tb_oz_rebuild(const __grid_constant__ tb_oz_consts cs, tb_oz_out o, const tb_oz_ctrl *ctrl)
{
    const int nm = ctrl->nmod;
    if (nm == 14)
        tb_oz_rebuild_rows<14>(o, cs.crt[0]);
    else if (nm == 15)
        tb_oz_rebuild_rows<15>(o, cs.crt[1]);
    else if (nm == 16)
        tb_oz_rebuild_rows<16>(o, cs.crt[2]);
}

/* ---- the launcher ---------------------------------------------------------------- */

static tb_oz_consts tb_oz_made(void)
{
    tb_oz_consts t;
    tb_oz_consts_make(&t);
    return t;
}

/* The constants, made once (a C++ static: thread-safe). */
static const tb_oz_consts *tb_oz_k(void)
{
    static const tb_oz_consts k = tb_oz_made();
    return &k;
}

static size_t tb_oz_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* The sizes of a product's scratch, or 0 where they would not fit the
 * kernels' ints (the product then runs on dmma). */
struct tb_oz_sizes {
    int Mp, Np, Kp;
    size_t ldu, a_plane, b_plane, u_plane;
    size_t off_ea, off_eb, off_a, off_b, off_u, bytes;
};

static int tb_oz_size(const tb_dgemm_args &g, tb_oz_sizes *s)
{
    const long long Mp = tb_oz_up((size_t)g.m, TB_IG_BM), Np = tb_oz_up((size_t)g.n, TB_IG_BN);
    const long long Kp = tb_oz_up((size_t)g.k, TB_IG_BK);
    /* TMA's row coordinates (plane t's rows at t Mp) are int32. */
    if (TB_IG_MAXMOD * Mp > 0x7fffffffLL || TB_IG_MAXMOD * Np > 0x7fffffffLL || Kp > 0x7fffffffLL)
        return 0;
    s->Mp = (int)Mp, s->Np = (int)Np, s->Kp = (int)Kp;
    s->ldu = tb_oz_up((size_t)g.n, 16);
    s->a_plane = (size_t)Mp * Kp;
    s->b_plane = (size_t)Np * Kp;
    s->u_plane = (size_t)g.m * s->ldu;
    s->off_ea = 256;   /* the control block first */
    s->off_eb = s->off_ea + tb_oz_up(sizeof(int) * (size_t)g.m, 256);
    s->off_a = s->off_eb + tb_oz_up(sizeof(int) * (size_t)g.n, 256);
    s->off_b = s->off_a + tb_oz_up(TB_IG_MAXMOD * s->a_plane, 256);
    s->off_u = s->off_b + tb_oz_up(TB_IG_MAXMOD * s->b_plane, 256);
    s->bytes = s->off_u + tb_oz_up(TB_IG_MAXMOD * s->u_plane, 256);
    return 1;
}

/* dgemm_01_dmma.cu: dmma, run only where *run_if is nonzero on the device. */
extern "C" cudaError_t tb_launch_dmma_if(const tb_gemm *g, const int *run_if, cudaStream_t stream);

static cudaError_t tb_oz_launch(const tb_gemm *in, cudaStream_t stream, int force_mma)
{
    const tb_dgemm_args a = tb_args_of<double>(in);
    const tb_dgemm_args g = tb_args_blas(&a);
    if (g.m <= 0 || g.n <= 0)
        return cudaSuccess;
    tb_oz_sizes sz;
    if (g.k == 0 || !tb_oz_size(g, &sz))
        return tb_launch_dmma(in, stream);   /* C = beta C; or sizes past the kernels' ints */
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    const int sms = tb_device_sms(dev);
    if (sms == 0)
        return cudaErrorInvalidDevice;
    uint8_t *ws = (uint8_t *)tb_run_scratch(sz.bytes, stream);
    if (!ws)
        return tb_launch_dmma(in, stream);   /* no scratch: the fp64 kernel, never wrong */
    tb_oz_ctrl *ctrl = (tb_oz_ctrl *)ws;
    int *Ea = (int *)(ws + sz.off_ea), *Eb = (int *)(ws + sz.off_eb);
    int8_t *RA = (int8_t *)(ws + sz.off_a), *RB = (int8_t *)(ws + sz.off_b);
    uint8_t *U = ws + sz.off_u;
    const tb_oz_consts *K = tb_oz_k();

    /* op(A)'s row i is A[i*lda + p] (contiguous) or A[p*lda + i]; op(B)'s
     * column j is B[j*ldb + p] (transposed: contiguous) or B[p*ldb + j]. */
    const tb_oz_vjob va = {g.A, g.lda, g.m, g.k, g.transa != 0, 0, Ea};
    const tb_oz_vjob vb = {g.B, g.ldb, g.n, g.k, g.transb == 0, 1, Eb};
    e = cudaMemsetAsync(ctrl, 0, sizeof(tb_oz_ctrl), stream);
    if (e == cudaSuccess)
        e = tb_oz_stats(va, ctrl, stream);
    if (e == cudaSuccess)
        e = tb_oz_stats(vb, ctrl, stream);
    if (e == cudaSuccess) {
        tb_oz_rule r;
        r.k = g.k;
        for (int s = 0; s < TB_OZ_NSETS; s++)
            r.G[s] = K->crt[s].G;
        tb_oz_decide<<<1, 1, 0, stream>>>(ctrl, r);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) {
        const tb_oz_rjob ra = {g.A, g.lda, g.transa != 0, g.m, g.k, sz.Mp, Ea, RA, sz.a_plane};
        const tb_oz_rjob rb = {g.B, g.ldb, g.transb == 0, g.n, g.k, sz.Np, Eb, RB, sz.b_plane};
        tb_oz_rconsts rc;
        for (int t = 0; t < TB_OZ_MAXMOD; t++)
            rc.pd[t] = K->pd[t], rc.pinv[t] = K->pinv[t];
        for (int s = 0; s < TB_OZ_NSETS; s++)
            rc.G[s] = K->crt[s].G;
        const int rows = sz.Mp > sz.Np ? sz.Mp : sz.Np;
        const dim3 grid((unsigned)(sz.Kp / TB_OZ_TK), (unsigned)(rows / TB_OZ_TV < 65535 ? rows / TB_OZ_TV : 65535), 2);
        tb_oz_residues<<<grid, 256, 0, stream>>>(ra, rb, sz.Kp, ctrl, rc);
        e = cudaGetLastError();
    }
    /* The INT8 products, a pass per TB_OZ_KCUT of K. */
    tb_igemm ij;
    ij.A = RA, ij.B = RB;
    ij.a_plane = sz.a_plane, ij.b_plane = sz.b_plane;
    ij.Mp = sz.Mp, ij.Np = sz.Np, ij.Kp = sz.Kp;
    ij.m = g.m, ij.n = g.n;
    ij.U = U, ij.ldu = sz.ldu, ij.u_plane = sz.u_plane;
    ij.nmod = &ctrl->nmod;
    for (int t = 0; t < TB_IG_MAXMOD; t++)
        ij.p[t] = K->p[t], ij.pinv[t] = K->pinv[t];
    int wg = !force_mma;
    for (int k0 = 0; e == cudaSuccess && k0 < sz.Kp; k0 += TB_OZ_KCUT) {
        ij.kbeg = k0;
        ij.kend = k0 + TB_OZ_KCUT < sz.Kp ? k0 + TB_OZ_KCUT : sz.Kp;
        ij.accumulate = k0 > 0;
        e = cudaErrorNotSupported;
        if (wg) {
            e = tb_igemm_wgmma(&ij, sms, stream);
            if (e == cudaErrorNotSupported)
                wg = 0;   /* not a 9.0 GPU, or no TMA: mma.sync for every pass */
        }
        if (!wg)
            e = tb_igemm_mma(&ij, sms, stream);
    }
    if (e == cudaSuccess) {
        const tb_oz_out o = {g.m, g.n, g.alpha, g.beta, g.C, g.ldc, U, sz.ldu, sz.u_plane, Ea, Eb};
        const long long bx = ((long long)g.n + 4 * 128 - 1) / (4 * 128);
        const dim3 grid((unsigned)(bx < 65535 ? bx : 65535), (unsigned)(g.m < 65535 ? g.m : 65535));
        tb_oz_rebuild<<<grid, 128, 0, stream>>>(*K, o, ctrl);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = tb_launch_dmma_if(in, &ctrl->run_dmma, stream);
    /* Freed in stream order, after the kernels that read it, whatever happened. */
    tb_run_scratch_free(ws, stream);
    return e;
}

extern "C" cudaError_t tb_launch_ozaki(const tb_gemm *g, cudaStream_t stream)
{
    return tb_oz_launch(g, stream, 0);
}

extern "C" cudaError_t tb_launch_ozaki_mma(const tb_gemm *g, cudaStream_t stream)
{
    return tb_oz_launch(g, stream, 1);
}

/* Products whose padded sizes fit the kernels' ints (TMA's row coordinates
 * over 16 planes); the rest of the rule is the data's, on the GPU. */
extern "C" int tb_ozaki_supports(const tb_gemm *g)
{
    const tb_dgemm_args a = tb_args_of<double>(g);
    tb_oz_sizes s;
    return a.m >= 0 && a.n >= 0 && a.k >= 0 && tb_oz_size(a, &s);
}
