/* mul: c = a * b, elementwise; a, b and c have c's shape (broadcast with zero strides). */
#ifndef INFINI_OPS_MUL_H_
#define INFINI_OPS_MUL_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopMulDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateMulDescriptor(
    infiniopHandle_t handle,
    infiniopMulDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t c_desc,
    infiniopTensorDescriptor_t a_desc,
    infiniopTensorDescriptor_t b_desc);
/* Bytes of workspace infiniopMul needs. */
INFINI_API infiniStatus_t infiniopGetMulWorkspaceSize(infiniopMulDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopMul(
    infiniopMulDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *c,
    const void *a,
    const void *b,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyMulDescriptor(infiniopMulDescriptor_t desc);

#endif /* INFINI_OPS_MUL_H_ */
