/* src/account.c - what happens after every intercepted call: the decision
 * line at TILEDBLAS_VERBOSE=2 (its format is documented in README and parsed
 * by tests), then statistics and trace when they are on. */
#include "tb_internal.h"

static char tb_trans_char(int t)
{
    return t == TB_NO_TRANS ? 'N' : (t == TB_TRANS || t == TB_CONJ_TRANS) ? 'T' : '?';
}

void tb_account(const tb_record *r)
{
    const tb_call *c = r->call;
    tb_log(2, "sgemm %s %c%c m=%d n=%d k=%d -> %s (%s)",
           c->layout == TB_ROW_MAJOR ? "RowMajor" : c->layout == TB_COL_MAJOR ? "ColMajor" : "?",
           tb_trans_char(c->transa), tb_trans_char(c->transb), c->m, c->n, c->k,
           r->route == TB_ROUTE_GPU ? "gpu" : "cpu", r->reason);
}
