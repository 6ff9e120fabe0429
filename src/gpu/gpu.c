/* src/gpu/gpu.c - the CUDA lifecycle of the GPU path: CUDA started when a call
 * first may use it (never in a constructor; in auto mode on start.c's
 * thread), kept off after fork(), turned off after unrecoverable failures;
 * the device slots (TILEDBLAS_DEVICES) with the lanes that calls take, and
 * their device buffers, kept and reused within a memory cap on each GPU.
 * It moves no data and launches nothing: staging.c and pipeline.c do. */
#define _GNU_SOURCE
#include "tb_gpu.h"
#include "tb_no_gpu.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef enum { TB_GPU_UNTRIED = 0, TB_GPU_STARTING, TB_GPU_READY, TB_GPU_DEAD } tb_gpu_state_t;

enum { TB_MAX_LANES = 8 };

/* One device slot (an entry of TILEDBLAS_DEVICES): its lanes, made when
 * calls first need them, and its health. A slot is off after an error that
 * leaves its CUDA context unusable (every slot of that GPU then), or after
 * several failures in a row; the GPU path is off once every slot is. */
typedef struct tb_dev {
    int ordinal;                   /* CUDA device                          */
    int sharing;                   /* slots on this GPU (they share its memory) */
    int dead;
    int failures;                  /* consecutive failed calls              */
    size_t free_at_start;          /* free device memory at its first lane  */
    double speed;                  /* flop/s its parts ran at; 0: unmeasured */
    int nlanes;                    /* lanes it may make                     */
    tb_lane lane[TB_MAX_LANES];
} tb_dev;

/* Guarded by tb_gpu_lock: the state, the slots' health and speed, the
 * lanes' ready/busy flags. A lane's own fields belong to the call that
 * holds it. */
static pthread_mutex_t tb_gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tb_lane_free = PTHREAD_COND_INITIALIZER;
static pthread_cond_t tb_gpu_started = PTHREAD_COND_INITIALIZER;   /* STARTING ended */
static tb_gpu_state_t tb_gpu_state;
static tb_reason tb_gpu_why = TB_WHY_NO_GPU;
static char tb_gpu_detail_text[160] = "not started";
static tb_dev tb_devs[TB_MAX_DEVICES];
static int tb_ndevs;
static volatile int tb_gpu_in_child;              /* set after fork() in the child */

enum { TB_MAX_CONSECUTIVE_FAILURES = 3 };

void tb_gpu_forked_child(void)
{
    /* The parent's CUDA context is not usable here; the lock may even be
     * held by a thread that does not exist in the child. Never touch either. */
    tb_gpu_in_child = 1;
}

/* Under tb_gpu_lock; the reason first, then the state, which lock-free
 * readers (tb_gpu_describe_if_started, tb_gpu_memory) load with acquire. */
static void tb_gpu_disable(tb_reason why)
{
    __atomic_store_n(&tb_gpu_why, why, __ATOMIC_RELAXED);
    __atomic_store_n(&tb_gpu_state, TB_GPU_DEAD, __ATOMIC_RELEASE);
}

/* Streams and events of one lane of slot D, made when a call first needs
 * it; the slot's first lane starts CUDA on its GPU. */
static cudaError_t tb_lane_create(tb_dev *D, tb_lane *L)
{
    cudaError_t e;
    if ((e = cudaSetDevice(D->ordinal)) != cudaSuccess)
        return e;
    if (!D->free_at_start) {
        size_t total_b = 0;
        if ((e = cudaMemGetInfo(&D->free_at_start, &total_b)) != cudaSuccess)
            return e;
    }
    cudaStream_t *streams[] = {&L->h2d, &L->comp, &L->d2h};
    for (int i = 0; i < 3; i++)
        if ((e = cudaStreamCreateWithFlags(streams[i], cudaStreamNonBlocking)) != cudaSuccess)
            return e;
    for (int i = 0; i < TB_PLAN_SLOTS; i++) {
        cudaEvent_t *evs[] = {&L->slot[i].in_done, &L->slot[i].k_done, &L->slot[i].out_done};
        for (int j = 0; j < 3; j++)
            if ((e = cudaEventCreateWithFlags(evs[j], cudaEventDisableTiming)) != cudaSuccess)
                return e;
    }
    for (int i = 0; i < TB_STAGES; i++)
        if ((e = cudaEventCreateWithFlags(&L->stage_ev[i], cudaEventDisableTiming)) != cudaSuccess)
            return e;
    for (int i = 0; i < TB_MARKS; i++)
        if ((e = cudaEventCreate(&L->mark[i])) != cudaSuccess)
            return e;
    /* The cap: TILEDBLAS_DEVICE_MEMORY, else 80% of what was free when CUDA
     * started, on each GPU, shared evenly by its slots' lanes. */
    double cap = tb_settings_get()->device_memory;
    L->budget = (cap > 0.0 ? (size_t)cap : D->free_at_start / 10 * 8) / (size_t)D->nlanes /
                (size_t)D->sharing;
    L->dev = (int)(D - tb_devs);
    L->ready = 1;
    return cudaSuccess;
}

/* The slots of TILEDBLAS_DEVICES on the count GPUs CUDA sees; 0 when the
 * list names one past the last. An injected init fault with @N turns that
 * slot off alone. */
static int tb_devs_resolve(int count)
{
    const tb_settings *s = tb_settings_get();
    tb_ndevs = s->ndevices ? s->ndevices : count < TB_MAX_DEVICES ? count : TB_MAX_DEVICES;
    for (int i = 0; i < tb_ndevs; i++) {
        tb_dev *D = &tb_devs[i];
        D->ordinal = s->ndevices ? s->devices[i] : i;
        if (D->ordinal >= count)
            return 0;
        D->nlanes = s->lanes;
        D->dead = s->fault == TB_STAGE_INIT && s->fault_slot == i;
        if (D->dead)
            tb_warn_once(TB_ONCE_STAGE + TB_STAGE_INIT, "GPU init failed on device slot %d (injected "
                         "by " TB_ENV_FAULT "); the other devices go on", i);
    }
    for (int i = 0; i < tb_ndevs; i++)
        for (int j = 0; j < tb_ndevs; j++)
            tb_devs[i].sharing += tb_devs[j].ordinal == tb_devs[i].ordinal;
    return 1;
}

/* CUDA on the first slot that is on; the others start when start.c's
 * thread warms them, or at their first call. */
static cudaError_t tb_gpu_create(void)
{
    for (int i = 0; i < tb_ndevs; i++)
        if (!tb_devs[i].dead)
            return tb_lane_create(&tb_devs[i], &tb_devs[i].lane[0]);
    return cudaErrorDevicesUnavailable;
}

/* Why there is no usable device, in words (tb_no_gpu.h, shared with the
 * command and the benchmarks), or that the device settings name none. */
static const char *tb_no_device_text(cudaError_t e, int count)
{
    if (e == cudaSuccess && count > 0)
        return "TILEDBLAS_DEVICE or TILEDBLAS_DEVICES names a device past the last";
    return tb_no_gpu_text(e, count);
}

/* Starts CUDA. Called under the lock, once; state is UNTRIED or STARTING. */
static void tb_gpu_init(void)
{
    const tb_settings *s = tb_settings_get();
    int count = 0;
    cudaError_t e = cudaSuccess;
    const char *msg = NULL;
    if (s->fault == TB_STAGE_INIT && s->fault_slot < 0)
        msg = "injected by TILEDBLAS_FAULT=init";
    else if (!tb_nvidia_driver_present())   /* before CUDA is asked: see tb_no_gpu.h */
        msg = TB_NO_DRIVER_TEXT;
    else if ((e = cudaGetDeviceCount(&count)) != cudaSuccess || count == 0 || !tb_devs_resolve(count))
        msg = tb_no_device_text(e, count);
    if (msg) {
        cudaGetLastError();
        snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "%s", msg);
        tb_gpu_disable(TB_WHY_NO_GPU);
        return;
    }
    if ((e = tb_gpu_create()) != cudaSuccess) {
        snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "CUDA initialisation failed: %s",
                 cudaGetErrorString(e));
        tb_gpu_disable(TB_WHY_GPU_INIT_FAILED);
        return;
    }
    snprintf(tb_gpu_detail_text, sizeof tb_gpu_detail_text, "ready");
    __atomic_store_n(&tb_gpu_state, TB_GPU_READY, __ATOMIC_RELEASE);
}

/* Only a parent that started (or is starting) CUDA must keep its children
 * off it. Under the lock. */
static void tb_gpu_mark_started(void)
{
    static int registered;
    if (!registered) {
        registered = 1;
        pthread_atfork(NULL, NULL, tb_gpu_forked_child);
    }
}

int tb_gpu_begin(int go)
{
    if (tb_gpu_in_child)
        return 0;
    pthread_mutex_lock(&tb_gpu_lock);
    int mine = tb_gpu_state == TB_GPU_UNTRIED;
    if (mine && !tb_nvidia_driver_present()) {
        tb_gpu_init();      /* fails at once, saying why: nothing to start in the background */
        mine = 0;
    } else if (mine && !go) {
        mine = 0;           /* not yet: it stays untried */
    } else if (mine) {
        tb_gpu_mark_started();
        __atomic_store_n(&tb_gpu_state, TB_GPU_STARTING, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tb_gpu_lock);
    return mine;
}

void tb_gpu_start(void)
{
    pthread_mutex_lock(&tb_gpu_lock);
    if (tb_gpu_state == TB_GPU_STARTING)
        tb_gpu_init();
    pthread_cond_broadcast(&tb_gpu_started);
    pthread_mutex_unlock(&tb_gpu_lock);
}

int tb_gpu_state_now(tb_reason *why)
{
    if (tb_gpu_in_child) {
        *why = TB_WHY_AFTER_FORK;
        return -1;
    }
    const tb_gpu_state_t st = __atomic_load_n(&tb_gpu_state, __ATOMIC_ACQUIRE);
    *why = __atomic_load_n(&tb_gpu_why, __ATOMIC_RELAXED);
    return st == TB_GPU_READY ? 1 : st == TB_GPU_DEAD ? -1 : 0;
}

const char *tb_gpu_detail(void)
{
    return tb_gpu_in_child ? "the parent process had started CUDA before fork()" : tb_gpu_detail_text;
}

int tb_gpu_available(tb_reason *why)
{
    if (tb_gpu_in_child) {
        *why = TB_WHY_AFTER_FORK;
        return 0;
    }
    pthread_mutex_lock(&tb_gpu_lock);
    if (tb_gpu_state == TB_GPU_UNTRIED) {
        tb_gpu_mark_started();
        tb_gpu_init();
    }
    while (tb_gpu_state == TB_GPU_STARTING)     /* start.c's thread is at it */
        pthread_cond_wait(&tb_gpu_started, &tb_gpu_lock);
    int ok = tb_gpu_state == TB_GPU_READY;
    *why = tb_gpu_why;
    pthread_mutex_unlock(&tb_gpu_lock);
    return ok;
}

/* ---- Device memory ---- */

size_t tb_lane_held(const tb_lane *L)
{
    size_t b = L->bbuf.pitch * L->bbuf.height;
    for (int i = 0; i < TB_PLAN_SLOTS; i++)
        b += L->slot[i].a.pitch * L->slot[i].a.height + L->slot[i].c.pitch * L->slot[i].c.height;
    return b;
}

static void tb_pitched_free(tb_pitched *b)
{
    if (b->ptr)
        cudaFree(b->ptr);
    memset(b, 0, sizeof *b);
}

void tb_lane_free_buffers(tb_lane *L)
{
    tb_pitched_free(&L->bbuf);
    for (int i = 0; i < TB_PLAN_SLOTS; i++) {
        tb_pitched_free(&L->slot[i].a);
        tb_pitched_free(&L->slot[i].c);
    }
}

__thread unsigned tb_allocs_here;

cudaError_t tb_buffer_fit(tb_pitched *b, size_t rows, size_t cols, size_t esize)
{
    size_t width = cols * esize;
    if (rows == 0 || cols == 0 || (b->ptr && width <= b->width && rows <= b->height))
        return cudaSuccess;
    size_t w = width > b->width ? width : b->width;
    size_t h = rows > b->height ? rows : b->height;
    tb_pitched_free(b);
    void *p;
    cudaError_t e = cudaMallocPitch(&p, &b->pitch, w, h);
    tb_allocs_here++;
    if (e != cudaSuccess)
        return e;
    b->ptr = p;
    b->width = w;
    b->height = h;
    return cudaSuccess;
}

/* ---- Lanes ---- */

/* Errors after which the context is still usable: the next call may retry. */
static int tb_recoverable(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation || e == cudaErrorInvalidConfiguration ||
           e == cudaErrorInvalidValue || e == cudaErrorInvalidPitchValue ||
           e == cudaErrorNoKernelImageForDevice;
}

/* Slot D is off; the GPU path too once no slot is on. Under the lock. */
static void tb_dev_off(tb_dev *D, const char *why_text)
{
    int live = 0;
    D->dead = 1;
    for (int i = 0; i < tb_ndevs; i++)
        live += !tb_devs[i].dead;
    if (!live) {
        tb_gpu_disable(TB_WHY_GPU_DISABLED);
        tb_warn_once(TB_ONCE_DISABLED, "%s; the GPU path is off for this process", why_text);
    } else {
        tb_warn_once(TB_ONCE_DISABLED, "%s; device slot %d is off, the other devices go on",
                     why_text, (int)(D - tb_devs));
    }
}

/* A free lane of slot D, made if the slot may have more; NULL if none.
 * A slot whose first lane cannot be made (its GPU does not start) is off. */
static tb_lane *tb_dev_lane(tb_dev *D)
{
    for (int i = 0; i < D->nlanes; i++) {
        tb_lane *L = &D->lane[i];
        if (L->ready && !L->busy) {
            L->busy = 1;
            return L;
        }
        if (!L->ready) {
            if (tb_lane_create(D, L) != cudaSuccess) {
                cudaGetLastError();
                D->nlanes = i;   /* use the lanes we have */
                if (i == 0)
                    tb_dev_off(D, "CUDA did not start on a GPU of TILEDBLAS_DEVICES");
                return NULL;
            }
            L->busy = 1;
            return L;
        }
    }
    return NULL;
}

static int tb_dev_idle(const tb_dev *D)
{
    for (int i = 0; i < D->nlanes; i++)
        if (D->lane[i].busy)
            return 0;
    return 1;
}

/* Takes a lane for this call on slot `want` (-1: any, the first slot with
 * no call on it first, so that calls from several threads spread over the
 * devices and one thread's calls stay on one), waiting while all are busy.
 * Under tb_gpu_lock. NULL if none can be had. */
static tb_lane *tb_lane_take(int want)
{
    for (;;) {
        if (tb_gpu_state != TB_GPU_READY)
            return NULL;
        int live = 0;
        for (int pass = want >= 0; pass < 2; pass++)
            for (int i = 0; i < tb_ndevs; i++) {
                tb_dev *D = &tb_devs[i];
                if (D->dead || (want >= 0 && i != want) || (pass == 0 && !tb_dev_idle(D)))
                    continue;
                tb_lane *L = tb_dev_lane(D);
                if (L)
                    return L;
                live += !D->dead;
            }
        if (!live)
            return NULL;
        pthread_cond_wait(&tb_lane_free, &tb_gpu_lock);
    }
}

tb_lane *tb_lane_acquire(int slot)
{
    if (tb_gpu_in_child)
        return NULL;
    pthread_mutex_lock(&tb_gpu_lock);
    tb_lane *L = slot < tb_ndevs ? tb_lane_take(slot) : NULL;
    const int ordinal = L ? tb_devs[L->dev].ordinal : 0;
    pthread_mutex_unlock(&tb_gpu_lock);
    /* The current device is per host thread in CUDA: name it every time. */
    cudaError_t e = L ? cudaSetDevice(ordinal) : cudaSuccess;
    if (e != cudaSuccess) {
        cudaGetLastError();
        tb_lane_release(L, TB_STAGE_INIT, e, 0);
        return NULL;
    }
    return L;
}

void tb_lane_release(tb_lane *L, tb_stage failed, cudaError_t err, int injected)
{
    pthread_mutex_lock(&tb_gpu_lock);
    tb_dev *D = &tb_devs[L->dev];
    L->busy = 0;
    pthread_cond_broadcast(&tb_lane_free);
    if (failed == TB_STAGE_NONE) {
        D->failures = 0;
    } else {
        char where[32] = "";
        if (tb_ndevs > 1)
            snprintf(where, sizeof where, " on device slot %d", L->dev);
        tb_warn_once(TB_ONCE_STAGE + failed, "GPU %s failed%s (%s); %s was completed on the CPU BLAS",
                     tb_stage_name(failed), where, injected ? "injected by " TB_ENV_FAULT
                                                            : cudaGetErrorString(err),
                     tb_ndevs > 1 ? "its part of the call" : "the call");
        if (!injected && !tb_recoverable(err)) {
            /* The context is the GPU's: every slot on it goes. */
            for (int i = 0; i < tb_ndevs; i++)
                if (tb_devs[i].ordinal == D->ordinal && &tb_devs[i] != D)
                    tb_devs[i].dead = 1;
            tb_dev_off(D, "the CUDA context is unusable after that error");
        } else if (++D->failures >= TB_MAX_CONSECUTIVE_FAILURES) {
            char text[64];
            snprintf(text, sizeof text, "%d GPU failures in a row", D->failures);
            tb_dev_off(D, text);
        }
    }
    pthread_mutex_unlock(&tb_gpu_lock);
}

int tb_gpu_slots(int ids[TB_MAX_DEVICES], double speed[TB_MAX_DEVICES])
{
    int n = 0;
    if (tb_gpu_in_child || __atomic_load_n(&tb_gpu_state, __ATOMIC_ACQUIRE) != TB_GPU_READY)
        return 0;
    if (tb_ndevs == 1) {
        /* One slot, on while the GPU path is (set before READY, never
         * after): every call asks, so no lock. */
        ids[0] = 0;
        speed[0] = 0.0;
        return 1;
    }
    pthread_mutex_lock(&tb_gpu_lock);
    for (int i = 0; i < tb_ndevs; i++)
        if (!tb_devs[i].dead) {
            ids[n] = i;
            speed[n++] = tb_devs[i].speed;
        }
    pthread_mutex_unlock(&tb_gpu_lock);
    return n;
}

void tb_gpu_note_speed(int slot, double flops)
{
    pthread_mutex_lock(&tb_gpu_lock);
    if (slot >= 0 && slot < tb_ndevs && flops > 0.0) {
        double *v = &tb_devs[slot].speed;
        *v = *v > 0.0 ? 0.75 * *v + 0.25 * flops : flops;   /* a few parts' say */
    }
    pthread_mutex_unlock(&tb_gpu_lock);
}

int tb_gpu_memory(size_t *held, size_t *free_b)
{
    *held = *free_b = 0;
    if (tb_gpu_in_child || __atomic_load_n(&tb_gpu_state, __ATOMIC_ACQUIRE) != TB_GPU_READY)
        return -1;
    size_t total = 0;
    pthread_mutex_lock(&tb_gpu_lock);
    for (int d = 0; d < tb_ndevs; d++)
        for (int i = 0; i < tb_devs[d].nlanes; i++)
            if (tb_devs[d].lane[i].ready && !tb_devs[d].lane[i].busy)
                *held += tb_lane_held(&tb_devs[d].lane[i]);
    pthread_mutex_unlock(&tb_gpu_lock);
    return cudaMemGetInfo(free_b, &total) == cudaSuccess ? 0 : -1;
}

int tb_gpu_describe(char *buf, size_t len)
{
    tb_reason why;
    if (!tb_gpu_available(&why)) {
        snprintf(buf, len, "none (%s: %s)", tb_reason_name(why), tb_gpu_detail());
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
    int n = snprintf(buf, len, "%s, %.1f GiB, compute capability %d.%d, %d SMs, driver CUDA %d.%d, "
                     "runtime %d.%d", prop.name, prop.totalGlobalMem / 1073741824.0, prop.major,
                     prop.minor, prop.multiProcessorCount, drv / 1000, (drv % 1000) / 10, rt / 1000,
                     (rt % 1000) / 10);
    /* Several slots: which GPUs (the first one is the one described). */
    for (int i = 0; tb_ndevs > 1 && i < tb_ndevs && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%d%s", i ? "," : "; device slots on GPUs ",
                      tb_devs[i].ordinal, tb_devs[i].dead ? " (off)" : "");
    return 1;
}

/* For the stats report: describes the device only when CUDA already runs;
 * never starts CUDA and never initialises anything. */
int tb_gpu_describe_if_started(char *buf, size_t len)
{
    if (tb_gpu_in_child) {
        snprintf(buf, len, "none (after-fork: a forked child never uses the parent's CUDA)");
        return 0;
    }
    tb_gpu_state_t st = __atomic_load_n(&tb_gpu_state, __ATOMIC_ACQUIRE);
    if (st == TB_GPU_UNTRIED || st == TB_GPU_STARTING) {
        snprintf(buf, len, st == TB_GPU_UNTRIED ? "not started (no call was eligible for the GPU)"
                                                : "not started (starting)");
        return 0;
    }
    if (st == TB_GPU_DEAD) {
        snprintf(buf, len, "none (%s)", tb_reason_name(__atomic_load_n(&tb_gpu_why, __ATOMIC_RELAXED)));
        return 0;
    }
    return tb_gpu_describe(buf, len);
}
