/* src/core/settings.c - every TILEDBLAS_* variable (and HOME / XDG_CACHE_HOME for
 * the cache), parsed once into a const struct by typed parsers. A bad value
 * warns, naming the variable, and the default is used. Nothing else reads
 * the environment; in secure execution (AT_SECURE) nothing is read at all. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_kernels.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

/* Auto mode never considers the GPU below this m*n*k. On the H200 machine,
 * with one stream, a forced GPU call on the seed kernel takes 0.054 ms at
 * 128^3 against OpenBLAS's 0.049, and 0.059 at 150^3 against 0.066 (the
 * small kernel, which such calls run on, takes 4 us more at 128^3 and is
 * at par by 256^3): the two meet between, and the cost model (costmodel.c,
 * with this machine's rates from calibrate.c) decides from 150^3 up. Not
 * far above, at 230^3 and 200x200x400, the GPU is 1.9-2.0x faster than
 * OpenBLAS. */
#define TB_DEFAULT_THRESHOLD (150.0 * 150.0 * 150.0)

/* The trace stops growing past this many bytes unless TILEDBLAS_TRACE_MAX
 * says otherwise: thousands of calls a second fill it by megabytes a second. */
#define TB_DEFAULT_TRACE_MAX (1024.0 * 1024.0 * 1024.0)

/* The longest path taken from a setting: longer ones are refused, not cut
 * (a cut path names another file). */
#define TB_PATH_MAX 4096

static tb_settings tb_s;
static char tb_s_cache_root[TB_PATH_MAX];

/* Indexed by tb_stage: the words TILEDBLAS_FAULT takes and messages use. */
static const char *const tb_stage_names[TB_STAGE_COUNT] = {
    "none", "init", "alloc", "h2d", "launch", "kernel", "d2h"};
static pthread_once_t tb_s_once = PTHREAD_ONCE_INIT;

/* Bad values are collected while parsing and reported after, because the
 * logger itself reads the settings. Each variable is read once and reports
 * at most one bad value: there is room for every one of them. */
#define TB_MAX_BAD 32
static char tb_s_bad[TB_MAX_BAD][256];
static int tb_s_nbad;

/* A value as it may appear in a log line: printable ASCII kept, anything
 * else (newlines, escapes, bytes above 0x7e) as \xNN, at most 40 of the
 * value's bytes, "..." when there were more. */
static void tb_quote_value(char *dst, size_t len, const char *v)
{
    size_t n = 0, used = 0;
    for (; *v && used < 40 && n + 5 < len; v++, used++) {
        unsigned char ch = (unsigned char)*v;
        if (ch >= 0x20 && ch < 0x7f && ch != '\\')
            dst[n++] = (char)ch;
        else
            n += (size_t)snprintf(dst + n, len - n, "\\x%02x", ch);
    }
    if (*v && n + 4 < len) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
}

/* "VAR='value' <problem>; <consequence>" */
static void tb_bad_line(const char *var, const char *val, const char *problem,
                        const char *consequence)
{
    char q[180];
    tb_quote_value(q, sizeof q, val);
    if (tb_s_nbad < TB_MAX_BAD)
        snprintf(tb_s_bad[tb_s_nbad++], sizeof tb_s_bad[0], "%s='%s' %s; %s", var, q,
                 problem, consequence);
}

static void tb_bad(const char *var, const char *val, const char *want)
{
    char problem[160];
    snprintf(problem, sizeof problem, "is not %s", want);
    tb_bad_line(var, val, problem, "using the default");
}

/* Secure execution (a setuid or setgid program, or one with file
 * capabilities): the environment belongs to a user who may not be the one
 * whose privileges the program runs with, so no setting is taken from it. */
static int tb_secure(void)
{
    return getauxval(AT_SECURE) != 0;
}

static const char *tb_env(const char *var)
{
    if (tb_s.secure)
        return NULL;
    const char *v = getenv(var);
    return (v && *v) ? v : NULL;
}

static int tb_parse_choice(const char *var, const char *const *names, int n, int def)
{
    const char *v = tb_env(var);
    if (!v)
        return def;
    for (int i = 0; i < n; i++)
        if (strcasecmp(v, names[i]) == 0)
            return i;
    char want[96] = "one of";
    for (int i = 0; i < n; i++) {
        strncat(want, i ? "|" : " ", sizeof want - strlen(want) - 1);
        strncat(want, names[i], sizeof want - strlen(want) - 1);
    }
    tb_bad(var, v, want);
    return def;
}

static long tb_parse_long(const char *var, long lo, long hi, long def)
{
    const char *v = tb_env(var);
    if (!v)
        return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        char want[64];
        snprintf(want, sizeof want, "an integer in %ld..%ld", lo, hi);
        tb_bad(var, v, want);
        return def;
    }
    return x;
}

static double tb_parse_double(const char *var, double lo, double def)
{
    const char *v = tb_env(var);
    if (!v)
        return def;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(x) || x < lo) {
        tb_bad(var, v, "a number >= 0 (e.g. 1e9)");
        return def;
    }
    return x;
}

/* A path: refused when it is TB_PATH_MAX bytes or longer. */
static const char *tb_parse_path(const char *var, const char *def)
{
    const char *v = tb_env(var);
    if (!v)
        return def;
    if (strlen(v) >= TB_PATH_MAX) {
        tb_bad(var, v, "a path shorter than 4096 bytes");
        return def;
    }
    return v;
}

/* TILEDBLAS_SCOPE: a comma-separated list of single, double, complex,
 * zcomplex, cblas, fortran, rowmajor, colmajor, nn, nt, tn, tt (a
 * conjugate transpose counts as t) or all. A group with no word
 * named stays open: "rowmajor,nn" lets row-major NN calls of either
 * precision and interface go to the GPU. */
static unsigned tb_parse_scope(const char *var)
{
    static const struct { const char *word; unsigned bit; } words[] = {
        {"single", TB_SCOPE_SINGLE}, {"double", TB_SCOPE_DOUBLE}, {"complex", TB_SCOPE_COMPLEX},
        {"zcomplex", TB_SCOPE_ZCOMPLEX}, {"cblas", TB_SCOPE_CBLAS}, {"fortran", TB_SCOPE_FORTRAN},
        {"rowmajor", TB_SCOPE_ROW}, {"colmajor", TB_SCOPE_COL},
        {"nn", TB_SCOPE_NN}, {"nt", TB_SCOPE_NT}, {"tn", TB_SCOPE_TN}, {"tt", TB_SCOPE_TT},
        {"all", TB_SCOPE_ALL},
    };
    static const unsigned groups[] = {TB_SCOPE_SINGLE | TB_SCOPE_DOUBLE | TB_SCOPE_COMPLEX |
                                          TB_SCOPE_ZCOMPLEX,
                                      TB_SCOPE_CBLAS | TB_SCOPE_FORTRAN,
                                      TB_SCOPE_ROW | TB_SCOPE_COL,
                                      TB_SCOPE_NN | TB_SCOPE_NT | TB_SCOPE_TN | TB_SCOPE_TT};
    static const char *const words_text =
        "a list of single,double,complex,zcomplex,cblas,fortran,rowmajor,colmajor,nn,nt,tn,tt,all";
    const char *v = tb_env(var);
    if (!v)
        return TB_SCOPE_ALL;
    char buf[128];
    if (strlen(v) >= sizeof buf) {
        tb_bad(var, v, words_text);
        return TB_SCOPE_ALL;
    }
    snprintf(buf, sizeof buf, "%s", v);
    unsigned named = 0;
    for (char *save, *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strcasecmp(w, words[i].word) == 0)
                bit = words[i].bit;
        if (!bit) {
            tb_bad(var, v, words_text);
            return TB_SCOPE_ALL;
        }
        named |= bit;
    }
    unsigned scope = 0;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        scope |= (named & groups[g]) ? (named & groups[g]) : groups[g];
    return scope;
}

/* A byte count the way the settings take one: 1024 as "1K". */
static const char *tb_size_words(char *buf, size_t len, double x)
{
    static const char units[] = "GMK";
    for (int i = 0; i < 3; i++) {
        double u = 1099511627776.0 / 1024.0 / (i == 0 ? 1.0 : i == 1 ? 1024.0 : 1048576.0);
        if (x >= u && fmod(x, u) == 0.0) {
            snprintf(buf, len, "%.0f%c", x / u, units[i]);
            return buf;
        }
    }
    snprintf(buf, len, "%.0f", x);
    return buf;
}

/* A byte count: decimal digits, then optionally K, M or G (powers of 1024)
 * and a B; lo..hi bytes. No hexadecimal, no exponent, no fraction: the
 * value is an exact whole number of bytes, converted without overflow. */
static double tb_parse_size(const char *var, double lo, double hi, double def)
{
    const char *v = tb_env(var);
    if (!v)
        return def;
    const char *p = v;
    double x = 0.0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 19; p++, digits++)
        x = x * 10.0 + (*p - '0');
    double unit = 1.0;
    switch (*p) {
    case 'k': case 'K': unit = 1024.0; p++; break;
    case 'm': case 'M': unit = 1048576.0; p++; break;
    case 'g': case 'G': unit = 1073741824.0; p++; break;
    }
    if (*p == 'B' || *p == 'b')
        p++;
    x *= unit;
    if (!digits || *p || x < lo || x > hi) {
        char want[128], a[24], b[24];
        snprintf(want, sizeof want, "a size from %s to %s (decimal digits, then optionally "
                 "K, M or G), e.g. 512M", tb_size_words(a, sizeof a, lo),
                 tb_size_words(b, sizeof b, hi));
        tb_bad(var, v, want);
        return def;
    }
    return x;
}

/* TILEDBLAS_STATS: off, "1" or "stderr" (the report on stderr), or a file. */
static const char *tb_parse_stats(void)
{
    const char *v = tb_parse_path(TB_ENV_STATS, NULL);
    return v && strcmp(v, "0") == 0 ? NULL : v;
}

/* TILEDBLAS_TRACE: off, "0" (off), or a file. The trace is JSON lines for
 * tools, not for a terminal: "1" and "stderr", which TILEDBLAS_STATS takes
 * for stderr, are refused rather than taken for file names. */
static const char *tb_parse_trace(void)
{
    const char *v = tb_parse_path(TB_ENV_TRACE, NULL);
    if (v && strcmp(v, "0") == 0)
        return NULL;
    if (v && (strcmp(v, "1") == 0 || strcasecmp(v, "stderr") == 0)) {
        tb_bad_line(TB_ENV_TRACE, v, "is not a file name (the trace is JSON lines written to "
                    "a file)", "nothing is traced");
        return NULL;
    }
    return v;
}

/* The calibration cache's directory: TILEDBLAS_CACHE_DIR, else
 * $XDG_CACHE_HOME/tiledblas (an absolute XDG_CACHE_HOME only), else
 * $HOME/.cache/tiledblas; NULL when there is none. */
static const char *tb_parse_cache_root(const char *dir)
{
    const char *xdg = tb_s.secure ? NULL : getenv("XDG_CACHE_HOME");
    const char *home = tb_s.secure ? NULL : getenv("HOME");
    const char *var = TB_ENV_CACHE_DIR;
    int n;
    if (dir) {
        n = snprintf(tb_s_cache_root, sizeof tb_s_cache_root, "%s", dir);
    } else if (xdg && xdg[0] == '/') {
        var = "XDG_CACHE_HOME";
        n = snprintf(tb_s_cache_root, sizeof tb_s_cache_root, "%s/tiledblas", xdg);
    } else if (home && home[0]) {
        var = "HOME";
        n = snprintf(tb_s_cache_root, sizeof tb_s_cache_root, "%s/.cache/tiledblas", home);
    } else {
        return NULL;
    }
    if (n < 0 || (size_t)n >= sizeof tb_s_cache_root) {
        tb_bad_line(var, dir ? dir : var[0] == 'X' ? xdg : home,
                    "makes the cache directory's path 4096 bytes or longer", "no cache is used");
        return NULL;
    }
    return tb_s_cache_root;
}

/* TILEDBLAS_DEVICES: "all" (every device CUDA sees, up to TB_MAX_DEVICES),
 * or a list of CUDA ordinals such as "0,1,3". A device listed twice is two
 * slots on one GPU, each with its own lanes and share of its memory (how
 * the tests cut calls over "devices" on a machine with one GPU). Unset,
 * TILEDBLAS_DEVICE=N stands for the list "N". */
static void tb_parse_devices(void)
{
    const long one = tb_parse_long(TB_ENV_DEVICE, 0, 63, -1);
    const char *v = tb_env(TB_ENV_DEVICES);
    tb_s.device = one >= 0 ? (int)one : 0;
    tb_s.ndevices = one >= 0 ? 1 : 0;
    tb_s.devices[0] = tb_s.device;
    if (!v || strcasecmp(v, "all") == 0)
        return;
    int list[TB_MAX_DEVICES], n = 0;
    const char *q = v;
    for (;;) {
        char *end;
        errno = 0;
        long x = strtol(q, &end, 10);
        if (errno || end == q || x < 0 || x > 63 || n == TB_MAX_DEVICES || (*end && *end != ','))
            break;
        list[n++] = (int)x;
        if (!*end) {
            tb_s.ndevices = n;
            memcpy(tb_s.devices, list, sizeof list);
            tb_s.device = list[0];
            return;
        }
        q = end + 1;
    }
    tb_bad(TB_ENV_DEVICES, v, "all, or a list of up to 8 device numbers 0..63 such as 0,1");
}

/* TILEDBLAS_FAULT: a stage's name, optionally "@N" for the N-th device slot
 * alone ("kernel@1"). */
static void tb_parse_fault(void)
{
    const char *v = tb_env(TB_ENV_FAULT);
    tb_s.fault = TB_STAGE_NONE;
    tb_s.fault_slot = -1;
    if (!v)
        return;
    const char *at = strchr(v, '@');
    const size_t len = at ? (size_t)(at - v) : strlen(v);
    char *end = NULL;
    long slot = at ? strtol(at + 1, &end, 10) : -1;
    for (int i = 0; i < TB_STAGE_COUNT; i++)
        if (strlen(tb_stage_names[i]) == len && strncasecmp(v, tb_stage_names[i], len) == 0 &&
            (!at || (end != at + 1 && !*end && slot >= 0 && slot < TB_MAX_DEVICES))) {
            tb_s.fault = (tb_stage)i;
            tb_s.fault_slot = (int)slot;
            return;
        }
    tb_bad(TB_ENV_FAULT, v, "one of none|init|alloc|h2d|launch|kernel|d2h, optionally with @N "
           "(a device slot 0..7)");
}

/* TILEDBLAS_KERNEL: the name of a kernel built in (kernels/registry.c's
 * table, read without starting CUDA). Whether it fits the GPU and the call
 * is known only at the call (src/gpu/pipeline.c). */
static const char *tb_parse_kernel(void)
{
    const char *v = tb_env(TB_ENV_KERNEL);
    if (v && !tb_kernel_by_name(v)) {
        tb_bad(TB_ENV_KERNEL, v, "a kernel built in ('tiledblas info' lists them)");
        return NULL;
    }
    return v;
}

static void tb_settings_parse(void)
{
    static const char *const modes[] = {"auto", "gpu", "cpu", "verify"};

    tb_s.secure = tb_secure();
    tb_s.mode = (tb_mode)tb_parse_choice(TB_ENV_MODE, modes, 4, TB_MODE_AUTO);
    tb_s.verbose = (int)tb_parse_long(TB_ENV_VERBOSE, 0, 2, 1);
    tb_s.log_path = tb_parse_path(TB_ENV_LOG, NULL);
    /* Secure execution opens no library by name: only a BLAS the program
     * loaded itself is used. */
    tb_s.cpu_blas = tb_s.secure ? NULL : tb_parse_path(TB_ENV_CPU_BLAS, "libopenblas.so.0");
    tb_s.threshold = tb_parse_double(TB_ENV_THRESHOLD, 0.0, TB_DEFAULT_THRESHOLD);
    tb_s.kernel = tb_parse_kernel();
    tb_parse_devices();
    tb_parse_fault();
    tb_s.stats = tb_parse_stats();
    tb_s.trace = tb_parse_trace();
    tb_s.trace_max = tb_parse_size(TB_ENV_TRACE_MAX, 1024.0, 1099511627776.0, TB_DEFAULT_TRACE_MAX);
    tb_s.verify_every = tb_parse_long(TB_ENV_VERIFY_EVERY, 1, 1000000000L, 1);
    tb_s.scope = tb_parse_scope(TB_ENV_SCOPE);
    tb_s.device_memory = tb_parse_size(TB_ENV_DEVICE_MEMORY, 1048576.0, 1099511627776.0, 0.0);
    /* 0, like unset: the default number of copy threads. */
    tb_s.copy_threads = (int)tb_parse_long(TB_ENV_COPY_THREADS, 0, 32, 0);
    tb_s.lanes = (int)tb_parse_long(TB_ENV_STREAMS, 1, 8, 2);
    static const char *const cal[] = {"auto", "off", "force"};
    /* Secure execution has no cache to keep measured rates in: measuring
     * them in every process would cost each about a second. */
    tb_s.calibrate = tb_s.secure ? TB_CAL_OFF : tb_parse_choice(TB_ENV_CALIBRATE, cal, 3, TB_CAL_AUTO);
    tb_s.cache_dir = tb_parse_path(TB_ENV_CACHE_DIR, NULL);
    tb_s.cache_root = tb_s.secure ? NULL : tb_parse_cache_root(tb_s.cache_dir);
    static const char *const onoff[] = {"off", "on"};
    tb_s.learn = tb_parse_choice(TB_ENV_LEARN, onoff, 2, 1);
    tb_s.accounting = tb_s.verbose >= 2 || tb_s.stats || tb_s.trace || tb_s.mode == TB_MODE_VERIFY;
}

const tb_settings *tb_settings_get(void)
{
    pthread_once(&tb_s_once, tb_settings_parse);
    return &tb_s;
}

const char *tb_settings_complaint(int i)
{
    tb_settings_get();
    return i >= 0 && i < tb_s_nbad ? tb_s_bad[i] : NULL;
}

const char *tb_stage_name(tb_stage s)
{
    return (s >= 0 && s < TB_STAGE_COUNT) ? tb_stage_names[s] : "?";
}
