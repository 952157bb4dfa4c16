// paged_attention (decode): the general split-K kernel and the flash-decoding fast path (see attention.cuh).
#define INFINI_ATTN_DECODE 1
#include "attention.cuh"
