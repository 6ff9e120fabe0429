/* bench/bench_e2e.c - what a user of the preload feels: one cblas_sgemm call,
 * host arrays in and out, through libtiledblas against OpenBLAS in the same
 * process, plus the kernel alone on device buffers, and the error of each
 * against float64 (the seed articles' max / average error and GFLOPS).
 * With --peer NAME, the Fortran sgemm_ that the process sees (another
 * preload's, e.g. NVBLAS's) is timed too, in a column of that name.
 * The last two columns are the naive offload: what a first attempt
 * at putting one call on the GPU does, every call: cudaMalloc A, B and C,
 * plain cudaMemcpy from the caller's pageable arrays (C too when beta != 0),
 * our default kernel through tiledblas_sgemm_device(), cudaMemcpy C back,
 * cudaFree; no pinned staging, no streams, no overlap. Timed as one call end
 * to end like the shim, with its ratio to the shim ("vs naive" = naive / shim).
 * It reads n/a without a GPU, on any CUDA error, or when its result does not
 * match the shim's; --no-naive leaves it out.
 * A shape is MxNxK, optionally with :XY, the transposes of A and B (N or T
 * each, e.g. 2000x2000x2000:TN), and +P, every leading dimension padded by P
 * elements (e.g. 2500x2500x2500+1: lda = ldb = ldc = 2501). All calls are
 * row-major with alpha = 1, beta = 0.
 * Usage: bench_e2e LIBTILEDBLAS [--sizes 1024,2048,...] [--reps N] [--shapes MxNxK[:XY][+P],...]
 *                  [--peer NAME] [--no-naive] */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

/* Each column times calls until it has at least the --reps count and
 * ENOUGH_S of calls, at most ENOUGH_MAX calls: a median of five 0.05 ms
 * calls moved by 10-16% between processes on the H200 machine (the same
 * OpenBLAS, through the shim's CPU route and without it: 128^3 0.044 and
 * 0.051 ms), more than the 10% the sweep judges by. */
#define ENOUGH_S 0.02
#define ENOUGH_MAX 100

static int enough(int done, int least, double total)
{
    return done >= ENOUGH_MAX || (done >= least && total >= ENOUGH_S);
}

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                         const float *, int, float, float *, int);
typedef void (*fsgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                          const float *, const float *, const int *, const float *, const int *,
                          const float *, float *, const int *, size_t, size_t);
typedef int (*dev_fn)(char, char, int, int, int, float, const float *, int, const float *, int,
                      float, float *, int, void *);
typedef const char *(*err_fn)(void);

/* One entry of --shapes: C (m x n) = op(A) (m x k) op(B) (k x n), row-major,
 * written MxNxK[:XY][+P]. X and Y are N or T, op(A) and op(B) (default NN);
 * P pads every leading dimension by P elements (default 0: packed, lda = k
 * or m, ldb = n or k, ldc = n). A plain N stands for NxNxN. */
typedef struct {
    int m, n, k, ta, tb, lda, ldb, ldc;
    size_t na, nb, nc;              /* floats in A, B and C as stored, pads included */
    char label[48];
} shape;

static int parse_shape(const char *tok, shape *s)
{
    char x = 'N', y = 'N';
    int pad = 0, used = 0;
    memset(s, 0, sizeof *s);
    if (sscanf(tok, "%dx%dx%d%n", &s->m, &s->n, &s->k, &used) != 3) {
        if (sscanf(tok, "%d%n", &s->m, &used) != 1)
            return -1;
        s->n = s->k = s->m;
    }
    const char *rest = tok + used;
    if (*rest == ':') {
        x = rest[1];
        y = x ? rest[2] : 0;
        rest += (x && y) ? 3 : 1;
    }
    if (*rest == '+' && sscanf(rest + 1, "%d%n", &pad, &used) == 1)
        rest += 1 + used;
    if (*rest || s->m <= 0 || s->n <= 0 || s->k <= 0 || pad < 0 ||
        (x != 'N' && x != 'T') || (y != 'N' && y != 'T'))
        return -1;
    s->ta = x == 'T';
    s->tb = y == 'T';
    s->lda = (s->ta ? s->m : s->k) + pad;
    s->ldb = (s->tb ? s->k : s->n) + pad;
    s->ldc = s->n + pad;
    s->na = (size_t)(s->ta ? s->k : s->m) * s->lda;
    s->nb = (size_t)(s->tb ? s->n : s->k) * s->ldb;
    s->nc = (size_t)s->m * s->ldc;
    int w = snprintf(s->label, sizeof s->label, "%dx%dx%d", s->m, s->n, s->k);
    if (s->ta || s->tb)
        w += snprintf(s->label + w, sizeof s->label - w, ":%c%c", x, y);
    if (pad)
        snprintf(s->label + w, sizeof s->label - w, "+%d", pad);
    return 0;
}

/* op(A)[i][p] as the shape stores A. */
static inline float a_at(const shape *s, const float *A, int i, int p)
{
    return s->ta ? A[(size_t)p * s->lda + i] : A[(size_t)i * s->lda + p];
}

/* Max and mean |C - ref| over `rows` sampled rows, ref in float64. */
static void error_vs_f64(const shape *s, const float *A, const float *B, const float *C,
                         int rows, double *max_err, double *avg_err, double *rel_fro)
{
    const int m = s->m, n = s->n, k = s->k;
    double mx = 0.0, sum = 0.0, d2 = 0.0, r2 = 0.0;
    int step = m > rows ? m / rows : 1, used = 0;
#ifdef _OPENMP
    #pragma omp parallel for reduction(max:mx) reduction(+:sum,d2,r2,used) schedule(dynamic)
#endif
    for (int i = 0; i < m; i += step) {
        double *acc = calloc((size_t)n, sizeof *acc);
        for (int p = 0; p < k; p++) {
            double a = a_at(s, A, i, p);
            if (s->tb) {
                for (int j = 0; j < n; j++)
                    acc[j] += a * B[(size_t)j * s->ldb + p];
            } else {
                const float *b = B + (size_t)p * s->ldb;
                for (int j = 0; j < n; j++)
                    acc[j] += a * b[j];
            }
        }
        for (int j = 0; j < n; j++) {
            double e = fabs(C[(size_t)i * s->ldc + j] - acc[j]);
            mx = e > mx ? e : mx;
            sum += e;
            d2 += e * e;
            r2 += acc[j] * acc[j];
        }
        used++;
        free(acc);
    }
    *max_err = mx;
    *avg_err = sum / ((double)used * n);
    *rel_fro = sqrt(d2 / r2);
}

/* One naive offload of C = alpha op(A) op(B) + beta C (row-major, the
 * shape's transposes and leading dimensions; each operand copied whole, pads
 * included). Returns 0, or -1 after any CUDA error or a failure of the device
 * call, with *why set; everything it allocated is freed either way and the
 * error is cleared. */
static int naive_offload(dev_fn dev, err_fn dev_err, const shape *s, float alpha,
                         const float *A, const float *B, float beta, float *C, const char **why)
{
    size_t sa = s->na * sizeof(float), sb = s->nb * sizeof(float), sc = s->nc * sizeof(float);
    float *dA = NULL, *dB = NULL, *dC = NULL;
    cudaError_t e = cudaSuccess;
    int r;
    *why = NULL;
    if ((e = cudaMalloc((void **)&dA, sa)) != cudaSuccess ||
        (e = cudaMalloc((void **)&dB, sb)) != cudaSuccess ||
        (e = cudaMalloc((void **)&dC, sc)) != cudaSuccess ||
        (e = cudaMemcpy(dA, A, sa, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(dB, B, sb, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (beta != 0.0f && (e = cudaMemcpy(dC, C, sc, cudaMemcpyHostToDevice)) != cudaSuccess)) {
        *why = cudaGetErrorString(e);
    } else if ((r = dev(s->ta ? 'T' : 'N', s->tb ? 'T' : 'N', s->m, s->n, s->k, alpha, dA, s->lda,
                        dB, s->ldb, beta, dC, s->ldc, NULL)) != 0) {
        *why = r == -1 && dev_err ? dev_err() : "tiledblas_sgemm_device refused the call";
    } else if ((e = cudaMemcpy(C, dC, sc, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        *why = cudaGetErrorString(e);   /* also where a fault in the kernel shows */
    }
    /* cudaFree(NULL) does nothing; a failing free spoils the call as well. */
    float *bufs[3] = {dA, dB, dC};
    for (int i = 0; i < 3; i++)
        if ((e = cudaFree(bufs[i])) != cudaSuccess && !*why)
            *why = cudaGetErrorString(e);
    if (*why)
        cudaGetLastError();
    return *why ? -1 : 0;
}

/* Relative Frobenius difference of X against Y (m x n, leading dimension
 * ld) over up to `rows` sampled rows. */
static double rel_diff(const float *X, const float *Y, int m, int n, int ld, int rows)
{
    double d2 = 0.0, y2 = 0.0;
    int step = m > rows ? m / rows : 1;
    for (int i = 0; i < m; i += step)
        for (int j = 0; j < n; j++) {
            double d = (double)X[(size_t)i * ld + j] - Y[(size_t)i * ld + j];
            d2 += d * d;
            y2 += (double)Y[(size_t)i * ld + j] * Y[(size_t)i * ld + j];
        }
    return sqrt(d2 / (y2 > 0.0 ? y2 : 1e-300));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_e2e LIBTILEDBLAS [--sizes N,N,...] [--shapes MxNxK[:XY][+P],...] [--reps R]\n"
                        "                 [--peer NAME] [--no-naive]\n");
        return 2;
    }
    char list[2048] = "1024,2048,4096,8192";
    const char *peer = NULL;
    int reps = 5, naive = 1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            snprintf(list, sizeof list, "%s", argv[++i]);
        } else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            snprintf(list, sizeof list, "%s", argv[++i]);
        } else if (!strcmp(argv[i], "--peer") && i + 1 < argc) {
            peer = argv[++i];
        } else if (!strcmp(argv[i], "--no-naive")) {
            naive = 0;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else {
            fprintf(stderr, "bench_e2e: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1 || reps > 100)
        reps = 5;

    void *ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL);
    void *tb = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!ob || !tb) {
        fprintf(stderr, "bench_e2e: %s\n", dlerror());
        return 1;
    }
    sgemm_fn openblas = (sgemm_fn)dlsym(ob, "cblas_sgemm");
    sgemm_fn shim = (sgemm_fn)dlsym(tb, "cblas_sgemm");
    dev_fn device = (dev_fn)dlsym(tb, "tiledblas_sgemm_device");
    err_fn device_err = (err_fn)dlsym(tb, "tiledblas_last_error");
    char *(*corename)(void) = (char *(*)(void))dlsym(ob, "openblas_get_corename");
    int (*nthreads)(void) = (int (*)(void))dlsym(ob, "openblas_get_num_threads");
    const char *mode = getenv("TILEDBLAS_MODE");
    fsgemm_fn peer_fn = peer ? (fsgemm_fn)dlsym(RTLD_DEFAULT, "sgemm_") : NULL;
    if (peer && !peer_fn) {
        fprintf(stderr, "bench_e2e: --peer %s: no sgemm_ in the process\n", peer);
        return 1;
    }

    int ngpu = 0;
    struct cudaDeviceProp prop;
    int have_gpu = cudaGetDeviceCount(&ngpu) == cudaSuccess && ngpu > 0 &&
                   cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
    printf("OpenBLAS core %s, %d threads; shim mode %s; GPU %s\n",
           corename ? corename() : "?", nthreads ? nthreads() : 0, mode ? mode : "auto",
           have_gpu ? prop.name : "none");
    printf("%-18s %11s %11s %8s %11s %9s %10s %10s %10s", "m x n x k", "OpenBLAS ms",
           "shim ms", "speedup", "kernel ms", "kern TF/s", "max err", "avg err", "rel fro");
    if (peer)
        printf(" %9s ms %8s", peer, "shim/peer");
    if (naive)
        printf(" %12s %9s", "naive ms", "vs naive");
    printf("\n");

    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        shape sh;
        if (parse_shape(tok, &sh) != 0) {
            fprintf(stderr, "bench_e2e: bad shape %s (MxNxK[:XY][+P], or N)\n", tok);
            return 2;
        }
        const int m = sh.m, n = sh.n, k = sh.k, lda = sh.lda, ldb = sh.ldb, ldc = sh.ldc;
        const int ta = sh.ta ? 112 : 111, tb = sh.tb ? 112 : 111;
        const char ca = sh.ta ? 'T' : 'N', cb = sh.tb ? 'T' : 'N';
        const size_t na = sh.na, nb = sh.nb, nc = sh.nc;
        float *A = malloc(na * 4), *B = malloc(nb * 4), *C = malloc(nc * 4), *C2 = malloc(nc * 4);
        fill_uniform(A, na, 1);
        fill_uniform(B, nb, 2);
        double flop = 2.0 * m * n * k, t[2 * ENOUGH_MAX], t_ob, t_shim, t_kern = NAN;
        int r = (flop > 4e11) ? (reps < 3 ? reps : 3) : reps;

        int nt = 0;
        openblas(101, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C2, ldc);   /* warm-up */
        for (double total = 0.0; !enough(nt, r, total); total += t[nt++]) {
            double t0 = now();
            openblas(101, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C2, ldc);
            t[nt] = now() - t0;
        }
        t_ob = median(t, nt);
        /* OpenBLAS's threads spin for a while after a call; let them sleep
         * so that they do not compete with the shim's copy threads. */
        usleep(300000);
        shim(101, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);   /* warm-up: CUDA starts */
        nt = 0;
        for (double total = 0.0; !enough(nt, r, total); total += t[nt++]) {
            double t0 = now();
            shim(101, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
            t[nt] = now() - t0;
        }
        t_shim = median(t, nt);

        if (have_gpu && device) {
            float *dA, *dB, *dC;
            cudaEvent_t e0, e1;
            if (cudaMalloc((void **)&dA, na * 4) == cudaSuccess &&
                cudaMalloc((void **)&dB, nb * 4) == cudaSuccess &&
                cudaMalloc((void **)&dC, nc * 4) == cudaSuccess) {
                cudaMemcpy(dA, A, na * 4, cudaMemcpyHostToDevice);
                cudaMemcpy(dB, B, nb * 4, cudaMemcpyHostToDevice);
                cudaEventCreate(&e0);
                cudaEventCreate(&e1);
                device(ca, cb, m, n, k, 1.0f, dA, lda, dB, ldb, 0.0f, dC, ldc, NULL);
                int kr = reps * 2;
                for (int i = 0; i < kr; i++) {
                    float ms;
                    cudaEventRecord(e0, 0);
                    device(ca, cb, m, n, k, 1.0f, dA, lda, dB, ldb, 0.0f, dC, ldc, NULL);
                    cudaEventRecord(e1, 0);
                    cudaEventSynchronize(e1);
                    cudaEventElapsedTime(&ms, e0, e1);
                    t[i] = ms * 1e-3;
                }
                t_kern = median(t, kr);
                cudaFree(dA);
                cudaFree(dB);
                cudaFree(dC);
            }
            cudaGetLastError();
        }
        double mx, avg, fro, t_peer = NAN, t_naive = NAN;
        error_vs_f64(&sh, A, B, C, 256, &mx, &avg, &fro);
        if (naive && have_gpu && device) {
            /* Into C2 (the OpenBLAS result, not needed any more); it is
             * poisoned with NaN before the last timed call so that the check
             * against the shim's C sees that call's result, not an older one. */
            const char *why = NULL;
            int ok = naive_offload(device, device_err, &sh, 1.0f, A, B, 0.0f, C2, &why) == 0;
            for (int i = 0; ok && i < r; i++) {
                if (i == r - 1)
                    memset(C2, 0xff, nc * 4);
                double t0 = now();
                ok = naive_offload(device, device_err, &sh, 1.0f, A, B, 0.0f, C2, &why) == 0;
                t[i] = now() - t0;
            }
            double d = ok ? rel_diff(C2, C, m, n, ldc, 256) : NAN;
            if (ok && !(d <= 1e-3)) {
                ok = 0;
                fprintf(stderr, "bench_e2e: naive offload %s: result differs from the shim's "
                        "(relative %.2e)\n", sh.label, d);
            } else if (!ok) {
                fprintf(stderr, "bench_e2e: naive offload %s: %s\n", sh.label, why ? why : "failed");
            }
            if (ok)
                t_naive = median(t, r);
        }
        if (peer_fn) {
            /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T:
             * the same arrays, operands swapped, each with its own transpose. */
            float one = 1.0f, zero = 0.0f;
            char fa[2] = {ca, 0}, fb[2] = {cb, 0};
            peer_fn(fb, fa, &n, &m, &k, &one, B, &ldb, A, &lda, &zero, C2, &ldc, 1, 1);
            nt = 0;
            for (double total = 0.0; !enough(nt, r, total); total += t[nt++]) {
                double t0 = now();
                peer_fn(fb, fa, &n, &m, &k, &one, B, &ldb, A, &lda, &zero, C2, &ldc, 1, 1);
                t[nt] = now() - t0;
            }
            t_peer = median(t, nt);
        }
        printf("%-18s %11.3f %11.3f %7.2fx %11.3f %9.2f %10.2e %10.2e %10.2e", sh.label,
               t_ob * 1e3, t_shim * 1e3, t_ob / t_shim, t_kern * 1e3, flop / t_kern * 1e-12,
               mx, avg, fro);
        if (peer_fn)
            printf(" %12.3f %8.2fx", t_peer * 1e3, t_peer / t_shim);
        if (naive && isnan(t_naive))
            printf(" %12s %9s", "n/a", "n/a");
        else if (naive)
            printf(" %12.3f %8.2fx", t_naive * 1e3, t_naive / t_shim);
        printf("\n");
        fflush(stdout);
        free(A); free(B); free(C); free(C2);
    }
    printf("errors: shim result against float64 over up to 256 sampled rows; times: median of "
           "at least %d calls (3 above 400 GFLOP) and of %.0f ms of calls, at most %d, after one "
           "warm-up call\n", reps, ENOUGH_S * 1e3, ENOUGH_MAX);
    if (naive)
        printf("naive: cudaMalloc, cudaMemcpy from pageable memory, tiledblas_sgemm_device, "
               "cudaMemcpy back, cudaFree, every call; vs naive = naive ms / shim ms\n");
    return 0;
}
