/* tool/animate/svg.h - what the svg*.c files share: the drawing context, the
 * layout of one frame, and the primitives of svg_draw.c (shapes that appear
 * for a window of time through SMIL <set>). Not used outside src/animate/. */
#ifndef TB_ANIMATE_SVG_H
#define TB_ANIMATE_SVG_H

#include "animate.h"

#include <stdio.h>

/* Colours, one per role, used by the page's legend too. */
#define TB_COL_A     "#2f6fd0"
#define TB_COL_A_LT  "#dbe7fa"
#define TB_COL_B     "#e07b00"
#define TB_COL_B_LT  "#fbe6cc"
#define TB_COL_C     "#2a9d4b"
#define TB_COL_C_LT  "#d9f0df"
#define TB_COL_BLK   "#8e44ad"
#define TB_COL_THR   "#d62728"
#define TB_COL_GRID  "#b8bec8"
#define TB_COL_TEXT  "#1d2330"
#define TB_COL_MUTED "#5b6473"

typedef struct tb_svg {
    FILE *f;
    int loop;                /* SMIL clock restarts itself                */
    const char *idp;         /* id prefix, unique per SVG on a page        */
    double total;            /* one loop, seconds                          */
    int fail;                /* a write failed                             */
} tb_svg;

/* The geometry of one frame, worked out once (svg.c). */
typedef struct tb_layout {
    double W, H;
    double top;                          /* y where the matrix area starts  */
    /* whole matrices: A at (ax, ay), B at (bx, by), C at (cx, cy) */
    double ax, ay, bx, by, cx, cy;
    double sm, sn, sk;                   /* px per element along M, N, K    */
    double pm, pn, pk;                   /* px of the padded M, N, K axes   */
    long gm, gn, gk;                     /* a grid line every g tiles       */
    int to_scale;                        /* 0: an axis was stretched        */
    /* the zoom on the followed block: As, Bs and its C tile */
    double zax, zay, zbx, zby, zcx, zcy;
    double zm, zn, zk;                   /* px per element in the zoom      */
} tb_layout;

/* A box in px: left, top, width, height. */
typedef struct tb_box { double x, y, w, h; } tb_box;

/* ---- svg_draw.c: shapes visible from t0 to t1 (t0 < 0: always) -------- */
void tb_svg_printf(tb_svg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes s with &, <, >, " escaped. */
void tb_svg_escape(tb_svg *g, const char *s);
/* <set> making the element it is inside visible from t0 to t1. */
void tb_svg_window(tb_svg *g, double t0, double t1);
/* Opens <tag attrs visibility=...> with its window; close with tb_svg_close. */
void tb_svg_open(tb_svg *g, const char *tag, double t0, double t1, const char *attrs_fmt, ...)
    __attribute__((format(printf, 5, 6)));
void tb_svg_close(tb_svg *g, const char *tag);
void tb_svg_rect(tb_svg *g, double t0, double t1, double x, double y, double w, double h,
                 const char *style);
void tb_svg_line(tb_svg *g, double t0, double t1, double x1, double y1, double x2, double y2,
                 const char *style);
/* Text (escaped) at x, y; style holds font size, anchor, fill. */
void tb_svg_text(tb_svg *g, double t0, double t1, double x, double y, const char *style,
                 const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* A rectangle moving (and resizing) from one place to another over
 * [t0, t0 + move], then staying until t1. */
void tb_svg_fly(tb_svg *g, double t0, double move, double t1,
                double x0, double y0, double w0, double h0,
                double x1, double y1, double w1, double h1, const char *style);
/* A tile w x h at (x, y) whose first vw x vh lie inside its matrix: that
 * part in colour col, the zeros around it hatched and labelled 0 where the
 * label meets none of the navoid boxes in avoid (what is drawn on top of
 * the tile later: the followed thread's rows, labels); no label when no
 * place is free. */
void tb_svg_tile(tb_svg *g, double t0, double t1, double x, double y, double w, double h,
                 double vw, double vh, const char *col, const tb_box *avoid, int navoid);
/* A text's box, from a width estimate on the wide side for DejaVu Sans
 * (0.64 em a character, 0.72 em bold), 0.76 em above the baseline to 0.24
 * em below; anchor 's'tart, 'm'iddle or 'e'nd. For keeping labels apart,
 * where too wide only costs a label. */
tb_box tb_text_box(double x, double y, double size, int bold, char anchor, const char *s);
/* Whether two boxes come closer than margin px. */
int tb_boxes_meet(tb_box a, tb_box b, double margin);
/* begin="..." value for time t: "Ns" or "<idp>clk.begin+Ns". */
const char *tb_svg_begin(const tb_svg *g, double t, char *buf, size_t len);

/* ---- svg_zoom.c: the block's shared memory and C tile ----------------- */
/* Below the zoom, from top to bottom: the C tile's caption, the barrier
 * callout (a box of TB_CALLOUT_H px, shown during barriers only) and the
 * step's one-line caption, whose baseline is TB_ZOOM_LINE below L->top.
 * Each has a band of its own, so that none of them covers another or the
 * drawing above it. */
#define TB_ZOOM_LINE   554.0
#define TB_CALLOUT_H   50.0
#define TB_CALLOUT_GAP 26.0     /* zoom bottom to callout top (caption inside) */
void tb_svg_zoom(tb_svg *g, const tb_anim_view *v, const tb_layout *L);

/* ---- svg_trace.c: the traced call's timeline and buffers --------------- */
#define TB_TRACE_PANEL_H 215.0
void tb_svg_trace_panel(tb_svg *g, const tb_anim_view *v, const tb_layout *L);

/* ---- svg.c: finding steps ---------------------------------------------- */
/* The step of that kind (and phase, when phase >= 0); NULL if none. */
const tb_anim_step *tb_find_step(const tb_anim_view *v, enum tb_step_kind kind, long phase);
/* Times: start of the step, end of the step, or -1 when absent. */
double tb_step_t0(const tb_anim_view *v, enum tb_step_kind kind, long phase);
double tb_step_t1(const tb_anim_view *v, enum tb_step_kind kind, long phase);

#endif
