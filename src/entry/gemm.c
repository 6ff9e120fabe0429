/* src/entry/gemm.c - the exported BLAS entry points: cblas_sgemm and the Fortran
 * sgemm_ / sgemm, and their double twins cblas_dgemm, dgemm_ / dgemm. Each
 * one only packs its arguments into a tb_call, the element type among them,
 * and hands it to the dispatcher; the decision, the GPU work and the
 * fallback live in src/. */
#include "tb_internal.h"
#include <stddef.h>

#define TB_EXPORT __attribute__((visibility("default")))

/* 'N', 'T', 'C' in either case, as the reference xGEMM accepts them; any
 * other character makes the call illegal, and the real xgemm_ reports it. */
static int tb_fortran_trans(const char *t)
{
    switch (t ? *t : 0) {
    case 'N': case 'n': return TB_NO_TRANS;
    case 'T': case 't': return TB_TRANS;
    case 'C': case 'c': return TB_CONJ_TRANS;
    default: return 0;
    }
}

/* The three entry points of one precision: X is s or d, T the element type,
 * P its tb_prec, REAL the fast path's field for the real cblas_Xgemm.
 *
 * cblas_Xgemm: small calls cost the program next to nothing, one load, one
 * compare and a jump to the real BLAS (negative sizes land there too, and
 * the real BLAS reports them); everything else is kept out of line
 * (tb_Xcblas_slow) so that the entry stays that short.
 *
 * Xgemm_ (and Xgemm, its other spelling): Fortran, column-major, every
 * argument by reference. The hidden character lengths that compilers
 * append are accepted and not needed. */
#define TB_GEMM_ENTRIES(X, T, P, REAL)                                                        \
    static __attribute__((noinline)) void tb_##X##cblas_slow(                                \
        int layout, int transa, int transb, int m, int n, int k, T alpha, const T *A, int lda, \
        const T *B, int ldb, T beta, T *C, int ldc)                                          \
    {                                                                                         \
        tb_call c = {TB_API_CBLAS, NULL, NULL, layout, transa, transb, m, n, k, alpha, beta,  \
                     A, lda, B, ldb, C, ldc, P};                                              \
        tb_gemm_dispatch(&c);                                                                 \
    }                                                                                         \
                                                                                              \
    TB_EXPORT void cblas_##X##gemm(int layout, int transa, int transb, int m, int n, int k,   \
                                   T alpha, const T *A, int lda, const T *B, int ldb, T beta, \
                                   T *C, int ldc)                                             \
    {                                                                                         \
        __typeof__(tb_fast.REAL) real = __atomic_load_n(&tb_fast.REAL, __ATOMIC_ACQUIRE);    \
        if (real && (double)m * n * k < tb_fast.below)                                        \
            real(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);       \
        else                                                                                  \
            tb_##X##cblas_slow(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, \
                               C, ldc);                                                       \
    }                                                                                         \
                                                                                              \
    TB_EXPORT void X##gemm_(const char *transa, const char *transb, const int *m,            \
                            const int *n, const int *k, const T *alpha, const T *A,           \
                            const int *lda, const T *B, const int *ldb, const T *beta, T *C,  \
                            const int *ldc, size_t transa_len, size_t transb_len)             \
    {                                                                                         \
        (void)transa_len;                                                                     \
        (void)transb_len;                                                                     \
        tb_call c = {TB_API_FORTRAN, transa, transb, TB_COL_MAJOR,                            \
                     tb_fortran_trans(transa), tb_fortran_trans(transb),                      \
                     *m, *n, *k, *alpha, *beta, A, *lda, B, *ldb, C, *ldc, P};                \
        tb_gemm_dispatch(&c);                                                                 \
    }                                                                                         \
                                                                                              \
    TB_EXPORT void X##gemm(const char *transa, const char *transb, const int *m,             \
                           const int *n, const int *k, const T *alpha, const T *A,            \
                           const int *lda, const T *B, const int *ldb, const T *beta, T *C,   \
                           const int *ldc, size_t transa_len, size_t transb_len)              \
    {                                                                                         \
        X##gemm_(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, transa_len,   \
                 transb_len);                                                                 \
    }

TB_GEMM_ENTRIES(s, float, TB_SINGLE, real)
TB_GEMM_ENTRIES(d, double, TB_DOUBLE, dreal)
