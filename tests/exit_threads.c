/* tests/exit_threads.c - a program whose threads keep calling cblas_sgemm
 * while its main thread calls exit(): the process must end, at once and
 * with the main thread's exit code, in every mode of the preload. Each
 * thread checks its products, so a call served wrong shows as exit 3.
 * Usage: exit_threads [THREADS] [N] [MS before exit] */
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int n = 400;

static void *caller(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg;
    float *A = malloc(sizeof(float) * n * n), *B = malloc(sizeof(float) * n * n),
          *C = malloc(sizeof(float) * n * n);
    for (int i = 0; i < n * n; i++) {
        A[i] = (float)(rand_r(&seed) % 7) - 3.0f;
        B[i] = (float)(rand_r(&seed) % 5) - 2.0f;
    }
    for (;;) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
        /* Small integers: every element is exact in float; check one. */
        double want = 0.0;
        for (int p = 0; p < n; p++)
            want += (double)A[p] * B[(size_t)p * n + n - 1];
        if (fabs(C[n - 1] - want) > 0.0) {
            fprintf(stderr, "exit_threads: wrong product (%g, want %g)\n", C[n - 1], want);
            _exit(3);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4, ms = argc > 3 ? atoi(argv[3]) : 100;
    if (argc > 2)
        n = atoi(argv[2]);
    pthread_t t;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t, NULL, caller, (void *)(size_t)(i + 1)) != 0)
            return 2;
    usleep((useconds_t)ms * 1000);
    exit(0);
}
