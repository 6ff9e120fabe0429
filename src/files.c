/* src/files.c - the one way the library and the `tiledblas` command open a
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

int tb_open_write(const char *path, int how, const char **why)
{
    static const char *const not_regular = "not a regular file (a FIFO or device is never written)";
    *why = "";
    if (!path || !*path) {
        *why = "an empty path";
        errno = ENOENT;
        return -1;
    }
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    if (how == TB_WRITE_APPEND)
        flags |= O_APPEND;
    if (how == TB_WRITE_NEW)
        flags |= O_EXCL;
    /* O_NONBLOCK: opening a FIFO that has no reader fails at once (ENXIO)
     * instead of waiting for one; one that has a reader is refused below. */
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        int e = errno;
        *why = e == ELOOP ? "a symbolic link (never followed)"
             : e == ENXIO ? not_regular : strerror(e);
        errno = e;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = not_regular;
        errno = EINVAL;
        return -1;
    }
    /* A regular file: blocking writes again, and emptied only now that it is
     * known to be one (O_TRUNC at open would have applied to anything). */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (how == TB_WRITE_TRUNCATE && ftruncate(fd, 0) != 0) {
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
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
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
