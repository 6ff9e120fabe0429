/* src/cpu/cpugemm.c - the built-in CPU GEMM, for when no CPU BLAS can be found:
 * a cache-blocked, single-threaded product on a row-major tb_problem of
 * either real precision (complex ones element by element), and a caller's
 * call of any routine checked and
 * reported as the BLAS would (xerbla's words on stderr, C untouched). Of
 * the library it uses only routines.c's reading of calls, and it never
 * decides where a call goes; realblas.c uses it when no BLAS is there.
 * Both precisions run one code: elements are read into double and sums
 * kept in double, so a single call's result is at least as accurate as an
 * fp32 GEMM's (correctness first: this path is a last resort, not a fast
 * one). */
#include "tb_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <unistd.h>

/* Blocking: KC x NC of op(B) packed (L3), MC x KC of op(A) packed (L2), and
 * an MR x NR block of C held in registers while KC products go into it. */
enum { TB_MR = 6, TB_NR = 8, TB_KC = 256, TB_MC = 96, TB_NC = 2048 };

/* Element (i, j) of a row-major matrix of p's precision, as a double, and
 * a double stored back into one. */
static double tb_get(const tb_problem *p, const void *X, size_t ld, size_t i, size_t j)
{
    return p->prec == TB_DOUBLE ? ((const double *)X)[i * ld + j] : ((const float *)X)[i * ld + j];
}

static void tb_put(const tb_problem *p, size_t i, size_t j, double v)
{
    if (p->prec == TB_DOUBLE)
        ((double *)p->C)[i * p->ldc + j] = v;
    else
        ((float *)p->C)[i * p->ldc + j] = (float)v;
}

/* op(A)[i][p] and op(B)[p][j] of the row-major problem. */
static double tb_op_a(const tb_problem *p, size_t i, size_t l)
{
    return p->transa ? tb_get(p, p->A, p->lda, l, i) : tb_get(p, p->A, p->lda, i, l);
}

static double tb_op_b(const tb_problem *p, size_t l, size_t j)
{
    return p->transb ? tb_get(p, p->B, p->ldb, j, l) : tb_get(p, p->B, p->ldb, l, j);
}

/* Rows [i0, i0+mc) by [l0, l0+kc) of op(A), in panels of MR rows, each panel
 * column after column (MR values per column); rows past mc are zero. */
static void tb_pack_a(const tb_problem *p, int i0, int mc, int l0, int kc, double *dst)
{
    for (int ip = 0; ip < mc; ip += TB_MR, dst += (size_t)TB_MR * kc)
        for (int l = 0; l < kc; l++)
            for (int r = 0; r < TB_MR; r++)
                dst[(size_t)l * TB_MR + r] =
                    ip + r < mc ? tb_op_a(p, (size_t)(i0 + ip + r), (size_t)(l0 + l)) : 0.0;
}

/* Rows [l0, l0+kc) by [j0, j0+nc) of op(B), in panels of NR columns, each
 * panel row after row (NR values per row); columns past nc are zero. */
static void tb_pack_b(const tb_problem *p, int l0, int kc, int j0, int nc, double *dst)
{
    for (int jp = 0; jp < nc; jp += TB_NR, dst += (size_t)TB_NR * kc)
        for (int l = 0; l < kc; l++)
            for (int c = 0; c < TB_NR; c++)
                dst[(size_t)l * TB_NR + c] =
                    jp + c < nc ? tb_op_b(p, (size_t)(l0 + l), (size_t)(j0 + jp + c)) : 0.0;
}

/* acc = the MR x NR product of one packed A panel and one packed B panel
 * over kc: fixed trip counts, so the compiler keeps acc in vector registers. */
static void tb_micro(int kc, const double *restrict a, const double *restrict b,
                     double acc[TB_MR][TB_NR])
{
    double t[TB_MR][TB_NR];
    for (int r = 0; r < TB_MR; r++)
        for (int c = 0; c < TB_NR; c++)
            t[r][c] = 0.0;
    for (int l = 0; l < kc; l++, a += TB_MR, b += TB_NR)
        for (int r = 0; r < TB_MR; r++)
            for (int c = 0; c < TB_NR; c++)
                t[r][c] += a[r] * b[c];
    memcpy(acc, t, sizeof t);
}

/* The mr x nr corner of acc into C at (i, j): on the first block of K,
 * C = alpha acc + beta C (C not read when beta is 0); after it C += alpha acc. */
static void tb_store(const tb_problem *p, int i, int j, int mr, int nr,
                     double acc[TB_MR][TB_NR], int first)
{
    for (int r = 0; r < mr; r++)
        for (int q = 0; q < nr; q++) {
            const size_t ci = (size_t)(i + r), cj = (size_t)(j + q);
            const double v = p->alpha * acc[r][q];
            if (first && p->beta == 0.0)
                tb_put(p, ci, cj, v);
            else if (first && p->beta != 1.0)
                tb_put(p, ci, cj, v + p->beta * tb_get(p, p->C, p->ldc, ci, cj));
            else
                tb_put(p, ci, cj, v + tb_get(p, p->C, p->ldc, ci, cj));
        }
}

/* C = beta C, reading C only when beta is not 0 (alpha or k is 0). */
static void tb_scale_c(const tb_problem *p)
{
    if (p->beta == 1.0)
        return;
    for (size_t i = 0; i < (size_t)p->m; i++)
        for (size_t j = 0; j < (size_t)p->n; j++)
            tb_put(p, i, j, p->beta == 0.0 ? 0.0 : p->beta * tb_get(p, p->C, p->ldc, i, j));
}

/* Without memory for the packed blocks: the same product, one element at a
 * time. */
static void tb_cpu_gemm_unpacked(const tb_problem *p)
{
    for (size_t i = 0; i < (size_t)p->m; i++)
        for (size_t j = 0; j < (size_t)p->n; j++) {
            double s = 0.0;
            for (size_t l = 0; l < (size_t)p->k; l++)
                s += tb_op_a(p, i, l) * tb_op_b(p, l, j);
            tb_put(p, i, j, p->beta == 0.0 ? p->alpha * s
                                           : p->alpha * s + p->beta * tb_get(p, p->C, p->ldc, i, j));
        }
}

/* Complex part `im` (0 re, 1 im) of element (i, j) of a row-major complex
 * matrix, as a double. */
static double tb_part(const tb_problem *p, const void *X, size_t ld, size_t i, size_t j, int im)
{
    const size_t at = 2 * (i * ld + j) + (size_t)im;
    return p->prec == TB_ZCOMPLEX ? ((const double *)X)[at] : ((const float *)X)[at];
}

/* op(X)(r, c) of a complex operand stored with stride ld (trans 2:
 * conjugated), into re and im. */
static void tb_op_cx(const tb_problem *p, const void *X, size_t ld, int trans, size_t r, size_t c,
                     double *re, double *im)
{
    const size_t i = trans ? c : r, j = trans ? r : c;
    *re = tb_part(p, X, ld, i, j, 0);
    *im = trans == 2 ? -tb_part(p, X, ld, i, j, 1) : tb_part(p, X, ld, i, j, 1);
}

/* A complex product, one element at a time with sums in double: A and B
 * are read only when alpha and k are not 0, C only when beta is not 0. */
static void tb_cpu_gemm_complex(const tb_problem *p)
{
    const int ab = tb_reads_ab(p), rc = tb_reads_c(p);
    for (size_t i = 0; i < (size_t)p->m; i++)
        for (size_t j = 0; j < (size_t)p->n; j++) {
            double vr = 0.0, vi = 0.0;
            if (ab) {
                double sr = 0.0, si = 0.0, ar, ai, br, bi;
                for (size_t l = 0; l < (size_t)p->k; l++) {
                    tb_op_cx(p, p->A, p->lda, p->transa, i, l, &ar, &ai);
                    tb_op_cx(p, p->B, p->ldb, p->transb, l, j, &br, &bi);
                    sr += ar * br - ai * bi;
                    si += ar * bi + ai * br;
                }
                vr = p->alpha * sr - p->alpha_im * si;
                vi = p->alpha * si + p->alpha_im * sr;
            }
            if (rc) {
                const double cr = tb_part(p, p->C, p->ldc, i, j, 0), ci = tb_part(p, p->C, p->ldc, i, j, 1);
                vr += p->beta * cr - p->beta_im * ci;
                vi += p->beta * ci + p->beta_im * cr;
            }
            const size_t at = 2 * (i * p->ldc + j);
            if (p->prec == TB_ZCOMPLEX) {
                ((double *)p->C)[at] = vr;
                ((double *)p->C)[at + 1] = vi;
            } else {
                ((float *)p->C)[at] = (float)vr;
                ((float *)p->C)[at + 1] = (float)vi;
            }
        }
}

void tb_cpu_gemm(const tb_problem *p)
{
    if (p->m <= 0 || p->n <= 0)
        return;
    if (tb_prec_complex(p->prec)) {
        tb_cpu_gemm_complex(p);
        return;
    }
    if (p->alpha == 0.0 || p->k <= 0) {
        tb_scale_c(p);
        return;
    }
    const int kcmax = p->k < TB_KC ? p->k : TB_KC;
    const int ncmax = p->n < TB_NC ? p->n : TB_NC;
    const int mcmax = p->m < TB_MC ? p->m : TB_MC;
    double *bp = malloc(sizeof(double) * (size_t)kcmax * (size_t)((ncmax + TB_NR - 1) / TB_NR * TB_NR));
    double *ap = malloc(sizeof(double) * (size_t)kcmax * (size_t)((mcmax + TB_MR - 1) / TB_MR * TB_MR));
    if (!ap || !bp) {
        free(ap);
        free(bp);
        tb_cpu_gemm_unpacked(p);
        return;
    }
    double acc[TB_MR][TB_NR];
    for (int j0 = 0; j0 < p->n; j0 += TB_NC) {
        const int nc = p->n - j0 < TB_NC ? p->n - j0 : TB_NC;
        for (int l0 = 0; l0 < p->k; l0 += TB_KC) {
            const int kc = p->k - l0 < TB_KC ? p->k - l0 : TB_KC;
            tb_pack_b(p, l0, kc, j0, nc, bp);
            for (int i0 = 0; i0 < p->m; i0 += TB_MC) {
                const int mc = p->m - i0 < TB_MC ? p->m - i0 : TB_MC;
                tb_pack_a(p, i0, mc, l0, kc, ap);
                for (int jr = 0; jr < nc; jr += TB_NR)
                    for (int ir = 0; ir < mc; ir += TB_MR) {
                        tb_micro(kc, ap + (size_t)ir * kc, bp + (size_t)jr * kc, acc);
                        tb_store(p, i0 + ir, j0 + jr, mc - ir < TB_MR ? mc - ir : TB_MR,
                                 nc - jr < TB_NR ? nc - jr : TB_NR, acc, l0 == 0);
                    }
            }
        }
    }
    free(ap);
    free(bp);
}

/* ---- The caller's call, checked as the BLAS checks it ---- */

/* The BLAS's report of argument `arg`, written on stderr in one write():
 * a Fortran call as OpenBLAS's xerbla words it (the routine's name padded
 * to 6), a CBLAS call as the reference CBLAS's cblas_xerbla does: an
 * option its wrapper rejects with the option's "Illegal ... setting"
 * line, anything else with the name the Fortran routine gave (padded to 6
 * after "cblas_": the double space after cblas_dgemm). The reference CBLAS
 * then ends the program; this returns. */
static void tb_xerbla(const tb_call *c, int arg)
{
    char line[200], name[32];
    int n;
    const tb_entry *plain = tb_entry_of(c->entry->routine, c->prec, TB_FAM_plain, TB_API_CBLAS);
    /* The routine's name as xerbla prints it: DGEMM, whatever the family. */
    snprintf(name, sizeof name, "%s", plain->label);
    for (char *q = name; *q; q++)
        *q = (char)toupper((unsigned char)*q);
    /* The argument's letter (routines.c's shapes): a CBLAS option outside
     * its enumeration is the wrapper's to report, in its words. */
    const char a = arg >= 2 ? tb_routine_arg(c->entry->routine, arg - 2) : 0;
    const int v = a == 's' ? c->side : a == 'u' ? c->uplo : a == 'd' ? c->diag
                : a == 'T' ? c->transb : c->transa;
    const int known = a == 's' ? v == TB_LEFT || v == TB_RIGHT
                    : a == 'u' ? v == TB_UPPER || v == TB_LOWER
                    : a == 'd' ? v == TB_UNIT || v == TB_NON_UNIT
                    : v >= TB_NO_TRANS && v <= TB_CONJ_TRANS;
    const char *what = a == 's' ? "Side" : a == 'u' ? "Uplo" : a == 'd' ? "Diag"
                     : a == 'T' ? "TransB" : c->entry->routine == TB_R_gemm ? "TransA" : "Trans";
    const int wrapper = (a == 's' || a == 'u' || a == 'd' || a == 't' || a == 'T') && !known;
    if (c->api == TB_API_FORTRAN)
        n = snprintf(line, sizeof line,
                     " ** On entry to %-6s parameter number %2d had an illegal value\n", name, arg);
    else if (arg == 1)
        n = snprintf(line, sizeof line, "Parameter 1 to routine %s was incorrect\n"
                     "Illegal layout setting, %d\n", plain->symbol, c->layout);
    else if (wrapper)
        n = snprintf(line, sizeof line, "Parameter %d to routine %s was incorrect\n"
                     "Illegal %s setting, %d\n", arg, plain->symbol, what, v);
    else
        n = snprintf(line, sizeof line, "Parameter %d to routine cblas_%-6s was incorrect\n", arg,
                     plain->label);
    if (n > 0) {
        ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

int tb_cpu_gemm_check(const tb_call *c, tb_problem *p)
{
    int arg = tb_call_illegal(c);
    if (arg) {
        tb_xerbla(c, arg);
        return -1;
    }
    if (c->entry->routine != TB_R_gemm)
        return 1;
    tb_normalise(c, p);
    return 0;
}
