/* tool/tiledblas.c - main() of the `tiledblas` command: picks the
 * subcommand, and holds what they share: finding the library to preload and
 * running a program under it. No subcommand logic lives here. */
#define _GNU_SOURCE
#include "tool.h"
#include "tb_files.h"
#include "tiledblas.h"
#ifdef TB_HAVE_ANIMATE
#include "animate.h"
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TB_INSTALL_LIBDIR
#define TB_INSTALL_LIBDIR "lib"
#endif

static const char tb_usage[] =
    "usage: tiledblas <command> [options]\n"
    "       tiledblas --help | --version\n"
    "\n"
    "commands:\n"
    "  run    [--mode M] [--stats[=FILE]] [--trace FILE] [--verbose N] [--verify-every N]\n"
    "         [--] CMD ...\n"
    "         run CMD with libtiledblas preloaded\n"
    "  ab     [--repeat N | --runs N] [--log FILE] [--plot F.png|F.svg] [--] CMD ...\n"
    "         run CMD on the CPU BLAS and in auto mode, alternating, then in verify\n"
    "         mode; compare\n"
    "  info   the library, the CPU BLAS it forwards to, the GPU, the kernels, the settings\n"
    "  bench  [--sizes LIST] [--shapes MxNxK,...] [--reps N] [--double | --complex | --zcomplex]\n"
    "         [--csv F] [--plot F.png|F.svg] [--check-all]\n"
    "         OpenBLAS, the shim, the kernel alone and cuBLAS, side by side (sgemm, or\n"
    "         dgemm, cgemm, zgemm)\n"
    "  calibrate\n"
    "         measure this machine's rates for the GPU/CPU decision and cache them\n"
#ifdef TB_HAVE_ANIMATE
    "  animate --svg F | --html F [--m M] [--n N] [--k K] [--kernel NAME] [--block BX,BY]\n"
    "         [--thread TY,TX] [--trace FILE [--call N]]\n"
    "         draw how the kernel's grid computes one call\n"
#endif
    "\n"
    "'tiledblas <command> --help' describes each command and its options.\n";

int tb_tool_usage_error(const char *sub, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tiledblas: %s: ", sub);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'tiledblas %s --help')\n", sub);
    return 2;
}

int tb_tool_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

double tb_tool_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* dir/name with dir made absolute (symlinks in the name kept, so that the
 * path names the SONAME link, not one build's file); NULL when unreadable. */
static const char *tb_try(char *out, size_t len, const char *dir, const char *name)
{
    char real[PATH_MAX];
    if (!realpath(dir, real) || snprintf(out, len, "%s/%s", real, name) >= (int)len)
        return NULL;
    return access(out, R_OK) == 0 ? out : NULL;
}

const char *tb_tool_library(void)
{
    static char found[PATH_MAX];
    const char *env = getenv("TILEDBLAS_LIBRARY");
    if (env && *env) {
        if (access(env, R_OK) != 0 || !realpath(env, found)) {
            fprintf(stderr, "tiledblas: TILEDBLAS_LIBRARY='%s' cannot be read (%s)\n",
                    env, strerror(errno));
            return NULL;
        }
        return found;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {".", "../" TB_INSTALL_LIBDIR, "../lib", "../lib64"};
            static const char *const names[] = {"libtiledblas.so.0", "libtiledblas.so"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
                for (size_t j = 0; j < 2; j++) {
                    char dir[PATH_MAX];
                    if (snprintf(dir, sizeof dir, "%s/%s", exe, rel[i]) < (int)sizeof dir &&
                        tb_try(found, sizeof found, dir, names[j]))
                        return found;
                }
        }
    }
    /* The copy this command is linked to, wherever the loader found it. */
    Dl_info info;
    if (dladdr((void *)tiledblas_version, &info) && info.dli_fname &&
        realpath(info.dli_fname, found))
        return found;
    fprintf(stderr, "tiledblas: cannot find libtiledblas.so next to this command; "
                    "set TILEDBLAS_LIBRARY to its path\n");
    return NULL;
}

int tb_tool_spawn(char *const *argv, const tb_env *env, int nenv, const char *out_path,
                  double *wall_s)
{
    const char *lib = tb_tool_library();
    if (!lib)
        return 127;
    const char *old = getenv("LD_PRELOAD");
    size_t plen = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(plen);
    if (!preload)
        return 127;
    /* Ours first, so that our cblas_sgemm is the one the program binds to. */
    snprintf(preload, plen, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");

    /* Like system(): while the child runs, ^C and ^\ are the child's. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    fflush(NULL);
    double t0 = tb_tool_now();
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &oint, NULL);
        sigaction(SIGQUIT, &oquit, NULL);
        setenv("LD_PRELOAD", preload, 1);
        for (int i = 0; i < nenv; i++) {
            if (env[i].value)
                setenv(env[i].name, env[i].value, 1);
            else
                unsetenv(env[i].name);
        }
        if (out_path) {
            const char *why;
            int fd = tb_open_write(out_path, TB_WRITE_APPEND, &why);
            if (fd < 0) {
                fprintf(stderr, "tiledblas: cannot open %s: %s\n", out_path, why);
                _exit(127);
            }
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "tiledblas: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0, rc;
    if (pid < 0) {
        fprintf(stderr, "tiledblas: fork failed: %s\n", strerror(errno));
        rc = 127;
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        rc = WIFEXITED(status) ? WEXITSTATUS(status)
           : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    }
    if (wall_s)
        *wall_s = tb_tool_now() - t0;
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    free(preload);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(tb_usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(tb_usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("tiledblas %s\n", tiledblas_version());
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return tb_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "ab"))
        return tb_cmd_ab(argc - 1, argv + 1);
    if (!strcmp(cmd, "info"))
        return tb_cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "calibrate"))
        return tb_cmd_calibrate(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return tb_cmd_bench(argc - 1, argv + 1);
#ifdef TB_HAVE_ANIMATE
    if (!strcmp(cmd, "animate"))
        return tb_cmd_animate(argc - 1, argv + 1);
#endif
    fprintf(stderr, "tiledblas: unknown command '%s'\n%s", cmd, tb_usage);
    return 2;
}
