/* layer_norm: y = (x - mean) / sqrt(var + epsilon) * w + bias over the last dim (bias may be NULL). */
#ifndef INFINI_OPS_LAYER_NORM_H_
#define INFINI_OPS_LAYER_NORM_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopLayerNormDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateLayerNormDescriptor(
    infiniopHandle_t handle,
    infiniopLayerNormDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t x_desc,
    infiniopTensorDescriptor_t w_desc,
    infiniopTensorDescriptor_t bias_desc,
    float epsilon);
/* Bytes of workspace infiniopLayerNorm needs. */
INFINI_API infiniStatus_t infiniopGetLayerNormWorkspaceSize(infiniopLayerNormDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopLayerNorm(
    infiniopLayerNormDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *x,
    const void *w,
    const void *bias,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyLayerNormDescriptor(infiniopLayerNormDescriptor_t desc);

#endif /* INFINI_OPS_LAYER_NORM_H_ */
