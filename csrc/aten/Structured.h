// Structured.h: the functional, in-place and out= forms of a torch structured kernel for the infini device.
//
// Torch's structured ops split into a meta function (at::meta::structured_<op>: argument checks, output shape,
// dtype; for TensorIterator ops also broadcasting, type promotion and dim coalescing) and an impl. torchgen writes,
// for each in-tree backend, three classes deriving from the meta class whose set_output_* allocate (functional),
// check (in-place) or resize (out=) the outputs. These templates are those classes for any meta class, so an
// infini kernel is: construct the form, call meta(...), run the family on the result, finish().
//
// set_output_* lost their DimnameList parameter with named tensors (torch 2.11 has it, 2.13 not): where the type
// exists both signatures are declared; the one that matches the base's virtual overrides it, the other is never
// called (so never instantiated).
#pragma once

#include <ATen/EmptyTensor.h>
#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>

#include <array>
#include <optional>
#include <type_traits>

#if __has_include(<ATen/core/Dimname.h>)  // torch before named tensors were removed: set_output_* take names
#include <ATen/core/Dimname.h>
#define INFINI_SET_OUTPUT_NAMES 1
#endif

namespace infini_torch::aten {

// A new infini tensor (sizes and, when given, strides), as the structured forms allocate outputs.
at::Tensor newOutput(at::IntArrayRef sizes, at::IntArrayRef strides, const at::TensorOptions &options);

namespace detail {

void resizeOut(const at::Tensor &out, at::IntArrayRef sizes, at::IntArrayRef strides, const at::TensorOptions &options);
void checkInplace(const at::Tensor &self, at::IntArrayRef sizes, const at::TensorOptions &options);
std::optional<at::Tensor> maybeProxy(const at::Tensor &out, at::IntArrayRef sizes, at::IntArrayRef strides,
                                     const at::TensorOptions &options);

template <class Meta>
constexpr bool kIsIterator = std::is_base_of_v<at::TensorIteratorBase, Meta>;

}  // namespace detail

// The functional form: allocates its outputs.
template <class Meta, int N = 1>
struct Functional final : Meta {
    std::array<at::Tensor, N> outputs_;

    void setOutput(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        outputs_[i] = newOutput(sizes, strides, options);
    }
    void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        setOutput(i, sizes, strides, options);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options);
    }
    void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        setOutput(i, sizes, strides, options);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options);
    }
#ifdef INFINI_SET_OUTPUT_NAMES
    void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                            at::DimnameList names) {
        setOutput(i, sizes, strides, options);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options, names);
    }
    void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                                at::DimnameList names) {
        setOutput(i, sizes, strides, options);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options, names);
    }
#endif
    const at::Tensor &maybe_get_output(int64_t i) override { return outputs_[i]; }
    void finish() {}
};

// The in-place and out= forms: write into given tensors (through a proxy where the meta function asked for
// strides the given tensor does not have; finish() copies the proxy back).
template <class Meta, int N, bool kInplace>
struct Given final : Meta {
    std::array<std::reference_wrapper<at::Tensor>, N> outputs_;
    std::array<std::optional<at::Tensor>, N> proxies_;

    template <class... T>
    explicit Given(T &...outs) : outputs_{std::ref(outs)...} {}

    void setOutput(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options, bool proxy) {
        const at::Tensor &out = outputs_[i].get();
        if constexpr (kInplace) {
            detail::checkInplace(out, sizes, options);
        } else {
            detail::resizeOut(out, sizes, strides, options);
        }
        if (proxy) {
            if (auto p = detail::maybeProxy(out, sizes, strides, options)) proxies_[i] = std::move(*p);
        }
    }
    void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        setOutput(i, sizes, strides, options, true);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options);
    }
    void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
        setOutput(i, sizes, strides, options, false);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options);
    }
#ifdef INFINI_SET_OUTPUT_NAMES
    void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                            at::DimnameList names) {
        setOutput(i, sizes, strides, options, true);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options, names);
    }
    void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                                at::DimnameList names) {
        setOutput(i, sizes, strides, options, false);
        if constexpr (detail::kIsIterator<Meta>) Meta::set_output_raw_strided(i, sizes, strides, options, names);
    }
#endif
    const at::Tensor &maybe_get_output(int64_t i) override {
        return proxies_[i].has_value() ? *proxies_[i] : outputs_[i].get();
    }
    void finish() {
        for (int i = 0; i < N; ++i) {
            if (proxies_[i].has_value()) outputs_[i].get().copy_(*proxies_[i]);
        }
    }
};

template <class Meta, int N = 1>
using Inplace = Given<Meta, N, true>;
template <class Meta, int N = 1>
using Out = Given<Meta, N, false>;

}  // namespace infini_torch::aten

// ---------------------------------------------------------------------------------------------------------------
// Kernels from one impl: for a structured op whose meta class is Meta, the three registered forms are
// FunctionalForm / InplaceForm / OutForm<Meta, at::_ops::<overload>, Impl>::call, each with the exact C++ signature of its aten overload (taken from
// at::_ops::<overload>::schema), running Impl(name, iterator-or-meta, meta args...) after meta(). Arguments the
// families cannot take (a dtype without an infini equivalent) go to the CPU fallback instead.
#include <ATen/native/CPUFallback.h>

#include <tuple>
#include <utility>

#include "Fallback.h"
#include "Family.h"

namespace infini_torch::aten {
namespace detail {

inline bool familyArg(const at::Tensor &t) { return !t.defined() || isFamilyDtype(t.scalar_type()); }
inline bool familyArg(const std::optional<at::Tensor> &t) { return !t.has_value() || familyArg(*t); }
inline bool familyArg(const at::Scalar &s) { return !s.isComplex(); }
inline bool familyArg(const std::optional<at::Scalar> &s) { return !s.has_value() || familyArg(*s); }
template <class T>
bool familyArg(const T &) {
    return true;
}
template <class... A>
bool familyArgs(const A &...a) {
    return (familyArg(a) && ...);
}

// What a meta function takes for an optional argument (as torchgen's wrappers convert it).
inline at::OptionalScalarRef metaArg(const std::optional<at::Scalar> &s) {
    return s.has_value() ? at::OptionalScalarRef(&s.value()) : at::OptionalScalarRef();
}
inline at::OptionalTensorRef metaArg(const std::optional<at::Tensor> &t) {
    return t.has_value() && t->defined() ? at::OptionalTensorRef(*t) : at::OptionalTensorRef();
}
inline int64_t metaArg(const c10::SymInt &s) { return s.guard_int(__FILE__, __LINE__); }
inline at::IntArrayRef metaArg(c10::SymIntArrayRef s) { return C10_AS_INTARRAYREF_SLOW(s); }
template <class T>
const T &metaArg(const T &t) {
    return t;
}

template <class Op, class R, class... A>
R fallback(A... a) {
    return at::native::call_fallback_fn_symint<&cpuFallback, Op>::call(std::forward<A>(a)...);
}

}  // namespace detail

// The functional form of overload Op (its signature from at::_ops::<Op>::schema).
template <class Meta, class Op, auto Impl, class Sig = typename Op::schema>
struct FunctionalForm;
template <class Meta, class Op, auto Impl, class... A>
struct FunctionalForm<Meta, Op, Impl, at::Tensor(A...)> {
    static at::Tensor call(A... a) {
        if (!detail::familyArgs(a...)) return detail::fallback<Op, at::Tensor, A...>(std::forward<A>(a)...);
        Functional<Meta> op;
        op.meta(detail::metaArg(a)...);
        Impl(Op::name, op, detail::metaArg(a)...);
        return std::move(op.outputs_[0]);
    }
};

// The in-place form: self is the output and the meta's first argument.
template <class Meta, class Op, auto Impl, class Sig = typename Op::schema>
struct InplaceForm;
template <class Meta, class Op, auto Impl, class... A>
struct InplaceForm<Meta, Op, Impl, at::Tensor &(at::Tensor &, A...)> {
    static at::Tensor &call(at::Tensor &self, A... a) {
        if (!detail::familyArgs(self, a...)) {
            return detail::fallback<Op, at::Tensor &, at::Tensor &, A...>(self, std::forward<A>(a)...);
        }
        Inplace<Meta> op(self);
        op.meta(self, detail::metaArg(a)...);
        Impl(Op::name, op, self, detail::metaArg(a)...);
        op.finish();
        return self;
    }
};

// The out= form: the last argument is the output.
template <class Meta, class Op, auto Impl, class Sig = typename Op::schema>
struct OutForm;
template <class Meta, class Op, auto Impl, class... A>
struct OutForm<Meta, Op, Impl, at::Tensor &(A...)> {
    static at::Tensor &call(A... a) {
        return split(std::forward_as_tuple(a...), std::make_index_sequence<sizeof...(A) - 1>{});
    }
    template <class Tuple, size_t... K>
    static at::Tensor &split(Tuple t, std::index_sequence<K...>) {
        at::Tensor &out = std::get<sizeof...(K)>(t);
        if (!detail::familyArgs(std::get<K>(t)..., out)) {
            return detail::fallback<Op, at::Tensor &, A...>(std::get<K>(t)..., out);
        }
        Out<Meta> op(out);
        op.meta(detail::metaArg(std::get<K>(t))...);
        Impl(Op::name, op, detail::metaArg(std::get<K>(t))...);
        op.finish();
        return out;
    }
};

}  // namespace infini_torch::aten

// Registers the three forms of a structured op: m, "add.Tensor", "add_.Tensor", "add.out", the at::_ops names
// (add_Tensor, add__Tensor, add_out), the meta class (structured_add_Tensor) and the impl.
#define INFINI_FUNCTIONAL(m, F, OPF, META, IMPL) \
    m.impl(F, TORCH_FN((::infini_torch::aten::FunctionalForm<at::meta::META, at::_ops::OPF, IMPL>::call)))
#define INFINI_INPLACE(m, I, OPI, META, IMPL) \
    m.impl(I, TORCH_FN((::infini_torch::aten::InplaceForm<at::meta::META, at::_ops::OPI, IMPL>::call)))
#define INFINI_OUT(m, O, OPO, META, IMPL) \
    m.impl(O, TORCH_FN((::infini_torch::aten::OutForm<at::meta::META, at::_ops::OPO, IMPL>::call)))
#define INFINI_STRUCTURED3(m, F, I, O, OPF, OPI, OPO, META, IMPL) \
    INFINI_FUNCTIONAL(m, F, OPF, META, IMPL);                     \
    INFINI_INPLACE(m, I, OPI, META, IMPL);                        \
    INFINI_OUT(m, O, OPO, META, IMPL)
#define INFINI_STRUCTURED2(m, F, O, OPF, OPO, META, IMPL) \
    INFINI_FUNCTIONAL(m, F, OPF, META, IMPL);             \
    INFINI_OUT(m, O, OPO, META, IMPL)
