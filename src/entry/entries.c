/* src/entry/entries.c - the exported BLAS entry points, every one made from
 * the table (src/core/blas.def): for each routine, precision and family of
 * names, a CBLAS and a Fortran entry point. Each packs its arguments, as
 * they came, into a tb_call and hands it to the dispatcher
 * (src/core/dispatch.c), which reads them; nothing here decides or
 * computes. */
#include "tb_internal.h"
#include <stddef.h>

#define TB_EXPORT __attribute__((visibility("default")))

/* A CBLAS integer argument, taken whole: the 64 bits of its register or
 * stack slot. An ILP64 caller fills them; an LP64 caller's int leaves the
 * upper half undefined, so it is read as its low 32 bits (x86-64 psABI). */
typedef int64_t tb_iarg;

/* ---- xGEMM ---- */

/* Everything a CBLAS xgemm call does past its fast path, out of line so
 * that the entry point stays short: its arguments into a tb_call, the
 * integers whole (the dispatcher reads them at the BLAS's width). Scalars
 * come as doubles: a float's value converts exactly both ways. */
static __attribute__((noinline)) void tb_gemm_cblas(tb_entry_id id, int layout, int transa,
                                                    int transb, tb_iarg m, tb_iarg n, tb_iarg k,
                                                    double alpha, const void *A, tb_iarg lda,
                                                    const void *B, tb_iarg ldb, double beta,
                                                    void *C, tb_iarg ldc)
{
    const tb_entry *e = &tb_entries[id];
    tb_call c = {.entry = e, .layout = layout, .transa = transa, .transb = transb,
                 .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C,
                 .raw.i = {m, n, k, lda, ldb, ldc}};
    tb_dispatch(&c);
}

/* A Fortran xgemm call: every argument by reference, kept in raw.p in
 * order (the dispatcher reads them; the real BLAS gets them as they came). */
static void tb_gemm_fortran(tb_entry_id id, const void *transa, const void *transb,
                            const void *m, const void *n, const void *k, const void *alpha,
                            const void *A, const void *lda, const void *B, const void *ldb,
                            const void *beta, void *C, const void *ldc)
{
    tb_call c = {.entry = &tb_entries[id], .A = A, .B = B, .C = C,
                 .raw.p = {transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc}};
    tb_dispatch(&c);
}

/* cblas_xgemm: small calls cost the program next to nothing, one load,
 * one compare and a jump to the real BLAS (negative sizes land there too,
 * and the real BLAS reports them). */
#define TB_ENTRY_gemm_cblas(SYM, ID, T)                                                       \
    TB_EXPORT void SYM(int layout, int transa, int transb, tb_iarg m, tb_iarg n, tb_iarg k,   \
                       T alpha, const T *A, tb_iarg lda, const T *B, tb_iarg ldb, T beta,     \
                       T *C, tb_iarg ldc)                                                     \
    {                                                                                         \
        typedef void (*real_fn)(int, int, int, tb_iarg, tb_iarg, tb_iarg, T, const T *,       \
                                tb_iarg, const T *, tb_iarg, T, T *, tb_iarg);                \
        real_fn real = (real_fn)tb_fast_real(ID);                                             \
        if (real && tb_fast_small(ID, m, n, k))                                               \
            real(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);       \
        else                                                                                  \
            tb_gemm_cblas(ID, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,   \
                          C, ldc);                                                            \
    }

/* xgemm_: the hidden lengths of the two character arguments that Fortran
 * compilers append are accepted and not needed. */
#define TB_ENTRY_gemm_fortran(SYM, ID, T)                                                     \
    TB_EXPORT void SYM(const char *transa, const char *transb, const void *m, const void *n,  \
                       const void *k, const T *alpha, const T *A, const void *lda,            \
                       const T *B, const void *ldb, const T *beta, T *C, const void *ldc,     \
                       size_t transa_len, size_t transb_len)                                  \
    {                                                                                         \
        (void)transa_len;                                                                     \
        (void)transb_len;                                                                     \
        tb_gemm_fortran(ID, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);   \
    }

/* ---- Every entry point of the table ---- */

#define TB_ENTRY_ROW(r, x, T, P, fam, pre, cs, fs, w)                                         \
    TB_ENTRY_##r##_cblas(TB_CAT(pre, cblas_, x, r, cs), TB_E_##fam##_##x##r##_cblas, T)       \
    TB_ENTRY_##r##_fortran(TB_CAT(pre, , x, r, fs), TB_E_##fam##_##x##r##_fortran, T)
#define TB_ENTRY_FAMILY(fam, pre, cs, fs, w) TB_ROUTINES(TB_ENTRY_ROW, fam, pre, cs, fs, w)
TB_FAMILIES(TB_ENTRY_FAMILY)

#define TB_ALIAS_ROW(r, x, T, P, fam, pre, fs, as)                                            \
    TB_EXPORT __typeof__(TB_CAT(pre, , x, r, fs)) TB_CAT(pre, , x, r, as)                     \
        __attribute__((alias(TB_STR(TB_CAT(pre, , x, r, fs)))));
#define TB_ALIAS_FAMILY(fam, pre, fs, as) TB_ROUTINES(TB_ALIAS_ROW, fam, pre, fs, as)
TB_FORTRAN_ALIASES(TB_ALIAS_FAMILY)
