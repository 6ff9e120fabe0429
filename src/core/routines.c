/* src/core/routines.c - the table of blas.def as data: every entry point's
 * symbol, routine, precision, family, interface and integer width; each
 * shape of arguments' reading and legality check, numbered as the
 * reference BLAS numbers its arguments; what decision lines and statistics
 * say of a call (its options, its flops); which calls have a GPU path; a
 * gemm call as the row-major product the GPU and CPU paths run
 * (tb_normalise). Calls nothing: every stage may use it. */
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

const tb_entry *tb_entry_of(tb_routine r, tb_prec p, tb_family f, tb_api api)
{
    for (int i = 0; i < TB_ENTRY_COUNT; i++) {
        const tb_entry *e = &tb_entries[i];
        if (e->routine == r && e->prec == p && e->family == f && e->api == api)
            return e;
    }
    return NULL;
}

const char *tb_routine_name(tb_routine r)
{
#define TB_ROUTINE_NAME(r) #r,
    static const char *const names[TB_ROUTINE_COUNT] = {TB_ROUTINE_NAMES(TB_ROUTINE_NAME)};
    return (unsigned)r < TB_ROUTINE_COUNT ? names[r] : "?";
}

int tb_entry_on_gpu(const tb_entry *e)
{
    return e->routine == TB_R_gemm && !tb_prec_complex(e->prec);
}

/* ---- Each routine's shape of arguments (blas.def's TB_KIND) ----
 *
 * TB_SHAPE_<shape>(O, I, S, M): the shape's arguments in the order both
 * interfaces take them (CBLAS after its layout): O an option, I an
 * integer, S a scalar, M a matrix, each with the tb_call field it is read
 * into and the letter tb_routine_arg names it by: the options s (side), u
 * (uplo), t (transa, syrk's trans), T (transb), d (diag); the sizes M, N,
 * K; the scalars a (alpha), b (beta); the matrices A, B, C and their
 * leading dimensions x, y, z. The readers and option checks below are made
 * from these, one straight run of code per shape. */
#define TB_SHAPE_gemm(O, I, S, M)                                                             \
    O('t', transa) O('T', transb) I('M', m) I('N', n) I('K', k) S('a', alpha) M('A', A)      \
    I('x', lda) M('B', B) I('y', ldb) S('b', beta) M('C', C) I('z', ldc)
#define TB_SHAPE_symm(O, I, S, M)                                                             \
    O('s', side) O('u', uplo) I('M', m) I('N', n) S('a', alpha) M('A', A) I('x', lda)        \
    M('B', B) I('y', ldb) S('b', beta) M('C', C) I('z', ldc)
#define TB_SHAPE_syrk(O, I, S, M)                                                             \
    O('u', uplo) O('t', transa) I('N', n) I('K', k) S('a', alpha) M('A', A) I('x', lda)      \
    S('b', beta) M('C', C) I('z', ldc)
#define TB_SHAPE_syr2k(O, I, S, M)                                                            \
    O('u', uplo) O('t', transa) I('N', n) I('K', k) S('a', alpha) M('A', A) I('x', lda)      \
    M('B', B) I('y', ldb) S('b', beta) M('C', C) I('z', ldc)
#define TB_SHAPE_trmm(O, I, S, M)                                                             \
    O('s', side) O('u', uplo) O('t', transa) O('d', diag) I('M', m) I('N', n) S('a', alpha)  \
    M('A', A) I('x', lda) M('B', B) I('y', ldb)
#define TB_SHAPES(X) X(gemm) X(symm) X(syrk) X(syr2k) X(trmm)

#define TB_SH_ENUM(sh) TB_SH_##sh,
enum { TB_SHAPES(TB_SH_ENUM) TB_SH_COUNT };

/* Each shape's letters, as a string. */
#define TB_LETTER(l, f) l,
#define TB_ARGS(sh)                                                                           \
    static const char tb_args_##sh[] = {TB_SHAPE_##sh(TB_LETTER, TB_LETTER, TB_LETTER, TB_LETTER) 0};
TB_SHAPES(TB_ARGS)
#define TB_ARGS_ROW(sh) [TB_SH_##sh] = tb_args_##sh,
static const char *const tb_args[TB_SH_COUNT] = {TB_SHAPES(TB_ARGS_ROW)};

/* A routine's shape and the kinds of its alpha and beta: S a scalar of
 * the element type, R of its real type. */
enum { TB_SK_S, TB_SK_R };
typedef struct tb_kind { int shape, alpha, beta; } tb_kind;
#define TB_KIND_OF_(shape, a, b) {TB_SH_##shape, TB_SK_##a, TB_SK_##b}
#define TB_KIND_OF(...) TB_KIND_OF_(__VA_ARGS__)
#define TB_KIND_ROW(r) [TB_R_##r] = TB_KIND_OF(TB_KIND_##r),
static const tb_kind tb_kinds[TB_ROUTINE_COUNT] = {TB_ROUTINE_NAMES(TB_KIND_ROW)};

static const tb_kind *tb_kind_of(const tb_call *c) { return &tb_kinds[c->entry->routine]; }

int tb_routine_arity(tb_routine r)
{
#define TB_ARITY_ROW(sh) [TB_SH_##sh] = (int)sizeof tb_args_##sh - 1,
    static const int arity[TB_SH_COUNT] = {TB_SHAPES(TB_ARITY_ROW)};
    return arity[tb_kinds[r].shape];
}

char tb_routine_arg(tb_routine r, int j)
{
    return j >= 0 && j < tb_routine_arity(r) ? tb_args[tb_kinds[r].shape][j] : 0;
}

/* The value of option letter a (0 for a letter that is none). */
static int tb_option_value(const tb_call *c, char a)
{
    return a == 's' ? c->side : a == 'u' ? c->uplo : a == 't' ? c->transa
         : a == 'T' ? c->transb : a == 'd' ? c->diag : 0;
}

static int tb_is_option(char a) { return a == 's' || a == 'u' || a == 't' || a == 'T' || a == 'd'; }

/* ---- Legality, as the reference BLAS checks each shape ---- */

static int tb_max1(int x) { return x > 1 ? x : 1; }

/* Is v a legal value of option letter a for the call's routine? Complex
 * syrk and syr2k take N and T, herk and her2k N and C. */
static inline int tb_option_ok(const tb_call *c, char a, int v)
{
    if (a == 's')
        return v == TB_LEFT || v == TB_RIGHT;
    if (a == 'u')
        return v == TB_UPPER || v == TB_LOWER;
    if (a == 'd')
        return v == TB_UNIT || v == TB_NON_UNIT;
    const tb_routine r = c->entry->routine;
    if (r == TB_R_herk || r == TB_R_her2k)
        return v == TB_NO_TRANS || v == TB_CONJ_TRANS;
    if ((r == TB_R_syrk || r == TB_R_syr2k) && tb_prec_complex(c->prec))
        return v == TB_NO_TRANS || v == TB_TRANS;
    return v == TB_NO_TRANS || v == TB_TRANS || v == TB_CONJ_TRANS;
}

/* Each shape's options in argument order: the number (Fortran's from 1)
 * of the first illegal one, 0 when all are legal. */
#define TB_CHECK_OPTION(l, f)                                                                 \
    if (!tb_option_ok(c, l, c->f))                                                            \
        return j + 1;                                                                         \
    j++;
#define TB_NEXT(l, f) j++;
#define TB_OPTIONS(sh)                                                                        \
    static int tb_options_##sh(const tb_call *c)                                              \
    {                                                                                         \
        int j = 0;                                                                            \
        TB_SHAPE_##sh(TB_CHECK_OPTION, TB_NEXT, TB_NEXT, TB_NEXT)                             \
        return 0;                                                                             \
    }
TB_SHAPES(TB_OPTIONS)

/* The Fortran routines' checks of the sizes and leading dimensions of a
 * column-major call, by their argument numbers. ta, tb: op(A), op(B) are
 * transposes; left: A multiplies from the left; nt: syrk's TRANS is N;
 * two: syr2k (with B). */
static int tb_gemm_dims(int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < tb_max1(ta ? k : m)) return 8;
    if (ldb < tb_max1(tb ? n : k)) return 10;
    if (ldc < tb_max1(m)) return 13;
    return 0;
}

static int tb_symm_dims(int left, int m, int n, int lda, int ldb, int ldc)
{
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (lda < tb_max1(left ? m : n)) return 7;
    if (ldb < tb_max1(m)) return 9;
    if (ldc < tb_max1(m)) return 12;
    return 0;
}

static int tb_syrk_dims(int two, int nt, int n, int k, int lda, int ldb, int ldc)
{
    if (n < 0) return 3;
    if (k < 0) return 4;
    if (lda < tb_max1(nt ? n : k)) return 7;
    if (two && ldb < tb_max1(nt ? n : k)) return 9;
    if (ldc < tb_max1(n)) return two ? 12 : 10;
    return 0;
}

static int tb_trmm_dims(int left, int m, int n, int lda, int ldb)
{
    if (m < 0) return 5;
    if (n < 0) return 6;
    if (lda < tb_max1(left ? m : n)) return 9;
    if (ldb < tb_max1(m)) return 11;
    return 0;
}

/* x with the numbers a and b swapped. */
static int tb_swap(int x, int a, int b) { return x == a ? b : x == b ? a : x; }

/* Fortran numbers the arguments from 1. The reference CBLAS checks the
 * layout (1) and the options itself, then calls the Fortran routine, which
 * checks the rest: numbers one more, for the layout. A row-major call is
 * made as the column-major call of the transposed problem: gemm's A and B,
 * M and N swap (and so their transposes and leading dimensions), symm's,
 * trmm's and trsm's M and N swap and the side flips, syrk's trans flips.
 * Its checks come in that call's order and are numbered by where the
 * argument stands in the CBLAS call, as the reference CBLAS's tests expect
 * (gemm: N before M, ldb before lda). */
int tb_call_illegal(const tb_call *c)
{
    const int cblas = c->api == TB_API_CBLAS;
    if (cblas && c->layout != TB_ROW_MAJOR && c->layout != TB_COL_MAJOR)
        return 1;
    const int shape = tb_kind_of(c)->shape;
    int f = 0;
#define TB_OPTIONS_CASE(sh) case TB_SH_##sh: f = tb_options_##sh(c); break;
    switch (shape) {
    TB_SHAPES(TB_OPTIONS_CASE)
    }
    if (f)
        return f + cblas;
    const int row = cblas && c->layout == TB_ROW_MAJOR;
    const int ta = c->transa != TB_NO_TRANS, tb = c->transb != TB_NO_TRANS;
    const int left = c->side == TB_LEFT;
    switch (shape) {
    case TB_SH_gemm:
        f = row ? tb_swap(tb_swap(tb_gemm_dims(tb, ta, c->n, c->m, c->k, c->ldb, c->lda, c->ldc),
                                  3, 4), 8, 10)
                : tb_gemm_dims(ta, tb, c->m, c->n, c->k, c->lda, c->ldb, c->ldc);
        break;
    case TB_SH_symm:
        f = row ? tb_swap(tb_symm_dims(!left, c->n, c->m, c->lda, c->ldb, c->ldc), 3, 4)
                : tb_symm_dims(left, c->m, c->n, c->lda, c->ldb, c->ldc);
        break;
    case TB_SH_syrk:
    case TB_SH_syr2k:
        f = tb_syrk_dims(shape == TB_SH_syr2k, ta == row, c->n, c->k, c->lda, c->ldb, c->ldc);
        break;
    case TB_SH_trmm:
        f = row ? tb_swap(tb_trmm_dims(!left, c->n, c->m, c->lda, c->ldb), 5, 6)
                : tb_trmm_dims(left, c->m, c->n, c->lda, c->ldb);
        break;
    }
    return f && cblas ? f + 1 : f;
}

/* ---- Reading a call's arguments ---- */

/* A Fortran option character, in either case as the reference BLAS
 * accepts them, as its CBLAS value; 0 for any other character (the call
 * is then illegal, and the real BLAS reports it). */
static inline int tb_fortran_option(char a, const char *p)
{
    int v = p ? (unsigned char)*p : 0;
    if (v >= 'a' && v <= 'z')
        v -= 'a' - 'A';
    switch (a) {
    case 's': return v == 'L' ? TB_LEFT : v == 'R' ? TB_RIGHT : 0;
    case 'u': return v == 'U' ? TB_UPPER : v == 'L' ? TB_LOWER : 0;
    case 'd': return v == 'U' ? TB_UNIT : v == 'N' ? TB_NON_UNIT : 0;
    default: return v == 'N' ? TB_NO_TRANS : v == 'T' ? TB_TRANS : v == 'C' ? TB_CONJ_TRANS : 0;
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

/* A scalar of kind `kind` through its pointer (NULL reads 0): its real
 * part into *re, its imaginary part (a complex scalar's) into *im. */
static void tb_scalar(const tb_call *c, int kind, const void *p, double *re, double *im)
{
    const int dbl = c->prec == TB_DOUBLE || c->prec == TB_ZCOMPLEX;
    const int two = kind == TB_SK_S && tb_prec_complex(c->prec);
    *re = *im = 0.0;
    if (!p)
        return;
    *re = dbl ? ((const double *)p)[0] : ((const float *)p)[0];
    if (two)
        *im = dbl ? ((const double *)p)[1] : ((const float *)p)[1];
}

/* Each shape's reader: a CBLAS call's options and integers come from
 * raw.i, its scalars and matrices from raw.p, each in turn; a Fortran
 * call's argument j is raw.p[j]. Inlined into each interface's case. */
#define TB_READ_OPTION(l, f)                                                                  \
    c->f = cblas ? (int)c->raw.i[ni++] : tb_fortran_option(l, c->raw.p[j]);                   \
    j++;
#define TB_READ_INT(l, f)                                                                     \
    tb_int_set(c, &c->f, cblas ? tb_int_val(c->raw.i[ni++], w) : tb_int_ref(c->raw.p[j], w)); \
    j++;
#define TB_READ_SCALAR(l, f)                                                                  \
    tb_scalar(c, kd->f, cblas ? c->raw.p[np++] : c->raw.p[j], &c->f, &c->f##_im);            \
    j++;
#define TB_READ_MATRIX(l, f)                                                                  \
    c->f = (void *)(cblas ? c->raw.p[np++] : c->raw.p[j]);                                    \
    j++;
#define TB_READER(sh)                                                                         \
    static inline __attribute__((always_inline)) void tb_read_##sh(tb_call *c, int w,       \
                                                                   int cblas, const tb_kind *kd) \
    {                                                                                         \
        int j = 0, ni = 0, np = 0;                                                            \
        TB_SHAPE_##sh(TB_READ_OPTION, TB_READ_INT, TB_READ_SCALAR, TB_READ_MATRIX)            \
    }
TB_SHAPES(TB_READER)

void tb_call_read(tb_call *c, int w)
{
    c->api = c->entry->api;
    c->prec = c->entry->prec;
    c->ints = w ? TB_INTS_OK : TB_INTS_UNKNOWN;
    const int cblas = c->api == TB_API_CBLAS;
    if (!cblas)
        c->layout = TB_COL_MAJOR;
    const tb_kind *kd = tb_kind_of(c);
#define TB_READ_CASE(sh)                                                                      \
    case TB_SH_##sh:                                                                          \
        if (cblas)                                                                            \
            tb_read_##sh(c, w, 1, kd);                                                        \
        else                                                                                  \
            tb_read_##sh(c, w, 0, kd);                                                        \
        break;
    switch (kd->shape) {
    TB_SHAPES(TB_READ_CASE)
    }
    /* The product's m, n, k (tb_call). */
    if (kd->shape == TB_SH_syrk || kd->shape == TB_SH_syr2k)
        c->m = c->n;
    else if (kd->shape != TB_SH_gemm)
        c->k = c->side == TB_RIGHT ? c->n : c->m;
}

/* ---- What reports say of a call ---- */

const char *tb_call_ops(const tb_call *c, char *buf)
{
    const char *args = tb_args[tb_kind_of(c)->shape];
    int n = 0;
    for (int j = 0; args[j]; j++) {
        const char a = args[j];
        if (!tb_is_option(a))
            continue;
        const int v = tb_option_value(c, a);
        char o = '?';
        if (a == 's')
            o = v == TB_LEFT ? 'L' : v == TB_RIGHT ? 'R' : '?';
        else if (a == 'u')
            o = v == TB_UPPER ? 'U' : v == TB_LOWER ? 'L' : '?';
        else if (a == 'd')
            o = v == TB_UNIT ? 'U' : v == TB_NON_UNIT ? 'N' : '?';
        else
            o = v == TB_NO_TRANS ? 'N' : v == TB_TRANS ? 'T'
              : v == TB_CONJ_TRANS ? (tb_prec_complex(c->prec) ? 'C' : 'T') : '?';
        buf[n++] = o;
    }
    buf[n] = '\0';
    return buf;
}

uint64_t tb_call_flops(const tb_call *c)
{
    if (c->m <= 0 || c->n <= 0 || c->k <= 0 || (c->alpha == 0.0 && c->alpha_im == 0.0))
        return 0;
    const int shape = tb_kind_of(c)->shape;
    const uint64_t per = (shape == TB_SH_syrk || shape == TB_SH_trmm ? 1u : 2u) *
                         (tb_prec_complex(c->prec) ? 4u : 1u);
    return per * (uint64_t)c->m * (uint64_t)c->n * (uint64_t)c->k;
}

/* ---- The call as a row-major product (gemm) ---- */

/* A CBLAS transpose as the problem's 0 (N), 1 (T) or 2 (C: conjugate
 * transpose, for the complex types; a real type's C is its T). */
static int tb_trans_code(int t, tb_prec prec)
{
    return t == TB_NO_TRANS ? 0 : t == TB_CONJ_TRANS && tb_prec_complex(prec) ? 2 : 1;
}

void tb_normalise(const tb_call *c, tb_problem *p)
{
    int ta = tb_trans_code(c->transa, c->prec), tb = tb_trans_code(c->transb, c->prec);
    p->k = c->k;
    p->alpha = c->alpha;
    p->beta = c->beta;
    p->alpha_im = c->alpha_im;
    p->beta_im = c->beta_im;
    p->C = c->C;
    p->ldc = (size_t)c->ldc;
    p->prec = c->prec;
    if (c->layout == TB_ROW_MAJOR) {
        p->m = c->m; p->n = c->n;
        p->A = c->A; p->lda = (size_t)c->lda; p->transa = ta;
        p->B = c->B; p->ldb = (size_t)c->ldb; p->transb = tb;
    } else {
        /* Column-major C (m x n, ldc) is row-major C^T (n x m, ldc), and
         * C^T = op(B)^T op(A)^T: swap the operands and the sizes. A
         * column-major X read row-major is X^T, so the transposes carry over
         * unchanged (op(B) = B^H gives op(B)^T = conj(B), the conjugate
         * transpose of B read row-major). */
        p->m = c->n; p->n = c->m;
        p->A = c->B; p->lda = (size_t)c->ldb; p->transa = tb;
        p->B = c->A; p->ldb = (size_t)c->lda; p->transb = ta;
    }
}
