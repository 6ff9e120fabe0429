/* src/cpu/realblas.c - finds the real BLAS behind us: the entry points that the
 * program loaded (dlsym RTLD_NEXT), else those of the library named by
 * TILEDBLAS_CPU_BLAS; with neither, calls run on the built-in CPU GEMM
 * (cpugemm.c). Resolved once, thread-safely; never links a BLAS and
 * never returns one of our own entry points. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef void (*tb_cblas_sgemm_fn)(int, int, int, int, int, int, float,
                                  const float *, int, const float *, int,
                                  float, float *, int);
typedef void (*tb_cblas_dgemm_fn)(int, int, int, int, int, int, double,
                                  const double *, int, const double *, int,
                                  double, double *, int);
/* Fortran: everything by reference, then the hidden lengths of the two
 * character arguments (gfortran passes size_t). */
typedef void (*tb_fortran_sgemm_fn)(const char *, const char *, const int *, const int *,
                                    const int *, const float *, const float *, const int *,
                                    const float *, const int *, const float *, float *,
                                    const int *, size_t, size_t);
typedef void (*tb_fortran_dgemm_fn)(const char *, const char *, const int *, const int *,
                                    const int *, const double *, const double *, const int *,
                                    const double *, const int *, const double *, double *,
                                    const int *, size_t, size_t);

/* The symbols we forward to, one line each. */
#define TB_REAL_SYMBOLS(X) \
    X(cblas_sgemm, tb_cblas_sgemm_fn) \
    X(sgemm_, tb_fortran_sgemm_fn) \
    X(cblas_dgemm, tb_cblas_dgemm_fn) \
    X(dgemm_, tb_fortran_dgemm_fn)

#define TB_DECLARE(name, type) static type tb_real_##name;
TB_REAL_SYMBOLS(TB_DECLARE)
static const char *tb_real_path = "none";
static pthread_once_t tb_real_once = PTHREAD_ONCE_INIT;
/* What became of TILEDBLAS_CPU_BLAS when the program loaded no BLAS: why it
 * could not be opened (dlerror), "" when it was opened, or NULL when it was
 * never needed or none is configured. */
static const char *tb_fallback_error;
static char tb_fallback_error_text[512];
static int tb_fallback_is_ours;   /* it was opened and is libtiledblas itself */

/* A symbol is ours when it lives in the same object as this function; that
 * happens when TILEDBLAS_CPU_BLAS names libtiledblas itself. */
static int tb_is_ours(void *sym)
{
    Dl_info self, other;
    if (!dladdr((void *)tb_is_ours, &self) || !dladdr(sym, &other))
        return 0;
    return self.dli_fbase == other.dli_fbase;
}

/* A loaded object that defines `name` and is not us: how a program that
 * dlopen()ed its BLAS privately (numpy's extension modules do) is served by
 * the very BLAS it loaded. */
typedef struct tb_scan { const char *name; void *sym; } tb_scan;

static int tb_scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    tb_scan *sc = arg;
    if (!info->dlpi_name || !*info->dlpi_name)
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *sym = dlsym(h, sc->name);
    dlclose(h);   /* RTLD_NOLOAD took a reference; the object stays loaded */
    if (sym && !tb_is_ours(sym)) {
        sc->sym = sym;
        return 1;
    }
    return 0;
}

/* The program's own symbol if it loaded one, else the fallback library's. */
static void *tb_lookup(const char *name, void **fallback, const char **fallback_error)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (sym && !tb_is_ours(sym))
        return sym;
    tb_scan sc = {name, NULL};
    dl_iterate_phdr(tb_scan_one, &sc);
    if (sc.sym)
        return sc.sym;
    /* None loaded at all: open the configured one (none under secure
     * execution, where no library is loaded from the environment). */
    const char *configured = tb_settings_get()->cpu_blas;
    if (!*fallback && !*fallback_error && configured) {
        *fallback = dlopen(configured, RTLD_NOW | RTLD_LOCAL);
        if (*fallback) {
            *fallback_error = "";
        } else {
            const char *e = dlerror();
            snprintf(tb_fallback_error_text, sizeof tb_fallback_error_text, "%s", e ? e : "?");
            *fallback_error = tb_fallback_error_text;
        }
    }
    sym = *fallback ? dlsym(*fallback, name) : NULL;
    if (sym && tb_is_ours(sym)) {
        tb_fallback_is_ours = 1;
        sym = NULL;
    }
    return sym;
}

static void tb_resolve(void)
{
    void *fallback = NULL;
    const char *error = NULL;
#define TB_RESOLVE(name, type) tb_real_##name = (type)tb_lookup(#name, &fallback, &error);
    TB_REAL_SYMBOLS(TB_RESOLVE)
    tb_fallback_error = error;
    Dl_info info;
    void *any = tb_real_cblas_sgemm ? (void *)tb_real_cblas_sgemm
              : tb_real_sgemm_      ? (void *)tb_real_sgemm_
              : tb_real_cblas_dgemm ? (void *)tb_real_cblas_dgemm : (void *)tb_real_dgemm_;
    if (any && dladdr(any, &info) && info.dli_fname)
        tb_real_path = info.dli_fname;
}

/* Once, when a call first runs on the built-in GEMM: what was looked for
 * (the entry points of the call's precision). */
static void tb_no_blas(tb_prec prec)
{
    const char *looked = prec == TB_DOUBLE
        ? "no CPU BLAS found: the program loaded no cblas_dgemm or dgemm_"
        : "no CPU BLAS found: the program loaded no cblas_sgemm or sgemm_";
    static const char builtin[] = "calls run on the built-in CPU GEMM (single-threaded, slow)";
    const char *configured = tb_settings_get()->cpu_blas;
    if (!configured)
        tb_warn_once(TB_ONCE_NO_CPU_BLAS, "%s, and under secure execution no library is loaded "
                     "from %s; %s", looked, TB_ENV_CPU_BLAS, builtin);
    else if (tb_fallback_error && *tb_fallback_error)
        tb_warn_once(TB_ONCE_NO_CPU_BLAS, "%s, and %s='%s' could not be opened (%s); %s", looked,
                     TB_ENV_CPU_BLAS, configured, tb_fallback_error, builtin);
    else if (tb_fallback_is_ours)
        tb_warn_once(TB_ONCE_NO_CPU_BLAS, "%s, and %s='%s' is libtiledblas itself; %s", looked,
                     TB_ENV_CPU_BLAS, configured, builtin);
    else
        tb_warn_once(TB_ONCE_NO_CPU_BLAS, "%s, and %s='%s' has neither; %s", looked,
                     TB_ENV_CPU_BLAS, configured, builtin);
}

tb_cblas_fn tb_real_cblas(void)
{
    pthread_once(&tb_real_once, tb_resolve);
    return (tb_cblas_fn)tb_real_cblas_sgemm;
}

tb_dcblas_fn tb_real_cblas_d(void)
{
    pthread_once(&tb_real_once, tb_resolve);
    return (tb_dcblas_fn)tb_real_cblas_dgemm;
}

const char *tb_real_blas_path(void)
{
    pthread_once(&tb_real_once, tb_resolve);
    return tb_real_path;
}

/* Set while this thread is inside the real BLAS, so that a CBLAS whose
 * cblas_xgemm calls xgemm_ (the reference one does) is intercepted once. */
static __thread int tb_depth;

int tb_inside_real_blas(void)
{
    return tb_depth;
}

/* A row-major problem on the real cblas_xgemm, else the real xgemm_ (row-major
 * C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T), else the built-in
 * GEMM. */
static void tb_run_problem(const tb_problem *p)
{
    int m = p->m, n = p->n, k = p->k, lda = (int)p->lda, ldb = (int)p->ldb, ldc = (int)p->ldc;
    const int ta = p->transa ? TB_TRANS : TB_NO_TRANS, tb = p->transb ? TB_TRANS : TB_NO_TRANS;
    const char *fa = p->transa ? "T" : "N", *fb = p->transb ? "T" : "N";
    if (p->prec == TB_DOUBLE && tb_real_cblas_dgemm) {
        tb_real_cblas_dgemm(TB_ROW_MAJOR, ta, tb, m, n, k, p->alpha, p->A, lda, p->B, ldb,
                            p->beta, p->C, ldc);
    } else if (p->prec == TB_DOUBLE && tb_real_dgemm_) {
        tb_real_dgemm_(fb, fa, &n, &m, &k, &p->alpha, p->B, &ldb, p->A, &lda, &p->beta,
                       p->C, &ldc, 1, 1);
    } else if (p->prec == TB_SINGLE && tb_real_cblas_sgemm) {
        tb_real_cblas_sgemm(TB_ROW_MAJOR, ta, tb, m, n, k, (float)p->alpha, p->A, lda, p->B,
                            ldb, (float)p->beta, p->C, ldc);
    } else if (p->prec == TB_SINGLE && tb_real_sgemm_) {
        const float alpha = (float)p->alpha, beta = (float)p->beta;
        tb_real_sgemm_(fb, fa, &n, &m, &k, &alpha, p->B, &ldb, p->A, &lda, &beta, p->C, &ldc,
                       1, 1);
    } else {
        tb_no_blas(p->prec);
        tb_cpu_gemm(p);
    }
}

/* The caller's own entry point is missing: the call is checked as the BLAS
 * would check it (an illegal one is reported in the BLAS's words, C left
 * as it is) and runs on the other entry point or the built-in GEMM. */
static void tb_forward_elsewhere(const tb_call *c)
{
    tb_problem p;
    if (c->prec == TB_DOUBLE ? !tb_real_cblas_dgemm && !tb_real_dgemm_
                             : !tb_real_cblas_sgemm && !tb_real_sgemm_)
        tb_no_blas(c->prec);
    if (tb_cpu_gemm_check(c, &p) == 0)
        tb_run_problem(&p);
}

static void tb_forward_now(const tb_call *c)
{
    const int cblas = c->api == TB_API_CBLAS, dbl = c->prec == TB_DOUBLE;
    if (cblas && dbl && tb_real_cblas_dgemm) {
        tb_real_cblas_dgemm(c->layout, c->transa, c->transb, c->m, c->n, c->k, c->alpha,
                            c->A, c->lda, c->B, c->ldb, c->beta, c->C, c->ldc);
    } else if (!cblas && dbl && tb_real_dgemm_) {
        tb_real_dgemm_(c->fta, c->ftb, &c->m, &c->n, &c->k, &c->alpha, c->A, &c->lda,
                       c->B, &c->ldb, &c->beta, c->C, &c->ldc, 1, 1);
    } else if (cblas && !dbl && tb_real_cblas_sgemm) {
        tb_real_cblas_sgemm(c->layout, c->transa, c->transb, c->m, c->n, c->k, (float)c->alpha,
                            c->A, c->lda, c->B, c->ldb, (float)c->beta, c->C, c->ldc);
    } else if (!cblas && !dbl && tb_real_sgemm_) {
        /* The caller's own scalars, by reference, as they came: their float
         * values are exactly alpha and beta. */
        const float alpha = (float)c->alpha, beta = (float)c->beta;
        tb_real_sgemm_(c->fta, c->ftb, &c->m, &c->n, &c->k, &alpha, c->A, &c->lda,
                       c->B, &c->ldb, &beta, c->C, &c->ldc, 1, 1);
    } else {
        tb_forward_elsewhere(c);
    }
}

void tb_forward_problem(const tb_problem *p)
{
    pthread_once(&tb_real_once, tb_resolve);
    tb_depth++;
    tb_run_problem(p);
    tb_depth--;
}

void tb_forward(const tb_call *c)
{
    pthread_once(&tb_real_once, tb_resolve);
    tb_depth++;
    tb_forward_now(c);
    tb_depth--;
}

/* ---- Describing it ---- */

/* The OpenBLAS core that fits this CPU best, for OPENBLAS_CORETYPE. */
static const char *tb_best_openblas_core(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return __builtin_cpu_is("amd") ? "Zen" : "Haswell";
    if (__builtin_cpu_supports("avx"))
        return "Sandybridge";
    return NULL;
}

int tb_cpu_blas_describe(char *buf, size_t len, char *warn, size_t wlen)
{
    const char *path = tb_real_blas_path();
    warn[0] = '\0';
    if (!path || strcmp(path, "none") == 0) {
        snprintf(buf, len, "none: the built-in CPU GEMM, single-threaded (no cblas_sgemm, "
                 "sgemm_, cblas_dgemm or dgemm_ found; see %s)", TB_ENV_CPU_BLAS);
        return 0;
    }
    /* The library that gave us the BLAS is loaded: RTLD_NOLOAD only
     * takes a reference to it, to look up its own description functions. */
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) {
        snprintf(buf, len, "unknown BLAS at %s", path);
        return 0;
    }
    char *(*config)(void) = (char *(*)(void))dlsym(h, "openblas_get_config");
    char *(*corename)(void) = (char *(*)(void))dlsym(h, "openblas_get_corename");
    int (*threads)(void) = (int (*)(void))dlsym(h, "openblas_get_num_threads");
    const char *(*blis)(void) = (const char *(*)(void))dlsym(h, "bli_info_get_version_str");
    void (*mkl)(char *, int) = (void (*)(char *, int))dlsym(h, "mkl_get_version_string");
    int known = 1;
    if (config) {
        char name[64] = "OpenBLAS", version[32] = "?";
        const char *cfg = config(), *core = corename ? corename() : "?";
        sscanf(cfg, "%63s %31s", name, version);
        snprintf(buf, len, "%s %s, core %s, %d threads%s (%s)", name, version, core,
                 threads ? threads() : 0, strstr(cfg, "DYNAMIC_ARCH") ? ", DYNAMIC_ARCH" : "", path);
        const char *best = tb_best_openblas_core();
        if (core && strcasecmp(core, "Prescott") == 0 && best) {
            if (strstr(cfg, "DYNAMIC_ARCH"))
                snprintf(warn, wlen, "OpenBLAS runs its generic Prescott kernel: it does not "
                         "recognise this CPU (about 4x slower); OPENBLAS_CORETYPE=%s fixes it", best);
            else
                snprintf(warn, wlen, "OpenBLAS was built for the generic Prescott kernel "
                         "(no DYNAMIC_ARCH); a build for this CPU (%s) is about 4x faster", best);
        }
    } else if (blis) {
        snprintf(buf, len, "BLIS %s (%s)", blis(), path);
    } else if (mkl) {
        char v[198] = "";
        mkl(v, (int)sizeof v);
        snprintf(buf, len, "%s (%s)", v, path);
    } else if (strstr(path, "/blas/libblas") || strstr(path, "libblas.so")) {
        snprintf(buf, len, "reference BLAS (%s)", path);
    } else {
        snprintf(buf, len, "unknown BLAS (%s)", path);
        known = 0;
    }
    dlclose(h);
    return known;
}
