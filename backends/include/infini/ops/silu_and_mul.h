/* silu_and_mul: y = silu(x[..., :d]) * x[..., d:], d = x's last dim / 2. */
#ifndef INFINI_OPS_SILU_AND_MUL_H_
#define INFINI_OPS_SILU_AND_MUL_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopSiluAndMulDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateSiluAndMulDescriptor(
    infiniopHandle_t handle,
    infiniopSiluAndMulDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t x_desc);
/* Bytes of workspace infiniopSiluAndMul needs. */
INFINI_API infiniStatus_t infiniopGetSiluAndMulWorkspaceSize(infiniopSiluAndMulDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopSiluAndMul(
    infiniopSiluAndMulDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *x,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroySiluAndMulDescriptor(infiniopSiluAndMulDescriptor_t desc);

#endif /* INFINI_OPS_SILU_AND_MUL_H_ */
