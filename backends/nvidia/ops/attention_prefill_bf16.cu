// paged_attention_prefill: the tiled kernel's bf16 instantiations (its fp16 ones and the rest of the op are in
// attention_prefill.cu; see attention.cuh).
#define INFINI_ATTN_PREFILL_BF16 1
#include "attention.cuh"
