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
    int tri, tri_w;     /* tb_gemm's wanted triangle (dmma skips the other tiles) */
} tb_dgemm_args;

/* A complex number of two R (float or double), re then im: the layout of
 * TB_C32 and TB_C64 elements. Aligned as R alone (a caller's complex float
 * array need only be 4-byte aligned). Trivial, so that it can live in
 * shared memory. */
template <typename R> struct tb_cx {
    R re, im;
    tb_cx() = default;
    __host__ __device__ constexpr tb_cx(R r, R i = R(0)) : re(r), im(i) {}
    friend __host__ __device__ tb_cx operator+(tb_cx a, tb_cx b)
    {
        return tb_cx(a.re + b.re, a.im + b.im);
    }
    friend __host__ __device__ tb_cx operator*(tb_cx a, tb_cx b)
    {
        return tb_cx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
    }
    __host__ __device__ tb_cx &operator+=(tb_cx b) { return *this = *this + b; }
    friend __host__ __device__ bool operator==(tb_cx a, tb_cx b)
    {
        return a.re == b.re && a.im == b.im;
    }
};

/* The conjugate when `conj` (the complex types' op 2), and the real types
 * unchanged. */
template <typename R> __host__ __device__ inline tb_cx<R> tb_conj_if(tb_cx<R> x, bool conj)
{
    return conj ? tb_cx<R>(x.re, -x.im) : x;
}
template <typename R> __host__ __device__ inline R tb_conj_if(R x, bool) { return x; }

/* s x for a scalar s: with s real (im 0) each part alone, as the real types
 * scale (inf times it stays inf: no 0 x inf); complex, the product. */
template <typename R> __host__ __device__ inline tb_cx<R> tb_scale(tb_cx<R> s, tb_cx<R> x)
{
    return s.im == R(0) ? tb_cx<R>(s.re * x.re, s.re * x.im) : s * x;
}
template <typename R> __host__ __device__ inline R tb_scale(R s, R x) { return s * x; }

/* Complex products: the same fields, elements and scalars complex. The
 * struct's name is part of every kernel's symbol that takes it. */
template <typename T> struct tb_cgemm_args_of {
    int m, n, k;
    int transa, transb;
    T alpha, beta;
    const T *A; size_t lda;
    const T *B; size_t ldb;
    T *C; size_t ldc;
};
typedef tb_cgemm_args_of<tb_cx<float>> tb_cgemm_args;
typedef tb_cgemm_args_of<tb_cx<double>> tb_zgemm_args;

/* The typed struct of element type T, and g in it: alpha and beta (re
 * alone for the real types) converted to T, exactly for a product whose
 * values came from T. */
template <typename T> struct tb_typed;
template <> struct tb_typed<float> {
    typedef tb_gemm_args args;
    static float scalar(tb_scalar s) { return (float)s.re; }
};
template <> struct tb_typed<double> {
    typedef tb_dgemm_args args;
    static double scalar(tb_scalar s) { return s.re; }
};
template <typename R> struct tb_typed<tb_cx<R>> {
    typedef tb_cgemm_args_of<tb_cx<R>> args;
    static tb_cx<R> scalar(tb_scalar s) { return tb_cx<R>((R)s.re, (R)s.im); }
};

template <typename T> static inline typename tb_typed<T>::args tb_args_of(const tb_gemm *g)
{
    typename tb_typed<T>::args a = {g->m, g->n, g->k, g->transa, g->transb,
                                    tb_typed<T>::scalar(g->alpha), tb_typed<T>::scalar(g->beta),
                                    (const T *)g->A, g->lda, (const T *)g->B, g->ldb, (T *)g->C,
                                    g->ldc};
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
