/* bench/bench_l3.h - what bench_level3.c and bench_blocked.c share about
 * the level-3 routines but gemm: their names, the inputs, and one call of
 * each in column-major terms (the Fortran and cuBLAS convention), called
 * through a Fortran name.
 *
 * The calls are the row-major CBLAS calls bench_level3 makes (symm, hemm
 * Left Upper; syrk, herk, syr2k, her2k Upper NoTrans; trmm, trsm Left
 * Upper NoTrans NonUnit; every matrix n x n, alpha 1, beta 0.5) on the same
 * memory, as a column-major caller makes them: every matrix read
 * column-major is the transpose of the row-major one, so side and uplo
 * flip, syrk's family's trans flips (N -> T, herk's and her2k's N -> C) and
 * her2k's alpha is conjugated (1 here), trmm's and trsm's trans stays
 * (src/gpu/blocked.c's tb_l3_of maps them back). Both forms compute the
 * same matrix in the same memory. */
#ifndef TB_BENCH_L3_H
#define TB_BENCH_L3_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

static const char *const l3_routines[8] = {"symm", "hemm", "syrk", "herk", "syr2k", "her2k",
                                           "trmm", "trsm"};

/* Whether routine r (an index of l3_routines) exists in precision x: hemm,
 * herk and her2k for c and z only. */
static inline int l3_exists(int r, char x)
{
    return !(r == 1 || r == 3 || r == 5) || x == 'c' || x == 'z';
}

/* The shape of routine r's arguments: 0 symm, hemm; 1 syrk, herk; 2 syr2k,
 * her2k; 3 trmm, trsm. */
static inline int l3_shape(int r)
{
    return r < 6 ? r / 2 : 3;
}

/* 1 when name is an item of the comma-separated list. */
static inline int l3_listed(const char *list, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        const size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == len && !strncmp(p, name, l))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* Precision x (s d c z) is an item of the list ("s,d,c,z"). */
static inline int l3_prec_listed(const char *list, char x)
{
    const char px[2] = {x, 0};
    return l3_listed(list, px);
}

/* The sizes of a comma-separated list into n[0..max): how many, or -1 when
 * one is not a positive number or there are more than max. */
static inline int l3_sizes(const char *list, int *n, int max)
{
    int count = 0;
    for (const char *p = list; *p;) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (v <= 0 || v > 1 << 30 || (*end && *end != ',') || count == max)
            return -1;
        n[count++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return count;
}

/* Bytes of an element of precision x. */
static inline size_t l3_es(char x)
{
    return (x == 'd' || x == 'z' ? 8 : 4) * (x == 'c' || x == 'z' ? 2 : 1);
}

/* The inputs of order n in precision x: A, B and C0 uniform in [-1, 1)
 * (complex: both parts), the real parts of A's diagonal n + 1 (trsm's T
 * well conditioned). */
static inline void l3_inputs(char x, int n, void *A, void *B, void *C0)
{
    const int cx = x == 'c' || x == 'z', dbl = x == 'd' || x == 'z';
    const size_t elems = (size_t)n * n * (cx ? 2 : 1), rs = dbl ? 8 : 4;
    fill_uniform_es(A, elems, rs, 1);
    fill_uniform_es(B, elems, rs, 2);
    fill_uniform_es(C0, elems, rs, 3);
    for (size_t i = 0; i < (size_t)n; i++) {
        const size_t at = (i * (size_t)n + i) * (cx ? 2 : 1);
        if (dbl)
            ((double *)A)[at] = n + 1.0;
        else
            ((float *)A)[at] = (float)(n + 1.0);
    }
}

/* One call in column-major terms: options as Fortran's characters, C
 * (trmm's and trsm's in-out B) m x n, k syrk's family's depth, scalars by
 * pointer to the precision's real or complex type (herk's alpha and beta,
 * her2k's beta: the real part). */
typedef struct l3call {
    int r;           /* an index of l3_routines */
    char x;          /* s d c z */
    char side, uplo, trans, diag;
    int m, n, k;
    const void *alpha, *beta;
    const void *A;
    int lda;
    const void *B;   /* symm's family, syr2k's; NULL otherwise */
    int ldb;
    void *C;
    int ldc;
} l3call;

/* The column-major form of bench_level3's call of routine r in precision x
 * of order n on A, B and C (see the top of this file). */
static inline l3call l3_call(int r, char x, int n, const void *A, const void *B, void *C)
{
    static const double one_d[2] = {1.0, 0.0}, half_d[2] = {0.5, 0.0};
    static const float one_f[2] = {1.0f, 0.0f}, half_f[2] = {0.5f, 0.0f};
    const int dbl = x == 'd' || x == 'z', sh = l3_shape(r);
    l3call c = {r, x, 'R', 'L', 'N', 'N', n, n, n, dbl ? (const void *)one_d : (const void *)one_f,
                dbl ? (const void *)half_d : (const void *)half_f, A, n, NULL, n, C, n};
    if (sh == 1 || sh == 2)   /* syrk's family: Upper NoTrans row-major */
        c.trans = r == 3 || r == 5 ? 'C' : 'T';
    if (sh == 0 || sh == 2)
        c.B = B;
    return c;
}

/* The Fortran routines by shape: every argument by reference, then the
 * hidden lengths of the character arguments; one type serves every
 * precision. */
typedef void (*l3f_symm)(const char *, const char *, const int *, const int *, const void *,
                         const void *, const int *, const void *, const int *, const void *,
                         void *, const int *, size_t, size_t);
typedef void (*l3f_syrk)(const char *, const char *, const int *, const int *, const void *,
                         const void *, const int *, const void *, void *, const int *, size_t,
                         size_t);
typedef void (*l3f_syr2k)(const char *, const char *, const int *, const int *, const void *,
                          const void *, const int *, const void *, const int *, const void *,
                          void *, const int *, size_t, size_t);
typedef void (*l3f_trmm)(const char *, const char *, const char *, const char *, const int *,
                         const int *, const void *, const void *, const int *, void *,
                         const int *, size_t, size_t, size_t, size_t);

/* Call c through fn, the Fortran routine of c's routine and precision
 * (dsyrk_ for dsyrk). */
static inline void l3_fortran(void *fn, const l3call *c)
{
    switch (l3_shape(c->r)) {
    case 0:
        ((l3f_symm)fn)(&c->side, &c->uplo, &c->m, &c->n, c->alpha, c->A, &c->lda, c->B, &c->ldb,
                       c->beta, c->C, &c->ldc, 1, 1);
        break;
    case 1:
        ((l3f_syrk)fn)(&c->uplo, &c->trans, &c->n, &c->k, c->alpha, c->A, &c->lda, c->beta, c->C,
                       &c->ldc, 1, 1);
        break;
    case 2:
        ((l3f_syr2k)fn)(&c->uplo, &c->trans, &c->n, &c->k, c->alpha, c->A, &c->lda, c->B,
                        &c->ldb, c->beta, c->C, &c->ldc, 1, 1);
        break;
    default:
        ((l3f_trmm)fn)(&c->side, &c->uplo, &c->trans, &c->diag, &c->m, &c->n, c->alpha, c->A,
                       &c->lda, c->C, &c->ldc, 1, 1, 1, 1);
        break;
    }
}
#endif
