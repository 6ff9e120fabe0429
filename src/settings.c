/* src/settings.c - every TILEDBLAS_* variable, parsed once into a const
 * struct by typed parsers. A bad value warns, naming the variable, and the
 * default is used. Nothing else reads the environment. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Auto mode never considers the GPU below this m*n*k. On the H200 machine
 * (session 9, one stream and the seed kernel for small products) a forced
 * GPU call took 0.054 ms at 128^3 against OpenBLAS's 0.049, and 0.059 at
 * 150^3 against 0.066: the two meet between, and the cost model
 * (costmodel.c, with this machine's rates from calibrate.c) decides from
 * 150^3 up. Until session 8 a GPU call cost about 20 us more and the
 * threshold was 256^3; session 9's sweep found the GPU faster than
 * OpenBLAS by 1.9-2.0x at 230^3 and 200x200x400, below that. */
#define TB_DEFAULT_THRESHOLD (150.0 * 150.0 * 150.0)

static tb_settings tb_s;

/* Indexed by tb_stage: the words TILEDBLAS_FAULT takes and messages use. */
static const char *const tb_stage_names[TB_STAGE_COUNT] = {
    "none", "init", "alloc", "h2d", "launch", "kernel", "d2h"};
static pthread_once_t tb_s_once = PTHREAD_ONCE_INIT;

/* Bad values are collected while parsing and reported after, because the
 * logger itself reads the settings. */
static char tb_s_bad[8][160];
static int tb_s_nbad;

static void tb_bad(const char *var, const char *val, const char *want)
{
    if (tb_s_nbad < 8)
        snprintf(tb_s_bad[tb_s_nbad++], sizeof tb_s_bad[0],
                 "%s='%.40s' is not %s; using the default", var, val, want);
}

static const char *tb_env(const char *var)
{
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

/* TILEDBLAS_SCOPE: a comma-separated list of cblas, fortran, rowmajor,
 * colmajor, nn, nt, tn, tt or all. A group with no word named stays open:
 * "rowmajor,nn" lets row-major NN calls of either interface go to the GPU. */
static unsigned tb_parse_scope(const char *var)
{
    static const struct { const char *word; unsigned bit; } words[] = {
        {"cblas", TB_SCOPE_CBLAS}, {"fortran", TB_SCOPE_FORTRAN},
        {"rowmajor", TB_SCOPE_ROW}, {"colmajor", TB_SCOPE_COL},
        {"nn", TB_SCOPE_NN}, {"nt", TB_SCOPE_NT}, {"tn", TB_SCOPE_TN}, {"tt", TB_SCOPE_TT},
        {"all", TB_SCOPE_ALL},
    };
    static const unsigned groups[] = {TB_SCOPE_CBLAS | TB_SCOPE_FORTRAN,
                                      TB_SCOPE_ROW | TB_SCOPE_COL,
                                      TB_SCOPE_NN | TB_SCOPE_NT | TB_SCOPE_TN | TB_SCOPE_TT};
    const char *v = tb_env(var);
    if (!v)
        return TB_SCOPE_ALL;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", v);
    unsigned named = 0;
    for (char *save, *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strcasecmp(w, words[i].word) == 0)
                bit = words[i].bit;
        if (!bit) {
            tb_bad(var, v, "a list of cblas,fortran,rowmajor,colmajor,nn,nt,tn,tt,all");
            return TB_SCOPE_ALL;
        }
        named |= bit;
    }
    unsigned scope = 0;
    for (size_t g = 0; g < 3; g++)
        scope |= (named & groups[g]) ? (named & groups[g]) : groups[g];
    return scope;
}

/* A byte count with an optional K, M, G or T suffix (powers of 1024). */
static double tb_parse_bytes(const char *var, double def)
{
    const char *v = tb_env(var);
    if (!v)
        return def;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    double unit = 1.0;
    switch (*end) {
    case 'k': case 'K': unit = 1024.0; end++; break;
    case 'm': case 'M': unit = 1048576.0; end++; break;
    case 'g': case 'G': unit = 1073741824.0; end++; break;
    case 't': case 'T': unit = 1099511627776.0; end++; break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (errno || end == v || *end || !isfinite(x) || x <= 0.0) {
        tb_bad(var, v, "a size in bytes, e.g. 512M or 8G");
        return def;
    }
    return x * unit;
}

static void tb_settings_parse(void)
{
    static const char *const modes[] = {"auto", "gpu", "cpu", "verify"};

    tb_s.mode = (tb_mode)tb_parse_choice(TB_ENV_MODE, modes, 4, TB_MODE_AUTO);
    tb_s.verbose = (int)tb_parse_long(TB_ENV_VERBOSE, 0, 2, 1);
    tb_s.log_path = tb_env(TB_ENV_LOG);
    tb_s.cpu_blas = tb_env(TB_ENV_CPU_BLAS) ? tb_env(TB_ENV_CPU_BLAS) : "libopenblas.so.0";
    tb_s.threshold = tb_parse_double(TB_ENV_THRESHOLD, 0.0, TB_DEFAULT_THRESHOLD);
    tb_s.kernel = tb_env(TB_ENV_KERNEL);
    tb_s.device = (int)tb_parse_long(TB_ENV_DEVICE, 0, 63, 0);
    tb_s.fault = (tb_stage)tb_parse_choice(TB_ENV_FAULT, tb_stage_names, TB_STAGE_COUNT, TB_STAGE_NONE);
    tb_s.stats = tb_env(TB_ENV_STATS);
    if (tb_s.stats && strcmp(tb_s.stats, "0") == 0)
        tb_s.stats = NULL;
    tb_s.trace = tb_env(TB_ENV_TRACE);
    tb_s.verify_every = tb_parse_long(TB_ENV_VERIFY_EVERY, 1, 1000000000L, 1);
    tb_s.scope = tb_parse_scope(TB_ENV_SCOPE);
    tb_s.device_memory = tb_parse_bytes(TB_ENV_DEVICE_MEMORY, 0.0);
    tb_s.copy_threads = (int)tb_parse_long(TB_ENV_COPY_THREADS, 1, 32, 0);
    tb_s.lanes = (int)tb_parse_long(TB_ENV_STREAMS, 1, 8, 2);
    static const char *const cal[] = {"auto", "off", "force"};
    tb_s.calibrate = tb_parse_choice(TB_ENV_CALIBRATE, cal, 3, TB_CAL_AUTO);
    tb_s.cache_dir = tb_env(TB_ENV_CACHE_DIR);
    static const char *const onoff[] = {"off", "on"};
    tb_s.learn = tb_parse_choice(TB_ENV_LEARN, onoff, 2, 1);
    tb_s.accounting = tb_s.verbose >= 2 || tb_s.stats || tb_s.trace || tb_s.mode == TB_MODE_VERIFY;
}

const tb_settings *tb_settings_get(void)
{
    pthread_once(&tb_s_once, tb_settings_parse);
    /* Report bad values once, now that the logger can read the settings. */
    static int reported;
    if (tb_s_nbad && !__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
        for (int i = 0; i < tb_s_nbad; i++)
            tb_log(1, "%s", tb_s_bad[i]);
    return &tb_s;
}

const char *tb_stage_name(tb_stage s)
{
    return (s >= 0 && s < TB_STAGE_COUNT) ? tb_stage_names[s] : "?";
}
