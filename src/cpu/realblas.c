/* src/cpu/realblas.c - finds the real BLAS behind us: for each name of the
 * table (src/core/blas.def), the symbol of that name that the program
 * loaded (dlsym RTLD_NEXT, then every loaded object), else the one of the
 * library named by TILEDBLAS_CPU_BLAS; with neither, calls run on the
 * built-in CPU GEMM (cpugemm.c). Finds out the integer width of the plain
 * names by asking the BLAS behind them, and forwards calls untouched.
 * Resolved once, thread-safely; never links a BLAS and never returns a
 * symbol that may lead back to us: one of our own entry points, or one of
 * a BLAS trampoline (libblastrampoline). */
#define _GNU_SOURCE
#include "tb_internal.h"
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The real symbol of every entry point's name (NULL: not loaded), and the
 * width of the integers each takes (tb_real_width). */
static void *tb_real[TB_ENTRY_COUNT];
static int tb_width[TB_ENTRY_COUNT];
static void *tb_real_fwd[TB_FWD_COUNT];   /* the names only passed on */
static const char *tb_real_path = "none";
static pthread_once_t tb_real_once = PTHREAD_ONCE_INIT;
/* What became of TILEDBLAS_CPU_BLAS when the program loaded no BLAS: why it
 * could not be opened (dlerror), "" when it was opened, or NULL when it was
 * never needed or none is configured. */
static const char *tb_fallback_error;
static char tb_fallback_error_text[512];
static int tb_fallback_is_ours;   /* it was opened and is libtiledblas itself */

/* The symbol every BLAS trampoline defines: an object that defines it
 * computes nothing, and each of its BLAS names jumps to wherever it was
 * last pointed. libblastrampoline (through which Julia calls BLAS) points
 * its dgemm_64_ at our dgemm_64_ once BLAS.lbt_forward names us; taking
 * its dgemm_64_ for the real one would call us back without end. What it
 * forwarded to before is loaded in the process, and found here directly. */
#define TB_TRAMPOLINE_MARK "lbt_forward"

/* The span of our own object's segments, and the other loaded objects
 * (but the main program), each opened once for the lookups (RTLD_NOLOAD
 * takes a reference, which tb_resolve drops when it is done) with the
 * span of its segments and whether it is a trampoline (it defines
 * TB_TRAMPOLINE_MARK itself, not merely through a library it depends on,
 * as libraries built against libblastrampoline do). One pass over the
 * loaded objects serves every name of the table; tb_resolve runs once. */
static uintptr_t tb_self_lo, tb_self_hi;
typedef struct tb_object { void *h; uintptr_t lo, hi; int trampoline; } tb_object;
typedef struct tb_objects { tb_object *o; int n, cap; } tb_objects;
static tb_objects tb_scanned;

static int tb_scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    tb_objects *o = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            const uintptr_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            lo = a < lo ? a : lo;
            hi = a + info->dlpi_phdr[i].p_memsz > hi ? a + info->dlpi_phdr[i].p_memsz : hi;
        }
    const uintptr_t self = (uintptr_t)(void *)tb_scan_one;
    if (self >= lo && self < hi) {
        tb_self_lo = lo;
        tb_self_hi = hi;
        return 0;
    }
    if (!info->dlpi_name || !*info->dlpi_name)
        return 0;
    if (o->n == o->cap) {
        const int cap = o->cap ? 2 * o->cap : 64;
        tb_object *grown = realloc(o->o, (size_t)cap * sizeof *grown);
        if (!grown)
            return 1;
        o->o = grown;
        o->cap = cap;
    }
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
        const uintptr_t mark = (uintptr_t)dlsym(h, TB_TRAMPOLINE_MARK);
        o->o[o->n++] = (tb_object){h, lo, hi, mark >= lo && mark < hi};
    }
    return 0;
}

/* A symbol is ours when it lies in our own object; that happens when
 * TILEDBLAS_CPU_BLAS names libtiledblas itself. */
static int tb_is_ours(void *sym)
{
    return (uintptr_t)sym >= tb_self_lo && (uintptr_t)sym < tb_self_hi;
}

/* 1 when a call of sym may come back to us: it is ours, or it lies in a
 * trampoline. A symbol outside the objects scanned (the configured
 * fallback's) is asked of its own object. */
static int tb_leads_back(void *sym)
{
    if (tb_is_ours(sym))
        return 1;
    for (int i = 0; i < tb_scanned.n; i++)
        if ((uintptr_t)sym >= tb_scanned.o[i].lo && (uintptr_t)sym < tb_scanned.o[i].hi)
            return tb_scanned.o[i].trampoline;
    Dl_info info, mark_info;
    if (!dladdr(sym, &info) || !info.dli_fname || !*info.dli_fname)
        return 0;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *mark = dlsym(h, TB_TRAMPOLINE_MARK);
    const int r = mark && dladdr(mark, &mark_info) && mark_info.dli_fbase == info.dli_fbase;
    dlclose(h);
    return r;
}

/* The program's own symbol if it loaded one: the next after us, else that
 * of any loaded object (how a program that dlopen()ed its BLAS privately,
 * as numpy's extension modules and libblastrampoline do, is served by the
 * very BLAS it loaded); never one that may lead back to us. */
static void *tb_lookup(const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    if (sym && !tb_leads_back(sym))
        return sym;
    for (int i = 0; i < tb_scanned.n; i++) {
        sym = dlsym(tb_scanned.o[i].h, name);
        if (sym && !tb_leads_back(sym))
            return sym;
    }
    return NULL;
}

/* The program loaded no BLAS at all: every name from the configured
 * library (none under secure execution, where no library is loaded from
 * the environment). A program that loaded one keeps it alone, whatever
 * names it lacks: no second BLAS is loaded beside it. */
static void tb_resolve_fallback(void)
{
    const char *configured = tb_settings_get()->cpu_blas;
    if (!configured)
        return;
    void *h = dlopen(configured, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(tb_fallback_error_text, sizeof tb_fallback_error_text, "%s", e ? e : "?");
        tb_fallback_error = tb_fallback_error_text;
        return;
    }
    tb_fallback_error = "";
    for (int i = 0; i < TB_ENTRY_COUNT; i++) {
        void *sym = dlsym(h, tb_entries[i].symbol);
        if (sym && tb_is_ours(sym))
            tb_fallback_is_ours = 1;
        else if (sym && !tb_leads_back(sym))
            tb_real[i] = sym;
    }
}

/* ---- The width of the plain names' integers ----
 *
 * The plain names (cblas_dgemm, dgemm_) are LP64 in most BLAS builds and
 * ILP64 in some (Debian's libopenblas64, OpenBLAS or BLIS built with 64-bit
 * integers, MKL's ILP64 library). The BLAS behind them is asked with a call
 * that both widths answer, differently: IxAMAX of x = {1, 5} with N an
 * 8-byte integer whose low half is 2 and whose high half makes it negative.
 * An LP64 BLAS reads N = 2 and answers the position of the 5 (Fortran 2,
 * CBLAS 1); an ILP64 BLAS reads N < 0 and answers 0. Nothing is written. */
static const double tb_probe_x[2] = {1.0, 5.0};
static const int64_t tb_probe_n = (int64_t)((uint64_t)0x80000000u << 32 | 2u);

static int tb_probe_fortran(void *idamax)
{
    if (!idamax)
        return 0;
    const int64_t inc = 1;
    int64_t r = ((int64_t (*)(const int64_t *, const double *, const int64_t *))idamax)(
        &tb_probe_n, tb_probe_x, &inc);
    return (int32_t)r == 2 ? 4 : (int32_t)r == 0 ? 8 : 0;
}

static int tb_probe_cblas(void *idamax)
{
    if (!idamax)
        return 0;
    int64_t r = ((int64_t (*)(int64_t, const double *, int64_t))idamax)(tb_probe_n, tb_probe_x, 1);
    return (int32_t)r == 1 ? 4 : (int32_t)r == 0 ? 8 : 0;
}

/* The symbol `name` of the object that defines `anchor`. */
static void *tb_sym_beside(void *anchor, const char *name)
{
    Dl_info info;
    if (!anchor || !dladdr(anchor, &info) || !info.dli_fname)
        return NULL;
    void *h = dlopen(*info.dli_fname ? info.dli_fname : NULL, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        h = dlopen(NULL, RTLD_LAZY);
    void *sym = h ? dlsym(h, name) : NULL;
    if (h)
        dlclose(h);
    return sym && !tb_leads_back(sym) ? sym : NULL;
}

/* The width of the plain names of one interface, whose gemm symbols are
 * s and d (either may be NULL): asked of the BLAS that defines them; where
 * it has no IxAMAX, OpenBLAS's own report (USE64BITINT); 0 when neither
 * tells. */
static int tb_plain_width(tb_api api, void *s, void *d)
{
    void *anchor = d ? d : s;
    int w = api == TB_API_CBLAS ? tb_probe_cblas(tb_sym_beside(anchor, TB_PROBE_CBLAS))
                                : tb_probe_fortran(tb_sym_beside(anchor, TB_PROBE_FORTRAN));
    if (w)
        return w;
    char *(*config)(void) = (char *(*)(void))tb_sym_beside(anchor, "openblas_get_config");
    if (config) {
        const char *cfg = config();
        return cfg && strstr(cfg, "USE64BITINT") ? 8 : 4;
    }
    return 0;
}

static void tb_resolve(void)
{
    dl_iterate_phdr(tb_scan_one, &tb_scanned);
    int found = 0;
    for (int i = 0; i < TB_ENTRY_COUNT; i++)
        found |= (tb_real[i] = tb_lookup(tb_entries[i].symbol)) != NULL;
    if (!found)
        tb_resolve_fallback();
    /* The plain names' width, per interface; with no BLAS at all behind
     * them the built-in GEMM runs their calls, at the LP64 width a program
     * linked to nothing else was built for. */
    for (int api = TB_API_CBLAS; api <= TB_API_FORTRAN; api++) {
        const tb_entry *s = tb_entry_of(TB_R_gemm, TB_SINGLE, TB_FAM_plain, api);
        const tb_entry *d = tb_entry_of(TB_R_gemm, TB_DOUBLE, TB_FAM_plain, api);
        void *ss = tb_real[s->id], *ds = tb_real[d->id];
        int w = ss || ds ? tb_plain_width(api, ss, ds) : 4;
        for (int i = 0; i < TB_ENTRY_COUNT; i++)
            if (tb_entries[i].family == TB_FAM_plain && tb_entries[i].api == (tb_api)api)
                tb_width[i] = w;
    }
    for (int i = 0; i < TB_ENTRY_COUNT; i++)
        if (tb_entries[i].family != TB_FAM_plain)
            tb_width[i] = tb_entries[i].width;
    /* A name of an ILP64 family that no loaded BLAS defines: the plain name
     * of its routine where the BLAS behind that is ILP64 (blas.def). */
    for (int i = 0; i < TB_ENTRY_COUNT; i++) {
        const tb_entry *e = &tb_entries[i];
        const tb_entry *plain = tb_entry_of(e->routine, e->prec, TB_FAM_plain, e->api);
        if (!tb_real[i] && e->width == 8 && tb_width[plain->id] == 8)
            tb_real[i] = tb_real[plain->id];
    }
    /* The names only passed on: their own (isamax_64_), else the plain one
     * (isamax_) of the BLAS behind the plain Fortran names, where that is
     * ILP64. */
    const tb_entry *fd = tb_entry_of(TB_R_gemm, TB_DOUBLE, TB_FAM_plain, TB_API_FORTRAN);
    const tb_entry *fs = tb_entry_of(TB_R_gemm, TB_SINGLE, TB_FAM_plain, TB_API_FORTRAN);
    void *plain_anchor = tb_width[fd->id] != 8 ? NULL
                         : tb_real[fd->id] ? tb_real[fd->id] : tb_real[fs->id];
#define TB_RESOLVE_FWD(r, T, n)                                                               \
    tb_real_fwd[TB_FWD_##r] = tb_lookup(TB_STR(TB_FWD_SYMBOL(r)));                  \
    if (!tb_real_fwd[TB_FWD_##r])                                                             \
        tb_real_fwd[TB_FWD_##r] = tb_sym_beside(plain_anchor, TB_STR(TB_FWD_PLAIN(r)));
    TB_FORWARDED(TB_RESOLVE_FWD)
#undef TB_RESOLVE_FWD
    for (int i = 0; i < tb_scanned.n; i++)
        dlclose(tb_scanned.o[i].h);   /* the objects stay loaded: only our references go */
    free(tb_scanned.o);
    tb_scanned = (tb_objects){NULL, 0, 0};
    Dl_info info;
    for (int i = 0; i < TB_ENTRY_COUNT; i++)
        if (tb_real[i] && dladdr(tb_real[i], &info) && info.dli_fname) {
            tb_real_path = info.dli_fname;
            break;
        }
}

/* Once, when a call first runs on the built-in GEMM: what was looked for
 * (the names of the call's routine and precision in its family). */
static void tb_no_blas(const tb_entry *e)
{
    const tb_entry *cb = tb_entry_of(e->routine, e->prec, e->family, TB_API_CBLAS);
    const tb_entry *fo = tb_entry_of(e->routine, e->prec, e->family, TB_API_FORTRAN);
    char looked[160];
    snprintf(looked, sizeof looked, "no CPU BLAS found: the program loaded no %s or %s",
             cb->symbol, fo->symbol);
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

void *tb_real_symbol(tb_entry_id id)
{
    pthread_once(&tb_real_once, tb_resolve);
    return (unsigned)id < TB_ENTRY_COUNT ? tb_real[id] : NULL;
}

void *tb_real_forwarded(tb_forwarded_id id)
{
    static const char *const names[] = {
#define TB_FWD_NAME(r, T, n) TB_STR(TB_FWD_SYMBOL(r)),
        TB_FORWARDED(TB_FWD_NAME)
#undef TB_FWD_NAME
    };
    pthread_once(&tb_real_once, tb_resolve);
    void *fn = tb_real_fwd[id];
    if (!fn)
        tb_warn_once(TB_ONCE_NO_FORWARDED, "%s: no BLAS loaded defines it, nor its plain name "
                     "at ILP64; it returns 0, and so does any such name", names[id]);
    return fn;
}

int tb_real_width(const tb_entry *e)
{
    pthread_once(&tb_real_once, tb_resolve);
    return tb_width[e->id];
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

/* ---- Forwarding: the caller's call on a real symbol ----
 *
 * CBLAS: the layout, the options and integers as the 64-bit slots they
 * came in (raw.i), the scalars as the caller passed them (a real one by
 * value, read back from the entry point's copy; a complex one the caller's
 * pointer), the matrices (raw.p). Written once per shape (blas.def's
 * TB_KIND); SA and SB are the C types of alpha and beta. Fortran: the
 * caller's own pointers and the hidden lengths of the character arguments
 * (1 each), by the number of each. */
typedef int64_t tb_iarg;
typedef const void *tb_ptr;

/* A CBLAS scalar argument of C type S from the pointer the entry point
 * kept. */
#define TB_SARG(S, p) _Generic((S)0, float: *(const float *)(p), double: *(const double *)(p), \
                               default: (p))

#define TB_CBLAS_gemm(SA, SB)                                                                 \
    ((void (*)(int, int, int, tb_iarg, tb_iarg, tb_iarg, SA, tb_ptr, tb_iarg, tb_ptr, tb_iarg, \
               SB, tb_ptr, tb_iarg))fn)(c->layout, (int)i[0], (int)i[1], i[2], i[3], i[4],     \
                                        TB_SARG(SA, p[0]), p[1], i[5], p[2], i[6],            \
                                        TB_SARG(SB, p[3]), p[4], i[7])
#define TB_CBLAS_symm(SA, SB)                                                                 \
    ((void (*)(int, int, int, tb_iarg, tb_iarg, SA, tb_ptr, tb_iarg, tb_ptr, tb_iarg, SB,     \
               tb_ptr, tb_iarg))fn)(c->layout, (int)i[0], (int)i[1], i[2], i[3],              \
                                    TB_SARG(SA, p[0]), p[1], i[4], p[2], i[5],                \
                                    TB_SARG(SB, p[3]), p[4], i[6])
#define TB_CBLAS_syrk(SA, SB)                                                                 \
    ((void (*)(int, int, int, tb_iarg, tb_iarg, SA, tb_ptr, tb_iarg, SB, tb_ptr,              \
               tb_iarg))fn)(c->layout, (int)i[0], (int)i[1], i[2], i[3], TB_SARG(SA, p[0]),   \
                            p[1], i[4], TB_SARG(SB, p[2]), p[3], i[5])
#define TB_CBLAS_syr2k(SA, SB)                                                                \
    ((void (*)(int, int, int, tb_iarg, tb_iarg, SA, tb_ptr, tb_iarg, tb_ptr, tb_iarg, SB,     \
               tb_ptr, tb_iarg))fn)(c->layout, (int)i[0], (int)i[1], i[2], i[3],              \
                                    TB_SARG(SA, p[0]), p[1], i[4], p[2], i[5],                \
                                    TB_SARG(SB, p[3]), p[4], i[6])
#define TB_CBLAS_trmm(SA, SB)                                                                 \
    ((void (*)(int, int, int, int, int, tb_iarg, tb_iarg, SA, tb_ptr, tb_iarg, tb_ptr,        \
               tb_iarg))fn)(c->layout, (int)i[0], (int)i[1], (int)i[2], (int)i[3], i[4], i[5], \
                            TB_SARG(SA, p[0]), p[1], i[6], p[2], i[7])

/* Each row's CBLAS forwarder, tb_forward_cblas_<x><routine>. */
#define TB_FORWARD_KIND_(shape, a, b, r, x)                                                   \
    static void tb_forward_cblas_##x##r(void *fn, const tb_call *c)                           \
    {                                                                                         \
        const int64_t *i = c->raw.i;                                                          \
        const void *const *p = c->raw.p;                                                      \
        TB_CBLAS_##shape(TB_SCALAR_##a##_##x, TB_SCALAR_##b##_##x);                           \
    }
#define TB_FORWARD_KIND(...) TB_FORWARD_KIND_(__VA_ARGS__)
#define TB_FORWARD_ROW(r, x, T, P, ...) TB_FORWARD_KIND(TB_KIND_##r, r, x)
TB_ROUTINES(TB_FORWARD_ROW, )

#define TB_FORWARD_FN(r, x, T, P, ...) [TB_R_##r][P] = tb_forward_cblas_##x##r,
static void (*const tb_forward_cblas[TB_ROUTINE_COUNT][TB_PREC_COUNT])(void *, const tb_call *) = {
    TB_ROUTINES(TB_FORWARD_FN, )};

/* A Fortran call: its arguments' pointers, then the hidden lengths of its
 * character arguments (2; trmm and trsm, the routines of 11 arguments, 4). */
#define TB_P10 tb_ptr, tb_ptr, tb_ptr, tb_ptr, tb_ptr, tb_ptr, tb_ptr, tb_ptr, tb_ptr, tb_ptr
#define TB_A10 p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]
static void tb_forward_fortran(void *fn, const tb_call *c)
{
    const void *const *p = c->raw.p;
    switch (tb_routine_arity(c->entry->routine)) {
    case 10:
        ((void (*)(TB_P10, size_t, size_t))fn)(TB_A10, 1, 1);
        break;
    case 11:
        ((void (*)(TB_P10, tb_ptr, size_t, size_t, size_t, size_t))fn)(TB_A10, p[10], 1, 1, 1, 1);
        break;
    case 12:
        ((void (*)(TB_P10, tb_ptr, tb_ptr, size_t, size_t))fn)(TB_A10, p[10], p[11], 1, 1);
        break;
    case 13:
        ((void (*)(TB_P10, tb_ptr, tb_ptr, tb_ptr, size_t, size_t))fn)(TB_A10, p[10], p[11], p[12],
                                                                        1, 1);
        break;
    }
}

/* The problems of the GPU path (gemm), run on an xgemm of their precision
 * of either interface: CBLAS row-major with the integers as 64-bit slots
 * (right for LP64 and ILP64 alike), Fortran column-major (C^T = op(B)^T
 * op(A)^T) with integers of the name's width. Scalars as the interface
 * takes them: CBLAS's real ones by value, every other by pointer. */
static void tb_problem_gemm(void *fn, tb_api api, int w, const tb_problem *p)
{
    union { float f[2]; double d[2]; } al, be;
    const int dbl = tb_prec_real(p->prec) == TB_DOUBLE;
    if (dbl) {
        al.d[0] = p->alpha, al.d[1] = p->alpha_im, be.d[0] = p->beta, be.d[1] = p->beta_im;
    } else {
        al.f[0] = (float)p->alpha, al.f[1] = (float)p->alpha_im;
        be.f[0] = (float)p->beta, be.f[1] = (float)p->beta_im;
    }
    if (api == TB_API_CBLAS) {
        static const int ops[] = {TB_NO_TRANS, TB_TRANS, TB_CONJ_TRANS};
        const int ta = ops[p->transa], tb = ops[p->transb];
        const tb_iarg m = p->m, n = p->n, k = p->k;
        const tb_iarg lda = (tb_iarg)p->lda, ldb = (tb_iarg)p->ldb, ldc = (tb_iarg)p->ldc;
        if (tb_prec_complex(p->prec))
            ((void (*)(int, int, int, tb_iarg, tb_iarg, tb_iarg, tb_ptr, tb_ptr, tb_iarg, tb_ptr,
                       tb_iarg, tb_ptr, void *, tb_iarg))fn)(TB_ROW_MAJOR, ta, tb, m, n, k, &al,
                                                            p->A, lda, p->B, ldb, &be, p->C, ldc);
        else if (dbl)
            ((void (*)(int, int, int, tb_iarg, tb_iarg, tb_iarg, double, tb_ptr, tb_iarg, tb_ptr,
                       tb_iarg, double, void *, tb_iarg))fn)(TB_ROW_MAJOR, ta, tb, m, n, k, al.d[0],
                                                            p->A, lda, p->B, ldb, be.d[0], p->C, ldc);
        else
            ((void (*)(int, int, int, tb_iarg, tb_iarg, tb_iarg, float, tb_ptr, tb_iarg, tb_ptr,
                       tb_iarg, float, void *, tb_iarg))fn)(TB_ROW_MAJOR, ta, tb, m, n, k, al.f[0],
                                                           p->A, lda, p->B, ldb, be.f[0], p->C, ldc);
        return;
    }
    static const char *const ops[] = {"N", "T", "C"};
    int64_t v64[6] = {p->n, p->m, p->k, (int64_t)p->ldb, (int64_t)p->lda, (int64_t)p->ldc};
    int32_t v32[6];
    const void *v[6];
    for (int j = 0; j < 6; j++) {
        v32[j] = (int32_t)v64[j];
        v[j] = w == 8 ? (const void *)&v64[j] : (const void *)&v32[j];
    }
    ((void (*)(const char *, const char *, const void *, const void *, const void *, tb_ptr,
               tb_ptr, const void *, tb_ptr, const void *, tb_ptr, void *, const void *, size_t,
               size_t))fn)(ops[p->transb], ops[p->transa], v[0], v[1], v[2], &al, p->B, v[3], p->A,
                           v[4], &be, p->C, v[5], 1, 1);
}

static void tb_forward_to(void *fn, const tb_call *c)
{
    if (c->api == TB_API_CBLAS)
        tb_forward_cblas[c->entry->routine][c->prec](fn, c);
    else
        tb_forward_fortran(fn, c);
}

/* A row-major problem on a real xgemm of its precision, whichever name
 * the BLAS behind us has (the caller's own name may be missing), CBLAS
 * first; else on the built-in GEMM. The caller's call `e` names the
 * routine for the warning. */
static void tb_run_problem(const tb_problem *p, const tb_entry *e)
{
    for (int api = TB_API_CBLAS; api <= TB_API_FORTRAN; api++)
        for (int i = 0; i < TB_ENTRY_COUNT; i++) {
            const tb_entry *x = &tb_entries[i];
            if (x->routine == TB_R_gemm && x->prec == p->prec && x->api == (tb_api)api &&
                tb_real[i] && tb_width[i]) {
                tb_problem_gemm(tb_real[i], (tb_api)api, tb_width[i], p);
                return;
            }
        }
    tb_no_blas(e ? e : tb_entry_of(TB_R_gemm, p->prec, TB_FAM_plain, TB_API_CBLAS));
    tb_cpu_gemm(p);
}

/* The caller's own entry point is missing: the call is checked as the BLAS
 * would check it (an illegal one is reported in the BLAS's words, its
 * output left as it is) and a GEMM runs on another name of the routine or
 * the built-in GEMM. The built-in path has nothing else: a legal call of
 * another routine is not run, and says so once. */
static void tb_forward_elsewhere(const tb_call *c)
{
    tb_problem p;
    if (c->ints != TB_INTS_OK) {
        tb_no_blas(c->entry);
        tb_warn_once(TB_ONCE_WIDE_NO_BLAS, "%s: integers past 32 bits need the BLAS that "
                     "defines %s; the call was not run", c->entry->symbol, c->entry->symbol);
        return;
    }
    const int r = tb_cpu_gemm_check(c, &p);
    if (r == 0) {
        tb_run_problem(&p, c->entry);
    } else if (r > 0) {
        tb_no_blas(c->entry);
        tb_warn_once(TB_ONCE_NOT_BUILTIN, "%s: the built-in CPU path computes only GEMM; "
                     "this call and any like it are not run", c->entry->symbol);
    }
}

void tb_forward_problem(const tb_problem *p)
{
    pthread_once(&tb_real_once, tb_resolve);
    tb_depth++;
    tb_run_problem(p, NULL);
    tb_depth--;
}

void tb_forward(const tb_call *c)
{
    pthread_once(&tb_real_once, tb_resolve);
    tb_depth++;
    void *fn = tb_real[c->entry->id];
    if (fn)
        tb_forward_to(fn, c);
    else
        tb_forward_elsewhere(c);
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
        snprintf(buf, len, "none: the built-in CPU GEMM, single-threaded (none of the %d "
                 "names of the table found; see %s)", TB_ENTRY_COUNT, TB_ENV_CPU_BLAS);
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
