/* tool/cmd_run.c - `tiledblas run`: runs a command with libtiledblas
 * preloaded (by absolute path, before any LD_PRELOAD already set) and the
 * chosen TILEDBLAS_* settings; returns the command's exit status. An option
 * given twice counts once, the last one: there is one slot per variable. */
#include "tool.h"
#include "tb_files.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char tb_run_usage[] =
    "usage: tiledblas run [options] [--] CMD [ARGS...]\n"
    "Runs CMD with libtiledblas preloaded; exits with CMD's status (128+N when\n"
    "a signal N killed it). CMD's output passes through untouched.\n"
    "  --mode M          TILEDBLAS_MODE: auto (default), gpu, cpu or verify\n"
    "  --stats[=FILE]    TILEDBLAS_STATS: a table per process at exit, on stderr\n"
    "                    or appended to FILE (FILE.json: JSON lines)\n"
    "  --trace FILE      TILEDBLAS_TRACE: one JSON line per call (FILE is emptied\n"
    "                    first; every process of CMD appends to it)\n"
    "  --verbose N       TILEDBLAS_VERBOSE: 0 silent, 1 warnings, 2 every call\n"
    "  --verify-every N  TILEDBLAS_VERIFY_EVERY: compare every Nth eligible call\n"
    "  --help            this text\n"
    "An option given more than once: the last one counts.\n"
    "The library is found next to this command (or ../lib); TILEDBLAS_LIBRARY\n"
    "names another.\n";

/* The variables `run` may set, one slot each. */
enum { TB_RUN_MODE, TB_RUN_STATS, TB_RUN_TRACE, TB_RUN_VERBOSE, TB_RUN_VERIFY_EVERY, TB_RUN_NVARS };
static const char *const tb_run_vars[TB_RUN_NVARS] = {
    "TILEDBLAS_MODE", "TILEDBLAS_STATS", "TILEDBLAS_TRACE", "TILEDBLAS_VERBOSE",
    "TILEDBLAS_VERIFY_EVERY"};

/* The trace file, emptied once before CMD starts (the library appends:
 * CMD's processes share it). Not through a link, never a FIFO or device;
 * if it cannot be, the library says so and CMD still runs. */
static void tb_run_empty_trace(const char *trace)
{
    const char *why;
    int fd = tb_open_write(trace, TB_WRITE_TRUNCATE, &why);
    if (fd >= 0)
        close(fd);
    else
        fprintf(stderr, "tiledblas: run: --trace %s: %s\n", trace, why);
}

int tb_cmd_run(int argc, char **argv)
{
    const char *value[TB_RUN_NVARS] = {NULL};
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long x;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(tb_run_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--mode")) {
            if (!v || (strcmp(v, "auto") && strcmp(v, "gpu") && strcmp(v, "cpu") && strcmp(v, "verify")))
                return tb_tool_usage_error("run", "--mode wants auto, gpu, cpu or verify");
            value[TB_RUN_MODE] = v;
            i++;
        } else if (!strcmp(a, "--stats")) {
            value[TB_RUN_STATS] = "stderr";
        } else if (!strncmp(a, "--stats=", 8) && a[8]) {
            value[TB_RUN_STATS] = a + 8;
        } else if (!strcmp(a, "--trace")) {
            if (!v || !*v)
                return tb_tool_usage_error("run", "--trace needs a file name");
            value[TB_RUN_TRACE] = v;
            i++;
        } else if (!strcmp(a, "--verbose")) {
            if (tb_tool_parse_int(v, 0, 2, &x))
                return tb_tool_usage_error("run", "--verbose wants 0, 1 or 2");
            value[TB_RUN_VERBOSE] = v;
            i++;
        } else if (!strcmp(a, "--verify-every")) {
            if (tb_tool_parse_int(v, 1, 1000000000L, &x))
                return tb_tool_usage_error("run", "--verify-every wants a whole number >= 1");
            value[TB_RUN_VERIFY_EVERY] = v;
            i++;
        } else {
            return tb_tool_usage_error("run", "unknown option '%.200s'", a);
        }
    }
    if (i >= argc)
        return tb_tool_usage_error("run", "no command given");
    const char *trace = value[TB_RUN_TRACE];
    if (trace && !strstr(trace, "%p"))
        tb_run_empty_trace(trace);
    tb_env env[TB_RUN_NVARS];
    int nenv = 0;
    for (int k = 0; k < TB_RUN_NVARS; k++)
        if (value[k])
            env[nenv++] = (tb_env){tb_run_vars[k], value[k]};
    return tb_tool_spawn(argv + i, env, nenv, NULL, NULL);
}
