/* src/gpu/pipeline.c - one product on the GPU, as plan.c cuts it: op(B)'s block
 * uploaded, then panels of op(A) streamed in and panels of C streamed out on
 * their own streams while the kernel computes the panels between them.
 * Contract: C is written only with results whose kernel succeeded; after a
 * failure the caller learns which part of C is final (usually none). */
#include "tb_gpu.h"
#include "tb_kernels.h"
#include <string.h>

/* src/'s precisions are the kernels' element types, value for value. */
_Static_assert((int)TB_SINGLE == (int)TB_F32 && (int)TB_DOUBLE == (int)TB_F64 &&
               (int)TB_COMPLEX == (int)TB_C32 && (int)TB_ZCOMPLEX == (int)TB_C64,
               "tb_prec and tb_dtype must agree");

/* ---- Fault injection and the kernel ---- */

/* An injected fault (TILEDBLAS_FAULT) replaces the result of that stage by
 * an error; tb_fault_hit tells the failure accounting it was ours. The d2h
 * fault strikes at the last panel (level3.c: the last part of the
 * download), so that the recovery of a partly written C is exercised too.
 * Per thread: a call runs on its caller's thread. */
static __thread int tb_fault_struck;
static __thread int tb_fault_slot_here;   /* the device slot of the lane in use */

void tb_fault_arm(int slot)
{
    tb_fault_struck = 0;
    tb_fault_slot_here = slot;
}

int tb_fault_hit(void)
{
    return tb_fault_struck;
}

cudaError_t tb_inject(tb_stage stage, cudaError_t e)
{
    const tb_settings *s = tb_settings_get();
    if (s->fault != stage || (s->fault_slot >= 0 && s->fault_slot != tb_fault_slot_here))
        return e;
    tb_fault_struck = 1;
    return cudaErrorUnknown;
}

/* TILEDBLAS_KERNEL's kernel when it computes the call's precision, fits
 * this GPU and accepts the call, else the best one for the call; under a
 * TILEDBLAS_DEVICE_MEMORY cap none that takes scratch of its own beyond the
 * buffers the cap counts. A kernel of the other precision is simply not
 * used for this call (TILEDBLAS_KERNEL names one kernel, of one precision). */
const tb_kernel_info *tb_choose_kernel(const tb_gemm *g, int capped)
{
    const char *name = tb_settings_get()->kernel;
    if (name) {
        const tb_kernel_info *k = tb_kernel_by_name(name);
        if (k && tb_kernel_accepts(k, g) && !(capped && k->takes_scratch))
            return k;
        if (!k || k->dtype == g->dtype)
            tb_warn_once(TB_ONCE_STAGE + TB_STAGE_COUNT, "%s='%s' %s; using the default kernel",
                         TB_ENV_KERNEL, name, !k ? "is not a kernel"
                         : !tb_kernel_fits_here(k) ? "does not fit this GPU"
                         : capped && k->takes_scratch ? "needs scratch beyond " TB_ENV_DEVICE_MEMORY
                         : "does not support this call");
    }
    return tb_kernel_pick(g, !capped);
}

/* ---- One run ---- */

/* What the steps of one run share. */
typedef struct tb_run {
    tb_lane *L;
    const tb_problem *p;
    tb_gpu_times *t;
    tb_plan pl;
    size_t m, n, k;               /* k is 0 when A and B are not read        */
    int reads_c;                  /* beta != 0: C goes in as well as out     */
    int one;                      /* one panel, one block: all on one stream */
    cudaStream_t in, out;
    size_t e;                     /* bytes of an element                     */
    tb_gemm g0;                   /* the kernel's arguments but the pointers */
    const tb_kernel_info *kern;
    int split_ok;                 /* no memory cap: tb_gemm_run may split K,
                                   * kernels may take scratch */
    int first_kernel, first_out;
    cudaError_t err;
} tb_run;

/* Plan within the lane's memory budget, then size the buffers and the
 * staging for it. */
static cudaError_t tb_run_prepare(tb_run *R)
{
    tb_lane *L = R->L;
    const tb_problem *p = R->p;
    const unsigned allocs_before = tb_allocs_here;
    cudaError_t e = cudaSuccess;
    if (tb_plan_make(p, L->budget, &R->pl) != 0)
        return cudaErrorMemoryAllocation;
    const tb_plan *pl = &R->pl;
    if (tb_lane_held(L) > tb_plan_bytes(p, pl) + L->budget / 2)
        tb_lane_free_buffers(L);   /* do not sit on far more than this call needs */
    const size_t es = R->e;
    if (R->k)
        e = p->transb ? tb_buffer_fit(&L->bbuf, pl->nb, R->k, es) : tb_buffer_fit(&L->bbuf, R->k, pl->nb, es);
    for (int i = 0; i < pl->slots && e == cudaSuccess; i++) {
        if (R->k)
            e = p->transa ? tb_buffer_fit(&L->slot[i].a, R->k, pl->mp, es)
                          : tb_buffer_fit(&L->slot[i].a, pl->mp, R->k, es);
        if (e == cudaSuccess)
            e = tb_buffer_fit(&L->slot[i].c, pl->mp, pl->nb, es);
    }
    if (e == cudaSuccess) {
        /* Staging: an eighth of the call's traffic per buffer, 1 to 8 MiB. */
        double traffic = (double)es * ((double)R->m * R->k + (double)R->k * R->n +
                                       (R->reads_c ? 2.0 : 1.0) * R->m * R->n);
        e = tb_stage_fit(L, traffic / 8 > (double)TB_STAGE_MAX_BYTES ? TB_STAGE_MAX_BYTES
                                                                     : (size_t)(traffic / 8));
    }
    R->t->grew = tb_allocs_here != allocs_before;
    return e;
}

/* The rows x cols window of host matrix X (stride ld) at row r0, column c0. */
static tb_window tb_win(const tb_run *R, const void *X, size_t ld, size_t r0, size_t c0,
                        size_t rows, size_t cols)
{
    return (tb_window){(void *)tb_at(R->p, X, ld, r0, c0), ld, rows, cols, R->e, TB_WIN_ALL, 0, 0};
}

/* Columns [j0, j0 + nb) of op(B) onto the device, once the kernels of the
 * previous block are done reading the old ones. */
static cudaError_t tb_run_send_b(tb_run *R, size_t j0, size_t nb)
{
    tb_lane *L = R->L;
    const tb_problem *p = R->p;
    for (int i = 0; i < R->pl.slots && j0 > 0; i++)
        cudaStreamWaitEvent(R->in, L->slot[i].k_done, 0);
    if (!R->k)
        return cudaSuccess;
    return tb_upload(L, R->in, L->bbuf.ptr, L->bbuf.pitch,
                     p->transb ? tb_win(R, p->B, p->ldb, j0, 0, nb, R->k)
                               : tb_win(R, p->B, p->ldb, 0, j0, R->k, nb),
                     &R->t->bytes_h2d);
}

/* Rows [r0, r0 + mp) of op(A), and of C when beta reads it, into slot sl,
 * once the slot's previous kernel and download are done. */
static cudaError_t tb_run_send_panel(tb_run *R, tb_slot *sl, size_t r0, size_t mp, size_t j0, size_t nb)
{
    const tb_problem *p = R->p;
    cudaError_t e = cudaSuccess;
    if (!R->one) {
        cudaStreamWaitEvent(R->in, sl->k_done, 0);
        cudaStreamWaitEvent(R->in, sl->out_done, 0);
    }
    if (R->k)
        e = tb_upload(R->L, R->in, sl->a.ptr, sl->a.pitch,
                      p->transa ? tb_win(R, p->A, p->lda, 0, r0, R->k, mp)
                                : tb_win(R, p->A, p->lda, r0, 0, mp, R->k),
                      &R->t->bytes_h2d);
    if (e == cudaSuccess && R->reads_c)
        e = tb_upload(R->L, R->in, sl->c.ptr, sl->c.pitch, tb_win(R, p->C, p->ldc, r0, j0, mp, nb),
                      &R->t->bytes_h2d);
    cudaEventRecord(R->L->mark[TB_MARK_IN1], R->in);   /* the last one marks the end of input */
    return e;
}

/* The panel's kernel, as soon as its inputs are there. */
static cudaError_t tb_run_compute(tb_run *R, tb_slot *sl, size_t mp, size_t nb)
{
    tb_lane *L = R->L;
    if (!R->one) {
        cudaEventRecord(sl->in_done, R->in);
        cudaStreamWaitEvent(L->comp, sl->in_done, 0);
        cudaStreamWaitEvent(L->comp, sl->out_done, 0);
    }
    tb_gemm g = R->g0;
    g.m = (int)mp;
    g.n = (int)nb;
    g.A = sl->a.ptr; g.lda = sl->a.pitch / R->e;
    g.B = L->bbuf.ptr; g.ldb = L->bbuf.pitch / R->e;
    g.C = sl->c.ptr; g.ldc = sl->c.pitch / R->e;
    if (!R->k) {
        g.A = g.B = NULL;
        g.lda = g.ldb = 1;
    }
    if (R->first_kernel) {
        cudaEventRecord(L->mark[TB_MARK_K0], L->comp);
        R->first_kernel = 0;
    }
    /* tb_gemm_run (run.cu) splits a grid that fills the GPU badly along K,
     * its scratch from a pool of its own; under a TILEDBLAS_DEVICE_MEMORY
     * cap, which that scratch would overstep, the kernel runs whole. */
    cudaError_t e = tb_gemm_run(&g, R->kern, !R->split_ok, L->comp);
    if (e != cudaSuccess)
        return e;
    cudaEventRecord(sl->k_done, L->comp);
    if (R->one)
        cudaEventRecord(L->mark[TB_MARK_K1], L->comp);   /* C's way back follows on this stream */
    R->t->panels++;
    return cudaSuccess;
}

/* One panel of C back to the caller: rows [r0, r0 + mp) of the block at
 * j0, from slot os, once its kernel is done. Returns the stage that failed
 * (TB_STAGE_NONE on success). */
static tb_stage tb_run_receive(tb_run *R, tb_slot *os, size_t r0, size_t mp, size_t j0, size_t nb)
{
    const tb_problem *p = R->p;
    /* On one stream the download waits for the kernel on the device; the
     * host does not. */
    cudaError_t e = R->one ? cudaSuccess : cudaEventSynchronize(os->k_done);
    if ((R->err = tb_inject(TB_STAGE_KERNEL, e)) != cudaSuccess)
        return TB_STAGE_KERNEL;
    if (R->first_out) {
        cudaEventRecord(R->L->mark[TB_MARK_OUT0], R->out);
        R->first_out = 0;
    }
    e = r0 + mp >= R->m && j0 + nb >= R->n ? tb_inject(TB_STAGE_D2H, cudaSuccess) : cudaSuccess;
    size_t done = 0;
    if (e == cudaSuccess)
        e = tb_download(R->L, R->out, tb_win(R, p->C, p->ldc, r0, j0, mp, nb), os->c.ptr,
                        os->c.pitch, &R->t->bytes_d2h, &done);
    if ((R->err = e) != cudaSuccess) {
        /* The panel's first rows may be final already: C's rows [0, r0 +
         * done) of this block are (the rows before r0 were, or done is 0). */
        if (done > 0) {
            R->t->done_cols_end = (int)(j0 + nb);
            R->t->done_rows = (int)(r0 + done);
        }
        /* A kernel that failed shows here on one stream: name it. */
        return R->one && !tb_fault_struck && cudaEventQuery(os->k_done) != cudaSuccess
                   ? TB_STAGE_KERNEL : TB_STAGE_D2H;
    }
    if (!R->one)
        cudaEventRecord(os->out_done, R->out);
    return TB_STAGE_NONE;
}

/* One column block: B's columns, then every panel in, computed and out.
 * A panel goes out once the next one has gone in (its kernel had the time
 * that upload took); the block's last panels go out at its end. */
static tb_stage tb_run_block(tb_run *R, size_t j0, size_t *q)
{
    const size_t nb = R->n - j0 < R->pl.nb ? R->n - j0 : R->pl.nb, P = R->pl.mp;
    if ((R->err = tb_inject(TB_STAGE_H2D, tb_run_send_b(R, j0, nb))) != cudaSuccess)
        return TB_STAGE_H2D;
    size_t out_next = 0;   /* first row of this block not yet downloaded */
    for (size_t r0 = 0; r0 < R->m; r0 += P, (*q)++) {
        const size_t mp = R->m - r0 < P ? R->m - r0 : P;
        tb_slot *sl = &R->L->slot[*q % (size_t)R->pl.slots];
        if ((R->err = tb_inject(TB_STAGE_H2D, tb_run_send_panel(R, sl, r0, mp, j0, nb))) != cudaSuccess)
            return TB_STAGE_H2D;
        if ((R->err = tb_inject(TB_STAGE_LAUNCH, tb_run_compute(R, sl, mp, nb))) != cudaSuccess)
            return TB_STAGE_LAUNCH;
        while (out_next < r0 + mp && (out_next + P <= r0 || r0 + mp >= R->m)) {
            const size_t omp = R->m - out_next < P ? R->m - out_next : P;
            tb_slot *os = &R->L->slot[(*q - (r0 - out_next) / P) % (size_t)R->pl.slots];
            tb_stage failed = tb_run_receive(R, os, out_next, omp, j0, nb);
            if (failed != TB_STAGE_NONE)
                return failed;
            out_next += omp;
            /* Rows [0, out_next) of this block are final now. */
            R->t->done_cols_end = (int)(j0 + nb);
            R->t->done_rows = (int)out_next;
        }
    }
    R->t->done_cols = (int)(j0 + nb);
    R->t->done_rows = 0;
    return TB_STAGE_NONE;
}

static float tb_span(tb_lane *L, int from, int to)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, L->mark[from], L->mark[to]) != cudaSuccess)
        ms = 0.0f;
    return ms;
}

/* The work of one call on lane L. Returns the failed stage, with the CUDA
 * error in *err and the final part of C in t->done_*. */
static tb_stage tb_run_product(tb_lane *L, const tb_problem *p, tb_gpu_times *t, cudaError_t *err)
{
    tb_run R = {.L = L, .p = p, .t = t, .m = (size_t)p->m, .n = (size_t)p->n,
                .k = tb_reads_ab(p) ? (size_t)p->k : 0, .reads_c = tb_reads_c(p),
                .e = tb_prec_size(p->prec),
                .split_ok = !(tb_settings_get()->device_memory > 0.0),
                .first_kernel = 1, .first_out = 1};
    if ((*err = tb_inject(TB_STAGE_ALLOC, tb_run_prepare(&R))) != cudaSuccess)
        return TB_STAGE_ALLOC;
    R.g0 = (tb_gemm){(tb_dtype)p->prec, R.pl.mp < R.m ? (int)R.pl.mp : (int)R.m,
                     R.pl.nb < R.n ? (int)R.pl.nb : (int)R.n, (int)R.k, p->transa, p->transb,
                     {p->alpha, p->alpha_im}, {p->beta, p->beta_im}, NULL, 1, NULL, 1, NULL, 1, 0, 0};
    R.kern = tb_choose_kernel(&R.g0, !R.split_ok);
    t->kernel = R.kern->name;
    t->devices = 1;
    t->done_cols = t->done_cols_end = t->done_rows = 0;

    /* One panel and one block: nothing to overlap, so everything goes on one
     * stream in its order - the inputs, the kernel, C's way back - with no
     * event between streams and no wait on the host until C comes back. A
     * small call is mostly such fixed costs. */
    R.one = R.pl.slots == 1 && R.pl.nb >= R.n;
    R.in = R.one ? L->comp : L->h2d;
    R.out = R.one ? L->comp : L->d2h;
    cudaEventRecord(L->mark[TB_MARK_IN0], R.in);
    size_t q = 0;
    for (size_t j0 = 0; j0 < R.n; j0 += R.pl.nb) {
        tb_stage failed = tb_run_block(&R, j0, &q);
        if (failed != TB_STAGE_NONE) {
            *err = R.err;
            return failed;
        }
    }
    if (!R.one)
        cudaEventRecord(L->mark[TB_MARK_K1], L->comp);
    cudaEventRecord(L->mark[TB_MARK_OUT1], R.out);
    cudaError_t e;
    if ((e = cudaStreamSynchronize(R.out)) != cudaSuccess ||
        (!R.one && (e = cudaStreamSynchronize(L->comp)) != cudaSuccess)) {
        *err = e;
        return TB_STAGE_D2H;
    }
    /* Spans from each stream's first to last work; they overlap. */
    t->h2d_s = tb_span(L, TB_MARK_IN0, TB_MARK_IN1) * 1e-3;
    t->kernel_s = tb_span(L, TB_MARK_K0, TB_MARK_K1) * 1e-3;
    t->d2h_s = tb_span(L, TB_MARK_OUT0, TB_MARK_OUT1) * 1e-3;
    return TB_STAGE_NONE;
}

tb_stage tb_gpu_gemm_on(int slot, const tb_problem *p, tb_gpu_times *t)
{
    tb_lane *L = tb_lane_acquire(slot);
    if (!L)
        return TB_STAGE_INIT;
    cudaError_t err = cudaSuccess;
    tb_fault_arm(L->dev);
    tb_stage failed = tb_run_product(L, p, t, &err);
    if (failed == TB_STAGE_ALLOC && !tb_fault_struck) {
        /* Someone else may hold the memory: give ours back, plan again
         * within what is free now, once. */
        size_t free_b = 0, total_b = 0;
        tb_lane_free_buffers(L);
        cudaGetLastError();
        if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b / 10 * 8 < L->budget) {
            L->budget = free_b / 10 * 8;
            memset(t, 0, sizeof *t);
            failed = tb_run_product(L, p, t, &err);
        }
    }
    if (failed != TB_STAGE_NONE) {
        /* Let queued work drain (or fail) before anything is reused. */
        cudaStreamSynchronize(L->h2d);
        cudaStreamSynchronize(L->comp);
        cudaStreamSynchronize(L->d2h);
        cudaGetLastError();   /* clear a non-sticky error */
        if (failed == TB_STAGE_ALLOC)
            tb_lane_free_buffers(L);   /* give the memory back; a smaller call may fit */
    }
    tb_lane_release(L, failed, err, tb_fault_struck);
    return failed;
}

tb_stage tb_gpu_gemm(const tb_problem *p, tb_gpu_times *t)
{
    return tb_gpu_gemm_on(-1, p, t);
}

/* Each slot's first lane, with its staging buffers made ahead at their
 * largest, so that no call pays for starting CUDA on a GPU or for pinned
 * memory (cudaHostAlloc takes about 0.4 ms a MiB on the H200 machine). */
void tb_gpu_warm(void)
{
    int ids[TB_MAX_DEVICES];
    double speed[TB_MAX_DEVICES];
    const int n = tb_gpu_slots(ids, speed);
    for (int i = 0; i < n; i++) {
        tb_lane *L = tb_lane_acquire(ids[i]);
        if (!L)
            continue;
        if (tb_stage_fit(L, TB_STAGE_MAX_BYTES) != cudaSuccess)
            cudaGetLastError();    /* the first call will try again, and report */
        tb_lane_release(L, TB_STAGE_NONE, cudaSuccess, 0);
    }
}

/* The code of the kernels the default pick can return, loaded ahead
 * (tb_kernels_load): CUDA loads a kernel at its first launch, which would
 * make the first GPU call of a class measure slow (its kernels 0.06-0.09
 * ms against 0.02-0.03 after, 150^3 and 700x700x20 on the H200 machine).
 * Stops once *stop is set. */
void tb_gpu_load_kernels(const int *stop)
{
    int ids[TB_MAX_DEVICES], done[TB_MAX_DEVICES], ndone = 0;
    double speed[TB_MAX_DEVICES];
    const int n = tb_gpu_slots(ids, speed);
    for (int i = 0; i < n && !*stop; i++) {
        tb_lane *L = tb_lane_acquire(ids[i]);
        if (!L)
            continue;
        int dev = -1, seen = 0;
        cudaGetDevice(&dev);       /* a GPU's code is loaded once, for all its slots */
        for (int j = 0; j < ndone; j++)
            seen |= done[j] == dev;
        if (!seen && tb_kernels_load(L->comp, stop) != cudaSuccess)
            cudaGetLastError();    /* a call that launches will see it, and report */
        done[ndone++] = dev;
        tb_lane_release(L, TB_STAGE_NONE, cudaSuccess, 0);
    }
}
