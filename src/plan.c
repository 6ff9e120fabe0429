/* src/plan.c - how the GPU path cuts one product: C in column blocks, each
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
    const double work = (double)p->m * p->n * p->k;
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
