/* kernels/registry.c - the list of kernels the dispatcher may choose from,
 * in the order of the progression (docs/kernels.md). Adding a kernel means
 * adding its launcher here; nothing else in src/ names a kernel. */
#include "tb_kernels.h"
#include <string.h>

#define TB_SMS_MAX_DEV 64
static int tb_sms[TB_SMS_MAX_DEV];

int tb_device_sms(int dev)
{
    const int cached = dev >= 0 && dev < TB_SMS_MAX_DEV;
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

static const tb_kernel_info tb_kernels[] = {
    {"tiled16", "seed: 16x16 shared-memory tiles, one thread per element of C",
     tb_launch_tiled16, NULL, 0, 16, 16, 16, 0, 0, 1, 1, 256, 0, 0},
    {"regblock", "128x128 tiles, 8x8 register micro-tiles, 128-bit loads, padded smem",
     tb_launch_regblock, NULL, 10, 128, 128, 8, 0, 0, 8, 8, 256, 0, 0},
    {"warptile", "warp tiles (64x32), double-buffered smem, one barrier per K slice",
     tb_launch_warptile, NULL, 20, 128, 128, 16, 64, 32, 8, 8, 256, 0, 0},
    /* The tensor-core kernels: threads/thread_m/thread_n describe the
     * 128-row variant (the launcher takes 64-row tiles, 128 threads, when
     * 128-row tiles would leave SMs idle). A thread holds 4 accumulators
     * of each of the warp's 4x4 m16n8 tiles; thread_m x thread_n = 8 x 8
     * counts them the way the SIMT kernels do. */
    {"tf32x3", "tensor cores, 3xTF32 error-compensated (fp32 accuracy), 4-stage cp.async",
     tb_launch_tf32x3, NULL, 40, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0},
    {"tf32x3-tcacc", "as tf32x3 but every sum in the tensor-core accumulator (truncating adds)",
     tb_launch_tf32x3_tcacc, NULL, 15, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0},
    /* Hopper only (compute capability 9.0; supports() says so): wgmma fed
     * by TMA, 128x128 tiles of two consumer warpgroups (64x128 each), one
     * producer warpgroup, persistent grid; thread_m x thread_n counts a
     * consumer thread's 64 accumulators. wgmma-simple: one warpgroup,
     * 64x128 tiles, plain loads, the readable version. */
    {"wgmma", "Hopper wgmma + TMA, 3xTF32 on a split pre-pass, warp-specialised, persistent",
     tb_launch_wgmma, tb_wgmma_supports, 50, 128, 128, 32, 64, 128, 8, 8, 384, 0, 1},
    {"wgmma-1p", "as wgmma, one partial accumulator: each slice waited for before its fold",
     tb_launch_wgmma_1p, tb_wgmma_supports, 11, 128, 128, 32, 64, 128, 8, 8, 384, 0, 1},
    {"wgmma-simple", "Hopper wgmma, 3xTF32, one warpgroup, plain loads (step 4a, readable)",
     tb_launch_wgmma_simple, tb_wgmma_simple_supports, 12, 64, 128, 32, 64, 128, 8, 8, 128, 0, 1},
    /* Plain TF32 is ~150x less accurate than fp32: opt-in by name only. */
    {"tf32-fast", "OPT-IN, NOT fp32-accurate: plain 1xTF32 tensor cores (~1e-4 relative error)",
     tb_launch_tf32_fast, NULL, -10, 128, 128, 32, 64, 32, 8, 8, 256, 1, 0},
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

/* Small products go to the seed kernel. Its 16 x 16 tiles give a 256^3
 * product 256 blocks, where the tensor-core kernel's 64 x 128 tiles give 8
 * of the 132 SMs work and each of them walks all of K: a product this
 * small is a chain of latencies, and more blocks in parallel shorten it.
 * bench_kernels on the H200 (device buffers): 128^3 0.009 ms
 * against 0.018, 256^3 0.014 against 0.025, 450^3 0.039 against 0.051,
 * 100x300x500 0.020 against 0.042, 64x64x2048 0.055 against 0.146,
 * 300x100x2000 0.057 against 0.133; the tensor cores win from 512^3
 * (0.046 against 0.038, 2.7e8 flops). */
#define TB_SEED_MAX_FLOPS 2.2e8

int tb_kernel_small(int m, int n, int k)
{
    return 2.0 * m * (double)n * k <= TB_SEED_MAX_FLOPS;
}

static const tb_kernel_info *tb_pick(const tb_gemm_args *args, int scratch_ok)
{
    int n;
    const tb_kernel_info *k = tb_kernel_list(&n), *best = NULL;
    if (tb_kernel_small(args->m, args->n, args->k))
        return &k[0];   /* tiled16: supports every call */
    for (int i = 0; i < n; i++)
        if ((scratch_ok || !k[i].takes_scratch) && (!k[i].supports || k[i].supports(args)) &&
            (!best || k[i].rank > best->rank))
            best = &k[i];
    return best;
}

const tb_kernel_info *tb_kernel_pick(const tb_gemm_args *args)
{
    return tb_pick(args, 1);
}

const tb_kernel_info *tb_kernel_pick_no_scratch(const tb_gemm_args *args)
{
    return tb_pick(args, 0);
}
