/* attention: writes k, v [kv_heads, seq, d] into the caches [kv_heads, max_seq, d] at pos, then causal attention of q [heads, seq, d] over cache rows [0, pos + seq) with scale 1/sqrt(d), grouped-query when heads > kv_heads. */
#ifndef INFINI_OPS_ATTENTION_H_
#define INFINI_OPS_ATTENTION_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopAttentionDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateAttentionDescriptor(
    infiniopHandle_t handle,
    infiniopAttentionDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t out_desc,
    infiniopTensorDescriptor_t k_cache_desc,
    infiniopTensorDescriptor_t v_cache_desc,
    infiniopTensorDescriptor_t q_desc,
    infiniopTensorDescriptor_t k_desc,
    infiniopTensorDescriptor_t v_desc,
    int pos);
/* Bytes of workspace infiniopAttention needs. */
INFINI_API infiniStatus_t infiniopGetAttentionWorkspaceSize(infiniopAttentionDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopAttention(
    infiniopAttentionDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *out,
    void *k_cache,
    void *v_cache,
    const void *q,
    const void *k,
    const void *v,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyAttentionDescriptor(infiniopAttentionDescriptor_t desc);

#endif /* INFINI_OPS_ATTENTION_H_ */
