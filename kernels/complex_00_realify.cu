/* kernels/complex_00_realify.cu - complex GEMM as one real GEMM on the real
 * type's fastest kernel ("crealify", "zrealify"; tb_complex_plan in
 * tb_kernels.h says the layout, registry.c's tb_complex_plan_of the shapes,
 * strides and scratch, tb_realify.cuh the element rules).
 *
 * C = alpha op(A) op(B) + beta C, m x n complex: with A' = op(A) as m x 2k
 * reals (re, im interleaved along k) and B'' = op(B) as 2k x 2n reals, each
 * element b a 2 x 2 block [[re b, im b], [-im b, re b]], the real product
 * A' B'' is op(A) op(B) with re and im interleaved along n: C's own memory
 * read as reals. So one real product of m x 2n x 2k (8mnk real flops, as
 * the four real products of the usual method) writes C directly, at the
 * rate of the real type's fastest kernel (3xTF32 wgmma or mma.sync for
 * complex float, fp64 tensor cores for complex double), with its aligned
 * copies, K split and small-product kernel as tb_gemm_run and the registry
 * choose them for the real shape. A non-transposed A is read in place
 * (stride 2 lda); a transposed or conjugated one is copied to A' first.
 *
 * Besides the real product, this file's kernels: the packing of B'' (and
 * A'), a 32 x 32 tile of op(X) per block through shared memory, so that
 * reads and writes are both coalesced whatever the transpose; and
 * C = alpha P + beta C (the scaling of C by a complex beta before the
 * product, and the post entries' complex alpha after it). Their scratch
 * (B'', A', P) comes from the runtime's pool; without it the complex seed
 * (ctiled16, ztiled16) runs the product instead: slower, never wrong. */
#include "tb_kernel_common.cuh"
#include "tb_realify.cuh"

#define TB_RT 32        /* tile of op(X): TB_RT x TB_RT elements   */
#define TB_RT_ROWS 8    /* thread rows: each thread copies 4 of a column */

/* MODE_A: out is A' (element (r, c) of op(X) at out[r][2c], [2c + 1]);
 * MODE_B: out is B'' (the 2 x 2 block at rows 2r, 2r + 1). op(X) is rows x
 * cols; X stored with stride ld, transposed when trans (2: conjugated too);
 * each value times s when scale. Tiles of rows over gridDim.y with a stride
 * loop (any number of rows). */
enum { TB_MODE_A, TB_MODE_B };
template <typename R, int MODE>
__global__ void __launch_bounds__(TB_RT * TB_RT_ROWS)
tb_realify_kernel(const tb_cx<R> *__restrict__ X, size_t ld, int trans, int rows, int cols,
                  tb_cx<R> s, int scale, R *__restrict__ out, size_t ldo)
{
    __shared__ tb_cx<R> t[TB_RT][TB_RT + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c0 = blockIdx.x * TB_RT;
    for (int r0 = blockIdx.y * TB_RT; r0 < rows; r0 += gridDim.y * TB_RT) {
        /* Read along the stored rows: op(X)(r, c) is X[r ld + c], or X[c ld
         * + r] when transposed. */
        for (int y = ty; y < TB_RT; y += TB_RT_ROWS) {
            if (!trans) {
                const int r = r0 + y, c = c0 + tx;
                if (r < rows && c < cols)
                    t[y][tx] = X[(size_t)r * ld + c];
            } else {
                const int r = r0 + tx, c = c0 + y;
                if (r < rows && c < cols)
                    t[tx][y] = X[(size_t)c * ld + r];
            }
        }
        __syncthreads();
        /* Write along the rows of out: consecutive threads, consecutive
         * pairs of reals. */
        for (int y = ty; y < TB_RT; y += TB_RT_ROWS) {
            const int r = r0 + y, c = c0 + tx;
            if (r < rows && c < cols) {
                const tb_cx<R> v = tb_realify_value(t[y][tx], trans, s, scale != 0);
                if (MODE == TB_MODE_A)
                    tb_realify_put_a(out, ldo, r, c, v);
                else
                    tb_realify_put_b(out, ldo, r, c, v);
            }
        }
        __syncthreads();   /* the tile is read before the next one overwrites it */
    }
}

/* C = alpha P + beta C for an m x n complex C (stride ldc elements); P
 * complex, interleaved at stride ldp reals, or NULL (then alpha is 0).
 * beta == 0 never reads C. Rows over gridDim.y, columns over threads. */
template <typename R>
__global__ void __launch_bounds__(256)
tb_cx_axpby_kernel(const R *__restrict__ P, size_t ldp, tb_cx<R> alpha, tb_cx<R> beta,
                   tb_cx<R> *C, size_t ldc, int m, int n)
{
    for (int r = blockIdx.y; r < m; r += gridDim.y)
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x) {
            const tb_cx<R> p = P ? tb_cx<R>(P[(size_t)r * ldp + 2 * (size_t)c],
                                            P[(size_t)r * ldp + 2 * (size_t)c + 1])
                                 : tb_cx<R>(R(0));
            tb_cx<R> *d = C + (size_t)r * ldc + c;
            *d = tb_realify_axpby(alpha, p, beta, d);
        }
}

/* ---- launchers ------------------------------------------------------------ */

template <typename R, int MODE>
static cudaError_t tb_realify_pack(const void *X, size_t ld, int trans, int rows, int cols,
                                   tb_cx<R> s, int scale, void *out, size_t ldo,
                                   cudaStream_t stream)
{
    const unsigned gx = (unsigned)((cols + TB_RT - 1) / TB_RT);
    const int ty = (rows + TB_RT - 1) / TB_RT;
    const unsigned gy = (unsigned)(ty < 65535 ? ty : 65535);
    tb_realify_kernel<R, MODE><<<dim3(gx, gy), dim3(TB_RT, TB_RT_ROWS), 0, stream>>>(
        (const tb_cx<R> *)X, ld, trans, rows, cols, s, scale, (R *)out, ldo);
    return cudaGetLastError();
}

template <typename R>
static cudaError_t tb_cx_axpby(const void *P, size_t ldp, tb_cx<R> alpha, tb_cx<R> beta, void *C,
                               size_t ldc, int m, int n, cudaStream_t stream)
{
    const unsigned gx = (unsigned)((n + 255) / 256 < 8 ? (n + 255) / 256 : 8);
    const unsigned gy = (unsigned)(m < 65535 ? m : 65535);
    tb_cx_axpby_kernel<R><<<dim3(gx, gy), 256, 0, stream>>>((const R *)P, ldp, alpha, beta,
                                                            (tb_cx<R> *)C, ldc, m, n);
    return cudaGetLastError();
}

/* g (complex, parts of type R) as tb_complex_plan_of(g, post) says. */
template <typename R>
static cudaError_t tb_realify_run(const tb_gemm *g, int post, cudaStream_t stream)
{
    typedef tb_cx<R> T;
    const tb_complex_plan p = tb_complex_plan_of(g, post);
    const T alpha = tb_typed<T>::scalar(g->alpha), beta = tb_typed<T>::scalar(g->beta);
    const T zero(R(0)), one(R(1));
    if (p.real == 0)   /* k 0 or alpha 0: C = beta C, or nothing at all */
        return p.scale_c ? tb_cx_axpby<R>(NULL, 0, zero, beta, g->C, g->ldc, g->m, g->n, stream)
                         : cudaSuccess;
    if (p.real < 0)    /* 2n or 2k past an int */
        return tb_launch_tiled16(g, stream);
    char *buf = (char *)tb_run_scratch(p.bytes, stream);
    if (!buf)
        return tb_launch_tiled16(g, stream);   /* no scratch: the seed, never wrong */
    tb_gemm r = p.g;
    cudaError_t e = cudaSuccess;
    if (p.scale_c)   /* a complex beta: C = beta C, then the product adds to it */
        e = tb_cx_axpby<R>(NULL, 0, zero, beta, g->C, g->ldc, g->m, g->n, stream);
    if (p.copy_a) {
        r.A = buf + p.a_off;
        if (e == cudaSuccess)
            e = tb_realify_pack<R, TB_MODE_A>(g->A, g->lda, g->transa, g->m, g->k, one, 0,
                                              (void *)r.A, r.lda, stream);
    }
    r.B = buf + p.b_off;
    if (e == cudaSuccess)
        e = tb_realify_pack<R, TB_MODE_B>(g->B, g->ldb, g->transb, g->k, g->n, alpha, p.fold,
                                          (void *)r.B, r.ldb, stream);
    if (p.post)
        r.C = buf + p.p_off;
    if (e == cudaSuccess)
        e = tb_gemm_run(&r, NULL, 0, stream);
    if (e == cudaSuccess && p.post)
        e = tb_cx_axpby<R>(r.C, r.ldc, alpha, beta, g->C, g->ldc, g->m, g->n, stream);
    tb_run_scratch_free(buf, stream);   /* in stream order, after the kernels that read it */
    return e;
}

static cudaError_t tb_realify(const tb_gemm *g, int post, cudaStream_t stream)
{
    switch (g->dtype) {
    case TB_C32:
        return tb_realify_run<float>(g, post, stream);
    case TB_C64:
        return tb_realify_run<double>(g, post, stream);
    default:
        return cudaErrorInvalidValue;
    }
}

/* "crealify", "zrealify": a complex alpha folded into B''. */
extern "C" cudaError_t tb_launch_realify(const tb_gemm *g, cudaStream_t stream)
{
    return tb_realify(g, 0, stream);
}

/* "crealify-post", "zrealify-post": a complex alpha applied after. */
extern "C" cudaError_t tb_launch_realify_post(const tb_gemm *g, cudaStream_t stream)
{
    return tb_realify(g, 1, stream);
}
