/* src/account/trace.c - TILEDBLAS_TRACE: one JSON object per intercepted
 * call (JSON Lines: the routine, its options under their own names, m, n,
 * k as tb_call has them, complex scalars' imaginary parts; a leading
 * dimension or beta the routine does not take is 0), written with a single
 * write() on an O_APPEND file so that lines from many threads and
 * processes never mix and nothing is lost at exit, until the file reaches
 * TILEDBLAS_TRACE_MAX bytes. The field names are read by `tiledblas
 * animate`: do not rename them. */
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

static int tb_trace_fd = -1;             /* -1: not open (or given up) */
static pthread_once_t tb_trace_once = PTHREAD_ONCE_INIT;
static double tb_trace_t0 = -1.0;        /* t = 0: the first traced call */
static unsigned long tb_trace_seq;       /* calls traced by this process */
static int tb_trace_threads;             /* small thread numbers handed out */
static double tb_trace_size;             /* the file's size as last seen    */
static int tb_trace_full;                /* the cap was reached: 1          */
static __thread int tb_trace_thread;     /* this thread's number, 0: none yet */

void tb_json_string(char *dst, size_t len, const char *s)
{
    size_t n = 0;
    if (len < 3) {
        if (len) dst[0] = '\0';
        return;
    }
    dst[n++] = '"';
    for (; s && *s && n + 8 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            dst[n++] = '\\';
            dst[n++] = (char)ch;
        } else if (ch < 0x20) {
            n += (size_t)snprintf(dst + n, len - n, "\\u%04x", ch);
        } else {
            dst[n++] = (char)ch;
        }
    }
    dst[n++] = '"';
    dst[n] = '\0';
}

/* The path with "%p" replaced by the process id (one file per process);
 * -1 when the result would not fit (a cut path would name another file). */
static int tb_trace_path(char *out, size_t len, const char *path)
{
    size_t n = 0;
    for (const char *p = path; *p; p++) {
        if (n + 1 >= len)
            return -1;
        if (p[0] == '%' && p[1] == 'p') {
            int k = snprintf(out + n, len - n, "%d", (int)getpid());
            if (k < 0 || (size_t)k >= len - n)
                return -1;
            n += (size_t)k;
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    return 0;
}

static void tb_trace_open(void)
{
    const char *path = tb_settings_get()->trace;
    char real[4096];
    if (tb_trace_path(real, sizeof real, path) != 0) {
        tb_warn_once(TB_ONCE_TRACE, "%s='%.200s...' is 4096 bytes or longer once %%p is "
                     "replaced; calls are not traced", TB_ENV_TRACE, path);
        return;
    }
    /* Appended, never truncated: the processes of a pipeline share the file
     * (`tiledblas run --trace` empties it once before it starts the command). */
    const char *why;
    int fd = tb_open_write(real, TB_WRITE_APPEND, &why);
    if (fd < 0) {
        tb_warn_once(TB_ONCE_TRACE, "%s='%s' cannot be opened (%s); calls are not traced",
                     TB_ENV_TRACE, real, why);
        return;
    }
    off_t end = lseek(fd, 0, SEEK_END);
    tb_trace_size = end > 0 ? (double)end : 0.0;
    __atomic_store_n(&tb_trace_fd, fd, __ATOMIC_RELEASE);
}

/* Room for a line of n bytes under TILEDBLAS_TRACE_MAX. The size is the
 * file's end as this process last saw it (other processes may append too):
 * threads racing past the check add at most a line each. The first caller
 * to find no room writes the one line that says the trace stops, and warns. */
static int tb_trace_room(int fd, size_t n)
{
    const double max = tb_settings_get()->trace_max;
    double size;
    __atomic_load(&tb_trace_size, &size, __ATOMIC_RELAXED);
    if (size + (double)n <= max)
        return 1;
    if (__atomic_exchange_n(&tb_trace_full, 1, __ATOMIC_ACQ_REL))
        return 0;
    char line[256];
    int k = snprintf(line, sizeof line, "{\"trace\":\"stopped\",\"pid\":%d,\"max_bytes\":%.0f,"
                     "\"why\":\"the file reached %s\"}\n", (int)getpid(), max, TB_ENV_TRACE_MAX);
    if (k > 0 && (size_t)k < sizeof line)
        tb_file_write_all(fd, line, (size_t)k);
    tb_warn_once(TB_ONCE_TRACE_MAX, "%s reached %s=%.0f bytes: later calls are not traced",
                 TB_ENV_TRACE, TB_ENV_TRACE_MAX, max);
    return 0;
}

/* Writes one whole line, if there is room for it, and notes the file's new
 * end. */
static void tb_trace_write(int fd, const char *line, size_t n)
{
    if (!tb_trace_room(fd, n))
        return;
    ssize_t w;
    do
        w = write(fd, line, n);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)n)
        tb_warn_once(TB_ONCE_TRACE, "writing %s failed (%s); the trace is incomplete",
                     TB_ENV_TRACE, w < 0 ? strerror(errno) : "short write");
    /* With O_APPEND the offset after a write is the file's end then, every
     * process's lines included. */
    off_t end = lseek(fd, 0, SEEK_CUR);
    double seen = end > 0 ? (double)end : 0.0, old;
    __atomic_load(&tb_trace_size, &old, __ATOMIC_RELAXED);
    while (seen > old && !__atomic_compare_exchange(&tb_trace_size, &old, &seen, 1,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* A double as JSON: JSON has no NaN or infinity, so those become null. */
static const char *tb_num(char *s, size_t len, double x)
{
    if (isfinite(x))
        snprintf(s, len, "%.9g", x);
    else
        snprintf(s, len, "null");
    return s;
}

typedef struct tb_line {
    char buf[2048];
    size_t n;
} tb_line;

static void tb_add(tb_line *l, const char *fmt, ...) TB_PRINTF(2, 3);
static void tb_add(tb_line *l, const char *fmt, ...)
{
    if (l->n >= sizeof l->buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(l->buf + l->n, sizeof l->buf - l->n, fmt, ap);
    va_end(ap);
    l->n += k > 0 ? (size_t)k : 0;
}

static const char *tb_trans_name(int t)
{
    return t == TB_NO_TRANS ? "N" : t == TB_TRANS ? "T" : t == TB_CONJ_TRANS ? "C" : "?";
}

/* The routine's options, each under its own name, in the order it takes
 * them: gemm's transa and transb, symm's side and uplo, syrk's uplo and
 * trans, trmm's side, uplo, transa and diag. */
static void tb_add_options(tb_line *l, const tb_call *c)
{
    const tb_routine r = c->entry->routine;
    for (int j = 0; j < tb_routine_arity(r); j++)
        switch (tb_routine_arg(r, j)) {
        case 's':
            tb_add(l, ",\"side\":\"%s\"",
                   c->side == TB_LEFT ? "L" : c->side == TB_RIGHT ? "R" : "?");
            break;
        case 'u':
            tb_add(l, ",\"uplo\":\"%s\"",
                   c->uplo == TB_UPPER ? "U" : c->uplo == TB_LOWER ? "L" : "?");
            break;
        case 't':
            /* syrk's trans (its first option is uplo), else transa */
            tb_add(l, ",\"%s\":\"%s\"", tb_routine_arg(r, 0) == 'u' ? "trans" : "transa",
                   tb_trans_name(c->transa));
            break;
        case 'T':
            tb_add(l, ",\"transb\":\"%s\"", tb_trans_name(c->transb));
            break;
        case 'd':
            tb_add(l, ",\"diag\":\"%s\"",
                   c->diag == TB_UNIT ? "U" : c->diag == TB_NON_UNIT ? "N" : "?");
            break;
        }
}

void tb_trace_record(const tb_record *r)
{
    pthread_once(&tb_trace_once, tb_trace_open);
    int fd = __atomic_load_n(&tb_trace_fd, __ATOMIC_ACQUIRE);
    if (fd < 0)
        return;
    const tb_call *c = r->call;
    /* The first call sets t0; the others get it back from the failed
     * exchange (no plain read of a value another thread may be writing). */
    double t0 = -1.0;
    if (__atomic_compare_exchange(&tb_trace_t0, &t0, &r->t_start, 0, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED))
        t0 = r->t_start;
    if (!tb_trace_thread)
        tb_trace_thread = __atomic_add_fetch(&tb_trace_threads, 1, __ATOMIC_RELAXED);
    unsigned long seq = __atomic_add_fetch(&tb_trace_seq, 1, __ATOMIC_RELAXED);
    double t = r->t_start - t0;

    tb_line l;
    char a[32], b[32], reason[128];
    l.n = 0;
    char why[48];
    tb_json_string(reason, sizeof reason, tb_reason_text(r->reason, r->failed, why, sizeof why));
    tb_add(&l, "{\"t\":%.9f,\"pid\":%d,\"thread\":%d,\"seq\":%lu,\"routine\":\"%s\","
           "\"api\":\"%s\",\"prec\":\"%s\",\"layout\":\"%s\"", t > 0.0 ? t : 0.0, (int)getpid(),
           tb_trace_thread, seq,
           tb_routine_name(c->entry->routine), c->api == TB_API_FORTRAN ? "fortran" : "cblas",
           tb_prec_name(c->prec),
           c->layout == TB_ROW_MAJOR ? "RowMajor" : c->layout == TB_COL_MAJOR ? "ColMajor" : "?");
    tb_add_options(&l, c);
    tb_add(&l, ",\"m\":%d,\"n\":%d,\"k\":%d,\"lda\":%d,\"ldb\":%d,\"ldc\":%d,\"alpha\":%s,"
           "\"beta\":%s", c->m, c->n, c->k, c->lda, c->ldb, c->ldc, tb_num(a, sizeof a, c->alpha),
           tb_num(b, sizeof b, c->beta));
    if (tb_prec_complex(c->prec))
        tb_add(&l, ",\"alpha_im\":%s,\"beta_im\":%s", tb_num(a, sizeof a, c->alpha_im),
               tb_num(b, sizeof b, c->beta_im));
    tb_add(&l, ",\"route\":\"%s\",\"reason\":%s,\"seconds\":%.9f",
           r->route == TB_ROUTE_GPU ? "gpu" : "cpu", reason, r->seconds);
    /* The first line written after auto mode's background start finished
     * carries how long the start took (start.c). */
    static int start_said;
    const double start_s = tb_gpu_start_seconds();
    if (start_s > 0.0 && !__atomic_exchange_n(&start_said, 1, __ATOMIC_RELAXED))
        tb_add(&l, ",\"gpu_start_s\":%.6f", start_s);
    /* The cost model's prediction for each route, when it was consulted. */
    if (r->pred_cpu_s > 0.0 || r->pred_gpu_s > 0.0)
        tb_add(&l, ",\"pred_cpu_s\":%.9f,\"pred_gpu_s\":%.9f", r->pred_cpu_s, r->pred_gpu_s);
    if (r->gpu) {
        const tb_gpu_times *g = r->gpu;
        char kernel[96];
        tb_json_string(kernel, sizeof kernel, g->kernel ? g->kernel : "?");
        tb_add(&l, ",\"kernel\":%s,\"h2d_s\":%.9f,\"kernel_s\":%.9f,\"d2h_s\":%.9f,"
               "\"bytes_h2d\":%llu,\"bytes_d2h\":%llu,\"devices\":%d", kernel, g->h2d_s, g->kernel_s,
               g->d2h_s, (unsigned long long)g->bytes_h2d, (unsigned long long)g->bytes_d2h,
               g->devices);
    }
    if (r->verify) {
        const tb_verify_result *v = r->verify;
        char x[32], y[32], z[32];
        tb_add(&l, ",\"verify_max_abs\":%s,\"verify_avg_abs\":%s,\"verify_rel_fro\":%s,"
               "\"verify_ok\":%s,\"verify_gpu_s\":%.9f,\"verify_cpu_s\":%.9f",
               tb_num(x, sizeof x, v->max_abs), tb_num(y, sizeof y, v->avg_abs),
               tb_num(z, sizeof z, v->rel_fro), v->within_bound ? "true" : "false",
               v->gpu_s, v->cpu_s);
    }
    tb_add(&l, "}\n");
    if (l.n >= sizeof l.buf)     /* cannot happen with these fields; never write half a line */
        return;
    tb_trace_write(fd, l.buf, l.n);
}
