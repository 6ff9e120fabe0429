/* tool/animate/model.c - the schedule behind `tiledblas animate`: the grid of
 * thread blocks, the phases along K, what each block loads (with the zeros
 * at ragged edges) and the list of steps the animation plays. Pure
 * arithmetic: no drawing, no I/O, no library calls. */
#include "animate.h"

#include <stdio.h>
#include <string.h>

static long tb_ceil_div(long a, long b) { return b > 0 ? (a + b - 1) / b : 0; }
static long tb_min(long a, long b) { return a < b ? a : b; }
static long tb_max(long a, long b) { return a > b ? a : b; }

int tb_anim_geom_check(const tb_anim_geom *g, char *err, size_t errlen)
{
    if (g->block_m <= 0 || g->block_n <= 0 || g->block_k <= 0 ||
        g->thread_m <= 0 || g->thread_n <= 0) {
        snprintf(err, errlen, "kernel %s: block and thread tiles must be positive", g->name);
        return -1;
    }
    if (g->block_m % g->thread_m || g->block_n % g->thread_n) {
        snprintf(err, errlen, "kernel %s: thread micro-tile %dx%d does not divide block tile %dx%d",
                 g->name, g->thread_m, g->thread_n, g->block_m, g->block_n);
        return -1;
    }
    if ((g->warp_m > 0) != (g->warp_n > 0) ||
        (g->warp_m > 0 && (g->block_m % g->warp_m || g->block_n % g->warp_n ||
                           g->warp_m % g->thread_m || g->warp_n % g->thread_n))) {
        snprintf(err, errlen, "kernel %s: warp tile %dx%d does not fit block %dx%d and micro-tile %dx%d",
                 g->name, g->warp_m, g->warp_n, g->block_m, g->block_n, g->thread_m, g->thread_n);
        return -1;
    }
    return 0;
}

int tb_anim_sched_init(tb_anim_sched *s, const tb_anim_geom *g,
                       long m, long n, long k, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (tb_anim_geom_check(g, err, errlen) != 0)
        return -1;
    if (m < 1 || n < 1 || k < 0) {
        snprintf(err, errlen, "sizes must be m >= 1, n >= 1, k >= 0 (got %ld x %ld x %ld)", m, n, k);
        return -1;
    }
    s->g = *g;
    s->m = m; s->n = n; s->k = k;
    s->grid_x = tb_ceil_div(n, g->block_n);
    s->grid_y = tb_ceil_div(m, g->block_m);
    s->phases = tb_ceil_div(k, g->block_k);
    s->thr_y = g->block_m / g->thread_m;
    s->thr_x = g->block_n / g->thread_n;
    return 0;
}

long tb_anim_blocks(const tb_anim_sched *s) { return s->grid_x * s->grid_y; }

void tb_anim_tile_at(const tb_anim_sched *s, long bx, long by, long ph, tb_anim_tile *t)
{
    const tb_anim_geom *g = &s->g;
    t->row0 = by * g->block_m;
    t->col0 = bx * g->block_n;
    t->k0 = ph >= 0 ? ph * g->block_k : 0;
    t->rows = tb_max(0, tb_min(g->block_m, s->m - t->row0));
    t->cols = tb_max(0, tb_min(g->block_n, s->n - t->col0));
    t->ks = ph >= 0 ? tb_max(0, tb_min(g->block_k, s->k - t->k0)) : 0;
    t->a_pad = ph >= 0 ? (long)g->block_m * g->block_k - t->rows * t->ks : 0;
    t->b_pad = ph >= 0 ? (long)g->block_k * g->block_n - t->ks * t->cols : 0;
    t->c_skip = (long)g->block_m * g->block_n - t->rows * t->cols;
}

/* Sums over blocks and phases factor: the valid part of every A tile is
 * rows(by) x ks(ph), and the rows summed over by give M, the ks over ph K. */
void tb_anim_padding(const tb_anim_sched *s, long *a_pad, long *b_pad, long *c_skip)
{
    const tb_anim_geom *g = &s->g;
    long mp = s->grid_y * g->block_m, np = s->grid_x * g->block_n, kp = s->phases * g->block_k;
    *a_pad = s->grid_x * (mp * kp - s->m * s->k);
    *b_pad = s->grid_y * (kp * np - s->k * s->n);
    *c_skip = mp * np - s->m * s->n;
}

void tb_anim_default_block(const tb_anim_sched *s, long *bx, long *by)
{
    if (s->m % s->g.block_m || s->n % s->g.block_n) {
        *bx = s->grid_x - 1;        /* the corner block touches both edges */
        *by = s->grid_y - 1;
    } else {
        *bx = s->grid_x / 2;        /* no ragged edge: one easy to spot */
        *by = s->grid_y / 2;
    }
}

void tb_anim_default_thread(const tb_anim_sched *s, long bx, long by, long *ty, long *tx)
{
    tb_anim_tile t;
    tb_anim_tile_at(s, bx, by, -1, &t);
    long vy = tb_ceil_div(t.rows, s->g.thread_m), vx = tb_ceil_div(t.cols, s->g.thread_n);
    *ty = tb_max(0, (vy - 1) / 2);
    *tx = tb_min(vx - 1, vx / 2);
    if (*tx < 0)
        *tx = 0;
}

int tb_anim_shown_phases(long phases, long *out, int max)
{
    int n = 0;
    if (phases <= 6) {
        for (long p = 0; p < phases && n < max; p++)
            out[n++] = p;
        return n;
    }
    for (long p = 0; p < 3 && n < max; p++)
        out[n++] = p;
    if (n < max)
        out[n++] = phases - 1;
    return n;
}

const char *tb_anim_step_name(enum tb_step_kind kind)
{
    switch (kind) {
    case TB_STEP_ROUTE:    return "route";
    case TB_STEP_BUFFERS:  return "buffers";
    case TB_STEP_H2D:      return "host to device";
    case TB_STEP_INTRO:    return "grid";
    case TB_STEP_LOAD:     return "load";
    case TB_STEP_BARRIER1: return "barrier 1";
    case TB_STEP_COMPUTE:  return "compute";
    case TB_STEP_BARRIER2: return "barrier 2";
    case TB_STEP_SKIP:     return "more phases";
    case TB_STEP_WRITE:    return "write C";
    case TB_STEP_D2H:      return "device to host";
    case TB_STEP_CPU:      return "CPU";
    }
    return "?";
}

static tb_anim_step *tb_add_step(tb_anim_view *v, enum tb_step_kind kind, long phase, double dur)
{
    if (v->nsteps >= TB_ANIM_MAX_STEPS)
        return NULL;
    tb_anim_step *st = &v->steps[v->nsteps++];
    st->kind = kind;
    st->phase = phase;
    st->t0 = v->total;
    st->dur = dur;
    st->label[0] = '\0';
    v->total += dur;
    return st;
}

#define TB_STEP(v, kind, ph, dur, ...) do { \
        tb_anim_step *st_ = tb_add_step((v), (kind), (ph), (dur)); \
        if (st_) snprintf(st_->label, sizeof st_->label, __VA_ARGS__); \
    } while (0)

static void tb_steps_trace_head(tb_anim_view *v)
{
    const tb_trace_call *c = v->call;
    int gpu = strcmp(c->route, "gpu") == 0;
    TB_STEP(v, TB_STEP_ROUTE, -1, 3.0, "call #%d: %s %ldx%ldx%ld went to the %s: %s",
            c->index, c->api[0] ? c->api : "sgemm", c->m, c->n, c->k,
            gpu ? "GPU" : "CPU", c->reason[0] ? c->reason : "(no reason recorded)");
    TB_STEP(v, TB_STEP_BUFFERS, -1, 3.0,
            "buffers: each row of A, B, C is its width in elements; the pitch (ld) may be wider");
    if (!gpu) {
        TB_STEP(v, TB_STEP_CPU, -1, 4.0, "this call ran on the CPU (%s): no transfers, no kernel",
                c->reason[0] ? c->reason : "no reason recorded");
        return;
    }
    TB_STEP(v, TB_STEP_H2D, -1, 2.5, "host to device: %.0f bytes in %.3f ms",
            c->bytes_h2d, c->h2d_s * 1e3);
}

static void tb_steps_tiles(tb_anim_view *v)
{
    const tb_anim_sched *s = &v->s;
    const tb_anim_geom *g = &s->g;
    long shown[8];
    int nshown = tb_anim_shown_phases(s->phases, shown, 8);
    tb_anim_tile t;
    tb_anim_tile_at(s, v->bx, v->by, -1, &t);

    TB_STEP(v, TB_STEP_INTRO, -1, 3.0,
            "grid of %ld x %ld blocks, one per %dx%d tile of C; following blockIdx (x=%ld, y=%ld)",
            s->grid_x, s->grid_y, g->block_m, g->block_n, v->bx, v->by);
    for (int i = 0; i < nshown; i++) {
        long ph = shown[i];
        if (i > 0 && ph != shown[i - 1] + 1)
            TB_STEP(v, TB_STEP_SKIP, -1, 2.0, "phases %ld..%ld: the same four steps, %ld more times",
                    shown[i - 1] + 1, ph - 1, ph - 1 - shown[i - 1]);
        tb_anim_tile_at(s, v->bx, v->by, ph, &t);
        TB_STEP(v, TB_STEP_LOAD, ph, 2.5,
                "phase %ld of %ld: load A[%ld..%ld][%ld..%ld] into As, B[%ld..%ld][%ld..%ld] into Bs",
                ph, s->phases, t.row0, t.row0 + g->block_m - 1, t.k0, t.k0 + g->block_k - 1,
                t.k0, t.k0 + g->block_k - 1, t.col0, t.col0 + g->block_n - 1);
        TB_STEP(v, TB_STEP_BARRIER1, ph, 1.5,
                "barrier 1: all loads done (__syncthreads) - phase %ld", ph);
        if (g->thread_m == 1 && g->thread_n == 1)
            TB_STEP(v, TB_STEP_COMPUTE, ph, 3.0,
                    "phase %ld: thread (ty=%ld, tx=%ld) adds As[%ld][p] * Bs[p][%ld], p = 0..%d, to its sum",
                    ph, v->ty, v->tx, v->ty, v->tx, g->block_k - 1);
        else
            TB_STEP(v, TB_STEP_COMPUTE, ph, 3.0,
                    "phase %ld: thread (%ld, %ld) adds %d rows of As times %d columns of Bs, p = 0..%d, to its %dx%d sums",
                    ph, v->ty, v->tx, g->thread_m, g->thread_n, g->block_k - 1, g->thread_m, g->thread_n);
        TB_STEP(v, TB_STEP_BARRIER2, ph, 1.5,
                "barrier 2: all reads done (__syncthreads) - phase %ld", ph);
    }
    tb_anim_tile_at(s, v->bx, v->by, -1, &t);
    if (t.c_skip > 0)
        TB_STEP(v, TB_STEP_WRITE, -1, 3.0,
                "write: C[%ld..%ld][%ld..%ld] = alpha*sum + beta*C; %ld of its %ld elements lie outside C and are not written",
                t.row0, t.row0 + t.rows - 1, t.col0, t.col0 + t.cols - 1, t.c_skip,
                (long)g->block_m * g->block_n);
    else
        TB_STEP(v, TB_STEP_WRITE, -1, 3.0, "write: C[%ld..%ld][%ld..%ld] = alpha*sum + beta*C",
                t.row0, t.row0 + t.rows - 1, t.col0, t.col0 + t.cols - 1);
}

void tb_anim_build_steps(tb_anim_view *v)
{
    v->nsteps = 0;
    v->total = 0.0;
    if (v->call) {
        tb_steps_trace_head(v);
        if (strcmp(v->call->route, "gpu") != 0)
            return;
    }
    tb_steps_tiles(v);
    if (v->call)
        TB_STEP(v, TB_STEP_D2H, -1, 2.5, "device to host: %.0f bytes in %.3f ms",
                v->call->bytes_d2h, v->call->d2h_s * 1e3);
}
