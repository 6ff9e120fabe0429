/* kernels/run.cu - one product on device pointers, the way the public
 * tiledblas_sgemm_device() runs it (tb_gemm_run; tb_dgemm_run for fp64):
 * the chosen kernel; when that kernel is fast only on 16-byte aligned rows,
 * aligned copies of the operands that are not; and when its grid would fill
 * the GPU badly, K split into parts that run side by side (see "split K"
 * below). One template over the element type serves both.
 *
 * Why: the tensor-core kernels feed shared memory with 16-byte cp.async
 * copies, which need every row of the operand to start on a 16-byte
 * boundary. A stride like 4097 floats puts consecutive rows 4 bytes apart
 * modulo 16, so the kernel falls back to four times as many 4-byte copies
 * and loses about 30% (docs/kernels.md). Copying the operand once into a
 * buffer whose stride is a multiple of 32 floats costs one read and one
 * write of it at memory bandwidth (about 0.04 ms for 4097 x 4097 on the
 * H200), while the GEMM reads every element of A once per column of tiles
 * and every element of B once per row of tiles. So the copy pays whenever
 * the operand is re-read a few times, and the dispatcher makes it only then.
 *
 * The copies live in a stream-ordered memory pool of our own (never the
 * device's default pool, which belongs to the program): allocated on the
 * caller's stream before the copy, freed on it after the GEMM, so nothing
 * waits and nothing leaks. If the pool cannot give the memory, the kernel
 * runs on the unaligned operands directly: slower, never wrong. */
#include "tb_kernel_common.cuh"
#include <pthread.h>
#include <stdint.h>

/* Copy a rows x cols row-major block from src (stride lds) to dst (stride
 * ldd). Each block copies one row chunk of 4 x blockDim elements; the four
 * loads per thread are blockDim apart, so every warp-wide load and store is
 * one contiguous run of 128 bytes (coalesced whatever the alignment of src).
 * Rows go over gridDim.y with a stride loop: any number of rows. */
#define TB_PACK_THREADS 256
#define TB_PACK_UNROLL 4
template <typename T>
__global__ void __launch_bounds__(TB_PACK_THREADS)
tb_pack_kernel(const T *__restrict__ src, size_t lds, T *__restrict__ dst, size_t ldd, int rows,
               int cols)
{
    const int c0 = blockIdx.x * (TB_PACK_THREADS * TB_PACK_UNROLL) + threadIdx.x;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const T *s = src + (size_t)r * lds;
        T *d = dst + (size_t)r * ldd;
        T v[TB_PACK_UNROLL];
#pragma unroll
        for (int u = 0; u < TB_PACK_UNROLL; u++) {
            const int c = c0 + u * TB_PACK_THREADS;
            v[u] = c < cols ? s[c] : T(0);
        }
#pragma unroll
        for (int u = 0; u < TB_PACK_UNROLL; u++) {
            const int c = c0 + u * TB_PACK_THREADS;
            if (c < cols)
                d[c] = v[u];
        }
    }
}

template <typename T>
static cudaError_t tb_pack(const T *src, size_t lds, T *dst, size_t ldd, int rows, int cols,
                           cudaStream_t stream)
{
    const int chunk = TB_PACK_THREADS * TB_PACK_UNROLL;
    const unsigned gx = (unsigned)((cols + chunk - 1) / chunk);
    const unsigned gy = (unsigned)(rows < 65535 ? rows : 65535);
    tb_pack_kernel<T><<<dim3(gx, gy), TB_PACK_THREADS, 0, stream>>>(src, lds, dst, ldd, rows, cols);
    return cudaGetLastError();
}

/* ---- the pool ------------------------------------------------------------ */

#define TB_RUN_MAX_DEV 64
/* Memory the pool keeps after a stream synchronises, ready for the next
 * call; above this it goes back to the device. Two 8192 x 8192 operands. */
#define TB_POOL_KEEP ((uint64_t)512 << 20)
static cudaMemPool_t tb_pool[TB_RUN_MAX_DEV];
static int tb_pool_state[TB_RUN_MAX_DEV];          /* 0 untried, 1 ready, -1 none */
static pthread_mutex_t tb_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long tb_repacks;               /* operands repacked, for tests */

static cudaMemPool_t tb_pool_get(int dev)
{
    if (dev < 0 || dev >= TB_RUN_MAX_DEV)
        return NULL;
    pthread_mutex_lock(&tb_pool_lock);
    if (tb_pool_state[dev] == 0) {
        cudaMemPoolProps p = {};
        p.allocType = cudaMemAllocationTypePinned;
        p.location.type = cudaMemLocationTypeDevice;
        p.location.id = dev;
        cudaMemPool_t pool;
        tb_pool_state[dev] = -1;
        if (cudaMemPoolCreate(&pool, &p) == cudaSuccess) {
            uint64_t keep = TB_POOL_KEEP;
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
            tb_pool[dev] = pool;
            tb_pool_state[dev] = 1;
        } else {
            cudaGetLastError(); /* e.g. no memory-pool support: run unpacked */
        }
    }
    cudaMemPool_t r = tb_pool_state[dev] == 1 ? tb_pool[dev] : NULL;
    pthread_mutex_unlock(&tb_pool_lock);
    return r;
}

extern "C" size_t tb_run_pool_bytes(void)
{
    size_t total = 0;
    pthread_mutex_lock(&tb_pool_lock);
    for (int d = 0; d < TB_RUN_MAX_DEV; d++) {
        uint64_t v = 0;
        if (tb_pool_state[d] == 1 &&
            cudaMemPoolGetAttribute(tb_pool[d], cudaMemPoolAttrReservedMemCurrent, &v) == cudaSuccess)
            total += (size_t)v;
    }
    pthread_mutex_unlock(&tb_pool_lock);
    return total;
}

/* Scratch for a launcher's own pre-pass (sgemm_04_wgmma.cu), on `stream`.
 * Its split copies of A and B are large (16 bytes per element of A and B:
 * 1 GiB at 8192, 4 GiB at 16384), and memory the pool gives back when a
 * stream synchronises must be mapped again by the next call. So the pool's
 * keep threshold rises to the largest such request seen, up to a sixteenth
 * of the device's memory: a program that repeats a product pays the mapping
 * once. */
static uint64_t tb_pool_keep[TB_RUN_MAX_DEV];

extern "C" void *tb_run_scratch(size_t bytes, cudaStream_t stream)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    cudaMemPool_t pool = tb_pool_get(dev);
    void *p = NULL;
    if (!pool || cudaMallocFromPoolAsync(&p, bytes, pool, stream) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    pthread_mutex_lock(&tb_pool_lock);
    if (bytes > tb_pool_keep[dev] && bytes > TB_POOL_KEEP) {
        size_t free_b = 0, total = 0;
        if (cudaMemGetInfo(&free_b, &total) == cudaSuccess && bytes <= total / 16) {
            uint64_t keep = bytes;
            if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess)
                tb_pool_keep[dev] = keep;
        }
        cudaGetLastError();
    }
    pthread_mutex_unlock(&tb_pool_lock);
    return p;
}

extern "C" void tb_run_scratch_free(void *p, cudaStream_t stream)
{
    if (p && cudaFreeAsync(p, stream) != cudaSuccess)
        cudaGetLastError();
}

extern "C" unsigned long long tb_run_repack_count(void)
{
    return __atomic_load_n(&tb_repacks, __ATOMIC_RELAXED);
}

/* ---- the decision ---------------------------------------------------------- */

/* Tiles of C that read each element of op(A) (the column tiles) and of op(B)
 * (the row tiles), with 128 x 128 tiles. An operand read fewer than 4 times
 * is not worth copying once. Below 2 * 384^3 flops the kernel is launch-bound
 * and the extra launches are not worth it either. */
template <typename Args> static int tb_want_repack(const Args *g, int which)
{
    const double flops = 2.0 * g->m * (double)g->n * g->k;
    if (flops < 2.0 * 384 * 384 * 384)
        return 0;
    const int reuse = which == 0 ? (g->n + 127) / 128 : (g->m + 127) / 128;
    return reuse >= 4;
}

static size_t tb_round32(size_t x) { return (x + 31) & ~(size_t)31; }

/* ---- split K ----------------------------------------------------------------
 *
 * A grid that fills the GPU badly wastes it: 1537^3 makes 169 tiles of
 * 128 x 128 for 132 SMs, so the second wave runs 37 tiles while 95 SMs wait
 * (64% of the machine used). Splitting K into S parts gives S times the
 * tiles, each with K/S of the work: 507 tiles for 528 slots, 96% used. The
 * parts are independent GEMMs (op(A) and op(B) offset along K, alpha 1,
 * beta 0) into S scratch copies of C, launched on S streams so that their
 * tiles share the SMs; one more kernel adds them up and applies alpha and
 * beta (C is read only when beta != 0). The price: S partial C's written
 * and read back, 8 S mn bytes at ~3 TB/s against 2mnk flops at ~50 TFLOP/s,
 * about 67 S / k of the GEMM's time. */
#define TB_MAX_SPLIT 32   /* parts of a small grid; side streams: one fewer */
#define TB_FULL_SPLIT 4   /* parts of a grid of at least one wave          */
static cudaStream_t tb_side[TB_RUN_MAX_DEV][TB_MAX_SPLIT - 1];
static int tb_side_state[TB_RUN_MAX_DEV];           /* 0 untried, 1 ready, -1 none */
static unsigned long long tb_splits;                 /* products split, for tests */

extern "C" unsigned long long tb_run_split_count(void)
{
    return __atomic_load_n(&tb_splits, __ATOMIC_RELAXED);
}

/* Share of the slots a grid of `blocks` keeps busy: blocks / (waves x slots). */
static double tb_fill(long long blocks, long long slots)
{
    return (double)blocks / (double)(((blocks + slots - 1) / slots) * slots);
}

/* K is cut into slices of tb_split_slice(k, parts) (a multiple of 32: aligned
 * rows stay aligned); rounding up can leave the last parts with no K at all
 * (256 x 256 x 8193 in 32 parts: slices of 288, parts 29-31 empty), so
 * tb_split_fit keeps only as many parts as the slices need. */
static int tb_split_slice(int k, int parts)
{
    return (int)tb_round32((size_t)((k + parts - 1) / parts));
}

static int tb_split_fit(int k, int parts)
{
    while (parts > 1 && (long long)(parts - 1) * tb_split_slice(k, parts) >= k)
        parts--;
    return parts;
}

/* The scoring all three split plans share: of 2 .. max_parts parts, each at
 * least 256 deep, the count that keeps the largest share of `slots` busy
 * over the waves of parts x tiles blocks, after the partials' price (price
 * x parts / k of the product's time); taken only when it beats the whole
 * grid by 15%, and fitted so that no part is empty. 1: stay whole. */
static int tb_best_parts(long long tiles, long long slots, int k, int max_parts, double price)
{
    const double base = tb_fill(tiles, slots);
    double best = base;
    int pick = 1;
    for (int parts = 2; parts <= max_parts && k / parts >= 256; parts++) {
        const double score = tb_fill(parts * tiles, slots) / (1.0 + price * parts / k);
        if (score > best) {
            best = score;
            pick = parts;
        }
    }
    return best > 1.15 * base ? tb_split_fit(k, pick) : 1;   /* a clear gain only */
}

/* The number of parts to split K into for an m x n x k product on a GPU of
 * `sms` SMs (1: do not split); every part gets some of K, all but the last
 * at least 256. A pure function, so that CI can check it. */
extern "C" int tb_split_parts(int m, int n, int k, int sms)
{
    const double flops = 2.0 * m * (double)n * k;
    if (flops < 2.0 * 768 * 768 * 768 || k < 512 || sms <= 0)
        return 1;
    /* The launcher's tiling (sgemm_03_tf32x3.cu): 128-row tiles, one per
     * SM, or 64-row tiles, two per SM, when 128-row ones would not give
     * every SM a tile. Grids of 64-row tiles stay whole: with one 4-warp
     * block on nearly every SM the kernel runs 1024 at 106-109% of cuBLAS,
     * and split in three at 95%; the parts' extra launches weigh at 0.1
     * ms. */
    const long long t128 = (long long)((m + 127) / 128) * ((n + 127) / 128);
    if (t128 < sms) {
        /* A small output with a long K (256 x 256 x 65536: 8 blocks of
         * 64 x 128 for 132 SMs) leaves nearly all of the GPU idle, and no
         * tiling fixes that: K is cut into parts of at least 256 until
         * there are about two blocks per SM, at most 32 parts (the last
         * part may be shorter). Only grids of at most half the SMs: fuller
         * ones stay whole, as above. */
        const long long t64 = (long long)((m + 63) / 64) * ((n + 127) / 128);
        if (2 * t64 > sms)
            return 1;
        long long parts = 2LL * sms / t64;
        if (parts > k / 256)
            parts = k / 256;
        if (parts > TB_MAX_SPLIT)
            parts = TB_MAX_SPLIT;
        return parts >= 2 ? tb_split_fit(k, (int)parts) : 1;
    }
    return tb_best_parts(t128, sms, k, TB_FULL_SPLIT, 67.0);
}

/* The same for fp64 and dgemm_01's tiling, which is tf32x3's (128-row
 * tiles, or 64-row tiles two per SM when 128-row ones would not give every
 * SM a tile). The partial C's are doubles: 16 S mn bytes at ~3 TB/s against
 * 2mnk flops at ~55 TFLOP/s, about 147 S / k of the GEMM's time. Every grid
 * is scored the same way, grids of 64-row tiles too, counting two slots
 * per SM: the parts (at most 32, each at least 256 deep) that maximise the
 * share of slots kept busy over the waves, after that price, when it beats
 * the whole grid by 15%. 1025 x 1025 x 8192 (153 blocks of 64 x 128 for
 * 264 slots, 58%) runs in 5 parts (765 blocks, 97%); 768 x 768 x 16384 (72
 * blocks, 27%) in 11. */
extern "C" int tb_dsplit_parts(int m, int n, int k, int sms)
{
    const double flops = 2.0 * m * (double)n * k;
    if (flops < 2.0 * 768 * 768 * 768 || k < 512 || sms <= 0)
        return 1;
    const long long t128 = (long long)((m + 127) / 128) * ((n + 127) / 128);
    const long long t64 = (long long)((m + 63) / 64) * ((n + 127) / 128);
    const long long tiles = t128 < sms ? t64 : t128, slots = t128 < sms ? 2LL * sms : sms;
    return tb_best_parts(tiles, slots, k, TB_MAX_SPLIT, 147.0);
}

/* The same for the wgmma kernel (sgemm_04_wgmma.cu), which splits K inside
 * its own persistent grid: a work unit is one 128 x 128 tile and one range
 * of 32-deep K slices, and a sum kernel adds the units' partial tiles.
 * Scored as above with that kernel's price: the partials, 8 S mn bytes
 * (written, then read by the sum) at ~3 TB/s, against 2mnk flops at ~125
 * TFLOP/s, are about 167 S / k of the product's time. At most TB_MAX_SPLIT
 * parts, each at least 256 deep; a clear gain (15%) only; no part empty
 * (the kernel gives each part ceil(slices / S) slices of 32, the last one
 * the rest: tb_split_slice's rounding). 768 x 768 x 16384 (36 tiles for
 * 132 SMs) runs in 11 parts (396 units, 3 full waves). */
extern "C" int tb_wgmma_parts(int m, int n, int k, int sms)
{
    if (m <= 0 || n <= 0 || k < 512 || sms <= 0)
        return 1;
    const long long tiles = (long long)((m + 127) / 128) * ((n + 127) / 128);
    return tb_best_parts(tiles, sms, k, TB_MAX_SPLIT, 167.0);
}

/* The wgmma kernel's last wave: a grid of T = w S + r tiles on S SMs (w >=
 * 1, 0 < r < S) runs w full waves and then r tiles, the other S - r SMs
 * idle for a tile's time. Those r tiles run in q parts along K instead, q
 * = S / r (at most TB_MAX_SPLIT, each part at least 64 deep, none empty), so
 * that the last wave takes about 1/q of a tile's time; their partials, q r
 * tiles of 64 KB written and read back once, are small beside a wave.
 * 777 x 9999 x 333 (553 tiles on 132 SMs: 4 waves and 25 tiles) runs its
 * last 25 in 4 parts, 8192^3 (31 waves and 4) its last 4 in 32; 4096^3 (7
 * waves and 100) stays whole. 1: no split. For grids that tb_wgmma_parts
 * leaves whole; pure, for tests. */
extern "C" int tb_wgmma_tail_parts(int m, int n, int k, int sms)
{
    if (m <= 0 || n <= 0 || k <= 0 || sms <= 0)
        return 1;
    const long long tiles = (long long)((m + 127) / 128) * ((n + 127) / 128);
    const long long r = tiles % sms;
    if (tiles < sms || r == 0)
        return 1;
    long long q = sms / r;
    if (q > k / 64)
        q = k / 64;
    if (q > TB_MAX_SPLIT)
        q = TB_MAX_SPLIT;
    return q >= 2 ? tb_split_fit(k, (int)q) : 1;
}

static int tb_split_count(const tb_gemm_args *g, int dev)
{
    if (dev < 0 || dev >= TB_RUN_MAX_DEV)
        return 1;
    return tb_split_parts(g->m, g->n, g->k, tb_device_sms(dev));
}

static int tb_split_count(const tb_dgemm_args *g, int dev)
{
    if (dev < 0 || dev >= TB_RUN_MAX_DEV)
        return 1;
    return tb_dsplit_parts(g->m, g->n, g->k, tb_device_sms(dev));
}

/* S - 1 streams of our own per device, made once; 0 when they cannot be. */
static int tb_side_get(int dev, cudaStream_t *side)
{
    pthread_mutex_lock(&tb_pool_lock);
    if (tb_side_state[dev] == 0) {
        tb_side_state[dev] = 1;
        for (int i = 0; i < TB_MAX_SPLIT - 1; i++)
            if (cudaStreamCreateWithFlags(&tb_side[dev][i], cudaStreamNonBlocking) != cudaSuccess) {
                cudaGetLastError();
                tb_side_state[dev] = -1;
                break;
            }
    }
    int ok = tb_side_state[dev] == 1;
    if (ok)
        for (int i = 0; i < TB_MAX_SPLIT - 1; i++)
            side[i] = tb_side[dev][i];
    pthread_mutex_unlock(&tb_pool_lock);
    return ok;
}

/* C = alpha * (W_0 + ... + W_{S-1}) + beta * C, the W_s being the parts'
 * results (stride ldw, wstride apart), in the element type T (alpha and beta
 * of fp64 products in double). Rows over gridDim.y, columns over threads:
 * coalesced, any shape. */
template <typename T>
__global__ void __launch_bounds__(256)
tb_split_sum(const T *__restrict__ W, size_t ldw, size_t wstride, int parts, int m, int n, T alpha,
             T beta, T *C, size_t ldc)
{
    tb_pdl_wait();   /* the parts are written (small kernel: launched under its tail) */
    for (int r = blockIdx.y; r < m; r += gridDim.y)
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x) {
            /* Loads eight parts at a time before adding them (a sum over
             * many parts is a chain of loads otherwise), in part order. */
            const T *w = W + (size_t)r * ldw + c;
            T s = w[0];
            int p = 1;
            for (; p + 8 <= parts; p += 8) {
                T v[8];
#pragma unroll
                for (int u = 0; u < 8; u++)
                    v[u] = w[(size_t)(p + u) * wstride];
#pragma unroll
                for (int u = 0; u < 8; u++)
                    s += v[u];
            }
            for (; p < parts; p++)
                s += w[(size_t)p * wstride];
            T *d = C + (size_t)r * ldc + c;
            *d = beta == T(0) ? alpha * s : alpha * s + beta * *d;
        }
}

/* Launch tb_split_sum for an m x n C, allowed to start under the tail of
 * the kernel that wrote the parts (it waits for that kernel's end first). */
template <typename T>
static cudaError_t tb_split_close(const T *W, size_t ldw, size_t wstride, int parts, int m, int n,
                                  T alpha, T beta, T *C, size_t ldc, cudaStream_t stream)
{
    const unsigned gx = (unsigned)((n + 255) / 256 < 8 ? (n + 255) / 256 : 8);
    const unsigned gy = (unsigned)(m < 65535 ? m : 65535);
    cudaLaunchAttribute pdl;
    const cudaLaunchConfig_t cfg = tb_pdl_config(dim3(gx, gy), dim3(256), 0, stream, &pdl);
    cudaError_t e = cudaLaunchKernelEx(&cfg, tb_split_sum<T>, W, ldw, wstride, parts, m, n, alpha,
                                       beta, C, ldc);
    if (e != cudaSuccess)
        cudaGetLastError();
    return e;
}

/* The same sum for a kernel that split K itself (gemm_05_small.cu): its
 * parts' sums at W (elements of dtype), alpha and beta as tb_gemm keeps
 * them. */
extern "C" cudaError_t tb_run_split_sum(tb_dtype dtype, const void *W, size_t ldw, size_t wstride,
                                        int parts, int m, int n, double alpha, double beta,
                                        void *C, size_t ldc, cudaStream_t stream)
{
    if (dtype == TB_F64)
        return tb_split_close<double>((const double *)W, ldw, wstride, parts, m, n, alpha, beta,
                                      (double *)C, ldc, stream);
    return tb_split_close<float>((const float *)W, ldw, wstride, parts, m, n, (float)alpha,
                                 (float)beta, (float *)C, ldc, stream);
}

/* A product that a kernel split itself (wgmma, small), counted with the
 * splits made here. */
extern "C" void tb_run_count_split(void)
{
    __atomic_add_fetch(&tb_splits, 1ULL, __ATOMIC_RELAXED);
}

/* The element type's argument struct and launcher. */
template <typename T> struct tb_typed;
template <> struct tb_typed<float> {
    typedef tb_gemm_args args;
    static cudaError_t launch(const tb_kernel_info *k, const args *a, cudaStream_t s)
    {
        return k->launch(a, s);
    }
};
template <> struct tb_typed<double> {
    typedef tb_dgemm_args args;
    static cudaError_t launch(const tb_kernel_info *k, const args *a, cudaStream_t s)
    {
        return k->dlaunch(a, s);
    }
};

template <typename T>
static cudaError_t tb_split_run(const typename tb_typed<T>::args *g, const tb_kernel_info *kern,
                                int parts, T *W, size_t ldw, int dev, cudaStream_t stream)
{
    cudaStream_t side[TB_MAX_SPLIT - 1];
    cudaEvent_t fork = NULL, join[TB_MAX_SPLIT] = {};
    int concurrent = tb_side_get(dev, side) &&
                     cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) == cudaSuccess;
    for (int p = 1; concurrent && p < parts; p++)
        concurrent = cudaEventCreateWithFlags(&join[p], cudaEventDisableTiming) == cudaSuccess;
    if (!concurrent)
        cudaGetLastError();   /* no side streams or events: the parts run one after another */
    if (concurrent && cudaEventRecord(fork, stream) != cudaSuccess)
        concurrent = 0;
    cudaError_t e = cudaSuccess;
    /* K cut in slices of a multiple of 32 (the kernels' BK: aligned rows stay
     * aligned); tb_split_parts gave a count for which every part gets some. */
    const int kc = tb_split_slice(g->k, parts);
    const size_t wstride = (size_t)g->m * ldw;
    for (int p = 0; p < parts; p++) {
        cudaStream_t st = concurrent && p > 0 ? side[p - 1] : stream;
        if (concurrent && p > 0 && cudaStreamWaitEvent(st, fork, 0) != cudaSuccess && e == cudaSuccess)
            e = cudaGetLastError();
        const size_t k0 = (size_t)p * kc;
        typename tb_typed<T>::args q = *g;
        q.k = g->k - (int)k0 < kc ? g->k - (int)k0 : kc;
        q.A = g->transa ? g->A + k0 * g->lda : g->A + k0;
        q.B = g->transb ? g->B + k0 : g->B + k0 * g->ldb;
        q.C = W + p * wstride;
        q.ldc = ldw;
        q.alpha = 1;
        q.beta = 0;
        if (e == cudaSuccess)
            e = tb_typed<T>::launch(kern, &q, st);
        /* Join even after a failure: the scratch is freed on `stream` after this. */
        if (concurrent && p > 0) {
            cudaEventRecord(join[p], st);
            cudaStreamWaitEvent(stream, join[p], 0);
        }
    }
    if (e == cudaSuccess)
        e = tb_split_close<T>(W, ldw, wstride, parts, g->m, g->n, g->alpha, g->beta, g->C, g->ldc,
                              stream);
    if (fork)
        cudaEventDestroy(fork);
    for (int p = 1; p < parts; p++)
        if (join[p])
            cudaEventDestroy(join[p]);
    return e;
}

/* ---- the product ------------------------------------------------------------ */

template <typename T>
static cudaError_t tb_run(const typename tb_typed<T>::args *args, const tb_kernel_info *kern,
                          cudaStream_t stream)
{
    typename tb_typed<T>::args g = *args;
    if (!kern->wants_aligned || g.m <= 0 || g.n <= 0 || g.k <= 0 || g.alpha == T(0))
        return tb_typed<T>::launch(kern, &g, stream);

    /* Stored shapes: A is m x k (k x m when transposed), B k x n (n x k). */
    const int a_rows = g.transa ? g.k : g.m, a_cols = g.transa ? g.m : g.k;
    const int b_rows = g.transb ? g.n : g.k, b_cols = g.transb ? g.k : g.n;
    const int pack_a = !tb_rows16(g.A, g.lda, sizeof(T)) && tb_want_repack(&g, 0);
    const int pack_b = !tb_rows16(g.B, g.ldb, sizeof(T)) && tb_want_repack(&g, 1);
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return tb_typed<T>::launch(kern, &g, stream);
    }
    const int parts = tb_split_count(&g, dev);
    if (!pack_a && !pack_b && parts == 1)
        return tb_typed<T>::launch(kern, &g, stream);

    cudaMemPool_t pool = tb_pool_get(dev);
    const size_t lda2 = tb_round32((size_t)a_cols), ldb2 = tb_round32((size_t)b_cols);
    const size_t ldw = tb_round32((size_t)g.n);
    const size_t a_bytes = pack_a ? (size_t)a_rows * lda2 * sizeof(T) : 0;
    const size_t b_bytes = pack_b ? (size_t)b_rows * ldb2 * sizeof(T) : 0;
    const size_t w_bytes = parts > 1 ? (size_t)parts * g.m * ldw * sizeof(T) : 0;
    void *buf = NULL;
    if (!pool ||
        cudaMallocFromPoolAsync(&buf, a_bytes + b_bytes + w_bytes, pool, stream) != cudaSuccess) {
        cudaGetLastError(); /* no room: the direct kernel is slower, not wrong */
        return tb_typed<T>::launch(kern, &g, stream);
    }
    cudaError_t e = cudaSuccess;
    T *pa = (T *)buf, *pb = (T *)((char *)buf + a_bytes);
    T *pw = (T *)((char *)buf + a_bytes + b_bytes);
    if (pack_a && (e = tb_pack(g.A, g.lda, pa, lda2, a_rows, a_cols, stream)) == cudaSuccess) {
        g.A = pa;
        g.lda = lda2;
    }
    if (e == cudaSuccess && pack_b &&
        (e = tb_pack(g.B, g.ldb, pb, ldb2, b_rows, b_cols, stream)) == cudaSuccess) {
        g.B = pb;
        g.ldb = ldb2;
    }
    if (e == cudaSuccess)
        e = parts > 1 ? tb_split_run<T>(&g, kern, parts, pw, ldw, dev, stream)
                      : tb_typed<T>::launch(kern, &g, stream);
    /* Freed in stream order: after the kernels that read it, whatever happened. */
    cudaError_t f = cudaFreeAsync(buf, stream);
    if (e == cudaSuccess && f != cudaSuccess)
        e = f;
    if (e == cudaSuccess) {
        __atomic_add_fetch(&tb_repacks, (unsigned long long)(pack_a + pack_b), __ATOMIC_RELAXED);
        if (parts > 1)
            __atomic_add_fetch(&tb_splits, 1ULL, __ATOMIC_RELAXED);
    }
    return e;
}

/* A kernel of the other element type (a name forced by the caller) is
 * refused, never launched through the wrong launcher. */
extern "C" cudaError_t tb_gemm_run(const tb_gemm_args *args, const tb_kernel_info *kern,
                                   cudaStream_t stream)
{
    if (!kern)
        kern = tb_kernel_pick(args);
    if (!kern || kern->dtype != TB_F32 || !kern->launch)
        return cudaErrorInvalidValue;
    return tb_run<float>(args, kern, stream);
}

extern "C" cudaError_t tb_dgemm_run(const tb_dgemm_args *args, const tb_kernel_info *kern,
                                    cudaStream_t stream)
{
    if (!kern)
        kern = tb_dkernel_pick(args);
    if (!kern || kern->dtype != TB_F64 || !kern->dlaunch)
        return cudaErrorInvalidValue;
    return tb_run<double>(args, kern, stream);
}
