// Copy.h: copies between the CPU and infini devices and between infini devices.
#pragma once

#include <ATen/core/Tensor.h>

namespace infini_torch {

// Copies self into dst (broadcast to dst's shape); either may be on the CPU, any infini device or (with the nvidia
// backend) torch's CUDA devices, with any dtypes and strides. Same-dtype dense copies are one infinirt memcpy on the
// current stream; layout and dtype changes run on the device (the pointwise family); host copies go through the
// CPU only for what the device cannot lay out itself.
at::Tensor copy_from(const at::Tensor &self, const at::Tensor &dst, bool non_blocking);
at::Tensor copy_from_and_resize(const at::Tensor &self, const at::Tensor &dst);

}  // namespace infini_torch
