/* tests/test_split.c - plan.c's cut of a call over several devices, checked
 * without a GPU: which calls are cut and into how many parts, rows or
 * columns, whole 128-row tiles in proportion to the devices' speeds, parts
 * that cover C exactly once, and each part's operands at the right offsets
 * for every transpose. */
#include "unit_check.h"

static tb_problem shape(int m, int n, int k, int ta, int tb)
{
    static float X[1];
    tb_problem p = {m, n, k, ta, tb, 1.0, 1.0, X, (size_t)(ta ? m : k), X, (size_t)(tb ? k : n),
                    X, (size_t)n + 3, TB_SINGLE, 0.0, 0.0};
    return p;
}

static int cut(int m, int n, int k, int ndev, const double *speed, tb_split *sp)
{
    tb_problem p = shape(m, n, k, 0, 0);
    return tb_plan_split(&p, ndev, speed, sp);
}

/* Parts in order, non-empty, tiles of 128 but the last, covering [0, dim). */
static int covers(const tb_split *sp, int dim)
{
    if (sp->start[0] != 0 || sp->start[sp->parts] != dim)
        return 0;
    for (int i = 0; i < sp->parts; i++)
        if (sp->start[i + 1] <= sp->start[i] || (i + 1 < sp->parts && sp->start[i + 1] % 128))
            return 0;
    return 1;
}

int main(void)
{
    tb_split sp;
    /* Whole: one device, or parts below an eight-panel product's work. */
    CHECK(cut(8192, 8192, 8192, 1, NULL, &sp) == 1, "one device cuts nothing");
    CHECK(cut(1000, 1000, 1000, 2, NULL, &sp) == 1, "1000^3 (1e9) was cut");
    CHECK(cut(1500, 1500, 1500, 2, NULL, &sp) == 1, "1500^3 (3.4e9, under two parts of 2e9) was cut");
    CHECK(cut(128, 100000, 1000000, 4, NULL, &sp) == 1 || sp.by_rows == 0, "a 128-row C cut by rows");
    /* Two parts at 1600^3; as many as devices once the work allows. */
    CHECK(cut(1600, 1600, 1600, 2, NULL, &sp) == 2 && sp.by_rows && sp.start[1] == 768 && covers(&sp, 1600),
          "1600^3 on 2: %d parts at %d", sp.parts, sp.start[1]);
    CHECK(cut(1600, 1600, 1600, 4, NULL, &sp) == 2, "1600^3 on 4: %d parts, want 2 (work)", sp.parts);
    CHECK(cut(8192, 8192, 8192, 4, NULL, &sp) == 4 && sp.start[1] == 2048 && sp.start[2] == 4096 &&
          sp.start[3] == 6144 && covers(&sp, 8192), "8192^3 on 4: not four equal parts");
    CHECK(cut(8192, 8192, 8192, 9, NULL, &sp) == TB_MAX_DEVICES, "more devices than slots");
    /* Rows when m >= n (op(B) sent whole to each), columns when not. */
    CHECK(cut(2000, 4096, 4096, 2, NULL, &sp) == 2 && !sp.by_rows && covers(&sp, 4096), "2000x4096 by rows");
    CHECK(cut(4096, 2000, 4096, 2, NULL, &sp) == 2 && sp.by_rows && covers(&sp, 4096), "4096x2000 by columns");
    /* In proportion to speed; an unmeasured device counts as the mean. */
    const double s31[] = {3.0, 1.0}, s0[] = {2.0, 0.0, 4.0}, slow[] = {1000.0, 1.0};
    CHECK(cut(8192, 8192, 8192, 2, s31, &sp) == 2 && sp.start[1] == 6144, "3:1 put %d of 8192 first", sp.start[1]);
    CHECK(cut(8192, 8192, 8192, 3, s0, &sp) == 3 && sp.start[1] == 1792 && sp.start[2] == 4608 &&
          covers(&sp, 8192), "2:mean:4 at %d, %d", sp.start[1], sp.start[2]);
    CHECK(cut(8192, 8192, 8192, 2, slow, &sp) == 1 && sp.dev[0] == 0 && covers(&sp, 8192),
          "a device too slow for a tile got one: %d parts", sp.parts);
    /* Every shape: the parts cover C once. */
    int bad = 0;
    for (int m = 100; m < 20000; m += 1237)
        for (int n = 150; n < 20000; n += 1711)
            for (int d = 1; d <= TB_MAX_DEVICES; d++) {
                tb_split s;
                int parts = cut(m, n, 3000, d, NULL, &s);
                bad += parts < 1 || parts > d || !covers(&s, s.by_rows ? m : n);
            }
    CHECK(bad == 0, "%d cuts leave C uncovered", bad);
    /* A part's operands: op(A)'s rows (or op(B)'s columns) and C's window. */
    for (int t = 0; t < 4; t++) {
        const int ta = t & 1, tb = t >> 1;
        tb_problem p = shape(4096, 2048, 1024, ta, tb);
        tb_split s;
        tb_plan_split(&p, 2, NULL, &s);
        tb_problem q = tb_plan_part(&p, &s, 1);
        const size_t r0 = (size_t)s.start[1], e = sizeof(float);
        CHECK(q.m == 4096 - (int)r0 && q.n == 2048 && q.k == 1024, "part 1's shape");
        CHECK((const char *)q.A - (const char *)p.A == (ptrdiff_t)((ta ? r0 : r0 * p.lda) * e) && q.B == p.B &&
              (char *)q.C - (char *)p.C == (ptrdiff_t)(r0 * p.ldc * e), "by rows, transposes %d%d: offsets", ta, tb);
        p = shape(2048, 4096, 1024, ta, tb);
        tb_plan_split(&p, 2, NULL, &s);
        q = tb_plan_part(&p, &s, 1);
        const size_t c0 = (size_t)s.start[1];
        CHECK(q.n == 4096 - (int)c0 && q.m == 2048 && q.A == p.A &&
              (const char *)q.B - (const char *)p.B == (ptrdiff_t)((tb ? c0 * p.ldb : c0) * e) &&
              (char *)q.C - (char *)p.C == (ptrdiff_t)(c0 * e), "by columns, transposes %d%d: offsets", ta, tb);
    }
    return unit_summary("test_split");
}
