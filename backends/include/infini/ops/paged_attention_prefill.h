/* paged_attention_prefill: prefill attention: sequence s owns q rows cu_seqlens_q[s]..cu_seqlens_q[s+1]; its j-th row sits at position seq_lens[s] - q_len + j and attends causally to the cache. */
#ifndef INFINI_OPS_PAGED_ATTENTION_PREFILL_H_
#define INFINI_OPS_PAGED_ATTENTION_PREFILL_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopPagedAttentionPrefillDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreatePagedAttentionPrefillDescriptor(
    infiniopHandle_t handle,
    infiniopPagedAttentionPrefillDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t out_desc,
    infiniopTensorDescriptor_t q_desc,
    infiniopTensorDescriptor_t k_cache_desc,
    infiniopTensorDescriptor_t v_cache_desc,
    infiniopTensorDescriptor_t block_tables_desc,
    infiniopTensorDescriptor_t seq_lens_desc,
    infiniopTensorDescriptor_t cu_seqlens_q_desc,
    infiniopTensorDescriptor_t alibi_slopes_desc,
    float scale);
/* Bytes of workspace infiniopPagedAttentionPrefill needs. */
INFINI_API infiniStatus_t infiniopGetPagedAttentionPrefillWorkspaceSize(infiniopPagedAttentionPrefillDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopPagedAttentionPrefill(
    infiniopPagedAttentionPrefillDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *out,
    const void *q,
    const void *k_cache,
    const void *v_cache,
    const void *block_tables,
    const void *seq_lens,
    const void *cu_seqlens_q,
    const void *alibi_slopes,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyPagedAttentionPrefillDescriptor(infiniopPagedAttentionPrefillDescriptor_t desc);

#endif /* INFINI_OPS_PAGED_ATTENTION_PREFILL_H_ */
