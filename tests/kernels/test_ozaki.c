/* tests/kernels/test_ozaki.c - the arithmetic of the Ozaki scheme II
 * double product (dgemm_02_ozaki.cu) on the host, without a GPU, through
 * the same functions the kernels call (kernels/tb_ozaki.h):
 *   the constants of the Chinese remainder theorem for 14, 15 and 16 moduli
 *   (each w_t is 1 mod p_t and 0 mod the others, exactly, from its limbs;
 *   G against P);
 *   residues of integers up to 2^62 and of int32 sums, against exact
 *   integer arithmetic, at the edges (multiples of p, +-p/2, the int32
 *   worst case of a K pass of TB_OZ_KCUT terms of -128 x -128);
 *   the integer product from its residues: random C' over all of (-P/2,
 *   P/2), hi the correctly rounded double, hi + lo within 2^-100;
 *   whole products: row and column statistics, the moduli the rule picks,
 *   scaling, residues, exact integer GEMMs per modulus (int32 sums, K in
 *   passes of TB_OZ_KCUT with the residues added), the theorem, unscaling;
 *   each result's integer C' equal to the exact product of the scaled
 *   operands, and the errors (max |c - ref| / sum |a||b| and relative
 *   Frobenius, against a long-double reference) at most those of an fp64
 *   sum in order (what cuBLAS DGEMM and dmma compute), on uniform [-1, 1]
 *   and randn x 2^u, u uniform in [-12, 12] and [-30, 30], several K;
 *   the rule's choices: 15 moduli for uniform data, 16 for wide range, dmma
 *   (0) for wide range with a short K, inf/NaN and the ends of the range.
 * Exit 0 pass, 1 fail. */
#include "tb_ozaki.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../check.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double unif(void)   /* uniform in [-1, 1), 53 bits, never 0 */
{
    const double v = (double)((int64_t)rnd64() >> 11) / 4503599627370496.0;
    return v == 0.0 ? 0.5 : v;
}
/* randn x 2^u, u uniform in [-E, E] (E = 0: randn); E < 0: uniform. */
static double gen(int E)
{
    if (E < 0)
        return unif();
    const double u1 = ((rnd64() >> 11) + 1.0) / 9007199254740993.0;
    const double u2 = (rnd64() >> 11) / 9007199254740992.0;
    const double v = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    return ldexp(v == 0.0 ? 0.5 : v, E ? (int)(rnd64() % (uint64_t)(2 * E + 1)) - E : 0);
}

static tb_oz_consts K;

/* The exact value of limbs x[0..nl) of lb bits. */
static u128 from_limbs(const double *x, int nl, int lb)
{
    u128 v = 0;
    for (int l = nl - 1; l >= 0; l--)
        v = (v << lb) + (u128)x[l];
    return v;
}

static u128 product_P(int N)
{
    u128 P = 1;
    for (int t = 0; t < N; t++)
        P *= (u128)K.p[t];
    return P;
}

static void test_constants(void)
{
    for (int t = 0; t < TB_OZ_MAXMOD; t++)
        for (int s = 0; s < t; s++) {
            int a = K.p[t], b = K.p[s];
            while (b) {
                const int r = a % b;
                a = b, b = r;
            }
            CHECK(a == 1, "moduli %d and %d not coprime", K.p[t], K.p[s]);
        }
    for (int s = 0; s < TB_OZ_NSETS; s++) {
        const tb_oz_crt *c = &K.crt[s];
        const int N = TB_OZ_MINMOD + s;
        const u128 P = product_P(N);
        CHECK(c->nmod == N, "set %d: nmod %d", s, c->nmod);
        CHECK(from_limbs(c->P, c->nlimb, c->lb) == P, "N %d: P's limbs", N);
        CHECK((double)N * 256.0 * ldexp(1.0, c->lb) <= ldexp(1.0, 53), "N %d: limbs of %d bits",
              N, c->lb);
        const u128 g1 = (u128)1 << (c->G + 1), g2 = (u128)1 << (c->G + 2);
        CHECK(g1 + (g1 >> 22) <= P && g2 + (g2 >> 22) > P, "N %d: G %d", N, c->G);
        for (int t = 0; t < N; t++) {
            const u128 w = from_limbs(c->w[t], c->nlimb, c->lb);
            CHECK(w < P, "N %d: w_%d >= P", N, t);
            for (int u = 0; u < N; u++)
                CHECK(w % (u128)K.p[u] == (u128)(u == t), "N %d: w_%d mod p_%d", N, t, u);
            CHECK(fabsl((long double)c->v[t] - (long double)w / (long double)P) <= 0x1p-52L,
                  "N %d: v_%d", N, t);
        }
    }
    printf("constants: G = %d, %d, %d for %d, %d, %d moduli; limbs of %d bits\n", K.crt[0].G,
           K.crt[1].G, K.crt[2].G, TB_OZ_MINMOD, TB_OZ_MINMOD + 1, TB_OZ_MINMOD + 2, K.crt[2].lb);
}

/* The symmetric residue the kernels want, from exact integers. */
static int sym_mod(i128 y, int p)
{
    int r = (int)(y % p);
    if (r < 0)
        r += p;
    if (2 * r >= p)
        r -= p;
    return r;
}

static void test_residues(void)
{
    long bad = 0, n = 0;
    for (int t = 0; t < TB_OZ_MAXMOD; t++) {
        const int p = K.p[t];
        for (int i = 0; i < 20000; i++) {
            /* |y| up to 2^62, all sizes; multiples of p and their neighbours */
            int64_t y;
            const int kind = i % 4;
            const int bits = (int)(rnd64() % 63);
            y = (int64_t)(rnd64() >> (64 - bits - 1)) * ((rnd64() & 1) ? 1 : -1);
            if (kind == 1)
                y = (y / p) * p + (int)(rnd64() % 3) - 1;
            if (kind == 2)
                y = (y / p) * p + p / 2 + (int)(rnd64() % 3) - 1;
            if (i < 4)
                y = i == 0 ? ((int64_t)1 << 62) : i == 1 ? -((int64_t)1 << 62) : i == 2 ? 0 : p;
            if (llabs(y) > ((int64_t)1 << 62))
                continue;
            const double yd = (double)y;
            if ((int64_t)yd != y)
                continue;   /* the kernels' integers are doubles: 53 significant bits */
            const int got = tb_oz_residue(yd, K.pd[t], K.pinv[t]);
            const int want = sym_mod(y, p);
            n++;
            if (got != want || got < -128 || got > 127) {
                if (bad++ < 5)
                    printf("   residue(%lld, %d) = %d, want %d\n", (long long)y, p, got, want);
            }
        }
    }
    CHECK(bad == 0, "%ld of %ld residues wrong", bad, n);

    /* int32 sums, with an earlier pass's residue added. */
    bad = 0, n = 0;
    for (int t = 0; t < TB_OZ_MAXMOD; t++) {
        const int p = K.p[t];
        for (int i = 0; i < 20000; i++) {
            int s = (int)(uint32_t)rnd64();
            if (i % 3 == 1)
                s = (s / p) * p + (int)(rnd64() % 3) - 1;
            if (i < 4)
                s = i == 0 ? INT_MAX : i == 1 ? INT_MIN + 1 : i == 2 ? 0 : -p;
            const int add = (int)(rnd64() % (uint64_t)p);
            const int got = tb_oz_mod(s, p, K.pinv[t], add);
            const int want = (int)((((int64_t)s % p + p) % p + add) % p);
            n++;
            if (got != want && bad++ < 5)
                printf("   mod(%d, %d) + %d = %d, want %d\n", s, p, add, got, want);
        }
    }
    CHECK(bad == 0, "%ld of %ld int32 residues wrong", bad, n);

    /* A K pass's worst case: every term (-128) x (-128), TB_OZ_KCUT terms,
     * stays inside int32; one more term would not. */
    const int64_t worst = (int64_t)TB_OZ_KCUT * 128 * 128;
    CHECK(worst <= INT_MAX && (int64_t)131072 * 128 * 128 > INT_MAX && TB_OZ_KCUT % 128 == 0,
          "TB_OZ_KCUT %d: worst sum %lld", TB_OZ_KCUT, (long long)worst);
}

/* Residues in [0, p_t) of C. */
static void residues_of(i128 C, int N, int *r)
{
    for (int t = 0; t < N; t++) {
        int x = (int)(C % K.p[t]);
        r[t] = x < 0 ? x + K.p[t] : x;
    }
}

/* Whether hi is the double nearest the integer C and hi + lo is within
 * 2^-100 |C| (+ 1) of it. */
static int crt_ok(i128 C, double hi, double lo)
{
    const long double Cl = (long double)C;   /* 64 bits: the check of hi is exact below */
    const double want = (double)Cl;          /* may be off by double rounding: compare exactly */
    const i128 h = (i128)hi;
    const i128 d = C - h;                    /* |d| <= ulp(hi) / 2 if hi is the nearest */
    const double ulp = hi == 0.0 ? 0.0 : ldexp(1.0, ilogb(hi) - 52);
    const int nearest = fabsl((long double)d) <= 0.5L * ulp;
    const long double rest = (long double)d - (long double)lo;
    (void)want;
    return nearest && fabsl(rest) <= fabsl(Cl) * 0x1p-100L + 1.0L;
}

static void test_crt(void)
{
    long bad = 0, n = 0;
    for (int s = 0; s < TB_OZ_NSETS; s++) {
        const tb_oz_crt *c = &K.crt[s];
        const int N = c->nmod;
        const i128 half = (i128)(product_P(N) / 2);
        /* the scale's bound on |C'|: 2^G (1 + 2^-38) */
        const i128 bound = ((i128)1 << c->G) + ((i128)1 << (c->G - 38));
        for (int i = 0; i < 40000; i++) {
            i128 C;
            const int bits = (int)(rnd64() % (unsigned)(c->G + 2));
            C = (i128)(((u128)rnd64() << 64) | rnd64()) & ((((i128)1) << bits) - 1);
            if (rnd64() & 1)
                C = -C;
            if (C > bound || -C > bound)
                C = (C > 0) ? bound : -bound;
            if (i < 6)
                C = i == 0 ? 0 : i == 1 ? bound : i == 2 ? -bound : i == 3 ? 1 : i == 4 ? -1 : half / 3;
            int r[TB_OZ_MAXMOD];
            residues_of(C, N, r);
            double hi, lo;
            tb_oz_reconstruct(c, N, r, &hi, &lo);
            n++;
            if (!crt_ok(C, hi, lo) && bad++ < 5)
                printf("   N %d: C' = %.17Lg: hi %.17g lo %.17g\n", N, (long double)C, hi, lo);
        }
    }
    CHECK(bad == 0, "%ld of %ld reconstructions wrong", bad, n);
}

/* ---- whole products ---------------------------------------------------------- */

/* The statistics of a vector of length k, elements x[p * stride]: norm
 * exponent (*E; 0 for zeros), log2 peakedness, nonzero, nonfinite. */
typedef struct {
    int E, nonzero, nonfinite;
    double lp;
} vstat;

static vstat stats_of(const double *x, int k, int stride)
{
    vstat v = {0, 0, 0, 0.0};
    double s2[3] = {0, 0, 0}, s1[3] = {0, 0, 0}, amax = 0;
    for (int p = 0; p < k; p++) {
        const double a = x[(size_t)p * stride];
        if (!(fabs(a) <= DBL_MAX))
            v.nonfinite = 1;
        amax = fmax(amax, fabs(a));
        tb_oz_see(a, s2, s1);
    }
    if (amax > 0 && !v.nonfinite) {
        v.nonzero = 1;
        v.E = tb_oz_norm_exp(amax, s2);
        v.lp = tb_oz_log2_peak(amax, s2, s1, k);
    }
    return v;
}

/* The decision for A (m x k row-major) and B (k x n row-major): the moduli
 * (0: dmma), the vectors' exponents. */
static int decide(const double *A, const double *B, int m, int n, int k, int *Ea, int *Eb)
{
    int nonfinite = 0, any_a = 0, any_b = 0, amax_e = -100000, amin_e = 100000;
    int bmax_e = -100000, bmin_e = 100000;
    double lpa = 0, lpb = 0;
    for (int i = 0; i < m; i++) {
        const vstat v = stats_of(A + (size_t)i * k, k, 1);
        nonfinite |= v.nonfinite;
        Ea[i] = v.E;
        if (v.nonzero) {
            any_a = 1;
            amax_e = v.E > amax_e ? v.E : amax_e;
            amin_e = v.E < amin_e ? v.E : amin_e;
            lpa = fmax(lpa, v.lp);
        }
    }
    for (int j = 0; j < n; j++) {
        const vstat v = stats_of(B + j, k, n);
        nonfinite |= v.nonfinite;
        Eb[j] = v.E;
        if (v.nonzero) {
            any_b = 1;
            bmax_e = v.E > bmax_e ? v.E : bmax_e;
            bmin_e = v.E < bmin_e ? v.E : bmin_e;
            lpb = fmax(lpb, v.lp);
        }
    }
    if (nonfinite || !tb_oz_range_ok(any_a, amax_e, amin_e, any_b, bmax_e, bmin_e))
        return 0;
    int G[TB_OZ_NSETS];
    for (int s = 0; s < TB_OZ_NSETS; s++)
        G[s] = K.crt[s].G;
    return tb_oz_choose(k, lpa, lpb, G);
}

/* C = A B by the scheme with N moduli, as the kernels run it: integers
 * a' = rint(2^(ga - Ea_i) a), their residues (int8), the INT8 products
 * (int32 sums over K passes of TB_OZ_KCUT, residues added), the theorem,
 * 2^(Ea_i + Eb_j - G). Also checks every C' against the exact product of
 * the integers (*exact_bad counts mismatches). */
static void ozaki(const double *A, const double *B, int m, int n, int k, int N, const int *Ea,
                  const int *Eb, double *C, long *exact_bad)
{
    const tb_oz_crt *c = &K.crt[N - TB_OZ_MINMOD];
    const int ga = tb_oz_ga(c->G), gb = tb_oz_gb(c->G);
    double *Ai = malloc(sizeof(double) * (size_t)m * k), *Bi = malloc(sizeof(double) * (size_t)n * k);
    signed char *Ar = malloc((size_t)N * m * k), *Br = malloc((size_t)N * n * k);
    for (int i = 0; i < m; i++) {
        const int e = ga - Ea[i];
        const double f1 = tb_oz_pow2(e / 2), f2 = tb_oz_pow2(e - e / 2);
        for (int p = 0; p < k; p++) {
            const double y = tb_oz_scaled(A[(size_t)i * k + p], f1, f2);
            Ai[(size_t)i * k + p] = y;
            for (int t = 0; t < N; t++)
                Ar[((size_t)t * m + i) * k + p] = (signed char)tb_oz_residue(y, K.pd[t], K.pinv[t]);
        }
    }
    for (int j = 0; j < n; j++) {
        const int e = gb - Eb[j];
        const double f1 = tb_oz_pow2(e / 2), f2 = tb_oz_pow2(e - e / 2);
        for (int p = 0; p < k; p++) {
            const double y = tb_oz_scaled(B[(size_t)p * n + j], f1, f2);
            Bi[(size_t)j * k + p] = y;
            for (int t = 0; t < N; t++)
                Br[((size_t)t * n + j) * k + p] = (signed char)tb_oz_residue(y, K.pd[t], K.pinv[t]);
        }
    }
    int *U = malloc(sizeof(int) * (size_t)N * m * n);
    for (int t = 0; t < N; t++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                const signed char *a = Ar + ((size_t)t * m + i) * k, *b = Br + ((size_t)t * n + j) * k;
                int u = 0;
                for (int k0 = 0; k0 < k; k0 += TB_OZ_KCUT) {
                    const int k1 = k0 + TB_OZ_KCUT < k ? k0 + TB_OZ_KCUT : k;
                    int64_t s = 0;   /* must fit int32: checked */
                    for (int p = k0; p < k1; p++)
                        s += a[p] * b[p];
                    if (s > INT_MAX || s < INT_MIN)
                        (*exact_bad)++;
                    u = tb_oz_mod((int)s, K.p[t], K.pinv[t], u);
                }
                U[((size_t)t * m + i) * n + j] = u;
            }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            int r[TB_OZ_MAXMOD];
            for (int t = 0; t < N; t++)
                r[t] = U[((size_t)t * m + i) * n + j];
            double hi, lo;
            tb_oz_reconstruct(c, N, r, &hi, &lo);
            i128 exact = 0;
            for (int p = 0; p < k; p++)
                exact += (i128)(int64_t)Ai[(size_t)i * k + p] * (i128)(int64_t)Bi[(size_t)j * k + p];
            if (!crt_ok(exact, hi, lo))
                (*exact_bad)++;
            C[(size_t)i * n + j] = tb_oz_unscale(hi, Ea[i] + Eb[j] - c->G);
        }
    free(Ai);
    free(Bi);
    free(Ar);
    free(Br);
    free(U);
}

/* max |c - ref| / sum |a||b| and the relative Frobenius error. */
static void errors(const double *C, const long double *ref, const double *mag, size_t cnt,
                   double *mx, double *rel)
{
    long double num = 0, den = 0;
    double x = 0;
    for (size_t q = 0; q < cnt; q++) {
        const long double d = (long double)C[q] - ref[q];
        num += d * d;
        den += ref[q] * ref[q];
        const double e = (double)fabsl(d) / mag[q];
        if (e > x || e != e)
            x = e;
    }
    *mx = x;
    *rel = (double)sqrtl(num / den);
}

/* One product: inputs of kind E, m x n x k. want_n: the moduli the rule
 * must choose (-1: any of 15, 16). */
static void product(int E, int m, int n, int k, int want_n)
{
    double *A = malloc(sizeof(double) * (size_t)m * k), *B = malloc(sizeof(double) * (size_t)k * n);
    for (size_t q = 0; q < (size_t)m * k; q++)
        A[q] = gen(E);
    for (size_t q = 0; q < (size_t)k * n; q++)
        B[q] = gen(E);
    int *Ea = malloc(sizeof(int) * m), *Eb = malloc(sizeof(int) * n);
    const int N = decide(A, B, m, n, k, Ea, Eb);
    const char *what = E < 0 ? "uniform" : "randn x 2^u";
    if (want_n >= 0)
        CHECK(N == want_n, "%s E %d, %dx%dx%d: %d moduli, want %d", what, E, m, n, k, N, want_n);
    else
        CHECK(N == 15 || N == 16, "%s E %d, %dx%dx%d: %d moduli", what, E, m, n, k, N);
    if (N == 0) {
        printf("%-12s E %2d %4dx%4dx%6d: dmma\n", what, E, m, n, k);
        free(A), free(B), free(Ea), free(Eb);
        return;
    }
    /* Reference (long double), magnitudes, and the fp64 sum in order. */
    long double *ref = malloc(sizeof(long double) * (size_t)m * n);
    double *mag = malloc(sizeof(double) * (size_t)m * n), *seq = malloc(sizeof(double) * (size_t)m * n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double r = 0;
            double g = 0, s = 0;
            for (int p = 0; p < k; p++) {
                const double a = A[(size_t)i * k + p], b = B[(size_t)p * n + j];
                r += (long double)a * b;
                g += fabs(a * b);
                s = fma(a, b, s);
            }
            ref[(size_t)i * n + j] = r;
            mag[(size_t)i * n + j] = g;
            seq[(size_t)i * n + j] = s;
        }
    double *C = malloc(sizeof(double) * (size_t)m * n);
    long exact_bad = 0;
    ozaki(A, B, m, n, k, N, Ea, Eb, C, &exact_bad);
    double omx, orel, fmx, frel;
    errors(C, ref, mag, (size_t)m * n, &omx, &orel);
    errors(seq, ref, mag, (size_t)m * n, &fmx, &frel);
    printf("%-12s E %2d %4dx%4dx%6d: %d moduli; max_err %.2e (fp64 %.2e), rel_err %.2e (fp64 "
           "%.2e)\n",
           what, E, m, n, k, N, omx, fmx, orel, frel);
    CHECK(exact_bad == 0, "%dx%dx%d: %ld results not the exact integer product", m, n, k,
          exact_bad);
    CHECK(omx <= fmx && orel <= frel, "%s E %d %dx%dx%d: errors %.3g / %.3g over fp64's %.3g / %.3g",
          what, E, m, n, k, omx, orel, fmx, frel);
    free(A), free(B), free(Ea), free(Eb), free(ref), free(mag), free(seq), free(C);
}

/* The gate: inf or NaN anywhere, norms near the top or the bottom of the
 * range send the product to dmma; a zero operand does not. */
static void test_gate(void)
{
    enum { M = 8, N = 8, KK = 64 };
    double A[M * KK], B[KK * N];
    int Ea[M], Eb[N];
    for (int q = 0; q < M * KK; q++)
        A[q] = unif();
    for (int q = 0; q < KK * N; q++)
        B[q] = unif();
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 15, "uniform 8x8x64: not 15 moduli");
    A[5] = INFINITY;
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 0, "inf in A: not dmma");
    A[5] = 0.25;
    B[7] = NAN;
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 0, "NaN in B: not dmma");
    B[7] = 0.25;
    for (int q = 0; q < M * KK; q++)
        A[q] = ldexp(A[q], 1000);
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 0, "A near DBL_MAX: not dmma");
    for (int q = 0; q < M * KK; q++)
        A[q] = ldexp(A[q], -1000 - 970);
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 0, "A near the subnormals: not dmma");
    for (int q = 0; q < M * KK; q++)
        A[q] = ldexp(A[q], 970 - 600);   /* 2^-600 x B: fine */
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 15, "A x 2^-600: not 15 moduli");
    memset(A, 0, sizeof A);
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 15, "A zero: not 15 moduli");
    /* One nonzero per row (a permutation): peakedness sqrt(k), dmma. */
    for (int i = 0; i < M; i++)
        A[i * KK + (i * 7) % KK] = 1.0;
    CHECK(decide(A, B, M, N, KK, Ea, Eb) == 0, "a permutation: not dmma");
}

/* The scale at the ends of the range: subnormal and huge operands whose
 * products are normal come out as accurate as [-1, 1]. */
static void test_range(void)
{
    enum { M = 16, N = 16, KK = 100 };
    static const int ex[][2] = {{-1060, 1000}, {1000, -1060}, {-500, -400}, {480, 500}};
    for (size_t c = 0; c < sizeof ex / sizeof ex[0]; c++) {
        double A[M * KK], B[KK * N], C[M * N], mag[M * N];
        long double ref[M * N];
        int Ea[M], Eb[N];
        for (int q = 0; q < M * KK; q++)
            A[q] = ldexp(unif(), ex[c][0]);
        for (int q = 0; q < KK * N; q++)
            B[q] = ldexp(unif(), ex[c][1]);
        const int Nm = decide(A, B, M, N, KK, Ea, Eb);
        CHECK(Nm == 15, "A x 2^%d, B x 2^%d: %d moduli", ex[c][0], ex[c][1], Nm);
        if (Nm == 0)
            continue;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                long double r = 0;
                double g = 0;
                for (int p = 0; p < KK; p++) {
                    r += (long double)A[i * KK + p] * B[p * N + j];
                    g += fabs((double)((long double)A[i * KK + p] * B[p * N + j]));
                }
                ref[i * N + j] = r;
                mag[i * N + j] = g;
            }
        long bad = 0;
        ozaki(A, B, M, N, KK, Nm, Ea, Eb, C, &bad);
        double mx, rel;
        errors(C, ref, mag, M * N, &mx, &rel);
        CHECK(bad == 0 && mx < 4e-16 && rel < 4e-16, "A x 2^%d, B x 2^%d: max %.3g rel %.3g", ex[c][0],
              ex[c][1], mx, rel);
    }
}

int main(void)
{
    tb_oz_consts_make(&K);
    test_constants();
    test_residues();
    test_crt();
    test_gate();
    test_range();
    /* Uniform: 15 moduli; wide range: 16 from k = 2048, dmma for a short K
     * (the rule); the errors at most fp64's. */
    product(-1, 40, 40, 64, 15);
    product(-1, 40, 40, 1000, 15);
    product(-1, 24, 24, 4096, 15);
    product(0, 40, 40, 1000, 15);
    product(12, 40, 40, 300, 16);
    product(12, 32, 32, 2048, 16);
    product(30, 32, 32, 256, 0);
    product(30, 32, 32, 2048, 16);
    product(30, 16, 16, 4096, 16);
    /* K longer than one pass: residues added over two. */
    product(-1, 3, 2, TB_OZ_KCUT + 1000, 15);
    return unit_summary("test_ozaki");
}
