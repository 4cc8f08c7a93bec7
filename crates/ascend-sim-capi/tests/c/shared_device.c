/* Two processes on one shared device (ASCEND_SIM_DEVICE): the exporter queues a value wait on
 * memory it exports under a key; the importer, once on the key's whitelist, imports it and
 * writes the value that releases the wait. The test drives both through stdin and stdout:
 *   exporter: prints "KEY <key>", reads the importer's pid, whitelists it, queues the wait,
 *             queues a copy of the value into page-locked memory behind the wait, prints
 *             "WAITING", synchronizes (released by the importer), checks the value and the
 *             copy;
 *   importer: prints "PID <bare tgid>", waits for a line on stdin, imports, writes, closes. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

static int exporter(void) {
    aclrtStream s;
    void *flag = NULL;
    char key[65] = {0};
    int32_t pid = 0;
    uint64_t got = 0;
    uint64_t *copied = NULL;
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtMalloc(&flag, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(flag, 4096, 0, 4096));
    /* The driver writes at most 65 bytes: a shorter buffer is refused. */
    EXPECT_CODE(aclrtIpcMemGetExportKey(flag, 4096, key, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtIpcMemGetExportKey(flag, 4096, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    printf("KEY %s\n", key);
    fflush(stdout);
    if (scanf("%d", &pid) != 1) {
        printf("FAILURE: no pid on stdin\n");
        return 1;
    }
    CHECK(aclrtIpcMemSetImportPid(key, &pid, 1));
    CHECK(aclrtValueWait(flag, 123, ACL_STREAM_WAIT_VALUE_EQ, s));
    CHECK(aclrtMallocHost((void **)&copied, 8));
    *copied = 0;
    CHECK(aclrtMemcpyAsync(copied, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST, s));
    printf("WAITING\n");
    fflush(stdout);
    CHECK(aclrtSynchronizeStream(s)); /* released by the other process's value write */
    CHECK(aclrtMemcpy(&got, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    if (got != 123) {
        printf("FAILURE: the flag holds %llu, not 123\n", (unsigned long long)got);
        return 1;
    }
    if (*copied != 123) {
        printf("FAILURE: the copy queued behind the wait holds %llu, not 123\n",
               (unsigned long long)*copied);
        return 1;
    }
    CHECK(aclrtFreeHost(copied));
    printf("released by the importer: 123\n");
    CHECK(aclrtIpcMemClose(key));
    CHECK(aclrtFree(flag));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    FINISH();
}

static int importer(const char *key) {
    aclrtStream s;
    void *shared = NULL;
    int32_t pid = 0;
    char line[16];
    CHECK(aclrtDeviceGetBareTgid(&pid));
    printf("PID %d\n", pid);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) {
        printf("FAILURE: no go-ahead on stdin\n");
        return 1;
    }
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtIpcMemImportByKey(&shared, "no-such-key", 0), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtIpcMemImportByKey(&shared, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT));
    CHECK(aclrtValueWrite(shared, 123, 0, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtIpcMemClose(key));
    /* The import is closed: its memory is no longer this process's to name. */
    EXPECT_CODE(aclrtValueWrite(shared, 1, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    FINISH();
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "import") == 0) {
        return importer(argv[2]);
    }
    return exporter();
}
