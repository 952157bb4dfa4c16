// paged_attention_prefill: the general kernel and the tiled kernel's paged, gathered and split forms, fp16 (bf16: attention_prefill_bf16.cu; see attention.cuh).
#define INFINI_ATTN_PREFILL 1
#include "attention.cuh"
