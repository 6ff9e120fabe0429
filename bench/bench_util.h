/* bench/bench_util.h - the clock and the order statistics every benchmark
 * here times with: wall seconds (CLOCK_MONOTONIC), doubles sorted in place,
 * and the median of a sample; and fresh uniform inputs in [-1, 1), single or
 * double. */
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
/* n pseudo-random elements of es bytes (4: float, 8: double), uniform in
 * [-1, 1), the same for the same seed; doubles get a full 53-bit mantissa,
 * floats the same values as they always had. */
static inline void fill_uniform_es(void *x, size_t n, size_t es, unsigned seed)
{
    unsigned long long s = seed * 2654435761ull + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        if (es == sizeof(double))
            ((double *)x)[i] = (double)(s >> 11) * 0x1p-52 - 1.0;
        else
            ((float *)x)[i] = (float)((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
    }
}
/* n pseudo-random floats, uniform in [-1, 1). */
static inline void fill_uniform(float *x, size_t n, unsigned seed)
{
    fill_uniform_es(x, n, sizeof(float), seed);
}
#endif
