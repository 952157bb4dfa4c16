/* silu: y = x * sigmoid(x). */
#ifndef INFINI_OPS_SILU_H_
#define INFINI_OPS_SILU_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopSiluDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateSiluDescriptor(
    infiniopHandle_t handle,
    infiniopSiluDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t x_desc);
/* Bytes of workspace infiniopSilu needs. */
INFINI_API infiniStatus_t infiniopGetSiluWorkspaceSize(infiniopSiluDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopSilu(
    infiniopSiluDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *x,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroySiluDescriptor(infiniopSiluDescriptor_t desc);

#endif /* INFINI_OPS_SILU_H_ */
