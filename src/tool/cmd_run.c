/* src/tool/cmd_run.c - `tiledblas run`: runs a command with libtiledblas
 * preloaded (by absolute path, before any LD_PRELOAD already set) and the
 * chosen TILEDBLAS_* settings; returns the command's exit status. */
#include "tool.h"
#include <fcntl.h>
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
    "The library is found next to this command (or ../lib); TILEDBLAS_LIBRARY\n"
    "names another.\n";

int tb_cmd_run(int argc, char **argv)
{
    tb_env env[6];
    int nenv = 0, i;
    const char *trace = NULL;
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
            env[nenv++] = (tb_env){"TILEDBLAS_MODE", v};
            i++;
        } else if (!strcmp(a, "--stats")) {
            env[nenv++] = (tb_env){"TILEDBLAS_STATS", "stderr"};
        } else if (!strncmp(a, "--stats=", 8) && a[8]) {
            env[nenv++] = (tb_env){"TILEDBLAS_STATS", a + 8};
        } else if (!strcmp(a, "--trace")) {
            if (!v || !*v)
                return tb_tool_usage_error("run", "--trace needs a file name");
            env[nenv++] = (tb_env){"TILEDBLAS_TRACE", trace = v};
            i++;
        } else if (!strcmp(a, "--verbose")) {
            if (tb_tool_parse_int(v, 0, 2, &x))
                return tb_tool_usage_error("run", "--verbose wants 0, 1 or 2");
            env[nenv++] = (tb_env){"TILEDBLAS_VERBOSE", v};
            i++;
        } else if (!strcmp(a, "--verify-every")) {
            if (tb_tool_parse_int(v, 1, 1000000000L, &x))
                return tb_tool_usage_error("run", "--verify-every wants a whole number >= 1");
            env[nenv++] = (tb_env){"TILEDBLAS_VERIFY_EVERY", v};
            i++;
        } else {
            return tb_tool_usage_error("run", "unknown option '%s'", a);
        }
    }
    if (i >= argc)
        return tb_tool_usage_error("run", "no command given");
    if (trace && !strstr(trace, "%p")) {
        /* The library appends (processes share the file); start it empty.
         * If it cannot be opened the library says so and CMD still runs. */
        int fd = open(trace, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
            close(fd);
    }
    return tb_tool_spawn(argv + i, env, nenv, NULL, NULL);
}
