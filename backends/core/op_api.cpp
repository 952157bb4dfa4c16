#include "op_api.h"

#include <string>

#include "../common/error.h"
#include "live_set.h"
#include "loader.h"

namespace infini::core {
namespace {

LiveSet<InfiniopDescriptor *> &liveDescriptors() {
    static auto *s = new LiveSet<InfiniopDescriptor *>();
    return *s;
}

// A live descriptor made for op, or an error status.
infiniStatus_t checkDescriptor(const char *api, infiniopOp_t op, InfiniopDescriptor *desc) {
    if (desc == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "%s: desc is NULL", api);
    if (!liveDescriptors().contains(desc)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "%s: %p is not a live operator descriptor", api, (void *)desc);
    }
    if (desc->op != op) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the descriptor was made for another operator", api);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t backendFailure(const char *api, int device, infiniStatus_t status) {
    const infiniBackend_t *b = backendFor(device);
    lastErrorMessage() = std::string(api) + ": " + (b ? b->last_error_message() : "unknown backend");
    return status;
}

}  // namespace

infiniStatus_t createFromParams(const char *api, infiniopHandle_t handle, const infiniopOpParams_t &params,
                                InfiniopDescriptor **desc_ptr) {
    INFINI_CHECK_NOT_NULL(api, handle);
    INFINI_CHECK_NOT_NULL(api, desc_ptr);
    if (!liveHandles().contains(handle)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "%s: %p is not a live handle", api, (void *)handle);
    }
    if (params.op < 0 || params.op >= INFINIOP_OP_COUNT) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d is not an operator", api, static_cast<int>(params.op));
    }
    if (params.ntensors < 0 || params.ntensors > INFINIOP_MAX_TENSORS) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d tensors (at most %d)", api, params.ntensors, INFINIOP_MAX_TENSORS);
    }
    for (int k = 0; k < params.ntensors; ++k) {
        infiniopTensorDescriptor_t t = params.tensors[k];
        if (t != nullptr && !liveTensorDescriptors().contains(t)) {
            return fail(INFINI_STATUS_INVALID_HANDLE, "%s: tensor descriptor %d (%p) is not live", api, k, (void *)t);
        }
    }
    const infiniBackend_t *b = backendFor(handle->device);
    if (b->create_op == nullptr) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: the %s backend provides no operators", api, b->name);
    }
    InfiniopDescriptor *desc = nullptr;
    if (infiniStatus_t s = b->create_op(handle, &params, &desc); s != INFINI_STATUS_SUCCESS) {
        return backendFailure(api, handle->device, s);
    }
    liveDescriptors().add(desc);
    *desc_ptr = desc;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t createOp(const char *api, infiniopOp_t op, infiniopHandle_t handle, InfiniopDescriptor **desc_ptr,
                        std::initializer_list<infiniopTensorDescriptor_t> tensors, std::initializer_list<double> f,
                        std::initializer_list<int64_t> i) {
    infiniopOpParams_t params{};
    params.op = op;
    for (infiniopTensorDescriptor_t t : tensors) params.tensors[params.ntensors++] = t;
    int k = 0;
    for (double v : f) params.f[k++] = v;
    k = 0;
    for (int64_t v : i) params.i[k++] = v;
    return createFromParams(api, handle, params, desc_ptr);
}

infiniStatus_t opWorkspaceSize(const char *api, infiniopOp_t op, InfiniopDescriptor *desc, size_t *size) {
    INFINI_RETURN_IF_ERROR(checkDescriptor(api, op, desc));
    INFINI_CHECK_NOT_NULL(api, size);
    *size = desc->workspace_size;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t runData(const char *api, InfiniopDescriptor *desc, void *workspace, size_t workspace_size,
                       void *const *data, infinirtStream_t stream) {
    if (workspace_size < desc->workspace_size) {
        return fail(INFINI_STATUS_INSUFFICIENT_WORKSPACE, "%s: workspace of %zu bytes, the op needs %zu", api,
                    workspace_size, desc->workspace_size);
    }
    if (infiniStatus_t s = desc->run(desc, workspace, workspace_size, data, stream); s != INFINI_STATUS_SUCCESS) {
        return backendFailure(api, desc->device, s);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t runOp(const char *api, infiniopOp_t op, InfiniopDescriptor *desc, void *workspace, size_t workspace_size,
                     std::initializer_list<const void *> data, infinirtStream_t stream) {
    INFINI_RETURN_IF_ERROR(checkDescriptor(api, op, desc));
    void *ptrs[INFINIOP_MAX_TENSORS] = {};
    int n = 0;
    for (const void *p : data) ptrs[n++] = const_cast<void *>(p);
    return runData(api, desc, workspace, workspace_size, ptrs, stream);
}

infiniStatus_t destroyOp(const char *api, infiniopOp_t op, InfiniopDescriptor *desc) {
    INFINI_RETURN_IF_ERROR(checkDescriptor(api, op, desc));
    liveDescriptors().remove(desc);
    desc->destroy(desc);
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::core

using namespace infini::core;
using infini::fail;

INFINI_API infiniStatus_t infiniopCreateOperator(infiniopHandle_t handle, const infiniopOpParams_t *params,
                                                 InfiniopDescriptor **desc_ptr) {
    INFINI_CHECK_NOT_NULL("infiniopCreateOperator", params);
    return createFromParams("infiniopCreateOperator", handle, *params, desc_ptr);
}

INFINI_API infiniStatus_t infiniopRunOperator(InfiniopDescriptor *desc, void *workspace, size_t workspace_size,
                                              void *const *data, infinirtStream_t stream) {
    INFINI_CHECK_NOT_NULL("infiniopRunOperator", desc);
    if (!liveDescriptors().contains(desc)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "infiniopRunOperator: %p is not a live operator descriptor",
                    (void *)desc);
    }
    INFINI_CHECK_NOT_NULL("infiniopRunOperator", data);
    return runData("infiniopRunOperator", desc, workspace, workspace_size, data, stream);
}

INFINI_API infiniStatus_t infiniopGetOperatorWorkspaceSize(InfiniopDescriptor *desc, size_t *size) {
    INFINI_CHECK_NOT_NULL("infiniopGetOperatorWorkspaceSize", desc);
    INFINI_CHECK_NOT_NULL("infiniopGetOperatorWorkspaceSize", size);
    if (!liveDescriptors().contains(desc)) {
        return fail(INFINI_STATUS_INVALID_HANDLE,
                    "infiniopGetOperatorWorkspaceSize: %p is not a live operator descriptor", (void *)desc);
    }
    *size = desc->workspace_size;
    return INFINI_STATUS_SUCCESS;
}

INFINI_API infiniStatus_t infiniopDestroyOperator(InfiniopDescriptor *desc) {
    INFINI_CHECK_NOT_NULL("infiniopDestroyOperator", desc);
    if (!liveDescriptors().remove(desc)) {
        return fail(INFINI_STATUS_INVALID_HANDLE, "infiniopDestroyOperator: %p is not a live operator descriptor",
                    (void *)desc);
    }
    desc->destroy(desc);
    return INFINI_STATUS_SUCCESS;
}
