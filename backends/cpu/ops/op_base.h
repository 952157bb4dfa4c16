// op_base.h: what every operator factory uses: the kernel and factory types, dispatch on a float dtype,
// the layouts and argument checks shared with the other backends, and the factories that createOp
// (op_base.cpp) turns into descriptors.
#pragma once

#include <infini/backend.h>

#include <functional>

#include "../../common/error.h"
#include "../../common/layout.h"
#include "../../common/op_checks.h"
#include "convert.h"
#include "isa.h"

namespace infini::cpu::ops::INFINI_CPU_ISA {

// Dispatches f<T>() on a float dtype, or returns BAD_TENSOR_DTYPE.
template <typename F>
infiniStatus_t dispatchFloat(infiniDtype_t dtype, const char *op, F &&f) {
    switch (dtype) {
        case INFINI_DTYPE_F32: f(float{}); return INFINI_STATUS_SUCCESS;
        case INFINI_DTYPE_F16: f(f16{}); return INFINI_STATUS_SUCCESS;
        case INFINI_DTYPE_BF16: f(bf16{}); return INFINI_STATUS_SUCCESS;
        default:
            return fail(INFINI_STATUS_BAD_TENSOR_DTYPE, "%s: dtype %d is not float32, float16 or bfloat16", op, dtype);
    }
}

// Layouts and their checks: shared with the other backends (common/layout.h).
using ::infini::expectLastContiguous;
using ::infini::expectSameDtype;
using ::infini::expectSameShape;
using ::infini::isIndexType;
using ::infini::Layout;
using ::infini::layoutOf;
namespace checks = ::infini::checks;

// The computation of one op instance, on the data pointers in the order of the op's tensors.
using Kernel = std::function<void(void *const *data)>;

// Each op checks its params and returns its kernel (capturing what it needs by value), or a status.
using OpFactory = infiniStatus_t (*)(const infiniopOpParams_t &p, Kernel *kernel);

// make<CName> for every op of the table (infini/ops/list.h).
#define INFINI_CPU_DECLARE_FACTORY(E, C) infiniStatus_t make##C(const infiniopOpParams_t &p, Kernel *k);
INFINIOP_FOR_EACH_OP(INFINI_CPU_DECLARE_FACTORY)
#undef INFINI_CPU_DECLARE_FACTORY

// The backend's create_op: makes a descriptor whose run() executes the kernel now
// (INFINIRT_STREAM_CALLER) or queues it on a stream of the handle's device.
infiniStatus_t createOp(infiniopHandle_t handle, const infiniopOpParams_t *params, InfiniopDescriptor **out);

}  // namespace infini::cpu::ops::INFINI_CPU_ISA
