/* A value write / value wait ping-pong between two streams through libascendcl.so, for
 * whole-process timing: 4 tasks a round (benches/README.md says how to build and run it). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "acl/acl.h"
int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 100000;
    aclInit(NULL); aclrtSetDevice(0);
    void *x = NULL; aclrtMalloc(&x, 16, ACL_MEM_MALLOC_NORMAL_ONLY);
    char *y = (char *)x + 8;
    aclrtMemset(x, 16, 0, 16);
    aclrtStream a, b; aclrtCreateStream(&a); aclrtCreateStream(&b);
    for (long k = 1; k <= rounds; k++) {
        if (aclrtValueWait(x, k, ACL_STREAM_WAIT_VALUE_GEQ, a) || aclrtValueWrite(y, k, 0, a) ||
            aclrtValueWrite(x, k, 0, b) || aclrtValueWait(y, k, ACL_STREAM_WAIT_VALUE_GEQ, b)) {
            fprintf(stderr, "error\n"); return 1;
        }
        if (k % 256 == 0) { aclrtSynchronizeStream(a); aclrtSynchronizeStream(b); }
    }
    aclrtSynchronizeStream(a); aclrtSynchronizeStream(b);
    aclrtResetDevice(0); aclFinalize();
    return 0;
}
