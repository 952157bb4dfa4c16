// attention/flash_dense_bf16.cu: the tiled kernel for attention in bf16 (its kernels' own unit: params.cuh).
#include "flash_launch.cuh"

namespace infini::nvidia::ops::attn {

template infiniStatus_t flashRun<Mode::kDense, __nv_bfloat16>(const FlashPlan &f, const LaunchArgs &a);

}  // namespace infini::nvidia::ops::attn
