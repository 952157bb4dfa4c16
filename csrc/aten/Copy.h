// Copy.h: copies between the CPU and infini devices and between infini devices.
#pragma once

#include <ATen/core/Tensor.h>

namespace infini_torch {

// Copies self into dst (same shape); either may be on the CPU or any infini device, with any
// dtypes and strides. Same-dtype dense copies are single infinirt memcpys on the current stream;
// everything else is staged through the CPU.
at::Tensor copy_from(const at::Tensor &self, const at::Tensor &dst, bool non_blocking);
at::Tensor copy_from_and_resize(const at::Tensor &self, const at::Tensor &dst);

}  // namespace infini_torch
