// ops.h: the cpu backend's operator entry point, for backend.cpp. The kernels exist in two builds
// (see isa.h); createOp uses the AVX-512 build when the CPU has AVX-512 with BF16, unless
// INFINI_CPU_ISA=avx2 asks for the other.
#pragma once

#include <infini/backend.h>

namespace infini::cpu::ops {

infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out);

// "avx512" or "avx2": the kernel build createOp uses in this process.
const char *isaName();

}  // namespace infini::cpu::ops
