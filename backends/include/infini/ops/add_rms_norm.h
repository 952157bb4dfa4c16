/* add_rms_norm: residual_out = a + b; y = rms_norm(residual_out, w, epsilon). */
#ifndef INFINI_OPS_ADD_RMS_NORM_H_
#define INFINI_OPS_ADD_RMS_NORM_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopAddRMSNormDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateAddRMSNormDescriptor(
    infiniopHandle_t handle,
    infiniopAddRMSNormDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t residual_out_desc,
    infiniopTensorDescriptor_t a_desc,
    infiniopTensorDescriptor_t b_desc,
    infiniopTensorDescriptor_t w_desc,
    float epsilon);
/* Bytes of workspace infiniopAddRMSNorm needs. */
INFINI_API infiniStatus_t infiniopGetAddRMSNormWorkspaceSize(infiniopAddRMSNormDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopAddRMSNorm(
    infiniopAddRMSNormDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    void *residual_out,
    const void *a,
    const void *b,
    const void *w,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyAddRMSNormDescriptor(infiniopAddRMSNormDescriptor_t desc);

#endif /* INFINI_OPS_ADD_RMS_NORM_H_ */
