/* tests/test_legality.c - the legality check (routines.c) against the
 * reference BLAS itself: random calls of every routine, precision and
 * interface of the table, legal and illegal (bad options in either case,
 * negative sizes, short leading dimensions, both layouts and a bad one),
 * each read as an entry point would keep it (tb_call_read) and forwarded
 * to the reference BLAS (tb_forward) with our own xerbla_ and cblas_xerbla
 * in place of the library's. The number the reference reports (0 when it
 * runs the call) must be the one tb_call_illegal gives: Fortran's as
 * XERBLA gets it, CBLAS's as the reference CBLAS's tests expect it (the
 * argument's position in the CBLAS call). Since the call goes through the
 * forwarders, it also checks that they pass every argument where the
 * routine expects it.
 * One kind of call is left out: a row-major CBLAS call with an option the
 * routine does not take. Debian's reference CBLAS (3.11) numbers some of
 * those otherwise than the reference does today (a bad row-major TransB 2,
 * a bad syrk, syr2k or herk Uplo 3) and takes complex syrk and syr2k with
 * ConjTrans and herk and her2k with Trans; routines.c follows today's
 * reference (the position, and those transposes illegal), which
 * test_dispatch's legality table checks.
 *   test_legality [libblas.so]   (default: Debian's reference BLAS; exit 77
 *                                 when it is not there) */
#define _GNU_SOURCE
#include "unit_check.h"
#include <dlfcn.h>
#include <stdlib.h>

#define TB_EXPORTED __attribute__((visibility("default")))

/* What the reference reported for the call under way. */
static int reported, in_cblas, row_major;
static tb_routine routine;

/* The reference CBLAS numbers a row-major call's size errors by the
 * column-major call it makes (M and N swapped, gemm's A and B too); its
 * tests map them back to positions so. */
static int position(int info)
{
    if (!row_major)
        return info;
    switch (routine) {
    case TB_R_gemm:
        return info == 4 ? 5 : info == 5 ? 4 : info == 9 ? 11 : info == 11 ? 9 : info;
    case TB_R_symm: case TB_R_hemm:
        return info == 4 ? 5 : info == 5 ? 4 : info;
    case TB_R_trmm: case TB_R_trsm:
        return info == 6 ? 7 : info == 7 ? 6 : info;
    default:
        return info;
    }
}

/* The Fortran routines' error handler: the argument number (one more from
 * CBLAS, whose layout comes first). Only the first report counts. */
TB_EXPORTED void xerbla_(const char *name, const int *info, size_t len)
{
    (void)name;
    (void)len;
    if (!reported)
        reported = in_cblas ? position(*info + 1) : *info;
}

/* The CBLAS wrappers' own (layout and options): already positions. */
TB_EXPORTED void cblas_xerbla(int info, const char *rout, const char *form, ...)
{
    (void)rout;
    (void)form;
    if (!reported)
        reported = info;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned pick(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* An option letter's candidates: CBLAS values (the last one outside the
 * enumeration), Fortran characters (either case, and one no routine
 * takes). */
static int cblas_option(char a)
{
    static const int side[] = {TB_LEFT, TB_RIGHT, 0}, uplo[] = {TB_UPPER, TB_LOWER, 120},
                     diag[] = {TB_UNIT, TB_NON_UNIT, 133},
                     trans[] = {TB_NO_TRANS, TB_TRANS, TB_CONJ_TRANS, 114};
    const int *v = a == 's' ? side : a == 'u' ? uplo : a == 'd' ? diag : trans;
    const unsigned n = a == 't' || a == 'T' ? 4 : 3;
    /* the bad value one time in 16 */
    return pick(16) == 0 ? v[n - 1] : v[pick(n - 1)];
}

static char fortran_option(char a)
{
    const char *v = a == 's' ? "LRlr" : a == 'u' ? "ULul" : a == 'd' ? "UNun" : "NTCntc";
    return pick(16) == 0 ? 'X' : v[pick((unsigned)strlen(v))];
}

/* The storage one call's arguments point at. */
typedef struct args {
    char opt[16];
    int32_t f[16];                       /* Fortran integers */
    double sd[16][2];                    /* scalars, double or complex double */
    float sf[16][2];                     /* single or complex single */
    double A[128], B[128], C[128];       /* room for 4 x 4 complex doubles, padded */
} args;

/* One random call of entry e; returns 1 when the reference and we agree,
 * -1 for a call left out (above). */
static int one_call(const tb_entry *e, int *legal)
{
    static args g;
    memset(&g, 0, sizeof g);
    tb_call c = {.entry = e};
    const int cblas = e->api == TB_API_CBLAS;
    c.layout = cblas ? (pick(20) == 0 ? 7 : pick(2) ? TB_ROW_MAJOR : TB_COL_MAJOR) : 0;
    const int dbl = e->prec == TB_DOUBLE || e->prec == TB_ZCOMPLEX;
    int ni = 0, np = 0;
    const int n = tb_routine_arity(e->routine);
    for (int j = 0; j < n; j++) {
        const char a = tb_routine_arg(e->routine, j);
        const void *ptr = NULL;
        int64_t ival = 0;
        int is_int = 1;
        switch (a) {
        case 's': case 'u': case 't': case 'T': case 'd':
            if (cblas)
                ival = cblas_option(a);
            else
                g.opt[j] = fortran_option(a);
            ptr = &g.opt[j];
            break;
        case 'M': case 'N': case 'K':
            ival = (int)pick(5) - 1;           /* -1 .. 3 */
            break;
        case 'x': case 'y': case 'z':
            ival = (int)pick(5);               /* 0 .. 4 */
            break;
        case 'a': case 'b':
            is_int = 0;
            g.sd[j][0] = 1.5, g.sd[j][1] = -0.5;
            g.sf[j][0] = 1.5f, g.sf[j][1] = -0.5f;
            ptr = dbl ? (const void *)g.sd[j] : (const void *)g.sf[j];
            break;
        default:
            is_int = 0;
            ptr = a == 'A' ? g.A : a == 'B' ? g.B : g.C;
        }
        if (is_int) {
            g.f[j] = (int32_t)ival;
            if (a != 's' && a != 'u' && a != 't' && a != 'T' && a != 'd')
                ptr = &g.f[j];
        }
        if (!cblas)
            c.raw.p[j] = ptr;
        else if (is_int)
            c.raw.i[ni++] = ival;
        else
            c.raw.p[np++] = ptr;
    }
    tb_call_read(&c, 4);
    const int ours = tb_call_illegal(&c);
    char ops[8];
    if (cblas && c.layout == TB_ROW_MAJOR && ours >= 2 && ours < 2 + (int)strlen(tb_call_ops(&c, ops)))
        return -1;
    reported = 0;
    in_cblas = cblas;
    row_major = cblas && c.layout == TB_ROW_MAJOR;
    routine = e->routine;
    tb_forward(&c);
    in_cblas = 0;
    *legal = reported == 0;
    if (reported != ours) {
        printf("  %s %s %s m=%d n=%d k=%d lda=%d ldb=%d ldc=%d: the reference reports %d, "
               "tb_call_illegal %d\n", e->symbol,
               c.layout == TB_ROW_MAJOR ? "RowMajor" : c.layout == TB_COL_MAJOR ? "ColMajor" : "bad",
               tb_call_ops(&c, ops), c.m, c.n, c.k, c.lda, c.ldb, c.ldc, reported, ours);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h || !dlsym(h, "cblas_zher2k") || !dlsym(h, "RowMajorStrg")) {
        printf("test_legality: no reference BLAS with its CBLAS at %s: skipped\n", path);
        return 77;
    }
    /* Names the reference lacks (the other families) are looked for there
     * too, and not found: nothing else is loaded. */
    setenv("TILEDBLAS_CPU_BLAS", path, 1);
    enum { CALLS = 2000 };
    for (int i = 0; i < TB_ENTRY_COUNT; i++) {
        const tb_entry *e = &tb_entries[i];
        if (e->family != TB_FAM_plain)
            continue;
        if (!tb_real_symbol(e->id)) {
            CHECK(0, "%s: not found in %s", e->symbol, path);
            continue;
        }
        int agree = 0, legal = 0, bad = 0, out = 0;
        for (int k = 0; k < CALLS; k++) {
            int l = 0, r = one_call(e, &l);
            if (r < 0)
                out++;
            else if (r)
                agree++;
            else if (++bad >= 3)
                break;
            legal += l;
        }
        CHECK(agree + out == CALLS && legal > 50 && legal < CALLS - 50,
              "%s: %d of %d random calls numbered as the reference does (%d legal, %d left out)",
              e->symbol, agree, CALLS - out, legal, out);
    }
    return unit_summary("test_legality");
}
