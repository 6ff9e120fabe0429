/* src/dispatch.c - the one place that decides GPU or CPU, and says why.
 * It checks legality exactly as BLAS does (an illegal call is forwarded, so
 * the real BLAS reports it), normalises to a row-major problem, decides,
 * runs, falls back on a GPU failure and accounts the call. */
#include "tb_internal.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int tb_max1(int x) { return x > 1 ? x : 1; }

static int tb_trans_ok(int t) { return t == TB_NO_TRANS || t == TB_TRANS || t == TB_CONJ_TRANS; }

int tb_call_is_legal(const tb_call *c)
{
    if (c->layout != TB_ROW_MAJOR && c->layout != TB_COL_MAJOR)
        return 0;
    if (!tb_trans_ok(c->transa) || !tb_trans_ok(c->transb))
        return 0;
    if (c->m < 0 || c->n < 0 || c->k < 0)
        return 0;
    int ta = c->transa != TB_NO_TRANS, tb = c->transb != TB_NO_TRANS;
    if (c->layout == TB_ROW_MAJOR)
        return c->lda >= tb_max1(ta ? c->m : c->k) &&
               c->ldb >= tb_max1(tb ? c->k : c->n) &&
               c->ldc >= tb_max1(c->n);
    return c->lda >= tb_max1(ta ? c->k : c->m) &&
           c->ldb >= tb_max1(tb ? c->n : c->k) &&
           c->ldc >= tb_max1(c->m);
}

void tb_normalise(const tb_call *c, tb_problem *p)
{
    int ta = c->transa != TB_NO_TRANS, tb = c->transb != TB_NO_TRANS;
    p->k = c->k;
    p->alpha = c->alpha;
    p->beta = c->beta;
    p->C = c->C;
    p->ldc = (size_t)c->ldc;
    if (c->layout == TB_ROW_MAJOR) {
        p->m = c->m; p->n = c->n;
        p->A = c->A; p->lda = (size_t)c->lda; p->transa = ta;
        p->B = c->B; p->ldb = (size_t)c->ldb; p->transb = tb;
    } else {
        /* Column-major C (m x n, ldc) is row-major C^T (n x m, ldc), and
         * C^T = op(B)^T op(A)^T: swap the operands and the sizes. A
         * column-major X read row-major is X^T, so the transposes carry over
         * unchanged. */
        p->m = c->n; p->n = c->m;
        p->A = c->B; p->lda = (size_t)c->ldb; p->transa = tb;
        p->B = c->A; p->ldb = (size_t)c->lda; p->transb = ta;
    }
}

/* TILEDBLAS_SCOPE: may this interface, layout and pair of transposes go to
 * the GPU? Every kernel reads transposed operands in its tile loads, so by
 * default all of them may. */
static int tb_in_scope(const tb_call *c, unsigned scope)
{
    unsigned api = c->api == TB_API_CBLAS ? TB_SCOPE_CBLAS : TB_SCOPE_FORTRAN;
    unsigned layout = c->layout == TB_ROW_MAJOR ? TB_SCOPE_ROW : TB_SCOPE_COL;
    int ta = c->transa != TB_NO_TRANS, tb = c->transb != TB_NO_TRANS;
    unsigned ops = ta ? (tb ? TB_SCOPE_TT : TB_SCOPE_TN) : (tb ? TB_SCOPE_NT : TB_SCOPE_NN);
    return (scope & api) && (scope & layout) && (scope & ops);
}

/* Trying a route that no call of this class has run on costs more than
 * that one call: on the H200 machine 3 of 6 such tries, OpenBLAS calls
 * right after GPU calls, took 22-24 ms instead of 0.2-0.7 (300^3,
 * 700x200x900), and for about 0.1 s after an OpenBLAS call, while
 * OpenBLAS's threads still poll for work, GPU calls ran up to 2-3 times
 * slower (bench_switch). And the untried route's time is the model's
 * alone, which on small and mid-size shapes is optimistic by 1.1-2.7x on
 * either route (model_residuals.awk). So once a class has measured one
 * route, the untried one must be predicted faster by this factor (the band
 * within which learning leaves the model alone) before a call tries it
 * ("kept"). When neither has run and the model's two times are that close,
 * the first call goes to the GPU ("close"): the CPU's side of the model is
 * the more optimistic one on such shapes (300^3 ran 1.4-1.6 times its CPU
 * time and 1.0-1.2 times its GPU time in session 7's sweeps), and it is
 * the route that leaves the program's cores free. */
#define TB_TRY_MARGIN 1.2
/* That lean holds where the times are the formulas'. Where calibrate.c's
 * small-call grid measured both routes at the shapes around the call (at
 * least this share of the interpolation's weight), both times are measured
 * ones, neither side is the optimistic one, and the first call goes the way
 * they say (session 10: 48x1500x100 predicted 0.087 ms on the CPU and 0.091
 * on the GPU went to the GPU first and stayed, at 0.090 ms where OpenBLAS
 * took 0.068; 3000x3000x3 likewise, 1.0 ms against 0.74). */
#define TB_GRID_TRUSTED 0.5
/* Kept on the CPU is not kept for good. Where the two times are close
 * (within TB_TRY_MARGIN) and the class has run twice on the CPU only, the
 * next call tries the GPU ("gpu-try"). That way round a try is cheap: the
 * CPU BLAS's threads keep polling through it (they would anyway, between
 * the program's CPU calls), our copy threads rest again before the next
 * CPU call (tb_pool_rest), and the GPU call is measured as it runs. The
 * other way round a CPU try after GPU calls wakes sleeping threads, is
 * measured slow, and leaves them polling beside the GPU calls that follow
 * (taken out in session 9). So where the model is unsure the CPU may go
 * first, and this corrects it: in session 11's sweep 160^3 went to the CPU
 * first (0.067 ms predicted, 0.078 taken) while the GPU took 0.061-0.073.
 * Not free of noise either: a try whose copies use our copy threads (128
 * KiB and more) starts them while OpenBLAS's threads still poll, and one
 * such try of 128x128x512 took 0.58 ms where 0.1 was predicted, which left
 * that class on the CPU (session 11 call 4). */

/* The model's two times for p (in model[]), the same scaled by what calls
 * of this class took (tb_learn_adjust) in *cpu_s, *gpu_s, and the route
 * they choose, or the other one when it is due a re-check. *kept: 1 when
 * the class stays on its measured route, 2 when a close call goes to the
 * GPU first (TB_TRY_MARGIN). */
tb_route tb_auto_route(const tb_problem *p, double model[2], double *cpu_s, double *gpu_s,
                       int *learned, int *recheck, int *kept)
{
    const double measured = tb_predict(p, &model[TB_ROUTE_CPU], &model[TB_ROUTE_GPU]);
    *cpu_s = model[TB_ROUTE_CPU];
    *gpu_s = model[TB_ROUTE_GPU];
    *learned = *recheck = *kept = 0;
    unsigned tried = 0;
    if (tb_settings_get()->learn)
        *learned = tb_learn_adjust(p, cpu_s, gpu_s, &tried);
    const tb_route faster = *gpu_s < *cpu_s ? TB_ROUTE_GPU : TB_ROUTE_CPU;
    const tb_route slower = faster == TB_ROUTE_GPU ? TB_ROUTE_CPU : TB_ROUTE_GPU;
    const double t[2] = {*cpu_s, *gpu_s};
    if (!(t[faster] * TB_TRY_MARGIN < t[slower])) {
        if (tried == (5u << TB_ROUTE_CPU)) {      /* the CPU believed, the GPU never run */
            *kept = 3;
            return TB_ROUTE_GPU;
        }
        if ((tried & 3u) == 1u << slower) {
            *kept = 1;
            return slower;
        }
        if (tried == 0 && faster == TB_ROUTE_CPU && measured < TB_GRID_TRUSTED) {
            *kept = 2;
            return TB_ROUTE_GPU;
        }
    }
    if (*learned)
        *recheck = faster == TB_ROUTE_GPU ? tb_learn_recheck(p, faster, *gpu_s, *cpu_s)
                                          : tb_learn_recheck(p, faster, *cpu_s, *gpu_s);
    return *recheck ? slower : faster;
}

/* A decision auto mode made by the times: faster, measured when the
 * learned times chose against the model, kept, close, or recheck. */
static tb_decision tb_weighed(tb_route route, int learned, int recheck, int kept,
                              const double model[2], double cpu_s, double gpu_s)
{
    const tb_route model_route = model[TB_ROUTE_GPU] < model[TB_ROUTE_CPU] ? TB_ROUTE_GPU : TB_ROUTE_CPU;
    const int measured = learned && route != model_route;
    const char *why = kept == 3 ? "gpu-try" : kept == 2 ? "gpu-close"
                    : kept ? (route == TB_ROUTE_GPU ? "gpu-kept" : "cpu-kept")
                    : recheck ? (route == TB_ROUTE_GPU ? "gpu-recheck" : "cpu-recheck")
                    : route == TB_ROUTE_GPU ? (measured ? "gpu-measured" : "gpu-faster")
                                            : (measured ? "cpu-measured" : "cpu-faster");
    return (tb_decision){.route = route, .reason = why, .pred_cpu_s = cpu_s, .pred_gpu_s = gpu_s,
                         .weighed = 1, .model_s = {model[0], model[1]}};
}

tb_decision tb_decide(const tb_call *c, const tb_problem *p)
{
    const tb_settings *s = tb_settings_get();
    const char *why;

    if (!tb_call_is_legal(c))
        return (tb_decision){.route = TB_ROUTE_CPU, .reason = "illegal-args"};
    if (s->mode == TB_MODE_CPU)
        return (tb_decision){.route = TB_ROUTE_CPU, .reason = "mode-cpu"};
    if (c->m == 0 || c->n == 0 || ((c->alpha == 0.0f || c->k == 0) && c->beta == 1.0f))
        return (tb_decision){.route = TB_ROUTE_CPU, .reason = "no-op"};
    if (!tb_in_scope(c, s->scope))
        return (tb_decision){.route = TB_ROUTE_CPU, .reason = "scope"};
    double cpu_s = 0.0, gpu_s = 0.0, model[2] = {0.0, 0.0};
    int learned = 0, recheck = 0, kept = 0;
    tb_route route = TB_ROUTE_GPU;
    if (s->mode == TB_MODE_AUTO) {
        if ((double)p->m * p->n * p->k < s->threshold)
            return (tb_decision){.route = TB_ROUTE_CPU, .reason = "small"};
        route = tb_auto_route(p, model, &cpu_s, &gpu_s, &learned, &recheck, &kept);
        /* Until this machine's rates are known (calibrate.c), a call that
         * the built-in rates give to the CPU by a wide margin does not start
         * CUDA to find out. */
        if (route == TB_ROUTE_CPU && (tb_rates_final() || gpu_s > 3.0 * cpu_s))
            return tb_weighed(TB_ROUTE_CPU, learned, recheck, kept, model, cpu_s, gpu_s);
    }
    /* Only now may CUDA start: small calls never pay for it. */
    if (!tb_gpu_available(&why)) {
        /* No GPU at all is normal in auto mode and stays silent; a GPU that
         * fails to start, or a child of a parent that used it, is not. */
        if (!strcmp(why, "after-fork"))
            tb_warn_once(TB_ONCE_FORK, "this process was forked after CUDA started; its calls "
                         "run on the CPU BLAS");
        else if (!strcmp(why, "gpu-init-failed"))
            tb_warn_once(TB_ONCE_NO_GPU, "%s; calls run on the CPU BLAS", tb_gpu_detail());
        else if (!strcmp(why, "gpu-disabled"))
            ;   /* the failure that disabled it was reported when it happened */
        else if (s->mode == TB_MODE_GPU)
            tb_warn_once(TB_ONCE_NO_GPU, "%s=gpu but the GPU path is unavailable (%s: %s); "
                         "calls run on the CPU BLAS", TB_ENV_MODE, why, tb_gpu_detail());
        else if (s->mode == TB_MODE_VERIFY)
            tb_warn_once(TB_ONCE_NO_GPU, "%s=verify cannot compare: the GPU path is "
                         "unavailable (%s: %s); calls run on the CPU BLAS", TB_ENV_MODE, why,
                         tb_gpu_detail());
        return (tb_decision){.route = TB_ROUTE_CPU, .reason = why, .pred_cpu_s = cpu_s,
                             .pred_gpu_s = gpu_s};
    }
    if (s->mode == TB_MODE_AUTO && !tb_rates_final()) {
        /* The first call that may use the GPU: this machine's rates (read
         * from the cache, or measured once), then the decision again. */
        if (tb_calibrate_ensure())
            route = tb_auto_route(p, model, &cpu_s, &gpu_s, &learned, &recheck, &kept);
        if (route == TB_ROUTE_CPU)
            return tb_weighed(TB_ROUTE_CPU, learned, recheck, kept, model, cpu_s, gpu_s);
    }
    if (s->mode == TB_MODE_AUTO)
        return tb_weighed(TB_ROUTE_GPU, learned, recheck, kept, model, cpu_s, gpu_s);
    return (tb_decision){.route = TB_ROUTE_GPU, .reason = s->mode == TB_MODE_GPU ? "forced" : "verify"};
}

/* Verify mode: every verify_every-th eligible call is run on both sides. */
static int tb_verify_this_one(void)
{
    static unsigned long counter;
    unsigned long n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    return n % (unsigned long)tb_settings_get()->verify_every == 0;
}

/* The fast path in shim/sgemm.c may skip everything here for calls the
 * decision would send to the CPU unseen: below the threshold in auto mode,
 * everything in cpu mode, when no line, statistic, trace or verify wants to
 * see them. Armed once, by the first call that gets here: `below` is
 * written by that thread only, before `real` publishes it (several threads
 * arming at once wrote it together, which ThreadSanitizer reported), and
 * once tb_exit_begin has cleared `real` nothing arms it again. */
void tb_fastpath_arm(void)
{
    static int tried;
    if (__atomic_exchange_n(&tried, 1, __ATOMIC_ACQ_REL))
        return;
    const tb_settings *s = tb_settings_get();
    tb_cblas_fn real = tb_real_cblas();
    if (s->accounting || !real || s->mode == TB_MODE_GPU || s->mode == TB_MODE_VERIFY)
        return;
    tb_fast.below = s->mode == TB_MODE_CPU ? 1e300 : s->threshold;
    __atomic_store_n(&tb_fast.real, real, __ATOMIC_RELEASE);
}

/* After a GPU failure part of C may already be final (t->done_*): the CPU
 * BLAS computes the rest, as at most two sub-products of the row-major
 * problem. Unwritten parts still hold the caller's C. */
void tb_complete_on_cpu(const tb_call *c, const tb_problem *p, const tb_gpu_times *t)
{
    if (t->done_cols == 0 && t->done_rows == 0) {
        tb_forward(c);              /* nothing written: the call as it came */
        return;
    }
    tb_problem q = *p;
    if (t->done_rows > 0 && t->done_cols_end > t->done_cols) {
        /* Rows [done_rows, m) of columns [done_cols, done_cols_end). */
        q.m = p->m - t->done_rows;
        q.n = t->done_cols_end - t->done_cols;
        q.A = p->transa ? p->A + t->done_rows : p->A + (size_t)t->done_rows * p->lda;
        q.B = p->transb ? p->B + (size_t)t->done_cols * p->ldb : p->B + t->done_cols;
        q.C = p->C + (size_t)t->done_rows * p->ldc + t->done_cols;
        if (q.m > 0)
            tb_forward_problem(&q);
    }
    int from = t->done_rows > 0 ? t->done_cols_end : t->done_cols;
    if (from < p->n) {
        /* All rows of columns [from, n). */
        q = *p;
        q.n = p->n - from;
        q.B = p->transb ? p->B + (size_t)from * p->ldb : p->B + from;
        q.C = p->C + from;
        tb_forward_problem(&q);
    }
}

static int tb_exiting;

void tb_exit_begin(void)
{
    __atomic_store_n(&tb_fast.real, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&tb_exiting, 1, __ATOMIC_RELEASE);
}

void tb_sgemm_dispatch(const tb_call *c)
{
    /* exit() is under way in another thread: the process ends in a moment,
     * and the libraries behind us may already be gone. */
    for (int i = 0; i < 10000 && __atomic_load_n(&tb_exiting, __ATOMIC_ACQUIRE); i++)
        usleep(1000);
    if (tb_inside_real_blas()) {
        tb_forward(c);
        return;
    }
    const tb_settings *s = tb_settings_get();
    if (!__atomic_load_n(&tb_fast.real, __ATOMIC_ACQUIRE))
        tb_fastpath_arm();
    tb_problem p;
    tb_normalise(c, &p);
    tb_record r = {c, &p, TB_ROUTE_CPU, NULL, s->accounting ? tb_now() : 0.0, 0.0, NULL, NULL, 0.0, 0.0};
    tb_decision d = tb_decide(c, &p);
    const int learn = d.weighed && s->learn;        /* auto mode learns its calls' times */
    const double t_run = learn ? tb_now() : 0.0;
    tb_gpu_times t = {0};
    tb_verify_result v = {0};
    char reason[48];

    r.reason = d.reason;
    r.pred_cpu_s = d.pred_cpu_s;
    r.pred_gpu_s = d.pred_gpu_s;
    if (d.route == TB_ROUTE_GPU && s->mode == TB_MODE_VERIFY) {
        if (!tb_verify_this_one()) {
            r.reason = "verify-skipped";
            tb_forward(c);
        } else if (tb_verify_call(c, &p, &t, &v) == 0) {
            r.gpu = &t;       /* the GPU ran, the caller got the CPU result */
            r.verify = &v;
        } else {
            r.reason = "verify-gpu-failed";
        }
    } else if (d.route == TB_ROUTE_GPU) {
        tb_stage failed = tb_gpu_sgemm(&p, &t);
        if (failed == TB_STAGE_NONE) {
            r.route = TB_ROUTE_GPU;
            r.gpu = &t;
            if (learn && !t.grew)
                tb_learn_record(&p, TB_ROUTE_GPU, tb_now() - t_run, d.model_s[TB_ROUTE_GPU]);
        } else {
            snprintf(reason, sizeof reason, "gpu-failed:%s", tb_stage_name(failed));
            r.reason = reason;
            tb_complete_on_cpu(c, &p, &t);
        }
    } else {
        if (d.weighed)
            tb_pool_rest();       /* our copy threads leave the cores to the CPU BLAS */
        tb_forward(c);
        if (learn)
            tb_learn_record(&p, TB_ROUTE_CPU, tb_now() - t_run, d.model_s[TB_ROUTE_CPU]);
    }
    if (!s->accounting)
        return;
    r.seconds = tb_now() - r.t_start;
    tb_account(&r);
}
