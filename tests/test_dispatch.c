/* tests/test_dispatch.c - unit tests of the decisions that need no GPU:
 * BLAS legality (one case per argument), the column-major normalisation,
 * and the route and reason the dispatcher gives each kind of call. Linked
 * against the library's objects, so it sees the hidden internals. */
#include "tb_internal.h"
#include "tb_kernels.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...) do {                                   \
        if (cond) { passed++; } else {                          \
            failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__); printf("\n"); }                \
    } while (0)

static tb_call row_nn(int m, int n, int k)
{
    static float dummy[1];
    return (tb_call){TB_API_CBLAS, NULL, NULL, TB_ROW_MAJOR, TB_NO_TRANS, TB_NO_TRANS, m, n, k,
                     1.0f, 0.0f, dummy, k > 1 ? k : 1, dummy, n > 1 ? n : 1, dummy, n > 1 ? n : 1};
}

static void test_legality(void)
{
    tb_call c = row_nn(4, 5, 6);
    CHECK(tb_call_is_legal(&c), "a plain row-major call is legal");
    tb_call x;
    x = c; x.layout = 100;             CHECK(!tb_call_is_legal(&x), "bad layout");
    x = c; x.transa = 110;             CHECK(!tb_call_is_legal(&x), "bad transa");
    x = c; x.transb = 114;             CHECK(!tb_call_is_legal(&x), "transb ConjNoTrans is left to the BLAS");
    x = c; x.m = -1;                   CHECK(!tb_call_is_legal(&x), "m < 0");
    x = c; x.n = -1;                   CHECK(!tb_call_is_legal(&x), "n < 0");
    x = c; x.k = -1;                   CHECK(!tb_call_is_legal(&x), "k < 0");
    x = c; x.lda = 5;                  CHECK(!tb_call_is_legal(&x), "row-major lda < k");
    x = c; x.ldb = 4;                  CHECK(!tb_call_is_legal(&x), "row-major ldb < n");
    x = c; x.ldc = 4;                  CHECK(!tb_call_is_legal(&x), "row-major ldc < n");
    x = c; x.transa = TB_TRANS; x.lda = 4; CHECK(tb_call_is_legal(&x), "row-major A^T needs lda >= m");
    x = c; x.transa = TB_TRANS; x.lda = 3; CHECK(!tb_call_is_legal(&x), "row-major A^T with lda < m");
    x = c; x.layout = TB_COL_MAJOR; x.lda = 4; x.ldb = 6; x.ldc = 4;
    CHECK(tb_call_is_legal(&x), "column-major lda >= m, ldb >= k, ldc >= m");
    x.ldc = 3;                         CHECK(!tb_call_is_legal(&x), "column-major ldc < m");
    x = row_nn(0, 0, 0);               CHECK(tb_call_is_legal(&x), "all sizes zero with ld = 1");
    x.lda = 0;                         CHECK(!tb_call_is_legal(&x), "ld 0 is never legal");
}

static void test_normalise(void)
{
    float a[1], b[1], c[1];
    tb_call col = {TB_API_CBLAS, NULL, NULL, TB_COL_MAJOR, TB_TRANS, TB_NO_TRANS, 3, 5, 7, 2.0f, 0.5f,
                   a, 7, b, 7, c, 3};
    tb_problem p;
    tb_normalise(&col, &p);
    CHECK(p.m == 5 && p.n == 3 && p.k == 7, "column-major m x n becomes row-major n x m (got %dx%dx%d)", p.m, p.n, p.k);
    CHECK(p.A == b && p.B == a && p.transa == 0 && p.transb == 1, "operands swap and keep their transposes");
    CHECK(p.lda == 7 && p.ldb == 7 && p.ldc == 3 && p.alpha == 2.0f && p.beta == 0.5f, "strides and scalars carry over");
    tb_call row = row_nn(3, 5, 7);
    tb_normalise(&row, &p);
    CHECK(p.m == 3 && p.n == 5 && p.k == 7 && p.transa == 0 && p.transb == 0, "row-major is unchanged");
}

static void test_decide(void)
{
    /* Default settings (ctest sets no TILEDBLAS_* for this test). */
    tb_problem p;
    tb_call c = row_nn(8, 8, 8);
    tb_normalise(&c, &p);
    tb_decision d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, "small"), "a 8x8x8 call stays on the CPU (got %s)", d.reason);

    c = row_nn(4, 5, 6); c.lda = 1;
    tb_normalise(&c, &p);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, "illegal-args"), "illegal calls are forwarded (got %s)", d.reason);

    c = row_nn(0, 4000, 4000);
    tb_normalise(&c, &p);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, "no-op"), "m = 0 is a no-op (got %s)", d.reason);

    c = row_nn(4000, 4000, 4000); c.alpha = 0.0f; c.beta = 1.0f;
    tb_normalise(&c, &p);
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, "no-op"), "alpha = 0, beta = 1 is a no-op (got %s)", d.reason);

    c = row_nn(4000, 4000, 4000);
    tb_normalise(&c, &p);
    d = tb_decide(&c, &p);
    const char *why;
    int gpu = tb_gpu_available(&why);
    if (gpu)
        CHECK(d.route == TB_ROUTE_GPU && !strcmp(d.reason, "gpu-faster"), "a 4000^3 call goes to the GPU (got %s)", d.reason);
    else
        CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, why), "without a GPU a 4000^3 call says why (got %s)", d.reason);
}

static void test_model(void)
{
    /* Skinny shapes with big outputs stay on the CPU even when m*n*k is
     * large; square ones go to the GPU. */
    tb_problem p;
    tb_call c = row_nn(8192, 8192, 4);
    tb_normalise(&c, &p);
    tb_decision d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, "cpu-faster"),
          "8192x8192x4 is transfer-bound: CPU (got %s)", d.reason);
    CHECK(d.pred_cpu_s > 0 && d.pred_gpu_s > d.pred_cpu_s, "the model's times are reported");
    double cpu_s, gpu_s;
    c = row_nn(2048, 2048, 2048);
    tb_normalise(&c, &p);
    tb_predict(&p, &cpu_s, &gpu_s);
    CHECK(gpu_s < cpu_s, "2048^3 is predicted faster on the GPU (%.2f ms vs %.2f ms)", gpu_s * 1e3, cpu_s * 1e3);

    /* Small products run on the seed kernel, and the model counts its
     * phases: a long K costs far more than its flops say (64x64x2048: 55
     * us measured on the H200; 0.4 us at the tensor-core rate). */
    CHECK(tb_kernel_small(256, 256, 256) && tb_kernel_small(64, 64, 2048) &&
          !tb_kernel_small(512, 512, 512) && !tb_kernel_small(2048, 2048, 2048),
          "the seed kernel below 2.2e8 flops only");
    const double seed = tb_seed_kernel_s(2048, 2.0 * 64 * 64 * 2048);
    CHECK(seed > 45e-6 && seed < 65e-6, "64x64x2048 on the seed kernel: %.1f us", seed * 1e6);
    double pc_long, pg_long, pc_short, pg_short;
    c = row_nn(64, 64, 2048);
    tb_normalise(&c, &p);
    tb_predict(&p, &pc_long, &pg_long);
    c = row_nn(512, 512, 32);   /* the same flops, a short K */
    tb_normalise(&c, &p);
    tb_predict(&p, &pc_short, &pg_short);
    CHECK(pg_long > pg_short + 30e-6 && pc_long > 0.0 && pc_short > 0.0,
          "a long K costs the seed kernel phases (%.1f against %.1f us, though the short K moves "
          "2.3x the bytes)", pg_long * 1e6, pg_short * 1e6);
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

/* A GPU failure while results stream back leaves part of C final; the CPU
 * must complete exactly the rest (tb_complete_on_cpu), for every shape of
 * the final part and both transposes, with beta != 0 so that computing a
 * final element twice would show. */
static void test_partial_completion(void)
{
    enum { M = 37, N = 23, K = 11 };
    static const int cases[][3] = {   /* done_cols, done_cols_end, done_rows */
        {0, 0, 0}, {0, N, 16}, {8, 16, 5}, {8, 8, 0}, {0, 12, 36}, {20, N, 1},
    };
    for (int tr = 0; tr < 4; tr++)
        for (unsigned ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
            int ta = tr & 1, tb = tr >> 1;
            float A[M * K], B[K * N], C[M * (N + 3)];
            double want[M * N];
            int lda = ta ? M : K, ldb = tb ? K : N, ldc = N + 3;
            for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 11) - 5.0f;
            for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 9) - 4.0f;
            for (int i = 0; i < M * ldc; i++) C[i] = (float)(i % 13) * 0.5f;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double acc = 0.0;
                    for (int q = 0; q < K; q++)
                        acc += (double)(ta ? A[q * lda + i] : A[i * lda + q]) *
                               (tb ? B[j * ldb + q] : B[q * ldb + j]);
                    want[i * N + j] = 2.0 * acc + 0.5 * C[i * ldc + j];
                }
            tb_gpu_times t = {0};
            t.done_cols = cases[ci][0];
            t.done_cols_end = cases[ci][1];
            t.done_rows = cases[ci][2];
            /* What the GPU had written: final values in the final part. */
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++)
                    if (j < t.done_cols || (j < t.done_cols_end && i < t.done_rows))
                        C[i * ldc + j] = (float)want[i * N + j];
            tb_call c = {TB_API_CBLAS, NULL, NULL, TB_ROW_MAJOR, ta ? TB_TRANS : TB_NO_TRANS,
                         tb ? TB_TRANS : TB_NO_TRANS, M, N, K, 2.0f, 0.5f, A, lda, B, ldb, C, ldc};
            tb_problem p;
            tb_normalise(&c, &p);
            tb_complete_on_cpu(&c, &p, &t);
            int bad = 0;
            for (int i = 0; i < M && !bad; i++)
                for (int j = 0; j < N; j++)
                    if (fabs(C[i * ldc + j] - want[i * N + j]) > 1e-3) {
                        bad = 1;
                        printf("  (%d,%d) = %g, want %g\n", i, j, C[i * ldc + j], want[i * N + j]);
                        break;
                    }
            for (int i = 0; i < M && !bad; i++)
                for (int j = N; j < ldc; j++)
                    bad |= C[i * ldc + j] != (float)((i * ldc + j) % 13) * 0.5f;
            CHECK(!bad, "completion after a failure with cols<%d final, rows<%d of cols<%d final, op %c%c",
                  t.done_cols, t.done_rows, t.done_cols_end, ta ? 'T' : 'N', tb ? 'T' : 'N');
        }
}

/* The cache file of calibrate.c: a round trip, and every way a file must be
 * refused (another machine's key, a missing or implausible rate). And the
 * model predicts with whatever rates are published. */
static void test_calibration(void)
{
    tb_rates r = *tb_rates_builtin(), back;
    r.cpu_flops = 7.5e11;
    r.h2d_bps = 3.1e10;
    r.thin_dim = 300;
    r.cpu_c_bps = 4.25e10;
    char text[4096], bad[4096];
    CHECK(tb_calibration_format(&r, "gpu X | blas Y", "today", text, sizeof text) == 0, "format");
    CHECK(tb_calibration_parse(text, "gpu X | blas Y", &back) == 0 && back.cpu_flops == 7.5e11 &&
              back.h2d_bps == 3.1e10 && back.thin_dim == 300 && back.cpu_c_bps == 4.25e10 && back.gpu_flops == r.gpu_flops &&
              back.d2h_bps == r.d2h_bps && back.cpu_fixed_s == r.cpu_fixed_s,
          "rates survive the round trip: %s", text);
    CHECK(tb_calibration_parse(text, "gpu Z | blas Y", &back) != 0, "another machine's key is refused");
    CHECK(tb_calibration_parse(text, "gpu X | blas", &back) != 0, "a key that is only a prefix is refused");
    snprintf(bad, sizeof bad, "%s", text);
    *strstr(bad, "thin_dim") = '\0';
    CHECK(tb_calibration_parse(bad, "gpu X | blas Y", &back) != 0, "a file missing a rate is refused");
    static const char *const junk[] = {"gpu_flops 5\n", "gpu_flops nan\n", "h2d_bps -3e10\n",
                                       "cpu_flops 1e12x\n", "cpu_fixed_s 7\n"};
    for (int i = 0; i < 5; i++) {
        snprintf(bad, sizeof bad, "%s%s", text, junk[i]);
        CHECK(tb_calibration_parse(bad, "gpu X | blas Y", &back) != 0, "'%.20s' is refused", junk[i]);
    }
    CHECK(tb_calibration_parse("", "gpu X | blas Y", &back) != 0, "an empty file is refused");

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

/* Rates whose grid holds formula x fc on the CPU and x fg on the GPU at
 * every shape calibrate.c measures. */
static void grid_scaled(tb_rates *r, double fc, double fg)
{
    memset(r->grid, 0, sizeof r->grid);
    for (int i = 0; i < TB_GRID_MN; i++)
        for (int j = 0; j < TB_GRID_MN; j++)
            for (int l = 0; l < TB_GRID_K; l++)
                if (tb_grid_wanted(i, j, l)) {
                    const tb_problem q = tb_grid_shape(i, j, l, NULL, NULL, NULL);
                    double pc, pg;
                    tb_predict_with(r, &q, &pc, &pg);
                    r->grid[TB_ROUTE_CPU][i][j][l] = (float)(pc * fc);
                    r->grid[TB_ROUTE_GPU][i][j][l] = (float)(pg * fg);
                }
}

static int near(double x, double want) { return fabs(x - want) <= 1e-5 * want; }

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

    /* tb_predict applies the published grid; the decision follows it. */
    c = row_nn(64, 1024, 128);
    tb_normalise(&c, &p);
    double pc0, pg0, pc1, pg1, model[2], cs, gs;
    int learned, recheck, kept;
    tb_predict(&p, &pc0, &pg0);
    grid_scaled(&r, 0.4, 1.0);                   /* OpenBLAS 2.5x faster than its formula here */
    tb_rates_publish(&r);
    tb_predict(&p, &pc1, &pg1);
    tb_learn_forget();
    tb_route route = tb_auto_route(&p, model, &cs, &gs, &learned, &recheck, &kept);
    CHECK(near(pc1, 0.4 * pc0) && near(pg1, pg0) && pg0 < pc0 && route == TB_ROUTE_CPU,
          "64x1024x128: CPU %.3f -> %.3f ms by the grid, GPU %.3f ms: route %s",
          pc0 * 1e3, pc1 * 1e3, pg1 * 1e3, route == TB_ROUTE_CPU ? "cpu" : "gpu");
    /* A close call (GPU 1.1x the CPU) inside the measured grid goes the
     * way the measurements say, the CPU; at the grid's edge, where less than
     * half of its weight was measured, the GPU goes first (gpu-close). */
    static const int close_shape[][3] = {{100, 300, 500}, {3000, 3000, 48}};
    for (int i = 0; i < 2; i++) {
        c = row_nn(close_shape[i][0], close_shape[i][1], close_shape[i][2]);
        tb_normalise(&c, &p);
        grid_scaled(&r, 1.0, 1.0);
        tb_predict_with(&r, &p, &pc0, &pg0);
        const double fk = tb_grid_factor(&r, &p, f);
        /* The CPU's measured say, to the power fk, makes the GPU 1.1x it. */
        grid_scaled(&r, pow(pg0 / (1.1 * pc0), 1.0 / fk), 1.0);
        tb_rates_publish(&r);
        tb_learn_forget();
        route = tb_auto_route(&p, model, &cs, &gs, &learned, &recheck, &kept);
        CHECK(near(gs, 1.1 * cs) && (i == 0 ? near(fk, 1.0) : fk > 0.1 && fk < 0.5) &&
                  route == (i == 0 ? TB_ROUTE_CPU : TB_ROUTE_GPU) && kept == (i == 0 ? 0 : 2),
              "%dx%dx%d, %.2f of it measured: CPU %.3f, GPU %.3f ms -> %s (kept %d)", close_shape[i][0],
              close_shape[i][1], close_shape[i][2], fk, cs * 1e3, gs * 1e3,
              route == TB_ROUTE_CPU ? "cpu" : "gpu", kept);
    }
    tb_rates_publish(tb_rates_builtin());

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

    /* The cache file keeps the grid; a grid line that names no grid shape,
     * or an implausible time, and the file is refused. */
    static tb_rates back;
    char text[TB_GRID_MN * TB_GRID_MN * TB_GRID_K * 48 + 2048], bad[sizeof text];
    grid_scaled(&r, 1.7, 0.9);
    r.grid[0][3][3][2] = r.grid[1][3][3][2] = 0.0f;   /* one shape not measured */
    CHECK(tb_calibration_format(&r, "k", "now", text, sizeof text) == 0, "format with a grid");
    CHECK(tb_calibration_parse(text, "k", &back) == 0, "parse with a grid");
    int same = 1, lines = 0;
    for (const char *t = strstr(text, "\ngrid "); t; t = strstr(t + 1, "\ngrid "))
        lines++;
    for (int i = 0; i < TB_GRID_MN; i++)
        for (int j = 0; j < TB_GRID_MN; j++)
            for (int l = 0; l < TB_GRID_K; l++)
                for (int k = 0; k < 2; k++)
                    same &= fabs(back.grid[k][i][j][l] - r.grid[k][i][j][l]) <= 1e-3 * r.grid[k][i][j][l];
    CHECK(same && lines == 258, "the grid survives the round trip (%d lines)", lines);
    static const char *const junk[] = {"grid 48 64 16 1e-4 1e-4\n", "grid 64 64 8 1e-4 1e-4\n",
                                       "grid 32 32 1 1e-4 1e-4\n", "grid 64 64 16 0 1e-4\n",
                                       "grid 64 64 16 1e-4\n", "grid 64 64 16 1e-4 1e-4 x\n",
                                       "grid 8192 64 16 1e-4 1e-4\n", "grid 64 64 16 1e-4 nan\n"};
    for (int i = 0; i < 8; i++) {
        snprintf(bad, sizeof bad, "%s%s", text, junk[i]);
        CHECK(tb_calibration_parse(bad, "k", &back) != 0, "'%.28s' is refused", junk[i]);
    }
}

/* Learning from calls (costmodel.c): a route's time in a shape class is
 * believed after two calls, the fastest is kept, within 20% of the model
 * nothing changes, and a class the model got wrong changes its route. */
static void test_learning(void)
{
    tb_learn_forget();
    tb_problem p, q;
    tb_call c = row_nn(8192, 8192, 4);
    tb_normalise(&c, &p);
    double c0, g0, c1, g1;
    tb_predict(&p, &c0, &g0);
    c1 = c0, g1 = g0;
    CHECK(tb_learn_adjust(&p, &c1, &g1, NULL) == 0 && c1 == c0 && g1 == g0, "nothing learned yet");
    tb_learn_record(&p, TB_ROUTE_CPU, 50.0 * c0, c0);
    c1 = c0, g1 = g0;
    CHECK(tb_learn_adjust(&p, &c1, &g1, NULL) == 0 && c1 == c0, "one call is not believed");
    tb_learn_record(&p, TB_ROUTE_CPU, 20.0 * c0, c0);
    tb_learn_record(&p, TB_ROUTE_CPU, 30.0 * c0, c0);
    c1 = c0, g1 = g0;
    CHECK(tb_learn_adjust(&p, &c1, &g1, NULL) == 1 && fabs(c1 / c0 - 20.0) < 1e-9 && g1 == g0,
          "the fastest of three CPU calls scales the CPU side only (x%.3g)", c1 / c0);

    /* The same class: m, n, k in the same powers of two; others are not. */
    c = row_nn(9000, 12000, 7);
    tb_normalise(&c, &q);
    CHECK(tb_learn_key(&q) == tb_learn_key(&p), "9000x12000x7 shares 8192x8192x4's class");
    static const int other[][3] = {{4096, 8192, 4}, {8192, 16384, 4}, {8192, 8192, 8}};
    for (int i = 0; i < 3; i++) {
        c = row_nn(other[i][0], other[i][1], other[i][2]);
        tb_normalise(&c, &q);
        CHECK(tb_learn_key(&q) != tb_learn_key(&p), "%dx%dx%d is another class", other[i][0],
              other[i][1], other[i][2]);
    }
    c = row_nn(8192, 8192, 4);
    c.transb = TB_TRANS;
    c.ldb = 4;
    tb_normalise(&c, &q);
    CHECK(tb_learn_key(&q) != tb_learn_key(&p), "a transposed B is another class");
    c = row_nn(8192, 8192, 4);
    c.beta = 1.0f;
    tb_normalise(&c, &q);
    CHECK(tb_learn_key(&q) != tb_learn_key(&p), "beta != 0 is another class");

    /* Within 20% of the model: the model stands. */
    c = row_nn(3000, 3000, 3000);
    tb_normalise(&c, &q);
    tb_predict(&q, &c0, &g0);
    tb_learn_record(&q, TB_ROUTE_GPU, 1.15 * g0, g0);
    tb_learn_record(&q, TB_ROUTE_GPU, 1.18 * g0, g0);
    c1 = c0, g1 = g0;
    CHECK(tb_learn_adjust(&q, &c1, &g1, NULL) == 0 && g1 == g0, "15%% off the model changes nothing");

    /* The decision follows: 8192x8192x4 leaves the CPU. Without a GPU it
     * then says why the GPU cannot take it. */
    c = row_nn(8192, 8192, 4);
    tb_decision d = tb_decide(&c, &p);
    const char *why;
    if (tb_gpu_available(&why))
        CHECK(d.route == TB_ROUTE_GPU && !strcmp(d.reason, "gpu-measured") && d.weighed,
              "a class measured 20x slower on the CPU goes to the GPU (got %s)", d.reason);
    else
        CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, why) && !d.weighed,
              "a class measured 20x slower on the CPU would go to the GPU (got %s)", d.reason);
    tb_learn_forget();
    d = tb_decide(&c, &p);
    CHECK(d.route == TB_ROUTE_CPU && !strcmp(d.reason, "cpu-faster") && d.weighed,
          "forgotten: the model's choice again (got %s)", d.reason);
}

/* Calls of one shape, as a program makes them, when each route really
 * takes true_cpu/true_gpu times the model's time, except that the first
 * `disturbed` GPU calls that teach take gpu_first times it: the routes
 * taken, as a string ('c' or 'g'), decided as auto mode decides
 * (tb_auto_route). A GPU call whose buffers grew (the first) does not
 * teach, as in dispatch.c. */
static void learn_calls(int m, int n, int k, int calls, double true_cpu, double true_gpu,
                        int disturbed, double gpu_first, char *routes)
{
    tb_learn_forget();
    tb_call c = row_nn(m, n, k);
    tb_problem p;
    tb_normalise(&c, &p);
    int gpu_calls = 0, taught = 0;
    for (int i = 0; i < calls; i++) {
        double model[2], pc, pg;
        int learned, recheck, kept;
        const int gpu = tb_auto_route(&p, model, &pc, &pg, &learned, &recheck, &kept) == TB_ROUTE_GPU;
        routes[i] = gpu ? 'g' : 'c';
        if (!gpu)
            tb_learn_record(&p, TB_ROUTE_CPU, true_cpu * model[TB_ROUTE_CPU], model[TB_ROUTE_CPU]);
        else if (gpu_calls++ > 0)
            tb_learn_record(&p, TB_ROUTE_GPU, (taught++ < disturbed ? gpu_first : true_gpu) *
                                                  model[TB_ROUTE_GPU], model[TB_ROUTE_GPU]);
    }
    routes[calls] = '\0';
}

static void learn_run(int m, int n, int k, double true_cpu, double true_gpu, char *routes)
{
    learn_calls(m, n, k, 6, true_cpu, true_gpu, 0, 1.0, routes);
}

static void test_learning_sequence(void)
{
    char r[8];
    /* The model's CPU choice for 8192x8192x4 (above); the CPU really takes
     * 20 times longer: two CPU calls teach it, the rest go to the GPU. */
    learn_run(8192, 8192, 4, 20.0, 1.0, r);
    CHECK(!strcmp(r, "ccgggg"), "CPU 20x slower than the model: routes %s, want ccgggg", r);
    /* Both routes as the model says: nothing changes. */
    learn_run(8192, 8192, 4, 1.1, 0.9, r);
    CHECK(!strcmp(r, "cccccc"), "the model right: routes %s, want cccccc", r);
    /* The GPU's choice (4096^3), the GPU really 1000 times slower: its
     * first call does not count, two more do, then the CPU. */
    learn_run(4096, 4096, 4096, 1.0, 1000.0, r);
    CHECK(!strcmp(r, "gggccc"), "GPU 1000x slower than the model: routes %s, want gggccc", r);
    /* Both routes slower than the model, the GPU's choice less so (as
     * 700x200x900 on the H200 machine): one CPU call shows it, then the
     * GPU again. */
    double pc, pg;
    tb_call c = row_nn(700, 200, 900);
    tb_problem p;
    tb_normalise(&c, &p);
    tb_predict(&p, &pc, &pg);
    const double gpu_x = 2.8, cpu_x = 1.05 * gpu_x * pg / pc;   /* the CPU 5% slower in the end */
    CHECK(pg < pc && pg * gpu_x > pc * 1.2, "700x200x900: the GPU's (%.3f ms against %.3f)",
          pg * 1e3, pc * 1e3);
    learn_run(700, 200, 900, cpu_x, gpu_x, r);
    CHECK(!strcmp(r, "gggcgg"), "both slower, the GPU less: routes %s, want gggcgg", r);
    /* The GPU measured at 1.1 times the CPU's untried prediction: not
     * enough to try the CPU (TB_TRY_MARGIN 1.2), and the decision says so.
     * At 1.25 times it is, and the CPU is tried. */
    const double close_x = 1.1 * pc / pg;
    learn_run(700, 200, 900, 1.0, close_x, r);
    CHECK(!strcmp(r, "gggggg"), "the untried CPU predicted 10%% faster: routes %s, want gggggg", r);
    double model[2], kc, kg;
    int learned, recheck, kept;
    tb_route kr = tb_auto_route(&p, model, &kc, &kg, &learned, &recheck, &kept);
    CHECK(kr == TB_ROUTE_GPU && kept && learned && !recheck && kc < kg,
          "kept on the GPU: kept %d, predicted cpu %.3f gpu %.3f ms", kept, kc * 1e3, kg * 1e3);
    const char *why;
    if (tb_gpu_available(&why)) {
        tb_decision d = tb_decide(&c, &p);
        CHECK(d.route == TB_ROUTE_GPU && !strcmp(d.reason, "gpu-kept"), "the decision says %s",
              d.reason);
    }
    learn_run(700, 200, 900, 1.0, 1.25 * pc / pg, r);
    CHECK(!strcmp(r, "gggccc"), "the untried CPU predicted 25%% faster: routes %s, want gggccc", r);
    /* The other way round it is cheap to try (dispatch.c, gpu-try): the
     * model's CPU choice for 8192x8192x4 runs 1.1x the GPU's prediction;
     * after two CPU calls the GPU is tried (its first call grows buffers
     * and does not teach), found faster, and kept. */
    tb_call c4 = row_nn(8192, 8192, 4);
    tb_problem p4;
    tb_normalise(&c4, &p4);
    double pc4, pg4;
    tb_predict(&p4, &pc4, &pg4);
    learn_run(8192, 8192, 4, 1.1 * pg4 / pc4, 1.0, r);
    CHECK(pc4 < pg4 && !strcmp(r, "ccgggg"), "the untried GPU predicted 10%% faster: routes %s, want ccgggg", r);
    /* The GPU tried and found 10% slower than the CPU: back to the CPU. */
    learn_run(8192, 8192, 4, 1.1 * pg4 / pc4, 1.21, r);
    CHECK(!strcmp(r, "ccggcc"), "the tried GPU 10%% slower: routes %s, want ccggcc", r);
    /* Not close (the GPU predicted 1.3x the CPU's measured time): no try. */
    learn_run(8192, 8192, 4, pg4 / pc4 / 1.3, 1.0, r);
    CHECK(!strcmp(r, "cccccc"), "the GPU predicted 1.3x slower: routes %s, want cccccc", r);
    /* Both routes believed: both measured times decide, even within 20% of
     * the model (160^3 in session 11: CPU 1.16x, GPU 0.87x its prediction). */
    tb_learn_forget();
    tb_learn_record(&p4, TB_ROUTE_CPU, 1.16 * pc4, pc4);
    tb_learn_record(&p4, TB_ROUTE_CPU, 1.17 * pc4, pc4);
    double bc = pc4, bg = pg4;
    unsigned tried = 0;
    CHECK(tb_learn_adjust(&p4, &bc, &bg, &tried) == 0 && bc == pc4 && tried == 5u,
          "the CPU alone 16%% off: the model stands (tried %u)", tried);
    tb_learn_record(&p4, TB_ROUTE_GPU, 0.87 * pg4, pg4);
    bc = pc4, bg = pg4;
    CHECK(tb_learn_adjust(&p4, &bc, &bg, &tried) == 1 && fabs(bc / pc4 - 1.16) < 1e-9 &&
              fabs(bg / pg4 - 0.87) < 1e-9 && tried == 7u,
          "both believed: both scaled (cpu x%.3g, gpu x%.3g, tried %u)", bc / pc4, bg / pg4, tried);

    /* A shape whose model times are within 1.2x, the CPU's the shorter: the
     * GPU goes first (reason gpu-close) and, measured as the model says,
     * keeps the class; measured 1.5x the model, it hands it to the CPU. */
    tb_call cc = row_nn(8192, 8192, 4);
    tb_problem pcl;
    double ccpu = 0.0, cgpu = 0.0;
    for (int k = 1; k <= 512; k++) {
        cc = row_nn(8192, 8192, k);
        tb_normalise(&cc, &pcl);
        tb_predict(&pcl, &ccpu, &cgpu);
        if (ccpu < cgpu && cgpu < 1.2 * ccpu)
            break;
    }
    CHECK(ccpu < cgpu && cgpu < 1.2 * ccpu, "a close shape 8192x8192xK (%d: cpu %.3f gpu %.3f ms)",
          pcl.k, ccpu * 1e3, cgpu * 1e3);
    tb_learn_forget();
    tb_route cr = tb_auto_route(&pcl, model, &kc, &kg, &learned, &recheck, &kept);
    CHECK(cr == TB_ROUTE_GPU && kept == 2 && !learned, "close: the GPU first (kept %d)", kept);
    learn_run(8192, 8192, pcl.k, 1.0, 1.0, r);
    CHECK(!strcmp(r, "gggggg"), "close, both as the model says: routes %s, want gggggg", r);
    learn_run(8192, 8192, pcl.k, 1.0, 1.5, r);
    CHECK(!strcmp(r, "gggccc"), "close, the GPU 1.5x the model: routes %s, want gggccc", r);

    /* The GPU's first two teaching calls disturbed (1.5 times the CPU's
     * time), the GPU really as fast as the model says: the class goes to
     * the CPU, and the GPU, measured once more after 16 calls, wins it back.
     * Then nothing changes: the next re-check of the CPU is due after 32
     * more calls, at call 51. */
    char long_r[64];
    learn_calls(700, 200, 900, 50, 1.0, 1.0, 2, 1.5 * pc / pg, long_r);
    char want[64] = "ggg";                        /* calls 0-2 on the GPU        */
    memset(want + 3, 'c', 16);                    /* 3-18: the CPU               */
    memset(want + 19, 'g', 31);                   /* 19: the GPU re-checked, kept */
    want[50] = '\0';
    CHECK(!strcmp(long_r, want), "a disturbed GPU re-checked: routes %s, want %s", long_r, want);
    /* Without the disturbance nothing is re-checked: the model was right. */
    learn_calls(700, 200, 900, 50, 1.0, 1.0, 0, 1.0, long_r);
    CHECK(strspn(long_r, "g") == 50, "the model right for 50 calls: routes %s", long_r);
    /* A route measured more than twice slower on two calls is re-checked
     * once (up to 4x); measured as slow a third time, never again. */
    learn_calls(700, 200, 900, 50, 1.0, 1.0, 1000, 2.5 * pc / pg, long_r);
    memset(want + 3, 'c', 47);
    want[19] = 'g';                               /* the one re-check            */
    CHECK(!strcmp(long_r, want), "the GPU 2.5x slower: routes %s, want %s", long_r, want);
    /* Two disturbed calls 3x slow, the GPU really as the model says: the
     * re-check wins the class back. */
    learn_calls(700, 200, 900, 50, 1.0, 1.0, 2, 3.0 * pc / pg, long_r);
    memset(want + 3, 'c', 16);
    memset(want + 19, 'g', 31);
    CHECK(!strcmp(long_r, want), "a GPU disturbed 3x re-checked: routes %s, want %s", long_r, want);
    /* Beyond 4x nothing is re-checked. */
    learn_calls(700, 200, 900, 50, 1.0, 1.0, 1000, 5.0 * pc / pg, long_r);
    CHECK(!strncmp(long_r, "ggg", 3) && strspn(long_r + 3, "c") == 47,
          "the GPU 5x slower: routes %s, want ggg then all c", long_r);
    tb_learn_forget();
}

int main(void)
{
    /* Decisions with the built-in rates: never measure in a unit test. */
    setenv("TILEDBLAS_CALIBRATE", "off", 1);
    test_calibration();
    test_grid();
    test_learning();
    test_learning_sequence();
    test_legality();
    test_normalise();
    test_decide();
    test_model();
    test_partial_completion();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
