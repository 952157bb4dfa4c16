// Route.h: a kernel that runs natively only for the arguments its family or operator takes and sends the rest
// to the CPU fallback (counted, and an error under INFINI_FALLBACK=error), deciding before anything runs: the
// linear-algebra, nn and attention kernels (Linalg.cpp, NN.cpp, Attention.cpp).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/native/CPUFallback.h>

#include <initializer_list>
#include <optional>
#include <utility>

#include "Fallback.h"
#include "Family.h"
#include "Structured.h"

namespace infini_torch::aten {

// Route<Op, Pred, Native>::call has the exact signature of at::_ops::<Op>; it runs Native(args...) when
// Pred::ok(args...) holds, else the CPU fallback of Op.
template <class Op, class Pred, auto Native, class Sig = typename Op::schema>
struct Route;
template <class Op, class Pred, auto Native, class R, class... A>
struct Route<Op, Pred, Native, R(A...)> {
    static R call(A... a) {
        if (!Pred::ok(a...)) {  // the schema's own argument types (SymInt kept), as the boxed fallback takes them
            return at::native::call_fallback_fn_symint<&cpuFallback, Op>::call(std::forward<A>(a)...);
        }
        return Native(std::forward<A>(a)...);
    }
};

// Predicates over every tensor argument (undefined and absent tensors pass; other arguments are not looked at,
// except complex scalars, which no kernel here takes).
template <bool (*Accept)(at::ScalarType)>
struct AllTensors {
    static bool one(const at::Tensor &t) { return !t.defined() || Accept(t.scalar_type()); }
    static bool one(const std::optional<at::Tensor> &t) { return !t.has_value() || one(*t); }
    static bool one(const at::Scalar &s) { return !s.isComplex(); }
    template <class T>
    static bool one(const T &) {
        return true;
    }
    template <class... A>
    static bool ok(const A &...a) {
        return (one(a) && ...);
    }
};

// True when the backend of `device` implements `family` (one probe call over nothing, once per device and family).
// Where it does not (a backend without kernel families), the kernels here send their ops to the CPU fallback, as
// backend.h promises.
bool familyOn(c10::Device device, infiniopFamily_t family);

// Pred, and family F on the device of the first infini tensor argument.
template <infiniopFamily_t F, class Pred>
struct OnFamily {
    static std::optional<c10::Device> deviceOf(const at::Tensor &t) {
        return t.defined() && isInfini(t) ? std::optional<c10::Device>(t.device()) : std::nullopt;
    }
    static std::optional<c10::Device> deviceOf(const std::optional<at::Tensor> &t) {
        return t.has_value() ? deviceOf(*t) : std::nullopt;
    }
    template <class T>
    static std::optional<c10::Device> deviceOf(const T &) {
        return std::nullopt;
    }
    template <class... A>
    static bool ok(const A &...a) {
        if (!Pred::ok(a...)) return false;
        std::optional<c10::Device> device;
        ((device = device ? device : deviceOf(a)), ...);
        return !device || familyOn(*device, F);
    }
};

// float32, float16, bfloat16: what the gemm and attention kernels take.
inline bool isFloat32Or16(at::ScalarType t) { return t == at::kFloat || t == at::kHalf || t == at::kBFloat16; }
// ... and float64: what the rows, norm and loss families take.
inline bool isRowsFloat(at::ScalarType t) { return isFloat32Or16(t) || t == at::kDouble; }

// Raises torch's message, naming the op, when a defined tensor is not on `device` (a CPU tensor among infini ones).
inline void checkSameDevice(const char *op, c10::Device device, std::initializer_list<const at::Tensor *> tensors) {
    for (const at::Tensor *t : tensors) {
        TORCH_CHECK(!t->defined() || t->device() == device, op, ": Expected all tensors to be on the same device, but ",
                    "found at least two devices, ", device, " and ", t->device(), "!");
    }
}

}  // namespace infini_torch::aten

// A structured op's functional, in-place and out= forms (Structured.h) behind Route with predicate PRED; and a plain
// kernel FN behind it. m, the overload's name ("mm.out"), its at::_ops name (mm_out), PRED, the meta class
// (structured_mm), the impl.
// clang-format off
#define INFINI_ROUTED_FUNCTIONAL(m, NAME, OP, PRED, META, IMPL)                                                       \
    m.impl(NAME, TORCH_FN((::infini_torch::aten::Route<at::_ops::OP, PRED,                                            \
                           &::infini_torch::aten::FunctionalForm<at::meta::META, at::_ops::OP, IMPL>::call>::call)))
#define INFINI_ROUTED_INPLACE(m, NAME, OP, PRED, META, IMPL)                                                          \
    m.impl(NAME, TORCH_FN((::infini_torch::aten::Route<at::_ops::OP, PRED,                                            \
                           &::infini_torch::aten::InplaceForm<at::meta::META, at::_ops::OP, IMPL>::call>::call)))
#define INFINI_ROUTED_OUT(m, NAME, OP, PRED, META, IMPL)                                                              \
    m.impl(NAME, TORCH_FN((::infini_torch::aten::Route<at::_ops::OP, PRED,                                            \
                           &::infini_torch::aten::OutForm<at::meta::META, at::_ops::OP, IMPL>::call>::call)))
// clang-format on
#define INFINI_ROUTED(m, NAME, OP, PRED, FN) \
    m.impl(NAME, TORCH_FN((::infini_torch::aten::Route<at::_ops::OP, PRED, &FN>::call)))
