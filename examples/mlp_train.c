/* examples/mlp_train.c - an ordinary BLAS program, the kind the preload is
 * for: it trains a two-layer perceptron on synthetic data with cblas_sgemm
 * (forward NN products, backward TN and NT products) and knows nothing of
 * GPUs. It prints the loss per step, the time spent, and a checksum of the
 * weights, so two runs (with and without the preload) can be compared.
 * Usage: mlp_train [--batch B] [--in D] [--hidden H] [--out O] [--steps S] */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static float *randn(size_t n, float scale, unsigned seed)
{
    float *x = malloc(n * sizeof *x);
    unsigned long long s = seed * 0x9e3779b97f4a7c15ull + 7;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = scale * ((float)((s >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f);
    }
    return x;
}

int main(int argc, char **argv)
{
    int batch = 4096, din = 2048, hid = 4096, dout = 1024, steps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        int v = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--batch")) batch = v;
        else if (!strcmp(argv[i], "--in")) din = v;
        else if (!strcmp(argv[i], "--hidden")) hid = v;
        else if (!strcmp(argv[i], "--out")) dout = v;
        else if (!strcmp(argv[i], "--steps")) steps = v;
        else { fprintf(stderr, "mlp_train: unknown option %s\n", argv[i]); return 2; }
    }
    if (batch < 1 || din < 1 || hid < 1 || dout < 1 || steps < 1) {
        fprintf(stderr, "mlp_train: sizes must be positive\n");
        return 2;
    }
    float *X = randn((size_t)batch * din, 1.0f, 1), *Y = randn((size_t)batch * dout, 1.0f, 2);
    float *W1 = randn((size_t)din * hid, 1.0f / sqrtf((float)din), 3);
    float *W2 = randn((size_t)hid * dout, 1.0f / sqrtf((float)hid), 4);
    float *H = malloc((size_t)batch * hid * sizeof *H), *P = malloc((size_t)batch * dout * sizeof *P);
    float *dH = malloc((size_t)batch * hid * sizeof *dH);
    const float lr = 0.05f;
    double t_gemm = 0.0, t0 = now(), gflop = 0.0;

    printf("mlp_train: batch %d, layers %d -> %d -> %d, %d steps\n", batch, din, hid, dout, steps);
    for (int step = 0; step < steps; step++) {
        double g0 = now();
        /* Forward: H = relu(X W1), P = H W2. */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, hid, din, 1.0f, X, din, W1, hid, 0.0f, H, hid);
        t_gemm += now() - g0;
        for (size_t i = 0; i < (size_t)batch * hid; i++)
            H[i] = H[i] > 0.0f ? H[i] : 0.0f;
        g0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, dout, hid, 1.0f, H, hid, W2, dout, 0.0f, P, dout);
        t_gemm += now() - g0;
        /* Loss and its gradient, in place: P becomes dP. */
        double loss = 0.0;
        for (size_t i = 0; i < (size_t)batch * dout; i++) {
            float d = P[i] - Y[i];
            loss += (double)d * d;
            P[i] = 2.0f * d / (float)batch;
        }
        printf("step %d: loss %.6f\n", step, loss / ((double)batch * dout));
        g0 = now();
        /* Backward: dH = dP W2^T (NT), masked by relu; then the updates
         * W2 -= lr H^T dP and W1 -= lr X^T dH (TN), accumulated by beta = 1. */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, hid, dout, 1.0f, P, dout, W2, dout, 0.0f, dH, hid);
        t_gemm += now() - g0;
        for (size_t i = 0; i < (size_t)batch * hid; i++)
            dH[i] = H[i] > 0.0f ? dH[i] : 0.0f;
        g0 = now();
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, hid, dout, batch, -lr, H, hid, P, dout, 1.0f, W2, dout);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, din, hid, batch, -lr, X, din, dH, hid, 1.0f, W1, hid);
        t_gemm += now() - g0;
        gflop += 2.0 * batch * ((double)din * hid * 2 + (double)hid * dout * 3) * 1e-9;
    }
    double sum = 0.0;
    for (size_t i = 0; i < (size_t)din * hid; i++) sum += W1[i];
    for (size_t i = 0; i < (size_t)hid * dout; i++) sum += W2[i];
    double wall = now() - t0;
    printf("weights checksum %.6e\n", sum);
    printf("time: %.3f s total, %.3f s in cblas_sgemm (%.0f GFLOP, %.1f GFLOP/s)\n",
           wall, t_gemm, gflop, gflop / t_gemm);
    free(X); free(Y); free(W1); free(W2); free(H); free(P); free(dH);
    return 0;
}
