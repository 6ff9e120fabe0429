/* tests/test_costmodel.c - unit tests of the predictions (costmodel.c) and
 * the panel plan they share with the pipeline (plan.c): the formulas'
 * regimes, the small kernel's time, C's memory traffic on the CPU, the
 * small-call grid's interpolation, clamp, edges and monotone repair, and
 * published rates. Linked against the library's objects. */
#include "unit_check.h"
#include "tb_kernels.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


static void test_model(void)
{
    tb_problem p;
    tb_call c;
    double cpu_s, gpu_s;
    c = row_nn(2048, 2048, 2048);
    tb_normalise(&c, &p);
    tb_predict(&p, &cpu_s, &gpu_s);
    CHECK(gpu_s < cpu_s, "2048^3 is predicted faster on the GPU (%.2f ms vs %.2f ms)", gpu_s * 1e3, cpu_s * 1e3);

    /* Small products run on the small kernel, priced by a launch and its
     * flops (H200: 64x64x2048 0.016 ms, 450^3 0.027; fp64 200x200x4000
     * 0.065), not at the tensor-core rate (0.4 us for 64x64x2048). */
    CHECK(tb_kernel_small(TB_F32, 256, 256, 256) && tb_kernel_small(TB_F32, 64, 64, 2048) &&
          !tb_kernel_small(TB_F32, 512, 512, 512) && !tb_kernel_small(TB_F32, 2048, 2048, 2048),
          "the small kernel below 2.2e8 flops only");
    const double s64 = tb_small_kernel_s(0, 2.0 * 64 * 64 * 2048);
    const double s450 = tb_small_kernel_s(0, 2.0 * 450 * 450 * 450);
    const double d200 = tb_small_kernel_s(1, 2.0 * 200 * 200 * 4000);
    CHECK(s64 > 10e-6 && s64 < 20e-6 && s450 > 22e-6 && s450 < 32e-6 && d200 > 50e-6 &&
              d200 < 80e-6,
          "the small kernel: 64x64x2048 %.1f us, 450^3 %.1f us, fp64 200x200x4000 %.1f us",
          s64 * 1e6, s450 * 1e6, d200 * 1e6);
    double pc_small, pg_small, pc_big, pg_big;
    c = row_nn(64, 64, 2048);
    tb_normalise(&c, &p);
    tb_predict(&p, &pc_small, &pg_small);
    CHECK(pg_small > s64 && pc_small > 0.0, "64x64x2048 on the GPU: %.1f us, the kernel and more",
          pg_small * 1e6);
    c = row_nn(450, 450, 450);
    tb_normalise(&c, &p);
    tb_predict(&p, &pc_big, &pg_big);
    CHECK(pg_big > pg_small, "450^3 costs the GPU more than 64x64x2048 (%.1f against %.1f us)",
          pg_big * 1e6, pg_small * 1e6);
    /* One core writes C too: a rank-1 update with 64 MB of C is not 0.24 ms. */
    c = row_nn(4000, 4000, 1);
    tb_normalise(&c, &p);
    tb_predict(&p, &cpu_s, &gpu_s);
    CHECK(cpu_s > 4.0 * 4000 * 4000 / tb_rates_get()->cpu_c_bps,
          "4000x4000x1 on the CPU: %.3f ms, at least C's memory", cpu_s * 1e3);
    c.beta = 1.0f;
    tb_normalise(&c, &p);
    double cpu2, gpu2;
    tb_predict(&p, &cpu2, &gpu2);
    CHECK(gpu2 > gpu_s && cpu2 == cpu_s, "beta != 0 costs the GPU the upload of C");

    /* The GPU's three regimes (tb_predict_with), in round rates: one panel
     * (nothing overlaps), many panels bound by the streaming (C's last
     * panel is inside it, not after it), many bound by the kernel (the last
     * panel's way back comes after it). */
    tb_rates r = *tb_rates_builtin();
    r.gpu_fixed_s = 100e-6; r.gpu_flops = 50e12; r.h2d_bps = 40e9; r.d2h_bps = 40e9;
    struct { int m, n, k, panels; const char *what; } g[] = {
        {512, 512, 512, 1, "one panel: B, A, kernel, C in turn"},
        {10000, 10000, 8, 4, "four panels, streaming-bound: no tail"},
        {8192, 8192, 8192, 8, "eight panels, kernel-bound: the last panel after it"},
    };
    for (int i = 0; i < 3; i++) {
        double m = g[i].m, n = g[i].n, k = g[i].k, a = 4 * m * k / 40e9, b = 4 * k * n / 40e9;
        double cout = 4 * m * n / 40e9, kern = 2 * m * n * k / 50e12, want;
        if (g[i].panels == 1)
            want = 100e-6 + b + a + kern + cout;
        else if (a + cout > kern + cout / g[i].panels)
            want = 100e-6 + b + a + cout;
        else
            want = 100e-6 + b + kern + cout / g[i].panels;
        c = row_nn(g[i].m, g[i].n, g[i].k);
        tb_normalise(&c, &p);
        tb_predict_with(&r, &p, &cpu2, &gpu2);
        CHECK(fabs(gpu2 - want) < 1e-9 * want + 1e-12, "%dx%dx%d, %s: %.4f ms, want %.4f", g[i].m,
              g[i].n, g[i].k, g[i].what, gpu2 * 1e3, want * 1e3);
    }
}

/* The panel plan (plan.c) that both the model and the pipeline follow:
 * one piece for small products, panels of 128 rows for larger ones, and
 * within a memory budget thinner panels, then narrower column blocks. */
static void test_plan(void)
{
    tb_plan pl;
    tb_problem p = problem_of(row_nn(512, 512, 512));
    CHECK(tb_plan_make(&p, 0, &pl) == 0 && pl.mp == 512 && pl.nb == 512 && pl.slots == 1 &&
              tb_plan_panels(&p, &pl) == 1, "512^3 goes in one piece");
    p = problem_of(row_nn(10000, 10000, 8));
    CHECK(tb_plan_make(&p, 0, &pl) == 0 && pl.mp == 2560 && pl.slots == TB_PLAN_SLOTS &&
              tb_plan_panels(&p, &pl) == 4, "10000x10000x8: 4 panels of 2560 rows (%zu, %d)", pl.mp,
          tb_plan_panels(&p, &pl));
    p = problem_of(row_nn(8192, 8192, 8192));
    CHECK(tb_plan_make(&p, 0, &pl) == 0 && pl.mp == 1024 && tb_plan_panels(&p, &pl) == 8,
          "8192^3: 8 panels of 1024 rows");
    p = problem_of(row_nn(64, 4096, 4096));
    CHECK(tb_plan_make(&p, 0, &pl) == 0 && pl.mp == 64 && pl.slots == 1 && tb_plan_panels(&p, &pl) == 1,
          "64 rows cannot be cut into panels of 128: one piece");
    p = problem_of(row_nn(8192, 8192, 8192));
    tb_plan_make(&p, 0, &pl);
    const size_t whole = tb_plan_bytes(&p, &pl), budget = whole / 3;
    CHECK(tb_plan_make(&p, budget, &pl) == 0 && tb_plan_bytes(&p, &pl) <= budget && pl.mp < 1024,
          "a third of the memory: %zu-row panels, %zu-column blocks, %zu of %zu bytes", pl.mp, pl.nb,
          tb_plan_bytes(&p, &pl), budget);
    CHECK(tb_plan_make(&p, 4096, &pl) == -1, "4 KiB holds no plan for 8192^3");
}

/* C's memory traffic adds to the CPU's flops, and the model predicts with
 * whatever rates are published. */
static void test_rates(void)
{
    /* C's memory traffic adds to the CPU's flops: it dominates when K is
     * small, and only then. */
    const tb_rates *br = tb_rates_builtin();
    static const int flat[][3] = {{8192, 8192, 16}, {8192, 8192, 8192}, {1500, 1500, 1500}};
    for (int i = 0; i < 3; i++) {
        tb_call fc = row_nn(flat[i][0], flat[i][1], flat[i][2]);
        tb_problem fp;
        tb_normalise(&fc, &fp);
        double pc, pg;
        tb_predict(&fp, &pc, &pg);
        const double mn = (double)flat[i][0] * flat[i][1], fl = 2.0 * mn * flat[i][2];
        const double c_time = br->cpu_fixed_s + 4.0 * mn / br->cpu_c_bps;
        const double f_time = br->cpu_fixed_s + fl / br->cpu_flops;
        const double both = c_time + f_time - br->cpu_fixed_s;
        CHECK(fabs(pc - both) <= 1e-9 + 1e-6 * both && (i == 0 ? c_time > 2 * f_time : f_time > 20 * c_time),
              "%dx%dx%d: CPU %.3f ms predicted; C traffic alone %.3f ms, flops alone %.3f ms",
              flat[i][0], flat[i][1], flat[i][2], pc * 1e3, c_time * 1e3, f_time * 1e3);
    }

    tb_call c = row_nn(2048, 2048, 2048);
    tb_problem p;
    tb_normalise(&c, &p);
    double cpu1, gpu1, cpu2, gpu2;
    tb_predict(&p, &cpu1, &gpu1);
    static tb_rates slow;
    slow = *tb_rates_builtin();
    slow.h2d_bps /= 10;
    slow.d2h_bps /= 10;
    slow.cpu_flops *= 2;
    tb_rates_publish(&slow);
    tb_predict(&p, &cpu2, &gpu2);
    tb_rates_publish(tb_rates_builtin());
    CHECK(gpu2 > 3 * gpu1 && cpu2 < cpu1, "published rates are used (GPU %.2f -> %.2f ms, CPU %.2f -> %.2f ms)",
          gpu1 * 1e3, gpu2 * 1e3, cpu1 * 1e3, cpu2 * 1e3);
}

/* The small-call grid (costmodel.c, measured by calibrate.c): which shapes
 * it holds, how it scales the formulas between them and fades at its
 * edges, and its lines in the cache file. */
static void test_grid(void)
{
    static tb_rates r;
    r = *tb_rates_builtin();
    int wanted = 0;
    for (int i = 0; i < TB_GRID_MN; i++)
        for (int j = 0; j < TB_GRID_MN; j++)
            for (int l = 0; l < TB_GRID_K; l++)
                wanted += tb_grid_wanted(i, j, l);
    CHECK(wanted == 259, "the grid holds 259 shapes (%d)", wanted);
    tb_problem q = tb_grid_shape(1, 5, 3, NULL, NULL, NULL);
    CHECK(q.m == 64 && q.n == 1024 && q.k == 64 && q.lda == 64 && q.ldb == 1024 && q.ldc == 1024 &&
              q.beta == 0.0f && !q.transa && !q.transb, "grid shape [1][5][3] is 64x1024x64 NN (%dx%dx%d)",
          q.m, q.n, q.k);
    CHECK(tb_grid_wanted(0, 0, 5) && !tb_grid_wanted(0, 0, 4) && tb_grid_wanted(7, 7, 2) &&
              !tb_grid_wanted(7, 7, 3), "mnk from 2^20 (32x32x1024) to 2^28 (4096x4096x16)");

    double f[2];
    tb_call c = row_nn(100, 300, 500);
    tb_problem p;
    tb_normalise(&c, &p);
    CHECK(tb_grid_factor(&r, &p, f) == 0.0 && f[0] == 1.0 && f[1] == 1.0, "no grid: the formulas alone");
    grid_scaled(&r, 2.0, 0.5);
    CHECK(near(tb_grid_factor(&r, &p, f), 1.0) && near(f[0], 2.0) && near(f[1], 0.5),
          "100x300x500 inside the grid: x%.4f CPU, x%.4f GPU (want 2, 0.5)", f[0], f[1]);
    /* A shape off the grid's points takes its neighbours' say in log steps. */
    grid_scaled(&r, 1.0, 1.0);
    r.grid[TB_ROUTE_CPU][1][5][3] *= 3.0f;       /* 64x1024x64 ran 3x its formula */
    q = tb_grid_shape(1, 5, 3, NULL, NULL, NULL);
    CHECK(near(tb_grid_factor(&r, &q, f), 1.0) && near(f[0], 3.0) && near(f[1], 1.0),
          "at a grid shape: its own time (x%.4f, want 3)", f[0]);
    c = row_nn(90, 1024, 64);                    /* log2 90 = 6.49: 0.49 of the way to 128 */
    tb_normalise(&c, &p);
    tb_grid_factor(&r, &p, f);
    CHECK(near(f[0], pow(3.0, 1.0 - (log2(90.0) - 6.0))), "90x1024x64: x%.4f, want 3^0.51", f[0]);
    c = row_nn(64, 1024, 128);                   /* k: half way between 64 and 256 in log2 */
    tb_normalise(&c, &p);
    tb_grid_factor(&r, &p, f);
    CHECK(near(f[0], sqrt(3.0)), "64x1024x128: x%.4f, want sqrt 3", f[0]);
    /* A wild measurement counts for at most 4x. */
    r.grid[TB_ROUTE_CPU][1][5][3] *= 100.0f;
    tb_grid_factor(&r, &q, f);
    CHECK(near(f[0], 4.0), "a shape 300x its formula counts as 4x (x%.4f)", f[0]);
    /* Outside the box nothing changes; at its edge, what was not measured
     * counts as 1. */
    grid_scaled(&r, 2.0, 0.5);
    static const int outside[][3] = {{16, 1024, 1024}, {8192, 64, 64}, {64, 64, 8192}, {5000, 32, 1}};
    for (int i = 0; i < 4; i++) {
        c = row_nn(outside[i][0], outside[i][1], outside[i][2]);
        tb_normalise(&c, &p);
        CHECK(tb_grid_factor(&r, &p, f) == 0.0 && f[0] == 1.0 && f[1] == 1.0, "%dx%dx%d is outside the grid",
              outside[i][0], outside[i][1], outside[i][2]);
    }
    c = row_nn(600, 600, 600);
    tb_normalise(&c, &p);
    double known = tb_grid_factor(&r, &p, f);
    CHECK(known > 0.05 && known < 0.95 && near(f[0], pow(2.0, known)) && near(f[1], pow(0.5, known)),
          "600^3, at the grid's mnk edge: %.2f of its weight measured, x%.3f CPU, x%.3f GPU",
          known, f[0], f[1]);
    c = row_nn(4096, 4096, 64);                  /* 2^30: a grid point, but not measured */
    tb_normalise(&c, &p);
    CHECK(tb_grid_factor(&r, &p, f) == 0.0 && f[0] == 1.0, "4096x4096x64 is beyond the measured grid");

    /* tb_predict applies the published grid. */
    c = row_nn(64, 1024, 128);
    tb_normalise(&c, &p);
    double pc0, pg0, pc1, pg1;
    tb_predict(&p, &pc0, &pg0);
    grid_scaled(&r, 0.4, 1.0);                   /* OpenBLAS 2.5x faster than its formula here */
    tb_rates_publish(&r);
    tb_predict(&p, &pc1, &pg1);
    tb_rates_publish(tb_rates_builtin());
    CHECK(near(pc1, 0.4 * pc0) && near(pg1, pg0), "64x1024x128: CPU %.3f -> %.3f ms by the grid, GPU %.3f ms",
          pc0 * 1e3, pc1 * 1e3, pg1 * 1e3);

    /* A time above a larger shape's was disturbed: it takes the larger's. */
    grid_scaled(&r, 1.0, 1.0);
    const float before_big = r.grid[0][2][4][3], before_small = r.grid[0][1][4][3];
    r.grid[0][1][4][3] *= 10.0f;                 /* 64x512x64 measured 10x slow */
    tb_grid_monotone(&r, TB_ROUTE_CPU);
    CHECK(r.grid[0][1][4][3] <= before_big && r.grid[0][1][4][3] >= before_small &&
              r.grid[0][2][4][3] == before_big && r.grid[0][0][0][5] > 0.0f,
          "64x512x64: 10x its formula's time became %.4f ms (128x512x64: %.4f)", r.grid[0][1][4][3] * 1e3,
          before_big * 1e3);
    int rises = 0;
    for (int i = 0; i < TB_GRID_MN; i++)
        for (int j = 0; j < TB_GRID_MN; j++)
            for (int l = 0; l < TB_GRID_K; l++)
                rises += tb_grid_wanted(i, j, l) && tb_grid_wanted(i, j, l + 1) &&
                         r.grid[0][i][j][l] > r.grid[0][i][j][l + 1];
    CHECK(rises == 0, "no time falls where k grows (%d)", rises);
}

/* A double call moves 8-byte elements and computes at double's rates; the
 * small-call grid (measured in single) does not touch it. */
static void test_double(void)
{
    tb_rates r = *tb_rates_builtin();
    r.gpu_flops = 100e12; r.dp_gpu_flops = 50e12;
    r.cpu_flops = 1e12; r.dp_cpu_flops = 0.5e12;
    tb_problem p = problem_of(row_nn(4096, 4096, 4096)), q = p;
    q.prec = TB_DOUBLE;
    double cs, gs, cd, gd;
    tb_predict_with(&r, &p, &cs, &gs);
    tb_predict_with(&r, &q, &cd, &gd);
    CHECK(fabs(cd / cs - 2.0) < 0.1, "double at half the CPU's rate takes twice as long (%.2fx)", cd / cs);
    CHECK(gd > 1.5 * gs, "double moves twice the bytes and runs at half the rate on the GPU (%.2fx)",
          gd / gs);
    /* The grid says 2x on the GPU for single; double is left alone. */
    grid_scaled(&r, 1.0, 2.0);
    tb_problem s = problem_of(row_nn(256, 256, 256)), d = s;
    d.prec = TB_DOUBLE;
    double f[2];
    CHECK(tb_grid_factor(&r, &s, f) > 0.0 && fabs(f[1] - 2.0) < 1e-6, "single: the grid's factor (%.3f)", f[1]);
    CHECK(tb_grid_factor(&r, &d, f) == 0.0 && f[0] == 1.0 && f[1] == 1.0, "double: no grid factor");
}

/* The routines but gemm: one formula, with their flops and the bytes
 * their route moves - their inputs up first (syrk's family: C's triangle
 * when beta reads it), the compute, what they write back - none of it
 * overlapped; no small-call grid (it measured gemm). */
static void test_level3(void)
{
    tb_rates r = *tb_rates_builtin();
    grid_scaled(&r, 2.0, 2.0);
    const double n = 3000.0, k = 1000.0, e = 8.0, tri = n * (n + 1.0) / 2.0;
    tb_problem syrk = {.m = 3000, .n = 3000, .k = 1000, .alpha = 1.0, .beta = 0.0, .prec = TB_DOUBLE,
                       .routine = TB_R_syrk};
    tb_problem syrk_c = syrk, gemm = syrk;
    syrk_c.beta = 0.5;
    gemm.routine = TB_R_gemm;
    double c0, g0, c1, g1, cg, gg, f[2];
    tb_predict_with(&r, &syrk, &c0, &g0);
    tb_predict_with(&r, &syrk_c, &c1, &g1);
    tb_predict_with(&r, &gemm, &cg, &gg);
    const double want = r.gpu_fixed_s + e * n * k / r.h2d_bps + n * n * k / r.dp_gpu_flops +
                        e * tri / r.d2h_bps;
    CHECK(fabs(g0 - want) < 1e-9 * want && fabs(g1 - g0 - e * tri / r.h2d_bps) < 1e-9 * g1,
          "dsyrk 3000 x 1000 on the GPU: A up, n^2 k flops, C's triangle back (%.4g s, want "
          "%.4g); beta != 0 adds the triangle's upload", g0, want);
    CHECK(c0 < cg, "dsyrk on the CPU: below dgemm of its n and k (half the flops; %.4g < %.4g s)",
          c0, cg);
    tb_problem trsm = {.m = 2000, .n = 3000, .k = 2000, .alpha = 1.0, .prec = TB_SINGLE,
                       .routine = TB_R_trsm}, trmm = trsm;
    trmm.routine = TB_R_trmm;
    tb_predict_with(&r, &trsm, &c0, &g0);
    tb_predict_with(&r, &trmm, &c1, &g1);
    const double tri_a = 2000.0 * 2001.0 / 2.0, b = 4.0 * 2000.0 * 3000.0;
    const double want_t = r.gpu_fixed_s + (4.0 * tri_a + b) / r.h2d_bps +
                          2000.0 * 2000.0 * 3000.0 / r.gpu_flops + b / r.d2h_bps;
    CHECK(fabs(g0 - want_t) < 1e-9 * want_t && g0 == g1 && c0 == c1,
          "strsm and strmm alike: A's triangle and B up, m^2 n flops, B back (%.4g s, want %.4g)",
          g0, want_t);
    CHECK(tb_grid_factor(&r, &trsm, f) == 0.0 && f[0] == 1.0 && f[1] == 1.0,
          "no grid factor for trsm");
}

int main(void)
{
    setenv("TILEDBLAS_CALIBRATE", "off", 1);
    test_level3();
    test_model();
    test_plan();
    test_rates();
    test_grid();
    test_double();
    return unit_summary("test_costmodel");
}
