/* gelu: y = gelu(x); approximate 0: erf form, 1: tanh form. */
#ifndef INFINI_OPS_GELU_H_
#define INFINI_OPS_GELU_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopGeluDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateGeluDescriptor(
    infiniopHandle_t handle,
    infiniopGeluDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t x_desc,
    int approximate);
/* Bytes of workspace infiniopGelu needs. */
INFINI_API infiniStatus_t infiniopGetGeluWorkspaceSize(infiniopGeluDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopGelu(
    infiniopGeluDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *x,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyGeluDescriptor(infiniopGeluDescriptor_t desc);

#endif /* INFINI_OPS_GELU_H_ */
