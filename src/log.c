/* src/log.c - the one logger. Whole lines, each starting "tiledblas: ",
 * written with a single write() so lines from many threads never interleave.
 * Silent at TILEDBLAS_VERBOSE=0; never writes to stdout. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int tb_log_fd = -1;
static pthread_once_t tb_log_once = PTHREAD_ONCE_INIT;
static uint64_t tb_warned;   /* one bit per tb_warn_once key */

static void tb_log_open(void)
{
    const tb_settings *s = tb_settings_get();
    tb_log_fd = STDERR_FILENO;
    if (s->log_path) {
        int fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0)
            tb_log_fd = fd;
    }
}

static void tb_vlog(const char *fmt, va_list ap)
{
    char line[1024];
    pthread_once(&tb_log_once, tb_log_open);
    int n = snprintf(line, sizeof line, "tiledblas: ");
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(tb_log_fd, line, (size_t)n);
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
