/* kernels/gemm_05_small.cu - small products: a product of a few hundred
 * million flops or less, whatever its shape, on CUDA cores with K split
 * across the grid. One template body for float ("small") and double
 * ("dsmall"); the registry sends such products here (tb_kernel_small),
 * and fp32 products too small for the Hopper kernel's grid.
 *
 * Why a kernel of its own: a small product is a chain of latencies, not of
 * arithmetic. The tensor-core kernels' 128 x 128 tiles give a 450^3 product
 * 16 blocks for 132 SMs, each walking all of K, and their pre-pass and
 * pipeline fill cost more than the whole product. The seed kernel's 16 x 16
 * tiles give it enough blocks, but do one FMA per two shared-memory loads,
 * so its speed is the shared memory's; and a small output with a long K
 * (64 x 64 x 2048: 16 blocks) leaves it a long walk on few SMs.
 *
 * Here each block owns a 32 x 32 tile of C and one range of K, each of its
 * 64 threads a 4 x 4 micro-tile in registers, read from shared memory as
 * two 4-element vectors per k step: 16 FMAs per two loads. The grid's z
 * dimension cuts K into parts until there are about TB_SMALL_BLOCKS_PER_SM
 * blocks per SM; each part writes its sums to a scratch copy of C and
 * the split sum (run_kernels.cu) adds them in order (so the result does not
 * depend on which block finished first) and applies alpha and beta. The
 * phase loop is the seed's: two barriers a phase, zeros at ragged edges;
 * the next slice comes into registers while the current one is multiplied.
 *
 * Accuracy: each thread sums a phase's 32 products in a fresh register and
 * adds that to its running total, so an element's rounding error grows
 * with 32 + k / 32 terms rather than with k; with the parts summed
 * apart, on top. */
#include "tb_kernel_common.cuh"

#define TB_SMALL_TILE 32                                  /* C tile: 32 x 32     */
#define TB_SMALL_BK 32                                    /* K slice per phase   */
#define TB_SMALL_MT 4                                     /* micro-tile: 4 x 4   */
#define TB_SMALL_DIM (TB_SMALL_TILE / TB_SMALL_MT)        /* 8 x 8 threads       */
#define TB_SMALL_THREADS (TB_SMALL_DIM * TB_SMALL_DIM)    /* 64                  */
#define TB_SMALL_LD (TB_SMALL_TILE + 4)                   /* padded shared row   */
#define TB_SMALL_LOADS (TB_SMALL_TILE * TB_SMALL_BK / TB_SMALL_THREADS) /* 16 per operand */
/* Blocks of 64 threads an SM holds at once: the registers allow 128 a
 * thread for float (8 blocks) and 255 for double (4), whose micro-tile
 * takes twice the bytes. Launch bounds hold the kernels to it, and the
 * split along K sizes the grid by it. */
#define TB_SMALL_BLOCKS_PER_SM(T) (sizeof(T) == 4 ? 8 : 4)

/* The split along K: parts until the grid is one full wave, every SM
 * holding TB_SMALL_BLOCKS_PER_SM blocks (many small blocks at once hide
 * each other's load latencies; a second wave would wait for the first),
 * each part at least TB_SMALL_MIN_DEPTH of K deep (two phases), at most
 * TB_SMALL_MAX_PARTS. */
#define TB_SMALL_MIN_DEPTH 64
#define TB_SMALL_MAX_PARTS 64

/* Four neighbouring elements of a shared-memory row (16-byte aligned for
 * float, 32 for double: the rows are TB_SMALL_LD long and the micro-tiles
 * start at multiples of 4): one 16-byte load for float, two for double. */
__device__ __forceinline__ void tb_small_ld4(const float *p, float v[4])
{
    const float4 q = *reinterpret_cast<const float4 *>(p);
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
}

__device__ __forceinline__ void tb_small_ld4(const double *p, double v[4])
{
    const double2 q0 = reinterpret_cast<const double2 *>(p)[0];
    const double2 q1 = reinterpret_cast<const double2 *>(p)[1];
    v[0] = q0.x; v[1] = q0.y; v[2] = q1.x; v[3] = q1.y;
}

/* One operand's part of a phase, into registers: the 32 x 32 block of op(X)
 * with rows r0.. (m or n of the product) and K columns p0.., zeros outside
 * rows < nrows and K < kend. Element e = tid + 64 j of the block has a
 * fast index e % 32, which a warp's lanes walk, and a slow index e / 32;
 * the fast index runs along X's stored rows (K for an untransposed A,
 * rows for a transposed one; the other way for B), so every warp reads
 * 128 contiguous bytes. k_fast: 1 when K runs along X's stored rows. */
template <typename T, int k_fast>
__device__ __forceinline__ void tb_small_fetch(const T *X, size_t ld, int r0, int nrows, int p0,
                                               int kend, T v[TB_SMALL_LOADS])
{
#pragma unroll
    for (int j = 0; j < TB_SMALL_LOADS; j++) {
        const int e = threadIdx.x + TB_SMALL_THREADS * j;
        const int f = e % TB_SMALL_TILE, s = e / TB_SMALL_TILE;
        const int r = r0 + (k_fast ? s : f), p = p0 + (k_fast ? f : s);
        v[j] = r < nrows && p < kend ? (k_fast ? X[(size_t)r * ld + p] : X[(size_t)p * ld + r])
                                     : T(0);
    }
}

/* Those registers into the K-major shared tile S[p][r]. */
template <typename T, int k_fast>
__device__ __forceinline__ void tb_small_stash(T (*S)[TB_SMALL_LD], const T v[TB_SMALL_LOADS])
{
#pragma unroll
    for (int j = 0; j < TB_SMALL_LOADS; j++) {
        const int e = threadIdx.x + TB_SMALL_THREADS * j;
        const int f = e % TB_SMALL_TILE, s = e / TB_SMALL_TILE;
        if (k_fast)
            S[f][s] = v[j];
        else
            S[s][f] = v[j];
    }
}

/* Block (x, y, z) owns C's tile at rows 32 y.., columns 32 x.., and K from
 * z kc to (z + 1) kc. With one part it writes alpha * sum + beta * C
 * (beta == 0: C is never read); with several, its sums to W + z wstride
 * (row stride ldw), for the split sum. A_KF, B_KF: whether K runs along
 * A's and B's stored rows (A untransposed, B transposed), fixed at compile
 * time so that each of the four layouts gets only its own loads. */
template <typename T, typename Args, int A_KF, int B_KF>
__global__ void __launch_bounds__(TB_SMALL_THREADS, TB_SMALL_BLOCKS_PER_SM(T))
tb_small_kernel(Args g, int kc, T *W, size_t ldw, size_t wstride)
{
    __shared__ __align__(32) T As[TB_SMALL_BK][TB_SMALL_LD];
    __shared__ __align__(32) T Bs[TB_SMALL_BK][TB_SMALL_LD];

    tb_pdl_trigger();   /* the split sum may launch now: it waits for this grid to end */
    const int tx = threadIdx.x % TB_SMALL_DIM, ty = threadIdx.x / TB_SMALL_DIM;
    const int i0 = blockIdx.y * TB_SMALL_TILE, j0 = blockIdx.x * TB_SMALL_TILE;
    const int kbeg = blockIdx.z * kc;
    const int kend = min(g.k, kbeg + kc);

    T acc[TB_SMALL_MT][TB_SMALL_MT];
#pragma unroll
    for (int r = 0; r < TB_SMALL_MT; r++)
#pragma unroll
        for (int c = 0; c < TB_SMALL_MT; c++)
            acc[r][c] = T(0);

    T ra[TB_SMALL_LOADS], rb[TB_SMALL_LOADS];
    if (kbeg < kend) {
        tb_small_fetch<T, A_KF>(g.A, g.lda, i0, g.m, kbeg, kend, ra);
        tb_small_fetch<T, B_KF>(g.B, g.ldb, j0, g.n, kbeg, kend, rb);
    }
    for (int p0 = kbeg; p0 < kend; p0 += TB_SMALL_BK) {
        tb_small_stash<T, A_KF>(As, ra);
        tb_small_stash<T, B_KF>(Bs, rb);
        /* Barrier 1: the tiles are in before anyone reads them. */
        __syncthreads();
        if (p0 + TB_SMALL_BK < kend) {   /* the next slice, in flight during the products */
            tb_small_fetch<T, A_KF>(g.A, g.lda, i0, g.m, p0 + TB_SMALL_BK, kend, ra);
            tb_small_fetch<T, B_KF>(g.B, g.ldb, j0, g.n, p0 + TB_SMALL_BK, kend, rb);
        }
        T part[TB_SMALL_MT][TB_SMALL_MT];
#pragma unroll
        for (int r = 0; r < TB_SMALL_MT; r++)
#pragma unroll
            for (int c = 0; c < TB_SMALL_MT; c++)
                part[r][c] = T(0);
#pragma unroll 8
        for (int p = 0; p < TB_SMALL_BK; p++) {
            T a[TB_SMALL_MT], b[TB_SMALL_MT];
            tb_small_ld4(&As[p][ty * TB_SMALL_MT], a);
            tb_small_ld4(&Bs[p][tx * TB_SMALL_MT], b);
#pragma unroll
            for (int r = 0; r < TB_SMALL_MT; r++)
#pragma unroll
                for (int c = 0; c < TB_SMALL_MT; c++)
                    part[r][c] = fma(a[r], b[c], part[r][c]);
        }
#pragma unroll
        for (int r = 0; r < TB_SMALL_MT; r++)
#pragma unroll
            for (int c = 0; c < TB_SMALL_MT; c++)
                acc[r][c] += part[r][c];
        /* Barrier 2: everyone is done with the tiles before the next stash. */
        __syncthreads();
    }

#pragma unroll
    for (int r = 0; r < TB_SMALL_MT; r++) {
        const int i = i0 + ty * TB_SMALL_MT + r;
        if (i >= g.m)
            break;
#pragma unroll
        for (int c = 0; c < TB_SMALL_MT; c++) {
            const int j = j0 + tx * TB_SMALL_MT + c;
            if (j >= g.n)
                break;
            if (gridDim.z > 1) {
                W[blockIdx.z * wstride + (size_t)i * ldw + j] = acc[r][c];
            } else {
                T *d = &g.C[(size_t)i * g.ldc + j];
                *d = g.beta == T(0) ? g.alpha * acc[r][c] : g.alpha * acc[r][c] + g.beta * *d;
            }
        }
    }
}

/* The number of K parts of an m x n x k product on `sms` SMs that each
 * hold per_sm blocks (1: whole): enough for one full wave, each part at
 * least TB_SMALL_MIN_DEPTH deep, at most TB_SMALL_MAX_PARTS; every part
 * gets some of K (tb_small_slice). */
static int tb_small_plan(int m, int n, int k, int sms, int per_sm)
{
    if (m <= 0 || n <= 0 || k <= 0 || sms <= 0)
        return 1;
    const long long tiles = (long long)((m + TB_SMALL_TILE - 1) / TB_SMALL_TILE) *
                            ((n + TB_SMALL_TILE - 1) / TB_SMALL_TILE);
    long long parts = ((long long)per_sm * sms + tiles - 1) / tiles;
    if (parts > k / TB_SMALL_MIN_DEPTH)
        parts = k / TB_SMALL_MIN_DEPTH;
    if (parts > TB_SMALL_MAX_PARTS)
        parts = TB_SMALL_MAX_PARTS;
    if (parts <= 1)
        return 1;
    const int kc = tb_small_slice(k, (int)parts);
    return (k + kc - 1) / kc;
}

/* The plan of element type t (pure, for tests): its blocks per SM are
 * TB_SMALL_BLOCKS_PER_SM of its type. */
extern "C" int tb_small_parts(tb_dtype t, int m, int n, int k, int sms)
{
    switch (t) {
    case TB_F32:
        return tb_small_plan(m, n, k, sms, TB_SMALL_BLOCKS_PER_SM(float));
    case TB_F64:
        return tb_small_plan(m, n, k, sms, TB_SMALL_BLOCKS_PER_SM(double));
    default:
        return 1;
    }
}

/* The depth of each part: K / parts rounded up to whole phases, so that
 * only the last part is ragged (and none is empty: tb_small_parts counts
 * the parts from this depth). */
extern "C" int tb_small_slice(int k, int parts)
{
    const int kc = (k + parts - 1) / parts;
    return (kc + TB_SMALL_BK - 1) / TB_SMALL_BK * TB_SMALL_BK;
}

template <typename T>
static cudaError_t tb_small_launch(const tb_gemm *in, cudaStream_t stream)
{
    typedef typename tb_typed<T>::args Args;
    if (in->m <= 0 || in->n <= 0)
        return cudaSuccess;
    const Args a = tb_args_of<T>(in);
    const Args g = tb_args_blas(&a);
    const dim3 tiles((g.n + TB_SMALL_TILE - 1) / TB_SMALL_TILE,
                     (g.m + TB_SMALL_TILE - 1) / TB_SMALL_TILE);
    if (tiles.y > 65535u)
        return cudaErrorInvalidConfiguration;   /* m > 2097120: the caller falls back */
    int dev = 0, parts = 1;
    if (cudaGetDevice(&dev) == cudaSuccess)
        parts = tb_small_parts(in->dtype, g.m, g.n, g.k, tb_device_sms(dev));
    else
        cudaGetLastError();
    const size_t ldw = ((size_t)g.n + 31) & ~(size_t)31, wstride = (size_t)g.m * ldw;
    T *W = parts > 1 ? (T *)tb_run_scratch((size_t)parts * wstride * sizeof(T), stream) : NULL;
    if (!W)
        parts = 1;   /* no scratch: one part, slower, not wrong */
    const int kc = parts > 1 ? tb_small_slice(g.k, parts) : (g.k > 0 ? g.k : 1);
    const dim3 grid(tiles.x, tiles.y, parts);
    if (!g.transa && !g.transb)
        tb_small_kernel<T, Args, 1, 0><<<grid, TB_SMALL_THREADS, 0, stream>>>(g, kc, W, ldw, wstride);
    else if (!g.transa)
        tb_small_kernel<T, Args, 1, 1><<<grid, TB_SMALL_THREADS, 0, stream>>>(g, kc, W, ldw, wstride);
    else if (!g.transb)
        tb_small_kernel<T, Args, 0, 0><<<grid, TB_SMALL_THREADS, 0, stream>>>(g, kc, W, ldw, wstride);
    else
        tb_small_kernel<T, Args, 0, 1><<<grid, TB_SMALL_THREADS, 0, stream>>>(g, kc, W, ldw, wstride);
    cudaError_t e = cudaGetLastError();
    if (parts > 1) {
        /* alpha and beta as handed over (tb_args_blas changes alpha only
         * where it leaves no K, so no parts). */
        if (e == cudaSuccess)
            e = tb_launch_split_sum(in->dtype, W, ldw, wstride, parts, g.m, g.n, in->alpha,
                                    in->beta, g.C, g.ldc, 0, 0, stream);
        tb_run_scratch_free(W, stream);
        if (e == cudaSuccess)
            tb_run_count_split();
    }
    return e;
}

/* "small" and "dsmall": the entry's element type picks the instance. */
extern "C" cudaError_t tb_launch_small(const tb_gemm *g, cudaStream_t stream)
{
    switch (g->dtype) {
    case TB_F32:
        return tb_small_launch<float>(g, stream);
    case TB_F64:
        return tb_small_launch<double>(g, stream);
    default:
        return cudaErrorInvalidValue;
    }
}
