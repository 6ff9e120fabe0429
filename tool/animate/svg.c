/* tool/animate/svg.c - one animated SVG frame set for `tiledblas animate`: the
 * layout, the three whole matrices with the grid of C tiles, the followed
 * block's panels and tiles phase by phase, captions and the step bar. The
 * zoom on shared memory is svg_zoom.c, the traced call's panel svg_trace.c. */
#include "svg.h"

#include <math.h>
#include <string.h>

#define TB_W        1200.0
#define TB_AREA_H   560.0
#define TB_FOOT_H   172.0
#define TB_MIN_AXIS 18.0

const tb_anim_step *tb_find_step(const tb_anim_view *v, enum tb_step_kind kind, long phase)
{
    for (int i = 0; i < v->nsteps; i++)
        if (v->steps[i].kind == kind && (phase < 0 || v->steps[i].phase == phase))
            return &v->steps[i];
    return NULL;
}

double tb_step_t0(const tb_anim_view *v, enum tb_step_kind kind, long phase)
{
    const tb_anim_step *s = tb_find_step(v, kind, phase);
    return s ? s->t0 : -1.0;
}

double tb_step_t1(const tb_anim_view *v, enum tb_step_kind kind, long phase)
{
    const tb_anim_step *s = tb_find_step(v, kind, phase);
    return s ? s->t0 + s->dur : -1.0;
}

/* The smallest power of two g with g * tile_px >= 7: grid lines closer than
 * that would merge into a grey smear. */
static long tb_group(double tile_px)
{
    long g = 1;
    while (g * tile_px < 7.0 && g < (1L << 30))
        g *= 2;
    return g;
}

static void tb_layout_init(tb_layout *L, const tb_anim_view *v)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *g = &s->g;
    memset(L, 0, sizeof *L);
    L->W = TB_W;
    L->top = 92.0 + (v->call ? TB_TRACE_PANEL_H : 0.0);
    L->H = L->top + TB_AREA_H + TB_FOOT_H;

    /* Whole matrices: B above C, A left of C, so A's row panel and B's
     * column panel line up with the block's tile of C. */
    double lp = 58, tp = 34, gap = 14;
    double ox = 20 + lp, oy = L->top + tp;
    double aw = 590 - lp - gap - 8, ah = TB_AREA_H - tp - gap - 30;
    double mp = (double)s->grid_y * g->block_m, np = (double)s->grid_x * g->block_n;
    double kp = s->phases > 0 ? (double)s->phases * g->block_k : 1.0;
    double sc = fmin(fmin(aw / (kp + np), ah / (kp + mp)), 14.0);
    double pm = mp * sc, pn = np * sc, pk = kp * sc;
    L->to_scale = 1;
    if (pm < TB_MIN_AXIS) { pm = TB_MIN_AXIS; L->to_scale = 0; }
    if (pn < TB_MIN_AXIS) { pn = TB_MIN_AXIS; L->to_scale = 0; }
    if (pk < TB_MIN_AXIS) { pk = TB_MIN_AXIS; L->to_scale = 0; }
    double f = fmin(1.0, fmin(aw / (pk + pn), ah / (pk + pm)));
    if (f < 1.0) {       /* a stretched axis took room: shrink the others */
        if (pm > TB_MIN_AXIS) pm *= f;
        if (pn > TB_MIN_AXIS) pn *= f;
        if (pk > TB_MIN_AXIS) pk *= f;
    }
    L->sm = pm / mp; L->sn = pn / np; L->sk = pk / kp;
    L->pm = pm;      L->pn = pn;      L->pk = pk;
    L->bx = ox + pk + gap; L->by = oy;
    L->ax = ox;            L->ay = oy + pk + gap;
    L->cx = L->bx;         L->cy = L->ay;
    L->gm = tb_group(g->block_m * L->sm);
    L->gn = tb_group(g->block_n * L->sn);
    L->gk = tb_group(g->block_k * L->sk);

    /* Zoom: the same arrangement for one block, As | Bs | C tile. Its
     * height leaves room below for the C tile's caption and the barrier
     * callout above the step's caption line (svg.h). */
    double zx = 640 + 46, zy = L->top + tp, zw = 1180 - zx - gap;
    double zh = TB_ZOOM_LINE - 16 - TB_CALLOUT_H - TB_CALLOUT_GAP - tp - gap;
    double bm = g->block_m, bn = g->block_n, bk = g->block_k;
    double z = fmin(fmin(zw / (bk + bn), zh / (bk + bm)), 26.0);
    L->zm = L->zn = L->zk = z;
    if (bk * z < 56.0) {
        L->zk = fmin(56.0, 26.0 * bk) / bk;
        z = fmin(fmin((zw - bk * L->zk) / bn, (zh - bk * L->zk) / bm), 26.0);
        L->zm = L->zn = z;
    }
    L->zbx = zx + bk * L->zk + gap; L->zby = zy;
    L->zax = zx;                    L->zay = zy + bk * L->zk + gap;
    L->zcx = L->zbx;                L->zcy = L->zay;
}

static void tb_defs(tb_svg *g)
{
    tb_svg_printf(g,
        "<defs>\n"
        "<pattern id=\"%shatch\" width=\"7\" height=\"7\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" fill=\"#f1f1f1\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"7\" stroke=\"#8a8f98\" stroke-width=\"2.2\"/></pattern>\n"
        "<pattern id=\"%shatchlt\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#ffffff\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#d5d8de\" stroke-width=\"1.5\"/></pattern>\n"
        "</defs>\n", g->idp, g->idp);
    if (g->loop)   /* the master clock: everything begins relative to it */
        tb_svg_printf(g, "<rect width=\"0\" height=\"0\"><animate id=\"%sclk\" attributeName=\"x\" "
                      "from=\"0\" to=\"0\" begin=\"0s;%sclk.end\" dur=\"%.3fs\"/></rect>\n",
                      g->idp, g->idp, g->total);
}

/* One whole matrix: the tiles the grid covers (hatched where they hang over
 * the edge), the matrix itself, grid lines every `gr` x `gq` tiles. */
typedef struct tb_mat {
    double x, y, sr, sq;         /* origin, px per row and per column */
    long rows, cols, tr, tq;     /* size, tile size                    */
    long nr, nq, gr, gq;         /* tiles, grouping                    */
    const char *fill, *name;
} tb_mat;

static void tb_draw_matrix(tb_svg *g, const tb_mat *m)
{
    char st[160];
    double pw = (double)m->nq * m->tq * m->sq, ph = (double)m->nr * m->tr * m->sr;
    double w = m->cols * m->sq, h = m->rows * m->sr;
    if (m->nq == 0) pw = w;
    if (m->nr == 0) ph = h;
    snprintf(st, sizeof st, "fill=\"url(#%shatchlt)\" stroke=\"%s\" stroke-dasharray=\"4 3\"",
             g->idp, TB_COL_GRID);
    tb_svg_rect(g, -1, -1, m->x, m->y, pw, ph, st);
    snprintf(st, sizeof st, "fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"", m->fill, TB_COL_TEXT);
    tb_svg_rect(g, -1, -1, m->x, m->y, w > 0 ? w : 1, h > 0 ? h : 1, st);
    snprintf(st, sizeof st, "stroke=\"%s\" stroke-width=\"0.8\"", TB_COL_GRID);
    for (long i = m->gr; i < m->nr; i += m->gr)
        tb_svg_line(g, -1, -1, m->x, m->y + i * m->tr * m->sr, m->x + pw, m->y + i * m->tr * m->sr, st);
    for (long j = m->gq; j < m->nq; j += m->gq)
        tb_svg_line(g, -1, -1, m->x + j * m->tq * m->sq, m->y, m->x + j * m->tq * m->sq, m->y + ph, st);
}

static void tb_axis_labels(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_anim_sched *s = &v->s;
    const char *st = "font-size=\"10\" fill=\"" TB_COL_MUTED "\" text-anchor=\"middle\"";
    const char *str = "font-size=\"10\" fill=\"" TB_COL_MUTED "\" text-anchor=\"end\"";
    long gx = s->grid_x, gy = s->grid_y, ph = s->phases;
    /* Index of every tile boundary when they are far enough apart, else the
     * two ends. */
    long sx = (gx <= 12 && s->g.block_n * L->sn >= 30) ? 1 : (gx > 0 ? gx : 1);
    long sy = (gy <= 12 && s->g.block_m * L->sm >= 30) ? 1 : (gy > 0 ? gy : 1);
    long sp = (ph <= 12 && s->g.block_k * L->sk >= 30) ? 1 : (ph > 0 ? ph : 1);
    for (long j = 0; j <= gx; j += sx)
        tb_svg_text(g, -1, -1, L->bx + j * s->g.block_n * L->sn, L->by - 5, st, "%ld",
                    j * s->g.block_n);
    for (long i = 0; i <= gy; i += sy)
        tb_svg_text(g, -1, -1, L->ax - 5, L->ay + i * s->g.block_m * L->sm + 4, str, "%ld",
                    i * s->g.block_m);
    for (long p = 0; p <= ph; p += sp) {
        tb_svg_text(g, -1, -1, L->ax + p * s->g.block_k * L->sk, L->ay - 4, st, "%ld",
                    p * s->g.block_k);
        if (p < ph)     /* the last one is already on A's top edge */
            tb_svg_text(g, -1, -1, L->bx - 4, L->by + p * s->g.block_k * L->sk + 4, str, "%ld",
                        p * s->g.block_k);
    }
    const char *name = "font-size=\"15\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\"";
    if (L->bx + 300 < 630)
        tb_svg_text(g, -1, -1, L->bx, L->by - 19, name, "B  (K x N = %ld x %ld)  col →", s->k, s->n);
    else        /* a narrow B: its name goes to the left, clear of the zoom */
        tb_svg_text(g, -1, -1, L->bx + L->pn, L->by - 19,
                    "font-size=\"15\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\" text-anchor=\"end\"",
                    "B  (K x N = %ld x %ld)  col →", s->k, s->n);
    if (L->pk >= 230)
        tb_svg_text(g, -1, -1, L->ax - 52, L->ay - 19, name, "A  (M x K = %ld x %ld)  k →", s->m, s->k);
    else            /* a thin A: keep its name clear of B */
        tb_svg_text(g, -1, -1, L->ax - 52, L->ay - 19, name, "A  %ldx%ld", s->m, s->k);
    /* Under C, and lower where a ring marks a block too small to see (the
     * ring reaches 14 px below its block: tb_draw_block). */
    int ringed = s->g.block_n * L->sn < 12 || s->g.block_m * L->sm < 12;
    tb_svg_text(g, -1, -1, L->cx - 52 - (L->bx - L->ax),
                L->cy + s->grid_y * s->g.block_m * L->sm + (ringed ? 26 : 19), name,
                "C  (M x N = %ld x %ld): one tile per thread block", s->m, s->n);
    tb_svg_text(g, -1, -1, L->ax - 52, L->ay + 14, "font-size=\"10\" fill=\"" TB_COL_MUTED "\"",
                "row ↓");
}

static void tb_follow_label(const tb_anim_view *v, const tb_layout *L, double *lx, double *ly,
                            char *anchor);

/* Blocks labelled (blockIdx.x, blockIdx.y) in C when there is room, except
 * where the followed block's own label (tb_draw_block) would meet them. */
static void tb_block_labels(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_anim_sched *s = &v->s;
    double tw = s->g.block_n * L->sn, th = s->g.block_m * L->sm;
    if (tw < 40 || th < 18 || s->grid_x > 12 || s->grid_y > 12)
        return;
    double fx, fy;
    char fa, lab[48];
    tb_follow_label(v, L, &fx, &fy, &fa);
    snprintf(lab, sizeof lab, "blockIdx (%ld,%ld)", v->bx, v->by);
    tb_box follow = tb_text_box(fx, fy, 12, 1, fa, lab);
    for (long by = 0; by < s->grid_y; by++)
        for (long bx = 0; bx < s->grid_x; bx++) {
            if (bx == v->bx && by == v->by)   /* that one gets its own label */
                continue;
            /* Centred on the tile's part inside C when the label fits
             * there (clear of C's edge), else on the whole tile. */
            tb_anim_tile t;
            tb_anim_tile_at(s, bx, by, -1, &t);
            snprintf(lab, sizeof lab, "(%ld,%ld)", bx, by);
            tb_box lb = tb_text_box(0, 0, 11, 0, 'm', lab);
            double x = L->cx + (bx + 0.5) * tw, y = L->cy + (by + 0.5) * th + 4;
            if (t.cols * L->sn >= lb.w + 2)
                x = L->cx + (t.col0 + t.cols / 2.0) * L->sn;
            if (t.rows * L->sm >= lb.h + 2)
                y = L->cy + (t.row0 + t.rows / 2.0) * L->sm + 4;
            if (tb_boxes_meet(tb_text_box(x, y, 11, 0, 'm', lab), follow, 3))
                continue;
            tb_svg_text(g, -1, -1, x, y, "font-size=\"11\" fill=\"#6a7a6f\" text-anchor=\"middle\"",
                        "%s", lab);
        }
}

/* A span of elements along one axis in px, at least `min` px wide (marks on
 * huge matrices are enlarged) and kept inside the axis. */
static void tb_span(double origin, double scale, double extent, double start, double len,
                    double min, double *pos, double *size)
{
    *pos = origin + start * scale;
    *size = len * scale;
    if (*size < min) {
        *pos += *size / 2 - min / 2;
        *size = min;
    }
    if (*pos + *size > origin + extent) *pos = origin + extent - *size;
    if (*pos < origin) *pos = origin;
}

/* A box of rows r0.. (nr of them) and columns c0.. (nc) of matrix 'A', 'B'
 * or 'C', in px. */
static tb_box tb_box_of(const tb_layout *L, char which, double r0, double nr, double c0, double nc,
                        double min)
{
    tb_box b;
    double ro = which == 'B' ? L->by : L->ay, rs = which == 'B' ? L->sk : L->sm;
    double re = which == 'B' ? L->pk : L->pm;
    double co = which == 'A' ? L->ax : L->bx, cs = which == 'A' ? L->sk : L->sn;
    double ce = which == 'A' ? L->pk : L->pn;
    tb_span(ro, rs, re, r0, nr, min, &b.y, &b.h);
    tb_span(co, cs, ce, c0, nc, min, &b.x, &b.w);
    return b;
}

/* Where the followed block's label goes: inside its tile when it fits,
 * else next to it (below, or above for the last row of blocks). */
static void tb_follow_label(const tb_anim_view *v, const tb_layout *L, double *lx, double *ly,
                            char *anchor)
{
    const tb_anim_geom *G = &v->s.g;
    tb_anim_tile t;
    tb_anim_tile_at(&v->s, v->bx, v->by, -1, &t);
    tb_box c = tb_box_of(L, 'C', t.row0, G->block_m, t.col0, G->block_n, 5);
    *lx = c.x + c.w / 2;
    *ly = c.y + c.h - 6;
    *anchor = 'm';
    if (c.w < 60 || c.h < 40) {
        *ly = c.y + c.h + 14 > L->cy + L->pm + 4 ? c.y - 14 : c.y + c.h + 14;
        if (*lx < L->cx + 60) { *lx = c.x; *anchor = 's'; }
        if (*lx > L->cx + L->pn - 60) { *lx = c.x + c.w; *anchor = 'e'; }
    }
}

static void tb_draw_block(tb_svg *g, const tb_anim_view *v, const tb_layout *L, double t0)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *G = &s->g;
    char st[160];
    tb_anim_tile t;
    tb_anim_tile_at(s, v->bx, v->by, -1, &t);
    double kp = s->phases > 0 ? (double)s->phases * G->block_k : 1;
    const double T = g->total + 1;
    tb_box pa = tb_box_of(L, 'A', t.row0, G->block_m, 0, kp, 5);
    tb_box pb = tb_box_of(L, 'B', 0, kp, t.col0, G->block_n, 5);
    tb_box c = tb_box_of(L, 'C', t.row0, G->block_m, t.col0, G->block_n, 5);

    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.10\" stroke=\"%s\" stroke-dasharray=\"5 3\"",
             TB_COL_BLK, TB_COL_BLK);
    tb_svg_rect(g, t0, T, pa.x, pa.y, pa.w, pa.h, st);          /* A's row panel    */
    tb_svg_rect(g, t0, T, pb.x, pb.y, pb.w, pb.h, st);          /* B's column panel */
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.18\" stroke=\"%s\" stroke-width=\"3\"",
             TB_COL_BLK, TB_COL_BLK);
    tb_svg_rect(g, t0, T, c.x, c.y, c.w, c.h, st);
    if (G->block_n * L->sn < 12 || G->block_m * L->sm < 12) {   /* too small: ring it */
        snprintf(st, sizeof st, "cx=\"%.1f\" cy=\"%.1f\" r=\"13\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"",
                 c.x + c.w / 2, c.y + c.h / 2, TB_COL_BLK);
        tb_svg_open(g, "circle", t0, T, "%s", st);
        tb_svg_close(g, "circle");
    }
    /* The followed thread's element (or micro-tile) of C. */
    tb_box e = tb_box_of(L, 'C', t.row0 + v->ty * G->thread_m, G->thread_m,
                         t.col0 + v->tx * G->thread_n, G->thread_n, 3);
    snprintf(st, sizeof st, "fill=\"%s\"", TB_COL_THR);
    tb_svg_rect(g, t0, T, e.x, e.y, e.w, e.h, st);
}

/* The followed block's label, drawn after the tile of C is written, so
 * that nothing covers it. */
static void tb_draw_block_label(tb_svg *g, const tb_anim_view *v, const tb_layout *L, double t0)
{
    char st[200];
    double lx, ly;
    char anchor;
    tb_follow_label(v, L, &lx, &ly, &anchor);
    snprintf(st, sizeof st, "font-size=\"12\" font-weight=\"bold\" fill=\"%s\" text-anchor=\"%s\" "
             "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"", TB_COL_BLK,
             anchor == 's' ? "start" : anchor == 'e' ? "end" : "middle");
    tb_svg_text(g, t0, g->total + 1, lx, ly, st, "blockIdx (%ld,%ld)", v->bx, v->by);
}

static void tb_draw_phase(tb_svg *g, const tb_anim_view *v, const tb_layout *L, long ph)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *G = &s->g;
    char st[160];
    tb_anim_tile t;
    tb_anim_tile_at(s, v->bx, v->by, ph, &t);
    double t0 = tb_step_t0(v, TB_STEP_LOAD, ph), t1 = tb_step_t1(v, TB_STEP_BARRIER2, ph);
    double tc0 = tb_step_t0(v, TB_STEP_COMPUTE, ph), tc1 = tb_step_t1(v, TB_STEP_COMPUTE, ph);
    double bk = G->block_k;

    tb_box a = tb_box_of(L, 'A', t.row0, G->block_m, t.k0, bk, 5);
    tb_box b = tb_box_of(L, 'B', t.k0, bk, t.col0, G->block_n, 5);
    /* What is drawn over the tiles later: the thread's element (the seed's
     * load) and its rows of A and columns of B (the compute step). */
    tb_box ea = tb_box_of(L, 'A', t.row0 + v->ty, 1, t.k0 + v->tx, 1, 3);
    tb_box eb = tb_box_of(L, 'B', t.k0 + v->ty, 1, t.col0 + v->tx, 1, 3);
    tb_box ra = tb_box_of(L, 'A', t.row0 + v->ty * G->thread_m, G->thread_m, t.k0, bk, 2);
    tb_box cb = tb_box_of(L, 'B', t.k0, bk, t.col0 + v->tx * G->thread_n, G->thread_n, 2);
    tb_box over_a[] = {ea, ra}, over_b[] = {eb, cb};
    tb_svg_tile(g, t0, t1, a.x, a.y, a.w, a.h, a.w * t.ks / bk, a.h * t.rows / G->block_m, TB_COL_A, over_a, 2);
    tb_svg_tile(g, t0, t1, b.x, b.y, b.w, b.h, b.w * t.cols / G->block_n, b.h * t.ks / bk, TB_COL_B, over_b, 2);
    const char *lab = "font-size=\"15\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\" text-anchor=\"middle\"";
    if (L->pk >= 110)   /* the empty corner left of B, when it has room */
        tb_svg_text(g, t0, t1, (L->ax + L->bx) / 2 - 7, L->by + (L->ay - L->by) / 2, lab,
                    "phase %ld of %ld", ph, s->phases);

    /* The tiles fly into shared memory during the load step. */
    double tl1 = tb_step_t1(v, TB_STEP_LOAD, ph);
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" stroke-width=\"2\"",
             TB_COL_A, TB_COL_A);
    tb_svg_fly(g, t0, 1.4, tl1, a.x, a.y, a.w, a.h, L->zax, L->zay, bk * L->zk, G->block_m * L->zm, st);
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" stroke-width=\"2\"",
             TB_COL_B, TB_COL_B);
    tb_svg_fly(g, t0, 1.4, tl1, b.x, b.y, b.w, b.h, L->zbx, L->zby, G->block_n * L->zn, bk * L->zk, st);

    /* The seed's load: thread (ty, tx) fetches A[row][k0+tx] and B[k0+ty][col]. */
    if (G->thread_m == 1 && G->thread_n == 1 && G->block_m == G->block_k && G->block_n == G->block_k) {
        snprintf(st, sizeof st, "fill=\"%s\" stroke=\"white\" stroke-width=\"0.5\"", TB_COL_THR);
        tb_svg_rect(g, t0, tl1, ea.x, ea.y, ea.w, ea.h, st);
        tb_svg_rect(g, t0, tl1, eb.x, eb.y, eb.w, eb.h, st);
    }
    /* The compute step: the thread's rows of A and columns of B. */
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.55\"", TB_COL_THR);
    tb_svg_rect(g, tc0, tc1, ra.x, ra.y, ra.w, ra.h, st);
    tb_svg_rect(g, tc0, tc1, cb.x, cb.y, cb.w, cb.h, st);
}

/* "phases a..b: the same four steps": their stretch of both panels. */
static void tb_draw_skip(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_anim_step *sk = tb_find_step(v, TB_STEP_SKIP, -1);
    if (!sk)
        return;
    const tb_anim_geom *G = &v->s.g;
    long a = 3, n = v->s.phases - 4;       /* phases 3 .. phases-2 */
    double t0 = sk->t0, t1 = sk->t0 + sk->dur;
    char st[160];
    tb_box pa = tb_box_of(L, 'A', v->by * G->block_m, G->block_m, a * G->block_k, n * G->block_k, 5);
    tb_box pb = tb_box_of(L, 'B', a * G->block_k, n * G->block_k, v->bx * G->block_n, G->block_n, 5);
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\"", TB_COL_A, TB_COL_A);
    tb_svg_rect(g, t0, t1, pa.x, pa.y, pa.w, pa.h, st);
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\"", TB_COL_B, TB_COL_B);
    tb_svg_rect(g, t0, t1, pb.x, pb.y, pb.w, pb.h, st);
}

static void tb_draw_write(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_anim_step *w = tb_find_step(v, TB_STEP_WRITE, -1);
    if (!w)
        return;
    tb_anim_tile t;
    tb_anim_tile_at(&v->s, v->bx, v->by, -1, &t);
    char st[160];
    double T = g->total + 1;
    tb_box c = tb_box_of(L, 'C', t.row0, t.rows, t.col0, t.cols, 3);
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.75\" stroke=\"%s\" stroke-width=\"2\"",
             TB_COL_C, TB_COL_C);
    tb_svg_fly(g, w->t0, 1.4, w->t0 + 1.4, L->zcx, L->zcy, t.cols * L->zn, t.rows * L->zm,
               c.x, c.y, c.w, c.h, st);
    tb_svg_rect(g, w->t0 + 1.4, T, c.x, c.y, c.w, c.h, st);
}

static void tb_header(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_anim_sched *s = &v->s;
    tb_svg_text(g, -1, -1, 20, 30, "font-size=\"21\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\"",
                "C = A · B with kernel %s: %ld x %ld x %ld (M x N x K)", s->g.name, s->m, s->n, s->k);
    tb_svg_text(g, -1, -1, 1180, 82, "font-size=\"12\" fill=\"" TB_COL_MUTED "\" text-anchor=\"end\"",
                "%s", s->g.summary);
    for (int i = 0; i < v->nsteps; i++) {
        const tb_anim_step *st = &v->steps[i];
        double t1 = st->t0 + st->dur;
        tb_svg_text(g, st->t0, t1, 20, 62, "font-size=\"17\" font-weight=\"bold\" fill=\"#0b3d91\"",
                    "%s", st->label);
        tb_svg_text(g, st->t0, t1, 20, 82, "font-size=\"12\" fill=\"" TB_COL_MUTED "\"",
                    "step %d of %d: %s", i + 1, v->nsteps, tb_anim_step_name(st->kind));
    }
    (void)L;
}

static void tb_footer(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *G = &s->g;
    tb_anim_tile t;
    tb_anim_tile_at(s, v->bx, v->by, -1, &t);
    long apad, bpad, cskip;
    tb_anim_padding(s, &apad, &bpad, &cskip);
    double y = L->top + TB_AREA_H + 20;
    const char *st = "font-size=\"13\" fill=\"" TB_COL_TEXT "\"";
    const char *mu = "font-size=\"12\" fill=\"" TB_COL_MUTED "\"";
    long row = t.row0 + v->ty * G->thread_m, col = t.col0 + v->tx * G->thread_n;

    tb_svg_text(g, -1, -1, 20, y, st,
                "blockIdx = (x=%ld, y=%ld) owns C rows %ld..%ld, cols %ld..%ld  (row = blockIdx.y*%d + ty, col = blockIdx.x*%d + tx)",
                v->bx, v->by, t.row0, t.row0 + G->block_m - 1, t.col0, t.col0 + G->block_n - 1,
                G->block_m, G->block_n);
    if (G->thread_m == 1 && G->thread_n == 1)
        tb_svg_text(g, -1, -1, 20, y + 19, st,
                    "threadIdx = (x=%ld, y=%ld) owns C[%ld][%ld]%s", v->tx, v->ty, row, col,
                    (row >= s->m || col >= s->n) ? ": outside C, it loads and adds zeros and writes nothing" : "");
    else
        tb_svg_text(g, -1, -1, 20, y + 19, st,
                    "thread (ty=%ld, tx=%ld) of the %ldx%ld thread grid (threadIdx.x = %ld counting row by row) owns the %dx%d micro-tile C[%ld..%ld][%ld..%ld]",
                    v->ty, v->tx, s->thr_y, s->thr_x, v->ty * s->thr_x + v->tx, G->thread_m, G->thread_n, row,
                    row + G->thread_m - 1, col, col + G->thread_n - 1);
    tb_svg_text(g, -1, -1, 20, y + 38, st,
                "grid %ld x %ld blocks, %ld phases of %d along K; zeros loaded over the whole grid: %ld into As, %ld into Bs; %ld tile elements fall outside C",
                s->grid_x, s->grid_y, s->phases, G->block_k, apad, bpad, cskip);
    if (G->thread_m != 1 || G->thread_n != 1)
        tb_svg_text(g, -1, -1, 20, y + 95, mu, "%s",
                    "the steps follow the seed's pattern (load, barrier, sum, barrier); this kernel may "
                    "overlap them (double buffering, fewer barriers) - see its summary at the top right");
    if (L->gm > 1 || L->gn > 1 || L->gk > 1)
        tb_svg_text(g, -1, -1, 20, y + 57, mu,
                    "matrices drawn to scale, capped at 520 px: grid lines every %ld / %ld / %ld tiles along M / N / K (tiles are grouped); the followed block is marked by a circle when too small to see",
                    L->gm, L->gn, L->gk);
    else
        tb_svg_text(g, -1, -1, 20, y + 57, mu, "%s: %.2f px per element along M, %.2f along N, %.2f along K; grid lines at tile edges (C %dx%d, A %dx%d, B %dx%d)",
                    L->to_scale ? "matrices drawn to scale" : "matrices drawn to scale except a thin axis, stretched to stay visible",
                    L->sm, L->sn, L->sk, G->block_m, G->block_n, G->block_m, G->block_k, G->block_k, G->block_n);

    /* Legend. */
    double lx = 20, ly = y + 76;
    struct { const char *fill; const char *text; } leg[] = {
        {TB_COL_A, "tile of A's row panel"}, {TB_COL_B, "tile of B's column panel"},
        {TB_COL_BLK, "followed block"}, {TB_COL_THR, "followed thread"},
        {TB_COL_C, "C written"}, {NULL, "zero padding (outside the matrix)"},
    };
    char fs[96];
    for (size_t i = 0; i < sizeof leg / sizeof leg[0]; i++) {
        if (leg[i].fill)
            snprintf(fs, sizeof fs, "fill=\"%s\" fill-opacity=\"0.7\"", leg[i].fill);
        else
            snprintf(fs, sizeof fs, "fill=\"url(#%shatch)\" stroke=\"#888\"", g->idp);
        tb_svg_rect(g, -1, -1, lx, ly - 11, 14, 14, fs);
        tb_svg_text(g, -1, -1, lx + 19, ly, mu, "%s", leg[i].text);
        lx += 20 + 7.0 * strlen(leg[i].text) + 18;
    }

}

/* The step bar: one box per step, the current one lit. */
static void tb_step_bar(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    double bw = fmin(78.0, (L->W - 40) / (v->nsteps > 0 ? v->nsteps : 1)), by = L->H - 42;
    for (int i = 0; i < v->nsteps; i++) {
        const tb_anim_step *sp = &v->steps[i];
        double x = 20 + i * bw;
        tb_svg_rect(g, -1, -1, x, by, bw - 3, 26, "fill=\"#eef0f3\" stroke=\"#c9ced6\"");
        tb_svg_rect(g, sp->t0, sp->t0 + sp->dur, x, by, bw - 3, 26, "fill=\"#0b3d91\"");
        char txt[32];
        if (sp->phase >= 0)
            snprintf(txt, sizeof txt, "%s %ld", sp->kind == TB_STEP_LOAD ? "load" :
                     sp->kind == TB_STEP_COMPUTE ? "sum" : sp->kind == TB_STEP_BARRIER1 ? "bar1" : "bar2",
                     sp->phase);
        else {
            static const char *const shortname[] = {
                [TB_STEP_ROUTE] = "route", [TB_STEP_BUFFERS] = "bufs", [TB_STEP_H2D] = "H2D",
                [TB_STEP_INTRO] = "grid", [TB_STEP_SKIP] = "...", [TB_STEP_WRITE] = "write",
                [TB_STEP_D2H] = "D2H", [TB_STEP_CPU] = "CPU"};
            snprintf(txt, sizeof txt, "%s", shortname[sp->kind] ? shortname[sp->kind] : "?");
        }
        if (bw < 40)
            txt[bw < 24 ? 1 : 4] = '\0';
        tb_svg_text(g, -1, -1, x + (bw - 3) / 2, by + 17,
                    "font-size=\"10\" fill=\"" TB_COL_TEXT "\" text-anchor=\"middle\"", "%s", txt);
        tb_svg_text(g, sp->t0, sp->t0 + sp->dur, x + (bw - 3) / 2, by + 17,
                    "font-size=\"10\" fill=\"white\" font-weight=\"bold\" text-anchor=\"middle\"", "%s", txt);
    }
}

static void tb_cpu_message(tb_svg *g, const tb_anim_view *v, const tb_layout *L)
{
    double y = L->top + 120;
    tb_svg_rect(g, -1, -1, 120, y - 60, 960, 200, "fill=\"#fff4e5\" stroke=\"" TB_COL_B "\" stroke-width=\"2\"");
    tb_svg_text(g, -1, -1, 600, y, "font-size=\"26\" font-weight=\"bold\" fill=\"" TB_COL_TEXT "\" text-anchor=\"middle\"",
                "This call ran on the CPU");
    tb_svg_text(g, -1, -1, 600, y + 36, "font-size=\"16\" fill=\"" TB_COL_TEXT "\" text-anchor=\"middle\"",
                "reason: %s", v->call->reason[0] ? v->call->reason : "(none recorded)");
    tb_svg_text(g, -1, -1, 600, y + 70, "font-size=\"14\" fill=\"" TB_COL_MUTED "\" text-anchor=\"middle\"",
                "Nothing was copied to the GPU and no kernel ran: the real BLAS computed C in %.3f ms.",
                v->call->seconds * 1e3);
    tb_svg_text(g, -1, -1, 600, y + 96, "font-size=\"14\" fill=\"" TB_COL_MUTED "\" text-anchor=\"middle\"",
                "Run `tiledblas animate --m %ld --n %ld --k %ld` to see how the GPU would tile it.",
                v->s.m, v->s.n, v->s.k);
}

int tb_anim_write_svg(FILE *f, const tb_anim_view *v, int loop, const char *idp)
{
    tb_svg g = {f, loop, idp ? idp : "", v->total, 0};
    tb_layout L;
    tb_layout_init(&L, v);
    const tb_anim_sched *s = &v->s;

    tb_svg_printf(&g, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
                  "width=\"%.0f\" height=\"%.0f\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\" "
                  "data-total=\"%.3f\">\n", L.W, L.H, L.W, L.H, v->total);
    tb_svg_printf(&g, "<title>tiledblas animate: kernel ");
    tb_svg_escape(&g, s->g.name);
    tb_svg_printf(&g, ", %ld x %ld x %ld</title>\n", s->m, s->n, s->k);
    tb_defs(&g);
    tb_svg_rect(&g, -1, -1, 0, 0, L.W, L.H, "fill=\"white\"");
    tb_header(&g, v, &L);
    if (v->call)
        tb_svg_trace_panel(&g, v, &L);
    if (v->call && strcmp(v->call->route, "gpu") != 0) {
        tb_cpu_message(&g, v, &L);
    } else {
        long nr = s->phases > 0 ? s->phases : 1;
        tb_mat ma = {L.ax, L.ay, L.sm, L.sk, s->m, s->k, s->g.block_m, s->g.block_k,
                     s->grid_y, nr, L.gm, L.gk, TB_COL_A_LT, "A"};
        tb_mat mb = {L.bx, L.by, L.sk, L.sn, s->k, s->n, s->g.block_k, s->g.block_n,
                     nr, s->grid_x, L.gk, L.gn, TB_COL_B_LT, "B"};
        tb_mat mc = {L.cx, L.cy, L.sm, L.sn, s->m, s->n, s->g.block_m, s->g.block_n,
                     s->grid_y, s->grid_x, L.gm, L.gn, TB_COL_C_LT, "C"};
        if (s->phases == 0)
            ma.nq = mb.nr = 0;
        tb_draw_matrix(&g, &ma);
        tb_draw_matrix(&g, &mb);
        tb_draw_matrix(&g, &mc);
        tb_axis_labels(&g, v, &L);
        tb_block_labels(&g, v, &L);
        double tin = tb_step_t0(v, TB_STEP_INTRO, -1);
        tb_draw_block(&g, v, &L, tin);
        long shown[8];
        int n = tb_anim_shown_phases(s->phases, shown, 8);
        for (int i = 0; i < n; i++)
            tb_draw_phase(&g, v, &L, shown[i]);
        tb_draw_skip(&g, v, &L);
        tb_draw_write(&g, v, &L);
        tb_draw_block_label(&g, v, &L, tin);
        tb_svg_zoom(&g, v, &L);
        tb_footer(&g, v, &L);
    }
    tb_step_bar(&g, v, &L);
    tb_svg_printf(&g, "</svg>\n");
    return (g.fail || ferror(f)) ? -1 : 0;
}
