/* causal_softmax: softmax over the last dim of x [..., q, kv], masking (i, j) where j > i + kv - q. */
#ifndef INFINI_OPS_CAUSAL_SOFTMAX_H_
#define INFINI_OPS_CAUSAL_SOFTMAX_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopCausalSoftmaxDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateCausalSoftmaxDescriptor(
    infiniopHandle_t handle,
    infiniopCausalSoftmaxDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t x_desc);
/* Bytes of workspace infiniopCausalSoftmax needs. */
INFINI_API infiniStatus_t infiniopGetCausalSoftmaxWorkspaceSize(infiniopCausalSoftmaxDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopCausalSoftmax(
    infiniopCausalSoftmaxDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *x,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyCausalSoftmaxDescriptor(infiniopCausalSoftmaxDescriptor_t desc);

#endif /* INFINI_OPS_CAUSAL_SOFTMAX_H_ */
