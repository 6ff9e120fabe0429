/* tests/test_run_plan.c - what kernels/run.cu decides before it launches
 * anything, checked without a GPU: into how many parts it splits K for a
 * grid that fills the GPU badly (tb_split_parts, for the H200's 132 SMs).
 * The shapes measured on the H200 (docs/kernels.md) are pinned here: 1500
 * and 1537 split, the 64-row grids of 1000, 1024 and 1025 stay whole, and
 * grids that fill the GPU well are never split. */
#include "tb_kernels.h"
#include <stdio.h>

static int failed, passed;

static void expect(int m, int n, int k, int want)
{
    const int got = tb_split_parts(m, n, k, 132);
    if (got == want) {
        passed++;
    } else {
        failed++;
        printf("FAIL %dx%dx%d: %d parts, want %d\n", m, n, k, got, want);
    }
}

int main(void)
{
    /* Split: 169 and 144 tiles of 128 x 128 for 132 SMs. */
    expect(1537, 1537, 1537, 3);
    expect(1500, 1500, 1500, 4);
    expect(1537, 1411, 1029, 4);
    expect(1500, 1530, 2000, 4);
    /* Whole: fewer 128-row tiles than SMs (the launcher's 64-row grid). */
    expect(1000, 1000, 1000, 1);
    expect(1024, 1024, 1024, 1);
    expect(1025, 1025, 1025, 1);
    expect(1029, 1025, 1537, 1);
    /* 2049: 289 tiles, three waves of 132 with the last 19% full. */
    expect(2049, 2049, 2049, 4);
    /* Whole: grids that fill the GPU well, or too little K, or too small. */
    expect(2047, 2047, 2047, 1);
    expect(2048, 2048, 2048, 1);
    expect(3001, 3001, 3001, 1);
    expect(4096, 4096, 4096, 1);
    expect(4097, 4097, 4097, 1);
    expect(8191, 8191, 8191, 1);
    expect(5003, 4099, 2053, 1);
    expect(1024, 4096, 4096, 1);          /* calibrate.c's kernel timing */
    expect(1537, 1537, 500, 1);
    expect(700, 700, 700, 1);
    /* Every split leaves each part at least 256 of K, at most 4 parts. */
    for (int m = 1100; m <= 2200; m += 37)
        for (int k = 512; k <= 4096; k += 211) {
            const int p = tb_split_parts(m, m, k, 132);
            if (p < 1 || p > 4 || (p > 1 && k / p < 256)) {
                failed++;
                printf("FAIL %dx%dx%d: %d parts\n", m, m, k, p);
            } else {
                passed++;
            }
        }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
