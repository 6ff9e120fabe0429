/* tests/illegal_args.c - calls cblas_sgemm with one illegal argument at a
 * time, then a legal call, and prints what happened. Under the preload the
 * real BLAS must report each exactly as it does without it, and the program
 * must go on to the end. */
#include <cblas.h>
#include <stdio.h>

int main(void)
{
    float A[64] = {1}, B[64] = {1}, C[64] = {0};
    /* {layout, transa, transb, m, n, k, lda, ldb, ldc} */
    static const int bad[][9] = {
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
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const int *a = bad[i];
        printf("illegal call %u\n", i);
        fflush(stdout);
        cblas_sgemm(a[0], a[1], a[2], a[3], a[4], a[5], 1.0f, A, a[6], B, a[7], 0.0f, C, a[8]);
        fflush(stderr);
    }
    A[0] = 2.0f; B[0] = 3.0f;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, A, 1, B, 1, 0.0f, C, 1);
    printf("still running: C[0] = %g\n", C[0]);
    return C[0] == 6.0f ? 0 : 1;
}
