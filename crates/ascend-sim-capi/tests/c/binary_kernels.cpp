/* A kernel launched from a "binary": the program links the simulator kernel add_custom
 * (sample-kernels/add_custom.cpp) and exports it (-rdynamic), so aclrtBinaryGetFunction finds
 * it by name; the launch computes z = x + y over 8 blocks of 2048 halves. A function with no
 * simulator kernel fails at launch. */
#include <cstdio>
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

int main(int argc, char **argv) {
    (void)argc;
    const uint32_t n = 8 * 2048;
    const size_t bytes = n * sizeof(uint16_t);
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = nullptr;
    CHECK(aclrtCreateStream(&s));
    std::vector<uint16_t> x(n), y(n), z(n);
    for (uint32_t i = 0; i < n; i++) {
        x[i] = aclFloatToFloat16(float(i % 100));
        y[i] = aclFloatToFloat16(0.5f);
    }
    void *dx = nullptr, *dy = nullptr, *dz = nullptr;
    CHECK(aclrtMalloc(&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dz, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dx, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(dy, bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    aclrtBinHandle bin = nullptr;
    /* Any existing file stands for the binary: the program itself. */
    CHECK(aclrtBinaryLoadFromFile(argv[0], nullptr, &bin));
    aclrtFuncHandle f = nullptr, missing = nullptr;
    CHECK(aclrtBinaryGetFunction(bin, "add_custom", &f));
    CHECK(aclrtBinaryGetFunction(bin, "no_such_kernel", &missing));
    aclrtArgsHandle args = nullptr;
    CHECK(aclrtKernelArgsInit(f, &args));
    void *ptrs[3] = {dx, dy, dz};
    for (void *&p : ptrs) {
        aclrtParamHandle ph = nullptr;
        CHECK(aclrtKernelArgsAppend(args, &p, sizeof p, &ph));
    }
    /* Sizes no argument has are refused, before more bytes are read than an argument can
     * hold, and a placeholder larger than the device is refused before host memory is taken. */
    {
        aclrtArgsHandle big = nullptr;
        aclrtParamHandle ph = nullptr;
        uint64_t word = 5;
        CHECK(aclrtKernelArgsInit(f, &big));
        if (aclrtKernelArgsAppend(big, &word, SIZE_MAX, &ph) != ACL_ERROR_RT_PARAM_INVALID) return 1;
        if (aclrtKernelArgsAppend((void *)0xdeadbeef, &word, SIZE_MAX, &ph) == ACL_SUCCESS) return 1;
        CHECK(aclrtKernelArgsAppend(big, &word, sizeof word, &ph));
        if (aclrtKernelArgsParaUpdate(big, ph, &word, SIZE_MAX) != ACL_ERROR_RT_PARAM_INVALID) return 1;
        aclrtParamHandle holder = nullptr;
        void *buf = nullptr;
        CHECK(aclrtKernelArgsAppendPlaceHolder(big, &holder));
        if (aclrtKernelArgsGetPlaceHolderBuffer(big, holder, SIZE_MAX, &buf) != ACL_ERROR_RT_PARAM_INVALID)
            return 1;
        if (aclrtKernelArgsGetPlaceHolderBuffer(big, holder, (size_t)1 << 46, &buf) != ACL_ERROR_RT_PARAM_INVALID)
            return 1;
    }
    CHECK(aclrtKernelArgsFinalize(args));
    CHECK(aclrtLaunchKernelWithConfig(f, 8, s, nullptr, args, nullptr));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtMemcpy(z.data(), bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint32_t i = 0; i < n; i++) {
        if (aclFloat16ToFloat(z[i]) != float(i % 100) + 0.5f) {
            std::printf("FAILED: z[%u] = %f\n", i, aclFloat16ToFloat(z[i]));
            return 1;
        }
    }
    aclrtArgsHandle margs = nullptr;
    CHECK(aclrtKernelArgsInit(missing, &margs));
    aclError e = aclrtLaunchKernelWithConfig(missing, 1, s, nullptr, margs, nullptr);
    const char *msg = aclGetRecentErrMsg();
    std::printf("missing kernel: %d %s\n", e, msg ? msg : "(null)");
    if (e != ACL_ERROR_RT_FEATURE_NOT_SUPPORT) return 1;
    CHECK(aclrtBinaryUnLoad(bin));
    CHECK(aclrtFree(dx));
    CHECK(aclrtFree(dy));
    CHECK(aclrtFree(dz));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    std::printf("SUCCESS\n");
    return 0;
}
