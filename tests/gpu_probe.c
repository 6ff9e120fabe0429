/* tests/gpu_probe.c - exits 0 when a CUDA device is usable, 1 otherwise;
 * the shell tests use it to choose between GPU expectations and a skip. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
        return 1;
    }
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("%s\n", p.name);
    return 0;
}
