/* src/entry/entries.c - the exported BLAS entry points, every one made from
 * the table (src/core/blas.def): for each routine, precision and family of
 * names, a CBLAS and a Fortran entry point, written once per shape of
 * arguments. Each packs its arguments, as they came, into a tb_call and
 * hands it to the dispatcher (src/core/dispatch.c), which reads them; the
 * names only passed on (TB_FORWARDED) call the real BLAS's symbol. Nothing
 * here decides or computes. */
#include "tb_internal.h"
#include <stddef.h>
#include <string.h>

#define TB_EXPORT __attribute__((visibility("default")))

/* A CBLAS integer argument, taken whole: the 64 bits of its register or
 * stack slot. An ILP64 caller fills them; an LP64 caller's int leaves the
 * upper half undefined, so it is read as its low 32 bits (x86-64 psABI). */
typedef int64_t tb_iarg;

/* Every intercepted call enters here, out of line so that entry points
 * stay short: what the entry point kept, into a tb_call for the
 * dispatcher, which reads it. CBLAS: the layout, the options and integers
 * (i, whole 64-bit slots), the scalars and matrices (p), each in argument
 * order. Fortran: every argument's pointer (p). */
static __attribute__((noinline)) void tb_enter(tb_entry_id id, int layout, const int64_t *i,
                                               size_t ni, const void *const *p, size_t np)
{
    tb_call c = {.entry = &tb_entries[id], .layout = layout};
    memcpy(c.raw.i, i, ni * sizeof *i);
    memcpy(c.raw.p, p, np * sizeof *p);
    tb_dispatch(&c);
}

#define TB_LIST(...) __VA_ARGS__
#define TB_ENTER(ID, layout, I, P)                                                            \
    do {                                                                                      \
        const int64_t i_[] = {TB_LIST I};                                                     \
        const void *const p_[] = {TB_LIST P};                                                 \
        tb_enter(ID, layout, i_, sizeof i_ / sizeof *i_, p_, sizeof p_ / sizeof *p_);         \
    } while (0)
#define TB_ENTER_FORTRAN(ID, P)                                                               \
    do {                                                                                      \
        const void *const p_[] = {TB_LIST P};                                                 \
        tb_enter(ID, 0, NULL, 0, p_, sizeof p_ / sizeof *p_);                                 \
    } while (0)
/* A CBLAS scalar argument as a pointer: a complex one is the caller's, a
 * real one (by value) the address of the entry point's parameter. */
#define TB_SPTR(x) _Generic((x), const void *: (x), default: (const void *)&(x))

/* ---- Each shape's entry points (blas.def's TB_KIND) ----
 *
 * CBLAS: SA and SB are the C types of alpha and beta (TB_SCALAR_*). Fortran
 * (every argument by reference): the hidden lengths of the character
 * arguments that Fortran compilers append are accepted and not needed. */

/* cblas_xgemm: small calls cost the program next to nothing, one load,
 * one compare and a jump to the real BLAS (negative sizes land there too,
 * and the real BLAS reports them). The rest of the way is out of line
 * (<symbol>_slow), so that the scalars' addresses are taken there. */
#define TB_CBLAS_gemm(SYM, ID, T, SA, SB)                                                     \
    static __attribute__((noinline)) void TB_CAT(SYM, _slow, , , )(                           \
        int layout, int transa, int transb, tb_iarg m, tb_iarg n, tb_iarg k, SA alpha,        \
        const T *A, tb_iarg lda, const T *B, tb_iarg ldb, SB beta, T *C, tb_iarg ldc)         \
    {                                                                                         \
        TB_ENTER(ID, layout, (transa, transb, m, n, k, lda, ldb, ldc),                        \
                 (TB_SPTR(alpha), A, B, TB_SPTR(beta), C));                                   \
    }                                                                                         \
    TB_EXPORT void SYM(int layout, int transa, int transb, tb_iarg m, tb_iarg n, tb_iarg k,   \
                       SA alpha, const T *A, tb_iarg lda, const T *B, tb_iarg ldb, SB beta,   \
                       T *C, tb_iarg ldc)                                                     \
    {                                                                                         \
        typedef void (*real_fn)(int, int, int, tb_iarg, tb_iarg, tb_iarg, SA, const T *,      \
                                tb_iarg, const T *, tb_iarg, SB, T *, tb_iarg);               \
        real_fn real = (real_fn)tb_fast_real(ID);                                             \
        if (real && tb_fast_small(ID, m, n, k))                                               \
            real(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);       \
        else                                                                                  \
            TB_CAT(SYM, _slow, , , )(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,  \
                                     beta, C, ldc);                                           \
    }
#define TB_FORTRAN_gemm(SYM, ID, T)                                                           \
    TB_EXPORT void SYM(const char *transa, const char *transb, const void *m, const void *n,  \
                       const void *k, const void *alpha, const T *A, const void *lda,         \
                       const T *B, const void *ldb, const void *beta, T *C, const void *ldc,  \
                       size_t transa_len, size_t transb_len)                                  \
    {                                                                                         \
        TB_ENTER_FORTRAN(ID, (transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)); \
    }

/* symm, hemm */
#define TB_CBLAS_symm(SYM, ID, T, SA, SB)                                                     \
    TB_EXPORT void SYM(int layout, int side, int uplo, tb_iarg m, tb_iarg n, SA alpha,        \
                       const T *A, tb_iarg lda, const T *B, tb_iarg ldb, SB beta, T *C,       \
                       tb_iarg ldc)                                                           \
    {                                                                                         \
        TB_ENTER(ID, layout, (side, uplo, m, n, lda, ldb, ldc),                               \
                 (TB_SPTR(alpha), A, B, TB_SPTR(beta), C));                                   \
    }
#define TB_FORTRAN_symm(SYM, ID, T)                                                           \
    TB_EXPORT void SYM(const char *side, const char *uplo, const void *m, const void *n,      \
                       const void *alpha, const T *A, const void *lda, const T *B,            \
                       const void *ldb, const void *beta, T *C, const void *ldc,              \
                       size_t side_len, size_t uplo_len)                                      \
    {                                                                                         \
        TB_ENTER_FORTRAN(ID, (side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc));        \
    }

/* syrk, herk */
#define TB_CBLAS_syrk(SYM, ID, T, SA, SB)                                                     \
    TB_EXPORT void SYM(int layout, int uplo, int trans, tb_iarg n, tb_iarg k, SA alpha,       \
                       const T *A, tb_iarg lda, SB beta, T *C, tb_iarg ldc)                   \
    {                                                                                         \
        TB_ENTER(ID, layout, (uplo, trans, n, k, lda, ldc), (TB_SPTR(alpha), A,               \
                                                              TB_SPTR(beta), C));             \
    }
#define TB_FORTRAN_syrk(SYM, ID, T)                                                           \
    TB_EXPORT void SYM(const char *uplo, const char *trans, const void *n, const void *k,     \
                       const void *alpha, const T *A, const void *lda, const void *beta,      \
                       T *C, const void *ldc, size_t uplo_len, size_t trans_len)              \
    {                                                                                         \
        TB_ENTER_FORTRAN(ID, (uplo, trans, n, k, alpha, A, lda, beta, C, ldc));               \
    }

/* syr2k, her2k */
#define TB_CBLAS_syr2k(SYM, ID, T, SA, SB)                                                    \
    TB_EXPORT void SYM(int layout, int uplo, int trans, tb_iarg n, tb_iarg k, SA alpha,       \
                       const T *A, tb_iarg lda, const T *B, tb_iarg ldb, SB beta, T *C,       \
                       tb_iarg ldc)                                                           \
    {                                                                                         \
        TB_ENTER(ID, layout, (uplo, trans, n, k, lda, ldb, ldc),                              \
                 (TB_SPTR(alpha), A, B, TB_SPTR(beta), C));                                   \
    }
#define TB_FORTRAN_syr2k(SYM, ID, T)                                                          \
    TB_EXPORT void SYM(const char *uplo, const char *trans, const void *n, const void *k,     \
                       const void *alpha, const T *A, const void *lda, const T *B,            \
                       const void *ldb, const void *beta, T *C, const void *ldc,              \
                       size_t uplo_len, size_t trans_len)                                     \
    {                                                                                         \
        TB_ENTER_FORTRAN(ID, (uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc));       \
    }

/* trmm, trsm: no beta (SB unused); B is overwritten. */
#define TB_CBLAS_trmm(SYM, ID, T, SA, SB)                                                     \
    TB_EXPORT void SYM(int layout, int side, int uplo, int transa, int diag, tb_iarg m,       \
                       tb_iarg n, SA alpha, const T *A, tb_iarg lda, T *B, tb_iarg ldb)       \
    {                                                                                         \
        TB_ENTER(ID, layout, (side, uplo, transa, diag, m, n, lda, ldb),                      \
                 (TB_SPTR(alpha), A, B));                                                     \
    }
#define TB_FORTRAN_trmm(SYM, ID, T)                                                           \
    TB_EXPORT void SYM(const char *side, const char *uplo, const char *transa,                \
                       const char *diag, const void *m, const void *n, const void *alpha,     \
                       const T *A, const void *lda, T *B, const void *ldb, size_t side_len,   \
                       size_t uplo_len, size_t transa_len, size_t diag_len)                   \
    {                                                                                         \
        TB_ENTER_FORTRAN(ID, (side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb));        \
    }

/* ---- Every entry point of the table ---- */

/* A row's two entry points in one family, by its routine's kind. */
#define TB_ENTRY_KIND_(shape, a, b, r, x, T, fam, pre, cs, fs)                                \
    TB_CBLAS_##shape(TB_CAT(pre, cblas_, x, r, cs), TB_E_##fam##_##x##r##_cblas, T,          \
                     TB_SCALAR_##a##_##x, TB_SCALAR_##b##_##x)                               \
    TB_FORTRAN_##shape(TB_CAT(pre, , x, r, fs), TB_E_##fam##_##x##r##_fortran, T)
#define TB_ENTRY_KIND(...) TB_ENTRY_KIND_(__VA_ARGS__)
#define TB_ENTRY_ROW(r, x, T, P, fam, pre, cs, fs, w)                                         \
    TB_ENTRY_KIND(TB_KIND_##r, r, x, T, fam, pre, cs, fs)
#define TB_ENTRY_FAMILY(fam, pre, cs, fs, w) TB_ROUTINES(TB_ENTRY_ROW, fam, pre, cs, fs, w)
TB_FAMILIES(TB_ENTRY_FAMILY)

#define TB_ALIAS_ROW(r, x, T, P, fam, pre, fs, as)                                            \
    TB_EXPORT __typeof__(TB_CAT(pre, , x, r, fs)) TB_CAT(pre, , x, r, as)                     \
        __attribute__((alias(TB_STR(TB_CAT(pre, , x, r, fs)))));
#define TB_ALIAS_FAMILY(fam, pre, fs, as) TB_ROUTINES(TB_ALIAS_ROW, fam, pre, fs, as)
TB_FORTRAN_ALIASES(TB_ALIAS_FAMILY)

/* ---- The names only passed on (blas.def's TB_FORWARDED) ----
 *
 * <routine>_64_: every argument a pointer, passed as it came to the real
 * symbol, whose return value (an integer, a real or a complex one, in the
 * registers where the C convention puts them, as gfortran does) comes back
 * unchanged. With no real symbol (said once), 0. */
#define TB_FWD_ARGS_3 const void *a1, const void *a2, const void *a3
#define TB_FWD_ARGS_5 TB_FWD_ARGS_3, const void *a4, const void *a5
#define TB_FWD_PASS_3 a1, a2, a3
#define TB_FWD_PASS_5 TB_FWD_PASS_3, a4, a5
#define TB_FORWARDED_ENTRY(r, T, n)                                                           \
    TB_EXPORT T TB_FWD_SYMBOL(r)(TB_FWD_ARGS_##n)                                             \
    {                                                                                         \
        T (*real)(TB_FWD_ARGS_##n) = (T (*)(TB_FWD_ARGS_##n))tb_real_forwarded(TB_FWD_##r);   \
        return real ? real(TB_FWD_PASS_##n) : (T)0;                                           \
    }
TB_FORWARDED(TB_FORWARDED_ENTRY)
