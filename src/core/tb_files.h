/* src/core/tb_files.h - opening files to write safely (files.c), shared by the
 * library and the `tiledblas` command. Plain C and POSIX: it includes
 * nothing of the library's, so that the tool can compile files.c as well. */
#ifndef TB_FILES_H
#define TB_FILES_H

#include <stddef.h>

/* How tb_open_write treats what is already there. */
enum {
    TB_WRITE_APPEND = 0,     /* keep it, append (log, trace, stats)   */
    TB_WRITE_TRUNCATE = 1,   /* empty it (a file the user named)      */
    TB_WRITE_NEW = 2         /* it must not exist yet (O_EXCL)        */
};

/* Opens path for writing (created 0644 before the umask) with O_NOFOLLOW,
 * O_CLOEXEC and O_NONBLOCK, and keeps it only when fstat says it is a
 * regular file: a symbolic link, FIFO or device is refused. Returns the
 * descriptor (blocking again), or -1 with errno set and *why saying, in a
 * few words, what was wrong (never NULL). */
int tb_open_write(const char *path, int how, const char **why)
    __attribute__((visibility("hidden")));
/* Opens a regular file to read the same way (no link, FIFO or device): -1
 * otherwise. */
int tb_open_read(const char *path) __attribute__((visibility("hidden")));
/* Writes all n bytes (restarting after EINTR and short writes): 0, or -1
 * with errno set. */
int tb_file_write_all(int fd, const void *buf, size_t n) __attribute__((visibility("hidden")));

#endif
