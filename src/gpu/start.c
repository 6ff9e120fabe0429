/* src/gpu/start.c - auto mode starts the GPU path in the background, once it
 * pays: a thread of the library's own starts CUDA (gpu.c), makes pinned
 * staging and the kernels' code ready (pipeline.c) and makes the rates
 * final (calibrate.c), while the calls run on the CPU BLAS. Only policy.c
 * asks it; it decides nothing but when to start (tb_start_due), from what
 * the run's calls would cost on the CPU and what its program's last runs
 * did (programs.c), which it counts and hands back at exit. Forced and
 * verify modes start CUDA on the calling thread instead (gpu.c). */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* How long a start takes, for the calls that weigh waiting for it against
 * the CPU BLAS: about 0.25 s on the H200 machine (cuInit 0.10 s, the
 * context 0.12 s, the first pinned memory 0.03 s), and about 0.1 s more
 * when no rates are cached and the GPU's are measured. */
#define TB_START_EXPECTED_S 0.35
/* Rent or buy. A start costs a program that ends soon after it up to about
 * TB_START_EXPECTED_S: its exit waits for the CUDA step under way (on the
 * H200 machine a program of three 2048^3 calls takes 312 ms under the
 * preload against 132 ms alone if its first eligible call starts CUDA). So
 * a program seen for the first time starts CUDA once the calls the GPU
 * would have taken have spent that long on the CPU BLAS (the budget), or at
 * once for a call that alone would (one 8192^3 product: a second on the
 * CPU), which then waits for it: such a program never pays much more for a
 * start than its calls cost. A program most of whose last runs had that
 * much GPU work (programs.c: tb_start_ahead) has a budget of 0: its first
 * call the GPU would take starts CUDA, and the calls run on the CPU BLAS
 * while it starts. */
int tb_start_due(double owed_s, double cpu_s, double budget_s)
{
    return cpu_s > 0.0 && owed_s + cpu_s >= budget_s;
}

/* This run's GPU work (microseconds of the CPU time of the calls the GPU
 * would take, by the estimates), those calls, the work until the start
 * (the call that started it included), and the process that counted. */
static unsigned long long tb_work_us, tb_work_calls, tb_work_at_start_us;
static pid_t tb_work_pid;

/* How this run starts: settled by its first call the GPU would take, from
 * its program's record (0: not yet, 1: being settled, 2: settled). */
static int tb_plan_state;
static int tb_plan_ahead;
static char tb_plan_why[200];

/* A call that waits never waits longer than this past the expected end. */
#define TB_START_WAIT_SLACK_S 3.0

static pthread_mutex_t tb_start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tb_start_done_cond = PTHREAD_COND_INITIALIZER;
static int tb_start_launched;     /* the thread was made (or run here)            */
static int tb_start_kind;         /* TB_RUN_STARTED or TB_RUN_AHEAD, once launched */
static int tb_start_done;         /* the thread has finished: CUDA up (or not), rates final */
static double tb_start_t0, tb_start_s;

/* A process that exits while the start thread still works (a short
 * program) must not take the CUDA runtime or the CPU BLAS apart under it:
 * a CUDA runtime torn down while another thread starts or uses it can hang
 * the exit, and so can a CPU BLAS torn down under a calibration. atexit
 * handlers run last-registered first, so this one runs before the CUDA
 * runtime's teardown and before any library's destructor (the CPU BLAS's
 * among them): it tells the thread to skip what is left and waits for the
 * step under way to end, at most TB_START_EXIT_WAIT_S. It is registered
 * twice: when the start is launched, before the thread touches CUDA (an
 * exit during cuInit or the context's creation waits for that alone), and
 * by the thread once CUDA runs (so that it also runs before whatever CUDA
 * registered while it started). Each step after CUDA's own start (pinned
 * staging, the kernels' code, the rates) checks the flag; the kernels'
 * loading checks it between kernels. */
#define TB_START_EXIT_WAIT_S 10.0
static int tb_start_abandon;
static double tb_exit_wait_s = -1.0;   /* what the exit waited; -1: it did not */

static pid_t tb_start_pid;        /* a forked child has no start thread to wait for */

static void tb_start_at_exit(void)
{
    if (getpid() != tb_start_pid || __atomic_load_n(&tb_start_done, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&tb_start_abandon, 1, __ATOMIC_RELEASE);
    const double t0 = tb_now();
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)TB_START_EXIT_WAIT_S;
    pthread_mutex_lock(&tb_start_lock);
    int rc = 0;
    while (!tb_start_done && rc == 0)
        rc = pthread_cond_timedwait(&tb_start_done_cond, &tb_start_lock, &until);
    pthread_mutex_unlock(&tb_start_lock);
    tb_exit_wait_s = tb_now() - t0;
}

static int tb_start_abandoned(void)
{
    return __atomic_load_n(&tb_start_abandon, __ATOMIC_ACQUIRE);
}

/* What the start's steps took: CUDA, pinned staging, the kernels' code,
 * the rates (what a start in flight at exit can cost). */
static double tb_start_steps[4];

static void *tb_start_thread(void *arg)
{
    (void)arg;
    tb_reason why;
    double t[5];
    t[0] = tb_now();
    tb_gpu_start();
    t[1] = t[2] = t[3] = t[4] = tb_now();
    if (tb_gpu_state_now(&why) == 1) {
        atexit(tb_start_at_exit);
        if (!tb_start_abandoned())
            tb_gpu_warm();
        t[2] = t[3] = t[4] = tb_now();
        if (!tb_start_abandoned())
            tb_gpu_load_kernels(&tb_start_abandon);
        t[3] = t[4] = tb_now();
        if (!tb_start_abandoned())
            tb_calibrate_ensure();
        t[4] = tb_now();
    }
    pthread_mutex_lock(&tb_start_lock);
    for (int i = 0; i < 4; i++)
        tb_start_steps[i] = t[i + 1] - t[i];
    tb_start_s = tb_now() - tb_start_t0;
    __atomic_store_n(&tb_start_done, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&tb_start_done_cond);
    pthread_mutex_unlock(&tb_start_lock);
    return NULL;
}

/* The one caller that moved the state to starting: the thread, detached
 * (nobody joins it; a process may exit while it runs). If no thread can be
 * made, the start runs here. */
static void tb_start_launch(void)
{
    tb_start_t0 = tb_now();
    tb_start_pid = getpid();
    atexit(tb_start_at_exit);
    pthread_attr_t attr;
    pthread_t t;
    int ok = pthread_attr_init(&attr) == 0;
    if (ok) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        ok = pthread_create(&t, &attr, tb_start_thread, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!ok)
        tb_start_thread(NULL);
}

static tb_gpu_poll_t tb_poll_now(tb_reason *why)
{
    const int st = tb_gpu_state_now(why);
    if (st < 0)
        return TB_GPU_POLL_NONE;
    if (st > 0 && __atomic_load_n(&tb_start_done, __ATOMIC_ACQUIRE))
        return TB_GPU_POLL_READY;
    return TB_GPU_POLL_STARTING;
}

/* The first call the GPU would take settles how the run starts: ahead when
 * its program's record says so (programs.c), else rent or buy. A call on
 * another thread meanwhile goes by rent or buy. */
static void tb_start_settle(void)
{
    int no = 0;
    if (!__atomic_compare_exchange_n(&tb_plan_state, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    tb_program_run runs[TB_RUNS_KEPT];
    int ahead = 0;
    if (!tb_settings_get()->learn) {
        snprintf(tb_plan_why, sizeof tb_plan_why, "%s=off", TB_ENV_LEARN);
    } else {
        const int n = tb_program_load(runs);
        ahead = tb_start_ahead(runs, n, TB_START_EXPECTED_S, tb_plan_why, sizeof tb_plan_why);
    }
    tb_plan_ahead = ahead;
    __atomic_store_n(&tb_work_pid, getpid(), __ATOMIC_RELAXED);
    __atomic_store_n(&tb_plan_state, 2, __ATOMIC_RELEASE);
}

static int tb_start_is_ahead(void)
{
    return __atomic_load_n(&tb_plan_state, __ATOMIC_ACQUIRE) == 2 && tb_plan_ahead;
}

/* Starts the GPU path if it is untried and due (go), or finds out at once
 * that there is no driver; work_us: the run's GPU work so far. */
static void tb_start_try(int go, unsigned long long work_us)
{
    if (__atomic_load_n(&tb_start_launched, __ATOMIC_ACQUIRE))
        return;
    /* Untried: this call starts it when due (and learns at once if there
     * is no driver). Started already on another thread's own account (the
     * tool, forced mode): only the rest is left to do. */
    tb_reason why;
    const int gs = tb_gpu_state_now(&why);
    int expect = 0;
    if (((gs == 0 && tb_gpu_begin(go)) || gs == 1) &&
        __atomic_compare_exchange_n(&tb_start_launched, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&tb_work_at_start_us, work_us, __ATOMIC_RELAXED);
        __atomic_store_n(&tb_start_kind, tb_start_is_ahead() ? TB_RUN_AHEAD : TB_RUN_STARTED,
                         __ATOMIC_RELAXED);
        tb_start_launch();
    }
}

tb_gpu_poll_t tb_gpu_poll(tb_reason *why, double *left, double cpu_s)
{
    tb_gpu_poll_t st = tb_poll_now(why);
    if (cpu_s > 0.0) {
        tb_start_settle();
        const unsigned long long us = (unsigned long long)(cpu_s * 1e6);
        const unsigned long long work = __atomic_add_fetch(&tb_work_us, us, __ATOMIC_RELAXED);
        __atomic_add_fetch(&tb_work_calls, 1ull, __ATOMIC_RELAXED);
        if (st == TB_GPU_POLL_STARTING) {
            const double budget = tb_start_is_ahead() ? 0.0 : TB_START_EXPECTED_S;
            tb_start_try(tb_start_due((work - us) * 1e-6, cpu_s, budget), work);
        }
    } else if (st == TB_GPU_POLL_STARTING) {
        tb_start_try(0, __atomic_load_n(&tb_work_us, __ATOMIC_RELAXED));
    }
    st = tb_poll_now(why);
    if (st == TB_GPU_POLL_STARTING) {
        const double gone = __atomic_load_n(&tb_start_launched, __ATOMIC_ACQUIRE) ? tb_now() - tb_start_t0 : 0.0;
        *left = gone < TB_START_EXPECTED_S ? TB_START_EXPECTED_S - gone : 0.0;
    }
    return st;
}

tb_gpu_poll_t tb_gpu_start_now(tb_reason *why)
{
    if (tb_poll_now(why) == TB_GPU_POLL_STARTING)
        tb_start_try(1, __atomic_load_n(&tb_work_us, __ATOMIC_RELAXED));
    return tb_poll_now(why);
}

const char *tb_start_plan(const char **why)
{
    if (__atomic_load_n(&tb_plan_state, __ATOMIC_ACQUIRE) != 2)
        return NULL;
    *why = tb_plan_why;
    return tb_plan_ahead ? "ahead" : "rent-or-buy";
}

tb_program_run tb_start_run(double *exit_wait_s)
{
    const unsigned long long work = __atomic_load_n(&tb_work_us, __ATOMIC_RELAXED);
    const int launched = __atomic_load_n(&tb_start_launched, __ATOMIC_ACQUIRE);
    const unsigned long long at = launched ? __atomic_load_n(&tb_work_at_start_us, __ATOMIC_RELAXED)
                                           : work;
    tb_program_run r = {
        .start = launched ? __atomic_load_n(&tb_start_kind, __ATOMIC_RELAXED) : TB_RUN_NOT_STARTED,
        .before_s = (at < work ? at : work) * 1e-6,
        .after_s = (at < work ? work - at : 0) * 1e-6,
        .calls = __atomic_load_n(&tb_work_calls, __ATOMIC_RELAXED)};
    *exit_wait_s = tb_exit_wait_s;
    return r;
}

void tb_start_save(void)
{
    double wait;
    const tb_program_run r = tb_start_run(&wait);
    if (r.calls == 0 || __atomic_load_n(&tb_plan_state, __ATOMIC_ACQUIRE) != 2 ||
        __atomic_load_n(&tb_work_pid, __ATOMIC_RELAXED) != getpid())
        return;
    tb_program_save(&r);
}

tb_gpu_poll_t tb_gpu_wait(double limit, tb_reason *why)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    if (limit > 3600.0)
        limit = 3600.0;
    const double end = until.tv_sec + until.tv_nsec * 1e-9 + limit + TB_START_WAIT_SLACK_S;
    until.tv_sec = (time_t)end;
    until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
    pthread_mutex_lock(&tb_start_lock);
    int rc = 0;
    while (!tb_start_done && rc == 0)
        rc = pthread_cond_timedwait(&tb_start_done_cond, &tb_start_lock, &until);
    pthread_mutex_unlock(&tb_start_lock);
    return tb_poll_now(why);
}

int tb_gpu_start_running(void)
{
    return __atomic_load_n(&tb_start_launched, __ATOMIC_ACQUIRE) &&
           !__atomic_load_n(&tb_start_done, __ATOMIC_ACQUIRE);
}

double tb_gpu_start_steps(double steps[4])
{
    const int done = __atomic_load_n(&tb_start_done, __ATOMIC_ACQUIRE);
    for (int i = 0; i < 4; i++)
        steps[i] = done ? tb_start_steps[i] : 0.0;
    return done ? tb_start_s : 0.0;
}
