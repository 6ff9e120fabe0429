/* kernels/sgemm_04_wgmma.cu - step 4: Hopper tensor cores (wgmma, sm_90a)
 * with fp32 accuracy. A pre-pass splits op(A) and op(B) into TF32 big and
 * small parts, K-major; "wgmma" then runs the 3xTF32 products fed by the
 * bulk tensor copy engine (TMA) through an mbarrier pipeline, producer and
 * consumer warpgroups, persistent over the tiles ("wgmma-1p": the same with
 * one partial accumulator); "wgmma-simple" is the same arithmetic with one
 * warpgroup and plain loads (the readable version); "wgmma-insplit" loads
 * the operands as stored and splits them in shared memory (no pre-pass),
 * which "wgmma" does itself where that costs less (small outputs with a long
 * K). Any shape, stride, transpose, alignment. Chosen only on compute capability 9.0 (supports());
 * built for sm_90a alone: for any other target the kernels fall back to one
 * fp32 dot product per element (slow, never wrong). */
#include "tb_kernel_common.cuh"
#include "tb_hopper.cuh"

/*
 * Why: mma.sync (step 3) keeps the tensor cores about a third busy on Hopper:
 * each warp feeds its own 16x8x8 products from registers it loaded itself.
 * wgmma lets four warps (a warpgroup) issue one 64xNx8 product whose operands
 * the tensor cores read straight from shared memory, asynchronously, while
 * the copy engine (TMA) fills the next stages without any thread moving data.
 *
 * The split. As in step 3, x = big + small with big = tf32(x) (round to
 * nearest) and small = tf32(x - big), |x - big - small| <= 2^-22 |x|, and
 *     a*b ~= small_a*big_b + big_a*small_b + big_a*big_b.
 * wgmma reads TF32 operands only K-major (each row of the A tile and each
 * column of the B tile contiguous along K), and step 3 split inside the
 * inner loop, which wgmma cannot do: its operands come from shared memory
 * untouched by threads. So a pre-pass (tb_split_kernel) writes four arrays
 * once per product: A big, A small (m x Kp) and B^T big, B^T small (n x Kp),
 * K padded to a multiple of 32 and rows to a multiple of 128, with zeros.
 * That one pass also does every transpose and every alignment: the main
 * kernel sees one layout only. It costs a read of A and B and a write of
 * twice their size (about 4% of the product at 8192).
 *
 * Accumulation: the tensor cores' accumulator adds truncate (step 3's
 * tf32x3-tcacc shows the bias growing with K). Each 32-deep K slice (12
 * wgmmas) goes into a fresh accumulator `part` (the first wgmma of the slice
 * has scale-d = 0, which ignores the old contents), then into `acc` with a
 * correctly rounded FADD. Within the slice the small-term wgmmas go first
 * (tb_wg_issue says why).
 *
 * Range. The split loses what TF32's exponent range cannot hold: a small
 * part under 2^-126 (a subnormal, or nothing), so values under about 2^-102
 * (1e-31) keep fewer than 22 bits; products under 2^-126 lose theirs; a big
 * within 2^-12 of FLT_MAX rounds to inf; sums over FLT_MAX overflow. So the
 * split also finds each operand's largest and smallest nonzero finite
 * magnitude (R, tb_wg_range_fold), and where an operand lies outside the
 * range where none of that can happen (tb_wg_shifts) a second pass splits
 * it again multiplied by the power of two 2^s that brings its largest into
 * [2^32, 2^33): every product and sum of the scaled operands then lies far
 * inside the fp32 range, for any K below 2^31. The epilogue multiplies by
 * alpha 2^-(sa+sb), exactly (powers of two), so that C is rounded once, as
 * it would be unscaled. Operands inside that range (uniform, randn x
 * 2^[-12, 12], anything from 2^-102 to 2^48) are split once and unscaled,
 * as without any of this; 1e-30 times 1e30, subnormals and FLT_MAX come out
 * as accurate as [-1, 1]. The kernel that splits in shared memory has no
 * pass to find the range in, so it reads A and B once more first
 * (tb_wg_range_kernel).
 *   Within one operand the scale cannot help values 2^134 or more below its
 * largest (a nonzero x that still scales under 2^-102): their split makes
 * small NaN, and the results they touch take the exact path below.
 *
 * inf and NaN: split(inf) gives small = NaN, so such results come out NaN;
 * the epilogue recomputes every NaN result with a plain fp32 dot product
 * from the original operands (the IEEE outcome: inf, or NaN where a NaN or
 * inf - inf really arises).
 */

#define TB_WG_BM 128      /* rows of C per block tile (two consumer warpgroups x 64) */
#define TB_WG_BN 128      /* columns of C per block tile: one m64n128k8 per warpgroup */
#define TB_WG_BK 32       /* K per stage: 32 floats = 128 bytes, one swizzle row */
#define TB_WG_STAGES 3
#define TB_WG_TILE_BYTES (TB_WG_BM * TB_WG_BK * 4)      /* 16 KB: one operand part */
#define TB_WG_STAGE_BYTES (4 * TB_WG_TILE_BYTES)        /* A big, A small, B big, B small */
#define TB_WG_THREADS 384                               /* producer + two consumers */
#define TB_WG_ROWPAD 128                                /* rows of the split arrays */
#define TB_WG_STG_LD 36          /* floats per row of a warp's staged C: 32 and 4 of padding */
#define TB_WG_STG_FLOATS (16 * TB_WG_STG_LD)                 /* one warp's 16 rows */
#define TB_WG_STG_BYTES (8 * TB_WG_STG_FLOATS * 4)           /* the 8 consumer warps' */

/* ---- the pre-pass: split and transpose to K-major ------------------------- */

__device__ __forceinline__ uint32_t tb_wg_rna(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* x f = big + small, f = 2^s the scale of x's operand (tb_wg_shift); small =
 * NaN for a nonzero x that the scale leaves under 2^-102 (the "Range" note
 * above): the results it touches take the exact path. */
__device__ __forceinline__ void tb_wg_split(float x, float f, float &big, float &small)
{
    const float y = x * f;
    big = __uint_as_float(tb_wg_rna(y));
    small = __uint_as_float(tb_wg_rna(y - big));
    if (fabsf(y) < 0x1p-102f && x != 0.f)
        small = __int_as_float(0x7fc00000);
}

/* ---- the range of the operands -------------------------------------------
 *
 * R (TB_WG_R_WORDS unsigned, zeroed before the pass that fills it): R[0] and
 * R[1] the bits of op(A)'s and op(B)'s largest finite |x|, R[2] and R[3]
 * the complements of the bits of their smallest nonzero finite |x|, so that
 * one atomicMax keeps either and zero means "none seen". The split's first
 * pass fills it as it splits (tb_split_kernel); the kernel that splits in
 * shared memory has a pass of its own (tb_wg_range_kernel). */
#define TB_WG_R_WORDS 4
#define TB_WG_TOP 32             /* an operand's largest magnitude is scaled into [2^32, 2^33) */

/* x into a thread's running largest (hi) and smallest nonzero (lo) finite
 * magnitude bits. */
__device__ __forceinline__ void tb_wg_range_see(float x, unsigned &hi, unsigned &lo)
{
    const unsigned v = __float_as_uint(x) & 0x7fffffffu;
    hi = max(hi, v < 0x7f800000u ? v : 0u);
    lo = min(lo, v - 1u < 0x7f7fffffu ? v : ~0u);
}

/* The block's hi and lo of operand z into R: warp, block, then one atomic
 * each, skipped where R already holds as much (a stale read of R only costs
 * an atomic). Every thread of the block calls it. */
__device__ __forceinline__ void tb_wg_range_fold(unsigned hi, unsigned lo, unsigned *R, int z)
{
    __shared__ unsigned sh[2][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    hi = __reduce_max_sync(0xffffffffu, hi);
    lo = __reduce_min_sync(0xffffffffu, lo);
    if (lane == 0)
        sh[0][warp] = hi, sh[1][warp] = lo;
    __syncthreads();
    if (warp == 0) {
        const int nw = blockDim.x / 32;
        hi = __reduce_max_sync(0xffffffffu, lane < nw ? sh[0][lane] : 0u);
        lo = __reduce_min_sync(0xffffffffu, lane < nw ? sh[1][lane] : ~0u);
        const volatile unsigned *seen = R;
        if (lane == 0 && hi > seen[z])
            atomicMax(R + z, hi);
        if (lane == 0 && ~lo > seen[2 + z])
            atomicMax(R + 2 + z, ~lo);
    }
}

/* floor(log2 |x|) of a nonzero finite magnitude's bits mx. */
__device__ __forceinline__ int tb_wg_exp(unsigned mx)
{
    return mx >= 0x00800000u ? (int)(mx >> 23) - 127 : 31 - __clz((int)mx) - 149;
}

/* The power of two 2^s that brings the largest finite magnitude mx into
 * [2^TB_WG_TOP, 2^(TB_WG_TOP+1)): s at most 126 (so that 2^s is a float;
 * an operand of subnormals then reaches 2^-7 or more); 0 for an operand
 * with no finite nonzero value. */
__device__ __forceinline__ int tb_wg_shift(unsigned mx)
{
    return mx == 0 ? 0 : min(TB_WG_TOP - tb_wg_exp(mx), 126);
}

/* The shifts of op(A) and op(B) (x, y) from R. None where both operands lie
 * where the split is exact unscaled: nonzero magnitudes from 2^-102 to 2^48
 * (no small part under 2^-126, no big part near FLT_MAX, no sum past it for
 * K < 2^31) and the two largest multiplying to 2^-60 or more (results far
 * from the bottom of the range). That is the common case, and its result is
 * bit for bit the unscaled one. Else each operand's largest into [2^32,
 * 2^33) (tb_wg_shift). */
__device__ __forceinline__ int2 tb_wg_shifts(const unsigned *R)
{
    const unsigned ha = R[0], hb = R[1], la = ~R[2], lb = ~R[3];
    const unsigned top = 0x57800000u, bottom = 0x0c800000u;   /* 2^48, 2^-102 */
    if (ha <= top && hb <= top && la >= bottom && lb >= bottom &&
        (ha == 0 || hb == 0 || tb_wg_exp(ha) + tb_wg_exp(hb) >= -60))
        return make_int2(0, 0);
    return make_int2(tb_wg_shift(ha), tb_wg_shift(hb));
}

__device__ __forceinline__ float tb_wg_pow2(int s) { return __int_as_float((127 + s) << 23); }

/* The range pass of the kernel that splits in shared memory: op(A) and
 * op(B) as stored (blockIdx.z: A, then B) into R. A warp reads a segment of
 * TB_WG_RANGE_SEG floats of one stored row, so that a few long rows (256 x
 * 65536) still spread over the grid. */
#define TB_WG_RANGE_BLOCKS 128   /* per operand */
#define TB_WG_RANGE_THREADS 512
#define TB_WG_RANGE_SEG 1024

typedef struct tb_range_job {
    const float *src;   /* the operand as stored: rows x cols, rows ld apart */
    size_t ld;
    int rows, cols;
} tb_range_job;

__global__ void __launch_bounds__(TB_WG_RANGE_THREADS)
tb_wg_range_kernel(tb_range_job a, tb_range_job b, unsigned *R)
{
    const int z = blockIdx.z;
    const float *src = z ? b.src : a.src;
    const size_t ld = z ? b.ld : a.ld;
    const int rows = z ? b.rows : a.rows, cols = z ? b.cols : a.cols;
    const int lane = threadIdx.x % 32, warps = TB_WG_RANGE_THREADS / 32;
    const int nseg = (cols + TB_WG_RANGE_SEG - 1) / TB_WG_RANGE_SEG;
    const long long items = (long long)rows * nseg;
    unsigned hi = 0, lo = ~0u;
    for (long long it = (long long)blockIdx.x * warps + threadIdx.x / 32; it < items;
         it += (long long)gridDim.x * warps) {
        const int r = (int)(it / nseg), c0 = (int)(it - (long long)r * nseg) * TB_WG_RANGE_SEG;
        const int cend = min(cols, c0 + TB_WG_RANGE_SEG);
        const float *row = src + (size_t)r * ld;
        for (int c = c0 + lane; c < cend; c += 8 * 32) {
            float v[8];
#pragma unroll
            for (int u = 0; u < 8; u++)   /* eight loads in flight */
                v[u] = c + 32 * u < cend ? __ldg(row + c + 32 * u) : 0.f;
#pragma unroll
            for (int u = 0; u < 8; u++)
                tb_wg_range_see(v[u], hi, lo);
        }
    }
    tb_wg_range_fold(hi, lo, R, z);
}

/* How the epilogue makes alpha times a sum of products from the scaled sum
 * s: alpha 2^-e s, e the sum of the two shifts, rounded once. as = alpha
 * 2^-e where that is exact (one multiply, as before any scaling), else in
 * double. alpha alone: for the exact path, which sums the stored operands. */
struct tb_wg_out {
    float as, alpha;
    int e, exact;
};

__device__ __forceinline__ tb_wg_out tb_wg_out_make(float alpha, int e)
{
    tb_wg_out o;
    o.alpha = alpha;
    o.e = e;
    o.as = ldexpf(alpha, -e);
    o.exact = ldexpf(o.as, e) == alpha;
    return o;
}

/* The unscaling of a kernel's sums, from the range R. */
__device__ __forceinline__ tb_wg_out tb_wg_out_of(const unsigned *R, float alpha)
{
    const int2 s = tb_wg_shifts(R);
    return tb_wg_out_make(alpha, s.x + s.y);
}

__device__ __forceinline__ float tb_wg_apply(const tb_wg_out &o, float s)
{
    return o.exact ? o.as * s : (float)ldexp((double)o.alpha * (double)s, -o.e);
}

/* One operand of the pre-pass: dst(r, p) for r < Rp, p < Kp from the stored
 * operand, whose element (r, p) is src[r * ld + p] (trans = 0, already
 * K-major) or src[p * ld + r] (trans = 1); zero outside R x K. */
typedef struct tb_split_job {
    const float *src;
    size_t ld;
    int trans, R, Rp;
    float *big, *small;
} tb_split_job;

/* 32 x 32 tiles through shared memory so that both the read (along
 * whichever dimension is contiguous) and the write (along p) are coalesced;
 * the +1 column keeps the transposing accesses off one bank. Grid-stride
 * over the tiles (p along x, r along y), each split with the scale f; with
 * R (the first pass), the block's range of the operand goes into R. */
template <int TR>
__device__ __forceinline__ void tb_split_tiles(const tb_split_job &j, int K, int Kp,
                                               float (*tile)[33], float f, unsigned *R, int z)
{
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    unsigned hi = 0, lo = ~0u;
    for (int p0 = blockIdx.x * 32; p0 < Kp; p0 += gridDim.x * 32)
        for (int r0 = blockIdx.y * 32; r0 < j.Rp; r0 += gridDim.y * 32) {
#pragma unroll
            for (int i = 0; i < 4; i++) {
                if (!TR) {
                    const int r = r0 + ty + 8 * i, p = p0 + tx;
                    tile[ty + 8 * i][tx] = (r < j.R && p < K) ? j.src[(size_t)r * j.ld + p] : 0.0f;
                } else {
                    const int p = p0 + ty + 8 * i, r = r0 + tx;
                    tile[tx][ty + 8 * i] = (r < j.R && p < K) ? j.src[(size_t)p * j.ld + r] : 0.0f;
                }
            }
            __syncthreads();
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int r = r0 + ty + 8 * i, p = p0 + tx;
                const float x = tile[ty + 8 * i][tx];
                float b, s;
                tb_wg_split(x, f, b, s);
                tb_wg_range_see(x, hi, lo);
                j.big[(size_t)r * Kp + p] = b;
                j.small[(size_t)r * Kp + p] = s;
            }
            __syncthreads();   /* the tile is refilled by the next one */
        }
    if (R)
        tb_wg_range_fold(hi, lo, R, z);
}

/* Both operands in one launch (blockIdx.z: A, then B), so that a small
 * product does not pay a second launch and a second tail. Two passes
 * (tb_wg_split): the first (redo = 0) splits unscaled and fills R; the
 * second, launched under its tail, waits for it and splits again, scaled,
 * the operands that tb_wg_shifts scales, which in the common case is
 * neither: its blocks then end at once. */
__global__ void __launch_bounds__(256)
tb_split_kernel(tb_split_job a, tb_split_job b, int K, int Kp, unsigned *R, int redo)
{
    __shared__ float tile[32][33];
    tb_pdl_trigger();
    const int z = blockIdx.z;
    float f = 1.f;
    if (redo) {
        tb_pdl_wait();   /* the first pass's arrays and R */
        const int2 sh = tb_wg_shifts(R);
        const int s = z ? sh.y : sh.x;
        if (s == 0)
            return;
        f = tb_wg_pow2(s);
    }
    /* field by field: a dynamic pick of a whole parameter spills */
    const tb_split_job j = {z ? b.src : a.src, z ? b.ld : a.ld, z ? b.trans : a.trans,
                            z ? b.R : a.R, z ? b.Rp : a.Rp, z ? b.big : a.big,
                            z ? b.small : a.small};
    unsigned *fill = redo ? nullptr : R;
    if (j.trans)
        tb_split_tiles<1>(j, K, Kp, tile, f, fill, z);
    else
        tb_split_tiles<0>(j, K, Kp, tile, f, fill, z);
}

/* ---- device helpers (sm_90a) --------------------------------------------- */

/* The fp32 dot product of row i of op(A) and column j of op(B): the exact
 * IEEE path for results the split turned into NaN. Not inlined, so that the
 * main loop's register allocation does not see it. */
__device__ __noinline__ float tb_wg_dot(const float *A, size_t lda, int ta, const float *B,
                                        size_t ldb, int tb, int k, int i, int j)
{
    float s = 0.f;
#pragma unroll 4
    for (int p = 0; p < k; p++) {
        const float a = ta ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p];
        const float b = tb ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j];
        s = fmaf(a, b, s);
    }
    return s;
}

/* Epilogue of one consumer warpgroup: its 64 x 128 accumulators to C with
 * alpha and beta (beta == 0 never reads C), unscaled by o. The m64nNk8 accumulator layout:
 * warp w of the warpgroup holds rows 16w..16w+15; lane (g, t) = (lane / 4,
 * lane % 4) holds, for each 8-column group j, the elements (g, 8j + 2t),
 * (g, 8j + 2t + 1), (g + 8, 8j + 2t), (g + 8, 8j + 2t + 1) as acc[4j .. 4j+3]. */
__device__ __forceinline__ void tb_wg_store(const tb_gemm_args &g, const tb_wg_out &o,
                                            const float acc[64], int row0, int col0, int vec_c,
                                            int fix_nan)
{
    const int lane = threadIdx.x % 32, w = (threadIdx.x / 32) % 4;
    const int gq = lane / 4, tq = lane % 4;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int row = row0 + 16 * w + gq + 8 * h;
        if (row >= g.m)
            continue;
#pragma unroll
        for (int j = 0; j < 16; j++) {
            const int col = col0 + 8 * j + 2 * tq;
            if (col >= g.n)
                continue;
            float v[2];
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const float s = acc[4 * j + 2 * h + e];
                if (fix_nan && s != s && col + e < g.n)   /* NaN: see the inf note above */
                    v[e] = g.alpha *
                           tb_wg_dot(g.A, g.lda, g.transa, g.B, g.ldb, g.transb, g.k, row, col + e);
                else
                    v[e] = tb_wg_apply(o, s);
            }
            float *c = g.C + (size_t)row * g.ldc + col;
            if (vec_c && col + 1 < g.n) {
                float2 o = make_float2(v[0], v[1]);
                if (g.beta != 0.f) {
                    const float2 old = *reinterpret_cast<float2 *>(c);
                    o.x += g.beta * old.x;
                    o.y += g.beta * old.y;
                }
                *reinterpret_cast<float2 *>(c) = o;
            } else {
                c[0] = (g.beta == 0.f) ? v[0] : v[0] + g.beta * c[0];
                if (col + 1 < g.n)
                    c[1] = (g.beta == 0.f) ? v[1] : v[1] + g.beta * c[1];
            }
        }
    }
}

/* The same stores through shared memory, for a tile without NaN. A warp's
 * accumulator fragment holds 16 rows of C in pieces of 2 columns, scattered
 * over 8 rows per store: stored directly, each of its stores writes half
 * sectors of 8 rows. Here the warp writes 32 columns of its 16 rows at a
 * time into its own buffer (stg: 16 x TB_WG_STG_LD floats; the padding
 * spreads a store's 8 rows over the banks, two wavefronts for its 256
 * bytes, where 32 floats a row would take eight), then reads them back a
 * row segment at a time, so that each store to C writes 128 contiguous
 * bytes (vec4: C's rows 16-byte aligned, 4 rows of 128 bytes a store). No
 * other warp touches the buffer: __syncwarp is the only ordering. */
__device__ __forceinline__ void tb_wg_store_staged(const tb_gemm_args &g, const tb_wg_out &o,
                                                   const float acc[64], int row0, int col0, int vec4,
                                                   float *stg)
{
    const int lane = threadIdx.x % 32, w = (threadIdx.x / 32) % 4;
    const int gq = lane / 4, tq = lane % 4, rbase = row0 + 16 * w;
#pragma unroll
    for (int p = 0; p < 4; p++) {   /* columns 32p .. 32p + 31 */
        __syncwarp();
#pragma unroll
        for (int jj = 0; jj < 4; jj++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int i = 4 * (4 * p + jj) + 2 * h;
                *reinterpret_cast<float2 *>(stg + (gq + 8 * h) * TB_WG_STG_LD + 8 * jj + 2 * tq) =
                    make_float2(tb_wg_apply(o, acc[i]), tb_wg_apply(o, acc[i + 1]));
            }
        __syncwarp();
        if (vec4) {
            const int cq = 4 * (lane % 8), col = col0 + 32 * p + cq;
#pragma unroll
            for (int rr = 0; rr < 4; rr++) {
                const int r = 4 * rr + lane / 8, row = rbase + r;
                if (row >= g.m || col >= g.n)
                    continue;
                float4 v = *reinterpret_cast<const float4 *>(stg + r * TB_WG_STG_LD + cq);
                float *cp = g.C + (size_t)row * g.ldc + col;
                if (col + 4 <= g.n) {
                    if (g.beta != 0.f) {
                        const float4 o = *reinterpret_cast<const float4 *>(cp);
                        v.x += g.beta * o.x, v.y += g.beta * o.y;
                        v.z += g.beta * o.z, v.w += g.beta * o.w;
                    }
                    *reinterpret_cast<float4 *>(cp) = v;
                } else {   /* C's last 1 to 3 columns */
                    cp[0] = g.beta == 0.f ? v.x : v.x + g.beta * cp[0];
                    if (col + 1 < g.n)
                        cp[1] = g.beta == 0.f ? v.y : v.y + g.beta * cp[1];
                    if (col + 2 < g.n)
                        cp[2] = g.beta == 0.f ? v.z : v.z + g.beta * cp[2];
                }
            }
        } else {
            const int col = col0 + 32 * p + lane;
            if (col < g.n) {
#pragma unroll 4
                for (int r = 0; r < 16; r++) {
                    const int row = rbase + r;
                    if (row >= g.m)
                        break;
                    const float v = stg[r * TB_WG_STG_LD + lane];
                    float *cp = g.C + (size_t)row * g.ldc + col;
                    *cp = g.beta == 0.f ? v : v + g.beta * *cp;
                }
            }
        }
    }
}

/* Split K, the work units of the persistent kernels. The first `whole`
 * units are tiles 0 .. whole-1 with all of K; the other nsplit = tiles -
 * whole tiles (every tile, or the last wave's: tb_wg_plan) run in kparts
 * parts along K, part-major, so that consecutive units share a part and the
 * blocks in flight read one K window of A and B: unit whole + v is split
 * tile v % nsplit, part v / nsplit, slices [p chunk, min(ktiles, (p + 1)
 * chunk)). split: the tile's place among the split ones, -1 for a whole
 * one. */
struct tb_wg_unit {
    int t, split, p, kbeg, kend;
};

__device__ __forceinline__ tb_wg_unit tb_wg_unit_at(int u, int whole, int nsplit, int chunk,
                                                    int ktiles)
{
    tb_wg_unit w;
    if (u < whole) {
        w.t = u, w.split = -1, w.p = 0, w.kbeg = 0, w.kend = ktiles;
    } else {
        const int v = u - whole;
        w.p = v / nsplit;
        w.split = v - w.p * nsplit;
        w.t = whole + w.split;
        w.kbeg = w.p * chunk;
        w.kend = min(ktiles, w.kbeg + chunk);
    }
    return w;
}

#define TB_WG_TILE_EL (TB_WG_BM * TB_WG_BN)   /* one partial tile, floats */

/* The product that a split unit computes, as a GEMM of its own: the rows
 * row0.. and columns col0.. of one tile, K from k0 on, at most kc deep (op(A)
 * and op(B) offset to match), into the 128 x 128 partial Wt with alpha 1
 * and beta 0 (tb_wg_sum_kernel applies alpha and beta and reads C). */
__device__ __forceinline__ tb_gemm_args tb_wg_part(const tb_gemm_args &g, int row0, int col0,
                                                   int k0, int kc, float *Wt)
{
    tb_gemm_args q = g;
    q.A = g.transa ? g.A + (size_t)k0 * g.lda + row0 : g.A + (size_t)row0 * g.lda + k0;
    q.B = g.transb ? g.B + (size_t)col0 * g.ldb + k0 : g.B + (size_t)k0 * g.ldb + col0;
    q.m = min(TB_WG_BM, g.m - row0);
    q.n = min(TB_WG_BN, g.n - col0);
    q.k = min(kc, g.k - k0);
    q.C = Wt;
    q.ldc = TB_WG_BN;
    q.alpha = 1.f;
    q.beta = 0.f;
    return q;
}

/* tb_wg_part for split unit w of tile (tm, tn): its partial tile, split
 * tile w.split of part w.p. */
__device__ __forceinline__ tb_gemm_args tb_wg_unit_part(const tb_gemm_args &g, const tb_wg_unit &w,
                                                        int tm, int tn, int nsplit, int chunk,
                                                        float *W)
{
    float *Wt = W + ((size_t)w.p * nsplit + w.split) * TB_WG_TILE_EL;
    return tb_wg_part(g, tm * TB_WG_BM, tn * TB_WG_BN, w.kbeg * TB_WG_BK, chunk * TB_WG_BK, Wt);
}

/* The epilogue of one work unit: consumer c's 64 rows of tile (tm, tn) to
 * C, or for a split unit to its partial tile (split tile w.split of part
 * w.p), as they are: scaled, a NaN left for tb_wg_sum_kernel to recompute
 * over the whole of K. fix_nan = 0 only where no result is NaN (the
 * recompute is a function call). stg: the calling warp's staging buffer,
 * where the kernel has one (tb_wgmma_kernel); a whole tile without NaN
 * goes to C through it. */
__device__ __forceinline__ void tb_wg_unit_store(const tb_gemm_args &g, const tb_wg_out &o,
                                                 const float acc[64],
                                                 const tb_wg_unit &w, int nsplit, int chunk,
                                                 float *W, int tm, int tn, int c, int vec_c,
                                                 int fix_nan, float *stg = nullptr)
{
    if (w.split < 0 && stg && !fix_nan) {
        tb_wg_store_staged(g, o, acc, tm * TB_WG_BM + c * 64, tn * TB_WG_BN, vec_c == 2, stg);
        return;
    }
    if (w.split < 0) {
        tb_wg_store(g, o, acc, tm * TB_WG_BM + c * 64, tn * TB_WG_BN, vec_c, fix_nan);
        return;
    }
    tb_wg_store(tb_wg_unit_part(g, w, tm, tn, nsplit, chunk, W), tb_wg_out_make(1.f, 0), acc,
                c * 64, 0, 1, 0);
}

/* Split K's sum: C = alpha * (W_0 + ... + W_{kparts-1}) + beta * C over the
 * split tiles (beta == 0 never reads C), in part order, so that the result
 * does not depend on which unit finished first; the partials are scaled
 * sums (tb_wg_out), and a NaN sum is recomputed over the whole of K. blockIdx.x: the split tile;
 * blockIdx.y: two of its rows, a thread four neighbouring columns. Blocks
 * are small so that a few split tiles still spread over the whole GPU (256
 * x 256 x 65536: 4 tiles of 32 parts, 256 blocks). Launched under the main
 * kernel's tail (tb_pdl_config). */
#define TB_WG_SUM_THREADS 64
#define TB_WG_SUM_BLOCKS (TB_WG_TILE_EL / 4 / TB_WG_SUM_THREADS)   /* a tile's */
__global__ void __launch_bounds__(TB_WG_SUM_THREADS)
tb_wg_sum_kernel(tb_gemm_args g, const float *__restrict__ W, int whole, int nsplit, int kparts,
                 int tiles_m, int tiles_n, const unsigned *__restrict__ R)
{
    tb_pdl_wait();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    const tb_wg_out o = tb_wg_out_of(R, g.alpha);
#else
    const tb_wg_out o = tb_wg_out_make(g.alpha, 0);   /* tb_wg_slow_units: plain sums */
#endif
    const int j = blockIdx.x;
    int tm, tn;
    tb_wg_tile(whole + j, tiles_m, tiles_n, tm, tn);
    const int q = blockIdx.y * TB_WG_SUM_THREADS + threadIdx.x;
    const int i = q / (TB_WG_BN / 4), c0 = 4 * (q % (TB_WG_BN / 4));
    const int row = tm * TB_WG_BM + i, col = tn * TB_WG_BN + c0;
    if (row >= g.m || col >= g.n)
        return;
    const size_t pstride = (size_t)nsplit * TB_WG_TILE_EL;
    const float *w = W + (size_t)j * TB_WG_TILE_EL + 4 * q;
    float *cp = g.C + (size_t)row * g.ldc + col;
    float s[4];
    const int cols = min(4, g.n - col);
    if (cols == 4) {
        float4 v = *reinterpret_cast<const float4 *>(w);
        s[0] = v.x, s[1] = v.y, s[2] = v.z, s[3] = v.w;
#pragma unroll 8
        for (int p = 1; p < kparts; p++) {
            v = *reinterpret_cast<const float4 *>(w + p * pstride);
            s[0] += v.x, s[1] += v.y, s[2] += v.z, s[3] += v.w;
        }
    } else {   /* the last columns: only what the units wrote */
        for (int e = 0; e < cols; e++) {
            s[e] = w[e];
            for (int p = 1; p < kparts; p++)
                s[e] += w[p * pstride + e];
        }
    }
#pragma unroll
    for (int e = 0; e < 4; e++) {
        if (e >= cols)
            break;
        const float v = s[e] != s[e]   /* NaN: see the inf note above */
                            ? g.alpha * tb_wg_dot(g.A, g.lda, g.transa, g.B, g.ldb, g.transb,
                                                  g.k, row, col + e)
                            : tb_wg_apply(o, s[e]);
        cp[e] = g.beta == 0.f ? v : v + g.beta * cp[e];
    }
}

/* Built for a GPU without wgmma (a plain sm_90 or older pass), the kernels
 * below still compute the right answer, one fp32 dot product per element:
 * slow, never wrong. The build compiles this file for sm_90a only and
 * supports() admits only compute capability 9.0, so this is a safety net. */
__device__ __forceinline__ void tb_wg_slow_tile(const tb_gemm_args &g, int row0, int col0, int rows,
                                                int cols, int tid, int nthreads)
{
    for (int q = tid; q < rows * cols; q += nthreads) {
        const int i = row0 + q / cols, j = col0 + q % cols;
        if (i >= g.m || j >= g.n)
            continue;
        const float v = g.alpha * tb_wg_dot(g.A, g.lda, g.transa, g.B, g.ldb, g.transb, g.k, i, j);
        float *c = g.C + (size_t)i * g.ldc + j;
        *c = g.beta == 0.f ? v : v + g.beta * *c;
    }
}

/* The persistent kernels' units without wgmma: each as plain dot products. */
__device__ __forceinline__ void tb_wg_slow_units(const tb_gemm_args &g, int tiles_m, int tiles_n,
                                                 int whole, int kparts, int ktiles, float *W)
{
    const int nsplit = tiles_m * tiles_n - whole, chunk = (ktiles + kparts - 1) / kparts;
    for (int u = blockIdx.x; u < whole + nsplit * kparts; u += gridDim.x) {
        const tb_wg_unit w = tb_wg_unit_at(u, whole, nsplit, chunk, ktiles);
        int tm, tn;
        tb_wg_tile(w.t, tiles_m, tiles_n, tm, tn);
        if (w.split < 0)
            tb_wg_slow_tile(g, tm * TB_WG_BM, tn * TB_WG_BN, TB_WG_BM, TB_WG_BN, threadIdx.x,
                            blockDim.x);
        else
            tb_wg_slow_tile(tb_wg_unit_part(g, w, tm, tn, nsplit, chunk, W), 0, 0, TB_WG_BM,
                            TB_WG_BN, threadIdx.x, blockDim.x);
    }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TB_WG_REAL 1

/* Keep the compiler from moving reads of the accumulators above the wait
 * (the asm writes them, as far as it knows). */
__device__ __forceinline__ void tb_wg_touch(float d[64])
{
#pragma unroll
    for (int i = 0; i < 64; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* D (64 x 128, fp32) = A (64 x 8) * B (8 x 128) + (scale_d ? D : 0), A and B
 * TF32 from shared memory through their descriptors; one warpgroup. */
__device__ __forceinline__ void tb_wg_mma(float d[64], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, "
        "%35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, "
        "%52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
          "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
          "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
          "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
          "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
          "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
          "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(scale_d));
}

/* One 32-deep K slice of a 64-row warpgroup tile: 4 steps of k = 8, three
 * products each, into a fresh `part`, issued as one wgmma group (not waited
 * for). a_big/a_small/b_big/b_small: shared addresses of the four swizzled
 * tiles.
 *
 * The order is the accuracy. Each wgmma adds its products to `part` with
 * the tensor cores' truncating add, which drops what lies below the ulp of
 * the larger of `part` and the new sum. The 8 small-term wgmmas of the
 * slice go first, while `part` holds only terms about 2^-11 of the big
 * ones, so their truncations are 2^-11 as large; then the 4 big*big
 * wgmmas, the only adds at the full scale. Interleaved per k step (small,
 * small, big per step), 10 of the 12 adds would truncate at the full
 * scale. */
__device__ __forceinline__ void tb_wg_issue(float part[64], uint32_t a_big, uint32_t a_small,
                                            uint32_t b_big, uint32_t b_small)
{
    const uint64_t dab = tb_wg_desc(a_big), das = tb_wg_desc(a_small);
    const uint64_t dbb = tb_wg_desc(b_big), dbs = tb_wg_desc(b_small);
    tb_wg_fence();
#pragma unroll
    for (int kk = 0; kk < TB_WG_BK / 8; kk++) {
        tb_wg_mma(part, das + 2 * kk, dbb + 2 * kk, kk != 0);
        tb_wg_mma(part, dab + 2 * kk, dbs + 2 * kk, 1);
    }
#pragma unroll
    for (int kk = 0; kk < TB_WG_BK / 8; kk++)
        tb_wg_mma(part, dab + 2 * kk, dbb + 2 * kk, 1);
    tb_wg_commit();
}

/* The same, waited for: `part` final, the tiles no longer read. */
__device__ __forceinline__ void tb_wg_slice(float part[64], uint32_t a_big, uint32_t a_small,
                                            uint32_t b_big, uint32_t b_small)
{
    tb_wg_issue(part, a_big, a_small, b_big, b_small);
    tb_wg_wait<0>();
    tb_wg_touch(part);
}

/* acc += part, correctly rounded (the fold of one slice). */
__device__ __forceinline__ void tb_wg_fold(float acc[64], const float part[64])
{
#pragma unroll
    for (int i = 0; i < 64; i++)
        acc[i] += part[i];
}

/* 1 when any of the 128 threads of this warpgroup holds a NaN in acc: a
 * reduction on named barrier id (one per warpgroup; 0 is __syncthreads'). */
__device__ __forceinline__ int tb_wg_any_nan(const float acc[64], int id)
{
    int nan = 0;
#pragma unroll
    for (int i = 0; i < 64; i++)
        nan |= acc[i] != acc[i];
    int any;
    asm volatile("{\n.reg .pred p, q;\nsetp.ne.s32 p, %1, 0;\n"
                 "bar.red.or.pred q, %2, 128, p;\nselp.s32 %0, 1, 0, q;\n}\n"
                 : "=r"(any)
                 : "r"(nan), "r"(id)
                 : "memory");
    return any;
}

#else
#define TB_WG_REAL 0
#endif

/* ---- step 4a: one warpgroup, plain loads (wgmma-simple) --------------------
 *
 * A 64 x 128 tile per block of 128 threads (one warpgroup). Per K slice the
 * threads copy the four tiles from the split arrays into shared memory with
 * ordinary 16-byte loads and stores, writing the same 128-byte swizzle that
 * TMA writes (chunk c of row r at chunk c ^ (r % 8)); then the warpgroup runs
 * the slice's 12 wgmmas and folds. Nothing overlaps: it shows the layout and
 * the arithmetic, and checks them on every shape. */
__global__ void __launch_bounds__(128, 1)
tb_wgmma_simple_kernel(tb_gemm_args g, const float *__restrict__ Ab, const float *__restrict__ As,
                       const float *__restrict__ Bb, const float *__restrict__ Bs, int Kp,
                       int tiles_n, int vec_c, const unsigned *__restrict__ R)
{
#if TB_WG_REAL
    extern __shared__ uint8_t tb_wg_smem_raw[];
    /* The 128-byte swizzle pattern repeats every 1024 bytes and is anchored
     * to 1024-byte boundaries: align the tiles to one. */
    uint8_t *sm = (uint8_t *)(((uintptr_t)tb_wg_smem_raw + 1023) & ~(uintptr_t)1023);
    uint8_t *sAb = sm, *sAs = sm + 8192, *sBb = sm + 16384, *sBs = sm + 32768;
    const int tid = threadIdx.x;
    const int tm = blockIdx.x / tiles_n, tn = blockIdx.x % tiles_n;
    const int row0 = tm * 64, col0 = tn * 128;

    float acc[64], part[64];
#pragma unroll
    for (int i = 0; i < 64; i++) {
        acc[i] = 0.f;
        part[i] = 0.f;
    }
    for (int k0 = 0; k0 < Kp; k0 += TB_WG_BK) {
        /* A: 64 rows x 8 chunks; B: 128 rows x 8 chunks (rows padded: in range). */
        for (int q = tid; q < 64 * 8; q += 128) {
            const int r = q / 8, c = q % 8;
            const size_t src = (size_t)(row0 + r) * Kp + k0 + 4 * c;
            const int dst = r * 128 + ((c ^ (r % 8)) << 4);
            *(float4 *)(sAb + dst) = *(const float4 *)(Ab + src);
            *(float4 *)(sAs + dst) = *(const float4 *)(As + src);
        }
        for (int q = tid; q < 128 * 8; q += 128) {
            const int r = q / 8, c = q % 8;
            const size_t src = (size_t)(col0 + r) * Kp + k0 + 4 * c;
            const int dst = r * 128 + ((c ^ (r % 8)) << 4);
            *(float4 *)(sBb + dst) = *(const float4 *)(Bb + src);
            *(float4 *)(sBs + dst) = *(const float4 *)(Bs + src);
        }
        /* The tensor cores read shared memory through the async proxy: each
         * writing thread fences its generic-proxy stores into it before the
         * barrier that publishes them. */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        tb_wg_slice(part, tb_smem_addr(sAb), tb_smem_addr(sAs), tb_smem_addr(sBb),
                    tb_smem_addr(sBs));
        __syncthreads();   /* every warp's wgmmas are done before the tiles are refilled */
#pragma unroll
        for (int i = 0; i < 64; i++)
            acc[i] += part[i];
    }
    tb_wg_store(g, tb_wg_out_of(R, g.alpha), acc, row0, col0, vec_c, 1);
#else
    tb_wg_slow_tile(g, (blockIdx.x / tiles_n) * 64, (blockIdx.x % tiles_n) * 128, 64, 128,
                    threadIdx.x, blockDim.x);
#endif
}

/* ---- step 4b: TMA, mbarrier pipeline, warp specialisation, persistent ----
 *
 * 384 threads: warpgroup 0 is the producer, warpgroups 1 and 2 consume. The
 * block tile is 128 x 128: consumer c owns rows 64c..64c+63 (one m64n128k8
 * per k step). The grid is one block per SM (211 KB of shared memory each),
 * and each block walks tiles blockIdx.x, blockIdx.x + gridDim.x, ... in the
 * grouped order; producer and consumers walk the same sequence, so the
 * pipeline runs on across tile boundaries and the producer loads the next
 * tile's first slices while the consumers store the last one's results.
 *
 * The pipeline: STAGES buffers of 64 KB (A big, A small, B big, B small,
 * each 128 rows x 128 bytes) and two mbarriers per stage:
 *   full[s]  - one arrival (the producer's, with the byte count it expects)
 *              plus the 64 KB the four copies deliver: the stage is loaded.
 *   empty[s] - 8 arrivals, one per consumer warp, each after its wgmmas on
 *              the stage have completed: the stage may be refilled.
 * Each use of a stage flips the parity of its barriers' phase; both sides
 * count uses the same way (s, phase), so waiting on the right parity is all
 * the ordering there is. The copy engine writes shared memory through the
 * async proxy and the tensor cores read it through the same proxy, so no
 * proxy fence is needed between them; the mbarrier orders both.
 *
 * Split K: a grid of fewer tiles than SMs (768 x 768 x 16384: 36 tiles for
 * 132 SMs) would leave most of them idle for the whole product, and the
 * last wave of a larger grid (777 x 9999 x 333: 4 waves and 25 tiles) does
 * for a tile's time. So the work units are tiles and parts of tiles along K
 * (tb_wg_unit_at): every tile in parts, or the last wave's tiles in parts
 * and the others whole (tb_wg_plan). A part's sums go to its partial tile
 * (tb_wg_part), and tb_wg_sum_kernel adds the partials into C.
 *
 * The epilogue: a whole tile's sums go to C through 18 KB of shared memory
 * past the stages (tb_wg_store_staged), each warp its own 16 rows, so that
 * every store to C is a contiguous row segment; with 10 or 11 slices a tile
 * (777 x 9999 x 333) stores straight from the accumulator fragments would
 * take 30% of the call (H200).
 *
 * Registers: setmaxnreg hands the producer's share to the consumers (the
 * producer needs ~40, a consumer 128 for acc and part plus addressing). */
template <int DP>
__global__ void __launch_bounds__(TB_WG_THREADS, 1)
tb_wgmma_kernel(tb_gemm_args g, const __grid_constant__ CUtensorMap mAb,
                const __grid_constant__ CUtensorMap mAs, const __grid_constant__ CUtensorMap mBb,
                const __grid_constant__ CUtensorMap mBs, int Kp, int tiles_m, int tiles_n,
                int vec_c, int whole, int kparts, float *W, const unsigned *__restrict__ R)
{
#if TB_WG_REAL
    const int ktiles = Kp / TB_WG_BK, nsplit = tiles_m * tiles_n - whole;
    const int units = whole + nsplit * kparts;
    const int chunk = (ktiles + kparts - 1) / kparts;   /* slices per part */
    extern __shared__ uint8_t tb_wg_smem_raw[];
    __shared__ __align__(8) uint64_t full[TB_WG_STAGES], empty[TB_WG_STAGES];
    const uint32_t base =
        (tb_smem_addr(tb_wg_smem_raw) + 1023) & ~1023u;   /* 1024-byte aligned tiles */
    const int wg = threadIdx.x / 128, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < TB_WG_STAGES; s++) {
            tb_mbar_init(tb_smem_addr(&full[s]), 1);
            tb_mbar_init(tb_smem_addr(&empty[s]), 8);
        }
        /* Make the initialised barriers visible to the async proxy (the
         * copy engine signals them) before anyone uses them. */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    tb_pdl_wait();     /* the pre-pass's split arrays are complete */
    tb_pdl_trigger();  /* split K's sum may launch: it waits for this grid */
    __syncthreads();   /* the last block-wide barrier: the roles part here */

    if (wg == 0) {
        /* Producer. One thread issues everything; the copies need no
         * registers, so the warpgroup gives most of its registers away. */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            int s = 0;
            uint32_t phase = 0;
            for (int u = blockIdx.x; u < units; u += gridDim.x) {
                const tb_wg_unit w = tb_wg_unit_at(u, whole, nsplit, chunk, ktiles);
                int tm, tn;
                tb_wg_tile(w.t, tiles_m, tiles_n, tm, tn);
                for (int kt = w.kbeg; kt < w.kend; kt++) {
                    const uint32_t fb = tb_smem_addr(&full[s]), eb = tb_smem_addr(&empty[s]);
                    tb_mbar_wait(eb, phase ^ 1);          /* consumers released it */
                    tb_mbar_expect(fb, TB_WG_STAGE_BYTES);
                    const uint32_t st = base + s * TB_WG_STAGE_BYTES;
                    const int k0 = kt * TB_WG_BK;
                    tb_tma_load(st, &mAb, fb, k0, tm * TB_WG_BM);
                    tb_tma_load(st + TB_WG_TILE_BYTES, &mAs, fb, k0, tm * TB_WG_BM);
                    tb_tma_load(st + 2 * TB_WG_TILE_BYTES, &mBb, fb, k0, tn * TB_WG_BN);
                    tb_tma_load(st + 3 * TB_WG_TILE_BYTES, &mBs, fb, k0, tn * TB_WG_BN);
                    if (++s == TB_WG_STAGES) {
                        s = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int c = wg - 1;                       /* rows 64c..64c+63 of the tile */
        const tb_wg_out o = tb_wg_out_of(R, g.alpha);
        int s = 0;
        uint32_t phase = 0;
        /* This warpgroup's 64 rows of A start 64 x 128 bytes into the A
         * tiles (still a 1024-byte boundary). */
        auto issue = [&](float (&part)[64]) {
            tb_mbar_wait(tb_smem_addr(&full[s]), phase);   /* stage loaded */
            const uint32_t st = base + s * TB_WG_STAGE_BYTES;
            tb_wg_issue(part, st + c * 8192, st + TB_WG_TILE_BYTES + c * 8192,
                        st + 2 * TB_WG_TILE_BYTES, st + 3 * TB_WG_TILE_BYTES);
        };
        /* A warp whose wgmmas on a stage have completed (wait_group in every
         * warp) releases it: its lane 0 arrives on empty[]; then the next
         * stage. */
        auto done = [&](float (&part)[64]) {
            tb_wg_wait<0>();
            tb_wg_touch(part);
            if (lane == 0)
                tb_mbar_arrive(tb_smem_addr(&empty[s]));
            if (++s == TB_WG_STAGES) {
                s = 0;
                phase ^= 1;
            }
        };
        float acc[64];
        if (!DP) {
            for (int u = blockIdx.x; u < units; u += gridDim.x) {
                const tb_wg_unit w = tb_wg_unit_at(u, whole, nsplit, chunk, ktiles);
                int tm, tn;
                tb_wg_tile(w.t, tiles_m, tiles_n, tm, tn);
#pragma unroll
                for (int i = 0; i < 64; i++)
                    acc[i] = 0.f;
                float part[64];
                for (int kt = w.kbeg; kt < w.kend; kt++) {
                    issue(part);
                    done(part);
                    tb_wg_fold(acc, part);
                }
                tb_wg_unit_store(g, o, acc, w, nsplit, chunk, W, tm, tn, c, vec_c, 1);
            }
        } else {
            /* Two partial accumulators: while the tensor cores run one slice
             * into one of them, the previous slice, complete, is folded from
             * the other. No wgmma is left pending across a loop iteration
             * (ptxas serialises every wgmma of a loop whose back edge carries
             * one: warning C7514), so each slice is waited for at once, and
             * its fold is done under the next slice's products. The loop is
             * unrolled by two so that both arrays keep fixed registers.
             *
             * A unit's sums go to C under the next unit's first slice, so
             * that the tensor cores do not wait for the stores (777 x 9999 x
             * 333 has 11 slices a tile). The NaN recompute is a call, which
             * must not sit between a wgmma and its wait: a unit with a NaN
             * among this warpgroup's sums (bar.red over its 128 threads)
             * stores them first, as the last unit does. */
            float p0[64], p1[64];
            /* This warp's staged C (tb_wg_store_staged), past the stages. */
            float *stg = reinterpret_cast<float *>(tb_wg_smem_raw + (base - tb_smem_addr(tb_wg_smem_raw)) +
                                                   TB_WG_STAGES * TB_WG_STAGE_BYTES) +
                         (threadIdx.x / 32 - 4) * TB_WG_STG_FLOATS;
            int have = 0, ptm = 0, ptn = 0;   /* a unit whose sums are still in acc */
            tb_wg_unit pw = {0, -1, 0, 0, 0};
            for (int u = blockIdx.x; u < units; u += gridDim.x) {
                const tb_wg_unit w = tb_wg_unit_at(u, whole, nsplit, chunk, ktiles);
                int tm, tn;
                tb_wg_tile(w.t, tiles_m, tiles_n, tm, tn);
                if (have && tb_wg_any_nan(acc, 2 + c)) {
                    tb_wg_unit_store(g, o, acc, pw, nsplit, chunk, W, ptm, ptn, c, vec_c, 1);
                    have = 0;
                }
                issue(p0);
                if (have)
                    tb_wg_unit_store(g, o, acc, pw, nsplit, chunk, W, ptm, ptn, c, vec_c, 0, stg);
#pragma unroll
                for (int i = 0; i < 64; i++)
                    acc[i] = 0.f;
                done(p0);
                int kt = w.kbeg + 1;
                for (; kt + 1 < w.kend; kt += 2) {
                    issue(p1);
                    tb_wg_fold(acc, p0);     /* slice kt-1, under slice kt */
                    done(p1);
                    issue(p0);
                    tb_wg_fold(acc, p1);     /* slice kt, under slice kt+1 */
                    done(p0);
                }
                if (kt < w.kend) {           /* one more slice */
                    issue(p1);
                    tb_wg_fold(acc, p0);
                    done(p1);
                    tb_wg_fold(acc, p1);
                } else {
                    tb_wg_fold(acc, p0);
                }
                have = 1;
                pw = w;
                ptm = tm;
                ptn = tn;
            }
            if (have) {
                const int nan = tb_wg_any_nan(acc, 2 + c);
                tb_wg_unit_store(g, o, acc, pw, nsplit, chunk, W, ptm, ptn, c, vec_c, nan, stg);
            }
        }
    }
#else
    tb_pdl_wait();
    tb_wg_slow_units(g, tiles_m, tiles_n, whole, kparts, Kp / TB_WG_BK, W);
#endif
}

/* ---- the split in shared memory, no pre-pass (wgmma-insplit) -------------
 *
 * The pre-pass reads A and B once and writes four times their size; where
 * the output is small and K long (256 x 256 x 65536: 128 MB in, 256 MB out,
 * for 8.6 GFLOP) it costs about as much as the products. Here the producer
 * loads the operands as they are stored (TMA boxes of raw fp32, zero outside
 * the matrix, so no padding either) and the consumers split each stage into
 * the four K-major tiles that the wgmmas read, while the tensor cores run
 * the previous slice. A stored K-major operand arrives with the 128-byte
 * swizzle of the split tiles, so a thread splits a 16-byte chunk into the
 * same offset of the big and small tiles; a stored M-major one (boxes of 32
 * K rows x 128 contiguous rows, no swizzle) is transposed on the way: chunk
 * (row r, K 4cc..4cc+3) reads one float from each of four K rows. Lanes take
 * consecutive rows, so the reads are consecutive floats and the 16-byte
 * writes of eight rows land on eight chunk positions: no bank conflicts.
 *
 * Shared memory: three raw stages of 32 KB (A and B) and two split buffers
 * of 64 KB. Slice k, on split buffer b:
 *   1. wait for the raw stage of slice k+1; issue slice k's wgmmas;
 *   2. split that stage into buffer b^1 (this warpgroup's 64 rows of A, half
 *      of B's 128 rows), fence the writes into the async proxy, release the
 *      raw stage (empty[], one arrival per warp);
 *   3. wait for the wgmmas, fold them into the accumulator;
 *   4. bar.sync 1, 256 between the two consumer warpgroups: buffer b^1 is
 *      whole (both write B's tile), and both are done reading buffer b,
 *      which the split after the next issue overwrites.
 * The operands' rows must be 16-byte aligned (TMA): the launchers take the
 * pre-pass otherwise. Split K, the epilogue and the NaN recompute are
 * wgmma's. */
#define TB_WI_STAGES 3
#define TB_WI_RAW_BYTES (2 * TB_WG_TILE_BYTES)           /* raw A, raw B: 32 KB */
#define TB_WI_SPLIT0 (TB_WI_STAGES * TB_WI_RAW_BYTES)    /* the split buffers' offset */
#define TB_WI_SMEM (TB_WI_SPLIT0 + 2 * TB_WG_STAGE_BYTES + 1024)

#if TB_WG_REAL
/* Split one 16-byte chunk of a 128-row tile: row r, K columns 4cc..4cc+3,
 * scaled by f, from the raw tile (KM: stored K-major, swizzled like the result; else
 * 32 K rows of 128 floats) into the swizzled big and small tiles. */
template <int KM>
__device__ __forceinline__ void tb_wi_chunk(const uint8_t *raw, uint8_t *big, uint8_t *small, int r,
                                            int cc, float f)
{
    const int o = r * 128 + ((cc ^ (r & 7)) << 4);
    float x[4];
    if (KM) {
        const float4 v = *reinterpret_cast<const float4 *>(raw + o);
        x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
    } else {
        const float *rf = reinterpret_cast<const float *>(raw);
#pragma unroll
        for (int i = 0; i < 4; i++)
            x[i] = rf[(4 * cc + i) * TB_WG_BM + r];
    }
    float hb[4], hs[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        tb_wg_split(x[i], f, hb[i], hs[i]);
    *reinterpret_cast<float4 *>(big + o) = make_float4(hb[0], hb[1], hb[2], hb[3]);
    *reinterpret_cast<float4 *>(small + o) = make_float4(hs[0], hs[1], hs[2], hs[3]);
}

__device__ __forceinline__ void tb_wi_sync() { asm volatile("bar.sync 1, 256;\n" ::: "memory"); }
#endif

template <int AK, int BK>
__global__ void __launch_bounds__(TB_WG_THREADS, 1)
tb_wgmma_insplit_kernel(tb_gemm_args g, const __grid_constant__ CUtensorMap mA,
                        const __grid_constant__ CUtensorMap mB, int ktiles, int tiles_m,
                        int tiles_n, int vec_c, int whole, int kparts, float *W,
                        const unsigned *__restrict__ R)
{
#if TB_WG_REAL
    const int nsplit = tiles_m * tiles_n - whole, units = whole + nsplit * kparts;
    const int chunk = (ktiles + kparts - 1) / kparts;   /* slices per part */
    extern __shared__ uint8_t tb_wg_smem_raw[];
    __shared__ __align__(8) uint64_t full[TB_WI_STAGES], empty[TB_WI_STAGES];
    /* 1024-byte aligned; an offset from the shared array (not a cast
     * through an integer), so that the compiler knows it is shared memory. */
    uint8_t *sm = tb_wg_smem_raw + ((0u - tb_smem_addr(tb_wg_smem_raw)) & 1023u);
    const uint32_t base = tb_smem_addr(sm);
    const int wg = threadIdx.x / 128, lane = threadIdx.x % 32;
    tb_pdl_trigger();   /* split K's sum may launch: it waits for this grid */

    if (threadIdx.x == 0) {
        for (int s = 0; s < TB_WI_STAGES; s++) {
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
                const tb_wg_unit w = tb_wg_unit_at(u, whole, nsplit, chunk, ktiles);
                int tm, tn;
                tb_wg_tile(w.t, tiles_m, tiles_n, tm, tn);
                const int ra = tm * TB_WG_BM, rb = tn * TB_WG_BN;
                for (int kt = w.kbeg; kt < w.kend; kt++) {
                    const uint32_t fb = tb_smem_addr(&full[s]), eb = tb_smem_addr(&empty[s]);
                    tb_mbar_wait(eb, phase ^ 1);
                    tb_mbar_expect(fb, TB_WI_RAW_BYTES);
                    const uint32_t st = base + s * TB_WI_RAW_BYTES;
                    const int k0 = kt * TB_WG_BK;
                    tb_tma_load(st, &mA, fb, AK ? k0 : ra, AK ? ra : k0);
                    tb_tma_load(st + TB_WG_TILE_BYTES, &mB, fb, BK ? k0 : rb, BK ? rb : k0);
                    if (++s == TB_WI_STAGES) {
                        s = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int c = wg - 1, ct = threadIdx.x - 128;   /* ct: 0..255 over both consumers */
        const tb_wg_out o = tb_wg_out_of(R, g.alpha);
        const int2 sh = tb_wg_shifts(R);
        const float fa = tb_wg_pow2(sh.x), fb = tb_wg_pow2(sh.y);
        int s = 0, b = 0;
        uint32_t phase = 0;
        /* Step 1 above, into split buffer `buf`. */
        auto split = [&](int buf) {   /* raw stage s loaded: its full[s] waited for */
            const uint8_t *raw = sm + s * TB_WI_RAW_BYTES;
            uint8_t *dst = sm + TB_WI_SPLIT0 + buf * TB_WG_STAGE_BYTES;
#pragma unroll
            for (int i = 0; i < 4; i++) {   /* A: this warpgroup's 64 rows x 8 chunks */
                const int q = (ct % 128) + 128 * i;
                tb_wi_chunk<AK>(raw, dst, dst + TB_WG_TILE_BYTES, 64 * c + q % 64, q / 64, fa);
            }
#pragma unroll
            for (int i = 0; i < 4; i++) {   /* B: 128 rows x 8 chunks over both */
                const int q = ct + 256 * i;
                tb_wi_chunk<BK>(raw + TB_WG_TILE_BYTES, dst + 2 * TB_WG_TILE_BYTES,
                                dst + 3 * TB_WG_TILE_BYTES, q % 128, q / 128, fb);
            }
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            __syncwarp();
            if (lane == 0)
                tb_mbar_arrive(tb_smem_addr(&empty[s]));
            if (++s == TB_WI_STAGES) {
                s = 0;
                phase ^= 1;
            }
        };
        for (int u = blockIdx.x; u < units; u += gridDim.x) {
            const tb_wg_unit w = tb_wg_unit_at(u, whole, nsplit, chunk, ktiles);
            const int kbeg = w.kbeg, kend = w.kend;
            int tm, tn;
            tb_wg_tile(w.t, tiles_m, tiles_n, tm, tn);
            float acc[64], part[64];
#pragma unroll
            for (int i = 0; i < 64; i++)
                acc[i] = 0.f;
            tb_mbar_wait(tb_smem_addr(&full[s]), phase);
            split(b);
            tb_wi_sync();
            /* Slice kt on buffer b; while the tensor cores run it, the next
             * slice is split into b ^ 1. The next raw stage is waited for
             * before the issue: a spin loop between the issue and the wait
             * makes ptxas wait for the wgmmas ahead of it (C7517), which
             * serialises the two. One partial accumulator (folded after the
             * wait) leaves the split the registers of a second. */
            for (int kt = kbeg; kt < kend; kt++) {
                const bool more = kt + 1 < kend;
                if (more)
                    tb_mbar_wait(tb_smem_addr(&full[s]), phase);
                const uint32_t sb = base + TB_WI_SPLIT0 + b * TB_WG_STAGE_BYTES;
                tb_wg_issue(part, sb + c * 8192, sb + TB_WG_TILE_BYTES + c * 8192,
                            sb + 2 * TB_WG_TILE_BYTES, sb + 3 * TB_WG_TILE_BYTES);
                if (more)
                    split(b ^ 1);
                tb_wg_wait<0>();
                tb_wg_touch(part);
                tb_wg_fold(acc, part);
                b ^= 1;
                if (more)
                    tb_wi_sync();
            }
            tb_wg_unit_store(g, o, acc, w, nsplit, chunk, W, tm, tn, c, vec_c, 1);
        }
    }
#else
    tb_wg_slow_units(g, tiles_m, tiles_n, whole, kparts, ktiles, W);
#endif
}

/* ---- host side ------------------------------------------------------------ */

#define TB_WG_MAX_DEV 64

/* 1 when device `dev` runs sm_90a code (compute capability 9.0), asked once. */
static int tb_wgmma_hw(int dev)
{
    static int state[TB_WG_MAX_DEV];   /* 0 unknown, 1 yes, -1 no; racy but idempotent */
    if (dev < 0 || dev >= TB_WG_MAX_DEV)
        return 0;
    int st = __atomic_load_n(&state[dev], __ATOMIC_RELAXED);
    if (st == 0) {
        int major = 0, minor = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        st = (major == 9 && minor == 0) ? 1 : -1;
        __atomic_store_n(&state[dev], st, __ATOMIC_RELAXED);
    }
    return st == 1;
}

static int tb_cur_dev(void)
{
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return dev;
}

/* How the epilogue may store C's rows: 2 in 16-byte vectors, 1 in 8-byte
 * ones, 0 one float at a time. */
static int tb_wg_vec_c(const tb_gemm_args &g)
{
    if ((uintptr_t)g.C % 16 == 0 && g.ldc % 4 == 0)
        return 2;
    return (uintptr_t)g.C % 8 == 0 && g.ldc % 2 == 0;
}

static long long tb_wg_tiles(const tb_gemm_args *a)
{
    return (long long)((a->m + TB_WG_BM - 1) / TB_WG_BM) * ((a->n + TB_WG_BN - 1) / TB_WG_BN);
}

/* "wgmma-simple": any shape on a compute capability 9.0 GPU. */
extern "C" int tb_wgmma_simple_supports(const tb_gemm *g)
{
    (void)g;
    return tb_wgmma_hw(tb_cur_dev());
}

/* "wgmma": a compute capability 9.0 GPU and at least a quarter of a wave
 * of work units (128 x 128 tiles times the parts of K, tb_wgmma_parts).
 * Fewer leave most tensor cores idle whatever the kernel; the registry
 * gives them the small kernel or tf32x3's 64-row tiles (tb_kernel_pick). */
extern "C" int tb_wgmma_supports(const tb_gemm *g)
{
    const int dev = tb_cur_dev();
    if (!tb_wgmma_hw(dev))
        return 0;
    const int sms = tb_device_sms(dev);
    const tb_gemm_args a = tb_args_of<float>(g);
    return 4 * tb_wg_tiles(&a) * tb_wgmma_parts(a.m, a.n, a.k, sms) >= sms;
}

/* The tensor map of one split array (rows x Kp floats, K-major): boxes of
 * 32 floats (128 bytes, the swizzle span) x 128 rows, 128-byte swizzle. The
 * arrays are padded, so no box ever reaches outside. */
static int tb_wg_map(PFN_cuTensorMapEncodeTiled_v12000 enc, CUtensorMap *map, const float *base,
                     int rows, int Kp)
{
    const cuuint64_t dims[2] = {(cuuint64_t)Kp, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)Kp * sizeof(float)};
    const cuuint32_t box[2] = {TB_WG_BK, 128};
    const cuuint32_t estr[2] = {1, 1};
    return enc(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)base, dims, strides, box, estr,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* The range pass over op(A) and op(B) as stored, into R (zeroed first).
 * Stored A is k x m where op(A) = A^T, m x k otherwise; stored B is n x k
 * where op(B) = B^T, k x n otherwise. */
static cudaError_t tb_wg_range(const tb_gemm_args &g, unsigned *R, cudaStream_t stream)
{
    const tb_range_job a = {g.A, (size_t)g.lda, g.transa ? g.k : g.m, g.transa ? g.m : g.k};
    const tb_range_job b = {g.B, (size_t)g.ldb, g.transb ? g.n : g.k, g.transb ? g.k : g.n};
    cudaError_t e = cudaMemsetAsync(R, 0, TB_WG_R_WORDS * sizeof(unsigned), stream);
    if (e != cudaSuccess)
        return e;
    tb_wg_range_kernel<<<dim3(TB_WG_RANGE_BLOCKS, 1, 2), TB_WG_RANGE_THREADS, 0, stream>>>(a, b, R);
    return cudaGetLastError();
}

/* The split in two passes (tb_split_kernel): unscaled, filling R (zeroed
 * first); then, under its tail, scaled where tb_wg_shifts says, on a grid
 * of at most 16 x 32 blocks an operand, so that its blocks cost little
 * where they end at once. */
static cudaError_t tb_wg_split(const tb_split_job &a, const tb_split_job &b, int K, int Kp,
                               unsigned *R, cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(R, 0, TB_WG_R_WORDS * sizeof(unsigned), stream);
    if (e != cudaSuccess)
        return e;
    const int rows = a.Rp > b.Rp ? a.Rp : b.Rp;
    const unsigned gx = (unsigned)(Kp / 32);
    const unsigned gy = (unsigned)(rows / 32 < 65535 ? rows / 32 : 65535);
    tb_split_kernel<<<dim3(gx, gy, 2), 256, 0, stream>>>(a, b, K, Kp, R, 0);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return e;
    cudaLaunchAttribute pdl;
    const cudaLaunchConfig_t cfg =
        tb_pdl_config(dim3(gx < 16 ? gx : 16, gy < 32 ? gy : 32, 2), dim3(256), 0, stream, &pdl);
    return cudaLaunchKernelEx(&cfg, tb_split_kernel, a, b, K, Kp, R, 1);
}

template <typename F>
static cudaError_t tb_wg_smem_attr(F kern, int bytes, int dev, volatile int *set)
{
    if (dev >= 0 && dev < TB_WG_MAX_DEV && set[dev])
        return cudaSuccess;
    cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e == cudaSuccess && dev >= 0 && dev < TB_WG_MAX_DEV)
        set[dev] = 1;
    return e;
}

/* Split K's plan for g on `sms` SMs: the parts of each split tile (1: no
 * split), and in *whole how many tiles run whole, first: none where every
 * tile is split (small grids, tb_wgmma_parts), all but the last wave's
 * where those are (tb_wgmma_tail_parts). */
static int tb_wg_plan(const tb_gemm_args &g, int sms, int *whole)
{
    const long long tiles = tb_wg_tiles(&g);
    *whole = 0;
    const int every = tb_wgmma_parts(g.m, g.n, g.k, sms);
    if (every > 1)
        return every;
    const int last = tb_wgmma_tail_parts(g.m, g.n, g.k, sms);
    *whole = (int)(last > 1 ? tiles - tiles % sms : tiles);
    return last;
}

/* The sum of a split product, under the main kernel's tail; counted with
 * the runtime's splits (tb_run_count_split). */
static cudaError_t tb_wg_sum(const tb_gemm_args &g, const float *W, int whole, int parts,
                             const unsigned *R, cudaStream_t stream)
{
    const int tiles_m = (g.m + TB_WG_BM - 1) / TB_WG_BM, tiles_n = (g.n + TB_WG_BN - 1) / TB_WG_BN;
    const int nsplit = tiles_m * tiles_n - whole;
    cudaLaunchAttribute pdl;
    const cudaLaunchConfig_t cfg = tb_pdl_config(dim3(nsplit, TB_WG_SUM_BLOCKS), dim3(TB_WG_SUM_THREADS), 0,
                                                 stream, &pdl);
    cudaError_t e =
        cudaLaunchKernelEx(&cfg, tb_wg_sum_kernel, g, W, whole, nsplit, parts, tiles_m, tiles_n, R);
    if (e != cudaSuccess)
        cudaGetLastError();
    else
        tb_run_count_split();
    return e;
}

/* g on the mma.sync kernel tf32x3, where this one cannot run it. */
static cudaError_t tb_wg_fallback(const tb_gemm_args &g, cudaStream_t stream)
{
    const tb_gemm t = tb_gemm_of(g, TB_F32);
    return tb_launch_tf32x3(&t, stream);
}

template <int DP>
static cudaError_t tb_wgmma_launch(const tb_gemm_args *args, cudaStream_t stream, int full)
{
    if (args->m <= 0 || args->n <= 0)
        return cudaSuccess;
    const tb_gemm_args g = tb_args_blas(args);
    if (g.k == 0)
        return tb_wg_fallback(g, stream);   /* C = beta * C: nothing to multiply */
    const int dev = tb_cur_dev();
    if (!tb_wgmma_hw(dev))
        return cudaErrorNotSupported;
    const int sms = tb_device_sms(dev);
    if (sms == 0)
        return cudaErrorInvalidDevice;

    const int Kp = (g.k + 31) / 32 * 32;
    const int Mp = (g.m + TB_WG_ROWPAD - 1) / TB_WG_ROWPAD * TB_WG_ROWPAD;
    const int Np = (g.n + TB_WG_ROWPAD - 1) / TB_WG_ROWPAD * TB_WG_ROWPAD;
    const size_t a_el = (size_t)Mp * Kp, b_el = (size_t)Np * Kp;
    /* The persistent kernel splits K itself where its grid would fill the
     * GPU badly: the partial tiles follow the split arrays in the scratch. */
    const long long tiles = tb_wg_tiles(&g);
    if (tiles > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    int whole = (int)tiles;
    const int parts = full ? tb_wg_plan(g, sms, &whole) : 1;
    const size_t w_el = (size_t)(tiles - whole) * parts * TB_WG_TILE_EL;
    float *ws = (float *)tb_run_scratch(
        (2 * (a_el + b_el) + w_el) * sizeof(float) + TB_WG_R_WORDS * sizeof(unsigned),
        stream);
    if (!ws)
        return tb_wg_fallback(g, stream);   /* no scratch: the mma.sync kernel, never wrong */
    float *Ab = ws, *As = Ab + a_el, *Bb = As + a_el, *Bs = Bb + b_el, *W = Bs + b_el;
    unsigned *R = (unsigned *)(W + w_el);

    /* op(A)(i, p) is A[i*lda + p] (already K-major) or A[p*lda + i];
     * op(B)^T(j, p) = op(B)(p, j) is B[p*ldb + j] (transposed here) or
     * B[j*ldb + p]. */
    const tb_split_job ja = {g.A, g.lda, g.transa, g.m, Mp, Ab, As};
    const tb_split_job jb = {g.B, g.ldb, !g.transb, g.n, Np, Bb, Bs};
    cudaError_t e = tb_wg_split(ja, jb, g.k, Kp, R, stream);
    const int vec_c = tb_wg_vec_c(g);
    if (e == cudaSuccess && !full) {
        static volatile int set[TB_WG_MAX_DEV];
        const int smem = 48 * 1024 + 1024;
        const int tiles_n = (g.n + 127) / 128;
        const long long blocks = (long long)((g.m + 63) / 64) * tiles_n;
        if (blocks > 0x7fffffffLL)
            e = cudaErrorInvalidConfiguration;
        if (e == cudaSuccess)
            e = tb_wg_smem_attr(tb_wgmma_simple_kernel, smem, dev, set);
        if (e == cudaSuccess) {
            tb_wgmma_simple_kernel<<<(unsigned)blocks, 128, smem, stream>>>(g, Ab, As, Bb, Bs, Kp,
                                                                            tiles_n, vec_c, R);
            e = cudaGetLastError();
        }
    } else if (e == cudaSuccess) {
        static volatile int set[TB_WG_MAX_DEV];
        const int smem = TB_WG_STAGES * TB_WG_STAGE_BYTES + TB_WG_STG_BYTES + 1024;
        PFN_cuTensorMapEncodeTiled_v12000 enc = tb_tma_encode_fn();
        CUtensorMap mAb, mAs, mBb, mBs;
        const long long units = whole + (tiles - whole) * parts;
        if (!enc || units > 0x7fffffffLL || !tb_wg_map(enc, &mAb, Ab, Mp, Kp) ||
            !tb_wg_map(enc, &mAs, As, Mp, Kp) || !tb_wg_map(enc, &mBb, Bb, Np, Kp) ||
            !tb_wg_map(enc, &mBs, Bs, Np, Kp))
            e = cudaErrorNotSupported;
        if (e == cudaSuccess)
            e = tb_wg_smem_attr(tb_wgmma_kernel<DP>, smem, dev, set);
        if (e == cudaSuccess) {
            cudaLaunchAttribute pdl;
            const cudaLaunchConfig_t cfg =
                tb_pdl_config(dim3(units < sms ? (unsigned)units : (unsigned)sms),
                              dim3(TB_WG_THREADS), smem, stream, &pdl);
            e = cudaLaunchKernelEx(&cfg, tb_wgmma_kernel<DP>, g, mAb, mAs, mBb, mBs, Kp,
                                   (g.m + TB_WG_BM - 1) / TB_WG_BM,
                                   (g.n + TB_WG_BN - 1) / TB_WG_BN, vec_c, whole, parts, W, R);
            if (e != cudaSuccess)
                cudaGetLastError();
        }
        if (e == cudaSuccess && parts > 1)
            e = tb_wg_sum(g, W, whole, parts, R, stream);
    }
    /* Freed in stream order, after the kernels that read it, whatever happened. */
    tb_run_scratch_free(ws, stream);
    return e;
}

extern "C" cudaError_t tb_launch_wgmma_1p(const tb_gemm *g, cudaStream_t stream)
{
    const tb_gemm_args a = tb_args_of<float>(g);
    return tb_wgmma_launch<0>(&a, stream, 1);
}

extern "C" cudaError_t tb_launch_wgmma_simple(const tb_gemm *g, cudaStream_t stream)
{
    const tb_gemm_args a = tb_args_of<float>(g);
    return tb_wgmma_launch<0>(&a, stream, 0);
}

/* The tensor map of an operand as stored, for wgmma-insplit: rows x k, the
 * element (r, p) at base[r * ld + p] (kmajor: boxes of 32 K x 128 rows,
 * 128-byte swizzle, the split tiles' layout) or at base[p * ld + r] (boxes
 * of 128 rows x 32 K, no swizzle). Outside the matrix the copy engine
 * writes zeros. */
static int tb_wi_map(PFN_cuTensorMapEncodeTiled_v12000 enc, CUtensorMap *map, const float *base,
                     size_t ld, int rows, int k, int kmajor)
{
    const cuuint64_t dims[2] = {(cuuint64_t)(kmajor ? k : rows), (cuuint64_t)(kmajor ? rows : k)};
    const cuuint64_t strides[1] = {(cuuint64_t)ld * sizeof(float)};
    const cuuint32_t box[2] = {(cuuint32_t)(kmajor ? TB_WG_BK : TB_WG_BM),
                               (cuuint32_t)(kmajor ? TB_WG_BM : TB_WG_BK)};
    const cuuint32_t estr[2] = {1, 1};
    return enc(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)base, dims, strides, box, estr,
               CU_TENSOR_MAP_INTERLEAVE_NONE,
               kmajor ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <int AK, int BK>
static cudaError_t tb_wi_run(const tb_gemm_args &g, const CUtensorMap &mA, const CUtensorMap &mB,
                             int whole, int parts, float *W, const unsigned *R, int vec_c,
                             int dev, int sms, cudaStream_t stream)
{
    static volatile int set[TB_WG_MAX_DEV];
    cudaError_t e = tb_wg_smem_attr(tb_wgmma_insplit_kernel<AK, BK>, TB_WI_SMEM, dev, set);
    if (e != cudaSuccess)
        return e;
    const int tiles_m = (g.m + TB_WG_BM - 1) / TB_WG_BM, tiles_n = (g.n + TB_WG_BN - 1) / TB_WG_BN;
    const long long units = whole + ((long long)tiles_m * tiles_n - whole) * parts;
    tb_wgmma_insplit_kernel<AK, BK><<<units < sms ? (int)units : sms, TB_WG_THREADS, TB_WI_SMEM,
                                      stream>>>(g, mA, mB, (g.k + TB_WG_BK - 1) / TB_WG_BK,
                                                tiles_m, tiles_n, vec_c, whole, parts, W, R);
    return cudaGetLastError();
}

/* The split in shared memory, for g with k > 0 whose operands' rows are
 * 16-byte aligned (what TMA reads; tb_wi_fits). */
static cudaError_t tb_wi_launch(const tb_gemm_args &g, cudaStream_t stream)
{
    const int dev = tb_cur_dev();
    if (!tb_wgmma_hw(dev))
        return cudaErrorNotSupported;
    const int sms = tb_device_sms(dev);
    PFN_cuTensorMapEncodeTiled_v12000 enc = tb_tma_encode_fn();
    if (sms == 0 || !enc)
        return cudaErrorNotSupported;
    const long long tiles = tb_wg_tiles(&g);
    if (tiles > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    int whole;
    const int parts = tb_wg_plan(g, sms, &whole);
    if (whole + (tiles - whole) * parts > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    /* op(A)(i, p) = A[i*lda + p] is K-major; op(B)(p, j) = B[j*ldb + p] is. */
    const int ak = !g.transa, bk = g.transb;
    CUtensorMap mA, mB;
    if (!tb_wi_map(enc, &mA, g.A, g.lda, g.m, g.k, ak) || !tb_wi_map(enc, &mB, g.B, g.ldb, g.n, g.k, bk))
        return tb_wgmma_launch<1>(&g, stream, 1);   /* a tensor TMA cannot map: the pre-pass */
    const size_t w_el = parts > 1 ? (size_t)(tiles - whole) * parts * TB_WG_TILE_EL : 0;
    float *W = (float *)tb_run_scratch(
        w_el * sizeof(float) + TB_WG_R_WORDS * sizeof(unsigned), stream);
    if (!W)
        return tb_wg_fallback(g, stream);   /* no scratch: the mma.sync kernel, never wrong */
    unsigned *R = (unsigned *)(W + w_el);
    const int vec_c = tb_wg_vec_c(g);
    cudaError_t e = tb_wg_range(g, R, stream);
    if (e == cudaSuccess && ak && bk)
        e = tb_wi_run<1, 1>(g, mA, mB, whole, parts, W, R, vec_c, dev, sms, stream);
    else if (e == cudaSuccess && ak)
        e = tb_wi_run<1, 0>(g, mA, mB, whole, parts, W, R, vec_c, dev, sms, stream);
    else if (e == cudaSuccess && bk)
        e = tb_wi_run<0, 1>(g, mA, mB, whole, parts, W, R, vec_c, dev, sms, stream);
    else if (e == cudaSuccess)
        e = tb_wi_run<0, 0>(g, mA, mB, whole, parts, W, R, vec_c, dev, sms, stream);
    if (e == cudaSuccess && parts > 1)
        e = tb_wg_sum(g, W, whole, parts, R, stream);
    tb_run_scratch_free(W, stream);
    return e;
}

static int tb_wi_fits(const tb_gemm_args &g)
{
    return g.m > 0 && g.n > 0 && g.k > 0 && tb_rows16(g.A, g.lda, sizeof(float)) &&
           tb_rows16(g.B, g.ldb, sizeof(float));
}

/* Which of the two pays, per unit of K (both scale with it): the pre-pass
 * reads A and B and writes twice their size, 12 (m + n) bytes at about 3.3
 * TB/s, and then the products run at about 128 TFLOP/s; split in shared
 * memory they run at about 72 (bench_kernels on the H200: wgmma 126-128 at
 * 4096 and 8192, wgmma-insplit 65-77 from 256x256x65536 to 8192). That is
 * 1/m + 1/n above about 1/300: small outputs with a long K (256 x 256 x
 * 65536: 1.5x the pre-pass's speed), a tie at 512 x 512, the pre-pass from
 * 768 x 768 up. */
static int tb_wi_pays(const tb_gemm_args &g)
{
    const double mn = (double)g.m * g.n;
    const double prepass = 12.0 * (g.m + g.n) / 3.3e12 + 2.0 * mn / 128e12;
    return 2.0 * mn / 72e12 < prepass;
}

/* wgmma: the split in shared memory where it pays and TMA can read the
 * operands, the pre-pass otherwise. */
extern "C" cudaError_t tb_launch_wgmma(const tb_gemm *in, cudaStream_t stream)
{
    const tb_gemm_args a = tb_args_of<float>(in);
    const tb_gemm_args g = tb_args_blas(&a);
    if (tb_wi_fits(g) && tb_wi_pays(g))
        return tb_wi_launch(g, stream);
    return tb_wgmma_launch<1>(&a, stream, 1);
}

/* wgmma-insplit: the split in shared memory wherever TMA can read the
 * operands; the pre-pass for the rest. */
extern "C" cudaError_t tb_launch_wgmma_insplit(const tb_gemm *in, cudaStream_t stream)
{
    const tb_gemm_args a = tb_args_of<float>(in);
    const tb_gemm_args g = tb_args_blas(&a);
    if (tb_wi_fits(g))
        return tb_wi_launch(g, stream);
    return tb_wgmma_launch<1>(&a, stream, 1);
}
