/* tests/test_dispatch.c - unit tests of one call's way through dispatch.c
 * that need no GPU: BLAS legality (one case per argument), the column-major
 * normalisation, the decision's forced and plain outcomes, the reason
 * words, and the CPU completion after a GPU failure. Linked against the
 * library's objects, so it sees the hidden internals. */
#include "unit_check.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int legal(const tb_call *c) { return tb_call_illegal(c) == 0; }

static void test_legality(void)
{
    tb_call c = row_nn(4, 5, 6);
    CHECK(legal(&c), "a plain row-major call is legal");
    tb_call x;
    x = c; x.layout = 100;             CHECK(!legal(&x), "bad layout");
    x = c; x.transa = 110;             CHECK(!legal(&x), "bad transa");
    x = c; x.transb = 114;             CHECK(!legal(&x), "transb ConjNoTrans is left to the BLAS");
    x = c; x.m = -1;                   CHECK(!legal(&x), "m < 0");
    x = c; x.n = -1;                   CHECK(!legal(&x), "n < 0");
    x = c; x.k = -1;                   CHECK(!legal(&x), "k < 0");
    x = c; x.lda = 5;                  CHECK(!legal(&x), "row-major lda < k");
    x = c; x.ldb = 4;                  CHECK(!legal(&x), "row-major ldb < n");
    x = c; x.ldc = 4;                  CHECK(!legal(&x), "row-major ldc < n");
    x = c; x.transa = TB_TRANS; x.lda = 4; CHECK(legal(&x), "row-major A^T needs lda >= m");
    x = c; x.transa = TB_TRANS; x.lda = 3; CHECK(!legal(&x), "row-major A^T with lda < m");
    x = c; x.layout = TB_COL_MAJOR; x.lda = 4; x.ldb = 6; x.ldc = 4;
    CHECK(legal(&x), "column-major lda >= m, ldb >= k, ldc >= m");
    x.ldc = 3;                         CHECK(!legal(&x), "column-major ldc < m");
    x = row_nn(0, 0, 0);               CHECK(legal(&x), "all sizes zero with ld = 1");
    x.lda = 0;                         CHECK(!legal(&x), "ld 0 is never legal");
}

/* A call of a routine's plain entry point read as the entry point keeps
 * it (tb_call_read, 32-bit integers): v holds its options and integers in
 * argument order (a Fortran option as its character, a CBLAS one as its
 * value); the scalars are 1 (and 1i), the matrices point at a dummy. */
static tb_call read_call(tb_routine r, tb_prec prec, tb_api api, int layout, const int *v)
{
    static char opt[16][16];
    static int32_t ints[16][16];
    static double dummy[8];
    static const double one_d[2] = {1.0, 1.0};
    static const float one_s[2] = {1.0f, 1.0f};
    const void *one = prec == TB_DOUBLE || prec == TB_ZCOMPLEX ? (const void *)one_d : (const void *)one_s;
    static unsigned slot;
    char *o = opt[slot % 16];
    int32_t *f = ints[slot++ % 16];
    tb_call c = {.entry = tb_entry_of(r, prec, TB_FAM_plain, api), .layout = layout};
    int ni = 0, np = 0, nv = 0;
    for (int j = 0; j < tb_routine_arity(r); j++) {
        const char a = tb_routine_arg(r, j);
        const int option = strchr("sutTd", a) != NULL, integer = strchr("MNKxyz", a) != NULL;
        const void *ptr = a == 'a' || a == 'b' ? one : dummy;
        if (api == TB_API_CBLAS) {
            if (option || integer)
                c.raw.i[ni++] = v[nv++];
            else
                c.raw.p[np++] = ptr;
        } else if (option) {
            o[j] = (char)v[nv++];
            c.raw.p[j] = &o[j];
        } else if (integer) {
            f[j] = v[nv++];
            c.raw.p[j] = &f[j];
        } else {
            c.raw.p[j] = ptr;
        }
    }
    tb_call_read(&c, 4);
    return c;
}

/* One illegal argument at a time, as the reference BLAS numbers it, for
 * a routine of each shape beyond gemm's: dsyrk and ztrsm, both interfaces,
 * both layouts; and the transposes complex syrk and herk do not take. */
static void test_legality_level3(void)
{
    enum { U = TB_UPPER, L = TB_LOWER, N = TB_NO_TRANS, T = TB_TRANS, C = TB_CONJ_TRANS,
           LE = TB_LEFT, RI = TB_RIGHT, NU = TB_NON_UNIT, UN = TB_UNIT,
           ROW = TB_ROW_MAJOR, COL = TB_COL_MAJOR, F = TB_API_FORTRAN, CB = TB_API_CBLAS };
    static const struct {
        tb_routine r;
        tb_prec prec;
        int api, layout, want;
        int v[8];
        const char *what;
    } cases[] = {
        /* dsyrk_(UPLO 1, TRANS 2, N 3, K 4, ALPHA, A, LDA 7, BETA, C, LDC 10) */
        {TB_R_syrk, TB_DOUBLE, F, 0, 0, {'U', 'N', 4, 3, 4, 4}, "legal"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 0, {'l', 'c', 4, 3, 3, 4}, "lower case; C with lda >= k"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 1, {'X', 'N', 4, 3, 4, 4}, "UPLO"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 2, {'U', 'X', 4, 3, 4, 4}, "TRANS"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 3, {'U', 'N', -1, 3, 4, 4}, "N < 0"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 4, {'U', 'N', 4, -1, 4, 4}, "K < 0"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 7, {'U', 'N', 4, 3, 3, 4}, "LDA < N"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 7, {'U', 'T', 4, 3, 2, 4}, "TRANS T, LDA < K"},
        {TB_R_syrk, TB_DOUBLE, F, 0, 10, {'U', 'N', 4, 3, 4, 3}, "LDC < N"},
        /* cblas_dsyrk(layout 1, Uplo 2, Trans 3, N 4, K 5, alpha, A, lda 8, beta, C, ldc 11) */
        {TB_R_syrk, TB_DOUBLE, CB, COL, 0, {U, N, 4, 3, 4, 4}, "legal"},
        {TB_R_syrk, TB_DOUBLE, CB, 99, 1, {U, N, 4, 3, 4, 4}, "layout"},
        {TB_R_syrk, TB_DOUBLE, CB, COL, 2, {120, N, 4, 3, 4, 4}, "Uplo"},
        {TB_R_syrk, TB_DOUBLE, CB, ROW, 2, {120, N, 4, 3, 4, 4}, "row-major Uplo"},
        {TB_R_syrk, TB_DOUBLE, CB, COL, 3, {U, 110, 4, 3, 4, 4}, "Trans"},
        {TB_R_syrk, TB_DOUBLE, CB, COL, 4, {U, N, -1, 3, 4, 4}, "N < 0"},
        {TB_R_syrk, TB_DOUBLE, CB, COL, 5, {U, N, 4, -1, 4, 4}, "K < 0"},
        {TB_R_syrk, TB_DOUBLE, CB, COL, 8, {U, N, 4, 3, 3, 4}, "lda < N"},
        {TB_R_syrk, TB_DOUBLE, CB, COL, 11, {U, N, 4, 3, 4, 3}, "ldc < N"},
        {TB_R_syrk, TB_DOUBLE, CB, ROW, 0, {L, N, 4, 3, 3, 4}, "row-major A (N x K) needs lda >= K"},
        {TB_R_syrk, TB_DOUBLE, CB, ROW, 8, {L, N, 4, 3, 2, 4}, "row-major lda < K"},
        {TB_R_syrk, TB_DOUBLE, CB, ROW, 8, {L, T, 4, 3, 3, 4}, "row-major Trans, lda < N"},
        {TB_R_syrk, TB_DOUBLE, CB, ROW, 0, {L, C, 4, 3, 4, 4}, "real ConjTrans is Trans"},
        /* ztrsm_(SIDE 1, UPLO 2, TRANSA 3, DIAG 4, M 5, N 6, ALPHA, A, LDA 9, B, LDB 11) */
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 0, {'L', 'U', 'C', 'N', 4, 3, 4, 4}, "legal"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 1, {'X', 'U', 'N', 'N', 4, 3, 4, 4}, "SIDE"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 2, {'L', 'X', 'N', 'N', 4, 3, 4, 4}, "UPLO"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 3, {'L', 'U', 'X', 'N', 4, 3, 4, 4}, "TRANSA"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 4, {'L', 'U', 'N', 'X', 4, 3, 4, 4}, "DIAG"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 5, {'L', 'U', 'N', 'N', -1, 3, 4, 4}, "M < 0"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 6, {'L', 'U', 'N', 'N', 4, -1, 4, 4}, "N < 0"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 9, {'L', 'U', 'N', 'N', 4, 3, 3, 4}, "left, LDA < M"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 0, {'r', 'l', 't', 'u', 4, 3, 3, 4}, "right: LDA >= N"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 9, {'R', 'U', 'N', 'N', 4, 3, 2, 4}, "right, LDA < N"},
        {TB_R_trsm, TB_ZCOMPLEX, F, 0, 11, {'L', 'U', 'N', 'N', 4, 3, 4, 3}, "LDB < M"},
        /* cblas_ztrsm(layout 1, Side 2, Uplo 3, TransA 4, Diag 5, M 6, N 7, alpha, A, lda 10,
         * B, ldb 12); row-major checks N before M */
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 0, {LE, U, C, UN, 4, 3, 4, 4}, "legal"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, 0, 1, {LE, U, N, NU, 4, 3, 4, 4}, "layout"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 2, {140, U, N, NU, 4, 3, 4, 4}, "Side"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 3, {LE, 0, N, NU, 4, 3, 4, 4}, "Uplo"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 4, {LE, U, 114, NU, 4, 3, 4, 4}, "TransA"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 5, {LE, U, N, 133, 4, 3, 4, 4}, "Diag"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 6, {LE, U, N, NU, -1, 3, 4, 4}, "M < 0"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 7, {LE, U, N, NU, 4, -1, 4, 4}, "N < 0"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 10, {LE, U, N, NU, 4, 3, 3, 4}, "lda < M"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, COL, 12, {LE, U, N, NU, 4, 3, 4, 3}, "ldb < M"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, ROW, 7, {LE, U, N, NU, -1, -1, 4, 4}, "row-major: N first"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, ROW, 0, {LE, U, N, NU, 4, 3, 4, 3}, "row-major B (M x N): ldb >= N"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, ROW, 12, {LE, U, N, NU, 4, 3, 4, 2}, "row-major ldb < N"},
        {TB_R_trsm, TB_ZCOMPLEX, CB, ROW, 10, {RI, U, N, NU, 4, 3, 2, 3}, "row-major right, lda < N"},
        /* complex syrk takes N and T, herk N and C */
        {TB_R_syrk, TB_ZCOMPLEX, F, 0, 2, {'U', 'C', 4, 3, 4, 4}, "zsyrk_ TRANS C"},
        {TB_R_herk, TB_ZCOMPLEX, F, 0, 2, {'U', 'T', 4, 3, 4, 4}, "zherk_ TRANS T"},
        {TB_R_herk, TB_COMPLEX, F, 0, 0, {'U', 'C', 4, 3, 3, 4}, "cherk_ TRANS C"},
        {TB_R_syrk, TB_COMPLEX, CB, ROW, 3, {U, C, 4, 3, 4, 4}, "row-major cblas_csyrk ConjTrans"},
        {TB_R_her2k, TB_ZCOMPLEX, CB, COL, 3, {U, T, 4, 3, 4, 4, 4}, "cblas_zher2k Trans"},
        {TB_R_her2k, TB_ZCOMPLEX, CB, ROW, 0, {U, C, 4, 3, 4, 4, 4}, "row-major cblas_zher2k ConjTrans"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tb_call c = read_call(cases[i].r, cases[i].prec, (tb_api)cases[i].api,
                                    cases[i].layout, cases[i].v);
        const int got = tb_call_illegal(&c);
        CHECK(got == cases[i].want, "%s %s: argument %d is illegal (got %d)", c.entry->symbol,
              cases[i].what, cases[i].want, got);
    }
}

/* What reports say of level-3 and complex calls, and where they go: the
 * element sizes and names, the options in argument order, m n k and the
 * flops, and the CPU BLAS (cpu-only, before any setting is looked at). */
static void test_level3_reports(void)
{
    CHECK(tb_prec_size(TB_SINGLE) == 4 && tb_prec_size(TB_DOUBLE) == 8 &&
              tb_prec_size(TB_COMPLEX) == 8 && tb_prec_size(TB_ZCOMPLEX) == 16,
          "element sizes 4, 8, 8, 16");
    CHECK(!strcmp(tb_prec_name(TB_COMPLEX), "complex") && !strcmp(tb_prec_name(TB_ZCOMPLEX), "zcomplex") &&
              !strcmp(tb_prec_name(TB_DOUBLE), "double") && !strcmp(tb_prec_name(TB_SINGLE), "single"),
          "precision names");
    char ops[8];
    tb_call c = read_call(TB_R_syrk, TB_DOUBLE, TB_API_CBLAS, TB_ROW_MAJOR,
                          (const int[]){TB_LOWER, TB_CONJ_TRANS, 40, 30, 40, 40});
    CHECK(!strcmp(tb_call_ops(&c, ops), "LT") && c.m == 40 && c.n == 40 && c.k == 30,
          "cblas_dsyrk Lower ConjTrans: LT (a real C is T), m = n = N, k = K (%s %d %d %d)", ops,
          c.m, c.n, c.k);
    CHECK(tb_call_flops(&c) == 40ull * 40 * 30, "dsyrk: n^2 k flops (%llu)",
          (unsigned long long)tb_call_flops(&c));
    c = read_call(TB_R_herk, TB_ZCOMPLEX, TB_API_FORTRAN, 0,
                  (const int[]){'u', 'c', 40, 30, 30, 40});
    CHECK(!strcmp(tb_call_ops(&c, ops), "UC") && tb_call_flops(&c) == 4ull * 40 * 40 * 30,
          "zherk_ u c: UC, 4 n^2 k flops (%s %llu)", ops, (unsigned long long)tb_call_flops(&c));
    c = read_call(TB_R_trsm, TB_COMPLEX, TB_API_CBLAS, TB_COL_MAJOR,
                  (const int[]){TB_RIGHT, TB_UPPER, TB_CONJ_TRANS, TB_UNIT, 50, 20, 20, 50});
    CHECK(!strcmp(tb_call_ops(&c, ops), "RUCU") && c.k == 20 &&
              tb_call_flops(&c) == 4ull * 50 * 20 * 20,
          "cblas_ctrsm Right Upper ConjTrans Unit: RUCU, k = n, 4 m n^2 flops (%s %d %llu)", ops,
          c.k, (unsigned long long)tb_call_flops(&c));
    c = read_call(TB_R_symm, TB_SINGLE, TB_API_FORTRAN, 0, (const int[]){'L', 'X', 50, 20, 50, 50, 50});
    CHECK(!strcmp(tb_call_ops(&c, ops), "L?") && c.k == 50 && tb_call_flops(&c) == 2ull * 50 * 50 * 20,
          "ssymm_ L X: L? (an illegal option shows ?), k = m, 2 m^2 n flops (%s %d)", ops, c.k);
    c = read_call(TB_R_gemm, TB_ZCOMPLEX, TB_API_CBLAS, TB_ROW_MAJOR,
                  (const int[]){TB_CONJ_TRANS, TB_NO_TRANS, 5, 6, 7, 5, 6, 6});
    CHECK(!strcmp(tb_call_ops(&c, ops), "CN") && tb_call_flops(&c) == 8ull * 5 * 6 * 7 &&
              !strcmp(tb_call_name(&c), "zgemm"),
          "cblas_zgemm ConjTrans: CN, 8 m n k flops (%s)", ops);
    /* A complex call as a row-major product: its conjugate transposes kept
     * as 2 (column-major: the operands swap, each keeping its own), its
     * complex alpha and beta both parts. */
    tb_problem p = problem_of(c);
    CHECK(p.transa == 2 && p.transb == 0 && p.m == 5 && p.n == 6 && p.alpha == 1.0 &&
              p.alpha_im == 1.0 && p.beta_im == 1.0 && p.prec == TB_ZCOMPLEX,
          "cblas_zgemm row-major CN: transa 2, alpha 1+1i (%d %d %g %g)", p.transa, p.transb,
          p.alpha, p.alpha_im);
    c = read_call(TB_R_gemm, TB_COMPLEX, TB_API_FORTRAN, 0,
                  (const int[]){'C', 'T', 5, 6, 7, 7, 7, 5});
    p = problem_of(c);
    CHECK(p.transa == 1 && p.transb == 2 && p.m == 6 && p.n == 5 && p.A == c.B && p.B == c.A,
          "cgemm_ C T: row-major C^T = op(B)^T op(A)^T, transa 1, transb 2 (%d %d)", p.transa,
          p.transb);
    c = read_call(TB_R_gemm, TB_DOUBLE, TB_API_FORTRAN, 0,
                  (const int[]){'C', 'N', 5, 6, 7, 7, 7, 5});
    p = problem_of(c);
    CHECK(p.transa == 0 && p.transb == 1, "dgemm_ C N: a real type's C is its T (%d %d)", p.transa,
          p.transb);
    /* Every routine has a GPU path, and is decided like a GEMM: by its
     * flops (TILEDBLAS_THRESHOLD on the m n k of a GEMM of as many flops),
     * then by the model. */
    CHECK(tb_entry_on_gpu(tb_entry_of(TB_R_gemm, TB_SINGLE, TB_FAM_scipy64, TB_API_FORTRAN)) &&
              tb_entry_on_gpu(tb_entry_of(TB_R_gemm, TB_ZCOMPLEX, TB_FAM_suffix64, TB_API_FORTRAN)) &&
              tb_entry_on_gpu(tb_entry_of(TB_R_syrk, TB_DOUBLE, TB_FAM_plain, TB_API_CBLAS)) &&
              tb_entry_on_gpu(tb_entry_of(TB_R_her2k, TB_COMPLEX, TB_FAM_plain, TB_API_FORTRAN)) &&
              tb_entry_on_gpu(tb_entry_of(TB_R_trsm, TB_SINGLE, TB_FAM_scipy64, TB_API_CBLAS)),
          "the GPU path: every routine in every precision, under every name");
    c = read_call(TB_R_syrk, TB_ZCOMPLEX, TB_API_CBLAS, TB_ROW_MAJOR,
                  (const int[]){TB_UPPER, TB_NO_TRANS, 4000, 4000, 4000, 4000});
    p = problem_of(c);
    CHECK(p.routine == TB_R_syrk && p.m == 4000 && p.n == 4000 && p.k == 4000 && p.transa == 0 &&
              tb_problem_flops(&p) == (double)tb_call_flops(&c),
          "cblas_zsyrk as the policy sees it: 4000 x 4000, k 4000, its flops (%g)",
          tb_problem_flops(&p));
    tb_decision d = tb_decide(&c, &p);
    CHECK(d.reason != TB_WHY_CPU_ONLY && d.reason != TB_WHY_SMALL && d.reason != TB_WHY_NO_OP,
          "a 4000^3 zsyrk call is weighed for the GPU (got %s)", tb_reason_name(d.reason));
    /* dsyrk's n^2 k flops are half a GEMM's: n = k = 150 is below the
     * default threshold of 150^3, where dgemm 150^3 is not. */
    c = read_call(TB_R_syrk, TB_DOUBLE, TB_API_FORTRAN, 0, (const int[]){'L', 'T', 150, 150, 150, 150});
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.reason == TB_WHY_SMALL && tb_problem_mnk(&p) == 0.5 * 150 * 150 * 150,
          "dsyrk_ n = k = 150: small (got %s)", tb_reason_name(d.reason));
    c = read_call(TB_R_trsm, TB_DOUBLE, TB_API_FORTRAN, 0,
                  (const int[]){'L', 'U', 'N', 'N', 300, 200, 300, 300});
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.reason != TB_WHY_CPU_ONLY && d.reason != TB_WHY_SMALL && p.m == 200 && p.n == 300 &&
              p.k == 300 && tb_problem_flops(&p) == (double)tb_call_flops(&c),
          "a dtrsm_ call of 300 x 200: row-major 200 x 300, k 300, above the threshold (got %s)",
          tb_reason_name(d.reason));
    /* Shape classes: a GEMM's key is what it was before routines had bits
     * (learned files stay valid); another routine's differs from it. */
    c = row_nn(300, 200, 100);
    p = problem_of(c);
    const unsigned gemm_key = 1u + (8u | 7u << 5 | 6u << 10 | 0u << 17 | (unsigned)TB_SINGLE << 18);
    tb_problem q = p;
    q.routine = TB_R_symm;
    CHECK(tb_policy_class(&p) == gemm_key && tb_policy_class(&q) != gemm_key &&
              (tb_policy_class(&q) - 1u) >> 20 == TB_R_symm,
          "class keys: sgemm 300x200x100 %#x (want %#x), ssymm's has its routine", tb_policy_class(&p),
          gemm_key);
    /* Each routine's flops as tb_call_flops counts them, whatever the layout. */
    const struct { tb_routine r; tb_prec prec; int v[8]; } each[] = {
        {TB_R_symm, TB_DOUBLE, {'R', 'U', 40, 30, 30, 40, 40}},
        {TB_R_hemm, TB_COMPLEX, {'L', 'L', 40, 30, 40, 40, 40}},
        {TB_R_herk, TB_ZCOMPLEX, {'U', 'C', 40, 30, 30, 40}},
        {TB_R_syr2k, TB_SINGLE, {'L', 'N', 40, 30, 40, 40, 40}},
        {TB_R_her2k, TB_COMPLEX, {'U', 'N', 40, 30, 40, 40, 40}},
        {TB_R_trmm, TB_ZCOMPLEX, {'R', 'L', 'C', 'U', 40, 30, 30, 40}},
    };
    int same = 1;
    for (size_t i = 0; i < sizeof each / sizeof *each; i++) {
        c = read_call(each[i].r, each[i].prec, TB_API_FORTRAN, 0, each[i].v);
        p = problem_of(c);
        same &= tb_problem_flops(&p) == (double)tb_call_flops(&c) && p.routine == each[i].r &&
                tb_call_illegal(&c) == 0;
    }
    CHECK(same, "every routine's problem has its call's flops");
}

static void test_normalise(void)
{
    float a[1], b[1], c[1];
    tb_call col = gemm_call(TB_API_CBLAS, TB_SINGLE, TB_COL_MAJOR, TB_TRANS, TB_NO_TRANS, 3, 5, 7,
                            2.0f, 0.5f, a, 7, b, 7, c, 3);
    tb_problem p;
    tb_normalise(&col, &p);
    CHECK(p.m == 5 && p.n == 3 && p.k == 7, "column-major m x n becomes row-major n x m (got %dx%dx%d)", p.m, p.n, p.k);
    CHECK(p.A == b && p.B == a && p.transa == 0 && p.transb == 1, "operands swap and keep their transposes");
    CHECK(p.lda == 7 && p.ldb == 7 && p.ldc == 3 && p.alpha == 2.0f && p.beta == 0.5f, "strides and scalars carry over");
    tb_call row = row_nn(3, 5, 7);
    tb_normalise(&row, &p);
    CHECK(p.m == 3 && p.n == 5 && p.k == 7 && p.transa == 0 && p.transb == 0, "row-major is unchanged");
}

static void test_decide(void)
{
    /* Default settings (ctest sets no TILEDBLAS_* for this test). */
    tb_call c = row_nn(8, 8, 8);
    tb_problem p = problem_of(c);
    tb_decision d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_SMALL, "a 8x8x8 call stays on the CPU (got %s)",
          tb_reason_name(d.reason));

    c = row_nn(0, 4000, 4000);
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_NO_OP, "m = 0 is a no-op (got %s)", tb_reason_name(d.reason));

    c = row_nn(4000, 4000, 4000); c.alpha = 0.0f; c.beta = 1.0f;
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_NO_OP, "alpha = 0, beta = 1 is a no-op (got %s)",
          tb_reason_name(d.reason));

    c = row_nn(4000, 4000, 4000);
    p = problem_of(c);
    tb_policy_ran(TB_ROUTE_CPU);   /* as after a CPU call: this one may measure */
    d = tb_decide(&c, &p);
    tb_reason why;
    if (tb_gpu_available(&why)) {
        /* The first call (0.13 s on the CPU by the built-in rates, less
         * than a start costs) runs on the CPU without starting the GPU.
         * Once CUDA runs (tb_gpu_available started it here), the next call
         * starts the rest in the background; then the GPU takes the call. */
        CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_GPU_STARTING && d.weighed && d.learn,
              "the first 4000^3 call runs on the CPU, the GPU not started, and measures the "
              "CPU (got %s, learn %d)", tb_reason_name(d.reason), d.learn);
        d = tb_decide(&c, &p);
        /* This call launched the start (a thread that takes milliseconds at
         * least), so the start still works as it is decided. */
        CHECK(d.reason != TB_WHY_GPU_STARTING || !d.learn,
              "a call made while the start works measures nothing (got %s, learn %d)",
              tb_reason_name(d.reason), d.learn);
        CHECK(tb_gpu_wait(30.0, &why) == TB_GPU_POLL_READY, "the start ends, the GPU ready");
        d = tb_decide(&c, &p);
        CHECK(d.route == TB_ROUTE_GPU && d.reason == TB_WHY_GPU_FASTER && d.weighed,
              "then a 4000^3 call goes to the GPU (got %s)", tb_reason_name(d.reason));
    } else
        CHECK(d.route == TB_ROUTE_CPU && d.reason == why && !d.weighed && d.pred_cpu_s == 0.0 &&
                  d.pred_gpu_s == 0.0,
              "without a GPU a 4000^3 call says why, with no predicted times (got %s, %g, %g)",
              tb_reason_name(d.reason), d.pred_cpu_s, d.pred_gpu_s);

    /* Skinny shapes with big outputs stay on the CPU even when m*n*k is
     * large: the model says so before CUDA is ever asked. */
    c = row_nn(8192, 8192, 4);
    p = problem_of(c);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.reason == TB_WHY_CPU_FASTER && d.weighed,
          "8192x8192x4 is transfer-bound: CPU (got %s)", tb_reason_name(d.reason));
    CHECK(d.pred_cpu_s > 0 && d.pred_gpu_s > d.pred_cpu_s, "the model's times are reported");
    /* A call measures its route only when the two calls before it ran there. */
    tb_policy_ran(TB_ROUTE_GPU);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !d.learn, "a CPU call right after a GPU call measures nothing");
    tb_policy_ran(TB_ROUTE_CPU);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !d.learn, "nor does the second CPU call after it");
    tb_policy_ran(TB_ROUTE_CPU);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && d.learn == tb_settings_get()->learn,
          "a CPU call after two CPU calls measures the CPU (learn %d)", d.learn);
}

/* Every reason has its own word, and the GPU failure's carries its stage. */
static void test_reason_names(void)
{
    int distinct = 1;
    for (int i = 0; i < TB_WHY_COUNT; i++) {
        distinct &= strcmp(tb_reason_name((tb_reason)i), "?") != 0;
        for (int j = 0; j < i; j++)
            distinct &= strcmp(tb_reason_name((tb_reason)i), tb_reason_name((tb_reason)j)) != 0;
    }
    CHECK(distinct, "%d reasons, each with a word of its own", TB_WHY_COUNT);
    char buf[48];
    CHECK(!strcmp(tb_reason_text(TB_WHY_GPU_FAILED, TB_STAGE_H2D, buf, sizeof buf), "gpu-failed:h2d"),
          "a GPU failure names its stage (%s)", buf);
    CHECK(!strcmp(tb_reason_text(TB_WHY_CPU_TRY, TB_STAGE_H2D, buf, sizeof buf), "cpu-try"),
          "other reasons are their word alone (%s)", buf);
    CHECK(tb_reason_ineligible(TB_WHY_SMALL) && tb_reason_ineligible(TB_WHY_SCOPE) &&
              !tb_reason_ineligible(TB_WHY_CPU_FASTER) && !tb_reason_ineligible(TB_WHY_NO_GPU),
          "ineligible: the calls never meant for the GPU");
    CHECK(!strcmp(tb_reason_name(TB_WHY_COUNT), "?"), "an unknown reason reads '?'");
}

/* A GPU failure while results stream back leaves part of C final; the CPU
 * must complete exactly the rest (tb_complete_on_cpu), for every shape of
 * the final part and both transposes, with beta != 0 so that computing a
 * final element twice would show. */
/* Element i of an array of precision prec, read and written as a double. */
static double get(tb_prec prec, const void *x, int i)
{
    return prec == TB_DOUBLE ? ((const double *)x)[i] : ((const float *)x)[i];
}

static void set(tb_prec prec, void *x, int i, double v)
{
    if (prec == TB_DOUBLE)
        ((double *)x)[i] = v;
    else
        ((float *)x)[i] = (float)v;
}

/* After a GPU failure the CPU completes what is not final, in the call's
 * precision: the final parts keep what the GPU wrote, the rest is computed,
 * and nothing outside C's window changes. */
static void test_partial_completion(tb_prec prec)
{
    enum { M = 37, N = 23, K = 11 };
    static const int cases[][3] = {   /* done_cols, done_cols_end, done_rows */
        {0, 0, 0}, {0, N, 16}, {8, 16, 5}, {8, 8, 0}, {0, 12, 36}, {20, N, 1},
    };
    /* Storage for either precision: room for doubles. */
    static double A[M * K], B[K * N], C[M * (N + 3)];
    for (int tr = 0; tr < 4; tr++)
        for (unsigned ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            int ta = tr & 1, tb = tr >> 1;
            double want[M * N];
            int lda = ta ? M : K, ldb = tb ? K : N, ldc = N + 3;
            for (int i = 0; i < M * K; i++) set(prec, A, i, (double)((i * 7) % 11) - 5.0);
            for (int i = 0; i < K * N; i++) set(prec, B, i, (double)((i * 5) % 9) - 4.0);
            for (int i = 0; i < M * ldc; i++) set(prec, C, i, (double)(i % 13) * 0.5);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double acc = 0.0;
                    for (int q = 0; q < K; q++)
                        acc += get(prec, A, ta ? q * lda + i : i * lda + q) *
                               get(prec, B, tb ? j * ldb + q : q * ldb + j);
                    want[i * N + j] = 2.0 * acc + 0.5 * get(prec, C, i * ldc + j);
                }
            tb_gpu_times t = {0};
            t.done_cols = cases[ci][0];
            t.done_cols_end = cases[ci][1];
            t.done_rows = cases[ci][2];
            /* What the GPU had written: final values in the final part. */
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++)
                    if (j < t.done_cols || (j < t.done_cols_end && i < t.done_rows))
                        set(prec, C, i * ldc + j, want[i * N + j]);
            tb_call c = gemm_call(TB_API_CBLAS, prec, TB_ROW_MAJOR, ta ? TB_TRANS : TB_NO_TRANS,
                                  tb ? TB_TRANS : TB_NO_TRANS, M, N, K, 2.0, 0.5, A, lda, B, ldb,
                                  C, ldc);
            tb_problem p;
            tb_normalise(&c, &p);
            tb_complete_on_cpu(&c, &p, &t);
            int bad = 0;
            for (int i = 0; i < M && !bad; i++)
                for (int j = 0; j < N; j++)
                    if (fabs(get(prec, C, i * ldc + j) - want[i * N + j]) > 1e-3) {
                        bad = 1;
                        printf("  (%d,%d) = %g, want %g\n", i, j, get(prec, C, i * ldc + j),
                               want[i * N + j]);
                        break;
                    }
            for (int i = 0; i < M && !bad; i++)
                for (int j = N; j < ldc; j++)
                    bad |= get(prec, C, i * ldc + j) != (double)((i * ldc + j) % 13) * 0.5;
            CHECK(!bad, "%s: completion after a failure with cols<%d final, rows<%d of cols<%d "
                  "final, op %c%c", tb_prec_name(prec), t.done_cols, t.done_rows,
                  t.done_cols_end, ta ? 'T' : 'N', tb ? 'T' : 'N');
        }
}

/* Rent or buy: CUDA starts once the GPU's calls have spent on the CPU what
 * a start costs, or for one call that alone would. */
static void test_start_due(void)
{
    CHECK(!tb_start_due(0.0, 0.017), "one 2048^3 call (17 ms on the CPU) does not start the GPU");
    CHECK(!tb_start_due(0.017 * 10, 0.017), "nor do eleven");
    CHECK(tb_start_due(0.017 * 20, 0.017), "twenty-one do");
    CHECK(tb_start_due(0.0, 1.0), "one 8192^3 call (1 s on the CPU) starts it at once");
    CHECK(!tb_start_due(0.0, 0.0), "a call the GPU would not take never does");
}

/* Double calls: the same normalisation, their own shape classes and scope. */
static void test_double(void)
{
    double a[1], b[1], c[1];
    tb_call col = gemm_call(TB_API_FORTRAN, TB_DOUBLE, TB_COL_MAJOR, TB_TRANS, TB_NO_TRANS, 3, 5,
                            7, 2.0, 0.1, a, 7, b, 7, c, 3);
    tb_problem p;
    tb_normalise(&col, &p);
    CHECK(p.prec == TB_DOUBLE && p.m == 5 && p.n == 3 && p.A == b && p.beta == 0.1,
          "a double call normalises to a double problem, beta exact (%.17g)", p.beta);
    CHECK(strcmp(tb_call_name(&col), "dgemm_") == 0, "a Fortran double call is named dgemm_");
    col.entry = tb_entry_of(TB_R_gemm, TB_DOUBLE, TB_FAM_plain, TB_API_CBLAS);
    CHECK(strcmp(tb_call_name(&col), "dgemm") == 0, "a cblas_dgemm call is named dgemm");
    col.entry = tb_entry_of(TB_R_gemm, TB_DOUBLE, TB_FAM_scipy64, TB_API_CBLAS);
    CHECK(strcmp(tb_call_name(&col), "scipy_dgemm64_") == 0 &&
          strcmp(col.entry->symbol, "scipy_cblas_dgemm64_") == 0 && col.entry->width == 8,
          "a scipy_cblas_dgemm64_ call is named scipy_dgemm64_ and takes 8-byte integers");
    tb_problem q = p;
    q.prec = TB_SINGLE;
    CHECK(tb_policy_class(&p) != tb_policy_class(&q), "single and double calls of one shape are "
          "different classes");
}

int main(void)
{
    /* Decisions with the built-in rates: never measure in a unit test. */
    setenv("TILEDBLAS_CALIBRATE", "off", 1);
    test_legality();
    test_legality_level3();
    test_level3_reports();
    test_normalise();
    test_decide();
    test_reason_names();
    test_partial_completion(TB_SINGLE);
    test_partial_completion(TB_DOUBLE);
    test_double();
    test_start_due();
    return unit_summary("test_dispatch");
}
