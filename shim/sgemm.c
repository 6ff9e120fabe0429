/* shim/sgemm.c - the exported BLAS entry points. Each one only packs its
 * arguments into a tb_call and hands it to the dispatcher; the decision,
 * the GPU work and the fallback live in src/. */
#include "tb_internal.h"

#define TB_EXPORT __attribute__((visibility("default")))

TB_EXPORT void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k,
                           float alpha, const float *A, int lda,
                           const float *B, int ldb,
                           float beta, float *C, int ldc)
{
    tb_call c = {TB_API_CBLAS, layout, transa, transb, m, n, k, alpha, beta,
                 A, lda, B, ldb, C, ldc};
    tb_sgemm_dispatch(&c);
}
