// Reduce.h: what the reduction, scan and sort glue (Reduce.cpp, Scan.cpp, Sort.cpp) share: the input a family
// reads for a computation in a given dtype, and the structured forms of ops with two outputs (values and
// indices).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>

#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "Structured.h"

namespace infini_torch::aten {

// The tensor a family kernel reads where torch computes on self.to(dtype): self itself where the kernel's
// conversion on load gives the same values (a float32 / float64 / int64 computation: a widening, or a rounding
// the load does alike), else the converted copy (16-bit floats, narrow integers and bool round or wrap each
// element first).
at::Tensor familyInput(const at::Tensor &self, at::ScalarType dtype);

namespace detail {

// The device of the first tensor argument (as torchgen's wrappers guard it).
inline std::optional<c10::Device> deviceOf() { return std::nullopt; }
template <class T, class... R>
std::optional<c10::Device> deviceOf(const T &first, const R &...rest) {
    if constexpr (std::is_same_v<std::decay_t<T>, at::Tensor>) {
        if (first.defined()) return first.device();
    }
    return deviceOf(rest...);
}

}  // namespace detail

// The functional form of a structured op with two outputs.
template <class Meta, class Op, auto Impl, class Sig = typename Op::schema>
struct FunctionalForm2;
template <class Meta, class Op, auto Impl, class... A>
struct FunctionalForm2<Meta, Op, Impl, std::tuple<at::Tensor, at::Tensor>(A...)> {
    using R = std::tuple<at::Tensor, at::Tensor>;
    static R call(A... a) {
        if (!detail::familyArgs(a...)) return detail::fallback<Op, R, A...>(std::forward<A>(a)...);
        const c10::OptionalDeviceGuard guard(detail::deviceOf(a...));
        Functional<Meta, 2> op;
        op.meta(detail::metaArg(a)...);
        Impl(Op::name, op, detail::metaArg(a)...);
        return R(std::move(op.outputs_[0]), std::move(op.outputs_[1]));
    }
};

// The out= form of a structured op with two outputs (the last two arguments).
template <class Meta, class Op, auto Impl, class Sig = typename Op::schema>
struct OutForm2;
template <class Meta, class Op, auto Impl, class... A>
struct OutForm2<Meta, Op, Impl, std::tuple<at::Tensor &, at::Tensor &>(A...)> {
    using R = std::tuple<at::Tensor &, at::Tensor &>;
    static R call(A... a) { return split(std::forward_as_tuple(a...), std::make_index_sequence<sizeof...(A) - 2>{}); }
    template <class Tuple, size_t... K>
    static R split(Tuple t, std::index_sequence<K...>) {
        at::Tensor &o0 = std::get<sizeof...(K)>(t);
        at::Tensor &o1 = std::get<sizeof...(K) + 1>(t);
        if (!detail::familyArgs(std::get<K>(t)..., o0, o1)) {
            return detail::fallback<Op, R, A...>(std::get<K>(t)..., o0, o1);
        }
        const c10::OptionalDeviceGuard guard(detail::deviceOf(std::get<K>(t)...));
        Out<Meta, 2> op(o0, o1);
        op.meta(detail::metaArg(std::get<K>(t))...);
        Impl(Op::name, op, detail::metaArg(std::get<K>(t))...);
        op.finish();
        return R(o0, o1);
    }
};

}  // namespace infini_torch::aten

// Registers both forms of a structured op with two outputs: m, "max.dim", "max.dim_max", the at::_ops names
// (max_dim, max_dim_max), the meta class (structured_max_dim) and the impl.
#define INFINI_STRUCTURED_PAIR(m, F, O, OPF, OPO, META, IMPL)                                                \
    m.impl(F, TORCH_FN((::infini_torch::aten::FunctionalForm2<at::meta::META, at::_ops::OPF, IMPL>::call))); \
    m.impl(O, TORCH_FN((::infini_torch::aten::OutForm2<at::meta::META, at::_ops::OPO, IMPL>::call)))
