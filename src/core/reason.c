/* src/core/reason.c - the words of the reasons (tb_reason, decided by
 * policy.c): the one name table that decision lines, statistics, the trace
 * and the tool print. Calls nothing, so that every file may use it. */
#include "tb_internal.h"
#include <stdio.h>

static const char *const tb_reason_names[TB_WHY_COUNT] = {
    [TB_WHY_SMALL] = "small",
    [TB_WHY_ILLEGAL] = "illegal-args",
    [TB_WHY_MODE_CPU] = "mode-cpu",
    [TB_WHY_NO_OP] = "no-op",
    [TB_WHY_SCOPE] = "scope",
    [TB_WHY_CPU_FASTER] = "cpu-faster",
    [TB_WHY_GPU_FASTER] = "gpu-faster",
    [TB_WHY_CPU_MEASURED] = "cpu-measured",
    [TB_WHY_GPU_MEASURED] = "gpu-measured",
    [TB_WHY_CPU_TRY] = "cpu-try",
    [TB_WHY_GPU_TRY] = "gpu-try",
    [TB_WHY_GPU_RECHECK] = "gpu-recheck",
    [TB_WHY_FORCED] = "forced",
    [TB_WHY_VERIFY] = "verify",
    [TB_WHY_VERIFY_SKIPPED] = "verify-skipped",
    [TB_WHY_VERIFY_GPU_FAILED] = "verify-gpu-failed",
    [TB_WHY_NO_GPU] = "no-gpu",
    [TB_WHY_GPU_INIT_FAILED] = "gpu-init-failed",
    [TB_WHY_GPU_DISABLED] = "gpu-disabled",
    [TB_WHY_AFTER_FORK] = "after-fork",
    [TB_WHY_GPU_FAILED] = "gpu-failed",
    [TB_WHY_GPU_STARTING] = "gpu-starting",
    [TB_WHY_INT_WIDTH] = "int-width-unknown",
    [TB_WHY_WIDE_INTS] = "ints-past-32-bits",
    [TB_WHY_CPU_ONLY] = "cpu-only",
    [TB_WHY_TOO_BIG] = "too-big",
    [TB_WHY_VERIFY_GEMM_ONLY] = "verify-gemm-only",
};

const char *tb_reason_name(tb_reason why)
{
    return why >= 0 && why < TB_WHY_COUNT && tb_reason_names[why] ? tb_reason_names[why] : "?";
}

const char *tb_reason_text(tb_reason why, tb_stage failed, char *buf, size_t len)
{
    if (why == TB_WHY_GPU_FAILED)
        snprintf(buf, len, "%s:%s", tb_reason_name(why), tb_stage_name(failed));
    else
        snprintf(buf, len, "%s", tb_reason_name(why));
    return buf;
}

int tb_reason_ineligible(tb_reason why)
{
    return why == TB_WHY_SMALL || why == TB_WHY_ILLEGAL || why == TB_WHY_MODE_CPU ||
           why == TB_WHY_NO_OP || why == TB_WHY_SCOPE || why == TB_WHY_INT_WIDTH ||
           why == TB_WHY_WIDE_INTS || why == TB_WHY_CPU_ONLY || why == TB_WHY_VERIFY_GEMM_ONLY;
}
