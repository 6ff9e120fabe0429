/* src/account/account.c - what happens after every intercepted call: the
 * decision line at TILEDBLAS_VERBOSE=2 (its format is documented in README
 * and parsed by tests; its options and m, n, k are routines.c's), then
 * statistics (stats.c) and trace (trace.c) when they are on. When all of
 * that is off this must cost a few loads and branches, no more. */
#include "tb_internal.h"
#include <stdio.h>

void tb_account(const tb_record *r)
{
    const tb_settings *s = tb_settings_get();
    const tb_call *c = r->call;
    if (s->verbose >= 2) {
        /* Calls the cost model weighed end with its two predictions. */
        char pred[64] = "", why[48], ops[8];
        if (r->pred_cpu_s > 0.0 && r->pred_gpu_s > 0.0)
            snprintf(pred, sizeof pred, " predicted cpu %.3f ms, gpu %.3f ms", r->pred_cpu_s * 1e3,
                     r->pred_gpu_s * 1e3);
        tb_log(2, "%s %s %s m=%d n=%d k=%d -> %s (%s)%s",
               tb_call_name(c), c->layout == TB_ROW_MAJOR ? "RowMajor" : c->layout == TB_COL_MAJOR ? "ColMajor" : "?",
               tb_call_ops(c, ops), c->m, c->n, c->k,
               r->route == TB_ROUTE_GPU ? "gpu" : "cpu",
               tb_reason_text(r->reason, r->failed, why, sizeof why), pred);
    }
    if (s->stats || s->mode == TB_MODE_VERIFY)
        tb_stats_record(r);
    if (s->trace)
        tb_trace_record(r);
}
