/* kernels/registry.c - the kernels the dispatcher may choose from, fp32,
 * fp64, complex float and complex double, each type in the order of the
 * progression (docs/kernels.md),
 * with what each needs of the GPU; and every choice made among them, so
 * that each per-shape rule lives in one place:
 *   here, which kernel runs a product (tb_kernel_pick: the per-type row of
 *     numbers, tb_types, for small products; the rank order; the rule for
 *     a product the GPU's best kernel declines), how the runtime runs it
 *     (tb_kernel_plan: aligned copies, and K cut into parts for TB_K_PARTS
 *     kernels, tb_split_parts), and how the wgmma kernel cuts K in its own
 *     grid (tb_wgmma_parts, tb_wgmma_tail_parts, which its launcher and its
 *     supports() ask), and which real product a complex one becomes
 *     (tb_complex_plan_of: shapes, strides, scalars and scratch);
 *   in the kernel files, the tiling of one launch: tf32x3's and dmma's
 *     64- or 128-row tiles by grid size and dmma's K slices by shared
 *     memory, wgmma's pre-pass or split in shared memory by cost
 *     (tb_wi_pays), the small kernel's K cut across its grid
 *     (tb_small_parts, gemm_05_small.cu).
 * Whether a call runs on the GPU at all is src/decide/'s policy; how it is
 * cut into panels and over devices, src/gpu/plan.c's. src/gpu/run.cu runs
 * what tb_kernel_plan says. Adding a kernel means adding its entry here;
 * nothing else in src/ names one. */
#include "tb_kernels.h"
#include <string.h>

#define TB_MAX_DEV 64
static int tb_sms[TB_MAX_DEV];
/* Compute capability (major * 10 + minor, 0: not asked yet) and opt-in
 * shared memory per block of each device; cc is stored last. */
static int tb_cc[TB_MAX_DEV], tb_smem_optin[TB_MAX_DEV];

int tb_device_sms(int dev)
{
    const int cached = dev >= 0 && dev < TB_MAX_DEV;
    int sms = cached ? __atomic_load_n(&tb_sms[dev], __ATOMIC_RELAXED) : 0;
    if (sms == 0) {
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        if (cached)
            __atomic_store_n(&tb_sms[dev], sms, __ATOMIC_RELAXED);
    }
    return sms;
}

int tb_device_caps(int dev, int *major, int *minor, int *smem_optin)
{
    const int cached = dev >= 0 && dev < TB_MAX_DEV;
    int cc = cached ? __atomic_load_n(&tb_cc[dev], __ATOMIC_ACQUIRE) : 0, smem = 0;
    if (cc) {
        smem = __atomic_load_n(&tb_smem_optin[dev], __ATOMIC_RELAXED);
    } else {
        int ma = 0, mi = 0;
        if (cudaDeviceGetAttribute(&ma, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&mi, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
                cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        cc = ma * 10 + mi;
        if (cached) {
            __atomic_store_n(&tb_smem_optin[dev], smem, __ATOMIC_RELAXED);
            __atomic_store_n(&tb_cc[dev], cc, __ATOMIC_RELEASE);
        }
    }
    *major = cc / 10;
    *minor = cc % 10;
    *smem_optin = smem;
    return 1;
}

/* What the kernels need of the GPU (the last three fields of each entry).
 * Compute capability: 8.0 for all but wgmma, as mma.sync TF32 and cp.async
 * need it and the build has no code for older GPUs (CMakeLists.txt); the
 * wgmma kernels are sm_90a code, which runs on 9.0 only. Shared memory per
 * block, static (ptxas -v) plus the most dynamic shared memory the launcher
 * asks for (cudaFuncSetAttribute): */
#define TB_SMEM_TILED16 2048            /* 2 x 16 x 16 floats                  */
#define TB_SMEM_REGBLOCK 8448           /* 2 x 8 x (128 + 4) floats            */
#define TB_SMEM_WARPTILE 33792          /* 2 x 2 x 16 x (128 + 4) floats       */
/* sgemm_03: STAGES = 4 x (A_SZ + B_SZ) floats, dynamic, largest with
 * 128-row tiles and the NT layouts, (128 x 36 + 128 x 36) floats; the
 * 64-row variant takes 4 x (64 x 36 + 128 x 36) floats = 110592 bytes, but
 * the launcher picks the tile by grid size, not by device, so the kernel
 * needs the larger. */
#define TB_SMEM_TF32 147456
/* sgemm_04: 3 stages of 64 KB, the consumer warps' staged C (8 x 16 x 36
 * floats) and 1 KB for 1024-byte alignment, dynamic, and 48 bytes of
 * mbarriers, static; wgmma-simple: 48 KB + 1 KB, dynamic. */
#define TB_SMEM_WGMMA (3 * 65536 + 8 * 16 * 36 * 4 + 1024 + 48)
#define TB_SMEM_WGMMA_SIMPLE (48 * 1024 + 1024)
/* wgmma-insplit: 3 raw stages of 32 KB, 2 split buffers of 64 KB, 1 KB for
 * alignment, dynamic; 48 bytes of mbarriers, static. */
#define TB_SMEM_WGMMA_INSPLIT (3 * 32768 + 2 * 65536 + 1024 + 48)
/* Double precision. dtiled16: 2 x 16 x 16 doubles. dgemm_01, dynamic: at
 * least 4 stages of (128 x 20 + 128 x 20) doubles (K slices of 16, the NT
 * layouts with 128-row tiles), so it runs where 160 KB fit (8.0, 9.0,
 * 10.x); where 216 KB fit, dmma and dmma-884 take 3 stages of (128 x 36 +
 * 128 x 36) doubles (slices of 32) instead. */
#define TB_SMEM_DTILED16 4096
/* gemm_05_small: 2 x 32 x 36 elements, static. */
#define TB_SMEM_SMALL (2 * 32 * 36 * 4)
#define TB_SMEM_DSMALL (2 * 32 * 36 * 8)
#define TB_SMEM_DMMA (4 * (128 * 20 + 128 * 20) * 8)
/* Complex. ctiled16, ztiled16: 2 x 16 x 16 elements of 8 and 16 bytes.
 * The realify entries' own kernels (complex_00_realify.cu): a 32 x 33
 * tile of elements, static; the real product's kernel is the real type's
 * own entry, picked for it. */
#define TB_SMEM_CTILED16 4096
#define TB_SMEM_ZTILED16 8192
#define TB_SMEM_CREALIFY (32 * 33 * 8)
#define TB_SMEM_ZREALIFY (32 * 33 * 16)


/* Each entry: name, summary, element type, launcher, supports (NULL: any
 * product), rank; the tiling (block m n k, warp m n, thread m n, threads);
 * wants_aligned, how it walks K, takes_scratch; cc_min, cc_max, smem. */
static const tb_kernel_info tb_kernels[] = {
    {"tiled16", "seed: 16x16 shared-memory tiles, one thread per element of C", TB_F32,
     tb_launch_tiled16, NULL, 0, 16, 16, 16, 0, 0, 1, 1, 256, 0, TB_K_WHOLE, 0, 80, 0,
     TB_SMEM_TILED16},
    /* Small products (tb_kernel_small), whatever their shape; its K split
     * takes scratch. */
    {"small", "small products: 32x32 tiles, 4x4 register micro-tiles, K split across the grid",
     TB_F32, tb_launch_small, NULL, 5, 32, 32, 32, 0, 0, 4, 4, 64, 0, TB_K_OWN, 1, 80, 0,
     TB_SMEM_SMALL},
    {"regblock", "128x128 tiles, 8x8 register micro-tiles, 128-bit loads, padded smem", TB_F32,
     tb_launch_regblock, NULL, 10, 128, 128, 8, 0, 0, 8, 8, 256, 0, TB_K_WHOLE, 0, 80, 0,
     TB_SMEM_REGBLOCK},
    {"warptile", "warp tiles (64x32), double-buffered smem, one barrier per K slice", TB_F32,
     tb_launch_warptile, NULL, 20, 128, 128, 16, 64, 32, 8, 8, 256, 0, TB_K_WHOLE, 0, 80, 0,
     TB_SMEM_WARPTILE},
    /* The tensor-core kernels: threads/thread_m/thread_n describe the
     * 128-row variant (the launcher takes 64-row tiles, 128 threads, when
     * 128-row tiles would leave SMs idle). A thread holds 4 accumulators
     * of each of the warp's 4x4 m16n8 tiles; thread_m x thread_n = 8 x 8
     * counts them the way the SIMT kernels do. */
    {"tf32x3", "tensor cores, 3xTF32 error-compensated (fp32 accuracy), 4-stage cp.async",
     TB_F32, tb_launch_tf32x3, NULL, 40, 128, 128, 32, 64, 32, 8, 8, 256, 1, TB_K_PARTS, 0, 80,
     0, TB_SMEM_TF32},
    {"tf32x3-tcacc", "as tf32x3 but every sum in the tensor-core accumulator (truncating adds)",
     TB_F32, tb_launch_tf32x3_tcacc, NULL, 15, 128, 128, 32, 64, 32, 8, 8, 256, 1, TB_K_PARTS,
     0, 80, 0, TB_SMEM_TF32},
    /* Hopper only (compute capability 9.0; supports() says so): wgmma fed
     * by TMA, 128x128 tiles of two consumer warpgroups (64x128 each), one
     * producer warpgroup, persistent grid; thread_m x thread_n counts a
     * consumer thread's 64 accumulators. wgmma-simple: one warpgroup,
     * 64x128 tiles, plain loads, the readable version. */
    {"wgmma", "Hopper wgmma + TMA, 3xTF32 split by a pre-pass or in shared memory (by cost), "
               "warp-specialised, persistent, split K",
     TB_F32, tb_launch_wgmma, tb_wgmma_supports, 50, 128, 128, 32, 64, 128, 8, 8, 384, 0,
     TB_K_OWN, 1, 90, 90, TB_SMEM_WGMMA},
    {"wgmma-1p", "as wgmma, one partial accumulator: each slice waited for before its fold",
     TB_F32, tb_launch_wgmma_1p, tb_wgmma_supports, 11, 128, 128, 32, 64, 128, 8, 8, 384, 0,
     TB_K_OWN, 1, 90, 90, TB_SMEM_WGMMA},
    {"wgmma-insplit", "as wgmma, always the split in shared memory from raw TMA tiles (no pre-pass)",
     TB_F32, tb_launch_wgmma_insplit, tb_wgmma_supports, 45, 128, 128, 32, 64, 128, 8, 8, 384,
     0, TB_K_OWN, 1, 90, 90, TB_SMEM_WGMMA_INSPLIT},
    {"wgmma-simple", "Hopper wgmma, 3xTF32, one warpgroup, plain loads (step 4a, readable)",
     TB_F32, tb_launch_wgmma_simple, tb_wgmma_simple_supports, 12, 64, 128, 32, 64, 128, 8, 8,
     128, 0, TB_K_WHOLE, 1, 90, 90, TB_SMEM_WGMMA_SIMPLE},
    /* Plain TF32 is ~150x less accurate than fp32: opt-in by name only. */
    {"tf32-fast", "OPT-IN, NOT fp32-accurate: plain 1xTF32 tensor cores (~1e-4 relative error)",
     TB_F32, tb_launch_tf32_fast, NULL, -10, 128, 128, 32, 64, 32, 8, 8, 256, 1, TB_K_PARTS, 0,
     80, 0, TB_SMEM_TF32},
    /* Double precision: the seed first, then the progression; ranks compare
     * within a type only. dmma's tiling fields describe its 128-row
     * variant, as tf32x3's do. */
    {"dtiled16", "fp64 seed: 16x16 shared-memory tiles, one thread per element of C", TB_F64,
     tb_launch_tiled16, NULL, 0, 16, 16, 16, 0, 0, 1, 1, 256, 0, TB_K_WHOLE, 0, 80, 0,
     TB_SMEM_DTILED16},
    {"dsmall", "fp64 small products: 32x32 tiles, 4x4 register micro-tiles, K split across the grid",
     TB_F64, tb_launch_small, NULL, 5, 32, 32, 32, 0, 0, 4, 4, 64, 0, TB_K_OWN, 1, 80, 0,
     TB_SMEM_DSMALL},
    {"dmma", "fp64 tensor cores: mma.sync f64, double-buffered fragments, cp.async pipeline",
     TB_F64, tb_launch_dmma, NULL, 40, 128, 128, 32, 64, 32, 8, 8, 256, 1, TB_K_PARTS, 0, 80, 0,
     TB_SMEM_DMMA},
    {"dmma-k16", "as dmma with m16n8k16 steps, no fragment double buffer, K slices of 16",
     TB_F64, tb_launch_dmma_k16, NULL, 20, 128, 128, 16, 64, 32, 8, 8, 256, 1, TB_K_PARTS, 0,
     80, 0, TB_SMEM_DMMA},
    {"dmma-884", "the m16n8k16 step loop with Ampere's m8n8k4 on every GPU (eight per step)",
     TB_F64, tb_launch_dmma_884, NULL, 10, 128, 128, 32, 64, 32, 8, 8, 256, 1, TB_K_PARTS, 0,
     80, 0, TB_SMEM_DMMA},
    /* fp64 on the INT8 tensor cores (Ozaki scheme II, dgemm_02_ozaki.cu):
     * dozaki on 9.0 (INT8 wgmma), above dmma where tb_ozaki_pays says its
     * time is below dmma's (1.18x cuBLAS DGEMM at 8192^3, 1.34x at 16384^3
     * on the H100; 0.82x at 4096^3, where dmma runs); dozaki-mma, its
     * INT8 products on mma.sync on every GPU, by name only. Their tiling
     * fields are the INT8 kernels' (wgmma: 128 x 256 tiles, K slices of
     * 128, a consumer warpgroup's 64 x 256, 128 sums a thread; mma.sync:
     * 128 x 128). Each runs dmma itself where its rule for the data says
     * so, hence dmma's shared memory (the INT8 kernels take 197 KB on 9.0,
     * 80 KB elsewhere). */
    {"dozaki", "fp64 as Ozaki scheme II: INT8 wgmma products of residues mod 15-16 moduli, "
              "CRT rebuild; dmma where its rule for the data says",
     TB_F64, tb_launch_ozaki, tb_ozaki_supports, 45, 128, 256, 128, 64, 256, 8, 16, 384, 0,
     TB_K_OWN, 1, 90, 90, TB_SMEM_DMMA, tb_ozaki_pays},
    {"dozaki-mma", "as dozaki with the INT8 products on mma.sync m16n8k32 on every GPU",
     TB_F64, tb_launch_ozaki_mma, tb_ozaki_supports, -6, 128, 128, 64, 64, 32, 8, 8, 256, 0,
     TB_K_OWN, 1, 80, 0, TB_SMEM_DMMA},
    /* Complex (c: two floats, z: two doubles): the seed's template, which
     * needs no scratch (the pick of a caller held to a device memory cap,
     * and the realify launcher's fallback); then the product as one real
     * product of twice the width and depth on the real type's kernels
     * (tb_complex_plan_of). The realify entries' tiling fields are those of
     * the real kernel Hopper runs (wgmma, dmma: 128 x 128 reals of C', 128
     * x 64 complex elements; K steps of 32 reals, 16 complex) in complex
     * elements; on other GPUs the real type's pick there. How K is cut is
     * the real kernel's affair (TB_K_OWN). */
    {"ctiled16", "complex seed: the tiled16 template in complex float, no scratch", TB_C32,
     tb_launch_tiled16, NULL, 0, 16, 16, 16, 0, 0, 1, 1, 256, 0, TB_K_WHOLE, 0, 80, 0,
     TB_SMEM_CTILED16},
    {"crealify", "complex float as one real product (m x 2n x 2k) on the fp32 kernels: "
                 "B as 2x2 real blocks, a complex alpha folded in",
     TB_C32, tb_launch_realify, NULL, 40, 128, 64, 16, 64, 64, 8, 4, 384, 0, TB_K_OWN, 1, 80, 0,
     TB_SMEM_CREALIFY},
    {"crealify-post", "as crealify, a complex alpha applied after the real product",
     TB_C32, tb_launch_realify_post, NULL, 10, 128, 64, 16, 64, 64, 8, 4, 384, 0, TB_K_OWN, 1,
     80, 0, TB_SMEM_CREALIFY},
    {"ztiled16", "complex double seed: the tiled16 template in complex double, no scratch",
     TB_C64, tb_launch_tiled16, NULL, 0, 16, 16, 16, 0, 0, 1, 1, 256, 0, TB_K_WHOLE, 0, 80, 0,
     TB_SMEM_ZTILED16},
    {"zrealify", "complex double as one real product (m x 2n x 2k) on the fp64 kernels: "
                 "B as 2x2 real blocks, a complex alpha folded in",
     TB_C64, tb_launch_realify, NULL, 40, 128, 64, 16, 64, 16, 8, 4, 256, 0, TB_K_OWN, 1, 80, 0,
     TB_SMEM_ZREALIFY},
    {"zrealify-post", "as zrealify, a complex alpha applied after the real product",
     TB_C64, tb_launch_realify_post, NULL, 10, 128, 64, 16, 64, 16, 8, 4, 256, 0, TB_K_OWN, 1,
     80, 0, TB_SMEM_ZREALIFY},
};

/* ---- the numbers of each element type ----------------------------------- */

/* Below this K stays whole for the TB_K_PARTS kernels (tb_split_parts);
 * a product that the GPU's best kernel declines then goes to the small
 * kernel (tb_kernel_pick), as does an fp64 one of few blocks
 * (tb_kernel_small). */
#define TB_NO_SPLIT_FLOPS (2.0 * 768 * 768 * 768)

/* One row per element type: what its rules below read.
 *
 * The small kernel (gemm_05_small.cu), tb_kernel_small: products up to
 * small_flops, and those under TB_NO_SPLIT_FLOPS whose 64 x 128 tiles
 * would make fewer than small_blocks blocks (0: no such rule). 32 x 32
 * tiles and K cut across the grid give a 256^3 product a few hundred
 * blocks, where the tensor-core kernels' 128 x 128 tiles give 4 of the 132
 * SMs work and each walks all of K: a product this small is a chain of
 * latencies, and more blocks in parallel shorten it.
 *   fp32, bench_kernels on the H200 (device buffers, ms, small against the
 *   best tensor-core kernel): 256^3 0.015 against 0.025, 450^3 0.027
 *   against 0.051, 64x64x2048 0.016 against 0.146, 96x96x8192 0.025
 *   against 0.207 (split K); the tensor cores win from about 2.2e8 flops
 *   where their grid fills the GPU (600^3 0.030 against 0.041).
 *   fp64, dsmall against dmma on the H200 (bench_kernels --dtype double):
 *   the small kernel wins up to 256^3 and wherever dmma's 64 x 128 tiles
 *   leave it under 16 blocks: 64x64x2048 0.036 against 0.158 (96x96x8192),
 *   300x100x2000 0.033 against 0.160, 200x200x4000 (3.2e8 flops) 0.065
 *   against 0.322; dmma wins from 512^3 (32 blocks, 0.035 against 0.052).
 *   From TB_NO_SPLIT_FLOPS up dmma's K is cut into parts (tb_split_parts).
 *
 * K in parts for the TB_K_PARTS kernels (tf32x3's tiling in fp32, dmma's
 * in fp64: 128-row tiles, or 64-row tiles two per SM when 128-row ones
 * would not give every SM a tile), tb_split_parts: split_price is the
 * price of the partial C's per part, over k (S partial C's written and
 * read back against 2mnk flops: fp32 8 S mn bytes at ~3 TB/s against ~50
 * TFLOP/s, about 67 S / k of the product's time; fp64 16 S mn bytes
 * against ~55 TFLOP/s, 147 S / k), split_full the most parts of a grid of
 * at least one wave of 128-row tiles, and split_score_all whether grids
 * of 64-row tiles are scored like those (1) or cut by the fill rule (0,
 * see tb_split_parts). */
typedef struct tb_type_rules {
    size_t size;           /* bytes of an element */
    tb_dtype real;         /* the type of its parts */
    double small_flops;
    int small_blocks;
    double split_price;
    int split_full;
    int split_score_all;
} tb_type_rules;

static const tb_type_rules tb_types[TB_DTYPES] = {
    [TB_F32] = {4, TB_F32, 2.2e8, 0, 67.0, 4, 0},
    [TB_F64] = {8, TB_F64, 4e7, 16, 147.0, TB_MAX_PARTS, 1},
    /* Complex products are never small nor cut here: the real product they
     * become is, by its own type's rules (small_flops -1: never). */
    [TB_C32] = {8, TB_F32, -1.0, 0, 0.0, 1, 0},
    [TB_C64] = {16, TB_F64, -1.0, 0, 0.0, 1, 0},
};

static const tb_type_rules *tb_rules(tb_dtype t)
{
    return &tb_types[(unsigned)t < TB_DTYPES ? t : TB_F32];
}

size_t tb_dtype_size(tb_dtype t)
{
    return tb_rules(t)->size;
}

tb_dtype tb_dtype_real(tb_dtype t)
{
    return tb_rules(t)->real;
}

/* ---- the list ------------------------------------------------------------- */

const tb_kernel_info *tb_kernel_list(int *count)
{
    *count = (int)(sizeof tb_kernels / sizeof tb_kernels[0]);
    return tb_kernels;
}

const tb_kernel_info *tb_kernel_by_name(const char *name)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    for (int i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    return NULL;
}

int tb_kernel_in_list(const char *name, const char *list)
{
    if (!list)
        return 1;
    const size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        const size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && strncmp(p, name, l) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* ---- which kernel ----------------------------------------------------------- */

int tb_kernel_small(tb_dtype t, int m, int n, int k)
{
    const tb_type_rules *r = tb_rules(t);
    const double flops = 2.0 * m * (double)n * k;
    const long long blocks64 = (long long)((m + 63) / 64) * ((n + 127) / 128);
    return flops <= r->small_flops || (flops < TB_NO_SPLIT_FLOPS && blocks64 < r->small_blocks);
}

/* The seed kernel of type t: the first entry of that type. */
static const tb_kernel_info *tb_seed(tb_dtype t)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    for (int i = 0; i < n; i++)
        if (k[i].dtype == t)
            return &k[i];
    return &k[0];
}

/* The small-product kernel of type t (gemm_05_small.cu); the seed of a
 * type that has none (complex: never small, tb_kernel_small). */
static const tb_kernel_info *tb_small(tb_dtype t)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    for (int i = 0; i < n; i++)
        if (k[i].dtype == t && k[i].launch == tb_launch_small)
            return &k[i];
    return tb_seed(t);
}

int tb_kernel_fits(const tb_kernel_info *k, int major, int minor, int smem_optin)
{
    const int cc = major * 10 + minor;
    return cc >= k->cc_min && (k->cc_max == 0 || cc <= k->cc_max) && k->smem <= smem_optin;
}

int tb_kernel_fits_here(const tb_kernel_info *k)
{
    int dev, major, minor, smem;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return tb_device_caps(dev, &major, &minor, &smem) && tb_kernel_fits(k, major, minor, smem);
}

/* Whether k's supports() accepts g (NULL: not asked). */
static int tb_supported(const tb_kernel_info *k, const tb_gemm *g)
{
    return !g || !k->supports || k->supports(g);
}

/* Whether k is worth picking for g (NULL: for every product). */
static int tb_pays(const tb_kernel_info *k, const tb_gemm *g)
{
    return !k->pays || (g && k->pays(g));
}

/* The highest rank among the kernels of type t that fit the GPU, take
 * scratch only when scratch_ok, and accept g and pay for it (NULL: their
 * supports() are not asked, and kernels that pay on some shapes only are
 * passed over). */
static const tb_kernel_info *tb_best(tb_dtype t, const tb_gemm *g, int major, int minor, int smem,
                                     int scratch_ok)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n), *best = NULL;
    for (int i = 0; i < n; i++)
        if (k[i].dtype == t && tb_kernel_fits(&k[i], major, minor, smem) &&
            (scratch_ok || !k[i].takes_scratch) && tb_supported(&k[i], g) &&
            tb_pays(&k[i], g) && (!best || k[i].rank > best->rank))
            best = &k[i];
    return best;
}

/* dozaki against dmma, by their times on the H100 (bench_kernels --dtype
 * double --kernels dmma,dozaki --no-wide over 20 shapes from 2048^3 to
 * 16384^3, K from 1024 to 16384, m or n down to 512; least squares, ms):
 *   dozaki  11.5 F + 15.1e-9 (m + n) k + 39.2e-9 m n
 *   dmma    19.6 F                       (F = 2 m n k / 1e12)
 * dozaki's INT8 products (15 moduli), its passes over op(A) and op(B)
 * (statistics, residue planes) and over C (the products' residues, the
 * rebuild). Near the bar (the 10 shapes timed where dozaki took 0.7-1.2x
 * dmma's time) each model is within 16% of its kernel's time; on the
 * others (dozaki 1.25-2.04x dmma's) they err by up to 32%. dozaki is taken
 * where its modeled time is under 0.9 of dmma's, a margin for that
 * scatter: from about 5700^3, and on long K with m and n from 4096
 * (4096x4096x16384). On the H200 its passes, memory-bound, are
 * faster: the rule errs towards dmma there. */
int tb_ozaki_pays(const tb_gemm *g)
{
    const double m = g->m, n = g->n, k = g->k, f = 2.0 * m * n * k * 1e-12;
    const double ozaki = 11.5 * f + 15.1e-9 * (m + n) * k + 39.2e-9 * m * n, dmma = 19.6 * f;
    return ozaki < 0.9 * dmma;
}

const tb_kernel_info *tb_kernel_default(tb_dtype t, int major, int minor, int smem_optin)
{
    return tb_best(t, NULL, major, minor, smem_optin, 1);
}

const tb_kernel_info *tb_kernel_pick(const tb_gemm *g, int scratch_ok)
{
    const tb_dtype t = g->dtype;
    int dev, major, minor, smem;
    const tb_kernel_info *best = NULL;
    /* Both support every call; the small kernel's split takes scratch. */
    if (tb_kernel_small(t, g->m, g->n, g->k))
        return scratch_ok ? tb_small(t) : tb_seed(t);
    if (cudaGetDevice(&dev) != cudaSuccess)
        cudaGetLastError();
    else if (tb_device_caps(dev, &major, &minor, &smem)) {
        best = tb_best(t, g, major, minor, smem, scratch_ok);
        /* The GPU's best kernel declined a product too small for its grid
         * (wgmma: under a quarter of a wave of work units,
         * tb_wgmma_supports) and the next would not split K: the small
         * kernel's many blocks serve it better. H200, fp32: 512^3 0.028
         * ms against tf32x3's 0.039, 256x1024x512 0.028 against 0.038. */
        if (best && scratch_ok && best != tb_best(t, NULL, major, minor, smem, 1) &&
            2.0 * g->m * (double)g->n * g->k < TB_NO_SPLIT_FLOPS)
            best = tb_small(t);
    }
    /* Nothing fits (a GPU older than the build, or CUDA cannot say): the
     * seed kernel, whose launch then fails and the call runs on the CPU. */
    return best ? best : tb_seed(t);
}

int tb_kernel_accepts(const tb_kernel_info *k, const tb_gemm *g)
{
    return k && k->dtype == g->dtype && tb_kernel_fits_here(k) && k->launch &&
           tb_supported(k, g);
}

int tb_kernel_pickable(const tb_kernel_info *k, int major, int minor, int smem_optin)
{
    if (k == tb_seed(k->dtype) || k == tb_small(k->dtype))
        return 1;
    if (k->rank < 0 || !tb_kernel_fits(k, major, minor, smem_optin))
        return 0;
    /* Not behind a kernel of its type that fits, ranks higher and takes
     * every product (no supports()): tb_best would pick that one first. */
    int n;
    const tb_kernel_info *all = tb_kernel_list(&n);
    for (int i = 0; i < n; i++) {
        const tb_kernel_info *o = &all[i];
        if (o != k && o->dtype == k->dtype && o->rank > k->rank && !o->supports && !o->pays &&
            tb_kernel_fits(o, major, minor, smem_optin))
            return 0;
    }
    return 1;
}

/* ---- how the runtime runs it -------------------------------------------- */

/* Aligned copies (wants_aligned kernels). The tensor-core kernels feed
 * shared memory with 16-byte cp.async copies, which need every row of the
 * operand to start on a 16-byte boundary. A stride like 4097 floats puts
 * consecutive rows 4 bytes apart modulo 16, so the kernel falls back to four
 * times as many 4-byte copies and loses about 30% (docs/kernels.md). Copying
 * the operand once into a buffer whose stride is a multiple of 32 elements
 * costs one read and one write of it at memory bandwidth (about 0.04 ms for
 * 4097 x 4097 floats on the H200), while the GEMM reads every element of A
 * once per column of tiles and every element of B once per row of tiles.
 * So the copy pays when the operand is re-read a few times: when the tiles
 * of C that read each element of op(A) (the column tiles) or of op(B) (the
 * row tiles), with 128 x 128 tiles, are 4 or more. Below 2 * 384^3 flops
 * the kernel is launch-bound and the extra launches are not worth it. */
static int tb_want_copy(const tb_gemm *g, int which)
{
    const double flops = 2.0 * g->m * (double)g->n * g->k;
    if (flops < 2.0 * 384 * 384 * 384)
        return 0;
    const int reuse = which == 0 ? (g->n + 127) / 128 : (g->m + 127) / 128;
    return reuse >= 4;
}

/* Split K.
 *
 * A grid that fills the GPU badly wastes it: 1537^3 makes 169 tiles of
 * 128 x 128 for 132 SMs, so the second wave runs 37 tiles while 95 SMs wait
 * (64% of the machine used). Splitting K into S parts gives S times the
 * tiles, each with K/S of the work: 507 tiles for 528 slots, 96% used. The
 * parts are independent GEMMs (op(A) and op(B) offset along K, alpha 1,
 * beta 0) into S scratch copies of C, launched on S streams so that their
 * tiles share the SMs; one more kernel adds them up and applies alpha and
 * beta (C is read only when beta != 0). The price: the partial C's written
 * and read back (tb_types' split_price). */

/* Share of the slots a grid of `blocks` keeps busy: blocks / (waves x slots). */
static double tb_fill(long long blocks, long long slots)
{
    return (double)blocks / (double)(((blocks + slots - 1) / slots) * slots);
}

/* K is cut into slices of tb_split_slice(k, parts) (a multiple of 32: aligned
 * rows stay aligned); rounding up can leave the last parts with no K at all
 * (256 x 256 x 8193 in 32 parts: slices of 288, parts 29-31 empty), so
 * tb_split_fit keeps only as many parts as the slices need. */
static int tb_split_slice(int k, int parts)
{
    return (int)(((size_t)((k + parts - 1) / parts) + 31) & ~(size_t)31);
}

static int tb_split_fit(int k, int parts)
{
    while (parts > 1 && (long long)(parts - 1) * tb_split_slice(k, parts) >= k)
        parts--;
    return parts;
}

/* The scoring the split plans share: of 2 .. max_parts parts, each at
 * least 256 deep, the count that keeps the largest share of `slots` busy
 * over the waves of parts x tiles blocks, after the partials' price (price
 * x parts / k of the product's time); taken only when it beats the whole
 * grid by 15%, and fitted so that no part is empty. 1: stay whole. */
static int tb_best_parts(long long tiles, long long slots, int k, int max_parts, double price)
{
    const double base = tb_fill(tiles, slots);
    double best = base;
    int pick = 1;
    for (int parts = 2; parts <= max_parts && k / parts >= 256; parts++) {
        const double score = tb_fill(parts * tiles, slots) / (1.0 + price * parts / k);
        if (score > best) {
            best = score;
            pick = parts;
        }
    }
    return best > 1.15 * base ? tb_split_fit(k, pick) : 1;   /* a clear gain only */
}

/* The number of parts to split K into for an m x n x k product of type t
 * on a GPU of `sms` SMs (1: do not split); every part gets some of K, all
 * but the last at least 256.
 * Grids of at least one wave of 128-row tiles are scored (tb_best_parts,
 * at most split_full parts). Grids under a wave run 64-row tiles, two
 * blocks per SM:
 *   split_score_all 1 (fp64): scored the same way, counting two slots per
 *   SM, at most TB_MAX_PARTS parts. 1025 x 1025 x 8192 (153 blocks of
 *   64 x 128 for 264 slots, 58%) runs in 5 parts (765 blocks, 97%);
 *   768 x 768 x 16384 (72 blocks, 27%) in 11.
 *   split_score_all 0 (fp32): whole, unless they fill at most half the
 *   SMs. With one 4-warp block on nearly every SM tf32x3 runs 1024 at
 *   106-109% of cuBLAS, and split in three at 95%; the parts'
 *   extra launches weigh at 0.1 ms. A small output with a long K
 *   (256 x 256 x 65536: 8 blocks of 64 x 128 for 132 SMs) leaves nearly
 *   all of the GPU idle, and no tiling fixes that: K is cut into parts of
 *   at least 256 until there are about two blocks per SM, at most
 *   TB_MAX_PARTS parts (the last part may be shorter). */
int tb_split_parts(tb_dtype t, int m, int n, int k, int sms)
{
    const tb_type_rules *r = tb_rules(t);
    const double flops = 2.0 * m * (double)n * k;
    if (flops < TB_NO_SPLIT_FLOPS || k < 512 || sms <= 0 || r->real != t)
        return 1;
    const long long t128 = (long long)((m + 127) / 128) * ((n + 127) / 128);
    const long long t64 = (long long)((m + 63) / 64) * ((n + 127) / 128);
    if (t128 >= sms)
        return tb_best_parts(t128, sms, k, r->split_full, r->split_price);
    if (r->split_score_all)
        return tb_best_parts(t64, 2LL * sms, k, TB_MAX_PARTS, r->split_price);
    if (2 * t64 > sms)
        return 1;
    long long parts = 2LL * sms / t64;
    if (parts > k / 256)
        parts = k / 256;
    if (parts > TB_MAX_PARTS)
        parts = TB_MAX_PARTS;
    return parts >= 2 ? tb_split_fit(k, (int)parts) : 1;
}

/* The same for the wgmma kernel (sgemm_04_wgmma.cu), which splits K inside
 * its own persistent grid: a work unit is one 128 x 128 tile and one range
 * of 32-deep K slices, and a sum kernel adds the units' partial tiles.
 * Scored as above with that kernel's price: the partials, 8 S mn bytes
 * (written, then read by the sum) at ~3 TB/s, against 2mnk flops at ~125
 * TFLOP/s, are about 167 S / k of the product's time. At most TB_MAX_PARTS
 * parts, each at least 256 deep; a clear gain (15%) only; no part empty
 * (the kernel gives each part ceil(slices / S) slices of 32, the last one
 * the rest: tb_split_slice's rounding). 768 x 768 x 16384 (36 tiles for
 * 132 SMs) runs in 11 parts (396 units, 3 full waves). */
int tb_wgmma_parts(int m, int n, int k, int sms)
{
    if (m <= 0 || n <= 0 || k < 512 || sms <= 0)
        return 1;
    const long long tiles = (long long)((m + 127) / 128) * ((n + 127) / 128);
    return tb_best_parts(tiles, sms, k, TB_MAX_PARTS, 167.0);
}

/* The wgmma kernel's last wave: a grid of T = w S + r tiles on S SMs (w >=
 * 1, 0 < r < S) runs w full waves and then r tiles, the other S - r SMs
 * idle for a tile's time. Those r tiles run in q parts along K instead, q
 * = S / r (at most TB_MAX_PARTS, each part at least 64 deep, none empty),
 * so that the last wave takes about 1/q of a tile's time; their partials,
 * q r tiles of 64 KB written and read back once, are small beside a wave.
 * 777 x 9999 x 333 (553 tiles on 132 SMs: 4 waves and 25 tiles) runs its
 * last 25 in 4 parts, 8192^3 (31 waves and 4) its last 4 in 32; 4096^3 (7
 * waves and 100) stays whole. 1: no split. For grids that tb_wgmma_parts
 * leaves whole. */
int tb_wgmma_tail_parts(int m, int n, int k, int sms)
{
    if (m <= 0 || n <= 0 || k <= 0 || sms <= 0)
        return 1;
    const long long tiles = (long long)((m + 127) / 128) * ((n + 127) / 128);
    const long long r = tiles % sms;
    if (tiles < sms || r == 0)
        return 1;
    long long q = sms / r;
    if (q > k / 64)
        q = k / 64;
    if (q > TB_MAX_PARTS)
        q = TB_MAX_PARTS;
    return q >= 2 ? tb_split_fit(k, (int)q) : 1;
}

/* The columns of C a grid of 128 x 128 tiles needs to hold as many tiles as
 * g's wanted triangle has (g->n without one): the width K's parts fill. */
static int tb_tri_cols(const tb_gemm *g)
{
    if (!g->tri || g->m <= 0)
        return g->n;
    const long long mt = (g->m + 127) / 128, nt = (g->n + 127) / 128;
    long long wanted = 0;
    for (long long i = 0; i < mt; i++)
        for (long long j = 0; j < nt; j++)
            wanted += !TB_TILE_UNWANTED(g->tri, g->tri_w, i * 128, 128, j * 128, 128);
    const long long cols = (wanted + mt - 1) / mt * 128;
    return cols < g->n ? (int)cols : g->n;
}

tb_run_plan tb_kernel_plan(const tb_kernel_info *k, const tb_gemm *g, int sms)
{
    tb_run_plan p = {0, 0, 1, g->k};
    if (g->m <= 0 || g->n <= 0 || g->k <= 0 || (g->alpha.re == 0.0 && g->alpha.im == 0.0))
        return p;   /* A and B are not read: nothing to copy or cut */
    const size_t es = tb_dtype_size(g->dtype);
    if (k->wants_aligned) {
        p.pack_a = !tb_rows16(g->A, g->lda, es) && tb_want_copy(g, 0);
        p.pack_b = !tb_rows16(g->B, g->ldb, es) && tb_want_copy(g, 1);
    }
    if (k->ksplit == TB_K_PARTS) {
        /* A wanted triangle: the grid the parts fill is its tiles alone. */
        p.parts = tb_split_parts(g->dtype, g->m, tb_tri_cols(g), g->k, sms);
        if (p.parts > 1)
            p.slice = tb_split_slice(g->k, p.parts);
    }
    return p;
}

/* ---- a complex product as one real product ------------------------------ */

/* The layout is tb_kernels.h's (tb_complex_plan). The scratch strides are
 * multiples of 32 reals (rows on 128-byte boundaries, as the runtime's own
 * copies); A' comes first, then B'', then P, each a multiple of 128 bytes
 * long. */
static size_t tb_round32z(size_t x) { return (x + 31) & ~(size_t)31; }

tb_complex_plan tb_complex_plan_of(const tb_gemm *g, int post)
{
    tb_complex_plan p;
    memset(&p, 0, sizeof p);
    const tb_dtype rt = tb_dtype_real(g->dtype);
    const size_t rs = tb_dtype_size(rt);
    const int a_zero = g->alpha.re == 0.0 && g->alpha.im == 0.0;
    p.g = *g;
    p.g.dtype = rt;
    if (g->m <= 0 || g->n <= 0)
        return p;   /* nothing to write */
    if (g->k <= 0 || a_zero) {
        p.scale_c = 1;   /* C = beta C; A and B are not read */
        return p;
    }
    if (g->n > 0x3fffffff || g->k > 0x3fffffff) {
        p.real = -1;
        return p;
    }
    p.real = 1;
    const int alpha_cx = g->alpha.im != 0.0, beta_cx = g->beta.im != 0.0;
    p.post = post && alpha_cx;
    p.fold = alpha_cx && !p.post;
    p.copy_a = g->transa != 0;
    p.scale_c = beta_cx && !p.post;
    const size_t n2 = 2 * (size_t)g->n, k2 = 2 * (size_t)g->k;
    p.g.n = (int)n2;
    p.g.k = (int)k2;
    p.g.transa = p.g.transb = 0;
    p.g.lda = p.copy_a ? tb_round32z(k2) : 2 * g->lda;
    p.g.A = p.copy_a ? NULL : g->A;
    p.g.ldb = tb_round32z(n2);
    p.g.B = NULL;
    p.g.ldc = p.post ? tb_round32z(n2) : 2 * g->ldc;
    p.g.C = p.post ? NULL : g->C;
    p.g.alpha = (tb_scalar){alpha_cx ? 1.0 : g->alpha.re, 0.0};
    p.g.beta = (tb_scalar){p.post ? 0.0 : beta_cx ? 1.0 : g->beta.re, 0.0};
    /* C's wanted triangle in the real product's columns (two a complex
     * one); a product into P wants all of P, which the post pass reads. */
    p.g.tri = p.post ? 0 : g->tri;
    p.g.tri_w = 2 * (g->tri_w > 1 ? g->tri_w : 1);
    const size_t a_bytes = p.copy_a ? (size_t)g->m * p.g.lda * rs : 0;
    const size_t b_bytes = k2 * p.g.ldb * rs;
    const size_t p_bytes = p.post ? (size_t)g->m * p.g.ldc * rs : 0;
    p.a_off = 0;
    p.b_off = a_bytes;
    p.p_off = a_bytes + b_bytes;
    p.bytes = a_bytes + b_bytes + p_bytes;
    return p;
}
