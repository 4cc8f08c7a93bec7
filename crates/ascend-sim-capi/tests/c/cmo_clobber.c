/* Run with a chip file whose copy engine goes around the L2 (copy_engine_via_l2 = false).
 * A value write dirties a line in the L2; a memset by the copy engine writes the same line's
 * ninth word around the L2; a WRITEBACK then writes the whole line back over it: the memset's
 * bytes are lost and the run report records a clobber. With the argument "flush-first", a
 * FLUSH before the memset keeps both writes and nothing is reported. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

int main(int argc, char **argv) {
    int flush_first = argc > 1 && strcmp(argv[1], "flush-first") == 0;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *line = NULL;
    CHECK(aclrtMalloc(&line, 512, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(line, 512, 0, 512));
    CHECK(aclrtValueWrite(line, 7, 0, s));
    if (flush_first) CHECK(aclrtCmoAsync(line, 512, ACL_RT_CMO_TYPE_FLUSH, s));
    CHECK(aclrtMemsetAsync((char *)line + 64, 8, 0x22, 8, s));
    CHECK(aclrtCmoAsync(line, 512, ACL_RT_CMO_TYPE_WRITEBACK, s));
    CHECK(aclrtSynchronizeStream(s));
    uint64_t words[9] = {0};
    CHECK(aclrtMemcpy(words, sizeof words, line, sizeof words, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("first word %llu, ninth word %#llx\n", (unsigned long long)words[0],
           (unsigned long long)words[8]);
    uint64_t want = flush_first ? 0x2222222222222222ull : 0;
    if (words[0] != 7 || words[8] != want) {
        fprintf(stderr, "unexpected words %llu %#llx\n", (unsigned long long)words[0],
                (unsigned long long)words[8]);
        failures++;
    }
    CHECK(aclrtFree(line));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
