/* tests/secure_probe.c - a program linked to libtiledblas itself (no BLAS of
 * its own), for harden.sh's setuid case: prints whether it runs in secure
 * execution and as whom, then makes three sgemm calls, so that every file
 * and library the settings name would be touched if they were believed. */
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);

int main(void)
{
    static float A[64 * 64], B[64 * 64], C[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
        A[i] = B[i] = 1.0f;
    printf("secure %lu euid %d uid %d\n", getauxval(AT_SECURE), (int)geteuid(), (int)getuid());
    fflush(stdout);
    for (int i = 0; i < 3; i++)
        cblas_sgemm(101, 111, 111, 64, 64, 64, 1.0f, A, 64, B, 64, 0.0f, C, 64);
    return 0;
}
