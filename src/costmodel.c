/* src/costmodel.c - predicts how long a call takes on each route, so that the
 * dispatcher sends it where it finishes first. Times are fixed costs plus
 * bytes over link rates plus flops over compute rates. The built-in rates
 * were measured on the H200 machine; calibrate.c replaces them with this
 * machine's own (README "How the GPU/CPU decision is made"). */
#include "tb_internal.h"
#include "tb_kernels.h"
#include <math.h>
#include <pthread.h>
#include <string.h>

/* Measured with scripts/gpu_check.sh on the H200 machine (bench_e2e and
 * its 40-shape sweep, OpenBLAS 0.3.21 SkylakeX on 16 threads, the tf32x3
 * kernel, transfers staged through pinned memory by the copy threads). */
static const tb_rates tb_default_rates = {
    .cpu_flops = 1.0e12,      /* OpenBLAS sgemm, 16 threads (1024..16384)    */
    .cpu_fixed_s = 70e-6,     /* its per-call cost on many threads (256^3)   */
    .cpu_core_flops = 135e9,  /* one core: small calls run single-threaded   */
    .gpu_flops = 42e12,       /* the default kernel at 4096..16384           */
    .h2d_bps = 25e9,          /* pageable -> pinned staging -> device, and    */
    .d2h_bps = 25e9,          /* back: 256 MB of C came back in 9.3 ms       */
    .gpu_fixed_s = 65e-6,     /* a small call: 58-63 us (session 9)           */
    .thin_dim = 256.0,        /* see tb_predict                              */
    .cpu_c_bps = 55e9,        /* 8192x8192x16: 7.1 ms, 4.9 of them for C      */
};

static const tb_rates *tb_rates_now = &tb_default_rates;

const tb_rates *tb_rates_get(void)
{
    return __atomic_load_n(&tb_rates_now, __ATOMIC_ACQUIRE);
}

const tb_rates *tb_rates_builtin(void)
{
    return &tb_default_rates;
}

/* r must live for the rest of the process (calibrate.c keeps it static). */
void tb_rates_publish(const tb_rates *r)
{
    __atomic_store_n(&tb_rates_now, r, __ATOMIC_RELEASE);
}

/* The seed kernel, which small products run on (kernels/registry.c): a
 * launch, then a chain of K/16 phases, each a load and two barriers, or
 * its arithmetic, whichever is longer. bench_kernels on the H200 (session
 * 9): 64x64x2048, 128 phases, 0.055 ms; 300x100x2000 0.057; 128x128x1024
 * and 32x32x1024, 64 phases, 0.031 and 0.030; 450^3, bound by arithmetic,
 * 0.039 ms at 4.7 TFLOP/s. */
#define TB_SEED_LAUNCH_S 5e-6
#define TB_SEED_PHASE_S 0.4e-6
#define TB_SEED_FLOPS 5.5e12

double tb_seed_kernel_s(int k, double flop)
{
    double phases = (k + 15) / 16 * TB_SEED_PHASE_S, arith = flop / TB_SEED_FLOPS;
    return TB_SEED_LAUNCH_S + (phases > arith ? phases : arith);
}

/* Small products go in one piece, a panel's fixed costs would dominate;
 * larger ones in 4 panels of rows, the largest in 8 (before gpu.c's device
 * memory cap thins them further). */
int tb_panel_count(const tb_problem *p)
{
    const double work = (double)p->m * p->n * p->k;
    return work < 256.0 * 1024 * 1024 ? 1 : work < 2e9 ? 4 : 8;
}

/* The GPU path (gpu.c) uploads op(B) first, then streams panels of A in
 * and panels of C out while the kernel computes the panels before them:
 * B's upload is paid in full, then the slower of the streaming and the
 * compute followed by the last panel's way back. (Until session 8 the last
 * panel was added after the streaming as well, where the streaming already
 * holds it: 10000x10000x8, all C's bytes, was predicted 11.8 ms on the
 * GPU and took 9.3, and auto mode kept it on a CPU that took 10.6-16.) With
 * one panel nothing overlaps: A in, the kernel, C out, one after another. */
double tb_predict(const tb_problem *p, double *cpu_s, double *gpu_s)
{
    const tb_rates *r = tb_rates_get();
    double f[2];
    tb_predict_with(r, p, cpu_s, gpu_s);
    const double known = tb_grid_factor(r, p, f);
    *cpu_s *= f[TB_ROUTE_CPU];
    *gpu_s *= f[TB_ROUTE_GPU];
    return known;
}

void tb_predict_with(const tb_rates *r, const tb_problem *p, double *cpu_s, double *gpu_s)
{
    double m = p->m, n = p->n, k = p->k, flop = 2.0 * m * n * k;
    int reads_ab = p->k > 0 && p->alpha != 0.0f;
    double b_in = reads_ab ? 4.0 * k * n : 0.0;
    double a_in = (reads_ab ? 4.0 * m * k : 0.0) + (p->beta != 0.0f ? 4.0 * m * n : 0.0);
    double c_out = 4.0 * m * n;
    double panels = tb_panel_count(p);
    double stream = a_in / r->h2d_bps + c_out / r->d2h_bps, compute = flop / r->gpu_flops;
    if (panels == 1.0 && tb_kernel_small(p->m, p->n, p->k))
        compute = tb_seed_kernel_s(p->k, flop);
    double tail = c_out / panels / r->d2h_bps;
    double body = panels > 1.0 ? (stream > compute + tail ? stream : compute + tail) : stream + compute;
    *gpu_s = r->gpu_fixed_s + b_in / r->h2d_bps + body;
    /* OpenBLAS runs small calls on one core and large ones on all of them;
     * it is about as fast as the better of the two. On all cores it slows
     * down when C is thin: in the 40-shape sweep 64x4096x4096 took 5.2 ms,
     * 100000x64x64 8.1 ms and 128x128x100000 13.7 ms, 2-9 times what their
     * flops at 1 TFLOP/s say; scaling by min(m, n) / 256 follows that
     * (thin_dim: 256 built in, fitted by calibrate.c). When K is small,
     * C's memory traffic, not the flops, sets the pace:
     * 8192x8192x16 took 7.1 ms where its flops say 2.2 ms, 256 MB of C at
     * 55 GB/s beside the flops (cpu_c_bps, fitted by calibrate.c on
     * 4096x4096x8). The two add up: OpenBLAS first scales C by beta in a
     * pass of its own, then multiplies. (Taking the slower of the two, as
     * an earlier version did, predicted 1.6 ms for 4096x4096x32, which
     * took 2.2-2.5 ms on the H200 machine, and 0.35 ms for 1500x1500x64,
     * which took 0.52-0.67; the sum says 2.3 and 0.55.) */
    double thin = (m < n ? m : n) / r->thin_dim;
    double cpu_memory = c_out / r->cpu_c_bps;
    /* One core writes C too: 4000x4000x1 (64 MB of C) was predicted 0.24
     * ms from its flops alone and took 1.1-1.6 (session 9). */
    double one_core = flop / r->cpu_core_flops + cpu_memory;
    double cpu_compute = flop / (r->cpu_flops * (thin < 1.0 ? thin : 1.0));
    double all_cores = r->cpu_fixed_s + cpu_compute + cpu_memory;
    *cpu_s = one_core < all_cores ? one_core : all_cores;
}

/* ---- The small-call grid ----------------------------------------------------
 *
 * Where a call takes 0.05-1 ms the two routes are close, and the formulas
 * above are least sure: OpenBLAS changes its thread count and its split of
 * the work with the shape, and over the sweeps of sessions 8 and 9 small
 * calls ran at 0.53 (64x1024x128) to 1.9 (200x200x400) times the CPU's
 * formula and 0.75 to 1.25 times the GPU's. One call per route and class
 * to find out costs more than a call: an OpenBLAS call slows the GPU calls
 * after it for 0.1 s (dispatch.c). So calibrate.c measures both routes,
 * once per machine, at the shapes of a grid: m and n every power of 2 from
 * 32 to 4096, k every power of 4 from 1 to 4096, where 2^20 <= mnk <= 2^28
 * (259 shapes). A call inside the grid's box is predicted by the formulas
 * times measured / formula, interpolated in log2 m, log2 n and log2 k
 * between the 8 grid shapes around it, in logarithms. A shape that was not
 * measured (beyond the grid's mnk range) counts as 1, so the correction
 * fades out at the grid's edge instead of carrying a corner's far. */

int tb_grid_wanted(int i, int j, int l)
{
    const int lg = 10 + i + j + 2 * l;
    return i >= 0 && i < TB_GRID_MN && j >= 0 && j < TB_GRID_MN && l >= 0 && l < TB_GRID_K &&
           lg >= TB_GRID_MIN_LOG && lg <= TB_GRID_MAX_LOG;
}

tb_problem tb_grid_shape(int i, int j, int l, const float *A, const float *B, float *C)
{
    const int m = 32 << i, n = 32 << j, k = 1 << 2 * l;
    return (tb_problem){m, n, k, 0, 0, 1.0f, 0.0f, A, (size_t)k, B, (size_t)n, C, (size_t)n};
}

/* No shape keeps a time above that of a shape larger in one dimension: a
 * product smaller in every dimension does not take longer, so such a time
 * was disturbed (in session 10's first calibration 32x2048x256 took 0.34 ms
 * on the CPU, 64x2048x256 0.18). Larger neighbours are settled first. */
void tb_grid_monotone(tb_rates *r, int route)
{
    float (*g)[TB_GRID_MN][TB_GRID_K] = r->grid[route];
    for (int i = TB_GRID_MN - 1; i >= 0; i--)
        for (int j = TB_GRID_MN - 1; j >= 0; j--)
            for (int l = TB_GRID_K - 1; l >= 0; l--) {
                if (!tb_grid_wanted(i, j, l))
                    continue;
                if (tb_grid_wanted(i + 1, j, l))
                    g[i][j][l] = fminf(g[i][j][l], g[i + 1][j][l]);
                if (tb_grid_wanted(i, j + 1, l))
                    g[i][j][l] = fminf(g[i][j][l], g[i][j + 1][l]);
                if (tb_grid_wanted(i, j, l + 1))
                    g[i][j][l] = fminf(g[i][j][l], g[i][j][l + 1]);
            }
}

/* A grid shape's say is held to 4x either way: one disturbed measurement
 * must not turn the decision around for a whole region. */
#define TB_GRID_CLAMP 1.3862943611198906   /* log(4) */

static double tb_clamp_log(double x)
{
    return x > TB_GRID_CLAMP ? TB_GRID_CLAMP : x < -TB_GRID_CLAMP ? -TB_GRID_CLAMP : x;
}

double tb_grid_factor(const tb_rates *r, const tb_problem *p, double f[2])
{
    f[0] = f[1] = 1.0;
    if (p->m <= 0 || p->n <= 0 || p->k <= 0)
        return 0.0;
    const double x = log2(p->m) - 5.0, y = log2(p->n) - 5.0, z = log2(p->k) / 2.0;
    if (!(x >= 0.0 && x <= TB_GRID_MN - 1 && y >= 0.0 && y <= TB_GRID_MN - 1 && z >= 0.0 &&
          z <= TB_GRID_K - 1))
        return 0.0;
    /* The cell's lower corner; on the box's upper face, the cell below it. */
    const int i0 = x < TB_GRID_MN - 1 ? (int)x : TB_GRID_MN - 2;
    const int j0 = y < TB_GRID_MN - 1 ? (int)y : TB_GRID_MN - 2;
    const int l0 = z < TB_GRID_K - 1 ? (int)z : TB_GRID_K - 2;
    const double fx = x - i0, fy = y - j0, fz = z - l0;
    double lg[2] = {0.0, 0.0}, known = 0.0;
    for (int c = 0; c < 8; c++) {
        const int i = i0 + (c & 1), j = j0 + (c >> 1 & 1), l = l0 + (c >> 2);
        const double w = (c & 1 ? fx : 1.0 - fx) * (c & 2 ? fy : 1.0 - fy) * (c & 4 ? fz : 1.0 - fz);
        const double tc = r->grid[TB_ROUTE_CPU][i][j][l], tg = r->grid[TB_ROUTE_GPU][i][j][l];
        if (!(w > 0.0) || !(tc > 0.0) || !(tg > 0.0))
            continue;
        const tb_problem q = tb_grid_shape(i, j, l, NULL, NULL, NULL);
        double pc, pg;
        tb_predict_with(r, &q, &pc, &pg);
        lg[TB_ROUTE_CPU] += w * tb_clamp_log(log(tc / pc));
        lg[TB_ROUTE_GPU] += w * tb_clamp_log(log(tg / pg));
        known += w;
    }
    f[0] = exp(lg[0]);
    f[1] = exp(lg[1]);
    return known;
}

/* ---- Learning from the calls themselves ----------------------------------
 *
 * A few calibration calls cannot know every shape: OpenBLAS ran 100000x64x64
 * at a single core's speed, 3.5 times slower than the model said, while
 * 64x100000x64 ran at twice that. So auto mode times every call it weighed
 * and keeps, per shape class (m, n and k rounded down to powers of two, the
 * transposes, beta = 0 or not), the fastest time seen on each route over the
 * model's own prediction for that call. Once a route has taught twice in a
 * class and ran more than 20% away from the model, the prediction for that
 * route in that class is scaled by what was seen. Once both routes are
 * believed, both are scaled however close to the model: two measured times
 * decide, not a measured one against a prediction (session 11: 160^3 ran
 * 1.16x its CPU prediction and 0.87x its GPU one, each within 20%, and the
 * model kept it on the slower CPU). A class the model sent the
 * wrong way is thus sent the other way from its third call on; the other
 * route is then believed after one call, and measured times decide (on the
 * H200 machine 700x200x900 ran 2.8 times the model's time on the GPU and
 * 2.1 times on the CPU: one CPU call, not two, to find the GPU faster).
 * The fastest, not the average: a disturbance makes a call slower, never
 * faster. A GPU call that allocated device or pinned memory does not
 * teach: the next one will not pay for that. (Leaving out every route's
 * first call in a class as well, for OpenBLAS threads waking and kernels
 * loading, was tried on the H200 machine: it learned a call later, and in a
 * 40-shape sweep of six calls per shape that cost more than it saved.)
 * Lock-free readers are not needed: the calls weighed here take 0.1 ms and
 * more, and a trylock never blocks (nor deadlocks in a child forked while
 * another thread held it: that child just stops learning). */

#define TB_LEARN_SLOTS 512
#define TB_LEARN_PROBES 8
#define TB_LEARN_BAND 1.2

typedef struct tb_learn_slot {
    unsigned key;             /* 0: empty */
    unsigned seen[2];         /* calls that taught, per route (TB_ROUTE_CPU, _GPU) */
    double best[2];           /* the fastest of them over the model's time   */
    unsigned since;           /* calls since the slower route last ran (recheck) */
    unsigned every;           /* recheck after this many; 0: not yet set     */
} tb_learn_slot;

static tb_learn_slot tb_learn_tab[TB_LEARN_SLOTS];
static pthread_mutex_t tb_learn_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned tb_ilog2(int x)
{
    unsigned l = 0;
    while (x > 1 && l < 31) {
        x >>= 1;
        l++;
    }
    return l;
}

unsigned tb_learn_key(const tb_problem *p)
{
    return 1u + (tb_ilog2(p->m) | tb_ilog2(p->n) << 5 | tb_ilog2(p->k) << 10 |
                 (unsigned)(p->transa != 0) << 15 | (unsigned)(p->transb != 0) << 16 |
                 (unsigned)(p->beta != 0.0f) << 17);
}

/* The slot of key, or a free one for it (create), or NULL. Lock held. */
static tb_learn_slot *tb_learn_find(unsigned key, int create)
{
    unsigned h = (key * 2654435761u) >> 7;
    for (int i = 0; i < TB_LEARN_PROBES; i++) {
        tb_learn_slot *s = &tb_learn_tab[(h + (unsigned)i) % TB_LEARN_SLOTS];
        if (s->key == key)
            return s;
        if (s->key == 0) {
            if (!create)
                return NULL;
            memset(s, 0, sizeof *s);
            s->key = key;
            return s;
        }
    }
    return NULL;   /* full around here: this class is not learned */
}

int tb_learn_adjust(const tb_problem *p, double *cpu_s, double *gpu_s, unsigned *tried)
{
    if (tried)
        *tried = 0;
    if (pthread_mutex_trylock(&tb_learn_lock) != 0)
        return 0;
    int used = 0;
    const tb_learn_slot *s = tb_learn_find(tb_learn_key(p), 0);
    for (int r = 0; s && tried && r < 2; r++)
        *tried |= (s->seen[r] > 0 ? 1u << r : 0u) | (s->seen[r] >= 2 ? 4u << r : 0u);
    double *pred[2] = {cpu_s, gpu_s};
    /* Two calls make a route's time believed; once one route is, a single
     * call of the other is enough: each more call of the slower route
     * costs. One disturbed call can then hold a class on the wrong route,
     * until tb_learn_recheck runs the other again. */
    int believed[2] = {s && s->seen[0] >= 2, s && s->seen[1] >= 2};
    for (int r = 0; r < 2; r++)
        believed[r] = believed[r] || (s && s->seen[r] >= 1 && believed[1 - r]);
    const int both = believed[0] && believed[1];
    for (int r = 0; s && r < 2; r++)
        if (believed[r] && (both || s->best[r] > TB_LEARN_BAND || s->best[r] < 1.0 / TB_LEARN_BAND)) {
            *pred[r] *= s->best[r];
            used = 1;
        }
    pthread_mutex_unlock(&tb_learn_lock);
    return used;
}

/* Re-checking the slower route. Only the fastest time of a route counts, so
 * a route whose calls were all disturbed looks slower than it is, and once
 * measured slower it would never run again in this process. So in a class
 * where both routes have run and the slower one is predicted within
 * TB_RECHECK_SPAN of the faster, one call in `every` takes it again: 16 at
 * first, doubling after each re-check up to 1024, so a steady program pays
 * for it less and less (at most 1/16 of its calls, each at most 2 times
 * slower, then half that, ...). 2x: the disturbed calls seen on the H200
 * machine, the first ones after CUDA starts, ran 1.4-2 times slow. A
 * re-check that finds the slower route now faster turns the class over by
 * itself: its best time drops. */
#define TB_RECHECK_FIRST 16
#define TB_RECHECK_LAST 1024
#define TB_RECHECK_SPAN 2.0
/* A route judged on two calls or fewer gets one more chance up to 4x: in
 * session 10's sweep the first two CPU calls of 64x1024x128 in one process,
 * right after CUDA started, took 0.21 ms where OpenBLAS takes 0.066, and
 * the class stayed on a GPU taking 0.088 for its 200 calls. One re-check
 * costs at most one call 4x slow; it makes three calls, and the 2x span
 * holds again. */
#define TB_RECHECK_SPAN_FEW 4.0
#define TB_RECHECK_FEW 2

int tb_learn_recheck(const tb_problem *p, tb_route chosen, double chosen_s, double other_s)
{
    const int c = chosen == TB_ROUTE_GPU, o = !c;
    if (!(other_s <= TB_RECHECK_SPAN_FEW * chosen_s) || pthread_mutex_trylock(&tb_learn_lock) != 0)
        return 0;
    int now = 0;
    tb_learn_slot *s = tb_learn_find(tb_learn_key(p), 0);
    const double span = s && s->seen[o] <= TB_RECHECK_FEW ? TB_RECHECK_SPAN_FEW : TB_RECHECK_SPAN;
    if (s && s->seen[c] > 0 && s->seen[o] > 0 && other_s <= span * chosen_s) {
        if (s->every == 0)
            s->every = TB_RECHECK_FIRST;
        if (++s->since >= s->every) {
            now = 1;
            s->since = 0;
            if (s->every < TB_RECHECK_LAST)
                s->every *= 2;
        }
    }
    pthread_mutex_unlock(&tb_learn_lock);
    return now;
}

void tb_learn_record(const tb_problem *p, tb_route route, double seconds, double model_s)
{
    const int r = route == TB_ROUTE_GPU;
    const double ratio = seconds / model_s;
    if (!(ratio > 0.0) || ratio > 1e6)
        return;
    if (pthread_mutex_trylock(&tb_learn_lock) != 0)
        return;
    tb_learn_slot *s = tb_learn_find(tb_learn_key(p), 1);
    if (s) {
        if (s->seen[r] == 0 || ratio < s->best[r])
            s->best[r] = ratio;
        if (s->seen[r] < 1000000)
            s->seen[r]++;
    }
    pthread_mutex_unlock(&tb_learn_lock);
}

void tb_learn_forget(void)
{
    pthread_mutex_lock(&tb_learn_lock);
    memset(tb_learn_tab, 0, sizeof tb_learn_tab);
    pthread_mutex_unlock(&tb_learn_lock);
}
