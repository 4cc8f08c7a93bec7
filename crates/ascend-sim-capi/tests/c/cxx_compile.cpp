// The headers must be usable from C++ unchanged.
#include "acl/acl.h"

int main() {
    aclrtStream s = nullptr;
    aclError e = aclrtCreateStream(&s);
    (void)e;
    aclrtBarrierTaskInfo info{};
    info.barrierNum = ACL_RT_CMO_MAX_BARRIER_NUM;
    return static_cast<int>(sizeof(info) == 56 ? 0 : 1);
}
