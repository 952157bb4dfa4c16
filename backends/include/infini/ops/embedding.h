/* embedding: y[..., :] = weight[indices[...], :] (int32 or int64 indices). */
#ifndef INFINI_OPS_EMBEDDING_H_
#define INFINI_OPS_EMBEDDING_H_

#include "../infiniop.h"

typedef struct InfiniopDescriptor *infiniopEmbeddingDescriptor_t;

/* Checks the tensors and makes a descriptor for them on the handle's device. */
INFINI_API infiniStatus_t infiniopCreateEmbeddingDescriptor(
    infiniopHandle_t handle,
    infiniopEmbeddingDescriptor_t *desc_ptr,
    infiniopTensorDescriptor_t y_desc,
    infiniopTensorDescriptor_t indices_desc,
    infiniopTensorDescriptor_t weight_desc);
/* Bytes of workspace infiniopEmbedding needs. */
INFINI_API infiniStatus_t infiniopGetEmbeddingWorkspaceSize(infiniopEmbeddingDescriptor_t desc, size_t *size);
/* Queues the op on stream (INFINIRT_STREAM_CALLER on host backends: runs it now). */
INFINI_API infiniStatus_t infiniopEmbedding(
    infiniopEmbeddingDescriptor_t desc,
    void *workspace,
    size_t workspace_size,
    void *y,
    const void *indices,
    const void *weight,
    infinirtStream_t stream);
/* Destroys the descriptor. */
INFINI_API infiniStatus_t infiniopDestroyEmbeddingDescriptor(infiniopEmbeddingDescriptor_t desc);

#endif /* INFINI_OPS_EMBEDDING_H_ */
