/* tests/illegal_args.c - calls cblas_sgemm, cblas_dgemm, sgemm_ and dgemm_,
 * then cblas_dsyrk, dsyrk_, cblas_ztrsm and ztrsm_, with one illegal
 * argument at a time, then a legal call of each gemm precision, and prints
 * what happened ("illegal <routine> call <i>" before each).
 * Under the preload the real BLAS must report each exactly as it does
 * without it, and the program must go on to the end. */
#include <cblas.h>
#include <stdio.h>

#include "fortran_gemm.h"

static float As[64] = {1}, Bs[64] = {1}, Cs[64];
static double Ad[64] = {1}, Bd[64] = {1}, Cd[64];

/* {layout, transa, transb, m, n, k, lda, ldb, ldc} */
static const int bad_cblas[][9] = {
    {100, CblasNoTrans, CblasNoTrans, 2, 2, 2, 2, 2, 2},
    {CblasRowMajor, 7, CblasNoTrans, 2, 2, 2, 2, 2, 2},
    {CblasRowMajor, CblasNoTrans, 7, 2, 2, 2, 2, 2, 2},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 2, 2, 2},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, -1, 2, 2, 2, 2},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, -1, 2, 2, 2},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 4, 4, 3, 4, 4},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 4, 4, 4, 3, 4},
    {CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 4, 4, 4, 4, 3},
    {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 2, 2, 3, 2, 4},
    {CblasColMajor, CblasTrans, CblasTrans, 2, 2, 4, 3, 2, 2},
};

/* Fortran: transa, transb as characters, then {m, n, k, lda, ldb, ldc}. */
static const struct { char ta, tb; int a[6]; } bad_fortran[] = {
    {'X', 'N', {2, 2, 2, 2, 2, 2}},
    {'n', 'Q', {2, 2, 2, 2, 2, 2}},
    {'N', 'N', {-1, 2, 2, 2, 2, 2}},
    {'N', 'N', {4, 2, 2, 3, 2, 4}},
    {'T', 'n', {2, 2, 4, 3, 2, 2}},
    {'N', 'N', {4, 2, 2, 4, 1, 4}},
    {'N', 'N', {4, 2, 2, 4, 2, 3}},
};

#define COUNT(t) (sizeof t / sizeof t[0])

void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *,
            const int *, const double *, double *, const int *, size_t, size_t);
void ztrsm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const void *, const void *, const int *, void *, const int *, size_t, size_t, size_t,
            size_t);
static double Az[128], Bz[128];

/* dsyrk: CBLAS {layout, uplo, trans, n, k, lda, ldc}; Fortran {uplo, trans}
 * and {n, k, lda, ldc}. */
static const int bad_syrk_cblas[][7] = {
    {100, CblasUpper, CblasNoTrans, 2, 2, 2, 2},
    {CblasRowMajor, 7, CblasNoTrans, 2, 2, 2, 2},
    {CblasColMajor, CblasUpper, 7, 2, 2, 2, 2},
    {CblasRowMajor, CblasLower, CblasTrans, -1, 2, 2, 2},
    {CblasColMajor, CblasLower, CblasNoTrans, 2, -1, 2, 2},
    {CblasRowMajor, CblasUpper, CblasNoTrans, 4, 3, 2, 4},
    {CblasColMajor, CblasUpper, CblasTrans, 4, 3, 4, 3},
};
static const struct { char u, t; int a[4]; } bad_syrk_fortran[] = {
    {'X', 'N', {2, 2, 2, 2}}, {'u', 'Q', {2, 2, 2, 2}}, {'L', 'T', {-1, 2, 2, 2}},
    {'L', 'N', {4, 3, 3, 4}}, {'U', 'c', {4, 3, 3, 3}},
};
/* ztrsm: CBLAS {layout, side, uplo, transa, diag, m, n, lda, ldb}; Fortran
 * {side, uplo, transa, diag} and {m, n, lda, ldb}. */
static const int bad_trsm_cblas[][9] = {
    {100, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 2, 2, 2, 2},
    {CblasColMajor, 7, CblasUpper, CblasNoTrans, CblasNonUnit, 2, 2, 2, 2},
    {CblasRowMajor, CblasLeft, 7, CblasNoTrans, CblasNonUnit, 2, 2, 2, 2},
    {CblasColMajor, CblasLeft, CblasUpper, 7, CblasNonUnit, 2, 2, 2, 2},
    {CblasRowMajor, CblasLeft, CblasUpper, CblasConjTrans, 7, 2, 2, 2, 2},
    {CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasUnit, -1, 2, 2, 2},
    {CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasUnit, 2, -1, 2, 2},
    {CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 4, 3, 3, 4},
    {CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 4, 3, 4, 2},
};
static const struct { char o[4]; int a[4]; } bad_trsm_fortran[] = {
    {"XUNN", {2, 2, 2, 2}}, {"lXNN", {2, 2, 2, 2}}, {"LUXN", {2, 2, 2, 2}}, {"LUNX", {2, 2, 2, 2}},
    {"RLCU", {-1, 2, 2, 2}}, {"rlcu", {2, -1, 2, 2}}, {"RUTN", {4, 3, 2, 4}}, {"LUNN", {4, 3, 4, 3}},
};

/* The other routines' illegal calls. */
static void level3(void)
{
    const double one[2] = {1.0, 0.0};
    for (unsigned i = 0; i < COUNT(bad_syrk_cblas); i++) {
        const int *a = bad_syrk_cblas[i];
        printf("illegal cblas_dsyrk call %u\n", i);
        fflush(stdout);
        cblas_dsyrk(a[0], a[1], a[2], a[3], a[4], 1.0, Ad, a[5], 0.0, Cd, a[6]);
        fflush(stderr);
    }
    for (unsigned i = 0; i < COUNT(bad_syrk_fortran); i++) {
        const int *a = bad_syrk_fortran[i].a;
        printf("illegal dsyrk_ call %u\n", i);
        fflush(stdout);
        dsyrk_(&bad_syrk_fortran[i].u, &bad_syrk_fortran[i].t, &a[0], &a[1], one, Ad, &a[2], one,
               Cd, &a[3], 1, 1);
        fflush(stderr);
    }
    for (unsigned i = 0; i < COUNT(bad_trsm_cblas); i++) {
        const int *a = bad_trsm_cblas[i];
        printf("illegal cblas_ztrsm call %u\n", i);
        fflush(stdout);
        cblas_ztrsm(a[0], a[1], a[2], a[3], a[4], a[5], a[6], one, Az, a[7], Bz, a[8]);
        fflush(stderr);
    }
    for (unsigned i = 0; i < COUNT(bad_trsm_fortran); i++) {
        const char *o = bad_trsm_fortran[i].o;
        const int *a = bad_trsm_fortran[i].a;
        printf("illegal ztrsm_ call %u\n", i);
        fflush(stdout);
        ztrsm_(&o[0], &o[1], &o[2], &o[3], &a[0], &a[1], one, Az, &a[2], Bz, &a[3], 1, 1, 1, 1);
        fflush(stderr);
    }
}

int main(void)
{
    for (int dbl = 0; dbl < 2; dbl++)
        for (unsigned i = 0; i < COUNT(bad_cblas); i++) {
            const int *a = bad_cblas[i];
            printf("illegal %s call %u\n", dbl ? "cblas_dgemm" : "cblas_sgemm", i);
            fflush(stdout);
            if (dbl)
                cblas_dgemm(a[0], a[1], a[2], a[3], a[4], a[5], 1.0, Ad, a[6], Bd, a[7], 0.0, Cd, a[8]);
            else
                cblas_sgemm(a[0], a[1], a[2], a[3], a[4], a[5], 1.0f, As, a[6], Bs, a[7], 0.0f, Cs, a[8]);
            fflush(stderr);
        }
    for (int dbl = 0; dbl < 2; dbl++)
        for (unsigned i = 0; i < COUNT(bad_fortran); i++) {
            const int *a = bad_fortran[i].a;
            printf("illegal %s call %u\n", dbl ? "dgemm_" : "sgemm_", i);
            fflush(stdout);
            if (dbl)
                dgemm_(&bad_fortran[i].ta, &bad_fortran[i].tb, &a[0], &a[1], &a[2], &(double){1.0}, Ad,
                       &a[3], Bd, &a[4], &(double){0.0}, Cd, &a[5], 1, 1);
            else
                sgemm_(&bad_fortran[i].ta, &bad_fortran[i].tb, &a[0], &a[1], &a[2], &(float){1.0f}, As,
                       &a[3], Bs, &a[4], &(float){0.0f}, Cs, &a[5], 1, 1);
            fflush(stderr);
        }
    level3();
    As[0] = 2.0f; Bs[0] = 3.0f;
    Ad[0] = 2.0; Bd[0] = 3.0;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, As, 1, Bs, 1, 0.0f, Cs, 1);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, Ad, 1, Bd, 1, 0.0, Cd, 1);
    printf("still running: C[0] = %g (single), %g (double)\n", Cs[0], Cd[0]);
    return Cs[0] == 6.0f && Cd[0] == 6.0 ? 0 : 1;
}
