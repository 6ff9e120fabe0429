/* tool/animate/cmd.c - the entry point the `tiledblas` command calls for
 * `animate`: copies the kernel table out of the library through the public
 * API (include/tiledblas.h) and hands it to cli.c. The only file here that
 * needs libtiledblas; tests call tb_animate_main() with their own table. */
#include "animate.h"
#include "tiledblas.h"

#include <stdio.h>
#include <stdlib.h>

int tb_cmd_animate(int argc, char **argv)
{
    int n = tiledblas_kernel_count();
    if (n < 1) {
        fprintf(stderr, "tiledblas: animate: the library lists no kernels\n");
        return 1;
    }
    tb_anim_geom *k = calloc((size_t)n, sizeof *k);
    if (!k) {
        fprintf(stderr, "tiledblas: animate: out of memory\n");
        return 1;
    }
    int nk = 0;
    for (int i = 0; i < n; i++) {
        tiledblas_kernel_desc d;
        if (tiledblas_kernel_describe(i, &d) != 0)
            continue;
        tb_anim_geom *g = &k[nk++];
        snprintf(g->name, sizeof g->name, "%s", d.name ? d.name : "?");
        snprintf(g->summary, sizeof g->summary, "%s", d.summary ? d.summary : "");
        g->block_m = d.block_m;   g->block_n = d.block_n;   g->block_k = d.block_k;
        g->warp_m = d.warp_m;     g->warp_n = d.warp_n;
        g->thread_m = d.thread_m; g->thread_n = d.thread_n;
        g->threads = d.threads;
    }
    int rc = tb_animate_main(argc, argv, k, nk);
    free(k);
    return rc;
}
