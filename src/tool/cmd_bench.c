/* src/tool/cmd_bench.c - `tiledblas bench`: for each size, OpenBLAS alone
 * (dlopen'ed), the shim end to end (cblas_sgemm through libtiledblas, auto
 * mode), the kernel alone on device buffers (CUDA events) and cuBLAS (dlopen
 * at run time, never linked): median time, GFLOP/s, ratio to OpenBLAS and the
 * error against a float64 reference. Table on stdout, progress on stderr.
 * Writes only the --csv and --plot files named; a CSV made just for --plot
 * lives in a private temporary directory, removed at the end. */
#define _GNU_SOURCE
#include "tool.h"
#include "tiledblas.h"
#include "tb_files.h"
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

/* The shim's entry point, from the libtiledblas this command is linked to. */
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int,
                 const float *, int, float, float *, int);
typedef void (*tb_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                            const float *, int, float, float *, int);
typedef int (*tb_cublas_create_fn)(void **);
typedef int (*tb_cublas_destroy_fn)(void *);
typedef int (*tb_cublas_sgemm_fn)(void *, int, int, int, int, int, const float *,
                                  const float *, int, const float *, int,
                                  const float *, float *, int);

static const char tb_bench_usage[] =
    "usage: tiledblas bench [--sizes LIST] [--shapes MxNxK,...] [--reps N]\n"
    "                       [--csv FILE] [--plot FILE.png|FILE.svg] [--check-all]\n"
    "For each size (square n x n x n; default 256,512,1024,2048) and shape,\n"
    "C = A*B (row-major, alpha 1, beta 0) with:\n"
    "  openblas  libopenblas.so.0 alone (its core is printed)\n"
    "  shim      cblas_sgemm through libtiledblas, TILEDBLAS_MODE=auto, host\n"
    "            arrays in and out (what a preloaded program sees)\n"
    "  kernel    tiledblas_sgemm_device on device buffers, CUDA events\n"
    "  cublas    cublasSgemm (fp32), loaded at run time when present\n"
    "Each: the median of --reps runs (default 5) after one warm-up, GFLOP/s,\n"
    "the ratio to OpenBLAS, and the max and average abs error against a float64\n"
    "reference (only up to 2048^3 multiply-adds unless --check-all: it is slow).\n"
    "--csv writes series,size,gflops,m,n,k,median_s,max_abs,avg_abs; --plot\n"
    "draws GFLOP/s against size with gnuplot. Without a GPU the kernel and\n"
    "cublas columns read \"n/a (no GPU)\".\n";

enum { TB_OPENBLAS, TB_SHIM, TB_KERNEL, TB_CUBLAS, TB_NSERIES };
static const char *const tb_series[TB_NSERIES] = {"openblas", "shim", "kernel", "cublas"};

typedef struct tb_shape { int m, n, k; } tb_shape;

typedef struct tb_result {
    int ok;                   /* 1 measured; 0 n/a with why */
    const char *why;
    double median_s, max_abs, avg_abs;
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

static double tb_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, tb_cmp);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
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

/* C against the float64 reference. */
static void tb_errors(const float *C, const double *ref, size_t mn, tb_result *r)
{
    double mx = 0.0, sum = 0.0;
    for (size_t i = 0; i < mn; i++) {
        double d = fabs((double)C[i] - ref[i]);
        if (isnan(d)) d = INFINITY;
        mx = d > mx ? d : mx;
        sum += d;
    }
    r->max_abs = mx;
    r->avg_abs = mn ? sum / (double)mn : 0.0;
    r->checked = 1;
}

/* Times a host-array sgemm (OpenBLAS or the shim). */
static void tb_time_host(tb_sgemm_fn f, const tb_shape *s, const float *A, const float *B,
                         float *C, int reps, tb_result *r)
{
    double *t = malloc(sizeof *t * (size_t)reps);
    f(101, 111, 111, s->m, s->n, s->k, 1.0f, A, s->k, B, s->n, 0.0f, C, s->n);   /* warm-up */
    for (int i = 0; i < reps; i++) {
        double t0 = tb_tool_now();
        f(101, 111, 111, s->m, s->n, s->k, 1.0f, A, s->k, B, s->n, 0.0f, C, s->n);
        t[i] = tb_tool_now() - t0;
    }
    r->ok = 1;
    r->median_s = tb_median(t, reps);
    free(t);
}

typedef struct tb_gpu {
    int present;
    char why[160];
    tb_cublas_sgemm_fn sgemm;
    void *handle;             /* cublasHandle_t */
    char cublas_why[160];
} tb_gpu;

/* Times the kernel alone or cuBLAS on device buffers; C comes back to host. */
static void tb_time_device(int which, tb_gpu *g, const tb_shape *s, const float *A,
                           const float *B, float *C, int reps, tb_result *r)
{
    size_t sa = (size_t)s->m * s->k, sb = (size_t)s->k * s->n, sc = (size_t)s->m * s->n;
    float *dA = NULL, *dB = NULL, *dC = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = malloc(sizeof *t * (size_t)reps);
    const float one = 1.0f, zero = 0.0f;
    r->ok = 0;
    r->why = "n/a (CUDA error)";
    if (cudaMalloc((void **)&dA, sa * 4) || cudaMalloc((void **)&dB, sb * 4) ||
        cudaMalloc((void **)&dC, sc * 4) || cudaMemcpy(dA, A, sa * 4, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dB, B, sb * 4, cudaMemcpyHostToDevice) || cudaEventCreate(&e0) ||
        cudaEventCreate(&e1))
        goto out;
    for (int i = -1; i < reps; i++) {   /* i = -1: the warm-up */
        int bad;
        cudaEventRecord(e0, NULL);
        if (which == TB_KERNEL)
            bad = tiledblas_sgemm_device('N', 'N', s->m, s->n, s->k, 1.0f, dA, s->k, dB, s->n,
                                         0.0f, dC, s->n, NULL) != 0;
        else   /* row-major C = A B is column-major C^T = B^T A^T */
            bad = g->sgemm(g->handle, 0, 0, s->n, s->m, s->k, &one, dB, s->n, dA, s->k,
                           &zero, dC, s->n) != 0;
        cudaEventRecord(e1, NULL);
        float ms = 0.0f;
        if (bad || cudaEventSynchronize(e1) || cudaEventElapsedTime(&ms, e0, e1))
            goto out;
        if (i >= 0)
            t[i] = ms * 1e-3;
    }
    if (cudaMemcpy(C, dC, sc * 4, cudaMemcpyDeviceToHost))
        goto out;
    r->ok = 1;
    r->median_s = tb_median(t, reps);
out:
    if (!r->ok)
        fprintf(stderr, "tiledblas: bench: %s failed: %s\n", tb_series[which],
                which == TB_KERNEL ? tiledblas_last_error() : cudaGetErrorString(cudaGetLastError()));
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free(t);
}

static void tb_gpu_open(tb_gpu *g)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(g->why, sizeof g->why, "%s", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
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
    g->sgemm = (tb_cublas_sgemm_fn)dlsym(h, "cublasSgemm_v2");
    if (!create || !g->sgemm || create(&g->handle) != 0) {
        g->sgemm = NULL;
        snprintf(g->cublas_why, sizeof g->cublas_why, "n/a (cublasCreate failed)");
    }
}

static void tb_print_row(const char *label, int series, const tb_result *r, double flops,
                         double base)
{
    if (!r->ok) {
        printf("%-16s %-9s %s\n", label, tb_series[series], r->why);
        return;
    }
    char err[64] = "(not checked)";
    if (r->checked)
        snprintf(err, sizeof err, "%12.3g %12.3g", r->max_abs, r->avg_abs);
    char ratio[16] = "-";
    if (base > 0.0)
        snprintf(ratio, sizeof ratio, "%.2fx", base / r->median_s);
    printf("%-16s %-9s %11.3f %11.2f %9s %s\n", label, tb_series[series], r->median_s * 1e3,
           flops / r->median_s * 1e-9, ratio, err);
}

/* What `bench` was asked to measure and where it writes. */
typedef struct tb_bench {
    tb_shape shapes[64];
    int nshapes, check_all;
    long reps;
    const char *csv, *plot;
    char tmpdir[4096], tmpcsv[4200];  /* the CSV made for --plot alone */
    tb_sgemm_fn openblas;
    tb_gpu gpu;
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
    b->openblas = ob ? (tb_sgemm_fn)dlsym(ob, "cblas_sgemm") : NULL;
    if (b->openblas) {
        char *(*core)(void) = (char *(*)(void))dlsym(ob, "openblas_get_corename");
        char *(*cfg)(void) = (char *(*)(void))dlsym(ob, "openblas_get_config");
        int (*thr)(void) = (int (*)(void))dlsym(ob, "openblas_get_num_threads");
        printf("OpenBLAS: %s; core %s, %d threads\n", cfg ? cfg() : "?", core ? core() : "?",
               thr ? thr() : 0);
    } else {
        printf("OpenBLAS: not found (libopenblas.so.0); its column reads n/a\n");
    }
    tb_gpu_open(&b->gpu);
    if (b->gpu.present) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, 0) == cudaSuccess)
            printf("GPU: %s, compute capability %d.%d\n", p.name, p.major, p.minor);
    } else {
        printf("GPU: none (%s): the kernel and cublas columns read n/a\n", b->gpu.why);
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
    fprintf(*cf, "series,size,gflops,m,n,k,median_s,max_abs,avg_abs\n");
    return 0;
}

static void tb_bench_cleanup(tb_bench *b)
{
    if (b->tmpcsv[0])
        unlink(b->tmpcsv);
    if (b->tmpdir[0])
        rmdir(b->tmpdir);
}

/* The float64 reference of C = A B (NULL when out of memory). */
static double *tb_bench_reference(const tb_shape *s, const float *A, const float *B)
{
    size_t sc = (size_t)s->m * s->n;
    double *ref = calloc(sc, sizeof *ref);
    double *row = malloc(sizeof *row * (size_t)s->n);
    for (int i = 0; ref && row && i < s->m; i++) {
        memset(row, 0, sizeof *row * (size_t)s->n);
        for (int p = 0; p < s->k; p++) {
            double a = A[(size_t)i * s->k + p];
            const float *b = B + (size_t)p * s->n;
            for (int j = 0; j < s->n; j++)
                row[j] += a * b[j];
        }
        memcpy(ref + (size_t)i * s->n, row, sizeof *row * (size_t)s->n);
    }
    free(row);
    return ref;
}

/* One shape: every series timed and checked, its rows printed and added to
 * the CSV. 0; -1 when out of memory; *skipped_ref set when no reference was
 * computed (too large without --check-all). */
static int tb_bench_shape(tb_bench *b, const tb_shape *s, FILE *cf, int *skipped_ref)
{
    size_t sa = (size_t)s->m * s->k, sb = (size_t)s->k * s->n, sc = (size_t)s->m * s->n;
    float *A = malloc(sa * 4), *B = malloc(sb * 4), *C = malloc(sc * 4);
    double *ref = NULL;
    uint64_t seed = 42;
    if (!A || !B || !C) {
        fprintf(stderr, "tiledblas: bench: out of memory at %dx%dx%d\n", s->m, s->n, s->k);
        free(A); free(B); free(C);
        return -1;
    }
    for (size_t i = 0; i < sa; i++) A[i] = (float)((tb_rng(&seed) >> 11) * 0x1p-53) * 2.0f - 1.0f;
    for (size_t i = 0; i < sb; i++) B[i] = (float)((tb_rng(&seed) >> 11) * 0x1p-53) * 2.0f - 1.0f;
    double flops = 2.0 * s->m * s->n * s->k;
    if (b->check_all || (double)s->m * s->n * s->k <= 2048.0 * 2048.0 * 2048.0) {
        fprintf(stderr, "tiledblas: bench: %dx%dx%d float64 reference...\n", s->m, s->n, s->k);
        ref = tb_bench_reference(s, A, B);
    } else {
        *skipped_ref = 1;
    }
    tb_result r[TB_NSERIES];
    memset(r, 0, sizeof r);
    const int reps = (int)b->reps;
    for (int x = 0; x < TB_NSERIES; x++) {
        fprintf(stderr, "tiledblas: bench: %dx%dx%d %s...\n", s->m, s->n, s->k, tb_series[x]);
        memset(C, 0, sc * 4);
        if (x == TB_OPENBLAS && b->openblas)
            tb_time_host(b->openblas, s, A, B, C, reps, &r[x]);
        else if (x == TB_OPENBLAS)
            r[x].why = "n/a (no libopenblas.so.0)";
        else if (x == TB_SHIM)
            tb_time_host(cblas_sgemm, s, A, B, C, reps, &r[x]);
        else if (!b->gpu.present)
            r[x].why = "n/a (no GPU)";
        else if (x == TB_CUBLAS && !b->gpu.sgemm)
            r[x].why = b->gpu.cublas_why;
        else
            tb_time_device(x, &b->gpu, s, A, B, C, reps, &r[x]);
        if (r[x].ok && ref)
            tb_errors(C, ref, sc, &r[x]);
    }
    char label[48];
    snprintf(label, sizeof label, "%dx%dx%d", s->m, s->n, s->k);
    double base = r[TB_OPENBLAS].ok ? r[TB_OPENBLAS].median_s : 0.0;
    for (int x = 0; x < TB_NSERIES; x++) {
        tb_print_row(x ? "" : label, x, &r[x], flops, base);
        if (cf && r[x].ok)
            fprintf(cf, "%s,%d,%.3f,%d,%d,%d,%.9f,%.6g,%.6g\n", tb_series[x],
                    s->m == s->n && s->n == s->k ? s->m
                    : (int)lround(cbrt((double)s->m * s->n * s->k)),
                    flops / r[x].median_s * 1e-9, s->m, s->n, s->k, r[x].median_s,
                    r[x].checked ? r[x].max_abs : NAN, r[x].checked ? r[x].avg_abs : NAN);
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
    int rc = tb_plot_csv(b->csv, b->plot, "sgemm GFLOP/s: OpenBLAS, libtiledblas, cuBLAS") != 0;
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
    printf("%-16s %-9s %11s %11s %9s %12s %12s\n", "m x n x k", "series", "median ms",
           "GFLOP/s", "vs OpenBLAS", "max abs err", "avg abs err");
    int skipped_ref = 0;
    for (int si = 0; si < b.nshapes && rc == 0; si++)
        rc = tb_bench_shape(&b, &b.shapes[si], cf, &skipped_ref) != 0;
    if (skipped_ref)
        printf("(no float64 reference above 2048^3 multiply-adds: it would take minutes; "
               "--check-all asks for it)\n");
    if (cf)
        fclose(cf);
    if (rc == 0 && b.csv && !b.tmpcsv[0])
        fprintf(stderr, "tiledblas: bench: wrote %s\n", b.csv);
    if (rc == 0)
        rc = tb_bench_plot(&b);
    tb_bench_cleanup(&b);
    return rc;
}
