/* tests/blas_count.c - a witness preloaded in place of libtiledblas: it
 * exports sgemm_, dgemm_, cblas_sgemm and cblas_dgemm, writes one line
 * "blas_count: <name>" on stderr per call (one write(2), so lines from many
 * threads never mix) and forwards the call unchanged to the BLAS the program
 * loaded. client.torch counts these lines to learn how many GEMM calls a
 * program we did not write makes, independently of the library under test.
 * The forwarding target is found as shim/realblas.c finds it: the next
 * definition (dlsym RTLD_NEXT), else any loaded object that defines it, so
 * that a BLAS dlopen()ed privately (Python extension modules) is found too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct scan { const char *name; void *sym; } scan;

static int is_ours(void *sym)
{
    Dl_info self, other;
    return dladdr((void *)is_ours, &self) && dladdr(sym, &other) && self.dli_fbase == other.dli_fbase;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    scan *sc = arg;
    if (!info->dlpi_name || !*info->dlpi_name)
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *sym = dlsym(h, sc->name);
    dlclose(h);
    if (sym && !is_ours(sym)) {
        sc->sym = sym;
        return 1;
    }
    return 0;
}

/* The real entry point, looked up on every call (the witness is for
 * counting, not speed); exits 70 when the program has none, since a
 * forwarder with nowhere to go must not pretend the call happened. */
static void *real(const char *name)
{
    char line[64];
    int n = snprintf(line, sizeof line, "blas_count: %s\n", name);
    if (write(2, line, (size_t)n) != n) { /* stderr closed: count lost, call still made */ }
    void *sym = dlsym(RTLD_NEXT, name);
    if (sym && !is_ours(sym))
        return sym;
    scan sc = {name, NULL};
    dl_iterate_phdr(scan_one, &sc);
    if (!sc.sym) {
        fprintf(stderr, "blas_count: no %s loaded to forward to\n", name);
        _exit(70);
    }
    return sc.sym;
}

/* Fortran: every argument by reference, then the two hidden lengths of the
 * character arguments; the element type only changes what the pointers
 * point to, so one forwarder type serves both precisions. */
typedef void (*fortran_gemm)(const char *, const char *, const int *, const int *, const int *,
                             const void *, const void *, const int *, const void *, const int *,
                             const void *, void *, const int *, size_t, size_t);

EXPORT void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const float *alpha, const float *a, const int *lda, const float *b,
                   const int *ldb, const float *beta, float *c, const int *ldc, size_t la, size_t lb)
{
    ((fortran_gemm)real("sgemm_"))(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}

EXPORT void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc, size_t la, size_t lb)
{
    ((fortran_gemm)real("dgemm_"))(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);
}

/* CBLAS: alpha and beta by value, so each precision has its own type. */
typedef void (*cblas_s)(int, int, int, int, int, int, float, const float *, int, const float *,
                        int, float, float *, int);
typedef void (*cblas_d)(int, int, int, int, int, int, double, const double *, int,
                        const double *, int, double, double *, int);

EXPORT void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                        int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    ((cblas_s)real("cblas_sgemm"))(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

EXPORT void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha,
                        const double *a, int lda, const double *b, int ldb, double beta,
                        double *c, int ldc)
{
    ((cblas_d)real("cblas_dgemm"))(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
