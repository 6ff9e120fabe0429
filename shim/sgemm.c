/* shim/sgemm.c - the exported BLAS entry points: cblas_sgemm and the Fortran
 * sgemm_ / sgemm. Each one only packs its arguments into a tb_call and hands
 * it to the dispatcher; the decision, the GPU work and the fallback live in
 * src/. */
#include "tb_internal.h"
#include <stddef.h>

#define TB_EXPORT __attribute__((visibility("default")))

/* Everything but the fast path; kept out of line so that cblas_sgemm stays
 * a compare and a jump. */
static __attribute__((noinline)) void tb_cblas_slow(int layout, int transa, int transb,
                                                    int m, int n, int k, float alpha,
                                                    const float *A, int lda, const float *B,
                                                    int ldb, float beta, float *C, int ldc)
{
    tb_call c = {TB_API_CBLAS, NULL, NULL, layout, transa, transb, m, n, k, alpha, beta,
                 A, lda, B, ldb, C, ldc};
    tb_sgemm_dispatch(&c);
}

TB_EXPORT void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k,
                           float alpha, const float *A, int lda,
                           const float *B, int ldb,
                           float beta, float *C, int ldc)
{
    /* Small calls cost the program next to nothing: one load, one compare,
     * and a jump to the real BLAS (negative sizes land there too, and the
     * real BLAS reports them). */
    tb_cblas_fn real = __atomic_load_n(&tb_fast.real, __ATOMIC_ACQUIRE);
    if (real && (double)m * n * k < tb_fast.below)
        real(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        tb_cblas_slow(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* 'N', 'T', 'C' in either case, as the reference sgemm accepts them; any other
 * character makes the call illegal, and the real sgemm_ reports it. */
static int tb_fortran_trans(const char *t)
{
    switch (t ? *t : 0) {
    case 'N': case 'n': return TB_NO_TRANS;
    case 'T': case 't': return TB_TRANS;
    case 'C': case 'c': return TB_CONJ_TRANS;
    default: return 0;
    }
}

/* Fortran sgemm: column-major, every argument by reference. The hidden
 * character lengths that compilers append are accepted and not needed. */
TB_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                      const int *k, const float *alpha, const float *A, const int *lda,
                      const float *B, const int *ldb, const float *beta, float *C,
                      const int *ldc, size_t transa_len, size_t transb_len)
{
    (void)transa_len;
    (void)transb_len;
    tb_call c = {TB_API_FORTRAN, transa, transb, TB_COL_MAJOR,
                 tb_fortran_trans(transa), tb_fortran_trans(transb),
                 *m, *n, *k, *alpha, *beta, A, *lda, B, *ldb, C, *ldc};
    tb_sgemm_dispatch(&c);
}

TB_EXPORT void sgemm(const char *transa, const char *transb, const int *m, const int *n,
                     const int *k, const float *alpha, const float *A, const int *lda,
                     const float *B, const int *ldb, const float *beta, float *C,
                     const int *ldc, size_t transa_len, size_t transb_len)
{
    sgemm_(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, transa_len, transb_len);
}
