/* Programs that each miss one ordering edge, and their twins with the edge ("<shape>-ordered").
 * Each computes the right data under the simulator's default schedule; only race detection
 * (ASCEND_SIM_RACES=on) tells the racy ones, as data_race hazards.
 *
 *   copy      a copy into B on stream 1, a copy out of B on stream 2, no event between them
 *   flag      stream 1 fills the data and raises a flag with aclrtValueWrite; stream 2 copies
 *             the data without waiting for the flag (the twin waits with aclrtValueWait)
 *   fills     two fills of one buffer on two streams
 *   invalid   a fill and a WRITEBACK of a range on stream 1, an INVALID of it on stream 2
 *   host-read the host copies out (aclrtMemcpy) what a stream is still filling (the twin
 *             synchronizes the stream first)
 *   pinned    the host copies (aclrtMemcpy) out of page-locked memory that an asynchronous
 *             device-to-host copy on stream 1 is still filling (the twin synchronizes first;
 *             only the twin's data is checked: which bytes the racy read sees depends on the
 *             schedule)
 *   eq        stream 1 waits (EQ) for a flag to be 1; stream 2 writes 1, then 2, and nothing
 *             orders the write of 2 after the wait's observation of 1 (a sync_word_race; the
 *             twin makes stream 2 wait for an event recorded after the wait)
 *   writers   two streams write one flag (a sync_word_race)
 *   kernel    a kernel on stream 2 sums what stream 1 fills, with no event between them
 *   blocks    block 1 of a kernel copies out what block 0 writes (the twin's block 1 polls a
 *             flag block 0 raises with a store and dcci)
 */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_sim.h"
#include "check.h"

#define N 4096

static aclrtStream s1, s2;

/* The edge the racy shapes lack: stream 2 waits for an event stream 1 records now. */
static void order(void) {
    aclrtEvent e = NULL;
    CHECK(aclrtCreateEvent(&e));
    CHECK(aclrtRecordEvent(e, s1));
    CHECK(aclrtStreamWaitEvent(s2, e));
}

static void expect_bytes(const void *dev, unsigned char want, const char *what) {
    static unsigned char host[N];
    CHECK(aclrtMemcpy(host, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; i++) {
        if (host[i] != want) {
            fprintf(stderr, "%s: byte %d is %u, expected %u\n", what, i, host[i], want);
            failures++;
            return;
        }
    }
}

static void expect_flag(const void *flag, uint64_t want) {
    uint64_t v = 0;
    CHECK(aclrtMemcpy(&v, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    if (v != want) {
        fprintf(stderr, "flag %llu, expected %llu\n", (unsigned long long)v, (unsigned long long)want);
        failures++;
    }
}

/* The kernel shape: sums the N bytes at args[0] into the 8 bytes at args[1]. */
static void sum_kernel(aclsimKernelCtx *ctx, void *args) {
    void **p = (void **)args;
    static unsigned char local[N];
    aclsimCopyGmToLocal(ctx, local, p[0], N);
    uint64_t total = 0;
    for (int i = 0; i < N; i++) total += local[i];
    aclsimCopyLocalToGm(ctx, p[1], &total, sizeof total);
}

/* The blocks shape: block 0 writes N bytes of 9 at args[0] and raises the flag at args[2];
 * block 1 (after polling the flag when args[3] is set) copies them to args[1]. */
static void handoff_kernel(aclsimKernelCtx *ctx, void *args) {
    void **p = (void **)args;
    static unsigned char local[2][N];
    unsigned char *mine = local[aclsimGetBlockIdx(ctx) & 1];
    if (aclsimGetBlockIdx(ctx) == 0) {
        memset(mine, 9, N);
        aclsimSpin(ctx, 200);
        aclsimCopyLocalToGm(ctx, p[0], mine, N);
        aclsimStore64(ctx, p[2], 1);
        aclsimDcci(ctx, p[2], 0, ACLSIM_CACHELINE_OUT);
        return;
    }
    aclsimSpin(ctx, 300);
    while (p[3]) {
        aclsimDcci(ctx, p[2], 0, ACLSIM_CACHELINE_OUT);
        if (aclsimLoad64(ctx, p[2]) == 1) break;
    }
    aclsimCopyGmToLocal(ctx, mine, p[0], N);
    aclsimCopyLocalToGm(ctx, p[1], mine, N);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: races <shape>[-ordered]\n");
        return 2;
    }
    char shape[64];
    snprintf(shape, sizeof shape, "%s", argv[1]);
    char *dash = strstr(shape, "-ordered");
    int ordered = dash != NULL;
    if (dash) *dash = 0;

    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s1));
    CHECK(aclrtCreateStream(&s2));
    void *a = NULL, *b = NULL, *c = NULL, *flag = NULL;
    CHECK(aclrtMalloc(&a, N, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&b, N, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&c, N, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&flag, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(a, N, 1, N));
    CHECK(aclrtMemset(b, N, 0, N));
    CHECK(aclrtMemset(c, N, 0, N));
    CHECK(aclrtMemset(flag, 64, 0, 64));

    if (strcmp(shape, "copy") == 0) {
        CHECK(aclrtMemcpyAsync(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
        if (ordered) order();
        CHECK(aclrtMemcpyAsync(c, N, b, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
        CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtSynchronizeStream(s2));
        expect_bytes(c, 1, "the copy of the copy");
    } else if (strcmp(shape, "flag") == 0) {
        CHECK(aclrtMemsetAsync(b, N, 7, N, s1));
        CHECK(aclrtValueWrite(flag, 1, 0, s1));
        if (ordered) CHECK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, s2));
        CHECK(aclrtMemcpyAsync(c, N, b, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
        CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtSynchronizeStream(s2));
        expect_bytes(c, 7, "what the consumer copied");
    } else if (strcmp(shape, "fills") == 0) {
        CHECK(aclrtMemsetAsync(b, N, 2, N, s1));
        if (ordered) order();
        CHECK(aclrtMemsetAsync(b, N, 3, N, s2));
        CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtSynchronizeStream(s2));
        expect_bytes(b, 3, "the buffer filled twice");
    } else if (strcmp(shape, "invalid") == 0) {
        CHECK(aclrtMemsetAsync(b, N, 4, N, s1));
        CHECK(aclrtCmoAsync(b, N, ACL_RT_CMO_TYPE_WRITEBACK, s1));
        if (ordered) order();
        CHECK(aclrtCmoAsync(b, N, ACL_RT_CMO_TYPE_INVALID, s2));
        CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtSynchronizeStream(s2));
        expect_bytes(b, 4, "the buffer written back");
    } else if (strcmp(shape, "host-read") == 0) {
        CHECK(aclrtMemsetAsync(b, N, 5, N, s1));
        if (ordered) CHECK(aclrtSynchronizeStream(s1));
        expect_bytes(b, 5, "what the host read");
        CHECK(aclrtSynchronizeStream(s1));
    } else if (strcmp(shape, "pinned") == 0) {
        void *pinned = NULL;
        static unsigned char out[N];
        CHECK(aclrtMallocHost(&pinned, N));
        memset(pinned, 0, N);
        CHECK(aclrtMemsetAsync(b, N, 6, N, s1));
        CHECK(aclrtMemcpyAsync(pinned, N, b, N, ACL_MEMCPY_DEVICE_TO_HOST, s1));
        if (ordered) CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtMemcpy(out, N, pinned, N, ACL_MEMCPY_HOST_TO_HOST));
        CHECK(aclrtSynchronizeStream(s1));
        /* What the racy read saw depends on the schedule: said, for exploration to compare. */
        if (!ordered) printf("the host read %u out of the page-locked buffer\n", out[0]);
        if (ordered && out[0] != 6) {
            fprintf(stderr, "the host read %u out of the page-locked buffer, expected 6\n", out[0]);
            failures++;
        }
        CHECK(aclrtFreeHost(pinned));
    } else if (strcmp(shape, "eq") == 0) {
        CHECK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, s1));
        CHECK(aclrtValueWrite(flag, 1, 0, s2));
        /* Under this schedule the wait sees the 1 before the 2 comes. */
        CHECK(aclrtSynchronizeStream(s2));
        if (ordered) order();
        CHECK(aclrtValueWrite(flag, 2, 0, s2));
        CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtSynchronizeStream(s2));
        expect_flag(flag, 2);
    } else if (strcmp(shape, "writers") == 0) {
        CHECK(aclrtValueWrite(flag, 1, 0, s1));
        if (ordered) order();
        CHECK(aclrtValueWrite(flag, 2, 0, s2));
        CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtSynchronizeStream(s2));
        expect_flag(flag, 2);
    } else if (strcmp(shape, "kernel") == 0) {
        CHECK(aclrtMemsetAsync(b, N, 2, N, s1));
        if (ordered) order();
        void *args[2] = {b, c};
        CHECK(aclsimLaunchKernel(sum_kernel, 1, args, sizeof args, s2));
        CHECK(aclrtSynchronizeStream(s1));
        CHECK(aclrtSynchronizeStream(s2));
        expect_flag(c, 2 * N);
    } else if (strcmp(shape, "blocks") == 0) {
        void *args[4] = {b, c, flag, ordered ? flag : NULL};
        CHECK(aclsimLaunchKernel(handoff_kernel, 2, args, sizeof args, s1));
        CHECK(aclrtSynchronizeStream(s1));
        expect_bytes(c, 9, "what block 1 copied");
    } else {
        fprintf(stderr, "unknown shape %s\n", shape);
        return 2;
    }

    CHECK(aclrtFree(a));
    CHECK(aclrtFree(b));
    CHECK(aclrtFree(c));
    CHECK(aclrtFree(flag));
    CHECK(aclrtDestroyStream(s1));
    CHECK(aclrtDestroyStream(s2));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
