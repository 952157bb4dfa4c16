// attention over a dense KV cache: the append, the general kernel, the tiled kernel's dense form and
// the decode fast path for decode-sized calls (see attention.cuh).
#define INFINI_ATTN_DENSE 1
#include "attention.cuh"
