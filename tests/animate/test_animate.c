/* tests/animate/test_animate.c - proves the schedule behind `tiledblas
 * animate` (blocks, phases, zeros at ragged edges, counted against a brute
 * force walk over every element), the trace reader, and that the SVG and
 * HTML are well-formed and carry the labels a reader needs. Exit 0 = pass. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* getline, popen, mkstemp, setenv */
#endif
#include "anim_kernels.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
    if (ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

static long ceil_div(long a, long b) { return (a + b - 1) / b; }

/* Zeros the grid loads, by walking every element of every tile. */
static void brute_padding(const tb_anim_geom *g, long m, long n, long k,
                          long *apad, long *bpad, long *cskip)
{
    long gx = ceil_div(n, g->block_n), gy = ceil_div(m, g->block_m), ph = ceil_div(k, g->block_k);
    *apad = *bpad = *cskip = 0;
    for (long by = 0; by < gy; by++)
        for (long bx = 0; bx < gx; bx++) {
            for (long p = 0; p < ph; p++) {
                for (long i = 0; i < g->block_m; i++)
                    for (long q = 0; q < g->block_k; q++)
                        *apad += (by * g->block_m + i >= m || p * g->block_k + q >= k);
                for (long q = 0; q < g->block_k; q++)
                    for (long j = 0; j < g->block_n; j++)
                        *bpad += (p * g->block_k + q >= k || bx * g->block_n + j >= n);
            }
            for (long i = 0; i < g->block_m; i++)
                for (long j = 0; j < g->block_n; j++)
                    *cskip += (by * g->block_m + i >= m || bx * g->block_n + j >= n);
        }
}

static void test_schedule(const tb_anim_geom *g, long m, long n, long k)
{
    tb_anim_sched s;
    char err[200];
    if (tb_anim_sched_init(&s, g, m, n, k, err, sizeof err) != 0) {
        check(0, "%s %ldx%ldx%ld: sched_init failed: %s", g->name, m, n, k, err);
        return;
    }
    check(s.phases == ceil_div(k, g->block_k), "%s %ldx%ldx%ld: phases %ld, want %ld",
          g->name, m, n, k, s.phases, ceil_div(k, g->block_k));
    check(tb_anim_blocks(&s) == ceil_div(m, g->block_m) * ceil_div(n, g->block_n),
          "%s %ldx%ldx%ld: blocks %ld", g->name, m, n, k, tb_anim_blocks(&s));
    check(s.thr_y * s.thr_x * 1L == (long)(g->block_m / g->thread_m) * (g->block_n / g->thread_n),
          "%s: thread grid", g->name);

    long ap, bp, cs, wa, wb, wc, sa = 0, sb = 0, sc = 0;
    tb_anim_padding(&s, &ap, &bp, &cs);
    brute_padding(g, m, n, k, &wa, &wb, &wc);
    check(ap == wa && bp == wb && cs == wc,
          "%s %ldx%ldx%ld: zeros As %ld Bs %ld C %ld, brute force says %ld %ld %ld",
          g->name, m, n, k, ap, bp, cs, wa, wb, wc);
    /* Per tile, the counts add up to the same totals. */
    for (long by = 0; by < s.grid_y; by++)
        for (long bx = 0; bx < s.grid_x; bx++) {
            tb_anim_tile t;
            for (long p = 0; p < s.phases; p++) {
                tb_anim_tile_at(&s, bx, by, p, &t);
                sa += t.a_pad;
                sb += t.b_pad;
            }
            tb_anim_tile_at(&s, bx, by, -1, &t);
            sc += t.c_skip;
        }
    check(sa == ap && sb == bp && sc == cs, "%s %ldx%ldx%ld: per-tile sums %ld %ld %ld",
          g->name, m, n, k, sa, sb, sc);

    /* The default block touches a ragged edge whenever there is one. */
    long bx, by, ty, tx;
    tb_anim_default_block(&s, &bx, &by);
    tb_anim_tile t;
    tb_anim_tile_at(&s, bx, by, -1, &t);
    if (m % g->block_m || n % g->block_n)
        check(t.rows < g->block_m || t.cols < g->block_n, "%s %ldx%ldx%ld: default block (%ld,%ld) not ragged",
              g->name, m, n, k, bx, by);
    check(bx >= 0 && bx < s.grid_x && by >= 0 && by < s.grid_y, "default block in range");
    tb_anim_default_thread(&s, bx, by, &ty, &tx);
    check(t.row0 + ty * g->thread_m < m && t.col0 + tx * g->thread_n < n,
          "%s %ldx%ldx%ld: default thread (%ld,%ld) outside C", g->name, m, n, k, ty, tx);
}

static void test_known_values(void)
{
    tb_anim_sched s;
    char err[200];
    long ap, bp, cs;
    /* 40x40x40 with 16x16 tiles: 3x3 blocks, 3 phases; each of the 3 block
     * columns loads 3*48*48 elements of A, 40*40 of them real. */
    check(tb_anim_sched_init(&s, &tb_test_kernels[0], 40, 40, 40, err, sizeof err) == 0, "init");
    tb_anim_padding(&s, &ap, &bp, &cs);
    check(s.grid_x == 3 && s.grid_y == 3 && s.phases == 3, "40^3 grid");
    check(ap == 2112 && bp == 2112 && cs == 48 * 48 - 1600, "40^3 zeros %ld %ld %ld", ap, bp, cs);
    check(tb_anim_sched_init(&s, &tb_test_kernels[0], 1, 1, 1, err, sizeof err) == 0, "init 1");
    tb_anim_padding(&s, &ap, &bp, &cs);
    check(ap == 255 && bp == 255 && cs == 255, "1^3 zeros %ld %ld %ld", ap, bp, cs);
    check(tb_anim_sched_init(&s, &tb_test_kernels[0], 16, 16, 16, err, sizeof err) == 0, "init 16");
    tb_anim_padding(&s, &ap, &bp, &cs);
    check(ap == 0 && bp == 0 && cs == 0, "16^3 has no zeros");

    tb_anim_geom bad = tb_test_kernels[2];
    bad.thread_m = 3;
    check(tb_anim_sched_init(&s, &bad, 8, 8, 8, err, sizeof err) != 0, "3 does not divide 128");
    check(tb_anim_sched_init(&s, &tb_test_kernels[0], 0, 8, 8, err, sizeof err) != 0, "m = 0 refused");
    check(tb_anim_sched_init(&s, &tb_test_kernels[0], 8, 8, 0, err, sizeof err) == 0 && s.phases == 0,
          "k = 0: no phases");
}

/* Reads a whole stream back into memory. */
static char *slurp(FILE *f)
{
    long n = ftell(f);
    char *buf = malloc((size_t)n + 1);
    rewind(f);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        return NULL;
    }
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Balanced tags: a stack of element names; comments, <?..?> and <!..>
 * skipped; quoted attribute values may hold '>'. Returns 0 when balanced. */
static int check_tags(const char *doc, char *why, size_t len)
{
    char stack[64][24];
    int depth = 0;
    for (const char *p = doc; (p = strchr(p, '<')) != NULL; ) {
        if (!strncmp(p, "<!--", 4)) { p = strstr(p, "-->"); if (!p) break; continue; }
        if (p[1] == '?' || p[1] == '!') { p = strchr(p, '>'); if (!p) break; continue; }
        int closing = p[1] == '/';
        const char *q = p + 1 + closing;
        char name[24];
        size_t n = 0;
        while (*q && !strchr(" \t\n/>", *q) && n + 1 < sizeof name)
            name[n++] = *q++;
        name[n] = '\0';
        char quote = 0;
        for (; *q && (quote || *q != '>'); q++)
            if (*q == '"' || *q == '\'')
                quote = quote == *q ? 0 : (quote ? quote : *q);
        if (!*q) { snprintf(why, len, "unterminated <%s", name); return -1; }
        int self = q[-1] == '/';
        if (closing) {
            if (depth == 0 || strcmp(stack[depth - 1], name) != 0) {
                snprintf(why, len, "</%s> closes <%s>", name, depth ? stack[depth - 1] : "(nothing)");
                return -1;
            }
            depth--;
        } else if (!self) {
            if (depth == 64) { snprintf(why, len, "too deep"); return -1; }
            snprintf(stack[depth++], sizeof stack[0], "%s", name);
        }
        p = q + 1;
    }
    if (depth) { snprintf(why, len, "<%s> never closed", stack[depth - 1]); return -1; }
    return 0;
}

static void make_view(tb_anim_view *v, const tb_anim_geom *g, long m, long n, long k,
                      const tb_trace_call *call)
{
    char err[200];
    memset(v, 0, sizeof *v);
    if (tb_anim_sched_init(&v->s, g, m, n, k, err, sizeof err) != 0) {
        check(0, "make_view: %s", err);
        exit(1);
    }
    tb_anim_default_block(&v->s, &v->bx, &v->by);
    tb_anim_default_thread(&v->s, v->bx, v->by, &v->ty, &v->tx);
    v->call = call;
    tb_anim_build_steps(v);
}

static void test_svg(const tb_anim_geom *g, long m, long n, long k, const char *const *labels)
{
    tb_anim_view v;
    make_view(&v, g, m, n, k, NULL);
    long shown[8];
    int loads = 0, want = tb_anim_shown_phases(v.s.phases, shown, 8);
    for (int i = 0; i < v.nsteps; i++)
        loads += v.steps[i].kind == TB_STEP_LOAD;
    check(loads == want, "%s %ldx%ldx%ld: %d load steps, want %d", g->name, m, n, k, loads, want);
    check(v.nsteps > 0 && v.nsteps < TB_ANIM_MAX_STEPS, "step count %d", v.nsteps);

    FILE *f = tmpfile();
    if (!f) { check(0, "tmpfile"); return; }
    check(tb_anim_write_svg(f, &v, 1, "") == 0, "write_svg");
    char *doc = slurp(f);
    fclose(f);
    if (!doc) { check(0, "read back"); return; }
    char why[128];
    check(check_tags(doc, why, sizeof why) == 0, "%s %ldx%ldx%ld: SVG tags: %s", g->name, m, n, k, why);
    for (int i = 0; labels[i]; i++)
        check(strstr(doc, labels[i]) != NULL, "%s %ldx%ldx%ld: SVG lacks \"%s\"", g->name, m, n, k, labels[i]);
    check(strlen(doc) < 4u << 20, "%s %ldx%ldx%ld: SVG is %zu bytes", g->name, m, n, k, strlen(doc));
    free(doc);
}

static void test_svgs(void)
{
    static const char *const seed[] = {
        "<svg", "blockIdx", "threadIdx", "phase 0", "barrier 1: all loads done",
        "barrier 2: all reads done", "<set ", "<animate ", "clk.begin", "hatch", NULL};
    static const char *const ragged[] = {">0<", "zero padding", "outside C", NULL};
    static const char *const blocked[] = {"warp ", ": 64x32", "micro-tile", "8x8", "128x16", NULL};
    static const char *const big[] = {"tiles are grouped", "phases 3..510", NULL};
    long sizes[][3] = {{1, 1, 1}, {16, 16, 16}, {17, 33, 40}, {40, 40, 40}, {100, 7, 300}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int kk = 0; kk < TB_TEST_NKERNELS; kk++)
            test_svg(&tb_test_kernels[kk], sizes[i][0], sizes[i][1], sizes[i][2], seed);
    test_svg(&tb_test_kernels[0], 40, 40, 40, ragged);
    test_svg(&tb_test_kernels[2], 300, 200, 100, blocked);
    test_svg(&tb_test_kernels[0], 8192, 8192, 8192, big);
}

static void test_trace(void)
{
    tb_trace_call c;
    check(tb_trace_parse_line("{\"m\":3,\"n\":4,\"k\":5,\"route\":\"GPU\",\"reason\":\"big \\\"enough\\\"\","
                              "\"transa\":112,\"layout\":102,\"x\":{\"y\":[1,\"}\"]},\"h2d_s\":1e-3}", &c) == 0,
          "parse a flat line with a nested value");
    check(c.m == 3 && c.n == 4 && c.k == 5 && !strcmp(c.route, "gpu") && !strcmp(c.transa, "T") &&
          !strcmp(c.layout, "col-major") && !strcmp(c.reason, "big \"enough\"") && c.h2d_s == 1e-3,
          "parsed fields");
    check(tb_trace_parse_line("not json", &c) != 0, "garbage refused");
    check(tb_trace_parse_line("{\"m\":1,\"n\":2}", &c) != 0, "no k: not a call");
    check(tb_trace_parse_line("{\"m\":1,\"n\":2,\"k\":3,", &c) != 0, "truncated line refused");
    check(tb_trace_parse_line("{\"m\":1,\"n\":2,\"k\":3,\"route\":\"cpu\",\"on\":true,\"z\":null}", &c) == 0 &&
          !strcmp(c.route, "cpu"), "booleans and null");

    char path[] = "/tmp/tb_trace_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) { check(0, "mkstemp"); return; }
    fprintf(f, "{\"m\":64,\"n\":64,\"k\":64,\"route\":\"cpu\",\"reason\":\"too small\"}\n\n"
               "{broken\n"
               "{\"m\":1000,\"n\":700,\"k\":300,\"route\":\"gpu\",\"kernel\":\"tiled16\",\"kernel_s\":0.002}\n");
    fclose(f);
    int skipped;
    char err[300];
    check(tb_trace_read(path, 0, &c, &skipped, err, sizeof err) == 0 && c.index == 2 && c.m == 1000 &&
          skipped == 1, "which = 0 picks the first GPU call");
    check(tb_trace_read(path, 1, &c, &skipped, err, sizeof err) == 0 && !strcmp(c.route, "cpu") &&
          !strcmp(c.reason, "too small"), "call 1 is the CPU one");
    check(tb_trace_read(path, 3, &c, &skipped, err, sizeof err) != 0 && strstr(err, "2 calls"),
          "call 3 does not exist: %s", err);
    check(tb_trace_read("/nonexistent/trace", 1, &c, &skipped, err, sizeof err) != 0, "missing file");

    /* A traced GPU call adds the route, buffers and transfer steps. */
    tb_trace_read(path, 2, &c, &skipped, err, sizeof err);
    tb_anim_view v;
    make_view(&v, &tb_test_kernels[0], c.m, c.n, c.k, &c);
    check(v.steps[0].kind == TB_STEP_ROUTE && v.steps[v.nsteps - 1].kind == TB_STEP_D2H, "gpu trace steps");
    tb_trace_read(path, 1, &c, &skipped, err, sizeof err);
    make_view(&v, &tb_test_kernels[0], c.m, c.n, c.k, &c);
    check(v.steps[v.nsteps - 1].kind == TB_STEP_CPU, "cpu trace steps");
    FILE *h = tmpfile();
    if (h) {
        check(tb_anim_write_html(h, &v, 1, 0) == 0, "cpu html");
        char *doc = slurp(h);
        check(doc && strstr(doc, "ran on the CPU") && strstr(doc, "too small"), "cpu page says so and why");
        free(doc);
        fclose(h);
    }
    remove(path);
}

static void test_html(void)
{
    tb_anim_view views[TB_TEST_NKERNELS];
    for (int i = 0; i < TB_TEST_NKERNELS; i++)
        make_view(&views[i], &tb_test_kernels[i], 40, 40, 40, NULL);
    FILE *f = tmpfile();
    if (!f) { check(0, "tmpfile"); return; }
    check(tb_anim_write_html(f, views, TB_TEST_NKERNELS, 0) == 0, "write_html");
    char *doc = slurp(f);
    fclose(f);
    if (!doc) { check(0, "read back"); return; }
    int options = 0;
    for (const char *p = doc; (p = strstr(p, "<option")) != NULL; p++)
        options++;
    check(options == TB_TEST_NKERNELS, "%d <option>s, want %d", options, TB_TEST_NKERNELS);
    const char *need[] = {"<select id=\"kernel\"", "id=\"play\"", "id=\"prev\"", "id=\"next\"",
                          "id=\"counter\"", "setCurrentTime", "\"steps\":[", "k1_hatch", "warptile", NULL};
    for (int i = 0; need[i]; i++)
        check(strstr(doc, need[i]) != NULL, "page lacks %s", need[i]);
    check(!strstr(doc, "<script src") && !strstr(doc, "<link") && !strstr(doc, "src=\"http"),
          "page loads nothing from outside");
    free(doc);
}

int main(void)
{
    long sizes[][3] = {{1, 1, 1}, {16, 16, 16}, {17, 33, 40}, {40, 40, 40}, {100, 7, 300},
                       {129, 255, 9}, {8, 300, 0}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int kk = 0; kk < TB_TEST_NKERNELS; kk++)
            test_schedule(&tb_test_kernels[kk], sizes[i][0], sizes[i][1], sizes[i][2]);
    test_known_values();
    test_svgs();
    test_trace();
    test_html();
    if (failures) {
        fprintf(stderr, "test_animate: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_animate: all checks passed\n");
    return 0;
}
