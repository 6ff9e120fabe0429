/* tool/cmd_info.c - `tiledblas info`: what the library says about itself
 * (tiledblas_info: path, version, CPU BLAS, GPU, kernels, settings) and which
 * library `tiledblas run` would preload. Describing the GPU starts CUDA. */
#include "tool.h"
#include "tiledblas.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char tb_info_usage[] =
    "usage: tiledblas info\n"
    "Prints the library's path and version, the CPU BLAS it forwards to (name,\n"
    "version, OpenBLAS core), the GPU (or \"GPU: none (why)\"), the kernels with\n"
    "the precision each computes (single, double, complex or zcomplex), and the\n"
    "TILEDBLAS_* settings in effect in this environment.\n";

int tb_cmd_info(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(tb_info_usage, stdout);
            return 0;
        }
        return tb_tool_usage_error("info", "unexpected argument '%s'", argv[i]);
    }
    int need = tiledblas_info(NULL, 0);
    char *text = malloc((size_t)need + 1);
    if (!text) {
        fprintf(stderr, "tiledblas: info: out of memory\n");
        return 1;
    }
    tiledblas_info(text, (size_t)need + 1);
    printf("tiledblas %s\n%s", tiledblas_version(), text);
    const char *lib = tb_tool_library();
    printf("preloaded by 'tiledblas run': %s\n", lib ? lib : "(not found)");
    free(text);
    return lib ? 0 : 1;
}
