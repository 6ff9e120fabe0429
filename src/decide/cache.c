/* src/decide/cache.c - the cache: the rates file's format, where the files live
 * (the directory from settings.c, files named by a hash of the machine's
 * key: the rates, and what auto mode learned, whose text policy.c writes)
 * and reading and writing them safely. It measures nothing (calibrate.c does)
 * and trusts nothing it reads: every rate is range-checked, and a directory
 * another user could write into is not used at all. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_files.h"
#include "tiledblas.h"
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bumped whenever a cached rate changes meaning (costmodel.c), so that files
 * written by an older model are measured again. 2: the CPU's time for C's
 * traffic adds to its flops instead of overlapping them. 3: the small-call
 * grid. 4: the grid's GPU times are medians of five, not the fastest of
 * three. 5: double precision's compute rates. */
#define TB_MODEL_REVISION 5

/* The cache file's largest size: the rates and up to 448 grid lines. */
#define TB_CAL_TEXT 32768

/* The rates by name, in file order, with the bounds a measurement must fall
 * in to be believed. */
static const struct {
    const char *name;
    size_t off;
    double lo, hi;
} tb_cal_fields[] = {
    {"cpu_flops", offsetof(tb_rates, cpu_flops), 1e8, 1e16},
    {"cpu_fixed_s", offsetof(tb_rates, cpu_fixed_s), 0.0, 2e-3},
    {"cpu_core_flops", offsetof(tb_rates, cpu_core_flops), 1e7, 1e14},
    {"gpu_flops", offsetof(tb_rates, gpu_flops), 1e10, 1e17},
    {"gpu_fixed_s", offsetof(tb_rates, gpu_fixed_s), 1e-7, 2e-3},
    {"h2d_bps", offsetof(tb_rates, h2d_bps), 1e8, 1e13},
    {"d2h_bps", offsetof(tb_rates, d2h_bps), 1e8, 1e13},
    {"thin_dim", offsetof(tb_rates, thin_dim), 1.0, 1e6},
    {"cpu_c_bps", offsetof(tb_rates, cpu_c_bps), 1e8, 1e13},
    {"dp_cpu_flops", offsetof(tb_rates, dp_cpu_flops), 1e7, 1e16},
    {"dp_cpu_core_flops", offsetof(tb_rates, dp_cpu_core_flops), 1e6, 1e14},
    {"dp_gpu_flops", offsetof(tb_rates, dp_gpu_flops), 1e9, 1e17},
};
#define TB_NCAL (int)(sizeof tb_cal_fields / sizeof tb_cal_fields[0])

static double *tb_field(tb_rates *r, int i) { return (double *)((char *)r + tb_cal_fields[i].off); }

static int tb_plausible(int i, double v)
{
    return isfinite(v) && v >= tb_cal_fields[i].lo && v <= tb_cal_fields[i].hi;
}

void tb_rates_keep(tb_rates *r, size_t field, double v)
{
    for (int i = 0; i < TB_NCAL; i++)
        if (tb_cal_fields[i].off == field && tb_plausible(i, v))
            *tb_field(r, i) = v;
}

/* ---- the file's text ------------------------------------------------------ */

int tb_calibration_format(const tb_rates *r, const char *key, const char *when, char *buf,
                          size_t len)
{
    int n = snprintf(buf, len,
                     "# libtiledblas: this machine's rates for the GPU/CPU decision, measured %s.\n"
                     "# Delete this file, or run `tiledblas calibrate`, to measure them again.\n"
                     "key %s\n", when, key);
    for (int i = 0; i < TB_NCAL && n >= 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - n, "%s %.6g\n", tb_cal_fields[i].name,
                      *tb_field((tb_rates *)r, i));
    /* The grid: "grid M N K cpu_s gpu_s", one line per measured shape. */
    for (int i = 0; i < TB_GRID_MN; i++)
        for (int j = 0; j < TB_GRID_MN; j++)
            for (int l = 0; l < TB_GRID_K && n >= 0 && (size_t)n < len; l++)
                if (r->grid[0][i][j][l] > 0.0f && r->grid[1][i][j][l] > 0.0f)
                    n += snprintf(buf + n, len - n, "grid %d %d %d %.4g %.4g\n", 32 << i, 32 << j,
                                  1 << 2 * l, r->grid[0][i][j][l], r->grid[1][i][j][l]);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* log2 of x when x is a power of two, else -1. */
static int tb_log2_exact(int x)
{
    for (int l = 0; l < 31; l++)
        if (x == 1 << l)
            return l;
    return -1;
}

/* One "grid M N K cpu_s gpu_s" line (without "grid "): 0 when it names a
 * shape of the grid and two plausible times. */
static int tb_grid_line(const char *text, size_t len, tb_rates *r)
{
    char buf[128];
    int m, n, k, used = 0;
    double tc, tg;
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (sscanf(buf, "%d %d %d %lf %lf%n", &m, &n, &k, &tc, &tg, &used) != 5 || buf[used])
        return -1;
    const int i = tb_log2_exact(m) - 5, j = tb_log2_exact(n) - 5, lk = tb_log2_exact(k);
    if (lk < 0 || lk % 2 || !tb_grid_wanted(i, j, lk / 2) || !(tc >= 1e-7 && tc <= 10.0) ||
        !(tg >= 1e-7 && tg <= 10.0))
        return -1;
    r->grid[TB_ROUTE_CPU][i][j][lk / 2] = (float)tc;
    r->grid[TB_ROUTE_GPU][i][j][lk / 2] = (float)tg;
    return 0;
}

int tb_calibration_parse(const char *text, const char *key, tb_rates *out)
{
    tb_rates r = *tb_rates_builtin();
    int seen = 0, key_ok = 0;
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t l = eol ? (size_t)(eol - line) : strlen(line);
        if (l > 4 && strncmp(line, "key ", 4) == 0)
            key_ok = l - 4 == strlen(key) && strncmp(line + 4, key, l - 4) == 0;
        if (l > 5 && strncmp(line, "grid ", 5) == 0 && tb_grid_line(line + 5, l - 5, &r) != 0)
            return -1;
        for (int i = 0; i < TB_NCAL; i++) {
            size_t nl = strlen(tb_cal_fields[i].name);
            if (l > nl + 1 && strncmp(line, tb_cal_fields[i].name, nl) == 0 && line[nl] == ' ') {
                char num[48], *end;
                size_t vl = l - nl - 1 < sizeof num - 1 ? l - nl - 1 : sizeof num - 1;
                memcpy(num, line + nl + 1, vl);
                num[vl] = '\0';
                double v = strtod(num, &end);
                if (end == num || *end || !tb_plausible(i, v))
                    return -1;
                *tb_field(&r, i) = v;
                seen |= 1 << i;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    if (!key_ok || seen != (1 << TB_NCAL) - 1)
        return -1;
    *out = r;
    return 0;
}

/* ---- the key and the path ------------------------------------------------- */

static uint64_t tb_fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void tb_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *v = strchr(line, ':');
            if (v) {
                v += 1 + (v[1] == ' ');
                v[strcspn(v, "\n")] = '\0';
                snprintf(buf, len, "%s", v);
            }
            break;
        }
    fclose(f);
}

int tb_calibration_path(char *path, size_t len, char *key, size_t klen)
{
    const tb_settings *s = tb_settings_get();
    struct cudaDeviceProp prop;
    char k[2048], cpu[160], blas[512], warn[256], uuid[40] = "";
    if (cudaGetDeviceProperties(&prop, s->device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    for (int i = 0; i < 16; i++)
        snprintf(uuid + 2 * i, 3, "%02x", (unsigned char)prop.uuid.bytes[i]);
    tb_cpu_model(cpu, sizeof cpu);
    tb_cpu_blas_describe(blas, sizeof blas, warn, sizeof warn);
    snprintf(k, sizeof k,
             "tiledblas %s model %d | gpu %s %s %d SMs | cpu %s x%ld | blas %s | copy-threads %d "
             "streams %d kernel %s device-memory %.0f",
             TILEDBLAS_VERSION, TB_MODEL_REVISION, prop.name, uuid, prop.multiProcessorCount, cpu,
             sysconf(_SC_NPROCESSORS_ONLN), blas, s->copy_threads, s->lanes,
             s->kernel ? s->kernel : "default", s->device_memory);
    if (key && snprintf(key, klen, "%s", k) >= (int)klen)
        return -1;
    if (!s->cache_root)
        return -1;
    int n = snprintf(path, len, "%s/rates-%016llx.txt", s->cache_root,
                     (unsigned long long)tb_fnv1a(k));
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int tb_learned_path(const char *rates_path, char *path, size_t len)
{
    const char *base = strrchr(rates_path, '/');
    base = base ? base + 1 : rates_path;
    if (strncmp(base, "rates-", 6) != 0)
        return -1;
    int n = snprintf(path, len, "%.*slearned-%s", (int)(base - rates_path), rates_path, base + 6);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* ---- reading and writing -------------------------------------------------- */

/* The directory part of path, in dir (len bytes); -1 when there is none. */
static int tb_dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path || (size_t)(slash - path) >= len)
        return -1;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    return 0;
}

/* 1 when dir is a directory owned by the effective user that neither group
 * nor others may write: no one else can plant or swap a file in it. When it
 * is not (but for one that does not exist yet), one line at verbose 2 says
 * why the cache is not used. */
static int tb_cache_dir_trusted(const char *dir)
{
    static int said;
    struct stat st;
    const char *why = NULL;
    if (stat(dir, &st) != 0 && errno == ENOENT)
        return 0;      /* nothing there yet to read: nothing to say (a write makes it first) */
    if (stat(dir, &st) != 0)
        why = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        why = "not a directory";
    else if (st.st_uid != geteuid())
        why = "owned by another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        why = "group or others may write to it";
    if (!why)
        return 1;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
        tb_log(2, "cache directory %s is not used: %s", dir, why);
    return 0;
}

/* mkdir -p dir (new directories 0755 before the umask). */
static int tb_mkdirs(const char *dir)
{
    char d[4096];
    if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d)
        return -1;
    for (char *p = d + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(d, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(d, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int tb_cache_read(const char *path, char *text, size_t len)
{
    char dir[4096];
    if (len == 0 || tb_dir_of(path, dir, sizeof dir) != 0 || !tb_cache_dir_trusted(dir))
        return -1;
    int fd = tb_open_read(path);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n < len - 1) {
        ssize_t k = read(fd, text + n, len - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    text[n] = '\0';
    return 0;
}

int tb_cache_load(const char *path, const char *key, tb_rates *r)
{
    char *text = malloc(TB_CAL_TEXT);
    int rc = text && tb_cache_read(path, text, TB_CAL_TEXT) == 0 ? tb_calibration_parse(text, key, r)
                                                                 : -1;
    free(text);
    return rc;
}

/* A temporary file made by mkstemp in the cache directory, renamed over the
 * path once complete: a reader never sees half a file, and a link planted
 * at the path is replaced, never followed. */
int tb_cache_write(const char *path, const char *text)
{
    char dir[4096], tmp[4200];
    if (tb_dir_of(path, dir, sizeof dir) != 0 || tb_mkdirs(dir) != 0 ||
        !tb_cache_dir_trusted(dir) || snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return -1;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    int ok = fchmod(fd, 0644) == 0;
    ok &= tb_file_write_all(fd, text, strlen(text)) == 0;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int tb_cache_save(const char *path, const char *key, const tb_rates *r)
{
    char when[40];
    char *text = malloc(TB_CAL_TEXT);
    if (!text)
        return -1;
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
    int rc = tb_calibration_format(r, key, when, text, TB_CAL_TEXT) == 0 ? tb_cache_write(path, text)
                                                                          : -1;
    free(text);
    return rc;
}

int tb_cache_remove(const char *path)
{
    char dir[4096];
    if (tb_dir_of(path, dir, sizeof dir) != 0 || !tb_cache_dir_trusted(dir))
        return -1;
    return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}
