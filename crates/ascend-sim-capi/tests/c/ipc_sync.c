/* Two processes on one shared device (ASCEND_SIM_DEVICE) ordered by an IPC notify and an IPC
 * event: the creator queues, on its stream, a wait on a notify it exports, then a write of 42
 * into memory it exports, then a record of an IPC event; the opener imports the notify, the
 * event and the memory, records the notify (which lets the creator's stream go on), waits on
 * its stream for the event, and reads 42. The test drives the roles:
 *   creator   prints "KEYS <notify key> <memory key> <event handle hex>", then "QUEUED",
 *             synchronizes (released by the opener's record), waits for a line, cleans up
 *   opener K  (K: the creator's line) imports, records, waits, reads, checks */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

static int creator(void) {
    aclrtStream s;
    aclrtNotify n = NULL;
    aclrtEvent e = NULL;
    aclrtIpcEventHandle h;
    void *mem = NULL;
    char nkey[65] = {0}, mkey[65] = {0};
    uint64_t first8 = 0, fortytwo = 42;
    void *src = NULL;
    char line[16];
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtMalloc(&mem, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&src, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(mem, 4096, 0, 4096));
    CHECK(aclrtMemcpy(src, 8, &fortytwo, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtCreateNotify(&n, 0));
    CHECK(aclrtNotifyGetExportKey(n, nkey, sizeof nkey, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    CHECK(aclrtIpcMemGetExportKey(mem, 4096, mkey, sizeof mkey, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    CHECK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    memset(&h, 0, sizeof h);
    CHECK(aclrtIpcGetEventHandle(e, &h));
    memcpy(&first8, h.reserved, 8);
    /* The stream's work: wait for the opener, write, tell the opener. */
    CHECK(aclrtWaitAndResetNotify(n, s, 0));
    CHECK(aclrtMemcpyAsync(mem, 8, src, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK(aclrtRecordEvent(e, s));
    printf("KEYS %s %s %" PRIx64 "\n", nkey, mkey, first8);
    printf("QUEUED\n");
    fflush(stdout);
    CHECK(aclrtSynchronizeStream(s)); /* released by the opener's record */
    printf("released by the opener\n");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) {
        printf("FAILURE: no line on stdin\n");
        return 1;
    }
    CHECK(aclrtIpcMemClose(mkey));
    CHECK(aclrtDestroyEvent(e));
    CHECK(aclrtDestroyNotify(n));
    CHECK(aclrtFree(src));
    CHECK(aclrtFree(mem));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    FINISH();
}

static int opener(const char *nkey, const char *mkey, uint64_t first8) {
    aclrtStream s;
    aclrtNotify n = NULL;
    aclrtEvent e = NULL;
    aclrtIpcEventHandle h;
    void *mem = NULL;
    uint64_t got = 0;
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtNotifyImportByKey(&n, nkey, 0));
    CHECK(aclrtIpcMemImportByKey(&mem, mkey, 0));
    memset(&h, 0, sizeof h);
    memcpy(h.reserved, &first8, 8);
    CHECK(aclrtIpcOpenEventHandle(h, &e));
    /* A handle that names no event. */
    {
        aclrtIpcEventHandle bad;
        aclrtEvent none = NULL;
        uint64_t junk = first8 ^ 0xFFFF0000ULL;
        memset(&bad, 0, sizeof bad);
        memcpy(bad.reserved, &junk, 8);
        EXPECT_CODE(aclrtIpcOpenEventHandle(bad, &none), ACL_ERROR_RT_PARAM_INVALID);
    }
    CHECK(aclrtRecordNotify(n, s));
    CHECK(aclrtStreamWaitEvent(s, e));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(&got, 8, mem, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    if (got != 42) {
        printf("FAILURE: the creator's memory reads %" PRIu64 " after its event\n", got);
        return 1;
    }
    printf("read 42 after the creator's event\n");
    CHECK(aclrtIpcMemClose(mkey));
    CHECK(aclrtDestroyEvent(e));
    CHECK(aclrtDestroyNotify(n));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    FINISH();
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "opener") == 0) {
        return opener(argv[2], argv[3], strtoull(argv[4], NULL, 16));
    }
    return creator();
}
