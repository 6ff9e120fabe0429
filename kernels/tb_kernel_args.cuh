/* kernels/tb_kernel_args.cuh - the kernels' own typed parameters. A kernel
 * is written for its element type and takes the product by value as that
 * type's struct, with typed pointers and scalars; its launcher converts the
 * generic tb_gemm it is handed (tb_args_of) and nothing else does. The
 * structs' names are part of every kernel's symbol. The same rules as
 * tb_gemm (tb_kernels.h). */
#ifndef TB_KERNEL_ARGS_CUH
#define TB_KERNEL_ARGS_CUH
#include "tb_kernels.h"

/* fp32: the sgemm_* kernels and the float instances of the others. */
typedef struct tb_gemm_args {
    int m, n, k;
    int transa, transb;
    float alpha, beta;
    const float *A; size_t lda;
    const float *B; size_t ldb;
    float *C; size_t ldc;
} tb_gemm_args;

/* fp64: the dgemm_* kernels and the double instances of the others. */
typedef struct tb_dgemm_args {
    int m, n, k;
    int transa, transb;
    double alpha, beta;
    const double *A; size_t lda;
    const double *B; size_t ldb;
    double *C; size_t ldc;
} tb_dgemm_args;

/* The typed struct of element type T, and g in it: alpha and beta (real
 * parts; the real types have no other) converted to T, exactly for a
 * product whose values came from T. */
template <typename T> struct tb_typed;
template <> struct tb_typed<float> {
    typedef tb_gemm_args args;
};
template <> struct tb_typed<double> {
    typedef tb_dgemm_args args;
};

template <typename T> static inline typename tb_typed<T>::args tb_args_of(const tb_gemm *g)
{
    typename tb_typed<T>::args a = {g->m, g->n, g->k, g->transa, g->transb, (T)g->alpha.re,
                                    (T)g->beta.re, (const T *)g->A, g->lda, (const T *)g->B,
                                    g->ldb, (T *)g->C, g->ldc};
    return a;
}

/* Back to the generic product (a launcher handing its product on to
 * another kernel's launcher). */
template <typename Args> static inline tb_gemm tb_gemm_of(const Args &a, tb_dtype t)
{
    tb_gemm g = {t, a.m, a.n, a.k, a.transa, a.transb, {a.alpha, 0.0}, {a.beta, 0.0},
                 a.A, a.lda, a.B, a.ldb, a.C, a.ldc};
    return g;
}

#endif
