/* tool/cmd_calibrate.c - `tiledblas calibrate`: measure this machine's
 * rates for the GPU/CPU decision, single and double precision, now and
 * cache them (tiledblas_calibrate): auto mode reads them once CUDA starts,
 * and without them measures only the GPU's own. */
#include "tool.h"
#include "tiledblas.h"
#include <stdio.h>
#include <string.h>

static const char tb_calibrate_usage[] =
    "usage: tiledblas calibrate\n"
    "Measures the rates the GPU/CPU decision uses on this machine - the CPU BLAS\n"
    "(large, small, one-core and thin calls), host<->device transfers through the\n"
    "staging pipeline, the default kernel, double precision's compute rates (the\n"
    "CPU BLAS's dgemm on all cores and on one, the fp64 kernel), and both routes'\n"
    "times at 259 small single-precision shapes where the two are close - prints\n"
    "them (double's after \"double:\") and caches them in\n"
    "TILEDBLAS_CACHE_DIR (else $XDG_CACHE_HOME/tiledblas, else ~/.cache/tiledblas),\n"
    "keyed by GPU, CPU, CPU BLAS and settings, where auto mode reads them. With\n"
    "nothing cached, auto mode measures only the GPU's own rates (the CPU BLAS's\n"
    "and the copies' stay built in); run this once per machine, after changing\n"
    "hardware or drivers, on a quiet machine for steadier numbers.\n"
    "Exit status: 0 measured, 1 no GPU here, 2 bad usage, 3 measuring failed.\n";

int tb_cmd_calibrate(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(tb_calibrate_usage, stdout);
            return 0;
        }
        return tb_tool_usage_error("calibrate", "unexpected argument '%s'", argv[i]);
    }
    char report[2048];
    int r = tiledblas_calibrate(report, sizeof report);
    fputs(report, r == 0 ? stdout : stderr);
    return r == 0 ? 0 : r == 1 ? 1 : 3;
}
