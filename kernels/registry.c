/* kernels/registry.c - the list of kernels the dispatcher may choose from,
 * in the order of the progression (docs/kernels.md). Adding a kernel means
 * adding its launcher here; nothing else in src/ names a kernel. */
#include "tb_kernels.h"
#include <string.h>

static const tb_kernel_info tb_kernels[] = {
    {"tiled16", "seed: 16x16 shared-memory tiles, one thread per element of C",
     tb_launch_tiled16, NULL, 0, 16, 16, 16, 0, 0, 1, 1, 256},
};

const tb_kernel_info *tb_kernel_list(int *count)
{
    *count = (int)(sizeof tb_kernels / sizeof tb_kernels[0]);
    return tb_kernels;
}

const tb_kernel_info *tb_kernel_by_name(const char *name)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    return NULL;
}

const tb_kernel_info *tb_kernel_pick(const tb_gemm_args *args)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n), *best = NULL;
    for (int i = 0; i < n; i++)
        if ((!k[i].supports || k[i].supports(args)) && (!best || k[i].rank > best->rank))
            best = &k[i];
    return best;
}
