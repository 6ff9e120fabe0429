/* tests/illegal_args.c - calls cblas_sgemm, cblas_dgemm, sgemm_ and dgemm_
 * with one illegal argument at a time, then a legal call of each precision,
 * and prints what happened ("illegal <routine> call <i>" before each).
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
    As[0] = 2.0f; Bs[0] = 3.0f;
    Ad[0] = 2.0; Bd[0] = 3.0;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, As, 1, Bs, 1, 0.0f, Cs, 1);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, Ad, 1, Bd, 1, 0.0, Cd, 1);
    printf("still running: C[0] = %g (single), %g (double)\n", Cs[0], Cd[0]);
    return Cs[0] == 6.0f && Cd[0] == 6.0 ? 0 : 1;
}
