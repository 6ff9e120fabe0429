/* tool/animate/plot.c - benchmark pictures: GFLOP/s against size from a CSV
 * (series,size,gflops) drawn by gnuplot through a pipe, PNG or SVG by the
 * output's extension. Reads and checks the CSV itself, so gnuplot only ever
 * sees clean inline data; never runs a shell, and never shows gnuplot the
 * output's name: we open the file and gnuplot writes to its stdout. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* getline, popen, mkstemp, setenv */
#endif
#include "animate.h"
#include "tb_files.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TB_PLOT_MAX_SERIES 16

typedef struct tb_point { int series; double size, gflops; } tb_point;

typedef struct tb_plot_data {
    char names[TB_PLOT_MAX_SERIES][64];
    int nseries;
    tb_point *pts;
    size_t npts, cap;
    double min_size, max_size;
} tb_plot_data;

static int tb_gnuplot_on_path(void)
{
    const char *path = getenv("PATH");
    char buf[4096];
    if (!path || !*path)
        return 0;
    for (const char *p = path; *p; ) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)len, len ? p : ".");
        if (access(buf, X_OK) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* Titles, labels and series names go into gnuplot's double-quoted strings:
 * printable characters only, none that gnuplot gives a meaning there (a
 * backquote runs a shell command, a backslash escapes, '@' names a macro,
 * '"' ends the string). */
static void tb_clean_name(char *dst, size_t len, const char *src)
{
    size_t n = 0;
    for (; *src && n + 1 < len; src++)
        dst[n++] = *src == '"' ? '\''
                 : (isprint((unsigned char)*src) && !strchr("\\`@$", *src)) ? *src : '_';
    dst[n] = '\0';
}

static int tb_add_point(tb_plot_data *d, const char *series, double size, double gf)
{
    int s;
    for (s = 0; s < d->nseries; s++)
        if (strcmp(d->names[s], series) == 0)
            break;
    if (s == d->nseries) {
        if (d->nseries == TB_PLOT_MAX_SERIES)
            return -1;
        snprintf(d->names[d->nseries++], sizeof d->names[0], "%s", series);
    }
    if (d->npts == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        tb_point *p = realloc(d->pts, cap * sizeof *p);
        if (!p)
            return -1;
        d->pts = p;
        d->cap = cap;
    }
    d->pts[d->npts++] = (tb_point){s, size, gf};
    if (d->npts == 1 || size < d->min_size) d->min_size = size;
    if (d->npts == 1 || size > d->max_size) d->max_size = size;
    return 0;
}

static int tb_read_csv(const char *path, tb_plot_data *d)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tiledblas: plot: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (lineno == 1 || line[0] == '\0' || line[0] == '#')
            continue;                         /* the header, blank lines */
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL, *e1, *e2;
        if (!c2) {
            fprintf(stderr, "tiledblas: plot: %s:%d: want series,size,gflops\n", path, lineno);
            rc = -1;
            break;
        }
        *c1 = *c2 = '\0';
        double size = strtod(c1 + 1, &e1), gf = strtod(c2 + 1, &e2);
        char name[64];
        tb_clean_name(name, sizeof name, line);
        if (e1 == c1 + 1 || e2 == c2 + 1 || tb_add_point(d, name, size, gf) != 0) {
            fprintf(stderr, "tiledblas: plot: %s:%d: bad numbers or more than %d series\n",
                    path, lineno, TB_PLOT_MAX_SERIES);
            rc = -1;
            break;
        }
    }
    fclose(f);
    if (rc == 0 && d->npts == 0) {
        fprintf(stderr, "tiledblas: plot: %s holds no points\n", path);
        rc = -1;
    }
    return rc;
}

static void tb_write_script(FILE *g, const tb_plot_data *d, int svg, const char *title)
{
    char t[160];
    tb_clean_name(t, sizeof t, title ? title : "GFLOP/s against size");
    if (svg)
        fprintf(g, "set terminal svg size 900,560 dynamic enhanced font 'DejaVu Sans,12' background rgb 'white'\n");
    else   /* pngcairo when built in, else the libgd png terminal */
        fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                   "  set terminal pngcairo size 900,560 enhanced font 'DejaVu Sans,11'\n"
                   "} else {\n  set terminal png size 900,560\n}\n");
    fprintf(g, "set title \"%s\" noenhanced\n", t);
    fprintf(g, "set xlabel 'size (M = N = K)'\nset ylabel 'GFLOP/s'\nset grid\n"
               "set key top left noenhanced\nset yrange [0:*]\n");
    if (d->min_size > 0 && d->max_size / d->min_size >= 16)
        fprintf(g, "set logscale x 2\n");
    for (int s = 0; s < d->nseries; s++) {
        fprintf(g, "$s%d << EOD\n", s);
        for (size_t i = 0; i < d->npts; i++)
            if (d->pts[i].series == s)
                fprintf(g, "%.17g %.17g\n", d->pts[i].size, d->pts[i].gflops);
        fprintf(g, "EOD\n");
    }
    fprintf(g, "plot ");
    for (int s = 0; s < d->nseries; s++)
        fprintf(g, "%s$s%d using 1:2 with linespoints lw 2 pt 7 title \"%s\"",
                s ? ", " : "", s, d->names[s]);
    fprintf(g, "\nquit\n");
}

/* The terminal for out_path (.png or .svg), or -1 with a message; also
 * refuses a missing gnuplot. */
static int tb_plot_target(const char *out_path)
{
    const char *ext = strrchr(out_path, '.');
    int svg;
    if (ext && strcasecmp(ext, ".svg") == 0)
        svg = 1;
    else if (ext && strcasecmp(ext, ".png") == 0)
        svg = 0;
    else {
        fprintf(stderr, "tiledblas: plot: %s: the output must end in .png or .svg\n", out_path);
        return -1;
    }
    if (!tb_gnuplot_on_path()) {
        fprintf(stderr, "tiledblas: plot: gnuplot not found on PATH (Debian: apt-get install gnuplot-nox)\n");
        return -1;
    }
    return svg;
}

/* Runs gnuplot with the script that write() produces on its stdin and the
 * output file, opened here, as its stdout: the file's name never reaches
 * gnuplot, so no character of it can be read as a command. Checks that a
 * picture came out; a failed one is removed. */
static int tb_plot_run(const char *out_path, void (*write)(FILE *, const void *), const void *arg)
{
    const char *why;
    int out = tb_open_write(out_path, TB_WRITE_TRUNCATE, &why);
    if (out < 0) {
        fprintf(stderr, "tiledblas: plot: cannot write %s: %s\n", out_path, why);
        return -1;
    }
    /* gnuplot may die early; a write to its pipe must not kill us. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    fflush(NULL);
    int rc = -1, fds[2];
    pid_t pid = -1;
    if (pipe(fds) == 0) {
        pid = fork();
        if (pid == 0) {
            dup2(fds[0], STDIN_FILENO);
            dup2(out, STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
            close(out);
            execlp("gnuplot", "gnuplot", (char *)NULL);
            _exit(127);
        }
        close(fds[0]);
        FILE *g = pid > 0 ? fdopen(fds[1], "w") : NULL;
        if (g) {
            write(g, arg);
            fclose(g);
        } else {
            close(fds[1]);
        }
    }
    int st = 0;
    if (pid > 0) {
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        rc = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
    }
    sigaction(SIGPIPE, &old, NULL);
    struct stat fs, ps;
    if (rc == 0 && (fstat(out, &fs) != 0 || fs.st_size <= 0))
        rc = -1;
    /* Removed only while the name still leads to the file written here. */
    if (rc != 0 && fstat(out, &fs) == 0 && lstat(out_path, &ps) == 0 && fs.st_ino == ps.st_ino &&
        fs.st_dev == ps.st_dev)
        unlink(out_path);
    close(out);
    if (rc != 0)
        fprintf(stderr, "tiledblas: plot: gnuplot failed to write %s\n", out_path);
    return rc;
}

typedef struct tb_csv_job { const tb_plot_data *d; const char *out, *title; int svg; } tb_csv_job;

static void tb_csv_script(FILE *g, const void *arg)
{
    const tb_csv_job *j = arg;
    tb_write_script(g, j->d, j->svg, j->title);
}

int tb_plot_csv(const char *csv_path, const char *out_path, const char *title)
{
    int svg = tb_plot_target(out_path);
    if (svg < 0)
        return -1;
    tb_plot_data d;
    memset(&d, 0, sizeof d);
    if (tb_read_csv(csv_path, &d) != 0) {
        free(d.pts);
        return -1;
    }
    tb_csv_job j = {&d, out_path, title, svg};
    int rc = tb_plot_run(out_path, tb_csv_script, &j);
    free(d.pts);
    return rc;
}

typedef struct tb_bars_job {
    const char *out, *title, *ylabel;
    int n, svg;
    const char *const *labels;
    const double *values;
} tb_bars_job;

static void tb_bars_script(FILE *g, const void *arg)
{
    const tb_bars_job *j = arg;
    char t[160], y[96], l[64];
    tb_clean_name(t, sizeof t, j->title);
    tb_clean_name(y, sizeof y, j->ylabel);
    if (j->svg)
        fprintf(g, "set terminal svg size 720,440 dynamic enhanced font 'DejaVu Sans,12' background rgb 'white'\n");
    else
        fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                   "  set terminal pngcairo size 720,440 enhanced font 'DejaVu Sans,11'\n"
                   "} else {\n  set terminal png size 720,440\n}\n");
    fprintf(g, "set title \"%s\" noenhanced\nset ylabel \"%s\" noenhanced\n"
               "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset grid ytics\n"
               "set yrange [0:*]\nset key off\nset xtics noenhanced\n$bars << EOD\n", t, y);
    for (int i = 0; i < j->n; i++) {
        tb_clean_name(l, sizeof l, j->labels[i]);
        fprintf(g, "%d \"%s\" %.17g\n", i, l, j->values[i]);
    }
    fprintf(g, "EOD\nplot $bars using 1:3:xtic(2) with boxes lc rgb '#3b7dd8', "
               "'' using 1:3:(sprintf('%%.3g', $3)) with labels offset 0,0.8\nquit\n");
}

int tb_plot_bars(const char *out_path, const char *title, const char *ylabel, int n,
                 const char *const *labels, const double *values)
{
    int svg = tb_plot_target(out_path);
    if (svg < 0)
        return -1;
    tb_bars_job j = {out_path, title, ylabel, n, svg, labels, values};
    return tb_plot_run(out_path, tb_bars_script, &j);
}
