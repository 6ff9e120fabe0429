/* kernels/igemm_01_wgmma.cu - the INT8 products of the Ozaki scheme
 * (dgemm_02_ozaki.cu) on Hopper's tensor cores: wgmma m64n256k32 with
 * signed 8-bit operands and 32-bit integer sums, fed by the bulk tensor copy
 * engine (TMA) through an mbarrier pipeline, one producer and two consumer
 * warpgroups, persistent over (modulus, tile) work units. The contract is
 * tb_igemm.h's: U_t = (A_t B_t^T) mod p_t for t < *nmod, A_t and B_t
 * K-major int8 residues padded to whole tiles with zeros. sm_90a code; its
 * launcher runs it on compute capability 9.0 only.
 *
 * Why: an H100 or H200 multiplies int8 at about 30 times its fp64 tensor
 * rate (about 1980 against 67 dense TOPS/TFLOP/s on the H100 SXM datasheet),
 * and integer sums are exact: 15 or 16 products of residues make one fp64
 * product (tb_ozaki.h). wgmma takes both integer operands from shared
 * memory, K-major, and keeps the sums in registers.
 *
 * Tiling: a 128 x 256 tile of C per unit, consumer c owning rows 64c..64c+63
 * (one m64n256k32 per 32 bytes of K: 128 int32 sums a thread); K slices of
 * 128 bytes, one 128-byte swizzle row (the layout sgemm_04_wgmma.cu's fp32
 * tiles have: the same descriptors, K stepped by 32 bytes); 4 stages of 48
 * KB (A 16 KB, B 32 KB). Per slice the block runs 4M multiply-adds for 48
 * KB: 1024 clocks of tensor work at the dense rate against 48 bytes a clock
 * of copies.
 *
 * The K loop: integer sums do not round, so a slice's wgmmas go straight
 * into the tile's sums (no partial accumulator to fold) and stay in flight
 * while the next slice is issued; each slice's stage is released when the
 * one after it has been issued and it has completed (wait_group 1).
 *
 * Epilogue: each sum to its residue in [0, p_t) (tb_oz_mod; a later K pass
 * adds the earlier pass's residue) and to U_t as bytes, two neighbouring
 * columns a store. The producer meanwhile loads the next unit's stages.
 */
#include "tb_kernel_common.cuh"
#include "tb_igemm.h"
#include "tb_ozaki.h"
#include "tb_hopper.cuh"

#define IG_STAGES 4
#define IG_A_BYTES (TB_IG_BM * TB_IG_BK)              /* 16 KB */
#define IG_B_BYTES (TB_IG_BN * TB_IG_BK)              /* 32 KB */
#define IG_STAGE_BYTES (IG_A_BYTES + IG_B_BYTES)      /* 48 KB */
#define IG_THREADS 384                                /* producer + two consumers */
#define IG_SMEM (IG_STAGES * IG_STAGE_BYTES + 1024)   /* + 1024-byte alignment */

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* Keep reads of the sums below the wait that completes them. */
__device__ __forceinline__ void ig_touch(int d[128])
{
#pragma unroll
    for (int i = 0; i < 128; i++)
        asm volatile("" : "+r"(d[i])::"memory");
}

/* D (64 x 256, int32) = A (64 x 32) B (32 x 256) + (acc ? D : 0), s8
 * operands from shared memory through their descriptors. */
__device__ __forceinline__ void ig_mma(int d[128], uint64_t da, uint64_t db, int acc)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p;\n}\n"
        :
          "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
          "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
          "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
          "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
          "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
          "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
          "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
          "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]),
          "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]),
          "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]),
          "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]),
          "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]),
          "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
          "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]),
          "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]),
          "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])

        : "l"(da), "l"(db), "r"(acc));
}

/* Consumer c's 64 x 256 sums of unit (t, tm, tn) to U_t as residues. The
 * m64nNk32 s32 layout is the fp32 one: warp w of the warpgroup holds rows
 * 16w..16w+15, lane (g, q) = (lane / 4, lane % 4) the elements (g + 8h,
 * 8jj + 2q + e) as d[4jj + 2h + e]. */
__device__ __forceinline__ void ig_store(const tb_igemm &j, const int d[128], int t, int row0,
                                         int col0)
{
    const int lane = threadIdx.x % 32, w = (threadIdx.x / 32) % 4;
    const int g = lane / 4, q = lane % 4;
    const int p = j.p[t];
    const double pinv = j.pinv[t];
    uint8_t *U = j.U + (size_t)t * j.u_plane;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int row = row0 + 16 * w + g + 8 * h;
        if (row >= j.m)
            continue;
        uint8_t *u = U + (size_t)row * j.ldu;
#pragma unroll
        for (int jj = 0; jj < 32; jj++) {
            const int col = col0 + 8 * jj + 2 * q;
            if (col >= j.n)
                continue;
            if (col + 1 < j.n) {
                const unsigned old = j.accumulate ? *reinterpret_cast<const uint16_t *>(u + col) : 0u;
                const int r0 = tb_oz_mod(d[4 * jj + 2 * h], p, pinv, (int)(old & 0xff));
                const int r1 = tb_oz_mod(d[4 * jj + 2 * h + 1], p, pinv, (int)(old >> 8));
                *reinterpret_cast<uint16_t *>(u + col) = (uint16_t)(r0 | (r1 << 8));
            } else {
                u[col] = (uint8_t)tb_oz_mod(d[4 * jj + 2 * h], p, pinv, j.accumulate ? u[col] : 0);
            }
        }
    }
}
#endif

/* Persistent: block b runs units b, b + grid, ... of the nmod * tiles units
 * (modulus-major, then tiles in grouped order). Warpgroup 0 is the
 * producer (one thread issues the copies); warpgroups 1 and 2 consume. The
 * pipeline: full[s] (one arrival with the stage's byte count, then the
 * copies' bytes) and empty[s] (one arrival per consumer warp once its
 * wgmmas on the stage are complete); both sides walk the same sequence of
 * (stage, parity), across units. */
__global__ void __launch_bounds__(IG_THREADS, 1)
tb_igemm_wgmma_kernel(const __grid_constant__ CUtensorMap mA, const __grid_constant__ CUtensorMap mB,
                      const __grid_constant__ tb_igemm j, int tiles_m, int tiles_n)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    const int nmod = *j.nmod;
    const int tiles = tiles_m * tiles_n, units = nmod * tiles;
    if ((int)blockIdx.x >= units)
        return;   /* the whole block: nothing to do (nmod 0: the product runs on dmma) */
    const int ktiles = (j.kend - j.kbeg) / TB_IG_BK;
    extern __shared__ uint8_t ig_smem_raw[];
    __shared__ __align__(8) uint64_t full[IG_STAGES], empty[IG_STAGES];
    const uint32_t base = (tb_smem_addr(ig_smem_raw) + 1023) & ~1023u;
    const int wg = threadIdx.x / 128, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < IG_STAGES; s++) {
            tb_mbar_init(tb_smem_addr(&full[s]), 1);
            tb_mbar_init(tb_smem_addr(&empty[s]), 8);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            int s = 0;
            uint32_t phase = 0;
            for (int u = blockIdx.x; u < units; u += gridDim.x) {
                const int t = u / tiles;
                int tm, tn;
                tb_wg_tile(u - t * tiles, tiles_m, tiles_n, tm, tn);
                const int ra = t * j.Mp + tm * TB_IG_BM, rb = t * j.Np + tn * TB_IG_BN;
                for (int kt = 0; kt < ktiles; kt++) {
                    const uint32_t fb = tb_smem_addr(&full[s]);
                    tb_mbar_wait(tb_smem_addr(&empty[s]), phase ^ 1);   /* consumers released it */
                    tb_mbar_expect(fb, IG_STAGE_BYTES);
                    const uint32_t st = base + s * IG_STAGE_BYTES;
                    const int k0 = j.kbeg + kt * TB_IG_BK;
                    tb_tma_load(st, &mA, fb, k0, ra);
                    tb_tma_load(st + IG_A_BYTES, &mB, fb, k0, rb);
                    if (++s == IG_STAGES) {
                        s = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int c = wg - 1;   /* rows 64c..64c+63 of the tile */
        int s = 0;
        uint32_t phase = 0;
        int d[128];
        for (int u = blockIdx.x; u < units; u += gridDim.x) {
            const int t = u / tiles;
            int tm, tn;
            tb_wg_tile(u - t * tiles, tiles_m, tiles_n, tm, tn);
            int prev = 0;
            for (int kt = 0; kt < ktiles; kt++) {
                tb_mbar_wait(tb_smem_addr(&full[s]), phase);   /* stage loaded */
                const uint32_t st = base + s * IG_STAGE_BYTES;
                /* This warpgroup's 64 rows of A start 64 x 128 bytes in (a
                 * 1024-byte boundary); B's 256 rows follow A. */
                const uint64_t da = tb_wg_desc(st + c * 64 * TB_IG_BK), db = tb_wg_desc(st + IG_A_BYTES);
                tb_wg_fence();
#pragma unroll
                for (int kk = 0; kk < TB_IG_BK / 32; kk++)
                    ig_mma(d, da + 2 * kk, db + 2 * kk, (kt | kk) != 0);
                tb_wg_commit();
                if (kt > 0) {
                    /* The slice before this one is complete: release it. */
                    tb_wg_wait<1>();
                    if (lane == 0)
                        tb_mbar_arrive(tb_smem_addr(&empty[prev]));
                }
                prev = s;
                if (++s == IG_STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
            tb_wg_wait<0>();
            ig_touch(d);
            if (lane == 0)
                tb_mbar_arrive(tb_smem_addr(&empty[prev]));
            ig_store(j, d, t, tm * TB_IG_BM + 64 * c, tn * TB_IG_BN);
        }
    }
#endif
}

/* ---- host side ------------------------------------------------------------ */

#define IG_MAX_DEV 64

/* The map of TB_IG_MAXMOD planes of rows x Kp int8 (K-major): boxes of 128
 * bytes of K x box_rows rows, 128-byte swizzle. The planes are padded, so
 * no box reaches outside. */
static int ig_map(PFN_cuTensorMapEncodeTiled_v12000 enc, CUtensorMap *map, const int8_t *base,
                  int rows, int Kp, int box_rows)
{
    const cuuint64_t dims[2] = {(cuuint64_t)Kp, (cuuint64_t)rows * TB_IG_MAXMOD};
    const cuuint64_t strides[1] = {(cuuint64_t)Kp};
    const cuuint32_t box[2] = {TB_IG_BK, (cuuint32_t)box_rows};
    const cuuint32_t estr[2] = {1, 1};
    return enc(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, (void *)base, dims, strides, box, estr,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

extern "C" cudaError_t tb_igemm_wgmma(const tb_igemm *j, int sms, cudaStream_t stream)
{
    int dev = 0, major = 0, minor = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || !tb_device_caps(dev, &major, &minor, &optin)) {
        cudaGetLastError();
        return cudaErrorNotSupported;
    }
    if (major != 9 || minor != 0 || optin < IG_SMEM || sms <= 0)
        return cudaErrorNotSupported;
    PFN_cuTensorMapEncodeTiled_v12000 enc = tb_tma_encode_fn();
    CUtensorMap mA, mB;
    if (!enc || !ig_map(enc, &mA, j->A, j->Mp, j->Kp, TB_IG_BM) ||
        !ig_map(enc, &mB, j->B, j->Np, j->Kp, TB_IG_BN))
        return cudaErrorNotSupported;
    static volatile int attr_set[IG_MAX_DEV];
    cudaError_t e = tb_smem_attr(tb_igemm_wgmma_kernel, IG_SMEM, dev, attr_set);
    if (e != cudaSuccess)
        return e;
    const int tiles_m = j->Mp / TB_IG_BM, tiles_n = j->Np / TB_IG_BN;
    const long long units = (long long)TB_IG_MAXMOD * tiles_m * tiles_n;
    if (units > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    const int grid = units < sms ? (int)units : sms;
    tb_igemm_wgmma_kernel<<<grid, IG_THREADS, IG_SMEM, stream>>>(mA, mB, *j, tiles_m, tiles_n);
    return cudaGetLastError();
}
