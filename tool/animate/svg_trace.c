/* tool/animate/svg_trace.c - the panel shown for `animate --trace`: the call
 * as recorded, the route and its reason, a timeline of the measured times
 * (transfers, kernel) and the host buffers with their pitch (ld) against the
 * width actually copied. Draws only what the trace line says. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TB_PANEL_Y 96.0

/* How an operand lies in host memory: `lines` rows (or columns, for
 * column-major) of `width` floats, `pitch` floats apart. */
typedef struct tb_buf {
    const char *name;
    long lines, width, pitch;
} tb_buf;

static void tb_buffers(const tb_trace_call *c, tb_buf b[3])
{
    int col = strcmp(c->layout, "col-major") == 0;
    int ta = c->transa[0] != 'N', tbt = c->transb[0] != 'N';
    /* Row-major A (m x k): m rows of k; transposed: k rows of m. Column-major
     * swaps the roles of lines and width. */
    long am = ta ? c->k : c->m, ak = ta ? c->m : c->k;
    long bk = tbt ? c->n : c->k, bn = tbt ? c->k : c->n;
    b[0] = (tb_buf){"A", col ? ak : am, col ? am : ak, c->lda};
    b[1] = (tb_buf){"B", col ? bn : bk, col ? bk : bn, c->ldb};
    b[2] = (tb_buf){"C", col ? c->n : c->m, col ? c->m : c->n, c->ldc};
    for (int i = 0; i < 3; i++)
        if (!(c->have & TB_TR_LD) || b[i].pitch < b[i].width)
            b[i].pitch = b[i].width;
}

static void tb_draw_buffers(tb_svg *g, const tb_anim_view *v, double t0, double t1)
{
    const tb_trace_call *c = v->call;
    tb_buf b[3];
    tb_buffers(c, b);
    int col = strcmp(c->layout, "col-major") == 0;
    const char *fill[3] = {TB_COL_A, TB_COL_B, TB_COL_C};
    double maxp = 1;
    for (int i = 0; i < 3; i++)
        maxp = fmax(maxp, (double)b[i].pitch);
    double x = 660, y = TB_PANEL_Y + 20, wmax = 500;
    const char *st = "font-size=\"12\" fill=\"" TB_COL_TEXT "\"";
    tb_svg_text(g, -1, -1, x, y, "font-size=\"13\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\"",
                "host buffers: pitch (ld) vs width copied, in floats");
    tb_svg_rect(g, t0, t1, x - 8, y - 16, 528, 150, "fill=\"none\" stroke=\"#0b3d91\" stroke-width=\"2.5\" rx=\"6\"");
    for (int i = 0; i < 3; i++) {
        double yy = y + 14 + i * 44, pw = fmax(wmax * b[i].pitch / maxp, 30);
        double ww = pw * b[i].width / (double)b[i].pitch;
        char s[96];
        tb_svg_text(g, -1, -1, x, yy + 11, st, "%s: %ld %s of %ld, ld = %ld%s", b[i].name, b[i].lines,
                    col ? "columns" : "rows", b[i].width, b[i].pitch,
                    b[i].pitch > b[i].width ? "  (hatched: skipped by the copy)" : "  (packed)");
        snprintf(s, sizeof s, "fill=\"url(#%shatch)\" stroke=\"#888\"", g->idp);
        tb_svg_rect(g, -1, -1, x, yy + 16, pw, 18, s);
        tb_svg_rect(g, -1, -1, x, yy + 16, ww, 18, "fill=\"white\"");
        snprintf(s, sizeof s, "fill=\"%s\" fill-opacity=\"0.7\"", fill[i]);
        tb_svg_rect(g, -1, -1, x, yy + 16, ww, 18, s);
    }
}

/* One timeline segment: outline always, filled while (and after) its step. */
static void tb_segment(tb_svg *g, double x, double y, double w, const char *col,
                       double f0, double f1, const char *label, int low)
{
    char st[128], b[64];
    snprintf(st, sizeof st, "fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\"", col);
    tb_svg_rect(g, -1, -1, x, y, w, 26, st);
    if (f0 >= 0) {
        tb_svg_open(g, "rect", f0, g->total + 1, "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"26\" "
                    "fill=\"%s\" fill-opacity=\"0.75\"", x, y, w, col);
        tb_svg_printf(g, "<animate attributeName=\"width\" from=\"0\" to=\"%.1f\" begin=\"%s\" "
                      "dur=\"%.3fs\" fill=\"freeze\"/>", w, tb_svg_begin(g, f0, b, sizeof b),
                      f1 - f0 > 0.05 ? f1 - f0 : 0.05);
        tb_svg_close(g, "rect");
    }
    /* Labels of neighbours alternate between two rows so they never meet. */
    tb_svg_line(g, -1, -1, x + w / 2, y + 26, x + w / 2, y + (low ? 48 : 34), "stroke=\"#9aa3af\"");
    tb_svg_text(g, -1, -1, x + w / 2, y + (low ? 60 : 44),
                "font-size=\"11\" fill=\"" TB_COL_TEXT "\" text-anchor=\"middle\"", "%s", label);
}

void tb_svg_trace_panel(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_trace_call *c = v->call;
    int gpu = strcmp(c->route, "gpu") == 0;
    double y = TB_PANEL_Y;
    const char *st = "font-size=\"13\" fill=\"" TB_COL_TEXT "\"";
    tb_svg_rect(g, -1, -1, 10, y, L->W - 20, TB_TRACE_PANEL_H - 10, "fill=\"#f7f8fa\" stroke=\"#d5d9e0\" rx=\"8\"");
    tb_svg_text(g, -1, -1, 24, y + 20, "font-size=\"13\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\"",
                "traced call #%d: %s, %s, transa=%s transb=%s", c->index, c->api[0] ? c->api : "sgemm",
                c->layout, c->transa, c->transb);
    tb_svg_text(g, -1, -1, 24, y + 39, st, "m=%ld n=%ld k=%ld  lda=%ld ldb=%ld ldc=%ld  alpha=%g beta=%g  thread %ld",
                c->m, c->n, c->k, c->lda, c->ldb, c->ldc, c->alpha, c->beta, c->thread);

    /* Route badge, lit during the route step. */
    double tr0 = tb_step_t0(v, TB_STEP_ROUTE, -1), tr1 = tb_step_t1(v, TB_STEP_ROUTE, -1);
    tb_svg_rect(g, -1, -1, 24, y + 50, 64, 26, gpu ? "fill=\"" TB_COL_C "\" rx=\"5\"" : "fill=\"" TB_COL_B "\" rx=\"5\"");
    tb_svg_rect(g, tr0, tr1, 20, y + 46, 72, 34, "fill=\"none\" stroke=\"#0b3d91\" stroke-width=\"3\" rx=\"7\"");
    tb_svg_text(g, -1, -1, 56, y + 68, "font-size=\"15\" font-weight=\"bold\" fill=\"white\" text-anchor=\"middle\"",
                "%s", gpu ? "GPU" : "CPU");
    tb_svg_text(g, -1, -1, 98, y + 68, st, "why: %s", c->reason[0] ? c->reason : "(no reason recorded)");

    /* Timeline: widths follow the measured seconds, at least 56 px each. */
    double h2d = c->h2d_s, ker = c->kernel_s, d2h = c->d2h_s;
    double other = c->seconds - (gpu ? h2d + ker + d2h : 0);
    if (other < 0) other = 0;
    double tot = gpu ? other + h2d + ker + d2h : c->seconds, W = 600, x = 24, ty = y + 100;
    if (tot <= 0) tot = 1;
    char lab[96];
    tb_svg_text(g, -1, -1, 24, ty - 6, "font-size=\"12\" fill=\"" TB_COL_MUTED "\"",
                "timeline of the call: %.3f ms in all (segments to scale, but at least 64 px wide)",
                c->seconds * 1e3);
    if (!gpu) {
        snprintf(lab, sizeof lab, "real BLAS on the CPU: %.3f ms", c->seconds * 1e3);
        tb_segment(g, x, ty, W, TB_COL_B, tr0, tr1, lab, 0);
    } else {
        double parts[4] = {other, h2d, ker, d2h};
        const char *cols[4] = {"#7f8c8d", TB_COL_A, TB_COL_BLK, TB_COL_C};
        const char *names[4] = {"other", "H2D", "kernel", "D2H"};
        double f0[4] = {tr0, tb_step_t0(v, TB_STEP_H2D, -1), tb_step_t0(v, TB_STEP_INTRO, -1),
                        tb_step_t0(v, TB_STEP_D2H, -1)};
        double f1[4] = {tr1, tb_step_t1(v, TB_STEP_H2D, -1), tb_step_t1(v, TB_STEP_WRITE, -1),
                        tb_step_t1(v, TB_STEP_D2H, -1)};
        double w[4], sum = 0;
        for (int i = 0; i < 4; i++)
            sum += (w[i] = fmax(64, W * parts[i] / tot));
        for (int i = 0; i < 4; i++) {
            double ww = w[i] * W / sum;
            snprintf(lab, sizeof lab, "%s %.3f ms", names[i], parts[i] * 1e3);
            tb_segment(g, x, ty, ww, cols[i], f0[i], f1[i], lab, i % 2);
            x += ww;
        }
        tb_svg_text(g, -1, -1, 24, ty + 82, st,
                    "bytes to the GPU %.0f, back %.0f; kernel %s: the tiles below ran in %.3f ms (%.1f GFLOP/s)",
                    c->bytes_h2d, c->bytes_d2h, c->kernel[0] ? c->kernel : v->s.g.name, ker * 1e3,
                    ker > 0 ? 2.0 * c->m * c->n * c->k / ker * 1e-9 : 0.0);
    }
    tb_draw_buffers(g, v, tb_step_t0(v, TB_STEP_BUFFERS, -1), tb_step_t1(v, TB_STEP_BUFFERS, -1));
}
