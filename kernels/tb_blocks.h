/* kernels/tb_blocks.h - the C ABI of the diagonal-block steps of the
 * blocked level-3 routines (src/gpu/blocked.c, docs/blocked.md): the few
 * steps of symm, hemm, syrk, herk, syr2k, her2k, trmm and trsm that are not
 * GEMMs, each on one diagonal block. Like tb_gemm (tb_kernels.h): row-major,
 * strides in elements, the element type as data (tb_dtype; complex ones
 * interleaved, re then im), scalars as tb_scalar. blocked.c hands them to an
 * engine (tb_l3_engine, src/gpu/tb_blocked.h), which runs them on its own
 * pointers: the CPU engine of the tests in plain loops
 * (tests/blocked_host.c), the GPU one with the kernels of
 * kernels/blocks_00_diag.cu (launchers below) on device pointers.
 *
 * A triangle is row-major: lower is the elements (i, j) with i >= j,
 * upper those with i <= j, the diagonal in both. */
#ifndef TB_BLOCKS_H
#define TB_BLOCKS_H

#include "tb_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* syrk, herk, syr2k, her2k: the n x n diagonal block C of the call's C,
 * its triangle only, becomes beta C + P, P the block's product (alpha
 * already in it; NULL: no product, C = beta C). beta == 0 never reads C;
 * the other triangle is neither read nor written. herm (herk, her2k, beta
 * real): the diagonal is C(i, i) = beta re C(i, i) + re P(i, i), its
 * imaginary parts neither read nor kept, as the reference BLAS does. */
typedef struct tb_blk_merge {
    tb_dtype dtype;
    int n;
    int lower, herm;
    tb_scalar beta;
    const void *P; size_t ldp;
    void *C; size_t ldc;
} tb_blk_merge;

/* symm, hemm: S (n x n, scratch) = the whole symmetric matrix whose
 * triangle is stored in A: S(i, j) = S(j, i) = A(i, j) on the triangle;
 * herm: S(j, i) = conj(A(i, j)) and the diagonal real (its imaginary parts
 * are not read), as the reference BLAS reads a Hermitian matrix. Only A's
 * triangle is read. */
typedef struct tb_blk_full {
    tb_dtype dtype;
    int n;
    int lower, herm;
    const void *A; size_t lda;
    void *S; size_t lds;
} tb_blk_full;

/* trmm, trsm on one diagonal block, in place on B. T is the n x n
 * triangle of A (lower or upper; unit: ones on the diagonal, which is not
 * read), op(T) is T, T^T (trans 1) or T^H (trans 2, complex types only):
 *   solve 0, left:  B (n x m) = alpha op(T) B
 *   solve 0, right: B (m x n) = alpha B op(T)
 *   solve 1, left:  B (n x m) = alpha op(T)^-1 B   (substitution)
 *   solve 1, right: B (m x n) = alpha B op(T)^-1
 * Each column of B (left) or row (right) is one independent vector of n,
 * done in place element by element in an order along the triangle: by
 * substitution for a solve, as the reference BLAS solves, not by an
 * inverse. Only T's triangle is read. */
typedef struct tb_blk_tri {
    tb_dtype dtype;
    int solve, left;
    int lower, trans, unit;
    int n, m;
    tb_scalar alpha;
    const void *A; size_t lda;
    void *B; size_t ldb;
} tb_blk_tri;

/* The largest diagonal block of trmm and trsm that tri runs with its
 * block and a panel of vectors in shared memory (blocks_00_diag.cu); the
 * block size tb_l3_block gives them. */
#define TB_BLK_TRI_NB 64

/* kernels/blocks_00_diag.cu: each step as one launch on `stream`;
 * cudaSuccess or the launch error. */
cudaError_t tb_launch_blk_merge(const tb_blk_merge *a, cudaStream_t stream);
cudaError_t tb_launch_blk_full(const tb_blk_full *a, cudaStream_t stream);
cudaError_t tb_launch_blk_tri(const tb_blk_tri *a, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
