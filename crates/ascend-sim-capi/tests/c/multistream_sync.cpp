// A C++ program in the style of the vendor's multistream sample, written for this project:
// std::thread workers, a value wait on stream A released by a value write on stream B, the
// buffer read back with aclrtMemcpy, and cleanup with the force variants.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "acl/acl.h"

#define CHECK_ACL(expr)                                                          \
    do {                                                                         \
        aclError ret_ = (expr);                                                  \
        if (ret_ != ACL_SUCCESS) {                                               \
            std::printf("[ERROR] %s failed with %d\n", #expr, ret_);            \
            return 1;                                                            \
        }                                                                        \
    } while (0)

int main() {
    CHECK_ACL(aclInit(nullptr));
    CHECK_ACL(aclrtSetDevice(0));
    void *word = nullptr;
    CHECK_ACL(aclrtMalloc(&word, 1024 * 1024, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemset(word, 8, 0, 8));
    aclrtStream a = nullptr, b = nullptr;
    CHECK_ACL(aclrtCreateStream(&a));
    CHECK_ACL(aclrtCreateStream(&b));

    std::atomic<int> flag{0};
    int seen = -1;
    aclError waiter_ret = ACL_SUCCESS, writer_ret = ACL_SUCCESS;
    std::thread waiter([&] {
        waiter_ret = aclrtSetDevice(0);
        if (waiter_ret == ACL_SUCCESS) waiter_ret = aclrtValueWait(word, 100, ACL_STREAM_WAIT_VALUE_GEQ, a);
        if (waiter_ret == ACL_SUCCESS) waiter_ret = aclrtSynchronizeStream(a);
        seen = flag.load();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::thread writer([&] {
        flag.store(123);
        writer_ret = aclrtSetDevice(0);
        if (writer_ret == ACL_SUCCESS) writer_ret = aclrtValueWrite(word, 100, 0, b);
        if (writer_ret == ACL_SUCCESS) writer_ret = aclrtSynchronizeStream(b);
    });
    writer.join();
    waiter.join();
    CHECK_ACL(waiter_ret);
    CHECK_ACL(writer_ret);

    std::uint64_t value = 0;
    CHECK_ACL(aclrtMemcpy(&value, sizeof(value), word, sizeof(value), ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_ACL(aclrtDestroyStreamForce(a));
    CHECK_ACL(aclrtDestroyStreamForce(b));
    CHECK_ACL(aclrtFree(word));
    CHECK_ACL(aclrtResetDeviceForce(0));
    CHECK_ACL(aclFinalize());
    if (seen != 123 || value != 100) {
        std::printf("FAILURE: flag %d, word %llu\n", seen, static_cast<unsigned long long>(value));
        return 1;
    }
    std::printf("SUCCESS\n");
    return 0;
}
