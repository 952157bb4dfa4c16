/* topk_softmax: MoE routing: softmax of logits [tokens, experts] (float32 weights), top k per row (ties: lower index first), optionally renormalized; indices int64. */
#ifndef INFINI_OPS_TOPK_SOFTMAX_H_
#define INFINI_OPS_TOPK_SOFTMAX_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopTopkSoftmaxDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateTopkSoftmaxDescriptor(
    infiniopHandle_t handle,
    infiniopTopkSoftmaxDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t weights_desc,
    infiniopTensorDescriptor_t indices_desc,
    infiniopTensorDescriptor_t logits_desc,
    int k,
    int renormalize);
/* Bytes of workspace infiniopTopkSoftmax needs. */
INFINI_API infiniStatus_t infiniopGetTopkSoftmaxWorkspaceSize(infiniopTopkSoftmaxDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopTopkSoftmax(
    infiniopTopkSoftmaxDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *weights,
    void *indices,
    const void *logits,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyTopkSoftmaxDescriptor(infiniopTopkSoftmaxDescriptor_t desc);

#endif /* INFINI_OPS_TOPK_SOFTMAX_H_ */
