/* src/core/log.c - the one logger. Whole lines, each starting "tiledblas: ",
 * written with a single write() so lines from many threads never interleave,
 * and never holding a control character (a value from the environment cannot
 * forge a line). Silent at TILEDBLAS_VERBOSE=0; never writes to stdout. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_files.h"
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int tb_log_fd = -1;
static pthread_once_t tb_log_once = PTHREAD_ONCE_INIT;
static uint64_t tb_warned;   /* one bit per tb_warn_once key */

/* "tiledblas: " + text + "\n" into line (len >= 16), control characters and
 * DEL replaced by '?'; returns the length. */
static size_t tb_log_line(char *line, size_t len, const char *fmt, va_list ap)
{
    static const char prefix[] = "tiledblas: ";
    size_t n = sizeof prefix - 1;
    memcpy(line, prefix, n);
    int k = vsnprintf(line + n, len - n - 1, fmt, ap);
    if (k > 0)
        n += (size_t)k < len - n - 2 ? (size_t)k : len - n - 2;
    for (size_t i = sizeof prefix - 1; i < n; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    line[n++] = '\n';
    return n;
}

static void tb_log_to_stderr(const char *fmt, ...) TB_PRINTF(1, 2);
static void tb_log_to_stderr(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    size_t n = tb_log_line(line, sizeof line, fmt, ap);
    va_end(ap);
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
}

/* TILEDBLAS_LOG, opened on the first line to write; when it cannot be (or
 * is a link, FIFO or device), one line on stderr says so and says that the
 * messages go to stderr instead. */
static void tb_log_open(void)
{
    const tb_settings *s = tb_settings_get();
    tb_log_fd = STDERR_FILENO;
    if (!s->log_path)
        return;
    const char *why;
    int fd = tb_open_write(s->log_path, TB_WRITE_APPEND, &why);
    if (fd >= 0)
        tb_log_fd = fd;
    else
        tb_log_to_stderr("%s='%s' cannot be opened (%s); messages go to stderr", TB_ENV_LOG,
                         s->log_path, why);
}

static void tb_vlog(const char *fmt, va_list ap)
{
    char line[1024];
    pthread_once(&tb_log_once, tb_log_open);
    size_t n = tb_log_line(line, sizeof line, fmt, ap);
    ssize_t w = write(tb_log_fd, line, n);
    (void)w;
}

void tb_log(int level, const char *fmt, ...)
{
    if (tb_settings_get()->verbose < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    tb_vlog(fmt, ap);
    va_end(ap);
}

void tb_log_settings_report(void)
{
    static int reported;
    if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
        return;
    const char *line;
    for (int i = 0; (line = tb_settings_complaint(i)) != NULL; i++)
        tb_log(1, "%s", line);
}

void tb_warn_once(unsigned key, const char *fmt, ...)
{
    uint64_t bit = 1ull << (key & 63);
    if (__atomic_fetch_or(&tb_warned, bit, __ATOMIC_ACQ_REL) & bit)
        return;
    if (tb_settings_get()->verbose < 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    tb_vlog(fmt, ap);
    va_end(ap);
}
