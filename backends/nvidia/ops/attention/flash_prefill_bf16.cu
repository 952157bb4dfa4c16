// attention/flash_prefill_bf16.cu: the tiled kernel for paged_attention_prefill in bf16 (its kernels' own unit: params.cuh).
#include "flash_launch.cuh"

namespace infini::nvidia::ops::attn {

template infiniStatus_t flashRun<Mode::kPrefill, __nv_bfloat16>(const FlashPlan &f, const LaunchArgs &a);

}  // namespace infini::nvidia::ops::attn
