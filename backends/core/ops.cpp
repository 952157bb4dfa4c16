// ops.cpp: the typed operator entry points of the C ABI, all forwarded to the generic create_op /
// run of the backend that made the handle (generated from one list of ops; see op_api.h).
#include "op_api.h"

INFINI_API infiniStatus_t infiniopCreateAddDescriptor(infiniopHandle_t handle, infiniopAddDescriptor_t *desc_ptr, infiniopTensorDescriptor_t c_desc, infiniopTensorDescriptor_t a_desc, infiniopTensorDescriptor_t b_desc) {
    return infini::core::createOp("infiniopCreateAddDescriptor", INFINIOP_OP_ADD, handle, desc_ptr, {c_desc, a_desc, b_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetAddWorkspaceSize(infiniopAddDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetAddWorkspaceSize", INFINIOP_OP_ADD, desc, size);
}
INFINI_API infiniStatus_t infiniopAdd(infiniopAddDescriptor_t desc, void *workspace, size_t workspace_size, void *c, const void *a, const void *b, infinirtStream_t stream) {
    return infini::core::runOp("infiniopAdd", INFINIOP_OP_ADD, desc, workspace, workspace_size, {c, a, b}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyAddDescriptor(infiniopAddDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyAddDescriptor", INFINIOP_OP_ADD, desc);
}

INFINI_API infiniStatus_t infiniopCreateMulDescriptor(infiniopHandle_t handle, infiniopMulDescriptor_t *desc_ptr, infiniopTensorDescriptor_t c_desc, infiniopTensorDescriptor_t a_desc, infiniopTensorDescriptor_t b_desc) {
    return infini::core::createOp("infiniopCreateMulDescriptor", INFINIOP_OP_MUL, handle, desc_ptr, {c_desc, a_desc, b_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetMulWorkspaceSize(infiniopMulDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetMulWorkspaceSize", INFINIOP_OP_MUL, desc, size);
}
INFINI_API infiniStatus_t infiniopMul(infiniopMulDescriptor_t desc, void *workspace, size_t workspace_size, void *c, const void *a, const void *b, infinirtStream_t stream) {
    return infini::core::runOp("infiniopMul", INFINIOP_OP_MUL, desc, workspace, workspace_size, {c, a, b}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyMulDescriptor(infiniopMulDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyMulDescriptor", INFINIOP_OP_MUL, desc);
}

INFINI_API infiniStatus_t infiniopCreateSiluDescriptor(infiniopHandle_t handle, infiniopSiluDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc) {
    return infini::core::createOp("infiniopCreateSiluDescriptor", INFINIOP_OP_SILU, handle, desc_ptr, {y_desc, x_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetSiluWorkspaceSize(infiniopSiluDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetSiluWorkspaceSize", INFINIOP_OP_SILU, desc, size);
}
INFINI_API infiniStatus_t infiniopSilu(infiniopSiluDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, infinirtStream_t stream) {
    return infini::core::runOp("infiniopSilu", INFINIOP_OP_SILU, desc, workspace, workspace_size, {y, x}, stream);
}
INFINI_API infiniStatus_t infiniopDestroySiluDescriptor(infiniopSiluDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroySiluDescriptor", INFINIOP_OP_SILU, desc);
}

INFINI_API infiniStatus_t infiniopCreateReluDescriptor(infiniopHandle_t handle, infiniopReluDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc) {
    return infini::core::createOp("infiniopCreateReluDescriptor", INFINIOP_OP_RELU, handle, desc_ptr, {y_desc, x_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetReluWorkspaceSize(infiniopReluDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetReluWorkspaceSize", INFINIOP_OP_RELU, desc, size);
}
INFINI_API infiniStatus_t infiniopRelu(infiniopReluDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, infinirtStream_t stream) {
    return infini::core::runOp("infiniopRelu", INFINIOP_OP_RELU, desc, workspace, workspace_size, {y, x}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyReluDescriptor(infiniopReluDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyReluDescriptor", INFINIOP_OP_RELU, desc);
}

INFINI_API infiniStatus_t infiniopCreateGeluDescriptor(infiniopHandle_t handle, infiniopGeluDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc, int approximate) {
    return infini::core::createOp("infiniopCreateGeluDescriptor", INFINIOP_OP_GELU, handle, desc_ptr, {y_desc, x_desc}, {}, {approximate});
}
INFINI_API infiniStatus_t infiniopGetGeluWorkspaceSize(infiniopGeluDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetGeluWorkspaceSize", INFINIOP_OP_GELU, desc, size);
}
INFINI_API infiniStatus_t infiniopGelu(infiniopGeluDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, infinirtStream_t stream) {
    return infini::core::runOp("infiniopGelu", INFINIOP_OP_GELU, desc, workspace, workspace_size, {y, x}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyGeluDescriptor(infiniopGeluDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyGeluDescriptor", INFINIOP_OP_GELU, desc);
}

INFINI_API infiniStatus_t infiniopCreateSwiGLUDescriptor(infiniopHandle_t handle, infiniopSwiGLUDescriptor_t *desc_ptr, infiniopTensorDescriptor_t c_desc, infiniopTensorDescriptor_t a_desc, infiniopTensorDescriptor_t b_desc) {
    return infini::core::createOp("infiniopCreateSwiGLUDescriptor", INFINIOP_OP_SWIGLU, handle, desc_ptr, {c_desc, a_desc, b_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetSwiGLUWorkspaceSize(infiniopSwiGLUDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetSwiGLUWorkspaceSize", INFINIOP_OP_SWIGLU, desc, size);
}
INFINI_API infiniStatus_t infiniopSwiGLU(infiniopSwiGLUDescriptor_t desc, void *workspace, size_t workspace_size, void *c, const void *a, const void *b, infinirtStream_t stream) {
    return infini::core::runOp("infiniopSwiGLU", INFINIOP_OP_SWIGLU, desc, workspace, workspace_size, {c, a, b}, stream);
}
INFINI_API infiniStatus_t infiniopDestroySwiGLUDescriptor(infiniopSwiGLUDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroySwiGLUDescriptor", INFINIOP_OP_SWIGLU, desc);
}

INFINI_API infiniStatus_t infiniopCreateSiluAndMulDescriptor(infiniopHandle_t handle, infiniopSiluAndMulDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc) {
    return infini::core::createOp("infiniopCreateSiluAndMulDescriptor", INFINIOP_OP_SILU_AND_MUL, handle, desc_ptr, {y_desc, x_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetSiluAndMulWorkspaceSize(infiniopSiluAndMulDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetSiluAndMulWorkspaceSize", INFINIOP_OP_SILU_AND_MUL, desc, size);
}
INFINI_API infiniStatus_t infiniopSiluAndMul(infiniopSiluAndMulDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, infinirtStream_t stream) {
    return infini::core::runOp("infiniopSiluAndMul", INFINIOP_OP_SILU_AND_MUL, desc, workspace, workspace_size, {y, x}, stream);
}
INFINI_API infiniStatus_t infiniopDestroySiluAndMulDescriptor(infiniopSiluAndMulDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroySiluAndMulDescriptor", INFINIOP_OP_SILU_AND_MUL, desc);
}

INFINI_API infiniStatus_t infiniopCreateRMSNormDescriptor(infiniopHandle_t handle, infiniopRMSNormDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc, infiniopTensorDescriptor_t w_desc, float epsilon) {
    return infini::core::createOp("infiniopCreateRMSNormDescriptor", INFINIOP_OP_RMS_NORM, handle, desc_ptr, {y_desc, x_desc, w_desc}, {epsilon}, {});
}
INFINI_API infiniStatus_t infiniopGetRMSNormWorkspaceSize(infiniopRMSNormDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetRMSNormWorkspaceSize", INFINIOP_OP_RMS_NORM, desc, size);
}
INFINI_API infiniStatus_t infiniopRMSNorm(infiniopRMSNormDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, const void *w, infinirtStream_t stream) {
    return infini::core::runOp("infiniopRMSNorm", INFINIOP_OP_RMS_NORM, desc, workspace, workspace_size, {y, x, w}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyRMSNormDescriptor(infiniopRMSNormDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyRMSNormDescriptor", INFINIOP_OP_RMS_NORM, desc);
}

INFINI_API infiniStatus_t infiniopCreateAddRMSNormDescriptor(infiniopHandle_t handle, infiniopAddRMSNormDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t residual_out_desc, infiniopTensorDescriptor_t a_desc, infiniopTensorDescriptor_t b_desc, infiniopTensorDescriptor_t w_desc, float epsilon) {
    return infini::core::createOp("infiniopCreateAddRMSNormDescriptor", INFINIOP_OP_ADD_RMS_NORM, handle, desc_ptr, {y_desc, residual_out_desc, a_desc, b_desc, w_desc}, {epsilon}, {});
}
INFINI_API infiniStatus_t infiniopGetAddRMSNormWorkspaceSize(infiniopAddRMSNormDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetAddRMSNormWorkspaceSize", INFINIOP_OP_ADD_RMS_NORM, desc, size);
}
INFINI_API infiniStatus_t infiniopAddRMSNorm(infiniopAddRMSNormDescriptor_t desc, void *workspace, size_t workspace_size, void *y, void *residual_out, const void *a, const void *b, const void *w, infinirtStream_t stream) {
    return infini::core::runOp("infiniopAddRMSNorm", INFINIOP_OP_ADD_RMS_NORM, desc, workspace, workspace_size, {y, residual_out, a, b, w}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyAddRMSNormDescriptor(infiniopAddRMSNormDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyAddRMSNormDescriptor", INFINIOP_OP_ADD_RMS_NORM, desc);
}

INFINI_API infiniStatus_t infiniopCreateLayerNormDescriptor(infiniopHandle_t handle, infiniopLayerNormDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc, infiniopTensorDescriptor_t w_desc, infiniopTensorDescriptor_t bias_desc, float epsilon) {
    return infini::core::createOp("infiniopCreateLayerNormDescriptor", INFINIOP_OP_LAYER_NORM, handle, desc_ptr, {y_desc, x_desc, w_desc, bias_desc}, {epsilon}, {});
}
INFINI_API infiniStatus_t infiniopGetLayerNormWorkspaceSize(infiniopLayerNormDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetLayerNormWorkspaceSize", INFINIOP_OP_LAYER_NORM, desc, size);
}
INFINI_API infiniStatus_t infiniopLayerNorm(infiniopLayerNormDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, const void *w, const void *bias, infinirtStream_t stream) {
    return infini::core::runOp("infiniopLayerNorm", INFINIOP_OP_LAYER_NORM, desc, workspace, workspace_size, {y, x, w, bias}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyLayerNormDescriptor(infiniopLayerNormDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyLayerNormDescriptor", INFINIOP_OP_LAYER_NORM, desc);
}

INFINI_API infiniStatus_t infiniopCreateSoftmaxDescriptor(infiniopHandle_t handle, infiniopSoftmaxDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc, int dim) {
    return infini::core::createOp("infiniopCreateSoftmaxDescriptor", INFINIOP_OP_SOFTMAX, handle, desc_ptr, {y_desc, x_desc}, {}, {dim});
}
INFINI_API infiniStatus_t infiniopGetSoftmaxWorkspaceSize(infiniopSoftmaxDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetSoftmaxWorkspaceSize", INFINIOP_OP_SOFTMAX, desc, size);
}
INFINI_API infiniStatus_t infiniopSoftmax(infiniopSoftmaxDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, infinirtStream_t stream) {
    return infini::core::runOp("infiniopSoftmax", INFINIOP_OP_SOFTMAX, desc, workspace, workspace_size, {y, x}, stream);
}
INFINI_API infiniStatus_t infiniopDestroySoftmaxDescriptor(infiniopSoftmaxDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroySoftmaxDescriptor", INFINIOP_OP_SOFTMAX, desc);
}

INFINI_API infiniStatus_t infiniopCreateCausalSoftmaxDescriptor(infiniopHandle_t handle, infiniopCausalSoftmaxDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc) {
    return infini::core::createOp("infiniopCreateCausalSoftmaxDescriptor", INFINIOP_OP_CAUSAL_SOFTMAX, handle, desc_ptr, {y_desc, x_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetCausalSoftmaxWorkspaceSize(infiniopCausalSoftmaxDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetCausalSoftmaxWorkspaceSize", INFINIOP_OP_CAUSAL_SOFTMAX, desc, size);
}
INFINI_API infiniStatus_t infiniopCausalSoftmax(infiniopCausalSoftmaxDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, infinirtStream_t stream) {
    return infini::core::runOp("infiniopCausalSoftmax", INFINIOP_OP_CAUSAL_SOFTMAX, desc, workspace, workspace_size, {y, x}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyCausalSoftmaxDescriptor(infiniopCausalSoftmaxDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyCausalSoftmaxDescriptor", INFINIOP_OP_CAUSAL_SOFTMAX, desc);
}

INFINI_API infiniStatus_t infiniopCreateEmbeddingDescriptor(infiniopHandle_t handle, infiniopEmbeddingDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t indices_desc, infiniopTensorDescriptor_t weight_desc) {
    return infini::core::createOp("infiniopCreateEmbeddingDescriptor", INFINIOP_OP_EMBEDDING, handle, desc_ptr, {y_desc, indices_desc, weight_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetEmbeddingWorkspaceSize(infiniopEmbeddingDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetEmbeddingWorkspaceSize", INFINIOP_OP_EMBEDDING, desc, size);
}
INFINI_API infiniStatus_t infiniopEmbedding(infiniopEmbeddingDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *indices, const void *weight, infinirtStream_t stream) {
    return infini::core::runOp("infiniopEmbedding", INFINIOP_OP_EMBEDDING, desc, workspace, workspace_size, {y, indices, weight}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyEmbeddingDescriptor(infiniopEmbeddingDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyEmbeddingDescriptor", INFINIOP_OP_EMBEDDING, desc);
}

INFINI_API infiniStatus_t infiniopCreateRoPEDescriptor(infiniopHandle_t handle, infiniopRoPEDescriptor_t *desc_ptr, infiniopTensorDescriptor_t y_desc, infiniopTensorDescriptor_t x_desc, infiniopTensorDescriptor_t pos_ids_desc, infiniopTensorDescriptor_t sin_table_desc, infiniopTensorDescriptor_t cos_table_desc, int algo) {
    return infini::core::createOp("infiniopCreateRoPEDescriptor", INFINIOP_OP_ROPE, handle, desc_ptr, {y_desc, x_desc, pos_ids_desc, sin_table_desc, cos_table_desc}, {}, {algo});
}
INFINI_API infiniStatus_t infiniopGetRoPEWorkspaceSize(infiniopRoPEDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetRoPEWorkspaceSize", INFINIOP_OP_ROPE, desc, size);
}
INFINI_API infiniStatus_t infiniopRoPE(infiniopRoPEDescriptor_t desc, void *workspace, size_t workspace_size, void *y, const void *x, const void *pos_ids, const void *sin_table, const void *cos_table, infinirtStream_t stream) {
    return infini::core::runOp("infiniopRoPE", INFINIOP_OP_ROPE, desc, workspace, workspace_size, {y, x, pos_ids, sin_table, cos_table}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyRoPEDescriptor(infiniopRoPEDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyRoPEDescriptor", INFINIOP_OP_ROPE, desc);
}
INFINI_API infiniStatus_t infiniopCreateTopkSoftmaxDescriptor(infiniopHandle_t handle, infiniopTopkSoftmaxDescriptor_t *desc_ptr, infiniopTensorDescriptor_t weights_desc, infiniopTensorDescriptor_t indices_desc, infiniopTensorDescriptor_t logits_desc, int k, int renormalize) {
    return infini::core::createOp("infiniopCreateTopkSoftmaxDescriptor", INFINIOP_OP_TOPK_SOFTMAX, handle, desc_ptr, {weights_desc, indices_desc, logits_desc}, {}, {k, renormalize});
}
INFINI_API infiniStatus_t infiniopGetTopkSoftmaxWorkspaceSize(infiniopTopkSoftmaxDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetTopkSoftmaxWorkspaceSize", INFINIOP_OP_TOPK_SOFTMAX, desc, size);
}
INFINI_API infiniStatus_t infiniopTopkSoftmax(infiniopTopkSoftmaxDescriptor_t desc, void *workspace, size_t workspace_size, void *weights, void *indices, const void *logits, infinirtStream_t stream) {
    return infini::core::runOp("infiniopTopkSoftmax", INFINIOP_OP_TOPK_SOFTMAX, desc, workspace, workspace_size, {weights, indices, logits}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyTopkSoftmaxDescriptor(infiniopTopkSoftmaxDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyTopkSoftmaxDescriptor", INFINIOP_OP_TOPK_SOFTMAX, desc);
}

INFINI_API infiniStatus_t infiniopCreateRandomSampleDescriptor(infiniopHandle_t handle, infiniopRandomSampleDescriptor_t *desc_ptr, infiniopTensorDescriptor_t result_desc, infiniopTensorDescriptor_t logits_desc, infiniopTensorDescriptor_t random_val_desc, float topp, int topk, float temperature) {
    return infini::core::createOp("infiniopCreateRandomSampleDescriptor", INFINIOP_OP_RANDOM_SAMPLE, handle, desc_ptr, {result_desc, logits_desc, random_val_desc}, {topp, temperature}, {topk});
}
INFINI_API infiniStatus_t infiniopGetRandomSampleWorkspaceSize(infiniopRandomSampleDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetRandomSampleWorkspaceSize", INFINIOP_OP_RANDOM_SAMPLE, desc, size);
}
INFINI_API infiniStatus_t infiniopRandomSample(infiniopRandomSampleDescriptor_t desc, void *workspace, size_t workspace_size, void *result, const void *logits, const void *random_val, infinirtStream_t stream) {
    return infini::core::runOp("infiniopRandomSample", INFINIOP_OP_RANDOM_SAMPLE, desc, workspace, workspace_size, {result, logits, random_val}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyRandomSampleDescriptor(infiniopRandomSampleDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyRandomSampleDescriptor", INFINIOP_OP_RANDOM_SAMPLE, desc);
}

INFINI_API infiniStatus_t infiniopCreatePagedCachingDescriptor(infiniopHandle_t handle, infiniopPagedCachingDescriptor_t *desc_ptr, infiniopTensorDescriptor_t k_cache_desc, infiniopTensorDescriptor_t v_cache_desc, infiniopTensorDescriptor_t k_desc, infiniopTensorDescriptor_t v_desc, infiniopTensorDescriptor_t slot_mapping_desc) {
    return infini::core::createOp("infiniopCreatePagedCachingDescriptor", INFINIOP_OP_PAGED_CACHING, handle, desc_ptr, {k_cache_desc, v_cache_desc, k_desc, v_desc, slot_mapping_desc}, {}, {});
}
INFINI_API infiniStatus_t infiniopGetPagedCachingWorkspaceSize(infiniopPagedCachingDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetPagedCachingWorkspaceSize", INFINIOP_OP_PAGED_CACHING, desc, size);
}
INFINI_API infiniStatus_t infiniopPagedCaching(infiniopPagedCachingDescriptor_t desc, void *workspace, size_t workspace_size, void *k_cache, void *v_cache, const void *k, const void *v, const void *slot_mapping, infinirtStream_t stream) {
    return infini::core::runOp("infiniopPagedCaching", INFINIOP_OP_PAGED_CACHING, desc, workspace, workspace_size, {k_cache, v_cache, k, v, slot_mapping}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyPagedCachingDescriptor(infiniopPagedCachingDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyPagedCachingDescriptor", INFINIOP_OP_PAGED_CACHING, desc);
}

INFINI_API infiniStatus_t infiniopCreateGemmDescriptor(infiniopHandle_t handle, infiniopGemmDescriptor_t *desc_ptr, infiniopTensorDescriptor_t c_desc, infiniopTensorDescriptor_t a_desc, infiniopTensorDescriptor_t b_desc, infiniopTensorDescriptor_t c_in_desc, float alpha, float beta) {
    return infini::core::createOp("infiniopCreateGemmDescriptor", INFINIOP_OP_GEMM, handle, desc_ptr, {c_desc, a_desc, b_desc, c_in_desc}, {alpha, beta}, {});
}
INFINI_API infiniStatus_t infiniopGetGemmWorkspaceSize(infiniopGemmDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetGemmWorkspaceSize", INFINIOP_OP_GEMM, desc, size);
}
INFINI_API infiniStatus_t infiniopGemm(infiniopGemmDescriptor_t desc, void *workspace, size_t workspace_size, void *c, const void *a, const void *b, const void *c_in, infinirtStream_t stream) {
    return infini::core::runOp("infiniopGemm", INFINIOP_OP_GEMM, desc, workspace, workspace_size, {c, a, b, c_in}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyGemmDescriptor(infiniopGemmDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyGemmDescriptor", INFINIOP_OP_GEMM, desc);
}

INFINI_API infiniStatus_t infiniopCreateAttentionDescriptor(infiniopHandle_t handle, infiniopAttentionDescriptor_t *desc_ptr, infiniopTensorDescriptor_t out_desc, infiniopTensorDescriptor_t k_cache_desc, infiniopTensorDescriptor_t v_cache_desc, infiniopTensorDescriptor_t q_desc, infiniopTensorDescriptor_t k_desc, infiniopTensorDescriptor_t v_desc, int pos) {
    return infini::core::createOp("infiniopCreateAttentionDescriptor", INFINIOP_OP_ATTENTION, handle, desc_ptr, {out_desc, k_cache_desc, v_cache_desc, q_desc, k_desc, v_desc}, {}, {pos});
}
INFINI_API infiniStatus_t infiniopGetAttentionWorkspaceSize(infiniopAttentionDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetAttentionWorkspaceSize", INFINIOP_OP_ATTENTION, desc, size);
}
INFINI_API infiniStatus_t infiniopAttention(infiniopAttentionDescriptor_t desc, void *workspace, size_t workspace_size, void *out, void *k_cache, void *v_cache, const void *q, const void *k, const void *v, infinirtStream_t stream) {
    return infini::core::runOp("infiniopAttention", INFINIOP_OP_ATTENTION, desc, workspace, workspace_size, {out, k_cache, v_cache, q, k, v}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyAttentionDescriptor(infiniopAttentionDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyAttentionDescriptor", INFINIOP_OP_ATTENTION, desc);
}

INFINI_API infiniStatus_t infiniopCreatePagedAttentionDescriptor(infiniopHandle_t handle, infiniopPagedAttentionDescriptor_t *desc_ptr, infiniopTensorDescriptor_t out_desc, infiniopTensorDescriptor_t q_desc, infiniopTensorDescriptor_t k_cache_desc, infiniopTensorDescriptor_t v_cache_desc, infiniopTensorDescriptor_t block_tables_desc, infiniopTensorDescriptor_t seq_lens_desc, infiniopTensorDescriptor_t alibi_slopes_desc, float scale) {
    return infini::core::createOp("infiniopCreatePagedAttentionDescriptor", INFINIOP_OP_PAGED_ATTENTION, handle, desc_ptr, {out_desc, q_desc, k_cache_desc, v_cache_desc, block_tables_desc, seq_lens_desc, alibi_slopes_desc}, {scale}, {});
}
INFINI_API infiniStatus_t infiniopGetPagedAttentionWorkspaceSize(infiniopPagedAttentionDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetPagedAttentionWorkspaceSize", INFINIOP_OP_PAGED_ATTENTION, desc, size);
}
INFINI_API infiniStatus_t infiniopPagedAttention(infiniopPagedAttentionDescriptor_t desc, void *workspace, size_t workspace_size, void *out, const void *q, const void *k_cache, const void *v_cache, const void *block_tables, const void *seq_lens, const void *alibi_slopes, infinirtStream_t stream) {
    return infini::core::runOp("infiniopPagedAttention", INFINIOP_OP_PAGED_ATTENTION, desc, workspace, workspace_size, {out, q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyPagedAttentionDescriptor(infiniopPagedAttentionDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyPagedAttentionDescriptor", INFINIOP_OP_PAGED_ATTENTION, desc);
}

INFINI_API infiniStatus_t infiniopCreatePagedAttentionPrefillDescriptor(infiniopHandle_t handle, infiniopPagedAttentionPrefillDescriptor_t *desc_ptr, infiniopTensorDescriptor_t out_desc, infiniopTensorDescriptor_t q_desc, infiniopTensorDescriptor_t k_cache_desc, infiniopTensorDescriptor_t v_cache_desc, infiniopTensorDescriptor_t block_tables_desc, infiniopTensorDescriptor_t seq_lens_desc, infiniopTensorDescriptor_t cu_seqlens_q_desc, infiniopTensorDescriptor_t alibi_slopes_desc, float scale) {
    return infini::core::createOp("infiniopCreatePagedAttentionPrefillDescriptor", INFINIOP_OP_PAGED_ATTENTION_PREFILL, handle, desc_ptr, {out_desc, q_desc, k_cache_desc, v_cache_desc, block_tables_desc, seq_lens_desc, cu_seqlens_q_desc, alibi_slopes_desc}, {scale}, {});
}
INFINI_API infiniStatus_t infiniopGetPagedAttentionPrefillWorkspaceSize(infiniopPagedAttentionPrefillDescriptor_t desc, size_t *size) {
    return infini::core::opWorkspaceSize("infiniopGetPagedAttentionPrefillWorkspaceSize", INFINIOP_OP_PAGED_ATTENTION_PREFILL, desc, size);
}
INFINI_API infiniStatus_t infiniopPagedAttentionPrefill(infiniopPagedAttentionPrefillDescriptor_t desc, void *workspace, size_t workspace_size, void *out, const void *q, const void *k_cache, const void *v_cache, const void *block_tables, const void *seq_lens, const void *cu_seqlens_q, const void *alibi_slopes, infinirtStream_t stream) {
    return infini::core::runOp("infiniopPagedAttentionPrefill", INFINIOP_OP_PAGED_ATTENTION_PREFILL, desc, workspace, workspace_size, {out, q, k_cache, v_cache, block_tables, seq_lens, cu_seqlens_q, alibi_slopes}, stream);
}
INFINI_API infiniStatus_t infiniopDestroyPagedAttentionPrefillDescriptor(infiniopPagedAttentionPrefillDescriptor_t desc) {
    return infini::core::destroyOp("infiniopDestroyPagedAttentionPrefillDescriptor", INFINIOP_OP_PAGED_ATTENTION_PREFILL, desc);
}

