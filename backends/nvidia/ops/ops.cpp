// ops.cpp: the nvidia backend's operator descriptors: createOp checks the params through the op's
// factory; run() reports a pending data error of the device first, then queues the op.
#include "ops.h"

#include <memory>

namespace infini::nvidia::ops {
namespace {

struct NvOp : InfiniopDescriptor {
    std::shared_ptr<const Launch> launch;
    DeviceError *err;  // the device's error record, looked up once
};

#define INFINI_NVIDIA_FACTORY(E, C) make##C,
constexpr Factory kFactories[INFINIOP_OP_COUNT] = {INFINIOP_FOR_EACH_OP(INFINI_NVIDIA_FACTORY)};
#undef INFINI_NVIDIA_FACTORY
static_assert(sizeof(kFactories) / sizeof(kFactories[0]) == INFINIOP_OP_COUNT, "one factory per operator");

infiniStatus_t runNvOp(InfiniopDescriptor *self, void *workspace, size_t workspace_size, void *const *data,
                       infinirtStream_t stream) {
    auto *op = static_cast<NvOp *>(self);
    if (workspace_size < op->workspace_size) {
        return fail(INFINI_STATUS_INSUFFICIENT_WORKSPACE, "the operator needs %zu bytes of workspace, got %zu",
                    op->workspace_size, workspace_size);
    }
    if (stream == INFINIRT_STREAM_CALLER) stream = nullptr;
    INFINI_RETURN_IF_ERROR(takeDeviceError(op->device_id));  // an earlier launch's bad index
    LaunchArgs args{data, workspace, workspace_size, static_cast<cudaStream_t>(stream), op->err, op->device_id};
    return (*op->launch)(args);
}

void destroyNvOp(InfiniopDescriptor *self) { delete static_cast<NvOp *>(self); }

}  // namespace

infiniStatus_t launched(const char *op) {
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: kernel launch failed: %s", op, cudaGetErrorString(err));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out) {
    if (params->op < 0 || params->op >= INFINIOP_OP_COUNT) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "operator %d is not provided by the nvidia backend", params->op);
    }
    for (int i = 0; i < params->ntensors; ++i) {
        const auto *t = params->tensors[i];
        for (size_t d = 0; t && d < t->ndim; ++d) {
            if (t->strides[d] < 0) return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "tensor %d has a negative stride", i);
        }
    }
    DeviceError *err = deviceErrorSlot(handle->device_id);
    if (err == nullptr) return fail(INFINI_STATUS_INTERNAL_ERROR, "could not map the device error record");
    Made made;
    INFINI_RETURN_IF_ERROR(kFactories[params->op](*params, handle->device_id, &made));
    auto *op = new NvOp();
    op->device = INFINI_DEVICE_NVIDIA;
    op->device_id = handle->device_id;
    op->op = params->op;
    op->workspace_size = made.workspace;
    op->run = runNvOp;
    op->destroy = destroyNvOp;
    op->launch = std::make_shared<const Launch>(std::move(made.launch));
    op->err = err;
    *out = op;
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::nvidia::ops
