/* src/gpu/pool.c - a small pool of worker threads that split one job into parts
 * (packing rows into pinned staging memory, unpacking results). Started on
 * first use by the GPU path, never at load; the calling thread does a part
 * too. Jobs come in bursts during a call, so an idle worker spins briefly
 * before it sleeps: waking a sleeping thread costs more than a part; when
 * the next call goes to the CPU BLAS instead, it sleeps at once. One job
 * at a time; concurrent callers take turns. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* TB_SPIN pauses: 0.1-1 ms, by the CPU's pause latency; on the H200
 * machine's Xeon an OpenBLAS call made past the preload right after a GPU
 * call is slowed for about 1 ms by them (bench_switch --gap-ms 0). */
enum { TB_POOL_MAX = 32, TB_SPIN = 20000 };

/* The one job. A part is claimed by one fetch-and-add on `claim`, a word
 * that holds the job's part count in its high half and the next part in
 * its low half: the claim and the count it is checked against come from the
 * same instant, so a worker that arrives late, from the previous job, either
 * finds nothing left or takes a part of the job that is running, never a
 * part that job hands out again. (In two separate words, a worker stalled
 * between its fetch-and-add on the old job and its read of the new job's
 * count would run a part twice, and `left` would reach zero with a part
 * still running; tests/test_pool.c checks for that race.) A valid
 * claim keeps `left` above zero, so fn and arg cannot change under it. */
static unsigned long long tb_job_claim;   /* parts << 32 | next part */
static struct {
    tb_pool_fn fn;
    void *arg;
    int left;       /* parts not finished */
} tb_job = {NULL, NULL, 0};

static pthread_mutex_t tb_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t tb_pool_job_mu = PTHREAD_MUTEX_INITIALIZER;   /* one job at a time */
static pthread_cond_t tb_pool_go = PTHREAD_COND_INITIALIZER;
static unsigned long tb_pool_gen;     /* bumped for every job */
static int tb_pool_threads = -1;      /* -1: not started */
static int tb_pool_resting;           /* idle workers sleep at once (tb_pool_rest) */

static inline void tb_pause(void) { __builtin_ia32_pause(); }

/* Takes parts of the current job until none are left. */
static void tb_pool_work(void)
{
    for (;;) {
        const unsigned long long w = __atomic_fetch_add(&tb_job_claim, 1, __ATOMIC_ACQ_REL);
        const unsigned part = (unsigned)w, parts = (unsigned)(w >> 32);
        if (part >= parts)
            return;
        tb_job.fn(tb_job.arg, (int)part, (int)parts);
        __atomic_fetch_sub(&tb_job.left, 1, __ATOMIC_RELEASE);
    }
}

static void *tb_pool_main(void *unused)
{
    (void)unused;
    unsigned long seen = __atomic_load_n(&tb_pool_gen, __ATOMIC_ACQUIRE);
    for (;;) {
        int spins = 0;
        unsigned long g;
        while ((g = __atomic_load_n(&tb_pool_gen, __ATOMIC_ACQUIRE)) == seen) {
            if (++spins < TB_SPIN && !__atomic_load_n(&tb_pool_resting, __ATOMIC_RELAXED)) {
                tb_pause();
                continue;
            }
            pthread_mutex_lock(&tb_pool_mu);
            while (__atomic_load_n(&tb_pool_gen, __ATOMIC_ACQUIRE) == seen)
                pthread_cond_wait(&tb_pool_go, &tb_pool_mu);
            pthread_mutex_unlock(&tb_pool_mu);
        }
        seen = g;
        tb_pool_work();
    }
    return NULL;
}

static void tb_pool_start(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int want = tb_settings_get()->copy_threads;
    /* Every core, at most 16: the calling thread waits for the GPU anyway,
     * and copying is bound by memory bandwidth. On the H200 machine (16
     * cores) bench_pipeline puts 16 threads ahead of 8 at 2048-8192 (4096
     * in 6.6-6.9 ms against 6.9-8.2 ms), though by less than its noise
     * between rounds. */
    if (want <= 0)
        want = cores > 16 ? 16 : cores > 1 ? (int)cores : 1;
    if (want > TB_POOL_MAX)
        want = TB_POOL_MAX;
    tb_pool_threads = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* The caller works too, so want - 1 helpers. Failure to start one only
     * means fewer. Signals stay with the program's own threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 0; i < want - 1; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, tb_pool_main, NULL) == 0)
            tb_pool_threads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

/* The next call goes to the CPU BLAS, whose threads want every core: the
 * workers still spinning after the last job go to sleep now instead of
 * spinning on beside it for the rest of their TB_SPIN pauses. The next job
 * wakes them. */
void tb_pool_rest(void)
{
    if (!__atomic_load_n(&tb_pool_resting, __ATOMIC_RELAXED))   /* no store, no cache line moved */
        __atomic_store_n(&tb_pool_resting, 1, __ATOMIC_RELAXED);
}

int tb_pool_size(void)
{
    pthread_mutex_lock(&tb_pool_mu);
    if (tb_pool_threads < 0)
        tb_pool_start();
    int n = tb_pool_threads + 1;
    pthread_mutex_unlock(&tb_pool_mu);
    return n;
}

void tb_pool_run(tb_pool_fn fn, void *arg, int parts)
{
    if (parts <= 1) {
        fn(arg, 0, 1);
        return;
    }
    /* Calls on two GPU lanes may both copy: their jobs take turns. */
    pthread_mutex_lock(&tb_pool_job_mu);
    pthread_mutex_lock(&tb_pool_mu);
    if (tb_pool_threads < 0)
        tb_pool_start();
    tb_job.fn = fn;
    tb_job.arg = arg;
    __atomic_store_n(&tb_job.left, parts, __ATOMIC_RELEASE);
    __atomic_store_n(&tb_job_claim, (unsigned long long)parts << 32, __ATOMIC_RELEASE);
    __atomic_store_n(&tb_pool_resting, 0, __ATOMIC_RELAXED);
    __atomic_fetch_add(&tb_pool_gen, 1, __ATOMIC_ACQ_REL);
    pthread_cond_broadcast(&tb_pool_go);
    pthread_mutex_unlock(&tb_pool_mu);
    tb_pool_work();
    while (__atomic_load_n(&tb_job.left, __ATOMIC_ACQUIRE) > 0)
        tb_pause();
    pthread_mutex_unlock(&tb_pool_job_mu);
}
