/* src/account/stats.c - TILEDBLAS_STATS and the verify verdict: counters per
 * routine, precision, route and reason (flops as routines.c counts them)
 * kept with atomics, and the report written once at exit by a destructor.
 * The exit path takes no lock and never touches CUDA, so a process may
 * exit from any thread, mid-call, or in a forked child. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_files.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One row of the table: every call of one routine and precision with the
 * same route and reason. */
typedef struct tb_row {
    tb_routine routine;
    tb_prec prec;
    int route;
    tb_reason why;
    tb_stage failed;
    char reason[48];          /* their text, as tb_reason_text writes it */
    uint64_t calls, flops, ns, bytes_h2d, bytes_d2h, ns_h2d, ns_kernel, ns_d2h;
} tb_row;

enum { TB_ROWS = 64 };
static tb_row tb_rows[TB_ROWS];
static int tb_nrows;                     /* rows filled; read with acquire */
static pthread_mutex_t tb_rows_lock = PTHREAD_MUTEX_INITIALIZER;  /* adds rows */

/* The verify verdict. Doubles are kept as their bits so that a CAS can
 * raise them without a lock. */
static struct {
    uint64_t compared, outside, sampled_out, unavailable;
    uint64_t gpu_ns, cpu_ns;
    uint64_t max_abs, avg_abs, rel_fro;  /* bits of doubles >= 0 */
} tb_v;
static char tb_v_why[48];                /* why the last uncompared call was not */

static double tb_first_call = -1.0;      /* t_start of the first recorded call */
static char tb_gpu_text[256];            /* the device, captured while it runs */
static int tb_gpu_captured;
static pthread_once_t tb_stats_once = PTHREAD_ONCE_INIT;

static void tb_add(uint64_t *p, uint64_t x) { __atomic_fetch_add(p, x, __ATOMIC_RELAXED); }
static uint64_t tb_ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static uint64_t tb_ns(double s) { return s > 0.0 ? (uint64_t)(s * 1e9 + 0.5) : 0; }

static double tb_bits_to_double(uint64_t b) { double d; memcpy(&d, &b, sizeof d); return d; }

/* Raises *p to x (both non-negative; NaN counts as +infinity). */
static void tb_raise(uint64_t *p, double x)
{
    if (isnan(x))
        x = INFINITY;
    uint64_t bits, old = __atomic_load_n(p, __ATOMIC_RELAXED);
    memcpy(&bits, &x, sizeof bits);
    while (tb_bits_to_double(old) < x &&
           !__atomic_compare_exchange_n(p, &old, bits, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* The child of fork() starts with empty counters and prints only what it
 * did itself. The parent's lock may be held by a thread that is gone. */
static void tb_stats_forked_child(void)
{
    pthread_mutex_init(&tb_rows_lock, NULL);
    memset(tb_rows, 0, sizeof tb_rows);
    memset(&tb_v, 0, sizeof tb_v);
    tb_nrows = 0;
    tb_first_call = -1.0;
    tb_gpu_captured = 0;      /* the child may not use the parent's GPU */
}

static void tb_stats_setup(void)
{
    pthread_atfork(NULL, NULL, tb_stats_forked_child);
}

static int tb_row_is(const tb_row *w, const tb_record *r)
{
    return w->routine == r->call->entry->routine && w->prec == r->call->prec &&
           w->route == (int)r->route && w->why == r->reason &&
           (r->reason != TB_WHY_GPU_FAILED || w->failed == r->failed);
}

static tb_row *tb_row_for(const tb_record *r)
{
    int n = __atomic_load_n(&tb_nrows, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (tb_row_is(&tb_rows[i], r))
            return &tb_rows[i];
    pthread_mutex_lock(&tb_rows_lock);
    n = tb_nrows;
    tb_row *row = NULL;
    for (int i = 0; i < n && !row; i++)
        if (tb_row_is(&tb_rows[i], r))
            row = &tb_rows[i];
    if (!row && n < TB_ROWS) {
        row = &tb_rows[n];
        row->routine = r->call->entry->routine;
        row->prec = r->call->prec;
        row->route = r->route;
        row->why = r->reason;
        row->failed = r->failed;
        if (n == TB_ROWS - 1)
            snprintf(row->reason, sizeof row->reason, "other");
        else
            tb_reason_text(r->reason, r->failed, row->reason, sizeof row->reason);
        __atomic_store_n(&tb_nrows, n + 1, __ATOMIC_RELEASE);
    }
    if (!row)
        row = &tb_rows[TB_ROWS - 1];     /* the "other" row */
    pthread_mutex_unlock(&tb_rows_lock);
    return row;
}

void tb_stats_record(const tb_record *r)
{
    pthread_once(&tb_stats_once, tb_stats_setup);
    const tb_call *c = r->call;
    double expected = -1.0;
    __atomic_compare_exchange(&tb_first_call, &expected, &r->t_start, 0,
                              __ATOMIC_RELAXED, __ATOMIC_RELAXED);

    tb_row *row = tb_row_for(r);
    tb_add(&row->calls, 1);
    if (r->reason != TB_WHY_ILLEGAL)
        tb_add(&row->flops, tb_call_flops(c));
    tb_add(&row->ns, tb_ns(r->seconds));
    if (r->gpu) {
        tb_add(&row->bytes_h2d, r->gpu->bytes_h2d);
        tb_add(&row->bytes_d2h, r->gpu->bytes_d2h);
        tb_add(&row->ns_h2d, tb_ns(r->gpu->h2d_s));
        tb_add(&row->ns_kernel, tb_ns(r->gpu->kernel_s));
        tb_add(&row->ns_d2h, tb_ns(r->gpu->d2h_s));
    }
    /* The device is described while CUDA certainly runs, never at exit. */
    if (!__atomic_load_n(&tb_gpu_captured, __ATOMIC_ACQUIRE) && !tb_reason_ineligible(r->reason)) {
        char text[sizeof tb_gpu_text];
        tb_gpu_describe_if_started(text, sizeof text);
        if (strncmp(text, "not started", 11) != 0 &&
            !__atomic_exchange_n(&tb_gpu_captured, 2, __ATOMIC_ACQ_REL)) {
            memcpy(tb_gpu_text, text, sizeof text);
            __atomic_store_n(&tb_gpu_captured, 1, __ATOMIC_RELEASE);
        }
    }

    if (tb_settings_get()->mode != TB_MODE_VERIFY)
        return;
    if (r->verify) {
        const tb_verify_result *v = r->verify;
        tb_add(&tb_v.compared, 1);
        tb_add(&tb_v.outside, !v->within_bound);
        tb_add(&tb_v.gpu_ns, tb_ns(v->gpu_s));
        tb_add(&tb_v.cpu_ns, tb_ns(v->cpu_s));
        tb_raise(&tb_v.max_abs, v->max_abs);
        tb_raise(&tb_v.avg_abs, v->avg_abs);
        tb_raise(&tb_v.rel_fro, v->rel_fro);
    } else if (r->reason == TB_WHY_VERIFY_SKIPPED) {
        tb_add(&tb_v.sampled_out, 1);
    } else if (!tb_reason_ineligible(r->reason)) {
        tb_add(&tb_v.unavailable, 1);
        pthread_mutex_lock(&tb_rows_lock);
        tb_reason_text(r->reason, r->failed, tb_v_why, sizeof tb_v_why);
        pthread_mutex_unlock(&tb_rows_lock);
    }
}

/* ---- The report ---------------------------------------------------------- */

typedef struct tb_out {
    char buf[16384];
    size_t n;
} tb_out;

static void tb_put(tb_out *o, const char *fmt, ...) TB_PRINTF(2, 3);
static void tb_put(tb_out *o, const char *fmt, ...)
{
    if (o->n >= sizeof o->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf + o->n, sizeof o->buf - o->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->n += (size_t)k < sizeof o->buf - o->n ? (size_t)k : sizeof o->buf - o->n - 1;
}

/* Bytes as "0", "512 B", "3.2 MB", "1.07 GB". */
static const char *tb_bytes(char *s, size_t len, double b)
{
    if (b <= 0.0) snprintf(s, len, "0");
    else if (b < 1e3) snprintf(s, len, "%.0f B", b);
    else if (b < 1e6) snprintf(s, len, "%.1f kB", b / 1e3);
    else if (b < 1e9) snprintf(s, len, "%.1f MB", b / 1e6);
    else snprintf(s, len, "%.2f GB", b / 1e9);
    return s;
}

static int tb_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static double tb_vd(uint64_t *p) { return tb_bits_to_double(tb_ld(p)); }

static void tb_report_text(tb_out *o, int with_table, int with_verdict, int nrows,
                           uint64_t calls, double elapsed)
{
    const char *P = "tiledblas: ";
    char b1[32], b2[32];
    if (with_table) {
        tb_put(o, "%sstats for %s (pid %d): %llu calls in %.3f s from the first to exit\n",
               P, program_invocation_short_name, (int)getpid(), (unsigned long long)calls, elapsed);
        tb_put(o, "%s%-7s %-8s %-5s %-22s %9s %11s %10s %10s %10s %10s\n", P, "routine", "prec",
               "route", "reason",
               "calls", "GFLOP", "seconds", "GFLOP/s", "to GPU", "from GPU");
        uint64_t tk = 0, th = 0, td = 0;
        for (int i = 0; i < nrows; i++) {
            tb_row *w = &tb_rows[i];
            double gf = tb_ld(&w->flops) * 1e-9, s = tb_ld(&w->ns) * 1e-9;
            char rate[24];
            if (s > 0.0) snprintf(rate, sizeof rate, "%.2f", gf / s);
            else snprintf(rate, sizeof rate, "-");
            tb_put(o, "%s%-7s %-8s %-5s %-22s %9llu %11.3f %10.4f %10s %10s %10s\n", P,
                   tb_routine_name(w->routine), tb_prec_name(w->prec),
                   w->route == TB_ROUTE_GPU ? "gpu" : "cpu", w->reason,
                   (unsigned long long)tb_ld(&w->calls), gf, s, rate,
                   tb_bytes(b1, sizeof b1, (double)tb_ld(&w->bytes_h2d)),
                   tb_bytes(b2, sizeof b2, (double)tb_ld(&w->bytes_d2h)));
            th += tb_ld(&w->ns_h2d); tk += tb_ld(&w->ns_kernel); td += tb_ld(&w->ns_d2h);
        }
        if (th + tk + td)
            tb_put(o, "%sGPU time: copies in %.4f s, kernels %.4f s, copies out %.4f s\n",
                   P, th * 1e-9, tk * 1e-9, td * 1e-9);
        char blas[512], warn[512];
        tb_cpu_blas_describe(blas, sizeof blas, warn, sizeof warn);
        tb_put(o, "%sCPU BLAS: %s\n", P, blas);
        if (warn[0])
            tb_put(o, "%swarning: %s\n", P, warn);
        tb_put(o, "%sGPU: %s\n", P, __atomic_load_n(&tb_gpu_captured, __ATOMIC_ACQUIRE) == 1
               ? tb_gpu_text : "not started (no call went past the CPU-only checks)");
    }
    if (!with_verdict)
        return;
    uint64_t n = tb_ld(&tb_v.compared), skipped = tb_ld(&tb_v.sampled_out);
    uint64_t unav = tb_ld(&tb_v.unavailable), outside = tb_ld(&tb_v.outside);
    if (n == 0) {
        tb_put(o, "%sverify: no call was compared", P);
        if (unav)
            tb_put(o, " (%llu eligible calls could not use the GPU: %s); they ran on the CPU BLAS\n",
                   (unsigned long long)unav, tb_v_why);
        else if (skipped)
            tb_put(o, " (%llu eligible calls were skipped by %s)\n",
                   (unsigned long long)skipped, TB_ENV_VERIFY_EVERY);
        else
            tb_put(o, " (no call was eligible for the GPU)\n");
        return;
    }
    tb_put(o, "%sverify: %llu calls compared (%llu skipped by %s=%ld, %llu with the GPU "
           "unavailable)\n", P, (unsigned long long)n, (unsigned long long)skipped,
           TB_ENV_VERIFY_EVERY, tb_settings_get()->verify_every, (unsigned long long)unav);
    tb_put(o, "%sverify: worst max abs error %.3g, worst avg abs error %.3g, worst relative "
           "Frobenius error %.3g\n", P, tb_vd(&tb_v.max_abs), tb_vd(&tb_v.avg_abs),
           tb_vd(&tb_v.rel_fro));
    if (outside)
        tb_put(o, "%sverify: FAILED: %llu of %llu calls outside their precision's error bound\n",
               P, (unsigned long long)outside, (unsigned long long)n);
    else
        tb_put(o, "%sverify: all %llu calls within their precision's error bound\n", P,
               (unsigned long long)n);
    double g = tb_ld(&tb_v.gpu_ns) * 1e-9, c = tb_ld(&tb_v.cpu_ns) * 1e-9;
    tb_put(o, "%sverify: GPU %.4f s (copies included), CPU BLAS %.4f s: GPU speedup %.2fx\n",
           P, g, c, g > 0.0 ? c / g : 0.0);
}

/* One JSON object per line: what `tiledblas ab` reads back. */
static void tb_report_json(tb_out *o, int nrows, uint64_t calls, double elapsed)
{
    char name[96], text[640];
    int pid = (int)getpid();
    tb_json_string(name, sizeof name, program_invocation_short_name);
    char blas[512], warn[512];
    tb_cpu_blas_describe(blas, sizeof blas, warn, sizeof warn);
    tb_put(o, "{\"stats\":\"process\",\"pid\":%d,\"name\":%s,\"calls\":%llu,\"elapsed_s\":%.6f",
           pid, name, (unsigned long long)calls, elapsed);
    tb_json_string(text, sizeof text, blas);
    tb_put(o, ",\"cpu_blas\":%s", text);
    tb_json_string(text, sizeof text, warn);
    tb_put(o, ",\"cpu_blas_warning\":%s", text);
    tb_json_string(text, sizeof text, __atomic_load_n(&tb_gpu_captured, __ATOMIC_ACQUIRE) == 1
                   ? tb_gpu_text : "not started");
    tb_put(o, ",\"gpu\":%s}\n", text);
    for (int i = 0; i < nrows; i++) {
        tb_row *w = &tb_rows[i];
        tb_json_string(text, sizeof text, w->reason);
        tb_put(o, "{\"stats\":\"row\",\"pid\":%d,\"routine\":\"%s\",\"prec\":\"%s\","
               "\"route\":\"%s\",\"reason\":%s,\"calls\":%llu,\"gflop\":%.6f,\"seconds\":%.9f,"
               "\"bytes_h2d\":%llu,\"bytes_d2h\":%llu,\"h2d_s\":%.9f,\"kernel_s\":%.9f,\"d2h_s\":%.9f}\n", pid,
               tb_routine_name(w->routine), tb_prec_name(w->prec),
               w->route == TB_ROUTE_GPU ? "gpu" : "cpu", text,
               (unsigned long long)tb_ld(&w->calls), tb_ld(&w->flops) * 1e-9,
               tb_ld(&w->ns) * 1e-9, (unsigned long long)tb_ld(&w->bytes_h2d),
               (unsigned long long)tb_ld(&w->bytes_d2h), tb_ld(&w->ns_h2d) * 1e-9,
               tb_ld(&w->ns_kernel) * 1e-9, tb_ld(&w->ns_d2h) * 1e-9);
    }
    if (tb_settings_get()->mode == TB_MODE_VERIFY) {
        double e[3] = {tb_vd(&tb_v.max_abs), tb_vd(&tb_v.avg_abs), tb_vd(&tb_v.rel_fro)};
        char es[3][32];
        for (int i = 0; i < 3; i++)   /* JSON has no infinity: a huge number stands for it */
            snprintf(es[i], sizeof es[i], "%.6g", isfinite(e[i]) ? e[i] : 1e300);
        tb_json_string(text, sizeof text, tb_v_why);
        tb_put(o, "{\"stats\":\"verify\",\"pid\":%d,\"compared\":%llu,\"outside\":%llu,"
               "\"skipped\":%llu,\"unavailable\":%llu,\"unavailable_reason\":%s,"
               "\"max_abs\":%s,\"avg_abs\":%s,\"rel_fro\":%s,\"gpu_s\":%.9f,\"cpu_s\":%.9f}\n",
               pid, (unsigned long long)tb_ld(&tb_v.compared),
               (unsigned long long)tb_ld(&tb_v.outside),
               (unsigned long long)tb_ld(&tb_v.sampled_out),
               (unsigned long long)tb_ld(&tb_v.unavailable), text, es[0], es[1], es[2],
               tb_ld(&tb_v.gpu_ns) * 1e-9, tb_ld(&tb_v.cpu_ns) * 1e-9);
    }
}

__attribute__((destructor)) static void tb_stats_at_exit(void)
{
    const tb_settings *s = tb_settings_get();
    int verdict = s->mode == TB_MODE_VERIFY;
    if (!s->stats && !verdict)
        return;
    int nrows = __atomic_load_n(&tb_nrows, __ATOMIC_ACQUIRE);
    uint64_t calls = 0;
    for (int i = 0; i < nrows; i++)
        calls += tb_ld(&tb_rows[i].calls);
    if (calls == 0)
        return;       /* a process (or forked child) that made no calls says nothing */
    double first;
    __atomic_load(&tb_first_call, &first, __ATOMIC_RELAXED);
    double elapsed = first >= 0.0 ? tb_now() - first : 0.0;

    static tb_out o;  /* static: 16 KiB is too much for the stack of an exiting thread */
    o.n = 0;
    int fd = STDERR_FILENO, json = 0;
    if (s->stats && strcmp(s->stats, "1") != 0 && strcmp(s->stats, "stderr") != 0) {
        /* Appended: every process of a pipeline adds its own report. */
        const char *why;
        int f = tb_open_write(s->stats, TB_WRITE_APPEND, &why);
        if (f < 0) {
            tb_warn_once(TB_ONCE_STATS, "%s='%s' cannot be opened (%s); the report goes to stderr",
                         TB_ENV_STATS, s->stats, why);
        } else {
            fd = f;
            json = tb_ends_with(s->stats, ".json") || tb_ends_with(s->stats, ".jsonl");
        }
    }
    if (json)
        tb_report_json(&o, nrows, calls, elapsed);
    else
        tb_report_text(&o, s->stats != NULL, verdict, nrows, calls, elapsed);
    int wrote = tb_file_write_all(fd, o.buf, o.n) == 0;
    int err = errno;
    if (fd != STDERR_FILENO && close(fd) != 0 && wrote) {
        wrote = 0;
        err = errno;
    }
    if (!wrote && fd != STDERR_FILENO)
        tb_warn_once(TB_ONCE_STATS_WRITE, "writing the report to %s='%s' failed (%s); it is lost",
                     TB_ENV_STATS, s->stats, strerror(err));
}
