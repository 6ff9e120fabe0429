/* src/gpu/tb_blocked.h - the level-3 routines other than GEMM (symm, hemm,
 * syrk, herk, syr2k, her2k, trmm, trsm; s, d, c, z) as blocked algorithms
 * whose flops are GEMMs on blocks (blocked.c; docs/blocked.md).
 *
 * A call is put in one row-major form (tb_l3_of, the one mapping from a
 * column-major call), then cut recursively in halves at multiples of the
 * block size nb down to diagonal blocks of at most nb: every off-diagonal
 * block is one GEMM, every diagonal block one GEMM and one small step, or
 * one small step (trmm, trsm). Everything runs through an engine
 * (tb_l3_engine): a GEMM on the engine's pointers, three small steps on
 * diagonal blocks (kernels/tb_blocks.h) and scratch of nb x nb elements.
 * One code for every element type: the type and its size are data.
 *
 * The engines:
 * - the CPU engine of the tests (tests/blocked_host.c): plain loops on host
 *   pointers, against a long-double reference (tests/test_blocked.c).
 * - the GPU route (level3.c): A, B and C uploaded once, the engine on
 *   device pointers and one stream (tb_l3_device): gemm = tb_gemm_run
 *   (kernels/tb_kernels.h, the kernels GEMM runs on, complex included),
 *   the steps = kernels/blocks_00_diag.cu's launchers, scratch =
 *   tb_run_scratch; then the written part of C (of syrk's family the
 *   triangle alone) downloaded. bench/bench_blocked.c times the same
 *   engine on device buffers against cuBLAS.
 * Nothing in blocked.c knows which engine it drives. */
#ifndef TB_BLOCKED_H
#define TB_BLOCKED_H

#include "tb_internal.h"
#include "tb_blocks.h"

/* One level-3 call in row-major form. Its meaning is that of the reference
 * BLAS with every matrix read row-major (X(i, j) at X[i ld + j]), uplo and
 * side as stored (lower: the elements i >= j):
 *   symm, hemm  left:  C = alpha A B + beta C,  right: C = alpha B A + beta C
 *               (A the k x k matrix whose triangle is stored; hemm: Hermitian,
 *               its diagonal's imaginary parts not read)
 *   syrk, herk  C = alpha U U^T + beta C (herk: U U^H), U = op(A) n x k
 *   syr2k       C = alpha U V^T + alpha V U^T + beta C, V = op(B)
 *   her2k       C = alpha U V^H + conj(alpha) V U^H + beta C
 *   trmm        left: C = alpha op(T) C,       right: C = alpha C op(T)
 *   trsm        left: C = alpha op(T)^-1 C,    right: C = alpha C op(T)^-1
 *               (T the triangle of A, unit: ones on its diagonal)
 * op(X) is X (trans 0), X^T (1) or X^H (2, complex types only). C is m x n
 * (syrk's family: n x n, only its triangle read and written); k is the
 * order of A (symm, trmm, trsm: m on the left, n on the right) or the
 * depth (syrk's family). trmm's and trsm's in-out matrix B is C here. */
typedef struct tb_l3 {
    tb_routine routine;       /* TB_R_symm ... TB_R_trsm                  */
    tb_dtype dtype;
    int left, lower, trans, unit;
    int m, n, k;
    tb_scalar alpha, beta;    /* herk: both real; her2k: beta real       */
    const void *A; size_t lda;
    const void *B; size_t ldb;
    void *C; size_t ldc;
} tb_l3;

/* A read, legal call (tb_call_read, tb_call_illegal 0) of one of the eight
 * routines in row-major form; -1 for any other routine (gemm). A
 * column-major call is the row-major call of the transposes: every matrix
 * read row-major is its transpose, so m and n swap, side and uplo flip,
 * syrk's family's trans flips (N <-> T, herk's N <-> C: C^T = (op(A)
 * op(A)^T)^T = op'(A')^T op'(A')), her2k's alpha is conjugated (its two
 * terms swap), and trmm's and trsm's trans stays (op(A)^T is op(A^T)). A
 * real type's C is its T. */
TB_HIDDEN int tb_l3_of(const tb_call *c, tb_l3 *p);

/* The engine: ctx is handed to every function. Each returns 0 or an error
 * of its own (the GPU's: a cudaError_t), which stops the run. */
typedef struct tb_l3_engine {
    void *ctx;
    int (*gemm)(void *ctx, const tb_gemm *g);
    int (*merge)(void *ctx, const tb_blk_merge *a);
    int (*full)(void *ctx, const tb_blk_full *a);
    int (*tri)(void *ctx, const tb_blk_tri *a);
    /* bytes of scratch on the engine's side (NULL: none to be had), and
     * their release after the steps that use them */
    void *(*scratch)(void *ctx, size_t bytes);
    void (*scratch_free)(void *ctx, void *p);
} tb_l3_engine;

/* Runs p with diagonal blocks of at most nb (>= 1) on engine e: 0, the
 * engine's first error, or TB_L3_NO_SCRATCH. The engine's GEMMs and steps
 * come in an order that is correct when each runs after the one before
 * (one stream). */
#define TB_L3_NO_SCRATCH (-1)
TB_HIDDEN int tb_l3_run(const tb_l3 *p, int nb, const tb_l3_engine *e);

/* The scratch tb_l3_run asks for: nb x nb elements for symm's and syrk's
 * families, none for trmm and trsm. */
TB_HIDDEN size_t tb_l3_scratch_bytes(const tb_l3 *p, int nb);

/* The block size for p: the order of its diagonal blocks, d the order of C
 * (syrk's family) or of A (docs/blocked.md has the times behind it,
 * bench_blocked --nb):
 *   symm's and syrk's families: d / 4 (at least 32): diagonal GEMMs large
 *     enough to fill the GPU, few steps, and K cut in four parts (smaller
 *     blocks are slower; the whole of A at once is a little faster, with
 *     twice the error: one GEMM over all of K); syrk's family's diagonal
 *     products want their triangle alone (tb_gemm.tri): a kernel that
 *     computes the other too spends nb / d of the call's flops there;
 *   trmm, trsm: TB_BLK_TRI_NB (64), the largest block whose diagonal
 *     step runs from shared memory, a panel of vectors a thread block;
 *     the flops of the diagonal steps are nb / d of the call's. */
TB_HIDDEN int tb_l3_block(const tb_l3 *p);

/* ---- The GPU route (level3.c) ---- */
/* d (device pointers) run by the route's device engine, queued on stream
 * st and not waited for: tb_l3_run at block size nb (0: tb_l3_block's), every GEMM
 * through tb_gemm_run with tb_choose_kernel's kernel (TILEDBLAS_KERNEL's
 * where it fits, else the registry's pick), the steps by
 * blocks_00_diag.cu's launchers, scratch from the run's pool.
 * What the route runs between its upload and its download, and what
 * bench/bench_blocked.c times against cuBLAS. Returns tb_l3_run's answer;
 * *kernel (when kernel is not NULL): the first GEMM's kernel, "blocks" when
 * none ran. */
TB_HIDDEN int tb_l3_device(const tb_l3 *d, int nb, cudaStream_t st, const char **kernel);

/* ---- The GPU route's CPU side (level3.c) ---- */
/* The order the GPU route downloads p's C in: 1 from the last row up, 0
 * from the first down, so that the rows a failure leaves unwritten are one
 * call of p's routine of their own (tb_l3_complete). */
TB_HIDDEN int tb_l3_order(const tb_l3 *p);
/* After `done` rows of p's C (row-major form) were written in the order
 * last_first, the rest holding the caller's input still: the CPU BLAS
 * computes the rest, as one call of the routine on them (through
 * tb_call_part; c the call p was made from) and, for symm and hemm on the
 * left, one GEMM. */
TB_HIDDEN void tb_l3_complete(const tb_call *c, const tb_l3 *p, size_t done, int last_first);

#endif
