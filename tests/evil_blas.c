/* tests/evil_blas.c - stands for a library a user names in
 * TILEDBLAS_CPU_BLAS: when it is loaded at all, its constructor creates the
 * file TB_EVIL_MARKER names, so harden.sh can tell whether it was. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void tb_evil_loaded(void)
{
    const char *marker = getenv("TB_EVIL_MARKER");
    if (marker) {
        int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
            close(fd);
    }
}
