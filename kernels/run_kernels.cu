/* kernels/run_kernels.cu - the two kernels of the host runtime
 * (src/gpu/run.cu) and their launchers, one template body for float and
 * double each: the copy of an operand into rows that start on 16-byte
 * boundaries (for the kernels that want aligned rows, tb_kernel_plan's
 * pack_a and pack_b), and the split sum, which adds the results of a
 * product's K parts in order and applies alpha and beta (the runtime's parts
 * and the small kernel's own). */
#include "tb_kernel_common.cuh"

/* Copy a rows x cols row-major block from src (stride lds) to dst (stride
 * ldd). Each block copies one row chunk of 4 x blockDim elements; the four
 * loads per thread are blockDim apart, so every warp-wide load and store is
 * one contiguous run of 128 bytes (coalesced whatever the alignment of src).
 * Rows go over gridDim.y with a stride loop: any number of rows. */
#define TB_PACK_THREADS 256
#define TB_PACK_UNROLL 4
template <typename T>
__global__ void __launch_bounds__(TB_PACK_THREADS)
tb_pack_kernel(const T *__restrict__ src, size_t lds, T *__restrict__ dst, size_t ldd, int rows,
               int cols)
{
    const int c0 = blockIdx.x * (TB_PACK_THREADS * TB_PACK_UNROLL) + threadIdx.x;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const T *s = src + (size_t)r * lds;
        T *d = dst + (size_t)r * ldd;
        T v[TB_PACK_UNROLL];
#pragma unroll
        for (int u = 0; u < TB_PACK_UNROLL; u++) {
            const int c = c0 + u * TB_PACK_THREADS;
            v[u] = c < cols ? s[c] : T(0);
        }
#pragma unroll
        for (int u = 0; u < TB_PACK_UNROLL; u++) {
            const int c = c0 + u * TB_PACK_THREADS;
            if (c < cols)
                d[c] = v[u];
        }
    }
}

/* C = alpha * (W_0 + ... + W_{S-1}) + beta * C, the W_s being the parts'
 * results (stride ldw, wstride apart), in the element type T (alpha and beta
 * of fp64 products in double). Rows over gridDim.y, columns over threads:
 * coalesced, any shape. Elements outside a wanted triangle (tri, tri_w as
 * tb_gemm's) are neither read nor written. */
template <typename T>
__global__ void __launch_bounds__(256)
tb_split_sum(const T *__restrict__ W, size_t ldw, size_t wstride, int parts, int m, int n, T alpha,
             T beta, T *C, size_t ldc, int tri, int tri_w)
{
    tb_pdl_wait();   /* the parts are written (small kernel: launched under its tail) */
    for (int r = blockIdx.y; r < m; r += gridDim.y)
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x) {
            if (TB_TILE_UNWANTED(tri, tri_w, r, 1, c, 1))
                continue;
            /* Loads eight parts at a time before adding them (a sum over
             * many parts is a chain of loads otherwise), in part order. */
            const T *w = W + (size_t)r * ldw + c;
            T s = w[0];
            int p = 1;
            for (; p + 8 <= parts; p += 8) {
                T v[8];
#pragma unroll
                for (int u = 0; u < 8; u++)
                    v[u] = w[(size_t)(p + u) * wstride];
#pragma unroll
                for (int u = 0; u < 8; u++)
                    s += v[u];
            }
            for (; p < parts; p++)
                s += w[(size_t)p * wstride];
            T *d = C + (size_t)r * ldc + c;
            *d = beta == T(0) ? alpha * s : alpha * s + beta * *d;
        }
}

/* ---- launchers ------------------------------------------------------------ */

template <typename T>
static cudaError_t tb_pack(const T *src, size_t lds, T *dst, size_t ldd, int rows, int cols,
                           cudaStream_t stream)
{
    const int chunk = TB_PACK_THREADS * TB_PACK_UNROLL;
    const unsigned gx = (unsigned)((cols + chunk - 1) / chunk);
    const unsigned gy = (unsigned)(rows < 65535 ? rows : 65535);
    tb_pack_kernel<T><<<dim3(gx, gy), TB_PACK_THREADS, 0, stream>>>(src, lds, dst, ldd, rows, cols);
    return cudaGetLastError();
}

extern "C" cudaError_t tb_launch_pack(tb_dtype t, const void *src, size_t lds, void *dst,
                                      size_t ldd, int rows, int cols, cudaStream_t stream)
{
    switch (t) {
    case TB_F32:
        return tb_pack((const float *)src, lds, (float *)dst, ldd, rows, cols, stream);
    case TB_F64:
        return tb_pack((const double *)src, lds, (double *)dst, ldd, rows, cols, stream);
    default:
        return cudaErrorInvalidValue;
    }
}

/* tb_split_sum for an m x n C, allowed to start under the tail of the
 * kernel that wrote the parts (it waits for that kernel's end first). */
template <typename T>
static cudaError_t tb_split_close(const T *W, size_t ldw, size_t wstride, int parts, int m, int n,
                                  T alpha, T beta, T *C, size_t ldc, int tri, int tri_w,
                                  cudaStream_t stream)
{
    const unsigned gx = (unsigned)((n + 255) / 256 < 8 ? (n + 255) / 256 : 8);
    const unsigned gy = (unsigned)(m < 65535 ? m : 65535);
    cudaLaunchAttribute pdl;
    const cudaLaunchConfig_t cfg = tb_pdl_config(dim3(gx, gy), dim3(256), 0, stream, &pdl);
    cudaError_t e = cudaLaunchKernelEx(&cfg, tb_split_sum<T>, W, ldw, wstride, parts, m, n, alpha,
                                       beta, C, ldc, tri, tri_w);
    if (e != cudaSuccess)
        cudaGetLastError();
    return e;
}

extern "C" cudaError_t tb_launch_split_sum(tb_dtype t, const void *W, size_t ldw, size_t wstride,
                                           int parts, int m, int n, tb_scalar alpha,
                                           tb_scalar beta, void *C, size_t ldc, int tri,
                                           int tri_w, cudaStream_t stream)
{
    switch (t) {
    case TB_F32:
        return tb_split_close<float>((const float *)W, ldw, wstride, parts, m, n, (float)alpha.re,
                                     (float)beta.re, (float *)C, ldc, tri, tri_w, stream);
    case TB_F64:
        return tb_split_close<double>((const double *)W, ldw, wstride, parts, m, n, alpha.re,
                                      beta.re, (double *)C, ldc, tri, tri_w, stream);
    default:
        return cudaErrorInvalidValue;
    }
}
