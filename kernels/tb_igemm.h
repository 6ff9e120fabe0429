/* kernels/tb_igemm.h - the INT8 tensor-core products of the Ozaki scheme
 * (dgemm_02_ozaki.cu): for each modulus p_t, U_t = (A_t B_t^T) mod p_t,
 * A_t and B_t int8 residues, K contiguous in both (the layout wgmma's
 * integer products and mma.sync's row.col take), sums exact in int32.
 * Two kernels of one contract: igemm_01_wgmma.cu (wgmma m64n256k32 fed by
 * TMA, sm_90a) and the mma.sync m16n8k32 kernel in dgemm_02_ozaki.cu (any
 * GPU from 8.0). */
#ifndef TB_IGEMM_H
#define TB_IGEMM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tiles: wgmma's 128 x 256 (the mma.sync kernel's 128 x 128 divide them),
 * K slices of 128 bytes. The residue arrays are padded to them with zeros. */
#define TB_IG_BM 128
#define TB_IG_BN 256
#define TB_IG_BK 128
#define TB_IG_MAXMOD 16

/* One pass over K of the products of every modulus t < *nmod:
 * A: planes of Mp x Kp int8, plane t at A + t * a_plane (row i, K p at
 * i * Kp + p); B the same with Np rows (column j of op(B)); U: planes of m x
 * ldu bytes, U_t(i, j) in [0, p_t) for i < m, j < n. K in [kbeg, kend)
 * (multiples of TB_IG_BK, at most TB_OZ_KCUT apart); accumulate 1: a later
 * pass, whose residues are added to U's. nmod is read on the device (0:
 * nothing to do, the product runs elsewhere); the launch is sized for
 * TB_IG_MAXMOD. */
typedef struct tb_igemm {
    const int8_t *A, *B;
    size_t a_plane, b_plane;
    int Mp, Np, Kp;
    int m, n;
    int kbeg, kend;
    int accumulate;
    uint8_t *U;
    size_t ldu, u_plane;
    const int *nmod;
    int p[TB_IG_MAXMOD];
    double pinv[TB_IG_MAXMOD];
} tb_igemm;

/* igemm_01_wgmma.cu: on compute capability 9.0 (sm_90a code);
 * cudaErrorNotSupported elsewhere or where the build has no such code. */
cudaError_t tb_igemm_wgmma(const tb_igemm *j, int sms, cudaStream_t stream);
/* dgemm_02_ozaki.cu: mma.sync m16n8k32, any GPU from 8.0. */
cudaError_t tb_igemm_mma(const tb_igemm *j, int sms, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
