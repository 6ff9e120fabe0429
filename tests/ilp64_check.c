/* tests/ilp64_check.c - a program on an ILP64 BLAS (64-bit integers), as
 * Debian's libopenblas64, libblas64 and libblis64 build it: random gemm,
 * syrk and trsm calls in single and double precision through CBLAS and
 * Fortran names, every layout, transpose, side, uplo and diag, padded
 * leading dimensions, alpha and beta 0 too, each checked against a long
 * double reference. The names are found at run time (dlsym), so that a
 * preloaded library answers them first:
 *   --names plain     cblas_dgemm, dgemm_ (the ILP64 BLAS it is linked to)
 *   --names suffix64  cblas_dgemm64_, dgemm_64_ (tests/suffix64_blas.c)
 * --illegal makes illegal calls only (the BLAS reports them); --wide makes
 * legal calls with a size past 2^31 and nothing to do (gemm's M with N = K
 * = 0, syrk's K with N = 0: nothing reported). Prints "N passed, N
 * failed"; exit 1 on a wrong result. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t blasint;
enum { ROW = 101, COL = 102, NOTRANS = 111, TRANS = 112, CONJTRANS = 113 };

typedef void (*cblas_s_fn)(int, int, int, blasint, blasint, blasint, float, const float *,
                           blasint, const float *, blasint, float, float *, blasint);
typedef void (*cblas_d_fn)(int, int, int, blasint, blasint, blasint, double, const double *,
                           blasint, const double *, blasint, double, double *, blasint);
typedef void (*f77_s_fn)(const char *, const char *, const blasint *, const blasint *,
                         const blasint *, const float *, const float *, const blasint *,
                         const float *, const blasint *, const float *, float *, const blasint *,
                         size_t, size_t);
typedef void (*f77_d_fn)(const char *, const char *, const blasint *, const blasint *,
                         const blasint *, const double *, const double *, const blasint *,
                         const double *, const blasint *, const double *, double *,
                         const blasint *, size_t, size_t);

static cblas_s_fn cs;
static cblas_d_fn cd;
static f77_s_fn fs;
static f77_d_fn fd;
static unsigned long long rng = 88172645463325252ull;

static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int irand(int lo, int hi) { return lo + (int)(next() % (unsigned long long)(hi - lo + 1)); }
static double urand(void) { return (double)(next() >> 11) / 9007199254740992.0 * 2.0 - 1.0; }

static void *need(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f) {
        fprintf(stderr, "ilp64_check: %s not found\n", name);
        exit(2);
    }
    return f;
}

/* Element (i, j) of an m x n matrix stored in `layout` with stride ld. */
static size_t at(int layout, size_t i, size_t j, size_t ld)
{
    return layout == ROW ? i * ld + j : j * ld + i;
}

/* One random call; returns 1 when its result is within bounds. */
static int one_call(int dbl, int fortran, int layout, int ta, int tb)
{
    const int m = irand(1, 300), n = irand(1, 300), k = irand(1, 200);
    const int ar = ta == NOTRANS ? m : k, ac = ta == NOTRANS ? k : m;   /* op(A) is m x k */
    const int br = tb == NOTRANS ? k : n, bc = tb == NOTRANS ? n : k;
    const int lda = (layout == ROW ? ac : ar) + irand(0, 3);
    const int ldb = (layout == ROW ? bc : br) + irand(0, 3);
    const int ldc = (layout == ROW ? n : m) + irand(0, 3);
    const size_t na = (size_t)lda * (layout == ROW ? ar : ac);
    const size_t nb = (size_t)ldb * (layout == ROW ? br : bc);
    const size_t nc = (size_t)ldc * (layout == ROW ? m : n);
    const double alphas[] = {1.0, -0.75, 0.0}, betas[] = {0.0, 1.0, 0.5};
    const double alpha = alphas[irand(0, 2)], beta = betas[irand(0, 2)];
    double *A = malloc(na * 8), *B = malloc(nb * 8), *C = malloc(nc * 8), *C0 = malloc(nc * 8);
    for (size_t i = 0; i < na; i++) A[i] = urand();
    for (size_t i = 0; i < nb; i++) B[i] = urand();
    for (size_t i = 0; i < nc; i++) C0[i] = beta == 0.0 ? NAN : urand();   /* beta 0 reads no C */
    float *As = malloc(na * 4), *Bs = malloc(nb * 4), *Cs = malloc(nc * 4);
    for (size_t i = 0; i < na; i++) As[i] = (float)(A[i] = (float)A[i]);
    for (size_t i = 0; i < nb; i++) Bs[i] = (float)(B[i] = (float)B[i]);
    for (size_t i = 0; i < nc; i++) Cs[i] = (float)(C[i] = C0[i] = (float)C0[i]);
    const blasint M = m, N = n, K = k, LDA = lda, LDB = ldb, LDC = ldc;
    const char *tc[] = {"N", "T", "C"};
    const char *fa = tc[ta - NOTRANS], *fb = tc[tb - NOTRANS];
    if (dbl && fortran)
        fd(fa, fb, &M, &N, &K, &alpha, A, &LDA, B, &LDB, &beta, C, &LDC, 1, 1);
    else if (dbl)
        cd(layout, ta, tb, M, N, K, alpha, A, LDA, B, LDB, beta, C, LDC);
    else if (fortran) {
        const float af = (float)alpha, bf = (float)beta;
        fs(fa, fb, &M, &N, &K, &af, As, &LDA, Bs, &LDB, &bf, Cs, &LDC, 1, 1);
    } else
        cs(layout, ta, tb, M, N, K, (float)alpha, As, LDA, Bs, LDB, (float)beta, Cs, LDC);
    const double eps = dbl ? 0x1p-52 : 0x1p-23;
    int ok = 1;
    for (int i = 0; i < m && ok; i++)
        for (int j = 0; j < n && ok; j++) {
            long double s = 0, mag = 0;
            for (int l = 0; l < k; l++) {
                const double a = ta == NOTRANS ? A[at(layout, i, l, lda)] : A[at(layout, l, i, lda)];
                const double b = tb == NOTRANS ? B[at(layout, l, j, ldb)] : B[at(layout, j, l, ldb)];
                s += (long double)a * b;
                mag += fabsl((long double)a * b);
            }
            const double c0 = C0[at(layout, i, j, ldc)];
            long double ref = alpha * s, bound = fabs(alpha) * mag;
            if (beta != 0.0) {
                ref += beta * (long double)c0;
                bound += fabs(beta * c0);
            }
            const double got = dbl ? C[at(layout, i, j, ldc)] : Cs[at(layout, i, j, ldc)];
            if (!(fabsl(got - ref) <= 2.0L * (k + 2) * eps * bound + 1e-300)) {
                printf("wrong: %s %s %s%s m=%d n=%d k=%d alpha=%g beta=%g: C(%d,%d) = %.17g, "
                       "want %.17Lg\n", dbl ? "double" : "single", fortran ? "fortran" : "cblas",
                       fa, fb, m, n, k, alpha, beta, i, j, got, ref);
                ok = 0;
            }
        }
    free(A); free(B); free(C); free(C0); free(As); free(Bs); free(Cs);
    return ok;
}

/* syrk and trsm, called through these types, in either precision (the
 * scalars by value for CBLAS: one type per precision). */
typedef void (*cblas_ssyrk_fn)(int, int, int, blasint, blasint, float, const float *, blasint,
                               float, float *, blasint);
typedef void (*cblas_dsyrk_fn)(int, int, int, blasint, blasint, double, const double *, blasint,
                               double, double *, blasint);
typedef void (*f77_syrk_fn)(const char *, const char *, const blasint *, const blasint *,
                            const void *, const void *, const blasint *, const void *, void *,
                            const blasint *, size_t, size_t);
typedef void (*cblas_strsm_fn)(int, int, int, int, int, blasint, blasint, float, const float *,
                               blasint, float *, blasint);
typedef void (*cblas_dtrsm_fn)(int, int, int, int, int, blasint, blasint, double,
                               const double *, blasint, double *, blasint);
typedef void (*f77_trsm_fn)(const char *, const char *, const char *, const char *,
                            const blasint *, const blasint *, const void *, const void *,
                            const blasint *, void *, const blasint *, size_t, size_t, size_t,
                            size_t);
static void *syrk_c[2], *syrk_f[2], *trsm_c[2], *trsm_f[2];   /* [dbl] */

enum { UPPER = 121, LOWER = 122, NONUNIT = 131, UNIT = 132, LEFT = 141, RIGHT = 142 };

/* An m x n matrix in `layout` with stride ld, as doubles of the call's
 * precision (rounded to float for single), and its copy in the call's type
 * (x for single: a float copy). */
static double *matrix(int dbl, int layout, int m, int n, int ld, float **x)
{
    const size_t size = (size_t)ld * (layout == ROW ? m : n);
    double *a = malloc(size * 8);
    *x = malloc(size * 4);
    for (size_t i = 0; i < size; i++) {
        a[i] = urand();
        if (!dbl)
            a[i] = (float)a[i];
        (*x)[i] = (float)a[i];
    }
    return a;
}

/* C = alpha op(A) op(A)^T + beta C on the uplo triangle; the other stays. */
static int one_syrk(int dbl, int fortran, int layout, int uplo, int trans)
{
    const int n = irand(1, 90), k = irand(1, 70), nt = trans == NOTRANS;
    const int ar = nt ? n : k, ac = nt ? k : n;                /* A is ar x ac */
    const int lda = (layout == ROW ? ac : ar) + irand(0, 3), ldc = n + irand(0, 3);
    const double alphas[] = {1.0, -0.75, 0.0}, betas[] = {0.0, 1.0, 0.5};
    const double alpha = alphas[irand(0, 2)], beta = betas[irand(0, 2)];
    float *As, *Cs;
    double *A = matrix(dbl, layout, ar, ac, lda, &As), *C = matrix(dbl, layout, n, n, ldc, &Cs);
    const size_t nc = (size_t)ldc * n;
    double *C0 = malloc(nc * 8);
    memcpy(C0, C, nc * 8);
    const blasint N = n, K = k, LDA = lda, LDC = ldc;
    const char *fu = uplo == UPPER ? "U" : "L", *ft = trans == NOTRANS ? "N" : trans == TRANS ? "T" : "C";
    const float af = (float)alpha, bf = (float)beta;
    if (fortran)
        ((f77_syrk_fn)syrk_f[dbl])(fu, ft, &N, &K, dbl ? (const void *)&alpha : &af, dbl ? (const void *)A : As,
                                   &LDA, dbl ? (const void *)&beta : &bf, dbl ? (void *)C : Cs, &LDC, 1, 1);
    else if (dbl)
        ((cblas_dsyrk_fn)syrk_c[1])(layout, uplo, trans, N, K, alpha, A, LDA, beta, C, LDC);
    else
        ((cblas_ssyrk_fn)syrk_c[0])(layout, uplo, trans, N, K, af, As, LDA, bf, Cs, LDC);
    const double eps = dbl ? 0x1p-52 : 0x1p-23;
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        for (int j = 0; j < n && ok; j++) {
            const size_t ij = at(layout, (size_t)i, (size_t)j, (size_t)ldc);
            const double got = dbl ? C[ij] : Cs[ij];
            if (uplo == UPPER ? i > j : i < j) {
                ok = got == C0[ij];
                if (!ok)
                    printf("wrong: syrk changed C(%d,%d) outside its triangle\n", i, j);
                continue;
            }
            long double s = 0, mag = 0;
            for (int l = 0; l < k; l++) {
                const double a = nt ? A[at(layout, i, l, lda)] : A[at(layout, l, i, lda)];
                const double b = nt ? A[at(layout, j, l, lda)] : A[at(layout, l, j, lda)];
                s += (long double)a * b;
                mag += fabsl((long double)a * b);
            }
            long double ref = alpha * s, bound = fabs(alpha) * mag;
            if (beta != 0.0) {
                ref += beta * (long double)C0[ij];
                bound += fabs(beta * C0[ij]);
            }
            if (!(fabsl(got - ref) <= 2.0L * (k + 2) * eps * bound + 1e-300)) {
                printf("wrong: %s %s syrk %s%s n=%d k=%d alpha=%g beta=%g: C(%d,%d) = %.17g, "
                       "want %.17Lg\n", dbl ? "double" : "single", fortran ? "fortran" : "cblas",
                       fu, ft, n, k, alpha, beta, i, j, got, ref);
                ok = 0;
            }
        }
    free(A); free(As); free(C); free(Cs); free(C0);
    return ok;
}

/* op(A)(i, l) of a triangular A (uplo, diag). */
static long double tri_op(const double *A, int layout, int lda, int uplo, int transa, int diag,
                          int i, int l)
{
    const int r = transa == NOTRANS ? i : l, c = transa == NOTRANS ? l : i;   /* A(r, c) */
    if (r == c && diag == UNIT)
        return 1.0L;
    if (uplo == UPPER ? r > c : r < c)
        return 0.0L;
    return A[at(layout, (size_t)r, (size_t)c, (size_t)lda)];
}

/* Solves op(A) X = alpha B (left) or X op(A) = alpha B (right) for X in
 * B, A triangular (uplo, diag): the residual is checked in long double.
 * What the call must not read (the other triangle, a unit diagonal) holds
 * 1e3, so that reading it would show. */
static int one_trsm(int dbl, int fortran, int layout, int side, int uplo, int transa, int diag)
{
    const int m = irand(1, 70), n = irand(1, 70), ka = side == LEFT ? m : n;
    const int lda = ka + irand(0, 3), ldb = (layout == ROW ? n : m) + irand(0, 3);
    const double alphas[] = {1.0, -0.75, 0.0};
    const double alpha = alphas[irand(0, 2)];
    float *As, *Bs;
    double *A = matrix(dbl, layout, ka, ka, lda, &As), *B = matrix(dbl, layout, m, n, ldb, &Bs);
    for (int i = 0; i < ka; i++)
        for (int j = 0; j < ka; j++) {
            const size_t ij = at(layout, (size_t)i, (size_t)j, (size_t)lda);
            const int inside = uplo == UPPER ? i <= j : i >= j;
            double v = A[ij] / ka;                                   /* well conditioned */
            if (i == j)
                v = diag == UNIT ? 1e3 : 1.0 + fabs(A[ij]);
            else if (!inside)
                v = 1e3;
            A[ij] = dbl ? v : (float)v;
            As[ij] = (float)A[ij];
        }
    const size_t nb = (size_t)ldb * (layout == ROW ? m : n);
    double *B0 = malloc(nb * 8);
    memcpy(B0, B, nb * 8);
    const blasint M = m, N = n, LDA = lda, LDB = ldb;
    const char *fs = side == LEFT ? "L" : "R", *fu = uplo == UPPER ? "U" : "L";
    const char *ft = transa == NOTRANS ? "N" : transa == TRANS ? "T" : "C", *fd = diag == UNIT ? "U" : "N";
    const float af = (float)alpha;
    if (fortran)
        ((f77_trsm_fn)trsm_f[dbl])(fs, fu, ft, fd, &M, &N, dbl ? (const void *)&alpha : &af,
                                   dbl ? (const void *)A : As, &LDA, dbl ? (void *)B : Bs, &LDB, 1, 1, 1, 1);
    else if (dbl)
        ((cblas_dtrsm_fn)trsm_c[1])(layout, side, uplo, transa, diag, M, N, alpha, A, LDA, B, LDB);
    else
        ((cblas_strsm_fn)trsm_c[0])(layout, side, uplo, transa, diag, M, N, af, As, LDA, Bs, LDB);
    const double eps = dbl ? 0x1p-52 : 0x1p-23;
    int ok = 1;
    for (int i = 0; i < m && ok; i++)
        for (int j = 0; j < n && ok; j++) {
            long double s = 0, mag = 0;
            for (int l = 0; l < ka; l++) {
                const size_t x = side == LEFT ? at(layout, l, j, ldb) : at(layout, i, l, ldb);
                const long double xv = dbl ? B[x] : Bs[x];
                const long double a = side == LEFT ? tri_op(A, layout, lda, uplo, transa, diag, i, l)
                                                   : tri_op(A, layout, lda, uplo, transa, diag, l, j);
                s += a * xv;
                mag += fabsl(a * xv);
            }
            const size_t ij = at(layout, (size_t)i, (size_t)j, (size_t)ldb);
            const long double want = alpha * (long double)B0[ij];
            if (!(fabsl(s - want) <= 8.0L * (ka + 2) * eps * (mag + fabsl(want)) + 1e-300)) {
                printf("wrong: %s %s trsm %s%s%s%s m=%d n=%d alpha=%g: row %d col %d: op(A) X "
                       "gives %.17Lg, want %.17Lg\n", dbl ? "double" : "single",
                       fortran ? "fortran" : "cblas", fs, fu, ft, fd, m, n, alpha, i, j, s, want);
                ok = 0;
            }
        }
    free(A); free(As); free(B); free(Bs); free(B0);
    return ok;
}

int main(int argc, char **argv)
{
    const char *names = "plain";
    int illegal = 0, wide = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--names") && i + 1 < argc) names = argv[++i];
        else if (!strcmp(argv[i], "--illegal")) illegal = 1;
        else if (!strcmp(argv[i], "--wide")) wide = 1;
        else { fprintf(stderr, "usage: ilp64_check [--names plain|suffix64] [--illegal|--wide]\n"); return 2; }
    }
    const int suffix = !strcmp(names, "suffix64");
    cs = (cblas_s_fn)need(suffix ? "cblas_sgemm64_" : "cblas_sgemm");
    cd = (cblas_d_fn)need(suffix ? "cblas_dgemm64_" : "cblas_dgemm");
    fs = (f77_s_fn)need(suffix ? "sgemm_64_" : "sgemm_");
    fd = (f77_d_fn)need(suffix ? "dgemm_64_" : "dgemm_");
    for (int dbl = 0; dbl < 2; dbl++) {
        char name[32];
        const char x = dbl ? 'd' : 's';
        snprintf(name, sizeof name, suffix ? "cblas_%csyrk64_" : "cblas_%csyrk", x);
        syrk_c[dbl] = need(name);
        snprintf(name, sizeof name, suffix ? "%csyrk_64_" : "%csyrk_", x);
        syrk_f[dbl] = need(name);
        snprintf(name, sizeof name, suffix ? "cblas_%ctrsm64_" : "cblas_%ctrsm", x);
        trsm_c[dbl] = need(name);
        snprintf(name, sizeof name, suffix ? "%ctrsm_64_" : "%ctrsm_", x);
        trsm_f[dbl] = need(name);
    }
    if (illegal) {
        /* LDC < M, then M < 0: the BLAS's own report, once each. */
        double a[4] = {0}, b[4] = {0}, c[4] = {0}, one = 1.0;
        const blasint two = 2, one_i = 1, minus = -3;
        fd("N", "N", &two, &two, &two, &one, a, &two, b, &two, &one, c, &one_i, 1, 1);
        fd("N", "N", &minus, &two, &two, &one, a, &two, b, &two, &one, c, &two, 1, 1);
        cd(COL, NOTRANS, NOTRANS, 2, 2, 2, 1.0, a, 2, b, 2, 1.0, c, 1);
        /* dsyrk_ with LDC < N, cblas_dtrsm row-major with ldb < N */
        ((f77_syrk_fn)syrk_f[1])("U", "N", &two, &two, &one, a, &two, &one, c, &one_i, 1, 1);
        ((cblas_dtrsm_fn)trsm_c[1])(ROW, LEFT, UPPER, NOTRANS, NONUNIT, 2, 2, 1.0, a, 2, b, 1);
        printf("illegal calls made\n");
        return 0;
    }
    if (wide) {
        /* M = 2^31 + 5, N = K = 0: legal for an ILP64 BLAS (LDA and LDC at
         * least M), and a no-op; read at 32 bits M would be negative. */
        double a[1] = {0}, c[1] = {7.0}, one = 1.0;
        const blasint M = ((blasint)1 << 31) + 5, Z = 0;
        fd("N", "N", &M, &Z, &Z, &one, a, &M, a, &M, &one, c, &M, 1, 1);
        cd(COL, NOTRANS, NOTRANS, M, 0, 0, 1.0, a, M, a, 1, 1.0, c, M);
        /* syrk: N = 0, K = 2^31 + 5 (A is N x K, LDA >= 1) */
        const blasint one_i = 1;
        ((f77_syrk_fn)syrk_f[1])("U", "N", &Z, &M, &one, a, &one_i, &one, c, &one_i, 1, 1);
        ((cblas_dsyrk_fn)syrk_c[1])(COL, UPPER, NOTRANS, 0, M, 1.0, a, 1, 1.0, c, 1);
        printf("wide calls made, c = %g\n", c[0]);
        return c[0] == 7.0 ? 0 : 1;
    }
    int passed = 0, failed = 0;
    const int layouts[] = {ROW, COL}, trans[] = {NOTRANS, TRANS, CONJTRANS};
    for (int dbl = 0; dbl < 2; dbl++)
        for (int fortran = 0; fortran < 2; fortran++)
            for (int l = 0; l < (fortran ? 1 : 2); l++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        for (int rep = 0; rep < 2; rep++) {
                            const int layout = fortran ? COL : layouts[l];
                            if (one_call(dbl, fortran, layout, trans[a], trans[b]))
                                passed++;
                            else
                                failed++;
                        }
    const int uplos[] = {UPPER, LOWER}, sides[] = {LEFT, RIGHT}, diags[] = {NONUNIT, UNIT};
    for (int dbl = 0; dbl < 2; dbl++)
        for (int fortran = 0; fortran < 2; fortran++)
            for (int l = 0; l < (fortran ? 1 : 2); l++)
                for (int u = 0; u < 2; u++)
                    for (int t = 0; t < 3; t++) {
                        const int layout = fortran ? COL : layouts[l];
                        if (one_syrk(dbl, fortran, layout, uplos[u], trans[t]))
                            passed++;
                        else
                            failed++;
                        for (int sd = 0; sd < 2; sd++)
                            for (int d = 0; d < 2; d++) {
                                if (one_trsm(dbl, fortran, layout, sides[sd], uplos[u], trans[t], diags[d]))
                                    passed++;
                                else
                                    failed++;
                            }
                    }
    printf("ilp64_check (%s names): %d passed, %d failed\n", names, passed, failed);
    return failed ? 1 : 0;
}
