/* The simulator kernels with the vendor samples' entry points (sample-kernels/): each one's
 * effect on memory, LongOP's simulated duration against a 1,000 ms timeout, and ErrorOP's
 * trap failing its stream only. Built with the files of sample-kernels/. */
#include <cstdio>
#include <cstring>
#include <vector>

#include "sample_kernels.h"

#define CHECK(call)                                                                      \
    do {                                                                                 \
        aclError e_ = (call);                                                            \
        if (e_ != ACL_SUCCESS) {                                                         \
            std::printf("FAILED: %s returned %d at line %d\n", #call, e_, __LINE__);    \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::printf("FAILED: %s at line %d\n", #cond, __LINE__);                    \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

int main() {
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = nullptr;
    CHECK(aclrtCreateStream(&s));

    /* One block, as the samples launch them: blocks of these kernels store to adjacent words
     * of one cache line, which the sanitizer reports as false sharing. */
    const uint32_t blocks = 1;
    uint32_t host[4] = {3, 5, 7, 9};
    void *x = nullptr;
    CHECK(aclrtMalloc(&x, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(x, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
    EasyOP(blocks, s, static_cast<uint32_t *>(x));
    ShortOP(blocks, s, static_cast<uint32_t *>(x));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(host, sizeof host, x, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[0] == 8 && host[1] == 5);

    /* LongOP takes over a second of simulated time: a 1,000 ms synchronize times out, and a
     * plain one then sees it done. */
    LongOP(1, s, static_cast<uint32_t *>(x));
    aclError timed = aclrtSynchronizeStreamWithTimeout(s, 1000);
    std::printf("long kernel against 1000 ms: %d\n", timed);
    EXPECT(timed == 507046);
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(host, sizeof host, x, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[0] == 9 && host[1] == 5);

    int *p = static_cast<int *>(x);
    WriteDo(1, s, p, 123);
    ReadDo(1, s, p);
    PrintDo(2, s);
    CHECK(aclrtSynchronizeStream(s));

    const uint32_t n = 8 * 64;
    std::vector<float> a(n), b(n), out(n);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = float(i);
        b[i] = float(2 * i);
    }
    void *da = nullptr, *db = nullptr, *dc = nullptr;
    size_t bytes = n * sizeof(float);
    CHECK(aclrtMalloc(&da, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&db, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dc, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(da, bytes, a.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(db, bytes, b.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    AddDo(8, s, static_cast<float *>(da), static_cast<float *>(db), static_cast<float *>(dc), n);
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(out.data(), bytes, dc, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint32_t i = 0; i < n; i++) EXPECT(out[i] == float(3 * i));
    CHECK(VectorAddDo(1, s, static_cast<float *>(da), static_cast<float *>(db), static_cast<float *>(dc), 0.5f, 16));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(out.data(), bytes, dc, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint32_t i = 0; i < 16; i++) EXPECT(out[i] == float(2 * i));

    /* A trap fails its own stream's synchronize, with the reason; another stream is fine. */
    aclrtStream bad = nullptr;
    CHECK(aclrtCreateStream(&bad));
    ErrorOP(2, bad);
    aclError faulted = aclrtSynchronizeStream(bad);
    const char *msg = aclGetRecentErrMsg();
    std::printf("trap code: %d\nrecent: %s\n", faulted, msg ? msg : "(null)");
    EXPECT(faulted == ACL_ERROR_RT_VECTOR_CORE_EXCEPTION); /* as the vendor's sample output shows */
    EasyOP(1, s, static_cast<uint32_t *>(x));
    CHECK(aclrtSynchronizeStream(s));

    CHECK(aclrtFree(da));
    CHECK(aclrtFree(db));
    CHECK(aclrtFree(dc));
    CHECK(aclrtFree(x));
    CHECK(aclrtDestroyStream(bad));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    std::printf("SUCCESS\n");
    return 0;
}
