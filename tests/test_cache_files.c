/* tests/test_cache_files.c - the calibration cache's reading and writing (cache.c)
 * against what another user could plant: a link at the cache path or at
 * predictable temporary-file names, a FIFO at the path (must not hang), a
 * directory others may write to or another user owns (not used at all).
 * Linked against the library's objects, so it sees the hidden internals;
 * argument: a scratch directory of its own. */
#define _GNU_SOURCE
#include "unit_check.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *tb_key = "gpu X | blas Y";

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int holds(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

static int is_regular(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static tb_rates some_rates(void)
{
    tb_rates r = *tb_rates_builtin();
    r.cpu_flops = 7.5e11;
    r.gpu_flops = 3.0e13;
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_cache SCRATCH_DIR\n");
        return 2;
    }
    char dir[1024], path[1200], victim[1200], tmpname[1300], sub[1200];
    snprintf(dir, sizeof dir, "%s/cache", argv[1]);
    snprintf(path, sizeof path, "%s/rates-test.txt", dir);
    snprintf(victim, sizeof victim, "%s/victim", argv[1]);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", argv[1], argv[1]);
    if (system(cmd) != 0)
        return 2;
    setvbuf(stdout, NULL, _IONBF, 0);   /* failures show even if a FIFO blocks us */
    alarm(20);   /* a FIFO that blocks a read or write fails the test by SIGALRM */

    tb_rates r = some_rates(), back;
    /* A directory that does not exist yet is made, and the rates read back. */
    CHECK(tb_cache_save(path, tb_key, &r) == 0, "save into a new directory");
    CHECK(tb_cache_load(path, tb_key, &back) == 0 && back.cpu_flops == 7.5e11 &&
          back.gpu_flops == 3.0e13, "the saved rates read back");
    CHECK(tb_cache_load(path, "another key", &back) != 0, "another key is refused");

    /* A link planted at the path: the target is never written, the link is
     * replaced by a regular file. */
    put(victim, "victim\n");
    unlink(path);
    CHECK(symlink(victim, path) == 0, "plant a link");
    CHECK(tb_cache_load(path, tb_key, &back) != 0, "a link at the path is not read");
    CHECK(tb_cache_save(path, tb_key, &r) == 0, "save over a link");
    CHECK(holds(victim, "victim\n"), "the link's target is untouched");
    CHECK(is_regular(path), "the path is a regular file now");

    /* Links at the names a temporary file once took (path.PID.tmp, for a
     * range of pids around ours): the temporary name is not guessable. */
    for (int d = 0; d < 64; d++) {
        snprintf(tmpname, sizeof tmpname, "%s.%ld.tmp", path, (long)getpid() + d);
        if (symlink(victim, tmpname) != 0)
            CHECK(0, "plant %s: %s", tmpname, strerror(errno));
    }
    CHECK(tb_cache_save(path, tb_key, &r) == 0, "save with planted temporary names");
    CHECK(holds(victim, "victim\n"), "no planted temporary name was followed");

    /* A FIFO at the path: reading gives up at once instead of waiting for a
     * writer; saving replaces it. */
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0, "plant a FIFO");
    CHECK(tb_cache_load(path, tb_key, &back) != 0, "a FIFO is not read (and did not block)");
    CHECK(tb_cache_save(path, tb_key, &r) == 0 && is_regular(path), "a FIFO is replaced");

    /* A directory that group or others may write to is not used. */
    CHECK(chmod(dir, 0777) == 0, "chmod 0777");
    CHECK(tb_cache_load(path, tb_key, &back) != 0, "not read from a world-writable directory");
    unlink(path);
    CHECK(tb_cache_save(path, tb_key, &r) != 0 && access(path, F_OK) != 0,
          "not written to a world-writable directory");
    CHECK(chmod(dir, 0775) == 0 && tb_cache_save(path, tb_key, &r) != 0,
          "not written to a group-writable directory");
    CHECK(chmod(dir, 0755) == 0 && tb_cache_save(path, tb_key, &r) == 0, "used again at 0755");

    /* Owned by another user (only root can arrange that). */
    if (geteuid() == 0) {
        snprintf(sub, sizeof sub, "%s/other", argv[1]);
        char other[1300];
        snprintf(other, sizeof other, "%s/rates-test.txt", sub);
        CHECK(mkdir(sub, 0755) == 0 && chown(sub, 65534, 65534) == 0, "a directory owned by 65534");
        CHECK(tb_cache_save(other, tb_key, &r) != 0 && access(other, F_OK) != 0,
              "not written to another user's directory");
    } else {
        printf("(not root: the other-owner check is skipped)\n");
    }

    return unit_summary("test_cache_files");
}
