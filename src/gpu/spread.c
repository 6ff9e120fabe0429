/* src/gpu/spread.c - a call's GPU route: on one device, or cut over several
 * (plan.c's tb_plan_split), each part on its own device slot - its lanes,
 * buffers and staging - at the same time, the caller's thread running the
 * first part and one thread each the others. A failure on one device costs
 * only its part: the CPU BLAS completes what that part left unfinished and
 * the other parts stand. */
#include "tb_internal.h"
#include <pthread.h>
#include <string.h>

/* After a GPU failure part of C may already be final (t->done_*): the CPU
 * BLAS computes the rest, as at most two sub-products of the row-major
 * problem. Unwritten parts still hold the caller's C. */
void tb_complete_on_cpu(const tb_call *c, const tb_problem *p, const tb_gpu_times *t)
{
    if (t->done_cols == 0 && t->done_rows == 0) {
        if (c)
            tb_forward(c);          /* nothing written: the call as it came */
        else
            tb_forward_problem(p);
        return;
    }
    if (t->done_rows > 0 && t->done_cols_end > t->done_cols && t->done_rows < p->m) {
        /* Rows [done_rows, m) of columns [done_cols, done_cols_end). */
        const tb_problem q = tb_sub_problem(p, (size_t)t->done_rows, (size_t)t->done_cols,
                                            p->m - t->done_rows, t->done_cols_end - t->done_cols);
        tb_forward_problem(&q);
    }
    const int from = t->done_rows > 0 ? t->done_cols_end : t->done_cols;
    if (from < p->n) {
        /* All rows of columns [from, n). */
        const tb_problem q = tb_sub_problem(p, 0, (size_t)from, p->m, p->n - from);
        tb_forward_problem(&q);
    }
}

typedef struct tb_part {
    tb_problem p;
    int slot;
    tb_gpu_times t;
    tb_stage failed;
    double seconds;
} tb_part;

static void *tb_part_run(void *arg)
{
    tb_part *x = arg;
    const double t0 = tb_now();
    x->failed = tb_gpu_gemm_on(x->slot, &x->p, &x->t);
    x->seconds = tb_now() - t0;
    return NULL;
}

/* The call's times from its parts': the spans of the longest part, the
 * bytes and panels of all. */
static void tb_parts_merge(const tb_part *x, int n, tb_gpu_times *t)
{
    memset(t, 0, sizeof *t);
    t->devices = n;
    for (int i = 0; i < n; i++) {
        const tb_gpu_times *u = &x[i].t;
        t->h2d_s = u->h2d_s > t->h2d_s ? u->h2d_s : t->h2d_s;
        t->kernel_s = u->kernel_s > t->kernel_s ? u->kernel_s : t->kernel_s;
        t->d2h_s = u->d2h_s > t->d2h_s ? u->d2h_s : t->d2h_s;
        t->bytes_h2d += u->bytes_h2d;
        t->bytes_d2h += u->bytes_d2h;
        t->panels += u->panels;
        t->grew |= u->grew;
        if (!t->kernel)
            t->kernel = u->kernel;
    }
}

/* The parts at once; returns the first failed stage, every failed part
 * completed on the CPU. */
static tb_stage tb_parts_run(const tb_problem *p, const tb_split *sp, const int *ids, tb_gpu_times *t)
{
    tb_part x[TB_MAX_DEVICES];
    pthread_t th[TB_MAX_DEVICES];
    int threaded[TB_MAX_DEVICES] = {0};
    for (int i = 0; i < sp->parts; i++) {
        memset(&x[i], 0, sizeof x[i]);
        x[i].p = tb_plan_part(p, sp, i);
        x[i].slot = ids[sp->dev[i]];
    }
    for (int i = 1; i < sp->parts; i++)
        threaded[i] = pthread_create(&th[i], NULL, tb_part_run, &x[i]) == 0;
    tb_part_run(&x[0]);
    for (int i = 1; i < sp->parts; i++) {
        if (threaded[i])
            pthread_join(th[i], NULL);
        else
            tb_part_run(&x[i]);     /* no thread to be had: in turn, here */
    }
    tb_stage failed = TB_STAGE_NONE;
    for (int i = 0; i < sp->parts; i++) {
        if (x[i].failed == TB_STAGE_NONE) {
            tb_gpu_note_speed(x[i].slot, tb_problem_flops(&x[i].p) / x[i].seconds);
            continue;
        }
        if (failed == TB_STAGE_NONE)
            failed = x[i].failed;
        tb_complete_on_cpu(NULL, &x[i].p, &x[i].t);
    }
    tb_parts_merge(x, sp->parts, t);
    return failed;
}

tb_stage tb_gpu_route(const tb_call *c, const tb_problem *p, tb_gpu_times *t)
{
    int ids[TB_MAX_DEVICES];
    double speed[TB_MAX_DEVICES];
    tb_split sp;
    const int nd = tb_gpu_slots(ids, speed);
    if (nd > 1 && tb_plan_split(p, nd, speed, &sp) > 1) {
        tb_stage failed = tb_parts_run(p, &sp, ids, t);
        /* All of C is final: nothing is left for the caller to complete. */
        t->done_cols = t->done_cols_end = p->n;
        t->done_rows = 0;
        return failed;
    }
    tb_stage failed = tb_gpu_gemm(p, t);
    if (failed != TB_STAGE_NONE)
        tb_complete_on_cpu(c, p, t);
    return failed;
}
