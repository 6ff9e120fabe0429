/* tests/test_run_plan.c - what kernels/run.cu decides before it launches
 * anything, checked without a GPU: into how many parts it splits K for a
 * grid that fills the GPU badly (tb_split_parts, for the H200's 132 SMs;
 * tb_wgmma_parts, the wgmma kernel's own split).
 * The shapes measured on the H200 (docs/kernels.md) are pinned here: 1500
 * and 1537 split, the 64-row grids of 1000, 1024 and 1025 stay whole, small
 * outputs with a long K are cut into many parts, and grids that fill the
 * GPU well are never split. */
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
    /* Small outputs with a long K: at most half the SMs' worth of 64 x 128
     * blocks, cut to about two blocks per SM, parts of 256 or more of K,
     * at most 32 parts. */
    expect(256, 256, 65536, 32);          /* 8 blocks */
    expect(128, 128, 100000, 32);         /* 2 blocks */
    expect(512, 512, 32768, 8);           /* 32 blocks: 264 / 32 */
    expect(320, 250, 8200, 26);           /* 10 blocks */
    expect(128, 190, 20000, 32);
    expect(64, 4096, 4096, 8);
    expect(384, 640, 1900, 7);            /* 30 blocks; K allows 7 parts of 256 */
    expect(600, 600, 2000, 5);            /* 50 blocks */
    expect(64, 64, 120000, 32);
    expect(256, 256, 1024, 1);            /* 0.13 GFLOP: too small to bother */
    expect(256, 256, 16384, 32);
    expect(2048, 64, 8000, 8);            /* 32 blocks of a tall thin C */
    expect(1024, 1024, 16384, 1);         /* 128 blocks: more than half the SMs */
    expect(700, 1000, 2000, 1);           /* 88 blocks */
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
    /* Small outputs: whatever the K, every part gets some of it, when K is
     * cut as kernels/run.cu cuts it (slices of ceil(k / parts) rounded up
     * to 32): 256x256x8193 asked for 32 parts of 288 would leave the last
     * three empty. All but the last part get at least 256. */
    expect(256, 256, 8193, 29);
    static const int small[][2] = {{256, 256}, {128, 128}, {64, 4096}, {320, 250}, {512, 512}, {64, 64}};
    for (int i = 0; i < 6; i++)
        for (int k = 512; k <= 70000; k += 97) {
            const int m = small[i][0], n = small[i][1], p = tb_split_parts(m, n, k, 132);
            const int kc = (int)(((k + p - 1) / p + 31) / 32 * 32);
            if (p < 1 || p > 32 || (p > 1 && ((long long)(p - 1) * kc >= k || kc < 256))) {
                failed++;
                printf("FAIL %dx%dx%d: %d parts of %d\n", m, n, k, p, kc);
            } else {
                passed++;
            }
        }
    /* The wgmma kernel's own split (tb_wgmma_parts): grids of fewer 128 x
     * 128 tiles than SMs with a long K, in parts of at least 256 that leave
     * none empty (slices of 32, ceil(slices / parts) each); full grids,
     * short K and grids already filling their waves stay whole. */
    static const int wg[][4] = {
        {768, 768, 16384, 11},  {1000, 1000, 100000, 2}, {1024, 1024, 1024, 2},
        {1025, 1025, 8192, 3},  {256, 256, 65536, 32},   {520, 390, 4000, 6},
        {700, 650, 3001, 3},    {384, 320, 4100, 13},    {256, 256, 8192, 32},
        {777, 9999, 333, 1},    {1234, 5678, 910, 1},    {256, 8192, 8192, 1},
        {1537, 1537, 1537, 1},  {4096, 4096, 4096, 1},   {8192, 8192, 256, 1},
        {1024, 1024, 500, 1},
    };
    for (size_t i = 0; i < sizeof wg / sizeof wg[0]; i++) {
        const int got = tb_wgmma_parts(wg[i][0], wg[i][1], wg[i][2], 132);
        if (got == wg[i][3]) {
            passed++;
        } else {
            failed++;
            printf("FAIL wgmma %dx%dx%d: %d parts, want %d\n", wg[i][0], wg[i][1], wg[i][2], got,
                   wg[i][3]);
        }
    }
    for (int m = 128; m <= 1600; m += 131)
        for (int k = 300; k <= 70000; k += 1013) {
            const int p = tb_wgmma_parts(m, m, k, 132), slices = (k + 31) / 32;
            const int chunk = (slices + p - 1) / p;
            if (p < 1 || p > 32 || (p > 1 && ((p - 1) * chunk >= slices || 32 * chunk < 256))) {
                failed++;
                printf("FAIL wgmma %dx%dx%d: %d parts of %d slices\n", m, m, k, p, chunk);
            } else {
                passed++;
            }
        }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
