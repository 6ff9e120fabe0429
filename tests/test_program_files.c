/* tests/test_program_files.c - the programs' record (programs.c, over
 * cache.c's reading and writing) against what another user or a damaged
 * disk could leave there: a link at the record's path (never followed,
 * replaced on writing), a FIFO (no hang), a file far past the bound (read
 * only up to it, written back within it), garbage and near-miss lines
 * (each skipped), a directory others may write or another user owns (not
 * used). And what a good record does: runs kept newest first, three at
 * most, 64 programs at most, this process's identity stable. Linked
 * against the library's objects; argument: a scratch directory of its own. */
#define _GNU_SOURCE
#include "unit_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *me = "0123456789abcdef";

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static long file_size(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int is_regular(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Lines of the file that begin with prefix. */
static int lines_with(const char *path, const char *prefix)
{
    char line[512];
    int n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        n += strncmp(line, prefix, strlen(prefix)) == 0;
    fclose(f);
    return n;
}

static tb_program_run run_of(int start, double work, unsigned long long calls)
{
    return (tb_program_run){.start = start, .before_s = work / 4, .after_s = work - work / 4, .calls = calls};
}

/* Every kind of bad line is skipped, alone and among good ones. */
static void test_lines(void)
{
    static const char *bad[] = {
        "program 0123456789ABCDEF 1 0.1 0.2 3",            /* upper-case hex          */
        "program 0123456789abcde 1 0.1 0.2 3",              /* 15 digits               */
        "program 0123456789abcdefa 1 0.1 0.2 3",            /* 17 digits               */
        "program 0123456789abcdef",                         /* no run                  */
        "program 0123456789abcdef 1 0.1 0.2",               /* a run cut short         */
        "program 0123456789abcdef 3 0.1 0.2 3",             /* no such start           */
        "program 0123456789abcdef -1 0.1 0.2 3",
        "program 0123456789abcdef 1 nan 0.2 3",
        "program 0123456789abcdef 1 0.1 inf 3",
        "program 0123456789abcdef 1 -0.1 0.2 3",
        "program 0123456789abcdef 1 0.1 1e99 3",
        "program 0123456789abcdef 1 0.1 0.2 0",             /* no call                 */
        "program 0123456789abcdef 1 0.1 0.2 99999999999999999999",
        "program 0123456789abcdef 1 0.1 0.2 3x",
        "program 0123456789abcdef 1 0.1 0.2 3 ",            /* trailing space          */
        "program 0123456789abcdef 1 0.1 0.2 3 1 0.1 0.2 3 1 0.1 0.2 3 1 0.1 0.2 3", /* 4 runs */
        "program  0123456789abcdef 1 0.1 0.2 3",
        "program 0123456789abcdef 1  0.1 0.2 3",
        "program 0123456789abcdef 1 0x1p-3 0.2 3",
        "programs 0123456789abcdef 1 0.1 0.2 3",
        "# program 0123456789abcdef 1 0.1 0.2 3",
        "",
    };
    tb_program p;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(tb_program_parse(bad[i], &p) != 0, "a bad line was read: '%s'", bad[i]);
    CHECK(tb_program_parse("program 0123456789abcdef 2 0.02 0.5 30 1 0.36 0.12 30", &p) == 0 &&
              p.nruns == 2 && strcmp(p.id, me) == 0 && p.runs[0].start == TB_RUN_AHEAD &&
              p.runs[0].after_s == 0.5 && p.runs[1].before_s == 0.36 && p.runs[1].calls == 30,
          "a good line is read whole");

    /* Among good lines; a line cut short at the end of the text is not read,
     * nor is a line too long to be ours; a program's first line stands. */
    char text[4096];
    snprintf(text, sizeof text,
             "# a comment\ngarbage\n%s\nprogram 1111111111111111 1 0.1 0.2 3\n"
             "program 1111111111111111 0 9 9 9\nprogram 2222222222222222 1 0.1%0300d 0.2 3\n"
             "program 3333333333333333 1 0.1 0.2 3",
             bad[7], 0);
    tb_program all[8];
    const int n = tb_programs_parse(text, all, 8);
    CHECK(n == 1 && strcmp(all[0].id, "1111111111111111") == 0 && all[0].runs[0].before_s == 0.1,
          "only the one good whole line is read (%d programs)", n);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_program_files SCRATCH_DIR\n");
        return 2;
    }
    char dir[1024], path[1200], victim[1200], cmd[1300];
    snprintf(dir, sizeof dir, "%s/cache", argv[1]);
    snprintf(path, sizeof path, "%s/programs.txt", dir);
    snprintf(victim, sizeof victim, "%s/victim", argv[1]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", argv[1], argv[1]);
    if (system(cmd) != 0)
        return 2;
    /* The settings are read once, on first use: the cache directory of the
     * part that goes through them is set before anything else. */
    char cache2[1200], rec2[1300];
    snprintf(cache2, sizeof cache2, "%s/cache2", argv[1]);
    snprintf(rec2, sizeof rec2, "%s/programs.txt", cache2);
    setenv("TILEDBLAS_CACHE_DIR", cache2, 1);
    unsetenv("TILEDBLAS_LEARN");
    setvbuf(stdout, NULL, _IONBF, 0);   /* failures show even if a FIFO blocks us */
    alarm(20);   /* a FIFO that blocks a read or write fails the test by SIGALRM */

    test_lines();

    tb_program_run runs[TB_RUNS_KEPT];
    int lines = 0;
    /* Nothing there yet; then a directory that does not exist is made. */
    CHECK(tb_programs_read(path, me, runs, &lines) == 0 && lines == -1, "no file: no runs");
    CHECK(tb_programs_write(path, me, &(tb_program_run){TB_RUN_STARTED, 0.36, 0.12, 30}) == 0,
          "written into a new directory");
    CHECK(tb_programs_read(path, me, runs, &lines) == 1 && lines == 1 &&
              runs[0].start == TB_RUN_STARTED && runs[0].before_s == 0.36 &&
              runs[0].after_s == 0.12 && runs[0].calls == 30,
          "the run reads back");
    CHECK(tb_programs_read(path, "fedcba9876543210", runs, &lines) == 0 && lines == 1,
          "another program has no runs");
    /* Runs newest first, three at most; another program's line stays. */
    for (int i = 1; i <= 4; i++)
        CHECK(tb_programs_write(path, me, &(tb_program_run){TB_RUN_AHEAD, 0.0, i, (unsigned long long)i}) == 0,
              "run %d written", i);
    CHECK(tb_programs_write(path, "fedcba9876543210", &(tb_program_run){0, 0.05, 0.0, 3}) == 0,
          "another program written");
    CHECK(tb_programs_read(path, me, runs, &lines) == 3 && lines == 2 && runs[0].after_s == 4.0 &&
              runs[1].after_s == 3.0 && runs[2].after_s == 2.0,
          "three runs kept, newest first (%g %g %g), beside the other program", runs[0].after_s,
          runs[1].after_s, runs[2].after_s);
    CHECK(lines_with(path, "program fedcba9876543210 ") == 1 &&
              lines_with(path, "program ") == 2 && lines_with(path, "# ") == 3,
          "one line a program, the one written last first, under three lines of comment");

    /* A link planted at the path: not read, and writing replaces it with a
     * regular file; the link's target keeps its bytes. */
    put(victim, "program 0123456789abcdef 1 9 9 9\n");
    unlink(path);
    CHECK(symlink(victim, path) == 0, "plant a link");
    CHECK(tb_programs_read(path, me, runs, &lines) == 0 && lines == -1, "a link is not read");
    CHECK(tb_programs_write(path, me, &(tb_program_run){0, 0.01, 0.0, 1}) == 0, "write over a link");
    CHECK(file_size(victim) == (long)strlen("program 0123456789abcdef 1 9 9 9\n") && is_regular(path) &&
              tb_programs_read(path, me, runs, &lines) == 1 && runs[0].before_s == 0.01,
          "the link's target is untouched, the path is a regular file with one run");

    /* A FIFO at the path: not read (nor waited on), replaced on writing. */
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0, "plant a FIFO");
    CHECK(tb_programs_read(path, me, runs, &lines) == 0 && lines == -1, "a FIFO is not read");
    CHECK(tb_programs_write(path, me, &(tb_program_run){0, 0.01, 0.0, 1}) == 0 && is_regular(path),
          "a FIFO is replaced");

    /* A file of 1 MB of good lines, other programs', this one's last: read
     * only up to the bound (this program's line is past it), written back
     * with 64 programs at most, within the bound. */
    FILE *f = fopen(path, "w");
    for (int i = 0; f && i < 22000; i++)
        fprintf(f, "program %016x 1 0.100000 0.200000 3\n", i + 1);
    if (f) {
        fprintf(f, "program %s 2 0.0 9.0 30\n", me);
        fclose(f);
    }
    CHECK(file_size(path) > 1000000, "plant an oversized file (%ld bytes)", file_size(path));
    CHECK(tb_programs_read(path, me, runs, &lines) == 0 && lines == 64,
          "read only up to the bound: 64 programs, not this one past it (%d)", lines);
    CHECK(tb_programs_write(path, me, &(tb_program_run){0, 0.01, 0.0, 1}) == 0, "write after it");
    CHECK(file_size(path) > 0 && file_size(path) < 16384 && lines_with(path, "program ") == 64 &&
              tb_programs_read(path, me, runs, &lines) == 1 && lines == 64,
          "written back within the bound: %ld bytes, %d program lines, this one with one run",
          file_size(path), lines_with(path, "program "));
    CHECK(tb_programs_read(path, "000000000000003f", runs, &lines) == 1 &&
              tb_programs_read(path, "0000000000000040", runs, &lines) == 0,
          "the programs written longest ago fall off the end");

    /* Garbage: each bad line skipped, the good one read, only good lines
     * written back. */
    put(path, "\x01\x02garbage\xff\nprogram 0123456789abcdef 1 nan 0.2 3\n"
              "program 0123456789abcdef 1 0.1 0.2 3\nprogram zzzz 1 1 1 1\n");
    CHECK(tb_programs_read(path, me, runs, &lines) == 1 && lines == 1 && runs[0].before_s == 0.1,
          "among garbage the good line is read");
    CHECK(tb_programs_write(path, "fedcba9876543210", &(tb_program_run){0, 0.01, 0.0, 1}) == 0 &&
              lines_with(path, "program ") == 2 && lines_with(path, "program zzzz") == 0,
          "only good lines are written back");

    /* A directory that group or others may write to is not used. */
    CHECK(chmod(dir, 0777) == 0, "chmod 0777");
    CHECK(tb_programs_read(path, me, runs, &lines) == 0 && lines == -1,
          "not read from a world-writable directory");
    unlink(path);
    CHECK(tb_programs_write(path, me, &(tb_program_run){0, 0.01, 0.0, 1}) != 0 && access(path, F_OK) != 0,
          "not written to a world-writable directory");
    CHECK(chmod(dir, 0775) == 0 && tb_programs_write(path, me, &(tb_program_run){0, 0.01, 0.0, 1}) != 0,
          "not written to a group-writable directory");
    CHECK(chmod(dir, 0755) == 0 && tb_programs_write(path, me, &(tb_program_run){0, 0.01, 0.0, 1}) == 0,
          "used again at 0755");

    /* Owned by another user (only root can arrange that). */
    if (geteuid() == 0) {
        char sub[1200], other[1300];
        snprintf(sub, sizeof sub, "%s/other", argv[1]);
        snprintf(other, sizeof other, "%s/programs.txt", sub);
        CHECK(mkdir(sub, 0755) == 0 && chown(sub, 65534, 65534) == 0, "a directory owned by 65534");
        put(other, "program 0123456789abcdef 1 0.1 0.2 3\n");
        CHECK(tb_programs_read(other, me, runs, &lines) == 0 && lines == -1,
              "not read from another user's directory");
        CHECK(tb_programs_write(other, me, &(tb_program_run){0, 0.01, 0.0, 1}) != 0,
              "not written to another user's directory");
    } else {
        printf("(not root: the other-owner check is skipped)\n");
    }

    /* This process's identity: 16 hex digits, the same each time. */
    char a[17], b[17];
    CHECK(tb_program_id(a) == 0 && tb_program_id(b) == 0 && strcmp(a, b) == 0 &&
              strspn(a, "0123456789abcdef") == 16,
          "the program's identity is stable (%s)", a);

    /* Through the settings: TILEDBLAS_CACHE_DIR names the directory. */
    tb_program_run r1 = run_of(TB_RUN_STARTED, 0.48, 30);
    CHECK(tb_program_save(&r1) == 0 && is_regular(rec2), "saved in TILEDBLAS_CACHE_DIR");
    CHECK(tb_program_load(runs) == 1 && runs[0].calls == 30 && near(runs[0].before_s + runs[0].after_s, 0.48),
          "loaded back from it");
    tb_program_forget();
    CHECK(access(rec2, F_OK) != 0 && tb_program_load(runs) == 0, "forgotten: the file is gone");
    return unit_summary("test_program_files");
}
