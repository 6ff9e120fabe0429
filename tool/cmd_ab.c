/* tool/cmd_ab.c - `tiledblas ab`: runs one command on the CPU BLAS and
 * in auto mode, repeated and alternating, then in verify mode, each with
 * statistics going to a JSON-lines file it reads back, and prints them side
 * by side with the median and range of each side's wall time, by precision
 * when the command makes calls in more than one (single, double, complex,
 * zcomplex). Exits 1 when a
 * verified call broke its precision's bound or a run failed. Writes nothing outside
 * a private temporary directory, removed on every exit (a fatal signal
 * included), but the --log and --plot files the user names. */
#define _GNU_SOURCE
#include "tool.h"
#ifdef TB_HAVE_ANIMATE
#include "animate.h"
#endif
#include "tiledblas.h"
#include "tb_files.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char tb_ab_usage[] =
    "usage: tiledblas ab [--repeat N] [--log FILE] [--plot F.png|F.svg] [--] CMD [ARGS...]\n"
    "After one untimed warm-up of each side, runs CMD N times (default 3, at most\n"
    "64; --runs N is the same) each with TILEDBLAS_MODE=cpu and auto, alternating,\n"
    "then once with TILEDBLAS_MODE=verify, each under TILEDBLAS_STATS, and\n"
    "prints a side-by-side table: median and range of the wall times, calls,\n"
    "GFLOP and GFLOP/s by route (and by precision when CMD makes calls in more\n"
    "than one), bytes moved and the worst verify error, then\n"
    "a verdict: auto faster or slower than cpu only when the two ranges do not\n"
    "overlap, \"within noise\" when they do. CMD's stdout and stderr are\n"
    "appended to FILE (without --log they are kept only while ab runs; a\n"
    "failing run's last lines are shown). --plot also draws the median wall\n"
    "times as a bar chart (gnuplot). Exit status: 0, or 1 when verification\n"
    "found a call outside its precision's error bound or CMD failed; 2 bad usage.\n";

/* The precisions of the statistics' "prec" field, in tb_prec order. */
enum { TB_NPREC = 4 };
static const char *const tb_prec_names[TB_NPREC] = {"single", "double", "complex", "zcomplex"};
/* What the stats files of one run say, summed over CMD's processes: by
 * route (0 cpu, 1 gpu), and by precision (0 single, 1 double) and route. */
typedef struct tb_runstats {
    double wall;
    double calls[2], gflop[2], seconds[2], bytes_h2d, bytes_d2h;
    double pcalls[TB_NPREC][2], pgflop[TB_NPREC][2], pseconds[TB_NPREC][2];
    int processes;
    char cpu_blas[512], blas_warning[512], gpu[256];
    double compared, outside, skipped, unavailable, max_abs, avg_abs, rel_fro, gpu_s, cpu_s;
    char unavailable_reason[64];
} tb_runstats;

/* Index of a "prec" field's value (absent: single); -1 if unknown. */
static int tb_prec_index(const char *prec)
{
    if (!prec[0])
        return 0;
    for (int d = 0; d < TB_NPREC; d++)
        if (!strcmp(prec, tb_prec_names[d]))
            return d;
    return -1;
}

/* The value of "key" in a flat JSON object on one line: a number in *num,
 * or a string copied into str. Returns 1 when found. */
static int tb_field(const char *line, const char *key, double *num, char *str, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p)
        return 0;
    p += strlen(pat);
    if (*p == '"') {
        size_t n = 0;
        for (p++; *p && *p != '"' && n + 1 < len; p++) {
            if (*p == '\\' && p[1])
                p++;
            if (str)
                str[n++] = *p;
        }
        if (str && len)
            str[n] = '\0';
        return 1;
    }
    if (num)
        *num = strtod(p, NULL);
    return 1;
}

static void tb_read_stats(const char *path, tb_runstats *r)
{
    int fd = tb_open_read(path);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f && fd >= 0)
        close(fd);
    char line[4096];
    if (!f)
        return;     /* CMD made no gemm calls: no process wrote a report */
    while (fgets(line, sizeof line, f)) {
        char kind[16] = "", route[8] = "", prec[8] = "";
        double x = 0;
        if (!tb_field(line, "stats", NULL, kind, sizeof kind))
            continue;
        if (!strcmp(kind, "process")) {
            r->processes++;
            tb_field(line, "cpu_blas", NULL, r->cpu_blas, sizeof r->cpu_blas);
            tb_field(line, "cpu_blas_warning", NULL, r->blas_warning, sizeof r->blas_warning);
            char gpu[256] = "";
            tb_field(line, "gpu", NULL, gpu, sizeof gpu);
            if (!r->gpu[0] || strncmp(gpu, "not started", 11) != 0)
                snprintf(r->gpu, sizeof r->gpu, "%s", gpu);
        } else if (!strcmp(kind, "row")) {
            tb_field(line, "route", NULL, route, sizeof route);
            tb_field(line, "prec", NULL, prec, sizeof prec);   /* absent: single */
            int g = !strcmp(route, "gpu");
            int d = tb_prec_index(prec);
            if (tb_field(line, "calls", &x, NULL, 0)) { r->calls[g] += x; if (d >= 0) r->pcalls[d][g] += x; }
            if (tb_field(line, "gflop", &x, NULL, 0)) { r->gflop[g] += x; if (d >= 0) r->pgflop[d][g] += x; }
            if (tb_field(line, "seconds", &x, NULL, 0)) { r->seconds[g] += x; if (d >= 0) r->pseconds[d][g] += x; }
            if (tb_field(line, "bytes_h2d", &x, NULL, 0)) r->bytes_h2d += x;
            if (tb_field(line, "bytes_d2h", &x, NULL, 0)) r->bytes_d2h += x;
        } else if (!strcmp(kind, "verify")) {
            if (tb_field(line, "compared", &x, NULL, 0)) r->compared += x;
            if (tb_field(line, "outside", &x, NULL, 0)) r->outside += x;
            if (tb_field(line, "skipped", &x, NULL, 0)) r->skipped += x;
            if (tb_field(line, "unavailable", &x, NULL, 0)) r->unavailable += x;
            if (tb_field(line, "max_abs", &x, NULL, 0) && x > r->max_abs) r->max_abs = x;
            if (tb_field(line, "avg_abs", &x, NULL, 0) && x > r->avg_abs) r->avg_abs = x;
            if (tb_field(line, "rel_fro", &x, NULL, 0) && x > r->rel_fro) r->rel_fro = x;
            if (tb_field(line, "gpu_s", &x, NULL, 0)) r->gpu_s += x;
            if (tb_field(line, "cpu_s", &x, NULL, 0)) r->cpu_s += x;
            char why[64] = "";
            if (tb_field(line, "unavailable_reason", NULL, why, sizeof why) && why[0])
                snprintf(r->unavailable_reason, sizeof r->unavailable_reason, "%s", why);
        }
    }
    fclose(f);
}

static int tb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *tb_rate(char *s, size_t len, double gflop, double sec)
{
    if (sec > 0.0 && gflop > 0.0) snprintf(s, len, "%.2f", gflop / sec);
    else snprintf(s, len, "-");
    return s;
}

static const char *tb_mb(char *s, size_t len, double b)
{
    snprintf(s, len, "%.1f MB", b / 1e6);
    return s;
}

/* What `ab` was asked to do, and where it keeps its files. */
typedef struct tb_ab {
    long runs;                    /* --repeat: timed runs of each side      */
    const char *log, *plot;       /* log: the user's --log, or one in dir   */
    char **cmd;
    char dir[4096];               /* the private temporary directory        */
    char deflog[4200];
    char stats[4200];             /* the stats file of the run under way    */
    tb_runstats r[3];             /* cpu, auto, verify                      */
    double lo[2], hi[2];          /* range of the cpu and auto wall times   */
} tb_ab;

/* The ab under way, for tb_ab_on_signal (set once its directory exists). */
static tb_ab *volatile tb_ab_live;

/* A fatal signal (SIGTERM, SIGHUP, or ^C between two runs: while CMD runs,
 * ^C is CMD's) removes what ab made, with async-signal-safe calls only, and
 * then takes its default action. */
static void tb_ab_on_signal(int sig)
{
    tb_ab *ab = tb_ab_live;
    if (ab) {
        if (ab->stats[0])
            unlink(ab->stats);
        if (ab->log == ab->deflog)
            unlink(ab->deflog);
        rmdir(ab->dir);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void tb_ab_catch_signals(tb_ab *ab)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction sa = {.sa_handler = tb_ab_on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    tb_ab_live = ab;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* A signal the caller ignores (nohup) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

/* Appends one line to the log (which tb_ab_prepare made a regular file). */
static void tb_ab_note(const char *log, const char *fmt, ...) TB_TOOL_PRINTF(2, 3);
static void tb_ab_note(const char *log, const char *fmt, ...)
{
    const char *why;
    int fd = tb_open_write(log, TB_WRITE_APPEND, &why);
    if (fd < 0)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0)
        tb_file_write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    close(fd);
}

/* Runs CMD once in one mode (run 0: the untimed warm-up); reads its stats
 * into r when keep. Returns CMD's status (0 when fine). */
static int tb_ab_once(tb_ab *ab, const char *mode, long run, long runs, int keep,
                      tb_runstats *r, double *wall)
{
    char stats[4200];
    snprintf(stats, sizeof stats, "%s/%s-%ld.json", ab->dir, mode, run);
    memcpy(ab->stats, stats, sizeof stats);
    tb_env env[] = {{"TILEDBLAS_MODE", mode}, {"TILEDBLAS_STATS", stats},
                    {"TILEDBLAS_TRACE", NULL}};
    tb_ab_note(ab->log, "==== tiledblas ab: TILEDBLAS_MODE=%s, %s %ld of %ld ====\n", mode,
               run ? "run" : "warm-up", run ? run : 1, run ? runs : 1);
    fprintf(stderr, "tiledblas: ab: %s %s %ld of %ld...\n", mode, run ? "run" : "warm-up",
            run ? run : 1, run ? runs : 1);
    if (keep)
        memset(r, 0, sizeof *r);
    int rc = tb_tool_spawn(ab->cmd, env, 3, ab->log, wall);
    if (rc != 0)
        fprintf(stderr, "tiledblas: ab: CMD exited with status %d in mode %s%s%s%s\n", rc, mode,
                ab->log == ab->deflog ? "" : " (its output is in ",
                ab->log == ab->deflog ? "" : ab->log, ab->log == ab->deflog ? "" : ")");
    else if (keep)
        tb_read_stats(stats, r);
    unlink(stats);
    ab->stats[0] = '\0';
    return rc;
}

/* The options; 0, or the exit status (help: 0 with *done set). */
static int tb_ab_parse(int argc, char **argv, tb_ab *ab, int *done)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(tb_ab_usage, stdout);
            *done = 1;
            return 0;
        } else if (!strcmp(a, "--repeat") || !strcmp(a, "--runs")) {
            if (tb_tool_parse_int(v, 1, 64, &ab->runs))
                return tb_tool_usage_error("ab", "%s wants a whole number in 1..64", a);
            i++;
        } else if (!strcmp(a, "--plot")) {
            if (!v || !*v)
                return tb_tool_usage_error("ab", "--plot needs a file name ending in .png or .svg");
            ab->plot = v;
            i++;
        } else if (!strcmp(a, "--log")) {
            if (!v || !*v)
                return tb_tool_usage_error("ab", "--log needs a file name");
            ab->log = v;
            i++;
        } else {
            return tb_tool_usage_error("ab", "unknown option '%.200s'", a);
        }
    }
    if (i >= argc)
        return tb_tool_usage_error("ab", "no command given");
    ab->cmd = argv + i;
    return 0;
}

/* The private directory (mkdtemp: ours, mode 0700) and the log, emptied. */
static int tb_ab_prepare(tb_ab *ab)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if (snprintf(ab->dir, sizeof ab->dir, "%s/tiledblas-ab.XXXXXX", tmp) >= (int)sizeof ab->dir ||
        !mkdtemp(ab->dir)) {
        fprintf(stderr, "tiledblas: ab: cannot create a directory in %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    if (!ab->log) {
        snprintf(ab->deflog, sizeof ab->deflog, "%s/cmd.log", ab->dir);
        ab->log = ab->deflog;
    }
    const char *why;
    int fd = tb_open_write(ab->log, TB_WRITE_TRUNCATE, &why);
    if (fd < 0) {
        fprintf(stderr, "tiledblas: ab: cannot write the log %s: %s\n", ab->log, why);
        rmdir(ab->dir);
        return -1;
    }
    close(fd);
    return 0;
}

/* Removes the private directory and whatever is in it (a stats file that
 * a child of CMD wrote late, say); before that, when a run failed and the
 * log is ours, shows its last lines (they are about to go). */
static void tb_ab_cleanup(tb_ab *ab, int failed)
{
    if (ab->log == ab->deflog) {
        int fd = failed ? tb_open_read(ab->log) : -1;
        if (fd >= 0) {
            char buf[2048];
            off_t end = lseek(fd, 0, SEEK_END);
            lseek(fd, end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0, SEEK_SET);
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0) {
                buf[n] = '\0';
                fprintf(stderr, "tiledblas: ab: the end of CMD's output (--log FILE keeps it all):\n%s%s",
                        buf, buf[n - 1] == '\n' ? "" : "\n");
            }
        }
    }
    /* A few passes: a late writer may add a file between one and rmdir. */
    int gone = 0;
    for (int pass = 0; pass < 3 && !gone; pass++) {
        DIR *d = opendir(ab->dir);
        for (struct dirent *e; d && (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        if (d)
            closedir(d);
        gone = rmdir(ab->dir) == 0 || errno == ENOENT;
    }
    if (!gone)
        fprintf(stderr, "tiledblas: ab: cannot remove %s: %s\n", ab->dir, strerror(errno));
    tb_ab_live = NULL;
}

/* One untimed warm-up of each (page cache, the loader, OpenBLAS's threads,
 * the CUDA driver's files), then
 * cpu and auto alternate, so that drift in the machine hits both alike; the
 * statistics shown are those of the last run of each. Medians of the wall
 * times go to r[].wall, their ranges to lo[] and hi[]. 0, or 1 when a run
 * failed. */
static int tb_ab_measure(tb_ab *ab)
{
    static const char *const modes[2] = {"cpu", "auto"};
    double walls[2][64], w;
    tb_runstats *r = ab->r;
    int failed = 0;
    for (int m = 0; m < 2 && !failed; m++)
        failed = tb_ab_once(ab, modes[m], 0, ab->runs, 0, &r[m], &w) != 0;
    for (long i = 1; i <= ab->runs && !failed; i++)
        for (int m = 0; m < 2 && !failed; m++)
            failed = tb_ab_once(ab, modes[m], i, ab->runs, 1, &r[m], &walls[m][i - 1]) != 0;
    if (!failed)
        failed = tb_ab_once(ab, "verify", 1, 1, 1, &r[2], &r[2].wall) != 0;
    if (failed)
        return 1;
    const long runs = ab->runs;
    for (int m = 0; m < 2; m++) {
        qsort(walls[m], (size_t)runs, sizeof walls[m][0], tb_cmp_double);
        r[m].wall = runs % 2 ? walls[m][runs / 2] : 0.5 * (walls[m][runs / 2 - 1] + walls[m][runs / 2]);
        ab->lo[m] = walls[m][0];
        ab->hi[m] = walls[m][runs - 1];
    }
    return 0;
}

/* Which precisions the runs made calls in: bit d for tb_prec_names[d]. */
static int tb_ab_precisions(const tb_ab *ab)
{
    int has = 0;
    for (int m = 0; m < 3; m++)
        for (int d = 0; d < TB_NPREC; d++)
            if (ab->r[m].pcalls[d][0] + ab->r[m].pcalls[d][1] > 0)
                has |= 1 << d;
    return has;
}

/* The rows by route of the three runs for precision d (-1: all), their
 * labels starting with prefix, in a label column w wide; rates: the GFLOP
 * and GFLOP/s rows too, not only the calls. */
static void tb_ab_route_rows(const tb_ab *ab, int d, const char *prefix, int w, int rates)
{
    const tb_runstats *r = ab->r;
    static const char *const what[6] = {"calls on the CPU BLAS", "calls on the GPU",
        "GFLOP on the CPU BLAS", "GFLOP on the GPU", "CPU BLAS GFLOP/s", "GPU GFLOP/s (end to end)"};
    for (int row = 0; row < (rates ? 6 : 2); row++) {
        char label[64], v[3][32];
        snprintf(label, sizeof label, "%s%s", prefix, what[row]);
        const int g = row % 2;
        for (int m = 0; m < 3; m++) {
            double calls = d < 0 ? r[m].calls[g] : r[m].pcalls[d][g];
            double gflop = d < 0 ? r[m].gflop[g] : r[m].pgflop[d][g];
            double sec = d < 0 ? r[m].seconds[g] : r[m].pseconds[d][g];
            if (row < 2)
                snprintf(v[m], sizeof v[m], "%.0f", calls);
            else if (row < 4)
                snprintf(v[m], sizeof v[m], "%.3f", gflop);
            else
                tb_rate(v[m], sizeof v[m], gflop, sec);
        }
        printf("%-*s %16s %16s %16s\n", w, label, v[0], v[1], v[2]);
    }
}

/* The header and the side-by-side table. */
static void tb_ab_print_table(const tb_ab *ab)
{
    const tb_runstats *r = ab->r;
    printf("tiledblas ab:");
    for (char **p = ab->cmd; *p; p++)
        printf(" %s", *p);
    printf("\n(one warm-up of each, then %ld run%s each of cpu and auto, alternating: median and range "
           "of the wall times; one verify run. ", ab->runs, ab->runs == 1 ? "" : "s");
    if (ab->log == ab->deflog)
        printf("CMD's stdout and stderr were not kept: --log FILE keeps them)\n");
    else
        printf("CMD's stdout and stderr went to %s)\n", ab->log);
    const tb_runstats *a = &r[1];
    printf("CPU BLAS: %s\n", a->cpu_blas[0] ? a->cpu_blas : "(no gemm call was made)");
    if (a->blas_warning[0])
        printf("warning: %s\n", a->blas_warning);
    int gpu_used = r[1].calls[1] > 0 || r[2].compared > 0;
    char gpu[256];
    int have_gpu = tiledblas_gpu_describe(gpu, sizeof gpu);
    printf("GPU: %s\n", gpu);
    if (!have_gpu)
        printf("No GPU: every call ran on the CPU BLAS in every mode, so this compares only the\n"
               "cost of the shim, and verify had nothing to compare.\n");
    else if (!gpu_used)
        printf("No call went to the GPU in auto mode (all were below TILEDBLAS_THRESHOLD or out "
               "of scope).\n");
    const int has = tb_ab_precisions(ab), both = has & (has - 1);   /* more than one */
    printf("Calls made:");
    if (!has)
        printf(" none");
    for (int d = 0, first = 1; d < TB_NPREC; d++)
        if (has >> d & 1) {
            printf("%s %s", first ? "" : ",", tb_prec_names[d]);
            first = 0;
        }
    printf("%s\n", !has ? "" : both ? " (the rows of each follow the totals)" : " only");

    const int w = both ? 32 : 24;
    char g0[48], g1[48];
    printf("\n%-*s %16s %16s %16s\n", w, "", "cpu", "auto", "verify");
    printf("%-*s %14.3f s %14.3f s %14.3f s\n", w, "wall time (median)", r[0].wall, r[1].wall, r[2].wall);
    snprintf(g0, sizeof g0, "%.3f-%.3f s", ab->lo[0], ab->hi[0]);
    snprintf(g1, sizeof g1, "%.3f-%.3f s", ab->lo[1], ab->hi[1]);
    printf("%-*s %16s %16s %16s\n", w, "wall time (range)", g0, g1, "(one run)");
    printf("%-*s %15.2fx %15.2fx %15.2fx\n", w, "cpu median / median", 1.0,
           r[1].wall > 0 ? r[0].wall / r[1].wall : 0.0, r[2].wall > 0 ? r[0].wall / r[2].wall : 0.0);
    /* GFLOP/s of calls of several precisions together would mean nothing:
     * then the totals give only the calls, each precision the rest. */
    tb_ab_route_rows(ab, -1, "", w, !both);
    for (int d = 0; both && d < TB_NPREC; d++)
        if (has >> d & 1) {
            char prefix[16];
            snprintf(prefix, sizeof prefix, "%s ", tb_prec_names[d]);
            tb_ab_route_rows(ab, d, prefix, w, 1);
        }
    char s0[32], s1[32], s2[32];
    printf("%-*s %16s %16s %16s\n", w, "copied to the GPU", tb_mb(s0, 32, r[0].bytes_h2d),
           tb_mb(s1, 32, r[1].bytes_h2d), tb_mb(s2, 32, r[2].bytes_h2d));
    printf("%-*s %16s %16s %16s\n", w, "copied from the GPU", tb_mb(s0, 32, r[0].bytes_d2h),
           tb_mb(s1, 32, r[1].bytes_d2h), tb_mb(s2, 32, r[2].bytes_d2h));
}

/* auto against cpu: a difference only when the ranges of the wall times do
 * not overlap, and one that the GPU made only when auto sent it calls. */
static void tb_ab_print_verdict(const tb_ab *ab)
{
    const double ca = ab->r[0].wall, au = ab->r[1].wall, gpu_calls = ab->r[1].calls[1];
    printf("\nauto against cpu: ");
    if (ab->runs < 2) {
        printf("one run each, no spread to judge a difference by (--repeat 5 gives one)\n");
    } else if (ab->lo[0] <= ab->hi[1] && ab->lo[1] <= ab->hi[0]) {
        printf("within noise (the ranges of %ld runs overlap)%s\n", ab->runs,
               gpu_calls > 0 ? "" : "; no call went to the GPU");
    } else if (gpu_calls > 0) {
        printf("%s, %.2fx (median against median; the ranges of %ld runs do not overlap), "
               "%.0f calls on the GPU\n", au < ca ? "faster" : "slower",
               au < ca ? ca / au : au / ca, ab->runs, gpu_calls);
    } else {
        printf("%s, %.2fx (the ranges of %ld runs do not overlap) with no call on the GPU: the "
               "shim's own cost or the machine's drift, not a GPU effect\n",
               au < ca ? "faster" : "slower", au < ca ? ca / au : au / ca, ab->runs);
    }
}

static void tb_ab_plot(const tb_ab *ab)
{
    if (!ab->plot)
        return;
#ifdef TB_HAVE_ANIMATE
    static const char *const labels[] = {"cpu (OpenBLAS)", "auto (libtiledblas)", "verify (both)"};
    double walls3[3] = {ab->r[0].wall, ab->r[1].wall, ab->r[2].wall};
    if (tb_plot_bars(ab->plot, "tiledblas ab: wall time of each run (median)", "seconds", 3,
                     labels, walls3) == 0)
        printf("plot: %s\n", ab->plot);
#else
    fprintf(stderr, "tiledblas: ab: --plot needs the plotting code (src/animate), not built in\n");
#endif
}

/* The verify run's verdict; 1 when a call broke its precision's bound.
 * has: the precisions called (tb_ab_precisions). */
static int tb_ab_print_verify(const tb_runstats *v, int has)
{
    printf("\nverify: ");
    if (v->compared == 0) {
        if (v->unavailable > 0)
            printf("no call compared (%.0f eligible calls found the GPU unavailable: %s)\n",
                   v->unavailable, v->unavailable_reason);
        else
            printf("no call compared (no call was eligible for the GPU)\n");
        return 0;
    }
    printf("%.0f calls compared (%.0f skipped by sampling, %.0f with the GPU unavailable)\n",
           v->compared, v->skipped, v->unavailable);
    printf("verify: worst max abs error %.3g, worst avg abs error %.3g, worst relative "
           "Frobenius error %.3g\n", v->max_abs, v->avg_abs, v->rel_fro);
    printf("verify: GPU %.4f s against CPU BLAS %.4f s on the compared calls: %.2fx\n",
           v->gpu_s, v->cpu_s, v->gpu_s > 0 ? v->cpu_s / v->gpu_s : 0.0);
    /* The verify report is not split by precision: with any call of fp32
     * parts (single, complex) the worst error may be fp32's. */
    const int fp64 = has && !(has & 5);
    if (v->outside > 0)
        printf("verify: FAILED: %.0f calls outside their precision's error bound\n", v->outside);
    else if (fp64)
        printf("verify: all calls within the fp64 error bound%s\n", v->rel_fro > 1e-11
               ? " (but a relative error above 1e-11 is not what fp64 gives: ~1e-15)" : "");
    else
        printf("verify: all calls within %s error bound%s\n", has & 10 ? "their precision's"
               : "the fp32", v->rel_fro > 1e-4
               ? " (but a relative error above 1e-4 is not what fp32 gives: ~1e-6)" : "");
    return v->outside > 0;
}

int tb_cmd_ab(int argc, char **argv)
{
    static tb_ab ab;
    memset(&ab, 0, sizeof ab);
    ab.runs = 3;
    int done = 0, rc = tb_ab_parse(argc, argv, &ab, &done);
    if (rc || done)
        return rc;
    if (!tb_tool_library() || tb_ab_prepare(&ab) != 0)
        return 1;
    tb_ab_catch_signals(&ab);
    int failed = tb_ab_measure(&ab);
    tb_ab_cleanup(&ab, failed);
    if (failed)
        return 1;
    tb_ab_print_table(&ab);
    tb_ab_print_verdict(&ab);
    tb_ab_plot(&ab);
    return tb_ab_print_verify(&ab.r[2], tb_ab_precisions(&ab));
}
