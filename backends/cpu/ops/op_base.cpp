// op_base.cpp: createOp, the cpu descriptor: its run() calls the op's kernel at once or queues it on a stream.
#include "op_base.h"

#include <algorithm>
#include <array>
#include <exception>
#include <memory>

#include "../runtime.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

namespace {

struct CpuOp : InfiniopDescriptor {
    std::shared_ptr<const Kernel> kernel;  // shared with queued launches, so destroy never races them
    int ndata = 0;
};

infiniStatus_t runCpuOp(InfiniopDescriptor *self, void *, size_t, void *const *data, infinirtStream_t stream) {
    auto *op = static_cast<CpuOp *>(self);
    if (stream == INFINIRT_STREAM_CALLER) {
        try {
            (*op->kernel)(data);
        } catch (const std::exception &e) {  // a check that needs the data (an index out of range)
            return fail(INFINI_STATUS_BAD_PARAM, "%s", e.what());
        }
        return INFINI_STATUS_SUCCESS;
    }
    std::shared_ptr<Stream> s;
    INFINI_RETURN_IF_ERROR(Runtime::get().findStream(stream, &s));
    std::array<void *, INFINIOP_MAX_TENSORS> ptrs{};
    std::copy(data, data + op->ndata, ptrs.begin());
    s->enqueue([kernel = op->kernel, ptrs] { (*kernel)(ptrs.data()); });
    return INFINI_STATUS_SUCCESS;
}

void destroyCpuOp(InfiniopDescriptor *self) { delete static_cast<CpuOp *>(self); }

#define INFINI_CPU_FACTORY(E, C) make##C,
const OpFactory kFactories[INFINIOP_OP_COUNT] = {INFINIOP_FOR_EACH_OP(INFINI_CPU_FACTORY)};
#undef INFINI_CPU_FACTORY
static_assert(sizeof(kFactories) / sizeof(kFactories[0]) == INFINIOP_OP_COUNT, "one factory per operator");

}  // namespace

infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out) {
    if (params->op < 0 || params->op >= INFINIOP_OP_COUNT) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "operator %d is not provided by the cpu backend", params->op);
    }
    for (int i = 0; i < params->ntensors; ++i) {
        const auto *t = params->tensors[i];
        for (size_t d = 0; t && d < t->ndim; ++d) {
            if (t->strides[d] < 0) {
                return fail(INFINI_STATUS_BAD_TENSOR_STRIDES, "tensor %d has a negative stride", i);
            }
        }
    }
    Kernel kernel;
    INFINI_RETURN_IF_ERROR(kFactories[params->op](*params, &kernel));
    auto *op = new CpuOp();
    op->device = INFINI_DEVICE_CPU;
    op->device_id = handle->device_id;
    op->op = params->op;
    op->workspace_size = 0;
    op->run = runCpuOp;
    op->destroy = destroyCpuOp;
    op->kernel = std::make_shared<const Kernel>(std::move(kernel));
    op->ndata = params->ntensors;
    *out = op;
    return INFINI_STATUS_SUCCESS;
}

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
