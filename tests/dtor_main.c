/* tests/dtor_main.c - loads dtor_lib (linked) and makes one sgemm call
 * itself, then returns: what exit costs is what harden.sh's exit-dtor case
 * times. */
#include <cblas.h>
#include <stdio.h>

int tb_dtor_lib_loaded(void);

int main(void)
{
    static float A[64 * 64], B[64 * 64], C[64 * 64];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 64, 64, 64, 1.0f, A, 64, B, 64,
                0.0f, C, 64);
    printf("dtor_main: lib %d\n", tb_dtor_lib_loaded());
    return 0;
}
