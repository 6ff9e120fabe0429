/* tool/cmd_bench.c - `tiledblas bench`: for each size, OpenBLAS alone
 * (dlopen'ed), the shim end to end (cblas_sgemm, or cblas_dgemm with
 * --double, cblas_cgemm with --complex, cblas_zgemm with --zcomplex, through
 * libtiledblas, auto mode), the kernel alone on device buffers (CUDA events;
 * its entry point looked up at run time: the library may not export the
 * complex ones) and cuBLAS (dlopen at run time, never linked): median and
 * range of the times, GFLOP/s (8 m n k flops for a complex product), ratio
 * to OpenBLAS ("noise" where the ranges overlap) and the error against a
 * float64 reference (long double for the others; a complex one's over the
 * real and imaginary parts alike). One code path for the four precisions:
 * tb_prec_ops holds what differs. Table on stdout, progress on stderr.
 * Writes only the --csv and --plot files named; a CSV made just for --plot
 * lives in a private temporary directory, removed at the end. */
#define _GNU_SOURCE
#include "tool.h"
#include "tiledblas.h"
#include "tb_files.h"
#include "tb_no_gpu.h"
#ifdef TB_HAVE_ANIMATE
#include "animate.h"
#endif
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The shim's entry points, from the libtiledblas this command is linked to. */
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int,
                 const float *, int, float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int,
                 const double *, int, double, double *, int);
void cblas_cgemm(int, int, int, int, int, int, const void *, const void *, int,
                 const void *, int, const void *, void *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int,
                 const void *, int, const void *, void *, int);
typedef void (*tb_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                            const float *, int, float, float *, int);
typedef void (*tb_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                            const double *, int, double, double *, int);
/* Complex: every scalar by pointer, two parts each. */
typedef void (*tb_cgemm_fn)(int, int, int, int, int, int, const void *, const void *, int,
                            const void *, int, const void *, void *, int);
typedef int (*tb_sdev_fn)(char, char, int, int, int, float, const float *, int, const float *,
                          int, float, float *, int, void *);
typedef int (*tb_ddev_fn)(char, char, int, int, int, double, const double *, int,
                          const double *, int, double, double *, int, void *);
typedef int (*tb_cdev_fn)(char, char, int, int, int, const void *, const void *, int,
                          const void *, int, const void *, void *, int, void *);
typedef int (*tb_cublas_create_fn)(void **);
/* cuBLAS takes alpha and beta by pointer in every precision. */
typedef int (*tb_cublas_gemm_fn)(void *, int, int, int, int, int, const void *, const void *,
                                 int, const void *, int, const void *, void *, int);

/* What differs between the precisions, chosen once by --double, --complex
 * or --zcomplex; the calls go through tb_host_gemm and tb_device_gemm,
 * which pick the signature. */
typedef struct tb_prec_ops {
    int dbl;                       /* its parts are doubles             */
    int cx;                        /* complex: two parts an element     */
    size_t es;                     /* bytes an element                  */
    const char *name, *routine;    /* "single", "sgemm"                 */
    const char *cblas, *cublas;    /* symbols looked up at run time     */
    const char *device;            /* the library's device entry point  */
    void *shim;                    /* the shim's cblas_xgemm            */
} tb_prec_ops;
static const tb_prec_ops tb_precs[4] = {
    {0, 0, sizeof(float), "single", "sgemm", "cblas_sgemm", "cublasSgemm_v2",
     "tiledblas_sgemm_device", (void *)cblas_sgemm},
    {1, 0, sizeof(double), "double", "dgemm", "cblas_dgemm", "cublasDgemm_v2",
     "tiledblas_dgemm_device", (void *)cblas_dgemm},
    {0, 1, 2 * sizeof(float), "complex", "cgemm", "cblas_cgemm", "cublasCgemm_v2",
     "tiledblas_cgemm_device", (void *)cblas_cgemm},
    {1, 1, 2 * sizeof(double), "zcomplex", "zgemm", "cblas_zgemm", "cublasZgemm_v2",
     "tiledblas_zgemm_device", (void *)cblas_zgemm},
};

/* A scalar of o's type with real part re (imaginary part 0), for the calls
 * that take it by pointer. */
typedef union { float f[2]; double d[2]; } tb_scalar;
static tb_scalar tb_scalar_of(const tb_prec_ops *o, double re)
{
    tb_scalar v;
    if (o->dbl)
        v.d[0] = re, v.d[1] = 0.0;
    else
        v.f[0] = (float)re, v.f[1] = 0.0f;
    return v;
}

static const char tb_bench_usage[] =
    "usage: tiledblas bench [--sizes LIST] [--shapes MxNxK,...] [--reps N]\n"
    "                       [--double | --complex | --zcomplex] [--csv FILE]\n"
    "                       [--plot FILE.png|FILE.svg] [--check-all]\n"
    "For each size (square n x n x n; default 256,512,1024,2048) and shape,\n"
    "C = A*B (row-major, alpha 1, beta 0) in single precision (sgemm), or in\n"
    "double (dgemm) with --double, single complex (cgemm) with --complex,\n"
    "double complex (zgemm) with --zcomplex, with:\n"
    "  openblas  libopenblas.so.0's cblas_sgemm (_dgemm, _cgemm, _zgemm) alone\n"
    "            (its core is printed)\n"
    "  shim      cblas_sgemm (_dgemm, _cgemm, _zgemm) through libtiledblas,\n"
    "            TILEDBLAS_MODE=auto, host arrays in and out (what a preloaded\n"
    "            program sees)\n"
    "  kernel    tiledblas_sgemm_device (_dgemm_, _cgemm_, _zgemm_) on device\n"
    "            buffers, CUDA events; n/a where the library has no such entry\n"
    "  cublas    cublasSgemm (Dgemm, Cgemm, Zgemm), loaded at run time when\n"
    "            present\n"
    "Each: the median and the range (fastest-slowest) of --reps runs (default\n"
    "5) after one warm-up; GFLOP/s (2 m n k flops, 8 m n k for a complex\n"
    "product); the ratio of OpenBLAS's median to the series' median, marked\n"
    "\"noise\" where the two ranges overlap (the difference is inside the\n"
    "run-to-run spread); the max and average abs error against a float64\n"
    "reference in single precision, long double in the others (a complex\n"
    "result's over its real and imaginary parts alike; only up to 2048^3\n"
    "multiply-adds, a quarter of that in double, a sixteenth in complex,\n"
    "unless --check-all: it is slow). --csv writes\n"
    "series,size,gflops,m,n,k,median_s,max_abs,avg_abs,prec,min_s,max_s;\n"
    "--plot draws GFLOP/s against size with gnuplot. Without a GPU the kernel\n"
    "and cublas rows read \"n/a (no GPU)\" and the shim forwards every call to\n"
    "OpenBLAS: its ratio is the shim's cost and noise, not a GPU's.\n";

enum { TB_OPENBLAS, TB_SHIM, TB_KERNEL, TB_CUBLAS, TB_NSERIES };
static const char *const tb_series[TB_NSERIES] = {"openblas", "shim", "kernel", "cublas"};

typedef struct tb_shape { int m, n, k; } tb_shape;

typedef struct tb_result {
    int ok;                   /* 1 measured; 0 n/a with why */
    const char *why;
    double median_s, min_s, max_s, max_abs, avg_abs;
    int checked;
} tb_result;

static uint64_t tb_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int tb_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* r's median and range of the n times t (sorted here); r->ok set. */
static void tb_summarise(double *t, int n, tb_result *r)
{
    qsort(t, (size_t)n, sizeof *t, tb_cmp);
    r->median_s = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    r->min_s = t[0];
    r->max_s = t[n - 1];
    r->ok = 1;
}

/* Parses "64,128" (square) or "MxNxK,..." into shapes; -1 on a bad item. */
static int tb_parse_list(const char *s, int shapes, tb_shape *out, int *n, int max)
{
    char *copy = strdup(s), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long m, nn, k;
        char *end;
        if (*n >= max) { rc = -1; break; }
        if (shapes) {
            if (sscanf(tok, "%ldx%ldx%ld", &m, &nn, &k) != 3 || m < 1 || nn < 1 || k < 1 ||
                m > 65536 || nn > 65536 || k > 65536) { rc = -1; break; }
        } else {
            m = strtol(tok, &end, 10);
            if (*end || m < 1 || m > 65536) { rc = -1; break; }
            nn = k = m;
        }
        out[(*n)++] = (tb_shape){(int)m, (int)nn, (int)k};
    }
    free(copy);
    return rc;
}

/* Part i of an array of o's precision (element i of a real one; of a
 * complex one, element i / 2's real or imaginary part). */
static inline long double tb_elem(const tb_prec_ops *o, const void *X, size_t i)
{
    return o->dbl ? ((const double *)X)[i] : ((const float *)X)[i];
}

/* C against the reference, part by part (mn elements). */
static void tb_errors(const tb_prec_ops *o, const void *C, const long double *ref, size_t mn,
                      tb_result *r)
{
    double mx = 0.0, sum = 0.0;
    mn <<= o->cx;
    for (size_t i = 0; i < mn; i++) {
        double d = (double)fabsl(tb_elem(o, C, i) - ref[i]);
        if (isnan(d)) d = INFINITY;
        mx = d > mx ? d : mx;
        sum += d;
    }
    r->max_abs = mx;
    r->avg_abs = mn ? sum / (double)mn : 0.0;
    r->checked = 1;
}

/* C = A B, row-major, through a host-array CBLAS gemm of o's precision. */
static void tb_host_gemm(const tb_prec_ops *o, void *f, const tb_shape *s, const void *A,
                         const void *B, void *C)
{
    if (o->cx) {
        const tb_scalar one = tb_scalar_of(o, 1.0), zero = tb_scalar_of(o, 0.0);
        ((tb_cgemm_fn)f)(101, 111, 111, s->m, s->n, s->k, &one, A, s->k, B, s->n, &zero, C, s->n);
    } else if (o->dbl)
        ((tb_dgemm_fn)f)(101, 111, 111, s->m, s->n, s->k, 1.0, A, s->k, B, s->n, 0.0, C, s->n);
    else
        ((tb_sgemm_fn)f)(101, 111, 111, s->m, s->n, s->k, 1.0f, A, s->k, B, s->n, 0.0f, C, s->n);
}

/* Times a host-array gemm (OpenBLAS or the shim). */
static void tb_time_host(const tb_prec_ops *o, void *f, const tb_shape *s, const void *A,
                         const void *B, void *C, int reps, tb_result *r)
{
    double *t = malloc(sizeof *t * (size_t)reps);
    tb_host_gemm(o, f, s, A, B, C);   /* warm-up */
    for (int i = 0; i < reps; i++) {
        double t0 = tb_tool_now();
        tb_host_gemm(o, f, s, A, B, C);
        t[i] = tb_tool_now() - t0;
    }
    tb_summarise(t, reps, r);
    free(t);
}

typedef struct tb_gpu {
    int present;
    char why[160];
    void *device;             /* the library's tiledblas_xgemm_device, if it has it */
    void *gemm;               /* cublasSgemm_v2 (Dgemm, Cgemm, Zgemm) */
    void *handle;             /* cublasHandle_t */
    char device_why[160], cublas_why[160];
} tb_gpu;

/* C = A B on device buffers, row-major: the kernel alone or cuBLAS (row-major
 * C = A B is column-major C^T = B^T A^T). 0 on success. */
static int tb_device_gemm(const tb_prec_ops *o, int which, const tb_gpu *g, const tb_shape *s,
                          const void *A, const void *B, void *C)
{
    const tb_scalar one = tb_scalar_of(o, 1.0), zero = tb_scalar_of(o, 0.0);
    if (which == TB_CUBLAS)
        return ((tb_cublas_gemm_fn)g->gemm)(g->handle, 0, 0, s->n, s->m, s->k, &one, B, s->n, A,
                                            s->k, &zero, C, s->n);
    if (o->cx)
        return ((tb_cdev_fn)g->device)('N', 'N', s->m, s->n, s->k, &one, A, s->k, B, s->n,
                                       &zero, C, s->n, NULL);
    if (o->dbl)
        return ((tb_ddev_fn)g->device)('N', 'N', s->m, s->n, s->k, 1.0, A, s->k, B, s->n, 0.0,
                                       C, s->n, NULL);
    return ((tb_sdev_fn)g->device)('N', 'N', s->m, s->n, s->k, 1.0f, A, s->k, B, s->n, 0.0f, C,
                                   s->n, NULL);
}

/* Times the kernel alone or cuBLAS on device buffers; C comes back to host. */
static void tb_time_device(const tb_prec_ops *o, int which, tb_gpu *g, const tb_shape *s,
                           const void *A, const void *B, void *C, int reps, tb_result *r)
{
    const size_t es = o->es;
    size_t sa = (size_t)s->m * s->k, sb = (size_t)s->k * s->n, sc = (size_t)s->m * s->n;
    void *dA = NULL, *dB = NULL, *dC = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = malloc(sizeof *t * (size_t)reps);
    r->ok = 0;
    r->why = "n/a (CUDA error)";
    if (cudaMalloc(&dA, sa * es) || cudaMalloc(&dB, sb * es) ||
        cudaMalloc(&dC, sc * es) || cudaMemcpy(dA, A, sa * es, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dB, B, sb * es, cudaMemcpyHostToDevice) || cudaEventCreate(&e0) ||
        cudaEventCreate(&e1))
        goto out;
    for (int i = -1; i < reps; i++) {   /* i = -1: the warm-up */
        cudaEventRecord(e0, NULL);
        int bad = tb_device_gemm(o, which, g, s, dA, dB, dC) != 0;
        cudaEventRecord(e1, NULL);
        float ms = 0.0f;
        if (bad || cudaEventSynchronize(e1) || cudaEventElapsedTime(&ms, e0, e1))
            goto out;
        if (i >= 0)
            t[i] = ms * 1e-3;
    }
    if (cudaMemcpy(C, dC, sc * es, cudaMemcpyDeviceToHost))
        goto out;
    tb_summarise(t, reps, r);
out:
    if (!r->ok)
        fprintf(stderr, "tiledblas: bench: %s failed: %s\n", tb_series[which],
                which == TB_KERNEL ? tiledblas_last_error() : cudaGetErrorString(cudaGetLastError()));
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free(t);
}

/* The GPU, the library's device entry point and cuBLAS's gemm of o's
 * precision. */
static void tb_gpu_open(const tb_prec_ops *o, tb_gpu *g)
{
    int count = 0;
    /* The libtiledblas this command is linked to; it may lack the complex
     * device entry points. */
    g->device = dlsym(RTLD_DEFAULT, o->device);
    if (!g->device)
        snprintf(g->device_why, sizeof g->device_why, "n/a (no %s in libtiledblas)", o->device);
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(g->why, sizeof g->why, "%s", tb_no_gpu_text(e, count));
        cudaGetLastError();
        return;
    }
    g->present = 1;
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    void *h = NULL;
    for (size_t i = 0; i < 3 && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(g->cublas_why, sizeof g->cublas_why, "n/a (no libcublas)");
        return;
    }
    tb_cublas_create_fn create = (tb_cublas_create_fn)dlsym(h, "cublasCreate_v2");
    g->gemm = dlsym(h, o->cublas);
    if (!create || !g->gemm || create(&g->handle) != 0) {
        g->gemm = NULL;
        snprintf(g->cublas_why, sizeof g->cublas_why, "n/a (cublasCreate failed)");
    }
}

/* One row; base: OpenBLAS's result (NULL when it has none). Returns 1
 * when the ratio to OpenBLAS was called noise. */
static int tb_print_row(const char *label, int series, const tb_result *r, double flops,
                        const tb_result *base, int reps)
{
    if (!r->ok) {
        printf("%-16s %-9s %s\n", label, tb_series[series], r->why);
        return 0;
    }
    char err[64] = "(not checked)";
    if (r->checked)
        snprintf(err, sizeof err, "%12.3g %12.3g", r->max_abs, r->avg_abs);
    char ratio[24] = "-", range[32];
    int noise = 0;
    if (base && r != base) {
        /* Ranges that overlap: the difference is inside the spread. */
        noise = reps > 1 && r->min_s <= base->max_s && base->min_s <= r->max_s;
        snprintf(ratio, sizeof ratio, "%.2fx%s", base->median_s / r->median_s,
                 noise ? " noise" : "");
    } else if (base) {
        snprintf(ratio, sizeof ratio, "1.00x");
    }
    snprintf(range, sizeof range, "%.3f-%.3f", r->min_s * 1e3, r->max_s * 1e3);
    printf("%-16s %-9s %11.3f %15s %11.2f %12s %s\n", label, tb_series[series],
           r->median_s * 1e3, range, flops / r->median_s * 1e-9, ratio, err);
    return noise;
}

/* What `bench` was asked to measure and where it writes. */
typedef struct tb_bench {
    tb_shape shapes[64];
    int nshapes, check_all;
    long reps;
    const char *csv, *plot;
    char tmpdir[4096], tmpcsv[4200];  /* the CSV made for --plot alone */
    const tb_prec_ops *ops;           /* single, or --double, --complex, --zcomplex */
    void *openblas;                   /* its cblas_sgemm (_dgemm, ...)    */
    tb_gpu gpu;
    int ran[TB_NSERIES];              /* rows measured, by series         */
    int noise;                        /* ratios called noise              */
} tb_bench;

/* The options; 0, or the exit status (help: 0 with *done set). */
static int tb_bench_parse(int argc, char **argv, tb_bench *b, int *done)
{
    const char *sizes = NULL, *shp = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(tb_bench_usage, stdout);
            *done = 1;
            return 0;
        } else if (!strcmp(a, "--sizes") && v) {
            sizes = argv[++i];
        } else if (!strcmp(a, "--shapes") && v) {
            shp = argv[++i];
        } else if (!strcmp(a, "--reps") && v) {
            if (tb_tool_parse_int(argv[++i], 1, 1000, &b->reps))
                return tb_tool_usage_error("bench", "--reps wants a whole number in 1..1000");
        } else if (!strcmp(a, "--csv") && v) {
            b->csv = argv[++i];
        } else if (!strcmp(a, "--plot") && v) {
            b->plot = argv[++i];
        } else if (!strcmp(a, "--check-all")) {
            b->check_all = 1;
        } else if (!strcmp(a, "--double")) {
            b->ops = &tb_precs[1];
        } else if (!strcmp(a, "--complex")) {
            b->ops = &tb_precs[2];
        } else if (!strcmp(a, "--zcomplex")) {
            b->ops = &tb_precs[3];
        } else {
            return tb_tool_usage_error("bench", "%s '%.200s'", v || a[0] != '-' ? "unexpected argument"
                                       : "missing value for", a);
        }
    }
    if (sizes && tb_parse_list(sizes, 0, b->shapes, &b->nshapes, 64))
        return tb_tool_usage_error("bench", "bad --sizes '%.200s' (want e.g. 256,512,1024)", sizes);
    if (shp && tb_parse_list(shp, 1, b->shapes, &b->nshapes, 64))
        return tb_tool_usage_error("bench", "bad --shapes '%.200s' (want e.g. 4096x512x1024)", shp);
    if (!sizes && !shp)
        tb_parse_list("256,512,1024,2048", 0, b->shapes, &b->nshapes, 64);
    if (b->plot) {
        const char *ext = strrchr(b->plot, '.');
        if (!ext || (strcmp(ext, ".png") && strcmp(ext, ".svg")))
            return tb_tool_usage_error("bench", "--plot wants a file ending in .png or .svg");
    }
    return 0;
}

/* OpenBLAS and the GPU (with cuBLAS), each described on stdout. */
static void tb_bench_open_libs(tb_bench *b)
{
    void *ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    b->openblas = ob ? dlsym(ob, b->ops->cblas) : NULL;
    if (b->openblas) {
        char *(*core)(void) = (char *(*)(void))dlsym(ob, "openblas_get_corename");
        char *(*cfg)(void) = (char *(*)(void))dlsym(ob, "openblas_get_config");
        int (*thr)(void) = (int (*)(void))dlsym(ob, "openblas_get_num_threads");
        printf("OpenBLAS: %s; core %s, %d threads\n", cfg ? cfg() : "?", core ? core() : "?",
               thr ? thr() : 0);
    } else {
        printf("OpenBLAS: not found (libopenblas.so.0 with %s); its column reads n/a\n",
               b->ops->cblas);
    }
    tb_gpu_open(b->ops, &b->gpu);
    if (b->gpu.present) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, 0) == cudaSuccess)
            printf("GPU: %s, compute capability %d.%d\n", p.name, p.major, p.minor);
    } else {
        printf("GPU: none (%s): the kernel and cublas rows read n/a\n", b->gpu.why);
    }
}

/* The CSV: the user's --csv, or, for --plot alone, one in a private
 * temporary directory (mkdtemp). NULL and no error when neither is asked. */
static int tb_bench_open_csv(tb_bench *b, FILE **cf)
{
    *cf = NULL;
    if (b->plot && !b->csv) {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp)
            tmp = "/tmp";
        if (snprintf(b->tmpdir, sizeof b->tmpdir, "%s/tiledblas-bench.XXXXXX", tmp) >=
                (int)sizeof b->tmpdir || !mkdtemp(b->tmpdir)) {
            fprintf(stderr, "tiledblas: bench: cannot create a directory in %s: %s\n", tmp,
                    strerror(errno));
            b->tmpdir[0] = '\0';
            return -1;
        }
        snprintf(b->tmpcsv, sizeof b->tmpcsv, "%s/bench.csv", b->tmpdir);
        b->csv = b->tmpcsv;
    }
    if (!b->csv)
        return 0;
    const char *why;
    int fd = tb_open_write(b->csv, b->csv == b->tmpcsv ? TB_WRITE_NEW : TB_WRITE_TRUNCATE, &why);
    *cf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!*cf) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "tiledblas: bench: cannot write %s: %s\n", b->csv, fd >= 0 ? strerror(errno) : why);
        return -1;
    }
    fprintf(*cf, "series,size,gflops,m,n,k,median_s,max_abs,avg_abs,prec,min_s,max_s\n");
    return 0;
}

static void tb_bench_cleanup(tb_bench *b)
{
    if (b->tmpcsv[0])
        unlink(b->tmpcsv);
    if (b->tmpdir[0])
        rmdir(b->tmpdir);
}

/* Multiply-adds up to which a reference is computed without --check-all,
 * divided by tb_ref_cost. */
#define TB_REF_LIMIT (2048.0 * 2048.0 * 2048.0)

/* How much slower o's reference is than single precision's, per
 * multiply-add of o's: 4 in long double, 4 more for a complex one (four
 * real products). */
static int tb_ref_cost(const tb_prec_ops *o)
{
    return (o->dbl || o->cx ? 4 : 1) * (o->cx ? 4 : 1);
}

/* The reference of C = A B, part by part (NULL when out of memory): single
 * precision's summed in double (fp32 products are exact there and the loop
 * vectorises), the others in long double (64-bit mantissa on x86-64, beyond
 * double's own rounding; about 4x slower). */
static long double *tb_bench_reference(const tb_prec_ops *o, const tb_shape *s, const void *A,
                                       const void *B)
{
    const size_t sc = (size_t)s->m * s->n;
    long double *ref = calloc(sc << o->cx, sizeof *ref);
    double *row = calloc((size_t)s->n, sizeof *row);
    for (int i = 0; ref && row && i < s->m; i++) {
        long double *out = ref + ((size_t)i * s->n << o->cx);
        for (int p = 0; p < s->k; p++) {
            const size_t ia = (size_t)i * s->k + p, ib = (size_t)p * s->n;
            if (o->cx) {
                const long double ar = tb_elem(o, A, 2 * ia), ai = tb_elem(o, A, 2 * ia + 1);
                for (int j = 0; j < s->n; j++) {
                    const long double br = tb_elem(o, B, 2 * (ib + j)),
                                      bi = tb_elem(o, B, 2 * (ib + j) + 1);
                    out[2 * j] += ar * br - ai * bi;
                    out[2 * j + 1] += ar * bi + ai * br;
                }
            } else if (o->dbl) {
                const long double a = ((const double *)A)[ia];
                const double *b = (const double *)B + ib;
                for (int j = 0; j < s->n; j++)
                    out[j] += a * b[j];
            } else {
                const double a = ((const float *)A)[ia];
                const float *b = (const float *)B + ib;
                for (int j = 0; j < s->n; j++)
                    row[j] += a * b[j];
            }
        }
        for (int j = 0; !o->dbl && !o->cx && j < s->n; j++) {
            out[j] = row[j];
            row[j] = 0.0;
        }
    }
    free(row);
    return ref;
}

/* n elements of o's precision, each part uniform in [-1, 1) (doubles with
 * a full mantissa). */
static void tb_fill(const tb_prec_ops *o, void *X, size_t n, uint64_t *seed)
{
    n <<= o->cx;
    for (size_t i = 0; i < n; i++) {
        double u = (double)(tb_rng(seed) >> 11) * 0x1p-53;
        if (o->dbl)
            ((double *)X)[i] = u * 2.0 - 1.0;
        else
            ((float *)X)[i] = (float)u * 2.0f - 1.0f;
    }
}

/* One shape: every series timed and checked, its rows printed and added to
 * the CSV. 0; -1 when out of memory; *skipped_ref set when no reference was
 * computed (too large without --check-all). */
static int tb_bench_shape(tb_bench *b, const tb_shape *s, FILE *cf, int *skipped_ref)
{
    const tb_prec_ops *o = b->ops;
    size_t sa = (size_t)s->m * s->k, sb = (size_t)s->k * s->n, sc = (size_t)s->m * s->n;
    void *A = malloc(sa * o->es), *B = malloc(sb * o->es), *C = malloc(sc * o->es);
    long double *ref = NULL;
    uint64_t seed = 42;
    if (!A || !B || !C) {
        fprintf(stderr, "tiledblas: bench: out of memory at %dx%dx%d\n", s->m, s->n, s->k);
        free(A); free(B); free(C);
        return -1;
    }
    tb_fill(o, A, sa, &seed);
    tb_fill(o, B, sb, &seed);
    double flops = (o->cx ? 8.0 : 2.0) * s->m * s->n * s->k;
    if (b->check_all || (double)s->m * s->n * s->k <= TB_REF_LIMIT / tb_ref_cost(o)) {
        fprintf(stderr, "tiledblas: bench: %dx%dx%d %s reference...\n", s->m, s->n, s->k,
                o->dbl || o->cx ? "long-double" : "float64");
        ref = tb_bench_reference(o, s, A, B);
    } else {
        *skipped_ref = 1;
    }
    tb_result r[TB_NSERIES];
    memset(r, 0, sizeof r);
    const int reps = (int)b->reps;
    /* Only the series that can run are announced. */
    for (int x = 0; x < TB_NSERIES; x++) {
        if (x == TB_OPENBLAS && !b->openblas)
            r[x].why = "n/a (no libopenblas.so.0)";
        else if (x >= TB_KERNEL && !b->gpu.present)
            r[x].why = "n/a (no GPU)";
        else if (x == TB_KERNEL && !b->gpu.device)
            r[x].why = b->gpu.device_why;
        else if (x == TB_CUBLAS && !b->gpu.gemm)
            r[x].why = b->gpu.cublas_why;
        if (r[x].why)
            continue;
        fprintf(stderr, "tiledblas: bench: %dx%dx%d %s...\n", s->m, s->n, s->k, tb_series[x]);
        memset(C, 0, sc * o->es);
        if (x == TB_OPENBLAS) {
            tb_time_host(o, b->openblas, s, A, B, C, reps, &r[x]);
        } else if (x == TB_SHIM) {
            /* The steady state: auto mode's GPU path started first (it
             * would start by itself once the calls it takes pay for it). */
            if (b->gpu.present)
                tiledblas_gpu_start(30.0);
            tb_time_host(o, o->shim, s, A, B, C, reps, &r[x]);
        } else {
            tb_time_device(o, x, &b->gpu, s, A, B, C, reps, &r[x]);
        }
        if (r[x].ok && ref)
            tb_errors(o, C, ref, sc, &r[x]);
    }
    char label[48];
    snprintf(label, sizeof label, "%dx%dx%d", s->m, s->n, s->k);
    const tb_result *base = r[TB_OPENBLAS].ok ? &r[TB_OPENBLAS] : NULL;
    for (int x = 0; x < TB_NSERIES; x++) {
        b->noise += tb_print_row(x ? "" : label, x, &r[x], flops, base, reps);
        b->ran[x] += r[x].ok;
        if (cf && r[x].ok)
            fprintf(cf, "%s,%d,%.3f,%d,%d,%d,%.9f,%.6g,%.6g,%s,%.9f,%.9f\n", tb_series[x],
                    s->m == s->n && s->n == s->k ? s->m
                    : (int)lround(cbrt((double)s->m * s->n * s->k)),
                    flops / r[x].median_s * 1e-9, s->m, s->n, s->k, r[x].median_s,
                    r[x].checked ? r[x].max_abs : NAN, r[x].checked ? r[x].avg_abs : NAN,
                    o->name, r[x].min_s, r[x].max_s);
    }
    fflush(stdout);
    free(A); free(B); free(C); free(ref);
    return 0;
}

/* The picture from the CSV; 0, or 1 when it could not be drawn. */
static int tb_bench_plot(const tb_bench *b)
{
    if (!b->plot)
        return 0;
#ifdef TB_HAVE_ANIMATE
    /* Named: the series that were measured, no others. */
    static const char *const names[TB_NSERIES] = {"OpenBLAS", "libtiledblas", "the kernel alone",
                                                  "cuBLAS"};
    char title[160];
    int n = snprintf(title, sizeof title, "%s GFLOP/s:", b->ops->routine);
    for (int x = 0, k = 0; x < TB_NSERIES; x++)
        if (b->ran[x])
            n += snprintf(title + n, sizeof title - (size_t)n, "%s %s", k++ ? "," : "", names[x]);
    if (!b->gpu.present)
        snprintf(title + n, sizeof title - (size_t)n, " (no GPU)");
    int rc = tb_plot_csv(b->csv, b->plot, title) != 0;
    if (!rc)
        fprintf(stderr, "tiledblas: bench: wrote %s\n", b->plot);
    return rc;
#else
    fprintf(stderr, "tiledblas: bench: --plot needs src/animate/plot.c, absent from this build\n");
    return 1;
#endif
}

int tb_cmd_bench(int argc, char **argv)
{
    static tb_bench b;
    memset(&b, 0, sizeof b);
    b.reps = 5;
    b.ops = &tb_precs[0];
    int done = 0, rc = tb_bench_parse(argc, argv, &b, &done);
    if (rc || done)
        return rc;
    /* The shim in auto mode, whatever this shell says; nothing traced. */
    setenv("TILEDBLAS_MODE", "auto", 1);
    unsetenv("TILEDBLAS_TRACE");
    unsetenv("TILEDBLAS_STATS");
    tb_bench_open_libs(&b);
    FILE *cf;
    if (tb_bench_open_csv(&b, &cf) != 0) {
        tb_bench_cleanup(&b);
        return 1;
    }
    if (b.gpu.present && b.gpu.gemm)
        printf("precision: %s (%s; cuBLAS %s)\n", b.ops->name, b.ops->cblas, b.ops->cublas);
    else
        printf("precision: %s (%s)\n", b.ops->name, b.ops->cblas);
    printf("%-16s %-9s %11s %15s %11s %12s %12s %12s\n", "m x n x k", "series", "median ms",
           "range ms", "GFLOP/s", "vs OpenBLAS", "max abs err", "avg abs err");
    int skipped_ref = 0;
    for (int si = 0; si < b.nshapes && rc == 0; si++)
        rc = tb_bench_shape(&b, &b.shapes[si], cf, &skipped_ref) != 0;
    if (skipped_ref) {
        char lim[48] = "2048^3";
        if (tb_ref_cost(b.ops) > 1)
            snprintf(lim, sizeof lim, "2048^3 / %d (long double)", tb_ref_cost(b.ops));
        printf("(no reference above %s multiply-adds: it would take minutes; "
               "--check-all asks for it)\n", lim);
    }
    if (b.reps < 2)
        printf("(one run each: no range, so no ratio can be told from noise; --reps 5 or more)\n");
    else if (b.noise)
        printf("(noise: the series' range of %ld runs overlaps OpenBLAS's, so the ratio is "
               "inside the run-to-run spread)\n", b.reps);
    if (!b.gpu.present && b.ran[TB_SHIM])
        printf("(no GPU: the shim forwarded every call to OpenBLAS; its ratio is the shim's "
               "cost and noise, not a GPU's)\n");
    if (cf)
        fclose(cf);
    if (rc == 0 && b.csv && !b.tmpcsv[0])
        fprintf(stderr, "tiledblas: bench: wrote %s\n", b.csv);
    if (rc == 0)
        rc = tb_bench_plot(&b);
    tb_bench_cleanup(&b);
    return rc;
}
