/* src/costmodel.c - predicts how long a call takes on each route, so that the
 * dispatcher sends it where it finishes first. Times are fixed costs plus
 * bytes over link rates plus flops over compute rates; the default rates were
 * measured on the H200 machine (README "How the GPU/CPU decision is made"). */
#include "tb_internal.h"

/* Measured with scripts/gpu_check.sh (bench_e2e, forced GPU, seed kernel,
 * OpenBLAS 0.3.21 SkylakeX on 16 threads): fixed costs from the 256..1024
 * calls, rates from 2048..8192. */
static const tb_rates tb_default_rates = {
    .cpu_flops = 1.0e12,      /* OpenBLAS sgemm, 16 threads                  */
    .cpu_fixed_s = 200e-6,    /* its start-up cost per call (threads wake)   */
    .cpu_core_flops = 135e9,  /* one core: small calls run single-threaded   */
    .gpu_flops = 7.9e12,      /* the kernel the GPU path runs                */
    .h2d_bps = 5.3e9,         /* cudaMemcpy2D from pageable memory           */
    .d2h_bps = 10.9e9,
    .gpu_fixed_s = 30e-6,     /* launch, synchronisation, bookkeeping        */
};

const tb_rates *tb_rates_get(void)
{
    return &tb_default_rates;
}

void tb_predict(const tb_problem *p, double *cpu_s, double *gpu_s)
{
    const tb_rates *r = tb_rates_get();
    double flop = 2.0 * p->m * p->n * p->k;
    int reads_ab = p->k > 0 && p->alpha != 0.0f;
    double in = 4.0 * ((reads_ab ? (double)p->m * p->k + (double)p->k * p->n : 0.0) +
                       (p->beta != 0.0f ? (double)p->m * p->n : 0.0));
    double out = 4.0 * p->m * p->n;
    /* OpenBLAS runs small calls on one core and large ones on all of them;
     * it is about as fast as the better of the two. */
    double one_core = flop / r->cpu_core_flops, all_cores = r->cpu_fixed_s + flop / r->cpu_flops;
    *cpu_s = one_core < all_cores ? one_core : all_cores;
    *gpu_s = r->gpu_fixed_s + in / r->h2d_bps + out / r->d2h_bps + flop / r->gpu_flops;
}
