/* tests/gpu_probe.c - exits 0 when a CUDA device is usable (and prints its
 * name), 1 otherwise (and prints why, in the library's words: tb_no_gpu.h);
 * the shell tests use it to choose between GPU expectations and a skip, and
 * scripts/demo.sh to say whether there is a GPU. */
#include "tb_no_gpu.h"
#include <stdio.h>

int main(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("%s\n", tb_no_gpu_text(e, n));
        return 1;
    }
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("%s\n", p.name);
    return 0;
}
