/* src/decide/programs.c - what each program's last runs gave the GPU, for the
 * start rule (start.c): the program's record, the rule that reads it, and
 * the record's file. It measures nothing (start.c counts a run's GPU work)
 * and opens no file itself: the record lives in the cache directory beside
 * the rates and the learned file and goes through cache.c's reading and
 * writing (no link followed, a directory only the user may write), and
 * every line of it is checked.
 *
 * A program is the executable (its resolved path, device, inode, size and
 * modification time) and, when its first argument names a regular file,
 * that file the same way: an interpreter's script (`python3 train.py`) is a
 * program of its own, not every Python program one. The identity is hashed
 * into 16 hex digits; no path is written.
 *
 * One file, programs.txt, holds every program: one line a program, its last
 * TB_RUNS_KEPT runs newest first, the program written last first, at most
 * TB_PROGRAMS_KEPT lines. One bounded file rather than a file a program:
 * the cache directory never fills with the records of programs run once,
 * `tiledblas calibrate` clears them by removing one file, and reading costs
 * one bounded read. Processes exiting at once each write what they read
 * plus their own run: the last one wins, and another program's run may be
 * lost (its next run counts again). */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Programs kept in the file, and the bytes read of it: 64 lines of at most
 * 16 + 8 + 3 x 40 characters fit in 12 KiB. What lies past the bound is
 * not read. */
#define TB_PROGRAMS_KEPT 64
#define TB_PROGRAMS_TEXT 16384
/* A run's GPU work above this many seconds is not believed (a damaged line). */
#define TB_WORK_MAX_S 1e7
#define TB_CALLS_MAX 1000000000000ULL

/* ---- The rule ---- */

int tb_start_ahead(const tb_program_run *runs, int n, double start_s, char *why, size_t len)
{
    if (n <= 0) {
        snprintf(why, len, "no record");
        return 0;
    }
    /* A vote: each run that had a start's worth of GPU work says "ahead",
     * each other run "rent-or-buy"; the newest counts 1.5, so that it
     * breaks a tie (one run or two on record: the newest decides). */
    double vote = 0.0;
    size_t k = (size_t)snprintf(why, len, "GPU work of the last runs ");
    for (int i = 0; i < n && i < TB_RUNS_KEPT; i++) {
        const double work = runs[i].before_s + runs[i].after_s;
        vote += (work >= start_s ? 1.0 : -1.0) * (i == 0 ? 1.5 : 1.0);
        if (k < len)
            k += (size_t)snprintf(why + k, len - k, "%s%.2f", i ? ", " : "", work);
    }
    if (k < len)
        snprintf(why + k, len - k, " s; a start costs %.2f s", start_s);
    return vote > 0.0;
}

/* ---- The file's lines ---- */

/* "program ID START BEFORE AFTER CALLS ...": one line, newline excluded. */
static size_t tb_program_format(const tb_program *p, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "program %s", p->id);
    for (int i = 0; i < p->nruns && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, " %d %.6f %.6f %llu", p->runs[i].start,
                              p->runs[i].before_s, p->runs[i].after_s,
                              (unsigned long long)p->runs[i].calls);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, "\n");
    return n;
}

/* A number of the line at *s, after one space: a seconds value (0 to
 * TB_WORK_MAX_S, decimal, as tb_program_format writes it) or a count; the
 * separator after it must be a space or the end. */
static int tb_take_seconds(const char **s, double *v)
{
    char *end;
    if (**s != ' ' || !((*s)[1] >= '0' && (*s)[1] <= '9'))
        return 0;
    const size_t len = strcspn(*s + 1, " ");
    if (strspn(*s + 1, "0123456789.e+-") != len)
        return 0;
    *v = strtod(*s + 1, &end);
    if (!isfinite(*v) || *v < 0.0 || *v > TB_WORK_MAX_S || (*end != ' ' && *end != '\0'))
        return 0;
    *s = end;
    return 1;
}

static int tb_take_count(const char **s, unsigned long long lo, unsigned long long hi,
                         unsigned long long *v)
{
    char *end;
    if (**s != ' ' || !((*s)[1] >= '0' && (*s)[1] <= '9'))
        return 0;
    *v = strtoull(*s + 1, &end, 10);
    if (*v < lo || *v > hi || (*end != ' ' && *end != '\0'))
        return 0;
    *s = end;
    return 1;
}

int tb_program_parse(const char *line, tb_program *p)
{
    memset(p, 0, sizeof *p);
    if (strncmp(line, "program ", 8) != 0)
        return -1;
    const char *s = line + 8;
    for (int i = 0; i < 16; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return -1;
    memcpy(p->id, s, 16);
    s += 16;
    while (*s && p->nruns < TB_RUNS_KEPT) {
        tb_program_run *r = &p->runs[p->nruns];
        unsigned long long start, calls;
        if (!tb_take_count(&s, 0, TB_RUN_AHEAD, &start) || !tb_take_seconds(&s, &r->before_s) ||
            !tb_take_seconds(&s, &r->after_s) || !tb_take_count(&s, 1, TB_CALLS_MAX, &calls))
            return -1;
        r->start = (int)start;
        r->calls = calls;
        p->nruns++;
    }
    return *s == '\0' && p->nruns > 0 ? 0 : -1;
}

int tb_programs_parse(const char *text, tb_program *out, int max)
{
    int n = 0;
    for (const char *l = text; l && *l && n < max;) {
        const char *nl = strchr(l, '\n');
        if (!nl)
            break;            /* a line cut by the bound (or never ended) is not read */
        char line[256];
        const size_t len = (size_t)(nl - l);
        if (len < sizeof line) {
            memcpy(line, l, len);
            line[len] = '\0';
            int dup = 0;
            if (tb_program_parse(line, &out[n]) == 0) {
                for (int i = 0; i < n && !dup; i++)
                    dup = strcmp(out[i].id, out[n].id) == 0;   /* the first one stands */
                n += !dup;
            }
        }
        l = nl + 1;
    }
    return n;
}

/* ---- The file ---- */

int tb_programs_read(const char *path, const char *id, tb_program_run runs[TB_RUNS_KEPT], int *lines)
{
    tb_program *all = malloc(sizeof(tb_program) * TB_PROGRAMS_KEPT);
    char *text = malloc(TB_PROGRAMS_TEXT);
    int n = 0;
    *lines = 0;
    if (all && text && tb_cache_read(path, text, TB_PROGRAMS_TEXT) == 0) {
        *lines = tb_programs_parse(text, all, TB_PROGRAMS_KEPT);
        for (int i = 0; i < *lines && !n; i++)
            if (strcmp(all[i].id, id) == 0) {
                n = all[i].nruns;
                memcpy(runs, all[i].runs, sizeof all[i].runs);
            }
    } else {
        *lines = -1;
    }
    free(all);
    free(text);
    return n;
}

int tb_programs_write(const char *path, const char *id, const tb_program_run *run)
{
    tb_program *all = malloc(sizeof(tb_program) * (TB_PROGRAMS_KEPT + 1));
    char *text = malloc(TB_PROGRAMS_TEXT);
    int rc = -1;
    if (!all || !text)
        goto out;
    /* What is there now (nothing, when it cannot be read), this program's
     * line taken out of it ... */
    int n = tb_cache_read(path, text, TB_PROGRAMS_TEXT) == 0
                ? tb_programs_parse(text, all + 1, TB_PROGRAMS_KEPT) : 0;
    tb_program *mine = &all[0];
    memset(mine, 0, sizeof *mine);
    snprintf(mine->id, sizeof mine->id, "%s", id);
    mine->runs[0] = *run;
    mine->nruns = 1;
    int kept = 0;
    for (int i = 1; i <= n; i++) {
        if (strcmp(all[i].id, id) == 0) {
            for (int j = 0; j < all[i].nruns && mine->nruns < TB_RUNS_KEPT; j++)
                mine->runs[mine->nruns++] = all[i].runs[j];
        } else {
            all[1 + kept++] = all[i];
        }
    }
    /* ... and put first; the programs written longest ago fall off the end. */
    if (kept > TB_PROGRAMS_KEPT - 1)
        kept = TB_PROGRAMS_KEPT - 1;
    size_t len = (size_t)snprintf(text, TB_PROGRAMS_TEXT,
                                  "# libtiledblas: what each program's last runs gave the GPU "
                                  "(src/decide/programs.c): a line a program,\n"
                                  "# its runs newest first, each: started (0 no, 1 yes, 2 ahead), "
                                  "GPU work before and after the start (s), calls.\n"
                                  "# Delete this file to forget them.\n");
    for (int i = 0; i <= kept && len < TB_PROGRAMS_TEXT; i++)
        len += tb_program_format(&all[i], text + len, TB_PROGRAMS_TEXT - len);
    if (len < TB_PROGRAMS_TEXT)
        rc = tb_cache_write(path, text);
out:
    free(all);
    free(text);
    return rc;
}

/* ---- This process ---- */

/* Appends " WHAT PATH DEV INO SIZE MTIME" for the file at path (resolved)
 * to buf; -1 when it is not a regular file. */
static int tb_identity_part(char *buf, size_t len, const char *what, const char *path)
{
    struct stat st;
    char real[PATH_MAX];
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(path, real))
        return -1;
    const size_t n = strlen(buf);
    const int k = snprintf(buf + n, len - n, " %s %s %llu %llu %lld %lld.%09ld", what, real,
                           (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                           (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                           (long)st.st_mtim.tv_nsec);
    return k > 0 && (size_t)k < len - n ? 0 : -1;
}

/* The first argument the process was started with, from /proc/self/cmdline
 * (arguments end with NULs); "" when there is none. */
static void tb_first_argument(char *arg, size_t len)
{
    char cmd[8192];
    size_t n = 0;
    arg[0] = '\0';
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t k;
    while (n < sizeof cmd - 1 && (k = read(fd, cmd + n, sizeof cmd - 1 - n)) > 0)
        n += (size_t)k;
    close(fd);
    cmd[n] = '\0';
    const size_t first = strlen(cmd);
    if (first + 1 < n && strlen(cmd + first + 1) < len)
        snprintf(arg, len, "%s", cmd + first + 1);
}

int tb_program_id(char id[17])
{
    char text[2 * PATH_MAX + 256], arg[PATH_MAX];
    text[0] = '\0';
    if (tb_identity_part(text, sizeof text, "exe", "/proc/self/exe") != 0)
        return -1;
    tb_first_argument(arg, sizeof arg);
    if (arg[0])
        tb_identity_part(text, sizeof text, "script", arg);   /* none: the executable alone */
    snprintf(id, 17, "%016llx", (unsigned long long)tb_cache_hash(text));
    return 0;
}

/* This process's identity, found once (the record is read at the first
 * call the GPU would take and written at exit). */
static char tb_me[17];
static int tb_me_ok;
static pthread_once_t tb_me_once = PTHREAD_ONCE_INIT;

static void tb_program_find_me(void)
{
    tb_me_ok = tb_program_id(tb_me) == 0;
}

static const char *tb_program_me(void)
{
    pthread_once(&tb_me_once, tb_program_find_me);
    return tb_me_ok ? tb_me : NULL;
}

/* The record's path, when the record may be used at all: learning on (or
 * forgetting), not in secure execution, a cache directory. */
static int tb_program_path(char *path, size_t len, int forget)
{
    const tb_settings *s = tb_settings_get();
    return (s->learn || forget) && !s->secure && tb_programs_path(path, len) == 0 ? 0 : -1;
}

int tb_program_load(tb_program_run runs[TB_RUNS_KEPT])
{
    char path[4200];
    const char *me;
    int lines = 0;
    if (tb_program_path(path, sizeof path, 0) != 0 || !(me = tb_program_me()))
        return 0;
    /* What was found shows in the statistics and the trace (start_why):
     * verbose 2 prints decision lines alone. */
    return tb_programs_read(path, me, runs, &lines);
}

int tb_program_save(const tb_program_run *run)
{
    char path[4200];
    const char *me;
    if (tb_program_path(path, sizeof path, 0) != 0 || !(me = tb_program_me()))
        return -1;
    return tb_programs_write(path, me, run);
}

void tb_program_forget(void)
{
    char path[4200];
    if (tb_program_path(path, sizeof path, 1) == 0)
        tb_cache_remove(path);
}
