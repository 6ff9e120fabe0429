/* kernels/tb_ozaki.h - the arithmetic of the Ozaki scheme II double product
 * (dgemm_02_ozaki.cu), in plain C that the CUDA kernels and the host unit
 * test (tests/kernels/test_ozaki.c) both compile, so that the test proves
 * the code the kernels run:
 *   the moduli and the constants of the Chinese remainder theorem for N of
 *   them (tb_oz_consts_make, host only: 128-bit integers);
 *   a vector's scale from its statistics (tb_oz_norm_exp), the number of
 *   moduli a product takes (tb_oz_choose);
 *   an integer's symmetric residue (tb_oz_residue), the residue of an
 *   int32 sum (tb_oz_mod);
 *   the integer product from its residues (tb_oz_reconstruct).
 *
 * The scheme. For every row i of op(A) and column j of op(B) a power of two
 * 2^ea_i, 2^eb_j turns the doubles into integers a'_ip = rint(2^ea_i a_ip),
 * b'_pj = rint(2^eb_j b_pj) whose exact product C'_ij = sum_p a'_ip b'_pj
 * lies in (-P/2, P/2), P the product of N pairwise coprime moduli of at most
 * 256. Then C' is known from its residues mod each modulus, and each
 * residue is an INT8 product: the residues of a' and b' are int8, their
 * products summed in int32 are exact for K up to TB_OZ_KCUT. The result is
 * 2^-(ea_i + eb_j) C'_ij, rounded once. The only error is the rounding of
 * the operands to integers.
 *
 * Scale (Cauchy-Schwarz): |C'_ij| <= ||a'_i||_2 ||b'_j||_2, and ||a'_i|| <=
 * 2^ea_i ||a_i|| + sqrt(k)/2. With 2^ea_i ||a_i|| <= 2^ga and 2^eb_j ||b_j||
 * <= 2^gb (ea_i = ga - E_i, E_i the least integer with ||a_i|| <= 2^E_i) and
 * 2^(ga+gb+1) (1 + 2^-22) <= P, every |C'_ij| < P/2 - P 2^-26. Each a_ip
 * is then kept to an absolute 2^-ea_i / 2 <= 2^-ga ||a_i||: the error of
 * c_ij is about 0.4 2^-(G/2) ||a_i|| ||b_j|| (G = ga + gb, rounding errors
 * of random sign), where an fp64 sum of k terms errs by about 0.2 u ||a_i||
 * ||b_j|| (u = 2^-53).
 *
 * How many moduli (tb_oz_choose). Measured against an fp64 sum of each
 * dot product in order (what cuBLAS DGEMM and dmma compute: the same
 * errors to three digits on the H200, docs/kernels.md), in exact integer
 * simulations of this scheme on the host: the relative Frobenius error is
 * at most half of fp64's from G = 112 on, whatever the data (15 moduli);
 * the largest |c - ref| / sum |a||b| is that too on data of little dynamic
 * range, but on data like randn x 2^u, u uniform in [-E, E], a row's large
 * values meet a column's small ones: sum |a||b| is far below ||a|| ||b||
 * for some pairs (i, j), the more so the fewer terms carry a row's norm.
 * That is read from each vector's peakedness pi = sqrt(k) ||x||_2 /
 * ||x||_1 (1 for equal magnitudes, sqrt(k) for one nonzero): with lp the
 * sum of the largest log2 pi of op(A)'s rows and of op(B)'s columns and
 * L = 2 log2 k - 2 lp (log2 of the product of the vectors' effective
 * numbers of terms, k / pi^2),
 *     G >= max(112, 104 + 2 lp + 2 max(2.5, 8.5 - L / 2)),
 * which covered every case simulated (64 x 1024 outputs, k 64 to 4096,
 * uniform [-1, 1], randn, randn x 2^u with E 3 to 30) with 2 bits to spare
 * at least. Where some row or column is carried by fewer than 8 terms (pi^2
 * > k / 8: a permutation, a diagonal, a few dominant values), fp64 sums its
 * few products almost exactly and no scale keeps each of them to 53 bits:
 * dmma. A product that needs more than 16 moduli (G 124) runs on dmma too.
 * On 256 x 256 outputs (tb_oz_choose on generated data): uniform and randn
 * take 15 moduli from k = 32 on; randn x 2^[-12,12] dmma up to k = 200 and
 * 16 moduli from 256; randn x 2^[-30,30] dmma up to k = 1024, 16 from 1536.
 *
 * The integer product from its residues r_t in [0, p_t) (tb_oz_reconstruct): C' =
 * S - Q P, S = sum_t r_t w_t, w_t = (P / p_t) ((P / p_t)^-1 mod p_t), Q the
 * integer nearest S / P (computed as sum_t r_t (w_t / P) in double: its
 * error, under 2^-40, is far from the 2^-26 the bound leaves). w_t and P
 * are held in limbs of lb bits, so that each limb's sum_t r_t w_tl - Q P_l
 * is exact in double; the limbs, weighted by 2^(lb l), are added from the
 * top with error-free sums (two_sum): C' to about 2^-105 relative, then
 * rounded once.
 *
 * The ends of the range and inf/NaN are the launcher's gate: the product
 * runs on dmma where an operand has inf or NaN, or the vectors' norms
 * could make results overflow or fall near the subnormals (tb_oz_choose). */
#ifndef TB_OZAKI_H
#define TB_OZAKI_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define TB_OZ_HD static __host__ __device__ __forceinline__
#else
#define TB_OZ_HD static inline
#endif

#define TB_OZ_MAXMOD 16  /* moduli at most (P < 2^126)                          */
#define TB_OZ_MINMOD 14  /* the fewest the constants are made for               */
#define TB_OZ_NSETS (TB_OZ_MAXMOD - TB_OZ_MINMOD + 1)
#define TB_OZ_MAXLIMB 4
/* K of one INT8 pass: |r_a r_b| <= 128 * 128 = 2^14 per term and the int32
 * sum must stay under 2^31, so at most 131071 terms; a multiple of 128 (the
 * kernels' K slices). Longer K runs in passes whose residues are added. */
#define TB_OZ_KCUT 130944
/* The norm scales of tb_oz_norm_exp: sums of squares of x 2^-S for S = 600,
 * 0, -600 (index 0, 1, 2), chosen by the largest |x| so that neither the
 * squares overflow nor the largest one underflows. */
#define TB_OZ_S 600

/* The constants of the theorem for N moduli (N = TB_OZ_MINMOD + set). */
typedef struct tb_oz_crt {
    int nmod, nlimb, lb;      /* moduli, limbs, bits a limb                     */
    int G;                    /* ga + gb: 2^(G+1) (1 + 2^-22) <= P             */
    double v[TB_OZ_MAXMOD];   /* w_t / P, rounded                               */
    double w[TB_OZ_MAXMOD][TB_OZ_MAXLIMB];   /* w_t in limbs, lowest first     */
    double P[TB_OZ_MAXLIMB];  /* P in limbs                                     */
    double scale[TB_OZ_MAXLIMB];   /* 2^(lb l)                                 */
} tb_oz_crt;

typedef struct tb_oz_consts {
    int p[TB_OZ_MAXMOD];      /* the moduli, largest first                      */
    double pd[TB_OZ_MAXMOD], pinv[TB_OZ_MAXMOD];   /* p and 1/p as doubles    */
    tb_oz_crt crt[TB_OZ_NSETS];
} tb_oz_consts;

/* ga and gb for G bits in all: ga = ceil(G / 2). */
TB_OZ_HD int tb_oz_ga(int G) { return (G + 1) / 2; }
TB_OZ_HD int tb_oz_gb(int G) { return G / 2; }

/* ---- host: the constants --------------------------------------------------- */
/* Pairwise coprime (256 = 2^8, 255 = 3 5 17, 253 = 11 23, 247 = 13 19, 217 =
 * 7 31, the rest primes), the largest first: N moduli give P over 2^(8N -
 * 0.4 N^2 / 16) or so (14: 2^110.2, 15: 2^117.8, 16: 2^125.4). */
static const int tb_oz_moduli[TB_OZ_MAXMOD] = {256, 255, 253, 251, 247, 241, 239, 233,
                                               229, 227, 223, 217, 211, 199, 197, 193};

typedef unsigned __int128 tb_oz_u128;

/* x^-1 mod p (x, p coprime). */
static inline int tb_oz_inv(int x, int p)
{
    int r0 = p, r1 = ((x % p) + p) % p, t0 = 0, t1 = 1;
    while (r1) {
        const int q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
        r0 = r1, r1 = r2, t0 = t1, t1 = t2;
    }
    return ((t0 % p) + p) % p;
}

/* The low `bits` bits of x >> shift, as a double (exact: bits <= 53). */
static inline double tb_oz_limb(tb_oz_u128 x, int shift, int bits)
{
    if (shift >= 128)
        return 0.0;
    return (double)(uint64_t)((x >> shift) & (((tb_oz_u128)1 << bits) - 1));
}

static inline void tb_oz_consts_make(tb_oz_consts *c)
{
    for (int t = 0; t < TB_OZ_MAXMOD; t++) {
        c->p[t] = tb_oz_moduli[t];
        c->pd[t] = tb_oz_moduli[t];
        c->pinv[t] = 1.0 / tb_oz_moduli[t];
    }
    for (int s = 0; s < TB_OZ_NSETS; s++) {
        tb_oz_crt *r = &c->crt[s];
        const int N = TB_OZ_MINMOD + s;
        tb_oz_u128 P = 1;
        for (int t = 0; t < N; t++)
            P *= (tb_oz_u128)tb_oz_moduli[t];
        r->nmod = N;
        /* Limbs: sum_t r_t w_tl < N 256 2^lb <= 2^53, and Q P_l the same
         * (Q <= sum_t r_t w_t / P < N 256). */
        int lb = 53;
        while ((double)N * 256.0 * ldexp(1.0, lb) > ldexp(1.0, 53))
            lb--;
        int bitsP = 0;
        while (bitsP < 128 && (P >> bitsP) != 0)
            bitsP++;
        r->lb = lb;
        r->nlimb = (bitsP + lb - 1) / lb;
        /* G: the largest with 2^(G+1) + 2^(G+1-22) <= P. */
        int G = 20;
        while (G + 2 < 127 && ((tb_oz_u128)1 << (G + 2)) + ((tb_oz_u128)1 << (G + 2 - 22)) <= P)
            G++;
        r->G = G;
        for (int l = 0; l < TB_OZ_MAXLIMB; l++) {
            r->P[l] = l < r->nlimb ? tb_oz_limb(P, lb * l, lb) : 0.0;
            r->scale[l] = ldexp(1.0, lb * l);
        }
        const long double Pl = (long double)P;
        for (int t = 0; t < TB_OZ_MAXMOD; t++) {
            tb_oz_u128 w = 0;
            if (t < N) {
                const tb_oz_u128 M = P / (tb_oz_u128)tb_oz_moduli[t];
                const int q = tb_oz_inv((int)(M % (tb_oz_u128)tb_oz_moduli[t]), tb_oz_moduli[t]);
                w = M * (tb_oz_u128)q;   /* < P: q < p_t */
            }
            r->v[t] = (double)((long double)w / Pl);
            for (int l = 0; l < TB_OZ_MAXLIMB; l++)
                r->w[t][l] = l < r->nlimb ? tb_oz_limb(w, lb * l, lb) : 0.0;
        }
    }
}

/* ---- a vector's scale ------------------------------------------------------ */

/* Which of the three scaled sums of squares (and of magnitudes) holds a
 * vector whose largest magnitude is amax: index 0 (x 2^-600) from 2^400 up,
 * 2 (x 2^600) under 2^-400, else 1. */
TB_OZ_HD int tb_oz_sum_index(double amax)
{
    return amax >= 0x1p400 ? 0 : amax < 0x1p-400 ? 2 : 1;
}

/* The scaled contributions of one element: s2[i] += (x 2^-S_i)^2, s1[i] +=
 * |x| 2^-S_i, S = 600, 0, -600. */
TB_OZ_HD void tb_oz_see(double x, double s2[3], double s1[3])
{
    const double a = fabs(x);
    const double h = a * 0x1p-600, l = a * 0x1p600;
    s2[0] = fma(h, h, s2[0]);
    s2[1] = fma(a, a, s2[1]);
    s2[2] = fma(l, l, s2[2]);
    s1[0] += h;
    s1[1] += a;
    s1[2] += l;
}

/* E, the least integer with ||x||_2 <= 2^E, of a vector whose largest
 * magnitude is amax (nonzero, finite) and whose scaled sums of squares are
 * s2 (tb_oz_see); the sum's rounding (at most k u relative, k < 2^31) is
 * covered by a margin of 2^-20. */
TB_OZ_HD int tb_oz_norm_exp(double amax, const double s2[3])
{
    const int i = tb_oz_sum_index(amax);
    const double s = i == 0 ? s2[0] : i == 2 ? s2[2] : s2[1];   /* no indexing: registers */
    int e;
    frexp(sqrt(s) * (1.0 + 0x1p-20), &e);
    return e + (i == 0 ? TB_OZ_S : i == 2 ? -TB_OZ_S : 0);
}

/* log2 of the peakedness sqrt(k) ||x||_2 / ||x||_1 of a nonzero vector of
 * length k (between 0 and log2(k) / 2). */
TB_OZ_HD double tb_oz_log2_peak(double amax, const double s2[3], const double s1[3], int k)
{
    const int i = tb_oz_sum_index(amax);
    const double q = i == 0 ? s2[0] : i == 2 ? s2[2] : s2[1];
    const double l = i == 0 ? s1[0] : i == 2 ? s1[2] : s1[1];
    const double r = log2(sqrt((double)k) * sqrt(q) / l);
    return r > 0.0 ? r : 0.0;
}

/* ---- the number of moduli -------------------------------------------------- */

/* The bits G that a product of depth k needs whose operands' largest
 * peakedness (log2) of op(A)'s rows plus that of op(B)'s columns is lp (the
 * rule above). */
TB_OZ_HD double tb_oz_need(int k, double lp)
{
    const double L = 2.0 * log2((double)k) - 2.0 * lp;
    const double tail = fmax(2.5, 8.5 - 0.5 * L);
    return fmax(112.0, 104.0 + 2.0 * lp + 2.0 * tail);
}

/* The range gate: the largest and smallest norm exponents of op(A)'s rows
 * (ea_max, ea_min) and op(B)'s columns (over nonzero vectors; an operand of
 * zeros has none: any = 0). A result is at most ||a_i|| ||b_j|| <=
 * 2^(Ea + Eb): under 2^1000 nothing overflows, alpha and the K sum aside
 * (so that the fp64 path's overflow to inf is matched, not approximated);
 * over 2^-960 no scaled result is subnormal. Also keeps every scale
 * 2^(g - E) within double's exponents (tb_oz_scale). */
TB_OZ_HD int tb_oz_range_ok(int any_a, int ea_max, int ea_min, int any_b, int eb_max, int eb_min)
{
    if (!any_a || !any_b)
        return 1;   /* a zero operand: C' = 0 */
    return ea_max + eb_max <= 1000 && ea_min + eb_min >= -960;
}

/* The moduli for a product of depth k whose largest peakedness (log2) is
 * lpa among op(A)'s rows, lpb among op(B)'s columns: TB_OZ_MINMOD ..
 * TB_OZ_MAXMOD, or 0 (dmma) where more would be needed or a vector is
 * carried by a few terms. G[s]: the constants' G for N = TB_OZ_MINMOD + s. */
TB_OZ_HD int tb_oz_choose(int k, double lpa, double lpb, const int G[TB_OZ_NSETS])
{
    /* A vector carried by fewer than 8 terms (k / pi^2: a permutation's
     * rows, a diagonal's columns): the fp64 sum of its few products is
     * nearly exact, and the scale cannot keep each of them to 53 bits. */
    const double few = 0.5 * (log2((double)k) - 3.0);
    if (lpa > few || lpb > few)
        return 0;
    const double need = tb_oz_need(k, lpa + lpb);
    for (int s = 0; s < TB_OZ_NSETS; s++)
        if (G[s] >= need)
            return TB_OZ_MINMOD + s;
    return 0;
}

/* ---- residues ---------------------------------------------------------------- */

/* The integer rint(x 2^e), e = g - E of the vector: two exact power-of-two
 * factors f1 = 2^(e/2), f2 = 2^(e - e/2) (e within +-2000: each a normal
 * double); x f1 rounds only where it underflows, and then rint gives 0. */
TB_OZ_HD double tb_oz_pow2(int e)
{
    union {
        double d;
        uint64_t u;
    } v;
    v.u = (uint64_t)(1023 + e) << 52;
    return v.d;
}
TB_OZ_HD double tb_oz_scaled(double x, double f1, double f2) { return rint(x * f1 * f2); }

/* The symmetric residue of an integer y (|y| < 2^63, a double) mod p: in
 * [-(p-1)/2, (p-1)/2] for odd p, [-128, 127] for 256. q = rint(y/p) from
 * the product with 1/p may be off by a few units where |y / p| nears 2^53:
 * y - p q is exact (fma of an exact small integer), and a second step
 * brings it into [-p/2, p/2]. */
TB_OZ_HD int tb_oz_residue(double y, double p, double pinv)
{
    double r = fma(-p, rint(y * pinv), y);
    r = fma(-p, rint(r * pinv), r);
    int ir = (int)r;
    if (2 * ir >= (int)p)
        ir -= (int)p;
    return ir;
}

/* An int32 sum's residue in [0, p) (the INT8 products' epilogue), plus a
 * residue `add` in [0, p) of an earlier K pass. floor(s / p) from doubles
 * is exact or one below/above (|s| < 2^31). */
TB_OZ_HD int tb_oz_mod(int s, int p, double pinv, int add)
{
    int r = s - p * (int)floor((double)s * pinv);
    r += r < 0 ? p : 0;
    r -= r >= p ? p : 0;
    r += add;
    return r >= p ? r - p : r;
}

/* x 2^T, rounded once: one exact power-of-two factor where 2^T is a normal
 * double, else two of which the first leaves x (an integer, or 0) normal
 * (|T| <= 2022; the range gate keeps T within [-1100, 1000]). */
TB_OZ_HD double tb_oz_unscale(double x, int T)
{
    if (T >= -1022 && T <= 1023)
        return x * tb_oz_pow2(T);
    return x * tb_oz_pow2(T < 0 ? T + 1000 : T - 1000) * tb_oz_pow2(T < 0 ? -1000 : 1000);
}

/* ---- the theorem ------------------------------------------------------------- */

/* Error-free sum: a + b = s + e exactly. */
TB_OZ_HD void tb_oz_two_sum(double a, double b, double *s, double *e)
{
    const double x = a + b, bb = x - a;
    *e = (a - (x - bb)) + (b - bb);
    *s = x;
}

/* C' from its N residues r[t] in [0, p_t), as hi + lo (hi the double
 * nearest, lo the rest to about 2^-105 |C'|). NMOD known at compile time in
 * the kernels (unrolled), any in the test. */
TB_OZ_HD void tb_oz_reconstruct(const tb_oz_crt *c, int nmod, const int *r, double *hi, double *lo)
{
    double s = 0.0;
    for (int t = 0; t < nmod; t++)
        s = fma((double)r[t], c->v[t], s);
    const double Q = rint(s);
    double L[TB_OZ_MAXLIMB];
    for (int l = 0; l < TB_OZ_MAXLIMB; l++) {
        double a = -Q * c->P[l];   /* exact: Q < 2^12, P_l < 2^lb */
        for (int t = 0; t < nmod; t++)
            a = fma((double)r[t], c->w[t][l], a);
        L[l] = a;
    }
    /* From the top limb down (those past nlimb are 0, and so exact). */
    double x = L[TB_OZ_MAXLIMB - 1] * c->scale[TB_OZ_MAXLIMB - 1], err = 0.0;
    for (int l = TB_OZ_MAXLIMB - 2; l >= 0; l--) {
        double e;
        tb_oz_two_sum(x, L[l] * c->scale[l], &x, &e);
        err += e;
    }
    const double h = x + err;
    *hi = h;
    *lo = err - (h - x);
}

#endif
