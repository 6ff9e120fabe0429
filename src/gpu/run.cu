/* src/gpu/run.cu - the host runtime under the kernels: one product on device
 * pointers run with a kernel the way the public tiledblas_{s,d,c,z}gemm_device()
 * and the preload's pipeline run it (tb_gemm_run), for every element type
 * alike (a complex product's launcher, complex_00_realify.cu, runs its real
 * product through it again); the stream-ordered memory
 * pool its copies, its K parts and the kernels' own pre-passes take scratch
 * from (tb_run_scratch); the side streams the parts run on; and the loading
 * of the kernels' code ahead of the first call (tb_kernels_load).
 *
 * It decides nothing about a product: the registry's tb_kernel_plan says
 * which operands to copy to aligned rows and how many parts to cut K into
 * (kernels/registry.c, with why); this file allocates, launches and joins.
 * The kernels it launches besides the chosen one, the copy and the split
 * sum, are kernels/run_kernels.cu's.
 *
 * The scratch lives in a stream-ordered memory pool of our own (never the
 * device's default pool, which belongs to the program): allocated on the
 * caller's stream before the copy, freed on it after the GEMM, so nothing
 * waits and nothing leaks. If the pool cannot give the memory, the kernel
 * runs on the operands as they are, whole: slower, never wrong.
 *
 * Host code only (CUDA C for the runtime API's C++ defaults), built into
 * the tb_kernels library beside the kernels that take its scratch. */
#include "tb_kernels.h"
#include <pthread.h>
#include <stdint.h>

#define TB_RUN_MAX_DEV 64

/* ---- the pool ------------------------------------------------------------ */

/* Memory the pool keeps after a stream synchronises, ready for the next
 * call; above this it goes back to the device. Two 8192 x 8192 operands. */
#define TB_POOL_KEEP ((uint64_t)512 << 20)
static cudaMemPool_t tb_pool[TB_RUN_MAX_DEV];
static int tb_pool_state[TB_RUN_MAX_DEV];          /* 0 untried, 1 ready, -1 none */
static pthread_mutex_t tb_pool_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* Scratch for a launcher's own pre-pass (sgemm_04_wgmma.cu) or K split
 * (gemm_05_small.cu), on `stream`. wgmma's split copies of A and B are
 * large (16 bytes per element of A and B: 1 GiB at 8192, 4 GiB at 16384),
 * and memory the pool gives back when a stream synchronises must be mapped
 * again by the next call. So the pool's keep threshold rises to the largest
 * such request seen, up to a sixteenth of the device's memory: a program
 * that repeats a product pays the mapping once. */
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

/* ---- counts, for tests ------------------------------------------------------ */

static unsigned long long tb_repacks;   /* operands copied to aligned scratch */
static unsigned long long tb_splits;    /* products split along K            */

extern "C" unsigned long long tb_run_repack_count(void)
{
    return __atomic_load_n(&tb_repacks, __ATOMIC_RELAXED);
}

extern "C" unsigned long long tb_run_split_count(void)
{
    return __atomic_load_n(&tb_splits, __ATOMIC_RELAXED);
}

extern "C" void tb_run_count_split(void)
{
    __atomic_add_fetch(&tb_splits, 1ULL, __ATOMIC_RELAXED);
}

/* ---- K in parts ---------------------------------------------------------------
 *
 * The parts are independent products (op(A) and op(B) offset along K,
 * alpha 1, beta 0) into scratch copies of C, launched on side streams so
 * that their tiles share the SMs; the split sum adds them in order and
 * applies alpha and beta. A wanted triangle goes to the parts and the sum
 * alike: what a part may leave unwritten, the sum does not read. */
static cudaStream_t tb_side[TB_RUN_MAX_DEV][TB_MAX_PARTS - 1];
static int tb_side_state[TB_RUN_MAX_DEV];           /* 0 untried, 1 ready, -1 none */

/* TB_MAX_PARTS - 1 streams of our own per device, made once; 0 when they
 * cannot be. */
static int tb_side_get(int dev, cudaStream_t *side)
{
    pthread_mutex_lock(&tb_pool_lock);
    if (tb_side_state[dev] == 0) {
        tb_side_state[dev] = 1;
        for (int i = 0; i < TB_MAX_PARTS - 1; i++)
            if (cudaStreamCreateWithFlags(&tb_side[dev][i], cudaStreamNonBlocking) != cudaSuccess) {
                cudaGetLastError();
                tb_side_state[dev] = -1;
                break;
            }
    }
    int ok = tb_side_state[dev] == 1;
    if (ok)
        for (int i = 0; i < TB_MAX_PARTS - 1; i++)
            side[i] = tb_side[dev][i];
    pthread_mutex_unlock(&tb_pool_lock);
    return ok;
}

/* g's K in pl->parts launches of kern, their results at W (row stride ldw,
 * one m x ldw block per part), then the split sum into g's C. */
static cudaError_t tb_split_run(const tb_gemm *g, const tb_kernel_info *kern,
                                const tb_run_plan *pl, void *W, size_t ldw, int dev,
                                cudaStream_t stream)
{
    const int parts = pl->parts;
    cudaStream_t side[TB_MAX_PARTS - 1];
    cudaEvent_t fork = NULL, join[TB_MAX_PARTS] = {};
    int concurrent = tb_side_get(dev, side) &&
                     cudaEventCreateWithFlags(&fork, cudaEventDisableTiming) == cudaSuccess;
    for (int p = 1; concurrent && p < parts; p++)
        concurrent = cudaEventCreateWithFlags(&join[p], cudaEventDisableTiming) == cudaSuccess;
    if (!concurrent)
        cudaGetLastError();   /* no side streams or events: the parts run one after another */
    if (concurrent && cudaEventRecord(fork, stream) != cudaSuccess)
        concurrent = 0;
    cudaError_t e = cudaSuccess;
    const size_t es = tb_dtype_size(g->dtype);
    const int kc = pl->slice;   /* every part gets some of K (tb_kernel_plan) */
    const size_t wstride = (size_t)g->m * ldw;
    const tb_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    for (int p = 0; p < parts; p++) {
        cudaStream_t st = concurrent && p > 0 ? side[p - 1] : stream;
        if (concurrent && p > 0 && cudaStreamWaitEvent(st, fork, 0) != cudaSuccess && e == cudaSuccess)
            e = cudaGetLastError();
        const size_t k0 = (size_t)p * kc;
        tb_gemm q = *g;
        q.k = g->k - (int)k0 < kc ? g->k - (int)k0 : kc;
        q.A = (const char *)g->A + es * (g->transa ? k0 * g->lda : k0);
        q.B = (const char *)g->B + es * (g->transb ? k0 : k0 * g->ldb);
        q.C = (char *)W + es * (p * wstride);
        q.ldc = ldw;
        q.alpha = one;
        q.beta = zero;
        if (e == cudaSuccess)
            e = kern->launch(&q, st);
        /* Join even after a failure: the scratch is freed on `stream` after this. */
        if (concurrent && p > 0) {
            cudaEventRecord(join[p], st);
            cudaStreamWaitEvent(stream, join[p], 0);
        }
    }
    if (e == cudaSuccess)
        e = tb_launch_split_sum(g->dtype, W, ldw, wstride, parts, g->m, g->n, g->alpha, g->beta,
                                g->C, g->ldc, g->tri, g->tri_w, stream);
    if (fork)
        cudaEventDestroy(fork);
    for (int p = 1; p < parts; p++)
        if (join[p])
            cudaEventDestroy(join[p]);
    return e;
}

/* ---- the product ------------------------------------------------------------ */

static size_t tb_round32(size_t x) { return (x + 31) & ~(size_t)31; }

extern "C" cudaError_t tb_gemm_run(const tb_gemm *g_in, const tb_kernel_info *kern, int whole,
                                   cudaStream_t stream)
{
    /* The real types' kernels read a transpose as a truth value: op 2
     * (conjugate transpose) is op 1 for them. */
    tb_gemm real_op;
    const tb_gemm *in = g_in;
    if (tb_dtype_real(in->dtype) == in->dtype && (in->transa > 1 || in->transb > 1)) {
        real_op = *in;
        real_op.transa = in->transa != 0;
        real_op.transb = in->transb != 0;
        in = &real_op;
    }
    if (!kern)
        kern = tb_kernel_pick(in, 1);
    if (!kern || kern->dtype != in->dtype || !kern->launch)
        return cudaErrorInvalidValue;
    if (whole)
        return kern->launch(in, stream);
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        dev = -1;
    }
    const int sms = dev >= 0 && dev < TB_RUN_MAX_DEV ? tb_device_sms(dev) : 0;
    const tb_run_plan pl = tb_kernel_plan(kern, in, sms);
    if (!pl.pack_a && !pl.pack_b && pl.parts == 1)
        return kern->launch(in, stream);

    tb_gemm g = *in;
    const size_t es = tb_dtype_size(g.dtype);
    /* Stored shapes: A is m x k (k x m when transposed), B k x n (n x k). */
    const int a_rows = g.transa ? g.k : g.m, a_cols = g.transa ? g.m : g.k;
    const int b_rows = g.transb ? g.n : g.k, b_cols = g.transb ? g.k : g.n;
    cudaMemPool_t pool = tb_pool_get(dev);
    const size_t lda2 = tb_round32((size_t)a_cols), ldb2 = tb_round32((size_t)b_cols);
    const size_t ldw = tb_round32((size_t)g.n);
    const size_t a_bytes = pl.pack_a ? (size_t)a_rows * lda2 * es : 0;
    const size_t b_bytes = pl.pack_b ? (size_t)b_rows * ldb2 * es : 0;
    const size_t w_bytes = pl.parts > 1 ? (size_t)pl.parts * g.m * ldw * es : 0;
    void *buf = NULL;
    if (!pool ||
        cudaMallocFromPoolAsync(&buf, a_bytes + b_bytes + w_bytes, pool, stream) != cudaSuccess) {
        cudaGetLastError(); /* no room: the direct kernel is slower, not wrong */
        return kern->launch(&g, stream);
    }
    cudaError_t e = cudaSuccess;
    char *pa = (char *)buf, *pb = pa + a_bytes, *pw = pb + b_bytes;
    if (pl.pack_a &&
        (e = tb_launch_pack(g.dtype, g.A, g.lda, pa, lda2, a_rows, a_cols, stream)) == cudaSuccess) {
        g.A = pa;
        g.lda = lda2;
    }
    if (e == cudaSuccess && pl.pack_b &&
        (e = tb_launch_pack(g.dtype, g.B, g.ldb, pb, ldb2, b_rows, b_cols, stream)) == cudaSuccess) {
        g.B = pb;
        g.ldb = ldb2;
    }
    if (e == cudaSuccess)
        e = pl.parts > 1 ? tb_split_run(&g, kern, &pl, pw, ldw, dev, stream)
                         : kern->launch(&g, stream);
    /* Freed in stream order: after the kernels that read it, whatever happened. */
    cudaError_t f = cudaFreeAsync(buf, stream);
    if (e == cudaSuccess && f != cudaSuccess)
        e = f;
    if (e == cudaSuccess) {
        __atomic_add_fetch(&tb_repacks, (unsigned long long)(pl.pack_a + pl.pack_b),
                           __ATOMIC_RELAXED);
        if (pl.parts > 1)
            tb_run_count_split();
    }
    return e;
}

/* ---- the kernels' code, loaded ahead ------------------------------------------ */

/* CUDA loads a kernel's code at its first launch (lazy loading, the
 * default), so the first call that launches a kernel pays for it as well;
 * a route measured on that call looks slower than it is. Launching each
 * kernel the default pick can return on this GPU (tb_kernel_pickable) on a
 * 1 x 1 x 1 product loads them ahead (the start thread does, before any
 * call is measured): twice, with rows one element apart and with rows 16
 * bytes apart, since a kernel may take another path for rows it can read
 * whole (wgmma splits such operands in shared memory, the others in a
 * pre-pass); then the split sum, which the small kernel's split launches,
 * of each real type (a complex entry's load runs its B'' packing and its
 * real product's kernel; the A' copy and the scaling of C by a complex beta
 * load at their first call). Stops early once *stop is set (a process exiting
 * does not wait for the rest). Returns the first launch error, or
 * cudaSuccess. */
extern "C" cudaError_t tb_kernels_load(cudaStream_t stream, const int *stop)
{
    int dev, major, minor, smem;
    if (cudaGetDevice(&dev) != cudaSuccess || !tb_device_caps(dev, &major, &minor, &smem))
        return cudaGetLastError();
    enum { ROW = 16 };   /* bytes: A at 0, B at ROW, C at 2 ROW */
    char *buf = NULL;
    cudaError_t e = cudaMalloc((void **)&buf, 3 * ROW);
    if (e != cudaSuccess)
        return e;
    e = cudaMemsetAsync(buf, 0, 3 * ROW, stream);
    const tb_scalar one = {1.0, 0.0}, zero = {0.0, 0.0};
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    for (int i = 0; i < n && e == cudaSuccess && !__atomic_load_n(stop, __ATOMIC_ACQUIRE); i++) {
        if (!tb_kernel_pickable(&k[i], major, minor, smem))
            continue;
        const size_t es = tb_dtype_size(k[i].dtype);
        for (int whole = 0; whole < 2 && e == cudaSuccess; whole++) {
            const size_t ld = whole ? ROW / es : 1;
            const tb_gemm g = {k[i].dtype, 1, 1, 1, 0, 0, one, zero, buf, ld, buf + es * ld, ld,
                               buf + 2 * es * ld, ld};
            e = k[i].launch(&g, stream);
        }
    }
    for (int t = 0; t < TB_DTYPES && e == cudaSuccess; t++)
        if (tb_dtype_real((tb_dtype)t) == (tb_dtype)t)   /* complex runs as real */
            e = tb_launch_split_sum((tb_dtype)t, buf, 1, 1, 1, 1, 1, one, zero, buf + ROW, 1, 0, 0,
                                    stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    cudaFree(buf);
    return e;
}
