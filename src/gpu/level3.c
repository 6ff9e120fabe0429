/* src/gpu/level3.c - the GPU route of symm, hemm, syrk, herk, syr2k, her2k,
 * trmm and trsm (tb_gpu_level3; docs/blocked.md): the call in blocked.c's
 * row-major form (tb_l3) on one lane, whole:
 *   1. its matrices uploaded into the lane's device buffers (A into slot
 *      0's A buffer: its triangle's rows where A is triangular or
 *      symmetric; B into the B buffer; C into slot 0's C buffer when the
 *      routine reads it: syrk's family's triangle, trmm's and trsm's B),
 *   2. blocked.c's algorithm run on them by the device engine below, every
 *      GEMM and diagonal-block step in order on the lane's compute stream,
 *   3. what the routine writes downloaded last (syrk's family: C's
 *      triangle alone, so the other triangle of the caller's C is never
 *      written; symm, hemm: C; trmm, trsm: B).
 * A call whose matrices do not fit the device memory a call may hold (the
 * lane's budget) goes to the CPU BLAS whole (t->too_big); there is no
 * out-of-core cut for these routines.
 *
 * Failures: up to the download nothing of the caller's memory is written,
 * so a failure there forwards the call unchanged to the CPU BLAS (the lane's
 * release says so, once). The download is the one step that writes, in
 * chunks each unpacked whole once its copy is known to be done
 * (staging.c), in an order after which what is left is a call of the same
 * routine on the rows not written (tb_l3_order): a failure during it has
 * the CPU BLAS compute those rows (tb_l3_complete), from inputs that are
 * still the caller's own - trmm's and trsm's in-place B too, whose rows not
 * yet written still hold the input they need. Injected faults
 * (TILEDBLAS_FAULT) strike as on GEMM's route: alloc, h2d, launch (the
 * first launch), kernel (the wait for the run), d2h (before the second
 * half of the download). */
#include "tb_gpu.h"
#include "tb_blocked.h"
#include "tb_kernels.h"
#include <string.h>

/* ---- The device engine: blocked.c's steps on device pointers ---------- */

typedef struct tb_dev_engine {
    cudaStream_t st;
    int capped;             /* a TILEDBLAS_DEVICE_MEMORY cap: kernels that take no
                             * scratch of their own, run whole (as pipeline.c) */
    const char *kernel;     /* the first GEMM's kernel, for the trace        */
} tb_dev_engine;

static int tb_dev_gemm(void *ctx, const tb_gemm *g)
{
    tb_dev_engine *x = ctx;
    const tb_kernel_info *k = tb_choose_kernel(g, x->capped);
    if (!x->kernel)
        x->kernel = k->name;
    return (int)tb_inject(TB_STAGE_LAUNCH, tb_gemm_run(g, k, x->capped, x->st));
}

static int tb_dev_merge(void *ctx, const tb_blk_merge *a)
{
    return (int)tb_inject(TB_STAGE_LAUNCH, tb_launch_blk_merge(a, ((tb_dev_engine *)ctx)->st));
}

static int tb_dev_full(void *ctx, const tb_blk_full *a)
{
    return (int)tb_inject(TB_STAGE_LAUNCH, tb_launch_blk_full(a, ((tb_dev_engine *)ctx)->st));
}

static int tb_dev_tri(void *ctx, const tb_blk_tri *a)
{
    return (int)tb_inject(TB_STAGE_LAUNCH, tb_launch_blk_tri(a, ((tb_dev_engine *)ctx)->st));
}

static void *tb_dev_scratch(void *ctx, size_t bytes)
{
    return tb_run_scratch(bytes, ((tb_dev_engine *)ctx)->st);
}

static void tb_dev_scratch_free(void *ctx, void *p)
{
    tb_run_scratch_free(p, ((tb_dev_engine *)ctx)->st);
}

int tb_l3_device(const tb_l3 *d, int nb, cudaStream_t st, const char **kernel)
{
    tb_dev_engine x = {st, tb_settings_get()->device_memory > 0.0, NULL};
    const tb_l3_engine eng = {&x, tb_dev_gemm, tb_dev_merge, tb_dev_full, tb_dev_tri,
                              tb_dev_scratch, tb_dev_scratch_free};
    const int rc = tb_l3_run(d, nb > 0 ? nb : tb_l3_block(d), &eng);
    if (kernel)
        *kernel = x.kernel ? x.kernel : "blocks";
    return rc;
}

/* ---- The call's matrices ---------------------------------------------- */

static int tb_l3_rank(const tb_l3 *p)
{
    return p->routine == TB_R_syrk || p->routine == TB_R_herk || p->routine == TB_R_syr2k ||
           p->routine == TB_R_her2k;
}

static int tb_l3_tri(const tb_l3 *p)
{
    return p->routine == TB_R_trmm || p->routine == TB_R_trsm;
}

static int tb_l3_two(const tb_l3 *p)
{
    return p->routine == TB_R_syr2k || p->routine == TB_R_her2k;
}

/* What the run reads (as tb_l3_run does): A and B unless alpha is 0 (or,
 * for syrk's family, k is 0); C when beta is not 0, trmm's and trsm's B
 * unless alpha is 0. */
typedef struct tb_l3_reads {
    int a, b, c;
    size_t ar, ac;    /* A's stored rows and columns (B's, where it has one) */
} tb_l3_reads;

static tb_l3_reads tb_l3_reads_of(const tb_l3 *p)
{
    const int alpha0 = p->alpha.re == 0.0 && p->alpha.im == 0.0;
    const int beta0 = p->beta.re == 0.0 && p->beta.im == 0.0;
    tb_l3_reads r = {.a = !alpha0 && (!tb_l3_rank(p) || p->k > 0)};
    r.b = r.a && (tb_l3_two(p) || p->routine == TB_R_symm || p->routine == TB_R_hemm);
    r.c = tb_l3_tri(p) ? !alpha0 : !beta0;
    if (tb_l3_rank(p)) {   /* op(A) is n x k */
        r.ar = p->trans ? (size_t)p->k : (size_t)p->n;
        r.ac = p->trans ? (size_t)p->n : (size_t)p->k;
    } else {               /* A is k x k */
        r.ar = r.ac = (size_t)p->k;
    }
    return r;
}

/* The download's order (tb_blocked.h): syrk's family, lower:
 * the first rows' triangle is then C's leading diagonal block, upper: the
 * last rows' is its trailing one. trmm and trsm on the left: a row of the
 * result needs the input rows on one side of it only (op(T) lower: those
 * above it and itself), which are still there when the other side goes
 * first. The rows of symm, hemm and the right side of trmm and trsm each
 * need their own input rows alone (C's, B's). */
int tb_l3_order(const tb_l3 *p)
{
    if (tb_l3_rank(p))
        return p->lower;
    if (tb_l3_tri(p) && p->left)
        return p->lower != (p->trans != 0);
    return 0;
}

/* ---- One run on a lane ---------------------------------------------------- */

typedef struct tb_l3_job {
    tb_lane *L;
    const tb_l3 *p;           /* the call, host pointers                      */
    tb_gpu_times *t;
    tb_l3_reads r;
    size_t es;
    int last_first;           /* tb_l3_order                                  */
    size_t done;              /* rows of C downloaded, in that order           */
    cudaError_t err;
} tb_l3_job;

/* Device bytes of a rows x cols pitched buffer (cudaMallocPitch rows are
 * 512-byte multiples on the GPUs we know; an estimate for the budget). */
static size_t tb_pitch_bytes(size_t rows, size_t cols, size_t es)
{
    return rows * ((cols * es + 511) & ~(size_t)511);
}

/* Bytes b holds once tb_buffer_fit made it rows x cols (0 x 0: as it is). */
static size_t tb_fit_bytes(const tb_pitched *b, size_t rows, size_t cols, size_t es)
{
    if (rows == 0 || cols == 0 || (b->ptr && cols * es <= b->width && rows <= b->height))
        return b->pitch * b->height;
    const size_t w = cols * es > b->width ? cols * es : b->width;
    const size_t h = rows > b->height ? rows : b->height;
    return tb_pitch_bytes(h, w, 1);
}

/* The buffers, within the lane's budget, and the staging. The call is
 * too big (t->too_big, returned as TB_STAGE_ALLOC) when its matrices and
 * blocked.c's scratch alone exceed the budget. */
static tb_stage tb_l3_prepare(tb_l3_job *J, int nb)
{
    tb_lane *L = J->L;
    const tb_l3 *p = J->p;
    const tb_l3_reads *r = &J->r;
    const size_t es = J->es, m = (size_t)p->m, n = (size_t)p->n;
    const size_t brows = r->b ? (tb_l3_two(p) ? r->ar : m) : 0, bcols = r->b ? (tb_l3_two(p) ? r->ac : n) : 0;
    const size_t arows = r->a ? r->ar : 0, acols = r->a ? r->ac : 0;
    const size_t scratch = tb_l3_scratch_bytes(p, nb);
    const size_t need = tb_pitch_bytes(arows, acols, es) + tb_pitch_bytes(brows, bcols, es) +
                        tb_pitch_bytes(m, n, es) + scratch;
    if (need > L->budget) {
        J->t->too_big = 1;
        return TB_STAGE_ALLOC;
    }
    tb_pitched *A = &L->slot[0].a, *B = &L->bbuf, *C = &L->slot[0].c;
    const size_t kept = A->pitch * A->height + B->pitch * B->height + C->pitch * C->height;
    const size_t after = tb_lane_held(L) - kept + tb_fit_bytes(A, arows, acols, es) +
                         tb_fit_bytes(B, brows, bcols, es) + tb_fit_bytes(C, m, n, es) + scratch;
    if (after > L->budget || tb_lane_held(L) > need + L->budget / 2)
        tb_lane_free_buffers(L);   /* make room; do not sit on far more than this call needs */
    const unsigned allocs_before = tb_allocs_here;
    cudaError_t e = tb_buffer_fit(A, arows, acols, es);
    if (e == cudaSuccess)
        e = tb_buffer_fit(B, brows, bcols, es);
    if (e == cudaSuccess)
        e = tb_buffer_fit(C, m, n, es);
    if (e == cudaSuccess) {
        /* Staging: an eighth of the call's traffic per buffer, 1 to 8 MiB. */
        const double traffic = (double)es * ((double)arows * acols + (double)brows * bcols +
                                             (r->c ? 2.0 : 1.0) * (double)m * n);
        e = tb_stage_fit(L, traffic / 8 > (double)TB_STAGE_MAX_BYTES ? TB_STAGE_MAX_BYTES
                                                                     : (size_t)(traffic / 8));
    }
    J->t->grew = tb_allocs_here != allocs_before;
    return (J->err = tb_inject(TB_STAGE_ALLOC, e)) != cudaSuccess ? TB_STAGE_ALLOC : TB_STAGE_NONE;
}

/* A host matrix of the call as a window; tri: its stored triangle's rows
 * (lower or upper, as the call says), diag where its first row is. */
static tb_window tb_l3_win(const tb_l3_job *J, const void *X, size_t ld, size_t rows, size_t cols,
                           int tri, size_t diag)
{
    return (tb_window){(void *)X, ld, rows, cols, J->es,
                       tri ? (J->p->lower ? TB_WIN_LOWER : TB_WIN_UPPER) : TB_WIN_ALL, diag,
                       J->last_first};
}

/* Steps 1 and 2: the inputs up, the algorithm, and its end waited for. */
static tb_stage tb_l3_compute(tb_l3_job *J, int nb)
{
    tb_lane *L = J->L;
    const tb_l3 *p = J->p;
    const tb_l3_reads *r = &J->r;
    const cudaStream_t st = L->comp;
    const size_t es = J->es, m = (size_t)p->m, n = (size_t)p->n;
    void *dA = L->slot[0].a.ptr, *dB = L->bbuf.ptr, *dC = L->slot[0].c.ptr;
    const size_t pa = L->slot[0].a.pitch, pb = L->bbuf.pitch, pc = L->slot[0].c.pitch;
    cudaError_t e = cudaSuccess;
    cudaEventRecord(L->mark[TB_MARK_IN0], st);
    if (r->a)
        e = tb_upload(L, st, dA, pa, tb_l3_win(J, p->A, p->lda, r->ar, r->ac, !tb_l3_rank(p), 0),
                      &J->t->bytes_h2d);
    if (e == cudaSuccess && r->b)
        e = tb_upload(L, st, dB, pb,
                      tb_l3_two(p) ? tb_l3_win(J, p->B, p->ldb, r->ar, r->ac, 0, 0)
                                   : tb_l3_win(J, p->B, p->ldb, m, n, 0, 0),
                      &J->t->bytes_h2d);
    if (e == cudaSuccess && r->c)
        e = tb_upload(L, st, dC, pc, tb_l3_win(J, p->C, p->ldc, m, n, tb_l3_rank(p), 0),
                      &J->t->bytes_h2d);
    cudaEventRecord(L->mark[TB_MARK_IN1], st);
    if ((J->err = tb_inject(TB_STAGE_H2D, e)) != cudaSuccess)
        return TB_STAGE_H2D;

    /* The call on the device: unread matrices point at C (never read). */
    tb_l3 d = *p;
    d.A = r->a ? dA : dC;
    d.lda = r->a ? pa / es : pc / es;
    d.B = r->b ? dB : dC;
    d.ldb = r->b ? pb / es : pc / es;
    d.C = dC;
    d.ldc = pc / es;
    cudaEventRecord(L->mark[TB_MARK_K0], st);
    const int rc = tb_l3_device(&d, nb, st, &J->t->kernel);
    cudaEventRecord(L->mark[TB_MARK_K1], st);
    if (rc == TB_L3_NO_SCRATCH) {
        J->err = cudaErrorMemoryAllocation;
        return TB_STAGE_ALLOC;
    }
    if (rc != 0) {
        J->err = (cudaError_t)rc;
        return TB_STAGE_LAUNCH;
    }
    /* Every kernel done before anything is written back: a failure of
     * theirs shows here, with the caller's memory untouched. */
    if ((J->err = tb_inject(TB_STAGE_KERNEL, cudaStreamSynchronize(st))) != cudaSuccess)
        return TB_STAGE_KERNEL;
    J->t->panels = 1;
    return TB_STAGE_NONE;
}

/* Step 3: what the routine writes, in two halves (the injected d2h fault
 * strikes before the second), in tb_l3_order's order; J->done counts the
 * rows written. */
static tb_stage tb_l3_download(tb_l3_job *J)
{
    tb_lane *L = J->L;
    const tb_l3 *p = J->p;
    const size_t m = (size_t)p->m, half = m / 2, pc = L->slot[0].c.pitch;
    cudaEventRecord(L->mark[TB_MARK_OUT0], L->comp);
    for (int part = 0; part < 2; part++) {
        const size_t o0 = part ? half : 0, o1 = part ? m : half;   /* in the order rows go */
        if (part && (J->err = tb_inject(TB_STAGE_D2H, cudaSuccess)) != cudaSuccess)
            return TB_STAGE_D2H;
        if (o1 <= o0)
            continue;
        const size_t r0 = J->last_first ? m - o1 : o0, done_before = J->done;
        const tb_window w = tb_l3_win(J, (const char *)p->C + r0 * p->ldc * J->es, p->ldc, o1 - o0,
                                      (size_t)p->n, tb_l3_rank(p), r0);
        size_t done = 0;
        J->err = tb_download(L, L->comp, w, (const char *)L->slot[0].c.ptr + r0 * pc, pc,
                             &J->t->bytes_d2h, &done);
        J->done = done_before + done;
        if (J->err != cudaSuccess)
            return TB_STAGE_D2H;
    }
    cudaEventRecord(L->mark[TB_MARK_OUT1], L->comp);
    return TB_STAGE_NONE;
}

static float tb_l3_span(tb_lane *L, int from, int to)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, L->mark[from], L->mark[to]) != cudaSuccess)
        ms = 0.0f;
    return ms;
}

static tb_stage tb_l3_lane_run(tb_l3_job *J)
{
    const int nb = tb_l3_block(J->p);
    J->done = 0;
    J->err = cudaSuccess;
    J->t->devices = 1;
    tb_stage failed = tb_l3_prepare(J, nb);
    if (failed == TB_STAGE_NONE)
        failed = tb_l3_compute(J, nb);
    if (failed == TB_STAGE_NONE)
        failed = tb_l3_download(J);
    if (failed != TB_STAGE_NONE)
        return failed;
    /* All written; the spans, once the last mark is reached. */
    tb_lane *L = J->L;
    if (cudaEventSynchronize(L->mark[TB_MARK_OUT1]) == cudaSuccess) {
        J->t->h2d_s = tb_l3_span(L, TB_MARK_IN0, TB_MARK_IN1) * 1e-3;
        J->t->kernel_s = tb_l3_span(L, TB_MARK_K0, TB_MARK_K1) * 1e-3;
        J->t->d2h_s = tb_l3_span(L, TB_MARK_OUT0, TB_MARK_OUT1) * 1e-3;
    }
    cudaGetLastError();
    return TB_STAGE_NONE;
}

/* ---- The CPU's part after a failure during the download ------------------
 *
 * The rows [a, b) not written hold the caller's input still, and are one
 * call of the routine:
 * syrk's family on the diagonal block of C there (U's and V's rows [a, b));
 * on the left, trmm and trsm on op(T)'s diagonal block there, symm and
 * hemm on A's, plus the product of A's block beside it (rows [a, b),
 * columns [0, a)) with B's first rows, a GEMM; on the right every one of
 * them on C's rows [a, b) (symm's B rows with them) with the whole A. */
void tb_l3_complete(const tb_call *c, const tb_l3 *p, size_t done, int last_first)
{
    const size_t es = tb_dtype_size(p->dtype);
    const int a = last_first ? 0 : (int)done, b = last_first ? p->m - (int)done : p->m, rows = b - a;
    if (rows <= 0)
        return;
    const int sy = p->routine == TB_R_symm || p->routine == TB_R_hemm;
    const char *A = p->A, *B = p->B;
    char *C = (char *)p->C + (size_t)a * p->ldc * es;
    int n = p->n;
    if (tb_l3_rank(p)) {
        n = rows;
        C += (size_t)a * es;
        const size_t u = p->trans ? (size_t)a : (size_t)a * p->lda, v = p->trans ? (size_t)a : (size_t)a * p->ldb;
        A += u * es;
        if (B)
            B += v * es;
    } else {
        if (p->left)
            A += ((size_t)a * p->lda + (size_t)a) * es;
        if (sy)
            B += (size_t)a * p->ldb * es;
    }
    tb_call s;
    int64_t ints[3];
    tb_call_part(c, &s, rows, n, A, B, C, tb_real_width(c->entry), ints);
    tb_forward(&s);
    if (sy && p->left && a > 0) {
        /* C's rows [a, m) += alpha A(a.., 0..a) B(0..a, :): A's block stored
         * (lower), or the transpose of the stored one (upper; hemm: the
         * conjugate transpose), beta 1 after the call above. */
        const tb_problem q = {.m = rows, .n = p->n, .k = a,
                              .transa = p->lower ? 0 : p->routine == TB_R_hemm ? 2 : 1,
                              .alpha = p->alpha.re, .beta = 1.0,
                              .A = (const char *)p->A + (p->lower ? (size_t)a * p->lda : (size_t)a) * es,
                              .lda = p->lda, .B = p->B, .ldb = p->ldb, .C = C, .ldc = p->ldc,
                              .prec = (tb_prec)p->dtype, .alpha_im = p->alpha.im};
        tb_forward_problem(&q);
    }
}

/* ---- The route ------------------------------------------------------------ */

tb_stage tb_gpu_level3(const tb_call *c, tb_gpu_times *t)
{
    tb_l3 p;
    tb_lane *L = tb_l3_of(c, &p) == 0 ? tb_lane_acquire(-1) : NULL;
    if (!L) {
        tb_forward(c);
        return TB_STAGE_INIT;
    }
    tb_fault_arm(L->dev);
    tb_l3_job J = {.L = L, .p = &p, .t = t, .r = tb_l3_reads_of(&p),
                   .es = tb_dtype_size(p.dtype), .last_first = tb_l3_order(&p)};
    tb_stage failed = tb_l3_lane_run(&J);
    if (failed == TB_STAGE_ALLOC && !tb_fault_hit() && !t->too_big) {
        /* Someone else may hold the memory: give ours back, try again
         * within what is free now, once (as pipeline.c does). */
        size_t free_b = 0, total_b = 0;
        tb_lane_free_buffers(L);
        cudaStreamSynchronize(L->comp);
        cudaGetLastError();
        if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && free_b / 10 * 8 < L->budget) {
            L->budget = free_b / 10 * 8;
            memset(t, 0, sizeof *t);
            failed = tb_l3_lane_run(&J);
        }
    }
    if (failed != TB_STAGE_NONE && !t->too_big) {
        /* Let queued work drain (or fail) before anything is reused. */
        cudaStreamSynchronize(L->comp);
        cudaGetLastError();
        if (failed == TB_STAGE_ALLOC)
            tb_lane_free_buffers(L);   /* give the memory back; a smaller call may fit */
    }
    /* Too big is no failure of the GPU's: nothing is counted or said. */
    tb_lane_release(L, t->too_big ? TB_STAGE_NONE : failed, J.err, tb_fault_hit());
    if (failed != TB_STAGE_NONE) {
        if (J.done > 0)
            tb_l3_complete(c, &p, J.done, J.last_first);
        else
            tb_forward(c);
    }
    return failed;
}
