/* tests/gpu_full.c - a program that has taken nearly all of the GPU's memory
 * for itself, then calls sgemm under the preload in forced-GPU mode: every
 * call must still be right (the library plans within what is free, or falls
 * back to the CPU). Exits 77 when there is no GPU. */
#define _GNU_SOURCE
#include <cblas.h>
#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    size_t free_b = 0, total = 0;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cudaMemGetInfo(&free_b, &total);
    /* Leave 96 MiB: less than one 2048^3 call needs at once. */
    size_t take = free_b > ((size_t)96 << 20) ? free_b - ((size_t)96 << 20) : 0;
    void *hog = NULL;
    while (take > 0 && cudaMalloc(&hog, take) != cudaSuccess)
        take -= (size_t)64 << 20;
    cudaMemGetInfo(&free_b, &total);
    printf("gpu_full: holding %.1f GiB of device memory, %.0f MiB left free\n",
           take / 1073741824.0, free_b / 1048576.0);
    const int sz = 2048;
    float *A = malloc(sizeof(float) * sz * sz), *B = malloc(sizeof(float) * sz * sz);
    float *C = malloc(sizeof(float) * sz * sz);
    for (int i = 0; i < sz * sz; i++) {
        A[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        B[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    }
    int failed = 0;
    for (int rep = 0; rep < 3; rep++) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, sz, sz, sz, 1.0f, A, sz, B, sz, 0.0f, C, sz);
        for (int i = 0; i < sz; i += 97)
            for (int j = 0; j < sz; j += 89) {
                double acc = 0.0, mag = 0.0;
                for (int p = 0; p < sz; p++) {
                    acc += (double)A[(size_t)i * sz + p] * B[(size_t)p * sz + j];
                    mag += fabs((double)A[(size_t)i * sz + p] * B[(size_t)p * sz + j]);
                }
                if (!(fabs(C[(size_t)i * sz + j] - acc) <= 2.0 * (sz + 2) * FLT_EPSILON * mag + 1e-30))
                    failed++;
            }
    }
    cudaFree(hog);
    printf("gpu_full: 3 calls of %d^3 with the GPU nearly full: %s\n", sz, failed ? "WRONG" : "right");
    printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    return failed ? 1 : 0;
}
