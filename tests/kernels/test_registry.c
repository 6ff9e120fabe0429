/* tests/kernels/test_registry.c - which kernel the registry gives each GPU
 * the library is built for, for fp32, fp64 and the complex types, checked
 * without a GPU:
 * the properties of each (compute capability, opt-in shared memory per
 * block) go into the pure tb_kernel_fits / tb_kernel_default, and the
 * expected default kernels are written out per GPU, not derived from the
 * registry's own numbers. Also: the pick and the run never take a kernel
 * of another element type. */
#include "tb_kernels.h"
#include <stdio.h>
#include <string.h>
#include "../check.h"

#define KIB 1024

/* cudaDevAttrMaxSharedMemoryPerBlockOptin is the SM's largest shared-memory
 * configuration less the 1 KB the driver reserves per block: 164 KB on 8.0,
 * 100 KB on 8.6, 8.9 and 12.0, 228 KB on 9.0 and 10.x. */
static const struct gpu {
    const char *name;
    int major, minor, smem_optin;
    const char *want;          /* the default kernel for a large product */
    const char *want64;        /* the same for fp64 */
} gpus[] = {
    {"A100", 8, 0, 163 * KIB, "tf32x3", "dmma"},
    {"A10", 8, 6, 99 * KIB, "warptile", "dsmall"},
    {"RTX 3090", 8, 6, 99 * KIB, "warptile", "dsmall"},
    {"L4", 8, 9, 99 * KIB, "warptile", "dsmall"},
    {"L40S", 8, 9, 99 * KIB, "warptile", "dsmall"},
    {"RTX 4090", 8, 9, 99 * KIB, "warptile", "dsmall"},
    {"H100", 9, 0, 227 * KIB, "wgmma", "dmma"},
    {"H200", 9, 0, 227 * KIB, "wgmma", "dmma"},
    {"B200", 10, 0, 227 * KIB, "tf32x3", "dmma"},
    {"B300", 10, 3, 227 * KIB, "tf32x3", "dmma"},
    {"RTX 5090", 12, 0, 99 * KIB, "warptile", "dsmall"},
};
#define NGPUS ((int)(sizeof gpus / sizeof gpus[0]))

static int is_wgmma(const tb_kernel_info *k) { return strncmp(k->name, "wgmma", 5) == 0; }

static int is_tf32(const tb_kernel_info *k) { return strncmp(k->name, "tf32", 4) == 0; }

static int is_dmma(const tb_kernel_info *k) { return strncmp(k->name, "dmma", 4) == 0; }

/* The Ozaki double product: it runs dmma itself where its rule says, so it
 * needs dmma's shared memory. */
static int is_ozaki(const tb_kernel_info *k) { return strncmp(k->name, "dozaki", 6) == 0; }

int main(void)
{
    int nk;
    const tb_kernel_info *ks = tb_kernel_list(&nk);
    const tb_kernel_info *seed = tb_kernel_by_name("tiled16");
    CHECK(seed == &ks[0], "the seed kernel tiled16 is not the first entry");

    /* Every entry says what it needs, and the largest GPU can run it. */
    for (int i = 0; i < nk; i++) {
        const tb_kernel_info *k = &ks[i];
        CHECK(k->cc_min >= 80, "%s: cc_min %d (the build starts at 8.0)", k->name, k->cc_min);
        CHECK(k->cc_max == 0 || k->cc_max >= k->cc_min, "%s: cc %d..%d", k->name, k->cc_min,
              k->cc_max);
        CHECK(k->smem > 0 && k->smem <= 227 * KIB, "%s: smem %d", k->name, k->smem);
        /* Over 48 KB per block only as dynamic shared memory, which only
         * the cp.async and wgmma kernels take. */
        CHECK(k->smem <= 48 * KIB || is_tf32(k) || is_wgmma(k) || is_dmma(k) || is_ozaki(k),
              "%s: smem %d", k->name, k->smem);
        /* Each entry has a launcher and an element type; how it walks K
         * agrees with what it takes: a kernel whose K the runtime cuts
         * wants aligned rows (the copies and the parts share the scratch),
         * one that cuts K itself takes scratch for the parts. */
        CHECK(k->launch && (unsigned)k->dtype < TB_DTYPES, "%s: dtype %d, launcher %p", k->name,
              (int)k->dtype, (void *)k->launch);
        CHECK(k->ksplit != TB_K_PARTS || k->wants_aligned, "%s: K in parts, no copies", k->name);
        CHECK(k->ksplit != TB_K_OWN || k->takes_scratch, "%s: its own K split, no scratch",
              k->name);
        CHECK((k->dtype == TB_F64) == (k->name[0] == 'd'), "%s: fp64 names start with d", k->name);
        CHECK((k->dtype == TB_C32) == (k->name[0] == 'c'), "%s: complex float names start with c",
              k->name);
        CHECK((k->dtype == TB_C64) == (k->name[0] == 'z'),
              "%s: complex double names start with z", k->name);
    }
    /* Each complex type's seed (no scratch) comes first among its entries. */
    for (int t = TB_C32; t <= TB_C64; t++) {
        const tb_kernel_info *cs = tb_kernel_by_name(t == TB_C32 ? "ctiled16" : "ztiled16");
        CHECK(cs && cs->dtype == (tb_dtype)t && !cs->takes_scratch, "complex seed of type %d", t);
        for (int i = 0; cs && i < nk; i++)
            if (ks[i].dtype == (tb_dtype)t) {
                CHECK(&ks[i] == cs, "the first entry of type %d is %s", t, ks[i].name);
                break;
            }
    }
    const tb_kernel_info *dseed = tb_kernel_by_name("dtiled16");
    CHECK(dseed && dseed->dtype == TB_F64, "no fp64 seed kernel dtiled16");
    for (int i = 0; dseed && i < nk; i++)   /* the fp64 seed is the first fp64 entry */
        if (ks[i].dtype == TB_F64) {
            CHECK(&ks[i] == dseed, "the first fp64 entry is %s", ks[i].name);
            break;
        }

    const tb_kernel_info *dmma = tb_kernel_by_name("dmma");
    CHECK(dmma && dmma->smem == 160 * KIB, "dmma takes 160 KiB");
    if (!dmma)
        return 1;
    printf("%-9s %-5s %-8s %s\n", "GPU", "cc", "smem", "default");
    for (int g = 0; g < NGPUS; g++) {
        const struct gpu *G = &gpus[g];
        const tb_kernel_info *def = tb_kernel_default(TB_F32, G->major, G->minor, G->smem_optin);
        printf("%-9s %d.%-3d %3d KiB  %s\n", G->name, G->major, G->minor, G->smem_optin / KIB,
               def ? def->name : "(none)");
        CHECK(def && strcmp(def->name, G->want) == 0, "%s: default %s, want %s", G->name,
              def ? def->name : "(none)", G->want);
        CHECK(!def || def->rank >= 0, "%s: default %s is opt-in only", G->name, def->name);
        CHECK(def && tb_kernel_fits(def, G->major, G->minor, G->smem_optin),
              "%s: the default does not fit", G->name);
        CHECK(tb_kernel_fits(seed, G->major, G->minor, G->smem_optin), "%s: no seed kernel",
              G->name);
        CHECK(def && def->dtype == TB_F32, "%s: the fp32 default is not fp32", G->name);
        const tb_kernel_info *d64 = tb_kernel_default(TB_F64, G->major, G->minor, G->smem_optin);
        printf("%-9s %d.%-3d %3d KiB  %s (fp64)\n", G->name, G->major, G->minor,
               G->smem_optin / KIB, d64 ? d64->name : "(none)");
        CHECK(d64 && strcmp(d64->name, G->want64) == 0, "%s: fp64 default %s, want %s", G->name,
              d64 ? d64->name : "(none)", G->want64);
        CHECK(d64 && d64->dtype == TB_F64 && d64->rank >= 0, "%s: fp64 default", G->name);
        /* Complex: one real product on the real type's kernels, everywhere. */
        const tb_kernel_info *dc = tb_kernel_default(TB_C32, G->major, G->minor, G->smem_optin);
        const tb_kernel_info *dz = tb_kernel_default(TB_C64, G->major, G->minor, G->smem_optin);
        CHECK(dc && !strcmp(dc->name, "crealify") && dz && !strcmp(dz->name, "zrealify"),
              "%s: complex defaults %s, %s", G->name, dc ? dc->name : "(none)",
              dz ? dz->name : "(none)");
        const int hopper = G->major == 9 && G->minor == 0;
        /* 144 KiB: the 4-stage pipeline of 128-row tiles; 160 KiB: dmma's. */
        const int tf32_room = G->smem_optin >= 144 * KIB;
        const int dmma_room = G->smem_optin >= 160 * KIB;
        for (int i = 0; i < nk; i++) {
            const tb_kernel_info *k = &ks[i];
            const int fits = tb_kernel_fits(k, G->major, G->minor, G->smem_optin);
            if (is_wgmma(k) || !strcmp(k->name, "dozaki"))   /* sm_90a code */
                CHECK(fits == hopper, "%s: %s %s", G->name, k->name, fits ? "fits" : "does not fit");
            else if (is_tf32(k))
                CHECK(fits == tf32_room, "%s: %s %s", G->name, k->name,
                      fits ? "fits" : "does not fit");
            else if (is_dmma(k) || is_ozaki(k))   /* dmma, dozaki-mma: 160 KiB; the others their own */
                CHECK(fits == (k->smem == dmma->smem ? dmma_room : G->smem_optin >= k->smem),
                      "%s: %s %s", G->name, k->name, fits ? "fits" : "does not fit");
            else
                CHECK(fits, "%s: %s does not fit", G->name, k->name);
        }
    }

    /* The edges: shared memory one byte short of tf32x3's need, a GPU older
     * than the build, sm_90a code on a later GPU. */
    const tb_kernel_info *tf32x3 = tb_kernel_by_name("tf32x3");
    const tb_kernel_info *wgmma = tb_kernel_by_name("wgmma");
    CHECK(tf32x3 && tb_kernel_fits(tf32x3, 8, 0, tf32x3->smem), "tf32x3 at its exact need");
    CHECK(tf32x3 && !tb_kernel_fits(tf32x3, 8, 0, tf32x3->smem - 1), "tf32x3 one byte short");
    const tb_kernel_info *d = tb_kernel_default(TB_F32, 8, 0, 144 * KIB - 1);
    CHECK(d && strcmp(d->name, "warptile") == 0, "8.0 with 144 KiB - 1: %s", d ? d->name : "(none)");
    CHECK(tb_kernel_default(TB_F32, 7, 5, 64 * KIB) == NULL, "7.5 (T4): a kernel, but no code for it");
    CHECK(wgmma && !tb_kernel_fits(wgmma, 9, 1, 227 * KIB), "wgmma on 9.1");
    CHECK(dmma && tb_kernel_fits(dmma, 8, 0, dmma->smem), "dmma at its exact need");
    CHECK(dmma && !tb_kernel_fits(dmma, 8, 0, dmma->smem - 1), "dmma one byte short");
    d = tb_kernel_default(TB_F64, 8, 0, 160 * KIB - 1);
    CHECK(d && strcmp(d->name, "dsmall") == 0, "8.0 with 160 KiB - 1, fp64: %s",
          d ? d->name : "(none)");
    CHECK(tb_kernel_default(TB_F64, 7, 5, 64 * KIB) == NULL, "7.5, fp64");

    /* A small product takes the small kernel without asking the device (the
     * seed without scratch); a large one, without a device to ask, the seed
     * kernel, and with one a kernel that fits it. Either type, one pick. */
    tb_gemm small = {TB_F32, 256, 256, 256, 0, 0, {1.0, 0.0}, {0.0, 0.0}, NULL, 256, NULL, 256,
                     NULL, 256};
    tb_gemm large = small;
    large.m = large.n = large.k = large.lda = large.ldb = large.ldc = 4096;
    const tb_kernel_info *smallk = tb_kernel_by_name("small"), *dsmallk = tb_kernel_by_name("dsmall");
    CHECK(smallk && smallk->takes_scratch && smallk->dtype == TB_F32 && dsmallk &&
              dsmallk->dtype == TB_F64 && dsmallk->launch == smallk->launch,
          "the small kernels");
    CHECK(tb_kernel_pick(&small, 1) == smallk, "small product: %s", tb_kernel_pick(&small, 1)->name);
    CHECK(tb_kernel_pick(&small, 0) == seed, "small product without scratch: %s",
          tb_kernel_pick(&small, 0)->name);
    int dev = -1, major, minor, smem;
    const int have = cudaGetDevice(&dev) == cudaSuccess && tb_device_caps(dev, &major, &minor, &smem);
    const tb_kernel_info *p = tb_kernel_pick(&large, 1), *q = tb_kernel_pick(&large, 0);
    if (have) {
        printf("this device: %d.%d, %d KiB: picks %s (%s without scratch)\n", major, minor,
               smem / KIB, p->name, q->name);
        CHECK(tb_kernel_fits(p, major, minor, smem), "%s does not fit this device", p->name);
        CHECK(tb_kernel_fits(q, major, minor, smem) && !q->takes_scratch, "%s", q->name);
        CHECK(tb_kernel_fits_here(p), "%s: tb_kernel_fits_here", p->name);
        /* A product that the wgmma kernel declines as too small for its
         * grid (16 tiles of 128 x 128 on a Hopper GPU) runs on the small
         * kernel, not on the next tensor-core kernel. */
        tb_gemm starved = small;
        starved.m = starved.n = starved.k = starved.lda = starved.ldb = starved.ldc = 512;
        if (!strcmp(p->name, "wgmma"))
            CHECK(tb_kernel_pick(&starved, 1) == smallk, "512^3 on %s: %s", p->name,
                  tb_kernel_pick(&starved, 1)->name);
    } else {
        cudaGetLastError();
        CHECK(p == seed && q == seed, "no device: %s, %s", p->name, q->name);
        CHECK(!tb_kernel_fits_here(seed), "no device, yet the seed kernel fits");
    }

    /* The same for fp64. */
    tb_gemm dsmall = small, dlarge = large;
    dsmall.dtype = dlarge.dtype = TB_F64;
    CHECK(tb_kernel_pick(&dsmall, 1) == dsmallk, "small fp64 product: %s",
          tb_kernel_pick(&dsmall, 1)->name);
    CHECK(tb_kernel_pick(&dsmall, 0) == dseed, "small fp64 product without scratch: %s",
          tb_kernel_pick(&dsmall, 0)->name);
    const tb_kernel_info *dp = tb_kernel_pick(&dlarge, 1), *dq = tb_kernel_pick(&dlarge, 0);
    CHECK(dp->dtype == TB_F64 && dq->dtype == TB_F64 && !dq->takes_scratch, "fp64 picks %s, %s",
          dp->name, dq->name);
    if (have) {
        printf("this device, fp64: picks %s (%s without scratch)\n", dp->name, dq->name);
        CHECK(tb_kernel_fits_here(dp), "%s: tb_kernel_fits_here", dp->name);
    } else {
        cudaGetLastError();
        CHECK(dp == dseed && dq == dseed, "no device, fp64: %s, %s", dp->name, dq->name);
    }
    CHECK(tb_dtype_size(TB_F32) == 4 && tb_dtype_size(TB_F64) == 8 &&
              tb_dtype_size(TB_C32) == 8 && tb_dtype_size(TB_C64) == 16,
          "tb_dtype_size");
    CHECK(tb_dtype_real(TB_F32) == TB_F32 && tb_dtype_real(TB_F64) == TB_F64 &&
              tb_dtype_real(TB_C32) == TB_F32 && tb_dtype_real(TB_C64) == TB_F64,
          "tb_dtype_real");
    /* Complex: never the small kernel (the real product picks its own),
     * never cut here; the realify entry with scratch, the seed without,
     * the seed with no device to ask. */
    {
        const tb_kernel_info *cseed = tb_kernel_by_name("ctiled16"),
                             *zseed = tb_kernel_by_name("ztiled16"),
                             *creal = tb_kernel_by_name("crealify"),
                             *zreal = tb_kernel_by_name("zrealify");
        tb_gemm c = small, z = large;
        c.dtype = TB_C32;
        z.dtype = TB_C64;
        CHECK(!tb_kernel_small(TB_C32, 64, 64, 64) && !tb_kernel_small(TB_C64, 1, 1, 1) &&
                  tb_split_parts(TB_C32, 1537, 1537, 1537, 132) == 1 &&
                  tb_split_parts(TB_C64, 768, 768, 16384, 132) == 1,
              "complex: not small, not cut");
        CHECK(tb_kernel_pick(&c, 0) == cseed && tb_kernel_pick(&z, 0) == zseed,
              "complex without scratch: %s, %s", tb_kernel_pick(&c, 0)->name,
              tb_kernel_pick(&z, 0)->name);
        if (have)
            CHECK(tb_kernel_pick(&c, 1) == creal && tb_kernel_pick(&z, 1) == zreal,
                  "complex picks %s, %s", tb_kernel_pick(&c, 1)->name, tb_kernel_pick(&z, 1)->name);
        else
            CHECK(tb_kernel_pick(&c, 1) == cseed && tb_kernel_pick(&z, 1) == zseed,
                  "complex, no device: %s, %s", tb_kernel_pick(&c, 1)->name,
                  tb_kernel_pick(&z, 1)->name);
        cudaGetLastError();
        CHECK(!tb_kernel_accepts(creal, &z) && !tb_kernel_accepts(seed, &c) &&
                  tb_gemm_run(&c, zreal, 0, 0) == cudaErrorInvalidValue &&
                  tb_gemm_run(&z, creal, 1, 0) == cudaErrorInvalidValue &&
                  tb_gemm_run(&c, seed, 0, 0) == cudaErrorInvalidValue,
              "complex: a kernel of another type is refused");
    }
    small.m = small.n = small.k = dsmall.m = dsmall.n = dsmall.k = 64;
    CHECK(tb_kernel_pick(&small, 1) == smallk && tb_kernel_pick(&dsmall, 1) == dsmallk &&
              tb_kernel_pick(&small, 0) == seed && tb_kernel_pick(&dsmall, 0) == dseed,
          "tb_kernel_pick, 64^3");
    /* A kernel of the other type is never accepted nor launched (these
     * return before any CUDA call), whole or not. */
    CHECK(!tb_kernel_accepts(dseed, &small) && !tb_kernel_accepts(seed, &dsmall),
          "tb_kernel_accepts");
    CHECK(tb_gemm_run(&small, dseed, 0, 0) == cudaErrorInvalidValue &&
              tb_gemm_run(&dsmall, seed, 1, 0) == cudaErrorInvalidValue &&
              tb_gemm_run(&dsmall, smallk, 0, 0) == cudaErrorInvalidValue,
          "tb_gemm_run with a kernel of the other type");
    /* The split plans of the fp64 run (tb_split_parts), on the H200's 132
     * SMs: full grids stay whole, badly filled ones are cut. */
    CHECK(tb_split_parts(TB_F64, 4096, 4096, 4096, 132) == 1 &&
              tb_split_parts(TB_F64, 8192, 8192, 8192, 132) == 1,
          "fp64: full grids are not split");
    CHECK(tb_split_parts(TB_F64, 1025, 1025, 8192, 132) == 5, "fp64 1025x1025x8192: %d parts",
          tb_split_parts(TB_F64, 1025, 1025, 8192, 132));
    CHECK(tb_split_parts(TB_F64, 768, 768, 16384, 132) == 11, "fp64 768x768x16384: %d parts",
          tb_split_parts(TB_F64, 768, 768, 16384, 132));
    CHECK(tb_split_parts(TB_F64, 512, 512, 512, 132) == 1, "fp64 512^3: below the threshold");
    /* Small fp64 products go to dsmall: tiny ones, and those that give
     * dmma's 64 x 128 tiles few blocks, below the flops where dmma splits K. */
    CHECK(tb_kernel_small(TB_F64, 256, 256, 256) && tb_kernel_small(TB_F64, 64, 64, 2048) &&
              tb_kernel_small(TB_F64, 300, 100, 2000) &&
              tb_kernel_small(TB_F64, 200, 200, 4000) && !tb_kernel_small(TB_F64, 384, 384, 384) &&
              !tb_kernel_small(TB_F64, 100, 100, 100000) &&
              !tb_kernel_small(TB_F64, 100, 100, 1000000) &&
              !tb_kernel_small(TB_F64, 512, 512, 512),
          "tb_kernel_small(TB_F64)");
    /* fp32: up to 2.2e8 flops, whatever the blocks (200x200x4000 is 3.2e8). */
    CHECK(tb_kernel_small(TB_F32, 256, 256, 256) && tb_kernel_small(TB_F32, 450, 450, 450) &&
              tb_kernel_small(TB_F32, 96, 96, 8192) && !tb_kernel_small(TB_F32, 512, 512, 512) &&
              !tb_kernel_small(TB_F32, 200, 200, 4000),
          "tb_kernel_small(TB_F32)");
    /* The kernels the start thread loads ahead (tb_kernels_load): those the
     * default pick can return, written out per GPU. */
    static const struct {
        const char *gpu;
        int major, minor, smem_optin;
        const char *want;
    } loads[] = {
        {"H200", 9, 0, 227 * KIB, "tiled16,small,tf32x3,wgmma,wgmma-insplit,dtiled16,dsmall,dmma,"
                                  "dozaki,ctiled16,crealify,ztiled16,zrealify"},
        {"A100", 8, 0, 163 * KIB, "tiled16,small,tf32x3,dtiled16,dsmall,dmma,"
                                  "ctiled16,crealify,ztiled16,zrealify"},
        {"A10", 8, 6, 99 * KIB, "tiled16,small,warptile,dtiled16,dsmall,"
                                "ctiled16,crealify,ztiled16,zrealify"},
        {"B200", 10, 0, 227 * KIB, "tiled16,small,tf32x3,dtiled16,dsmall,dmma,"
                                   "ctiled16,crealify,ztiled16,zrealify"},
    };
    for (size_t g = 0; g < sizeof loads / sizeof loads[0]; g++) {
        char got[256] = "";
        for (int i = 0; i < nk; i++)
            if (tb_kernel_pickable(&ks[i], loads[g].major, loads[g].minor, loads[g].smem_optin))
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", *got ? "," : "",
                         ks[i].name);
        CHECK(!strcmp(got, loads[g].want), "%s: pickable %s, want %s", loads[g].gpu, got,
              loads[g].want);
    }
    /* The Ozaki double product: dozaki on 9.0 alone, above dmma where it
     * pays (never the fp64 default for every product), loaded ahead there;
     * dozaki-mma by name only. Both take scratch and cut K themselves. */
    const tb_kernel_info *oz = tb_kernel_by_name("dozaki"), *ozm = tb_kernel_by_name("dozaki-mma");
    CHECK(oz && ozm && oz->dtype == TB_F64 && ozm->dtype == TB_F64 && oz->rank > dmma->rank &&
              oz->pays && ozm->rank < 0 && oz->takes_scratch && ozm->takes_scratch &&
              oz->ksplit == TB_K_OWN && ozm->ksplit == TB_K_OWN && oz->supports && ozm->supports,
          "dozaki, dozaki-mma entries");
    for (int i = 0; oz && i < NGPUS; i++) {
        const int hopper = gpus[i].major == 9 && gpus[i].minor == 0;
        CHECK(tb_kernel_pickable(oz, gpus[i].major, gpus[i].minor, gpus[i].smem_optin) == hopper &&
                  !tb_kernel_pickable(ozm, gpus[i].major, gpus[i].minor, gpus[i].smem_optin) &&
                  tb_kernel_default(TB_F64, gpus[i].major, gpus[i].minor, gpus[i].smem_optin) != oz,
              "%s: dozaki pickable %d", gpus[i].name, hopper);
    }
    /* Where dozaki pays: the shapes behind its cost model, each on the
     * side it was timed on (H100, dozaki's time over dmma's). */
    static const struct {
        int m, n, k, pays;
    } oz_shapes[] = {
        {16384, 16384, 16384, 1},  /* 0.71 */
        {8192, 8192, 8192, 1},     /* 0.82 */
        {6144, 6144, 6144, 1},     /* 0.91 */
        {4096, 4096, 16384, 1},    /* 0.77 */
        {4096, 4096, 4096, 0},     /* 1.16 */
        {3000, 3000, 3000, 0},     /* 1.09 */
        {8192, 2048, 8192, 0},     /* 1.09 */
        {8192, 8192, 2048, 0},     /* 1.33 */
        {16384, 16384, 1024, 0},   /* 1.73 */
        {16384, 512, 16384, 0},    /* 1.83 */
        {1024, 1024, 16384, 0},    /* 2.04 */
    };
    for (size_t i = 0; i < sizeof oz_shapes / sizeof oz_shapes[0]; i++) {
        const tb_gemm g = {TB_F64, oz_shapes[i].m, oz_shapes[i].n, oz_shapes[i].k};
        CHECK(tb_ozaki_pays(&g) == oz_shapes[i].pays, "dozaki pays %dx%dx%d: %d, want %d",
              g.m, g.n, g.k, tb_ozaki_pays(&g), oz_shapes[i].pays);
    }
    return unit_summary("test_registry");
}
