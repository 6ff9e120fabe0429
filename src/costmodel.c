/* src/costmodel.c - predicts how long a call takes on each route, so that the
 * dispatcher sends it where it finishes first. Times are fixed costs plus
 * bytes over link rates plus flops over compute rates. The built-in rates
 * were measured on the H200 machine; calibrate.c replaces them with this
 * machine's own (README "How the GPU/CPU decision is made"). */
#include "tb_internal.h"

/* Measured with scripts/gpu_check.sh on the H200 machine (bench_e2e and
 * its 40-shape sweep, OpenBLAS 0.3.21 SkylakeX on 16 threads, the tf32x3
 * kernel, transfers staged through pinned memory by the copy threads). */
static const tb_rates tb_default_rates = {
    .cpu_flops = 1.0e12,      /* OpenBLAS sgemm, 16 threads (1024..16384)    */
    .cpu_fixed_s = 70e-6,     /* its per-call cost on many threads (256^3)   */
    .cpu_core_flops = 135e9,  /* one core: small calls run single-threaded   */
    .gpu_flops = 42e12,       /* the default kernel at 4096..16384           */
    .h2d_bps = 25e9,          /* pageable -> pinned staging -> device, and    */
    .d2h_bps = 25e9,          /* back: 256 MB of C came back in 9.3 ms       */
    .gpu_fixed_s = 80e-6,     /* launch, events, synchronisation             */
    .thin_dim = 256.0,        /* see tb_predict                              */
    .cpu_c_bps = 38e9,        /* 8192x8192x16: 256 MB of C in 7.1 ms         */
};

static const tb_rates *tb_rates_now = &tb_default_rates;

const tb_rates *tb_rates_get(void)
{
    return __atomic_load_n(&tb_rates_now, __ATOMIC_ACQUIRE);
}

const tb_rates *tb_rates_builtin(void)
{
    return &tb_default_rates;
}

/* r must live for the rest of the process (calibrate.c keeps it static). */
void tb_rates_publish(const tb_rates *r)
{
    __atomic_store_n(&tb_rates_now, r, __ATOMIC_RELEASE);
}

/* The GPU path (gpu.c) uploads op(B) first, then streams panels of A in
 * and panels of C out while the kernel computes the panels before them:
 * B's upload is paid in full, then the slower of the streaming and the
 * compute, then the last panel's way back. */
void tb_predict(const tb_problem *p, double *cpu_s, double *gpu_s)
{
    tb_predict_with(tb_rates_get(), p, cpu_s, gpu_s);
}

void tb_predict_with(const tb_rates *r, const tb_problem *p, double *cpu_s, double *gpu_s)
{
    double m = p->m, n = p->n, k = p->k, flop = 2.0 * m * n * k;
    int reads_ab = p->k > 0 && p->alpha != 0.0f;
    double b_in = reads_ab ? 4.0 * k * n : 0.0;
    double a_in = (reads_ab ? 4.0 * m * k : 0.0) + (p->beta != 0.0f ? 4.0 * m * n : 0.0);
    double c_out = 4.0 * m * n;
    double panels = m * n * k < 256.0 * 1024 * 1024 ? 1.0 : m * n * k < 2e9 ? 4.0 : 8.0;
    double stream = a_in / r->h2d_bps + c_out / r->d2h_bps, compute = flop / r->gpu_flops;
    *gpu_s = r->gpu_fixed_s + b_in / r->h2d_bps + (stream > compute ? stream : compute) +
             (panels > 1.0 ? c_out / panels / r->d2h_bps : 0.0);
    /* OpenBLAS runs small calls on one core and large ones on all of them;
     * it is about as fast as the better of the two. On all cores it slows
     * down when C is thin: in the 40-shape sweep 64x4096x4096 took 5.2 ms,
     * 100000x64x64 8.1 ms and 128x128x100000 13.7 ms, 2-9 times what their
     * flops at 1 TFLOP/s say; scaling by min(m, n) / 256 follows that
     * (thin_dim: 256 built in, fitted by calibrate.c). */
    /* When K is small C's memory traffic, not the flops, sets the pace:
     * 8192x8192x16 took 7.1 ms where its flops say 2.2 ms, 256 MB of C at
     * 38 GB/s (cpu_c_bps, fitted by calibrate.c on 4096x4096x8). OpenBLAS
     * overlaps the two, so the slower one counts. */
    double thin = (m < n ? m : n) / r->thin_dim;
    double one_core = flop / r->cpu_core_flops;
    double cpu_compute = flop / (r->cpu_flops * (thin < 1.0 ? thin : 1.0));
    double cpu_memory = c_out / r->cpu_c_bps;
    double all_cores = r->cpu_fixed_s + (cpu_compute > cpu_memory ? cpu_compute : cpu_memory);
    *cpu_s = one_core < all_cores ? one_core : all_cores;
}
