/* tool/animate/svg_zoom.c - the zoom on the followed block: its shared-memory
 * tiles As and Bs phase by phase, the two barriers, the followed thread's
 * sweep over p and running sum, warp and micro-tile outlines, and the block's
 * tile of C written at the end. Layout comes from svg.c (tb_layout). */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

    tb_svg_text(g, -1, -1, L->zax - 46, L->top + 8,
                "font-size=\"14\" font-weight=\"bold\" fill=\"" TB_COL_BLK "\"",
                "inside blockIdx (%ld,%ld): shared memory and the block's sums", v->bx, v->by);
    tb_svg_rect(g, t0, T, L->zax, L->zay, aw, ah, "fill=\"white\" stroke=\"" TB_COL_A "\" stroke-width=\"1.5\"");
    tb_svg_rect(g, t0, T, L->zbx, L->zby, bw, bh, "fill=\"white\" stroke=\"" TB_COL_B "\" stroke-width=\"1.5\"");
    tb_svg_rect(g, t0, T, L->zcx, L->zcy, bw, ah, "fill=\"" TB_COL_C_LT "\" stroke=\"" TB_COL_BLK "\" stroke-width=\"2\"");
    /* Both names sit left of their tiles, clear of the gap between Bs and
     * As, where the barriers draw their bar. */
    tb_svg_text(g, t0, T, L->zax - 6, L->zay + 13, "font-size=\"13\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\" text-anchor=\"end\"", "As");
    tb_svg_text(g, t0, T, L->zax - 6, L->zay + 27, "font-size=\"12\" fill=\"" TB_COL_MUTED "\" text-anchor=\"end\"",
                "%dx%d", G->block_m, G->block_k);
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

/* Where the followed thread's marks go in the zoom: its micro-tile of C,
 * its rows of As and columns of Bs, its label, and its warp's tile and
 * label. Worked out once, so that the tiles drawn earlier can keep their
 * "0" clear of them. */
typedef struct tb_marks {
    tb_box micro, rows, cols;        /* micro-tile, As rows, Bs columns       */
    double lx, ly;                   /* thread label: anchor point           */
    int right;                       /* ... text-anchor start (else end)     */
    char label[64];
    tb_box label_box;
    int warped;                      /* the kernel tiles warps               */
    long warp;                       /* the followed thread's warp           */
    tb_box warp_tile;
    double wlx, wly;                 /* warp label: start point              */
    char warp_label[48];
    tb_box warp_label_box;
} tb_marks;

static void tb_zoom_marks(const tb_anim_view *v, const tb_layout *L, tb_marks *k)
{
    const tb_anim_geom *G = &v->s.g;
    double mx = L->zcx + v->tx * G->thread_n * L->zn, my = L->zcy + v->ty * G->thread_m * L->zm;
    double mw = fmax(G->thread_n * L->zn, 2), mh = fmax(G->thread_m * L->zm, 2);
    memset(k, 0, sizeof *k);
    k->micro = (tb_box){mx, my, mw, mh};
    k->rows = (tb_box){L->zax, my, G->block_k * L->zk, mh};
    k->cols = (tb_box){mx, L->zby, mw, G->block_k * L->zk};
    /* The label goes on the side of the micro-tile with more room. */
    k->right = mx - L->zcx < G->block_n * L->zn / 2;
    k->lx = k->right ? mx + mw + 4 : mx - 4;
    k->ly = my + mh / 2 + 4;
    if (G->thread_m == 1 && G->thread_n == 1)
        snprintf(k->label, sizeof k->label, "thread (ty=%ld, tx=%ld)", v->ty, v->tx);
    else
        snprintf(k->label, sizeof k->label, "thread (%ld,%ld): %dx%d micro-tile", v->ty, v->tx,
                 G->thread_m, G->thread_n);
    k->label_box = tb_text_box(k->lx, k->ly, 12, 1, k->right ? 's' : 'e', k->label);
    if (G->warp_m > 0) {
        long wy = v->ty * G->thread_m / G->warp_m, wx = v->tx * G->thread_n / G->warp_n;
        k->warped = 1;
        k->warp = wy * (G->block_n / G->warp_n) + wx;
        k->warp_tile = (tb_box){L->zcx + wx * G->warp_n * L->zn, L->zcy + wy * G->warp_m * L->zm,
                                G->warp_n * L->zn, G->warp_m * L->zm};
        /* Its name goes in the warp's top row, or its bottom row when the
         * followed thread (its micro-tile and label) is up there. */
        k->wlx = k->warp_tile.x + 4;
        k->wly = my < k->warp_tile.y + 22 ? k->warp_tile.y + k->warp_tile.h - 6 : k->warp_tile.y + 14;
        snprintf(k->warp_label, sizeof k->warp_label, "warp %ld: %dx%d", k->warp, G->warp_m, G->warp_n);
        k->warp_label_box = tb_text_box(k->wlx, k->wly, 12, 1, 's', k->warp_label);
    }
}

/* The warp tiles (when the kernel tiles warps), the followed thread's one
 * shaded: under everything the phases and the write draw in the C tile. */
static void tb_zoom_warps(tb_svg *g, const tb_anim_view *v, const tb_layout *L, double t0,
                          const tb_marks *k)
{
    const tb_anim_geom *G = &v->s.g;
    double T = g->total + 1;
    if (!k->warped)
        return;
    tb_svg_rect(g, t0, T, k->warp_tile.x, k->warp_tile.y, k->warp_tile.w, k->warp_tile.h,
                "fill=\"" TB_COL_BLK "\" fill-opacity=\"0.16\"");
    for (long i = 0; i < G->block_m / G->warp_m; i++)
        for (long j = 0; j < G->block_n / G->warp_n; j++)
            tb_svg_rect(g, t0, T, L->zcx + j * G->warp_n * L->zn, L->zcy + i * G->warp_m * L->zm,
                        G->warp_n * L->zn, G->warp_m * L->zm,
                        "fill=\"none\" stroke=\"" TB_COL_BLK "\" stroke-width=\"2\" stroke-dasharray=\"6 3\"");
}

/* The followed thread's micro-tile, its rows of As and columns of Bs, and
 * the labels of the thread and its warp: on top of everything. */
static void tb_zoom_thread(tb_svg *g, double t0, const tb_marks *k)
{
    double T = g->total + 1;
    char st[200];
    if (k->warped)
        tb_svg_text(g, t0, T, k->wlx, k->wly, "font-size=\"12\" font-weight=\"bold\" fill=\"" TB_COL_BLK "\"",
                    "%s", k->warp_label);
    snprintf(st, sizeof st, "fill=\"%s\" stroke=\"%s\" stroke-width=\"1\"", TB_COL_THR, TB_COL_THR);
    tb_svg_rect(g, t0, T, k->micro.x, k->micro.y, k->micro.w, k->micro.h, st);
    snprintf(st, sizeof st, "fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", TB_COL_THR);
    tb_svg_rect(g, t0, T, k->rows.x, k->rows.y, k->rows.w, k->rows.h, st);
    tb_svg_rect(g, t0, T, k->cols.x, k->cols.y, k->cols.w, k->cols.h, st);
    snprintf(st, sizeof st, "font-size=\"12\" font-weight=\"bold\" fill=\"%s\" text-anchor=\"%s\" "
             "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"", TB_COL_THR,
             k->right ? "start" : "end");
    tb_svg_text(g, t0, T, k->lx, k->ly, st, "%s", k->label);
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
    double y = L->top + TB_ZOOM_LINE;
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
    const tb_anim_geom *G = &v->s.g;
    double t0 = b->t0, t1 = b->t0 + b->dur;
    /* The bar fills the gap between Bs and As (no text lies there); the
     * callout goes in its own band below the zoom (svg.h), so that it
     * covers neither the tiles, their labels nor the step's caption. */
    double x = L->zax - 46, w = 1190 - x, mid = L->zay - 7;
    double y = L->zay + G->block_m * L->zm + TB_CALLOUT_GAP;
    tb_svg_rect(g, t0, t1, x, mid - 5, w, 10, "fill=\"#0b3d91\"");
    tb_svg_rect(g, t0, t1, x + 10, y, w - 20, TB_CALLOUT_H, "fill=\"white\" stroke=\"#0b3d91\" stroke-width=\"2\" rx=\"6\"");
    tb_svg_text(g, t0, t1, x + w / 2, y + 21,
                "font-size=\"16\" font-weight=\"bold\" fill=\"#0b3d91\" text-anchor=\"middle\"",
                which == 1 ? "barrier 1: all loads done" : "barrier 2: all reads done");
    tb_svg_text(g, t0, t1, x + w / 2, y + 40,
                "font-size=\"12\" fill=\"" TB_COL_TEXT "\" text-anchor=\"middle\"",
                which == 1 ? "__syncthreads(): nobody reads As, Bs until every thread has stored its part"
                           : "__syncthreads(): nobody overwrites As, Bs until every thread has read them");
}

static void tb_zoom_phase(tb_svg *g, const tb_anim_view *v, const tb_layout *L, long ph,
                          const tb_marks *k)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *G = &s->g;
    tb_anim_tile t;
    tb_anim_tile_at(s, v->bx, v->by, ph, &t);
    double t0 = tb_step_t0(v, TB_STEP_LOAD, ph) + 1.4, t1 = tb_step_t1(v, TB_STEP_BARRIER2, ph);
    long bk = G->block_k;
    /* Drawn over the tiles later: the thread's rows of As and columns of
     * Bs (the sweep's markers run along them) and the seed's two dots. */
    tb_box dot_a = {L->zax + v->tx * L->zk, L->zay + v->ty * L->zm, L->zk, L->zm};
    tb_box dot_b = {L->zbx + v->tx * L->zn, L->zby + v->ty * L->zk, L->zn, L->zk};
    tb_box over_a[] = {k->rows, dot_a}, over_b[] = {k->cols, dot_b};
    tb_svg_tile(g, t0, t1, L->zax, L->zay, bk * L->zk, G->block_m * L->zm,
                t.ks * L->zk, t.rows * L->zm, TB_COL_A, over_a, 2);
    tb_svg_tile(g, t0, t1, L->zbx, L->zby, G->block_n * L->zn, bk * L->zk,
                t.cols * L->zn, t.ks * L->zk, TB_COL_B, over_b, 2);
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
        tb_svg_rect(g, l0, l1, dot_a.x, dot_a.y, dot_a.w, dot_a.h, dot);
        tb_svg_rect(g, l0, l1, dot_b.x, dot_b.y, dot_b.w, dot_b.h, dot);
        char a[48], bb[48];
        if (ar < s->m && ak < s->k) snprintf(a, sizeof a, "A[%ld][%ld]", ar, ak);
        else snprintf(a, sizeof a, "0 (outside A)");
        if (bkk < s->k && bc < s->n) snprintf(bb, sizeof bb, "B[%ld][%ld]", bkk, bc);
        else snprintf(bb, sizeof bb, "0 (outside B)");
        tb_svg_text(g, tb_step_t0(v, TB_STEP_LOAD, ph), l1, L->zax - 46, L->top + TB_ZOOM_LINE,
                    "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "one element each: thread (%ld,%ld) loads As[%ld][%ld] = %s, Bs[%ld][%ld] = %s",
                    v->ty, v->tx, v->ty, v->tx, a, v->ty, v->tx, bb);
    } else {
        tb_svg_text(g, tb_step_t0(v, TB_STEP_LOAD, ph), tb_step_t1(v, TB_STEP_LOAD, ph),
                    L->zax - 46, L->top + TB_ZOOM_LINE, "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "the block's %d threads copy the two tiles together; %ld + %ld of the elements are zeros",
                    G->threads, t.a_pad, t.b_pad);
    }
    tb_zoom_barrier(g, v, L, ph, 1);
    tb_zoom_sweep(g, v, L, ph);
    tb_zoom_barrier(g, v, L, ph, 2);
}

static void tb_zoom_write(tb_svg *g, const tb_anim_view *v, const tb_layout *L, const tb_marks *k)
{
    const tb_anim_step *w = tb_find_step(v, TB_STEP_WRITE, -1);
    if (!w)
        return;
    const tb_anim_geom *G = &v->s.g;
    tb_anim_tile t;
    tb_anim_tile_at(&v->s, v->bx, v->by, -1, &t);
    double T = g->total + 1;
    /* Drawn over the tile later: the thread's micro-tile and label, and
     * its warp's label. */
    tb_box over[] = {k->micro, k->label_box, k->warp_label_box};
    tb_svg_tile(g, w->t0, T, L->zcx, L->zcy, G->block_n * L->zn, G->block_m * L->zm,
                t.cols * L->zn, t.rows * L->zm, TB_COL_C, over, k->warped ? 3 : 2);
    if (t.c_skip > 0)
        tb_svg_text(g, w->t0, T, L->zax - 46, L->top + TB_ZOOM_LINE, "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "hatched: %ld sums of elements outside C, computed from zeros and never stored", t.c_skip);
}

void tb_svg_zoom(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    double t0 = tb_step_t0(v, TB_STEP_INTRO, -1);
    tb_marks k;
    tb_zoom_marks(v, L, &k);
    tb_zoom_frame(g, v, L, t0);
    tb_zoom_warps(g, v, L, t0, &k);
    /* Until the first load, on the caption line (a narrow As has no room
     * for it inside). */
    const tb_anim_step *first = tb_find_step(v, TB_STEP_LOAD, -1);
    if (first)
        tb_svg_text(g, t0, first->t0, L->zax - 46, L->top + TB_ZOOM_LINE,
                    "font-size=\"13\" fill=\"" TB_COL_MUTED "\"", "As and Bs are empty until phase 0 loads");
    long shown[8];
    int n = tb_anim_shown_phases(v->s.phases, shown, 8);
    for (int i = 0; i < n; i++)
        tb_zoom_phase(g, v, L, shown[i], &k);
    const tb_anim_step *sk = tb_find_step(v, TB_STEP_SKIP, -1);
    if (sk)
        tb_svg_text(g, sk->t0, sk->t0 + sk->dur, L->zax - 46, L->top + TB_ZOOM_LINE,
                    "font-size=\"13\" fill=\"" TB_COL_TEXT "\"",
                    "%s: load, barrier 1, sum, barrier 2, each time one tile further along K", sk->label);
    tb_zoom_write(g, v, L, &k);
    tb_zoom_thread(g, t0, &k);
}
