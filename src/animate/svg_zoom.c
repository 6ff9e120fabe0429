/* src/animate/svg_zoom.c - the zoom on the followed block: its shared-memory
 * tiles As and Bs phase by phase, the two barriers, the followed thread's
 * sweep over p and running sum, warp and micro-tile outlines, and the block's
 * tile of C written at the end. Layout comes from svg.c (tb_layout). */
#include "svg.h"

#include <math.h>
#include <stdio.h>

/* Grid lines every `step` elements, when they are at least 4 px apart. */
static void tb_zoom_grid(tb_svg *g, double t0, double x, double y, double w, double h,
                         double sx, double sy, long nx, long ny, long stepx, long stepy)
{
    const char *st = "stroke=\"#c3c8d0\" stroke-width=\"0.6\"";
    double T = g->total + 1;
    if (stepx * sx >= 4)
        for (long j = stepx; j < nx; j += stepx)
            tb_svg_line(g, t0, T, x + j * sx, y, x + j * sx, y + h, st);
    if (stepy * sy >= 4)
        for (long i = stepy; i < ny; i += stepy)
            tb_svg_line(g, t0, T, x, y + i * sy, x + w, y + i * sy, st);
}

static void tb_zoom_frame(tb_svg *g, const tb_anim_view *v, const tb_layout *L, double t0)
{
    const tb_anim_geom *G = &v->s.g;
    double T = g->total + 1;
    double aw = G->block_k * L->zk, ah = G->block_m * L->zm;
    double bw = G->block_n * L->zn, bh = G->block_k * L->zk;
    const char *mu = "font-size=\"12\" fill=\"" TB_COL_MUTED "\"";
    const char *nm = "font-size=\"13\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\"";

    tb_svg_text(g, -1, -1, L->zax - 46, L->top + 8,
                "font-size=\"14\" font-weight=\"bold\" fill=\"" TB_COL_BLK "\"",
                "inside blockIdx (%ld,%ld): shared memory and the block's sums", v->bx, v->by);
    tb_svg_rect(g, t0, T, L->zax, L->zay, aw, ah, "fill=\"white\" stroke=\"" TB_COL_A "\" stroke-width=\"1.5\"");
    tb_svg_rect(g, t0, T, L->zbx, L->zby, bw, bh, "fill=\"white\" stroke=\"" TB_COL_B "\" stroke-width=\"1.5\"");
    tb_svg_rect(g, t0, T, L->zcx, L->zcy, bw, ah, "fill=\"" TB_COL_C_LT "\" stroke=\"" TB_COL_BLK "\" stroke-width=\"2\"");
    tb_svg_text(g, t0, T, L->zax - 4, L->zay - 6, nm, "As");
    tb_svg_text(g, t0, T, L->zax - 4, L->zay - 20, mu, "%dx%d", G->block_m, G->block_k);
    tb_svg_text(g, t0, T, L->zbx - 6, L->zby + 13, "font-size=\"13\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\" text-anchor=\"end\"", "Bs");
    tb_svg_text(g, t0, T, L->zbx - 6, L->zby + 27, "font-size=\"12\" fill=\"" TB_COL_MUTED "\" text-anchor=\"end\"",
                "%dx%d", G->block_k, G->block_n);
    tb_svg_text(g, t0, T, L->zcx, L->zcy + ah + 16, mu,
                "C tile %dx%d: the running sums", G->block_m, G->block_n);
    long tm = G->thread_m, tn = G->thread_n;
    tb_zoom_grid(g, t0, L->zax, L->zay, aw, ah, L->zk, L->zm, G->block_k, G->block_m, 1, tm);
    tb_zoom_grid(g, t0, L->zbx, L->zby, bw, bh, L->zn, L->zk, G->block_n, G->block_k, tn, 1);
    tb_zoom_grid(g, t0, L->zcx, L->zcy, bw, ah, L->zn, L->zm, G->block_n, G->block_m, tn, tm);
}

/* Warp tiles (when the kernel tiles warps) and the followed thread's
 * micro-tile, its rows of As and its columns of Bs. */
static void tb_zoom_thread(tb_svg *g, const tb_anim_view *v, const tb_layout *L, double t0)
{
    const tb_anim_geom *G = &v->s.g;
    double T = g->total + 1;
    char st[160];
    double mx = L->zcx + v->tx * G->thread_n * L->zn, my = L->zcy + v->ty * G->thread_m * L->zm;
    double mw = fmax(G->thread_n * L->zn, 2), mh = fmax(G->thread_m * L->zm, 2);
    if (G->warp_m > 0) {
        long wy = v->ty * G->thread_m / G->warp_m, wx = v->tx * G->thread_n / G->warp_n;
        long wpr = G->block_n / G->warp_n;
        tb_svg_rect(g, t0, T, L->zcx + wx * G->warp_n * L->zn, L->zcy + wy * G->warp_m * L->zm,
                    G->warp_n * L->zn, G->warp_m * L->zm,
                    "fill=\"" TB_COL_BLK "\" fill-opacity=\"0.16\"");
        for (long i = 0; i < G->block_m / G->warp_m; i++)
            for (long j = 0; j < wpr; j++)
                tb_svg_rect(g, t0, T, L->zcx + j * G->warp_n * L->zn, L->zcy + i * G->warp_m * L->zm,
                            G->warp_n * L->zn, G->warp_m * L->zm,
                            "fill=\"none\" stroke=\"" TB_COL_BLK "\" stroke-width=\"2\" stroke-dasharray=\"6 3\"");
        tb_svg_text(g, t0, T, L->zcx + wx * G->warp_n * L->zn + 4, L->zcy + wy * G->warp_m * L->zm + 14,
                    "font-size=\"12\" font-weight=\"bold\" fill=\"" TB_COL_BLK "\"",
                    "warp %ld: %dx%d", wy * wpr + wx, G->warp_m, G->warp_n);
    }
    snprintf(st, sizeof st, "fill=\"%s\" stroke=\"%s\" stroke-width=\"1\"", TB_COL_THR, TB_COL_THR);
    tb_svg_rect(g, t0, T, mx, my, mw, mh, st);
    snprintf(st, sizeof st, "fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", TB_COL_THR);
    tb_svg_rect(g, t0, T, L->zax, my, G->block_k * L->zk, mh, st);
    tb_svg_rect(g, t0, T, mx, L->zby, mw, G->block_k * L->zk, st);
    /* The label goes on the side of the micro-tile with more room. */
    int right = mx - L->zcx < G->block_n * L->zn / 2;
    snprintf(st, sizeof st, "font-size=\"12\" font-weight=\"bold\" fill=\"%s\" text-anchor=\"%s\" "
             "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"", TB_COL_THR, right ? "start" : "end");
    if (G->thread_m == 1 && G->thread_n == 1)
        tb_svg_text(g, t0, T, right ? mx + mw + 4 : mx - 4, my + mh / 2 + 4, st,
                    "thread (ty=%ld, tx=%ld)", v->ty, v->tx);
    else
        tb_svg_text(g, t0, T, right ? mx + mw + 4 : mx - 4, my + mh / 2 + 4, st,
                    "thread (%ld,%ld): %dx%d micro-tile", v->ty, v->tx, G->thread_m, G->thread_n);
}

/* The compute step: p sweeps 0..block_k-1; the marker moves along the
 * thread's rows of As and columns of Bs, and a line says what is added. */
static void tb_zoom_sweep(tb_svg *g, const tb_anim_view *v, const tb_layout *L, long ph)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *G = &s->g;
    const tb_anim_step *c = tb_find_step(v, TB_STEP_COMPUTE, ph);
    if (!c)
        return;
    tb_anim_tile t;
    tb_anim_tile_at(s, v->bx, v->by, ph, &t);
    long bk = G->block_k, row = t.row0 + v->ty * G->thread_m, col = t.col0 + v->tx * G->thread_n;
    double my = L->zcy + v->ty * G->thread_m * L->zm, mx = L->zcx + v->tx * G->thread_n * L->zn;
    double dt = c->dur / bk, T1 = c->t0 + c->dur;
    char b[64];

    /* Two markers driven by discrete animations of x (As) and y (Bs). */
    tb_svg_printf(g, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                  "stroke=\"black\" stroke-width=\"1.5\" visibility=\"hidden\">",
                  L->zax, my, L->zk, fmax(G->thread_m * L->zm, 2), TB_COL_THR);
    tb_svg_window(g, c->t0, T1);
    tb_svg_printf(g, "<animate attributeName=\"x\" calcMode=\"discrete\" begin=\"%s\" dur=\"%.3fs\" "
                  "fill=\"freeze\" values=\"", tb_svg_begin(g, c->t0, b, sizeof b), c->dur);
    for (long p = 0; p < bk; p++)
        tb_svg_printf(g, "%s%.1f", p ? ";" : "", L->zax + p * L->zk);
    tb_svg_printf(g, "\"/></rect>\n");
    tb_svg_printf(g, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                  "stroke=\"black\" stroke-width=\"1.5\" visibility=\"hidden\">",
                  mx, L->zby, fmax(G->thread_n * L->zn, 2), L->zk, TB_COL_THR);
    tb_svg_window(g, c->t0, T1);
    tb_svg_printf(g, "<animate attributeName=\"y\" calcMode=\"discrete\" begin=\"%s\" dur=\"%.3fs\" "
                  "fill=\"freeze\" values=\"", tb_svg_begin(g, c->t0, b, sizeof b), c->dur);
    for (long p = 0; p < bk; p++)
        tb_svg_printf(g, "%s%.1f", p ? ";" : "", L->zby + p * L->zk);
    tb_svg_printf(g, "\"/></rect>\n");

    const char *st = "font-size=\"13\" fill=\"" TB_COL_TEXT "\"";
    double y = L->top + 554;
    for (long p = 0; p < bk; p++) {
        double a0 = c->t0 + p * dt, a1 = (p == bk - 1) ? T1 : a0 + dt;
        long kk = t.k0 + p;
        int outside = kk >= s->k || row >= s->m || col >= s->n;
        char prod[96];
        snprintf(prod, sizeof prod, "A[%ld][%ld] * B[%ld][%ld]", row, kk, kk, col);
        if (G->thread_m == 1 && G->thread_n == 1)
            tb_svg_text(g, a0, a1, L->zax - 46, y, st,
                        "p = %ld:  sum += As[%ld][%ld] * Bs[%ld][%ld]  =  %s", p, v->ty, p, p, v->tx,
                        outside ? "0 (a padded zero)" : prod);
        else
            tb_svg_text(g, a0, a1, L->zax - 46, y, st,
                        "p = %ld:  %dx%d sums += column p of its As rows x row p of its Bs columns%s",
                        p, G->thread_m, G->thread_n, kk >= s->k ? "  (zeros: k past K)" : "");
    }
    /* After the sweep: what the running sum holds. */
    const tb_anim_step *b2 = tb_find_step(v, TB_STEP_BARRIER2, ph);
    long klast = t.k0 + bk - 1 < s->k - 1 ? t.k0 + bk - 1 : s->k - 1;
    if (b2)
        tb_svg_text(g, b2->t0, b2->t0 + b2->dur, L->zax - 46, y, "font-size=\"13\" font-weight=\"bold\" fill=\"" TB_COL_THR "\"",
                    "running sum of thread (%ld,%ld) now covers k = 0..%ld of %ld", v->ty, v->tx, klast, s->k);
}

static void tb_zoom_barrier(tb_svg *g, const tb_anim_view *v, const tb_layout *L, long ph, int which)
{
    const tb_anim_step *b = tb_find_step(v, which == 1 ? TB_STEP_BARRIER1 : TB_STEP_BARRIER2, ph);
    if (!b)
        return;
    double t0 = b->t0, t1 = b->t0 + b->dur;
    double x = L->zax - 46, y = L->zby, w = 1190 - x, mid = L->zay - 7;
    tb_svg_rect(g, t0, t1, x, y, w, L->top + 520 - y, "fill=\"white\" fill-opacity=\"0.45\"");
    tb_svg_rect(g, t0, t1, x, mid - 5, w, 10, "fill=\"#0b3d91\"");
    tb_svg_rect(g, t0, t1, x + 10, mid + 10, w - 20, 62, "fill=\"white\" stroke=\"#0b3d91\" stroke-width=\"2\" rx=\"6\"");
    tb_svg_text(g, t0, t1, x + w / 2, mid + 36,
                "font-size=\"20\" font-weight=\"bold\" fill=\"#0b3d91\" text-anchor=\"middle\"",
                which == 1 ? "barrier 1: all loads done" : "barrier 2: all reads done");
    tb_svg_text(g, t0, t1, x + w / 2, mid + 59,
                "font-size=\"12\" fill=\"" TB_COL_TEXT "\" text-anchor=\"middle\"",
                which == 1 ? "__syncthreads(): nobody reads As, Bs until every thread has stored its part"
                           : "__syncthreads(): nobody overwrites As, Bs until every thread has read them");
}

static void tb_zoom_phase(tb_svg *g, const tb_anim_view *v, const tb_layout *L, long ph)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *G = &s->g;
    tb_anim_tile t;
    tb_anim_tile_at(s, v->bx, v->by, ph, &t);
    double t0 = tb_step_t0(v, TB_STEP_LOAD, ph) + 1.4, t1 = tb_step_t1(v, TB_STEP_BARRIER2, ph);
    long bk = G->block_k;
    tb_svg_tile(g, t0, t1, L->zax, L->zay, bk * L->zk, G->block_m * L->zm,
                t.ks * L->zk, t.rows * L->zm, TB_COL_A);
    tb_svg_tile(g, t0, t1, L->zbx, L->zby, G->block_n * L->zn, bk * L->zk,
                t.cols * L->zn, t.ks * L->zk, TB_COL_B);
    const char *st = "font-size=\"12\" fill=\"" TB_COL_TEXT "\"";
    tb_svg_text(g, t0, t1, L->zax - 46, L->top + 24, st,
                "As = A[%ld..%ld][%ld..%ld]   Bs = B[%ld..%ld][%ld..%ld]   (phase %ld)",
                t.row0, t.row0 + G->block_m - 1, t.k0, t.k0 + bk - 1, t.k0, t.k0 + bk - 1,
                t.col0, t.col0 + G->block_n - 1, ph);
    if (G->thread_m == 1 && G->thread_n == 1 && G->block_m == bk && G->block_n == bk) {
        /* The seed: thread (ty, tx) stores As[ty][tx] and Bs[ty][tx]. */
        double l0 = tb_step_t0(v, TB_STEP_LOAD, ph) + 1.4, l1 = tb_step_t1(v, TB_STEP_LOAD, ph);
        long ar = t.row0 + v->ty, ak = t.k0 + v->tx, bkk = t.k0 + v->ty, bc = t.col0 + v->tx;
        const char *dot = "fill=\"" TB_COL_THR "\" stroke=\"white\" stroke-width=\"1\"";
        tb_svg_rect(g, l0, l1, L->zax + v->tx * L->zk, L->zay + v->ty * L->zm, L->zk, L->zm, dot);
        tb_svg_rect(g, l0, l1, L->zbx + v->tx * L->zn, L->zby + v->ty * L->zk, L->zn, L->zk, dot);
        char a[48], bb[48];
        if (ar < s->m && ak < s->k) snprintf(a, sizeof a, "A[%ld][%ld]", ar, ak);
        else snprintf(a, sizeof a, "0 (outside A)");
        if (bkk < s->k && bc < s->n) snprintf(bb, sizeof bb, "B[%ld][%ld]", bkk, bc);
        else snprintf(bb, sizeof bb, "0 (outside B)");
        tb_svg_text(g, tb_step_t0(v, TB_STEP_LOAD, ph), l1, L->zax - 46, L->top + 554,
                    "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "one element each: thread (%ld,%ld) loads As[%ld][%ld] = %s, Bs[%ld][%ld] = %s",
                    v->ty, v->tx, v->ty, v->tx, a, v->ty, v->tx, bb);
    } else {
        tb_svg_text(g, tb_step_t0(v, TB_STEP_LOAD, ph), tb_step_t1(v, TB_STEP_LOAD, ph),
                    L->zax - 46, L->top + 554, "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "the block's %d threads copy the two tiles together; %ld + %ld of the elements are zeros",
                    G->threads, t.a_pad, t.b_pad);
    }
    tb_zoom_barrier(g, v, L, ph, 1);
    tb_zoom_sweep(g, v, L, ph);
    tb_zoom_barrier(g, v, L, ph, 2);
}

static void tb_zoom_write(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_anim_step *w = tb_find_step(v, TB_STEP_WRITE, -1);
    if (!w)
        return;
    const tb_anim_geom *G = &v->s.g;
    tb_anim_tile t;
    tb_anim_tile_at(&v->s, v->bx, v->by, -1, &t);
    double T = g->total + 1;
    tb_svg_tile(g, w->t0, T, L->zcx, L->zcy, G->block_n * L->zn, G->block_m * L->zm,
                t.cols * L->zn, t.rows * L->zm, TB_COL_C);
    if (t.c_skip > 0)
        tb_svg_text(g, w->t0, T, L->zax - 46, L->top + 554, "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "hatched: %ld sums of elements outside C, computed from zeros and never stored", t.c_skip);
}

void tb_svg_zoom(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    double t0 = tb_step_t0(v, TB_STEP_INTRO, -1);
    tb_zoom_frame(g, v, L, t0);
    const tb_anim_step *first = tb_find_step(v, TB_STEP_LOAD, -1);
    if (first)
        tb_svg_text(g, t0, first->t0 + 1.4, L->zax + 4, L->zay + 20,
                    "font-size=\"12\" fill=\"" TB_COL_MUTED "\"", "empty until phase 0 loads");
    long shown[8];
    int n = tb_anim_shown_phases(v->s.phases, shown, 8);
    for (int i = 0; i < n; i++)
        tb_zoom_phase(g, v, L, shown[i]);
    const tb_anim_step *sk = tb_find_step(v, TB_STEP_SKIP, -1);
    if (sk)
        tb_svg_text(g, sk->t0, sk->t0 + sk->dur, L->zax - 46, L->top + 554,
                    "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "%s: load, barrier 1, sum, barrier 2, each time one tile further along K", sk->label);
    tb_zoom_write(g, v, L);
    tb_zoom_thread(g, v, L, t0);
}
