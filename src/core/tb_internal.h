/* src/core/tb_internal.h - the table of contents of libtiledblas's internals.
 * A call reads top to bottom, one folder of src/ a stage: entry/ (the
 * exported names, made from the table in core/blas.def) -> core/ (the
 * call read at its BLAS's integer width, legality, normalisation:
 * dispatch.c, routines.c) -> decide/ (policy.c, which asks costmodel.c) ->
 * gpu/ (spread.c, pipeline.c over gpu.c, staging.c, plan.c and kernels/)
 * or cpu/ (realblas.c: the real BLAS; cpugemm.c: the built-in GEMM) ->
 * account/ (account.c, then stats.c and trace.c). Every internal name
 * starts with tb_; nothing here is exported (see entry/exports.map.in). */
#ifndef TB_INTERNAL_H
#define TB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "blas.def"

#define TB_HIDDEN __attribute__((visibility("hidden")))

/* The element type of a call: the values of the kernels' tb_dtype
 * (kernels/tb_kernels.h), complex ones two floats or two doubles, re then
 * im. */
typedef enum { TB_SINGLE = 0, TB_DOUBLE = 1, TB_COMPLEX = 2, TB_ZCOMPLEX = 3 } tb_prec;
enum { TB_PREC_COUNT = 4 };
/* Bytes of one element: 4, 8, 8, 16. */
static inline size_t tb_prec_size(tb_prec t)
{
    return t == TB_SINGLE ? 4 : t == TB_ZCOMPLEX ? 16 : 8;
}
/* "single", "double", "complex", "zcomplex", for reports. */
static inline const char *tb_prec_name(tb_prec t)
{
    return t == TB_DOUBLE ? "double" : t == TB_COMPLEX ? "complex" : t == TB_ZCOMPLEX ? "zcomplex"
                                                                                    : "single";
}
static inline int tb_prec_complex(tb_prec t) { return t == TB_COMPLEX || t == TB_ZCOMPLEX; }
/* The type of a complex type's parts (single or double); t itself for a
 * real one. */
static inline tb_prec tb_prec_real(tb_prec t)
{
    return t == TB_DOUBLE || t == TB_ZCOMPLEX ? TB_DOUBLE : TB_SINGLE;
}

/* CBLAS enumerations, by value, so that no BLAS header is needed. */
enum { TB_ROW_MAJOR = 101, TB_COL_MAJOR = 102 };
enum { TB_NO_TRANS = 111, TB_TRANS = 112, TB_CONJ_TRANS = 113 };
enum { TB_UPPER = 121, TB_LOWER = 122 };
enum { TB_NON_UNIT = 131, TB_UNIT = 132 };
enum { TB_LEFT = 141, TB_RIGHT = 142 };

/* ---- Functions in settings.c: TILEDBLAS_* read once, typed, validated ---- */
#define TB_ENV_MODE          "TILEDBLAS_MODE"
#define TB_ENV_VERBOSE       "TILEDBLAS_VERBOSE"
#define TB_ENV_LOG           "TILEDBLAS_LOG"
#define TB_ENV_CPU_BLAS      "TILEDBLAS_CPU_BLAS"
#define TB_ENV_THRESHOLD     "TILEDBLAS_THRESHOLD"
#define TB_ENV_KERNEL        "TILEDBLAS_KERNEL"
#define TB_ENV_DEVICE        "TILEDBLAS_DEVICE"
#define TB_ENV_DEVICES       "TILEDBLAS_DEVICES"
#define TB_ENV_FAULT         "TILEDBLAS_FAULT"
#define TB_ENV_STATS         "TILEDBLAS_STATS"
#define TB_ENV_TRACE         "TILEDBLAS_TRACE"
#define TB_ENV_TRACE_MAX     "TILEDBLAS_TRACE_MAX"
#define TB_ENV_VERIFY_EVERY  "TILEDBLAS_VERIFY_EVERY"
#define TB_ENV_SCOPE         "TILEDBLAS_SCOPE"
#define TB_ENV_DEVICE_MEMORY "TILEDBLAS_DEVICE_MEMORY"
#define TB_ENV_COPY_THREADS  "TILEDBLAS_COPY_THREADS"
#define TB_ENV_STREAMS       "TILEDBLAS_STREAMS"
#define TB_ENV_CALIBRATE     "TILEDBLAS_CALIBRATE"
#define TB_ENV_CACHE_DIR     "TILEDBLAS_CACHE_DIR"
#define TB_ENV_LEARN         "TILEDBLAS_LEARN"

/* verify: GPU-eligible calls run on both; the caller gets the CPU result. */
typedef enum { TB_MODE_AUTO, TB_MODE_GPU, TB_MODE_CPU, TB_MODE_VERIFY } tb_mode;

/* Device slots: the entries of TILEDBLAS_DEVICES, each with its own lanes,
 * buffers and staging; one large call is cut over them (plan.c). */
enum { TB_MAX_DEVICES = 8 };

/* Where an injected fault strikes (TILEDBLAS_FAULT), for tests. */
typedef enum {
    TB_STAGE_NONE = 0, TB_STAGE_INIT, TB_STAGE_ALLOC, TB_STAGE_H2D,
    TB_STAGE_LAUNCH, TB_STAGE_KERNEL, TB_STAGE_D2H, TB_STAGE_COUNT
} tb_stage;

typedef struct tb_settings {
    tb_mode mode;
    int verbose;               /* 0 nothing, 1 warnings (default), 2 every call */
    const char *log_path;      /* NULL: stderr                                  */
    int secure;                /* AT_SECURE: nothing read from the environment,
                                * no file written, no library opened by name   */
    const char *cpu_blas;      /* library opened when the program loaded none;
                                * NULL in secure execution                      */
    double threshold;          /* auto mode: GPU only when m*n*k >= this        */
    const char *kernel;        /* NULL: the best kernel for the shape           */
    int device;                /* the first device's CUDA ordinal (calibration,
                                * the cache key, info)                          */
    int ndevices;              /* TILEDBLAS_DEVICES as a list: its length; 0: all */
    int devices[TB_MAX_DEVICES];   /* the list's CUDA ordinals, repeats allowed  */
    tb_stage fault;            /* injected fault, TB_STAGE_NONE normally        */
    int fault_slot;            /* TILEDBLAS_FAULT=stage@N: the device slot (the
                                * list's N-th entry) it strikes; -1: every one  */
    const char *stats;         /* NULL: off; "1"/"stderr": stderr; else a file  */
    const char *trace;         /* NULL: off; else a JSON Lines file             */
    double trace_max;          /* bytes the trace file may grow to              */
    long verify_every;         /* verify mode: compare every Nth eligible call  */
    unsigned scope;            /* TB_SCOPE_* bits: what may go to the GPU       */
    double device_memory;      /* bytes of device memory we may hold; 0: 80% free */
    int copy_threads;          /* host threads packing transfers; 0: min(cores,16) */
    int accounting;            /* anything to do after a call: lines, stats, trace, verify */
    int lanes;                 /* calls that may be on the GPU at once          */
    int calibrate;             /* TB_CAL_*: the cost model's rates               */
    const char *cache_dir;     /* TILEDBLAS_CACHE_DIR as set, NULL when not      */
    const char *cache_root;    /* the cache directory in use: cache_dir, else
                                * $XDG_CACHE_HOME/tiledblas or ~/.cache/tiledblas;
                                * NULL: none (no HOME, or secure execution)      */
    int learn;                 /* auto mode learns from its calls' times (1)     */
} tb_settings;

/* TILEDBLAS_CALIBRATE: auto (measure on first GPU use unless this machine's
 * rates are cached), off (built-in rates), force (measure again, re-cache). */
enum { TB_CAL_AUTO = 0, TB_CAL_OFF = 1, TB_CAL_FORCE = 2 };

/* TILEDBLAS_SCOPE: within each group, the bits set are the ones allowed. */
enum {
    TB_SCOPE_CBLAS = 1u << 0, TB_SCOPE_FORTRAN = 1u << 1,          /* interface */
    TB_SCOPE_ROW = 1u << 2, TB_SCOPE_COL = 1u << 3,                /* layout    */
    TB_SCOPE_NN = 1u << 4, TB_SCOPE_NT = 1u << 5,                  /* op(A)op(B) */
    TB_SCOPE_TN = 1u << 6, TB_SCOPE_TT = 1u << 7,
    TB_SCOPE_SINGLE = 1u << 8, TB_SCOPE_DOUBLE = 1u << 9,        /* precision */
    TB_SCOPE_COMPLEX = 1u << 10, TB_SCOPE_ZCOMPLEX = 1u << 11,
    TB_SCOPE_ALL = 0xfffu
};

/* The settings, parsed on first use (thread-safe); never NULL. */
TB_HIDDEN const tb_settings *tb_settings_get(void);
/* The i-th bad value found, as a line naming the variable and what was
 * used instead; NULL past the last (log.c reports them). */
TB_HIDDEN const char *tb_settings_complaint(int i);
TB_HIDDEN const char *tb_stage_name(tb_stage s);

/* ---- Functions in files.c (declared in tb_files.h, which the tool shares):
 * every file written is opened by tb_open_write - no link followed, no FIFO
 * or device, close-on-exec ---- */

/* ---- Functions in log.c: one logger, whole lines, "tiledblas: " prefix ---- */
#define TB_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* Writes one line when settings' verbose >= level. */
TB_HIDDEN void tb_log(int level, const char *fmt, ...) TB_PRINTF(2, 3);
/* Reports the settings' bad values, once per process, at verbose >= 1
 * (dispatch.c, on the first call; the tool, when it starts). */
TB_HIDDEN void tb_log_settings_report(void);
/* Warns once per key for the life of the process (key < 64). */
TB_HIDDEN void tb_warn_once(unsigned key, const char *fmt, ...) TB_PRINTF(2, 3);
enum { TB_ONCE_NO_GPU = 0, TB_ONCE_NO_CPU_BLAS = 1, TB_ONCE_FORK = 2,
       TB_ONCE_DISABLED = 3, TB_ONCE_WIDE_NO_BLAS = 4,
       TB_ONCE_NOT_BUILTIN = 5, TB_ONCE_NO_FORWARDED = 6,
       TB_ONCE_STAGE = 8 /* + tb_stage */ };

/* ---- The routines and the names they are called by (routines.c, from
 * the table in blas.def) ---- */
typedef enum { TB_API_CBLAS = 0, TB_API_FORTRAN = 1 } tb_api;
#define TB_R_ENUM(r) TB_R_##r,
typedef enum { TB_ROUTINE_NAMES(TB_R_ENUM) TB_ROUTINE_COUNT } tb_routine;
#undef TB_R_ENUM

/* The name families of blas.def, as TB_FAM_<family>. */
#define TB_FAM_ENUM(fam, pre, cs, fs, w) TB_FAM_##fam,
typedef enum {
    TB_FAMILIES(TB_FAM_ENUM)
    TB_FAM_COUNT
} tb_family;
#undef TB_FAM_ENUM

/* Every entry point, as TB_E_<family>_<x><routine>_<cblas|fortran>: one
 * per routine, precision, family and interface. */
#define TB_E_ENUM_R(r, x, T, P, fam, pre, cs, fs, w) TB_E_##fam##_##x##r##_cblas, TB_E_##fam##_##x##r##_fortran,
#define TB_E_ENUM_F(fam, pre, cs, fs, w) TB_ROUTINES(TB_E_ENUM_R, fam, pre, cs, fs, w)
typedef enum {
    TB_FAMILIES(TB_E_ENUM_F)
    TB_ENTRY_COUNT
} tb_entry_id;
#undef TB_E_ENUM_R
#undef TB_E_ENUM_F

/* The names only passed on (blas.def's TB_FORWARDED), as TB_FWD_<routine>. */
#define TB_FWD_ENUM(r, T, n) TB_FWD_##r,
typedef enum { TB_FORWARDED(TB_FWD_ENUM) TB_FWD_COUNT } tb_forwarded_id;
#undef TB_FWD_ENUM

/* One entry point: its symbol, the routine and precision it runs, its
 * family and interface, and the width of its integers (4, 8; 0: that of
 * the BLAS behind the plain names, found out by realblas.c). */
typedef struct tb_entry {
    const char *symbol;       /* "scipy_cblas_dgemm64_"                      */
    const char *label;        /* the symbol without "cblas_", as decision
                               * lines, statistics and traces name the call */
    tb_routine routine;
    tb_prec prec;
    tb_api api;
    tb_family family;
    int width;
    tb_entry_id id;
} tb_entry;
TB_HIDDEN extern const tb_entry tb_entries[TB_ENTRY_COUNT];
/* The entry of the given routine, precision, family and interface. */
TB_HIDDEN const tb_entry *tb_entry_of(tb_routine r, tb_prec p, tb_family f, tb_api api);

/* ---- The call (built by src/entry/, normalised by dispatch.c) ---- */

/* What the caller passed, kept as it came so that it can be forwarded
 * untouched. Fortran: every argument by its pointer, in argument order
 * (raw.p). CBLAS: after the layout, the options and integers in argument
 * order, each whole, all 64 bits of its register or stack slot (raw.i:
 * an LP64 caller leaves the upper halves undefined, an ILP64 one fills
 * them), and the scalars and matrices in argument order (raw.p): a complex
 * scalar as the caller's pointer, a real one as a pointer to the entry
 * point's own copy of the value (valid for the call). */
enum { TB_RAW_P = 16, TB_RAW_I = 8 };
typedef struct tb_raw {
    const void *p[TB_RAW_P];
    int64_t i[TB_RAW_I];
} tb_raw;

/* How the call's integers were read. */
typedef enum {
    TB_INTS_OK = 0,           /* read at the BLAS's width; every one fits an int   */
    TB_INTS_UNKNOWN,          /* the width of the BLAS behind the names is unknown */
    TB_INTS_WIDE              /* ILP64, and a value does not fit in 32 bits        */
} tb_ints;

/* The call as the library sees it: routine and options (CBLAS values; a
 * Fortran call's characters read into them, 0 for a character the routine
 * does not accept), the integers read at their true width (valid when ints
 * is TB_INTS_OK), the scalars by value (imaginary parts 0 for real types),
 * the operands under the routine's own names (trmm's and trsm's in-out
 * matrix is B). A Fortran call arrives column-major. Options a routine does
 * not take are 0; syrk's TRANS is transa.
 * m, n, k describe the product: C (trmm's and trsm's B) is m x n and k is
 * the inner dimension. For gemm they are its M, N, K; symm, hemm, trmm and
 * trsm have M and N, and k is the order of A (m on the left, n on the
 * right); syrk, herk, syr2k and her2k have N and K, and m is N. */
typedef struct tb_call {
    const tb_entry *entry;
    tb_api api;                /* entry->api                                */
    tb_prec prec;              /* entry->prec                               */
    tb_ints ints;
    int layout, transa, transb;
    int side, uplo, diag;
    int m, n, k;
    double alpha, beta;
    double alpha_im, beta_im;
    const void *A; int lda;
    const void *B; int ldb;
    void *C; int ldc;
    tb_raw raw;
} tb_call;

/* Reads the call's arguments from what the entry point kept (raw, with
 * entry): the integers at width (4, 8; 0: unknown, read at 32 bits and
 * the call marked TB_INTS_UNKNOWN), the options, the scalars through
 * their pointers. */
TB_HIDDEN void tb_call_read(tb_call *c, int width);
/* The first illegal argument of the call as the reference BLAS numbers it
 * for the call's interface (CBLAS: its position in the CBLAS call, the
 * arguments checked in the reference CBLAS's order), 0 when all are legal
 * (routines.c; realblas.c's built-in path reports it through xerbla's
 * words). */
TB_HIDDEN int tb_call_illegal(const tb_call *c);
/* The call's options as decision lines print them, in the order the
 * routine takes them: N, T or C for a transpose (T for a real type's C,
 * which is its transpose), L or R for a side, U or L for uplo, U or N for
 * diag, ? for an illegal value: "NT" for gemm, "LU" for symm, "UN" for
 * syrk, "LUNN" for trsm. Returns buf (at least 8 bytes). */
TB_HIDDEN const char *tb_call_ops(const tb_call *c, char *buf);
/* The floating-point operations of the call (0 when it has nothing to
 * compute): 2 m n k for gemm, symm, hemm, syr2k and her2k, m n k for syrk,
 * herk, trmm and trsm (tb_call's m, n, k), four times as many for complex
 * types. */
TB_HIDDEN uint64_t tb_call_flops(const tb_call *c);
/* 1 when the entry's routine has a GPU path: every routine of the table
 * in every precision (gemm through pipeline.c, the others through
 * level3.c); a routine without one would go to the CPU BLAS (policy.c:
 * cpu-only). */
TB_HIDDEN int tb_entry_on_gpu(const tb_entry *e);
/* c for the CPU BLAS with its sizes and matrices replaced, in s: C (trmm's
 * and trsm's B) m x n in the row-major form of blocked.c's tb_l3 (syrk's
 * family: n x n), A, B and C the matrices at those places (trmm's and
 * trsm's in-out matrix as C), its options, scalars and leading dimensions
 * c's. A Fortran call's integers are stored in ints (w bytes each, the
 * width c was read at). For the CPU completion of a part of a call. */
TB_HIDDEN void tb_call_part(const tb_call *c, tb_call *s, int m, int n, const void *A,
                            const void *B, void *C, int w, int64_t ints[3]);
/* The routine's name, "gemm", "her2k". */
TB_HIDDEN const char *tb_routine_name(tb_routine r);
/* The number of the routine's Fortran arguments (13 for gemm), and the
 * letter routines.c names Fortran argument j by (0-based; 0 past the
 * last): s side, u uplo, t transa (syrk's trans), T transb, d diag, M N K,
 * a alpha, b beta, A B C, x y z their leading dimensions. */
TB_HIDDEN int tb_routine_arity(tb_routine r);
TB_HIDDEN char tb_routine_arg(tb_routine r, int j);

/* The same product as a row-major one: C = alpha op(A) op(B) + beta C with
 * C m x n; a column-major call becomes C^T = op(B)^T op(A)^T, no copies. */
typedef struct tb_problem {
    int m, n, k;
    int transa, transb;        /* 0 N, 1 T, 2 C (conjugate transpose; complex) */
    double alpha, beta;        /* real parts                                 */
    const void *A; size_t lda; /* strides in elements of prec */
    const void *B; size_t ldb;
    void *C; size_t ldc;
    tb_prec prec;
    double alpha_im, beta_im;  /* imaginary parts (0 for the real types)     */
    /* gemm, or another routine's call as the policy and the cost model see
     * it (tb_normalise): its C m x n in row-major form, k the order of A
     * (symm, hemm, trmm, trsm) or the depth (syrk's family), transa its
     * trans (0, 1, 2), transb 0; it is never run as a product. */
    tb_routine routine;
} tb_problem;

/* Whether p reads A and B (k > 0, alpha != 0) and C (beta != 0); its
 * floating-point operations as tb_call_flops counts them (gemm, symm,
 * hemm, syr2k, her2k 2 m n k; syrk, herk, trmm, trsm m n k; four times as
 * many complex), whatever alpha; and the m n k of a GEMM of as many flops,
 * which TILEDBLAS_THRESHOLD compares with. */
static inline int tb_reads_ab(const tb_problem *p)
{
    return p->k > 0 && (p->alpha != 0.0 || p->alpha_im != 0.0);
}
static inline int tb_reads_c(const tb_problem *p)
{
    return p->beta != 0.0 || p->beta_im != 0.0;
}
static inline double tb_problem_mnk(const tb_problem *p)
{
    const tb_routine r = p->routine;
    const double half = r == TB_R_syrk || r == TB_R_herk || r == TB_R_trmm || r == TB_R_trsm;
    return (half ? 0.5 : 1.0) * p->m * p->n * p->k;
}
static inline double tb_problem_flops(const tb_problem *p)
{
    return (tb_prec_complex(p->prec) ? 8.0 : 2.0) * tb_problem_mnk(p);
}

/* Element (i, j) of a row-major matrix of p's type with stride ld: the
 * address arithmetic every part of the host path shares. */
static inline const void *tb_at(const tb_problem *p, const void *X, size_t ld, size_t i, size_t j)
{
    return (const char *)X + (i * ld + j) * tb_prec_size(p->prec);
}

/* The product of p that writes rows [r0, r0 + m) and columns [c0, c0 + n)
 * of C: its rows of op(A), columns of op(B) and window of C, wherever the
 * transposes put them. */
static inline tb_problem tb_sub_problem(const tb_problem *p, size_t r0, size_t c0, int m, int n)
{
    tb_problem q = *p;
    q.m = m;
    q.n = n;
    q.A = p->transa ? tb_at(p, p->A, p->lda, 0, r0) : tb_at(p, p->A, p->lda, r0, 0);
    q.B = p->transb ? tb_at(p, p->B, p->ldb, c0, 0) : tb_at(p, p->B, p->ldb, 0, c0);
    q.C = (void *)tb_at(p, p->C, p->ldc, r0, c0);
    return q;
}

typedef enum { TB_ROUTE_CPU = 0, TB_ROUTE_GPU = 1 } tb_route;

/* Why a call went where it went: the word of the decision line, the
 * statistics and the trace (reason.c holds the one name table; README
 * "Decision lines" explains each). */
typedef enum {
    TB_WHY_SMALL,             /* below TILEDBLAS_THRESHOLD                        */
    TB_WHY_ILLEGAL,           /* BLAS-illegal: forwarded, the real BLAS reports it */
    TB_WHY_MODE_CPU,          /* TILEDBLAS_MODE=cpu                               */
    TB_WHY_NO_OP,             /* m or n is 0, or alpha or k is 0 with beta = 1     */
    TB_WHY_SCOPE,             /* TILEDBLAS_SCOPE leaves it out                    */
    TB_WHY_CPU_FASTER, TB_WHY_GPU_FASTER,     /* the model, by more than the margin */
    TB_WHY_CPU_MEASURED, TB_WHY_GPU_MEASURED, /* the class's measured times        */
    TB_WHY_CPU_TRY, TB_WHY_GPU_TRY,           /* close: measuring a route          */
    TB_WHY_GPU_RECHECK,                       /* a CPU class tries the GPU again   */
    TB_WHY_FORCED,            /* TILEDBLAS_MODE=gpu                               */
    TB_WHY_VERIFY, TB_WHY_VERIFY_SKIPPED, TB_WHY_VERIFY_GPU_FAILED,
    TB_WHY_NO_GPU,            /* no usable device                                 */
    TB_WHY_GPU_INIT_FAILED,   /* CUDA did not start                               */
    TB_WHY_GPU_DISABLED,      /* off for this process after failures              */
    TB_WHY_AFTER_FORK,        /* a child of a parent that had started CUDA        */
    TB_WHY_GPU_FAILED,        /* the GPU failed at a stage; the CPU completed it  */
    TB_WHY_GPU_STARTING,      /* auto mode: CUDA is starting in the background    */
    TB_WHY_INT_WIDTH,         /* the width of the BLAS's integers is unknown: forwarded */
    TB_WHY_WIDE_INTS,         /* an ILP64 integer past 32 bits: forwarded          */
    TB_WHY_CPU_ONLY,          /* no GPU path for this routine (or precision) yet   */
    TB_WHY_TOO_BIG,           /* a routine but gemm whose matrices do not fit the
                               * device memory a call may hold: the CPU BLAS      */
    TB_WHY_VERIFY_GEMM_ONLY,  /* verify mode compares gemm alone: the others run
                               * on the CPU BLAS                                  */
    TB_WHY_COUNT
} tb_reason;

typedef struct tb_decision {
    tb_route route;
    tb_reason reason;
    double pred_cpu_s, pred_gpu_s;   /* the times the route was chosen by; 0 when unused */
    int weighed;               /* auto mode chose by those times               */
    int learn;                 /* the call's time measures its route (policy.c) */
    double model_s[2];         /* the model's own times, before the class's
                                * measurements, by route (TB_ROUTE_CPU, _GPU)   */
    const struct tb_rates *rates;   /* the rates model_s was taken under      */
} tb_decision;

/* ---- Functions in costmodel.c: predicted seconds on each route ---- */
#define TB_GRID_MN 8       /* m and n: 32, 64, ..., 4096 */
#define TB_GRID_K 7        /* k: 1, 4, 16, ..., 4096 */
#define TB_GRID_MIN_LOG 20 /* measured where 2^20 <= m n k <= 2^28 */
#define TB_GRID_MAX_LOG 28
typedef struct tb_rates {
    double cpu_flops, cpu_fixed_s;       /* the CPU BLAS on all its threads    */
    double cpu_core_flops;               /* ... and on one                     */
    double gpu_flops, gpu_fixed_s;       /* the GPU kernel and per-call cost   */
    double h2d_bps, d2h_bps;             /* host <-> device copies             */
    double thin_dim;                     /* CPU: min(m, n) below this runs slow */
    double cpu_c_bps;                    /* CPU: bytes of C a second when K is small */
    /* Double precision: the compute rates differ, the rest (fixed costs,
     * bytes a second, thin_dim) is the same machine's. */
    double dp_cpu_flops, dp_cpu_core_flops, dp_gpu_flops;
    /* Both routes' times measured at small shapes, where the two are close
     * and the formulas least sure (calibrate.c measures them, tb_predict
     * scales its times by them): m, n = 2^(5+i), 2^(5+j) (32..4096), k =
     * 4^l (1..4096), row-major NN, beta = 0; seconds, 0 where not measured. */
    float grid[2][TB_GRID_MN][TB_GRID_MN][TB_GRID_K];   /* [route][i][j][l], single */
} tb_rates;
/* The rates in use: the built-in ones until calibrate.c publishes measured
 * ones (tb_rates_publish, once). */
TB_HIDDEN const tb_rates *tb_rates_get(void);
TB_HIDDEN const tb_rates *tb_rates_builtin(void);
TB_HIDDEN void tb_rates_publish(const tb_rates *r);
/* Both routes' times for p: the formulas, scaled by the small-call grid's
 * measurements around p. */
TB_HIDDEN void tb_predict(const tb_problem *p, double *cpu_s, double *gpu_s);
/* The same with rates r (tb_predict: the rates in use). */
TB_HIDDEN void tb_predict_at(const tb_rates *r, const tb_problem *p, double *cpu_s, double *gpu_s);
/* The formulas alone, with rates r. */
TB_HIDDEN void tb_predict_with(const tb_rates *r, const tb_problem *p, double *cpu_s, double *gpu_s);
/* The grid's say on p (rates r): in f[route], measured time over the
 * formulas' time, interpolated between the grid shapes around p; 1 where
 * nothing around p was measured, and for double calls (the grid is measured
 * in single). Returns the interpolation weight of the measured shapes
 * around p, 0 to 1. */
TB_HIDDEN double tb_grid_factor(const tb_rates *r, const tb_problem *p, double f[2]);
/* The grid shape at [i][j][l] as a problem on the given buffers. */
TB_HIDDEN tb_problem tb_grid_shape(int i, int j, int l, const void *A, const void *B, void *C);
/* Lowers each measured time of one route's grid to those of the shapes
 * one step larger in m, n or k (calibrate.c, after measuring). */
TB_HIDDEN void tb_grid_monotone(tb_rates *r, int route);
/* 1 when the grid shape at [i][j][l] is one calibrate.c measures. */
TB_HIDDEN int tb_grid_wanted(int i, int j, int l);
/* The small kernel's time for a small product of these flops (dp: fp64). */
TB_HIDDEN double tb_small_kernel_s(int dp, double flop);

/* ---- Functions in reason.c: the reasons' words ---- */
/* The reason's word; for TB_WHY_GPU_FAILED "gpu-failed". */
TB_HIDDEN const char *tb_reason_name(tb_reason why);
/* The reason as written in lines and reports: the word, and for a GPU
 * failure ":" and the stage ("gpu-failed:h2d"). Returns buf. */
TB_HIDDEN const char *tb_reason_text(tb_reason why, tb_stage failed, char *buf, size_t len);
/* 1 for reasons that mean the call was never meant for the GPU (small,
 * illegal-args, mode-cpu, no-op, scope, the integer-width ones, cpu-only,
 * verify-gemm-only). */
TB_HIDDEN int tb_reason_ineligible(tb_reason why);

/* ---- Functions in plan.c: how the GPU path cuts a product ---- */
/* C in column blocks of nb columns (op(B)'s block stays on the device while
 * the block is done), each block in panels of mp rows streamed through
 * `slots` device slots (1: one panel, nothing to overlap). */
enum { TB_PLAN_SLOTS = 3 };
typedef struct tb_plan {
    size_t mp, nb;
    int slots;
} tb_plan;
/* The plan for p within `budget` device bytes (0: no limit). Returns 0, or
 * -1 when not even the thinnest plan fits. */
TB_HIDDEN int tb_plan_make(const tb_problem *p, size_t budget, tb_plan *pl);
/* Device bytes the plan's buffers take. */
TB_HIDDEN size_t tb_plan_bytes(const tb_problem *p, const tb_plan *pl);
/* Panels per column block (the model's P). */
TB_HIDDEN int tb_plan_panels(const tb_problem *p, const tb_plan *pl);
/* Over several devices: C cut into `parts` by rows (by_rows) or columns,
 * part i from start[i] to start[i + 1], on the device of index dev[i] in
 * the caller's list. */
typedef struct tb_split {
    int parts, by_rows;
    int start[TB_MAX_DEVICES + 1];
    int dev[TB_MAX_DEVICES];
} tb_split;
/* The cut of p over ndev devices whose speeds are speed[] (NULL, or 0 for
 * one not measured: as fast as the others); returns the parts, 1 for a
 * call that stays whole. */
TB_HIDDEN int tb_plan_split(const tb_problem *p, int ndev, const double *speed, tb_split *sp);
/* Part i of the cut as a problem of its own (its A or B, and C, offset). */
TB_HIDDEN tb_problem tb_plan_part(const tb_problem *p, const tb_split *sp, int i);

/* ---- Functions in policy.c: the GPU/CPU decision ---- */
/* Where a legal call goes and why: a routine or precision without a GPU
 * path to the CPU BLAS (cpu-only) before anything else; then forced modes,
 * no-ops, scope, verify mode's routines but gemm (verify-gemm-only) and the
 * threshold (on tb_problem_mnk); in auto mode the three rules (README "How
 * the decision works") on the model's times and what this call's shape
 * class measured. May start CUDA and calibrate (a call the GPU might
 * take). */
TB_HIDDEN tb_decision tb_decide(const tb_call *c, const tb_problem *p);
/* Calls with m*n*k below this go to the CPU BLAS whatever else holds (auto
 * and cpu modes: TILEDBLAS_THRESHOLD; 0 in the modes that want the GPU):
 * the one threshold, which the entry points' fast path also applies. */
TB_HIDDEN double tb_policy_cpu_below(void);
/* Auto mode's rules alone on the model's two times (model[], by route,
 * taken under rates): the route, the reason, and the estimates it chose by
 * in est[]. */
TB_HIDDEN tb_route tb_policy_choose(const tb_problem *p, const double model[2],
                                    const tb_rates *rates, double est[2], tb_reason *why);
/* One finished call's time on the route it took, against the model's
 * time for that route under rates (tb_decision.model_s and .rates). */
TB_HIDDEN void tb_policy_record(const tb_problem *p, tb_route route, double seconds, double model_s,
                                const tb_rates *rates);
/* A call that the policy weighed (tb_decision.weighed) ran on route. */
TB_HIDDEN void tb_policy_ran(tb_route route);
/* Whether a call on route now would measure it: the process's last calls
 * ran there long enough for what the other route left behind to pass. */
TB_HIDDEN int tb_policy_settled(tb_route route);
/* Forgets every class's measurements, the learned file's too (tests, and a
 * calibration on demand). */
TB_HIDDEN void tb_policy_forget(void);
/* The learned file's text: what the classes measured (0), or -1 when it
 * does not fit in len. Reading it back adds to the classes what they have
 * not measured in this process; returns the lines taken. */
TB_HIDDEN int tb_policy_export(char *buf, size_t len);
TB_HIDDEN int tb_policy_import(const char *text);
/* At exit: writes the learned file, if this process read it and its
 * classes have measured calls since. */
TB_HIDDEN void tb_policy_save(void);
/* The shape class of p: m, n, k rounded down to powers of two, the
 * transposes, beta = 0 or not, the precision, the routine. */
TB_HIDDEN unsigned tb_policy_class(const tb_problem *p);


/* ---- Functions in calibrate.c: the rates of this machine, cached ---- */
/* Makes the rates final: this machine's cached rates, or the GPU's own
 * measured (the kernels and the per-call cost, about 0.1 s, disturbing no
 * CPU BLAS call) and the rest built in, nothing cached; with
 * TILEDBLAS_CALIBRATE=force everything measured and cached;
 * the built-in ones with =off or when measuring fails. Needs the GPU
 * started (start.c's thread runs it); thread-safe, runs once. Returns 1
 * when the rates changed. */
TB_HIDDEN int tb_calibrate_ensure(void);
/* 1 once the rates are final (tb_calibrate_ensure ran, or calibration is off). */
TB_HIDDEN int tb_rates_final(void);
/* Once the rates are final: the file where auto mode keeps what its shape
 * classes measured, beside the rates in the cache; NULL without a cache. */
TB_HIDDEN const char *tb_learned_file(void);
/* Measures the rates now (GPU and CPU BLAS must be available). Returns 0 and
 * fills *r, or -1 with *why set. */
TB_HIDDEN int tb_calibrate_measure(tb_rates *r, const char **why);
/* Measures again, caches and publishes the rates, whatever the cache holds
 * (tiledblas_calibrate); the report of what was done goes to report. 0 when
 * the rates were measured, -1 otherwise. */
TB_HIDDEN int tb_calibrate_now(char *report, size_t len);
/* Where the rates in use came from, in words (never starts CUDA). */
TB_HIDDEN void tb_calibration_describe(char *buf, size_t len);

/* ---- Functions in cache.c: the cache's files (rates, learned), key and I/O ---- */
/* The cache file for this machine (key: GPU, CPU, CPU BLAS, settings that
 * change speed, library version); the key text goes to key if not NULL. */
TB_HIDDEN int tb_calibration_path(char *path, size_t len, char *key, size_t klen);
/* The cache file's text, and reading it back: 0 when the key matches and
 * every rate is plausible, -1 otherwise. */
TB_HIDDEN int tb_calibration_format(const tb_rates *r, const char *key, const char *when,
                                    char *buf, size_t len);
TB_HIDDEN int tb_calibration_parse(const char *text, const char *key, tb_rates *r);
/* Sets the rate at offset `field` of r (offsetof(tb_rates, ...)) to v when
 * v lies within that rate's plausible bounds; otherwise leaves it. */
TB_HIDDEN void tb_rates_keep(tb_rates *r, size_t field, double v);
/* The file beside the rates at rates_path where auto mode keeps what its
 * shape classes measured (policy.c): learned-HASH.txt for rates-HASH.txt. */
TB_HIDDEN int tb_learned_path(const char *rates_path, char *path, size_t len);
/* A cache file's text, at most len - 1 bytes and NUL-terminated, from a
 * regular file (no link) in a directory that only the effective user may
 * write; 0 on success. */
TB_HIDDEN int tb_cache_read(const char *path, char *text, size_t len);
/* Writes text there: the directory made if missing (and then checked like
 * tb_cache_read's), a mkstemp file renamed over path. 0 on success. */
TB_HIDDEN int tb_cache_write(const char *path, const char *text);
/* Removes a cache file (gone already counts as removed); 0 on success. */
TB_HIDDEN int tb_cache_remove(const char *path);
/* The rates cached at path, read and written that way: 0 when they match
 * the key (load), or were written (save). */
TB_HIDDEN int tb_cache_load(const char *path, const char *key, tb_rates *r);
TB_HIDDEN int tb_cache_save(const char *path, const char *key, const tb_rates *r);

/* What the GPU side measured of one call. */
typedef struct tb_gpu_times {
    double h2d_s, kernel_s, d2h_s;   /* spans on each stream; they overlap   */
    uint64_t bytes_h2d, bytes_d2h;
    const char *kernel;
    int panels;                      /* pieces the product was streamed in   */
    int devices;                     /* device slots it was cut over (1: one) */
    int grew;                        /* device or pinned memory was allocated */
    /* After a failure, what of C is already final (written after its kernel
     * succeeded): all rows of columns [0, done_cols), and rows [0, done_rows)
     * of columns [done_cols, done_cols_end). The rest still holds the
     * caller's C and is completed on the CPU. */
    int done_cols, done_cols_end, done_rows;
    int too_big;                     /* a routine but gemm did not fit the
                                      * device memory budget (level3.c): the
                                      * CPU BLAS ran it, nothing failed     */
} tb_gpu_times;

/* What accounting sees of one finished call. */
typedef struct tb_verify_result {
    double max_abs, avg_abs, rel_fro;   /* GPU against the CPU BLAS          */
    double gpu_s, cpu_s;                /* wall seconds of each side          */
    int within_bound;                   /* within the precision's error bound   */
    double bound_rel;                   /* that bound over ||C|| (the CPU's)    */
} tb_verify_result;

typedef struct tb_record {
    const tb_call *call;
    const tb_problem *problem;
    tb_route route;                     /* where the caller's result came from */
    tb_reason reason;
    tb_stage failed;                    /* the stage, when reason is TB_WHY_GPU_FAILED */
    double t_start, seconds;            /* wall clock of the whole call       */
    const tb_gpu_times *gpu;            /* NULL unless the GPU ran            */
    const tb_verify_result *verify;     /* NULL unless the call was compared  */
    double pred_cpu_s, pred_gpu_s;      /* the times the route was chosen by, 0 if unused */
} tb_record;

/* The entry point the caller called, as lines and reports name it:
 * "sgemm" for cblas_sgemm, "dgemm_", "scipy_dgemm64_" (the symbol without
 * "cblas_"). */
static inline const char *tb_call_name(const tb_call *c)
{
    return c->entry->label;
}

/* Functions in account.c: the decision line, statistics, trace. */
TB_HIDDEN void tb_account(const tb_record *r);

/* Functions in verify.c: runs the call on the GPU into scratch memory and on
 * the CPU BLAS into the caller's C, compares, fills *v. Returns 0 when the
 * comparison was made, -1 when the GPU side failed (the caller's C then
 * holds the CPU result all the same). */
TB_HIDDEN int tb_verify_call(const tb_call *c, const tb_problem *p,
                             tb_gpu_times *t, tb_verify_result *v);
/* The comparison alone: gpu (C's window with stride ldg) against the CPU
 * BLAS's result in p->C, c0 the Frobenius norm of C's window before the
 * call. Fills *v but its times; returns how many elements differ only by
 * the CPU BLAS's NaN for alpha = 0 (not counted against the GPU). */
TB_HIDDEN size_t tb_verify_compare(const tb_problem *p, const void *gpu, size_t ldg,
                                   double c0, tb_verify_result *v);

/* The entry points' fast path for small calls (src/entry/entries.c): once
 * the first call has resolved everything, a CBLAS call with m*n*k below
 * `below` that nobody accounts for goes straight to the real symbol of its
 * own name (real[id], its integers of width[id]), with no other work. */
typedef struct tb_fastpath {
    void *real[TB_ENTRY_COUNT];    /* NULL until armed                        */
    int width[TB_ENTRY_COUNT];     /* written before real[id] is published    */
    double below;
} tb_fastpath;
extern tb_fastpath tb_fast TB_HIDDEN;
static inline void *tb_fast_real(tb_entry_id id)
{
    return __atomic_load_n(&tb_fast.real[id], __ATOMIC_ACQUIRE);
}
/* m, n, k as whole CBLAS integer slots, read at the armed width. */
static inline int tb_fast_small(tb_entry_id id, int64_t m, int64_t n, int64_t k)
{
    if (tb_fast.width[id] != 8) {
        m = (int32_t)m;
        n = (int32_t)n;
        k = (int32_t)k;
    }
    return (double)m * (double)n * (double)k < tb_fast.below;
}
/* Arms tb_fast when the settings allow it (dispatch.c, on the first call). */
TB_HIDDEN void tb_fastpath_arm(void);

/* ---- Functions in dispatch.c: one call, top to bottom ---- */
TB_HIDDEN void tb_normalise(const tb_call *c, tb_problem *p);
/* Reads the call (tb_call_read, at the width of the BLAS behind its name),
 * runs it where policy.c decides, falls back on a GPU failure, accounts
 * it; holds the exit gate (README "Guarantees"). */
TB_HIDDEN void tb_dispatch(tb_call *c);

/* ---- Functions in spread.c: a call's GPU route, over the devices ---- */
/* Runs p on the GPU, cut over the device slots as plan.c says; whatever a
 * failure leaves unfinished, of the call or of one device's part, the CPU
 * BLAS completes (c: the call as it came, forwarded whole when nothing of
 * C was written; NULL: p's own sub-call). Returns TB_STAGE_NONE when the
 * GPU computed all of C, else the stage that failed first; C is complete
 * either way. */
TB_HIDDEN tb_stage tb_gpu_route(const tb_call *c, const tb_problem *p, tb_gpu_times *t);
/* The route of every routine but gemm (level3.c): the call c on one
 * device, whole (uploaded, run as blocked.c's algorithm, downloaded). A
 * failure before the download began leaves the caller's matrices
 * untouched and forwards c to the CPU BLAS; a failure during the download
 * has the CPU BLAS complete what was not written; a call that does not fit
 * the device memory a call may hold goes to the CPU BLAS (t->too_big).
 * Returns as tb_gpu_route; the result is complete either way. */
TB_HIDDEN tb_stage tb_gpu_level3(const tb_call *c, tb_gpu_times *t);
/* After a GPU failure: the CPU BLAS computes what t->done_* says is not
 * final yet (the whole call when nothing is; c as for tb_gpu_route). */
TB_HIDDEN void tb_complete_on_cpu(const tb_call *c, const tb_problem *p, const tb_gpu_times *t);

/* ---- Functions in start.c: auto mode's start of the GPU path, in the
 * background (declared with gpu.c's below: tb_gpu_poll, tb_gpu_wait) ---- */
/* Seconds the start thread took, once it has finished; 0 before. */
TB_HIDDEN double tb_gpu_start_seconds(void);
/* 1 while the start thread works. */
TB_HIDDEN int tb_gpu_start_running(void);

/* ---- Functions in gpu.c, pipeline.c (and staging.c, plan.c): the GPU path ---- */
/* 1 when the GPU path may be tried (it starts CUDA on the first call and
 * waits for a start under way); 0 when it is unavailable, with *why set
 * (gpu.c). Forced and verify modes, the tool, calibration. */
TB_HIDDEN int tb_gpu_available(tb_reason *why);
/* Auto mode's view, never blocking, for a call that would take cpu_s on
 * the CPU were the GPU to take it (0 for a call the GPU would not take):
 * TB_GPU_POLL_READY when the GPU path and the rates are ready;
 * TB_GPU_POLL_STARTING while the start thread runs, or before it is due
 * (tb_start_due; the poll that finds it due starts it), with *left the
 * seconds the start is expected to take still; TB_GPU_POLL_NONE when
 * unavailable, with *why set. */
typedef enum { TB_GPU_POLL_READY, TB_GPU_POLL_STARTING, TB_GPU_POLL_NONE } tb_gpu_poll_t;
TB_HIDDEN tb_gpu_poll_t tb_gpu_poll(tb_reason *why, double *left, double cpu_s);
/* Rent or buy: 1 when a start is due, the GPU's calls having spent owed_s
 * on the CPU so far and this one about to spend cpu_s (pure, for tests). */
TB_HIDDEN int tb_start_due(double owed_s, double cpu_s);
/* Waits at most `limit` seconds for a start under way to end; then as
 * tb_gpu_poll. */
TB_HIDDEN tb_gpu_poll_t tb_gpu_wait(double limit, tb_reason *why);
/* Runs the product on the GPU (pipeline.c). Returns TB_STAGE_NONE on
 * success, with C written; otherwise the stage that failed, and t->done_*
 * say which part of C is already final (none of it, unless the failure came
 * while results were streaming back); the rest of C is untouched. */
TB_HIDDEN tb_stage tb_gpu_gemm(const tb_problem *p, tb_gpu_times *t);
/* The same on device slot `slot` alone (-1: any). */
TB_HIDDEN tb_stage tb_gpu_gemm_on(int slot, const tb_problem *p, tb_gpu_times *t);
/* The device slots that are on: their numbers in ids[], the flop/s their
 * parts of calls measured in speed[] (0: not yet); 0 slots before CUDA runs
 * or when the GPU path is off (gpu.c, never starts CUDA). */
TB_HIDDEN int tb_gpu_slots(int ids[TB_MAX_DEVICES], double speed[TB_MAX_DEVICES]);
/* A part of a call ran at flops on slot `slot`. */
TB_HIDDEN void tb_gpu_note_speed(int slot, double flops);
/* The start's steps for start.c: tb_gpu_begin(go) returns 1 to the one
 * caller that moves the state from untried to starting (that caller then
 * runs tb_gpu_start, on whatever thread); with go 0 it only finds out
 * whether a driver is there at all (none: unavailable at once, no thread);
 * tb_gpu_start starts CUDA and wakes
 * whoever waits in tb_gpu_available; tb_gpu_state_now says, never
 * blocking, 1 ready, 0 untried or starting, -1 unavailable (*why set). */
TB_HIDDEN int tb_gpu_begin(int go);
TB_HIDDEN void tb_gpu_start(void);
TB_HIDDEN int tb_gpu_state_now(tb_reason *why);
/* Pinned staging for the first calls, and the default kernels' code, made
 * ready ahead (pipeline.c; start.c's thread calls them once CUDA runs). */
TB_HIDDEN void tb_gpu_warm(void);
TB_HIDDEN void tb_gpu_load_kernels(const int *stop);
/* Why the GPU path is unavailable, in words (e.g. the CUDA error). */
TB_HIDDEN const char *tb_gpu_detail(void);
/* Called in a child after fork(). */
TB_HIDDEN void tb_gpu_forked_child(void);
/* Device bytes held in idle lanes' buffers and free on the device; -1 when
 * CUDA has not started. */
TB_HIDDEN int tb_gpu_memory(size_t *held, size_t *free_b);
/* 1: large unpacks into the caller's arrays use streaming stores
 * (staging.c); benchmarks flip it. */
extern int tb_copy_nontemporal TB_HIDDEN;
/* Device name etc. for info; returns 0 when no device (starts CUDA). */
TB_HIDDEN int tb_gpu_describe(char *buf, size_t len);
/* Like tb_gpu_describe but never starts CUDA; 0 when not running. */
TB_HIDDEN int tb_gpu_describe_if_started(char *buf, size_t len);

/* ---- Functions in cpu/realblas.c: the BLAS the program loaded ---- */
/* 1 while this thread is inside the real BLAS (a call that arrives then is
 * the real BLAS calling itself, and goes straight through). */
TB_HIDDEN int tb_inside_real_blas(void);
/* The real BLAS's symbol of the entry's own name, or NULL. */
TB_HIDDEN void *tb_real_symbol(tb_entry_id id);
/* The real BLAS's symbol behind a name only passed on (TB_FORWARDED), or
 * NULL (said once). */
TB_HIDDEN void *tb_real_forwarded(tb_forwarded_id id);
/* The width of the integers an entry's names take: its family's, or for
 * the plain names that of the BLAS behind them (an ILP64 OpenBLAS under
 * the plain names: 8), found out once by asking that BLAS; 0 when it
 * cannot be told; 4 when no BLAS is there (the built-in CPU GEMM). */
TB_HIDDEN int tb_real_width(const tb_entry *e);
/* Forwards the call, unchanged, to the real BLAS's symbol of the name the
 * caller called: every argument as it came. */
TB_HIDDEN void tb_forward(const tb_call *c);
/* Runs a row-major problem (or part of one) on the real BLAS. */
TB_HIDDEN void tb_forward_problem(const tb_problem *p);
/* Name of the library the real BLAS came from, for info/stats. */
TB_HIDDEN const char *tb_real_blas_path(void);
/* The CPU BLAS behind us: "OpenBLAS 0.3.21 (core Cooperlake, ...) at PATH".
 * *warn gets a line of advice (e.g. OPENBLAS_CORETYPE) or "". Returns 1
 * when the library was identified. */
TB_HIDDEN int tb_cpu_blas_describe(char *buf, size_t len, char *warn, size_t wlen);

/* ---- Functions in cpugemm.c: the built-in CPU GEMM, used by realblas.c
 * when no CPU BLAS can be found ---- */
/* Computes the row-major problem on this thread, cache-blocked. Reads no C
 * when beta is 0, no A or B when alpha or k is 0; does nothing when m or n
 * is 0. */
TB_HIDDEN void tb_cpu_gemm(const tb_problem *p);
/* Checks the caller's call as the BLAS does: when an argument is illegal,
 * writes the BLAS's report on stderr (" ** On entry to SGEMM  parameter
 * number  8 had an illegal value" for sgemm_, the reference CBLAS's
 * "Parameter 9 to routine cblas_sgemm  was incorrect" for cblas_sgemm; the
 * routine's own name for every other) and returns -1; a legal call of a
 * routine the built-in GEMM does not compute (all but real gemm) returns
 * 1; otherwise fills *p with the call as a row-major problem and returns
 * 0. */
TB_HIDDEN int tb_cpu_gemm_check(const tb_call *c, tb_problem *p);

/* ---- Functions in pool.c: worker threads for host-side copies ---- */
typedef void (*tb_pool_fn)(void *arg, int part, int parts);
/* Runs fn(arg, i, parts) for i in 0..parts-1 on the pool and the caller;
 * returns when all parts are done. */
TB_HIDDEN void tb_pool_run(tb_pool_fn fn, void *arg, int parts);
/* Threads that work on a job, the caller included (starts the pool). */
TB_HIDDEN int tb_pool_size(void);
TB_HIDDEN void tb_pool_rest(void);

/* ---- Functions in util.c ---- */
TB_HIDDEN double tb_now(void);        /* monotonic seconds */

/* ---- Functions in stats.c and trace.c: what tb_account feeds ---- */
enum { TB_ONCE_TRACE = 40, TB_ONCE_STATS = 41, TB_ONCE_VERIFY = 42,
       TB_ONCE_VERIFY_QUIRK = 43, TB_ONCE_TRACE_MAX = 44, TB_ONCE_STATS_WRITE = 45 };
/* Adds one finished call to the per-route table and the verify verdict
 * (account.c calls it when TILEDBLAS_STATS is set or the mode is verify);
 * the report is written at exit by a destructor in stats.c. */
TB_HIDDEN void tb_stats_record(const tb_record *r);
/* Writes one JSON line for the call to TILEDBLAS_TRACE (opened on first
 * use, appended to; one write() per line, so lines never mix). */
TB_HIDDEN void tb_trace_record(const tb_record *r);
/* s as a JSON string, quotes included, cut to fit dst (trace.c). */
TB_HIDDEN void tb_json_string(char *dst, size_t len, const char *s);

/* ---- Functions in info.c: the text of tiledblas_info ---- */
TB_HIDDEN int tb_info_text(char *buf, size_t len);
/* The device, or why there is none, in words for a user (starts CUDA). */
TB_HIDDEN int tb_gpu_describe_for_user(char *buf, size_t len);

#endif
