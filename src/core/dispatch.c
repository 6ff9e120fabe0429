/* src/core/dispatch.c - one intercepted call, top to bottom: its arguments
 * read at the width of the BLAS behind its name (routines.c), legality (an
 * illegal call is forwarded, so the real BLAS reports it), normalisation to
 * a row-major problem (routines.c), the decision (policy.c), the run on the GPU or the
 * CPU BLAS, the CPU completion after a GPU failure, and accounting. It also
 * holds the entry points' fast path and the exit gate. It decides nothing
 * itself. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- The exit gate ---------------------------------------------------------
 *
 * exit() runs the atexit handlers, then the libraries' destructors: ours,
 * then those of the libraries loaded before us, the CPU BLAS among them.
 * Two moments matter:
 * - exit() has begun (tb_exit_atexit, an atexit handler registered when the
 *   first call arrives): the CUDA runtime tears itself down in a handler of
 *   its own, so from now on calls run on the CPU BLAS, which is still whole.
 * - our destructor runs (tb_exit_fini): the CPU BLAS is torn down next. Calls
 *   in flight on other threads are let finish first (at most
 *   TB_EXIT_DRAIN_S), and calls that other threads make from then on wait
 *   (at most TB_EXIT_HOLD_S) for the process to end rather than run into a
 *   library being taken apart.
 * The exiting thread itself never waits: calls from destructors that run
 * after ours go straight to the CPU BLAS. The gate is armed in every mode. */
#define TB_EXIT_DRAIN_S 2.0
#define TB_EXIT_HOLD_S 10.0

enum { TB_LIVE = 0, TB_EXIT_BEGUN = 1, TB_EXIT_FINI = 2 };
static int tb_exit_phase;
static pthread_t tb_exit_thread;
static int tb_in_flight;           /* calls between entry and return, all threads */

static void tb_exit_enter(int phase)
{
    tb_exit_thread = pthread_self();
    for (int i = 0; i < TB_ENTRY_COUNT; i++)    /* every call sees the gate */
        __atomic_store_n(&tb_fast.real[i], NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&tb_exit_phase, phase, __ATOMIC_SEQ_CST);
}

static void tb_exit_atexit(void)
{
    tb_exit_enter(TB_EXIT_BEGUN);
    tb_policy_save();   /* what the classes measured, for the next process */
}

/* A call counts itself in flight before it looks at the phase, and this
 * sets the phase before it counts (both sequentially consistent): either
 * the drain sees the call, or the call sees the phase. */
__attribute__((destructor)) static void tb_exit_fini(void)
{
    tb_exit_enter(TB_EXIT_FINI);
    for (double t0 = tb_now(); __atomic_load_n(&tb_in_flight, __ATOMIC_SEQ_CST) > 0 &&
                               tb_now() - t0 < TB_EXIT_DRAIN_S;)
        usleep(200);
}

/* A child of fork() starts with no call in flight and no exit under way. */
static void tb_exit_forked_child(void)
{
    __atomic_store_n(&tb_in_flight, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&tb_exit_phase, TB_LIVE, __ATOMIC_RELAXED);
}

/* Other threads' calls once our destructor has run: no longer in flight,
 * they wait for the process to end. */
static void tb_exit_hold(void)
{
    if (__atomic_load_n(&tb_exit_phase, __ATOMIC_ACQUIRE) == TB_EXIT_FINI &&
        !pthread_equal(pthread_self(), tb_exit_thread))
        for (double t0 = tb_now(); tb_now() - t0 < TB_EXIT_HOLD_S;)
            usleep(1000);
}

/* ---- The fast path -------------------------------------------------------
 *
 * The CBLAS entry points skip everything here for calls below the threshold in auto
 * and cpu mode, when no line, statistic, trace or verify wants to see them:
 * the decision would send them to the CPU unseen. Only small calls, so that
 * every call long enough to matter passes the exit gate (in cpu mode too).
 * Armed once, by the first call that gets here, which also registers the
 * exit and fork handlers: `below` is written by that thread only, before
 * `real` publishes it, and once exit has begun nothing arms it again. */
tb_fastpath tb_fast;
static pthread_once_t tb_first_call_once = PTHREAD_ONCE_INIT;

static void tb_first_call(void)
{
    tb_log_settings_report();
    atexit(tb_exit_atexit);
    pthread_atfork(NULL, NULL, tb_exit_forked_child);
    const tb_settings *s = tb_settings_get();
    const double below = tb_policy_cpu_below();
    if (s->accounting || below <= 0.0 || __atomic_load_n(&tb_exit_phase, __ATOMIC_ACQUIRE) != TB_LIVE)
        return;
    tb_fast.below = below;
    /* CBLAS names whose real symbol is there and whose integers' width is
     * known; the others always take the whole way. */
    for (int i = 0; i < TB_ENTRY_COUNT; i++) {
        const tb_entry *e = &tb_entries[i];
        void *real = tb_real_symbol(e->id);
        const int w = tb_real_width(e);
        if (e->api != TB_API_CBLAS || !real || !w)
            continue;
        tb_fast.width[i] = w;
        __atomic_store_n(&tb_fast.real[i], real, __ATOMIC_RELEASE);
    }
}

void tb_fastpath_arm(void)
{
    pthread_once(&tb_first_call_once, tb_first_call);
}

/* ---- The call ---- */

/* Verify mode: every verify_every-th eligible call is run on both sides. */
static int tb_verify_this_one(void)
{
    static unsigned long counter;
    unsigned long n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    return n % (unsigned long)tb_settings_get()->verify_every == 0;
}

/* Verify mode: the GPU into scratch, the CPU BLAS into the caller's C. */
static void tb_run_verify(const tb_call *c, const tb_problem *p, tb_record *r,
                          tb_gpu_times *t, tb_verify_result *v)
{
    if (!tb_verify_this_one()) {
        r->reason = TB_WHY_VERIFY_SKIPPED;
        tb_forward(c);
    } else if (tb_verify_call(c, p, t, v) == 0) {
        r->gpu = t;       /* the GPU ran, the caller got the CPU result */
        r->verify = v;
    } else {
        r->reason = TB_WHY_VERIFY_GPU_FAILED;
    }
}

/* The GPU, and the CPU BLAS for whatever of C a failure left unfinished.
 * Returns 1 when the GPU produced all of C. */
static int tb_run_gpu(const tb_call *c, const tb_problem *p, tb_record *r, tb_gpu_times *t)
{
    tb_stage failed = tb_gpu_route(c, p, t);
    if (failed == TB_STAGE_NONE) {
        r->route = TB_ROUTE_GPU;
        r->gpu = t;
        return 1;
    }
    /* A call too big for the device ran on the CPU BLAS; nothing failed. */
    r->reason = t->too_big ? TB_WHY_TOO_BIG : TB_WHY_GPU_FAILED;
    r->failed = t->too_big ? TB_STAGE_NONE : failed;
    return 0;
}

static void tb_dispatch_call(const tb_call *c)
{
    const tb_settings *s = tb_settings_get();
    tb_problem p;
    tb_normalise(c, &p);
    tb_record r = {.call = c, .problem = &p, .route = TB_ROUTE_CPU,
                   .t_start = s->accounting ? tb_now() : 0.0};
    tb_decision d = {.route = TB_ROUTE_CPU, .reason = TB_WHY_ILLEGAL};
    if (c->ints == TB_INTS_UNKNOWN)
        d.reason = TB_WHY_INT_WIDTH;       /* read at 32 bits: only forwarded */
    else if (c->ints == TB_INTS_WIDE)
        d.reason = TB_WHY_WIDE_INTS;
    else if (tb_call_illegal(c) == 0)
        d = tb_decide(c, &p);
    const int measure = d.learn;    /* auto mode measures its calls */
    const double t_run = measure ? tb_now() : 0.0;
    tb_gpu_times t = {0};
    tb_verify_result v = {0};

    r.reason = d.reason;
    r.pred_cpu_s = d.pred_cpu_s;
    r.pred_gpu_s = d.pred_gpu_s;
    if (d.route == TB_ROUTE_GPU && s->mode == TB_MODE_VERIFY) {
        tb_run_verify(c, &p, &r, &t, &v);
    } else if (d.route == TB_ROUTE_GPU) {
        /* A call that had to allocate paid for memory the next one will
         * not: its time is no measurement of the route. */
        const int ok = tb_run_gpu(c, &p, &r, &t);
        if (ok && measure && !t.grew)
            tb_policy_record(&p, TB_ROUTE_GPU, tb_now() - t_run, d.model_s[TB_ROUTE_GPU], d.rates);
        if (d.weighed)
            tb_policy_ran(ok ? TB_ROUTE_GPU : TB_ROUTE_CPU);
    } else {
        if (d.weighed)
            tb_pool_rest();       /* our copy threads leave the cores to the CPU BLAS */
        tb_forward(c);
        if (measure)
            tb_policy_record(&p, TB_ROUTE_CPU, tb_now() - t_run, d.model_s[TB_ROUTE_CPU], d.rates);
        if (d.weighed)
            tb_policy_ran(TB_ROUTE_CPU);
    }
    if (!s->accounting)
        return;
    r.seconds = tb_now() - r.t_start;
    tb_account(&r);
}

void tb_dispatch(tb_call *c)
{
    if (tb_inside_real_blas()) {
        tb_call_read(c, tb_real_width(c->entry));
        tb_forward(c);             /* the real BLAS calling itself */
        return;
    }
    /* In flight from here, the first call's resolution of the real BLAS
     * included, so that an exit's drain waits for all of it. */
    __atomic_fetch_add(&tb_in_flight, 1, __ATOMIC_SEQ_CST);
    tb_fastpath_arm();
    tb_call_read(c, tb_real_width(c->entry));
    const int phase = __atomic_load_n(&tb_exit_phase, __ATOMIC_SEQ_CST);
    if (phase != TB_EXIT_FINI) {
        if (phase == TB_LIVE)
            tb_dispatch_call(c);
        else
            tb_forward(c);         /* exit() has begun: the CPU BLAS, unaccounted */
        __atomic_fetch_sub(&tb_in_flight, 1, __ATOMIC_SEQ_CST);
        return;
    }
    /* Our destructor has run: the exiting thread's own calls go straight
     * through, other threads' wait for the end. */
    __atomic_fetch_sub(&tb_in_flight, 1, __ATOMIC_SEQ_CST);
    tb_exit_hold();
    tb_forward(c);
}
