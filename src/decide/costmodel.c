/* src/decide/costmodel.c - predicts how long a call takes on each route: fixed
 * costs plus bytes over link rates plus flops over compute rates, scaled
 * near the crossover by the times calibration measured at small shapes.
 * It only predicts; policy.c decides by the times, calibrate.c measures the
 * rates. */
#include "tb_internal.h"
#include "tb_kernels.h"
#include <math.h>

/* An H200 machine's rates (bench_e2e through scripts/gpu_check.sh: OpenBLAS
 * 0.3.21 SkylakeX on 16 threads, the tf32x3 kernel, transfers staged
 * through pinned memory by the copy threads), used until this machine's
 * own are known. */
static const tb_rates tb_default_rates = {
    .cpu_flops = 1.0e12,      /* OpenBLAS sgemm, 16 threads (1024..16384)    */
    .cpu_fixed_s = 70e-6,     /* its per-call cost on many threads (256^3)   */
    .cpu_core_flops = 135e9,  /* one core: small calls run single-threaded   */
    .gpu_flops = 42e12,       /* the default kernel at 4096..16384           */
    .h2d_bps = 25e9,          /* pageable -> pinned staging -> device, and    */
    .d2h_bps = 25e9,          /* back: 256 MB of C comes back in 9.3 ms      */
    .gpu_fixed_s = 65e-6,     /* a small call: 58-63 us                       */
    .thin_dim = 256.0,        /* see tb_predict                              */
    .cpu_c_bps = 55e9,        /* 8192x8192x16: 7.1 ms, 4.9 of them for C      */
    /* Double: OpenBLAS dgemm 2048..8192 26-1845 ms (0.59-0.66 TFLOP/s), one
     * core about half its single rate; the GPU as cuBLAS DGEMM's 56-59
     * TFLOP/s, less a little, until calibration measures our kernel. */
    .dp_cpu_flops = 0.6e12,
    .dp_cpu_core_flops = 65e9,
    .dp_gpu_flops = 50e12,
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

/* The small kernel, which small products run on (kernels/registry.c,
 * gemm_05_small.cu): a launch and its split's sum, then the arithmetic.
 * bench_kernels on the H200, fp32: 128^3 0.012 ms, 64x64x2048 0.014,
 * 450^3 0.025, 96x96x8192 0.024, 300x100x2000 0.021 (the model: 0.012,
 * 0.013, 0.027, 0.025, 0.022); fp64: 200x200x4000 0.063, 300x100x2000
 * 0.033, 96x96x8192 0.035 (the model: 0.065, 0.032, 0.037). */
#define TB_SMALL_FIXED_S 12e-6
#define TB_SMALL_FLOPS 1.2e13
#define TB_DSMALL_FLOPS 6e12

double tb_small_kernel_s(int dp, double flop)
{
    return TB_SMALL_FIXED_S + flop / (dp ? TB_DSMALL_FLOPS : TB_SMALL_FLOPS);
}

/* The GPU path (pipeline.c) uploads op(B) first, then streams panels of A
 * in and panels of C out while the kernel computes the panels before them:
 * B's upload is paid in full, then the slower of the streaming and the
 * compute followed by the last panel's way back (which the streaming term
 * already holds: 10000x10000x8, all C's bytes, takes 9.3 ms). With one
 * panel nothing overlaps: A in, the kernel, C out, one after another. The
 * panels are plan.c's, as the pipeline cuts them. */
void tb_predict_at(const tb_rates *r, const tb_problem *p, double *cpu_s, double *gpu_s)
{
    double f[2], ignored;
    tb_predict_with(r, p, cpu_s, gpu_s);
    tb_grid_factor(r, p, f);
    *cpu_s *= f[TB_ROUTE_CPU];
    /* Cut over several devices (plan.c), the parts run at once: the GPU
     * route takes as long as its slowest part, each on a device of its own
     * at the rates measured for one. */
    int ids[TB_MAX_DEVICES];
    double speed[TB_MAX_DEVICES];
    tb_split sp;
    const int nd = tb_gpu_slots(ids, speed);
    if (nd > 1 && tb_plan_split(p, nd, speed, &sp) > 1) {
        double worst = 0.0;
        for (int i = 0; i < sp.parts; i++) {
            const tb_problem q = tb_plan_part(p, &sp, i);
            double g, fq[2];
            tb_predict_with(r, &q, &ignored, &g);
            tb_grid_factor(r, &q, fq);
            g *= fq[TB_ROUTE_GPU];
            worst = g > worst ? g : worst;
        }
        *gpu_s = worst;
        return;
    }
    *gpu_s *= f[TB_ROUTE_GPU];
}

void tb_predict(const tb_problem *p, double *cpu_s, double *gpu_s)
{
    tb_predict_at(tb_rates_get(), p, cpu_s, gpu_s);
}

void tb_predict_with(const tb_rates *r, const tb_problem *p, double *cpu_s, double *gpu_s)
{
    /* A complex product runs at its part type's rates (on the GPU one real
     * product of m x 2n x 2k, complex_00_realify.cu; OpenBLAS's complex
     * kernels at about its real ones') for its 8 m n k real flops. */
    double m = p->m, n = p->n, k = p->k, flop = tb_problem_flops(p), e = (double)tb_prec_size(p->prec);
    const int dp = tb_prec_real(p->prec) == TB_DOUBLE, cx = tb_prec_complex(p->prec);
    const double gpu_flops = dp ? r->dp_gpu_flops : r->gpu_flops;
    const double cpu_flops = dp ? r->dp_cpu_flops : r->cpu_flops;
    const double cpu_core_flops = dp ? r->dp_cpu_core_flops : r->cpu_core_flops;
    int reads_ab = tb_reads_ab(p);
    double b_in = reads_ab ? e * k * n : 0.0;
    double a_in = (reads_ab ? e * m * k : 0.0) + (tb_reads_c(p) ? e * m * n : 0.0);
    double c_out = e * m * n;
    tb_plan pl;
    tb_plan_make(p, 0, &pl);
    double panels = tb_plan_panels(p, &pl);
    double stream = a_in / r->h2d_bps + c_out / r->d2h_bps, compute = flop / gpu_flops;
    if (panels == 1.0 && tb_kernel_small_for((tb_dtype)tb_prec_real(p->prec), p->m, p->n << cx, p->k << cx))
        compute = tb_small_kernel_s(dp, flop);
    double tail = c_out / panels / r->d2h_bps;
    double body = panels > 1.0 ? (stream > compute + tail ? stream : compute + tail) : stream + compute;
    *gpu_s = r->gpu_fixed_s + b_in / r->h2d_bps + body;
    /* OpenBLAS runs small calls on one core and large ones on all of them;
     * it is about as fast as the better of the two. On all cores it slows
     * down when C is thin: on the H200 machine 64x4096x4096 takes 5.2 ms,
     * 100000x64x64 8.1 ms and 128x128x100000 13.7 ms, 2-9 times what their
     * flops at 1 TFLOP/s say; scaling by min(m, n) / 256 follows that
     * (thin_dim: 256 built in, fitted by calibrate.c). When K is small,
     * C's memory traffic, not the flops, sets the pace:
     * 8192x8192x16 takes 7.1 ms where its flops say 2.2 ms, 256 MB of C at
     * 55 GB/s beside the flops (cpu_c_bps, fitted by calibrate.c on
     * 4096x4096x8). The two add up: OpenBLAS first scales C by beta in a
     * pass of its own, then multiplies (4096x4096x32 takes 2.2-2.5 ms and
     * 1500x1500x64 0.52-0.67, where the sum says 2.3 and 0.55 and the
     * slower of the two terms 1.6 and 0.35). */
    double thin = (m < n ? m : n) / r->thin_dim;
    double cpu_memory = c_out / r->cpu_c_bps;
    /* One core writes C too: 4000x4000x1 (64 MB of C) takes 1.1-1.6 ms,
     * where its flops alone say 0.24. */
    double one_core = flop / cpu_core_flops + cpu_memory;
    double cpu_compute = flop / (cpu_flops * (thin < 1.0 ? thin : 1.0));
    double all_cores = r->cpu_fixed_s + cpu_compute + cpu_memory;
    *cpu_s = one_core < all_cores ? one_core : all_cores;
}

/* ---- The small-call grid ----------------------------------------------------
 *
 * Where a call takes 0.05-1 ms the two routes are close, and the formulas
 * above are least sure: OpenBLAS changes its thread count and its split of
 * the work with the shape, and small calls run at 0.53 (64x1024x128) to 1.9
 * (200x200x400) times the CPU's formula and 0.75 to 1.25 times the GPU's
 * on the H200 machine. So calibrate.c measures both routes,
 * once per machine, at the shapes of a grid: m and n every power of 2 from
 * 32 to 4096, k every power of 4 from 1 to 4096, where 2^20 <= mnk <= 2^28
 * (259 shapes). A call inside the grid's box is predicted by the formulas
 * times measured / formula, interpolated in log2 m, log2 n and log2 k
 * between the 8 grid shapes around it, in logarithms. A shape that was not
 * measured (beyond the grid's mnk range) counts as 1, so the correction
 * fades out at the grid's edge instead of carrying a corner's far. */

int tb_grid_wanted(int i, int j, int l)
{
    const int lg = 10 + i + j + 2 * l;
    return i >= 0 && i < TB_GRID_MN && j >= 0 && j < TB_GRID_MN && l >= 0 && l < TB_GRID_K &&
           lg >= TB_GRID_MIN_LOG && lg <= TB_GRID_MAX_LOG;
}

tb_problem tb_grid_shape(int i, int j, int l, const void *A, const void *B, void *C)
{
    const int m = 32 << i, n = 32 << j, k = 1 << 2 * l;
    return (tb_problem){m, n, k, 0, 0, 1.0, 0.0, A, (size_t)k, B, (size_t)n, C, (size_t)n,
                        TB_SINGLE, 0.0, 0.0};
}

/* No shape keeps a time above that of a shape larger in one dimension: a
 * product smaller in every dimension does not take longer, so such a time
 * was disturbed (by another process, or the program's own threads). Larger
 * neighbours are settled first. */
void tb_grid_monotone(tb_rates *r, int route)
{
    float (*g)[TB_GRID_MN][TB_GRID_K] = r->grid[route];
    for (int i = TB_GRID_MN - 1; i >= 0; i--)
        for (int j = TB_GRID_MN - 1; j >= 0; j--)
            for (int l = TB_GRID_K - 1; l >= 0; l--) {
                if (!tb_grid_wanted(i, j, l))
                    continue;
                if (tb_grid_wanted(i + 1, j, l))
                    g[i][j][l] = fminf(g[i][j][l], g[i + 1][j][l]);
                if (tb_grid_wanted(i, j + 1, l))
                    g[i][j][l] = fminf(g[i][j][l], g[i][j + 1][l]);
                if (tb_grid_wanted(i, j, l + 1))
                    g[i][j][l] = fminf(g[i][j][l], g[i][j][l + 1]);
            }
}

/* A grid shape's say is held to 4x either way: one disturbed measurement
 * must not turn the decision around for a whole region. */
#define TB_GRID_CLAMP 1.3862943611198906   /* log(4) */

static double tb_clamp_log(double x)
{
    return x > TB_GRID_CLAMP ? TB_GRID_CLAMP : x < -TB_GRID_CLAMP ? -TB_GRID_CLAMP : x;
}

double tb_grid_factor(const tb_rates *r, const tb_problem *p, double f[2])
{
    f[0] = f[1] = 1.0;
    if (p->m <= 0 || p->n <= 0 || p->k <= 0 || p->prec != TB_SINGLE)
        return 0.0;
    const double x = log2(p->m) - 5.0, y = log2(p->n) - 5.0, z = log2(p->k) / 2.0;
    if (!(x >= 0.0 && x <= TB_GRID_MN - 1 && y >= 0.0 && y <= TB_GRID_MN - 1 && z >= 0.0 &&
          z <= TB_GRID_K - 1))
        return 0.0;
    /* The cell's lower corner; on the box's upper face, the cell below it. */
    const int i0 = x < TB_GRID_MN - 1 ? (int)x : TB_GRID_MN - 2;
    const int j0 = y < TB_GRID_MN - 1 ? (int)y : TB_GRID_MN - 2;
    const int l0 = z < TB_GRID_K - 1 ? (int)z : TB_GRID_K - 2;
    const double fx = x - i0, fy = y - j0, fz = z - l0;
    double lg[2] = {0.0, 0.0}, known = 0.0;
    for (int c = 0; c < 8; c++) {
        const int i = i0 + (c & 1), j = j0 + (c >> 1 & 1), l = l0 + (c >> 2);
        const double w = (c & 1 ? fx : 1.0 - fx) * (c & 2 ? fy : 1.0 - fy) * (c & 4 ? fz : 1.0 - fz);
        const double tc = r->grid[TB_ROUTE_CPU][i][j][l], tg = r->grid[TB_ROUTE_GPU][i][j][l];
        if (!(w > 0.0) || !(tc > 0.0) || !(tg > 0.0))
            continue;
        const tb_problem q = tb_grid_shape(i, j, l, NULL, NULL, NULL);
        double pc, pg;
        tb_predict_with(r, &q, &pc, &pg);
        lg[TB_ROUTE_CPU] += w * tb_clamp_log(log(tc / pc));
        lg[TB_ROUTE_GPU] += w * tb_clamp_log(log(tg / pg));
        known += w;
    }
    f[0] = exp(lg[0]);
    f[1] = exp(lg[1]);
    return known;
}
