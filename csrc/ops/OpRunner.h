// OpRunner.h: runs an infiniop operator on torch tensors.
//
// CPU tensors use the CPU backend's kernels synchronously in the calling thread (as torch's own CPU
// ops); infini tensors use the infini backend on the current stream of their device. Descriptors
// are cached by (op, device, dtypes, shapes, strides, parameters), so a call in steady state is one
// hash lookup and one launch.
#pragma once

#include <ATen/core/Tensor.h>

#include <initializer_list>

#include <infini/infiniop.h>

namespace infini_torch::ops {

// The infini dtype of a torch dtype (raises for dtypes infini has no equivalent of).
infiniDtype_t toInfiniDtype(at::ScalarType t);

// tensors: outputs then inputs, in the op's C ABI order; an undefined tensor is an absent optional.
void runOp(infiniopOp_t op, std::initializer_list<const at::Tensor *> tensors, std::initializer_list<double> f = {},
           std::initializer_list<int64_t> i = {});

// The cache keeps the most recently used descriptors up to this many; older ones are destroyed
// (a descriptor's queued launches keep what they need alive).
constexpr size_t kMaxCachedDescriptors = 4096;

// Number of cached descriptors (for tests).
size_t cachedDescriptorCount();

}  // namespace infini_torch::ops
