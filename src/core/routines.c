/* src/core/routines.c - the table of blas.def as data: every entry point's
 * symbol, routine, precision, family, interface and integer width; each
 * routine's reading of its arguments, and its legality check, numbered as
 * the reference BLAS numbers its arguments. Calls nothing: every stage may
 * use it. */
#include "tb_internal.h"
#include <stddef.h>
#include <stdint.h>


/* A routine's two entries in one family: the CBLAS name and its label
 * (the name without "cblas_"), the Fortran name (its own label). */
#define TB_ENTRY_ROWS(r, x, T, P, fam, pre, cs, fs, w)                                   \
    [TB_E_##fam##_##x##r##_cblas] = {TB_STR(TB_CAT(pre, cblas_, x, r, cs)),                  \
                                     TB_STR(TB_CAT(pre, , x, r, cs)), TB_R_##r, P,   \
                                     TB_API_CBLAS, TB_FAM_##fam, w,                          \
                                     TB_E_##fam##_##x##r##_cblas},                           \
    [TB_E_##fam##_##x##r##_fortran] = {TB_STR(TB_CAT(pre, , x, r, fs)),                      \
                                       TB_STR(TB_CAT(pre, , x, r, fs)), TB_R_##r, P, \
                                       TB_API_FORTRAN, TB_FAM_##fam, w,                      \
                                       TB_E_##fam##_##x##r##_fortran},
#define TB_ENTRY_FAMILY(fam, pre, cs, fs, w) TB_ROUTINES(TB_ENTRY_ROWS, fam, pre, cs, fs, w)

const tb_entry tb_entries[TB_ENTRY_COUNT] = {TB_FAMILIES(TB_ENTRY_FAMILY)};

const char *tb_family_name(tb_family f)
{
#define TB_FAMILY_NAME(fam, pre, cs, fs, w) #fam,
    static const char *const names[TB_FAM_COUNT] = {TB_FAMILIES(TB_FAMILY_NAME)};
    return (unsigned)f < TB_FAM_COUNT ? names[f] : "?";
}

const tb_entry *tb_entry_of(tb_routine r, tb_prec p, tb_family f, tb_api api)
{
    for (int i = 0; i < TB_ENTRY_COUNT; i++) {
        const tb_entry *e = &tb_entries[i];
        if (e->routine == r && e->prec == p && e->family == f && e->api == api)
            return e;
    }
    return NULL;
}

/* ---- Legality, as the reference BLAS checks each routine ---- */

static int tb_max1(int x) { return x > 1 ? x : 1; }

static int tb_trans_ok(int t) { return t == TB_NO_TRANS || t == TB_TRANS || t == TB_CONJ_TRANS; }

/* xGEMM. Fortran: TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13.
 * CBLAS: layout 1, TransA 2, TransB 3, M 4, N 5, K 6, lda 9, ldb 11, ldc
 * 14; row-major is checked in the order of the column-major call it is (N
 * before M, ldb before lda), as the reference CBLAS does. */
static int tb_gemm_illegal(const tb_call *c)
{
    const int ta = c->transa != TB_NO_TRANS, tb = c->transb != TB_NO_TRANS;
    if (c->api == TB_API_FORTRAN) {
        if (!tb_trans_ok(c->transa)) return 1;
        if (!tb_trans_ok(c->transb)) return 2;
        if (c->m < 0) return 3;
        if (c->n < 0) return 4;
        if (c->k < 0) return 5;
        if (c->lda < tb_max1(ta ? c->k : c->m)) return 8;
        if (c->ldb < tb_max1(tb ? c->n : c->k)) return 10;
        if (c->ldc < tb_max1(c->m)) return 13;
        return 0;
    }
    if (c->layout != TB_ROW_MAJOR && c->layout != TB_COL_MAJOR) return 1;
    if (!tb_trans_ok(c->transa)) return 2;
    if (!tb_trans_ok(c->transb)) return 3;
    if (c->layout == TB_COL_MAJOR) {
        if (c->m < 0) return 4;
        if (c->n < 0) return 5;
        if (c->k < 0) return 6;
        if (c->lda < tb_max1(ta ? c->k : c->m)) return 9;
        if (c->ldb < tb_max1(tb ? c->n : c->k)) return 11;
        if (c->ldc < tb_max1(c->m)) return 14;
        return 0;
    }
    if (c->n < 0) return 5;
    if (c->m < 0) return 4;
    if (c->k < 0) return 6;
    if (c->ldb < tb_max1(tb ? c->k : c->n)) return 11;
    if (c->lda < tb_max1(ta ? c->m : c->k)) return 9;
    if (c->ldc < tb_max1(c->n)) return 14;
    return 0;
}

/* ---- Reading a call's arguments ---- */

/* 'N', 'T', 'C' in either case, as the reference BLAS accepts them; any
 * other character makes the call illegal, and the real BLAS reports it. */
static int tb_fortran_trans(const char *t)
{
    switch (t ? *t : 0) {
    case 'N': case 'n': return TB_NO_TRANS;
    case 'T': case 't': return TB_TRANS;
    case 'C': case 'c': return TB_CONJ_TRANS;
    default: return 0;
    }
}

/* An integer argument at width w: a CBLAS one from its whole slot, a
 * Fortran one through its pointer. Width 0 (unknown) reads 32 bits, for
 * reports only. */
static int64_t tb_int_val(int64_t v, int w) { return w == 8 ? v : (int32_t)v; }
static int64_t tb_int_ref(const void *p, int w)
{
    return w == 8 ? *(const int64_t *)p : *(const int32_t *)p;
}

/* Stores v into *dst, marking the call when v does not fit an int. */
static void tb_int_set(tb_call *c, int *dst, int64_t v)
{
    if (v != (int)v)
        c->ints = TB_INTS_WIDE;
    *dst = (int)v;
}

static double tb_scalar_ref(tb_prec prec, const void *p)
{
    return prec == TB_DOUBLE ? *(const double *)p : *(const float *)p;
}

/* xGEMM: CBLAS raw.i is m, n, k, lda, ldb, ldc; Fortran raw.p is TRANSA,
 * TRANSB, M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC. */
static void tb_gemm_read(tb_call *c, int w)
{
    int *const dst[6] = {&c->m, &c->n, &c->k, &c->lda, &c->ldb, &c->ldc};
    if (c->api == TB_API_CBLAS) {
        for (int i = 0; i < 6; i++)
            tb_int_set(c, dst[i], tb_int_val(c->raw.i[i], w));
        return;
    }
    const void *const *p = c->raw.p;
    static const int at[6] = {2, 3, 4, 7, 9, 12};
    for (int i = 0; i < 6; i++)
        tb_int_set(c, dst[i], tb_int_ref(p[at[i]], w));
    c->fta = p[0];
    c->ftb = p[1];
    c->layout = TB_COL_MAJOR;
    c->transa = tb_fortran_trans(c->fta);
    c->transb = tb_fortran_trans(c->ftb);
    c->alpha = tb_scalar_ref(c->prec, p[5]);
    c->beta = tb_scalar_ref(c->prec, p[10]);
}

void tb_call_read(tb_call *c, int width)
{
    c->api = c->entry->api;
    c->prec = c->entry->prec;
    c->ints = width ? TB_INTS_OK : TB_INTS_UNKNOWN;
    switch (c->entry->routine) {
    case TB_R_gemm: tb_gemm_read(c, width); break;
    default: break;
    }
}

int tb_call_illegal(const tb_call *c)
{
    switch (c->entry->routine) {
    case TB_R_gemm: return tb_gemm_illegal(c);
    default: return 0;
    }
}
