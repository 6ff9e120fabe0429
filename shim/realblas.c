/* shim/realblas.c - finds the real BLAS behind us: the cblas_sgemm that the
 * program loaded (dlsym RTLD_NEXT), else the library named by
 * TILEDBLAS_CPU_BLAS. Resolved once, thread-safely; never links a BLAS and
 * never returns our own entry point. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float *, int,
                 const float *, int, float, float *, int);

static tb_cblas_sgemm_fn tb_real_sgemm;
static const char *tb_real_path = "none";
static pthread_once_t tb_real_once = PTHREAD_ONCE_INIT;

/* A symbol is ours when it lives in the same object as this function; that
 * happens when TILEDBLAS_CPU_BLAS names libtiledblas itself. */
static int tb_is_ours(void *sym)
{
    Dl_info self, other;
    if (!dladdr((void *)tb_is_ours, &self) || !dladdr(sym, &other))
        return 0;
    return self.dli_fbase == other.dli_fbase;
}

static void tb_note_origin(void *sym)
{
    Dl_info info;
    if (dladdr(sym, &info) && info.dli_fname)
        tb_real_path = info.dli_fname;
}

static void tb_resolve(void)
{
    void *sym = dlsym(RTLD_NEXT, "cblas_sgemm");
    if (!sym || tb_is_ours(sym)) {
        /* The program loaded no CBLAS in the global scope (a plugin that
         * dlopen()ed its BLAS privately, or a static one): open ours. If the
         * library is already loaded this returns the same copy. */
        const char *lib = tb_settings_get()->cpu_blas;
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        sym = h ? dlsym(h, "cblas_sgemm") : NULL;
        if (!sym || tb_is_ours(sym)) {
            tb_warn_once(TB_ONCE_NO_CPU_BLAS,
                         "no CPU BLAS found: the program loaded no cblas_sgemm and "
                         "%s='%s' could not be used (%s); CPU-routed calls do nothing",
                         TB_ENV_CPU_BLAS, lib, h ? "no cblas_sgemm in it" : dlerror());
            return;
        }
    }
    tb_note_origin(sym);
    tb_real_sgemm = (tb_cblas_sgemm_fn)sym;
}

tb_cblas_sgemm_fn tb_real_cblas_sgemm(void)
{
    pthread_once(&tb_real_once, tb_resolve);
    return tb_real_sgemm;
}

const char *tb_real_blas_path(void)
{
    tb_real_cblas_sgemm();
    return tb_real_path;
}

void tb_forward(const tb_call *c)
{
    tb_cblas_sgemm_fn f = tb_real_cblas_sgemm();
    if (f)
        f(c->layout, c->transa, c->transb, c->m, c->n, c->k, c->alpha,
          c->A, c->lda, c->B, c->ldb, c->beta, c->C, c->ldc);
}
