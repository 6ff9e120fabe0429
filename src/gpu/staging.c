/* src/gpu/staging.c - host copies between the caller's pageable arrays and a
 * lane's pinned staging buffers, shared out to the copy threads (pool.c),
 * and the DMA between staging and device that they feed. It knows nothing
 * of the product: pipeline.c says which window goes where. */
#include "tb_gpu.h"
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

cudaError_t tb_stage_fit(tb_lane *L, size_t want)
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

/* Unpacking 4 MiB and more into the caller's arrays bypasses the cache
 * (1 = on; a benchmark may switch it to compare). */
int tb_copy_nontemporal = 1;
#define TB_NT_MIN_BYTES ((size_t)4 << 20)

/* memcpy whose stores bypass the cache (x86 non-temporal stores). An
 * ordinary store to a line that is not cached first reads the line from
 * memory, so a large memcpy moves three bytes through memory for every byte
 * copied; streaming stores write whole lines and move two. Used where the
 * destination is the caller's C: far bigger than the cache, and not read
 * again by this CPU soon. Staging buffers are the opposite case and take
 * ordinary stores (TB_STAGE_MAX_BYTES). The caller orders the stores with
 * tb_copy_fence() before anyone else reads them. */
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
 * 8192x8192x16 takes 12.7-13.3 ms against 15.1-16.8 with one part per
 * thread (bench_switch, H200 machine). The parts are small enough that a
 * panel of 1000^3 (1,024,000 bytes) is shared out too: 0.67-0.68 ms end to
 * end, against 1.02-1.23 with parts of at least 1 MiB (scripts/ab_gpu.sh). */
#define TB_PART_MIN ((size_t)64 << 10)
#define TB_PARTS_PER_THREAD 4

/* to_caller: the copy writes the caller's array (an unpack), not staging. */
static void tb_copy_run(tb_copy *c, int to_caller)
{
    size_t bytes = c->rows * c->row_bytes, want = bytes / TB_PART_MIN;
    c->nontemporal = to_caller && tb_copy_nontemporal && bytes >= TB_NT_MIN_BYTES;
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

/* In chunks that fit a staging buffer; a row larger than one is left to
 * CUDA's own staging. */
cudaError_t tb_upload(tb_lane *L, cudaStream_t st, void *dst, size_t dpitch, tb_window w,
                      uint64_t *bytes)
{
    const size_t row_bytes = w.cols * w.esize, stride = w.ld * w.esize, rows = w.rows;
    const char *src = w.ptr;
    if (rows == 0 || w.cols == 0)
        return cudaSuccess;
    *bytes += rows * row_bytes;
    if (row_bytes > L->stage_bytes)   /* one row overflows a stage: let CUDA stage it */
        return cudaMemcpy2DAsync(dst, dpitch, src, stride, row_bytes, rows,
                                 cudaMemcpyHostToDevice, st);
    size_t per = L->stage_bytes / row_bytes;
    for (size_t r = 0; r < rows; r += per) {
        size_t n = rows - r < per ? rows - r : per;
        char *buf;
        cudaEvent_t *ev;
        cudaError_t e = tb_stage_take(L, &buf, &ev);
        if (e != cudaSuccess)
            return e;
        tb_copy c = {buf, src + r * stride, row_bytes, stride, row_bytes, n, 0};
        tb_copy_run(&c, 0);
        e = cudaMemcpy2DAsync((char *)dst + r * dpitch, dpitch, buf, row_bytes, row_bytes, n,
                              cudaMemcpyHostToDevice, st);
        if (e != cudaSuccess)
            return e;
        cudaEventRecord(*ev, st);
    }
    return cudaSuccess;
}

/* In chunks that fit a staging buffer: the DMA of chunk i+1 runs while the
 * pool unpacks chunk i. */
cudaError_t tb_download(tb_lane *L, cudaStream_t st, tb_window w, const void *src,
                        size_t spitch, uint64_t *bytes)
{
    const size_t row_bytes = w.cols * w.esize, stride = w.ld * w.esize, rows = w.rows;
    char *dst = w.ptr;
    if (rows == 0 || w.cols == 0)
        return cudaSuccess;
    *bytes += rows * row_bytes;
    cudaError_t e;
    if (row_bytes > L->stage_bytes) {
        e = cudaMemcpy2DAsync(dst, stride, src, spitch, row_bytes, rows,
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
            tb_copy cp = {dst + r * stride, buf[c % 2], stride, row_bytes, row_bytes, n, 0};
            tb_copy_run(&cp, 1);
        }
    }
    return cudaSuccess;
}

