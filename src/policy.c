/* src/policy.c - the one place that decides GPU or CPU, and says why (a
 * tb_reason; their words are in reason.c). It owns the three rules of auto
 * mode and what each shape class has measured of its own calls. It never
 * runs a product and never accounts one: dispatch.c does both around it. */
#include "tb_internal.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* ---- What each shape class measured ---------------------------------------
 *
 * A class keeps, per route, how many of its calls were measured there and
 * the last TB_KEEP of them, each as a ratio to the model's time for that
 * call. Their lower median is the route's measured ratio: what a call of
 * the route typically costs the program, as the benches time it (a median
 * of calls), undisturbed by a few slow calls (threads waking, another
 * process) and not taken in by a few fast ones. The fastest alone was
 * taken in: 2048x2048x2's GPU calls took 0.59-0.75 ms in one process, its
 * CPU calls 0.63-0.90 (median 0.68), and on its fastest call the class
 * stayed on a GPU 1.23x slower than the CPU in the sweep. A route is
 * measured in a class once one of its calls was. A call is measured only
 * when the process's call before it (one the policy weighed) ran on the
 * same route: the first call after a switch pays for what the other route
 * left behind (rule 2 says what), and that belongs to neither route. Nor
 * is a GPU call that allocated measured, nor a call made while the GPU
 * starts.
 *
 * A ratio means something only against the rates it was taken under, and
 * the rates change once in a process: from the built-in ones to this
 * machine's, whose small-call grid moves a model time by up to 4x. So each
 * call kept keeps its seconds and its m, n, k too (the rest of a class's
 * shapes is the same), and a ratio taken under other rates than a
 * decision's is taken again under the decision's, from that call.
 * The table is small and fixed; a trylock never blocks a call (nor
 * deadlocks in a child forked while another thread held it: that child
 * just stops measuring). */

#define TB_CLASS_SLOTS 512
#define TB_CLASS_PROBES 8
#define TB_KEEP 8    /* calls kept per route: a median over 3 slow ones */

typedef struct tb_sample {
    double ratio;             /* seconds over the model's time under `rates` */
    const tb_rates *rates;
    double seconds;           /* the call's time ...                         */
    int m, n, k;              /* ... and its shape                           */
} tb_sample;

typedef struct tb_class {
    unsigned key;             /* 0: empty */
    unsigned seen[2];         /* calls that were measured, per route (at most TB_KEEP) */
    unsigned next[2];         /* where the next one goes in kept[route]      */
    tb_sample kept[2][TB_KEEP];   /* the last of them                        */
    unsigned since;           /* calls since the slower route last ran */
    unsigned every;           /* re-check after this many; 0: not yet set */
} tb_class;

/* The route of the process's last call that the policy weighed; -1: none. */
static int tb_last_route = -1;

static tb_class tb_classes[TB_CLASS_SLOTS];
static pthread_mutex_t tb_class_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned tb_ilog2(int x)
{
    unsigned l = 0;
    while (x > 1 && l < 31) {
        x >>= 1;
        l++;
    }
    return l;
}

unsigned tb_policy_class(const tb_problem *p)
{
    return 1u + (tb_ilog2(p->m) | tb_ilog2(p->n) << 5 | tb_ilog2(p->k) << 10 |
                 (unsigned)(p->transa != 0) << 15 | (unsigned)(p->transb != 0) << 16 |
                 (unsigned)(p->beta != 0.0) << 17 | (unsigned)(p->prec == TB_DOUBLE) << 18);
}

/* The slot of key, or a free one for it (create), or NULL. Lock held. */
static tb_class *tb_class_find(unsigned key, int create)
{
    unsigned h = (key * 2654435761u) >> 7;
    for (int i = 0; i < TB_CLASS_PROBES; i++) {
        tb_class *s = &tb_classes[(h + (unsigned)i) % TB_CLASS_SLOTS];
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
    return NULL;   /* full around here: this class is not measured */
}

/* Route r's measured ratio under rates: the lower median of the calls it
 * kept (p: a call of the class). Lock held. */
static double tb_measured_ratio(tb_class *s, int r, const tb_problem *p, const tb_rates *rates)
{
    double v[TB_KEEP];
    const unsigned n = s->seen[r];
    for (unsigned i = 0; i < n; i++) {
        tb_sample *x = &s->kept[r][i];
        if (x->rates != rates) {
            tb_problem q = *p;
            double model[2];
            q.m = x->m;
            q.n = x->n;
            q.k = x->k;
            tb_predict_at(rates, &q, &model[TB_ROUTE_CPU], &model[TB_ROUTE_GPU]);
            x->ratio = x->seconds / model[r];
            x->rates = rates;
        }
        unsigned j = i;   /* insertion into v[0..i], ascending */
        for (; j > 0 && v[j - 1] > x->ratio; j--)
            v[j] = v[j - 1];
        v[j] = x->ratio;
    }
    return v[(n - 1) / 2];
}

void tb_policy_record(const tb_problem *p, tb_route route, double seconds, double model_s,
                      const tb_rates *rates)
{
    const int r = route == TB_ROUTE_GPU;
    const double ratio = seconds / model_s;
    if (!(ratio > 0.0) || ratio > 1e6 || pthread_mutex_trylock(&tb_class_lock) != 0)
        return;
    tb_class *s = tb_class_find(tb_policy_class(p), 1);
    if (s) {
        s->kept[r][s->next[r]] = (tb_sample){.ratio = ratio, .rates = rates, .seconds = seconds,
                                             .m = p->m, .n = p->n, .k = p->k};
        s->next[r] = (s->next[r] + 1) % TB_KEEP;
        if (s->seen[r] < TB_KEEP)
            s->seen[r]++;
    }
    pthread_mutex_unlock(&tb_class_lock);
}

void tb_policy_forget(void)
{
    pthread_mutex_lock(&tb_class_lock);
    memset(tb_classes, 0, sizeof tb_classes);
    pthread_mutex_unlock(&tb_class_lock);
    __atomic_store_n(&tb_last_route, -1, __ATOMIC_RELAXED);
}

/* ---- The three rules ------------------------------------------------------
 *
 * 1. Take the route estimated faster by more than TB_MARGIN. An estimate is
 *    the model's time until the class has measured the route, then the
 *    measured one. 1.2: how far the model's time for a shape it was not
 *    fitted on lands from the clock at small and mid sizes (0.8-1.25x on
 *    the GPU, wider on the CPU, whose thread count changes with the shape).
 * 2. Inside the margin the class starts on the route the estimates put
 *    ahead (the GPU on a tie); then it tries the other route (two calls: the
 *    first, right after the other route, measures nothing), and from then
 *    on takes the faster measured one. The two ways round cost differently.
 *    A GPU call between CPU calls leaves them undisturbed, so a class on
 *    the CPU tries the GPU once its CPU is measured, ahead or not. A CPU
 *    call right after GPU calls wakes OpenBLAS's threads and is measured
 *    slow (3 of 6 such calls of 300^3 and 700x200x900 took 22-24 ms for a
 *    0.2-0.7 ms product on the H200 machine), and for about 0.1 s after it,
 *    while those threads poll for work, GPU calls whose copies use our copy
 *    threads run up to 2-3 times slower (8192x8192x16: 14-15 ms against
 *    7.6-8.1). So a class on the GPU tries the CPU only when the CPU's
 *    estimate is ahead of the GPU's measured time (the model put the class
 *    on the GPU and its calls then ran slower than it said: on the H200
 *    machine 900x900x30 and 2500x2500x6 stayed on a GPU 1.2-1.3 times
 *    slower than the CPU).
 * 3. A class on the CPU whose GPU is measured too, and within
 *    TB_RECHECK_SPAN of the CPU, re-checks the GPU, two calls in a row, once
 *    in `every` calls: 16 at first, doubling after each re-check up to
 *    1024, so that a steady program pays less and less for it (at most 2/16
 *    of its calls at first, each at most 4 times slower, then half of
 *    that, ...). One disturbed
 *    GPU measurement cannot then hold the class on the CPU: a re-check that
 *    runs faster moves the median down, and the class turns over by itself.
 *    4x: the disturbed measurements above ran up to 3 times slow. The CPU
 *    is not re-checked from the GPU: every re-check would pay the way back
 *    of rule 2.
 * With TILEDBLAS_LEARN=off nothing is measured and the faster estimate of
 * the model is taken. */
#define TB_MARGIN 1.2
#define TB_RECHECK_SPAN 4.0
#define TB_RECHECK_FIRST 16
#define TB_RECHECK_LAST 1024

void tb_policy_ran(tb_route route)
{
    __atomic_store_n(&tb_last_route, (int)route, __ATOMIC_RELAXED);
}

static const tb_reason tb_why_faster[2] = {TB_WHY_CPU_FASTER, TB_WHY_GPU_FASTER};
static const tb_reason tb_why_measured[2] = {TB_WHY_CPU_MEASURED, TB_WHY_GPU_MEASURED};
static const tb_reason tb_why_try[2] = {TB_WHY_CPU_TRY, TB_WHY_GPU_TRY};

/* Rule 3's turn: 1 when this call re-checks the GPU, which takes two calls
 * in a row (the first follows CPU calls: it measures nothing). Lock held. */
static int tb_recheck_due(tb_class *s)
{
    if (s->every == 0)
        s->every = TB_RECHECK_FIRST;
    if (++s->since < s->every)
        return 0;
    if (s->since > s->every) {     /* the re-check's second call: measured */
        s->since = 0;
        if (s->every < TB_RECHECK_LAST)
            s->every *= 2;
    }
    return 1;
}

tb_route tb_policy_choose(const tb_problem *p, const double model[2], const tb_rates *rates,
                          double est[2], tb_reason *why)
{
    est[TB_ROUTE_CPU] = model[TB_ROUTE_CPU];
    est[TB_ROUTE_GPU] = model[TB_ROUTE_GPU];
    int measured[2] = {0, 0};
    tb_class *s = NULL;
    const int learn = tb_settings_get()->learn;
    const int locked = learn && pthread_mutex_trylock(&tb_class_lock) == 0;
    if (locked && (s = tb_class_find(tb_policy_class(p), 0)) != NULL) {
        measured[TB_ROUTE_CPU] = s->seen[TB_ROUTE_CPU] >= 1;
        measured[TB_ROUTE_GPU] = s->seen[TB_ROUTE_GPU] >= 1;
        for (int r = 0; r < 2; r++)
            if (measured[r])
                est[r] *= tb_measured_ratio(s, r, p, rates);
    }
    const tb_route fast = est[TB_ROUTE_GPU] <= est[TB_ROUTE_CPU] ? TB_ROUTE_GPU : TB_ROUTE_CPU;
    const tb_route slow = fast == TB_ROUTE_GPU ? TB_ROUTE_CPU : TB_ROUTE_GPU;
    const int cpu = measured[TB_ROUTE_CPU], gpu = measured[TB_ROUTE_GPU];
    tb_route route = fast;
    if (!learn) {
        *why = tb_why_faster[fast];
    } else if (est[fast] * TB_MARGIN < est[slow]) {                       /* rule 1 */
        *why = cpu || gpu ? tb_why_measured[fast] : tb_why_faster[fast];
    } else if (cpu && gpu) {                                             /* rule 2 */
        *why = tb_why_measured[fast];
    } else if (cpu) {
        route = TB_ROUTE_GPU;      /* the GPU tried after the CPU */
        *why = TB_WHY_GPU_TRY;
    } else if (gpu) {
        route = fast;              /* the CPU tried only when its estimate is ahead */
        *why = fast == TB_ROUTE_CPU ? TB_WHY_CPU_TRY : TB_WHY_GPU_MEASURED;
    } else {
        *why = tb_why_try[fast];
    }
    if (s && cpu && gpu && route == TB_ROUTE_CPU &&                        /* rule 3 */
        est[TB_ROUTE_GPU] <= TB_RECHECK_SPAN * est[TB_ROUTE_CPU] && tb_recheck_due(s)) {
        route = TB_ROUTE_GPU;
        *why = TB_WHY_GPU_RECHECK;
    }
    if (locked)
        pthread_mutex_unlock(&tb_class_lock);
    return route;
}

/* ---- The decision ---- */

/* TILEDBLAS_SCOPE: may this precision, interface, layout and pair of
 * transposes go to the GPU? Every kernel reads transposed operands in its
 * tile loads, so by default all of them may. */
static int tb_in_scope(const tb_call *c, unsigned scope)
{
    unsigned prec = c->prec == TB_DOUBLE ? TB_SCOPE_DOUBLE : TB_SCOPE_SINGLE;
    unsigned api = c->api == TB_API_CBLAS ? TB_SCOPE_CBLAS : TB_SCOPE_FORTRAN;
    unsigned layout = c->layout == TB_ROW_MAJOR ? TB_SCOPE_ROW : TB_SCOPE_COL;
    int ta = c->transa != TB_NO_TRANS, tb = c->transb != TB_NO_TRANS;
    unsigned ops = ta ? (tb ? TB_SCOPE_TT : TB_SCOPE_TN) : (tb ? TB_SCOPE_NT : TB_SCOPE_NN);
    return (scope & prec) && (scope & api) && (scope & layout) && (scope & ops);
}

/* Until this machine's rates are known, a call that the built-in rates put
 * on the CPU by more than this factor does not start CUDA to find out: the
 * built-in rates are another machine's, but not off by that much. */
#define TB_NO_START_FACTOR 3.0

static tb_decision tb_cpu(tb_reason why)
{
    return (tb_decision){.route = TB_ROUTE_CPU, .reason = why};
}

/* Auto mode by the times: the model's, then the rules. */
static tb_decision tb_weigh(const tb_problem *p)
{
    tb_decision d = {.weighed = 1, .learn = tb_settings_get()->learn, .rates = tb_rates_get()};
    double est[2];
    tb_predict_at(d.rates, p, &d.model_s[TB_ROUTE_CPU], &d.model_s[TB_ROUTE_GPU]);
    d.route = tb_policy_choose(p, d.model_s, d.rates, est, &d.reason);
    d.pred_cpu_s = est[TB_ROUTE_CPU];
    d.pred_gpu_s = est[TB_ROUTE_GPU];
    return d;
}

/* The GPU is unavailable: no GPU at all is normal in auto mode and stays
 * silent; a GPU that fails to start, a child of a parent that used it, or a
 * mode that asked for the GPU, are said once. */
static void tb_say_unavailable(tb_reason why, tb_mode mode)
{
    if (why == TB_WHY_AFTER_FORK)
        tb_warn_once(TB_ONCE_FORK, "this process was forked after CUDA started; its calls "
                     "run on the CPU BLAS");
    else if (why == TB_WHY_GPU_INIT_FAILED)
        tb_warn_once(TB_ONCE_NO_GPU, "%s; calls run on the CPU BLAS", tb_gpu_detail());
    else if (why == TB_WHY_GPU_DISABLED)
        ;   /* the failure that disabled it was reported when it happened */
    else if (mode == TB_MODE_GPU)
        tb_warn_once(TB_ONCE_NO_GPU, "%s=gpu but the GPU path is unavailable (%s: %s); "
                     "calls run on the CPU BLAS", TB_ENV_MODE, tb_reason_name(why), tb_gpu_detail());
    else if (mode == TB_MODE_VERIFY)
        tb_warn_once(TB_ONCE_NO_GPU, "%s=verify cannot compare: the GPU path is "
                     "unavailable (%s: %s); calls run on the CPU BLAS", TB_ENV_MODE,
                     tb_reason_name(why), tb_gpu_detail());
}

/* Auto mode, a call the GPU may take: CUDA starts in the background once
 * such calls have spent on the CPU what a start costs (start.c), and calls
 * run on the CPU BLAS until the GPU and the rates are ready (gpu-starting).
 * A call that the model puts on the GPU by more than what is left of the
 * start waits for it instead (one 8192^3 call: about 0.3 s to wait plus 30
 * ms against a second on the CPU). */
static tb_decision tb_decide_auto(const tb_problem *p, tb_decision d)
{
    tb_reason why;
    double left = 0.0;
    const int final = tb_rates_final();
    tb_gpu_poll_t st = tb_gpu_poll(&why, &left, d.route == TB_ROUTE_GPU ? d.pred_cpu_s : 0.0);
    if (st == TB_GPU_POLL_STARTING && d.route == TB_ROUTE_GPU && d.pred_cpu_s > left + d.pred_gpu_s)
        st = tb_gpu_wait(left, &why);
    if (st == TB_GPU_POLL_NONE) {
        tb_say_unavailable(why, TB_MODE_AUTO);
        return tb_cpu(why);   /* no predicted times: there is no GPU to predict */
    }
    if (st == TB_GPU_POLL_STARTING) {
        d.route = TB_ROUTE_CPU;
        d.reason = TB_WHY_GPU_STARTING;
        /* The start disturbs the calls made meanwhile (2048^3 calls of 16
         * ms took 19-70 ms on the H200 machine): they measure nothing. */
        d.learn = d.learn && !tb_gpu_start_running();
        return d;
    }
    return final ? d : tb_weigh(p);   /* this machine's rates arrived: weigh again */
}

tb_decision tb_decide(const tb_call *c, const tb_problem *p)
{
    const tb_settings *s = tb_settings_get();
    if (s->mode == TB_MODE_CPU)
        return tb_cpu(TB_WHY_MODE_CPU);
    if (c->m == 0 || c->n == 0 || ((c->alpha == 0.0 || c->k == 0) && c->beta == 1.0))
        return tb_cpu(TB_WHY_NO_OP);
    if (!tb_in_scope(c, s->scope))
        return tb_cpu(TB_WHY_SCOPE);
    if (s->mode == TB_MODE_AUTO) {
        if ((double)p->m * p->n * p->k < s->threshold)
            return tb_cpu(TB_WHY_SMALL);
        tb_decision d = tb_weigh(p);
        /* Calls the GPU would not take never start CUDA. */
        if (d.route == TB_ROUTE_GPU ||
            (!tb_rates_final() && d.pred_gpu_s <= TB_NO_START_FACTOR * d.pred_cpu_s))
            d = tb_decide_auto(p, d);
        /* The first call after a switch measures nothing (above). */
        d.learn = d.learn && (int)d.route == __atomic_load_n(&tb_last_route, __ATOMIC_RELAXED);
        return d;
    }
    /* Forced and verify modes want the GPU from the first call: CUDA starts
     * on this thread (or this waits for a start under way). */
    tb_reason why;
    if (!tb_gpu_available(&why)) {
        tb_say_unavailable(why, s->mode);
        return tb_cpu(why);
    }
    return (tb_decision){.route = TB_ROUTE_GPU,
                         .reason = s->mode == TB_MODE_GPU ? TB_WHY_FORCED : TB_WHY_VERIFY};
}
