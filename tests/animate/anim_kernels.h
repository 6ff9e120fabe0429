/* tests/animate/anim_kernels.h - the kernel geometry the animate tests use
 * instead of the library's table (which needs CUDA): the seed as in
 * kernels/registry.c and two made-up blocked kernels that exercise warp
 * tiles and micro-tiles. Keep the seed's row in step with the registry. */
#ifndef TB_ANIM_KERNELS_H
#define TB_ANIM_KERNELS_H

#include "animate.h"

static const tb_anim_geom tb_test_kernels[] = {
    {"tiled16", "seed: 16x16 shared-memory tiles, one thread per element of C",
     16, 16, 16, 0, 0, 1, 1, 256},
    {"test64x64", "test geometry: 64x64 block tile, k step 8, 32x16 warps, 4x4 per thread",
     64, 64, 8, 32, 16, 4, 4, 256},
    {"test128x128", "test geometry: 128x128 block tile, k step 8, 64x32 warps, 8x8 per thread",
     128, 128, 8, 64, 32, 8, 8, 256},
};
#define TB_TEST_NKERNELS ((int)(sizeof tb_test_kernels / sizeof tb_test_kernels[0]))

#endif
