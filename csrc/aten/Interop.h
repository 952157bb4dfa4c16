// Interop.h: zero-copy views of one tensor's memory as another device's tensor (the nvidia backend's infini memory
// is CUDA memory of the same process), the ground of DLPack exchange with CUDA libraries.
#pragma once

#include <ATen/core/Tensor.h>

namespace infini_torch::aten {

// A tensor on `device` (cuda:N or infini:N) sharing `src`'s memory, sizes and strides; `src` stays alive as long as
// the view does. Only between devices whose memory is the same (the nvidia backend's infini and cuda devices of one
// GPU); ordering the two devices' streams is the caller's part (synchronize, or use events), as with DLPack.
at::Tensor aliasOnDevice(const at::Tensor &src, c10::Device device);

}  // namespace infini_torch::aten
