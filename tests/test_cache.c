/* tests/test_cache.c - unit tests of the calibration cache file: a round
 * trip of the rates and the small-call grid, and every way a file must be
 * refused (another machine's key, a missing or implausible rate, a grid
 * line that names no grid shape). Linked against the library's objects. */
#include "unit_check.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
}

/* The cache file keeps the grid. */
static void test_cache_grid(void)
{
    static tb_rates r;
    r = *tb_rates_builtin();
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

int main(void)
{
    setenv("TILEDBLAS_CALIBRATE", "off", 1);
    test_calibration();
    test_cache_grid();
    return unit_summary("test_cache");
}
