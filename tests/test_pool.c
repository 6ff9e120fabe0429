/* tests/test_pool.c - the copy threads' pool (src/pool.c) without a GPU:
 * jobs of 1 to 40 parts from three threads at once, while a fourth keeps
 * telling the idle workers to rest (tb_pool_rest, what a call sent to the
 * CPU BLAS does). Every part of every job must run exactly once, each job
 * must be complete when tb_pool_run returns, the workers must take some of
 * the parts (they wake), and nothing may hang (ctest gives it 120 s). */
#include "tb_internal.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { JOBS = 3000, MAXP = 40, RUNNERS = 3 };

typedef struct {
    int hits[MAXP];
    pthread_t caller;
} job_t;

static int stop, bad, by_workers;

static void part(void *arg, int p, int parts)
{
    job_t *j = arg;
    (void)parts;
    __atomic_fetch_add(&j->hits[p], 1, __ATOMIC_RELAXED);
    if (!pthread_equal(pthread_self(), j->caller))
        __atomic_fetch_add(&by_workers, 1, __ATOMIC_RELAXED);
}

static void *runner(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg * 2654435761u + 1;
    for (int i = 0; i < JOBS; i++) {
        seed = seed * 1103515245u + 12345u;
        const int parts = 1 + (int)((seed >> 16) % MAXP);
        job_t j;
        memset(&j, 0, sizeof j);
        j.caller = pthread_self();
        tb_pool_run(part, &j, parts);
        for (int p = 0; p < MAXP; p++)
            if (__atomic_load_n(&j.hits[p], __ATOMIC_RELAXED) != (p < parts)) {
                __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
                printf("FAIL job %d of %d parts: part %d ran %d times\n", i, parts, p, j.hits[p]);
                break;
            }
        if (i % 97 == 0) {
            /* now and then a pause, so that the workers go past their spin */
            struct timespec ts = {0, 300000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

static void *rester(void *unused)
{
    (void)unused;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        tb_pool_rest();
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(void)
{
    /* More workers than this machine has cores, so that they race. */
    setenv(TB_ENV_COPY_THREADS, "8", 1);
    printf("pool: %d threads\n", tb_pool_size());
    pthread_t r[RUNNERS], rest;
    pthread_create(&rest, NULL, rester, NULL);
    for (int i = 0; i < RUNNERS; i++)
        pthread_create(&r[i], NULL, runner, (void *)(size_t)(i + 1));
    for (int i = 0; i < RUNNERS; i++)
        pthread_join(r[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(rest, NULL);
    printf("%d jobs from %d threads, told to rest all along: %s; %d parts ran on the workers\n",
           JOBS * RUNNERS, RUNNERS, bad ? "FAILED" : "every part ran once", by_workers);
    if (by_workers == 0)
        printf("FAIL: the workers never took a part (woken never, or never told)\n");
    return bad || by_workers == 0 ? 1 : 0;
}
