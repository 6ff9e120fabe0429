/* tool/animate/cli.c - the options of `tiledblas animate` and the run: parse,
 * check against the schedule, read the traced call, build one view per
 * kernel and write the SVG and/or HTML. Kernels come in as a table, so this
 * file does not depend on libtiledblas (cmd.c supplies the real table). */
#include "animate.h"
#include "tb_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char tb_usage[] =
    "usage: tiledblas animate [options]\n"
    "Draws how a kernel's thread blocks map onto C = A * B, phase by phase.\n"
    "  --m M --n N --k K     matrix sizes (default 40 40 40: ragged for 16x16 tiles)\n"
    "  --kernel NAME         kernel to follow (default tiled16; see the list below)\n"
    "  --block BX,BY         blockIdx.x,blockIdx.y to follow (default: the last block,\n"
    "                        which touches every ragged edge)\n"
    "  --thread TY,TX        thread (row, column) inside the block (default: one inside C)\n"
    "  --svg FILE            write a stand-alone animated SVG (SMIL; '-' = stdout)\n"
    "  --html FILE           write a page with play/pause/step and a kernel chooser\n"
    "  --trace FILE          animate a call from a TILEDBLAS_TRACE file (JSON Lines)\n"
    "  --call N              which call of the trace, 1 = first (default: first GPU call)\n"
    "  --help                this text\n"
    "At least one of --svg and --html is needed. The page understands #step=N,\n"
    "#phase=P and #kernel=NAME in its URL.\n";

typedef struct tb_anim_opts {
    long m, n, k;
    int sizes_given;
    const char *kernel, *svg, *html, *trace;
    long bx, by, ty, tx;
    int block_given, thread_given;
    int call;
} tb_anim_opts;

static int tb_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tiledblas: animate: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\ntiledblas: run `tiledblas animate --help` for the options\n");
    return 2;
}

static int tb_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int tb_parse_pair(const char *s, long *a, long *b)
{
    char buf[64], *comma;
    snprintf(buf, sizeof buf, "%s", s);
    comma = strchr(buf, ',');
    if (!comma)
        return -1;
    *comma = '\0';
    return (tb_parse_long(buf, 0, 1L << 40, a) || tb_parse_long(comma + 1, 0, 1L << 40, b)) ? -1 : 0;
}

/* Returns 0, 1 after --help, or 2 (message printed) on bad usage. */
static int tb_parse_opts(int argc, char **argv, tb_anim_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[32];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        if (strncmp(a, "--", 2) != 0)
            return tb_usage_error("unexpected argument '%s'", a);
        const char *eq = strchr(a, '=');
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            return tb_usage_error("%s needs a value", a);
        long x;
        if (!strcmp(name, "--m") || !strcmp(name, "--n") || !strcmp(name, "--k")) {
            if (tb_parse_long(val, name[2] == 'k' ? 0 : 1, 1L << 31, &x))
                return tb_usage_error("bad size '%s' (a whole number, >= 1; K may be 0)", val);
            *(name[2] == 'm' ? &o->m : name[2] == 'n' ? &o->n : &o->k) = x;
            o->sizes_given = 1;
        } else if (!strcmp(name, "--kernel")) {
            o->kernel = val;
        } else if (!strcmp(name, "--block")) {
            if (tb_parse_pair(val, &o->bx, &o->by))
                return tb_usage_error("bad --block '%s' (want BX,BY, e.g. 2,1)", val);
            o->block_given = 1;
        } else if (!strcmp(name, "--thread")) {
            if (tb_parse_pair(val, &o->ty, &o->tx))
                return tb_usage_error("bad --thread '%s' (want TY,TX, e.g. 3,4)", val);
            o->thread_given = 1;
        } else if (!strcmp(name, "--svg")) {
            o->svg = val;
        } else if (!strcmp(name, "--html")) {
            o->html = val;
        } else if (!strcmp(name, "--trace")) {
            o->trace = val;
        } else if (!strcmp(name, "--call")) {
            if (tb_parse_long(val, 1, 1L << 30, &x))
                return tb_usage_error("bad --call '%s' (1 = the first call in the trace)", val);
            o->call = (int)x;
        } else {
            return tb_usage_error("unknown option '%s'", name);
        }
    }
    if (!o->svg && !o->html)
        return tb_usage_error("%s", "nothing to write: give --svg FILE and/or --html FILE");
    if (o->call && !o->trace)
        return tb_usage_error("%s", "--call needs --trace FILE");
    return 0;
}

static int tb_find_kernel(const tb_anim_geom *k, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return i;
    return -1;
}

/* One view: the schedule for kernel g and the block/thread to follow. The
 * user's block and thread are checked against the chosen kernel (strict)
 * and quietly replaced by defaults on the others. */
static int tb_make_view(tb_anim_view *v, const tb_anim_geom *g, const tb_anim_opts *o,
                        const tb_trace_call *call, int strict)
{
    char err[200];
    memset(v, 0, sizeof *v);
    if (tb_anim_sched_init(&v->s, g, o->m, o->n, o->k, err, sizeof err) != 0) {
        fprintf(stderr, "tiledblas: animate: %s\n", err);
        return 1;
    }
    const tb_anim_sched *s = &v->s;
    tb_anim_default_block(s, &v->bx, &v->by);
    if (o->block_given && o->bx < s->grid_x && o->by < s->grid_y) {
        v->bx = o->bx;
        v->by = o->by;
    } else if (o->block_given && strict) {
        fprintf(stderr, "tiledblas: animate: --block %ld,%ld is outside the grid of %ld x %ld blocks "
                "(x 0..%ld, y 0..%ld) of kernel %s\n", o->bx, o->by, s->grid_x, s->grid_y,
                s->grid_x - 1, s->grid_y - 1, g->name);
        return 2;
    }
    tb_anim_default_thread(s, v->bx, v->by, &v->ty, &v->tx);
    if (o->thread_given && o->ty < s->thr_y && o->tx < s->thr_x) {
        v->ty = o->ty;
        v->tx = o->tx;
    } else if (o->thread_given && strict) {
        fprintf(stderr, "tiledblas: animate: --thread %ld,%ld is outside the %ld x %ld threads "
                "(ty 0..%ld, tx 0..%ld) of kernel %s\n", o->ty, o->tx, s->thr_y, s->thr_x,
                s->thr_y - 1, s->thr_x - 1, g->name);
        return 2;
    }
    v->call = call;
    tb_anim_build_steps(v);
    return 0;
}

/* The picture to path ("-": stdout), opened as every file the tool writes
 * is (tb_open_write: no link followed, no FIFO or device). */
static int tb_write(const char *path, const tb_anim_view *views, int n, int first, int html)
{
    int to_stdout = strcmp(path, "-") == 0;
    const char *why = NULL;
    int fd = to_stdout ? -1 : tb_open_write(path, TB_WRITE_TRUNCATE, &why);
    FILE *f = to_stdout ? stdout : fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "tiledblas: animate: cannot write %s: %s\n", path,
                why ? why : strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    int rc = html ? tb_anim_write_html(f, views, n, first)
                  : tb_anim_write_svg(f, &views[first], 1, "");
    if ((to_stdout ? fflush(f) : fclose(f)) != 0)
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "tiledblas: animate: writing %s failed\n", path);
        return 1;
    }
    return 0;
}

/* Applies the traced call to the options; returns 0 or an exit code. */
static int tb_use_trace(tb_anim_opts *o, tb_trace_call *call, const tb_anim_geom *kernels, int nk)
{
    char err[300];
    int skipped = 0;
    if (tb_trace_read(o->trace, o->call, call, &skipped, err, sizeof err) != 0) {
        fprintf(stderr, "tiledblas: animate: %s\n", err);
        return 1;
    }
    if (skipped)
        fprintf(stderr, "tiledblas: animate: skipped %d malformed line(s) in %s\n", skipped, o->trace);
    if (o->sizes_given)
        fprintf(stderr, "tiledblas: animate: --m/--n/--k ignored: the trace gives %ld x %ld x %ld\n",
                call->m, call->n, call->k);
    int gpu = strcmp(call->route, "gpu") == 0;
    if (gpu && (call->m < 1 || call->n < 1 || call->k < 0)) {
        fprintf(stderr, "tiledblas: animate: call #%d is empty (%ld x %ld x %ld): nothing to draw\n",
                call->index, call->m, call->n, call->k);
        return 1;
    }
    o->m = call->m > 0 ? call->m : 1;
    o->n = call->n > 0 ? call->n : 1;
    o->k = call->k > 0 ? call->k : 0;
    if (gpu && call->kernel[0] && !o->kernel) {
        if (tb_find_kernel(kernels, nk, call->kernel) >= 0)
            o->kernel = call->kernel;
        else
            fprintf(stderr, "tiledblas: animate: the trace names kernel '%s', unknown here; drawing %s\n",
                    call->kernel, kernels[0].name);
    }
    return 0;
}

int tb_animate_main(int argc, char **argv, const tb_anim_geom *kernels, int nkernels)
{
    tb_anim_opts o = {.m = 40, .n = 40, .k = 40};
    int rc = tb_parse_opts(argc, argv, &o);
    if (rc == 1) {
        fputs(tb_usage, stdout);
        printf("kernels:\n");
        for (int i = 0; i < nkernels; i++)
            printf("  %-16s %s\n", kernels[i].name, kernels[i].summary);
        return 0;
    }
    if (rc != 0)
        return rc;
    if (nkernels < 1) {
        fprintf(stderr, "tiledblas: animate: the library lists no kernels\n");
        return 1;
    }
    tb_trace_call call;
    if (o.trace && (rc = tb_use_trace(&o, &call, kernels, nkernels)) != 0)
        return rc;
    int first = tb_find_kernel(kernels, nkernels, o.kernel ? o.kernel : "tiled16");
    if (first < 0 && !o.kernel)
        first = 0;
    if (first < 0) {
        fprintf(stderr, "tiledblas: animate: no kernel named '%s'; there are:", o.kernel);
        for (int i = 0; i < nkernels; i++)
            fprintf(stderr, " %s", kernels[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    tb_anim_view *views = calloc((size_t)nkernels, sizeof *views);
    if (!views) {
        fprintf(stderr, "tiledblas: animate: out of memory\n");
        return 1;
    }
    /* A kernel whose geometry cannot be drawn is left out of the chooser;
     * only the chosen kernel's problems stop the run. */
    int nv = 0, shown = 0;
    for (int i = 0; i < nkernels && rc == 0; i++) {
        int r = tb_make_view(&views[nv], &kernels[i], &o, o.trace ? &call : NULL, i == first);
        if (r == 0) {
            if (i == first)
                shown = nv;
            nv++;
        } else if (i == first) {
            rc = r;
        } else {
            fprintf(stderr, "tiledblas: animate: kernel %s left out of the page\n", kernels[i].name);
        }
    }
    if (rc == 0 && o.svg)
        rc = tb_write(o.svg, views, nv, shown, 0);
    if (rc == 0 && o.html)
        rc = tb_write(o.html, views, nv, shown, 1);
    free(views);
    return rc;
}
