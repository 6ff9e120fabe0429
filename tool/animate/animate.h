/* tool/animate/animate.h - `tiledblas animate` and the result plots: the table
 * of contents of src/animate/. Only cmd.c talks to the library (through
 * include/tiledblas.h); everything else takes kernel geometry as a plain
 * struct, so tests link these files without CUDA. */
#ifndef TB_ANIMATE_H
#define TB_ANIMATE_H

#include <stdio.h>

/* ---- Kernel geometry, copied out of tiledblas_kernel_desc ------------- */
typedef struct tb_anim_geom {
    char name[48];
    char summary[160];
    int block_m, block_n, block_k;   /* C tile of one thread block, K step  */
    int warp_m, warp_n;              /* C tile of one warp (0: not tiled)   */
    int thread_m, thread_n;          /* C micro-tile of one thread          */
    int threads;                     /* threads per block                   */
} tb_anim_geom;

/* ---- One intercepted call read back from a TILEDBLAS_TRACE file -------- */
enum {
    TB_TR_M = 1u << 0, TB_TR_N = 1u << 1, TB_TR_K = 1u << 2,
    TB_TR_ROUTE = 1u << 3, TB_TR_TIMES = 1u << 4, TB_TR_BYTES = 1u << 5,
    TB_TR_LD = 1u << 6, TB_TR_SECONDS = 1u << 7
};

typedef struct tb_trace_call {
    int index;                       /* 1-based position among parsed calls */
    double t;
    long thread;
    char api[32], layout[16], transa[4], transb[4];
    long m, n, k, lda, ldb, ldc;
    double alpha, beta;
    char route[8];                   /* "gpu" or "cpu"                      */
    char reason[160];
    char kernel[48];
    double seconds, h2d_s, kernel_s, d2h_s;
    double bytes_h2d, bytes_d2h;
    unsigned have;                   /* TB_TR_* fields present in the line  */
} tb_trace_call;

/* ---- The schedule: what the kernel's grid does for one M, N, K --------- */
typedef struct tb_anim_sched {
    tb_anim_geom g;
    long m, n, k;
    long grid_x, grid_y;             /* blocks along N and along M          */
    long phases;                     /* ceil(K / block_k)                   */
    long thr_y, thr_x;               /* threads per block along M and N     */
} tb_anim_sched;

/* What one block loads in one phase, with the ragged edges worked out. */
typedef struct tb_anim_tile {
    long row0, col0, k0;             /* first row of C, column of C, K index */
    long rows, cols, ks;             /* how many of each lie inside M, N, K  */
    long a_pad, b_pad;               /* zeros loaded into As and Bs          */
    long c_skip;                     /* tile elements outside C (not written) */
} tb_anim_tile;

/* One step of the animation; the HTML counter and the SVG timing share it. */
enum tb_step_kind {
    TB_STEP_ROUTE, TB_STEP_BUFFERS, TB_STEP_H2D, TB_STEP_INTRO, TB_STEP_LOAD,
    TB_STEP_BARRIER1, TB_STEP_COMPUTE, TB_STEP_BARRIER2, TB_STEP_SKIP,
    TB_STEP_WRITE, TB_STEP_D2H, TB_STEP_CPU
};

typedef struct tb_anim_step {
    enum tb_step_kind kind;
    long phase;                      /* -1 when the step has no phase       */
    double t0, dur;                  /* seconds on the animation clock      */
    char label[320];
} tb_anim_step;

#define TB_ANIM_MAX_STEPS 64

/* Everything one drawing needs: the schedule, whom to follow, the call. */
typedef struct tb_anim_view {
    tb_anim_sched s;
    long bx, by;                     /* blockIdx.x, blockIdx.y followed     */
    long ty, tx;                     /* thread (row, column) in the block   */
    const tb_trace_call *call;       /* NULL: no trace                      */
    tb_anim_step steps[TB_ANIM_MAX_STEPS];
    int nsteps;
    double total;                    /* length of one loop, seconds         */
} tb_anim_view;

/* ---- Functions in model.c --------------------------------------------- */
/* Checks the geometry (positive, micro-tiles divide the tiles); returns 0,
 * or -1 with a reason in err. */
int tb_anim_geom_check(const tb_anim_geom *g, char *err, size_t errlen);
/* Fills *s for an m x n x k product (m, n >= 1, k >= 0); 0 or -1 + err. */
int tb_anim_sched_init(tb_anim_sched *s, const tb_anim_geom *g,
                       long m, long n, long k, char *err, size_t errlen);
long tb_anim_blocks(const tb_anim_sched *s);
/* What block (bx, by) loads in phase ph (ph may be -1: C tile only). */
void tb_anim_tile_at(const tb_anim_sched *s, long bx, long by, long ph,
                     tb_anim_tile *t);
/* Zeros loaded over the whole grid and all phases, and C elements skipped. */
void tb_anim_padding(const tb_anim_sched *s, long *a_pad, long *b_pad,
                     long *c_skip);
/* Defaults: the last block when M or N is ragged (it touches every ragged
 * edge), else the middle one; a thread inside C near the middle of the
 * block's valid part. */
void tb_anim_default_block(const tb_anim_sched *s, long *bx, long *by);
void tb_anim_default_thread(const tb_anim_sched *s, long bx, long by,
                            long *ty, long *tx);
/* The phases drawn one by one: all when few, else the first three and the
 * last (which holds the ragged K edge); returns how many, fills out[]. */
int tb_anim_shown_phases(long phases, long *out, int max);
/* Builds view->steps from view->s, the block, the thread and view->call. */
void tb_anim_build_steps(tb_anim_view *v);
const char *tb_anim_step_name(enum tb_step_kind kind);

/* ---- Functions in trace.c --------------------------------------------- */
/* Reads call number `which` (1-based; 0 = the first call routed to the
 * GPU, else the first) from a JSON-lines trace. Malformed lines are skipped
 * and counted in *skipped. Returns 0, or -1 with a reason in err. */
int tb_trace_read(const char *path, int which, tb_trace_call *out,
                  int *skipped, char *err, size_t errlen);
/* Parses one line; returns 0, or -1 if it is not a flat JSON object. */
int tb_trace_parse_line(const char *line, tb_trace_call *out);

/* ---- Functions in svg.c / svg_draw.c ---------------------------------- */
/* Writes one animated SVG. loop != 0: SMIL loops forever on its own (the
 * stand-alone file); loop == 0: plays once, for the page's controls. idp
 * prefixes every id so that several SVGs can share one HTML page. */
int tb_anim_write_svg(FILE *f, const tb_anim_view *v, int loop, const char *idp);

/* ---- Functions in html.c ---------------------------------------------- */
/* Writes the page: one SVG per view (one per kernel), the schedule of each
 * as JSON, and the controls. `first` is the view shown on load. */
int tb_anim_write_html(FILE *f, const tb_anim_view *views, int nviews, int first);

/* ---- Functions in cli.c ----------------------------------------------- */
/* The whole subcommand with the kernels given as a table (tests pass their
 * own). Returns 0, 1 on a failure to write, 2 on bad usage. */
int tb_animate_main(int argc, char **argv, const tb_anim_geom *kernels, int nkernels);

/* ---- Functions in cmd.c (the only file that needs libtiledblas) ------- */
int tb_cmd_animate(int argc, char **argv);

/* ---- Functions in plot.c ---------------------------------------------- */
/* Draws GFLOP/s against size from a CSV (header, then series,size,gflops)
 * with gnuplot; the terminal follows out_path's extension (.png, .svg).
 * Returns 0, or -1 with a "tiledblas: " message on stderr. */
int tb_plot_csv(const char *csv_path, const char *out_path, const char *title);
/* A bar chart of n labelled values (e.g. the wall time of each `ab` run),
 * PNG or SVG by out_path's extension. Returns 0, or -1 with a message. */
int tb_plot_bars(const char *out_path, const char *title, const char *ylabel, int n,
                 const char *const *labels, const double *values);

#endif
