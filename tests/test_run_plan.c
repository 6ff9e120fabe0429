/* tests/test_run_plan.c - how a product is run, decided before anything is
 * launched and checked without a GPU: into how many parts K is split for a
 * grid that fills the GPU badly (tb_split_parts, for the H200's 132 SMs;
 * tb_wgmma_parts and tb_wgmma_tail_parts, the wgmma kernel's own splits;
 * tb_small_parts, the small kernel's), and the registry's whole plan for a
 * kernel (tb_kernel_plan: which operands are copied to aligned rows, which
 * kernels' K is cut and into slices of what depth).
 * The shapes measured on the H200 (docs/kernels.md) are pinned here: 1500
 * and 1537 split, the 64-row grids of 1000, 1024 and 1025 stay whole, small
 * outputs with a long K are cut into many parts, and grids that fill the
 * GPU well are never split. */
#include "tb_kernels.h"
#include <stdio.h>

static int failed, passed;

static void expect(int m, int n, int k, int want)
{
    const int got = tb_split_parts(TB_F32, m, n, k, 132);
    if (got == want) {
        passed++;
    } else {
        failed++;
        printf("FAIL %dx%dx%d: %d parts, want %d\n", m, n, k, got, want);
    }
}

/* Each row of t: m, n, k and the parts that plan(m, n, k, 132) must give. */
static void expect_table(const char *what, int (*plan)(int, int, int, int), const int (*t)[4],
                         size_t rows)
{
    for (size_t i = 0; i < rows; i++) {
        const int got = plan(t[i][0], t[i][1], t[i][2], 132);
        if (got == t[i][3]) {
            passed++;
        } else {
            failed++;
            printf("FAIL %s %dx%dx%d: %d parts, want %d\n", what, t[i][0], t[i][1], t[i][2], got,
                   t[i][3]);
        }
    }
}

/* The small kernel's plans in float and double, as expect_table takes them. */
static int small32(int m, int n, int k, int sms) { return tb_small_parts(TB_F32, m, n, k, sms); }
static int small64(int m, int n, int k, int sms) { return tb_small_parts(TB_F64, m, n, k, sms); }

/* plan(m, n, k, 132) gives 1 to 32 parts of ceil(slices / parts) slices of
 * 32, none empty, each (when split) at least min_chunk slices. */
static void expect_slices(const char *what, int (*plan)(int, int, int, int), int m, int n, int k,
                          int min_chunk)
{
    const int p = plan(m, n, k, 132), slices = (k + 31) / 32;
    const int chunk = (slices + p - 1) / p;
    if (p < 1 || p > 32 || (p > 1 && ((p - 1) * chunk >= slices || chunk < min_chunk))) {
        failed++;
        printf("FAIL %s %dx%dx%d: %d parts of %d slices\n", what, m, n, k, p, chunk);
    } else {
        passed++;
    }
}

/* tb_kernel_plan(kernel, g, 132) must give pack_a, pack_b, parts and
 * slice as written. Pointers are only numbers here: 4096 is 16-byte
 * aligned, 4100 (fp32) and 4104 (fp64) are not. */
static void expect_plan(const char *kernel, tb_dtype t, int m, int n, int k, size_t a, size_t lda,
                        size_t b, size_t ldb, double alpha, int pack_a, int pack_b, int parts,
                        int slice)
{
    const tb_kernel_info *K = tb_kernel_by_name(kernel);
    const tb_gemm g = {t, m, n, k, 0, 0, {alpha, 0.0}, {0.0, 0.0}, (const void *)a, lda,
                       (const void *)b, ldb, (void *)4096, (size_t)n};
    if (!K) {
        failed++;
        printf("FAIL plan: no kernel %s\n", kernel);
        return;
    }
    const tb_run_plan p = tb_kernel_plan(K, &g, 132);
    if (p.pack_a == pack_a && p.pack_b == pack_b && p.parts == parts && p.slice == slice) {
        passed++;
    } else {
        failed++;
        printf("FAIL plan %s %dx%dx%d: copies %d %d, %d parts of %d; want %d %d, %d of %d\n",
               kernel, m, n, k, p.pack_a, p.pack_b, p.parts, p.slice, pack_a, pack_b, parts,
               slice);
    }
}

static void expect_plans(void)
{
    /* tf32x3 (aligned rows wanted, K in parts): 1537^3 in 3 parts of 544
     * (the last 449); a stride of 1537 floats or a base 4 bytes off copies
     * that operand, read by 13 tiles of C; a stride of 1544 does not. */
    expect_plan("tf32x3", TB_F32, 1537, 1537, 1537, 4096, 1544, 4096, 1544, 1.0, 0, 0, 3, 544);
    expect_plan("tf32x3", TB_F32, 1537, 1537, 1537, 4096, 1537, 4096, 1544, 1.0, 1, 0, 3, 544);
    expect_plan("tf32x3", TB_F32, 1537, 1537, 1537, 4096, 1544, 4100, 1544, 1.0, 0, 1, 3, 544);
    expect_plan("tf32-fast", TB_F32, 1537, 1537, 1537, 4100, 1537, 4100, 1537, -2.0, 1, 1, 3, 544);
    /* A whole grid: copies only. 4096 x 384 x 4096: op(A) is read by 3
     * column tiles (not copied), op(B) by 32 row tiles. */
    expect_plan("tf32x3", TB_F32, 4096, 384, 4096, 4100, 4097, 4100, 385, 1.0, 0, 1, 1, 4096);
    /* Below 2 x 384^3 flops, A and B not read (alpha 0, k 0): nothing. */
    expect_plan("tf32x3", TB_F32, 300, 300, 300, 4100, 301, 4100, 301, 1.0, 0, 0, 1, 300);
    expect_plan("tf32x3", TB_F32, 1537, 1537, 1537, 4100, 1537, 4100, 1537, 0.0, 0, 0, 1, 1537);
    expect_plan("tf32x3", TB_F32, 1537, 1537, 0, 4100, 1, 4100, 1537, 1.0, 0, 0, 1, 0);
    /* Kernels that want no copies and walk K whole or cut it themselves. */
    expect_plan("wgmma", TB_F32, 1537, 1537, 1537, 4100, 1537, 4100, 1537, 1.0, 0, 0, 1, 1537);
    expect_plan("small", TB_F32, 1537, 1537, 1537, 4100, 1537, 4100, 1537, 1.0, 0, 0, 1, 1537);
    expect_plan("warptile", TB_F32, 1537, 1537, 1537, 4100, 1537, 4100, 1537, 1.0, 0, 0, 1, 1537);
    /* dmma: 1025 x 1025 x 8192 in 5 parts of 1664 (the last 1536); bases
     * one double off are copied (9 tiles read each). 768 x 768 x 16384: 11
     * parts of 1504. */
    expect_plan("dmma", TB_F64, 1025, 1025, 8192, 4096, 8192, 4096, 1026, 1.0, 0, 0, 5, 1664);
    expect_plan("dmma-k16", TB_F64, 1025, 1025, 8192, 4104, 8192, 4104, 1026, 1.0, 1, 1, 5, 1664);
    expect_plan("dmma", TB_F64, 768, 768, 16384, 4096, 16384, 4096, 768, 0.5, 0, 0, 11, 1504);
    expect_plan("dtiled16", TB_F64, 1025, 1025, 8192, 4104, 8193, 4104, 1025, 1.0, 0, 0, 1, 8192);
    /* A wanted triangle: K cut by its tiles alone. dsyrk 8192's diagonal
     * block, 2048 x 2048 x 8192: whole (256 tiles, two waves of 132 at
     * 97%); its lower triangle, 136 tiles (two waves at 52%), in parts. */
    {
        const tb_kernel_info *dm = tb_kernel_by_name("dmma");
        tb_gemm q = {TB_F64, 2048, 2048, 8192, 0, 1, {1.0, 0.0}, {0.0, 0.0}, (const void *)4096,
                     8192, (const void *)4096, 8192, (void *)4096, 2048, 0, 1};
        const tb_run_plan whole = tb_kernel_plan(dm, &q, 132);
        q.tri = TB_TRI_LOWER;
        const tb_run_plan tri = tb_kernel_plan(dm, &q, 132);
        /* A block of one tile column: its triangle is all of its tiles. */
        q.n = q.m = q.ldc = 128;
        const tb_run_plan one = tb_kernel_plan(dm, &q, 132);
        q.tri = 0;
        const tb_run_plan one_whole = tb_kernel_plan(dm, &q, 132);
        if (whole.parts == 1 && tri.parts > 1 && one.parts == one_whole.parts) {
            passed++;
        } else {
            failed++;
            printf("FAIL plan dmma 2048x2048x8192: %d parts whole, %d with a triangle; 128: %d "
                   "and %d\n", whole.parts, tri.parts, one_whole.parts, one.parts);
        }
        printf("plan dmma 2048x2048x8192 lower triangle: %d parts of %d\n", tri.parts, tri.slice);
    }
    /* Without an SM count (0: CUDA could not say) K stays whole. */
    const tb_kernel_info *tf = tb_kernel_by_name("tf32x3");
    const tb_gemm g = {TB_F32, 1537, 1537, 1537, 0, 0, {1.0, 0.0}, {0.0, 0.0}, (const void *)4096,
                       1544, (const void *)4096, 1544, (void *)4096, 1544};
    const tb_run_plan p0 = tb_kernel_plan(tf, &g, 0);
    if (p0.parts == 1 && p0.slice == 1537 && !p0.pack_a && !p0.pack_b) {
        passed++;
    } else {
        failed++;
        printf("FAIL plan without SMs: %d parts of %d\n", p0.parts, p0.slice);
    }
    /* Whatever the shape: at most TB_MAX_PARTS parts, none empty, slices a
     * multiple of 32. */
    for (int t = 0; t < 2; t++)
        for (int m = 64; m <= 3000; m += 211)
            for (int k = 1; k <= 70000; k += 1409) {
                const tb_gemm q = {t ? TB_F64 : TB_F32, m, m / 2 + 1, k, 1, 1, {1.0, 0.0},
                                   {1.0, 0.0}, (const void *)4096, (size_t)m, (const void *)4096,
                                   (size_t)k, (void *)4096, (size_t)m};
                const tb_run_plan r = tb_kernel_plan(tb_kernel_by_name(t ? "dmma" : "tf32x3"), &q, 132);
                if (r.parts < 1 || r.parts > TB_MAX_PARTS ||
                    (r.parts > 1 && (r.slice % 32 || (long long)(r.parts - 1) * r.slice >= k ||
                                     (long long)r.parts * r.slice < k)) ||
                    (r.parts == 1 && r.slice != k)) {
                    failed++;
                    printf("FAIL plan %s %dx%dx%d: %d parts of %d\n", t ? "dmma" : "tf32x3", m,
                           m / 2 + 1, k, r.parts, r.slice);
                } else {
                    passed++;
                }
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
            const int p = tb_split_parts(TB_F32, m, m, k, 132);
            if (p < 1 || p > 4 || (p > 1 && k / p < 256)) {
                failed++;
                printf("FAIL %dx%dx%d: %d parts\n", m, m, k, p);
            } else {
                passed++;
            }
        }
    /* Small outputs: whatever the K, every part gets some of it, when K is
     * cut as tb_kernel_plan cuts it (slices of ceil(k / parts) rounded up
     * to 32): 256x256x8193 asked for 32 parts of 288 would leave the last
     * three empty. All but the last part get at least 256. */
    expect(256, 256, 8193, 29);
    static const int small[][2] = {{256, 256}, {128, 128}, {64, 4096}, {320, 250}, {512, 512}, {64, 64}};
    for (int i = 0; i < 6; i++)
        for (int k = 512; k <= 70000; k += 97) {
            const int m = small[i][0], n = small[i][1], p = tb_split_parts(TB_F32, m, n, k, 132);
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
    expect_table("wgmma", tb_wgmma_parts, wg, sizeof wg / sizeof wg[0]);
    for (int m = 128; m <= 1600; m += 131)
        for (int k = 300; k <= 70000; k += 1013)
            expect_slices("wgmma", tb_wgmma_parts, m, m, k, 256 / 32);
    /* The last wave's split (tb_wgmma_tail_parts): a grid of at least one
     * wave whose last wave holds r tiles runs them in S / r parts, at most
     * 32, each at least 64 deep (two slices), none empty; grids under a wave
     * (tb_wgmma_parts' case), grids that fill their waves and last waves of
     * more than half the SMs stay whole. */
    static const int tl[][4] = {
        {777, 9999, 333, 4},    {8192, 8192, 8192, 32}, {16384, 16384, 16384, 8},
        {4096, 4096, 4096, 1},  {3000, 3000, 3000, 2},  {1234, 5678, 910, 2},
        {1300, 1700, 900, 6},   {8192, 8192, 256, 4},   {2048, 2048, 2048, 1},
        {1700, 1300, 40, 1},    {1024, 1024, 1024, 1},  {1408, 1536, 4096, 1},
        {128, 35072, 512, 8},
    };
    expect_table("wgmma tail", tb_wgmma_tail_parts, tl, sizeof tl / sizeof tl[0]);
    for (int m = 1000; m <= 9000; m += 1377)
        for (int k = 1; k <= 20000; k += 997)
            expect_slices("wgmma tail", tb_wgmma_tail_parts, m, m + 313, k, 2);
    /* The small kernel's split (tb_small_parts, gemm_05_small.cu): 32 x 32
     * tiles times parts until one full wave of the SMs' resident blocks (8
     * a SM for float, 4 for double), each part at least 64 deep and a whole
     * number of 32-deep phases, at most 64 parts, none empty. */
    static const int sm[][4] = {
        {64, 64, 2048, 32}, {100, 300, 500, 6}, {33, 47, 3001, 32}, {450, 450, 450, 5},
        {1, 1, 5000, 53},   {300, 17, 777, 9},  {128, 128, 128, 2}, {256, 256, 256, 4},
        {512, 512, 512, 4}, {96, 96, 8192, 64}, {4096, 32, 32, 1},  {8, 8, 8, 1},
        {200, 200, 4000, 21}, {2048, 64, 512, 8}, {17, 5000, 64, 1}, {1000, 20, 300, 4},
    };
    expect_table("small", small32, sm, sizeof sm / sizeof sm[0]);
    static const int dsm[][4] = {
        {64, 64, 2048, 32},  {100, 300, 500, 6},  {450, 450, 450, 3},   {1, 1, 5000, 53},
        {512, 512, 512, 3},  {96, 96, 8192, 52},  {200, 200, 4000, 11}, {2048, 64, 512, 4},
        {300, 100, 2000, 13}, {4096, 32, 32, 1},  {8, 8, 8, 1},         {1000, 20, 300, 4},
    };
    expect_table("dsmall", small64, dsm, sizeof dsm / sizeof dsm[0]);
    for (int t = 0; t < 2; t++)
        for (int m = 1; m <= 700; m += 37)
            for (int n = 1; n <= 700; n += 53)
                for (int k = 1; k <= 9000; k += 211) {
                    const int p = tb_small_parts(t ? TB_F64 : TB_F32, m, n, k, 132);
                    const int kc = p > 1 ? tb_small_slice(k, p) : k;
                    if (p < 1 || p > 64 ||
                        (p > 1 && (kc < 64 || kc % 32 || (p - 1) * kc >= k || p * kc < k))) {
                        failed++;
                        printf("FAIL %s %dx%dx%d: %d parts of %d\n", t ? "dsmall" : "small", m, n,
                               k, p, kc);
                    } else {
                        passed++;
                    }
                }
    expect_plans();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
