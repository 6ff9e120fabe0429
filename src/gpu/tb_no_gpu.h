/* src/gpu/tb_no_gpu.h - why CUDA has no usable device, in the same words
 * wherever it is said: the library (gpu.c: `tiledblas info`, warnings,
 * statistics), `tiledblas bench`, bench/'s programs and tests/gpu_probe
 * (which scripts/demo.sh quotes). Header only, for programs that link
 * CUDA's runtime but not the library's internals. CUDA says "CUDA driver
 * version is insufficient for CUDA runtime version" both where the driver
 * is too old and where there is none at all: these words tell them apart. */
#ifndef TB_NO_GPU_H
#define TB_NO_GPU_H

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#define TB_NO_DRIVER_TEXT "no NVIDIA driver found (libcuda.so.1 cannot be loaded)"

/* Whether an NVIDIA driver is there to start: its device node, else its
 * library loads (a miss costs a path search, not CUDA's start-up, so the
 * library learns it on the calling thread, with no thread started; where
 * the node exists, CUDA loads the library anyway). */
static inline int tb_nvidia_driver_present(void)
{
    return access("/dev/nvidiactl", F_OK) == 0 || dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
}

/* Why cudaGetDeviceCount's answer (e, count) leaves no device to use
 * (for an error, or a count of 0). */
static inline const char *tb_no_gpu_text(cudaError_t e, int count)
{
    if (e == cudaErrorInsufficientDriver)
        return tb_nvidia_driver_present() ? "the NVIDIA driver is older than the CUDA runtime built in"
                                          : TB_NO_DRIVER_TEXT;
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
        return "no CUDA device";
    if (e == cudaErrorDevicesUnavailable)
        return "the GPU is busy or unavailable (exclusive-process or prohibited compute mode)";
    return cudaGetErrorString(e);
}

#endif
