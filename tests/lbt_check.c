/* tests/lbt_check.c - libtiledblas behind libblastrampoline (LBT), driven as
 * Julia drives it: LBT is opened, an ILP64 BLAS forwarded to it
 * (lbt_forward, clear), then libtiledblas over it (clear=0, what Julia's
 * BLAS.lbt_forward(path; clear=false) does); then level-3 calls in the four
 * precisions (gemm, syrk, trsm, and cblas_dgemm64_) by LBT's ILP64 names,
 * found with dlsym on LBT's handle as Julia's ccall finds them, each checked
 * against a long double reference; and the names LBT probes libraries with
 * (isamax, sdot, cdotc, zdotc) through LBT, checked too. Also checks where
 * LBT points: dgemm_64_ at libtiledblas, dpotrf_64_ (a name libtiledblas
 * does not export) still at the ILP64 BLAS.
 *   lbt_check LBT ILP64_BLAS LIBTILEDBLAS [global|local]
 * LIBTILEDBLAS "-": the same calls on the ILP64 BLAS alone.
 * global|local: how LBT itself is opened (RTLD_GLOBAL puts its trampolines
 * in every lookup's way). Prints "call NAME" for each level-3 call made,
 * then "lbt_check: N calls, N passed, N failed"; exit 0 when every check
 * passed, 1 otherwise, 2 when something could not be loaded. */
#define _GNU_SOURCE
#include <complex.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t blasint;
typedef long double _Complex lz;
enum { COL = 102, NOTRANS = 111, TRANS = 112 };
enum { LBT_ILP64 = 64 };

/* One precision: its letter, element size, whether complex, epsilon. */
typedef struct prec { char x; size_t size; int cplx; long double eps; } prec;
static const prec S = {'s', 4, 0, FLT_EPSILON}, D = {'d', 8, 0, DBL_EPSILON},
                  C = {'c', 8, 1, FLT_EPSILON}, Z = {'z', 16, 1, DBL_EPSILON};

static void *lbt;
static int calls, passed, failed;
static unsigned long long rng = 88172645463325252ull;

static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Element i of a buffer of precision p, as a long double complex. */
static lz get(const prec *p, const void *b, size_t i)
{
    switch (p->x) {
    case 's': return ((const float *)b)[i];
    case 'd': return ((const double *)b)[i];
    case 'c': return ((const float _Complex *)b)[i];
    default: return ((const double _Complex *)b)[i];
    }
}
static void put(const prec *p, void *b, size_t i, lz v)
{
    switch (p->x) {
    case 's': ((float *)b)[i] = (float)creall(v); break;
    case 'd': ((double *)b)[i] = (double)creall(v); break;
    case 'c': ((float _Complex *)b)[i] = (float _Complex)v; break;
    default: ((double _Complex *)b)[i] = (double _Complex)v; break;
    }
}
/* n random elements (complex ones with an imaginary part); diag > 0 adds
 * it to the diagonal of an n x n matrix of leading dimension ld. */
static void *matrix(const prec *p, size_t rows, size_t cols, size_t ld, double diag)
{
    void *b = malloc(ld * cols * p->size);
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < ld; i++) {
            const double re = urand(), im = p->cplx ? urand() : 0;
            put(p, b, i + j * ld, re + im * I + (i == j && i < rows ? diag : 0));
        }
    return b;
}
static void *scalar(const prec *p, lz v)
{
    static unsigned char s[4][16];
    static int next;
    void *b = s[next++ % 4];
    put(p, b, 0, p->cplx ? v : creall(v));
    return b;
}

static void *lbt_sym(const char *name)
{
    void *f = dlsym(lbt, name);
    if (!f) {
        printf("lbt_check: LBT has no %s\n", name);
        exit(2);
    }
    return f;
}

static void verdict(const char *name, long double worst)
{
    if (worst <= 1) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s: error %.3Lg times the bound\n", name, worst);
    }
}

/* op(A)(i, l) of a column-major A: trans 'N', 'T' or 'C'. */
static lz op(const prec *p, const void *a, size_t lda, char t, size_t i, size_t l)
{
    if (t == 'N')
        return get(p, a, i + l * lda);
    const lz v = get(p, a, l + i * lda);
    return t == 'C' ? conjl(v) : v;
}

typedef void (*gemm_fn)(const char *, const char *, const blasint *, const blasint *,
                        const blasint *, const void *, const void *, const blasint *,
                        const void *, const blasint *, const void *, void *, const blasint *,
                        size_t, size_t);
typedef void (*cblas_gemm_fn)(int, int, int, blasint, blasint, blasint, double, const void *,
                              blasint, const void *, blasint, double, void *, blasint);

/* C = alpha op(A) op(B) + beta C, m x n x k, by xgemm_64_ (or by
 * cblas_dgemm64_, column-major, when cblas is set). */
static void gemm(const prec *p, char ta, char tb, blasint m, blasint n, blasint k, int cblas)
{
    char name[32];
    snprintf(name, sizeof name, cblas ? "cblas_%cgemm64_" : "%cgemm_64_", p->x);
    const blasint lda = (ta == 'N' ? m : k) + 3, ldb = (tb == 'N' ? k : n) + 2, ldc = m + 1;
    void *a = matrix(p, 0, ta == 'N' ? k : m, lda, 0), *b = matrix(p, 0, tb == 'N' ? n : k, ldb, 0);
    void *c = matrix(p, 0, n, ldc, 0), *c0 = malloc(ldc * n * p->size);
    memcpy(c0, c, ldc * n * p->size);
    const lz alpha = 0.7L - 0.3L * I, beta = -0.4L + 0.2L * I;
    const lz al = p->cplx ? alpha : creall(alpha), be = p->cplx ? beta : creall(beta);
    printf("call %s\n", name);
    calls++;
    if (cblas)
        ((cblas_gemm_fn)lbt_sym(name))(COL, ta == 'N' ? NOTRANS : TRANS, tb == 'N' ? NOTRANS : TRANS,
                                       m, n, k, (double)creall(al), a, lda, b, ldb,
                                       (double)creall(be), c, ldc);
    else
        ((gemm_fn)lbt_sym(name))(&ta, &tb, &m, &n, &k, scalar(p, al), a, &lda, b, &ldb,
                                 scalar(p, be), c, &ldc, 1, 1);
    long double worst = 0;
    for (blasint j = 0; j < n; j++)
        for (blasint i = 0; i < m; i++) {
            lz s = 0;
            long double mag = 0;
            for (blasint l = 0; l < k; l++) {
                const lz t = op(p, a, lda, ta, i, l) * op(p, b, ldb, tb, l, j);
                s += t;
                mag += cabsl(t);
            }
            const lz c0ij = get(p, c0, i + j * ldc);
            const lz ref = al * s + be * c0ij;
            const long double bound = 4 * (k + 2) * p->eps * (cabsl(al) * mag + cabsl(be) * cabsl(c0ij)) + LDBL_MIN;
            const long double e = cabsl(get(p, c, i + j * ldc) - ref) / bound;
            worst = e > worst ? e : worst;
        }
    verdict(name, worst);
    free(a), free(b), free(c), free(c0);
}

typedef void (*syrk_fn)(const char *, const char *, const blasint *, const blasint *,
                        const void *, const void *, const blasint *, const void *, void *,
                        const blasint *, size_t, size_t);

/* C = alpha op(A) op(A)^T + beta C on the uplo triangle (op(A) n x k: A
 * itself for trans 'N', its transpose for 'T'); the other triangle stays
 * as it was. */
static void syrk(const prec *p, char uplo, char trans, blasint n, blasint k)
{
    char name[32];
    snprintf(name, sizeof name, "%csyrk_64_", p->x);
    const blasint lda = (trans == 'N' ? n : k) + 2, ldc = n + 3;
    void *a = matrix(p, 0, trans == 'N' ? k : n, lda, 0), *c = matrix(p, 0, n, ldc, 0);
    void *c0 = malloc(ldc * n * p->size);
    memcpy(c0, c, ldc * n * p->size);
    const lz al = p->cplx ? 1.1L + 0.2L * I : 1.1L, be = p->cplx ? 0.3L - 0.5L * I : 0.3L;
    printf("call %s\n", name);
    calls++;
    ((syrk_fn)lbt_sym(name))(&uplo, &trans, &n, &k, scalar(p, al), a, &lda, scalar(p, be), c,
                             &ldc, 1, 1);
    long double worst = 0;
    for (blasint j = 0; j < n; j++)
        for (blasint i = 0; i < n; i++) {
            const lz got = get(p, c, i + j * ldc), c0ij = get(p, c0, i + j * ldc);
            if (uplo == 'U' ? i > j : i < j) {
                if (got != c0ij)
                    worst = INFINITY;
                continue;
            }
            lz s = 0;
            long double mag = 0;
            for (blasint l = 0; l < k; l++) {
                const lz t = op(p, a, lda, trans, i, l) * op(p, a, lda, trans, j, l);
                s += t;
                mag += cabsl(t);
            }
            const long double bound = 4 * (k + 2) * p->eps * (cabsl(al) * mag + cabsl(be) * cabsl(c0ij)) + LDBL_MIN;
            const long double e = cabsl(got - (al * s + be * c0ij)) / bound;
            worst = e > worst ? e : worst;
        }
    verdict(name, worst);
    free(a), free(c), free(c0);
}

typedef void (*trsm_fn)(const char *, const char *, const char *, const char *, const blasint *,
                        const blasint *, const void *, const void *, const blasint *, void *,
                        const blasint *, size_t, size_t, size_t, size_t);

/* Solves op(A) X = alpha B (side 'L') or X op(A) = alpha B ('R') into B, m
 * x n; checked by the residual, op(A) X or X op(A) against alpha B, with A
 * read as the routine reads it (its uplo triangle, a unit diagonal for
 * diag 'U'). */
static void trsm(const prec *p, char side, char uplo, char ta, char diag, blasint m, blasint n)
{
    char name[32];
    snprintf(name, sizeof name, "%ctrsm_64_", p->x);
    const blasint na = side == 'L' ? m : n, lda = na + 2, ldb = m + 1;
    void *a = matrix(p, na, na, lda, na + 1.0), *b = matrix(p, 0, n, ldb, 0);
    void *b0 = malloc(ldb * n * p->size);
    memcpy(b0, b, ldb * n * p->size);
    const lz al = p->cplx ? 0.9L + 0.4L * I : 0.9L;
    printf("call %s\n", name);
    calls++;
    ((trsm_fn)lbt_sym(name))(&side, &uplo, &ta, &diag, &m, &n, scalar(p, al), a, &lda, b, &ldb,
                             1, 1, 1, 1);
    /* The triangular matrix as the routine reads it, then op() of it. */
    lz *t = calloc((size_t)(na * na), sizeof *t);
    for (blasint j = 0; j < na; j++)
        for (blasint i = 0; i < na; i++)
            if (i == j)
                t[i + j * na] = diag == 'U' ? 1 : get(p, a, i + j * lda);
            else if (uplo == 'U' ? i < j : i > j)
                t[i + j * na] = get(p, a, i + j * lda);
    long double worst = 0;
    for (blasint j = 0; j < n; j++)
        for (blasint i = 0; i < m; i++) {
            lz s = 0;
            long double mag = 0;
            for (blasint l = 0; l < na; l++) {
                const lz opa = side == 'L' ? (ta == 'N' ? t[i + l * na] : t[l + i * na])
                                           : (ta == 'N' ? t[l + j * na] : t[j + l * na]);
                const lz x = side == 'L' ? get(p, b, l + j * ldb) : get(p, b, i + l * ldb);
                const lz term = (ta == 'C' ? conjl(opa) : opa) * x;
                s += term;
                mag += cabsl(term);
            }
            const lz rhs = al * get(p, b0, i + j * ldb);
            const long double bound = 8 * (na + 2) * p->eps * (mag + cabsl(rhs)) + LDBL_MIN;
            const long double e = cabsl(s - rhs) / bound;
            worst = e > worst ? e : worst;
        }
    verdict(name, worst);
    free(a), free(b), free(b0), free(t);
}

/* The names LBT probes a library with, called through LBT: isamax (the
 * position of the largest |x|), sdot, cdotc and zdotc (conj(x) . y),
 * returned as gfortran returns them on x86-64. */
static void probes(void)
{
    enum { N = 37 };
    const blasint n = N, inc = 1;
    float xs[N], ys[N];
    float _Complex xc[N], yc[N];
    double _Complex xz[N], yz[N];
    for (int i = 0; i < N; i++) {
        xs[i] = (float)urand(), ys[i] = (float)urand();
        xc[i] = (float)urand() + (float)urand() * I, yc[i] = (float)urand() + (float)urand() * I;
        xz[i] = urand() + urand() * I, yz[i] = urand() + urand() * I;
    }
    xs[23] = -7.5f;   /* the largest |x|: Fortran position 24 */
    long double sd = 0, sdm = 0, scm = 0, szm = 0;
    lz sc = 0, sz = 0;
    for (int i = 0; i < N; i++) {
        sd += (long double)xs[i] * ys[i], sdm += fabsl((long double)xs[i] * ys[i]);
        sc += conjl((lz)xc[i]) * (lz)yc[i], scm += cabsl((lz)xc[i] * (lz)yc[i]);
        sz += conjl((lz)xz[i]) * (lz)yz[i], szm += cabsl((lz)xz[i] * (lz)yz[i]);
    }
    const blasint at = ((blasint (*)(const blasint *, const float *, const blasint *))lbt_sym(
        "isamax_64_"))(&n, xs, &inc);
    if (at == 24) {
        passed++;
    } else {
        failed++;
        printf("FAIL isamax_64_: %lld, not 24\n", (long long)at);
    }
    const float d = ((float (*)(const blasint *, const float *, const blasint *, const float *,
                                const blasint *))lbt_sym("sdot_64_"))(&n, xs, &inc, ys, &inc);
    verdict("sdot_64_", fabsl(d - sd) / (4 * (N + 2) * FLT_EPSILON * sdm));
    const float _Complex c = ((float _Complex (*)(const blasint *, const void *, const blasint *,
                                                  const void *, const blasint *))lbt_sym(
        "cdotc_64_"))(&n, xc, &inc, yc, &inc);
    verdict("cdotc_64_", cabsl(c - sc) / (4 * (N + 2) * FLT_EPSILON * scm));
    const double _Complex z = ((double _Complex (*)(const blasint *, const void *, const blasint *,
                                                    const void *, const blasint *))lbt_sym(
        "zdotc_64_"))(&n, xz, &inc, yz, &inc);
    verdict("zdotc_64_", cabsl(z - sz) / (4 * (N + 2) * DBL_EPSILON * szm));
}

/* The object LBT's ILP64 name `name` now forwards to must be `want`'s
 * (a path as loaded). */
static void forwards_to(const char *name, const char *want)
{
    const void *(*get_forward)(const char *, int32_t, int32_t) =
        (const void *(*)(const char *, int32_t, int32_t))lbt_sym("lbt_get_forward");
    const void *f = get_forward(name, LBT_ILP64, 0);
    Dl_info info;
    /* the same object: the handles of want and of the object defining f */
    void *h = dlopen(want, RTLD_LAZY | RTLD_NOLOAD), *hf = NULL;
    int ok = f && dladdr(f, &info) && info.dli_fname && h;
    if (ok) {
        hf = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        ok = hf == h;
    }
    if (ok) {
        passed++;
        printf("LBT's %s64_ forwards to %s\n", name, info.dli_fname);
    } else {
        failed++;
        printf("FAIL LBT's %s64_ forwards to %s, not %s\n", name,
               f && dladdr(f, &info) && info.dli_fname ? info.dli_fname : "?", want);
    }
    if (h)
        dlclose(h);
    if (hf)
        dlclose(hf);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: lbt_check LBT ILP64_BLAS LIBTILEDBLAS [global|local]\n");
        return 2;
    }
    const int global = argc > 4 && strcmp(argv[4], "global") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    lbt = dlopen(argv[1], RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (!lbt) {
        printf("lbt_check: %s\n", dlerror());
        return 2;
    }
    int32_t (*forward)(const char *, int32_t, int32_t, const char *) =
        (int32_t (*)(const char *, int32_t, int32_t, const char *))lbt_sym("lbt_forward");
    const int32_t nblas = forward(argv[2], 1, 0, NULL);
    printf("lbt_forward(%s, clear=1): %d names\n", argv[2], nblas);
    if (nblas <= 0)
        return 2;
    /* Julia's BLAS.lbt_forward(path; clear=false, verbose=true) */
    if (strcmp(argv[3], "-") != 0) {
        const int32_t ntb = forward(argv[3], 0, 1, NULL);
        printf("lbt_forward(%s, clear=0): %d names\n", argv[3], ntb);
        if (ntb <= 0) {
            printf("lbt_check: 0 calls, 0 passed, 1 failed\n");
            return 1;
        }
        forwards_to("dgemm_", argv[3]);
        forwards_to("dpotrf_", argv[2]);
    }

    gemm(&S, 'N', 'N', 67, 45, 33, 0);
    gemm(&D, 'T', 'N', 58, 71, 40, 0);
    gemm(&C, 'C', 'T', 39, 44, 52, 0);
    gemm(&Z, 'N', 'C', 47, 36, 61, 0);
    gemm(&D, 'N', 'T', 64, 50, 48, 1);
    syrk(&S, 'U', 'N', 53, 37);
    syrk(&D, 'L', 'T', 61, 29);
    syrk(&Z, 'U', 'N', 34, 45);
    trsm(&S, 'L', 'U', 'N', 'N', 44, 31);
    trsm(&D, 'R', 'L', 'T', 'U', 38, 52);
    trsm(&Z, 'L', 'L', 'C', 'N', 41, 27);
    probes();
    printf("lbt_check: %d calls, %d passed, %d failed\n", calls, passed, failed);
    return failed ? 1 : 0;
}
