/* bench/bench_e2e.c - what a user of the preload feels: one cblas_sgemm call
 * (cblas_dgemm with --double, cblas_cgemm with --complex, cblas_zgemm with
 * --zcomplex), host arrays in and out, through libtiledblas
 * against OpenBLAS's in the same process, plus the kernel alone on device
 * buffers, and the error of each against a float64 reference (long double
 * with --double; the seed articles' max / average error and GFLOPS). One
 * code path serves both
 * precisions: the element size, the symbols and the tolerance are chosen
 * once (struct prec), and the calls go through three small adapters.
 * With --peer NAME, the Fortran sgemm_ / dgemm_ that the process sees
 * (another preload's, e.g. NVBLAS's) is timed too, in a column of that name.
 * The last two columns are the naive offload: what a first attempt
 * at putting one call on the GPU does, every call: cudaMalloc A, B and C,
 * plain cudaMemcpy from the caller's pageable arrays (C too when beta != 0),
 * our default kernel through tiledblas_sgemm_device() (_dgemm_), cudaMemcpy
 * C back, cudaFree; no pinned staging, no streams, no overlap. Timed as one
 * call end to end like the shim, with its ratio to the shim ("vs naive" =
 * naive / shim). It and the kernel columns read n/a without a GPU, on any
 * CUDA error, or (naive) when its result does not match the shim's;
 * --no-naive leaves it out.
 * A shape is MxNxK, optionally with :XY, the transposes of A and B (N or T
 * each, e.g. 2000x2000x2000:TN), and +P, every leading dimension padded by P
 * elements (e.g. 2500x2500x2500+1: lda = ldb = ldc = 2501). All calls are
 * row-major with alpha = 1, beta = 0.
 * With --devices LIST (CUDA device numbers, e.g. 0,1,2,3), the whole run is
 * made once per leading part of the list - TILEDBLAS_DEVICES=0, then 0,1,
 * ... - each in a process of its own (the library reads its settings once),
 * and a last table gives each shape's time through the preload by device
 * count, with its speed-up over the first. A device listed twice is two
 * slots on one GPU (0,0: the cutting and its costs on one GPU).
 * Usage: bench_e2e LIBTILEDBLAS [--sizes 1024,2048,...] [--reps N] [--shapes MxNxK[:XY][+P],...]
 *                  [--peer NAME] [--no-naive] [--double | --complex | --zcomplex]
 *                  [--devices LIST]
 * Complex runs count 8 m n k flops, and their errors are over the real and
 * imaginary parts alike. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"
#include "tb_no_gpu.h"

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
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                         const double *, int, double, double *, int);
typedef void (*fsgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                          const float *, const float *, const int *, const float *, const int *,
                          const float *, float *, const int *, size_t, size_t);
typedef void (*fdgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                          const double *, const double *, const int *, const double *,
                          const int *, const double *, double *, const int *, size_t, size_t);
typedef int (*sdev_fn)(char, char, int, int, int, float, const float *, int, const float *, int,
                       float, float *, int, void *);
typedef int (*ddev_fn)(char, char, int, int, int, double, const double *, int, const double *,
                       int, double, double *, int, void *);
typedef const char *(*err_fn)(void);
/* Complex: every scalar by pointer, two parts each. */
typedef void (*cgemm_fn)(int, int, int, int, int, int, const void *, const void *, int,
                         const void *, int, const void *, void *, int);
typedef void (*fcgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                          const void *, const void *, const int *, const void *, const int *,
                          const void *, void *, const int *, size_t, size_t);
typedef int (*cdev_fn)(char, char, int, int, int, const void *, const void *, int, const void *,
                       int, const void *, void *, int, void *);

/* What differs between the precisions, chosen once by --double: the element
 * size, the symbols looked up, and how close the naive offload's result
 * must come to the shim's (both are GPU results: fp32 kernels differ by
 * ~1e-6, fp64 ones by ~1e-15; these bounds only catch garbage). */
typedef struct prec {
    int dbl;                /* its parts are doubles */
    size_t es;
    const char *name, *cblas, *fortran, *device;
    double agree;
    int cx;                 /* complex: two parts an element */
} prec;
static const prec precs[4] = {
    {0, sizeof(float), "single", "cblas_sgemm", "sgemm_", "tiledblas_sgemm_device", 1e-3, 0},
    {1, sizeof(double), "double", "cblas_dgemm", "dgemm_", "tiledblas_dgemm_device", 1e-9, 0},
    {0, 2 * sizeof(float), "complex", "cblas_cgemm", "cgemm_", "tiledblas_cgemm_device", 1e-3, 1},
    {1, 2 * sizeof(double), "zcomplex", "cblas_zgemm", "zgemm_", "tiledblas_zgemm_device", 1e-9, 1},
};

/* A scalar of p's type with real part re (im 0), for the calls that take
 * it by pointer. */
typedef union { float f[2]; double d[2]; } scalar;
static scalar scalar_of(const prec *p, double re)
{
    scalar v;
    if (p->dbl)
        v.d[0] = re, v.d[1] = 0.0;
    else
        v.f[0] = (float)re, v.f[1] = 0.0f;
    return v;
}

/* One entry of --shapes: C (m x n) = op(A) (m x k) op(B) (k x n), row-major,
 * written MxNxK[:XY][+P]. X and Y are N or T, op(A) and op(B) (default NN);
 * P pads every leading dimension by P elements (default 0: packed, lda = k
 * or m, ldb = n or k, ldc = n). A plain N stands for NxNxN. */
typedef struct {
    int m, n, k, ta, tb, lda, ldb, ldc;
    size_t na, nb, nc;              /* elements in A, B and C as stored, pads included */
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

/* The three adapters: C = alpha op(A) op(B) + beta C, row-major, with the
 * shape's transposes and leading dimensions, through a function of p's
 * precision found by dlsym. */
static void host_gemm(const prec *p, void *fn, const shape *s, const void *A, const void *B,
                      void *C)
{
    const int ta = s->ta ? 112 : 111, tb = s->tb ? 112 : 111;
    if (p->cx) {
        const scalar one = scalar_of(p, 1.0), zero = scalar_of(p, 0.0);
        ((cgemm_fn)fn)(101, ta, tb, s->m, s->n, s->k, &one, A, s->lda, B, s->ldb, &zero, C, s->ldc);
    } else if (p->dbl)
        ((dgemm_fn)fn)(101, ta, tb, s->m, s->n, s->k, 1.0, A, s->lda, B, s->ldb, 0.0, C, s->ldc);
    else
        ((sgemm_fn)fn)(101, ta, tb, s->m, s->n, s->k, 1.0f, A, s->lda, B, s->ldb, 0.0f, C, s->ldc);
}

/* The device entry point (device pointers, the legacy default stream). */
static int device_gemm(const prec *p, void *fn, const shape *s, double alpha, const void *A,
                       const void *B, double beta, void *C)
{
    const char ca = s->ta ? 'T' : 'N', cb = s->tb ? 'T' : 'N';
    if (p->cx) {
        const scalar al = scalar_of(p, alpha), be = scalar_of(p, beta);
        return ((cdev_fn)fn)(ca, cb, s->m, s->n, s->k, &al, A, s->lda, B, s->ldb, &be, C, s->ldc,
                             NULL);
    }
    if (p->dbl)
        return ((ddev_fn)fn)(ca, cb, s->m, s->n, s->k, alpha, A, s->lda, B, s->ldb, beta, C,
                             s->ldc, NULL);
    return ((sdev_fn)fn)(ca, cb, s->m, s->n, s->k, (float)alpha, A, s->lda, B, s->ldb,
                         (float)beta, C, s->ldc, NULL);
}

/* A Fortran gemm (column-major): row-major C = op(A) op(B) is column-major
 * C^T = op(B)^T op(A)^T, the same arrays, operands swapped, each with its
 * own transpose. */
static void fortran_gemm(const prec *p, void *fn, const shape *s, const void *A, const void *B,
                         void *C)
{
    const char fa[2] = {s->ta ? 'T' : 'N', 0}, fb[2] = {s->tb ? 'T' : 'N', 0};
    const double done = 1.0, dzero = 0.0;
    const float fone = 1.0f, fzero = 0.0f;
    const scalar cone = scalar_of(p, 1.0), czero = scalar_of(p, 0.0);
    if (p->cx)
        ((fcgemm_fn)fn)(fb, fa, &s->n, &s->m, &s->k, &cone, B, &s->ldb, A, &s->lda, &czero, C,
                        &s->ldc, 1, 1);
    else if (p->dbl)
        ((fdgemm_fn)fn)(fb, fa, &s->n, &s->m, &s->k, &done, B, &s->ldb, A, &s->lda, &dzero, C,
                        &s->ldc, 1, 1);
    else
        ((fsgemm_fn)fn)(fb, fa, &s->n, &s->m, &s->k, &fone, B, &s->ldb, A, &s->lda, &fzero, C,
                        &s->ldc, 1, 1);
}

/* Part idx of an array of p's precision (element idx of a real one; of a
 * complex one, element idx / 2's real or imaginary part). */
static inline long double elem(const prec *p, const void *X, size_t idx)
{
    return p->dbl ? ((const double *)X)[idx] : ((const float *)X)[idx];
}

/* The complex case of ref_row: acc holds 2 n parts (re, im), in long
 * double. */
static void ref_row_cx(const prec *pr, const shape *s, const void *A, const void *B, int i,
                       long double *acc)
{
    const int n = s->n;
    const size_t bs = s->tb ? (size_t)s->ldb : 1;
    for (int p = 0; p < s->k; p++) {
        const size_t ia = s->ta ? (size_t)p * s->lda + i : (size_t)i * s->lda + p;
        const size_t ib = s->tb ? (size_t)p : (size_t)p * s->ldb;
        const long double ar = elem(pr, A, 2 * ia), ai = elem(pr, A, 2 * ia + 1);
        for (int j = 0; j < n; j++) {
            const size_t b = 2 * (ib + j * bs);
            const long double br = elem(pr, B, b), bi = elem(pr, B, b + 1);
            acc[2 * j] += ar * br - ai * bi;
            acc[2 * j + 1] += ar * bi + ai * br;
        }
    }
}

/* acc[j] += op(A)[i][p] op(B)[p][j] over p and j: row i of the reference.
 * Single precision sums in double (fp32 products are exact there, the sum's
 * error is far below fp32's, and the loop vectorises); double precision in
 * long double (64-bit mantissa on x86-64), beyond double's own rounding. */
static void ref_row(const prec *pr, const shape *s, const void *A, const void *B, int i, void *acc)
{
    const int n = s->n;
    const size_t bs = s->tb ? (size_t)s->ldb : 1;   /* op(B)[p][j] = B[ib + j * bs] */
    for (int p = 0; p < s->k; p++) {
        const size_t ia = s->ta ? (size_t)p * s->lda + i : (size_t)i * s->lda + p;
        const size_t ib = s->tb ? (size_t)p : (size_t)p * s->ldb;
        if (pr->dbl) {
            const double *b = (const double *)B + ib;
            const long double a = ((const double *)A)[ia];
            long double *r = acc;
            for (int j = 0; j < n; j++)
                r[j] += a * b[j * bs];
        } else {
            const float *b = (const float *)B + ib;
            const double a = ((const float *)A)[ia];
            double *r = acc;
            for (int j = 0; j < n; j++)
                r[j] += a * b[j * bs];
        }
    }
}

/* Max and mean |C - ref| and the relative Frobenius error over `rows`
 * sampled rows, ref from ref_row. */
static void error_vs_ref(const prec *pr, const shape *s, const void *A, const void *B,
                         const void *C, int rows, double *max_err, double *avg_err,
                         double *rel_fro)
{
    const int m = s->m, n = s->n << pr->cx;   /* complex: n parts re and im */
    double mx = 0.0, sum = 0.0, d2 = 0.0, r2 = 0.0;
    int step = m > rows ? m / rows : 1, used = 0;
#ifdef _OPENMP
    #pragma omp parallel for reduction(max:mx) reduction(+:sum,d2,r2,used) schedule(dynamic)
#endif
    for (int i = 0; i < m; i += step) {
        void *acc = calloc((size_t)n, pr->dbl || pr->cx ? sizeof(long double) : sizeof(double));
        if (pr->cx)
            ref_row_cx(pr, s, A, B, i, acc);
        else
            ref_row(pr, s, A, B, i, acc);
        for (int j = 0; j < n; j++) {
            long double ref = pr->dbl || pr->cx ? ((long double *)acc)[j] : ((double *)acc)[j];
            double e = (double)fabsl(elem(pr, C, ((size_t)i * s->ldc << pr->cx) + j) - ref);
            mx = e > mx ? e : mx;
            sum += e;
            d2 += e * e;
            r2 += (double)(ref * ref);
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
static int naive_offload(const prec *p, void *dev, err_fn dev_err, const shape *s, double alpha,
                         const void *A, const void *B, double beta, void *C, const char **why)
{
    size_t sa = s->na * p->es, sb = s->nb * p->es, sc = s->nc * p->es;
    void *dA = NULL, *dB = NULL, *dC = NULL;
    cudaError_t e = cudaSuccess;
    int r;
    *why = NULL;
    if ((e = cudaMalloc(&dA, sa)) != cudaSuccess ||
        (e = cudaMalloc(&dB, sb)) != cudaSuccess ||
        (e = cudaMalloc(&dC, sc)) != cudaSuccess ||
        (e = cudaMemcpy(dA, A, sa, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(dB, B, sb, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (beta != 0.0 && (e = cudaMemcpy(dC, C, sc, cudaMemcpyHostToDevice)) != cudaSuccess)) {
        *why = cudaGetErrorString(e);
    } else if ((r = device_gemm(p, dev, s, alpha, dA, dB, beta, dC)) != 0) {
        *why = r == -1 && dev_err ? dev_err() : "the device entry point refused the call";
    } else if ((e = cudaMemcpy(C, dC, sc, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        *why = cudaGetErrorString(e);   /* also where a fault in the kernel shows */
    }
    /* cudaFree(NULL) does nothing; a failing free spoils the call as well. */
    void *bufs[3] = {dA, dB, dC};
    for (int i = 0; i < 3; i++)
        if ((e = cudaFree(bufs[i])) != cudaSuccess && !*why)
            *why = cudaGetErrorString(e);
    if (*why)
        cudaGetLastError();
    return *why ? -1 : 0;
}

/* Relative Frobenius difference of X against Y (m x n, leading dimension
 * ld, p's precision) over up to `rows` sampled rows. */
static double rel_diff(const prec *p, const void *X, const void *Y, int m, int n, int ld, int rows)
{
    double d2 = 0.0, y2 = 0.0;
    int step = m > rows ? m / rows : 1;
    for (int i = 0; i < m; i += step)
        for (int j = 0; j < n << p->cx; j++) {
            const size_t at = ((size_t)i * ld << p->cx) + j;
            double x = (double)elem(p, X, at), y = (double)elem(p, Y, at);
            d2 += (x - y) * (x - y);
            y2 += y * y;
        }
    return sqrt(d2 / (y2 > 0.0 ? y2 : 1e-300));
}

/* --devices: the run again for each leading part of the device list, in a
 * child process with TILEDBLAS_DEVICES set, its output passed through; then
 * the preload's column (the table's third) by device count. */
enum { DEV_MAX = 8, DEV_ROWS = 256 };
static int run_devices(int argc, char **argv, const char *list)
{
    char label[DEV_ROWS][64];
    double ms[DEV_ROWS][DEV_MAX];
    char prefix[DEV_MAX][64];
    int nrows = 0, nrun = 0;
    char *args[64];
    int na = 0;
    for (int i = 0; i < argc && na < 62; i++) {
        if (!strcmp(argv[i], "--devices")) {
            i++;
            continue;
        }
        args[na++] = argv[i];
    }
    args[na] = NULL;
    for (const char *p = list; *p && nrun < DEV_MAX;) {
        const char *comma = strchr(p, ',');
        size_t upto = comma ? (size_t)(comma - list) : strlen(list);
        snprintf(prefix[nrun], sizeof prefix[nrun], "%.*s", (int)upto, list);
        int fd[2];
        if (pipe(fd) != 0)
            return 1;
        printf("==== TILEDBLAS_DEVICES=%s\n", prefix[nrun]);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fd[1], 1);
            close(fd[0]);
            close(fd[1]);
            setenv("TILEDBLAS_DEVICES", prefix[nrun], 1);
            execv("/proc/self/exe", args);
            _exit(127);
        }
        close(fd[1]);
        FILE *in = fdopen(fd[0], "r");
        char line[1024];
        while (in && fgets(line, sizeof line, in)) {
            fputs(line, stdout);
            char name[64];
            double ob, shim;
            if (line[0] >= '0' && line[0] <= '9' && sscanf(line, "%63s %lf %lf", name, &ob, &shim) == 3) {
                int r = 0;
                while (r < nrows && strcmp(label[r], name))
                    r++;
                if (r == nrows && nrows < DEV_ROWS) {
                    snprintf(label[nrows], sizeof label[nrows], "%s", name);
                    for (int j = 0; j < DEV_MAX; j++)
                        ms[nrows][j] = NAN;
                    nrows++;
                }
                if (r < nrows)
                    ms[r][nrun] = shim;
            }
        }
        if (in)
            fclose(in);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
        nrun++;
        p = comma ? comma + 1 : p + strlen(p);
    }
    printf("==== through the preload by TILEDBLAS_DEVICES: ms (speed-up over %s)\n%-18s", prefix[0], "m x n x k");
    for (int j = 0; j < nrun; j++)
        printf(" %18s", prefix[j]);
    printf("\n");
    for (int r = 0; r < nrows; r++) {
        printf("%-18s", label[r]);
        for (int j = 0; j < nrun; j++)
            printf(" %10.3f (%4.2fx)", ms[r][j], ms[r][0] / ms[r][j]);
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_e2e LIBTILEDBLAS [--sizes N,N,...] [--shapes MxNxK[:XY][+P],...] [--reps R]\n"
                        "                 [--peer NAME] [--no-naive] [--double | --complex | --zcomplex]\n"
                        "                 [--devices LIST]\n");
        return 2;
    }
    char list[2048] = "1024,2048,4096,8192";
    const char *peer = NULL;
    int reps = 5, naive = 1;
    const prec *pr = &precs[0];
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            snprintf(list, sizeof list, "%s", argv[++i]);
        } else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            snprintf(list, sizeof list, "%s", argv[++i]);
        } else if (!strcmp(argv[i], "--peer") && i + 1 < argc) {
            peer = argv[++i];
        } else if (!strcmp(argv[i], "--no-naive")) {
            naive = 0;
        } else if (!strcmp(argv[i], "--double")) {
            pr = &precs[1];
        } else if (!strcmp(argv[i], "--complex")) {
            pr = &precs[2];
        } else if (!strcmp(argv[i], "--zcomplex")) {
            pr = &precs[3];
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--devices") && i + 1 < argc) {
            return run_devices(argc, argv, argv[i + 1]);
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
    void *openblas = dlsym(ob, pr->cblas), *shim = dlsym(tb, pr->cblas);
    void *device = dlsym(tb, pr->device);
    err_fn device_err = (err_fn)dlsym(tb, "tiledblas_last_error");
    int (*gpu_start)(double) = (int (*)(double))dlsym(tb, "tiledblas_gpu_start");
    char *(*corename)(void) = (char *(*)(void))dlsym(ob, "openblas_get_corename");
    int (*nthreads)(void) = (int (*)(void))dlsym(ob, "openblas_get_num_threads");
    const char *mode = getenv("TILEDBLAS_MODE");
    void *peer_fn = peer ? dlsym(RTLD_DEFAULT, pr->fortran) : NULL;
    if (!openblas || !shim) {
        fprintf(stderr, "bench_e2e: no %s in %s\n", pr->cblas, openblas ? argv[1] : "libopenblas.so.0");
        return 1;
    }
    if (peer && !peer_fn) {
        fprintf(stderr, "bench_e2e: --peer %s: no %s in the process\n", peer, pr->fortran);
        return 1;
    }

    int ngpu = 0;
    struct cudaDeviceProp prop;
    cudaError_t ge = cudaGetDeviceCount(&ngpu);
    int have_gpu = ge == cudaSuccess && ngpu > 0 && cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
    printf("OpenBLAS core %s, %d threads; shim mode %s; GPU %s%s%s; %s precision (%s)\n",
           corename ? corename() : "?", nthreads ? nthreads() : 0, mode ? mode : "auto",
           have_gpu ? prop.name : "none (", have_gpu ? "" : tb_no_gpu_text(ge, ngpu),
           have_gpu ? "" : ")", pr->name, pr->cblas);
    printf("%-18s %11s %11s %8s %11s %9s %10s %10s %10s", "m x n x k", "OpenBLAS ms",
           "shim ms", "speedup", "kernel ms", "kern TF/s", "max err", "avg err", "rel fro");
    if (peer)
        printf(" %9s ms %8s", peer, "shim/peer");
    if (naive)
        printf(" %12s %9s", "naive ms", "vs naive");
    printf("\n");

    const size_t es = pr->es;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        shape sh;
        if (parse_shape(tok, &sh) != 0) {
            fprintf(stderr, "bench_e2e: bad shape %s (MxNxK[:XY][+P], or N)\n", tok);
            return 2;
        }
        const int m = sh.m, n = sh.n, k = sh.k, ldc = sh.ldc;
        const size_t na = sh.na, nb = sh.nb, nc = sh.nc;
        void *A = malloc(na * es), *B = malloc(nb * es), *C = malloc(nc * es), *C2 = malloc(nc * es);
        if (!A || !B || !C || !C2) {
            fprintf(stderr, "bench_e2e: %s: out of host memory\n", sh.label);
            return 1;
        }
        fill_uniform_es(A, na << pr->cx, es >> pr->cx, 1);   /* complex: both parts */
        fill_uniform_es(B, nb << pr->cx, es >> pr->cx, 2);
        /* Both outputs touched before any call: the first write into fresh
         * memory page-faults (two 4000x4000x1 calls, whose C is 64 MB, took
         * 16-19 ms each on a fresh C against 1.3 ms), which belongs to
         * neither route and was measured as the first calls'. */
        memset(C, 0, nc * es);
        memset(C2, 0, nc * es);
        double flop = (pr->cx ? 8.0 : 2.0) * m * n * k, t[2 * ENOUGH_MAX], t_ob, t_shim, t_kern = NAN;
        int r = (flop > 4e11) ? (reps < 3 ? reps : 3) : reps;

        int nt = 0;
        host_gemm(pr, openblas, &sh, A, B, C2);   /* warm-up */
        for (double total = 0.0; !enough(nt, r, total); total += t[nt++]) {
            double t0 = now();
            host_gemm(pr, openblas, &sh, A, B, C2);
            t[nt] = now() - t0;
        }
        t_ob = median(t, nt);
        /* The timed calls are a program's steady state. In auto mode a
         * program's first calls run on the CPU BLAS before CUDA starts (and
         * are measured there), and the GPU takes over once ready. So: two
         * warm-up calls right after the calls above, as a program makes its
         * calls one after another (after an idle spell the first CPU calls
         * run up to 2x slow: cores and OpenBLAS's threads asleep), which go
         * where they would in a program before the GPU is up; then the GPU
         * path started and waited for (tiledblas_gpu_start; a start's own
         * cost is what scripts/startup.sh measures); then a pause, so that
         * OpenBLAS's threads, which poll for work for a while after a call,
         * do not compete with the timed GPU calls' copies. */
        host_gemm(pr, shim, &sh, A, B, C);   /* warm-up */
        host_gemm(pr, shim, &sh, A, B, C);
        if (have_gpu && gpu_start)
            gpu_start(30.0);
        usleep(300000);
        nt = 0;
        for (double total = 0.0; !enough(nt, r, total); total += t[nt++]) {
            double t0 = now();
            host_gemm(pr, shim, &sh, A, B, C);
            t[nt] = now() - t0;
        }
        t_shim = median(t, nt);

        if (have_gpu && device) {
            void *dA, *dB, *dC;
            cudaEvent_t e0, e1;
            if (cudaMalloc(&dA, na * es) == cudaSuccess &&
                cudaMalloc(&dB, nb * es) == cudaSuccess &&
                cudaMalloc(&dC, nc * es) == cudaSuccess) {
                cudaMemcpy(dA, A, na * es, cudaMemcpyHostToDevice);
                cudaMemcpy(dB, B, nb * es, cudaMemcpyHostToDevice);
                cudaEventCreate(&e0);
                cudaEventCreate(&e1);
                int ok = device_gemm(pr, device, &sh, 1.0, dA, dB, 0.0, dC) == 0;
                int kr = reps * 2;
                for (int i = 0; ok && i < kr; i++) {
                    float ms = 0.0f;
                    cudaEventRecord(e0, 0);
                    ok = device_gemm(pr, device, &sh, 1.0, dA, dB, 0.0, dC) == 0;
                    cudaEventRecord(e1, 0);
                    ok = ok && cudaEventSynchronize(e1) == cudaSuccess &&
                         cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess;
                    t[i] = ms * 1e-3;
                }
                if (ok)
                    t_kern = median(t, kr);
                else
                    fprintf(stderr, "bench_e2e: %s on %s: %s\n", pr->device, sh.label,
                            device_err ? device_err() : "failed");
                cudaFree(dA);
                cudaFree(dB);
                cudaFree(dC);
            }
            cudaGetLastError();
        }
        double mx, avg, fro, t_peer = NAN, t_naive = NAN;
        error_vs_ref(pr, &sh, A, B, C, 256, &mx, &avg, &fro);
        if (naive && have_gpu && device) {
            /* Into C2 (the OpenBLAS result, not needed any more); it is
             * poisoned with NaN before the last timed call so that the check
             * against the shim's C sees that call's result, not an older one. */
            const char *why = NULL;
            int ok = naive_offload(pr, device, device_err, &sh, 1.0, A, B, 0.0, C2, &why) == 0;
            for (int i = 0; ok && i < r; i++) {
                if (i == r - 1)
                    memset(C2, 0xff, nc * es);
                double t0 = now();
                ok = naive_offload(pr, device, device_err, &sh, 1.0, A, B, 0.0, C2, &why) == 0;
                t[i] = now() - t0;
            }
            double d = ok ? rel_diff(pr, C2, C, m, n, ldc, 256) : NAN;
            if (ok && !(d <= pr->agree)) {
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
            fortran_gemm(pr, peer_fn, &sh, A, B, C2);   /* warm-up */
            nt = 0;
            for (double total = 0.0; !enough(nt, r, total); total += t[nt++]) {
                double t0 = now();
                fortran_gemm(pr, peer_fn, &sh, A, B, C2);
                t[nt] = now() - t0;
            }
            t_peer = median(t, nt);
        }
        printf("%-18s %11.3f %11.3f %7.2fx", sh.label, t_ob * 1e3, t_shim * 1e3, t_ob / t_shim);
        if (isnan(t_kern))
            printf(" %11s %9s", "n/a", "n/a");
        else
            printf(" %11.3f %9.2f", t_kern * 1e3, flop / t_kern * 1e-12);
        printf(" %10.2e %10.2e %10.2e", mx, avg, fro);
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
    printf("errors: shim result against a %s reference over up to 256 sampled rows; "
           "times: median of at least %d calls (3 above 400 GFLOP) and of %.0f ms of calls, at "
           "most %d, after one warm-up call\n", pr->dbl || pr->cx ? "long-double" : "float64", reps,
           ENOUGH_S * 1e3, ENOUGH_MAX);
    if (naive)
        printf("naive: cudaMalloc, cudaMemcpy from pageable memory, %s, cudaMemcpy back, "
               "cudaFree, every call; vs naive = naive ms / shim ms\n", pr->device);
    return 0;
}
