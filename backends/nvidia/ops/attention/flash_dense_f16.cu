// attention/flash_dense_f16.cu: the tiled kernel for attention in fp16 (its kernels' own unit: params.cuh).
#include "flash_launch.cuh"

namespace infini::nvidia::ops::attn {

template infiniStatus_t flashRun<Mode::kDense, __half>(const FlashPlan &f, const LaunchArgs &a);

}  // namespace infini::nvidia::ops::attn
