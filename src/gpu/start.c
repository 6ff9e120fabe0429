/* src/gpu/start.c - auto mode starts the GPU path in the background, once it
 * pays: a thread of the library's own starts CUDA (gpu.c), makes pinned
 * staging and the kernels' code ready (pipeline.c) and makes the rates
 * final (calibrate.c), while the calls run on the CPU BLAS. Only policy.c
 * asks it; it decides nothing but when to start (tb_start_due). Forced and
 * verify modes start CUDA on the calling thread instead (gpu.c). */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* How long a start takes, for the calls that weigh waiting for it against
 * the CPU BLAS: about 0.25 s on the H200 machine (cuInit 0.10 s, the
 * context 0.12 s, the first pinned memory 0.03 s), and about 0.1 s more
 * when no rates are cached and the GPU's are measured. */
#define TB_START_EXPECTED_S 0.35
/* Rent or buy. A start costs a program that ends soon after it about
 * TB_START_EXPECTED_S: its exit waits for CUDA to finish starting (on the
 * H200 machine a program of three 2048^3 calls takes 312 ms under the
 * preload against 132 ms alone if its first eligible call starts CUDA). So
 * CUDA starts once the calls the GPU would have taken have spent that long
 * on the CPU BLAS, or at once for a call that alone would (one 8192^3
 * product: a second on the CPU), which then waits for it. A program then
 * never pays much more for a start than its calls cost, and a long one
 * gets the GPU after its first third of a second. */
int tb_start_due(double owed_s, double cpu_s)
{
    return owed_s + cpu_s >= TB_START_EXPECTED_S;
}

/* Microseconds the GPU's calls have spent on the CPU before the start. */
static unsigned long long tb_owed_us;

/* A call that waits never waits longer than this past the expected end. */
#define TB_START_WAIT_SLACK_S 3.0

static pthread_mutex_t tb_start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tb_start_done_cond = PTHREAD_COND_INITIALIZER;
static int tb_start_launched;     /* the thread was made (or run here)            */
static int tb_start_done;         /* the thread has finished: CUDA up (or not), rates final */
static double tb_start_t0, tb_start_s;

/* A process that exits while the start thread still works (a short
 * program) must not take the CUDA runtime or the CPU BLAS apart under it:
 * either hangs the exit. atexit handlers run last-registered first, so this
 * one, registered by the start thread once CUDA runs, runs before the CUDA
 * runtime's teardown (registered while CUDA started) and before any
 * library's destructor (the CPU BLAS's among them, which a calibration
 * uses): it tells the thread to skip what is left and waits for it, at
 * most TB_START_EXIT_WAIT_S. */
#define TB_START_EXIT_WAIT_S 10.0
static int tb_start_abandon;

static pid_t tb_start_pid;        /* a forked child has no start thread to wait for */

static void tb_start_at_exit(void)
{
    if (getpid() != tb_start_pid)
        return;
    __atomic_store_n(&tb_start_abandon, 1, __ATOMIC_RELEASE);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)TB_START_EXIT_WAIT_S;
    pthread_mutex_lock(&tb_start_lock);
    int rc = 0;
    while (!tb_start_done && rc == 0)
        rc = pthread_cond_timedwait(&tb_start_done_cond, &tb_start_lock, &until);
    pthread_mutex_unlock(&tb_start_lock);
}

static void *tb_start_thread(void *arg)
{
    (void)arg;
    tb_reason why;
    tb_gpu_start();
    if (tb_gpu_state_now(&why) == 1) {
        atexit(tb_start_at_exit);
        if (!__atomic_load_n(&tb_start_abandon, __ATOMIC_ACQUIRE))
            tb_gpu_warm();
        if (!__atomic_load_n(&tb_start_abandon, __ATOMIC_ACQUIRE))
            tb_gpu_load_kernels(&tb_start_abandon);
        if (!__atomic_load_n(&tb_start_abandon, __ATOMIC_ACQUIRE))
            tb_calibrate_ensure();
    }
    pthread_mutex_lock(&tb_start_lock);
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

tb_gpu_poll_t tb_gpu_poll(tb_reason *why, double *left, double cpu_s)
{
    tb_gpu_poll_t st = tb_poll_now(why);
    const int launched = __atomic_load_n(&tb_start_launched, __ATOMIC_ACQUIRE);
    if (st == TB_GPU_POLL_STARTING && !launched) {
        /* Untried: this call starts it when due (and learns at once if
         * there is no driver). Started already on another thread's own
         * account (the tool, forced mode): only the rest is left to do. */
        const int gs = tb_gpu_state_now(why);
        const double owed = __atomic_load_n(&tb_owed_us, __ATOMIC_RELAXED) * 1e-6;
        const int go = tb_start_due(owed, cpu_s);
        int expect = 0;
        if (((gs == 0 && tb_gpu_begin(go)) || gs == 1) &&
            __atomic_compare_exchange_n(&tb_start_launched, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            tb_start_launch();
        else if (!go && cpu_s > 0.0)
            __atomic_add_fetch(&tb_owed_us, (unsigned long long)(cpu_s * 1e6), __ATOMIC_RELAXED);
    }
    st = tb_poll_now(why);
    if (st == TB_GPU_POLL_STARTING) {
        const double gone = __atomic_load_n(&tb_start_launched, __ATOMIC_ACQUIRE) ? tb_now() - tb_start_t0 : 0.0;
        *left = gone < TB_START_EXPECTED_S ? TB_START_EXPECTED_S - gone : 0.0;
    }
    return st;
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

double tb_gpu_start_seconds(void)
{
    return __atomic_load_n(&tb_start_done, __ATOMIC_ACQUIRE) ? tb_start_s : 0.0;
}
