/* tests/dtor_lib.c - a shared library whose destructor makes three sgemm
 * calls, as libraries that free or flush at exit do (harden.sh's exit-dtor
 * case): under the preload the process must exit as fast as without it. */
#include <cblas.h>

__attribute__((destructor)) static void tb_dtor_calls(void)
{
    static float A[64 * 64], B[64 * 64], C[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
        A[i] = B[i] = 0.5f;
    for (int i = 0; i < 3; i++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 64, 64, 64, 1.0f, A, 64, B, 64,
                    0.0f, C, 64);
}

__attribute__((visibility("default"))) int tb_dtor_lib_loaded(void) { return 1; }
