/* examples/mlp_train.c - an ordinary BLAS program, the kind the preload is
 * for: trains a two-layer tanh perceptron on a fixed linear map by gradient
 * descent, every product through cblas_sgemm; knows nothing of GPUs. Prints
 * each step's loss, a bit-exact weights checksum and its time (--help). */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: mlp_train [--batch B] [--in D] [--hidden H] [--out O] [--steps S] [--lr R]\n"
    "Trains X (B x D) -> tanh(X W1) (B x H) -> P (B x O) towards Y = X T / sqrt(D)\n"
    "(T a fixed random D x O matrix) by full-batch gradient descent, all products\n"
    "through cblas_sgemm. Defaults: B 4096, D 2048, H 4096, O 1024, S 5, R 0.1.\n"
    "Prints the loss (mean squared error per output) of each step, then\n"
    "'final loss', 'weights checksum' (sum and a hash of the weights' bits) and\n"
    "'time: T s total'. Exit status 0, or 2 for bad usage or too little memory.\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* n values uniform in [-scale, scale] (variance scale^2 / 3), fixed by seed. */
static float *uniform(size_t n, float scale, unsigned seed)
{
    float *x = malloc(n * sizeof *x);
    unsigned long long s = seed * 0x9e3779b97f4a7c15ull + 7;
    for (size_t i = 0; x && i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = scale * ((float)((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f);
    }
    return x;
}

/* FNV-1a over the bits of n floats: equal only when every bit is. */
static uint64_t bits_hash(uint64_t h, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], sizeof u);
        for (int b = 0; b < 4; b++) {
            h ^= (u >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    }
    return h;
}

/* Parses "--name value" pairs; 0, or 2 (message printed), or 1 for --help. */
static int parse(int argc, char **argv, int *sz[5], float *lr)
{
    static const char *const names[5] = {"--batch", "--in", "--hidden", "--out", "--steps"};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
        if (i + 1 >= argc) {
            fprintf(stderr, "mlp_train: %s needs a value\n%s", argv[i], usage);
            return 2;
        }
        char *end;
        int k;
        for (k = 0; k < 5 && strcmp(argv[i], names[k]); k++)
            ;
        if (k < 5) {
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < 1 || v > 1000000) {
                fprintf(stderr, "mlp_train: %s wants a whole number in 1..1000000\n", argv[i]);
                return 2;
            }
            *sz[k] = (int)v;
        } else if (!strcmp(argv[i], "--lr")) {
            *lr = strtof(argv[i + 1], &end);
            if (*end || !(*lr > 0.0f)) {
                fprintf(stderr, "mlp_train: --lr wants a positive number\n");
                return 2;
            }
        } else {
            fprintf(stderr, "mlp_train: unknown option %s\n%s", argv[i], usage);
            return 2;
        }
        i++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int batch = 4096, din = 2048, hid = 4096, dout = 1024, steps = 5;
    float lr = 0.1f;
    int *sz[5] = {&batch, &din, &hid, &dout, &steps};
    int rc = parse(argc, argv, sz, &lr);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc)
        return rc;

    double t0 = now(), t_gemm = 0.0, gflop = 0.0;
    /* Unit-variance inputs and targets: X uniform in [-sqrt 3, sqrt 3], and
     * Y = X T / sqrt(din) with T the same, so each target is a sum of din
     * unit-variance terms scaled back to variance 1. W1 has variance 1/din
     * (unit-variance pre-activations) and W2 1/hid. tanh keeps the hidden
     * layer's outputs centred on zero; with ReLU their mean would make the
     * curvature in W2 grow with the width, and no one learning rate would
     * suit every size (LeCun et al., "Efficient BackProp", 1998). */
    const float u = sqrtf(3.0f);
    float *X = uniform((size_t)batch * din, u, 1), *T = uniform((size_t)din * dout, u, 2);
    float *W1 = uniform((size_t)din * hid, u / sqrtf((float)din), 3);
    float *W2 = uniform((size_t)hid * dout, u / sqrtf((float)hid), 4);
    float *Y = malloc((size_t)batch * dout * sizeof *Y), *P = malloc((size_t)batch * dout * sizeof *P);
    float *H = malloc((size_t)batch * hid * sizeof *H), *dH = malloc((size_t)batch * hid * sizeof *dH);
    if (!X || !T || !W1 || !W2 || !Y || !P || !H || !dH) {
        fprintf(stderr, "mlp_train: out of memory\n");
        return 2;
    }
    printf("mlp_train: batch %d, layers %d -> %d -> %d, %d steps, learning rate %g\n",
           batch, din, hid, dout, steps, lr);
    double g0 = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, dout, din, 1.0f / sqrtf((float)din),
                X, din, T, dout, 0.0f, Y, dout);
    t_gemm += now() - g0;
    gflop += 2.0 * batch * din * dout * 1e-9;

    /* A layer with more inputs than the batch has samples sees a curvature
     * that grows with that ratio (the largest eigenvalue of A^T A / batch for
     * a batch x n matrix A of unit-variance entries is about (1 + sqrt(n /
     * batch))^2): its step shrinks by the same ratio. */
    const float lr1 = din > batch ? lr * batch / din : lr, lr2 = hid > batch ? lr * batch / hid : lr;
    double loss = 0.0;
    for (int step = 0; step < steps; step++) {
        /* Forward: H = tanh(X W1), P = H W2. */
        g0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, hid, din, 1.0f, X, din, W1, hid, 0.0f, H, hid);
        t_gemm += now() - g0;
        for (size_t i = 0; i < (size_t)batch * hid; i++)
            H[i] = tanhf(H[i]);
        g0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, dout, hid, 1.0f, H, hid, W2, dout, 0.0f, P, dout);
        t_gemm += now() - g0;
        /* The loss is the squared error summed over the outputs and averaged
         * over the batch; printed divided by dout (mean squared error per
         * output). P becomes its gradient dP = 2 (P - Y) / batch, in place. */
        loss = 0.0;
        for (size_t i = 0; i < (size_t)batch * dout; i++) {
            float d = P[i] - Y[i];
            loss += (double)d * d;
            P[i] = 2.0f * d / (float)batch;
        }
        loss /= (double)batch * dout;
        printf("step %d: loss %.6f\n", step, loss);
        /* Backward: dH = (dP W2^T) * tanh' (NT), then W2 -= lr H^T dP and
         * W1 -= lr X^T dH (TN), accumulated in place by beta = 1. */
        g0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, hid, dout, 1.0f, P, dout, W2, dout, 0.0f, dH, hid);
        t_gemm += now() - g0;
        for (size_t i = 0; i < (size_t)batch * hid; i++)
            dH[i] *= 1.0f - H[i] * H[i];
        g0 = now();
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, hid, dout, batch, -lr2, H, hid, P, dout, 1.0f, W2, dout);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, din, hid, batch, -lr1, X, din, dH, hid, 1.0f, W1, hid);
        t_gemm += now() - g0;
        gflop += 2.0 * batch * ((double)din * hid * 2 + (double)hid * dout * 3) * 1e-9;
    }
    double sum = 0.0;
    for (size_t i = 0; i < (size_t)din * hid; i++) sum += W1[i];
    for (size_t i = 0; i < (size_t)hid * dout; i++) sum += W2[i];
    uint64_t h = bits_hash(bits_hash(0xcbf29ce484222325ull, W1, (size_t)din * hid), W2, (size_t)hid * dout);
    double wall = now() - t0;
    printf("final loss %.17g\n", loss);
    printf("weights checksum %.17g %016llx\n", sum, (unsigned long long)h);
    /* Three significant digits, without an exponent: 0.190 GFLOP, 27.0, 1234. */
    int dec = gflop > 0 ? 2 - (int)floor(log10(gflop)) : 0;
    printf("time: %.3f s total, %.3f s in cblas_sgemm (%.*f GFLOP, %.1f GFLOP/s)\n",
           wall, t_gemm, dec < 0 ? 0 : dec, gflop, t_gemm > 0 ? gflop / t_gemm : 0.0);
    free(X); free(T); free(Y); free(W1); free(W2); free(H); free(P); free(dH);
    return 0;
}
