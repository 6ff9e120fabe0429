/* tests/test_start.c - the start rule alone (start.c, programs.c): when rent
 * or buy makes a start due, with a start's budget and with none (a run that
 * starts ahead), and what a program's last runs say about the next one,
 * run after run, including programs that change what they do. History in,
 * decision out: no GPU, no file. */
#include "unit_check.h"

/* A start's cost as start.c weighs it. */
#define START_S 0.35

static void test_start_due(void)
{
    CHECK(!tb_start_due(0.0, 0.017, START_S), "one 2048^3 call (17 ms on the CPU) does not start the GPU");
    CHECK(!tb_start_due(0.017 * 10, 0.017, START_S), "nor do eleven");
    CHECK(tb_start_due(0.017 * 20, 0.017, START_S), "twenty-one do");
    CHECK(tb_start_due(0.0, 1.0, START_S), "one 8192^3 call (1 s on the CPU) starts it at once");
    CHECK(!tb_start_due(0.0, 0.0, START_S), "a call the GPU would not take never does");
    CHECK(tb_start_due(0.0, 0.017, 0.0), "ahead: the first call the GPU would take starts it");
    CHECK(tb_start_due(0.0, 0.0005, 0.0), "ahead: however small the call");
    CHECK(!tb_start_due(0.5, 0.0, 0.0), "ahead: a call the GPU would not take still never does");
}

/* Runs of a program, one a letter: its GPU work, 'L' 0.5 s (more than a
 * start's cost: rent or buy starts CUDA), 'S' 0.05 s, 'E' exactly a
 * start's cost, 'e' just under it. Each run is decided from the ones before
 * it (newest first, the last three kept, as the record keeps them); the
 * decisions, 'A' ahead or 'R' rent or buy, one a run, go to out. */
static void decide_runs(const char *runs, char *out)
{
    tb_program_run kept[TB_RUNS_KEPT];
    int n = 0;
    char why[200];
    for (int i = 0; runs[i]; i++) {
        out[i] = tb_start_ahead(kept, n, START_S, why, sizeof why) ? 'A' : 'R';
        const double work = runs[i] == 'L' ? 0.5 : runs[i] == 'E' ? START_S
                          : runs[i] == 'e' ? START_S * 0.999 : 0.05;
        for (int j = (n < TB_RUNS_KEPT ? n : TB_RUNS_KEPT - 1); j > 0; j--)
            kept[j] = kept[j - 1];
        kept[0] = (tb_program_run){.start = out[i] == 'A' ? TB_RUN_AHEAD : TB_RUN_STARTED,
                           .before_s = 0.0, .after_s = work, .calls = 30};
        if (n < TB_RUNS_KEPT)
            n++;
        out[i + 1] = '\0';
    }
}

static void expect_runs(const char *runs, const char *want, const char *what)
{
    char got[64];
    decide_runs(runs, got);
    CHECK(strcmp(got, want) == 0, "%s: runs %s decided %s, want %s", what, runs, got, want);
}

static void test_start_ahead(void)
{
    char why[200];
    CHECK(!tb_start_ahead(NULL, 0, START_S, why, sizeof why) && strcmp(why, "no record") == 0,
          "no record: rent or buy (%s)", why);
    expect_runs("LLLL", "RAAA", "a long program starts ahead from its second run on");
    expect_runs("SSSS", "RRRR", "a short one never does");
    expect_runs("LSSS", "RARR", "a second run that is short pays once, the third does not");
    expect_runs("LLLSSS", "RAAAAR", "long, then short: followed after two short runs");
    expect_runs("SSSLLL", "RRRRRA", "short, then long: followed after two long runs");
    expect_runs("LSLSLS", "RARARA", "alternating: the newest run decides a tie");
    expect_runs("LLSLLS", "RAAAAA", "one short run among long ones changes nothing");
    expect_runs("SSLSSL", "RRRRRR", "nor a lone long run among short ones");
    expect_runs("EE", "RA", "a start's cost exactly counts as worth one");
    expect_runs("ee", "RR", "just under it does not");

    tb_program_run two[2] = {{.start = TB_RUN_AHEAD, .before_s = 0.02, .after_s = 0.5, .calls = 30},
                     {.start = TB_RUN_STARTED, .before_s = 0.36, .after_s = 0.12, .calls = 30}};
    CHECK(tb_start_ahead(two, 2, START_S, why, sizeof why) &&
          strcmp(why, "GPU work of the last runs 0.52, 0.48 s; a start costs 0.35 s") == 0,
          "before and after the start add up; the words: each run's GPU work, newest first, "
          "and a start's cost: %s", why);
    char tiny[8];
    CHECK(tb_start_ahead(two, 2, START_S, tiny, sizeof tiny) && strlen(tiny) == 7,
          "a short buffer cuts the words, not the decision");
}

int main(void)
{
    test_start_due();
    test_start_ahead();
    return unit_summary("test_start");
}
