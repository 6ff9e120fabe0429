/* tests/fortran_gemm.h - the Fortran GEMM routines as a Fortran program or
 * LAPACK calls them: every argument by reference, then the hidden lengths
 * of the two character arguments (transa, transb). */
#ifndef TB_TESTS_FORTRAN_GEMM_H
#define TB_TESTS_FORTRAN_GEMM_H
#include <stddef.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
/* Complex: each scalar and element two floats or two doubles (re, im). */
void cgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);

#endif
