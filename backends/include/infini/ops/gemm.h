/* gemm: c = alpha * a @ b + beta * c_in (c_in may be NULL); 2-D, or batched 3-D. */
#ifndef INFINI_OPS_GEMM_H_
#define INFINI_OPS_GEMM_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopGemmDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateGemmDescriptor(
    infiniopHandle_t handle,
    infiniopGemmDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t c_desc,
    infiniopTensorDescriptor_t a_desc,
    infiniopTensorDescriptor_t b_desc,
    infiniopTensorDescriptor_t c_in_desc,
    float alpha,
    float beta);
/* Bytes of workspace infiniopGemm needs. */
INFINI_API infiniStatus_t infiniopGetGemmWorkspaceSize(infiniopGemmDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopGemm(
    infiniopGemmDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *c,
    const void *a,
    const void *b,
    const void *c_in,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyGemmDescriptor(infiniopGemmDescriptor_t desc);

#endif /* INFINI_OPS_GEMM_H_ */
