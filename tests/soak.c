/* tests/soak.c - many mixed calls in one process (sizes, layouts,
 * transposes, alpha/beta), a sample of them checked against float64, with
 * host memory (RSS) and, under the preload, device memory printed after a
 * warm-up and at the end. Fails when results are wrong or memory grows.
 * Usage: soak [--calls N] [--max-dim D] [--big-every K] */
#define _GNU_SOURCE
#include <cblas.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long rng = 12345;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng >> 33) % n;
}

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

typedef int (*mem_fn)(size_t *, size_t *);

static void report(const char *when, int calls, long *rss, size_t *held)
{
    mem_fn mem = (mem_fn)dlsym(RTLD_DEFAULT, "tiledblas_memory");
    size_t h = 0, fr = 0;
    int have = mem && mem(&h, &fr) == 0;
    *rss = rss_kib();
    *held = h;
    if (have)
        printf("soak: %s (%d calls): host RSS %ld KiB; device: library holds %.1f MiB, %.1f MiB free\n",
               when, calls, *rss, h / 1048576.0, fr / 1048576.0);
    else
        printf("soak: %s (%d calls): host RSS %ld KiB; device: GPU path not started\n", when, calls, *rss);
}

int main(int argc, char **argv)
{
    int calls = 10000, max_dim = 96, big_every = 500;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--calls")) calls = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-dim")) max_dim = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--big-every")) big_every = atoi(argv[i + 1]);
        else { fprintf(stderr, "usage: soak [--calls N] [--max-dim D] [--big-every K]\n"); return 2; }
    }
    if (calls < 100 || max_dim < 1 || big_every < 1)
        return 2;
    const int cap = 640;   /* largest dimension of the occasional big call */
    float *A = malloc(sizeof(float) * cap * cap), *B = malloc(sizeof(float) * cap * cap);
    float *C = malloc(sizeof(float) * cap * cap), *C0 = malloc(sizeof(float) * cap * cap);
    for (int i = 0; i < cap * cap; i++) {
        A[i] = (float)rnd(2001) / 1000.0f - 1.0f;
        B[i] = (float)rnd(2001) / 1000.0f - 1.0f;
    }
    long rss0 = 0, rss1 = 0;
    size_t held0 = 0, held1 = 0;
    int failed = 0, checked = 0, warm = calls / 10;
    for (int c = 0; c < calls; c++) {
        if (c == warm)
            report("after warm-up", c, &rss0, &held0);
        int big = c % big_every == big_every - 1;
        int hi = big ? cap : max_dim;
        int m = 1 + (int)rnd((unsigned)hi), n = 1 + (int)rnd((unsigned)hi), k = 1 + (int)rnd((unsigned)hi);
        int row = rnd(2) == 0, ta = rnd(2), tb = rnd(2);
        float alpha = rnd(4) == 0 ? 0.0f : 1.5f, beta = rnd(3) == 0 ? 0.0f : 0.5f;
        /* Dense operands in the call's layout: op(A) is m x k, op(B) k x n. */
        int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
        int lda = row ? ac : ar, ldb = row ? bc : br, ldc = row ? n : m;
        for (int i = 0; i < m * n; i++)
            C[i] = C0[i] = beta == 0.0f ? NAN : (float)(i % 17) * 0.125f;
        cblas_sgemm(row ? CblasRowMajor : CblasColMajor, ta ? CblasTrans : CblasNoTrans,
                    tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        if (c % 20 != 0 && !big)
            continue;
        checked++;
        for (int i = 0; i < m && failed < 5; i++)
            for (int j = 0; j < n; j++) {
                double acc = 0.0, mag = 0.0;
                for (int p = 0; p < k && alpha != 0.0f; p++) {
                    size_t ai = row ? (ta ? (size_t)p * lda + i : (size_t)i * lda + p)
                                    : (ta ? (size_t)i * lda + p : (size_t)p * lda + i);
                    size_t bi = row ? (tb ? (size_t)j * ldb + p : (size_t)p * ldb + j)
                                    : (tb ? (size_t)p * ldb + j : (size_t)j * ldb + p);
                    acc += (double)A[ai] * B[bi];
                    mag += fabs((double)A[ai] * B[bi]);
                }
                size_t ci = row ? (size_t)i * ldc + j : (size_t)j * ldc + i;
                double c0 = beta == 0.0f ? 0.0 : C0[ci];
                double want = alpha * acc + beta * c0;
                double bound = 2.0 * (k + 2) * FLT_EPSILON * (fabs(alpha) * mag + fabs(beta * c0)) + 1e-30;
                if (!(fabs(C[ci] - want) <= bound)) {
                    fprintf(stderr, "soak: call %d (%dx%dx%d) wrong at (%d,%d): %g, want %g\n",
                            c, m, n, k, i, j, C[ci], want);
                    failed++;
                    break;
                }
            }
    }
    report("at the end", calls, &rss1, &held1);
    long grew = rss1 - rss0;
    printf("soak: %d calls, %d checked against float64, %d wrong; host RSS grew %ld KiB, "
           "library's device memory %+.1f MiB\n", calls, checked, failed, grew,
           ((double)held1 - (double)held0) / 1048576.0);
    int leak = grew > 32 * 1024 || held1 > held0 + ((size_t)64 << 20);
    if (leak)
        fprintf(stderr, "soak: memory grew\n");
    printf("%d passed, %d failed\n", failed || leak ? 0 : 1, failed || leak ? 1 : 0);
    free(A); free(B); free(C); free(C0);
    return failed || leak ? 1 : 0;
}
