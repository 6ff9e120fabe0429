/* tool/animate/svg_draw.c - SVG primitives for the animation: shapes, text
 * (always escaped) and the SMIL timing that shows a shape for a window of
 * time. Knows nothing about matrices or kernels. */
#include "svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tb_svg_printf(tb_svg *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(g->f, fmt, ap) < 0)
        g->fail = 1;
    va_end(ap);
}

void tb_svg_escape(tb_svg *g, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", g->f); break;
        case '<': fputs("&lt;", g->f); break;
        case '>': fputs("&gt;", g->f); break;
        case '"': fputs("&quot;", g->f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                fputc(*s, g->f);     /* other control bytes are not XML */
        }
    }
}

const char *tb_svg_begin(const tb_svg *g, double t, char *buf, size_t len)
{
    if (g->loop)
        snprintf(buf, len, "%sclk.begin+%.3fs", g->idp, t);
    else
        snprintf(buf, len, "%.3fs", t);
    return buf;
}

static int tb_always(const tb_svg *g, double t0, double t1)
{
    return t0 < 0 || (t0 <= 0.0 && t1 >= g->total);
}

void tb_svg_window(tb_svg *g, double t0, double t1)
{
    char b[64];
    if (tb_always(g, t0, t1) || t1 <= t0)
        return;
    tb_svg_printf(g, "<set attributeName=\"visibility\" to=\"visible\" begin=\"%s\" dur=\"%.3fs\"/>",
                  tb_svg_begin(g, t0, b, sizeof b), t1 - t0);
}

static void tb_svg_vis_attr(tb_svg *g, double t0, double t1)
{
    if (!tb_always(g, t0, t1))
        tb_svg_printf(g, " visibility=\"hidden\"");
}

void tb_svg_open(tb_svg *g, const char *tag, double t0, double t1, const char *attrs_fmt, ...)
{
    va_list ap;
    tb_svg_printf(g, "<%s ", tag);
    va_start(ap, attrs_fmt);
    if (vfprintf(g->f, attrs_fmt, ap) < 0)
        g->fail = 1;
    va_end(ap);
    tb_svg_vis_attr(g, t0, t1);
    tb_svg_printf(g, ">");
    tb_svg_window(g, t0, t1);
}

void tb_svg_close(tb_svg *g, const char *tag)
{
    tb_svg_printf(g, "</%s>\n", tag);
}

void tb_svg_rect(tb_svg *g, double t0, double t1, double x, double y, double w, double h,
                 const char *style)
{
    if (w <= 0 || h <= 0)
        return;
    tb_svg_printf(g, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s",
                  x, y, w, h, style);
    tb_svg_vis_attr(g, t0, t1);
    if (tb_always(g, t0, t1)) {
        tb_svg_printf(g, "/>\n");
        return;
    }
    tb_svg_printf(g, ">");
    tb_svg_window(g, t0, t1);
    tb_svg_printf(g, "</rect>\n");
}

void tb_svg_line(tb_svg *g, double t0, double t1, double x1, double y1, double x2, double y2,
                 const char *style)
{
    tb_svg_printf(g, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s",
                  x1, y1, x2, y2, style);
    tb_svg_vis_attr(g, t0, t1);
    if (tb_always(g, t0, t1)) {
        tb_svg_printf(g, "/>\n");
        return;
    }
    tb_svg_printf(g, ">");
    tb_svg_window(g, t0, t1);
    tb_svg_printf(g, "</line>\n");
}

void tb_svg_text(tb_svg *g, double t0, double t1, double x, double y, const char *style,
                 const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tb_svg_printf(g, "<text x=\"%.1f\" y=\"%.1f\" %s", x, y, style);
    tb_svg_vis_attr(g, t0, t1);
    tb_svg_printf(g, ">");
    tb_svg_window(g, t0, t1);
    tb_svg_escape(g, buf);
    tb_svg_printf(g, "</text>\n");
}

void tb_svg_fly(tb_svg *g, double t0, double move, double t1,
                double x0, double y0, double w0, double h0,
                double x1, double y1, double w1, double h1, const char *style)
{
    char b[64];
    const char *attr[4] = {"x", "y", "width", "height"};
    double from[4] = {x0, y0, w0, h0}, to[4] = {x1, y1, w1, h1};
    tb_svg_printf(g, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s",
                  x0, y0, w0 > 0 ? w0 : 0.1, h0 > 0 ? h0 : 0.1, style);
    tb_svg_vis_attr(g, t0, t1);
    tb_svg_printf(g, ">");
    tb_svg_window(g, t0, t1);
    for (int i = 0; i < 4; i++)
        tb_svg_printf(g, "<animate attributeName=\"%s\" from=\"%.1f\" to=\"%.1f\" begin=\"%s\" "
                      "dur=\"%.3fs\" fill=\"freeze\"/>",
                      attr[i], from[i], to[i], tb_svg_begin(g, t0, b, sizeof b), move);
    tb_svg_printf(g, "</rect>\n");
}

tb_box tb_text_box(double x, double y, double size, int bold, char anchor, const char *s)
{
    double w = (double)strlen(s) * size * (bold ? 0.72 : 0.64);
    double x0 = anchor == 'm' ? x - w / 2 : anchor == 'e' ? x - w : x;
    return (tb_box){x0, y - 0.76 * size, w, size};
}

int tb_boxes_meet(tb_box a, tb_box b, double margin)
{
    return a.x < b.x + b.w + margin && b.x < a.x + a.w + margin &&
           a.y < b.y + b.h + margin && b.y < a.y + a.h + margin;
}

/* A tile of A, B or C: the part inside the matrix in colour, the zeros
 * loaded for the part outside hatched, with a "0" where there is room: the
 * middle of the hatched strip, else a quarter along it, clear of `avoid`. */
void tb_svg_tile(tb_svg *g, double t0, double t1, double x, double y, double w, double h,
                 double vw, double vh, const char *col, const tb_box *avoid, int navoid)
{
    char st[160];
    snprintf(st, sizeof st, "fill=\"url(#%shatch)\"", g->idp);
    tb_svg_rect(g, t0, t1, x, y, w, h, st);
    tb_svg_rect(g, t0, t1, x, y, vw, vh, "fill=\"white\"");
    snprintf(st, sizeof st, "fill=\"%s\" fill-opacity=\"0.6\"", col);
    tb_svg_rect(g, t0, t1, x, y, vw, vh, st);
    snprintf(st, sizeof st, "fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", col);
    tb_svg_rect(g, t0, t1, x, y, w, h, st);
    /* The hatched strip: right of the valid part, else below it. */
    tb_box z;
    if (w - vw >= 14 && h >= 14)
        z = (tb_box){x + vw, y, w - vw, h};
    else if (h - vh >= 14 && w >= 14)
        z = (tb_box){x, y + vh, w, h - vh};
    else
        return;
    static const double at[][2] = {{0.5, 0.5}, {0.5, 0.25}, {0.5, 0.75}, {0.25, 0.5}, {0.75, 0.5},
                                   {0.25, 0.25}, {0.75, 0.25}, {0.25, 0.75}, {0.75, 0.75}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        double zx = z.x + at[i][0] * z.w, zy = z.y + at[i][1] * z.h + 5;
        tb_box b = tb_text_box(zx, zy, 14, 1, 'm', "0");
        int free = b.x >= z.x - 3 && b.x + b.w <= z.x + z.w + 3 && b.y >= z.y - 3 && b.y + b.h <= z.y + z.h + 3;
        for (int j = 0; free && j < navoid; j++)
            free = !tb_boxes_meet(b, avoid[j], 1);
        if (free) {
            tb_svg_text(g, t0, t1, zx, zy, "font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" "
                        "fill=\"#444\"", "0");
            return;
        }
    }
}
