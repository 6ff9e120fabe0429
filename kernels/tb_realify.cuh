/* kernels/tb_realify.cuh - the element rules of a complex product run as
 * one real product (tb_complex_plan, tb_kernels.h): what complex_00_realify.cu's
 * kernels write for each element, host and device alike, so that
 * tests/kernels/test_complex_pack.cu runs the same rules on the host with a
 * plain real product and checks the algebra without a GPU. */
#ifndef TB_REALIFY_CUH
#define TB_REALIFY_CUH
#include "tb_kernel_args.cuh"

/* The value packed for a stored element x of an operand read with op
 * `trans` (2: conjugated), times s when `scale` (a complex alpha folded
 * into B'': one rounding of the product in R). */
template <typename R>
__host__ __device__ inline tb_cx<R> tb_realify_value(tb_cx<R> x, int trans, tb_cx<R> s, bool scale)
{
    const tb_cx<R> v = tb_conj_if(x, trans == 2);
    return scale ? s * v : v;
}

/* A'(r, 2c) and A'(r, 2c + 1): element (r, c) of op(A), interleaved along
 * k, at out (stride ldo reals). */
template <typename R>
__host__ __device__ inline void tb_realify_put_a(R *out, size_t ldo, int r, int c, tb_cx<R> v)
{
    R *o = out + (size_t)r * ldo + 2 * (size_t)c;
    o[0] = v.re;
    o[1] = v.im;
}

/* B'' rows 2r, 2r + 1, columns 2c, 2c + 1: the real 2 x 2 block of
 * v = (s op(B))(r, c), [[re, im], [-im, re]], at out (stride ldo reals):
 * a row [x_re, x_im] of A' times it is [re(x v), im(x v)]. */
template <typename R>
__host__ __device__ inline void tb_realify_put_b(R *out, size_t ldo, int r, int c, tb_cx<R> v)
{
    R *o = out + 2 * (size_t)r * ldo + 2 * (size_t)c;
    o[0] = v.re;
    o[1] = v.im;
    o[ldo] = -v.im;
    o[ldo + 1] = v.re;
}

/* alpha p + beta c, beta == 0 leaving c unread (NaN there does not leak):
 * the scaling of C by a complex beta (p 0, alpha 0) and the post entries'
 * last step. */
template <typename R>
__host__ __device__ inline tb_cx<R> tb_realify_axpby(tb_cx<R> alpha, tb_cx<R> p, tb_cx<R> beta,
                                                     const tb_cx<R> *c)
{
    const tb_cx<R> zero(R(0));
    const tb_cx<R> ap = alpha == zero ? zero : tb_scale(alpha, p);
    return beta == zero ? ap : ap + tb_scale(beta, *c);
}

#endif
