/* Stale device pointers (freed, past the end, never allocated inside the device window) and
 * caller sizes no memory has: every call returns CANN's code; nothing is dereferenced,
 * nothing is allocated from the caller's count, the process never crashes. Also: overlapping
 * host-to-host copies move like memmove, copying 4 GiB of memset memory stays cheap, and a
 * label-list count past the limit is refused without reading the array; an asynchronous
 * fill of host memory never registered is done on the host at the call. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

static long resident_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    }
    fclose(f);
    return kib;
}

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream(&stream));

    void *live = NULL, *freed = NULL;
    CHECK(aclrtMalloc(&live, 256, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&freed, 256, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtFree(freed));
    void *past_end = (char *)live + 65536;
    void *never = (char *)live + ((uint64_t)1 << 36);
    void *stale[3] = {freed, past_end, never};

    unsigned char host[64];
    for (int i = 0; i < 3; i++) {
        for (int kind = 0; kind <= 5; kind++) {
            memset(host, 0xAB, sizeof host);
            EXPECT_CODE(aclrtMemcpy(host, 64, stale[i], 64, (aclrtMemcpyKind)kind), 107000);
            EXPECT_CODE(aclrtMemcpy(stale[i], 64, host, 64, (aclrtMemcpyKind)kind), 107000);
            EXPECT_CODE(aclrtMemcpy(live, 64, stale[i], 64, (aclrtMemcpyKind)kind), 107000);
            EXPECT_CODE(aclrtMemcpy(stale[i], 64, live, 64, (aclrtMemcpyKind)kind), 107000);
            EXPECT_CODE(aclrtMemcpyAsync(host, 64, stale[i], 64, (aclrtMemcpyKind)kind, stream),
                        107000);
            EXPECT_CODE(aclrtMemcpyAsync(stale[i], 64, host, 64, (aclrtMemcpyKind)kind, stream),
                        107000);
            for (int b = 0; b < 64; b++) {
                if (host[b] != 0xAB) {
                    fprintf(stderr, "a rejected copy wrote host byte %d\n", b);
                    failures++;
                    break;
                }
            }
        }
        EXPECT_CODE(aclrtMemset(stale[i], 64, 0, 64), 107000);
        EXPECT_CODE(aclrtMemsetAsync(stale[i], 64, 0, 64, stream), 107000);
    }
    EXPECT_CODE(aclrtFree(freed), 107000);
    CHECK(aclrtSynchronizeStream(stream));

    /* Sizes no memory has: the kind is checked before anything is read or allocated. */
    unsigned char a[64], b[64];
    EXPECT_CODE(aclrtMemcpy(a, (size_t)1 << 40, b, SIZE_MAX, (aclrtMemcpyKind)0xFFFFFFFF), 100000);
    EXPECT_CODE(aclrtMemcpyAsync(a, (size_t)1 << 40, b, (size_t)1 << 40,
                                 (aclrtMemcpyKind)0xFFFFFFFF, stream),
                100000);
    EXPECT_CODE(aclrtMemcpy(a, 64, b, SIZE_MAX, ACL_MEMCPY_HOST_TO_HOST), 107000);
    EXPECT_CODE(aclrtMemcpyAsync(a, 64, b, (size_t)1 << 40, ACL_MEMCPY_HOST_TO_HOST, stream),
                107000);
    /* A huge count into a small live device buffer is out of range before the host is read. */
    EXPECT_CODE(aclrtMemcpy(live, SIZE_MAX, a, (size_t)1 << 40, ACL_MEMCPY_HOST_TO_DEVICE),
                107000);
    EXPECT_CODE(aclrtMemcpyAsync(a, SIZE_MAX, live, (size_t)1 << 40, ACL_MEMCPY_DEVICE_TO_HOST,
                                 stream),
                107000);

    /* Overlapping host ranges copy like memmove, synchronously and on a stream. */
    char text[16];
    memcpy(text, "abcdefgh", 9);
    CHECK(aclrtMemcpy(text + 2, 6, text, 6, ACL_MEMCPY_HOST_TO_HOST));
    if (memcmp(text, "ababcdef", 8) != 0) {
        fprintf(stderr, "overlapping copy up gave %.8s\n", text);
        failures++;
    }
    memcpy(text, "abcdefgh", 9);
    CHECK(aclrtMemcpyAsync(text, 6, text + 2, 6, ACL_MEMCPY_HOST_TO_HOST, stream));
    if (memcmp(text, "cdefghgh", 8) != 0) {
        fprintf(stderr, "overlapping async copy down gave %.8s\n", text);
        failures++;
    }

    /* 4 GiB of memset memory copied device to device stays a few pages of backing. */
    size_t big = (size_t)4 << 30;
    void *x = NULL, *y = NULL;
    CHECK(aclrtMalloc(&x, big, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&y, big, ACL_MEM_MALLOC_HUGE_FIRST));
    long before = resident_kib();
    CHECK(aclrtMemset(x, big, 0x5A, big));
    CHECK(aclrtMemcpy(y, big, x, big, ACL_MEMCPY_DEVICE_TO_DEVICE));
    long after = resident_kib();
    if (before < 0 || after - before > 256 * 1024) {
        fprintf(stderr, "resident memory grew from %ld KiB to %ld KiB\n", before, after);
        failures++;
    }
    unsigned char probe[16];
    CHECK(aclrtMemcpy(probe, 16, (char *)y + big / 2 + 3, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 16; i++) {
        if (probe[i] != 0x5A) {
            fprintf(stderr, "copied byte %d is %#x\n", i, probe[i]);
            failures++;
            break;
        }
    }
    CHECK(aclrtFree(x));
    CHECK(aclrtFree(y));

    /* A label-list count past the limit (65,535) is refused before the array is read: a
     * two-entry array with a huge count, and the message names the count given. */
    aclrtLabel two[2] = {NULL, NULL};
    CHECK(aclrtCreateLabel(&two[0]));
    CHECK(aclrtCreateLabel(&two[1]));
    const size_t counts[3] = {65536, 100000000, (size_t)1 << 40};
    const char *shown[3] = {"65536", "100000000", "1099511627776"};
    for (int i = 0; i < 3; i++) {
        aclrtLabelList list = NULL;
        EXPECT_CODE(aclrtCreateLabelList(two, counts[i], &list), 107000);
        const char *msg = aclGetRecentErrMsg();
        if (msg == NULL || strstr(msg, shown[i]) == NULL) {
            fprintf(stderr, "label count %s: message %s\n", shown[i], msg ? msg : "(none)");
            failures++;
        }
    }
    aclrtLabelList list = NULL;
    CHECK(aclrtCreateLabelList(two, 2, &list));
    CHECK(aclrtDestroyLabelList(list));
    CHECK(aclrtDestroyLabel(two[0]));
    CHECK(aclrtDestroyLabel(two[1]));
    /* aclrtMemsetAsync on host memory no call registered (stack, static, malloc) fills it on
     * the host before returning, as CANN's runtime does; a maxCount over the secure fill's
     * bound (2^31 - 1) is 507000 and fills nothing. */
    static unsigned char in_data[40];
    unsigned char on_stack[40];
    unsigned char *on_heap = malloc(40);
    unsigned char *hosts[3] = {in_data, on_stack, on_heap};
    for (int i = 0; i < 3; i++) {
        memset(hosts[i], 0, 40);
        EXPECT_CODE(aclrtMemsetAsync(hosts[i], 40, 0x3c, 32, stream), 0);
        for (int k = 0; k < 40; k++) {
            if (hosts[i][k] != (k < 32 ? 0x3c : 0)) {
                fprintf(stderr, "host fill %d: byte %d is %d\n", i, k, hosts[i][k]);
                failures++;
                break;
            }
        }
        EXPECT_CODE(aclrtMemsetAsync(hosts[i], (size_t)0x80000000u, 0x11, 8, stream), 507000);
        if (hosts[i][0] != 0x3c) {
            fprintf(stderr, "a refused host fill %d wrote byte 0\n", i);
            failures++;
        }
    }
    free(on_heap);
    CHECK(aclrtSynchronizeStream(stream));

    CHECK(aclrtFree(live));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
