/* src/core/files.c - the one way the library and the `tiledblas` command open a
 * file to write: never through a symbolic link, never a FIFO or a device
 * (which could block a program forever or swallow what is written), never
 * inherited by exec'ed children. Plain POSIX only: no logging, no settings,
 * so the tool can build it in too. Callers say what went wrong. */
#define _GNU_SOURCE
#include "tb_files.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const tb_not_regular = "not a regular file (a FIFO or device is never written)";

/* open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), kept only when
 * fstat says it is a regular file, then blocking again. O_NONBLOCK: opening
 * a FIFO that has no writer or reader fails or returns at once instead of
 * waiting for one, and the fstat refuses it. -1 with errno and *why set. */
static int tb_open_regular(const char *path, int flags, const char **why)
{
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        int e = errno;
        *why = e == ELOOP ? "a symbolic link (never followed)"
             : e == ENXIO ? tb_not_regular : strerror(e);
        errno = e;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = tb_not_regular;
        errno = EINVAL;
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int tb_open_write(const char *path, int how, const char **why)
{
    *why = "";
    if (!path || !*path) {
        *why = "an empty path";
        errno = ENOENT;
        return -1;
    }
    int flags = O_WRONLY | O_CREAT;
    if (how == TB_WRITE_APPEND)
        flags |= O_APPEND;
    if (how == TB_WRITE_NEW)
        flags |= O_EXCL;
    int fd = tb_open_regular(path, flags, why);
    /* Emptied only now that it is known to be a regular file (O_TRUNC at
     * open would have applied to anything). */
    if (fd >= 0 && how == TB_WRITE_TRUNCATE && ftruncate(fd, 0) != 0) {
        int e = errno;
        close(fd);
        *why = strerror(e);
        errno = e;
        return -1;
    }
    return fd;
}

int tb_open_read(const char *path)
{
    const char *why;
    return tb_open_regular(path, O_RDONLY, &why);
}

int tb_file_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}
