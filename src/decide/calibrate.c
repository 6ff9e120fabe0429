/* src/decide/calibrate.c - the cost model's rates, measured on this machine.
 *
 * The built-in rates (costmodel.c) are the H200 machine's. Anywhere else -
 * another GPU, a slower PCIe link, fewer cores, another CPU BLAS - they send
 * calls the wrong way. So once CUDA has started (on start.c's thread, while
 * the program's calls go on on the CPU BLAS), auto mode reads this
 * machine's rates from the user's cache directory. When none are cached it
 * measures what it can without touching the CPU BLAS or the copy threads,
 * which the program is using at that moment: the kernels on device buffers
 * and the GPU's per-call cost; the rest stays built in, each shape class's
 * own calls correct the estimates (policy.c), and nothing is cached.
 * `tiledblas calibrate` measures everything below and caches it.
 *
 * What is measured, each through the path real calls take (the GPU first,
 * once OpenBLAS's threads are idle, then the CPU BLAS):
 *   CPU BLAS   a 2048x2048x1024 and a 256^3 call (rate and fixed cost, a
 *              straight line through both), a 60^3 call (one core: OpenBLAS
 *              runs calls that small on one thread), a 64x2048x2048 call
 *              (how much slower a thin C runs: thin_dim) and a 4096x4096x8
 *              call (64 MiB of C for almost no flops: cpu_c_bps);
 *   transfers  a 64^3 GPU call (the fixed cost), 4096x4096x8 with beta = 0
 *              (64 MiB of C back: device->host) and 8x16384x1024 (64 MiB of
 *              B up: host->device; 128 tiles, short K: little compute),
 *              through the staged pipeline, 64 MiB each way so that the
 *              copy threads' start-up does not weigh; an operand goes up,
 *              as in real calls (C sent up with beta = 1 moves slower),
 *              and a 256^3 call: what it costs beyond its bytes and flops
 *              becomes the fixed cost when that is more than the 64^3 call;
 *   kernel     1024x4096x4096 on device buffers, the size of the pipeline's
 *              panels, timed with events;
 *   double     the fp64 kernel at that size, and the CPU BLAS's dgemm at
 *              2048x2048x1024 and 60^3 (its rate on all cores and on one;
 *              the fixed costs and bytes a second are the machine's, the
 *              same for both precisions);
 *   grid       both routes at the 259 shapes of the small-call grid
 *              (costmodel.c), GPU after the GPU's rates, CPU after the
 *              CPU's (on the H200 machine a calibration without the double
 *              rates takes 1.3 s, almost all of it the grid).
 * A rate outside plausible bounds keeps its built-in value. The cache (its
 * file, key and directory) is cache.c's; this file only measures. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_kernels.h"
#include "tiledblas.h"
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t tb_cal_lock = PTHREAD_MUTEX_INITIALIZER;
static int tb_cal_done;                  /* the rates are final              */
static tb_rates tb_cal_rates;            /* published once measured or read  */
static char tb_cal_source[1200] = "built in (H200 machine) until CUDA starts";
static char tb_cal_learned[1100];        /* the learned file beside the rates */

/* ---- the measurement ------------------------------------------------------ */

/* GPU side only, for the start thread (see the top of the file). */
static int tb_calibrate_measure_gpu(tb_rates *r, const char **why);

static tb_problem tb_prob(int m, int n, int k, float beta, const float *A, const float *B,
                          float *C)
{
    tb_problem p = {m, n, k, 0, 0, 1.0, beta, A, (size_t)k, B, (size_t)n, C, (size_t)n, TB_SINGLE, 0.0, 0.0,
                    TB_R_gemm};
    return p;
}

static int tb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Fastest of reps runs after one warm-up; on_gpu: through the GPU pipeline
 * (-1 if it fails), else the CPU BLAS. The fastest, not the median: on a
 * busy machine (other processes, the program's own threads) every
 * disturbance makes a run slower, never faster, so the minimum is what the
 * machine can do, and what both routes are compared at. The small-call
 * grid takes the GPU's median instead (median = 1; see tb_measure_grid). */
static double tb_time_ranked(const tb_problem *p, int reps, int on_gpu, int median)
{
    double t[32];
    if (reps > 32)
        reps = 32;
    for (int i = -1; i < reps; i++) {
        tb_gpu_times gt;
        memset(&gt, 0, sizeof gt);
        double t0 = tb_now();
        if (on_gpu) {
            if (tb_gpu_gemm(p, &gt) != TB_STAGE_NONE)
                return -1.0;
        } else {
            tb_forward_problem(p);
        }
        if (i >= 0)
            t[i] = tb_now() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], tb_cmp_double);
    return median ? t[reps / 2] : t[0];
}

static double tb_time(const tb_problem *p, int reps, int on_gpu)
{
    return tb_time_ranked(p, reps, on_gpu, 0);
}

/* The kernel of precision dtype alone at a panel's size, on a stream of
 * our own; -1 if the memory is not there. */
static double tb_time_kernel(tb_dtype dtype, int m, int n, int k)
{
    const size_t es = tb_dtype_size(dtype);
    const tb_settings *s = tb_settings_get();
    int old = 0;
    cudaGetDevice(&old);
    if (cudaSetDevice(s->device) != cudaSuccess) {
        cudaGetLastError();
        return -1.0;
    }
    void *A = NULL, *B = NULL, *C = NULL;
    cudaStream_t st = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double best = -1.0;
    if (cudaMalloc(&A, es * m * k) == cudaSuccess &&
        cudaMalloc(&B, es * (size_t)k * n) == cudaSuccess &&
        cudaMalloc(&C, es * (size_t)m * n) == cudaSuccess &&
        cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess &&
        cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess) {
        /* Bytes 0x3c: 0.0115 as floats, 1.6e-19 as doubles; ordinary finite
         * values, not zeros. */
        cudaMemsetAsync(A, 0x3c, es * m * k, st);
        cudaMemsetAsync(B, 0x3c, es * (size_t)k * n, st);
        const tb_gemm g = {dtype, m, n, k, 0, 0, {1.0, 0.0}, {0.0, 0.0}, A, (size_t)k, B, (size_t)n,
                           C, (size_t)n, 0, 0};
        const tb_kernel_info *kern = s->kernel ? tb_kernel_by_name(s->kernel) : NULL;
        if (kern && !tb_kernel_accepts(kern, &g))
            kern = NULL;   /* TILEDBLAS_KERNEL names one of the other precision */
        double t[5];
        int ok = tb_gemm_run(&g, kern, 0, st) == cudaSuccess;
        for (int i = 0; ok && i < 5; i++) {
            float ms = 0;
            ok = cudaEventRecord(e0, st) == cudaSuccess && tb_gemm_run(&g, kern, 0, st) == cudaSuccess &&
                 cudaEventRecord(e1, st) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess &&
                 cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess;
            t[i] = ms * 1e-3;
        }
        if (ok) {
            qsort(t, 5, sizeof t[0], tb_cmp_double);
            best = t[0];
        }
    }
    if (st)
        cudaStreamSynchronize(st);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (st)
        cudaStreamDestroy(st);
    cudaGetLastError();
    cudaSetDevice(old);
    return best;
}

static void tb_fill(float *x, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((int32_t)seed >> 8) * (1.0f / 8388608.0f) + 0.001f;
    }
}

/* Sets r's rate `field` to v when v is plausible (cache.c's bounds). */
#define TB_KEEP(r, field, v) tb_rates_keep((r), offsetof(tb_rates, field), (v))

/* The small-call grid (costmodel.c) on one route, largest C first (the GPU
 * path's buffers grow once), then tb_grid_monotone. Each shape's time is
 * taken after a warm-up: on the GPU the median of five calls, on the CPU
 * the fastest of three. A small OpenBLAS call on 16 threads varies from call
 * to call by itself, and its fastest stands 10-20% below what a program's
 * calls take (H200 machine: 256^3 0.098 ms in one grid, 0.116-
 * 0.127 in the sweep's processes that followed, median of 100 calls); the
 * GPU's calls vary little (0.098 ms in that grid, 0.097-0.108 in the
 * sweep). So where the grid errs it errs towards the CPU, on purpose: a
 * class sent to the CPU by mistake tries the GPU cheaply and moves
 * (policy.c, gpu-try), while one sent to the GPU by mistake visits the CPU
 * only once its GPU runs slower than the CPU's estimate (rule 2).
 * The CPU's median would err the other way, too slow between grid points.
 * A failed GPU call leaves the grid empty: -1. */
#define TB_GRID_REPS 5
static int tb_measure_grid(tb_rates *r, tb_route route, const float *A, const float *B, float *C)
{
    float (*g)[TB_GRID_MN][TB_GRID_K] = r->grid[route];
    for (int s = TB_GRID_MN - 1 + TB_GRID_MN - 1; s >= 0; s--)
        for (int i = 0; i < TB_GRID_MN; i++)
            for (int l = TB_GRID_K - 1; l >= 0; l--) {
                const int j = s - i;
                if (!tb_grid_wanted(i, j, l))
                    continue;
                const tb_problem q = tb_grid_shape(i, j, l, A, B, C);
                double t = route == TB_ROUTE_GPU ? tb_time_ranked(&q, TB_GRID_REPS, 1, 1)
                                                 : tb_time(&q, 3, 0);
                if (t <= 0.0) {
                    memset(r->grid, 0, sizeof r->grid);
                    return -1;
                }
                g[i][j][l] = (float)t;
            }
    tb_grid_monotone(r, route);
    return 0;
}

/* The buffers every measurement shares: A and B hold any grid shape's
 * operand (m k and k n are at most 2^23), C is F x F, C8 8 x 4F. Filled
 * with finite values, every page touched. */
enum { TB_CAL_M = 2048, TB_CAL_N = 2048, TB_CAL_K = 1024, TB_CAL_F = 4096 };
typedef struct tb_cal_buffers {
    float *A, *B, *C, *C8;
} tb_cal_buffers;

static int tb_cal_buffers_alloc(tb_cal_buffers *b)
{
    const size_t AB = (size_t)1 << 23, M = TB_CAL_M, N = TB_CAL_N, K = TB_CAL_K, F = TB_CAL_F;
    b->A = malloc(sizeof(float) * AB);
    b->B = malloc(sizeof(float) * AB);
    b->C = malloc(sizeof(float) * F * F);
    b->C8 = malloc(sizeof(float) * 8 * 4 * F);
    if (!b->A || !b->B || !b->C || !b->C8)
        return -1;
    tb_fill(b->A, M * K, 1);
    tb_fill(b->B, M * K, 2);
    tb_fill(b->C, M * N, 3);
    for (size_t i = 1; i < AB / (M * K); i++) {   /* touched, not zero pages */
        memcpy(b->A + i * M * K, b->A, sizeof(float) * M * K);
        memcpy(b->B + i * M * K, b->B, sizeof(float) * M * K);
    }
    for (size_t i = 1; i < F * F / (M * N); i++)
        memcpy(b->C + i * M * N, b->C, sizeof(float) * M * N);
    return 0;
}

static void tb_cal_buffers_free(tb_cal_buffers *b)
{
    free(b->A);
    free(b->B);
    free(b->C);
    free(b->C8);
}

/* The GPU's fixed cost and both copy directions, through the pipeline real
 * calls take; t_tiny gets the 64^3 call's time. -1 when a GPU call fails. */
static int tb_measure_transfers(tb_rates *r, const tb_cal_buffers *b, double *t_tiny)
{
    const int F = TB_CAL_F;
    const double c_bytes = 4.0 * F * F, ab_bytes = 4.0 * (F * 8 + 8 * F);
    const tb_problem tiny = tb_prob(64, 64, 64, 0.0f, b->A, b->B, b->C);
    const tb_problem down = tb_prob(F, F, 8, 0.0f, b->A, b->B, b->C);
    const tb_problem up = tb_prob(8, 4 * F, F / 4, 0.0f, b->A, b->C, b->C8);   /* B: the 64 MiB C is read */
    *t_tiny = tb_time(&tiny, 9, 1);
    double t_down = *t_tiny > 0 ? tb_time(&down, 5, 1) : -1;
    double t_up = t_down > 0 ? tb_time(&up, 5, 1) : -1;
    if (t_up < 0)
        return -1;
    TB_KEEP(r, gpu_fixed_s, *t_tiny);
    TB_KEEP(r, d2h_bps, c_bytes / (t_down - r->gpu_fixed_s - ab_bytes / r->h2d_bps));
    /* up: B is paid in full, then A (8 x F/4) in and C (8 x 4F) out */
    TB_KEEP(r, h2d_bps, c_bytes / (t_up - r->gpu_fixed_s - 4.0 * 8 * F / 4 / r->h2d_bps -
                                   4.0 * 8 * 4 * F / r->d2h_bps));
    return 0;
}

/* The GPU's per-call cost where the decision is close, near the threshold:
 * a 256^3 call pays more per call than a 64^3 one beyond its bytes and
 * flops (more copy jobs and events, a grid that does not fill the GPU). */
static int tb_measure_gpu_fixed(tb_rates *r, const tb_cal_buffers *b, double t_tiny)
{
    const tb_problem mid = tb_prob(256, 256, 256, 0.0f, b->A, b->B, b->C);
    double t_mid = tb_time(&mid, 9, 1), pc, pg;
    if (t_mid < 0)
        return -1;
    tb_rates var = *r;
    var.gpu_fixed_s = 0.0;
    tb_predict_with(&var, &mid, &pc, &pg);
    TB_KEEP(r, gpu_fixed_s, fmax(t_tiny, t_mid - pg));
    return 0;
}

/* The CPU BLAS: a line through a large and a small call, one core, a thin
 * C and a flat one (C's traffic). */
static void tb_measure_cpu(tb_rates *r, const tb_cal_buffers *b)
{
    const int M = TB_CAL_M, N = TB_CAL_N, K = TB_CAL_K, F = TB_CAL_F;
    const tb_problem big = tb_prob(M, N, K, 0.0f, b->A, b->B, b->C);
    const tb_problem small = tb_prob(256, 256, 256, 0.0f, b->A, b->B, b->C);
    const tb_problem core = tb_prob(60, 60, 60, 0.0f, b->A, b->B, b->C);
    const tb_problem thin = tb_prob(64, 2048, 2048, 0.0f, b->A, b->B, b->C);
    const double f_big = 2.0 * M * N * K, f_small = 2.0 * 256 * 256 * 256;
    const double f_core = 2.0 * 60 * 60 * 60, f_thin = 2.0 * 64 * 2048 * 2048;
    double t_big = tb_time(&big, 3, 0), t_small = tb_time(&small, 9, 0);
    double t_core = tb_time(&core, 21, 0), t_thin = tb_time(&thin, 3, 0);
    double rate = t_big > t_small ? (f_big - f_small) / (t_big - t_small) : f_big / t_big;
    TB_KEEP(r, cpu_flops, rate);
    TB_KEEP(r, cpu_fixed_s, fmax(t_small - f_small / r->cpu_flops, 1e-6));
    TB_KEEP(r, cpu_core_flops, f_core / t_core);
    /* t_thin = fixed + flops / (rate * 64 / thin_dim) */
    double slow = (t_thin - r->cpu_fixed_s) * r->cpu_flops / f_thin;
    TB_KEEP(r, thin_dim, fmax(64.0 * slow, 1.0));
    /* t_flat = fixed + flops / rate + C's bytes / cpu_c_bps (tb_predict_with);
     * its flops take about a fifth. Where they would take more than half
     * (a fast call, or a slow rate measured above), C is given half. */
    const double c_bytes = 4.0 * F * F;
    const tb_problem flat = tb_prob(F, F, 8, 0.0f, b->A, b->B, b->C);
    double t_flat = tb_time(&flat, 5, 0), t_c = t_flat - r->cpu_fixed_s;
    TB_KEEP(r, cpu_c_bps, c_bytes / fmax(t_c - 2.0 * F * F * 8 / r->cpu_flops, 0.5 * t_c));
}

/* Double precision's compute rates: the fp64 kernel on device buffers, the
 * CPU BLAS's dgemm on all cores (beyond the fixed cost measured above) and
 * on one. Its own buffers, filled with ordinary doubles. -1 without memory. */
static int tb_measure_double(tb_rates *r)
{
    const int M = TB_CAL_M, N = TB_CAL_N, K = TB_CAL_K;
    double *A = malloc(sizeof(double) * M * K), *B = malloc(sizeof(double) * K * N);
    double *C = malloc(sizeof(double) * M * N);
    int rc = -1;
    if (A && B && C) {
        for (size_t i = 0; i < (size_t)M * K; i++) {
            A[i] = 1.0 + (double)(i % 97) / 97.0;
            B[i] = 1.0 - (double)(i % 89) / 89.0;
        }
        memset(C, 0, sizeof(double) * M * N);
        const tb_problem big = {M, N, K, 0, 0, 1.0, 0.0, A, (size_t)K, B, (size_t)N, C, (size_t)N,
                                TB_DOUBLE, 0.0, 0.0, TB_R_gemm};
        const tb_problem core = {60, 60, 60, 0, 0, 1.0, 0.0, A, 60, B, 60, C, 60, TB_DOUBLE, 0.0, 0.0,
                                 TB_R_gemm};
        const double t_big = tb_time(&big, 3, 0), t_core = tb_time(&core, 21, 0);
        TB_KEEP(r, dp_cpu_flops, 2.0 * M * N * K / fmax(t_big - r->cpu_fixed_s, 0.5 * t_big));
        TB_KEEP(r, dp_cpu_core_flops, 2.0 * 60 * 60 * 60 / t_core);
        rc = 0;
    }
    free(A);
    free(B);
    free(C);
    return rc;
}

int tb_calibrate_measure(tb_rates *r, const char **why)
{
    *r = *tb_rates_builtin();
    tb_cal_buffers b = {NULL, NULL, NULL, NULL};
    int rc = -1;
    double t_tiny;
    *why = "out of host memory";
    if (tb_cal_buffers_alloc(&b) != 0)
        goto out;
    /* OpenBLAS's threads spin for about 0.1 s after a call (the program's
     * own, made just before): let them sleep first, or they hold the cores
     * our copy threads need and the transfer rates come out low (21 to 38
     * GB/s over four calibrations on the H200 machine, measured after the
     * CPU calls). So the GPU is measured first, then the CPU BLAS. */
    usleep(150000);
    *why = "a GPU call failed";
    if (tb_measure_transfers(r, &b, &t_tiny) != 0)
        goto out;
    double t_kern = tb_time_kernel(TB_F32, 1024, 4096, 4096);
    if (t_kern > 0)
        TB_KEEP(r, gpu_flops, 2.0 * 1024 * 4096 * 4096 / t_kern);
    t_kern = tb_time_kernel(TB_F64, 1024, 4096, 4096);
    if (t_kern > 0)
        TB_KEEP(r, dp_gpu_flops, 2.0 * 1024 * 4096 * 4096 / t_kern);
    if (tb_measure_gpu_fixed(r, &b, t_tiny) != 0 ||
        tb_measure_grid(r, TB_ROUTE_GPU, b.A, b.B, b.C) != 0)
        goto out;
    tb_measure_cpu(r, &b);
    tb_measure_double(r);
    tb_measure_grid(r, TB_ROUTE_CPU, b.A, b.B, b.C);
    rc = 0;
out:
    tb_cal_buffers_free(&b);
    return rc;
}

static int tb_calibrate_measure_gpu(tb_rates *r, const char **why)
{
    *r = *tb_rates_builtin();
    float *A = calloc(64 * 64, sizeof(float)), *B = calloc(64 * 64, sizeof(float));
    float *C = calloc(64 * 64, sizeof(float));
    int rc = -1;
    *why = "a GPU call failed";
    if (A && B && C) {
        const tb_problem tiny = tb_prob(64, 64, 64, 0.0f, A, B, C);
        const double t_tiny = tb_time(&tiny, 9, 1);
        const double t32 = t_tiny > 0 ? tb_time_kernel(TB_F32, 1024, 4096, 4096) : -1;
        const double t64 = t32 > 0 ? tb_time_kernel(TB_F64, 1024, 4096, 4096) : -1;
        if (t64 > 0) {
            TB_KEEP(r, gpu_fixed_s, t_tiny);
            TB_KEEP(r, gpu_flops, 2.0 * 1024 * 4096 * 4096 / t32);
            TB_KEEP(r, dp_gpu_flops, 2.0 * 1024 * 4096 * 4096 / t64);
            rc = 0;
        }
    } else {
        *why = "out of host memory";
    }
    free(A);
    free(B);
    free(C);
    return rc;
}

/* ---- first use ------------------------------------------------------------ */

int tb_rates_final(void)
{
    return tb_settings_get()->calibrate == TB_CAL_OFF || __atomic_load_n(&tb_cal_done, __ATOMIC_ACQUIRE);
}

const char *tb_learned_file(void)
{
    return __atomic_load_n(&tb_cal_done, __ATOMIC_ACQUIRE) && tb_cal_learned[0] ? tb_cal_learned
                                                                                : NULL;
}

static void tb_cal_summary(char *buf, size_t len, const tb_rates *r)
{
    /* The grid: how far the measured times stand from the formulas. */
    double lo[2] = {1e300, 1e300}, hi[2] = {0.0, 0.0};
    int shapes = 0;
    for (int i = 0; i < TB_GRID_MN; i++)
        for (int j = 0; j < TB_GRID_MN; j++)
            for (int l = 0; l < TB_GRID_K; l++) {
                if (!(r->grid[0][i][j][l] > 0.0f) || !(r->grid[1][i][j][l] > 0.0f))
                    continue;
                const tb_problem q = tb_grid_shape(i, j, l, NULL, NULL, NULL);
                double t[2];
                tb_predict_with(r, &q, &t[0], &t[1]);
                for (int k = 0; k < 2; k++) {
                    lo[k] = fmin(lo[k], r->grid[k][i][j][l] / t[k]);
                    hi[k] = fmax(hi[k], r->grid[k][i][j][l] / t[k]);
                }
                shapes++;
            }
    char grid[160] = "; no small-call grid";
    if (shapes)
        snprintf(grid, sizeof grid, "; small-call grid: %d shapes, measured / formula %.2f-%.2f "
                 "on the CPU, %.2f-%.2f on the GPU", shapes, lo[0], hi[0], lo[1], hi[1]);
    int n = snprintf(buf, len,
             "CPU BLAS %.0f GFLOP/s (+%.0f us a call, %.0f GFLOP/s on one core, thin below %.0f, "
             "C at %.0f GB/s), GPU kernel %.1f TFLOP/s, host->device %.1f GB/s, device->host "
             "%.1f GB/s, %.0f us a GPU call; double: CPU BLAS %.0f GFLOP/s (%.0f on one core), "
             "GPU kernel %.1f TFLOP/s",
             r->cpu_flops * 1e-9, r->cpu_fixed_s * 1e6, r->cpu_core_flops * 1e-9, r->thin_dim,
             r->cpu_c_bps * 1e-9,
             r->gpu_flops * 1e-12, r->h2d_bps * 1e-9, r->d2h_bps * 1e-9, r->gpu_fixed_s * 1e6,
             r->dp_cpu_flops * 1e-9, r->dp_cpu_core_flops * 1e-9, r->dp_gpu_flops * 1e-12);
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - n, "%s", grid);
}

/* Measure, save, publish; the lock is held. force: do not read the cache;
 * gpu_only: measure the GPU side alone and save nothing. */
static int tb_cal_locked(int force, int gpu_only, char *report, size_t rlen)
{
    const tb_settings *s = tb_settings_get();
    char path[1100], key[2048], line[800];
    int have_path = tb_calibration_path(path, sizeof path, key, sizeof key) == 0;
    int changed = 0;
    char learned[sizeof tb_cal_learned] = "";
    if (have_path && tb_learned_path(path, learned, sizeof learned) != 0)
        learned[0] = '\0';
    if (strcmp(learned, tb_cal_learned) != 0)   /* written once: the key stays */
        memcpy(tb_cal_learned, learned, sizeof learned);
    if (!force && have_path && tb_cache_load(path, key, &tb_cal_rates) == 0) {
        snprintf(tb_cal_source, sizeof tb_cal_source, "this machine's, read from %s", path);
        changed = 1;
    } else if (s->fault != TB_STAGE_NONE) {
        snprintf(tb_cal_source, sizeof tb_cal_source, "built in (not measured while %s is set)",
                 TB_ENV_FAULT);
    } else {
        const char *why = "";
        double t0 = tb_now();
        tb_rates r;
        if ((gpu_only ? tb_calibrate_measure_gpu(&r, &why) : tb_calibrate_measure(&r, &why)) != 0) {
            snprintf(tb_cal_source, sizeof tb_cal_source, "built in (measuring failed: %s)", why);
        } else if (gpu_only) {
            tb_cal_rates = r;
            changed = 1;
            snprintf(tb_cal_source, sizeof tb_cal_source, "the GPU's measured by this process in "
                     "%.0f ms, copies and CPU BLAS built in (none cached: `tiledblas calibrate` "
                     "measures all and caches them)", (tb_now() - t0) * 1e3);
        } else {
            tb_cal_rates = r;
            changed = 1;
            int saved = have_path && tb_cache_save(path, key, &r) == 0;
            snprintf(tb_cal_source, sizeof tb_cal_source, "measured by this process in %.0f ms%s%s",
                     (tb_now() - t0) * 1e3, saved ? ", saved to " : " (not saved",
                     saved ? path : have_path ? ": cannot write the cache)" : ": no cache directory)");
        }
    }
    if (changed)
        tb_rates_publish(&tb_cal_rates);
    tb_cal_summary(line, sizeof line, tb_rates_get());
    tb_log(2, "cost model: %s: %s", tb_cal_source, line);
    if (report)
        snprintf(report, rlen, "rates: %s\n%s\n", tb_cal_source, line);
    __atomic_store_n(&tb_cal_done, 1, __ATOMIC_RELEASE);
    return changed;
}

int tb_calibrate_ensure(void)
{
    if (tb_rates_final())
        return 0;
    pthread_mutex_lock(&tb_cal_lock);
    int changed = 0;
    if (!__atomic_load_n(&tb_cal_done, __ATOMIC_ACQUIRE)) {
        const int force = tb_settings_get()->calibrate == TB_CAL_FORCE;
        changed = tb_cal_locked(force, !force, NULL, 0);
    }
    pthread_mutex_unlock(&tb_cal_lock);
    return changed;
}

void tb_calibration_describe(char *buf, size_t len)
{
    if (tb_settings_get()->calibrate == TB_CAL_OFF) {
        snprintf(buf, len, "built in (H200 machine; %s=off)", TB_ENV_CALIBRATE);
        return;
    }
    pthread_mutex_lock(&tb_cal_lock);
    int done = tb_cal_done;
    snprintf(buf, len, "%s", tb_cal_source);
    pthread_mutex_unlock(&tb_cal_lock);
    /* Not used yet in this process: say whether this machine's rates are
     * cached, if CUDA is up already (the key names the GPU). */
    char gpu[256], path[1100], key[2048];
    tb_rates r;
    if (done || !tb_gpu_describe_if_started(gpu, sizeof gpu) ||
        tb_calibration_path(path, sizeof path, key, sizeof key) != 0)
        return;
    if (tb_cache_load(path, key, &r) == 0)
        snprintf(buf, len, "this machine's, cached in %s (read once CUDA starts)", path);
    else
        snprintf(buf, len, "built in (H200 machine), the GPU's own measured once CUDA starts; "
                 "`tiledblas calibrate` measures all and caches them in %s", path);
}

int tb_calibrate_now(char *report, size_t len)
{
    pthread_mutex_lock(&tb_cal_lock);
    tb_cal_locked(1, 0, report, len);
    int measured = strncmp(tb_cal_source, "measured", 8) == 0;
    pthread_mutex_unlock(&tb_cal_lock);
    return measured ? 0 : -1;
}
