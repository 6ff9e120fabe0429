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

/* A rows x row_bytes block copied between two strided places by the pool;
 * with tri, of each row only its triangle (tb_win_cols of window row
 * row0 + r), the block being the window's columns [col0, ...). */
typedef struct tb_copy {
    char *dst;
    const char *src;
    size_t dst_stride, src_stride, row_bytes, rows;
    int nontemporal;           /* tb_copy_bytes with streaming stores */
    const tb_window *tri;      /* NULL: whole rows                    */
    size_t row0, col0;
} tb_copy;

/* The columns [*lo, *hi) of w that rows [r, r + n) move: all of them, or
 * those of their triangles (tb_window). */
static void tb_win_cols(const tb_window *w, size_t r, size_t n, size_t *lo, size_t *hi)
{
    const size_t first = r + w->diag, end = r + n + w->diag;   /* diagonal places */
    *lo = 0;
    *hi = w->cols;
    if (w->tri == TB_WIN_LOWER)
        *hi = end < w->cols ? end : w->cols;
    else if (w->tri == TB_WIN_UPPER)
        *lo = first < w->cols ? first : w->cols;
}

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
    if (c->tri) {
        /* Each row's triangle, from the block's column col0 on. */
        const size_t es = c->tri->esize;
        size_t lo = c->rows * (size_t)part / (size_t)parts;
        size_t hi = c->rows * (size_t)(part + 1) / (size_t)parts;
        for (size_t r = lo; r < hi; r++) {
            size_t a, b;
            tb_win_cols(c->tri, c->row0 + r, 1, &a, &b);
            if (b > a)
                tb_copy_bytes(c->dst + r * c->dst_stride + (a - c->col0) * es,
                              c->src + r * c->src_stride + (a - c->col0) * es, (b - a) * es,
                              c->nontemporal);
        }
    } else if (c->dst_stride == c->row_bytes && c->src_stride == c->row_bytes) {
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
    if ((size_t)parts > c->rows && (c->dst_stride != c->row_bytes || c->tri))
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

/* In chunks that fit a staging buffer, each the rectangle of columns its
 * rows move (tb_win_cols); a row larger than a staging buffer is left to
 * CUDA's own staging, the whole window at once. */
cudaError_t tb_upload(tb_lane *L, cudaStream_t st, void *dst, size_t dpitch, tb_window w,
                      uint64_t *bytes)
{
    const size_t es = w.esize, full = w.cols * es, stride = w.ld * es, rows = w.rows;
    const char *src = w.ptr;
    if (rows == 0 || w.cols == 0)
        return cudaSuccess;
    if (full > L->stage_bytes) {   /* one row overflows a stage: let CUDA stage it */
        *bytes += rows * full;
        return cudaMemcpy2DAsync(dst, dpitch, src, stride, full, rows, cudaMemcpyHostToDevice, st);
    }
    size_t per = L->stage_bytes / full;
    for (size_t r = 0; r < rows; r += per) {
        size_t n = rows - r < per ? rows - r : per, lo, hi;
        tb_win_cols(&w, r, n, &lo, &hi);
        if (hi <= lo)
            continue;
        const size_t row_bytes = (hi - lo) * es;
        char *buf;
        cudaEvent_t *ev;
        cudaError_t e = tb_stage_take(L, &buf, &ev);
        if (e != cudaSuccess)
            return e;
        tb_copy c = {buf, src + r * stride + lo * es, row_bytes, stride, row_bytes, n, 0, NULL, 0, 0};
        tb_copy_run(&c, 0);
        e = cudaMemcpy2DAsync((char *)dst + r * dpitch + lo * es, dpitch, buf, row_bytes, row_bytes,
                              n, cudaMemcpyHostToDevice, st);
        if (e != cudaSuccess)
            return e;
        *bytes += n * row_bytes;
        cudaEventRecord(*ev, st);
    }
    return cudaSuccess;
}

/* Rows [*r, *r + *n) of chunk c of a download of rows in chunks of per,
 * in the window's order. */
static void tb_chunk_rows(const tb_window *w, size_t c, size_t per, size_t *r, size_t *n)
{
    const size_t o = c * per;
    *n = w->rows - o < per ? w->rows - o : per;
    *r = w->last_first ? w->rows - o - *n : o;
}

/* In chunks that fit a staging buffer, each the rectangle of columns its
 * rows move (tb_win_cols): the DMA of chunk i+1 runs while the pool
 * unpacks chunk i. A row larger than a staging buffer goes straight to the
 * caller's array, a row at a time (each over 8 MiB, so the waits cost
 * little), so that *done is exact there too. */
cudaError_t tb_download(tb_lane *L, cudaStream_t st, tb_window w, const void *src,
                        size_t spitch, uint64_t *bytes, size_t *done)
{
    const size_t es = w.esize, full = w.cols * es, stride = w.ld * es, rows = w.rows;
    char *dst = w.ptr;
    cudaError_t e;
    *done = 0;
    if (rows == 0 || w.cols == 0)
        return cudaSuccess;
    if (full > L->stage_bytes) {
        for (size_t o = 0; o < rows; o++) {
            const size_t i = w.last_first ? rows - 1 - o : o;
            size_t lo, hi;
            tb_win_cols(&w, i, 1, &lo, &hi);
            if (hi > lo) {
                e = cudaMemcpyAsync(dst + i * stride + lo * es, (const char *)src + i * spitch + lo * es,
                                    (hi - lo) * es, cudaMemcpyDeviceToHost, st);
                if (e == cudaSuccess)
                    e = cudaStreamSynchronize(st);
                if (e != cudaSuccess)
                    return e;
                *bytes += (hi - lo) * es;
            }
            *done = o + 1;
        }
        return cudaSuccess;
    }
    size_t per = L->stage_bytes / full, chunks = (rows + per - 1) / per;
    char *buf[2];
    cudaEvent_t *ev[2];
    size_t col0[2];
    for (size_t i = 0; i <= chunks; i++) {
        if (i < chunks) {                         /* issue chunk i */
            size_t r, n, lo, hi;
            tb_chunk_rows(&w, i, per, &r, &n);
            tb_win_cols(&w, r, n, &lo, &hi);
            if ((e = tb_stage_take(L, &buf[i % 2], &ev[i % 2])) != cudaSuccess)
                return e;
            col0[i % 2] = lo;
            if (hi > lo) {
                e = cudaMemcpy2DAsync(buf[i % 2], (hi - lo) * es,
                                      (const char *)src + r * spitch + lo * es, spitch,
                                      (hi - lo) * es, n, cudaMemcpyDeviceToHost, st);
                if (e != cudaSuccess)
                    return e;
                *bytes += n * (hi - lo) * es;
            }
            cudaEventRecord(*ev[i % 2], st);
        }
        if (i > 0) {                              /* unpack chunk i - 1 */
            size_t c = i - 1, r, n, lo, hi;
            tb_chunk_rows(&w, c, per, &r, &n);
            tb_win_cols(&w, r, n, &lo, &hi);
            if ((e = cudaEventSynchronize(*ev[c % 2])) != cudaSuccess)
                return e;
            if (hi > lo) {
                const size_t row_bytes = (hi - lo) * es;
                tb_copy cp = {dst + r * stride + lo * es, buf[c % 2], stride, row_bytes, row_bytes,
                              n, 0, w.tri ? &w : NULL, r, col0[c % 2]};
                tb_copy_run(&cp, 1);
            }
            *done += n;
        }
    }
    return cudaSuccess;
}

