/* tests/suffix64_blas.c - a BLAS under the "64_" suffix names (cblas_dgemm64_,
 * dgemm_64_; syrk and trsm too), as OpenBLAS built with SYMBOLSUFFIX=64_
 * exports them and Julia's libblastrampoline calls them: each forwards to
 * the plain name of the ILP64 OpenBLAS it is linked to (Debian's
 * libopenblas64). For preload.ilp64's suffix64 calls. */
#include <stddef.h>
#include <stdint.h>

typedef int64_t blasint;
#define EXPORT __attribute__((visibility("default")))

void cblas_sgemm(int, int, int, blasint, blasint, blasint, float, const float *, blasint,
                 const float *, blasint, float, float *, blasint);
void cblas_dgemm(int, int, int, blasint, blasint, blasint, double, const double *, blasint,
                 const double *, blasint, double, double *, blasint);
void sgemm_(const char *, const char *, const blasint *, const blasint *, const blasint *,
            const float *, const float *, const blasint *, const float *, const blasint *,
            const float *, float *, const blasint *, size_t, size_t);
void dgemm_(const char *, const char *, const blasint *, const blasint *, const blasint *,
            const double *, const double *, const blasint *, const double *, const blasint *,
            const double *, double *, const blasint *, size_t, size_t);

#define CBLAS(X, T)                                                                         \
    EXPORT void cblas_##X##gemm64_(int o, int ta, int tb, blasint m, blasint n, blasint k,  \
                                   T al, const T *a, blasint lda, const T *b, blasint ldb,  \
                                   T be, T *c, blasint ldc)                                 \
    {                                                                                       \
        cblas_##X##gemm(o, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);                \
    }
#define F77(X, T)                                                                           \
    EXPORT void X##gemm_64_(const char *ta, const char *tb, const blasint *m,               \
                            const blasint *n, const blasint *k, const T *al, const T *a,    \
                            const blasint *lda, const T *b, const blasint *ldb,             \
                            const T *be, T *c, const blasint *ldc, size_t la, size_t lb)    \
    {                                                                                       \
        X##gemm_(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc, la, lb);                  \
    }
/* syrk and trsm: the ILP64 OpenBLAS's plain names, declared by the macros
 * below, and their 64_ twins. */
#define SYRK_TRSM(X, T)                                                                     \
    void cblas_##X##syrk(int, int, int, blasint, blasint, T, const T *, blasint, T, T *,    \
                         blasint);                                                          \
    void X##syrk_(const char *, const char *, const blasint *, const blasint *, const T *,  \
                  const T *, const blasint *, const T *, T *, const blasint *, size_t,      \
                  size_t);                                                                  \
    void cblas_##X##trsm(int, int, int, int, int, blasint, blasint, T, const T *, blasint,  \
                         T *, blasint);                                                     \
    void X##trsm_(const char *, const char *, const char *, const char *, const blasint *,  \
                  const blasint *, const T *, const T *, const blasint *, T *,              \
                  const blasint *, size_t, size_t, size_t, size_t);                         \
    EXPORT void cblas_##X##syrk64_(int o, int u, int t, blasint n, blasint k, T al,         \
                                   const T *a, blasint lda, T be, T *c, blasint ldc)        \
    {                                                                                       \
        cblas_##X##syrk(o, u, t, n, k, al, a, lda, be, c, ldc);                             \
    }                                                                                       \
    EXPORT void X##syrk_64_(const char *u, const char *t, const blasint *n,                 \
                            const blasint *k, const T *al, const T *a, const blasint *lda,  \
                            const T *be, T *c, const blasint *ldc, size_t lu, size_t lt)    \
    {                                                                                       \
        X##syrk_(u, t, n, k, al, a, lda, be, c, ldc, lu, lt);                               \
    }                                                                                       \
    EXPORT void cblas_##X##trsm64_(int o, int s, int u, int t, int d, blasint m, blasint n, \
                                   T al, const T *a, blasint lda, T *b, blasint ldb)        \
    {                                                                                       \
        cblas_##X##trsm(o, s, u, t, d, m, n, al, a, lda, b, ldb);                           \
    }                                                                                       \
    EXPORT void X##trsm_64_(const char *s, const char *u, const char *t, const char *d,     \
                            const blasint *m, const blasint *n, const T *al, const T *a,    \
                            const blasint *lda, T *b, const blasint *ldb, size_t ls,        \
                            size_t lu, size_t lt, size_t ld)                                \
    {                                                                                       \
        X##trsm_(s, u, t, d, m, n, al, a, lda, b, ldb, ls, lu, lt, ld);                     \
    }
CBLAS(s, float)
CBLAS(d, double)
F77(s, float)
F77(d, double)
SYRK_TRSM(s, float)
SYRK_TRSM(d, double)
