// attention/flash_prefill_f16.cu: the tiled kernel for paged_attention_prefill in fp16 (its kernels' own unit: params.cuh).
#include "flash_launch.cuh"

namespace infini::nvidia::ops::attn {

template infiniStatus_t flashRun<Mode::kPrefill, __half>(const FlashPlan &f, const LaunchArgs &a);

}  // namespace infini::nvidia::ops::attn
