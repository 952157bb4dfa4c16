/* rms_norm: y = x / sqrt(mean(x^2, last dim) + epsilon) * w. */
#ifndef INFINI_OPS_RMS_NORM_H_
#define INFINI_OPS_RMS_NORM_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopRMSNormDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateRMSNormDescriptor(
    infiniopHandle_t handle,
    infiniopRMSNormDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t x_desc,
    infiniopTensorDescriptor_t w_desc,
    float epsilon);
/* Bytes of workspace infiniopRMSNorm needs. */
INFINI_API infiniStatus_t infiniopGetRMSNormWorkspaceSize(infiniopRMSNormDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopRMSNorm(
    infiniopRMSNormDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *x,
    const void *w,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyRMSNormDescriptor(infiniopRMSNormDescriptor_t desc);

#endif /* INFINI_OPS_RMS_NORM_H_ */
