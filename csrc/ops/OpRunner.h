// OpRunner.h: runs an infiniop operator on torch tensors.
//
// CPU tensors use the CPU backend's kernels synchronously in the calling thread (as torch's own CPU
// ops); infini tensors use the infini backend on the current stream of their device. Descriptors
// are cached by (op, device, dtypes, shapes, strides, parameters), so a call in steady state is one
// hash lookup and one launch.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>

#include <initializer_list>

#include <infini/infiniop.h>

namespace infini_torch::ops {

// The infini dtype of a torch dtype (raises for dtypes infini has no equivalent of).
infiniDtype_t toInfiniDtype(at::ScalarType t);

// tensors: outputs then inputs, in the op's C ABI order; an undefined tensor is an absent optional.
void runOp(infiniopOp_t op, std::initializer_list<const at::Tensor *> tensors, std::initializer_list<double> f = {},
           std::initializer_list<int64_t> i = {});

// The handle and stream runOp uses for tensors on `device`, for calls that take them directly (the kernel
// families, families.h): CPU tensors get the cpu backend (run in the calling thread), CUDA tensors the nvidia backend
// on torch's current stream, infini tensors their device's backend on its current stream (`guard` is then set to
// that device, as the backend resolves the stream through the current device).
struct OpTarget {
    infiniopHandle_t handle;
    infinirtStream_t stream;
};
OpTarget targetOf(c10::Device device, c10::OptionalDeviceGuard &guard);

// The cache keeps the most recently used descriptors up to this many; older ones are destroyed
// (a descriptor's queued launches keep what they need alive).
constexpr size_t kMaxCachedDescriptors = 4096;

// Number of cached descriptors (for tests).
size_t cachedDescriptorCount();

}  // namespace infini_torch::ops
