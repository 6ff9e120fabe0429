/* src/account/info.c - the text of `tiledblas info` (tiledblas_info in api.c): the
 * library's own path and version, the CPU BLAS it forwards to, the GPU, the
 * kernels, the settings in effect and where the rates came from. Reads
 * nothing from the environment itself (settings.c does); starts CUDA to
 * describe the GPU. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_kernels.h"
#include "tiledblas.h"
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The device, or why there is none, in words for a user. */
int tb_gpu_describe_for_user(char *buf, size_t len)
{
    int ok = tb_gpu_describe(buf, len);
    if (!ok && strcmp(buf, "none (no-gpu)") == 0)
        snprintf(buf, len, "none (no usable CUDA device or driver; TILEDBLAS_VERBOSE=2 "
                 "shows CUDA's reason)");
    return ok;
}

typedef struct tb_text {
    char *buf;
    size_t len, n;       /* n: what the whole text needs, as snprintf counts */
} tb_text;

static void tb_say(tb_text *t, const char *fmt, ...) TB_PRINTF(2, 3);
static void tb_say(tb_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->n < t->len ? t->buf + t->n : NULL, t->n < t->len ? t->len - t->n : 0,
                      fmt, ap);
    va_end(ap);
    if (k > 0)
        t->n += (size_t)k;
}

static const char *tb_or(const char *s, const char *dflt) { return s ? s : dflt; }

/* What the library is and what it runs on: its path and version, the CPU
 * BLAS, the GPU and the kernels. */
static void tb_info_parts(tb_text *t)
{
    char text[512], warn[512];
    Dl_info self;
    tb_say(t, "library: %s (version %s)\n",
           dladdr((void *)tb_info_text, &self) && self.dli_fname ? self.dli_fname : "?",
           TILEDBLAS_VERSION);
    tb_cpu_blas_describe(text, sizeof text, warn, sizeof warn);
    tb_say(t, "CPU BLAS: %s\n", text);
    if (warn[0])
        tb_say(t, "warning: %s\n", warn);
    tb_gpu_describe_for_user(text, sizeof text);
    tb_say(t, "GPU: %s\n", text);
    int nk;
    const tb_kernel_info *k = tb_kernel_list(&nk);
    for (int i = 0; i < nk; i++)
        tb_say(t, "kernel: %s (%s) - %s\n", k[i].name, k[i].dtype == TB_F64 ? "double" : k[i].dtype == TB_F32 ? "single" : k[i].dtype == TB_C32 ? "complex" : "zcomplex",
               k[i].summary);
}

/* TILEDBLAS_DEVICES, a list of device numbers. */
static void tb_info_devices(tb_text *t, const tb_settings *s)
{
    if (s->ndevices == 0) {
        tb_say(t, "  %s=all (every GPU; a large call is cut over them)\n", TB_ENV_DEVICES);
    } else {
        char list[64] = "";
        for (int i = 0; i < s->ndevices; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", s->devices[i]);
        tb_say(t, "  %s=%s\n", TB_ENV_DEVICES, list);
    }
}

/* TILEDBLAS_SCOPE, a list of words. */
static void tb_info_scope(tb_text *t, const tb_settings *s)
{
    if (s->scope == TB_SCOPE_ALL) {
        tb_say(t, "  %s=all (every precision, interface, layout and transpose may use the GPU)\n",
               TB_ENV_SCOPE);
        return;
    }
    /* The words TILEDBLAS_SCOPE takes, for the bits that are set. */
    static const char *const words[] = {"cblas", "fortran", "rowmajor", "colmajor",
                                        "nn", "nt", "tn", "tt", "single", "double"};
    char list[112] = "";
    for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++)
        if (s->scope & (1u << i))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? "," : "",
                     words[i]);
    tb_say(t, "  %s=%s (only these may use the GPU)\n", TB_ENV_SCOPE, list);
}

/* Every setting in effect, one a line. */
static void tb_info_settings(tb_text *t, const tb_settings *s)
{
    static const char *const modes[] = {"auto", "gpu", "cpu", "verify"};
    static const char *const cal[] = {"auto", "off", "force"};
    tb_say(t, "settings:\n");
    tb_say(t, "  %s=%s\n", TB_ENV_MODE, modes[s->mode]);
    tb_say(t, "  %s=%.6g (m*n*k from which auto mode tries the GPU)\n", TB_ENV_THRESHOLD, s->threshold);
    tb_say(t, "  %s=%d\n", TB_ENV_VERBOSE, s->verbose);
    tb_say(t, "  %s=%s\n", TB_ENV_LOG, tb_or(s->log_path, "(stderr)"));
    tb_say(t, "  %s=%s (used when the program loaded no CBLAS)\n", TB_ENV_CPU_BLAS,
           tb_or(s->cpu_blas, "(none: secure execution)"));
    tb_say(t, "  %s=%s\n", TB_ENV_KERNEL, tb_or(s->kernel, "(best for the shape)"));
    tb_info_devices(t, s);
    tb_say(t, "  %s=%s\n", TB_ENV_STATS, tb_or(s->stats, "(off)"));
    tb_say(t, "  %s=%s\n", TB_ENV_TRACE, tb_or(s->trace, "(off)"));
    tb_say(t, "  %s=%.0f MiB\n", TB_ENV_TRACE_MAX, s->trace_max / 1048576.0);
    tb_say(t, "  %s=%ld\n", TB_ENV_VERIFY_EVERY, s->verify_every);
    tb_info_scope(t, s);
    if (s->device_memory > 0.0)
        tb_say(t, "  %s=%.0f MiB (on each GPU)\n", TB_ENV_DEVICE_MEMORY, s->device_memory / 1048576.0);
    else
        tb_say(t, "  %s=(80%% of each GPU's free memory)\n", TB_ENV_DEVICE_MEMORY);
    if (s->copy_threads > 0)
        tb_say(t, "  %s=%d\n", TB_ENV_COPY_THREADS, s->copy_threads);
    else
        tb_say(t, "  %s=(every core, at most 16)\n", TB_ENV_COPY_THREADS);
    tb_say(t, "  %s=%d (calls that may use the GPU at once)\n", TB_ENV_STREAMS, s->lanes);
    tb_say(t, "  %s=%s\n", TB_ENV_CALIBRATE, cal[s->calibrate]);
    tb_say(t, "  %s=%s (auto mode learns from its calls' times)\n", TB_ENV_LEARN, s->learn ? "on" : "off");
    tb_say(t, "  %s=%s\n", TB_ENV_CACHE_DIR, tb_or(s->cache_dir, "($XDG_CACHE_HOME/tiledblas or ~/.cache/tiledblas)"));
}

int tb_info_text(char *buf, size_t len)
{
    const tb_settings *s = tb_settings_get();
    tb_text t = {buf, len, 0};
    char text[512];

    if (len)
        buf[0] = '\0';
    tb_info_parts(&t);
    tb_info_settings(&t, s);
    tb_calibration_describe(text, sizeof text);
    tb_say(&t, "cost model: %s\n", text);
    if (s->fault != TB_STAGE_NONE) {
        char at[16] = "";
        if (s->fault_slot >= 0)
            snprintf(at, sizeof at, "@%d", s->fault_slot);
        tb_say(&t, "  %s=%s%s (injected faults: for tests only)\n", TB_ENV_FAULT, tb_stage_name(s->fault), at);
    }
    return (int)t.n;
}
