/* tests/client_rand.h - what the random-call clients (sgemm_check.c,
 * l3_check.c) share: a small generator with a fixed seed, so that a run
 * is reproducible, and where element (i, j) of a matrix lies. */
#ifndef TB_CLIENT_RAND_H
#define TB_CLIENT_RAND_H

#include <cblas.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int rng_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* A value in [-1, 1) with every bit of the element type's mantissa random
 * (dbl: double, else float): a double path that rounded its operands to
 * float would show. */
static inline double rng_value(uint64_t *s, int dbl)
{
    double u = (rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
    return dbl ? u * 2.0 - 1.0 : (float)u * 2.0f - 1.0f;
}

/* Element (i, j) of a matrix stored with the given layout and ld. */
static inline size_t at(int layout, int ld, int i, int j)
{
    return layout == CblasRowMajor ? (size_t)i * ld + j : (size_t)j * ld + i;
}

#endif
