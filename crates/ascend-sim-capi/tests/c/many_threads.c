/* Many host threads at once: malloc/free pairs of their own buffers on 16 threads, then a
 * mixed load on 32 threads (copies, events, value ping-pongs between two fresh streams, stream
 * churn). No free of a live buffer fails, every byte comes back as written, and afterwards the
 * device window is whole (the first address is handed out again). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

static int errors = 0;
static pthread_mutex_t errors_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(int thread, int round, const char *what, aclError code) {
    pthread_mutex_lock(&errors_lock);
    if (errors++ < 10) fprintf(stderr, "thread %d round %d: %s returned %d\n", thread, round, what, code);
    pthread_mutex_unlock(&errors_lock);
}

#define TRY(what, expr)                                   \
    do {                                                  \
        aclError c_ = (expr);                             \
        if (c_ != ACL_SUCCESS) {                          \
            fail(id, r, what, c_);                        \
            return;                                       \
        }                                                 \
    } while (0)

static void malloc_free_rounds(int id) {
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        fail(id, -1, "aclrtSetDevice", -1);
        return;
    }
    for (int r = 0; r < 20000; r++) {
        void *p = NULL;
        size_t size = (r % 2) ? (size_t)(64 + (id * 37 + r) % 4096) : 512;
        TRY("aclrtMalloc", aclrtMalloc(&p, size, ACL_MEM_MALLOC_NORMAL_ONLY));
        TRY("aclrtFree of a live buffer", aclrtFree(p));
    }
}

static void mixed_round(int id, int r) {
    size_t n = 4096 + 8 * (size_t)id;
    unsigned char pattern[8192], back[8192];
    for (size_t k = 0; k < n; k++) pattern[k] = (unsigned char)(k * 31 + id * 7 + r);
    void *a = NULL, *b = NULL, *flag = NULL;
    TRY("aclrtMalloc a", aclrtMalloc(&a, n, ACL_MEM_MALLOC_NORMAL_ONLY));
    TRY("aclrtMalloc b", aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
    TRY("aclrtMalloc flag", aclrtMalloc(&flag, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
    TRY("aclrtMemset", aclrtMemset(flag, 8, 0, 8));
    TRY("aclrtMemcpy h2d", aclrtMemcpy(a, n, pattern, n, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtStream s1 = NULL, s2 = NULL;
    aclrtEvent ev = NULL;
    TRY("aclrtCreateStream", aclrtCreateStream(&s1));
    TRY("aclrtCreateStream", aclrtCreateStream(&s2));
    TRY("aclrtCreateEvent", aclrtCreateEvent(&ev));
    uint64_t token = ((uint64_t)r + 1) << 8 | (uint64_t)id;
    TRY("aclrtValueWait", aclrtValueWait(flag, token, ACL_STREAM_WAIT_VALUE_EQ, s1));
    TRY("aclrtMemcpyAsync d2d", aclrtMemcpyAsync(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
    TRY("aclrtRecordEvent", aclrtRecordEvent(ev, s1));
    TRY("aclrtValueWrite", aclrtValueWrite(flag, token, 0, s2));
    TRY("aclrtSynchronizeEvent", aclrtSynchronizeEvent(ev));
    TRY("aclrtMemcpy d2h", aclrtMemcpy(back, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
    if (memcmp(back, pattern, n) != 0) fail(id, r, "data came back changed", -1);
    TRY("aclrtDestroyEvent", aclrtDestroyEvent(ev));
    TRY("aclrtDestroyStream", aclrtDestroyStream(s1));
    TRY("aclrtDestroyStream", aclrtDestroyStream(s2));
    TRY("aclrtFree a", aclrtFree(a));
    TRY("aclrtFree b", aclrtFree(b));
    TRY("aclrtFree flag", aclrtFree(flag));
}

static void mixed_rounds(int id) {
    int r = -1;
    TRY("aclrtSetDevice", aclrtSetDevice(0));
    for (r = 0; r < 40; r++) mixed_round(id, r);
}

struct job {
    int id;
    void (*body)(int);
};

static void *run_job(void *arg) {
    struct job *j = (struct job *)arg;
    j->body(j->id);
    return NULL;
}

static void on_threads(int n, void (*body)(int)) {
    pthread_t t[32];
    struct job jobs[32];
    for (int i = 0; i < n; i++) {
        jobs[i].id = i;
        jobs[i].body = body;
        pthread_create(&t[i], NULL, run_job, &jobs[i]);
    }
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
}

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    void *first = NULL, *again = NULL;
    CHECK(aclrtMalloc(&first, 512, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtFree(first));
    on_threads(16, malloc_free_rounds);
    on_threads(32, mixed_rounds);
    if (errors) {
        fprintf(stderr, "%d call(s) failed under load\n", errors);
        failures++;
    }
    CHECK(aclrtMalloc(&again, 512, ACL_MEM_MALLOC_NORMAL_ONLY));
    if (again != first) {
        fprintf(stderr, "the window is not whole: first %p, now %p\n", first, again);
        failures++;
    }
    CHECK(aclrtFree(again));
    CHECK(aclrtResetDeviceForce(0));
    CHECK(aclFinalize());
    FINISH();
}
