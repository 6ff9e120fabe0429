/* bench/bench_switch.c - one route right after the other, in the same
 * process. A program whose calls go partly to the GPU and partly to the CPU
 * pays, on each call, for whatever the other route left behind on the host:
 * after GPU calls, CUDA's threads, our copy threads and cold caches; after
 * OpenBLAS calls, OpenBLAS's own threads, which keep polling for work for a
 * while before they sleep, on every core our copy threads want. This bench
 * times trials of three calls after an idle gap:
 *   phase "alone":     OpenBLAS called directly (never through the shim),
 *                      before the process has touched the GPU;
 *   phase "GPU,CPU":   three calls through the shim, which the bench forces
 *                      onto the GPU (TILEDBLAS_MODE=gpu unless set
 *                      otherwise), then three direct OpenBLAS calls;
 *   phase "CPU,GPU":   three direct OpenBLAS calls, then three shim calls.
 * Per phase: the median of the trials' first OpenBLAS calls and of their
 * other OpenBLAS calls, the slowest OpenBLAS call, how many OpenBLAS calls
 * took more than 3x the alone phase's median, and the medians of the first
 * shim call and of all three. The shim's time in "GPU,CPU" (after the idle
 * gap) against "CPU,GPU" (right after OpenBLAS) is what OpenBLAS's polling
 * threads cost the GPU route.
 * --rows prints every trial too.
 * Usage: bench_switch LIBTILEDBLAS [--shape MxNxK] [--gap-ms G] [--trials T] [--rows] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_util.h"

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                         const float *, int, float, float *, int);

enum { TRIALS_MAX = 200 };

typedef struct phase {
    double first[TRIALS_MAX], rest[2 * TRIALS_MAX], gpu[3 * TRIALS_MAX];
    double worst;
} phase;

static double timed(sgemm_fn f, int m, int n, int k, const float *A, const float *B, float *C)
{
    double t0 = now();
    f(101, 111, 111, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
    return now() - t0;
}

static void shim_calls(phase *p, int t, sgemm_fn shim, int m, int n, int k, const float *A,
                       const float *B, float *C, double g[3])
{
    for (int i = 0; shim && i < 3; i++)
        g[i] = p->gpu[3 * t + i] = timed(shim, m, n, k, A, B, C);
}

static void direct_calls(phase *p, sgemm_fn direct, int m, int n, int k, const float *A,
                         const float *B, float *C, double c[3])
{
    for (int i = 0; i < 3; i++) {
        c[i] = timed(direct, m, n, k, A, B, C);
        p->worst = c[i] > p->worst ? c[i] : p->worst;
    }
}

/* `trials` trials: sleep gap_ms, then three shim calls (when shim) and three
 * direct calls, the shim's first unless cpu_first. */
static void run_phase(phase *p, sgemm_fn direct, sgemm_fn shim, int cpu_first, int m, int n,
                      int k, const float *A, const float *B, float *C, int trials, int gap_ms,
                      int rows, const char *name)
{
    p->worst = 0.0;
    for (int t = 0; t < trials; t++) {
        usleep((useconds_t)gap_ms * 1000u);
        double g[3] = {0, 0, 0}, c[3];
        if (cpu_first) {
            direct_calls(p, direct, m, n, k, A, B, C, c);
            shim_calls(p, t, shim, m, n, k, A, B, C, g);
        } else {
            shim_calls(p, t, shim, m, n, k, A, B, C, g);
            direct_calls(p, direct, m, n, k, A, B, C, c);
        }
        p->first[t] = c[0];
        p->rest[2 * t] = c[1];
        p->rest[2 * t + 1] = c[2];
        if (rows && shim && cpu_first)
            printf("  %-9s trial %2d: OpenBLAS %.3f %.3f %.3f ms, then shim [%.3f %.3f %.3f] ms\n",
                   name, t, c[0] * 1e3, c[1] * 1e3, c[2] * 1e3, g[0] * 1e3, g[1] * 1e3, g[2] * 1e3);
        else if (rows && shim)
            printf("  %-9s trial %2d: shim [%.3f %.3f %.3f] ms, then OpenBLAS %.3f %.3f %.3f ms\n",
                   name, t, g[0] * 1e3, g[1] * 1e3, g[2] * 1e3, c[0] * 1e3, c[1] * 1e3, c[2] * 1e3);
        else if (rows)
            printf("  %-9s trial %2d: OpenBLAS %.3f %.3f %.3f ms\n", name, t, c[0] * 1e3,
                   c[1] * 1e3, c[2] * 1e3);
    }
}

static int count_above(const double *v, int n, double limit)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += v[i] > limit;
    return c;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_switch LIBTILEDBLAS [--shape MxNxK] [--gap-ms G] [--trials T] [--rows]\n");
        return 2;
    }
    int m = 700, n = 200, k = 900, gap_ms = 300, trials = 8, rows = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%dx%d", &m, &n, &k) != 3)
                m = n = k = atoi(argv[i]);
        } else if (!strcmp(argv[i], "--gap-ms") && i + 1 < argc) {
            gap_ms = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--trials") && i + 1 < argc) {
            trials = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--rows")) {
            rows = 1;
        } else {
            fprintf(stderr, "bench_switch: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (m <= 0 || n <= 0 || k <= 0 || gap_ms < 0 || gap_ms > 10000 || trials < 1 || trials > TRIALS_MAX) {
        fprintf(stderr, "bench_switch: bad shape, gap or trials (1 to %d)\n", TRIALS_MAX);
        return 2;
    }
    setenv("TILEDBLAS_MODE", "gpu", 0);
    void *ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL);
    void *tb = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!ob || !tb) {
        fprintf(stderr, "bench_switch: %s\n", dlerror());
        return 1;
    }
    sgemm_fn direct = (sgemm_fn)dlsym(ob, "cblas_sgemm");
    sgemm_fn shim = (sgemm_fn)dlsym(tb, "cblas_sgemm");
    int (*describe)(char *, size_t) = (int (*)(char *, size_t))dlsym(tb, "tiledblas_gpu_describe");
    if (!direct || !shim) {
        fprintf(stderr, "bench_switch: no cblas_sgemm in OpenBLAS or in %s\n", argv[1]);
        return 1;
    }
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *A = malloc(na * 4), *B = malloc(nb * 4), *C = malloc(nc * 4);
    static phase alone, gpu_cpu, cpu_gpu;
    if (!A || !B || !C) {
        fprintf(stderr, "bench_switch: out of memory\n");
        return 1;
    }
    fill_uniform(A, na, 1);
    fill_uniform(B, nb, 2);
    for (int i = 0; i < 5; i++)
        timed(direct, m, n, k, A, B, C);                   /* OpenBLAS's threads up */
    run_phase(&alone, direct, NULL, 0, m, n, k, A, B, C, trials, gap_ms, rows, "alone");
    timed(shim, m, n, k, A, B, C);                         /* CUDA starts here */
    char gpu[256] = "unknown";
    int on_gpu = describe && describe(gpu, sizeof gpu);
    run_phase(&gpu_cpu, direct, shim, 0, m, n, k, A, B, C, trials, gap_ms, rows, "GPU,CPU");
    run_phase(&cpu_gpu, direct, shim, 1, m, n, k, A, B, C, trials, gap_ms, rows, "CPU,GPU");

    const double base = median(alone.first, trials);   /* the alone phase's first calls */
    printf("bench_switch %dx%dx%d: OpenBLAS called directly and the shim, %d trials of 3 calls "
           "each, after %d ms idle; shim mode %s, GPU %s\n", m, n, k, trials, gap_ms, getenv("TILEDBLAS_MODE"),
           on_gpu ? gpu : "none (the shim's calls ran on the CPU)");
    printf("%-10s %12s %12s %12s %16s %14s %12s\n", "phase", "1st call ms", "2nd-3rd ms",
           "slowest ms", "calls > 3x alone", "shim 1st ms", "shim ms");
    static double all[3 * TRIALS_MAX];
    static const char *names[3] = {"alone", "GPU,CPU", "CPU,GPU"};
    phase *phases[3] = {&alone, &gpu_cpu, &cpu_gpu};
    for (int ph = 0; ph < 3; ph++) {
        phase *p = phases[ph];
        for (int t = 0; t < trials; t++) {
            all[3 * t] = p->first[t];
            all[3 * t + 1] = p->rest[2 * t];
            all[3 * t + 2] = p->rest[2 * t + 1];
        }
        int slow = count_above(all, 3 * trials, 3.0 * base);
        double first = median(p->first, trials), rest = median(p->rest, 2 * trials);
        printf("%-10s %12.3f %12.3f %12.3f %9d of %-4d", names[ph], first * 1e3,
               rest * 1e3, p->worst * 1e3, slow, 3 * trials);
        if (ph) {
            double firsts[TRIALS_MAX];
            for (int t = 0; t < trials; t++)
                firsts[t] = p->gpu[3 * t];
            printf(" %14.3f %12.3f\n", median(firsts, trials) * 1e3, median(p->gpu, 3 * trials) * 1e3);
        } else {
            printf(" %14s %12s\n", "-", "-");
        }
    }
    free(A); free(B); free(C);
    return 0;
}
