/* src/gpu/tb_gpu.h - what the files of the GPU host side share: a lane
 * (the device resources of one call in flight) and its buffers.
 *   gpu.c       CUDA started lazily, fork, failures, lanes, device buffers
 *   staging.c   host copies between the caller's arrays and pinned staging
 *   pipeline.c  one product: upload, kernels, download, as plan.c cuts it;
 *               fault injection and the kernel choice, which level3.c shares
 *   level3.c    the other routines: upload, blocked.c's algorithm, download
 * Only those four include this; the rest of src/ sees tb_internal.h. */
#ifndef TB_GPU_H
#define TB_GPU_H

#include "tb_internal.h"
#include <cuda_runtime_api.h>

/* One pitched device matrix, grown on demand, reused by later calls. */
typedef struct tb_pitched {
    void *ptr;
    size_t pitch;         /* bytes between rows, from cudaMallocPitch */
    size_t width;         /* bytes of a row we may use                */
    size_t height;        /* rows                                     */
} tb_pitched;

/* The pipeline streams C in panels of rows. A panel uses one slot: its rows
 * of op(A), its rows of C, and the events that order the three streams. */
typedef struct tb_slot {
    tb_pitched a, c;
    cudaEvent_t in_done;     /* h2d: this panel's A (and C) are on the device */
    cudaEvent_t k_done;      /* compute: its kernel finished                  */
    cudaEvent_t out_done;    /* d2h: its C left the device                    */
} tb_slot;

/* Pinned staging buffers: the caller's pageable rows are packed into one by
 * the copy threads while the DMA engine moves another. Each host copy moves
 * every byte through memory twice or three times, and the copies bound a
 * large call (an 8192^3 call packs 512 MiB and unpacks 256 MiB; the H200
 * machine's 16 cores pack at 44 GB/s alone, 30 GB/s beside a DMA), so the
 * buffers are kept small enough to stay in the last-level cache: packed
 * with ordinary stores, they are read by the DMA engine from the cache, not
 * from memory. A chunk also has fixed costs (about 20 us: the pool, an
 * event, a copy to queue), a tenth of an 8 MiB chunk's DMA. bench_pipeline,
 * 8192^3 on the H200 machine: 18.1-18.6 ms with 8 MiB buffers, 20.5-22.4
 * with 32 MiB (out of the cache), 20.6-22.4 with 4 MiB and 29-32 with 2 MiB
 * (the fixed costs). */
enum { TB_STAGES = 4 };
#define TB_STAGE_MAX_BYTES ((size_t)8 << 20)

/* Timing marks of one call (pipeline.c): the first and last input copy,
 * the first and last kernel, the first and last output copy. */
enum { TB_MARK_IN0, TB_MARK_K0, TB_MARK_K1, TB_MARK_OUT0, TB_MARK_OUT1, TB_MARK_IN1, TB_MARKS };

/* A lane is everything one call needs on the device: three streams, the
 * slots, op(B)'s buffer, its staging buffers and timing marks. Calls from
 * several threads run on separate lanes at once, so one call's copies
 * overlap another's compute; the host-side copy threads are shared. */
typedef struct tb_lane {
    int ready, busy;
    int dev;                        /* its device slot */
    cudaStream_t h2d, comp, d2h;
    tb_slot slot[TB_PLAN_SLOTS];
    tb_pitched bbuf;                /* op(B), or a block of it */
    char *stage_mem;
    size_t stage_bytes;
    cudaEvent_t stage_ev[TB_STAGES];
    unsigned stage_next;
    cudaEvent_t mark[TB_MARKS];
    size_t budget;                  /* device bytes this lane may hold */
} tb_lane;

/* Device and pinned allocations made by this thread: a call that made any
 * paid for them (tb_gpu_times.grew), so its time says little of the next. */
extern __thread unsigned tb_allocs_here TB_HIDDEN;

/* ---- gpu.c ---- */
/* A lane for this call on device slot `slot` (-1: any), waiting while all
 * are busy, with CUDA's current device set; NULL when that slot (or every
 * slot) is not usable. */
TB_HIDDEN tb_lane *tb_lane_acquire(int slot);
/* Gives the lane back and counts the call's outcome: failed is the stage
 * that failed (TB_STAGE_NONE: success), err its CUDA error, injected 1 when
 * TILEDBLAS_FAULT caused it. An unrecoverable error, or several failures in
 * a row, turn the GPU path off for the process (with one warning each). */
TB_HIDDEN void tb_lane_release(tb_lane *L, tb_stage failed, cudaError_t err, int injected);
/* Makes b hold rows x cols elements of esize bytes; keeps the old one
 * when it fits. */
TB_HIDDEN cudaError_t tb_buffer_fit(tb_pitched *b, size_t rows, size_t cols, size_t esize);
/* Device bytes the lane's buffers hold, and giving them back. */
TB_HIDDEN size_t tb_lane_held(const tb_lane *L);
TB_HIDDEN void tb_lane_free_buffers(tb_lane *L);

/* ---- staging.c ---- */
/* Makes the lane's staging buffers at least `want` bytes each (at most
 * TB_STAGE_MAX_BYTES, whole MiB). */
TB_HIDDEN cudaError_t tb_stage_fit(tb_lane *L, size_t want);
/* A host window: rows x cols elements of esize bytes, ld elements apart.
 * tri: only a triangle of each row is moved, row i's columns [0, i + diag]
 * (TB_WIN_LOWER) or [i + diag, cols) (TB_WIN_UPPER), diag the window's
 * first row's place on the diagonal of the square it is part of: an
 * upload moves each chunk's rectangle around its triangles (reading the
 * caller's memory there is harmless), a download writes the triangles
 * alone. last_first: a download goes from the last rows to the first. */
enum { TB_WIN_ALL = 0, TB_WIN_LOWER = 1, TB_WIN_UPPER = 2 };
typedef struct tb_window {
    void *ptr;
    size_t ld, rows, cols, esize;
    int tri;
    size_t diag;
    int last_first;
} tb_window;
/* Host window w -> device (dst, dpitch) on stream st, packed into staging
 * buffers by the copy threads; adds the bytes to *bytes. Returns once the
 * last chunk is queued. */
TB_HIDDEN cudaError_t tb_upload(tb_lane *L, cudaStream_t st, void *dst, size_t dpitch,
                                tb_window w, uint64_t *bytes);
/* Device (src, spitch) -> host window w on stream st, the DMA of one chunk
 * overlapping the unpacking of the one before. Returns once the window is
 * written. After an error *done says how many of its rows are written, in
 * the order they go (the first ones, or with last_first the last ones);
 * the others are untouched: a chunk is unpacked only once its DMA is
 * known to have succeeded, and whole. */
TB_HIDDEN cudaError_t tb_download(tb_lane *L, cudaStream_t st, tb_window w, const void *src,
                                  size_t spitch, uint64_t *bytes, size_t *done);

/* ---- pipeline.c, shared with level3.c ---- */
/* Fault injection (TILEDBLAS_FAULT) for the call about to run on device
 * slot `slot`: tb_fault_arm before it, then tb_inject(stage, e) is e, or an
 * error when the fault strikes that stage there; tb_fault_hit says whether
 * it struck. */
TB_HIDDEN void tb_fault_arm(int slot);
TB_HIDDEN cudaError_t tb_inject(tb_stage stage, cudaError_t e);
TB_HIDDEN int tb_fault_hit(void);
/* The kernel for product g: TILEDBLAS_KERNEL's when it fits, else the
 * default pick; capped (a TILEDBLAS_DEVICE_MEMORY cap): none that takes
 * scratch of its own. */
struct tb_gemm;
struct tb_kernel_info;
TB_HIDDEN const struct tb_kernel_info *tb_choose_kernel(const struct tb_gemm *g, int capped);

#endif
