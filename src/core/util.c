/* src/core/util.c - small helpers shared by the host side. */
#include "tb_internal.h"
#include <time.h>

double tb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
