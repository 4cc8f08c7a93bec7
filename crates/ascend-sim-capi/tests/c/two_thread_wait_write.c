#define _DEFAULT_SOURCE
/* The two-thread wait/write program, in the shape of the vendor's multistream sample: a waiter
 * thread blocks stream A on a value wait and synchronizes; later a writer thread writes the
 * value on stream B. The waiter must still be blocked when the writer starts. */
#include <pthread.h>
#include <unistd.h>
#include "acl/acl.h"
#include "check.h"

static void *buf;
static aclrtStream a, b;
static volatile int flag_value = 0;
static int seen = -1;

static void *waiter(void *arg) {
    (void)arg;
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtValueWait(buf, 100, ACL_STREAM_WAIT_VALUE_EQ, a));
    printf("stream A: waiting\n");
    CHECK(aclrtSynchronizeStream(a));
    seen = flag_value;
    printf("stream A: released, flag %d\n", seen);
    return NULL;
}

static void *writer(void *arg) {
    (void)arg;
    flag_value = 123;
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtValueWrite(buf, 100, 0, b));
    CHECK(aclrtSynchronizeStream(b));
    printf("stream B: write complete\n");
    return NULL;
}

int main(void) {
    aclInit(NULL);
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtMalloc(&buf, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(buf, 8, 0, 8));
    CHECK(aclrtCreateStream(&a));
    CHECK(aclrtCreateStream(&b));
    pthread_t tw, tr;
    pthread_create(&tw, NULL, waiter, NULL);
    usleep(300000);
    pthread_create(&tr, NULL, writer, NULL);
    pthread_join(tr, NULL);
    pthread_join(tw, NULL);
    if (seen != 123) {
        fprintf(stderr, "waiter saw flag %d, expected 123\n", seen);
        failures++;
    }
    /* The word now holds 100; read it back through a pinned host buffer. */
    uint64_t *host = NULL;
    CHECK(aclrtMallocHost((void **)&host, 8));
    CHECK(aclrtMemcpy(host, 8, buf, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    if (host[0] != 100) {
        fprintf(stderr, "device word is %llu, expected 100\n", (unsigned long long)host[0]);
        failures++;
    }
    CHECK(aclrtFreeHost(host));
    CHECK(aclrtDestroyStreamForce(a));
    CHECK(aclrtDestroyStreamForce(b));
    CHECK(aclrtFree(buf));
    CHECK(aclrtResetDeviceForce(0));
    CHECK(aclFinalize());
    FINISH();
}
