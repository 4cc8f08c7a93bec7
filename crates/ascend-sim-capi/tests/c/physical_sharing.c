/* Physical memory shared by processes on one shared device (ASCEND_SIM_DEVICE): the exporter
 * maps physical memory, writes a payload, exports it with a whitelist and queues one value
 * wait per importer on its own mapping; each importer maps the memory in a range of its own,
 * reads the payload and writes the value that releases its wait. The test drives the roles
 * through arguments, stdin and stdout:
 *   exporter P W    prints "HANDLE <hex>", reads P pids (whitelisted), queues waits for the
 *                   writers 1..W, prints "WAITING", synchronizes, checks the slots, frees
 *   importer I H    prints "PID <bare tgid>", waits for a line, imports H, maps it, checks
 *                   the payload, writes I in slot I, unmaps, releases, frees
 *   holder H        as an importer, but prints "MAPPED" and sleeps until killed
 *   refused H       an import by a process not on the whitelist: 207006
 *   late H          an import after the exporter freed the memory: 107000 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "check.h"

#define PAYLOAD 0x5A5AC0DEULL

static aclrtPhysicalMemProp device_prop(void) {
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    return prop;
}

static size_t granularity(void) {
    aclrtPhysicalMemProp prop = device_prop();
    size_t g = 0;
    CHECK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    return g;
}

/* Maps `h` (of `g` bytes) in a new range and grants this device read-write access. */
static void *map_in_new_range(aclrtDrvMemHandle h, size_t g) {
    void *va = NULL;
    aclrtMemAccessDesc access;
    CHECK(aclrtReserveMemAddress(&va, g, 0, NULL, 0));
    CHECK(aclrtMapMem(va, g, 0, h, 0));
    memset(&access, 0, sizeof access);
    access.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    access.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = 0;
    CHECK(aclrtMemSetAccess(va, g, &access, 1));
    return va;
}

static int exporter(int pids, int writers) {
    aclrtStream s;
    aclrtDrvMemHandle h = NULL;
    aclrtPhysicalMemProp prop = device_prop();
    uint64_t payload = PAYLOAD, sh = 0, slot = 0;
    int32_t list[16];
    size_t g = granularity();
    void *va;
    int i;
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtMallocPhysical(&h, g, &prop, 0));
    va = map_in_new_range(h, g);
    CHECK(aclrtMemset(va, 4096, 0, 4096));
    CHECK(aclrtMemcpy(va, 8, &payload, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &sh));
    printf("HANDLE %llx\n", (unsigned long long)sh);
    fflush(stdout);
    for (i = 0; i < pids && i < 16; i++) {
        if (scanf("%d", &list[i]) != 1) {
            printf("FAILURE: no pid %d on stdin\n", i);
            return 1;
        }
    }
    CHECK(aclrtMemSetPidToShareableHandle(sh, list, (size_t)pids));
    for (i = 1; i <= writers; i++) {
        CHECK(aclrtValueWait((char *)va + 8 * i, (uint64_t)i, ACL_STREAM_WAIT_VALUE_EQ, s));
    }
    printf("WAITING\n");
    fflush(stdout);
    CHECK(aclrtSynchronizeStream(s)); /* released by the importers' writes */
    for (i = 1; i <= writers; i++) {
        CHECK(aclrtMemcpy(&slot, 8, (char *)va + 8 * i, 8, ACL_MEMCPY_DEVICE_TO_HOST));
        if (slot != (uint64_t)i) {
            printf("FAILURE: slot %d holds %llu\n", i, (unsigned long long)slot);
            return 1;
        }
    }
    printf("all %d importers wrote\n", writers);
    CHECK(aclrtUnmapMem(va));
    CHECK(aclrtReleaseMemAddress(va));
    CHECK(aclrtFreePhysical(h));
    /* The handle is dead now. */
    EXPECT_CODE(aclrtFreePhysical(h), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    FINISH();
}

static int importer(int index, uint64_t sh, int hold) {
    aclrtStream s;
    aclrtDrvMemHandle h = NULL, again = NULL;
    uint64_t payload = 0;
    int32_t pid = 0;
    char line[16];
    size_t g;
    void *va;
    CHECK(aclrtDeviceGetBareTgid(&pid));
    printf("PID %d\n", pid);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) {
        printf("FAILURE: no go-ahead on stdin\n");
        return 1;
    }
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtMemImportFromShareableHandle(sh, 0, &h));
    /* One handle per process and shareable handle. */
    EXPECT_CODE(aclrtMemImportFromShareableHandle(sh, 0, &again), ACL_ERROR_RT_PARAM_INVALID);
    g = granularity();
    va = map_in_new_range(h, g);
    CHECK(aclrtMemcpy(&payload, 8, va, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    if (payload != PAYLOAD) {
        printf("FAILURE: the payload reads %llx\n", (unsigned long long)payload);
        return 1;
    }
    if (hold) {
        printf("MAPPED\n");
        fflush(stdout);
        for (;;) {
            pause();
        }
    }
    CHECK(aclrtValueWrite((char *)va + 8 * index, (uint64_t)index, 0, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtUnmapMem(va));
    /* Unmapped: the range is no memory of this process's any more. */
    EXPECT_CODE(aclrtMemcpy(&payload, 8, va, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtReleaseMemAddress(va));
    CHECK(aclrtFreePhysical(h));
    printf("importer %d wrote its slot\n", index);
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    FINISH();
}

static int import_fails(uint64_t sh, aclError want) {
    aclrtDrvMemHandle h = NULL;
    CHECK(aclrtSetDevice(0));
    EXPECT_CODE(aclrtMemImportFromShareableHandle(sh, 0, &h), want);
    CHECK(aclrtResetDevice(0));
    FINISH();
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "exporter") == 0) {
        return exporter(atoi(argv[2]), atoi(argv[3]));
    }
    if (argc >= 4 && strcmp(argv[1], "importer") == 0) {
        return importer(atoi(argv[2]), strtoull(argv[3], NULL, 16), 0);
    }
    if (argc >= 3 && strcmp(argv[1], "holder") == 0) {
        return importer(0, strtoull(argv[2], NULL, 16), 1);
    }
    if (argc >= 3 && strcmp(argv[1], "refused") == 0) {
        return import_fails(strtoull(argv[2], NULL, 16), ACL_ERROR_RT_NO_PERMISSION);
    }
    if (argc >= 3 && strcmp(argv[1], "late") == 0) {
        return import_fails(strtoull(argv[2], NULL, 16), ACL_ERROR_RT_PARAM_INVALID);
    }
    printf("usage: %s exporter P W | importer I H | holder H | refused H | late H\n", argv[0]);
    return 2;
}
