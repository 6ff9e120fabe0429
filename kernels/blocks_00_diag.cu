/* kernels/blocks_00_diag.cu - the diagonal-block steps of the blocked
 * level-3 routines (kernels/tb_blocks.h says what each computes;
 * src/gpu/blocked.c calls them through an engine), for every element type:
 *   merge  one thread an element of C's block, the other triangle skipped
 *   full   one thread an element of S, reading A's triangle only
 *   tri    blocks up to TB_BLK_TRI_NB (tb_l3_block's for trmm and trsm):
 *          a thread block takes TB_TRI_W vectors of B (left: columns,
 *          right: rows) and op(T)'s block into shared memory, each thread
 *          TB_TRI_R of a vector's elements in registers. trmm is then a
 *          small product (each element a sum along its row of the
 *          triangle, no step waiting on another); trsm a substitution, one
 *          element of each vector final per step: its thread divides it
 *          and puts it in shared memory, and after one barrier every
 *          thread takes it off its own elements below (above) it.
 *          Larger blocks (bench_blocked --nb): one thread a vector, in
 *          place, in the order tests/blocked_host.c runs the same loop.
 * Each is small next to the GEMMs around it (an nb x nb block, or nb^2 m
 * of a call's d^2 m flops). The CPU engine's loops, which they mirror, are
 * what unit.blocked tests; the reference testers in forced-GPU mode and
 * bench_blocked --check-reference test these. */
#include "tb_blocks.h"
#include "tb_kernel_common.cuh"

template <typename R> __device__ inline R tb_re(R x) { return x; }
template <typename R> __device__ inline tb_cx<R> tb_re(tb_cx<R> x) { return tb_cx<R>(x.re); }
template <typename R> __device__ inline R tb_re_part(R x) { return x; }
template <typename R> __device__ inline R tb_re_part(tb_cx<R> x) { return x.re; }
template <typename R> __device__ inline R tb_minus(R a, R b) { return a - b; }
template <typename R> __device__ inline tb_cx<R> tb_minus(tb_cx<R> a, tb_cx<R> b)
{
    return tb_cx<R>(a.re - b.re, a.im - b.im);
}
template <typename R> __device__ inline R tb_div(R a, R b) { return a / b; }
template <typename R> __device__ inline tb_cx<R> tb_div(tb_cx<R> a, tb_cx<R> b)
{
    /* Smith's method: scaled by the larger part of b, no overflow in b b* */
    if (fabs(b.re) >= fabs(b.im)) {
        const R r = b.im / b.re, d = b.re + r * b.im;
        return tb_cx<R>((a.re + r * a.im) / d, (a.im - r * a.re) / d);
    }
    const R r = b.re / b.im, d = b.im + r * b.re;
    return tb_cx<R>((r * a.re + a.im) / d, (r * a.im - a.re) / d);
}

__device__ inline bool tb_in_tri(int lower, int i, int j) { return lower ? i >= j : i <= j; }

template <typename T>
__global__ void tb_blk_merge_kernel(int n, int lower, int herm, T beta, int beta0,
                                    const T *__restrict__ P, size_t ldp, T *C, size_t ldc)
{
    for (int i = blockIdx.y; i < n; i += gridDim.y)
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
            if (!tb_in_tri(lower, i, j))
                continue;
            T *c = C + (size_t)i * ldc + j;
            T v = P ? P[(size_t)i * ldp + j] : T(0);
            if (herm && i == j) {   /* beta re C + re P: imaginary parts neither read nor kept */
                v = tb_re(v);
                if (!beta0)
                    v += T(tb_re_part(beta) * tb_re_part(*c));
            } else if (!beta0) {
                v += tb_scale(beta, *c);
            }
            *c = v;
        }
}

template <typename T>
__global__ void tb_blk_full_kernel(int n, int lower, int herm, const T *__restrict__ A,
                                   size_t lda, T *S, size_t lds)
{
    for (int i = blockIdx.y; i < n; i += gridDim.y)
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
            T v;
            if (i == j)
                v = herm ? tb_re(A[(size_t)i * lda + i]) : A[(size_t)i * lda + i];
            else if (tb_in_tri(lower, i, j))
                v = A[(size_t)i * lda + j];
            else
                v = tb_conj_if(A[(size_t)j * lda + i], herm != 0);
            S[(size_t)i * lds + j] = v;
        }
}

/* op(T)(i, j) of the stored triangle A: zero outside it, one on a unit
 * diagonal (not read). */
template <typename T>
__device__ inline T tb_op_tri(const T *A, size_t lda, int lower, int trans, int unit, int i, int j)
{
    if (trans) {
        const int t = i;
        i = j;
        j = t;
    }
    if (unit && i == j)
        return T(1);
    if (!tb_in_tri(lower, i, j))
        return T(0);
    return tb_conj_if(A[(size_t)i * lda + j], trans == 2);
}

template <typename T>
__global__ void tb_blk_tri_kernel(tb_blk_tri a, T alpha)
{
    const T *A = (const T *)a.A;
    const size_t step = a.left ? a.ldb : 1, vstep = a.left ? 1 : a.ldb;
    const int n = a.n;
    const int lower = (a.lower != (a.trans != 0)) == a.left;   /* E's triangle */
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < a.m; v += gridDim.x * blockDim.x) {
        T *x = (T *)a.B + (size_t)v * vstep;
        for (int s = 0; s < n; s++) {
            const int i = lower == a.solve ? s : n - 1 - s;
            T acc = a.solve ? tb_scale(alpha, x[(size_t)i * step]) : T(0);
            for (int j = 0; j < n; j++) {
                if (!tb_in_tri(lower, i, j) || (a.solve && j == i))
                    continue;
                const T e = a.left ? tb_op_tri(A, a.lda, a.lower, a.trans, a.unit, i, j)
                                   : tb_op_tri(A, a.lda, a.lower, a.trans, a.unit, j, i);
                const T t = e * x[(size_t)j * step];
                acc = a.solve ? tb_minus(acc, t) : acc + t;
            }
            if (a.solve)
                x[(size_t)i * step] = a.unit ? acc : tb_div(acc, tb_op_tri(A, a.lda, a.lower, a.trans, 0, i, i));
            else
                x[(size_t)i * step] = tb_scale(alpha, acc);
        }
    }
}

/* ---- tri on blocks up to TB_BLK_TRI_NB: a panel of vectors a thread block */

enum {
    TB_TRI_W = 16,                         /* vectors a thread block        */
    TB_TRI_G = 256 / TB_TRI_W,             /* threads a vector              */
    TB_TRI_R = TB_BLK_TRI_NB / TB_TRI_G    /* elements a thread             */
};

/* Shared memory: E (op(T)'s block as the vectors see it, rows padded by
 * one) and P (the panel, TB_TRI_W + 1 a row), in elements. */
static constexpr size_t tb_tri_smem_elems()
{
    return (size_t)TB_BLK_TRI_NB * (TB_BLK_TRI_NB + 1) + (size_t)TB_BLK_TRI_NB * (TB_TRI_W + 1);
}

/* Vector v's element i is x[i * step + v * vstep] (left: B's column v,
 * right: B's row v). E(i, j) is op(T)(i, j) on the left and op(T)(j, i)
 * on the right, so that each vector x becomes E x (trmm) or E^-1 x
 * (trsm), E lower or upper (lower_e). A thread holds the elements l = g +
 * TB_TRI_G q of its vector in "step order": element i = l where the
 * substitution runs down (E lower), n - 1 - l where it runs up, so that
 * the registers' indices stay compile-time constants either way. */
template <typename T>
__global__ void __launch_bounds__(256) tb_blk_tri_panel(tb_blk_tri a, T alpha)
{
    extern __shared__ __align__(16) unsigned char tb_tri_sh[];
    T *E = (T *)tb_tri_sh;
    T *P = E + TB_BLK_TRI_NB * (TB_BLK_TRI_NB + 1);
    const int n = a.n, ldE = TB_BLK_TRI_NB + 1, ldP = TB_TRI_W + 1;
    const int lower_e = (a.lower != (a.trans != 0)) == a.left;
    const int down = lower_e == a.solve;   /* trsm: row 0 first where E is lower */
    const size_t step = a.left ? a.ldb : 1, vstep = a.left ? 1 : a.ldb;
    const T *A = (const T *)a.A;
    const int v0 = blockIdx.x * TB_TRI_W, nv = min(TB_TRI_W, a.m - v0);
    T *X = (T *)a.B + (size_t)v0 * vstep;

    for (int e = threadIdx.x; e < n * n; e += blockDim.x) {
        const int i = e / n, j = e % n;
        if (tb_in_tri(lower_e, i, j))
            E[i * ldE + j] = a.left ? tb_op_tri(A, a.lda, a.lower, a.trans, a.unit, i, j)
                                    : tb_op_tri(A, a.lda, a.lower, a.trans, a.unit, j, i);
    }
    /* The panel in, consecutive threads on consecutive addresses. */
    for (int e = threadIdx.x; e < n * nv; e += blockDim.x) {
        const int i = a.left ? e / nv : e % n, v = a.left ? e % nv : e / n;
        P[i * ldP + v] = X[(size_t)i * step + (size_t)v * vstep];
    }
    __syncthreads();

    const int v = threadIdx.x % TB_TRI_W, g = threadIdx.x / TB_TRI_W;
    T x[TB_TRI_R];
#pragma unroll
    for (int q = 0; q < TB_TRI_R; q++) {
        const int l = g + TB_TRI_G * q, i = down ? l : n - 1 - l;
        x[q] = l < n ? P[i * ldP + v] : T(0);
    }
    if (a.solve) {
#pragma unroll
        for (int q = 0; q < TB_TRI_R; q++)
            x[q] = tb_scale(alpha, x[q]);
#pragma unroll
        for (int s = 0; s < TB_BLK_TRI_NB; s++) {
            if (s >= n)
                break;
            const int i = down ? s : n - 1 - s;
            if (g == s % TB_TRI_G) {   /* element i is final: x[s / TB_TRI_G] here */
                T &xi = x[s / TB_TRI_G];
                if (!a.unit)
                    xi = tb_div(xi, E[i * ldE + i]);
                P[i * ldP + v] = xi;
            }
            __syncthreads();
            const T xi = P[i * ldP + v];
#pragma unroll
            for (int q = 0; q < TB_TRI_R; q++) {
                const int l = g + TB_TRI_G * q, r = down ? l : n - 1 - l;
                if (l > s && l < n)
                    x[q] = tb_minus(x[q], E[r * ldE + i] * xi);
            }
        }
    } else {
        /* Each element's sum along its row of E, in the order of j (as the
         * loop of tb_blk_tri_kernel), from the panel as it came in. */
#pragma unroll
        for (int q = 0; q < TB_TRI_R; q++) {
            const int l = g + TB_TRI_G * q, r = down ? l : n - 1 - l;
            if (l >= n)
                break;
            T acc = T(0);
            for (int j = 0; j < n; j++)
                if (tb_in_tri(lower_e, r, j))
                    acc += E[r * ldE + j] * P[j * ldP + v];
            x[q] = tb_scale(alpha, acc);
        }
        __syncthreads();   /* every sum has read P */
    }
    if (v < nv)
#pragma unroll
        for (int q = 0; q < TB_TRI_R; q++) {
            const int l = g + TB_TRI_G * q, i = down ? l : n - 1 - l;
            if (l < n)
                P[i * ldP + v] = x[q];
        }
    __syncthreads();
    for (int e = threadIdx.x; e < n * nv; e += blockDim.x) {
        const int i = a.left ? e / nv : e % n, v = a.left ? e % nv : e / n;
        X[(size_t)i * step + (size_t)v * vstep] = P[i * ldP + v];
    }
}

template <typename T> static cudaError_t tb_tri_panel(const tb_blk_tri *a, cudaStream_t stream)
{
    const size_t smem = tb_tri_smem_elems() * sizeof(T);
    /* Over 48 KB (complex double: 85 KB) is asked for once a device; every
     * GPU the kernels run on (8.0 and later) has it. */
    if (smem > 48 * 1024) {
        static volatile int attr_set[TB_ATTR_MAX_DEV];
        int dev = 0;
        cudaError_t e = cudaGetDevice(&dev);
        if (e == cudaSuccess)
            e = tb_smem_attr(tb_blk_tri_panel<T>, (int)smem, dev, attr_set);
        if (e != cudaSuccess)
            return e;
    }
    tb_blk_tri_panel<T><<<(unsigned)((a->m + TB_TRI_W - 1) / TB_TRI_W), 256, smem, stream>>>(
        *a, tb_typed<T>::scalar(a->alpha));
    return cudaGetLastError();
}

/* ---- launchers ------------------------------------------------------------ */

static dim3 tb_blk_grid(int n)
{
    const unsigned gx = (unsigned)((n + 127) / 128), gy = (unsigned)(n < 65535 ? n : 65535);
    return dim3(gx ? gx : 1, gy ? gy : 1);
}

template <typename T> static cudaError_t tb_merge(const tb_blk_merge *a, cudaStream_t stream)
{
    const int beta0 = a->beta.re == 0.0 && a->beta.im == 0.0;
    tb_blk_merge_kernel<T><<<tb_blk_grid(a->n), 128, 0, stream>>>(
        a->n, a->lower, a->herm, tb_typed<T>::scalar(a->beta), beta0, (const T *)a->P, a->ldp,
        (T *)a->C, a->ldc);
    return cudaGetLastError();
}

template <typename T> static cudaError_t tb_full(const tb_blk_full *a, cudaStream_t stream)
{
    tb_blk_full_kernel<T><<<tb_blk_grid(a->n), 128, 0, stream>>>(
        a->n, a->lower, a->herm, (const T *)a->A, a->lda, (T *)a->S, a->lds);
    return cudaGetLastError();
}

template <typename T> static cudaError_t tb_tri(const tb_blk_tri *a, cudaStream_t stream)
{
    if (a->n <= TB_BLK_TRI_NB)
        return tb_tri_panel<T>(a, stream);
    const int blocks = (a->m + 127) / 128;
    tb_blk_tri_kernel<T><<<blocks < 65535 ? (blocks ? blocks : 1) : 65535, 128, 0, stream>>>(
        *a, tb_typed<T>::scalar(a->alpha));
    return cudaGetLastError();
}

#define TB_BLK_DISPATCH(f, a, stream)                                                        \
    switch ((a)->dtype) {                                                                    \
    case TB_F32: return f<float>(a, stream);                                                 \
    case TB_F64: return f<double>(a, stream);                                                \
    case TB_C32: return f<tb_cx<float>>(a, stream);                                          \
    case TB_C64: return f<tb_cx<double>>(a, stream);                                         \
    default: return cudaErrorInvalidValue;                                                   \
    }

extern "C" cudaError_t tb_launch_blk_merge(const tb_blk_merge *a, cudaStream_t stream)
{
    if (a->n <= 0)
        return cudaSuccess;
    TB_BLK_DISPATCH(tb_merge, a, stream)
}

extern "C" cudaError_t tb_launch_blk_full(const tb_blk_full *a, cudaStream_t stream)
{
    if (a->n <= 0)
        return cudaSuccess;
    TB_BLK_DISPATCH(tb_full, a, stream)
}

extern "C" cudaError_t tb_launch_blk_tri(const tb_blk_tri *a, cudaStream_t stream)
{
    if (a->n <= 0 || a->m <= 0)
        return cudaSuccess;
    TB_BLK_DISPATCH(tb_tri, a, stream)
}
