/* src/verify.c - TILEDBLAS_MODE=verify: the GPU computes into scratch memory,
 * the CPU BLAS into the caller's C (the caller always gets the CPU result),
 * and the two are compared. */
#include "tb_internal.h"
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

int tb_verify_call(const tb_call *c, const tb_problem *p, tb_gpu_times *t, tb_verify_result *v)
{
    size_t m = (size_t)p->m, n = (size_t)p->n;
    float *scratch = malloc(m * n * sizeof *scratch + 1);
    if (!scratch) {
        tb_forward(c);
        return -1;
    }
    /* The scratch C starts as the caller's C window (beta may read it). */
    for (size_t i = 0; i < m; i++)
        memcpy(scratch + i * n, p->C + i * p->ldc, n * sizeof *scratch);
    tb_problem g = *p;
    g.C = scratch;
    g.ldc = n;
    double t0 = tb_now();
    tb_stage failed = tb_gpu_sgemm(&g, t);
    double t1 = tb_now();
    tb_forward(c);
    double t2 = tb_now();
    if (failed != TB_STAGE_NONE) {
        free(scratch);
        return -1;
    }
    double max_abs = 0.0, sum_abs = 0.0, diff2 = 0.0, ref2 = 0.0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double cpu = p->C[i * p->ldc + j], gpu = scratch[i * n + j];
            double d = fabs(gpu - cpu);
            if (isnan(d) && !(isnan(cpu) && isnan(gpu)))
                d = INFINITY;
            else if (isnan(d))
                d = 0.0;
            max_abs = d > max_abs ? d : max_abs;
            sum_abs += d;
            diff2 += d * d;
            ref2 += cpu * cpu;
        }
    free(scratch);
    v->max_abs = max_abs;
    v->avg_abs = (m * n != 0) ? sum_abs / (double)(m * n) : 0.0;
    v->rel_fro = ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
    v->gpu_s = t1 - t0;
    v->cpu_s = t2 - t1;
    /* Both sides are fp32 with their own rounding: a relative Frobenius
     * difference within a few k*eps is what two correct sgemms produce. */
    v->within_bound = v->rel_fro <= 4.0 * (p->k + 2) * FLT_EPSILON;
    return 0;
}
