/* bench/bench_util.h - the clock and the order statistics every benchmark
 * here times with: wall seconds (CLOCK_MONOTONIC), doubles sorted in place,
 * and the median of a sample. */
#ifndef TB_BENCH_UTIL_H
#define TB_BENCH_UTIL_H
#include <stdlib.h>
#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v (n > 0) and returns its median. */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
#endif
