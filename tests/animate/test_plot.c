/* tests/animate/test_plot.c - proves tb_plot_csv() draws a PNG and an SVG
 * from a small CSV through gnuplot, and fails cleanly (-1, no crash) on a
 * bad extension, a missing CSV, a malformed line and a missing gnuplot.
 * Usage: test_plot OUTDIR. Skips (77) when gnuplot is not installed. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* getline, popen, mkstemp, setenv */
#endif
#include "animate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static int starts_with(const char *path, const char *magic, size_t n)
{
    char buf[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    return got == n && memcmp(buf, magic, n) == 0;
}

static int contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, needle) != NULL;
    if (f)
        fclose(f);
    return found;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("SKIP: gnuplot not installed\n");
        return 77;
    }
    char csv[512], bad[512], png[512], svg[512], txt[512];
    snprintf(csv, sizeof csv, "%s/plot.csv", dir);
    snprintf(bad, sizeof bad, "%s/bad.csv", dir);
    snprintf(png, sizeof png, "%s/plot.png", dir);
    snprintf(svg, sizeof svg, "%s/plot.svg", dir);
    snprintf(txt, sizeof txt, "%s/plot.txt", dir);
    write_file(csv, "series,size,gflops\n"
                    "tiled16,256,310.5\ntiled16,1024,820\ntiled16,4096,1150.25\n"
                    "cpu \"openblas\",256,95\ncpu \"openblas\",1024,160\ncpu \"openblas\",4096,171\n");
    write_file(bad, "series,size,gflops\ntiled16,256\n");

    check(tb_plot_csv(csv, png, "sgemm: GPU vs CPU") == 0, "PNG plot");
    check(starts_with(png, "\x89PNG\r\n\x1a\n", 8), "PNG signature");
    check(tb_plot_csv(csv, svg, "sgemm \"quoted\" title") == 0, "SVG plot");
    check(contains(svg, "<svg"), "SVG has <svg");
    check(contains(svg, "tiled16"), "SVG names the series");

    fprintf(stderr, "(the four failures below are expected)\n");
    check(tb_plot_csv(csv, txt, NULL) == -1, "bad extension refused");
    check(tb_plot_csv("/nonexistent/x.csv", png, NULL) == -1, "missing CSV refused");
    check(tb_plot_csv(bad, png, NULL) == -1, "malformed CSV refused");
    setenv("PATH", "/nonexistent", 1);
    check(tb_plot_csv(csv, png, NULL) == -1, "no gnuplot on PATH");

    if (failures) {
        fprintf(stderr, "test_plot: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_plot: all checks passed\n");
    return 0;
}
