/* relu: y = max(x, 0). */
#ifndef INFINI_OPS_RELU_H_
#define INFINI_OPS_RELU_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopReluDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateReluDescriptor(
    infiniopHandle_t handle,
    infiniopReluDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t x_desc);
/* Bytes of workspace infiniopRelu needs. */
INFINI_API infiniStatus_t infiniopGetReluWorkspaceSize(infiniopReluDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopRelu(
    infiniopReluDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *x,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyReluDescriptor(infiniopReluDescriptor_t desc);

#endif /* INFINI_OPS_RELU_H_ */
