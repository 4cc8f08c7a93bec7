/* The device runs with the host: each scenario is a program a device runs to its end and a
 * simulator whose device moves only while a host thread blocks never finishes, or finishes
 * with the wrong data.
 *
 * Argument: the scenario ("poll", "sync-copy", "force-destroy", "host-func", "held-stream",
 * "spin-timeout", "host-func-poll", "paced"); with none, all but "paced" run. Each prints what it measured for the test to
 * check, and the program's status says whether every check held. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "acl/acl_sim.h"
#include "check.h"

#define MIB (1024u * 1024u)
#define MAX_QUERIES 1000000L

static void setup(aclrtStream *s) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(s));
}

static void teardown(aclrtStream s) {
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
}

/* An event query loop and a stream query loop end after a bounded number of queries. */
static void poll(void) {
    aclrtStream s = NULL;
    setup(&s);
    void *buf = NULL;
    aclrtEvent ev = NULL;
    CHECK(aclrtMalloc(&buf, MIB, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtCreateEvent(&ev));
    CHECK(aclrtMemsetAsync(buf, MIB, 7, MIB, s));
    CHECK(aclrtRecordEvent(ev, s));
    long queries = 0;
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    while (queries < MAX_QUERIES) {
        queries++;
        CHECK(aclrtQueryEventStatus(ev, &status));
        if (status == ACL_EVENT_RECORDED_STATUS_COMPLETE) break;
    }
    printf("event queries: %ld (%s)\n", queries,
           status == ACL_EVENT_RECORDED_STATUS_COMPLETE ? "complete" : "not ready");
    if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE) failures++;

    CHECK(aclrtMemsetAsync(buf, MIB, 9, MIB, s));
    queries = 0;
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    while (queries < MAX_QUERIES) {
        queries++;
        CHECK(aclrtStreamQuery(s, &st));
        if (st == ACL_STREAM_STATUS_COMPLETE) break;
    }
    printf("stream queries: %ld (%s)\n", queries,
           st == ACL_STREAM_STATUS_COMPLETE ? "complete" : "not ready");
    if (st != ACL_STREAM_STATUS_COMPLETE) failures++;
    unsigned char b = 0;
    CHECK(aclrtMemcpy(&b, 1, (char *)buf + MIB - 1, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    if (b != 9) {
        fprintf(stderr, "poll: the fill polled for left %u, not 9\n", b);
        failures++;
    }
    CHECK(aclrtDestroyEvent(ev));
    CHECK(aclrtFree(buf));
    teardown(s);
}

/* An asynchronous D2H queued before a 1 MiB synchronous H2D copy lands while the copy runs. */
static void sync_copy(void) {
    aclrtStream s = NULL;
    setup(&s);
    void *dev = NULL, *dst = NULL, *pinned = NULL;
    CHECK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&dst, MIB, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMallocHost(&pinned, 4096));
    memset(pinned, 0, 4096);
    char *src = malloc(MIB);
    memset(src, 1, MIB);
    CHECK(aclrtMemsetAsync(dev, 4096, 0x5a, 4096, s));
    CHECK(aclrtMemcpyAsync(pinned, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(aclrtMemcpy(dst, MIB, src, MIB, ACL_MEMCPY_HOST_TO_DEVICE));
    unsigned char first = ((unsigned char *)pinned)[0], last = ((unsigned char *)pinned)[4095];
    printf("pinned after the synchronous copy: %#x %#x\n", first, last);
    if (first != 0x5a || last != 0x5a) failures++;
    CHECK(aclrtSynchronizeStream(s));
    free(src);
    CHECK(aclrtFreeHost(pinned));
    CHECK(aclrtFree(dst));
    CHECK(aclrtFree(dev));
    teardown(s);
}

static volatile int host_func_ran = 0;

static void set_flag(void *arg) {
    (void)arg;
    __atomic_store_n(&host_func_ran, 1, __ATOMIC_RELEASE);
}

typedef struct {
    uint32_t *out;
    uint32_t value;
} StoreArgs;

static void store_kernel(aclsimKernelCtx *ctx, void *args) {
    StoreArgs *a = (StoreArgs *)args;
    uint32_t i = aclsimGetBlockIdx(ctx);
    aclsimStore32(ctx, a->out + i * 16, a->value + i);
    aclsimDcci(ctx, a->out + i * 16, ACLSIM_SINGLE_CACHE_LINE, ACLSIM_CACHELINE_OUT);
}

/* A kernel launched just before aclrtDestroyStreamForce has run when the call returns, as on
 * a device (the vendor's memory samples read their data this way); so have the tasks queued
 * before aclrtResetDeviceForce. */
static void force_destroy(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *out = NULL;
    CHECK(aclrtMalloc(&out, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(out, 4096, 0, 4096));
    StoreArgs a = {(uint32_t *)out, 40};
    CHECK(aclsimLaunchKernel(store_kernel, 4, &a, sizeof a, s));
    CHECK(aclrtDestroyStreamForce(s));
    uint32_t got[64] = {0};
    CHECK(aclrtMemcpy(got, sizeof got, out, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("after the force destroy: %u %u %u %u\n", got[0], got[16], got[32], got[48]);
    for (int i = 0; i < 4; i++) {
        if (got[i * 16] != 40u + (uint32_t)i) failures++;
    }
    aclrtStream t = NULL;
    CHECK(aclrtCreateStream(&t));
    CHECK(aclrtMemsetAsync(out, 4096, 3, 4096, t));
    CHECK(aclrtDestroyStreamForce(t));
    unsigned char b = 0;
    CHECK(aclrtMemcpy(&b, 1, (char *)out + 4095, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("a fill before the force destroy: %u\n", b);
    if (b != 3) failures++;
    /* A host function at the head, and a fill behind it: the runtime's thread runs the
     * function, then the fill runs, before the destroy returns. */
    aclrtStream h = NULL;
    CHECK(aclrtCreateStream(&h));
    CHECK(aclrtLaunchHostFunc(h, set_flag, NULL));
    CHECK(aclrtMemsetAsync(out, 4096, 5, 4096, h));
    CHECK(aclrtDestroyStreamForce(h));
    CHECK(aclrtMemcpy(&b, 1, (char *)out + 4095, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("a host function and a fill before the force destroy: %s, %u\n",
           __atomic_load_n(&host_func_ran, __ATOMIC_ACQUIRE) ? "ran" : "not run", b);
    if (!host_func_ran || b != 5) failures++;
    CHECK(aclrtFree(out));
    CHECK(aclrtResetDeviceForce(0));
    CHECK(aclFinalize());
}

/* A host function runs while the host only makes cheap calls (queries of another stream). */
static void host_func(void) {
    aclrtStream s = NULL, other = NULL;
    setup(&s);
    CHECK(aclrtCreateStream(&other));
    void *buf = NULL;
    CHECK(aclrtMalloc(&buf, MIB, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemsetAsync(buf, MIB, 1, MIB, s));
    CHECK(aclrtLaunchHostFunc(s, set_flag, NULL));
    long calls = 0;
    aclrtStreamStatus st;
    time_t start = time(NULL);
    while (!__atomic_load_n(&host_func_ran, __ATOMIC_ACQUIRE) && time(NULL) - start < 20) {
        calls++;
        CHECK(aclrtStreamQuery(other, &st));
    }
    printf("host function ran: %s after %ld queries\n",
           __atomic_load_n(&host_func_ran, __ATOMIC_ACQUIRE) ? "yes" : "no", calls);
    if (!host_func_ran) failures++;
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtDestroyStream(other));
    CHECK(aclrtFree(buf));
    teardown(s);
}

/* A host function, then queries of its stream until it is complete: the number of queries is
 * the same on every run (printed for the test to compare). */
static void host_func_poll(void) {
    aclrtStream s = NULL;
    setup(&s);
    CHECK(aclrtLaunchHostFunc(s, set_flag, NULL));
    long queries = 0;
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    while (st != ACL_STREAM_STATUS_COMPLETE && queries < MAX_QUERIES) {
        queries++;
        CHECK(aclrtStreamQuery(s, &st));
    }
    printf("queries until the host function's stream completed: %ld\n", queries);
    if (st != ACL_STREAM_STATUS_COMPLETE) failures++;
    teardown(s);
}

static void never_run(void *arg) { (void)arg; }

/* A host function pending on stream A (subscribed to a thread that never processes reports)
 * holds stream A only: a fill on stream B completes. */
static void held_stream(void) {
    aclrtStream a = NULL, b = NULL;
    setup(&a);
    CHECK(aclrtCreateStream(&b));
    CHECK(aclrtSubscribeReport(12345, a));
    CHECK(aclrtLaunchCallback(never_run, NULL, ACL_CALLBACK_BLOCK, a));
    void *buf = NULL;
    CHECK(aclrtMalloc(&buf, MIB, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemsetAsync(buf, MIB, 4, MIB, b));
    aclError code = aclrtSynchronizeStreamWithTimeout(b, 2000);
    printf("stream b beside a pending host call: %d\n", code);
    if (code != ACL_SUCCESS) failures++;
    aclrtStreamStatus st;
    CHECK(aclrtStreamQuery(a, &st));
    printf("stream a: %s\n", st == ACL_STREAM_STATUS_COMPLETE ? "complete" : "held");
    if (st == ACL_STREAM_STATUS_COMPLETE) failures++;
    CHECK(aclrtDestroyStreamForce(a));
    CHECK(aclrtDestroyStream(b));
    CHECK(aclrtFree(buf));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
}

typedef struct {
    uint64_t *flag;
} SpinArgs;

static void stale_poller(aclsimKernelCtx *ctx, void *args) {
    SpinArgs *a = (SpinArgs *)args;
    while (aclsimLoad64(ctx, a->flag) != 1) aclsimSpin(ctx, 100);
}

/* A 50 ms timed wait behind a kernel polling a stale cached line (no dcci) ends with 507046
 * within a second of wall time, and the error says what blocks. */
static void spin_timeout(void) {
    aclrtStream s = NULL, w = NULL;
    setup(&s);
    CHECK(aclrtCreateStream(&w));
    void *flag = NULL;
    CHECK(aclrtMalloc(&flag, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(flag, 64, 0, 64));
    SpinArgs a = {(uint64_t *)flag};
    CHECK(aclsimLaunchKernel(stale_poller, 1, &a, sizeof a, s));
    CHECK(aclrtValueWrite(flag, 1, 0, w));
    CHECK(aclrtSynchronizeStream(w));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    aclError code = aclrtSynchronizeStreamWithTimeout(s, 50);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    const char *msg = aclGetRecentErrMsg();
    printf("spinning timed wait: %d after %.3f s wall\nrecent: %s\n", code, wall,
           msg ? msg : "(null)");
    if (code != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) failures++;
    if (wall > 1.0) failures++;
    CHECK(aclrtDestroyStreamForce(s));
    CHECK(aclrtDestroyStream(w));
    CHECK(aclrtFree(flag));
    CHECK(aclrtResetDeviceForce(0));
    CHECK(aclFinalize());
}

/* Run with ASCEND_SIM_PACING=wall: a host thread that spins on pinned memory without calling
 * the API sees an asynchronous D2H into it land. */
static void paced(void) {
    aclrtStream s = NULL;
    setup(&s);
    void *dev = NULL, *pinned = NULL;
    CHECK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMallocHost(&pinned, 4096));
    memset(pinned, 0, 4096);
    CHECK(aclrtMemsetAsync(dev, 4096, 0x77, 4096, s));
    CHECK(aclrtMemcpyAsync(pinned, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
    volatile unsigned char *flag = (volatile unsigned char *)pinned + 4095;
    time_t start = time(NULL);
    while (*flag != 0x77 && time(NULL) - start < 10) {
    }
    printf("pinned byte seen by a spinning host: %#x\n", *flag);
    if (*flag != 0x77) failures++;
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtFreeHost(pinned));
    CHECK(aclrtFree(dev));
    teardown(s);
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    struct {
        const char *name;
        void (*run)(void);
    } scenarios[] = {{"poll", poll},           {"sync-copy", sync_copy},
                     {"force-destroy", force_destroy}, {"host-func", host_func},
                     {"held-stream", held_stream},     {"spin-timeout", spin_timeout},
                     {"host-func-poll", host_func_poll}, {"paced", paced}};
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        /* "paced" needs ASCEND_SIM_PACING=wall: run only when named. */
        if (only ? strcmp(only, scenarios[i].name) != 0 : strcmp(scenarios[i].name, "paced") == 0)
            continue;
        int before = failures;
        scenarios[i].run();
        printf("%s: %s\n", scenarios[i].name, failures == before ? "ok" : "FAILED");
    }
    FINISH();
}
