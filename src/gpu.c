/* src/gpu.c - the device side of a call: CUDA started on first use (never in
 * a constructor), device buffers kept and reused across calls within a memory
 * cap, the pipeline that streams panels of A in and panels of C out while the
 * kernel computes, and the classification of every CUDA failure.
 * Contract: C is written only with results whose kernel succeeded; after a
 * failure the caller learns which part of C is final (usually none). */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_kernels.h"
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef enum { TB_GPU_UNTRIED = 0, TB_GPU_READY, TB_GPU_DEAD } tb_gpu_state_t;

/* One pitched device matrix, grown on demand, reused by later calls. */
typedef struct tb_pitched {
    float *ptr;
    size_t pitch;         /* bytes between rows, from cudaMallocPitch */
    size_t width;         /* bytes of a row we may use                */
    size_t height;        /* rows                                     */
} tb_pitched;

/* The pipeline streams C in panels of rows. A panel uses one slot: its rows
 * of op(A), its rows of C, and the events that order the three streams. */
enum { TB_SLOTS = 3 };
typedef struct tb_slot {
    tb_pitched a, c;
    cudaEvent_t in_done;     /* h2d: this panel's A (and C) are on the device */
    cudaEvent_t k_done;      /* compute: its kernel finished                  */
    cudaEvent_t out_done;    /* d2h: its C left the device                    */
} tb_slot;

/* Pinned staging buffers: the caller's pageable rows are packed into one by
 * the copy threads while the DMA engine moves another. */
enum { TB_STAGES = 4 };
#define TB_STAGE_MAX_BYTES ((size_t)32 << 20)

/* A lane is everything one call needs on the device: three streams, the
 * slots, op(B)'s buffer, its staging buffers and timing marks. Calls from
 * several threads run on separate lanes at once, so one call's copies
 * overlap another's compute; the host-side copy threads are shared. */
typedef struct tb_lane {
    int ready, busy;
    cudaStream_t h2d, comp, d2h;
    tb_slot slot[TB_SLOTS];
    tb_pitched bbuf;                /* op(B), or a block of it */
    char *stage_mem;
    size_t stage_bytes;
    cudaEvent_t stage_ev[TB_STAGES];
    unsigned stage_next;
    cudaEvent_t mark[6];            /* timing: see tb_gpu_run */
    size_t budget;                  /* device bytes this lane may hold */
} tb_lane;

enum { TB_MAX_LANES = 8 };

/* Guarded by tb_gpu_lock: the state, the lanes' ready/busy flags, the
 * failure count. A lane's own fields belong to the call that holds it. */
static pthread_mutex_t tb_gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tb_lane_free = PTHREAD_COND_INITIALIZER;
static tb_gpu_state_t tb_gpu_state;
static const char *tb_gpu_why = "no-gpu";
static char tb_gpu_detail_text[160] = "not started";
static tb_lane tb_lanes[TB_MAX_LANES];
static int tb_nlanes;
static size_t tb_free_at_start;
static int tb_gpu_failures;                       /* consecutive failed calls */
static volatile int tb_gpu_in_child;              /* set after fork() in the child */

enum { TB_MAX_CONSECUTIVE_FAILURES = 3 };

void tb_gpu_forked_child(void)
{
    /* The parent's CUDA context is not usable here; the lock may even be
     * held by a thread that does not exist in the child. Never touch either. */
    tb_gpu_in_child = 1;
}

/* Under tb_gpu_lock; the reason first, then the state, which lock-free
 * readers (tb_gpu_describe_if_started, tb_gpu_memory) load with acquire. */
static void tb_gpu_disable(const char *why)
{
    __atomic_store_n(&tb_gpu_why, why, __ATOMIC_RELAXED);
    __atomic_store_n(&tb_gpu_state, TB_GPU_DEAD, __ATOMIC_RELEASE);
}

/* Streams and events of one lane, made when a call first needs it. */
static cudaError_t tb_lane_create(tb_lane *L)
{
    cudaError_t e;
    cudaStream_t *streams[] = {&L->h2d, &L->comp, &L->d2h};
    for (int i = 0; i < 3; i++)
        if ((e = cudaStreamCreateWithFlags(streams[i], cudaStreamNonBlocking)) != cudaSuccess)
            return e;
    for (int i = 0; i < TB_SLOTS; i++) {
        cudaEvent_t *evs[] = {&L->slot[i].in_done, &L->slot[i].k_done, &L->slot[i].out_done};
        for (int j = 0; j < 3; j++)
            if ((e = cudaEventCreateWithFlags(evs[j], cudaEventDisableTiming)) != cudaSuccess)
                return e;
    }
    for (int i = 0; i < TB_STAGES; i++)
        if ((e = cudaEventCreateWithFlags(&L->stage_ev[i], cudaEventDisableTiming)) != cudaSuccess)
            return e;
    for (int i = 0; i < 6; i++)
        if ((e = cudaEventCreate(&L->mark[i])) != cudaSuccess)
            return e;
    /* The cap: TILEDBLAS_DEVICE_MEMORY, else 80% of what was free when CUDA
     * started, shared evenly by the lanes. */
    double cap = tb_settings_get()->device_memory;
    L->budget = (cap > 0.0 ? (size_t)cap : tb_free_at_start / 10 * 8) / (size_t)tb_nlanes;
    L->ready = 1;
    return cudaSuccess;
}

static cudaError_t tb_gpu_create(void)
{
    cudaError_t e;
    size_t total_b = 0;
    if ((e = cudaSetDevice(tb_settings_get()->device)) != cudaSuccess ||
        (e = cudaMemGetInfo(&tb_free_at_start, &total_b)) != cudaSuccess)
        return e;
    tb_nlanes = tb_settings_get()->lanes;
    return tb_lane_create(&tb_lanes[0]);
}

/* Starts CUDA. Called under the lock, once. */
static void tb_gpu_init(void)
{
    const tb_settings *s = tb_settings_get();
    int count = 0;
    cudaError_t e = s->fault == TB_STAGE_INIT ? cudaErrorUnknown : cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0 || s->device >= count) {
        const char *msg = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
        if (s->fault == TB_STAGE_INIT)
            msg = "injected by TILEDBLAS_FAULT=init";
        else if (e == cudaSuccess && count > 0)
            msg = "TILEDBLAS_DEVICE is past the last device";
        cudaGetLastError();
        tb_gpu_disable("no-gpu");
        snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "%s", msg);
        return;
    }
    if ((e = tb_gpu_create()) != cudaSuccess) {
        snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "CUDA initialisation failed: %s",
                 cudaGetErrorString(e));
        tb_gpu_disable("gpu-init-failed");
        return;
    }
    /* Only a parent that started CUDA must keep its children off it. */
    pthread_atfork(NULL, NULL, tb_gpu_forked_child);
    __atomic_store_n(&tb_gpu_state, TB_GPU_READY, __ATOMIC_RELEASE);
    snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "ready");
}

const char *tb_gpu_detail(void)
{
    return tb_gpu_in_child ? "the parent process had started CUDA before fork()" : tb_gpu_detail_text;
}

int tb_gpu_available(const char **why)
{
    if (tb_gpu_in_child) {
        *why = "after-fork";
        return 0;
    }
    pthread_mutex_lock(&tb_gpu_lock);
    if (tb_gpu_state == TB_GPU_UNTRIED)
        tb_gpu_init();
    int ok = tb_gpu_state == TB_GPU_READY;
    *why = tb_gpu_why;
    pthread_mutex_unlock(&tb_gpu_lock);
    return ok;
}

/* ---- Device memory ---- */

static size_t tb_held(tb_lane *L)
{
    size_t b = L->bbuf.pitch * L->bbuf.height;
    for (int i = 0; i < TB_SLOTS; i++)
        b += L->slot[i].a.pitch * L->slot[i].a.height + L->slot[i].c.pitch * L->slot[i].c.height;
    return b;
}

static void tb_pitched_free(tb_pitched *b)
{
    if (b->ptr)
        cudaFree(b->ptr);
    memset(b, 0, sizeof *b);
}

static void tb_buffers_free(tb_lane *L)
{
    tb_pitched_free(&L->bbuf);
    for (int i = 0; i < TB_SLOTS; i++) {
        tb_pitched_free(&L->slot[i].a);
        tb_pitched_free(&L->slot[i].c);
    }
}

/* Allocations made by this thread: a call that made any paid for them
 * (tb_gpu_times.grew), so its time says little about the next one. */
static __thread unsigned tb_allocs_here;

/* Makes buffer b hold rows x cols floats; keeps the old one when it fits. */
static cudaError_t tb_buffer_fit(tb_pitched *b, size_t rows, size_t cols)
{
    size_t width = cols * sizeof(float);
    if (rows == 0 || cols == 0 || (b->ptr && width <= b->width && rows <= b->height))
        return cudaSuccess;
    size_t w = width > b->width ? width : b->width;
    size_t h = rows > b->height ? rows : b->height;
    tb_pitched_free(b);
    void *p;
    cudaError_t e = cudaMallocPitch(&p, &b->pitch, w, h);
    tb_allocs_here++;
    if (e != cudaSuccess)
        return e;
    b->ptr = p;
    b->width = w;
    b->height = h;
    return cudaSuccess;
}

/* ---- Host <-> device copies through pinned staging ---- */

static cudaError_t tb_stage_fit(tb_lane *L, size_t want)
{
    if (want > TB_STAGE_MAX_BYTES)
        want = TB_STAGE_MAX_BYTES;
    want = (want + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);   /* whole MiB */
    if (L->stage_mem && L->stage_bytes >= want)
        return cudaSuccess;
    if (L->stage_mem) {
        for (int i = 0; i < TB_STAGES; i++)
            cudaEventSynchronize(L->stage_ev[i]);
        cudaFreeHost(L->stage_mem);
        L->stage_mem = NULL;
    }
    void *p;
    cudaError_t e = cudaHostAlloc(&p, want * TB_STAGES, cudaHostAllocPortable);
    tb_allocs_here++;
    if (e != cudaSuccess)
        return e;
    L->stage_mem = p;
    L->stage_bytes = want;
    return cudaSuccess;
}

/* A rows x row_bytes block copied between two strided places by the pool. */
typedef struct tb_copy {
    char *dst;
    const char *src;
    size_t dst_stride, src_stride, row_bytes, rows;
    int nontemporal;           /* tb_copy_bytes with streaming stores */
} tb_copy;

/* Copies of 4 MiB and more bypass the cache on the way out (1 = on; a
 * benchmark may switch it to compare). */
int tb_copy_nontemporal = 1;
#define TB_NT_MIN_BYTES ((size_t)4 << 20)

/* memcpy whose stores bypass the cache (x86 non-temporal stores). An
 * ordinary store to a line that is not cached first reads the line from
 * memory, so a large memcpy moves three bytes through memory for every byte
 * copied; streaming stores write whole lines and move two. Both ends of our
 * large copies are far bigger than the cache and not read again by this
 * CPU soon - a staging buffer goes to the DMA engine, the caller's C is
 * finished - so keeping them in the cache buys nothing. The caller orders
 * the stores with tb_copy_fence() before anyone else reads them. */
static void tb_copy_bytes(char *dst, const char *src, size_t n, int nontemporal)
{
#if defined(__SSE2__)
    if (nontemporal && n >= 1024) {
        size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
        memcpy(dst, src, head);
        dst += head;
        src += head;
        n -= head;
        size_t body = n & ~(size_t)63;
        for (size_t i = 0; i < body; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
            __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
            _mm_stream_si128((__m128i *)(dst + i), a);
            _mm_stream_si128((__m128i *)(dst + i + 16), b);
            _mm_stream_si128((__m128i *)(dst + i + 32), c);
            _mm_stream_si128((__m128i *)(dst + i + 48), d);
        }
        memcpy(dst + body, src + body, n - body);
        return;
    }
#endif
    (void)nontemporal;
    memcpy(dst, src, n);
}

static void tb_copy_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();   /* streaming stores are weakly ordered: drain them */
#endif
}

static void tb_copy_part(void *arg, int part, int parts)
{
    const tb_copy *c = arg;
    if (c->dst_stride == c->row_bytes && c->src_stride == c->row_bytes) {
        /* Dense: split the bytes, 4 KiB aligned. */
        size_t total = c->rows * c->row_bytes;
        size_t per = (total / (size_t)parts + 4095) & ~(size_t)4095;
        size_t lo = per * (size_t)part, hi = lo + per < total ? lo + per : total;
        if (lo < hi)
            tb_copy_bytes(c->dst + lo, c->src + lo, hi - lo, c->nontemporal);
    } else {
        size_t lo = c->rows * (size_t)part / (size_t)parts;
        size_t hi = c->rows * (size_t)(part + 1) / (size_t)parts;
        for (size_t r = lo; r < hi; r++)
            tb_copy_bytes(c->dst + r * c->dst_stride, c->src + r * c->src_stride, c->row_bytes,
                          c->nontemporal);
    }
    if (c->nontemporal)
        tb_copy_fence();
}

/* How a host copy is split among the copy threads: into parts of at least
 * TB_PART_MIN bytes, as many as four per thread. Threads claim parts one at
 * a time (pool.c), so a thread that gets its core late takes fewer parts
 * and the others take the rest, instead of the whole copy waiting for it.
 * Late threads are common: right after an OpenBLAS call, OpenBLAS's own
 * threads keep polling for work on every core for about 0.1 s: there
 * 8192x8192x16 took 12.7-13.3 ms against 15.1-16.8 with one part per
 * thread (bench_switch, H200 machine). Parts of at least 1 MiB, as before,
 * left 1000^3's panels of 1,024,000 bytes to the calling thread alone:
 * 1.02-1.23 ms end to end, now 0.67-0.68 (scripts/ab_gpu.sh). */
#define TB_PART_MIN ((size_t)64 << 10)
#define TB_PARTS_PER_THREAD 4

static void tb_copy_run(tb_copy *c)
{
    size_t bytes = c->rows * c->row_bytes, want = bytes / TB_PART_MIN;
    c->nontemporal = tb_copy_nontemporal && bytes >= TB_NT_MIN_BYTES;
    int parts = 1;
    if (want >= 2) {
        size_t most = (size_t)tb_pool_size() * TB_PARTS_PER_THREAD;
        parts = (int)(want < most ? want : most);
    }
    if ((size_t)parts > c->rows && c->dst_stride != c->row_bytes)
        parts = (int)c->rows;
    tb_pool_run(tb_copy_part, (void *)c, parts);
}

/* The next staging buffer, once the DMA that last used it is done. */
static cudaError_t tb_stage_take(tb_lane *L, char **buf, cudaEvent_t **ev)
{
    unsigned i = L->stage_next++ % TB_STAGES;
    cudaError_t e = cudaEventSynchronize(L->stage_ev[i]);
    *buf = L->stage_mem + (size_t)i * L->stage_bytes;
    *ev = &L->stage_ev[i];
    return e;
}

/* Host window (rows x cols, stride ld elements) -> device (dst, dpitch) on
 * stream st, in chunks that fit a staging buffer. */
static cudaError_t tb_upload(tb_lane *L, cudaStream_t st, float *dst, size_t dpitch, const float *src,
                             size_t ld, size_t rows, size_t cols, uint64_t *bytes)
{
    size_t row_bytes = cols * sizeof(float);
    if (rows == 0 || cols == 0)
        return cudaSuccess;
    *bytes += rows * row_bytes;
    if (row_bytes > L->stage_bytes)   /* one row overflows a stage: let CUDA stage it */
        return cudaMemcpy2DAsync(dst, dpitch, src, ld * sizeof(float), row_bytes, rows,
                                 cudaMemcpyHostToDevice, st);
    size_t per = L->stage_bytes / row_bytes;
    for (size_t r = 0; r < rows; r += per) {
        size_t n = rows - r < per ? rows - r : per;
        char *buf;
        cudaEvent_t *ev;
        cudaError_t e = tb_stage_take(L, &buf, &ev);
        if (e != cudaSuccess)
            return e;
        tb_copy c = {buf, (const char *)(src + r * ld), row_bytes, ld * sizeof(float), row_bytes, n, 0};
        tb_copy_run(&c);
        e = cudaMemcpy2DAsync((char *)dst + r * dpitch, dpitch, buf, row_bytes, row_bytes, n,
                              cudaMemcpyHostToDevice, st);
        if (e != cudaSuccess)
            return e;
        cudaEventRecord(*ev, st);
    }
    return cudaSuccess;
}

/* Device (src, spitch) -> host window on stream st, in chunks that
 * fit a staging buffer: the DMA of chunk i+1 runs while the pool unpacks
 * chunk i. Returns when the window is written. */
static cudaError_t tb_download(tb_lane *L, cudaStream_t st, float *dst, size_t ld, const float *src,
                               size_t spitch, size_t rows, size_t cols, uint64_t *bytes)
{
    size_t row_bytes = cols * sizeof(float);
    if (rows == 0 || cols == 0)
        return cudaSuccess;
    *bytes += rows * row_bytes;
    cudaError_t e;
    if (row_bytes > L->stage_bytes) {
        e = cudaMemcpy2DAsync(dst, ld * sizeof(float), src, spitch, row_bytes, rows,
                              cudaMemcpyDeviceToHost, st);
        return e == cudaSuccess ? cudaStreamSynchronize(st) : e;
    }
    size_t per = L->stage_bytes / row_bytes, chunks = (rows + per - 1) / per;
    char *buf[2];
    cudaEvent_t *ev[2];
    for (size_t i = 0; i <= chunks; i++) {
        if (i < chunks) {                         /* issue chunk i */
            size_t r = i * per, n = rows - r < per ? rows - r : per;
            if ((e = tb_stage_take(L, &buf[i % 2], &ev[i % 2])) != cudaSuccess)
                return e;
            e = cudaMemcpy2DAsync(buf[i % 2], row_bytes, (const char *)src + r * spitch, spitch,
                                  row_bytes, n, cudaMemcpyDeviceToHost, st);
            if (e != cudaSuccess)
                return e;
            cudaEventRecord(*ev[i % 2], st);
        }
        if (i > 0) {                              /* unpack chunk i - 1 */
            size_t c = i - 1, r = c * per, n = rows - r < per ? rows - r : per;
            if ((e = cudaEventSynchronize(*ev[c % 2])) != cudaSuccess)
                return e;
            tb_copy cp = {(char *)(dst + r * ld), buf[c % 2], ld * sizeof(float), row_bytes, row_bytes, n, 0};
            tb_copy_run(&cp);
        }
    }
    return cudaSuccess;
}

/* ---- Failure classification and fault injection ---- */

/* Errors after which the context is still usable: the next call may retry. */
static int tb_recoverable(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation || e == cudaErrorInvalidConfiguration ||
           e == cudaErrorInvalidValue || e == cudaErrorInvalidPitchValue ||
           e == cudaErrorNoKernelImageForDevice;
}

/* An injected fault (TILEDBLAS_FAULT) replaces the result of that stage by a
 * recoverable error; tb_fault_hit tells the classification it was ours. The
 * d2h fault strikes at the last panel, so that the recovery of a partly
 * written C is exercised too. */
static __thread int tb_fault_hit;
static cudaError_t tb_inject(tb_stage stage, cudaError_t e)
{
    if (tb_settings_get()->fault != stage)
        return e;
    tb_fault_hit = 1;
    return cudaErrorUnknown;
}

static const tb_kernel_info *tb_choose_kernel(const tb_gemm_args *g)
{
    const char *name = tb_settings_get()->kernel;
    if (name) {
        const tb_kernel_info *k = tb_kernel_by_name(name);
        if (k && (!k->supports || k->supports(g)))
            return k;
        tb_warn_once(TB_ONCE_STAGE + TB_STAGE_COUNT, "%s='%s' %s; using the default kernel",
                     TB_ENV_KERNEL, name, k ? "does not support this call" : "is not a kernel");
    }
    return tb_kernel_pick(g);
}

/* ---- The pipeline ---- */

/* How a product is cut: C in column blocks of nb columns (all of op(B)'s
 * block stays on the device while the block is done), each block in panels
 * of mp rows streamed through the slots. */
typedef struct tb_plan {
    size_t mp, nb;
} tb_plan;

static size_t tb_round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

static size_t tb_plan_bytes(const tb_problem *p, size_t mp, size_t nb, int slots)
{
    /* Pitches round rows up to 512 bytes; count that. */
    size_t k = (size_t)p->k, row = 512;
    size_t b = p->transb ? nb * tb_round_up(k * 4, row) : k * tb_round_up(nb * 4, row);
    size_t a = p->transa ? k * tb_round_up(mp * 4, row) : mp * tb_round_up(k * 4, row);
    size_t c = mp * tb_round_up(nb * 4, row);
    return b + (size_t)slots * (a + c);
}

static int tb_make_plan(tb_lane *L, const tb_problem *p, tb_plan *pl)
{
    size_t m = (size_t)p->m, n = (size_t)p->n;
    size_t panels = (size_t)tb_panel_count(p);
    size_t mp = panels == 1 ? m : tb_round_up((m + panels - 1) / panels, 128);
    if (mp > m)
        mp = m;
    size_t nb = n;
    int slots = mp >= m ? 1 : TB_SLOTS;
    /* Over the cap: thinner panels first (cheap), then narrower column
     * blocks (each block sends A again), then thinner panels still. */
    while (tb_plan_bytes(p, mp, nb, slots) > L->budget) {
        if (mp > 512)
            mp = tb_round_up(mp / 2, 128), slots = TB_SLOTS;
        else if (nb > 256)
            nb = tb_round_up(nb / 2, 128);
        else if (mp > 64)
            mp = tb_round_up(mp / 2, 64), slots = TB_SLOTS;
        else
            return -1;
    }
    pl->mp = mp;
    pl->nb = nb;
    return 0;
}

static float tb_span(tb_lane *L, int from, int to)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, L->mark[from], L->mark[to]) != cudaSuccess)
        ms = 0.0f;
    return ms;
}

/* The work of one call, under the lock. Returns the failed stage, with the
 * CUDA error in *err and the final part of C in t->done_*. */
static tb_stage tb_gpu_run(tb_lane *L, const tb_problem *p, tb_gpu_times *t, cudaError_t *err)
{
    const int reads_ab = p->k > 0 && p->alpha != 0.0f;
    const int reads_c = p->beta != 0.0f;
    const size_t m = (size_t)p->m, n = (size_t)p->n, k = reads_ab ? (size_t)p->k : 0;
    tb_plan pl;
    cudaError_t e = cudaSuccess;
    const unsigned allocs_before = tb_allocs_here;
    const int may_split = !(tb_settings_get()->device_memory > 0.0);

    /* Plan within the memory cap, then size the buffers for it. */
    if (tb_make_plan(L, p, &pl) != 0)
        e = cudaErrorMemoryAllocation;
    const int slots = pl.mp >= m ? 1 : TB_SLOTS;
    if (e == cudaSuccess && tb_held(L) > tb_plan_bytes(p, pl.mp, pl.nb, slots) + L->budget / 2)
        tb_buffers_free(L);   /* do not sit on far more than this call needs */
    if (e == cudaSuccess && reads_ab)
        e = p->transb ? tb_buffer_fit(&L->bbuf, pl.nb, k) : tb_buffer_fit(&L->bbuf, k, pl.nb);
    for (int i = 0; i < slots && e == cudaSuccess; i++) {
        if (reads_ab)
            e = p->transa ? tb_buffer_fit(&L->slot[i].a, k, pl.mp) : tb_buffer_fit(&L->slot[i].a, pl.mp, k);
        if (e == cudaSuccess)
            e = tb_buffer_fit(&L->slot[i].c, pl.mp, pl.nb);
    }
    if (e == cudaSuccess) {
        /* Staging: an eighth of the call's traffic per buffer, 1 to 32 MiB. */
        double traffic = 4.0 * ((double)m * k + (double)k * n + (reads_c ? 2.0 : 1.0) * m * n);
        e = tb_stage_fit(L, traffic / 8 > (double)TB_STAGE_MAX_BYTES ? TB_STAGE_MAX_BYTES : (size_t)(traffic / 8));
    }
    t->grew = tb_allocs_here != allocs_before;
    if ((*err = tb_inject(TB_STAGE_ALLOC, e)) != cudaSuccess)
        return TB_STAGE_ALLOC;

    tb_gemm_args g0 = {0, 0, (int)k, p->transa, p->transb, p->alpha, p->beta,
                       NULL, 1, NULL, 1, NULL, 1};
    g0.m = (int)(pl.mp < m ? pl.mp : m);
    g0.n = (int)(pl.nb < n ? pl.nb : n);
    const tb_kernel_info *kern = tb_choose_kernel(&g0);
    t->kernel = kern->name;
    t->done_cols = t->done_cols_end = t->done_rows = 0;

    /* One panel and one block: nothing to overlap, so everything goes on one
     * stream in its order - the inputs, the kernel, C's way back - with no
     * event between streams and no wait on the host until C comes back. A
     * small call is mostly such fixed costs. */
    const int one = slots == 1 && pl.nb >= n;
    cudaStream_t in = one ? L->comp : L->h2d, out = one ? L->comp : L->d2h;
    cudaEventRecord(L->mark[0], in);
    int first_kernel = 1, first_out = 1, q = 0;
    for (size_t j0 = 0; j0 < n; j0 += pl.nb) {
        const size_t nb = n - j0 < pl.nb ? n - j0 : pl.nb;
        /* The B block: the slots' kernels of the previous block must be done
         * reading the old one first. */
        for (int i = 0; i < slots && j0 > 0; i++)
            cudaStreamWaitEvent(in, L->slot[i].k_done, 0);
        if (reads_ab)
            e = p->transb ? tb_upload(L, in, L->bbuf.ptr, L->bbuf.pitch, p->B + j0 * p->ldb, p->ldb, nb, k, &t->bytes_h2d)
                          : tb_upload(L, in, L->bbuf.ptr, L->bbuf.pitch, p->B + j0, p->ldb, k, nb, &t->bytes_h2d);
        if ((*err = tb_inject(TB_STAGE_H2D, e)) != cudaSuccess)
            return TB_STAGE_H2D;

        size_t out_next = 0;   /* first row of this block not yet downloaded */
        for (size_t r0 = 0; r0 < m; r0 += pl.mp, q++) {
            const size_t mp = m - r0 < pl.mp ? m - r0 : pl.mp;
            tb_slot *sl = &L->slot[q % slots];
            /* In: the slot's previous kernel and download must be done. */
            if (!one) {
                cudaStreamWaitEvent(in, sl->k_done, 0);
                cudaStreamWaitEvent(in, sl->out_done, 0);
            }
            if (reads_ab)
                e = p->transa ? tb_upload(L, in, sl->a.ptr, sl->a.pitch, p->A + r0, p->lda, k, mp, &t->bytes_h2d)
                              : tb_upload(L, in, sl->a.ptr, sl->a.pitch, p->A + r0 * p->lda, p->lda, mp, k, &t->bytes_h2d);
            if (e == cudaSuccess && reads_c)
                e = tb_upload(L, in, sl->c.ptr, sl->c.pitch, p->C + r0 * p->ldc + j0, p->ldc, mp, nb, &t->bytes_h2d);
            if ((*err = tb_inject(TB_STAGE_H2D, e)) != cudaSuccess)
                return TB_STAGE_H2D;
            cudaEventRecord(L->mark[5], in);   /* the last one recorded marks the end of input */

            /* Compute this panel as soon as its inputs are there. */
            if (!one) {
                cudaEventRecord(sl->in_done, in);
                cudaStreamWaitEvent(L->comp, sl->in_done, 0);
                cudaStreamWaitEvent(L->comp, sl->out_done, 0);
            }
            tb_gemm_args g = g0;
            g.m = (int)mp;
            g.n = (int)nb;
            g.A = sl->a.ptr; g.lda = sl->a.pitch / sizeof(float);
            g.B = L->bbuf.ptr; g.ldb = L->bbuf.pitch / sizeof(float);
            g.C = sl->c.ptr; g.ldc = sl->c.pitch / sizeof(float);
            if (!reads_ab) {
                g.A = g.B = NULL;
                g.lda = g.ldb = 1;
            }
            if (first_kernel) {
                cudaEventRecord(L->mark[1], L->comp);
                first_kernel = 0;
            }
            /* tb_gemm_run splits a grid that fills the GPU badly along K, its
             * scratch from a pool of its own; under a TILEDBLAS_DEVICE_MEMORY
             * cap, which that scratch would overstep, the kernel runs whole. */
            e = may_split ? tb_gemm_run(&g, kern, L->comp) : kern->launch(&g, L->comp);
            if ((*err = tb_inject(TB_STAGE_LAUNCH, e)) != cudaSuccess)
                return TB_STAGE_LAUNCH;
            cudaEventRecord(sl->k_done, L->comp);
            if (one)
                cudaEventRecord(L->mark[2], L->comp);   /* C's way back follows on this stream */
            t->panels++;

            /* Out: bring back the panel before this one (its kernel has had
             * the time this panel's upload took), then, at the end of the
             * block, this one. */
            while (out_next < r0 + mp && (out_next + pl.mp <= r0 || r0 + mp >= m)) {
                const size_t omp = m - out_next < pl.mp ? m - out_next : pl.mp;
                tb_slot *os = &L->slot[(q - (r0 - out_next) / pl.mp) % slots];
                /* On one stream the download waits for the kernel on the
                 * device; the host does not. */
                e = one ? cudaSuccess : cudaEventSynchronize(os->k_done);
                if ((*err = tb_inject(TB_STAGE_KERNEL, e)) != cudaSuccess)
                    return TB_STAGE_KERNEL;
                if (first_out) {
                    cudaEventRecord(L->mark[3], out);
                    first_out = 0;
                }
                e = out_next + omp >= m && j0 + nb >= n ? tb_inject(TB_STAGE_D2H, cudaSuccess) : cudaSuccess;
                if (e == cudaSuccess)
                    e = tb_download(L, out, p->C + out_next * p->ldc + j0, p->ldc, os->c.ptr, os->c.pitch,
                                    omp, nb, &t->bytes_d2h);
                /* A kernel that failed shows here on one stream: name it. */
                if ((*err = e) != cudaSuccess)
                    return one && !tb_fault_hit && cudaEventQuery(os->k_done) != cudaSuccess
                               ? TB_STAGE_KERNEL : TB_STAGE_D2H;
                if (!one)
                    cudaEventRecord(os->out_done, out);
                out_next += omp;
                /* Rows [0, out_next) of this block are final now. */
                t->done_cols_end = (int)(j0 + nb);
                t->done_rows = (int)out_next;
            }
        }
        t->done_cols = (int)(j0 + nb);
        t->done_rows = 0;
    }
    if (!one)
        cudaEventRecord(L->mark[2], L->comp);
    cudaEventRecord(L->mark[4], out);
    if ((e = cudaStreamSynchronize(out)) != cudaSuccess ||
        (!one && (e = cudaStreamSynchronize(L->comp)) != cudaSuccess)) {
        *err = e;
        return TB_STAGE_D2H;
    }
    /* Spans from each stream's first to last work; they overlap. */
    t->h2d_s = tb_span(L, 0, 5) * 1e-3;
    t->kernel_s = tb_span(L, 1, 2) * 1e-3;
    t->d2h_s = tb_span(L, 3, 4) * 1e-3;
    return TB_STAGE_NONE;
}

/* Takes a lane for this call (creating one if the setting allows more),
 * waiting while all are busy. Under tb_gpu_lock. NULL if none can be had. */
static tb_lane *tb_lane_take(void)
{
    for (;;) {
        if (tb_gpu_state != TB_GPU_READY)
            return NULL;
        for (int i = 0; i < tb_nlanes; i++) {
            tb_lane *L = &tb_lanes[i];
            if (L->ready && !L->busy) {
                L->busy = 1;
                return L;
            }
            if (!L->ready) {
                if (tb_lane_create(L) != cudaSuccess) {
                    cudaGetLastError();
                    tb_nlanes = i;   /* use the lanes we have */
                    break;
                }
                L->busy = 1;
                return L;
            }
        }
        pthread_cond_wait(&tb_lane_free, &tb_gpu_lock);
    }
}

tb_stage tb_gpu_sgemm(const tb_problem *p, tb_gpu_times *t)
{
    if (tb_gpu_in_child)
        return TB_STAGE_INIT;
    pthread_mutex_lock(&tb_gpu_lock);
    tb_lane *L = tb_lane_take();
    pthread_mutex_unlock(&tb_gpu_lock);
    if (!L)
        return TB_STAGE_INIT;

    /* The current device is per host thread in CUDA: name it every time. */
    cudaError_t err = cudaSetDevice(tb_settings_get()->device);
    tb_fault_hit = 0;
    tb_stage failed = err == cudaSuccess ? tb_gpu_run(L, p, t, &err) : TB_STAGE_INIT;
    if (failed == TB_STAGE_ALLOC && !tb_fault_hit) {
        /* Someone else may hold the memory: give ours back, plan again
         * within what is free now, once. */
        size_t free_b = 0, total_b = 0;
        tb_buffers_free(L);
        cudaGetLastError();
        if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b / 10 * 8 < L->budget) {
            L->budget = free_b / 10 * 8;
            memset(t, 0, sizeof *t);
            failed = tb_gpu_run(L, p, t, &err);
        }
    }
    if (failed != TB_STAGE_NONE) {
        /* Let queued work drain (or fail) before anything is reused. */
        cudaStreamSynchronize(L->h2d);
        cudaStreamSynchronize(L->comp);
        cudaStreamSynchronize(L->d2h);
        cudaGetLastError();   /* clear a non-sticky error */
        if (failed == TB_STAGE_ALLOC)
            tb_buffers_free(L);   /* give the memory back; a smaller call may fit */
    }

    pthread_mutex_lock(&tb_gpu_lock);
    L->busy = 0;
    pthread_cond_broadcast(&tb_lane_free);
    if (failed == TB_STAGE_NONE) {
        tb_gpu_failures = 0;
    } else {
        tb_warn_once(TB_ONCE_STAGE + failed, "GPU %s failed (%s); the call was completed on the CPU BLAS",
                     tb_stage_name(failed), tb_fault_hit ? "injected by " TB_ENV_FAULT
                                                         : cudaGetErrorString(err));
        if (!tb_fault_hit && !tb_recoverable(err)) {
            tb_gpu_disable("gpu-disabled");
            tb_warn_once(TB_ONCE_DISABLED, "the CUDA context is unusable after that error; "
                         "the GPU path is off for this process");
        } else if (++tb_gpu_failures >= TB_MAX_CONSECUTIVE_FAILURES) {
            tb_gpu_disable("gpu-disabled");
            tb_warn_once(TB_ONCE_DISABLED, "%d GPU failures in a row; the GPU path is off "
                         "for this process", tb_gpu_failures);
        }
    }
    pthread_mutex_unlock(&tb_gpu_lock);
    return failed;
}

int tb_gpu_memory(size_t *held, size_t *free_b)
{
    *held = *free_b = 0;
    if (tb_gpu_in_child || __atomic_load_n(&tb_gpu_state, __ATOMIC_ACQUIRE) != TB_GPU_READY)
        return -1;
    size_t total = 0;
    pthread_mutex_lock(&tb_gpu_lock);
    for (int i = 0; i < tb_nlanes; i++)
        if (tb_lanes[i].ready && !tb_lanes[i].busy)
            *held += tb_held(&tb_lanes[i]);
    pthread_mutex_unlock(&tb_gpu_lock);
    return cudaMemGetInfo(free_b, &total) == cudaSuccess ? 0 : -1;
}

int tb_gpu_describe(char *buf, size_t len)
{
    const char *why;
    if (!tb_gpu_available(&why)) {
        snprintf(buf, len, "none (%s: %s)", why, tb_gpu_detail());
        return 0;
    }
    struct cudaDeviceProp prop;
    int drv = 0, rt = 0, dev = tb_settings_get()->device;
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        snprintf(buf, len, "none (cudaGetDeviceProperties failed)");
        return 0;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(buf, len, "%s, %.1f GiB, compute capability %d.%d, %d SMs, driver CUDA %d.%d, runtime %d.%d",
             prop.name, prop.totalGlobalMem / 1073741824.0, prop.major, prop.minor,
             prop.multiProcessorCount, drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    return 1;
}

/* For the stats report: describes the device only when CUDA already runs;
 * never starts CUDA and never initialises anything (added for stats.c). */
int tb_gpu_describe_if_started(char *buf, size_t len)
{
    if (tb_gpu_in_child) {
        snprintf(buf, len, "none (after-fork: a forked child never uses the parent's CUDA)");
        return 0;
    }
    tb_gpu_state_t st = __atomic_load_n(&tb_gpu_state, __ATOMIC_ACQUIRE);
    if (st == TB_GPU_UNTRIED) {
        snprintf(buf, len, "not started (no call was eligible for the GPU)");
        return 0;
    }
    if (st == TB_GPU_DEAD) {
        snprintf(buf, len, "none (%s)", __atomic_load_n(&tb_gpu_why, __ATOMIC_RELAXED));
        return 0;
    }
    return tb_gpu_describe(buf, len);
}
