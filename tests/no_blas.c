/* tests/no_blas.c - a program with no BLAS at all: linked to libtiledblas
 * alone (no_blas), or to nothing, finding cblas_sgemm and sgemm_ at run time
 * so that it runs only under LD_PRELOAD (no_blas_dl). Checks every call it
 * makes against a double-precision product of its own; prints, exits 0 when
 * all are right, 1 otherwise, 2 when it finds no sgemm to call.
 *   no_blas [calls [small]]  random calls: both interfaces, both layouts,
 *                     N/T/C, alpha, beta, padded leading dimensions, zero
 *                     sizes; NaN in C where beta = 0, in A and B where alpha
 *                     or k is 0 and in every gap between their rows;
 *                     sentinels around C and in its gaps; then (unless
 *                     "small") a timed and checked 512^3 call
 *   no_blas illegal   illegal calls: each one's report on stderr, exactly as
 *                     the BLAS words it, and C untouched */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ROW = 101, COL = 102, NT = 111, TR = 112, CT = 113 };

typedef void (*cblas_fn)(int, int, int, int, int, int, float, const float *, int,
                         const float *, int, float, float *, int);
typedef void (*fortran_fn)(const char *, const char *, const int *, const int *, const int *,
                           const float *, const float *, const int *, const float *,
                           const int *, const float *, float *, const int *, size_t, size_t);
static cblas_fn call_cblas;
static fortran_fn call_fortran;

#ifdef NO_BLAS_DLSYM
static int resolve(void)
{
    call_cblas = (cblas_fn)dlsym(RTLD_DEFAULT, "cblas_sgemm");
    call_fortran = (fortran_fn)dlsym(RTLD_DEFAULT, "sgemm_");
    return call_cblas && call_fortran ? 0 : -1;
}
#else
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
static int resolve(void)
{
    call_cblas = cblas_sgemm;
    call_fortran = sgemm_;
    return 0;
}
#endif

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static int pick(int n) { return (int)(next() % (unsigned)n); }
static float uniform(void) { return (float)(next() % 20001u) / 10000.0f - 1.0f; }

#define GUARD 16                 /* sentinel elements before and after C */
static const float SENTINEL = -7777.25f;

typedef struct {
    int fortran, layout, ta, tb;  /* ta, tb: NT, TR or CT */
    char fta, ftb;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
} gemm_case;

/* Rows and columns of X as stored: column-major X (r x c) is stored as
 * c rows of r. `stored_rows` lines of `ld`, `used` of each one used. */
static void storage(int layout, int rows, int cols, int *stored_rows, int *used)
{
    *stored_rows = layout == ROW ? rows : cols;
    *used = layout == ROW ? cols : rows;
}

/* element (i, j) of the matrix X (rows x cols as the caller sees it) */
static size_t at(int layout, int ld, int i, int j)
{
    return layout == ROW ? (size_t)i * ld + j : (size_t)j * ld + i;
}

static void print_case(const char *what, const gemm_case *g)
{
    printf("FAIL %s: %s %s %c%c m=%d n=%d k=%d alpha=%g lda=%d ldb=%d beta=%g ldc=%d\n", what,
           g->fortran ? "sgemm_" : "cblas_sgemm", g->layout == ROW ? "RowMajor" : "ColMajor",
           g->fortran ? g->fta : "NTC"[g->ta - NT], g->fortran ? g->ftb : "NTC"[g->tb - NT],
           g->m, g->n, g->k, g->alpha, g->lda, g->ldb, g->beta, g->ldc);
}

/* Runs one case; returns 0 when C is right and nothing outside it changed. */
static int run_case(const gemm_case *g)
{
    const int lay = g->layout;
    const int ar = g->ta == NT ? g->m : g->k, ac = g->ta == NT ? g->k : g->m;   /* A as stored */
    const int br = g->tb == NT ? g->k : g->n, bc = g->tb == NT ? g->n : g->k;
    int as, au, bs, bu, cs, cu;
    storage(lay, ar, ac, &as, &au);
    storage(lay, br, bc, &bs, &bu);
    storage(lay, g->m, g->n, &cs, &cu);
    size_t na = (size_t)(as > 0 ? as : 1) * g->lda, nb = (size_t)(bs > 0 ? bs : 1) * g->ldb;
    size_t nc = (size_t)(cs > 0 ? cs : 1) * g->ldc;
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
    float *Cbuf = malloc((nc + 2 * GUARD) * sizeof *Cbuf), *C = Cbuf + GUARD;
    float *C0 = malloc(nc * sizeof *C0);
    double *ref = malloc(((size_t)g->m * g->n + 1) * sizeof *ref);
    double *bound = malloc(((size_t)g->m * g->n + 1) * sizeof *bound);
    if (!A || !B || !Cbuf || !C0 || !ref || !bound) {
        printf("FAIL: out of memory\n");
        exit(1);
    }
    const int no_ab = g->alpha == 0.0f || g->k == 0;      /* A and B must not be read */
    /* Every gap between rows of A and B holds NaN: a read of one shows. */
    for (size_t i = 0; i < na; i++)
        A[i] = no_ab || (int)(i % g->lda) >= au ? NAN : uniform();
    for (size_t i = 0; i < nb; i++)
        B[i] = no_ab || (int)(i % g->ldb) >= bu ? NAN : uniform();
    for (size_t i = 0; i < nc + 2 * GUARD; i++)
        Cbuf[i] = SENTINEL;
    for (int i = 0; i < g->m; i++)
        for (int j = 0; j < g->n; j++)
            C[at(lay, g->ldc, i, j)] = g->beta == 0.0f ? NAN : uniform();
    memcpy(C0, C, nc * sizeof *C0);

    for (int i = 0; i < g->m; i++)
        for (int j = 0; j < g->n; j++) {
            double s = 0.0, sa = 0.0, c = C0[at(lay, g->ldc, i, j)];
            if (!no_ab)
                for (int l = 0; l < g->k; l++) {
                    double a = g->ta == NT ? A[at(lay, g->lda, i, l)] : A[at(lay, g->lda, l, i)];
                    double b = g->tb == NT ? B[at(lay, g->ldb, l, j)] : B[at(lay, g->ldb, j, l)];
                    s += a * b;
                    sa += fabs(a * b);
                }
            double r = no_ab ? 0.0 : (double)g->alpha * s;
            double e = no_ab ? 0.0 : fabs((double)g->alpha) * sa;
            if (g->beta != 0.0f) {
                r += (double)g->beta * c;
                e += fabs((double)g->beta * c);
            }
            ref[(size_t)i * g->n + j] = r;
            bound[(size_t)i * g->n + j] = (g->k + 2) * (double)FLT_EPSILON * e + 1e-30;
        }

    if (g->fortran)
        call_fortran(&g->fta, &g->ftb, &g->m, &g->n, &g->k, &g->alpha, A, &g->lda, B, &g->ldb,
                     &g->beta, C, &g->ldc, 1, 1);
    else
        call_cblas(lay, g->ta, g->tb, g->m, g->n, g->k, g->alpha, A, g->lda, B, g->ldb,
                   g->beta, C, g->ldc);

    int bad = 0;
    for (int i = 0; i < GUARD && !bad; i++)
        if (memcmp(&Cbuf[i], &SENTINEL, sizeof SENTINEL) ||
            memcmp(&C[nc + i], &SENTINEL, sizeof SENTINEL)) {
            print_case("written outside C", g);
            bad = 1;
        }
    for (size_t i = 0; i < nc && !bad; i++)
        if (((int)(i / g->ldc) >= cs || (int)(i % g->ldc) >= cu) &&
            memcmp(&C[i], &SENTINEL, sizeof SENTINEL)) {
            print_case("written in a gap between C's rows", g);
            bad = 1;
        }
    for (int i = 0; i < g->m && !bad; i++)
        for (int j = 0; j < g->n && !bad; j++) {
            double got = C[at(lay, g->ldc, i, j)], want = ref[(size_t)i * g->n + j];
            if (!(fabs(got - want) <= bound[(size_t)i * g->n + j])) {
                print_case("wrong result", g);
                printf("  C(%d,%d) = %.9g, want %.9g (bound %.3g)\n", i, j, got, want,
                       bound[(size_t)i * g->n + j]);
                bad = 1;
            }
        }
    free(A); free(B); free(Cbuf); free(C0); free(ref); free(bound);
    return bad;
}

static int trans_of(char *f)
{
    static const char chars[] = "NnTtCc";
    int t = pick(3);
    *f = chars[2 * t + pick(2)];
    return NT + t;
}

static float pick_scalar(int zero_ok)
{
    static const float fixed[] = {1.0f, -1.0f, 0.5f, 2.0f};
    int r = pick(8);
    if (r == 0 && zero_ok)
        return 0.0f;
    return r < 5 ? fixed[r % 4] : uniform() * 3.0f;
}

static int pick_dim(void)
{
    int r = pick(20);
    if (r == 0) return 0;
    if (r < 15) return 1 + pick(40);
    if (r < 19) return 41 + pick(120);
    return 161 + pick(200);            /* more than one block of K and of M */
}

static gemm_case random_case(void)
{
    gemm_case g;
    g.fortran = pick(3) == 0;
    g.layout = g.fortran || pick(2) ? COL : ROW;
    g.ta = trans_of(&g.fta);
    g.tb = trans_of(&g.ftb);
    g.m = pick_dim(); g.n = pick_dim(); g.k = pick_dim();
    g.alpha = pick_scalar(1);
    g.beta = pick(3) == 0 ? 0.0f : pick_scalar(0);
    if (pick(6) == 0)
        g.beta = pick(2) ? 1.0f : 0.0f;
    /* Leading dimensions: the least legal one, plus a padding of 0 to 5. */
    int ar = g.ta == NT ? g.m : g.k, ac = g.ta == NT ? g.k : g.m;
    int br = g.tb == NT ? g.k : g.n, bc = g.tb == NT ? g.n : g.k;
    int min_a = g.layout == ROW ? ac : ar, min_b = g.layout == ROW ? bc : br;
    int min_c = g.layout == ROW ? g.n : g.m;
    g.lda = (min_a > 1 ? min_a : 1) + (pick(2) ? pick(6) : 0);
    g.ldb = (min_b > 1 ? min_b : 1) + (pick(2) ? pick(6) : 0);
    g.ldc = (min_c > 1 ? min_c : 1) + (pick(2) ? pick(6) : 0);
    return g;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int correct(int calls, int big_too)
{
    int bad = 0;
    /* Shapes every run has: the edges, the zero sizes, a product wider than
     * one block of N, and beta = 0 over a C of NaN with alpha = 0. */
    static const gemm_case fixed[] = {
        {0, ROW, NT, NT, 'N', 'N', 1, 1, 1, 1, 1, 1, 1.0f, 0.0f},
        {0, ROW, NT, NT, 'N', 'N', 0, 5, 5, 5, 5, 5, 1.0f, 0.0f},
        {0, ROW, NT, NT, 'N', 'N', 5, 0, 5, 5, 1, 1, 1.0f, 0.0f},
        {0, ROW, NT, NT, 'N', 'N', 5, 5, 0, 1, 5, 5, 1.0f, 0.0f},
        {0, ROW, NT, NT, 'N', 'N', 5, 5, 0, 1, 5, 5, 1.0f, 0.5f},
        {0, COL, TR, TR, 'N', 'N', 7, 6, 5, 7, 8, 9, 0.0f, 0.0f},
        {0, COL, TR, CT, 'N', 'N', 7, 6, 5, 7, 8, 9, 0.0f, 1.0f},
        {1, COL, NT, NT, 'N', 'N', 0, 0, 0, 1, 1, 1, 1.0f, 0.0f},
        {1, COL, TR, TR, 't', 'c', 33, 17, 300, 300, 17, 40, -1.5f, 0.0f},
        {0, ROW, NT, TR, 'N', 'N', 3, 2100, 7, 7, 7, 2101, 1.0f, 2.0f},
        {0, COL, NT, NT, 'N', 'N', 100, 3, 600, 101, 600, 100, 1.0f, -1.0f},
    };
    for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        bad += run_case(&fixed[i]);
    for (int i = 0; i < calls; i++) {
        gemm_case g = random_case();
        bad += run_case(&g);
    }
    int total = calls + (int)(sizeof fixed / sizeof fixed[0]);
    if (bad) {
        printf("%d of %d calls wrong\n", bad, total);
        return 1;
    }
    printf("%d calls right\n", total);
    if (!big_too)
        return 0;

    /* 512^3, row-major NN: timed (the fastest of three) and checked. */
    gemm_case big = {0, ROW, NT, NT, 'N', 'N', 512, 512, 512, 512, 512, 512, 1.0f, 0.0f};
    const int n = 512;
    float *A = malloc(sizeof(float) * n * n), *B = malloc(sizeof(float) * n * n);
    float *C = malloc(sizeof(float) * n * n);
    for (int i = 0; i < n * n; i++) { A[i] = uniform(); B[i] = uniform(); }
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        call_cblas(ROW, NT, NT, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    printf("512^3 RowMajor NN: %.1f ms (%.2f GFLOP/s)\n", best * 1e3, 2.0 * n * n * n / best * 1e-9);
    free(A); free(B); free(C);
    if (run_case(&big)) {
        printf("512^3 wrong\n");
        return 1;
    }
    return 0;
}

/* ---- Illegal calls ---- */

typedef struct {
    int fortran;
    int a[9];                        /* layout, transa, transb, m, n, k, lda, ldb, ldc */
    char fta, ftb;
    const char *report;              /* exactly what the BLAS writes on stderr */
} illegal_case;

/* The reports as OpenBLAS words sgemm_'s and the reference CBLAS
 * cblas_sgemm's (Debian's libblas3): the number is the argument's position. */
static const illegal_case illegal[] = {
    {0, {100, NT, NT, 2, 2, 2, 2, 2, 2}, 0, 0,
     "Parameter 1 to routine cblas_sgemm was incorrect\nIllegal layout setting, 100\n"},
    {0, {ROW, 7, NT, 2, 2, 2, 2, 2, 2}, 0, 0,
     "Parameter 2 to routine cblas_sgemm was incorrect\nIllegal TransA setting, 7\n"},
    {0, {COL, NT, 0, 2, 2, 2, 2, 2, 2}, 0, 0,
     "Parameter 3 to routine cblas_sgemm was incorrect\nIllegal TransB setting, 0\n"},
    {0, {ROW, NT, NT, -1, 2, 2, 2, 2, 2}, 0, 0, "Parameter 4 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 2, -1, 2, 2, 2, 2}, 0, 0, "Parameter 5 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, -1, -1, 2, 2, 2, 2}, 0, 0, "Parameter 5 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 2, 2, -1, 2, 2, 2}, 0, 0, "Parameter 6 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, 2, 4, 4, 3, 4, 4}, 0, 0, "Parameter 9 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, 2, 4, 4, 3, 3, 4}, 0, 0, "Parameter 11 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, NT, NT, 2, 4, 4, 4, 4, 3}, 0, 0, "Parameter 14 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 4, 2, 2, 3, 2, 4}, 0, 0, "Parameter 9 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, TR, TR, 2, 2, 4, 3, 2, 2}, 0, 0, "Parameter 9 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 4, 2, 2, 4, 1, 4}, 0, 0, "Parameter 11 to routine cblas_sgemm  was incorrect\n"},
    {0, {COL, NT, NT, 4, 2, 2, 4, 2, 3}, 0, 0, "Parameter 14 to routine cblas_sgemm  was incorrect\n"},
    {0, {ROW, TR, TR, 0, 0, 0, 0, 0, 0}, 0, 0, "Parameter 11 to routine cblas_sgemm  was incorrect\n"},
    {1, {COL, 0, 0, 2, 2, 2, 2, 2, 2}, 'X', 'N', " ** On entry to SGEMM  parameter number  1 had an illegal value\n"},
    {1, {COL, 0, 0, 2, 2, 2, 2, 2, 2}, 'n', 'R', " ** On entry to SGEMM  parameter number  2 had an illegal value\n"},
    {1, {COL, 0, 0, -1, 2, 2, 2, 2, 2}, 'N', 'N', " ** On entry to SGEMM  parameter number  3 had an illegal value\n"},
    {1, {COL, 0, 0, 2, -1, 2, 2, 2, 2}, 'N', 'N', " ** On entry to SGEMM  parameter number  4 had an illegal value\n"},
    {1, {COL, 0, 0, 2, 2, -1, 2, 2, 2}, 'N', 'N', " ** On entry to SGEMM  parameter number  5 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 2, 3, 2, 4}, 'N', 'N', " ** On entry to SGEMM  parameter number  8 had an illegal value\n"},
    {1, {COL, 0, 0, 2, 2, 4, 3, 2, 2}, 'T', 'n', " ** On entry to SGEMM  parameter number  8 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 2, 4, 1, 4}, 'N', 'N', " ** On entry to SGEMM  parameter number 10 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 3, 4, 1, 4}, 'N', 'c', " ** On entry to SGEMM  parameter number 10 had an illegal value\n"},
    {1, {COL, 0, 0, 4, 2, 2, 4, 2, 3}, 'N', 'N', " ** On entry to SGEMM  parameter number 13 had an illegal value\n"},
    {1, {COL, 0, 0, 0, 0, 0, 0, 0, 0}, 'N', 'N', " ** On entry to SGEMM  parameter number  8 had an illegal value\n"},
};

/* What the call wrote on stderr, the library's own "tiledblas: " lines
 * left out: they go on to stderr (the shell test counts them). */
static void capture_stderr(const illegal_case *t, float *A, float *B, float *C, char *out, size_t len)
{
    char path[] = "/tmp/no_blas.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    out[0] = '\0';
    if (fd < 0 || saved < 0)
        return;
    unlink(path);
    dup2(fd, 2);
    const int *a = t->a;
    if (t->fortran)
        call_fortran(&t->fta, &t->ftb, &a[3], &a[4], &a[5], &(float){1.0f}, A, &a[6], B, &a[7],
                     &(float){0.0f}, C, &a[8], 1, 1);
    else
        call_cblas(a[0], a[1], a[2], a[3], a[4], a[5], 1.0f, A, a[6], B, a[7], 0.0f, C, a[8]);
    dup2(saved, 2);
    close(saved);
    FILE *f = fdopen(fd, "r");
    rewind(f);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "tiledblas: ", 11) == 0)
            fputs(line, stderr);
        else if (n + strlen(line) < len) {
            memcpy(out + n, line, strlen(line) + 1);
            n += strlen(line);
        }
    fclose(f);
}

static int illegal_calls(void)
{
    static float A[64], B[64], C[64], C0[64];
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        A[i] = B[i] = 1.0f;
        C[i] = C0[i] = SENTINEL;
    }
    const int n = (int)(sizeof illegal / sizeof illegal[0]);
    for (int i = 0; i < n; i++) {
        char got[1024];
        capture_stderr(&illegal[i], A, B, C, got, sizeof got);
        if (strcmp(got, illegal[i].report) != 0) {
            printf("FAIL illegal call %d: stderr was \"%s\", want \"%s\"\n", i, got, illegal[i].report);
            bad++;
        }
        if (memcmp(C, C0, sizeof C)) {
            printf("FAIL illegal call %d: C was written\n", i);
            bad++;
            memcpy(C, C0, sizeof C);
        }
    }
    /* and the program goes on: a legal call afterwards is right */
    C[0] = NAN;
    A[0] = 2.0f; B[0] = 3.0f;
    call_cblas(ROW, NT, NT, 1, 1, 1, 1.0f, A, 1, B, 1, 0.0f, C, 1);
    if (C[0] != 6.0f) {
        printf("FAIL: the legal call after the illegal ones gave %g, not 6\n", C[0]);
        bad++;
    }
    if (bad)
        return 1;
    printf("%d illegal calls reported as the BLAS does, C untouched\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    if (resolve() != 0) {
        printf("no cblas_sgemm / sgemm_ in this process (run it under LD_PRELOAD=libtiledblas.so)\n");
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "illegal") == 0)
        return illegal_calls();
    return correct(argc > 1 ? atoi(argv[1]) : 400, !(argc > 2 && strcmp(argv[2], "small") == 0));
}
