/* random_sample: top-k/top-p sampling of logits [vocab] or [batch, vocab] with random_val (float32 [batch] or []) as in OPS.md; result int64. */
#ifndef INFINI_OPS_RANDOM_SAMPLE_H_
#define INFINI_OPS_RANDOM_SAMPLE_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopRandomSampleDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateRandomSampleDescriptor(
    infiniopHandle_t handle,
    infiniopRandomSampleDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t result_desc,
    infiniopTensorDescriptor_t logits_desc,
    infiniopTensorDescriptor_t random_val_desc,
    float topp,
    int topk,
    float temperature);
/* Bytes of workspace infiniopRandomSample needs. */
INFINI_API infiniStatus_t infiniopGetRandomSampleWorkspaceSize(infiniopRandomSampleDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopRandomSample(
    infiniopRandomSampleDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *result,
    const void *logits,
    const void *random_val,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyRandomSampleDescriptor(infiniopRandomSampleDescriptor_t desc);

#endif /* INFINI_OPS_RANDOM_SAMPLE_H_ */
