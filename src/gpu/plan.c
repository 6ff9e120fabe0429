/* src/gpu/plan.c - how the GPU path cuts one product: C in column blocks, each
 * block in panels of rows streamed through device slots, within a device
 * memory budget. Pure arithmetic: the pipeline (pipeline.c) runs the plan
 * and the cost model (costmodel.c) predicts it; neither cuts on its own. */
#include "tb_internal.h"

/* Small products go in one piece: a panel's fixed costs (events, a wait,
 * a launch) would dominate. Larger ones in 4 panels of rows, so that A's
 * upload, the kernels and C's way back overlap; the largest in 8, whose
 * shorter first and last panels leave less of the call unoverlapped. */
#define TB_PLAN_ONE_PIECE (256.0 * 1024 * 1024)   /* m n k below: one panel */
#define TB_PLAN_EIGHT 2e9                         /* m n k above: 8 panels  */

static size_t tb_round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

size_t tb_plan_bytes(const tb_problem *p, const tb_plan *pl)
{
    /* Pitches round rows up to 512 bytes; count that. */
    const size_t k = (size_t)p->k, row = 512, mp = pl->mp, nb = pl->nb, e = tb_prec_size(p->prec);
    size_t b = p->transb ? nb * tb_round_up(k * e, row) : k * tb_round_up(nb * e, row);
    size_t a = p->transa ? k * tb_round_up(mp * e, row) : mp * tb_round_up(k * e, row);
    size_t c = mp * tb_round_up(nb * e, row);
    return b + (size_t)pl->slots * (a + c);
}

int tb_plan_make(const tb_problem *p, size_t budget, tb_plan *pl)
{
    const size_t m = (size_t)p->m, n = (size_t)p->n;
    const double work = tb_problem_flops(p) / 2.0;   /* m n k, four times it complex */
    const size_t panels = work < TB_PLAN_ONE_PIECE ? 1 : work < TB_PLAN_EIGHT ? 4 : 8;
    size_t mp = panels == 1 ? m : tb_round_up((m + panels - 1) / panels, 128);
    pl->mp = mp > m ? m : mp;
    pl->nb = n;
    pl->slots = pl->mp >= m ? 1 : TB_PLAN_SLOTS;
    /* Over the budget: thinner panels first (cheap), then narrower column
     * blocks (each block sends A again), then thinner panels still. */
    while (budget > 0 && tb_plan_bytes(p, pl) > budget) {
        if (pl->mp > 512)
            pl->mp = tb_round_up(pl->mp / 2, 128), pl->slots = TB_PLAN_SLOTS;
        else if (pl->nb > 256)
            pl->nb = tb_round_up(pl->nb / 2, 128);
        else if (pl->mp > 64)
            pl->mp = tb_round_up(pl->mp / 2, 64), pl->slots = TB_PLAN_SLOTS;
        else
            return -1;
    }
    return 0;
}

int tb_plan_panels(const tb_problem *p, const tb_plan *pl)
{
    return pl->mp > 0 ? (int)(((size_t)p->m + pl->mp - 1) / pl->mp) : 1;
}

/* Several devices: C cut into one part per device, each a product of its
 * own pipelined as above. By rows when m >= n (each part needs all of
 * op(B), the smaller operand then) and by columns otherwise (all of op(A)),
 * in whole 128-row (or column) tiles, in proportion to the devices' speeds.
 * A call is cut only as far as each part keeps the work of an eight-panel
 * product (TB_PLAN_EIGHT): a smaller part spends more of its time in a
 * device's fixed costs and in the thread that runs it than it saves. */
int tb_plan_split(const tb_problem *p, int ndev, const double *speed, tb_split *sp)
{
    const double work = tb_problem_flops(p) / 2.0;   /* m n k, four times it complex */
    const int by_rows = p->m >= p->n, dim = by_rows ? p->m : p->n;
    int parts = ndev < TB_MAX_DEVICES ? ndev : TB_MAX_DEVICES;
    if (work / TB_PLAN_EIGHT < parts)
        parts = (int)(work / TB_PLAN_EIGHT);
    if (dim / 128 < parts)
        parts = dim / 128;
    sp->parts = 1;
    sp->by_rows = by_rows;
    sp->start[0] = 0;
    sp->start[1] = dim;
    sp->dev[0] = 0;
    if (parts < 2)
        return 1;
    /* Unmeasured devices count as the measured ones' mean (1 if none). */
    double known = 0.0, w[TB_MAX_DEVICES], sum = 0.0;
    int nknown = 0;
    for (int i = 0; i < parts; i++)
        if (speed && speed[i] > 0.0)
            known += speed[i], nknown++;
    for (int i = 0; i < parts; i++)
        sum += w[i] = speed && speed[i] > 0.0 ? speed[i] : nknown ? known / nknown : 1.0;
    double cum = 0.0;
    int n = 0, prev = 0;
    for (int i = 0; i < parts; i++) {
        cum += w[i];
        int end = i == parts - 1 ? dim : (int)(cum / sum * dim / 128.0 + 0.5) * 128;
        end = end > dim ? dim : end;
        if (end <= prev)
            continue;              /* too slow for a tile of its own */
        sp->dev[n] = i;
        sp->start[n++] = prev;
        prev = end;
    }
    sp->start[n] = dim;
    sp->parts = n;
    return n;
}

tb_problem tb_plan_part(const tb_problem *p, const tb_split *sp, int i)
{
    const size_t s0 = (size_t)sp->start[i];
    const int len = sp->start[i + 1] - sp->start[i];
    return sp->by_rows ? tb_sub_problem(p, s0, 0, len, p->n) : tb_sub_problem(p, 0, s0, p->m, len);
}
