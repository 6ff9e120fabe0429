/* kernels/registry.c - the list of kernels the dispatcher may choose from,
 * fp32 then fp64, each in the order of the progression (docs/kernels.md),
 * with what it needs of the GPU; the choice among those of a product's
 * element type that fit the device; and src/'s typed entry points for
 * either type (tb_kernel_choose, tb_kernel_accepts, tb_gemm_launch).
 * Adding a kernel means adding its launcher here; nothing else in src/
 * names one. */
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

/* The last three fields of an fp32 entry: no fp64 launcher. */
#define TB_FP32 TB_F32, NULL, NULL

static const tb_kernel_info tb_kernels[] = {
    {"tiled16", "seed: 16x16 shared-memory tiles, one thread per element of C",
     tb_launch_tiled16, NULL, 0, 16, 16, 16, 0, 0, 1, 1, 256, 0, 0, 80, 0, TB_SMEM_TILED16,
     TB_FP32},
    /* Small products (tb_kernel_small_for), whatever their shape; its K
     * split takes scratch. */
    {"small", "small products: 32x32 tiles, 4x4 register micro-tiles, K split across the grid",
     tb_launch_small, NULL, 5, 32, 32, 32, 0, 0, 4, 4, 64, 0, 1, 80, 0, TB_SMEM_SMALL, TB_FP32},
    {"regblock", "128x128 tiles, 8x8 register micro-tiles, 128-bit loads, padded smem",
     tb_launch_regblock, NULL, 10, 128, 128, 8, 0, 0, 8, 8, 256, 0, 0, 80, 0, TB_SMEM_REGBLOCK,
     TB_FP32},
    {"warptile", "warp tiles (64x32), double-buffered smem, one barrier per K slice",
     tb_launch_warptile, NULL, 20, 128, 128, 16, 64, 32, 8, 8, 256, 0, 0, 80, 0, TB_SMEM_WARPTILE,
     TB_FP32},
    /* The tensor-core kernels: threads/thread_m/thread_n describe the
     * 128-row variant (the launcher takes 64-row tiles, 128 threads, when
     * 128-row tiles would leave SMs idle). A thread holds 4 accumulators
     * of each of the warp's 4x4 m16n8 tiles; thread_m x thread_n = 8 x 8
     * counts them the way the SIMT kernels do. */
    {"tf32x3", "tensor cores, 3xTF32 error-compensated (fp32 accuracy), 4-stage cp.async",
     tb_launch_tf32x3, NULL, 40, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0, 80, 0, TB_SMEM_TF32,
     TB_FP32},
    {"tf32x3-tcacc", "as tf32x3 but every sum in the tensor-core accumulator (truncating adds)",
     tb_launch_tf32x3_tcacc, NULL, 15, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0, 80, 0, TB_SMEM_TF32,
     TB_FP32},
    /* Hopper only (compute capability 9.0; supports() says so): wgmma fed
     * by TMA, 128x128 tiles of two consumer warpgroups (64x128 each), one
     * producer warpgroup, persistent grid; thread_m x thread_n counts a
     * consumer thread's 64 accumulators. wgmma-simple: one warpgroup,
     * 64x128 tiles, plain loads, the readable version. */
    {"wgmma", "Hopper wgmma + TMA, 3xTF32 split by a pre-pass or in shared memory (by cost), "
               "warp-specialised, persistent, split K",
     tb_launch_wgmma, tb_wgmma_supports, 50, 128, 128, 32, 64, 128, 8, 8, 384, 0, 1, 90, 90,
     TB_SMEM_WGMMA, TB_FP32},
    {"wgmma-1p", "as wgmma, one partial accumulator: each slice waited for before its fold",
     tb_launch_wgmma_1p, tb_wgmma_supports, 11, 128, 128, 32, 64, 128, 8, 8, 384, 0, 1, 90, 90,
     TB_SMEM_WGMMA, TB_FP32},
    {"wgmma-insplit", "as wgmma, always the split in shared memory from raw TMA tiles (no pre-pass)",
     tb_launch_wgmma_insplit, tb_wgmma_supports, 45, 128, 128, 32, 64, 128, 8, 8, 384, 0, 1, 90, 90,
     TB_SMEM_WGMMA_INSPLIT, TB_FP32},
    {"wgmma-simple", "Hopper wgmma, 3xTF32, one warpgroup, plain loads (step 4a, readable)",
     tb_launch_wgmma_simple, tb_wgmma_simple_supports, 12, 64, 128, 32, 64, 128, 8, 8, 128, 0, 1,
     90, 90, TB_SMEM_WGMMA_SIMPLE, TB_FP32},
    /* Plain TF32 is ~150x less accurate than fp32: opt-in by name only. */
    {"tf32-fast", "OPT-IN, NOT fp32-accurate: plain 1xTF32 tensor cores (~1e-4 relative error)",
     tb_launch_tf32_fast, NULL, -10, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0, 80, 0, TB_SMEM_TF32,
     TB_FP32},
    /* Double precision (dtype TB_F64, dlaunch): the seed first, then the
     * progression; ranks compare within a type only. dmma's tiling fields
     * describe its 128-row variant, as tf32x3's do. */
    {"dtiled16", "fp64 seed: 16x16 shared-memory tiles, one thread per element of C", NULL, NULL,
     0, 16, 16, 16, 0, 0, 1, 1, 256, 0, 0, 80, 0, TB_SMEM_DTILED16, TB_F64, tb_launch_dtiled16,
     NULL},
    {"dsmall", "fp64 small products: 32x32 tiles, 4x4 register micro-tiles, K split across the grid",
     NULL, NULL, 5, 32, 32, 32, 0, 0, 4, 4, 64, 0, 1, 80, 0, TB_SMEM_DSMALL, TB_F64,
     tb_launch_dsmall, NULL},
    {"dmma", "fp64 tensor cores: mma.sync f64, double-buffered fragments, cp.async pipeline",
     NULL, NULL, 40, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0, 80, 0, TB_SMEM_DMMA, TB_F64,
     tb_launch_dmma, NULL},
    {"dmma-k16", "as dmma with m16n8k16 steps, no fragment double buffer, K slices of 16",
     NULL, NULL, 20, 128, 128, 16, 64, 32, 8, 8, 256, 1, 0, 80, 0, TB_SMEM_DMMA, TB_F64,
     tb_launch_dmma_k16, NULL},
    {"dmma-884", "the m16n8k16 step loop with Ampere's m8n8k4 on every GPU (eight per step)", NULL,
     NULL, 10, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0, 80, 0, TB_SMEM_DMMA, TB_F64,
     tb_launch_dmma_884, NULL},
};

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

/* Small products go to the small kernel (gemm_05_small.cu): 32 x 32 tiles
 * and K cut across the grid give a 256^3 product a few hundred blocks, where
 * the tensor-core kernels' 128 x 128 tiles give 4 of the 132 SMs work and
 * each walks all of K: a product this small is a chain of latencies, and
 * more blocks in parallel shorten it. bench_kernels on the H200 (device
 * buffers, ms, small against the best tensor-core kernel): 256^3 0.015
 * against 0.025, 450^3 0.027 against 0.051, 64x64x2048 0.016 against
 * 0.146, 96x96x8192 0.025 against 0.207 (split K); the tensor cores win
 * from about 2.2e8 flops where their grid fills the GPU (600^3 0.030
 * against 0.041). */
#define TB_SMALL_MAX_FLOPS 2.2e8
/* fp64, dsmall against dmma on the H200 (bench_kernels --dtype double):
 * the small kernel wins up to 256^3 and wherever dmma's 64 x 128 tiles
 * leave it under 16 blocks: 64x64x2048 0.036 against 0.158 (96x96x8192),
 * 300x100x2000 0.033 against 0.160, 200x200x4000 (3.2e8 flops) 0.065
 * against 0.322; dmma wins from 512^3 (32 blocks, 0.035 against 0.052).
 * From TB_NO_SPLIT_FLOPS up dmma splits K itself (kernels/run.cu). */
#define TB_DSMALL_MAX_FLOPS 4e7
#define TB_DSMALL_FEW_BLOCKS 16
/* Below this the tensor-core kernels other than wgmma never split K
 * (tb_split_parts, tb_dsplit_parts). */
#define TB_NO_SPLIT_FLOPS (2.0 * 768 * 768 * 768)

int tb_kernel_small(int m, int n, int k)
{
    return 2.0 * m * (double)n * k <= TB_SMALL_MAX_FLOPS;
}

int tb_kernel_small_for(tb_dtype t, int m, int n, int k)
{
    if (t == TB_F32)
        return tb_kernel_small(m, n, k);
    const double flops = 2.0 * m * (double)n * k;
    const long long blocks64 = (long long)((m + 63) / 64) * ((n + 127) / 128);
    return flops <= TB_DSMALL_MAX_FLOPS ||
           (flops < TB_NO_SPLIT_FLOPS && blocks64 < TB_DSMALL_FEW_BLOCKS);
}

/* The small-product kernel of type t (gemm_05_small.cu). */
static const tb_kernel_info *tb_small(tb_dtype t)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    for (int i = 0; i < n; i++)
        if (t == TB_F64 ? k[i].dlaunch == tb_launch_dsmall : k[i].launch == tb_launch_small)
            return &k[i];
    return &k[0];
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

/* Whether k's supports() or dsupports() accepts the product (args: a
 * tb_gemm_args for an fp32 kernel, a tb_dgemm_args for an fp64 one; NULL:
 * not asked). */
static int tb_supported(const tb_kernel_info *k, const void *args)
{
    if (!args)
        return 1;
    if (k->dtype == TB_F64)
        return !k->dsupports || k->dsupports((const tb_dgemm_args *)args);
    return !k->supports || k->supports((const tb_gemm_args *)args);
}

/* The highest rank among the kernels of type t that fit the GPU, take
 * scratch only when scratch_ok, and accept args (NULL: their supports() are
 * not asked). */
static const tb_kernel_info *tb_best(tb_dtype t, const void *args, int major, int minor, int smem,
                                     int scratch_ok)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n), *best = NULL;
    for (int i = 0; i < n; i++)
        if (k[i].dtype == t && tb_kernel_fits(&k[i], major, minor, smem) &&
            (scratch_ok || !k[i].takes_scratch) && tb_supported(&k[i], args) &&
            (!best || k[i].rank > best->rank))
            best = &k[i];
    return best;
}

const tb_kernel_info *tb_kernel_default_for(tb_dtype t, int major, int minor, int smem_optin)
{
    return tb_best(t, NULL, major, minor, smem_optin, 1);
}

const tb_kernel_info *tb_kernel_default_on(int major, int minor, int smem_optin)
{
    return tb_kernel_default_for(TB_F32, major, minor, smem_optin);
}

static const tb_kernel_info *tb_pick(tb_dtype t, const void *args, int m, int n, int k,
                                     int scratch_ok)
{
    int dev, major, minor, smem;
    const tb_kernel_info *best = NULL;
    /* Both support every call; the small kernel's split takes scratch. */
    if (tb_kernel_small_for(t, m, n, k))
        return scratch_ok ? tb_small(t) : tb_seed(t);
    if (cudaGetDevice(&dev) != cudaSuccess)
        cudaGetLastError();
    else if (tb_device_caps(dev, &major, &minor, &smem)) {
        best = tb_best(t, args, major, minor, smem, scratch_ok);
        /* The GPU's best kernel declined a product too small for its grid
         * (wgmma: under a quarter of a wave of work units,
         * tb_wgmma_supports) and the next would not split K: the small
         * kernel's many blocks serve it better. H200, fp32: 512^3 0.028
         * ms against tf32x3's 0.039, 256x1024x512 0.028 against 0.038. */
        if (best && scratch_ok && best != tb_best(t, NULL, major, minor, smem, 1) &&
            2.0 * m * (double)n * k < TB_NO_SPLIT_FLOPS)
            best = tb_small(t);
    }
    /* Nothing fits (a GPU older than the build, or CUDA cannot say): the
     * seed kernel, whose launch then fails and the call runs on the CPU. */
    return best ? best : tb_seed(t);
}

const tb_kernel_info *tb_kernel_pick(const tb_gemm_args *args)
{
    return tb_pick(TB_F32, args, args->m, args->n, args->k, 1);
}

const tb_kernel_info *tb_kernel_pick_no_scratch(const tb_gemm_args *args)
{
    return tb_pick(TB_F32, args, args->m, args->n, args->k, 0);
}

const tb_kernel_info *tb_dkernel_pick(const tb_dgemm_args *args)
{
    return tb_pick(TB_F64, args, args->m, args->n, args->k, 1);
}

const tb_kernel_info *tb_dkernel_pick_no_scratch(const tb_dgemm_args *args)
{
    return tb_pick(TB_F64, args, args->m, args->n, args->k, 0);
}

/* ---- the generic product of src/ (tb_gemm) ------------------------------ */

size_t tb_dtype_size(tb_dtype t)
{
    return t == TB_F64 ? sizeof(double) : sizeof(float);
}

/* g as the typed arguments of its element type: an fp32 call's alpha and
 * beta go back to float (exact: they came from float). */
static tb_gemm_args tb_sargs(const tb_gemm *g)
{
    tb_gemm_args a = {g->m, g->n, g->k, g->transa, g->transb, (float)g->alpha, (float)g->beta,
                      (const float *)g->A, g->lda, (const float *)g->B, g->ldb, (float *)g->C,
                      g->ldc};
    return a;
}

static tb_dgemm_args tb_dargs(const tb_gemm *g)
{
    tb_dgemm_args a = {g->m, g->n, g->k, g->transa, g->transb, g->alpha, g->beta,
                       (const double *)g->A, g->lda, (const double *)g->B, g->ldb,
                       (double *)g->C, g->ldc};
    return a;
}

const tb_kernel_info *tb_kernel_choose(const tb_gemm *g, int scratch_ok)
{
    if (g->dtype == TB_F64) {
        const tb_dgemm_args a = tb_dargs(g);
        return tb_pick(TB_F64, &a, a.m, a.n, a.k, scratch_ok);
    }
    const tb_gemm_args a = tb_sargs(g);
    return tb_pick(TB_F32, &a, a.m, a.n, a.k, scratch_ok);
}

int tb_kernel_accepts(const tb_kernel_info *k, const tb_gemm *g)
{
    if (!k || k->dtype != g->dtype || !tb_kernel_fits_here(k))
        return 0;
    if (g->dtype == TB_F64) {
        const tb_dgemm_args a = tb_dargs(g);
        return k->dlaunch && tb_supported(k, &a);
    }
    const tb_gemm_args a = tb_sargs(g);
    return k->launch && tb_supported(k, &a);
}

/* g with kern (NULL: the preferred kernel), through tb_gemm_run /
 * tb_dgemm_run (kernels/run.cu) or, whole, the kernel's launcher alone. A
 * kernel of the other element type is refused. */
cudaError_t tb_gemm_launch(const tb_gemm *g, const tb_kernel_info *kern, int whole,
                           cudaStream_t stream)
{
    if (!kern)
        kern = tb_kernel_choose(g, 1);
    if (!kern || kern->dtype != g->dtype)
        return cudaErrorInvalidValue;
    if (g->dtype == TB_F64) {
        const tb_dgemm_args a = tb_dargs(g);
        return whole ? kern->dlaunch(&a, stream) : tb_dgemm_run(&a, kern, stream);
    }
    const tb_gemm_args a = tb_sargs(g);
    return whole ? kern->launch(&a, stream) : tb_gemm_run(&a, kern, stream);
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
        const int takes_all = o->dtype == TB_F64 ? !o->dsupports : !o->supports;
        if (o != k && o->dtype == k->dtype && o->rank > k->rank && takes_all &&
            tb_kernel_fits(o, major, minor, smem_optin))
            return 0;
    }
    return 1;
}

/* CUDA loads a kernel's code at its first launch (lazy loading, the
 * default), so the first call that launches a kernel pays for it as well;
 * a route measured on that call looks slower than it is. Launching each
 * kernel the default pick can return on this GPU on a 1 x 1 x 1 product
 * loads them ahead (the start thread does, before any call is measured):
 * twice, with rows one element apart and with rows 16 bytes apart, since a
 * kernel may take another path for rows it can read whole (wgmma splits
 * such operands in shared memory, the others in a pre-pass). Stops early
 * once *stop is set (a process exiting does not wait for the rest).
 * Returns the first launch error, or cudaSuccess. */
cudaError_t tb_kernels_load(cudaStream_t stream, const int *stop)
{
    int dev, major, minor, smem;
    if (cudaGetDevice(&dev) != cudaSuccess || !tb_device_caps(dev, &major, &minor, &smem))
        return cudaGetLastError();
    enum { ROW = 16 };   /* bytes: A at 0, B at ROW, C at 2 ROW */
    char *buf = NULL;
    cudaError_t e = cudaMalloc((void **)&buf, 3 * ROW);
    if (e != cudaSuccess)
        return e;
    e = cudaMemsetAsync(buf, 0, 3 * ROW, stream);
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n);
    for (int i = 0; i < n && e == cudaSuccess && !__atomic_load_n(stop, __ATOMIC_ACQUIRE); i++) {
        if (!tb_kernel_pickable(&k[i], major, minor, smem))
            continue;
        for (int whole = 0; whole < 2 && e == cudaSuccess; whole++) {
            if (k[i].dtype == TB_F64) {
                const size_t ld = whole ? ROW / sizeof(double) : 1;
                const double *d = (const double *)buf;
                const tb_dgemm_args g = {1, 1, 1, 0, 0, 1.0, 0.0, d, ld, d + ld, ld, (double *)d + 2 * ld, ld};
                e = k[i].dlaunch(&g, stream);
            } else {
                const size_t ld = whole ? ROW / sizeof(float) : 1;
                const float *f = (const float *)buf;
                const tb_gemm_args g = {1, 1, 1, 0, 0, 1.0f, 0.0f, f, ld, f + ld, ld, (float *)f + 2 * ld, ld};
                e = k[i].launch(&g, stream);
            }
        }
    }
    /* The split sum that the small kernel's split launches (run.cu), for
     * each element type, on one element. */
    for (int t = TB_F32; t <= TB_F64 && e == cudaSuccess; t++)
        e = tb_run_split_sum((tb_dtype)t, buf, 1, 1, 1, 1, 1, 1.0, 0.0, buf + ROW, 1, stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    cudaFree(buf);
    return e;
}
