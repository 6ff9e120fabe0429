/* tests/tool/tool_calls.c - an ordinary OpenBLAS program (knows nothing of
 * libtiledblas) for the observability tests: a known number of cblas_sgemm
 * calls on T threads, each checked against a float64 reference, optionally
 * with a fork()ed child, or exit() called from one thread while the others
 * are still calling. Prints "tool_calls: N calls ok". */
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int g_calls = 20, g_threads = 1, g_size = 64, g_exit_mid = 0;
static volatile int g_bad;

/* One call of n x n x n (alternating with an 8 x 8 x 8 one), checked. */
static void one(int i)
{
    int n = i % 2 ? 8 : g_size;
    float *A = malloc(sizeof *A * n * n), *B = malloc(sizeof *B * n * n), *C = malloc(sizeof *C * n * n);
    for (int j = 0; j < n * n; j++) {
        A[j] = (float)((j * 7 + i) % 13) / 13.0f - 0.5f;
        B[j] = (float)((j * 5 + 3) % 11) / 11.0f - 0.5f;
        C[j] = NAN;                      /* beta = 0: C must not be read */
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
    for (int r = 0; r < n; r += 3)
        for (int c = 0; c < n; c += 5) {
            double s = 0.0;
            for (int p = 0; p < n; p++)
                s += (double)A[r * n + p] * B[p * n + c];
            if (!(fabs(s - C[r * n + c]) <= 1e-4 * n))
                g_bad = 1;
        }
    free(A); free(B); free(C);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int i = t; i < g_calls; i += g_threads)
        one(i);
    return NULL;
}

static void *exiter(void *arg)
{
    (void)arg;
    usleep(20000);
    printf("tool_calls: exit() from a second thread while calls run\n");
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv)
{
    int do_fork = 0, idle_child = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--calls") && i + 1 < argc) g_calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) g_threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) g_size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--fork")) do_fork = 1;
        else if (!strcmp(argv[i], "--fork-idle")) idle_child = 1;
        else if (!strcmp(argv[i], "--exit-mid")) g_exit_mid = 1;
        else {
            fprintf(stderr, "usage: tool_calls [--calls N] [--threads T] [--size S] [--fork] "
                    "[--fork-idle] [--exit-mid]\n");
            return 2;
        }
    }
    if (g_threads < 1 || g_threads > 64)
        return 2;
    pthread_t th[64], ex;
    if (g_exit_mid) {
        g_calls = 1000000;               /* keep calling until exit() strikes */
        pthread_create(&ex, NULL, exiter, NULL);
    }
    for (int t = 0; t < g_threads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < g_threads; t++)
        pthread_join(th[t], NULL);
    if (do_fork || idle_child) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            if (do_fork)                 /* the child makes calls of its own */
                for (int i = 0; i < 3; i++)
                    one(i);
            exit(g_bad);                 /* exit(), not _exit(): destructors run */
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st))
            g_bad = 1;
    }
    printf("tool_calls: %d calls %s\n", g_calls, g_bad ? "FAILED" : "ok");
    return g_bad;
}
