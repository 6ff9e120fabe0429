/* src/decide/policy.c - the one place that decides GPU or CPU, and says why (a
 * tb_reason; their words are in reason.c). It owns the three rules of auto
 * mode and what each shape class has measured of its own calls. It never
 * runs a product and never accounts one: dispatch.c does both around it. */
#include "tb_internal.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- What each shape class measured ---------------------------------------
 *
 * A class keeps, per route, how many of its calls were measured there and
 * the last TB_KEEP of them, each as a ratio to the model's time for that
 * call. Their lower median is the route's measured ratio: what a call of
 * the route typically costs the program, as the benches time it (a median
 * of calls), undisturbed by a few slow calls (threads waking, another
 * process) and not taken in by a few fast ones. The fastest alone would
 * be: 2048x2048x2's GPU calls take 0.59-0.75 ms in one process on the H200
 * machine and its CPU calls 0.63-0.90 (median 0.68), so a lucky GPU call
 * beats the CPU where a typical one does not. A route is measured in a
 * class once one of its calls was.
 *
 * A call is measured only when the process's calls before it (calls the
 * policy weighed) ran on the same route: one call before it in the
 * process's first run, TB_SETTLE after every switch of route. What the
 * first calls after a switch pay for belongs to neither route. On the H200
 * machine the first one or two OpenBLAS calls after GPU calls take up to 2x
 * as long as the ones after them (2048x2048x2: 1.08, 0.84, then 0.57-0.69
 * ms; 1700x1700x10: 1.00, 0.54, 0.49, where its settled calls take
 * 0.24-0.31, so that a class measured on the second call would go to a GPU
 * taking 0.45), and the GPU calls right after OpenBLAS calls compete with
 * its polling threads (1400x1400x12: 2.49, 0.61, where its GPU calls take
 * 0.27). The process's first call starts OpenBLAS's threads and measures
 * nothing either; nor does a GPU call that allocated, nor a call made
 * while the GPU starts.
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
#define TB_VISIT 2   /* measured calls that end a visit (rules 2 and 3) */
#define TB_SETTLE 2  /* calls after a switch that measure nothing */

typedef struct tb_sample {
    double ratio;             /* seconds over the model's time under `rates` */
    const tb_rates *rates;
    double seconds;           /* the call's time ...                         */
    int m, n, k;              /* ... and its shape                           */
} tb_sample;

typedef struct tb_class {
    unsigned key;             /* 0: empty */
    unsigned seen[2];         /* calls that were measured, per route         */
    unsigned next[2];         /* where the next one goes in kept[route]      */
    tb_sample kept[2][TB_KEEP];   /* the last TB_KEEP of them                */
    int visit;                /* the route being visited (rule 2, 3); -1: none */
    tb_reason visit_why;      /* try or re-check                             */
    unsigned visit_until;     /* the visit ends when seen[visit] reaches this ... */
    unsigned visit_left;      /* ... or after this many more calls           */
    unsigned visited[2];      /* the class visited the route (rule 2's try)  */
    unsigned since;           /* calls since the GPU was last re-checked     */
    unsigned every;           /* re-check after this many; 0: not yet set    */
} tb_class;

/* The process's run: the route of its last calls that the policy weighed
 * (-1: none yet), how many of them in a row took it, and whether it is the
 * process's first run. Read and written without a lock: a race between
 * threads only moves when measuring starts. */
static int tb_run_route = -1;
static unsigned tb_run_calls;
static int tb_run_first = 1;

static tb_class tb_classes[TB_CLASS_SLOTS];
static pthread_mutex_t tb_class_lock = PTHREAD_MUTEX_INITIALIZER;

/* The learned file (below): read yet (0: no; 1: read, or nothing to read),
 * by which process (a forked child does not write it), and whether a call
 * was kept since. */
static int tb_learned_state;
static pid_t tb_learned_pid;
static int tb_learned_dirty;

static unsigned tb_ilog2(int x)
{
    unsigned l = 0;
    while (x > 1 && l < 31) {
        x >>= 1;
        l++;
    }
    return l;
}

/* A class key is 1 + 24 bits: log2 of m, n and k in the low 15
 * (TB_CLASS_MNK), then the transposes, beta != 0, the precision (2 bits)
 * and the routine (4 bits; gemm's 0, so that a gemm class keeps the key
 * it had before the other routines had classes, and learned files
 * written then still read). */
#define TB_CLASS_MNK 0x7fffu
#define TB_CLASS_KEYS (1u << 24)

unsigned tb_policy_class(const tb_problem *p)
{
    return 1u + (tb_ilog2(p->m) | tb_ilog2(p->n) << 5 | tb_ilog2(p->k) << 10 |
                 (unsigned)(p->transa != 0) << 15 | (unsigned)(p->transb != 0) << 16 |
                 (unsigned)tb_reads_c(p) << 17 | (unsigned)p->prec << 18 |
                 (unsigned)p->routine << 20);
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
            s->visit = -1;
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
    const unsigned n = s->seen[r] < TB_KEEP ? s->seen[r] : TB_KEEP;
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

/* A measured call of route r into s's last TB_KEEP. Lock held. */
static void tb_class_keep(tb_class *s, int r, tb_sample x)
{
    s->kept[r][s->next[r]] = x;
    s->next[r] = (s->next[r] + 1) % TB_KEEP;
    s->seen[r]++;
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
        tb_class_keep(s, r, (tb_sample){.ratio = ratio, .rates = rates, .seconds = seconds,
                                        .m = p->m, .n = p->n, .k = p->k});
        __atomic_store_n(&tb_learned_dirty, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&tb_class_lock);
}

void tb_policy_forget(void)
{
    pthread_mutex_lock(&tb_class_lock);
    memset(tb_classes, 0, sizeof tb_classes);
    __atomic_store_n(&tb_learned_dirty, 0, __ATOMIC_RELAXED);
    const char *path = tb_learned_file();
    if (path)
        tb_cache_remove(path);
    pthread_mutex_unlock(&tb_class_lock);
    __atomic_store_n(&tb_run_route, -1, __ATOMIC_RELAXED);
    __atomic_store_n(&tb_run_calls, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&tb_run_first, 1, __ATOMIC_RELAXED);
}

void tb_policy_ran(tb_route route)
{
    if (__atomic_load_n(&tb_run_route, __ATOMIC_RELAXED) == (int)route) {
        __atomic_fetch_add(&tb_run_calls, 1u, __ATOMIC_RELAXED);
    } else {
        if (__atomic_load_n(&tb_run_route, __ATOMIC_RELAXED) >= 0)
            __atomic_store_n(&tb_run_first, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&tb_run_route, (int)route, __ATOMIC_RELAXED);
        __atomic_store_n(&tb_run_calls, 1u, __ATOMIC_RELAXED);
    }
}

int tb_policy_settled(tb_route route)
{
    const unsigned need = __atomic_load_n(&tb_run_first, __ATOMIC_RELAXED) ? 1u : TB_SETTLE;
    return __atomic_load_n(&tb_run_route, __ATOMIC_RELAXED) == (int)route &&
           __atomic_load_n(&tb_run_calls, __ATOMIC_RELAXED) >= need;
}

/* ---- The three rules ------------------------------------------------------
 *
 * 1. Take the route estimated faster by more than TB_MARGIN. An estimate is
 *    the model's time until the class has measured the route, then the
 *    measured one. 1.2: how far the model's time for a shape it was not
 *    fitted on lands from the clock at small and mid sizes (0.8-1.25x on
 *    the GPU, wider on the CPU, whose thread count changes with the shape).
 * 2. Inside the margin the class starts on the route the estimates put
 *    ahead (the GPU on a tie), visits the other once, and from then on
 *    takes the faster measured one. A visit is calls in a row on a route
 *    until TB_VISIT of them are measured (four calls: the first two after
 *    the switch measure nothing), at most TB_VISIT_CALLS (a visit whose
 *    calls never settle, between other classes' calls on the other route,
 *    ends without a measurement and is not made again). Two measured calls:
 *    the route's estimate is then the lower of them, and one call still
 *    disturbed does not decide. The two ways round cost differently. A GPU
 *    call between CPU calls leaves them undisturbed, so a class on the CPU
 *    visits the GPU once its CPU is measured, ahead or not. After OpenBLAS
 *    calls its threads poll for work on every core for about 0.1 s, and GPU
 *    calls whose copies use our copy threads run up to 2-3 times slower
 *    meanwhile (8192x8192x16: 14-15 ms against 7.6-8.1 on the H200
 *    machine). So a class on the GPU visits the CPU only when the CPU's
 *    estimate is ahead of the GPU's measured time (the model put the class
 *    on the GPU and its calls run slower than it said: on the H200 machine
 *    900x900x30 and 2500x2500x6 would stay on a GPU 1.2-1.3 times slower
 *    than the CPU without such a visit).
 * 3. A class on the CPU whose GPU is measured too, and within
 *    TB_RECHECK_SPAN of the CPU, re-checks the GPU with a visit once in
 *    `every` calls: 16 at first, doubling after each re-check up to 1024,
 *    so that a steady program pays less and less for it. One disturbed
 *    GPU measurement cannot then hold the class on the CPU: a re-check that
 *    runs faster moves the median down, and the class turns over by itself.
 *    4x: disturbed GPU calls run up to 3 times slow. The CPU is not
 *    re-checked from the GPU: every re-check would pay the polling above.
 * With TILEDBLAS_LEARN=off nothing is measured and the faster estimate of
 * the model is taken. */
#define TB_MARGIN 1.2
#define TB_VISIT_CALLS 8
#define TB_RECHECK_SPAN 4.0
#define TB_RECHECK_FIRST 16
#define TB_RECHECK_LAST 1024

static const tb_reason tb_why_faster[2] = {TB_WHY_CPU_FASTER, TB_WHY_GPU_FASTER};
static const tb_reason tb_why_measured[2] = {TB_WHY_CPU_MEASURED, TB_WHY_GPU_MEASURED};
static const tb_reason tb_why_try[2] = {TB_WHY_CPU_TRY, TB_WHY_GPU_TRY};

/* Starts a visit of s to route r (this call is its first). Lock held. */
static tb_route tb_visit_start(tb_class *s, tb_route r, tb_reason why)
{
    s->visit = (int)r;
    s->visit_why = why;
    s->visit_until = s->seen[r] + TB_VISIT;
    s->visit_left = TB_VISIT_CALLS - 1;
    s->visited[r] = 1;
    return r;
}

/* The visit under way, if any, takes this call: 1, with *route and *why.
 * Lock held. */
static int tb_visit_goes_on(tb_class *s, tb_route *route, tb_reason *why)
{
    if (s->visit < 0)
        return 0;
    if (s->seen[s->visit] >= s->visit_until || s->visit_left == 0) {
        s->visit = -1;
        return 0;
    }
    s->visit_left--;
    *route = (tb_route)s->visit;
    *why = s->visit_why;
    return 1;
}

/* Rule 3's turn: 1 when a re-check of the GPU is due. Lock held. */
static int tb_recheck_due(tb_class *s)
{
    if (s->every == 0)
        s->every = TB_RECHECK_FIRST;
    if (++s->since < s->every)
        return 0;
    s->since = 0;
    if (s->every < TB_RECHECK_LAST)
        s->every *= 2;
    return 1;
}

static void tb_learned_load(void);   /* below */

tb_route tb_policy_choose(const tb_problem *p, const double model[2], const tb_rates *rates,
                          double est[2], tb_reason *why)
{
    est[TB_ROUTE_CPU] = model[TB_ROUTE_CPU];
    est[TB_ROUTE_GPU] = model[TB_ROUTE_GPU];
    int measured[2] = {0, 0};
    tb_class *s = NULL;
    const int learn = tb_settings_get()->learn;
    if (learn && !__atomic_load_n(&tb_learned_state, __ATOMIC_ACQUIRE) && tb_rates_final())
        tb_learned_load();
    const int locked = learn && pthread_mutex_trylock(&tb_class_lock) == 0;
    if (locked && (s = tb_class_find(tb_policy_class(p), 0)) != NULL) {
        for (int r = 0; r < 2; r++) {
            measured[r] = s->seen[r] >= 1;
            if (measured[r])
                est[r] *= tb_measured_ratio(s, r, p, rates);
        }
    }
    const tb_route fast = est[TB_ROUTE_GPU] <= est[TB_ROUTE_CPU] ? TB_ROUTE_GPU : TB_ROUTE_CPU;
    const tb_route slow = fast == TB_ROUTE_GPU ? TB_ROUTE_CPU : TB_ROUTE_GPU;
    const int cpu = measured[TB_ROUTE_CPU], gpu = measured[TB_ROUTE_GPU];
    tb_route route = fast;
    if (!learn) {
        *why = tb_why_faster[fast];
    } else if (s && tb_visit_goes_on(s, &route, why)) {
        /* rules 2 and 3: a visit under way takes the call */
    } else if (est[fast] * TB_MARGIN < est[slow]) {                       /* rule 1 */
        *why = cpu || gpu ? tb_why_measured[fast] : tb_why_faster[fast];
    } else if (cpu && gpu) {                                             /* rule 2 */
        *why = tb_why_measured[fast];
    } else if (s && cpu && !s->visited[TB_ROUTE_GPU]) {
        route = tb_visit_start(s, TB_ROUTE_GPU, TB_WHY_GPU_TRY);
        *why = TB_WHY_GPU_TRY;
    } else if (s && gpu && fast == TB_ROUTE_CPU && !s->visited[TB_ROUTE_CPU]) {
        route = tb_visit_start(s, TB_ROUTE_CPU, TB_WHY_CPU_TRY);
        *why = TB_WHY_CPU_TRY;
    } else {
        /* The faster estimate: the class's first calls (which measure the
         * route they take), a class on the GPU whose CPU is not ahead, or
         * after a visit that measured nothing. */
        *why = measured[fast] ? tb_why_measured[fast] : tb_why_try[fast];
    }
    if (s && s->visit < 0 && cpu && gpu && route == TB_ROUTE_CPU &&          /* rule 3 */
        est[TB_ROUTE_GPU] <= TB_RECHECK_SPAN * est[TB_ROUTE_CPU] && tb_recheck_due(s)) {
        route = tb_visit_start(s, TB_ROUTE_GPU, TB_WHY_GPU_RECHECK);
        *why = TB_WHY_GPU_RECHECK;
    }
    if (locked)
        pthread_mutex_unlock(&tb_class_lock);
    return route;
}

/* ---- What the classes measured, kept for the next process ----------------
 *
 * A program's next run on this machine starts where its last one ended: at
 * exit, what the classes measured goes to the learned file beside the
 * rates in the cache (tb_learned_file), and the first decision once the
 * rates are final reads it back. A class's kept calls are written as their
 * seconds and shapes, not their ratios (a ratio belongs to the rates it was
 * taken under, and is taken again under the reader's), with its re-check
 * schedule and the routes it visited; a visit under way ends with the
 * process. Without that memory every process pays for its classes' visits
 * again, and a short one is slowed by them: on the H100 machine a process
 * of 31 calls of 1800x1800x8 (the CPU 0.37 ms a call, the GPU 0.60) sends 8
 * of them to the GPU (rule 2's try, then rule 3's first re-check).
 * Last writer wins: processes exiting at once each write the classes as
 * they knew them. The file is parsed like every cache file, trusting
 * nothing: a line that does not check out is skipped. */

#define TB_LEARNED_TEXT (1u << 20)

/* The class lock for reading or writing the whole table, once a process:
 * tried for up to 10 ms while other threads decide, and given up on in a
 * child forked while another thread held it. 1 when held. */
static int tb_class_lock_patiently(void)
{
    for (int tries = 0; tries < 100; tries++) {
        if (pthread_mutex_trylock(&tb_class_lock) == 0)
            return 1;
        usleep(100);
    }
    return 0;
}

/* A class line, then a line per kept call, oldest first. Lock held. */
static size_t tb_class_format(const tb_class *s, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "class %u %u %u %u %u\n", s->key, s->since, s->every,
                                s->visited[TB_ROUTE_CPU], s->visited[TB_ROUTE_GPU]);
    for (int r = 0; r < 2; r++) {
        const unsigned kept = s->seen[r] < TB_KEEP ? s->seen[r] : TB_KEEP;
        const unsigned first = s->seen[r] < TB_KEEP ? 0 : s->next[r];
        for (unsigned i = 0; i < kept && n < len; i++) {
            const tb_sample *x = &s->kept[r][(first + i) % TB_KEEP];
            n += (size_t)snprintf(buf + n, len - n, "call %u %d %.6g %d %d %d\n", s->key, r,
                                  x->seconds, x->m, x->n, x->k);
        }
    }
    return n;
}

int tb_policy_export(char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "# libtiledblas: what auto mode measured of this "
                                "machine's calls, per shape class (policy.c).\n"
                                "# Delete this file to start learning again.\n");
    if (!tb_class_lock_patiently())
        return -1;
    for (int i = 0; i < TB_CLASS_SLOTS && n < len; i++)
        if (tb_classes[i].key && (tb_classes[i].seen[0] || tb_classes[i].seen[1]))
            n += tb_class_format(&tb_classes[i], buf + n, len - n);
    pthread_mutex_unlock(&tb_class_lock);
    return n < len ? 0 : -1;
}

/* A key that some class has: its routine is one of the table's. */
static int tb_key_ok(unsigned key)
{
    return key != 0 && key <= TB_CLASS_KEYS && ((key - 1u) >> 20) < TB_ROUTINE_COUNT;
}

/* key's m, n, k fields: those of a call of that class. */
static int tb_key_fits(unsigned key, int m, int n, int k)
{
    const tb_problem p = {.m = m, .n = n, .k = k};
    return ((tb_policy_class(&p) - 1u) & TB_CLASS_MNK) == ((key - 1u) & TB_CLASS_MNK);
}

/* One line of the learned file into the table, unless it does not check
 * out, or the class already kept calls of that route in this process
 * (had: per slot and route, before the import). Lock held. */
static int tb_import_line(const char *line, unsigned char (*had)[2])
{
    unsigned key, since, every, v0, v1;
    int r, m, n, k;
    double sec;
    char end;
    if (sscanf(line, "class %u %u %u %u %u %c", &key, &since, &every, &v0, &v1, &end) == 5) {
        if (!tb_key_ok(key) || every > TB_RECHECK_LAST || since > every || v0 > 1 ||
            v1 > 1)
            return 0;
        tb_class *s = tb_class_find(key, 1);
        if (!s)
            return 0;
        s->visited[TB_ROUTE_CPU] |= v0;
        s->visited[TB_ROUTE_GPU] |= v1;
        if (s->every == 0) {
            s->every = every;
            s->since = since;
        }
        return 1;
    }
    if (sscanf(line, "call %u %d %lf %d %d %d %c", &key, &r, &sec, &m, &n, &k, &end) != 6 ||
        !tb_key_ok(key) || (r != 0 && r != 1) || !isfinite(sec) || !(sec > 0.0) ||
        sec > 1e5 || m < 1 || n < 1 || k < 1 || !tb_key_fits(key, m, n, k))
        return 0;
    tb_class *s = tb_class_find(key, 1);
    if (!s || had[s - tb_classes][r])
        return 0;
    tb_class_keep(s, r, (tb_sample){.ratio = 0.0, .rates = NULL, .seconds = sec, .m = m, .n = n,
                                    .k = k});   /* its ratio is taken under the rates in use */
    return 1;
}

int tb_policy_import(const char *text)
{
    unsigned char had[TB_CLASS_SLOTS][2];
    int lines = 0;
    if (!tb_class_lock_patiently())
        return 0;
    for (int i = 0; i < TB_CLASS_SLOTS; i++)
        for (int r = 0; r < 2; r++)
            had[i][r] = tb_classes[i].key && tb_classes[i].seen[r];
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        char line[160];
        const size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (len < sizeof line) {
            memcpy(line, l, len);
            line[len] = '\0';
            lines += tb_import_line(line, had);
        }
        l = nl ? nl + 1 : NULL;
    }
    pthread_mutex_unlock(&tb_class_lock);
    return lines;
}

/* The first decision once the rates are final reads the learned file. */
static void tb_learned_load(void)
{
    int no = 0;
    if (!__atomic_compare_exchange_n(&tb_learned_state, &no, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&tb_learned_pid, getpid(), __ATOMIC_RELAXED);
    const char *path = tb_learned_file();
    char *text = path ? malloc(TB_LEARNED_TEXT) : NULL;
    if (text && tb_cache_read(path, text, TB_LEARNED_TEXT) == 0) {
        const int lines = tb_policy_import(text);
        tb_log(2, "learned: %d lines read from %s", lines, path);
    }
    free(text);
}

void tb_policy_save(void)
{
    const char *path = tb_learned_file();
    if (!path || !__atomic_load_n(&tb_learned_state, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&tb_learned_pid, __ATOMIC_RELAXED) != getpid() ||
        !__atomic_load_n(&tb_learned_dirty, __ATOMIC_RELAXED))
        return;
    char *text = malloc(TB_LEARNED_TEXT);
    if (text && tb_policy_export(text, TB_LEARNED_TEXT) == 0 && tb_cache_write(path, text) == 0)
        __atomic_store_n(&tb_learned_dirty, 0, __ATOMIC_RELAXED);
    free(text);
}

/* ---- The decision ---- */

/* TILEDBLAS_SCOPE: may this precision, interface, layout and pair of
 * transposes go to the GPU? Every kernel reads transposed operands in its
 * tile loads, so by default all of them may. A routine but gemm counts its
 * trans (syrk's, trmm's transa) as op(A) and op(B) as N; symm and hemm
 * count as NN. */
static int tb_in_scope(const tb_call *c, unsigned scope)
{
    static const unsigned precs[TB_PREC_COUNT] = {TB_SCOPE_SINGLE, TB_SCOPE_DOUBLE,
                                                  TB_SCOPE_COMPLEX, TB_SCOPE_ZCOMPLEX};
    unsigned prec = precs[c->prec];
    unsigned api = c->api == TB_API_CBLAS ? TB_SCOPE_CBLAS : TB_SCOPE_FORTRAN;
    unsigned layout = c->layout == TB_ROW_MAJOR ? TB_SCOPE_ROW : TB_SCOPE_COL;
    int ta = c->transa != TB_NO_TRANS && c->transa != 0;
    int tb = c->transb != TB_NO_TRANS && c->transb != 0;
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
         * ms take 19-70 ms on the H200 machine): they measure nothing. */
        d.learn = d.learn && !tb_gpu_start_running();
        return d;
    }
    return final ? d : tb_weigh(p);   /* this machine's rates arrived: weigh again */
}

double tb_policy_cpu_below(void)
{
    const tb_settings *s = tb_settings_get();
    return s->mode == TB_MODE_AUTO || s->mode == TB_MODE_CPU ? s->threshold : 0.0;
}

tb_decision tb_decide(const tb_call *c, const tb_problem *p)
{
    /* A routine or precision without a GPU path goes to the CPU BLAS before
     * anything below looks at it. */
    if (!tb_entry_on_gpu(c->entry))
        return tb_cpu(TB_WHY_CPU_ONLY);
    const tb_settings *s = tb_settings_get();
    if (s->mode == TB_MODE_CPU)
        return tb_cpu(TB_WHY_MODE_CPU);
    if (c->m == 0 || c->n == 0 || ((c->k == 0 || (c->alpha == 0.0 && c->alpha_im == 0.0)) &&
                                   c->beta == 1.0 && c->beta_im == 0.0))
        return tb_cpu(TB_WHY_NO_OP);
    if (!tb_in_scope(c, s->scope))
        return tb_cpu(TB_WHY_SCOPE);
    /* Verify mode compares a GEMM's result with the CPU BLAS's within an
     * error bound of the product's norms; a triangular solve has no such
     * bound without its condition number, so the other routines are not
     * compared: they run on the CPU BLAS alone. */
    if (s->mode == TB_MODE_VERIFY && c->entry->routine != TB_R_gemm)
        return tb_cpu(TB_WHY_VERIFY_GEMM_ONLY);
    if (s->mode == TB_MODE_AUTO) {
        if (tb_problem_mnk(p) < tb_policy_cpu_below())
            return tb_cpu(TB_WHY_SMALL);
        tb_decision d = tb_weigh(p);
        /* Calls the GPU would not take never start CUDA. */
        if (d.route == TB_ROUTE_GPU ||
            (!tb_rates_final() && d.pred_gpu_s <= TB_NO_START_FACTOR * d.pred_cpu_s))
            d = tb_decide_auto(p, d);
        /* The first calls of a run measure nothing (above). */
        d.learn = d.learn && tb_policy_settled(d.route);
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
