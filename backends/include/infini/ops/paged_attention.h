/* paged_attention: decode attention: q [seqs, heads, d] over each sequence's first seq_lens[s] cached tokens (caches [blocks, kv_heads, block_size, d], block_tables [seqs, max_blocks]); alibi_slopes may be NULL. */
#ifndef INFINI_OPS_PAGED_ATTENTION_H_
#define INFINI_OPS_PAGED_ATTENTION_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopPagedAttentionDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreatePagedAttentionDescriptor(
    infiniopHandle_t handle,
    infiniopPagedAttentionDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t out_desc,
    infiniopTensorDescriptor_t q_desc,
    infiniopTensorDescriptor_t k_cache_desc,
    infiniopTensorDescriptor_t v_cache_desc,
    infiniopTensorDescriptor_t block_tables_desc,
    infiniopTensorDescriptor_t seq_lens_desc,
    infiniopTensorDescriptor_t alibi_slopes_desc,
    float scale);
/* Bytes of workspace infiniopPagedAttention needs. */
INFINI_API infiniStatus_t infiniopGetPagedAttentionWorkspaceSize(infiniopPagedAttentionDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopPagedAttention(
    infiniopPagedAttentionDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *out,
    const void *q,
    const void *k_cache,
    const void *v_cache,
    const void *block_tables,
    const void *seq_lens,
    const void *alibi_slopes,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyPagedAttentionDescriptor(infiniopPagedAttentionDescriptor_t desc);

#endif /* INFINI_OPS_PAGED_ATTENTION_H_ */
