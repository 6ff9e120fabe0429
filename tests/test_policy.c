/* tests/test_policy.c - unit tests of auto mode's three rules (policy.c) on
 * made-up model times: the margin; inside it, a class on the CPU visiting
 * the GPU and a class on the GPU visiting the CPU; measurements (the median
 * of a route's last calls) replacing the model; which calls of a run
 * measure; the re-check of the GPU from the CPU and its doubling interval;
 * the shape classes; whole sequences of calls as a program makes them;
 * the learned file's text, written and read back. No GPU. */
#include "unit_check.h"
#include <stdlib.h>
#include <string.h>

/* One decision on model times (cpu, gpu) for p's class. */
static tb_route choose(const tb_problem *p, double cpu, double gpu, tb_reason *why)
{
    const double model[2] = {cpu, gpu};
    double est[2];
    return tb_policy_choose(p, model, tb_rates_get(), est, why);
}

static void test_margin(void)
{
    tb_policy_forget();
    const tb_problem p = problem_of(row_nn(1000, 1000, 1000));
    tb_reason why;
    CHECK(choose(&p, 1.0e-3, 2.0e-3, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_FASTER,
          "CPU 2x faster: cpu-faster (got %s)", tb_reason_name(why));
    CHECK(choose(&p, 1.3e-3, 1.0e-3, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_FASTER,
          "GPU 1.3x faster: gpu-faster (got %s)", tb_reason_name(why));
    CHECK(choose(&p, 1.1e-3, 1.0e-3, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_TRY,
          "GPU 1.1x faster is inside the margin: the GPU, measuring (got %s)", tb_reason_name(why));
    CHECK(choose(&p, 1.0e-3, 1.19e-3, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_TRY,
          "CPU 1.19x faster: inside the margin, the CPU, measuring (got %s)", tb_reason_name(why));
    CHECK(choose(&p, 1.0e-3, 1.0e-3, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_TRY,
          "a tie: the GPU (got %s)", tb_reason_name(why));
}

/* Inside the margin, a class on the CPU: its CPU measured, then a visit to
 * the GPU that lasts until two GPU calls are measured, then the faster
 * measured route. */
static void test_measure_both(void)
{
    tb_policy_forget();
    const tb_problem p = problem_of(row_nn(300, 300, 300));
    const double cpu = 1.0e-4, gpu = 1.1e-4;
    tb_reason why;
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_TRY,
          "nothing measured, the CPU ahead inside the margin: cpu-try (got %s)", tb_reason_name(why));
    tb_policy_record(&p, TB_ROUTE_CPU, 1.3e-4, cpu, tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_CPU, 1.2e-4, cpu, tb_rates_get());
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_TRY,
          "the CPU measured at 1.2x its model, close to the GPU's 1.1: the GPU is visited (got %s)",
          tb_reason_name(why));
    tb_policy_record(&p, TB_ROUTE_GPU, 1.0e-4, gpu, tb_rates_get());
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_TRY,
          "one GPU call measured: the visit goes on (got %s)", tb_reason_name(why));
    tb_policy_record(&p, TB_ROUTE_GPU, 1.05e-4, gpu, tb_rates_get());
    double est[2];
    const double model[2] = {cpu, gpu};
    tb_route r = tb_policy_choose(&p, model, tb_rates_get(), est, &why);
    CHECK(r == TB_ROUTE_GPU && why == TB_WHY_GPU_MEASURED && near(est[TB_ROUTE_CPU], 1.2e-4) &&
              near(est[TB_ROUTE_GPU], 1.0e-4),
          "the GPU measured 1.0 and 1.05 against the CPU's 1.3 and 1.2: gpu-measured at the lower "
          "medians (got %s, %.3g, %.3g)", tb_reason_name(why), est[0], est[1]);

    /* A visit that measures nothing (its calls never settle) ends after
     * eight calls, and is not made again. */
    tb_policy_forget();
    tb_policy_record(&p, TB_ROUTE_CPU, 1.0e-4, cpu, tb_rates_get());
    int on_gpu = 0;
    for (int i = 0; i < 40; i++)
        on_gpu += choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU;
    CHECK(on_gpu == 8, "a visit that measures nothing: 8 calls, then the estimates (%d of 40 on "
          "the GPU)", on_gpu);
}

/* Inside the margin, a class on the GPU tries the CPU only when the CPU's
 * estimate is ahead of the GPU's measured time, then takes the faster
 * measured route. */
static void test_gpu_tries_cpu(void)
{
    tb_policy_forget();
    const tb_problem p = problem_of(row_nn(600, 600, 600));
    const double cpu = 1.05e-4, gpu = 1.0e-4;
    tb_reason why;
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_TRY, "the GPU ahead, close");
    tb_policy_record(&p, TB_ROUTE_GPU, 1.02e-4, gpu, tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_GPU, 1.01e-4, gpu, tb_rates_get());
    int tried = 0;
    for (int i = 0; i < 50; i++)
        tried += choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU || why != TB_WHY_GPU_MEASURED;
    CHECK(tried == 0, "the GPU measured at 1.01, still ahead of the CPU's untried 1.05: the CPU "
          "is not tried (%d of 50 calls)", tried);
    tb_policy_record(&p, TB_ROUTE_GPU, 1.15e-4, gpu, tb_rates_get());   /* the median stays 1.02 */
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU, "one slower GPU call does not move the median");
    tb_policy_forget();
    tb_policy_record(&p, TB_ROUTE_GPU, 1.15e-4, gpu, tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_GPU, 1.10e-4, gpu, tb_rates_get());
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_TRY,
          "the GPU measured at 1.1, behind the CPU's untried 1.05 but close: the CPU is visited "
          "(got %s)", tb_reason_name(why));
    tb_policy_record(&p, TB_ROUTE_CPU, 1.3e-4, cpu, tb_rates_get());
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_TRY,
          "one CPU call measured: the visit goes on (got %s)", tb_reason_name(why));
    tb_policy_record(&p, TB_ROUTE_CPU, 1.2e-4, cpu, tb_rates_get());
    int on_cpu = 0, measured = 0;
    for (int i = 0; i < 200; i++) {
        on_cpu += choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU;
        measured += why == TB_WHY_GPU_MEASURED;
    }
    CHECK(on_cpu == 0 && measured == 200,
          "the CPU measured 1.3 and 1.2, the GPU 1.1: 200 calls on the GPU, never the CPU again (%d on "
          "the CPU)", on_cpu);
    tb_policy_record(&p, TB_ROUTE_GPU, 1.5e-4, gpu, tb_rates_get());   /* the median: 1.15 */
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU, "one slower call leaves the GPU ahead");
    tb_policy_forget();
    tb_policy_record(&p, TB_ROUTE_GPU, 1.4e-4, gpu, tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_GPU, 1.3e-4, gpu, tb_rates_get());
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_MEASURED,
          "the GPU measured 1.3, the CPU's 1.05 by more than the margin: cpu-measured (got %s)",
          tb_reason_name(why));
}

/* TILEDBLAS_LEARN=off (ctest runs this program once more with it): the
 * model's faster time decides, whatever was recorded, and nothing is
 * tried or re-checked. */
static void test_learn_off(void)
{
    tb_policy_forget();
    const tb_problem p = problem_of(row_nn(300, 300, 300));
    tb_reason why;
    for (int i = 0; i < 3; i++) {
        tb_policy_record(&p, TB_ROUTE_CPU, 50e-4, 1e-4, tb_rates_get());
        tb_policy_record(&p, TB_ROUTE_GPU, 1e-4, 1e-4, tb_rates_get());
    }
    int cpu = 0;
    for (int i = 0; i < 100; i++)
        cpu += choose(&p, 1.0e-4, 1.1e-4, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_FASTER;
    CHECK(cpu == 100, "learning off: the model's CPU on every call, cpu-faster (%d of 100)", cpu);
    CHECK(choose(&p, 1.1e-4, 1.0e-4, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_FASTER,
          "learning off: the model's GPU when it is faster (got %s)", tb_reason_name(why));
}

/* Measurements replace the model's estimate: a class the model got wrong
 * turns over once the wrong route was measured. */
static void test_measured_turns(void)
{
    tb_policy_forget();
    const tb_problem p = problem_of(row_nn(8192, 8192, 4));
    tb_reason why;
    const double cpu = 1.0e-3, gpu = 3.0e-3;
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_FASTER, "the model's CPU");
    tb_policy_record(&p, TB_ROUTE_CPU, 20.0 * cpu, cpu, tb_rates_get());
    CHECK(choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU && why == TB_WHY_GPU_MEASURED,
          "the CPU measured 20x its model: gpu-measured (got %s)", tb_reason_name(why));

    /* Classes: powers of two of m, n and k, the transposes, beta. */
    tb_problem q = problem_of(row_nn(9000, 12000, 7));
    CHECK(tb_policy_class(&q) == tb_policy_class(&p), "9000x12000x7 shares 8192x8192x4's class");
    static const int other[][3] = {{4096, 8192, 4}, {8192, 16384, 4}, {8192, 8192, 8}};
    for (int i = 0; i < 3; i++) {
        q = problem_of(row_nn(other[i][0], other[i][1], other[i][2]));
        CHECK(tb_policy_class(&q) != tb_policy_class(&p), "%dx%dx%d is another class", other[i][0],
              other[i][1], other[i][2]);
    }
    tb_call c = row_nn(8192, 8192, 4);
    c.transb = TB_TRANS;
    c.ldb = 4;
    q = problem_of(c);
    CHECK(tb_policy_class(&q) != tb_policy_class(&p), "a transposed B is another class");
    c = row_nn(8192, 8192, 4);
    c.beta = 1.0f;
    q = problem_of(c);
    CHECK(tb_policy_class(&q) != tb_policy_class(&p), "beta != 0 is another class");
    CHECK(choose(&q, cpu, gpu, &why) == TB_ROUTE_CPU && why == TB_WHY_CPU_FASTER,
          "what one class measured does not move another");
}

/* Calls of p's class as dispatch.c makes them, on model times (cpu, gpu),
 * each route really taking true_cpu / true_gpu times the model's time,
 * except the first `disturbed` measured GPU calls, which take gpu_first
 * times it. A call is measured when the policy says its run has settled
 * (tb_policy_settled), and the first GPU call allocates (not measured).
 * The routes taken, 'c' or 'g', go to routes; forget: start afresh. */
static void run_calls(const tb_problem *p, int n, double cpu, double gpu, double true_cpu,
                      double true_gpu, int disturbed, double gpu_first, int forget, char *routes)
{
    if (forget)
        tb_policy_forget();
    int gpu_calls = 0, taught = 0;
    for (int i = 0; i < n; i++) {
        tb_reason why;
        const tb_route r = choose(p, cpu, gpu, &why);
        const int settled = tb_policy_settled(r);
        routes[i] = r == TB_ROUTE_GPU ? 'g' : 'c';
        if (r == TB_ROUTE_CPU && settled)
            tb_policy_record(p, r, true_cpu * cpu, cpu, tb_rates_get());
        else if (r == TB_ROUTE_GPU && gpu_calls++ > 0 && settled)
            tb_policy_record(p, r, (taught++ < disturbed ? gpu_first : true_gpu) * gpu, gpu,
                             tb_rates_get());
        tb_policy_ran(r);
    }
    routes[n] = '\0';
}

/* Where the routes in s start and end: the start of each run of g's. */
static int gpu_runs(const char *s, int *at, int max)
{
    int n = 0;
    for (int i = 0; s[i]; i++)
        if (s[i] == 'g' && (i == 0 || s[i - 1] != 'g') && n < max)
            at[n++] = i + 1;
    return n;
}

/* A class on the CPU with the GPU measured within 4x re-checks the GPU
 * with a visit (four calls: two that settle, two measured) 16 calls on,
 * then 32 calls after that, ...; beyond 4x it never does, and a class on
 * the GPU never re-checks the CPU. */
static void test_recheck(void)
{
    tb_policy_forget();
    const tb_problem p = problem_of(row_nn(2000, 500, 3000));
    const double cpu = 1.0e-3, gpu = 1.0e-3;
    for (int i = 0; i < 2; i++) {
        tb_policy_record(&p, TB_ROUTE_CPU, 1.0 * cpu, cpu, tb_rates_get());
        tb_policy_record(&p, TB_ROUTE_GPU, 1.5 * gpu, gpu, tb_rates_get());
    }
    char routes[128];
    int at[6];
    run_calls(&p, 80, cpu, gpu, 1.0, 1.5, 0, 1.0, 0, routes);
    int n = gpu_runs(routes, at, 6);
    CHECK(n == 2 && at[0] == 16 && at[1] == 51 && !strncmp(routes + 15, "ggggc", 5) &&
              !strncmp(routes + 50, "ggggc", 5),
          "re-checks of four calls at calls 16 and 51 (%s)", routes);

    tb_policy_forget();
    for (int i = 0; i < 2; i++) {
        tb_policy_record(&p, TB_ROUTE_CPU, 1.0 * cpu, cpu, tb_rates_get());
        tb_policy_record(&p, TB_ROUTE_GPU, 4.5 * gpu, gpu, tb_rates_get());
    }
    tb_reason why;
    n = 0;
    for (int i = 0; i < 200; i++)
        n += choose(&p, cpu, gpu, &why) == TB_ROUTE_GPU;
    CHECK(n == 0, "a GPU measured 4.5x slower is not re-checked (%d calls)", n);

    tb_policy_forget();
    for (int i = 0; i < 2; i++) {
        tb_policy_record(&p, TB_ROUTE_CPU, 1.5 * cpu, cpu, tb_rates_get());
        tb_policy_record(&p, TB_ROUTE_GPU, 1.0 * gpu, gpu, tb_rates_get());
    }
    n = 0;
    for (int i = 0; i < 200; i++)
        n += choose(&p, cpu, gpu, &why) == TB_ROUTE_CPU;
    CHECK(n == 0, "a class on the GPU never re-checks the CPU (%d calls)", n);
}

/* Which calls measure: from the second call of the process's first run,
 * and from the third after every switch of route. */
static void test_settle(void)
{
    tb_policy_forget();
    CHECK(!tb_policy_settled(TB_ROUTE_CPU) && !tb_policy_settled(TB_ROUTE_GPU),
          "the process's first call measures nothing");
    tb_policy_ran(TB_ROUTE_CPU);
    CHECK(tb_policy_settled(TB_ROUTE_CPU) && !tb_policy_settled(TB_ROUTE_GPU),
          "the second call of the first run measures its route; a switch would not");
    tb_policy_ran(TB_ROUTE_GPU);
    CHECK(!tb_policy_settled(TB_ROUTE_GPU), "the second call after a switch measures nothing");
    tb_policy_ran(TB_ROUTE_GPU);
    CHECK(tb_policy_settled(TB_ROUTE_GPU) && !tb_policy_settled(TB_ROUTE_CPU),
          "the third measures its route");
    tb_policy_ran(TB_ROUTE_CPU);
    CHECK(!tb_policy_settled(TB_ROUTE_CPU), "so on every switch");
    tb_policy_ran(TB_ROUTE_CPU);
    CHECK(tb_policy_settled(TB_ROUTE_CPU), "and back");
}

/* Calls of one shape from a fresh start (run_calls). */
static void calls(int n, double cpu, double gpu, double true_cpu, double true_gpu, int disturbed,
                  double gpu_first, char *routes)
{
    const tb_problem p = problem_of(row_nn(700, 200, 900));
    run_calls(&p, n, cpu, gpu, true_cpu, true_gpu, disturbed, gpu_first, 1, routes);
}

static void test_sequences(void)
{
    char r[128];
    calls(8, 1.0, 3.0, 1.0, 1.0, 0, 1.0, r);
    CHECK(!strcmp(r, "cccccccc"), "the model's CPU, right: %s", r);
    calls(8, 3.0, 1.0, 1.0, 1.0, 0, 1.0, r);
    CHECK(!strcmp(r, "gggggggg"), "the model's GPU, right: %s", r);
    calls(8, 1.0, 3.0, 20.0, 1.0, 0, 1.0, r);
    CHECK(!strcmp(r, "ccgggggg"), "the CPU 20x slower than its model: the second call shows it: %s", r);
    calls(8, 3.0, 1.0, 1.0, 100.0, 0, 1.0, r);
    CHECK(!strcmp(r, "ggcccccc"), "the GPU 100x slower: its allocating call and one more: %s", r);
    /* Close, the CPU ahead and truly faster: two CPU calls (the first has
     * no call before it), the GPU visited (its allocating call, one more,
     * two that count), back to the CPU. */
    calls(10, 1.0, 1.05, 1.0, 1.1, 0, 1.0, r);
    CHECK(!strcmp(r, "ccggggcccc"), "close, the CPU faster: %s", r);
    /* Close, the GPU truly 20% faster: it takes the class. */
    calls(10, 1.0, 1.05, 1.0, 0.8, 0, 1.0, r);
    CHECK(!strcmp(r, "ccgggggggg"), "close, the GPU faster: %s", r);
    /* The GPU truly faster, its first measured call disturbed (2x, as right
     * after OpenBLAS calls): the visit's second call carries it. */
    calls(20, 1.0, 1.05, 1.0, 0.8, 1, 2.0, r);
    CHECK(!strncmp(r, "cc", 2) && strspn(r + 2, "g") == 18,
          "close, the GPU's first measured call disturbed: %s", r);
    /* Both of the visit's measured calls disturbed: the CPU keeps the
     * class until the re-check, 16 calls on, measures the GPU again. */
    calls(40, 1.0, 1.05, 1.0, 0.8, 2, 2.0, r);
    CHECK(!strncmp(r, "ccgggg", 6) && strspn(r + 6, "c") == 15 && strspn(r + 21, "g") == 19,
          "close, the visit's two measured GPU calls disturbed: %s", r);
    /* Close, the GPU ahead but the CPU truly faster (the model's mistake
     * on thin products): two GPU calls, the CPU visited (four calls), then
     * the CPU, re-checking the GPU 16 calls on. */
    calls(24, 1.05, 1.0, 1.0, 1.2, 0, 1.0, r);
    CHECK(!strncmp(r, "gg", 2) && strspn(r + 2, "c") == 19 && !strcmp(r + 21, "ggg"),
          "close, the CPU faster than the model's GPU: %s", r);
    /* Close, the GPU ahead and as fast as the model says: the CPU is not
     * visited. Slower than that but still ahead of the CPU's estimate:
     * visited (four calls), then back to the GPU. */
    calls(12, 1.05, 1.0, 1.1, 1.0, 0, 1.0, r);
    CHECK(!strcmp(r, "gggggggggggg"), "close, the GPU as fast as its model: %s", r);
    calls(12, 1.05, 1.0, 1.3, 1.1, 0, 1.0, r);
    CHECK(!strcmp(r, "ggccccgggggg"), "close, the GPU slower than its model, the CPU slower still: %s", r);
}

/* A class's measurements are ratios to the model under the rates in use
 * when they were taken; when the rates change (the built-in ones to this
 * machine's), each is taken again under the new ones from the fastest call
 * itself, its seconds and its shape. */
static void test_rates_change(void)
{
    tb_policy_forget();
    const tb_rates *was = tb_rates_builtin();
    static tb_rates now;
    now = *was;
    now.cpu_flops *= 2.0;   /* this machine's CPU twice the built-in rate */
    now.gpu_flops *= 0.5;
    const tb_problem p = problem_of(row_nn(300, 300, 300)), q = problem_of(row_nn(400, 400, 400));
    CHECK(tb_policy_class(&p) == tb_policy_class(&q), "300^3 and 400^3 share a class");
    double m0[2], m1[2], mq[2], est[2];
    tb_predict_at(was, &p, &m0[TB_ROUTE_CPU], &m0[TB_ROUTE_GPU]);
    tb_predict_at(&now, &p, &m1[TB_ROUTE_CPU], &m1[TB_ROUTE_GPU]);
    tb_predict_at(&now, &q, &mq[TB_ROUTE_CPU], &mq[TB_ROUTE_GPU]);
    CHECK(m1[TB_ROUTE_CPU] < 0.9 * m0[TB_ROUTE_CPU], "the new rates move the CPU's model time "
          "(%.3g -> %.3g s)", m0[TB_ROUTE_CPU], m1[TB_ROUTE_CPU]);
    const double cpu_s = 1.3 * m0[TB_ROUTE_CPU], gpu_s = 0.9 * m0[TB_ROUTE_GPU];
    tb_policy_record(&p, TB_ROUTE_CPU, 1.5 * cpu_s, m0[TB_ROUTE_CPU], was);
    tb_policy_record(&p, TB_ROUTE_CPU, cpu_s, m0[TB_ROUTE_CPU], was);
    tb_policy_record(&p, TB_ROUTE_GPU, gpu_s, m0[TB_ROUTE_GPU], was);
    tb_reason why;
    tb_policy_choose(&p, m1, &now, est, &why);
    CHECK(near(est[TB_ROUTE_CPU], cpu_s) && near(est[TB_ROUTE_GPU], gpu_s),
          "the same shape under the new rates: the measured seconds (%.4g, %.4g against %.4g, %.4g)",
          est[TB_ROUTE_CPU], est[TB_ROUTE_GPU], cpu_s, gpu_s);
    tb_policy_choose(&q, mq, &now, est, &why);
    CHECK(near(est[TB_ROUTE_CPU], cpu_s * mq[TB_ROUTE_CPU] / m1[TB_ROUTE_CPU]),
          "another shape of the class: the new model's time scaled by the new ratio (%.4g)",
          est[TB_ROUTE_CPU]);
    /* Calls under the new rates join those before, all compared on the new
     * rates' ratios: the lower median of 1.5, 1.0 and 1.05 times the
     * measured time is 1.05; with 0.95 as well, 1.0. */
    tb_policy_record(&q, TB_ROUTE_CPU, 1.05 * cpu_s * mq[TB_ROUTE_CPU] / m1[TB_ROUTE_CPU],
                     mq[TB_ROUTE_CPU], &now);
    tb_policy_choose(&p, m1, &now, est, &why);
    CHECK(near(est[TB_ROUTE_CPU], 1.05 * cpu_s), "three calls, one under the new rates: their "
          "median (%.4g)", est[TB_ROUTE_CPU]);
    tb_policy_record(&q, TB_ROUTE_CPU, 0.95 * cpu_s * mq[TB_ROUTE_CPU] / m1[TB_ROUTE_CPU],
                     mq[TB_ROUTE_CPU], &now);
    tb_policy_choose(&p, m1, &now, est, &why);
    CHECK(near(est[TB_ROUTE_CPU], cpu_s), "four: the lower median (%.4g)", est[TB_ROUTE_CPU]);
}

/* A route's measured ratio is the lower median of its last 8 measured
 * calls: one fast call does not hold a class, a few slow ones do not move
 * it, and old calls give way to new ones. */
static void test_median(void)
{
    tb_policy_forget();
    const tb_problem p = problem_of(row_nn(2048, 2048, 2));
    const double cpu = 1.0e-3, gpu = 1.0e-3;
    double est[2];
    const double model[2] = {cpu, gpu};
    tb_reason why;
    tb_policy_record(&p, TB_ROUTE_CPU, 1.0e-3, cpu, tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_GPU, 0.8e-3, gpu, tb_rates_get());   /* one lucky call */
    for (int i = 0; i < 4; i++)
        tb_policy_record(&p, TB_ROUTE_GPU, 1.25e-3, gpu, tb_rates_get());
    tb_route r = tb_policy_choose(&p, model, tb_rates_get(), est, &why);
    CHECK(r == TB_ROUTE_CPU && near(est[TB_ROUTE_GPU], 1.25e-3),
          "the GPU's fastest call 0.8 of the CPU's, its other four 1.25: the CPU (got %s, GPU %.3g)",
          tb_reason_name(why), est[TB_ROUTE_GPU]);
    tb_policy_forget();
    tb_policy_record(&p, TB_ROUTE_CPU, 1.0e-3, cpu, tb_rates_get());
    for (int i = 0; i < 8; i++)
        tb_policy_record(&p, TB_ROUTE_GPU, (i % 3 == 0 ? 3.0e-3 : 0.8e-3), gpu, tb_rates_get());
    r = tb_policy_choose(&p, model, tb_rates_get(), est, &why);
    CHECK(r == TB_ROUTE_GPU && near(est[TB_ROUTE_GPU], 0.8e-3),
          "three of the GPU's eight calls disturbed (3x), five at 0.8: the GPU at 0.8 (got %s, %.3g)",
          tb_reason_name(why), est[TB_ROUTE_GPU]);
    for (int i = 0; i < 8; i++)
        tb_policy_record(&p, TB_ROUTE_GPU, 1.5e-3, gpu, tb_rates_get());
    r = tb_policy_choose(&p, model, tb_rates_get(), est, &why);
    CHECK(r == TB_ROUTE_CPU && near(est[TB_ROUTE_GPU], 1.5e-3),
          "eight later GPU calls at 1.5 replace the earlier ones: the CPU (got %s, %.3g)",
          tb_reason_name(why), est[TB_ROUTE_GPU]);
}

/* What the classes measured, written for the next process and read back
 * (the learned file's text): the same estimates and routes after the round
 * trip, the last 8 calls of a route kept in order, nothing taken from a
 * line that does not check out, and a route the process measured itself
 * not overwritten by the file's. */
static int count_lines(const char *text, const char *word)
{
    int n = 0;
    for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        n += strncmp(l, word, strlen(word)) == 0;
    return n;
}

static void test_learned(void)
{
    static char text[1 << 16], again[1 << 16];
    const tb_problem p = problem_of(row_nn(300, 300, 300));
    double model[2], est[2], est2[2];
    tb_predict_at(tb_rates_get(), &p, &model[TB_ROUTE_CPU], &model[TB_ROUTE_GPU]);
    tb_reason why, why2;
    tb_policy_forget();
    tb_policy_record(&p, TB_ROUTE_CPU, 1.3 * model[0], model[0], tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_CPU, 1.1 * model[0], model[0], tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_GPU, 0.9 * model[1], model[1], tb_rates_get());
    tb_policy_record(&p, TB_ROUTE_GPU, 1.0 * model[1], model[1], tb_rates_get());
    tb_route r = tb_policy_choose(&p, model, tb_rates_get(), est, &why);
    CHECK(tb_policy_export(text, sizeof text) == 0 && count_lines(text, "class ") == 1 &&
              count_lines(text, "call ") == 4,
          "one class and its four calls written:\n%s", text);
    tb_policy_forget();
    tb_policy_choose(&p, model, tb_rates_get(), est2, &why2);
    CHECK(near(est2[0], model[0]) && near(est2[1], model[1]), "forgotten: the model's times");
    tb_policy_forget();
    CHECK(tb_policy_import(text) == 5, "five lines read back");
    tb_route r2 = tb_policy_choose(&p, model, tb_rates_get(), est2, &why2);
    CHECK(r2 == r && why2 == why && near(est2[0], est[0]) && near(est2[1], est[1]),
          "read back: %s (%s) at %.4g / %.4g, as before the round trip: %s (%s) at %.4g / %.4g",
          r2 == TB_ROUTE_GPU ? "gpu" : "cpu", tb_reason_name(why2), est2[0], est2[1],
          r == TB_ROUTE_GPU ? "gpu" : "cpu", tb_reason_name(why), est[0], est[1]);

    /* Ten calls of a route: the last eight, oldest first, survive a round
     * trip unchanged. */
    tb_policy_forget();
    for (int i = 1; i <= 10; i++)
        tb_policy_record(&p, TB_ROUTE_CPU, i * 1e-4, model[0], tb_rates_get());
    tb_policy_export(text, sizeof text);
    tb_policy_forget();
    tb_policy_import(text);
    tb_policy_export(again, sizeof again);
    const char *first = strstr(text, "\ncall ");
    CHECK(count_lines(text, "call ") == 8 && first && strstr(first, " 0.0003 300 300 300\n") ==
              strchr(first + 1, '\n') - strlen(" 0.0003 300 300 300") &&
              !strstr(text, " 0.0002 300 300 300\n") && strcmp(text, again) == 0,
          "the last 8 of 10 calls, the same text after a round trip:\n%s---\n%s", text, again);

    /* Lines that do not check out are skipped, each for its own reason. */
    const unsigned key = tb_policy_class(&p);
    char bad[2048];
    snprintf(bad, sizeof bad,
             "call %u 0 0.001 5000 300 300\n"      /* m outside the class           */
             "call %u 0 -0.001 300 300 300\n"      /* a negative time               */
             "call %u 0 nan 300 300 300\n"
             "call %u 0 inf 300 300 300\n"
             "call %u 2 0.001 300 300 300\n"       /* no route 2                    */
             "call 0 0 0.001 300 300 300\n"        /* no class 0                    */
             "call %u 0 0.001 300 300 300 x\n"     /* more than a line holds        */
             "call %u 0 0.001 300 300\n"           /* less                          */
             "class %u 0 4096 1 1\n"               /* a re-check interval too long  */
             "class %u 9 8 1 1\n"                  /* since past every              */
             "class %u 0 16 2 0\n"                 /* visited is 0 or 1             */
             "call %u 0 0.001 300 300 300\n"       /* routine bits past the table's */
             "class %u 0 16 0 0\n"
             "nonsense\n\n# a comment\n",
             key, key, key, key, key, key, key, key, key, key, key | (unsigned)TB_ROUTINE_COUNT << 20,
             key | 15u << 20);
    tb_policy_forget();
    CHECK(tb_policy_import(bad) == 0, "no line of the bad text taken");
    tb_policy_choose(&p, model, tb_rates_get(), est2, &why2);
    CHECK(near(est2[0], model[0]) && near(est2[1], model[1]) && why2 != TB_WHY_CPU_MEASURED &&
              why2 != TB_WHY_GPU_MEASURED,
          "after the bad text: nothing measured (%s)", tb_reason_name(why2));

    /* Another routine's class is a class of its own, and its calls read
     * back into it. */
    tb_policy_forget();
    tb_problem t = p;
    t.routine = TB_R_trsm;
    double mt[2], est3[2];
    tb_reason why3;
    tb_predict_at(tb_rates_get(), &t, &mt[0], &mt[1]);
    tb_policy_record(&t, TB_ROUTE_CPU, 0.5 * mt[0], mt[0], tb_rates_get());
    tb_policy_export(text, sizeof text);
    tb_policy_forget();
    CHECK(tb_policy_import(text) == 2, "trsm's class and call read back:\n%s", text);
    tb_policy_choose(&t, mt, tb_rates_get(), est2, &why2);
    tb_policy_choose(&p, model, tb_rates_get(), est3, &why3);
    CHECK(near(est2[0], 0.5 * mt[0]) && near(est3[0], model[0]) && mt[0] < model[0],
          "trsm's class measured (%.4g, want %.4g), gemm's of the same shape not (%.4g); trsm's "
          "model below gemm's (half the flops)", est2[0], 0.5 * mt[0], est3[0]);

    /* A route this process measured keeps its own calls; the file fills in
     * the other. */
    tb_policy_forget();
    snprintf(bad, sizeof bad, "class %u 0 0 0 0\ncall %u 0 %.6g 300 300 300\ncall %u 1 %.6g 300 300 300\n",
             key, key, 0.5 * model[0], key, 3.0 * model[1]);
    tb_policy_record(&p, TB_ROUTE_GPU, 0.8 * model[1], model[1], tb_rates_get());
    CHECK(tb_policy_import(bad) == 2, "the class line and the CPU call taken, not the GPU's");
    tb_policy_choose(&p, model, tb_rates_get(), est2, &why2);
    CHECK(near(est2[0], 0.5 * model[0]) && near(est2[1], 0.8 * model[1]),
          "CPU from the file (%.4g, want %.4g), GPU this process's own (%.4g, want %.4g)",
          est2[0], 0.5 * model[0], est2[1], 0.8 * model[1]);
    tb_policy_forget();
}

int main(void)
{
    setenv("TILEDBLAS_CALIBRATE", "off", 1);
    const char *learn = getenv("TILEDBLAS_LEARN");
    if (learn && !strcmp(learn, "off")) {
        test_learn_off();
        return unit_summary("test_policy (TILEDBLAS_LEARN=off)");
    }
    test_margin();
    test_measure_both();
    test_median();
    test_gpu_tries_cpu();
    test_measured_turns();
    test_recheck();
    test_settle();
    test_sequences();
    test_rates_change();
    test_learned();
    return unit_summary("test_policy");
}
