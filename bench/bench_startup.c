/* bench/bench_startup.c - a short BLAS program as a user runs one: it fills
 * its arrays, makes CALLS products of n^3 (cblas_sgemm, or cblas_dgemm with
 * --double), prints a checksum and exits. Linked to OpenBLAS, it knows
 * nothing of libtiledblas; scripts/startup.sh times whole processes of it
 * alone and under the preload. Usage: bench_startup N CALLS [--double] */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
        fprintf(stderr, "usage: bench_startup N CALLS [--double]\n");
        return 2;
    }
    const int n = atoi(argv[1]), calls = atoi(argv[2]);
    const int dbl = argc > 3 && strcmp(argv[3], "--double") == 0;
    const size_t nn = (size_t)n * n, es = dbl ? sizeof(double) : sizeof(float);
    char *A = malloc(nn * es), *B = malloc(nn * es), *C = malloc(nn * es);
    if (!A || !B || !C) {
        fprintf(stderr, "bench_startup: out of memory\n");
        return 1;
    }
    /* Values in [0.5, 1.5), every page written. */
    for (size_t i = 0; i < nn; i++) {
        const double a = 0.5 + (double)(i * 2654435761u % 1000) / 1000.0;
        const double b = 0.5 + (double)(i * 40503u % 1000) / 1000.0;
        if (dbl) {
            ((double *)A)[i] = a;
            ((double *)B)[i] = b;
        } else {
            ((float *)A)[i] = (float)a;
            ((float *)B)[i] = (float)b;
        }
    }
    for (int c = 0; c < calls; c++) {
        if (dbl)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, (double *)A, n,
                        (double *)B, n, 0.0, (double *)C, n);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, (float *)A, n,
                        (float *)B, n, 0.0f, (float *)C, n);
    }
    double sum = 0.0;
    for (size_t i = 0; i < nn; i += 997)
        sum += dbl ? ((double *)C)[i] : ((float *)C)[i];
    printf("bench_startup: %d calls of %d^3 (%s), checksum %.6e\n", calls, n,
           dbl ? "double" : "single", sum);
    free(A);
    free(B);
    free(C);
    return 0;
}
