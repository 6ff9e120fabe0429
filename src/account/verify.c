/* src/account/verify.c - TILEDBLAS_MODE=verify: the GPU computes into scratch memory,
 * the CPU BLAS into the caller's C (the caller always gets the CPU result),
 * and the two are compared against the error bound of the call's precision.
 * It never changes what the caller receives and never decides the route
 * (dispatch.c does). */
#include "tb_internal.h"
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

/* A complex matrix is compared as the real one of its parts: m x 2n reals,
 * re and im side by side (its Frobenius norm is the complex one). */
static size_t tb_parts(tb_prec prec) { return tb_prec_complex(prec) ? 2 : 1; }

/* Real number j of row i of a row-major matrix of precision prec (stride
 * ld elements), as a double. */
static double tb_elem(tb_prec prec, const void *x, size_t ld, size_t i, size_t j)
{
    const size_t at = i * ld * tb_parts(prec) + j;
    return tb_prec_real(prec) == TB_DOUBLE ? ((const double *)x)[at] : ((const float *)x)[at];
}

/* Frobenius norm of the rows x cols window of a row-major matrix. */
static double tb_fro(tb_prec prec, const void *x, size_t ld, size_t rows, size_t cols)
{
    double s = 0.0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols * tb_parts(prec); j++) {
            const double e = tb_elem(prec, x, ld, i, j);
            s += e * e;
        }
    return sqrt(s);
}

/* What the two sides' difference adds up to, element by element over C's
 * window: gpu (stride ldg) against the CPU BLAS's result in p->C. Returns
 * how many elements differ only by the CPU BLAS's alpha = 0 quirk. */
static size_t tb_verify_diff(const tb_problem *p, const void *gpu, size_t ldg, int reads_ab,
                             tb_verify_result *v, double *diff2, double *ref2)
{
    const size_t m = (size_t)p->m, n = (size_t)p->n * tb_parts(p->prec);
    double max_abs = 0.0, sum_abs = 0.0;
    size_t quirks = 0;
    *diff2 = *ref2 = 0.0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double cpu = tb_elem(p->prec, p->C, p->ldc, i, j), g = tb_elem(p->prec, gpu, ldg, i, j), d;
            if (cpu == g || (isnan(cpu) && isnan(g))) {
                d = 0.0;                       /* equal, equal infinities, both NaN */
            } else if (!reads_ab && isnan(cpu)) {
                /* OpenBLAS's SkylakeX kernel reads A and B when alpha = 0 and
                 * turns their NaN into C's; reference BLAS (and our GPU path)
                 * gives beta*C. That is not the GPU's error. */
                quirks++;
                d = 0.0;
            } else {
                d = fabs(g - cpu);
                if (isnan(d))
                    d = INFINITY;              /* NaN or infinity on one side only */
            }
            max_abs = d > max_abs ? d : max_abs;
            sum_abs += d;
            *diff2 += d * d;
            if (isfinite(cpu))
                *ref2 += cpu * cpu;
        }
    v->max_abs = max_abs;
    v->avg_abs = (m * n != 0) ? sum_abs / (double)(m * n) : 0.0;
    v->rel_fro = *ref2 > 0.0 ? sqrt(*diff2 / *ref2) : sqrt(*diff2);
    return quirks;
}

/* Each side's result is within (k+2)u |alpha||A||B| + |beta C0| of the
 * exact one, element by element (u = eps/2 of the precision; twice that
 * for complex numbers, whose products and sums take two roundings), so the
 * two differ by at most (k+2) eps times that; in Frobenius norm
 * || |A||B| || <= ||A|| ||B||. A correct kernel can never break this
 * bound, whatever the cancellation in C (a residual B - A*X is fine);
 * reduced precision such as TF32 shows instead in rel_fro, which the
 * report prints (correct fp32 gives about 1e-6, fp64 about 1e-15).
 * c0: the Frobenius norm of C's window before the call. */
static double tb_verify_bound(const tb_problem *p, int reads_ab, double c0)
{
    const size_t m = (size_t)p->m, n = (size_t)p->n, k = (size_t)p->k;
    const int dbl = tb_prec_real(p->prec) == TB_DOUBLE;
    const double eps = (dbl ? DBL_EPSILON : FLT_EPSILON) * (double)tb_parts(p->prec);
    const double tiny = dbl ? DBL_MIN : FLT_MIN;
    double ab = 0.0;
    if (reads_ab) {
        size_t ra = p->transa ? k : m, ca = p->transa ? m : k;
        size_t rb = p->transb ? n : k, cb = p->transb ? k : n;
        ab = hypot(p->alpha, p->alpha_im) * tb_fro(p->prec, p->A, p->lda, ra, ca) *
             tb_fro(p->prec, p->B, p->ldb, rb, cb);
    }
    return 2.0 * (double)(k + 2) * eps * (ab + hypot(p->beta, p->beta_im) * c0) +
           sqrt((double)(m * n)) * tiny;
}

size_t tb_verify_compare(const tb_problem *p, const void *gpu, size_t ldg, double c0,
                         tb_verify_result *v)
{
    const int reads_ab = tb_reads_ab(p);
    double diff2, ref2;
    const size_t quirks = tb_verify_diff(p, gpu, ldg, reads_ab, v, &diff2, &ref2);
    const double bound = tb_verify_bound(p, reads_ab, c0);
    v->within_bound = sqrt(diff2) <= bound;   /* false for NaN/infinity differences */
    v->bound_rel = ref2 > 0.0 ? bound / sqrt(ref2) : bound;
    return quirks;
}

/* The first call of each kind of disagreement is said once. */
static void tb_verify_say(const tb_problem *p, const tb_verify_result *v, size_t quirks)
{
    const int dbl = tb_prec_real(p->prec) == TB_DOUBLE;
    static const char ops[] = "NTC";
    if (quirks)
        tb_warn_once(TB_ONCE_VERIFY_QUIRK, "verify: the CPU BLAS returned NaN for %zu elements of "
                     "a call with alpha = 0 or k = 0 (it read NaN in A or B; reference BLAS does "
                     "not); not counted against the GPU", quirks);
    if (!v->within_bound)
        tb_warn_once(TB_ONCE_VERIFY, "verify: GPU and CPU BLAS differ beyond the %s bound on "
                     "%cgemm m=%d n=%d k=%d (row-major %c%c): max abs %.3g, relative Frobenius "
                     "%.3g, bound %.3g (first such call; see the verdict at exit)",
                     dbl ? "fp64" : "fp32", "sdcz"[p->prec], p->m, p->n, p->k,
                     ops[p->transa], ops[p->transb], v->max_abs, v->rel_fro,
                     v->bound_rel);
}

int tb_verify_call(const tb_call *c, const tb_problem *p, tb_gpu_times *t, tb_verify_result *v)
{
    const size_t m = (size_t)p->m, n = (size_t)p->n, es = tb_prec_size(p->prec);
    char *scratch = malloc(m * n * es + 1);
    if (!scratch) {
        tb_forward(c);
        return -1;
    }
    /* The scratch C starts as the caller's C window (beta may read it; when
     * beta = 0 a NaN here must not reach the GPU's result). */
    for (size_t i = 0; i < m; i++)
        memcpy(scratch + i * n * es, tb_at(p, p->C, p->ldc, i, 0), n * es);
    const double c0 = tb_reads_c(p) ? tb_fro(p->prec, scratch, n, m, n) : 0.0;
    tb_problem g = *p;
    g.C = scratch;
    g.ldc = n;
    /* The GPU route as the call would take it, cut over the devices too;
     * then the CPU BLAS into the caller's C. */
    const double t0 = tb_now();
    const tb_stage failed = tb_gpu_route(NULL, &g, t);
    const double t1 = tb_now();
    tb_forward(c);
    const double t2 = tb_now();
    if (failed == TB_STAGE_NONE) {
        tb_verify_say(p, v, tb_verify_compare(p, scratch, n, c0, v));
        v->gpu_s = t1 - t0;
        v->cpu_s = t2 - t1;
    }
    free(scratch);
    return failed == TB_STAGE_NONE ? 0 : -1;
}
