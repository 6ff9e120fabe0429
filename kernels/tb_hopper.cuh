/* kernels/tb_hopper.cuh - what the Hopper (sm_90a) kernels share: the grouped
 * order of their persistent tiles, and the device side of wgmma, mbarriers
 * and TMA copies (sgemm_04_wgmma.cu's 3xTF32 product, igemm_01_wgmma.cu's
 * INT8 one), with the driver's tensor-map encoder on the host side. The
 * device functions exist only where the compiler targets sm_90a
 * (__CUDA_ARCH_FEAT_SM90_ALL); each kernel file has its own fallback. */
#ifndef TB_HOPPER_CUH
#define TB_HOPPER_CUH

#include <cuda.h>          /* CUtensorMap and its enums: types only, no libcuda link */
#include <cudaTypedefs.h>  /* PFN_cuTensorMapEncodeTiled */
#include <cuda_runtime.h>
#include <stdint.h>

/* Tile t of the grid in grouped order: consecutive tiles walk down a group of
 * 8 tile rows before moving right, so the tiles in flight at one time share
 * 8 row panels of A and a few column panels of B (the working set of one K
 * window stays in L2). */
__device__ __forceinline__ void tb_wg_tile(int t, int tiles_m, int tiles_n, int &tm, int &tn)
{
    const int GROUP = 8, width = GROUP * tiles_n;
    const int first = (t / width) * GROUP;
    const int gsize = min(tiles_m - first, GROUP);
    tm = first + (t % width) % gsize;
    tn = (t % width) / gsize;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint32_t tb_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* A wgmma shared-memory matrix descriptor for a K-major tile whose rows are
 * 128 bytes stored with the 128-byte swizzle: within each row, 16-byte
 * chunk c sits at chunk c ^ (row % 8), so that the eight rows of a
 * 1024-byte group spread one column of chunks over all 32 banks. Bits 0-13:
 * start address / 16; 16-29: leading-dimension byte offset / 16 (unused for
 * swizzled K-major layouts: 1); 32-45: stride byte offset / 16, the distance
 * between 8-row groups (1024 bytes); 62-63: layout, 1 = 128-byte swizzle.
 * The tile must start on a 1024-byte boundary. Stepping K by 32 bytes
 * inside the row is adding 2 (address units) to the start: the hardware
 * applies the swizzle to the full address. */
__device__ __forceinline__ uint64_t tb_wg_desc(uint32_t saddr)
{
    uint64_t d = (uint64_t)((saddr & 0x3FFFF) >> 4);
    d |= (uint64_t)1 << 16;
    d |= (uint64_t)(1024 >> 4) << 32;
    d |= (uint64_t)1 << 62;
    return d;
}

/* wgmma.fence: the accumulator registers were touched by ordinary
 * instructions and are about to be used by wgmma. */
__device__ __forceinline__ void tb_wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
/* Close the batch of wgmmas issued so far into one group ... */
__device__ __forceinline__ void tb_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/* ... and wait until at most N groups are pending (0: accumulators final,
 * shared memory no longer read). */
template <int N> __device__ __forceinline__ void tb_wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* ---- mbarriers and the bulk tensor copy ---- */

__device__ __forceinline__ void tb_mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
/* One arrival, and `bytes` more the barrier must see arrive from copies
 * before its phase completes. */
__device__ __forceinline__ void tb_mbar_expect(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void tb_mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/* Wait until the phase of parity `parity` has completed. A fresh barrier is
 * in phase 0; the phase "before" it (parity 1) counts as complete, which is
 * what lets the producer's first pass over the empty barriers go through. */
__device__ __forceinline__ void tb_mbar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
/* TMA: the box at (k0, row0) of the tensor `map` into shared memory at dst,
 * written with the map's swizzle; completion counts its bytes on the
 * mbarrier `bar`. */
__device__ __forceinline__ void tb_tma_load(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                            int k0, int row0)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(k0), "r"(row0)
                 : "memory");
}
#endif

/* The driver's cuTensorMapEncodeTiled through the runtime (no libcuda
 * link), found once; NULL where the driver has none. */
static inline PFN_cuTensorMapEncodeTiled_v12000 tb_tma_encode_fn(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;   /* racy but idempotent */
    PFN_cuTensorMapEncodeTiled_v12000 f = __atomic_load_n(&fn, __ATOMIC_RELAXED);
    if (!f) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess) {
            cudaGetLastError();
            return NULL;
        }
        f = (PFN_cuTensorMapEncodeTiled_v12000)p;
        __atomic_store_n(&fn, f, __ATOMIC_RELAXED);
    }
    return f;
}

#endif
