// dispatch.cpp: chooses the kernel build (see isa.h) once per process. Compiled for the
// baseline instruction set only.
#include "ops.h"

#include <cstdlib>
#include <cstring>

namespace infini::cpu::ops {

namespace avx2 {
infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out);
}
namespace avx512 {
infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out);
}

namespace {

bool useAvx512() {
    const char *forced = std::getenv("INFINI_CPU_ISA");
    if (forced != nullptr && std::strcmp(forced, "avx2") == 0) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bf16");
}

const bool kAvx512 = useAvx512();

}  // namespace

const char *isaName() { return kAvx512 ? "avx512" : "avx2"; }

infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out) {
    return kAvx512 ? avx512::createOp(handle, params, out) : avx2::createOp(handle, params, out);
}

}  // namespace infini::cpu::ops
