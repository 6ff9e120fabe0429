/* tests/animate/anim_kernels.h - the kernel geometry the animate tests use
 * instead of the library's table (which needs CUDA): rows copied from
 * kernels/registry.c (seed, register-blocked, warp-tiled, tensor-core), so
 * the tests cover no warp tiles, warp tiles and block_k from 8 to 32. */
#ifndef TB_ANIM_KERNELS_H
#define TB_ANIM_KERNELS_H

#include "animate.h"

static const tb_anim_geom tb_test_kernels[] = {
    {"tiled16", "seed: 16x16 shared-memory tiles, one thread per element of C",
     16, 16, 16, 0, 0, 1, 1, 256},
    {"regblock", "128x128 tiles, 8x8 register micro-tiles, 128-bit loads, padded smem",
     128, 128, 8, 0, 0, 8, 8, 256},
    {"warptile", "warp tiles (64x32), double-buffered smem, one barrier per K slice",
     128, 128, 16, 64, 32, 8, 8, 256},
    {"tf32x3", "tensor cores, 3xTF32 error-compensated (fp32 accuracy), 4-stage cp.async",
     128, 128, 32, 64, 32, 8, 8, 256},
};
#define TB_TEST_NKERNELS ((int)(sizeof tb_test_kernels / sizeof tb_test_kernels[0]))

#endif
