// Family.h: what every aten kernel of the infini device shares: the handle and stream of a device, dtype
// mapping, the conversion of a TensorIterator (or a tensor) into the families' operands (families.h), and the
// call that queues a family and turns a failure into an exception naming the aten op.
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>

#include <infini/infiniop.h>

namespace infini_torch::aten {

// The infini dtype of a torch dtype, or INFINI_DTYPE_INVALID where the families have none (complex, uint16..64,
// float8, quantized types).
infiniDtype_t familyDtype(at::ScalarType t);
// True when every family kernel takes t.
inline bool isFamilyDtype(at::ScalarType t) { return familyDtype(t) != INFINI_DTYPE_INVALID; }

// The compute dtype of a family for values of torch dtype t: F32 for 16/32-bit floats, F64 for double, I64 for
// integers and bool.
infiniDtype_t computeDtype(at::ScalarType t);

// The handle of an infini device (made once per device, kept for the process) and its current stream.
infiniopHandle_t handleOf(c10::Device device);
infinirtStream_t streamOf(c10::Device device);

// The families' view of a TensorIterator: shape, per-operand element strides, dtypes and data. A CPU scalar
// operand (a wrapped number) gets data NULL; its value is read with `scalarOf`. Raises when the iterator has more
// dims than INFINIOP_MAX_DIMS (after coalescing: a rare non-mergeable layout); callers check `fitsFamilies`.
infiniopIter_t iterOf(const at::TensorIteratorBase &iter);
bool fitsFamilies(const at::TensorIteratorBase &iter);

// An iteration space over tensors of one shape, without coalescing (dims in tensor order reversed: iter dim 0 is
// the tensors' last dim, as TensorIterator orders them). Tensors must share sizes.
infiniopIter_t iterOfTensors(std::initializer_list<const at::Tensor *> tensors);

// A tensor operand (dims in the tensor's own order).
infiniopTensor_t tensorOf(const at::Tensor &t);

// The sdpa family's operands of a forward call (q / k / v [b, h, l, d] with stride 1 along d; mask defined or not;
// causal aligned to the bottom right); the caller sets out and, for a backward, the gradients.
infiniopSdpaArgs_t sdpaArgsOf(const at::Tensor &q, const at::Tensor &k, const at::Tensor &v, const at::Tensor &mask,
                              bool causal, double scale);

// Throws a RuntimeError "<op>: <the library's message>" for a failing status.
[[noreturn]] void raiseFamily(const char *op, infiniStatus_t status);

// Status of a queued family call; NOT_IMPLEMENTED is returned (the caller falls back), everything else that
// failed raises.
template <typename Args>
infiniStatus_t callFamily(const char *op, infiniStatus_t (*fn)(infiniopHandle_t, const Args *, infinirtStream_t),
                          c10::Device device, const Args &args) {
    const c10::DeviceGuard guard(device);  // a default stream is the current device's: make it the operands'
    infiniStatus_t s = fn(handleOf(device), &args, streamOf(device));
    if (C10_UNLIKELY(s != INFINI_STATUS_SUCCESS && s != INFINI_STATUS_NOT_IMPLEMENTED)) raiseFamily(op, s);
    return s;
}

// As callFamily, raising for NOT_IMPLEMENTED too (for kernels with no fallback path).
template <typename Args>
void runFamily(const char *op, infiniStatus_t (*fn)(infiniopHandle_t, const Args *, infinirtStream_t),
               c10::Device device, const Args &args) {
    const c10::DeviceGuard guard(device);  // a default stream is the current device's: make it the operands'
    infiniStatus_t s = fn(handleOf(device), &args, streamOf(device));
    if (C10_UNLIKELY(s != INFINI_STATUS_SUCCESS)) raiseFamily(op, s);
}

// True for a tensor of the infini device.
inline bool isInfini(const at::Tensor &t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

}  // namespace infini_torch::aten
