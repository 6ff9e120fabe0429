/* src/gpu.c - the device side of a call: CUDA started on first use (never
 * in a constructor), pitched device buffers kept and reused across calls,
 * the copies in and out, the kernel launch, and the classification of every
 * CUDA failure. Contract: on failure the caller's C has not been touched. */
#define _GNU_SOURCE
#include "tb_internal.h"
#include "tb_kernels.h"
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef enum { TB_GPU_UNTRIED = 0, TB_GPU_READY, TB_GPU_DEAD } tb_gpu_state_t;

/* One pitched device matrix, grown on demand, reused by later calls. */
typedef struct tb_pitched {
    float *ptr;
    size_t pitch;         /* bytes between rows, from cudaMallocPitch */
    size_t width;         /* bytes of a row we may use                */
    size_t height;        /* rows                                     */
} tb_pitched;

/* Everything below is guarded by tb_gpu_lock; one call on the GPU at a time. */
static pthread_mutex_t tb_gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static tb_gpu_state_t tb_gpu_state;
static const char *tb_gpu_why = "no-gpu";
static char tb_gpu_detail_text[160] = "not started";
static cudaStream_t tb_stream;
static cudaEvent_t tb_ev[4];
static tb_pitched tb_buf[3];           /* A, B, C */
static int tb_gpu_failures;            /* consecutive failed calls */
static volatile int tb_gpu_in_child;   /* set after fork() in the child */

enum { TB_MAX_CONSECUTIVE_FAILURES = 3 };

void tb_gpu_forked_child(void)
{
    /* The parent's CUDA context is not usable here; the lock may even be
     * held by a thread that does not exist in the child. Never touch either. */
    tb_gpu_in_child = 1;
}

static void tb_gpu_disable(const char *why)
{
    tb_gpu_state = TB_GPU_DEAD;
    tb_gpu_why = why;
}

/* Starts CUDA. Called under the lock, once. */
static void tb_gpu_init(void)
{
    const tb_settings *s = tb_settings_get();
    int count = 0;
    cudaError_t e = s->fault == TB_STAGE_INIT ? cudaErrorUnknown : cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0 || s->device >= count) {
        const char *msg = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
        if (s->fault == TB_STAGE_INIT)
            msg = "injected by TILEDBLAS_FAULT=init";
        cudaGetLastError();
        tb_gpu_disable("no-gpu");
        snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "%s", msg);
        return;
    }
    if ((e = cudaSetDevice(s->device)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&tb_stream, cudaStreamNonBlocking)) != cudaSuccess) {
        snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "CUDA initialisation failed: %s",
                 cudaGetErrorString(e));
        tb_gpu_disable("gpu-init-failed");
        return;
    }
    for (int i = 0; i < 4; i++)
        if ((e = cudaEventCreate(&tb_ev[i])) != cudaSuccess) {
            tb_gpu_disable("gpu-init-failed");
            return;
        }
    /* Only a parent that started CUDA must keep its children off it. */
    pthread_atfork(NULL, NULL, tb_gpu_forked_child);
    tb_gpu_state = TB_GPU_READY;
    snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "ready");
}

const char *tb_gpu_detail(void)
{
    return tb_gpu_in_child ? "the parent process had started CUDA before fork()" : tb_gpu_detail_text;
}

int tb_gpu_available(const char **why)
{
    if (tb_gpu_in_child) {
        *why = "after-fork";
        return 0;
    }
    pthread_mutex_lock(&tb_gpu_lock);
    if (tb_gpu_state == TB_GPU_UNTRIED)
        tb_gpu_init();
    int ok = tb_gpu_state == TB_GPU_READY;
    *why = tb_gpu_why;
    pthread_mutex_unlock(&tb_gpu_lock);
    return ok;
}

static void tb_buffers_free(void)
{
    for (int i = 0; i < 3; i++) {
        if (tb_buf[i].ptr)
            cudaFree(tb_buf[i].ptr);
        memset(&tb_buf[i], 0, sizeof tb_buf[i]);
    }
}

/* Makes buffer b hold rows x cols floats; keeps the old one when it fits. */
static cudaError_t tb_buffer_fit(tb_pitched *b, size_t rows, size_t cols)
{
    size_t width = cols * sizeof(float);
    if (b->ptr && width <= b->width && rows <= b->height)
        return cudaSuccess;
    size_t w = width > b->width ? width : b->width;
    size_t h = rows > b->height ? rows : b->height;
    if (b->ptr)
        cudaFree(b->ptr);
    memset(b, 0, sizeof *b);
    void *p;
    cudaError_t e = cudaMallocPitch(&p, &b->pitch, w, h);
    if (e != cudaSuccess)
        return e;
    b->ptr = p;
    b->width = w;
    b->height = h;
    return cudaSuccess;
}

/* Errors after which the context is still usable: the next call may retry. */
static int tb_recoverable(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation || e == cudaErrorInvalidConfiguration ||
           e == cudaErrorInvalidValue || e == cudaErrorInvalidPitchValue ||
           e == cudaErrorNoKernelImageForDevice;
}

/* An injected fault (TILEDBLAS_FAULT) replaces the result of that stage by a
 * recoverable error; tb_fault_hit tells the classification it was ours. */
static int tb_fault_hit;
static cudaError_t tb_inject(tb_stage stage, cudaError_t e)
{
    if (tb_settings_get()->fault != stage)
        return e;
    tb_fault_hit = 1;
    return cudaErrorUnknown;
}

static float tb_elapsed(int from, int to)
{
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, tb_ev[from], tb_ev[to]);
    return ms;
}

/* Copies the rows x cols window of a host matrix (stride ld elements) into b. */
static cudaError_t tb_put(tb_pitched *b, const float *host, size_t ld, size_t rows, size_t cols)
{
    return cudaMemcpy2DAsync(b->ptr, b->pitch, host, ld * sizeof(float),
                             cols * sizeof(float), rows, cudaMemcpyHostToDevice, tb_stream);
}

static const tb_kernel_info *tb_choose_kernel(const tb_gemm_args *g)
{
    const char *name = tb_settings_get()->kernel;
    if (name) {
        const tb_kernel_info *k = tb_kernel_by_name(name);
        if (k && (!k->supports || k->supports(g)))
            return k;
        tb_warn_once(TB_ONCE_STAGE + TB_STAGE_COUNT, "%s='%s' %s; using the default kernel",
                     TB_ENV_KERNEL, name, k ? "does not support this call" : "is not a kernel");
    }
    return tb_kernel_pick(g);
}

/* The work of one call, under the lock. Returns the failed stage and the
 * CUDA error through *err. */
static tb_stage tb_gpu_run(const tb_problem *p, tb_gpu_times *t, cudaError_t *err)
{
    const int reads_ab = p->k > 0 && p->alpha != 0.0f;
    const int reads_c = p->beta != 0.0f;
    const size_t rows_a = p->transa ? p->k : p->m, cols_a = p->transa ? p->m : p->k;
    const size_t rows_b = p->transb ? p->n : p->k, cols_b = p->transb ? p->k : p->n;
    cudaError_t e = cudaSuccess;

    /* Pitched buffers: A and B only when the product reads them. */
    if (reads_ab) {
        e = tb_buffer_fit(&tb_buf[0], rows_a, cols_a);
        if (e == cudaSuccess)
            e = tb_buffer_fit(&tb_buf[1], rows_b, cols_b);
    }
    if (e == cudaSuccess)
        e = tb_buffer_fit(&tb_buf[2], (size_t)p->m, (size_t)p->n);
    if ((*err = tb_inject(TB_STAGE_ALLOC, e)) != cudaSuccess)
        return TB_STAGE_ALLOC;

    /* In: exactly the windows the product reads, from the caller's strides. */
    cudaEventRecord(tb_ev[0], tb_stream);
    if (reads_ab) {
        e = tb_put(&tb_buf[0], p->A, p->lda, rows_a, cols_a);
        if (e == cudaSuccess)
            e = tb_put(&tb_buf[1], p->B, p->ldb, rows_b, cols_b);
        t->bytes_h2d += (rows_a * cols_a + rows_b * cols_b) * sizeof(float);
    }
    if (e == cudaSuccess && reads_c) {
        e = tb_put(&tb_buf[2], p->C, p->ldc, (size_t)p->m, (size_t)p->n);
        t->bytes_h2d += (size_t)p->m * p->n * sizeof(float);
    }
    cudaEventRecord(tb_ev[1], tb_stream);
    if ((*err = tb_inject(TB_STAGE_H2D, e)) != cudaSuccess)
        return TB_STAGE_H2D;

    tb_gemm_args g = {p->m, p->n, p->k, p->transa, p->transb, p->alpha, p->beta,
                      tb_buf[0].ptr, tb_buf[0].pitch / sizeof(float),
                      tb_buf[1].ptr, tb_buf[1].pitch / sizeof(float),
                      tb_buf[2].ptr, tb_buf[2].pitch / sizeof(float)};
    if (!reads_ab) {
        g.A = g.B = NULL;
        g.lda = g.ldb = 1;
    }
    const tb_kernel_info *kern = tb_choose_kernel(&g);
    t->kernel = kern->name;
    if ((*err = tb_inject(TB_STAGE_LAUNCH, kern->launch(&g, tb_stream))) != cudaSuccess)
        return TB_STAGE_LAUNCH;
    cudaEventRecord(tb_ev[2], tb_stream);
    /* The product must have succeeded before a single element of the
     * caller's C is written. */
    if ((*err = tb_inject(TB_STAGE_KERNEL, cudaStreamSynchronize(tb_stream))) != cudaSuccess)
        return TB_STAGE_KERNEL;

    e = tb_inject(TB_STAGE_D2H, cudaSuccess);
    if (e == cudaSuccess)
        e = cudaMemcpy2DAsync(p->C, p->ldc * sizeof(float), tb_buf[2].ptr, tb_buf[2].pitch,
                              (size_t)p->n * sizeof(float), (size_t)p->m,
                              cudaMemcpyDeviceToHost, tb_stream);
    cudaEventRecord(tb_ev[3], tb_stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(tb_stream);
    if ((*err = e) != cudaSuccess)
        return TB_STAGE_D2H;
    t->bytes_d2h = (size_t)p->m * p->n * sizeof(float);
    t->h2d_s = tb_elapsed(0, 1) * 1e-3;
    t->kernel_s = tb_elapsed(1, 2) * 1e-3;
    t->d2h_s = tb_elapsed(2, 3) * 1e-3;
    return TB_STAGE_NONE;
}

tb_stage tb_gpu_sgemm(const tb_problem *p, tb_gpu_times *t)
{
    if (tb_gpu_in_child)
        return TB_STAGE_INIT;
    pthread_mutex_lock(&tb_gpu_lock);
    if (tb_gpu_state != TB_GPU_READY) {
        pthread_mutex_unlock(&tb_gpu_lock);
        return TB_STAGE_INIT;
    }
    cudaError_t err = cudaSuccess;
    tb_fault_hit = 0;
    tb_stage failed = tb_gpu_run(p, t, &err);
    if (failed == TB_STAGE_NONE) {
        tb_gpu_failures = 0;
    } else {
        cudaGetLastError();   /* clear a non-sticky error */
        if (failed == TB_STAGE_ALLOC)
            tb_buffers_free();   /* give the memory back; a smaller call may fit */
        tb_warn_once(TB_ONCE_STAGE + failed, "GPU %s failed (%s); the call ran on the CPU BLAS",
                     tb_stage_name(failed), tb_fault_hit ? "injected by " TB_ENV_FAULT
                                                         : cudaGetErrorString(err));
        if (!tb_fault_hit && !tb_recoverable(err)) {
            tb_gpu_disable("gpu-disabled");
            tb_warn_once(TB_ONCE_DISABLED, "the CUDA context is unusable after that error; "
                         "the GPU path is off for this process");
        } else if (++tb_gpu_failures >= TB_MAX_CONSECUTIVE_FAILURES) {
            tb_gpu_disable("gpu-disabled");
            tb_warn_once(TB_ONCE_DISABLED, "%d GPU failures in a row; the GPU path is off "
                         "for this process", tb_gpu_failures);
        }
    }
    pthread_mutex_unlock(&tb_gpu_lock);
    return failed;
}

int tb_gpu_describe(char *buf, size_t len)
{
    const char *why;
    if (!tb_gpu_available(&why)) {
        snprintf(buf, len, "none (%s)", why);
        return 0;
    }
    struct cudaDeviceProp prop;
    int drv = 0, rt = 0, dev = tb_settings_get()->device;
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        snprintf(buf, len, "none (cudaGetDeviceProperties failed)");
        return 0;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(buf, len, "%s, %.1f GiB, compute capability %d.%d, %d SMs, driver CUDA %d.%d, runtime %d.%d",
             prop.name, prop.totalGlobalMem / 1073741824.0, prop.major, prop.minor,
             prop.multiProcessorCount, drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    return 1;
}

/* For the stats report: describes the device only when CUDA already runs;
 * never starts CUDA and never initialises anything (added for stats.c). */
int tb_gpu_describe_if_started(char *buf, size_t len)
{
    if (tb_gpu_in_child) {
        snprintf(buf, len, "none (after-fork: a forked child never uses the parent's CUDA)");
        return 0;
    }
    tb_gpu_state_t st = __atomic_load_n(&tb_gpu_state, __ATOMIC_ACQUIRE);
    if (st == TB_GPU_UNTRIED) {
        snprintf(buf, len, "not started (no call was eligible for the GPU)");
        return 0;
    }
    if (st == TB_GPU_DEAD) {
        snprintf(buf, len, "none (%s)", tb_gpu_why);
        return 0;
    }
    return tb_gpu_describe(buf, len);
}
